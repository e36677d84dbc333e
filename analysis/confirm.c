/*
 * Confirmation of a worst case by simulation (include/archcheck/confirm.h; in analysis/, not
 * search/: the simulator is its sibling): the plan re-run in the simulator, the objective's
 * score per replication from the simulator's KPIs, its mean with a Student t interval.
 *
 * Replication r is one ac_sim_run of one replication seeded ac_sim_seed_mix(seed, r): the
 * run is [0, W + H], measured over [W, W + H], the profiles read at t - W (their rate of t
 * = 0 before: the system settles there as the fluid's fixed point), the plan's windows
 * shifted by W. Scoring each replication on its own (instead of combining the estimates of
 * the terms) keeps the correlation between the terms in the interval.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "archcheck/confirm.h"
#include "archcheck/search.h"
#include "archcheck/sim.h"

void ac_analysis_confirm_options_init(ac_analysis_confirm_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->replications = 10;
    opt->warmup = 0.0;
    opt->seed = 1;
    opt->max_events = 50000000ULL;
    opt->sequential = 0;
    opt->tau = NAN;
    opt->jobs = 1;
}

int ac_analysis_confirm_side(const ac_analysis_confirmation *c, double tau)
{
    if (!c->computed)
        return 0;
    if (c->score - c->ci95 >= tau)
        return 1;
    if (c->score + c->ci95 < tau)
        return -1;
    return 0;
}

/*
 * The default warm-up W = max(60 s, 100 tau_fast + tau_slow). The simulator starts empty
 * (no job, no warm instance, full token buckets). tau_fast, the longest time a job holds a
 * server (a pool's mean service, a function's duration + cold start), sets how fast the
 * queues and the busy counts relax: 100 of it covers them (as the simulator's own default,
 * sim.h). What the start leaves after that lives at most tau_slow, the longest memory of a
 * serverless state: an idle instance created by the start-up is reclaimed `keep-alive` after
 * its last use, a message received in it is deleted or dead-lettered within visibility
 * timeout x max-receives, an async retry is made within its back-offs (60 s, then 120 s
 * each), a pre-warm ping comes every interval. (The old rule, 100 x the longest of these
 * delays too, spent 3,000 s on faas-cascade's 30 s visibility timeout for a 120 s horizon:
 * measured there, 10 replications at W = 60, 300 and 700 s and at 3,000 s give the same
 * score within their intervals, 0.71213 +- 0.00041, 0.71226 +- 0.00046, and 0.712 +- 0.0005,
 * with the earlier end-to-end error-rate term: the largest node's loss.) The keep-alive term is
 * a real memory, not a margin: with most-recently-used reuse the steady state keeps about the
 * busy count's largest value over the last keep-alive alive, and the empty start's backlog
 * drains on up to the concurrency, whose surplus lives a keep-alive on (serverless-pipeline's
 * `aggregate`: 63-100 alive instances after 100 tau_fast = 90 s, 59-64 after W = 690 s, in 6
 * replications; tests/test_confirm_warmup.c). A shorter warm-up would need a start drawn from
 * the steady state, i.e. the law of that largest value, which has no closed form.
 */
double ac_analysis_confirm_warmup(const ac_model *m)
{
    double fast = 0.0, slow = 0.0;
    for (size_t i = 0; m != NULL && i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        if (nd->kind == AC_NODE_POOL && nd->u.pool.service_rate > 0.0) {
            fast = fmax(fast, 1.0 / nd->u.pool.service_rate);
        } else if (nd->kind == AC_NODE_FUNCTION) {
            const ac_function *fn = &nd->u.function;
            fast = fmax(fast, fn->duration + fn->cold_start);
            slow = fmax(slow, fn->keep_alive);
            slow = fmax(slow, fn->prewarm_interval);
            if (fn->invocation == AC_INVOCATION_ASYNC && fn->retries > 0)
                slow = fmax(slow, 60.0 + 120.0 * (double)(fn->retries - 1));
        } else if (nd->kind == AC_NODE_QUEUE) {
            slow = fmax(slow, nd->u.queue.visibility_timeout * (double)nd->u.queue.max_receives);
        }
    }
    if (!isfinite(fast) || !isfinite(slow))
        return INFINITY;
    return fmax(60.0, 100.0 * fast + slow);
}

static void sim_options(const ac_analysis_confirmation *out, double scale,
                        const ac_transient_plan *plan, ac_sim_options *so);

/* The looks of the schedule for at most n replications (n >= 2): 2, then 6, 12, 24, ...
 * below n, then n (n <= 3: n alone); returns their count K (at most
 * AC_ANALYSIS_CONFIRM_LOOKS_MAX). The first look is the smallest sample a t interval exists
 * for (1 degree of freedom: t_{1 - 0.025/K, 1} is large, 38.2 at K = 3, so it stops only where
 * tau is far from the mean, the common case: serverless-pipeline's worst cases, 0.403 against
 * 0.7, settle at 2 with a half-width of 4e-4). The later looks are the old schedule's 6, 12,
 * ... (which began 3, 6, 12): K, hence the level of every look, is the same for every n, so
 * a look at 6 or more is exactly as wide as before, and the first look costs 2 replications
 * instead of 3 (the warm-up makes each of them cost as much as its horizon or more). */
static size_t look_sizes(size_t n, size_t *sizes)
{
    size_t k = 0;
    if (n > 3)
        sizes[k++] = 2;
    for (size_t m = 6; m < n && k + 1 < AC_ANALYSIS_CONFIRM_LOOKS_MAX; m *= 2)
        sizes[k++] = m;
    sizes[k++] = n;
    return k;
}

/* The events the first look's warm-ups spend: a pilot replication of the system without
 * faults at the rates of t = 0 (scaled), started empty, over AC_ANALYSIS_CONFIRM_PILOT s (at
 * most a tenth of the budget), gives the events per simulated second r, and the first look's
 * n replications spend about n (r W + A_H): r W in the warm-up (the start-up's cold starts
 * make r a little low), A_H the sources' requests over the horizon (each one event; what the
 * faults make of them is not counted: a throttle costs nothing more, a retry does). */
/* The sources' requests over [0, h] at factor `scale`: the trapezoid rule on 1,000 steps
 * (exact on the profiles' linear pieces up to the steps that hold a corner). */
static double arrivals(const ac_model *m, double scale, double h)
{
    double sum = 0.0, dt = h / 1000.0;
    for (size_t k = 0; k <= 1000; k++)
        for (size_t i = 0; i < m->nsources; i++)
            sum += (k == 0 || k == 1000 ? 0.5 : 1.0) * dt *
                   ac_transient_source_rate(m, i, scale, (double)k * dt);
    return sum;
}

int ac_analysis_confirm_events_pilot(const ac_model *model, double scale, double horizon,
                                     const ac_analysis_confirm_options *opt, double *out,
                                     ac_error *err)
{
    ac_analysis_confirm_options o;
    ac_analysis_confirmation c;
    ac_sim_options so;
    ac_sim_result *res = NULL;
    ac_error serr = {0};
    size_t sizes[AC_ANALYSIS_CONFIRM_LOOKS_MAX];
    int rc;
    *out = 0.0;
    if (opt != NULL)
        o = *opt;
    else
        ac_analysis_confirm_options_init(&o);
    if (model == NULL || !(scale > 0.0) || !isfinite(scale) || !(horizon >= 0.0) ||
        !isfinite(horizon) || o.replications < 2)
        return ac_error_set(err, AC_EINVAL, "confirmation pilot: invalid arguments");
    memset(&c, 0, sizeof c);
    c.warmup = o.warmup > 0.0 ? o.warmup : ac_analysis_confirm_warmup(model);
    c.horizon = fmin(AC_ANALYSIS_CONFIRM_PILOT, c.warmup);
    sim_options(&c, scale, NULL, &so);
    so.horizon = c.horizon; /* [0, pilot] at the rates of t = 0 (the profiles read at t - W) */
    so.warmup = 0.0;
    so.seed = (unsigned long)ac_sim_seed_mix(o.seed, (uint64_t)-1);
    so.max_events = o.max_events / 10 > 0 ? o.max_events / 10 : 1;
    rc = ac_sim_run(model, &so, &res, &serr);
    (void)look_sizes(o.replications, sizes);
    if (rc != 0 && rc != AC_ELIMIT)
        return ac_error_set(err, rc, "confirmation pilot: %s", serr.message);
    /* over a tenth of the budget in the pilot: the rate is at least that tenth's */
    *out = ((double)(rc == 0 ? res->events : so.max_events) / c.horizon * c.warmup +
            arrivals(model, scale, horizon)) *
           (double)(o.sequential ? sizes[0] : o.replications);
    ac_sim_result_free(res);
    return 0;
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

/*
 * The end-to-end error rate or loss of a replication: the requests failed over the requests,
 * pooled over the entries (each weighted by its requests), sum_e F_e / sum_e N_e, N_e the
 * requests of entry e completed in the window and F_e those with a job that failed (loss:
 * lost, throttled, dead-lettered or failed; error-rate: failed otherwise than by a throttle,
 * sim.h). A request fails when any of its jobs does: with fan-out this is the per-request
 * fraction (1 - (1 - p)(1 - q)^k for one call of fail-prob p fanning out to k of q), which
 * the largest node loss (max(p, q)) under-states. 0 when no request completed.
 */
static double e2e_failed(const ac_sim_result *r, ac_metric metric)
{
    double failed = 0.0, requests = 0.0;
    for (size_t k = 0; k < r->nentries; k++) {
        const ac_sim_estimate *e = metric == AC_METRIC_LOSS ? &r->entries[k].failure_probability
                                                            : &r->entries[k].error_probability;
        failed += e->count;
        requests += e->trials;
    }
    return requests > 0.0 ? failed / requests : 0.0;
}

/* A term's value: its node's, or end to end the requests' (error-rate, loss: e2e_failed;
 * latencies: the largest over the sources) or the largest over the nodes; 0 when none has it
 * (as the fluid objective). */
static double term_value(const ac_model *m, const ac_sim_result *r, ac_metric metric, size_t target,
                         double window)
{
    double best = 0.0;
    if (target != AC_NONE) {
        double v = node_value(m, r, metric, target, window);
        return isnan(v) ? 0.0 : v;
    }
    if (metric == AC_METRIC_ERROR_RATE || metric == AC_METRIC_LOSS)
        return e2e_failed(r, metric);
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
                      const ac_analysis_confirm_options *o, ac_error *err)
{
    if (model == NULL || !(scale > 0.0) || !isfinite(scale) || !(horizon > 0.0) ||
        !isfinite(horizon) || (nterms > 0 && terms == NULL) || nfaults > AC_TRANSIENT_PLAN_MAX ||
        o->replications < 2 || !(o->warmup >= 0.0) || !isfinite(o->warmup))
        return ac_error_set(err, AC_EINVAL, "confirmation: invalid arguments");
    return 0;
}

/* One replication's outcome, by slot. */
typedef struct rep_out {
    double score;
    unsigned long long events;
    int rc;
    char msg[160];
} rep_out;

/* A batch of replications [first, first + count), each capped at `cap` events. */
typedef struct conf_batch {
    const ac_model *model;
    const ac_sim_options *so; /* read only: the seed and cap are set per replication */
    const ac_search_term_value *terms;
    size_t nterms;
    double horizon;
    unsigned long seed;
    unsigned long long cap;
    size_t first, count, jobs;
    rep_out *out; /* count slots */
} conf_batch;

typedef struct conf_thread {
    const conf_batch *b;
    size_t job;
} conf_thread;

static void rep_one(const conf_batch *b, size_t slot)
{
    ac_sim_options so = *b->so;
    ac_sim_result *res = NULL;
    ac_error serr = {0};
    rep_out *o = &b->out[slot];
    so.seed = (unsigned long)ac_sim_seed_mix(b->seed, b->first + slot);
    so.max_events = b->cap;
    o->rc = ac_sim_run(b->model, &so, &res, &serr);
    if (o->rc != 0) {
        snprintf(o->msg, sizeof o->msg, "%.150s", serr.message);
        return;
    }
    o->events = res->events;
    o->score = rep_score(b->model, res, b->terms, b->nterms, b->horizon);
    ac_sim_result_free(res);
}

/* Slots job, job + jobs, ... of the batch. */
static void *rep_thread(void *arg)
{
    const conf_thread *t = arg;
    for (size_t k = t->job; k < t->b->count; k += t->b->jobs)
        rep_one(t->b, k);
    return NULL;
}

/* The batch on min(jobs, count) threads, this one included (slot k on job k mod jobs; a job
 * whose thread cannot start runs here): the slots, hence the result, are the same for any
 * number of threads. */
static void run_batch(conf_batch *b)
{
    pthread_t th[AC_ANALYSIS_CONFIRM_JOBS_MAX];
    conf_thread arg[AC_ANALYSIS_CONFIRM_JOBS_MAX];
    int started[AC_ANALYSIS_CONFIRM_JOBS_MAX] = {0};
    size_t jobs = b->jobs < 1 ? 1 : b->jobs;
    if (jobs > b->count)
        jobs = b->count;
    if (jobs > AC_ANALYSIS_CONFIRM_JOBS_MAX)
        jobs = AC_ANALYSIS_CONFIRM_JOBS_MAX;
    b->jobs = jobs;
    for (size_t j = 0; j < jobs; j++)
        arg[j] = (conf_thread){b, j};
    for (size_t j = 1; j < jobs; j++)
        started[j] = pthread_create(&th[j], NULL, rep_thread, &arg[j]) == 0;
    for (size_t j = 0; j < jobs; j++)
        if (!started[j])
            (void)rep_thread(&arg[j]);
    for (size_t j = 1; j < jobs; j++)
        if (started[j])
            (void)pthread_join(th[j], NULL);
}

/* The simulator's options of every replication: [0, W + H], measured over [W, W + H]. */
static void sim_options(const ac_analysis_confirmation *out, double scale,
                        const ac_transient_plan *plan, ac_sim_options *so)
{
    ac_sim_options_init(so);
    so->replications = 1;
    so->horizon = out->warmup + out->horizon;
    so->warmup = out->warmup;
    so->use_profiles = 1;
    so->profile_offset = out->warmup;
    so->load_scale = scale;
    so->faults = plan;
}

/* Welford's update of (mean, m2) with the look's new slots; their events into *used. The
 * first slot that did not run ends it: its status (the reason in out->why for AC_ELIMIT). */
static int take_batch(const conf_batch *b, double *mean, double *m2, unsigned long long *used,
                      ac_analysis_confirmation *out)
{
    for (size_t k = 0; k < b->count; k++)
        if (b->out[k].rc == 0)
            *used += b->out[k].events;
    for (size_t k = 0; k < b->count; k++) {
        const rep_out *r = &b->out[k];
        double d, n = (double)(b->first + k + 1);
        if (r->rc != 0) {
            snprintf(out->why, sizeof out->why, "replication %zu: %.150s", b->first + k, r->msg);
            return r->rc;
        }
        d = r->score - *mean;
        *mean += d / n;
        *m2 += d * (r->score - *mean);
    }
    return 0;
}

int ac_analysis_confirm(const ac_model *model, const ac_transient_fault *faults, size_t nfaults,
                        double scale, double horizon, const ac_search_term_value *terms,
                        size_t nterms, double fluid, const ac_analysis_confirm_options *opt,
                        ac_analysis_confirmation *out, ac_error *err)
{
    ac_analysis_confirm_options o;
    ac_transient_fault *shifted = NULL;
    ac_transient_plan plan;
    ac_sim_options so;
    conf_batch b;
    rep_out *reps = NULL;
    size_t sizes[AC_ANALYSIS_CONFIRM_LOOKS_MAX], nlooks;
    double mean = 0.0, m2 = 0.0;
    unsigned long long used = 0;
    int rc;
    if (opt != NULL)
        o = *opt;
    else
        ac_analysis_confirm_options_init(&o);
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
    out->warmup = o.warmup > 0.0 ? o.warmup : ac_analysis_confirm_warmup(model);
    out->horizon = horizon;
    out->sequential = o.sequential;
    if (faults == NULL)
        nfaults = 0;
    if ((nfaults > 0 && (shifted = malloc(nfaults * sizeof *shifted)) == NULL) ||
        (reps = calloc(o.replications, sizeof *reps)) == NULL) {
        free(shifted);
        return ac_error_set(err, AC_ENOMEM, "out of memory (confirmation)");
    }
    for (size_t k = 0; k < nfaults; k++) {
        shifted[k] = faults[k];
        shifted[k].start += out->warmup;
        shifted[k].end += out->warmup;
    }
    plan = (ac_transient_plan){nfaults, shifted};
    sim_options(out, scale, &plan, &so);
    sizes[0] = o.replications;
    nlooks = o.sequential ? look_sizes(o.replications, sizes) : 1;
    out->looks_planned = nlooks;
    /* each look's interval at 1 - 0.05 / K (Bonferroni over the K planned looks): the
     * interval of the look where the test stops holds the mean with probability >= 95% */
    out->level = 1.0 - 0.05 / (double)nlooks;
    b = (conf_batch){model, &so, terms, nterms, horizon, o.seed, 0, 0, 0, o.jobs, reps};
    for (size_t k = 0; k < nlooks; k++) {
        size_t n = sizes[k];
        b.first = k > 0 ? sizes[k - 1] : 0;
        b.count = n - b.first;
        b.out = reps + b.first;
        b.jobs = o.jobs;
        b.cap = (o.max_events > used ? o.max_events - used : 0) / b.count;
        if (b.cap == 0) {
            snprintf(out->why, sizeof out->why, "the event budget (%llu) is spent", o.max_events);
            break;
        }
        run_batch(&b);
        rc = take_batch(&b, &mean, &m2, &used, out);
        out->events = used;
        if (rc == AC_ELIMIT) { /* over the budget, or overloaded: the looks made stand */
            rc = 0;
            break;
        }
        if (rc != 0) {
            rc = ac_error_set(err, rc, "confirmation: %s", out->why);
            goto cleanup;
        }
        out->computed = 1;
        out->why[0] = '\0';
        out->looks = k + 1;
        out->replications = n;
        out->score = mean;
        out->ci95 = gsl_cdf_tdist_Pinv(1.0 - 0.5 * (1.0 - out->level), (double)(n - 1)) *
                    sqrt(m2 / (double)(n - 1) / (double)n);
        out->diff = mean - fluid;
        if (o.sequential && ac_analysis_confirm_side(out, o.tau) != 0)
            break;
    }
cleanup:
    free(reps);
    free(shifted);
    return rc;
}
