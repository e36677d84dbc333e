/*
 * End-to-end response time, the walk (models.md §4): the nodes' and links' response-time
 * laws on the lattice t_k = k h, and their combination along the routes.
 *
 * Each law is discretised twice, by rounding down (T' = floor(T/h) h <= T) and by
 * rounding up (T'' = ceil(T/h) h >= T), so that sums stay on the lattice (c->upper says
 * which). From node n, the time until the request's work there and downstream is done is
 *     D(n) = S_n (+) [ sum_r p_r B_r + (1 - sum_r p_r) delta_0 ]  max  (parallel branches)
 * with (+) the convolution, `max` of independent laws the product of their CDFs,
 * and B_r = L_r (+) D(to) for a route r (L_r its link: the M/D/1 or M/D/1/K wait, the
 * transmission 1/capacity and the latency, solver/link.c; a full buffer's loss lowers the
 * success). A route with fanout k sends k parallel jobs that a later route with fanin k
 * joins: B_r = max_k(D'(to)) (+) D(join), where D' stops at the fan-in. The success
 * probability follows the same recursion.
 *
 * The recursion over the routes is iterative: a dry run on a one-point lattice finds every
 * (node, mode) the walk needs, in an order where each comes after what it needs, and how
 * often each is read; the passes then compute them in that order and release each law after
 * its last read. The work (lattice operations) is counted against AC_E2E_WORK_MAX.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>

#include "analysis/e2e_internal.h"
#include "archcheck/batch.h"

typedef struct law {
    double *p;        /* the time law */
    double success;   /* probability that the work succeeds */
    size_t depth;     /* floor lattice: the true time is below the law's + depth steps (the laws
                         discretised on the way: a step each, the sum along a path, the most of
                         a mixture or a maximum) ... */
    double eps;       /* ... but for at most this mass (placed early by a cut: tables and tails
                         cut short), wherever it lies */
    size_t depth_min; /* the fewest laws discretised on a path (= depth: all paths alike) */
} law;

/* A law exists when the node was solved to a steady state with a finite mean response (a
 * function polled at saturation, say, reports an infinite one: no law to combine). */
int ac_node_analysis_has_law(const ac_node_analysis *na)
{
    return na->analysed && !na->overload && isfinite(na->mean_response_time) &&
           !(na->function != NULL && na->function->overload) &&
           !(na->queue != NULL && na->queue->overload) &&
           (na->pool != NULL || na->function != NULL || na->queue != NULL || na->gateway != NULL ||
            na->arrival_queue != NULL);
}

static double node_cdf(const ac_node_analysis *na, double t);

/* P(Erlang(k, 1) <= x), the regularised incomplete gamma (GSL; an underflow is 0). */
static double erlang_cdf(double k, double x)
{
    gsl_sf_result r;
    int st = gsl_sf_gamma_inc_P_e(k, x, &r);
    if (st != GSL_SUCCESS && st != GSL_EUNDRFLW)
        return x > k ? 1.0 : 0.0; /* beyond GSL's range: the law's bulk is at k */
    return isfinite(r.val) ? fmin(1.0, fmax(0.0, r.val)) : 0.0;
}

/* Does the node's law come from the QNA pass (a pool fed by a renewal stream)? */
int ac_an_e2e_qna_law(const ac_node_analysis *na)
{
    return na->pool != NULL && (na->qna_exact || (na->qna && na->qna_wait_factor != 1.0));
}

/* P(T <= t) for the time a request spends at the node (t = 0: the atom at 0): the law the
 * node reports (a pool fed by a bursty stream: its GI/M/1 or QNA law; `tab` the quadrature of
 * the latter, NULL to allocate one). */
static double node_cdf_q(const ac_node_analysis *na, const gsl_integration_glfixed_table *tab,
                         double t)
{
    if (t > 0.0 && ac_an_e2e_qna_law(na)) {
        double f;
        if (tab != NULL)
            return 1.0 - ac_an_qna_ccdf(na, tab, t);
        tab = gsl_integration_glfixed_table_alloc(64);
        if (tab == NULL)
            return NAN;
        f = 1.0 - ac_an_qna_ccdf(na, tab, t);
        gsl_integration_glfixed_table_free((gsl_integration_glfixed_table *)(uintptr_t)tab);
        return f;
    }
    return node_cdf(na, t);
}

/* P(T <= t) for the time a request spends at the node (t = 0: the atom at 0), the node's
 * solver's law. */
static double node_cdf(const ac_node_analysis *na, double t)
{
    if (t < 0.0)
        return 0.0;
    if (na->gateway != NULL)
        return 1.0;
    if (na->arrival_queue != NULL) {
        /* closed network: sum_j pi(j) P(Erlang(j + 1, mu) <= t) */
        double f = 0.0;
        if (t == 0.0)
            return 0.0;
        for (size_t j = 0; j < na->arrival_queue_n; j++)
            if (na->arrival_queue[j] > 0.0)
                f +=
                    na->arrival_queue[j] * erlang_cdf((double)j + 1.0, na->closed_service_rate * t);
        return fmin(1.0, f);
    }
    if (na->function != NULL)
        return ac_solver_function_cdf(na->function, t);
    if (na->queue != NULL)
        return ac_solver_queue_cdf(na->queue, t);
    if (t == 0.0)
        return 0.0;
    if (na->batch != NULL) /* behind a fan-out: the batch-arrival law (solver/batch.c) */
        return 1.0 - ac_solver_batch_ccdf(na->batch, t);
    return 1.0 - ac_solver_pool_ccdf(na->pool, na->pool->operating, t);
}

double ac_node_analysis_ccdf(const ac_node_analysis *na, double t)
{
    if (!ac_node_analysis_has_law(na))
        return NAN;
    return t < 0.0 ? 1.0 : 1.0 - node_cdf_q(na, NULL, t);
}

static double node_cdf_cb(const void *ctx, double t)
{
    return node_cdf_q(ctx, NULL, t);
}

/* The lattice's callback: the node and the quadrature table of the QNA laws. */
typedef struct node_cb {
    const ac_node_analysis *na;
    const gsl_integration_glfixed_table *tab;
} node_cb;

static double lattice_cdf_cb(const void *ctx, double t)
{
    const node_cb *cb = ctx;
    return node_cdf_q(cb->na, cb->tab, t);
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
    if (na->pool != NULL && na->batch == NULL && !ac_an_e2e_qna_law(na))
        return ac_solver_pool_quantile(na->pool, na->pool->operating, p, 0, out, err);
    return ac_solver_law_quantile(node_cdf_cb, na, p, out, err);
}

/* The fraction of the requests through node i that end failed there. A polled function's
 * failed executions are redelivered by its queue, whose dead letters are the loss. */
static double request_loss(const ac_node_analysis *na)
{
    return na->polled ? 0.0 : na->loss_probability;
}

/* F(kh) for k = 0..n-1 into a new table (caller frees), until 1 - F < 1e-15 (the rest of
 * the law is below rounding) or k = M. NULL when out of memory. */
static double *cdf_table(ac_an_e2e_ctx *c, double (*cdf)(const void *, double), const void *ctx,
                         size_t *n)
{
    size_t cap = 64, k = 0;
    double *t = malloc(cap * sizeof *t), prev = 0.0;
    while (t != NULL) {
        double f = fmin(1.0, fmax(prev, cdf(ctx, (double)k * c->h)));
        if (k == cap) {
            double *t2 = realloc(t, 2 * cap * sizeof *t);
            if (t2 == NULL) {
                free(t);
                t = NULL;
                break;
            }
            t = t2;
            cap *= 2;
        }
        t[k++] = f;
        prev = f;
        c->work += 50.0;
        if (1.0 - f < 1e-15 || k > c->M)
            break;
    }
    if (t == NULL)
        c->oom = 1;
    *n = k;
    return t;
}

/* Discretise the law of table T (F(kh), k < n) shifted by `shift` points into p (zeroed):
 * floor lattice p[k] = F((k+1)h) - F(kh) (the atom at 0 in p[0]), ceiling lattice
 * p[k] = F(kh) - F((k-1)h). The mass beyond the table goes to the next point (floor: still
 * below the true time) or to the last one ("at least", ceiling), as does the mass beyond the
 * lattice. Returns the mass the floor lattice placed early (beyond the table, not on the
 * last point), 0 on the ceiling lattice. */
static double discretise(const ac_an_e2e_ctx *c, const double *T, size_t n, size_t shift, double *p)
{
    double prev = 0.0;
    size_t k = 0;
    for (; k + shift < c->M; k++) {
        size_t at = c->upper ? k : k + 1;
        double f;
        if (at >= n)
            break;
        f = T[at];
        p[k + shift] = f - prev;
        prev = f;
    }
    if (prev < 1.0) {
        size_t at = c->upper || k + shift >= c->M ? c->M - 1 : k + shift;
        p[at] += 1.0 - prev;
        /* beyond the table's last point: where, the table does not say (F's atom at 0 is
           at 0 when the table stops there) */
        return at == c->M - 1 ? 0.0 : fmin(1.0 - prev, fmax(0.0, 1.0 - T[n - 1]));
    }
    return 0.0;
}

/* Node i's table F(kh) on the current lattice, computed once per lattice and kept while the
 * cache holds fewer than AC_E2E_CACHE_MAX values (else the caller frees it: *owned = 1). */
static const double *node_table(ac_an_e2e_ctx *c, size_t i, size_t *n, int *owned)
{
    double *t;
    *owned = 0;
    if (c->cache[i] != NULL && c->cache_h[i] == c->h) {
        *n = c->cache_n[i];
        return c->cache[i];
    }
    {
        node_cb cb;
        cb.na = &c->a->nodes[i];
        cb.tab = c->tab;
        t = cdf_table(c, lattice_cdf_cb, &cb, n);
    }
    if (t == NULL)
        return NULL;
    if (c->cached + *n <= AC_E2E_CACHE_MAX) {
        if (c->cache[i] != NULL)
            c->cached -= c->cache_n[i];
        free(c->cache[i]);
        c->cache[i] = t;
        c->cache_n[i] = *n;
        c->cache_h[i] = c->h;
        c->cached += *n;
    } else {
        *owned = 1;
    }
    return t;
}

/* Law p conditioned on T <= limit (the end-to-end time is that of the successful requests,
 * and a gateway's 504s are the requests whose work outlasts its timeout): the points beyond
 * the limit (floor lattice kh > limit, ceiling (k-1)h >= limit) dropped, the rest rescaled. */
static void condition_on_time(const ac_an_e2e_ctx *c, double *p, double limit)
{
    double kept = 0.0;
    size_t k = 0;
    for (; k < c->M && (double)k * c->h <= limit + (c->upper ? c->h : 0.0); k++)
        kept += p[k];
    if (!(kept > 0.0) || k >= c->M)
        return;
    for (size_t i = 0; i < k; i++)
        p[i] /= kept;
    memset(p + k, 0, (c->M - k) * sizeof *p);
}

/* 1 when all the work reachable from node n is synchronous (no queue, no async function):
 * then the time after n is the time a gateway at n measures against its timeout. An
 * iterative walk (stack of nodes, each pushed once). */
static int all_sync(ac_an_e2e_ctx *c, size_t n)
{
    const ac_model *m = c->m;
    unsigned char *seen = calloc(m->nnodes, 1);
    size_t *stack = malloc(m->nnodes * sizeof *stack), top = 0;
    int ok = 1;
    if (seen == NULL || stack == NULL) {
        c->oom = 1;
        ok = 0;
        goto cleanup;
    }
    stack[top++] = n;
    seen[n] = 1;
    while (top > 0 && ok) {
        size_t i = stack[--top];
        const ac_node *nd = &m->nodes[i];
        if (nd->kind == AC_NODE_QUEUE ||
            (nd->kind == AC_NODE_FUNCTION && nd->u.function.invocation == AC_INVOCATION_ASYNC))
            ok = 0;
        for (size_t q = c->rstart[i]; q < c->rstart[i + 1]; q++) {
            size_t to = m->routes[c->ridx[q]].to;
            c->work += 1.0;
            if (m->routes[c->ridx[q]].from == i && !seen[to]) {
                seen[to] = 1;
                stack[top++] = to;
            }
        }
    }
cleanup:
    free(seen);
    free(stack);
    return ok;
}

/* The node's law on the lattice; *eps := the mass the floor lattice placed early. */
static double *node_law(ac_an_e2e_ctx *c, size_t i, double *eps)
{
    double *p;
    const ac_node_analysis *na = &c->a->nodes[i];
    if (!ac_node_analysis_has_law(na)) {
        c->failed = 1;
        return NULL;
    }
    p = ac_an_e2e_law_new(c);
    if (p == NULL)
        return NULL;
    if (na->gateway != NULL) {
        p[0] = 1.0; /* admission takes no time */
    } else {
        size_t n;
        int owned;
        const double *t = node_table(c, i, &n, &owned);
        if (t == NULL) {
            free(p);
            return NULL;
        }
        *eps = discretise(c, t, n, 0, p);
        if (owned)
            free((void *)(uintptr_t)t);
    }
    return p;
}

static const ac_solver_link_result *find_link(const ac_an_e2e_ctx *c, size_t from, size_t to)
{
    for (size_t l = 0; l < c->m->nlinks; l++)
        if (c->m->links[l].from == from && c->m->links[l].to == to)
            return &c->links[l];
    return NULL;
}

static double link_cdf_cb(const void *ctx, double t)
{
    return t < 0.0 ? 0.0 : ac_solver_link_cdf(ctx, t);
}

/* A link's law on the lattice: the traversal T = W + 1/c + latency of an accepted job
 * (M/D/1 or M/D/1/K, solver/link.c), discretised as a node's law (into out->p, its depth
 * and eps; none: an exact 0); *success := the share the buffer accepts. */
static double *link_law(ac_an_e2e_ctx *c, size_t from, size_t to, double *success, law *out)
{
    const ac_solver_link_result *l = find_link(c, from, to);
    double *p = ac_an_e2e_law_new(c);
    *success = 1.0;
    if (p == NULL)
        return NULL;
    if (l == NULL) {
        p[0] = 1.0;
        return p;
    }
    if (l->overload || !c->links_ok) {
        c->failed = 1;
        p[0] = 1.0;
        return p;
    }
    *success = 1.0 - l->loss_probability;
    {
        size_t n;
        double *t = cdf_table(c, link_cdf_cb, l, &n);
        if (t == NULL) {
            free(p);
            return NULL;
        }
        out->eps = discretise(c, t, n, 0, p);
        out->depth = out->depth_min = 1;
        free(t);
    }
    return p;
}

/* a := law of max(X_1..X_k) for k iid copies of a. */
static void max_iid(ac_an_e2e_ctx *c, double *a, size_t k)
{
    double cum = 0.0, prev = 0.0;
    c->work += (double)c->M;
    for (size_t i = 0; i < c->M; i++) {
        double f;
        cum += a[i];
        f = pow(fmin(cum, 1.0), (double)k);
        a[i] = f - prev;
        prev = f;
    }
}

/* The k jobs of a fan-out share the node they reach (and its queue): their times are
 * associated (non-decreasing functions of the same queue and service times), so
 * P(max <= t) lies between the iid product F^k (what max_iid computes: an upper bound of
 * the time) and F itself. The gap between the two, in the mean and in the largest quantile
 * shift, is stated as a further error of the end to end. */
static void fanout_gap(ac_an_e2e_ctx *c, const double *one, const double *iid)
{
    double m1 = 0.0, mk = 0.0, c1 = 0.0, ck = 0.0, shift = 0.0;
    size_t i1 = 0;
    for (size_t i = 0; i < c->M; i++) {
        m1 += (double)i * c->h * one[i];
        mk += (double)i * c->h * iid[i];
    }
    /* sup over p in [0.01, 0.999] of q_p(iid) - q_p(one), on the lattice */
    for (size_t i = 0; i < c->M; i++) {
        ck += iid[i];
        if (ck < 0.01)
            continue;
        while (i1 < c->M && c1 + one[i1] < fmin(ck, 0.999)) {
            c1 += one[i1];
            i1++;
        }
        if (i1 < c->M)
            shift = fmax(shift, ((double)i - (double)i1) * c->h);
        if (ck >= 0.999)
            break;
    }
    c->fan_mean_gap += fmax(0.0, mk - m1);
    c->fan_q_gap += shift;
}

/* a := law of max(A, B) for independent A ~ a and B ~ b. */
static void max_indep(ac_an_e2e_ctx *c, double *a, const double *b)
{
    double ca = 0.0, cb = 0.0, prev = 0.0;
    c->work += (double)c->M;
    for (size_t i = 0; i < c->M; i++) {
        double f;
        ca += a[i];
        cb += b[i];
        f = fmin(ca, 1.0) * fmin(cb, 1.0);
        a[i] = f - prev;
        prev = f;
    }
}

static law walk(ac_an_e2e_ctx *c, size_t n, int mode, size_t *join);
static law branch(ac_an_e2e_ctx *c, const ac_route *r, int stop_at_fanin, size_t *join)
{
    double through = 1.0; /* the link's buffer may lose the job */
    law out = {NULL, 1.0, 0, 0.0, 0};
    out.p = link_law(c, r->from, r->to, &through, &out);
    if (out.p == NULL)
        return out;
    out.success = through;
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
        {
            double *one = ac_an_e2e_law_new(c);
            if (one != NULL)
                memcpy(one, inner.p, c->M * sizeof *one);
            max_iid(c, inner.p, r->fanout);
            if (one != NULL)
                fanout_gap(c, one, inner.p);
            free(one);
        }
        out.eps += fmin(1.0, (double)r->fanout * inner.eps) + ac_an_e2e_convolve(c, out.p, inner.p);
        out.depth += inner.depth;
        out.depth_min += inner.depth_min;
        out.success = pow(through * inner.success, (double)r->fanout);
        free(inner.p);
        if (inner_join != AC_NONE) {
            law after = walk(c, inner_join, stop_at_fanin, join);
            if (after.p == NULL) {
                free(out.p);
                out.p = NULL;
                return out;
            }
            out.eps += after.eps + ac_an_e2e_convolve(c, out.p, after.p);
            out.depth += after.depth;
            out.depth_min += after.depth_min;
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
        out.eps += d.eps + ac_an_e2e_convolve(c, out.p, d.p);
        out.depth += d.depth;
        out.depth_min += d.depth_min;
        out.success = through * d.success;
        free(d.p);
    }
    return out;
}

/* P(the synchronous work after gateway n takes longer than T): the routes out of n mixed
 * by probability, each walked in WALK_SYNC mode. */
static double sync_late(ac_an_e2e_ctx *c, size_t n, double T)
{
    double late = 0.0;
    for (size_t q = c->rstart[n]; q < c->rstart[n + 1]; q++) {
        const ac_route *r = &c->m->routes[c->ridx[q]];
        size_t join = AC_NONE;
        law b;
        if (r->from != n)
            continue;
        b = branch(c, r, WALK_SYNC, &join);
        if (b.p == NULL)
            return 0.0;
        for (size_t i = 0; i < c->M; i++)
            if ((double)i * c->h > T) /* floor: surely late; ceiling: possibly late */
                late += (r->parallel ? 1.0 : r->p) * b.p[i];
        free(b.p);
    }
    return fmin(1.0, late);
}

static law walk_compute(ac_an_e2e_ctx *c, size_t n, int stop_at_fanin, size_t *join)
{
    law out = {NULL, 1.0, 0, 0.0, 0};
    double *next = NULL, exit_w = 1.0, succ = 0.0, next_eps = 0.0;
    size_t next_depth = 0, next_min = SIZE_MAX;
    const ac_node_analysis *na = &c->a->nodes[n];
    if (c->failed || c->oom)
        return out;
    if (c->work > AC_E2E_WORK_MAX) {
        c->over_budget = 1;
        return out;
    }
    if (stop_at_fanin == WALK_SYNC &&
        (c->m->nodes[n].kind == AC_NODE_QUEUE ||
         (c->m->nodes[n].kind == AC_NODE_FUNCTION &&
          c->m->nodes[n].u.function.invocation == AC_INVOCATION_ASYNC && !na->polled))) {
        out.p = ac_an_e2e_law_new(c); /* answered at once */
        if (out.p != NULL)
            out.p[0] = 1.0;
        return out;
    }
    out.p = node_law(c, n, &out.eps);
    out.depth = out.depth_min = na->gateway != NULL ? 0 : 1; /* admission: an exact 0 */
    next = ac_an_e2e_law_new(c);
    if (out.p == NULL || next == NULL)
        goto fail;
    for (size_t q = c->rstart[n]; q < c->rstart[n + 1]; q++) {
        const ac_route *r = &c->m->routes[c->ridx[q]];
        law b;
        if (r->from != n || r->parallel)
            continue;
        b = branch(c, r, stop_at_fanin, join);
        if (b.p == NULL)
            goto fail;
        for (size_t i = 0; i < c->M; i++)
            next[i] += r->p * b.p[i];
        next_depth = b.depth > next_depth ? b.depth : next_depth;
        next_min = b.depth_min < next_min ? b.depth_min : next_min;
        next_eps += r->p * b.eps;
        succ += r->p * b.success;
        exit_w -= r->p;
        free(b.p);
    }
    if (exit_w > 0.0 || next_min == SIZE_MAX)
        next_min = 0; /* leaving here: an exact 0 */
    if (exit_w > 0.0) {
        next[0] += exit_w;
        succ += exit_w;
    }
    for (size_t q = c->rstart[n]; q < c->rstart[n + 1]; q++) {
        const ac_route *r = &c->m->routes[c->ridx[q]];
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
        next_depth = b.depth > next_depth ? b.depth : next_depth;
        if (r->p < 1.0)
            next_min = 0; /* not taken: an exact 0 */
        else if (b.depth_min < next_min)
            next_min = b.depth_min;
        next_eps += r->p * b.eps;
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
    out.eps = fmin(1.0, out.eps + next_eps + ac_an_e2e_convolve(c, out.p, next));
    out.depth += next_depth;
    out.depth_min += next_min;
    if (na->gateway != NULL && isfinite(c->m->nodes[n].u.gateway.timeout) && succ > 0.0 &&
        all_sync(c, n))
        condition_on_time(c, out.p, c->m->nodes[n].u.gateway.timeout);
    out.success = (1.0 - request_loss(na)) * succ;
    free(next);
    return out;
fail:
    free(out.p);
    free(next);
    out.p = NULL;
    return out;
}

/* D(n) in `mode`, read from the pairs computed before it (in the order of the dry run). The
 * last read of a law hands it over; earlier reads copy it. The dry run reports a pair not
 * computed yet in c->missing (the caller computes it first) and a pair in progress as a
 * cycle. */
static law walk(ac_an_e2e_ctx *c, size_t n, int mode, size_t *join)
{
    size_t x = n * WALK_MODES + (size_t)mode;
    law out = {NULL, 1.0, 0, 0.0, 0};
    if (c->failed || c->oom || c->over_budget)
        return out;
    x = c->rep[x]; /* a pair that computes the same law (itself in the dry run) */
    if (c->state[x] != 2) {
        if (c->state[x] == 1 || !c->dry)
            c->failed = 1; /* a cycle (the routes return to a node in progress) */
        else if (c->missing == AC_NONE)
            c->missing = x;
        return out;
    }
    if (c->counting)
        c->uses[x]++;
    if (!c->dry && !c->counting && --c->left[x] == 0) {
        out.p = c->memo[x]; /* the last read */
        c->memo[x] = NULL;
        c->state[x] = 3;
    } else {
        out.p = ac_an_e2e_law_new(c);
        if (out.p == NULL)
            return out;
        memcpy(out.p, c->memo[x], c->M * sizeof *out.p);
    }
    out.success = c->memo_success[x];
    out.depth = c->memo_depth[x];
    out.depth_min = c->memo_depth_min[x];
    out.eps = c->memo_eps[x];
    if (c->memo_join[x] != AC_NONE)
        *join = c->memo_join[x];
    return out;
}

/* Compute pair x into the memo. Returns 1 when done, 0 when it needs c->missing first or
 * failed (c->failed, c->oom, c->over_budget say which). */
static int compute_pair(ac_an_e2e_ctx *c, size_t x)
{
    size_t j = AC_NONE;
    law l;
    c->missing = AC_NONE;
    l = walk_compute(c, x / WALK_MODES, (int)(x % WALK_MODES), &j);
    if (l.p == NULL || c->missing != AC_NONE || c->failed || c->oom || c->over_budget) {
        free(l.p);
        return 0;
    }
    c->memo[x] = l.p;
    c->memo_success[x] = l.success;
    c->memo_depth[x] = l.depth;
    c->memo_depth_min[x] = l.depth_min;
    c->memo_eps[x] = l.eps;
    c->memo_join[x] = j;
    c->state[x] = 2;
    return 1;
}

static void memo_reset(ac_an_e2e_ctx *c)
{
    for (size_t x = 0; x < c->npairs; x++) {
        free(c->memo[x]);
        c->memo[x] = NULL;
        c->state[x] = 0;
        c->memo_join[x] = AC_NONE;
    }
}

/* The dry run (a one-point lattice): depth first from each root with an explicit stack,
 * each pair computed once everything it reads is; records that order. Then a replay in that
 * order counts the reads of each pair. Returns 0, or -1 (c->failed / c->oom). */
int ac_an_e2e_plan(ac_an_e2e_ctx *c, const size_t *roots, size_t nroots)
{
    size_t top = 0;
    c->M = 1;
    c->h = 1.0;
    c->upper = 1;
    c->dry = 1;
    c->norder = 0;
    for (size_t x = 0; x < c->npairs; x++)
        c->rep[x] = x;
    memo_reset(c);
    for (size_t r = 0; r < nroots && !c->failed && !c->oom; r++) {
        size_t x0 = roots[r] * WALK_MODES + WALK_ALL;
        if (c->state[x0] == 2)
            continue;
        c->stack[top++] = x0;
        while (top > 0) {
            size_t x = c->stack[top - 1];
            c->state[x] = 1;
            if (compute_pair(c, x)) {
                c->order[c->norder++] = x;
                top--;
            } else if (c->missing != AC_NONE && !c->failed && !c->oom) {
                c->stack[top++] = c->missing; /* a pair not seen before: at most npairs */
            } else {
                break;
            }
        }
    }
    if (c->failed || c->oom || ac_an_e2e_share(c) != 0)
        return -1;
    memo_reset(c);
    c->dry = 0;
    c->counting = 1;
    memset(c->uses, 0, c->npairs * sizeof *c->uses);
    for (size_t k = 0; k < c->norder; k++)
        if (c->rep[c->order[k]] == c->order[k] && !compute_pair(c, c->order[k]))
            return -1;
    c->pass_depth = 0;
    c->pass_depth_min = SIZE_MAX;
    for (size_t r = 0; r < nroots; r++) {
        size_t j = AC_NONE;
        law l = walk(c, roots[r], WALK_ALL, &j);
        c->pass_depth = l.depth > c->pass_depth ? l.depth : c->pass_depth;
        c->pass_depth_min = l.depth_min < c->pass_depth_min ? l.depth_min : c->pass_depth_min;
        free(l.p);
    }
    c->counting = 0;
    memo_reset(c);
    return c->failed || c->oom ? -1 : 0;
}

/* One pass on the lattice (c->M, c->h, c->upper): every pair in order, then the roots mixed
 * by weight into mix (M points, zeroed here) and the success probability. Returns 0, or -1
 * (c->failed, c->oom or c->over_budget). */
int ac_an_e2e_run_pass(ac_an_e2e_ctx *c, const size_t *roots, const double *w, size_t nroots,
                       double *mix, double *succ)
{
    double total = 0.0;
    memo_reset(c);
    c->fan_mean_gap = c->fan_q_gap = 0.0;
    c->nconv = 0;
    c->conv_work = 0.0;
    memcpy(c->left, c->uses, c->npairs * sizeof *c->left);
    memset(mix, 0, c->M * sizeof *mix);
    *succ = 0.0;
    c->pass_depth = 0;
    c->pass_depth_min = SIZE_MAX;
    c->pass_eps = 0.0;
    for (size_t k = 0; k < c->norder; k++)
        if (c->rep[c->order[k]] == c->order[k] && !compute_pair(c, c->order[k]))
            return -1;
    for (size_t r = 0; r < nroots; r++) {
        size_t j = AC_NONE;
        law l = walk(c, roots[r], WALK_ALL, &j);
        if (l.p == NULL)
            return -1;
        for (size_t k = 0; k < c->M; k++)
            mix[k] += w[r] * l.p[k];
        *succ += w[r] * l.success;
        c->pass_depth = l.depth > c->pass_depth ? l.depth : c->pass_depth;
        c->pass_depth_min = l.depth_min < c->pass_depth_min ? l.depth_min : c->pass_depth_min;
        c->pass_eps += w[r] * l.eps;
        total += w[r];
        free(l.p);
    }
    for (size_t k = 0; k < c->M; k++)
        mix[k] /= total;
    *succ /= total;
    c->pass_eps = fmin(1.0, c->pass_eps / total);
    memo_reset(c);
    return 0;
}

/* Every link of m at its flow into a new array *out (ac_an_e2e_links_free); *ok := every link
 * solved and none overloaded. Returns 0 or AC_ENOMEM. */
int ac_an_e2e_links_solve(const ac_model *m, const ac_analysis *a, ac_solver_link_result **out,
                          int *ok)
{
    *ok = 1;
    *out = calloc(m->nlinks > 0 ? m->nlinks : 1, sizeof **out);
    if (*out == NULL)
        return AC_ENOMEM;
    for (size_t l = 0; l < m->nlinks; l++) {
        ac_error e2 = {0};
        int rc = ac_an_link_solve(m, a, l, &(*out)[l], &e2);
        if (rc == AC_ENOMEM)
            return rc;
        if (rc != AC_OK || (*out)[l].overload)
            *ok = 0;
    }
    return AC_OK;
}

void ac_an_e2e_links_free(const ac_model *m, ac_solver_link_result *links)
{
    for (size_t l = 0; links != NULL && l < m->nlinks; l++)
        ac_solver_link_result_clear(&links[l]);
    free(links);
}

int ac_an_e2e_ctx_init(ac_an_e2e_ctx *c, const ac_model *m, const ac_analysis *a)
{
    size_t n = m->nnodes > 0 ? m->nnodes : 1;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->a = a;
    c->npairs = n * WALK_MODES;
    c->missing = AC_NONE;
    c->state = calloc(c->npairs, 1);
    c->memo = calloc(c->npairs, sizeof *c->memo);
    c->memo_success = calloc(c->npairs, sizeof *c->memo_success);
    c->memo_depth = calloc(c->npairs, sizeof *c->memo_depth);
    c->memo_depth_min = calloc(c->npairs, sizeof *c->memo_depth_min);
    c->memo_eps = calloc(c->npairs, sizeof *c->memo_eps);
    c->memo_join = malloc(c->npairs * sizeof *c->memo_join);
    c->uses = calloc(c->npairs, sizeof *c->uses);
    c->left = calloc(c->npairs, sizeof *c->left);
    c->order = malloc(c->npairs * sizeof *c->order);
    c->stack = malloc((c->npairs + 1) * sizeof *c->stack);
    c->rep = malloc(c->npairs * sizeof *c->rep);
    c->cache = calloc(n, sizeof *c->cache);
    c->cache_n = calloc(n, sizeof *c->cache_n);
    c->cache_h = calloc(n, sizeof *c->cache_h);
    c->tab = gsl_integration_glfixed_table_alloc(64);
    if (c->cache == NULL || c->cache_n == NULL || c->cache_h == NULL || c->tab == NULL)
        return AC_ENOMEM;
    if (c->state == NULL || c->memo == NULL || c->memo_success == NULL || c->memo_join == NULL ||
        c->memo_depth == NULL || c->memo_depth_min == NULL || c->memo_eps == NULL ||
        c->uses == NULL || c->left == NULL || c->order == NULL || c->stack == NULL ||
        c->rep == NULL)
        return AC_ENOMEM;
    for (size_t x = 0; x < c->npairs; x++) {
        c->memo_join[x] = AC_NONE;
        c->rep[x] = x;
    }
    c->rstart = calloc(n + 1, sizeof *c->rstart);
    c->ridx = malloc((m->nroutes + 1) * sizeof *c->ridx);
    if (c->rstart == NULL || c->ridx == NULL)
        return AC_ENOMEM;
    for (size_t k = 0; k < m->nroutes; k++)
        c->rstart[m->routes[k].from + 1]++;
    for (size_t i = 0; i < n; i++)
        c->rstart[i + 1] += c->rstart[i];
    {
        size_t *fill = c->left; /* scratch, zeroed later */
        memcpy(fill, c->rstart, n * sizeof *fill);
        for (size_t k = 0; k < m->nroutes; k++)
            c->ridx[fill[m->routes[k].from]++] = k;
        memset(c->left, 0, c->npairs * sizeof *c->left);
    }
    return ac_an_e2e_links_solve(m, a, &c->links, &c->links_ok);
}

void ac_an_e2e_ctx_free(ac_an_e2e_ctx *c)
{
    for (size_t x = 0; c->memo != NULL && x < c->npairs; x++)
        free(c->memo[x]);
    free(c->state);
    free(c->memo);
    free(c->memo_success);
    free(c->memo_depth);
    free(c->memo_depth_min);
    free(c->memo_eps);
    free(c->memo_join);
    free(c->uses);
    free(c->left);
    free(c->order);
    free(c->stack);
    free(c->rep);
    for (size_t i = 0; c->cache != NULL && i < c->m->nnodes; i++)
        free(c->cache[i]);
    free(c->cache);
    free(c->cache_n);
    free(c->cache_h);
    if (c->tab != NULL)
        gsl_integration_glfixed_table_free(c->tab);
    free(c->rstart);
    free(c->ridx);
    free(c->conv_t);
    ac_an_e2e_links_free(c->m, c->links);
}

/* What the lattice is asked: the entry nodes with their weights, and the scales that size it
 * (the end-to-end mean and the mean number of visits per request). */
