/*
 * Tests of the end-to-end lattice's convolutions (analysis/e2e_walk.c: the last point's mass
 * convolved exactly, the rest by direct sums, one FFT or overlap-add in blocks) against
 * closed forms of tandems of M/M/1 stations. By Burke's theorem the sojourns of an open
 * tandem of M/M/1 stations crossed by every request are independent Exp(mu_i - lambda), so
 * the end-to-end time is a sum of independent exponentials:
 *   - distinct rates r_1..r_k: the hypoexponential law,
 *         P(T > t) = sum_i (prod_{j != i} r_j / (r_j - r_i)) exp(-r_i t);
 *   - n stations at rate a and n at rate b: Erlang(n, a) + Erlang(n, b), whose CDF is
 *         P(T <= t) = int_0^t f_{n,a}(x) P_{n,b}(t - x) dx     (GSL quadrature, QAG).
 * Every station has its own law (the chain's suffixes are all different pairs), so nothing is
 * shared and every pair is convolved. The quantiles are the closed forms' roots (GSL Brent).
 */
#include "helpers.h"
#include "fixture.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_gamma.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"

#include "analysis/internal.h"

#include "common/strbuf.h"

static const double LAMBDA = 10.0; /* requests per second */

/* A tandem of k single-server pools at service rates LAMBDA + r[i], every request crossing
 * all of them (p = 1). */
static char *tandem_xml(const double *r, size_t k)
{
    ac_strbuf sb = {0};
    ac_strbuf_printf(&sb,
                     "<architecture name=\"tandem\" format=\"1\">\n"
                     "<workload><source id=\"s\" to=\"n0\" rate=\"%.17g/s\"/></workload>\n",
                     LAMBDA);
    for (size_t i = 0; i < k; i++)
        ac_strbuf_printf(&sb, "<pool id=\"n%zu\" servers=\"1\" service-rate=\"%.17g/s\"/>\n", i,
                         LAMBDA + r[i]);
    for (size_t i = 0; i + 1 < k; i++)
        ac_strbuf_printf(&sb, "<route from=\"n%zu\" to=\"n%zu\" p=\"1\"/>\n", i, i + 1);
    ac_strbuf_printf(&sb, "</architecture>\n");
    return sb.data;
}

typedef struct law_q {
    double (*cdf)(const struct law_q *, double);
    const double *r;
    size_t k;
    double a, b; /* the two-Erlang law's rates, its shape in k */
    double p;    /* the quantile sought */
    gsl_integration_workspace *ws;
} law_q;

static double hypo_cdf(const law_q *q, double t)
{
    double s = 0.0;
    for (size_t i = 0; i < q->k; i++) {
        double c = 1.0;
        for (size_t j = 0; j < q->k; j++)
            if (j != i)
                c *= q->r[j] / (q->r[j] - q->r[i]);
        s += c * exp(-q->r[i] * t);
    }
    return 1.0 - s;
}

typedef struct conv_arg {
    const law_q *q;
    double t;
} conv_arg;

static double conv_integrand(double x, void *p)
{
    const conv_arg *c = p;
    return gsl_ran_gamma_pdf(x, (double)c->q->k, 1.0 / c->q->a) *
           gsl_sf_gamma_inc_P((double)c->q->k, c->q->b * (c->t - x));
}

static double two_erlang_cdf(const law_q *q, double t)
{
    conv_arg c = {q, t};
    gsl_function f = {conv_integrand, &c};
    double v = NAN, e = 0.0;
    int st = gsl_integration_qag(&f, 0.0, t, 1e-13, 1e-11, 1000, GSL_INTEG_GAUSS61, q->ws, &v, &e);
    assert_int_equal(st, GSL_SUCCESS);
    return v;
}

static double root_fn(double t, void *p)
{
    const law_q *q = p;
    return q->cdf(q, t) - q->p;
}

/* The p-quantile of q's law, bracketed in (0, hi]. */
static double quantile(law_q *q, double p, double hi)
{
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_function f = {root_fn, q};
    double x = NAN;
    assert_non_null(s);
    q->p = p;
    assert_int_equal(gsl_root_fsolver_set(s, &f, 1e-9, hi), GSL_SUCCESS);
    for (int it = 0; it < 200; it++) {
        assert_int_equal(gsl_root_fsolver_iterate(s), GSL_SUCCESS);
        x = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0.0,
                                   1e-12) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    return x;
}

/* The lattice's p50, p95, p99 of the tandem at rates r against law q: within their stated
 * error (the bracket), and that error below `max_rel`. */
static void check_tandem(const double *r, size_t k, law_q *q, double hi, double max_rel)
{
    static const double qs[3] = {0.50, 0.95, 0.99};
    char *xml = tandem_xml(r, k);
    fx f;
    ac_analysis_options o = no_sim();
    analyse_with(&f, xml, &o);
    if (!f.a->e2e.percentiles)
        print_error("percentiles not computed: %s\n", f.a->e2e.why);
    assert_true(f.a->e2e.percentiles);
    for (int i = 0; i < 3; i++) {
        double exact = quantile(q, qs[i], hi), v, rel;
        assert_int_equal(ac_an_e2e_quantile(&f.a->e2e, qs[i], &v, &rel), AC_OK);
        print_message("tandem of %zu: p%g %.8g (stated %.3g%%), closed form %.8g (%+.3g%%)\n", k,
                      100 * qs[i], v, 100 * rel, exact, 100 * (v - exact) / exact);
        assert_true(fabs(v - exact) <= rel * v);
        assert_true(rel < max_rel);
    }
    fx_free(&f);
    free(xml);
}

/* Six stations of distinct sojourn rates 20, 27, ..., 55 /s: the hypoexponential law. */
static void test_hypoexponential_tandem(void **state)
{
    double r[6];
    law_q q = {hypo_cdf, r, 6, 0.0, 0.0, 0.0, NULL};
    (void)state;
    for (size_t i = 0; i < 6; i++)
        r[i] = 20.0 + 7.0 * (double)i;
    check_tandem(r, 6, &q, 10.0, 0.05);
}

/* A hundred stations, fifty of sojourn rate 30 /s then fifty of 90 /s (the lattice at its
 * most points; the node laws much shorter than the laws downstream of them: overlap-add):
 * Erlang(50, 30) + Erlang(50, 90). */
static void test_two_erlang_deep_tandem(void **state)
{
    double r[100];
    law_q q = {two_erlang_cdf, NULL, 50, 30.0, 90.0, 0.0, NULL};
    (void)state;
    q.ws = gsl_integration_workspace_alloc(1000);
    assert_non_null(q.ws);
    for (size_t i = 0; i < 100; i++)
        r[i] = i < 50 ? 30.0 : 90.0;
    check_tandem(r, 100, &q, 20.0, 0.02);
    gsl_integration_workspace_free(q.ws);
}

/*
 * samples/tandem.xml (the benchmark's tandem, bench/bench_ratio.c): three random-dispatch
 * pools, every server an M/M/1 at lambda_s = 30, 40, 20 /s against mu = 50, 80, 28.57 /s, so
 * (Burke) the end-to-end time is hypoexponential at rates 20, 40, 8.571 /s (p95 0.4424 s).
 * The lattice's p95 bracket contains it and meets the 1% rule: its half-width at most 1% of
 * the quantile, and the discretisation (the bracket's half-width) within 1% of the mean
 * (visits x step <= 1% of the mean: 0.0019 s here; a lattice of half the points fails it);
 * and at every point of the lattice, both laws on their side of the closed form.
 */
static void test_sample_tandem_p95(void **state)
{
    const double r[3] = {50.0 - 30.0, 80.0 - 40.0, 1.0 / 0.035 - 20.0};
    law_q q = {hypo_cdf, r, 3, 0.0, 0.0, 0.0, NULL};
    char *xml = ac_test_read_file(AC_SOURCE_DIR "/samples/tandem.xml");
    double exact, v, rel;
    fx f;
    ac_analysis_options o = no_sim();
    (void)state;
    assert_non_null(xml);
    analyse_with(&f, xml, &o);
    assert_true(f.a->e2e.percentiles);
    exact = quantile(&q, 0.95, 10.0);
    assert_double_close(exact, 0.4424, 0, 1e-4); /* the sample's hand value */
    assert_int_equal(ac_an_e2e_quantile(&f.a->e2e, 0.95, &v, &rel), AC_OK);
    print_message("samples/tandem.xml: p95 %.8g (stated %.3g%%), closed form %.8g (%+.3g%%)\n", v,
                  100 * rel, exact, 100 * (v - exact) / exact);
    assert_true(fabs(v - exact) <= rel * v);
    assert_true(rel <= 0.01);
    assert_true(rel * v <= 0.01 * f.a->e2e.mean_response_time);
    assert_double_close(f.a->e2e.mean_response_time, 1 / r[0] + 1 / r[1] + 1 / r[2], 0, 1e-6);
    /* the bracket at every point of the lattice: P(T_floor > t_k) <= P(T > t_k) <= P(T_ceil >
       t_k) (the ceiling law is the floor law moved up three points here: e2e.c's
       upper_from_floor), to the FFTs' rounding; the last point stands for "at least" */
    for (size_t k = 0; k + 1 < f.a->e2e.grid_n; k++) {
        double t = f.a->e2e.grid_t[k], cc = 1.0 - hypo_cdf(&q, t);
        assert_true(f.a->e2e.grid_ccdf_lo[k] <= cc + 1e-12);
        assert_true(f.a->e2e.grid_ccdf_hi[k] >= cc - 1e-12);
    }
    fx_free(&f);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hypoexponential_tandem),
        cmocka_unit_test(test_two_erlang_deep_tandem),
        cmocka_unit_test(test_sample_tandem_p95),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
