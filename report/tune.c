/*
 * `archcheck tune`: the tuning result as text and as JSON (doc/output.md "tune").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archcheck/report.h"
#include "common/jsonw.h"
#include "report/internal.h"

static const char *pool_id(const ac_model *m, const ac_tune_setting *s)
{
    return m->nodes[s->node].id != NULL ? m->nodes[s->node].id : "?";
}

static void text_setting(FILE *fp, const ac_model *m, const ac_tune_eval *ev, size_t npools)
{
    for (size_t k = 0; k < npools; k++) {
        const ac_tune_setting *s = &ev->pools[k];
        fprintf(fp, "    %-16s target %.3g  cooldown %.4gs  interval %.4gs  min %zu  max %zu\n",
                pool_id(m, s), s->target, s->cooldown, s->interval, s->min, s->max);
    }
}

static void text_checks(FILE *fp, const ac_tune_check *ck, size_t n, int sim)
{
    for (size_t k = 0; k < n; k++) {
        char val[64];
        if (sim)
            snprintf(val, sizeof val, "%.4g +- %.2g", ck[k].value, ck[k].ci95);
        else
            snprintf(val, sizeof val, "%.4g (+-%.0f%%)", ck[k].value, 100.0 * ck[k].rel_error);
        fprintf(fp, "    %-36s %-22s %s %.4g  %s\n", ck[k].what, val,
                ck[k].upper ? "<=" : ">=", ck[k].limit,
                ck[k].pass ? "met"
                : sim      ? "not confirmed"
                           : "VIOLATED");
    }
}

static void text_eval(FILE *fp, const ac_model *m, const char *title, const ac_tune_eval *ev,
                      size_t npools)
{
    fprintf(fp, "%s:\n", title);
    text_setting(fp, m, ev, npools);
    if (!ev->computed) {
        fprintf(fp, "    (the transient could not be computed)\n");
        return;
    }
    fprintf(fp,
            "    cost %.6g server-seconds (%.6g server-hours), %zu scaling actions (%zu flaps), "
            "end-to-end p95 %.4gs; %s\n",
            ev->cost, ev->server_hours, ev->actions, ev->flaps, ev->e2e_p95,
            ev->feasible ? "every requirement met on the fluid" : "a requirement violated");
    text_checks(fp, ev->checks, ev->nchecks, 0);
}

/* "met" (the margin clears the stated error), "within error", "over" (the limit). */
static const char *sla_state(const ac_tune_point *pt, const ac_tune_check *ck)
{
    if (!pt->met)
        return "over";
    return pt->value * (1.0 + ck->rel_error) <= ck->limit ? "met" : "within error";
}

/* The front's table: server-hours, the latency value, actions, met, the setting. */
static void text_front(FILE *fp, const ac_model *m, const ac_tune_result *r)
{
    const ac_tune_check *ck;
    if (r->front_check == AC_NONE || r->front_check >= r->written.nchecks) {
        fprintf(fp, "cost-vs-SLA front: none (no latency requirement)\n");
        return;
    }
    ck = &r->written.checks[r->front_check];
    fprintf(fp,
            "cost-vs-SLA front over the %s (limit %.4gs, binding as written; every other "
            "requirement met on the fluid, values +-%.0f%%): %zu point%s\n",
            ck->what, ck->limit, 100.0 * ck->rel_error, r->nfront, r->nfront == 1 ? "" : "s");
    if (r->front_cut)
        fprintf(fp,
                "    (incomplete: a thread kept its first %d non-dominated points; a budget "
                "of at most %d keeps them all)\n",
                AC_TUNE_FRONT_STORE, AC_TUNE_FRONT_STORE);
    if (r->nfront > 0)
        fprintf(fp, "    %12s %10s %8s %-12s %s\n", "server-hours", "value (s)", "actions", "SLA",
                "setting");
    for (size_t i = 0; i < r->nfront; i++) {
        const ac_tune_point *pt = &r->front[i];
        fprintf(fp, "    %12.5g %10.4g %8zu %-12s", pt->cost / 3600.0, pt->value, pt->actions,
                sla_state(pt, ck));
        for (size_t k = 0; k < r->npools; k++)
            fprintf(fp, "%s%s %.3g/%.4gs/%.4gs/%zu..%zu", k ? "; " : " ", pool_id(m, &pt->pools[k]),
                    pt->pools[k].target, pt->pools[k].cooldown, pt->pools[k].interval,
                    pt->pools[k].min, pt->pools[k].max);
        fputc('\n', fp);
    }
}

static void text_provision(FILE *fp, const ac_tune_result *r)
{
    const ac_tune_provision *p = &r->provision;
    if (p->n == 0) {
        if (p->note[0])
            fprintf(fp, "over-provisioning: %s\n", p->note);
        return;
    }
    fprintf(fp,
            "over-provisioning against the right-sized count at %zu moments (the sizing at each "
            "moment's rates): right-sized %.6g server-hours\n",
            p->n, p->needed_ss / 3600.0);
    fprintf(fp, "    as written %.6g server-hours over, %.6g under\n", p->written_over / 3600.0,
            p->written_under / 3600.0);
    if (isfinite(p->best_over))
        fprintf(fp, "    best       %.6g server-hours over, %.6g under\n", p->best_over / 3600.0,
                p->best_under / 3600.0);
    if (p->note[0])
        fprintf(fp, "    note: %s\n", p->note);
}

/* The secondary objective: the fewest scaling actions the search saw among the settings
 * meeting every requirement on the fluid. */
static void text_fewest(FILE *fp, const ac_model *m, const ac_tune_result *r)
{
    if (!r->has_fewest)
        return;
    fprintf(fp,
            "fewest scaling actions among the settings meeting every requirement (fluid, not "
            "simulated): %zu at %.6g server-hours (as written %zu",
            r->fewest.actions, r->fewest.server_hours, r->written.actions);
    if (r->confirmed != AC_TUNE_NONE)
        fprintf(fp, ", best %zu", r->best.actions);
    fprintf(fp, ")\n");
    text_setting(fp, m, &r->fewest, r->npools);
}

int ac_report_tune_text(FILE *fp, const char *file, const ac_model *model, const ac_tune_result *r)
{
    fprintf(fp, "%s: tune %zu autoscaled pool%s over the profile's %gs\n", file, r->npools,
            r->npools == 1 ? "" : "s", r->horizon);
    text_eval(fp, model, "as written", &r->written, r->npools);
    if (r->confirmed == AC_TUNE_NONE) {
        fprintf(fp, "best: no setting found that meets every requirement\n");
    } else {
        char title[96];
        snprintf(title, sizeof title, "best (%s)", ac_tune_confirm_text(r->confirmed));
        text_eval(fp, model, title, &r->best, r->npools);
        if (r->best.nsim > 0) {
            fprintf(fp, "  simulated (autoscalers running, 95%% intervals):\n");
            text_checks(fp, r->best.sim, r->best.nsim, 1);
        }
        if (isfinite(r->saving))
            fprintf(fp, "saving: %.1f%% of the server-seconds as written\n", 100.0 * r->saving);
    }
    text_fewest(fp, model, r);
    if (r->note[0])
        fprintf(fp, "note: %s\n", r->note);
    text_front(fp, model, r);
    text_provision(fp, r);
    if (r->not_judged[0])
        fprintf(fp, "not judged by tune (see `check`): %s\n", r->not_judged);
    fprintf(fp,
            "search: %zu evaluations (budget %zu), %zu generations, %zu failed, %zu simulated, "
            "%zu refused by simulation%s\n",
            r->evaluations, r->budget, r->generations, r->failures, r->simulations, r->refused,
            r->budget_exhausted ? "; budget exhausted: the best so far" : "");
    if (r->robust)
        fprintf(fp, "robust search: no simulation fits the event budget, so every margin had to "
                    "exceed its stated error\n");
    return ferror(fp) ? AC_EIO : AC_OK;
}

static void json_checks(ac_jsonw *w, const ac_tune_check *ck, size_t n, int sim)
{
    ac_jsonw_array_begin(w);
    for (size_t k = 0; k < n; k++) {
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "what");
        ac_jsonw_string(w, ck[k].what);
        ac_jsonw_key(w, "value");
        ac_jsonw_double(w, ck[k].value);
        ac_jsonw_key(w, sim ? "value_ci95" : "rel_error");
        ac_jsonw_double(w, sim ? ck[k].ci95 : ck[k].rel_error);
        ac_jsonw_key(w, ck[k].upper ? "max" : "min");
        ac_jsonw_double(w, ck[k].limit);
        ac_jsonw_key(w, "met");
        ac_jsonw_bool(w, ck[k].pass);
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void json_pools(ac_jsonw *w, const ac_model *m, const ac_tune_setting *pools, size_t npools)
{
    ac_jsonw_array_begin(w);
    for (size_t k = 0; k < npools; k++) {
        const ac_tune_setting *s = &pools[k];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "id");
        ac_jsonw_string(w, pool_id(m, s));
        ac_jsonw_key(w, "target_utilization");
        ac_jsonw_double(w, s->target);
        ac_jsonw_key(w, "cooldown");
        ac_jsonw_double(w, s->cooldown);
        ac_jsonw_key(w, "interval");
        ac_jsonw_double(w, s->interval);
        ac_jsonw_key(w, "min");
        ac_jsonw_uint(w, s->min);
        ac_jsonw_key(w, "max");
        ac_jsonw_uint(w, s->max);
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void json_eval(ac_jsonw *w, const ac_model *m, const ac_tune_eval *ev, size_t npools)
{
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "pools");
    json_pools(w, m, ev->pools, npools);
    ac_jsonw_key(w, "computed");
    ac_jsonw_bool(w, ev->computed);
    ac_jsonw_key(w, "server_seconds");
    ac_jsonw_double(w, ev->cost);
    ac_jsonw_key(w, "scaling_actions");
    ac_jsonw_uint(w, ev->actions);
    ac_jsonw_key(w, "scaling_flaps");
    ac_jsonw_uint(w, ev->flaps);
    ac_jsonw_key(w, "p95_response_time");
    ac_jsonw_double(w, ev->e2e_p95);
    ac_jsonw_key(w, "feasible");
    ac_jsonw_bool(w, ev->feasible);
    ac_jsonw_key(w, "checks");
    json_checks(w, ev->checks, ev->nchecks, 0);
    if (ev->nsim > 0) {
        ac_jsonw_key(w, "simulated");
        json_checks(w, ev->sim, ev->nsim, 1);
    }
    ac_jsonw_object_end(w);
}

static void json_front(ac_jsonw *w, const ac_model *m, const ac_tune_result *r)
{
    const ac_tune_check *ck;
    if (r->front_check == AC_NONE || r->front_check >= r->written.nchecks) {
        ac_jsonw_null(w);
        return;
    }
    ck = &r->written.checks[r->front_check];
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "requirement");
    ac_jsonw_string(w, ck->what);
    ac_jsonw_key(w, "max");
    ac_jsonw_double(w, ck->limit);
    ac_jsonw_key(w, "rel_error");
    ac_jsonw_double(w, ck->rel_error);
    ac_jsonw_key(w, "complete");
    ac_jsonw_bool(w, !r->front_cut);
    ac_jsonw_key(w, "points");
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < r->nfront; i++) {
        const ac_tune_point *pt = &r->front[i];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "server_seconds");
        ac_jsonw_double(w, pt->cost);
        ac_jsonw_key(w, "value");
        ac_jsonw_double(w, pt->value);
        ac_jsonw_key(w, "met");
        ac_jsonw_bool(w, pt->met);
        ac_jsonw_key(w, "sla");
        ac_jsonw_string(w, sla_state(pt, ck));
        ac_jsonw_key(w, "scaling_actions");
        ac_jsonw_uint(w, pt->actions);
        ac_jsonw_key(w, "pools");
        json_pools(w, m, pt->pools, r->npools);
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
    ac_jsonw_object_end(w);
}

static void json_series(ac_jsonw *w, const char *key, const double *v, size_t n)
{
    ac_jsonw_key(w, key);
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < n; i++)
        ac_jsonw_double(w, v[i]);
    ac_jsonw_array_end(w);
}

static void json_provision(ac_jsonw *w, const ac_tune_provision *p)
{
    if (p->n == 0 && p->note[0] == '\0') {
        ac_jsonw_null(w);
        return;
    }
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "moments");
    ac_jsonw_uint(w, p->n);
    ac_jsonw_key(w, "right_sized_server_seconds");
    ac_jsonw_double(w, p->n > 0 ? p->needed_ss : NAN);
    ac_jsonw_key(w, "written_over_server_seconds");
    ac_jsonw_double(w, p->n > 0 ? p->written_over : NAN);
    ac_jsonw_key(w, "written_under_server_seconds");
    ac_jsonw_double(w, p->n > 0 ? p->written_under : NAN);
    ac_jsonw_key(w, "best_over_server_seconds");
    ac_jsonw_double(w, p->n > 0 ? p->best_over : NAN);
    ac_jsonw_key(w, "best_under_server_seconds");
    ac_jsonw_double(w, p->n > 0 ? p->best_under : NAN);
    json_series(w, "t", p->t, p->n);
    json_series(w, "right_sized", p->needed, p->n);
    json_series(w, "written_servers", p->written, p->n);
    json_series(w, "best_servers", p->best, p->n);
    ac_jsonw_key(w, "note");
    ac_jsonw_string(w, p->note);
    ac_jsonw_object_end(w);
}

int ac_report_tune_json(FILE *fp, const char *file, const char *sha256, unsigned long seed,
                        const ac_model *model, const ac_tune_result *r)
{
    ac_jsonw w;
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_report_json_header(&w, file, sha256, &seed);
    ac_jsonw_key(&w, "tune");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "horizon");
    ac_jsonw_double(&w, r->horizon);
    ac_jsonw_key(&w, "confirmed");
    ac_jsonw_string(&w, ac_tune_confirm_name(r->confirmed));
    ac_jsonw_key(&w, "confirmed_by_simulation");
    ac_jsonw_bool(&w, r->confirmed == AC_TUNE_SIMULATED);
    ac_jsonw_key(&w, "written");
    json_eval(&w, model, &r->written, r->npools);
    if (r->confirmed != AC_TUNE_NONE) {
        ac_jsonw_key(&w, "best");
        json_eval(&w, model, &r->best, r->npools);
    }
    ac_jsonw_key(&w, "saving");
    ac_jsonw_double(&w, r->saving);
    if (r->has_fewest) { /* the secondary objective: fewest scaling actions (fluid) */
        ac_jsonw_key(&w, "fewest_actions");
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "actions");
        ac_jsonw_uint(&w, r->fewest.actions);
        ac_jsonw_key(&w, "server_hours");
        ac_jsonw_double(&w, r->fewest.server_hours);
        ac_jsonw_key(&w, "pools");
        json_pools(&w, model, r->fewest.pools, r->npools);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_key(&w, "budget");
    ac_jsonw_uint(&w, r->budget);
    ac_jsonw_key(&w, "evaluations");
    ac_jsonw_uint(&w, r->evaluations);
    ac_jsonw_key(&w, "generations");
    ac_jsonw_uint(&w, r->generations);
    ac_jsonw_key(&w, "budget_exhausted");
    ac_jsonw_bool(&w, r->budget_exhausted);
    ac_jsonw_key(&w, "robust");
    ac_jsonw_bool(&w, r->robust);
    ac_jsonw_key(&w, "failures");
    ac_jsonw_uint(&w, r->failures);
    ac_jsonw_key(&w, "simulations");
    ac_jsonw_uint(&w, r->simulations);
    ac_jsonw_key(&w, "refused");
    ac_jsonw_uint(&w, r->refused);
    ac_jsonw_key(&w, "not_judged");
    ac_jsonw_string(&w, r->not_judged);
    ac_jsonw_key(&w, "note");
    ac_jsonw_string(&w, r->note);
    ac_jsonw_key(&w, "front");
    json_front(&w, model, r);
    ac_jsonw_key(&w, "over_provisioning");
    json_provision(&w, &r->provision);
    ac_jsonw_object_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return ferror(fp) ? AC_EIO : AC_OK;
}
