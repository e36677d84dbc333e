/*
 * archcheck search FILE : the worst-case fault search over the file's <faults>.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "archcheck/confirm.h"
#include "archcheck/search.h"
#include "cli/cli.h"
#include "common/atomic.h"
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
    "      --confirm N          re-run the worst case in the simulator: at most N\n"
    "                           replications (default 10; 0: not), a sequential test\n"
    "                           against tau as in check (looks at 3, 6, .., N; stops at\n"
    "                           the first whose interval clears tau), its score with\n"
    "                           that look's interval (>= 95%) beside the fluid score\n"
    "      --confirm-events N   the confirmation's event budget over its replications\n"
    "                           (default 50000000; past it: not confirmed, with the reason)\n"
    "      --mitigation ID|all  the resilience study: B_r of the baseline and of the\n"
    "                           mitigation (all: every one), each against its own worst\n"
    "                           case and the baseline's, and the gain R_g\n"
    "      --study-budget N     evaluations the study may spend (default 200000)\n"
    "      --export-fis FILE    the worst case as an AWS FIS experiment template (JSON)\n"
    "      --export-chaostoolkit FILE  the worst case as a Chaos Toolkit experiment\n"
    "      --report OUT.pdf     the worst case (each fault's window on the time axis, the\n"
    "                           terms) and the convergence (best score per evaluation, the\n"
    "                           GA against random sampling: a second search of the budget)\n"
    "      --report-seeds K     the convergence page over K seeds (1 to 50, default 1): the\n"
    "                           median and quartiles of the GA and of random sampling (2 K\n"
    "                           more searches of the budget)\n"
    "  -f, --format FMT         text (default) or json\n"
    "  -h, --help               this help\n"
    "\n"
    "exit status: 0 searched, 2 invalid input or command line, 3 the search could not be\n"
    "run (an objective term the transient does not compute, a fault it does not model, an\n"
    "integration that failed)\n";

static const char *attr_name(ac_transient_fault_attr a)
{
    return ac_search_attr_name(a);
}

typedef struct found {
    const ac_model *m;
    const char *file;
    const char *method;
    unsigned long seed;
    size_t evals, best_at, nfaults, nterms, polish_evals;
    size_t failures; /* evaluations whose transient failed to integrate (search and polish) */
    double score;
    int has_boundary;
    ac_search_boundary b;
    ac_transient_fault *plan;
    ac_search_term_value *terms;
    int has_confirm;
    ac_analysis_confirmation conf;
    const ac_search_study *study;
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

/* A boundary resting on plans that failed to integrate is an upper bound only. */
static void print_failures_text(FILE *fp, const ac_search_boundary *b)
{
    if (b->failures_below > 0)
        fprintf(fp,
                "    an upper bound only: %zu plans failed to integrate at probes judged below "
                "tau (%zu over every probe), and one of them may reach tau\n",
                b->failures_below, b->failures);
    else if (b->failures > 0)
        fprintf(fp, "    %zu plans failed to integrate, all at probes that reached tau\n",
                b->failures);
}

/*
 * The simulator's bound on the baseline's B_r (doc/models.md §6, "The boundary by
 * simulation"): the confirmation re-runs the worst case at the design's workload (factor 1,
 * the peak rate Lambda_peak); when its interval lies at or above tau (lower end >= tau) the
 * worst-case score reaches tau there, so B_r <= Lambda_peak by simulation. Returned (/s) when
 * it lies below the fluid's B_r b (FOUND above it, or ABOVE), else NAN.
 */
static double simulated_bound(const found *f, const ac_search_boundary *b)
{
    double rate;
    if (!f->has_confirm || ac_analysis_confirm_side(&f->conf, f->m->faults.tau) != 1)
        return NAN;
    rate = ac_search_peak_rate(f->m);
    if (b->status == AC_SEARCH_BOUNDARY_BELOW || !(rate > 0.0) ||
        (b->status == AC_SEARCH_BOUNDARY_FOUND && !(rate < b->rate)))
        return NAN;
    return rate;
}

/* The caveat every printed B_r carries. */
static const char boundary_caveat[] =
    "the fluid model's B_r, without the fluctuations, has no stated error: the simulator is "
    "not run on its probes (only on the worst case at the design's workload)";

/* " by the fluid; the simulator reaches tau at X/s" after a B_r the simulator contradicts. */
static void print_sim_bound_text(FILE *fp, double sim)
{
    if (!isnan(sim))
        fprintf(fp,
                " by the fluid; the simulator reaches tau at %.6g/s (by simulation B_r <= "
                "%.6g/s)",
                sim, sim);
}

static void print_boundary_text(FILE *fp, const found *f)
{
    const ac_search_boundary *b = &f->b;
    double sim = simulated_bound(f, b);
    if (b->status == AC_SEARCH_BOUNDARY_FOUND)
        fprintf(fp, "  resilience boundary %.6g/s", b->rate);
    else
        fprintf(fp, "  resilience boundary %s %.6g/s",
                b->status == AC_SEARCH_BOUNDARY_BELOW ? "at most" : "above", b->rate);
    print_sim_bound_text(fp, sim);
    if (b->status == AC_SEARCH_BOUNDARY_FOUND)
        fprintf(fp, " (workload x%.6g, bracket x%.6g..x%.6g: %zu probes, %zu evaluations)\n",
                b->scale, b->lo, b->hi, b->probes, b->evaluations);
    else
        fprintf(fp, " (workload x%.6g): %zu probes, %zu evaluations\n", b->scale, b->probes,
                b->evaluations);
    fprintf(fp, "    %s\n", boundary_caveat);
    print_failures_text(fp, b);
}

static const char *variant_id(const found *f, const ac_search_variant *v)
{
    (void)f;
    return v->id[0] != '\0' ? v->id : "(baseline)";
}

static void print_confirm_text(FILE *fp, const found *f)
{
    const ac_analysis_confirmation *c = &f->conf;
    if (!c->computed) {
        fprintf(fp, "  not confirmed by simulation: %s\n", c->why);
        return;
    }
    fprintf(fp,
            "  simulated score %.6g +- %.3g (%.4g%%, %zu replications, look %zu of %zu, %llu "
            "events, after a warm-up of %.6g s); fluid %.6g, difference %+.3g\n",
            c->score, c->ci95, 100.0 * c->level, c->replications, c->looks, c->looks_planned,
            c->events, c->warmup, c->fluid, c->diff);
    if (c->why[0] != '\0')
        fprintf(fp, "  stopped before the last look: %s\n", c->why);
}

static void print_bound_text(FILE *fp, const char *what, const ac_search_boundary *b, double sim)
{
    fprintf(fp, "    %s: %s%.6g/s", what,
            b->status == AC_SEARCH_BOUNDARY_FOUND
                ? ""
                : (b->status == AC_SEARCH_BOUNDARY_BELOW ? "at most " : "above "),
            b->rate);
    print_sim_bound_text(fp, sim);
}

static void print_study_text(FILE *fp, const found *f)
{
    const ac_search_study *st = f->study;
    fprintf(fp, "  resilience study (tau %.6g, fluid; %zu of %zu evaluations; %s):\n", st->tau,
            st->evaluations, st->budget, st->scope);
    fputs("  every B_r below is the fluid model's, without the fluctuations, and has no stated "
          "error: the simulator is not run on its probes (only on the baseline's worst case at "
          "the design's workload); R_g rests on them\n",
          fp);
    for (size_t i = 0; i < st->nvariants; i++) {
        const ac_search_variant *v = &st->variants[i];
        fprintf(fp, "  %s%s\n", variant_id(f, v),
                i > 0 && v->mitigation == AC_NONE ? " (a combination the file does not declare)"
                                                  : "");
        if (!v->computed) {
            fprintf(fp, "    not computed: %s\n", v->why);
            continue;
        }
        if (!isnan(v->worst_score))
            fprintf(fp, "    worst-case score at the design's workload %.6g%s\n", v->worst_score,
                    v->worst_failures > 0 ? " (some plans failed to integrate: a lower bound)"
                                          : "");
        print_bound_text(fp, "B_r against its own worst case", &v->own,
                         i == 0 ? simulated_bound(f, &v->own) : NAN);
        if (isnan(v->gain))
            fputs("\n", fp);
        else
            fprintf(fp, ", R_g %+.4g\n", v->gain);
        print_failures_text(fp, &v->own);
        if (i == 0)
            continue;
        print_bound_text(fp, "B_r against the baseline's worst case", &v->against, NAN);
        if (isnan(v->gain_against))
            fputs("\n", fp);
        else
            fprintf(fp, ", gain %+.4g\n", v->gain_against);
        fprintf(fp,
                "    %zu evaluations (warm-started from the baseline's final population: %zu "
                "saved)\n",
                v->evaluations, v->evaluations_cold - v->evaluations);
    }
}

static void print_text(FILE *fp, const found *f)
{
    fprintf(fp,
            "%s: worst case found by %s in %zu evaluations (seed %lu, its best at "
            "evaluation %zu; then %zu more polishing it)\n",
            f->file, f->method, f->evals, f->seed, f->best_at, f->polish_evals);
    fprintf(fp, "  score %.6g of 1 (tau %.6g)\n", f->score, f->m->faults.tau);
    if (f->failures > 0)
        fprintf(fp,
                "  %zu of the plans tried failed to integrate and have no score: the worst "
                "case may be among them\n",
                f->failures);
    for (size_t k = 0; k < f->nfaults; k++) {
        const ac_transient_fault *p = &f->plan[k];
        fprintf(fp, "  fault %s %s = %.6g%s from %.6g s to ", ac_search_target_id(f->m, p->target),
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
    if (f->has_confirm)
        print_confirm_text(fp, f);
    if (f->has_boundary)
        print_boundary_text(fp, f);
    if (f->study != NULL)
        print_study_text(fp, f);
}

/* "NODE.ATTRIBUTE", with "#k" for the k-th repeat of the same pair. */
static void fault_key(const found *f, size_t k, char *buf, size_t size)
{
    size_t rep = 1;
    for (size_t j = 0; j < k; j++)
        rep += f->plan[j].target == f->plan[k].target && f->plan[j].attr == f->plan[k].attr;
    if (rep == 1)
        snprintf(buf, size, "%s.%s", ac_search_target_id(f->m, f->plan[k].target),
                 attr_name(f->plan[k].attr));
    else
        snprintf(buf, size, "%s.%s#%zu", ac_search_target_id(f->m, f->plan[k].target),
                 attr_name(f->plan[k].attr), rep);
}

static void json_num_or_null(ac_jsonw *w, const char *key, double v)
{
    ac_jsonw_key(w, key);
    if (isfinite(v))
        ac_jsonw_double(w, v);
    else
        ac_jsonw_null(w);
}

static void print_confirm_json(ac_jsonw *w, const found *f)
{
    const ac_analysis_confirmation *c = &f->conf;
    ac_jsonw_key(w, "confirmation");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "computed");
    ac_jsonw_bool(w, c->computed);
    if (!c->computed) {
        ac_jsonw_key(w, "why");
        ac_jsonw_string(w, c->why);
    } else {
        ac_jsonw_key(w, "score");
        ac_jsonw_double(w, c->score);
        ac_jsonw_key(w, "score_ci95");
        ac_jsonw_double(w, c->ci95);
        ac_jsonw_key(w, "fluid_score");
        ac_jsonw_double(w, c->fluid);
        ac_jsonw_key(w, "difference");
        ac_jsonw_double(w, c->diff);
        ac_jsonw_key(w, "level");
        ac_jsonw_double(w, c->level);
        ac_jsonw_key(w, "replications");
        ac_jsonw_uint(w, c->replications);
        ac_jsonw_key(w, "looks");
        ac_jsonw_uint(w, c->looks);
        ac_jsonw_key(w, "looks_planned");
        ac_jsonw_uint(w, c->looks_planned);
        if (c->why[0] != '\0') {
            ac_jsonw_key(w, "stopped");
            ac_jsonw_string(w, c->why);
        }
        ac_jsonw_key(w, "events");
        ac_jsonw_uint(w, c->events);
        ac_jsonw_key(w, "warmup");
        ac_jsonw_double(w, c->warmup);
    }
    ac_jsonw_object_end(w);
}

/* Beside a B_r: "<key>_expected_relative_error": null (the fluid's, no stated error). */
static void json_no_error(ac_jsonw *w, const char *key)
{
    char k[96];
    snprintf(k, sizeof k, "%s_expected_relative_error", key);
    ac_jsonw_key(w, k);
    ac_jsonw_null(w);
}

static void json_failures(ac_jsonw *w, const ac_search_boundary *b)
{
    ac_jsonw_key(w, "failed_integrations");
    ac_jsonw_uint(w, b->failures);
    ac_jsonw_key(w, "failed_integrations_below_tau");
    ac_jsonw_uint(w, b->failures_below);
}

static void print_study_json(ac_jsonw *w, const found *f)
{
    const ac_search_study *st = f->study;
    ac_jsonw_key(w, "resilience");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "tau");
    ac_jsonw_double(w, st->tau);
    json_num_or_null(w, "boundary", st->variants[0].computed ? st->variants[0].own.rate : NAN);
    json_no_error(w, "boundary");
    json_num_or_null(w, "simulated_upper_bound",
                     st->variants[0].computed ? simulated_bound(f, &st->variants[0].own) : NAN);
    ac_jsonw_key(w, "boundary_status");
    ac_jsonw_string(w, st->variants[0].computed ? boundary_status(st->variants[0].own.status)
                                                : "not computed");
    if (!st->variants[0].computed) {
        ac_jsonw_key(w, "why");
        ac_jsonw_string(w, st->variants[0].why);
    }
    ac_jsonw_key(w, "approximation");
    ac_jsonw_string(w, "fluid");
    ac_jsonw_key(w, "evaluations");
    ac_jsonw_uint(w, st->evaluations);
    ac_jsonw_key(w, "budget");
    ac_jsonw_uint(w, st->budget);
    ac_jsonw_key(w, "every_combination");
    ac_jsonw_bool(w, st->all_subsets);
    ac_jsonw_key(w, "variants");
    ac_jsonw_string(w, st->scope);
    json_failures(w, &st->variants[0].own);
    ac_jsonw_object_end(w);
    ac_jsonw_key(w, "mitigations");
    ac_jsonw_array_begin(w);
    for (size_t i = 1; i < st->nvariants; i++) {
        const ac_search_variant *v = &st->variants[i];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "id");
        ac_jsonw_string(w, variant_id(f, v));
        ac_jsonw_key(w, "declared");
        ac_jsonw_bool(w, v->mitigation != AC_NONE);
        if (v->mitigation == AC_NONE) {
            ac_jsonw_key(w, "parts");
            ac_jsonw_array_begin(w);
            for (size_t k = 0; k < v->nparts; k++)
                ac_jsonw_string(w, f->m->mitigations[v->parts[k]].id);
            ac_jsonw_array_end(w);
        }
        ac_jsonw_key(w, "computed");
        ac_jsonw_bool(w, v->computed);
        if (!v->computed) {
            ac_jsonw_key(w, "why");
            ac_jsonw_string(w, v->why);
        } else {
            json_num_or_null(w, "worst_case_score", v->worst_score);
            ac_jsonw_key(w, "evaluations");
            ac_jsonw_uint(w, v->evaluations);
            ac_jsonw_key(w, "evaluations_saved");
            ac_jsonw_uint(w, v->evaluations_cold - v->evaluations);
            json_num_or_null(w, "resilience_boundary", v->own.rate);
            json_no_error(w, "resilience_boundary");
            ac_jsonw_key(w, "boundary_status");
            ac_jsonw_string(w, boundary_status(v->own.status));
            json_num_or_null(w, "resilience_gain", v->gain);
            json_num_or_null(w, "boundary_against_baseline_worst_case", v->against.rate);
            json_no_error(w, "boundary_against_baseline_worst_case");
            ac_jsonw_key(w, "boundary_against_baseline_worst_case_status");
            ac_jsonw_string(w, boundary_status(v->against.status));
            json_num_or_null(w, "gain_against_baseline_worst_case", v->gain_against);
            json_failures(w, &v->own);
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void print_json(FILE *fp, const found *f)
{
    ac_jsonw w;
    char key[160];
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_report_json_header(&w, f->file, NULL, &f->seed);
    ac_jsonw_key(&w, "search");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "method");
    ac_jsonw_string(&w, f->method);
    ac_jsonw_key(&w, "evaluations");
    ac_jsonw_uint(&w, f->evals);
    ac_jsonw_key(&w, "best_at_evaluation");
    ac_jsonw_uint(&w, f->best_at);
    ac_jsonw_key(&w, "polish_evaluations");
    ac_jsonw_uint(&w, f->polish_evals);
    ac_jsonw_key(&w, "best_score");
    ac_jsonw_double(&w, f->score);
    ac_jsonw_key(&w, "failed_integrations");
    ac_jsonw_uint(&w, f->failures);
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
        ac_jsonw_string(&w, ac_search_target_id(f->m, f->plan[k].target));
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
    if (f->has_confirm)
        print_confirm_json(&w, f);
    ac_jsonw_object_end(&w);
    if (f->study != NULL)
        print_study_json(&w, f);
    if (f->has_boundary && f->study == NULL) {
        ac_jsonw_key(&w, "resilience");
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "tau");
        ac_jsonw_double(&w, f->m->faults.tau);
        ac_jsonw_key(&w, "boundary");
        ac_jsonw_double(&w, f->b.rate);
        json_no_error(&w, "boundary");
        json_num_or_null(&w, "simulated_upper_bound", simulated_bound(f, &f->b));
        ac_jsonw_key(&w, "approximation");
        ac_jsonw_string(&w, "fluid");
        ac_jsonw_key(&w, "boundary_status");
        ac_jsonw_string(&w, boundary_status(f->b.status));
        ac_jsonw_key(&w, "workload_factor");
        ac_jsonw_double(&w, f->b.scale);
        ac_jsonw_key(&w, "probes");
        ac_jsonw_uint(&w, f->b.probes);
        ac_jsonw_key(&w, "evaluations");
        ac_jsonw_uint(&w, f->b.evaluations);
        json_failures(&w, &f->b);
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
    size_t confirm;                    /* replications; 0: no confirmation */
    unsigned long long confirm_events; /* 0: the default */
    const char *mitigation;            /* NULL, "all" or an id */
    size_t study_budget;
    const char *export_fis, *export_ctk;
    const char *report;  /* --report OUT.pdf, or NULL */
    size_t report_seeds; /* --report-seeds K: 0 or 1, one seed */
} cli_opts;

/* --confirm, --mitigation, --study-budget, --export-*; 1 when c was one of them. */
static int parse_more(int c, cli_opts *o, int *status)
{
    unsigned long v;
    *status = 0;
    switch (c) {
    case 'C':
        if (ac_cli_ulong_parse(optarg, 1000, &v) != 0 || v == 1)
            *status =
                ac_cli_fail("--confirm takes 0 or a whole number from 2 to 1000: got '%s'", optarg);
        o->confirm = (size_t)v;
        return 1;
    case 'm': o->mitigation = optarg; return 1;
    case 'E':
        if (ac_cli_ulong_parse(optarg, 1000000000000ul, &v) != 0 || v == 0)
            *status = ac_cli_fail("--confirm-events takes a whole number from 1 to 10^12: got "
                                  "'%s'",
                                  optarg);
        o->confirm_events = v;
        return 1;
    case 'S':
        if (ac_cli_ulong_parse(optarg, 1000000000ul, &v) != 0 || v == 0)
            *status = ac_cli_fail("--study-budget takes a whole number from 1 to 1000000000: "
                                  "got '%s'",
                                  optarg);
        o->study_budget = (size_t)v;
        return 1;
    case 'F': o->export_fis = optarg; return 1;
    case 'T': o->export_ctk = optarg; return 1;
    case 'R': o->report = optarg; return 1;
    case 'K':
        if (ac_cli_ulong_parse(optarg, AC_SEARCH_CONVERGENCE_SEEDS_MAX, &v) != 0 || v == 0)
            *status = ac_cli_fail("--report-seeds takes a whole number from 1 to %d: got '%s'",
                                  AC_SEARCH_CONVERGENCE_SEEDS_MAX, optarg);
        o->report_seeds = (size_t)v;
        return 1;
    default: return 0;
    }
}

static int parse_opts(int argc, char **argv, cli_opts *o)
{
    static const struct option opts[] = {{"budget", required_argument, NULL, 'b'},
                                         {"method", required_argument, NULL, 'M'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"horizon", required_argument, NULL, 'H'},
                                         {"boundary", no_argument, NULL, 'B'},
                                         {"confirm", required_argument, NULL, 'C'},
                                         {"confirm-events", required_argument, NULL, 'E'},
                                         {"mitigation", required_argument, NULL, 'm'},
                                         {"study-budget", required_argument, NULL, 'S'},
                                         {"export-fis", required_argument, NULL, 'F'},
                                         {"export-chaostoolkit", required_argument, NULL, 'T'},
                                         {"report", required_argument, NULL, 'R'},
                                         {"report-seeds", required_argument, NULL, 'K'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    unsigned long v;
    char msg[256];
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
        int status;
        if (parse_more(c, o, &status)) {
            if (status != 0)
                return status;
            continue;
        }
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

/* Write one export atomically (common/atomic.c); 0 or AC_EXIT_USAGE after saying why. */
static int export_one(const char *path, const found *f, double horizon, int fis)
{
    ac_atomic_file af;
    ac_error err = {0};
    int rc = ac_atomic_open(&af, path, &err);
    if (rc == 0) {
        rc = fis ? ac_search_export_fis(af.fp, f->m, f->plan, f->nfaults, horizon, f->score, &err)
                 : ac_search_export_chaostoolkit(af.fp, f->m, f->plan, f->nfaults, f->terms,
                                                 f->nterms, horizon, f->score, &err);
        if (rc == 0)
            rc = ac_atomic_commit(&af, &err);
        else
            ac_atomic_abort(&af);
    }
    if (rc != 0) {
        fprintf(stderr, "archcheck: %s\n", err.message);
        return AC_EXIT_USAGE;
    }
    return 0;
}

/* The best score after each step of a search: evals[k], best[k] for k < *n (cap entries at
 * least budget / population + 1); `ga` is the search to step (run to its budget). */
static int trace_run(ac_search_ga *ga, double *evals, double *best, size_t cap, size_t *n,
                     ac_error *err)
{
    int rc = 0;
    *n = 0;
    for (int done = 0; rc == 0 && !done;) {
        rc = ac_search_ga_step(ga, &done, err);
        if (rc == 0 && *n < cap) {
            evals[*n] = (double)ac_search_ga_evaluations(ga);
            best[*n] = ac_search_ga_best(ga, NULL);
            (*n)++;
        }
    }
    return rc;
}

/* The convergence of the other method (random against the GA, or the GA against random), the
 * same budget and seed, on the objective's problem. */
static int trace_other(ac_search_objective *obj, const cli_opts *o, double *evals, double *best,
                       size_t cap, size_t *n, ac_error *err)
{
    ac_search_problem pr = ac_search_objective_problem(obj);
    ac_search_options so = o->so;
    ac_search_ga *ga = NULL;
    int rc;
    so.method = so.method == AC_SEARCH_GA ? AC_SEARCH_RANDOM : AC_SEARCH_GA;
    rc = ac_search_ga_new(&pr, &so, &ga, err);
    if (rc == 0)
        rc = trace_run(ga, evals, best, cap, n, err);
    ac_search_ga_free(ga);
    return rc;
}

/* --report: the search's pages. 0 or AC_EXIT_USAGE after saying why. */
static int write_report(const cli_opts *o, const found *f, double horizon, ac_search_objective *obj,
                        const double *trace, size_t ntrace, size_t cap)
{
    ac_report_search rs;
    ac_report_pdf_options po;
    ac_error err = {0};
    ac_search_convergence *conv = o->report_seeds > 1 ? calloc(1, sizeof *conv) : NULL;
    double *other = calloc(2 * cap + 2, sizeof *other);
    size_t nother = 0;
    int rc = other == NULL || (o->report_seeds > 1 && conv == NULL)
                 ? ac_error_set(&err, AC_ENOMEM, "out of memory")
                 : 0;
    if (rc == 0 && conv != NULL) {
        /* several seeds: the GA and random sampling K times each (no one-seed trace) */
        ac_search_problem pr = ac_search_objective_problem(obj);
        rc = ac_search_convergence_run(&pr, &o->so, o->report_seeds, conv, &err);
    } else if (rc == 0) {
        rc = trace_other(obj, o, other, other + cap + 1, cap, &nother, &err);
    }
    memset(&rs, 0, sizeof rs);
    rs.convergence = conv;
    rs.file = f->file;
    rs.model = f->m;
    rs.method = f->method;
    rs.horizon = horizon;
    rs.score = f->score;
    rs.tau = f->m->faults.tau;
    rs.evaluations = f->evals;
    rs.failures = f->failures;
    rs.plan = f->plan;
    rs.nfaults = f->nfaults;
    rs.terms = f->terms;
    rs.nterms = f->nterms;
    rs.has_confirm = f->has_confirm && f->conf.computed;
    rs.sim_score = f->conf.score;
    rs.sim_ci95 = f->conf.ci95;
    rs.sim_level = f->conf.level;
    {
        int ga = o->so.method == AC_SEARCH_GA;
        const double *mine_e = trace, *mine_b = trace + cap + 1;
        const double *oth_e = other, *oth_b = other != NULL ? other + cap + 1 : NULL;
        rs.ga_evals = ga ? mine_e : oth_e;
        rs.ga_best = ga ? mine_b : oth_b;
        rs.ga_n = ga ? ntrace : nother;
        rs.random_evals = ga ? oth_e : mine_e;
        rs.random_best = ga ? oth_b : mine_b;
        rs.random_n = ga ? nother : ntrace;
    }
    ac_report_pdf_options_init(&po);
    if (rc == 0)
        rc = ac_report_search_pdf(o->report, &rs, &po, &err);
    free(other);
    free(conv);
    if (rc != 0) {
        fprintf(stderr, "archcheck: %s\n", err.message);
        return AC_EXIT_USAGE;
    }
    return 0;
}

/* The study of --mitigation; 0 or a status (err set). */
static int run_study(const ac_model *m, const cli_opts *o, const ac_transient_options *to,
                     ac_search_study **out, ac_error *err)
{
    ac_search_study_options st;
    ac_search_study_options_init(&st);
    st.search = o->so;
    st.transient = *to;
    st.transient.scale = 1.0;
    if (o->study_budget > 0)
        st.max_evaluations = o->study_budget;
    if (strcmp(o->mitigation, "all") != 0) {
        size_t k;
        for (k = 0; k < m->nmitigations; k++)
            if (strcmp(m->mitigations[k].id, o->mitigation) == 0)
                break;
        if (k == m->nmitigations)
            return ac_error_set(err, AC_EINVAL, "no mitigation '%s' in the file", o->mitigation);
        st.mitigation = k;
    }
    return ac_search_study_run(m, &st, out, err);
}

/* The worst case of the search: its plan, terms and fluid score; confirmed when asked. */
static int worst_case(const ac_model *m, const cli_opts *o, ac_search_space *sp,
                      ac_search_objective *obj, ac_search_ga *ga, double horizon, found *f,
                      ac_error *err)
{
    const double *genes = NULL;
    int rc = 0;
    f->nfaults = ac_search_space_nfaults(sp);
    f->nterms = ac_search_objective_nterms(obj);
    f->plan = calloc(f->nfaults + 1, sizeof *f->plan);
    f->terms = calloc(f->nterms, sizeof *f->terms);
    if (f->plan == NULL || f->terms == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    {
        /* the peak near the GA's best: a tenth of the budget more (search.h) */
        ac_search_problem pr = ac_search_objective_problem(obj);
        double best = ac_search_ga_best(ga, &genes);
        size_t n = ac_search_space_ngenes(sp);
        double *g = calloc(n + 1, sizeof *g);
        if (g == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory");
        memcpy(g, genes, n * sizeof *g);
        rc = ac_search_polish(&pr, g, &best, o->so.budget / 10 + 2 * n, &f->polish_evals, err);
        ac_search_space_decode(sp, g, f->plan);
        free(g);
        if (rc != 0)
            return rc;
    }
    /* the terms of the best plan, re-evaluated (the same numbers: deterministic) */
    rc = ac_search_objective_eval_plan(obj, 0, f->plan, &f->score, f->terms, err);
    if (rc == 0 && o->confirm > 0) {
        ac_analysis_confirm_options co;
        ac_analysis_confirm_options_init(&co);
        /* the same sequential test against tau as check's (req_resilience.c): at most
           --confirm replications, the first look's 3 sharing the event budget, so a worst
           case whose check confirms at the same budget is confirmed here too */
        co.replications = o->confirm;
        co.sequential = 1;
        co.tau = m->faults.tau;
        co.seed = o->so.seed;
        co.jobs = o->so.jobs;
        if (o->confirm_events > 0)
            co.max_events = o->confirm_events;
        f->has_confirm = 1;
        rc = ac_analysis_confirm(m, f->plan, f->nfaults, 1.0, horizon, f->terms, f->nterms,
                                 f->score, &co, &f->conf, err);
    }
    return rc;
}

/* Run the search on a valid model; 0, or AC_EXIT_INCONCLUSIVE / AC_EXIT_USAGE after
 * saying why. */
static int run(const ac_model *m, const char *file, cli_opts *o)
{
    ac_transient_options to;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_study *study = NULL;
    ac_search_problem pr;
    ac_error err = {0};
    double horizon, *trace = NULL;
    size_t failures, cap, ntrace = 0;
    found f;
    int rc, status = AC_EXIT_PASS;
    memset(&f, 0, sizeof f);
    ac_transient_options_init(&to);
    to.horizon = o->horizon;
    if (!o->has_budget && m->faults.has_budget)
        o->so.budget = m->faults.budget;
    if (!o->has_seed && m->faults.has_seed)
        o->so.seed = m->faults.seed;
    horizon = ac_transient_horizon(m, &to);
    /* the workspace is sized for the largest probe of --boundary */
    to.scale = o->boundary ? 16.0 : 1.0;
    rc = ac_search_space_new(m, horizon, &sp, &err);
    if (rc == 0)
        rc = ac_search_objective_new(m, sp, &to, 1.0, o->so.jobs, &obj, &err);
    if (rc == 0) {
        pr = ac_search_objective_problem(obj);
        rc = ac_search_ga_new(&pr, &o->so, &ga, &err);
    }
    cap = o->so.budget / (o->so.population > 0 ? o->so.population : 1) + 2;
    trace = o->report != NULL ? calloc(2 * cap + 2, sizeof *trace) : NULL;
    if (rc == 0 && o->report != NULL && trace == NULL)
        rc = ac_error_set(&err, AC_ENOMEM, "out of memory");
    if (rc == 0)
        rc = trace != NULL ? trace_run(ga, trace, trace + cap + 1, cap, &ntrace, &err)
                           : ac_search_ga_run(ga, &err);
    if (rc == 0)
        rc = worst_case(m, o, sp, obj, ga, horizon, &f, &err);
    failures = obj != NULL ? ac_search_objective_failures(obj) : 0; /* before the boundary's */
    if (rc == 0 && o->boundary && o->mitigation == NULL) {
        f.has_boundary = 1;
        rc = ac_search_boundary_find(m, obj, &o->so, m->faults.tau, 1.0 / 16.0, 16.0, 1e-3, &f.b,
                                     &err);
    }
    if (rc == 0 && o->mitigation != NULL)
        rc = run_study(m, o, &to, &study, &err);
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
    f.failures = failures;
    f.study = study;
    if (o->json)
        print_json(stdout, &f);
    else
        print_text(stdout, &f);
    if (failures > 0)
        fprintf(stderr,
                "archcheck: %s: note: %zu evaluations failed to integrate and have no score "
                "(a worst case may lie among them)\n",
                file, failures);

    if (o->export_fis != NULL)
        status = export_one(o->export_fis, &f, horizon, 1);
    if (status == 0 && o->export_ctk != NULL)
        status = export_one(o->export_ctk, &f, horizon, 0);
    if (status == 0 && o->report != NULL) {
        if (ac_search_objective_set_scale(obj, 1.0, &err) != 0) /* after --boundary's probes */
            status = AC_EXIT_USAGE;
        else
            status = write_report(o, &f, horizon, obj, trace, ntrace, cap);
    }
    if (status == 0 && study != NULL && !study->variants[0].computed) {
        /* the study's budget binds the baseline too: no boundary, nothing to compare */
        fprintf(stderr, "archcheck: %s: the resilience study is inconclusive: %s\n", file,
                study->variants[0].why);
        status = AC_EXIT_INCONCLUSIVE;
    }
cleanup:
    free(trace);
    free(f.plan);
    free(f.terms);
    ac_search_study_free(study);
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
    o.confirm = 10;
    status = parse_opts(argc, argv, &o);
    if (status != 0)
        return status < 0 ? AC_EXIT_PASS : status;
    if (optind + 1 != argc) {
        fputs(search_usage, stderr);
        return ac_cli_fail("search: exactly one input file is needed");
    }
    if (ac_cli_input_load_one(&in, argv[optind], 0) != 0)
        return AC_EXIT_USAGE;
    if (!in.models[0]->faults.present) {
        fprintf(stderr, "archcheck: %s: no <faults> space to search\n", in.files[0].file);
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    status = run(in.models[0], in.files[0].file, &o);
    ac_cli_input_free(&in);
    return status;
}
