/*
 * Requirements on load and flow: utilisation (of one node or of every node),
 * loss (one node or end to end) and throughput (one node or end to end).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/internal.h"

/* Utilisation and throughput of a pool without a buffer and without timeouts follow from
 * flow conservation alone (utilisation = lambda / (N mu)): exact whatever the dispatch, in
 * an open network (in a closed one lambda is MVA's throughput, approximate with non-product-
 * form stations: closed seed 32 of the accuracy harness, 1.3% off with 0% stated). */
static int flow_exact(const ac_model *m, size_t i)
{
    const ac_node *n = &m->nodes[i];
    return m->npopulations == 0 && n->kind == AC_NODE_POOL && n->u.pool.buffer == AC_UNBOUNDED &&
           n->u.pool.timeout <= 0.0;
}

void ac_req_utilization(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    const ac_model *m = c->model;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &c->a->nodes[i];
        ac_req_outcome o;
        if (r->target != AC_NONE && r->target != i)
            continue;
        if (r->target == AC_NONE && m->nodes[i].kind != AC_NODE_POOL && !na->analysed)
            continue; /* reported as not analysed once, by the stability check */
        memset(&o, 0, sizeof o);
        o.node = i;
        o.limit = r->max;
        snprintf(o.what, sizeof o.what, "utilization");
        o.metric = AC_OUT_UTILIZATION;
        if (!na->analysed) {
            snprintf(o.note, sizeof o.note, "'%s' is not analysed", m->nodes[i].id);
        } else {
            o.value = na->overload ? INFINITY : na->utilization;
            o.rel_error = flow_exact(m, i) ? 0.0 : na->expected_rel_error;
            o.evaluated = 1;
            o.pass = o.value <= o.limit;
        }
        emit(c, r, &o);
    }
}

/* A requirement on one node's value, or end to end: fills the value and its stated error,
 * or a note saying why there is none. */
static void node_or_end_to_end(ac_an_ctx *c, const ac_requirement *r, ac_req_outcome *o,
                               double node_value, double node_error, double e2e_value,
                               double e2e_error, const char *what)
{
    if (r->target != AC_NONE) {
        if (c->a->nodes[r->target].analysed) {
            o->value = node_value;
            o->rel_error = node_error;
            o->abs_error = c->a->nodes[r->target].loss_abs_error;
            o->evaluated = 1;
        } else {
            snprintf(o->note, sizeof o->note, "'%s' is not analysed",
                     c->model->nodes[r->target].id);
        }
    } else if (c->a->e2e.available && !isnan(e2e_value)) {
        o->value = e2e_value;
        o->rel_error = e2e_error;
        o->abs_error = c->a->e2e.loss_abs_error;
        o->evaluated = 1;
    } else {
        snprintf(o->note, sizeof o->note, "the end-to-end %s is not available", what);
    }
}

void ac_req_loss(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    const ac_node_analysis *na = r->target != AC_NONE ? &c->a->nodes[r->target] : NULL;
    ac_req_outcome o;
    memset(&o, 0, sizeof o);
    o.node = r->target;
    o.limit = r->max;
    snprintf(o.what, sizeof o.what, "loss");
    o.metric = AC_OUT_LOSS;
    node_or_end_to_end(c, r, &o, na != NULL ? na->loss_probability : NAN,
                       na != NULL ? na->expected_rel_error : 0.0, c->a->e2e.loss_probability,
                       c->a->e2e.loss_rel_error, "loss");
    if (o.evaluated)
        o.pass = o.value <= o.limit;
    emit(c, r, &o);
}

void ac_req_throughput(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    const ac_node_analysis *na = r->target != AC_NONE ? &c->a->nodes[r->target] : NULL;
    ac_req_outcome o;
    memset(&o, 0, sizeof o);
    o.node = r->target;
    o.limit = r->min;
    snprintf(o.what, sizeof o.what, "throughput");
    o.metric = AC_OUT_THROUGHPUT;
    snprintf(o.unit, sizeof o.unit, "/s");
    node_or_end_to_end(c, r, &o, na != NULL ? na->throughput : NAN,
                       na != NULL && !flow_exact(c->model, r->target) ? na->expected_rel_error
                                                                      : 0.0,
                       c->a->e2e.throughput, c->a->e2e.loss_rel_error, "throughput");
    /* the loss's absolute error in requests per second: the node's arrivals, or the open
       workload's entry rate (the closed one's throughput stands for it) */
    if (o.evaluated && o.abs_error > 0.0) {
        double in = 0.0;
        if (na != NULL) {
            in = flow_exact(c->model, r->target) ? 0.0 : na->arrival_rate;
        } else {
            for (size_t s = 0; s < c->model->nsources; s++)
                in += c->model->sources[s].rate * c->a->scale;
            if (c->model->nsources == 0)
                in = c->a->e2e.throughput;
        }
        o.abs_error *= in;
    }
    if (o.evaluated)
        o.pass = o.value >= o.limit;
    emit(c, r, &o);
}
