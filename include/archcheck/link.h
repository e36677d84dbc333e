/*
 * archcheck: the law of a <link> (spec/format.md; the simulator's semantics, sim.h).
 *
 * A link of capacity c is a FIFO single server transmitting each job in the fixed time
 * D = 1/c, with at most `buffer` jobs waiting (an arrival that finds buffer jobs waiting is
 * lost), followed by the fixed propagation delay `latency`: under Poisson arrivals an
 * M/D/1 queue (M/D/1/K with K = buffer + 1 in the system) and a pure delay. An unbounded
 * capacity is the pure delay alone.
 */
#ifndef ARCHCHECK_LINK_H
#define ARCHCHECK_LINK_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ac_solver_link_result {
    double arrival_rate;       /* jobs offered per second */
    double capacity;           /* jobs per second (INFINITY: a pure delay) */
    double latency;            /* s */
    size_t buffer;             /* most jobs waiting (AC_UNBOUNDED) */
    double load;               /* rho = arrival_rate / capacity */
    int overload;              /* rho >= 1 with an unbounded buffer: no steady state */
    double loss_probability;   /* arrivals finding the buffer full (M/D/1/K blocking) */
    double throughput;         /* jobs carried per second */
    double utilization;        /* fraction of time transmitting */
    double mean_wait;          /* s, before the transmission (accepted jobs) */
    double mean_response_time; /* s, wait + 1/c + latency */
    double mean_jobs;          /* waiting, transmitting or propagating */
    ac_solver_approx approximation;
    double expected_abs_error; /* of the CDF (rounding; the tail asymptote beyond the levels) */
    /* the law (owned): time-stationary P(N = n), n < nlevels, N jobs waiting or transmitting */
    double *level;
    size_t nlevels;
    double tail_rate; /* gamma of P(W > t) ~ tail_coef e^{-gamma t} (unbounded buffer) */
    double tail_coef;
    double tail_from; /* s: the wait law uses the asymptote beyond this (INFINITY: never) */
} ac_solver_link_result;

/* The steady state of `link` carrying Poisson arrivals at `arrival_rate` (jobs/s), its
 * capacity scaled by (1 - capacity_loss) (a fault; 0 for none). The levels are computed by
 * the level-crossing recursion of M/D/1 (all terms positive), at most AC_SOLVER_LINK_NMAX
 * of them. Returns 0; AC_EINVAL for an invalid rate; AC_ELIMIT when a bounded buffer deeper
 * than AC_SOLVER_LINK_NMAX is overloaded (not computed); AC_ENOMEM. Free with
 * ac_solver_link_result_clear (also after a failure). */
#define AC_SOLVER_LINK_NMAX 4096
int ac_solver_link_solve(const ac_link *link, double arrival_rate, double capacity_loss,
                         ac_solver_link_result *out, ac_error *err);

void ac_solver_link_result_clear(ac_solver_link_result *r);

/* P(W <= t) for the wait before the transmission of an accepted job (s). */
double ac_solver_link_wait_cdf(const ac_solver_link_result *r, double t);

/* P(T <= t) for the whole traversal T = W + 1/c + latency (s). */
double ac_solver_link_cdf(const ac_solver_link_result *r, double t);

#ifdef __cplusplus
}
#endif

#endif
