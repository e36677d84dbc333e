/*
 * Internal to solver/transient*.c: the fluid transient of an open network (transient.h).
 *
 * State y: the pools' mean-field vectors q_1..q_P (each of a fixed truncation), then two
 * counters per pool, the jobs offered (A) and departed (D) since t = 0, then the states and
 * counters of every function, queue and gateway, in node order, then those of the links
 * (transient_link.c: a link is not a node, it sits on its routes). The counters are integrated
 * with the rest, so conservation can be checked exactly (BDF preserves linear invariants).
 *
 * One file per node kind (transient_pool.c, _function.c, _queue.c, _gateway.c), each
 * defining one tr_kind below: a new node kind is one new file and one entry of
 * ac_solver_tr_kinds (transient.c). The flows and the ODE (transient_ode.c), the routing and
 * the profiles (transient_routes.c), the autoscaler (transient_autoscale.c), the pre-warming
 * pings (transient_prewarm.c) and the driver (transient.c) are shared by every kind.
 */
#ifndef AC_SOLVER_TRANSIENT_INTERNAL_H
#define AC_SOLVER_TRANSIENT_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include <gsl/gsl_interp.h>
#include <gsl/gsl_odeiv2.h>

#include "archcheck/solver.h"
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
    double base_unit; /* jobs/s offered at the sources' `rate` (static traffic), scale 1 */
    /* the models by serving count (an autoscaled pool: built once, on first use) */
    ac_solver_pool_model **by_count;
    size_t count_lo, ncounts;
    double hours;  /* int N dt / 3600 up to t_last */
    double t_last; /* s, the last change of N */
    tr_scaler *sc; /* NULL: servers fixed */
} tr_pool;

typedef struct tr_routes {
    size_t *start, *to;
    double *coef;
    double *fanin; /* the route's fanin (a link carries p fanout copies per job) */
    size_t *link;  /* the fluid link (index into links) the entry passes, AC_NONE */
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
    double delay;     /* s, the injected delay of the current fault (0: none) */
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
    tr_dn demand, adm, rP, rd, rw[TR_KS], warm, cold, refill, starts, starts_q;
    tr_dn thr;   /* sync: throttled requests */
    tr_dn du;    /* d(waiting)/dt */
    tr_dn freed; /* instances freed: b / T_free */
    tr_dn done;  /* executions ending: b / T_e */
    tr_dn succ, lost, fails, to1, to2, back;
    tr_dn execs; /* executions started (retries on the same instance included) */
} tr_fn_rates;

/* A link (transient_link.c): a fluid node of capacity c when c is finite (its state x, then
 * the counters A, D, L), then TR_LINK_STAGES stages of its latency when it has one; a link
 * of unbounded capacity without latency has no state (the flows pass it). */
enum { LK_X, LK_NSTATE };
enum { LC_A, LC_D, LC_L, LC_N };
#define TR_LINK_TABLE  96   /* points of a bounded link's tables over the load */
#define TR_LINK_KMAX   256  /* buffers up to this have the M/D/1/K tables, beyond: fluid */
#define TR_LINK_FLOOR  1e-6 /* the least share of its capacity a capacity-loss leaves a link */
#define TR_LINK_STAGES 4    /* Erlang stages of a link's latency in the flows */
typedef struct tr_link {
    size_t off;    /* its states (fluid links), then its stages (staged) */
    int fluid;     /* 1: a finite capacity (a state in the ODE) */
    int staged;    /* 1: a latency: TR_LINK_STAGES stages of the jobs propagating */
    size_t soff;   /* the first stage */
    int bounded;   /* 1: the M/D/1/K tables; 0: M/D/1 closed forms (and a fluid buffer) */
    double c, lat; /* capacity (jobs/s) and latency (s) now (with the plan's faults) */
    double K;      /* jobs the link holds: buffer + 1 (INFINITY: unbounded) */
    double per;    /* jobs reaching `to` per copy carried (the routes' 1 / fanin) */
    size_t nt;     /* table points: N(rho) (mean jobs), U (busy), B (blocking), W c */
    double *tn, *tu, *tb, *tw;
    gsl_interp *iu, *ib, *iw;
    tr_dn in, out, blk; /* the last flows: offered, carried, the blocking B(x) */
    tr_dn dlv;          /* delivered to `to` (out of the last stage; unstaged: out) */
} tr_link;

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

/* Scratch of a routing propagation: dense accumulators and a work list. */
typedef struct tr_prop {
    double *acc, *pend;
    size_t *touched, ntouched;
    size_t *work;
    unsigned char *inwork, *seen;
} tr_prop;

/* The integrator (transient_driver.c: CVODE's BDF with the dense Jacobian, or GSL's rkf45). */
typedef struct tr_driver tr_driver;

/* Scratch vectors of dim + 1 entries for the settling and the integration. */
typedef struct tr_scratch {
    double *f, *y0, *f0, *f1, *yi;
} tr_scratch;

/* The accepted steps of a run without faults (the prefix a fault plan starts from,
 * transient.c): times, states (cap x dim), the next sample after each, the pools' max_tail
 * after each (cap x npools). */
typedef struct tr_prefix {
    int record; /* store every accepted step of this run */
    size_t n, cap;
    double *t, *y, *tail;
    size_t *s;
} tr_prefix;

typedef struct tr_kind tr_kind;

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
    double scale; /* the workload factor of every source and its profile */
    int frozen;
    double t_frozen;
    int vonly; /* the flows being evaluated are values only (no direction, not along t) */
    /* the sources' rates and slopes of the last evaluation of the flows (src_cache: 2 x
       (nsources + 1)) at (src_t, src_scale, src_frozen), when src_valid: CVODE evaluates f
       and the Jacobian's ~20 differentiated flows at one t per Newton iteration */
    double *src_cache, src_t, src_scale;
    int src_frozen, src_valid;
    size_t nscaled; /* pools with a scaler */
    /* every node: its kind's table, its fluid states st_off[v] .. + nst[v], its counters
       cnt_off[v] .. + ncnt[v] */
    const tr_kind **kind;
    size_t *st_off, *nst, *cnt_off, *ncnt;
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
    /* the forward-mode columns in groups (set by the driver once its pattern is frozen,
       ac_solver_tr_driver_freeze; 0 groups: one column at a time): group g is columns
       jgrp_col[jgrp_start[g] .. jgrp_start[g + 1]), no two reaching a node in common through
       the pattern jmask (dim x dim, row-major), so one differentiated evaluation along their
       sum gives each one's entries on the pattern; jzero (jnz positions in dfdy) are the
       pattern's entries, the only ones then zeroed and read; the rows of grouped column k
       (jgrp_col[k]) on the pattern are jgrp_row[jgrp_rptr[k] .. jgrp_rptr[k + 1]), increasing
       (NULL: scan jmask's column) */
    size_t jgroups, jnz;
    const size_t *jgrp_start, *jgrp_col, *jzero, *jgrp_rptr, *jgrp_row;
    const unsigned char *jmask;
    size_t nprewarm; /* functions with pre-warming pings */
    /* the fault plan of the evaluation (transient_faults.c; NULL: none) */
    const ac_transient_plan *plan;
    double *edges; /* its windows' edges inside (0, horizon), sorted */
    size_t nedges, next_edge;
    int faults_started; /* the plan's state at t = 0 is applied */
    /* the links (transient_link.c): every model link, its inflow and outflow now */
    size_t nlinks, nlkst; /* links; states of the fluid ones (counters excluded) */
    tr_link *lks;
} tr_ctx;

/*
 * A node kind. Every hook takes the node's index u among the nodes of its kind (unit_of);
 * NULL where the kind has nothing to do. Flows are evaluated in three passes
 * (ac_solver_tr_eval_flows): `outflow` of every node whose outflow depends on its own state
 * only, then `instant` in the instantaneous order (nodes whose outflow depends on their
 * inflow of the same instant: they push it on themselves), then `rates` of the other nodes
 * once every inflow c->lam is known.
 */
struct tr_kind {
    const char *name;
    /* 1: node u is evaluated in the instantaneous order */
    int (*is_instant)(const tr_ctx *c, size_t u);
    /* the empty state (no job, every bucket full) of the node's fluid states */
    void (*init)(const tr_ctx *c, size_t u, double *y);
    /* c->outf[node] from the node's own state (derivative along yd, NULL: none) */
    void (*outflow)(tr_ctx *c, size_t u, const double *y, const double *yd);
    /* the flows of an instantaneous node from c->lam[node]; pushes its outflow on */
    void (*instant)(tr_ctx *c, size_t u, const double *y, const double *yd);
    /* the flows of a node that is not instantaneous, once c->lam is complete */
    void (*rates)(tr_ctx *c, size_t u, const double *y, const double *yd);
    /* the node's rows of f (every state and counter of the node: tangent = 0 the values,
       1 their derivatives along the direction of the last flows) */
    void (*drift)(tr_ctx *c, size_t u, const double *y, const double *yd, double *dy, int tangent);
    /* the largest drift of the fluid states, relative to the node's flow scale */
    double (*residual)(const tr_ctx *c, size_t u, const double *f);
    /* fold the node's natural times (s) into *slow (max) and *fast (min) */
    void (*times)(const tr_ctx *c, size_t u, double *slow, double *fast);
    /* allocate the kind's trajectories beyond the common ones (ns samples) */
    int (*alloc)(const tr_ctx *c, size_t u, ac_transient_node *n, size_t ns);
    /* record sample s of the node at y (the flows of the last evaluation at y, f = f(y)) */
    void (*record)(const tr_ctx *c, size_t u, ac_transient_node *n, size_t s, const double *y,
                   const double *f);
    /* mean_jobs of the node at y (the flows of the last evaluation at y) */
    double (*mean_jobs)(const tr_ctx *c, size_t u, const double *y);
};

extern const tr_kind ac_solver_tr_kind_pool;
extern const tr_kind ac_solver_tr_kind_function;
extern const tr_kind ac_solver_tr_kind_queue;
extern const tr_kind ac_solver_tr_kind_gateway;

/* ---- dual numbers (forward-mode differentiation) ---------------------------------------- */

static inline double tr_pos(double x)
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
static inline tr_dn dn(double v)
{
    tr_dn r = {v, 0.0};
    return r;
}

/* The value-only evaluations (f itself: c->vonly, no direction): each kind's flows are
 * inlined (TR_INLINE) with yd = NULL and inflows of derivative 0, so every derivative is a
 * constant 0 after inlining, and DN_ZERO lets the products' derivatives fold to 0 (GCC;
 * 0 * k itself cannot fold: k may be infinite). The values are the same operations in the
 * same order; only the unused derivatives differ (an exact 0 instead of a signed or NaN
 * one). Before it, the derivatives were ~40% of a value-only evaluation's work. */
#if defined(__GNUC__)
#define TR_INLINE  inline __attribute__((always_inline))
#define DN_ZERO(x) (__builtin_constant_p((x).d) && (x).d == 0.0)
#else
#define TR_INLINE  inline
#define DN_ZERO(x) 0
#endif

static inline tr_dn dn_add(tr_dn a, tr_dn b)
{
    a.v += b.v;
    a.d += b.d;
    return a;
}

static inline tr_dn dn_sub(tr_dn a, tr_dn b)
{
    a.v -= b.v;
    a.d -= b.d;
    return a;
}

static inline tr_dn dn_mul(tr_dn a, tr_dn b)
{
    tr_dn r = {a.v * b.v, DN_ZERO(a) && DN_ZERO(b) ? 0.0 : a.d * b.v + a.v * b.d};
    return r;
}

static inline tr_dn dn_div(tr_dn a, tr_dn b)
{
    tr_dn r = {a.v / b.v, DN_ZERO(a) && DN_ZERO(b) ? 0.0 : (a.d * b.v - a.v * b.d) / (b.v * b.v)};
    return r;
}

static inline tr_dn dn_scale(tr_dn a, double k)
{
    a.v *= k;
    a.d = DN_ZERO(a) ? 0.0 : a.d * k;
    return a;
}

static inline tr_dn dn_min(tr_dn a, tr_dn b)
{
    return b.v < a.v ? b : a;
}

static inline tr_dn dn_max(tr_dn a, tr_dn b)
{
    return b.v > a.v ? b : a;
}

static inline tr_dn dn_pos(tr_dn a)
{
    return a.v >= 0.0 ? a : dn(0.0);
}

/* A demand left after taking supplies out of `whole`: 0 at the level of rounding (the
 * later keep-alive stages hover at (kappa tau)^i of the flow, below the rounding of the
 * subtraction, where the branch of a min would flip at random). */
static inline tr_dn dn_floor(tr_dn rest, double whole)
{
    return rest.v > TR_ROUND * fabs(whole) ? rest : dn(0.0);
}

/* State k of y, with its derivative along yd (NULL: none). */
static inline tr_dn dn_y(const double *y, const double *yd, size_t k)
{
    tr_dn r = {y[k], yd != NULL ? yd[k] : 0.0};
    return r;
}

/* Write a drift's value or derivative. */
static inline void dn_out(double *dy, size_t k, tr_dn x, int tangent)
{
    dy[k] = tangent ? x.d : x.v;
}

/* ---- shared functions -------------------------------------------------------------------- */

/* transient_routes.c: the sources, the routes, the static traffic. */
void ac_solver_tr_sources_at(const tr_ctx *c, double t, double *gamma, double *slope);
int ac_solver_tr_profile_burst(const ac_profile *p, double *t_peak, double *t_end);
int ac_solver_tr_routes_build(const ac_model *m, tr_routes *r);
void ac_solver_tr_routes_free(tr_routes *r);
int ac_solver_tr_prop_alloc(tr_prop *p, size_t n);
void ac_solver_tr_prop_free(tr_prop *p);
int ac_solver_tr_propagate(const tr_routes *r, size_t start, tr_prop *p);
int ac_solver_tr_csr_add(tr_csr *c, size_t to, double coef);
void ac_solver_tr_csr_free(tr_csr *c);
int ac_solver_tr_build_coupling(tr_ctx *c, ac_error *err);
double *ac_solver_tr_targets(const ac_model *m, double horizon, size_t nsamples, size_t *count);
double ac_solver_tr_eps(double t);

/* transient_pool.c: the truncation, the pools' models, their Jacobian blocks, a count change. */
int ac_solver_tr_pool_dims(tr_ctx *c, const tr_routes *r, tr_prop *p, double horizon, size_t *dims,
                           char *note, size_t note_size, ac_error *err);
int ac_solver_tr_pools_setup(tr_ctx *c, const size_t *dims, ac_transient *tr, ac_error *err);
void ac_solver_tr_pool_jacobian(tr_ctx *c, const double *y, double *dfdy, double *dfdt);
void ac_solver_tr_pool_gradients(tr_ctx *c, const double *y);
void ac_solver_tr_pool_remap(tr_ctx *c, ac_transient *tr, size_t j, double N_old, double N_new,
                             double *y);

/* transient_function.c, transient_queue.c, transient_gateway.c: parameters. */
void ac_solver_tr_fn_setup(const ac_model *m, size_t v, tr_fn *F);
void ac_solver_tr_fn_params(tr_fn *F, const ac_function *fn, double delay);
void ac_solver_tr_q_params(tr_q *Q, const ac_queue *q, const ac_function *fn, double delay);
double ac_solver_tr_fn_alive(const tr_fn *F, const double *y);
void ac_solver_tr_q_setup(const ac_model *m, size_t v, const tr_fn *fns, const size_t *unit_of,
                          tr_q *Q);
void ac_solver_tr_q_deliver(tr_q_rates *r, tr_dn deliveries);
size_t ac_solver_tr_q_consumer_node(const tr_ctx *c, size_t v);
void ac_solver_tr_gw_setup(const ac_model *m, size_t v, tr_gw *W);

/* transient_ode.c: the flows, f and its Jacobian, the settling, the integration. */
int ac_solver_tr_build_order(tr_ctx *c, ac_error *err);
void ac_solver_tr_push_out(tr_ctx *c, size_t v);
void ac_solver_tr_eval_flows(tr_ctx *c, double t, const double *y, const double *yd, int along_t);
int ac_solver_tr_f(double t, const double y[], double dydt[], void *params);
int ac_solver_tr_jac(double t, const double y[], double *dfdy, double dfdt[], void *params);
void ac_solver_tr_node_times(const tr_ctx *c, double *slow, double *fast);
int ac_solver_tr_settle(tr_ctx *c, tr_driver *dr, double t0, double *y, tr_scratch *w, int *settled,
                        ac_error *err);
void ac_solver_tr_record(tr_ctx *c, ac_transient *tr, size_t s, double t, const double *y,
                         double *f);
int ac_solver_tr_integrate(tr_ctx *c, ac_transient *tr, tr_driver *dr, double h0, const double *tgt,
                           size_t ntarget, double *y, double t0, size_t s0, tr_scratch *w,
                           tr_prefix *pf, size_t *nsteps, ac_error *err);

/* transient_driver.c: the integrator. _new allocates everything (NULL *out on AC_ENOMEM);
 * _restart starts a new history at (t, y) with first step h0; _step takes one step, never
 * past t_stop, (*t, y) updated; _advance integrates to t_end in at most max_steps steps
 * (AC_ELIMIT past them). They return 0, AC_ENUMERIC or AC_ELIMIT (_why says what failed)
 * and allocate nothing. */
int ac_solver_tr_driver_new(tr_ctx *c, int dense, double h0, tr_driver **out);
void ac_solver_tr_driver_free(tr_driver *dr);
const char *ac_solver_tr_driver_method(const tr_driver *dr);
const char *ac_solver_tr_driver_why(const tr_driver *dr);
int ac_solver_tr_driver_restart(tr_driver *dr, double t, const double *y, double h0);
/* from now on the Jacobian's sparse pattern stays as it is (the evaluations without a new
 * pattern allocate nothing; entries outside it are left out of the iteration matrix) */
void ac_solver_tr_driver_freeze(tr_driver *dr);
/* The driver's state that outlives a run, made a function of the model and the options:
 * _fix freezes the pattern (as grown so far) and factorises I - h0 J(t, y) as the canonical
 * pivot order (once, from ac_transient_new); _canon restores that order when a run changed
 * it (at the start of every evaluation). No-ops for rkf45. AC_OK, AC_ENOMEM or AC_ENUMERIC. */
int ac_solver_tr_driver_fix(tr_driver *dr, double t, const double *y, double h0);
int ac_solver_tr_driver_canon(tr_driver *dr);
/* a kink of the drift at t: a multistep integrator restarts (_restart), rkf45 goes on */
int ac_solver_tr_driver_kink(tr_driver *dr, double t, const double *y, double h0);
int ac_solver_tr_driver_step(tr_driver *dr, double t_stop, double *t, double *y);
/* the state at t inside the last step (the integrator's own interpolant, of its order) into
 * out (NULL: only whether there is one); AC_EINVAL when the integrator has none (rkf45: the
 * caller interpolates) */
int ac_solver_tr_driver_dense(tr_driver *dr, double t, double *out);
int ac_solver_tr_driver_advance(tr_driver *dr, double t_end, size_t max_steps, double *t,
                                double *y);

/* transient_autoscale.c: the HPA-like scalers of the autoscaled pools. */
int ac_solver_tr_scalers_init(tr_ctx *c, ac_transient *tr);
void ac_solver_tr_scalers_reset(tr_ctx *c, ac_transient *tr);
void ac_solver_tr_scalers_free(tr_ctx *c);
int ac_solver_tr_scaler_events(tr_ctx *c, ac_transient *tr, double t, double *y, int *changed,
                               ac_error *err);
double ac_solver_tr_scaler_next(const tr_ctx *c);

/* transient_faults.c: the fault plan's events. */
int ac_solver_tr_faults_init(tr_ctx *c, ac_error *err);
int ac_solver_tr_faults_set(tr_ctx *c, const ac_transient_plan *plan, double horizon,
                            ac_error *err);
void ac_solver_tr_faults_reset(tr_ctx *c);
int ac_solver_tr_faults_apply(tr_ctx *c, ac_transient *tr, double t, double *y, int *changed,
                              ac_error *err);
double ac_solver_tr_faults_next(const tr_ctx *c);
/* link l's capacity (jobs/s) and latency (s) under the plan at t */
void ac_solver_tr_link_faults_at(const tr_ctx *c, size_t l, double t, double *cap, double *lat);
void ac_solver_tr_pool_set_mu(tr_pool *tp, double mu);

/* transient_metrics.c: the objective's metrics (the laws at each sample, the summaries). */
int ac_solver_tr_metrics_init(const tr_ctx *c, ac_transient *tr);
void ac_solver_tr_metrics_free(ac_transient *tr);
size_t ac_solver_tr_metrics_arrays(ac_transient *tr, double **arrays);
void ac_solver_tr_metrics_record(const tr_ctx *c, ac_transient *tr, size_t s, const double *y);
void ac_solver_tr_metrics_finish(const tr_ctx *c, ac_transient *tr);
double ac_solver_tr_oldest_age(const double *t, size_t ns, const double *left, const double *n,
                               double rate0);

/* transient_link.c: the links. _setup (after the routes, before the coupling) maps the
 * routes to the fluid links and builds their tables; _layout (after the other states)
 * places their states and Jacobian columns; _outflow pushes their outflows (their own
 * state) on, after the nodes' own; _drift their rows of f; _apply their capacity and
 * latency under the plan at t; _record a sample; _finish the pure delays and the notes. */
int ac_solver_tr_links_setup(tr_ctx *c, ac_error *err);
int ac_solver_tr_links_layout(tr_ctx *c, ac_error *err);
void ac_solver_tr_links_free(tr_ctx *c);
void ac_solver_tr_links_outflow(tr_ctx *c, const double *y, const double *yd);
void ac_solver_tr_links_drift(tr_ctx *c, const double *y, const double *yd, double *dy,
                              int tangent);
double ac_solver_tr_links_residual(const tr_ctx *c, const double *f);
void ac_solver_tr_links_zero(const tr_ctx *c, double *y);
void ac_solver_tr_links_record(const tr_ctx *c, ac_transient *tr, size_t s, const double *y);
void ac_solver_tr_links_finish(const tr_ctx *c, ac_transient *tr);

/* transient_prewarm.c: the pre-warming pings. */
void ac_solver_tr_prewarm_events(tr_ctx *c, double t, double *y, int *changed);
double ac_solver_tr_prewarm_next(const tr_ctx *c);

#endif
