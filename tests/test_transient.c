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
 */
#include "helpers.h"

#include <time.h>

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/transient.h"

typedef struct fx {
    ac_model *m;
    ac_diag_list d;
    ac_analysis *a;
    ac_error err;
} fx;

static void dump(const ac_diag_list *d)
{
    for (size_t i = 0; i < d->count; i++)
        print_message("  %u:%u %s [%s] %s\n", d->items[i].line, d->items[i].column,
                      d->items[i].rule, d->items[i].node != NULL ? d->items[i].node : "-",
                      d->items[i].message);
}

static ac_analysis_options base_opt(void)
{
    ac_analysis_options o;
    ac_analysis_options_init(&o);
    o.validate = AC_VALIDATE_NEVER;
    o.headroom = 0;
    /* the trajectories are under test: integrate them even without a requirement that
       reads them (AUTO would skip them then) */
    o.transient = AC_TRANSIENT_ALWAYS;
    return o;
}

static void analyse(fx *f, const char *xml, const ac_analysis_options *opt)
{
    int rc;
    memset(f, 0, sizeof *f);
    ac_diag_list_init(&f->d);
    rc = ac_parser_parse_memory(xml, strlen(xml), "t.xml", &f->m, &f->d, &f->err);
    if (rc != AC_OK) {
        dump(&f->d);
        print_error("parse failed: %d %s\n", rc, f->err.message);
    }
    assert_int_equal(rc, AC_OK);
    rc = ac_analysis_run(f->m, opt, &f->a, &f->d, &f->err);
    if (rc != AC_OK)
        print_error("analysis failed: %d %s\n", rc, f->err.message);
    assert_int_equal(rc, AC_OK);
}

static void fx_free(fx *f)
{
    ac_analysis_free(f->a);
    ac_model_free(f->m);
    ac_diag_list_clear(&f->d);
}

static const ac_diag *maybe_rule(const ac_diag_list *d, const char *rule)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].rule, rule) == 0)
            return &d->items[i];
    return NULL;
}

/* Is there a finding with this rule whose message contains text? */
static int has_message(const ac_diag_list *d, const char *rule, const char *text)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].rule, rule) == 0 && strstr(d->items[i].message, text) != NULL)
            return 1;
    dump(d);
    return 0;
}

/* The first finding with this rule; the test fails without one. */
static const ac_diag *find_rule(const ac_diag_list *d, const char *rule)
{
    static char empty[1];
    static const ac_diag none = {.message = empty, .detail = empty};
    const ac_diag *x = maybe_rule(d, rule);
    if (x == NULL) {
        dump(d);
        fail_msg("no %s finding", rule);
        return &none;
    }
    if (x->detail == NULL)
        return &none; /* "" */
    return x;
}

/* The first check whose name starts with prefix; the test fails without one. */
static const ac_check *find_check(const ac_analysis *a, const char *prefix)
{
    static const ac_check none;
    for (size_t i = 0; i < a->nchecks; i++)
        if (strncmp(a->checks[i].name, prefix, strlen(prefix)) == 0)
            return &a->checks[i];
    fail_msg("no check '%s...'", prefix);
    return &none;
}

/* The analysis' transient; the test fails without one. */
static const ac_transient *transient_of(const fx *f)
{
    static const ac_transient none;
    if (f->a->transient == NULL) {
        fail_msg("no transient: %s", f->a->transient_note);
        return &none;
    }
    return f->a->transient;
}



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
        "    <profile source='s'><point at='0s' rate='6/s'/><point at='400s' rate='6/s'/></profile>\n"
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
    static const char xml[] =
        "<architecture name='c' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='a' rate='0.8/s'/>\n"
        "    <profile source='s'><point at='0s' rate='0.8/s'/><point at='50s' rate='0.8/s'/></profile>\n"
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
    static const char xml[] =
        "<architecture name='n' format='1'>\n"
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
        "      <point at='15s' rate='3/s'/><point at='20s' rate='1/s'/><point at='60s' rate='1/s'/>\n"
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
    static const char xml[] =
        "<architecture name='q' format='1'>\n"
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

/* ---- the autoscaler ------------------------------------------------------------------------ */

/*
 * A pool of power-of-two servers, mu = 10/s, with an HPA-like scaler: target 60%, look every
 * 15 s, tolerance 10%, 30 s start-up, 5 min cooldown, 2..30 servers. Without load changes
 * the per-server load is Lambda / (N mu) at once (the fluid relaxes in a few 1/mu = 0.1 s).
 */
static const char scaled_fmt[] =
    "<architecture name='as' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='a' rate='%s'/>\n"
    "%s"
    "  </workload>\n"
    "  <pool id='a' servers='%d' service-rate='10/s' dispatch='power-of-d' d='2'>\n"
    "    <autoscale min='2' max='30' target-utilization='60%%' interval='15s' tolerance='10%%'\n"
    "               scale-up-delay='30s' cooldown='5min'/>\n"
    "  </pool>\n"
    "%s"
    "</architecture>\n";

static void analyse_scaled(fx *f, const char *rate, const char *profile, int servers,
                           const char *req, const ac_analysis_options *o)
{
    char xml[4096];
    snprintf(xml, sizeof xml, scaled_fmt, rate, profile, servers, req);
    analyse(f, xml, o);
}

/* The serving count at time t from the change log (before the changes at t itself). */
static double servers_at(const ac_transient_node *n, double t)
{
    double N = (double)n->start_servers;
    for (size_t k = 0; k < n->nchanges && n->change_t[k] < t; k++)
        N = (double)n->change_servers[k];
    return N;
}

/* Jobs are conserved through the remaps: offered - departed = N(H) L(H) - N(0) L(0). */
static void assert_conserved(const ac_transient *tr, size_t node)
{
    const ac_transient_node *n = &tr->nodes[node];
    size_t H = tr->nsamples - 1;
    double in_system = n->servers[H] * n->mean_jobs[H] - n->servers[0] * n->mean_jobs[0];
    assert_double_close(n->cum_arrivals[H] - n->cum_departures[H], in_system, 1e-6, 1e-6);
    assert_true(n->drained_jobs == 0.0);
}

/*
 * Constant load Lambda = 63/s: the HPA fixed point is ceil(Lambda / (mu target)) =
 * ceil(10.5) = 11 servers (utilisation 0.573, ratio 0.955: within the tolerance, held).
 * From 8 servers (utilisation 0.79): the look at t = 0 orders 3, which serve at t = 30 s.
 * From 20 (utilisation 0.315): the first look recommends 11, but the starting count counts
 * as recommended at t = 0, so the scale-down waits for the cooldown: t = 300 s. In both
 * cases exactly one event, and nothing more over 2000 s. Without a profile the steady
 * count is the same 11 (ac_solver_autoscale_steady).
 */
static void test_autoscale_fixed_point(void **state)
{
    static const char profile[] =
        "    <profile source='s'><point at='0s' rate='63/s'/><point at='2000s' rate='63/s'/>"
        "</profile>\n";
    ac_analysis_options o = base_opt();
    const ac_transient *tr;
    const ac_transient_node *n;
    fx f;
    (void)state;
    o.transient_opt.samples = 2001;

    analyse_scaled(&f, "63/s", profile, 8, "", &o);
    tr = transient_of(&f);
    n = &tr->nodes[0];
    assert_true(n->autoscaled);
    assert_int_equal(tr->nautoscaled, 1);
    assert_int_equal(n->steady_servers, 11);
    assert_int_equal(n->nevents, 1);
    assert_double_close(n->event_t[0], 0.0, 1e-9, 0.0);
    assert_int_equal(n->event_target[0], 11);
    assert_int_equal(n->nchanges, 1);
    assert_double_close(n->change_t[0], 30.0, 1e-9, 0.0);
    assert_int_equal(n->change_servers[0], 11);
    assert_int_equal(tr->scaling_events, 1);
    /* the samples (1 s apart) follow: 8 up to 30 s, 11 after */
    for (size_t s = 0; s < tr->nsamples; s++)
        assert_double_close(n->servers[s], tr->t[s] <= 30.0 ? 8.0 : 11.0, 0.0, 0.0);
    /* held: the utilisation is Lambda / (11 mu) at the end */
    assert_double_close(n->utilization[tr->nsamples - 1], 63.0 / 110.0, 1e-6, 0.0);
    assert_conserved(tr, 0);
    fx_free(&f);

    analyse_scaled(&f, "63/s", profile, 20, "", &o);
    tr = transient_of(&f);
    n = &tr->nodes[0];
    assert_int_equal(n->nevents, 1);
    assert_double_close(n->event_t[0], 300.0, 1e-9, 0.0);
    assert_int_equal(n->event_target[0], 11);
    assert_int_equal(n->nchanges, 1);
    assert_double_close(n->change_t[0], 300.0, 1e-9, 0.0); /* a scale-down acts at once */
    assert_double_close(n->utilization[tr->nsamples - 1], 63.0 / 110.0, 1e-6, 0.0);
    assert_conserved(tr, 0);
    fx_free(&f);

    {
        ac_pool p;
        memset(&p, 0, sizeof p);
        p.servers = 20;
        p.service_rate = 10.0;
        p.has_autoscale = 1;
        p.autoscale.min = 2;
        p.autoscale.max = 30;
        p.autoscale.target_utilization = 0.6;
        p.autoscale.tolerance = 0.1;
        assert_int_equal(ac_solver_autoscale_steady(&p, 63.0), 11);
        p.servers = 8;
        assert_int_equal(ac_solver_autoscale_steady(&p, 63.0), 11);
        assert_int_equal(ac_solver_autoscale_steady(&p, 1000.0), 30); /* clamped at max */
        p.servers = 10;
        assert_int_equal(ac_solver_autoscale_steady(&p, 60.0), 10); /* exactly at target */
    }
}

/*
 * A step up 60/s -> 80/s over [100 s, 101 s] on 10 servers (utilisation 0.6 -> 0.8). The
 * looks at 90 s and 105 s straddle it: the rule scales up at the first look after the load
 * moved (105 s: desired ceil(10 x 0.8 / 0.6) = 14), and the servers serve after
 * scale-up-delay, at 135 s: within interval + scale-up-delay = 45 s of the step, as the rule
 * bounds it. The look at 120 s (utilisation still 0.8 on 10 servers) does not order again:
 * over the target count 14 the ratio is 0.95. Then 80 / 140 = 0.571 is held to 1000 s.
 * Server-hours by hand: (10 x 135 + 14 x 865) / 3600.
 */
static void test_autoscale_step_up(void **state)
{
    static const char profile[] =
        "    <profile source='s'><point at='0s' rate='60/s'/><point at='100s' rate='60/s'/>"
        "<point at='101s' rate='80/s'/><point at='1000s' rate='80/s'/></profile>\n";
    ac_analysis_options o = base_opt();
    const ac_transient *tr;
    const ac_transient_node *n;
    double hours = (10.0 * 135.0 + 14.0 * 865.0) / 3600.0;
    fx f;
    (void)state;
    analyse_scaled(&f, "60/s", profile, 10, "", &o);
    tr = transient_of(&f);
    n = &tr->nodes[0];
    assert_int_equal(n->nevents, 1);
    assert_double_close(n->event_t[0], 105.0, 1e-9, 0.0);
    assert_int_equal(n->event_target[0], 14);
    assert_int_equal(n->nchanges, 1);
    assert_double_close(n->change_t[0], 135.0, 1e-9, 0.0);
    assert_true(n->change_t[0] - 100.0 <= 15.0 + 30.0);
    assert_int_equal(n->change_servers[0], 14);
    assert_double_close(servers_at(n, 134.9), 10.0, 0.0, 0.0);
    assert_double_close(servers_at(n, 135.1), 14.0, 0.0, 0.0);
    /* server-hours = int N dt / 3600, exactly (N is piecewise constant) */
    assert_double_close(n->server_hours, hours, 1e-12, 1e-12);
    assert_double_close(tr->server_hours, hours, 1e-12, 1e-12);
    assert_double_close(ac_transient_server_hours_until(n, 500.0),
                        (10.0 * 135.0 + 14.0 * 365.0) / 3600.0, 1e-12, 1e-12);
    assert_double_close(ac_transient_server_hours_until(n, 100.0), 1000.0 / 3600.0, 1e-12,
                        1e-12);
    assert_int_equal(ac_transient_events_until(n, 105.0), 0); /* [0, t) */
    assert_int_equal(ac_transient_events_until(n, 106.0), 1);
    /* the sampled N integrates to the same, within the sampling (2.5 s apart, one jump) */
    {
        double sum = 0.0;
        for (size_t s = 0; s + 1 < tr->nsamples; s++)
            sum += 0.5 * (n->servers[s] + n->servers[s + 1]) * (tr->t[s + 1] - tr->t[s]);
        assert_double_close(sum / 3600.0, hours, 4.0 * 2.5 / 3600.0, 0.0);
    }
    assert_double_close(n->utilization[tr->nsamples - 1], 80.0 / 140.0, 1e-6, 0.0);
    assert_conserved(tr, 0);
    fx_free(&f);
}

/*
 * A step down 80/s -> 40/s over [200 s, 201 s] on 14 servers (0.571 -> 0.286). From the look
 * at 210 s the scaler recommends ceil(14 x 0.286 / 0.6) = 7, but the looks up to 195 s
 * recommended 14 (within the tolerance: hold): the scale-down waits until 195 s has left the
 * cooldown window (t - 300 s, t], i.e. the look at 495 s, and goes to 7 at once (40 / 70 =
 * 0.571: held).
 */
static void test_autoscale_step_down(void **state)
{
    static const char profile[] =
        "    <profile source='s'><point at='0s' rate='80/s'/><point at='200s' rate='80/s'/>"
        "<point at='201s' rate='40/s'/><point at='1500s' rate='40/s'/></profile>\n";
    ac_analysis_options o = base_opt();
    const ac_transient *tr;
    const ac_transient_node *n;
    fx f;
    (void)state;
    analyse_scaled(&f, "80/s", profile, 14, "", &o);
    tr = transient_of(&f);
    n = &tr->nodes[0];
    assert_int_equal(n->nevents, 1);
    assert_double_close(n->event_t[0], 195.0 + 300.0, 1e-9, 0.0);
    assert_int_equal(n->event_target[0], 7);
    assert_int_equal(n->nchanges, 1);
    assert_double_close(n->change_t[0], 495.0, 1e-9, 0.0);
    assert_int_equal(n->change_servers[0], 7);
    assert_double_close(n->server_hours, (14.0 * 495.0 + 7.0 * 1005.0) / 3600.0, 1e-12, 1e-12);
    assert_double_close(n->utilization[tr->nsamples - 1], 40.0 / 70.0, 1e-6, 0.0);
    /* the removed servers were idle: nothing drained, jobs conserved */
    assert_conserved(tr, 0);
    fx_free(&f);
}

/*
 * The scaling requirement: PASS within the limits, FAIL (AC207) beyond them by more than the
 * stated error, INCONCLUSIVE (AC900) within it; without a profile AC900 with the steady
 * count. The step-up scenario: 1 event (stated error: one rising run + the start = +-2),
 * 3.7389 server-hours.
 */
static void test_scaling_requirement(void **state)
{
    static const char profile[] =
        "    <profile source='s'><point at='0s' rate='60/s'/><point at='100s' rate='60/s'/>"
        "<point at='101s' rate='80/s'/><point at='1000s' rate='80/s'/></profile>\n";
    ac_analysis_options o = base_opt();
    const ac_check *ck;
    fx f;
    (void)state;
    analyse_scaled(&f, "60/s", profile, 10,
                   "<requirements><scaling max-events='10' max-server-hours='5'/></requirements>\n",
                   &o);
    ck = find_check(f.a, "scaling events");
    assert_int_equal(ck->status, AC_CHECK_PASS);
    assert_double_close(ck->value, 1.0, 0.0, 0.0);
    assert_double_close(ck->rel_error, 2.0, 1e-12, 0.0);
    ck = find_check(f.a, "server-hours");
    assert_int_equal(ck->status, AC_CHECK_PASS);
    assert_double_close(ck->value, (10.0 * 135.0 + 14.0 * 865.0) / 3600.0, 1e-12, 1e-12);
    /* the phase (4 servers x 15 s) and the noise of about 7 busy servers averaged over 15 s
     * (sd sqrt(2 / (7 x 10 x 15)) = 4.4%, times sqrt(2 ln 21) = 2.47 for the cooldown's
     * maximum): about 11% */
    assert_true(ck->rel_error > 0.05 && ck->rel_error < 0.2);
    assert_null(maybe_rule(&f.d, "AC207"));
    fx_free(&f);

    /* 3.74 server-hours against 3: FAIL, with the figures in the detail */
    analyse_scaled(&f, "60/s", profile, 10,
                   "<requirements><scaling max-server-hours='3'/></requirements>\n", &o);
    ck = find_check(f.a, "server-hours");
    assert_int_equal(ck->status, AC_CHECK_FAIL);
    assert_non_null(strstr(find_rule(&f.d, "AC207")->detail, "1 scaling actions"));
    fx_free(&f);

    /* 1 event against 0 allowed: within the stated +-2: undecided */
    analyse_scaled(&f, "60/s", profile, 10,
                   "<requirements><scaling max-events='0'/></requirements>\n", &o);
    ck = find_check(f.a, "scaling events");
    assert_int_equal(ck->status, AC_CHECK_INCONCLUSIVE);
    assert_true(has_message(&f.d, "AC900", "stated error"));
    fx_free(&f);

    /* no profile: AC900, saying the steady count */
    analyse_scaled(&f, "63/s", "", 8,
                   "<requirements><scaling max-events='10'/></requirements>\n", &o);
    assert_null(f.a->transient);
    assert_int_equal(find_check(f.a, "scaling")->status, AC_CHECK_INCONCLUSIVE);
    assert_true(has_message(&f.d, "AC900", "holds 'a' at 11 servers"));
    fx_free(&f);
}

/*
 * samples/autoscaled-api.xml: PASS on scaling, with figures close to the sample's hand
 * computation.
 *  - events: the hand count is ln(6)/ln(1.1) + ln(1.25)/ln(1.1) + ln(1.5)/-ln(0.9) +
 *    ln(5)/-ln(0.9) = 40.3 (plus the first scale-down from the starting 124 pods): each of
 *    the four ramps is a whole number of actions, +-1 against the continuous estimate, and
 *    the start adds one: tolerance 5 events.
 *  - server-hours: the hand value is int Lambda dt / (mu target) = 17750 / 6 = 2958 pod-hours;
 *    the scaler keeps the utilisation within 0.6 (1 +- 10%), so N within Lambda / (mu 0.66)
 *    .. Lambda / (mu 0.54), i.e. within -9% .. +11% of it at every instant; the sample
 *    claims about +5% for the band and the cooldown: tolerance 5%.
 *  - the utilisation stays in the band, up to the scale-up lag (the steepest ramp adds about
 *    4/s in the 45 s between a look and new pods: +0.01) and the cooldown's lag on the way
 *    down (the load falls up to 4% in 5 min: -0.04).
 */
static void test_autoscaled_sample(void **state)
{
    ac_analysis_options o = base_opt();
    const ac_transient *tr;
    const ac_transient_node *n;
    const ac_check *ev, *hr;
    double hand_events = log(6.0) / log(1.1) + log(1.25) / log(1.1) + log(1.5) / -log(0.9) +
                         log(5.0) / -log(0.9) + 1.0;
    double hand_hours = 17750.0 / 6.0, umin = 1.0, umax = 0.0;
    char *xml = ac_test_read_file(AC_SOURCE_DIR "/samples/autoscaled-api.xml");
    fx f;
    (void)state;
    assert_non_null(xml);
    analyse(&f, xml, &o);
    free(xml);
    tr = transient_of(&f);
    n = &tr->nodes[0];
    ev = find_check(f.a, "scaling events");
    hr = find_check(f.a, "server-hours");
    print_message("autoscaled-api: %g events (hand %.1f, stated error %.2g%%), %g pod-hours "
                  "(hand %.0f, stated error %.2g%%), %s, %zu states\n",
                  ev->value, hand_events, 100.0 * ev->rel_error, hr->value, hand_hours,
                  100.0 * hr->rel_error, tr->method, tr->dim);
    assert_int_equal(ev->status, AC_CHECK_PASS);
    assert_int_equal(hr->status, AC_CHECK_PASS);
    assert_double_close(ev->value, hand_events, 5.0, 0.0);
    assert_double_close(hr->value, hand_hours, 0.0, 0.05);
    assert_true(ev->value <= 120.0 && hr->value <= 4000.0);
    /* 34 pods at night (ceil(124 x 0.161 / 0.6), the first action); at the 1500/s peak
     * between ceil(1500 / (10 x 0.66)) = 228 (the top of the tolerance band) and 250 (the
     * target exactly) */
    assert_int_equal(n->change_servers[0], 34);
    {
        size_t peak = 0;
        for (size_t k = 0; k < n->nchanges; k++)
            peak = n->change_servers[k] > peak ? n->change_servers[k] : peak;
        assert_in_range(peak, 228, 250);
    }
    for (size_t s = 0; s < tr->nsamples; s++)
        if (tr->t[s] > 400.0) {
            umin = fmin(umin, n->utilization[s]);
            umax = fmax(umax, n->utilization[s]);
        }
    assert_true(umax <= 0.66 + 0.01);
    assert_true(umin >= 0.54 - 0.04);
    assert_conserved(tr, 0);
    assert_null(maybe_rule(&f.d, "AC207"));
    assert_null(maybe_rule(&f.d, "AC900"));
    fx_free(&f);
}

/* ---- serverless stages (functions, queues, gateways) ----------------------------------- */

/* A model parsed, optionally changed by one of its mitigations, and its transient. */
typedef struct trx {
    ac_model *m;
    ac_diag_list d;
    ac_transient *tr;
    ac_error err;
    double seconds; /* wall-clock time of ac_transient_run */
} trx;

static void trx_run(trx *x, const char *xml, const ac_transient_options *o, const char *mitigation)
{
    struct timespec a, b;
    int rc;
    memset(x, 0, sizeof *x);
    ac_diag_list_init(&x->d);
    rc = ac_parser_parse_memory(xml, strlen(xml), "t.xml", &x->m, &x->d, &x->err);
    if (rc != AC_OK) {
        dump(&x->d);
        print_error("parse failed: %d %s\n", rc, x->err.message);
    }
    assert_int_equal(rc, AC_OK);
    for (size_t k = 0; mitigation != NULL && k < x->m->nmitigations; k++)
        if (strcmp(x->m->mitigations[k].id, mitigation) == 0)
            assert_int_equal(ac_model_apply_mitigation(x->m, k, NULL, 0, &x->err), AC_OK);
    clock_gettime(CLOCK_MONOTONIC, &a);
    rc = ac_transient_run(x->m, o, &x->tr, &x->err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    x->seconds = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    if (rc != AC_OK)
        print_error("transient failed: %d %s\n", rc, x->err.message);
    assert_int_equal(rc, AC_OK);
}

static void trx_free(trx *x)
{
    ac_transient_free(x->tr);
    ac_model_free(x->m);
    ac_diag_list_clear(&x->d);
}

/* The transient node of node `id`. */
static const ac_transient_node *tnode(const trx *x, const char *id)
{
    size_t i = ac_model_find_node(x->m, id);
    assert_true(i != AC_NONE);
    return &x->tr->nodes[i];
}

/* The index of the sample at time t (the samples are evenly spaced). */
static size_t at(const ac_transient *tr, double t)
{
    double k = round(t / tr->horizon * (double)(tr->nsamples - 1));
    assert_true(k >= 0.0 && k <= (double)(tr->nsamples - 1));
    assert_double_close(tr->t[(size_t)k], t, 1e-9, 1e-12);
    return (size_t)k;
}

/* E[min(X, theta)], X ~ Exp(mean d). */
static double mean_exec(double d, double theta)
{
    return d * (1.0 - exp(-theta / d));
}

/*
 * A sync function under a constant rate reaches the fluid steady state. Below the
 * concurrency (lambda T_e = 5 < C = 10): busy = lambda T_e, every request admitted (throttle
 * 0, loss 0), instances = busy (the fluid keeps no spare instance but the relaxation's
 * lambda tau = AC_TRANSIENT_RELAX busy idle-warm), utilisation busy / C. Above (lambda T_e = 15 > 10): the
 * busy count holds at C and the throttle rate is lambda - C / T_e = 50/s, the fluid limit of
 * Erlang-B. Both from the steady start and, at a long horizon, from empty (cold starts).
 * Tolerance 1e-6 relative: the integration's (rtol 1e-7) on values reached by integrating.
 */
static const char sync_fmt[] =
    "<architecture name='f' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='%s'/>\n"
    "    <profile source='s'><point at='0s' rate='%s'/><point at='100s' rate='%s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s'/>\n"
    "</architecture>\n";

static void test_fn_sync_steady(void **state)
{
    const double Te = mean_exec(0.1, 60.0);
    ac_transient_options o;
    char xml[1024];
    trx x;
    (void)state;
    for (int start = 0; start < 2; start++) {
        const ac_transient_node *n;
        size_t H;
        ac_transient_options_init(&o);
        o.start = start ? AC_TRANSIENT_START_EMPTY : AC_TRANSIENT_START_STEADY;
        snprintf(xml, sizeof xml, sync_fmt, "50/s", "50/s", "50/s");
        trx_run(&x, xml, &o, NULL);
        n = tnode(&x, "fn");
        H = x.tr->nsamples - 1;
        assert_true(n->modelled);
        assert_string_equal(x.tr->method, "cvode-bdf");
        assert_int_equal(x.tr->started_steady, !start);
        assert_double_close(n->busy[H], 50.0 * Te, 0.0, 1e-6);
        assert_double_close(n->mean_jobs[H], 50.0 * Te, 0.0, 1e-6);
        assert_double_close(n->utilization[H], 50.0 * Te / 10.0, 0.0, 1e-6);
        assert_double_close(n->throughput[H], 50.0, 0.0, 1e-6);
        assert_double_close(n->throttle_rate[H], 0.0, 1e-6, 0.0);
        assert_double_close(n->loss_rate[H], 0.0, 1e-6, 0.0);
        assert_double_close(n->cold_start_rate[H], 0.0, 1e-6, 0.0);
        /* the relaxation keeps AC_TRANSIENT_RELAX of the busy instances idle-warm */
        assert_double_close(n->instances[H], 50.0 * Te * (1.0 + AC_TRANSIENT_RELAX), 0.0, 1e-6);
        assert_double_close(n->mean_response_time[H], Te, 0.0, 1e-6);
        trx_free(&x);

        snprintf(xml, sizeof xml, sync_fmt, "150/s", "150/s", "150/s");
        trx_run(&x, xml, &o, NULL);
        n = tnode(&x, "fn");
        assert_double_close(n->throttle_rate[H], 150.0 - 10.0 / Te, 0.0, 1e-6);
        assert_double_close(n->loss_rate[H], 150.0 - 10.0 / Te, 0.0, 1e-6);
        assert_double_close(n->throughput[H], 10.0 / Te, 0.0, 1e-6);
        assert_double_close(n->busy[H], 10.0, 0.0, 1e-6);
        assert_double_close(n->utilization[H], 1.0, 0.0, 1e-6);
        print_message("sync function, %s start: throttle %.9g/s (fluid Erlang-B limit %.9g/s)\n",
                      start ? "empty" : "steady", n->throttle_rate[H], 150.0 - 10.0 / Te);
        trx_free(&x);
    }
}

/*
 * An async function with failures and retries (f = 0.2, r = 2): in steady state the attempts
 * are lambda (1 + f + f^2) = 62/s on instances busy 62 T_e, the loss lambda f^3 = 0.4/s, and
 * a request's mean time includes its back-offs: T_e (1 + f + f^2) per request spent busy
 * and f 60 s + f^2 120 s in back-off, by Little. A burst above the concurrency (200/s
 * against C / T_e = 100 executions/s) waits in the backlog, which grows at the difference
 * (the first attempts 200/s and their retries against 100/s) and nothing is throttled.
 */
static void test_fn_async_steady(void **state)
{
    static const char xml[] =
        "<architecture name='a' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='50/s'/>\n"
        "    <profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
        "<point at='10.001s' rate='200/s'/><point at='20s' rate='200/s'/></profile>\n"
        "  </workload>\n"
        "  <function id='fn' invocation='async' concurrency='10' duration='100ms' timeout='60s'"
        " fail-prob='0.2'/>\n"
        "</architecture>\n";
    const double Te = mean_exec(0.1, 60.0), f = 0.2, att = 50.0 * (1.0 + f + f * f);
    ac_transient_options o;
    const ac_transient_node *n;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 201;
    trx_run(&x, xml, &o, NULL);
    n = tnode(&x, "fn");
    assert_true(x.tr->started_steady);
    assert_double_close(n->execution_rate[0], att, 0.0, 1e-6);
    assert_double_close(n->busy[0], att * Te, 0.0, 1e-6);
    assert_double_close(n->loss_rate[0], 50.0 * f * f * f, 0.0, 1e-6);
    assert_double_close(n->throughput[0], 50.0 * (1.0 - f * f * f), 0.0, 1e-6);
    assert_double_close(n->mean_response_time[0], Te + f * 60.0 + f * f * 120.0, 0.0, 1e-6);
    /* the burst: every slot busy, no throttling, a backlog */
    {
        size_t a = at(x.tr, 15.0), b = at(x.tr, 19.0);
        assert_double_close(n->busy[b], 10.0, 0.0, 1e-6);
        assert_double_close(n->throttle_rate[b], 0.0, 1e-12, 0.0);
        assert_true(n->backlog[b] > n->backlog[a] && n->backlog[a] > 100.0);
    }
    trx_free(&x);
}

/*
 * Conservation on a network with a burst: a gateway that rejects, a sync function that
 * throttles and retries its failed executions, a queue with redeliveries and dead letters,
 * its polled consumer, an async function with retries and a backlog, and a pool. For every
 * node: offered - departed - lost = the change of what it holds (1e-6 relative); for the
 * sync function: offered = admitted + throttled (its throttled requests are lost at once);
 * each node is offered what its upstream node sent (the counters of both, 1e-6).
 */
static void test_serverless_conservation(void **state)
{
    static const char xml[] =
        "<architecture name='c' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='gw' rate='40/s'/>\n"
        "    <profile source='s'><point at='0s' rate='40/s'/><point at='5s' rate='40/s'/>"
        "<point at='6s' rate='140/s'/><point at='20s' rate='140/s'/><point at='21s' rate='40/s'/>"
        "<point at='60s' rate='40/s'/></profile>\n"
        "  </workload>\n"
        "  <gateway id='gw' rate-limit='100/s' burst='30'/>\n"
        "  <function id='ingest' concurrency='8' duration='60ms' timeout='1s' fail-prob='5%'"
        " retries='1' cold-start='200ms' scale-rate='20/s' keep-alive='20s'/>\n"
        "  <queue id='q' batch-size='2' max-consumers='6' visibility-timeout='3s'"
        " max-receives='3' capacity='400'/>\n"
        "  <function id='worker' concurrency='50' duration='150ms' fail-prob='10%'"
        " cold-start='100ms'/>\n"
        "  <function id='notify' invocation='async' concurrency='3' duration='50ms'"
        " fail-prob='30%' retries='2'/>\n"
        "  <pool id='db' servers='2' service-rate='60/s' dispatch='shared-queue'/>\n"
        "  <route from='gw' to='ingest'/>\n"
        "  <route from='ingest' to='q'/>\n"
        "  <route from='q' to='worker' fanout='2'/>\n"
        "  <route from='worker' to='notify' p='0.5' fanin='2'/>\n"
        "  <route from='worker' to='db' p='0.5'/>\n"
        "</architecture>\n";
    static const char *ids[] = {"gw", "ingest", "q", "worker", "notify", "db"};
    ac_transient_options o;
    size_t H;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 121;
    trx_run(&x, xml, &o, NULL);
    H = x.tr->nsamples - 1;
    print_message("conservation network: %zu states, %s, %.3f s\n", x.tr->dim, x.tr->method,
                  x.seconds);
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        const ac_transient_node *n = tnode(&x, ids[k]);
        double lost = n->cum_lost != NULL ? n->cum_lost[H] : 0.0;
        double held = n->in_system[H] - n->in_system[0];
        assert_true(n->modelled);
        assert_true(n->cum_arrivals[H] > 100.0);
        assert_double_close(n->cum_arrivals[H] - n->cum_departures[H] - lost, held,
                            1e-6 * n->cum_arrivals[H], 0.0);
    }
    {
        const ac_transient_node *gw = tnode(&x, "gw"), *in = tnode(&x, "ingest");
        const ac_transient_node *q = tnode(&x, "q"), *w = tnode(&x, "worker");
        const ac_transient_node *nt = tnode(&x, "notify"), *db = tnode(&x, "db");
        /* every stage lost something in the burst */
        assert_true(gw->cum_lost[H] > 10.0 && in->cum_throttled[H] > 10.0);
        assert_true(q->cum_lost[H] > 1.0 && nt->cum_lost[H] > 1.0);
        assert_double_close(in->cum_arrivals[H], in->cum_admitted[H] + in->cum_throttled[H],
                            0.0, 1e-6);
        assert_double_close(in->cum_arrivals[H], gw->cum_departures[H], 0.0, 1e-6);
        assert_double_close(q->cum_arrivals[H], in->cum_departures[H], 0.0, 1e-6);
        assert_double_close(nt->cum_arrivals[H], 0.25 * w->cum_departures[H], 0.0, 1e-6);
        assert_double_close(db->cum_arrivals[H], 0.5 * w->cum_departures[H], 0.0, 1e-6);
    }
    trx_free(&x);
}

/* P(Erlang(k, rate) > t) */
static double erlang_survival(int k, double rate, double t)
{
    double s = 0.0, term = exp(-rate * t);
    for (int n = 0; n < k; n++) {
        s += term;
        term *= rate * t / (double)(n + 1);
    }
    return s;
}

/* Its density at t. */
static double erlang_density(int k, double rate, double t)
{
    return rate * exp(-rate * t) * pow(rate * t, (double)(k - 1)) / tgamma((double)k);
}

/*
 * Keep-alive: 200/s on executions of T_e = 50 ms (10 busy instances, no idle ones) until
 * t0 = 20 s, then nothing. Each busy instance ends its execution (Exp(T_e)) and then stays
 * idle an Erlang(k, k / tau) time (tau = 60 s, k = AC_TRANSIENT_KEEPALIVE_STAGES), so the
 * instances alive at t0 + t are N0 P(E + G > t) = N0 [P(G > t) + T_e g(t) + O(T_e^2 g')],
 * and their area after t0 is N0 (T_e + tau) (the mean of E + G). At tau: 45% alive for k = 8
 * (a fixed delay would keep them all up to tau, then none). With 4 provisioned instances the
 * count falls to 4 and stays there (they are never reclaimed), the on-demand ones decaying
 * as above.
 */
static void test_fn_keepalive(void **state)
{
    static const char xml[] =
        "<architecture name='k' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='200/s'/>\n"
        "    <profile source='s'><point at='0s' rate='200/s'/><point at='19.999s' rate='200/s'/>"
        "<point at='20s' rate='0/s'/><point at='400s' rate='0/s'/></profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='1000' duration='50ms' timeout='60s' keep-alive='60s'/>\n"
        "  <mitigation id='pc' kind='provisioned-concurrency' target='fn' amount='4'/>\n"
        "</architecture>\n";
    const int k = AC_TRANSIENT_KEEPALIVE_STAGES;
    const double Te = mean_exec(0.05, 60.0), tau = 60.0, rate = (double)k / tau;
    const double surv = erlang_survival(k, rate, tau) + Te * erlang_density(k, rate, tau);
    ac_transient_options o;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 801; /* 0.5 s apart */
    for (int prov = 0; prov < 2; prov++) {
        const ac_transient_node *n;
        double P = prov ? 4.0 : 0.0, N0, B0, W0, area = 0.0, expect, expect_area;
        size_t s0, s1, sb;
        trx_run(&x, xml, &o, prov ? "pc" : NULL);
        n = tnode(&x, "fn");
        sb = at(x.tr, 19.5);
        s0 = at(x.tr, 20.0);
        s1 = at(x.tr, 20.0 + tau);
        /* at t0: 10 busy, of which P / (1 + rho) provisioned (the relaxation keeps rho of
           the provisioned ones idle too) and B0 on-demand, and the relaxation's rho B0
           idle-warm on-demand ones, which are already idle (no execution to end first) */
        B0 = n->busy[sb] - P / (1.0 + AC_TRANSIENT_RELAX);
        W0 = B0 * AC_TRANSIENT_RELAX;
        N0 = n->instances[s0] - P;
        assert_double_close(n->busy[sb], 200.0 * Te, 0.0, 1e-6);
        assert_double_close(N0, B0 + W0, 0.0, 1e-3);
        expect = (B0 * surv + W0 * erlang_survival(k, rate, tau)) / (B0 + W0);
        expect_area = (B0 * (Te + tau) + W0 * tau) / (B0 + W0);
        for (size_t s = s0; s < x.tr->nsamples - 1; s++)
            area += 0.5 * (n->instances[s] + n->instances[s + 1] - 2.0 * P) *
                    (x.tr->t[s + 1] - x.tr->t[s]);
        print_message("keep-alive%s: alive after tau %.6f of the on-demand ones (Erlang-%d "
                      "%.6f), area %.4f s per instance (T_e + tau = %.4f s)\n",
                      prov ? " with 4 provisioned" : "", (n->instances[s1] - P) / N0, k,
                      expect, area / N0, expect_area);
        assert_double_close((n->instances[s1] - P) / N0, expect, 0.0, 1e-3);
        assert_double_close(area / N0, expect_area, 0.0, 1e-3);
        assert_double_close(n->instances[x.tr->nsamples - 1], P, 1e-6, 0.0);
        assert_double_close(n->busy[x.tr->nsamples - 1], 0.0, 1e-6, 0.0);
        assert_double_close(n->cold_start_rate[s1], 0.0, 1e-12, 0.0);
        trx_free(&x);
    }
}

/*
 * Cold starts: an empty function (C = 1000, d = 1 s, c0 = 0.5 s, s = 10/s, bucket G = 10)
 * offered 100/s from t = 0. The fluid by hand: the bucket's G tokens go first (cold starts
 * at the offered rate while they last: t_0 = G / (lambda - s) = 0.111 s), then one new
 * instance per token, s per second: instances alive = G + s t exactly (every instance, once
 * it has run, is reused at once: the demand exceeds them), and the rest is throttled:
 * lambda - s - busy / T_e. The growth stops when the warm reuse busy / T_e and the scale
 * rate cover the demand: busy = (lambda - s) T_e, with s c0 more still initialising, i.e. at
 * G + s t* = (lambda - s) T_e + s c0, t* = 8.5 s (lambda (d + c0) = 150 would be the count
 * if every execution started cold; with reuse the function needs lambda d = 100 once warm,
 * and the fluid reaches (lambda - s) d + s c0 = 95 at the scale rate). Then busy -> lambda T_e.
 * The relaxation (rho = AC_TRANSIENT_RELAX) keeps rho of the busy instances idle-warm, and
 * the reuse lags their growth by rho s: busy = (G + s t - c) / (1 + rho), the throttle
 * lambda - s - busy / T_e + rho s, and t* = ((lambda - s (1 - rho)) T_e (1 + rho) + s c0 -
 * G) / s = 8.60 s.
 */
static void test_fn_cold_start_step(void **state)
{
    static const char xml[] =
        "<architecture name='c' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='100/s'/>\n"
        "    <profile source='s'><point at='0s' rate='100/s'/><point at='20s' rate='100/s'/>"
        "</profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='1000' duration='1s' timeout='60s' cold-start='500ms'"
        " scale-rate='10/s'/>\n"
        "</architecture>\n";
    const double lam = 100.0, s = 10.0, G = 10.0, c0 = 0.5, Te = mean_exec(1.0, 60.0);
    const double rho = AC_TRANSIENT_RELAX, t0 = G / (lam - s);
    const double tstar = ((lam - s * (1.0 - rho)) * Te * (1.0 + rho) + s * c0 - G) / s;
    ac_transient_options o;
    const ac_transient_node *n;
    size_t first = AC_NONE;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.start = AC_TRANSIENT_START_EMPTY;
    o.samples = 2001; /* 0.01 s apart */
    trx_run(&x, xml, &o, NULL);
    n = tnode(&x, "fn");
    /* the growth at the scale rate, from the bucket's G */
    assert_double_close((n->instances[at(x.tr, 6.0)] - n->instances[at(x.tr, 2.0)]) / 4.0, s, 0.0,
                        1e-6);
    assert_double_close(n->instances[at(x.tr, 4.0)], G + s * 4.0, 0.0, 1e-6);
    assert_double_close(n->cold_start_rate[at(x.tr, 4.0)], s, 0.0, 1e-6);
    {
        /* initialising: c' = s - c / c0 from c(t_0) = lambda c0 (1 - e^{-t_0/c0}); the
           others busy but the relaxation's idle ones (rho = AC_TRANSIENT_RELAX of the busy,
           the warm reuse taking rho T_e of them out per second as they grow by s) */
        double ct0 = lam * c0 * (1.0 - exp(-t0 / c0));
        double c4 = s * c0 + (ct0 - s * c0) * exp(-(4.0 - t0) / c0);
        double busy = (G + s * 4.0 - c4) / (1.0 + rho);
        assert_double_close(n->initialising[at(x.tr, 4.0)], c4, 0.0, 1e-4);
        assert_double_close(n->busy[at(x.tr, 4.0)], busy, 0.0, 1e-4);
        assert_double_close(n->throttle_rate[at(x.tr, 4.0)], lam - s - busy / Te + rho * s, 0.0,
                            1e-4);
    }
    for (size_t k = 0; k < x.tr->nsamples && first == AC_NONE; k++)
        if (x.tr->t[k] > 1.0 && n->cold_start_rate[k] < s * (1.0 - 1e-6))
            first = k;
    assert_true(first != AC_NONE);
    print_message("cold starts: growth at %.9g instances/s ends at %.3f s (hand %.3f s)\n",
                  (n->instances[at(x.tr, 6.0)] - n->instances[at(x.tr, 2.0)]) / 4.0,
                  x.tr->t[first], tstar);
    assert_double_close(x.tr->t[first], tstar, 0.021, 0.0);
    assert_double_close(n->busy[x.tr->nsamples - 1], lam * Te, 0.0, 1e-4);
    assert_double_close(n->throttle_rate[x.tr->nsamples - 1], 0.0, 1e-6, 0.0);
    assert_true(n->instances[x.tr->nsamples - 1] >= lam * Te);
    assert_double_close(n->cum_cold_starts[x.tr->nsamples - 1],
                        n->instances[x.tr->nsamples - 1], 0.0, 1e-6); /* none reclaimed yet */
    trx_free(&x);
}

/*
 * Provisioned and pre-warmed instances. With 10 provisioned instances and lambda T_e = 5 an
 * empty function never starts cold: 10 instances all along. With pre-warming (20 every
 * 100 s, keep-alive 50 s) and no load, the pings at 0, 100 and 200 s top the instances up
 * to 20, which then age through the keep-alive: S = the Erlang survival, the instances
 * created = 20 + 20 (1 - S(100)) + 20 (1 - S(200) - (1 - S(100)) S(100)).
 */
static void test_fn_provisioned_prewarm(void **state)
{
    static const char xml[] =
        "<architecture name='p' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='%s'/>\n"
        "    <profile source='s'><point at='0s' rate='%s'/><point at='250s' rate='%s'/>"
        "</profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='100' duration='100ms' timeout='60s' keep-alive='50s'/>\n"
        "  <mitigation id='pc' kind='provisioned-concurrency' target='fn' amount='10'/>\n"
        "  <mitigation id='pw' kind='pre-warming' target='fn' amount='20' interval='100s'/>\n"
        "</architecture>\n";
    const int k = AC_TRANSIENT_KEEPALIVE_STAGES;
    const double rate = (double)k / 50.0;
    const double S100 = erlang_survival(k, rate, 100.0), S200 = erlang_survival(k, rate, 200.0);
    ac_transient_options o;
    const ac_transient_node *n;
    char buf[2048];
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.start = AC_TRANSIENT_START_EMPTY;
    o.samples = 501; /* 0.5 s apart */
    snprintf(buf, sizeof buf, xml, "50/s", "50/s", "50/s");
    trx_run(&x, buf, &o, "pc");
    n = tnode(&x, "fn");
    for (size_t s = 0; s < x.tr->nsamples; s++)
        assert_double_close(n->instances[s], 10.0, 1e-9, 0.0);
    assert_double_close(n->cum_cold_starts[x.tr->nsamples - 1], 0.0, 1e-9, 0.0);
    assert_double_close(n->busy[x.tr->nsamples - 1], 5.0, 0.0, 1e-6);
    trx_free(&x);

    snprintf(buf, sizeof buf, xml, "0/s", "0/s", "0/s");
    trx_run(&x, buf, &o, "pw");
    n = tnode(&x, "fn");
    assert_double_close(n->prewarm_instances,
                        20.0 + 20.0 * (1.0 - S100) + 20.0 * (1.0 - S200 - (1.0 - S100) * S100),
                        0.0, 1e-6);
    /* topped up to 20 at 100 s, then aged 0.5 s (the older ones with them) */
    assert_double_close(n->instances[at(x.tr, 100.5)],
                        20.0 * erlang_survival(k, rate, 100.5) +
                            20.0 * (1.0 - S100) * erlang_survival(k, rate, 0.5),
                        0.0, 1e-6);
    assert_double_close(n->instances[at(x.tr, 99.5)], 20.0 * erlang_survival(k, rate, 99.5),
                        0.0, 1e-6);
    assert_double_close(n->cum_cold_starts[x.tr->nsamples - 1], 0.0, 1e-9, 0.0);
    trx_free(&x);
}

/*
 * A gateway (rate limit r = 100/s, bucket 50) offered 150/s from 10 s to 30 s (ramps of 1 ms)
 * over a base of 50/s. By hand: the bucket drains at lambda - r = 50/s, empty burst / (lambda
 * - r) = 1 s after the rate passed r (at 11.00075 s with the ramp); nothing is rejected
 * before; then the rejection is lambda - r = 50/s, the admitted flow r; after the burst the
 * bucket refills at r - lambda = 50/s. An unbounded gateway behind it passes everything on.
 */
static void test_gateway_burst(void **state)
{
    static const char xml[] =
        "<architecture name='g' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='g' rate='50/s'/>\n"
        "    <profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
        "<point at='10.001s' rate='150/s'/><point at='30s' rate='150/s'/>"
        "<point at='30.001s' rate='50/s'/><point at='60s' rate='50/s'/></profile>\n"
        "  </workload>\n"
        "  <gateway id='g' rate-limit='100/s' burst='50'/>\n"
        "  <gateway id='u'/>\n"
        "  <route from='g' to='u'/>\n"
        "</architecture>\n";
    const double ramp = 0.5 * 0.0005 * 50.0; /* the ramp's share above r */
    const double t_empty = 10.001 + (50.0 - ramp) / 50.0;
    /* the relaxation: tau = AC_TRANSIENT_RELAX burst / r; the rejection reaches lambda - r
       within a few tau of the bucket's end (at the fixed point admitted = r + z / tau = r:
       the bucket is empty, z = 0) */
    const double tau = AC_TRANSIENT_RELAX * 50.0 / 100.0;
    size_t first = AC_NONE;
    ac_transient_options o;
    const ac_transient_node *g, *u;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 6001; /* 0.01 s apart */
    trx_run(&x, xml, &o, NULL);
    g = tnode(&x, "g");
    u = tnode(&x, "u");
    /* 1e-5: the relaxation (tau = 1e-4 / r) lags the bucket by a few tau (lambda - r) */
    assert_double_close(g->tokens[at(x.tr, 10.5)], 50.0 - ramp - 50.0 * (10.5 - 10.001), 0.0, 1e-6);
    for (size_t s = 0; s < x.tr->nsamples && first == AC_NONE; s++)
        if (g->loss_rate[s] > 1e-9)
            first = s;
    assert_true(first != AC_NONE);
    assert_double_close(x.tr->t[first], t_empty, 0.01 + 3.0 * tau, 0.0);
    for (size_t s = at(x.tr, 11.1); s <= at(x.tr, 30.0); s++) {
        assert_double_close(g->loss_rate[s], 50.0, 0.0, 1e-6);
        assert_double_close(g->throughput[s], 100.0, 0.0, 1e-6);
        assert_double_close(g->tokens[s], 0.0, 1e-6, 0.0);
        assert_double_close(g->mean_jobs[s], 50.0, 1e-6, 0.0);
    }
    print_message("gateway: tokens at %.2f s %.6g, rejection from %.2f s (hand %.5f s), %.9g/s\n",
                  10.5, g->tokens[at(x.tr, 10.5)], x.tr->t[first], t_empty,
                  g->loss_rate[at(x.tr, 20.0)]);
    assert_double_close(g->tokens[at(x.tr, 30.5)], ramp + 50.0 * (30.5 - 30.001), 0.0, 1e-5);
    assert_double_close(g->tokens[at(x.tr, 31.5)], 50.0, 0.0, 1e-6);
    /* the rejected: 50/s from the empty bucket to the end of the burst, within the
       relaxation's lag at the start (about (lambda - r) tau) */
    assert_double_close(g->cum_lost[x.tr->nsamples - 1], 50.0 * (30.0005 - t_empty),
                        2.0 * 50.0 * tau, 0.0);
    for (size_t s = 0; s < x.tr->nsamples; s++) {
        assert_double_close(u->throughput[s], g->throughput[s], 1e-12, 1e-12);
        assert_true(u->loss_rate[s] == 0.0);
    }
    assert_null(u->tokens);
    trx_free(&x);
}

/*
 * A queue consumed by a function (C = 10, T_e = 0.1 s, batch 1): drain capacity C / T_e =
 * 100 messages/s. 50/s with a burst of 150/s from 10 s to 30 s. By hand: the consumer first
 * fills its 5 free slots, taking every arrival while its busy count rises as 15 - 10 e^{-t /
 * T_e}, which reaches C after T_e ln 2; from then the backlog grows at 150 - 100 = 50/s, and
 * after the burst it drains at 100 - 50 = 50/s: empty at 30 + (30 - 10 - T_e ln 2) = 49.93 s.
 * With batches of 10 and ten times the rates (500/s, burst 1500/s) the consumer holds full
 * batches under the backlog (1000 messages/s): the backlog grows at 500/s, and at 500/s the
 * fluid queue keeps 5 messages visible (batches of 5 keep up). With fail-prob 0.5 and three
 * receives at 40/s, a delivery fails with phi = 0.5: dead letters lambda phi^3, deliveries
 * lambda (1 + phi + phi^2).
 */
static const char queue_fmt[] =
    "<architecture name='q' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='q' rate='%g/s'/>\n"
    "    <profile source='s'><point at='0s' rate='%g/s'/><point at='10s' rate='%g/s'/>"
    "<point at='10.001s' rate='%g/s'/><point at='30s' rate='%g/s'/>"
    "<point at='30.001s' rate='%g/s'/><point at='80s' rate='%g/s'/></profile>\n"
    "  </workload>\n"
    "  <queue id='q' batch-size='%d' max-receives='3'/>\n"
    "  <function id='w' concurrency='10' duration='100ms' timeout='60s' fail-prob='%g'/>\n"
    "  <route from='q' to='w'/>\n"
    "</architecture>\n";

static void queue_xml(char *buf, size_t size, double base, double burst, int batch, double f)
{
    snprintf(buf, size, queue_fmt, base, base, base, burst, burst, base, base, batch, f);
}

static void test_queue_backlog(void **state)
{
    const double Te = mean_exec(0.1, 60.0), t1 = Te * log(2.0);
    const double peak = 50.0 * (30.0 - 10.001 - t1), t_empty = 30.0005 + peak / 50.0;
    ac_transient_options o;
    const ac_transient_node *q, *w;
    size_t first = AC_NONE;
    char xml[2048];
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 8001; /* 0.01 s apart */
    queue_xml(xml, sizeof xml, 50.0, 150.0, 1, 0.0);
    trx_run(&x, xml, &o, NULL);
    q = tnode(&x, "q");
    w = tnode(&x, "w");
    assert_double_close(q->backlog[at(x.tr, 5.0)], 0.0, 1e-9, 0.0);
    assert_double_close(q->utilization[at(x.tr, 5.0)], 0.5, 0.0, 1e-9);
    assert_double_close((q->backlog[at(x.tr, 25.0)] - q->backlog[at(x.tr, 15.0)]) / 10.0, 50.0,
                        0.0, 1e-6);
    assert_double_close(q->backlog[at(x.tr, 30.0)], peak, 0.0, 1e-3);
    assert_double_close(q->throughput[at(x.tr, 20.0)], 100.0, 0.0, 1e-9);
    assert_double_close(w->busy[at(x.tr, 20.0)], 10.0, 0.0, 1e-9);
    assert_double_close(w->throttle_rate[at(x.tr, 20.0)], 0.0, 1e-12, 0.0); /* polled */
    for (size_t k = at(x.tr, 31.0); k < x.tr->nsamples && first == AC_NONE; k++)
        if (q->backlog[k] < 1e-6)
            first = k;
    assert_true(first != AC_NONE);
    print_message("queue: backlog %.6g at 30 s (hand %.6g), empty at %.2f s (hand %.3f s)\n",
                  q->backlog[at(x.tr, 30.0)], peak, x.tr->t[first], t_empty);
    assert_double_close(x.tr->t[first], t_empty, 0.02, 0.0);
    assert_double_close(q->throughput[x.tr->nsamples - 1], 50.0, 0.0, 1e-6);
    assert_double_close(w->busy[x.tr->nsamples - 1], 5.0, 0.0, 1e-6);
    trx_free(&x);

    queue_xml(xml, sizeof xml, 500.0, 1500.0, 10, 0.0);
    trx_run(&x, xml, &o, NULL);
    q = tnode(&x, "q");
    w = tnode(&x, "w");
    assert_double_close(q->backlog[at(x.tr, 5.0)], 5.0, 0.0, 1e-6);
    assert_double_close(w->busy[at(x.tr, 5.0)], 10.0, 0.0, 1e-6);
    assert_double_close((q->backlog[at(x.tr, 25.0)] - q->backlog[at(x.tr, 15.0)]) / 10.0, 500.0,
                        0.0, 1e-6);
    assert_double_close(q->throughput[at(x.tr, 20.0)], 100.0, 0.0, 1e-9);
    trx_free(&x);

    queue_xml(xml, sizeof xml, 40.0, 40.0, 1, 0.5); /* 70 deliveries/s, below 100/s */
    trx_run(&x, xml, &o, NULL);
    q = tnode(&x, "q");
    assert_true(x.tr->started_steady);
    assert_double_close(q->dead_letter_rate[x.tr->nsamples - 1], 40.0 * 0.125, 0.0, 1e-6);
    assert_double_close(q->loss_rate[x.tr->nsamples - 1], 40.0 * 0.125, 0.0, 1e-6);
    assert_double_close(q->throughput[x.tr->nsamples - 1], 40.0 * 1.75, 0.0, 1e-6);
    assert_double_close(q->backlog[x.tr->nsamples - 1], 0.0, 1e-9, 0.0);
    trx_free(&x);
}

/*
 * samples/serverless-pipeline.xml over its 10-minute profile: the gateway (1500/s, 300
 * tokens) rejects nothing before the bucket is empty; the rate passes 1500/s at 70 s and
 * rises by 50/s^2, so the 300 tokens last until 70 + sqrt(2 300 / 50) = 73.46 s; at the
 * 2500/s plateau the rejection is 1000/s. ingest (C = 70, T_e = 60 ms: 1166.7/s) throttles
 * nothing at the base rate, lambda(t) - 1166.7 on the ramp while the gateway passes
 * everything (from about 63 s: a little earlier, while its last cold starts, 3/s for 0.3 s,
 * hold slots; within 1e-3 from 65 s), and 1500 - 1166.7 = 333.3/s at the plateau.
 */
static void test_serverless_sample(void **state)
{
    const double t_empty = 70.0 + sqrt(2.0 * 300.0 / 50.0);
    const double Te = mean_exec(0.06, 3.0);
    ac_transient_options o;
    const ac_transient_node *api, *ingest;
    size_t first = AC_NONE;
    char *xml = ac_test_read_file(AC_SOURCE_DIR "/samples/serverless-pipeline.xml");
    trx x;
    (void)state;
    assert_non_null(xml);
    ac_transient_options_init(&o);
    o.samples = 6001; /* 0.1 s apart */
    trx_run(&x, xml, &o, NULL);
    free(xml);
    api = tnode(&x, "api");
    ingest = tnode(&x, "ingest");
    print_message("serverless-pipeline.xml: %zu states (%s), integrated in %.3f s\n", x.tr->dim,
                  x.tr->method, x.seconds);
    assert_string_equal(x.tr->method, "cvode-bdf");
    assert_true(x.tr->started_steady);
    for (size_t s = 0; s < x.tr->nsamples; s++) {
        if (x.tr->t[s] < t_empty - 0.05) {
            double lam = ac_transient_source_rate(x.m, 0, 1.0, x.tr->t[s]);
            assert_true(api->loss_rate[s] == 0.0);
            if (x.tr->t[s] < 60.0)
                assert_double_close(ingest->throttle_rate[s], 0.0, 1e-6, 0.0);
            else if (x.tr->t[s] > 65.0)
                assert_double_close(ingest->throttle_rate[s], lam - 70.0 / Te, 0.0, 1e-3);
        }
        if (api->loss_rate[s] > 0.0 && first == AC_NONE)
            first = s;
        if (x.tr->t[s] >= 91.0 && x.tr->t[s] <= 150.0) { /* relaxed after the ramp */
            assert_double_close(api->loss_rate[s], 1000.0, 0.0, 1e-6);
            assert_double_close(api->tokens[s], 0.0, 1e-6, 0.0);
            assert_double_close(ingest->throttle_rate[s], 1500.0 - 70.0 / Te, 0.0, 1e-6);
        }
    }
    assert_true(first != AC_NONE);
    print_message("  gateway empty at %.1f s (hand %.3f s), rejection %.6g/s at the plateau, "
                  "ingest throttles %.6g/s (hand %.6g/s)\n",
                  x.tr->t[first], t_empty, api->loss_rate[at(x.tr, 120.0)],
                  ingest->throttle_rate[at(x.tr, 120.0)], 1500.0 - 70.0 / Te);
    assert_double_close(x.tr->t[first], t_empty, 0.1, 0.0);
    assert_true(api->loss_rate[x.tr->nsamples - 1] == 0.0);
    trx_free(&x);
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
    static const char xml[] =
        "<architecture name='w' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='g' rate='40/s'/>\n"
        "    <profile source='s'><point at='0s' rate='40/s'/><point at='50s' rate='40/s'/></profile>\n"
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
        assert_double_close(tr->nodes[ia].cum_arrivals[ns - 1], 50.0 * (scales[k] * 40.0 -
                                                                          rejected[k]),
                            1e-6, 1e-6);
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
    static const char xml[] =
        "<architecture name='f' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='a' rate='60/s'/>\n"
        "    <profile source='s'><point at='0s' rate='60/s'/><point at='200s' rate='60/s'/></profile>\n"
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
        "    <profile source='s'><point at='0s' rate='100/s'/><point at='100s' rate='100/s'/></profile>\n"
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
        cmocka_unit_test(test_autoscale_fixed_point),
        cmocka_unit_test(test_autoscale_step_up),
        cmocka_unit_test(test_autoscale_step_down),
        cmocka_unit_test(test_scaling_requirement),
        cmocka_unit_test(test_autoscaled_sample),
        cmocka_unit_test(test_fn_sync_steady),
        cmocka_unit_test(test_fn_async_steady),
        cmocka_unit_test(test_serverless_conservation),
        cmocka_unit_test(test_fn_keepalive),
        cmocka_unit_test(test_fn_cold_start_step),
        cmocka_unit_test(test_fn_provisioned_prewarm),
        cmocka_unit_test(test_gateway_burst),
        cmocka_unit_test(test_queue_backlog),
        cmocka_unit_test(test_serverless_sample),
        cmocka_unit_test(test_workspace_scales),
        cmocka_unit_test(test_fault_pool),
        cmocka_unit_test(test_fault_function_gateway),
    };
    gsl_set_error_handler_off();
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("transient", tests, NULL, NULL);
}
