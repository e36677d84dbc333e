/*
 * Building the review's elements: <mitigation>, <faults> (its <fault>s, <objective> and
 * <term>s), <requirements> and <suppress>, each attribute read by the table-driven reader
 * (parser/attrs.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/attrs.h"
#include "parser/units.h"
#include "archcheck/parser.h"
#include "archcheck/rules.h"

static const char *const kw_mitigation[] = {"provisioned-concurrency",
                                            "pre-warming",
                                            "snapstart",
                                            "add-servers",
                                            "rate-limit",
                                            "retry-budget",
                                            "set",
                                            "combine",
                                            NULL};
static const char *const kw_metric[] = {
    "error-rate", "throttle-rate",    "p95-latency", "p99-latency",
    "loss",       "backlog-duration", "utilization", NULL};

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
#define RQ_TARGET                                                                                  \
    {                                                                                              \
        "target", T_REF, 0, RQ_OFF(target), 0, NULL, AC_REF_NODE                                   \
    }
#define RQ_LABEL                                                                                   \
    {                                                                                              \
        "label", T_STRING, 0, RQ_OFF(label), 0, NULL, AC_REF_NODE                                  \
    }
static const attr_spec req_latency_attrs[] = {
    RQ_TARGET,
    RQ_LABEL,
    {"percentile", T_PERCENTILE, 0, RQ_OFF(percentile), 0, NULL, AC_REF_NODE},
    {"max", T_DURATION, F_REQUIRED | F_POSITIVE, RQ_OFF(max), 0, NULL, AC_REF_NODE},
};
static const attr_spec req_utilization_attrs[] = {
    RQ_TARGET,
    RQ_LABEL,
    {"max", T_PROB, F_REQUIRED | F_POSITIVE, RQ_OFF(max), 0, NULL, AC_REF_NODE}};
static const attr_spec req_loss_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"max", T_PROB, F_REQUIRED, RQ_OFF(max), 0, NULL, AC_REF_NODE}};
static const attr_spec req_throughput_attrs[] = {
    RQ_TARGET,
    RQ_LABEL,
    {"min", T_RATE, F_REQUIRED | F_POSITIVE, RQ_OFF(min), 0, NULL, AC_REF_NODE}};
static const attr_spec req_headroom_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"min", T_FACTOR, F_REQUIRED, RQ_OFF(min), 0, NULL, AC_REF_NODE}};
static const attr_spec req_recovery_attrs[] = {
    RQ_TARGET, RQ_LABEL, {"max", T_DURATION, F_REQUIRED, RQ_OFF(max), 0, NULL, AC_REF_NODE}};
static const attr_spec req_scaling_attrs[] = {
    RQ_TARGET,
    RQ_LABEL,
    {"max-events", T_COUNT, 0, RQ_OFF(max_events), (size_t)1000000000, NULL, AC_REF_NODE},
    {"max-server-hours", T_NUMBER, 0, RQ_OFF(max_server_hours), 0, NULL, AC_REF_NODE},
};
static const attr_spec req_resilience_attrs[] = {
    RQ_TARGET,
    RQ_LABEL,
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

static const attr_spec requirements_attrs[] = {
    {"label", T_STRING, 0, (size_t)-1, 0, NULL, AC_REF_NODE},
};

static int parse_norm(ac_pctx *ctx, const xmlNode *n, ac_term *t)
{
    char *text = ac_attrs_get(n, "norm");
    ac_unit_fail fail = {NULL, ""};
    int rc = 0;
    if (text == NULL)
        return 0;
    switch (t->metric) {
    case AC_METRIC_P95_LATENCY:
    case AC_METRIC_P99_LATENCY:
    case AC_METRIC_BACKLOG_DURATION: rc = ac_units_duration(text, &t->norm, &fail); break;
    case AC_METRIC_UTILIZATION: rc = ac_units_factor(text, &t->norm, &fail); break;
    default: rc = ac_units_probability(text, &t->norm, &fail); break;
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
    static const char *const kind_attrs[] = {"amount", "interval",  "restore", "rate", "burst",
                                             "ratio",  "attribute", "value",   "of"};
    size_t k = 0;
    while (k < sizeof mitigation_kinds / sizeof mitigation_kinds[0] &&
           mitigation_kinds[k].kind != mt->kind)
        k++;
    if (k == sizeof mitigation_kinds / sizeof mitigation_kinds[0])
        return;
    for (size_t r = 0; r < 3 && mitigation_kinds[k].required[r] != NULL; r++)
        if (!ac_attrs_has(n, mitigation_kinds[k].required[r]))
            ac_pdiag(ctx, mt->loc, id, "AC029",
                     "mitigation '%s' of kind '%s' needs the attribute '%s'", id,
                     ac_mitigation_kind_name(mt->kind), mitigation_kinds[k].required[r]);
    for (size_t a = 0; a < sizeof kind_attrs / sizeof kind_attrs[0]; a++) {
        int used = 0;
        if (!ac_attrs_has(n, kind_attrs[a]))
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
    if (mt->kind == AC_MIT_COMBINE && ac_attrs_has(n, "target"))
        ac_pdiag(ctx, ac_xml_attr_loc(ctx, n, "target"), id, "AC029",
                 "mitigation '%s' of kind 'combine' takes no target: its parts have theirs", id);
    if (mt->kind != AC_MIT_COMBINE && !ac_attrs_has(n, "target"))
        ac_pdiag(ctx, mt->loc, id, "AC029", "mitigation '%s' of kind '%s' needs a target", id,
                 ac_mitigation_kind_name(mt->kind));
}

void ac_build_mitigation(ac_pctx *ctx, const xmlNode *n, ac_mitigation *mt)
{
    char idbuf[256];
    const char *id = ac_attrs_node_id(n, idbuf, sizeof idbuf);
    char *of;
    mt->target = AC_NONE;
    mt->interval = 300.0;
    mt->burst = 1;
    mt->loc = ac_xml_elem_loc(ctx, n);
    mt->kind = (ac_mitigation_kind)-1;
    ac_attrs_parse(ctx, n, mitigation_attrs, NSPECS(mitigation_attrs), mt, NULL);
    check_mitigation_attrs(ctx, n, mt, id != NULL ? id : "?");
    of = ac_attrs_get(n, "of");
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
            if (!ac_attrs_is_ncname(tok)) {
                ac_pdiag(ctx, loc, id, "AC021",
                         "attribute 'of' of <mitigation> lists '%s', which is not an id", tok);
                continue;
            }
            mt->of[k] = AC_NONE;
            ac_attrs_add_ref(ctx, tok, &mt->of[k], NULL, AC_REF_MITIGATION, "of", "mitigation",
                             loc);
            k++;
        }
        mt->nof = k;
        free(of);
    }
}

void ac_build_faults(ac_pctx *ctx, const xmlNode *n)
{
    ac_faults *f = &ctx->model->faults;
    size_t nf = ac_attrs_count_children(n, "fault");
    if (f->present) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), NULL, "AC030",
                 "the file has more than one <faults> element (the first is at line %u)",
                 f->loc.line);
        return;
    }
    f->present = 1;
    f->tau = 0.7;
    f->loc = ac_xml_elem_loc(ctx, n);
    ac_attrs_parse(ctx, n, faults_attrs, NSPECS(faults_attrs), f, NULL);
    f->has_budget = ac_attrs_has(n, "budget");
    if (ac_attrs_has(n, "seed")) {
        char *text = ac_attrs_get(n, "seed");
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
        if (ac_attrs_is_elem(c, "fault")) {
            ac_fault *ft = &f->items[f->count++];
            ft->target = AC_NONE;
            ft->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, fault_attrs, NSPECS(fault_attrs), ft, NULL);
            if (!ac_attrs_has(c, "delay") && !ac_attrs_has(c, "fail-prob") &&
                !ac_attrs_has(c, "servers-down") && !ac_attrs_has(c, "capacity-loss") &&
                !ac_attrs_has(c, "cold-start"))
                ac_pdiag(ctx, ft->loc, NULL, "AC018",
                         "a <fault> needs at least one fault attribute (delay, fail-prob, "
                         "servers-down, capacity-loss or cold-start)");
        } else if (ac_attrs_is_elem(c, "objective")) {
            size_t nt = ac_attrs_count_children(c, "term");
            if (f->has_objective) {
                ac_pdiag(ctx, ac_xml_elem_loc(ctx, c), NULL, "AC030",
                         "<faults> has more than one <objective>");
                continue;
            }
            f->has_objective = 1;
            f->objective_loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, objective_attrs, NSPECS(objective_attrs), f, NULL);
            if (nt > 0) {
                f->terms = calloc(nt, sizeof *f->terms);
                if (f->terms == NULL) {
                    ctx->oom = 1;
                    return;
                }
            }
            for (const xmlNode *t = c->children; t != NULL; t = t->next) {
                if (!ac_attrs_is_elem(t, "term"))
                    continue;
                ac_term *tm = &f->terms[f->nterms++];
                tm->target = AC_NONE;
                tm->weight = 1.0;
                tm->loc = ac_xml_elem_loc(ctx, t);
                tm->metric = (ac_metric)-1;
                ac_attrs_parse(ctx, t, term_attrs, NSPECS(term_attrs), tm, NULL);
                if (tm->metric <= AC_METRIC_UTILIZATION)
                    parse_norm(ctx, t, tm);
            }
        }
    }
}

void ac_build_requirements(ac_pctx *ctx, const xmlNode *n)
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
    ac_attrs_parse(ctx, n, requirements_attrs, NSPECS(requirements_attrs), NULL, NULL);
    for (const xmlNode *prev = n->prev; prev != NULL; prev = prev->prev)
        if (ac_attrs_is_elem(prev, "requirements")) {
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
            if (!ac_attrs_is_elem(c, kinds[i].name))
                continue;
            ac_requirement *r = &m->requirements[m->nrequirements++];
            r->kind = kinds[i].kind;
            r->target = AC_NONE;
            r->mitigation = AC_NONE;
            r->max_events = AC_UNBOUNDED;
            r->max_server_hours = INFINITY;
            r->tau = 0.7;
            r->loc = ac_xml_elem_loc(ctx, c);
            ac_attrs_parse(ctx, c, kinds[i].specs, kinds[i].nspecs, r, NULL);
            if (r->kind == AC_REQ_SCALING && !ac_attrs_has(c, "max-events") &&
                !ac_attrs_has(c, "max-server-hours"))
                ac_pdiag(ctx, r->loc, NULL, "AC018",
                         "<scaling> needs 'max-events', 'max-server-hours' or both");
        }
    }
}

void ac_build_suppress(ac_pctx *ctx, const xmlNode *n, ac_suppression *s)
{
    char *rule = ac_attrs_get(n, "rule");
    s->target = AC_NONE;
    s->loc = ac_xml_elem_loc(ctx, n);
    ac_attrs_parse(ctx, n, suppress_attrs, NSPECS(suppress_attrs), s, NULL);
    if (rule != NULL && strlen(rule) < sizeof s->rule)
        memcpy(s->rule, rule, strlen(rule) + 1);
    if (rule != NULL && ac_rule_find(rule) == NULL)
        ac_pdiag(
            ctx, ac_xml_attr_loc(ctx, n, "rule"), NULL, "AC027",
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
