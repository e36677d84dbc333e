/*
 * The transient of a pool (transient_internal.h): its mean-field state q_j
 * (ac_solver_pool_model, solver.h) of a fixed truncation, and its counters A (offered) and D
 * (departed):
 *   dq_j/dt = f_j(q_j; Lambda_j),  dA_j/dt = Lambda_j,  dD_j/dt = dep_j = N_j mu_j min(q_j1, 1).
 *
 * Jacobian. Block diagonal from each pool's Jacobian J_j = df_j/dq_j (at its current
 * Lambda_j), plus the coupling between pools linked by a route
 *     df_j/dq_i1 = g_j * R_ij N_i mu_i [q_i1 < 1],   g_j = df_j/dLambda_j.
 * The drift is exactly linear in the offered rate Lambda: f_k = (Lambda/N) S(P(q)) a_k(q)
 * - mu (q_k - q_{k+1}) (solver.h), where the retry factor S(P(q)) and the law a_k(q) depend
 * on q only (their q-derivatives are in J_j already); shared-queue's Lambda/N [x < 1 + B/N]
 * is linear too. solver.h does not expose df/dLambda, so g_j = f_j(Lambda = 1) - f_j(Lambda
 * = 0): exact for a linear function (two drift evaluations per pool and Jacobian call). A
 * pool that routes to a serverless node has its q_1 column differentiated in forward mode
 * through the flows (transient_ode.c); its rows take g_k dLambda_k there (the tangent of
 * this kind's drift).
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

#include "solver/transient_internal.h"

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

/* The static traffic of the pools on the grid: peak, start rate, build-up and overload time
 * of each pool, and the rate itself for the autoscaled ones (hist, at slot). */
typedef struct tr_grid {
    double *peak, *start, *build, *tover, *prev, *cur, *hist;
    size_t *slot, nas;
    tr_csr w; /* source -> pool: jobs per job of the source */
} tr_grid;

/* Jobs reaching each pool per job of each source (all nodes passing their inflow on), and
 * the pools' static traffic at the sources' `rate` at scale 1. */
static int unit_traffic(tr_ctx *c, const tr_routes *r, tr_prop *p, tr_grid *g, ac_error *err)
{
    const ac_model *m = c->m;
    for (size_t s = 0; s < m->nsources; s++) {
        if (ac_solver_tr_propagate(r, m->sources[s].to, p) != AC_OK)
            return ac_error_set(err, AC_EINPUT, "the traffic equations have no finite solution");
        for (size_t k = 0; k < p->ntouched; k++) {
            size_t v = p->touched[k];
            if (c->pool_of[v] != AC_NONE && p->acc[v] != 0.0 &&
                ac_solver_tr_csr_add(&g->w, c->pool_of[v], p->acc[v]) != AC_OK)
                return ac_error_set(err, AC_ENOMEM, "out of memory (transient truncation)");
        }
        g->w.start[s + 1] = g->w.n;
    }
    for (size_t s = 0; s < m->nsources; s++)
        for (size_t e = g->w.start[s]; e < g->w.start[s + 1]; e++)
            c->pools[g->w.to[e]].base_unit += g->w.coef[e] * m->sources[s].rate;
    return AC_OK;
}

/* The pools' static traffic at time t into cur. */
static void traffic_at(tr_ctx *c, const tr_csr *w, double t, double *cur)
{
    ac_solver_tr_sources_at(c, t, c->gamma, NULL);
    memset(cur, 0, c->npools * sizeof *cur);
    for (size_t s = 0; s < c->m->nsources; s++)
        for (size_t e = w->start[s]; e < w->start[s + 1]; e++)
            cur[w->to[e]] += w->coef[e] * c->gamma[s];
}

/* The grid over the horizon (trapezoids for the build-up), then the profile points
 * themselves (the grid may step over a short peak). */
static void grid_scan(tr_ctx *c, tr_grid *g, double horizon)
{
    const ac_model *m = c->m;
    double h = horizon / TR_GRID;
    for (size_t k = 0; k <= TR_GRID; k++) {
        traffic_at(c, &g->w, horizon * (double)k / TR_GRID, g->cur);
        for (size_t i = 0; i < c->npools; i++) {
            const tr_pool *tp = &c->pools[i];
            double mu = tp->mu * c->opt->capacity_min; /* a fault may leave this much */
            double ex0 = fmax(0.0, g->prev[i] / tp->N - mu);
            double ex1 = fmax(0.0, g->cur[i] / tp->N - mu);
            g->peak[i] = fmax(g->peak[i], g->cur[i]);
            if (g->slot[i] != AC_NONE)
                g->hist[g->slot[i] * (TR_GRID + 1) + k] = g->cur[i];
            if (k == 0) {
                g->start[i] = g->cur[i];
            } else {
                g->build[i] += 0.5 * h * (ex0 + ex1);
                if (ex0 > 0.0 || ex1 > 0.0)
                    g->tover[i] += h;
            }
        }
        memcpy(g->prev, g->cur, c->npools * sizeof *g->prev);
    }
    for (size_t q = 0; q < m->nprofiles; q++)
        for (size_t k = 0; k < m->profiles[q].npoints; k++) {
            double t = m->profiles[q].points[k].at;
            if (t > horizon)
                continue;
            traffic_at(c, &g->w, t, g->cur);
            for (size_t i = 0; i < c->npools; i++)
                g->peak[i] = fmax(g->peak[i], g->cur[i]);
        }
}

/* The truncation of pool i from the grid, at the least capacity a plan leaves
 * (options.capacity_min). */
static int dim_of(tr_ctx *c, const tr_grid *g, size_t i, double horizon, size_t *dim, int *capped,
                  ac_error *err)
{
    ac_pool at = c->m->nodes[c->pools[i].node].u.pool;
    at.service_rate *= c->opt->capacity_min;
    if (at.has_autoscale) {
        /* the largest growth of the rate over a reaction time, on the grid (at least one
         * step), capped at 100 */
        const double *hs = g->hist + g->slot[i] * (TR_GRID + 1);
        double R = at.autoscale.interval + at.autoscale.scale_up_delay, grow = 1.0;
        size_t L = (size_t)fmin(ceil(R / (horizon / TR_GRID)), (double)TR_GRID);
        L = L > 0 ? L : 1;
        for (size_t k = L; k <= TR_GRID; k++)
            if (hs[k] > hs[k - L])
                grow = fmax(grow, hs[k - L] > 0.0 ? fmin(hs[k] / hs[k - L], 100.0) : 100.0);
        return autoscaled_dim(&at, g->peak[i], g->start[i], g->build[i], g->tover[i], grow,
                              c->opt->pool_dim_max, dim, capped, err);
    }
    return choose_dim(&at, g->peak[i], g->start[i], g->build[i], g->tover[i], c->opt->pool_dim_max,
                      dim, capped, err);
}

static void grid_free(tr_grid *g)
{
    double *a[] = {g->peak, g->start, g->build, g->tover, g->prev, g->cur, g->hist};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++)
        free(a[k]);
    free(g->slot);
    ac_solver_tr_csr_free(&g->w);
}

/* The truncation of every pool (dims), noting the ones capped at options.pool_dim_max. */
int ac_solver_tr_pool_dims(tr_ctx *c, const tr_routes *r, tr_prop *p, double horizon, size_t *dims,
                           char *note, size_t note_size, ac_error *err)
{
    const ac_model *m = c->m;
    size_t np = c->npools;
    tr_grid g;
    int rc = AC_OK;
    memset(&g, 0, sizeof g);
    g.peak = calloc(np + 1, sizeof *g.peak);
    g.start = calloc(np + 1, sizeof *g.start);
    g.build = calloc(np + 1, sizeof *g.build);
    g.tover = calloc(np + 1, sizeof *g.tover);
    g.prev = calloc(np + 1, sizeof *g.prev);
    g.cur = calloc(np + 1, sizeof *g.cur);
    g.slot = calloc(np + 1, sizeof *g.slot);
    g.w.start = calloc(m->nsources + 1, sizeof *g.w.start);
    for (size_t i = 0; g.slot != NULL && i < np; i++)
        g.slot[i] = m->nodes[c->pools[i].node].u.pool.has_autoscale ? g.nas++ : AC_NONE;
    if (g.nas > 0)
        g.hist = malloc(g.nas * (TR_GRID + 1) * sizeof *g.hist);
    if (!g.peak || !g.start || !g.build || !g.tover || !g.prev || !g.cur || !g.w.start || !g.slot ||
        (g.nas > 0 && g.hist == NULL)) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient truncation)");
        goto cleanup;
    }
    rc = unit_traffic(c, r, p, &g, err);
    if (rc != AC_OK)
        goto cleanup;
    grid_scan(c, &g, horizon);
    for (size_t i = 0; i < np; i++) {
        int capped = 0;
        rc = dim_of(c, &g, i, horizon, &dims[i], &capped, err);
        if (rc != AC_OK)
            goto cleanup;
        if (capped) {
            size_t len = strlen(note);
            snprintf(
                note + len, note_size - len,
                "%s'%s' is truncated at %zu levels (the cap); jobs beyond are lost in the model",
                len ? "; " : "", m->nodes[c->pools[i].node].id, dims[i]);
        }
    }
cleanup:
    grid_free(&g);
    return rc;
}

/* d dep_i / d q_i1 */
static double dep_slope(const tr_pool *tp, const double *y)
{
    return y[tp->off] < 1.0 ? tp->cap : 0.0;
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

/*
 * Remap the state of pool j from N_old to N_new servers at an event (the top of this file):
 * per-server queues keep the count of servers holding at least k jobs, S_k = N q_k, when
 * servers are added (they start empty) or idle ones removed: q_k <- q_k N_old / N_new. When
 * more servers go than are idle, the least loaded busy ones go next and drain their jobs
 * (counted as departed, in D and in drained_jobs). The shared queue keeps its jobs:
 * x <- x N_old / N_new.
 */
void ac_solver_tr_pool_remap(tr_ctx *c, ac_transient *tr, size_t j, double N_old, double N_new,
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

/*
 * The pools' part of the Jacobian at y (after the flows at y): each pool's block J_j and
 * d dep_j / dq_j1; the explicit time dependence through the sources when no serverless
 * stage carries it (df_j/dt = g_j dLambda_j/dt); the coupling between pools by their direct
 * routes, df_j/dq_i1 = g_j R_ij dep_i'(q_i1) and dA_j/dq_i1 = R_ij dep_i' (pools whose
 * column is not differentiated through the flows). dfdy, dfdt zeroed by the caller (dfdt
 * NULL: not wanted).
 */
void ac_solver_tr_pool_jacobian(tr_ctx *c, const double *y, double *dfdy, double *dfdt)
{
    size_t D = c->dim;
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        size_t n = tp->dim;
        double lam_dot = 0.0;
        ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
        ac_solver_pool_model_jacobian(tp->model, y + tp->off, c->jb);
        for (size_t k = 0; k < n; k++)
            memcpy(dfdy + (tp->off + k) * D + tp->off, c->jb + k * n, n * sizeof *dfdy);
        dfdy[(c->nq + 2 * j + 1) * D + tp->off] = dep_slope(tp, y);
        if (c->nsl > 0 || dfdt == NULL)
            continue;
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
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        int have_g = 0;
        for (size_t i = 0; i < c->npools; i++) {
            double ds = dep_slope(&c->pools[i], y);
            size_t col = c->pools[i].off;
            if (c->fd_pool[i])
                continue;
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
}

/* g = df/dLambda of every pool at y into c->gbuf (before the forward-mode columns). */
void ac_solver_tr_pool_gradients(tr_ctx *c, const double *y)
{
    for (size_t j = 0; j < c->npools; j++) {
        drift_gradient(c, j, y + c->pools[j].off);
        memcpy(c->gbuf + c->pools[j].off, c->f1, c->pools[j].dim * sizeof *c->f1);
    }
}

/* The pools' models at their truncations `dims`, their states from c->nq on. */
int ac_solver_tr_pools_setup(tr_ctx *c, const size_t *dims, ac_transient *tr, ac_error *err)
{
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        const ac_pool *p = &c->m->nodes[tp->node].u.pool;
        int rc = ac_solver_pool_model_new(p, 0.0, dims[j], &tp->model, err);
        if (rc != AC_OK)
            return rc;
        tp->dim = ac_solver_pool_model_dim(tp->model);
        tp->off = c->nq;
        tp->truncated = p->dispatch != AC_DISPATCH_SHARED_QUEUE &&
                        (p->buffer == AC_UNBOUNDED || tp->dim < p->buffer);
        c->nq += tp->dim;
        c->maxdim = tp->dim > c->maxdim ? tp->dim : c->maxdim;
        tr->nodes[tp->node].modelled = 1;
        tr->nodes[tp->node].dim = tp->dim;
        tr->nodes[tp->node].truncated = tp->truncated;
        tr->nodes[tp->node].steady_mean_jobs = NAN;
    }
    for (size_t j = 0; j < c->npools; j++) {
        size_t v = c->pools[j].node;
        c->st_off[v] = c->pools[j].off;
        c->nst[v] = c->pools[j].dim;
        c->cnt_off[v] = c->nq + 2 * j;
        c->ncnt[v] = 2;
    }
    return AC_OK;
}

/* ---- the kind ------------------------------------------------------------------------ */

static void pool_outflow(tr_ctx *c, size_t j, const double *y, const double *yd)
{
    const tr_pool *tp = &c->pools[j];
    c->dep[j] = ac_solver_pool_model_departures(tp->model, y + tp->off);
    c->outf[tp->node] = dn(c->dep[j]);
    if (yd != NULL)
        c->outf[tp->node].d = dep_slope(tp, y) * yd[tp->off];
}

static void pool_rates(tr_ctx *c, size_t j, const double *y, const double *yd)
{
    (void)y;
    (void)yd;
    c->lambda[j] = c->lam[c->pools[j].node].v;
}

/* Values: f_j(q_j; Lambda_j) and the counters. Tangent (a forward-mode column): the rows
 * g_j dLambda_j and dA_j = dLambda_j (the block J_j and dD_j/dq_j1 are set directly). */
static void pool_drift(tr_ctx *c, size_t j, const double *y, const double *yd, double *dy,
                       int tangent)
{
    tr_pool *tp = &c->pools[j];
    size_t a = c->nq + 2 * j;
    (void)yd;
    if (!tangent) {
        ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
        ac_solver_pool_model_drift(tp->model, y + tp->off, dy + tp->off);
        dy[a] = c->lambda[j];
        dy[a + 1] = c->dep[j];
        return;
    }
    {
        double dl = c->lam[tp->node].d;
        const double *g = c->gbuf + tp->off;
        for (size_t i = 0; i < tp->dim; i++)
            dy[tp->off + i] = g[i] * dl;
        dy[a] = dl;
        dy[a + 1] = 0.0;
    }
}

static double pool_residual(const tr_ctx *c, size_t j, const double *f)
{
    const tr_pool *tp = &c->pools[j];
    double r = 0.0, s = c->lambda[j] / tp->N + tp->mu;
    for (size_t k = 0; k < tp->dim; k++)
        r = fmax(r, fabs(f[tp->off + k]) / s);
    return r;
}

static void pool_times(const tr_ctx *c, size_t j, double *slow, double *fast)
{
    *slow = fmax(*slow, 1.0 / c->pools[j].mu);
    *fast = fmin(*fast, 1.0 / c->pools[j].mu);
}

static int pool_alloc(const tr_ctx *c, size_t j, ac_transient_node *n, size_t ns)
{
    (void)c;
    (void)j;
    n->servers = malloc(ns * sizeof(double));
    return n->servers != NULL ? AC_OK : AC_ENOMEM;
}

static void pool_record(const tr_ctx *c, size_t j, ac_transient_node *n, size_t s, const double *y,
                        const double *f)
{
    const tr_pool *tp = &c->pools[j];
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
    n->in_system[s] = tp->N * L;
    n->servers[s] = tp->N;
    if (tp->truncated)
        n->max_tail = fmax(n->max_tail, q[tp->dim - 1]);
}

static double pool_mean_jobs(const tr_ctx *c, size_t j, const double *y)
{
    double L = 0.0;
    for (size_t k = 0; k < c->pools[j].dim; k++)
        L += y[c->pools[j].off + k];
    return L;
}

const tr_kind ac_solver_tr_kind_pool = {
    .name = "pool",
    .is_instant = NULL,
    .init = NULL,
    .outflow = pool_outflow,
    .instant = NULL,
    .rates = pool_rates,
    .drift = pool_drift,
    .residual = pool_residual,
    .times = pool_times,
    .alloc = pool_alloc,
    .record = pool_record,
    .mean_jobs = pool_mean_jobs,
};
