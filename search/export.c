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

/* The FIS action of fault f on its node, NULL when FIS has none. */
static const char *fis_action(const ac_model *m, const ac_transient_fault *f)
{
    ac_node_kind kind = m->nodes[f->target].kind;
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
        snprintf(buf, size, "%s.%s = %.6g%s from %.6g s to the horizon", m->nodes[f->target].id,
                 ac_search_attr_name(f->attr), f->value, unit, f->start);
    else
        snprintf(buf, size, "%s.%s = %.6g%s from %.6g s to %.6g s", m->nodes[f->target].id,
                 ac_search_attr_name(f->attr), f->value, unit, f->start, f->end);
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
        int lambda = m->nodes[f->target].kind == AC_NODE_FUNCTION;
        if (fis_action(m, f) == NULL)
            continue;
        fis_name("target", m->nodes[f->target].id, k, name, sizeof name);
        ac_jsonw_key(w, name);
        ac_jsonw_object_begin(w);
        kv(w, "resourceType", lambda ? "aws:lambda:function" : "aws:ec2:instance");
        ac_jsonw_key(w, "resourceTags");
        ac_jsonw_object_begin(w);
        kv(w, "archcheck:node", m->nodes[f->target].id);
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
static void fis_parameters(ac_jsonw *w, const ac_transient_fault *f, const char *action, double len)
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
        int lambda = m->nodes[f->target].kind == AC_NODE_FUNCTION;
        if (action == NULL || !(f->start < horizon))
            continue;
        fis_name("wait", m->nodes[f->target].id, k, wait, sizeof wait);
        fis_name("fault", m->nodes[f->target].id, k, name, sizeof name);
        fis_name("target", m->nodes[f->target].id, k, target, sizeof target);
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
        fis_parameters(w, f, action, window_len(f, horizon));
        ac_jsonw_key(w, "targets");
        ac_jsonw_object_begin(w);
        kv(w, lambda ? "Functions" : "Instances", target);
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
        kv(w, "target", m->nodes[f->target].id);
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

int ac_search_export_chaostoolkit(FILE *fp, const ac_model *m, const ac_transient_fault *faults,
                                  size_t nfaults, double horizon, double score, ac_error *err)
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
