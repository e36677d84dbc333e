/*
 * Response-time laws: mixtures of Erlang laws of one rate, their CCDF and quantiles.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_gamma.h>

#include "solver/pool.h"

int ac_solver_mix_init(ac_solver_mix *mx, double rate, const double *w, size_t n, ac_error *err)
{
    double acc = 0.0, mean = 0.0;
    size_t i;
    mx->rate = rate;
    mx->n = n;
    mx->closed = 0;
    mx->tail = malloc((n ? n : 1) * sizeof *mx->tail);
    if (mx->tail == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (response-time law)");
    /* tail[i] = sum_{m > i} w_m, accumulated from the end for accuracy */
    for (i = n; i-- > 0;) {
        mx->tail[i] = acc;
        acc += w[i] > 0.0 ? w[i] : 0.0;
    }
    if (acc > 0.0 && fabs(acc - 1.0) > 0.0) {
        for (i = 0; i < n; i++)
            mx->tail[i] /= acc;
    }
    for (i = 0; i < n; i++)
        mean += mx->tail[i];
    mx->mean = rate > 0.0 ? mean / rate : 0.0;
    return 0;
}

/*
 * Unbounded M/M/N: W = 0 with probability 1 - C, else Exp(gamma), gamma = N mu - lambda;
 * T = W + S, S ~ Exp(mu). E[W] = C / gamma, E[T] = E[W] + 1 / mu. The same laws as the
 * Erlang mixtures of rate N mu (a service is a Geometric(1/N) number of Exp(N mu) phases),
 * without their ~39 N phases.
 */
void ac_solver_mix_init_mmn(ac_solver_mix *mx, double C, double gamma, double mu, double rate,
                            int response)
{
    mx->rate = rate;
    mx->n = 0;
    mx->tail = NULL;
    mx->closed = response ? 2 : 1;
    mx->c = C;
    mx->gamma = gamma;
    mx->mu = mu;
    mx->mean = C / gamma + (response ? 1.0 / mu : 0.0);
}

/*
 * P(W + S > t) = (1 - C) e^{-mu t} + C (gamma e^{-mu t} - mu e^{-gamma t}) / (gamma - mu)
 *              = e^{-mu t} (1 + C mu t phi((gamma - mu) t)),  phi(x) = (1 - e^{-x}) / x,
 * the second form (expm1: no cancellation as gamma -> mu) while |gamma - mu| t <= 1, the
 * first beyond (its two exponentials then differ by a factor e or more).
 */
static double mmn_ccdf(const ac_solver_mix *mx, double t)
{
    double d = mx->gamma - mx->mu, x, v;
    if (mx->closed == 1)
        return t > 0.0 ? mx->c * exp(-mx->gamma * t) : mx->c;
    if (!(t > 0.0))
        return 1.0;
    x = d * t;
    if (fabs(x) <= 1.0) {
        double phi = x == 0.0 ? 1.0 : -expm1(-x) / x;
        v = exp(-mx->mu * t) * (1.0 + mx->c * mx->mu * t * phi);
    } else {
        v = (1.0 - mx->c) * exp(-mx->mu * t) +
            mx->c * (mx->gamma * exp(-mx->mu * t) - mx->mu * exp(-mx->gamma * t)) / d;
    }
    return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

void ac_solver_mix_clear(ac_solver_mix *mx)
{
    if (mx == NULL)
        return;
    free(mx->tail);
    mx->tail = NULL;
    mx->n = 0;
    mx->closed = 0;
}

/*
 * Pois(j; x) for j >= 0, x >= 1, without the cancellation of -x + j log x - log j!: with
 * log j! = (j + 1/2) log j - j + log sqrt(2 pi) + log Gamma*(j) (GSL's gammastar) and
 * f = x - j, log Pois(j; x) = j log1p(f / j) - f - log sqrt(2 pi j) - log Gamma*(j). Every
 * part is O(1 + |f|): relative error <= (10 + 3 |f|) u (u = 2^-53; gammastar 2 u, log1p,
 * exp, sqrt and the arithmetic 1 u each, the exponent's absolute error 3 |f| u).
 */
static double pois_at(size_t j, double x)
{
    gsl_sf_result g;
    double jd = (double)j, f = x - jd;
    if (j == 0)
        return exp(-x);
    if (gsl_sf_gammastar_e(jd, &g) != GSL_SUCCESS || !(g.val > 0.0))
        return exp(-x + jd * log(x) - lgamma(jd + 1.0));
    return exp(jd * log1p(f / jd) - f) / (sqrt(6.283185307179586 * jd) * g.val);
}

/*
 * The sum of the CCDF for x = r t >= 700, outward from j0 = min(floor x, n - 2) (the Poisson
 * mode, or the last term with a weight past it): one exp in all, then the ratios
 * p_{i-1} = p_i i / x down and p_{i+1} = p_i x / (i + 1) up. Below i the terms sum to less
 * than p_i i / (x - i) (ratios <= i / x, tail <= 1); past i (> x) to less than
 * term_i q / (1 - q), q = x / (i + 1) (ratios <= q, tail non-increasing): each side stops
 * once that is below 2^-60 s. Relative error, against the exact sum of the given tails:
 * <= (12 + 3 |x - j0| + 2 D + N) u + 2^-59, D the largest |i - j0| summed, N the terms summed
 * (p_{j0}; two roundings per step; the products and the sum), plus N 2^-1074 absolute
 * (subnormal terms). The stopping tests run once per AC_MIX_BLOCK terms: the terms summed
 * past the first point where a test holds are each below 2^-60 s, under half an ulp of s, so
 * they leave the sum's bits as they are (same value as a test after every term).
 */
#define AC_MIX_BLOCK 8

static double ccdf_large(const ac_solver_mix *mx, double x)
{
    const double *tail = mx->tail;
    size_t last = mx->n - 2, j0, i, stop;
    double p0, p, s, term = 0.0, di;
    j0 = floor(x) < (double)last ? (size_t)floor(x) : last;
    p0 = pois_at(j0, x);
    s = p0 * tail[j0];
    p = p0;
    /* (di: i as a double, exact) */
    for (i = j0, di = (double)j0; i > 0;) {
        for (stop = i > AC_MIX_BLOCK ? i - AC_MIX_BLOCK : 0; i > stop; i--, di -= 1.0) {
            p *= di / x;
            s += p * tail[i - 1];
        }
        /* the terms below index i sum to less than p i / (x - i) */
        if (p * di < 0x1p-60 * s * (x - di))
            break;
    }
    p = p0;
    for (i = j0 + 1, di = (double)i; i <= last;) {
        for (stop = last - i >= AC_MIX_BLOCK ? i + AC_MIX_BLOCK : last + 1; i < stop;
             i++, di += 1.0) {
            p *= x / di;
            term = p * tail[i];
            s += term;
        }
        /* past the last term (index i - 1) the rest is below term q / (1 - q), q = x / i:
           term x < 2^-60 s (i - x) */
        if (di > x && term * x < 0x1p-60 * s * (di - x))
            break;
    }
    return s > 1.0 ? 1.0 : s;
}

/*
 * P(X > t) = sum_m w_m P(Erlang(m, r) > t) = sum_i Pois(i; r t) tail_i,
 * since P(Erlang(m, r) > t) = sum_{i < m} Pois(i; r t).
 * x = r t < 700: from i = 0 by the recurrence. Past the Poisson mode (i > r t) the terms only
 * fall (Pois(i) falls, tail_i never rises, and their computed values with them: each step
 * multiplies by x / (i + 1) < 1): once a term is below 2^-55 s, it and every later one is
 * below half an ulp of s and would leave the sum as it is, so the sum stops there with the
 * same bits as the full one (tested before each block of AC_MIX_BLOCK terms: the terms of a
 * block past that point leave the bits as they are too). Relative error, against the exact
 * sum of the given tails: <= (2 + 2 I + N) u, I the last index summed, N the terms summed
 * (e^{-x} 1 u, two roundings per step, the product and the sum of positive terms), plus
 * N 2^-1074 absolute (subnormal terms; e^{-x} itself is normal for x < 700).
 * x >= 700 (e^{-x} would underflow): ccdf_large, from the mode.
 */
double ac_solver_mix_ccdf(const ac_solver_mix *mx, double t)
{
    const double *tail = mx->tail;
    double x, p, s = 0.0, d;
    size_t i, end;
    if (mx->closed)
        return mmn_ccdf(mx, t);
    if (!(t > 0.0))
        return mx->n > 0 ? mx->tail[0] : 0.0;
    if (mx->n < 2)
        return 0.0;
    x = mx->rate * t;
    if (x >= 700.0)
        return ccdf_large(mx, x);
    /* Poisson terms by recurrence, p_{i+1} = p_i x / (i + 1): one exp in all; up to the mode
       every term is summed */
    p = exp(-x);
    end = floor(x) + 1.0 < (double)(mx->n - 1) ? (size_t)floor(x) + 1 : mx->n - 1;
    /* (d: i + 1 as a double, exact) */
    for (i = 0, d = 1.0; i < end; i++, d += 1.0) {
        s += p * tail[i];
        p *= x / d;
    }
    /* past it a block of AC_MIX_BLOCK terms at a time, once the next term is >= 2^-55 s */
    while (i + 1 < mx->n && !(p * tail[i] < 0x1p-55 * s)) {
        end = mx->n - 1 - i > AC_MIX_BLOCK ? i + AC_MIX_BLOCK : mx->n - 1;
        for (; i < end; i++, d += 1.0) {
            s += p * tail[i];
            p *= x / d;
        }
    }
    return s > 1.0 ? 1.0 : s;
}

typedef struct quantile_ctx {
    const ac_solver_mix *mx;
    double target;
} quantile_ctx;

static double quantile_fn(double t, void *p)
{
    const quantile_ctx *c = p;
    return ac_solver_mix_ccdf(c->mx, t) - c->target;
}

/* The p-quantile: the t with P(X > t) = 1 - p (0 when P(X > 0) <= 1 - p); Brent's method. */
int ac_solver_mix_quantile(const ac_solver_mix *mx, double p, double *out, ac_error *err)
{
    quantile_ctx ctx;
    gsl_function F;
    gsl_root_fsolver *s = NULL;
    double lo = 0.0, hi;
    int rc = 0, status, iter = 0;
    if (!(p > 0.0 && p < 1.0))
        return ac_error_set(err, AC_EINVAL, "quantile level %g is not in (0, 1)", p);
    ctx.mx = mx;
    ctx.target = 1.0 - p;
    if (ac_solver_mix_ccdf(mx, 0.0) <= ctx.target) {
        *out = 0.0;
        return 0;
    }
    hi = mx->mean > 0.0 ? mx->mean : 1.0 / mx->rate;
    while (ac_solver_mix_ccdf(mx, hi) > ctx.target) {
        lo = hi;
        hi *= 2.0;
        if (++iter > 2000)
            return ac_error_set(err, AC_ENUMERIC, "quantile %g: no upper bracket", p);
    }
    F.function = quantile_fn;
    F.params = &ctx;
    s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (root solver)");
    status = gsl_root_fsolver_set(s, &F, lo, hi);
    if (status != GSL_SUCCESS) {
        rc = ac_error_set(err, AC_ENUMERIC, "quantile %g: %s", p, gsl_strerror(status));
        goto cleanup;
    }
    for (iter = 0; iter < 300; iter++) {
        status = gsl_root_fsolver_iterate(s);
        if (status != GSL_SUCCESS) {
            rc = ac_error_set(err, AC_ENUMERIC, "quantile %g: %s", p, gsl_strerror(status));
            goto cleanup;
        }
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
                                        0.0, 1e-14);
        if (status == GSL_SUCCESS)
            break;
    }
    *out = gsl_root_fsolver_root(s);
cleanup:
    gsl_root_fsolver_free(s);
    return rc;
}

void ac_solver_rtd_free(ac_solver_rtd *r)
{
    if (r == NULL)
        return;
    ac_solver_mix_clear(&r->wait);
    ac_solver_mix_clear(&r->response);
    free(r);
}

/* A server queue: k jobs ahead => W ~ Erlang(k, mu), T ~ Erlang(k + 1, mu). */
int ac_solver_rtd_queue(double mu, const double *pi, size_t n, ac_solver_rtd **out, ac_error *err)
{
    ac_solver_rtd *r = calloc(1, sizeof *r);
    double *w = malloc((n + 1) * sizeof *w);
    int rc = 0;
    size_t k;
    if (r == NULL || w == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (response-time law)");
        goto cleanup;
    }
    rc = ac_solver_mix_init(&r->wait, mu, pi, n, err);
    if (rc < 0)
        goto cleanup;
    w[0] = 0.0;
    for (k = 0; k < n; k++)
        w[k + 1] = pi[k];
    rc = ac_solver_mix_init(&r->response, mu, w, n + 1, err);
    if (rc < 0)
        goto cleanup;
    *out = r;
    r = NULL;
cleanup:
    free(w);
    ac_solver_rtd_free(r);
    return rc;
}

/* P(Erlang(k, r) <= t) = 1 - sum_{i < k} Pois(i; r t), k = 1..n. */
void ac_solver_erlang_cdf_levels(double rate, double t, size_t n, double *out)
{
    double x = rate * t, lx, lp, q = 0.0;
    size_t k;
    if (!(x > 0.0)) {
        for (k = 0; k < n; k++)
            out[k] = 0.0;
        return;
    }
    lx = log(x);
    lp = -x;
    for (k = 0; k < n; k++) {
        if (k > 0)
            lp += lx - log((double)k);
        q += exp(lp);
        out[k] = q >= 1.0 ? 0.0 : 1.0 - q;
    }
}

/* The response law of equilibrium eq, or NULL. */
static const ac_solver_mix *pool_law(const ac_solver_pool_result *r, size_t eq)
{
    if (r == NULL || eq >= r->nequilibria || r->equilibria[eq].rtd == NULL)
        return NULL;
    return &r->equilibria[eq].rtd->response;
}

static uint64_t law_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* Exact comparison: the closed M/M/N parameters, or the rate and the tail weights. */
int ac_solver_pool_law_equal(const ac_solver_pool_result *a, size_t ea,
                             const ac_solver_pool_result *b, size_t eb)
{
    const ac_solver_mix *x = pool_law(a, ea), *y = pool_law(b, eb);
    if (x == NULL || y == NULL || x->closed != y->closed ||
        law_bits(x->rate) != law_bits(y->rate) || x->n != y->n)
        return 0;
    if (x->closed)
        return law_bits(x->c) == law_bits(y->c) && law_bits(x->gamma) == law_bits(y->gamma) &&
               law_bits(x->mu) == law_bits(y->mu);
    return x->n == 0 || memcmp(x->tail, y->tail, x->n * sizeof *x->tail) == 0;
}

/* FNV-1a (with a shift) over the law's words, then its tail weights. */
uint64_t ac_solver_pool_law_hash(const ac_solver_pool_result *result, size_t eq)
{
    const ac_solver_mix *mx = pool_law(result, eq);
    uint64_t w[6], h = 1469598103934665603ULL;
    if (mx == NULL)
        return 0;
    w[0] = (uint64_t)mx->closed;
    w[1] = law_bits(mx->rate);
    w[2] = (uint64_t)mx->n;
    w[3] = law_bits(mx->c);
    w[4] = law_bits(mx->gamma);
    w[5] = law_bits(mx->mu);
    for (size_t i = 0; i < 6; i++) {
        h ^= w[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    for (size_t k = 0; !mx->closed && k < mx->n; k++)
        h = (h ^ law_bits(mx->tail[k])) * 1099511628211ULL;
    return h;
}
