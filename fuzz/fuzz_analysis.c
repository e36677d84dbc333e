/*
 * libFuzzer target for the analysis: any byte string that the parser accepts is analysed
 * (the traffic and steady-state solve, the requirements, the headroom, the transient when
 * a requirement reads it, a validating simulation), then its transient is integrated when
 * it has a profile and it is simulated briefly, and the reports are written. Inputs the
 * parser refuses stop there (fuzz_parser covers them).
 *
 * Every budget the library offers is set small (counted work, never the wall clock), so
 * that an input takes well under a second: what still takes long is a missing budget, and
 * libFuzzer's -timeout reports it; -rss_limit_mb the same for memory. The two searches that
 * repeat the whole solve are off: the headroom bisection (which re-solves every node and the
 * end-to-end lattice per probe) and the smallest tipping burst of a bistable pool (ODE
 * integrations per probe); with them a sample takes 2-10 s under the sanitizers, which
 * leaves the fuzzer a few executions a minute. A violated invariant
 * of the results (below) aborts, which libFuzzer reports as a crash.
 *
 * Invariants: every call returns 0 or a negative AC_E* status, an error has a message, and
 * a check that passes was judged on a computed value on the right side of its limit (a PASS
 * without numbers to support it is the project's worst bug).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "archcheck/sim.h"
#include "archcheck/transient.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The small budgets (counted work). */
#define FUZZ_SIM_EVENTS        20000ull /* events per simulation, over all replications */
#define FUZZ_SIM_JOBS          10000    /* jobs alive at once */
#define FUZZ_TRANSIENT_SAMPLES 21       /* output points of a transient */
#define FUZZ_TRANSIENT_DIM     128      /* a pool's levels in the transient */

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_analysis: invariant violated: %s\n", what);
        abort();
    }
}

static void require_status(int rc, const ac_error *err, const char *what)
{
    require(rc == AC_OK || (rc < 0 && rc >= AC_ELIMIT), what);
    if (rc != AC_OK && rc != AC_EINPUT && err->message[0] == '\0') {
        fprintf(stderr, "fuzz_analysis: %s: status %d without a message\n", what, rc);
        abort();
    }
}

static void small_sim_options(ac_sim_options *so)
{
    so->rel_precision = 0.05;
    so->min_replications = 2;
    so->max_replications = 4;
    so->max_events = FUZZ_SIM_EVENTS;
    so->max_jobs = FUZZ_SIM_JOBS;
}

/* A check that passes was judged on numbers: by the simulation's interval inside the limit,
 * or on a computed value on the right side of it. */
static void check_passes(const ac_analysis *a)
{
    for (size_t k = 0; k < a->nchecks; k++) {
        const ac_check *ck = &a->checks[k];
        if (ck->status != AC_CHECK_PASS)
            continue;
        if (ck->settled_by_simulation) {
            require(ck->has_sim && isfinite(ck->sim_value) && isfinite(ck->sim_ci95),
                    "a check settled by simulation has a simulated value");
            require(ck->upper ? ck->sim_value + ck->sim_ci95 <= ck->limit
                              : ck->sim_value - ck->sim_ci95 >= ck->limit,
                    "a check settled by simulation passes inside its limit");
            continue;
        }
        if (!ck->has_value)
            continue; /* stability of a kind without a utilisation (gateways, queues) */
        if (isnan(ck->value) || isnan(ck->rel_error) || isnan(ck->limit)) {
            fprintf(stderr, "fuzz_analysis: check '%s' passes on NaN\n", ck->name);
            abort();
        }
        if (ck->upper ? !(ck->value <= ck->limit) : !(ck->value >= ck->limit)) {
            fprintf(stderr, "fuzz_analysis: check '%s' passes with %.17g %s %.17g\n", ck->name,
                    ck->value, ck->upper ? ">" : "<", ck->limit);
            abort();
        }
    }
}

static void write_reports(const ac_model *m, const ac_diag_list *d, const ac_analysis *a)
{
    ac_report_file file;
    ac_report_run run;
    FILE *fp = fopen("/dev/null", "w");
    if (fp == NULL)
        return;
    memset(&file, 0, sizeof file);
    file.file = "fuzz.xml";
    file.verdict = ac_report_verdict(d, AC_SEV_ERROR);
    file.diags = d;
    file.model = m;
    file.analysis = a;
    memset(&run, 0, sizeof run);
    run.command = "check";
    run.files = &file;
    run.nfiles = 1;
    run.seed = 1;
    run.fail_on = AC_SEV_ERROR;
    (void)ac_report_text(fp, &run);
    (void)ac_report_json(fp, &run);
    (void)ac_report_sarif(fp, &run);
    (void)ac_report_junit(fp, &run);
    (void)ac_report_csv(fp, &file);
    (void)ac_report_solution_text(fp, &file);
    fclose(fp);
}

static void analyse(const ac_model *m, ac_diag_list *d)
{
    ac_analysis_options opt;
    ac_analysis *a = NULL;
    ac_error err = {0};
    int rc;

    ac_analysis_options_init(&opt);
    opt.headroom = 0;
    opt.solver.burst_search = 0;
    opt.search_confirm_events = 1000; /* <resilience>: stops at the confirmation's pre-check
                                         on any real workload (the search is fuzz_search's) */
    small_sim_options(&opt.sim);
    opt.transient_opt.samples = FUZZ_TRANSIENT_SAMPLES;
    opt.transient_opt.pool_dim_max = FUZZ_TRANSIENT_DIM;
    rc = ac_analysis_run(m, &opt, &a, d, &err);
    require_status(rc, &err, "ac_analysis_run");
    require((rc == AC_OK) == (a != NULL), "ac_analysis_run: a result exactly on success");
    if (a != NULL) {
        require(a->nnodes == m->nnodes, "one node analysis per node");
        check_passes(a);
    }
    write_reports(m, d, a);
    ac_analysis_free(a);
}

static void transient(const ac_model *m)
{
    ac_transient_options opt;
    ac_transient *tr = NULL;
    ac_error err = {0};
    int rc;
    if (m->nprofiles == 0)
        return;
    ac_transient_options_init(&opt);
    opt.samples = FUZZ_TRANSIENT_SAMPLES;
    opt.pool_dim_max = FUZZ_TRANSIENT_DIM;
    rc = ac_transient_run(m, &opt, &tr, &err);
    require_status(rc, &err, "ac_transient_run");
    require((rc == AC_OK) == (tr != NULL), "ac_transient_run: a result exactly on success");
    if (tr != NULL)
        require(tr->nsamples == FUZZ_TRANSIENT_SAMPLES && tr->nnodes == m->nnodes,
                "the transient has the samples asked for, one entry per node");
    ac_transient_free(tr);
}

static void simulate(const ac_model *m)
{
    ac_sim_options so;
    ac_sim_result *res = NULL;
    ac_error err = {0};
    char *text = NULL;
    int rc;
    ac_sim_options_init(&so);
    small_sim_options(&so);
    so.replications = 2;
    so.use_profiles = m->nprofiles > 0;
    rc = ac_sim_run(m, &so, &res, &err);
    require_status(rc, &err, "ac_sim_run");
    require((rc == AC_OK) == (res != NULL), "ac_sim_run: a result exactly on success");
    if (res != NULL) {
        require(res->events <= FUZZ_SIM_EVENTS, "the simulation keeps its event budget");
        require(res->nnodes == m->nnodes, "one simulated node per node");
        if (ac_sim_result_format(res, &text, &err) == AC_OK)
            free(text);
    }
    ac_sim_result_free(res);
}

/* As the command line does (cli/main.c): GSL's errors come back as status codes, which the
 * library checks, instead of aborting. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_diag_list_init(&d);
    if (ac_parser_parse_memory((const char *)data, size, "fuzz.xml", &m, &d, &err) == AC_OK &&
        m != NULL) {
        analyse(m, &d);
        transient(m);
        simulate(m);
    }
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return 0;
}
