/*
 * The Erlang-mixture response-time CCDF (solver/rtd.c, ac_solver_mix_ccdf) against closed
 * forms: the M/M/c wait, a mixture of Erlang(m, c mu) laws with geometric weights,
 * P(W > t) = C(c, a) e^{-(c mu - lambda) t}, and term by term Poisson sums in long double
 * (each term from lgammal, no recurrence) for other weights. Relative error <= 1e-12 at every
 * point from t = 0 to the 1e-12 tail, rho 0.5..0.999, both of its branches (r t < 700, and
 * the sum outward from the mode past it).
 */
#include "helpers.h"

#include "solver/pool.h"

#define REL_TOL 1e-12

static double max_rel;

static void check_point(double got, double want, double t)
{
    double rel = fabs(got - want) / want;
    if (rel > max_rel)
        max_rel = rel;
    if (!(rel <= REL_TOL))
        print_error("t = %.17g: got %.17g want %.17g (rel %.3g)\n", t, got, want, rel);
    assert_double_close(got, want, 0.0, REL_TOL);
}

/* The M/M/c wait as a mixture: w_0 = 1 - C, w_m = C (1 - rho) rho^{m-1}, rate c mu. */
static void mmc_case(size_t c, double rho)
{
    const double mu = 1.0, gamma = (double)c * mu * (1.0 - rho);
    double C = ac_test_erlang_c(c, rho * (double)c), tmax;
    size_t n = (size_t)ceil(92.0 / -log(rho)) + 2, m, k;
    double *w = malloc(n * sizeof *w);
    ac_solver_mix mx;
    ac_error err = {0};
    assert_non_null(w);
    w[0] = 1.0 - C;
    for (m = 1; m < n; m++)
        w[m] = C * (1.0 - rho) * pow(rho, (double)(m - 1));
    assert_int_equal(ac_solver_mix_init(&mx, (double)c * mu, w, n, &err), 0);
    tmax = log(1e12) / gamma; /* down to 1e-12 C */
    for (k = 1; k <= 400; k++) {
        double t = tmax * (double)k / 400.0;
        check_point(ac_solver_mix_ccdf(&mx, t), C * exp(-gamma * t), t);
    }
    ac_solver_mix_clear(&mx);
    free(w);
}

static void test_mmc_wait_closed_form(void **state)
{
    static const double rhos[] = {0.5, 0.7, 0.9, 0.97, 0.99, 0.995, 0.999};
    static const size_t cs[] = {1, 4, 16, 64, 256};
    (void)state;
    max_rel = 0.0;
    for (size_t i = 0; i < sizeof rhos / sizeof rhos[0]; i++)
        for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++)
            mmc_case(cs[j], rhos[i]);
    print_message("M/M/c wait: largest relative error %.3g\n", max_rel);
}

/* sum_i Pois(i; x) tail_i, every term exp(-x + i log x - log i!) in long double. */
static double reference_ccdf(const double *tail, size_t n, double x)
{
    long double s = 0.0L, lx = logl((long double)x);
    for (size_t i = 0; i + 1 < n; i++) {
        long double lp = -(long double)x + (long double)i * lx - lgammal((long double)i + 1.0L);
        if (lp > -11000.0L)
            s += expl(lp) * (long double)tail[i];
    }
    return (double)s;
}

/* Weights: a bump around m0 (Poisson-shaped, width sqrt m0) plus a geometric part. */
static void mixture_case(size_t n, double m0, double rho)
{
    double *w = malloc(n * sizeof *w), rate = 2.0;
    ac_solver_mix mx;
    ac_error err = {0};
    size_t m;
    assert_non_null(w);
    for (m = 0; m < n; m++) {
        double lb = -m0 + (double)m * log(m0) - lgamma((double)m + 1.0);
        w[m] = 0.5 * exp(lb) + 0.5 * (1.0 - rho) * pow(rho, (double)m);
    }
    assert_int_equal(ac_solver_mix_init(&mx, rate, w, n, &err), 0);
    /* x = rate t from 1 to 3 n: the small branch, the mode inside the weights, past them */
    for (size_t k = 0; k <= 300; k++) {
        double x = exp(log(3.0 * (double)n) * (double)k / 300.0), t = x / rate;
        double want = reference_ccdf(mx.tail, n, x), got = ac_solver_mix_ccdf(&mx, t);
        if (want < 1e-12 * mx.tail[0])
            continue; /* the 1e-12 tail is the range asked */
        check_point(got, want, t);
    }
    ac_solver_mix_clear(&mx);
    free(w);
}

static void test_mixture_against_long_double(void **state)
{
    (void)state;
    max_rel = 0.0;
    mixture_case(3000, 1000.0, 0.999);
    mixture_case(3000, 2500.0, 0.99);
    mixture_case(20000, 8000.0, 0.9995);
    mixture_case(800, 750.0, 0.5);
    print_message("mixtures: largest relative error %.3g\n", max_rel);
}

/* Two phases only (n = 2: the mode index clipped to 0): P(Exp(r) > t) = e^{-r t}. */
static void test_exponential_far_tail(void **state)
{
    const double w[2] = {0.0, 1.0};
    ac_solver_mix mx;
    ac_error err = {0};
    (void)state;
    assert_int_equal(ac_solver_mix_init(&mx, 1.0, w, 2, &err), 0);
    for (double x = 1.0; x < 740.0; x += 13.0)
        assert_double_close(ac_solver_mix_ccdf(&mx, x), exp(-x), 0.0, REL_TOL);
    ac_solver_mix_clear(&mx);
}

/* Short mixtures (n = 2..40 phases, weights 1 / (m + 1)^2 and a point mass at the last
 * phase) at x = r t from 0.01 to 3 n and 700..760: the sums end inside a block of terms, at
 * the last phase or past the Poisson mode; each against the long-double term sum. */
static void test_short_mixtures_block_edges(void **state)
{
    (void)state;
    max_rel = 0.0;
    for (size_t n = 2; n <= 40; n++) {
        double w[40];
        ac_solver_mix mx;
        ac_error err = {0};
        for (size_t m = 0; m < n; m++)
            w[m] = 1.0 / ((double)(m + 1) * (double)(m + 1)) + (m + 1 == n ? 1.0 : 0.0);
        assert_int_equal(ac_solver_mix_init(&mx, 1.0, w, n, &err), 0);
        for (size_t k = 0; k <= 200; k++) {
            double x = k < 160 ? 0.01 * pow(300.0 * (double)n, (double)k / 159.0)
                               : 700.0 + 1.5 * (double)(k - 160);
            double want = reference_ccdf(mx.tail, n, x);
            if (want < 1e-300)
                continue; /* below the normal range: the absolute 2^-1074 terms */
            check_point(ac_solver_mix_ccdf(&mx, x), want, x);
        }
        ac_solver_mix_clear(&mx);
    }
    print_message("short mixtures: largest relative error %.3g\n", max_rel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mmc_wait_closed_form),
        cmocka_unit_test(test_mixture_against_long_double),
        cmocka_unit_test(test_exponential_far_tail),
        cmocka_unit_test(test_short_mixtures_block_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
