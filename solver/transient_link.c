/*
 * The links in the transient (transient.h, ac_transient_link; the steady state's semantics,
 * solver/link.c: a FIFO transmitting each job in 1/c, at most `buffer` waiting, then the
 * propagation `latency`).
 *
 * A link of finite capacity c is a fluid node of the ODE on its routes: the routes from ->
 * to feed it f(t) = sum of out_from p fanout (the copies sent), and the node `to` is fed
 * what it carries (over the routes' fanin). Its state x is its jobs, waiting or
 * transmitting, under the pointwise-stationary fluid flow approximation (PSFFA; Wang and
 * Tipper): the busy fraction U and the blocking B are those of the stationary queue whose
 * mean jobs are x,
 *   x' = f (1 - B(x)) - c U(x),   carried c U(x),   lost f B(x).
 * At a constant load the fixed point is U(x) = rho (1 - B): x is the stationary mean, and
 * what it carries and loses are the steady state's (solver/link.c) exactly; in an overload
 * U -> 1 and x grows at f - c, the fluid limit. Unbounded buffer: M/D/1, whose mean is
 * N(rho) = rho + rho^2 / (2 (1 - rho)), so U(x) = 2x / (1 + x + sqrt(1 + x^2)), B = 0. A
 * buffer of at most TR_LINK_KMAX: U, B (and the mean wait) of M/D/1/K against its mean
 * jobs, tabulated once over rho in [0, 50] (ac_solver_link_solve) and interpolated by
 * Steffen's monotone cubic (GSL); beyond the table's top B rises linearly to 1 at x = K. A
 * deeper buffer: M/D/1's U and a fluid buffer (B rises from 0 at K - 1 to 1 at K; M/D/1/K's
 * blocking below an overload, at most P(N >= K) of M/D/1, is not in it).
 *
 * The law of a job arriving at t (the response law of transient.h): a = latency + 1/c, then
 * unbounded: the M/D/1 wait at rho_s = min(U(x), f/c) (0 when f >= c), fitted as exponential
 * with the exact P(W > 0) = rho_s and E[W] = rho_s / (2 c (1 - rho_s)) (Pollaczek-
 * Khinchine), plus the backlog above its stationary mean, x - N(rho_s), as the fluid FIFO
 * wait (an overload's, or a burst's left to drain): the time until the carried count of the
 * trajectory has passed it (fifo_waits, at the end of the evaluation); bounded: P(W > 0) = U and
 * the M/D/1/K mean wait at x. The M/D/1 wait's tail decays faster than the exponential of the same
 * mean below rho ~ 0.8 (the fit's p95 is high there, conservatively); measured against the exact
 * law in tests/test_transient_metrics.c. The latency is in the law, and so end to end, and in the
 * flows: what the link carries passes TR_LINK_STAGES Erlang stages of mean the latency (a delay
 * fault lengthens it; the jobs propagating, lambda x latency at a steady load, are in the stages)
 * before the node behind receives it. A link without latency delivers at once; a delay fault on it
 * is in the law only. A link of unbounded capacity has no backlog: its stages alone, or no state at
 * all without a latency. A capacity-loss fault of v leaves c (1 - v), at least TR_LINK_FLOOR of c
 * (the fluid needs c > 0); a delay fault adds to the latency (transient_faults.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "archcheck/link.h"
#include "solver/transient_internal.h"

#define LAWP(l, ns, k, s) ((l)[(size_t)(k) * (ns) + (s)])
#define TR_LINK_RHO_TOP   50.0 /* the tables' highest load (ac_solver_link_solve's limit) */

/* M/D/1's load whose stationary mean jobs are x (N(rho) inverted), and its derivative;
 * linear below 0 (integration noise around an empty link). */
static double md1_load(double x, double *d)
{
    double r;
    if (x <= 0.0) {
        *d = 1.0;
        return x;
    }
    r = sqrt(1.0 + x * x);
    *d = 1.0 / (r * (r + x));
    return 2.0 * x / (1.0 + x + r);
}

/* M/D/1's stationary mean jobs at load rho < 1. */
static double md1_mean(double rho)
{
    return rho + rho * rho / (2.0 * (1.0 - rho));
}

/* One table: y against the mean jobs tn, interpolated (Steffen), clamped to its range. */
static void table_at(const tr_link *L, const gsl_interp *ip, const double *ty, double x, double *v,
                     double *d)
{
    double xt = L->tn[L->nt - 1];
    x = fmin(fmax(x, 0.0), xt);
    if (gsl_interp_eval_e(ip, L->tn, ty, x, NULL, v) != GSL_SUCCESS ||
        gsl_interp_eval_deriv_e(ip, L->tn, ty, x, NULL, d) != GSL_SUCCESS) {
        *v = ty[L->nt - 1];
        *d = 0.0;
    }
}

/* U(x) and B(x) with their derivatives in x (the top of this file). */
static void link_ub(const tr_link *L, double x, tr_dn *u, tr_dn *b)
{
    if (!L->bounded) {
        u->v = md1_load(x, &u->d);
        b->v = b->d = 0.0;
        if (isfinite(L->K) && x > L->K - 1.0) { /* the fluid buffer */
            b->v = fmin(1.0, x - (L->K - 1.0));
            b->d = x < L->K ? 1.0 : 0.0;
        }
        return;
    }
    if (x <= 0.0) {
        u->v = x;
        u->d = 1.0;
        b->v = b->d = 0.0;
        return;
    }
    table_at(L, L->iu, L->tu, x, &u->v, &u->d);
    table_at(L, L->ib, L->tb, x, &b->v, &b->d);
    {
        double xt = L->tn[L->nt - 1], span = L->K - xt, bt = L->tb[L->nt - 1];
        if (x >= xt) {
            double w = span > 0.0 ? fmin((x - xt) / span, 1.0) : 1.0;
            u->d = 0.0;
            b->v = bt + (1.0 - bt) * w;
            b->d = span > 0.0 && w < 1.0 ? (1.0 - bt) / span : 0.0;
        }
    }
}

/* The loads of a bounded link's tables: uniform in rho / (1 + rho) up to TR_LINK_RHO_TOP,
 * and dense around rho = 1 (where the mean jobs climb from about 1 to about K). Sorted. */
static size_t table_loads(double *rho, size_t n)
{
    size_t nu = n - n / 3, nd = n - nu, k = 0;
    double umax = TR_LINK_RHO_TOP / (1.0 + TR_LINK_RHO_TOP);
    for (size_t i = 0; i < nu; i++) {
        double u = umax * (double)i / (double)(nu - 1);
        rho[k++] = u / (1.0 - u);
    }
    for (size_t i = 0; i < nd; i++) {
        double v = -1.0 + 2.0 * ((double)i + 0.5) / (double)nd;
        rho[k++] = 1.0 + 0.5 * sinh(4.0 * v) / sinh(4.0);
    }
    for (size_t i = 1; i < k; i++) /* insertion sort: k is small */
        for (size_t j = i; j > 0 && rho[j - 1] > rho[j]; j--) {
            double t = rho[j];
            rho[j] = rho[j - 1];
            rho[j - 1] = t;
        }
    return k;
}

/* The M/D/1/K tables of a bounded link (K = buffer + 1 <= TR_LINK_KMAX + 1). */
static int link_tables(const ac_link *ln, tr_link *L, ac_error *err)
{
    ac_link unit = *ln;
    double rho[TR_LINK_TABLE];
    size_t n = table_loads(rho, TR_LINK_TABLE), w = 0;
    unit.capacity = 1.0;
    unit.latency = 0.0;
    L->tn = calloc(4 * TR_LINK_TABLE, sizeof(double));
    if (L->tn == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (link tables)");
    L->tu = L->tn + TR_LINK_TABLE;
    L->tb = L->tu + TR_LINK_TABLE;
    L->tw = L->tb + TR_LINK_TABLE;
    for (size_t i = 0; i < n; i++) {
        ac_solver_link_result r;
        int rc = ac_solver_link_solve(&unit, rho[i], 0.0, &r, err);
        if (rc != AC_OK) {
            ac_solver_link_result_clear(&r);
            return rc;
        }
        if (w == 0 || r.mean_jobs > L->tn[w - 1] * (1.0 + 1e-9) + 1e-12) {
            L->tn[w] = r.mean_jobs;
            L->tu[w] = r.utilization;
            L->tb[w] = r.loss_probability;
            L->tw[w] = r.mean_wait;
            w++;
        }
        ac_solver_link_result_clear(&r);
    }
    L->nt = w;
    L->iu = gsl_interp_alloc(gsl_interp_steffen, w);
    L->ib = gsl_interp_alloc(gsl_interp_steffen, w);
    L->iw = gsl_interp_alloc(gsl_interp_steffen, w);
    if (L->iu == NULL || L->ib == NULL || L->iw == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (link tables)");
    if (gsl_interp_init(L->iu, L->tn, L->tu, w) != GSL_SUCCESS ||
        gsl_interp_init(L->ib, L->tn, L->tb, w) != GSL_SUCCESS ||
        gsl_interp_init(L->iw, L->tn, L->tw, w) != GSL_SUCCESS)
        return ac_error_set(err, AC_ENUMERIC, "the tables of a link did not interpolate");
    return AC_OK;
}

int ac_solver_tr_links_setup(tr_ctx *c, ac_error *err)
{
    const ac_model *m = c->m;
    c->nlinks = m->nlinks;
    c->lks = calloc(c->nlinks + 1, sizeof *c->lks);
    if (c->lks == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (links)");
    for (size_t l = 0; l < c->nlinks; l++) {
        const ac_link *ln = &m->links[l];
        tr_link *L = &c->lks[l];
        double sc = 0.0, sf = 0.0;
        L->c = ln->capacity;
        L->lat = ln->latency;
        L->fluid = isfinite(ln->capacity) && ln->capacity > 0.0;
        L->staged = ln->latency > 0.0;
        L->K = ln->buffer == AC_UNBOUNDED ? INFINITY : (double)ln->buffer + 1.0;
        L->bounded = L->fluid && ln->buffer != AC_UNBOUNDED && ln->buffer <= TR_LINK_KMAX;
        if (L->bounded) {
            int rc = link_tables(ln, L, err);
            if (rc != AC_OK)
                return rc;
        }
        for (size_t e = c->rt.start[ln->from]; e < c->rt.start[ln->from + 1]; e++)
            if (c->rt.to[e] == ln->to) {
                sc += c->rt.coef[e];
                sf += c->rt.coef[e] * c->rt.fanin[e];
                if (L->fluid || L->staged)
                    c->rt.link[e] = l;
            }
        L->per = sf > 0.0 ? sc / sf : 1.0;
    }
    return AC_OK;
}

int ac_solver_tr_links_layout(tr_ctx *c, ac_error *err)
{
    size_t *cols;
    if (c->nlinks == 0)
        return AC_OK;
    for (size_t l = 0; l < c->nlinks; l++) {
        tr_link *L = &c->lks[l];
        L->off = L->soff = c->dim;
        if (L->fluid) {
            c->dim += LK_NSTATE + LC_N;
            c->nlkst += LK_NSTATE;
            L->soff = c->dim;
        }
        if (L->staged) {
            c->dim += TR_LINK_STAGES;
            c->nlkst += TR_LINK_STAGES;
        }
    }
    cols = realloc(c->fdcols, (c->nfd + c->nlkst + 1) * sizeof *cols);
    if (cols == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (links)");
    c->fdcols = cols;
    for (size_t l = 0; l < c->nlinks; l++) {
        const tr_link *L = &c->lks[l];
        if (L->fluid)
            c->fdcols[c->nfd++] = L->off + LK_X;
        for (size_t i = 0; L->staged && i < TR_LINK_STAGES; i++)
            c->fdcols[c->nfd++] = L->soff + i;
    }
    return AC_OK;
}

void ac_solver_tr_links_free(tr_ctx *c)
{
    for (size_t l = 0; c->lks != NULL && l < c->nlinks; l++) {
        gsl_interp_free(c->lks[l].iu);
        gsl_interp_free(c->lks[l].ib);
        gsl_interp_free(c->lks[l].iw);
        free(c->lks[l].tn);
    }
    free(c->lks);
    c->lks = NULL;
}

/* Every link's inflow back to 0, its carried flow and blocking from its state (with
 * derivatives along yd), what it delivers (the last stage's outflow, or the carried flow)
 * pushed on to `to`. Before the nodes push theirs. */
void ac_solver_tr_links_outflow(tr_ctx *c, const double *y, const double *yd)
{
    for (size_t l = 0; l < c->nlinks; l++) {
        tr_link *L = &c->lks[l];
        size_t to = c->m->links[l].to;
        if (!L->fluid && !L->staged)
            continue;
        L->in = dn(0.0);
        if (L->fluid) {
            tr_dn u, b, x = dn_y(y, yd, L->off + LK_X);
            link_ub(L, x.v, &u, &b);
            L->out.v = L->c * u.v;
            L->out.d = L->c * u.d * x.d;
            L->blk.v = b.v;
            L->blk.d = b.d * x.d;
            L->dlv = L->out;
        }
        if (L->staged)
            L->dlv = dn_scale(dn_y(y, yd, L->soff + TR_LINK_STAGES - 1),
                              (double)TR_LINK_STAGES / L->lat);
        c->lam[to] = dn_add(c->lam[to], dn_scale(L->dlv, L->per));
    }
}

/* The rows of link L's stages: p_1' = carried - r p_1, p_i' = r (p_{i-1} - p_i), r = k / the
 * latency (Erlang(k) of mean the latency; a delay fault lengthens it). */
static void stage_drift(const tr_link *L, const double *y, const double *yd, tr_dn first,
                        double *dy, int tangent)
{
    double r = (double)TR_LINK_STAGES / L->lat;
    tr_dn prev = first;
    for (size_t i = 0; i < TR_LINK_STAGES; i++) {
        tr_dn out = dn_scale(dn_y(y, yd, L->soff + i), r);
        dn_out(dy, L->soff + i, dn_sub(prev, out), tangent);
        prev = out;
    }
}

/* The rows of every link (values, or their derivatives along yd: the last flows'). */
void ac_solver_tr_links_drift(tr_ctx *c, const double *y, const double *yd, double *dy, int tangent)
{
    for (size_t l = 0; l < c->nlinks; l++) {
        const tr_link *L = &c->lks[l];
        tr_dn keep, lost;
        size_t o = L->off;
        if (L->staged)
            stage_drift(L, y, yd, L->fluid ? L->out : L->in, dy, tangent);
        if (!L->fluid)
            continue;
        keep = dn_sub(dn(1.0), L->blk);
        lost = dn_mul(L->in, L->blk);
        dn_out(dy, o + LK_X, dn_sub(dn_mul(L->in, keep), L->out), tangent);
        dn_out(dy, o + LK_NSTATE + LC_A, L->in, tangent);
        dn_out(dy, o + LK_NSTATE + LC_D, L->out, tangent);
        dn_out(dy, o + LK_NSTATE + LC_L, lost, tangent);
    }
}

double ac_solver_tr_links_residual(const tr_ctx *c, const double *f)
{
    double r = 0.0;
    for (size_t l = 0; l < c->nlinks; l++) {
        const tr_link *L = &c->lks[l];
        double scale = fabs(L->in.v) + (L->fluid ? L->c : 1.0);
        if (L->fluid)
            r = fmax(r, fabs(f[L->off + LK_X]) / scale);
        for (size_t i = 0; L->staged && i < TR_LINK_STAGES; i++)
            r = fmax(r, fabs(f[L->soff + i]) / scale);
    }
    return r;
}

void ac_solver_tr_links_zero(const tr_ctx *c, double *y)
{
    for (size_t l = 0; l < c->nlinks; l++)
        if (c->lks[l].fluid)
            memset(y + c->lks[l].off + LK_NSTATE, 0, LC_N * sizeof *y);
}

/* The law of fluid link L with x jobs, offered f (the top of this file). */
static void fluid_law(const tr_link *L, double x, double f, double *law, size_t ns, size_t s)
{
    double c = L->c, a = L->lat + 1.0 / c, pw = 0.0, g = 0.0;
    if (L->bounded) {
        tr_dn u, b;
        double wm, d;
        link_ub(L, x, &u, &b);
        table_at(L, L->iw, L->tw, x, &wm, &d);
        wm /= c;
        if (x > 0.0 && u.v > 0.0 && wm > 0.0) {
            pw = fmin(u.v, 1.0);
            g = pw / wm;
        }
    } else {
        double du, rs = fmin(md1_load(fmax(x, 0.0), &du), f / c);
        if (!(f < c) || !(rs > 0.0))
            rs = 0.0;
        rs = fmin(rs, 1.0 - 1e-12);
        (void)x; /* the backlog above md1_mean(rs): fifo_waits() at the end */
        if (rs > 0.0) {
            pw = rs;
            g = 2.0 * c * (1.0 - rs);
        }
    }
    LAWP(law, ns, AC_TRANSIENT_LAW_SHIFT, s) = a;
    LAWP(law, ns, AC_TRANSIENT_LAW_PCOLD, s) = 0.0;
    LAWP(law, ns, AC_TRANSIENT_LAW_COLD, s) = 0.0;
    LAWP(law, ns, AC_TRANSIENT_LAW_PWAIT, s) = pw;
    LAWP(law, ns, AC_TRANSIENT_LAW_WRATE, s) = g;
    LAWP(law, ns, AC_TRANSIENT_LAW_SMEAN, s) = 0.0;
    LAWP(law, ns, AC_TRANSIENT_LAW_SCAP, s) = INFINITY;
}

/* The flow into pure-delay link l now: its routes' copies (the flows just evaluated). */
static double delay_inflow(const tr_ctx *c, size_t l)
{
    const ac_link *ln = &c->m->links[l];
    double f = 0.0;
    for (size_t e = c->rt.start[ln->from]; e < c->rt.start[ln->from + 1]; e++)
        if (c->rt.to[e] == ln->to)
            f += c->outf[ln->from].v * c->rt.coef[e] * c->rt.fanin[e];
    return fmax(f, 0.0);
}

void ac_solver_tr_links_record(const tr_ctx *c, ac_transient *tr, size_t s, const double *y)
{
    size_t ns = tr->nsamples;
    for (size_t l = 0; l < tr->nlinks; l++) {
        const tr_link *L = &c->lks[l];
        ac_transient_link *k = &tr->links[l];
        if (!L->fluid) {
            double f = L->staged ? fmax(L->in.v, 0.0) : delay_inflow(c, l);
            k->arrival_rate[s] = k->throughput[s] = f;
            k->backlog[s] = k->loss_rate[s] = k->in_system[s] = k->cum_lost[s] = 0.0;
            k->cum_arrivals[s] = k->cum_departures[s] = NAN; /* integrated in _finish */
            LAWP(k->law, ns, AC_TRANSIENT_LAW_SHIFT, s) = L->lat;
            for (int p = AC_TRANSIENT_LAW_PCOLD; p < AC_TRANSIENT_LAW_SCAP; p++)
                LAWP(k->law, ns, p, s) = 0.0;
            LAWP(k->law, ns, AC_TRANSIENT_LAW_SCAP, s) = INFINITY;
            continue;
        }
        {
            double x = y[L->off + LK_X];
            tr_dn u, b;
            link_ub(L, x, &u, &b);
            k->arrival_rate[s] = fmax(L->in.v, 0.0);
            k->throughput[s] = fmax(L->out.v, 0.0);
            k->loss_rate[s] = fmax(L->in.v * L->blk.v, 0.0);
            k->in_system[s] = fmax(x, 0.0);
            k->backlog[s] = fmax(0.0, x - u.v);
            k->cum_arrivals[s] = y[L->off + LK_NSTATE + LC_A];
            k->cum_departures[s] = y[L->off + LK_NSTATE + LC_D];
            k->cum_lost[s] = y[L->off + LK_NSTATE + LC_L];
            fluid_law(L, x, fmax(L->in.v, 0.0), k->law, ns, s);
        }
    }
}

/* The stationary part of an unbounded link's jobs at x, offered f, capacity c (fluid_law's
 * rho_s). */
static double stationary_jobs(double c, double x, double f)
{
    double du, rs = fmin(md1_load(fmax(x, 0.0), &du), f / c);
    if (!(f < c) || !(rs > 0.0))
        return 0.0;
    return md1_mean(fmin(rs, 1.0 - 1e-12));
}

/*
 * The fluid FIFO wait of unbounded link l's backlog above its stationary part, added to the
 * law's shift at every sample: a job entering at t_s finds x_s - x_st ahead beyond the
 * stationary jobs, done when the carried count reaches D_s + x_s - x_st, at u from the
 * trajectory (linear between samples; past the horizon at the capacity then): the wait
 * under the capacity to come (a capacity-loss ending, a drain), not the capacity of t_s.
 */
static void fifo_waits(const tr_ctx *c, ac_transient *tr, size_t l)
{
    ac_transient_link *k = &tr->links[l];
    size_t ns = tr->nsamples, last = ns - 1;
    const double *D = k->cum_departures;
    for (size_t s = 0; s < ns; s++) {
        double cap, lat, ahead, target, u;
        size_t lo = s, hi = last;
        ac_solver_tr_link_faults_at(c, l, tr->t[s], &cap, &lat);
        ahead = k->in_system[s] - stationary_jobs(cap, k->in_system[s], k->arrival_rate[s]);
        if (!(ahead > 1e-9))
            continue;
        target = D[s] + ahead;
        if (D[last] < target) {
            ac_solver_tr_link_faults_at(c, l, tr->horizon, &cap, &lat);
            u = tr->horizon + (target - D[last]) / cap;
        } else {
            while (hi - lo > 1) { /* D nondecreasing: the first sample at or past target */
                size_t mid = lo + (hi - lo) / 2;
                *(D[mid] < target ? &lo : &hi) = mid;
            }
            u = D[hi] > D[lo]
                    ? tr->t[lo] + (tr->t[hi] - tr->t[lo]) * (target - D[lo]) / (D[hi] - D[lo])
                    : tr->t[hi];
        }
        LAWP(k->law, ns, AC_TRANSIENT_LAW_SHIFT, s) += fmax(0.0, u - tr->t[s]);
    }
}

/* Trapezoids of rate r over the samples into cum. */
static void integrate(const ac_transient *tr, const double *r, double *cum)
{
    cum[0] = 0.0;
    for (size_t s = 1; s < tr->nsamples; s++)
        cum[s] = cum[s - 1] + 0.5 * (r[s] + r[s - 1]) * (tr->t[s] - tr->t[s - 1]);
}

/* The pure delays' counts, the fluid FIFO waits, the totals, the oldest age, the notes. */
void ac_solver_tr_links_finish(const tr_ctx *c, ac_transient *tr)
{
    const ac_model *m = c->m;
    size_t ns = tr->nsamples, last = ns - 1;
    for (size_t l = 0; l < tr->nlinks; l++) {
        const ac_link *ln = &m->links[l];
        const tr_link *L = &c->lks[l];
        ac_transient_link *k = &tr->links[l];
        k->saturated = 0;
        if (!L->fluid) {
            integrate(tr, k->arrival_rate, k->cum_arrivals);
            memcpy(k->cum_departures, k->cum_arrivals, ns * sizeof *k->cum_departures);
        }
        for (size_t s = 0; s < ns && L->fluid; s++) {
            double cap, lat;
            ac_solver_tr_link_faults_at(c, l, tr->t[s], &cap, &lat);
            if (k->arrival_rate[s] > cap * (1.0 + 1e-9))
                k->saturated = 1;
        }
        if (L->fluid && !L->bounded)
            fifo_waits(c, tr, l);
        k->offered = k->cum_arrivals[last];
        k->lost = k->cum_lost[last];
        k->loss_fraction = k->offered > 0.0 ? fmin(1.0, fmax(k->lost, 0.0) / k->offered) : NAN;
        k->oldest_age = L->fluid ? ac_solver_tr_oldest_age(tr->t, ns, k->cum_departures,
                                                           k->in_system, k->throughput[0])
                                 : L->lat;
        if (k->saturated) {
            size_t len = strlen(tr->note);
            snprintf(tr->note + len, sizeof tr->note - len,
                     "%slink %s -> %s is offered more than its capacity: it carries its "
                     "capacity to '%s'",
                     len ? "; " : "", m->nodes[ln->from].id, m->nodes[ln->to].id,
                     m->nodes[ln->to].id);
        }
    }
}
