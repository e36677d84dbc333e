/*
 * Benchmark: the equilibrium solve of a power-of-two pool against the seed reference
 * (scipy solve_ivp BDF, rtol 1e-7, atol 1e-9, T = 300, from empty), on the same machine in
 * one run, both checked against the closed form q_k = rho^(2^k - 1).
 *
 * usage: bench_pool PYTHON REF_SCIPY_PY
 * Floors: archcheck >= 100x faster at equal or better accuracy; a 1000-server pool with a
 * buffer of 200 solved in under 5 ms. Exit status 1 when a floor is missed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "archcheck/solver.h"

#define KBUF 30
#define RHO 0.9

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median wall time of one full ac_solver_pool_solve (equilibria, eigenvalues, Lyapunov,
 * refined mean field, KPIs, percentiles), over at least 0.3 s of repetitions. */
static double time_solve(const ac_pool *pool, double rate, ac_solver_pool_result **keep)
{
    double times[4096], start = now();
    size_t n = 0;
    while (n < 4096 && (n < 20 || now() - start < 0.3)) {
        ac_solver_pool_result *r = NULL;
        ac_error err = {0};
        double t0 = now();
        if (ac_solver_pool_solve(pool, rate, NULL, &r, &err) != 0) {
            fprintf(stderr, "bench: solve failed: %s\n", err.message);
            exit(2);
        }
        times[n++] = now() - t0;
        if (keep != NULL && *keep == NULL)
            *keep = r;
        else
            ac_solver_pool_result_free(r);
    }
    qsort(times, n, sizeof times[0], cmp_double);
    return times[n / 2];
}

static double closed_form(size_t k)
{
    return pow(RHO, pow(2.0, (double)k) - 1.0);
}

/* max_k |q_k - closed form| over k = 1..KBUF (levels beyond a truncation count as 0) */
static double max_error(const double *q, size_t n)
{
    double e = 0.0;
    size_t k;
    for (k = 1; k <= KBUF; k++)
        e = fmax(e, fabs((k <= n ? q[k - 1] : 0.0) - closed_form(k)));
    return e;
}

static double mean_jobs_error(const double *q, size_t n)
{
    double s = 0.0, c = 0.0;
    size_t k;
    for (k = 1; k <= KBUF; k++) {
        s += k <= n ? q[k - 1] : 0.0;
        c += closed_form(k);
    }
    return fabs(s - c);
}

/* Run the Python reference; fills its time and q (KBUF values). */
static int run_python(const char *python, const char *script, double *seconds, double *q)
{
    char cmd[2048], line[65536];
    FILE *f;
    int got = 0;
    snprintf(cmd, sizeof cmd, "%s %s %.17g 2 %d 300 5", python, script, RHO, KBUF);
    f = popen(cmd, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "seconds ", 8) == 0) {
            *seconds = strtod(line + 8, NULL);
            got |= 1;
        } else if (strncmp(line, "q ", 2) == 0) {
            char *p = line + 2, *end;
            size_t k;
            for (k = 0; k < KBUF; k++) {
                q[k] = strtod(p, &end);
                if (end == p)
                    break;
                p = end;
            }
            if (k == KBUF)
                got |= 2;
        }
    }
    if (pclose(f) != 0 || got != 3)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    ac_pool pool;
    ac_solver_pool_result *r = NULL;
    double t_c, t_py = 0.0, q_py[KBUF], err_c, err_py, ratio, t_big, t_big99;
    int fail = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: bench_pool PYTHON REF_SCIPY_PY\n");
        return 2;
    }
    gsl_set_error_handler_off();
    memset(&pool, 0, sizeof pool);
    pool.servers = 1000;
    pool.service_rate = 1.0;
    pool.dispatch = AC_DISPATCH_POWER_OF_D;
    pool.d = 2;
    pool.sampling = AC_SAMPLING_WITH_REPLACEMENT;
    pool.buffer = KBUF;

    t_c = time_solve(&pool, RHO * 1000.0, &r);
    err_c = max_error(r->equilibria[r->operating].q, r->equilibria[r->operating].dim);
    printf("power-of-two, rho %.2f, K %d (solved with %zu levels)\n", RHO, KBUF, r->truncation);
    printf("  archcheck  ac_solver_pool_solve (full: equilibria, eigenvalues, Lyapunov, refined, "
           "KPIs, percentiles)\n");
    printf("             median %.1f us   max|q - closed| %.2e   |E[L] - closed| %.2e\n", t_c * 1e6,
           err_c, mean_jobs_error(r->equilibria[r->operating].q, r->equilibria[r->operating].dim));
    if (run_python(argv[1], argv[2], &t_py, q_py) != 0) {
        fprintf(stderr, "bench: the Python reference failed (%s %s)\n", argv[1], argv[2]);
        ac_solver_pool_result_free(r);
        return 2;
    }
    err_py = max_error(q_py, KBUF);
    printf("  scipy      solve_ivp BDF rtol 1e-7 atol 1e-9 T 300 (best of 5)\n");
    printf("             %.1f us   max|q - closed| %.2e   |E[L] - closed| %.2e\n", t_py * 1e6,
           err_py, mean_jobs_error(q_py, KBUF));
    ratio = t_py / t_c;
    printf("  speed-up   %.0fx (floor 100x)   accuracy %s\n", ratio,
           err_c <= err_py ? "equal or better" : "WORSE");
    if (ratio < 100.0 || err_c > err_py)
        fail = 1;
    ac_solver_pool_result_free(r);

    pool.buffer = 200;
    t_big = time_solve(&pool, 0.9 * 1000.0, NULL);
    t_big99 = time_solve(&pool, 0.99 * 1000.0, NULL);
    printf("1000 servers, buffer 200, power-of-two: rho 0.90 %.1f us, rho 0.99 %.1f us "
           "(floor 5000 us)\n",
           t_big * 1e6, t_big99 * 1e6);
    if (t_big > 5e-3 || t_big99 > 5e-3)
        fail = 1;
    printf("%s\n", fail ? "FAIL: a floor was missed" : "PASS: every floor met");
    return fail;
}
