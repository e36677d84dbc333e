/*
 * The driver of the fluid transient of an open network (transient.h, models.md §4, §5): it
 * builds the context (the pools' truncations and models, the serverless stages' parameters,
 * the state layout, the evaluation order, the Jacobian's forward-mode columns), settles the
 * start state, integrates (transient_ode.c) and fills the result. The node kinds are behind
 * ac_solver_tr_kinds (one file each, transient_internal.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "solver/transient_internal.h"

/* The kinds by ac_node_kind. */
static const tr_kind *const kinds[] = {
    [AC_NODE_POOL] = &ac_solver_tr_kind_pool,
    [AC_NODE_FUNCTION] = &ac_solver_tr_kind_function,
    [AC_NODE_QUEUE] = &ac_solver_tr_kind_queue,
    [AC_NODE_GATEWAY] = &ac_solver_tr_kind_gateway,
};

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
    opt->capacity_min = 1.0;
    opt->max_work = AC_TRANSIENT_MAX_WORK;
    opt->percentiles = 1;
    opt->backlog_threshold = 1.0;
}

double ac_transient_horizon(const ac_model *m, const ac_transient_options *opt)
{
    double h = 0.0;
    if (opt != NULL && opt->horizon > 0.0)
        return opt->horizon;
    for (size_t q = 0; q < m->nprofiles; q++)
        h = fmax(h, m->profiles[q].points[m->profiles[q].npoints - 1].at);
    return h;
}

int ac_transient_profile_burst(const ac_profile *p, double *t_peak, double *t_end)
{
    return ac_solver_tr_profile_burst(p, t_peak, t_end);
}

/* ---- results ----------------------------------------------------------------------------- */

static void node_free(ac_transient_node *n)
{
    double **arrays[] = {&n->arrival_rate,   &n->throughput,     &n->mean_jobs,
                         &n->utilization,    &n->loss_rate,      &n->mean_response_time,
                         &n->cum_arrivals,   &n->cum_departures, &n->q_final,
                         &n->in_system,      &n->servers,        &n->event_t,
                         &n->change_t,       &n->instances,      &n->busy,
                         &n->initialising,   &n->idle,           &n->cold_start_rate,
                         &n->execution_rate, &n->throttle_rate,  &n->failure_rate,
                         &n->backlog,        &n->tokens,         &n->dead_letter_rate,
                         &n->cum_lost,       &n->cum_admitted,   &n->cum_throttled,
                         &n->cum_cold_starts};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        free(*arrays[k]);
        *arrays[k] = NULL;
    }
    free(n->event_target);
    free(n->change_servers);
    n->event_target = n->change_servers = NULL;
}

void ac_transient_free(ac_transient *tr)
{
    if (tr == NULL)
        return;
    ac_solver_tr_metrics_free(tr);
    for (size_t i = 0; tr->nodes != NULL && i < tr->nnodes; i++)
        node_free(&tr->nodes[i]);
    free(tr->nodes);
    free(tr->t);
    free(tr);
}

/* Allocate the trajectories of node v (n->dim set): the common ones, then its kind's. */
static int node_alloc(const tr_ctx *c, size_t v, ac_transient_node *n, size_t ns)
{
    double **common[] = {&n->arrival_rate, &n->throughput,     &n->mean_jobs,
                         &n->utilization,  &n->loss_rate,      &n->mean_response_time,
                         &n->cum_arrivals, &n->cum_departures, &n->in_system};
    for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
        if ((*common[k] = malloc(ns * sizeof(double))) == NULL)
            return AC_ENOMEM;
    n->q_final = malloc((n->dim + 1) * sizeof(double));
    if (n->q_final == NULL)
        return AC_ENOMEM;
    return c->kind[v]->alloc(c, c->unit_of[v], n, ns);
}

static void note_add(ac_transient *tr, const char *text)
{
    size_t len = strlen(tr->note);
    snprintf(tr->note + len, sizeof tr->note - len, "%s%s", len ? "; " : "", text);
}

/* ---- the context ------------------------------------------------------------------------- */

static void ctx_free(tr_ctx *c)
{
    void *arrays[] = {
        c->pools, c->pool_of, c->fd_pool, c->gamma,   c->gslope, c->lambda, c->dep,      c->f0,
        c->f1,    c->jb,      c->unit_of, c->fns,     c->qs,     c->gws,    c->fr,       c->qr,
        c->gr,    c->lam,     c->outf,    c->order,   c->fdcols, c->fd_y,   c->fd_f,     c->gbuf,
        c->kind,  c->st_off,  c->nst,     c->cnt_off, c->ncnt,   c->edges,  c->src_cache};
    ac_solver_tr_scalers_free(c);
    ac_solver_tr_links_free(c);
    for (size_t j = 0; c->pools != NULL && j < c->npools; j++)
        ac_solver_pool_model_free(c->pools[j].model);
    ac_solver_tr_csr_free(&c->cp);
    ac_solver_tr_csr_free(&c->sp);
    ac_solver_tr_routes_free(&c->rt);
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    memset(c, 0, sizeof *c);
}

/* The node arrays: kinds, units (index among the nodes of the kind), pools. */
static int ctx_nodes(tr_ctx *c, ac_error *err)
{
    const ac_model *m = c->m;
    size_t n = m->nnodes > 0 ? m->nnodes : 1;
    c->kind = malloc(n * sizeof *c->kind);
    c->unit_of = malloc(n * sizeof *c->unit_of);
    c->pool_of = malloc(n * sizeof *c->pool_of);
    c->st_off = calloc(n, sizeof *c->st_off);
    c->nst = calloc(n, sizeof *c->nst);
    c->cnt_off = calloc(n, sizeof *c->cnt_off);
    c->ncnt = calloc(n, sizeof *c->ncnt);
    c->lam = calloc(n, sizeof *c->lam);
    c->outf = calloc(n, sizeof *c->outf);
    c->gamma = calloc(m->nsources + 1, sizeof *c->gamma);
    c->gslope = calloc(m->nsources + 1, sizeof *c->gslope);
    c->src_cache = calloc(2 * (m->nsources + 1), sizeof *c->src_cache);
    c->src_valid = 0;
    if (!c->kind || !c->unit_of || !c->pool_of || !c->st_off || !c->nst || !c->cnt_off ||
        !c->ncnt || !c->lam || !c->outf || !c->gamma || !c->gslope || !c->src_cache)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t v = 0; v < m->nnodes; v++) {
        ac_node_kind k = m->nodes[v].kind;
        c->kind[v] = kinds[k];
        c->pool_of[v] = AC_NONE;
        switch (k) {
        case AC_NODE_POOL: c->unit_of[v] = c->pool_of[v] = c->npools++; break;
        case AC_NODE_FUNCTION: c->unit_of[v] = c->nfns++; break;
        case AC_NODE_QUEUE: c->unit_of[v] = c->nqs++; break;
        case AC_NODE_GATEWAY: c->unit_of[v] = c->ngws++; break;
        }
    }
    c->nsl = c->nfns + c->nqs + c->ngws;
    c->pools = calloc(c->npools + 1, sizeof *c->pools);
    c->lambda = calloc(c->npools + 1, sizeof *c->lambda);
    c->dep = calloc(c->npools + 1, sizeof *c->dep);
    if (c->pools == NULL || c->lambda == NULL || c->dep == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t v = 0; v < m->nnodes; v++) {
        tr_pool *tp;
        if (c->pool_of[v] == AC_NONE)
            continue;
        tp = &c->pools[c->pool_of[v]];
        tp->node = v;
        tp->N = (double)m->nodes[v].u.pool.servers;
        tp->mu = m->nodes[v].u.pool.service_rate;
        tp->cap = tp->N * tp->mu;
    }
    return AC_OK;
}

/* The parameters of the serverless stages (functions and gateways first: a queue reads
 * its consumer's), and a polled function's slots bounded by its queues' max-consumers. */
static int sl_params(tr_ctx *c, ac_error *err)
{
    const ac_model *m = c->m;
    c->fns = calloc(c->nfns + 1, sizeof *c->fns);
    c->qs = calloc(c->nqs + 1, sizeof *c->qs);
    c->gws = calloc(c->ngws + 1, sizeof *c->gws);
    c->fr = calloc(c->nfns + 1, sizeof *c->fr);
    c->qr = calloc(c->nqs + 1, sizeof *c->qr);
    c->gr = calloc(c->ngws + 1, sizeof *c->gr);
    if (!c->fns || !c->qs || !c->gws || !c->fr || !c->qr || !c->gr)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t v = 0; v < m->nnodes; v++) {
        if (m->nodes[v].kind == AC_NODE_FUNCTION)
            ac_solver_tr_fn_setup(m, v, &c->fns[c->unit_of[v]]);
        else if (m->nodes[v].kind == AC_NODE_GATEWAY)
            ac_solver_tr_gw_setup(m, v, &c->gws[c->unit_of[v]]);
    }
    for (size_t v = 0; v < m->nnodes; v++)
        if (m->nodes[v].kind == AC_NODE_QUEUE)
            ac_solver_tr_q_setup(m, v, c->fns, c->unit_of, &c->qs[c->unit_of[v]]);
    for (size_t i = 0; i < c->nfns; i++) {
        double M = 0.0;
        int fed = 0;
        for (size_t q = 0; q < c->nqs; q++)
            if (c->qs[q].cons == i) {
                M += (double)m->nodes[c->qs[q].node].u.queue.max_consumers;
                fed = 1;
            }
        if (fed)
            c->fns[i].Cp = fmin(c->fns[i].C, M);
        if (c->fns[i].W > 0.0)
            c->nprewarm++;
    }
    return AC_OK;
}

/* Fluid states (counters excluded) and counters of serverless node v. */
static void sl_sizes(const tr_ctx *c, size_t v, size_t *nstate, size_t *ncount)
{
    switch (c->m->nodes[v].kind) {
    case AC_NODE_FUNCTION: *nstate = FN_NSTATE, *ncount = FC_N; break;
    case AC_NODE_QUEUE: *nstate = Q_NSTATE, *ncount = QC_N; break;
    case AC_NODE_GATEWAY: *nstate = c->gws[c->unit_of[v]].bounded ? 1 : 0, *ncount = GC_N; break;
    default: *nstate = *ncount = 0; break;
    }
}

/*
 * The serverless stages: their parameters, their states from c->dim on (c->dim grows), the
 * evaluation order of the instantaneous nodes, and the Jacobian's columns by forward mode
 * (every serverless state, and q_1 of every pool that routes to a serverless node).
 */
static int sl_setup(tr_ctx *c, ac_transient *tr, ac_error *err)
{
    const ac_model *m = c->m;
    size_t ncols = c->npools;
    int rc = sl_params(c, err);
    if (rc != AC_OK)
        return rc;
    for (size_t v = 0; v < m->nnodes; v++) {
        size_t ns, nc, u = c->unit_of[v];
        if (m->nodes[v].kind == AC_NODE_POOL)
            continue;
        sl_sizes(c, v, &ns, &nc);
        switch (m->nodes[v].kind) {
        case AC_NODE_FUNCTION: c->fns[u].off = c->dim; break;
        case AC_NODE_QUEUE: c->qs[u].off = c->dim; break;
        default: c->gws[u].off = c->dim; break;
        }
        c->st_off[v] = c->dim;
        c->nst[v] = ns;
        c->cnt_off[v] = c->dim + ns;
        c->ncnt[v] = nc;
        c->dim += ns + nc;
        ncols += ns;
        tr->nodes[v].modelled = 1;
        tr->nodes[v].dim = ns;
        tr->nodes[v].steady_mean_jobs = NAN;
    }
    if (ac_solver_tr_build_order(c, err) != AC_OK)
        return err->code;
    c->fdcols = malloc((ncols + 1) * sizeof *c->fdcols);
    if (c->fdcols == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t j = 0; j < c->npools; j++)
        if (c->fd_pool[j])
            c->fdcols[c->nfd++] = c->pools[j].off;
    for (size_t v = 0; v < m->nnodes; v++)
        for (size_t k = 0; m->nodes[v].kind != AC_NODE_POOL && k < c->nst[v]; k++)
            c->fdcols[c->nfd++] = c->st_off[v] + k;
    return AC_OK;
}

/* The empty state: no job anywhere, every bucket (scale tokens, gateway tokens) full. */
static void init_state(const tr_ctx *c, double *y)
{
    memset(y, 0, (c->dim + 1) * sizeof *y);
    for (size_t v = 0; v < c->m->nnodes; v++)
        if (c->kind[v]->init != NULL)
            c->kind[v]->init(c, c->unit_of[v], y);
}

/* Every counter back to 0. */
static void zero_counters(const tr_ctx *c, double *y)
{
    for (size_t v = 0; v < c->m->nnodes; v++)
        memset(y + c->cnt_off[v], 0, c->ncnt[v] * sizeof *y);
    ac_solver_tr_links_zero(c, y);
}

/* The notes on what the model leaves out. */
static void notes(const tr_ctx *c, ac_transient *tr)
{
    if (c->nscaled > 0)
        note_add(tr, "autoscalers follow the fluid (mean) utilisation: no fluctuations, so no "
                     "flapping and no noise in the cooldown's maximum");
    if (c->nfns > 0)
        note_add(tr, "functions as fluids: no throttling below the concurrency and no cold "
                     "starts under a steady load (the steady state has both)");
    if (c->ngws > 0)
        note_add(tr, "gateways reject once the bucket is empty; no 504s (timeouts)");
    if (c->m->nlinks > 0)
        note_add(tr, "links as fluids with the stationary M/D/1(/K) correction and Erlang "
                     "stages for their latency (solver/transient_link.c)");
    if (c->m->npopulations > 0)
        note_add(tr, "closed workloads (<population>) are not in the transient model");
}

/* The result's frame: sample times, the bursts of the profiles, the nodes. */
static ac_transient *result_new(const ac_model *m, double horizon, size_t nsamples)
{
    ac_transient *tr = calloc(1, sizeof *tr);
    if (tr == NULL)
        return NULL;
    tr->horizon = horizon;
    tr->nsamples = nsamples;
    tr->nnodes = m->nnodes;
    tr->burst_end = NAN;
    tr->burst_peak = NAN;
    tr->t = malloc(nsamples * sizeof *tr->t);
    tr->nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *tr->nodes);
    if (tr->t == NULL || tr->nodes == NULL) {
        ac_transient_free(tr);
        return NULL;
    }
    for (size_t s = 0; s < nsamples; s++)
        tr->t[s] = horizon * (double)s / (double)(nsamples - 1);
    tr->t[nsamples - 1] = horizon;
    for (size_t q = 0; q < m->nprofiles; q++) {
        double tp = 0.0, te = 0.0;
        if (ac_solver_tr_profile_burst(&m->profiles[q], &tp, &te)) {
            tr->has_burst = 1;
            tr->burst_peak = isnan(tr->burst_peak) ? tp : fmin(tr->burst_peak, tp);
            tr->burst_end = isnan(tr->burst_end) ? te : fmax(tr->burst_end, te);
        }
    }
    return tr;
}

/* The pools' truncations and models, then the serverless stages. */
static int ctx_build(tr_ctx *c, ac_transient *tr, ac_error *err)
{
    tr_prop prop;
    size_t *dims = NULL;
    int rc;
    memset(&prop, 0, sizeof prop);
    rc = ctx_nodes(c, err);
    if (rc != AC_OK)
        return rc;
    dims = calloc(c->npools + 1, sizeof *dims);
    if (dims == NULL || ac_solver_tr_routes_build(c->m, &c->rt) != AC_OK ||
        ac_solver_tr_prop_alloc(&prop, c->m->nnodes) != AC_OK) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto cleanup;
    }
    rc = ac_solver_tr_links_setup(c, err);
    if (rc == AC_OK)
        rc = ac_solver_tr_build_coupling(c, err);
    if (rc != AC_OK)
        goto cleanup;
    rc =
        ac_solver_tr_pool_dims(c, &c->rt, &prop, tr->horizon, dims, tr->note, sizeof tr->note, err);
    if (rc != AC_OK)
        goto cleanup;
    rc = ac_solver_tr_pools_setup(c, dims, tr, err);
    if (rc != AC_OK)
        goto cleanup;
    c->dim = c->nq + 2 * c->npools;
    rc = sl_setup(c, tr, err);
    if (rc == AC_OK)
        rc = ac_solver_tr_links_layout(c, err);
cleanup:
    ac_solver_tr_prop_free(&prop);
    free(dims);
    return rc;
}

/* The scratch of the flows and of the Jacobian, and the trajectories of every node. */
static int ctx_scratch(tr_ctx *c, ac_transient *tr, int dense, ac_error *err)
{
    c->f0 = malloc((c->maxdim + 1) * sizeof *c->f0);
    c->f1 = malloc((c->maxdim + 1) * sizeof *c->f1);
    c->jb = dense ? malloc((c->maxdim * c->maxdim + 1) * sizeof *c->jb) : NULL;
    c->fd_y = malloc((c->dim + 1) * sizeof *c->fd_y);
    c->fd_f = malloc((c->dim + 1) * sizeof *c->fd_f);
    c->gbuf = malloc((c->nq + 1) * sizeof *c->gbuf);
    if (c->f0 == NULL || c->f1 == NULL || (dense && c->jb == NULL) || c->fd_y == NULL ||
        c->fd_f == NULL || c->gbuf == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient of %zu states)", c->dim);
    for (size_t v = 0; v < c->m->nnodes; v++)
        if (node_alloc(c, v, &tr->nodes[v], tr->nsamples) != AC_OK)
            return ac_error_set(err, AC_ENOMEM, "out of memory (transient trajectories)");
    if (ac_solver_tr_scalers_init(c, tr) != AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (autoscalers)");
    return ac_solver_tr_faults_init(c, err);
}

/* After the integration: server-hours and events over [0, horizon), the final states, the
 * pre-warmed instances, the truncations reached. */
static void finish(tr_ctx *c, ac_transient *tr, const double *y)
{
    const ac_model *m = c->m;
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        ac_transient_node *n = &tr->nodes[tp->node];
        tp->hours += tp->N * (tr->horizon - tp->t_last) / 3600.0;
        tp->t_last = tr->horizon;
        n->server_hours = tp->hours;
        n->scaling_events = n->nevents;
        tr->server_hours += n->server_hours;
        tr->scaling_events += n->scaling_events;
    }
    for (size_t v = 0; v < m->nnodes; v++)
        memcpy(tr->nodes[v].q_final, y + c->st_off[v], tr->nodes[v].dim * sizeof *y);
    for (size_t i = 0; i < c->nfns; i++)
        tr->nodes[c->fns[i].node].prewarm_instances = c->fns[i].prewarmed;
    for (size_t j = 0; j < c->npools; j++) {
        const ac_transient_node *n = &tr->nodes[c->pools[j].node];
        if (n->truncated && n->max_tail > 1e-6) {
            char buf[200];
            snprintf(buf, sizeof buf,
                     "'%s' reaches its truncation at %zu levels (q_K up to %.2g): jobs beyond "
                     "are lost in the model",
                     m->nodes[c->pools[j].node].id, n->dim, n->max_tail);
            note_add(tr, buf);
        }
    }
}

/* ---- the workspace ----------------------------------------------------------------------- */

struct ac_transient_ws {
    tr_ctx c;
    ac_transient_options opt;                   /* c.opt points here */
    ac_transient *tr;                           /* the result, overwritten by every evaluation */
    char note[sizeof((ac_transient *)0)->note]; /* the notes that hold for every evaluation */
    int dense;
    tr_driver *dr; /* NULL: nothing to integrate */
    double h0;     /* s, the first step of the integration */
    double *tgt;   /* the integration targets (the sources' kinks, the horizon) */
    size_t ntarget;
    double *y;    /* the state */
    tr_scratch w; /* scratch of dim + 1 each */
    /* the settled start of the last scale evaluated: the state, whether it settled, and the
       reference after the burst (steady_mean_jobs of every node) */
    int cached;
    double cache_scale;
    double *y_start, *ref;
    int start_settled;
    /* the run without faults at pf_scale, the prefix of the plans (resume_point) */
    tr_prefix pf;
    int pf_valid;
    double pf_scale;
    double **arrays; /* the result's sample arrays */
    size_t narrays;
    double *saved; /* their values in that run (narrays x nsamples) */
};

void ac_transient_ws_free(ac_transient_ws *ws)
{
    if (ws == NULL)
        return;
    ac_solver_tr_driver_free(ws->dr);
    ac_transient_free(ws->tr);
    ctx_free(&ws->c);
    free(ws->tgt);
    free(ws->y);
    free(ws->w.f);
    free(ws->w.y0);
    free(ws->w.f0);
    free(ws->w.f1);
    free(ws->w.yi);
    free(ws->y_start);
    free(ws->ref);
    free(ws->pf.t);
    free(ws->pf.y);
    free(ws->pf.tail);
    free(ws->pf.s);
    free(ws->arrays);
    free(ws->saved);
    free(ws);
}

/* Every sample array of the result, in a fixed order, into ws->arrays (NULL: count only). */
static size_t sample_arrays(ac_transient_ws *ws, double **arrays)
{
    size_t n = 0;
    for (size_t v = 0; v < ws->c.m->nnodes; v++) {
        ac_transient_node *nd = &ws->tr->nodes[v];
        double *a[] = {nd->arrival_rate,   nd->throughput,     nd->mean_jobs,
                       nd->utilization,    nd->loss_rate,      nd->mean_response_time,
                       nd->cum_arrivals,   nd->cum_departures, nd->in_system,
                       nd->servers,        nd->instances,      nd->busy,
                       nd->initialising,   nd->idle,           nd->cold_start_rate,
                       nd->execution_rate, nd->throttle_rate,  nd->failure_rate,
                       nd->backlog,        nd->tokens,         nd->dead_letter_rate,
                       nd->cum_lost,       nd->cum_admitted,   nd->cum_throttled,
                       nd->cum_cold_starts};
        for (size_t k = 0; k < sizeof a / sizeof a[0]; k++)
            if (a[k] != NULL) {
                if (arrays != NULL)
                    arrays[n] = a[k];
                n++;
            }
    }
    return n + ac_solver_tr_metrics_arrays(ws->tr, arrays != NULL ? arrays + n : NULL);
}

/* The state vectors, the targets and the ODE driver of a workspace whose context is built. */
static int ws_vectors(ac_transient_ws *ws, ac_error *err)
{
    tr_ctx *c = &ws->c;
    size_t n = c->dim + 1;
    double slow, fast;
    double **v[] = {&ws->y, &ws->w.f, &ws->w.y0, &ws->w.f0, &ws->w.f1, &ws->w.yi, &ws->y_start};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        if ((*v[k] = calloc(n, sizeof(double))) == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (transient of %zu states)", c->dim);
    ws->ref = calloc(c->m->nnodes + 1, sizeof *ws->ref);
    ws->tgt = ac_solver_tr_targets(c->m, ws->tr->horizon, ws->tr->nsamples, &ws->ntarget);
    if (ws->ref == NULL || ws->tgt == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    ws->narrays = sample_arrays(ws, NULL);
    ws->arrays = malloc((ws->narrays + 1) * sizeof *ws->arrays);
    ws->saved = malloc((ws->narrays * ws->tr->nsamples + 1) * sizeof *ws->saved);
    if (ws->arrays == NULL || ws->saved == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    (void)sample_arrays(ws, ws->arrays);
    if (c->dim == 0)
        return AC_OK;
    ac_solver_tr_node_times(c, &slow, &fast);
    ws->h0 = isfinite(fast) ? 1e-3 * fast : 1e-3;
    if (ac_solver_tr_driver_new(c, ws->dense, ws->h0, &ws->dr) != AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu states)", c->dim);
    return AC_OK;
}

static int ws_build(const ac_model *m, const ac_transient_options *opt, ac_transient_ws **out,
                    ac_error *err)
{
    ac_transient_ws *ws;
    double horizon;
    int rc;
    *out = NULL;
    ws = calloc(1, sizeof *ws);
    if (ws == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    if (opt != NULL)
        ws->opt = *opt;
    else
        ac_transient_options_init(&ws->opt);
    opt = &ws->opt;
    horizon = ac_transient_horizon(m, opt);
    if (!(horizon > 0.0) || !isfinite(horizon)) {
        free(ws);
        return ac_error_set(err, AC_EINVAL,
                            "the transient needs a horizon: the model has no <profile>");
    }
    if (opt->samples < 2 || !(opt->scale >= 0.0) || !isfinite(opt->scale) || !(opt->rtol > 0.0) ||
        !(opt->atol > 0.0) || opt->pool_dim_max < 1 || !(opt->max_work >= 1.0) ||
        !(opt->capacity_min > 0.0 && opt->capacity_min <= 1.0)) {
        free(ws);
        return ac_error_set(err, AC_EINVAL, "invalid transient options");
    }
    ws->c.m = m;
    ws->c.opt = opt;
    ws->c.scale = opt->scale; /* the truncations are sized for the largest scale */
    ws->tr = result_new(m, horizon, opt->samples);
    if (ws->tr == NULL) {
        free(ws);
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    }
    rc = ctx_build(&ws->c, ws->tr, err);
    if (rc == AC_OK && ac_solver_tr_metrics_init(&ws->c, ws->tr) != AC_OK)
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient metrics)");
    if (rc == AC_OK) {
        ws->tr->dim = ws->c.dim;
        ws->dense = ws->c.dim <= opt->dense_max;
        ws->tr->method = ws->dense ? "cvode-bdf" : "rkf45";
        rc = ctx_scratch(&ws->c, ws->tr, ws->dense, err);
    }
    if (rc == AC_OK)
        rc = ws_vectors(ws, err);
    if (rc != AC_OK) {
        ac_transient_ws_free(ws);
        return rc;
    }
    if (!ws->dense) {
        char buf[160];
        snprintf(buf, sizeof buf,
                 "%zu states exceed the dense limit %zu: integrated with rkf45 (explicit), "
                 "not the stiff BDF",
                 ws->c.dim, opt->dense_max);
        note_add(ws->tr, buf);
    }
    notes(&ws->c, ws->tr);
    memcpy(ws->note, ws->tr->note, sizeof ws->note);
    *out = ws;
    return AC_OK;
}

/* Do the sources have the same rates at t0 and t1? (Then the fixed points settled from the
 * empty state at those rates are the same.) */
static int same_rates(tr_ctx *c, double t0, double t1)
{
    for (size_t s = 0; s < c->m->nsources; s++) {
        double a, b;
        ac_solver_tr_sources_at(c, t0, c->gamma, NULL);
        a = c->gamma[s];
        ac_solver_tr_sources_at(c, t1, c->gamma, NULL);
        b = c->gamma[s];
        if (a != b)
            return 0;
    }
    return 1;
}

/*
 * The settled start at the workspace's scale into ws->y_start, ws->ref: the reference after
 * a burst first (the fixed point at the base rates of burst_end, from empty: steady_mean_jobs),
 * then the empty state settled at the rates of t = 0 when opt->start asks (the same fixed
 * point when the rates are the same), its counters zeroed. Kept for the next evaluation at
 * the same scale.
 */
static int settle_start(ac_transient_ws *ws, ac_error *err)
{
    tr_ctx *c = &ws->c;
    const ac_transient *tr = ws->tr;
    int rc, settled = 1, have_ref = 0;
    for (size_t v = 0; v < c->m->nnodes; v++)
        ws->ref[v] = NAN;
    ws->start_settled = 0;
    if (tr->has_burst && c->dim > 0) {
        init_state(c, ws->y_start);
        rc = ac_solver_tr_settle(c, ws->dr, tr->burst_end, ws->y_start, &ws->w, &settled, err);
        if (rc != AC_OK)
            return rc;
        for (size_t v = 0; v < c->m->nnodes; v++)
            ws->ref[v] = settled ? c->kind[v]->mean_jobs(c, c->unit_of[v], ws->y_start) : NAN;
        have_ref = same_rates(c, tr->burst_end, 0.0);
    }
    if (!have_ref)
        init_state(c, ws->y_start);
    if (c->opt->start == AC_TRANSIENT_START_STEADY && c->dim > 0) {
        if (!have_ref) {
            rc = ac_solver_tr_settle(c, ws->dr, 0.0, ws->y_start, &ws->w, &settled, err);
            if (rc != AC_OK)
                return rc;
        }
        ws->start_settled = settled;
        zero_counters(c, ws->y_start);
    } else if (have_ref) {
        init_state(c, ws->y_start);
    }
    ws->cached = 1;
    ws->cache_scale = c->scale;
    return AC_OK;
}

/* Every per-evaluation field of the context and of the result back to its state at t = 0. */
static void ws_reset(ac_transient_ws *ws, double scale)
{
    tr_ctx *c = &ws->c;
    ac_transient *tr = ws->tr;
    c->scale = scale;
    ac_solver_tr_scalers_reset(c, tr);
    c->plan = NULL;
    ac_solver_tr_faults_reset(c);
    for (size_t i = 0; i < c->nfns; i++) {
        c->fns[i].next_ping = c->fns[i].W > 0.0 ? 0.0 : INFINITY;
        c->fns[i].prewarmed = 0.0;
    }
    for (size_t v = 0; v < c->m->nnodes; v++) {
        ac_transient_node *n = &tr->nodes[v];
        n->max_tail = 0.0;
        n->drained_jobs = 0.0;
        n->scaling_events = 0;
        n->server_hours = 0.0;
        n->prewarm_instances = 0.0;
    }
    tr->scaling_events = 0;
    tr->server_hours = 0.0;
    tr->started_steady = 0;
    memcpy(tr->note, ws->note, sizeof tr->note);
}

/* The settled start at the evaluation's scale into ws->y (kept per scale), the reference
 * after the burst, and whether it settled. */
static int start_of(ac_transient_ws *ws, double scale, ac_error *err)
{
    tr_ctx *c = &ws->c;
    ac_transient *tr = ws->tr;
    if (!ws->cached || ws->cache_scale != scale) {
        const ac_transient_plan *p = c->plan;
        int rc;
        c->plan = NULL; /* the start knows no fault */
        rc = settle_start(ws, err);
        c->plan = p;
        if (rc != AC_OK) {
            ws->cached = 0;
            return rc;
        }
    }
    memcpy(ws->y, ws->y_start, (c->dim + 1) * sizeof *ws->y);
    for (size_t v = 0; v < c->m->nnodes; v++)
        tr->nodes[v].steady_mean_jobs = ws->ref[v];
    if (c->opt->start == AC_TRANSIENT_START_STEADY && c->dim > 0) {
        tr->started_steady = ws->start_settled;
        if (!ws->start_settled)
            note_add(tr, "the rates of t = 0 have no reachable fixed point: started from the "
                         "state reached after a long warm-up");
    }
    return AC_OK;
}

/*
 * Where a plan's integration starts: its first fault starts at t_f, and until then the run
 * is the run without faults, so it starts from that run's last accepted step at or before
 * t_f (state, samples, truncation tails), with the driver restarted there (the fault's edge
 * restarts it anyway). Only without autoscalers and pre-warming (their state over the
 * prefix is not kept). *t0 = 0, *s0 = 0 when there is nothing to reuse.
 */
static void resume_point(ac_transient_ws *ws, const ac_transient_plan *plan, double *t0, size_t *s0)
{
    tr_ctx *c = &ws->c;
    const tr_prefix *pf = &ws->pf;
    double tf = INFINITY;
    size_t lo = 0, hi = pf->n, k;
    *t0 = 0.0;
    *s0 = 0;
    if (plan == NULL || !ws->pf_valid || ws->pf_scale != c->scale || pf->n == 0)
        return;
    for (size_t i = 0; i < plan->nfaults; i++)
        tf = fmin(tf, plan->faults[i].start);
    while (lo < hi) { /* the first step after tf */
        size_t mid = lo + (hi - lo) / 2;
        if (pf->t[mid] <= tf)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return;
    k = lo - 1;
    *t0 = pf->t[k];
    *s0 = pf->s[k];
    memcpy(ws->y, pf->y + k * c->dim, c->dim * sizeof *ws->y);
    for (size_t i = 0; i < ws->narrays; i++)
        memcpy(ws->arrays[i], ws->saved + i * ws->tr->nsamples, *s0 * sizeof(double));
    for (size_t j = 0; j < c->npools; j++)
        ws->tr->nodes[c->pools[j].node].max_tail = pf->tail[k * c->npools + j];
}

/* One integration of the prepared workspace (start state in ws->y) under c->plan. */
static int run_once(ac_transient_ws *ws, ac_error *err)
{
    tr_ctx *c = &ws->c;
    ac_transient *tr = ws->tr;
    double t0;
    size_t s0, nsteps = 0;
    int reuse = ws->narrays > 0 && c->nscaled == 0 && c->nprewarm == 0, rc;
    if (c->dim == 0) { /* no node: nothing to integrate */
        for (size_t s = 0; s < tr->nsamples; s++)
            ac_solver_tr_record(c, tr, s, tr->t[s], ws->y, ws->w.f);
        ac_solver_tr_metrics_finish(c, tr);
        return AC_OK;
    }
    resume_point(ws, reuse ? c->plan : NULL, &t0, &s0);
    ws->pf.record = reuse && c->plan == NULL && !(ws->pf_valid && ws->pf_scale == c->scale);
    ws->pf.n = ws->pf.record ? 0 : ws->pf.n;
    rc = ac_solver_tr_integrate(c, tr, ws->dr, ws->h0, ws->tgt, ws->ntarget, ws->y, t0, s0, &ws->w,
                                &ws->pf, &nsteps, err);
    if (rc != AC_OK) {
        if (ws->pf.record)
            ws->pf_valid = 0;
        return rc;
    }
    if (ws->pf.record) { /* the prefix of every plan at this scale */
        for (size_t i = 0; i < ws->narrays; i++)
            memcpy(ws->saved + i * tr->nsamples, ws->arrays[i], tr->nsamples * sizeof(double));
        ws->pf_valid = ws->pf.n > 0;
        ws->pf_scale = c->scale;
        ws->pf.record = 0;
    }
    finish(c, tr, ws->y);
    ac_solver_tr_metrics_finish(c, tr);
    ac_solver_tr_driver_freeze(ws->dr); /* the first evaluation has set the pattern */
    return AC_OK;
}

int ac_transient_eval(ac_transient_ws *ws, const ac_transient_plan *plan, double scale,
                      const ac_transient **out, ac_error *err)
{
    tr_ctx *c = &ws->c;
    ac_transient *tr = ws->tr;
    int rc;
    *out = NULL;
    if (ac_solver_tr_driver_canon(ws->dr) != AC_OK)
        return ac_error_set(err, AC_ENUMERIC, "restoring the transient's pivot order");
    if (!(scale >= 0.0) || scale > ws->opt.scale * (1.0 + 1e-12))
        return ac_error_set(err, AC_EINVAL,
                            "workload factor %g outside the workspace's [0, %g] (its "
                            "truncations are sized for options.scale)",
                            scale, ws->opt.scale);
    if (plan != NULL && plan->nfaults > 0 && ws->narrays > 0 && c->nscaled == 0 &&
        c->nprewarm == 0 && !(ws->pf_valid && ws->pf_scale == scale)) {
        /* the run without faults first: the prefix of every plan at this scale */
        ws_reset(ws, scale);
        rc = start_of(ws, scale, err);
        if (rc == AC_OK)
            rc = run_once(ws, err);
        if (rc != AC_OK)
            return rc;
    }
    ws_reset(ws, scale);
    rc = ac_solver_tr_faults_set(c, plan, tr->horizon, err); /* applied from t = 0 on */
    if (rc == AC_OK)
        rc = start_of(ws, scale, err);
    if (rc == AC_OK)
        rc = run_once(ws, err);
    if (rc != AC_OK)
        return rc;
    *out = tr;
    return AC_OK;
}

/*
 * A workspace's evaluations are a function of (plan, scale) alone, to the bit, whatever it
 * evaluated before: the pattern of the Jacobian and KLU's pivot order, the driver's state
 * that outlives a run (transient_driver.c), are set here once: the pattern as the run
 * without faults at the largest scale grows it (its result discarded, a failure included:
 * how far it got is the model's), then frozen, and the pivot order KLU picks on
 * I - h0 J at the start state it settled (ac_solver_tr_driver_fix); the caches of that run
 * (start state, prefix) are dropped.
 */
static int ws_prime(ac_transient_ws *ws, ac_error *err)
{
    const ac_transient *res = NULL;
    ac_error e2;
    int rc;
    if (ws->dr == NULL)
        return AC_OK;
    memset(&e2, 0, sizeof e2);
    (void)ac_transient_eval(ws, NULL, ws->opt.scale, &res, &e2);
    ws->cached = 0;
    ws->pf_valid = 0;
    ws->pf.n = 0;
    rc = ac_solver_tr_driver_fix(ws->dr, 0.0, ws->y_start, ws->h0);
    if (rc == AC_ENOMEM)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    if (rc != AC_OK)
        return ac_error_set(err, AC_ENUMERIC,
                            "the transient's iteration matrix is singular at "
                            "its start state");
    return AC_OK;
}

int ac_transient_new(const ac_model *m, const ac_transient_options *opt, ac_transient_ws **out,
                     ac_error *err)
{
    int rc = ws_build(m, opt, out, err);
    if (rc == AC_OK)
        rc = ws_prime(*out, err);
    if (rc != AC_OK) {
        ac_transient_ws_free(*out);
        *out = NULL;
    }
    return rc;
}

/* One evaluation: the workspace is not primed (no later evaluation to keep pure). */
int ac_transient_run(const ac_model *m, const ac_transient_options *opt, ac_transient **out,
                     ac_error *err)
{
    ac_transient_ws *ws = NULL;
    const ac_transient *res = NULL;
    int rc = ws_build(m, opt, &ws, err);
    *out = NULL;
    if (rc != AC_OK)
        return rc;
    rc = ac_transient_eval(ws, NULL, ws->opt.scale, &res, err);
    if (rc == AC_OK) { /* the result leaves the workspace */
        *out = ws->tr;
        ws->tr = NULL;
    }
    ac_transient_ws_free(ws);
    return rc;
}
