/*
 * Faults in time in the simulator (ac_sim_options.faults; the plan of transient.h, with the
 * transient's semantics, solver/transient_faults.c). Every edge of a window inside the
 * horizon is one event; there every node the plan touches is set to the faults active at
 * that instant (a fault is active on [start, end)):
 *   function  delay: every execution lasts delay + X, X ~ Exp(duration), cut by the timeout
 *             (function.c adds f->delay); fail-prob: 1 - (1 - f)(1 - value); cold-start: the
 *             value (the last active one wins), else the model's.
 *   pool      delay: every service lasts delay + Exp(mu) (pool.c adds p->delay: the true
 *             semantics, where the transient takes an exponential of that mean);
 *             servers-down: that many servers (at most servers - 1) take no new job. They
 *             are chosen idle first (the highest index first), then the least loaded; a busy
 *             one finishes what it holds (shared-queue: its job in service; per-server
 *             queues: its queue). Dispatch chooses among the others (`up`); a server coming
 *             back takes work as it is (the last to go down comes back first).
 *   gateway   capacity-loss: the rate limit is r (1 - value) (1 - prod (1 - value) for
 *             several); the bucket is brought up to date at the old rate first.
 *   link      (target nnodes + l, the link's node) capacity-loss: every transmission started
 *             from the edge on takes 1 / (c (1 - value)), at least 1e-6 c as the transient's
 *             (the one in progress ends as it started); delay: added to the latency of every
 *             job whose propagation starts from the edge on.
 * The utilisation of a pool stays busy servers / all servers.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/internal.h"

static const char *unsupported(const ac_node *nd, const ac_transient_fault *f)
{
    switch (f->attr) {
    case AC_TRANSIENT_FAULT_DELAY:
        return nd->kind == AC_NODE_FUNCTION || nd->kind == AC_NODE_POOL
                   ? NULL
                   : "delay applies to functions and pools";
    case AC_TRANSIENT_FAULT_FAIL_PROB:
        return nd->kind == AC_NODE_FUNCTION ? NULL : "fail-prob is simulated on functions only";
    case AC_TRANSIENT_FAULT_SERVERS_DOWN:
        if (nd->kind != AC_NODE_POOL)
            return "servers-down applies to pools";
        if (nd->u.pool.has_autoscale)
            return "servers-down on an autoscaled pool is not simulated";
        return f->value < (double)nd->u.pool.servers && f->value == floor(f->value)
                   ? NULL
                   : "servers-down must be a whole number below the pool's servers";
    case AC_TRANSIENT_FAULT_CAPACITY_LOSS:
        return nd->kind == AC_NODE_GATEWAY ? NULL : "capacity-loss is simulated on gateways";
    case AC_TRANSIENT_FAULT_COLD_START:
        return nd->kind == AC_NODE_FUNCTION ? NULL : "cold-start applies to functions";
    }
    return "unknown fault attribute";
}

static const char *link_unsupported(const ac_transient_fault *f)
{
    return f->attr == AC_TRANSIENT_FAULT_DELAY || f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS
               ? NULL
               : "a link takes delay and capacity-loss only";
}

static const char *target_id(const ac_model *m, size_t target)
{
    if (target < m->nnodes)
        return m->nodes[target].id;
    return m->links[target - m->nnodes].id != NULL ? m->links[target - m->nnodes].id : "(link)";
}

int ac_sim_faults_check(const ac_model *m, const ac_sim_options *opt, ac_error *err)
{
    const ac_transient_plan *plan = opt->faults;
    if (plan == NULL || plan->nfaults == 0)
        return 0;
    if (plan->nfaults > AC_TRANSIENT_PLAN_MAX || plan->faults == NULL)
        return ac_error_set(err, AC_EINVAL, "simulation: a fault plan of %zu faults (at most %d)",
                            plan->nfaults, AC_TRANSIENT_PLAN_MAX);
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *f = &plan->faults[k];
        int prob =
            f->attr == AC_TRANSIENT_FAULT_FAIL_PROB || f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS;
        const char *why;
        if (f->target >= m->nnodes + m->nlinks)
            return ac_error_set(err, AC_EINVAL, "simulation: fault %zu: no node or link %zu", k,
                                f->target);
        if (!(f->value >= 0.0) || !isfinite(f->value) || (prob && f->value > 1.0))
            return ac_error_set(err, AC_EINVAL,
                                "simulation: fault %zu on '%s': value %g out of "
                                "range",
                                k, target_id(m, f->target), f->value);
        if (!(f->start >= 0.0) || !(f->end > f->start))
            return ac_error_set(err, AC_EINVAL,
                                "simulation: fault %zu on '%s': the window [%g, %g) is empty", k,
                                target_id(m, f->target), f->start, f->end);
        why = f->target >= m->nnodes ? link_unsupported(f) : unsupported(&m->nodes[f->target], f);
        if (why != NULL)
            return ac_error_set(err, AC_EINVAL, "simulation: fault %zu on '%s': %s", k,
                                target_id(m, f->target), why);
    }
    return 0;
}

static int active(const ac_transient_fault *f, double t)
{
    return f->start <= t && t < f->end;
}

static void fn_apply(ac_sim_state *s, ac_sim_node *n, double t)
{
    const ac_transient_plan *plan = s->opt->faults;
    const ac_function *fn = &s->model->nodes[n->index].u.function;
    ac_sim_function_state *f = &n->u.fn;
    f->delay = 0.0;
    f->fail_prob = fn->fail_prob;
    f->cold_start = fn->cold_start;
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *x = &plan->faults[k];
        if (x->target != n->index || !active(x, t))
            continue;
        if (x->attr == AC_TRANSIENT_FAULT_DELAY)
            f->delay += x->value;
        else if (x->attr == AC_TRANSIENT_FAULT_FAIL_PROB)
            f->fail_prob = 1.0 - (1.0 - f->fail_prob) * (1.0 - x->value);
        else if (x->attr == AC_TRANSIENT_FAULT_COLD_START)
            f->cold_start = x->value;
    }
}

static void gw_apply(ac_sim_state *s, ac_sim_node *n, double t)
{
    const ac_transient_plan *plan = s->opt->faults;
    ac_sim_gateway_state *g = &n->u.gw;
    double base = s->model->nodes[n->index].u.gateway.rate_limit, keep = 1.0;
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *x = &plan->faults[k];
        if (x->target == n->index && x->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS && active(x, t))
            keep *= 1.0 - x->value;
    }
    if (isfinite(g->rate)) { /* the deficit's integral and the bucket, at the old rate */
        double tokens = g->tokens + g->rate * (s->now - g->t_tokens);
        n->ops->touch(s, n);
        g->tokens = tokens < g->depth ? tokens : g->depth;
        g->t_tokens = s->now;
    }
    g->rate = isinf(base) ? (keep > 0.0 ? base : 0.0) : base * keep;
}

static void link_apply(ac_sim_state *s, ac_sim_node *n, double t)
{
    const ac_transient_plan *plan = s->opt->faults;
    const ac_link *ln = &s->model->links[n->index - s->nmodel_nodes];
    ac_sim_link_state *l = &n->u.link;
    double keep = 1.0, delay = 0.0;
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *x = &plan->faults[k];
        if (x->target != n->index || !active(x, t))
            continue;
        if (x->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS)
            keep *= 1.0 - x->value;
        else if (x->attr == AC_TRANSIENT_FAULT_DELAY)
            delay += x->value;
    }
    keep = keep > 1e-6 ? keep : 1e-6;
    l->tx_time = isfinite(ln->capacity) ? 1.0 / (ln->capacity * keep) : 0.0;
    l->latency = ln->latency + delay;
}

/* The load of server i (jobs it holds), and whether it is idle. */
static size_t server_load(const ac_sim_pool_state *p, uint32_t i)
{
    if (p->dispatch == AC_DISPATCH_SHARED_QUEUE)
        return p->serving[i] != AC_SIM_NIL;
    return p->len[i];
}

/* Shared-queue: server i, idle, takes the next waiting job if any. */
static void shared_resume(ac_sim_state *s, ac_sim_node *n, uint32_t i)
{
    ac_sim_pool_state *p = &n->u.pool;
    if (p->q_len == 0) {
        p->idle[p->nidle++] = i;
        return;
    }
    ac_sim_node_touch(s, n);
    {
        uint32_t j = p->q_head;
        p->q_head = s->jobs[j].next;
        p->q_len--;
        p->serving[i] = j;
        s->jobs[j].server = i;
        n->nbusy++;
        ac_sim_event_schedule(s, p->cev[i], s->now + p->delay + ac_sim_exp(s, p->mean_service));
    }
}

/* One more server down: idle first (highest index), else the least loaded. */
static void server_down(ac_sim_node *n)
{
    ac_sim_pool_state *p = &n->u.pool;
    uint32_t best = AC_SIM_NIL;
    if (p->dispatch == AC_DISPATCH_SHARED_QUEUE && p->nidle > 0) {
        size_t at = 0; /* the idle server of the highest index leaves the stack */
        for (size_t k = 1; k < p->nidle; k++)
            if (p->idle[k] > p->idle[at])
                at = k;
        best = p->idle[at];
        p->idle[at] = p->idle[--p->nidle];
    } else {
        for (size_t i = n->servers; i-- > 0;)
            if (!p->down[i] &&
                (best == AC_SIM_NIL || server_load(p, (uint32_t)i) < server_load(p, best)))
                best = (uint32_t)i;
    }
    p->down[best] = 1;
    p->downs[p->ndown++] = best;
}

static void server_up(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_pool_state *p = &n->u.pool;
    uint32_t i = p->downs[--p->ndown];
    p->down[i] = 0;
    if (p->dispatch == AC_DISPATCH_SHARED_QUEUE && p->serving[i] == AC_SIM_NIL)
        shared_resume(s, n, i); /* parked: it takes work again */
}

static void pool_apply(ac_sim_state *s, ac_sim_node *n, double t)
{
    const ac_transient_plan *plan = s->opt->faults;
    ac_sim_pool_state *p = &n->u.pool;
    double delay = 0.0, down = 0.0;
    size_t target;
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *x = &plan->faults[k];
        if (x->target != n->index || !active(x, t))
            continue;
        if (x->attr == AC_TRANSIENT_FAULT_DELAY)
            delay += x->value;
        else if (x->attr == AC_TRANSIENT_FAULT_SERVERS_DOWN)
            down += x->value;
    }
    p->delay = delay;
    if (p->down == NULL || p->sc != NULL) /* a scaled pool's down servers are its scaler's */
        return;
    target = (size_t)fmin(down, (double)n->servers - 1.0);
    ac_sim_pool_set_down(s, n, target);
}

void ac_sim_pool_set_down(ac_sim_state *s, ac_sim_node *n, size_t target)
{
    ac_sim_pool_state *p = &n->u.pool;
    while (p->ndown < target)
        server_down(n);
    while (p->ndown > target && s->status == 0)
        server_up(s, n);
    p->nup = 0;
    for (size_t i = 0; i < n->servers; i++)
        if (!p->down[i])
            p->up[p->nup++] = (uint32_t)i;
}

static void apply_all(ac_sim_state *s, double t)
{
    const ac_transient_plan *plan = s->opt->faults;
    for (size_t k = 0; k < plan->nfaults && s->status == 0; k++) {
        ac_sim_node *n = &s->nodes[plan->faults[k].target];
        int seen = 0; /* each node once */
        for (size_t j = 0; j < k && !seen; j++)
            seen = plan->faults[j].target == plan->faults[k].target;
        if (seen)
            continue;
        switch (n->kind) {
        case AC_SIM_KIND_FUNCTION: fn_apply(s, n, t); break;
        case AC_SIM_KIND_GATEWAY: gw_apply(s, n, t); break;
        case AC_SIM_KIND_POOL: pool_apply(s, n, t); break;
        case AC_SIM_KIND_LINK: link_apply(s, n, t); break;
        default: break;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Room for the servers-down bookkeeping of every pool the plan takes servers from. */
static int pools_prepare(ac_sim_state *s)
{
    const ac_transient_plan *plan = s->opt->faults;
    for (size_t k = 0; k < plan->nfaults; k++) {
        ac_sim_node *n = &s->nodes[plan->faults[k].target];
        ac_sim_pool_state *p = &n->u.pool;
        if (plan->faults[k].attr != AC_TRANSIENT_FAULT_SERVERS_DOWN || p->down != NULL)
            continue;
        p->down = calloc(n->servers, sizeof *p->down);
        p->downs = malloc(n->servers * sizeof *p->downs);
        p->up = malloc(n->servers * sizeof *p->up);
        if (p->down == NULL || p->downs == NULL || p->up == NULL)
            return ac_error_set(s->err, AC_ENOMEM, "simulation: out of memory (faults)");
    }
    return 0;
}

int ac_sim_faults_setup(ac_sim_state *s)
{
    const ac_transient_plan *plan = s->opt->faults;
    size_t ne = 0;
    int rc;
    if (plan == NULL || plan->nfaults == 0)
        return 0;
    if ((rc = pools_prepare(s)) != 0)
        return rc;
    s->fault_edges = malloc(2 * plan->nfaults * sizeof *s->fault_edges);
    if (s->fault_edges == NULL)
        return ac_error_set(s->err, AC_ENOMEM, "simulation: out of memory (faults)");
    for (size_t k = 0; k < plan->nfaults; k++) {
        const ac_transient_fault *f = &plan->faults[k];
        if (f->start > 0.0 && f->start < s->horizon)
            s->fault_edges[ne++] = f->start;
        if (f->end > 0.0 && f->end < s->horizon)
            s->fault_edges[ne++] = f->end;
    }
    qsort(s->fault_edges, ne, sizeof *s->fault_edges, cmp_double);
    s->nfault_edges = 0;
    for (size_t k = 0; k < ne; k++)
        if (s->nfault_edges == 0 || s->fault_edges[k] != s->fault_edges[s->nfault_edges - 1])
            s->fault_edges[s->nfault_edges++] = s->fault_edges[k];
    apply_all(s, 0.0);
    if (s->status != 0)
        return s->status;
    if (s->nfault_edges > 0) {
        s->fault_ev = ac_sim_event_alloc(s);
        if (s->fault_ev == AC_SIM_NIL)
            return s->status;
        s->ev[s->fault_ev].kind = AC_SIM_EV_FAULT;
        ac_sim_event_schedule(s, s->fault_ev, s->fault_edges[0]);
    }
    return 0;
}

void ac_sim_faults_edge(ac_sim_state *s)
{
    apply_all(s, s->now);
    s->next_fault_edge++;
    if (s->status == 0 && s->next_fault_edge < s->nfault_edges)
        ac_sim_event_schedule(s, s->fault_ev, s->fault_edges[s->next_fault_edge]);
}

uint32_t ac_sim_pool_choose_up(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_pool_state *p = &n->u.pool;
    size_t nup = p->nup, d = p->d < nup ? p->d : nup, count = 0, r;
    uint32_t best = p->up[ac_sim_rng_below(s->fast, (uint32_t)nup)];
    switch (p->dispatch) {
    case AC_DISPATCH_POWER_OF_D:
        if (p->with_replacement) {
            for (size_t k = 1; k < p->d; k++) {
                uint32_t c = p->up[ac_sim_rng_below(s->fast, (uint32_t)nup)];
                if (p->len[c] < p->len[best])
                    best = c;
            }
            return best;
        }
        best = AC_SIM_NIL; /* d distinct up servers: a partial Fisher-Yates shuffle of up */
        for (size_t k = 0; k < d; k++) {
            size_t at = k + ac_sim_rng_below(s->fast, (uint32_t)(nup - k));
            uint32_t c = p->up[at];
            p->up[at] = p->up[k];
            p->up[k] = c;
            if (best == AC_SIM_NIL || p->len[c] < p->len[best])
                best = c;
        }
        return best;
    case AC_DISPATCH_JSQ:
    case AC_DISPATCH_JIQ: {
        /* jsq: the least loaded up servers; jiq: the idle ones (else `best`, uniform) */
        uint32_t low = UINT32_MAX;
        for (size_t k = 0; k < nup; k++) {
            uint32_t l = p->len[p->up[k]];
            if (p->dispatch == AC_DISPATCH_JIQ && l > 0)
                continue;
            if (l < low) {
                low = l;
                count = 0;
            }
            count += l == low;
        }
        if (count == 0)
            return best;
        r = ac_sim_rng_below(s->fast, (uint32_t)count);
        for (size_t k = 0; k < nup; k++)
            if (p->len[p->up[k]] == low && r-- == 0)
                return p->up[k];
        return best;
    }
    default: return best;
    }
}

void ac_sim_faults_cleanup(ac_sim_state *s)
{
    free(s->fault_edges);
    for (size_t i = 0; i < s->nmodel_nodes && s->nodes != NULL; i++) {
        ac_sim_node *n = &s->nodes[i];
        if (n->kind != AC_SIM_KIND_POOL)
            continue;
        free(n->u.pool.down);
        free(n->u.pool.downs);
        free(n->u.pool.up);
    }
}
