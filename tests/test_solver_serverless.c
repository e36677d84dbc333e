/*
 * Tests of the serverless stages' solvers (solver/function.c, gateway.c, queue.c) against
 * closed forms (Erlang B and C, M/D/1/K) and the simulator.
 */
#include "helpers.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "archcheck/serverless.h"
#include "archcheck/sim.h"
#include "archcheck/solver.h"

#include "solver_pool.h"

/* ---- serverless stages (solver/function.c, gateway.c, queue.c) ---- */

/* Erlang B by its defining sum (long double), independent of the recursion. */
static double erlang_b_sum(size_t c, double a)
{
    long double term = 1.0L, sum = 1.0L;
    for (size_t k = 1; k <= c; k++) {
        term *= (long double)a / (long double)k;
        sum += term;
    }
    return (double)(term / sum);
}

static ac_function fn_default(size_t C, double d)
{
    ac_function f;
    memset(&f, 0, sizeof f);
    f.concurrency = C;
    f.duration = d;
    f.keep_alive = 600.0;
    f.scale_rate = 1e9;
    f.timeout = 1e6 * d; /* no timeout in effect */
    return f;
}

static void test_erlang_formulas(void **state)
{
    (void)state;
    assert_double_close(ac_solver_erlang_b(10, 8.0), erlang_b_sum(10, 8.0), 0, 1e-12);
    assert_double_close(ac_solver_erlang_b(70, 60.0), erlang_b_sum(70, 60.0), 0, 1e-12);
    assert_double_close(ac_solver_erlang_b(70, 60.0), 0.0237, 5e-5, 0); /* the sample's */
    assert_double_close(ac_solver_erlang_b(1, 1.0), 0.5, 0, 1e-15);
    assert_double_close(ac_solver_erlang_c(4, 3.0), erlang_c_sum(4, 3.0), 0, 1e-12);
    assert_double_close(ac_solver_erlang_c(4, 3.0), 0.5094339622641509, 0, 1e-12);
    assert_true(ac_solver_erlang_c(4, 4.0) == 1.0);
    assert_true(ac_solver_erlang_b(5, 0.0) == 0.0);
}

/* Sync, no cold start, no retries: throttling is Erlang-B, exact. */
static void test_function_sync_erlang_b(void **state)
{
    ac_function f = fn_default(10, 0.1);
    ac_solver_function_result r;
    ac_error err = {0};
    double B = erlang_b_sum(10, 8.0);
    (void)state;
    f.keep_alive = 1e9; /* instances never expire: no cold start after the first */
    assert_int_equal(ac_solver_function_solve(&f, 80.0, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_double_close(r.throttle_probability, B, 0, 1e-9);
    assert_double_close(r.loss_probability, B, 0, 1e-9);
    assert_double_close(r.throughput, 80.0 * (1.0 - B), 0, 1e-9);
    assert_double_close(r.busy, 8.0 * (1.0 - B), 0, 1e-9);
    assert_double_close(r.utilization, 0.8 * (1.0 - B), 0, 1e-9);
    assert_int_equal(r.approximation, AC_SOLVER_APPROX_EXACT);
    /* the time at the function: exponential of mean d */
    assert_double_close(r.mean_response_time, 0.1, 0, 1e-6);
    assert_double_close(r.p95, -0.1 * log(0.05), 0, 1e-6);
    assert_double_close(ac_solver_function_cdf(&r, r.p99), 0.99, 1e-9, 0);
    /* a fault's delay lengthens every execution */
    assert_int_equal(ac_solver_function_solve(&f, 80.0, AC_SOLVER_FN_SYNC, 0.02, &r, &err), AC_OK);
    assert_double_close(r.throttle_probability, erlang_b_sum(10, 80.0 * 0.12), 0, 1e-9);
}

/* Sync with failures and retries: a retry reuses its instance (one holding time of all the
 * executions), a throttled attempt's retries are throttled too. */
static void test_function_sync_retries(void **state)
{
    ac_function f = fn_default(10, 0.1);
    ac_solver_function_result r;
    ac_error err = {0};
    double fp = 0.1, hold = 0.1 * (1.0 + fp + fp * fp), B = erlang_b_sum(10, 60.0 * hold);
    double w0 = (1 - fp), w1 = fp * (1 - fp), w2 = fp * fp * (1 - fp), tot = w0 + w1 + w2;
    (void)state;
    f.keep_alive = 1e9;
    f.fail_prob = fp;
    f.retries = 2;
    assert_int_equal(ac_solver_function_solve(&f, 60.0, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_double_close(r.execution_failure, fp, 0, 1e-12);
    assert_double_close(r.throttle_probability, B, 0, 1e-9);
    assert_double_close(r.loss_probability, B + (1 - B) * pow(fp, 3.0), 0, 1e-9);
    assert_double_close(r.execution_rate, 60.0 * (1 - B) * (1 + fp + fp * fp), 0, 1e-9);
    /* mean: i failed executions (each of mean d: failures are decided at the end) + one */
    assert_double_close(r.mean_response_time, 0.1 * (1.0 + (w1 + 2 * w2) / tot), 0, 1e-9);
}

/* P(Erlang(m, beta) <= x) by its Poisson sum (independent of GSL's incomplete gamma). */
static double erlang_cdf_sum(size_t m, double beta, double x)
{
    double term = exp(-beta * x), s = 0.0;
    if (x <= 0.0)
        return 0.0;
    for (size_t n = 0; n < m; n++) {
        s += term;
        term *= beta * x / (double)(n + 1);
    }
    return 1.0 - s;
}

/* Was a bug (fixed): the failed executions before the successful one were added as their mean
 * time (a fixed shift), not convolved. Without a timeout, i failures and the success are
 * i + 1 exponentials: the law is the mixture of Erlang(i + 1, 1/d) with weights
 * fp^i (1 - fp), renormalised over i <= r (closed form, 1e-9). */
static void test_function_sync_retry_law(void **state)
{
    ac_function f = fn_default(1000, 0.1);
    ac_solver_function_result r;
    ac_error err = {0};
    const double fp = 0.3, t[] = {0.05, 0.1, 0.3, 0.6};
    double w[3], tot = 0.0;
    (void)state;
    f.keep_alive = 1e9;
    f.fail_prob = fp;
    f.retries = 2;
    for (size_t i = 0; i < 3; i++) {
        w[i] = pow(fp, (double)i) * (1.0 - fp);
        tot += w[i];
    }
    assert_int_equal(ac_solver_function_solve(&f, 1.0, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        double want = 0.0;
        for (size_t i = 0; i < 3; i++)
            want += w[i] / tot * erlang_cdf_sum(i + 1, 10.0, t[k]);
        assert_double_close(ac_solver_function_cdf(&r, t[k]), want, 1e-9, 0);
    }
    assert_double_close(ac_solver_function_cdf(&r, r.p95), 0.95, 1e-9, 0);
    assert_double_close(ac_solver_function_cdf(&r, r.p99), 0.99, 1e-9, 0);
}

/* The same law with timeouts (a failed execution takes theta or X | X <= theta) against the
 * simulator: mean, p50/p95/p99 within the simulator's 95% interval plus its 0.4% histogram
 * resolution (the shifted law was 16% off at p50 on this case). */
static void test_function_sync_retry_sim(void **state)
{
    ac_function f = fn_default(1000, 0.1);
    ac_solver_function_result r;
    ac_error err = {0};
    ac_sim_result *sr;
    (void)state;
    f.keep_alive = 3600.0 * 1000.0;
    f.timeout = 0.15;
    f.fail_prob = 0.3;
    f.retries = 3;
    assert_int_equal(ac_solver_function_solve(&f, 20.0, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_int_equal(r.approximation, AC_SOLVER_APPROX_EXACT);
    sr = simulate_xml("<architecture format=\"1\">\n"
                      "<workload><source id=\"s\" to=\"fn\" rate=\"20/s\"/></workload>\n"
                      "<function id=\"fn\" duration=\"100ms\" concurrency=\"1000\" "
                      "keep-alive=\"1000h\" timeout=\"150ms\" fail-prob=\"30%\" retries=\"3\"/>\n"
                      "</architecture>\n",
                      11, 4, 20000.0);
    assert_near_sim("mean", r.mean_response_time, &sr->nodes[0].mean_response_time, 0.004);
    assert_near_sim("p50", r.p50, &sr->nodes[0].p50_response_time, 0.004);
    assert_near_sim("p95", r.p95, &sr->nodes[0].p95_response_time, 0.004);
    assert_near_sim("p99", r.p99, &sr->nodes[0].p99_response_time, 0.004);
    ac_sim_result_free(sr);
}

/* A timeout cuts executions: failure e + (1 - e) f, occupancy d (1 - e). */
static void test_function_timeout(void **state)
{
    ac_function f = fn_default(1000, 1.0);
    ac_solver_function_result r;
    ac_error err = {0};
    double e = exp(-2.0);
    (void)state;
    f.timeout = 2.0;
    f.fail_prob = 0.05;
    f.keep_alive = 1e9;
    assert_int_equal(ac_solver_function_solve(&f, 5.0, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_double_close(r.execution_failure, e + (1 - e) * 0.05, 0, 1e-12);
    assert_double_close(r.busy, 5.0 * (1.0 - e), 0, 1e-6);
    assert_double_close(r.loss_probability, e + (1 - e) * 0.05, 0, 1e-6);
    /* a successful execution is X | X <= theta: below theta surely */
    assert_true(r.p99 < 2.0);
    assert_double_close(ac_solver_function_cdf(&r, 2.0 + 1e-9), 1.0, 1e-12, 0);
}

/* Cold starts at a low rate: an attempt starts cold when no execution ended within the
 * keep-alive, P = e^{-lambda tau} (the busy count is almost always 0 or 1). Provisioned
 * instances remove it; pre-warming pinged within the keep-alive too. */
static void test_function_cold_starts(void **state)
{
    ac_function f = fn_default(100, 0.1);
    ac_solver_function_result r;
    ac_error err = {0};
    (void)state;
    f.keep_alive = 60.0;
    f.cold_start = 0.5;
    assert_int_equal(ac_solver_function_solve(&f, 0.01, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_double_close(r.cold_probability, exp(-0.6), 2e-3, 0);
    assert_double_close(r.mean_response_time, 0.1 + 0.5 * r.cold_probability, 0, 1e-6);
    /* the law is a mixture: a mass of P(warm) below c0 */
    assert_double_close(ac_solver_function_cdf(&r, 0.5), (1 - r.cold_probability) * (1 - exp(-5.0)),
                        1e-6, 0);
    f.provisioned = 1;
    assert_int_equal(ac_solver_function_solve(&f, 0.01, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_true(r.cold_probability < 2e-3);
    f.provisioned = 0;
    f.prewarm = 1;
    f.prewarm_interval = 30.0; /* pinged twice per keep-alive: always warm */
    assert_int_equal(ac_solver_function_solve(&f, 0.01, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_true(r.cold_probability < 2e-3);
    f.prewarm_interval = 240.0; /* warm a quarter of the time */
    assert_int_equal(ac_solver_function_solve(&f, 0.01, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_double_close(r.cold_probability, 0.75 * exp(-0.6), 3e-3, 0);
    /* at a high steady rate cold starts are rare */
    f.prewarm = 0;
    assert_int_equal(ac_solver_function_solve(&f, 500.0, AC_SOLVER_FN_SYNC, 0.0, &r, &err), AC_OK);
    assert_true(r.cold_probability < 1e-4);
}

/* Async: an M/M/C queue when the occupancy is exponential. */
static void test_function_async(void **state)
{
    ac_function f = fn_default(4, 0.1);
    ac_solver_function_result r;
    ac_error err = {0};
    double Cw = erlang_c_sum(4, 3.0);
    (void)state;
    f.keep_alive = 1e9;
    f.invocation = AC_INVOCATION_ASYNC;
    assert_int_equal(ac_solver_function_solve(&f, 30.0, AC_SOLVER_FN_ASYNC, 0.0, &r, &err), AC_OK);
    assert_double_close(r.wait_probability, Cw, 0, 1e-9);
    assert_double_close(r.mean_wait, Cw / (40.0 - 30.0), 0, 1e-6);
    assert_double_close(r.mean_response_time, 0.1 + Cw / 10.0, 0, 1e-6);
    assert_true(r.loss_probability == 0.0);
    /* M/M/c response law: P(T > t) = ... checked at the median by the CDF itself */
    assert_double_close(ac_solver_function_cdf(&r, r.p50), 0.5, 1e-9, 0);
    assert_int_equal(ac_solver_function_solve(&f, 40.0, AC_SOLVER_FN_ASYNC, 0.0, &r, &err), AC_OK);
    assert_int_equal(r.overload, 1);
}

/* M/D/1/K blocking by a direct solve of the embedded chain (Gauss elimination). */
static double md1k_direct(size_t K, double rho)
{
    double P[16][16], a[32], pi[16];
    size_t n = K; /* states 0..K-1 */
    a[0] = exp(-rho);
    for (size_t k = 1; k < 32; k++)
        a[k] = a[k - 1] * rho / (double)k;
    memset(P, 0, sizeof P);
    for (size_t i = 0; i < n; i++) {
        size_t base = i == 0 ? 0 : i - 1; /* the next departure leaves base + arrivals */
        double rest = 1.0;
        for (size_t j = base; j + 1 < n; j++) {
            P[i][j] = a[j - base];
            rest -= a[j - base];
        }
        P[i][n - 1] += rest;
    }
    /* pi (P - I) = 0, sum pi = 1: solve A x = b with A = (P - I)^T, last row all ones */
    {
        double A[16][17];
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < n; j++)
                A[i][j] = P[j][i] - (i == j ? 1.0 : 0.0);
            A[i][n] = 0.0;
        }
        for (size_t j = 0; j < n; j++)
            A[n - 1][j] = 1.0;
        A[n - 1][n] = 1.0;
        for (size_t c = 0; c < n; c++) {
            size_t piv = c;
            for (size_t r = c + 1; r < n; r++)
                if (fabs(A[r][c]) > fabs(A[piv][c]))
                    piv = r;
            for (size_t j = 0; j <= n; j++) {
                double t = A[c][j];
                A[c][j] = A[piv][j];
                A[piv][j] = t;
            }
            for (size_t r = 0; r < n; r++) {
                double fct;
                if (r == c)
                    continue;
                fct = A[r][c] / A[c][c];
                for (size_t j = c; j <= n; j++)
                    A[r][j] -= fct * A[c][j];
            }
        }
        for (size_t i = 0; i < n; i++)
            pi[i] = A[i][n] / A[i][i];
    }
    return 1.0 - 1.0 / (pi[0] + rho);
}

static void test_gateway_token_bucket(void **state)
{
    ac_gateway g = {.rate_limit = 100.0, .burst = 5, .timeout = 29.0};
    ac_solver_gateway_result r;
    ac_error err = {0};
    (void)state;
    assert_int_equal(ac_solver_gateway_solve(&g, 90.0, 0.0, &r, &err), AC_OK);
    assert_double_close(r.reject_probability, md1k_direct(5, 0.9), 0, 1e-10);
    assert_double_close(r.throughput, 90.0 * (1.0 - r.reject_probability), 0, 1e-9);
    assert_int_equal(ac_solver_gateway_solve(&g, 120.0, 0.0, &r, &err), AC_OK);
    assert_double_close(r.reject_probability, md1k_direct(5, 1.2), 0, 1e-10);
    assert_true(r.reject_probability > 1.0 - 1.0 / 1.2); /* above the fluid limit */
    /* a bucket of one token: M/D/1/1 blocks rho / (1 + rho) */
    g.burst = 0;
    assert_int_equal(ac_solver_gateway_solve(&g, 50.0, 0.0, &r, &err), AC_OK);
    assert_double_close(r.reject_probability, 0.5 / 1.5, 0, 1e-12);
    /* a capacity loss of half the rate doubles the load */
    g.burst = 5;
    assert_int_equal(ac_solver_gateway_solve(&g, 45.0, 0.5, &r, &err), AC_OK);
    assert_double_close(r.reject_probability, md1k_direct(5, 0.9), 0, 1e-10);
    /* far above the limit: between the fluid 1 - 1/rho and rho/(1+rho), stated */
    assert_int_equal(ac_solver_gateway_solve(&g, 5000.0, 0.0, &r, &err), AC_OK);
    assert_true(r.reject_probability >= 1.0 - 1.0 / 50.0 && r.reject_probability <= 50.0 / 51.0);
    assert_true(r.expected_abs_error > 0.0);
    /* the sample's gateway: 1000/s against 1500/s and 300 tokens rejects nothing */
    g.rate_limit = 1500.0;
    g.burst = 300;
    assert_int_equal(ac_solver_gateway_solve(&g, 1000.0, 0.0, &r, &err), AC_OK);
    assert_true(r.reject_probability < 1e-12);
    /* a deep bucket is the M/D/1 queue: tokens missing = the mean work in units of 1/r,
       rho / (2 (1 - rho)) = 1 at rho = 2/3 (Pollaczek-Khinchine) */
    assert_double_close(r.mean_deficit, 1.0, 0, 1e-9);
    g.rate_limit = INFINITY;
    assert_int_equal(ac_solver_gateway_solve(&g, 1e6, 0.0, &r, &err), AC_OK);
    assert_true(r.reject_probability == 0.0);
    assert_int_equal(ac_solver_gateway_solve(&g, -1.0, 0.0, &r, &err), AC_EINVAL);
}

/* A queue consumed by a function: the consumer executions are M/M/c with c = min(M, C);
 * failed deliveries come back until the dead-letter queue. */
static void test_queue_consumer(void **state)
{
    ac_function f = fn_default(10, 0.5);
    ac_queue q = {.capacity = AC_UNBOUNDED,
                  .batch_size = 1,
                  .max_consumers = 3,
                  .visibility_timeout = 30.0,
                  .max_receives = 3};
    ac_solver_queue_consumer cons = {.function = &f, .fanout = 1};
    ac_solver_queue_result r;
    ac_error err = {0};
    double Cw = erlang_c_sum(3, 2.0);
    (void)state;
    assert_int_equal(ac_solver_queue_solve(&q, 4.0, &cons, NULL, &r, &err), AC_OK);
    assert_int_equal(r.slots, 3);
    assert_double_close(r.wait_probability, Cw, 0, 1e-9);
    assert_double_close(r.mean_wait, Cw / (6.0 - 4.0), 0, 1e-8);
    assert_double_close(r.utilization, 2.0 / 3.0, 0, 1e-12);
    assert_true(r.loss_probability == 0.0);
    assert_double_close(ac_solver_queue_cdf(&r, r.p95), 0.95, 1e-9, 0);
    ac_solver_queue_result_clear(&r);
    /* failures: each delivery fails with f, R receives, then the dead-letter queue */
    f.fail_prob = 0.2;
    assert_int_equal(ac_solver_queue_solve(&q, 1.0, &cons, NULL, &r, &err), AC_OK);
    assert_double_close(r.delivery_failure, 0.2, 0, 1e-12);
    assert_double_close(r.dead_letter_probability, 0.008, 0, 1e-12);
    assert_double_close(r.receives, 1.0 + 0.2 + 0.04, 0, 1e-12);
    assert_double_close(r.execution_rate, 1.24, 0, 1e-9);
    assert_double_close(r.loss_probability, 0.008, 0, 1e-12);
    ac_solver_queue_result_clear(&r);
    /* a fan-out of 2: a delivery fails when either execution does */
    cons.fanout = 2;
    assert_int_equal(ac_solver_queue_solve(&q, 1.0, &cons, NULL, &r, &err), AC_OK);
    assert_double_close(r.delivery_failure, 1.0 - 0.8 * 0.8, 0, 1e-12);
    ac_solver_queue_result_clear(&r);
    /* overload: batches of one cannot keep up, batches of 10 can */
    f.fail_prob = 0.0;
    cons.fanout = 1;
    assert_int_equal(ac_solver_queue_solve(&q, 8.0, &cons, NULL, &r, &err), AC_OK);
    assert_int_equal(r.overload, 1);
    ac_solver_queue_result_clear(&r);
    /* with a capacity, overload fills the queue and rejects: M/M/3/(3+K) with K waiting */
    q.capacity = 20;
    assert_int_equal(ac_solver_queue_solve(&q, 8.0, &cons, NULL, &r, &err), AC_OK);
    assert_int_equal(r.overload, 0);
    {
        /* M/M/c/N blocking: p_N with p_n ~ a^n/n! (n <= c), a^c/c! (a/c)^(n-c) beyond */
        double a = 4.0, pn = 1.0, sum = 1.0;
        for (int n = 1; n <= 20; n++) {
            pn *= n <= 3 ? a / n : a / 3.0;
            sum += pn;
        }
        assert_double_close(r.reject_probability, pn / sum, 0, 1e-9);
    }
    ac_solver_queue_result_clear(&r);
    q.capacity = AC_UNBOUNDED;
    q.batch_size = 10;
    assert_int_equal(ac_solver_queue_solve(&q, 8.0, &cons, NULL, &r, &err), AC_OK);
    assert_int_equal(r.overload, 0);
    assert_true(r.utilization < 1.0 && r.mean_batch > 1.0); /* greedy batches keep up */
    ac_solver_queue_result_clear(&r);
    ac_solver_queue_result_clear(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erlang_formulas),
        cmocka_unit_test(test_function_sync_erlang_b),
        cmocka_unit_test(test_function_sync_retries),
        cmocka_unit_test(test_function_sync_retry_law),
        cmocka_unit_test(test_function_sync_retry_sim),
        cmocka_unit_test(test_function_timeout),
        cmocka_unit_test(test_function_cold_starts),
        cmocka_unit_test(test_function_async),
        cmocka_unit_test(test_gateway_token_bucket),
        cmocka_unit_test(test_queue_consumer),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("solver_serverless", tests, NULL, NULL);
}
