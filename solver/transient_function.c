/*
 * The transient of a function (transient_internal.h; doc/serverless.md).
 *
 * cold start c0, keep-alive T, scale rate s, retries r, fail-prob f, provisioned P,
 * pre-warm W every I. An execution lasts min(X, theta), X ~ Exp(d):
 *   T_e = d (1 - e^{-theta/d}),  p_f = e^{-theta/d} + (1 - e^{-theta/d}) f.
 * States: b_p, b_o busy instances (provisioned, on-demand; executing), c initialising, g
 * scale tokens (bucket G = scale-burst, default max(1, s); full at t = 0), u waiting attempts
 * (async, polled), rho_1, rho_2 retries in back-off (async), w_1..w_k idle-warm on-demand instances
 * in the keep-alive's Erlang stages (w_1 the most recently idled; k =
 * AC_TRANSIENT_KEEPALIVE_STAGES, each stage left at kappa = k / T). The idle provisioned instances
 * are P - b_p. attempts:  Att = Lambda (+ rho_1 / 60 s + rho_2 / 120 s, async) demand:    D = Att
 * (sync);  Att + u / tau (async);  O + Att + u / tau (polled, O = the executions its queues offer)
 *   slots:     S = (b_p + b_o) / T_free + (C' - b_p - b_o - c) / tau,  a = min(D, max(S, 0)),
 *              C' = C (polled: min(C, the queues' max-consumers))
 *   warm:      taken from P - b_p first, then from the on-demand instances freed now (the
 *              most recently used: they serve the demand at once, only their excess
 *              enters w_1), then w_1, w_2, ... (most recently idled first):
 *              r_P = min(a, (P - b_p) / tau), r_d = min(a - r_P, b_o / T_free),
 *              r_i = min(a - r_P - r_d - r_1 - ... - r_{i-1}, w_i / tau)
 *              (a remaining demand below TR_ROUND a is 0). Without r_d the freed instances
 *              would pass through w_1, which under a steady load then hovers at tau a,
 *              kappa tau below the kink of its min(): the integrator's steps were limited
 *              by the noise of that stock (2,892 CVODE steps per evaluation of
 *              samples/serverless-pipeline.xml against 2,161 with r_d); with r_d no
 *              instance stays idle under a steady load (the tau -> 0 limit of the chain).
 *   cold:      n = min(a - warm, s + g / tau) (a scale token per cold start),
 *              refill = min(s, n + (G - g) / tau);  starts = warm + n
 *   sync:      throttled requests T = Att - starts (concurrency or scale rate); a throttled
 *              attempt's immediate retries meet the same full function, so the request is
 *              lost; a failed execution's retry reuses its instance at once, so an admitted
 *              request holds its instance T_free = T_e sum_{i<=r} p_f^i (the steady model's
 *              E[hold]) and succeeds with probability 1 - p_f^{r+1}.
 *   async:     nothing is throttled: du/dt = Att - starts; every execution frees its
 *              instance (T_free = T_e); its failures F = p_f b / T_e are final with the
 *              stationary share h = p_f^r / sum_{i<=r} p_f^i (exact in steady state, where
 *              the attempt classes are in proportion; the transient assumes they stay so),
 *              the rest retried, the first retries (share 1 / sum_{i<r} p_f^i) into rho_1
 *              (mean back-off 60 s), later ones into rho_2 (120 s): exponential stand-ins for
 *              the fixed back-offs.
 *   polled:    like async with r = 0 and nothing retried here: a failed execution is lost to
 *              the function (the queue redelivers the message); the starts are shared
 *              between the queues' offer O (their deliveries) and other waiting inflow.
 *   db_p/dt = r_P - b_p / T_free
 *   db_o/dt = r_d + sum_i r_i + c / c0 - b_o / T_free  (c0 = 0: the cold starts n directly)
 *   dc/dt   = n - c / c0
 *   dg/dt   = refill - n
 *   dw_1/dt = b_o / T_free - r_d - r_1 - kappa w_1,  dw_i/dt = kappa w_{i-1} - r_i - kappa w_i
 * (freed provisioned instances return to P - b_p). Pre-warming: at t = 0, I, 2I, ... the
 * instances alive, P + b_o + c + sum w_i, are topped up to W with new w_1 (an event: the
 * driver restarts). Counters: offered, succeeded, lost, admitted, throttled, cold starts.
 * Approximations: a deterministic fluid: below the concurrency nothing is throttled (the
 * Erlang-B blocking of the fluctuations is not in it) and no spare instances stay idle
 * under a steady load (so no cold starts in a fluid steady state: the steady-state model
 * has both); exponential stand-ins for the
 * execution times, the fixed keep-alive (Erlang-k) and back-offs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/transient_internal.h"

/* sum_{i=0..n} q^i */
static double geom_sum(double q, size_t n)
{
    double s = 0.0, t = 1.0;
    for (size_t i = 0; i <= n && i < 100000; i++) {
        s += t;
        t *= q;
        if (t < 1e-18)
            break;
    }
    return s;
}

/* Is function node v fed by a queue (polled)? */
static int fn_polled(const ac_model *m, size_t v)
{
    for (size_t k = 0; k < m->nroutes; k++)
        if (m->routes[k].to == v && m->nodes[m->routes[k].from].kind == AC_NODE_QUEUE)
            return 1;
    return 0;
}

/*
 * The parameters of an execution of fn with `delay` (s) added to it (a fault; 0 normally):
 * it lasts min(delay + X, theta), so T_e = delay + d (1 - e^{-(theta - delay)/d}) and it times
 * out with probability e^{-(theta - delay)/d} (every one when delay >= theta); the retries'
 * hold time, success and shares follow (the top of this file); and the cold start.
 */
void ac_solver_tr_fn_params(tr_fn *F, const ac_function *fn, double delay)
{
    double d = fn->duration, theta = fn->timeout > 0.0 ? fn->timeout : INFINITY;
    double left = theta - delay, e = isinf(theta) ? 0.0 : left > 0.0 ? exp(-left / d) : 1.0;
    F->Te = left > 0.0 ? delay + d * (1.0 - e) : theta;
    F->pf = e + (1.0 - e) * fn->fail_prob;
    F->Tfree = F->mode == TR_SYNC ? F->Te * geom_sum(F->pf, F->retries) : F->Te;
    F->succ = F->mode == TR_SYNC ? 1.0 - pow(F->pf, (double)F->retries + 1.0) : 1.0 - F->pf;
    F->h = 1.0;
    F->h1 = 1.0;
    if (F->mode == TR_ASYNC) {
        F->h = pow(F->pf, (double)F->retries) / geom_sum(F->pf, F->retries);
        F->h1 = F->retries > 0 ? 1.0 / geom_sum(F->pf, F->retries - 1) : 1.0;
    }
    F->c0 = fn->cold_start;
    F->delay = delay;
}

/* The parameters of function node v (the top of this file). */
void ac_solver_tr_fn_setup(const ac_model *m, size_t v, tr_fn *F)
{
    const ac_function *fn = &m->nodes[v].u.function;
    F->node = v;
    F->mode = fn_polled(m, v)                         ? TR_POLLED
              : fn->invocation == AC_INVOCATION_ASYNC ? TR_ASYNC
                                                      : TR_SYNC;
    F->retries = F->mode == TR_POLLED ? 0 : fn->retries;
    F->C = (double)fn->concurrency;
    F->Cp = F->C;
    ac_solver_tr_fn_params(F, fn, 0.0);
    F->kappa = (double)TR_KS / fn->keep_alive;
    F->s = fn->scale_rate;
    F->G = ac_function_scale_depth(fn);
    F->P = (double)fn->provisioned;
    F->W = (double)fn->prewarm;
    F->I = fn->prewarm_interval;
    F->tau = TR_RELAX * F->Te;
    F->next_ping = F->W > 0.0 ? 0.0 : INFINITY;
    F->prewarmed = 0.0;
}

/* The successful requests leaving function F: its own state only. */
static tr_dn fn_outflow(const tr_fn *F, const double *y, const double *yd)
{
    tr_dn b = dn_add(dn_y(y, yd, F->off + FN_BP), dn_y(y, yd, F->off + FN_BO));
    return F->mode == TR_SYNC ? dn_scale(b, F->succ / F->Tfree)
                              : dn_scale(b, (1.0 - F->pf) / F->Te);
}

/* The flows of function F at state y (derivatives along yd), offered lam (and, polled,
 * offer_q executions by its queues). */
static TR_INLINE void fn_rates(const tr_fn *F, const double *y, const double *yd, tr_dn lam,
                               tr_dn offer_q, tr_fn_rates *r)
{
    size_t o = F->off;
    double it = 1.0 / F->tau;
    tr_dn bp = dn_y(y, yd, o + FN_BP), bo = dn_y(y, yd, o + FN_BO);
    tr_dn cc = dn_y(y, yd, o + FN_C), g = dn_y(y, yd, o + FN_G);
    tr_dn u = dn_y(y, yd, o + FN_U), b = dn_add(bp, bo), rem, slots, starts_o;
    /* the flows not set below in every mode (a memset of the whole was 20% of this
       function's cycles: rep stos) */
    r->rP = r->thr = r->to1 = r->to2 = r->back = dn(0.0);
    r->lam = lam;
    r->offer_q = offer_q;
    r->freed = dn_scale(b, 1.0 / F->Tfree);
    r->done = dn_scale(b, 1.0 / F->Te);
    if (F->mode == TR_ASYNC)
        r->back = dn_add(dn_scale(dn_y(y, yd, o + FN_R1), 1.0 / TR_BACKOFF1),
                         dn_scale(dn_y(y, yd, o + FN_R2), 1.0 / TR_BACKOFF2));
    r->att = dn_add(lam, r->back);
    r->demand = dn_add(offer_q, r->att);
    if (F->mode != TR_SYNC)
        r->demand = dn_add(r->demand, dn_scale(u, it));
    slots = dn_pos(dn_add(r->freed, dn_scale(dn_sub(dn(F->Cp), dn_add(b, cc)), it)));
    r->adm = dn_min(r->demand, slots);
    rem = r->adm;
    if (F->P > 0.0) {
        r->rP = dn_min(rem, dn_scale(dn_pos(dn_sub(dn(F->P), bp)), it));
        rem = dn_floor(dn_sub(rem, r->rP), r->adm.v);
    }
    /* the on-demand instances freed now serve the demand at once (the most recently used),
       only their excess enters w_1 */
    r->rd = dn_min(rem, dn_scale(bo, 1.0 / F->Tfree));
    rem = dn_floor(dn_sub(rem, r->rd), r->adm.v);
    for (size_t i = 0; i < TR_KS; i++) {
        r->rw[i] = dn_min(rem, dn_scale(dn_pos(dn_y(y, yd, o + FN_W + i)), it));
        rem = dn_floor(dn_sub(rem, r->rw[i]), r->adm.v);
    }
    r->warm = dn_sub(r->adm, rem);
    r->cold = dn_min(rem, dn_add(dn(F->s), dn_scale(g, it)));
    r->refill =
        dn_min(dn(F->s), dn_add(r->cold, dn_scale(dn_sub(dn(F->G), dn_y(y, yd, o + FN_G)), it)));
    r->starts = dn_add(r->warm, r->cold);
    r->starts_q = r->demand.v > 0.0 ? dn_div(dn_mul(r->starts, offer_q), r->demand) : dn(0.0);
    starts_o = dn_sub(r->starts, r->starts_q);
    r->fails = dn_scale(r->done, F->pf);
    if (F->mode == TR_SYNC) {
        r->thr = dn_sub(r->att, r->starts);
        r->du = dn_scale(dn_y(y, yd, o + FN_U), -it);
        r->succ = dn_scale(r->freed, F->succ);
        r->lost = dn_add(r->thr, dn_scale(r->freed, 1.0 - F->succ));
        r->execs = dn_add(r->starts, dn_sub(r->done, r->freed));
    } else {
        r->du = dn_sub(r->att, starts_o);
        r->succ = dn_scale(r->done, 1.0 - F->pf);
        r->execs = r->starts;
        if (F->mode == TR_POLLED) {
            r->lost = r->fails;
        } else {
            tr_dn retry = dn_scale(r->fails, 1.0 - F->h);
            r->lost = dn_sub(r->fails, retry);
            r->to1 = dn_scale(retry, F->h1);
            r->to2 = dn_sub(retry, r->to1);
        }
    }
}

/* The drift of function F's states and counters into dy (indexed as y): the values, or
 * (tangent) their derivatives. */
static TR_INLINE void fn_drift(const tr_fn *F, const double *y, const double *yd,
                               const tr_fn_rates *r, double *dy, int tangent)
{
    size_t o = F->off, oc = F->off + FN_NSTATE;
    double it = 1.0 / F->tau;
    tr_dn bp = dn_y(y, yd, o + FN_BP), bo = dn_y(y, yd, o + FN_BO);
    tr_dn cc = dn_y(y, yd, o + FN_C), warm_od = r->rd;
    for (size_t i = 0; i < TR_KS; i++)
        warm_od = dn_add(warm_od, r->rw[i]);
    dn_out(dy, o + FN_BP, dn_sub(r->rP, dn_scale(bp, 1.0 / F->Tfree)), tangent);
    if (F->c0 > 0.0) {
        tr_dn ready = dn_scale(cc, 1.0 / F->c0);
        dn_out(dy, o + FN_BO, dn_sub(dn_add(warm_od, ready), dn_scale(bo, 1.0 / F->Tfree)),
               tangent);
        dn_out(dy, o + FN_C, dn_sub(r->cold, ready), tangent);
    } else {
        dn_out(dy, o + FN_BO, dn_sub(dn_add(warm_od, r->cold), dn_scale(bo, 1.0 / F->Tfree)),
               tangent);
        dn_out(dy, o + FN_C, dn_scale(dn_y(y, yd, o + FN_C), -it), tangent);
    }
    dn_out(dy, o + FN_G, dn_sub(r->refill, r->cold), tangent);
    dn_out(dy, o + FN_U, r->du, tangent);
    if (F->mode == TR_ASYNC) {
        dn_out(dy, o + FN_R1, dn_sub(r->to1, dn_scale(dn_y(y, yd, o + FN_R1), 1.0 / TR_BACKOFF1)),
               tangent);
        dn_out(dy, o + FN_R2, dn_sub(r->to2, dn_scale(dn_y(y, yd, o + FN_R2), 1.0 / TR_BACKOFF2)),
               tangent);
    } else {
        dn_out(dy, o + FN_R1, dn_scale(dn_y(y, yd, o + FN_R1), -it), tangent);
        dn_out(dy, o + FN_R2, dn_scale(dn_y(y, yd, o + FN_R2), -it), tangent);
    }
    for (size_t i = 0; i < TR_KS; i++) {
        tr_dn in = i == 0 ? dn_sub(dn_scale(bo, 1.0 / F->Tfree), r->rd)
                          : dn_scale(dn_y(y, yd, o + FN_W + i - 1), F->kappa);
        tr_dn out = dn_scale(dn_y(y, yd, o + FN_W + i), F->kappa);
        dn_out(dy, o + FN_W + i, dn_sub(dn_sub(in, r->rw[i]), out), tangent);
    }
    dn_out(dy, oc + FC_A, dn_add(r->lam, r->starts_q), tangent);
    dn_out(dy, oc + FC_S, r->succ, tangent);
    dn_out(dy, oc + FC_L, r->lost, tangent);
    dn_out(dy, oc + FC_ADM, r->starts, tangent);
    dn_out(dy, oc + FC_THR, r->thr, tangent);
    dn_out(dy, oc + FC_CS, r->cold, tangent);
}

/* Instances alive: provisioned + on-demand busy + initialising + idle-warm. */
double ac_solver_tr_fn_alive(const tr_fn *F, const double *y)
{
    const double *x = y + F->off;
    double a = F->P + tr_pos(x[FN_BO]) + tr_pos(x[FN_C]);
    for (size_t i = 0; i < TR_KS; i++)
        a += tr_pos(x[FN_W + i]);
    return a;
}

/* Requests at the function: busy, initialising, waiting, in back-off. */
static double fn_in_system(const double *y, size_t off)
{
    const double *x = y + off;
    return tr_pos(x[FN_BP]) + tr_pos(x[FN_BO]) + tr_pos(x[FN_C]) + tr_pos(x[FN_U]) +
           tr_pos(x[FN_R1]) + tr_pos(x[FN_R2]);
}

/* Record sample s of function i (the rates of tr_f at y). */
static void fn_record(const tr_ctx *c, size_t i, ac_transient_node *n, size_t s, const double *y,
                      const double *f)
{
    const tr_fn *F = &c->fns[i];
    const tr_fn_rates *r = &c->fr[i];
    const double *x = y + F->off, *cnt = x + FN_NSTATE;
    double b = tr_pos(x[FN_BP]) + tr_pos(x[FN_BO]), cc = tr_pos(x[FN_C]), u = tr_pos(x[FN_U]);
    double wait = tr_pos(x[FN_R1]) + tr_pos(x[FN_R2]), idle = tr_pos(F->P - tr_pos(x[FN_BP]));
    double T = F->Tfree;
    (void)f;
    for (size_t k = 0; k < TR_KS; k++)
        idle += tr_pos(x[FN_W + k]);
    /* the time of a request entering now, at the current rates: its hold, a cold start in
       the share of the starts that are cold, and (Little) its waits */
    if (r->starts.v > 0.0)
        T += F->c0 * r->cold.v / r->starts.v;
    if (u > 0.0 && r->att.v + r->offer_q.v > 0.0)
        T += u / (r->att.v + r->offer_q.v);
    if (wait > 0.0 && r->lam.v > 0.0)
        T += wait / r->lam.v;
    n->arrival_rate[s] = r->lam.v + r->starts_q.v;
    n->throughput[s] = r->succ.v;
    n->mean_jobs[s] = b + cc;
    n->utilization[s] = (b + cc) / F->C;
    n->loss_rate[s] = r->lost.v;
    n->mean_response_time[s] = T;
    n->in_system[s] = fn_in_system(y, F->off);
    n->instances[s] = ac_solver_tr_fn_alive(F, y);
    n->busy[s] = b;
    n->initialising[s] = cc;
    n->idle[s] = idle;
    n->cold_start_rate[s] = r->cold.v;
    n->execution_rate[s] = r->execs.v;
    n->throttle_rate[s] = r->thr.v;
    n->failure_rate[s] = r->fails.v;
    n->backlog[s] = u;
    n->tokens[s] = tr_pos(x[FN_G]);
    n->cum_arrivals[s] = cnt[FC_A];
    n->cum_departures[s] = cnt[FC_S];
    n->cum_lost[s] = cnt[FC_L];
    n->cum_admitted[s] = cnt[FC_ADM];
    n->cum_throttled[s] = cnt[FC_THR];
    n->cum_cold_starts[s] = cnt[FC_CS];
}

/* ---- the kind ------------------------------------------------------------------------ */

static int fn_is_instant(const tr_ctx *c, size_t i)
{
    return c->fns[i].mode == TR_POLLED;
}

/* Idle: nothing busy, the scale-token bucket full. */
static void fn_init(const tr_ctx *c, size_t i, double *y)
{
    y[c->fns[i].off + FN_G] = c->fns[i].G;
}

static void fn_kind_outflow(tr_ctx *c, size_t i, const double *y, const double *yd)
{
    c->outf[c->fns[i].node] = fn_outflow(&c->fns[i], y, yd);
}

/* A polled function: its queues offer their deliveries (k executions each), it starts what
 * its slots and tokens allow, and each queue delivers its share of the starts. */
static void fn_instant(tr_ctx *c, size_t u, const double *y, const double *yd)
{
    tr_dn offer = dn(0.0);
    size_t v = c->fns[u].node;
    for (size_t q = 0; q < c->nqs; q++)
        if (c->qs[q].cons == u)
            offer = dn_add(offer, dn_scale(c->qr[q].offer, c->qs[q].k));
    if (c->vonly) /* values only (transient_internal.h, TR_INLINE) */
        fn_rates(&c->fns[u], y, NULL, dn(c->lam[v].v), dn(offer.v), &c->fr[u]);
    else
        fn_rates(&c->fns[u], y, yd, c->lam[v], offer, &c->fr[u]);
    for (size_t q = 0; q < c->nqs; q++) {
        tr_dn share = dn(0.0);
        if (c->qs[q].cons != u)
            continue;
        if (offer.v > 0.0)
            share = dn_div(c->qr[q].offer, offer);
        ac_solver_tr_q_deliver(&c->qr[q], dn_mul(c->fr[u].starts_q, share));
        c->outf[c->qs[q].node] = c->qr[q].deliv;
        ac_solver_tr_push_out(c, c->qs[q].node);
    }
}

static void fn_kind_rates(tr_ctx *c, size_t i, const double *y, const double *yd)
{
    if (c->vonly) /* values only (transient_internal.h, TR_INLINE) */
        fn_rates(&c->fns[i], y, NULL, dn(c->lam[c->fns[i].node].v), dn(0.0), &c->fr[i]);
    else
        fn_rates(&c->fns[i], y, yd, c->lam[c->fns[i].node], dn(0.0), &c->fr[i]);
}

static void fn_kind_drift(tr_ctx *c, size_t i, const double *y, const double *yd, double *dy,
                          int tangent)
{
    if (tangent)
        fn_drift(&c->fns[i], y, yd, &c->fr[i], dy, 1);
    else /* values only: the derivatives' arithmetic is dead once inlined */
        fn_drift(&c->fns[i], y, NULL, &c->fr[i], dy, 0);
}

/* Flow scale: offered + scale rate + C / T_free. */
static double fn_residual(const tr_ctx *c, size_t i, const double *f)
{
    const tr_fn *F = &c->fns[i];
    double r = 0.0, s = c->fr[i].lam.v + c->fr[i].offer_q.v + F->s + F->Cp / F->Tfree;
    for (size_t k = 0; k < FN_NSTATE; k++)
        r = fmax(r, fabs(f[F->off + k]) / s);
    return r;
}

/* The hold time, the cold start, an async function's retry back-off; the execution. */
static void fn_times(const tr_ctx *c, size_t i, double *slow, double *fast)
{
    const tr_fn *F = &c->fns[i];
    *slow = fmax(*slow, fmax(F->Tfree, F->c0));
    if (F->mode == TR_ASYNC && F->retries > 0)
        *slow = fmax(*slow, F->retries > 1 ? TR_BACKOFF2 : TR_BACKOFF1);
    *fast = fmin(*fast, F->Te);
}

static int fn_alloc(const tr_ctx *c, size_t i, ac_transient_node *n, size_t ns)
{
    double **a[] = {&n->instances,       &n->busy,           &n->initialising,  &n->idle,
                    &n->cold_start_rate, &n->execution_rate, &n->throttle_rate, &n->failure_rate,
                    &n->backlog,         &n->tokens,         &n->cum_lost,      &n->cum_admitted,
                    &n->cum_throttled,   &n->cum_cold_starts};
    (void)c;
    (void)i;
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++)
        if ((*a[k] = malloc(ns * sizeof(double))) == NULL)
            return AC_ENOMEM;
    return AC_OK;
}

static double fn_mean_jobs(const tr_ctx *c, size_t i, const double *y)
{
    const double *x = y + c->fns[i].off;
    return tr_pos(x[FN_BP]) + tr_pos(x[FN_BO]) + tr_pos(x[FN_C]);
}

const tr_kind ac_solver_tr_kind_function = {
    .name = "function",
    .is_instant = fn_is_instant,
    .init = fn_init,
    .outflow = fn_kind_outflow,
    .instant = fn_instant,
    .rates = fn_kind_rates,
    .drift = fn_kind_drift,
    .residual = fn_residual,
    .times = fn_times,
    .alloc = fn_alloc,
    .record = fn_record,
    .mean_jobs = fn_mean_jobs,
};
