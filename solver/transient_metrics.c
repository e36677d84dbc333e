/*
 * The objective's metrics on the fluid transient (transient.h, models.md §5, §6): each
 * node's response law at every sample, its percentiles over time and over the horizon, the
 * end-to-end bound, the split of the failures into throttles and errors, and the backlog's
 * duration and drain time.
 *
 * The law of a job arriving at time t is the node's quasi-stationary law at its fluid state
 * then (ac_transient_node.law), T = a + c0 B + W + S:
 *   pools: the mean-field state q(t) gives the law a_k(q) by which an arrival joins a server
 *     holding k - 1 jobs (the dispatch policy's), so p_w = 1 - a_1 and E[W] = sum_k a_k (k -
 *     1) / mu; W is fitted as exponential with these two (exact for random dispatch at an
 *     equilibrium: M/M/1's wait), S ~ Exp(1/mu) (mu with the injected delay, as the ODE);
 *     shared-queue: the Erlang-C wait of M/M/N at the instantaneous load, or the fluid wait
 *     of the jobs queued when it dominates (below);
 *   functions: a = the injected delay (+ async and polled: the fluid FIFO wait u / starts of
 *     the attempts waiting), a cold start c0 with p_c = cold starts / starts at t, S =
 *     min(Exp(duration), timeout - delay); async and polled: the Erlang-C wait of C slots
 *     at the instantaneous executions x occupancy (pointwise stationary) unless the fluid
 *     wait is the larger (then the fluid wait alone: above saturation the backlog is the
 *     wait, and PSA has no steady state); a sync function's admitted requests do not wait;
 *   queues: the wait until a message is received: the fluid wait x / receive rate of the
 *     visible messages, or the Erlang-C wait of the consumer's min(M, C) slots (the steady
 *     model's, solver/queue.c) when it is the larger; redeliveries are not in the law;
 *   gateways: 0 (admitted requests pass at once; 429s are counted, 504s not modelled);
 *   links (transient_link.c): a = latency + 1/c + the fluid backlog / c, and the M/D/1 wait
 *     at the instantaneous load fitted as exponential with its P(W > 0) = rho and mean
 *     rho / (2 c (1 - rho)).
 * The approximation's error is measured against the simulator in tests/test_transient_
 * metrics.c (stated in doc/models.md). The time a job spends upstream is not taken into
 * account: every stage's law is the one of the same instant (quasi-stationary).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/serverless.h"
#include "solver/pool.h"
#include "solver/transient_internal.h"

#define LAW(l, ns, k, s) ((l)[(size_t)(k) * (ns) + (s)])
#define BISECT_MAX       200
#define BISECT_REL       1e-7
#define E2E_GRID         128 /* intervals of the end-to-end mixture's grid */

/* ---- the law ------------------------------------------------------------------------------ */

/* P(W + S > y), y >= 0: W = 0 w.p. 1 - pw, else Exp(g); S = min(Exp(1/sm), cap) (sm = 0:
 * S = 0). With m = min(y, cap), for W ~ Exp(g):
 *   P(W + S > y) = int_0^m mu e^{-mu s} e^{-g (y - s)} ds + P(S > y) [+ the atom at cap]. */
static inline double ws_ccdf(double pw, double g, double sm, double cap, double y)
{
    double mu, ps, m, part1, rest;
    if (!(sm > 0.0))
        return pw > 0.0 ? pw * exp(-g * y) : 0.0;
    mu = 1.0 / sm;
    ps = y < cap ? exp(-mu * y) : 0.0;
    if (!(pw > 0.0))
        return ps;
    m = fmin(y, cap);
    if (fabs(g - mu) * m < 1e-9)
        part1 = mu * m * exp(-g * y);
    else
        part1 = mu * (exp(-g * (y - m) - mu * m) - exp(-g * y)) / (g - mu);
    /* S > y (y < cap), or S at its cap and W > y - cap */
    rest = y < cap ? exp(-mu * y) : exp(-mu * cap - g * (y - cap));
    return (1.0 - pw) * ps + pw * fmin(1.0, part1 + rest);
}

/* P(T > x) for the law of parameters par[AC_TRANSIENT_LAW_*]. */
static inline double law_ccdf_at(const double *par, double x)
{
    double a = par[AC_TRANSIENT_LAW_SHIFT];
    double pc = par[AC_TRANSIENT_LAW_PCOLD], c0 = par[AC_TRANSIENT_LAW_COLD];
    double pw = par[AC_TRANSIENT_LAW_PWAIT], g = par[AC_TRANSIENT_LAW_WRATE];
    double sm = par[AC_TRANSIENT_LAW_SMEAN], cap = par[AC_TRANSIENT_LAW_SCAP];
    double y = x - a, warm, cold;
    warm = y < 0.0 ? 1.0 : ws_ccdf(pw, g, sm, cap, y);
    if (!(pc > 0.0))
        return warm;
    cold = y - c0 < 0.0 ? 1.0 : ws_ccdf(pw, g, sm, cap, y - c0);
    return (1.0 - pc) * warm + pc * cold;
}

/* Sample s's parameters into par. */
static inline void law_params(const double *law, size_t ns, size_t s, double *par)
{
    for (size_t k = 0; k < AC_TRANSIENT_LAW_NPAR; k++)
        par[k] = LAW(law, ns, k, s);
}

double ac_transient_law_ccdf(const double *law, size_t ns, size_t s, double x)
{
    double par[AC_TRANSIENT_LAW_NPAR];
    law_params(law, ns, s, par);
    return law_ccdf_at(par, x);
}

/* A point where P(T > x) <= (1 - p) / 2 at sample s (the union bound of the parts). */
static double law_upper(const double *law, size_t ns, size_t s, double p)
{
    double e = -log((1.0 - p) / 4.0);
    double hi = LAW(law, ns, AC_TRANSIENT_LAW_SHIFT, s) + LAW(law, ns, AC_TRANSIENT_LAW_COLD, s);
    double pw = LAW(law, ns, AC_TRANSIENT_LAW_PWAIT, s),
           g = LAW(law, ns, AC_TRANSIENT_LAW_WRATE, s);
    double sm = LAW(law, ns, AC_TRANSIENT_LAW_SMEAN, s);
    if (pw > 0.0 && g > 0.0)
        hi += e / g;
    if (sm > 0.0)
        hi += fmin(LAW(law, ns, AC_TRANSIENT_LAW_SCAP, s), e * sm);
    return hi;
}

double ac_transient_law_quantile(const double *law, size_t ns, size_t s, double p)
{
    double lo = LAW(law, ns, AC_TRANSIENT_LAW_SHIFT, s), hi = law_upper(law, ns, s, p);
    if (ac_transient_law_ccdf(law, ns, s, lo) <= 1.0 - p)
        return lo;
    for (int it = 0; it < BISECT_MAX && hi - lo > BISECT_REL * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (ac_transient_law_ccdf(law, ns, s, mid) > 1.0 - p)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Do samples s and r have the same law (every parameter, to the bit)? Then their ccdf
 * values are the same bits: the mixtures below compute one per run of equal laws (on
 * samples/faas-cascade.xml 4 of its 5 stages hold one law over all 401 samples, the
 * fan-out's over about a third of them). */
static int law_same(const double *law, size_t ns, size_t s, size_t r)
{
    for (size_t k = 0; k < AC_TRANSIENT_LAW_NPAR; k++)
        if (!(LAW(law, ns, k, s) == LAW(law, ns, k, r)))
            return 0;
    return 1;
}

#define MIX_STACK 512 /* samples whose weights mixture_quantile keeps on its stack */

/* mixture_quantile's bisection with the weights w (ws[k] at sample idx[k], nw of them,
 * their sum W) and fresh[k] when sample idx[k]'s law differs from idx[k - 1]'s: the same
 * operations in the same order as the loop over every sample (the same bits). */
static double mixture_bisect(const double *law, size_t ns, const double *ws, const size_t *idx,
                             const unsigned char *fresh, size_t nw, double W, double lo, double hi,
                             double p)
{
    for (int it = 0; it < BISECT_MAX && hi - lo > BISECT_REL * hi; it++) {
        double mid = 0.5 * (lo + hi), F = 0.0, c = 0.0;
        for (size_t k = 0; k < nw; k++) {
            if (fresh[k])
                c = ac_transient_law_ccdf(law, ns, idx[k], mid);
            F += ws[k] * c;
        }
        if (F > (1.0 - p) * W)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* The p-quantile of the mixture of the samples' laws with the trapezoids' weights
 * w_s = weight[s] (dt_{s-1} + dt_s) / 2; NAN when they sum to 0. Up to MIX_STACK samples
 * the weights and the runs of equal laws are found once (mixture_bisect), not at every
 * step of the bisection (655,000 instructions per call on faas-cascade's 401 samples). */
static double mixture_quantile(const double *law, const double *t, size_t ns, const double *weight,
                               double p)
{
    double ws[MIX_STACK];
    size_t idx[MIX_STACK], nw = 0;
    unsigned char fresh[MIX_STACK];
    double W = 0.0, lo = INFINITY, hi = 0.0;
    for (size_t s = 0; s < ns; s++) {
        double dt = (s > 0 ? t[s] - t[s - 1] : 0.0) + (s + 1 < ns ? t[s + 1] - t[s] : 0.0);
        double w = fmax(weight[s], 0.0) * 0.5 * dt;
        if (!(w > 0.0))
            continue;
        W += w;
        lo = fmin(lo, LAW(law, ns, AC_TRANSIENT_LAW_SHIFT, s));
        hi = fmax(hi, law_upper(law, ns, s, p));
        if (ns <= MIX_STACK) {
            fresh[nw] = nw == 0 || !law_same(law, ns, s, idx[nw - 1]);
            ws[nw] = w, idx[nw++] = s;
        }
    }
    if (!(W > 0.0))
        return NAN;
    if (ns <= MIX_STACK)
        return mixture_bisect(law, ns, ws, idx, fresh, nw, W, lo, hi, p);
    for (int it = 0; it < BISECT_MAX && hi - lo > BISECT_REL * hi; it++) {
        double mid = 0.5 * (lo + hi), F = 0.0, c = 0.0;
        size_t last = ns; /* the sample c was computed at */
        for (size_t s = 0; s < ns; s++) {
            double dt = (s > 0 ? t[s] - t[s - 1] : 0.0) + (s + 1 < ns ? t[s + 1] - t[s] : 0.0);
            double w = fmax(weight[s], 0.0) * 0.5 * dt;
            if (!(w > 0.0))
                continue;
            if (last == ns || !law_same(law, ns, s, last)) {
                c = ac_transient_law_ccdf(law, ns, s, mid);
                last = s;
            }
            F += w * c;
        }
        if (F > (1.0 - p) * W)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

int ac_transient_node_quantile(const ac_transient *tr, size_t node, double p, const double *weight,
                               double *out)
{
    const ac_transient_node *n;
    *out = NAN;
    if (node >= tr->nnodes || !(p > 0.0 && p < 1.0) || tr->nodes[node].law == NULL)
        return AC_EINVAL;
    n = &tr->nodes[node];
    if (weight == NULL) /* the jobs served then: a function's executions (failed ones too) */
        weight = n->execution_rate != NULL ? n->execution_rate : n->throughput;
    *out = mixture_quantile(n->law, tr->t, tr->nsamples, weight, p);
    return AC_OK;
}

/* ---- end to end --------------------------------------------------------------------------- */

/* out[i] += w row[i], i = 0..E2E_GRID: two at a time (GNU C vector pairs, SSE2; the same
 * product and sum per entry: 1.6e9 of faas-cascade's search bench's 87e9 instructions
 * one at a time). */
static void mix_add(double *restrict out, double w, const double *restrict row)
{
    size_t i = 0;
#if defined(__GNUC__)
    typedef double v2 __attribute__((vector_size(16)));
    for (; i + 2 <= E2E_GRID + 1; i += 2) {
        v2 a, b;
        memcpy(&a, out + i, sizeof a);
        memcpy(&b, row + i, sizeof b);
        a += w * b;
        memcpy(out + i, &a, sizeof a);
    }
#endif
    for (; i <= E2E_GRID; i++)
        out[i] += w * row[i];
}

/* out[i] = the ccdf at x_i = i h (i = 0..E2E_GRID) of the mixture of the samples' laws with
 * mixture_quantile's weights; 0 when they sum to 0. row: scratch of E2E_GRID + 1 (the ccdf
 * of the last law computed). */
static void mixture_ccdf(const double *law, const double *t, size_t ns, const double *weight,
                         double h, double *out, double *row)
{
    double W = 0.0;
    size_t last = ns; /* the sample row holds */
    for (size_t i = 0; i <= E2E_GRID; i++)
        out[i] = 0.0;
    for (size_t s = 0; s < ns; s++) {
        double dt = (s > 0 ? t[s] - t[s - 1] : 0.0) + (s + 1 < ns ? t[s + 1] - t[s] : 0.0);
        double w = fmax(weight[s], 0.0) * 0.5 * dt;
        if (!(w > 0.0))
            continue;
        W += w;
        if (last == ns || !law_same(law, ns, s, last)) {
            double par[AC_TRANSIENT_LAW_NPAR];
            law_params(law, ns, s, par);
            for (size_t i = 0; i <= E2E_GRID; i++)
                row[i] = law_ccdf_at(par, (double)i * h);
            last = s;
        }
        mix_add(out, w, row);
    }
    for (size_t i = 0; i <= E2E_GRID && W > 0.0; i++)
        out[i] = fmin(1.0, out[i] / W);
}

/* min over j <= i of a[j] + b[i - j] (the union bound's best split on the grid). */
static double min_plus(const double *a, const double *b, size_t i)
{
    double v = INFINITY;
    for (size_t j = 0; j <= i; j++)
        v = fmin(v, a[j] + b[i - j]);
    return v;
}

/* The link on the route u -> v, or AC_NONE. */
static size_t link_of(const ac_model *m, size_t u, size_t v)
{
    for (size_t l = 0; l < m->nlinks; l++)
        if (m->links[l].from == u && m->links[l].to == v)
            return l;
    return AC_NONE;
}

/* The copies' ratio of a route: fanout / fanin. */
static double route_ratio(const ac_route *r)
{
    return (double)r->fanout / (double)(r->fanin > 0 ? r->fanin : 1);
}

/*
 * The bound from the stages' quantiles qn (nodes) and ql (links):
 * U(v) = qn_v + max over routes v -> w of (ql_(v,w) + U(w)), in reverse topological order;
 * the result the largest U over the sources' entry nodes.
 */
static double e2e_bound(const ac_transient *tr, const double *qn, const double *ql, double *U)
{
    const ac_model *m = tr->model;
    double best = 0.0;
    for (size_t k = tr->nnodes; k-- > 0;) {
        size_t v = tr->e2e_order[k];
        double down = 0.0;
        for (size_t r = 0; r < m->nroutes; r++) {
            size_t l;
            if (m->routes[r].from != v)
                continue;
            l = link_of(m, v, m->routes[r].to);
            down = fmax(down, U[m->routes[r].to] + (l != AC_NONE ? ql[l] : 0.0));
        }
        U[v] = (isfinite(qn[v]) ? qn[v] : 0.0) + down;
    }
    for (size_t s = 0; s < m->nsources; s++)
        best = fmax(best, U[m->sources[s].to]);
    return best;
}

/*
 * The mixture over the routes, on a grid x_i = i h (i = 0..E2E_GRID, h = X / E2E_GRID, X the
 * stage-quantile bound above): G_v(x) bounds P(T_v + D_v > x) for a job at v, D_v its time
 * downstream. The route a job leaves v by is drawn after its stage, independently of T_v, so
 * conditioning on it is exact, and each route's sum is bounded by the union bound at its best
 * split y on the grid:
 *   G_v(x_i) = p_exit F_v(x_i) + sum over the routes r: v -> w of p_r R_r(x_i),
 *   R_r(x_i) = min(1, min_{j <= i} F_v(x_j) + min(1, k_r B_r(x_{i-j}))),
 *   B_r(z)   = G_w(z), or min_j F_l(x_j) + G_w(z - x_j) through the link l of the route,
 * F the stage's ccdf mixed over the samples with the sources' rate (as mixture_quantile), p_exit
 * = 1 - sum_r p_r, k_r the route's fan-out (a union over the copies; a fan-in counts each
 * copy's downstream). A branch taken with probability p_r weighs its stages by p_r instead of
 * adding them to every request's path. Every G value is an upper bound of the probability at
 * its grid point, so the smallest x_i with G(x_i) <= 1 - p bounds the p-quantile; the grid
 * costs at most h per stage. Not with parallel routes (the stage bound alone). dp holds
 * (nnodes + 5) (E2E_GRID + 1) doubles. Returns X when no grid point is below it.
 */
static double e2e_mixture(const ac_transient *tr, double p, double X, double *dp)
{
    const ac_model *m = tr->model;
    const size_t K = E2E_GRID + 1, ns = tr->nsamples;
    double *F = dp + tr->nnodes * K, *FL = F + K, *B = FL + K, *R = B + K, *row = R + K;
    double h = X / E2E_GRID;
    double best = 0.0;
    for (size_t r = 0; r < m->nroutes; r++)
        if (m->routes[r].parallel)
            return X;
    for (size_t k = tr->nnodes; k-- > 0;) {
        size_t v = tr->e2e_order[k];
        double *G = dp + v * K, exit_p = 1.0;
        mixture_ccdf(tr->nodes[v].law, tr->t, ns, tr->e2e_rate, h, F, row);
        for (size_t i = 0; i < K; i++)
            G[i] = 0.0;
        for (size_t r = 0; r < m->nroutes; r++) {
            const ac_route *rt = &m->routes[r];
            const double *Gw = dp + rt->to * K;
            size_t l;
            if (rt->from != v)
                continue;
            exit_p -= rt->p;
            l = link_of(m, v, rt->to);
            if (l != AC_NONE)
                mixture_ccdf(tr->links[l].law, tr->t, ns, tr->e2e_rate, h, FL, row);
            for (size_t i = 0; i < K; i++)
                B[i] = fmin(1.0, (double)rt->fanout * (l != AC_NONE ? min_plus(FL, Gw, i) : Gw[i]));
            for (size_t i = 0; i < K; i++)
                R[i] = fmin(1.0, min_plus(F, B, i));
            for (size_t i = 0; i < K; i++)
                G[i] += rt->p * R[i];
        }
        for (size_t i = 0; i < K; i++)
            G[i] = fmin(1.0, G[i] + fmax(exit_p, 0.0) * F[i]);
    }
    for (size_t s = 0; s < m->nsources; s++) {
        const double *G = dp + m->sources[s].to * K;
        size_t i = 0;
        while (i < K && G[i] > 1.0 - p)
            i++;
        if (i == K)
            return X;
        best = fmax(best, (double)i * h);
    }
    return fmin(best, X);
}

int ac_transient_e2e_quantile(const ac_transient *tr, double p, double *scratch, double *out)
{
    double lvl;
    double *qn = scratch, *ql = scratch + tr->nnodes;
    *out = NAN;
    if (!(p > 0.0 && p < 1.0))
        return AC_EINVAL;
    if (tr->e2e_order == NULL || tr->model == NULL || !(tr->e2e_stages >= 1.0))
        return AC_OK;
    lvl = 1.0 - (1.0 - p) / tr->e2e_stages;
    for (size_t v = 0; v < tr->nnodes; v++)
        qn[v] = mixture_quantile(tr->nodes[v].law, tr->t, tr->nsamples, tr->e2e_rate, lvl);
    for (size_t l = 0; l < tr->nlinks; l++)
        ql[l] = mixture_quantile(tr->links[l].law, tr->t, tr->nsamples, tr->e2e_rate, lvl);
    if (isnan(qn[0]) && tr->nnodes > 0) {
        int any = 0;
        for (size_t s = 0; s < tr->nsamples; s++)
            any |= tr->e2e_rate[s] > 0.0;
        if (!any)
            return AC_OK;
    }
    /* U reuses the links' slots after them: scratch holds nnodes + nlinks; U needs nnodes */
    {
        double *U = qn; /* overwritten in reverse topological order: qn[v] read before U[v] */
        *out = e2e_bound(tr, qn, ql, U);
    }
    if (*out > 0.0 && isfinite(*out))
        *out = e2e_mixture(tr, p, *out, tr->e2e_scratch + tr->nnodes + tr->nlinks + 1);
    return AC_OK;
}

/* The topological order of the routes (Kahn; NULL order: a cycle) and the copies m_v:
 * m_w = max(1, max over routes v -> w of m_v fanout / fanin), L = max over paths of
 * sum m_v (links count m_v fanout). */
static int e2e_setup(const ac_model *m, ac_transient *tr)
{
    size_t n = m->nnodes, head = 0, tail = 0;
    size_t *indeg = calloc(n + 1, sizeof *indeg), *order = malloc((n + 1) * sizeof *order);
    double *mult = malloc((n + 1) * sizeof *mult), *Ls = malloc((n + 1) * sizeof *Ls), L = 0.0;
    if (indeg == NULL || order == NULL || mult == NULL || Ls == NULL) {
        free(indeg);
        free(order);
        free(mult);
        free(Ls);
        return AC_ENOMEM;
    }
    for (size_t r = 0; r < m->nroutes; r++)
        indeg[m->routes[r].to]++;
    for (size_t v = 0; v < n; v++) {
        mult[v] = 1.0;
        if (indeg[v] == 0)
            order[tail++] = v;
    }
    while (head < tail) {
        size_t v = order[head++];
        for (size_t r = 0; r < m->nroutes; r++) {
            size_t w = m->routes[r].to;
            if (m->routes[r].from != v)
                continue;
            mult[w] = fmax(mult[w], mult[v] * route_ratio(&m->routes[r]));
            if (--indeg[w] == 0)
                order[tail++] = w;
        }
    }
    free(indeg);
    if (tail < n) { /* a cycle */
        free(order);
        free(mult);
        free(Ls);
        tr->e2e_stages = NAN;
        return AC_OK;
    }
    for (size_t k = n; k-- > 0;) {
        size_t v = order[k];
        double down = 0.0;
        for (size_t r = 0; r < m->nroutes; r++) {
            size_t w = m->routes[r].to;
            double lw = 0.0;
            if (m->routes[r].from != v)
                continue;
            if (link_of(m, v, w) != AC_NONE)
                lw = mult[v] * (double)m->routes[r].fanout;
            down = fmax(down, lw + Ls[w]);
        }
        Ls[v] = mult[v] + down;
    }
    for (size_t s = 0; s < m->nsources; s++)
        L = fmax(L, Ls[m->sources[s].to]);
    free(Ls);
    tr->e2e_order = order;
    tr->e2e_mult = mult;
    tr->e2e_stages = L;
    return AC_OK;
}

/* ---- the workspace's arrays ---------------------------------------------------------------- */

int ac_solver_tr_metrics_init(const tr_ctx *c, ac_transient *tr)
{
    size_t ns = tr->nsamples, np = (size_t)AC_TRANSIENT_LAW_NPAR * ns;
    tr->model = c->m;
    for (size_t v = 0; v < tr->nnodes; v++) {
        ac_transient_node *n = &tr->nodes[v];
        n->law = calloc(np, sizeof(double));
        n->p95_response_time = calloc(ns, sizeof(double));
        n->p99_response_time = calloc(ns, sizeof(double));
        if (n->law == NULL || n->p95_response_time == NULL || n->p99_response_time == NULL)
            return AC_ENOMEM;
    }
    tr->nlinks = c->m->nlinks;
    tr->links = calloc(tr->nlinks + 1, sizeof *tr->links);
    tr->e2e_p95 = calloc(ns, sizeof(double));
    tr->e2e_p99 = calloc(ns, sizeof(double));
    tr->e2e_rate = calloc(ns, sizeof(double));
    tr->e2e_scratch =
        calloc(tr->nnodes + tr->nlinks + 1 + (tr->nnodes + 5) * (E2E_GRID + 1), sizeof(double));
    if (tr->links == NULL || tr->e2e_p95 == NULL || tr->e2e_p99 == NULL || tr->e2e_rate == NULL ||
        tr->e2e_scratch == NULL)
        return AC_ENOMEM;
    for (size_t l = 0; l < tr->nlinks; l++) {
        ac_transient_link *k = &tr->links[l];
        double **a[] = {&k->arrival_rate,      &k->throughput,        &k->backlog,
                        &k->p95_response_time, &k->p99_response_time, &k->loss_rate,
                        &k->cum_arrivals,      &k->cum_departures,    &k->cum_lost,
                        &k->in_system};
        for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
            if ((*a[i] = calloc(ns, sizeof(double))) == NULL)
                return AC_ENOMEM;
        if ((k->law = calloc(np, sizeof(double))) == NULL)
            return AC_ENOMEM;
    }
    return e2e_setup(c->m, tr);
}

void ac_solver_tr_metrics_free(ac_transient *tr)
{
    for (size_t v = 0; tr->nodes != NULL && v < tr->nnodes; v++) {
        free(tr->nodes[v].law);
        free(tr->nodes[v].p95_response_time);
        free(tr->nodes[v].p99_response_time);
    }
    for (size_t l = 0; tr->links != NULL && l < tr->nlinks; l++) {
        ac_transient_link *k = &tr->links[l];
        free(k->arrival_rate);
        free(k->throughput);
        free(k->backlog);
        free(k->law);
        free(k->p95_response_time);
        free(k->p99_response_time);
        free(k->loss_rate);
        free(k->cum_arrivals);
        free(k->cum_departures);
        free(k->cum_lost);
        free(k->in_system);
    }
    free(tr->links);
    free(tr->e2e_p95);
    free(tr->e2e_p99);
    free(tr->e2e_rate);
    free(tr->e2e_scratch);
    free(tr->e2e_order);
    free(tr->e2e_mult);
}

/* The per-sample arrays an evaluation resuming from the prefix must restore: the laws' rows,
 * the links' trajectories (arrays NULL: count only). */
size_t ac_solver_tr_metrics_arrays(ac_transient *tr, double **arrays)
{
    size_t n = 0;
    for (size_t v = 0; v < tr->nnodes; v++)
        for (size_t k = 0; tr->nodes[v].law != NULL && k < AC_TRANSIENT_LAW_NPAR; k++) {
            if (arrays != NULL)
                arrays[n] = tr->nodes[v].law + k * tr->nsamples;
            n++;
        }
    for (size_t l = 0; l < tr->nlinks; l++) {
        ac_transient_link *k = &tr->links[l];
        double *a[] = {k->arrival_rate, k->throughput,     k->backlog,  k->loss_rate,
                       k->cum_arrivals, k->cum_departures, k->cum_lost, k->in_system};
        for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
            if (arrays != NULL)
                arrays[n] = a[i];
            n++;
        }
        for (size_t i = 0; i < AC_TRANSIENT_LAW_NPAR; i++) {
            if (arrays != NULL)
                arrays[n] = k->law + i * tr->nsamples;
            n++;
        }
    }
    return n;
}

/* ---- the laws at a sample ------------------------------------------------------------------- */

typedef struct law_par {
    double a, pc, c0, pw, g, sm, cap;
} law_par;

static void law_store(double *law, size_t ns, size_t s, const law_par *p)
{
    LAW(law, ns, AC_TRANSIENT_LAW_SHIFT, s) = fmax(p->a, 0.0);
    LAW(law, ns, AC_TRANSIENT_LAW_PCOLD, s) = fmin(fmax(p->pc, 0.0), 1.0);
    LAW(law, ns, AC_TRANSIENT_LAW_COLD, s) = p->pc > 0.0 ? p->c0 : 0.0;
    LAW(law, ns, AC_TRANSIENT_LAW_PWAIT, s) = p->g > 0.0 ? fmin(fmax(p->pw, 0.0), 1.0) : 0.0;
    LAW(law, ns, AC_TRANSIENT_LAW_WRATE, s) = p->g > 0.0 ? p->g : 0.0;
    LAW(law, ns, AC_TRANSIENT_LAW_SMEAN, s) = p->sm;
    LAW(law, ns, AC_TRANSIENT_LAW_SCAP, s) = p->cap;
}

/* The Erlang-C wait of `slots` servers at `rate` jobs/s of mean occupancy `occ` (pw, g), or
 * the fluid wait `fluid` when it is the larger mean (then pw = 0 and a += fluid). The load is
 * taken at most TR_PSA_RHO of the slots: at the fluid's saturation (a stock held at its
 * bound by the relaxation, load 1 - TR_RELAX) the stationary wait is unbounded, but a
 * transient queue has not built it: there the fluid backlog is the wait. */
#define TR_PSA_RHO 0.99
static void wait_psa(law_par *p, double slots, double rate, double occ, double fluid)
{
    double A = fmin(rate * occ, TR_PSA_RHO * slots), pw = 0.0, g = 0.0;
    rate = occ > 0.0 ? A / occ : 0.0;
    if (slots >= 1.0 && A > 0.0 && A < slots && occ > 0.0) {
        pw = ac_solver_erlang_c((size_t)slots, A);
        g = slots / occ - rate;
    }
    if (fluid > 0.0 && !(g > 0.0 && pw / g > fluid)) {
        p->a += fluid;
        return;
    }
    p->pw = pw;
    p->g = g;
}

static void pool_law(const tr_ctx *c, size_t j, const double *y, law_par *p)
{
    const tr_pool *tp = &c->pools[j];
    ac_solver_pool_model *pm = tp->model;
    const double *q = y + tp->off;
    double mu = tp->mu;
    p->sm = 1.0 / mu;
    p->cap = INFINITY;
    if (pm->policy == &ac_solver_policy_shared_queue || pm->policy->admit == NULL) {
        double L = 0.0, busy = fmin(fmax(q[0], 0.0), 1.0);
        for (size_t k = 0; k < tp->dim; k++)
            L += fmax(q[k], 0.0);
        wait_psa(p, tp->N, c->lambda[j], 1.0 / mu, fmax(0.0, L - busy) / mu);
        return;
    }
    {
        double acc = 0.0, ew = 0.0, a0;
        (void)pm->policy->admit(pm, q, pm->a);
        for (size_t k = 0; k < tp->dim; k++) {
            double a = fmax(pm->a[k], 0.0);
            acc += a;
            ew += a * (double)k;
        }
        if (!(acc > 0.0))
            return;
        a0 = fmax(pm->a[0], 0.0) / acc;
        ew /= acc * mu;
        p->pw = 1.0 - a0;
        p->g = p->pw > 1e-12 && ew > 0.0 ? p->pw / ew : 0.0;
    }
}

static void fn_law(const tr_ctx *c, size_t i, const double *y, law_par *p)
{
    const tr_fn *F = &c->fns[i];
    const tr_fn_rates *r = &c->fr[i];
    const ac_function *fn = &c->m->nodes[F->node].u.function;
    double theta = fn->timeout > 0.0 ? fn->timeout : INFINITY, left = theta - F->delay;
    double starts = r->starts.v;
    p->a = F->delay;
    p->sm = fn->duration;
    p->cap = left;
    if (!(left > 0.0)) { /* every execution times out */
        p->a = theta;
        p->sm = 0.0;
        p->cap = INFINITY;
    }
    p->pc = starts > 1e-12 ? fmax(r->cold.v, 0.0) / starts : 0.0;
    p->c0 = F->c0;
    if (F->mode == TR_ASYNC) { /* polled: the messages wait in the queue (its law) */
        double u = tr_pos(y[F->off + FN_U]);
        double fluid = u > 1e-9 && starts > 0.0 ? u / starts : 0.0;
        wait_psa(p, F->Cp, fmax(r->execs.v, 0.0), F->Te + p->pc * F->c0, fluid);
    }
}

static void q_law(const tr_ctx *c, size_t i, const double *y, law_par *p)
{
    const tr_q *Q = &c->qs[i];
    const tr_q_rates *r = &c->qr[i];
    double xv = tr_pos(y[Q->off + Q_X]), fluid = 0.0;
    p->cap = INFINITY;
    if (xv > 1e-9)
        fluid = xv / fmax(r->m.v, 1e-9 * (r->adm.v + 1.0));
    if (Q->cons == AC_NONE) {
        p->a = fluid;
        return;
    }
    wait_psa(p, Q->slots, fmax(r->m.v, 0.0) * Q->k, c->fns[Q->cons].Te, fluid);
}

void ac_solver_tr_metrics_record(const tr_ctx *c, ac_transient *tr, size_t s, const double *y)
{
    for (size_t v = 0; v < c->m->nnodes; v++) {
        law_par p = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, INFINITY};
        if (tr->nodes[v].law == NULL)
            continue;
        switch (c->m->nodes[v].kind) {
        case AC_NODE_POOL: pool_law(c, c->unit_of[v], y, &p); break;
        case AC_NODE_FUNCTION: fn_law(c, c->unit_of[v], y, &p); break;
        case AC_NODE_QUEUE: q_law(c, c->unit_of[v], y, &p); break;
        case AC_NODE_GATEWAY: break;
        }
        law_store(tr->nodes[v].law, tr->nsamples, s, &p);
    }
}

/* ---- the summaries --------------------------------------------------------------------------- */

/* The end of the last fault window inside the horizon, else the burst's end; NAN: none. */
static double disturbance_end(const tr_ctx *c, const ac_transient *tr)
{
    double e = -INFINITY;
    for (size_t k = 0; c->plan != NULL && k < c->plan->nfaults; k++)
        if (c->plan->faults[k].end < tr->horizon)
            e = fmax(e, c->plan->faults[k].end);
        else
            e = fmax(e, tr->horizon);
    if (isfinite(e))
        return e;
    return tr->has_burst && isfinite(tr->burst_end) ? tr->burst_end : NAN;
}

/* The threshold at sample k: thr plus the stock the fluid's relaxation holds at the flow
 * (hover x inflow: a queue's visible messages hover at deliveries x tau without a backlog). */
static double thr_at(double thr, double hover, const double *inflow, size_t k)
{
    return thr + (inflow != NULL ? hover * fmax(inflow[k], 0.0) : 0.0);
}

/* Backlog duration (linear between samples), peak and drain time of `b` (NULL: NAN) above
 * thr_at. */
static void backlog_stats(const ac_transient *tr, const double *b, double thr, double hover,
                          const double *inflow, double t_end, double *duration, double *peak,
                          double *drain)
{
    double d = 0.0, pk = 0.0;
    *duration = *peak = *drain = NAN;
    if (b == NULL)
        return;
    for (size_t k = 0; k < tr->nsamples; k++) {
        pk = fmax(pk, b[k]);
        if (k > 0) {
            double x0 = b[k - 1] - thr_at(thr, hover, inflow, k - 1);
            double x1 = b[k] - thr_at(thr, hover, inflow, k), dt = tr->t[k] - tr->t[k - 1];
            if (x0 > 0.0 && x1 > 0.0)
                d += dt;
            else if (x0 > 0.0 || x1 > 0.0)
                d += dt * fmax(x0, x1) / (fabs(x0) + fabs(x1));
        }
    }
    *duration = d;
    *peak = pk;
    if (isnan(t_end))
        return;
    *drain = INFINITY;
    for (size_t k = 0; k < tr->nsamples; k++) {
        if (tr->t[k] < t_end)
            continue;
        double x1 = b[k] - thr_at(thr, hover, inflow, k);
        if (x1 <= 0.0) {
            double t0 = tr->t[k];
            double x0 = k > 0 ? b[k - 1] - thr_at(thr, hover, inflow, k - 1) : 0.0;
            if (k > 0 && tr->t[k - 1] >= t_end && x0 > 0.0) /* the crossing, linearly */
                t0 = tr->t[k - 1] + (tr->t[k] - tr->t[k - 1]) * x0 / (x0 - x1);
            *drain = fmax(0.0, t0 - t_end);
            return;
        }
    }
}

/* Throttled and failed jobs of node v over the horizon (the top of transient.h). */
static void split_failures(const tr_ctx *c, ac_transient *tr, size_t v)
{
    ac_transient_node *n = &tr->nodes[v];
    size_t last = tr->nsamples - 1;
    double lost;
    n->offered = n->cum_arrivals[last];
    lost = n->cum_lost != NULL ? n->cum_lost[last] : 0.0;
    n->throttled = 0.0;
    switch (c->m->nodes[v].kind) {
    case AC_NODE_FUNCTION:
        n->throttled = n->cum_throttled[last];
        n->errors = fmax(0.0, lost - n->throttled);
        break;
    case AC_NODE_GATEWAY:
        n->throttled = lost;
        n->errors = 0.0;
        break;
    case AC_NODE_QUEUE: n->errors = lost; break;
    case AC_NODE_POOL: {
        double s = 0.0; /* a pool's refusals: the integral of loss_rate */
        for (size_t k = 1; k < tr->nsamples; k++)
            s += 0.5 * (n->loss_rate[k] + n->loss_rate[k - 1]) * (tr->t[k] - tr->t[k - 1]);
        n->errors = s;
        break;
    }
    }
    n->throttle_fraction = n->offered > 0.0 ? fmin(1.0, n->throttled / n->offered) : NAN;
    n->error_fraction = n->offered > 0.0 ? fmin(1.0, n->errors / n->offered) : NAN;
}

/*
 * The largest age of the oldest job over the samples, in the fluid FIFO order: at t_k the
 * oldest entered at s where E(s) = left_k - n_0, E = left + n - n_0 the jobs entered since
 * t = 0 (nondecreasing: s advances with k); linear between samples; before t = 0 the jobs
 * present then entered at rate0 (s = (left_k - n_0) / rate0 < 0; at no rate, s = 0).
 */
double ac_solver_tr_oldest_age(const double *t, size_t ns, const double *left, const double *n,
                               double rate0)
{
    double age = 0.0;
    size_t j = 0;
    for (size_t k = 0; k < ns; k++) {
        double target = left[k] - n[0], s;
        if (target <= 0.0) {
            s = rate0 > 0.0 ? target / rate0 : 0.0;
        } else {
            while (j + 1 < k && left[j + 1] + n[j + 1] - n[0] < target)
                j++;
            { /* k >= 1 here and j < k: E(k) >= target, as n_k >= 0 */
                double e0 = left[j] + n[j] - n[0], e1 = left[j + 1] + n[j + 1] - n[0];
                double w = e1 > e0 ? fmin(fmax((target - e0) / (e1 - e0), 0.0), 1.0) : 1.0;
                s = t[j] + (t[j + 1] - t[j]) * w;
            }
        }
        age = fmax(age, t[k] - s);
    }
    return age;
}

/* The cumulative jobs that left queue node n after entering: deletions and dead letters
 * (trapezoids of dead_letter_rate), into `out`. */
static void queue_left(const ac_transient *tr, const ac_transient_node *n, double *out)
{
    out[0] = n->cum_departures[0];
    for (size_t k = 1; k < tr->nsamples; k++)
        out[k] =
            out[k - 1] + (n->cum_departures[k] - n->cum_departures[k - 1]) +
            0.5 * (n->dead_letter_rate[k] + n->dead_letter_rate[k - 1]) * (tr->t[k] - tr->t[k - 1]);
}

/* Node v's oldest age (pools and queues; NAN otherwise); scratch of nsamples. */
static void node_oldest(const tr_ctx *c, ac_transient *tr, size_t v, double *scratch)
{
    ac_transient_node *n = &tr->nodes[v];
    n->oldest_age = NAN;
    switch (c->m->nodes[v].kind) {
    case AC_NODE_POOL:
        n->oldest_age = ac_solver_tr_oldest_age(tr->t, tr->nsamples, n->cum_departures,
                                                n->in_system, n->throughput[0]);
        break;
    case AC_NODE_QUEUE:
        queue_left(tr, n, scratch);
        n->oldest_age =
            ac_solver_tr_oldest_age(tr->t, tr->nsamples, scratch, n->in_system, n->throughput[0]);
        break;
    default: break;
    }
}

/* The pool's jobs waiting: N (sum_k q_k - q_1), into `out` (nsamples). */
static void pool_waiting(const ac_transient *tr, const ac_transient_node *n, double *out)
{
    for (size_t k = 0; k < tr->nsamples; k++)
        out[k] = fmax(0.0, n->in_system[k] - n->servers[k] * n->utilization[k]);
}

/* A node's shares over the horizon, jobs failed / jobs offered: *e errors (failures other
 * than a throttle), *t throttles (a sync function's, a gateway's 429s); 0 when nothing is
 * offered. A polled function's failed executions are not failures of the request: its queue
 * redelivers the message, and the ones that fail for good are the queue's dead letters
 * (counted there). */
static void e2e_shares(const tr_ctx *c, const ac_transient *tr, size_t v, double *e, double *t)
{
    const ac_transient_node *n = &tr->nodes[v];
    int polled = c->m->nodes[v].kind == AC_NODE_FUNCTION && c->fns[c->unit_of[v]].mode == TR_POLLED;
    *e = *t = 0.0;
    if (!(n->offered > 0.0))
        return;
    *e = polled ? 0.0 : fmin(1.0, fmax(0.0, n->errors / n->offered));
    *t = fmin(1.0 - *e, fmax(0.0, n->throttled / n->offered));
}

/* The copies' gain x_v of node v: the jobs v sends on per job of it that did not fail
 * there, over the routes' p fanout / fanin (so that the visits are those of a request
 * nothing upstream failed). A queue: its receives per message deleted (each receive of a
 * batch makes the route's fanout executions the message is in, and a redelivery makes them
 * again; receives = sum of deliveries x beta, beta = min(b, max(1, visible)) the messages
 * per batch, as transient_queue.c); the receives of the messages dead-lettered or still in
 * flight at the horizon count too, which over-counts the visits (pessimistic); per message
 * offered when none was deleted. A polled function: its successful executions per
 * execution (a failed one sends nothing on and is redelivered, not a failure). 1 otherwise:
 * what the other kinds send on are their successes, one per job. */
static double e2e_gain(const tr_ctx *c, const ac_transient *tr, size_t v)
{
    const ac_transient_node *n = &tr->nodes[v];
    size_t last = tr->nsamples - 1;
    double x = 0.0, done;
    if (!(n->offered > 0.0))
        return 1.0;
    if (c->m->nodes[v].kind == AC_NODE_QUEUE) {
        double b = c->qs[c->unit_of[v]].b;
        for (size_t k = 1; k < tr->nsamples; k++)
            x += 0.5 *
                 (n->throughput[k] * fmin(b, fmax(1.0, n->backlog[k])) +
                  n->throughput[k - 1] * fmin(b, fmax(1.0, n->backlog[k - 1]))) *
                 (tr->t[k] - tr->t[k - 1]);
        done = n->cum_departures[last] - n->cum_departures[0];
        return x / (done > 0.0 ? done : n->offered);
    }
    if (c->m->nodes[v].kind == AC_NODE_FUNCTION && c->fns[c->unit_of[v]].mode == TR_POLLED)
        return fmax(0.0, n->cum_departures[last] - n->cum_departures[0]) / n->offered;
    return 1.0;
}

/*
 * The per-request fraction of one kind under independence (doc/models.md §5): each job at
 * node v fails by an error with v's share e_v, by a throttle with t_v, independently, and a
 * failed job sends nothing on. Q_v, the probability that a job at v and everything it makes
 * downstream stay clear of the kind (kind 0: no error, 1: no throttle, 2: no failure), in
 * reverse topological order:
 *   Q_v = z_v + (1 - e_v - t_v) C_v,   z_v = t_v (kind 0), e_v (kind 1), 0 (kind 2),
 *   C_v = [p_exit + sum_r p_r T_r] prod_{r parallel} T_r,   T_r = u_r^(fanout x_v),
 *   u_r = (1 - f_l) Q_w^(1 / fanin), or f_l + (1 - f_l) Q_w^(1 / fanin) for kind 1
 * (f_l the refused share of the route's link, an error; 0 without), p_exit = max(0, 1 - sum
 * of the non-parallel p_r), x_v the copies' gain (e2e_gain). The fraction is
 * 1 - sum_e (N_e / N) Q_e over the entry nodes e (N_e their requests). On a chain with
 * fan-outs and one kind: 1 - prod_v (1 - f_v)^(n_v), n_v a request's visits at v when no job
 * upstream fails. Q holds nnodes, x the gains, Ne the requests by entry node.
 */
static double e2e_product(const tr_ctx *c, const ac_transient *tr, int kind, const double *x,
                          const double *Ne, double N, double *Q)
{
    const ac_model *m = c->m;
    double clear = 0.0;
    for (size_t k = tr->nnodes; k-- > 0;) {
        size_t v = tr->e2e_order[k];
        double exit_p = 1.0, mix = 0.0, par = 1.0, e, t;
        for (size_t r = 0; r < m->nroutes; r++) {
            const ac_route *rt = &m->routes[r];
            size_t l;
            double fl = 0.0, u;
            if (rt->from != v)
                continue;
            l = link_of(m, v, rt->to);
            if (l != AC_NONE && tr->links[l].offered > 0.0)
                fl = fmin(1.0, fmax(0.0, tr->links[l].lost / tr->links[l].offered));
            u = (1.0 - fl) * pow(Q[rt->to], 1.0 / (double)(rt->fanin > 0 ? rt->fanin : 1));
            u = pow(kind == 1 ? fl + u : u, (double)rt->fanout * x[v]);
            if (rt->parallel) {
                par *= u;
            } else {
                exit_p -= rt->p;
                mix += rt->p * u;
            }
        }
        e2e_shares(c, tr, v, &e, &t);
        Q[v] = (kind == 0   ? t
                : kind == 1 ? e
                            : 0.0) +
               (1.0 - e - t) * (fmax(exit_p, 0.0) + mix) * par;
    }
    for (size_t v = 0; v < tr->nnodes; v++)
        clear += Ne[v] * Q[v];
    return fmin(1.0, fmax(0.0, 1.0 - clear / N));
}

/*
 * The end-to-end fractions: the requests offered N (the sources' rates integrated), the
 * union bounds sum_v failures_v / N (links' refusals included: each failed job counts, so a
 * request with several failed copies counts several times; an upper bound for any
 * dependence), and the per-request fractions under independence (e2e_product), each at most
 * its union bound; with a cycle of routes the union bound alone.
 */
static void e2e_summaries(const tr_ctx *c, ac_transient *tr)
{
    const ac_model *m = c->m;
    size_t nn = tr->nnodes;
    double offered = 0.0, err = 0.0, thr = 0.0;
    double *Q = tr->e2e_scratch, *x = Q + nn, *Ne = x + nn; /* 3 nn of its n + (n + 5) 129 */
    for (size_t v = 0; v < nn; v++)
        Ne[v] = 0.0;
    for (size_t k = 0; k < tr->nsamples; k++) {
        double g = 0.0;
        for (size_t s = 0; s < m->nsources; s++) {
            double gs = ac_transient_source_rate(m, s, c->scale, tr->t[k]);
            if (k > 0 && m->nsources > 1) /* one source: Ne is the offered, below */
                Ne[m->sources[s].to] +=
                    0.5 * (gs + ac_transient_source_rate(m, s, c->scale, tr->t[k - 1])) *
                    (tr->t[k] - tr->t[k - 1]);
            g += gs;
        }
        tr->e2e_rate[k] = g;
        if (k > 0)
            offered += 0.5 * (g + tr->e2e_rate[k - 1]) * (tr->t[k] - tr->t[k - 1]);
    }
    if (m->nsources == 1)
        Ne[m->sources[0].to] = offered;
    for (size_t v = 0; v < nn; v++) {
        const ac_transient_node *n = &tr->nodes[v];
        int polled =
            m->nodes[v].kind == AC_NODE_FUNCTION && c->fns[c->unit_of[v]].mode == TR_POLLED;
        if (!polled)
            err += n->errors;
        thr += n->throttled;
        x[v] = e2e_gain(c, tr, v);
    }
    for (size_t l = 0; l < tr->nlinks; l++)
        err += tr->links[l].lost;
    tr->e2e_offered = offered;
    tr->e2e_error_union = offered > 0.0 ? fmin(1.0, err / offered) : NAN;
    tr->e2e_throttle_union = offered > 0.0 ? fmin(1.0, thr / offered) : NAN;
    tr->e2e_loss_union = offered > 0.0 ? fmin(1.0, (err + thr) / offered) : NAN;
    tr->e2e_error_fraction = tr->e2e_error_union;
    tr->e2e_throttle_fraction = tr->e2e_throttle_union;
    tr->e2e_loss_fraction = tr->e2e_loss_union;
    if (!(offered > 0.0) || tr->e2e_order == NULL)
        return;
    tr->e2e_error_fraction = fmin(tr->e2e_error_union, e2e_product(c, tr, 0, x, Ne, offered, Q));
    tr->e2e_throttle_fraction =
        fmin(tr->e2e_throttle_union, e2e_product(c, tr, 1, x, Ne, offered, Q));
    tr->e2e_loss_fraction = fmin(tr->e2e_loss_union, e2e_product(c, tr, 2, x, Ne, offered, Q));
}

/* The per-sample and horizon percentiles (options.percentiles). */
static void percentiles(ac_transient *tr)
{
    size_t ns = tr->nsamples;
    double *qn = NULL;
    for (size_t v = 0; v < tr->nnodes; v++) {
        ac_transient_node *n = &tr->nodes[v];
        for (size_t s = 0; s < ns; s++) {
            n->p95_response_time[s] = ac_transient_law_quantile(n->law, ns, s, 0.95);
            n->p99_response_time[s] = ac_transient_law_quantile(n->law, ns, s, 0.99);
        }
        (void)ac_transient_node_quantile(tr, v, 0.95, NULL, &n->p95_horizon);
        (void)ac_transient_node_quantile(tr, v, 0.99, NULL, &n->p99_horizon);
    }
    for (size_t l = 0; l < tr->nlinks; l++) {
        ac_transient_link *k = &tr->links[l];
        for (size_t s = 0; s < ns; s++) {
            k->p95_response_time[s] = ac_transient_law_quantile(k->law, ns, s, 0.95);
            k->p99_response_time[s] = ac_transient_law_quantile(k->law, ns, s, 0.99);
        }
    }
    tr->e2e_p95_horizon = tr->e2e_p99_horizon = NAN;
    if (tr->e2e_order == NULL)
        return;
    qn = tr->e2e_scratch;
    for (size_t s = 0; s < ns; s++)
        for (int w = 0; w < 2; w++) {
            double p = w == 0 ? 0.95 : 0.99, lvl = 1.0 - (1.0 - p) / tr->e2e_stages;
            double *ql = qn + tr->nnodes;
            for (size_t v = 0; v < tr->nnodes; v++)
                qn[v] = ac_transient_law_quantile(tr->nodes[v].law, ns, s, lvl);
            for (size_t l = 0; l < tr->nlinks; l++)
                ql[l] = ac_transient_law_quantile(tr->links[l].law, ns, s, lvl);
            (w == 0 ? tr->e2e_p95 : tr->e2e_p99)[s] = e2e_bound(tr, qn, ql, qn);
        }
    (void)ac_transient_e2e_quantile(tr, 0.95, qn, &tr->e2e_p95_horizon);
    (void)ac_transient_e2e_quantile(tr, 0.99, qn, &tr->e2e_p99_horizon);
}

void ac_solver_tr_metrics_finish(const tr_ctx *c, ac_transient *tr)
{
    double t_end = disturbance_end(c, tr), thr = c->opt->backlog_threshold;
    ac_solver_tr_links_finish(c, tr);
    for (size_t v = 0; v < tr->nnodes; v++) {
        ac_transient_node *n = &tr->nodes[v];
        const double *b = n->backlog;
        double hover = 0.0;
        split_failures(c, tr, v);
        node_oldest(c, tr, v, n->p95_response_time); /* scratch until percentiles() */
        switch (c->m->nodes[v].kind) {
        case AC_NODE_POOL:
            pool_waiting(tr, n, n->p99_response_time); /* scratch until percentiles() */
            b = n->p99_response_time;
            break;
        case AC_NODE_QUEUE: hover = c->qs[c->unit_of[v]].tau; break;
        case AC_NODE_FUNCTION: hover = c->fns[c->unit_of[v]].tau; break;
        case AC_NODE_GATEWAY: break;
        }
        backlog_stats(tr, b, thr, hover, n->arrival_rate, t_end, &n->backlog_duration,
                      &n->backlog_peak, &n->drain_time);
        n->p95_horizon = n->p99_horizon = NAN;
    }
    for (size_t l = 0; l < tr->nlinks; l++) {
        ac_transient_link *k = &tr->links[l];
        backlog_stats(tr, k->backlog, thr, 0.0, NULL, t_end, &k->backlog_duration, &k->backlog_peak,
                      &k->drain_time);
    }
    e2e_summaries(c, tr);
    if (c->opt->percentiles)
        percentiles(tr);
}
