/*
 * The transient of a queue (transient_internal.h; doc/serverless.md).
 *
 * Queues. Parameters: capacity K, batch b, max-consumers M, visibility timeout V,
 * max-receives R; the consumer is the function of the queue's only route (p = 1, fanout
 * k executions per delivery; ac_an_queue_consumer), which polls it. States: x visible, v in
 * process, y failed and waiting to reappear (messages).
 *   admitted:  Lambda min(1, max(0, K - x - v - y))   (the rest rejected)
 *   offer:     (admitted + reappearing + x / tau) / beta deliveries, beta = min(b, max(1, x))
 *              messages per batch (a poll takes min(b, visible): batches of one when
 *              nothing waits, full under a backlog); the consumer starts k per delivery as
 *              its slots and tokens allow (polled above), and the queue delivers what it
 *              starts: m messages/s
 *   process:   v / T_q ends, T_q = T_e H_k (the mean of the longest of the k executions,
 *              H_k the harmonic number); a delivery succeeds with sigma = ((1 - f)
 *              (1 - e^{-min(theta, V)/d}))^k (warm: every execution ends within theta and
 *              V), then its messages are deleted
 *   reappear:  y / (V - T_q): the failed messages reappear V after their receive; the share
 *              h_q = phi^{R-1} (1 - phi) / (1 - phi^R) of them, phi = 1 - sigma, is
 *              dead-lettered (the share of a message's failed receives that is its R-th:
 *              exact in steady state, where P(dead letter) = phi^R)
 *   dx/dt = admitted - m + (1 - h_q) y / (V - T_q)
 *   dv/dt = m - v / T_q,   dy/dt = (1 - sigma) v / T_q - y / (V - T_q)
 * A queue without such a consumer delivers its offer at once (x stays at 0). Counters:
 * offered, deleted, lost (rejected + dead-lettered).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/transient_internal.h"

/* The harmonic number H_k of a real k >= 1 (rounded up): the mean of the longest of k
 * exponentials of mean 1. */
static double harmonic(double k)
{
    double h = 0.0, n = ceil(fmax(k, 1.0));
    for (double i = 1.0; i <= n && i <= 1e6; i += 1.0)
        h += 1.0 / i;
    return h;
}

/* The parameters of queue node v; `fns`, `unit_of` give its consumer's. */
void ac_solver_tr_q_setup(const ac_model *m, size_t v, const tr_fn *fns, const size_t *unit_of,
                          tr_q *Q)
{
    const ac_queue *q = &m->nodes[v].u.queue;
    const ac_route *rt = ac_solver_queue_consumer_route(m, v);
    Q->node = v;
    Q->K = q->capacity == AC_UNBOUNDED ? INFINITY : (double)q->capacity;
    Q->b = (double)q->batch_size;
    Q->cons = AC_NONE;
    Q->k = 1.0;
    Q->sigma = 1.0;
    Q->tau = TR_RELAX;
    Q->Tq = Q->tau;
    Q->slots = INFINITY;
    if (rt != NULL) {
        const tr_fn *F = &fns[unit_of[rt->to]];
        Q->cons = unit_of[rt->to];
        Q->k = (double)rt->fanout;
        Q->slots = fmin((double)q->max_consumers, F->C);
        Q->tau = TR_RELAX * F->Te * harmonic(Q->k);
        ac_solver_tr_q_params(Q, q, &m->nodes[rt->to].u.function, 0.0);
        return;
    }
    Q->Ty = fmax(q->visibility_timeout - Q->Tq, Q->tau);
    Q->hdl = (double)q->max_receives <= 1.0 ? 1.0 : 0.0; /* sigma = 1 */
}

/*
 * The parameters of queue Q (of spec q) that follow from its consumer fn with `delay` (s)
 * added to every execution (a fault; 0 normally): a delivery of k executions lasts T_q =
 * delay + (T_e - delay) H_k (the longest of the k, T_e of ac_solver_tr_fn_params), succeeds
 * with sigma = ((1 - f) P(delay + X <= min(theta, V)))^k, and the dead-letter share h_q.
 */
void ac_solver_tr_q_params(tr_q *Q, const ac_queue *q, const ac_function *fn, double delay)
{
    double R = (double)q->max_receives, phi;
    double theta = fn->timeout > 0.0 ? fn->timeout : INFINITY;
    double cut = fmin(theta, q->visibility_timeout) - delay, e, Te;
    double ok = cut > 0.0 ? (1.0 - fn->fail_prob) * -expm1(-cut / fn->duration) : 0.0;
    e = isinf(theta) ? 0.0 : theta - delay > 0.0 ? exp(-(theta - delay) / fn->duration) : 1.0;
    Te = theta - delay > 0.0 ? delay + fn->duration * (1.0 - e) : theta;
    Q->Tq = delay + (Te - delay) * harmonic(Q->k);
    Q->sigma = pow(ok, Q->k);
    Q->Ty = fmax(q->visibility_timeout - Q->Tq, Q->tau);
    phi = 1.0 - Q->sigma;
    /* the share of the failed receives that is a message's R-th: phi^{R-1} (1 - phi) /
       (1 - phi^R), 1/R at phi = 1 */
    if (phi >= 1.0)
        Q->hdl = 1.0 / R;
    else if (phi <= 0.0)
        Q->hdl = R <= 1.0 ? 1.0 : 0.0;
    else
        Q->hdl = pow(phi, R - 1.0) * (1.0 - phi) / (1.0 - pow(phi, R));
}

/* The flows of queue Q at state y offered lam, up to its deliveries (q_deliver). */
static TR_INLINE void q_rates(const tr_q *Q, const double *y, const double *yd, tr_dn lam,
                              tr_q_rates *r)
{
    size_t o = Q->off;
    tr_dn x = dn_y(y, yd, o + Q_X), v = dn_y(y, yd, o + Q_V);
    tr_dn w = dn_y(y, yd, o + Q_Y), alpha = dn(1.0);
    memset(r, 0, sizeof *r);
    if (!isinf(Q->K))
        alpha = dn_min(dn(1.0), dn_pos(dn_sub(dn(Q->K), dn_add(x, dn_add(v, w)))));
    r->lam = lam;
    r->adm = dn_mul(lam, alpha);
    r->rej = dn_sub(lam, r->adm);
    r->beta = dn_min(dn(Q->b), dn_max(dn(1.0), x));
    r->proc = dn_scale(v, 1.0 / Q->Tq);
    r->del = dn_scale(r->proc, Q->sigma);
    r->back = dn_scale(w, 1.0 / Q->Ty);
    r->dead = dn_scale(r->back, Q->hdl);
    /* the admitted and the reappearing messages are offered at once, the visible ones
       within tau */
    r->offer = dn_div(dn_add(dn_add(r->adm, dn_sub(r->back, r->dead)), dn_scale(x, 1.0 / Q->tau)),
                      r->beta);
}

void ac_solver_tr_q_deliver(tr_q_rates *r, tr_dn deliveries)
{
    r->deliv = deliveries;
    r->m = dn_mul(deliveries, r->beta);
}

static TR_INLINE void q_drift_as(tr_ctx *c, size_t i, double *dy, int tangent)
{
    const tr_q *Q = &c->qs[i];
    const tr_q_rates *r = &c->qr[i];
    size_t o = Q->off, oc = Q->off + Q_NSTATE;
    dn_out(dy, o + Q_X, dn_add(dn_sub(r->adm, r->m), dn_sub(r->back, r->dead)), tangent);
    dn_out(dy, o + Q_V, dn_sub(r->m, r->proc), tangent);
    dn_out(dy, o + Q_Y, dn_sub(dn_sub(r->proc, r->del), r->back), tangent);
    dn_out(dy, oc + QC_A, r->lam, tangent);
    dn_out(dy, oc + QC_S, r->del, tangent);
    dn_out(dy, oc + QC_L, dn_add(r->rej, r->dead), tangent);
}

static void q_drift(tr_ctx *c, size_t i, const double *y, const double *yd, double *dy, int tangent)
{
    (void)y;
    (void)yd;
    if (tangent)
        q_drift_as(c, i, dy, 1);
    else /* values only: the derivatives' arithmetic is dead once inlined */
        q_drift_as(c, i, dy, 0);
}

/* The consumer node of queue node v, or AC_NONE. */
size_t ac_solver_tr_q_consumer_node(const tr_ctx *c, size_t v)
{
    const tr_q *Q = &c->qs[c->unit_of[v]];
    return Q->cons == AC_NONE ? AC_NONE : c->fns[Q->cons].node;
}

/* Record sample s of queue i (the rates of the last evaluation at y). */
static void q_record(const tr_ctx *c, size_t i, ac_transient_node *n, size_t s, const double *y,
                     const double *f)
{
    const tr_q *Q = &c->qs[i];
    const tr_q_rates *r = &c->qr[i];
    const double *x = y + Q->off, *cnt = x + Q_NSTATE;
    double xv = tr_pos(x[Q_X]), yv = tr_pos(x[Q_Y]), T = 0.0;
    (void)f;
    /* the wait of a message arriving now: the visible ones ahead at the current receive
       rate, and (Little) the wait of the failed ones to reappear */
    if (xv > 1e-9) /* below: the integration's noise on an empty queue */
        T += xv / fmax(r->m.v, 1e-9 * (r->adm.v + 1.0));
    if (yv > 0.0 && r->adm.v > 0.0)
        T += yv / r->adm.v;
    n->arrival_rate[s] = r->lam.v;
    n->throughput[s] = r->deliv.v;
    n->mean_jobs[s] = xv + tr_pos(x[Q_V]) + yv;
    n->utilization[s] = 0.0;
    if (Q->cons != AC_NONE) {
        const double *fx = y + c->fns[Q->cons].off;
        n->utilization[s] = (tr_pos(fx[FN_BP]) + tr_pos(fx[FN_BO]) + tr_pos(fx[FN_C])) / Q->slots;
    }
    n->loss_rate[s] = r->rej.v + r->dead.v;
    n->mean_response_time[s] = T;
    n->in_system[s] = n->mean_jobs[s];
    n->backlog[s] = xv;
    n->dead_letter_rate[s] = r->dead.v;
    n->cum_arrivals[s] = cnt[QC_A];
    n->cum_departures[s] = cnt[QC_S];
    n->cum_lost[s] = cnt[QC_L];
}

/* ---- the kind ------------------------------------------------------------------------ */

static int q_is_instant(const tr_ctx *c, size_t i)
{
    (void)c;
    (void)i;
    return 1;
}

/* A queue offers its deliveries; without a polling consumer it delivers them at once. */
static void q_instant(tr_ctx *c, size_t u, const double *y, const double *yd)
{
    size_t v = c->qs[u].node;
    if (c->vonly) /* values only (transient_internal.h, TR_INLINE) */
        q_rates(&c->qs[u], y, NULL, dn(c->lam[v].v), &c->qr[u]);
    else
        q_rates(&c->qs[u], y, yd, c->lam[v], &c->qr[u]);
    if (c->qs[u].cons == AC_NONE) {
        ac_solver_tr_q_deliver(&c->qr[u], c->qr[u].offer);
        c->outf[v] = c->qr[u].deliv;
        ac_solver_tr_push_out(c, v);
    }
}

/* Flow scale: offered + received + 1. */
static double q_residual(const tr_ctx *c, size_t i, const double *f)
{
    double r = 0.0, s = c->qr[i].lam.v + c->qr[i].m.v + 1.0;
    for (size_t k = 0; k < Q_NSTATE; k++)
        r = fmax(r, fabs(f[c->qs[i].off + k]) / s);
    return r;
}

/* The processing time of a delivery (a queue with a consumer). */
static void q_times(const tr_ctx *c, size_t i, double *slow, double *fast)
{
    if (c->qs[i].cons == AC_NONE)
        return;
    *slow = fmax(*slow, c->qs[i].Tq);
    *fast = fmin(*fast, c->qs[i].Tq);
}

static int q_alloc(const tr_ctx *c, size_t i, ac_transient_node *n, size_t ns)
{
    double **a[] = {&n->backlog, &n->dead_letter_rate, &n->cum_lost};
    (void)c;
    (void)i;
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++)
        if ((*a[k] = malloc(ns * sizeof(double))) == NULL)
            return AC_ENOMEM;
    return AC_OK;
}

static double q_mean_jobs(const tr_ctx *c, size_t i, const double *y)
{
    const double *x = y + c->qs[i].off;
    return tr_pos(x[Q_X]) + tr_pos(x[Q_V]) + tr_pos(x[Q_Y]);
}

const tr_kind ac_solver_tr_kind_queue = {
    .name = "queue",
    .is_instant = q_is_instant,
    .init = NULL,
    .outflow = NULL,
    .instant = q_instant,
    .rates = NULL,
    .drift = q_drift,
    .residual = q_residual,
    .times = q_times,
    .alloc = q_alloc,
    .record = q_record,
    .mean_jobs = q_mean_jobs,
};
