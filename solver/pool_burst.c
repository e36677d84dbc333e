/*
 * The burst search of a bistable pool (doc/models.md section 3): for a few burst sizes (extra
 * arrival rate), the shortest duration that tips the pool from its good equilibrium into the
 * bad one, by doubling then bisection on the duration.
 *
 * The work is shared between probes, using that the pool's flow is cooperative (dq_k/dt grows
 * with every q_j, j != k, on the ordered states 1 >= q_1 >= ... >= q_n >= 0, see solver.h),
 * so that x <= y implies phi_t(x) <= phi_t(y) for all t (Kamke-Mueller):
 *  - the burst raises the state monotonically (from an equilibrium the forcing is >= 0), so
 *    the state after a burst of tau is the state after lo < tau continued for tau - lo: each
 *    probe continues from the longest burst known not to tip instead of from the good state;
 *  - with good the limit from empty and bad the limit from full, a state below a point known
 *    to settle at good settles at good (squeezed between the flows from empty and from that
 *    point), one above a point known to settle at bad settles at bad. The points of every
 *    settle (its chunk ends) are kept with their limit, and a settle stops as soon as its
 *    state is below (above) a kept point by the integrator's rtol at every level;
 *  - the bursts of one size all stay below the least equilibrium of the pool under that
 *    burst (the monotone limit from good): when that equilibrium, released, settles at good,
 *    no duration of that size tips, and the remaining doublings are skipped (charged to the
 *    probe budget as if run, so that the budget stops the search where it did).
 * The durations are the cold search's (each probe from good, settled to its limit; the option
 * burst_cold) up to the integrator's error near the threshold, within the bisection's 1e-3.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/pool.h"

/* Settled states closer than this (max norm) to good or bad are taken as its limit. */
#define BURST_LIMIT_TOL 1e-6
/* The burst search's default probe budget: 4 sizes x (15 doublings + 9 halvings). */
#define AC_SOLVER_BURST_PROBES 96
/* A settle has at most this many chunk ends (doubling from 1/mu to max_time / mu <= 2^62). */
#define BURST_PATH_MAX 66
/* Bursts of a size still short of tipping after this many 1/mu try the size's certificate. */
#define BURST_FORCED_AFTER 64.0

static double dist_max(size_t n, const double *a, const double *b)
{
    double r = 0.0;
    size_t i;
    for (i = 0; i < n; i++)
        r = fmax(r, fabs(a[i] - b[i]));
    return r;
}

/* Points with a known limit under the released flow, and the current settle's path. */
typedef struct basin_store {
    size_t n, count, cap, mark; /* points [mark, count) are the current settle's path */
    double *q;                  /* cap x n */
    unsigned char *tips;        /* 1: settles at bad, 0: at good */
    double rtol;
    int verdict; /* set when the watch stops a settle */
} basin_store;

static int store_reserve(basin_store *b, size_t more, ac_error *err)
{
    size_t cap = b->cap ? b->cap : 64;
    double *q;
    unsigned char *t;
    if (b->count + more <= b->cap)
        return 0;
    while (cap < b->count + more)
        cap *= 2;
    q = realloc(b->q, cap * b->n * sizeof *q);
    if (q == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (burst certificates)");
    b->q = q;
    t = realloc(b->tips, cap * sizeof *t);
    if (t == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (burst certificates)");
    b->tips = t;
    b->cap = cap;
    return 0;
}

/* 1 when x <= p - tol (below = 1) or x >= p + tol (below = 0) at every level, tol the
 * integrator's relative tolerance times |p_k| (an absolute margin would rule out the levels
 * far in the tail, which near good hold less than the integrator's atol). */
static int beyond(const basin_store *b, const double *x, const double *p, int below)
{
    for (size_t k = 0; k < b->n; k++) {
        double tol = b->rtol * fabs(p[k]);
        if (below ? !(x[k] <= p[k] - tol) : !(x[k] >= p[k] + tol))
            return 0;
    }
    return 1;
}

/* The settle's watch: stop when a kept point decides the limit, else keep the state. */
static int basin_watch(void *ctx, const double *x)
{
    basin_store *b = ctx;
    for (size_t i = 0; i < b->mark; i++)
        if (beyond(b, x, b->q + i * b->n, !b->tips[i])) {
            b->verdict = b->tips[i];
            return 1;
        }
    if (b->count < b->cap) { /* reserved by settle_probe: a path has <= BURST_PATH_MAX */
        memcpy(b->q + b->count * b->n, x, b->n * sizeof *x);
        b->count++;
    }
    return 0;
}

typedef struct burst_ctx {
    ac_solver_pool_model *m;
    const ac_solver_options *opt;
    const double *good, *bad;
    basin_store *store;      /* NULL: the cold search */
    ac_solver_pool_ode *ode; /* the integrator (pool_ode.c) */
    double *q;               /* settle work */
    size_t left;             /* probes left */
} burst_ctx;

/* Settle q (released) to its limit; *out 1 when it is the bad equilibrium's basin. */
static int settle_probe(burst_ctx *c, double *q, int *out, ac_error *err)
{
    ac_solver_pool_model *m = c->m;
    basin_store *b = c->store;
    int rc;
    if (b == NULL) {
        rc = ac_solver_settle_ode(m, q, c->opt, c->ode, NULL, NULL, err);
        if (rc < 0)
            return rc;
        *out = dist_max(m->n, q, c->bad) < dist_max(m->n, q, c->good);
        return 0;
    }
    rc = store_reserve(b, BURST_PATH_MAX, err);
    if (rc < 0)
        return rc;
    b->mark = b->count;
    rc = ac_solver_settle_ode(m, q, c->opt, c->ode, basin_watch, b, err);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        *out = b->verdict;
    } else {
        double db = dist_max(m->n, q, c->bad), dg = dist_max(m->n, q, c->good);
        *out = db < dg;
        if (fmin(db, dg) > BURST_LIMIT_TOL)
            b->count = b->mark; /* a third limit: its path certifies nothing */
    }
    for (size_t i = b->mark; i < b->count; i++)
        b->tips[i] = (unsigned char)*out;
    b->mark = b->count;
    return 0;
}

/* 1 when `extra` per-server arrivals for tau seconds leave the pool settling at the bad
 * equilibrium once released; the burst continues from `start`, the state after t0 < tau of
 * the same burst, and its state at tau is left in qb. Counts the probe in c->left; 1 (*out
 * unset) when the budget is spent. */
static int tips(burst_ctx *c, const double *start, double t0, double extra, double tau, double *qb,
                int *out, ac_error *err)
{
    ac_solver_pool_model *m = c->m;
    int rc;
    if (c->left == 0)
        return 1;
    c->left--;
    memcpy(qb, start, m->n * sizeof *qb);
    m->extra = extra;
    rc = ac_solver_integrate_ode(m, qb, tau - t0, c->opt, c->ode, err);
    m->extra = 0.0;
    if (rc < 0)
        return rc;
    memcpy(c->q, qb, m->n * sizeof *qb);
    return settle_probe(c, c->q, out, err);
}

/* 1 in *out when no burst of `extra` tips the pool: the pool under the burst settles from
 * good (monotonically up) at its least equilibrium above good, which bounds every burst's
 * state, and that equilibrium released settles at good. A settle that fails is no proof. */
static int never_tips(burst_ctx *c, double extra, double *qf, int *out, ac_error *err)
{
    ac_solver_pool_model *m = c->m;
    ac_error local = {0};
    int rc, t = 1;
    *out = 0;
    memcpy(qf, c->good, m->n * sizeof *qf);
    m->extra = extra;
    rc = ac_solver_settle_ode(m, qf, c->opt, c->ode, NULL, NULL, &local);
    m->extra = 0.0;
    if (rc == 0)
        rc = settle_probe(c, qf, &t, &local);
    if (rc < 0 && local.code == AC_ENOMEM)
        return ac_error_set(err, AC_ENOMEM, "%s", local.message);
    *out = rc == 0 && !t;
    return 0;
}

/* The probes the cold doubling would still make from hi: hi, 2 hi, ... up to the first
 * above cap. */
static size_t doublings_left(double hi, double cap)
{
    size_t k = 1;
    while (!(hi > cap)) {
        hi *= 2.0;
        k++;
    }
    return k;
}

/* One size: the least tipping duration into b (INFINITY when none within the cap). Returns
 * 1 when the budget ran out (b holds a duration that tips, if not the least). */
static int one_size(burst_ctx *c, double extra, double *qlo, double *qb, ac_solver_burst *b,
                    ac_error *err)
{
    ac_solver_pool_model *m = c->m;
    double lo = 0.0, hi = 1.0 / m->mu, cap = 1e4 / m->mu;
    int rc, tipped = 0, tried = c->store == NULL;
    memcpy(qlo, c->good, m->n * sizeof *qlo);
    for (;;) {
        if (!tried && lo >= BURST_FORCED_AFTER / m->mu) {
            int never = 0;
            tried = 1;
            rc = never_tips(c, extra, qb, &never, err);
            if (rc < 0)
                return rc;
            if (never) {
                size_t k = doublings_left(hi, cap);
                if (k > c->left) {
                    c->left = 0;
                    return 1;
                }
                c->left -= k;
                return 0;
            }
        }
        rc = tips(c, c->store != NULL ? qlo : c->good, c->store != NULL ? lo : 0.0, extra, hi, qb,
                  &tipped, err);
        if (rc != 0)
            return rc;
        if (tipped || hi > cap)
            break;
        lo = hi;
        memcpy(qlo, qb, m->n * sizeof *qlo);
        hi *= 2.0;
    }
    if (!tipped)
        return 0;
    while (hi - lo > 1e-3 * hi) {
        double mid = 0.5 * (lo + hi);
        int t = 0;
        rc = tips(c, c->store != NULL ? qlo : c->good, c->store != NULL ? lo : 0.0, extra, mid, qb,
                  &t, err);
        if (rc < 0)
            return rc;
        if (rc > 0)
            break; /* out of budget: hi still tips (a burst that tips, if not the least) */
        if (t) {
            hi = mid;
        } else {
            lo = mid;
            memcpy(qlo, qb, m->n * sizeof *qlo);
        }
    }
    b->duration = hi;
    b->jobs = b->extra_rate * hi;
    return rc;
}

/*
 * For a few burst sizes (extra arrival rate), the shortest duration that tips the pool,
 * by bisection: the ODE is cooperative and the burst raises the state monotonically, so a
 * longer burst leaves a higher state and tipping is monotone in the duration. The probes
 * are counted (opt->burst_probes); past the budget the search stops with what it found
 * (r->burst_budget_spent): a duration found still tips the pool, within 1e-3 when its
 * bisection finished.
 */
int ac_solver_burst_search(ac_solver_pool_model *m, const ac_solver_options *opt,
                           ac_solver_pool_result *r, ac_error *err)
{
    static const double sizes[] = {0.25, 0.5, 1.0, 2.0};
    const size_t nsizes = sizeof sizes / sizeof sizes[0], n = m->n;
    const ac_solver_equilibrium *good = &r->equilibria[r->good], *bad = &r->equilibria[r->bad];
    double *work = malloc(3 * n * sizeof *work), base = m->lambda > 0.0 ? m->lambda : m->mu;
    basin_store store = {0};
    burst_ctx c;
    size_t i;
    int rc = 0;
    c.m = m;
    c.opt = opt;
    c.good = good->q;
    c.bad = bad->q;
    c.q = work;
    c.ode = NULL;
    c.left = opt->burst_probes > 0 ? opt->burst_probes : AC_SOLVER_BURST_PROBES;
    /* the certificates need good = the limit from empty, bad = the limit from full */
    c.store = !opt->burst_cold && (good->found_from & AC_SOLVER_FROM_EMPTY) &&
                      (bad->found_from & AC_SOLVER_FROM_FULL)
                  ? &store
                  : NULL;
    store.n = n;
    store.rtol = opt->rtol;
    r->bursts = calloc(nsizes, sizeof *r->bursts);
    if (work == NULL || r->bursts == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (bursts)");
        goto cleanup;
    }
    rc = ac_solver_pool_ode_new(m, opt, &c.ode, err);
    if (rc < 0)
        goto cleanup;
    if (c.store != NULL) { /* good and bad themselves */
        rc = store_reserve(&store, 2, err);
        if (rc < 0)
            goto cleanup;
        memcpy(store.q, good->q, n * sizeof *work);
        memcpy(store.q + n, bad->q, n * sizeof *work);
        store.tips[0] = 0;
        store.tips[1] = 1;
        store.count = store.mark = 2;
    }
    r->nbursts = nsizes;
    r->smallest_burst.duration = INFINITY;
    r->smallest_burst.jobs = INFINITY;
    for (i = 0; i < nsizes; i++) { /* sizes the budget does not reach stay untried */
        r->bursts[i].extra_rate = sizes[i] * base * m->servers;
        r->bursts[i].duration = INFINITY;
        r->bursts[i].jobs = INFINITY;
    }
    for (i = 0; i < nsizes; i++) {
        ac_solver_burst *b = &r->bursts[i];
        rc = one_size(&c, sizes[i] * base, work + n, work + 2 * n, b, err);
        if (rc < 0)
            goto cleanup;
        if (b->jobs < r->smallest_burst.jobs)
            r->smallest_burst = *b;
        if (rc > 0)
            break;
    }
cleanup:
    if (rc > 0) {
        r->burst_budget_spent = 1;
        rc = 0;
    }
    ac_solver_pool_ode_free(c.ode);
    free(store.q);
    free(store.tips);
    free(work);
    return rc;
}
