/*
 * The convergence of the GA against random sampling over several seeds
 * (include/archcheck/search.h): for each method and each seed s, s0 .. s0 + K - 1, the best
 * score found after each generation, read on a common grid of evaluations (x_j = budget j / P,
 * j = 1..P: the best after the last generation whose evaluations are at most x_j), then at
 * each grid point the quartiles over the seeds (gsl_stats_quantile_from_sorted_data); and per
 * method the quartiles of the final best and the median of the evaluations each seed needed
 * to reach 99% of the best score of all runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "archcheck/search.h"

/* One run: the best after each generation, read on the grid into row[0..P). The evaluations
 * it needed to reach `level` are found later from the grid. */
static int one_run(const ac_search_problem *pr, const ac_search_options *o, double *row,
                   double *final, ac_error *err)
{
    ac_search_ga *ga = NULL;
    size_t j = 0, npoints = AC_SEARCH_CONVERGENCE_POINTS;
    int rc = ac_search_ga_new(pr, o, &ga, err);
    for (size_t k = 0; k < npoints; k++)
        row[k] = NAN;
    for (int done = 0; rc == 0 && !done;) {
        rc = ac_search_ga_step(ga, &done, err);
        if (rc != 0)
            break;
        {
            double e = (double)ac_search_ga_evaluations(ga), b = ac_search_ga_best(ga, NULL);
            /* this generation's best holds from its evaluations to the next generation's */
            while (j < npoints && (double)o->budget * (double)(j + 1) / (double)npoints < e)
                j++;
            for (size_t k = j; k < npoints; k++)
                row[k] = b;
        }
    }
    if (rc == 0)
        *final = ac_search_ga_best(ga, NULL);
    ac_search_ga_free(ga);
    return rc;
}

/* Quartiles of x[0..n) (sorted in place) into q[0..3); NAN when any is NAN. */
static void quartiles(double *x, size_t n, double *q)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i])) {
            q[0] = q[1] = q[2] = NAN;
            return;
        }
    gsl_sort(x, 1, n);
    q[0] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
    q[1] = gsl_stats_median_from_sorted_data(x, 1, n);
    q[2] = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
}

/* The median over the seeds of the grid evaluations at which each reached `level` (seeds that
 * never did are left out; NAN when fewer than half did). */
static double reach_median(const ac_search_convergence *c, const double *rows, double level,
                           size_t *reached, double *scratch)
{
    size_t n = 0;
    for (size_t s = 0; s < c->nseeds; s++) {
        const double *row = rows + s * AC_SEARCH_CONVERGENCE_POINTS;
        for (size_t k = 0; k < AC_SEARCH_CONVERGENCE_POINTS; k++)
            if (row[k] >= level) {
                scratch[n++] = c->evals[k];
                break;
            }
    }
    *reached = n;
    if (2 * n < c->nseeds || n == 0)
        return NAN;
    gsl_sort(scratch, 1, n);
    return gsl_stats_median_from_sorted_data(scratch, 1, n);
}

int ac_search_convergence_run(const ac_search_problem *problem, const ac_search_options *opt,
                              size_t nseeds, ac_search_convergence *out, ac_error *err)
{
    const size_t np = AC_SEARCH_CONVERGENCE_POINTS;
    double *rows = NULL, *finals = NULL, *col = NULL;
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (nseeds == 0 || nseeds > AC_SEARCH_CONVERGENCE_SEEDS_MAX || opt->budget == 0)
        return ac_error_set(err, AC_EINVAL, "convergence: 1 to %d seeds and a budget are needed",
                            AC_SEARCH_CONVERGENCE_SEEDS_MAX);
    out->nseeds = nseeds;
    out->seed = opt->seed;
    out->budget = opt->budget;
    for (size_t k = 0; k < np; k++)
        out->evals[k] = (double)opt->budget * (double)(k + 1) / (double)np;
    rows = calloc(2 * nseeds * np, sizeof *rows);
    finals = calloc(2 * nseeds, sizeof *finals);
    col = calloc(nseeds + 1, sizeof *col);
    if (rows == NULL || finals == NULL || col == NULL)
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (convergence)");
    for (size_t m = 0; m < 2 && rc == 0; m++)
        for (size_t s = 0; s < nseeds && rc == 0; s++) {
            ac_search_options o = *opt;
            o.method = m == 0 ? AC_SEARCH_GA : AC_SEARCH_RANDOM;
            o.seed = opt->seed + s;
            rc = one_run(problem, &o, rows + (m * nseeds + s) * np, &finals[m * nseeds + s], err);
            if (rc == 0 && (out->top < finals[m * nseeds + s] || (m == 0 && s == 0)))
                out->top = finals[m * nseeds + s];
        }
    for (size_t m = 0; m < 2 && rc == 0; m++) {
        for (size_t k = 0; k < np; k++) {
            double q[3];
            for (size_t s = 0; s < nseeds; s++)
                col[s] = rows[(m * nseeds + s) * np + k];
            quartiles(col, nseeds, q);
            for (size_t i = 0; i < 3; i++)
                out->best[m][i][k] = q[i];
        }
        memcpy(col, finals + m * nseeds, nseeds * sizeof *col);
        quartiles(col, nseeds, out->final[m]);
        out->reach99[m] =
            reach_median(out, rows + m * nseeds * np, 0.99 * out->top, &out->reached99[m], col);
    }
    free(rows);
    free(finals);
    free(col);
    return rc;
}
