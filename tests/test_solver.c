/*
 * Tests of the pool solver (doc/models.md sections 1-3) against closed forms and the
 * published refined mean-field values.
 *
 * Serverless stages: test_solver_serverless.c; jsq and jiq at finite N, quantiles with an
 * atom at 0, the refined headline and solve's text: test_solver_headline.c.
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

/* random: q_k = rho^k for every level, E[L] = rho / (1 - rho) */
static void test_random_closed_form(void **state)
{
    static const double rhos[] = {0.5, 0.9, 0.99};
    size_t i, k;
    (void)state;
    for (i = 0; i < 3; i++) {
        ac_pool p = make_pool(AC_DISPATCH_RANDOM, 20, 2.0, AC_UNBOUNDED);
        ac_solver_pool_result *r = solve_ok(&p, rhos[i] * 2.0 * 20, NULL);
        const ac_solver_equilibrium *e = operating(r);
        assert_int_equal(r->nequilibria, 1);
        assert_true(r->tail_mass <= 1e-12);
        for (k = 0; k < e->dim; k++)
            assert_double_close(e->q[k], pow(rhos[i], (double)(k + 1)), 1e-9, 0.0);
        assert_double_close(e->mean_field.mean_jobs, rhos[i] / (1.0 - rhos[i]), 1e-9, 1e-11);
        assert_int_equal(e->mean_field.approximation, AC_SOLVER_APPROX_EXACT);
        ac_solver_pool_result_free(r);
    }
}

/* power-of-d: q_k = rho^((d^k - 1)/(d - 1)), both samplings, d in {2, 3, 5} */
static void test_pod_closed_form(void **state)
{
    static const double rhos[] = {0.5, 0.9, 0.99};
    static const size_t ds[] = {2, 3, 5};
    size_t i, j, k, s;
    (void)state;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            for (s = 0; s < 2; s++) {
                ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 1000, 1.0, AC_UNBOUNDED);
                ac_solver_pool_result *r;
                const ac_solver_equilibrium *e;
                double d = (double)ds[j], sum = 0.0;
                p.d = ds[j];
                p.sampling = s ? AC_SAMPLING_DISTINCT : AC_SAMPLING_WITH_REPLACEMENT;
                r = solve_ok(&p, rhos[i] * 1000.0, NULL);
                e = operating(r);
                assert_int_equal(r->nequilibria, 1);
                assert_true(e->stable);
                for (k = 1; k <= e->dim; k++) {
                    double expect = pow(rhos[i], (pow(d, (double)k) - 1.0) / (d - 1.0));
                    assert_double_close(e->q[k - 1], expect, 1e-9, 0.0);
                    sum += expect;
                }
                assert_double_close(e->mean_field.mean_jobs, sum, 1e-9, 0.0);
                ac_solver_pool_result_free(r);
            }
}

/* M/M/1: T ~ Exp(mu - lambda): percentiles -ln(1-p)/(mu-lambda), CCDF e^{-(mu-lambda)t} */
static void test_mm1_response_time(void **state)
{
    static const double rhos[] = {0.5, 0.9};
    static const double ps[] = {0.5, 0.95, 0.99};
    size_t i, j;
    (void)state;
    for (i = 0; i < 2; i++) {
        double mu = 4.0, lambda = rhos[i] * mu, gap = mu - lambda, t;
        ac_pool p = make_pool(AC_DISPATCH_RANDOM, 5, mu, AC_UNBOUNDED);
        ac_solver_pool_result *r = solve_ok(&p, lambda * 5.0, NULL);
        const ac_solver_equilibrium *e = operating(r);
        ac_error err = {0};
        double got[3] = {e->mean_field.p50, e->mean_field.p95, e->mean_field.p99};
        for (j = 0; j < 3; j++) {
            double q;
            assert_double_close(got[j], -log(1.0 - ps[j]) / gap, 0.0, 1e-9);
            assert_int_equal(ac_solver_pool_quantile(r, r->operating, ps[j], 0, &q, &err), 0);
            assert_double_close(q, -log(1.0 - ps[j]) / gap, 0.0, 1e-9);
        }
        for (t = 0.0; t < 10.0 / gap; t += 0.7 / gap)
            assert_double_close(ac_solver_pool_ccdf(r, r->operating, t), exp(-gap * t), 1e-11, 0.0);
        /* the wait: P(W > t) = rho e^{-(mu-lambda) t} */
        assert_double_close(ac_solver_pool_wait_ccdf(r, r->operating, 1.0), rhos[i] * exp(-gap),
                            1e-11, 0.0);
        assert_double_close(e->mean_field.mean_response_time, 1.0 / gap, 0.0, 1e-10);
        assert_double_close(e->mean_field.wait_probability, rhos[i], 1e-11, 0.0);
        assert_double_close(e->mean_field.throughput, lambda * 5.0, 0.0, 1e-11);
        assert_true(isnan(ac_solver_pool_ccdf(r, 7, 1.0)));
        ac_solver_pool_result_free(r);
    }
}

/* random with a buffer K is M/M/1/K: pi_k = rho^k (1-rho)/(1-rho^(K+1)) */
static void test_mm1k(void **state)
{
    static const double rhos[] = {0.5, 0.8, 1.0, 1.5};
    static const size_t Ks[] = {1, 5, 20};
    size_t i, j, k;
    (void)state;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 3; j++) {
            ac_pool p = make_pool(AC_DISPATCH_RANDOM, 8, 1.0, Ks[j]);
            ac_solver_pool_result *r = solve_ok(&p, rhos[i] * 8.0, NULL);
            const ac_solver_equilibrium *e = operating(r);
            double z = 0.0, mean = 0.0, loss;
            for (k = 0; k <= Ks[j]; k++)
                z += pow(rhos[i], (double)k);
            for (k = 0; k <= Ks[j]; k++)
                mean += (double)k * pow(rhos[i], (double)k) / z;
            loss = pow(rhos[i], (double)Ks[j]) / z;
            assert_int_equal(r->truncation, Ks[j]);
            assert_double_close(e->mean_field.loss_probability, loss, 1e-9, 0.0);
            assert_double_close(e->mean_field.mean_jobs, mean, 1e-9, 0.0);
            assert_double_close(e->mean_field.throughput, 8.0 * rhos[i] * (1.0 - loss), 1e-9, 0.0);
            assert_true(e->stable);
            ac_solver_pool_result_free(r);
        }
}

static void test_shared_queue_erlang_c(void **state)
{
    static const size_t Ns[] = {1, 4, 10, 50};
    static const double rhos[] = {0.5, 0.9};
    size_t i, j;
    (void)state;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 2; j++) {
            double mu = 2.0, N = (double)Ns[i], Lam = rhos[j] * N * mu, a = Lam / mu;
            double C = erlang_c_sum(Ns[i], a), alpha = N * mu - Lam, t, w;
            ac_pool p = make_pool(AC_DISPATCH_SHARED_QUEUE, Ns[i], mu, AC_UNBOUNDED);
            ac_solver_pool_result *r = solve_ok(&p, Lam, NULL);
            const ac_solver_equilibrium *e = operating(r);
            ac_error err = {0};
            static const double ps[] = {0.5, 0.95, 0.99};
            size_t k;
            assert_int_equal(e->mean_field.approximation, AC_SOLVER_APPROX_EXACT);
            assert_double_close(e->mean_field.wait_probability, C, 1e-9, 0.0);
            assert_double_close(e->mean_field.mean_wait, C / alpha, 1e-9, 0.0);
            assert_double_close(e->mean_field.mean_jobs, (a + C * rhos[j] / (1.0 - rhos[j])) / N,
                                1e-9, 0.0);
            assert_double_close(e->mean_field.mean_response_time, C / alpha + 1.0 / mu, 1e-9, 0.0);
            for (k = 0; k < 3; k++) {
                double expect = C > 1.0 - ps[k] ? log(C / (1.0 - ps[k])) / alpha : 0.0;
                assert_int_equal(ac_solver_pool_quantile(r, 0, ps[k], 1, &w, &err), 0);
                assert_double_close(w, expect, 1e-9, 0.0);
            }
            for (t = 0.1; t < 5.0; t += 0.6) {
                double resp;
                assert_double_close(ac_solver_pool_wait_ccdf(r, 0, t), C * exp(-alpha * t), 1e-10,
                                    0.0);
                /* T = W + Exp(mu): (1-C) e^{-mu t} + C (alpha e^{-mu t} - mu e^{-alpha t})/(alpha -
                 * mu) */
                if (fabs(alpha - mu) > 1e-9)
                    resp = (1.0 - C) * exp(-mu * t) +
                           C * (alpha * exp(-mu * t) - mu * exp(-alpha * t)) / (alpha - mu);
                else
                    resp = (1.0 - C) * exp(-mu * t) + C * (1.0 + mu * t) * exp(-mu * t);
                assert_double_close(ac_solver_pool_ccdf(r, 0, t), resp, 1e-10, 0.0);
            }
            ac_solver_pool_result_free(r);
        }
}

/* The M/M/N response law in closed form (rtd.c) where its two rates meet: N mu - lambda = mu
 * exactly (P(T > t) = e^{-mu t} (1 + C mu t)) and 1e-9 apart, and a pool of 5,000 servers
 * (about 195,000 Erlang phases before); against Erlang C by hand (ac_test_erlang_c: the Erlang B
 * recursion, no overflow at large N). */
static void test_shared_queue_closed_law(void **state)
{
    static const size_t Ns[] = {5, 5, 5000};
    static const double gap[] = {0.0, 1e-9, 0.0}; /* (N mu - lambda) - mu */
    (void)state;
    for (size_t i = 0; i < 3; i++) {
        double mu = 1.0, N = (double)Ns[i], Lam = N * mu - mu - gap[i], a = Lam / mu;
        double C = ac_test_erlang_c(Ns[i], a);
        ac_pool p = make_pool(AC_DISPATCH_SHARED_QUEUE, Ns[i], mu, AC_UNBOUNDED);
        ac_solver_pool_result *r = solve_ok(&p, Lam, NULL);
        assert_double_close(C, erlang_c_sum(5, 4.0), Ns[i] == 5 ? 1e-8 : 1.0, 0.0);
        for (double t = 0.05; t < 30.0; t *= 1.7) {
            double expect = exp(-mu * t) * (1.0 + C * mu * t); /* gap 1e-9: within 1e-8 t */
            assert_double_close(ac_solver_pool_ccdf(r, 0, t), expect, 1e-12 + 1e-8 * t, 1e-12);
        }
        assert_double_close(operating(r)->mean_field.mean_response_time,
                            C / (N * mu - Lam) + 1.0 / mu, 1e-9, 1e-12);
        ac_solver_pool_result_free(r);
    }
}

/* M/M/N/N+B: p_n by its product form, loss p_{N+B} */
static void test_shared_queue_loss(void **state)
{
    static const size_t Ns[] = {1, 3, 10};
    static const size_t Bs[] = {0 + 1, 4, 30};
    static const double rhos[] = {0.7, 1.0, 1.6};
    size_t i, j, l, n;
    (void)state;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            for (l = 0; l < 3; l++) {
                double mu = 1.5, N = (double)Ns[i], Lam = rhos[l] * N * mu, a = Lam / mu;
                double term = 1.0, z = 0.0, mean = 0.0, last = 0.0;
                size_t top = Ns[i] + Bs[j];
                ac_pool p = make_pool(AC_DISPATCH_SHARED_QUEUE, Ns[i], mu, Bs[j]);
                ac_solver_pool_result *r = solve_ok(&p, Lam, NULL);
                const ac_solver_equilibrium *e = operating(r);
                for (n = 0; n <= top; n++) {
                    if (n > 0)
                        term *= a / (double)(n <= Ns[i] ? n : Ns[i]);
                    z += term;
                    mean += (double)n * term;
                    last = term;
                }
                assert_false(r->overload);
                assert_double_close(e->mean_field.loss_probability, last / z, 1e-9, 0.0);
                assert_double_close(e->mean_field.mean_jobs, mean / z / N, 1e-9, 0.0);
                assert_double_close(e->mean_field.throughput, Lam * (1.0 - last / z), 1e-9, 1e-12);
                ac_solver_pool_result_free(r);
            }
}

/* Gast and Van Houdt's published values (power-of-two with replacement, E[L] per server) */
static void test_refined_reference(void **state)
{
    static const struct {
        size_t N;
        double rho, mf, refined;
    } ref[] = {{10, 0.7, 1.1301, 1.2150}, {10, 0.9, 2.3527, 2.7513}, {100, 0.7, 1.1301, 1.1386}};
    ac_solver_options opt;
    size_t i;
    (void)state;
    ac_solver_options_init(&opt);
    for (i = 0; i < 3; i++) {
        ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, ref[i].N, 1.0, AC_UNBOUNDED);
        ac_solver_pool_result *r = solve_ok(&p, ref[i].rho * (double)ref[i].N, &opt);
        const ac_solver_equilibrium *e = operating(r);
        assert_true(e->has_refined);
        assert_double_close(e->mean_field.mean_jobs, ref[i].mf, 1e-4, 0.0);
        /* the 1/N value; the headline adds the 1/N^2 term (tests/test_refined.c) */
        assert_double_close(e->mean_field.mean_jobs + e->mean_jobs_v / (double)ref[i].N,
                            ref[i].refined, 1e-4, 0.0);
        assert_int_equal(e->refined.approximation, AC_SOLVER_APPROX_REFINED);
        /* headline: the refined numbers wherever they are computed (at 100 servers too) */
        assert_int_equal(r->kpi.approximation, AC_SOLVER_APPROX_REFINED);
        assert_true(e->mean_field.expected_rel_error > 0.0);
        assert_true(e->refined.expected_rel_error < e->mean_field.expected_rel_error);
        /* Little's law holds in the refined numbers too */
        assert_double_close(e->refined.mean_response_time,
                            e->refined.mean_jobs / e->refined.utilization, 0.0, 1e-12);
        ac_solver_pool_result_free(r);
    }
}

/* distinct sampling is better than sampling with replacement at finite N: the 1/N term
 * of the law lowers the refined E[L]; the mean field is the same */
static void test_refined_distinct(void **state)
{
    ac_pool p1 = make_pool(AC_DISPATCH_POWER_OF_D, 10, 1.0, AC_UNBOUNDED);
    ac_pool p2 = p1;
    ac_solver_pool_result *r1, *r2;
    (void)state;
    p2.sampling = AC_SAMPLING_DISTINCT;
    r1 = solve_ok(&p1, 8.0, NULL);
    r2 = solve_ok(&p2, 8.0, NULL);
    assert_double_close(operating(r1)->mean_field.mean_jobs, operating(r2)->mean_field.mean_jobs,
                        1e-12, 0.0);
    assert_true(operating(r2)->refined.mean_jobs < operating(r1)->refined.mean_jobs - 1e-3);
    assert_true(operating(r2)->refined.mean_jobs > operating(r2)->mean_field.mean_jobs);
    ac_solver_pool_result_free(r1);
    ac_solver_pool_result_free(r2);
}

/* Every equilibrium of a stable pool: negative eigenvalues, positive-definite Lyapunov
 * solution, relaxation time -1/max_re */
static void test_stability(void **state)
{
    static const ac_dispatch disp[] = {AC_DISPATCH_RANDOM, AC_DISPATCH_POWER_OF_D, AC_DISPATCH_JSQ,
                                       AC_DISPATCH_JIQ};
    static const double rhos[] = {0.3, 0.9, 1.4};
    size_t i, j, k;
    (void)state;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 3; j++) {
            ac_pool p = make_pool(disp[i], 50, 1.0, rhos[j] > 1.0 ? 12 : AC_UNBOUNDED);
            ac_solver_pool_result *r = solve_ok(&p, rhos[j] * 50.0, NULL);
            assert_false(r->overload);
            assert_false(r->bistable);
            for (k = 0; k < r->nequilibria; k++) {
                const ac_solver_equilibrium *e = &r->equilibria[k];
                assert_true(e->stable);
                assert_true(e->max_real_eigenvalue < 0.0);
                assert_int_equal(e->unstable_eigenvalues, 0);
                assert_double_close(e->relaxation_time, -1.0 / e->max_real_eigenvalue, 0.0, 1e-12);
                assert_true(e->lyapunov_solved);
                assert_true(e->lyapunov_pd);
                assert_true(e->mean_jobs_std > 0.0);
            }
            ac_solver_pool_result_free(r);
        }
}

/* random (independent servers): the Lyapunov solution is N Cov, so the std of the mean jobs
 * per server is sqrt(Var(L)/N) with Var(L) = rho/(1-rho)^2; the slowest decay rate of the
 * truncated tridiagonal Toeplitz Jacobian is -(l+mu) + 2 sqrt(l mu) cos(pi/(K+1)) */
static void test_lyapunov_random(void **state)
{
    double rho = 0.6, mu = 1.0, l = rho * mu;
    ac_pool p = make_pool(AC_DISPATCH_RANDOM, 25, mu, AC_UNBOUNDED);
    ac_solver_pool_result *r;
    const ac_solver_equilibrium *e;
    double K;
    (void)state;
    r = solve_ok(&p, l * 25.0, NULL);
    e = operating(r);
    K = (double)e->dim;
    assert_true(e->dim <= 400); /* the generic Lyapunov path */
    assert_double_close(e->mean_jobs_std, sqrt(rho / ((1.0 - rho) * (1.0 - rho)) / 25.0), 0.0,
                        1e-7);
    assert_double_close(e->max_real_eigenvalue,
                        -(l + mu) + 2.0 * sqrt(l * mu) * cos(3.14159265358979323846 / (K + 1.0)),
                        1e-9, 0.0);
    ac_solver_pool_result_free(r);
    /* above the dense limits the closed forms take over: same numbers */
    rho = 0.99;
    l = rho * mu;
    r = solve_ok(&p, l * 25.0, NULL);
    e = operating(r);
    assert_true(e->dim > 400);
    assert_double_close(e->mean_jobs_std, sqrt(rho / ((1.0 - rho) * (1.0 - rho)) / 25.0), 0.0,
                        1e-6);
    ac_solver_pool_result_free(r);
}

/* models.md section 3 check case: power-of-two, lambda 0.7, mu 1, K 40, theta 8, r 2 */
static void test_metastable(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 1000, 1.0, 40);
    ac_solver_pool_result *r;
    const ac_solver_equilibrium *good, *bad;
    size_t k, stable = 0;
    (void)state;
    p.timeout = 8.0;
    p.retries = 2;
    r = solve_ok(&p, 700.0, NULL);
    assert_false(r->unique);
    assert_true(r->bistable);
    for (k = 0; k < r->nequilibria; k++)
        stable += r->equilibria[k].stable ? 1u : 0u;
    assert_int_equal(stable, 2);
    good = &r->equilibria[r->good];
    bad = &r->equilibria[r->bad];
    assert_int_equal(r->good, r->operating);
    assert_true(good->found_from & AC_SOLVER_FROM_EMPTY);
    assert_true(bad->found_from & AC_SOLVER_FROM_FULL);
    assert_true(good->stable && bad->stable);
    assert_double_close(good->mean_field.mean_jobs, 1.14, 0.005, 0.0);
    assert_double_close(good->mean_field.timeout_fraction, 0.003, 0.0005, 0.0);
    assert_double_close(bad->mean_field.mean_jobs, 39.6, 0.05, 0.0);
    assert_true(bad->mean_field.timeout_fraction > 0.999);
    assert_double_close(bad->mean_field.effective_arrival_rate, 2100.0, 0.0, 1e-3);
    assert_true(bad->mean_field.p50 > 8.0); /* every request times out */
    /* bursts: some size tips the pool; bigger bursts need less time */
    assert_true(r->nbursts >= 2);
    assert_true(isfinite(r->smallest_burst.duration));
    assert_double_close(r->smallest_burst.jobs,
                        r->smallest_burst.extra_rate * r->smallest_burst.duration, 0.0, 1e-12);
    for (k = 1; k < r->nbursts; k++)
        if (isfinite(r->bursts[k - 1].duration))
            assert_true(r->bursts[k].duration <= r->bursts[k - 1].duration);
    assert_false(r->burst_budget_spent);
    /* the burst search's counted budget: stopped after 20 probes, it says so, and a burst it
       found still tips the pool (its duration is at least the full search's, within that
       search's 1e-3; tipping is monotone in the duration) */
    {
        ac_solver_options o;
        ac_solver_pool_result *cut;
        ac_solver_options_init(&o);
        o.burst_probes = 20;
        cut = solve_ok(&p, 700.0, &o);
        assert_true(cut->bistable);
        assert_true(cut->burst_budget_spent);
        for (k = 0; k < cut->nbursts && k < r->nbursts; k++)
            if (isfinite(cut->bursts[k].duration))
                assert_true(cut->bursts[k].duration >= r->bursts[k].duration * (1.0 - 1e-3));
        ac_solver_pool_result_free(cut);
    }
    ac_solver_pool_result_free(r);

    /* without retries: one equilibrium (the timeout only measures) */
    p.retries = 0;
    r = solve_ok(&p, 700.0, NULL);
    assert_int_equal(r->nequilibria, 1);
    assert_false(r->bistable);
    assert_true(r->unique);
    assert_double_close(operating(r)->mean_field.mean_jobs, 1.1301176, 1e-6, 0.0);
    assert_true(operating(r)->mean_field.timeout_fraction > 0.0);
    assert_double_close(operating(r)->mean_field.effective_arrival_rate, 700.0, 0.0, 1e-12);
    ac_solver_pool_result_free(r);
}

/* timeout fraction without retries is exact for random dispatch: M/M/1 P(T > theta) */
static void test_timeout_fraction(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_RANDOM, 4, 1.0, AC_UNBOUNDED);
    ac_solver_pool_result *r;
    (void)state;
    p.timeout = 3.0;
    r = solve_ok(&p, 4.0 * 0.75, NULL);
    assert_double_close(operating(r)->mean_field.timeout_fraction, exp(-0.25 * 3.0), 1e-11, 0.0);
    ac_solver_pool_result_free(r);
}

/* jsq and jiq fixed points of models.md: q_1 = rho, nothing waits (large N) */
static void test_jsq_jiq(void **state)
{
    static const ac_dispatch disp[] = {AC_DISPATCH_JSQ, AC_DISPATCH_JIQ};
    static const double rhos[] = {0.5, 0.9, 0.99};
    size_t i, j, k;
    (void)state;
    for (i = 0; i < 2; i++) {
        for (j = 0; j < 3; j++) {
            ac_pool p = make_pool(disp[i], 100000, 1.0, AC_UNBOUNDED);
            ac_solver_pool_result *r = solve_ok(&p, rhos[j] * 100000.0, NULL);
            const ac_solver_equilibrium *e = operating(r);
            assert_double_close(e->q[0], rhos[j], 1e-9, 0.0);
            for (k = 1; k < e->dim; k++)
                assert_true(e->q[k] < 1e-12);
            assert_double_close(e->mean_field.mean_jobs, rhos[j], 1e-9, 0.0);
            assert_double_close(e->mean_field.wait_probability, 0.0, 1e-9, 0.0);
            assert_true(e->stable);
            assert_int_equal(e->mean_field.approximation, AC_SOLVER_APPROX_MEAN_FIELD);
            ac_solver_pool_result_free(r);
        }
        /* overloaded with a buffer: every server busy (q_1 = min(rho, 1) = 1) */
        {
            ac_pool p = make_pool(disp[i], 1000, 1.0, 6);
            ac_solver_pool_result *r = solve_ok(&p, 1.3 * 1000.0, NULL);
            assert_true(operating(r)->q[0] > 0.99);
            assert_true(operating(r)->stable);
            ac_solver_pool_result_free(r);
        }
    }
}

/* rho >= 1 with an unbounded buffer: overload, no equilibrium, recognised at once */
static void test_overload(void **state)
{
    static const ac_dispatch disp[] = {AC_DISPATCH_RANDOM, AC_DISPATCH_POWER_OF_D, AC_DISPATCH_JSQ,
                                       AC_DISPATCH_JIQ, AC_DISPATCH_SHARED_QUEUE};
    size_t i;
    (void)state;
    for (i = 0; i < 5; i++) {
        ac_pool p = make_pool(disp[i], 10, 1.0, AC_UNBOUNDED);
        ac_solver_pool_result *r = solve_ok(&p, 10.0, NULL);
        assert_true(r->overload);
        assert_int_equal(r->nequilibria, 0);
        assert_true(isinf(r->kpi.mean_jobs));
        assert_double_close(r->kpi.utilization, 1.0, 0.0, 0.0);
        ac_solver_pool_result_free(r);
        r = solve_ok(&p, 9.9, NULL);
        assert_false(r->overload);
        assert_int_equal(r->nequilibria, 1);
        ac_solver_pool_result_free(r);
    }
}

/* all starts: empty, full and the closed form meet at the one equilibrium */
static void test_all_starts(void **state)
{
    ac_solver_options opt;
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 200, 1.0, 30);
    ac_solver_pool_result *r;
    (void)state;
    ac_solver_options_init(&opt);
    opt.all_starts = 1;
    r = solve_ok(&p, 0.95 * 200, &opt);
    assert_int_equal(r->nequilibria, 1);
    assert_int_equal(r->equilibria[0].found_from,
                     AC_SOLVER_FROM_EMPTY | AC_SOLVER_FROM_FULL | AC_SOLVER_FROM_CLOSED_FORM);
    ac_solver_pool_result_free(r);
    /* overloaded finite buffer: no closed form, empty and full still meet */
    r = solve_ok(&p, 1.2 * 200, &opt);
    assert_int_equal(r->nequilibria, 1);
    assert_int_equal(r->equilibria[0].found_from, AC_SOLVER_FROM_EMPTY | AC_SOLVER_FROM_FULL);
    assert_true(r->equilibria[0].mean_field.loss_probability > 0.15);
    ac_solver_pool_result_free(r);
}

/* the model API: drift 0 at the fixed point; Jacobian equals central differences */
static void check_jacobian(const ac_pool *p, double rate, size_t dim)
{
    ac_solver_pool_model *m = NULL;
    ac_error err = {0};
    double q[12], f1[12], f2[12], J[144];
    size_t n, i, j;
    assert_int_equal(ac_solver_pool_model_new(p, rate, dim, &m, &err), 0);
    n = ac_solver_pool_model_dim(m);
    assert_int_equal(n, dim);
    for (i = 0; i < n; i++)
        q[i] = 0.9 * pow(0.8, (double)i) + 0.01;
    ac_solver_pool_model_jacobian(m, q, J);
    for (j = 0; j < n; j++) {
        double h = 1e-6, keep = q[j];
        q[j] = keep + h;
        ac_solver_pool_model_drift(m, q, f1);
        q[j] = keep - h;
        ac_solver_pool_model_drift(m, q, f2);
        q[j] = keep;
        for (i = 0; i < n; i++)
            assert_double_close(J[i * n + j], (f1[i] - f2[i]) / (2.0 * h), 1e-6, 1e-6);
    }
    ac_solver_pool_model_free(m);
}

static void test_model_api(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 50, 1.0, AC_UNBOUNDED);
    ac_solver_pool_model *m = NULL;
    ac_error err = {0};
    double q[64], f[64];
    size_t n, k;
    (void)state;
    assert_int_equal(ac_solver_pool_model_new(&p, 45.0, 0, &m, &err), 0);
    n = ac_solver_pool_model_dim(m);
    assert_true(n > 3 && n < 64);
    for (k = 0; k < n; k++)
        q[k] = pow(0.9, pow(2.0, (double)(k + 1)) - 1.0);
    ac_solver_pool_model_drift(m, q, f);
    for (k = 0; k < n; k++)
        assert_double_close(f[k], 0.0, 1e-12, 0.0);
    assert_double_close(ac_solver_pool_model_departures(m, q), 45.0, 0.0, 1e-12);
    ac_solver_pool_model_set_arrival_rate(m, 50.0);
    ac_solver_pool_model_drift(m, q, f);
    assert_true(f[0] > 0.01);
    ac_solver_pool_model_free(m);
    ac_solver_pool_model_free(NULL);

    check_jacobian(&p, 45.0, 8);
    p.timeout = 2.0;
    p.retries = 3;
    p.buffer = 10;
    check_jacobian(&p, 45.0, 10);
    p.dispatch = AC_DISPATCH_JIQ;
    check_jacobian(&p, 45.0, 10);
    p.retries = 0;
    check_jacobian(&p, 45.0, 10);
    p.dispatch = AC_DISPATCH_RANDOM;
    p.retries = 1;
    check_jacobian(&p, 45.0, 10);
}

static void test_invalid(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 10, 1.0, AC_UNBOUNDED);
    ac_solver_pool_result *r = NULL;
    ac_error err = {0};
    (void)state;
    assert_int_equal(ac_solver_pool_solve(&p, -1.0, NULL, &r, &err), AC_EINVAL);
    assert_int_equal(err.code, AC_EINVAL);
    assert_null(r);
    ac_error_clear(&err);
    p.service_rate = 0.0;
    assert_int_equal(ac_solver_pool_solve(&p, 1.0, NULL, &r, &err), AC_EINVAL);
    ac_error_clear(&err);
    p.service_rate = 1.0;
    p.servers = 0;
    assert_int_equal(ac_solver_pool_solve(&p, 1.0, NULL, &r, &err), AC_EINVAL);
    ac_error_clear(&err);
    p.servers = 10;
    assert_int_equal(ac_solver_pool_solve(&p, NAN, NULL, &r, &err), AC_EINVAL);
    assert_true(strlen(err.message) > 0);
    ac_solver_pool_result_free(NULL);
    assert_string_equal(ac_solver_approx_name(AC_SOLVER_APPROX_REFINED), "refined");
    assert_string_equal(ac_solver_approx_name(AC_SOLVER_APPROX_MEAN_FIELD), "mean-field");
    assert_string_equal(ac_solver_approx_name(AC_SOLVER_APPROX_EXACT), "exact");
}

/* a finite buffer longer than the tail needs is truncated, and says so */
static void test_truncation(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 1000, 1.0, 200);
    ac_solver_pool_result *r;
    (void)state;
    r = solve_ok(&p, 900.0, NULL);
    assert_true(r->truncation < 20);
    assert_true(r->tail_mass > 0.0 && r->tail_mass <= 1e-12);
    assert_double_close(operating(r)->mean_field.mean_jobs, 2.3526516, 1e-7, 0.0);
    ac_solver_pool_result_free(r);
}

/* The M/M/N/N+B response law against its closed form: an accepted arrival finding n < N
 * jobs is served at once, T ~ Exp(mu); finding n = N + j - 1 it waits j departures at rate
 * a = N mu, and P(Erlang(j, a) + Exp(mu) > t) = Q(j, a t) + e^{-mu t} (a / (a - mu))^j
 * P(j, (a - mu) t) (Q, P the regularised incomplete gammas). At rho = 0.99 with a buffer of
 * 1024 the law has 1000s of phases and its CCDF is summed in log space (x = a t > 700) out to
 * 1e-12: the early stop of that sum past the Poisson mode is checked here. */
static void test_mmnb_response_law(void **state)
{
    const size_t N = 24, B = 1024, top = N + B;
    const double mu = 500.0, a = (double)N * mu, Lam = 0.99 * a;
    ac_pool p = make_pool(AC_DISPATCH_SHARED_QUEUE, N, mu, B);
    ac_solver_pool_result *r = solve_ok(&p, Lam, NULL);
    double *lp = malloc((top + 1) * sizeof *lp), lmax = 0.0, z = 0.0;
    size_t checked = 0;
    (void)state;
    assert_non_null(lp);
    lp[0] = 0.0;
    for (size_t n = 1; n <= top; n++) {
        lp[n] = lp[n - 1] + log(Lam / mu) - log((double)(n < N ? n : N));
        lmax = fmax(lmax, lp[n]);
    }
    for (size_t n = 0; n < top; n++) /* accepted arrivals: n < N + B */
        z += exp(lp[n] - lmax);
    for (double t = 1e-4; t < 1.0; t *= 1.08) {
        double expect = 0.0, got = ac_solver_pool_ccdf(r, r->operating, t);
        for (size_t n = 0; n < top; n++) {
            double w = exp(lp[n] - lmax) / z;
            if (n < N) {
                expect += w * exp(-mu * t);
            } else {
                double j = (double)(n - N + 1);
                expect +=
                    w * (gsl_sf_gamma_inc_Q(j, a * t) + exp(-mu * t + j * log(a / (a - mu))) *
                                                            gsl_sf_gamma_inc_P(j, (a - mu) * t));
            }
        }
        if (expect < 1e-12)
            break;
        assert_double_close(got, expect, 1e-15, 1e-9);
        checked++;
    }
    print_message("M/M/%zu/%zu at rho 0.99: %zu points of the CCDF = closed form\n", N, top,
                  checked);
    assert_true(checked > 80); /* out to t > 0.1 s: x = a t > 1200, the log-space sum */
    free(lp);
    ac_solver_pool_result_free(r);
}

/* The burst search shares work between probes (each continues the longest burst known not
 * to tip; a settle stops once its state is below or above a point known to settle at good or
 * at bad; a size whose burst-forced equilibrium settles at good is not doubled further):
 * every duration is the cold search's (each probe from the good state, settled to its limit)
 * within the bisection's 1e-3, on the retry-storm pool and on a 3-choice pool with 3
 * retries; a budget of 26 probes stops both at the same place. */
static void test_burst_reuse_vs_cold(void **state)
{
    struct {
        size_t servers, buffer, d, retries;
        double mu, timeout, rate;
        unsigned probes;
    } cases[] = {{100, 40, 2, 2, 10.0, 0.8, 700.0, 0},
                 {50, 30, 3, 3, 1.0, 6.0, 34.0, 0},
                 {100, 40, 2, 2, 10.0, 0.8, 700.0, 26}};
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ac_pool p =
            make_pool(AC_DISPATCH_POWER_OF_D, cases[c].servers, cases[c].mu, cases[c].buffer);
        ac_solver_options o;
        ac_solver_pool_result *warm, *cold;
        size_t finite = 0, never = 0;
        p.d = cases[c].d;
        p.timeout = cases[c].timeout;
        p.retries = cases[c].retries;
        ac_solver_options_init(&o);
        o.burst_probes = cases[c].probes;
        warm = solve_ok(&p, cases[c].rate, &o);
        o.burst_cold = 1;
        cold = solve_ok(&p, cases[c].rate, &o);
        assert_true(warm->bistable && cold->bistable);
        assert_true(warm->burst_searched && cold->burst_searched);
        assert_int_equal(warm->nbursts, cold->nbursts);
        assert_int_equal(warm->burst_budget_spent, cold->burst_budget_spent);
        for (size_t k = 0; k < warm->nbursts; k++) {
            double a = warm->bursts[k].duration, b = cold->bursts[k].duration;
            print_message("case %zu size %zu: %.9g s shared, %.9g s cold\n", c, k, a, b);
            assert_double_close(warm->bursts[k].extra_rate, cold->bursts[k].extra_rate, 0.0, 1e-15);
            assert_int_equal(isfinite(a), isfinite(b));
            if (isfinite(a)) {
                assert_double_close(a, b, 0.0, 1e-3);
                finite++;
            } else {
                never++;
            }
        }
        /* both kinds of answer occur: sizes that tip and (first case) one that never does;
           26 probes stop the third in its second size's bisection */
        assert_true(finite >= (c == 2 ? 1u : 2u));
        assert_int_equal(warm->burst_budget_spent, c == 2);
        if (c == 0)
            assert_true(never >= 1);
        ac_solver_pool_result_free(warm);
        ac_solver_pool_result_free(cold);
    }
}

/* The certificates rest on the flow being cooperative: every off-diagonal entry of the
 * Jacobian >= 0 on ordered states 1 >= q_1 >= ... >= q_n >= 0 (retries and timeouts
 * included), so that ordered starts stay ordered (Kamke-Mueller). */
static void test_retry_pool_cooperative(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 100, 10.0, 40);
    ac_solver_pool_model *m = NULL;
    ac_error err = {0};
    unsigned long long seed = 12345;
    double *q, *J;
    size_t n, bad = 0;
    (void)state;
    p.timeout = 0.8;
    p.retries = 2;
    for (int extra = 0; extra < 2; extra++) {
        assert_int_equal(ac_solver_pool_model_new(&p, extra ? 2100.0 : 700.0, 0, &m, &err), 0);
        n = ac_solver_pool_model_dim(m);
        q = malloc(n * sizeof *q);
        J = malloc(n * n * sizeof *J);
        assert_non_null(q);
        assert_non_null(J);
        for (int trial = 0; trial < 200; trial++) {
            double top = 1.0;
            for (size_t k = 0; k < n; k++) { /* a random ordered state */
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                top *= (double)(seed >> 11) / 9007199254740992.0;
                q[k] = trial % 2 ? top : pow(top, 0.05);
            }
            ac_solver_pool_model_jacobian(m, q, J);
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    if (i != j && J[i * n + j] < 0.0)
                        bad++;
        }
        free(q);
        free(J);
        ac_solver_pool_model_free(m);
        m = NULL;
    }
    assert_int_equal(bad, 0);
}

/* The bistability onset (ac_solver_pool_bistable_onset) of the section 3 pool (power-of-two
 * at 700/s and random dispatch at 500/s, K 40, theta 8, r 2): the pool is bistable 1e-4 above the
 * estimate and has one equilibrium 1e-4 below it (solved in full, from empty and from full), and a
 * solution that is not bistable is refused. */
static void test_bistable_onset(void **state)
{
    static const ac_dispatch dispatch[] = {AC_DISPATCH_POWER_OF_D, AC_DISPATCH_RANDOM};
    static const double rate[] = {700.0, 500.0};
    ac_solver_options o;
    (void)state;
    ac_solver_options_init(&o);
    o.burst_search = 0;
    for (size_t c = 0; c < 2; c++) {
        ac_pool p = make_pool(dispatch[c], 1000, 1.0, 40);
        ac_solver_pool_result *r, *above, *below;
        ac_error err = {0};
        double x_c = NAN;
        p.timeout = 8.0;
        p.retries = 2;
        r = solve_ok(&p, rate[c], &o);
        assert_true(r->bistable);
        assert_int_equal(ac_solver_pool_bistable_onset(&p, r, 1e-6, &x_c, &err), 0);
        assert_true(x_c > 0.0 && x_c < rate[c]);
        above = solve_ok(&p, x_c * (1.0 + 1e-4), &o);
        below = solve_ok(&p, x_c * (1.0 - 1e-4), &o);
        assert_true(above->bistable);
        assert_false(below->bistable);
        assert_int_equal(below->nequilibria, 1);
        /* not bistable: refused */
        assert_int_equal(ac_solver_pool_bistable_onset(&p, below, 1e-6, &x_c, &err), AC_EINVAL);
        ac_solver_pool_result_free(r);
        ac_solver_pool_result_free(above);
        ac_solver_pool_result_free(below);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_closed_form),
        cmocka_unit_test(test_pod_closed_form),
        cmocka_unit_test(test_mm1_response_time),
        cmocka_unit_test(test_mm1k),
        cmocka_unit_test(test_shared_queue_erlang_c),
        cmocka_unit_test(test_shared_queue_loss),
        cmocka_unit_test(test_refined_reference),
        cmocka_unit_test(test_refined_distinct),
        cmocka_unit_test(test_stability),
        cmocka_unit_test(test_lyapunov_random),
        cmocka_unit_test(test_metastable),
        cmocka_unit_test(test_timeout_fraction),
        cmocka_unit_test(test_jsq_jiq),
        cmocka_unit_test(test_overload),
        cmocka_unit_test(test_all_starts),
        cmocka_unit_test(test_model_api),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_shared_queue_closed_law),
        cmocka_unit_test(test_mmnb_response_law),
        cmocka_unit_test(test_burst_reuse_vs_cold),
        cmocka_unit_test(test_retry_pool_cooperative),
        cmocka_unit_test(test_bistable_onset),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("solver", tests, NULL, NULL);
}
