/*
 * The accuracy harness's table (accuracy.h): the KPIs of a run grouped per approximation
 * and per class, with the binomial bound on the misses.
 *
 * If every stated error is an upper bound, a KPI misses only when the simulation's 95%
 * interval misses the true value: at most 5% of the time. Over n KPIs the misses are then
 * at most Binomial(n, 0.05); a row fails when its misses exceed the largest count k with
 * P(X > k) >= alpha (alpha 1e-3 per approximation, 1e-3 / classes per class).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "tests/accuracy.h"

#define ACC_NOMINAL 0.05
#define ACC_ALPHA   1e-3

/* The most misses Binomial(n, 0.05) exceeds with probability >= alpha. */
static size_t miss_bound(size_t n, double alpha)
{
    size_t k = 0;
    while (k < n && gsl_cdf_binomial_Q((unsigned)k, ACC_NOMINAL, (unsigned)n) >= alpha)
        k++;
    return k;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The distinct keys (group or class) of res, sorted; *out owns an array of borrowed
 * pointers. */
static int distinct_keys(const acc_results *res, int classes, const char ***out, size_t *n)
{
    const char **keys = malloc((res->n > 0 ? res->n : 1) * sizeof *keys);
    size_t m = 0;
    if (keys == NULL)
        return AC_ENOMEM;
    for (size_t i = 0; i < res->n; i++)
        keys[i] = classes ? res->kpis[i].cls : res->kpis[i].group;
    qsort(keys, res->n, sizeof *keys, cmp_str);
    for (size_t i = 0; i < res->n; i++)
        if (m == 0 || strcmp(keys[m - 1], keys[i]) != 0)
            keys[m++] = keys[i];
    *out = keys;
    *n = m;
    return AC_OK;
}

/* p95 and max of the first n values of v (sorted in place). */
static void p95_max(double *v, size_t n, double *p95, double *max)
{
    qsort(v, n, sizeof *v, cmp_double);
    *p95 = v[(size_t)ceil(0.95 * (double)n) - 1];
    *max = v[n - 1];
}

static int fill_row(const acc_results *res, int classes, const char *key, double alpha,
                    double *scratch, acc_row *row)
{
    size_t nrel = 0, nex = 0;
    double *excess = scratch + res->n;
    memset(row, 0, sizeof *row);
    snprintf(row->key, sizeof row->key, "%s", key);
    row->stated_min = INFINITY;
    row->stated_max = 0.0;
    for (size_t i = 0; i < res->n; i++) {
        const acc_kpi *k = &res->kpis[i];
        if (strcmp(classes ? k->cls : k->group, key) != 0)
            continue;
        row->count++;
        row->misses += (size_t)k->miss;
        row->stated_min = fmin(row->stated_min, k->stated);
        row->stated_max = fmax(row->stated_max, k->stated);
        row->abs_max = fmax(row->abs_max, k->abs);
        if (isfinite(k->rel))
            scratch[nrel++] = k->rel;
        else
            row->rel_max = INFINITY;
        excess[nex++] = k->value != 0.0 ? fmax(0.0, fabs(k->value - k->sim) - k->abs - k->width) /
                                              fabs(k->value)
                        : fabs(k->sim) > k->width + k->abs ? INFINITY
                                                           : 0.0;
    }
    if (nrel > 0) {
        double sum = 0.0, max;
        for (size_t i = 0; i < nrel; i++)
            sum += scratch[i];
        row->rel_mean = sum / (double)nrel;
        p95_max(scratch, nrel, &row->rel_p95, &max);
        if (!isinf(row->rel_max))
            row->rel_max = max;
    }
    if (nex > 0)
        p95_max(excess, nex, &row->excess_p95, &row->excess_max);
    row->bound = miss_bound(row->count, alpha);
    row->fail = row->misses > row->bound;
    return AC_OK;
}

static int build_rows(const acc_results *res, int classes, acc_row **out, size_t *n)
{
    const char **keys = NULL;
    double *scratch = malloc((res->n > 0 ? 2 * res->n : 1) * sizeof *scratch);
    acc_row *rows = NULL;
    size_t nk = 0;
    int rc = scratch != NULL ? distinct_keys(res, classes, &keys, &nk) : AC_ENOMEM;
    if (rc == AC_OK) {
        rows = calloc(nk > 0 ? nk : 1, sizeof *rows);
        if (rows == NULL)
            rc = AC_ENOMEM;
    }
    for (size_t i = 0; rc == AC_OK && i < nk; i++)
        rc = fill_row(res, classes, keys[i], classes ? ACC_ALPHA / (double)nk : ACC_ALPHA, scratch,
                      &rows[i]);
    free(keys);
    free(scratch);
    if (rc != AC_OK) {
        free(rows);
        return rc;
    }
    *out = rows;
    *n = nk;
    return AC_OK;
}

int acc_table_build(const acc_results *res, acc_table *out)
{
    int rc;
    memset(out, 0, sizeof *out);
    rc = build_rows(res, 0, &out->groups, &out->ngroups);
    if (rc == AC_OK)
        rc = build_rows(res, 1, &out->classes, &out->nclasses);
    if (rc != AC_OK)
        acc_table_clear(out);
    return rc;
}

void acc_table_clear(acc_table *t)
{
    free(t->groups);
    free(t->classes);
    memset(t, 0, sizeof *t);
}

size_t acc_table_failures(const acc_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->ngroups; i++)
        n += (size_t)t->groups[i].fail;
    for (size_t i = 0; i < t->nclasses; i++)
        n += (size_t)t->classes[i].fail;
    return n;
}

static void md_rows(FILE *fp, const acc_row *rows, size_t n)
{
    fprintf(fp,
            "| %s | KPIs | measured mean | p95 | max | stated | needed p95 | misses | "
            "bound | |\n",
            "approximation");
    fprintf(fp, "|---|---:|---:|---:|---:|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        const acc_row *r = &rows[i];
        char stated[80];
        int n0;
        if (r->stated_min == r->stated_max)
            n0 = snprintf(stated, sizeof stated, "%.3g%%", 100.0 * r->stated_max);
        else
            n0 = snprintf(stated, sizeof stated, "%.3g..%.3g%%", 100.0 * r->stated_min,
                          100.0 * r->stated_max);
        if (r->abs_max > 0.0 && n0 > 0 && (size_t)n0 < sizeof stated)
            snprintf(stated + n0, sizeof stated - (size_t)n0, " + abs <= %.2g", r->abs_max);
        fprintf(fp, "| %s | %zu | %.3g%% | %.3g%% | %.3g%% | %s | %.3g%% | %zu | %zu | %s |\n",
                r->key, r->count, 100.0 * r->rel_mean, 100.0 * r->rel_p95, 100.0 * r->rel_max,
                stated, 100.0 * r->excess_p95, r->misses, r->bound, r->fail ? "**FAIL**" : "ok");
    }
}

void acc_table_write_md(FILE *fp, const acc_table *t, const acc_results *res)
{
    fprintf(fp,
            "%zu models (%zu skipped, %zu errors), %zu KPIs compared (%zu not evaluated by the "
            "analysis, %zu not estimated by the simulation), %llu simulated events.\n\n",
            res->models, res->skipped, res->errors, res->n, res->unevaluated, res->unsimulated,
            res->events);
    fprintf(fp, "Measured error |analysis - simulation| / |simulation|; a miss is "
                "|a - s| > stated |a| + abs + the simulation's 95%% half-width (abs: the stated "
                "absolute error, \"+ abs <= x\" its largest); needed p95: the 95th "
                "percentile of max(0, |a - s| - abs - half-width) / |a|, the least stated "
                "relative error that would miss at most 5%%; bound: the most misses a 5%% rate "
                "gives with probability 1e-3.\n\n");
    md_rows(fp, t->groups, t->ngroups);
    fprintf(fp, "\nBy class (approximation / node kind / KPI; bound at 1e-3 / %zu):\n\n",
            t->nclasses);
    md_rows(fp, t->classes, t->nclasses);
}

void acc_table_write_csv(FILE *fp, const acc_table *t)
{
    fprintf(fp, "level,key,count,mean,p95,max,stated_min,stated_max,abs_max,excess_p95,"
                "excess_max,misses,bound,fail\n");
    for (int level = 0; level < 2; level++) {
        const acc_row *rows = level == 0 ? t->groups : t->classes;
        size_t n = level == 0 ? t->ngroups : t->nclasses;
        for (size_t i = 0; i < n; i++)
            fprintf(fp, "%s,%s,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%zu,%zu,%d\n",
                    level == 0 ? "approximation" : "class", rows[i].key, rows[i].count,
                    rows[i].rel_mean, rows[i].rel_p95, rows[i].rel_max, rows[i].stated_min,
                    rows[i].stated_max, rows[i].abs_max, rows[i].excess_p95, rows[i].excess_max,
                    rows[i].misses, rows[i].bound, rows[i].fail);
    }
}

static int row_fails(const acc_row *rows, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].key, key) == 0)
            return rows[i].fail;
    return 0;
}

void acc_write_misses(FILE *fp, const acc_results *res, const acc_table *t, int only_failing)
{
    for (size_t i = 0; i < res->n; i++) {
        const acc_kpi *k = &res->kpis[i];
        int failing = row_fails(t->groups, t->ngroups, k->group) ||
                      row_fails(t->classes, t->nclasses, k->cls);
        if (!k->miss || (only_failing && !failing))
            continue;
        fprintf(fp,
                "%s %s seed %lu node %s %s: analysis %.6g (stated %.3g%% + %.3g), simulation "
                "%.6g +- %.3g (95%%, used %.3g): |a - s| = %.3g > allowed %.3g [%s]\n",
                failing ? "VIOLATION" : "miss", acc_family_name(k->family), k->seed, k->node,
                k->kpi, k->value, 100.0 * k->stated, k->abs, k->sim, k->ci, k->width,
                fabs(k->value - k->sim), k->stated * fabs(k->value) + k->abs + k->width, k->cls);
    }
    if (res->log != NULL)
        fputs(res->log, fp);
}
