/*
 * Tests of the objective's metrics on the fluid transient (solver/transient_metrics.c,
 * solver/transient_link.c, include/archcheck/transient.h): every metric against a closed
 * form or the simulator.
 *
 * Tolerances (stated at each assertion):
 *   backlog growth (lambda - c) t and drain backlog / (c - lambda)   2% (the fluid's relaxation)
 *   pool under servers-down at equilibrium vs M/M/1, M/M/c p95/p99   0.5%
 *   sync function p95 vs the exponential's (+ the delay)             0.5%
 *   throttle / error split vs the fluid hand computation             1%
 *   the end-to-end bound vs the exact hypoexponential quantile       above it, within 50%
 *   the bound over a branching route vs the union bound's closed form a grid step per stage
 *   a pool's p95 under a step of the load vs the simulator           measured (the test's
 *                                                                    comment), 25% + CI
 *   a sync function's p95 under a load step (cold starts) vs the sim  measured, 35% + CI
 *   link at a constant load vs the exact M/D/1 quantile              measured, 35%
 */
#include "helpers.h"

#include "archcheck/link.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "archcheck/transient.h"

#include "fixture.h"

/* ---- backlog: a constant overload fault ------------------------------------------------ */

/* An async function of C = 10, 100 ms (capacity 100/s) offered 80/s; +100 ms per execution
 * over [100, 160) s halves its capacity: the backlog grows at 80 - 50 = 30/s to 1800, then
 * drains at 100 - 80 = 20/s in 90 s; above one attempt for 60 + 90 = 150 s. */
static void test_overload_backlog_drain(void **state)
{
    static const char xml[] =
        "<architecture name='o' format='1'>\n"
        "  <workload><source id='s' to='fn' rate='80/s'/></workload>\n"
        "  <function id='fn' invocation='async' concurrency='10' duration='100ms' timeout='1h'"
        "            keep-alive='1h' scale-rate='1000/s'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    ac_transient_fault fault = {0, AC_TRANSIENT_FAULT_DELAY, 0.1, 100.0, 160.0};
    ac_transient_plan plan = {1, &fault};
    const ac_transient *tr;
    const ac_transient_node *n;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 400.0;
    opt.samples = 801;
    tr = fx_eval(&f, &opt, &plan);
    n = &tr->nodes[0];
    assert_double_close(n->backlog_peak, 1800.0, 0.0, 0.02);
    assert_double_close(n->drain_time, 90.0, 0.0, 0.02);
    assert_double_close(n->backlog_duration, 150.0, 0.0, 0.02);
    /* nothing fails, nothing is throttled (async waits) */
    assert_double_close(n->error_fraction, 0.0, 1e-9, 0.0);
    assert_double_close(n->throttle_fraction, 0.0, 1e-9, 0.0);
    /* the fluid FIFO wait at the peak: 1800 waiting / 50 starts/s = 36 s, + 200 ms */
    {
        size_t k = 320; /* t = 160 s */
        assert_double_close(tr->t[k], 160.0, 1e-9, 0.0);
        assert_true(n->p95_response_time[k] >= 36.0 * 0.98);
        assert_true(n->p95_response_time[k] <= 36.0 * 1.02 + 0.2 * 3.0 + 0.1);
    }
    fx_free(&f);
}

/* ---- pools under servers-down ---------------------------------------------------------- */

static const char pool_xml[] = "<architecture name='p' format='1'>\n"
                               "  <workload><source id='s' to='p' rate='12/s'/></workload>\n"
                               "  <pool id='p' servers='4' service-time='100ms' dispatch='%s'/>\n"
                               "</architecture>\n";

/* Four servers of 10/s offered 12/s, two down from 50 s on: at the horizon the reduced
 * pool's equilibrium. Random dispatch: two M/M/1 at rho = 0.6, T ~ Exp(10 - 6):
 * p95 = ln 20 / 4 s. Shared queue: M/M/2, P(T > t) = (1 - C) e^{-mu t} + C (mu e^{-(c mu -
 * lambda) t} - (c mu - lambda) e^{-mu t}) / (mu - (c mu - lambda)) with C = Erlang-C(2, 1.2). */
static double mmc_ccdf(double c, double mu, double lam, double C, double t)
{
    double g = c * mu - lam;
    return (1.0 - C) * exp(-mu * t) + C * (mu * exp(-g * t) - g * exp(-mu * t)) / (mu - g);
}

static double bisect_ccdf(double c, double mu, double lam, double C, double p)
{
    double lo = 0.0, hi = 100.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mmc_ccdf(c, mu, lam, C, mid) > 1.0 - p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void test_servers_down_equilibrium(void **state)
{
    static const char *const disp[] = {"random", "shared-queue"};
    (void)state;
    for (size_t i = 0; i < 2; i++) {
        char xml[512];
        fx f;
        ac_transient_options opt;
        ac_transient_fault fault = {0, AC_TRANSIENT_FAULT_SERVERS_DOWN, 2.0, 50.0, INFINITY};
        ac_transient_plan plan = {1, &fault};
        const ac_transient *tr;
        const ac_transient_node *n;
        size_t last;
        double p95, p99;
        snprintf(xml, sizeof xml, pool_xml, disp[i]);
        fx_parse(&f, xml);
        ac_transient_options_init(&opt);
        opt.horizon = 400.0;
        opt.capacity_min = 0.5;
        tr = fx_eval(&f, &opt, &plan);
        n = &tr->nodes[0];
        last = tr->nsamples - 1;
        if (i == 0) {
            p95 = log(20.0) / 4.0;
            p99 = log(100.0) / 4.0;
        } else {
            double C = 0.0;
            /* Erlang-C(2, 1.2) = 2 B / (2 - 1.2 (1 - B)), B = Erlang-B(2, 1.2) */
            double B1 = 1.2 / 2.2, B = 1.2 * B1 / (2.0 + 1.2 * B1);
            C = 2.0 * B / (2.0 - 1.2 * (1.0 - B));
            p95 = bisect_ccdf(2.0, 10.0, 12.0, C, 0.95);
            p99 = bisect_ccdf(2.0, 10.0, 12.0, C, 0.99);
        }
        assert_double_close(n->p95_response_time[last], p95, 0.0, 0.005);
        assert_double_close(n->p99_response_time[last], p99, 0.0, 0.005);
        /* before the fault: the full pool, rho = 0.3 (random: Exp(10 - 3)) */
        if (i == 0)
            assert_double_close(n->p95_response_time[0], log(20.0) / 7.0, 0.0, 0.005);
        fx_free(&f);
    }
}

/* ---- functions: p95 with a delay, throttles and errors --------------------------------- */

/* A sync function (C 10, 100 ms, no cold start in the fluid's steady state) offered 50/s:
 * T ~ Exp(100 ms), p95 = 0.1 ln 20; with +200 ms over the whole horizon, 0.2 + 0.1 ln 20. */
static void test_function_p95_delay(void **state)
{
    static const char xml[] =
        "<architecture name='f' format='1'>\n"
        "  <workload><source id='s' to='fn' rate='50/s'/></workload>\n"
        "  <function id='fn' concurrency='100' duration='100ms' timeout='60s' keep-alive='1h'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    ac_transient_fault fault = {0, AC_TRANSIENT_FAULT_DELAY, 0.2, 0.0, INFINITY};
    ac_transient_plan plan = {1, &fault};
    const ac_transient *tr;
    double q;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 100.0;
    tr = fx_eval(&f, &opt, NULL);
    assert_double_close(tr->nodes[0].p95_horizon, 0.1 * log(20.0), 0.0, 0.005);
    assert_double_close(tr->nodes[0].p99_horizon, 0.1 * log(100.0), 0.0, 0.005);
    /* one stage: the end-to-end bound is the stage's quantile (L = 1) */
    assert_double_close(tr->e2e_p95_horizon, 0.1 * log(20.0), 0.0, 0.005);
    tr = fx_eval(&f, &opt, &plan);
    assert_double_close(tr->nodes[0].p95_horizon, 0.2 + 0.1 * log(20.0), 0.0, 0.005);
    assert_int_equal(ac_transient_node_quantile(tr, 0, 0.95, NULL, &q), AC_OK);
    assert_double_close(q, tr->nodes[0].p95_horizon, 0.0, 1e-9);
    assert_int_equal(ac_transient_node_quantile(tr, 5, 0.95, NULL, &q), AC_EINVAL);
    fx_free(&f);
}

/* A sync function of C = 10, 100 ms offered 150/s admits C / T_e = 100/s (fluid) and
 * throttles 50/s: 1/3; 20% of its executions fail (retries 0): 20/s of 150/s are errors. A
 * gateway of 100/s offered 150/s answers 429 to 50/s. */
static void test_throttle_error_split(void **state)
{
    static const char xml[] =
        "<architecture name='t' format='1'>\n"
        "  <workload><source id='s' to='g' rate='150/s'/><source id='s2' to='fn' rate='150/s'/>"
        "  </workload>\n"
        "  <gateway id='g' rate-limit='100/s' burst='1'/>\n"
        "  <function id='fn' concurrency='10' duration='100ms' timeout='60s' keep-alive='1h'"
        "            fail-prob='20%'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    const ac_transient *tr;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 200.0;
    tr = fx_eval(&f, &opt, NULL);
    assert_double_close(tr->nodes[0].throttle_fraction, 1.0 / 3.0, 0.0, 0.01);
    assert_double_close(tr->nodes[0].error_fraction, 0.0, 1e-12, 0.0);
    assert_double_close(tr->nodes[1].throttle_fraction, 1.0 / 3.0, 0.0, 0.01);
    assert_double_close(tr->nodes[1].error_fraction, 20.0 / 150.0, 0.0, 0.01);
    /* end to end: (50 + 50) throttled and 20 failed of 300 requests */
    assert_double_close(tr->e2e_throttle_fraction, 100.0 / 300.0, 0.0, 0.01);
    assert_double_close(tr->e2e_error_fraction, 20.0 / 300.0, 0.0, 0.01);
    fx_free(&f);
}

/* ---- end to end ------------------------------------------------------------------------- */

/* Two sync functions in a row, 100 ms and 300 ms: T is hypoexponential,
 * P(T > t) = (d1 e^{-t/d1} - d2 e^{-t/d2}) / (d1 - d2). The bound (L = 2: each stage at
 * 1 - 0.05/2) is above the exact p95 and at least the slower stage's p95. */
static void test_e2e_bound(void **state)
{
    static const char xml[] =
        "<architecture name='e' format='1'>\n"
        "  <workload><source id='s' to='a' rate='20/s'/></workload>\n"
        "  <function id='a' concurrency='100' duration='100ms' timeout='60s' keep-alive='1h'/>\n"
        "  <function id='b' concurrency='100' duration='300ms' timeout='60s' keep-alive='1h'/>\n"
        "  <route from='a' to='b'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    const ac_transient *tr;
    double lo = 0.0, hi = 20.0, exact, d1 = 0.1, d2 = 0.3;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 100.0;
    tr = fx_eval(&f, &opt, NULL);
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if ((d1 * exp(-mid / d1) - d2 * exp(-mid / d2)) / (d1 - d2) > 0.05)
            lo = mid;
        else
            hi = mid;
    }
    exact = 0.5 * (lo + hi);
    assert_double_close(tr->e2e_stages, 2.0, 0.0, 1e-12);
    assert_true(tr->e2e_p95_horizon >= exact);
    assert_true(tr->e2e_p95_horizon <= 1.5 * exact); /* measured +45% */
    assert_true(tr->e2e_p95_horizon >= tr->nodes[1].p95_horizon);
    /* the bound is the union bound's best split, P(T > x) <= e^{-y/d1} + e^{-(x-y)/d2}:
     * both terms' derivatives equal, e^{-y/d1} = 0.05 d1 / (d1 + d2), on a grid of 128
     * steps of at most (d1 + d2) ln(40) (each stage at 1 - 0.05/2, the bound it refines) */
    assert_true(tr->e2e_p95_horizon <= (d1 + d2) * log(40.0));
    assert_double_close(tr->e2e_p95_horizon,
                        -d1 * log(0.05 * d1 / (d1 + d2)) - d2 * log(0.05 * d2 / (d1 + d2)), 0.0,
                        0.01);
    print_message("e2e p95: exact %.4f s, bound %.4f s (+%.0f%%)\n", exact, tr->e2e_p95_horizon,
                  100.0 * (tr->e2e_p95_horizon / exact - 1.0));
    fx_free(&f);
}

/* A branching route: M/M/1 'a' (mu 10/s, lambda 5/s), half of its jobs on to M/M/1 'b' (mu
 * 10/s, lambda 2.5/s). The sojourns are Exp(a = 5) and Exp(b = 7.5) (independent: Reich), so
 * T is Exp(a) w.p. 1/2 and the hypoexponential Exp(a) + Exp(b) w.p. 1/2: exact p95 0.7205 s.
 * The bound is the mixture over the two routes with the union bound's best split on the
 * longer one, 1/2 e^{-a x} + 1/2 min_y (e^{-a (x - y)} + e^{-b y}), the minimum at
 * y = (a x + ln(b / a)) / (a + b) where it is (1 + b / a) e^{-b y}: 1.0135 s (the stages'
 * sum at 1 - 0.05/2 over the worst path was 1.2296 s, +71%). */
static double branch_bound_ccdf(double a, double b, double x)
{
    double y = fmin(x, fmax(0.0, (a * x + log(b / a)) / (a + b)));
    double path = fmin(1.0, exp(-a * (x - y)) + exp(-b * y));
    return 0.5 * exp(-a * x) + 0.5 * path;
}

static double branch_exact_ccdf(double a, double b, double x)
{
    return 0.5 * exp(-a * x) + 0.5 * (b * exp(-a * x) - a * exp(-b * x)) / (b - a);
}

static double bisect_level(double (*ccdf)(double, double, double), double a, double b, double q)
{
    double lo = 0.0, hi = 20.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (ccdf(a, b, mid) > q)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static void test_e2e_branching(void **state)
{
    static const char xml[] =
        "<architecture name='b' format='1'>\n"
        "  <workload><source id='s' to='a' rate='5/s'/></workload>\n"
        "  <pool id='a' servers='1' service-time='100ms' dispatch='shared-queue'/>\n"
        "  <pool id='b' servers='1' service-time='100ms' dispatch='shared-queue'/>\n"
        "  <route from='a' to='b' p='0.5'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    const ac_transient *tr;
    double a = 5.0, b = 7.5, exact, bound, old = log(40.0) / a + log(40.0) / b;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 100.0;
    tr = fx_eval(&f, &opt, NULL);
    exact = bisect_level(branch_exact_ccdf, a, b, 0.05);
    bound = bisect_level(branch_bound_ccdf, a, b, 0.05);
    assert_double_close(exact, 0.7205, 0.0, 1e-3);
    assert_double_close(bound, 1.0135, 0.0, 1e-3);
    assert_true(tr->e2e_p95_horizon >= exact);
    assert_true(tr->e2e_p95_horizon <= old);
    /* the grid (128 steps of the old bound / 128) costs at most a step per stage */
    assert_double_close(tr->e2e_p95_horizon, bound, 2.0 * old / 128.0, 0.0);
    print_message("branching e2e p95: exact %.4f s, bound %.4f s (+%.0f%%), stage sum %.4f s\n",
                  exact, tr->e2e_p95_horizon, 100.0 * (tr->e2e_p95_horizon / exact - 1.0), old);
    fx_free(&f);
}

/* ---- against the simulator: a pool under a step of its load ------------------------------ */

/* A step of load against the simulator: the transient's p95 and p99 over the window
 * [lo, hi] (the samples weighted by the throughput, or by the executions of a function)
 * against the simulation of that window (40 replications), within tol plus the half-width. */
typedef struct step_case {
    const char *label, *xml;
    double horizon;
    size_t samples;
    double lo, hi;
    int executions;
    unsigned long seed;
    double tol;
} step_case;

static void step_vs_sim(const step_case *c)
{
    fx f;
    ac_transient_options opt;
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    const ac_transient *tr;
    double w[601], q95, q99;
    assert_true(c->samples <= sizeof w / sizeof w[0]);
    fx_parse(&f, c->xml);
    ac_transient_options_init(&opt);
    opt.horizon = c->horizon;
    opt.samples = c->samples;
    tr = fx_eval(&f, &opt, NULL);
    for (size_t k = 0; k < tr->nsamples; k++) {
        const double *x = c->executions ? tr->nodes[0].execution_rate : tr->nodes[0].throughput;
        w[k] = tr->t[k] >= c->lo && tr->t[k] <= c->hi ? x[k] : 0.0;
    }
    assert_int_equal(ac_transient_node_quantile(tr, 0, 0.95, w, &q95), AC_OK);
    assert_int_equal(ac_transient_node_quantile(tr, 0, 0.99, w, &q99), AC_OK);
    ac_sim_options_init(&so);
    so.seed = c->seed;
    so.replications = 40;
    so.horizon = c->hi;
    so.warmup = c->lo;
    so.use_profiles = 1;
    assert_int_equal(ac_sim_run(f.m, &so, &sr, &f.err), AC_OK);
    print_message("%s step: p95 transient %.4f s, sim %.4f +- %.4f (%+.1f%%); p99 %.4f vs "
                  "%.4f +- %.4f (%+.1f%%)\n",
                  c->label, q95, sr->nodes[0].p95_response_time.mean,
                  sr->nodes[0].p95_response_time.ci95,
                  100.0 * (q95 / sr->nodes[0].p95_response_time.mean - 1.0), q99,
                  sr->nodes[0].p99_response_time.mean, sr->nodes[0].p99_response_time.ci95,
                  100.0 * (q99 / sr->nodes[0].p99_response_time.mean - 1.0));
    assert_double_close(q95, sr->nodes[0].p95_response_time.mean,
                        sr->nodes[0].p95_response_time.ci95, c->tol);
    assert_double_close(q99, sr->nodes[0].p99_response_time.mean,
                        sr->nodes[0].p99_response_time.ci95, c->tol);
    ac_sim_result_free(sr);
    fx_free(&f);
}

/*
 * Random dispatch, 4 servers of 10/s: 12/s until 100 s, 32/s (rho = 0.8) over [100, 200),
 * 12/s after. The window [100, 200] s: the jobs leaving in it, in the simulator (40
 * replications) and in the transient (the mixture of the samples' laws weighted by the
 * throughput in the window). Measured: transient p95 / sim p95 - 1 = the printed value
 * (+6.8% at this commit, p99 +14.2%: the transient's law is above the simulation's): the law at
 * each instant from the mean-field state (exact for random dispatch) with the exponential fit of
 * the wait. Asserted within 25% plus the simulation's half-width.
 */
static void test_pool_step_vs_sim(void **state)
{
    static const step_case c = {
        "pool",
        "<architecture name='s' format='1'>\n"
        "  <workload><source id='s' to='p' rate='12/s'/>\n"
        "    <profile source='s'><point at='0s' rate='12/s'/><point at='100s' rate='12/s'/>"
        "      <point at='100.001s' rate='32/s'/><point at='200s' rate='32/s'/>"
        "      <point at='200.001s' rate='12/s'/><point at='300s' rate='12/s'/></profile>\n"
        "  </workload>\n"
        "  <pool id='p' servers='4' service-time='100ms' dispatch='random'/>\n"
        "</architecture>\n",
        300.0,
        601,
        100.0,
        200.0,
        0,
        7,
        0.25};
    (void)state;
    step_vs_sim(&c);
}

/*
 * A sync function (C 100, 100 ms, cold start 500 ms, keep-alive 10 min) under a step of its
 * load 200/s -> 800/s at 100 s: the new instances start cold. The window [100, 105] s in the
 * simulator (40 replications) and in the transient (the mixture weighted by the executions
 * in the window): the printed errors are the measurement (+1.2% p95, +2.2% p99 at this
 * commit); asserted within 35% plus the half-width.
 */
static void test_function_step_vs_sim(void **state)
{
    static const step_case c = {
        "function",
        "<architecture name='s' format='1'>\n"
        "  <workload><source id='s' to='fn' rate='200/s'/>\n"
        "    <profile source='s'><point at='0s' rate='200/s'/><point at='100s' rate='200/s'/>"
        "      <point at='100.001s' rate='800/s'/><point at='200s' rate='800/s'/></profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='100' duration='100ms' cold-start='500ms' timeout='60s'"
        "            keep-alive='10min' scale-rate='1000/s'/>\n"
        "</architecture>\n",
        200.0,
        401,
        100.0,
        105.0,
        1,
        11,
        0.35};
    (void)state;
    step_vs_sim(&c);
}

/* ---- links ------------------------------------------------------------------------------- */

/* A link of 100/s, 5 ms latency, carrying 70/s at a constant load: the transient's law (the
 * M/D/1 wait fitted as exponential, the transmission and the latency) against the exact
 * M/D/1 law of solver/link.c. Measured: the printed errors (p95 +5.3%, p99 +7.5% at this
 * commit: the exponential's tail is heavier); asserted within 35%, never below the exact
 * mean. */
static void test_link_constant_load(void **state)
{
    static const char xml[] =
        "<architecture name='l' format='1'>\n"
        "  <workload><source id='s' to='a' rate='70/s'/></workload>\n"
        "  <function id='a' concurrency='100' duration='10ms' timeout='60s' keep-alive='1h'/>\n"
        "  <function id='b' concurrency='100' duration='10ms' timeout='60s' keep-alive='1h'/>\n"
        "  <route from='a' to='b'/>\n"
        "  <link from='a' to='b' capacity='100/s' latency='5ms'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    const ac_transient *tr;
    ac_solver_link_result lr;
    double ex95 = 0.0, ex99 = 0.0;
    size_t last;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 50.0;
    tr = fx_eval(&f, &opt, NULL);
    last = tr->nsamples - 1;
    assert_int_equal(tr->nlinks, 1);
    assert_double_close(tr->links[0].arrival_rate[last], 70.0, 0.0, 1e-3);
    /* the jobs waiting settle at M/D/1's rho^2 / (2 (1 - rho)) (transient_link.c's PSFFA) */
    assert_double_close(tr->links[0].backlog[last], 0.49 / 0.6, 0.0, 1e-6);
    memset(&lr, 0, sizeof lr);
    assert_int_equal(ac_solver_link_solve(&f.m->links[0], 70.0, 0.0, &lr, &f.err), AC_OK);
    {
        double lo = 0.0, hi = 1.0;
        for (int i = 0; i < 100; i++) {
            double mid = 0.5 * (lo + hi);
            *(ac_solver_link_cdf(&lr, mid) < 0.95 ? &lo : &hi) = mid;
        }
        ex95 = hi;
        lo = 0.0;
        hi = 1.0;
        for (int i = 0; i < 100; i++) {
            double mid = 0.5 * (lo + hi);
            *(ac_solver_link_cdf(&lr, mid) < 0.99 ? &lo : &hi) = mid;
        }
        ex99 = hi;
    }
    print_message("link rho 0.7: p95 transient %.5f s vs exact M/D/1 %.5f (%+.1f%%), p99 %.5f "
                  "vs %.5f (%+.1f%%)\n",
                  tr->links[0].p95_response_time[last], ex95,
                  100.0 * (tr->links[0].p95_response_time[last] / ex95 - 1.0),
                  tr->links[0].p99_response_time[last], ex99,
                  100.0 * (tr->links[0].p99_response_time[last] / ex99 - 1.0));
    assert_double_close(tr->links[0].p95_response_time[last], ex95, 0.0, 0.35);
    assert_double_close(tr->links[0].p99_response_time[last], ex99, 0.0, 0.35);
    /* the mean of the fitted law is the exact P-K mean: latency + 1/c + rho / (2 c (1 - rho)) */
    {
        const double *law = tr->links[0].law;
        size_t ns = tr->nsamples;
        double mean =
            law[AC_TRANSIENT_LAW_SHIFT * ns + last] +
            law[AC_TRANSIENT_LAW_PWAIT * ns + last] / law[AC_TRANSIENT_LAW_WRATE * ns + last];
        assert_double_close(mean, lr.mean_response_time, 0.0, 1e-6);
    }
    /* the link counts in the end-to-end bound: three stages */
    assert_double_close(tr->e2e_stages, 3.0, 0.0, 1e-12);
    ac_solver_link_result_clear(&lr);
    fx_free(&f);
}

/* An overloaded link: 150/s into 100/s over [10, 20) s, 50/s otherwise: the fluid backlog
 * grows at 50/s to 500 and drains at 50/s in 10 s. */
static void test_link_overload(void **state)
{
    static const char xml[] =
        "<architecture name='l' format='1'>\n"
        "  <workload><source id='s' to='a' rate='50/s'/>\n"
        "    <profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
        "      <point at='10.001s' rate='150/s'/><point at='20s' rate='150/s'/>"
        "      <point at='20.001s' rate='50/s'/><point at='60s' rate='50/s'/></profile>\n"
        "  </workload>\n"
        "  <function id='a' concurrency='1000' duration='10ms' timeout='60s' keep-alive='1h'/>\n"
        "  <function id='b' concurrency='1000' duration='10ms' timeout='60s' keep-alive='1h'/>\n"
        "  <route from='a' to='b'/>\n"
        "  <link from='a' to='b' capacity='100/s'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options opt;
    const ac_transient *tr;
    (void)state;
    fx_parse(&f, xml);
    ac_transient_options_init(&opt);
    opt.horizon = 60.0;
    opt.samples = 601;
    tr = fx_eval(&f, &opt, NULL);
    assert_double_close(tr->links[0].backlog_peak, 500.0, 0.0, 0.02);
    assert_double_close(tr->links[0].backlog_duration, 20.0, 0.0, 0.03);
    assert_double_close(tr->links[0].drain_time, 10.0, 0.0, 0.03);
    assert_true(tr->links[0].saturated);
    assert_non_null(strstr(tr->note, "carries its capacity"));
    /* the node behind it is fed what the link carries: at most its capacity */
    for (size_t s = 0; s < tr->nsamples; s++)
        assert_true(tr->nodes[1].arrival_rate[s] <= 100.0 * (1.0 + 1e-6));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overload_backlog_drain),
        cmocka_unit_test(test_servers_down_equilibrium),
        cmocka_unit_test(test_function_p95_delay),
        cmocka_unit_test(test_throttle_error_split),
        cmocka_unit_test(test_e2e_bound),
        cmocka_unit_test(test_e2e_branching),
        cmocka_unit_test(test_pool_step_vs_sim),
        cmocka_unit_test(test_function_step_vs_sim),
        cmocka_unit_test(test_link_constant_load),
        cmocka_unit_test(test_link_overload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
