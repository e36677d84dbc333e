/*
 * Simulation results: JSON in the shape of the solver's (each quantity with a
 * sibling <key>_ci95, the half-width of its 95% interval), and a text table.
 */
#include <math.h>

#include "archcheck/report.h"
#include "common/jsonw.h"
#include "report/internal.h"

static void estimate(ac_jsonw *w, const char *key, const ac_sim_estimate *e)
{
    char k2[64];
    if (e->n == 0 || !isfinite(e->mean))
        return;
    ac_jsonw_key(w, key);
    ac_jsonw_double(w, e->mean);
    if (isfinite(e->ci95)) {
        snprintf(k2, sizeof k2, "%s_ci95", key);
        ac_jsonw_key(w, k2);
        ac_jsonw_double(w, e->ci95);
    }
}

/* The KPIs of one simulated node (used by check --validate too). */
void ac_report_sim_node_json(ac_jsonw *w, const ac_sim_node_result *r)
{
    estimate(w, "arrival_rate", &r->arrival_rate);
    estimate(w, "throughput", &r->throughput);
    estimate(w, "utilization", &r->utilization);
    estimate(w, "loss_probability", &r->loss_probability);
    estimate(w, "mean_jobs", &r->mean_jobs);
    estimate(w, "mean_response_time", &r->mean_response_time);
    estimate(w, "p50_response_time", &r->p50_response_time);
    estimate(w, "p95_response_time", &r->p95_response_time);
    estimate(w, "p99_response_time", &r->p99_response_time);
    estimate(w, "timeout_fraction", &r->timeout_fraction);
    estimate(w, "retries_per_job", &r->retries_per_job);
    estimate(w, "failure_probability", &r->failure_probability);
    estimate(w, "attempt_rate", &r->attempt_rate);
    estimate(w, "attempt_loss_fraction", &r->attempt_loss_fraction);
    if (r->is_link)
        return;
    switch (r->kind) {
    case AC_NODE_FUNCTION:
        estimate(w, "throttle_fraction", &r->throttle_fraction);
        estimate(w, "cold_start_fraction", &r->cold_start_fraction);
        estimate(w, "mean_instances", &r->mean_instances);
        break;
    case AC_NODE_QUEUE:
        estimate(w, "dead_letter_fraction", &r->dead_letter_fraction);
        estimate(w, "backlog_fraction", &r->backlog_fraction);
        break;
    case AC_NODE_GATEWAY: estimate(w, "reject_fraction", &r->throttle_fraction); break;
    case AC_NODE_POOL: break;
    }
}

static void entry_json(ac_jsonw *w, const ac_sim_entry_result *e)
{
    estimate(w, "arrival_rate", &e->arrival_rate);
    estimate(w, "throughput", &e->throughput);
    estimate(w, "mean_response_time", &e->mean_response_time);
    estimate(w, "p50_response_time", &e->p50_response_time);
    estimate(w, "p95_response_time", &e->p95_response_time);
    estimate(w, "p99_response_time", &e->p99_response_time);
    estimate(w, "loss_probability", &e->failure_probability);
}

int ac_report_simulation_json(FILE *fp, const ac_report_file *rf, const ac_sim_result *r)
{
    ac_jsonw w;
    const ac_model *m = rf->model;
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_report_json_header(&w, rf->file, rf->sha256, &r->seed);
    ac_jsonw_key(&w, "replications");
    ac_jsonw_uint(&w, r->replications);
    ac_jsonw_key(&w, "events");
    ac_jsonw_uint(&w, r->events);
    ac_jsonw_key(&w, "horizon");
    ac_jsonw_double(&w, r->horizon);
    ac_jsonw_key(&w, "warmup");
    ac_jsonw_double(&w, r->warmup);
    ac_jsonw_key(&w, "warmup_rule");
    ac_jsonw_string(&w, ac_sim_warmup_rule_name(r->warmup_rule));
    ac_jsonw_key(&w, "relative_half_width");
    ac_jsonw_double(&w, r->rel_halfwidth);
    ac_jsonw_key(&w, "converged");
    ac_jsonw_bool(&w, r->converged);
    ac_jsonw_key(&w, "budget_limited");
    ac_jsonw_bool(&w, r->budget_limited);
    ac_jsonw_key(&w, "nodes");
    ac_jsonw_array_begin(&w);
    for (size_t i = 0; i < r->nnodes; i++) {
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "id");
        ac_jsonw_string(&w, r->nodes[i].id);
        ac_jsonw_key(&w, "kind");
        ac_jsonw_string(&w, ac_node_kind_name(m->nodes[i].kind));
        ac_jsonw_key(&w, "approximation");
        ac_jsonw_string(&w, "simulation");
        ac_report_sim_node_json(&w, &r->nodes[i]);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    if (r->nlinks > 0) {
        ac_jsonw_key(&w, "links");
        ac_jsonw_array_begin(&w);
        for (size_t i = 0; i < r->nlinks; i++) {
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "id");
            ac_jsonw_string(&w, r->links[i].id);
            ac_report_sim_node_json(&w, &r->links[i]);
            ac_jsonw_object_end(&w);
        }
        ac_jsonw_array_end(&w);
    }
    if (r->nentries == 1) {
        ac_jsonw_key(&w, "end_to_end");
        ac_jsonw_object_begin(&w);
        entry_json(&w, &r->entries[0]);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_key(&w, "workloads");
    ac_jsonw_array_begin(&w);
    for (size_t i = 0; i < r->nentries; i++) {
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "id");
        ac_jsonw_string(&w, r->entries[i].id);
        ac_jsonw_key(&w, "kind");
        ac_jsonw_string(&w, r->entries[i].is_population ? "population" : "source");
        entry_json(&w, &r->entries[i]);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return ferror(fp) ? AC_EIO : AC_OK;
}

static void cell(FILE *fp, const ac_sim_estimate *e, double unit)
{
    char buf[48];
    if (e->n == 0 || !isfinite(e->mean))
        snprintf(buf, sizeof buf, "-");
    else if (isfinite(e->ci95))
        snprintf(buf, sizeof buf, "%.4g+-%.2g", e->mean * unit, e->ci95 * unit);
    else
        snprintf(buf, sizeof buf, "%.4g", e->mean * unit);
    fprintf(fp, " %18s", buf);
}

/* An estimate without padding: "0.0248 +- 0.009". */
static void value(FILE *fp, const char *label, const ac_sim_estimate *e)
{
    if (e->n == 0 || !isfinite(e->mean))
        fprintf(fp, "%s%s -", label[0] == ';' ? "" : " ", label);
    else if (isfinite(e->ci95))
        fprintf(fp, "%s%s %.4g +- %.2g", label[0] == ';' ? "" : " ", label, e->mean, e->ci95);
    else
        fprintf(fp, "%s%s %.4g", label[0] == ';' ? "" : " ", label, e->mean);
}

int ac_report_simulation_text(FILE *fp, const ac_report_file *rf, const ac_sim_result *r)
{
    fprintf(fp,
            "%s: simulated, seed %lu, %zu replications of %.6gs (warm-up %.6gs%s), %llu "
            "events%s\n\n",
            rf->file, r->seed, r->replications, r->horizon, r->warmup,
            r->warmup_rule == AC_SIM_WARMUP_SETTLING
                ? ": the settling time, the budget having shortened the horizon"
                : "",
            r->events,
            r->budget_limited ? " (the event budget limited the precision: --max-events)"
            : r->converged    ? ""
                              : " (target precision not reached)");
    fprintf(fp, "%-16s %18s %18s %18s %18s %18s\n", "node", "arrival/s", "utilization",
            "jobs/server", "mean (ms)", "p95 (ms)");
    for (size_t i = 0; i < r->nnodes; i++) {
        fprintf(fp, "%-16.16s", r->nodes[i].id);
        cell(fp, &r->nodes[i].arrival_rate, 1.0);
        cell(fp, &r->nodes[i].utilization, 1.0);
        cell(fp, &r->nodes[i].mean_jobs, 1.0);
        cell(fp, &r->nodes[i].mean_response_time, 1e3);
        cell(fp, &r->nodes[i].p95_response_time, 1e3);
        fputc('\n', fp);
    }
    for (size_t i = 0; i < r->nnodes; i++) {
        const ac_sim_node_result *n = &r->nodes[i];
        if (n->is_link || n->kind == AC_NODE_POOL)
            continue;
        fprintf(fp, "%-16.16s", n->id);
        if (n->kind == AC_NODE_FUNCTION) {
            value(fp, "throttled", &n->throttle_fraction);
            value(fp, "; cold starts", &n->cold_start_fraction);
            value(fp, "; instances alive", &n->mean_instances);
        } else if (n->kind == AC_NODE_QUEUE) {
            value(fp, "dead letters", &n->dead_letter_fraction);
            value(fp, "; time with a backlog", &n->backlog_fraction);
        } else {
            value(fp, "rejected (429)", &n->throttle_fraction);
            value(fp, "; answered 504", &n->timeout_fraction);
        }
        fputc('\n', fp);
    }
    for (size_t i = 0; i < r->nentries; i++) {
        fprintf(fp, "end to end (%s):", r->entries[i].id);
        cell(fp, &r->entries[i].throughput, 1.0);
        fputs(" /s, mean", fp);
        cell(fp, &r->entries[i].mean_response_time, 1e3);
        fputs(" ms, p99", fp);
        cell(fp, &r->entries[i].p99_response_time, 1e3);
        fputs(" ms\n", fp);
    }
    return ferror(fp) ? AC_EIO : AC_OK;
}
