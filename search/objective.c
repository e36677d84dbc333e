/*
 * The degradation score of <objective> (doc/format.md) on the fluid transient of a fault
 * plan (include/archcheck/search.h):
 *   S = sum_i w_i min(1, m_i / norm_i) / sum_i w_i,
 * the metrics m_i integrated over the transient's samples by trapezoids.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/search.h"

typedef struct term {
    ac_metric metric;
    size_t target; /* AC_NONE: end to end */
    double weight; /* normalised */
    double norm;   /* 0: the horizon (backlog-duration) */
} term;

struct ac_search_objective {
    const ac_model *model;
    const ac_search_space *space;
    double scale, max_scale;
    size_t jobs, nterms, nfaults;
    term *terms;
    ac_transient_ws **ws;
    ac_transient_fault *plans; /* jobs x nfaults */
};

/* int_0^T y dt by trapezoids over the samples. */
static double integral(const ac_transient *tr, const double *y)
{
    double s = 0.0;
    if (y == NULL)
        return 0.0;
    for (size_t k = 1; k < tr->nsamples; k++)
        s += 0.5 * (y[k] + y[k - 1]) * (tr->t[k] - tr->t[k - 1]);
    return s;
}

/* Jobs lost / jobs offered over the horizon; NAN when the node offers nothing. */
static double node_error_rate(const ac_transient *tr, const ac_transient_node *n)
{
    size_t last = tr->nsamples - 1;
    double offered =
        n->cum_arrivals != NULL ? n->cum_arrivals[last] : integral(tr, n->arrival_rate);
    double lost = n->cum_lost != NULL ? n->cum_lost[last] : integral(tr, n->loss_rate);
    return offered > 0.0 ? fmin(1.0, fmax(0.0, lost / offered)) : NAN;
}

/* Sync function: (r + 1) T / ((r + 1) T + E); gateway: rejected / offered; else NAN. */
static double node_throttle_rate(const ac_model *m, const ac_transient *tr, size_t i)
{
    const ac_node *nd = &m->nodes[i];
    const ac_transient_node *n = &tr->nodes[i];
    if (nd->kind == AC_NODE_FUNCTION && nd->u.function.invocation == AC_INVOCATION_SYNC &&
        n->throttle_rate != NULL) {
        double r1 = (double)nd->u.function.retries + 1.0;
        double th = r1 * integral(tr, n->throttle_rate), ex = integral(tr, n->execution_rate);
        return th + ex > 0.0 ? th / (th + ex) : 0.0;
    }
    if (nd->kind == AC_NODE_GATEWAY)
        return node_error_rate(tr, n);
    return NAN;
}

/* The time (s) the node's backlog holds one message or more (linear between samples). */
static double node_backlog_duration(const ac_transient *tr, const ac_transient_node *n)
{
    double s = 0.0;
    if (n->backlog == NULL)
        return NAN;
    for (size_t k = 1; k < tr->nsamples; k++) {
        double a = n->backlog[k - 1] - 1.0, b = n->backlog[k] - 1.0, dt = tr->t[k] - tr->t[k - 1];
        if (a >= 0.0 && b >= 0.0)
            s += dt;
        else if (a >= 0.0 || b >= 0.0)
            s += dt * fmax(a, b) / (fabs(a) + fabs(b));
    }
    return s;
}

static double node_metric(const ac_model *m, const ac_transient *tr, ac_metric metric, size_t i)
{
    const ac_transient_node *n = &tr->nodes[i];
    switch (metric) {
    case AC_METRIC_ERROR_RATE:
    case AC_METRIC_LOSS: return node_error_rate(tr, n);
    case AC_METRIC_THROTTLE_RATE: return node_throttle_rate(m, tr, i);
    case AC_METRIC_BACKLOG_DURATION: return node_backlog_duration(tr, n);
    case AC_METRIC_UTILIZATION:
        return n->utilization != NULL && tr->horizon > 0.0
                   ? integral(tr, n->utilization) / tr->horizon
                   : NAN;
    case AC_METRIC_P95_LATENCY:
    case AC_METRIC_P99_LATENCY: break;
    }
    return NAN;
}

/* A term's metric: its node's, or the largest over the nodes (end to end); 0 when no node
 * has it. */
static double term_metric(const ac_model *m, const ac_transient *tr, const term *t)
{
    double best = 0.0;
    if (t->target != AC_NONE) {
        double v = node_metric(m, tr, t->metric, t->target);
        return isnan(v) ? 0.0 : v;
    }
    for (size_t i = 0; i < tr->nnodes; i++) {
        double v = node_metric(m, tr, t->metric, i);
        if (!isnan(v) && v > best)
            best = v;
    }
    return best;
}

static int build_terms(ac_search_objective *o, ac_error *err)
{
    const ac_faults *fs = &o->model->faults;
    double wsum = 0.0;
    o->nterms = fs->has_objective && fs->nterms > 0 ? fs->nterms : 1;
    o->terms = calloc(o->nterms, sizeof *o->terms);
    if (o->terms == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (objective)");
    if (!(fs->has_objective && fs->nterms > 0)) {
        o->terms[0] = (term){AC_METRIC_ERROR_RATE, AC_NONE, 1.0, 1.0};
        return 0;
    }
    for (size_t i = 0; i < fs->nterms; i++) {
        const ac_term *t = &fs->terms[i];
        if (t->metric == AC_METRIC_P95_LATENCY || t->metric == AC_METRIC_P99_LATENCY)
            return ac_error_set_at(err, AC_EINVAL, t->loc,
                                   "the objective's %s term is not computed: the fluid transient "
                                   "has the mean response time only, not its percentiles",
                                   t->metric == AC_METRIC_P95_LATENCY ? "p95-latency"
                                                                      : "p99-latency");
        wsum += t->weight;
    }
    if (!(wsum > 0.0))
        return ac_error_set_at(err, AC_EINVAL, fs->objective_loc,
                               "the weights of the objective's terms sum to 0");
    for (size_t i = 0; i < fs->nterms; i++) {
        const ac_term *t = &fs->terms[i];
        o->terms[i].metric = t->metric;
        o->terms[i].target = t->target;
        o->terms[i].weight = t->weight / wsum;
        o->terms[i].norm =
            t->norm > 0.0 ? t->norm : (t->metric == AC_METRIC_BACKLOG_DURATION ? 0.0 : 1.0);
    }
    return 0;
}

int ac_search_objective_new(const ac_model *model, const ac_search_space *space,
                            const ac_transient_options *topt, double scale, size_t jobs,
                            ac_search_objective **out, ac_error *err)
{
    ac_search_objective *o;
    ac_transient_options opt;
    int rc;
    *out = NULL;
    if (jobs == 0 || jobs > AC_SEARCH_JOBS_MAX || !(scale > 0.0) || !isfinite(scale))
        return ac_error_set(err, AC_EINVAL, "objective: jobs in 1..%d and a positive scale",
                            AC_SEARCH_JOBS_MAX);
    if (topt != NULL)
        opt = *topt;
    else
        ac_transient_options_init(&opt);
    if (opt.scale < scale)
        opt.scale = scale;
    o = calloc(1, sizeof *o);
    if (o == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (objective)");
    o->model = model;
    o->space = space;
    o->scale = scale;
    o->max_scale = opt.scale;
    o->jobs = jobs;
    o->nfaults = ac_search_space_nfaults(space);
    rc = build_terms(o, err);
    if (rc == 0) {
        o->ws = calloc(jobs, sizeof *o->ws);
        o->plans = calloc(jobs * (o->nfaults + 1), sizeof *o->plans);
        if (o->ws == NULL || o->plans == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (objective)");
    }
    for (size_t j = 0; j < jobs && rc == 0; j++)
        rc = ac_transient_new(model, &opt, &o->ws[j], err);
    if (rc != 0) {
        ac_search_objective_free(o);
        return rc;
    }
    *out = o;
    return 0;
}

void ac_search_objective_free(ac_search_objective *obj)
{
    if (obj == NULL)
        return;
    if (obj->ws != NULL)
        for (size_t j = 0; j < obj->jobs; j++)
            ac_transient_ws_free(obj->ws[j]);
    free(obj->ws);
    free(obj->plans);
    free(obj->terms);
    free(obj);
}

size_t ac_search_objective_nterms(const ac_search_objective *obj)
{
    return obj->nterms;
}

int ac_search_objective_set_scale(ac_search_objective *obj, double scale, ac_error *err)
{
    if (!(scale > 0.0) || !(scale <= obj->max_scale))
        return ac_error_set(err, AC_EINVAL, "objective: scale %g is not in (0, %g]", scale,
                            obj->max_scale);
    obj->scale = scale;
    return 0;
}

int ac_search_objective_eval_plan(ac_search_objective *obj, size_t job,
                                  const ac_transient_fault *faults, double *out,
                                  ac_search_term_value *terms, ac_error *err)
{
    ac_transient_plan plan = {faults != NULL ? obj->nfaults : 0, faults};
    const ac_transient *tr = NULL;
    double score = 0.0;
    int rc;
    if (job >= obj->jobs)
        return ac_error_set(err, AC_EINVAL, "objective: job %zu of %zu", job, obj->jobs);
    rc = ac_transient_eval(obj->ws[job], &plan, obj->scale, &tr, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < obj->nterms; i++) {
        const term *t = &obj->terms[i];
        double m = term_metric(obj->model, tr, t);
        double norm = t->norm > 0.0 ? t->norm : tr->horizon;
        double s = fmin(1.0, fmax(0.0, m / norm));
        score += t->weight * s;
        if (terms != NULL)
            terms[i] = (ac_search_term_value){m, norm, t->weight, s};
    }
    *out = score;
    return 0;
}

int ac_search_objective_eval(ac_search_objective *obj, size_t job, const double *genes, double *out,
                             ac_search_term_value *terms, ac_error *err)
{
    ac_transient_fault *plan;
    if (job >= obj->jobs)
        return ac_error_set(err, AC_EINVAL, "objective: job %zu of %zu", job, obj->jobs);
    plan = obj->plans + job * (obj->nfaults + 1);
    ac_search_space_decode(obj->space, genes, plan);
    return ac_search_objective_eval_plan(obj, job, plan, out, terms, err);
}

static int problem_eval(void *ctx, size_t job, const double *genes, double *out, ac_error *err)
{
    return ac_search_objective_eval(ctx, job, genes, out, NULL, err);
}

ac_search_problem ac_search_objective_problem(ac_search_objective *obj)
{
    ac_search_problem p = {ac_search_space_ngenes(obj->space), problem_eval, obj};
    return p;
}
