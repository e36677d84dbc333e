/*
 * Building the model from the document: every attribute of every element is
 * parsed by one table-driven routine (type, unit, range, default: parser/attrs.c), so
 * that each value gets a precise diagnostic at its own location. This file builds the
 * system (nodes, routes, links, the workload); parser/build_review.c the review's elements.
 *
 * Two passes: the first counts the elements of each kind so that the model's
 * arrays are allocated once (pending references point into them), the second
 * fills them.
 */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "parser/attrs.h"
#include "parser/units.h"
#include "archcheck/parser.h"
#include "archcheck/rules.h"

static_assert(sizeof(ac_dispatch) == sizeof(int), "enums are stored as int");

#define NODE_OFF(m) offsetof(ac_node, m)

static const char *const kw_dispatch[] = {"random", "power-of-d",   "jsq",
                                          "jiq",    "shared-queue", NULL};
static const char *const kw_sampling[] = {"distinct", "with-replacement", NULL};
static const char *const kw_invocation[] = {"sync", "async", NULL};
static const char *const kw_bool[] = {"false", "true", NULL};

static const attr_spec pool_attrs[] = {
    {"id", T_NAME, F_REQUIRED, NODE_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, NODE_OFF(label), 0, NULL, AC_REF_NODE},
    {"servers", T_COUNT, F_REQUIRED | F_MIN1, NODE_OFF(u.pool.servers), MILLION, NULL, AC_REF_NODE},
    {"service-time", T_PERIOD_RATE, F_POSITIVE, NODE_OFF(u.pool.service_rate), 0, NULL,
     AC_REF_NODE},
    {"service-rate", T_RATE, F_POSITIVE, NODE_OFF(u.pool.service_rate), 0, NULL, AC_REF_NODE},
    {"dispatch", T_ENUM, 0, NODE_OFF(u.pool.dispatch), 0, kw_dispatch, AC_REF_NODE},
    {"d", T_COUNT, F_MIN2, NODE_OFF(u.pool.d), 1000, NULL, AC_REF_NODE},
    {"sampling", T_ENUM, 0, NODE_OFF(u.pool.sampling), 0, kw_sampling, AC_REF_NODE},
    {"buffer", T_COUNT, F_MIN1, NODE_OFF(u.pool.buffer), 100000, NULL, AC_REF_NODE},
    {"timeout", T_DURATION, F_POSITIVE, NODE_OFF(u.pool.timeout), 0, NULL, AC_REF_NODE},
    {"retries", T_COUNT, 0, NODE_OFF(u.pool.retries), 100, NULL, AC_REF_NODE},
};

#define AS_OFF(m) offsetof(ac_autoscale, m)
static const attr_spec autoscale_attrs[] = {
    {"min", T_COUNT, F_REQUIRED | F_MIN1, AS_OFF(min), MILLION, NULL, AC_REF_NODE},
    {"max", T_COUNT, F_REQUIRED | F_MIN1, AS_OFF(max), MILLION, NULL, AC_REF_NODE},
    {"target-utilization", T_PROB, F_REQUIRED | F_POSITIVE, AS_OFF(target_utilization), 0, NULL,
     AC_REF_NODE},
    {"interval", T_DURATION, F_POSITIVE, AS_OFF(interval), 0, NULL, AC_REF_NODE},
    {"tolerance", T_PROB, 0, AS_OFF(tolerance), 0, NULL, AC_REF_NODE},
    {"scale-up-delay", T_DURATION, 0, AS_OFF(scale_up_delay), 0, NULL, AC_REF_NODE},
    {"cooldown", T_DURATION, 0, AS_OFF(cooldown), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

static const attr_spec function_attrs[] = {
    {"id", T_NAME, F_REQUIRED, NODE_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, NODE_OFF(label), 0, NULL, AC_REF_NODE},
    {"concurrency", T_COUNT, F_MIN1, NODE_OFF(u.function.concurrency), MILLION, NULL, AC_REF_NODE},
    {"duration", T_DURATION, F_REQUIRED | F_POSITIVE, NODE_OFF(u.function.duration), 0, NULL,
     AC_REF_NODE},
    {"cold-start", T_DURATION, 0, NODE_OFF(u.function.cold_start), 0, NULL, AC_REF_NODE},
    {"keep-alive", T_DURATION, 0, NODE_OFF(u.function.keep_alive), 0, NULL, AC_REF_NODE},
    {"scale-rate", T_RATE, F_POSITIVE, NODE_OFF(u.function.scale_rate), 0, NULL, AC_REF_NODE},
    {"scale-burst", T_COUNT, F_MIN1, NODE_OFF(u.function.scale_burst), MILLION, NULL, AC_REF_NODE},
    {"timeout", T_DURATION, F_POSITIVE, NODE_OFF(u.function.timeout), 0, NULL, AC_REF_NODE},
    {"retries", T_COUNT, 0, NODE_OFF(u.function.retries), 100, NULL, AC_REF_NODE},
    {"invocation", T_ENUM, 0, NODE_OFF(u.function.invocation), 0, kw_invocation, AC_REF_NODE},
    {"fail-prob", T_PROB, 0, NODE_OFF(u.function.fail_prob), 0, NULL, AC_REF_NODE},
};

static const attr_spec queue_attrs[] = {
    {"id", T_NAME, F_REQUIRED, NODE_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, NODE_OFF(label), 0, NULL, AC_REF_NODE},
    {"capacity", T_COUNT, 0, NODE_OFF(u.queue.capacity), (size_t)1000000000000, NULL, AC_REF_NODE},
    {"batch-size", T_COUNT, F_MIN1, NODE_OFF(u.queue.batch_size), 10000, NULL, AC_REF_NODE},
    {"max-consumers", T_COUNT, F_MIN1, NODE_OFF(u.queue.max_consumers), MILLION, NULL, AC_REF_NODE},
    {"visibility-timeout", T_DURATION, F_POSITIVE, NODE_OFF(u.queue.visibility_timeout), 0, NULL,
     AC_REF_NODE},
    {"max-receives", T_COUNT, F_MIN1, NODE_OFF(u.queue.max_receives), 1000, NULL, AC_REF_NODE},
};

static const attr_spec gateway_attrs[] = {
    {"id", T_NAME, F_REQUIRED, NODE_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, NODE_OFF(label), 0, NULL, AC_REF_NODE},
    {"rate-limit", T_RATE, F_POSITIVE, NODE_OFF(u.gateway.rate_limit), 0, NULL, AC_REF_NODE},
    {"burst", T_COUNT, 0, NODE_OFF(u.gateway.burst), (size_t)1000000000, NULL, AC_REF_NODE},
    {"timeout", T_DURATION, F_POSITIVE, NODE_OFF(u.gateway.timeout), 0, NULL, AC_REF_NODE},
};

#define R_OFF(m) offsetof(ac_route, m)
static const attr_spec route_attrs[] = {
    {"from", T_REF, F_REQUIRED, R_OFF(from), 0, NULL, AC_REF_NODE},
    {"to", T_REF, F_REQUIRED, R_OFF(to), 0, NULL, AC_REF_NODE},
    {"p", T_PROB, 0, R_OFF(p), 0, NULL, AC_REF_NODE},
    {"fanout", T_COUNT, F_MIN1, R_OFF(fanout), 10000, NULL, AC_REF_NODE},
    {"fanin", T_COUNT, F_MIN1, R_OFF(fanin), 10000, NULL, AC_REF_NODE},
    {"parallel", T_BOOL, 0, R_OFF(parallel), 0, kw_bool, AC_REF_NODE},
    {"label", T_STRING, 0, R_OFF(label), 0, NULL, AC_REF_NODE},
};

#define L_OFF(m) offsetof(ac_link, m)
static const attr_spec link_attrs[] = {
    {"id", T_NAME, 0, L_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, L_OFF(label), 0, NULL, AC_REF_NODE},
    {"from", T_REF, F_REQUIRED, L_OFF(from), 0, NULL, AC_REF_NODE},
    {"to", T_REF, F_REQUIRED, L_OFF(to), 0, NULL, AC_REF_NODE},
    {"capacity", T_RATE, F_POSITIVE, L_OFF(capacity), 0, NULL, AC_REF_NODE},
    {"latency", T_DURATION, 0, L_OFF(latency), 0, NULL, AC_REF_NODE},
    {"buffer", T_COUNT, 0, L_OFF(buffer), (size_t)1000000000, NULL, AC_REF_NODE},
};

#define S_OFF(m) offsetof(ac_source, m)
static const attr_spec source_attrs[] = {
    {"id", T_NAME, F_REQUIRED, S_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, S_OFF(label), 0, NULL, AC_REF_NODE},
    {"to", T_REF, F_REQUIRED, S_OFF(to), 0, NULL, AC_REF_NODE},
    {"rate", T_RATE, F_REQUIRED, S_OFF(rate), 0, NULL, AC_REF_NODE},
    {"scv", T_FACTOR, 0, S_OFF(scv), 0, NULL, AC_REF_NODE},
};

#define P_OFF(m) offsetof(ac_population, m)
static const attr_spec population_attrs[] = {
    {"id", T_NAME, F_REQUIRED, P_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, P_OFF(label), 0, NULL, AC_REF_NODE},
    {"size", T_COUNT, F_REQUIRED | F_MIN1, P_OFF(size), (size_t)10000000, NULL, AC_REF_NODE},
    {"think-time", T_DURATION, F_REQUIRED, P_OFF(think_time), 0, NULL, AC_REF_NODE},
    {"to", T_REF, F_REQUIRED, P_OFF(to), 0, NULL, AC_REF_NODE},
};

#define PR_OFF(m) offsetof(ac_profile, m)
static const attr_spec profile_attrs[] = {
    {"source", T_REF, F_REQUIRED, PR_OFF(source), 0, NULL, AC_REF_SOURCE},
    {"repeat", T_BOOL, 0, PR_OFF(repeat), 0, kw_bool, AC_REF_NODE},
    {"label", T_STRING, 0, PR_OFF(label), 0, NULL, AC_REF_NODE},
};

#define PT_OFF(m) offsetof(ac_profile_point, m)
static const attr_spec point_attrs[] = {
    {"at", T_DURATION, F_REQUIRED, PT_OFF(at), 0, NULL, AC_REF_NODE},
    {"rate", T_RATE, F_REQUIRED, PT_OFF(rate), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

static const attr_spec architecture_attrs[] = {
    {"name", T_STRING, 0, offsetof(ac_model, name), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, offsetof(ac_model, label), 0, NULL, AC_REF_NODE},
    {"format", T_STRING, F_REQUIRED, (size_t)-1, 0, NULL, AC_REF_NODE},
};

/* ---- elements ---- */

static void build_pool(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_pool *p = &node->u.pool;
    char idbuf[256];
    const char *id = ac_attrs_node_id(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_POOL;
    p->dispatch = AC_DISPATCH_RANDOM;
    p->d = 2;
    p->sampling = AC_SAMPLING_DISTINCT;
    p->buffer = AC_UNBOUNDED;
    p->timeout = 0.0;
    p->retries = 0;
    ac_attrs_parse(ctx, n, pool_attrs, NSPECS(pool_attrs), node, id);
    if (ac_attrs_has(n, "service-time") == ac_attrs_has(n, "service-rate")) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), id, "AC018",
                 "pool '%s' needs exactly one of 'service-time' and 'service-rate'%s",
                 id != NULL ? id : "?", ac_attrs_has(n, "service-time") ? ", not both" : "");
    }
    if ((ac_attrs_has(n, "d") || ac_attrs_has(n, "sampling")) &&
        p->dispatch != AC_DISPATCH_POWER_OF_D) {
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, ac_attrs_has(n, "d") ? "d" : "sampling"), id, "AC018",
                 "attribute '%s' applies only to dispatch=\"power-of-d\" (pool '%s' has "
                 "dispatch=\"%s\")",
                 ac_attrs_has(n, "d") ? "d" : "sampling", id != NULL ? id : "?",
                 ac_dispatch_name(p->dispatch));
    }
    if (p->dispatch == AC_DISPATCH_POWER_OF_D && p->sampling == AC_SAMPLING_DISTINCT &&
        p->servers >= 1 && p->d > p->servers) {
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, ac_attrs_has(n, "d") ? "d" : "servers"), id, "AC011",
                 "pool '%s' samples d=%zu distinct servers but has only %zu", id != NULL ? id : "?",
                 p->d, p->servers);
    }
    if (ac_attrs_has(n, "retries") && p->retries > 0 && !ac_attrs_has(n, "timeout") &&
        p->buffer == AC_UNBOUNDED) {
        ac_pdiag(
            ctx, ac_xml_attr_loc(ctx, n, "retries"), id, "AC018",
            "pool '%s' has retries but neither a timeout nor a buffer: nothing is ever retried",
            id != NULL ? id : "?");
    }
    for (const xmlNode *c = n->children; c != NULL; c = c->next) {
        if (!ac_attrs_is_elem(c, "autoscale"))
            continue;
        if (node->u.pool.has_autoscale) {
            ac_pdiag(ctx, ac_xml_elem_loc(ctx, c), id, "AC030",
                     "pool '%s' has more than one <autoscale>", id != NULL ? id : "?");
            continue;
        }
        ac_autoscale *a = &p->autoscale;
        p->has_autoscale = 1;
        a->interval = 15.0;
        a->tolerance = 0.1;
        a->scale_up_delay = 30.0;
        a->cooldown = 300.0;
        a->loc = ac_xml_elem_loc(ctx, c);
        if (ac_attrs_parse(ctx, c, autoscale_attrs, NSPECS(autoscale_attrs), a, id) == 0) {
            if (a->min > a->max)
                ac_pdiag(ctx, a->loc, id, "AC018",
                         "<autoscale> of pool '%s' has min=%zu above max=%zu",
                         id != NULL ? id : "?", a->min, a->max);
            else if (p->servers >= 1 && (p->servers < a->min || p->servers > a->max))
                ac_pdiag(
                    ctx, a->loc, id, "AC018",
                    "pool '%s' starts with servers=%zu, outside its autoscale bounds [%zu, %zu]",
                    id != NULL ? id : "?", p->servers, a->min, a->max);
        }
    }
}

static void build_function(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_function *f = &node->u.function;
    char idbuf[256];
    const char *id = ac_attrs_node_id(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_FUNCTION;
    f->concurrency = 1000;
    f->cold_start = 0.0;
    f->keep_alive = 600.0;
    f->scale_rate = 100.0;
    f->timeout = 3.0;
    f->invocation = AC_INVOCATION_SYNC;
    f->fail_prob = 0.0;
    ac_attrs_parse(ctx, n, function_attrs, NSPECS(function_attrs), node, id);
    f->retries_given = ac_attrs_has(n, "retries");
    if (!f->retries_given)
        f->retries = f->invocation == AC_INVOCATION_ASYNC ? 2 : 0;
    if (f->duration > 0.0 && f->timeout > 0.0 && f->duration >= f->timeout)
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "duration"), id, "AC018",
                 "function '%s' has a mean duration (%gs) not below its timeout (%gs): most "
                 "executions would fail",
                 id != NULL ? id : "?", f->duration, f->timeout);
}

static void build_queue(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_queue *q = &node->u.queue;
    char idbuf[256];
    const char *id = ac_attrs_node_id(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_QUEUE;
    q->capacity = AC_UNBOUNDED;
    q->batch_size = 10;
    q->max_consumers = 1000;
    q->visibility_timeout = 30.0;
    q->max_receives = 5;
    ac_attrs_parse(ctx, n, queue_attrs, NSPECS(queue_attrs), node, id);
}

static void build_gateway(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_gateway *g = &node->u.gateway;
    char idbuf[256];
    const char *id = ac_attrs_node_id(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_GATEWAY;
    g->rate_limit = INFINITY;
    g->burst = 1; /* a request needs one whole token: a depth below 1 is taken as 1 */
    g->timeout = 29.0;
    ac_attrs_parse(ctx, n, gateway_attrs, NSPECS(gateway_attrs), node, id);
}

typedef struct counts {
    size_t nodes, routes, links, sources, populations, profiles, mitigations, requirements,
        suppressions;
} counts;

static int is_node_elem(const xmlNode *c)
{
    return ac_attrs_is_elem(c, "pool") || ac_attrs_is_elem(c, "function") ||
           ac_attrs_is_elem(c, "queue") || ac_attrs_is_elem(c, "gateway");
}

static int is_requirement_elem(const xmlNode *c)
{
    static const char *const names[] = {"latency",  "utilization", "loss",    "throughput",
                                        "headroom", "recovery",    "scaling", "resilience"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (ac_attrs_is_elem(c, names[i]))
            return 1;
    return 0;
}

static void count_elements(const xmlNode *root, counts *k)
{
    memset(k, 0, sizeof *k);
    for (const xmlNode *c = root->children; c != NULL; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (is_node_elem(c))
            k->nodes++;
        else if (ac_attrs_is_elem(c, "route"))
            k->routes++;
        else if (ac_attrs_is_elem(c, "link"))
            k->links++;
        else if (ac_attrs_is_elem(c, "mitigation"))
            k->mitigations++;
        else if (ac_attrs_is_elem(c, "suppress"))
            k->suppressions++;
        else if (ac_attrs_is_elem(c, "workload")) {
            k->sources += ac_attrs_count_children(c, "source");
            k->populations += ac_attrs_count_children(c, "population");
            k->profiles += ac_attrs_count_children(c, "profile");
        } else if (ac_attrs_is_elem(c, "requirements")) {
            for (const xmlNode *r = c->children; r != NULL; r = r->next)
                if (r->type == XML_ELEMENT_NODE && is_requirement_elem(r))
                    k->requirements++;
        }
    }
}

static int alloc_arrays(ac_model *m, const counts *k)
{
#define ALLOC(field, n)                                                                            \
    do {                                                                                           \
        if ((n) > 0) {                                                                             \
            m->field = calloc((n), sizeof *m->field);                                              \
            if (m->field == NULL)                                                                  \
                return AC_ENOMEM;                                                                  \
        }                                                                                          \
    } while (0)
    ALLOC(nodes, k->nodes);
    ALLOC(routes, k->routes);
    ALLOC(links, k->links);
    ALLOC(sources, k->sources);
    ALLOC(populations, k->populations);
    ALLOC(profiles, k->profiles);
    ALLOC(mitigations, k->mitigations);
    ALLOC(requirements, k->requirements);
    ALLOC(suppressions, k->suppressions);
#undef ALLOC
    return AC_OK;
}

static void build_workload(ac_pctx *ctx, const xmlNode *w)
{
    ac_model *m = ctx->model;
    for (const xmlNode *c = w->children; c != NULL; c = c->next) {
        if (ac_attrs_is_elem(c, "source")) {
            ac_source *s = &m->sources[m->nsources++];
            s->to = AC_NONE;
            s->scv = 1.0;
            s->profile = AC_NONE;
            s->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, source_attrs, NSPECS(source_attrs), s, NULL);
        } else if (ac_attrs_is_elem(c, "population")) {
            ac_population *p = &m->populations[m->npopulations++];
            p->to = AC_NONE;
            p->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, population_attrs, NSPECS(population_attrs), p, NULL);
        } else if (ac_attrs_is_elem(c, "profile")) {
            ac_profile *pr = &m->profiles[m->nprofiles++];
            size_t np = ac_attrs_count_children(c, "point");
            pr->source = AC_NONE;
            pr->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, profile_attrs, NSPECS(profile_attrs), pr, NULL);
            if (np > 0) {
                pr->points = calloc(np, sizeof *pr->points);
                if (pr->points == NULL) {
                    ctx->oom = 1;
                    return;
                }
            }
            for (const xmlNode *pt = c->children; pt != NULL; pt = pt->next) {
                if (!ac_attrs_is_elem(pt, "point"))
                    continue;
                ac_profile_point *p = &pr->points[pr->npoints++];
                p->loc = ac_xml_elem_loc(ctx, pt);
                p->at = NAN;
                ac_attrs_parse(ctx, pt, point_attrs, NSPECS(point_attrs), p, NULL);
            }
        }
    }
}

int ac_build_model(ac_pctx *ctx, xmlDocPtr doc)
{
    const xmlNode *root = xmlDocGetRootElement(doc);
    ac_model *m = ctx->model;
    counts k;
    char *format;

    if (root == NULL || strcmp(ac_attrs_elem_name(root), "architecture") != 0) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, root), NULL, "AC006",
                 "the root element must be <architecture format=\"1\">, not <%s>",
                 root != NULL ? ac_attrs_elem_name(root) : "");
        return AC_EINPUT;
    }
    m->loc = ac_xml_elem_loc(ctx, root);
    ac_attrs_parse(ctx, root, architecture_attrs, NSPECS(architecture_attrs), m, NULL);
    format = ac_attrs_get(root, "format");
    if (format != NULL && strcmp(format, "1") != 0)
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, root, "format"), NULL, "AC006",
                 "archcheck reads format=\"1\": got format=\"%s\"", format);
    free(format);

    count_elements(root, &k);
    if (alloc_arrays(m, &k) != AC_OK) {
        ctx->oom = 1;
        return AC_ENOMEM;
    }
    for (const xmlNode *c = root->children; c != NULL && !ctx->oom; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (is_node_elem(c)) {
            ac_node *node = &m->nodes[m->nnodes++];
            node->loc = ac_xml_elem_loc(ctx, c);
            if (ac_attrs_is_elem(c, "pool"))
                build_pool(ctx, c, node);
            else if (ac_attrs_is_elem(c, "function"))
                build_function(ctx, c, node);
            else if (ac_attrs_is_elem(c, "queue"))
                build_queue(ctx, c, node);
            else
                build_gateway(ctx, c, node);
        } else if (ac_attrs_is_elem(c, "route")) {
            ac_route *r = &m->routes[m->nroutes++];
            r->from = r->to = AC_NONE;
            r->p = 1.0;
            r->fanout = r->fanin = 1;
            r->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, route_attrs, NSPECS(route_attrs), r, NULL);
        } else if (ac_attrs_is_elem(c, "link")) {
            ac_link *l = &m->links[m->nlinks++];
            l->from = l->to = AC_NONE;
            l->capacity = INFINITY;
            l->buffer = AC_UNBOUNDED;
            l->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, link_attrs, NSPECS(link_attrs), l, NULL);
        } else if (ac_attrs_is_elem(c, "workload")) {
            build_workload(ctx, c);
        } else if (ac_attrs_is_elem(c, "mitigation")) {
            ac_build_mitigation(ctx, c, &m->mitigations[m->nmitigations++]);
        } else if (ac_attrs_is_elem(c, "faults")) {
            ac_build_faults(ctx, c);
        } else if (ac_attrs_is_elem(c, "requirements")) {
            ac_build_requirements(ctx, c);
        } else if (ac_attrs_is_elem(c, "suppress")) {
            ac_build_suppress(ctx, c, &m->suppressions[m->nsuppressions++]);
        }
    }
    return ctx->oom ? AC_ENOMEM : AC_OK;
}

/* The spec table of a node kind. */
static const attr_spec *node_specs(ac_node_kind kind, size_t *n)
{
    switch (kind) {
    case AC_NODE_POOL: *n = NSPECS(pool_attrs); return pool_attrs;
    case AC_NODE_FUNCTION: *n = NSPECS(function_attrs); return function_attrs;
    case AC_NODE_QUEUE: *n = NSPECS(queue_attrs); return queue_attrs;
    case AC_NODE_GATEWAY: *n = NSPECS(gateway_attrs); return gateway_attrs;
    }
    *n = 0;
    return NULL;
}

int ac_build_check_node_attr(ac_pctx *ctx, ac_node_kind kind, const char *attr, const char *value,
                             ac_loc loc, const char *node_id)
{
    size_t n = 0;
    const attr_spec *specs = node_specs(kind, &n);
    ac_node scratch;
    int rc;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(specs[i].name, attr) != 0)
            continue;
        if (specs[i].type == T_NAME || strcmp(attr, "label") == 0) {
            ac_pdiag(ctx, loc, node_id, "AC029",
                     "a <mitigation kind=\"set\"> cannot change the attribute '%s'", attr);
            return -1;
        }
        memset(&scratch, 0, sizeof scratch);
        rc = ac_attrs_parse_value(ctx, &specs[i], value, &scratch, loc, "mitigation", node_id);
        return rc;
    }
    {
        ac_strbuf allowed = {0};
        for (size_t i = 0; i < n; i++) {
            if (specs[i].type == T_NAME || strcmp(specs[i].name, "label") == 0)
                continue;
            ac_strbuf_append(&allowed, allowed.len ? ", " : "");
            ac_strbuf_append(&allowed, specs[i].name);
        }
        ac_pdiag(ctx, loc, node_id, "AC029", "a %s has no attribute '%s' to set (it has: %s)",
                 ac_node_kind_name(kind), attr, allowed.data != NULL ? allowed.data : "");
        ac_strbuf_free(&allowed);
    }
    return -1;
}

int ac_parser_set_node_attr(ac_node *node, const char *attr, const char *value, char *msg,
                            size_t size)
{
    size_t n = 0;
    const attr_spec *specs = node_specs(node->kind, &n);
    ac_diag_list diags = {0};
    ac_pctx ctx;
    ac_loc loc = {NULL, 0, 0};
    char old[64];
    int rc = -1;
    memset(&ctx, 0, sizeof ctx);
    ctx.file = node->loc.file != NULL ? node->loc.file : "-";
    ctx.diags = &diags;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(specs[i].name, attr) != 0)
            continue;
        if (specs[i].type == T_NAME || specs[i].offset == (size_t)-1 ||
            strcmp(attr, "label") == 0) {
            snprintf(msg, size, "the attribute '%s' cannot be set", attr);
            return -1;
        }
        ac_attrs_format_value(&specs[i], node, old, sizeof old);
        rc = ac_attrs_parse_value(&ctx, &specs[i], value, node, loc, ac_node_kind_name(node->kind),
                                  node->id);
        if (rc == 0)
            snprintf(msg, size, "%s", old);
        else
            snprintf(msg, size, "%s", diags.count > 0 ? diags.items[0].message : "out of memory");
        ac_diag_list_clear(&diags);
        return rc;
    }
    snprintf(msg, size, "a %s has no attribute '%s'", ac_node_kind_name(node->kind), attr);
    return -1;
}
