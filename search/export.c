/*
 * A worst case exported to a live drill (include/archcheck/search.h): an AWS Fault Injection
 * Service experiment template and a Chaos Toolkit experiment that runs it.
 *
 * FIS (docs.aws.amazon.com/fis/latest/userguide: experiment templates, actions reference):
 * a template is {description, targets, actions, stopConditions, roleArn, tags}; an action
 * {actionId, description, parameters (strings), targets, startAfter}; a target
 * {resourceType, resourceTags, selectionMode}. A window [start, end) becomes an aws:fis:wait
 * of `start` and the fault's action after it, lasting end - start.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archcheck/search.h"
#include "common/jsonw.h"

const char *ac_search_attr_name(ac_transient_fault_attr a)
{
    switch (a) {
    case AC_TRANSIENT_FAULT_DELAY: return "delay";
    case AC_TRANSIENT_FAULT_FAIL_PROB: return "fail-prob";
    case AC_TRANSIENT_FAULT_SERVERS_DOWN: return "servers-down";
    case AC_TRANSIENT_FAULT_CAPACITY_LOSS: return "capacity-loss";
    case AC_TRANSIENT_FAULT_COLD_START: return "cold-start";
    }
    return "?";
}

/* A link is cut (aws:network:disrupt-connectivity) when it loses at least this share of its
 * capacity; a smaller loss is a drill of packet loss at that share (FIS has no bandwidth
 * limit). */
#define LINK_CUT 0.999

static int is_link(const ac_model *m, const ac_transient_fault *f)
{
    return ac_search_target_is_link(m, f->target);
}

/* The node whose resources a fault acts on: its node, or a link's sending node. */
static const char *resource_node(const ac_model *m, const ac_transient_fault *f)
{
    if (is_link(m, f))
        return m->nodes[m->links[f->target - m->nnodes].from].id;
    return ac_search_target_id(m, f->target);
}

/* The FIS action of fault f on its node or link, NULL when FIS has none. */
static const char *fis_action(const ac_model *m, const ac_transient_fault *f)
{
    ac_node_kind kind;
    if (is_link(m, f)) {
        if (f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS && f->value >= LINK_CUT)
            return "aws:network:disrupt-connectivity";
        if (f->attr == AC_TRANSIENT_FAULT_CAPACITY_LOSS || f->attr == AC_TRANSIENT_FAULT_DELAY)
            return "aws:ssm:send-command";
        return NULL;
    }
    if (f->target >= m->nnodes)
        return NULL;
    kind = m->nodes[f->target].kind;
    if (kind == AC_NODE_FUNCTION && f->attr == AC_TRANSIENT_FAULT_DELAY)
        return "aws:lambda:invocation-add-delay";
    if (kind == AC_NODE_FUNCTION && f->attr == AC_TRANSIENT_FAULT_FAIL_PROB)
        return "aws:lambda:invocation-error";
    if (kind == AC_NODE_POOL && f->attr == AC_TRANSIENT_FAULT_SERVERS_DOWN)
        return "aws:ec2:stop-instances";
    if (kind == AC_NODE_POOL && f->attr == AC_TRANSIENT_FAULT_DELAY)
        return "aws:ssm:send-command";
    return NULL;
}

/* The FIS resource type of fault f's target, and the key of an action's targets. */
static const char *resource_type(const ac_model *m, const ac_transient_fault *f, const char **key)
{
    const char *action = fis_action(m, f);
    if (action != NULL && strcmp(action, "aws:network:disrupt-connectivity") == 0) {
        *key = "Subnets";
        return "aws:ec2:subnet";
    }
    if (!is_link(m, f) && f->target < m->nnodes && m->nodes[f->target].kind == AC_NODE_FUNCTION) {
        *key = "Functions";
        return "aws:lambda:function";
    }
    *key = "Instances";
    return "aws:ec2:instance";
}

/* An ISO 8601 duration of t s, rounded up to whole seconds (at least 1 s). */
static void iso_duration(double t, char *buf, size_t size)
{
    double s = ceil(t - 1e-9);
    snprintf(buf, size, "PT%.0fS", s < 1.0 ? 1.0 : s);
}

/* The fault's window length, to the horizon without an end. */
static double window_len(const ac_transient_fault *f, double horizon)
{
    double end = isinf(f->end) || f->end > horizon ? horizon : f->end;
    return end - f->start;
}

/* A FIS name from a node id: letters, digits, '-' and '_' kept, others '-'; 48 at most. */
static void fis_name(const char *prefix, const char *id, size_t k, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s-", prefix);
    for (const char *c = id; *c != '\0' && n + 1 < size && n < 48; c++)
        buf[n++] = (char)(((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                           (*c >= '0' && *c <= '9') || *c == '_')
                              ? *c
                              : '-');
    buf[n] = '\0';
    if (k != (size_t)-1 && n + 8 < size)
        snprintf(buf + n, size - n, "-%zu", k + 1);
}

static void fault_line(const ac_model *m, const ac_transient_fault *f, char *buf, size_t size)
{
    const char *unit =
        f->attr == AC_TRANSIENT_FAULT_DELAY || f->attr == AC_TRANSIENT_FAULT_COLD_START ? " s" : "";
    if (isinf(f->end))
        snprintf(buf, size, "%s.%s = %.6g%s from %.6g s to the horizon",
                 ac_search_target_id(m, f->target), ac_search_attr_name(f->attr), f->value, unit,
                 f->start);
    else
        snprintf(buf, size, "%s.%s = %.6g%s from %.6g s to %.6g s",
                 ac_search_target_id(m, f->target), ac_search_attr_name(f->attr), f->value, unit,
                 f->start, f->end);
}

static void kv(ac_jsonw *w, const char *key, const char *value)
{
    ac_jsonw_key(w, key);
    ac_jsonw_string(w, value);
}

/* The targets: one per fault with an action (the pools' COUNT(k) differs per fault). */
static void fis_targets(ac_jsonw *w, const ac_model *m, const ac_transient_fault *faults,
                        size_t nfaults)
{
    char name[80], sel[40];
    ac_jsonw_key(w, "targets");
    ac_jsonw_object_begin(w);
    for (size_t k = 0; k < nfaults; k++) {
        const ac_transient_fault *f = &faults[k];
        const char *key;
        if (fis_action(m, f) == NULL)
            continue;
        fis_name("target", ac_search_target_id(m, f->target), k, name, sizeof name);
        ac_jsonw_key(w, name);
        ac_jsonw_object_begin(w);
        kv(w, "resourceType", resource_type(m, f, &key));
        ac_jsonw_key(w, "resourceTags");
        ac_jsonw_object_begin(w);
        kv(w, "archcheck:node", resource_node(m, f));
        ac_jsonw_object_end(w);
        if (f->attr == AC_TRANSIENT_FAULT_SERVERS_DOWN)
            snprintf(sel, sizeof sel, "COUNT(%.0f)", f->value);
        else
            snprintf(sel, sizeof sel, "ALL");
        kv(w, "selectionMode", sel);
        ac_jsonw_object_end(w);
    }
    ac_jsonw_object_end(w);
}

/* The parameters of fault f's action (strings, as FIS takes them). */
static void fis_parameters(ac_jsonw *w, const ac_model *m, const ac_transient_fault *f,
                           const char *action, double len)
{
    char buf[256], dur[32];
    iso_duration(len, dur, sizeof dur);
    ac_jsonw_key(w, "parameters");
    ac_jsonw_object_begin(w);
    if (strcmp(action, "aws:lambda:invocation-add-delay") == 0) {
        kv(w, "duration", dur);
        snprintf(buf, sizeof buf, "%.0f", ceil(f->value * 1000.0));
        kv(w, "startupDelayMilliseconds", buf);
        kv(w, "invocationPercentage", "100");
    } else if (strcmp(action, "aws:lambda:invocation-error") == 0) {
        kv(w, "duration", dur);
        snprintf(buf, sizeof buf, "%.0f", fmin(100.0, fmax(1.0, round(100.0 * f->value))));
        kv(w, "invocationPercentage", buf);
        kv(w, "preventExecution", "false");
    } else if (strcmp(action, "aws:ec2:stop-instances") == 0) {
        kv(w, "startInstancesAfterDuration", dur);
    } else if (strcmp(action, "aws:network:disrupt-connectivity") == 0) {
        kv(w, "duration", dur);
        kv(w, "scope", "all");
    } else if (is_link(m, f)) {
        /* the sending node's traffic to the receiving node (its host name: the node's id) */
        const char *to = m->nodes[m->links[f->target - m->nnodes].to].id;
        int delay = f->attr == AC_TRANSIENT_FAULT_DELAY;
        kv(w, "documentArn",
           delay ? "arn:aws:ssm:REGION::document/AWSFIS-Run-Network-Latency-Sources"
                 : "arn:aws:ssm:REGION::document/AWSFIS-Run-Network-Packet-Loss-Sources");
        if (delay)
            snprintf(buf, sizeof buf,
                     "{\"DelayMilliseconds\":\"%.0f\",\"Sources\":\"%.64s\","
                     "\"DurationSeconds\":\"%.0f\",\"InstallDependencies\":\"True\"}",
                     ceil(f->value * 1000.0), to, fmax(1.0, ceil(len - 1e-9)));
        else
            snprintf(buf, sizeof buf,
                     "{\"LossPercent\":\"%.0f\",\"Sources\":\"%.64s\","
                     "\"DurationSeconds\":\"%.0f\",\"InstallDependencies\":\"True\"}",
                     fmin(100.0, fmax(1.0, round(100.0 * f->value))), to,
                     fmax(1.0, ceil(len - 1e-9)));
        kv(w, "documentParameters", buf);
        kv(w, "duration", dur);
    } else {
        kv(w, "documentArn", "arn:aws:ssm:REGION::document/AWSFIS-Run-Network-Latency");
        snprintf(buf, sizeof buf,
                 "{\"DelayMilliseconds\":\"%.0f\",\"DurationSeconds\":\"%.0f\","
                 "\"InstallDependencies\":\"True\"}",
                 ceil(f->value * 1000.0), fmax(1.0, ceil(len - 1e-9)));
        kv(w, "documentParameters", buf);
        kv(w, "duration", dur);
    }
    ac_jsonw_object_end(w);
}

static void fis_actions(ac_jsonw *w, const ac_model *m, const ac_transient_fault *faults,
                        size_t nfaults, double horizon)
{
    char name[80], wait[80], target[80], line[256], dur[32];
    ac_jsonw_key(w, "actions");
    ac_jsonw_object_begin(w);
    for (size_t k = 0; k < nfaults; k++) {
        const ac_transient_fault *f = &faults[k];
        const char *action = fis_action(m, f);
        const char *id = ac_search_target_id(m, f->target), *key;
        if (action == NULL || !(f->start < horizon))
            continue;
        (void)resource_type(m, f, &key);
        fis_name("wait", id, k, wait, sizeof wait);
        fis_name("fault", id, k, name, sizeof name);
        fis_name("target", id, k, target, sizeof target);
        fault_line(m, f, line, sizeof line);
        if (f->start > 0.0) {
            iso_duration(f->start, dur, sizeof dur);
            ac_jsonw_key(w, wait);
            ac_jsonw_object_begin(w);
            kv(w, "actionId", "aws:fis:wait");
            kv(w, "description", "until the window of the fault after it opens");
            ac_jsonw_key(w, "parameters");
            ac_jsonw_object_begin(w);
            kv(w, "duration", dur);
            ac_jsonw_object_end(w);
            ac_jsonw_object_end(w);
        }
        ac_jsonw_key(w, name);
        ac_jsonw_object_begin(w);
        kv(w, "actionId", action);
        kv(w, "description", line);
        fis_parameters(w, m, f, action, window_len(f, horizon));
        ac_jsonw_key(w, "targets");
        ac_jsonw_object_begin(w);
        kv(w, key, target);
        ac_jsonw_object_end(w);
        if (f->start > 0.0) {
            ac_jsonw_key(w, "startAfter");
            ac_jsonw_array_begin(w);
            ac_jsonw_string(w, wait);
            ac_jsonw_array_end(w);
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_object_end(w);
}

/* Every fault on one line each, "; "-separated, into buf; only those FIS cannot run when
 * `unexported`. */
static void fault_list(const ac_model *m, const ac_transient_fault *faults, size_t nfaults,
                       int unexported, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < nfaults && n + 1 < size; k++) {
        char line[256];
        if (unexported && fis_action(m, &faults[k]) != NULL)
            continue;
        fault_line(m, &faults[k], line, sizeof line);
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n > 0 ? "; " : "", line);
    }
}

static int finish(FILE *fp, ac_error *err)
{
    fputc('\n', fp);
    if (ferror(fp))
        return ac_error_set(err, AC_EIO, "export: write failed");
    return 0;
}

int ac_search_export_fis(FILE *fp, const ac_model *m, const ac_transient_fault *faults,
                         size_t nfaults, double horizon, double score, ac_error *err)
{
    ac_jsonw w;
    char text[4096], desc[4352], num[64];
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    fault_list(m, faults, nfaults, 0, text, sizeof text);
    snprintf(desc, sizeof desc, "archcheck worst case of %.64s (score %.4g): %s",
             m->name != NULL ? m->name : "the design", score, nfaults > 0 ? text : "no fault");
    kv(&w, "description", desc);
    fis_targets(&w, m, faults, nfaults);
    fis_actions(&w, m, faults, nfaults, horizon);
    ac_jsonw_key(&w, "stopConditions");
    ac_jsonw_array_begin(&w);
    ac_jsonw_object_begin(&w);
    kv(&w, "source", "none");
    ac_jsonw_object_end(&w);
    ac_jsonw_array_end(&w);
    kv(&w, "roleArn", "arn:aws:iam::ACCOUNT_ID:role/archcheck-fis");
    ac_jsonw_key(&w, "tags");
    ac_jsonw_object_begin(&w);
    kv(&w, "archcheck", "worst-case");
    snprintf(num, sizeof num, "%.6g", score);
    kv(&w, "archcheck:score", num);
    fault_list(m, faults, nfaults, 1, text, sizeof text);
    if (text[0] != '\0') {
        text[255] = '\0'; /* a tag value holds 256 characters */
        kv(&w, "archcheck:not-exported", text);
    }
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return finish(fp, err);
}

static void ctk_tags(ac_jsonw *w)
{
    ac_jsonw_key(w, "tags");
    ac_jsonw_object_begin(w);
    kv(w, "archcheck", "worst-case");
    ac_jsonw_object_end(w);
}

static void ctk_faults(ac_jsonw *w, const ac_model *m, const ac_transient_fault *faults,
                       size_t nfaults, double horizon, double score)
{
    ac_jsonw_key(w, "extensions");
    ac_jsonw_array_begin(w);
    ac_jsonw_object_begin(w);
    kv(w, "name", "archcheck");
    ac_jsonw_key(w, "score");
    ac_jsonw_double(w, score);
    ac_jsonw_key(w, "horizon");
    ac_jsonw_double(w, horizon);
    ac_jsonw_key(w, "faults");
    ac_jsonw_array_begin(w);
    for (size_t k = 0; k < nfaults; k++) {
        const ac_transient_fault *f = &faults[k];
        const char *action = fis_action(m, f);
        ac_jsonw_object_begin(w);
        kv(w, "target", ac_search_target_id(m, f->target));
        kv(w, "target_kind", is_link(m, f) ? "link" : ac_node_kind_name(m->nodes[f->target].kind));
        kv(w, "attribute", ac_search_attr_name(f->attr));
        ac_jsonw_key(w, "value");
        ac_jsonw_double(w, f->value);
        ac_jsonw_key(w, "start");
        ac_jsonw_double(w, f->start);
        ac_jsonw_key(w, "end");
        if (isinf(f->end))
            ac_jsonw_null(w);
        else
            ac_jsonw_double(w, f->end);
        ac_jsonw_key(w, "fis_action");
        if (action != NULL)
            ac_jsonw_string(w, action);
        else
            ac_jsonw_null(w);
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
    ac_jsonw_object_end(w);
    ac_jsonw_array_end(w);
}

/* The largest value of term i's metric that keeps its share of the score at most tau:
 * tau norm (norm: the term's, the horizon for a backlog duration without one, 1 otherwise),
 * (1 + tau) m0 for a latency against its no-fault value m0 (terms[i].norm); NAN when m0 is
 * not known (terms NULL). */
static double term_limit(const ac_model *m, const ac_search_term_value *terms, size_t nterms,
                         size_t i, ac_metric metric, double norm, double horizon)
{
    double tau = m->faults.tau;
    int latency = metric == AC_METRIC_P95_LATENCY || metric == AC_METRIC_P99_LATENCY;
    if (norm > 0.0)
        return tau * norm;
    if (metric == AC_METRIC_BACKLOG_DURATION)
        return tau * horizon;
    if (!latency)
        return tau;
    return terms != NULL && i < nterms && terms[i].norm > 0.0 ? (1.0 + tau) * terms[i].norm : NAN;
}

/* One probe of the steady state: term i's metric, read from CloudWatch (namespace archcheck,
 * metric = the term's metric name, dimension node = its target or end-to-end; the team
 * publishes them), its largest value over the horizon within [0, limit]. */
static void ctk_probe(ac_jsonw *w, size_t i, ac_metric metric, const char *target, double limit,
                      double horizon)
{
    char name[160];
    snprintf(name, sizeof name, "term-%zu-%s-%.64s", i + 1, ac_metric_name(metric), target);
    ac_jsonw_object_begin(w);
    kv(w, "type", "probe");
    kv(w, "name", name);
    ac_jsonw_key(w, "tolerance");
    ac_jsonw_object_begin(w);
    kv(w, "type", "range");
    ac_jsonw_key(w, "range");
    ac_jsonw_array_begin(w);
    ac_jsonw_double(w, 0.0);
    ac_jsonw_double(w, limit);
    ac_jsonw_array_end(w);
    ac_jsonw_object_end(w);
    ac_jsonw_key(w, "provider");
    ac_jsonw_object_begin(w);
    kv(w, "type", "python");
    kv(w, "module", "chaosaws.cloudwatch.probes");
    kv(w, "func", "get_metric_statistics");
    ac_jsonw_key(w, "arguments");
    ac_jsonw_object_begin(w);
    kv(w, "namespace", "archcheck");
    kv(w, "metric_name", ac_metric_name(metric));
    kv(w, "dimension_name", "node");
    kv(w, "dimension_value", target);
    ac_jsonw_key(w, "duration");
    ac_jsonw_double(w, fmax(60.0, ceil(horizon)));
    kv(w, "statistic", "Maximum");
    ac_jsonw_object_end(w);
    ac_jsonw_object_end(w);
    ac_jsonw_object_end(w);
}

/* The steady-state hypothesis, from the requirement: every term of the objective within tau
 * of its norm (then S = sum w_i min(1, m_i / norm_i) <= tau: a sufficient condition), checked
 * before and after the method. */
static void ctk_hypothesis(ac_jsonw *w, const ac_model *m, const ac_search_term_value *terms,
                           size_t nterms, double horizon)
{
    const ac_faults *fs = &m->faults;
    int has = fs->has_objective && fs->nterms > 0;
    size_t n = has ? fs->nterms : 1;
    char title[256];
    snprintf(title, sizeof title,
             "the degradation score stays below tau = %.4g: every term of the objective within "
             "tau of its norm",
             fs->tau);
    ac_jsonw_key(w, "steady-state-hypothesis");
    ac_jsonw_object_begin(w);
    kv(w, "title", title);
    ac_jsonw_key(w, "probes");
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < n; i++) {
        ac_metric metric = has ? fs->terms[i].metric : AC_METRIC_ERROR_RATE;
        size_t tg = has ? fs->terms[i].target : AC_NONE;
        double limit =
            term_limit(m, terms, nterms, i, metric, has ? fs->terms[i].norm : 1.0, horizon);
        if (isfinite(limit))
            ctk_probe(w, i, metric, tg != AC_NONE ? m->nodes[tg].id : "end-to-end", limit, horizon);
    }
    ac_jsonw_array_end(w);
    ac_jsonw_object_end(w);
}

int ac_search_export_chaostoolkit(FILE *fp, const ac_model *m, const ac_transient_fault *faults,
                                  size_t nfaults, const ac_search_term_value *terms, size_t nterms,
                                  double horizon, double score, ac_error *err)
{
    ac_jsonw w;
    char text[4096], desc[4352];
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    kv(&w, "version", "1.0.0");
    snprintf(desc, sizeof desc, "archcheck worst case of %.64s",
             m->name != NULL ? m->name : "the design");
    kv(&w, "title", desc);
    fault_list(m, faults, nfaults, 0, text, sizeof text);
    snprintf(desc, sizeof desc, "Score %.4g on the model. Faults: %s", score,
             nfaults > 0 ? text : "none");
    kv(&w, "description", desc);
    ac_jsonw_key(&w, "tags");
    ac_jsonw_array_begin(&w);
    ac_jsonw_string(&w, "archcheck");
    ac_jsonw_string(&w, "aws");
    ac_jsonw_string(&w, "fis");
    ac_jsonw_array_end(&w);
    ac_jsonw_key(&w, "configuration");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "fis_template_id");
    ac_jsonw_object_begin(&w);
    kv(&w, "type", "env");
    kv(&w, "key", "ARCHCHECK_FIS_TEMPLATE_ID");
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ctk_faults(&w, m, faults, nfaults, horizon, score);
    ctk_hypothesis(&w, m, terms, nterms, horizon);
    ac_jsonw_key(&w, "method");
    ac_jsonw_array_begin(&w);
    ac_jsonw_object_begin(&w);
    kv(&w, "type", "action");
    kv(&w, "name", "start-archcheck-worst-case");
    ac_jsonw_key(&w, "provider");
    ac_jsonw_object_begin(&w);
    kv(&w, "type", "python");
    kv(&w, "module", "chaosaws.fis.actions");
    kv(&w, "func", "start_experiment");
    ac_jsonw_key(&w, "arguments");
    ac_jsonw_object_begin(&w);
    kv(&w, "experiment_template_id", "${fis_template_id}");
    ctk_tags(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_key(&w, "pauses");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "after");
    ac_jsonw_double(&w, ceil(horizon));
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_array_end(&w);
    ac_jsonw_key(&w, "rollbacks");
    ac_jsonw_array_begin(&w);
    ac_jsonw_object_begin(&w);
    kv(&w, "type", "action");
    kv(&w, "name", "stop-archcheck-worst-case");
    ac_jsonw_key(&w, "provider");
    ac_jsonw_object_begin(&w);
    kv(&w, "type", "python");
    kv(&w, "module", "chaosaws.fis.actions");
    kv(&w, "func", "stop_experiments_by_tags");
    ac_jsonw_key(&w, "arguments");
    ac_jsonw_object_begin(&w);
    ctk_tags(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return finish(fp, err);
}
