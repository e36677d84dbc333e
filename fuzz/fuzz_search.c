/*
 * libFuzzer target for the worst-case fault search and capacity sizing: any byte string the
 * parser accepts is sized (ac_size_run) and, when it declares <faults>, searched (a GA and
 * the random baseline over its fault space, the polish, the resilience study over its
 * mitigations, the worst case exported to AWS FIS and Chaos Toolkit). Inputs the parser
 * refuses stop there (fuzz_parser covers them).
 *
 * Every budget is set small (counted work, never the wall clock): a few dozen evaluations
 * per search, a study of at most FUZZ_STUDY_EVALS evaluations, a transient of few samples
 * and a short pool truncation, a sizing of few probes without simulation. What still takes
 * long is a missing budget, and libFuzzer's -timeout reports it.
 *
 * Invariants (a violation aborts, which libFuzzer reports as a crash): every call returns 0
 * or a negative AC_E* status and an error has a message; a search keeps its evaluation
 * budget; a score lies in [0, 1] (-1: no plan integrated); the decoded plan lies inside the space's
 * ranges; a study keeps its budget; a sizing keeps its probe budget and a settled count is
 * positive.
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
#include "archcheck/search.h"
#include "archcheck/size.h"
#include "archcheck/transient.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_BUDGET     12 /* evaluations of one search */
#define FUZZ_POPULATION 4
/* the study's evaluations: its baseline's boundary needs at most 9 probes x (12 + 1 + 2 genes) */
#define FUZZ_STUDY_EVALS       240
#define FUZZ_TRANSIENT_SAMPLES 11  /* output points of a transient */
#define FUZZ_TRANSIENT_DIM     48  /* a pool's levels in the transient */
#define FUZZ_TRANSIENT_WORK    1e5 /* the transient's steps x states */
#define FUZZ_SIZE_PROBES       4   /* network solves of a sizing */

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_search: invariant violated: %s\n", what);
        abort();
    }
}

static void require_status(int rc, const ac_error *err, const char *what)
{
    require(rc == AC_OK || (rc < 0 && rc >= AC_ELIMIT), what);
    if (rc != AC_OK && rc != AC_EINPUT && err->message[0] == '\0') {
        fprintf(stderr, "fuzz_search: %s: status %d without a message\n", what, rc);
        abort();
    }
}

static void small_transient(ac_transient_options *to)
{
    ac_transient_options_init(to);
    to->samples = FUZZ_TRANSIENT_SAMPLES;
    to->pool_dim_max = FUZZ_TRANSIENT_DIM;
    to->max_work = FUZZ_TRANSIENT_WORK;
}

static void small_search(ac_search_options *so, ac_search_method method)
{
    ac_search_options_init(so);
    so->method = method;
    so->budget = FUZZ_BUDGET;
    so->population = FUZZ_POPULATION;
    so->seed = 7;
}

static void export_plan(const ac_model *m, const ac_transient_fault *plan, size_t n, double horizon,
                        double score)
{
    ac_error err = {0};
    FILE *fp = fopen("/dev/null", "w");
    if (fp == NULL)
        return;
    require_status(ac_search_export_fis(fp, m, plan, n, horizon, score, &err), &err,
                   "ac_search_export_fis");
    memset(&err, 0, sizeof err);
    require_status(ac_search_export_chaostoolkit(fp, m, plan, n, NULL, 0, horizon, score, &err),
                   &err, "ac_search_export_chaostoolkit");
    fclose(fp);
}

/* The plan decoded from genes lies inside the space's ranges. */
static void check_plan(const ac_search_space *sp, const double *genes, double horizon)
{
    size_t n = ac_search_space_nfaults(sp);
    ac_transient_fault *plan = calloc(n + 1, sizeof *plan);
    if (plan == NULL)
        return;
    ac_search_space_decode(sp, genes, plan);
    for (size_t i = 0; i < n; i++) {
        require(isfinite(plan[i].start) && plan[i].start >= 0.0, "a fault starts at t >= 0");
        require(!(plan[i].end < plan[i].start), "a fault window does not end before it starts");
        require(!(plan[i].start > horizon), "a fault starts inside the horizon");
    }
    free(plan);
}

/* One search (GA or random) with its polish; returns the best genes' score or -1. */
static void search_once(const ac_model *m, ac_search_space *sp, ac_search_objective *obj,
                        ac_search_method method, double horizon)
{
    ac_search_options so;
    ac_search_ga *ga = NULL;
    ac_search_problem pr = ac_search_objective_problem(obj);
    ac_error err = {0};
    const double *best = NULL;
    size_t n = ac_search_space_ngenes(sp);
    double score;
    int rc;

    small_search(&so, method);
    rc = ac_search_ga_new(&pr, &so, &ga, &err);
    require_status(rc, &err, "ac_search_ga_new");
    if (rc != 0)
        return;
    rc = ac_search_ga_run(ga, &err);
    require_status(rc, &err, "ac_search_ga_run");
    require(ac_search_ga_evaluations(ga) <= FUZZ_BUDGET, "a search keeps its budget");
    if (rc == 0) {
        double *g = calloc(n + 1, sizeof *g);
        size_t nf = ac_search_space_nfaults(sp);
        ac_transient_fault *plan = calloc(nf + 1, sizeof *plan);
        size_t polish = 0;
        score = ac_search_ga_best(ga, &best);
        /* -1: every plan failed to integrate (search.h: below every plan that integrates) */
        require(score == -1.0 || (score >= 0.0 && score <= 1.0), "a score lies in [0, 1] or is -1");
        if (g != NULL && plan != NULL) {
            memcpy(g, best, n * sizeof *g);
            check_plan(sp, g, horizon);
            rc = ac_search_polish(&pr, g, &score, 2 * n + 2, &polish, &err);
            require_status(rc, &err, "ac_search_polish");
            require(polish <= 2 * n + 2, "the polish keeps its budget");
            ac_search_space_decode(sp, g, plan);
            export_plan(m, plan, nf, horizon, score);
        }
        free(g);
        free(plan);
    }
    ac_search_ga_free(ga);
}

static void study(const ac_model *m)
{
    ac_search_study_options st;
    ac_search_study *s = NULL;
    ac_error err = {0};
    int rc;
    ac_search_study_options_init(&st);
    small_search(&st.search, AC_SEARCH_GA);
    small_transient(&st.transient);
    st.max_evaluations = FUZZ_STUDY_EVALS;
    st.rel_tol = 0.1;
    rc = ac_search_study_run(m, &st, &s, &err);
    require_status(rc, &err, "ac_search_study_run");
    if (s != NULL) {
        /* the budget binds the whole study, the baseline included (search.h); a baseline
         * over it computes nothing, and says why */
        require(s->evaluations <= FUZZ_STUDY_EVALS, "a study keeps its budget");
        require(s->nvariants >= 1, "a study has its baseline");
        require(s->variants[0].computed || (s->evaluations == 0 && s->variants[0].why[0] != '\0'),
                "a baseline over the budget spends nothing and says why");
        for (size_t i = 1; i < s->nvariants; i++)
            require(s->variants[0].computed || !s->variants[i].computed,
                    "no variant without its baseline");
    }
    ac_search_study_free(s);
}

static void search(const ac_model *m)
{
    ac_transient_options to;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_error err = {0};
    double horizon;
    int rc;
    if (!m->faults.present)
        return;
    small_transient(&to);
    horizon = ac_transient_horizon(m, &to);
    if (!(horizon > 0.0) || !isfinite(horizon))
        return;
    rc = ac_search_space_new(m, horizon, &sp, &err);
    require_status(rc, &err, "ac_search_space_new");
    if (rc == 0) {
        rc = ac_search_objective_new(m, sp, &to, 1.0, 1, &obj, &err);
        require_status(rc, &err, "ac_search_objective_new");
    }
    if (rc == 0) {
        search_once(m, sp, obj, AC_SEARCH_GA, horizon);
        search_once(m, sp, obj, AC_SEARCH_RANDOM, horizon);
    }
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    if (rc == 0)
        study(m);
}

static void size(const ac_model *m)
{
    ac_size_options so;
    ac_sizing *s = NULL;
    ac_error err = {0};
    int rc;
    ac_size_options_init(&so);
    so.max_probes = FUZZ_SIZE_PROBES;
    so.max_simulations = 0;
    so.max_count = 4096;
    so.analysis.headroom = 0;
    so.analysis.solver.burst_search = 0;
    so.analysis.search = 0;
    so.analysis.validate = AC_VALIDATE_NEVER;
    so.analysis.sim.max_events = 20000; /* bounds a simulated pool's headline too */
    so.analysis.transient_opt.samples = FUZZ_TRANSIENT_SAMPLES;
    so.analysis.transient_opt.pool_dim_max = FUZZ_TRANSIENT_DIM;
    so.analysis.transient_opt.max_work = FUZZ_TRANSIENT_WORK;
    rc = ac_size_run(m, &so, &s, &err);
    require_status(rc, &err, "ac_size_run");
    require((rc == AC_OK) == (s != NULL), "ac_size_run: a result exactly on success");
    if (s != NULL) {
        require(s->probes <= FUZZ_SIZE_PROBES, "a sizing keeps its probe budget");
        for (size_t i = 0; i < s->nnodes; i++)
            if (s->nodes[i].at_load.status == AC_SIZE_OK)
                require(s->nodes[i].at_load.needed >= 1, "a settled count is positive");
    }
    ac_sizing_free(s);
}

/* As the command line does (cli/main.c): GSL's errors come back as status codes. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size_)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_diag_list_init(&d);
    if (ac_parser_parse_memory((const char *)data, size_, "fuzz.xml", &m, &d, &err) == AC_OK &&
        m != NULL) {
        size(m);
        search(m);
    }
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return 0;
}
