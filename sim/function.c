/*
 * The function node kind: a serverless function (doc/serverless.md, "Function").
 *
 * Instances are busy (initialising or executing: n->nbusy, at most C = n->servers) or
 * idle-warm. Idle provisioned instances are a count (used first, never reclaimed); idle
 * on-demand instances live in a ring ordered by the time they became idle, so that the most
 * recently used one (the top) is reused first and the oldest one (the bottom) is the next to
 * be reclaimed: ONE keep-alive event per function, for the bottom, is enough.
 *
 * An execution is a pooled record (ac_sim_fexec) with its end event. Its outcome is drawn when
 * it starts: X ~ Exp(duration); X > timeout fails at the timeout, otherwise it ends at X and
 * fails with probability fail-prob; a cold start adds cold-start (deterministic) first.
 *
 *   sync    an attempt that finds C busy, or needs a cold start without a scale token, is
 *           refused (throttled): the core retries it at once while `retries` last. A failed
 *           execution is retried at once the same way (ac_sim_job_retry).
 *   async   an attempt is never refused: it waits in the function's FIFO for a slot (and a
 *           token when it needs a cold start). A failed execution is retried after 60 s, then
 *           120 s before each later retry, up to `retries` times.
 *   polled  a queue hands executions over (ac_sim_function_submit) only when the function can
 *           start one at once (ac_sim_function_can_poll); with fan-out the extra executions
 *           wait in the FIFO. A failed execution is the queue's to redeliver.
 *
 * Time averages: nbusy (busy instances) and nextra (alive instances: busy + idle).
 * Counters: attempts, first, lost (throttled), retries, failures (jobs given up; for polled
 * executions: jobs of failed executions), completions (jobs passed downstream), execs, colds,
 * timeouts (executions stopped at the timeout).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

enum { FN_EXEC = 0, FN_EXPIRE, FN_TOKEN, FN_PREWARM, FN_BACKOFF };

/* The platform's back-offs of async retries (doc/serverless.md): before the first retry, and
 * before each later one. */
#define FN_BACKOFF_FIRST 60.0
#define FN_BACKOFF_LATER 120.0
/* A bucket within this of one token holds one: the refill instant is computed in floating
 * point and must not miss the token it waits for. */
#define FN_TOKEN_EPS 1e-9

/* ---- instances and tokens -------------------------------------------------------------------- */

static void alive_update(ac_sim_node *n)
{
    const ac_sim_function_state *f = &n->u.fn;
    n->nextra = n->nbusy + f->prov_idle + f->idle_len;
}

static double tokens_now(const ac_sim_state *s, const ac_sim_function_state *f)
{
    double t;
    if (isinf(f->scale_rate))
        return INFINITY;
    t = f->tokens + f->scale_rate * (s->now - f->t_tokens);
    return t < f->depth ? t : f->depth;
}

static void token_take(const ac_sim_state *s, ac_sim_function_state *f)
{
    double t;
    if (isinf(f->scale_rate))
        return;
    t = tokens_now(s, f) - 1.0;
    f->tokens = t > 0 ? t : 0.0;
    f->t_tokens = s->now;
}

static int can_start(const ac_sim_state *s, const ac_sim_node *n)
{
    const ac_sim_function_state *f = &n->u.fn;
    return n->nbusy < n->servers &&
           (f->prov_idle > 0 || f->idle_len > 0 || tokens_now(s, f) >= 1.0 - FN_TOKEN_EPS);
}

/* Only a scale token is missing (a slot is free, no instance is idle). */
static int token_bound(const ac_sim_node *n)
{
    const ac_sim_function_state *f = &n->u.fn;
    return n->nbusy < n->servers && f->prov_idle == 0 && f->idle_len == 0;
}

/* Wake up when the bucket holds one token. */
static void token_arm(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    double have;
    if (s->ev[f->tok_ev].pos != AC_SIM_NIL || !(f->scale_rate > 0) || isinf(f->scale_rate))
        return;
    have = tokens_now(s, f);
    ac_sim_event_schedule(s, f->tok_ev, s->now + (have < 1.0 ? (1.0 - have) / f->scale_rate : 0));
}

/* The keep-alive event follows the oldest idle on-demand instance. */
static void expiry_arm(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    if (f->idle_len > 0 && isfinite(f->keep_alive))
        ac_sim_event_schedule(s, f->exp_ev, f->idle_t[f->idle_head] + f->keep_alive);
    else
        ac_sim_event_cancel(s, f->exp_ev);
}

/* A new idle on-demand instance at the top (it became idle now). */
/* Double the ring of idle instances (rare: out of the inlined idle_push); 0 or AC_ENOMEM. */
static int idle_grow(ac_sim_state *s, ac_sim_function_state *f)
{
    size_t cap = f->idle_cap ? 2 * f->idle_cap : 16;
    double *t = malloc(cap * sizeof *t);
    if (t == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (function instances)");
        return AC_ENOMEM;
    }
    for (size_t i = 0; i < f->idle_len; i++)
        t[i] = f->idle_t[(f->idle_head + i) % f->idle_cap];
    free(f->idle_t);
    f->idle_t = t;
    f->idle_cap = cap;
    f->idle_head = 0;
    return 0;
}

static inline int idle_push(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    if (f->idle_len == f->idle_cap && idle_grow(s, f) != 0)
        return AC_ENOMEM;
    f->idle_t[(f->idle_head + f->idle_len) % f->idle_cap] = s->now;
    f->idle_len++;
    if (f->idle_len == 1)
        expiry_arm(s, n);
    return 0;
}

/* ---- executions ------------------------------------------------------------------------------ */

/* Double the executions' pool (rare: out of the inlined exec_alloc); 0 or AC_E*. */
static int exec_grow(ac_sim_state *s, ac_sim_function_state *f)
{
    size_t cap = f->nex_cap ? 2 * f->nex_cap : 64;
    ac_sim_fexec *ex;
    if (cap >= AC_SIM_NIL) {
        ac_sim_fail(s, AC_ELIMIT, "too many function executions");
        return AC_ELIMIT;
    }
    ex = realloc(f->ex, cap * sizeof *ex);
    if (ex == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (function executions)");
        return AC_ENOMEM;
    }
    f->ex = ex;
    for (size_t i = f->nex_cap; i < cap; i++) {
        ex[i].ev = AC_SIM_NIL;
        ex[i].next = (i + 1 < cap) ? (uint32_t)(i + 1) : f->ex_free;
    }
    f->ex_free = (uint32_t)f->nex_cap;
    f->nex_cap = cap;
    return 0;
}

/* Execution x's event, made at its first use (rare); 0 or AC_E*. */
static int exec_event_new(ac_sim_state *s, ac_sim_node *n, uint32_t x)
{
    uint32_t e = ac_sim_event_alloc(s);
    if (e == AC_SIM_NIL)
        return s->status;
    s->ev[e].kind = AC_SIM_EV_NODE;
    s->ev[e].node = n->index;
    s->ev[e].sub = FN_EXEC;
    s->ev[e].arg = x;
    n->u.fn.ex[x].ev = e;
    return 0;
}

static inline uint32_t exec_alloc(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    uint32_t x;
    if (f->ex_free == AC_SIM_NIL && exec_grow(s, f) != 0)
        return AC_SIM_NIL;
    x = f->ex_free;
    if (f->ex[x].ev == AC_SIM_NIL && exec_event_new(s, n, x) != 0)
        return AC_SIM_NIL;
    f->ex_free = f->ex[x].next;
    f->ex[x].next = AC_SIM_NIL;
    f->ex[x].queue = AC_SIM_NIL;
    f->ex[x].delivery = AC_SIM_NIL;
    f->ex[x].prov = 0;
    f->ex[x].ok = 0;
    return x;
}

static void exec_free(ac_sim_function_state *f, uint32_t x)
{
    f->ex[x].next = f->ex_free;
    f->ex_free = x;
}

/* Start execution x now on an instance (the caller checked can_start). */
static void exec_start(ac_sim_state *s, ac_sim_node *n, uint32_t x)
{
    ac_sim_function_state *f = &n->u.fn;
    double x_time, busy_for;
    int cold = 0;
    ac_sim_node_touch(s, n);
    if (f->prov_idle > 0) {
        f->prov_idle--;
        f->ex[x].prov = 1;
    } else if (f->idle_len > 0) {
        f->idle_len--; /* the most recently used */
        if (f->idle_len == 0)
            ac_sim_event_cancel(s, f->exp_ev);
    } else {
        token_take(s, f);
        cold = 1;
    }
    n->nbusy++;
    alive_update(n);
    x_time = ac_sim_exp(s, f->duration) + f->delay;
    if (x_time > f->timeout) {
        busy_for = f->timeout;
        f->ex[x].ok = 0;
        n->c.timeouts++;
    } else {
        busy_for = x_time;
        f->ex[x].ok = f->fail_prob > 0 ? ac_sim_uniform(s) >= f->fail_prob : 1;
    }
    n->c.execs++;
    if (cold) {
        n->c.colds++;
        busy_for += f->cold_start;
    }
    ac_sim_event_schedule(s, f->ex[x].ev, s->now + busy_for);
}

static void fifo_push(ac_sim_function_state *f, uint32_t x)
{
    f->ex[x].next = AC_SIM_NIL;
    if (f->w_len == 0)
        f->w_head = x;
    else
        f->ex[f->w_tail].next = x;
    f->w_tail = x;
    f->w_len++;
}

/* Start the waiting executions while instances allow. */
static void fifo_serve(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    while (f->w_len > 0) {
        uint32_t x;
        if (!can_start(s, n)) {
            if (token_bound(n))
                token_arm(s, n);
            return;
        }
        x = f->w_head;
        f->w_head = f->ex[x].next;
        f->w_len--;
        exec_start(s, n, x);
    }
}

/* Capacity may have appeared: the FIFO first, then the polling queues. */
static void capacity_changed(ac_sim_state *s, ac_sim_node *n)
{
    fifo_serve(s, n);
    for (size_t i = 0; i < n->u.fn.npollers && s->status == 0; i++)
        ac_sim_queue_poll(s, &s->nodes[n->u.fn.pollers[i]]);
}

int ac_sim_function_can_poll(ac_sim_state *s, ac_sim_node *n)
{
    if (n->u.fn.w_len > 0)
        return 0;
    if (can_start(s, n))
        return 1;
    if (token_bound(n))
        token_arm(s, n);
    return 0;
}

int ac_sim_function_submit(ac_sim_state *s, ac_sim_node *n, uint32_t jobs, uint32_t njobs,
                           uint32_t queue, uint32_t delivery)
{
    ac_sim_function_state *f = &n->u.fn;
    uint32_t x = exec_alloc(s, n);
    if (x == AC_SIM_NIL)
        return s->status;
    n->c.attempts += njobs;
    n->c.first += njobs;
    f->ex[x].jobs = jobs;
    f->ex[x].njobs = njobs;
    f->ex[x].queue = queue;
    f->ex[x].delivery = delivery;
    fifo_push(f, x);
    fifo_serve(s, n);
    return s->status;
}

/* A sync or async attempt (through the core). */
static int fn_arrive(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_function_state *f = &n->u.fn;
    uint32_t x;
    if (!f->async && !can_start(s, n))
        return 0; /* throttled */
    if (f->async)
        ac_sim_group_scope_leave(s, j); /* the caller has its answer (202) */
    x = exec_alloc(s, n);
    if (x == AC_SIM_NIL)
        return 0;
    s->jobs[j].next = AC_SIM_NIL;
    f->ex[x].jobs = j;
    f->ex[x].njobs = 1;
    if (!f->async) {
        exec_start(s, n, x);
        return 1;
    }
    fifo_push(f, x);
    fifo_serve(s, n);
    return 1;
}

/* Execution x ended: its instance becomes idle, its jobs go on, are retried or fail. */
static void exec_end(ac_sim_state *s, ac_sim_node *n, uint32_t x)
{
    ac_sim_function_state *f = &n->u.fn;
    ac_sim_fexec rec = f->ex[x];
    ac_sim_node_touch(s, n);
    exec_free(f, x);
    n->nbusy--;
    if (rec.prov)
        f->prov_idle++;
    else if (idle_push(s, n) != 0)
        return;
    alive_update(n);
    if (rec.queue != AC_SIM_NIL) {
        int pass = rec.ok && ac_sim_queue_delivery_open(s, rec.queue, rec.delivery);
        uint32_t j = rec.jobs;
        if (!rec.ok)
            n->c.failures += rec.njobs;
        while (j != AC_SIM_NIL && s->status == 0) {
            uint32_t next = s->jobs[j].next;
            if (pass)
                ac_sim_job_done(s, n, j);
            else
                ac_sim_job_drop(s, j);
            j = next;
        }
        if (s->status != 0)
            return;
        ac_sim_queue_exec_done(s, rec.queue, rec.delivery, rec.ok);
    } else if (rec.ok) {
        ac_sim_job_done(s, n, rec.jobs);
    } else if (s->jobs[rec.jobs].attempt < n->retries) {
        if (!f->async) {
            ac_sim_job_retry(s, n, rec.jobs);
        } else {
            uint32_t e = ac_sim_event_alloc(s);
            if (e == AC_SIM_NIL)
                return;
            s->ev[e].kind = AC_SIM_EV_NODE;
            s->ev[e].node = n->index;
            s->ev[e].sub = FN_BACKOFF;
            s->ev[e].arg = rec.jobs;
            ac_sim_event_schedule(
                s, e,
                s->now + (s->jobs[rec.jobs].attempt == 0 ? FN_BACKOFF_FIRST : FN_BACKOFF_LATER));
        }
    } else {
        ac_sim_job_give_up(s, n, rec.jobs);
    }
    if (s->status == 0)
        capacity_changed(s, n);
}

/* Reclaim the idle on-demand instances whose keep-alive is over (at or before now). */
static void expire(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    ac_sim_node_touch(s, n);
    while (f->idle_len > 0 && f->idle_t[f->idle_head] + f->keep_alive <= s->now) {
        f->idle_head = (f->idle_head + 1) % f->idle_cap;
        f->idle_len--;
    }
    alive_update(n);
    expiry_arm(s, n);
}

/* Pre-warming: top the instances up to `prewarm` with new idle ones. An instance whose
 * keep-alive ends at this very instant is reclaimed first (whichever event the heap
 * happens to hold first), so that a ping every keep-alive keeps W instances. */
static void prewarm(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_function_state *f = &n->u.fn;
    expire(s, n);
    while (n->nbusy + f->prov_idle + f->idle_len < f->prewarm)
        if (idle_push(s, n) != 0)
            return;
    alive_update(n);
    if (f->prewarm_interval > 0)
        ac_sim_event_schedule(s, f->pw_ev, s->now + f->prewarm_interval);
    capacity_changed(s, n);
}

static void fn_event(ac_sim_state *s, ac_sim_node *n, uint32_t e)
{
    switch (s->ev[e].sub) {
    case FN_EXEC: exec_end(s, n, s->ev[e].arg); break;
    case FN_EXPIRE: expire(s, n); break;
    case FN_TOKEN: capacity_changed(s, n); break;
    case FN_PREWARM: prewarm(s, n); break;
    case FN_BACKOFF: {
        uint32_t j = s->ev[e].arg;
        ac_sim_event_release(s, e);
        ac_sim_job_retry(s, n, j);
        break;
    }
    default: ac_sim_fail(s, AC_EINVAL, "internal error: unknown function event"); break;
    }
}

static int fn_place(ac_sim_state *s, ac_sim_node *n, size_t server, size_t njobs)
{
    (void)n;
    (void)server;
    (void)njobs;
    return ac_error_set(s->err, AC_EINVAL, "simulation: an initial state is for pools only");
}

static void fn_cleanup(ac_sim_node *n)
{
    free(n->u.fn.idle_t);
    free(n->u.fn.ex);
    free(n->u.fn.pollers);
}

const ac_sim_node_ops ac_sim_function_ops = {"function", fn_arrive,  fn_event,
                                             fn_place,   fn_cleanup, NULL};

static uint32_t own_event(ac_sim_state *s, const ac_sim_node *n, uint8_t sub)
{
    uint32_t e = ac_sim_event_alloc(s);
    if (e == AC_SIM_NIL)
        return AC_SIM_NIL;
    s->ev[e].kind = AC_SIM_EV_NODE;
    s->ev[e].node = n->index;
    s->ev[e].sub = sub;
    return e;
}

int ac_sim_function_setup(ac_sim_state *s, ac_sim_node *n, const ac_function *fn)
{
    ac_sim_function_state *f = &n->u.fn;
    const ac_model *m = s->model;
    n->ops = &ac_sim_function_ops;
    n->kind = AC_SIM_KIND_FUNCTION;
    n->servers = fn->concurrency;
    n->timeout = 0; /* the execution timeout is the function's own */
    n->retries = fn->retries;
    f->duration = fn->duration;
    f->cold_start = fn->cold_start;
    f->keep_alive = fn->keep_alive;
    f->scale_rate = fn->scale_rate;
    f->depth = ac_function_scale_depth(fn);
    f->tokens = f->depth; /* full at time 0 */
    f->timeout = fn->timeout;
    f->fail_prob = fn->fail_prob;
    f->async = fn->invocation == AC_INVOCATION_ASYNC;
    f->prov_idle = fn->provisioned;
    f->prewarm = fn->prewarm;
    f->prewarm_interval = fn->prewarm_interval;
    f->ex_free = f->w_head = f->w_tail = AC_SIM_NIL;
    alive_update(n);
    if ((f->exp_ev = own_event(s, n, FN_EXPIRE)) == AC_SIM_NIL ||
        (f->tok_ev = own_event(s, n, FN_TOKEN)) == AC_SIM_NIL ||
        (f->pw_ev = own_event(s, n, FN_PREWARM)) == AC_SIM_NIL)
        return s->status;
    if (f->prewarm > 0)
        ac_sim_event_schedule(s, f->pw_ev, 0.0);
    for (size_t r = s->graph.to.start[n->index]; r < s->graph.to.start[n->index + 1]; r++) {
        size_t k = s->graph.to.idx[r], q = m->routes[k].from, i;
        if (m->nodes[q].kind != AC_NODE_QUEUE)
            continue;
        for (i = 0; i < f->npollers && f->pollers[i] != q; i++)
            ;
        if (i < f->npollers)
            continue;
        if (f->pollers == NULL && (f->pollers = malloc(m->nnodes * sizeof *f->pollers)) == NULL)
            return AC_ENOMEM;
        f->pollers[f->npollers++] = (uint32_t)q;
    }
    return 0;
}
