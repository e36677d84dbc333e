/*
 * archcheck search FILE : the worst-case fault search over the file's <faults>.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/parser.h"
#include "archcheck/search.h"
#include "cli/cli.h"
#include "common/jsonw.h"

static const char search_usage[] =
    "usage: archcheck search [OPTIONS] FILE\n"
    "\n"
    "Search the file's <faults> space for the fault plan that degrades the design most:\n"
    "the score of its <objective> on the fluid transient, maximised by a genetic\n"
    "algorithm (or random sampling in the same budget). The same seed gives the same\n"
    "output, byte for byte, for any number of jobs.\n"
    "\n"
    "options:\n"
    "      --budget N           evaluations (default: the file's <faults budget>, else 2000)\n"
    "      --method M           ga (default) or random\n"
    "      --seed N             random seed (default: the file's <faults seed>, else 1)\n"
    "      --jobs N             evaluation threads, 1 to 64 (default 1)\n"
    "      --horizon DURATION   transient horizon (default: the profiles' last point)\n"
    "      --boundary           also the resilience boundary of the design as it is: the\n"
    "                           lowest workload (x1/16 to x16) whose worst case reaches tau,\n"
    "                           as the peak request rate (a search of --budget per probe)\n"
    "  -f, --format FMT         text (default) or json\n"
    "  -h, --help               this help\n"
    "\n"
    "exit status: 0 searched, 2 invalid input or command line, 3 the search could not be\n"
    "run (an objective term the transient does not compute, a fault it does not model, an\n"
    "integration that failed)\n";

static const char *attr_name(ac_transient_fault_attr a)
{
    switch (a) {
    case AC_TRANSIENT_FAULT_DELAY: return "delay";
    case AC_TRANSIENT_FAULT_FAIL_PROB: return "fail-prob";
    case AC_TRANSIENT_FAULT_SERVERS_DOWN: return "servers-down";
    case AC_TRANSIENT_FAULT_CAPACITY_LOSS: return "capacity-loss";
    case AC_TRANSIENT_FAULT_COLD_START: return "cold-start";
    }
    return "?";
}

typedef struct found {
    const ac_model *m;
    const char *file;
    const char *method;
    unsigned long seed;
    size_t evals, best_at, nfaults, nterms;
    double score;
    int has_boundary;
    ac_search_boundary b;
    ac_transient_fault *plan;
    ac_search_term_value *terms;
} found;

static const char *term_target(const found *f, size_t i)
{
    const ac_faults *fs = &f->m->faults;
    if (!(fs->has_objective && fs->nterms > 0) || fs->terms[i].target == AC_NONE)
        return NULL;
    return f->m->nodes[fs->terms[i].target].id;
}

static ac_metric term_metric(const found *f, size_t i)
{
    const ac_faults *fs = &f->m->faults;
    return fs->has_objective && fs->nterms > 0 ? fs->terms[i].metric : AC_METRIC_ERROR_RATE;
}

static const char *boundary_status(ac_search_boundary_status s)
{
    return s == AC_SEARCH_BOUNDARY_FOUND ? "found"
                                         : (s == AC_SEARCH_BOUNDARY_BELOW ? "below" : "above");
}

static void print_boundary_text(FILE *fp, const found *f)
{
    const ac_search_boundary *b = &f->b;
    if (b->status == AC_SEARCH_BOUNDARY_FOUND)
        fprintf(fp,
                "  resilience boundary %.6g/s (workload x%.6g, bracket x%.6g..x%.6g; the fluid "
                "model, without the fluctuations: %zu probes, %zu evaluations)\n",
                b->rate, b->scale, b->lo, b->hi, b->probes, b->evaluations);
    else
        fprintf(fp,
                "  resilience boundary %s %.6g/s (workload x%.6g): %zu probes, %zu evaluations\n",
                b->status == AC_SEARCH_BOUNDARY_BELOW ? "at most" : "above", b->rate, b->scale,
                b->probes, b->evaluations);
}

static void print_text(FILE *fp, const found *f)
{
    fprintf(fp,
            "%s: worst case found by %s in %zu evaluations (seed %lu, best at evaluation %zu)\n",
            f->file, f->method, f->evals, f->seed, f->best_at);
    fprintf(fp, "  score %.6g of 1 (tau %.6g)\n", f->score, f->m->faults.tau);
    for (size_t k = 0; k < f->nfaults; k++) {
        const ac_transient_fault *p = &f->plan[k];
        fprintf(fp, "  fault %s %s = %.6g%s from %.6g s to ", f->m->nodes[p->target].id,
                attr_name(p->attr), p->value,
                p->attr == AC_TRANSIENT_FAULT_DELAY || p->attr == AC_TRANSIENT_FAULT_COLD_START
                    ? " s"
                    : "",
                p->start);
        if (isinf(p->end))
            fputs("the horizon\n", fp);
        else
            fprintf(fp, "%.6g s\n", p->end);
    }
    for (size_t i = 0; i < f->nterms; i++) {
        const char *t = term_target(f, i);
        fprintf(fp, "  term %s %s: %.6g / norm %.6g = %.6g, weight %.6g\n",
                ac_metric_name(term_metric(f, i)), t != NULL ? t : "(end to end)",
                f->terms[i].metric, f->terms[i].norm, f->terms[i].score, f->terms[i].weight);
    }
    if (f->has_boundary)
        print_boundary_text(fp, f);
}

/* "NODE.ATTRIBUTE", with "#k" for the k-th repeat of the same pair. */
static void fault_key(const found *f, size_t k, char *buf, size_t size)
{
    size_t rep = 1;
    for (size_t j = 0; j < k; j++)
        rep += f->plan[j].target == f->plan[k].target && f->plan[j].attr == f->plan[k].attr;
    if (rep == 1)
        snprintf(buf, size, "%s.%s", f->m->nodes[f->plan[k].target].id, attr_name(f->plan[k].attr));
    else
        snprintf(buf, size, "%s.%s#%zu", f->m->nodes[f->plan[k].target].id,
                 attr_name(f->plan[k].attr), rep);
}

static void print_json(FILE *fp, const found *f)
{
    ac_jsonw w;
    char key[160];
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "archcheck");
    ac_jsonw_string(&w, AC_VERSION);
    ac_jsonw_key(&w, "file");
    ac_jsonw_string(&w, f->file);
    ac_jsonw_key(&w, "seed");
    ac_jsonw_uint(&w, f->seed);
    ac_jsonw_key(&w, "search");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "method");
    ac_jsonw_string(&w, f->method);
    ac_jsonw_key(&w, "evaluations");
    ac_jsonw_uint(&w, f->evals);
    ac_jsonw_key(&w, "best_at_evaluation");
    ac_jsonw_uint(&w, f->best_at);
    ac_jsonw_key(&w, "best_score");
    ac_jsonw_double(&w, f->score);
    ac_jsonw_key(&w, "tau");
    ac_jsonw_double(&w, f->m->faults.tau);
    ac_jsonw_key(&w, "worst_case");
    ac_jsonw_object_begin(&w);
    for (size_t k = 0; k < f->nfaults; k++) {
        fault_key(f, k, key, sizeof key);
        ac_jsonw_key(&w, key);
        ac_jsonw_double(&w, f->plan[k].value);
    }
    ac_jsonw_object_end(&w);
    ac_jsonw_key(&w, "faults");
    ac_jsonw_array_begin(&w);
    for (size_t k = 0; k < f->nfaults; k++) {
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "target");
        ac_jsonw_string(&w, f->m->nodes[f->plan[k].target].id);
        ac_jsonw_key(&w, "attribute");
        ac_jsonw_string(&w, attr_name(f->plan[k].attr));
        ac_jsonw_key(&w, "value");
        ac_jsonw_double(&w, f->plan[k].value);
        ac_jsonw_key(&w, "start");
        ac_jsonw_double(&w, f->plan[k].start);
        ac_jsonw_key(&w, "end");
        if (isinf(f->plan[k].end))
            ac_jsonw_null(&w);
        else
            ac_jsonw_double(&w, f->plan[k].end);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_key(&w, "terms");
    ac_jsonw_array_begin(&w);
    for (size_t i = 0; i < f->nterms; i++) {
        const char *t = term_target(f, i);
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "metric");
        ac_jsonw_string(&w, ac_metric_name(term_metric(f, i)));
        if (t != NULL) {
            ac_jsonw_key(&w, "target");
            ac_jsonw_string(&w, t);
        }
        ac_jsonw_key(&w, "value");
        ac_jsonw_double(&w, f->terms[i].metric);
        ac_jsonw_key(&w, "norm");
        ac_jsonw_double(&w, f->terms[i].norm);
        ac_jsonw_key(&w, "weight");
        ac_jsonw_double(&w, f->terms[i].weight);
        ac_jsonw_key(&w, "score");
        ac_jsonw_double(&w, f->terms[i].score);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    if (f->has_boundary) {
        ac_jsonw_key(&w, "resilience");
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "tau");
        ac_jsonw_double(&w, f->m->faults.tau);
        ac_jsonw_key(&w, "boundary");
        ac_jsonw_double(&w, f->b.rate);
        ac_jsonw_key(&w, "boundary_status");
        ac_jsonw_string(&w, boundary_status(f->b.status));
        ac_jsonw_key(&w, "workload_factor");
        ac_jsonw_double(&w, f->b.scale);
        ac_jsonw_key(&w, "probes");
        ac_jsonw_uint(&w, f->b.probes);
        ac_jsonw_key(&w, "evaluations");
        ac_jsonw_uint(&w, f->b.evaluations);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    fputc('\n', fp);
}

typedef struct cli_opts {
    ac_search_options so;
    int has_budget, has_seed, json, boundary;
    double horizon;
} cli_opts;

static int parse_opts(int argc, char **argv, cli_opts *o)
{
    static const struct option opts[] = {{"budget", required_argument, NULL, 'b'},
                                         {"method", required_argument, NULL, 'M'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"horizon", required_argument, NULL, 'H'},
                                         {"boundary", no_argument, NULL, 'B'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    unsigned long v;
    char msg[256];
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if (ac_cli_ulong_parse(optarg, AC_SEARCH_BUDGET_MAX, &v) != 0 || v == 0)
                return ac_cli_fail("--budget takes a whole number from 1 to %d: got '%s'",
                                   AC_SEARCH_BUDGET_MAX, optarg);
            o->so.budget = (size_t)v;
            o->has_budget = 1;
            break;
        case 'M':
            if (strcmp(optarg, "ga") == 0)
                o->so.method = AC_SEARCH_GA;
            else if (strcmp(optarg, "random") == 0)
                o->so.method = AC_SEARCH_RANDOM;
            else
                return ac_cli_fail("unknown method '%s' (allowed: ga random)", optarg);
            break;
        case 's':
            if (ac_cli_ulong_parse(optarg, 4294967295ul, &v) != 0)
                return ac_cli_fail("--seed takes a whole number from 0 to 4294967295: got '%s'",
                                   optarg);
            o->so.seed = v;
            o->has_seed = 1;
            break;
        case 'j':
            if (ac_cli_ulong_parse(optarg, AC_SEARCH_JOBS_MAX, &v) != 0 || v == 0)
                return ac_cli_fail("--jobs takes a whole number from 1 to %d: got '%s'",
                                   AC_SEARCH_JOBS_MAX, optarg);
            o->so.jobs = (size_t)v;
            break;
        case 'H':
            if (ac_parser_quantity(optarg, AC_QUANTITY_DURATION, &o->horizon, msg, sizeof msg) !=
                    0 ||
                !(o->horizon > 0.0))
                return ac_cli_fail("--horizon: '%s' %s", optarg,
                                   msg[0] ? msg : "must be a positive duration");
            break;
        case 'B': o->boundary = 1; break;
        case 'f':
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
                return ac_cli_fail("unknown format '%s' (allowed: text json)", optarg);
            o->json = strcmp(optarg, "json") == 0;
            break;
        case 'h': fputs(search_usage, stdout); return -1;
        default: fputs(search_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    return 0;
}

/* Run the search on a valid model; 0, or AC_EXIT_INCONCLUSIVE / AC_EXIT_USAGE after
 * saying why. */
static int run(const ac_model *m, const char *file, cli_opts *o)
{
    ac_transient_options to;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_problem pr;
    ac_error err = {0};
    const double *genes = NULL;
    found f;
    int rc, status = AC_EXIT_PASS;
    memset(&f, 0, sizeof f);
    ac_transient_options_init(&to);
    to.horizon = o->horizon;
    if (!o->has_budget && m->faults.has_budget)
        o->so.budget = m->faults.budget;
    if (!o->has_seed && m->faults.has_seed)
        o->so.seed = m->faults.seed;
    rc = ac_search_space_new(m, ac_transient_horizon(m, &to), &sp, &err);
    if (rc == 0)
        rc = ac_search_objective_new(m, sp, &to, 1.0, o->so.jobs, &obj, &err);
    if (rc == 0 && o->boundary) {
        /* the workspace is sized for the largest probe */
        ac_search_objective_free(obj);
        obj = NULL;
        to.scale = 16.0;
        rc = ac_search_objective_new(m, sp, &to, 1.0, o->so.jobs, &obj, &err);
    }
    if (rc == 0) {
        pr = ac_search_objective_problem(obj);
        rc = ac_search_ga_new(&pr, &o->so, &ga, &err);
    }
    if (rc == 0)
        rc = ac_search_ga_run(ga, &err);
    if (rc == 0) {
        f.nfaults = ac_search_space_nfaults(sp);
        f.nterms = ac_search_objective_nterms(obj);
        f.plan = calloc(f.nfaults + 1, sizeof *f.plan);
        f.terms = calloc(f.nterms, sizeof *f.terms);
        if (f.plan == NULL || f.terms == NULL)
            rc = ac_error_set(&err, AC_ENOMEM, "out of memory");
    }
    if (rc == 0) {
        (void)ac_search_ga_best(ga, &genes);
        ac_search_space_decode(sp, genes, f.plan);
        /* the terms of the best plan, re-evaluated (the same numbers: deterministic) */
        rc = ac_search_objective_eval_plan(obj, 0, f.plan, &f.score, f.terms, &err);
    }
    if (rc == 0 && o->boundary) {
        f.has_boundary = 1;
        rc = ac_search_boundary_find(m, obj, &o->so, m->faults.tau, 1.0 / 16.0, 16.0, 1e-3, &f.b,
                                     &err);
    }
    if (rc != 0) {
        if (err.line > 0)
            fprintf(stderr, "%s:%u:%u: error: cannot search: %s\n", err.file[0] ? err.file : file,
                    err.line, err.column, err.message);
        else
            fprintf(stderr, "archcheck: %s: cannot search: %s\n", file, err.message);
        status = rc == AC_ENOMEM ? AC_EXIT_USAGE : AC_EXIT_INCONCLUSIVE;
        goto cleanup;
    }
    f.m = m;
    f.file = file;
    f.method = o->so.method == AC_SEARCH_GA ? "ga" : "random";
    f.seed = o->so.seed;
    f.evals = ac_search_ga_evaluations(ga);
    f.best_at = ac_search_ga_best_at(ga);
    if (o->json)
        print_json(stdout, &f);
    else
        print_text(stdout, &f);
    if (ac_search_objective_failures(obj) > 0)
        fprintf(stderr,
                "archcheck: %s: note: %zu of %zu evaluations failed to integrate and scored 0 "
                "(a worst case may lie among them)\n",
                file, ac_search_objective_failures(obj), f.evals);
cleanup:
    free(f.plan);
    free(f.terms);
    ac_search_ga_free(ga);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    return status;
}

int ac_cli_search(int argc, char **argv)
{
    cli_opts o;
    ac_cli_input in;
    int status;
    memset(&o, 0, sizeof o);
    ac_search_options_init(&o.so);
    status = parse_opts(argc, argv, &o);
    if (status != 0)
        return status < 0 ? AC_EXIT_PASS : status;
    if (optind + 1 != argc) {
        fputs(search_usage, stderr);
        return ac_cli_fail("search: exactly one input file is needed");
    }
    if (ac_cli_input_load(&in, argv + optind, 1, AC_SEV_ERROR) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    if (in.models[0] == NULL) {
        ac_report_run r;
        memset(&r, 0, sizeof r);
        r.files = in.files;
        r.nfiles = 1;
        r.fail_on = AC_SEV_ERROR;
        ac_report_text(stderr, &r);
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    if (!in.models[0]->faults.present) {
        fprintf(stderr, "archcheck: %s: no <faults> space to search\n", in.files[0].file);
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    status = run(in.models[0], in.files[0].file, &o);
    ac_cli_input_free(&in);
    return status;
}
