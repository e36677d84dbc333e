/*
 * The pool node kind: N exponential servers behind a dispatcher.
 *
 * Per-server FCFS queues are intrusive lists of jobs (head is in service);
 * every server owns one persistent completion event. jsq and jiq keep the
 * servers sorted by queue length in `order` (a counting-sort permutation,
 * first[l] = number of servers with fewer than l jobs), updated in O(1) per
 * +-1 change, so that choosing costs O(1) whatever N. shared-queue keeps one
 * FIFO of waiting jobs and a stack of idle servers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

static int uses_order(const ac_sim_pool_state *p)
{
    return p->dispatch == AC_DISPATCH_JSQ || p->dispatch == AC_DISPATCH_JIQ;
}

/* Make first[] long enough to hold index l. */
static int first_reserve(ac_sim_state *s, ac_sim_node *n, size_t l)
{
    ac_sim_pool_state *p = &n->u.pool;
    size_t cap = p->nfirst;
    uint32_t *f;
    if (l < cap)
        return 0;
    while (cap <= l)
        cap *= 2;
    f = realloc(p->first, cap * sizeof *f);
    if (f == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (pool)");
        return AC_ENOMEM;
    }
    for (size_t i = p->nfirst; i < cap; i++)
        f[i] = (uint32_t)n->servers;
    p->first = f;
    p->nfirst = cap;
    return 0;
}

static void order_swap(ac_sim_pool_state *p, uint32_t a, uint32_t b)
{
    uint32_t sa = p->order[a], sb = p->order[b];
    p->order[a] = sb;
    p->order[b] = sa;
    p->pos[sb] = a;
    p->pos[sa] = b;
}

/* Server srv goes from length L to L + 1: move it to the end of bucket L,
 * then shrink the bucket. */
static void order_inc(ac_sim_pool_state *p, uint32_t srv, uint32_t L)
{
    uint32_t last = p->first[L + 1] - 1;
    order_swap(p, p->pos[srv], last);
    p->first[L + 1]--;
}

/* Server srv goes from length L to L - 1: move it to the start of bucket L. */
static void order_dec(ac_sim_pool_state *p, uint32_t srv, uint32_t L)
{
    order_swap(p, p->pos[srv], p->first[L]);
    p->first[L]++;
}

static inline uint32_t uniform_index(ac_sim_state *s, size_t n)
{
    return ac_sim_rng_below(s->fast, (uint32_t)n);
}

/* The server an arriving job joins (per-server dispatch). */
static inline uint32_t choose(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_pool_state *p = &n->u.pool;
    size_t N = n->servers;
    if (p->ndown > 0) /* servers down (a fault, faults.c) */
        return ac_sim_pool_choose_up(s, n);
    switch (p->dispatch) {
    case AC_DISPATCH_JSQ: {
        uint32_t m = p->len[p->order[0]];
        uint32_t end = (size_t)m + 1 < p->nfirst ? p->first[m + 1] : (uint32_t)N;
        return p->order[uniform_index(s, end)];
    }
    case AC_DISPATCH_JIQ:
        if (p->first[1] > 0)
            return p->order[uniform_index(s, p->first[1])];
        return uniform_index(s, N);
    default: return ac_sim_pool_pick(s->fast, p, N);
    }
}

static inline void start_service(ac_sim_state *s, ac_sim_node *n, uint32_t srv)
{
    ac_sim_event_schedule(s, n->u.pool.cev[srv],
                          s->now + n->u.pool.delay + ac_sim_exp(s, n->u.pool.mean_service));
}

/* Append job j to server srv (room checked by the caller). */
static inline int server_push(ac_sim_state *s, ac_sim_node *n, uint32_t srv, uint32_t j)
{
    ac_sim_pool_state *p = &n->u.pool;
    uint32_t L = p->len[srv];
    if (uses_order(p)) {
        if (first_reserve(s, n, (size_t)L + 2) != 0)
            return AC_ENOMEM;
        order_inc(p, srv, L);
    }
    ac_sim_node_touch(s, n);
    s->jobs[j].server = srv;
    s->jobs[j].next = AC_SIM_NIL;
    if (L == 0) {
        p->head[srv] = p->tail[srv] = j;
        n->nbusy++;
        start_service(s, n, srv);
    } else {
        s->jobs[p->tail[srv]].next = j;
        p->tail[srv] = j;
    }
    p->len[srv] = L + 1;
    n->njobs++;
    return 0;
}

/* shared-queue: job j starts at an idle server, or waits; 0 when refused. */
static int shared_push(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_pool_state *p = &n->u.pool;
    if (p->nidle > 0) {
        uint32_t srv = p->idle[--p->nidle];
        ac_sim_node_touch(s, n);
        p->serving[srv] = j;
        s->jobs[j].server = srv;
        n->nbusy++;
        n->njobs++;
        start_service(s, n, srv);
        return 1;
    }
    if (p->buffer != AC_UNBOUNDED && p->q_len >= p->buffer)
        return 0;
    ac_sim_node_touch(s, n);
    s->jobs[j].next = AC_SIM_NIL;
    if (p->q_len == 0)
        p->q_head = j;
    else
        s->jobs[p->q_tail].next = j;
    p->q_tail = j;
    p->q_len++;
    n->njobs++;
    return 1;
}

static int pool_arrive(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_pool_state *p = &n->u.pool;
    uint32_t srv;
    if (p->dispatch == AC_DISPATCH_SHARED_QUEUE)
        return shared_push(s, n, j);
    srv = choose(s, n);
    if (p->buffer != AC_UNBOUNDED && p->len[srv] >= p->buffer)
        return 0;
    return server_push(s, n, srv, j) == 0;
}

/* Server ev.arg completed its job. */
static void pool_event(ac_sim_state *s, ac_sim_node *n, uint32_t e)
{
    ac_sim_pool_state *p = &n->u.pool;
    uint32_t srv = s->ev[e].arg, j;
    if (s->ev[e].sub == AC_SIM_POOL_EV_SCALER) { /* the autoscaler's look (autoscale.c) */
        ac_sim_autoscale_event(s, n);
        return;
    }
    ac_sim_node_touch(s, n);
    n->njobs--;
    if (p->dispatch == AC_DISPATCH_SHARED_QUEUE) {
        j = p->serving[srv];
        if (p->q_len > 0 && !(p->down != NULL && p->down[srv])) {
            uint32_t nj = p->q_head;
            p->q_head = s->jobs[nj].next;
            p->q_len--;
            p->serving[srv] = nj;
            s->jobs[nj].server = srv;
            start_service(s, n, srv);
        } else {
            p->serving[srv] = AC_SIM_NIL;
            if (!(p->down != NULL && p->down[srv])) /* a server down parks (faults.c) */
                p->idle[p->nidle++] = srv;
            n->nbusy--;
        }
    } else {
        uint32_t L = p->len[srv];
        j = p->head[srv];
        p->head[srv] = s->jobs[j].next;
        if (uses_order(p))
            order_dec(p, srv, L);
        p->len[srv] = L - 1;
        if (L > 1)
            start_service(s, n, srv);
        else
            n->nbusy--;
    }
    ac_sim_job_done(s, n, j);
}

/* Initial state: njobs jobs at server srv (shared-queue: anywhere). Jobs
 * beyond the buffer are dropped. */
static int pool_place(ac_sim_state *s, ac_sim_node *n, size_t srv, size_t njobs)
{
    ac_sim_pool_state *p = &n->u.pool;
    for (size_t k = 0; k < njobs; k++) {
        uint32_t j;
        int ok;
        if (p->dispatch != AC_DISPATCH_SHARED_QUEUE && p->buffer != AC_UNBOUNDED &&
            p->len[srv] >= p->buffer)
            break;
        j = ac_sim_job_alloc(s);
        if (j == AC_SIM_NIL)
            return s->status;
        if (p->dispatch == AC_DISPATCH_SHARED_QUEUE)
            ok = shared_push(s, n, j);
        else
            ok = server_push(s, n, (uint32_t)srv, j) == 0;
        if (!ok) {
            ac_sim_job_release(s, j);
            break;
        }
        ac_sim_job_arm_initial(s, n, j);
        if (s->status != 0)
            return s->status;
    }
    return s->status;
}

static void pool_cleanup(ac_sim_node *n)
{
    ac_sim_pool_state *p = &n->u.pool;
    free(p->len);
    free(p->head);
    free(p->tail);
    free(p->cev);
    free(p->perm);
    free(p->order);
    free(p->pos);
    free(p->first);
    free(p->serving);
    free(p->idle);
    ac_sim_autoscale_free(p->sc);
}

const ac_sim_node_ops ac_sim_pool_ops = {"pool",     pool_arrive,  pool_event,
                                         pool_place, pool_cleanup, NULL};

/* The pool's N server slots (N = servers; an autoscaled pool's max(servers, max)). */
static int pool_alloc(ac_sim_state *s, ac_sim_node *n, const ac_pool *pool, size_t N)
{
    ac_sim_pool_state *p = &n->u.pool;
    n->ops = &ac_sim_pool_ops;
    n->kind = AC_SIM_KIND_POOL;
    n->servers = N;
    n->timeout = pool->timeout;
    n->retries = pool->retries;
    p->mean_service = 1.0 / pool->service_rate;
    p->dispatch = pool->dispatch;
    p->d = pool->d < 1 ? 2 : pool->d;
    p->with_replacement = pool->sampling == AC_SAMPLING_WITH_REPLACEMENT;
    p->buffer = pool->buffer;
    p->cev = malloc(N * sizeof *p->cev);
    if (p->cev == NULL)
        return AC_ENOMEM;
    for (size_t i = 0; i < N; i++) {
        uint32_t e = ac_sim_event_alloc(s);
        if (e == AC_SIM_NIL)
            return s->status;
        s->ev[e].kind = AC_SIM_EV_NODE;
        s->ev[e].node = n->index;
        s->ev[e].arg = (uint32_t)i;
        p->cev[i] = e;
    }
    if (p->dispatch == AC_DISPATCH_SHARED_QUEUE) {
        p->serving = malloc(N * sizeof *p->serving);
        p->idle = malloc(N * sizeof *p->idle);
        if (p->serving == NULL || p->idle == NULL)
            return AC_ENOMEM;
        /* idle stack: server 0 on top */
        for (size_t i = 0; i < N; i++) {
            p->serving[i] = AC_SIM_NIL;
            p->idle[i] = (uint32_t)(N - 1 - i);
        }
        p->nidle = N;
        p->q_head = p->q_tail = AC_SIM_NIL;
        return 0;
    }
    p->len = calloc(N, sizeof *p->len);
    p->head = malloc(N * sizeof *p->head);
    p->tail = malloc(N * sizeof *p->tail);
    if (p->len == NULL || p->head == NULL || p->tail == NULL)
        return AC_ENOMEM;
    if (p->dispatch == AC_DISPATCH_POWER_OF_D) {
        p->perm = malloc(N * sizeof *p->perm);
        if (p->perm == NULL)
            return AC_ENOMEM;
        for (size_t i = 0; i < N; i++)
            p->perm[i] = (uint32_t)i;
    }
    if (uses_order(p)) {
        p->order = malloc(N * sizeof *p->order);
        p->pos = malloc(N * sizeof *p->pos);
        p->nfirst = 16;
        p->first = malloc(p->nfirst * sizeof *p->first);
        if (p->order == NULL || p->pos == NULL || p->first == NULL)
            return AC_ENOMEM;
        for (size_t i = 0; i < N; i++)
            p->order[i] = p->pos[i] = (uint32_t)i;
        p->first[0] = 0;
        for (size_t i = 1; i < p->nfirst; i++)
            p->first[i] = (uint32_t)N;
    }
    return 0;
}

int ac_sim_pool_setup(ac_sim_state *s, ac_sim_node *n, const ac_pool *pool)
{
    size_t N = ac_sim_autoscale_slots(s, pool);
    int rc = pool_alloc(s, n, pool, N);
    if (rc != 0 || !(s->opt->autoscale && pool->has_autoscale))
        return rc;
    return ac_sim_autoscale_setup(s, n, pool);
}
