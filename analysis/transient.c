/*
 * The transient (fluid) model of an open network (models.md §4, transient.h).
 *
 * State y = (q_1, ..., q_P, A_1, D_1, ..., A_P, D_P): the pools' mean-field vectors (each of
 * a fixed truncation) followed by two counters per pool, the jobs offered (A) and departed
 * (D) since t = 0, integrated with the rest so that conservation can be checked exactly.
 *
 *   dq_j/dt = f_j(q_j; Lambda_j),  Lambda_j(t, y) = sum_s S_sj gamma_s(t) + sum_i E_ij dep_i(q_i),
 *   dA_j/dt = Lambda_j,            dD_j/dt = dep_j = N_j mu_j min(q_j1, 1).
 *
 * E (pool -> pool) and S (source -> pool) are R_ij = p fanout / fanin (traffic.c) with the
 * nodes that are not pools passing their inflow on at once (a sparse propagation; a cycle
 * among such nodes that returns every job is AC_EINPUT).
 *
 * Jacobian. Block diagonal from each pool's Jacobian J_j = df_j/dq_j (at its current
 * Lambda_j), plus the coupling
 *     df_j/dq_i1 = g_j * E_ij N_i mu_i [q_i1 < 1],   g_j = df_j/dLambda_j.
 * The drift is exactly linear in the offered rate Lambda: f_k = (Lambda/N) S(P(q)) a_k(q)
 * - mu (q_k - q_{k+1}) (solver.h), where the retry factor S(P(q)) and the law a_k(q) depend
 * on q only (their q-derivatives are in J_j already); shared-queue's Lambda/N [x < 1 + B/N]
 * is linear too. solver.h does not expose df/dLambda, so g_j = f_j(Lambda = 1) - f_j(Lambda
 * = 0): exact for a linear function (two drift evaluations per pool and Jacobian call).
 * The explicit time dependence: df_j/dt = g_j sum_s S_sj gamma_s'(t) (profiles are
 * piecewise linear; the integration stops at every profile point).
 *
 * Dense up to opt->dense_max states (msbdf with the Jacobian above, stored dim x dim);
 * above, rkf45 (explicit, adaptive; no Jacobian; slow if the system is stiff).
 *
 * Truncation of pool j: from the static traffic Lambda_j(t) = sum_s w_sj gamma_s(t) (every
 * node passing its inflow on) on a grid over the horizon: below capacity at the peak, the
 * automatic truncation of ac_solver_pool_model_new at the peak rate (the system being
 * cooperative, a state below the peak's fixed point stays below it); overloaded, the
 * truncation at the start rate plus the fluid build-up B = int max(0, Lambda/N - mu) dt
 * plus six standard deviations sqrt((Lambda_peak/N + mu) T_over) of its spread; finite
 * buffers cap it, and so does opt->pool_dim_max (noted).
 *
 * Loss rate of a pool: Lambda - (N sum_k f_k + dep) (offered minus admitted: sum_k f_k
 * telescopes to the admitted flow minus departures per server). For pools with retries the
 * admitted flow includes retried copies, so the difference (clipped at 0) is a lower bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "analysis/internal.h"
#include "archcheck/transient.h"

#define TR_GRID 2000         /* grid of the truncation estimate */
#define TR_SETTLE_TOL 1e-10  /* settled: max |f_k| <= this * (lambda + mu), per server */
#define TR_PROP_MAX 10000000 /* work limit of one propagation */

/* A FIFO of (time, count) pairs: the scaler's pending orders and its recommendations. */
typedef struct tr_fifo {
    double *t;
    size_t *n;
    size_t head, len, cap;
} tr_fifo;

/* The HPA-like scaler of one autoscaled pool (transient.h). */
typedef struct tr_scaler {
    const ac_autoscale *as;
    size_t target;       /* the target count: serving + ordered */
    size_t k;            /* looks done; the next one is at k * interval */
    tr_fifo orders;      /* pending orders: ready time, servers */
    tr_fifo recs;        /* recommendations of the cooldown window: time, count */
    size_t ev_cap, ch_cap; /* capacities of the node's event and change logs */
} tr_scaler;

typedef struct tr_pool {
    size_t node;
    ac_solver_pool_model *model;
    size_t dim, off;
    double N, mu, cap; /* servers, service rate, N mu */
    int truncated;
    double base_rate;  /* jobs/s offered at the sources' `rate` (static traffic) */
    double hours;      /* int N dt / 3600 up to t_last */
    double t_last;     /* s, the last change of N */
    tr_scaler *sc;     /* NULL: servers fixed */
} tr_pool;

/* A sparse map origin -> targets: CSR. */
typedef struct tr_csr {
    size_t *start; /* norigins + 1 */
    size_t *to;
    double *coef;
    size_t n, cap;
} tr_csr;

typedef struct tr_ctx {
    const ac_model *m;
    const ac_transient_options *opt;
    size_t npools;
    tr_pool *pools;
    size_t *pool_of;      /* node -> pool index, AC_NONE */
    tr_csr cp, sp;        /* pool -> pool, source -> pool */
    tr_csr cx, sx;        /* pool -> non-pool node, source -> non-pool node (inflows) */
    size_t dim, nq;       /* total; pool levels only (counters start at nq) */
    double *gamma, *gslope, *lambda, *dep;
    double *f0, *f1, *jb; /* scratch: max pool dim, and max pool dim^2 (dense) */
    size_t maxdim;
    int frozen;
    double t_frozen;
    size_t nscaled;       /* pools with a scaler */
} tr_ctx;

void ac_transient_options_init(ac_transient_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->samples = 401;
    opt->start = AC_TRANSIENT_START_STEADY;
    opt->rtol = 1e-7;
    opt->atol = 1e-10;
    opt->dense_max = AC_TRANSIENT_DENSE_MAX;
    opt->pool_dim_max = 4096;
    opt->scale = 1.0;
}

/* ---- profiles -------------------------------------------------------------------------------- */

/* The profile's segment at t (after folding a repeat): rate and slope. */
static void profile_eval(const ac_profile *p, double t, double *rate, double *slope)
{
    *rate = ac_profile_rate(p, t, slope);
}

double ac_transient_source_rate(const ac_model *m, size_t s, double scale, double t)
{
    double r, sl;
    if (s >= m->nsources)
        return NAN;
    if (m->sources[s].profile == AC_NONE || m->sources[s].profile >= m->nprofiles)
        return scale * m->sources[s].rate;
    profile_eval(&m->profiles[m->sources[s].profile], t, &r, &sl);
    return scale * r;
}

static void sources_at(const tr_ctx *c, double t, double *gamma, double *slope)
{
    const ac_model *m = c->m;
    for (size_t s = 0; s < m->nsources; s++) {
        double r = m->sources[s].rate, sl = 0.0;
        if (m->sources[s].profile != AC_NONE && m->sources[s].profile < m->nprofiles)
            profile_eval(&m->profiles[m->sources[s].profile], t, &r, &sl);
        gamma[s] = c->opt->scale * r;
        if (slope != NULL)
            slope[s] = c->opt->scale * sl;
    }
}

/* The burst of one profile: base = first point's rate; peak = the first highest point;
 * end = when the rate is back at the base after the peak. Returns 1 when there is one. */
static int profile_burst(const ac_profile *p, double *t_peak, double *t_end)
{
    const ac_profile_point *pt = p->points;
    size_t n = p->npoints, ipk = 0;
    double base = pt[0].rate;
    for (size_t k = 1; k < n; k++)
        if (pt[k].rate > pt[ipk].rate)
            ipk = k;
    if (!(pt[ipk].rate > base * (1.0 + 1e-12)))
        return 0;
    *t_peak = pt[ipk].at;
    /* the peak segment: the peak is held until the rate starts falling */
    for (size_t k = ipk + 1; k < n; k++) {
        if (pt[k].rate <= base * (1.0 + 1e-9)) {
            double r0 = pt[k - 1].rate, r1 = pt[k].rate;
            double f = r0 > r1 ? (r0 - base) / (r0 - r1) : 1.0;
            if (f < 0.0)
                f = 0.0;
            *t_end = pt[k - 1].at + f * (pt[k].at - pt[k - 1].at);
            return 1;
        }
    }
    if (p->repeat) { /* the next period starts at the base rate */
        *t_end = pt[n - 1].at;
        return 1;
    }
    return 0;
}

/* ---- routing propagation ----------------------------------------------------------------- */

typedef struct tr_routes {
    size_t *start, *to;
    double *coef;
} tr_routes;

static void routes_free(tr_routes *r)
{
    free(r->start);
    free(r->to);
    free(r->coef);
}

static int routes_build(const ac_model *m, tr_routes *r)
{
    size_t n = m->nnodes;
    r->start = calloc(n + 1, sizeof *r->start);
    r->to = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->to);
    r->coef = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->coef);
    if (r->start == NULL || r->to == NULL || r->coef == NULL)
        return AC_ENOMEM;
    for (size_t k = 0; k < m->nroutes; k++)
        r->start[m->routes[k].from + 1]++;
    for (size_t i = 0; i < n; i++)
        r->start[i + 1] += r->start[i];
    {
        size_t *fill = calloc(n > 0 ? n : 1, sizeof *fill);
        if (fill == NULL)
            return AC_ENOMEM;
        for (size_t k = 0; k < m->nroutes; k++) {
            const ac_route *rt = &m->routes[k];
            size_t at = r->start[rt->from] + fill[rt->from]++;
            r->to[at] = rt->to;
            r->coef[at] = rt->p * (double)rt->fanout / (double)rt->fanin;
        }
        free(fill);
    }
    return AC_OK;
}

/* Scratch of a propagation: dense accumulators and a work list. */
typedef struct tr_prop {
    double *acc, *pend;
    size_t *touched, ntouched;
    size_t *work;
    unsigned char *inwork, *seen;
} tr_prop;

static void prop_free(tr_prop *p)
{
    free(p->acc);
    free(p->pend);
    free(p->touched);
    free(p->work);
    free(p->inwork);
    free(p->seen);
}

static int prop_alloc(tr_prop *p, size_t n)
{
    size_t nn = n > 0 ? n : 1;
    memset(p, 0, sizeof *p);
    p->acc = calloc(nn, sizeof *p->acc);
    p->pend = calloc(nn, sizeof *p->pend);
    p->touched = malloc(nn * sizeof *p->touched);
    p->work = malloc(nn * sizeof *p->work);
    p->inwork = calloc(nn, 1);
    p->seen = calloc(nn, 1);
    return p->acc && p->pend && p->touched && p->work && p->inwork && p->seen ? AC_OK : AC_ENOMEM;
}

static void prop_push(tr_prop *p, size_t *nwork, size_t v, double w)
{
    p->pend[v] += w;
    if (!p->seen[v]) {
        p->seen[v] = 1;
        p->touched[p->ntouched++] = v;
    }
    if (!p->inwork[v]) {
        p->inwork[v] = 1;
        p->work[(*nwork)++] = v;
    }
}

/*
 * Mean jobs reaching each node per unit injected: at node `start` itself (depart = 0) or
 * routed out of it (depart = 1). Nodes that stop the flow (pools, unless through_pools)
 * accumulate it; the others pass it on. Fills p->acc over p->touched.
 */
static int propagate(const ac_model *m, const tr_routes *r, const size_t *pool_of,
                     int through_pools, size_t start, int depart, tr_prop *p)
{
    size_t nwork = 0, steps = 0;
    for (size_t k = 0; k < p->ntouched; k++) {
        size_t v = p->touched[k];
        p->acc[v] = p->pend[v] = 0.0;
        p->seen[v] = p->inwork[v] = 0;
    }
    p->ntouched = 0;
    if (depart) {
        for (size_t e = r->start[start]; e < r->start[start + 1]; e++)
            prop_push(p, &nwork, r->to[e], r->coef[e]);
    } else {
        prop_push(p, &nwork, start, 1.0);
    }
    while (nwork > 0) {
        size_t u = p->work[--nwork];
        double w = p->pend[u];
        p->inwork[u] = 0;
        p->pend[u] = 0.0;
        p->acc[u] += w;
        if (++steps > TR_PROP_MAX)
            return AC_EINPUT;
        if (!through_pools && pool_of[u] != AC_NONE)
            continue;
        if (!(fabs(w) > 1e-15))
            continue;
        for (size_t e = r->start[u]; e < r->start[u + 1]; e++)
            prop_push(p, &nwork, r->to[e], w * r->coef[e]);
    }
    (void)m;
    return AC_OK;
}

static int csr_add(tr_csr *c, size_t to, double coef)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 64;
        size_t *t2 = realloc(c->to, nc * sizeof *t2);
        double *c2;
        if (t2 == NULL)
            return AC_ENOMEM;
        c->to = t2;
        c2 = realloc(c->coef, nc * sizeof *c2);
        if (c2 == NULL)
            return AC_ENOMEM;
        c->coef = c2;
        c->cap = nc;
    }
    c->to[c->n] = to;
    c->coef[c->n++] = coef;
    return AC_OK;
}

static void csr_free(tr_csr *c)
{
    free(c->start);
    free(c->to);
    free(c->coef);
}

/* Split the propagation's result into pool targets (pools) and other nodes (others). */
static int split_result(const tr_ctx *c, const tr_prop *p, tr_csr *pools, tr_csr *others)
{
    for (size_t k = 0; k < p->ntouched; k++) {
        size_t v = p->touched[k];
        double w = p->acc[v];
        int rc;
        if (w == 0.0)
            continue;
        rc = c->pool_of[v] != AC_NONE ? csr_add(pools, c->pool_of[v], w) : csr_add(others, v, w);
        if (rc != AC_OK)
            return rc;
    }
    return AC_OK;
}

/* Couplings E (pool -> pool) and S (source -> pool), and the non-pool inflows. */
static int build_coupling(tr_ctx *c, const tr_routes *r, tr_prop *p, ac_error *err)
{
    const ac_model *m = c->m;
    int rc;
    c->cp.start = calloc(c->npools + 1, sizeof *c->cp.start);
    c->cx.start = calloc(c->npools + 1, sizeof *c->cx.start);
    c->sp.start = calloc(m->nsources + 1, sizeof *c->sp.start);
    c->sx.start = calloc(m->nsources + 1, sizeof *c->sx.start);
    if (!c->cp.start || !c->cx.start || !c->sp.start || !c->sx.start)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient coupling)");
    for (size_t i = 0; i < c->npools; i++) {
        rc = propagate(m, r, c->pool_of, 0, c->pools[i].node, 1, p);
        if (rc == AC_OK)
            rc = split_result(c, p, &c->cp, &c->cx);
        if (rc != AC_OK)
            goto fail;
        c->cp.start[i + 1] = c->cp.n;
        c->cx.start[i + 1] = c->cx.n;
    }
    for (size_t s = 0; s < m->nsources; s++) {
        rc = propagate(m, r, c->pool_of, 0, m->sources[s].to, 0, p);
        if (rc == AC_OK)
            rc = split_result(c, p, &c->sp, &c->sx);
        if (rc != AC_OK)
            goto fail;
        c->sp.start[s + 1] = c->sp.n;
        c->sx.start[s + 1] = c->sx.n;
    }
    return AC_OK;
fail:
    if (rc == AC_EINPUT)
        return ac_error_set(err, rc, "jobs circulate forever among nodes that are not pools");
    return ac_error_set(err, rc, "out of memory (transient coupling)");
}

/* ---- truncation ------------------------------------------------------------------------------ */

/* Levels of pool `pool` given its static peak rate, start rate, build-up and overload time. */
static int choose_dim(const ac_pool *pool, double peak, double start_rate, double buildup,
                      double t_over, size_t dim_max, size_t *dim, int *capped, ac_error *err)
{
    double N = (double)pool->servers, mu = pool->service_rate;
    double rho_peak = peak * (double)(pool->retries + 1) / (N * mu);
    ac_solver_pool_model *pm = NULL;
    size_t k;
    int rc;
    *capped = 0;
    if (pool->dispatch == AC_DISPATCH_SHARED_QUEUE) {
        *dim = 1;
        return AC_OK;
    }
    if (rho_peak < 1.0 || peak / (N * mu) < 1.0) {
        rc = ac_solver_pool_model_new(pool, peak, 0, &pm, err);
        if (rc == AC_ELIMIT || (rc == AC_EINVAL && pool->buffer != AC_UNBOUNDED)) {
            ac_error_clear(err);
            k = pool->buffer != AC_UNBOUNDED ? pool->buffer : dim_max + 1;
        } else if (rc != AC_OK) {
            return rc;
        } else {
            k = ac_solver_pool_model_dim(pm);
        }
        ac_solver_pool_model_free(pm);
    } else if (pool->buffer != AC_UNBOUNDED) {
        k = pool->buffer;
    } else {
        size_t k0 = 1;
        double s0 = start_rate / (N * mu), extra;
        if (s0 < 1.0) {
            rc = ac_solver_pool_model_new(pool, start_rate, 0, &pm, err);
            if (rc == AC_OK)
                k0 = ac_solver_pool_model_dim(pm);
            else if (rc == AC_ENOMEM)
                return rc;
            ac_error_clear(err);
            ac_solver_pool_model_free(pm);
        }
        extra = buildup + 6.0 * sqrt((peak / N + mu) * t_over) + 8.0;
        k = extra >= (double)dim_max ? dim_max + 1 : k0 + (size_t)ceil(extra);
    }
    if (pool->buffer != AC_UNBOUNDED && k > pool->buffer)
        k = pool->buffer;
    if (k > dim_max) {
        k = dim_max;
        *capped = 1;
    }
    *dim = k > 0 ? k : 1;
    return AC_OK;
}

/*
 * Levels of an autoscaled pool. Its count changes, so the truncation is that of the count
 * the scaler steers to at the peak, with a margin for the lag of scaling: the count N_p =
 * ceil(peak / (mu u_t)) clamped to [min, max] at a per-server load u_t = min(0.95, max(target
 * (1 + 2 tolerance), (1 + target) / 2)) above the band the scaler keeps; the overloaded
 * branch of choose_dim (build-up) when even `max` servers cannot carry the peak. At least
 * the levels of `min` servers at that load (jsq and jiq sample all N servers: their tail is
 * heavier at a small count) and of the start (the starting count at the start rate), which
 * settle() fills.
 * Plus the backlog of one reaction time R = interval + scale-up-delay: the load can grow by
 * the factor `grow` (the largest growth of the static rate over R) before new servers serve,
 * from the top of the band, so each server builds up mu R max(0, target (1 + tolerance) grow
 * - 1) jobs (and six standard deviations of its spread).
 */
static int autoscaled_dim(const ac_pool *pool, double peak, double start_rate, double buildup,
                          double t_over, double grow, size_t dim_max, size_t *dim, int *capped,
                          ac_error *err)
{
    const ac_autoscale *as = &pool->autoscale;
    ac_pool at_peak = *pool;
    double mu = pool->service_rate, tu = as->target_utilization;
    double ut = fmin(0.95, fmax(tu * (1.0 + 2.0 * as->tolerance), 0.5 * (1.0 + tu)));
    double np = ceil(peak / (mu * ut));
    size_t d0 = 0;
    int cap0 = 0, rc;
    if (!(np >= (double)as->min))
        np = (double)as->min;
    if (np > (double)as->max)
        np = (double)as->max;
    at_peak.servers = (size_t)np;
    rc = choose_dim(&at_peak, peak, start_rate, buildup, t_over, dim_max, dim, capped, err);
    if (rc != AC_OK)
        return rc;
    if (as->min < at_peak.servers) { /* jsq, jiq: sampling d = N, a heavier tail at few */
        ac_pool at_min = *pool;
        double r = fmin(peak, (double)as->min * mu * ut);
        at_min.servers = as->min;
        rc = choose_dim(&at_min, r, r, 0.0, 0.0, dim_max, &d0, &cap0, err);
        if (rc != AC_OK)
            return rc;
        if (d0 > *dim) {
            *dim = d0;
            *capped = cap0;
        }
    }
    if (start_rate < (double)pool->servers * mu) {
        rc = choose_dim(pool, start_rate, start_rate, 0.0, 0.0, dim_max, &d0, &cap0, err);
        if (rc != AC_OK)
            return rc;
        if (d0 > *dim) {
            *dim = d0;
            *capped = cap0;
        }
    }
    {
        double R = as->interval + as->scale_up_delay;
        double B = mu * R * fmax(0.0, tu * (1.0 + as->tolerance) * grow - 1.0);
        if (B > 0.0 && pool->dispatch != AC_DISPATCH_SHARED_QUEUE) {
            double k = (double)*dim + ceil(B + 6.0 * sqrt(B));
            if (pool->buffer != AC_UNBOUNDED && k > (double)pool->buffer)
                k = (double)pool->buffer;
            if (k > (double)dim_max) {
                k = (double)dim_max;
                *capped = 1;
            }
            *dim = k > (double)*dim ? (size_t)k : *dim;
        }
    }
    return AC_OK;
}

/* Static traffic per unit of each source (all nodes passing their inflow on), then the
 * peak, start rate, build-up and overload time of each pool on a grid over the horizon. */
static int pool_dims(tr_ctx *c, const tr_routes *r, tr_prop *p, double horizon, size_t *dims,
                     char *note, size_t note_size, ac_error *err)
{
    const ac_model *m = c->m;
    size_t np = c->npools, ns = m->nsources;
    double *peak = calloc(np + 1, sizeof *peak), *start = calloc(np + 1, sizeof *start);
    double *build = calloc(np + 1, sizeof *build), *tover = calloc(np + 1, sizeof *tover);
    double *prev = calloc(np + 1, sizeof *prev), *cur = calloc(np + 1, sizeof *cur);
    double *hist = NULL; /* autoscaled pools: the static rate on the grid */
    size_t *slot = calloc(np + 1, sizeof *slot), nas = 0;
    tr_csr w;
    int rc = AC_OK;
    memset(&w, 0, sizeof w);
    w.start = calloc(ns + 1, sizeof *w.start);
    for (size_t i = 0; slot != NULL && i < np; i++)
        slot[i] = m->nodes[c->pools[i].node].u.pool.has_autoscale ? nas++ : AC_NONE;
    if (nas > 0)
        hist = malloc(nas * (TR_GRID + 1) * sizeof *hist);
    if (!peak || !start || !build || !tover || !prev || !cur || !w.start || !slot ||
        (nas > 0 && hist == NULL)) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient truncation)");
        goto cleanup;
    }
    for (size_t s = 0; s < ns; s++) {
        rc = propagate(m, r, c->pool_of, 1, m->sources[s].to, 0, p);
        if (rc != AC_OK) {
            rc = ac_error_set(err, AC_EINPUT, "the traffic equations have no finite solution");
            goto cleanup;
        }
        for (size_t k = 0; k < p->ntouched; k++) {
            size_t v = p->touched[k];
            if (c->pool_of[v] != AC_NONE && p->acc[v] != 0.0 &&
                csr_add(&w, c->pool_of[v], p->acc[v]) != AC_OK) {
                rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient truncation)");
                goto cleanup;
            }
        }
        w.start[s + 1] = w.n;
    }
    for (size_t s = 0; s < ns; s++) /* the static traffic at the sources' `rate` */
        for (size_t e = w.start[s]; e < w.start[s + 1]; e++)
            c->pools[w.to[e]].base_rate += w.coef[e] * c->opt->scale * m->sources[s].rate;
    for (size_t g = 0; g <= TR_GRID; g++) {
        double t = horizon * (double)g / TR_GRID, h = horizon / TR_GRID;
        sources_at(c, t, c->gamma, NULL);
        memset(cur, 0, np * sizeof *cur);
        for (size_t s = 0; s < ns; s++)
            for (size_t e = w.start[s]; e < w.start[s + 1]; e++)
                cur[w.to[e]] += w.coef[e] * c->gamma[s];
        for (size_t i = 0; i < np; i++) {
            const tr_pool *tp = &c->pools[i];
            double ex0 = fmax(0.0, prev[i] / tp->N - tp->mu), ex1 = fmax(0.0, cur[i] / tp->N - tp->mu);
            peak[i] = fmax(peak[i], cur[i]);
            if (slot[i] != AC_NONE)
                hist[slot[i] * (TR_GRID + 1) + g] = cur[i];
            if (g == 0) {
                start[i] = cur[i];
            } else {
                build[i] += 0.5 * h * (ex0 + ex1);
                if (ex0 > 0.0 || ex1 > 0.0)
                    tover[i] += h;
            }
        }
        memcpy(prev, cur, np * sizeof *prev);
    }
    /* the profile points themselves (the grid may step over a short peak) */
    for (size_t q = 0; q < m->nprofiles; q++)
        for (size_t k = 0; k < m->profiles[q].npoints; k++) {
            double t = m->profiles[q].points[k].at;
            if (t > horizon)
                continue;
            sources_at(c, t, c->gamma, NULL);
            memset(cur, 0, np * sizeof *cur);
            for (size_t s = 0; s < ns; s++)
                for (size_t e = w.start[s]; e < w.start[s + 1]; e++)
                    cur[w.to[e]] += w.coef[e] * c->gamma[s];
            for (size_t i = 0; i < np; i++)
                peak[i] = fmax(peak[i], cur[i]);
        }
    for (size_t i = 0; i < np; i++) {
        const ac_pool *pool = &m->nodes[c->pools[i].node].u.pool;
        int capped = 0;
        if (pool->has_autoscale) {
            /* the largest growth of the rate over a reaction time, on the grid (at least
             * one step), capped at 100 */
            const double *hs = hist + slot[i] * (TR_GRID + 1);
            double R = pool->autoscale.interval + pool->autoscale.scale_up_delay, grow = 1.0;
            size_t L = (size_t)fmin(ceil(R / (horizon / TR_GRID)), (double)TR_GRID);
            L = L > 0 ? L : 1;
            for (size_t g = L; g <= TR_GRID; g++)
                if (hs[g] > hs[g - L])
                    grow = fmax(grow, hs[g - L] > 0.0 ? fmin(hs[g] / hs[g - L], 100.0) : 100.0);
            rc = autoscaled_dim(pool, peak[i], start[i], build[i], tover[i], grow,
                                c->opt->pool_dim_max, &dims[i], &capped, err);
        } else {
            rc = choose_dim(pool, peak[i], start[i], build[i], tover[i], c->opt->pool_dim_max,
                            &dims[i], &capped, err);
        }
        if (rc != AC_OK)
            goto cleanup;
        if (capped) {
            size_t len = strlen(note);
            snprintf(note + len, note_size - len,
                     "%s'%s' is truncated at %zu levels (the cap); jobs beyond are lost in the model",
                     len ? "; " : "", m->nodes[c->pools[i].node].id, dims[i]);
        }
    }
cleanup:
    free(peak);
    free(start);
    free(build);
    free(tover);
    free(prev);
    free(cur);
    free(hist);
    free(slot);
    csr_free(&w);
    return rc;
}

/* ---- the ODE ----------------------------------------------------------------------------- */

/* Lambda_j and dep_i at (t, y). */
static void eval_rates(tr_ctx *c, double t, const double *y)
{
    const ac_model *m = c->m;
    sources_at(c, c->frozen ? c->t_frozen : t, c->gamma, c->gslope);
    if (c->frozen)
        memset(c->gslope, 0, (m->nsources > 0 ? m->nsources : 1) * sizeof *c->gslope);
    for (size_t i = 0; i < c->npools; i++) {
        c->dep[i] = ac_solver_pool_model_departures(c->pools[i].model, y + c->pools[i].off);
        c->lambda[i] = 0.0;
    }
    for (size_t s = 0; s < m->nsources; s++)
        for (size_t e = c->sp.start[s]; e < c->sp.start[s + 1]; e++)
            c->lambda[c->sp.to[e]] += c->sp.coef[e] * c->gamma[s];
    for (size_t i = 0; i < c->npools; i++)
        for (size_t e = c->cp.start[i]; e < c->cp.start[i + 1]; e++)
            c->lambda[c->cp.to[e]] += c->cp.coef[e] * c->dep[i];
}

static int tr_f(double t, const double y[], double dydt[], void *params)
{
    tr_ctx *c = params;
    eval_rates(c, t, y);
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
        ac_solver_pool_model_drift(tp->model, y + tp->off, dydt + tp->off);
        dydt[c->nq + 2 * j] = c->lambda[j];
        dydt[c->nq + 2 * j + 1] = c->dep[j];
    }
    for (size_t k = 0; k < c->dim; k++)
        if (!isfinite(dydt[k]))
            return GSL_EBADFUNC;
    return GSL_SUCCESS;
}

/* g = df/dLambda of pool j at q (the drift is linear in Lambda), into c->f1. */
static void drift_gradient(tr_ctx *c, size_t j, const double *q)
{
    tr_pool *tp = &c->pools[j];
    ac_solver_pool_model_set_arrival_rate(tp->model, 1.0);
    ac_solver_pool_model_drift(tp->model, q, c->f1);
    ac_solver_pool_model_set_arrival_rate(tp->model, 0.0);
    ac_solver_pool_model_drift(tp->model, q, c->f0);
    for (size_t k = 0; k < tp->dim; k++)
        c->f1[k] -= c->f0[k];
    ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
}

/* d dep_i / d q_i1 */
static double dep_slope(const tr_pool *tp, const double *y)
{
    return y[tp->off] < 1.0 ? tp->cap : 0.0;
}

static int tr_jac(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    tr_ctx *c = params;
    size_t D = c->dim;
    eval_rates(c, t, y);
    memset(dfdy, 0, D * D * sizeof *dfdy);
    memset(dfdt, 0, D * sizeof *dfdt);
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        size_t n = tp->dim;
        double lam_dot = 0.0;
        ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
        ac_solver_pool_model_jacobian(tp->model, y + tp->off, c->jb);
        for (size_t k = 0; k < n; k++)
            memcpy(dfdy + (tp->off + k) * D + tp->off, c->jb + k * n, n * sizeof *dfdy);
        /* d dep_j / dq_j1 */
        dfdy[(c->nq + 2 * j + 1) * D + tp->off] = dep_slope(tp, y);
        /* the explicit time dependence through the sources */
        for (size_t s = 0; s < c->m->nsources; s++)
            for (size_t e = c->sp.start[s]; e < c->sp.start[s + 1]; e++)
                if (c->sp.to[e] == j)
                    lam_dot += c->sp.coef[e] * c->gslope[s];
        if (lam_dot != 0.0) {
            drift_gradient(c, j, y + tp->off);
            for (size_t k = 0; k < n; k++)
                dfdt[tp->off + k] = c->f1[k] * lam_dot;
            dfdt[c->nq + 2 * j] = lam_dot;
        }
    }
    /* coupling: df_j/dq_i1 = g_j E_ij dep_i'(q_i1); dA_j/dq_i1 = E_ij dep_i' */
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        int have_g = 0;
        for (size_t i = 0; i < c->npools; i++) {
            double ds = dep_slope(&c->pools[i], y);
            size_t col = c->pools[i].off;
            for (size_t e = c->cp.start[i]; e < c->cp.start[i + 1]; e++) {
                double w;
                if (c->cp.to[e] != j || ds == 0.0)
                    continue;
                if (!have_g) {
                    drift_gradient(c, j, y + tp->off);
                    have_g = 1;
                }
                w = c->cp.coef[e] * ds;
                for (size_t k = 0; k < tp->dim; k++)
                    dfdy[(tp->off + k) * D + col] += c->f1[k] * w;
                dfdy[(c->nq + 2 * j) * D + col] += w;
            }
        }
    }
    return GSL_SUCCESS;
}

/* ---- driver ------------------------------------------------------------------------------ */

typedef struct tr_driver {
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *d;
} tr_driver;

static int driver_init(tr_driver *dr, tr_ctx *c, int dense, double h0)
{
    dr->sys.function = tr_f;
    dr->sys.jacobian = dense ? tr_jac : NULL;
    dr->sys.dimension = c->dim;
    dr->sys.params = c;
    dr->d = gsl_odeiv2_driver_alloc_y_new(&dr->sys,
                                          dense ? gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rkf45,
                                          h0, c->opt->atol, c->opt->rtol);
    if (dr->d == NULL)
        return AC_ENOMEM;
    gsl_odeiv2_driver_set_nmax(dr->d, 50000000);
    return AC_OK;
}

/* max_j max_k |f_jk| / (lambda_j / N_j + mu_j): 0 at a fixed point. */
static double residual(tr_ctx *c, const double *y, double *f)
{
    double r = 0.0;
    tr_f(0.0, y, f, c);
    for (size_t j = 0; j < c->npools; j++) {
        const tr_pool *tp = &c->pools[j];
        double s = c->lambda[j] / tp->N + tp->mu;
        for (size_t k = 0; k < tp->dim; k++)
            r = fmax(r, fabs(f[tp->off + k]) / s);
    }
    return r;
}

/*
 * Settle: integrate with the sources frozen at their rates of time t0, from y, in chunks of
 * doubling length until the residual is below TR_SETTLE_TOL (the fixed point reached from
 * y). *settled = 0 when it is not reached after 2^40 chunks of the first length.
 */
static int settle(tr_ctx *c, int dense, double t0, double *y, int *settled, ac_error *err)
{
    tr_driver dr;
    double mu_min = INFINITY, chunk, t = 0.0;
    double *f = malloc(c->dim * sizeof *f);
    int rc = AC_OK;
    *settled = 0;
    if (f == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t j = 0; j < c->npools; j++)
        mu_min = fmin(mu_min, c->pools[j].mu);
    if (!isfinite(mu_min)) {
        *settled = 1;
        free(f);
        return AC_OK;
    }
    c->frozen = 1;
    c->t_frozen = t0;
    chunk = 4.0 / mu_min;
    if (driver_init(&dr, c, dense, 1e-3 / mu_min) != AC_OK) {
        free(f);
        c->frozen = 0;
        return ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu states)", c->dim);
    }
    for (int it = 0; it < 40; it++) {
        int st = gsl_odeiv2_driver_apply(dr.d, &t, t + chunk, y);
        if (st != GSL_SUCCESS) {
            rc = ac_error_set(err, AC_ENUMERIC, "settling the start state failed at t = %g s: %s",
                              t, gsl_strerror(st));
            break;
        }
        if (residual(c, y, f) <= TR_SETTLE_TOL) {
            *settled = 1;
            break;
        }
        chunk *= 2.0;
    }
    gsl_odeiv2_driver_free(dr.d);
    free(f);
    c->frozen = 0;
    return rc;
}

/* ---- results ----------------------------------------------------------------------------- */

static void node_free(ac_transient_node *n)
{
    free(n->arrival_rate);
    free(n->throughput);
    free(n->mean_jobs);
    free(n->utilization);
    free(n->loss_rate);
    free(n->mean_response_time);
    free(n->cum_arrivals);
    free(n->cum_departures);
    free(n->q_final);
    free(n->servers);
    free(n->event_t);
    free(n->event_target);
    free(n->change_t);
    free(n->change_servers);
}

void ac_transient_free(ac_transient *tr)
{
    if (tr == NULL)
        return;
    for (size_t i = 0; tr->nodes != NULL && i < tr->nnodes; i++)
        node_free(&tr->nodes[i]);
    free(tr->nodes);
    free(tr->t);
    free(tr);
}

static int node_alloc(ac_transient_node *n, size_t ns, int pool)
{
    n->arrival_rate = malloc(ns * sizeof(double));
    n->throughput = malloc(ns * sizeof(double));
    if (n->arrival_rate == NULL || n->throughput == NULL)
        return AC_ENOMEM;
    if (!pool)
        return AC_OK;
    n->mean_jobs = malloc(ns * sizeof(double));
    n->utilization = malloc(ns * sizeof(double));
    n->loss_rate = malloc(ns * sizeof(double));
    n->mean_response_time = malloc(ns * sizeof(double));
    n->cum_arrivals = malloc(ns * sizeof(double));
    n->cum_departures = malloc(ns * sizeof(double));
    n->q_final = malloc(n->dim * sizeof(double));
    n->servers = malloc(ns * sizeof(double));
    return n->mean_jobs && n->utilization && n->loss_rate && n->mean_response_time &&
                   n->cum_arrivals && n->cum_departures && n->q_final && n->servers
               ? AC_OK
               : AC_ENOMEM;
}

/* Record sample `s` at (t, y). */
static void record(tr_ctx *c, ac_transient *tr, size_t s, double t, const double *y, double *f)
{
    const ac_model *m = c->m;
    tr_f(t, y, f, c); /* sets lambda, dep, gamma */
    for (size_t j = 0; j < c->npools; j++) {
        const tr_pool *tp = &c->pools[j];
        ac_transient_node *n = &tr->nodes[tp->node];
        const double *q = y + tp->off;
        double L = 0.0, fs = 0.0, util, admitted;
        for (size_t k = 0; k < tp->dim; k++) {
            L += fmax(q[k], 0.0);
            fs += f[tp->off + k];
        }
        util = fmin(fmax(q[0], 0.0), 1.0);
        admitted = tp->N * fs + c->dep[j];
        n->arrival_rate[s] = c->lambda[j];
        n->throughput[s] = c->dep[j];
        n->mean_jobs[s] = L;
        n->utilization[s] = util;
        n->loss_rate[s] = c->lambda[j] - admitted;
        if (!(n->loss_rate[s] > 1e-9 * c->lambda[j]))
            n->loss_rate[s] = 0.0; /* below the integration's resolution */
        n->mean_response_time[s] = util > 1e-300 ? L / (tp->mu * util) : 1.0 / tp->mu;
        n->cum_arrivals[s] = y[c->nq + 2 * j];
        n->cum_departures[s] = y[c->nq + 2 * j + 1];
        n->servers[s] = tp->N;
        if (tp->truncated)
            n->max_tail = fmax(n->max_tail, q[tp->dim - 1]);
    }
    for (size_t v = 0; v < m->nnodes; v++)
        if (c->pool_of[v] == AC_NONE)
            tr->nodes[v].arrival_rate[s] = 0.0;
    for (size_t i = 0; i < c->npools; i++)
        for (size_t e = c->cx.start[i]; e < c->cx.start[i + 1]; e++)
            tr->nodes[c->cx.to[e]].arrival_rate[s] += c->cx.coef[e] * c->dep[i];
    for (size_t q = 0; q < m->nsources; q++)
        for (size_t e = c->sx.start[q]; e < c->sx.start[q + 1]; e++)
            tr->nodes[c->sx.to[e]].arrival_rate[s] += c->sx.coef[e] * c->gamma[q];
    for (size_t v = 0; v < m->nnodes; v++)
        if (c->pool_of[v] == AC_NONE)
            tr->nodes[v].throughput[s] = tr->nodes[v].arrival_rate[s];
}

static void note_add(ac_transient *tr, const char *text)
{
    size_t len = strlen(tr->note);
    snprintf(tr->note + len, sizeof tr->note - len, "%s%s", len ? "; " : "", text);
}

/* ---- the autoscaler ------------------------------------------------------------------------ */

static void fifo_free(tr_fifo *f)
{
    free(f->t);
    free(f->n);
    memset(f, 0, sizeof *f);
}

static int fifo_push(tr_fifo *f, double t, size_t n)
{
    if (f->head + f->len == f->cap) {
        if (f->head > 0) { /* compact */
            memmove(f->t, f->t + f->head, f->len * sizeof *f->t);
            memmove(f->n, f->n + f->head, f->len * sizeof *f->n);
            f->head = 0;
        } else {
            size_t nc = f->cap ? 2 * f->cap : 32;
            double *t2 = realloc(f->t, nc * sizeof *t2);
            size_t *n2;
            if (t2 == NULL)
                return AC_ENOMEM;
            f->t = t2;
            n2 = realloc(f->n, nc * sizeof *n2);
            if (n2 == NULL)
                return AC_ENOMEM;
            f->n = n2;
            f->cap = nc;
        }
    }
    f->t[f->head + f->len] = t;
    f->n[f->head + f->len] = n;
    f->len++;
    return AC_OK;
}

/* Append (t, n) to a log of *len entries and capacity *cap. */
static int log_push(double **lt, size_t **ln, size_t *len, size_t *cap, double t, size_t n)
{
    if (*len == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        double *t2 = realloc(*lt, nc * sizeof *t2);
        size_t *n2;
        if (t2 == NULL)
            return AC_ENOMEM;
        *lt = t2;
        n2 = realloc(*ln, nc * sizeof *n2);
        if (n2 == NULL)
            return AC_ENOMEM;
        *ln = n2;
        *cap = nc;
    }
    (*lt)[*len] = t;
    (*ln)[*len] = n;
    (*len)++;
    return AC_OK;
}

/* Times within this of each other are one instant (looks are k * interval, orders ready at
 * look + delay: both exact in the integrator, which stops there). */
static double tr_eps(double t)
{
    return 1e-9 * fmax(1.0, fabs(t));
}

/*
 * Remap the state of pool j from N_old to N_new servers at an event (the top of this file):
 * per-server queues keep the count of servers holding at least k jobs, S_k = N q_k, when
 * servers are added (they start empty) or idle ones removed: q_k <- q_k N_old / N_new. When
 * more servers go than are idle, the least loaded busy ones go next and drain their jobs
 * (counted as departed, in D and in drained_jobs). The shared queue keeps its jobs:
 * x <- x N_old / N_new.
 */
static void remap_state(tr_ctx *c, ac_transient *tr, size_t j, double N_old, double N_new,
                        double *y)
{
    tr_pool *tp = &c->pools[j];
    double *q = y + tp->off, r = N_old / N_new, idle = N_old * (1.0 - fmax(q[0], 0.0));
    const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
    if (N_new >= N_old || pool->dispatch == AC_DISPATCH_SHARED_QUEUE ||
        N_old - N_new <= idle + 1e-9 * N_old) {
        for (size_t k = 0; k < tp->dim; k++)
            q[k] *= r;
        if (pool->dispatch != AC_DISPATCH_SHARED_QUEUE && q[0] > 1.0)
            q[0] = 1.0; /* rounding of the idle count */
        return;
    }
    {
        /* S_k = N_old q_k; servers with exactly k jobs: S_k - S_{k+1}; take the busy ones
         * from the lowest levels; take[k] (in c->f0) servers with k + 1 jobs go */
        double rem = N_old - N_new - fmax(idle, 0.0), drained = 0.0, above = 0.0;
        double *take = c->f0;
        for (size_t k = 0; k < tp->dim; k++) {
            double sk = N_old * fmax(q[k], 0.0);
            double sk1 = k + 1 < tp->dim ? N_old * fmax(q[k + 1], 0.0) : 0.0;
            double tk = fmin(rem, fmax(sk - sk1, 0.0));
            take[k] = tk;
            rem -= tk;
            drained += (double)(k + 1) * tk;
        }
        for (size_t k = tp->dim; k-- > 0;) { /* S'_k = S_k - (servers taken with >= k jobs) */
            above += take[k];
            q[k] = fmax(N_old * fmax(q[k], 0.0) - above, 0.0) / N_new;
        }
        y[c->nq + 2 * j + 1] += drained;
        tr->nodes[tp->node].drained_jobs += drained;
    }
}

/* Pool j serves with n servers from time t on: server-hours so far, the state remapped,
 * the pool's model rebuilt for the new count, the change logged. */
static int set_servers(tr_ctx *c, ac_transient *tr, size_t j, double t, size_t n, double *y,
                       ac_error *err)
{
    tr_pool *tp = &c->pools[j];
    ac_transient_node *nd = &tr->nodes[tp->node];
    ac_pool spec = c->m->nodes[tp->node].u.pool;
    ac_solver_pool_model *pm = NULL;
    int rc;
    if ((double)n == tp->N)
        return AC_OK;
    spec.servers = n;
    rc = ac_solver_pool_model_new(&spec, 0.0, tp->dim, &pm, err);
    if (rc != AC_OK)
        return rc;
    if (ac_solver_pool_model_dim(pm) != tp->dim) {
        ac_solver_pool_model_free(pm);
        return ac_error_set(err, AC_ENUMERIC, "the model of '%s' at %zu servers changed its "
                            "dimension", c->m->nodes[tp->node].id, n);
    }
    ac_solver_pool_model_free(tp->model);
    tp->model = pm;
    tp->hours += tp->N * (t - tp->t_last) / 3600.0;
    tp->t_last = t;
    remap_state(c, tr, j, tp->N, (double)n, y);
    tp->N = (double)n;
    tp->cap = tp->N * tp->mu;
    if (log_push(&nd->change_t, &nd->change_servers, &nd->nchanges, &tp->sc->ch_cap, t, n) !=
        AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (scaling log)");
    return AC_OK;
}

/*
 * One look of the scaler of pool j at time t (transient.h): the recommendation from the
 * instantaneous utilisation u = min(q_1, 1) of the N serving servers (the fluid busy
 * fraction: HPA's mean over pods; the metrics pipeline's time averaging, shorter than an
 * interval in practice, is left out): the target count T (serving + ordered) while u /
 * target is within 1 +- tolerance, else ceil(N u / target) = ceil(busy / target) clamped to
 * [min, max]. A scale-up is held while orders are pending if the ratio over T (the starting
 * servers counted idle: N u / (T target), as HPA does with pods not yet ready) is back
 * within the tolerance: the pending servers are not ordered twice. Then a scale-up order
 * (ready after scale-up-delay) or a scale-down to the window's highest recommendation.
 * Each change of T is an event. *changed = 1 when the serving count changes now.
 */
static int scaler_look(tr_ctx *c, ac_transient *tr, size_t j, double t, double *y, int *changed,
                       ac_error *err)
{
    tr_pool *tp = &c->pools[j];
    tr_scaler *sc = tp->sc;
    const ac_autoscale *as = sc->as;
    ac_transient_node *nd = &tr->nodes[tp->node];
    double u = fmin(fmax(y[tp->off], 0.0), 1.0), ratio = u / as->target_utilization;
    /* with orders pending, the ratio over the target count (the servers still starting
     * counted idle, as HPA counts pods not yet ready when scaling up) */
    double ratio_t = tp->N * ratio / (double)sc->target;
    size_t rec = sc->target, stab = 0, serving = (size_t)tp->N;
    if (fabs(ratio - 1.0) > as->tolerance &&
        !(ratio > 1.0 + as->tolerance && ratio_t <= 1.0 + as->tolerance)) {
        /* ceil(N u / target), a value within 1e-6 of an integer being that integer (the
         * integration's resolution on q_1 at rtol 1e-7) */
        double x = ceil(tp->N * ratio * (1.0 - 1e-6));
        rec = x < (double)as->min ? as->min : x > (double)as->max ? as->max : (size_t)x;
    }
    if (fifo_push(&sc->recs, t, rec) != AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (scaler)");
    while (sc->recs.len > 0 && sc->recs.t[sc->recs.head] <= t - as->cooldown + tr_eps(t)) {
        sc->recs.head++;
        sc->recs.len--;
    }
    if (rec > sc->target) {
        if (fifo_push(&sc->orders, t + as->scale_up_delay, rec - sc->target) != AC_OK)
            return ac_error_set(err, AC_ENOMEM, "out of memory (scaler)");
        sc->target = rec;
    } else if (rec < sc->target) {
        size_t cut;
        for (size_t i = 0; i < sc->recs.len; i++)
            stab = sc->recs.n[sc->recs.head + i] > stab ? sc->recs.n[sc->recs.head + i] : stab;
        if (stab >= sc->target)
            return AC_OK;
        cut = sc->target - stab;
        sc->target = stab;
        while (cut > 0 && sc->orders.len > 0) { /* the newest pending orders first */
            size_t *last = &sc->orders.n[sc->orders.head + sc->orders.len - 1];
            size_t take = cut < *last ? cut : *last;
            *last -= take;
            cut -= take;
            if (*last == 0)
                sc->orders.len--;
        }
        if (cut > 0) {
            int rc = set_servers(c, tr, j, t, serving - cut, y, err);
            if (rc != AC_OK)
                return rc;
            *changed = 1;
        }
    } else {
        return AC_OK;
    }
    if (log_push(&nd->event_t, &nd->event_target, &nd->nevents, &sc->ev_cap, t, sc->target) !=
        AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (scaling log)");
    return AC_OK;
}

/* The scalers' events at time t: the orders ready by t serve, then the looks due at t.
 * *changed = 1 when some serving count changed (the ODE must restart). */
static int scaler_events(tr_ctx *c, ac_transient *tr, double t, double *y, int *changed,
                         ac_error *err)
{
    *changed = 0;
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        tr_scaler *sc = tp->sc;
        int rc;
        if (sc == NULL)
            continue;
        for (int pass = 0; pass < 2; pass++) {
            size_t n = (size_t)tp->N;
            while (sc->orders.len > 0 && sc->orders.t[sc->orders.head] <= t + tr_eps(t)) {
                n += sc->orders.n[sc->orders.head];
                sc->orders.head++;
                sc->orders.len--;
            }
            if ((double)n != tp->N) {
                rc = set_servers(c, tr, j, t, n, y, err);
                if (rc != AC_OK)
                    return rc;
                *changed = 1;
            }
            /* the look; a zero scale-up-delay order is ready at once (second pass) */
            if (pass == 0 && t >= (double)sc->k * sc->as->interval - tr_eps(t)) {
                rc = scaler_look(c, tr, j, t, y, changed, err);
                if (rc != AC_OK)
                    return rc;
                sc->k++;
            }
        }
    }
    return AC_OK;
}

/* The next time (> the last events) at which a scaler acts: a look or a ready order. */
static double scaler_next(const tr_ctx *c)
{
    double next = INFINITY;
    for (size_t j = 0; j < c->npools; j++) {
        const tr_scaler *sc = c->pools[j].sc;
        if (sc == NULL)
            continue;
        next = fmin(next, (double)sc->k * sc->as->interval);
        if (sc->orders.len > 0)
            next = fmin(next, sc->orders.t[sc->orders.head]);
    }
    return next;
}

/* Scalers for the autoscaled pools: target = the starting count, recommended at t = 0 (the
 * system has run at that count), the first look at t = 0. */
static int scalers_init(tr_ctx *c, ac_transient *tr)
{
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
        ac_transient_node *nd = &tr->nodes[tp->node];
        nd->start_servers = pool->servers;
        nd->steady_servers = ac_transient_autoscale_steady(pool, tp->base_rate);
        if (!pool->has_autoscale)
            continue;
        tp->sc = calloc(1, sizeof *tp->sc);
        if (tp->sc == NULL)
            return AC_ENOMEM;
        tp->sc->as = &pool->autoscale;
        tp->sc->target = pool->servers;
        if (fifo_push(&tp->sc->recs, 0.0, pool->servers) != AC_OK)
            return AC_ENOMEM;
        nd->autoscaled = 1;
        c->nscaled++;
    }
    tr->nautoscaled = c->nscaled;
    return AC_OK;
}

static void scalers_free(tr_ctx *c)
{
    for (size_t j = 0; c->pools != NULL && j < c->npools; j++) {
        if (c->pools[j].sc == NULL)
            continue;
        fifo_free(&c->pools[j].sc->orders);
        fifo_free(&c->pools[j].sc->recs);
        free(c->pools[j].sc);
        c->pools[j].sc = NULL;
    }
}

size_t ac_transient_autoscale_steady(const ac_pool *pool, double rate)
{
    const ac_autoscale *as = &pool->autoscale;
    size_t n = pool->servers;
    if (!pool->has_autoscale || !(pool->service_rate > 0.0) || !(rate >= 0.0))
        return n;
    for (int it = 0; it < 1000; it++) {
        double u = fmin(1.0, rate / ((double)n * pool->service_rate));
        double ratio = u / as->target_utilization, x;
        size_t next;
        if (fabs(ratio - 1.0) <= as->tolerance)
            break;
        x = ceil((double)n * ratio * (1.0 - 1e-6)); /* as scaler_look */
        next = x < (double)as->min ? as->min : x > (double)as->max ? as->max : (size_t)x;
        if (next == n)
            break;
        n = next;
    }
    return n;
}

size_t ac_transient_events_until(const ac_transient_node *n, double t)
{
    size_t k = 0;
    while (k < n->nevents && n->event_t[k] < t - tr_eps(t))
        k++;
    return k;
}

double ac_transient_server_hours_until(const ac_transient_node *n, double t)
{
    double h = 0.0, tp = 0.0, N = (double)n->start_servers;
    for (size_t k = 0; k < n->nchanges && n->change_t[k] < t; k++) {
        h += N * (n->change_t[k] - tp);
        tp = n->change_t[k];
        N = (double)n->change_servers[k];
    }
    return (h + N * fmax(t - tp, 0.0)) / 3600.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The integration targets: every profile point (repeats unfolded) inside the horizon and
 * the horizon, sorted, duplicates removed (the integrator never steps over a kink of the
 * sources; the samples are interpolated between its steps). */
static double *targets(const ac_model *m, const ac_transient *tr, size_t *count)
{
    size_t cap = tr->nsamples + 16, n = 0;
    double *t = malloc(cap * sizeof *t);
    if (t == NULL)
        return NULL;
    t[n++] = tr->horizon;
    for (size_t q = 0; q < m->nprofiles; q++) {
        const ac_profile *p = &m->profiles[q];
        double period = p->points[p->npoints - 1].at;
        size_t reps = 1;
        if (p->repeat && period > 0.0) {
            double r = ceil(tr->horizon / period);
            if (r > 100000.0)
                continue; /* the sample grid is all we do for very many periods */
            reps = (size_t)r + 1;
        }
        for (size_t r = 0; r < reps; r++)
            for (size_t k = 0; k < p->npoints; k++) {
                double at = (double)r * period + p->points[k].at;
                if (at <= 0.0 || at >= tr->horizon)
                    continue;
                if (n == cap) {
                    double *t2 = realloc(t, 2 * cap * sizeof *t2);
                    if (t2 == NULL) {
                        free(t);
                        return NULL;
                    }
                    t = t2;
                    cap *= 2;
                }
                t[n++] = at;
            }
    }
    qsort(t, n, sizeof *t, cmp_double);
    {
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
            if (w == 0 || t[i] > t[w - 1])
                t[w++] = t[i];
        n = w;
    }
    *count = n;
    return t;
}

/* Cubic Hermite interpolation of y at tau between (t0, y0, f0) and (t1, y1, f1). */
static void hermite(size_t n, double t0, const double *y0, const double *f0, double t1,
                    const double *y1, const double *f1, double tau, double *out)
{
    double d = t1 - t0, s = d > 0.0 ? (tau - t0) / d : 1.0, s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
           h11 = s3 - s2;
    for (size_t k = 0; k < n; k++)
        out[k] = h00 * y0[k] + h10 * d * f0[k] + h01 * y1[k] + h11 * d * f1[k];
}

/*
 * Step freely (gsl_odeiv2_evolve_apply with the driver's stepper and control) up to each
 * target, and fill the samples by cubic Hermite interpolation between steps. Stopping the
 * integrator at every sample would shorten its steps and, with msbdf, force a refactorised
 * iteration matrix (a dense LU) at nearly every sample.
 *
 * With autoscaled pools the integrator also stops at every look of a scaler and every time
 * an order is ready (scaler_next): the scaler reads the state there, and where a serving
 * count changes the state is remapped and the driver restarted (gsl_odeiv2_driver_reset,
 * first step h0): the drift has a jump there. Events at the horizon itself are not applied
 * (they belong to the next period of a repeated profile): the scaling counts are over
 * [0, horizon).
 */
static int integrate(tr_ctx *c, ac_transient *tr, tr_driver *dr, const double *tgt,
                     size_t ntarget, double *y, ac_error *err)
{
    size_t D = c->dim, s = 1, nsteps = 0, it = 0;
    double *y0 = malloc(D * sizeof *y0), *f0 = malloc(D * sizeof *f0);
    double *f1 = malloc(D * sizeof *f1), *yi = malloc(D * sizeof *yi);
    double *fr = malloc(D * sizeof *fr), t = 0.0, h0 = dr->d->h, h = h0;
    int rc = AC_OK;
    if (y0 == NULL || f0 == NULL || f1 == NULL || yi == NULL || fr == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto cleanup;
    }
    record(c, tr, 0, 0.0, y, fr);
    memcpy(y0, y, D * sizeof *y);
    tr_f(0.0, y, f0, c);
    while (t < tr->horizon) {
        double t_stop;
        if (c->nscaled > 0) {
            int changed = 0;
            rc = scaler_events(c, tr, t, y, &changed, err);
            if (rc != AC_OK)
                goto cleanup;
            if (changed) {
                int st = gsl_odeiv2_driver_reset(dr->d);
                if (st != GSL_SUCCESS) {
                    rc = ac_error_set(err, AC_ENUMERIC, "restarting the ODE driver at t = %g s: %s",
                                      t, gsl_strerror(st));
                    goto cleanup;
                }
                h = h0;
                memcpy(y0, y, D * sizeof *y);
                tr_f(t, y, f0, c);
            }
        }
        while (it < ntarget && tgt[it] <= t)
            it++;
        t_stop = it < ntarget ? tgt[it] : tr->horizon;
        if (c->nscaled > 0)
            t_stop = fmin(t_stop, scaler_next(c));
        if (!(t_stop > t)) { /* cannot happen: the events at t are done */
            rc = ac_error_set(err, AC_ENUMERIC, "the transient's event times do not advance at "
                              "t = %g s", t);
            goto cleanup;
        }
        while (t < t_stop) {
            double tp = t;
            int st = gsl_odeiv2_evolve_apply(dr->d->e, dr->d->c, dr->d->s, &dr->sys, &t, t_stop,
                                             &h, y);
            if (st == GSL_SUCCESS && ++nsteps > 50000000)
                st = GSL_EMAXITER;
            if (st != GSL_SUCCESS) {
                rc = ac_error_set(err, AC_ENUMERIC,
                                  "the transient (%s, %zu states) failed at t = %g s: %s",
                                  tr->method, D, t, gsl_strerror(st));
                goto cleanup;
            }
            tr_f(t, y, f1, c);
            while (s < tr->nsamples && tr->t[s] <= t) {
                hermite(D, tp, y0, f0, t, y, f1, tr->t[s], yi);
                record(c, tr, s, tr->t[s], yi, fr);
                s++;
            }
            memcpy(f0, f1, D * sizeof *f1);
            memcpy(y0, y, D * sizeof *y);
        }
    }
    for (; s < tr->nsamples; s++) /* rounding at the horizon */
        record(c, tr, s, tr->t[s], y, fr);
cleanup:
    free(fr);
    free(y0);
    free(f0);
    free(f1);
    free(yi);
    return rc;
}

static void ctx_free(tr_ctx *c)
{
    scalers_free(c);
    for (size_t j = 0; c->pools != NULL && j < c->npools; j++)
        ac_solver_pool_model_free(c->pools[j].model);
    free(c->pools);
    free(c->pool_of);
    csr_free(&c->cp);
    csr_free(&c->sp);
    csr_free(&c->cx);
    csr_free(&c->sx);
    free(c->gamma);
    free(c->gslope);
    free(c->lambda);
    free(c->dep);
    free(c->f0);
    free(c->f1);
    free(c->jb);
}

/* The horizon: the option, else the largest last point of the profiles. */
static double horizon_of(const ac_model *m, const ac_transient_options *opt)
{
    double h = 0.0;
    if (opt->horizon > 0.0)
        return opt->horizon;
    for (size_t q = 0; q < m->nprofiles; q++)
        h = fmax(h, m->profiles[q].points[m->profiles[q].npoints - 1].at);
    return h;
}

int ac_transient_run(const ac_model *m, const ac_transient_options *opt, ac_transient **out,
                     ac_error *err)
{
    ac_transient_options defaults;
    ac_transient *tr = NULL;
    tr_ctx c;
    tr_routes routes;
    tr_prop prop;
    tr_driver dr;
    size_t *dims = NULL, ntarget = 0;
    double *y = NULL, *f = NULL, *tgt = NULL, horizon;
    int rc = AC_OK, dense, settled = 1;

    memset(&c, 0, sizeof c);
    memset(&routes, 0, sizeof routes);
    memset(&prop, 0, sizeof prop);
    dr.d = NULL;
    *out = NULL;
    if (opt == NULL) {
        ac_transient_options_init(&defaults);
        opt = &defaults;
    }
    horizon = horizon_of(m, opt);
    if (!(horizon > 0.0) || !isfinite(horizon))
        return ac_error_set(err, AC_EINVAL,
                            "the transient needs a horizon: the model has no <profile>");
    if (opt->samples < 2 || !(opt->scale >= 0.0) || !(opt->rtol > 0.0) || !(opt->atol > 0.0) ||
        opt->pool_dim_max < 1)
        return ac_error_set(err, AC_EINVAL, "invalid transient options");
    c.m = m;
    c.opt = opt;

    tr = calloc(1, sizeof *tr);
    if (tr == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    tr->horizon = horizon;
    tr->nsamples = opt->samples;
    tr->nnodes = m->nnodes;
    tr->burst_end = NAN;
    tr->burst_peak = NAN;
    tr->t = malloc(tr->nsamples * sizeof *tr->t);
    tr->nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *tr->nodes);
    c.pool_of = malloc((m->nnodes > 0 ? m->nnodes : 1) * sizeof *c.pool_of);
    c.gamma = calloc(m->nsources + 1, sizeof *c.gamma);
    c.gslope = calloc(m->nsources + 1, sizeof *c.gslope);
    if (tr->t == NULL || tr->nodes == NULL || c.pool_of == NULL || c.gamma == NULL ||
        c.gslope == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    for (size_t s = 0; s < tr->nsamples; s++)
        tr->t[s] = horizon * (double)s / (double)(tr->nsamples - 1);
    tr->t[tr->nsamples - 1] = horizon;

    /* the bursts of the profiles */
    for (size_t q = 0; q < m->nprofiles; q++) {
        double tp = 0.0, te = 0.0;
        if (profile_burst(&m->profiles[q], &tp, &te)) {
            tr->has_burst = 1;
            tr->burst_peak = isnan(tr->burst_peak) ? tp : fmin(tr->burst_peak, tp);
            tr->burst_end = isnan(tr->burst_end) ? te : fmax(tr->burst_end, te);
        }
    }

    /* the pools */
    for (size_t v = 0; v < m->nnodes; v++) {
        c.pool_of[v] = AC_NONE;
        if (m->nodes[v].kind == AC_NODE_POOL)
            c.pool_of[v] = c.npools++;
    }
    c.pools = calloc(c.npools + 1, sizeof *c.pools);
    dims = calloc(c.npools + 1, sizeof *dims);
    c.lambda = calloc(c.npools + 1, sizeof *c.lambda);
    c.dep = calloc(c.npools + 1, sizeof *c.dep);
    if (c.pools == NULL || dims == NULL || c.lambda == NULL || c.dep == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    for (size_t v = 0, j = 0; v < m->nnodes; v++) {
        const ac_pool *p;
        if (c.pool_of[v] == AC_NONE)
            continue;
        p = &m->nodes[v].u.pool;
        c.pools[j].node = v;
        c.pools[j].N = (double)p->servers;
        c.pools[j].mu = p->service_rate;
        c.pools[j].cap = (double)p->servers * p->service_rate;
        j++;
    }
    if (routes_build(m, &routes) != AC_OK || prop_alloc(&prop, m->nnodes) != AC_OK) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    rc = build_coupling(&c, &routes, &prop, err);
    if (rc != AC_OK)
        goto fail;
    rc = pool_dims(&c, &routes, &prop, horizon, dims, tr->note, sizeof tr->note, err);
    if (rc != AC_OK)
        goto fail;
    sources_at(&c, 0.0, c.gamma, NULL);
    for (size_t j = 0; j < c.npools; j++) {
        tr_pool *tp = &c.pools[j];
        const ac_pool *p = &m->nodes[tp->node].u.pool;
        rc = ac_solver_pool_model_new(p, 0.0, dims[j], &tp->model, err);
        if (rc != AC_OK)
            goto fail;
        tp->dim = ac_solver_pool_model_dim(tp->model);
        tp->off = c.nq;
        tp->truncated = p->dispatch != AC_DISPATCH_SHARED_QUEUE &&
                        (p->buffer == AC_UNBOUNDED || tp->dim < p->buffer);
        c.nq += tp->dim;
        c.maxdim = tp->dim > c.maxdim ? tp->dim : c.maxdim;
        tr->nodes[tp->node].modelled = 1;
        tr->nodes[tp->node].dim = tp->dim;
        tr->nodes[tp->node].truncated = tp->truncated;
        tr->nodes[tp->node].steady_mean_jobs = NAN;
    }
    c.dim = c.nq + 2 * c.npools;
    tr->dim = c.dim;
    dense = c.dim <= opt->dense_max;
    tr->method = dense ? "msbdf" : "rkf45";
    c.f0 = malloc((c.maxdim + 1) * sizeof *c.f0);
    c.f1 = malloc((c.maxdim + 1) * sizeof *c.f1);
    c.jb = dense ? malloc((c.maxdim * c.maxdim + 1) * sizeof *c.jb) : NULL;
    y = calloc(c.dim + 1, sizeof *y);
    f = calloc(c.dim + 1, sizeof *f);
    if (c.f0 == NULL || c.f1 == NULL || (dense && c.jb == NULL) || y == NULL || f == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient of %zu states)", c.dim);
        goto fail;
    }
    for (size_t v = 0; v < m->nnodes; v++) {
        ac_transient_node *n = &tr->nodes[v];
        if (n->modelled == 0)
            n->steady_mean_jobs = NAN;
        if (node_alloc(n, tr->nsamples, n->modelled) != AC_OK) {
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient trajectories)");
            goto fail;
        }
    }
    if (c.npools == 0)
        note_add(tr, "no pool: only flows are computed");
    if (!dense) {
        char buf[160];
        snprintf(buf, sizeof buf,
                 "%zu states exceed the dense limit %zu: integrated with rkf45 (explicit), "
                 "not the stiff msbdf",
                 c.dim, opt->dense_max);
        note_add(tr, buf);
    }
    if (scalers_init(&c, tr) != AC_OK) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (autoscalers)");
        goto fail;
    }
    if (c.nscaled > 0)
        note_add(tr, "autoscalers follow the fluid (mean) utilisation: no fluctuations, so no "
                     "flapping and no noise in the cooldown's maximum");
    for (size_t v = 0; v < m->nnodes; v++)
        if (m->nodes[v].kind != AC_NODE_POOL) {
            note_add(tr, "nodes that are not pools pass their inflow on at once");
            break;
        }
    if (m->nlinks > 0)
        note_add(tr, "links (capacity, latency) are not in the transient model");
    if (m->npopulations > 0)
        note_add(tr, "closed workloads (<population>) are not in the transient model");

    /* the reference after the burst: the fixed point at the base rates, from empty */
    if (tr->has_burst && c.npools > 0) {
        rc = settle(&c, dense, tr->burst_end, y, &settled, err);
        if (rc != AC_OK)
            goto fail;
        for (size_t j = 0; j < c.npools; j++) {
            double L = 0.0;
            for (size_t k = 0; k < c.pools[j].dim; k++)
                L += y[c.pools[j].off + k];
            tr->nodes[c.pools[j].node].steady_mean_jobs = settled ? L : NAN;
        }
        memset(y, 0, c.dim * sizeof *y);
    }
    /* the start */
    if (opt->start == AC_TRANSIENT_START_STEADY && c.npools > 0) {
        rc = settle(&c, dense, 0.0, y, &settled, err);
        if (rc != AC_OK)
            goto fail;
        tr->started_steady = settled;
        if (!settled)
            note_add(tr, "the rates of t = 0 have no reachable fixed point: started from the "
                         "state reached after a long warm-up");
        for (size_t j = 0; j < c.npools; j++)
            y[c.nq + 2 * j] = y[c.nq + 2 * j + 1] = 0.0;
    }

    tgt = targets(m, tr, &ntarget);
    if (tgt == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    if (c.dim == 0) { /* no pool: the flows only */
        for (size_t s = 0; s < tr->nsamples; s++)
            record(&c, tr, s, tr->t[s], y, f);
        *out = tr;
        tr = NULL;
        goto fail;
    }
    {
        double mu_max = 0.0;
        for (size_t j = 0; j < c.npools; j++)
            mu_max = fmax(mu_max, c.pools[j].mu);
        if (driver_init(&dr, &c, dense, mu_max > 0.0 ? 1e-3 / mu_max : 1e-3) != AC_OK) {
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu states)", c.dim);
            goto fail;
        }
    }
    rc = integrate(&c, tr, &dr, tgt, ntarget, y, err);
    if (rc != AC_OK)
        goto fail;
    for (size_t j = 0; j < c.npools; j++) { /* server-hours and events over [0, horizon) */
        tr_pool *tp = &c.pools[j];
        ac_transient_node *n = &tr->nodes[tp->node];
        tp->hours += tp->N * (horizon - tp->t_last) / 3600.0;
        tp->t_last = horizon;
        n->server_hours = tp->hours;
        n->scaling_events = n->nevents;
        tr->server_hours += n->server_hours;
        tr->scaling_events += n->scaling_events;
    }
    for (size_t j = 0; j < c.npools; j++)
        memcpy(tr->nodes[c.pools[j].node].q_final, y + c.pools[j].off,
               c.pools[j].dim * sizeof *y);
    for (size_t j = 0; j < c.npools; j++) {
        const ac_transient_node *n = &tr->nodes[c.pools[j].node];
        if (n->truncated && n->max_tail > 1e-6) {
            char buf[200];
            snprintf(buf, sizeof buf,
                     "'%s' reaches its truncation at %zu levels (q_K up to %.2g): jobs beyond "
                     "are lost in the model",
                     m->nodes[c.pools[j].node].id, n->dim, n->max_tail);
            note_add(tr, buf);
        }
    }
    *out = tr;
    tr = NULL;
fail:
    if (dr.d != NULL)
        gsl_odeiv2_driver_free(dr.d);
    ac_transient_free(tr);
    ctx_free(&c);
    routes_free(&routes);
    prop_free(&prop);
    free(dims);
    free(y);
    free(f);
    free(tgt);
    return rc;
}

int ac_an_transient_solve(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                          ac_error *err)
{
    ac_transient_options topt = opt->transient_opt;
    ac_error e = {0};
    int rc;
    ac_transient_free(a->transient);
    a->transient = NULL;
    a->transient_note[0] = '\0';
    if (opt->transient == AC_TRANSIENT_NEVER) {
        snprintf(a->transient_note, sizeof a->transient_note, "the transient was not requested");
        return AC_OK;
    }
    if (opt->transient == AC_TRANSIENT_AUTO && m->nprofiles == 0) {
        snprintf(a->transient_note, sizeof a->transient_note, "the model has no <profile>");
        return AC_OK;
    }
    topt.scale *= a->scale;
    rc = ac_transient_run(m, &topt, &a->transient, &e);
    if (rc == AC_ENOMEM)
        return ac_error_set(err, rc, "%s", e.message);
    if (rc != AC_OK)
        snprintf(a->transient_note, sizeof a->transient_note,
                 "the transient could not be computed: %.200s", e.message);
    return AC_OK;
}
