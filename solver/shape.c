/*
 * Helpers on the shape of a network model that the steady state (analysis/) and the
 * transient (solver/transient*.c) both use: a queue's consumer, an autoscaled pool's
 * steady count.
 */
#include <math.h>

#include "archcheck/solver.h"

const ac_route *ac_solver_queue_consumer_route(const ac_model *m, size_t i)
{
    const ac_route *found = NULL;
    for (size_t k = 0; k < m->nroutes; k++) {
        if (m->routes[k].from != i)
            continue;
        if (found != NULL)
            return NULL;
        found = &m->routes[k];
    }
    if (found == NULL || m->nodes[found->to].kind != AC_NODE_FUNCTION || found->p < 1.0 ||
        found->parallel || found->fanin > 1)
        return NULL;
    return found;
}

size_t ac_solver_autoscale_steady(const ac_pool *pool, double rate)
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
        x = ceil((double)n * ratio * (1.0 - 1e-6)); /* as the transient scaler_look */
        next = x < (double)as->min ? as->min : x > (double)as->max ? as->max : (size_t)x;
        if (next == n)
            break;
        n = next;
    }
    return n;
}
