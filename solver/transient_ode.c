/*
 * The ODE of the transient (transient_internal.h): the flows between the nodes, f and its
 * Jacobian, the settling to a fixed point, and the integration with the samples.
 *
 * Coupling. Every node has an outflow: pools dep_j = N_j mu_j min(q_j1, 1), functions their
 * successful requests, queues their deliveries (batches), gateways their admitted requests;
 * node v is offered Lambda_v(t, y) = sum_s [to_s = v] gamma_s(t) + sum_u R_uv out_u with R_uv
 * = p fanout / fanin of the routes u -> v. The outflows of pools and functions depend on
 * their own state only; those of gateways and queues on their inflow at the same instant
 * (and a queue's on what its consumer takes), so they are evaluated in a topological order
 * of the routes among gateways, queues and polled functions (a cycle among them, which no
 * state would ever hold, is AC_EINPUT).
 *
 * Fluid mins. A fluid limit min(demand, capacity) that holds a stock at a bound (a slot
 * count, an empty bucket, an empty queue) is written with a relaxation time tau (TR_RELAX
 * times the node's natural time: a function's T_e, a queue's processing time, a gateway's
 * bucket time Z / r): the stock is drawn at most at stock / tau, e.g. admitted = min(Lambda,
 * r + z / tau) for a bucket of z tokens refilled at r. At a fixed point the relaxation
 * vanishes, so the fluid equilibria are exact (admitted = r + z / tau = r: the bucket is
 * empty and the rejection is Lambda - r exactly); a stock that a flow passes through hovers
 * at flow x tau (a function's idle-warm instances: TR_RELAX of its busy ones under a steady
 * load); in a transient a stock lags by a few tau. tau must not be too small either: a step
 * of BDF that leaves a stock's stiff branch (slope -1/tau) starts Newton with that slope,
 * so its first correction is about (the rates' mismatch) x tau, which must stay well above
 * the tolerance on the stock (rtol x the stock), or the old branch passes for converged (at
 * 1e-4 of the natural time the sample's bucket drained 0.3 s late; at TR_RELAX = 1e-2 the
 * error is 2e-4 tokens).
 *
 *
 * Jacobian. The pools' blocks and their coupling are analytic (transient_pool.c).
 * The columns of the serverless states, and the column of q_i1 of a pool that routes to a
 * serverless node, are exact too: forward-mode differentiation (dual numbers, tr_dn) of the
 * flows along the column's unit direction, through the instantaneous order of the gateways
 * and queues; the serverless rows take their drifts' derivatives, a pool k's rows g_k
 * dLambda_k (its own block keeps J_k). Each min() takes the derivative of the branch its
 * values select (piecewise-smooth blocks: the derivative of the side the state is on).
 * Finite differences would not do: the later keep-alive stages hover at (kappa tau)^i of the
 * flow, far below any usable difference step, so a difference straddles the kink of their
 * min() and gives BDF's Newton iteration a wrong slope (steps of tau resulted). The
 * explicit time dependence df/dt is the derivative along the sources' slopes: analytic for
 * pools fed straight by sources, and the same forward mode along gamma'(t) when serverless
 * nodes are present (profiles are piecewise linear; the integration stops at every profile
 * point). The tolerances (rtol, atol) are those of the options, as for the pools.
 *
 * Dense up to opt->dense_max states (CVODE's BDF with the Jacobian above, stored dim x dim,
 * transient_driver.c); above, rkf45 (explicit, adaptive; no Jacobian; slow if the system is
 * stiff, which the relaxations of the serverless stages make it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "solver/transient_internal.h"

/* Is node v evaluated in the instantaneous order (its outflow or its admission depends on
 * its inflow at the same instant)? */
static int is_instant(const tr_ctx *c, size_t v)
{
    const tr_kind *k = c->kind[v];
    return k->is_instant != NULL && k->is_instant(c, c->unit_of[v]);
}

/*
 * The evaluation order of the instantaneous nodes (Kahn): node w waits for u when a route
 * u -> w carries u's outflow of the same instant (u a gateway or a queue), except that a
 * queue's deliveries are known once its consumer has taken them: a route from queue u to
 * another node w makes w wait for u's consumer. AC_EINPUT on a cycle.
 */
int ac_solver_tr_build_order(tr_ctx *c, ac_error *err)
{
    const ac_model *m = c->m;
    size_t n = m->nnodes, ne = 0, done = 0;
    size_t *ef = malloc((m->nroutes + 1) * sizeof *ef), *et = malloc((m->nroutes + 1) * sizeof *et);
    size_t *indeg = calloc(n + 1, sizeof *indeg);
    unsigned char *used = calloc(n + 1, 1);
    int rc = AC_OK;
    c->order = malloc((n + 1) * sizeof *c->order);
    if (ef == NULL || et == NULL || indeg == NULL || used == NULL || c->order == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto cleanup;
    }
    for (size_t k = 0; k < m->nroutes; k++) {
        size_t u = m->routes[k].from, w = m->routes[k].to, from = u;
        ac_node_kind ku = m->nodes[u].kind;
        if (!is_instant(c, w) || (ku != AC_NODE_GATEWAY && ku != AC_NODE_QUEUE))
            continue;
        if (ku == AC_NODE_QUEUE) {
            size_t cons = ac_solver_tr_q_consumer_node(c, u);
            if (cons != AC_NONE && cons != w)
                from = cons;
        }
        ef[ne] = from;
        et[ne++] = w;
        indeg[w]++;
    }
    c->norder = 0;
    for (size_t v = 0; v < n; v++)
        if (is_instant(c, v))
            done++;
    while (c->norder < done) {
        size_t pick = AC_NONE;
        for (size_t v = 0; v < n && pick == AC_NONE; v++)
            if (is_instant(c, v) && !used[v] && indeg[v] == 0)
                pick = v;
        if (pick == AC_NONE) {
            rc = ac_error_set(err, AC_EINPUT,
                              "jobs circulate among gateways, queues and their "
                              "consumers without ever waiting in a state");
            goto cleanup;
        }
        used[pick] = 1;
        c->order[c->norder++] = pick;
        for (size_t e = 0; e < ne; e++)
            if (ef[e] == pick)
                indeg[et[e]]--;
    }
cleanup:
    free(ef);
    free(et);
    free(indeg);
    free(used);
    return rc;
}

/* ---- the ODE ----------------------------------------------------------------------------- */

/* Add node v's outflow to the nodes its routes reach (a queue's polled consumer takes its
 * deliveries through the polling, not as inflow). */
void ac_solver_tr_push_out(tr_ctx *c, size_t v)
{
    size_t cons =
        c->m->nodes[v].kind == AC_NODE_QUEUE ? ac_solver_tr_q_consumer_node(c, v) : AC_NONE;
    for (size_t e = c->rt.start[v]; e < c->rt.start[v + 1]; e++) {
        size_t l = c->rt.link[e];
        tr_dn w = dn_scale(c->outf[v], c->rt.coef[e]);
        if (c->rt.to[e] == cons)
            continue;
        if (l != AC_NONE) /* a fluid link carries the copies */
            c->lks[l].in = dn_add(c->lks[l].in, dn_scale(w, c->rt.fanin[e]));
        else
            c->lam[c->rt.to[e]] = dn_add(c->lam[c->rt.to[e]], w);
    }
}

/*
 * Every node's offered rate and outflow, and the flows of the serverless stages, at (t, y),
 * with their derivatives along the state direction yd (NULL: none) or, when `along_t`,
 * along time (the sources' slopes): the outflows that depend on a node's own state, pushed
 * on in node order; then the instantaneous nodes in their order; then the rates of the
 * others (tr_kind). The pools' Lambda_j and dep_j go to c->lambda, c->dep.
 */
/* The sources' rates and slopes into c->gamma, c->gslope at time t (0 slopes when frozen),
 * from the cache when the last evaluation's key is the same (a pure function of t, the
 * scale and the freeze: the same bits). */
static void flows_sources(tr_ctx *c, double t)
{
    size_t ns = c->m->nsources + 1;
    double tq = c->frozen ? c->t_frozen : t;
    if (c->src_valid && c->src_t == tq && c->src_scale == c->scale && c->src_frozen == c->frozen) {
        memcpy(c->gamma, c->src_cache, ns * sizeof *c->gamma);
        memcpy(c->gslope, c->src_cache + ns, ns * sizeof *c->gslope);
        return;
    }
    ac_solver_tr_sources_at(c, tq, c->gamma, c->gslope);
    if (c->frozen)
        memset(c->gslope, 0, (ns > 1 ? ns - 1 : 1) * sizeof *c->gslope);
    memcpy(c->src_cache, c->gamma, ns * sizeof *c->gamma);
    memcpy(c->src_cache + ns, c->gslope, ns * sizeof *c->gslope);
    c->src_t = tq;
    c->src_scale = c->scale;
    c->src_frozen = c->frozen;
    c->src_valid = 1;
}

void ac_solver_tr_eval_flows(tr_ctx *c, double t, const double *y, const double *yd, int along_t)
{
    const ac_model *m = c->m;
    c->vonly = yd == NULL && !along_t;
    flows_sources(c, t);
    for (size_t v = 0; v < m->nnodes; v++)
        c->lam[v] = dn(0.0);
    for (size_t s = 0; s < m->nsources; s++) {
        tr_dn g = {c->gamma[s], along_t ? c->gslope[s] : 0.0};
        c->lam[m->sources[s].to] = dn_add(c->lam[m->sources[s].to], g);
    }
    if (c->nlkst > 0)
        ac_solver_tr_links_outflow(c, y, yd);
    for (size_t v = 0; v < m->nnodes; v++)
        if (c->kind[v]->outflow != NULL)
            c->kind[v]->outflow(c, c->unit_of[v], y, yd);
    for (size_t v = 0; v < m->nnodes; v++)
        if (c->kind[v]->outflow != NULL)
            ac_solver_tr_push_out(c, v);
    for (size_t o = 0; o < c->norder; o++) {
        size_t v = c->order[o];
        c->kind[v]->instant(c, c->unit_of[v], y, yd);
    }
    for (size_t v = 0; v < m->nnodes; v++) {
        if (c->kind[v]->rates != NULL && !is_instant(c, v))
            c->kind[v]->rates(c, c->unit_of[v], y, yd);
    }
}

/* Every node's rows of f (tangent = 0) or of its derivative along the last flows' direction
 * (tangent = 1) into dy. */
static void drift_all(tr_ctx *c, const double *y, const double *yd, double *dy, int tangent)
{
    for (size_t v = 0; v < c->m->nnodes; v++)
        c->kind[v]->drift(c, c->unit_of[v], y, yd, dy, tangent);
    if (c->nlkst > 0)
        ac_solver_tr_links_drift(c, y, yd, dy, tangent);
}

int ac_solver_tr_f(double t, const double y[], double dydt[], void *params)
{
    tr_ctx *c = params;
    ac_solver_tr_eval_flows(c, t, y, NULL, 0);
    drift_all(c, y, NULL, dydt, 0);
    for (size_t k = 0; k < c->dim; k++)
        if (!isfinite(dydt[k]))
            return GSL_EBADFUNC;
    return GSL_SUCCESS;
}

/* Add one derivative of f (column `col` of dfdy, or dfdt when col == dim) from the flows'
 * derivatives just evaluated: every node's tangent rows. */
static void jac_scatter(tr_ctx *c, const double *y, const double *yd, size_t col, double *dfdy,
                        double *dfdt)
{
    size_t D = c->dim;
    double *fd = c->fd_f;
    drift_all(c, y, yd, fd, 1);
    if (col == D) {
        for (size_t r = 0; r < D; r++)
            dfdt[r] += fd[r];
        return;
    }
    for (size_t r = 0; r < D; r++)
        dfdy[r * D + col] += fd[r];
}

/*
 * The Jacobian: the pools' analytic blocks and couplings (transient_pool.c), then the
 * forward-mode columns (every serverless state, q_1 of a pool that routes to a serverless
 * node): g of every pool first, one differentiated evaluation of the flows per column, and
 * one along time for dfdt (dfdt NULL: none; CVODE's BDF does not use df/dt, and the
 * evaluation along time was 1 of the ~21 of a Jacobian on samples/faas-cascade.xml).
 */
/* The forward-mode columns of a group (ctx jgrp_*): one differentiated evaluation along
 * the sum of their directions; each column takes the rows of its entries in the pattern
 * (no other column of the group has an entry in those rows). */
static void jac_group(tr_ctx *c, double t, const double *y, size_t g, double *dfdy)
{
    size_t D = c->dim, lo = c->jgrp_start[g], hi = c->jgrp_start[g + 1];
    double *fd = c->fd_f;
    for (size_t k = lo; k < hi; k++)
        c->fd_y[c->jgrp_col[k]] = 1.0;
    ac_solver_tr_eval_flows(c, t, y, c->fd_y, 0);
    drift_all(c, y, c->fd_y, fd, 1);
    for (size_t k = lo; k < hi; k++) {
        size_t col = c->jgrp_col[k];
        c->fd_y[col] = 0.0;
        if (c->jgrp_rptr != NULL) { /* the same rows as the scan below, in the same order */
            for (size_t p = c->jgrp_rptr[k]; p < c->jgrp_rptr[k + 1]; p++) {
                size_t r = c->jgrp_row[p];
                dfdy[r * D + col] += fd[r];
            }
            continue;
        }
        for (size_t r = 0; r < D; r++)
            if (c->jmask[r * D + col])
                dfdy[r * D + col] += fd[r];
    }
}

int ac_solver_tr_jac(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    tr_ctx *c = params;
    size_t D = c->dim;
    ac_solver_tr_eval_flows(c, t, y, NULL, 0);
    if (c->jgroups > 0) /* only the pattern's entries are read */
        for (size_t k = 0; k < c->jnz; k++)
            dfdy[c->jzero[k]] = 0.0;
    else
        memset(dfdy, 0, D * D * sizeof *dfdy);
    if (dfdt != NULL)
        memset(dfdt, 0, D * sizeof *dfdt);
    ac_solver_tr_pool_jacobian(c, y, dfdy, dfdt);
    if (c->nfd == 0 && c->nsl == 0)
        return GSL_SUCCESS;
    ac_solver_tr_pool_gradients(c, y);
    memset(c->fd_y, 0, D * sizeof *c->fd_y);
    for (size_t g = 0; g < c->jgroups; g++)
        jac_group(c, t, y, g, dfdy);
    for (size_t k = 0; c->jgroups == 0 && k < c->nfd; k++) {
        size_t col = c->fdcols[k];
        c->fd_y[col] = 1.0;
        ac_solver_tr_eval_flows(c, t, y, c->fd_y, 0);
        jac_scatter(c, y, c->fd_y, col, dfdy, dfdt);
        c->fd_y[col] = 0.0;
    }
    if (dfdt == NULL)
        return GSL_SUCCESS;
    if (c->nsl > 0) {
        ac_solver_tr_eval_flows(c, t, y, NULL, 1);
        jac_scatter(c, y, NULL, D, dfdy, dfdt);
    }
    for (size_t k = 0; k < D; k++)
        if (!isfinite(dfdt[k]))
            return GSL_EBADFUNC;
    return GSL_SUCCESS;
}

/* ---- settling ---------------------------------------------------------------------------- */

/* The longest (*slow) and shortest (*fast) natural times of the nodes (s): a pool's 1/mu,
 * a function's hold time, cold start and retry back-off, a queue's processing time, a
 * gateway's time per token. 0 and INFINITY without any. */
void ac_solver_tr_node_times(const tr_ctx *c, double *slow, double *fast)
{
    *slow = 0.0;
    *fast = INFINITY;
    for (size_t v = 0; v < c->m->nnodes; v++)
        c->kind[v]->times(c, c->unit_of[v], slow, fast);
}

/* The largest drift of the fluid states (counters excluded), each relative to its node's
 * flow scale (pools: lambda_j / N_j + mu_j per server; functions: offered + scale rate +
 * C / T_free; queues: offered + received + 1; gateways: offered + rate limit): 0 at a
 * fixed point. */
static double residual(tr_ctx *c, const double *y, double *f)
{
    double r = 0.0;
    ac_solver_tr_f(0.0, y, f, c);
    for (size_t v = 0; v < c->m->nnodes; v++)
        r = fmax(r, c->kind[v]->residual(c, c->unit_of[v], f));
    return fmax(r, ac_solver_tr_links_residual(c, f));
}

/*
 * Settle: integrate with the sources frozen at their rates of time t0, from y, in chunks of
 * doubling length (from four times the slowest natural time) until the residual is below
 * TR_SETTLE_TOL (the fixed point reached from y). When the residual stops improving (four
 * chunks did not lower it below its best, or a chunk takes more than TR_SETTLE_STEPS
 * steps), the integration is at its accuracy floor (a state held at a bound by a fast
 * relaxation, tau, carries noise of about atol / tau in its drift): settled if the best
 * residual is at most TR_SETTLE_FLOOR. *settled = 0 otherwise, or after 2^40 chunks of the
 * first length.
 */
int ac_solver_tr_settle(tr_ctx *c, tr_driver *dr, double t0, double *y, tr_scratch *w, int *settled,
                        ac_error *err)
{
    double slow, fast, chunk, t = 0.0, best = INFINITY, *f = w->f;
    int rc = AC_OK;
    *settled = 0;
    ac_solver_tr_node_times(c, &slow, &fast);
    if (!(slow > 0.0) || !isfinite(slow)) {
        *settled = 1;
        return AC_OK;
    }
    c->frozen = 1;
    c->t_frozen = t0;
    chunk = 4.0 * slow;
    if (ac_solver_tr_driver_restart(dr, 0.0, y, 1e-3 * slow) != AC_OK) {
        c->frozen = 0;
        return ac_error_set(err, AC_ENUMERIC, "restarting the ODE integrator to settle");
    }
    for (int it = 0, stall = 0; it < 40; it++) {
        int st = ac_solver_tr_driver_advance(dr, t + chunk, TR_SETTLE_STEPS, &t, y);
        double res;
        if (st == AC_ELIMIT) {
            *settled = best <= TR_SETTLE_FLOOR;
            break;
        }
        if (st != AC_OK) {
            rc = ac_error_set(err, AC_ENUMERIC, "settling the start state failed at t = %g s: %s",
                              t, ac_solver_tr_driver_why(dr));
            break;
        }
        res = residual(c, y, f);
        if (res <= TR_SETTLE_TOL) {
            *settled = 1;
            break;
        }
        /* an approach to the fixed point keeps decreasing the residual, however slowly; a
           residual that goes up and down is at the integration's accuracy floor */
        if (!(res < best))
            stall++;
        best = fmin(best, res);
        if (stall >= 4) { /* at the integration's accuracy floor */
            *settled = best <= TR_SETTLE_FLOOR;
            break;
        }
        chunk *= 2.0;
    }
    c->frozen = 0;
    return rc;
}

/* ---- results ----------------------------------------------------------------------------- */

/* Record sample `s` at (t, y); f: scratch of dim (f(t, y)). */
void ac_solver_tr_record(tr_ctx *c, ac_transient *tr, size_t s, double t, const double *y,
                         double *f)
{
    ac_solver_tr_f(t, y, f, c); /* sets the rates of every node */
    for (size_t v = 0; v < c->m->nnodes; v++)
        c->kind[v]->record(c, c->unit_of[v], &tr->nodes[v], s, y, f);
    ac_solver_tr_links_record(c, tr, s, y);
    ac_solver_tr_metrics_record(c, tr, s, y);
}

/* Cubic Hermite interpolation of y at tau between (t0, y0, f0) and (t1, y1, f1). */
static void hermite(size_t n, double t0, const double *y0, const double *f0, double t1,
                    const double *y1, const double *f1, double tau, double *out)
{
    double d = t1 - t0, s = d > 0.0 ? (tau - t0) / d : 1.0, s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t k = 0; k < n; k++)
        out[k] = h00 * y0[k] + h10 * d * f0[k] + h01 * y1[k] + h11 * d * f1[k];
}

/*
 * Step freely (one step of the integrator at a time, transient_driver.c) up to each
 * target, and fill the samples from the integrator's own interpolant of the last step
 * (CVODE's, of the method's order: no evaluation of f per step) or, for rkf45, by cubic
 * Hermite interpolation between steps (f at every step). Stopping the
 * integrator at every sample would shorten its steps. At a target (a profile point: the
 * sources' slopes jump there) a multistep integrator starts a new history
 * (ac_solver_tr_driver_kink): its interpolating polynomial would otherwise straddle the
 * kink, which its error test (a root mean square over the components) lets through on a
 * small component (a gateway's bucket drained 2.7e-5 tokens late). Every step counts (*nsteps, over
 * the evaluation): past opt->max_work / dim steps, AC_ELIMIT (a hostile profile, not a hang).
 *
 * With autoscaled pools the integrator also stops at every look of a scaler and every time
 * an order is ready (scaler_next): the scaler reads the state there, and where a serving
 * count changes the state is remapped and the integrator restarted (a new history, first
 * step h0): the drift has a jump there. So does a pre-warming ping that creates
 * instances (prewarm_events), and so does every edge of a fault's window (transient_faults.c).
 * Events at the horizon itself are not applied (they belong to
 * the next period of a repeated profile): the scaling counts are over [0, horizon).
 */
/* Store the accepted step (t, y) of a run without faults; s the next sample. Growing the
 * store allocates (the first such run of a workspace); should that fail, the store is
 * dropped (the plans then integrate from t = 0). */
static void prefix_push(const tr_ctx *c, const ac_transient *tr, tr_prefix *pf, double t,
                        const double *y, size_t s)
{
    size_t D = c->dim, P = c->npools;
    if (pf->n == pf->cap) {
        size_t nc = pf->cap ? 2 * pf->cap : 1024;
        double *t2 = realloc(pf->t, nc * sizeof *t2), *y2, *tl2;
        size_t *s2;
        if (t2 != NULL)
            pf->t = t2;
        y2 = t2 != NULL ? realloc(pf->y, nc * D * sizeof *y2) : NULL;
        if (y2 != NULL)
            pf->y = y2;
        tl2 = y2 != NULL ? realloc(pf->tail, (nc * P + 1) * sizeof *tl2) : NULL;
        if (tl2 != NULL)
            pf->tail = tl2;
        s2 = tl2 != NULL ? realloc(pf->s, nc * sizeof *s2) : NULL;
        if (s2 == NULL) {
            pf->record = 0;
            pf->n = 0;
            return;
        }
        pf->s = s2;
        pf->cap = nc;
    }
    pf->t[pf->n] = t;
    memcpy(pf->y + pf->n * D, y, D * sizeof *y);
    for (size_t j = 0; j < P; j++)
        pf->tail[pf->n * P + j] = tr->nodes[c->pools[j].node].max_tail;
    pf->s[pf->n++] = s;
}

int ac_solver_tr_integrate(tr_ctx *c, ac_transient *tr, tr_driver *dr, double h0, const double *tgt,
                           size_t ntarget, double *y, double t0, size_t s0, tr_scratch *w,
                           tr_prefix *pf, size_t *nsteps, ac_error *err)
{
    size_t D = c->dim, s = s0, it = 0;
    double *y0 = w->y0, *f0 = w->f0, *f1 = w->f1, *yi = w->yi, *fr = w->f, t = t0;
    int rc = AC_OK, dense = ac_solver_tr_driver_dense(dr, t0, NULL) == AC_OK;
    if (ac_solver_tr_driver_restart(dr, t0, y, h0) != AC_OK)
        return ac_error_set(err, AC_ENUMERIC, "restarting the ODE integrator at t = %g s", t0);
    if (s == 0)
        ac_solver_tr_record(c, tr, s++, 0.0, y, fr);
    memcpy(y0, y, D * sizeof *y);
    ac_solver_tr_f(t, y, f0, c);
    while (t < tr->horizon) {
        double t_stop;
        if (c->nscaled > 0 || c->nprewarm > 0 || c->plan != NULL) {
            int changed = 0, scaled = 0; /* scaler_events sets its flag, not ORs it */
            rc = ac_solver_tr_faults_apply(c, tr, t, y, &changed, err);
            if (rc != AC_OK)
                goto cleanup;
            rc = ac_solver_tr_scaler_events(c, tr, t, y, &scaled, err);
            if (rc != AC_OK)
                goto cleanup;
            changed |= scaled;
            ac_solver_tr_prewarm_events(c, t, y, &changed);
            if (changed) {
                if (ac_solver_tr_driver_restart(dr, t, y, h0) != AC_OK) {
                    rc = ac_error_set(err, AC_ENUMERIC, "restarting the ODE integrator at t = %g s",
                                      t);
                    goto cleanup;
                }
                memcpy(y0, y, D * sizeof *y);
                ac_solver_tr_f(t, y, f0, c);
            }
        }
        if (it < ntarget && tgt[it] == t && t > t0 &&
            ac_solver_tr_driver_kink(dr, t, y, h0) != AC_OK) {
            rc = ac_error_set(err, AC_ENUMERIC, "restarting the ODE integrator at t = %g s", t);
            goto cleanup;
        }
        while (it < ntarget && tgt[it] <= t)
            it++;
        t_stop = it < ntarget ? tgt[it] : tr->horizon;
        if (c->nscaled > 0)
            t_stop = fmin(t_stop, ac_solver_tr_scaler_next(c));
        if (c->nprewarm > 0)
            t_stop = fmin(t_stop, ac_solver_tr_prewarm_next(c));
        if (c->plan != NULL)
            t_stop = fmin(t_stop, ac_solver_tr_faults_next(c));
        if (!(t_stop > t)) { /* cannot happen: the events at t are done */
            rc = ac_error_set(err, AC_ENUMERIC,
                              "the transient's event times do not advance at "
                              "t = %g s",
                              t);
            goto cleanup;
        }
        while (t < t_stop) {
            double tp = t;
            if ((double)(*nsteps + 1) * (double)D > c->opt->max_work) {
                rc = ac_error_set(err, AC_ELIMIT,
                                  "the transient (%zu states) used its work budget of %g "
                                  "(%zu steps) at t = %g s of %g s",
                                  D, c->opt->max_work, *nsteps, t, tr->horizon);
                goto cleanup;
            }
            ++*nsteps;
            if (ac_solver_tr_driver_step(dr, t_stop, &t, y) != AC_OK) {
                rc = ac_error_set(err, AC_ENUMERIC,
                                  "the transient (%s, %zu states) failed at t = %g s: %s",
                                  tr->method, D, t, ac_solver_tr_driver_why(dr));
                goto cleanup;
            }
            if (dense) { /* the integrator's interpolant */
                while (s < tr->nsamples && tr->t[s] <= t) {
                    if (ac_solver_tr_driver_dense(dr, tr->t[s], yi) != AC_OK)
                        memcpy(yi, y, D * sizeof *y); /* cannot happen: t[s] is in the step */
                    ac_solver_tr_record(c, tr, s, tr->t[s], yi, fr);
                    s++;
                }
            } else {
                ac_solver_tr_f(t, y, f1, c);
                while (s < tr->nsamples && tr->t[s] <= t) {
                    hermite(D, tp, y0, f0, t, y, f1, tr->t[s], yi);
                    ac_solver_tr_record(c, tr, s, tr->t[s], yi, fr);
                    s++;
                }
                memcpy(f0, f1, D * sizeof *f1);
                memcpy(y0, y, D * sizeof *y);
            }
            if (pf != NULL && pf->record)
                prefix_push(c, tr, pf, t, y, s);
        }
    }
    for (; s < tr->nsamples; s++) /* rounding at the horizon */
        ac_solver_tr_record(c, tr, s, tr->t[s], y, fr);
cleanup:
    return rc;
}
