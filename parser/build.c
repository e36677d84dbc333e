/*
 * Building the model from the document: every attribute of every element is
 * parsed by one table-driven routine (type, unit, range, default), so that each
 * value gets a precise diagnostic at its own location.
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
#include "parser/internal.h"
#include "parser/units.h"
#include "archcheck/parser.h"
#include "archcheck/rules.h"

static_assert(sizeof(ac_dispatch) == sizeof(int), "enums are stored as int");

typedef enum attr_type {
    T_STRING,     /* char * */
    T_NAME,       /* char *, an NCName */
    T_REF,        /* size_t, resolved later */
    T_DURATION,   /* double, seconds */
    T_PERIOD_RATE,/* double: a duration d stored as the rate 1/d */
    T_RATE,       /* double, per second */
    T_PROB,       /* double in [0, 1] */
    T_COUNT,      /* size_t */
    T_FACTOR,     /* double > 0 */
    T_NUMBER,     /* double, not negative */
    T_PERCENTILE, /* double in (0, 100) */
    T_ENUM,       /* int, index into keywords */
    T_BOOL,       /* int */
    T_RANGE_DURATION, /* ac_range */
    T_RANGE_PROB,
    T_RANGE_COUNT
} attr_type;

enum { F_REQUIRED = 1, F_POSITIVE = 2, F_MIN1 = 4, F_MIN2 = 8 };

typedef struct attr_spec {
    const char *name;
    attr_type type;
    unsigned flags;
    size_t offset;
    size_t max;                  /* T_COUNT: the largest value allowed */
    const char *const *keywords; /* T_ENUM, NULL-terminated; T_REF: unused */
    ac_ref_kind ref;             /* T_REF */
} attr_spec;

#define NODE_OFF(m) offsetof(ac_node, m)
#define MILLION ((size_t)1000000)

static const char *const kw_dispatch[] = {"random", "power-of-d", "jsq", "jiq", "shared-queue", NULL};
static const char *const kw_sampling[] = {"distinct", "with-replacement", NULL};
static const char *const kw_invocation[] = {"sync", "async", NULL};
static const char *const kw_bool[] = {"false", "true", NULL};
static const char *const kw_mitigation[] = {"provisioned-concurrency", "pre-warming", "snapstart",
                                            "add-servers", "rate-limit", "retry-budget", "set",
                                            "combine", NULL};
static const char *const kw_metric[] = {"error-rate", "throttle-rate", "p95-latency", "p99-latency",
                                        "loss", "backlog-duration", "utilization", NULL};

static const attr_spec pool_attrs[] = {
    {"id", T_NAME, F_REQUIRED, NODE_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, NODE_OFF(label), 0, NULL, AC_REF_NODE},
    {"servers", T_COUNT, F_REQUIRED | F_MIN1, NODE_OFF(u.pool.servers), MILLION, NULL, AC_REF_NODE},
    {"service-time", T_PERIOD_RATE, F_POSITIVE, NODE_OFF(u.pool.service_rate), 0, NULL, AC_REF_NODE},
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

#define M_OFF(m) offsetof(ac_mitigation, m)
static const attr_spec mitigation_attrs[] = {
    {"id", T_NAME, F_REQUIRED, M_OFF(id), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, M_OFF(label), 0, NULL, AC_REF_NODE},
    {"kind", T_ENUM, F_REQUIRED, M_OFF(kind), 0, kw_mitigation, AC_REF_NODE},
    {"target", T_REF, 0, M_OFF(target), 0, NULL, AC_REF_NODE},
    {"amount", T_COUNT, F_MIN1, M_OFF(amount), MILLION, NULL, AC_REF_NODE},
    {"interval", T_DURATION, F_POSITIVE, M_OFF(interval), 0, NULL, AC_REF_NODE},
    {"restore", T_DURATION, 0, M_OFF(restore), 0, NULL, AC_REF_NODE},
    {"rate", T_RATE, F_POSITIVE, M_OFF(rate), 0, NULL, AC_REF_NODE},
    {"burst", T_COUNT, 0, M_OFF(burst), (size_t)1000000000, NULL, AC_REF_NODE},
    {"ratio", T_PROB, 0, M_OFF(ratio), 0, NULL, AC_REF_NODE},
    {"attribute", T_STRING, 0, M_OFF(attribute), 0, NULL, AC_REF_NODE},
    {"value", T_STRING, 0, M_OFF(value), 0, NULL, AC_REF_NODE},
    {"of", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

#define FS_OFF(m) offsetof(ac_faults, m)
static const attr_spec faults_attrs[] = {
    {"budget", T_COUNT, F_MIN1, FS_OFF(budget), (size_t)10000000, NULL, AC_REF_NODE},
    {"seed", T_COUNT, 0, (size_t)-1, 4294967295u, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

#define FT_OFF(m) offsetof(ac_fault, m)
static const attr_spec fault_attrs[] = {
    {"target", T_REF, F_REQUIRED, FT_OFF(target), 0, NULL, AC_REF_NODE_OR_LINK},
    {"label", T_STRING, 0, FT_OFF(label), 0, NULL, AC_REF_NODE},
    {"delay", T_RANGE_DURATION, 0, FT_OFF(delay), 0, NULL, AC_REF_NODE},
    {"fail-prob", T_RANGE_PROB, 0, FT_OFF(fail_prob), 0, NULL, AC_REF_NODE},
    {"servers-down", T_RANGE_COUNT, 0, FT_OFF(servers_down), 0, NULL, AC_REF_NODE},
    {"capacity-loss", T_RANGE_PROB, 0, FT_OFF(capacity_loss), 0, NULL, AC_REF_NODE},
    {"cold-start", T_RANGE_DURATION, 0, FT_OFF(cold_start), 0, NULL, AC_REF_NODE},
    {"at", T_RANGE_DURATION, 0, FT_OFF(at), 0, NULL, AC_REF_NODE},
    {"for", T_RANGE_DURATION, 0, FT_OFF(duration), 0, NULL, AC_REF_NODE},
};

static const attr_spec objective_attrs[] = {
    {"tau", T_PROB, F_POSITIVE, FS_OFF(tau), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

#define TM_OFF(m) offsetof(ac_term, m)
static const attr_spec term_attrs[] = {
    {"metric", T_ENUM, F_REQUIRED, TM_OFF(metric), 0, kw_metric, AC_REF_NODE},
    {"target", T_REF, 0, TM_OFF(target), 0, NULL, AC_REF_NODE},
    {"weight", T_NUMBER, 0, TM_OFF(weight), 0, NULL, AC_REF_NODE},
    {"norm", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

#define RQ_OFF(m) offsetof(ac_requirement, m)
#define RQ_TARGET {"target", T_REF, 0, RQ_OFF(target), 0, NULL, AC_REF_NODE}
#define RQ_LABEL {"label", T_STRING, 0, RQ_OFF(label), 0, NULL, AC_REF_NODE}
static const attr_spec req_latency_attrs[] = {
    RQ_TARGET, RQ_LABEL,
    {"percentile", T_PERCENTILE, 0, RQ_OFF(percentile), 0, NULL, AC_REF_NODE},
    {"max", T_DURATION, F_REQUIRED | F_POSITIVE, RQ_OFF(max), 0, NULL, AC_REF_NODE},
};
static const attr_spec req_utilization_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"max", T_PROB, F_REQUIRED | F_POSITIVE, RQ_OFF(max), 0, NULL, AC_REF_NODE}};
static const attr_spec req_loss_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"max", T_PROB, F_REQUIRED, RQ_OFF(max), 0, NULL, AC_REF_NODE}};
static const attr_spec req_throughput_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"min", T_RATE, F_REQUIRED | F_POSITIVE, RQ_OFF(min), 0, NULL, AC_REF_NODE}};
static const attr_spec req_headroom_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"min", T_FACTOR, F_REQUIRED, RQ_OFF(min), 0, NULL, AC_REF_NODE}};
static const attr_spec req_recovery_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"max", T_DURATION, F_REQUIRED, RQ_OFF(max), 0, NULL, AC_REF_NODE}};
static const attr_spec req_scaling_attrs[] = {
    RQ_TARGET, RQ_LABEL,
    {"max-events", T_COUNT, 0, RQ_OFF(max_events), (size_t)1000000000, NULL, AC_REF_NODE},
    {"max-server-hours", T_NUMBER, 0, RQ_OFF(max_server_hours), 0, NULL, AC_REF_NODE},
};
static const attr_spec req_resilience_attrs[] = {
    RQ_TARGET, RQ_LABEL,
    {"tau", T_PROB, F_POSITIVE, RQ_OFF(tau), 0, NULL, AC_REF_NODE},
    {"min-boundary", T_RATE, F_REQUIRED | F_POSITIVE, RQ_OFF(min), 0, NULL, AC_REF_NODE},
    {"mitigation", T_REF, 0, RQ_OFF(mitigation), 0, NULL, AC_REF_MITIGATION},
};

#define SU_OFF(m) offsetof(ac_suppression, m)
static const attr_spec suppress_attrs[] = {
    {"rule", T_STRING, F_REQUIRED, (size_t)-1, 0, NULL, AC_REF_NODE},
    {"target", T_REF, 0, SU_OFF(target), 0, NULL, AC_REF_NODE},
    {"reason", T_STRING, F_REQUIRED, SU_OFF(reason), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

static const attr_spec architecture_attrs[] = {
    {"name", T_STRING, 0, offsetof(ac_model, name), 0, NULL, AC_REF_NODE},
    {"label", T_STRING, 0, offsetof(ac_model, label), 0, NULL, AC_REF_NODE},
    {"format", T_STRING, F_REQUIRED, (size_t)-1, 0, NULL, AC_REF_NODE},
};

static const attr_spec requirements_attrs[] = {
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

#define NSPECS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ---- */

static const char *elem_name(const xmlNode *n)
{
    return (const char *)n->name;
}

static int is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp(elem_name(n), name) == 0;
}

/* The attribute's value (a copy owned by the caller), or NULL when absent. */
static char *get_attr(const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
    char *copy;
    if (v == NULL)
        return NULL;
    copy = ac_strdup((const char *)v);
    xmlFree(v);
    return copy;
}

static int is_ncname(const char *s)
{
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80))
        return 0;
    for (s++; *s; s++) {
        c = (unsigned char)*s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c >= 0x80))
            return 0;
    }
    return 1;
}

/* The first invisible or direction-changing character of an id, which would make two ids
 * that read alike differ (or one read as another): C0 and C1 controls, U+061C, U+200B..U+200F,
 * U+2028..U+202E, U+2060..U+2069, U+FEFF. Returns its code point and sets *index to its
 * position in characters (from 1), or returns 0. The text is valid UTF-8 (xml.c). */
static unsigned id_bad_char(const char *s, size_t *index)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t k = 0;
    for (size_t i = 0; u[i] != 0; k++) {
        unsigned cp = u[i];
        size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
        for (size_t j = 1; j < n && u[i + j] != 0; j++)
            cp = (j == 1 ? cp & (0xFFu >> (n + 1)) : cp) << 6 | (u[i + j] & 0x3Fu);
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C ||
            (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
            (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF) {
            *index = k + 1;
            return cp;
        }
        for (size_t j = 0; j < n && u[i] != 0; j++)
            i++;
    }
    return 0;
}

static void add_ref(ac_pctx *ctx, const char *id, size_t *slot, int *is_link, ac_ref_kind kind,
                    const char *attr, const char *elem, ac_loc loc)
{
    ac_pending_ref *r;
    if (ctx->nrefs == ctx->caprefs) {
        size_t cap = ctx->caprefs ? 2 * ctx->caprefs : 64;
        ac_pending_ref *refs = realloc(ctx->refs, cap * sizeof *refs);
        if (refs == NULL) {
            ctx->oom = 1;
            return;
        }
        ctx->refs = refs;
        ctx->caprefs = cap;
    }
    r = &ctx->refs[ctx->nrefs];
    r->id = ac_strdup(id);
    if (r->id == NULL) {
        ctx->oom = 1;
        return;
    }
    r->slot = slot;
    r->is_link = is_link;
    r->kind = kind;
    r->attr = attr;
    r->elem = elem;
    r->loc = loc;
    ctx->nrefs++;
}

static int parse_range(const char *text, attr_type base, ac_range *out, ac_unit_fail *fail)
{
    const char *dots = strstr(text, "..");
    char *lo_text;
    int rc = -1;
    if (dots == NULL) {
        fail->rule = "AC016";
        snprintf(fail->message, sizeof fail->message,
                 "is a range: write LOW..HIGH (e.g. 0ms..2s or 0..30%%), got '%.80s'", text);
        return -1;
    }
    lo_text = ac_strndup(text, (size_t)(dots - text));
    if (lo_text == NULL) {
        fail->rule = "AC016";
        snprintf(fail->message, sizeof fail->message, "could not be read (out of memory)");
        return -1;
    }
    if (base == T_RANGE_DURATION)
        rc = ac_units_duration(lo_text, &out->lo, fail) == 0 &&
                     ac_units_duration(dots + 2, &out->hi, fail) == 0
                 ? 0
                 : -1;
    else if (base == T_RANGE_PROB)
        rc = ac_units_probability(lo_text, &out->lo, fail) == 0 &&
                     ac_units_probability(dots + 2, &out->hi, fail) == 0
                 ? 0
                 : -1;
    else {
        size_t a = 0, b = 0;
        rc = ac_units_count(lo_text, MILLION, &a, fail) == 0 &&
                     ac_units_count(dots + 2, MILLION, &b, fail) == 0
                 ? 0
                 : -1;
        out->lo = (double)a;
        out->hi = (double)b;
    }
    free(lo_text);
    if (rc == 0 && out->lo > out->hi) {
        fail->rule = "AC016";
        snprintf(fail->message, sizeof fail->message,
                 "is a range whose LOW is above its HIGH: got '%.80s'", text);
        return -1;
    }
    if (rc == 0)
        out->present = 1;
    return rc;
}

/* Parse one attribute value per its spec into `base + spec->offset`.
 * Returns 0, or -1 with a diagnostic added at loc. */
static int parse_value(ac_pctx *ctx, const attr_spec *s, const char *text, void *base, ac_loc loc,
                       const char *elem, const char *node_id)
{
    ac_unit_fail fail = {NULL, ""};
    char *dst = s->offset == (size_t)-1 ? NULL : (char *)base + s->offset;
    double v = 0.0;
    size_t c = 0;
    int ok = 0;

    switch (s->type) {
    case T_STRING:
    case T_NAME:
        if (s->type == T_NAME && !is_ncname(text)) {
            ac_pdiag(ctx, loc, node_id, "AC011",
                     "attribute '%s' of <%s> is an id: a letter or '_' followed by letters, digits, "
                     "'-', '_' or '.', got '%s'",
                     s->name, elem, text);
            return -1;
        }
        if (s->type == T_NAME) {
            size_t at = 0;
            unsigned cp = id_bad_char(text, &at);
            if (cp != 0) {
                ac_pdiag(ctx, loc, node_id, "AC011",
                         "attribute '%s' of <%s> is an id and contains the invisible or "
                         "bidirectional control character U+%04X (character %zu): ids must read "
                         "as what they are",
                         s->name, elem, cp, at);
                return -1;
            }
        }
        if (dst != NULL) {
            char *copy = ac_strdup(text);
            if (copy == NULL) {
                ctx->oom = 1;
                return -1;
            }
            free(*(char **)(void *)dst);
            *(char **)(void *)dst = copy;
        }
        return 0;
    case T_REF:
        return 0; /* handled by the caller */
    case T_DURATION:
    case T_PERIOD_RATE:
        ok = ac_units_duration(text, &v, &fail) == 0;
        break;
    case T_RATE:
        ok = ac_units_rate(text, &v, &fail) == 0;
        break;
    case T_PROB:
        ok = ac_units_probability(text, &v, &fail) == 0;
        break;
    case T_FACTOR:
        ok = ac_units_factor(text, &v, &fail) == 0;
        break;
    case T_NUMBER:
    case T_PERCENTILE:
        ok = ac_units_number(text, &v, &fail) == 0;
        if (ok && s->type == T_NUMBER && v < 0.0) {
            ac_pdiag(ctx, loc, node_id, "AC011", "attribute '%s' of <%s> must not be negative: got '%s'",
                     s->name, elem, text);
            return -1;
        }
        if (ok && s->type == T_PERCENTILE && !(v > 0.0 && v < 100.0)) {
            ac_pdiag(ctx, loc, node_id, "AC011",
                     "attribute '%s' of <%s> is a percentile strictly between 0 and 100 (e.g. 95 or "
                     "99.9): got '%s'",
                     s->name, elem, text);
            return -1;
        }
        break;
    case T_COUNT:
        ok = ac_units_count(text, s->max, &c, &fail) == 0;
        if (ok && (s->flags & F_MIN1) && c < 1) {
            ac_pdiag(ctx, loc, node_id, "AC011", "attribute '%s' of <%s> must be at least 1: got '%s'",
                     s->name, elem, text);
            return -1;
        }
        if (ok && (s->flags & F_MIN2) && c < 2) {
            ac_pdiag(ctx, loc, node_id, "AC011", "attribute '%s' of <%s> must be at least 2: got '%s'",
                     s->name, elem, text);
            return -1;
        }
        if (ok && dst != NULL)
            memcpy(dst, &c, sizeof c);
        if (!ok)
            break;
        return 0;
    case T_ENUM:
    case T_BOOL: {
        ac_strbuf allowed = {0};
        for (int i = 0; s->keywords[i] != NULL; i++) {
            if (strcmp(text, s->keywords[i]) == 0) {
                if (dst != NULL)
                    memcpy(dst, &i, sizeof i);
                return 0;
            }
        }
        for (int i = 0; s->keywords[i] != NULL; i++) {
            ac_strbuf_append(&allowed, i ? ", " : "");
            ac_strbuf_append(&allowed, s->keywords[i]);
        }
        ac_pdiag(ctx, loc, node_id, "AC017", "attribute '%s' of <%s> must be one of %s: got '%s'",
                 s->name, elem, allowed.data != NULL ? allowed.data : "", text);
        ac_strbuf_free(&allowed);
        return -1;
    }
    case T_RANGE_DURATION:
    case T_RANGE_PROB:
    case T_RANGE_COUNT: {
        ac_range r = {0, 0.0, 0.0};
        if (parse_range(text, s->type, &r, &fail) == 0) {
            if (dst != NULL)
                memcpy(dst, &r, sizeof r);
            return 0;
        }
        ok = 0;
        break;
    }
    }
    if (!ok) {
        ac_pdiag(ctx, loc, node_id, fail.rule, "attribute '%s' of <%s> %s", s->name, elem,
                 fail.message);
        return -1;
    }
    if ((s->flags & F_POSITIVE) && !(v > 0.0)) {
        ac_pdiag(ctx, loc, node_id, "AC011", "attribute '%s' of <%s> must be positive: got '%s'",
                 s->name, elem, text);
        return -1;
    }
    if (s->type == T_PERIOD_RATE)
        v = 1.0 / v;
    if (dst != NULL)
        memcpy(dst, &v, sizeof v);
    return 0;
}

/* Parse every attribute of `n` listed in `specs` into `base`. Missing required
 * attributes are reported. Returns the number of problems found. */
static int parse_attrs(ac_pctx *ctx, const xmlNode *n, const attr_spec *specs, size_t nspecs,
                       void *base, const char *node_id)
{
    int problems = 0;
    for (size_t i = 0; i < nspecs; i++) {
        const attr_spec *s = &specs[i];
        char *text = get_attr(n, s->name);
        ac_loc loc;
        if (text == NULL) {
            if (s->flags & F_REQUIRED) {
                ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), node_id, "AC004",
                         "element <%s> needs the attribute '%s'", elem_name(n), s->name);
                problems++;
            }
            continue;
        }
        loc = ac_xml_attr_loc(ctx, n, s->name);
        if (s->type == T_REF) {
            if (!is_ncname(text)) {
                ac_pdiag(ctx, loc, node_id, "AC021",
                         "attribute '%s' of <%s> must name an id: got '%s'", s->name, elem_name(n),
                         text);
                problems++;
            } else if (s->offset != (size_t)-1) {
                int *is_link = NULL;
                if (s->ref == AC_REF_NODE_OR_LINK)
                    is_link = (int *)(void *)((char *)base + offsetof(ac_fault, target_is_link));
                add_ref(ctx, text, (size_t *)(void *)((char *)base + s->offset), is_link, s->ref,
                        s->name, elem_name(n), loc);
            }
        } else if (parse_value(ctx, s, text, base, loc, elem_name(n), node_id) != 0) {
            problems++;
        }
        free(text);
    }
    return problems;
}

/* ---- elements ---- */

static int has_attr(const xmlNode *n, const char *name)
{
    return xmlHasProp(n, (const xmlChar *)name) != NULL;
}

static const char *node_id_of(const xmlNode *n, char *buf, size_t size)
{
    char *id = get_attr(n, "id");
    if (id == NULL)
        return NULL;
    snprintf(buf, size, "%s", id);
    free(id);
    return buf;
}

static void build_pool(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_pool *p = &node->u.pool;
    char idbuf[256];
    const char *id = node_id_of(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_POOL;
    p->dispatch = AC_DISPATCH_RANDOM;
    p->d = 2;
    p->sampling = AC_SAMPLING_DISTINCT;
    p->buffer = AC_UNBOUNDED;
    p->timeout = 0.0;
    p->retries = 0;
    parse_attrs(ctx, n, pool_attrs, NSPECS(pool_attrs), node, id);
    if (has_attr(n, "service-time") == has_attr(n, "service-rate")) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), id, "AC018",
                 "pool '%s' needs exactly one of 'service-time' and 'service-rate'%s",
                 id != NULL ? id : "?", has_attr(n, "service-time") ? ", not both" : "");
    }
    if ((has_attr(n, "d") || has_attr(n, "sampling")) && p->dispatch != AC_DISPATCH_POWER_OF_D) {
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, has_attr(n, "d") ? "d" : "sampling"), id, "AC018",
                 "attribute '%s' applies only to dispatch=\"power-of-d\" (pool '%s' has "
                 "dispatch=\"%s\")",
                 has_attr(n, "d") ? "d" : "sampling", id != NULL ? id : "?",
                 ac_dispatch_name(p->dispatch));
    }
    if (p->dispatch == AC_DISPATCH_POWER_OF_D && p->sampling == AC_SAMPLING_DISTINCT &&
        p->servers >= 1 && p->d > p->servers) {
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, has_attr(n, "d") ? "d" : "servers"), id, "AC011",
                 "pool '%s' samples d=%zu distinct servers but has only %zu",
                 id != NULL ? id : "?", p->d, p->servers);
    }
    if (has_attr(n, "retries") && p->retries > 0 && !has_attr(n, "timeout") &&
        p->buffer == AC_UNBOUNDED) {
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "retries"), id, "AC018",
                 "pool '%s' has retries but neither a timeout nor a buffer: nothing is ever retried",
                 id != NULL ? id : "?");
    }
    for (const xmlNode *c = n->children; c != NULL; c = c->next) {
        if (!is_elem(c, "autoscale"))
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
        if (parse_attrs(ctx, c, autoscale_attrs, NSPECS(autoscale_attrs), a, id) == 0) {
            if (a->min > a->max)
                ac_pdiag(ctx, a->loc, id, "AC018",
                         "<autoscale> of pool '%s' has min=%zu above max=%zu",
                         id != NULL ? id : "?", a->min, a->max);
            else if (p->servers >= 1 && (p->servers < a->min || p->servers > a->max))
                ac_pdiag(ctx, a->loc, id, "AC018",
                         "pool '%s' starts with servers=%zu, outside its autoscale bounds [%zu, %zu]",
                         id != NULL ? id : "?", p->servers, a->min, a->max);
        }
    }
}

static void build_function(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_function *f = &node->u.function;
    char idbuf[256];
    const char *id = node_id_of(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_FUNCTION;
    f->concurrency = 1000;
    f->cold_start = 0.0;
    f->keep_alive = 600.0;
    f->scale_rate = 100.0;
    f->timeout = 3.0;
    f->invocation = AC_INVOCATION_SYNC;
    f->fail_prob = 0.0;
    parse_attrs(ctx, n, function_attrs, NSPECS(function_attrs), node, id);
    f->retries_given = has_attr(n, "retries");
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
    const char *id = node_id_of(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_QUEUE;
    q->capacity = AC_UNBOUNDED;
    q->batch_size = 10;
    q->max_consumers = 1000;
    q->visibility_timeout = 30.0;
    q->max_receives = 5;
    parse_attrs(ctx, n, queue_attrs, NSPECS(queue_attrs), node, id);
}

static void build_gateway(ac_pctx *ctx, const xmlNode *n, ac_node *node)
{
    ac_gateway *g = &node->u.gateway;
    char idbuf[256];
    const char *id = node_id_of(n, idbuf, sizeof idbuf);
    node->kind = AC_NODE_GATEWAY;
    g->rate_limit = INFINITY;
    g->burst = 1; /* a request needs one whole token: a depth below 1 is taken as 1 */
    g->timeout = 29.0;
    parse_attrs(ctx, n, gateway_attrs, NSPECS(gateway_attrs), node, id);
}

static int parse_norm(ac_pctx *ctx, const xmlNode *n, ac_term *t)
{
    char *text = get_attr(n, "norm");
    ac_unit_fail fail = {NULL, ""};
    int rc = 0;
    if (text == NULL)
        return 0;
    switch (t->metric) {
    case AC_METRIC_P95_LATENCY:
    case AC_METRIC_P99_LATENCY:
    case AC_METRIC_BACKLOG_DURATION:
        rc = ac_units_duration(text, &t->norm, &fail);
        break;
    case AC_METRIC_UTILIZATION:
        rc = ac_units_factor(text, &t->norm, &fail);
        break;
    default:
        rc = ac_units_probability(text, &t->norm, &fail);
        break;
    }
    if (rc == 0 && !(t->norm > 0.0)) {
        fail.rule = "AC011";
        snprintf(fail.message, sizeof fail.message, "must be positive: got '%.80s'", text);
        rc = -1;
    }
    if (rc != 0)
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "norm"), NULL, fail.rule,
                 "attribute 'norm' of <term metric=\"%s\"> %s", ac_metric_name(t->metric),
                 fail.message);
    free(text);
    return rc;
}

/* Count children of `n` named `name`. */
static size_t count_children(const xmlNode *n, const char *name)
{
    size_t k = 0;
    for (const xmlNode *c = n->children; c != NULL; c = c->next)
        if (is_elem(c, name))
            k++;
    return k;
}

typedef struct counts {
    size_t nodes, routes, links, sources, populations, profiles, mitigations, requirements,
        suppressions;
} counts;

static int is_node_elem(const xmlNode *c)
{
    return is_elem(c, "pool") || is_elem(c, "function") || is_elem(c, "queue") ||
           is_elem(c, "gateway");
}

static int is_requirement_elem(const xmlNode *c)
{
    static const char *const names[] = {"latency", "utilization", "loss", "throughput",
                                        "headroom", "recovery", "scaling", "resilience"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is_elem(c, names[i]))
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
        else if (is_elem(c, "route"))
            k->routes++;
        else if (is_elem(c, "link"))
            k->links++;
        else if (is_elem(c, "mitigation"))
            k->mitigations++;
        else if (is_elem(c, "suppress"))
            k->suppressions++;
        else if (is_elem(c, "workload")) {
            k->sources += count_children(c, "source");
            k->populations += count_children(c, "population");
            k->profiles += count_children(c, "profile");
        } else if (is_elem(c, "requirements")) {
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
        if (is_elem(c, "source")) {
            ac_source *s = &m->sources[m->nsources++];
            s->to = AC_NONE;
            s->scv = 1.0;
            s->profile = AC_NONE;
            s->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, source_attrs, NSPECS(source_attrs), s, NULL);
        } else if (is_elem(c, "population")) {
            ac_population *p = &m->populations[m->npopulations++];
            p->to = AC_NONE;
            p->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, population_attrs, NSPECS(population_attrs), p, NULL);
        } else if (is_elem(c, "profile")) {
            ac_profile *pr = &m->profiles[m->nprofiles++];
            size_t np = count_children(c, "point");
            pr->source = AC_NONE;
            pr->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, profile_attrs, NSPECS(profile_attrs), pr, NULL);
            if (np > 0) {
                pr->points = calloc(np, sizeof *pr->points);
                if (pr->points == NULL) {
                    ctx->oom = 1;
                    return;
                }
            }
            for (const xmlNode *pt = c->children; pt != NULL; pt = pt->next) {
                if (!is_elem(pt, "point"))
                    continue;
                ac_profile_point *p = &pr->points[pr->npoints++];
                p->loc = ac_xml_elem_loc(ctx, pt);
                p->at = NAN;
                parse_attrs(ctx, pt, point_attrs, NSPECS(point_attrs), p, NULL);
            }
        }
    }
}

/* The attributes each mitigation kind needs and takes (besides id, kind, target, label). */
static const struct {
    ac_mitigation_kind kind;
    const char *required[3];
    const char *optional[2];
} mitigation_kinds[] = {
    {AC_MIT_PROVISIONED_CONCURRENCY, {"amount", NULL, NULL}, {NULL, NULL}},
    {AC_MIT_PRE_WARMING, {"amount", NULL, NULL}, {"interval", NULL}},
    {AC_MIT_SNAPSTART, {"restore", NULL, NULL}, {NULL, NULL}},
    {AC_MIT_ADD_SERVERS, {"amount", NULL, NULL}, {NULL, NULL}},
    {AC_MIT_RATE_LIMIT, {"rate", NULL, NULL}, {"burst", NULL}},
    {AC_MIT_RETRY_BUDGET, {"ratio", NULL, NULL}, {NULL, NULL}},
    {AC_MIT_SET, {"attribute", "value", NULL}, {NULL, NULL}},
    {AC_MIT_COMBINE, {"of", NULL, NULL}, {NULL, NULL}},
};

static void check_mitigation_attrs(ac_pctx *ctx, const xmlNode *n, const ac_mitigation *mt,
                                   const char *id)
{
    static const char *const kind_attrs[] = {"amount", "interval", "restore", "rate", "burst",
                                             "ratio", "attribute", "value", "of"};
    size_t k = 0;
    while (k < sizeof mitigation_kinds / sizeof mitigation_kinds[0] &&
           mitigation_kinds[k].kind != mt->kind)
        k++;
    if (k == sizeof mitigation_kinds / sizeof mitigation_kinds[0])
        return;
    for (size_t r = 0; r < 3 && mitigation_kinds[k].required[r] != NULL; r++)
        if (!has_attr(n, mitigation_kinds[k].required[r]))
            ac_pdiag(ctx, mt->loc, id, "AC029",
                     "mitigation '%s' of kind '%s' needs the attribute '%s'", id,
                     ac_mitigation_kind_name(mt->kind), mitigation_kinds[k].required[r]);
    for (size_t a = 0; a < sizeof kind_attrs / sizeof kind_attrs[0]; a++) {
        int used = 0;
        if (!has_attr(n, kind_attrs[a]))
            continue;
        for (size_t r = 0; r < 3 && mitigation_kinds[k].required[r] != NULL; r++)
            used |= strcmp(kind_attrs[a], mitigation_kinds[k].required[r]) == 0;
        for (size_t o = 0; o < 2 && mitigation_kinds[k].optional[o] != NULL; o++)
            used |= strcmp(kind_attrs[a], mitigation_kinds[k].optional[o]) == 0;
        if (!used)
            ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, kind_attrs[a]), id, "AC029",
                     "a mitigation of kind '%s' does not use the attribute '%s'",
                     ac_mitigation_kind_name(mt->kind), kind_attrs[a]);
    }
    if (mt->kind == AC_MIT_COMBINE && has_attr(n, "target"))
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "target"), id, "AC029",
                 "mitigation '%s' of kind 'combine' takes no target: its parts have theirs", id);
    if (mt->kind != AC_MIT_COMBINE && !has_attr(n, "target"))
        ac_pdiag(ctx, mt->loc, id, "AC029", "mitigation '%s' of kind '%s' needs a target", id,
                 ac_mitigation_kind_name(mt->kind));
}

static void build_mitigation(ac_pctx *ctx, const xmlNode *n, ac_mitigation *mt)
{
    char idbuf[256];
    const char *id = node_id_of(n, idbuf, sizeof idbuf);
    char *of;
    mt->target = AC_NONE;
    mt->interval = 300.0;
    mt->burst = 1;
    mt->loc = ac_xml_elem_loc(ctx, n);
    mt->kind = (ac_mitigation_kind)-1;
    parse_attrs(ctx, n, mitigation_attrs, NSPECS(mitigation_attrs), mt, NULL);
    check_mitigation_attrs(ctx, n, mt, id != NULL ? id : "?");
    of = get_attr(n, "of");
    if (of != NULL) {
        ac_loc loc = ac_xml_attr_loc(ctx, n, "of");
        size_t k = 0, cap = 0;
        char *save = NULL;
        for (char *p = of; *p; p++)
            if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' &&
                (p == of || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r'))
                cap++;
        if (cap > 0) {
            mt->of = calloc(cap, sizeof *mt->of);
            if (mt->of == NULL) {
                ctx->oom = 1;
                free(of);
                return;
            }
        }
        for (char *tok = strtok_r(of, " \t\r\n", &save); tok != NULL;
             tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (!is_ncname(tok)) {
                ac_pdiag(ctx, loc, id, "AC021",
                         "attribute 'of' of <mitigation> lists '%s', which is not an id", tok);
                continue;
            }
            mt->of[k] = AC_NONE;
            add_ref(ctx, tok, &mt->of[k], NULL, AC_REF_MITIGATION, "of", "mitigation", loc);
            k++;
        }
        mt->nof = k;
        free(of);
    }
}

static void build_faults(ac_pctx *ctx, const xmlNode *n)
{
    ac_faults *f = &ctx->model->faults;
    size_t nf = count_children(n, "fault");
    if (f->present) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), NULL, "AC030",
                 "the file has more than one <faults> element (the first is at line %u)", f->loc.line);
        return;
    }
    f->present = 1;
    f->tau = 0.7;
    f->loc = ac_xml_elem_loc(ctx, n);
    parse_attrs(ctx, n, faults_attrs, NSPECS(faults_attrs), f, NULL);
    f->has_budget = has_attr(n, "budget");
    if (has_attr(n, "seed")) {
        char *text = get_attr(n, "seed");
        ac_unit_fail fail;
        size_t seed = 0;
        if (text != NULL && ac_units_count(text, 4294967295u, &seed, &fail) == 0) {
            f->seed = (unsigned long)seed;
            f->has_seed = 1;
        } else if (text != NULL) {
            ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "seed"), NULL, fail.rule,
                     "attribute 'seed' of <faults> %s", fail.message);
        }
        free(text);
    }
    if (nf > 0) {
        f->items = calloc(nf, sizeof *f->items);
        if (f->items == NULL) {
            ctx->oom = 1;
            return;
        }
    }
    for (const xmlNode *c = n->children; c != NULL; c = c->next) {
        if (is_elem(c, "fault")) {
            ac_fault *ft = &f->items[f->count++];
            ft->target = AC_NONE;
            ft->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, fault_attrs, NSPECS(fault_attrs), ft, NULL);
            if (!has_attr(c, "delay") && !has_attr(c, "fail-prob") && !has_attr(c, "servers-down") &&
                !has_attr(c, "capacity-loss") && !has_attr(c, "cold-start"))
                ac_pdiag(ctx, ft->loc, NULL, "AC018",
                         "a <fault> needs at least one fault attribute (delay, fail-prob, "
                         "servers-down, capacity-loss or cold-start)");
        } else if (is_elem(c, "objective")) {
            size_t nt = count_children(c, "term");
            if (f->has_objective) {
                ac_pdiag(ctx, ac_xml_elem_loc(ctx, c), NULL, "AC030",
                         "<faults> has more than one <objective>");
                continue;
            }
            f->has_objective = 1;
            f->objective_loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, objective_attrs, NSPECS(objective_attrs), f, NULL);
            if (nt > 0) {
                f->terms = calloc(nt, sizeof *f->terms);
                if (f->terms == NULL) {
                    ctx->oom = 1;
                    return;
                }
            }
            for (const xmlNode *t = c->children; t != NULL; t = t->next) {
                if (!is_elem(t, "term"))
                    continue;
                ac_term *tm = &f->terms[f->nterms++];
                tm->target = AC_NONE;
                tm->weight = 1.0;
                tm->loc = ac_xml_elem_loc(ctx, t);
                tm->metric = (ac_metric)-1;
                parse_attrs(ctx, t, term_attrs, NSPECS(term_attrs), tm, NULL);
                if (tm->metric <= AC_METRIC_UTILIZATION)
                    parse_norm(ctx, t, tm);
            }
        }
    }
}

static void build_requirements(ac_pctx *ctx, const xmlNode *n)
{
    static const struct {
        const char *name;
        ac_req_kind kind;
        const attr_spec *specs;
        size_t nspecs;
    } kinds[] = {
        {"latency", AC_REQ_LATENCY, req_latency_attrs, NSPECS(req_latency_attrs)},
        {"utilization", AC_REQ_UTILIZATION, req_utilization_attrs, NSPECS(req_utilization_attrs)},
        {"loss", AC_REQ_LOSS, req_loss_attrs, NSPECS(req_loss_attrs)},
        {"throughput", AC_REQ_THROUGHPUT, req_throughput_attrs, NSPECS(req_throughput_attrs)},
        {"headroom", AC_REQ_HEADROOM, req_headroom_attrs, NSPECS(req_headroom_attrs)},
        {"recovery", AC_REQ_RECOVERY, req_recovery_attrs, NSPECS(req_recovery_attrs)},
        {"scaling", AC_REQ_SCALING, req_scaling_attrs, NSPECS(req_scaling_attrs)},
        {"resilience", AC_REQ_RESILIENCE, req_resilience_attrs, NSPECS(req_resilience_attrs)},
    };
    ac_model *m = ctx->model;
    parse_attrs(ctx, n, requirements_attrs, NSPECS(requirements_attrs), NULL, NULL);
    for (const xmlNode *prev = n->prev; prev != NULL; prev = prev->prev)
        if (is_elem(prev, "requirements")) {
            ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), NULL, "AC030",
                     "the file has more than one <requirements> element (the first is at line %u): "
                     "put every requirement in one",
                     ac_xml_elem_loc(ctx, prev).line);
            break;
        }
    for (const xmlNode *c = n->children; c != NULL; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            if (!is_elem(c, kinds[i].name))
                continue;
            ac_requirement *r = &m->requirements[m->nrequirements++];
            r->kind = kinds[i].kind;
            r->target = AC_NONE;
            r->mitigation = AC_NONE;
            r->max_events = AC_UNBOUNDED;
            r->max_server_hours = INFINITY;
            r->tau = 0.7;
            r->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, kinds[i].specs, kinds[i].nspecs, r, NULL);
            if (r->kind == AC_REQ_SCALING && !has_attr(c, "max-events") &&
                !has_attr(c, "max-server-hours"))
                ac_pdiag(ctx, r->loc, NULL, "AC018",
                         "<scaling> needs 'max-events', 'max-server-hours' or both");
        }
    }
}

static void build_suppress(ac_pctx *ctx, const xmlNode *n, ac_suppression *s)
{
    char *rule = get_attr(n, "rule");
    s->target = AC_NONE;
    s->loc = ac_xml_elem_loc(ctx, n);
    parse_attrs(ctx, n, suppress_attrs, NSPECS(suppress_attrs), s, NULL);
    if (rule != NULL && strlen(rule) < sizeof s->rule)
        memcpy(s->rule, rule, strlen(rule) + 1);
    if (rule != NULL && ac_rule_find(rule) == NULL)
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "rule"), NULL, "AC027",
                 "<suppress> names the rule '%s', which does not exist (archcheck rules lists them)",
                 rule);
    if (s->reason != NULL) {
        const char *p = s->reason;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0')
            ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "reason"), NULL, "AC028",
                     "<suppress rule=\"%s\"> needs a non-empty reason: reviewers read it in the "
                     "report",
                     rule != NULL ? rule : "");
    }
    free(rule);
}

int ac_build_model(ac_pctx *ctx, xmlDocPtr doc)
{
    const xmlNode *root = xmlDocGetRootElement(doc);
    ac_model *m = ctx->model;
    counts k;
    char *format;

    if (root == NULL || strcmp(elem_name(root), "architecture") != 0) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, root), NULL, "AC006",
                 "the root element must be <architecture format=\"1\">, not <%s>",
                 root != NULL ? elem_name(root) : "");
        return AC_EINPUT;
    }
    m->loc = ac_xml_elem_loc(ctx, root);
    parse_attrs(ctx, root, architecture_attrs, NSPECS(architecture_attrs), m, NULL);
    format = get_attr(root, "format");
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
            if (is_elem(c, "pool"))
                build_pool(ctx, c, node);
            else if (is_elem(c, "function"))
                build_function(ctx, c, node);
            else if (is_elem(c, "queue"))
                build_queue(ctx, c, node);
            else
                build_gateway(ctx, c, node);
        } else if (is_elem(c, "route")) {
            ac_route *r = &m->routes[m->nroutes++];
            r->from = r->to = AC_NONE;
            r->p = 1.0;
            r->fanout = r->fanin = 1;
            r->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, route_attrs, NSPECS(route_attrs), r, NULL);
        } else if (is_elem(c, "link")) {
            ac_link *l = &m->links[m->nlinks++];
            l->from = l->to = AC_NONE;
            l->capacity = INFINITY;
            l->buffer = AC_UNBOUNDED;
            l->loc = ac_xml_elem_loc(ctx, c);
            parse_attrs(ctx, c, link_attrs, NSPECS(link_attrs), l, NULL);
        } else if (is_elem(c, "workload")) {
            build_workload(ctx, c);
        } else if (is_elem(c, "mitigation")) {
            build_mitigation(ctx, c, &m->mitigations[m->nmitigations++]);
        } else if (is_elem(c, "faults")) {
            build_faults(ctx, c);
        } else if (is_elem(c, "requirements")) {
            build_requirements(ctx, c);
        } else if (is_elem(c, "suppress")) {
            build_suppress(ctx, c, &m->suppressions[m->nsuppressions++]);
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
        rc = parse_value(ctx, &specs[i], value, &scratch, loc, "mitigation", node_id);
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
        ac_pdiag(ctx, loc, node_id, "AC029",
                 "a %s has no attribute '%s' to set (it has: %s)", ac_node_kind_name(kind), attr,
                 allowed.data != NULL ? allowed.data : "");
        ac_strbuf_free(&allowed);
    }
    return -1;
}

/* The value of the attribute `s` of `base` as the format writes it ("100ms", "2", "jsq",
 * "unbounded"). */
static void format_value(const attr_spec *s, const void *base, char *buf, size_t size)
{
    const char *p = (const char *)base + s->offset;
    double v = 0.0;
    size_t c = 0;
    int k = 0;
    switch (s->type) {
    case T_COUNT:
        memcpy(&c, p, sizeof c);
        if (c == AC_UNBOUNDED)
            snprintf(buf, size, "unbounded");
        else
            snprintf(buf, size, "%zu", c);
        return;
    case T_ENUM:
    case T_BOOL:
        memcpy(&k, p, sizeof k);
        snprintf(buf, size, "%s", k >= 0 && s->keywords[k] != NULL ? s->keywords[k] : "?");
        return;
    case T_DURATION:
    case T_PERIOD_RATE:
        memcpy(&v, p, sizeof v);
        if (s->type == T_PERIOD_RATE)
            v = v > 0.0 ? 1.0 / v : INFINITY;
        if (!isfinite(v))
            snprintf(buf, size, "unbounded");
        else if (v > 0.0 && v < 1.0)
            snprintf(buf, size, "%gms", v * 1e3);
        else
            snprintf(buf, size, "%gs", v);
        return;
    case T_RATE:
        memcpy(&v, p, sizeof v);
        if (isfinite(v))
            snprintf(buf, size, "%g/s", v);
        else
            snprintf(buf, size, "unbounded");
        return;
    default:
        memcpy(&v, p, sizeof v);
        snprintf(buf, size, "%g", v);
        return;
    }
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
        format_value(&specs[i], node, old, sizeof old);
        rc = parse_value(&ctx, &specs[i], value, node, loc, ac_node_kind_name(node->kind),
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
