/*
 * Latency requirements: the mean or a percentile of the response time of one
 * node, or end to end.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/internal.h"

/* The p-quantile of a node's response time (p in (0, 1)); NAN if unavailable. */
static double node_quantile(const ac_node_analysis *na, double p, double *rel_err)
{
    ac_error err = {0};
    double q = NAN;
    *rel_err = fmax(na->expected_rel_error, na->percentile_rel_error);
    if (na->overload)
        return INFINITY;
    if (!ac_node_analysis_has_law(na))
        return NAN; /* no steady-state law (not an overload): not computed */
    if (fabs(p - 0.5) < 1e-12)
        return na->p50;
    if (fabs(p - 0.95) < 1e-12)
        return na->p95;
    if (fabs(p - 0.99) < 1e-12)
        return na->p99;
    if (na->pool == NULL || ac_node_analysis_quantile(na, p, &q, &err) != AC_OK)
        return NAN;
    return q;
}

void ac_req_latency(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    ac_req_outcome o;
    double p = r->percentile / 100.0;
    memset(&o, 0, sizeof o);
    o.node = r->target;
    o.limit = r->max;
    snprintf(o.unit, sizeof o.unit, "s");
    if (r->percentile > 0.0)
        snprintf(o.what, sizeof o.what, "latency p%g", r->percentile);
    else
        snprintf(o.what, sizeof o.what, "mean latency");
    o.metric = r->percentile > 0.0 ? AC_OUT_LATENCY_PCT : AC_OUT_LATENCY_MEAN;
    o.percentile = r->percentile;
    if (r->target != AC_NONE) {
        const ac_node_analysis *na = &c->a->nodes[r->target];
        if (!na->analysed) {
            snprintf(o.note, sizeof o.note, "'%s' is not analysed", c->model->nodes[r->target].id);
        } else {
            o.value = r->percentile > 0.0 ? node_quantile(na, p, &o.rel_error)
                      : na->overload || ac_node_analysis_has_law(na) ? na->mean_response_time
                                                                     : NAN;
            if (r->percentile == 0.0)
                o.rel_error = na->expected_rel_error;
            o.evaluated = !isnan(o.value);
            if (!o.evaluated)
                snprintf(o.note, sizeof o.note,
                         "the response-time distribution of '%s' is not available",
                         c->model->nodes[r->target].id);
        }
    } else {
        const ac_end_to_end *e = &c->a->e2e;
        int any_overload = e->unbounded;
        for (size_t i = 0; i < c->a->nnodes; i++)
            any_overload |= c->a->nodes[i].overload && c->a->nodes[i].arrival_rate > 0.0;
        if (any_overload) {
            o.value = INFINITY;
            o.evaluated = 1;
        } else if (!e->available) {
            snprintf(o.note, sizeof o.note, "the end-to-end response time is not available");
        } else if (r->percentile > 0.0 && !e->percentiles) {
            snprintf(o.note, sizeof o.note,
                     "end-to-end percentiles are not available (%.96s); "
                     "only the mean is",
                     e->why[0] ? e->why : "a cycle or a closed workload");
        } else if (r->percentile > 0.0) {
            /* the lattice's bracket of this percentile plus the nodes' errors */
            ac_an_e2e_quantile(e, p, &o.value, &o.rel_error);
            o.evaluated = !isnan(o.value);
        } else {
            o.value = e->mean_response_time;
            o.rel_error = e->mean_rel_error;
            o.evaluated = !isnan(o.value);
        }
    }
    if (o.evaluated)
        o.pass = o.value <= o.limit;
    emit(c, r, &o);
}
