/*
 * The transient (fluid) model of an open network (models.md §4, §5; transient.h).
 *
 * State y: the pools' mean-field vectors q_1..q_P (each of a fixed truncation), then two
 * counters per pool, the jobs offered (A) and departed (D) since t = 0, then the states and
 * counters of every function, queue and gateway (below). The counters are integrated with
 * the rest, so conservation can be checked exactly (BDF preserves linear invariants).
 *
 * Coupling. Every node has an outflow: pools dep_j = N_j mu_j min(q_j1, 1), functions their
 * successful requests, queues their deliveries (batches), gateways their admitted requests;
 * node v is offered Lambda_v(t, y) = sum_s [to_s = v] gamma_s(t) + sum_u R_uv out_u with R_uv
 * = p fanout / fanin of the routes u -> v. The outflows of pools and functions depend on
 * their own state only; those of gateways and queues on their inflow at the same instant
 * (and a queue's on what its consumer takes), so they are evaluated in a topological order
 * of the routes among gateways, queues and polled functions (a cycle among them, which no
 * state would ever hold, is AC_EINPUT).
 *
 * Pools:
 *   dq_j/dt = f_j(q_j; Lambda_j),  dA_j/dt = Lambda_j,  dD_j/dt = dep_j.
 *
 * Fluid mins. A fluid limit min(demand, capacity) that holds a stock at a bound (a slot
 * count, an empty bucket, an empty queue) is written with a relaxation time tau (TR_RELAX
 * times the node's natural time: a function's T_e, a queue's processing time, a gateway's
 * bucket time Z / r): the stock is drawn at most at stock / tau, e.g. admitted = min(Lambda,
 * r + z / tau) for a bucket of z tokens refilled at r. At a fixed point the relaxation
 * vanishes, so the fluid equilibria are exact (admitted = r + z / tau = r: the bucket is
 * empty and the rejection is Lambda - r exactly); a stock that a flow passes through hovers
 * at flow x tau (a function's idle-warm instances: TR_RELAX of its busy ones under a steady
 * load); in a transient a stock lags by a few tau. tau must not be too small either: a step
 * of msbdf that leaves a stock's stiff branch (slope -1/tau) starts Newton with that slope,
 * so its first correction is about (the rates' mismatch) x tau, which must stay well above
 * the tolerance on the stock (rtol x the stock), or the old branch passes for converged (at
 * 1e-4 of the natural time the sample's bucket drained 0.3 s late; at TR_RELAX = 1e-2 the
 * error is 2e-4 tokens).
 *
 * Functions (doc/serverless.md). Parameters: concurrency C, mean execution d, timeout theta,
 * cold start c0, keep-alive T, scale rate s, retries r, fail-prob f, provisioned P,
 * pre-warm W every I. An execution lasts min(X, theta), X ~ Exp(d):
 *   T_e = d (1 - e^{-theta/d}),  p_f = e^{-theta/d} + (1 - e^{-theta/d}) f.
 * States: b_p, b_o busy instances (provisioned, on-demand; executing), c initialising, g
 * scale tokens (bucket G = max(1, s), full at t = 0), u waiting attempts (async, polled),
 * rho_1, rho_2 retries in back-off (async), w_1..w_k idle-warm on-demand instances in the
 * keep-alive's Erlang stages (w_1 the most recently idled; k = AC_TRANSIENT_KEEPALIVE_STAGES,
 * each stage left at kappa = k / T). The idle provisioned instances are P - b_p.
 *   attempts:  Att = Lambda (+ rho_1 / 60 s + rho_2 / 120 s, async)
 *   demand:    D = Att (sync);  Att + u / tau (async);  O + Att + u / tau (polled, O = the
 *              executions its queues offer)
 *   slots:     S = (b_p + b_o) / T_free + (C' - b_p - b_o - c) / tau,  a = min(D, max(S, 0)),
 *              C' = C (polled: min(C, the queues' max-consumers))
 *   warm:      taken from P - b_p first, then w_1, w_2, ... (most recently used first):
 *              r_P = min(a, (P - b_p) / tau), r_i = min(a - r_P - r_1 - ... - r_{i-1}, w_i / tau)
 *              (a remaining demand below TR_ROUND a is 0: the later stages hover at
 *              (kappa tau)^i a, below the rounding of the subtraction)
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
 *   db_o/dt = sum_i r_i + c / c0 - b_o / T_free       (c0 = 0: the cold starts n directly)
 *   dc/dt   = n - c / c0
 *   dg/dt   = refill - n
 *   dw_1/dt = b_o / T_free - r_1 - kappa w_1,  dw_i/dt = kappa w_{i-1} - r_i - kappa w_i
 * (freed provisioned instances return to P - b_p). Pre-warming: at t = 0, I, 2I, ... the
 * instances alive, P + b_o + c + sum w_i, are topped up to W with new w_1 (an event: the
 * driver restarts). Counters: offered, succeeded, lost, admitted, throttled, cold starts.
 * Approximations: a deterministic fluid: below the concurrency nothing is throttled (the
 * Erlang-B blocking of the fluctuations is not in it) and no spare instances stay idle
 * under a steady load but the relaxation's TR_RELAX of the busy ones (so no cold starts in
 * a fluid steady state: the steady-state model has both); exponential stand-ins for the
 * execution times, the fixed keep-alive (Erlang-k) and back-offs.
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
 *
 * Gateways. Bucket Z = max(burst, 1) tokens, full at t = 0, refilled at r:
 *   admitted = min(Lambda, r + z / tau),  dz/dt = min(r, admitted + (Z - z) / tau) - admitted,
 * rejected = Lambda - admitted (the fluid: rejection starts when the bucket is empty, where
 * the real bucket rejects below one token, and Poisson arrivals reject some before). An
 * unbounded rate limit admits everything (no state). Counters: offered, admitted, rejected.
 *
 * Jacobian. Block diagonal from each pool's Jacobian J_j = df_j/dq_j (at its current
 * Lambda_j), plus the coupling between pools linked by a route
 *     df_j/dq_i1 = g_j * R_ij N_i mu_i [q_i1 < 1],   g_j = df_j/dLambda_j.
 * The drift is exactly linear in the offered rate Lambda: f_k = (Lambda/N) S(P(q)) a_k(q)
 * - mu (q_k - q_{k+1}) (solver.h), where the retry factor S(P(q)) and the law a_k(q) depend
 * on q only (their q-derivatives are in J_j already); shared-queue's Lambda/N [x < 1 + B/N]
 * is linear too. solver.h does not expose df/dLambda, so g_j = f_j(Lambda = 1) - f_j(Lambda
 * = 0): exact for a linear function (two drift evaluations per pool and Jacobian call).
 * The columns of the serverless states, and the column of q_i1 of a pool that routes to a
 * serverless node, are exact too: forward-mode differentiation (dual numbers, tr_dn) of the
 * flows along the column's unit direction, through the instantaneous order of the gateways
 * and queues; the serverless rows take their drifts' derivatives, a pool k's rows g_k
 * dLambda_k (its own block keeps J_k). Each min() takes the derivative of the branch its
 * values select (piecewise-smooth blocks: the derivative of the side the state is on).
 * Finite differences would not do: the later keep-alive stages hover at (kappa tau)^i of the
 * flow, far below any usable difference step, so a difference straddles the kink of their
 * min() and gives msbdf's Newton iteration a wrong slope (steps of tau resulted). The
 * explicit time dependence df/dt is the derivative along the sources' slopes: analytic for
 * pools fed straight by sources, and the same forward mode along gamma'(t) when serverless
 * nodes are present (profiles are piecewise linear; the integration stops at every profile
 * point). The tolerances (rtol, atol) are those of the options, as for the pools.
 *
 * Dense up to opt->dense_max states (msbdf with the Jacobian above, stored dim x dim);
 * above, rkf45 (explicit, adaptive; no Jacobian; slow if the system is stiff, which the
 * relaxations of the serverless stages make it).
 *
 * Truncation of pool j: from the static traffic Lambda_j(t) = sum_s w_sj gamma_s(t) (every
 * node passing its inflow on) on a grid over the horizon: below capacity at the peak, the
 * automatic truncation of ac_solver_pool_model_new at the peak rate (the system being
 * cooperative, a state below the peak's fixed point stays below it); overloaded, the
 * truncation at the start rate plus the fluid build-up B = int max(0, Lambda/N - mu) dt
 * plus six standard deviations sqrt((Lambda_peak/N + mu) T_over) of its spread; finite
 * buffers cap it, and so does opt->pool_dim_max (noted).
 *
 * Loss rate of a pool: Lambda - (N sum_k f_k + dep) (offered minus admitted: sum_k f_k
 * telescopes to the admitted flow minus departures per server). For pools with retries the
 * admitted flow includes retried copies, so the difference (clipped at 0) is a lower bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "analysis/internal.h"
#include "archcheck/transient.h"

#define TR_GRID         2000     /* grid of the truncation estimate */
#define TR_SETTLE_TOL   1e-10    /* settled: max |f_k| <= this * (lambda + mu), per server */
#define TR_SETTLE_FLOOR 1e-6     /* settled when the residual stops improving below this */
#define TR_SETTLE_STEPS 20000    /* most steps of one settling chunk */
#define TR_PROP_MAX     10000000 /* work limit of one propagation */
#define TR_RELAX        AC_TRANSIENT_RELAX
#define TR_ROUND        1e-12 /* a remaining demand below this share of the whole is 0 */
#define TR_BACKOFF1     60.0  /* s, an async function's back-off before its first retry */
#define TR_BACKOFF2     120.0 /* s, and before each later one */
#define TR_KS           AC_TRANSIENT_KEEPALIVE_STAGES

/* A function's states (offsets from its first) and counters (from off + FN_NSTATE). */
enum { FN_BP, FN_BO, FN_C, FN_G, FN_U, FN_R1, FN_R2, FN_W, FN_NSTATE = FN_W + TR_KS };
enum { FC_A, FC_S, FC_L, FC_ADM, FC_THR, FC_CS, FC_N };
/* A queue's states and counters. */
enum { Q_X, Q_V, Q_Y, Q_NSTATE };
enum { QC_A, QC_S, QC_L, QC_N };
/* A gateway's counters (after its token level, when bounded). */
enum { GC_A, GC_S, GC_L, GC_N };

/* A FIFO of (time, count) pairs: the scaler's pending orders and its recommendations. */
typedef struct tr_fifo {
    double *t;
    size_t *n;
    size_t head, len, cap;
} tr_fifo;

/* The HPA-like scaler of one autoscaled pool (transient.h). */
typedef struct tr_scaler {
    const ac_autoscale *as;
    size_t target;         /* the target count: serving + ordered */
    size_t k;              /* looks done; the next one is at k * interval */
    tr_fifo orders;        /* pending orders: ready time, servers */
    tr_fifo recs;          /* recommendations of the cooldown window: time, count */
    size_t ev_cap, ch_cap; /* capacities of the node's event and change logs */
} tr_scaler;

typedef struct tr_pool {
    size_t node;
    ac_solver_pool_model *model;
    size_t dim, off;
    double N, mu, cap; /* servers, service rate, N mu */
    int truncated;
    double base_rate; /* jobs/s offered at the sources' `rate` (static traffic) */
    double hours;     /* int N dt / 3600 up to t_last */
    double t_last;    /* s, the last change of N */
    tr_scaler *sc;    /* NULL: servers fixed */
} tr_pool;

typedef struct tr_routes {
    size_t *start, *to;
    double *coef;
} tr_routes;

/* A sparse map origin -> targets: CSR. */
typedef struct tr_csr {
    size_t *start; /* norigins + 1 */
    size_t *to;
    double *coef;
    size_t n, cap;
} tr_csr;

/* How a function is invoked (doc/serverless.md). */
typedef enum tr_mode { TR_SYNC = 0, TR_ASYNC, TR_POLLED } tr_mode;

/* A function (the top of this file). */
typedef struct tr_fn {
    size_t node, off; /* its states at off, its counters at off + FN_NSTATE */
    tr_mode mode;
    size_t retries; /* r (0 when polled) */
    double C, Cp;   /* concurrency; the slots the starts see (polled: min(C, sum of M)) */
    double Te, pf;  /* E[min(X, theta)], P(an execution fails) */
    double Tfree;   /* s an admitted request holds its instance (sync: T_e sum p_f^i) */
    double succ;    /* sync: P(a request admitted succeeds) = 1 - p_f^{r+1} */
    double h, h1;   /* async: the final share of the failures; the first retries' share */
    double c0, kappa, s, G, P, W, I, tau;
    double next_ping; /* pre-warming: the next ping (INFINITY: none) */
    double prewarmed; /* instances created by the pings */
} tr_fn;

/* A value and its derivative along one direction: forward-mode differentiation gives the
 * Jacobian's columns of the serverless states and df/dt (the top of this file). */
typedef struct tr_dn {
    double v, d;
} tr_dn;

/* A function's flows at one state (per second). */
typedef struct tr_fn_rates {
    tr_dn lam;     /* offered: requests (polled: inflow that is not a queue's delivery) */
    tr_dn offer_q; /* polled: executions its queues offer */
    tr_dn att;     /* attempts: lam + retries out of back-off */
    tr_dn demand, adm, rP, rw[TR_KS], warm, cold, refill, starts, starts_q;
    tr_dn thr;   /* sync: throttled requests */
    tr_dn du;    /* d(waiting)/dt */
    tr_dn freed; /* instances freed: b / T_free */
    tr_dn done;  /* executions ending: b / T_e */
    tr_dn succ, lost, fails, to1, to2, back;
    tr_dn execs; /* executions started (retries on the same instance included) */
} tr_fn_rates;

/* A queue. */
typedef struct tr_q {
    size_t node, off;
    size_t cons;        /* the consumer (index into fns), AC_NONE */
    double k;           /* executions per delivery */
    double K, b, slots; /* capacity (INFINITY), batch, min(M, C) */
    double Tq, Ty, sigma, hdl, tau;
} tr_q;

typedef struct tr_q_rates {
    tr_dn lam, adm, rej, beta, offer, deliv, m, proc, del, back, dead;
} tr_q_rates;

/* A gateway. */
typedef struct tr_gw {
    size_t node, off;
    int bounded;
    double r, Z, tau;
} tr_gw;

typedef struct tr_gw_rates {
    tr_dn lam, adm, rej, refill;
} tr_gw_rates;

typedef struct tr_ctx {
    const ac_model *m;
    const ac_transient_options *opt;
    size_t npools;
    tr_pool *pools;
    size_t *pool_of; /* node -> pool index, AC_NONE */
    tr_csr cp, sp;   /* pool -> pool, source -> pool (direct routes) */
    int *fd_pool;    /* pool j routes to a serverless node: its q_j1 column by
                        forward-mode differentiation */
    size_t dim, nq;  /* total; pool levels only (counters start at nq) */
    double *gamma, *gslope, *lambda, *dep;
    double *f0, *f1, *jb; /* scratch: max pool dim, and max pool dim^2 (dense) */
    size_t maxdim;
    int frozen;
    double t_frozen;
    size_t nscaled; /* pools with a scaler */
    /* the serverless stages */
    tr_routes rt;    /* the direct routes */
    size_t *unit_of; /* node -> index into pools, fns, qs or gws by its kind */
    size_t nfns, nqs, ngws, nsl;
    tr_fn *fns;
    tr_q *qs;
    tr_gw *gws;
    tr_fn_rates *fr;
    tr_q_rates *qr;
    tr_gw_rates *gr;
    tr_dn *lam, *outf;     /* per node: offered, outflow (with their derivatives) */
    size_t *order, norder; /* gateways, queues and polled functions in evaluation order */
    size_t *fdcols, nfd;   /* the Jacobian's columns by forward-mode differentiation */
    double *fd_y, *fd_f;   /* scratch: a direction (dim), a derivative of f (dim) */
    double *gbuf;          /* scratch: g = df/dLambda of every pool (nq) */
    size_t nprewarm;       /* functions with pre-warming pings */
} tr_ctx;

void ac_transient_options_init(ac_transient_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->samples = 401;
    opt->start = AC_TRANSIENT_START_STEADY;
    opt->rtol = 1e-7;
    opt->atol = 1e-10;
    opt->dense_max = AC_TRANSIENT_DENSE_MAX;
    opt->pool_dim_max = 4096;
    opt->scale = 1.0;
}

/* ---- profiles -------------------------------------------------------------------------------- */

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

static void sources_at(const tr_ctx *c, double t, double *gamma, double *slope)
{
    const ac_model *m = c->m;
    for (size_t s = 0; s < m->nsources; s++) {
        double r = m->sources[s].rate, sl = 0.0;
        if (m->sources[s].profile != AC_NONE && m->sources[s].profile < m->nprofiles)
            profile_eval(&m->profiles[m->sources[s].profile], t, &r, &sl);
        gamma[s] = c->opt->scale * r;
        if (slope != NULL)
            slope[s] = c->opt->scale * sl;
    }
}

/* The burst of one profile: base = first point's rate; peak = the first highest point;
 * end = when the rate is back at the base after the peak. Returns 1 when there is one. */
static int profile_burst(const ac_profile *p, double *t_peak, double *t_end)
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

static void routes_free(tr_routes *r)
{
    free(r->start);
    free(r->to);
    free(r->coef);
}

static int routes_build(const ac_model *m, tr_routes *r)
{
    size_t n = m->nnodes;
    r->start = calloc(n + 1, sizeof *r->start);
    r->to = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->to);
    r->coef = malloc((m->nroutes > 0 ? m->nroutes : 1) * sizeof *r->coef);
    if (r->start == NULL || r->to == NULL || r->coef == NULL)
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
        }
        free(fill);
    }
    return AC_OK;
}

/* Scratch of a propagation: dense accumulators and a work list. */
typedef struct tr_prop {
    double *acc, *pend;
    size_t *touched, ntouched;
    size_t *work;
    unsigned char *inwork, *seen;
} tr_prop;

static void prop_free(tr_prop *p)
{
    free(p->acc);
    free(p->pend);
    free(p->touched);
    free(p->work);
    free(p->inwork);
    free(p->seen);
}

static int prop_alloc(tr_prop *p, size_t n)
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
static int propagate(const tr_routes *r, size_t start, tr_prop *p)
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

static int csr_add(tr_csr *c, size_t to, double coef)
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

static void csr_free(tr_csr *c)
{
    free(c->start);
    free(c->to);
    free(c->coef);
}

/* Couplings between pools by their direct routes: E (pool -> pool) and S (source -> pool),
 * and the pools that route to a serverless node (their q_1 column by forward-mode
 * differentiation of the flows). */
static int build_coupling(tr_ctx *c, ac_error *err)
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
            if (c->pool_of[w] == AC_NONE)
                c->fd_pool[i] = 1;
            else if (csr_add(&c->cp, c->pool_of[w], c->rt.coef[e]) != AC_OK)
                return ac_error_set(err, AC_ENOMEM, "out of memory (transient coupling)");
        }
        c->cp.start[i + 1] = c->cp.n;
    }
    for (size_t s = 0; s < m->nsources; s++) {
        size_t w = m->sources[s].to;
        if (c->pool_of[w] != AC_NONE && csr_add(&c->sp, c->pool_of[w], 1.0) != AC_OK)
            return ac_error_set(err, AC_ENOMEM, "out of memory (transient coupling)");
        c->sp.start[s + 1] = c->sp.n;
    }
    return AC_OK;
}

/* ---- truncation ------------------------------------------------------------------------------ */

/* Levels of pool `pool` given its static peak rate, start rate, build-up and overload time. */
static int choose_dim(const ac_pool *pool, double peak, double start_rate, double buildup,
                      double t_over, size_t dim_max, size_t *dim, int *capped, ac_error *err)
{
    double N = (double)pool->servers, mu = pool->service_rate;
    double rho_peak = peak * (double)(pool->retries + 1) / (N * mu);
    ac_solver_pool_model *pm = NULL;
    size_t k;
    int rc;
    *capped = 0;
    if (pool->dispatch == AC_DISPATCH_SHARED_QUEUE) {
        *dim = 1;
        return AC_OK;
    }
    if (rho_peak < 1.0 || peak / (N * mu) < 1.0) {
        rc = ac_solver_pool_model_new(pool, peak, 0, &pm, err);
        if (rc == AC_ELIMIT || (rc == AC_EINVAL && pool->buffer != AC_UNBOUNDED)) {
            ac_error_clear(err);
            k = pool->buffer != AC_UNBOUNDED ? pool->buffer : dim_max + 1;
        } else if (rc != AC_OK) {
            return rc;
        } else {
            k = ac_solver_pool_model_dim(pm);
        }
        ac_solver_pool_model_free(pm);
    } else if (pool->buffer != AC_UNBOUNDED) {
        k = pool->buffer;
    } else {
        size_t k0 = 1;
        double s0 = start_rate / (N * mu), extra;
        if (s0 < 1.0) {
            rc = ac_solver_pool_model_new(pool, start_rate, 0, &pm, err);
            if (rc == AC_OK)
                k0 = ac_solver_pool_model_dim(pm);
            else if (rc == AC_ENOMEM)
                return rc;
            ac_error_clear(err);
            ac_solver_pool_model_free(pm);
        }
        extra = buildup + 6.0 * sqrt((peak / N + mu) * t_over) + 8.0;
        k = extra >= (double)dim_max ? dim_max + 1 : k0 + (size_t)ceil(extra);
    }
    if (pool->buffer != AC_UNBOUNDED && k > pool->buffer)
        k = pool->buffer;
    if (k > dim_max) {
        k = dim_max;
        *capped = 1;
    }
    *dim = k > 0 ? k : 1;
    return AC_OK;
}

/*
 * Levels of an autoscaled pool. Its count changes, so the truncation is that of the count
 * the scaler steers to at the peak, with a margin for the lag of scaling: the count N_p =
 * ceil(peak / (mu u_t)) clamped to [min, max] at a per-server load u_t = min(0.95, max(target
 * (1 + 2 tolerance), (1 + target) / 2)) above the band the scaler keeps; the overloaded
 * branch of choose_dim (build-up) when even `max` servers cannot carry the peak. At least
 * the levels of `min` servers at that load (jsq and jiq sample all N servers: their tail is
 * heavier at a small count) and of the start (the starting count at the start rate), which
 * settle() fills.
 * Plus the backlog of one reaction time R = interval + scale-up-delay: the load can grow by
 * the factor `grow` (the largest growth of the static rate over R) before new servers serve,
 * from the top of the band, so each server builds up mu R max(0, target (1 + tolerance) grow
 * - 1) jobs (and six standard deviations of its spread).
 */
static int autoscaled_dim(const ac_pool *pool, double peak, double start_rate, double buildup,
                          double t_over, double grow, size_t dim_max, size_t *dim, int *capped,
                          ac_error *err)
{
    const ac_autoscale *as = &pool->autoscale;
    ac_pool at_peak = *pool;
    double mu = pool->service_rate, tu = as->target_utilization;
    double ut = fmin(0.95, fmax(tu * (1.0 + 2.0 * as->tolerance), 0.5 * (1.0 + tu)));
    double np = ceil(peak / (mu * ut));
    size_t d0 = 0;
    int cap0 = 0, rc;
    if (!(np >= (double)as->min))
        np = (double)as->min;
    if (np > (double)as->max)
        np = (double)as->max;
    at_peak.servers = (size_t)np;
    rc = choose_dim(&at_peak, peak, start_rate, buildup, t_over, dim_max, dim, capped, err);
    if (rc != AC_OK)
        return rc;
    if (as->min < at_peak.servers) { /* jsq, jiq: sampling d = N, a heavier tail at few */
        ac_pool at_min = *pool;
        double r = fmin(peak, (double)as->min * mu * ut);
        at_min.servers = as->min;
        rc = choose_dim(&at_min, r, r, 0.0, 0.0, dim_max, &d0, &cap0, err);
        if (rc != AC_OK)
            return rc;
        if (d0 > *dim) {
            *dim = d0;
            *capped = cap0;
        }
    }
    if (start_rate < (double)pool->servers * mu) {
        rc = choose_dim(pool, start_rate, start_rate, 0.0, 0.0, dim_max, &d0, &cap0, err);
        if (rc != AC_OK)
            return rc;
        if (d0 > *dim) {
            *dim = d0;
            *capped = cap0;
        }
    }
    {
        double R = as->interval + as->scale_up_delay;
        double B = mu * R * fmax(0.0, tu * (1.0 + as->tolerance) * grow - 1.0);
        if (B > 0.0 && pool->dispatch != AC_DISPATCH_SHARED_QUEUE) {
            double k = (double)*dim + ceil(B + 6.0 * sqrt(B));
            if (pool->buffer != AC_UNBOUNDED && k > (double)pool->buffer)
                k = (double)pool->buffer;
            if (k > (double)dim_max) {
                k = (double)dim_max;
                *capped = 1;
            }
            *dim = k > (double)*dim ? (size_t)k : *dim;
        }
    }
    return AC_OK;
}

/* Static traffic per unit of each source (all nodes passing their inflow on), then the
 * peak, start rate, build-up and overload time of each pool on a grid over the horizon. */
static int pool_dims(tr_ctx *c, const tr_routes *r, tr_prop *p, double horizon, size_t *dims,
                     char *note, size_t note_size, ac_error *err)
{
    const ac_model *m = c->m;
    size_t np = c->npools, ns = m->nsources;
    double *peak = calloc(np + 1, sizeof *peak), *start = calloc(np + 1, sizeof *start);
    double *build = calloc(np + 1, sizeof *build), *tover = calloc(np + 1, sizeof *tover);
    double *prev = calloc(np + 1, sizeof *prev), *cur = calloc(np + 1, sizeof *cur);
    double *hist = NULL; /* autoscaled pools: the static rate on the grid */
    size_t *slot = calloc(np + 1, sizeof *slot), nas = 0;
    tr_csr w;
    int rc = AC_OK;
    memset(&w, 0, sizeof w);
    w.start = calloc(ns + 1, sizeof *w.start);
    for (size_t i = 0; slot != NULL && i < np; i++)
        slot[i] = m->nodes[c->pools[i].node].u.pool.has_autoscale ? nas++ : AC_NONE;
    if (nas > 0)
        hist = malloc(nas * (TR_GRID + 1) * sizeof *hist);
    if (!peak || !start || !build || !tover || !prev || !cur || !w.start || !slot ||
        (nas > 0 && hist == NULL)) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient truncation)");
        goto cleanup;
    }
    for (size_t s = 0; s < ns; s++) {
        rc = propagate(r, m->sources[s].to, p);
        if (rc != AC_OK) {
            rc = ac_error_set(err, AC_EINPUT, "the traffic equations have no finite solution");
            goto cleanup;
        }
        for (size_t k = 0; k < p->ntouched; k++) {
            size_t v = p->touched[k];
            if (c->pool_of[v] != AC_NONE && p->acc[v] != 0.0 &&
                csr_add(&w, c->pool_of[v], p->acc[v]) != AC_OK) {
                rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient truncation)");
                goto cleanup;
            }
        }
        w.start[s + 1] = w.n;
    }
    for (size_t s = 0; s < ns; s++) /* the static traffic at the sources' `rate` */
        for (size_t e = w.start[s]; e < w.start[s + 1]; e++)
            c->pools[w.to[e]].base_rate += w.coef[e] * c->opt->scale * m->sources[s].rate;
    for (size_t g = 0; g <= TR_GRID; g++) {
        double t = horizon * (double)g / TR_GRID, h = horizon / TR_GRID;
        sources_at(c, t, c->gamma, NULL);
        memset(cur, 0, np * sizeof *cur);
        for (size_t s = 0; s < ns; s++)
            for (size_t e = w.start[s]; e < w.start[s + 1]; e++)
                cur[w.to[e]] += w.coef[e] * c->gamma[s];
        for (size_t i = 0; i < np; i++) {
            const tr_pool *tp = &c->pools[i];
            double ex0 = fmax(0.0, prev[i] / tp->N - tp->mu),
                   ex1 = fmax(0.0, cur[i] / tp->N - tp->mu);
            peak[i] = fmax(peak[i], cur[i]);
            if (slot[i] != AC_NONE)
                hist[slot[i] * (TR_GRID + 1) + g] = cur[i];
            if (g == 0) {
                start[i] = cur[i];
            } else {
                build[i] += 0.5 * h * (ex0 + ex1);
                if (ex0 > 0.0 || ex1 > 0.0)
                    tover[i] += h;
            }
        }
        memcpy(prev, cur, np * sizeof *prev);
    }
    /* the profile points themselves (the grid may step over a short peak) */
    for (size_t q = 0; q < m->nprofiles; q++)
        for (size_t k = 0; k < m->profiles[q].npoints; k++) {
            double t = m->profiles[q].points[k].at;
            if (t > horizon)
                continue;
            sources_at(c, t, c->gamma, NULL);
            memset(cur, 0, np * sizeof *cur);
            for (size_t s = 0; s < ns; s++)
                for (size_t e = w.start[s]; e < w.start[s + 1]; e++)
                    cur[w.to[e]] += w.coef[e] * c->gamma[s];
            for (size_t i = 0; i < np; i++)
                peak[i] = fmax(peak[i], cur[i]);
        }
    for (size_t i = 0; i < np; i++) {
        const ac_pool *pool = &m->nodes[c->pools[i].node].u.pool;
        int capped = 0;
        if (pool->has_autoscale) {
            /* the largest growth of the rate over a reaction time, on the grid (at least
             * one step), capped at 100 */
            const double *hs = hist + slot[i] * (TR_GRID + 1);
            double R = pool->autoscale.interval + pool->autoscale.scale_up_delay, grow = 1.0;
            size_t L = (size_t)fmin(ceil(R / (horizon / TR_GRID)), (double)TR_GRID);
            L = L > 0 ? L : 1;
            for (size_t g = L; g <= TR_GRID; g++)
                if (hs[g] > hs[g - L])
                    grow = fmax(grow, hs[g - L] > 0.0 ? fmin(hs[g] / hs[g - L], 100.0) : 100.0);
            rc = autoscaled_dim(pool, peak[i], start[i], build[i], tover[i], grow,
                                c->opt->pool_dim_max, &dims[i], &capped, err);
        } else {
            rc = choose_dim(pool, peak[i], start[i], build[i], tover[i], c->opt->pool_dim_max,
                            &dims[i], &capped, err);
        }
        if (rc != AC_OK)
            goto cleanup;
        if (capped) {
            size_t len = strlen(note);
            snprintf(
                note + len, note_size - len,
                "%s'%s' is truncated at %zu levels (the cap); jobs beyond are lost in the model",
                len ? "; " : "", m->nodes[c->pools[i].node].id, dims[i]);
        }
    }
cleanup:
    free(peak);
    free(start);
    free(build);
    free(tover);
    free(prev);
    free(cur);
    free(hist);
    free(slot);
    csr_free(&w);
    return rc;
}

/* ---- the serverless stages ---------------------------------------------------------------- */

static double pos(double x)
{
    return x > 0.0 ? x : 0.0;
}

/* Dual arithmetic (tr_dn). A min picks the smaller value's branch (the first on a tie),
 * pos the right derivative at 0. A state at rest at 0 carries integration noise of the size
 * of atol: the flows that carry a state on (a stage's ageing, a cold start's end, a queue's
 * drain) take it as it is, linear through 0, so they pull such noise back instead of
 * putting a kink there that the step control would chatter on; only a supply that a
 * demand draws on (the idle instances reused) is clamped at 0, since a negative one would
 * pass the noise on as demand. */
static tr_dn dn(double v)
{
    tr_dn r = {v, 0.0};
    return r;
}

static tr_dn dn_add(tr_dn a, tr_dn b)
{
    a.v += b.v;
    a.d += b.d;
    return a;
}

static tr_dn dn_sub(tr_dn a, tr_dn b)
{
    a.v -= b.v;
    a.d -= b.d;
    return a;
}

static tr_dn dn_mul(tr_dn a, tr_dn b)
{
    tr_dn r = {a.v * b.v, a.d * b.v + a.v * b.d};
    return r;
}

static tr_dn dn_div(tr_dn a, tr_dn b)
{
    tr_dn r = {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)};
    return r;
}

static tr_dn dn_scale(tr_dn a, double k)
{
    a.v *= k;
    a.d *= k;
    return a;
}

static tr_dn dn_min(tr_dn a, tr_dn b)
{
    return b.v < a.v ? b : a;
}

static tr_dn dn_max(tr_dn a, tr_dn b)
{
    return b.v > a.v ? b : a;
}

static tr_dn dn_pos(tr_dn a)
{
    return a.v >= 0.0 ? a : dn(0.0);
}

/* A demand left after taking supplies out of `whole`: 0 at the level of rounding (the
 * later keep-alive stages hover at (kappa tau)^i of the flow, below the rounding of the
 * subtraction, where the branch of a min would flip at random). */
static tr_dn dn_floor(tr_dn rest, double whole)
{
    return rest.v > TR_ROUND * fabs(whole) ? rest : dn(0.0);
}

/* State k of y, with its derivative along yd (NULL: none). */
static tr_dn dn_y(const double *y, const double *yd, size_t k)
{
    tr_dn r = {y[k], yd != NULL ? yd[k] : 0.0};
    return r;
}

/* Write a drift's value or derivative. */
static void dn_out(double *dy, size_t k, tr_dn x, int tangent)
{
    dy[k] = tangent ? x.d : x.v;
}

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

/* The parameters of function node v (the top of this file). */
static void fn_setup(const ac_model *m, size_t v, tr_fn *F)
{
    const ac_function *fn = &m->nodes[v].u.function;
    double d = fn->duration, theta = fn->timeout > 0.0 ? fn->timeout : INFINITY;
    double e = isinf(theta) ? 0.0 : exp(-theta / d);
    F->node = v;
    F->mode = fn_polled(m, v)                         ? TR_POLLED
              : fn->invocation == AC_INVOCATION_ASYNC ? TR_ASYNC
                                                      : TR_SYNC;
    F->retries = F->mode == TR_POLLED ? 0 : fn->retries;
    F->C = (double)fn->concurrency;
    F->Cp = F->C;
    F->Te = d * (1.0 - e);
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
    F->kappa = (double)TR_KS / fn->keep_alive;
    F->s = fn->scale_rate;
    F->G = fmax(1.0, fn->scale_rate);
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
static void fn_rates(const tr_fn *F, const double *y, const double *yd, tr_dn lam, tr_dn offer_q,
                     tr_fn_rates *r)
{
    size_t o = F->off;
    double it = 1.0 / F->tau;
    tr_dn bp = dn_y(y, yd, o + FN_BP), bo = dn_y(y, yd, o + FN_BO);
    tr_dn cc = dn_y(y, yd, o + FN_C), g = dn_y(y, yd, o + FN_G);
    tr_dn u = dn_y(y, yd, o + FN_U), b = dn_add(bp, bo), rem, slots, starts_o;
    memset(r, 0, sizeof *r);
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
static void fn_drift(const tr_fn *F, const double *y, const double *yd, const tr_fn_rates *r,
                     double *dy, int tangent)
{
    size_t o = F->off, oc = F->off + FN_NSTATE;
    double it = 1.0 / F->tau;
    tr_dn bp = dn_y(y, yd, o + FN_BP), bo = dn_y(y, yd, o + FN_BO);
    tr_dn cc = dn_y(y, yd, o + FN_C), warm_od = dn(0.0);
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
        tr_dn in = i == 0 ? dn_scale(bo, 1.0 / F->Tfree)
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
static double fn_alive(const tr_fn *F, const double *y)
{
    const double *x = y + F->off;
    double a = F->P + pos(x[FN_BO]) + pos(x[FN_C]);
    for (size_t i = 0; i < TR_KS; i++)
        a += pos(x[FN_W + i]);
    return a;
}

/* Requests at the function: busy, initialising, waiting, in back-off. */
static double fn_in_system(const double *y, size_t off)
{
    const double *x = y + off;
    return pos(x[FN_BP]) + pos(x[FN_BO]) + pos(x[FN_C]) + pos(x[FN_U]) + pos(x[FN_R1]) +
           pos(x[FN_R2]);
}

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
static void q_setup(const ac_model *m, size_t v, const tr_fn *fns, const size_t *unit_of, tr_q *Q)
{
    const ac_queue *q = &m->nodes[v].u.queue;
    const ac_route *rt = ac_an_queue_consumer(m, v);
    double R = (double)q->max_receives, phi;
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
        const ac_function *fn = &m->nodes[rt->to].u.function;
        const tr_fn *F = &fns[unit_of[rt->to]];
        double theta = fn->timeout > 0.0 ? fn->timeout : INFINITY;
        double ok =
            (1.0 - fn->fail_prob) * -expm1(-fmin(theta, q->visibility_timeout) / fn->duration);
        Q->cons = unit_of[rt->to];
        Q->k = (double)rt->fanout;
        Q->slots = fmin((double)q->max_consumers, F->C);
        Q->Tq = F->Te * harmonic(Q->k);
        Q->tau = TR_RELAX * Q->Tq;
        Q->sigma = pow(ok, Q->k);
    }
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
static void q_rates(const tr_q *Q, const double *y, const double *yd, tr_dn lam, tr_q_rates *r)
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

static void q_deliver(tr_q_rates *r, tr_dn deliveries)
{
    r->deliv = deliveries;
    r->m = dn_mul(deliveries, r->beta);
}

static void q_drift(const tr_q *Q, const tr_q_rates *r, double *dy, int tangent)
{
    size_t o = Q->off, oc = Q->off + Q_NSTATE;
    dn_out(dy, o + Q_X, dn_add(dn_sub(r->adm, r->m), dn_sub(r->back, r->dead)), tangent);
    dn_out(dy, o + Q_V, dn_sub(r->m, r->proc), tangent);
    dn_out(dy, o + Q_Y, dn_sub(dn_sub(r->proc, r->del), r->back), tangent);
    dn_out(dy, oc + QC_A, r->lam, tangent);
    dn_out(dy, oc + QC_S, r->del, tangent);
    dn_out(dy, oc + QC_L, dn_add(r->rej, r->dead), tangent);
}

static void gw_setup(const ac_model *m, size_t v, tr_gw *W)
{
    const ac_gateway *g = &m->nodes[v].u.gateway;
    W->node = v;
    W->r = g->rate_limit;
    W->bounded = isfinite(g->rate_limit);
    W->Z = fmax(1.0, (double)g->burst);
    /* the relaxation on the bucket's time Z / r, not one token's: a step that leaves the
       full bucket's stiff branch must show a Newton correction of (lambda - r) tau well
       above the tolerance rtol Z, or msbdf can take the old branch as converged */
    W->tau = W->bounded && W->r > 0.0 ? TR_RELAX * W->Z / W->r : TR_RELAX;
}

static void gw_rates(const tr_gw *W, const double *y, const double *yd, tr_dn lam, tr_gw_rates *r)
{
    memset(r, 0, sizeof *r);
    r->lam = lam;
    if (!W->bounded) {
        r->adm = lam;
        return;
    }
    r->adm = dn_min(lam, dn_add(dn(W->r), dn_scale(dn_y(y, yd, W->off), 1.0 / W->tau)));
    r->refill = dn_min(
        dn(W->r), dn_add(r->adm, dn_scale(dn_sub(dn(W->Z), dn_y(y, yd, W->off)), 1.0 / W->tau)));
    r->rej = dn_sub(lam, r->adm);
}

static void gw_drift(const tr_gw *W, const tr_gw_rates *r, double *dy, int tangent)
{
    size_t oc = W->off + (W->bounded ? 1 : 0);
    if (W->bounded)
        dn_out(dy, W->off, dn_sub(r->refill, r->adm), tangent);
    dn_out(dy, oc + GC_A, r->lam, tangent);
    dn_out(dy, oc + GC_S, r->adm, tangent);
    dn_out(dy, oc + GC_L, r->rej, tangent);
}

/* Fluid states (counters excluded) and counters of serverless node v. */
static size_t sl_nstate(const tr_ctx *c, size_t v)
{
    switch (c->m->nodes[v].kind) {
    case AC_NODE_FUNCTION: return FN_NSTATE;
    case AC_NODE_QUEUE: return Q_NSTATE;
    case AC_NODE_GATEWAY: return c->gws[c->unit_of[v]].bounded ? 1 : 0;
    default: return 0;
    }
}

static size_t sl_ncount(const ac_node_kind kind)
{
    return kind == AC_NODE_FUNCTION ? FC_N : kind == AC_NODE_QUEUE ? QC_N : GC_N;
}

static size_t sl_off(const tr_ctx *c, size_t v)
{
    switch (c->m->nodes[v].kind) {
    case AC_NODE_FUNCTION: return c->fns[c->unit_of[v]].off;
    case AC_NODE_QUEUE: return c->qs[c->unit_of[v]].off;
    case AC_NODE_GATEWAY: return c->gws[c->unit_of[v]].off;
    default: return 0;
    }
}

/* Is node v evaluated in the instantaneous order (its outflow or its admission depends on
 * its inflow at the same instant)? */
static int is_instant(const tr_ctx *c, size_t v)
{
    switch (c->m->nodes[v].kind) {
    case AC_NODE_GATEWAY:
    case AC_NODE_QUEUE: return 1;
    case AC_NODE_FUNCTION: return c->fns[c->unit_of[v]].mode == TR_POLLED;
    default: return 0;
    }
}

/* The consumer node of queue node v, or AC_NONE. */
static size_t q_consumer_node(const tr_ctx *c, size_t v)
{
    const tr_q *Q = &c->qs[c->unit_of[v]];
    return Q->cons == AC_NONE ? AC_NONE : c->fns[Q->cons].node;
}

/*
 * The evaluation order of the instantaneous nodes (Kahn): node w waits for u when a route
 * u -> w carries u's outflow of the same instant (u a gateway or a queue), except that a
 * queue's deliveries are known once its consumer has taken them: a route from queue u to
 * another node w makes w wait for u's consumer. AC_EINPUT on a cycle.
 */
static int build_order(tr_ctx *c, ac_error *err)
{
    const ac_model *m = c->m;
    size_t n = m->nnodes, ne = 0, done = 0;
    size_t *ef = malloc((m->nroutes + 1) * sizeof *ef), *et = malloc((m->nroutes + 1) * sizeof *et);
    size_t *indeg = calloc(n + 1, sizeof *indeg);
    unsigned char *used = calloc(n + 1, 1);
    int rc = AC_OK;
    c->order = malloc((n + 1) * sizeof *c->order);
    if (ef == NULL || et == NULL || indeg == NULL || used == NULL || c->order == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto cleanup;
    }
    for (size_t k = 0; k < m->nroutes; k++) {
        size_t u = m->routes[k].from, w = m->routes[k].to, from = u;
        ac_node_kind ku = m->nodes[u].kind;
        if (!is_instant(c, w) || (ku != AC_NODE_GATEWAY && ku != AC_NODE_QUEUE))
            continue;
        if (ku == AC_NODE_QUEUE) {
            size_t cons = q_consumer_node(c, u);
            if (cons != AC_NONE && cons != w)
                from = cons;
        }
        ef[ne] = from;
        et[ne++] = w;
        indeg[w]++;
    }
    c->norder = 0;
    for (size_t v = 0; v < n; v++)
        if (is_instant(c, v))
            done++;
    while (c->norder < done) {
        size_t pick = AC_NONE;
        for (size_t v = 0; v < n && pick == AC_NONE; v++)
            if (is_instant(c, v) && !used[v] && indeg[v] == 0)
                pick = v;
        if (pick == AC_NONE) {
            rc = ac_error_set(err, AC_EINPUT,
                              "jobs circulate among gateways, queues and their "
                              "consumers without ever waiting in a state");
            goto cleanup;
        }
        used[pick] = 1;
        c->order[c->norder++] = pick;
        for (size_t e = 0; e < ne; e++)
            if (ef[e] == pick)
                indeg[et[e]]--;
    }
cleanup:
    free(ef);
    free(et);
    free(indeg);
    free(used);
    return rc;
}

/* ---- the ODE ----------------------------------------------------------------------------- */

/* d dep_i / d q_i1 */
static double dep_slope(const tr_pool *tp, const double *y)
{
    return y[tp->off] < 1.0 ? tp->cap : 0.0;
}

/* Add node v's outflow to the nodes its routes reach (a queue's polled consumer takes its
 * deliveries through the polling, not as inflow). */
static void push_out(tr_ctx *c, size_t v)
{
    size_t cons = c->m->nodes[v].kind == AC_NODE_QUEUE ? q_consumer_node(c, v) : AC_NONE;
    for (size_t e = c->rt.start[v]; e < c->rt.start[v + 1]; e++)
        if (c->rt.to[e] != cons)
            c->lam[c->rt.to[e]] = dn_add(c->lam[c->rt.to[e]], dn_scale(c->outf[v], c->rt.coef[e]));
}

/*
 * Every node's offered rate and outflow, and the flows of the serverless stages, at (t, y),
 * with their derivatives along the state direction yd (NULL: none) or, when `along_t`,
 * along time (the sources' slopes). The pools' Lambda_j and dep_j go to c->lambda, c->dep.
 */
static void eval_flows(tr_ctx *c, double t, const double *y, const double *yd, int along_t)
{
    const ac_model *m = c->m;
    sources_at(c, c->frozen ? c->t_frozen : t, c->gamma, c->gslope);
    if (c->frozen)
        memset(c->gslope, 0, (m->nsources > 0 ? m->nsources : 1) * sizeof *c->gslope);
    for (size_t v = 0; v < m->nnodes; v++)
        c->lam[v] = dn(0.0);
    for (size_t s = 0; s < m->nsources; s++) {
        tr_dn g = {c->gamma[s], along_t ? c->gslope[s] : 0.0};
        c->lam[m->sources[s].to] = dn_add(c->lam[m->sources[s].to], g);
    }
    for (size_t i = 0; i < c->npools; i++) {
        const tr_pool *tp = &c->pools[i];
        c->dep[i] = ac_solver_pool_model_departures(tp->model, y + tp->off);
        c->outf[tp->node] = dn(c->dep[i]);
        if (yd != NULL)
            c->outf[tp->node].d = dep_slope(tp, y) * yd[tp->off];
    }
    for (size_t i = 0; i < c->nfns; i++)
        c->outf[c->fns[i].node] = fn_outflow(&c->fns[i], y, yd);
    for (size_t v = 0; v < m->nnodes; v++)
        if (m->nodes[v].kind == AC_NODE_POOL || m->nodes[v].kind == AC_NODE_FUNCTION)
            push_out(c, v);
    for (size_t o = 0; o < c->norder; o++) {
        size_t v = c->order[o], u = c->unit_of[v];
        switch (m->nodes[v].kind) {
        case AC_NODE_GATEWAY:
            gw_rates(&c->gws[u], y, yd, c->lam[v], &c->gr[u]);
            c->outf[v] = c->gr[u].adm;
            push_out(c, v);
            break;
        case AC_NODE_QUEUE:
            q_rates(&c->qs[u], y, yd, c->lam[v], &c->qr[u]);
            if (c->qs[u].cons == AC_NONE) {
                q_deliver(&c->qr[u], c->qr[u].offer);
                c->outf[v] = c->qr[u].deliv;
                push_out(c, v);
            }
            break;
        default: { /* a polled function: its queues deliver what it starts */
            tr_dn offer = dn(0.0);
            for (size_t q = 0; q < c->nqs; q++)
                if (c->qs[q].cons == u)
                    offer = dn_add(offer, dn_scale(c->qr[q].offer, c->qs[q].k));
            fn_rates(&c->fns[u], y, yd, c->lam[v], offer, &c->fr[u]);
            for (size_t q = 0; q < c->nqs; q++) {
                tr_dn share = dn(0.0);
                if (c->qs[q].cons != u)
                    continue;
                if (offer.v > 0.0)
                    share = dn_div(c->qr[q].offer, offer);
                q_deliver(&c->qr[q], dn_mul(c->fr[u].starts_q, share));
                c->outf[c->qs[q].node] = c->qr[q].deliv;
                push_out(c, c->qs[q].node);
            }
            break;
        }
        }
    }
    for (size_t i = 0; i < c->nfns; i++)
        if (c->fns[i].mode != TR_POLLED)
            fn_rates(&c->fns[i], y, yd, c->lam[c->fns[i].node], dn(0.0), &c->fr[i]);
    for (size_t i = 0; i < c->npools; i++)
        c->lambda[i] = c->lam[c->pools[i].node].v;
}

/* The serverless stages' drifts (values, or derivatives when `tangent`) into dy. */
static void sl_drift(tr_ctx *c, const double *y, const double *yd, double *dy, int tangent)
{
    for (size_t i = 0; i < c->nfns; i++)
        fn_drift(&c->fns[i], y, yd, &c->fr[i], dy, tangent);
    for (size_t i = 0; i < c->nqs; i++)
        q_drift(&c->qs[i], &c->qr[i], dy, tangent);
    for (size_t i = 0; i < c->ngws; i++)
        gw_drift(&c->gws[i], &c->gr[i], dy, tangent);
}

static int tr_f(double t, const double y[], double dydt[], void *params)
{
    tr_ctx *c = params;
    eval_flows(c, t, y, NULL, 0);
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
        ac_solver_pool_model_drift(tp->model, y + tp->off, dydt + tp->off);
        dydt[c->nq + 2 * j] = c->lambda[j];
        dydt[c->nq + 2 * j + 1] = c->dep[j];
    }
    sl_drift(c, y, NULL, dydt, 0);
    for (size_t k = 0; k < c->dim; k++)
        if (!isfinite(dydt[k]))
            return GSL_EBADFUNC;
    return GSL_SUCCESS;
}

/* g = df/dLambda of pool j at q (the drift is linear in Lambda), into c->f1. */
static void drift_gradient(tr_ctx *c, size_t j, const double *q)
{
    tr_pool *tp = &c->pools[j];
    ac_solver_pool_model_set_arrival_rate(tp->model, 1.0);
    ac_solver_pool_model_drift(tp->model, q, c->f1);
    ac_solver_pool_model_set_arrival_rate(tp->model, 0.0);
    ac_solver_pool_model_drift(tp->model, q, c->f0);
    for (size_t k = 0; k < tp->dim; k++)
        c->f1[k] -= c->f0[k];
    ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
}

/*
 * Write one derivative of f (column `col` of dfdy, or dfdt when col == dim) from the flows'
 * derivatives just evaluated: the serverless rows from their drifts' tangents, the pools'
 * rows g_k dLambda_k (and their offered counters dLambda_k), added to what is there.
 */
static void jac_scatter(tr_ctx *c, const double *y, const double *yd, size_t col, double *dfdy,
                        double *dfdt)
{
    size_t D = c->dim;
    double *fd = c->fd_f;
    sl_drift(c, y, yd, fd, 1);
    for (size_t v = 0; v < c->m->nnodes; v++) {
        size_t off, n;
        if (c->m->nodes[v].kind == AC_NODE_POOL)
            continue;
        off = sl_off(c, v);
        n = sl_nstate(c, v) + sl_ncount(c->m->nodes[v].kind);
        for (size_t r = off; r < off + n; r++) {
            if (col < D)
                dfdy[r * D + col] += fd[r];
            else
                dfdt[r] += fd[r];
        }
    }
    for (size_t k = 0; k < c->npools; k++) {
        const tr_pool *tp = &c->pools[k];
        double dl = c->lam[tp->node].d;
        const double *g = c->gbuf + tp->off;
        if (dl == 0.0)
            continue;
        for (size_t i = 0; i < tp->dim; i++) {
            if (col < D)
                dfdy[(tp->off + i) * D + col] += g[i] * dl;
            else
                dfdt[tp->off + i] += g[i] * dl;
        }
        if (col < D)
            dfdy[(c->nq + 2 * k) * D + col] += dl;
        else
            dfdt[c->nq + 2 * k] += dl;
    }
}

static int tr_jac(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    tr_ctx *c = params;
    size_t D = c->dim;
    eval_flows(c, t, y, NULL, 0);
    memset(dfdy, 0, D * D * sizeof *dfdy);
    memset(dfdt, 0, D * sizeof *dfdt);
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        size_t n = tp->dim;
        double lam_dot = 0.0;
        ac_solver_pool_model_set_arrival_rate(tp->model, c->lambda[j]);
        ac_solver_pool_model_jacobian(tp->model, y + tp->off, c->jb);
        for (size_t k = 0; k < n; k++)
            memcpy(dfdy + (tp->off + k) * D + tp->off, c->jb + k * n, n * sizeof *dfdy);
        /* d dep_j / dq_j1 */
        dfdy[(c->nq + 2 * j + 1) * D + tp->off] = dep_slope(tp, y);
        /* the explicit time dependence through the sources (all pools' when no serverless
           stage can carry it) */
        if (c->nsl > 0)
            continue;
        for (size_t s = 0; s < c->m->nsources; s++)
            for (size_t e = c->sp.start[s]; e < c->sp.start[s + 1]; e++)
                if (c->sp.to[e] == j)
                    lam_dot += c->sp.coef[e] * c->gslope[s];
        if (lam_dot != 0.0) {
            drift_gradient(c, j, y + tp->off);
            for (size_t k = 0; k < n; k++)
                dfdt[tp->off + k] = c->f1[k] * lam_dot;
            dfdt[c->nq + 2 * j] = lam_dot;
        }
    }
    /* coupling: df_j/dq_i1 = g_j E_ij dep_i'(q_i1); dA_j/dq_i1 = E_ij dep_i' (pools whose
       column is not differentiated through the flows) */
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        int have_g = 0;
        for (size_t i = 0; i < c->npools; i++) {
            double ds = dep_slope(&c->pools[i], y);
            size_t col = c->pools[i].off;
            if (c->fd_pool[i])
                continue;
            for (size_t e = c->cp.start[i]; e < c->cp.start[i + 1]; e++) {
                double w;
                if (c->cp.to[e] != j || ds == 0.0)
                    continue;
                if (!have_g) {
                    drift_gradient(c, j, y + tp->off);
                    have_g = 1;
                }
                w = c->cp.coef[e] * ds;
                for (size_t k = 0; k < tp->dim; k++)
                    dfdy[(tp->off + k) * D + col] += c->f1[k] * w;
                dfdy[(c->nq + 2 * j) * D + col] += w;
            }
        }
    }
    if (c->nfd == 0 && c->nsl == 0)
        return GSL_SUCCESS;
    /* forward-mode columns: g of every pool first (at the base rates), then one
       differentiated evaluation of the flows per column, and one along time */
    for (size_t j = 0; j < c->npools; j++) {
        drift_gradient(c, j, y + c->pools[j].off);
        memcpy(c->gbuf + c->pools[j].off, c->f1, c->pools[j].dim * sizeof *c->f1);
    }
    memset(c->fd_y, 0, D * sizeof *c->fd_y);
    for (size_t k = 0; k < c->nfd; k++) {
        size_t col = c->fdcols[k];
        c->fd_y[col] = 1.0;
        eval_flows(c, t, y, c->fd_y, 0);
        jac_scatter(c, y, c->fd_y, col, dfdy, dfdt);
        c->fd_y[col] = 0.0;
    }
    if (c->nsl > 0) {
        eval_flows(c, t, y, NULL, 1);
        jac_scatter(c, y, NULL, D, dfdy, dfdt);
    }
    for (size_t k = 0; k < D; k++)
        if (!isfinite(dfdt[k]))
            return GSL_EBADFUNC;
    return GSL_SUCCESS;
}

/* ---- driver ------------------------------------------------------------------------------ */

typedef struct tr_driver {
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *d;
} tr_driver;

static int driver_init(tr_driver *dr, tr_ctx *c, int dense, double h0)
{
    dr->sys.function = tr_f;
    dr->sys.jacobian = dense ? tr_jac : NULL;
    dr->sys.dimension = c->dim;
    dr->sys.params = c;
    dr->d = gsl_odeiv2_driver_alloc_y_new(&dr->sys,
                                          dense ? gsl_odeiv2_step_msbdf : gsl_odeiv2_step_rkf45, h0,
                                          c->opt->atol, c->opt->rtol);
    if (dr->d == NULL)
        return AC_ENOMEM;
    gsl_odeiv2_driver_set_nmax(dr->d, 50000000);
    return AC_OK;
}

/* The longest (*slow) and shortest (*fast) natural times of the nodes (s): a pool's 1/mu,
 * a function's hold time, cold start and retry back-off, a queue's processing time, a
 * gateway's time per token. 0 and INFINITY without any. */
static void node_times(const tr_ctx *c, double *slow, double *fast)
{
    *slow = 0.0;
    *fast = INFINITY;
    for (size_t j = 0; j < c->npools; j++) {
        *slow = fmax(*slow, 1.0 / c->pools[j].mu);
        *fast = fmin(*fast, 1.0 / c->pools[j].mu);
    }
    for (size_t i = 0; i < c->nfns; i++) {
        *slow = fmax(*slow, fmax(c->fns[i].Tfree, c->fns[i].c0));
        if (c->fns[i].mode == TR_ASYNC && c->fns[i].retries > 0)
            *slow = fmax(*slow, c->fns[i].retries > 1 ? TR_BACKOFF2 : TR_BACKOFF1);
        *fast = fmin(*fast, c->fns[i].Te);
    }
    for (size_t i = 0; i < c->nqs; i++)
        if (c->qs[i].cons != AC_NONE) {
            *slow = fmax(*slow, c->qs[i].Tq);
            *fast = fmin(*fast, c->qs[i].Tq);
        }
    for (size_t i = 0; i < c->ngws; i++)
        if (c->gws[i].bounded && c->gws[i].r > 0.0) {
            *slow = fmax(*slow, 1.0 / c->gws[i].r);
            *fast = fmin(*fast, 1.0 / c->gws[i].r);
        }
}

/* The largest drift of the fluid states (counters excluded), each relative to its node's
 * flow scale (pools: lambda_j / N_j + mu_j per server; functions: offered + scale rate +
 * C / T_free; queues: offered + received + 1; gateways: offered + rate limit): 0 at a
 * fixed point. */
static double residual(tr_ctx *c, const double *y, double *f)
{
    double r = 0.0;
    tr_f(0.0, y, f, c);
    for (size_t j = 0; j < c->npools; j++) {
        const tr_pool *tp = &c->pools[j];
        double s = c->lambda[j] / tp->N + tp->mu;
        for (size_t k = 0; k < tp->dim; k++)
            r = fmax(r, fabs(f[tp->off + k]) / s);
    }
    for (size_t i = 0; i < c->nfns; i++) {
        const tr_fn *F = &c->fns[i];
        double s = c->fr[i].lam.v + c->fr[i].offer_q.v + F->s + F->Cp / F->Tfree;
        for (size_t k = 0; k < FN_NSTATE; k++)
            r = fmax(r, fabs(f[F->off + k]) / s);
    }
    for (size_t i = 0; i < c->nqs; i++) {
        double s = c->qr[i].lam.v + c->qr[i].m.v + 1.0;
        for (size_t k = 0; k < Q_NSTATE; k++)
            r = fmax(r, fabs(f[c->qs[i].off + k]) / s);
    }
    for (size_t i = 0; i < c->ngws; i++)
        if (c->gws[i].bounded)
            r = fmax(r, fabs(f[c->gws[i].off]) / (c->gr[i].lam.v + c->gws[i].r));
    return r;
}

/*
 * Settle: integrate with the sources frozen at their rates of time t0, from y, in chunks of
 * doubling length (from four times the slowest natural time) until the residual is below
 * TR_SETTLE_TOL (the fixed point reached from y). When the residual stops improving (four
 * chunks did not lower it below its best, or a chunk takes more than TR_SETTLE_STEPS
 * steps), the integration is at its accuracy floor (a state held at a bound by a fast
 * relaxation, tau, carries noise of about atol / tau in its drift): settled if the best
 * residual is at most TR_SETTLE_FLOOR. *settled = 0 otherwise, or after 2^40 chunks of the
 * first length.
 */
static int settle(tr_ctx *c, int dense, double t0, double *y, int *settled, ac_error *err)
{
    tr_driver dr;
    double slow, fast, chunk, t = 0.0, best = INFINITY;
    double *f = malloc((c->dim + 1) * sizeof *f);
    int rc = AC_OK;
    *settled = 0;
    if (f == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    node_times(c, &slow, &fast);
    if (!(slow > 0.0) || !isfinite(slow)) {
        *settled = 1;
        free(f);
        return AC_OK;
    }
    c->frozen = 1;
    c->t_frozen = t0;
    chunk = 4.0 * slow;
    if (driver_init(&dr, c, dense, 1e-3 * slow) != AC_OK) {
        free(f);
        c->frozen = 0;
        return ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu states)", c->dim);
    }
    gsl_odeiv2_driver_set_nmax(dr.d, TR_SETTLE_STEPS);
    for (int it = 0, stall = 0; it < 40; it++) {
        int st = gsl_odeiv2_driver_apply(dr.d, &t, t + chunk, y);
        double res;
        if (st == GSL_EMAXITER) {
            *settled = best <= TR_SETTLE_FLOOR;
            break;
        }
        if (st != GSL_SUCCESS) {
            rc = ac_error_set(err, AC_ENUMERIC, "settling the start state failed at t = %g s: %s",
                              t, gsl_strerror(st));
            break;
        }
        res = residual(c, y, f);
        if (res <= TR_SETTLE_TOL) {
            *settled = 1;
            break;
        }
        /* an approach to the fixed point keeps decreasing the residual, however slowly; a
           residual that goes up and down is at the integration's accuracy floor */
        if (!(res < best))
            stall++;
        best = fmin(best, res);
        if (stall >= 4) { /* at the integration's accuracy floor */
            *settled = best <= TR_SETTLE_FLOOR;
            break;
        }
        chunk *= 2.0;
    }
    gsl_odeiv2_driver_free(dr.d);
    free(f);
    c->frozen = 0;
    return rc;
}

/* ---- results ----------------------------------------------------------------------------- */

static void node_free(ac_transient_node *n)
{
    double **arrays[] = {&n->arrival_rate,   &n->throughput,     &n->mean_jobs,
                         &n->utilization,    &n->loss_rate,      &n->mean_response_time,
                         &n->cum_arrivals,   &n->cum_departures, &n->q_final,
                         &n->in_system,      &n->servers,        &n->event_t,
                         &n->change_t,       &n->instances,      &n->busy,
                         &n->initialising,   &n->idle,           &n->cold_start_rate,
                         &n->execution_rate, &n->throttle_rate,  &n->failure_rate,
                         &n->backlog,        &n->tokens,         &n->dead_letter_rate,
                         &n->cum_lost,       &n->cum_admitted,   &n->cum_throttled,
                         &n->cum_cold_starts};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        free(*arrays[k]);
        *arrays[k] = NULL;
    }
    free(n->event_target);
    free(n->change_servers);
    n->event_target = n->change_servers = NULL;
}

void ac_transient_free(ac_transient *tr)
{
    if (tr == NULL)
        return;
    for (size_t i = 0; tr->nodes != NULL && i < tr->nnodes; i++)
        node_free(&tr->nodes[i]);
    free(tr->nodes);
    free(tr->t);
    free(tr);
}

/* Allocate the trajectories of a node of this kind (n->dim set; `bounded`: a gateway with a
 * bucket). */
static int node_alloc(ac_transient_node *n, size_t ns, ac_node_kind kind, int bounded)
{
    double **common[] = {&n->arrival_rate, &n->throughput,     &n->mean_jobs,
                         &n->utilization,  &n->loss_rate,      &n->mean_response_time,
                         &n->cum_arrivals, &n->cum_departures, &n->in_system};
    double **fn[] = {&n->instances,       &n->busy,           &n->initialising,  &n->idle,
                     &n->cold_start_rate, &n->execution_rate, &n->throttle_rate, &n->failure_rate,
                     &n->backlog,         &n->tokens,         &n->cum_lost,      &n->cum_admitted,
                     &n->cum_throttled,   &n->cum_cold_starts};
    double **q[] = {&n->backlog, &n->dead_letter_rate, &n->cum_lost};
    double **gw[] = {&n->cum_lost, &n->tokens};
    double ***extra = NULL;
    size_t nextra = 0;
    for (size_t k = 0; k < sizeof common / sizeof common[0]; k++)
        if ((*common[k] = malloc(ns * sizeof(double))) == NULL)
            return AC_ENOMEM;
    n->q_final = malloc((n->dim + 1) * sizeof(double));
    if (n->q_final == NULL)
        return AC_ENOMEM;
    switch (kind) {
    case AC_NODE_POOL:
        n->servers = malloc(ns * sizeof(double));
        return n->servers != NULL ? AC_OK : AC_ENOMEM;
    case AC_NODE_FUNCTION:
        extra = fn;
        nextra = sizeof fn / sizeof fn[0];
        break;
    case AC_NODE_QUEUE:
        extra = q;
        nextra = sizeof q / sizeof q[0];
        break;
    case AC_NODE_GATEWAY:
        extra = gw;
        nextra = bounded ? 2 : 1;
        break;
    }
    for (size_t k = 0; k < nextra; k++)
        if ((*extra[k] = malloc(ns * sizeof(double))) == NULL)
            return AC_ENOMEM;
    return AC_OK;
}

/* mean_jobs of serverless node v at state y (the rates of the last tr_f at y). */
static double sl_mean_jobs(const tr_ctx *c, size_t v, const double *y)
{
    size_t u = c->unit_of[v];
    switch (c->m->nodes[v].kind) {
    case AC_NODE_FUNCTION: {
        const double *x = y + c->fns[u].off;
        return pos(x[FN_BP]) + pos(x[FN_BO]) + pos(x[FN_C]);
    }
    case AC_NODE_QUEUE: {
        const double *x = y + c->qs[u].off;
        return pos(x[Q_X]) + pos(x[Q_V]) + pos(x[Q_Y]);
    }
    case AC_NODE_GATEWAY: return c->gws[u].bounded ? pos(c->gws[u].Z - y[c->gws[u].off]) : 0.0;
    default: return NAN;
    }
}

/* Record sample s of function i (the rates of tr_f at y). */
static void record_fn(const tr_ctx *c, size_t i, ac_transient_node *n, size_t s, const double *y)
{
    const tr_fn *F = &c->fns[i];
    const tr_fn_rates *r = &c->fr[i];
    const double *x = y + F->off, *cnt = x + FN_NSTATE;
    double b = pos(x[FN_BP]) + pos(x[FN_BO]), cc = pos(x[FN_C]), u = pos(x[FN_U]);
    double wait = pos(x[FN_R1]) + pos(x[FN_R2]), idle = pos(F->P - pos(x[FN_BP]));
    double T = F->Tfree;
    for (size_t k = 0; k < TR_KS; k++)
        idle += pos(x[FN_W + k]);
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
    n->instances[s] = fn_alive(F, y);
    n->busy[s] = b;
    n->initialising[s] = cc;
    n->idle[s] = idle;
    n->cold_start_rate[s] = r->cold.v;
    n->execution_rate[s] = r->execs.v;
    n->throttle_rate[s] = r->thr.v;
    n->failure_rate[s] = r->fails.v;
    n->backlog[s] = u;
    n->tokens[s] = pos(x[FN_G]);
    n->cum_arrivals[s] = cnt[FC_A];
    n->cum_departures[s] = cnt[FC_S];
    n->cum_lost[s] = cnt[FC_L];
    n->cum_admitted[s] = cnt[FC_ADM];
    n->cum_throttled[s] = cnt[FC_THR];
    n->cum_cold_starts[s] = cnt[FC_CS];
}

static void record_q(const tr_ctx *c, size_t i, ac_transient_node *n, size_t s, const double *y)
{
    const tr_q *Q = &c->qs[i];
    const tr_q_rates *r = &c->qr[i];
    const double *x = y + Q->off, *cnt = x + Q_NSTATE;
    double xv = pos(x[Q_X]), yv = pos(x[Q_Y]), T = 0.0;
    /* the wait of a message arriving now: the visible ones ahead at the current receive
       rate, and (Little) the wait of the failed ones to reappear */
    if (xv > 1e-9) /* below: the integration's noise on an empty queue */
        T += xv / fmax(r->m.v, 1e-9 * (r->adm.v + 1.0));
    if (yv > 0.0 && r->adm.v > 0.0)
        T += yv / r->adm.v;
    n->arrival_rate[s] = r->lam.v;
    n->throughput[s] = r->deliv.v;
    n->mean_jobs[s] = xv + pos(x[Q_V]) + yv;
    n->utilization[s] = 0.0;
    if (Q->cons != AC_NONE) {
        const double *fx = y + c->fns[Q->cons].off;
        n->utilization[s] = (pos(fx[FN_BP]) + pos(fx[FN_BO]) + pos(fx[FN_C])) / Q->slots;
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

static void record_gw(const tr_ctx *c, size_t i, ac_transient_node *n, size_t s, const double *y)
{
    const tr_gw *W = &c->gws[i];
    const tr_gw_rates *r = &c->gr[i];
    const double *cnt = y + W->off + (W->bounded ? 1 : 0);
    n->arrival_rate[s] = r->lam.v;
    n->throughput[s] = r->adm.v;
    n->mean_jobs[s] = W->bounded ? pos(W->Z - y[W->off]) : 0.0;
    n->utilization[s] = W->bounded && W->r > 0.0 ? r->adm.v / W->r : 0.0;
    n->loss_rate[s] = r->rej.v;
    n->mean_response_time[s] = 0.0;
    n->in_system[s] = 0.0;
    if (W->bounded)
        n->tokens[s] = pos(y[W->off]);
    n->cum_arrivals[s] = cnt[GC_A];
    n->cum_departures[s] = cnt[GC_S];
    n->cum_lost[s] = cnt[GC_L];
}

/* Record sample `s` at (t, y). */
static void record(tr_ctx *c, ac_transient *tr, size_t s, double t, const double *y, double *f)
{
    tr_f(t, y, f, c); /* sets the rates of every node */
    for (size_t j = 0; j < c->npools; j++) {
        const tr_pool *tp = &c->pools[j];
        ac_transient_node *n = &tr->nodes[tp->node];
        const double *q = y + tp->off;
        double L = 0.0, fs = 0.0, util, admitted;
        for (size_t k = 0; k < tp->dim; k++) {
            L += fmax(q[k], 0.0);
            fs += f[tp->off + k];
        }
        util = fmin(fmax(q[0], 0.0), 1.0);
        admitted = tp->N * fs + c->dep[j];
        n->arrival_rate[s] = c->lambda[j];
        n->throughput[s] = c->dep[j];
        n->mean_jobs[s] = L;
        n->utilization[s] = util;
        n->loss_rate[s] = c->lambda[j] - admitted;
        if (!(n->loss_rate[s] > 1e-9 * c->lambda[j]))
            n->loss_rate[s] = 0.0; /* below the integration's resolution */
        n->mean_response_time[s] = util > 1e-300 ? L / (tp->mu * util) : 1.0 / tp->mu;
        n->cum_arrivals[s] = y[c->nq + 2 * j];
        n->cum_departures[s] = y[c->nq + 2 * j + 1];
        n->in_system[s] = tp->N * L;
        n->servers[s] = tp->N;
        if (tp->truncated)
            n->max_tail = fmax(n->max_tail, q[tp->dim - 1]);
    }
    for (size_t i = 0; i < c->nfns; i++)
        record_fn(c, i, &tr->nodes[c->fns[i].node], s, y);
    for (size_t i = 0; i < c->nqs; i++)
        record_q(c, i, &tr->nodes[c->qs[i].node], s, y);
    for (size_t i = 0; i < c->ngws; i++)
        record_gw(c, i, &tr->nodes[c->gws[i].node], s, y);
}

static void note_add(ac_transient *tr, const char *text)
{
    size_t len = strlen(tr->note);
    snprintf(tr->note + len, sizeof tr->note - len, "%s%s", len ? "; " : "", text);
}

/* ---- the autoscaler ------------------------------------------------------------------------ */

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

/* Times within this of each other are one instant (looks are k * interval, orders ready at
 * look + delay: both exact in the integrator, which stops there). */
static double tr_eps(double t)
{
    return 1e-9 * fmax(1.0, fabs(t));
}

/*
 * Remap the state of pool j from N_old to N_new servers at an event (the top of this file):
 * per-server queues keep the count of servers holding at least k jobs, S_k = N q_k, when
 * servers are added (they start empty) or idle ones removed: q_k <- q_k N_old / N_new. When
 * more servers go than are idle, the least loaded busy ones go next and drain their jobs
 * (counted as departed, in D and in drained_jobs). The shared queue keeps its jobs:
 * x <- x N_old / N_new.
 */
static void remap_state(tr_ctx *c, ac_transient *tr, size_t j, double N_old, double N_new,
                        double *y)
{
    tr_pool *tp = &c->pools[j];
    double *q = y + tp->off, r = N_old / N_new, idle = N_old * (1.0 - fmax(q[0], 0.0));
    const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
    if (N_new >= N_old || pool->dispatch == AC_DISPATCH_SHARED_QUEUE ||
        N_old - N_new <= idle + 1e-9 * N_old) {
        for (size_t k = 0; k < tp->dim; k++)
            q[k] *= r;
        if (pool->dispatch != AC_DISPATCH_SHARED_QUEUE && q[0] > 1.0)
            q[0] = 1.0; /* rounding of the idle count */
        return;
    }
    {
        /* S_k = N_old q_k; servers with exactly k jobs: S_k - S_{k+1}; take the busy ones
         * from the lowest levels; take[k] (in c->f0) servers with k + 1 jobs go */
        double rem = N_old - N_new - fmax(idle, 0.0), drained = 0.0, above = 0.0;
        double *take = c->f0;
        for (size_t k = 0; k < tp->dim; k++) {
            double sk = N_old * fmax(q[k], 0.0);
            double sk1 = k + 1 < tp->dim ? N_old * fmax(q[k + 1], 0.0) : 0.0;
            double tk = fmin(rem, fmax(sk - sk1, 0.0));
            take[k] = tk;
            rem -= tk;
            drained += (double)(k + 1) * tk;
        }
        for (size_t k = tp->dim; k-- > 0;) { /* S'_k = S_k - (servers taken with >= k jobs) */
            above += take[k];
            q[k] = fmax(N_old * fmax(q[k], 0.0) - above, 0.0) / N_new;
        }
        y[c->nq + 2 * j + 1] += drained;
        tr->nodes[tp->node].drained_jobs += drained;
    }
}

/* Pool j serves with n servers from time t on: server-hours so far, the state remapped,
 * the pool's model rebuilt for the new count, the change logged. */
static int set_servers(tr_ctx *c, ac_transient *tr, size_t j, double t, size_t n, double *y,
                       ac_error *err)
{
    tr_pool *tp = &c->pools[j];
    ac_transient_node *nd = &tr->nodes[tp->node];
    ac_pool spec = c->m->nodes[tp->node].u.pool;
    ac_solver_pool_model *pm = NULL;
    int rc;
    if ((double)n == tp->N)
        return AC_OK;
    spec.servers = n;
    rc = ac_solver_pool_model_new(&spec, 0.0, tp->dim, &pm, err);
    if (rc != AC_OK)
        return rc;
    if (ac_solver_pool_model_dim(pm) != tp->dim) {
        ac_solver_pool_model_free(pm);
        return ac_error_set(err, AC_ENUMERIC,
                            "the model of '%s' at %zu servers changed its "
                            "dimension",
                            c->m->nodes[tp->node].id, n);
    }
    ac_solver_pool_model_free(tp->model);
    tp->model = pm;
    tp->hours += tp->N * (t - tp->t_last) / 3600.0;
    tp->t_last = t;
    remap_state(c, tr, j, tp->N, (double)n, y);
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
    while (sc->recs.len > 0 && sc->recs.t[sc->recs.head] <= t - as->cooldown + tr_eps(t)) {
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
static int scaler_events(tr_ctx *c, ac_transient *tr, double t, double *y, int *changed,
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
            while (sc->orders.len > 0 && sc->orders.t[sc->orders.head] <= t + tr_eps(t)) {
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
            if (pass == 0 && t >= (double)sc->k * sc->as->interval - tr_eps(t)) {
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
static double scaler_next(const tr_ctx *c)
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

/* Pre-warming pings due by t: the instances alive are topped up to the amount W with new
 * idle-warm instances in the youngest stage (no scale token). *changed = 1 when a state
 * jumped (the ODE must restart). */
static void prewarm_events(tr_ctx *c, double t, double *y, int *changed)
{
    for (size_t i = 0; i < c->nfns; i++) {
        tr_fn *F = &c->fns[i];
        double deficit;
        if (!(F->next_ping <= t + tr_eps(t)))
            continue;
        deficit = F->W - fn_alive(F, y);
        if (deficit > 0.0) {
            y[F->off + FN_W] = pos(y[F->off + FN_W]) + deficit;
            F->prewarmed += deficit;
            *changed = 1;
        }
        if (F->I > 0.0) {
            double k = floor((t + tr_eps(t)) / F->I) + 1.0;
            F->next_ping = k * F->I;
        } else {
            F->next_ping = INFINITY; /* no interval: one ping at t = 0 */
        }
    }
}

/* The next pre-warming ping. */
static double prewarm_next(const tr_ctx *c)
{
    double next = INFINITY;
    for (size_t i = 0; i < c->nfns; i++)
        next = fmin(next, c->fns[i].next_ping);
    return next;
}

/* Scalers for the autoscaled pools: target = the starting count, recommended at t = 0 (the
 * system has run at that count), the first look at t = 0. */
static int scalers_init(tr_ctx *c, ac_transient *tr)
{
    for (size_t j = 0; j < c->npools; j++) {
        tr_pool *tp = &c->pools[j];
        const ac_pool *pool = &c->m->nodes[tp->node].u.pool;
        ac_transient_node *nd = &tr->nodes[tp->node];
        nd->start_servers = pool->servers;
        nd->steady_servers = ac_transient_autoscale_steady(pool, tp->base_rate);
        if (!pool->has_autoscale)
            continue;
        tp->sc = calloc(1, sizeof *tp->sc);
        if (tp->sc == NULL)
            return AC_ENOMEM;
        tp->sc->as = &pool->autoscale;
        tp->sc->target = pool->servers;
        if (fifo_push(&tp->sc->recs, 0.0, pool->servers) != AC_OK)
            return AC_ENOMEM;
        nd->autoscaled = 1;
        c->nscaled++;
    }
    tr->nautoscaled = c->nscaled;
    return AC_OK;
}

static void scalers_free(tr_ctx *c)
{
    for (size_t j = 0; c->pools != NULL && j < c->npools; j++) {
        if (c->pools[j].sc == NULL)
            continue;
        fifo_free(&c->pools[j].sc->orders);
        fifo_free(&c->pools[j].sc->recs);
        free(c->pools[j].sc);
        c->pools[j].sc = NULL;
    }
}

size_t ac_transient_autoscale_steady(const ac_pool *pool, double rate)
{
    const ac_autoscale *as = &pool->autoscale;
    size_t n = pool->servers;
    if (!pool->has_autoscale || !(pool->service_rate > 0.0) || !(rate >= 0.0))
        return n;
    for (int it = 0; it < 1000; it++) {
        double u = fmin(1.0, rate / ((double)n * pool->service_rate));
        double ratio = u / as->target_utilization, x;
        size_t next;
        if (fabs(ratio - 1.0) <= as->tolerance)
            break;
        x = ceil((double)n * ratio * (1.0 - 1e-6)); /* as scaler_look */
        next = x < (double)as->min ? as->min : x > (double)as->max ? as->max : (size_t)x;
        if (next == n)
            break;
        n = next;
    }
    return n;
}

size_t ac_transient_events_until(const ac_transient_node *n, double t)
{
    size_t k = 0;
    while (k < n->nevents && n->event_t[k] < t - tr_eps(t))
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The integration targets: every profile point (repeats unfolded) inside the horizon and
 * the horizon, sorted, duplicates removed (the integrator never steps over a kink of the
 * sources; the samples are interpolated between its steps). */
static double *targets(const ac_model *m, const ac_transient *tr, size_t *count)
{
    size_t cap = tr->nsamples + 16, n = 0;
    double *t = malloc(cap * sizeof *t);
    if (t == NULL)
        return NULL;
    t[n++] = tr->horizon;
    for (size_t q = 0; q < m->nprofiles; q++) {
        const ac_profile *p = &m->profiles[q];
        double period = p->points[p->npoints - 1].at;
        size_t reps = 1;
        if (p->repeat && period > 0.0) {
            double r = ceil(tr->horizon / period);
            if (r > 100000.0)
                continue; /* the sample grid is all we do for very many periods */
            reps = (size_t)r + 1;
        }
        for (size_t r = 0; r < reps; r++)
            for (size_t k = 0; k < p->npoints; k++) {
                double at = (double)r * period + p->points[k].at;
                if (at <= 0.0 || at >= tr->horizon)
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

/* Cubic Hermite interpolation of y at tau between (t0, y0, f0) and (t1, y1, f1). */
static void hermite(size_t n, double t0, const double *y0, const double *f0, double t1,
                    const double *y1, const double *f1, double tau, double *out)
{
    double d = t1 - t0, s = d > 0.0 ? (tau - t0) / d : 1.0, s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t k = 0; k < n; k++)
        out[k] = h00 * y0[k] + h10 * d * f0[k] + h01 * y1[k] + h11 * d * f1[k];
}

/*
 * Step freely (gsl_odeiv2_evolve_apply with the driver's stepper and control) up to each
 * target, and fill the samples by cubic Hermite interpolation between steps. Stopping the
 * integrator at every sample would shorten its steps and, with msbdf, force a refactorised
 * iteration matrix (a dense LU) at nearly every sample.
 *
 * With autoscaled pools the integrator also stops at every look of a scaler and every time
 * an order is ready (scaler_next): the scaler reads the state there, and where a serving
 * count changes the state is remapped and the driver restarted (gsl_odeiv2_driver_reset,
 * first step h0): the drift has a jump there. So does a pre-warming ping that creates
 * instances (prewarm_events). Events at the horizon itself are not applied (they belong to
 * the next period of a repeated profile): the scaling counts are over [0, horizon).
 */
static int integrate(tr_ctx *c, ac_transient *tr, tr_driver *dr, const double *tgt, size_t ntarget,
                     double *y, ac_error *err)
{
    size_t D = c->dim, s = 1, nsteps = 0, it = 0;
    double *y0 = malloc(D * sizeof *y0), *f0 = malloc(D * sizeof *f0);
    double *f1 = malloc(D * sizeof *f1), *yi = malloc(D * sizeof *yi);
    double *fr = malloc(D * sizeof *fr), t = 0.0, h0 = dr->d->h, h = h0;
    int rc = AC_OK;
    if (y0 == NULL || f0 == NULL || f1 == NULL || yi == NULL || fr == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto cleanup;
    }
    record(c, tr, 0, 0.0, y, fr);
    memcpy(y0, y, D * sizeof *y);
    tr_f(0.0, y, f0, c);
    while (t < tr->horizon) {
        double t_stop;
        if (c->nscaled > 0 || c->nprewarm > 0) {
            int changed = 0;
            rc = scaler_events(c, tr, t, y, &changed, err);
            if (rc != AC_OK)
                goto cleanup;
            prewarm_events(c, t, y, &changed);
            if (changed) {
                int st = gsl_odeiv2_driver_reset(dr->d);
                if (st != GSL_SUCCESS) {
                    rc = ac_error_set(err, AC_ENUMERIC, "restarting the ODE driver at t = %g s: %s",
                                      t, gsl_strerror(st));
                    goto cleanup;
                }
                h = h0;
                memcpy(y0, y, D * sizeof *y);
                tr_f(t, y, f0, c);
            }
        }
        while (it < ntarget && tgt[it] <= t)
            it++;
        t_stop = it < ntarget ? tgt[it] : tr->horizon;
        if (c->nscaled > 0)
            t_stop = fmin(t_stop, scaler_next(c));
        if (c->nprewarm > 0)
            t_stop = fmin(t_stop, prewarm_next(c));
        if (!(t_stop > t)) { /* cannot happen: the events at t are done */
            rc = ac_error_set(err, AC_ENUMERIC,
                              "the transient's event times do not advance at "
                              "t = %g s",
                              t);
            goto cleanup;
        }
        while (t < t_stop) {
            double tp = t;
            int st =
                gsl_odeiv2_evolve_apply(dr->d->e, dr->d->c, dr->d->s, &dr->sys, &t, t_stop, &h, y);
            if (st == GSL_SUCCESS && ++nsteps > 50000000)
                st = GSL_EMAXITER;
            if (st != GSL_SUCCESS) {
                rc = ac_error_set(err, AC_ENUMERIC,
                                  "the transient (%s, %zu states) failed at t = %g s: %s",
                                  tr->method, D, t, gsl_strerror(st));
                goto cleanup;
            }
            tr_f(t, y, f1, c);
            while (s < tr->nsamples && tr->t[s] <= t) {
                hermite(D, tp, y0, f0, t, y, f1, tr->t[s], yi);
                record(c, tr, s, tr->t[s], yi, fr);
                s++;
            }
            memcpy(f0, f1, D * sizeof *f1);
            memcpy(y0, y, D * sizeof *y);
        }
    }
    for (; s < tr->nsamples; s++) /* rounding at the horizon */
        record(c, tr, s, tr->t[s], y, fr);
cleanup:
    free(fr);
    free(y0);
    free(f0);
    free(f1);
    free(yi);
    return rc;
}

static void ctx_free(tr_ctx *c)
{
    scalers_free(c);
    for (size_t j = 0; c->pools != NULL && j < c->npools; j++)
        ac_solver_pool_model_free(c->pools[j].model);
    free(c->pools);
    free(c->pool_of);
    csr_free(&c->cp);
    csr_free(&c->sp);
    free(c->fd_pool);
    free(c->gamma);
    free(c->gslope);
    free(c->lambda);
    free(c->dep);
    free(c->f0);
    free(c->f1);
    free(c->jb);
    routes_free(&c->rt);
    free(c->unit_of);
    free(c->fns);
    free(c->qs);
    free(c->gws);
    free(c->fr);
    free(c->qr);
    free(c->gr);
    free(c->lam);
    free(c->outf);
    free(c->order);
    free(c->fdcols);
    free(c->fd_y);
    free(c->fd_f);
    free(c->gbuf);
}

/* The horizon: the option, else the largest last point of the profiles. */
static double horizon_of(const ac_model *m, const ac_transient_options *opt)
{
    double h = 0.0;
    if (opt->horizon > 0.0)
        return opt->horizon;
    for (size_t q = 0; q < m->nprofiles; q++)
        h = fmax(h, m->profiles[q].points[m->profiles[q].npoints - 1].at);
    return h;
}

/*
 * The serverless stages: their parameters, their states from c->dim on (c->dim grows), the
 * evaluation order of the instantaneous nodes, and the Jacobian's columns by forward mode
 * (every serverless state, and q_1 of every pool that routes to a serverless node).
 */
static int sl_setup(tr_ctx *c, ac_transient *tr, ac_error *err)
{
    const ac_model *m = c->m;
    size_t n = m->nnodes > 0 ? m->nnodes : 1, ncols;
    c->unit_of = malloc(n * sizeof *c->unit_of);
    c->lam = calloc(n, sizeof *c->lam);
    c->outf = calloc(n, sizeof *c->outf);
    if (c->unit_of == NULL || c->lam == NULL || c->outf == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t v = 0; v < m->nnodes; v++) {
        switch (m->nodes[v].kind) {
        case AC_NODE_POOL: c->unit_of[v] = c->pool_of[v]; break;
        case AC_NODE_FUNCTION: c->unit_of[v] = c->nfns++; break;
        case AC_NODE_QUEUE: c->unit_of[v] = c->nqs++; break;
        case AC_NODE_GATEWAY: c->unit_of[v] = c->ngws++; break;
        }
    }
    c->nsl = c->nfns + c->nqs + c->ngws;
    c->fns = calloc(c->nfns + 1, sizeof *c->fns);
    c->qs = calloc(c->nqs + 1, sizeof *c->qs);
    c->gws = calloc(c->ngws + 1, sizeof *c->gws);
    c->fr = calloc(c->nfns + 1, sizeof *c->fr);
    c->qr = calloc(c->nqs + 1, sizeof *c->qr);
    c->gr = calloc(c->ngws + 1, sizeof *c->gr);
    if (!c->fns || !c->qs || !c->gws || !c->fr || !c->qr || !c->gr)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t v = 0; v < m->nnodes; v++) {
        if (m->nodes[v].kind == AC_NODE_FUNCTION)
            fn_setup(m, v, &c->fns[c->unit_of[v]]);
        else if (m->nodes[v].kind == AC_NODE_GATEWAY)
            gw_setup(m, v, &c->gws[c->unit_of[v]]);
    }
    for (size_t v = 0; v < m->nnodes; v++)
        if (m->nodes[v].kind == AC_NODE_QUEUE)
            q_setup(m, v, c->fns, c->unit_of, &c->qs[c->unit_of[v]]);
    /* a polled function's starts are bounded by its queues' max-consumers too */
    for (size_t i = 0; i < c->nfns; i++) {
        double M = 0.0;
        int fed = 0;
        for (size_t q = 0; q < c->nqs; q++)
            if (c->qs[q].cons == i) {
                M += (double)m->nodes[c->qs[q].node].u.queue.max_consumers;
                fed = 1;
            }
        if (fed)
            c->fns[i].Cp = fmin(c->fns[i].C, M);
        if (c->fns[i].W > 0.0)
            c->nprewarm++;
    }
    /* the states, after the pools' */
    for (size_t v = 0; v < m->nnodes; v++) {
        size_t ns;
        if (m->nodes[v].kind == AC_NODE_POOL)
            continue;
        ns = sl_nstate(c, v);
        switch (m->nodes[v].kind) {
        case AC_NODE_FUNCTION: c->fns[c->unit_of[v]].off = c->dim; break;
        case AC_NODE_QUEUE: c->qs[c->unit_of[v]].off = c->dim; break;
        default: c->gws[c->unit_of[v]].off = c->dim; break;
        }
        c->dim += ns + sl_ncount(m->nodes[v].kind);
        tr->nodes[v].modelled = 1;
        tr->nodes[v].dim = ns;
        tr->nodes[v].steady_mean_jobs = NAN;
    }
    if (build_order(c, err) != AC_OK)
        return err->code;
    ncols = c->npools;
    for (size_t v = 0; v < m->nnodes; v++)
        ncols += m->nodes[v].kind == AC_NODE_POOL ? 0 : sl_nstate(c, v);
    c->fdcols = malloc((ncols + 1) * sizeof *c->fdcols);
    if (c->fdcols == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    for (size_t j = 0; j < c->npools; j++)
        if (c->fd_pool[j])
            c->fdcols[c->nfd++] = c->pools[j].off;
    for (size_t v = 0; v < m->nnodes; v++) {
        size_t ns = m->nodes[v].kind == AC_NODE_POOL ? 0 : sl_nstate(c, v), off = sl_off(c, v);
        for (size_t k = 0; k < ns; k++)
            c->fdcols[c->nfd++] = off + k;
    }
    return AC_OK;
}

/* The empty state: no job anywhere, every bucket (scale tokens, gateway tokens) full. */
static void init_state(const tr_ctx *c, double *y)
{
    memset(y, 0, (c->dim + 1) * sizeof *y);
    for (size_t i = 0; i < c->nfns; i++)
        y[c->fns[i].off + FN_G] = c->fns[i].G;
    for (size_t i = 0; i < c->ngws; i++)
        if (c->gws[i].bounded)
            y[c->gws[i].off] = c->gws[i].Z;
}

/* Every counter back to 0. */
static void zero_counters(const tr_ctx *c, double *y)
{
    for (size_t j = 0; j < c->npools; j++)
        y[c->nq + 2 * j] = y[c->nq + 2 * j + 1] = 0.0;
    for (size_t i = 0; i < c->nfns; i++)
        memset(y + c->fns[i].off + FN_NSTATE, 0, FC_N * sizeof *y);
    for (size_t i = 0; i < c->nqs; i++)
        memset(y + c->qs[i].off + Q_NSTATE, 0, QC_N * sizeof *y);
    for (size_t i = 0; i < c->ngws; i++)
        memset(y + c->gws[i].off + (c->gws[i].bounded ? 1 : 0), 0, GC_N * sizeof *y);
}

/* The notes on what the serverless stages' fluid leaves out. */
static void sl_notes(const tr_ctx *c, ac_transient *tr)
{
    if (c->nfns > 0)
        note_add(tr, "functions as fluids: no throttling below the concurrency and no cold "
                     "starts under a steady load (the steady state has both)");
    if (c->ngws > 0)
        note_add(tr, "gateways reject once the bucket is empty; no 504s (timeouts)");
}

int ac_transient_run(const ac_model *m, const ac_transient_options *opt, ac_transient **out,
                     ac_error *err)
{
    ac_transient_options defaults;
    ac_transient *tr = NULL;
    tr_ctx c;
    tr_prop prop;
    tr_driver dr;
    size_t *dims = NULL, ntarget = 0;
    double *y = NULL, *f = NULL, *tgt = NULL, horizon;
    int rc = AC_OK, dense, settled = 1;

    memset(&c, 0, sizeof c);
    memset(&prop, 0, sizeof prop);
    dr.d = NULL;
    *out = NULL;
    if (opt == NULL) {
        ac_transient_options_init(&defaults);
        opt = &defaults;
    }
    horizon = horizon_of(m, opt);
    if (!(horizon > 0.0) || !isfinite(horizon))
        return ac_error_set(err, AC_EINVAL,
                            "the transient needs a horizon: the model has no <profile>");
    if (opt->samples < 2 || !(opt->scale >= 0.0) || !(opt->rtol > 0.0) || !(opt->atol > 0.0) ||
        opt->pool_dim_max < 1)
        return ac_error_set(err, AC_EINVAL, "invalid transient options");
    c.m = m;
    c.opt = opt;

    tr = calloc(1, sizeof *tr);
    if (tr == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
    tr->horizon = horizon;
    tr->nsamples = opt->samples;
    tr->nnodes = m->nnodes;
    tr->burst_end = NAN;
    tr->burst_peak = NAN;
    tr->t = malloc(tr->nsamples * sizeof *tr->t);
    tr->nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *tr->nodes);
    c.pool_of = malloc((m->nnodes > 0 ? m->nnodes : 1) * sizeof *c.pool_of);
    c.gamma = calloc(m->nsources + 1, sizeof *c.gamma);
    c.gslope = calloc(m->nsources + 1, sizeof *c.gslope);
    if (tr->t == NULL || tr->nodes == NULL || c.pool_of == NULL || c.gamma == NULL ||
        c.gslope == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    for (size_t s = 0; s < tr->nsamples; s++)
        tr->t[s] = horizon * (double)s / (double)(tr->nsamples - 1);
    tr->t[tr->nsamples - 1] = horizon;

    /* the bursts of the profiles */
    for (size_t q = 0; q < m->nprofiles; q++) {
        double tp = 0.0, te = 0.0;
        if (profile_burst(&m->profiles[q], &tp, &te)) {
            tr->has_burst = 1;
            tr->burst_peak = isnan(tr->burst_peak) ? tp : fmin(tr->burst_peak, tp);
            tr->burst_end = isnan(tr->burst_end) ? te : fmax(tr->burst_end, te);
        }
    }

    /* the pools */
    for (size_t v = 0; v < m->nnodes; v++) {
        c.pool_of[v] = AC_NONE;
        if (m->nodes[v].kind == AC_NODE_POOL)
            c.pool_of[v] = c.npools++;
    }
    c.pools = calloc(c.npools + 1, sizeof *c.pools);
    dims = calloc(c.npools + 1, sizeof *dims);
    c.lambda = calloc(c.npools + 1, sizeof *c.lambda);
    c.dep = calloc(c.npools + 1, sizeof *c.dep);
    if (c.pools == NULL || dims == NULL || c.lambda == NULL || c.dep == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    for (size_t v = 0, j = 0; v < m->nnodes; v++) {
        const ac_pool *p;
        if (c.pool_of[v] == AC_NONE)
            continue;
        p = &m->nodes[v].u.pool;
        c.pools[j].node = v;
        c.pools[j].N = (double)p->servers;
        c.pools[j].mu = p->service_rate;
        c.pools[j].cap = (double)p->servers * p->service_rate;
        j++;
    }
    if (routes_build(m, &c.rt) != AC_OK || prop_alloc(&prop, m->nnodes) != AC_OK) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    rc = build_coupling(&c, err);
    if (rc != AC_OK)
        goto fail;
    rc = pool_dims(&c, &c.rt, &prop, horizon, dims, tr->note, sizeof tr->note, err);
    if (rc != AC_OK)
        goto fail;
    sources_at(&c, 0.0, c.gamma, NULL);
    for (size_t j = 0; j < c.npools; j++) {
        tr_pool *tp = &c.pools[j];
        const ac_pool *p = &m->nodes[tp->node].u.pool;
        rc = ac_solver_pool_model_new(p, 0.0, dims[j], &tp->model, err);
        if (rc != AC_OK)
            goto fail;
        tp->dim = ac_solver_pool_model_dim(tp->model);
        tp->off = c.nq;
        tp->truncated = p->dispatch != AC_DISPATCH_SHARED_QUEUE &&
                        (p->buffer == AC_UNBOUNDED || tp->dim < p->buffer);
        c.nq += tp->dim;
        c.maxdim = tp->dim > c.maxdim ? tp->dim : c.maxdim;
        tr->nodes[tp->node].modelled = 1;
        tr->nodes[tp->node].dim = tp->dim;
        tr->nodes[tp->node].truncated = tp->truncated;
        tr->nodes[tp->node].steady_mean_jobs = NAN;
    }
    c.dim = c.nq + 2 * c.npools;
    rc = sl_setup(&c, tr, err);
    if (rc != AC_OK)
        goto fail;
    tr->dim = c.dim;
    dense = c.dim <= opt->dense_max;
    tr->method = dense ? "msbdf" : "rkf45";
    c.f0 = malloc((c.maxdim + 1) * sizeof *c.f0);
    c.f1 = malloc((c.maxdim + 1) * sizeof *c.f1);
    c.jb = dense ? malloc((c.maxdim * c.maxdim + 1) * sizeof *c.jb) : NULL;
    c.fd_y = malloc((c.dim + 1) * sizeof *c.fd_y);
    c.fd_f = malloc((c.dim + 1) * sizeof *c.fd_f);
    c.gbuf = malloc((c.nq + 1) * sizeof *c.gbuf);
    y = calloc(c.dim + 1, sizeof *y);
    f = calloc(c.dim + 1, sizeof *f);
    if (c.f0 == NULL || c.f1 == NULL || (dense && c.jb == NULL) || c.fd_y == NULL ||
        c.fd_f == NULL || c.gbuf == NULL || y == NULL || f == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient of %zu states)", c.dim);
        goto fail;
    }
    for (size_t v = 0; v < m->nnodes; v++) {
        ac_transient_node *n = &tr->nodes[v];
        int bounded = m->nodes[v].kind == AC_NODE_GATEWAY && c.gws[c.unit_of[v]].bounded;
        if (node_alloc(n, tr->nsamples, m->nodes[v].kind, bounded) != AC_OK) {
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient trajectories)");
            goto fail;
        }
    }
    if (!dense) {
        char buf[160];
        snprintf(buf, sizeof buf,
                 "%zu states exceed the dense limit %zu: integrated with rkf45 (explicit), "
                 "not the stiff msbdf",
                 c.dim, opt->dense_max);
        note_add(tr, buf);
    }
    if (scalers_init(&c, tr) != AC_OK) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (autoscalers)");
        goto fail;
    }
    if (c.nscaled > 0)
        note_add(tr, "autoscalers follow the fluid (mean) utilisation: no fluctuations, so no "
                     "flapping and no noise in the cooldown's maximum");
    sl_notes(&c, tr);
    if (m->nlinks > 0)
        note_add(tr, "links (capacity, latency) are not in the transient model");
    if (m->npopulations > 0)
        note_add(tr, "closed workloads (<population>) are not in the transient model");

    /* the reference after the burst: the fixed point at the base rates, from empty */
    if (tr->has_burst && c.dim > 0) {
        init_state(&c, y);
        rc = settle(&c, dense, tr->burst_end, y, &settled, err);
        if (rc != AC_OK)
            goto fail;
        for (size_t j = 0; j < c.npools; j++) {
            double L = 0.0;
            for (size_t k = 0; k < c.pools[j].dim; k++)
                L += y[c.pools[j].off + k];
            tr->nodes[c.pools[j].node].steady_mean_jobs = settled ? L : NAN;
        }
        for (size_t v = 0; v < m->nnodes; v++)
            if (m->nodes[v].kind != AC_NODE_POOL)
                tr->nodes[v].steady_mean_jobs = settled ? sl_mean_jobs(&c, v, y) : NAN;
    }
    /* the start */
    init_state(&c, y);
    if (opt->start == AC_TRANSIENT_START_STEADY && c.dim > 0) {
        rc = settle(&c, dense, 0.0, y, &settled, err);
        if (rc != AC_OK)
            goto fail;
        tr->started_steady = settled;
        if (!settled)
            note_add(tr, "the rates of t = 0 have no reachable fixed point: started from the "
                         "state reached after a long warm-up");
        zero_counters(&c, y);
    }

    tgt = targets(m, tr, &ntarget);
    if (tgt == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (transient)");
        goto fail;
    }
    if (c.dim == 0) { /* no node: nothing to integrate */
        for (size_t s = 0; s < tr->nsamples; s++)
            record(&c, tr, s, tr->t[s], y, f);
        *out = tr;
        tr = NULL;
        goto fail;
    }
    {
        double slow, fast;
        node_times(&c, &slow, &fast);
        if (driver_init(&dr, &c, dense, isfinite(fast) ? 1e-3 * fast : 1e-3) != AC_OK) {
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu states)", c.dim);
            goto fail;
        }
    }
    rc = integrate(&c, tr, &dr, tgt, ntarget, y, err);
    if (rc != AC_OK)
        goto fail;
    for (size_t j = 0; j < c.npools; j++) { /* server-hours and events over [0, horizon) */
        tr_pool *tp = &c.pools[j];
        ac_transient_node *n = &tr->nodes[tp->node];
        tp->hours += tp->N * (horizon - tp->t_last) / 3600.0;
        tp->t_last = horizon;
        n->server_hours = tp->hours;
        n->scaling_events = n->nevents;
        tr->server_hours += n->server_hours;
        tr->scaling_events += n->scaling_events;
    }
    for (size_t j = 0; j < c.npools; j++)
        memcpy(tr->nodes[c.pools[j].node].q_final, y + c.pools[j].off, c.pools[j].dim * sizeof *y);
    for (size_t v = 0; v < m->nnodes; v++)
        if (m->nodes[v].kind != AC_NODE_POOL)
            memcpy(tr->nodes[v].q_final, y + sl_off(&c, v), tr->nodes[v].dim * sizeof *y);
    for (size_t i = 0; i < c.nfns; i++)
        tr->nodes[c.fns[i].node].prewarm_instances = c.fns[i].prewarmed;
    for (size_t j = 0; j < c.npools; j++) {
        const ac_transient_node *n = &tr->nodes[c.pools[j].node];
        if (n->truncated && n->max_tail > 1e-6) {
            char buf[200];
            snprintf(buf, sizeof buf,
                     "'%s' reaches its truncation at %zu levels (q_K up to %.2g): jobs beyond "
                     "are lost in the model",
                     m->nodes[c.pools[j].node].id, n->dim, n->max_tail);
            note_add(tr, buf);
        }
    }
    *out = tr;
    tr = NULL;
fail:
    if (dr.d != NULL)
        gsl_odeiv2_driver_free(dr.d);
    ac_transient_free(tr);
    ctx_free(&c);
    prop_free(&prop);
    free(dims);
    free(y);
    free(f);
    free(tgt);
    return rc;
}

int ac_an_transient_solve(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                          ac_error *err)
{
    ac_transient_options topt = opt->transient_opt;
    ac_error e = {0};
    int rc;
    ac_transient_free(a->transient);
    a->transient = NULL;
    a->transient_note[0] = '\0';
    if (opt->transient == AC_TRANSIENT_NEVER) {
        snprintf(a->transient_note, sizeof a->transient_note, "the transient was not requested");
        return AC_OK;
    }
    if (opt->transient == AC_TRANSIENT_AUTO && m->nprofiles == 0) {
        snprintf(a->transient_note, sizeof a->transient_note, "the model has no <profile>");
        return AC_OK;
    }
    if (opt->transient == AC_TRANSIENT_AUTO) {
        /* integrate only for a requirement that reads the trajectories: scaling, or recovery
           from a burst that some profile has */
        int need = 0, burst = 0;
        double horizon = horizon_of(m, &topt);
        for (size_t q = 0; q < m->nprofiles && !burst; q++) {
            double tp, te;
            /* a burst that ends at the horizon leaves nothing to recover in */
            burst = profile_burst(&m->profiles[q], &tp, &te) && te < horizon;
        }
        for (size_t q = 0; q < m->nrequirements; q++)
            need |= m->requirements[q].kind == AC_REQ_SCALING ||
                    (m->requirements[q].kind == AC_REQ_RECOVERY && burst);
        if (!need) {
            snprintf(a->transient_note, sizeof a->transient_note, "%s",
                     burst ? "no requirement reads the transient (recovery, scaling)"
                           : "no profile has a burst above its base rate (its first point's) "
                             "that returns to the base rate before the horizon");
            return AC_OK;
        }
    }
    topt.scale *= a->scale;
    rc = ac_transient_run(m, &topt, &a->transient, &e);
    if (rc == AC_ENOMEM)
        return ac_error_set(err, rc, "%s", e.message);
    if (rc != AC_OK)
        snprintf(a->transient_note, sizeof a->transient_note,
                 "the transient could not be computed: %.200s", e.message);
    return AC_OK;
}
