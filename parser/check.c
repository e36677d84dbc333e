/*
 * Semantic checks that the schema cannot express: unique ids, references of
 * the right kind, route probabilities, reachability, profiles, mitigations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/strbuf.h"
#include "common/suggest.h"
#include "parser/internal.h"

typedef enum id_kind { ID_NODE, ID_SOURCE, ID_POPULATION, ID_LINK, ID_MITIGATION } id_kind;

typedef struct id_entry {
    const char *id;
    id_kind kind;
    size_t index;
    ac_loc loc;
    size_t order; /* position in the file, for a stable "first definition" */
} id_entry;

static const char *id_kind_name(const ac_model *m, const id_entry *e)
{
    switch (e->kind) {
    case ID_NODE: return ac_node_kind_name(m->nodes[e->index].kind);
    case ID_SOURCE: return "source";
    case ID_POPULATION: return "population";
    case ID_LINK: return "link";
    case ID_MITIGATION: return "mitigation";
    }
    return "element";
}

static int entry_cmp(const void *pa, const void *pb)
{
    const id_entry *a = pa, *b = pb;
    int c = strcmp(a->id, b->id);
    if (c != 0)
        return c;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int key_cmp(const void *key, const void *pe)
{
    const id_entry *e = pe;
    return strcmp(key, e->id);
}

/* Collect every id; report duplicates; returns the sorted table (first definitions only). */
static id_entry *collect_ids(ac_pctx *ctx, size_t *count)
{
    const ac_model *m = ctx->model;
    size_t n = m->nnodes + m->nsources + m->npopulations + m->nlinks + m->nmitigations, k = 0,
           w = 0;
    id_entry *t = calloc(n > 0 ? n : 1, sizeof *t);
    ctx->dup_nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, 1);
    if (t == NULL || ctx->dup_nodes == NULL) {
        free(t);
        ctx->oom = 1;
        *count = 0;
        return NULL;
    }
#define ADD(arr, cnt, kd)                                                                          \
    for (size_t i = 0; i < (cnt); i++)                                                             \
        if ((arr)[i].id != NULL) {                                                                 \
            t[k].id = (arr)[i].id;                                                                 \
            t[k].kind = (kd);                                                                      \
            t[k].index = i;                                                                        \
            t[k].loc = (arr)[i].loc;                                                               \
            t[k].order = (size_t)(arr)[i].loc.line * 100000u + (arr)[i].loc.column;                \
            k++;                                                                                   \
        }
    ADD(m->nodes, m->nnodes, ID_NODE)
    ADD(m->sources, m->nsources, ID_SOURCE)
    ADD(m->populations, m->npopulations, ID_POPULATION)
    ADD(m->links, m->nlinks, ID_LINK)
    ADD(m->mitigations, m->nmitigations, ID_MITIGATION)
#undef ADD
    qsort(t, k, sizeof *t, entry_cmp);
    for (size_t i = 0; i < k; i++) {
        if (w > 0 && strcmp(t[w - 1].id, t[i].id) == 0) {
            if (t[i].kind == ID_NODE && ctx->dup_nodes != NULL)
                ctx->dup_nodes[t[i].index] = 1;
            ac_pdiag(ctx, t[i].loc, t[i].id, "AC020",
                     "the id '%s' is already used by the %s at line %u", t[i].id,
                     id_kind_name(m, &t[w - 1]), t[w - 1].loc.line);
            continue;
        }
        t[w++] = t[i];
    }
    *count = w;
    return t;
}

static const char *ref_kind_text(ac_ref_kind kind)
{
    switch (kind) {
    case AC_REF_NODE: return "a node (pool, function, queue or gateway)";
    case AC_REF_SOURCE: return "a <source>";
    case AC_REF_MITIGATION: return "a <mitigation>";
    case AC_REF_NODE_OR_LINK: return "a node or a <link> with an id";
    }
    return "an element";
}

/* A broken reference (AC021) or a misspelt element (AC004) cuts routes: the unreachable
 * nodes that follow are knock-ons of that one mistake, not reported. */
static int has_broken_structure(const ac_pctx *ctx)
{
    for (size_t i = 0; i < ctx->diags->count; i++) {
        const ac_diag *d = &ctx->diags->items[i];
        if (d->file != NULL && strcmp(d->file, ctx->file) == 0 &&
            (strcmp(d->rule, "AC021") == 0 ||
             (strcmp(d->rule, "AC004") == 0 && strstr(d->message, "not expected") != NULL)))
            return 1;
    }
    return 0;
}

/* Does the source text carry id="ID" (on some element, built or not)? */
static int defined_in_source(const ac_pctx *ctx, const char *id)
{
    char pat[300];
    size_t n = (size_t)snprintf(pat, sizeof pat, "id=\"%s\"", id);
    if (n >= sizeof pat || ctx->buf == NULL)
        return 0;
    for (size_t i = 0; i + n <= ctx->len; i++)
        if (memcmp(ctx->buf + i, pat, n) == 0 &&
            (i == 0 || ctx->buf[i - 1] == ' ' || ctx->buf[i - 1] == '\t' ||
             ctx->buf[i - 1] == '\n'))
            return 1;
    return 0;
}

static void resolve_refs(ac_pctx *ctx, const id_entry *t, size_t n)
{
    const ac_model *m = ctx->model;
    for (size_t i = 0; i < ctx->nrefs; i++) {
        const ac_pending_ref *r = &ctx->refs[i];
        const id_entry *e = bsearch(r->id, t, n, sizeof *t, key_cmp);
        int ok = 0;
        if (e == NULL && has_broken_structure(ctx) && defined_in_source(ctx, r->id))
            continue; /* its element is misspelt or misplaced (AC004): a knock-on */
        if (e == NULL) {
            /* suggest an id that differs only in case */
            const char *near = NULL;
            for (size_t j = 0; j < n && near == NULL; j++)
                if (strcasecmp(t[j].id, r->id) == 0)
                    near = t[j].id;
            if (near == NULL) { /* else the nearest id by edit distance */
                size_t best = (size_t)-1, limit = ac_suggest_limit(r->id);
                for (size_t j = 0; j < n; j++) {
                    size_t d = ac_edit_distance(r->id, t[j].id);
                    if (d < best && d <= limit) {
                        best = d;
                        near = t[j].id;
                    }
                }
            }
            if (near != NULL)
                ac_pdiag(ctx, r->loc, NULL, "AC021",
                         "attribute '%s' of <%s> names '%s', which is not defined (did you mean "
                         "'%s'?)",
                         r->attr, r->elem, r->id, near);
            else
                ac_pdiag(ctx, r->loc, NULL, "AC021",
                         "attribute '%s' of <%s> names '%s', which is not defined in this file",
                         r->attr, r->elem, r->id);
            continue;
        }
        switch (r->kind) {
        case AC_REF_NODE: ok = e->kind == ID_NODE; break;
        case AC_REF_SOURCE: ok = e->kind == ID_SOURCE; break;
        case AC_REF_MITIGATION: ok = e->kind == ID_MITIGATION; break;
        case AC_REF_NODE_OR_LINK: ok = e->kind == ID_NODE || e->kind == ID_LINK; break;
        }
        if (!ok) {
            if (strcmp(r->elem, "route") == 0 && strcmp(r->attr, "from") == 0 &&
                e->kind == ID_SOURCE)
                ac_pdiag(ctx, r->loc, NULL, "AC022",
                         "a <route> cannot start at the source '%s': a source feeds its node "
                         "through its own 'to' attribute",
                         r->id);
            else
                ac_pdiag(ctx, r->loc, NULL, "AC022",
                         "attribute '%s' of <%s> names the %s '%s', but it must name %s", r->attr,
                         r->elem, id_kind_name(m, e), r->id, ref_kind_text(r->kind));
            continue;
        }
        *r->slot = e->index;
        if (r->is_link != NULL)
            *r->is_link = e->kind == ID_LINK;
    }
}

/* Route probabilities out of each node (routes without `parallel`) sum to at most 1. */
static void check_route_sums(ac_pctx *ctx)
{
    const ac_model *m = ctx->model;
    double *sum = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *sum);
    size_t *last = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *last);
    if (sum == NULL || last == NULL) {
        ctx->oom = 1;
        goto cleanup;
    }
    for (size_t i = 0; i < m->nroutes; i++) {
        const ac_route *r = &m->routes[i];
        if (r->from == AC_NONE || r->to == AC_NONE)
            continue;
        if (r->from == r->to && r->p >= 1.0 && !r->parallel)
            ac_pdiag(ctx, r->loc, m->nodes[r->from].id, "AC023",
                     "the route from '%s' back to itself has p=1: jobs would circulate forever",
                     m->nodes[r->from].id);
        if (r->parallel)
            continue;
        sum[r->from] += r->p;
        last[r->from] = i;
    }
    for (size_t n = 0; n < m->nnodes; n++) {
        if (sum[n] > 1.0 + 1e-9) {
            const ac_route *r = &m->routes[last[n]];
            ac_strbuf detail = {0};
            ac_pdiag(ctx, r->loc, m->nodes[n].id, "AC023",
                     "the routes leaving '%s' have probabilities summing to %g; at most 1 is "
                     "allowed (the rest leaves the system)",
                     m->nodes[n].id, sum[n]);
            for (size_t i = 0; i < m->nroutes; i++) {
                const ac_route *q = &m->routes[i];
                if (q->from == n && !q->parallel && q->to != AC_NONE)
                    ac_strbuf_printf(&detail, "%sline %u: to '%s' with p=%g",
                                     detail.len ? "\n" : "", q->loc.line, m->nodes[q->to].id, q->p);
            }
            if (detail.data != NULL)
                ac_diag_set_detail(ctx->diags, detail.data);
            ac_strbuf_free(&detail);
        }
    }
cleanup:
    free(sum);
    free(last);
}

/* Every node must be reachable from a source or a population through routes. */
static void check_reachability(ac_pctx *ctx)
{
    const ac_model *m = ctx->model;
    size_t n = m->nnodes, head = 0, tail = 0;
    unsigned char *seen = calloc(n > 0 ? n : 1, 1);
    size_t *queue = calloc(n > 0 ? n : 1, sizeof *queue);
    if (seen == NULL || queue == NULL) {
        ctx->oom = 1;
        goto cleanup;
    }
#define VISIT(x)                                                                                   \
    do {                                                                                           \
        size_t v_ = (x);                                                                           \
        if (v_ != AC_NONE && v_ < n && !seen[v_]) {                                                \
            seen[v_] = 1;                                                                          \
            queue[tail++] = v_;                                                                    \
        }                                                                                          \
    } while (0)
    for (size_t i = 0; i < m->nsources; i++)
        VISIT(m->sources[i].to);
    for (size_t i = 0; i < m->npopulations; i++)
        VISIT(m->populations[i].to);
    while (head < tail) {
        size_t u = queue[head++];
        for (size_t i = 0; i < m->nroutes; i++)
            if (m->routes[i].from == u)
                VISIT(m->routes[i].to);
    }
#undef VISIT
    if (m->nsources + m->npopulations == 0) {
        if (n > 0)
            ac_pdiag(ctx, m->loc, NULL, "AC031",
                     "the architecture has no <source> or <population>: there is no workload to "
                     "analyse");
        goto cleanup;
    }
    for (size_t i = 0; i < n && !has_broken_structure(ctx); i++) {
        if (!seen[i] && m->nodes[i].id != NULL && !ctx->dup_nodes[i])
            ac_pdiag(ctx, m->nodes[i].loc, m->nodes[i].id, "AC024",
                     "%s '%s' is unreachable: no route from a source or population leads to it",
                     ac_node_kind_name(m->nodes[i].kind), m->nodes[i].id);
    }
cleanup:
    free(seen);
    free(queue);
}

static void check_profiles(ac_pctx *ctx)
{
    ac_model *m = ctx->model;
    for (size_t i = 0; i < m->nprofiles; i++) {
        ac_profile *p = &m->profiles[i];
        if (p->source != AC_NONE) {
            ac_source *s = &m->sources[p->source];
            if (s->profile != AC_NONE)
                ac_pdiag(ctx, p->loc, s->id, "AC030", "source '%s' already has a profile (line %u)",
                         s->id, m->profiles[s->profile].loc.line);
            else
                s->profile = i;
        }
        if (p->npoints < 2) {
            ac_pdiag(ctx, p->loc, NULL, "AC025",
                     "a <profile> needs at least two <point>s: it has %zu", p->npoints);
            continue;
        }
        if (!isnan(p->points[0].at) && p->points[0].at != 0.0)
            ac_pdiag(ctx, p->points[0].loc, NULL, "AC025",
                     "a profile's first point must be at 0s: it is at %gs", p->points[0].at);
        for (size_t k = 1; k < p->npoints; k++) {
            double a = p->points[k - 1].at, b = p->points[k].at;
            if (!isnan(a) && !isnan(b) && !(b > a))
                ac_pdiag(ctx, p->points[k].loc, NULL, "AC025",
                         "profile points must have increasing 'at': %gs follows %gs", b, a);
        }
    }
}

static int fault_attr_ok(const ac_model *m, const ac_fault *f, const char *attr)
{
    if (f->target_is_link)
        return strcmp(attr, "delay") == 0 || strcmp(attr, "capacity-loss") == 0;
    switch (m->nodes[f->target].kind) {
    case AC_NODE_POOL:
        return strcmp(attr, "delay") == 0 || strcmp(attr, "fail-prob") == 0 ||
               strcmp(attr, "servers-down") == 0;
    case AC_NODE_FUNCTION:
        return strcmp(attr, "delay") == 0 || strcmp(attr, "fail-prob") == 0 ||
               strcmp(attr, "cold-start") == 0;
    case AC_NODE_GATEWAY: return strcmp(attr, "capacity-loss") == 0;
    case AC_NODE_QUEUE: return 0;
    }
    return 0;
}

static void check_faults(ac_pctx *ctx)
{
    const ac_model *m = ctx->model;
    const ac_faults *fs = &m->faults;
    double wsum = 0.0;
    for (size_t i = 0; i < fs->count; i++) {
        const ac_fault *f = &fs->items[i];
        const char *tid;
        const char *tkind;
        const struct {
            const char *name;
            const ac_range *r;
        } attrs[] = {{"delay", &f->delay},
                     {"fail-prob", &f->fail_prob},
                     {"servers-down", &f->servers_down},
                     {"capacity-loss", &f->capacity_loss},
                     {"cold-start", &f->cold_start}};
        if (f->target == AC_NONE)
            continue;
        tid = f->target_is_link ? m->links[f->target].id : m->nodes[f->target].id;
        tkind = f->target_is_link ? "link" : ac_node_kind_name(m->nodes[f->target].kind);
        for (size_t a = 0; a < sizeof attrs / sizeof attrs[0]; a++) {
            if (!attrs[a].r->present)
                continue;
            if (!fault_attr_ok(m, f, attrs[a].name))
                ac_pdiag(ctx, f->loc, tid, "AC022",
                         "a <fault> on the %s '%s' cannot have '%s' (a %s has no such fault)",
                         tkind, tid, attrs[a].name, tkind);
        }
        if (!f->target_is_link && f->servers_down.present &&
            m->nodes[f->target].kind == AC_NODE_POOL &&
            f->servers_down.hi >= (double)m->nodes[f->target].u.pool.servers &&
            m->nodes[f->target].u.pool.servers > 0)
            ac_pdiag(ctx, f->loc, tid, "AC011",
                     "servers-down reaches %g but pool '%s' has only %zu servers (at least one "
                     "must remain)",
                     f->servers_down.hi, tid, m->nodes[f->target].u.pool.servers);
    }
    for (size_t i = 0; i < fs->nterms; i++)
        wsum += fs->terms[i].weight;
    if (fs->has_objective && fs->nterms > 0 && !(wsum > 0.0))
        ac_pdiag(ctx, fs->objective_loc, NULL, "AC011",
                 "the weights of the objective's terms sum to 0: at least one must be positive");
}

static const char *mitigation_target_kinds(ac_mitigation_kind k, ac_node_kind nk, int *ok)
{
    switch (k) {
    case AC_MIT_PROVISIONED_CONCURRENCY:
    case AC_MIT_PRE_WARMING:
    case AC_MIT_SNAPSTART: *ok = nk == AC_NODE_FUNCTION; return "a function";
    case AC_MIT_ADD_SERVERS: *ok = nk == AC_NODE_POOL; return "a pool";
    case AC_MIT_RETRY_BUDGET:
        *ok = nk == AC_NODE_POOL || nk == AC_NODE_FUNCTION;
        return "a pool or a function";
    case AC_MIT_RATE_LIMIT:
    case AC_MIT_SET: *ok = 1; return "a node";
    case AC_MIT_COMBINE: *ok = 1; return "nothing";
    }
    *ok = 0;
    return "a node";
}

/* The pairs of leaves of one combine that cannot go together (AC026). Returns -1 when the
 * walk's budget is spent. */
static int check_combine_pairs(ac_pctx *ctx, ac_combine_walk *w, const ac_mitigation *mt)
{
    const ac_model *m = ctx->model;
    const char *id = mt->id != NULL ? mt->id : "?";
    for (size_t a = 0; a < w->nleaves; a++) {
        if (w->budget < w->nleaves)
            return -1;
        w->budget -= w->nleaves;
        for (size_t b = a + 1; b < w->nleaves; b++) {
            const ac_mitigation *x = &m->mitigations[w->leaves[a]];
            const ac_mitigation *y = &m->mitigations[w->leaves[b]];
            int snap_pc =
                (x->kind == AC_MIT_SNAPSTART && y->kind == AC_MIT_PROVISIONED_CONCURRENCY) ||
                (y->kind == AC_MIT_SNAPSTART && x->kind == AC_MIT_PROVISIONED_CONCURRENCY);
            if (x->target == AC_NONE || x->target != y->target)
                continue;
            if (snap_pc)
                ac_pdiag(ctx, mt->loc, id, "AC026",
                         "mitigation '%s' combines snapstart ('%s') with provisioned "
                         "concurrency ('%s') on function '%s', which cannot be combined "
                         "(AWS Lambda does not allow SnapStart with provisioned "
                         "concurrency)",
                         id, x->kind == AC_MIT_SNAPSTART ? x->id : y->id,
                         x->kind == AC_MIT_SNAPSTART ? y->id : x->id, m->nodes[x->target].id);
            else if (x->kind == y->kind && x->kind == AC_MIT_SET && x->attribute != NULL &&
                     y->attribute != NULL && strcmp(x->attribute, y->attribute) == 0)
                ac_pdiag(ctx, mt->loc, id, "AC026",
                         "mitigation '%s' combines '%s' and '%s', which both set '%s' of "
                         "'%s'",
                         id, x->id, y->id, x->attribute, m->nodes[x->target].id);
            else if (x->kind == y->kind && x->kind != AC_MIT_SET)
                ac_pdiag(ctx, mt->loc, id, "AC026",
                         "mitigation '%s' combines '%s' and '%s', two %s mitigations on "
                         "'%s': keep one",
                         id, x->id, y->id, ac_mitigation_kind_name(x->kind),
                         m->nodes[x->target].id);
        }
    }
    return 0;
}

/*
 * Combines: every combine that is on or reaches a cycle is refused; the others form a DAG
 * whose conflicts are checked at its roots (a combine that no valid combine names: the
 * leaves of any other combine are a subset of a root's, so each conflict is found once).
 * Without recursion and in O(mitigations + references) per root (see combine.c).
 */
static void check_combines(ac_pctx *ctx)
{
    const ac_model *m = ctx->model;
    size_t n = m->nmitigations;
    ac_combine_walk w;
    unsigned char *bad = calloc(n > 0 ? n : 1, 1);
    unsigned char *named = calloc(n > 0 ? n : 1, 1);
    if (bad == NULL || named == NULL || ac_combine_walk_init(&w, m) != AC_OK) {
        ctx->oom = 1;
        free(bad);
        free(named);
        return;
    }
    ac_combine_cycles(&w, bad);
    for (size_t i = 0; i < n; i++) {
        const ac_mitigation *mt = &m->mitigations[i];
        if (mt->kind != AC_MIT_COMBINE || bad[i])
            continue;
        for (size_t k = 0; k < mt->nof; k++)
            if (mt->of[k] != AC_NONE && mt->of[k] < n)
                named[mt->of[k]] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        const ac_mitigation *mt = &m->mitigations[i];
        const char *id = mt->id != NULL ? mt->id : "?";
        if (mt->kind != AC_MIT_COMBINE)
            continue;
        if (bad[i]) {
            ac_pdiag(ctx, mt->loc, id, "AC026",
                     "mitigation '%s' combines itself (directly or through another combine)", id);
            continue;
        }
        if (named[i])
            continue;
        if (ac_combine_leaves(&w, i) != AC_OK || check_combine_pairs(ctx, &w, mt) != 0) {
            ac_pdiag(ctx, mt->loc, id, "AC026",
                     "mitigation '%s': the combines are too large to check (more than %zu steps)",
                     id, (size_t)AC_COMBINE_WORK_MAX);
            break;
        }
    }
    ac_combine_walk_free(&w);
    free(bad);
    free(named);
}

static void check_mitigations(ac_pctx *ctx)
{
    const ac_model *m = ctx->model;
    for (size_t i = 0; i < m->nmitigations; i++) {
        const ac_mitigation *mt = &m->mitigations[i];
        const char *id = mt->id != NULL ? mt->id : "?";
        const ac_node *t;
        const char *want;
        int ok = 1;
        if (mt->kind >= AC_MIT_COMBINE || mt->target == AC_NONE)
            continue; /* combines: check_combines; no target: AC029 or AC021 already */
        t = &m->nodes[mt->target];
        want = mitigation_target_kinds(mt->kind, t->kind, &ok);
        if (!ok) {
            ac_pdiag(ctx, mt->loc, id, "AC022",
                     "mitigation '%s' of kind '%s' applies to %s, but '%s' is a %s", id,
                     ac_mitigation_kind_name(mt->kind), want, t->id, ac_node_kind_name(t->kind));
            continue;
        }
        if (mt->kind == AC_MIT_SET && mt->attribute != NULL && mt->value != NULL)
            ac_build_check_node_attr(ctx, t->kind, mt->attribute, mt->value, mt->loc, id);
        if (mt->kind == AC_MIT_RETRY_BUDGET && t->kind == AC_NODE_POOL && t->u.pool.retries == 0)
            ac_pdiag(ctx, mt->loc, id, "AC018",
                     "mitigation '%s' sets a retry budget on pool '%s', which has no retries", id,
                     t->id);
    }
    check_combines(ctx);
}

static void check_misc(ac_pctx *ctx)
{
    const ac_model *m = ctx->model;
    for (size_t i = 0; i < m->nlinks; i++) {
        const ac_link *l = &m->links[i];
        int routed = 0;
        if (l->from == AC_NONE || l->to == AC_NONE)
            continue;
        for (size_t r = 0; r < m->nroutes && !routed; r++)
            routed = m->routes[r].from == l->from && m->routes[r].to == l->to;
        if (!routed)
            ac_pdiag(ctx, l->loc, l->id, "AC022",
                     "the <link> from '%s' to '%s' carries no route: add <route from=\"%s\" "
                     "to=\"%s\"/> or remove the link",
                     m->nodes[l->from].id, m->nodes[l->to].id, m->nodes[l->from].id,
                     m->nodes[l->to].id);
        for (size_t j = 0; j < i; j++)
            if (m->links[j].from == l->from && m->links[j].to == l->to)
                ac_pdiag(ctx, l->loc, l->id, "AC030",
                         "a second <link> from '%s' to '%s' (the first is at line %u)",
                         m->nodes[l->from].id, m->nodes[l->to].id, m->links[j].loc.line);
    }
    for (size_t i = 0; i < m->nrequirements; i++) {
        const ac_requirement *r = &m->requirements[i];
        if (r->kind == AC_REQ_RESILIENCE && !m->faults.present)
            ac_pdiag(ctx, r->loc, NULL, "AC018",
                     "a <resilience> requirement needs a <faults> space to search");
    }
    if (m->nnodes == 0)
        ac_pdiag(ctx, m->loc, NULL, "AC031",
                 "the architecture has no nodes (pool, function, queue or gateway): there is "
                 "nothing to analyse");
}

int ac_check_model(ac_pctx *ctx)
{
    size_t n = 0;
    id_entry *t = collect_ids(ctx, &n);
    if (t == NULL)
        return AC_ENOMEM;
    resolve_refs(ctx, t, n);
    free(t);
    check_route_sums(ctx);
    check_reachability(ctx);
    check_profiles(ctx);
    check_faults(ctx);
    check_mitigations(ctx);
    check_misc(ctx);
    return ctx->oom ? AC_ENOMEM : AC_OK;
}
