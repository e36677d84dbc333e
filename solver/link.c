/*
 * The law of a link (include/archcheck/link.h): M/D/1, or M/D/1/K with K = buffer + 1,
 * service D = 1/c, then a fixed latency.
 *
 * Levels. With N the jobs waiting or transmitting (time-stationary, = the law seen by
 * arrivals, PASTA), a job is transmitting at time t with N(t) = n >= 1 exactly when a
 * transmission started at t - D + R (R its residual) with j jobs present and n - j arrived
 * since. Transmissions with j present start at rate lambda p~_j (a departure leaving j,
 * p~_j = p_j for j >= 2; or leaving 0 and an arrival to the empty link, p~_1 = p_0 + p_1).
 * Integrating R over (0, D] gives, for 1 <= n <= K - 1 (no arrival was lost on the way),
 *     p_n e^{-rho} = sum_{j=1}^{n-1} p~_j P(Pois(rho) >= n + 1 - j)   (n >= 2),
 *     p_1 = p_0 (e^rho - 1),
 * a recursion of positive terms (stable, unlike the embedded chain's subtractions). Unbounded:
 * p_0 = 1 - rho. Bounded: p_n = x_n / (x_0 + rho sum_{n<K} x_n) for x the recursion from
 * x_0 = 1, and p_K the remainder (rho (1 - p_K) = 1 - p_0: carried work).
 *
 * Wait (FIFO): an arrival finding n waits (n - 1) D + R, so with t = k D + u, 0 <= u < D,
 *     P(W <= t) = P(N <= k) + P(N = k + 1, R <= u),
 *     P(N = k + 1, R <= u) = sum_{j=1}^{k+1} p~_j [F(k+1-j; lambda (D - u)) - F(k+1-j; rho)]
 * with F the Poisson CDF: positive terms again, where Erlang's alternating sum
 * (1 - rho) sum_k (lambda (k D - t))^k / k! e^{-lambda (k D - t)} cancels catastrophically
 * once lambda t exceeds ~30. Beyond the computed levels (rho near 1) the Cramer-Lundberg
 * asymptote P(W > t) ~ C e^{-gamma t}, rho (e^{gamma D} - 1) = gamma D,
 * C = (1 - rho) / (rho e^{gamma D} - 1), takes over; its gap to the exact law over the last
 * computed interval is stated as the error. Mean wait: Pollaczek-Khinchine
 * rho D / (2 (1 - rho)) (unbounded), Little's law on the levels (bounded).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_lambert.h>

#include "archcheck/link.h"

#define AC_LINK_REST    1e-12 /* unbounded: levels until the mass left is below this */
#define AC_LINK_RHO_MAX 50.0  /* bounded and beyond: e^{rho} leaves the double range */

void ac_solver_link_result_clear(ac_solver_link_result *r)
{
    if (r == NULL)
        return;
    free(r->level);
    memset(r, 0, sizeof *r);
}

/* x_0..x_{n-1} by the level-crossing recursion from x_0 = 1 (rescaled when they grow: the
 * recursion is linear); stops early when `stop_mass` > 0 and (1 - rho) sum x >= 1 -
 * stop_mass. Returns the levels computed. */
static size_t recurse(double rho, size_t n, double stop_mass, double *x, double *gbar)
{
    double er = exp(rho), sum;
    size_t i;
    for (size_t m = 1; m <= n; m++)
        gbar[m] = gsl_cdf_poisson_Q((unsigned int)(m - 1), rho); /* P(Pois >= m) */
    x[0] = 1.0;
    if (n < 2)
        return n;
    x[1] = er - 1.0;
    sum = x[0] + x[1];
    for (i = 2; i < n; i++) {
        double s = (x[0] + x[1]) * gbar[i]; /* j = 1: p~_1 = x_0 + x_1 */
        for (size_t j = 2; j < i; j++)
            s += x[j] * gbar[i + 1 - j];
        x[i] = er * s;
        sum += x[i];
        if (stop_mass > 0.0 && (1.0 - rho) * sum >= 1.0 - stop_mass) {
            i++;
            break;
        }
        if (x[i] > 1e200) {
            for (size_t j = 0; j <= i; j++)
                x[j] *= 1e-200;
            sum *= 1e-200;
        }
    }
    return i;
}

/* The exact wait law on the levels: t = k D + u with k + 1 < nlevels (or the buffer). */
static double wait_cdf_levels(const ac_solver_link_result *r, size_t k, double u)
{
    const double D = 1.0 / r->capacity, lam = r->arrival_rate, rho = r->load;
    const double ma = lam * (D - u) > 0.0 ? lam * (D - u) : 0.0;
    const double *p = r->level;
    double s1 = 0.0, s2 = 0.0, fa = 0.0, fb = 0.0, ta = exp(-ma), tb = exp(-rho);
    for (size_t n = 0; n <= k; n++)
        s1 += p[n];
    /* F(m; ma) - F(m; rho) for m = 0..k, accumulated in m; term j = k + 1 - m */
    for (size_t m = 0; m <= k; m++) {
        size_t j = k + 1 - m;
        double pj = j == 1 ? p[0] + p[1] : p[j];
        if (m > 0) {
            ta *= ma / (double)m;
            tb *= rho / (double)m;
        }
        fa += ta;
        fb += tb;
        s2 += pj * fmax(0.0, fa - fb);
    }
    return s1 + s2;
}

double ac_solver_link_wait_cdf(const ac_solver_link_result *r, double t)
{
    double D, kd, acc;
    size_t k;
    if (t < 0.0)
        return 0.0;
    if (isinf(r->capacity) || r->arrival_rate <= 0.0)
        return 1.0;
    if (r->overload)
        return 0.0;
    D = 1.0 / r->capacity;
    acc = 1.0 - r->loss_probability;
    kd = floor(t / D);
    if (r->buffer != AC_UNBOUNDED && kd >= (double)r->buffer)
        return 1.0; /* an accepted job finds at most `buffer` waiting: W <= buffer D */
    if (t >= r->tail_from || kd + 2.0 > (double)r->nlevels)
        return fmax(0.0, 1.0 - r->tail_coef * exp(-r->tail_rate * t));
    k = (size_t)kd;
    return fmin(1.0, wait_cdf_levels(r, k, fmin(fmax(t - kd * D, 0.0), D)) / acc);
}

double ac_solver_link_cdf(const ac_solver_link_result *r, double t)
{
    double fixed = r->latency + (isinf(r->capacity) ? 0.0 : 1.0 / r->capacity);
    if (t < fixed)
        return 0.0;
    return ac_solver_link_wait_cdf(r, t - fixed);
}

/* gamma D: the positive root y of rho (e^y - 1) = y (Lambert W_{-1}, polished by Newton). */
static double tail_root(double rho)
{
    gsl_sf_result w;
    double y;
    if (gsl_sf_lambert_Wm1_e(-rho * exp(-rho), &w) != GSL_SUCCESS)
        y = 2.0 * (1.0 - rho) / rho;
    else
        y = -w.val - rho;
    for (int it = 0; it < 4 && y > 0.0; it++) {
        double f = rho * expm1(y) - y, df = rho * exp(y) - 1.0;
        if (!(df > 0.0))
            break;
        y -= f / df;
    }
    return y;
}

/* Unbounded buffer: the asymptote and the measured gap to the exact law where it starts. */
static void set_tail(ac_solver_link_result *r)
{
    const double D = 1.0 / r->capacity, rho = r->load;
    double y = tail_root(rho), gap = 0.0;
    size_t k;
    r->tail_rate = y / D;
    r->tail_coef = (1.0 - rho) / (rho * exp(y) - 1.0);
    r->tail_from = INFINITY;
    if (r->nlevels < 3)
        return;
    k = r->nlevels - 2;
    for (int i = 0; i < 8; i++) {
        double u = D * (double)i / 8.0, t = (double)k * D + u;
        double ex = wait_cdf_levels(r, k, u);
        gap = fmax(gap, fabs(ex - (1.0 - r->tail_coef * exp(-r->tail_rate * t))));
    }
    r->tail_from = (double)(r->nlevels - 1) * D;
    r->expected_abs_error = fmax(r->expected_abs_error, 2.0 * gap);
}

static int solve_levels(ac_solver_link_result *r, ac_error *err)
{
    const double rho = r->load, D = 1.0 / r->capacity;
    int bounded = r->buffer != AC_UNBOUNDED && r->buffer + 1 <= AC_SOLVER_LINK_NMAX;
    size_t K = bounded ? r->buffer + 1 : AC_SOLVER_LINK_NMAX;
    double *x = calloc(K + 1, sizeof *x), *gbar = calloc(K + 2, sizeof *gbar);
    double sum = 0.0, jobs = 0.0;
    size_t n;
    if (x == NULL || gbar == NULL) {
        free(x);
        free(gbar);
        return ac_error_set(err, AC_ENOMEM, "out of memory (link)");
    }
    n = recurse(rho, K, bounded ? 0.0 : AC_LINK_REST, x, gbar);
    free(gbar);
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    if (bounded) {
        double cst = 1.0 / (x[0] + rho * sum);
        for (size_t i = 0; i < n; i++) {
            x[i] *= cst;
            jobs += (double)i * x[i];
        }
        x[n] = fmax(0.0, 1.0 - cst * sum); /* p_K */
        r->loss_probability = x[n];
        jobs += (double)n * x[n];
        r->nlevels = n + 1;
        r->level = x;
        r->throughput = r->arrival_rate * (1.0 - r->loss_probability);
        r->mean_wait = r->throughput > 0.0 ? fmax(0.0, jobs / r->throughput - D) : 0.0;
    } else {
        for (size_t i = 0; i < n; i++)
            x[i] *= 1.0 - rho;
        r->nlevels = n;
        r->level = x;
        r->throughput = r->arrival_rate;
        r->mean_wait = rho * D / (2.0 * (1.0 - rho)); /* Pollaczek-Khinchine */
        /* a buffer deeper than the levels loses at most the mass beyond them */
        if (r->buffer != AC_UNBOUNDED)
            r->expected_abs_error = fmax(0.0, 1.0 - sum * (1.0 - rho));
        set_tail(r);
    }
    r->utilization = r->throughput * D;
    r->expected_abs_error += 1e-15 * (double)r->nlevels;
    return AC_OK;
}

int ac_solver_link_solve(const ac_link *link, double arrival_rate, double capacity_loss,
                         ac_solver_link_result *out, ac_error *err)
{
    int rc;
    memset(out, 0, sizeof *out);
    if (!(arrival_rate >= 0.0) || !isfinite(arrival_rate) || !(capacity_loss >= 0.0) ||
        !(capacity_loss < 1.0))
        return ac_error_set(err, AC_EINVAL, "link: invalid arrival rate %g or loss %g",
                            arrival_rate, capacity_loss);
    out->arrival_rate = arrival_rate;
    out->capacity = link->capacity * (1.0 - capacity_loss);
    out->latency = link->latency;
    out->buffer = link->buffer;
    out->approximation = AC_SOLVER_APPROX_EXACT;
    out->tail_from = INFINITY;
    out->throughput = arrival_rate;
    if (isinf(out->capacity) || arrival_rate == 0.0) {
        out->mean_response_time = out->latency + (isinf(out->capacity) ? 0.0 : 1.0 / out->capacity);
        out->mean_jobs = arrival_rate * out->mean_response_time;
        return AC_OK;
    }
    out->load = arrival_rate / out->capacity;
    if (out->load >= 1.0 && (link->buffer == AC_UNBOUNDED || link->buffer >= AC_SOLVER_LINK_NMAX)) {
        if (link->buffer != AC_UNBOUNDED)
            return ac_error_set(err, AC_ELIMIT,
                                "link: an overloaded buffer of more than %d jobs is not computed",
                                AC_SOLVER_LINK_NMAX - 1);
        out->overload = 1;
        out->approximation = AC_SOLVER_APPROX_FLUID;
        out->throughput = out->capacity;
        out->utilization = 1.0;
        out->loss_probability = 0.0;
        out->mean_wait = out->mean_response_time = out->mean_jobs = INFINITY;
        return AC_OK;
    }
    if (out->load > AC_LINK_RHO_MAX)
        return ac_error_set(err, AC_ELIMIT, "link: a load of %g times the capacity is not computed",
                            out->load);
    rc = solve_levels(out, err);
    if (rc != AC_OK)
        return rc;
    out->mean_response_time = out->mean_wait + 1.0 / out->capacity + out->latency;
    out->mean_jobs = out->throughput * out->mean_response_time;
    return AC_OK;
}
