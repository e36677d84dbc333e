/*
 * Operations on a whole model: a deep copy, and applying a <mitigation> to it, so that the
 * analysis of the changed copy evaluates the mitigation (archcheck compare).
 *
 * Semantics of each mitigation kind (doc/format.md, <mitigation>) as a change of the model:
 *
 *   add-servers   pool.servers += amount; with <autoscale>, max += amount as well (the extra
 *                 servers are extra capacity, not a new starting point inside old bounds).
 *   set           the node's attribute takes the value, parsed and range-checked by the same
 *                 table as the parser (ac_parser_set_node_attr); then the cross-attribute
 *                 rules the parser enforces are checked again (power-of-d with distinct
 *                 sampling needs d <= servers; autoscale min <= servers <= max; a function's
 *                 `retries` becomes explicit).
 *   rate-limit    gateway: rate_limit := rate, burst := burst (a rate-limit with a lower
 *                 rate than the gateway's own is the binding one, so the new values replace
 *                 the old). On a pool, function or queue the analysis has no admission
 *                 control to put it in: AC_EINVAL, "not modelled".
 *   retry-budget  A budget of ratio b caps the retry rate at b times the first-attempt rate:
 *                 with per-attempt failure probability q the amplification of the offered
 *                 load is 1 + min(q + q^2 + ... + q^r, b), a state-dependent cap that the
 *                 integer `retries` of the model cannot express. We set
 *                     retries := min(retries, ceil(b))   (so 1 for 0 < b <= 1, 0 for b = 0).
 *                 This is conservative for the load: for every q, 1 + q + ... + q^r' >=
 *                 1 + min(q + ... + q^r, b) when r' >= 1 >= b (and equal when b = 0), so
 *                 utilisation, latency and metastability are never better in the model than
 *                 with the real budget; in states where the budget does not bind (q^1 + ... <
 *                 b), dropping retries beyond the first raises the modelled loss (q^2 instead
 *                 of q^(r+1)). The mitigation is therefore under-credited, never over-credited.
 *                 The note says "approximated".
 *   snapstart     function.cold_start := restore.
 *   provisioned-concurrency  function.provisioned := amount (at most the concurrency).
 *   pre-warming   function.prewarm := amount, prewarm_interval := interval.
 *                 (Functions are not analysed yet: their variants are INCONCLUSIVE.)
 *   combine       each part in order (parse-time checks have refused cycles and conflicting
 *                 parts).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/model.h"
#include "archcheck/parser.h"
#include "common/strbuf.h"
#include "parser/internal.h"

/* ---------------------------------------------------------------- clone */

/* Duplicate a string that may be NULL; *ok becomes 0 on allocation failure. */
static char *dup_opt(const char *s, int *ok)
{
    char *c;
    if (s == NULL)
        return NULL;
    c = ac_strdup(s);
    if (c == NULL)
        *ok = 0;
    return c;
}

/* Duplicate an array of n elements of `size` bytes (NULL when n is 0). */
static void *dup_array(const void *a, size_t n, size_t size, int *ok)
{
    void *c;
    if (a == NULL || n == 0)
        return NULL;
    c = malloc(n * size);
    if (c == NULL) {
        *ok = 0;
        return NULL;
    }
    memcpy(c, a, n * size);
    return c;
}

/*
 * The copy starts as a byte copy of every struct (numbers, indices, locations); then every
 * owned pointer is replaced by a fresh duplicate. Until a pointer is replaced, the copy's field
 * is reset to NULL so that ac_model_free of a half-built copy frees only what it owns.
 */
int ac_model_clone(const ac_model *src, ac_model **out, ac_error *err)
{
    ac_model *m = NULL;
    int ok = 1;
    int rc = AC_OK;

    *out = NULL;
    m = calloc(1, sizeof *m);
    if (m == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory copying the model");
        goto cleanup;
    }
    *m = *src;
    m->file = m->name = m->label = NULL;
    m->nodes = NULL;
    m->routes = NULL;
    m->links = NULL;
    m->sources = NULL;
    m->populations = NULL;
    m->profiles = NULL;
    m->mitigations = NULL;
    m->faults.items = NULL;
    m->faults.terms = NULL;
    m->requirements = NULL;
    m->suppressions = NULL;
    m->nnodes = m->nroutes = m->nlinks = m->nsources = m->npopulations = m->nprofiles =
        m->nmitigations = m->faults.count = m->nrequirements = m->nsuppressions = 0;

    m->file = dup_opt(src->file, &ok);
    m->name = dup_opt(src->name, &ok);
    m->label = dup_opt(src->label, &ok);

#define CLONE_ARRAY(field, nfield)                                                                 \
    do {                                                                                           \
        m->field = dup_array(src->field, src->nfield, sizeof *src->field, &ok);                    \
        if (m->field != NULL)                                                                      \
            m->nfield = src->nfield;                                                               \
    } while (0)

    CLONE_ARRAY(nodes, nnodes);
    for (size_t i = 0; i < m->nnodes; i++) {
        m->nodes[i].id = dup_opt(src->nodes[i].id, &ok);
        m->nodes[i].label = dup_opt(src->nodes[i].label, &ok);
    }
    CLONE_ARRAY(routes, nroutes);
    for (size_t i = 0; i < m->nroutes; i++)
        m->routes[i].label = dup_opt(src->routes[i].label, &ok);
    CLONE_ARRAY(links, nlinks);
    for (size_t i = 0; i < m->nlinks; i++) {
        m->links[i].id = dup_opt(src->links[i].id, &ok);
        m->links[i].label = dup_opt(src->links[i].label, &ok);
    }
    CLONE_ARRAY(sources, nsources);
    for (size_t i = 0; i < m->nsources; i++) {
        m->sources[i].id = dup_opt(src->sources[i].id, &ok);
        m->sources[i].label = dup_opt(src->sources[i].label, &ok);
    }
    CLONE_ARRAY(populations, npopulations);
    for (size_t i = 0; i < m->npopulations; i++) {
        m->populations[i].id = dup_opt(src->populations[i].id, &ok);
        m->populations[i].label = dup_opt(src->populations[i].label, &ok);
    }
    CLONE_ARRAY(profiles, nprofiles);
    for (size_t i = 0; i < m->nprofiles; i++) {
        const ac_profile *p = &src->profiles[i];
        m->profiles[i].label = dup_opt(p->label, &ok);
        m->profiles[i].points = dup_array(p->points, p->npoints, sizeof *p->points, &ok);
        if (m->profiles[i].points == NULL)
            m->profiles[i].npoints = 0;
    }
    CLONE_ARRAY(mitigations, nmitigations);
    for (size_t i = 0; i < m->nmitigations; i++) {
        const ac_mitigation *mt = &src->mitigations[i];
        m->mitigations[i].id = dup_opt(mt->id, &ok);
        m->mitigations[i].label = dup_opt(mt->label, &ok);
        m->mitigations[i].attribute = dup_opt(mt->attribute, &ok);
        m->mitigations[i].value = dup_opt(mt->value, &ok);
        m->mitigations[i].of = dup_array(mt->of, mt->nof, sizeof *mt->of, &ok);
        if (m->mitigations[i].of == NULL)
            m->mitigations[i].nof = 0;
    }
    m->faults.items =
        dup_array(src->faults.items, src->faults.count, sizeof *src->faults.items, &ok);
    if (m->faults.items != NULL) {
        m->faults.count = src->faults.count;
        for (size_t i = 0; i < m->faults.count; i++)
            m->faults.items[i].label = dup_opt(src->faults.items[i].label, &ok);
    }
    m->faults.terms =
        dup_array(src->faults.terms, src->faults.nterms, sizeof *src->faults.terms, &ok);
    if (m->faults.terms == NULL)
        m->faults.nterms = 0;
    CLONE_ARRAY(requirements, nrequirements);
    for (size_t i = 0; i < m->nrequirements; i++)
        m->requirements[i].label = dup_opt(src->requirements[i].label, &ok);
    CLONE_ARRAY(suppressions, nsuppressions);
    for (size_t i = 0; i < m->nsuppressions; i++)
        m->suppressions[i].reason = dup_opt(src->suppressions[i].reason, &ok);
#undef CLONE_ARRAY

    if (!ok) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory copying the model");
        goto cleanup;
    }
    *out = m;
    m = NULL;
cleanup:
    ac_model_free(m);
    return rc;
}

/* ---------------------------------------------------------------- mitigations */

/* Append a formatted change to the note ("; " between changes). */
static void note_add(char *note, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void note_add(char *note, size_t size, const char *fmt, ...)
{
    size_t len;
    va_list ap;
    if (note == NULL || size == 0)
        return;
    len = strnlen(note, size);
    if (len > 0 && len + 2 < size) {
        memcpy(note + len, "; ", 3);
        len += 2;
    }
    if (len + 1 >= size)
        return;
    va_start(ap, fmt);
    vsnprintf(note + len, size - len, fmt, ap);
    va_end(ap);
}

static void fmt_count(char *buf, size_t size, size_t v)
{
    if (v == AC_UNBOUNDED)
        snprintf(buf, size, "unbounded");
    else
        snprintf(buf, size, "%zu", v);
}

static void fmt_seconds(char *buf, size_t size, double v)
{
    if (v > 0.0 && v < 1.0)
        snprintf(buf, size, "%gms", v * 1e3);
    else
        snprintf(buf, size, "%gs", v);
}

/* The cross-attribute rules of the parser (parser/build.c, build_pool) on a changed pool. */
static int check_pool(const ac_node *n, ac_loc loc, ac_error *err)
{
    const ac_pool *p = &n->u.pool;
    if (p->dispatch == AC_DISPATCH_POWER_OF_D && p->sampling == AC_SAMPLING_DISTINCT &&
        p->d > p->servers)
        return ac_error_set_at(err, AC_EINVAL, loc,
                               "pool '%s' would sample d=%zu distinct servers but have only %zu",
                               n->id, p->d, p->servers);
    if (p->has_autoscale && (p->servers < p->autoscale.min || p->servers > p->autoscale.max))
        return ac_error_set_at(err, AC_EINVAL, loc,
                               "pool '%s' would start with servers=%zu, outside its autoscale "
                               "bounds [%zu, %zu]",
                               n->id, p->servers, p->autoscale.min, p->autoscale.max);
    return AC_OK;
}

static int apply_set(const ac_mitigation *mt, ac_node *n, char *note, size_t note_size,
                     ac_error *err)
{
    char msg[256];
    ac_node saved = *n;
    int rc;
    if (mt->attribute == NULL || mt->value == NULL)
        return ac_error_set_at(err, AC_EINVAL, mt->loc,
                               "mitigation '%s' of kind 'set' needs 'attribute' and 'value'",
                               mt->id);
    if (ac_parser_set_node_attr(n, mt->attribute, mt->value, msg, sizeof msg) != 0)
        return ac_error_set_at(err, AC_EINVAL, mt->loc, "mitigation '%s': %s", mt->id, msg);
    if (n->kind == AC_NODE_POOL && (rc = check_pool(n, mt->loc, err)) != AC_OK) {
        *n = saved;
        return rc;
    }
    if (n->kind == AC_NODE_FUNCTION) {
        ac_function *f = &n->u.function;
        if (strcmp(mt->attribute, "retries") == 0)
            f->retries_given = 1;
        else if (strcmp(mt->attribute, "invocation") == 0 && !f->retries_given)
            f->retries = f->invocation == AC_INVOCATION_ASYNC ? 2 : 0;
    }
    note_add(note, note_size, "%s '%s': %s %s -> %s", ac_node_kind_name(n->kind), n->id,
             mt->attribute, msg, mt->value);
    return AC_OK;
}

static int apply_leaf(ac_model *m, const ac_mitigation *mt, char *note, size_t note_size,
                      ac_error *err)
{
    ac_node *n;
    char a[32], b[32];
    if (mt->target == AC_NONE || mt->target >= m->nnodes)
        return ac_error_set_at(err, AC_EINVAL, mt->loc, "mitigation '%s' has no target node",
                               mt->id);
    n = &m->nodes[mt->target];
    switch (mt->kind) {
    case AC_MIT_ADD_SERVERS: {
        ac_pool *p = &n->u.pool;
        if (n->kind != AC_NODE_POOL)
            break;
        if (mt->amount > (size_t)1000000 || p->servers > (size_t)1000000 - mt->amount)
            return ac_error_set_at(err, AC_EINVAL, mt->loc,
                                   "mitigation '%s' would give pool '%s' more than 1000000 "
                                   "servers",
                                   mt->id, n->id);
        note_add(note, note_size, "pool '%s': servers %zu -> %zu", n->id, p->servers,
                 p->servers + mt->amount);
        p->servers += mt->amount;
        if (p->has_autoscale) {
            note_add(note, note_size, "pool '%s': autoscale max %zu -> %zu", n->id,
                     p->autoscale.max, p->autoscale.max + mt->amount);
            p->autoscale.max += mt->amount;
        }
        return AC_OK;
    }
    case AC_MIT_SET: return apply_set(mt, n, note, note_size, err);
    case AC_MIT_RATE_LIMIT: {
        ac_gateway *g = &n->u.gateway;
        if (n->kind != AC_NODE_GATEWAY) {
            return ac_error_set_at(err, AC_EINVAL, mt->loc,
                                   "mitigation '%s': a rate limit on %s '%s' is not modelled yet "
                                   "(only on a gateway)",
                                   mt->id, ac_node_kind_name(n->kind), n->id);
        }
        if (isfinite(g->rate_limit))
            snprintf(a, sizeof a, "%g/s", g->rate_limit);
        else
            snprintf(a, sizeof a, "unbounded");
        note_add(note, note_size, "gateway '%s': rate-limit %s -> %g/s, burst %zu -> %zu", n->id, a,
                 mt->rate, g->burst, mt->burst);
        g->rate_limit = mt->rate;
        g->burst = mt->burst;
        return AC_OK;
    }
    case AC_MIT_RETRY_BUDGET: {
        size_t cap = mt->ratio > 0.0 ? (size_t)ceil(mt->ratio) : 0;
        size_t *retries;
        if (n->kind == AC_NODE_POOL)
            retries = &n->u.pool.retries;
        else if (n->kind == AC_NODE_FUNCTION)
            retries = &n->u.function.retries;
        else
            break;
        if (*retries <= cap) {
            note_add(note, note_size,
                     "%s '%s': retries %zu unchanged (retry budget %g%% of first attempts, "
                     "approximated conservatively as at most ceil(ratio) retries per request)",
                     ac_node_kind_name(n->kind), n->id, *retries, 100.0 * mt->ratio);
            return AC_OK;
        }
        note_add(note, note_size,
                 "%s '%s': retries %zu -> %zu (retry budget %g%% of first attempts, approximated "
                 "conservatively as at most ceil(ratio) retries per request)",
                 ac_node_kind_name(n->kind), n->id, *retries, cap, 100.0 * mt->ratio);
        *retries = cap;
        if (n->kind == AC_NODE_FUNCTION)
            n->u.function.retries_given = 1;
        return AC_OK;
    }
    case AC_MIT_SNAPSTART: {
        ac_function *f = &n->u.function;
        if (n->kind != AC_NODE_FUNCTION)
            break;
        fmt_seconds(a, sizeof a, f->cold_start);
        fmt_seconds(b, sizeof b, mt->restore);
        note_add(note, note_size, "function '%s': cold-start %s -> %s (SnapStart restore)", n->id,
                 a, b);
        f->cold_start = mt->restore;
        return AC_OK;
    }
    case AC_MIT_PROVISIONED_CONCURRENCY: {
        ac_function *f = &n->u.function;
        if (n->kind != AC_NODE_FUNCTION)
            break;
        if (mt->amount > f->concurrency)
            return ac_error_set_at(err, AC_EINVAL, mt->loc,
                                   "mitigation '%s' provisions %zu instances of function '%s', "
                                   "above its concurrency %zu",
                                   mt->id, mt->amount, n->id, f->concurrency);
        fmt_count(a, sizeof a, f->provisioned);
        note_add(note, note_size, "function '%s': provisioned concurrency %s -> %zu", n->id, a,
                 mt->amount);
        f->provisioned = mt->amount;
        return AC_OK;
    }
    case AC_MIT_PRE_WARMING: {
        ac_function *f = &n->u.function;
        if (n->kind != AC_NODE_FUNCTION)
            break;
        fmt_seconds(a, sizeof a, mt->interval);
        note_add(note, note_size, "function '%s': pre-warmed instances %zu -> %zu (every %s)",
                 n->id, f->prewarm, mt->amount, a);
        f->prewarm = mt->amount;
        f->prewarm_interval = mt->interval;
        return AC_OK;
    }
    case AC_MIT_COMBINE: break;
    }
    return ac_error_set_at(err, AC_EINVAL, mt->loc,
                           "mitigation '%s' of kind '%s' does not apply to %s '%s'", mt->id,
                           ac_mitigation_kind_name(mt->kind), ac_node_kind_name(n->kind), n->id);
}

/* Apply mitigation `mitigation`: a combine applies each of its leaves once, in the order of
 * its `of` lists (walked without recursion, see combine.c). */
int ac_model_apply_mitigation(ac_model *model, size_t mitigation, char *note, size_t note_size,
                              ac_error *err)
{
    ac_combine_walk w;
    int rc;
    if (note != NULL && note_size > 0)
        note[0] = '\0';
    if (mitigation >= model->nmitigations)
        return ac_error_set(err, AC_EINVAL, "no mitigation with index %zu", mitigation);
    if (ac_combine_walk_init(&w, model) != AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    rc = ac_combine_leaves(&w, mitigation);
    if (rc != AC_OK) {
        const ac_mitigation *mt = &model->mitigations[mitigation];
        rc = ac_error_set_at(err, AC_EINVAL, mt->loc,
                             rc == AC_COMBINE_CYCLE
                                 ? "mitigation '%s' combines itself (directly or through another "
                                   "combine)"
                                 : "mitigation '%s' combines too many mitigations",
                             mt->id);
    }
    for (size_t k = 0; rc == AC_OK && k < w.nleaves; k++)
        rc = apply_leaf(model, &model->mitigations[w.leaves[k]], note, note_size, err);
    ac_combine_walk_free(&w);
    return rc;
}
