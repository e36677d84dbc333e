/*
 * M^X/M/c FCFS (include/archcheck/batch.h): a pool behind a fan-out.
 *
 * Levels. Level-crossing across n + 1/2: up by a batch that finds j <= n and has more than
 * n - j jobs, down by a departure from n + 1, so
 *     min(n + 1, c) mu p_{n+1} = lambda_b sum_{j=0}^{n} p_j G(n - j),  G(m) = P(X > m),
 * all terms positive; p from p_0 = 1 and normalised. For X = k fixed and c = 1 this gives
 * L = rho (k + 1) / (2 (1 - rho)) (the M^X/M/1 mean, rho (E[X^2] + E[X]) / (2 E[X] (1 - rho))).
 *
 * A job of a batch: its batch is size-biased, and it is in a uniform position within it, so
 * the jobs of its own batch ahead of it J have P(J = j) = G(j) / E[X]; with N found in the
 * system (PASTA for the batch), M = N + J are ahead. With m ahead the job starts at once if
 * m < c, else after m - c + 1 departures at rate c mu: T = Erlang(m - c + 1, c mu) + Exp(mu),
 *     P(T > t) = Q(a, c mu t) + e^{-mu t} (c / (c - 1))^a P(a, (c - 1) mu t)   (c > 1),
 *     P(T > t) = Q(m + 1, mu t)                                                 (c = 1),
 * with P, Q the regularised incomplete gamma functions and a = m - c + 1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/batch.h"

#define AC_BATCH_REST 1e-14

static int set_coef(ac_solver_batch_result *r);

void ac_solver_batch_result_clear(ac_solver_batch_result *r)
{
    if (r == NULL)
        return;
    free(r->ahead);
    free(r->coef);
    memset(r, 0, sizeof *r);
}

void ac_solver_batch_thin(const double *pmf, size_t nsize, size_t n, double *out)
{
    const double q = 1.0 / (double)n;
    memset(out, 0, nsize * sizeof *out);
    for (size_t k = 0; k < nsize; k++) {
        /* Bin(x; k, q) by the ratio recursion from (1 - q)^k */
        double b = pow(1.0 - q, (double)k);
        if (pmf[k] == 0.0)
            continue;
        if (n == 1) {
            out[k] += pmf[k];
            continue;
        }
        for (size_t x = 0; x <= k; x++) {
            out[x] += pmf[k] * b;
            b *= (double)(k - x) / (double)(x + 1) * q / (1.0 - q);
        }
    }
}

/* The levels p_0.. (owned by *out) and their count; -1 beyond the budget, -2 out of memory. */
static long levels(const ac_solver_batch_result *r, const double *G, size_t nsize, double **out)
{
    size_t cap = 1024, n = 0;
    double *p = malloc(cap * sizeof *p), sum = 1.0;
    const double c = (double)r->servers, mu = r->service_rate, lb = r->batch_rate;
    if (p == NULL)
        return -2;
    p[0] = 1.0;
    for (;;) {
        double s = 0.0;
        size_t lo = n + 1 > nsize ? n + 1 - nsize : 0; /* G(n - j) = 0 for n - j >= nsize */
        if (n + 1 >= AC_SOLVER_BATCH_NMAX) {
            free(p);
            return -1;
        }
        if (n + 1 >= cap) {
            double *p2 = realloc(p, 2 * cap * sizeof *p);
            if (p2 == NULL) {
                free(p);
                return -2;
            }
            p = p2;
            cap *= 2;
        }
        for (size_t j = lo; j <= n; j++)
            s += p[j] * G[n - j];
        p[n + 1] = lb * s / (fmin((double)(n + 1), c) * mu);
        sum += p[n + 1];
        n++;
        /* geometric tail beyond c + nsize: stop once the last nsize levels are negligible */
        if (n > r->servers + nsize && p[n] < AC_BATCH_REST * 1e-3 * sum) {
            double tail = 0.0;
            for (size_t j = n + 1 > nsize ? n + 1 - nsize : 0; j <= n; j++)
                tail += p[j];
            if (tail < AC_BATCH_REST * 1e-2 * sum)
                break;
        }
    }
    for (size_t j = 0; j <= n; j++)
        p[j] /= sum;
    *out = p;
    return (long)(n + 1);
}

int ac_solver_batch_solve(size_t servers, double mu, double batch_rate, const double *pmf,
                          size_t nsize, ac_solver_batch_result *out, ac_error *err)
{
    double *G = NULL, *p = NULL, ex = 0.0, total = 0.0;
    long np;
    int rc = AC_OK;
    memset(out, 0, sizeof *out);
    if (servers == 0 || !(mu > 0.0) || !(batch_rate >= 0.0) || !isfinite(batch_rate) || nsize == 0)
        return ac_error_set(err, AC_EINVAL, "batch: invalid servers, rate or size law");
    for (size_t x = 0; x < nsize; x++) {
        if (!(pmf[x] >= 0.0))
            return ac_error_set(err, AC_EINVAL, "batch: invalid size law");
        ex += (double)x * pmf[x];
        total += pmf[x];
    }
    out->servers = servers;
    out->service_rate = mu;
    out->batch_rate = batch_rate;
    out->mean_batch = ex;
    out->load = batch_rate * ex / ((double)servers * mu);
    if (out->load >= 1.0) {
        out->overload = 1;
        out->mean_jobs = out->mean_response_time = INFINITY;
        return AC_OK;
    }
    if (!(ex > 0.0) || !(batch_rate > 0.0)) {
        out->mean_response_time = 1.0 / mu;
        return AC_OK;
    }
    G = malloc(nsize * sizeof *G);
    if (G == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (batch)");
    /* G(m) = P(X > m), from the top (no cancellation) */
    G[nsize - 1] = 0.0;
    for (size_t m = nsize - 1; m-- > 0;)
        G[m] = G[m + 1] + pmf[m + 1] / total;
    np = levels(out, G, nsize, &p);
    if (np < 0) {
        rc = np == -1 ? ac_error_set(err, AC_ELIMIT, "batch: more than %d levels (load %.6g)",
                                     AC_SOLVER_BATCH_NMAX, out->load)
                      : ac_error_set(err, AC_ENOMEM, "out of memory (batch)");
        goto cleanup;
    }
    for (long n = 0; n < np; n++)
        out->mean_jobs += (double)n * p[n];
    out->mean_response_time = out->mean_jobs / (batch_rate * ex);
    /* M = N + J, P(J = j) = G(j) / E[X] */
    out->nahead = (size_t)np + nsize;
    out->ahead = calloc(out->nahead, sizeof *out->ahead);
    if (out->ahead == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (batch)");
        goto cleanup;
    }
    for (long n = 0; n < np; n++)
        for (size_t j = 0; j < nsize && G[j] > 0.0; j++)
            out->ahead[(size_t)n + j] += p[n] * G[j] / ex;
    out->expected_abs_error = 10.0 * AC_BATCH_REST;
    if (set_coef(out) != AC_OK)
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (batch)");
cleanup:
    free(G);
    free(p);
    return rc;
}

/* sum_i Pois(i; y) coef[i], the pmf swept from its mode (no underflow of e^{-y}). */
static double poisson_sweep(const double *coef, size_t n, double y)
{
    size_t i0;
    double p0, p, s = 0.0;
    if (n == 0)
        return 0.0;
    if (y <= 0.0)
        return coef[0];
    i0 = y < (double)(n - 1) ? (size_t)floor(y) : n - 1;
    p0 = exp(-y + (double)i0 * log(y) - lgamma((double)i0 + 1.0));
    p = p0;
    for (size_t i = i0 + 1; i-- > 0;) {
        s += p * coef[i];
        if (i == 0 || p < 1e-300)
            break;
        p *= (double)i / y;
    }
    p = p0;
    for (size_t i = i0 + 1; i < n; i++) {
        p *= y / (double)i;
        s += p * coef[i];
        if (p < 1e-300 || (p < 1e-18 && (double)i > y))
            break;
    }
    return s;
}

/*
 * P(T > t) = head e^{-mu t} + sum_i Pois(i; c mu t) coef_i, from the m-ahead law a_m:
 * c = 1: coef_i = sum_{m >= i} a_m, head = 0 (T | m is Erlang(m + 1, mu));
 * c > 1: head = sum_{m < c} a_m; with b_a = a_{a+c-1} (a >= 1) and r = c / (c - 1),
 * coef_i = sum_{a > i} b_a + sum_{1 <= a <= i} b_a r^{a-i}: the first from Q(a, c mu t), the
 * second from e^{-mu t} r^a P(a, (c-1) mu t), whose Poisson terms times r^i are
 * e^{mu t} Pois(i; c mu t). One pmf sweep per t instead of a gamma function per m.
 */
static int set_coef(ac_solver_batch_result *r)
{
    const size_t c = r->servers, n = r->nahead;
    double *coef = calloc(n + 1, sizeof *coef), tail = 0.0, d = 0.0;
    if (coef == NULL)
        return AC_ENOMEM;
    if (c == 1) {
        for (size_t i = n; i-- > 0;) {
            tail += r->ahead[i];
            coef[i] = tail;
        }
        r->head = 0.0;
    } else {
        const double rr = (double)c / (double)(c - 1);
        size_t nb = n > c ? n - c : 0; /* b_a = a_{a+c-1}, a = 1..nb (m up to n - 1) */
        r->head = 0.0;
        for (size_t m = 0; m < c && m < n; m++)
            r->head += r->ahead[m];
        for (size_t i = nb + 1; i-- > 0;) { /* coef_i = sum_{a > i} b_a first */
            coef[i] = tail;
            if (i >= 1)
                tail += r->ahead[i + c - 1];
        }
        for (size_t i = 1; i <= nb; i++) {
            d = d / rr + r->ahead[i + c - 1];
            coef[i] += d;
        }
    }
    r->coef = coef;
    r->ncoef = n + 1;
    return AC_OK;
}

double ac_solver_batch_ccdf(const ac_solver_batch_result *r, double t)
{
    const double mu = r->service_rate;
    if (t < 0.0 || r->overload)
        return 1.0;
    if (r->coef == NULL)
        return exp(-mu * t);
    return fmin(1.0, r->head * exp(-mu * t) +
                         poisson_sweep(r->coef, r->ncoef, (double)r->servers * mu * t));
}
