/*
 * bench_search: the GA against uniform random search on samples/faas-cascade.xml, ten seeds
 * (1..10, every one reported, none picked), the same budget per run (default 400 evaluations,
 * argument 2), the search's default options (population 20) without the polish: for each
 * method the median and the quartiles of the best score found, and the terms of each run's
 * best (the objective's five: e2e error rate, fan-out p95, e2e p95, aggregator throttles,
 * queue backlog duration), as the published study reported them (p95, error rate, backlog).
 * Also the evaluations per second of the runs (floor 200 per core, goal 1,000; issue #12).
 *
 *   bench_search SOURCE_DIR [BUDGET]
 *
 * Exit 0 unless a search fails; the comparison is reported, not asserted (a bench).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "archcheck/parser.h"
#include "archcheck/search.h"

#define SEEDS 10
#define TERMS 8
#define STEPS 1024 /* generations recorded per run */

typedef struct run {
    double best;
    ac_search_term_value tv[TERMS];
    size_t failures;
    size_t best_at;      /* the evaluation that found its best */
    size_t nsteps;       /* generations recorded */
    size_t evals[STEPS]; /* evaluations after each generation */
    double trace[STEPS]; /* the best score after each generation */
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int one(const ac_model *m, ac_search_method method, unsigned long seed, size_t budget,
               run *out, size_t *nterms)
{
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_problem pr;
    ac_search_options o;
    ac_error err;
    const double *genes;
    double again;
    int rc;
    memset(&err, 0, sizeof err);
    rc = ac_search_space_new(m, ac_transient_horizon(m, NULL), &sp, &err);
    if (rc == 0)
        rc = ac_search_objective_new(m, sp, NULL, 1.0, 1, &obj, &err);
    if (rc == 0 && ac_search_objective_nterms(obj) > TERMS)
        rc = ac_error_set(&err, AC_ELIMIT, "more than %d terms", TERMS);
    if (rc == 0) {
        *nterms = ac_search_objective_nterms(obj);
        pr = ac_search_objective_problem(obj);
        ac_search_options_init(&o);
        o.method = method;
        o.budget = budget;
        o.seed = seed;
        rc = ac_search_ga_new(&pr, &o, &ga, &err);
    }
    out->nsteps = 0;
    for (int done = 0; rc == 0 && !done;) {
        rc = ac_search_ga_step(ga, &done, &err);
        if (rc == 0 && out->nsteps < STEPS) {
            out->evals[out->nsteps] = ac_search_ga_evaluations(ga);
            out->trace[out->nsteps++] = ac_search_ga_best(ga, NULL);
        }
    }
    if (rc == 0) {
        out->best = ac_search_ga_best(ga, &genes);
        out->best_at = ac_search_ga_best_at(ga);
        out->failures = ac_search_objective_failures(obj);
        rc = ac_search_objective_eval(obj, 0, genes, &again, out->tv, &err);
    }
    if (rc != 0)
        fprintf(stderr, "bench_search: seed %lu: %s\n", seed, err.message);
    ac_search_ga_free(ga);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    return rc;
}

/* The evaluations run r needed to reach `level` (after the generation that did), or 0 when it
 * never did. */
static size_t reach(const run *r, double level)
{
    for (size_t i = 0; i < r->nsteps; i++)
        if (r->trace[i] >= level)
            return r->evals[i];
    return 0;
}

/* Median and quartiles of x[0..n) (sorted in place). */
static void quartiles(double *x, size_t n, double *q1, double *med, double *q3)
{
    gsl_sort(x, 1, n);
    *q1 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
    *med = gsl_stats_median_from_sorted_data(x, 1, n);
    *q3 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
}

int main(int argc, char **argv)
{
    static const char *const names[2] = {"ga", "random"};
    char path[4096];
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err;
    run runs[2][SEEDS];
    size_t budget = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 400, nterms = 0, wins = 0;
    double t0, secs;
    if (argc < 2 || budget == 0) {
        fprintf(stderr, "usage: bench_search SOURCE_DIR [BUDGET]\n");
        return 2;
    }
    memset(&err, 0, sizeof err);
    ac_diag_list_init(&d);
    snprintf(path, sizeof path, "%s/samples/faas-cascade.xml", argv[1]);
    if (ac_parser_parse_file(path, &m, &d, &err) != 0) {
        fprintf(stderr, "bench_search: %s: %s\n", path, err.message);
        return 2;
    }
    printf("GA vs random on %s: %d seeds (1..%d, all reported), %zu evaluations each, "
           "population 20, no polish\n",
           path, SEEDS, SEEDS, budget);
    t0 = now();
    for (int k = 0; k < 2; k++)
        for (unsigned long s = 1; s <= SEEDS; s++)
            if (one(m, k == 0 ? AC_SEARCH_GA : AC_SEARCH_RANDOM, s, budget, &runs[k][s - 1],
                    &nterms) != 0)
                return 1;
    secs = now() - t0;
    printf("seed   ga best  random best");
    for (size_t i = 0; i < nterms; i++)
        printf("   term%zu ga/random", i + 1);
    printf("\n");
    for (size_t s = 0; s < SEEDS; s++) {
        printf("%4zu  %8.4f  %11.4f", s + 1, runs[0][s].best, runs[1][s].best);
        for (size_t i = 0; i < nterms; i++)
            printf("  %8.4g/%-8.4g", runs[0][s].tv[i].metric, runs[1][s].tv[i].metric);
        printf("\n");
        wins += runs[0][s].best > runs[1][s].best;
    }
    for (int k = 0; k < 2; k++) {
        double x[SEEDS], q1, med, q3;
        size_t fails = 0;
        for (size_t s = 0; s < SEEDS; s++) {
            x[s] = runs[k][s].best;
            fails += runs[k][s].failures;
        }
        quartiles(x, SEEDS, &q1, &med, &q3);
        printf("%-6s best score: median %.4f, quartiles %.4f .. %.4f (%zu failed integrations)\n",
               names[k], med, q1, q3, fails);
        for (size_t i = 0; i < nterms; i++) {
            for (size_t s = 0; s < SEEDS; s++)
                x[s] = runs[k][s].tv[i].metric;
            quartiles(x, SEEDS, &q1, &med, &q3);
            printf("       term %zu (metric of the best plan): median %.4g, quartiles %.4g .. "
                   "%.4g\n",
                   i + 1, med, q1, q3);
        }
    }
    printf("GA above random on %zu of %d seeds\n", wins, SEEDS);
    {
        /* the worst case: the best score over all 2 x SEEDS runs; evaluations to reach 99% of
         * it (and the worst case itself), per method: median over the seeds that reached it */
        double top = 0.0;
        for (int k = 0; k < 2; k++)
            for (size_t s = 0; s < SEEDS; s++)
                top = fmax(top, runs[k][s].best);
        for (int lv = 0; lv < 2; lv++) {
            double level = lv == 0 ? 0.99 * top : top;
            printf("evaluations to reach %sthe worst case found (%.4f):", lv == 0 ? "99% of " : "",
                   level);
            for (int k = 0; k < 2; k++) {
                double x[SEEDS], q1, med, q3;
                size_t n = 0;
                for (size_t s = 0; s < SEEDS; s++) {
                    size_t e = reach(&runs[k][s], level);
                    if (e > 0)
                        x[n++] = (double)e;
                }
                if (n > 0) {
                    quartiles(x, n, &q1, &med, &q3);
                    printf("  %s %zu/%d seeds, median %.0f (quartiles %.0f .. %.0f)", names[k], n,
                           SEEDS, med, q1, q3);
                } else {
                    printf("  %s 0/%d seeds", names[k], SEEDS);
                }
            }
            printf("\n");
        }
        for (int k = 0; k < 2; k++) {
            double x[SEEDS], q1, med, q3;
            for (size_t s = 0; s < SEEDS; s++)
                x[s] = (double)runs[k][s].best_at;
            quartiles(x, SEEDS, &q1, &med, &q3);
            printf("%-6s evaluation of each run's own best: median %.0f, quartiles %.0f .. %.0f\n",
                   names[k], med, q1, q3);
        }
    }
    printf("%.0f evaluations in %.1f s wall: %.0f evaluations/s (floor 200 per core, goal "
           "1,000)\n",
           (double)(2 * SEEDS) * (double)budget, secs, (double)(2 * SEEDS) * (double)budget / secs);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return 0;
}
