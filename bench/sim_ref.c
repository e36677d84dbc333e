/*
 * sim_ref: a hand-written C simulator of ONE pool (issue 14: the reference the simulator's
 * speed is measured against). N exponential servers (rate mu), per-server FCFS, Poisson
 * arrivals at rate lambda, power-of-two with replacement (the server with fewer jobs of two
 * independent uniform draws; a tie goes to the first). It measures what archcheck's
 * simulator measures for that pool over [warmup, horizon]: the time average of jobs per
 * server and of busy servers, the mean response time and its histogram (the same 256 bins
 * per octave, read off the double's bits), so its work per event is the least a simulator
 * of the same statistics can do, not less.
 *
 * It draws from the same generator as sim/ (xoshiro256**, Lemire integers, the ziggurat
 * exponential: sim/rng.h), so the ratio of the two simulators' instructions per event is
 * the engine's overhead alone. The event set is an array binary min-heap of the busy
 * servers' completion times with replace-top (a server that completes and has a next job
 * keeps the root, one sift-down), and the next arrival kept apart: no event objects, no
 * cancellation, nothing allocated per event (the per-server rings of arrival times grow by
 * doubling).
 */
#include "sim_ref.h"

#include <stdlib.h>
#include <string.h>

#include "sim/rng.h"

#define REF_SUB_BITS 8
#define REF_MIN_EXP  (-30)
#define REF_BINS     ((size_t)64 << REF_SUB_BITS)

typedef struct ref_server {
    double *ring; /* arrival times of the jobs held, FCFS */
    uint32_t head, len, cap;
} ref_server;

typedef struct ref_item {
    double t;
    uint32_t srv;
} ref_item;

typedef struct ref_state {
    ac_sim_rng rng;
    ac_sim_zig zig;
    ref_server *srv;
    ref_item *heap; /* busy servers' completions */
    uint64_t *hist;
    size_t nheap, n;
    double now, last, area_jobs, area_busy, sum_resp;
    uint64_t jobs, done;
    int measuring;
} ref_state;

static size_t ref_bin(double x)
{
    uint64_t bits;
    if (!(x >= 0x1p-30))
        return 0;
    if (x >= 0x1p34)
        return REF_BINS - 1;
    memcpy(&bits, &x, sizeof bits);
    return (size_t)((bits >> (52 - REF_SUB_BITS)) -
                    ((uint64_t)(1023 + REF_MIN_EXP) << REF_SUB_BITS));
}

static void ref_sift_down(ref_state *st, size_t i, ref_item it)
{
    ref_item *h = st->heap;
    size_t n = st->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].t < h[c].t)
            c++;
        if (h[c].t >= it.t)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = it;
}

static void ref_push(ref_state *st, ref_item it)
{
    ref_item *h = st->heap;
    size_t i = st->nheap++;
    while (i > 0 && h[(i - 1) / 2].t > it.t) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = it;
}

/* Time averages up to now (jobs and busy servers are the counts before the change). */
static void ref_touch(ref_state *st)
{
    double dt = st->now - st->last;
    st->area_jobs += (double)st->jobs * dt;
    st->area_busy += (double)st->nheap * dt;
    st->last = st->now;
}

static int ref_arrive(ref_state *st)
{
    uint32_t a = ac_sim_rng_below(&st->rng, (uint32_t)st->n);
    uint32_t b = ac_sim_rng_below(&st->rng, (uint32_t)st->n);
    ref_server *sv;
    if (st->srv[b].len < st->srv[a].len)
        a = b;
    sv = &st->srv[a];
    if (sv->len == sv->cap) { /* double the ring, unwrapping it */
        uint32_t cap = sv->cap ? 2 * sv->cap : 8;
        double *r = malloc(cap * sizeof *r);
        if (r == NULL)
            return -1;
        for (uint32_t k = 0; k < sv->len; k++)
            r[k] = sv->ring[(sv->head + k) & (sv->cap - 1)];
        free(sv->ring);
        sv->ring = r;
        sv->head = 0;
        sv->cap = cap;
    }
    ref_touch(st);
    sv->ring[(sv->head + sv->len) & (sv->cap - 1)] = st->now;
    if (sv->len++ == 0) {
        ref_item it = {st->now + ac_sim_rng_exp1(&st->rng, &st->zig), a};
        ref_push(st, it);
    }
    st->jobs++;
    return 0;
}

/* The server at the root completes its oldest job. */
static void ref_complete(ref_state *st)
{
    uint32_t s = st->heap[0].srv;
    ref_server *sv = &st->srv[s];
    double resp = st->now - sv->ring[sv->head];
    ref_touch(st);
    sv->head = (sv->head + 1) & (sv->cap - 1);
    st->jobs--;
    if (--sv->len > 0) {
        ref_item it = {st->now + ac_sim_rng_exp1(&st->rng, &st->zig), s};
        ref_sift_down(st, 0, it);
    } else if (--st->nheap > 0) {
        ref_sift_down(st, 0, st->heap[st->nheap]);
    }
    if (st->measuring) {
        st->sum_resp += resp;
        st->hist[ref_bin(resp)]++;
        st->done++;
    }
}

static void ref_free(ref_state *st)
{
    if (st->srv != NULL)
        for (size_t i = 0; i < st->n; i++)
            free(st->srv[i].ring);
    free(st->srv);
    free(st->heap);
    free(st->hist);
}

/* Mean time unit 1/mu = 1 (times scaled by mu). */
int sim_ref_run(size_t servers, double rho, double horizon, double warmup, uint64_t seed,
                sim_ref_result *out)
{
    ref_state st;
    double next, mean_gap = 1.0 / (rho * (double)servers);
    int rc = -1;
    memset(&st, 0, sizeof st);
    memset(out, 0, sizeof *out);
    st.n = servers;
    ac_sim_rng_seed(&st.rng, seed);
    ac_sim_zig_init(&st.zig);
    st.srv = calloc(servers, sizeof *st.srv);
    st.heap = malloc(servers * sizeof *st.heap);
    st.hist = calloc(REF_BINS, sizeof *st.hist);
    if (st.srv == NULL || st.heap == NULL || st.hist == NULL || servers >= UINT32_MAX)
        goto cleanup;
    next = ac_sim_rng_exp1(&st.rng, &st.zig) * mean_gap;
    for (;;) {
        int arrival = st.nheap == 0 || next < st.heap[0].t;
        double t = arrival ? next : st.heap[0].t;
        if (t > horizon)
            break;
        if (!st.measuring && t >= warmup) {
            st.now = warmup;
            ref_touch(&st);
            st.area_jobs = st.area_busy = 0;
            st.measuring = 1;
        }
        st.now = t;
        if (arrival) {
            next = t + ac_sim_rng_exp1(&st.rng, &st.zig) * mean_gap;
            if (ref_arrive(&st) != 0)
                goto cleanup;
        } else {
            ref_complete(&st);
        }
        out->events++;
    }
    st.now = horizon;
    ref_touch(&st);
    out->mean_jobs = st.area_jobs / ((horizon - warmup) * (double)servers);
    out->utilization = st.area_busy / ((horizon - warmup) * (double)servers);
    out->mean_response = st.done > 0 ? st.sum_resp / (double)st.done : 0.0;
    out->completions = st.done;
    rc = 0;
cleanup:
    ref_free(&st);
    return rc;
}
