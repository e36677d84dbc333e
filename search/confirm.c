/*
 * Confirmation of a worst case by simulation (include/archcheck/search.h): the plan re-run in
 * the simulator, the objective's score per replication from the simulator's KPIs, its mean
 * with a Student t 95% interval.
 *
 * Replication r is one ac_sim_run of one replication seeded ac_sim_seed_mix(seed, r): the
 * run is [0, W + H], measured over [W, W + H], the profiles read at t - W (their rate of t
 * = 0 before: the system settles there as the fluid's fixed point), the plan's windows
 * shifted by W. Scoring each replication on its own (instead of combining the estimates of
 * the terms) keeps the correlation between the terms in the interval.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "archcheck/search.h"
#include "archcheck/sim.h"

void ac_search_confirm_options_init(ac_search_confirm_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->replications = 10;
    opt->warmup = 0.0;
    opt->seed = 1;
    opt->max_events = 50000000ULL;
}

int ac_search_confirm_side(const ac_search_confirmation *c, double tau)
{
    if (!c->computed)
        return 0;
    if (c->score - c->ci95 >= tau)
        return 1;
    if (c->score + c->ci95 < tau)
        return -1;
    return 0;
}

/* The default warm-up: max(60 s, 100 x the longest service, execution + cold start, or
 * visibility timeout of the model). */
static double default_warmup(const ac_model *m)
{
    double tau = 0.0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        if (nd->kind == AC_NODE_POOL && nd->u.pool.service_rate > 0.0)
            tau = fmax(tau, 1.0 / nd->u.pool.service_rate);
        else if (nd->kind == AC_NODE_FUNCTION)
            tau = fmax(tau, nd->u.function.duration + nd->u.function.cold_start);
        else if (nd->kind == AC_NODE_QUEUE)
            tau = fmax(tau, nd->u.queue.visibility_timeout);
    }
    return fmax(60.0, 100.0 * tau);
}

double ac_search_confirm_events_min(const ac_model *model, const double *node_rates,
                                    double scale, double horizon,
                                    const ac_search_confirm_options *opt)
{
    ac_search_confirm_options o;
    double rate = 0.0, warmup;
    if (opt != NULL)
        o = *opt;
    else
        ac_search_confirm_options_init(&o);
    if (model == NULL || node_rates == NULL)
        return 0.0;
    warmup = o.warmup > 0.0 ? o.warmup : default_warmup(model);
    for (size_t i = 0; i < model->nnodes; i++)
        if (node_rates[i] > 0.0 && isfinite(node_rates[i]))
            rate += node_rates[i];
    return rate * scale * (warmup + horizon) * (double)o.replications;
}

/* A node's value of one metric from a one-replication result; NAN where undefined. */
static double node_value(const ac_model *m, const ac_sim_result *r, ac_metric metric, size_t i,
                         double window)
{
    const ac_sim_node_result *n = &r->nodes[i];
    const ac_node *nd = &m->nodes[i];
    switch (metric) {
    case AC_METRIC_ERROR_RATE:
    case AC_METRIC_LOSS: return n->loss_probability.mean;
    case AC_METRIC_THROTTLE_RATE:
        if (nd->kind == AC_NODE_GATEWAY ||
            (nd->kind == AC_NODE_FUNCTION && nd->u.function.invocation == AC_INVOCATION_SYNC))
            return n->throttle_fraction.mean;
        return NAN;
    case AC_METRIC_BACKLOG_DURATION:
        return nd->kind == AC_NODE_QUEUE ? n->backlog_fraction.mean * window : NAN;
    case AC_METRIC_UTILIZATION: return n->utilization.mean;
    case AC_METRIC_P95_LATENCY: return n->p95_response_time.mean;
    case AC_METRIC_P99_LATENCY: return n->p99_response_time.mean;
    }
    return NAN;
}

/* A term's value: its node's, or the largest over the nodes (latencies: the sources); 0 when
 * none has it (as the fluid objective). */
static double term_value(const ac_model *m, const ac_sim_result *r, ac_metric metric, size_t target,
                         double window)
{
    double best = 0.0;
    if (target != AC_NONE) {
        double v = node_value(m, r, metric, target, window);
        return isnan(v) ? 0.0 : v;
    }
    if (metric == AC_METRIC_P95_LATENCY || metric == AC_METRIC_P99_LATENCY) {
        for (size_t k = 0; k < r->nentries; k++) {
            double v = metric == AC_METRIC_P95_LATENCY ? r->entries[k].p95_response_time.mean
                                                       : r->entries[k].p99_response_time.mean;
            if (!isnan(v) && v > best)
                best = v;
        }
        return best;
    }
    for (size_t i = 0; i < r->nnodes; i++) {
        double v = node_value(m, r, metric, i, window);
        if (!isnan(v) && v > best)
            best = v;
    }
    return best;
}

/* The metric and target of term i (model->faults, or the default single term); the reason
 * when the simulator cannot measure it. */
static const char *term_def(const ac_model *m, size_t nterms, size_t i, ac_metric *metric,
                            size_t *target)
{
    const ac_faults *fs = &m->faults;
    if (!(fs->has_objective && fs->nterms > 0)) {
        if (nterms != 1)
            return "the default objective's terms are not known to the confirmation";
        *metric = AC_METRIC_ERROR_RATE;
        *target = AC_NONE;
        return NULL;
    }
    if (fs->nterms != nterms)
        return "the objective's terms do not match the model's <objective>";
    *metric = fs->terms[i].metric;
    *target = fs->terms[i].target;
    if (*metric != AC_METRIC_BACKLOG_DURATION)
        return NULL;
    if (*target != AC_NONE)
        return m->nodes[*target].kind == AC_NODE_QUEUE
                   ? NULL
                   : "the simulator does not measure a function's backlog duration";
    for (size_t k = 0; k < m->nnodes; k++)
        if (m->nodes[k].kind == AC_NODE_FUNCTION &&
            m->nodes[k].u.function.invocation != AC_INVOCATION_SYNC)
            return "the simulator does not measure a function's backlog duration (end to end)";
    return NULL;
}

/* The score of one replication. */
static double rep_score(const ac_model *m, const ac_sim_result *r, const ac_search_term_value *t,
                        size_t nterms, double window)
{
    double score = 0.0;
    for (size_t i = 0; i < nterms; i++) {
        ac_metric metric = AC_METRIC_ERROR_RATE;
        size_t target = AC_NONE;
        double v;
        (void)term_def(m, nterms, i, &metric, &target);
        v = term_value(m, r, metric, target, window);
        if (t[i].norm > 0.0)
            score += t[i].weight * fmin(1.0, fmax(0.0, v / t[i].norm));
    }
    return score;
}

static int check_args(const ac_model *model, size_t nfaults, double scale, double horizon,
                      const ac_search_term_value *terms, size_t nterms,
                      const ac_search_confirm_options *o, ac_error *err)
{
    if (model == NULL || !(scale > 0.0) || !isfinite(scale) || !(horizon > 0.0) ||
        !isfinite(horizon) || (nterms > 0 && terms == NULL) || nfaults > AC_TRANSIENT_PLAN_MAX ||
        o->replications < 2 || !(o->warmup >= 0.0) || !isfinite(o->warmup))
        return ac_error_set(err, AC_EINVAL, "confirmation: invalid arguments");
    return 0;
}

int ac_search_confirm(const ac_model *model, const ac_transient_fault *faults, size_t nfaults,
                      double scale, double horizon, const ac_search_term_value *terms,
                      size_t nterms, double fluid, const ac_search_confirm_options *opt,
                      ac_search_confirmation *out, ac_error *err)
{
    ac_search_confirm_options o;
    ac_transient_fault *shifted = NULL;
    ac_transient_plan plan;
    ac_sim_options so;
    double mean = 0.0, m2 = 0.0;
    int rc;
    if (opt != NULL)
        o = *opt;
    else
        ac_search_confirm_options_init(&o);
    memset(out, 0, sizeof *out);
    out->fluid = fluid;
    if ((rc = check_args(model, faults != NULL ? nfaults : 0, scale, horizon, terms, nterms, &o,
                         err)) != 0)
        return rc;
    for (size_t i = 0; i < nterms; i++) {
        ac_metric metric;
        size_t target;
        const char *why = term_def(model, nterms, i, &metric, &target);
        if (why != NULL) {
            snprintf(out->why, sizeof out->why, "%s", why);
            return 0;
        }
    }
    out->warmup = o.warmup > 0.0 ? o.warmup : default_warmup(model);
    out->horizon = horizon;
    if (faults == NULL)
        nfaults = 0;
    if (nfaults > 0 && (shifted = malloc(nfaults * sizeof *shifted)) == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (confirmation)");
    for (size_t k = 0; k < nfaults; k++) {
        shifted[k] = faults[k];
        shifted[k].start += out->warmup;
        shifted[k].end += out->warmup;
    }
    plan = (ac_transient_plan){nfaults, shifted};
    ac_sim_options_init(&so);
    so.replications = 1;
    so.horizon = out->warmup + horizon;
    so.warmup = out->warmup;
    so.use_profiles = 1;
    so.profile_offset = out->warmup;
    so.load_scale = scale;
    so.faults = &plan;
    so.max_events = o.max_events / o.replications;
    for (size_t r = 0; r < o.replications; r++) {
        ac_sim_result *res = NULL;
        ac_error serr = {0};
        double x, d;
        so.seed = (unsigned long)ac_sim_seed_mix(o.seed, r);
        rc = ac_sim_run(model, &so, &res, &serr);
        if (rc == AC_ELIMIT) { /* over the budget, or overloaded: no estimate */
            snprintf(out->why, sizeof out->why, "replication %zu: %.150s", r, serr.message);
            out->replications = r;
            rc = 0;
            goto cleanup;
        }
        if (rc != 0) {
            rc = ac_error_set(err, rc, "confirmation: %s", serr.message);
            goto cleanup;
        }
        out->events += res->events;
        x = rep_score(model, res, terms, nterms, horizon);
        ac_sim_result_free(res);
        d = x - mean; /* Welford */
        mean += d / (double)(r + 1);
        m2 += d * (x - mean);
    }
    out->replications = o.replications;
    out->computed = 1;
    out->score = mean;
    out->ci95 = gsl_cdf_tdist_Pinv(0.975, (double)(o.replications - 1)) *
                sqrt(m2 / (double)(o.replications - 1) / (double)o.replications);
    out->diff = mean - fluid;
cleanup:
    free(shifted);
    return rc;
}
