/*
 * Tests of the fluid transient of a network (analysis/transient.c, include/archcheck/transient.h),
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
    assert_string_equal(transient_of(&f)->method, "msbdf");
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
    assert_string_equal(tr->method, dense_max > 0 ? "msbdf" : "rkf45");
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
 * count is the same 11 (ac_transient_autoscale_steady).
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
        assert_int_equal(ac_transient_autoscale_steady(&p, 63.0), 11);
        p.servers = 8;
        assert_int_equal(ac_transient_autoscale_steady(&p, 63.0), 11);
        assert_int_equal(ac_transient_autoscale_steady(&p, 1000.0), 30); /* clamped at max */
        p.servers = 10;
        assert_int_equal(ac_transient_autoscale_steady(&p, 60.0), 10); /* exactly at target */
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
    assert_non_null(strstr(find_rule(&f.d, "AC207")->detail, "1 scaling events"));
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
    };
    gsl_set_error_handler_off();
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("transient", tests, NULL, NULL);
}
