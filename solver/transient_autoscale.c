/*
 * The HPA-like scalers of the autoscaled pools in the transient (transient.h): their looks
 * every `interval`, their pending orders (ready scale-up-delay later), the cooldown window
 * of their recommendations, and the change of a pool's serving count at an event (the
 * state remapped by ac_solver_tr_pool_remap, the pool's model rebuilt for the new count).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/transient_internal.h"

static void fifo_free(tr_fifo *f)
{
    free(f->t);
    free(f->n);
    memset(f, 0, sizeof *f);
}

static int fifo_push(tr_fifo *f, double t, size_t n)
{
    if (f->head + f->len == f->cap) {
        if (f->head > 0) { /* compact */
            memmove(f->t, f->t + f->head, f->len * sizeof *f->t);
            memmove(f->n, f->n + f->head, f->len * sizeof *f->n);
            f->head = 0;
        } else {
            size_t nc = f->cap ? 2 * f->cap : 32;
            double *t2 = realloc(f->t, nc * sizeof *t2);
            size_t *n2;
            if (t2 == NULL)
                return AC_ENOMEM;
            f->t = t2;
            n2 = realloc(f->n, nc * sizeof *n2);
            if (n2 == NULL)
                return AC_ENOMEM;
            f->n = n2;
            f->cap = nc;
        }
    }
    f->t[f->head + f->len] = t;
    f->n[f->head + f->len] = n;
    f->len++;
    return AC_OK;
}

/* Append (t, n) to a log of *len entries and capacity *cap. */
static int log_push(double **lt, size_t **ln, size_t *len, size_t *cap, double t, size_t n)
{
    if (*len == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        double *t2 = realloc(*lt, nc * sizeof *t2);
        size_t *n2;
        if (t2 == NULL)
            return AC_ENOMEM;
        *lt = t2;
        n2 = realloc(*ln, nc * sizeof *n2);
        if (n2 == NULL)
            return AC_ENOMEM;
        *ln = n2;
        *cap = nc;
    }
    (*lt)[*len] = t;
    (*ln)[*len] = n;
    (*len)++;
    return AC_OK;
}

/* Pool j serves with n servers from time t on: server-hours so far, the state remapped,
 * the pool's model rebuilt for the new count, the change logged. */
static int set_servers(tr_ctx *c, ac_transient *tr, size_t j, double t, size_t n, double *y,
                       ac_error *err)
{
    tr_pool *tp = &c->pools[j];
    ac_transient_node *nd = &tr->nodes[tp->node];
    ac_solver_pool_model **pm;
    if ((double)n == tp->N)
        return AC_OK;
    if (n < tp->count_lo || n - tp->count_lo >= tp->ncounts)
        return ac_error_set(err, AC_ENUMERIC, "the scaler of '%s' left its range at %zu servers",
                            c->m->nodes[tp->node].id, n);
    pm = &tp->by_count[n - tp->count_lo];
    if (*pm == NULL) { /* the first time at this count */
        ac_pool spec = c->m->nodes[tp->node].u.pool;
        int rc;
        spec.servers = n;
        rc = ac_solver_pool_model_new(&spec, 0.0, tp->dim, pm, err);
        if (rc != AC_OK)
            return rc;
        if (ac_solver_pool_model_dim(*pm) != tp->dim)
            return ac_error_set(err, AC_ENUMERIC,
                                "the model of '%s' at %zu servers changed its dimension",
                                c->m->nodes[tp->node].id, n);
    }
    tp->model = *pm;
    ac_solver_tr_pool_set_mu(tp, tp->mu); /* this count's model at the current rate */
    tp->hours += tp->N * (t - tp->t_last) / 3600.0;
    tp->t_last = t;
    ac_solver_tr_pool_remap(c, tr, j, tp->N, (double)n, y);
    tp->N = (double)n;
    tp->cap = tp->N * tp->mu;
    if (log_push(&nd->change_t, &nd->change_servers, &nd->nchanges, &tp->sc->ch_cap, t, n) != AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (scaling log)");
    return AC_OK;
}

/*
 * One look of the scaler of pool j at time t (transient.h): the recommendation from the
 * instantaneous utilisation u = min(q_1, 1) of the N serving servers (the fluid busy
 * fraction: HPA's mean over pods; the metrics pipeline's time averaging, shorter than an
 * interval in practice, is left out): the target count T (serving + ordered) while u /
 * target is within 1 +- tolerance, else ceil(N u / target) = ceil(busy / target) clamped to
 * [min, max]. A scale-up is held while orders are pending if the ratio over T (the starting
 * servers counted idle: N u / (T target), as HPA does with pods not yet ready) is back
 * within the tolerance: the pending servers are not ordered twice. Then a scale-up order
 * (ready after scale-up-delay) or a scale-down to the window's highest recommendation.
 * Each change of T is an event. *changed = 1 when the serving count changes now.
 */
static int scaler_look(tr_ctx *c, ac_transient *tr, size_t j, double t, double *y, int *changed,
                       ac_error *err)
{
    tr_pool *tp = &c->pools[j];
    tr_scaler *sc = tp->sc;
    const ac_autoscale *as = sc->as;
    ac_transient_node *nd = &tr->nodes[tp->node];
    double u = fmin(fmax(y[tp->off], 0.0), 1.0), ratio = u / as->target_utilization;
    /* with orders pending, the ratio over the target count (the servers still starting
     * counted idle, as HPA counts pods not yet ready when scaling up) */
    double ratio_t = tp->N * ratio / (double)sc->target;
    size_t rec = sc->target, stab = 0, serving = (size_t)tp->N;
    if (fabs(ratio - 1.0) > as->tolerance &&
        !(ratio > 1.0 + as->tolerance && ratio_t <= 1.0 + as->tolerance)) {
        /* ceil(N u / target), a value within 1e-6 of an integer being that integer (the
         * integration's resolution on q_1 at rtol 1e-7) */
        double x = ceil(tp->N * ratio * (1.0 - 1e-6));
        rec = x < (double)as->min ? as->min : x > (double)as->max ? as->max : (size_t)x;
    }
    if (fifo_push(&sc->recs, t, rec) != AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (scaler)");
    while (sc->recs.len > 0 &&
           sc->recs.t[sc->recs.head] <= t - as->cooldown + ac_solver_tr_eps(t)) {
        sc->recs.head++;
        sc->recs.len--;
    }
    if (rec > sc->target) {
        if (fifo_push(&sc->orders, t + as->scale_up_delay, rec - sc->target) != AC_OK)
            return ac_error_set(err, AC_ENOMEM, "out of memory (scaler)");
        sc->target = rec;
    } else if (rec < sc->target) {
        size_t cut;
        for (size_t i = 0; i < sc->recs.len; i++)
            stab = sc->recs.n[sc->recs.head + i] > stab ? sc->recs.n[sc->recs.head + i] : stab;
        if (stab >= sc->target)
            return AC_OK;
        cut = sc->target - stab;
        sc->target = stab;
        while (cut > 0 && sc->orders.len > 0) { /* the newest pending orders first */
            size_t *last = &sc->orders.n[sc->orders.head + sc->orders.len - 1];
            size_t take = cut < *last ? cut : *last;
            *last -= take;
            cut -= take;
            if (*last == 0)
                sc->orders.len--;
        }
        if (cut > 0) {
            int rc = set_servers(c, tr, j, t, serving - cut, y, err);
            if (rc != AC_OK)
                return rc;
            *changed = 1;
        }
    } else {
        return AC_OK;
    }
    if (log_push(&nd->event_t, &nd->event_target, &nd->nevents, &sc->ev_cap, t, sc->target) !=
        AC_OK)
        return ac_error_set(err, AC_ENOMEM, "out of memory (scaling log)");
    return AC_OK;
}

/* The scalers' events at time t: the orders ready by t serve, then the looks due at t.
 * *changed = 1 when some serving count changed (the ODE must restart). */
int ac_solver_tr_scaler_events(tr_ctx *c, ac_transient *tr, double t, double *y, int *changed,
                               ac_error *err)
{
    *changed = 0;
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        tr_scaler *sc = tp->sc;
        int rc;
        if (sc == NULL)
            continue;
        for (int pass = 0; pass < 2; pass++) {
            size_t n = (size_t)tp->N;
            while (sc->orders.len > 0 && sc->orders.t[sc->orders.head] <= t + ac_solver_tr_eps(t)) {
                n += sc->orders.n[sc->orders.head];
                sc->orders.head++;
                sc->orders.len--;
            }
            if ((double)n != tp->N) {
                rc = set_servers(c, tr, j, t, n, y, err);
                if (rc != AC_OK)
                    return rc;
                *changed = 1;
            }
            /* the look; a zero scale-up-delay order is ready at once (second pass) */
            if (pass == 0 && t >= (double)sc->k * sc->as->interval - ac_solver_tr_eps(t)) {
                rc = scaler_look(c, tr, j, t, y, changed, err);
                if (rc != AC_OK)
                    return rc;
                sc->k++;
            }
        }
    }
    return AC_OK;
}

/* The next time (> the last events) at which a scaler acts: a look or a ready order. */
double ac_solver_tr_scaler_next(const tr_ctx *c)
{
    double next = INFINITY;
    for (size_t j = 0; j < c->npools; j++) {
        const tr_scaler *sc = c->pools[j].sc;
        if (sc == NULL)
            continue;
        next = fmin(next, (double)sc->k * sc->as->interval);
        if (sc->orders.len > 0)
            next = fmin(next, sc->orders.t[sc->orders.head]);
    }
    return next;
}

/* A FIFO with room for n entries. */
static int fifo_reserve(tr_fifo *f, size_t n)
{
    f->t = malloc(n * sizeof *f->t);
    f->n = malloc(n * sizeof *f->n);
    f->cap = n;
    return f->t != NULL && f->n != NULL ? AC_OK : AC_ENOMEM;
}

/* A log with room for n entries. */
static int log_reserve(double **lt, size_t **ln, size_t *cap, size_t n)
{
    *lt = malloc(n * sizeof **lt);
    *ln = malloc(n * sizeof **ln);
    *cap = n;
    return *lt != NULL && *ln != NULL ? AC_OK : AC_ENOMEM;
}

/*
 * Scalers for the autoscaled pools, with room for every look over the horizon (a look per
 * interval: at most one order, one recommendation and one event each, and a serving change
 * for an order and one for a look), so that a run appends without allocating (a horizon of
 * over a million looks grows the logs as it goes), and the models by serving count.
 */
int ac_solver_tr_scalers_init(tr_ctx *c, ac_transient *tr)
{
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
        const ac_autoscale *as = &pool->autoscale;
        double looks = floor(tr->horizon / as->interval) + 2.0;
        size_t n = looks < 1e6 ? (size_t)looks : 1024, lo, hi;
        if (!pool->has_autoscale)
            continue;
        tp->sc = calloc(1, sizeof *tp->sc);
        if (tp->sc == NULL)
            return AC_ENOMEM;
        tp->sc->as = as;
        if (fifo_reserve(&tp->sc->orders, n) != AC_OK || fifo_reserve(&tp->sc->recs, n) != AC_OK ||
            log_reserve(&tr->nodes[tp->node].event_t, &tr->nodes[tp->node].event_target,
                        &tp->sc->ev_cap, n) != AC_OK ||
            log_reserve(&tr->nodes[tp->node].change_t, &tr->nodes[tp->node].change_servers,
                        &tp->sc->ch_cap, 2 * n) != AC_OK)
            return AC_ENOMEM;
        lo = as->min < pool->servers ? as->min : pool->servers;
        hi = as->max > pool->servers ? as->max : pool->servers;
        tp->count_lo = lo;
        tp->ncounts = hi - lo + 1;
        tp->by_count = calloc(tp->ncounts, sizeof *tp->by_count);
        if (tp->by_count == NULL)
            return AC_ENOMEM;
        tp->by_count[pool->servers - lo] = tp->model;
        tr->nodes[tp->node].autoscaled = 1;
        c->nscaled++;
    }
    tr->nautoscaled = c->nscaled;
    return AC_OK;
}

/* Every pool back to its starting count (its model for that count), every scaler to its
 * state at t = 0: target = the starting count, recommended at t = 0 (the system has run at
 * that count), the first look at t = 0, nothing pending, no event logged. */
void ac_solver_tr_scalers_reset(tr_ctx *c, ac_transient *tr)
{
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
        ac_transient_node *nd = &tr->nodes[tp->node];
        tr_scaler *sc = tp->sc;
        tp->N = (double)pool->servers;
        tp->cap = tp->N * tp->mu;
        tp->hours = 0.0;
        tp->t_last = 0.0;
        nd->start_servers = pool->servers;
        nd->steady_servers = ac_solver_autoscale_steady(pool, tp->base_unit * c->scale);
        nd->nevents = nd->nchanges = 0;
        if (tp->by_count != NULL) /* a count changed by the last evaluation */
            tp->model = tp->by_count[pool->servers - tp->count_lo];
        ac_solver_tr_pool_set_mu(tp, pool->service_rate);
        if (sc == NULL)
            continue;
        sc->target = pool->servers;
        sc->k = 0;
        sc->orders.head = sc->orders.len = 0;
        sc->recs.head = sc->recs.len = 0;
        (void)fifo_push(&sc->recs, 0.0, pool->servers); /* room reserved: cannot fail */
    }
}

void ac_solver_tr_scalers_free(tr_ctx *c)
{
    for (size_t j = 0; c->pools != NULL && j < c->npools; j++) {
        for (size_t k = 0; k < c->pools[j].ncounts; k++)
            if (c->pools[j].by_count[k] != c->pools[j].model)
                ac_solver_pool_model_free(c->pools[j].by_count[k]);
        free(c->pools[j].by_count);
        c->pools[j].by_count = NULL;
        c->pools[j].ncounts = 0;
        if (c->pools[j].sc == NULL)
            continue;
        fifo_free(&c->pools[j].sc->orders);
        fifo_free(&c->pools[j].sc->recs);
        free(c->pools[j].sc);
        c->pools[j].sc = NULL;
    }
}

size_t ac_transient_events_until(const ac_transient_node *n, double t)
{
    size_t k = 0;
    while (k < n->nevents && n->event_t[k] < t - ac_solver_tr_eps(t))
        k++;
    return k;
}

double ac_transient_server_hours_until(const ac_transient_node *n, double t)
{
    double h = 0.0, tp = 0.0, N = (double)n->start_servers;
    for (size_t k = 0; k < n->nchanges && n->change_t[k] < t; k++) {
        h += N * (n->change_t[k] - tp);
        tp = n->change_t[k];
        N = (double)n->change_servers[k];
    }
    return (h + N * fmax(t - tp, 0.0)) / 3600.0;
}
