/*
 * Autoscaler tuning, the simulator's word (analysis/tune_internal.h): a candidate simulated
 * with its autoscalers over the profile, each check's simulated value and 95% interval
 * against its limit.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/tune_internal.h"

/* An estimate's mean and half-width (NAN when it has none). */
static double est(const ac_sim_estimate *e, double *ci)
{
    *ci = e->n > 0 ? e->ci95 : NAN;
    return e->n > 0 ? e->mean : NAN;
}

/* The largest over the entries of a KPI (its half-width with it). */
static double entries_max(const ac_sim_result *res, size_t off, double *ci)
{
    double v = NAN;
    *ci = NAN;
    for (size_t i = 0; i < res->nentries; i++) {
        const ac_sim_estimate *e =
            (const ac_sim_estimate *)(const void *)((const char *)&res->entries[i] + off);
        if (e->n > 0 && !(e->mean <= v)) {
            v = e->mean;
            *ci = e->ci95;
        }
    }
    return v;
}

static size_t latency_off(double pct, int entry)
{
    if (entry)
        return pct == 50.0   ? offsetof(ac_sim_entry_result, p50_response_time)
               : pct == 95.0 ? offsetof(ac_sim_entry_result, p95_response_time)
               : pct == 99.0 ? offsetof(ac_sim_entry_result, p99_response_time)
                             : offsetof(ac_sim_entry_result, mean_response_time);
    return pct == 50.0   ? offsetof(ac_sim_node_result, p50_response_time)
           : pct == 95.0 ? offsetof(ac_sim_node_result, p95_response_time)
           : pct == 99.0 ? offsetof(ac_sim_node_result, p99_response_time)
                         : offsetof(ac_sim_node_result, mean_response_time);
}

/* The simulated value of spec k (NAN: the simulator does not measure it). */
static double sim_value(const tune_ctx *c, const ac_model *m, const ac_sim_result *res,
                        const check_spec *k, const ac_tune_eval *fl, size_t idx, double *ci)
{
    int measured = k->percentile == 0.0 || k->percentile == 50.0 || k->percentile == 95.0 ||
                   k->percentile == 99.0;
    double v = NAN, var = 0.0, e;
    *ci = NAN;
    switch (k->kind) {
    case S_LAT_NODE:
        if (!measured)
            return NAN;
        return est((const ac_sim_estimate *)(const void *)((const char *)&res->nodes[k->node] +
                                                           latency_off(k->percentile, 0)),
                   ci);
    case S_LAT_E2E: return measured ? entries_max(res, latency_off(k->percentile, 1), ci) : NAN;
    case S_UTIL_NODE: return est(&res->nodes[k->node].utilization, ci);
    case S_UTIL_ALL:
        for (size_t i = 0; i < res->nnodes; i++) {
            double ci_i, u = est(&res->nodes[i].utilization, &ci_i);
            if (!isnan(u) && !(u <= v)) {
                v = u;
                *ci = ci_i;
            }
        }
        return v;
    case S_LOSS_NODE: return est(&res->nodes[k->node].loss_probability, ci);
    case S_LOSS_E2E:
        return entries_max(res, offsetof(ac_sim_entry_result, failure_probability), ci);
    case S_ACTIONS:
    case S_HOURS:
        v = 0.0;
        for (size_t i = 0; i < res->nnodes; i++) {
            const ac_sim_node_result *n = &res->nodes[i];
            if (m->nodes[i].kind != AC_NODE_POOL || (k->node != AC_NONE && k->node != i))
                continue;
            if (k->kind == S_ACTIONS) {
                if (n->scaling_actions.n == 0)
                    continue;
                v += n->scaling_actions.mean;
                var += n->scaling_actions.ci95 * n->scaling_actions.ci95;
            } else if (n->server_seconds.n > 0) {
                v += n->server_seconds.mean / 3600.0;
                var += pow(n->server_seconds.ci95 / 3600.0, 2);
            } else {
                v += (double)m->nodes[i].u.pool.servers * c->H / 3600.0;
            }
        }
        *ci = sqrt(var);
        return v;
    default:
        e = fl->checks[idx].value;
        *ci = 0.0;
        return e;
    }
}

/* About the events a simulation of the transient tr's setting needs (two per job visit). */
double ac_an_tune_sim_events(const tune_ctx *c, const ac_transient *tr)
{
    double jobs = 0.0;
    for (size_t i = 0; i < tr->nnodes; i++)
        jobs += ac_an_tune_trapz(tr, tr->nodes[i].arrival_rate);
    return 2.0 * jobs / c->H * (c->opt->warmup + c->H) * (double)c->opt->replications;
}

/* Simulate job 0's model (the candidate applied) over the profile: 1 every interval on the
 * right side, -1 one wholly on the wrong side, 0 undecided or not run (why in note). */
int ac_an_tune_simulate(const tune_ctx *c, tune_job *j, ac_tune_eval *ev, int *out, char *note,
                        size_t nsize, ac_error *err)
{
    const ac_transient *tr = j->tr;
    ac_sim_options so;
    ac_sim_result *res = NULL;
    double need = ac_an_tune_sim_events(c, tr);
    int rc, side = 1;
    *out = 0;
    if (need > (double)c->opt->max_events) {
        snprintf(note, nsize,
                 "a margin is within its stated error and the simulation would need about "
                 "%.3g events (budget %llu)",
                 need, c->opt->max_events);
        return AC_OK;
    }
    ac_sim_options_init(&so);
    so.seed = c->opt->seed;
    so.replications = c->opt->replications;
    so.warmup = c->opt->warmup;
    so.horizon = c->opt->warmup + c->H;
    so.profile_offset = c->opt->warmup;
    so.use_profiles = 1;
    so.autoscale = 1;
    so.max_events = c->opt->max_events;
    so.jobs = c->njobs;
    rc = ac_sim_run(j->m, &so, &res, err);
    if (rc == AC_ELIMIT || rc == AC_EINVAL) {
        snprintf(note, nsize, "the simulation %s: %.150s",
                 rc == AC_ELIMIT ? "exceeded its budget" : "refused the model", err->message);
        memset(err, 0, sizeof *err);
        return AC_OK;
    }
    if (rc != AC_OK)
        return rc;
    ev->nsim = ev->nchecks;
    for (size_t k = 0; k < ev->nchecks; k++) {
        ac_tune_check *s = &ev->sim[k];
        *s = ev->checks[k];
        s->value = sim_value(c, j->m, res, &c->specs[k], ev, k, &s->ci95);
        s->rel_error = 0.0;
        if (isnan(s->value) || isnan(s->ci95)) {
            s->pass = 0;
            side = side < 0 ? -1 : 0;
            continue;
        }
        s->pass = s->upper ? s->value + s->ci95 <= s->limit : s->value - s->ci95 >= s->limit;
        if (s->upper ? s->value - s->ci95 > s->limit : s->value + s->ci95 < s->limit)
            side = -1;
        else if (!s->pass && side > 0)
            side = 0;
    }
    if (side == 0)
        snprintf(note, nsize, "the simulation's intervals straddle a limit");
    ac_sim_result_free(res);
    *out = side;
    return AC_OK;
}
