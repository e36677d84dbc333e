/*
 * The public simulator API: options, replications (fixed or automatic),
 * result assembly, text rendering.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "archcheck/sim.h"
#include "common/strbuf.h"
#include "sim/internal.h"

void ac_sim_options_init(ac_sim_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->seed = 1;
    opt->replications = 0;
    opt->rel_precision = 0.01;
    opt->min_replications = 20;
    opt->max_replications = 200;
    opt->horizon = 0;
    opt->warmup = -1;
    opt->max_events = 0;
    opt->max_wall_seconds = 0;
    opt->max_jobs = 10000000;
    opt->use_profiles = 0;
    opt->load_scale = 1.0;
    opt->jobs = 1;
}

const char *ac_sim_warmup_rule_name(ac_sim_warmup_rule rule)
{
    switch (rule) {
    case AC_SIM_WARMUP_TENTH: return "tenth";
    case AC_SIM_WARMUP_SETTLING: return "settling";
    case AC_SIM_WARMUP_GIVEN: return "given";
    }
    return "tenth";
}

static unsigned long long splitmix64(unsigned long long z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* seed_r = splitmix64(splitmix64(seed) ^ stream): distinct streams from one
 * seed, and seed 0 is as good as any other. */
unsigned long long ac_sim_seed_mix(unsigned long long seed, unsigned long long stream)
{
    return splitmix64(splitmix64(seed) ^ stream);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void node_result_free(ac_sim_node_result *r)
{
    free(r->id);
    free(r->actions);
}

/* Replication 0's scaling actions of every autoscaled pool, copied into the result. */
static int actions_take(const ac_sim_state *s, ac_sim_result *res, ac_error *err)
{
    for (size_t i = 0; i < res->nnodes; i++) {
        const ac_sim_scaler *sc =
            s->nodes[i].kind == AC_SIM_KIND_POOL ? s->nodes[i].u.pool.sc : NULL;
        if (sc == NULL || sc->nlog == 0)
            continue;
        res->nodes[i].actions = malloc(sc->nlog * sizeof *res->nodes[i].actions);
        if (res->nodes[i].actions == NULL)
            return ac_error_set(err, AC_ENOMEM, "simulation: out of memory");
        memcpy(res->nodes[i].actions, sc->log, sc->nlog * sizeof *sc->log);
        res->nodes[i].nactions = sc->nlog;
    }
    return 0;
}

void ac_sim_result_free(ac_sim_result *res)
{
    if (res == NULL)
        return;
    for (size_t i = 0; i < res->nnodes; i++)
        node_result_free(&res->nodes[i]);
    for (size_t i = 0; i < res->nlinks; i++)
        node_result_free(&res->links[i]);
    for (size_t i = 0; i < res->nentries; i++)
        free(res->entries[i].id);
    free(res->nodes);
    free(res->links);
    free(res->entries);
    free(res);
}

static ac_sim_result *result_new(const ac_model *m)
{
    ac_sim_result *res = calloc(1, sizeof *res);
    size_t ne = m->nsources + m->npopulations;
    if (res == NULL)
        return NULL;
    res->nodes = calloc(m->nnodes ? m->nnodes : 1, sizeof *res->nodes);
    res->links = calloc(m->nlinks ? m->nlinks : 1, sizeof *res->links);
    res->entries = calloc(ne ? ne : 1, sizeof *res->entries);
    if (res->nodes == NULL || res->links == NULL || res->entries == NULL)
        goto cleanup;
    res->nnodes = m->nnodes;
    res->nlinks = m->nlinks;
    res->nentries = ne;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        res->nodes[i].id = ac_strdup(nd->id ? nd->id : "?");
        res->nodes[i].kind = nd->kind;
        switch (nd->kind) {
        case AC_NODE_FUNCTION: res->nodes[i].servers = nd->u.function.concurrency; break;
        case AC_NODE_QUEUE: res->nodes[i].servers = nd->u.queue.max_consumers; break;
        case AC_NODE_GATEWAY:
            res->nodes[i].servers = nd->u.gateway.burst > 1 ? nd->u.gateway.burst : 1;
            break;
        case AC_NODE_POOL:
        default: res->nodes[i].servers = nd->u.pool.servers; break;
        }
        if (res->nodes[i].id == NULL)
            goto cleanup;
    }
    for (size_t i = 0; i < m->nlinks; i++) {
        const ac_link *l = &m->links[i];
        res->links[i].id =
            l->id ? ac_strdup(l->id)
                  : ac_strdupf("%s->%s", m->nodes[l->from].id ? m->nodes[l->from].id : "?",
                               m->nodes[l->to].id ? m->nodes[l->to].id : "?");
        res->links[i].is_link = 1;
        res->links[i].servers = 1;
        if (res->links[i].id == NULL)
            goto cleanup;
    }
    for (size_t i = 0; i < ne; i++) {
        const char *id = i < m->nsources ? m->sources[i].id : m->populations[i - m->nsources].id;
        res->entries[i].id = ac_strdup(id ? id : "?");
        res->entries[i].is_population = i >= m->nsources;
        if (res->entries[i].id == NULL)
            goto cleanup;
    }
    return res;
cleanup:
    ac_sim_result_free(res);
    return NULL;
}

static void node_estimates(const ac_sim_welford *w, ac_sim_node_result *r)
{
    ac_sim_welford_estimate(&w[AC_SIM_K_ARRIVAL], &r->arrival_rate);
    ac_sim_welford_estimate(&w[AC_SIM_K_THROUGHPUT], &r->throughput);
    ac_sim_welford_estimate(&w[AC_SIM_K_UTIL], &r->utilization);
    ac_sim_welford_estimate(&w[AC_SIM_K_JOBS], &r->mean_jobs);
    ac_sim_welford_estimate(&w[AC_SIM_K_LOSS], &r->loss_probability);
    ac_sim_welford_estimate(&w[AC_SIM_K_RESP], &r->mean_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_P50], &r->p50_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_P95], &r->p95_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_P99], &r->p99_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_TIMEOUT], &r->timeout_fraction);
    ac_sim_welford_estimate(&w[AC_SIM_K_RETRIES], &r->retries_per_job);
    ac_sim_welford_estimate(&w[AC_SIM_K_FAILURE], &r->failure_probability);
    ac_sim_welford_estimate(&w[AC_SIM_K_COLD], &r->cold_start_fraction);
    ac_sim_welford_estimate(&w[AC_SIM_K_THROTTLE], &r->throttle_fraction);
    ac_sim_welford_estimate(&w[AC_SIM_K_DEAD], &r->dead_letter_fraction);
    ac_sim_welford_estimate(&w[AC_SIM_K_BACKLOG], &r->backlog_fraction);
    ac_sim_welford_estimate(&w[AC_SIM_K_INSTANCES], &r->mean_instances);
    ac_sim_welford_estimate(&w[AC_SIM_K_ATTEMPTS], &r->attempt_rate);
    ac_sim_welford_estimate(&w[AC_SIM_K_ATTEMPT_LOSS], &r->attempt_loss_fraction);
    ac_sim_welford_estimate(&w[AC_SIM_K_ACTIONS], &r->scaling_actions);
    ac_sim_welford_estimate(&w[AC_SIM_K_FLAPS], &r->scaling_flaps);
    ac_sim_welford_estimate(&w[AC_SIM_K_SERVER_SEC], &r->server_seconds);
}

static void entry_estimates(const ac_sim_welford *w, ac_sim_entry_result *r)
{
    ac_sim_welford_estimate(&w[AC_SIM_K_ARRIVAL], &r->arrival_rate);
    ac_sim_welford_estimate(&w[AC_SIM_K_THROUGHPUT], &r->throughput);
    ac_sim_welford_estimate(&w[AC_SIM_K_RESP], &r->mean_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_P50], &r->p50_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_P95], &r->p95_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_P99], &r->p99_response_time);
    ac_sim_welford_estimate(&w[AC_SIM_K_FAILURE], &r->failure_probability);
    ac_sim_welford_estimate(&w[AC_SIM_K_ERROR], &r->error_probability);
}

/*
 * Percentiles by sectioning: the point estimate is the quantile of the histograms pooled
 * over the replications (bias O(1 / all samples)), the interval the Student t one of the
 * per-replication quantiles around it. Averaging per-replication quantiles instead carries
 * the small-sample bias of each (a p99 from a few hundred samples is ~1% low): with many
 * short replications the interval shrinks below that bias and stops covering (40 seeds of
 * M/M/1, 200 replications of 1350 s: 25/40 p99 intervals covered the exact value).
 */
static void pooled_quantiles(const ac_sim_hist *hist, uint64_t n, int zero_floor,
                             ac_sim_estimate *p50, ac_sim_estimate *p95, ac_sim_estimate *p99)
{
    ac_sim_estimate *e[3] = {p50, p95, p99};
    const double q[3] = {0.50, 0.95, 0.99};
    if (n == 0)
        return;
    for (size_t k = 0; k < 3; k++) {
        double v = ac_sim_hist_quantile(hist, n, q[k]);
        if (e[k]->n == 0)
            continue;
        if (zero_floor && v < ac_sim_hist_edge(1))
            v = 0.0;
        e[k]->mean = v;
    }
}

/* The worst relative half-width of the main KPIs: the end-to-end mean
 * response time of every entry; without entries, the mean jobs of every
 * node. INFINITY while an interval is not available. */
static double precision(const ac_sim_welford *w, size_t nnodes, size_t nmodel_nodes,
                        size_t nentries)
{
    double worst = 0;
    size_t count = 0;
    for (size_t i = 0; i < nentries; i++) {
        ac_sim_estimate e;
        ac_sim_welford_estimate(&w[(nnodes + i) * AC_SIM_K_COUNT + AC_SIM_K_RESP], &e);
        if (e.n == 0)
            continue; /* no completed request at all: nothing to make precise */
        count++;
        if (e.n < 2)
            return INFINITY;
        if (e.ci95 > 0)
            worst = fmax(worst, e.mean != 0 ? e.ci95 / fabs(e.mean) : INFINITY);
    }
    if (nentries > 0 && count > 0)
        return worst;
    for (size_t i = 0; i < nmodel_nodes; i++) {
        ac_sim_estimate e;
        ac_sim_welford_estimate(&w[i * AC_SIM_K_COUNT + AC_SIM_K_JOBS], &e);
        if (e.n < 2)
            return INFINITY;
        if (e.ci95 > 0)
            worst = fmax(worst, e.mean != 0 ? e.ci95 / fabs(e.mean) : INFINITY);
    }
    return worst;
}

/*
 * The shortened horizon h of a budget-limited run whose warm-up is the settling time W
 * (ac_sim_settling_time): W is kept (a tenth of h would end the warm-up before the start-up's
 * instances are reclaimed: a bias no interval shows) and only the measured part shrinks, to
 * at least M = 100 tau (ac_sim_timescale); then h = max(h, W + M) and the budget stops the
 * replications early. When even n replications of W + M (n = the fixed count, or the 2 an
 * interval needs) at `rate` events per simulated second exceed the budget, the KPIs would be
 * the budget's, not the model's: AC_ELIMIT with the reason. */
static int settled_horizon(const ac_model *model, const ac_sim_options *opt, double rate, double *h,
                           ac_error *err)
{
    const double w = ac_sim_settling_time(model), mmin = 100.0 * ac_sim_timescale(model);
    const double n = opt->replications > 0 ? (double)opt->replications : 2.0;
    if (n * (w + mmin) * rate > (double)opt->max_events)
        return ac_error_set(err, AC_ELIMIT,
                            "simulation: budget-limited: the event budget (%llu) does not cover "
                            "%g replications of the settling warm-up (%g s) and %g s measured "
                            "(%.4g events/s)",
                            opt->max_events, n, w, mmin, rate);
    *h = fmax(*h, w + mmin);
    return 0;
}

/*
 * The automatic horizon within the event budget: a pilot replication runs with at most
 * budget / (16 reps) events; if it does not reach the horizon, the events per simulated
 * second it showed set the horizon h so that `reps` replications take 0.8 of the budget.
 * With the default warm-up, the warm-up stays the settling time (settled_horizon). The pilot
 * is replication 0's start (its seed, stream 0; its warm-up): *pilot keeps its state
 * (advanced, not finished) for ac_sim_state_resume, which takes it when it stopped before the
 * warm-up of the run chosen ends and within its horizon. Counted events only (no clock):
 * deterministic. *limited = 1 when the budget shortened the horizon.
 */
static int pilot_horizon(const ac_model *model, const ac_sim_options *opt, double reps,
                         double *horizon, int *limited, ac_sim_state **pilot, ac_error *err)
{
    ac_sim_state *s = NULL;
    unsigned long long cap = (unsigned long long)((double)opt->max_events / (16.0 * reps));
    double warmup = opt->warmup >= 0 ? opt->warmup : *horizon / 10.0;
    int rc =
        ac_sim_state_new(model, opt, *horizon, warmup, ac_sim_seed_mix(opt->seed, 0ULL), &s, err);
    *pilot = NULL;
    if (rc != 0)
        return rc;
    s->event_cap = cap > 0 ? cap : 1;
    rc = ac_sim_state_advance(s);
    if (rc == AC_ELIMIT && s->events > s->event_cap && s->now > 0.0) {
        double rate = (double)s->events / s->now; /* events per simulated second */
        double h = 0.8 * (double)opt->max_events / (reps * rate);
        ac_error_clear(err);
        rc = 0;
        if (h < *horizon) {
            /* cut: with the default warm-up, h >= W + M (settled_horizon), which may exceed
               the first cap's horizon but never the automatic one (>= 10 tau_slow and
               20,000 tau, W + M = 200 tau + tau_slow): the warm-up ends before h */
            if (opt->warmup < 0)
                rc = settled_horizon(model, opt, rate, &h, err);
            if (rc == 0) {
                *horizon = h;
                *limited = 1;
            }
        }
    }
    if (rc == 0)
        *pilot = s;
    else
        ac_sim_state_free(s);
    return rc;
}

/* ---- replications, on one thread or several ------------------------------------------------ */

/* One replication: its inputs, and the state it leaves (run, or NULL when it could not be
 * built) with its status and error. */
typedef struct rep_task {
    const ac_model *model;
    const ac_sim_options *opt;
    double horizon, warmup;
    unsigned long long seed, cap; /* cap: the event budget left when it started; 0: none */
    ac_sim_state *s;
    int rc;
    ac_error err;
    void (*tick)(const ac_sim_state *s, void *ctx); /* task 0 only: progress */
    void *tick_ctx;
} rep_task;

/* What the progress report needs: the replications taken (r, their events) and the batch
 * running (nb replications, seen through its first one). */
typedef struct run_progress {
    const ac_sim_options *opt;
    unsigned long long events;
    size_t r, nb;
    double horizon;
} run_progress;

/*
 * The work done, in [0, 1]: with a fixed count, replications of it (the running batch as
 * nb x its first replication's simulated time / horizon); else the larger of events of the
 * budget (the batch as nb x its first replication's events) and replications of
 * max_replications. Counted work only, no clock.
 */
static double progress_done(const run_progress *p, const ac_sim_state *s)
{
    double f = 0.0;
    if (p->opt->replications > 0) {
        double within = s != NULL && p->horizon > 0 ? fmin(s->now / p->horizon, 1.0) : 0.0;
        f = ((double)p->r + (double)p->nb * within) / (double)p->opt->replications;
    } else {
        double ev = (double)p->events + (s != NULL ? (double)p->nb * (double)s->events : 0.0);
        if (p->opt->max_events > 0)
            f = ev / (double)p->opt->max_events;
        if (p->opt->max_replications > 0)
            f = fmax(f, (double)p->r / (double)p->opt->max_replications);
    }
    return fmin(fmax(f, 0.0), 1.0);
}

static void progress_tick(const ac_sim_state *s, void *ctx)
{
    const run_progress *p = ctx;
    p->opt->progress(p->opt->progress_ctx, progress_done(p, s));
}

/* One replication: a new state, or the pilot's (tk->s set, resumed: errors into tk->err),
 * run to the horizon. */
static void *rep_run(void *arg)
{
    rep_task *tk = arg;
    tk->rc = 0;
    if (tk->s == NULL) {
        memset(&tk->err, 0, sizeof tk->err);
        tk->rc = ac_sim_state_new(tk->model, tk->opt, tk->horizon, tk->warmup, tk->seed, &tk->s,
                                  &tk->err);
    }
    if (tk->rc == 0) {
        tk->s->event_cap = tk->cap;
        tk->s->tick = tk->tick;
        tk->s->tick_ctx = tk->tick_ctx;
        tk->rc = ac_sim_state_run(tk->s);
    }
    return NULL;
}

/* Run tasks[0..nb) : tasks 1.. on their own threads, task 0 on this one (a thread that
 * cannot be created runs here, after). Each task touches only its own state. */
static void run_batch(rep_task *tasks, size_t nb)
{
    pthread_t th[256];
    int started[256] = {0}; /* nb <= 256: jobs <= 255, and one more beside a finished pilot */
    for (size_t k = 1; k < nb; k++)
        started[k] = pthread_create(&th[k], NULL, rep_run, &tasks[k]) == 0;
    rep_run(&tasks[0]);
    for (size_t k = 1; k < nb; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else
            rep_run(&tasks[k]);
    }
}

static void tasks_free(rep_task *tasks, size_t nb)
{
    for (size_t k = 0; k < nb; k++) {
        ac_sim_state_free(tasks[k].s);
        tasks[k].s = NULL;
    }
}

/* Whether replication r is not to be run, from the replications 0..r-1 combined (w,
 * events): the fixed count, or in automatic mode the most replications, the precision of
 * the main KPIs (after min_replications), the event budget (*limited = 1), the wall clock. */
static int replications_done(const ac_sim_options *opt, size_t r, const ac_sim_welford *w,
                             size_t nnodes, const ac_model *model, unsigned long long events,
                             double t_start, int *limited)
{
    if (opt->replications > 0)
        return r >= opt->replications;
    if (r >= opt->max_replications)
        return 1;
    if (r >= opt->min_replications && r >= 2 &&
        precision(w, nnodes, model->nnodes, model->nsources + model->npopulations) <=
            opt->rel_precision)
        return 1;
    if (r >= 2 && opt->max_events != 0 && events >= opt->max_events) {
        *limited = 1;
        return 1;
    }
    return r >= 2 && opt->max_wall_seconds > 0 && wall_now() - t_start >= opt->max_wall_seconds;
}

/*
 * Replication r's outcome as one thread running the replications in order would have had
 * it. It started with the budget left at its launch (tk->cap), at least what is left now
 * (`serial`): had it run after its predecessors, it would have stopped after serial + 1
 * events (the same events: a replication is deterministic), unless an error came first.
 * Out of budget in automatic mode with enough replications: keep those (*stop). Returns 0
 * or the error (copied into err).
 */
static int rep_take(rep_task *tk, const ac_sim_options *opt, size_t r, unsigned long long *events,
                    int *limited, int *stop, ac_error *err)
{
    unsigned long long serial = opt->max_events == 0        ? 0
                                : opt->max_events > *events ? opt->max_events - *events
                                                            : 1;
    const ac_sim_state *s = tk->s;
    if (serial != 0 && s != NULL &&
        (s->events > serial + 1 || (s->events == serial + 1 && (tk->rc == 0 || s->budget_hit)))) {
        if (opt->replications == 0 && r >= 2) {
            *events += serial + 1;
            *limited = 1;
            *stop = 1;
            return 0;
        }
        return ac_error_set(err, AC_ELIMIT, "simulation: event budget (max_events) exhausted");
    }
    if (tk->rc != 0) {
        *err = tk->err;
        return tk->rc;
    }
    *events += s->events;
    return 0;
}

/* Add replication s's KPIs and histograms to the combined ones. */
static int rep_merge(const ac_sim_state *s, size_t nnodes, double window, ac_sim_welford *w,
                     ac_sim_hist *ph, ac_error *err)
{
    double kpi[AC_SIM_K_COUNT];
    for (size_t i = 0; i < nnodes + s->nentries; i++) {
        const ac_sim_counts *c = i < nnodes ? &s->nodes[i].c : &s->entries[i - nnodes].c;
        if (ac_sim_hist_merge(&ph[i], &c->hist) != 0)
            return ac_error_set(err, AC_ENOMEM, "simulation: out of memory");
        if (i < nnodes)
            ac_sim_node_kpis(&s->nodes[i], window, kpi);
        else
            ac_sim_entry_kpis(&s->entries[i - nnodes], window, kpi);
        for (size_t k = 0; k < AC_SIM_K_COUNT; k++)
            ac_sim_welford_add(&w[i * AC_SIM_K_COUNT + k], kpi[k]);
        /* the counts behind the loss and failure probabilities (stats.c's ratios) */
        if (i < nnodes) {
            ac_sim_welford *wi = &w[i * AC_SIM_K_COUNT];
            ac_sim_welford_count(&wi[AC_SIM_K_LOSS],
                                 s->nodes[i].kind == AC_SIM_KIND_GATEWAY ? c->lost : c->failures,
                                 c->first);
            ac_sim_welford_count(&wi[AC_SIM_K_FAILURE], c->failures, c->first);
        } else {
            ac_sim_welford_count(&w[i * AC_SIM_K_COUNT + AC_SIM_K_FAILURE], c->failed_requests,
                                 c->completions);
            ac_sim_welford_count(&w[i * AC_SIM_K_COUNT + AC_SIM_K_ERROR], c->error_requests,
                                 c->completions);
        }
    }
    return 0;
}

/* The simulated horizon: the options' or, automatically, 20,000 times the model's time scale
 * (at least 10 times its slowest), capped so that the event budget leaves room for the least
 * number of replications, then measured by a pilot run (*pilot: its state, replication 0's
 * start, or NULL). Returns 0 or the pilot's error. */
static int run_horizon(const ac_model *model, const ac_sim_options *opt, double *horizon,
                       int *limited, ac_sim_state **pilot, ac_error *err)
{
    *pilot = NULL;
    *horizon = opt->horizon > 0
                   ? opt->horizon
                   : fmax(20000.0 * ac_sim_timescale(model), 10.0 * ac_sim_slow_timescale(model));
    if (opt->horizon <= 0 && opt->max_events > 0) {
        /* the automatic horizon must leave the event budget room for the least number of
           replications: a request costs about two events per node it visits (arrival and
           completion), so cap the horizon at budget / (replications x 2 x nodes x rate) */
        double rate = 0.0,
               reps = (double)(opt->replications > 0 ? opt->replications : opt->min_replications);
        for (size_t i = 0; i < model->nsources; i++)
            rate += model->sources[i].rate * opt->load_scale;
        for (size_t i = 0; i < model->npopulations; i++)
            rate +=
                (double)model->populations[i].size / fmax(model->populations[i].think_time, 1e-3);
        if (rate > 0.0) {
            double cap =
                (double)opt->max_events /
                (fmax(reps, 2.0) * 2.0 * (double)(model->nnodes + model->nlinks + 1) * rate);
            *horizon = fmin(*horizon, fmax(cap, 10.0 * ac_sim_slow_timescale(model)));
        }
        /* a request may cost many more events than two per node (instances, polls,
           retries): measure */
        return pilot_horizon(model, opt, fmax(reps, 2.0), horizon, limited, pilot, err);
    }
    return 0;
}

/* The estimates of the r replications combined in w and ph (their `events`) into res. */
static void result_fill(const ac_model *model, const ac_sim_welford *w, const ac_sim_hist *ph,
                        size_t r, unsigned long long events, ac_sim_result *res)
{
    const size_t nnodes = model->nnodes + model->nlinks;
    for (size_t i = 0; i < model->nnodes; i++)
        node_estimates(&w[i * AC_SIM_K_COUNT], &res->nodes[i]);
    for (size_t i = 0; i < model->nlinks; i++)
        node_estimates(&w[(model->nnodes + i) * AC_SIM_K_COUNT], &res->links[i]);
    for (size_t i = 0; i < res->nentries; i++)
        entry_estimates(&w[(nnodes + i) * AC_SIM_K_COUNT], &res->entries[i]);
    for (size_t i = 0; i < nnodes; i++) {
        ac_sim_node_result *nr =
            i < model->nnodes ? &res->nodes[i] : &res->links[i - model->nnodes];
        if (!nr->is_link && nr->kind == AC_NODE_GATEWAY)
            continue; /* admission takes no time: 0 */
        pooled_quantiles(&ph[i], ph[i].n, !nr->is_link && nr->kind == AC_NODE_QUEUE,
                         &nr->p50_response_time, &nr->p95_response_time, &nr->p99_response_time);
    }
    for (size_t i = 0; i < res->nentries; i++)
        pooled_quantiles(&ph[nnodes + i], ph[nnodes + i].n, 0, &res->entries[i].p50_response_time,
                         &res->entries[i].p95_response_time, &res->entries[i].p99_response_time);
    res->replications = r;
    res->events = events;
    res->rel_halfwidth = precision(w, nnodes, model->nnodes, model->nsources + model->npopulations);
}

/* ac_sim_run's working state. */
typedef struct sim_run {
    const ac_model *model;
    ac_sim_options opt;
    ac_sim_result *res;
    ac_sim_welford *w;   /* per node, link and entry: AC_SIM_K_COUNT accumulators */
    ac_sim_hist *ph;     /* pooled histograms: nodes, then entries */
    rep_task *tasks;     /* jobs + 1 (a finished pilot runs beside jobs others) */
    ac_sim_state *pilot; /* replication 0's start (run.c's pilot_horizon), or NULL */
    int pilot_done;      /* 1: the pilot reached the horizon (only finished in its task) */
    size_t nnodes, jobs, r, look;
    double horizon, warmup, t_start;
    unsigned long long events;
    int limited, stop, looking;
    run_progress prog;
} sim_run;

/* The options (the defaults when user_opt is NULL) checked and the horizon set (the pilot
 * kept when it can go on as replication 0). 0 or AC_E*. */
static int run_setup(sim_run *sr, const ac_sim_options *user_opt, ac_error *err)
{
    ac_sim_options *opt = &sr->opt;
    int rc;
    if (user_opt != NULL)
        *opt = *user_opt;
    else
        ac_sim_options_init(opt);
    if (opt->max_jobs == 0)
        opt->max_jobs = 10000000;
    sr->jobs = opt->jobs < 1 ? 1 : opt->jobs > 255 ? 255 : opt->jobs;
    if (!(opt->load_scale > 0) || !isfinite(opt->load_scale) || !(opt->horizon >= 0) ||
        !isfinite(opt->horizon) || isnan(opt->warmup) || !(opt->rel_precision >= 0) ||
        (opt->ninitial > 0 && opt->initial == NULL) || !(opt->profile_offset >= 0) ||
        !isfinite(opt->profile_offset))
        return ac_error_set(err, AC_EINVAL, "simulation: invalid options");
    if ((rc = ac_sim_model_check(sr->model, opt, err)) != 0)
        return rc;
    rc = run_horizon(sr->model, opt, &sr->horizon, &sr->limited, &sr->pilot, err);
    if (rc != 0)
        return rc;
    /* the default warm-up: a tenth of the automatic horizon (which is at least 10 tau_slow
       and 20,000 tau unless the budget cut it), the settling time when the budget cut it */
    sr->warmup = opt->warmup >= 0 ? opt->warmup
                 : sr->limited    ? ac_sim_settling_time(sr->model)
                                  : sr->horizon / 10.0;
    if (!(sr->warmup < sr->horizon))
        return ac_error_set(err, AC_EINVAL,
                            "simulation: the warm-up (%g s) must end before "
                            "the horizon (%g s)",
                            sr->warmup, sr->horizon);
    return 0;
}

/* The result, the accumulators and the tasks; the pilot handed to task 0 when it can go on
 * as replication 0 (ac_sim_state_resume), else freed. 0 or AC_ENOMEM. */
static int run_alloc(sim_run *sr, ac_error *err)
{
    const ac_model *model = sr->model;
    size_t nslots;
    sr->nnodes = model->nnodes + model->nlinks;
    nslots = (sr->nnodes + model->nsources + model->npopulations) * AC_SIM_K_COUNT;
    sr->res = result_new(model);
    sr->w = calloc(nslots ? nslots : 1, sizeof *sr->w);
    if (sr->res != NULL)
        sr->ph = calloc(sr->nnodes + sr->res->nentries + 1, sizeof *sr->ph);
    sr->tasks = calloc(sr->jobs + 1, sizeof *sr->tasks);
    if (sr->res == NULL || sr->w == NULL || sr->ph == NULL || sr->tasks == NULL)
        return ac_error_set(err, AC_ENOMEM, "simulation: out of memory");
    if (sr->pilot != NULL) {
        sr->pilot_done = sr->pilot->status == 0;
        if (ac_sim_state_resume(sr->pilot, sr->horizon, sr->warmup, &sr->tasks[0].err))
            sr->tasks[0].s = sr->pilot;
        else
            ac_sim_state_free(sr->pilot);
        sr->pilot = NULL;
        sr->pilot_done = sr->pilot_done && sr->tasks[0].s != NULL;
    }
    sr->prog.opt = &sr->opt;
    sr->prog.horizon = sr->horizon;
    sr->looking = sr->opt.look != NULL && sr->opt.looks != NULL && sr->opt.replications == 0;
    sr->res->seed = sr->opt.seed;
    sr->res->horizon = sr->horizon;
    sr->res->warmup = sr->warmup;
    sr->res->warmup_rule = sr->opt.warmup >= 0 ? AC_SIM_WARMUP_GIVEN
                           : sr->limited       ? AC_SIM_WARMUP_SETTLING
                                               : AC_SIM_WARMUP_TENTH;
    sr->res->timescale = ac_sim_timescale(model);
    return 0;
}

/* The replications of the next batch, from r: one per job (one more when task 0 is a pilot
 * already at the horizon), at most the bound, none beyond the next look; 0: done. */
static size_t batch_size(sim_run *sr)
{
    const ac_sim_options *opt = &sr->opt;
    size_t nb = sr->jobs + (sr->r == 0 && sr->pilot_done ? 1 : 0), bound;
    if (replications_done(opt, sr->r, sr->w, sr->nnodes, sr->model, sr->events, sr->t_start,
                          &sr->limited))
        return 0;
    bound = opt->replications > 0 ? opt->replications : opt->max_replications;
    if (nb > bound - sr->r)
        nb = bound - sr->r;
    while (sr->looking && sr->look < opt->nlooks && opt->looks[sr->look] <= sr->r)
        sr->look++; /* a count already passed (not increasing): no look there */
    if (sr->looking && sr->look < opt->nlooks && nb > opt->looks[sr->look] - sr->r)
        nb = opt->looks[sr->look] - sr->r; /* no replication beyond the next look */
    return nb;
}

/* Run replications r .. r + nb - 1 (each with the budget left at the batch's start). */
static void batch_run(sim_run *sr, size_t nb)
{
    const ac_sim_options *opt = &sr->opt;
    for (size_t k = 0; k < nb; k++) {
        rep_task *tk = &sr->tasks[k];
        tk->model = sr->model;
        tk->opt = opt;
        tk->horizon = sr->horizon;
        tk->warmup = sr->warmup;
        tk->seed = ac_sim_seed_mix(opt->seed, (unsigned long long)(sr->r + k));
        tk->cap = opt->max_events == 0           ? 0
                  : opt->max_events > sr->events ? opt->max_events - sr->events
                                                 : 1;
        tk->tick = k == 0 && opt->progress != NULL ? progress_tick : NULL;
        tk->tick_ctx = &sr->prog;
    }
    sr->prog.events = sr->events;
    sr->prog.r = sr->r;
    sr->prog.nb = nb;
    run_batch(sr->tasks, nb);
}

/* Take the batch's replications in order, as one thread would have (rep_take), into the
 * accumulators; a look where one falls. 0 or AC_E*. */
static int batch_take(sim_run *sr, size_t nb, ac_error *err)
{
    const ac_sim_options *opt = &sr->opt;
    for (size_t k = 0; k < nb && !sr->stop; k++) {
        int rc;
        if (k > 0 && replications_done(opt, sr->r, sr->w, sr->nnodes, sr->model, sr->events,
                                       sr->t_start, &sr->limited))
            break;
        rc = rep_take(&sr->tasks[k], opt, sr->r, &sr->events, &sr->limited, &sr->stop, err);
        if (rc != 0 || sr->stop)
            return rc;
        rc = rep_merge(sr->tasks[k].s, sr->nnodes, sr->horizon - sr->warmup, sr->w, sr->ph, err);
        if (rc == 0 && sr->r == 0)
            rc = actions_take(sr->tasks[k].s, sr->res, err);
        if (rc != 0)
            return rc;
        sr->r++;
        if (sr->looking && sr->look < opt->nlooks && sr->r == opt->looks[sr->look]) {
            /* a look: the result so far, at a count fixed in advance */
            result_fill(sr->model, sr->w, sr->ph, sr->r, sr->events, sr->res);
            if (opt->look(opt->look_ctx, sr->res, sr->look) == 1) {
                sr->res->stopped_at_look = sr->look + 1;
                sr->stop = 1;
            }
            sr->look++;
        }
    }
    return 0;
}

/* The final estimates and flags into sr->res. */
static void run_finish(sim_run *sr)
{
    ac_sim_result *res = sr->res;
    result_fill(sr->model, sr->w, sr->ph, sr->r, sr->events, res);
    res->converged = res->rel_halfwidth <= sr->opt.rel_precision;
    /* the budget shortened the horizon, or stopped the replications before the precision */
    res->budget_limited = sr->limited && (sr->opt.replications > 0 || !res->converged ||
                                          sr->horizon < 10.0 * ac_sim_slow_timescale(sr->model) ||
                                          sr->opt.horizon <= 0);
}

static void run_free(sim_run *sr)
{
    if (sr->tasks != NULL)
        tasks_free(sr->tasks, sr->jobs + 1);
    free(sr->tasks);
    ac_sim_state_free(sr->pilot);
    ac_sim_result_free(sr->res);
    free(sr->w);
    if (sr->ph != NULL)
        for (size_t i = 0; i < sr->nnodes + sr->model->nsources + sr->model->npopulations + 1; i++)
            ac_sim_hist_free(&sr->ph[i]);
    free(sr->ph);
}

int ac_sim_run(const ac_model *model, const ac_sim_options *user_opt, ac_sim_result **out,
               ac_error *err)
{
    sim_run sr;
    int rc;
    size_t nb;
    if (out == NULL || model == NULL)
        return ac_error_set(err, AC_EINVAL, "ac_sim_run: NULL argument");
    *out = NULL;
    memset(&sr, 0, sizeof sr);
    sr.model = model;
    sr.t_start = wall_now();
    if ((rc = run_setup(&sr, user_opt, err)) != 0 || (rc = run_alloc(&sr, err)) != 0)
        goto cleanup;
    while (!sr.stop && (nb = batch_size(&sr)) > 0) {
        batch_run(&sr, nb);
        rc = batch_take(&sr, nb, err);
        tasks_free(sr.tasks, nb);
        if (rc != 0)
            goto cleanup;
        if (sr.opt.progress != NULL) {
            sr.prog.events = sr.events;
            sr.prog.r = sr.r;
            sr.prog.nb = 0;
            sr.opt.progress(sr.opt.progress_ctx, progress_done(&sr.prog, NULL));
        }
    }
    run_finish(&sr);
    *out = sr.res;
    sr.res = NULL;
cleanup:
    run_free(&sr);
    return rc;
}

static void format_estimate(ac_strbuf *sb, const char *what, const char *id, const char *kpi,
                            const ac_sim_estimate *e)
{
    ac_strbuf_printf(sb, "%s %s %s %.17g %.17g %zu\n", what, id, kpi, e->mean, e->ci95, e->n);
}

static void format_node(ac_strbuf *sb, const ac_sim_node_result *n)
{
    const char *w = n->is_link ? "link" : "node";
    format_estimate(sb, w, n->id, "arrival_rate", &n->arrival_rate);
    format_estimate(sb, w, n->id, "throughput", &n->throughput);
    format_estimate(sb, w, n->id, "utilization", &n->utilization);
    format_estimate(sb, w, n->id, "mean_jobs", &n->mean_jobs);
    format_estimate(sb, w, n->id, "loss_probability", &n->loss_probability);
    format_estimate(sb, w, n->id, "mean_response_time", &n->mean_response_time);
    format_estimate(sb, w, n->id, "p50_response_time", &n->p50_response_time);
    format_estimate(sb, w, n->id, "p95_response_time", &n->p95_response_time);
    format_estimate(sb, w, n->id, "p99_response_time", &n->p99_response_time);
    format_estimate(sb, w, n->id, "timeout_fraction", &n->timeout_fraction);
    format_estimate(sb, w, n->id, "retries_per_job", &n->retries_per_job);
    format_estimate(sb, w, n->id, "failure_probability", &n->failure_probability);
    format_estimate(sb, w, n->id, "attempt_rate", &n->attempt_rate);
    format_estimate(sb, w, n->id, "attempt_loss_fraction", &n->attempt_loss_fraction);
    if (n->is_link)
        return;
    switch (n->kind) {
    case AC_NODE_FUNCTION:
        format_estimate(sb, w, n->id, "cold_start_fraction", &n->cold_start_fraction);
        format_estimate(sb, w, n->id, "throttle_fraction", &n->throttle_fraction);
        format_estimate(sb, w, n->id, "mean_instances", &n->mean_instances);
        break;
    case AC_NODE_QUEUE:
        format_estimate(sb, w, n->id, "dead_letter_fraction", &n->dead_letter_fraction);
        format_estimate(sb, w, n->id, "backlog_fraction", &n->backlog_fraction);
        break;
    case AC_NODE_GATEWAY:
        format_estimate(sb, w, n->id, "throttle_fraction", &n->throttle_fraction);
        break;
    case AC_NODE_POOL:
        if (n->scaling_actions.n > 0) {
            format_estimate(sb, w, n->id, "scaling_actions", &n->scaling_actions);
            format_estimate(sb, w, n->id, "scaling_flaps", &n->scaling_flaps);
            format_estimate(sb, w, n->id, "server_seconds", &n->server_seconds);
        }
        break;
    }
}

int ac_sim_result_format(const ac_sim_result *res, char **out, ac_error *err)
{
    ac_strbuf sb = {0};
    if (res == NULL || out == NULL)
        return ac_error_set(err, AC_EINVAL, "ac_sim_result_format: NULL argument");
    ac_strbuf_printf(&sb,
                     "simulation seed %lu replications %zu events %llu horizon %.17g "
                     "warmup %.17g rel_halfwidth %.17g converged %d\n",
                     res->seed, res->replications, res->events, res->horizon, res->warmup,
                     res->rel_halfwidth, res->converged);
    for (size_t i = 0; i < res->nnodes; i++)
        format_node(&sb, &res->nodes[i]);
    for (size_t i = 0; i < res->nlinks; i++)
        format_node(&sb, &res->links[i]);
    for (size_t i = 0; i < res->nentries; i++) {
        const ac_sim_entry_result *e = &res->entries[i];
        const char *w = e->is_population ? "population" : "source";
        format_estimate(&sb, w, e->id, "arrival_rate", &e->arrival_rate);
        format_estimate(&sb, w, e->id, "throughput", &e->throughput);
        format_estimate(&sb, w, e->id, "mean_response_time", &e->mean_response_time);
        format_estimate(&sb, w, e->id, "p50_response_time", &e->p50_response_time);
        format_estimate(&sb, w, e->id, "p95_response_time", &e->p95_response_time);
        format_estimate(&sb, w, e->id, "p99_response_time", &e->p99_response_time);
        format_estimate(&sb, w, e->id, "failure_probability", &e->failure_probability);
    }
    *out = ac_strbuf_take(&sb);
    if (*out == NULL)
        return ac_error_set(err, AC_ENOMEM, "ac_sim_result_format: out of memory");
    return 0;
}
