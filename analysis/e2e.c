/*
 * End-to-end response time (models.md §4): the nodes' response-time laws
 * combined along the routes on a lattice t_k = k h, k = 0..M-1.
 *
 * Each law is discretised to point masses at the lattice points,
 * P(T = kh) ~ F(kh + h/2) - F(kh - h/2), so that sums stay on the lattice
 * (no drift). From node n, the time until the request's work there and
 * downstream is done is
 *     D(n) = S_n (+) [ sum_r p_r B_r + (1 - sum_r p_r) delta_0 ]  max  (parallel branches)
 * with (+) the convolution, `max` of independent laws the product of their CDFs,
 * and B_r = L_r (+) D(to) for a route r (L_r its link: an M/M/1 sojourn at the
 * link's capacity plus its latency). A route with fanout k sends k parallel jobs
 * that a later route with fanin k joins: B_r = max_k(D'(to)) (+) D(join), where
 * D' stops at the fan-in. The sources' laws are mixed by rate.
 *
 * The success probability follows the same recursion; the mean is exact by visit
 * ratios (sum_i v_i E[T_i]) when there is no fan-out or parallel branch, and
 * from the lattice otherwise. A cycle of routes leaves only the mean.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_halfcomplex.h>
#include <gsl/gsl_fft_real.h>

#include "analysis/internal.h"

#define AC_E2E_M 2048      /* the least lattice, a power of two: the FFT pads to 2M */
#define AC_E2E_M_MAX 32768 /* the most: a long tail (redeliveries, back-offs) and fast nodes */

typedef struct e2e_ctx {
    const ac_model *m;
    const ac_analysis *a;
    double h;
    size_t M;
    unsigned char *onstack;
    double **memo[3];    /* memo[mode][n]: D(n) computed once (owned) */
    double *memo_success[3];
    size_t *memo_join[3];
    int failed;  /* a cycle or an unanalysable node */
    int oom;
} e2e_ctx;

/* The last index holding mass, + 1. */
static size_t support(const double *p, size_t M)
{
    while (M > 0 && p[M - 1] == 0.0)
        M--;
    return M;
}

static double *law_new(e2e_ctx *c)
{
    double *p = calloc(c->M, sizeof *p);
    if (p == NULL)
        c->oom = 1;
    return p;
}

int ac_node_analysis_has_law(const ac_node_analysis *na)
{
    return na->analysed && !na->overload &&
           (na->pool != NULL || na->function != NULL || na->queue != NULL || na->gateway != NULL);
}

/* P(T <= t) for the time a request spends at the node. */
static double node_cdf(const ac_node_analysis *na, double t)
{
    if (t <= 0.0)
        return 0.0;
    if (na->function != NULL)
        return ac_solver_function_cdf(na->function, t);
    if (na->queue != NULL)
        return ac_solver_queue_cdf(na->queue, t);
    if (na->gateway != NULL)
        return 1.0;
    return 1.0 - ac_solver_pool_ccdf(na->pool, na->pool->operating, t);
}

double ac_node_analysis_ccdf(const ac_node_analysis *na, double t)
{
    if (!ac_node_analysis_has_law(na))
        return NAN;
    return t < 0.0 ? 1.0 : 1.0 - node_cdf(na, t);
}

static double node_cdf_cb(const void *ctx, double t)
{
    return node_cdf(ctx, t);
}

int ac_node_analysis_quantile(const ac_node_analysis *na, double p, double *out, ac_error *err)
{
    *out = NAN;
    if (!ac_node_analysis_has_law(na))
        return ac_error_set(err, AC_EINVAL, "the node has no response-time law");
    if (na->gateway != NULL && p > 0.0 && p < 1.0) {
        *out = 0.0;
        return AC_OK;
    }
    if (na->pool != NULL)
        return ac_solver_pool_quantile(na->pool, na->pool->operating, p, 0, out, err);
    return ac_solver_law_quantile(node_cdf_cb, na, p, out, err);
}

/* The fraction of the requests through node i that end failed there. A polled function's
 * failed executions are redelivered by its queue, whose dead letters are the loss. */
static double request_loss(const ac_node_analysis *na)
{
    return na->polled ? 0.0 : na->loss_probability;
}

/* The node's law on the lattice. */
static double *node_law(e2e_ctx *c, size_t i)
{
    double *p;
    const ac_node_analysis *na = &c->a->nodes[i];
    double prev = 0.0;
    if (!ac_node_analysis_has_law(na)) {
        c->failed = 1;
        return NULL;
    }
    p = law_new(c);
    if (p == NULL)
        return NULL;
    for (size_t k = 0; k < c->M; k++) {
        double f = node_cdf(na, ((double)k + 0.5) * c->h);
        p[k] = f - prev;
        prev = f;
        if (1.0 - f < 1e-15)
            break; /* the rest of the law is below rounding */
    }
    p[c->M - 1] += 1.0 - prev; /* the tail beyond the lattice */
    return p;
}

static const ac_link *find_link(const ac_model *m, size_t from, size_t to)
{
    for (size_t l = 0; l < m->nlinks; l++)
        if (m->links[l].from == from && m->links[l].to == to)
            return &m->links[l];
    return NULL;
}

/* A link's law: latency plus an exponential sojourn at rate capacity - flow. */
static double *link_law(e2e_ctx *c, size_t from, size_t to)
{
    const ac_link *l = find_link(c->m, from, to);
    double *p = law_new(c);
    double rate, prev = 0.0;
    size_t shift;
    if (p == NULL)
        return NULL;
    if (l == NULL) {
        p[0] = 1.0;
        return p;
    }
    shift = (size_t)floor(l->latency / c->h + 0.5);
    if (shift >= c->M)
        shift = c->M - 1;
    if (isinf(l->capacity)) {
        p[shift] = 1.0;
        return p;
    }
    rate = l->capacity - ac_an_link_flow(c->m, c->a, from, to);
    if (!(rate > 0.0)) {
        c->failed = 1;
        p[shift] = 1.0;
        return p;
    }
    for (size_t k = 0; k + shift < c->M; k++) {
        double f = 1.0 - exp(-rate * ((double)k + 0.5) * c->h);
        p[k + shift] = f - prev;
        prev = f;
    }
    p[c->M - 1] += 1.0 - prev;
    return p;
}

/* r := a (+) b by FFT: both padded to 2M (a power of two), transformed (GSL radix-2,
 * half-complex layout), multiplied, transformed back; rounding leaves values of order
 * 1e-17 that are clamped at 0. Returns 0, or -1 if GSL fails (the caller then convolves
 * directly). */
static int convolve_fft(e2e_ctx *c, const double *a, const double *b, double *r)
{
    size_t n = 2 * c->M;
    double *fa = calloc(n, sizeof *fa), *fb = calloc(n, sizeof *fb);
    int rc = -1;
    if (fa == NULL || fb == NULL)
        goto cleanup;
    memcpy(fa, a, c->M * sizeof *fa);
    memcpy(fb, b, c->M * sizeof *fb);
    if (gsl_fft_real_radix2_transform(fa, 1, n) != GSL_SUCCESS ||
        gsl_fft_real_radix2_transform(fb, 1, n) != GSL_SUCCESS)
        goto cleanup;
    fa[0] *= fb[0];
    fa[n / 2] *= fb[n / 2];
    for (size_t k = 1; k < n / 2; k++) {
        double ar = fa[k], ai = fa[n - k], br = fb[k], bi = fb[n - k];
        fa[k] = ar * br - ai * bi;
        fa[n - k] = ar * bi + ai * br;
    }
    if (gsl_fft_halfcomplex_radix2_inverse(fa, 1, n) != GSL_SUCCESS)
        goto cleanup;
    for (size_t k = 0; k < n; k++) {
        double v = fa[k] > 0.0 ? fa[k] : 0.0;
        r[k < c->M ? k : c->M - 1] += v; /* the excess goes to the last point */
    }
    rc = 0;
cleanup:
    free(fa);
    free(fb);
    return rc;
}

/* a := a (+) b, truncated to the lattice (the excess goes to the last point). */
static void convolve(e2e_ctx *c, double *a, const double *b)
{
    double *r = law_new(c);
    size_t na, nb;
    if (r == NULL)
        return;
    na = support(a, c->M);
    nb = support(b, c->M);
    if (na > 64 && nb > 64 && convolve_fft(c, a, b, r) == 0) {
        memcpy(a, r, c->M * sizeof *a);
        free(r);
        return;
    }
    memset(r, 0, c->M * sizeof *r);
    for (size_t i = 0; i < na; i++) {
        if (a[i] == 0.0)
            continue;
        for (size_t j = 0; j < nb; j++) {
            size_t k = i + j < c->M ? i + j : c->M - 1;
            r[k] += a[i] * b[j];
        }
    }
    memcpy(a, r, c->M * sizeof *a);
    free(r);
}

/* a := law of max(X_1..X_k) for k iid copies of a. */
static void max_iid(e2e_ctx *c, double *a, size_t k)
{
    double cum = 0.0, prev = 0.0;
    for (size_t i = 0; i < c->M; i++) {
        double f;
        cum += a[i];
        f = pow(fmin(cum, 1.0), (double)k);
        a[i] = f - prev;
        prev = f;
    }
}

/* a := law of max(A, B) for independent A ~ a and B ~ b. */
static void max_indep(e2e_ctx *c, double *a, const double *b)
{
    double ca = 0.0, cb = 0.0, prev = 0.0;
    for (size_t i = 0; i < c->M; i++) {
        double f;
        ca += a[i];
        cb += b[i];
        f = fmin(ca, 1.0) * fmin(cb, 1.0);
        a[i] = f - prev;
        prev = f;
    }
}

typedef struct law {
    double *p;      /* the time law */
    double success; /* probability that the work succeeds */
} law;

/* The walk's modes: the whole work of the request; stop at a fan-in (the jobs of a fan-out
 * up to their join); and the synchronous part only, whose end is when a caller gets its
 * answer (a queue or an async function answers at once: the work behind it goes on). */
enum { WALK_ALL = 0, WALK_STOP_AT_FANIN = 1, WALK_SYNC = 2 };

static law walk(e2e_ctx *c, size_t n, int stop_at_fanin, size_t *join);
static law walk_compute(e2e_ctx *c, size_t n, int stop_at_fanin, size_t *join);

/* The law of following route r. */
static law branch(e2e_ctx *c, const ac_route *r, int stop_at_fanin, size_t *join)
{
    law out = {link_law(c, r->from, r->to), 1.0};
    if (out.p == NULL)
        return out;
    if (r->fanin > 1 && stop_at_fanin == WALK_STOP_AT_FANIN) {
        *join = r->to; /* the fan-in joins the jobs: the caller continues from there */
        return out;
    }
    if (r->fanout > 1) {
        size_t inner_join = AC_NONE;
        law inner = walk(c, r->to, stop_at_fanin == WALK_SYNC ? WALK_SYNC : WALK_STOP_AT_FANIN,
                         &inner_join);
        if (inner.p == NULL) {
            free(out.p);
            out.p = NULL;
            return out;
        }
        max_iid(c, inner.p, r->fanout);
        convolve(c, out.p, inner.p);
        out.success = pow(inner.success, (double)r->fanout);
        free(inner.p);
        if (inner_join != AC_NONE) {
            law after = walk(c, inner_join, stop_at_fanin, join);
            if (after.p == NULL) {
                free(out.p);
                out.p = NULL;
                return out;
            }
            convolve(c, out.p, after.p);
            out.success *= after.success;
            free(after.p);
        }
        return out;
    }
    {
        law d = walk(c, r->to, stop_at_fanin, join);
        if (d.p == NULL) {
            free(out.p);
            out.p = NULL;
            return out;
        }
        convolve(c, out.p, d.p);
        out.success = d.success;
        free(d.p);
    }
    return out;
}

/* P(the synchronous work after gateway n takes longer than T): the routes out of n mixed
 * by probability, each walked in WALK_SYNC mode. */
static double sync_late(e2e_ctx *c, size_t n, double T)
{
    double late = 0.0;
    for (size_t k = 0; k < c->m->nroutes; k++) {
        const ac_route *r = &c->m->routes[k];
        size_t join = AC_NONE;
        law b;
        if (r->from != n)
            continue;
        b = branch(c, r, WALK_SYNC, &join);
        if (b.p == NULL)
            return 0.0;
        for (size_t i = 0; i < c->M; i++)
            if (((double)i - 0.5) * c->h >= T)
                late += (r->parallel ? 1.0 : r->p) * b.p[i];
        free(b.p);
    }
    return fmin(1.0, late);
}

static law walk_compute(e2e_ctx *c, size_t n, int stop_at_fanin, size_t *join)
{
    law out = {NULL, 1.0};
    double *next = NULL, exit_w = 1.0, succ = 0.0;
    const ac_node_analysis *na = &c->a->nodes[n];
    if (c->failed || c->oom)
        return out;
    if (c->onstack[n]) {
        c->failed = 1; /* a cycle: only the mean is available */
        return out;
    }
    if (stop_at_fanin == WALK_SYNC &&
        (c->m->nodes[n].kind == AC_NODE_QUEUE ||
         (c->m->nodes[n].kind == AC_NODE_FUNCTION &&
          c->m->nodes[n].u.function.invocation == AC_INVOCATION_ASYNC && !na->polled))) {
        out.p = law_new(c); /* answered at once */
        if (out.p != NULL)
            out.p[0] = 1.0;
        return out;
    }
    c->onstack[n] = 1;
    out.p = node_law(c, n);
    next = law_new(c);
    if (out.p == NULL || next == NULL)
        goto fail;
    for (size_t k = 0; k < c->m->nroutes; k++) {
        const ac_route *r = &c->m->routes[k];
        law b;
        if (r->from != n || r->parallel)
            continue;
        b = branch(c, r, stop_at_fanin, join);
        if (b.p == NULL)
            goto fail;
        for (size_t i = 0; i < c->M; i++)
            next[i] += r->p * b.p[i];
        succ += r->p * b.success;
        exit_w -= r->p;
        free(b.p);
    }
    if (exit_w > 0.0) {
        next[0] += exit_w;
        succ += exit_w;
    }
    for (size_t k = 0; k < c->m->nroutes; k++) {
        const ac_route *r = &c->m->routes[k];
        law b;
        if (r->from != n || !r->parallel)
            continue;
        b = branch(c, r, stop_at_fanin, join);
        if (b.p == NULL)
            goto fail;
        for (size_t i = 0; i < c->M; i++)
            b.p[i] *= r->p;
        b.p[0] += 1.0 - r->p;
        max_indep(c, next, b.p);
        succ *= r->p * b.success + 1.0 - r->p;
        free(b.p);
    }
    if (na->gateway != NULL && isfinite(c->m->nodes[n].u.gateway.timeout)) {
        /* the gateway answers 504 when the synchronous work behind it outlasts its timeout */
        double late = sync_late(c, n, c->m->nodes[n].u.gateway.timeout);
        if (c->oom)
            goto fail;
        succ = fmax(0.0, succ - late);
    }
    convolve(c, out.p, next);
    out.success = (1.0 - request_loss(na)) * succ;
    free(next);
    c->onstack[n] = 0;
    return out;
fail:
    free(out.p);
    free(next);
    out.p = NULL;
    c->onstack[n] = 0;
    return out;
}

/* D(n), computed once per node and mode (diamonds in the routes would otherwise
 * recompute shared descendants exponentially often). Returns a copy. */
static law walk(e2e_ctx *c, size_t n, int stop_at_fanin, size_t *join)
{
    int s = stop_at_fanin;
    law out = {NULL, 1.0};
    if (c->memo[s][n] == NULL) {
        size_t j = AC_NONE;
        law l = walk_compute(c, n, stop_at_fanin, &j);
        if (l.p == NULL)
            return l;
        c->memo[s][n] = l.p;
        c->memo_success[s][n] = l.success;
        c->memo_join[s][n] = j;
    }
    out.p = law_new(c);
    if (out.p == NULL)
        return out;
    memcpy(out.p, c->memo[s][n], c->M * sizeof *out.p);
    out.success = c->memo_success[s][n];
    if (c->memo_join[s][n] != AC_NONE)
        *join = c->memo_join[s][n];
    return out;
}

/* Is there a fan-out or a parallel route? */
static int has_fanout(const ac_model *m)
{
    for (size_t k = 0; k < m->nroutes; k++)
        if (m->routes[k].fanout > 1 || m->routes[k].parallel || m->routes[k].fanin > 1)
            return 1;
    return 0;
}

/* A lattice long enough for the sum of every node's far tail. */
static double lattice_length(const ac_model *m, const ac_analysis *a)
{
    double total = 0.0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        double t = na->mean_response_time > 0.0 ? na->mean_response_time : 1e-6;
        if (!ac_node_analysis_has_law(na) || na->gateway != NULL)
            continue;
        while (1.0 - node_cdf(na, t) > 1e-9 && t < 1e9)
            t *= 1.5;
        total += t;
    }
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double rate = lk->capacity - ac_an_link_flow(m, a, lk->from, lk->to);
        total += lk->latency;
        if (!isinf(lk->capacity) && rate > 0.0)
            total += 21.0 / rate; /* e^-21 ~ 1e-9 */
    }
    return total > 0.0 ? total : 1.0;
}

void ac_an_e2e_clear(ac_end_to_end *e)
{
    free(e->grid_t);
    free(e->grid_ccdf);
    memset(e, 0, sizeof *e);
}

static double quantile(const double *cdf, size_t M, double h, double p)
{
    for (size_t k = 0; k < M; k++) {
        if (cdf[k] >= p) {
            double lo = k > 0 ? cdf[k - 1] : 0.0;
            double frac = cdf[k] > lo ? (p - lo) / (cdf[k] - lo) : 1.0;
            /* mass at kh spread over [kh - h/2, kh + h/2] */
            return fmax(0.0, ((double)k - 0.5 + frac) * h);
        }
    }
    return (double)M * h;
}

static int ctx_init(e2e_ctx *c, const ac_model *m, const ac_analysis *a)
{
    size_t n = m->nnodes > 0 ? m->nnodes : 1;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->a = a;
    c->M = AC_E2E_M;
    {
        /* a far tail (a redelivery after a visibility timeout, an async retry's back-off)
           stretches the lattice: when it is over four times the core of the law (three times
           the sum of the nodes' p99), the lattice grows until the core has the resolution
           of the least lattice */
        double len = lattice_length(m, a), core = 0.0;
        for (size_t i = 0; i < m->nnodes; i++)
            if (a->nodes[i].arrival_rate > 0.0 && a->nodes[i].p99 > 0.0 &&
                isfinite(a->nodes[i].p99))
                core += 3.0 * a->nodes[i].p99;
        while (c->M < AC_E2E_M_MAX && core > 0.0 && len > 4.0 * core &&
               len / (double)(c->M - 1) > core / (double)(AC_E2E_M - 1))
            c->M *= 2;
        c->h = len / (double)(c->M - 1);
    }
    c->onstack = calloc(n, 1);
    for (int s = 0; s < 3; s++) {
        c->memo[s] = calloc(n, sizeof *c->memo[s]);
        c->memo_success[s] = calloc(n, sizeof *c->memo_success[s]);
        c->memo_join[s] = malloc(n * sizeof *c->memo_join[s]);
        if (c->memo[s] == NULL || c->memo_success[s] == NULL || c->memo_join[s] == NULL)
            c->oom = 1;
    }
    return c->onstack == NULL || c->oom ? AC_ENOMEM : AC_OK;
}

static void ctx_free(e2e_ctx *c)
{
    for (int s = 0; s < 3; s++) {
        for (size_t i = 0; c->memo[s] != NULL && i < c->m->nnodes; i++)
            free(c->memo[s][i]);
        free(c->memo[s]);
        free(c->memo_success[s]);
        free(c->memo_join[s]);
    }
    free(c->onstack);
}

/* The percentiles and the published grid P(T > t) of a lattice law given by its CDF. */
static int store_law(const e2e_ctx *c, ac_analysis *a, const double *cdf, ac_error *err)
{
    a->e2e.percentiles = 1;
    a->e2e.p50 = quantile(cdf, c->M, c->h, 0.50);
    a->e2e.p95 = quantile(cdf, c->M, c->h, 0.95);
    a->e2e.p99 = quantile(cdf, c->M, c->h, 0.99);
    a->e2e.grid_t = malloc(c->M * sizeof *a->e2e.grid_t);
    a->e2e.grid_ccdf = malloc(c->M * sizeof *a->e2e.grid_ccdf);
    if (a->e2e.grid_t == NULL || a->e2e.grid_ccdf == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
    a->e2e.grid_n = c->M;
    for (size_t k = 0; k < c->M; k++) {
        a->e2e.grid_t[k] = (double)k * c->h;
        a->e2e.grid_ccdf[k] = fmax(0.0, 1.0 - cdf[k]);
    }
    return AC_OK;
}

/*
 * Percentiles of a closed workload (one <population>): MVA gives exact means but no
 * distributions. Each station's response law is taken from the open model of the pool at
 * the MVA arrival rate X v_i and combined on the lattice as for an open network. An open
 * station at the same throughput queues more than the closed one, so the stated error is
 * the gap between the lattice mean and the exact MVA mean, plus the lattice step; the
 * simulator settles a check that this error straddles.
 */
static int closed_percentiles(const ac_model *m, ac_analysis *a, ac_error *err)
{
    e2e_ctx c;
    size_t join = AC_NONE;
    law l = {NULL, 1.0};
    double cum = 0.0, mean = 0.0, max_err = 0.0, *cdf = NULL;
    int rc = AC_OK;
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0 && a->nodes[i].pool == NULL)
            return AC_OK; /* a station without a response law: no percentiles */
    if (has_fanout(m))
        return AC_OK;
    if (ctx_init(&c, m, a) != AC_OK) {
        ctx_free(&c);
        return ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
    }
    l = walk(&c, m->populations[0].to, 0, &join);
    cdf = malloc(c.M * sizeof *cdf);
    if (c.oom || cdf == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
        goto cleanup;
    }
    if (l.p == NULL)
        goto cleanup; /* a cycle: the mean only */
    for (size_t k = 0; k < c.M; k++) {
        cum += l.p[k];
        cdf[k] = cum;
        mean += (double)k * c.h * l.p[k];
    }
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0)
            max_err = fmax(max_err, a->nodes[i].expected_rel_error);
    rc = store_law(&c, a, cdf, err);
    a->e2e.expected_rel_error =
        max_err + fabs(mean - a->e2e.mean_response_time) / a->e2e.mean_response_time +
        c.h / fmax(a->e2e.p50, c.h);
cleanup:
    free(l.p);
    free(cdf);
    ctx_free(&c);
    return rc;
}

int ac_an_e2e_solve(const ac_model *m, ac_analysis *a, ac_error *err)
{
    e2e_ctx c;
    double *mix = NULL, *cdf = NULL, rate_total = 0.0, succ = 0.0, mean_visits = 0.0;
    double max_err = 0.0;
    int rc = AC_OK, mean_ok = 1;

    if (m->nsources == 0) {
        /* closed workloads: closed.c fills the means; the percentiles come from here */
        if (m->npopulations == 1 && a->e2e.available && !a->e2e.percentiles)
            return closed_percentiles(m, a, err);
        return AC_OK;
    }
    ac_an_e2e_clear(&a->e2e);
    rc = ctx_init(&c, m, a);
    mix = calloc(c.M, sizeof *mix);
    cdf = calloc(c.M, sizeof *cdf);
    if (rc != AC_OK || mix == NULL || cdf == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
        goto cleanup;
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        if (na->arrival_rate > 0.0 && (!na->analysed || na->overload))
            mean_ok = 0;
        if (na->arrival_rate > 0.0 && na->overload)
            a->e2e.unbounded = 1;
        if (na->arrival_rate > 0.0)
            max_err = fmax(max_err, na->expected_rel_error);
    }
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        if (!isinf(lk->capacity) && ac_an_link_flow(m, a, lk->from, lk->to) >= lk->capacity) {
            mean_ok = 0;
            a->e2e.unbounded = 1;
        }
    }
    for (size_t s = 0; s < m->nsources; s++) {
        size_t join = AC_NONE;
        law l;
        rate_total += m->sources[s].rate;
        l = walk(&c, m->sources[s].to, 0, &join);
        if (l.p == NULL)
            break;
        for (size_t k = 0; k < c.M; k++)
            mix[k] += m->sources[s].rate * l.p[k];
        succ += m->sources[s].rate * l.success;
        free(l.p);
    }
    if (c.oom) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
        goto cleanup;
    }
    if (!(rate_total > 0.0) || !mean_ok)
        goto cleanup;
    a->e2e.available = 1;
    a->e2e.expected_rel_error = max_err;
    a->e2e.mean_rel_error = max_err;
    /* the lattice combines the Poisson-arrival laws of the pools; where renewal arrivals
       changed a pool's numbers (QNA or GI/M/1), or the simulator gave them (jsq, jiq), the
       percentiles carry the change of its mean as a further error */
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        if (na->pool != NULL && na->mean_response_time > 0.0)
            max_err = fmax(max_err, fabs(na->mean_response_time -
                                         na->pool->kpi.mean_response_time) /
                                        na->mean_response_time +
                                    na->expected_rel_error);
    }
    /* the mean by visit ratios: sum_i (Lambda_i / gamma) E[T_i], exact without fan-out */
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0)
            mean_visits += a->nodes[i].arrival_rate * a->nodes[i].mean_response_time;
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double flow = ac_an_link_flow(m, a, lk->from, lk->to);
        double rate = lk->capacity - flow;
        mean_visits += flow * (lk->latency + (isinf(lk->capacity) ? 0.0 : 1.0 / rate));
    }
    a->e2e.mean_response_time = mean_visits / (rate_total * a->scale);
    if (c.failed) {
        /* a cycle: only the mean (and without fan-out: the visit-ratio mean is exact) */
        a->e2e.percentiles = 0;
        a->e2e.p50 = a->e2e.p95 = a->e2e.p99 = NAN;
        a->e2e.throughput = NAN;
        a->e2e.loss_probability = NAN;
        if (has_fanout(m))
            a->e2e.available = 0;
        goto cleanup;
    }
    {
        double cum = 0.0, mean = 0.0;
        for (size_t k = 0; k < c.M; k++) {
            mix[k] /= rate_total;
            cum += mix[k];
            cdf[k] = cum;
            mean += (double)k * c.h * mix[k];
        }
        rc = store_law(&c, a, cdf, err);
        if (rc != AC_OK)
            goto cleanup;
        if (has_fanout(m)) {
            a->e2e.mean_response_time = mean; /* from the lattice */
            a->e2e.mean_rel_error = max_err + c.h / fmax(mean, c.h);
        }
        a->e2e.loss_probability = 1.0 - succ / rate_total;
        a->e2e.throughput = succ * a->scale;
        /* the lattice adds up to half a step per node to a quantile */
        a->e2e.expected_rel_error = max_err + c.h / fmax(a->e2e.p50, c.h);
        /* the loss carries the nodes' errors; a gateway's 504s are read off the lattice,
           whose step moves the timeout by up to half a step: a relative change of the late
           mass of at most h over the shorter of the timeout and the mean */
        a->e2e.loss_rel_error = max_err;
        for (size_t i = 0; i < m->nnodes; i++)
            if (a->nodes[i].gateway != NULL && a->nodes[i].arrival_rate > 0.0 &&
                isfinite(m->nodes[i].u.gateway.timeout) && a->e2e.mean_response_time > 0.0) {
                double scale = fmin(m->nodes[i].u.gateway.timeout, a->e2e.mean_response_time);
                a->e2e.loss_rel_error =
                    fmax(a->e2e.loss_rel_error, max_err + c.h / fmax(scale, c.h));
            }
    }
cleanup:
    ctx_free(&c);
    free(mix);
    free(cdf);
    return rc;
}
