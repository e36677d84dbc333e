/*
 * Internal to solver/: the pool model, the dispatch-policy interface, linear algebra,
 * response-time laws. Nothing here is part of the public API (include/archcheck/solver.h).
 */
#ifndef AC_SOLVER_POOL_H
#define AC_SOLVER_POOL_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/serverless.h"
#include "archcheck/solver.h"

/* Largest state for dense linear algebra (eigenvalues, Newton, msbdf). */
#define AC_SOLVER_DENSE_MAX 1500
/* Largest state for the Lyapunov equation. */
#define AC_SOLVER_LYAP_MAX 400
/* Most levels for which a pool with retries is integrated (dense BDF: O(n^3) a step) and for
 * which the smallest tipping burst is searched (about a hundred integrations). */
#define AC_SOLVER_ODE_MAX   400
#define AC_SOLVER_BURST_MAX 100
/* Largest truncation of an unbounded buffer. */
#define AC_SOLVER_LEVELS_MAX 10000000

/*
 * A dispatch policy: the law a_k(q) by which an arrival joins a server holding k-1 jobs.
 * The generic model adds departures, timeouts and retries:
 *   f_k(q) = lambda S(P(q)) a_k(q) - mu (q_k - q_{k+1}).
 * A new policy is one new file defining one of these.
 */
typedef struct ac_solver_policy {
    const char *name;
    /* 1: servers are independent (the mean field is exact without retries) */
    int independent;
    /* a[k-1], k = 1..n: the law; returns the lost fraction 1 - sum_k a_k */
    double (*admit)(const ac_solver_pool_model *m, const double *q, double *a);
    /* da[(k-1) n + (j-1)] = d a_k / d q_j; da is zeroed by the caller */
    void (*admit_jacobian)(const ac_solver_pool_model *m, const double *q, double *da);
    /* h[k-1] = sum_ij d2 a_k / dq_i dq_j W_ij (W symmetric n x n); NULL: no refined mean field */
    void (*admit_hessian)(const ac_solver_pool_model *m, const double *q, const double *W,
                          double *h);
    /* b: the finite-N law is a + b/N + o(1/N); NULL when b = 0 */
    void (*admit_finite_n)(const ac_solver_pool_model *m, const double *q, double *b);
    /* q_k of the unbounded-buffer fixed point at per-server load rho < 1 */
    double (*closed_form)(const ac_solver_pool_model *m, double rho, size_t k);
    /* a whole drift and Jacobian replacing the generic ones (shared-queue); usually NULL */
    void (*drift)(const ac_solver_pool_model *m, const double *q, double *f);
    void (*jacobian)(const ac_solver_pool_model *m, const double *q, double *J);
} ac_solver_policy;

/* power-of-d's law with exponent m->d, shared with jsq (policy_pod.c). */
double ac_solver_pod_admit(const ac_solver_pool_model *m, const double *q, double *a);
void ac_solver_pod_admit_jacobian(const ac_solver_pool_model *m, const double *q, double *da);
double ac_solver_pod_closed_form(const ac_solver_pool_model *m, double rho, size_t k);

extern const ac_solver_policy ac_solver_policy_random;
extern const ac_solver_policy ac_solver_policy_power_of_d;
extern const ac_solver_policy ac_solver_policy_jsq;
extern const ac_solver_policy ac_solver_policy_jiq;
extern const ac_solver_policy ac_solver_policy_shared_queue;

struct ac_solver_pool_model {
    const ac_solver_policy *policy;
    size_t n;        /* state dimension */
    int real_buffer; /* 1: q_{n+1} = 0 is the buffer (losses are real); 0: a truncation */
    double servers;  /* N */
    double lambda;   /* per-server arrival rate of fresh requests, 1/s */
    double extra;    /* per-server extra arrival rate (bursts), 1/s */
    double mu;       /* service rate, 1/s */
    double d;        /* sampling exponent: power-of-d d, jsq/jiq N */
    int distinct;    /* power-of-d with distinct sampling */
    size_t retries;
    double theta;    /* timeout, s; 0: none */
    double buffer_x; /* shared-queue: most jobs per server, 1 + B/N (INFINITY: unbounded) */
    double *c;       /* c[k-1] = P(Erlang(k, mu) <= theta): joining level k, no timeout */
    double *a, *gp;  /* scratch: the law a_k, grad P */
};

/* Drift and Jacobian (model.c). */
void ac_solver_model_drift(ac_solver_pool_model *m, const double *q, double *f);
void ac_solver_model_jacobian(ac_solver_pool_model *m, const double *q, double *J);

/* The per-server arrival rate lambda_eff(q) = (lambda + extra) S(P(q)) and P(q); fills m->a. */
double ac_solver_model_rate(ac_solver_pool_model *m, const double *q, double *p_to, double *loss);

/* S(P) = sum_{i=0..r} P^i and its first two derivatives. */
void ac_solver_retry_sum(size_t r, double p, double *s, double *s1, double *s2);

/* Allocate a model of dimension n (policy, rates set by the caller). */
int ac_solver_model_alloc(size_t n, ac_solver_pool_model **out, ac_error *err);

/* Build the model of a pool (dim 0: automatic); *tail_out the truncation's dropped mass. */
int ac_solver_model_build(const ac_pool *pool, double arrival_rate, size_t dim,
                          const ac_solver_options *opt, ac_solver_pool_model **out,
                          double *tail_out, ac_error *err);

/* Linear algebra (linalg.c). Matrices row-major. */
int ac_solver_lu_solve(size_t n, double *A, double *b, ac_error *err);
/* T x = b, T tridiagonal (diagonal diag[n], upper up[n-1], lower low[n-1]; n > 1), into x
 * (GSL's elimination without pivoting); 0, or -1 when it fails or x is not finite. */
int ac_solver_tridiag(size_t n, double *diag, double *up, double *low, double *b, double *x);
/* A x = b into b for A (n x n) = T + u v^T with T tridiagonal: the Jacobian of a pool with
 * retries and I - h J (model.c). Sherman-Morrison on two tridiagonal solves, the residual
 * checked against 1e-10 (max|A| max|x| + max|b|). `work` holds AC_SOLVER_TR1_WORK(n) doubles;
 * A, u, v are read only. Returns 0, or AC_ENUMERIC (b untouched, err not set: the caller
 * falls back to dense LU) when A is singular or nearly, an elimination fails, or the
 * residual check fails. */
#define AC_SOLVER_TR1_WORK(n) (7 * (n))
int ac_solver_tr1(size_t n, const double *A, double *b, const double *u, const double *v,
                  double *work);
/* The same for A = T + u v^T given by its parts: T's diagonals diag[n], up[n-1], low[n-1]
 * (read only) and u, v; the residual max|T x + u (v.x) - b| checked in O(n) against 1e-10
 * ((max row sum of |T| + n max|u| max|v|) max|x| + max|b|). */
int ac_solver_tr1_parts(size_t n, double *diag, double *up, double *low, const double *u,
                        const double *v, double *b, double *work);
int ac_solver_eigen(size_t n, const double *J, double *max_re, double *max_im, double *min_re,
                    size_t *unstable, ac_error *err);
int ac_solver_lyapunov(size_t n, const double *J, const double *Q, double min_re, double max_re,
                       double *W, ac_error *err);
int ac_solver_is_pd(size_t n, const double *W, int *pd, ac_error *err);

/* The 1/N^2 term of the refined mean field (refined2.c, power-of-d without retries): at the
 * equilibrium q with Jacobian J (n x n), Lyapunov solution W (n x n, zero-padded) and 1/N
 * term V (J V = -F'':W/2 - f1), on the first ne levels: A[k] the 1/N^2 term of E[q_k] and
 * aa[k] that of the arrival law E[a_k] (both of length n, 0 beyond ne). Returns 0, 1 when
 * not computed (another policy, retries, complex eigenvalues, a Schur form that does not
 * reproduce J, a non-finite result), AC_ENOMEM. */
int ac_solver_refine2(const ac_solver_pool_model *m, const double *q, size_t ne, const double *J,
                      const double *W, const double *V, double *A, double *aa, ac_error *err);

/* Equilibrium search (equilibrium.c). q has dimension m->n. */
int ac_solver_newton(ac_solver_pool_model *m, double *q, double tol, ac_error *err);
int ac_solver_ptc(ac_solver_pool_model *m, double *q, const ac_solver_options *opt, ac_error *err);
int ac_solver_integrate(ac_solver_pool_model *m, double *q, double t_end,
                        const ac_solver_options *opt, ac_error *err);
int ac_solver_settle(ac_solver_pool_model *m, double *q, const ac_solver_options *opt,
                     ac_error *err);
/* Asked at the settle's start and after every chunk with the state reached; 1: stop there. */
typedef int (*ac_solver_settle_watch_fn)(void *ctx, const double *q);
int ac_solver_settle_watch(ac_solver_pool_model *m, double *q, const ac_solver_options *opt,
                           ac_solver_settle_watch_fn watch, void *ctx, ac_error *err);
/* The rank-one term of J(q) with retries, times `scale`, into u (J = T + u gP^T, gP in
 * m->gp after ac_solver_model_jacobian(m, q, .)): 1 when J has that form (random,
 * power-of-d, jsq with retries), else 0 (equilibrium.c). */
int ac_solver_rank_one_term(ac_solver_pool_model *m, const double *q, double scale, double *u);

/* The pool's flow by CVODE BDF with the tridiagonal + rank-one Newton solve (pool_ode.c):
 * _new (m borrowed; rtol, atol of opt) allocates everything; _start restarts at t = 0 from q
 * (after a change of the model's rates too); _advance integrates to t_end (s, from the last
 * time reached) and copies the state into q; _time is the last time reached. 0 or AC_ENOMEM
 * / AC_ENUMERIC (err set). */
typedef struct ac_solver_pool_ode ac_solver_pool_ode;
int ac_solver_pool_ode_new(ac_solver_pool_model *m, const ac_solver_options *opt,
                           ac_solver_pool_ode **out, ac_error *err);
int ac_solver_pool_ode_start(ac_solver_pool_ode *o, const double *q, ac_error *err);
int ac_solver_pool_ode_advance(ac_solver_pool_ode *o, double t_end, double *q, ac_error *err);
double ac_solver_pool_ode_time(const ac_solver_pool_ode *o);
void ac_solver_pool_ode_free(ac_solver_pool_ode *o);
/* ac_solver_integrate and ac_solver_settle_watch on `ode` (NULL: GSL msbdf). */
int ac_solver_integrate_ode(ac_solver_pool_model *m, double *q, double t_end,
                            const ac_solver_options *opt, ac_solver_pool_ode *ode, ac_error *err);
int ac_solver_settle_ode(ac_solver_pool_model *m, double *q, const ac_solver_options *opt,
                         ac_solver_pool_ode *ode, ac_solver_settle_watch_fn watch, void *ctx,
                         ac_error *err);

/* The burst search of a bistable pool (pool_burst.c): r->bursts, r->smallest_burst and
 * r->burst_budget_spent from r's good and bad equilibria; m->extra is 0 on return. 0 or
 * AC_ENOMEM / AC_ENUMERIC (an integration that failed). */
int ac_solver_burst_search(ac_solver_pool_model *m, const ac_solver_options *opt,
                           ac_solver_pool_result *r, ac_error *err);

/* Response-time laws (rtd.c). A mixture sum_m w_m Erlang(m, rate), m = 0..n-1 (Erlang(0) = 0). */
typedef struct ac_solver_mix {
    double rate; /* 1/s */
    size_t n;
    double *tail; /* tail[i] = sum_{m > i} w_m, i = 0..n-1 */
    double mean;  /* s */
    /* the unbounded M/M/N laws in closed form instead (ac_solver_mix_init_mmn; n = 0): 1 the
       wait, P(W > t) = C e^{-gamma t}; 2 the response, the wait plus an Exp(mu) service */
    int closed;
    double c, gamma, mu;
} ac_solver_mix;

/* The laws of one equilibrium: the wait W and the response T = W + service. */
struct ac_solver_rtd {
    ac_solver_mix wait, response;
};

int ac_solver_mix_init(ac_solver_mix *mx, double rate, const double *w, size_t n, ac_error *err);
/* The M/M/N wait (response = 0) or response (1) law in closed form: P(wait) C, the wait's
 * rate gamma = N mu - lambda > 0 (1/s), the service rate mu (1/s), `rate` N mu. */
void ac_solver_mix_init_mmn(ac_solver_mix *mx, double C, double gamma, double mu, double rate,
                            int response);
void ac_solver_mix_clear(ac_solver_mix *mx);
double ac_solver_mix_ccdf(const ac_solver_mix *mx, double t);
int ac_solver_mix_quantile(const ac_solver_mix *mx, double p, double *out, ac_error *err);
void ac_solver_rtd_free(ac_solver_rtd *r);
/* A pool queue's laws from the accepted law pi[k] (k jobs ahead, k = 0..n-1, rate mu). */
int ac_solver_rtd_queue(double mu, const double *pi, size_t n, ac_solver_rtd **out, ac_error *err);
/* P(Erlang(k, rate) <= t) for k = 1..n into out[k-1]. */
void ac_solver_erlang_cdf_levels(double rate, double t, size_t n, double *out);

/* Shared queue (policy_shared.c): exact M/M/N/N+B. */
int ac_solver_shared_solve(const ac_pool *pool, double arrival_rate, const ac_solver_options *opt,
                           ac_solver_pool_result *r, ac_error *err);

#endif
