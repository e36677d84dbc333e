/*
 * bench_search: the GA against uniform random search on samples/faas-cascade.xml, ten seeds
 * (1..10, every one reported, none picked), the same budget per run (default 400 evaluations,
 * argument 2), the search's default options (population 20) without the polish: for each
 * method the median and the quartiles of the best score found, and the terms of each run's
 * best (the objective's five: e2e loss (errors and 429s), fan-out p95, e2e p95, aggregator
 * throttles, queue backlog duration), as the published study reported them (p95, error rate,
 * backlog).
 * Also the evaluations per second per core of the runs (processor time of this
 * single-threaded process; floor 200, goal 1,000; issue #12).
 *
 * Rows for the table (bench/rows.h, bench/README.md): the GA's and random search's median
 * best score (quartiles, the study's metrics of the best plans in the detail), the GA's mean
 * best minus random's over the ten seeds (floor > 0: the GA beats random on average, issue
 * #12), the evaluations per second per core. With --check ARCHCHECK, `check` of the sample as
 * it is (it has no <resilience>, so no search runs: INFO) and of the sample with
 * <resilience min-boundary="800/s"/> added (the worst case searched at the design's load with
 * the default budget, confirmed by simulation): wall time (floor 60 s, goal 10 s), the
 * processor time in the detail.
 *
 * With --ablation (`make -C bench search-ablation`), the GA against itself without one of its
 * parts instead, the same seeds and budget: the full GA, no crossover (crossover rate 0: the
 * parents are copied, then mutated), no mutation (a mutation operator that changes nothing;
 * the random immigrants stay, 0.4 of each generation, as in the full GA), and a one-term
 * objective (the search scores plans by term K alone, --term K, default 2: the fan-out's p95;
 * the best plan it finds is then scored by the full objective, as every other row). Each row:
 * the full objective's score of the best plans (median, quartiles), the fan-out p95, the
 * error rate and the backlog duration of those plans (medians), and on how many seeds it is
 * below the full GA.
 *
 *   bench_search SOURCE_DIR [BUDGET] [--ablation [--term K]] [--check ARCHCHECK]
 *
 * Exit 0 when every floor is met, 1 when one is missed, 2 when a search or a check fails.
 */
#define _DEFAULT_SOURCE /* wait4, mkstemps */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "archcheck/parser.h"
#include "archcheck/search.h"
#include "bench/rows.h"
#include "bench/check_proc.h"

#define SEEDS 10
#define TERMS 8
#define STEPS 1024 /* generations recorded per run */

typedef struct run {
    double best;
    ac_search_term_value tv[TERMS];
    size_t failures;
    ac_search_counts n;  /* the transients integrated (screen, full) and the cache's hits */
    size_t evaluations;  /* the run's (no polish) */
    size_t best_at;      /* the evaluation that found its best */
    size_t nsteps;       /* generations recorded */
    size_t evals[STEPS]; /* evaluations after each generation */
    double trace[STEPS]; /* the best score after each generation */
} run;

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* One configuration of the search: the method, the crossover rate, the mutation operator
 * (NULL: the default) and the term the search scores alone (0: every term). */
typedef struct config {
    const char *name;
    ac_search_method method;
    double crossover_rate;
    const ac_search_mutation *mutation;
    size_t one_term;
} config;

static void no_mutate(double *x, size_t n, double rate, double param, gsl_rng *rng)
{
    (void)x, (void)n, (void)rate, (void)param, (void)rng;
}

static const ac_search_mutation no_mutation = {"none", no_mutate};

/* Model m with term k (1-based) alone in its objective, weight 1: the terms of m are swapped
 * in place, so undo with the same call and *saved (the count) restored. */
static void single_term(ac_model *m, size_t k, size_t *saved)
{
    ac_term t = m->faults.terms[0];
    m->faults.terms[0] = m->faults.terms[k - 1];
    m->faults.terms[k - 1] = t;
    if (*saved == 0) {
        *saved = m->faults.nterms;
        m->faults.nterms = 1;
    } else {
        m->faults.nterms = *saved;
        *saved = 0;
    }
}

static int one(ac_model *m, const config *cf, unsigned long seed, size_t budget, run *out,
               size_t *nterms)
{
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL, *search_obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_problem pr;
    ac_search_options o;
    ac_error err;
    const double *genes;
    double again, horizon = ac_transient_horizon(m, NULL);
    size_t saved = 0;
    int rc;
    memset(&err, 0, sizeof err);
    rc = ac_search_space_new(m, horizon, &sp, &err);
    if (rc == 0)
        rc = ac_search_objective_new(m, sp, NULL, 1.0, 1, &obj, &err);
    if (rc == 0 && ac_search_objective_nterms(obj) > TERMS)
        rc = ac_error_set(&err, AC_ELIMIT, "more than %d terms", TERMS);
    if (rc == 0 && cf->one_term > 0) {
        if (cf->one_term > m->faults.nterms)
            rc = ac_error_set(&err, AC_EINVAL, "no term %zu", cf->one_term);
        if (rc == 0) {
            single_term(m, cf->one_term, &saved);
            rc = ac_search_objective_new(m, sp, NULL, 1.0, 1, &search_obj, &err);
            single_term(m, cf->one_term, &saved);
        }
    }
    if (rc == 0) {
        *nterms = ac_search_objective_nterms(obj);
        pr = ac_search_objective_problem(search_obj != NULL ? search_obj : obj);
        ac_search_options_init(&o);
        o.method = cf->method;
        o.crossover_rate = cf->crossover_rate;
        if (cf->mutation != NULL)
            o.mutation = cf->mutation;
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
        out->evaluations = ac_search_ga_evaluations(ga);
        out->failures = ac_search_objective_failures(search_obj != NULL ? search_obj : obj);
        ac_search_objective_counts(search_obj != NULL ? search_obj : obj, &out->n);
        /* the best plan by the full objective (the search's own score when it was that) */
        rc = ac_search_objective_eval(obj, 0, genes, &again, out->tv, &err);
        if (search_obj != NULL)
            out->best = again;
    }
    if (rc != 0)
        fprintf(stderr, "bench_search: %s, seed %lu: %s\n", cf->name, seed, err.message);
    ac_search_ga_free(ga);
    ac_search_objective_free(search_obj);
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

/* GA against random: the wins, the evaluations to reach the worst case found. */
static void duel_summary(run runs[][SEEDS])
{
    static const char *const names[2] = {"ga", "random"};
    size_t wins = 0;
    for (size_t s = 0; s < SEEDS; s++)
        wins += runs[0][s].best > runs[1][s].best;
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
}

/* The first term of m with this metric (a node's when node is 1, end to end when 0, any
 * when -1), or TERMS when none. */
static size_t term_of(const ac_model *m, ac_metric metric, int node)
{
    for (size_t i = 0; i < m->faults.nterms && i < TERMS; i++)
        if (m->faults.terms[i].metric == metric &&
            (node < 0 || (node == 1) == (m->faults.terms[i].target != AC_NONE)))
            return i;
    /* the sample's end-to-end failures may be its loss term (errors and 429s) */
    if (metric == AC_METRIC_ERROR_RATE)
        return term_of(m, AC_METRIC_LOSS, node);
    return TERMS;
}

/* The median of term i's metric over the runs of one configuration (NAN without the term). */
static double term_median(const run *runs, size_t i)
{
    double x[SEEDS], q1, med, q3;
    if (i >= TERMS)
        return NAN;
    for (size_t s = 0; s < SEEDS; s++)
        x[s] = runs[s].tv[i].metric;
    quartiles(x, SEEDS, &q1, &med, &q3);
    return med;
}

/* --ablation: one row per configuration, as the study reported (score, fan-out p95, error
 * rate, backlog duration), against the full GA (configuration 0). */
static void ablation_rows(const ac_model *m, const config *cf, size_t nconf, run runs[][SEEDS])
{
    size_t ip95 = term_of(m, AC_METRIC_P95_LATENCY, 1), ierr = term_of(m, AC_METRIC_ERROR_RATE, 0);
    size_t iback = term_of(m, AC_METRIC_BACKLOG_DURATION, -1);
    printf("ablation (full objective's score of each run's best plan; medians over the seeds):\n");
    printf("%-22s %8s %19s %12s %11s %12s %s\n", "configuration", "score", "quartiles",
           "fan-out p95", "error rate", "backlog", "below full GA");
    for (size_t k = 0; k < nconf; k++) {
        double x[SEEDS], q1, med, q3;
        size_t below = 0;
        for (size_t s = 0; s < SEEDS; s++) {
            x[s] = runs[k][s].best;
            below += runs[k][s].best < runs[0][s].best;
        }
        quartiles(x, SEEDS, &q1, &med, &q3);
        printf("%-22s %8.4f  %8.4f .. %-7.4f %10.4g s %11.4g %10.4g s", cf[k].name, med, q1, q3,
               term_median(runs[k], ip95), term_median(runs[k], ierr), term_median(runs[k], iback));
        if (k > 0)
            printf(" %zu of %d seeds", below, SEEDS);
        printf("\n");
    }
}

/* The table's rows of the GA-vs-random duel (configurations 0 and 1): each method's median
 * best score, the GA's mean best minus random's (floor > 0), the evaluations per second per
 * core (`cpu` s of this single-threaded process for `evals`); 1 when a floor is missed. */
static int duel_rows(const ac_model *m, run runs[][SEEDS], size_t budget, double evals, double cpu,
                     double wall)
{
    static const char *const names[2] = {"GA", "random search"};
    size_t ip95 = term_of(m, AC_METRIC_P95_LATENCY, 1), ierr = term_of(m, AC_METRIC_ERROR_RATE, 0);
    size_t iback = term_of(m, AC_METRIC_BACKLOG_DURATION, -1), wins = 0, failures = 0;
    size_t nscreen = 0, nfull = 0, nhit = 0;
    double mean[2] = {0.0, 0.0}, top = 0.0, diff, rate = cpu > 0.0 ? evals / cpu : 0.0;
    char fig[200];
    int missed = 0;
    for (int k = 0; k < 2; k++)
        for (size_t s = 0; s < SEEDS; s++) {
            mean[k] += runs[k][s].best / SEEDS;
            top = fmax(top, runs[k][s].best);
            failures += runs[k][s].failures;
            nscreen += runs[k][s].n.screened;
            nfull += runs[k][s].n.full;
            nhit += runs[k][s].n.screen_hits + runs[k][s].n.full_hits;
        }
    for (size_t s = 0; s < SEEDS; s++)
        wins += runs[0][s].best > runs[1][s].best;
    for (int k = 0; k < 2; k++) {
        double x[SEEDS], q1, med, q3;
        size_t reached = 0;
        for (size_t s = 0; s < SEEDS; s++) {
            x[s] = runs[k][s].best;
            reached += reach(&runs[k][s], 0.99 * top) > 0;
        }
        quartiles(x, SEEDS, &q1, &med, &q3);
        snprintf(fig, sizeof fig,
                 "search faas-cascade.xml, %s: best score, %d seeds x %zu evaluations", names[k],
                 SEEDS, budget);
        ac_bench_row(fig, med, "score", NULL, NULL, "INFO",
                     "median, quartiles %.4f .. %.4f; best plans' medians: fan-out p95 %.4g s, "
                     "error rate %.4g, backlog %.4g s; %zu of %d seeds reach 99%% of the best "
                     "found (%.4f); mean %.4f",
                     q1, q3, term_median(runs[k], ip95), term_median(runs[k], ierr),
                     term_median(runs[k], iback), reached, SEEDS, top, mean[k]);
    }
    diff = mean[0] - mean[1];
    missed |= !(diff > 0.0);
    snprintf(fig, sizeof fig,
             "search faas-cascade.xml: GA's mean best score minus random's, %d seeds", SEEDS);
    ac_bench_row(fig, diff, "score", "> 0", NULL, diff > 0.0 ? "PASS" : "MISS",
                 "means %.4f vs %.4f; GA above random on %zu of %d seeds; same budget, population "
                 "20, no polish",
                 mean[0], mean[1], wins, SEEDS);
    missed |= !(rate >= 200.0);
    ac_bench_row("search evaluations/s per core, faas-cascade.xml transient", rate, "evaluations/s",
                 "200/s", "1000/s", rate >= 200.0 ? "PASS" : "MISS",
                 "%.0f evaluations in %.1f s of processor time on one thread (%.1f ms each), "
                 "%.1f s wall; %zu failed integrations; transients integrated: %zu by the "
                 "screen (rtol %g), %zu in full; %zu plans from the cache",
                 evals, cpu, cpu > 0.0 ? 1e3 * cpu / evals : 0.0, wall, failures, nscreen,
                 AC_SEARCH_SCREEN_RTOL, nfull, nhit);
    return missed;
}

static double load_average(void)
{
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &l) != 1)
            l = NAN;
        fclose(f);
    }
    return l;
}

/* The sample `src` with `extra` inserted before its </requirements>, in a new temporary file
 * whose name goes to out (size >= 32); 0 or -1. */
static int with_requirement(const char *src, const char *extra, char *out, size_t size)
{
    static const char tag[] = "</requirements>";
    char *text = NULL, *at;
    long n;
    int rc = -1, fd = -1;
    FILE *f = fopen(src, "rb"), *w = NULL;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (text = calloc((size_t)n + 1, 1)) == NULL ||
        fread(text, 1, (size_t)n, f) != (size_t)n || (at = strstr(text, tag)) == NULL)
        goto cleanup;
    snprintf(out, size, "/tmp/ac_bench_searchXXXXXX.xml");
    if ((fd = mkstemps(out, 4)) < 0 || (w = fdopen(fd, "w")) == NULL)
        goto cleanup;
    fd = -1;
    if (fwrite(text, 1, (size_t)(at - text), w) == (size_t)(at - text) && fputs(extra, w) >= 0 &&
        fputs(at, w) >= 0)
        rc = 0;
cleanup:
    if (w != NULL && fclose(w) != 0)
        rc = -1;
    if (fd >= 0)
        close(fd);
    if (f != NULL)
        fclose(f);
    free(text);
    return rc;
}

/* --check: `check` of the sample as it is (no <resilience>: no search runs; INFO) and with a
 * <resilience min-boundary="800/s"/> (the worst case at the design's 800/s, default budget,
 * confirmed by simulation): wall time against the floor 60 s. 0, 1 (floor missed), 2
 * (failed: exit 2, a signal, or no temporary file). */
static int check_rows(const char *bin, const char *path)
{
    static const char extra[] = "<resilience min-boundary=\"800/s\"/>\n  ";
    char tmp[64];
    double wall = 0.0, cpu = 0.0, load = load_average();
    int rc = ac_bench_check_once(bin, path, &wall, &cpu, NULL), fail = rc < 0 || rc == 2 || rc > 3;
    ac_bench_row("check samples/faas-cascade.xml as it is (no <resilience>: no search): wall", wall,
                 "s", NULL, NULL, fail ? "FAIL" : "INFO",
                 "one run, user+sys %.2f s, exit %d, load %.2f at the start", cpu, rc, load);
    if (fail)
        return 2;
    if (with_requirement(path, extra, tmp, sizeof tmp) != 0) {
        fprintf(stderr, "bench_search: cannot write the sample with a <resilience>\n");
        return 2;
    }
    load = load_average();
    rc = ac_bench_check_once(bin, tmp, &wall, &cpu, NULL);
    unlink(tmp);
    fail = rc < 0 || rc == 2 || rc > 3;
    ac_bench_row("check samples/faas-cascade.xml + <resilience min-boundary=800/s>, default "
                 "budget: wall",
                 wall, "s", "60 s", "10 s", fail ? "FAIL" : (wall <= 60.0 ? "PASS" : "MISS"),
                 "one run, user+sys %.2f s, exit %d (1 fail, 3 inconclusive), load %.2f at the "
                 "start; the search, its polish and the confirmation of one worst case",
                 cpu, rc, load);
    return fail ? 2 : wall > 60.0;
}

int main(int argc, char **argv)
{
    static const config duel[2] = {{"ga", AC_SEARCH_GA, 0.9, NULL, 0},
                                   {"random", AC_SEARCH_RANDOM, 0.9, NULL, 0}};
    config abl[4] = {{"ga (full)", AC_SEARCH_GA, 0.9, NULL, 0},
                     {"ga, no crossover", AC_SEARCH_GA, 0.0, NULL, 0},
                     {"ga, no mutation", AC_SEARCH_GA, 0.9, &no_mutation, 0},
                     {"ga, one term", AC_SEARCH_GA, 0.9, NULL, 2}};
    char path[4096], one_name[64];
    const char *check_bin = NULL;
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err;
    static run runs[4][SEEDS];
    const config *cf = duel;
    size_t budget = 400, nterms = 0, nconf = 2, term = 2;
    int ablation = 0, status = 0;
    double t0, secs, cpu0, cpu, evals = 0.0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--ablation") == 0)
            ablation = 1;
        else if (strcmp(argv[i], "--term") == 0 && i + 1 < argc)
            term = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--check") == 0 && i + 1 < argc)
            check_bin = argv[++i];
        else
            budget = (size_t)strtoul(argv[i], NULL, 10);
    }
    if (argc < 2 || budget == 0 || term == 0) {
        fprintf(stderr, "usage: bench_search SOURCE_DIR [BUDGET] [--ablation [--term K]] "
                        "[--check ARCHCHECK]\n");
        return 2;
    }
    memset(&err, 0, sizeof err);
    ac_diag_list_init(&d);
    snprintf(path, sizeof path, "%s/samples/faas-cascade.xml", argv[1]);
    if (ac_parser_parse_file(path, &m, &d, &err) != 0) {
        fprintf(stderr, "bench_search: %s: %s\n", path, err.message);
        return 2;
    }
    if (ablation) {
        if (term > m->faults.nterms) {
            fprintf(stderr, "bench_search: --term %zu: the objective has %zu terms\n", term,
                    m->faults.nterms);
            return 2;
        }
        snprintf(one_name, sizeof one_name, "ga, term %zu alone", term);
        abl[3].name = one_name;
        abl[3].one_term = term;
        cf = abl;
        nconf = 4;
    }
    printf("%s on %s: %d seeds (1..%d, all reported), %zu evaluations each, population 20, "
           "no polish\n",
           ablation ? "GA ablation" : "GA vs random", path, SEEDS, SEEDS, budget);
    t0 = now();
    cpu0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t k = 0; k < nconf; k++)
        for (unsigned long s = 1; s <= SEEDS; s++)
            if (one(m, &cf[k], s, budget, &runs[k][s - 1], &nterms) != 0)
                return 2;
    secs = now() - t0;
    cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    for (size_t k = 0; k < nconf; k++)
        for (size_t s = 0; s < SEEDS; s++)
            evals += (double)runs[k][s].evaluations;
    printf("seed");
    for (size_t k = 0; k < nconf; k++)
        printf("  %18s", cf[k].name);
    for (size_t i = 0; i < nterms; i++)
        printf("   term%zu %s/%s", i + 1, cf[0].name, cf[1].name);
    printf("\n");
    for (size_t s = 0; s < SEEDS; s++) {
        printf("%4zu", s + 1);
        for (size_t k = 0; k < nconf; k++)
            printf("  %18.4f", runs[k][s].best);
        for (size_t i = 0; i < nterms; i++)
            printf("  %8.4g/%-8.4g", runs[0][s].tv[i].metric, runs[1][s].tv[i].metric);
        printf("\n");
    }
    for (size_t k = 0; k < nconf; k++) {
        double x[SEEDS], q1, med, q3;
        size_t fails = 0;
        for (size_t s = 0; s < SEEDS; s++) {
            x[s] = runs[k][s].best;
            fails += runs[k][s].failures;
        }
        quartiles(x, SEEDS, &q1, &med, &q3);
        printf("%-6s best score: median %.4f, quartiles %.4f .. %.4f (%zu failed integrations)\n",
               cf[k].name, med, q1, q3, fails);
        for (size_t i = 0; i < nterms; i++) {
            for (size_t s = 0; s < SEEDS; s++)
                x[s] = runs[k][s].tv[i].metric;
            quartiles(x, SEEDS, &q1, &med, &q3);
            printf("       term %zu (metric of the best plan): median %.4g, quartiles %.4g .. "
                   "%.4g\n",
                   i + 1, med, q1, q3);
        }
    }
    if (ablation)
        ablation_rows(m, cf, nconf, runs);
    else
        duel_summary(runs);
    printf("%.0f evaluations in %.1f s wall, %.1f s of processor time: %.0f evaluations/s per "
           "core (floor 200, goal 1,000)\n",
           evals, secs, cpu, evals / cpu);
    if (!ablation)
        status = duel_rows(m, runs, budget, evals, cpu, secs);
    if (check_bin != NULL) {
        int c = check_rows(check_bin, path);
        status = c > status ? c : status;
    }
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return status;
}
