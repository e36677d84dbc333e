/*
 * The degradation score of <objective> (doc/format.md) on the fluid transient of a fault
 * plan (include/archcheck/search.h):
 *   S = sum_i w_i min(1, m_i / norm_i) / sum_i w_i,
 * the metrics m_i over the horizon from the transient's (solver/transient_metrics.c):
 *   error-rate      a node's failed jobs (executions failed or timed out after every retry,
 *                   dead letters, a pool's or queue's refusals) / jobs offered; end to end
 *                   the transient's per-request fraction under independence,
 *                   1 - prod_v (1 - f_v)^(n_v) on a chain (throttles excluded; at most the
 *                   union bound sum_v errors_v / requests);
 *   throttle-rate   a sync function's throttled attempts / attempts, a gateway's 429s /
 *                   requests; end to end the throttled requests / requests (likewise);
 *   loss            a node's jobs lost (both) / offered; end to end the per-request fraction
 *                   with both kinds in f_v (likewise);
 *   p95-, p99-latency  a node's: the quantile of its jobs' response times over the horizon
 *                   (the mixture of the samples' quasi-stationary laws weighted by the
 *                   throughput); end to end the Bonferroni bound of ac_transient (an upper
 *                   bound of the requests' quantile, at least the slowest stage's);
 *   backlog-duration  the time the backlog is above one job (no target: the longest);
 *   utilization     the time average (no target: the largest).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/internal.h"

typedef struct term {
    ac_metric metric;
    size_t target; /* AC_NONE: end to end */
    double weight; /* normalised */
    double norm;   /* 0: the horizon (backlog-duration); NAN: against the base */
    double base;   /* p95-/p99-latency without a norm: the no-fault value at the scale */
} term;

struct ac_search_objective {
    const ac_model *model;
    const ac_search_space *space;
    double scale, max_scale;
    size_t jobs, nterms, nfaults;
    term *terms;
    ac_transient_ws **ws;
    ac_transient_ws **sws;     /* the screen's (jobs), NULL until made */
    ac_transient_options sopt; /* their options */
    int screen_on;
    size_t *nscreen, *nfull;   /* per job: evaluations by the screen, in full */
    ac_search_cache **cache;   /* per job (entries NULL: no cache) */
    size_t *hits;              /* per job, 2 each: cache hits of the screen, in full */
    ac_transient_fault *plans; /* jobs x nfaults */
    double *scratch;           /* jobs x (nnodes + nlinks + 1): the end-to-end bound's */
    size_t nscratch;
    size_t *failed;  /* per job: evaluations the transient could not integrate */
    size_t *limited; /* per job: of them, those that ran out of the work budget (AC_ELIMIT) */
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

/* Jobs failed (not throttled) / jobs offered over the horizon; NAN: nothing offered. */
static double node_error_rate(const ac_transient_node *n)
{
    return n->error_fraction;
}

/* Jobs lost (failed or throttled) / jobs offered over the horizon; NAN: nothing offered. */
static double node_loss(const ac_transient *tr, const ac_transient_node *n)
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
        return n->throttle_fraction;
    return NAN;
}

/* The time (s) the node's backlog is above one message (the transient's backlog_duration:
 * above 1 + the stock its fluid relaxation holds at the flow). */
static double node_backlog_duration(const ac_transient_node *n)
{
    return n->backlog_duration;
}

static double node_metric(const ac_model *m, const ac_transient *tr, ac_metric metric, size_t i)
{
    const ac_transient_node *n = &tr->nodes[i];
    double q = NAN;
    switch (metric) {
    case AC_METRIC_ERROR_RATE: return node_error_rate(n);
    case AC_METRIC_LOSS: return node_loss(tr, n);
    case AC_METRIC_THROTTLE_RATE: return node_throttle_rate(m, tr, i);
    case AC_METRIC_BACKLOG_DURATION: return node_backlog_duration(n);
    case AC_METRIC_UTILIZATION:
        return n->utilization != NULL && tr->horizon > 0.0
                   ? integral(tr, n->utilization) / tr->horizon
                   : NAN;
    case AC_METRIC_P95_LATENCY:
    case AC_METRIC_P99_LATENCY:
        (void)ac_transient_node_quantile(tr, i, metric == AC_METRIC_P95_LATENCY ? 0.95 : 0.99, NULL,
                                         &q);
        return q;
    }
    return NAN;
}

/* A term's metric: its node's, or end to end (the transient's request-level metrics; the
 * largest over the nodes for backlog-duration and utilization); 0 when not defined. */
static double term_metric(const ac_model *m, const ac_transient *tr, const term *t, double *scratch)
{
    double best = 0.0, v = NAN;
    if (t->target != AC_NONE) {
        v = node_metric(m, tr, t->metric, t->target);
        return isnan(v) ? 0.0 : v;
    }
    switch (t->metric) {
    case AC_METRIC_ERROR_RATE: v = tr->e2e_error_fraction; break;
    case AC_METRIC_THROTTLE_RATE: v = tr->e2e_throttle_fraction; break;
    case AC_METRIC_LOSS: v = tr->e2e_loss_fraction; break;
    case AC_METRIC_P95_LATENCY:
    case AC_METRIC_P99_LATENCY:
        (void)ac_transient_e2e_quantile(tr, t->metric == AC_METRIC_P95_LATENCY ? 0.95 : 0.99,
                                        scratch, &v);
        break;
    case AC_METRIC_BACKLOG_DURATION:
    case AC_METRIC_UTILIZATION: v = -1.0; break;
    }
    if (v != -1.0)
        return isnan(v) ? 0.0 : v;
    for (size_t i = 0; i < tr->nnodes; i++) {
        double x = node_metric(m, tr, t->metric, i);
        if (!isnan(x) && x > best)
            best = x;
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
        o->terms[0] = (term){AC_METRIC_ERROR_RATE, AC_NONE, 1.0, 1.0, NAN};
        return 0;
    }
    for (size_t i = 0; i < fs->nterms; i++) {
        const ac_term *t = &fs->terms[i];
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
        o->terms[i].base = NAN;
        if (!(t->norm > 0.0) &&
            (t->metric == AC_METRIC_P95_LATENCY || t->metric == AC_METRIC_P99_LATENCY))
            o->terms[i].norm = NAN; /* against the no-fault value (base_values) */
    }
    return 0;
}

/* The no-fault value of every latency term without a norm, at the objective's scale (one
 * evaluation of job 0's workspace without faults). */
static int base_values(ac_search_objective *o, ac_error *err)
{
    const ac_transient *tr = NULL;
    int need = 0, rc;
    for (size_t i = 0; i < o->nterms; i++)
        need |= isnan(o->terms[i].norm);
    if (!need)
        return 0;
    rc = ac_transient_eval(o->ws[0], NULL, o->scale, &tr, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < o->nterms; i++)
        if (isnan(o->terms[i].norm))
            o->terms[i].base = term_metric(o->model, tr, &o->terms[i], o->scratch);
    return 0;
}

/* A term's share of total degradation: min(1, m / norm), or against the no-fault value m0,
 * min(1, max(0, m / m0 - 1)) (the latency doubled counts as total; without a positive m0,
 * 1 for any positive m). */
static double term_share(const term *t, double m, double horizon, double *norm)
{
    if (isnan(t->norm)) {
        *norm = t->base;
        if (!(t->base > 0.0))
            return m > 0.0 ? 1.0 : 0.0;
        return fmin(1.0, fmax(0.0, m / t->base - 1.0));
    }
    *norm = t->norm > 0.0 ? t->norm : horizon;
    return fmin(1.0, fmax(0.0, m / *norm));
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
    opt.percentiles = 0; /* the terms' quantiles on demand */
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
        o->nscratch = model->nnodes + model->nlinks + 1;
        o->scratch = calloc(jobs * o->nscratch, sizeof *o->scratch);
        o->failed = calloc(jobs, sizeof *o->failed);
        o->limited = calloc(jobs, sizeof *o->limited);
        o->nscreen = calloc(jobs, sizeof *o->nscreen);
        o->nfull = calloc(jobs, sizeof *o->nfull);
        o->cache = calloc(jobs, sizeof *o->cache);
        o->hits = calloc(2 * jobs, sizeof *o->hits);
        if (o->ws == NULL || o->plans == NULL || o->scratch == NULL || o->failed == NULL ||
            o->limited == NULL || o->nscreen == NULL || o->nfull == NULL || o->cache == NULL ||
            o->hits == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (objective)");
    }
    for (size_t j = 0; j < jobs && rc == 0; j++)
        if (ac_search_cache_new(o->nfaults, &o->cache[j]) != AC_OK)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (objective's cache)");
    for (size_t j = 0; j < jobs && rc == 0; j++)
        rc = ac_transient_new(model, &opt, &o->ws[j], err);
    if (rc == 0)
        rc = base_values(o, err);
    o->sopt = opt;
    o->sopt.rtol = fmax(opt.rtol, AC_SEARCH_SCREEN_RTOL);
    o->sopt.atol = fmax(opt.atol, AC_SEARCH_SCREEN_ATOL);
    if (rc == 0 && (o->sopt.rtol > opt.rtol || o->sopt.atol > opt.atol))
        rc = ac_search_objective_screen(o, 1, err);
    if (rc != 0) {
        ac_search_objective_free(o);
        return rc;
    }
    *out = o;
    return 0;
}

int ac_search_objective_screen(ac_search_objective *obj, int on, ac_error *err)
{
    obj->screen_on = 0;
    if (!on)
        return 0;
    if (obj->sws == NULL) {
        obj->sws = calloc(obj->jobs, sizeof *obj->sws);
        if (obj->sws == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (objective)");
        for (size_t j = 0; j < obj->jobs; j++) {
            int rc = ac_transient_new(obj->model, &obj->sopt, &obj->sws[j], err);
            if (rc != 0)
                return rc; /* the ones made are freed with the objective */
        }
    }
    obj->screen_on = 1;
    return 0;
}

void ac_search_objective_counts(const ac_search_objective *obj, ac_search_counts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t j = 0; j < obj->jobs; j++) {
        out->screened += obj->nscreen[j];
        out->full += obj->nfull[j];
        out->screen_hits += obj->hits[2 * j];
        out->full_hits += obj->hits[2 * j + 1];
    }
}

void ac_search_objective_free(ac_search_objective *obj)
{
    if (obj == NULL)
        return;
    for (size_t j = 0; j < obj->jobs; j++) {
        if (obj->ws != NULL)
            ac_transient_ws_free(obj->ws[j]);
        if (obj->sws != NULL)
            ac_transient_ws_free(obj->sws[j]);
        if (obj->cache != NULL)
            ac_search_cache_free(obj->cache[j]);
    }
    free(obj->cache);
    free(obj->hits);
    free(obj->ws);
    free(obj->sws);
    free(obj->nscreen);
    free(obj->nfull);
    free(obj->plans);
    free(obj->scratch);
    free(obj->failed);
    free(obj->limited);
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
    for (size_t j = 0; j < obj->jobs; j++)
        ac_search_cache_clear(obj->cache[j]);
    return base_values(obj, err);
}

/* The score of a plan on workspace ws (job's: its full one or its screen's). */
static int score_on(ac_search_objective *obj, ac_transient_ws *ws, size_t job,
                    const ac_transient_fault *faults, double *out, ac_search_term_value *terms,
                    ac_error *err)
{
    ac_transient_plan plan = {faults != NULL ? obj->nfaults : 0, faults};
    const ac_transient *tr = NULL;
    double score = 0.0;
    int rc = ac_transient_eval(ws, &plan, obj->scale, &tr, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < obj->nterms; i++) {
        const term *t = &obj->terms[i];
        double m = term_metric(obj->model, tr, t, obj->scratch + job * obj->nscratch), norm;
        double s = term_share(t, m, tr->horizon, &norm);
        score += t->weight * s;
        if (terms != NULL)
            terms[i] = (ac_search_term_value){m, norm, t->weight, s};
    }
    *out = score;
    return 0;
}

int ac_search_objective_eval_plan(ac_search_objective *obj, size_t job,
                                  const ac_transient_fault *faults, double *out,
                                  ac_search_term_value *terms, ac_error *err)
{
    if (job >= obj->jobs)
        return ac_error_set(err, AC_EINVAL, "objective: job %zu of %zu", job, obj->jobs);
    obj->nfull[job]++;
    return score_on(obj, obj->ws[job], job, faults, out, terms, err);
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

/* The search's evaluation: a plan whose transient fails to integrate (AC_ENUMERIC, or
 * AC_ELIMIT: its work budget used up) scores -1, below every plan that integrates (so the
 * search's best is a plan with a score whenever one was found), and is counted
 * (ac_search_objective_failures), so that one plan does not end the search. Its score is
 * unknown: whoever reads the search's best must read the count with it (a worst case may
 * hide among those plans). A plan the job's cache holds is not integrated again (its
 * failure counted again: the counts are those without the cache). */
static int problem_eval(void *ctx, size_t job, const double *genes, double *out, ac_error *err)
{
    ac_search_objective *obj = ctx;
    ac_transient_fault *plan;
    ac_error e2;
    int rc;
    if (job >= obj->jobs)
        return ac_error_set(err, AC_EINVAL, "objective: job %zu of %zu", job, obj->jobs);
    plan = obj->plans + job * (obj->nfaults + 1);
    ac_search_space_decode(obj->space, genes, plan);
    if (ac_search_cache_get(obj->cache[job], 1, plan, out, &rc)) {
        obj->hits[2 * job + 1]++;
    } else {
        memset(&e2, 0, sizeof e2);
        rc = ac_search_objective_eval_plan(obj, job, plan, out, NULL, &e2);
        if (rc != 0 && rc != AC_ENUMERIC && rc != AC_ELIMIT) {
            *err = e2;
            return rc;
        }
        ac_search_cache_put(obj->cache[job], 1, plan, rc == 0 ? *out : -1.0, rc);
    }
    if (rc == AC_ENUMERIC || rc == AC_ELIMIT) {
        obj->failed[job]++;
        obj->limited[job] += rc == AC_ELIMIT;
        *out = -1.0;
    }
    return 0;
}

size_t ac_search_objective_failures(const ac_search_objective *obj)
{
    size_t n = 0;
    for (size_t j = 0; j < obj->jobs; j++)
        n += obj->failed[j];
    return n;
}

size_t ac_search_objective_failures_limit(const ac_search_objective *obj)
{
    size_t n = 0;
    for (size_t j = 0; j < obj->jobs; j++)
        n += obj->limited[j];
    return n;
}

/* The screen's estimate: the score on job's screening workspace; NAN when screening is
 * off or the screen's transient fails (the full evaluation then decides, and counts the
 * failure if it fails too). */
static int problem_screen(void *ctx, size_t job, const double *genes, double *out, ac_error *err)
{
    ac_search_objective *obj = ctx;
    ac_transient_fault *plan;
    ac_error e2;
    int rc;
    *out = NAN;
    if (job >= obj->jobs)
        return ac_error_set(err, AC_EINVAL, "objective: job %zu of %zu", job, obj->jobs);
    if (!obj->screen_on)
        return 0;
    memset(&e2, 0, sizeof e2);
    plan = obj->plans + job * (obj->nfaults + 1);
    ac_search_space_decode(obj->space, genes, plan);
    if (ac_search_cache_get(obj->cache[job], 0, plan, out, &rc)) {
        obj->hits[2 * job]++;
        return 0;
    }
    obj->nscreen[job]++;
    rc = score_on(obj, obj->sws[job], job, plan, out, NULL, &e2);
    if (rc == AC_ENUMERIC || rc == AC_ELIMIT) {
        *out = NAN;
        rc = 0;
    }
    if (rc != 0) {
        *err = e2;
        return rc;
    }
    ac_search_cache_put(obj->cache[job], 0, plan, *out, 0);
    return 0;
}

ac_search_problem ac_search_objective_problem(ac_search_objective *obj)
{
    ac_search_problem p = {ac_search_space_ngenes(obj->space), problem_eval, obj,
                           obj->sws != NULL ? problem_screen : NULL, AC_SEARCH_SCREEN_EPS};
    return p;
}
