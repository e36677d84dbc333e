/*
 * The transient's inputs (transient_internal.h): the sources' rates under their profiles
 * (linear between points, held after the last; periodic when repeated), the bursts of the
 * profiles, the routes as a sparse matrix R_uv = p fanout / fanin, the static traffic of a
 * unit injected at a node (every node passing its inflow on), the couplings between pools,
 * and the integration targets (the kinks of the sources).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/transient_internal.h"

/* The profile's segment at t (after folding a repeat): rate and slope. */
static void profile_eval(const ac_profile *p, double t, double *rate, double *slope)
{
    *rate = ac_profile_rate(p, t, slope);
}

double ac_transient_source_rate(const ac_model *m, size_t s, double scale, double t)
{
    double r, sl;
    if (s >= m->nsources)
        return NAN;
    if (m->sources[s].profile == AC_NONE || m->sources[s].profile >= m->nprofiles)
        return scale * m->sources[s].rate;
    profile_eval(&m->profiles[m->sources[s].profile], t, &r, &sl);
    return scale * r;
}

void ac_solver_tr_sources_at(const tr_ctx *c, double t, double *gamma, double *slope)
{
    const ac_model *m = c->m;
    for (size_t s = 0; s < m->nsources; s++) {
        double r = m->sources[s].rate, sl = 0.0;
        if (m->sources[s].profile != AC_NONE && m->sources[s].profile < m->nprofiles)
            profile_eval(&m->profiles[m->sources[s].profile], t, &r, &sl);
        gamma[s] = c->scale * r;
        if (slope != NULL)
            slope[s] = c->scale * sl;
    }
}

/* The burst of one profile: base = first point's rate; peak = the first highest point;
 * end = when the rate is back at the base after the peak. Returns 1 when there is one. */
int ac_solver_tr_profile_burst(const ac_profile *p, double *t_peak, double *t_end)
{
    const ac_profile_point *pt = p->points;
    size_t n = p->npoints, ipk = 0;
    double base = pt[0].rate;
    for (size_t k = 1; k < n; k++)
        if (pt[k].rate > pt[ipk].rate)
            ipk = k;
    if (!(pt[ipk].rate > base * (1.0 + 1e-12)))
        return 0;
    *t_peak = pt[ipk].at;
    /* the peak segment: the peak is held until the rate starts falling */
    for (size_t k = ipk + 1; k < n; k++) {
        if (pt[k].rate <= base * (1.0 + 1e-9)) {
            double r0 = pt[k - 1].rate, r1 = pt[k].rate;
            double f = r0 > r1 ? (r0 - base) / (r0 - r1) : 1.0;
            if (f < 0.0)
                f = 0.0;
            *t_end = pt[k - 1].at + f * (pt[k].at - pt[k - 1].at);
            return 1;
        }
    }
    if (p->repeat) { /* the next period starts at the base rate */
        *t_end = pt[n - 1].at;
        return 1;
    }
    return 0;
}

/* ---- routing propagation ----------------------------------------------------------------- */

void ac_solver_tr_routes_free(tr_routes *r)
{
    free(r->start);
    free(r->to);
    free(r->coef);
    free(r->fanin);
    free(r->link);
}

int ac_solver_tr_routes_build(const ac_model *m, tr_routes *r)
{
    size_t n = m->nnodes;
    r->start = calloc(n + 1, sizeof *r->start);
    r->to = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->to);
    r->coef = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->coef);
    r->fanin = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->fanin);
    r->link = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->link);
    if (r->start == NULL || r->to == NULL || r->coef == NULL || r->fanin == NULL || r->link == NULL)
        return AC_ENOMEM;
    for (size_t k = 0; k < m->nroutes; k++)
        r->start[m->routes[k].from + 1]++;
    for (size_t i = 0; i < n; i++)
        r->start[i + 1] += r->start[i];
    {
        size_t *fill = calloc(n > 0 ? n : 1, sizeof *fill);
        if (fill == NULL)
            return AC_ENOMEM;
        for (size_t k = 0; k < m->nroutes; k++) {
            const ac_route *rt = &m->routes[k];
            size_t at = r->start[rt->from] + fill[rt->from]++;
            r->to[at] = rt->to;
            r->coef[at] = rt->p * (double)rt->fanout / (double)rt->fanin;
            r->fanin[at] = (double)rt->fanin;
            r->link[at] = AC_NONE; /* ac_solver_tr_links_setup */
        }
        free(fill);
    }
    return AC_OK;
}

void ac_solver_tr_prop_free(tr_prop *p)
{
    free(p->acc);
    free(p->pend);
    free(p->touched);
    free(p->work);
    free(p->inwork);
    free(p->seen);
}

int ac_solver_tr_prop_alloc(tr_prop *p, size_t n)
{
    size_t nn = n > 0 ? n : 1;
    memset(p, 0, sizeof *p);
    p->acc = calloc(nn, sizeof *p->acc);
    p->pend = calloc(nn, sizeof *p->pend);
    p->touched = malloc(nn * sizeof *p->touched);
    p->work = malloc(nn * sizeof *p->work);
    p->inwork = calloc(nn, 1);
    p->seen = calloc(nn, 1);
    return p->acc && p->pend && p->touched && p->work && p->inwork && p->seen ? AC_OK : AC_ENOMEM;
}

static void prop_push(tr_prop *p, size_t *nwork, size_t v, double w)
{
    p->pend[v] += w;
    if (!p->seen[v]) {
        p->seen[v] = 1;
        p->touched[p->ntouched++] = v;
    }
    if (!p->inwork[v]) {
        p->inwork[v] = 1;
        p->work[(*nwork)++] = v;
    }
}

/*
 * Mean jobs reaching each node per job injected at node `start`, every node passing its
 * inflow on (the static traffic of the truncation estimate). Fills p->acc over p->touched.
 * AC_EINPUT when the traffic has no finite solution (the work limit is reached).
 */
int ac_solver_tr_propagate(const tr_routes *r, size_t start, tr_prop *p)
{
    size_t nwork = 0, steps = 0;
    for (size_t k = 0; k < p->ntouched; k++) {
        size_t v = p->touched[k];
        p->acc[v] = p->pend[v] = 0.0;
        p->seen[v] = p->inwork[v] = 0;
    }
    p->ntouched = 0;
    prop_push(p, &nwork, start, 1.0);
    while (nwork > 0) {
        size_t u = p->work[--nwork];
        double w = p->pend[u];
        p->inwork[u] = 0;
        p->pend[u] = 0.0;
        p->acc[u] += w;
        if (++steps > TR_PROP_MAX)
            return AC_EINPUT;
        if (!(fabs(w) > 1e-15))
            continue;
        for (size_t e = r->start[u]; e < r->start[u + 1]; e++)
            prop_push(p, &nwork, r->to[e], w * r->coef[e]);
    }
    return AC_OK;
}

int ac_solver_tr_csr_add(tr_csr *c, size_t to, double coef)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 64;
        size_t *t2 = realloc(c->to, nc * sizeof *t2);
        double *c2;
        if (t2 == NULL)
            return AC_ENOMEM;
        c->to = t2;
        c2 = realloc(c->coef, nc * sizeof *c2);
        if (c2 == NULL)
            return AC_ENOMEM;
        c->coef = c2;
        c->cap = nc;
    }
    c->to[c->n] = to;
    c->coef[c->n++] = coef;
    return AC_OK;
}

void ac_solver_tr_csr_free(tr_csr *c)
{
    free(c->start);
    free(c->to);
    free(c->coef);
}

/* Couplings between pools by their direct routes: E (pool -> pool) and S (source -> pool),
 * and the pools that route to a serverless node or through a fluid link (their q_1 column
 * by forward-mode differentiation of the flows). */
int ac_solver_tr_build_coupling(tr_ctx *c, ac_error *err)
{
    const ac_model *m = c->m;
    c->cp.start = calloc(c->npools + 1, sizeof *c->cp.start);
    c->sp.start = calloc(m->nsources + 1, sizeof *c->sp.start);
    c->fd_pool = calloc(c->npools + 1, sizeof *c->fd_pool);
    if (!c->cp.start || !c->sp.start || !c->fd_pool)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient coupling)");
    for (size_t i = 0; i < c->npools; i++) {
        size_t v = c->pools[i].node;
        for (size_t e = c->rt.start[v]; e < c->rt.start[v + 1]; e++) {
            size_t w = c->rt.to[e];
            if (c->pool_of[w] == AC_NONE || c->rt.link[e] != AC_NONE)
                c->fd_pool[i] = 1; /* through a link: the link's state, not pool w's */
            else if (ac_solver_tr_csr_add(&c->cp, c->pool_of[w], c->rt.coef[e]) != AC_OK)
                return ac_error_set(err, AC_ENOMEM, "out of memory (transient coupling)");
        }
        c->cp.start[i + 1] = c->cp.n;
    }
    for (size_t s = 0; s < m->nsources; s++) {
        size_t w = m->sources[s].to;
        if (c->pool_of[w] != AC_NONE && ac_solver_tr_csr_add(&c->sp, c->pool_of[w], 1.0) != AC_OK)
            return ac_error_set(err, AC_ENOMEM, "out of memory (transient coupling)");
        c->sp.start[s + 1] = c->sp.n;
    }
    return AC_OK;
}

/* Times within this of each other are one instant (looks are k * interval, orders ready at
 * look + delay: both exact in the integrator, which stops there). */
double ac_solver_tr_eps(double t)
{
    return 1e-9 * fmax(1.0, fabs(t));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The integration targets: every profile point (repeats unfolded) inside the horizon and
 * the horizon, sorted, duplicates removed (the integrator never steps over a kink of the
 * sources; the samples are interpolated between its steps). */
double *ac_solver_tr_targets(const ac_model *m, double horizon, size_t nsamples, size_t *count)
{
    size_t cap = nsamples + 16, n = 0;
    double *t = malloc(cap * sizeof *t);
    if (t == NULL)
        return NULL;
    t[n++] = horizon;
    for (size_t q = 0; q < m->nprofiles; q++) {
        const ac_profile *p = &m->profiles[q];
        double period = p->points[p->npoints - 1].at;
        size_t reps = 1;
        if (p->repeat && period > 0.0) {
            double r = ceil(horizon / period);
            if (r > 100000.0)
                continue; /* the sample grid is all we do for very many periods */
            reps = (size_t)r + 1;
        }
        for (size_t r = 0; r < reps; r++)
            for (size_t k = 0; k < p->npoints; k++) {
                double at = (double)r * period + p->points[k].at;
                if (at <= 0.0 || at >= horizon)
                    continue;
                if (n == cap) {
                    double *t2 = realloc(t, 2 * cap * sizeof *t2);
                    if (t2 == NULL) {
                        free(t);
                        return NULL;
                    }
                    t = t2;
                    cap *= 2;
                }
                t[n++] = at;
            }
    }
    qsort(t, n, sizeof *t, cmp_double);
    {
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
            if (w == 0 || t[i] > t[w - 1])
                t[w++] = t[i];
        n = w;
    }
    *count = n;
    return t;
}
