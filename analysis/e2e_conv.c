/*
 * End-to-end response time, the convolution of two laws on the lattice t_k = k h (models.md
 * §4; the walk that combines them is e2e_walk.c): a direct sum, one FFT, or overlap-add in
 * FFT blocks, whichever costs least; the last point's mass convolved exactly; the far tail
 * cut soundly (AC_E2E_TRIM); the work counted against AC_E2E_WORK_MAX and recorded for the
 * next lattice's size (ac_an_e2e_predict).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

#include "analysis/e2e_internal.h"

/* The last index holding mass, + 1. */
static size_t support(const double *p, size_t M)
{
    while (M > 0 && p[M - 1] == 0.0)
        M--;
    return M;
}

/* A new zeroed law of c->M points (caller frees), or NULL with c->oom set. */
double *ac_an_e2e_law_new(ac_an_e2e_ctx *c)
{
    double *p = calloc(c->M, sizeof *p);
    if (p == NULL)
        c->oom = 1;
    return p;
}

/* fa := fa * fb, spectra in GSL's half-complex layout of n points. */
static void spectrum_mul(double *fa, const double *fb, size_t n)
{
    fa[0] *= fb[0];
    fa[n / 2] *= fb[n / 2];
    for (size_t k = 1; k < n / 2; k++) {
        double ar = fa[k], ai = fa[n - k], br = fb[k], bi = fb[n - k];
        fa[k] = ar * br - ai * bi;
        fa[n - k] = ar * bi + ai * br;
    }
}

/* The cost of s (+) l by overlap-add on blocks of n points (a power of two >= ns + 1): one
 * forward transform of s, then a forward and an inverse per block of n - ns + 1 points of l
 * (5 n log2 n each). n >= ns + nl is the single-block FFT. */
static double ola_cost(size_t ns, size_t nl, size_t n)
{
    size_t blk = n - ns + 1, nblocks = (nl + blk - 1) / blk;
    return 5.0 * (double)n * log2((double)n) * (1.0 + 2.0 * (double)nblocks);
}

/*
 * r += s (+) l, indices >= M - 1 added to r[M - 1], by overlap-add (models.md §4): l cut into
 * blocks of B = n - ns + 1 points, each convolved with s by FFT over n points (GSL radix-2,
 * half-complex layout; s transformed once), r[start + j] += (block (+) s)[j]:
 *     s (+) l = sum_b s (+) l_b,   l_b = l restricted to [bB, bB + B).
 * Rounding leaves values of order 1e-17 that are clamped at 0. Returns 0, or -1 if GSL
 * fails or memory runs out (the caller then convolves directly).
 */
static int convolve_ola(const ac_an_e2e_ctx *c, const double *s, size_t ns, const double *l,
                        size_t nl, size_t n, double *r)
{
    size_t blk = n - ns + 1;
    double *fs = calloc(n, sizeof *fs), *fb = malloc(n * sizeof *fb);
    int rc = -1;
    if (fs == NULL || fb == NULL)
        goto cleanup;
    memcpy(fs, s, ns * sizeof *fs);
    if (gsl_fft_real_radix2_transform(fs, 1, n) != GSL_SUCCESS)
        goto cleanup;
    for (size_t start = 0; start < nl; start += blk) {
        size_t len = nl - start < blk ? nl - start : blk;
        memset(fb, 0, n * sizeof *fb);
        memcpy(fb, l + start, len * sizeof *fb);
        if (gsl_fft_real_radix2_transform(fb, 1, n) != GSL_SUCCESS)
            goto cleanup;
        spectrum_mul(fb, fs, n);
        if (gsl_fft_halfcomplex_radix2_inverse(fb, 1, n) != GSL_SUCCESS)
            goto cleanup;
        for (size_t j = 0; j < len + ns - 1; j++) {
            size_t k = start + j;
            r[k < c->M ? k : c->M - 1] += fb[j] > 0.0 ? fb[j] : 0.0;
        }
    }
    rc = 0;
cleanup:
    free(fs);
    free(fb);
    return rc;
}

/* The sum of p[0 .. n). */
static double mass(const double *p, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m += p[i];
    return m;
}

/* The work of s (+) l for supports ns <= nl (below the last point): the least of the direct
 * sum and overlap-add over blocks of n points; *n_out := that n, 0 for the direct sum. */
static double conv_cost(size_t ns, size_t nl, size_t *n_out)
{
    double best = (double)ns * (double)nl;
    *n_out = 0;
    for (size_t n = 2; n < 2 * (ns + nl); n *= 2)
        if (n >= ns + 1 && ola_cost(ns, nl, n) < best) {
            best = ola_cost(ns, nl, n);
            *n_out = n;
        }
    return best + (double)(ns + nl);
}

/* Record a convolution's supports, in seconds (the sizing's prediction). */
static void conv_record(ac_an_e2e_ctx *c, size_t ns, size_t nl)
{
    if (c->nconv == c->conv_cap) {
        size_t cap = c->conv_cap ? 2 * c->conv_cap : 256;
        double *t = realloc(c->conv_t, 2 * cap * sizeof *t);
        if (t == NULL) {
            c->oom = 1;
            return;
        }
        c->conv_t = t;
        c->conv_cap = cap;
    }
    c->conv_t[2 * c->nconv] = (double)ns * c->h;
    c->conv_t[2 * c->nconv + 1] = (double)nl * c->h;
    c->nconv++;
}

double ac_an_e2e_predict(const ac_an_e2e_ctx *c, double pass_work, size_t M, double L)
{
    double h = L / (double)(M - 1), w = 0.0;
    for (size_t k = 0; k < c->nconv; k++) {
        double ts = ceil(c->conv_t[2 * k] / h), tl = ceil(c->conv_t[2 * k + 1] / h);
        size_t n;
        w += conv_cost((size_t)fmin(ts, (double)(M - 1)), (size_t)fmin(tl, (double)(M - 1)), &n);
    }
    return w + fmax(0.0, pass_work - c->conv_work) * c->h / h;
}

/* Cut r's tail below the last point soundly: the points [k, M - 1) holding at most
 * AC_E2E_TRIM together (the far tail and the FFTs' rounding, ~1e-17 a point) move to the
 * last point on the ceiling lattice (later: still above the truth) and to k - 1 on the floor
 * lattice (earlier: still below it), so that the laws downstream of a node stay as short as
 * their mass and the next convolution's blocks few. Returns the mass moved earlier (floor),
 * or 0. */
static double trim_tail(const ac_an_e2e_ctx *c, double *r)
{
    size_t last = c->M - 1, k = last;
    double tail = 0.0;
    while (k > 1 && tail + r[k - 1] <= AC_E2E_TRIM) {
        tail += r[k - 1];
        k--;
    }
    if (k == last || !(tail > 0.0))
        return 0.0;
    memset(r + k, 0, (last - k) * sizeof *r);
    if (c->upper) {
        r[last] += tail;
        return 0.0;
    }
    r[k - 1] += tail;
    return tail;
}

/*
 * a := a (+) b, truncated to the lattice (the excess goes to the last point). The last
 * point's masses e_a, e_b stand at or beyond (M - 1) h, and so does everything they are
 * convolved with: with a = a' + e_a delta_{M-1} (a' its first M - 1 points, mass m_a),
 *     a (+) b = a' (+) b' + (e_a m_b + e_b m_a + e_a e_b) delta_{M-1}    (exactly),
 * so only the supports below the last point are convolved: directly when one is short, else
 * by FFT, in blocks (overlap-add) when one is much shorter than the other (a node's law
 * against the law downstream of it).
 */
double ac_an_e2e_convolve(ac_an_e2e_ctx *c, double *a, const double *b)
{
    double *r = ac_an_e2e_law_new(c);
    size_t last, na, nb, ns, nl, n;
    double ea, eb, ma, mb, cost, cut;
    const double *s, *l;
    if (r == NULL)
        return 0.0;
    last = c->M - 1;
    ea = a[last];
    eb = b[last];
    na = support(a, last);
    nb = support(b, last);
    ma = mass(a, na);
    mb = mass(b, nb);
    s = na <= nb ? a : b;
    l = na <= nb ? b : a;
    ns = na <= nb ? na : nb;
    nl = na <= nb ? nb : na;
    cost = conv_cost(ns, nl, &n);
    c->work += cost;
    c->conv_work += cost;
    conv_record(c, ns, nl);
    r[last] = ea * mb + eb * ma + ea * eb;
    if (ns > 0 && (n == 0 || convolve_ola(c, s, ns, l, nl, n, r) != 0)) {
        memset(r, 0, last * sizeof *r);
        r[last] = ea * mb + eb * ma + ea * eb;
        for (size_t i = 0; i < na; i++) {
            double ai = a[i], beyond = 0.0;
            size_t jn = nb < last - i ? nb : last - i; /* i + j < last */
            if (ai == 0.0)
                continue;
            for (size_t j = 0; j < jn; j++)
                r[i + j] += ai * b[j];
            for (size_t j = jn; j < nb; j++)
                beyond += b[j];
            r[last] += ai * beyond;
        }
    }
    cut = trim_tail(c, r);
    memcpy(a, r, c->M * sizeof *a);
    free(r);
    return cut;
}
