/*
 * JSON output (doc/archcheck.1): keys in snake_case, quantities in SI units.
 * Keys that do not apply (or whose value is not finite) are left out.
 */
#include <math.h>

#include "archcheck/report.h"
#include "common/jsonw.h"
#include "report/internal.h"

static void key_double(ac_jsonw *w, const char *key, double v)
{
    if (!isfinite(v))
        return;
    ac_jsonw_key(w, key);
    ac_jsonw_double(w, v);
}

void ac_report_json_header(ac_jsonw *w, const char *file, const char *sha256,
                           const unsigned long *seed)
{
    ac_jsonw_key(w, "archcheck");
    ac_jsonw_string(w, AC_VERSION);
    ac_jsonw_key(w, "file");
    ac_jsonw_string(w, file);
    if (sha256 != NULL) {
        ac_jsonw_key(w, "sha256");
        ac_jsonw_string(w, sha256);
    }
    if (seed != NULL) {
        ac_jsonw_key(w, "seed");
        ac_jsonw_uint(w, *seed);
    }
}

static void write_findings(ac_jsonw *w, const ac_report_file *rf)
{
    ac_jsonw_key(w, "findings");
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *d = &rf->diags->items[i];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "rule");
        ac_jsonw_string(w, d->rule);
        ac_jsonw_key(w, "severity");
        ac_jsonw_string(w, ac_severity_name(d->severity));
        ac_jsonw_key(w, "message");
        ac_jsonw_string(w, d->message);
        if (d->detail != NULL) {
            ac_jsonw_key(w, "detail");
            ac_jsonw_string(w, d->detail);
        }
        ac_jsonw_key(w, "file");
        ac_jsonw_string(w, d->file);
        ac_jsonw_key(w, "line");
        ac_jsonw_uint(w, d->line);
        ac_jsonw_key(w, "column");
        ac_jsonw_uint(w, d->column);
        if (d->node != NULL) {
            ac_jsonw_key(w, "node");
            ac_jsonw_string(w, d->node);
        }
        if (d->suppressed) {
            ac_jsonw_key(w, "suppressed");
            ac_jsonw_bool(w, 1);
            ac_jsonw_key(w, "suppression_reason");
            ac_jsonw_string(w, d->suppress_reason);
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void write_equilibria(ac_jsonw *w, const ac_solver_pool_result *r)
{
    ac_jsonw_key(w, "equilibria");
    ac_jsonw_array_begin(w);
    for (size_t e = 0; e < r->nequilibria; e++) {
        const ac_solver_equilibrium *eq = &r->equilibria[e];
        const ac_solver_kpi *k = eq->has_refined ? &eq->refined : &eq->mean_field;
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "stable");
        ac_jsonw_bool(w, eq->stable);
        key_double(w, "max_real_eigenvalue", eq->max_real_eigenvalue);
        key_double(w, "relaxation_time", eq->relaxation_time);
        if (eq->lyapunov_solved) {
            ac_jsonw_key(w, "lyapunov_positive_definite");
            ac_jsonw_bool(w, eq->lyapunov_pd);
        }
        key_double(w, "mean_jobs", k->mean_jobs);
        key_double(w, "mean_jobs_std", eq->mean_jobs_std);
        key_double(w, "mean_response_time", k->mean_response_time);
        key_double(w, "timeout_fraction", k->timeout_fraction);
        key_double(w, "effective_arrival_rate", k->effective_arrival_rate);
        ac_jsonw_key(w, "operating");
        ac_jsonw_bool(w, e == r->operating);
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static const char *fn_mode_name(ac_solver_fn_mode mode)
{
    switch (mode) {
    case AC_SOLVER_FN_ASYNC: return "async";
    case AC_SOLVER_FN_POLLED: return "polled";
    default: return "sync";
    }
}

/* The serverless stages' own numbers (include/archcheck/serverless.h). */
static void write_serverless(ac_jsonw *w, const ac_node_analysis *na)
{
    if (na->function != NULL) {
        const ac_solver_function_result *f = na->function;
        ac_jsonw_key(w, "function");
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "invocation");
        ac_jsonw_string(w, fn_mode_name(f->mode));
        ac_jsonw_key(w, "concurrency");
        ac_jsonw_uint(w, f->concurrency);
        key_double(w, "busy_instances", f->busy);
        key_double(w, "offered_load", f->load);
        key_double(w, "execution_rate", f->execution_rate);
        key_double(w, "occupancy", f->occupancy);
        key_double(w, "throttle_probability", f->throttle_probability);
        key_double(w, "throttle_probability_abs_error", f->throttle_abs_error);
        key_double(w, "scale_rate_throttle", f->scale_throttle);
        key_double(w, "execution_failure_probability", f->execution_failure);
        key_double(w, "cold_start_probability", f->cold_probability);
        key_double(w, "cold_start_rate", f->cold_start_rate);
        if (f->mode == AC_SOLVER_FN_ASYNC) {
            key_double(w, "wait_probability", f->wait_probability);
            key_double(w, "mean_wait", f->mean_wait);
        }
        ac_jsonw_object_end(w);
    }
    if (na->queue != NULL) {
        const ac_solver_queue_result *q = na->queue;
        ac_jsonw_key(w, "queue");
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "consumer_slots");
        ac_jsonw_uint(w, q->slots);
        key_double(w, "consumer_load", q->load);
        key_double(w, "execution_rate", q->execution_rate);
        key_double(w, "delivery_failure_probability", q->delivery_failure);
        key_double(w, "receives_per_message", q->receives);
        key_double(w, "reject_probability", q->reject_probability);
        key_double(w, "dead_letter_probability", q->dead_letter_probability);
        key_double(w, "wait_probability", q->wait_probability);
        key_double(w, "mean_messages", q->mean_messages);
        ac_jsonw_key(w, "batching_backlog");
        ac_jsonw_bool(w, q->batching);
        ac_jsonw_object_end(w);
    }
    if (na->gateway != NULL) {
        const ac_solver_gateway_result *g = na->gateway;
        ac_jsonw_key(w, "gateway");
        ac_jsonw_object_begin(w);
        key_double(w, "rate_limit", g->rate_limit);
        ac_jsonw_key(w, "bucket");
        ac_jsonw_uint(w, g->bucket);
        key_double(w, "reject_probability", g->reject_probability);
        key_double(w, "reject_probability_abs_error", g->expected_abs_error);
        key_double(w, "mean_tokens_in_use", g->mean_deficit);
        ac_jsonw_key(w, "upper_bound");
        ac_jsonw_bool(w, g->bound);
        ac_jsonw_object_end(w);
    }
}

static void write_nodes(ac_jsonw *w, const ac_model *m, const ac_analysis *a)
{
    ac_jsonw_key(w, "nodes");
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "id");
        ac_jsonw_string(w, m->nodes[i].id);
        ac_jsonw_key(w, "kind");
        ac_jsonw_string(w, ac_node_kind_name(m->nodes[i].kind));
        ac_jsonw_key(w, "analysed");
        ac_jsonw_bool(w, na->analysed);
        key_double(w, "arrival_rate", na->arrival_rate);
        if (na->analysed && na->servers > 0) {
            ac_jsonw_key(w, "servers");
            ac_jsonw_uint(w, na->servers);
        }
        if (na->analysed) {
            if (na->overload) {
                ac_jsonw_key(w, "overload");
                ac_jsonw_bool(w, 1);
            }
            key_double(w, "throughput", na->throughput);
            key_double(w, "utilization", na->utilization);
            key_double(w, "loss_probability", na->loss_probability);
            key_double(w, "mean_jobs", na->mean_jobs);
            key_double(w, "mean_response_time", na->mean_response_time);
            key_double(w, "p50_response_time", na->p50);
            key_double(w, "p95_response_time", na->p95);
            key_double(w, "p99_response_time", na->p99);
            ac_jsonw_key(w, "approximation");
            ac_jsonw_string(w, ac_node_analysis_approximation(na));
            key_double(w, "expected_relative_error", na->expected_rel_error);
            key_double(w, "loss_absolute_error", na->loss_abs_error);
            if (a->sim != NULL && i < a->sim->nnodes) {
                ac_jsonw_key(w, "simulation");
                ac_jsonw_object_begin(w);
                ac_report_sim_node_json(w, &a->sim->nodes[i]);
                if (a->sim->nodes[i].mean_jobs.n > 0 && isfinite(na->mean_jobs) &&
                    a->sim->nodes[i].mean_jobs.mean > 0.0)
                    key_double(w, "relative_error_mean_jobs",
                               (na->mean_jobs - a->sim->nodes[i].mean_jobs.mean) /
                                   a->sim->nodes[i].mean_jobs.mean);
                if (a->sim->nodes[i].mean_response_time.n > 0 && isfinite(na->mean_response_time) &&
                    a->sim->nodes[i].mean_response_time.mean > 0.0)
                    key_double(w, "relative_error_mean_response_time",
                               (na->mean_response_time - a->sim->nodes[i].mean_response_time.mean) /
                                   a->sim->nodes[i].mean_response_time.mean);
                ac_jsonw_object_end(w);
            }
            if (na->basin_checked) {
                ac_jsonw_key(w, "metastability_simulation");
                ac_jsonw_object_begin(w);
                key_double(w, "from_empty_mean_jobs", na->basin_good.mean);
                key_double(w, "from_empty_mean_jobs_ci95", na->basin_good.ci95);
                ac_jsonw_key(w, "stays_good");
                ac_jsonw_bool(w, na->stays_good);
                key_double(w, "from_bad_mean_jobs", na->basin_bad.mean);
                key_double(w, "from_bad_mean_jobs_ci95", na->basin_bad.ci95);
                ac_jsonw_key(w, "stays_bad");
                ac_jsonw_bool(w, na->stays_bad);
                if (na->burst_checked) {
                    key_double(w, "burst_scale", na->burst_scale);
                    ac_jsonw_key(w, "burst_runs");
                    ac_jsonw_uint(w, na->burst_runs);
                    ac_jsonw_key(w, "burst_runs_tipped");
                    ac_jsonw_uint(w, na->burst_tipped);
                }
                ac_jsonw_object_end(w);
            }
            write_serverless(w, na);
            if (na->pool != NULL) {
                ac_jsonw_key(w, "truncation");
                ac_jsonw_uint(w, na->pool->truncation);
                key_double(w, "tail_mass", na->pool->tail_mass);
                write_equilibria(w, na->pool);
                if (na->pool->bistable) {
                    ac_jsonw_key(w, "metastable");
                    ac_jsonw_object_begin(w);
                    ac_jsonw_key(w, "good_equilibrium");
                    ac_jsonw_uint(w, na->pool->good);
                    ac_jsonw_key(w, "bad_equilibrium");
                    ac_jsonw_uint(w, na->pool->bad);
                    key_double(w, "smallest_burst_extra_rate", na->pool->smallest_burst.extra_rate);
                    key_double(w, "smallest_burst_duration", na->pool->smallest_burst.duration);
                    key_double(w, "smallest_burst_jobs", na->pool->smallest_burst.jobs);
                    ac_jsonw_object_end(w);
                }
            }
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void write_checks(ac_jsonw *w, const ac_model *m, const ac_analysis *a)
{
    ac_jsonw_key(w, "checks");
    ac_jsonw_array_begin(w);
    for (size_t k = 0; k < a->nchecks; k++) {
        const ac_check *c = &a->checks[k];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "name");
        ac_jsonw_string(w, c->name);
        ac_jsonw_key(w, "status");
        ac_jsonw_string(w, ac_check_status_name(c->status));
        if (c->status != AC_CHECK_PASS) {
            ac_jsonw_key(w, "rule");
            ac_jsonw_string(w, c->rule);
        }
        if (c->has_value) {
            key_double(w, "value", c->value);
            key_double(w, "limit", c->limit);
            if (isnan(c->rel_error) && isnan(c->abs_error)) {
                /* no stated error (a resilience check's fluid score): null, never 0 */
                ac_jsonw_key(w, "expected_relative_error");
                ac_jsonw_null(w);
                ac_jsonw_key(w, "expected_absolute_error");
                ac_jsonw_null(w);
            } else {
                key_double(w, "expected_relative_error", c->rel_error);
                key_double(w, "expected_absolute_error", c->abs_error);
            }
        }
        if (c->has_sim) {
            key_double(w, "simulation_value", c->sim_value);
            key_double(w, "simulation_value_ci95", c->sim_ci95);
            if (c->sim_level > 0.0 && c->sim_level != 0.95) {
                /* the interval that judged it (models.md §7, the sequential rule) */
                key_double(w, "simulation_level", c->sim_level);
                key_double(w, "simulation_half_width", c->sim_halfwidth);
            }
            ac_jsonw_key(w, "settled_by_simulation");
            ac_jsonw_bool(w, c->settled_by_simulation);
        }
        if (c->node != AC_NONE) {
            ac_jsonw_key(w, "node");
            ac_jsonw_string(w, m->nodes[c->node].id);
        }
        ac_jsonw_key(w, "line");
        ac_jsonw_uint(w, c->loc.line);
        if (c->suppressed) {
            ac_jsonw_key(w, "suppressed");
            ac_jsonw_bool(w, 1);
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void write_analysis(ac_jsonw *w, const ac_model *m, const ac_analysis *a)
{
    write_nodes(w, m, a);
    if (a->e2e.available) {
        ac_jsonw_key(w, "end_to_end");
        ac_jsonw_object_begin(w);
        key_double(w, "throughput", a->e2e.throughput);
        key_double(w, "mean_response_time", a->e2e.mean_response_time);
        if (a->e2e.percentiles) {
            key_double(w, "p50_response_time", a->e2e.p50);
            key_double(w, "p95_response_time", a->e2e.p95);
            key_double(w, "p99_response_time", a->e2e.p99);
        }
        key_double(w, "loss_probability", a->e2e.loss_probability);
        key_double(w, "expected_relative_error", a->e2e.expected_rel_error);
        key_double(w, "loss_absolute_error", a->e2e.loss_abs_error);
        ac_jsonw_object_end(w);
    }
    if (a->has_headroom) {
        ac_jsonw_key(w, "headroom");
        ac_jsonw_object_begin(w);
        key_double(w, "factor", a->headroom);
        if (a->headroom_node != AC_NONE) {
            ac_jsonw_key(w, "bottleneck");
            ac_jsonw_string(w, m->nodes[a->headroom_node].id);
        }
        ac_jsonw_key(w, "binding");
        ac_jsonw_string(w, a->headroom_binding);
        ac_jsonw_object_end(w);
    }
    write_checks(w, m, a);
    if (a->sim != NULL) {
        ac_jsonw_key(w, "validation");
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "replications");
        ac_jsonw_uint(w, a->sim->replications);
        ac_jsonw_key(w, "events");
        ac_jsonw_uint(w, a->sim->events);
        ac_jsonw_key(w, "seed");
        ac_jsonw_uint(w, a->sim->seed);
        key_double(w, "horizon", a->sim->horizon);
        key_double(w, "warmup", a->sim->warmup);
        ac_jsonw_key(w, "warmup_rule");
        ac_jsonw_string(w, ac_sim_warmup_rule_name(a->sim->warmup_rule));
        ac_jsonw_key(w, "budget_limited");
        ac_jsonw_bool(w, a->sim->budget_limited);
        key_double(w, "relative_half_width", a->sim->rel_halfwidth);
        ac_jsonw_key(w, "converged");
        ac_jsonw_bool(w, a->sim->converged);
        if (a->sim_level > 0.0 && a->sim_level != 0.95) {
            /* the sequential rule: the look that stopped it (0: the ordinary stop) */
            ac_jsonw_key(w, "stopped_at_look");
            ac_jsonw_uint(w, a->sim->stopped_at_look);
            key_double(w, "level", a->sim_level);
        }
        ac_jsonw_object_end(w);
    } else if (a->sim_note[0] != '\0') {
        ac_jsonw_key(w, "validation");
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "skipped");
        ac_jsonw_string(w, a->sim_note);
        ac_jsonw_object_end(w);
    }
}

/* A file's members (in the object being written). */
static void write_file_members(ac_jsonw *w, const ac_report_run *run, const ac_report_file *rf)
{
    ac_report_json_header(w, rf->file, rf->sha256[0] != '\0' ? rf->sha256 : NULL,
                          run->has_seed ? &run->seed : NULL);
    /* invalid input: "invalid" (exit status 2), input_valid false */
    ac_jsonw_key(w, "verdict");
    ac_jsonw_string(w, ac_verdict_name(rf->verdict));
    ac_jsonw_key(w, "input_valid");
    ac_jsonw_bool(w, rf->verdict != AC_VERDICT_INVALID);
    write_findings(w, rf);
    if (rf->analysis != NULL && rf->model != NULL)
        write_analysis(w, rf->model, rf->analysis);
    if (rf->sizing != NULL && rf->model != NULL)
        ac_report_sizing_json(w, rf);
}

int ac_report_json(FILE *fp, const ac_report_run *run)
{
    ac_jsonw w;
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    if (run->nfiles == 1) {
        write_file_members(&w, run, &run->files[0]);
    } else {
        ac_jsonw_key(&w, "archcheck");
        ac_jsonw_string(&w, AC_VERSION);
        ac_jsonw_key(&w, "verdict");
        ac_jsonw_string(&w, ac_verdict_name(ac_report_run_verdict(run)));
    }
    if (run->has_exit_status) {
        ac_jsonw_key(&w, "exit_status");
        ac_jsonw_uint(&w, (unsigned long long)run->exit_status);
    }
    ac_jsonw_key(&w, "files");
    ac_jsonw_array_begin(&w);
    for (size_t f = 0; f < run->nfiles; f++) {
        ac_jsonw_object_begin(&w);
        write_file_members(&w, run, &run->files[f]);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return ferror(fp) ? AC_EIO : AC_OK;
}
