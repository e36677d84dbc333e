/*
 * archcheck: the steady-state solver of one server pool (doc/models.md sections 1-3).
 *
 * A pool of N identical exponential servers (rate mu) receives Poisson arrivals at a total
 * rate Lambda (jobs per second). Its dispatch policy decides which server an arrival joins:
 *
 *   random, power-of-d, jsq, jiq   one FCFS queue per server. The state is the mean-field
 *                                  vector q: q[k-1] = fraction of servers holding at least
 *                                  k jobs, k = 1..dim (q_0 = 1, q_{dim+1} = 0). Its ODE is
 *                                  dq_k/dt = Lambda_eff(q)/N * a_k(q) - mu (q_k - q_{k+1}),
 *                                  a_k(q) the probability that an arrival joins a server
 *                                  holding k-1 jobs (the policy's law, see below).
 *   shared-queue                   one FCFS queue for all N servers (M/M/N or M/M/N/N+B),
 *                                  solved exactly; its fluid state is x = n/N (dim 1),
 *                                  dx/dt = Lambda/N - mu min(x, 1).
 *
 * Policy laws (with q_0 = 1; "N" the number of servers):
 *   random      a_k = q_{k-1} - q_k                 (exact for any N: independent M/M/1/K)
 *   power-of-d  a_k = q_{k-1}^d - q_k^d             (both samplings; distinct sampling adds a
 *                                                    1/N drift term used by the refined mean field)
 *   jsq         a_k = q_{k-1}^N - q_k^N             (power-of-d with d = N: tends to the JSQ fluid
 *                                                    limit q_1 = rho, q_k = 0 for k >= 2)
 *   jiq         a_1 = 1 - q_1^N, a_k = q_1^(N-1) (q_{k-1} - q_k) for k >= 2
 *                                                   (idle server if any, else random; q_1^N is
 *                                                    the chance that no server is idle when servers
 *                                                    are busy independently; tends to q_1 =
 * min(rho, 1))
 *
 * Timeouts and retries (section 3): with timeout theta and r retries, the probability that a
 * request copy is lost or times out is P_to(q) = sum_k a_k P(Erlang(k, mu) > theta) + P(lost),
 * and Lambda_eff(q) = Lambda * sum_{i=0..r} P_to(q)^i.
 *
 * Units: seconds, jobs per second; probabilities in [0, 1]. All functions return 0 or a
 * negative AC_E* status (error.h) and then fill `err` (which may be NULL).
 */
#ifndef ARCHCHECK_SOLVER_H
#define ARCHCHECK_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "archcheck/error.h"
#include "archcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a number comes from. */
typedef enum ac_solver_approx {
    AC_SOLVER_APPROX_EXACT = 0,  /* closed form or exact Markov chain */
    AC_SOLVER_APPROX_MEAN_FIELD, /* the N -> infinity fixed point */
    AC_SOLVER_APPROX_REFINED,    /* mean field + 1/N term (Gast and Van Houdt 2017) */
    AC_SOLVER_APPROX_FLUID,      /* fluid limit (transients of a shared queue) */
    AC_SOLVER_APPROX_SIMULATION  /* the simulator's estimate (analysis: jsq and jiq at finite
                                    N); its stated error is the 95% half-width, relative */
} ac_solver_approx;

/* "exact", "mean-field", "refined", "fluid" or "simulation" (the names of doc/archcheck.1).
 * Never NULL. */
const char *ac_solver_approx_name(ac_solver_approx approx);

/* When the headline numbers use the refined mean field. */
typedef enum ac_solver_refine {
    AC_SOLVER_REFINE_AUTO = 0, /* whenever it is computed: the policy has one and the state's
                                  levels with mass fit the Lyapunov limit (400); its stated
                                  error is then smaller than the mean field's */
    AC_SOLVER_REFINE_NEVER,
    AC_SOLVER_REFINE_ALWAYS /* the same as AUTO */
} ac_solver_refine;

typedef struct ac_solver_options {
    double tail_tolerance;     /* truncation of an unbounded (or long) buffer: the dropped mass
                                  sum_{k>K} q_k stays below this; default 1e-12 */
    double residual_tolerance; /* Newton stops when max_k |f_k(q)| <= this * (lambda + mu)
                                  (per-server rates); default 1e-13 */
    double rtol, atol;         /* integration tolerances (CVODE BDF for pools with retries,
                                  GSL msbdf elsewhere); default 1e-8, 1e-11 */
    double max_time;           /* integration horizon before giving up, in units of 1/mu;
                                  default 1e6 */
    ac_solver_refine refine;   /* default AUTO */
    size_t refine_below;       /* unused (AUTO used to mean below this many servers);
                                  default 100 */
    int all_starts;            /* 1: integrate from empty and full even when the equilibrium is
                                  provably unique (no retries); default 0 */
    int burst_search;          /* 1: find the smallest burst that tips a bistable pool; default 1 */
    size_t burst_probes;       /* the burst search's work budget in probes (each an integration of
                                  the burst and a settle, within max_time); 0: the default, 96 (4
                                  sizes, each 15 doublings and 9 halvings at most) */
    int burst_cold;            /* 1: every burst probe integrates from the good equilibrium and
                                  settles to its limit (the reference the default search, which
                                  shares work between probes, is tested against); default 0 */
    int kpi_only;              /* 1: without retries, skip the eigenvalues and the Lyapunov equation
                                  unless the refined mean field needs them (the equilibrium is then
                                  unique and stable; max_real_eigenvalue is NAN); for repeated probes
                                  such as the headroom search. Default 0 */
    /* Warm starts (borrowed; NULL, the default: none), used when the pool's state has
       start_dim levels: the search from empty (implicit Euler or the integration) starts at
       start_low instead of 0, the one from full at start_high instead of 1. start_low must lie
       below the least equilibrium with a drift >= 0 at every level, start_high above the
       greatest with a drift <= 0: the least (greatest) equilibrium of the same pool at a lower
       (higher) arrival rate, as the drift grows with the rate. The flow is cooperative, so it
       reaches the same limits as from empty and from full (within the Newton tolerance). */
    const double *start_low, *start_high;
    size_t start_dim;
} ac_solver_options;

/* Fill `opt` with the defaults above. */
void ac_solver_options_init(ac_solver_options *opt);

/* The numbers at one equilibrium. Rates are for the whole pool. */
typedef struct ac_solver_kpi {
    double mean_jobs;               /* per server (E[L] = sum_k q_k) */
    double throughput;              /* jobs completed per second, pool (N mu q_1) */
    double utilization;             /* busy fraction of the servers, q_1 */
    double loss_probability;        /* fraction of arriving copies lost to a full buffer */
    double mean_response_time;      /* s, of an accepted copy (Little: E[L] / (mu q_1)) */
    double wait_probability;        /* an accepted copy waits before service */
    double mean_wait;               /* s */
    double p50, p95, p99;           /* s, response-time percentiles of an accepted copy */
    double timeout_fraction;        /* P_to: copies that time out or are lost (0 without timeout and
                                       without loss) */
    double effective_arrival_rate;  /* jobs/s including retries, pool */
    ac_solver_approx approximation; /* of every number above */
    double expected_rel_error; /* expected relative error of mean_jobs against the finite-N pool
                                  (0 for exact; see ac_solver_pool_solve) */
} ac_solver_kpi;

/* Where an equilibrium was found from (bit mask). */
enum {
    AC_SOLVER_FROM_EMPTY = 1,
    AC_SOLVER_FROM_FULL = 2,
    AC_SOLVER_FROM_CLOSED_FORM = 4,
    AC_SOLVER_FROM_BETWEEN = 8 /* Newton between two stable equilibria (a saddle) */
};

/* Opaque: a response-time law (a mixture of Erlang laws), owned by the result. */
typedef struct ac_solver_rtd ac_solver_rtd;

typedef struct ac_solver_equilibrium {
    double *q; /* q[k-1], k = 1..dim (shared-queue: dim 1, the fluid state n/N) */
    size_t dim;
    unsigned found_from;         /* AC_SOLVER_FROM_* bits */
    int stable;                  /* every eigenvalue of the Jacobian has a negative real part */
    double max_real_eigenvalue;  /* 1/s, the slowest decay rate (largest real part) */
    double max_eigenvalue_imag;  /* its imaginary part */
    size_t unstable_eigenvalues; /* count with a positive real part */
    double relaxation_time;      /* s, -1/max_real_eigenvalue; INFINITY if not stable */
    int lyapunov_solved;         /* 1 when J S + S J^T + Q = 0 was solved */
    int lyapunov_pd;             /* 1 when its solution S is positive definite */
    double mean_jobs_std;        /* std of the mean jobs per server at N servers,
                                    sqrt(1^T S 1 / N) (NAN when not solved) */
    ac_solver_kpi mean_field;    /* at q (approximation exact or mean-field) */
    int has_refined;
    ac_solver_kpi refined;           /* mean field + 1/N (+ 1/N^2 when refined_order is 2) */
    int refined_order;               /* 1 or 2: the order of `refined` (0 without) */
    double mean_jobs_v, mean_jobs_a; /* E[L] = mean field + v/N + a/N^2 + ...: the 1/N and
                                        1/N^2 coefficients (a NAN when not computed) */
    ac_solver_rtd *rtd; /* response law at q (refined law when refined is the headline) */
} ac_solver_equilibrium;

/* A burst: extra_rate jobs/s added to the pool's arrivals for `duration` seconds. */
typedef struct ac_solver_burst {
    double extra_rate; /* jobs/s, pool */
    double duration;   /* s, the shortest that tips the pool; INFINITY when none does */
    double jobs;       /* extra_rate * duration: the burst's size in jobs */
} ac_solver_burst;

typedef struct ac_solver_pool_result {
    ac_dispatch dispatch;
    size_t servers;
    double arrival_rate; /* jobs/s, pool (as given) */
    double service_rate; /* per server */
    double load;         /* rho = arrival_rate / (servers * service_rate) */
    int overload;        /* 1: rho >= 1 with an unbounded buffer; no equilibrium exists and
                            nequilibria = 0 (the queues grow without bound) */
    size_t buffer;       /* as in ac_pool (AC_UNBOUNDED possible) */
    size_t truncation;   /* levels K of the state actually solved */
    double tail_mass;    /* bound on the dropped mass sum_{k>K} q_k (0 when K = buffer) */
    int unique;          /* 1: the equilibrium is provably unique (no retries: the flux
                            equations have one solution) */

    ac_solver_equilibrium *equilibria; /* stable ones first, by mean jobs */
    size_t nequilibria;
    size_t operating; /* index of the equilibrium reached from empty */

    ac_solver_kpi kpi; /* the headline numbers: the operating equilibrium, refined or not */

    int bistable;            /* two stable equilibria: a metastable failure mode */
    size_t good, bad;        /* their indices (bistable) */
    int burst_searched;      /* 1 when the bursts were searched (bistable, burst_search, and at
                                most 100 levels: each probe integrates the ODE) */
    ac_solver_burst *bursts; /* tried burst sizes (bistable and burst_searched) */
    size_t nbursts;
    ac_solver_burst smallest_burst; /* the one with the fewest jobs (duration INFINITY if none) */
    int burst_budget_spent;         /* 1: the burst search stopped at its probe budget (the sizes
                                       not reached have duration INFINITY) */
} ac_solver_pool_result;

/*
 * Solve the steady state of `pool` under a total arrival rate `arrival_rate` (jobs/s, >= 0).
 *
 * Method: an unbounded buffer is truncated at the smallest K whose closed-form tail mass is
 * below opt->tail_tolerance (also a finite buffer longer than that); rho >= 1 with an unbounded
 * buffer is reported as overload without integrating. Without retries the equilibrium is
 * unique (flux equations) and is found by Newton from the closed form (power-of-d and jsq
 * below rho = 1), else by implicit Euler with growing steps from empty (also with
 * opt->all_starts, then from full too); with retries the ODE is integrated (CVODE BDF, analytic
 * Jacobian) from empty and from full (which bracket every equilibrium, the system being
 * cooperative), each limit polished by Newton. For each equilibrium: eigenvalues of J,
 * the Lyapunov equation J S + S J^T + Q = 0, the KPIs, the refined mean field
 * q + V/N with J V = -1/2 sum_ij d2f/dq_i dq_j S_ij - g (power-of-d and random only), and
 * for power-of-d without retries its 1/N^2 term A (Gast, Bortolussi, Tribastone 2019;
 * doc/models.md section 2), used where |A|/N^2 <= |V|/(2N) in the mean jobs.
 *
 * Headline approximation: exact for random without retries and for shared-queue without
 * retries; refined whenever it is computed (unless opt->refine is NEVER); else mean-field.
 * With t1 = |sum V|/(N mf), t2 = |sum A|/(N^2 mf) (mf the mean field's mean jobs),
 * expected_rel_error is 4 t2^2/t1 for the second-order numbers, max(4 t1^2, t2) for the
 * first-order ones (t2 = 0 where the 1/N^2 term is not computed; the constants measured
 * against the simulator by bench/bench_refined.c), and the gap to the refined value plus
 * that for the mean field; for jsq/jiq the gap to the M/M/N lower bound.
 *
 * `opt` may be NULL (defaults). On success *out owns a new result (free it with
 * ac_solver_pool_result_free). Returns 0, AC_EINVAL (bad parameters), AC_ENOMEM,
 * AC_ENUMERIC (no convergence) or AC_ELIMIT (state too large: more than 10^7 levels, or
 * a dense analysis above 1500 levels).
 */
int ac_solver_pool_solve(const ac_pool *pool, double arrival_rate, const ac_solver_options *opt,
                         ac_solver_pool_result **out, ac_error *err);

/*
 * The operating equilibrium of `pool` alone: the state q (q[k-1] = the fraction of servers
 * holding at least k jobs, k = 1..*dim_out; shared-queue: dim 1, the fluid state n/N) that
 * ac_solver_pool_solve(pool, arrival_rate, opt) reports as equilibria[operating].q, bit for
 * bit, found by the same search (its truncation, Newton from the closed form or implicit
 * Euler without retries, the integration from empty with retries) without the eigenvalues,
 * the Lyapunov equation, the refined mean field, the KPIs, the response-time laws, the other
 * equilibria (with retries: the limit from full and the saddle) or the burst search.
 * opt->all_starts is ignored (treated as 0: the equilibrium without retries is unique, the
 * operating one is the first found); the full solve with all_starts finds the same q unless
 * its starts meet distinct equilibria. opt may be NULL (defaults).
 * On success *q_out is a new array of *dim_out doubles (free() it); an unbounded buffer at
 * rho >= 1 (overload, no equilibrium) gives 0 with *q_out NULL and *dim_out 0. Returns 0 or
 * the error ac_solver_pool_solve would return (AC_EINVAL, AC_ENOMEM, AC_ENUMERIC, AC_ELIMIT).
 */
int ac_solver_pool_equilibrium(const ac_pool *pool, double arrival_rate,
                               const ac_solver_options *opt, double **q_out, size_t *dim_out,
                               ac_error *err);

/*
 * The onset of bistability below a bistable solution, for searches over the load: `result`
 * is ac_solver_pool_solve's solution of `pool` at result->arrival_rate with two stable
 * equilibria (result->bistable). Its bad equilibrium's branch is followed down in the
 * arrival rate to the fold where it meets the saddle and ends: bisection on the rate x in
 * [0, result->arrival_rate], a rate counting as bistable when Newton from the equilibrium
 * found at the lowest bistable rate so far converges to one above the good equilibrium of
 * `result` by more than 1e-6 at some level (the least equilibrium grows with the rate, so that
 * one is not the least at x), until the bracket's width is rel_tol (>= 1e-12) of its upper
 * end, which goes into *out (jobs/s, pool: the least rate seen bistable).
 * An estimate, not a proof: Newton can lose the branch close to the fold (the estimate is
 * then high), and a bistable range further below is not seen; callers verify by solving at
 * the estimate. A few tens of Newton solves of the pool's state, no integration.
 * Returns 0, AC_EINVAL (result not bistable, or of another pool), AC_ENOMEM.
 */
int ac_solver_pool_bistable_onset(const ac_pool *pool, const ac_solver_pool_result *result,
                                  double rel_tol, double *out, ac_error *err);

/* Free a result. NULL is a no-op. */
void ac_solver_pool_result_free(ac_solver_pool_result *result);

/* P(T > t) for the response time T (s) of an accepted job at equilibrium `eq` (t >= 0, s).
 * NAN when eq is out of range. */
double ac_solver_pool_ccdf(const ac_solver_pool_result *result, size_t eq, double t);

/* P(W > t) for the waiting time W (s) before service at equilibrium `eq`. */
double ac_solver_pool_wait_ccdf(const ac_solver_pool_result *result, size_t eq, double t);

/* The response-time law of equilibrium `eq`, compared exactly, for sharing the work of
 * identical laws (analysis' end-to-end lattice): ac_solver_pool_law_equal is 1 when the laws
 * of (a, ea) and (b, eb) are the same value for value (rate, Erlang tail weights, or the
 * closed M/M/N parameters), 0 otherwise or when either has none (NULL, eq out of range, no
 * law); ac_solver_pool_law_hash is a hash of the law, equal for equal laws (0 without one). */
int ac_solver_pool_law_equal(const ac_solver_pool_result *a, size_t ea,
                             const ac_solver_pool_result *b, size_t eb);
uint64_t ac_solver_pool_law_hash(const ac_solver_pool_result *result, size_t eq);

/* The p-quantile (0 < p < 1) of the response time (wait = 0) or the waiting time (wait = 1)
 * at equilibrium `eq`, in s, into *out. Returns 0 or AC_EINVAL / AC_ENUMERIC. */
int ac_solver_pool_quantile(const ac_solver_pool_result *result, size_t eq, double p, int wait,
                            double *out, ac_error *err);

/*
 * The pool's ODE on plain arrays, for transient integration (one pool's block of a network).
 * The model holds scratch space: use one model per thread.
 */
typedef struct ac_solver_pool_model ac_solver_pool_model;

/* A model of `pool` at total arrival rate `arrival_rate` (jobs/s) with `dim` levels (0: the
 * automatic truncation of ac_solver_pool_solve; a finite buffer caps dim). */
int ac_solver_pool_model_new(const ac_pool *pool, double arrival_rate, size_t dim,
                             ac_solver_pool_model **out, ac_error *err);
void ac_solver_pool_model_free(ac_solver_pool_model *model);

/* The state dimension. */
size_t ac_solver_pool_model_dim(const ac_solver_pool_model *model);

/* Change the total arrival rate (jobs/s, >= 0), e.g. for a time-varying profile. */
void ac_solver_pool_model_set_arrival_rate(ac_solver_pool_model *model, double arrival_rate);

/* out[k] = dq_k/dt at q (both of length dim), 1/s. */
void ac_solver_pool_model_drift(ac_solver_pool_model *model, const double *q, double *out);

/* out[i*dim + j] = d f_i / d q_j at q (row-major dim x dim), 1/s. */
void ac_solver_pool_model_jacobian(ac_solver_pool_model *model, const double *q, double *out);

/* The departure rate of the pool at q, jobs/s (N mu q_1): the flow routed downstream. */
double ac_solver_pool_model_departures(const ac_solver_pool_model *model, const double *q);

/*
 * Network shape helpers (solver/shape.c), shared by the steady state and the transient.
 *
 * The consumer route of queue node `i` of `model`: its only route, with p = 1, no fan-in
 * and not parallel, to a function; NULL when the queue has another shape.
 */
const ac_route *ac_solver_queue_consumer_route(const ac_model *model, size_t i);

/*
 * The steady-state count of an autoscaled pool at a constant offered rate (jobs/s): the
 * scaler's iteration from the starting count, N <- clamp(ceil(N u(N) / target)) while
 * |u / target - 1| > tolerance, with the fluid utilisation u(N) = min(1, rate / (N mu))
 * (exact for a pool that loses nothing and has no retries). The starting count for a pool
 * without <autoscale>. Stops at a fixed point or after 1000 iterations.
 */
size_t ac_solver_autoscale_steady(const ac_pool *pool, double arrival_rate);

#ifdef __cplusplus
}
#endif

#endif
