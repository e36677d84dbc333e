/*
 * The simulator's fast path: ONE pool of random or power-of-d dispatch (no timeout, retry,
 * autoscaler, fault or initial job) fed by ONE Poisson source, the model of the pool
 * benchmark (bench/sim_bench.c) and of most accuracy cases of the mean field.
 *
 * Such a pool is a continuous-time Markov chain (exponential inter-arrivals and services),
 * so it is simulated by its jump chain (Gillespie's direct method) instead of an event
 * heap: with k busy servers the next event comes after an Exp(lambda + k mu) time, and it is
 * an arrival with probability lambda / (lambda + k mu), else a completion at one of the k
 * busy servers, each equally likely (memorylessness: a busy server's remaining service is
 * Exp(mu) whatever it has done). One uniform u decides both: x = u (lambda / mu + k) is an
 * arrival below lambda / mu, else the completion of busy server floor(x - lambda / mu). The
 * sample path has the same law as the generic loop's (core.c's run_events, where each busy
 * server's completion time is drawn in advance and kept in the heap), not the same draws:
 * the two agree within their confidence intervals (tests/test_sim_large.c), not in bits.
 *
 * Per event: one exponential (scaled by 1 / (lambda + k mu), a table over k) and one
 * uniform (none while every server is idle: the next event is then an arrival); an
 * arrival then draws its dispatch (fast_pick: one draw for power-of-two with replacement,
 * else ac_sim_pool_pick). The busy servers are an unordered
 * array (a server's slot in bpos; a server that goes idle is swapped with the last). It
 * counts what run_events counts: the node's time averages (touched at every accepted
 * arrival and every completion), its attempts, losses and response times (sum and
 * histogram), and the entry's (the end-to-end time of a request of one job is its response
 * time at the pool: the entry's counts are the node's, copied at the end). Response times
 * are recorded during the warm-up too (ac_sim_measure_begin zeroes them), which spares a
 * branch per completion. Jobs are the core's (s->jobs, its free list), queued per server
 * through job.next as in pool.c. Measured (callgrind, bench/sim_bench.c's pool: N = 100,
 * rho 0.9, power-of-two, 2000 s): 453.7 instructions per event in the generic loop, 208.9
 * here with the heap of completions (sim/heap.h), 180.5 with the jump chain, 173.4 with one
 * draw for power-of-two's two servers, against 194.5 for the hand-written heap simulator
 * bench/sim_ref.c (the same statistics); per CPU second 40 M events against its 23 M.
 */
#include <math.h>
#include <stdlib.h>

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
           e->rate > 0 && s->hev[0] == e->ev && n->servers < UINT32_MAX;
}

/* The loop's state, in locals (flushed into s and the node around every call out). */
typedef struct fast_run {
    double now, last; /* the time, the node's last touch */
    double area_jobs, area_busy, sum_resp;
    uint64_t njobs, attempts, refused, timed, events;
    size_t nbusy;                /* busy servers */
    uint32_t *busy;              /* the busy servers, unordered */
    uint32_t *bpos;              /* per server: its slot in busy while it is busy */
    double *inv_rate;            /* per busy count k = 0..N: 1 / (lambda + k mu) */
    uint32_t *len, *head, *tail; /* the pool's (p->len, p->head, p->tail) */
    ac_sim_hist *hist;           /* the node's */
    ac_sim_job *jobs;            /* s->jobs (moves when the pool grows) */
    uint32_t job_free;
} fast_run;

#define FAST_ARRIVAL SIZE_MAX

static inline void fast_flush(ac_sim_state *s, const fast_run *f)
{
    ac_sim_node *n = &s->nodes[0];
    s->now = f->now;
    s->events = f->events;
    s->job_free = f->job_free;
    s->njobs_live = (size_t)f->njobs;
    n->njobs = f->njobs;
    n->nbusy = f->nbusy;
    n->c.last_t = f->last;
    n->c.area_jobs = f->area_jobs;
    n->c.area_busy = f->area_busy;
    n->c.sum_resp = f->sum_resp;
    n->c.attempts = n->c.first = f->attempts;
    n->c.lost = n->c.failures = f->refused;
    n->c.completions = n->c.timed = f->timed;
    n->c.hist.n = f->timed; /* every timed completion is in the histogram */
}

static inline void fast_reload(const ac_sim_state *s, fast_run *f)
{
    const ac_sim_node *n = &s->nodes[0];
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
    ec->failed_requests = ec->error_requests = nc->failures; /* a pool's refusals: errors */
    ec->timed = nc->timed;
    ec->sum_resp = nc->sum_resp;
    if (ac_sim_hist_merge(&ec->hist, &nc->hist) != 0) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (histogram)");
        return s->status;
    }
    return 0;
}

/* The node's time averages up to now (ac_sim_node_touch; nextra is 0 for a pool). */
static inline void fast_touch(fast_run *f)
{
    double dt = f->now - f->last;
    f->area_jobs += dt * (double)(int64_t)f->njobs;
    f->area_busy += dt * (double)(int64_t)f->nbusy;
    f->last = f->now;
}

/* The event after f->now (see the top): its time, and in *slot FAST_ARRIVAL or the busy
 * slot of the server that completes. off = lambda / mu. */
static inline double fast_next(const fast_run *f, ac_sim_rng *rng, const ac_sim_zig *zig,
                               double off, size_t *slot)
{
    double t = f->now + ac_sim_rng_exp1(rng, zig) * f->inv_rate[f->nbusy];
    double x;
    size_t i;
    *slot = FAST_ARRIVAL;
    if (f->nbusy == 0)
        return t;
    x = ac_sim_rng_uniform(rng) * (off + (double)f->nbusy) - off;
    if (x >= 0) {
        i = (size_t)x;
        *slot = i < f->nbusy ? i : f->nbusy - 1; /* x rounded up to k */
    }
    return t;
}

/* A uniform server below n from the 32-bit word x, by Lemire's multiply-shift; a rejected
 * word is replaced by a fresh draw's top bits (ac_sim_rng_below's rule: unbiased). */
static inline uint32_t fast_below(ac_sim_rng *r, uint64_t x, uint32_t n)
{
    uint64_t m = x * (uint64_t)n;
    if ((uint32_t)m < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while ((uint32_t)m < t)
            m = (ac_sim_rng_next(r) >> 32) * (uint64_t)n;
    }
    return (uint32_t)(m >> 32);
}

/* The server an arrival joins. Power-of-two with replacement takes its two independent
 * uniform servers from the two 32-bit halves of ONE draw (every bit of xoshiro256** is
 * equally good), the shorter of them (the first at a tie); any other policy:
 * ac_sim_pool_pick. */
static inline uint32_t fast_pick(ac_sim_rng *r, ac_sim_pool_state *p, const uint32_t *len, size_t N)
{
    if (p->dispatch == AC_DISPATCH_POWER_OF_D && p->with_replacement && p->d == 2) {
        uint64_t u = ac_sim_rng_next(r);
        uint32_t a = fast_below(r, u >> 32, (uint32_t)N);
        uint32_t b = fast_below(r, u & 0xffffffffu, (uint32_t)N);
        return len[b] < len[a] ? b : a;
    }
    return ac_sim_pool_pick(r, p, N);
}

/* An arrival at f->now: pool.c's pool_arrive. 0 or AC_E*. */
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
    srv = fast_pick(rng, p, f->len, n->servers);
    L = f->len[srv];
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
        f->head[srv] = f->tail[srv] = j;
        f->bpos[srv] = (uint32_t)f->nbusy;
        f->busy[f->nbusy++] = srv;
    } else {
        f->jobs[f->tail[srv]].next = j;
        f->tail[srv] = j;
    }
    f->len[srv] = L + 1;
    f->njobs++;
    return 0;
}

/* The server in busy slot `slot` completes its oldest job: pool_event, then
 * ac_sim_job_done's record. 0 or AC_ENOMEM. */
static inline int fast_complete(ac_sim_state *s, fast_run *f, size_t slot)
{
    uint32_t srv = f->busy[slot], L = f->len[srv], j = f->head[srv];
    double t = f->now - f->jobs[j].t_arrive;
    size_t b = ac_sim_hist_bin(t);
    uint64_t *oct = f->hist->oct[b >> AC_SIM_HIST_SUB_BITS];
    fast_touch(f);
    f->njobs--;
    f->head[srv] = f->jobs[j].next;
    f->len[srv] = L - 1;
    if (L == 1) { /* idle: the last busy server takes its slot */
        uint32_t last = f->busy[--f->nbusy];
        f->busy[slot] = last;
        f->bpos[last] = (uint32_t)slot;
    }
    f->timed++;
    f->sum_resp += t;
    if (oct != NULL)
        oct[b & (AC_SIM_HIST_SUB - 1)]++;
    else if (ac_sim_hist_add(f->hist, b, 1) != 0)
        ac_sim_fail(s, AC_ENOMEM, "out of memory (histogram)");
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

/* busy, bpos and the rate table in one block (freed by the caller); 0 or AC_ENOMEM. */
static int fast_alloc(ac_sim_state *s, fast_run *f, void **block)
{
    const size_t N = s->nodes[0].servers;
    const double lambda = s->entries[0].rate, mu = 1.0 / s->nodes[0].u.pool.mean_service;
    double *inv;
    uint32_t *idx;
    *block = malloc((N + 1) * sizeof *inv + 2 * N * sizeof *idx);
    if (*block == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (fast path)");
        return s->status;
    }
    inv = *block;
    idx = (uint32_t *)(inv + N + 1);
    inv[0] = s->entries[0].mean_gap;
    for (size_t k = 1; k <= N; k++)
        inv[k] = 1.0 / (lambda + (double)k * mu);
    f->inv_rate = inv;
    f->busy = idx;
    f->bpos = idx + N;
    return 0;
}

int ac_sim_fast_run(ac_sim_state *s)
{
    fast_run f = {0};
    ac_sim_rng *rng = s->fast;
    const ac_sim_zig *zig = &s->zig;
    ac_sim_pool_state *p = &s->nodes[0].u.pool;
    const double horizon = s->horizon, off = s->entries[0].rate * p->mean_service;
    double limit = s->warmup, t = s->hkey[0]; /* the source's first arrival */
    size_t slot = FAST_ARRIVAL;
    uint64_t check = ac_sim_next_check(s);
    void *block = NULL;
    int rc;
    if ((rc = fast_alloc(s, &f, &block)) != 0)
        return rc;
    f.now = s->now;
    f.events = s->events;
    f.len = p->len;
    f.head = p->head;
    f.tail = p->tail;
    f.hist = &s->nodes[0].c.hist;
    f.jobs = s->jobs;
    f.job_free = s->job_free;
    fast_reload(s, &f);
    s->nheap = 0;
    for (;;) {
        if (t >= limit) { /* the warm-up's end, or the horizon */
            if (t > horizon)
                break;
            if (!s->measuring) {
                fast_flush(s, &f);
                ac_sim_measure_begin(s);
                fast_reload(s, &f);
            }
            limit = horizon;
        }
        f.now = t;
        rc = slot == FAST_ARRIVAL ? fast_arrive(s, &f, rng) : fast_complete(s, &f, slot);
        f.events++;
        if (rc != 0)
            break;
        if (f.events >= check) {
            if ((rc = fast_check(s, &f)) != 0)
                break;
            check = ac_sim_next_check(s);
        }
        t = fast_next(&f, rng, zig, off, &slot);
    }
    fast_flush(s, &f);
    free(block);
    if (rc == 0 && s->measuring)
        rc = fast_entry_counts(s);
    return rc;
}
