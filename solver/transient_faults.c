/*
 * Faults in time (transient.h, format.md <faults>): a plan sets attributes of nodes over
 * windows [start, end); the integration stops at every edge of a window inside the horizon,
 * and there the parameters of every node the plan touches are recomputed from the model's
 * with the faults active then, and the driver restarts (as at the autoscaler's events).
 *   function  delay: every execution lasts delay + X (cut by the timeout;
 *             ac_solver_tr_fn_params), and so do its queue's deliveries when it polls one;
 *             fail-prob: an execution also fails with this probability (independently of
 *             the model's fail-prob: 1 - (1 - f)(1 - value)); cold-start: the cold-start
 *             latency is this value.
 *   pool      delay: every service lasts 1/mu + delay, modelled as exponential of that mean
 *             (the pool's model is exponential: mu' = 1 / (1/mu + delay));
 *             servers-down: the pool serves with servers - value (not autoscaled pools); the
 *             servers go as a scale-down does (idle ones first, ac_solver_tr_pool_remap) and
 *             come back empty.
 *   gateway   capacity-loss: the rate limit is r (1 - value).
 *   link      (target nnodes + l) capacity-loss: the capacity is c (1 - value), at least
 *             TR_LINK_FLOOR c (the fluid needs c > 0; unbounded stays unbounded); its jobs
 *             stay (transient_link.c); delay: added to the latency of every transfer.
 * Several faults on one attribute add up (delay, servers-down) or combine (fail-prob:
 * independent causes; capacity-loss: 1 - prod (1 - value)); the last cold-start wins. The
 * start state is the fixed point without faults (the system has run without them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/pool.h"
#include "solver/transient_internal.h"

/* The service rate of pool j's current model (the invariant: its model's mu is tp->mu). */
void ac_solver_tr_pool_set_mu(tr_pool *tp, double mu)
{
    ac_solver_pool_model *pm = tp->model;
    tp->mu = mu;
    tp->cap = tp->N * mu;
    if (pm->mu == mu)
        return;
    pm->mu = mu;
    if (pm->theta > 0.0 && pm->policy != &ac_solver_policy_shared_queue)
        ac_solver_erlang_cdf_levels(mu, pm->theta, pm->n, pm->c);
}

/* Room for the edges of the largest plan, and every pool's models by serving count (the
 * autoscaled ones have theirs). */
int ac_solver_tr_faults_init(tr_ctx *c, ac_error *err)
{
    c->edges = malloc(2 * AC_TRANSIENT_PLAN_MAX * sizeof *c->edges);
    if (c->edges == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (fault plan)");
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        size_t n = c->m->nodes[tp->node].u.pool.servers;
        if (tp->by_count != NULL)
            continue;
        tp->count_lo = 1;
        tp->ncounts = n;
        tp->by_count = calloc(n, sizeof *tp->by_count);
        if (tp->by_count == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (fault plan)");
        tp->by_count[n - 1] = tp->model;
    }
    return AC_OK;
}

/* The id of a fault's target (a node, or a link past the nodes). */
static const char *target_id(const ac_model *m, size_t target)
{
    if (target < m->nnodes)
        return m->nodes[target].id;
    return m->links[target - m->nnodes].id != NULL ? m->links[target - m->nnodes].id : "(link)";
}

/* Does the transient model fault `f` on node v? The reason when not. */
static const char *unsupported(const tr_ctx *c, const ac_transient_fault *f)
{
    const ac_node *nd;
    if (f->target >= c->m->nnodes)
        return f->attr == AC_TRANSIENT_FAULT_DELAY || f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS
                   ? NULL
                   : "a link takes delay and capacity-loss only";
    nd = &c->m->nodes[f->target];
    switch (f->attr) {
    case AC_TRANSIENT_FAULT_DELAY:
        return nd->kind == AC_NODE_FUNCTION || nd->kind == AC_NODE_POOL
                   ? NULL
                   : "delay applies to functions, pools and links";
    case AC_TRANSIENT_FAULT_FAIL_PROB:
        return nd->kind == AC_NODE_FUNCTION ? NULL
                                            : "fail-prob is modelled on functions only (the "
                                              "pool model has no failed executions)";
    case AC_TRANSIENT_FAULT_SERVERS_DOWN:
        if (nd->kind != AC_NODE_POOL)
            return "servers-down applies to pools";
        if (nd->u.pool.has_autoscale)
            return "servers-down on an autoscaled pool is not modelled";
        return f->value < (double)nd->u.pool.servers && f->value == floor(f->value)
                   ? NULL
                   : "servers-down must be a whole number below the pool's servers";
    case AC_TRANSIENT_FAULT_CAPACITY_LOSS:
        return nd->kind == AC_NODE_GATEWAY ? NULL : "capacity-loss applies to gateways and links";
    case AC_TRANSIENT_FAULT_COLD_START:
        return nd->kind == AC_NODE_FUNCTION ? NULL : "cold-start applies to functions";
    }
    return "unknown fault attribute";
}

/* Check one fault of a plan. */
static int check_fault(const tr_ctx *c, size_t k, const ac_transient_fault *f, ac_error *err)
{
    const char *why;
    int prob =
        f->attr == AC_TRANSIENT_FAULT_FAIL_PROB || f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS;
    if (f->target >= c->m->nnodes + c->m->nlinks)
        return ac_error_set(err, AC_EINVAL, "fault %zu: no node or link %zu", k, f->target);
    if (!(f->value >= 0.0) || !isfinite(f->value) || (prob && f->value > 1.0))
        return ac_error_set(err, AC_EINVAL, "fault %zu on '%s': value %g out of range", k,
                            target_id(c->m, f->target), f->value);
    if (!(f->start >= 0.0) || !(f->end > f->start))
        return ac_error_set(err, AC_EINVAL, "fault %zu on '%s': the window [%g, %g) is empty", k,
                            target_id(c->m, f->target), f->start, f->end);
    why = unsupported(c, f);
    if (why != NULL)
        return ac_error_set(err, AC_EINVAL, "fault %zu on '%s': %s", k, target_id(c->m, f->target),
                            why);
    return AC_OK;
}

/* Insert t into the sorted edges (no duplicates). */
static void edge_add(tr_ctx *c, double t)
{
    size_t i = c->nedges;
    for (size_t k = 0; k < c->nedges; k++)
        if (c->edges[k] == t)
            return;
    while (i > 0 && c->edges[i - 1] > t) {
        c->edges[i] = c->edges[i - 1];
        i--;
    }
    c->edges[i] = t;
    c->nedges++;
}

/* Pools: the share of capacity left with every fault of the plan on the pool at once must
 * be at least options.capacity_min (the truncations are sized for it). */
static int check_capacity(const tr_ctx *c, const ac_transient_plan *plan, ac_error *err)
{
    for (size_t j = 0; j < c->npools; j++) {
        const ac_pool *pool = &c->m->nodes[c->pools[j].node].u.pool;
        double delay = 0.0, down = 0.0, share;
        for (size_t k = 0; k < plan->nfaults; k++) {
            const ac_transient_fault *f = &plan->faults[k];
            if (f->target != c->pools[j].node)
                continue;
            delay += f->attr == AC_TRANSIENT_FAULT_DELAY ? f->value : 0.0;
            down += f->attr == AC_TRANSIENT_FAULT_SERVERS_DOWN ? f->value : 0.0;
        }
        share = (1.0 - down / (double)pool->servers) / (1.0 + delay * pool->service_rate);
        if (share < c->opt->capacity_min * (1.0 - 1e-12))
            return ac_error_set(err, AC_EINVAL,
                                "the plan leaves '%s' %.3g of its capacity, below the "
                                "workspace's capacity_min %.3g (its truncation)",
                                c->m->nodes[c->pools[j].node].id, share, c->opt->capacity_min);
    }
    return AC_OK;
}

int ac_solver_tr_faults_set(tr_ctx *c, const ac_transient_plan *plan, double horizon, ac_error *err)
{
    c->plan = NULL;
    c->nedges = c->next_edge = 0;
    c->faults_started = 0;
    if (plan == NULL || plan->nfaults == 0)
        return AC_OK;
    if (plan->nfaults > AC_TRANSIENT_PLAN_MAX || plan->faults == NULL)
        return ac_error_set(err, AC_EINVAL, "a fault plan of %zu faults (at most %d)",
                            plan->nfaults, AC_TRANSIENT_PLAN_MAX);
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *f = &plan->faults[k];
        int rc = check_fault(c, k, f, err);
        if (rc != AC_OK)
            return rc;
        if (f->start > 0.0 && f->start < horizon)
            edge_add(c, f->start);
        if (f->end > 0.0 && f->end < horizon)
            edge_add(c, f->end);
    }
    if (check_capacity(c, plan, err) != AC_OK)
        return err->code;
    c->plan = plan;
    return AC_OK;
}

static int active(const ac_transient_fault *f, double t)
{
    double e = ac_solver_tr_eps(t);
    return f->start <= t + e && t + e < f->end;
}

/* Function u's parameters at time t (and its queues'). */
static void fn_apply(tr_ctx *c, size_t u, double t)
{
    tr_fn *F = &c->fns[u];
    ac_function fn = c->m->nodes[F->node].u.function;
    double delay = 0.0;
    for (size_t k = 0; c->plan != NULL && k < c->plan->nfaults; k++) {
        const ac_transient_fault *f = &c->plan->faults[k];
        if (f->target != F->node || !active(f, t))
            continue;
        if (f->attr == AC_TRANSIENT_FAULT_DELAY)
            delay += f->value;
        else if (f->attr == AC_TRANSIENT_FAULT_FAIL_PROB)
            fn.fail_prob = 1.0 - (1.0 - fn.fail_prob) * (1.0 - f->value);
        else if (f->attr == AC_TRANSIENT_FAULT_COLD_START)
            fn.cold_start = f->value;
    }
    ac_solver_tr_fn_params(F, &fn, delay);
    for (size_t q = 0; q < c->nqs; q++)
        if (c->qs[q].cons == u)
            ac_solver_tr_q_params(&c->qs[q], &c->m->nodes[c->qs[q].node].u.queue, &fn, delay);
}

/* Pool j's serving count and service rate at time t; its state remapped (y) when the count
 * changes. */
static int pool_apply(tr_ctx *c, ac_transient *tr, size_t j, double t, double *y, ac_error *err)
{
    tr_pool *tp = &c->pools[j];
    const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
    double delay = 0.0, down = 0.0, N;
    for (size_t k = 0; c->plan != NULL && k < c->plan->nfaults; k++) {
        const ac_transient_fault *f = &c->plan->faults[k];
        if (f->target != tp->node || !active(f, t))
            continue;
        if (f->attr == AC_TRANSIENT_FAULT_DELAY)
            delay += f->value;
        else if (f->attr == AC_TRANSIENT_FAULT_SERVERS_DOWN)
            down += f->value;
    }
    N = (double)pool->servers - fmin(down, (double)pool->servers - 1.0);
    if (!pool->has_autoscale && N != tp->N) {
        ac_solver_pool_model **pm = &tp->by_count[(size_t)N - tp->count_lo];
        if (*pm == NULL) { /* the first time at this count */
            ac_pool spec = *pool;
            int rc;
            spec.servers = (size_t)N;
            rc = ac_solver_pool_model_new(&spec, 0.0, tp->dim, pm, err);
            if (rc != AC_OK)
                return rc;
            if (ac_solver_pool_model_dim(*pm) != tp->dim)
                return ac_error_set(err, AC_ENUMERIC,
                                    "the model of '%s' at %g servers changed its dimension",
                                    c->m->nodes[tp->node].id, N);
        }
        tp->hours += tp->N * (t - tp->t_last) / 3600.0;
        tp->t_last = t;
        if (y != NULL)
            ac_solver_tr_pool_remap(c, tr, j, tp->N, N, y);
        tp->model = *pm;
        tp->N = N;
    }
    ac_solver_tr_pool_set_mu(tp, 1.0 / (1.0 / pool->service_rate + delay));
    return AC_OK;
}

/* Gateway i's rate limit at time t. */
static void gw_apply(tr_ctx *c, size_t i, double t)
{
    tr_gw *W = &c->gws[i];
    double keep = 1.0;
    for (size_t k = 0; c->plan != NULL && k < c->plan->nfaults; k++) {
        const ac_transient_fault *f = &c->plan->faults[k];
        if (f->target == W->node && f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS && active(f, t))
            keep *= 1.0 - f->value;
    }
    W->r = c->m->nodes[W->node].u.gateway.rate_limit * keep;
}

void ac_solver_tr_link_faults_at(const tr_ctx *c, size_t l, double t, double *cap, double *lat)
{
    const ac_link *ln = &c->m->links[l];
    double keep = 1.0, delay = 0.0;
    for (size_t k = 0; c->plan != NULL && k < c->plan->nfaults; k++) {
        const ac_transient_fault *f = &c->plan->faults[k];
        if (f->target != c->m->nnodes + l || !active(f, t))
            continue;
        if (f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS)
            keep *= 1.0 - f->value;
        else if (f->attr == AC_TRANSIENT_FAULT_DELAY)
            delay += f->value;
    }
    *cap = ln->capacity * fmax(keep, TR_LINK_FLOOR);
    *lat = ln->latency + delay;
}

/* Link l's capacity and latency at time t. */
static void link_apply(tr_ctx *c, size_t l, double t)
{
    ac_solver_tr_link_faults_at(c, l, t, &c->lks[l].c, &c->lks[l].lat);
}

/* Every node the plan touches, at time t (y NULL: no state to remap). */
static int apply_all(tr_ctx *c, ac_transient *tr, const ac_transient_plan *plan, double t,
                     double *y, ac_error *err)
{
    for (size_t k = 0; plan != NULL && k < plan->nfaults; k++) {
        size_t v = plan->faults[k].target, u;
        if (v >= c->m->nnodes) {
            link_apply(c, v - c->m->nnodes, t);
            continue;
        }
        u = c->unit_of[v];
        switch (c->m->nodes[v].kind) {
        case AC_NODE_FUNCTION: fn_apply(c, u, t); break;
        case AC_NODE_GATEWAY: gw_apply(c, u, t); break;
        case AC_NODE_POOL: {
            int rc = pool_apply(c, tr, u, t, y, err);
            if (rc != AC_OK)
                return rc;
            break;
        }
        default: break;
        }
    }
    return AC_OK;
}

void ac_solver_tr_faults_reset(tr_ctx *c)
{
    const ac_transient_plan *plan = c->plan;
    c->plan = NULL; /* no fault active: the model's own parameters (the pools': the scalers'
                       reset) */
    for (size_t i = 0; i < c->nfns; i++)
        fn_apply(c, i, 0.0);
    for (size_t i = 0; i < c->ngws; i++)
        gw_apply(c, i, 0.0);
    for (size_t l = 0; l < c->nlinks; l++)
        link_apply(c, l, 0.0);
    c->plan = plan;
}

int ac_solver_tr_faults_apply(tr_ctx *c, ac_transient *tr, double t, double *y, int *changed,
                              ac_error *err)
{
    int rc;
    if (c->plan == NULL)
        return AC_OK;
    if (c->faults_started &&
        !(c->next_edge < c->nedges && c->edges[c->next_edge] <= t + ac_solver_tr_eps(t)))
        return AC_OK;
    c->faults_started = 1;
    while (c->next_edge < c->nedges && c->edges[c->next_edge] <= t + ac_solver_tr_eps(t))
        c->next_edge++;
    rc = apply_all(c, tr, c->plan, t, y, err);
    *changed = 1;
    return rc;
}

double ac_solver_tr_faults_next(const tr_ctx *c)
{
    return c->plan != NULL && c->next_edge < c->nedges ? c->edges[c->next_edge] : INFINITY;
}
