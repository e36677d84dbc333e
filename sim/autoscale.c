/*
 * The HPA-like autoscaler of a pool in the simulator (ac_sim_options.autoscale), with the
 * transient's semantics (solver/transient_autoscale.c, doc/format.md <autoscale>).
 *
 * A scaled pool has max(servers, max) server slots; those not serving are down, by the
 * mechanism of the servers-down faults (faults.c: idle ones first, a busy one finishes what
 * it holds and takes no new job; the last down comes back first). One persistent event per
 * scaler fires at the next of: a look (t = k x interval, k >= 1) or a pending order's
 * ready time. At each firing the ready orders serve first, then the look if due (and the
 * orders of a zero scale-up-delay, ready at once). The look's utilisation is
 *   u = (busy server-seconds since the last look) / ((t - t_last_look) x serving),
 * the servers that joined within the interval counted idle before they joined (HPA's
 * conservative count of pods without metrics). The serving count is the node's nextra, so
 * its integral over the window (area_extra) is the server-seconds.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/internal.h"

/* Time comparisons at a look: the transient's epsilon (relative 1e-9). */
static double eps(double t)
{
    return 1e-9 * fmax(1.0, fabs(t));
}

int ac_sim_autoscale_check(const ac_node *nd, ac_error *err)
{
    const ac_pool *p = &nd->u.pool;
    const ac_autoscale *as = &p->autoscale;
    if (!p->has_autoscale)
        return 0;
    if (as->min < 1 || as->max < as->min || as->max >= AC_SIM_NIL ||
        !(as->target_utilization > 0) || !(as->target_utilization <= 1.0) || !(as->interval > 0) ||
        !isfinite(as->interval) || !(as->tolerance >= 0) || !isfinite(as->tolerance) ||
        !(as->scale_up_delay >= 0) || !isfinite(as->scale_up_delay) || !(as->cooldown >= 0) ||
        !isfinite(as->cooldown))
        return ac_error_set_at(err, AC_EINVAL, as->loc,
                               "pool '%s': invalid autoscale parameters for simulation",
                               nd->id ? nd->id : "?");
    return 0;
}

size_t ac_sim_autoscale_slots(const ac_sim_state *s, const ac_pool *pool)
{
    if (!s->opt->autoscale || !pool->has_autoscale)
        return pool->servers;
    return pool->autoscale.max > pool->servers ? pool->autoscale.max : pool->servers;
}

/* Append (t, n) to a FIFO of times and counts (compacted or doubled when full). */
static int fifo_push(double **ft, size_t **fn, size_t *head, size_t *len, size_t *cap, double t,
                     size_t n)
{
    if (*head + *len == *cap) {
        if (*head > 0) {
            for (size_t i = 0; i < *len; i++) {
                (*ft)[i] = (*ft)[*head + i];
                (*fn)[i] = (*fn)[*head + i];
            }
            *head = 0;
        } else {
            size_t nc = *cap ? 2 * *cap : 16;
            double *t2 = realloc(*ft, nc * sizeof *t2);
            size_t *n2;
            if (t2 == NULL)
                return AC_ENOMEM;
            *ft = t2;
            n2 = realloc(*fn, nc * sizeof *n2);
            if (n2 == NULL)
                return AC_ENOMEM;
            *fn = n2;
            *cap = nc;
        }
    }
    (*ft)[*head + *len] = t;
    (*fn)[*head + *len] = n;
    (*len)++;
    return 0;
}

/* The serving count of pool n becomes `to` now: the slots down set, the change logged and
 * counted (a flap: the direction opposite to the previous change's, within a cooldown). */
static void set_serving(ac_sim_state *s, ac_sim_node *n, size_t to)
{
    ac_sim_scaler *sc = n->u.pool.sc;
    size_t from = sc->serving;
    if (to == from)
        return;
    if (sc->nlog == sc->log_cap) {
        size_t nc = sc->log_cap ? 2 * sc->log_cap : 16;
        ac_sim_scaling_action *l = realloc(sc->log, nc * sizeof *l);
        if (l == NULL) {
            ac_sim_fail(s, AC_ENOMEM, "out of memory (autoscaler)");
            return;
        }
        sc->log = l;
        sc->log_cap = nc;
    }
    ac_sim_node_touch(s, n);
    ac_sim_pool_set_down(s, n, sc->slots - to);
    sc->serving = to;
    n->nextra = to;
    if (s->measuring) {
        n->c.scale_actions++;
        if (sc->nlog > 0) {
            const ac_sim_scaling_action *prev = &sc->log[sc->nlog - 1];
            if ((prev->to > prev->from) != (to > from) &&
                s->now - prev->t <= sc->as->cooldown + eps(s->now))
                n->c.scale_flaps++;
        }
    }
    sc->log[sc->nlog].t = s->now;
    sc->log[sc->nlog].from = from;
    sc->log[sc->nlog].to = to;
    sc->nlog++;
}

/* Busy server-seconds of pool n from 0 to now. */
static double busy_total(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_node_touch(s, n);
    return n->u.pool.sc->busy_pre + n->c.area_busy;
}

/* A scale-down to the window's highest recommendation: pending orders cancelled first
 * (newest first), then servers taken away. */
static void scale_down(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_scaler *sc = n->u.pool.sc;
    size_t stab = 0, cut;
    for (size_t i = 0; i < sc->rec_len; i++)
        stab = sc->rec_n[sc->rec_head + i] > stab ? sc->rec_n[sc->rec_head + i] : stab;
    if (stab >= sc->target)
        return;
    cut = sc->target - stab;
    sc->target = stab;
    while (cut > 0 && sc->ord_len > 0) {
        size_t *last = &sc->ord_n[sc->ord_head + sc->ord_len - 1];
        size_t take = cut < *last ? cut : *last;
        *last -= take;
        cut -= take;
        if (*last == 0)
            sc->ord_len--;
    }
    if (cut > 0)
        set_serving(s, n, sc->serving - cut);
}

/*
 * One look (the transient's scaler_look): ratio = u / target; outside 1 +- tolerance, and
 * unless a scale-up is already covered by the pending orders (serving x ratio / target
 * count within the tolerance), rec = ceil(serving x ratio) in [min, max]; else rec = the
 * target count. rec joins the window; above the target count it is ordered, below it the
 * pool scales down to the window's highest.
 */
static void look(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_scaler *sc = n->u.pool.sc;
    const ac_autoscale *as = sc->as;
    double busy = busy_total(s, n), dt = s->now - sc->t_look, u, ratio, ratio_t;
    size_t rec = sc->target;
    u = dt > 0 ? (busy - sc->busy_look) / (dt * (double)sc->serving) : 0.0;
    u = fmin(fmax(u, 0.0), 1.0);
    sc->busy_look = busy;
    sc->t_look = s->now;
    ratio = u / as->target_utilization;
    ratio_t = (double)sc->serving * ratio / (double)sc->target;
    if (fabs(ratio - 1.0) > as->tolerance &&
        !(ratio > 1.0 + as->tolerance && ratio_t <= 1.0 + as->tolerance)) {
        double x = ceil((double)sc->serving * ratio * (1.0 - 1e-12));
        rec = x < (double)as->min ? as->min : x > (double)as->max ? as->max : (size_t)x;
    }
    if (fifo_push(&sc->rec_t, &sc->rec_n, &sc->rec_head, &sc->rec_len, &sc->rec_cap, s->now, rec) !=
        0) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (autoscaler)");
        return;
    }
    while (sc->rec_len > 0 && sc->rec_t[sc->rec_head] <= s->now - as->cooldown + eps(s->now)) {
        sc->rec_head++;
        sc->rec_len--;
    }
    if (rec > sc->target) {
        if (fifo_push(&sc->ord_t, &sc->ord_n, &sc->ord_head, &sc->ord_len, &sc->ord_cap,
                      s->now + as->scale_up_delay, rec - sc->target) != 0) {
            ac_sim_fail(s, AC_ENOMEM, "out of memory (autoscaler)");
            return;
        }
        sc->target = rec;
    } else if (rec < sc->target) {
        scale_down(s, n);
    }
}

/* The orders ready by now serve. */
static void orders_ready(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_scaler *sc = n->u.pool.sc;
    size_t to = sc->serving;
    while (sc->ord_len > 0 && sc->ord_t[sc->ord_head] <= s->now + eps(s->now)) {
        to += sc->ord_n[sc->ord_head];
        sc->ord_head++;
        sc->ord_len--;
    }
    set_serving(s, n, to);
}

static void schedule(ac_sim_state *s, ac_sim_scaler *sc)
{
    double next = (double)sc->k * sc->as->interval;
    if (sc->ord_len > 0 && sc->ord_t[sc->ord_head] < next)
        next = sc->ord_t[sc->ord_head];
    if (next <= s->horizon)
        ac_sim_event_schedule(s, sc->ev, next);
}

void ac_sim_autoscale_event(ac_sim_state *s, ac_sim_node *n)
{
    ac_sim_scaler *sc = n->u.pool.sc;
    orders_ready(s, n);
    if (s->status == 0 && s->now >= (double)sc->k * sc->as->interval - eps(s->now)) {
        look(s, n);
        sc->k++;
        if (s->status == 0)
            orders_ready(s, n); /* a zero scale-up-delay */
    }
    if (s->status == 0)
        schedule(s, sc);
}

int ac_sim_autoscale_setup(ac_sim_state *s, ac_sim_node *n, const ac_pool *pool)
{
    ac_sim_pool_state *p = &n->u.pool;
    ac_sim_scaler *sc = calloc(1, sizeof *sc);
    size_t slots = n->servers;
    if (sc == NULL)
        return AC_ENOMEM;
    p->sc = sc;
    sc->as = &pool->autoscale;
    sc->slots = slots;
    p->down = calloc(slots, sizeof *p->down);
    p->downs = malloc(slots * sizeof *p->downs);
    p->up = malloc(slots * sizeof *p->up);
    if (p->down == NULL || p->downs == NULL || p->up == NULL)
        return AC_ENOMEM;
    ac_sim_pool_set_down(s, n, slots - pool->servers);
    sc->serving = sc->target = pool->servers;
    n->nextra = pool->servers;
    sc->k = 1;
    /* the starting count, recommended at t = 0 (the system has run at that count) */
    if (fifo_push(&sc->rec_t, &sc->rec_n, &sc->rec_head, &sc->rec_len, &sc->rec_cap, 0.0,
                  pool->servers) != 0)
        return AC_ENOMEM;
    sc->ev = ac_sim_event_alloc(s);
    if (sc->ev == AC_SIM_NIL)
        return s->status;
    s->ev[sc->ev].kind = AC_SIM_EV_NODE;
    s->ev[sc->ev].node = n->index;
    s->ev[sc->ev].sub = AC_SIM_POOL_EV_SCALER;
    schedule(s, sc);
    return s->status;
}

void ac_sim_autoscale_measure(ac_sim_state *s)
{
    for (size_t i = 0; i < s->nmodel_nodes; i++) {
        ac_sim_node *n = &s->nodes[i];
        if (n->kind == AC_SIM_KIND_POOL && n->u.pool.sc != NULL) {
            ac_sim_node_touch(s, n);
            n->u.pool.sc->busy_pre += n->c.area_busy;
        }
    }
}

void ac_sim_autoscale_free(ac_sim_scaler *sc)
{
    if (sc == NULL)
        return;
    free(sc->ord_t);
    free(sc->ord_n);
    free(sc->rec_t);
    free(sc->rec_n);
    free(sc->log);
    free(sc);
}
