/*
 * The queue node kind: an SQS-like queue polled by its consumer functions
 * (doc/serverless.md, "Queue").
 *
 * A message is the job that arrived (its t_arrive: the arrival; its `attempt`: how many times
 * it was received). Never-received messages wait in a FIFO; messages visible again after a
 * failed delivery wait in a min-heap by arrival time, so that a batch always takes the oldest
 * visible messages. Messages held = visible + in flight (n->njobs); a message arriving when
 * `capacity` are held is refused (lost, the request fails).
 *
 * Polling: while messages are visible, the consumer executions of this queue not yet ended
 * (n->nbusy) leave room under `max-consumers` for one more delivery (its executions: the sum
 * of the fan-outs of the parallel routes to functions and the largest of the others; when
 * that alone exceeds max-consumers, a delivery needs none running) and every consumer
 * function can start an execution at once, the poller takes min(batch-size, visible)
 * messages as one delivery, which leaves along the queue's routes like a completion (every
 * parallel route, one route chosen by p):
 *  - to a function: the route's fan-in and fan-out apply per message, and fanout k makes k
 *    executions, each carrying one new job per message (ac_sim_function_submit);
 *  - to any other node: a hand-off, one routed job per message, settled at once.
 * A delivery succeeds when all its executions have succeeded (at once when it made none): its
 * messages are deleted and their time in queue (receive - arrival) recorded. An execution that
 * fails, or V = visibility-timeout passing first, fails the delivery; V after the receive its
 * messages become visible again, or move to the dead-letter queue (lost, the request fails)
 * when received max-receives times. Executions still running then go on; their results are
 * discarded (ac_sim_queue_delivery_open says so to the function). The deliveries waiting for
 * V are a list in receive order, so their deadlines (receive + V, one V per queue) are in
 * order too: one event per queue follows the oldest one's deadline, lazily (a delivery that
 * succeeds leaves the list; the event, if it was the oldest's, fires for nothing and moves on
 * to the oldest left). Measured (callgrind, check samples/thumbnail-service.xml): an event per
 * delivery, scheduled at the receive and cancelled at the success, cost 221 instructions per
 * cancellation (the hole of the firing event filled first, then the removal).
 *
 * Time averages: njobs (messages held), nbusy (consumer executions of this queue not ended),
 * nextra (1 while a message is visible: the backlog). Counters: attempts/first (messages),
 * lost (refused + dead-lettered), failures (the same), dead, receives, retries (receives after
 * the first), timeouts (receives still unsettled at V), completions (messages delivered).
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "sim/internal.h"

/* ---- visible messages: FIFO of new ones, heap of returned ones ------------------------------ */

static int older(const ac_sim_state *s, uint32_t a, uint32_t b)
{
    double ta = s->jobs[a].t_arrive, tb = s->jobs[b].t_arrive;
    return ta < tb || (ta == tb && a < b);
}

static int rheap_push(ac_sim_state *s, ac_sim_queue_state *q, uint32_t j)
{
    size_t i;
    if (q->rlen == q->rcap) {
        size_t cap = q->rcap ? 2 * q->rcap : 64;
        uint32_t *h = realloc(q->rheap, cap * sizeof *h);
        if (h == NULL) {
            ac_sim_fail(s, AC_ENOMEM, "out of memory (queue)");
            return AC_ENOMEM;
        }
        q->rheap = h;
        q->rcap = cap;
    }
    i = q->rlen++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!older(s, j, q->rheap[p]))
            break;
        q->rheap[i] = q->rheap[p];
        i = p;
    }
    q->rheap[i] = j;
    return 0;
}

static uint32_t rheap_pop(const ac_sim_state *s, ac_sim_queue_state *q)
{
    uint32_t top = q->rheap[0], last = q->rheap[--q->rlen];
    size_t i = 0, n = q->rlen;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && older(s, q->rheap[c + 1], q->rheap[c]))
            c++;
        if (!older(s, q->rheap[c], last))
            break;
        q->rheap[i] = q->rheap[c];
        i = c;
    }
    if (n > 0)
        q->rheap[i] = last;
    return top;
}

/* The oldest visible message, taken out (visible > 0). */
static uint32_t take_oldest(const ac_sim_state *s, ac_sim_queue_state *q)
{
    uint32_t j;
    if (q->rlen > 0 && (q->f_len == 0 || older(s, q->rheap[0], q->f_head)))
        return rheap_pop(s, q);
    j = q->f_head;
    q->f_head = s->jobs[j].next;
    q->f_len--;
    return j;
}

static void visible_set(ac_sim_node *n, size_t v)
{
    n->u.q.visible = v;
    n->nextra = v > 0;
}

/* ---- deliveries ------------------------------------------------------------------------------ */

static uint32_t dl_alloc(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_queue_state *q = &n->u.q;
    uint32_t d;
    if (q->dl_free == AC_SIM_NIL) {
        size_t cap = q->ndl_cap ? 2 * q->ndl_cap : 16;
        ac_sim_delivery *dl;
        if (cap >= AC_SIM_NIL) {
            ac_sim_fail(s, AC_ELIMIT, "too many queue deliveries");
            return AC_SIM_NIL;
        }
        dl = realloc(q->dl, cap * sizeof *dl);
        if (dl == NULL) {
            ac_sim_fail(s, AC_ENOMEM, "out of memory (queue deliveries)");
            return AC_SIM_NIL;
        }
        q->dl = dl;
        for (size_t i = q->ndl_cap; i < cap; i++)
            dl[i].next_free = (i + 1 < cap) ? (uint32_t)(i + 1) : q->dl_free;
        q->dl_free = (uint32_t)q->ndl_cap;
        q->ndl_cap = cap;
    }
    d = q->dl_free;
    q->dl_free = q->dl[d].next_free;
    q->dl[d].prev = q->dl[d].next = AC_SIM_NIL;
    q->dl[d].t_receive = s->now;
    q->dl[d].msgs = AC_SIM_NIL;
    q->dl[d].nmsgs = 0;
    q->dl[d].pending = 0;
    q->dl[d].running = 0;
    q->dl[d].state = AC_SIM_DLV_OPEN;
    return d;
}

static void dl_free(ac_sim_queue_state *q, uint32_t d)
{
    q->dl[d].next_free = q->dl_free;
    q->dl_free = d;
}

/* Delivery d (received now) waits for its visibility timeout: at the tail of the list, the
 * event armed when it was idle (otherwise it is at an older delivery's deadline, earlier). */
static void vis_link(ac_sim_state *s, ac_sim_queue_state *q, uint32_t d)
{
    q->dl[d].prev = q->vis_tail;
    q->dl[d].next = AC_SIM_NIL;
    if (q->vis_tail == AC_SIM_NIL)
        q->vis_head = d;
    else
        q->dl[q->vis_tail].next = d;
    q->vis_tail = d;
    if (s->ev[q->vis_ev].pos == AC_SIM_NIL)
        ac_sim_event_schedule(s, q->vis_ev, q->dl[d].t_receive + q->visibility);
}

/* Delivery d leaves the list (settled, or succeeded: the event is left where it is). */
static void vis_unlink(ac_sim_queue_state *q, uint32_t d)
{
    uint32_t p = q->dl[d].prev, x = q->dl[d].next;
    if (p == AC_SIM_NIL)
        q->vis_head = x;
    else
        q->dl[p].next = x;
    if (x == AC_SIM_NIL)
        q->vis_tail = p;
    else
        q->dl[x].prev = p;
}

/* Every execution of delivery d succeeded: delete its messages. */
static void dl_succeed(ac_sim_state *s, ac_sim_node *n, uint32_t d)
{
    ac_sim_queue_state *q = &n->u.q;
    uint32_t j = q->dl[d].msgs;
    double t_receive = q->dl[d].t_receive;
    ac_sim_node_touch(s, n);
    n->njobs -= q->dl[d].nmsgs;
    q->dl[d].state = AC_SIM_DLV_DONE;
    q->dl[d].msgs = AC_SIM_NIL;
    q->dl[d].nmsgs = 0;
    if (q->dl[d].running == 0)
        dl_free(q, d);
    while (j != AC_SIM_NIL && s->status == 0) {
        uint32_t next = s->jobs[j].next;
        if (s->measuring)
            ac_sim_counts_record(s, &n->c, t_receive - s->jobs[j].t_arrive);
        ac_sim_job_drop(s, j);
        j = next;
    }
}

/* Send delivery d along route r. */
static void dl_route(ac_sim_state *s, ac_sim_node *n, uint32_t d, const ac_sim_route *r)
{
    ac_sim_queue_state *q = &n->u.q;
    uint32_t j = q->dl[d].msgs, nlive = 0;
    size_t i = 0;
    if (s->nodes[r->to].kind != AC_SIM_KIND_FUNCTION) {
        while (j != AC_SIM_NIL && s->status == 0) {
            ac_sim_route_send(s, r, s->jobs[j].group);
            j = s->jobs[j].next;
        }
        return;
    }
    for (; j != AC_SIM_NIL; j = s->jobs[j].next, i++) {
        int absorbed;
        q->scratch[i] = ac_sim_route_target(s, r, s->jobs[j].group, &absorbed);
        if (s->status != 0)
            return;
        q->absorbed[i] = (uint8_t)absorbed;
        nlive += absorbed ? 0u : 1u;
    }
    if (nlive == 0)
        return;
    for (uint32_t k = 0; k < r->fanout && s->status == 0; k++) {
        uint32_t head = AC_SIM_NIL, tail = AC_SIM_NIL;
        for (size_t m = 0; m < q->dl[d].nmsgs; m++) {
            uint32_t x;
            if (q->absorbed[m])
                continue;
            x = ac_sim_job_alloc(s);
            if (x == AC_SIM_NIL)
                return;
            s->jobs[x].group = q->scratch[m];
            s->jobs[x].node = r->to;
            if (head == AC_SIM_NIL)
                head = x;
            else
                s->jobs[tail].next = x;
            tail = x;
        }
        ac_sim_node_touch(s, n);
        n->nbusy++;
        q->dl[d].pending++;
        q->dl[d].running++;
        ac_sim_function_submit(s, &s->nodes[r->to], head, nlive, n->index, d);
    }
}

/* Take one batch of the oldest visible messages and send it on. */
static void receive(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_queue_state *q = &n->u.q;
    size_t m = q->visible < q->batch ? q->visible : q->batch;
    uint32_t d = dl_alloc(s, n), tail = AC_SIM_NIL;
    if (d == AC_SIM_NIL)
        return;
    ac_sim_node_touch(s, n);
    visible_set(n, q->visible - m);
    for (size_t k = 0; k < m; k++) {
        uint32_t j = take_oldest(s, q);
        s->jobs[j].next = AC_SIM_NIL;
        if (tail == AC_SIM_NIL)
            q->dl[d].msgs = j;
        else
            s->jobs[tail].next = j;
        tail = j;
        s->jobs[j].attempt++;
        n->c.receives++;
        if (s->jobs[j].attempt > 1)
            n->c.retries++;
    }
    q->dl[d].nmsgs = (uint32_t)m;
    for (size_t i = 0; i < n->npar && s->status == 0; i++)
        dl_route(s, n, d, &s->routes[n->par[i]]);
    if (n->nchoice > 0 && s->status == 0) {
        double u = n->sure ? 0.0 : ac_sim_uniform(s);
        for (size_t i = 0; i < n->nchoice; i++) {
            if (u < n->cum[i]) {
                dl_route(s, n, d, &s->routes[n->choice[i]]);
                break;
            }
        }
    }
    if (s->status != 0)
        return;
    if (q->dl[d].pending == 0)
        dl_succeed(s, n, d);
    else
        vis_link(s, q, d);
}

void ac_sim_queue_poll(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_queue_state *q = &n->u.q;
    if (q->polling)
        return;
    q->polling = 1;
    while (q->visible > 0 && (n->nbusy == 0 || n->nbusy + q->per_delivery <= q->max_consumers) &&
           s->status == 0) {
        size_t i;
        for (i = 0; i < q->ntargets; i++)
            if (!ac_sim_function_can_poll(s, &s->nodes[q->targets[i]]))
                break;
        if (i < q->ntargets)
            break;
        receive(s, n);
    }
    q->polling = 0;
}

int ac_sim_queue_delivery_open(const ac_sim_state *s, uint32_t qn, uint32_t d)
{
    return s->nodes[qn].u.q.dl[d].state == AC_SIM_DLV_OPEN;
}

void ac_sim_queue_exec_done(ac_sim_state *s, uint32_t qn, uint32_t d, int ok)
{
    ac_sim_node *n = &s->nodes[qn];
    ac_sim_queue_state *q = &n->u.q;
    ac_sim_delivery *dl = &q->dl[d];
    ac_sim_node_touch(s, n);
    n->nbusy--;
    dl->running--;
    if (dl->state == AC_SIM_DLV_OPEN) {
        if (!ok)
            dl->state = AC_SIM_DLV_FAILED; /* the messages return at the visibility timeout */
        else if (--dl->pending == 0) {
            vis_unlink(q, d);
            dl_succeed(s, n, d);
        }
    } else if (dl->state == AC_SIM_DLV_SETTLED && dl->running == 0) {
        dl_free(q, d);
    }
    if (s->status == 0)
        ac_sim_queue_poll(s, n);
}

/* Visibility timeout of delivery d (out of the list): its messages return or go to the
 * dead-letter queue. */
static void vis_timeout(ac_sim_state *s, ac_sim_node *n, uint32_t d)
{
    ac_sim_queue_state *q = &n->u.q;
    uint32_t j = q->dl[d].msgs;
    size_t visible = q->visible;
    if (q->dl[d].state == AC_SIM_DLV_OPEN)
        n->c.timeouts += q->dl[d].nmsgs; /* still running V after the receive */
    q->dl[d].state = AC_SIM_DLV_SETTLED;
    q->dl[d].msgs = AC_SIM_NIL;
    q->dl[d].nmsgs = 0;
    if (q->dl[d].running == 0)
        dl_free(q, d);
    ac_sim_node_touch(s, n);
    while (j != AC_SIM_NIL && s->status == 0) {
        uint32_t next = s->jobs[j].next;
        if (s->jobs[j].attempt >= q->max_receives) {
            n->c.dead++;
            n->c.lost++;
            n->c.failures++;
            n->njobs--;
            ac_sim_job_fail(s, j);
        } else if (rheap_push(s, q, j) == 0) {
            visible++;
        }
        j = next;
    }
    visible_set(n, visible);
    if (s->status == 0)
        ac_sim_queue_poll(s, n);
}

/* The visibility event: every listed delivery whose deadline t_receive + V has come times
 * out, oldest first; then the event follows the oldest one left. */
static void q_event(ac_sim_state *s, ac_sim_node *n, uint32_t e)
{
    ac_sim_queue_state *q = &n->u.q;
    (void)e;
    while (q->vis_head != AC_SIM_NIL && s->status == 0) {
        uint32_t d = q->vis_head;
        double t = q->dl[d].t_receive + q->visibility;
        if (t > s->now) {
            ac_sim_event_schedule(s, q->vis_ev, t);
            return;
        }
        vis_unlink(q, d);
        vis_timeout(s, n, d);
    }
}

static int q_arrive(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_queue_state *q = &n->u.q;
    if (q->capacity != AC_UNBOUNDED && n->njobs >= q->capacity)
        return 0;
    ac_sim_group_scope_leave(s, j); /* enqueued: the caller has its answer */
    ac_sim_node_touch(s, n);
    n->njobs++;
    s->jobs[j].next = AC_SIM_NIL;
    if (q->f_len == 0)
        q->f_head = j;
    else
        s->jobs[q->f_tail].next = j;
    q->f_tail = j;
    q->f_len++;
    visible_set(n, q->visible + 1);
    ac_sim_queue_poll(s, n);
    return 1;
}

static int q_place(ac_sim_state *s, ac_sim_node *n, size_t server, size_t njobs)
{
    (void)n;
    (void)server;
    (void)njobs;
    return ac_error_set(s->err, AC_EINVAL, "simulation: an initial state is for pools only");
}

static void q_cleanup(ac_sim_node *n)
{
    ac_sim_queue_state *q = &n->u.q;
    free(q->rheap);
    free(q->dl);
    free(q->targets);
    free(q->scratch);
    free(q->absorbed);
}

const ac_sim_node_ops ac_sim_queue_ops = {"queue", q_arrive, q_event, q_place, q_cleanup, NULL};

int ac_sim_queue_setup(ac_sim_state *s, ac_sim_node *n, const ac_queue *queue)
{
    ac_sim_queue_state *q = &n->u.q;
    const ac_model *m = s->model;
    const ac_sim_csr *rows = &s->graph.from; /* the routes out of each node */
    size_t par = 0, choice = 0;
    n->ops = &ac_sim_queue_ops;
    n->kind = AC_SIM_KIND_QUEUE;
    n->servers = queue->max_consumers;
    n->timeout = 0;
    n->retries = 0;
    q->capacity = queue->capacity;
    q->batch = queue->batch_size;
    q->max_consumers = queue->max_consumers;
    q->max_receives = queue->max_receives;
    q->visibility = queue->visibility_timeout;
    q->f_head = q->f_tail = AC_SIM_NIL;
    q->dl_free = AC_SIM_NIL;
    q->vis_head = q->vis_tail = AC_SIM_NIL;
    if ((q->vis_ev = ac_sim_event_alloc(s)) == AC_SIM_NIL)
        return s->status;
    s->ev[q->vis_ev].kind = AC_SIM_EV_NODE;
    s->ev[q->vis_ev].node = n->index;
    q->scratch = malloc(q->batch * sizeof *q->scratch);
    q->absorbed = malloc(q->batch * sizeof *q->absorbed);
    if (q->scratch == NULL || q->absorbed == NULL)
        return AC_ENOMEM;
    for (size_t e = rows->start[n->index]; e < rows->start[n->index + 1]; e++) {
        size_t k = rows->idx[e], to = m->routes[k].to, i;
        if (m->nodes[to].kind != AC_NODE_FUNCTION ||
            (!m->routes[k].parallel && !(m->routes[k].p > 0)))
            continue;
        for (i = 0; i < q->ntargets && q->targets[i] != to; i++)
            ;
        if (i < q->ntargets)
            continue;
        if (q->targets == NULL && (q->targets = malloc(m->nnodes * sizeof *q->targets)) == NULL)
            return AC_ENOMEM;
        q->targets[q->ntargets++] = (uint32_t)to;
    }
    for (size_t e = rows->start[n->index]; e < rows->start[n->index + 1]; e++) {
        const ac_route *r = &m->routes[rows->idx[e]];
        if (m->nodes[r->to].kind != AC_NODE_FUNCTION)
            continue;
        if (r->parallel)
            par += r->fanout;
        else if (r->p > 0 && r->fanout > choice)
            choice = r->fanout;
    }
    q->per_delivery = par + choice;
    return 0;
}
