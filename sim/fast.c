/*
 * The simulator's fast path: ONE pool of random or power-of-d dispatch (no timeout, retry,
 * autoscaler, fault or initial job) fed by ONE Poisson source, the model of the pool
 * benchmark (bench/sim_bench.c) and of most accuracy cases of the mean field.
 *
 * It follows the sample path of the generic loop (core.c's run_events) draw for draw: the
 * next arrival (exponential) before the dispatch draws, then the service of a job that
 * finds its server idle; a completion draws the server's next service. Ties between
 * events have probability zero (continuous times), so the order of events is the same (at
 * an exact tie a completion goes first here; the generic heap promises no order). It
 * counts what run_events counts, in the same floating-point order: the node's time
 * averages (touched at every accepted arrival and every completion), its attempts, losses
 * and response times (sum and histogram), and the entry's (the end-to-end time of a
 * request of one job is its response time at the pool: the entry's counts are the node's,
 * copied at the end). `simulate` of such a model is byte-identical to the generic loop's.
 *
 * What it leaves out is what that model does not need: event objects and their heap
 * positions (the heap holds the busy servers' completion times and server numbers, the
 * next arrival is kept apart), request groups, routing, timeouts, per-event dispatch
 * through the node kind's table. Jobs are the core's (s->jobs, its free list), queued per
 * server through job.next as in pool.c. Measured (callgrind, bench/sim_bench.c's pool: N =
 * 100, rho 0.9, power-of-two, 2000 s): 453.7 instructions per event in the generic loop,
 * 206.7 here, against 194.5 for the hand-written bench/sim_ref.c (the same statistics);
 * about 52 of them are the generator's.
 */
#include <math.h>

#include "sim/internal.h"

int ac_sim_fast_eligible(const ac_sim_state *s)
{
    const ac_sim_options *o = s->opt;
    const ac_sim_node *n;
    const ac_sim_pool_state *p;
    const ac_sim_entry *e;
    if (s->nnodes != 1 || s->nroutes != 0 || s->nentries != 1 || s->nsources != 1 ||
        o->ninitial != 0 || (o->faults != NULL && o->faults->nfaults > 0) || s->nheap != 1 ||
        s->hole || s->status != 0 || s->measuring || s->njobs_live != 0)
        return 0;
    n = &s->nodes[0];
    p = &n->u.pool;
    e = &s->entries[0];
    return n->kind == AC_SIM_KIND_POOL &&
           (p->dispatch == AC_DISPATCH_RANDOM || p->dispatch == AC_DISPATCH_POWER_OF_D) &&
           p->sc == NULL && p->ndown == 0 && p->delay == 0.0 && !(n->timeout > 0) &&
           n->retries == 0 && n->njobs == 0 && e->to == 0 && e->profile == NULL && e->scv == 1.0 &&
           e->rate > 0 && s->hev[0] == e->ev;
}

/* The loop's state, in locals (flushed into s and the node around every call out). */
typedef struct fast_run {
    double now, last, next; /* the time, the node's last touch, the next arrival */
    double area_jobs, area_busy, sum_resp;
    uint64_t njobs, attempts, refused, timed, events;
    size_t nheap;     /* busy servers: heap of (completion time, server) in key, srv */
    double *key;      /* s->hkey */
    uint32_t *srv;    /* s->hev */
    ac_sim_job *jobs; /* s->jobs (moves when the pool grows) */
    uint32_t job_free;
    int measuring;
} fast_run;

static inline void fast_flush(ac_sim_state *s, const fast_run *f)
{
    ac_sim_node *n = &s->nodes[0];
    s->now = f->now;
    s->events = f->events;
    s->job_free = f->job_free;
    s->njobs_live = (size_t)f->njobs;
    n->njobs = f->njobs;
    n->nbusy = f->nheap;
    n->c.last_t = f->last;
    n->c.area_jobs = f->area_jobs;
    n->c.area_busy = f->area_busy;
    n->c.sum_resp = f->sum_resp;
    n->c.attempts = n->c.first = f->attempts;
    n->c.lost = n->c.failures = f->refused;
    n->c.completions = n->c.timed = f->timed;
}

static inline void fast_reload(const ac_sim_state *s, fast_run *f)
{
    const ac_sim_node *n = &s->nodes[0];
    f->measuring = s->measuring;
    f->last = n->c.last_t;
    f->area_jobs = n->c.area_jobs;
    f->area_busy = n->c.area_busy;
    f->sum_resp = n->c.sum_resp;
    f->attempts = n->c.attempts;
    f->refused = n->c.failures;
    f->timed = n->c.timed;
}

/* The entry's counts from the node's (a request is one job; see the top). */
static int fast_entry_counts(ac_sim_state *s)
{
    const ac_sim_counts *nc = &s->nodes[0].c;
    ac_sim_counts *ec = &s->entries[0].c;
    ec->attempts = nc->first;
    ec->completions = nc->timed + nc->failures;
    ec->failed_requests = nc->failures;
    ec->timed = nc->timed;
    ec->sum_resp = nc->sum_resp;
    if (ac_sim_hist_merge(&ec->hist, &nc->hist) != 0) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (histogram)");
        return s->status;
    }
    return 0;
}

/* (t, v) into the 4-ary heap's hole at the root, sifting down (sim/heap.h's rule). */
static inline void fast_sift_down(double *key, uint32_t *srv, size_t n, double t, uint32_t v)
{
    size_t i = 0;
    for (;;) {
        size_t best;
        double kb;
        if (!ac_sim_heap_min_child(key, n, i, &best, &kb) || kb >= t)
            break;
        key[i] = kb;
        srv[i] = srv[best];
        i = best;
    }
    key[i] = t;
    srv[i] = v;
}

/* (t, v) appended to the heap of n items, sifting up. */
static inline void fast_push(double *key, uint32_t *srv, size_t n, double t, uint32_t v)
{
    size_t i = n;
    while (i > 0) {
        size_t q = (i - 1) / AC_SIM_HEAP_D;
        if (key[q] <= t)
            break;
        key[i] = key[q];
        srv[i] = srv[q];
        i = q;
    }
    key[i] = t;
    srv[i] = v;
}

/* The node's time averages up to now (ac_sim_node_touch; nextra is 0 for a pool). */
static inline void fast_touch(fast_run *f)
{
    double dt = f->now - f->last;
    f->area_jobs += dt * (double)(int64_t)f->njobs;
    f->area_busy += dt * (double)(int64_t)f->nheap;
    f->last = f->now;
}

/* An arrival at f->now (the next one already drawn): pool.c's pool_arrive. 0 or AC_E*. */
static inline int fast_arrive(ac_sim_state *s, fast_run *f, ac_sim_rng *rng)
{
    ac_sim_node *n = &s->nodes[0];
    ac_sim_pool_state *p = &n->u.pool;
    uint32_t srv, L, j;
    if (f->njobs >= s->max_jobs) {
        ac_sim_fail(s, AC_ELIMIT,
                    "more jobs in the system than max_jobs: the model looks "
                    "overloaded");
        return s->status;
    }
    if (f->job_free == AC_SIM_NIL) {
        s->job_free = f->job_free;
        if (ac_sim_jobs_grow(s) != 0)
            return s->status;
        f->job_free = s->job_free;
        f->jobs = s->jobs;
    }
    f->attempts++;
    srv = ac_sim_pool_pick(rng, p, n->servers);
    L = p->len[srv];
    if (p->buffer != AC_UNBOUNDED && L >= p->buffer) {
        f->refused++;
        return 0;
    }
    fast_touch(f);
    j = f->job_free;
    f->job_free = f->jobs[j].next;
    f->jobs[j].t_arrive = f->now;
    f->jobs[j].next = AC_SIM_NIL;
    if (L == 0) {
        p->head[srv] = p->tail[srv] = j;
        fast_push(f->key, f->srv, f->nheap++,
                  f->now + p->mean_service * ac_sim_rng_exp1(rng, &s->zig), srv);
    } else {
        f->jobs[p->tail[srv]].next = j;
        p->tail[srv] = j;
    }
    p->len[srv] = L + 1;
    f->njobs++;
    return 0;
}

/* The server at the heap's root completes its oldest job: pool_event, then
 * ac_sim_job_done's record. 0 or AC_ENOMEM. */
static inline int fast_complete(ac_sim_state *s, fast_run *f, ac_sim_rng *rng)
{
    ac_sim_pool_state *p = &s->nodes[0].u.pool;
    uint32_t srv = f->srv[0], L = p->len[srv], j = p->head[srv];
    fast_touch(f);
    f->njobs--;
    p->head[srv] = f->jobs[j].next;
    p->len[srv] = L - 1;
    if (L > 1) {
        fast_sift_down(f->key, f->srv, f->nheap,
                       f->now + p->mean_service * ac_sim_rng_exp1(rng, &s->zig), srv);
    } else {
        f->nheap--;
        if (f->nheap > 0)
            fast_sift_down(f->key, f->srv, f->nheap, f->key[f->nheap], f->srv[f->nheap]);
    }
    if (f->measuring) {
        double t = f->now - f->jobs[j].t_arrive;
        size_t b = ac_sim_hist_bin(t);
        uint64_t *oct = s->nodes[0].c.hist.oct[b >> AC_SIM_HIST_SUB_BITS];
        f->timed++;
        f->sum_resp += t;
        if (oct != NULL) {
            oct[b & (AC_SIM_HIST_SUB - 1)]++;
            s->nodes[0].c.hist.n++;
        } else if (ac_sim_hist_add(&s->nodes[0].c.hist, b, 1) != 0) {
            ac_sim_fail(s, AC_ENOMEM, "out of memory (histogram)");
        }
    }
    f->jobs[j].next = f->job_free;
    f->job_free = j;
    return s->status;
}

/* Every 65,536 events or at the budget (core.c's run_events): 0, or AC_ELIMIT. */
static inline int fast_check(ac_sim_state *s, const fast_run *f)
{
    s->events = f->events;
    if (s->event_cap != 0 && s->events > s->event_cap) {
        s->budget_hit = 1;
        ac_sim_fail(s, AC_ELIMIT, "event budget (max_events) exhausted");
        return s->status;
    }
    if (s->tick != NULL && (s->events & 0xffffu) == 0) {
        fast_flush(s, f);
        s->tick(s, s->tick_ctx);
    }
    return 0;
}

int ac_sim_fast_run(ac_sim_state *s)
{
    fast_run f = {0};
    ac_sim_rng *rng = s->fast;
    const double horizon = s->horizon, warmup = s->warmup, gap = s->entries[0].mean_gap;
    uint64_t check = ac_sim_next_check(s);
    int rc = 0;
    f.now = s->now;
    f.next = s->hkey[0]; /* the source's first arrival, the only event scheduled */
    f.events = s->events;
    f.key = s->hkey;
    f.srv = s->hev;
    f.jobs = s->jobs;
    f.job_free = s->job_free;
    fast_reload(s, &f);
    s->nheap = 0;
    for (;;) {
        int arrival = f.nheap == 0 || f.next < f.key[0];
        double t = arrival ? f.next : f.key[0];
        if (t > horizon)
            break;
        if (!f.measuring && t >= warmup) {
            fast_flush(s, &f);
            ac_sim_measure_begin(s);
            fast_reload(s, &f);
        }
        f.now = t;
        if (arrival) {
            f.next = t + gap * ac_sim_rng_exp1(rng, &s->zig);
            rc = fast_arrive(s, &f, rng);
        } else {
            rc = fast_complete(s, &f, rng);
        }
        f.events++;
        if (rc != 0)
            break;
        if (f.events >= check) {
            if ((rc = fast_check(s, &f)) != 0)
                break;
            check = ac_sim_next_check(s);
        }
    }
    fast_flush(s, &f);
    if (rc == 0 && s->measuring)
        rc = fast_entry_counts(s);
    return rc;
}
