/*
 * The warm reuse of a function in the fluid transient (solver/transient_function.c): a freed
 * on-demand instance serves the demand at once (the most recently used), only the excess
 * of the freed instances over the demand enters the keep-alive's stages, and a deficit is
 * drawn from them (most recently idled first) before any cold start. So under a steady load
 * no instance stays idle, and the fluid's closed forms hold without the relaxation's stock
 * (before, TR_RELAX of the busy instances sat idle-warm in the first stage, at the kink of
 * its min(): the integrator's steps were limited there).
 *
 * The case: a sync function (C = 1000, d = 100 ms, timeout 60 s, no cold-start latency,
 * scale rate 10^4/s, keep-alive T = 60 s) offered l1 = 100/s, l2 = 300/s over [20, 80),
 * l1 again, l2 again from 140 s. With T_e = E[min(X, 60 s)] and G ~ Erlang(k, k / T) the
 * keep-alive (k = AC_TRANSIENT_KEEPALIVE_STAGES):
 *   - steady at l1: busy = instances = l1 T_e, no cold start;
 *   - the step up: busy = l2 T_e + (l1 - l2) T_e e^{-(t - 20)/T_e}, every new instance cold:
 *     (l2 - l1) T_e = 20 cold starts over [20, 80), instances = busy;
 *   - the step down: the M = (l2 - l1) T_e instances in excess end their executions (Exp)
 *     and idle for G: alive - l1 T_e = M P(E + G > t - 80) = M [P(G > t') + T_e g(t') + ...];
 *   - the step up at 140 s: the M P(E + G > 60) still alive serve first (warm), the rest of
 *     the M new ones start cold: M (1 - P(E + G > 60)) cold starts over [140, 200), plus
 *     those that expire during the drain (the oldest stages, while the newest are reused).
 * With the relaxation's idle stock of before, the steady instances exceeded the busy ones by
 * AC_TRANSIENT_RELAX (1%; asserted equal to 1e-6 here).
 */
#include "helpers.h"

#include "archcheck/parser.h"
#include "archcheck/transient.h"

#include "fixture.h"

static const char hold_xml[] =
    "<architecture name='h' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='100/s'/>\n"
    "    <profile source='s'><point at='0s' rate='100/s'/><point at='19.999s' rate='100/s'/>"
    "<point at='20s' rate='300/s'/><point at='79.999s' rate='300/s'/>"
    "<point at='80s' rate='100/s'/><point at='139.999s' rate='100/s'/>"
    "<point at='140s' rate='300/s'/><point at='200s' rate='300/s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='1000' duration='100ms' timeout='60s' keep-alive='60s'"
    " scale-rate='10000/s'/>\n"
    "</architecture>\n";

#define L1 100.0
#define L2 300.0
#define KA 60.0 /* s, keep-alive */

/* E[min(X, theta)], X ~ Exp(mean d) */
static double mean_exec(double d, double theta)
{
    return d * (1.0 - exp(-theta / d));
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

/* P(E + G > t), E ~ Exp(mean te), G ~ Erlang(k, rate): the convolution by GSL-free
 * quadrature (midpoint, fine enough: the density of E is smooth on [0, t]). */
static double exec_then_idle(double te, int k, double rate, double t)
{
    const size_t n = 200000;
    double h = t / (double)n, s = exp(-t / te); /* E > t */
    for (size_t i = 0; i < n; i++) {
        double e = ((double)i + 0.5) * h;
        s += exp(-e / te) / te * erlang_survival(k, rate, t - e) * h;
    }
    return s;
}

/* The sample at time t (the grid holds it). */
static size_t sample_at(const ac_transient *tr, double t)
{
    for (size_t k = 0; k < tr->nsamples; k++)
        if (fabs(tr->t[k] - t) <= 1e-9 * (1.0 + t))
            return k;
    fail_msg("no sample at t = %g s", t);
    return 0;
}

static const ac_transient *eval_hold(fx *f)
{
    ac_transient_options opt;
    fx_parse(f, hold_xml);
    ac_transient_options_init(&opt);
    opt.horizon = 200.0;
    opt.samples = 401; /* every 0.5 s: the steps are samples */
    return fx_eval(f, &opt, NULL);
}

/* Steady at l1, then the step up: no idle instance, every new one cold. */
static void test_hold_step_up(void **state)
{
    const double te = mean_exec(0.1, 60.0), M = (L2 - L1) * te;
    fx f;
    const ac_transient *tr;
    const ac_transient_node *n;
    size_t s20, s80;
    (void)state;
    tr = eval_hold(&f);
    n = &tr->nodes[0];
    s20 = sample_at(tr, 19.5);
    s80 = sample_at(tr, 79.5);
    print_message("steady at %g/s: busy %.9g, instances %.9g (l1 T_e = %.9g); cold starts over "
                  "the step up %.6f (hand %.6f); instances - busy at 79.5 s: %.3g\n",
                  L1, n->busy[s20], n->instances[s20], L1 * te,
                  n->cum_cold_starts[s80] - n->cum_cold_starts[s20], M,
                  n->instances[s80] - n->busy[s80]);
    assert_double_close(n->busy[s20], L1 * te, 0.0, 1e-6);
    assert_double_close(n->instances[s20], L1 * te, 0.0, 1e-6);
    assert_double_close(n->cold_start_rate[s20], 0.0, 1e-6, 0.0);
    assert_double_close(n->cum_cold_starts[s80] - n->cum_cold_starts[s20], M, 0.0, 1e-4);
    assert_double_close(n->busy[s80], L2 * te, 0.0, 1e-6);
    assert_double_close(n->instances[s80], L2 * te, 0.0, 1e-6);
    fx_free(&f);
}

/* The step down fills the keep-alive's stages; the next step up drains them first. */
static void test_hold_deplete_refill(void **state)
{
    const int k = AC_TRANSIENT_KEEPALIVE_STAGES;
    const double te = mean_exec(0.1, 60.0), M = (L2 - L1) * te, rate = (double)k / KA;
    const double alive = M * exec_then_idle(te, k, rate, 60.0);
    const double mid = M * exec_then_idle(te, k, rate, 30.0);
    fx f;
    const ac_transient *tr;
    const ac_transient_node *n;
    size_t s110, s140, s200;
    double cold, expiry;
    (void)state;
    tr = eval_hold(&f);
    n = &tr->nodes[0];
    s110 = sample_at(tr, 110.0);
    s140 = sample_at(tr, 140.0);
    s200 = sample_at(tr, 200.0);
    cold = n->cum_cold_starts[s200] - n->cum_cold_starts[s140];
    expiry =
        M * (alive / M - exec_then_idle(te, k, rate, 60.01)) / 0.01 * (-te * log(1.0 - alive / M));
    print_message("after the step down: alive - l1 T_e %.6f at 110 s (hand %.6f), %.6f at "
                  "140 s (hand %.6f); cold starts over the second step up %.6f (hand %.6f, "
                  "+ at most %.6f expiring during the drain)\n",
                  n->instances[s110] - L1 * te, mid, n->instances[s140] - L1 * te, alive, cold,
                  M - alive, expiry);
    assert_double_close(n->instances[s110] - L1 * te, mid, 0.0, 1e-3);
    assert_double_close(n->instances[s140] - L1 * te, alive, 0.0, 1e-3);
    /* the drain takes t_d (M (1 - e^{-t_d/T_e}) = alive); the oldest stages go on expiring
       meanwhile (the most recently idled are reused first), at most M f(60) t_d of them, f
       the density of E + G */
    assert_true(cold >= M - alive - 1e-4);
    assert_true(cold <= M - alive + expiry);
    /* refilled: every instance busy again, none idle */
    assert_double_close(n->instances[s200], L2 * te, 0.0, 1e-4);
    assert_double_close(n->idle[s200], 0.0, 1e-4, 0.0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hold_step_up),
        cmocka_unit_test(test_hold_deplete_refill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
