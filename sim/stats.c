/*
 * Statistics: per-replication KPIs, histogram percentiles, and the Student t
 * confidence intervals over replications.
 */
#include <math.h>

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

/* mean +- t_{0.975, n-1} * s / sqrt(n), s^2 = m2 / (n - 1). */
void ac_sim_welford_estimate(const ac_sim_welford *w, ac_sim_estimate *out)
{
    out->n = w->n;
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

/* The q-quantile of n samples binned in hist: the bin where the cumulative
 * count reaches q n, linearly interpolated between its edges. */
double ac_sim_hist_quantile(const uint64_t *hist, uint64_t n, double q)
{
    double target = q * (double)n, cum = 0;
    if (n == 0)
        return NAN;
    for (size_t i = 0; i < AC_SIM_HIST_BINS; i++) {
        double h = (double)hist[i];
        if (h > 0 && cum + h >= target) {
            double lo = ac_sim_hist_edge(i), hi = ac_sim_hist_edge(i + 1);
            double f = (target - cum) / h;
            return lo + (f < 0 ? 0 : f) * (hi - lo);
        }
        cum += h;
    }
    return ac_sim_hist_edge(AC_SIM_HIST_BINS - 1);
}

static double ratio(uint64_t a, uint64_t b)
{
    return b > 0 ? (double)a / (double)b : NAN;
}

static void response_kpis(const ac_sim_counts *c, double out[AC_SIM_K_COUNT])
{
    if (c->completions > 0) {
        out[AC_SIM_K_RESP] = c->sum_resp / (double)c->completions;
        out[AC_SIM_K_P50] = ac_sim_hist_quantile(c->hist, c->completions, 0.50);
        out[AC_SIM_K_P95] = ac_sim_hist_quantile(c->hist, c->completions, 0.95);
        out[AC_SIM_K_P99] = ac_sim_hist_quantile(c->hist, c->completions, 0.99);
    } else {
        out[AC_SIM_K_RESP] = out[AC_SIM_K_P50] = out[AC_SIM_K_P95] = out[AC_SIM_K_P99] = NAN;
    }
}

/* KPIs of node n over a window of length `window` (s). */
void ac_sim_node_kpis(const ac_sim_node *n, double window, double out[AC_SIM_K_COUNT])
{
    const ac_sim_counts *c = &n->c;
    double ns = (double)n->servers;
    out[AC_SIM_K_ARRIVAL] = (double)c->attempts / window;
    out[AC_SIM_K_THROUGHPUT] = (double)c->completions / window;
    out[AC_SIM_K_UTIL] = c->area_busy / window / ns;
    out[AC_SIM_K_JOBS] = c->area_jobs / window / ns;
    out[AC_SIM_K_LOSS] = ratio(c->lost, c->attempts);
    response_kpis(c, out);
    out[AC_SIM_K_TIMEOUT] = ratio(c->timeouts, c->attempts);
    out[AC_SIM_K_RETRIES] = ratio(c->retries, c->first);
    out[AC_SIM_K_FAILURE] = ratio(c->failures, c->first);
}

/* End-to-end KPIs of a source or population (the other slots are NAN). */
void ac_sim_entry_kpis(const ac_sim_entry *e, double window, double out[AC_SIM_K_COUNT])
{
    const ac_sim_counts *c = &e->c;
    for (size_t k = 0; k < AC_SIM_K_COUNT; k++)
        out[k] = NAN;
    out[AC_SIM_K_ARRIVAL] = (double)c->attempts / window;
    out[AC_SIM_K_THROUGHPUT] = (double)c->completions / window;
    response_kpis(c, out);
    out[AC_SIM_K_FAILURE] = ratio(c->failed_requests, c->completions);
}
