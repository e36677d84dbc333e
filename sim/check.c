/*
 * What the simulator can run (ac_sim_model_check): every node a pool, function, queue or
 * gateway with parameters it simulates, valid links, routes, sources and profiles, no link
 * between a queue and its consumer, no cycle of routes that take no time, the p of a node's
 * routes summing to at most 1, and the options' initial states on pools.
 * Split out of core.c (the event core) to keep each file under ~1,000 lines.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

/* A function, queue or gateway with parameters the simulator can run. */
static int serverless_ok(const ac_node *nd)
{
    switch (nd->kind) {
    case AC_NODE_FUNCTION: {
        const ac_function *f = &nd->u.function;
        return f->concurrency >= 1 && f->concurrency < AC_SIM_NIL && f->duration > 0 &&
               isfinite(f->duration) && f->cold_start >= 0 && isfinite(f->cold_start) &&
               f->keep_alive >= 0 && !isnan(f->keep_alive) && f->scale_rate >= 0 &&
               !isnan(f->scale_rate) && f->timeout > 0 && !isnan(f->timeout) &&
               f->retries < AC_SIM_NIL && f->fail_prob >= 0 && f->fail_prob <= 1 &&
               f->provisioned < AC_SIM_NIL && f->prewarm < AC_SIM_NIL && f->prewarm_interval >= 0 &&
               isfinite(f->prewarm_interval) && (unsigned)f->invocation <= AC_INVOCATION_ASYNC;
    }
    case AC_NODE_QUEUE: {
        const ac_queue *q = &nd->u.queue;
        return q->capacity >= 1 && q->batch_size >= 1 && q->batch_size < AC_SIM_NIL &&
               q->max_consumers >= 1 && q->max_receives >= 1 && q->visibility_timeout > 0 &&
               isfinite(q->visibility_timeout);
    }
    case AC_NODE_GATEWAY: {
        const ac_gateway *g = &nd->u.gateway;
        return g->rate_limit > 0 && g->burst < AC_SIM_NIL && g->timeout >= 0 && !isnan(g->timeout);
    }
    case AC_NODE_POOL: break;
    }
    return 0;
}

/* The routes' graph: no cycle of instantaneous routes, and the choice routes out of each
 * node (summed in route order) have p summing to at most 1. 0 or AC_E*. */
static int graph_check(const ac_model *m, const ac_sim_graph *g, ac_error *err)
{
    int rc;
    size_t c = ac_sim_instant_cycle(m, g, &rc);
    if (rc != 0)
        return ac_error_set(err, rc, "simulation: out of memory");
    if (c != AC_NONE)
        return ac_error_set_at(err, AC_EINVAL, m->nodes[c].loc,
                               "simulation: '%s' is on a cycle of routes that take no time "
                               "(gateways and queue hand-offs): a job would go round "
                               "forever at one instant",
                               m->nodes[c].id ? m->nodes[c].id : "?");
    for (size_t i = 0; i < m->nnodes; i++) {
        double sum = 0;
        for (size_t q = g->from.start[i]; q < g->from.start[i + 1]; q++)
            if (!m->routes[g->from.idx[q]].parallel)
                sum += m->routes[g->from.idx[q]].p;
        if (sum > 1 + 1e-9)
            return ac_error_set_at(err, AC_EINVAL, m->nodes[i].loc,
                                   "the routes from '%s' have p summing to %g > 1",
                                   m->nodes[i].id ? m->nodes[i].id : "?", sum);
    }
    return 0;
}

int ac_sim_model_check(const ac_model *m, const ac_sim_options *opt, ac_error *err)
{
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        const ac_pool *p = &nd->u.pool;
        if ((unsigned)nd->kind > AC_NODE_GATEWAY)
            return ac_error_set_at(err, AC_EINVAL, nd->loc, "node '%s': unknown kind",
                                   nd->id ? nd->id : "?");
        if (nd->kind != AC_NODE_POOL) {
            if (!serverless_ok(nd))
                return ac_error_set_at(err, AC_EINVAL, nd->loc,
                                       "%s '%s': invalid parameters for simulation",
                                       ac_node_kind_name(nd->kind), nd->id ? nd->id : "?");
            continue;
        }
        if (opt->autoscale) {
            int rc = ac_sim_autoscale_check(nd, err);
            if (rc != 0)
                return rc;
        }
        if (p->servers < 1 || p->servers >= AC_SIM_NIL || !(p->service_rate > 0) ||
            !isfinite(p->service_rate) || p->buffer < 1 || !(p->timeout >= 0) ||
            (p->dispatch == AC_DISPATCH_POWER_OF_D && p->d < 1) || p->retries >= AC_SIM_NIL ||
            (unsigned)p->dispatch > AC_DISPATCH_SHARED_QUEUE)
            return ac_error_set_at(err, AC_EINVAL, nd->loc,
                                   "pool '%s': invalid parameters for simulation",
                                   nd->id ? nd->id : "?");
    }
    for (size_t i = 0; i < m->nlinks; i++) {
        const ac_link *l = &m->links[i];
        if (l->from >= m->nnodes || l->to >= m->nnodes || !(l->capacity > 0) ||
            !(l->latency >= 0) || !isfinite(l->latency))
            return ac_error_set_at(err, AC_EINVAL, l->loc, "link: invalid parameters");
    }
    for (size_t i = 0; i < m->nroutes; i++) {
        const ac_route *r = &m->routes[i];
        if (r->from >= m->nnodes || r->to >= m->nnodes || !(r->p >= 0 && r->p <= 1) ||
            r->fanout < 1 || r->fanin < 1 || r->fanout >= AC_SIM_NIL || r->fanin >= AC_SIM_NIL)
            return ac_error_set_at(err, AC_EINVAL, r->loc, "route: invalid parameters");
        if (m->nodes[r->from].kind == AC_NODE_QUEUE && m->nodes[r->to].kind == AC_NODE_FUNCTION)
            for (size_t l = 0; l < m->nlinks; l++)
                if (m->links[l].from == r->from && m->links[l].to == r->to)
                    return ac_error_set_at(err, AC_EINVAL, m->links[l].loc,
                                           "simulation: a <link> between queue '%s' and its "
                                           "consumer function '%s' is not simulated (polling "
                                           "has no transmission)",
                                           m->nodes[r->from].id ? m->nodes[r->from].id : "?",
                                           m->nodes[r->to].id ? m->nodes[r->to].id : "?");
    }
    {
        ac_sim_graph g;
        int rc = ac_sim_graph_new(m, &g) != 0
                     ? ac_error_set(err, AC_ENOMEM, "simulation: out of memory")
                     : graph_check(m, &g, err);
        ac_sim_graph_free(&g);
        if (rc != 0)
            return rc;
    }
    for (size_t i = 0; i < m->nsources; i++) {
        const ac_source *src = &m->sources[i];
        if (src->to >= m->nnodes || !(src->rate >= 0) || !isfinite(src->rate) || !(src->scv > 0) ||
            !isfinite(src->scv))
            return ac_error_set_at(err, AC_EINVAL, src->loc, "source '%s': invalid parameters",
                                   src->id ? src->id : "?");
        if (opt->use_profiles && src->profile != AC_NONE) {
            const ac_profile *pr;
            if (src->profile >= m->nprofiles)
                return ac_error_set_at(err, AC_EINVAL, src->loc, "source: bad profile index");
            pr = &m->profiles[src->profile];
            if (pr->npoints < 2 || pr->points[0].at != 0)
                return ac_error_set_at(err, AC_EINVAL, pr->loc, "profile: invalid points");
            for (size_t k = 0; k < pr->npoints; k++)
                if (!(pr->points[k].rate >= 0) || !isfinite(pr->points[k].rate) ||
                    (k > 0 && !(pr->points[k].at > pr->points[k - 1].at)))
                    return ac_error_set_at(err, AC_EINVAL, pr->points[k].loc,
                                           "profile: invalid point");
        }
    }
    for (size_t i = 0; i < m->npopulations; i++) {
        const ac_population *p = &m->populations[i];
        if (p->to >= m->nnodes || !(p->think_time >= 0) || !isfinite(p->think_time) ||
            p->size >= AC_SIM_NIL)
            return ac_error_set_at(err, AC_EINVAL, p->loc, "population '%s': invalid parameters",
                                   p->id ? p->id : "?");
    }
    {
        int rc = ac_sim_faults_check(m, opt, err);
        if (rc != 0)
            return rc;
    }
    for (size_t i = 0; i < opt->ninitial; i++) {
        const ac_sim_initial_state *is = &opt->initial[i];
        if (is->node >= m->nnodes || m->nodes[is->node].kind != AC_NODE_POOL ||
            is->count != m->nodes[is->node].u.pool.servers || (is->count > 0 && is->jobs == NULL))
            return ac_error_set(err, AC_EINVAL,
                                "initial state %zu: node index (a pool) or server count is wrong",
                                i);
    }
    return 0;
}
