/*
 * The model's lifetime and the names of its enumerations.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/model.h"

void ac_model_free(ac_model *m)
{
    if (m == NULL)
        return;
    free(m->file);
    free(m->name);
    free(m->label);
    for (size_t i = 0; i < m->nnodes; i++) {
        free(m->nodes[i].id);
        free(m->nodes[i].label);
    }
    free(m->nodes);
    for (size_t i = 0; i < m->nroutes; i++)
        free(m->routes[i].label);
    free(m->routes);
    for (size_t i = 0; i < m->nlinks; i++) {
        free(m->links[i].id);
        free(m->links[i].label);
    }
    free(m->links);
    for (size_t i = 0; i < m->nsources; i++) {
        free(m->sources[i].id);
        free(m->sources[i].label);
    }
    free(m->sources);
    for (size_t i = 0; i < m->npopulations; i++) {
        free(m->populations[i].id);
        free(m->populations[i].label);
    }
    free(m->populations);
    for (size_t i = 0; i < m->nprofiles; i++) {
        free(m->profiles[i].points);
        free(m->profiles[i].label);
    }
    free(m->profiles);
    for (size_t i = 0; i < m->nmitigations; i++) {
        free(m->mitigations[i].id);
        free(m->mitigations[i].label);
        free(m->mitigations[i].attribute);
        free(m->mitigations[i].value);
        free(m->mitigations[i].of);
    }
    free(m->mitigations);
    for (size_t i = 0; i < m->faults.count; i++)
        free(m->faults.items[i].label);
    free(m->faults.items);
    free(m->faults.terms);
    for (size_t i = 0; i < m->nrequirements; i++)
        free(m->requirements[i].label);
    free(m->requirements);
    for (size_t i = 0; i < m->nsuppressions; i++)
        free(m->suppressions[i].reason);
    free(m->suppressions);
    free(m);
}

double ac_profile_rate(const ac_profile *p, double t, double *slope)
{
    const ac_profile_point *pt = p->points;
    size_t n = p->npoints, lo = 0, hi = n - 1;
    double period = pt[n - 1].at, sl = 0.0, rate;
    if (p->repeat && period > 0.0 && t >= period)
        t = fmod(t, period);
    if (t >= period) {
        rate = pt[n - 1].rate;
    } else if (t <= pt[0].at) {
        rate = pt[0].rate;
        if (n > 1 && pt[1].at > pt[0].at)
            sl = (pt[1].rate - pt[0].rate) / (pt[1].at - pt[0].at);
    } else {
        while (hi - lo > 1) { /* pt[lo].at <= t < pt[hi].at */
            size_t mid = (lo + hi) / 2;
            if (pt[mid].at <= t)
                lo = mid;
            else
                hi = mid;
        }
        sl = (pt[hi].rate - pt[lo].rate) / (pt[hi].at - pt[lo].at);
        rate = pt[lo].rate + sl * (t - pt[lo].at);
    }
    if (slope != NULL)
        *slope = sl;
    return rate;
}

size_t ac_model_find_node(const ac_model *m, const char *id)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].id != NULL && strcmp(m->nodes[i].id, id) == 0)
            return i;
    return AC_NONE;
}

const char *ac_node_kind_name(ac_node_kind kind)
{
    switch (kind) {
    case AC_NODE_POOL: return "pool";
    case AC_NODE_FUNCTION: return "function";
    case AC_NODE_QUEUE: return "queue";
    case AC_NODE_GATEWAY: return "gateway";
    }
    return "node";
}

const char *ac_dispatch_name(ac_dispatch d)
{
    switch (d) {
    case AC_DISPATCH_RANDOM: return "random";
    case AC_DISPATCH_POWER_OF_D: return "power-of-d";
    case AC_DISPATCH_JSQ: return "jsq";
    case AC_DISPATCH_JIQ: return "jiq";
    case AC_DISPATCH_SHARED_QUEUE: return "shared-queue";
    }
    return "random";
}

const char *ac_mitigation_kind_name(ac_mitigation_kind k)
{
    switch (k) {
    case AC_MIT_PROVISIONED_CONCURRENCY: return "provisioned-concurrency";
    case AC_MIT_PRE_WARMING: return "pre-warming";
    case AC_MIT_SNAPSTART: return "snapstart";
    case AC_MIT_ADD_SERVERS: return "add-servers";
    case AC_MIT_RATE_LIMIT: return "rate-limit";
    case AC_MIT_RETRY_BUDGET: return "retry-budget";
    case AC_MIT_SET: return "set";
    case AC_MIT_COMBINE: return "combine";
    }
    return "mitigation";
}

const char *ac_metric_name(ac_metric m)
{
    switch (m) {
    case AC_METRIC_ERROR_RATE: return "error-rate";
    case AC_METRIC_THROTTLE_RATE: return "throttle-rate";
    case AC_METRIC_P95_LATENCY: return "p95-latency";
    case AC_METRIC_P99_LATENCY: return "p99-latency";
    case AC_METRIC_LOSS: return "loss";
    case AC_METRIC_BACKLOG_DURATION: return "backlog-duration";
    case AC_METRIC_UTILIZATION: return "utilization";
    }
    return "metric";
}

const char *ac_req_kind_name(ac_req_kind k)
{
    switch (k) {
    case AC_REQ_LATENCY: return "latency";
    case AC_REQ_UTILIZATION: return "utilization";
    case AC_REQ_LOSS: return "loss";
    case AC_REQ_THROUGHPUT: return "throughput";
    case AC_REQ_HEADROOM: return "headroom";
    case AC_REQ_RECOVERY: return "recovery";
    case AC_REQ_SCALING: return "scaling";
    case AC_REQ_RESILIENCE: return "resilience";
    }
    return "requirement";
}
