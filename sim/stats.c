/*
 * Statistics: per-replication KPIs, histogram percentiles, and the Student t
 * confidence intervals over replications.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "sim/internal.h"

/* Welford's running mean and sum of squared deviations; NaN is skipped
 * (the KPI was undefined in that replication). */
void ac_sim_welford_add(ac_sim_welford *w, double x)
{
    double d;
    if (isnan(x))
        return;
    w->n++;
    d = x - w->mean;
    w->mean += d / (double)w->n;
    w->m2 += d * (x - w->mean);
}

void ac_sim_welford_count(ac_sim_welford *w, uint64_t count, uint64_t trials)
{
    w->count += (double)count;
    w->trials += (double)trials;
}

/* mean +- t_{0.975, n-1} * s / sqrt(n), s^2 = m2 / (n - 1). */
void ac_sim_welford_estimate(const ac_sim_welford *w, ac_sim_estimate *out)
{
    out->n = w->n;
    out->count = w->count;
    out->trials = w->trials;
    if (w->n == 0) {
        out->mean = NAN;
        out->ci95 = NAN;
        return;
    }
    out->mean = w->mean;
    if (w->n < 2) {
        out->ci95 = INFINITY;
        return;
    }
    out->ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(w->n - 1)) *
                sqrt(fmax(w->m2, 0.0) / (double)(w->n - 1) / (double)w->n);
}

/* The q-quantile of n samples binned in h: the bin where the cumulative
 * count reaches q n, linearly interpolated between its edges (only the allocated octaves
 * are visited: the others are empty). */
double ac_sim_hist_quantile(const ac_sim_hist *hs, uint64_t n, double q)
{
    double target = q * (double)n, cum = 0;
    if (n == 0)
        return NAN;
    for (size_t o = 0; o < AC_SIM_HIST_OCTAVES; o++) {
        const uint64_t *bins = hs->oct[o];
        if (bins == NULL)
            continue;
        for (size_t k = 0; k < AC_SIM_HIST_SUB; k++) {
            double h = (double)bins[k];
            if (h > 0 && cum + h >= target) {
                size_t i = o * AC_SIM_HIST_SUB + k;
                double lo = ac_sim_hist_edge(i), hi = ac_sim_hist_edge(i + 1);
                double f = (target - cum) / h;
                return lo + (f < 0 ? 0 : f) * (hi - lo);
            }
            cum += h;
        }
    }
    return ac_sim_hist_edge(AC_SIM_HIST_BINS - 1);
}

int ac_sim_hist_add(ac_sim_hist *h, size_t b, uint64_t x)
{
    size_t o = b >> AC_SIM_HIST_SUB_BITS;
    if (h->oct[o] == NULL) {
        h->oct[o] = calloc(AC_SIM_HIST_SUB, sizeof *h->oct[o]);
        if (h->oct[o] == NULL)
            return AC_ENOMEM;
        h->used |= (uint64_t)1 << o;
    }
    h->oct[o][b & (AC_SIM_HIST_SUB - 1)] += x;
    h->n += x;
    return 0;
}

int ac_sim_hist_merge(ac_sim_hist *to, const ac_sim_hist *from)
{
    for (size_t o = 0; o < AC_SIM_HIST_OCTAVES; o++) {
        if (from->oct[o] == NULL)
            continue;
        if (to->oct[o] == NULL) {
            to->oct[o] = calloc(AC_SIM_HIST_SUB, sizeof *to->oct[o]);
            if (to->oct[o] == NULL)
                return AC_ENOMEM;
            to->used |= (uint64_t)1 << o;
        }
        for (size_t k = 0; k < AC_SIM_HIST_SUB; k++)
            to->oct[o][k] += from->oct[o][k];
    }
    to->n += from->n;
    return 0;
}

void ac_sim_hist_reset(ac_sim_hist *h)
{
    for (size_t o = 0; o < AC_SIM_HIST_OCTAVES; o++)
        if (h->oct[o] != NULL)
            memset(h->oct[o], 0, AC_SIM_HIST_SUB * sizeof *h->oct[o]);
    h->n = 0;
}

void ac_sim_hist_free(ac_sim_hist *h)
{
    for (size_t o = 0; o < AC_SIM_HIST_OCTAVES; o++)
        free(h->oct[o]);
    memset(h, 0, sizeof *h);
}

static double ratio(uint64_t a, uint64_t b)
{
    return b > 0 ? (double)a / (double)b : NAN;
}

static void response_kpis(const ac_sim_counts *c, double out[AC_SIM_K_COUNT])
{
    if (c->timed > 0) {
        out[AC_SIM_K_RESP] = c->sum_resp / (double)c->timed;
        out[AC_SIM_K_P50] = ac_sim_hist_quantile(&c->hist, c->timed, 0.50);
        out[AC_SIM_K_P95] = ac_sim_hist_quantile(&c->hist, c->timed, 0.95);
        out[AC_SIM_K_P99] = ac_sim_hist_quantile(&c->hist, c->timed, 0.99);
    } else {
        out[AC_SIM_K_RESP] = out[AC_SIM_K_P50] = out[AC_SIM_K_P95] = out[AC_SIM_K_P99] = NAN;
    }
}

/* KPIs of node n over a window of length `window` (s); the meaning of each slot per node
 * kind is documented with ac_sim_node_result in include/archcheck/sim.h. */
void ac_sim_node_kpis(const ac_sim_node *n, double window, double out[AC_SIM_K_COUNT])
{
    const ac_sim_counts *c = &n->c;
    double ns = (double)n->servers;
    for (size_t k = 0; k < AC_SIM_K_COUNT; k++)
        out[k] = NAN;
    /* the solver's definitions (report/json.c, output.md): requests, not attempts */
    out[AC_SIM_K_ARRIVAL] = (double)c->first / window;
    out[AC_SIM_K_THROUGHPUT] = (double)(c->completions - c->zombies) / window;
    out[AC_SIM_K_LOSS] = ratio(c->failures, c->first);
    out[AC_SIM_K_ATTEMPTS] = (double)c->attempts / window;
    out[AC_SIM_K_ATTEMPT_LOSS] = ratio(c->lost, c->attempts);
    response_kpis(c, out);
    out[AC_SIM_K_RETRIES] = ratio(c->retries, c->first);
    out[AC_SIM_K_FAILURE] = ratio(c->failures, c->first);
    switch (n->kind) {
    case AC_SIM_KIND_FUNCTION:
        out[AC_SIM_K_UTIL] = c->area_busy / window / ns;
        out[AC_SIM_K_JOBS] = c->area_busy / window;
        out[AC_SIM_K_TIMEOUT] = ratio(c->timeouts, c->execs);
        out[AC_SIM_K_COLD] = ratio(c->colds, c->execs);
        out[AC_SIM_K_THROTTLE] = ratio(c->lost, c->attempts);
        out[AC_SIM_K_INSTANCES] = c->area_extra / window;
        break;
    case AC_SIM_KIND_QUEUE:
        out[AC_SIM_K_UTIL] = c->area_busy / window / ns;
        out[AC_SIM_K_JOBS] = c->area_jobs / window;
        out[AC_SIM_K_TIMEOUT] = ratio(c->timeouts, c->receives);
        out[AC_SIM_K_DEAD] = ratio(c->dead, c->attempts);
        out[AC_SIM_K_BACKLOG] = c->area_extra / window;
        /* most messages wait exactly 0: a percentile in the histogram's first bin (below
           2^-30 s) is 0 */
        for (size_t k = AC_SIM_K_P50; k <= AC_SIM_K_P99; k++)
            if (out[k] < ac_sim_hist_edge(1))
                out[k] = 0.0;
        break;
    case AC_SIM_KIND_GATEWAY:
        out[AC_SIM_K_UTIL] =
            isfinite(n->u.gw.rate) ? (double)c->completions / window / n->u.gw.rate : 0.0;
        out[AC_SIM_K_JOBS] = c->area_jobs / window;
        out[AC_SIM_K_TIMEOUT] = ratio(c->timeouts, c->attempts);
        out[AC_SIM_K_THROTTLE] = ratio(c->lost, c->attempts);
        out[AC_SIM_K_LOSS] = ratio(c->lost, c->first); /* the 429s, as the solver's */
        if (c->completions > 0)                        /* admission takes no time */
            out[AC_SIM_K_RESP] = out[AC_SIM_K_P50] = out[AC_SIM_K_P95] = out[AC_SIM_K_P99] = 0.0;
        break;
    case AC_SIM_KIND_POOL:
    case AC_SIM_KIND_LINK:
    default:
        out[AC_SIM_K_UTIL] = c->area_busy / window / ns;
        out[AC_SIM_K_JOBS] = c->area_jobs / window / ns;
        out[AC_SIM_K_TIMEOUT] = ratio(c->timeouts, c->attempts);
        if (n->kind == AC_SIM_KIND_POOL && n->u.pool.sc != NULL) {
            /* per serving server: nextra is the serving count (autoscale.c) */
            out[AC_SIM_K_UTIL] = c->area_extra > 0 ? c->area_busy / c->area_extra : NAN;
            out[AC_SIM_K_JOBS] = c->area_extra > 0 ? c->area_jobs / c->area_extra : NAN;
            out[AC_SIM_K_ACTIONS] = (double)c->scale_actions;
            out[AC_SIM_K_FLAPS] = (double)c->scale_flaps;
            out[AC_SIM_K_SERVER_SEC] = c->area_extra;
        }
        break;
    }
}

/* End-to-end KPIs of a source or population (the other slots are NAN). */
void ac_sim_entry_kpis(const ac_sim_entry *e, double window, double out[AC_SIM_K_COUNT])
{
    const ac_sim_counts *c = &e->c;
    for (size_t k = 0; k < AC_SIM_K_COUNT; k++)
        out[k] = NAN;
    out[AC_SIM_K_ARRIVAL] = (double)c->attempts / window;
    /* completed successful requests per second (c->timed counts only those), as the
       solver's end-to-end throughput */
    out[AC_SIM_K_THROUGHPUT] = (double)c->timed / window;
    response_kpis(c, out);
    out[AC_SIM_K_FAILURE] = ratio(c->failed_requests, c->completions);
    out[AC_SIM_K_ERROR] = ratio(c->error_requests, c->completions);
}
