/*
 * The transient of a gateway (transient_internal.h; doc/serverless.md).
 *
 * Gateways. Bucket Z = max(burst, 1) tokens, full at t = 0, refilled at r:
 *   admitted = min(Lambda, r + z / tau),  dz/dt = min(r, admitted + (Z - z) / tau) - admitted,
 * rejected = Lambda - admitted (the fluid: rejection starts when the bucket is empty, where
 * the real bucket rejects below one token, and Poisson arrivals reject some before). An
 * unbounded rate limit admits everything (no state). Counters: offered, admitted, rejected.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/transient_internal.h"

void ac_solver_tr_gw_setup(const ac_model *m, size_t v, tr_gw *W)
{
    const ac_gateway *g = &m->nodes[v].u.gateway;
    W->node = v;
    W->r = g->rate_limit;
    W->bounded = isfinite(g->rate_limit);
    W->Z = fmax(1.0, (double)g->burst);
    /* the relaxation on the bucket's time Z / r, not one token's: a step that leaves the
       full bucket's stiff branch must show a Newton correction of (lambda - r) tau well
       above the tolerance rtol Z, or msbdf can take the old branch as converged */
    W->tau = W->bounded && W->r > 0.0 ? TR_RELAX * W->Z / W->r : TR_RELAX;
}

static void gw_rates(const tr_gw *W, const double *y, const double *yd, tr_dn lam, tr_gw_rates *r)
{
    memset(r, 0, sizeof *r);
    r->lam = lam;
    if (!W->bounded) {
        r->adm = lam;
        return;
    }
    r->adm = dn_min(lam, dn_add(dn(W->r), dn_scale(dn_y(y, yd, W->off), 1.0 / W->tau)));
    r->refill = dn_min(
        dn(W->r), dn_add(r->adm, dn_scale(dn_sub(dn(W->Z), dn_y(y, yd, W->off)), 1.0 / W->tau)));
    r->rej = dn_sub(lam, r->adm);
}

static void gw_drift(tr_ctx *c, size_t i, const double *y, const double *yd, double *dy,
                     int tangent)
{
    const tr_gw *W = &c->gws[i];
    const tr_gw_rates *r = &c->gr[i];
    size_t oc = W->off + (W->bounded ? 1 : 0);
    (void)y;
    (void)yd;
    if (W->bounded)
        dn_out(dy, W->off, dn_sub(r->refill, r->adm), tangent);
    dn_out(dy, oc + GC_A, r->lam, tangent);
    dn_out(dy, oc + GC_S, r->adm, tangent);
    dn_out(dy, oc + GC_L, r->rej, tangent);
}

static void gw_record(const tr_ctx *c, size_t i, ac_transient_node *n, size_t s, const double *y,
                      const double *f)
{
    const tr_gw *W = &c->gws[i];
    const tr_gw_rates *r = &c->gr[i];
    const double *cnt = y + W->off + (W->bounded ? 1 : 0);
    (void)f;
    n->arrival_rate[s] = r->lam.v;
    n->throughput[s] = r->adm.v;
    n->mean_jobs[s] = W->bounded ? tr_pos(W->Z - y[W->off]) : 0.0;
    n->utilization[s] = W->bounded && W->r > 0.0 ? r->adm.v / W->r : 0.0;
    n->loss_rate[s] = r->rej.v;
    n->mean_response_time[s] = 0.0;
    n->in_system[s] = 0.0;
    if (W->bounded)
        n->tokens[s] = tr_pos(y[W->off]);
    n->cum_arrivals[s] = cnt[GC_A];
    n->cum_departures[s] = cnt[GC_S];
    n->cum_lost[s] = cnt[GC_L];
}

/* ---- the kind ------------------------------------------------------------------------ */

static int gw_is_instant(const tr_ctx *c, size_t i)
{
    (void)c;
    (void)i;
    return 1;
}

/* A full bucket. */
static void gw_init(const tr_ctx *c, size_t i, double *y)
{
    if (c->gws[i].bounded)
        y[c->gws[i].off] = c->gws[i].Z;
}

static void gw_instant(tr_ctx *c, size_t u, const double *y, const double *yd)
{
    size_t v = c->gws[u].node;
    gw_rates(&c->gws[u], y, yd, c->lam[v], &c->gr[u]);
    c->outf[v] = c->gr[u].adm;
    ac_solver_tr_push_out(c, v);
}

/* Flow scale: offered + rate limit. */
static double gw_residual(const tr_ctx *c, size_t i, const double *f)
{
    if (!c->gws[i].bounded)
        return 0.0;
    return fabs(f[c->gws[i].off]) / (c->gr[i].lam.v + c->gws[i].r);
}

/* The time per token. */
static void gw_times(const tr_ctx *c, size_t i, double *slow, double *fast)
{
    if (!(c->gws[i].bounded && c->gws[i].r > 0.0))
        return;
    *slow = fmax(*slow, 1.0 / c->gws[i].r);
    *fast = fmin(*fast, 1.0 / c->gws[i].r);
}

static int gw_alloc(const tr_ctx *c, size_t i, ac_transient_node *n, size_t ns)
{
    n->cum_lost = malloc(ns * sizeof(double));
    if (n->cum_lost == NULL)
        return AC_ENOMEM;
    if (c->gws[i].bounded && (n->tokens = malloc(ns * sizeof(double))) == NULL)
        return AC_ENOMEM;
    return AC_OK;
}

/* Tokens in use: the bucket's deficit. */
static double gw_mean_jobs(const tr_ctx *c, size_t i, const double *y)
{
    const tr_gw *W = &c->gws[i];
    return W->bounded ? tr_pos(W->Z - y[W->off]) : 0.0;
}

const tr_kind ac_solver_tr_kind_gateway = {
    .name = "gateway",
    .is_instant = gw_is_instant,
    .init = gw_init,
    .outflow = NULL,
    .instant = gw_instant,
    .rates = NULL,
    .drift = gw_drift,
    .residual = gw_residual,
    .times = gw_times,
    .alloc = gw_alloc,
    .record = gw_record,
    .mean_jobs = gw_mean_jobs,
};
