/*
 * The link node kind: a FCFS transmitter of `capacity` jobs per second
 * (deterministic 1/capacity per job: M/D/1, as solver/link.c) with a waiting room of
 * `buffer` jobs, followed by a fixed propagation delay `latency`. A link's
 * jobs are those waiting, transmitting or propagating; its response time is
 * the whole traversal. Event sub 0: transmission done; sub 1: delivery.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/internal.h"

enum { LINK_TX = 0, LINK_DELIVER = 1 };

/* The job reached the far end. */
static void link_finish(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_node_touch(s, n);
    n->njobs--;
    ac_sim_job_forward(s, n, j, n->u.link.to);
}

/* Transmission of job j is over: it propagates for `latency`. */
static void link_propagate(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    uint32_t e;
    if (!(n->u.link.latency > 0)) {
        link_finish(s, n, j);
        return;
    }
    e = ac_sim_event_alloc(s);
    if (e == AC_SIM_NIL)
        return;
    s->ev[e].kind = AC_SIM_EV_NODE;
    s->ev[e].node = n->index;
    s->ev[e].sub = LINK_DELIVER;
    s->ev[e].arg = j;
    ac_sim_event_schedule(s, e, s->now + n->u.link.latency);
}

static int link_arrive(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_link_state *l = &n->u.link;
    if (l->tx_time > 0 && l->busy_job != AC_SIM_NIL && l->buffer != AC_UNBOUNDED &&
        l->q_len >= l->buffer)
        return 0;
    ac_sim_node_touch(s, n);
    n->njobs++;
    if (!(l->tx_time > 0)) {
        link_propagate(s, n, j);
    } else if (l->busy_job == AC_SIM_NIL) {
        l->busy_job = j;
        n->nbusy = 1;
        ac_sim_event_schedule(s, l->tx_ev, s->now + l->tx_time);
    } else {
        s->jobs[j].next = AC_SIM_NIL;
        if (l->q_len == 0)
            l->q_head = j;
        else
            s->jobs[l->q_tail].next = j;
        l->q_tail = j;
        l->q_len++;
    }
    return 1;
}

static void link_event(ac_sim_state *s, ac_sim_node *n, uint32_t e)
{
    ac_sim_link_state *l = &n->u.link;
    uint32_t j;
    if (s->ev[e].sub == LINK_DELIVER) {
        j = s->ev[e].arg;
        ac_sim_event_release(s, e);
        link_finish(s, n, j);
        return;
    }
    j = l->busy_job;
    ac_sim_node_touch(s, n);
    if (l->q_len > 0) {
        l->busy_job = l->q_head;
        l->q_head = s->jobs[l->q_head].next;
        l->q_len--;
        ac_sim_event_schedule(s, l->tx_ev, s->now + l->tx_time);
    } else {
        l->busy_job = AC_SIM_NIL;
        n->nbusy = 0;
    }
    link_propagate(s, n, j);
}

static int link_place(ac_sim_state *s, ac_sim_node *n, size_t server, size_t njobs)
{
    (void)n;
    (void)server;
    (void)njobs;
    return ac_error_set(s->err, AC_EINVAL, "simulation: an initial state is for pools only");
}

const ac_sim_node_ops ac_sim_link_ops = {"link", link_arrive, link_event, link_place, NULL, NULL};

int ac_sim_link_setup(ac_sim_state *s, ac_sim_node *n, const ac_link *link)
{
    ac_sim_link_state *l = &n->u.link;
    n->ops = &ac_sim_link_ops;
    n->kind = AC_SIM_KIND_LINK;
    n->servers = 1;
    n->timeout = 0;
    n->retries = 0;
    l->tx_time = isfinite(link->capacity) ? 1.0 / link->capacity : 0.0;
    l->latency = link->latency;
    l->buffer = link->buffer;
    l->q_head = l->q_tail = l->busy_job = AC_SIM_NIL;
    l->to = (uint32_t)link->to;
    l->tx_ev = ac_sim_event_alloc(s);
    if (l->tx_ev == AC_SIM_NIL)
        return s->status;
    s->ev[l->tx_ev].kind = AC_SIM_EV_NODE;
    s->ev[l->tx_ev].node = n->index;
    s->ev[l->tx_ev].sub = LINK_TX;
    return 0;
}
