/*
 * Tests of the fluid transient of a network (analysis/transient.c, include/archcheck/transient.h),
 * of the recovery requirement (analysis/req_capacity.c) and of the QNA two-moment correction
 * (analysis/qna.c).
 *
 * Tolerances (stated at each assertion):
 *   transient at a long horizon vs the solver's fixed point        1e-6 absolute on every q_k
 *   conservation of jobs (counters integrated in the ODE)           1e-6 relative
 *   recovery vs the fluid hand computation                          10% relative (see the test)
 *   QNA vs the Kingman/Whitt formula (the same formula)             1e-9 relative
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

#define MAX_ARGS 16

/* Run archcheck with the arguments given (NULL-terminated). */
static ac_test_run run_ac(const char *arg, ...)
{
    char *argv[MAX_ARGS + 2];
    size_t n = 0;
    va_list ap;
    ac_test_run r;
    argv[n++] = strdup(AC_TEST_BIN);
    va_start(ap, arg);
    for (const char *x = arg; x != NULL && n <= MAX_ARGS; x = va_arg(ap, const char *))
        argv[n++] = strdup(x);
    va_end(ap);
    argv[n] = NULL;
    r = ac_test_exec(NULL, argv);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    assert_non_null(r.out);
    assert_non_null(r.err);
    return r;
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

/* One server, lambda = 0.5, mu = 1, arrivals with scv 4: the wait is (c_a^2 + c_s^2)/2 times
 * the M/M/1 wait rho / (mu - lambda) = 1 s (Kingman / Whitt), so E[W] = 2.5 s, E[T] = 3.5 s;
 * the p50 of T = 2.5 W + S has P(T > t) = e^{-t} + mu rho (e^{-a t} - e^{-mu t}) / (mu - a),
 * a = (mu - lambda) / 2.5. Downstream (p = 1), c_a^2 = 1 + (1 - rho^2)(4 - 1) = 3.25. */
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
    double t, a = 0.5 / 2.5, ccdf;
    fx f;
    (void)state;
    analyse(&f, xml, &o);
    na = &f.a->nodes[0];
    assert_true(na->qna);
    assert_string_equal(ac_node_analysis_approximation(na), "qna");
    assert_double_close(na->arrival_scv, 4.0, 1e-12, 0.0);
    assert_double_close(na->qna_wait_factor, 2.5, 1e-12, 0.0);
    assert_double_close(na->mean_response_time, 3.5, 0.0, 1e-9);
    assert_double_close(na->mean_jobs, 0.5 * 3.5, 0.0, 1e-9); /* Little */
    assert_true(na->expected_rel_error > 0.0);
    t = na->p50;
    ccdf = exp(-t) + 0.5 * (exp(-a * t) - exp(-t)) / (1.0 - a);
    assert_double_close(ccdf, 0.5, 1e-7, 0.0);
    t = na->p99;
    ccdf = exp(-t) + 0.5 * (exp(-a * t) - exp(-t)) / (1.0 - a);
    assert_double_close(ccdf, 0.01, 1e-8, 0.0);
    /* the second pool: departure SCV of the first */
    na = &f.a->nodes[1];
    assert_true(na->qna);
    assert_double_close(na->arrival_scv, 3.25, 1e-9, 0.0);
    /* M/M/1 at rho = 0.25: W = rho / (mu - lambda) = 0.25 / 1.5; T = W * (3.25 + 1) / 2 + 0.5 */
    assert_double_close(na->mean_response_time, 0.25 / 1.5 * 2.125 + 0.5, 0.0, 1e-9);
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
    };
    gsl_set_error_handler_off();
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("transient", tests, NULL, NULL);
}
