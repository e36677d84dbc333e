/*
 * archcheck: steady-state models of the serverless stages (doc/models.md §5, with the
 * semantics of doc/serverless.md): functions, queues and gateways.
 *
 * Every result is a plain struct filled by a _solve function; the numbers are for Poisson
 * arrivals at the rate given, in SI units (seconds, per second, fractions). Each result
 * names its approximation and a stated relative error, as the pool solver's do.
 */
#ifndef ARCHCHECK_SERVERLESS_H
#define ARCHCHECK_SERVERLESS_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Erlang's loss formula B(c, a): the blocking probability of c servers offered a Erlangs
 * (M/G/c/c, insensitive to the holding-time law), by the stable recursion
 * 1 / B(k) = 1 + (k / a) / B(k-1) (positive terms; the same values as
 * B(k) = a B(k-1) / (k + a B(k-1)) to ~1e-14 relative). O(c). 1 when c = 0; 0 when a <= 0. */
double ac_solver_erlang_b(size_t servers, double load);

/* Erlang's delay formula C(c, a): the probability that an arrival waits in M/M/c;
 * 1 when a >= c. */
double ac_solver_erlang_c(size_t servers, double load);

/* How a function is invoked (doc/serverless.md). */
typedef enum ac_solver_fn_mode {
    AC_SOLVER_FN_SYNC = 0, /* throttled attempts fail; failed ones are retried at once */
    AC_SOLVER_FN_ASYNC,    /* attempts wait in an internal queue; retries after back-off */
    AC_SOLVER_FN_POLLED    /* fed by a <queue>: the queue holds the wait and the retries */
} ac_solver_fn_mode;

/* The number of retry delays a function's response law carries (sync or async retries;
 * further retries share the last slot's weight). */
#define AC_SOLVER_FN_MAX_TRIES 16

typedef struct ac_solver_function_result {
    ac_solver_fn_mode mode;
    size_t concurrency;          /* C */
    double arrival_rate;         /* requests (first attempts) per second */
    double execution_rate;       /* executions per second, retries included */
    double occupancy;            /* s, mean instance time of one execution (cold starts incl.) */
    double occupancy_scv;        /* its squared coefficient of variation */
    double load;                 /* Erlangs offered: arrivals x mean holding time */
    double execution_failure;    /* per execution: fail-prob or timeout */
    double cold_probability;     /* per execution: started on a new instance */
    double cold_request;         /* per request: its time includes one cold start */
    double cold_rel_error;       /* stated relative error of cold_probability: the width of
                                    the first-passage bracket (exponential passage from b, a
                                    lower value; quasi-stationary, an upper one), at least
                                    0.5; 0 without cold starts */
    double cold_start_rate;      /* new instances per second */
    double throttle_probability; /* per request (sync): concurrency or scale rate */
    double scale_throttle;       /* the part of it due to the scale rate (a conservative bound) */
    double loss_probability;     /* per request: throttled, or failed after every retry */
    double throttle_abs_error;   /* stated absolute error of throttle_probability (and of
                                    loss_probability): what the cold-start bracket and the
                                    scale-token bucket can add (sync), a fraction */
    double throughput;           /* requests per second that succeed */
    double busy;                 /* mean busy instances */
    double utilization;          /* busy / C */
    double wait_probability;     /* async: P(an attempt waits for a slot) */
    double mean_wait;            /* async: s */
    double mean_response_time;   /* s, first attempt to successful end (successful requests) */
    double p50, p95, p99;        /* s, of the same */
    int overload;                /* async or polled: load >= C, the backlog grows */
    ac_solver_approx approximation;
    double expected_rel_error; /* of the load-dependent numbers (throttle, busy, wait) */
    /* the response law: a mixture over the number i of failed attempts before the
       successful one, weight w[i]; sync and polled: the failed executions' times are
       convolved exactly (each theta with probability timeout_share, else X | X <= theta);
       async: they take shift[i] seconds (their mean times, waits and back-offs) */
    size_t ntries;
    double weight[AC_SOLVER_FN_MAX_TRIES], shift[AC_SOLVER_FN_MAX_TRIES];
    double cold_start;     /* s, c0 as used */
    double mean_execution; /* s, d as used */
    double timeout;        /* s */
    double wait_rate;      /* async: rate of the exponential wait, 1/s */
    double timeout_share;  /* of the failed executions, the share that timed out */
} ac_solver_function_result;

/*
 * The steady state of function `fn` (with its mitigation fields) offered `arrival_rate`
 * requests per second (polled: executions per second, redeliveries included), invoked as
 * `mode`. `delay` (s, >= 0) is added to the mean execution time (a fault).
 *
 * Sync: a throttled attempt's immediate retries meet the same full function and are
 * throttled too, and a failed execution's retry reuses the instance it freed, so the busy
 * count is an M/G/C/C loss system whose customers hold an instance for all their
 * executions: throttling is Erlang-B B(C, lambda E[hold]), exact by insensitivity.
 * Async: M/G/C with the Lee-Longton correction (1 + scv) / 2 of the Erlang-C wait.
 * Cold starts: see doc/serverless.md (most-recently-used reuse, fixed keep-alive).
 * Returns 0 or AC_EINVAL (negative rate or delay) with *out filled.
 */
int ac_solver_function_solve(const ac_function *fn, double arrival_rate, ac_solver_fn_mode mode,
                             double delay, ac_solver_function_result *out, ac_error *err);

/* A polled function (AC_SOLVER_FN_POLLED) offered `executions` per second, of which the share
 * `fresh` (0..1) starts when a message arrives to a free consumer; the others start as an
 * execution of the same queue ends, on the instance it frees, and are never cold (an
 * M/M/c queue: fresh = 1 - P(wait); one consumer: (1 - rho) e^{-lambda tau}, exact for
 * M/G/1). Returns as ac_solver_function_solve. */
int ac_solver_function_solve_polled(const ac_function *fn, double executions, double fresh,
                                    ac_solver_function_result *out, ac_error *err);

/* P(T <= t) for the time a successful request spends at the function (s). */
double ac_solver_function_cdf(const ac_solver_function_result *r, double t);

typedef struct ac_solver_gateway_result {
    double arrival_rate;       /* requests per second */
    double rate_limit;         /* per second (INFINITY: unbounded) */
    size_t bucket;             /* tokens, max(burst, 1) */
    double load;               /* arrival_rate / rate_limit */
    double reject_probability; /* 429s: M/D/1/K blocking */
    double throughput;         /* admitted per second */
    double utilization;        /* admitted / rate_limit */
    double mean_deficit;       /* mean tokens missing from the bucket */
    int bound;                 /* 1: the bucket was truncated (a very deep one): the
                                  rejection is an upper bound, stated as the error */
    ac_solver_approx approximation;
    double expected_abs_error; /* of reject_probability */
} ac_solver_gateway_result;

/* The steady state of a token-bucket gateway under Poisson arrivals (doc/serverless.md:
 * exactly the M/D/1/K queue with service 1/r and K = max(burst, 1)). `capacity_loss` in
 * [0, 1) scales the rate limit down (a fault). Returns 0 or AC_EINVAL. */
int ac_solver_gateway_solve(const ac_gateway *gw, double arrival_rate, double capacity_loss,
                            ac_solver_gateway_result *out, ac_error *err);

/* The consumer of a queue: one function reached by one route. */
typedef struct ac_solver_queue_consumer {
    const ac_function *function;
    size_t fanout;           /* executions per delivered batch */
    double cold_probability; /* per execution, from the function's own solution (or 0) */
    double delay;            /* s, added to the execution time (a fault) */
    double cold_rel_error;   /* stated relative error of cold_probability (or 0) */
} ac_solver_queue_consumer;

typedef struct ac_solver_queue_result {
    double arrival_rate;            /* messages per second */
    size_t slots;                   /* c = min(max-consumers, the consumer's concurrency) */
    double delivery_failure;        /* a delivery fails: an execution fails or outlasts V */
    double receives;                /* mean deliveries per admitted message */
    double execution_rate;          /* consumer executions per second */
    double mean_batch;              /* messages per execution (greedy batches of min(b, visible)) */
    double load;                    /* Erlangs of consumer executions (batches of one) */
    double utilization;             /* load / slots */
    double reject_probability;      /* capacity full */
    double dead_letter_probability; /* of an admitted message: R failed deliveries */
    double loss_probability;        /* rejected or dead-lettered */
    double throughput;              /* messages delivered successfully (deleted) per second:
                                       arrival_rate (1 - loss_probability) (output.md) */
    double receive_rate;            /* messages handed to the consumer per second, redeliveries
                                       included: the flow along the consumer route */
    double mean_messages;           /* held, waiting (visible) and in flight */
    double wait_probability;        /* a message waits for a slot */
    double mean_wait;               /* s, arrival to the successful delivery's receive */
    double p50, p95, p99;           /* s, of the same */
    int overload;                   /* even full batches cannot keep up: the backlog grows */
    int batching;                   /* batches of one cannot keep up but full batches can: the
                                       queue runs with a backlog (numbers approximate) */
    double visibility_timeout;      /* s */
    size_t max_receives;            /* R */
    double receive_wait;            /* s, the mean wait of one receive */
    /* the time-in-queue law: a mixture over the i failed receives before the successful
       one, weight[i], shifted by shift[i] (i visibility timeouts and waits) */
    size_t ntries;
    double weight[AC_SOLVER_FN_MAX_TRIES], shift[AC_SOLVER_FN_MAX_TRIES];
    double wait_scale; /* the M/G/c correction applied to the wait */
    ac_solver_approx approximation;
    double expected_rel_error;
    double erlang_c, wait_decay;        /* unbounded: the M/M/c wait law C e^{-decay t} (1/s) */
    ac_solver_pool_result *slots_model; /* a bounded queue: the M/M/c/K model of the slots
                                           (owned); NULL when unbounded */
} ac_solver_queue_result;

/*
 * The steady state of queue `q` offered `arrival_rate` messages per second and consumed by
 * `consumer` (doc/serverless.md: the consumer executions form a c-server queue, c =
 * min(max-consumers, concurrency), batches of one at light load). On success *out is filled
 * (release with ac_solver_queue_result_clear). Returns 0, AC_EINVAL, AC_ENOMEM, or the pool
 * solver's status.
 */
int ac_solver_queue_solve(const ac_queue *q, double arrival_rate,
                          const ac_solver_queue_consumer *consumer, const ac_solver_options *opt,
                          ac_solver_queue_result *out, ac_error *err);

/* The stated relative error of the times of polled function `fn` behind a fan-out of
 * `fanout` executions per delivery (fanout <= 1: 0): a successful execution counts only
 * while none of its siblings has failed (shorter ones are kept), and when the concurrency is
 * below `polled_cap` (its queues' max-consumers) the extra executions wait for instances. */
double ac_solver_queue_fanout_error(const ac_function *fn, size_t fanout, size_t polled_cap);

/* P(W <= t) for a message's time in the queue (s). */
double ac_solver_queue_cdf(const ac_solver_queue_result *r, double t);

/* Release what a queue result owns and zero it. NULL is a no-op. */
void ac_solver_queue_result_clear(ac_solver_queue_result *r);

/* The p-quantile (0 < p < 1) of a CDF on [0, inf) given by `cdf(ctx, t)`, by bisection,
 * into *out (s): exactly 0 when cdf(0) >= p (an atom at 0). Returns 0 or AC_ENUMERIC. */
int ac_solver_law_quantile(double (*cdf)(const void *ctx, double t), const void *ctx, double p,
                           double *out, ac_error *err);

#ifdef __cplusplus
}
#endif

#endif
