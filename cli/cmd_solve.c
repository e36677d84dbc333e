/*
 * archcheck solve FILE : the steady state of every node and end to end, or with
 * --transient the fluid transient of the network over the profile's horizon.
 */
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "cli/cli.h"
#include "common/jsonw.h"

static const char solve_usage[] =
    "usage: archcheck solve [OPTIONS] FILE\n"
    "\n"
    "Solve the steady state of the architecture: every node's arrival rate, its\n"
    "equilibria (stability, eigenvalues, Lyapunov evidence), utilisation, loss, mean\n"
    "jobs and response-time percentiles, the end-to-end response time and the headroom.\n"
    "It runs no worst-case search: its JSON's <resilience> checks are INCONCLUSIVE\n"
    "(not computed; `check` runs the search).\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     text (default), json or csv (the response-time distributions:\n"
    "                       P(T > t) per node and end to end)\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "      --refine WHEN    auto (default: the refined mean field wherever it is computed),\n"
    "                       always (the same), never\n"
    "      --transient      the fluid transient instead: per node over time, the offered rate,\n"
    "                       throughput, mean jobs per server, utilisation, loss rate and mean\n"
    "                       response time (Little); functions also instances, cold starts,\n"
    "                       executions, throttling, failures; queues their backlog and dead\n"
    "                       letters; gateways their tokens; csv: t_s then one column per\n"
    "                       node and quantity; json: arrays; text: a summary and a table\n"
    "      --horizon DUR    the transient's horizon (default: the last profile point; needed\n"
    "                       when the model has no <profile>)\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 solved, 2 invalid input or command line, 3 a node could not be solved\n";

/* One CSV column: a node's quantity. */
static void csv_col(FILE *fp, const char *id, const char *what)
{
    fputc(',', fp);
    fputs(id, fp); /* ids are NCNames: no comma, no quote */
    fputc('.', fp);
    fputs(what, fp);
}

static void csv_val(FILE *fp, const double *v, size_t s)
{
    if (v != NULL && isfinite(v[s]))
        fprintf(fp, ",%.10g", v[s]);
    else
        fputc(',', fp);
}

/* The serverless stages' own series (NULL where they do not apply): functions' instances,
 * cold starts, throttling; queues' backlog and dead letters; gateways' tokens. */
static const struct {
    const char *key;
    size_t offset;
} extra_series[] = {
    {"instances", offsetof(ac_transient_node, instances)},
    {"busy", offsetof(ac_transient_node, busy)},
    {"initialising", offsetof(ac_transient_node, initialising)},
    {"idle", offsetof(ac_transient_node, idle)},
    {"cold_start_rate", offsetof(ac_transient_node, cold_start_rate)},
    {"execution_rate", offsetof(ac_transient_node, execution_rate)},
    {"throttle_rate", offsetof(ac_transient_node, throttle_rate)},
    {"failure_rate", offsetof(ac_transient_node, failure_rate)},
    {"backlog", offsetof(ac_transient_node, backlog)},
    {"tokens", offsetof(ac_transient_node, tokens)},
    {"dead_letter_rate", offsetof(ac_transient_node, dead_letter_rate)},
};

static const double *extra(const ac_transient_node *n, size_t k)
{
    const double *const *p =
        (const double *const *)(const void *)((const char *)n + extra_series[k].offset);
    return *p;
}

#define NEXTRA (sizeof extra_series / sizeof extra_series[0])

/* CSV: t_s, then per node its arrival rate and throughput, and for modelled nodes mean jobs,
 * utilisation, loss rate and mean response time, then the serverless series. */
static int transient_csv(FILE *fp, const ac_model *m, const ac_transient *tr)
{
    fputs("t_s", fp);
    for (size_t i = 0; i < m->nnodes; i++) {
        csv_col(fp, m->nodes[i].id, "arrival_rate");
        csv_col(fp, m->nodes[i].id, "throughput");
        if (tr->nodes[i].modelled) {
            csv_col(fp, m->nodes[i].id, "mean_jobs");
            csv_col(fp, m->nodes[i].id, "utilization");
            csv_col(fp, m->nodes[i].id, "loss_rate");
            csv_col(fp, m->nodes[i].id, "mean_response_time");
            if (tr->nodes[i].autoscaled)
                csv_col(fp, m->nodes[i].id, "servers");
            for (size_t k = 0; k < NEXTRA; k++)
                if (extra(&tr->nodes[i], k) != NULL)
                    csv_col(fp, m->nodes[i].id, extra_series[k].key);
        }
    }
    fputc('\n', fp);
    for (size_t s = 0; s < tr->nsamples; s++) {
        fprintf(fp, "%.10g", tr->t[s]);
        for (size_t i = 0; i < m->nnodes; i++) {
            const ac_transient_node *n = &tr->nodes[i];
            csv_val(fp, n->arrival_rate, s);
            csv_val(fp, n->throughput, s);
            if (n->modelled) {
                csv_val(fp, n->mean_jobs, s);
                csv_val(fp, n->utilization, s);
                csv_val(fp, n->loss_rate, s);
                csv_val(fp, n->mean_response_time, s);
                if (n->autoscaled)
                    csv_val(fp, n->servers, s);
                for (size_t k = 0; k < NEXTRA; k++)
                    if (extra(n, k) != NULL)
                        csv_val(fp, extra(n, k), s);
            }
        }
        fputc('\n', fp);
    }
    return ferror(fp) ? AC_EIO : AC_OK;
}

static void json_array(ac_jsonw *w, const char *key, const double *v, size_t n)
{
    if (v == NULL)
        return;
    ac_jsonw_key(w, key);
    ac_jsonw_array_begin(w);
    for (size_t s = 0; s < n; s++)
        ac_jsonw_double(w, v[s]);
    ac_jsonw_array_end(w);
}

static int transient_json(FILE *fp, const char *file, const ac_model *m, const ac_transient *tr)
{
    ac_jsonw w;
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_report_json_header(&w, file, NULL, NULL);
    ac_jsonw_key(&w, "transient");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "horizon");
    ac_jsonw_double(&w, tr->horizon);
    ac_jsonw_key(&w, "method");
    ac_jsonw_string(&w, tr->method);
    ac_jsonw_key(&w, "dimension");
    ac_jsonw_uint(&w, tr->dim);
    ac_jsonw_key(&w, "approximation");
    ac_jsonw_string(&w, "fluid");
    if (tr->has_burst) {
        ac_jsonw_key(&w, "burst_end");
        ac_jsonw_double(&w, tr->burst_end);
    }
    if (tr->note[0]) {
        ac_jsonw_key(&w, "note");
        ac_jsonw_string(&w, tr->note);
    }
    json_array(&w, "t", tr->t, tr->nsamples);
    ac_jsonw_key(&w, "nodes");
    ac_jsonw_array_begin(&w);
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_transient_node *n = &tr->nodes[i];
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "id");
        ac_jsonw_string(&w, m->nodes[i].id);
        ac_jsonw_key(&w, "kind");
        ac_jsonw_string(&w, ac_node_kind_name(m->nodes[i].kind));
        ac_jsonw_key(&w, "modelled");
        ac_jsonw_bool(&w, n->modelled);
        if (n->modelled) {
            ac_jsonw_key(&w, "levels");
            ac_jsonw_uint(&w, n->dim);
        }
        json_array(&w, "arrival_rate", n->arrival_rate, tr->nsamples);
        json_array(&w, "throughput", n->throughput, tr->nsamples);
        json_array(&w, "mean_jobs", n->mean_jobs, tr->nsamples);
        json_array(&w, "utilization", n->utilization, tr->nsamples);
        json_array(&w, "loss_rate", n->loss_rate, tr->nsamples);
        json_array(&w, "mean_response_time", n->mean_response_time, tr->nsamples);
        for (size_t k = 0; k < NEXTRA; k++)
            json_array(&w, extra_series[k].key, extra(n, k), tr->nsamples);
        if (n->autoscaled) {
            json_array(&w, "servers", n->servers, tr->nsamples);
            ac_jsonw_key(&w, "scaling_events");
            ac_jsonw_uint(&w, n->scaling_events);
            ac_jsonw_key(&w, "server_hours");
            ac_jsonw_double(&w, n->server_hours);
        }
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return ferror(fp) ? AC_EIO : AC_OK;
}

/* Text: per pool its peak mean jobs (and when), peak utilisation and final state, then the
 * mean jobs per server at (up to) 21 evenly spaced sample times. */
static int transient_text(FILE *fp, const char *file, const ac_model *m, const ac_transient *tr)
{
    size_t step = tr->nsamples > 21 ? (tr->nsamples - 1) / 20 : 1;
    fprintf(fp, "%s: fluid transient over %gs (%s, %zu states)\n", file, tr->horizon, tr->method,
            tr->dim);
    if (tr->has_burst)
        fprintf(fp, "burst back at its base rate at %gs\n", tr->burst_end);
    if (tr->note[0])
        fprintf(fp, "note: %s\n", tr->note);
    fprintf(fp, "\n%-16s %7s %12s %10s %10s %12s %12s\n", "node", "levels", "peak jobs/srv",
            "at (s)", "peak util", "final jobs", "final resp");
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_transient_node *n = &tr->nodes[i];
        size_t ipk = 0;
        double umax = 0.0;
        if (!n->modelled) {
            fprintf(fp, "%-16.16s (not modelled: inflow passed on)\n", m->nodes[i].id);
            continue;
        }
        for (size_t s = 0; s < tr->nsamples; s++) {
            if (n->mean_jobs[s] > n->mean_jobs[ipk])
                ipk = s;
            umax = fmax(umax, n->utilization[s]);
        }
        fprintf(fp, "%-16.16s %7zu %12.5g %10.4g %10.4f %12.5g %11.4gs\n", m->nodes[i].id, n->dim,
                n->mean_jobs[ipk], tr->t[ipk], umax, n->mean_jobs[tr->nsamples - 1],
                n->mean_response_time[tr->nsamples - 1]);
    }
    fprintf(fp, "\nmean jobs per server\n%10s", "t (s)");
    for (size_t i = 0; i < m->nnodes; i++)
        if (tr->nodes[i].modelled)
            fprintf(fp, " %12.12s", m->nodes[i].id);
    fputc('\n', fp);
    for (size_t s = 0; s < tr->nsamples; s += step) {
        fprintf(fp, "%10.4g", tr->t[s]);
        for (size_t i = 0; i < m->nnodes; i++)
            if (tr->nodes[i].modelled)
                fprintf(fp, " %12.5g", tr->nodes[i].mean_jobs[s]);
        fputc('\n', fp);
    }
    return ferror(fp) ? AC_EIO : AC_OK;
}

typedef struct output_ctx {
    const ac_cli_input *in;
    const char *format;
} output_ctx;

static int write_trajectory(FILE *fp, const void *ctx)
{
    const output_ctx *c = ctx;
    const ac_transient *tr = c->in->analyses[0]->transient;
    if (strcmp(c->format, "csv") == 0)
        return transient_csv(fp, c->in->models[0], tr);
    if (strcmp(c->format, "json") == 0)
        return transient_json(fp, c->in->files[0].file, c->in->models[0], tr);
    return transient_text(fp, c->in->files[0].file, c->in->models[0], tr);
}

static int write_solution(FILE *fp, const void *ctx)
{
    const output_ctx *c = ctx;
    return strcmp(c->format, "csv") == 0 ? ac_report_csv(fp, &c->in->files[0])
                                         : ac_report_solution_text(fp, &c->in->files[0]);
}

/* solve --transient: the trajectory in FORMAT to OUT (atomically; "-" or NULL is stdout).
 * Returns the exit status: STATUS, AC_EXIT_INCONCLUSIVE when the transient was not computed
 * (its note on stderr), AC_EXIT_USAGE when the output cannot be written. */
static int write_transient(const ac_cli_input *in, const char *format, const char *out, int status)
{
    const output_ctx c = {in, format};
    if (in->analyses[0]->transient == NULL) {
        fprintf(stderr, "archcheck: %s: %s\n", in->files[0].file, in->analyses[0]->transient_note);
        return AC_EXIT_INCONCLUSIVE;
    }
    return ac_cli_emit(out, stdout, write_trajectory, &c) != 0 ? AC_EXIT_USAGE : status;
}

int ac_cli_solve(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"refine", required_argument, NULL, 'r'},
                                         {"transient", no_argument, NULL, 'T'},
                                         {"horizon", required_argument, NULL, 'H'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *format = "text", *out = NULL;
    ac_analysis_options aopt;
    ac_cli_input in;
    ac_report_run run;
    int c, status = AC_EXIT_PASS, transient = 0;
    double horizon = 0.0;

    ac_analysis_options_init(&aopt);
    aopt.validate = AC_VALIDATE_NEVER;
    aopt.search = 0; /* the steady state: a <resilience> search takes minutes (check runs it) */
    aopt.search_skipped = "not computed: solve does not run the worst-case search (check does)";
    optind = 0;
    opterr = 0; /* ac_cli_bad_option says what is wrong */
    while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0 &&
                strcmp(optarg, "csv") != 0)
                return ac_cli_fail("unknown format '%s' (allowed: text json csv)", optarg);
            format = optarg;
            break;
        case 'o': out = optarg; break;
        case 'r':
            if (strcmp(optarg, "auto") == 0)
                aopt.solver.refine = AC_SOLVER_REFINE_AUTO;
            else if (strcmp(optarg, "always") == 0)
                aopt.solver.refine = AC_SOLVER_REFINE_ALWAYS;
            else if (strcmp(optarg, "never") == 0)
                aopt.solver.refine = AC_SOLVER_REFINE_NEVER;
            else
                return ac_cli_fail("--refine takes auto, always or never: got '%s'", optarg);
            break;
        case 'T': transient = 1; break;
        case 'H': {
            char msg[160];
            if (ac_parser_quantity(optarg, AC_QUANTITY_DURATION, &horizon, msg, sizeof msg) != 0)
                return ac_cli_fail("--horizon: value '%s' %s", optarg, msg);
            if (!(horizon > 0.0))
                return ac_cli_fail("--horizon must be a positive duration: got '%s'", optarg);
            break;
        }
        case 'h': fputs(solve_usage, stdout); return AC_EXIT_PASS;
        default: return ac_cli_bad_option(argv, opts, "f:o:h", solve_usage);
        }
    }
    if (optind + 1 != argc) {
        fputs(solve_usage, stderr);
        return ac_cli_fail("solve: exactly one input file is needed");
    }
    if (horizon > 0.0 && !transient)
        return ac_cli_fail("--horizon applies to --transient");
    if (transient) {
        aopt.transient = AC_TRANSIENT_ALWAYS;
        aopt.transient_opt.horizon = horizon;
        aopt.headroom = 0;
    }
    if (ac_cli_input_load(&in, argv + optind, 1, AC_SEV_ERROR) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    if (transient && in.models[0] != NULL && in.models[0]->nprofiles == 0 && horizon <= 0.0) {
        ac_cli_input_free(&in);
        return ac_cli_fail("solve --transient: the model has no <profile>: give --horizon");
    }
    if (ac_cli_input_analyse(&in, &aopt, AC_SEV_ERROR, 0) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    memset(&run, 0, sizeof run);
    run.command = "solve";
    run.files = in.files;
    run.nfiles = 1;
    run.fail_on = AC_SEV_ERROR;
    if (in.files[0].verdict == AC_VERDICT_INVALID || in.analyses[0] == NULL) {
        ac_report_text(stderr, &run);
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    for (size_t i = 0; i < in.analyses[0]->nnodes; i++)
        if (!in.analyses[0]->nodes[i].analysed)
            status = AC_EXIT_INCONCLUSIVE;
    if (transient) {
        status = write_transient(&in, format, out, status);
        ac_cli_input_free(&in);
        return status;
    }
    if (strcmp(format, "json") == 0) {
        if (ac_cli_write(&run, AC_FORMAT_JSON, out, stdout) != 0)
            status = AC_EXIT_USAGE;
    } else {
        const output_ctx ctx = {&in, format};
        if (ac_cli_emit(out, stdout, write_solution, &ctx) != 0)
            status = AC_EXIT_USAGE;
    }
    ac_cli_input_free(&in);
    return status;
}
