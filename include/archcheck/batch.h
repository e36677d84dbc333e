/*
 * archcheck: batch arrivals at a pool (M^X/M/c FCFS), the law of a node behind a fan-out.
 *
 * The k jobs of a fan-out reach the next node at the same instant: the node sees a
 * compound Poisson stream (batches at rate lambda_b, sizes X), not a Poisson one. A
 * shared-queue pool of c servers is then M^X/M/c; a random-dispatch pool of N servers
 * splits each batch multinomially, so each server is M^X/M/1 with the thinned size law
 * X_s ~ Binomial(X, 1/N).
 */
#ifndef ARCHCHECK_BATCH_H
#define ARCHCHECK_BATCH_H

#include <stddef.h>

#include "archcheck/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ac_solver_batch_result {
    size_t servers;            /* c */
    double service_rate;       /* mu, per second */
    double batch_rate;         /* batches per second (size 0 allowed) */
    double mean_batch;         /* E[X] */
    double load;               /* lambda_b E[X] / (c mu) */
    int overload;              /* load >= 1 */
    double mean_jobs;          /* in the system (all c servers) */
    double mean_response_time; /* s, Little: mean_jobs / (lambda_b E[X]) */
    double expected_abs_error; /* of the CCDF: the truncation of the levels */
    /* the law (owned): P(M = m) for the jobs ahead of a random job at its arrival (in the
       system plus ahead of it in its own batch, FCFS within the batch in random order) */
    double *ahead;
    size_t nahead;
    double *coef; /* the CCDF's Poisson coefficients (owned; see batch.c) */
    size_t ncoef;
    double head;
} ac_solver_batch_result;

/* The size law of a binomial thinning: out[x] = sum_k pmf[k] Bin(x; k, 1/n), x < nsize
 * (out has nsize entries; n >= 1). */
void ac_solver_batch_thin(const double *pmf, size_t nsize, size_t n, double *out);

/* Solve M^X/M/c FCFS with batches at `batch_rate` of size law pmf[0..nsize-1] (pmf[x] =
 * P(X = x), summing to 1). The levels come from the level-crossing recursion
 *     min(n + 1, c) mu p_{n+1} = lambda_b sum_{j<=n} p_j P(X > n - j)
 * (positive terms), truncated where the mass left is below 1e-14 (at most
 * AC_SOLVER_BATCH_NMAX levels: AC_ELIMIT beyond). Returns 0, AC_EINVAL, AC_ELIMIT or
 * AC_ENOMEM; an overloaded queue returns 0 with `overload` set. Free with
 * ac_solver_batch_result_clear (also after a failure). */
#define AC_SOLVER_BATCH_NMAX 200000
int ac_solver_batch_solve(size_t servers, double mu, double batch_rate, const double *pmf,
                          size_t nsize, ac_solver_batch_result *out, ac_error *err);

void ac_solver_batch_result_clear(ac_solver_batch_result *r);

/* P(T > t) for the response time of a random job (s): with m ahead, m < c: Exp(mu);
 * otherwise Erlang(m - c + 1, c mu) + Exp(mu). */
double ac_solver_batch_ccdf(const ac_solver_batch_result *r, double t);

#ifdef __cplusplus
}
#endif

#endif
