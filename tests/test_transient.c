/*
 * Tests of the fluid transient of a network (solver/transient*.c, include/archcheck/transient.h),
 * of its autoscalers, of the recovery and scaling requirements (analysis/req_capacity.c) and
 * of the QNA two-moment correction (analysis/qna.c).
 *
 * Tolerances (stated at each assertion):
 *   transient at a long horizon vs the solver's fixed point        1e-6 absolute on every q_k
 *   conservation of jobs (counters integrated in the ODE)           1e-6 relative
 *   recovery vs the fluid hand computation                          10% relative (see the test)
 *   QNA vs the Kingman/Whitt formula (the same formula)             1e-9 relative
 *   scaler event times vs the rule (the integrator stops there)     1e-9 s
 *   server-hours vs int N dt by hand (N piecewise constant)         1e-12 relative
 *   autoscaled-api.xml vs its hand estimate                         5 events, 5% pod-hours
 *
 * This file: convergence, recovery, conservation, QNA, the command line, the workspace and
 * faults in time; the autoscalers: test_transient_autoscale.c; serverless stages:
 * test_transient_serverless.c (helpers in tests/transient_helpers.h).
 */
#include "helpers.h"

#include <time.h>

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/transient.h"

#include "transient_helpers.h"

/* ---- convergence to the steady state ------------------------------------------------------- */

/* A constant profile, started empty: at a long horizon every pool's q equals the solver's
 * fixed point (the mean-field q of its operating equilibrium) within 1e-6, in a network of a
 * power-of-two pool feeding a random pool (p = 0.5) and a shared queue (p = 0.5). */
static void test_constant_profile_converges(void **state)
{
    static const char xml[] =
        "<architecture name='c' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='a' rate='6/s'/>\n"
        "    <profile source='s'><point at='0s' rate='6/s'/><point at='400s' "
        "rate='6/s'/></profile>\n"
        "  </workload>\n"
        "  <pool id='a' servers='10' service-rate='1/s' dispatch='power-of-d' d='2'/>\n"
        "  <pool id='b' servers='4' service-rate='2/s'/>\n"
        "  <pool id='c' servers='3' service-rate='2/s' dispatch='shared-queue'/>\n"
        "  <route from='a' to='b' p='0.5'/>\n"
        "  <route from='a' to='c' p='0.5'/>\n"
        "</architecture>\n";
    ac_analysis_options o = base_opt();
    fx f;
    (void)state;
    o.transient_opt.start = AC_TRANSIENT_START_EMPTY;
    analyse(&f, xml, &o);
    assert_string_equal(transient_of(&f)->method, "cvode-bdf");
    for (size_t i = 0; i < f.m->nnodes; i++) {
        const ac_transient_node *n = &transient_of(&f)->nodes[i];
        const ac_solver_pool_result *r = f.a->nodes[i].pool;
        const ac_solver_equilibrium *e;
        assert_true(n->modelled);
        assert_non_null(r);
        e = &r->equilibria[r->operating];
        /* empty at t = 0 */
        assert_double_close(n->mean_jobs[0], 0.0, 1e-15, 0.0);
        for (size_t k = 0; k < n->dim; k++) {
            double ref = k < e->dim ? e->q[k] : 0.0;
            assert_double_close(n->q_final[k], ref, 1e-6, 0.0);
        }
        /* the flows at the end: throughput = offered (no loss) */
        assert_double_close(n->throughput[transient_of(&f)->nsamples - 1],
                            f.a->nodes[i].arrival_rate, 1e-6, 1e-6);
    }
    fx_free(&f);
}

/* Started at the steady state (the default), a constant profile stays there. */
static void test_steady_start_stays(void **state)
{
    static const char xml[] = "<architecture name='c' format='1'>\n"
                              "  <workload>\n"
                              "    <source id='s' to='a' rate='0.8/s'/>\n"
                              "    <profile source='s'><point at='0s' rate='0.8/s'/><point "
                              "at='50s' rate='0.8/s'/></profile>\n"
                              "  </workload>\n"
                              "  <pool id='a' servers='1' service-rate='1/s'/>\n"
                              "</architecture>\n";
    ac_analysis_options o = base_opt();
    fx f;
    (void)state;
    analyse(&f, xml, &o);
    assert_true(transient_of(&f)->started_steady);
    for (size_t s = 0; s < transient_of(&f)->nsamples; s++) /* M/M/1: E[L] = rho / (1 - rho) */
        assert_double_close(transient_of(&f)->nodes[0].mean_jobs[s], 4.0, 1e-6, 1e-6);
    fx_free(&f);
}

/* ---- recovery after a burst ------------------------------------------------------------------ */

/*
 * One server (random dispatch with N = 1 is the M/M/1 queue; its mean-field ODE is the exact
 * Kolmogorov equation of P(L >= k)), mu = 1/s, base rate lambda0 = 0.1/s, a burst at
 * lambda1 = 10/s from 11 s to 51 s (1 s ramps). Fluid hand computation: the queue builds up
 * B = int max(0, lambda(t) - mu) dt (= 9 * 40 + two ramps = 368.2 jobs) and then drains at
 * mu - lambda0 = 0.9/s: recovery ~ B / (mu - lambda0) = 409 s after the burst ends (52 s).
 * The requirement <utilization max="0.5"/> holds in steady state (0.1); it is met again when
 * P(busy) < 0.5, i.e. when about half the probability mass has emptied: the median of the
 * time to empty, which equals the fluid time up to the spread of the queue (its standard
 * deviation relative to the drain time is about sqrt((l1 + mu) T) / B + sqrt((l0 + mu) /
 * ((mu - l0) B)) = 6% + 6%, and the median of a nearly Gaussian law is its mean): hence the
 * 10% tolerance, which the numbers meet by far (the difference is below 2%).
 */
static const char burst_xml_fmt[] =
    "<architecture name='r' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='a' rate='0.1/s'/>\n"
    "    <profile source='s'>\n"
    "      <point at='0s' rate='0.1/s'/><point at='10s' rate='0.1/s'/>\n"
    "      <point at='11s' rate='10/s'/><point at='51s' rate='10/s'/>\n"
    "      <point at='52s' rate='0.1/s'/><point at='600s' rate='0.1/s'/>\n"
    "    </profile>\n"
    "  </workload>\n"
    "  <pool id='a' servers='1' service-rate='1/s'/>\n"
    "  <requirements>\n"
    "    <utilization max='0.5'/>\n"
    "    <recovery max='%s'/>\n"
    "  </requirements>\n"
    "</architecture>\n";

/* B = int max(0, lambda(t) - mu) dt for the profile above, by a fine trapezoid rule. */
static double burst_buildup(const ac_model *m)
{
    double b = 0.0, h = 1e-4;
    for (double t = 0.0; t < 600.0; t += h) {
        double r0 = ac_transient_source_rate(m, 0, 1.0, t);
        double r1 = ac_transient_source_rate(m, 0, 1.0, t + h);
        b += 0.5 * h * (fmax(0.0, r0 - 1.0) + fmax(0.0, r1 - 1.0));
    }
    return b;
}

static void test_recovery_mm1_burst(void **state)
{
    char xml[2048];
    ac_analysis_options o = base_opt();
    const ac_check *ck;
    double B, expect;
    fx f;
    (void)state;
    o.transient_opt.samples = 1201;
    snprintf(xml, sizeof xml, burst_xml_fmt, "10min");
    analyse(&f, xml, &o);
    assert_true(transient_of(&f)->has_burst);
    assert_double_close(transient_of(&f)->burst_end, 52.0, 1e-9, 0.0);
    B = burst_buildup(f.m);
    assert_double_close(B, 368.18, 0.01, 0.0);
    expect = B / (1.0 - 0.1);
    ck = find_check(f.a, "recovery");
    assert_true(ck->has_value);
    print_message("recovery %.3f s, fluid hand computation %.3f s (%s, %zu states)\n", ck->value,
                  expect, transient_of(&f)->method, transient_of(&f)->dim);
    assert_double_close(ck->value, expect, 0.0, 0.10);
    assert_int_equal(ck->status, AC_CHECK_PASS);
    assert_null(maybe_rule(&f.d, "AC206"));
    /* the queue was really built up and drained */
    {
        const ac_transient_node *n = &transient_of(&f)->nodes[0];
        double peak = 0.0;
        for (size_t s = 0; s < transient_of(&f)->nsamples; s++)
            peak = fmax(peak, n->mean_jobs[s]);
        assert_double_close(peak, B, 0.0, 0.05);
        assert_true(n->max_tail < 1e-6);
    }
    fx_free(&f);

    /* a tighter limit fails with AC206, stating the measured time and the limit */
    snprintf(xml, sizeof xml, burst_xml_fmt, "5min");
    analyse(&f, xml, &o);
    ck = find_check(f.a, "recovery");
    assert_int_equal(ck->status, AC_CHECK_FAIL);
    assert_double_close(ck->limit, 300.0, 1e-9, 0.0);
    assert_non_null(strstr(find_rule(&f.d, "AC206")->detail, "utilization of 'a'"));
    fx_free(&f);
}

/* A horizon that ends before the system is back: AC206 when the horizon is longer than the
 * limit (it did not recover in time), AC900 when it is shorter (undecidable). */
static void test_recovery_not_within_horizon(void **state)
{
    char xml[2048];
    ac_analysis_options o = base_opt();
    const ac_check *ck;
    fx f;
    (void)state;
    snprintf(xml, sizeof xml, burst_xml_fmt, "100s");
    o.transient_opt.horizon = 200.0;
    analyse(&f, xml, &o);
    ck = find_check(f.a, "recovery");
    assert_int_equal(ck->status, AC_CHECK_FAIL);
    assert_double_close(ck->value, 148.0, 1e-9, 0.0);
    assert_non_null(strstr(find_rule(&f.d, "AC206")->detail, "does not recover"));
    fx_free(&f);

    snprintf(xml, sizeof xml, burst_xml_fmt, "10min");
    analyse(&f, xml, &o);
    ck = find_check(f.a, "recovery");
    assert_int_equal(ck->status, AC_CHECK_INCONCLUSIVE);
    assert_true(has_message(&f.d, "AC900", "extend the horizon"));
    fx_free(&f);
}

/* Without a profile there is no burst: recovery is inconclusive, and says why. */
static void test_recovery_without_profile(void **state)
{
    static const char xml[] = "<architecture name='n' format='1'>\n"
                              "  <workload><source id='s' to='a' rate='0.5/s'/></workload>\n"
                              "  <pool id='a' servers='1' service-rate='1/s'/>\n"
                              "  <requirements><recovery max='60s'/></requirements>\n"
                              "</architecture>\n";
    ac_analysis_options o = base_opt();
    const ac_diag *dg;
    fx f;
    (void)state;
    analyse(&f, xml, &o);
    assert_null(f.a->transient);
    dg = maybe_rule(&f.d, "AC900");
    assert_non_null(dg);
    assert_non_null(strstr(dg != NULL ? dg->message : "", "no <profile>"));
    assert_int_equal(find_check(f.a, "recovery")->status, AC_CHECK_INCONCLUSIVE);
    fx_free(&f);
}

/* Without load requirements, recovery is the mean jobs back within 5% of the steady state. */
static void test_recovery_mean_jobs(void **state)
{
    static const char xml[] =
        "<architecture name='r' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='a' rate='5/s'/>\n"
        "    <profile source='s'>\n"
        "      <point at='0s' rate='5/s'/><point at='10s' rate='5/s'/>\n"
        "      <point at='10.1s' rate='30/s'/><point at='20s' rate='30/s'/>\n"
        "      <point at='20.1s' rate='5/s'/><point at='200s' rate='5/s'/>\n"
        "    </profile>\n"
        "  </workload>\n"
        "  <pool id='a' servers='2' service-rate='10/s' dispatch='shared-queue'/>\n"
        "  <requirements><recovery max='60s'/></requirements>\n"
        "</architecture>\n";
    ac_analysis_options o = base_opt();
    const ac_check *ck;
    double n_end, drain, expect;
    fx f;
    (void)state;
    o.transient_opt.samples = 2001;
    analyse(&f, xml, &o);
    ck = find_check(f.a, "recovery");
    assert_int_equal(ck->status, AC_CHECK_PASS);
    /* shared queue, fluid dn/dt = Lambda - mu min(n, N): n grows by 10/s for ~9.95 s (ramps
     * of 0.1 s: 10 * 9.9 + 2 * 0.05 * 10 / 2 = 99.5 jobs above N = 2 at 20.1 s), drains at
     * 15/s to n = N (6.63 s), then decays as n - 0.5 = 1.5 e^{-10 t'} until within 5% of the
     * fixed point n = 0.5 (x = 0.25 per server): t' = ln(1.5 / 0.025) / 10 = 0.41 s. */
    n_end = 10.0 * 9.9 + 2.0 * 0.5 * 0.1 * 10.0 / 2.0 + 2.0;
    drain = (n_end - 2.0) / 15.0;
    expect = drain + log(1.5 / 0.025) / 10.0;
    assert_double_close(ck->value, expect, 0.0, 0.02);
    fx_free(&f);
}

/* ---- conservation ------------------------------------------------------------------------- */

/* The fluid transient of a tandem conserves jobs: for each pool, jobs offered - jobs departed
 * = N (E[L](H) - E[L](0)) (no buffer, nothing lost), the second pool is offered exactly what
 * the first one sends, and the first is offered the integral of the profile. With msbdf and
 * with the explicit fallback (dense limit forced down), which agree. */
static void tandem_check(size_t dense_max, double *final_jobs)
{
    static const char xml[] =
        "<architecture name='t' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='a' rate='1/s'/>\n"
        "    <profile source='s'>\n"
        "      <point at='0s' rate='1/s'/><point at='5s' rate='3/s'/>\n"
        "      <point at='15s' rate='3/s'/><point at='20s' rate='1/s'/><point at='60s' "
        "rate='1/s'/>\n"
        "    </profile>\n"
        "  </workload>\n"
        "  <pool id='a' servers='2' service-rate='1/s'/>\n"
        "  <pool id='b' servers='2' service-rate='0.8/s' dispatch='shared-queue'/>\n"
        "  <route from='a' to='b'/>\n"
        "</architecture>\n";
    ac_analysis_options o = base_opt();
    const ac_transient *tr;
    size_t H;
    double offered = 0.5 * (1 + 3) * 5 + 3 * 10 + 0.5 * (3 + 1) * 5 + 1 * 40;
    fx f;
    o.transient_opt.dense_max = dense_max;
    analyse(&f, xml, &o);
    tr = transient_of(&f);
    assert_string_equal(tr->method, dense_max > 0 ? "cvode-bdf" : "rkf45");
    H = tr->nsamples - 1;
    assert_double_close(tr->nodes[0].cum_arrivals[H], offered, 0.0, 1e-6);
    for (size_t i = 0; i < 2; i++) {
        const ac_transient_node *n = &tr->nodes[i];
        double N = 2.0;
        double in_system = N * (n->mean_jobs[H] - n->mean_jobs[0]);
        assert_double_close(n->cum_arrivals[H] - n->cum_departures[H], in_system, 1e-6, 1e-6);
        final_jobs[i] = n->mean_jobs[H];
        for (size_t s = 0; s <= H; s++)
            assert_true(n->loss_rate[s] == 0.0);
    }
    assert_double_close(tr->nodes[1].cum_arrivals[H], tr->nodes[0].cum_departures[H], 0.0, 1e-6);
    fx_free(&f);
}

static void test_tandem_conserves_jobs(void **state)
{
    double a[2], b[2];
    (void)state;
    tandem_check(AC_TRANSIENT_DENSE_MAX, a);
    tandem_check(0, b);
    /* both integrators at rtol 1e-7: their global errors differ by ~1e-5 relative */
    assert_double_close(a[0], b[0], 1e-4, 1e-4);
    assert_double_close(a[1], b[1], 1e-4, 1e-4);
}

/* ---- QNA ------------------------------------------------------------------------------------ */

/* One server, lambda = 0.5, mu = 1, arrivals with scv 4 (balanced H2, as the simulator draws
 * them): pool a, fed straight by the source, is an exact GI/M/1: T ~ Exp(mu (1 - sigma)) with
 * sigma the root of sigma = A(mu (1 - sigma)), A the H2 transform (found here by bisection).
 * Downstream (p = 1) pool b gets QNA: c_a^2 = 1 + (1 - rho^2)(4 - 1) = 3.25, its M/M/1 wait
 * (rho = 0.25, mu = 2) scaled by (3.25 + 1)/2 = 2.125: T = 2.125 W + S, so
 * P(T > t) = e^{-mu t} + rho mu (e^{-a t} - e^{-mu t}) / (mu - a), a = (mu - lambda) / 2.125. */
static double h2_lst(double s)
{
    double p1 = 0.5 * (1.0 + sqrt(3.0 / 5.0)), p2 = 1.0 - p1;
    double r1 = 2.0 * p1 * 0.5, r2 = 2.0 * p2 * 0.5;
    return p1 * r1 / (r1 + s) + p2 * r2 / (r2 + s);
}

static void test_qna_scv4(void **state)
{
    static const char xml[] =
        "<architecture name='q' format='1'>\n"
        "  <workload><source id='s' to='a' rate='0.5/s' scv='4'/></workload>\n"
        "  <pool id='a' servers='1' service-rate='1/s'/>\n"
        "  <pool id='b' servers='1' service-rate='2/s'/>\n"
        "  <route from='a' to='b'/>\n"
        "</architecture>\n";
    ac_analysis_options o = base_opt();
    const ac_node_analysis *na;
    double t, lo = 1e-9, hi = 1.0 - 1e-12, sigma, rate, ccdf;
    const double mu_b = 2.0, rho_b = 0.25, c = 2.125, a = (mu_b - 0.5) / c;
    fx f;
    (void)state;
    /* sigma: A(1 - sigma) - sigma changes sign once in (0, 1) */
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (h2_lst(1.0 - mid) - mid > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    sigma = 0.5 * (lo + hi);
    rate = 1.0 - sigma;
    analyse(&f, xml, &o);
    na = &f.a->nodes[0];
    assert_true(na->qna_exact);
    assert_false(na->qna);
    assert_double_close(na->arrival_scv, 4.0, 1e-12, 0.0);
    assert_double_close(na->mean_response_time, 1.0 / rate, 0.0, 1e-9);
    assert_double_close(na->mean_jobs, 0.5 / rate, 0.0, 1e-9); /* Little */
    assert_double_close(na->p99, -log(0.01) / rate, 0.0, 1e-9);
    assert_true(na->expected_rel_error == 0.0);
    /* heavier than Poisson arrivals, lighter than Kingman's 3.5 s here */
    assert_true(na->mean_response_time > 2.0 && na->mean_response_time < 3.5);
    /* the second pool: QNA with the departure SCV of the first */
    na = &f.a->nodes[1];
    assert_true(na->qna);
    assert_string_equal(ac_node_analysis_approximation(na), "qna");
    assert_double_close(na->arrival_scv, 3.25, 1e-9, 0.0);
    assert_double_close(na->qna_wait_factor, c, 1e-12, 0.0);
    /* M/M/1 at rho = 0.25: W = rho / (mu - lambda) = 0.25 / 1.5; T = W * 2.125 + 0.5 */
    assert_double_close(na->mean_response_time, 0.25 / 1.5 * c + 0.5, 0.0, 1e-9);
    assert_true(na->expected_rel_error > 0.0);
    t = na->p50;
    ccdf = exp(-mu_b * t) + rho_b * mu_b * (exp(-a * t) - exp(-mu_b * t)) / (mu_b - a);
    assert_double_close(ccdf, 0.5, 1e-7, 0.0);
    t = na->p99;
    ccdf = exp(-mu_b * t) + rho_b * mu_b * (exp(-a * t) - exp(-mu_b * t)) / (mu_b - a);
    assert_double_close(ccdf, 0.01, 1e-8, 0.0);
    fx_free(&f);
}

/* Poisson sources: QNA changes nothing. */
static void test_qna_poisson_noop(void **state)
{
    static const char xml[] = "<architecture name='q' format='1'>\n"
                              "  <workload><source id='s' to='a' rate='0.5/s'/></workload>\n"
                              "  <pool id='a' servers='1' service-rate='1/s'/>\n"
                              "</architecture>\n";
    ac_analysis_options o = base_opt();
    fx f;
    (void)state;
    analyse(&f, xml, &o);
    assert_false(f.a->nodes[0].qna);
    assert_string_equal(ac_node_analysis_approximation(&f.a->nodes[0]), "exact");
    assert_double_close(f.a->nodes[0].mean_response_time, 2.0, 0.0, 1e-9);
    fx_free(&f);
}

/* ---- command line ------------------------------------------------------------------------- */

static void test_cli_transient(void **state)
{
    char path[] = "/tmp/ac_test_trXXXXXX";
    int fd = mkstemp(path);
    char xml[2048];
    FILE *fp;
    (void)state;
    assert_true(fd >= 0);
    fp = fdopen(fd, "w");
    snprintf(xml, sizeof xml, burst_xml_fmt, "10min");
    fputs(xml, fp);
    fclose(fp);
    {
        ac_test_run r = run_ac("solve", "--transient", "--format", "csv", path, NULL);
        assert_int_equal(r.status, 0);
        assert_true(strncmp(r.out, "t_s,a.arrival_rate,a.throughput,a.mean_jobs", 43) == 0);
        ac_test_run_free(&r);
    }
    {
        ac_test_run r =
            run_ac("solve", "--transient", "--horizon", "100s", "--format", "json", path, NULL);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "\"horizon\": 100"));
        assert_non_null(strstr(r.out, "\"mean_jobs\": ["));
        ac_test_run_free(&r);
    }
    {
        ac_test_run r = run_ac("solve", "--horizon", "1x", "--transient", path, NULL);
        assert_int_equal(r.status, 2);
        ac_test_run_free(&r);
    }
    unlink(path);
}

/* ---- the workspace --------------------------------------------------------------------------- */

/*
 * One workspace, evaluated at workload factors 1, 2, 1 (its options.scale = 2 sizes the
 * truncation): source 40/s x scale -> gateway (50/s, burst 10) -> pool of 4 random-dispatch
 * servers at 40/s (independent M/M/1 queues). Steady start, constant rates, so every
 * sample is the fixed point: scale 1 admits 40/s, rho = 0.25, E[L] = rho / (1 - rho) = 1/3
 * per server; scale 2 offers 80/s, the bucket admits 50/s (30/s rejected), rho = 0.3125,
 * E[L] = 5/11. The third evaluation repeats the first exactly (nothing of an evaluation leaks into
 * the next); a factor above options.scale and a delay on a gateway are refused (AC_EINVAL).
 */
static void test_workspace_scales(void **state)
{
    static const char xml[] = "<architecture name='w' format='1'>\n"
                              "  <workload>\n"
                              "    <source id='s' to='g' rate='40/s'/>\n"
                              "    <profile source='s'><point at='0s' rate='40/s'/><point at='50s' "
                              "rate='40/s'/></profile>\n"
                              "  </workload>\n"
                              "  <gateway id='g' rate-limit='50/s' burst='10'/>\n"
                              "  <route from='g' to='a'/>\n"
                              "  <pool id='a' servers='4' service-rate='40/s'/>\n"
                              "</architecture>\n";
    const double scales[] = {1.0, 2.0, 1.0};
    const double L[] = {1.0 / 3.0, 5.0 / 11.0, 1.0 / 3.0}, rejected[] = {0.0, 30.0, 0.0};
    ac_transient_options o;
    ac_transient_ws *ws = NULL;
    const ac_transient *tr = NULL;
    ac_transient_fault fault = {0, AC_TRANSIENT_FAULT_DELAY, 0.1, 0.0, 10.0};
    ac_transient_plan plan = {1, &fault};
    double *first = NULL;
    size_t ia, ig, ns;
    trx x;
    (void)state;
    memset(&x, 0, sizeof x);
    ac_diag_list_init(&x.d);
    assert_int_equal(ac_parser_parse_memory(xml, strlen(xml), "t.xml", &x.m, &x.d, &x.err), AC_OK);
    ia = ac_model_find_node(x.m, "a");
    ig = ac_model_find_node(x.m, "g");
    ac_transient_options_init(&o);
    o.samples = 51;
    o.scale = 2.0;
    assert_int_equal(ac_transient_new(x.m, &o, &ws, &x.err), AC_OK);
    ns = o.samples;
    first = calloc(ns, sizeof *first);
    assert_non_null(first);
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(ac_transient_eval(ws, NULL, scales[k], &tr, &x.err), AC_OK);
        assert_true(tr->started_steady);
        for (size_t s = 0; s < ns; s++) {
            assert_double_close(tr->nodes[ia].mean_jobs[s], L[k], 1e-6, 1e-6);
            assert_double_close(tr->nodes[ig].loss_rate[s], rejected[k], 1e-6, 1e-6);
            if (k == 0)
                first[s] = tr->nodes[ia].mean_jobs[s];
            else if (k == 2)
                assert_true(tr->nodes[ia].mean_jobs[s] == first[s]);
        }
        assert_double_close(tr->nodes[ia].cum_arrivals[ns - 1],
                            50.0 * (scales[k] * 40.0 - rejected[k]), 1e-6, 1e-6);
    }
    assert_int_equal(ac_transient_eval(ws, NULL, 2.5, &tr, &x.err), AC_EINVAL);
    ac_error_clear(&x.err);
    assert_int_equal(ac_transient_eval(ws, &plan, 1.0, &tr, &x.err), AC_EINVAL);
    ac_error_clear(&x.err);
    ac_transient_ws_free(ws);
    ac_transient_ws_free(NULL);
    free(first);
    trx_free(&x);
}

/* ---- faults in time ---------------------------------------------------------------------- */

/* A workspace of xml (defaults, `samples` samples, capacity_min `cmin`) in x; x->tr unused. */
static ac_transient_ws *ws_of(trx *x, const char *xml, size_t samples, double cmin)
{
    ac_transient_options o;
    ac_transient_ws *ws = NULL;
    memset(x, 0, sizeof *x);
    ac_diag_list_init(&x->d);
    assert_int_equal(ac_parser_parse_memory(xml, strlen(xml), "t.xml", &x->m, &x->d, &x->err),
                     AC_OK);
    ac_transient_options_init(&o);
    o.samples = samples;
    o.capacity_min = cmin;
    assert_int_equal(ac_transient_new(x->m, &o, &ws, &x->err), AC_OK);
    return ws;
}

/*
 * Pool faults: 60/s to 4 random-dispatch servers at 40/s (independent M/M/1 queues, rho =
 * 0.375, E[L] = rho / (1 - rho) = 0.6 per server). Over the whole horizon, delay 10 ms (the
 * model's service: exponential of mean 25 + 10 ms, mu' = 28.571/s) and one server down:
 * the faulted model's M/M/1 has rho' = 60 / (3 mu') = 0.7, E[L] = 7/3, reached well within
 * the 200 s (relaxation about 1 / (mu' (1 - sqrt(rho'))^2) = 1.3 s); the plan's window
 * [20 s, 60 s) on the same workspace: 0.6 before, 7/3 at its end, 0.6 again at the horizon.
 * The workspace's truncation is sized for capacity_min = 0.5 (the plan leaves 3/4 x 28.6/40
 * = 0.54). Unmodelled faults are refused: fail-prob on a pool, servers-down >= servers.
 */
static void test_fault_pool(void **state)
{
    static const char xml[] = "<architecture name='f' format='1'>\n"
                              "  <workload>\n"
                              "    <source id='s' to='a' rate='60/s'/>\n"
                              "    <profile source='s'><point at='0s' rate='60/s'/><point "
                              "at='200s' rate='60/s'/></profile>\n"
                              "  </workload>\n"
                              "  <pool id='a' servers='4' service-rate='40/s'/>\n"
                              "</architecture>\n";
    ac_transient_fault f[2] = {{0, AC_TRANSIENT_FAULT_DELAY, 0.010, 0.0, INFINITY},
                               {0, AC_TRANSIENT_FAULT_SERVERS_DOWN, 1.0, 0.0, INFINITY}};
    ac_transient_fault bad[3] = {{0, AC_TRANSIENT_FAULT_FAIL_PROB, 0.1, 0.0, INFINITY},
                                 {0, AC_TRANSIENT_FAULT_SERVERS_DOWN, 4.0, 0.0, INFINITY},
                                 {0, AC_TRANSIENT_FAULT_SERVERS_DOWN, 3.0, 0.0, 1.0}};
    ac_transient_plan plan = {2, f};
    const ac_transient *tr = NULL;
    const double Lf = 0.7 / 0.3, L0 = 0.375 / 0.625;
    trx x;
    ac_transient_ws *ws = ws_of(&x, xml, 201, 0.5); /* the plan leaves 0.54 */
    size_t a = ac_model_find_node(x.m, "a"), H = 200;
    (void)state;
    assert_int_equal(ac_transient_eval(ws, &plan, 1.0, &tr, &x.err), AC_OK);
    assert_double_close(tr->nodes[a].mean_jobs[H], Lf, 1e-5, 1e-6);
    assert_double_close(tr->nodes[a].servers[H], 3.0, 0.0, 0.0);
    assert_double_close(tr->nodes[a].throughput[H], 60.0, 1e-6, 1e-6);
    f[0].start = f[1].start = 20.0;
    f[0].end = f[1].end = 60.0;
    assert_int_equal(ac_transient_eval(ws, &plan, 1.0, &tr, &x.err), AC_OK);
    assert_double_close(tr->nodes[a].mean_jobs[19], L0, 1e-5, 1e-6);
    assert_double_close(tr->nodes[a].mean_jobs[59], Lf, 1e-4, 1e-6);
    assert_double_close(tr->nodes[a].mean_jobs[H], L0, 1e-5, 1e-6);
    assert_double_close(tr->nodes[a].servers[40], 3.0, 0.0, 0.0);
    assert_double_close(tr->nodes[a].servers[H], 4.0, 0.0, 0.0);
    for (size_t k = 0; k < 3; k++) { /* the third leaves 1/4 < capacity_min */
        ac_transient_plan p1 = {1, &bad[k]};
        assert_int_equal(ac_transient_eval(ws, &p1, 1.0, &tr, &x.err), AC_EINVAL);
        ac_error_clear(&x.err);
    }
    /* no plan again: the model's own parameters (nothing of the faults stays) */
    assert_int_equal(ac_transient_eval(ws, NULL, 1.0, &tr, &x.err), AC_OK);
    assert_double_close(tr->nodes[a].mean_jobs[H], L0, 1e-6, 1e-6);
    assert_double_close(tr->nodes[a].servers[H], 4.0, 0.0, 0.0);
    ac_transient_ws_free(ws);
    trx_free(&x);
}

/*
 * Function and gateway faults over the whole horizon: 100/s through a gateway (150/s, burst
 * 10) to a sync function (concurrency 1000, 50 ms, timeout 3 s, no retries). Faulted:
 * capacity-loss 50% (the bucket admits 75/s, rejects 25/s), fail-prob 20% and delay 50 ms
 * on the function (an execution lasts 50 ms + Exp(50 ms), cut at 3 s: T_e = 0.05 + 0.05 (1 -
 * e^{-59}), p_f = e^{-59} + (1 - e^{-59}) 0.2): the faulted steady state has 75 T_e = 7.5
 * busy instances, 75 (1 - p_f) = 60/s succeeding and 15/s failing (the fluid has no
 * throttling below the concurrency). A cold-start fault changes no fluid steady state.
 */
static void test_fault_function_gateway(void **state)
{
    static const char xml[] =
        "<architecture name='f' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='g' rate='100/s'/>\n"
        "    <profile source='s'><point at='0s' rate='100/s'/><point at='100s' "
        "rate='100/s'/></profile>\n"
        "  </workload>\n"
        "  <gateway id='g' rate-limit='150/s' burst='10'/>\n"
        "  <route from='g' to='f'/>\n"
        "  <function id='f' invocation='sync' concurrency='1000' duration='50ms' timeout='3s'\n"
        "            keep-alive='1h'/>\n"
        "</architecture>\n";
    const ac_transient *tr = NULL;
    trx x;
    ac_transient_ws *ws = ws_of(&x, xml, 101, 1.0);
    size_t g = ac_model_find_node(x.m, "g"), fn = ac_model_find_node(x.m, "f"), H = 100;
    double e = exp(-59.0), Te = 0.05 + 0.05 * (1.0 - e), pf = e + (1.0 - e) * 0.2;
    ac_transient_fault f[4] = {{g, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 0.5, 0.0, INFINITY},
                               {fn, AC_TRANSIENT_FAULT_FAIL_PROB, 0.2, 0.0, INFINITY},
                               {fn, AC_TRANSIENT_FAULT_DELAY, 0.05, 0.0, INFINITY},
                               {fn, AC_TRANSIENT_FAULT_COLD_START, 2.0, 0.0, INFINITY}};
    ac_transient_plan plan = {4, f};
    (void)state;
    assert_int_equal(ac_transient_eval(ws, &plan, 1.0, &tr, &x.err), AC_OK);
    assert_double_close(tr->nodes[g].loss_rate[H], 25.0, 1e-6, 1e-6);
    assert_double_close(tr->nodes[g].throughput[H], 75.0, 1e-6, 1e-6);
    assert_double_close(tr->nodes[fn].busy[H], 75.0 * Te, 1e-5, 1e-6);
    assert_double_close(tr->nodes[fn].throughput[H], 75.0 * (1.0 - pf), 1e-6, 1e-6);
    assert_double_close(tr->nodes[fn].loss_rate[H], 75.0 * pf, 1e-5, 1e-6);
    /* without the plan: 100/s admitted, 5 busy, nothing lost */
    assert_int_equal(ac_transient_eval(ws, NULL, 1.0, &tr, &x.err), AC_OK);
    assert_double_close(tr->nodes[g].loss_rate[H], 0.0, 0.0, 1e-6);
    assert_double_close(tr->nodes[fn].busy[H], 5.0, 1e-5, 1e-6);
    assert_double_close(tr->nodes[fn].loss_rate[H], 0.0, 0.0, 1e-6);
    ac_transient_ws_free(ws);
    trx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_profile_converges),
        cmocka_unit_test(test_steady_start_stays),
        cmocka_unit_test(test_recovery_mm1_burst),
        cmocka_unit_test(test_recovery_not_within_horizon),
        cmocka_unit_test(test_recovery_without_profile),
        cmocka_unit_test(test_recovery_mean_jobs),
        cmocka_unit_test(test_tandem_conserves_jobs),
        cmocka_unit_test(test_qna_scv4),
        cmocka_unit_test(test_qna_poisson_noop),
        cmocka_unit_test(test_cli_transient),
        cmocka_unit_test(test_workspace_scales),
        cmocka_unit_test(test_fault_pool),
        cmocka_unit_test(test_fault_function_gateway),
    };
    gsl_set_error_handler_off();
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("transient", tests, NULL, NULL);
}
