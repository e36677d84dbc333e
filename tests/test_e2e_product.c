/*
 * The fluid's end-to-end failed fractions per request (solver/transient_metrics.c,
 * e2e_product; doc/models.md §5 "Throttles and errors") against closed forms: each job at v
 * fails with v's share over the horizon, independently, so a request with n_v jobs at v
 * survives with prod_v (1 - f_v)^(n_v) on a chain, and a branch mixes its routes; the union
 * bound sum_v failures_v / requests stays as the upper bracket (e2e_*_union).
 *
 * The functions run 1 ms against a 60 s timeout (none times out: e^-60000) with ample
 * concurrency (nothing throttled but where stated), so a fail-prob q fault over the whole
 * horizon makes each node's share q up to the executions in flight at the edges (0.05 of
 * 50,000 jobs, which cancel at a steady load): tolerances 1e-6 where the fault is constant,
 * 1e-4 at a fault window's edges (the busy count relaxes in ~1 ms) and for a gateway's
 * initial bucket (one token of 50,000 requests: 2e-5).
 */
#include "helpers.h"

#include <math.h>
#include <stdio.h>

#include "archcheck/search.h"
#include "archcheck/transient.h"

#include "fixture.h"

#define H 1000.0 /* s, the horizon */

/* 50/s -> a -> 4 parallel calls of b (sync functions, no throttle); the objective's one term
 * is the end-to-end error rate. */
static const char fan_xml[] =
    "<architecture name='fan' format='1'>\n"
    "  <workload><source id='s' to='a' rate='50/s'/></workload>\n"
    "  <function id='a' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
    "  <function id='b' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
    "  <route from='a' to='b' fanout='4'/>\n"
    "  <faults budget='40' seed='2'>\n"
    "    <fault target='a' fail-prob='0..50%'/>\n"
    "    <fault target='b' fail-prob='0..50%'/>\n"
    "    <objective tau='0.7'><term metric='error-rate'/></objective>\n"
    "  </faults>\n"
    "</architecture>\n";

static ac_transient_options opts(void)
{
    ac_transient_options o;
    ac_transient_options_init(&o);
    o.horizon = H;
    return o;
}

/* a fails p, b fails q over the whole horizon: per request 1 - (1 - p)(1 - q)^4; the union
 * bound p + 4 (1 - p) q (b's jobs are the successes of a, four each). The visits at b are
 * those of a request whose call of a succeeded (4), not b's jobs per request (4 (1 - p)):
 * 1 - (1 - p)(1 - q)^(4 (1 - p)) would be optimistic (0.3843 at p = q = 0.1, 0.7599 at
 * p = 0.5, q = 0.3). */
static void test_fanout_closed_form(void **state)
{
    static const double pq[2][2] = {{0.1, 0.1}, {0.5, 0.3}};
    fx f;
    ac_transient_options o = opts();
    (void)state;
    fx_parse(&f, fan_xml);
    for (size_t i = 0; i < 2; i++) {
        double p = pq[i][0], q = pq[i][1];
        ac_transient_fault fl[2] = {{0, AC_TRANSIENT_FAULT_FAIL_PROB, p, 0.0, INFINITY},
                                    {1, AC_TRANSIENT_FAULT_FAIL_PROB, q, 0.0, INFINITY}};
        ac_transient_plan plan = {2, fl};
        const ac_transient *tr = fx_eval(&f, &o, &plan);
        double want = 1.0 - (1.0 - p) * pow(1.0 - q, 4.0);
        double uni = fmin(1.0, p + 4.0 * (1.0 - p) * q);
        print_message("p %g q %g: per request %.8f (closed form %.8f), union %.8f (%.8f)\n", p, q,
                      tr->e2e_error_fraction, want, tr->e2e_error_union, uni);
        assert_double_close(tr->e2e_error_fraction, want, 1e-6, 0.0);
        assert_double_close(tr->e2e_error_union, uni, 1e-6, 0.0);
        assert_double_close(tr->e2e_loss_fraction, want, 1e-6, 0.0);
        assert_double_close(tr->e2e_throttle_fraction, 0.0, 1e-9, 0.0);
        assert_true(tr->e2e_error_fraction < tr->e2e_error_union - 0.05);
    }
    fx_free(&f);
}

/* The search's score reads the per-request fraction: 0.40951 at p = q = 0.1, not the union
 * bound's 0.46. */
static void test_fanout_score(void **state)
{
    fx f;
    ac_transient_options o = opts();
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_term_value tv;
    ac_transient_fault fl[2] = {{0, AC_TRANSIENT_FAULT_FAIL_PROB, 0.1, 0.0, INFINITY},
                                {1, AC_TRANSIENT_FAULT_FAIL_PROB, 0.1, 0.0, INFINITY}};
    double s;
    (void)state;
    fx_parse(&f, fan_xml);
    assert_int_equal(ac_search_space_new(f.m, H, &sp, &f.err), AC_OK);
    assert_int_equal(ac_search_space_nfaults(sp), 2);
    assert_int_equal(ac_search_objective_new(f.m, sp, &o, 1.0, 1, &obj, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_eval_plan(obj, 0, fl, &s, &tv, &f.err), AC_OK);
    print_message("score %.8f (1 - 0.9^5 = %.8f; the union bound 0.46)\n", s, 1.0 - pow(0.9, 5));
    assert_double_close(s, 1.0 - pow(0.9, 5.0), 1e-6, 0.0);
    assert_double_close(tv.metric, s, 1e-15, 0.0);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    fx_free(&f);
}

/* 50/s -> gateway g (40/s: a fifth answered 429) -> a (fails 0.2) -> b with p 0.5 (fails 0.1),
 * -> c with p 0.3 as 2 calls (fails 0.3); the remaining 0.2 of a's successes leave. Clear of
 * failure after g: Q_a = 0.8 (0.2 + 0.5 x 0.9 + 0.3 x 0.7^2) = 0.6376. By hand:
 *   loss     1 - 0.8 x 0.6376 = 0.48992,
 *   error    1 - (0.2 + 0.8 x 0.6376) = 0.28992 (a throttled request goes no further),
 *   throttle 0.2;
 * the union bounds: errors (0.2 + 0.8 (0.5 x 0.1 + 0.3 x 2 x 0.3)) x 0.8 = 0.3072 of the
 * requests, throttles 0.2, loss 0.5072. The geometric form over the mean visits,
 * 1 - 0.8 x 0.8 x 0.9^0.5 x 0.7^0.6 = 0.50981, is above the mixture (a branch's visits are
 * 0 or 1, and E (1 - q)^K >= (1 - q)^(E K)). */
static void test_branch_by_hand(void **state)
{
    static const char xml[] =
        "<architecture name='br' format='1'>\n"
        "  <workload><source id='s' to='g' rate='50/s'/></workload>\n"
        "  <gateway id='g' rate-limit='40/s' burst='1'/>\n"
        "  <function id='a' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
        "  <function id='b' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
        "  <function id='c' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
        "  <route from='g' to='a'/>\n"
        "  <route from='a' to='b' p='0.5'/>\n"
        "  <route from='a' to='c' p='0.3' fanout='2'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options o = opts();
    ac_transient_fault fl[3] = {{1, AC_TRANSIENT_FAULT_FAIL_PROB, 0.2, 0.0, INFINITY},
                                {2, AC_TRANSIENT_FAULT_FAIL_PROB, 0.1, 0.0, INFINITY},
                                {3, AC_TRANSIENT_FAULT_FAIL_PROB, 0.3, 0.0, INFINITY}};
    ac_transient_plan plan = {3, fl};
    const ac_transient *tr;
    double qa = 0.8 * (0.2 + 0.5 * 0.9 + 0.3 * 0.49);
    (void)state;
    fx_parse(&f, xml);
    tr = fx_eval(&f, &o, &plan);
    print_message("loss %.6f (hand %.6f) error %.6f (%.6f) throttle %.6f; unions %.6f %.6f %.6f\n",
                  tr->e2e_loss_fraction, 1.0 - 0.8 * qa, tr->e2e_error_fraction,
                  1.0 - (0.2 + 0.8 * qa), tr->e2e_throttle_fraction, tr->e2e_loss_union,
                  tr->e2e_error_union, tr->e2e_throttle_union);
    assert_double_close(tr->e2e_loss_fraction, 1.0 - 0.8 * qa, 1e-4, 0.0);
    assert_double_close(tr->e2e_error_fraction, 1.0 - (0.2 + 0.8 * qa), 1e-4, 0.0);
    assert_double_close(tr->e2e_throttle_fraction, 0.2, 1e-4, 0.0);
    assert_double_close(tr->e2e_error_union, 0.8 * (0.2 + 0.8 * (0.05 + 0.18)), 1e-4, 0.0);
    assert_double_close(tr->e2e_loss_union, 0.2 + 0.8 * (0.2 + 0.8 * (0.05 + 0.18)), 1e-4, 0.0);
    assert_true(tr->e2e_loss_fraction < 1.0 - 0.8 * 0.8 * sqrt(0.9) * pow(0.7, 0.6) - 0.01);
    fx_free(&f);
}

/* A fault window: b (4 calls per request) fails q = 0.2 over the first half of the horizon
 * only. The time-resolved truth (independence given the time) is
 * 1 - mean_t (1 - q(t))^4 = 0.5 (1 - 0.8^4) = 0.2952; the product over the horizon's share
 * q / 2 is 1 - 0.9^4 = 0.3439, above it (Jensen: x -> (1 - x)^4 is convex), and below the
 * union bound 4 x 0.1 = 0.4. */
static void test_window_brackets(void **state)
{
    fx f;
    ac_transient_options o = opts();
    ac_transient_fault fl[2] = {{0, AC_TRANSIENT_FAULT_FAIL_PROB, 0.0, 0.0, INFINITY},
                                {1, AC_TRANSIENT_FAULT_FAIL_PROB, 0.2, 0.0, H / 2.0}};
    ac_transient_plan plan = {2, fl};
    const ac_transient *tr;
    double truth = 0.5 * (1.0 - pow(0.8, 4.0)), prod = 1.0 - pow(0.9, 4.0);
    (void)state;
    fx_parse(&f, fan_xml);
    tr = fx_eval(&f, &o, &plan);
    print_message("window: fluid %.6f (product %.6f), truth %.6f, union %.6f\n",
                  tr->e2e_error_fraction, prod, truth, tr->e2e_error_union);
    assert_double_close(tr->e2e_error_fraction, prod, 1e-4, 0.0);
    assert_double_close(tr->e2e_error_union, 0.4, 1e-4, 0.0);
    assert_true(tr->e2e_error_fraction >= truth + 0.04);
    assert_true(tr->e2e_error_fraction <= tr->e2e_error_union - 0.05);
    fx_free(&f);
}

/* 50/s -> queue (batch 1, visibility 1 s, 3 receives) -> polled f (fails 0.5; its failed
 * executions are redelivered, not failures) -> sync g (fails 0.2). A message is
 * dead-lettered with 0.5^3 = 0.125; the others reach g once (the successful execution calls
 * it): per request 1 - 0.875 x 0.8 = 0.3 (error-rate and loss alike). The visits at g are per
 * message not dead-lettered (1), not per message offered (0.875: 1 - 0.875 x 0.8^0.875 =
 * 0.2883 would be optimistic); the queue's receives per message deleted also count the
 * receives of the messages in flight at the horizon (a few seconds of 1,000: the tolerance
 * 2e-3, measured below it). The union bound counts g's failures and the dead letters:
 * 0.125 + 0.875 x 0.2 = 0.3 too (one job at g per request). */
static void test_queue_redelivery(void **state)
{
    static const char xml[] =
        "<architecture name='q' format='1'>\n"
        "  <workload><source id='s' to='q' rate='50/s'/></workload>\n"
        "  <queue id='q' batch-size='1' visibility-timeout='1s' max-receives='3'/>\n"
        "  <function id='f' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
        "  <function id='g' invocation='sync' concurrency='1000' duration='1ms' timeout='60s'\n"
        "            keep-alive='1h' retries='0'/>\n"
        "  <route from='q' to='f'/>\n"
        "  <route from='f' to='g'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options o = opts();
    ac_transient_fault fl[2] = {{1, AC_TRANSIENT_FAULT_FAIL_PROB, 0.5, 0.0, INFINITY},
                                {2, AC_TRANSIENT_FAULT_FAIL_PROB, 0.2, 0.0, INFINITY}};
    ac_transient_plan plan = {2, fl};
    const ac_transient *tr;
    (void)state;
    fx_parse(&f, xml);
    tr = fx_eval(&f, &o, &plan);
    print_message("queue: per request %.6f (hand 0.3), union %.6f; dead letters %.6f of %.6f\n",
                  tr->e2e_loss_fraction, tr->e2e_loss_union, tr->nodes[0].errors,
                  tr->nodes[0].offered);
    assert_double_close(tr->nodes[0].error_fraction, 0.125, 2e-3, 0.0);
    assert_double_close(tr->e2e_loss_fraction, 0.3, 2e-3, 0.0);
    assert_double_close(tr->e2e_error_fraction, 0.3, 2e-3, 0.0);
    assert_true(tr->e2e_loss_fraction > 1.0 - 0.875 * pow(0.8, 0.875) + 5e-3);
    fx_free(&f);
}

/* A cycle of routes (a sends half its successes back to itself): no topological order, so
 * the fractions are the union bounds. a's jobs per request 1 / (1 - 0.5 x 0.9) = 1.8182, a
 * tenth failing: 0.18182, which is also the truth here (a request fails at most once:
 * P = 0.1 + 0.45 P). */
static void test_cycle_union(void **state)
{
    static const char xml[] =
        "<architecture name='cy' format='1'>\n"
        "  <workload><source id='s' to='a' rate='50/s'/></workload>\n"
        "  <function id='a' concurrency='1000' duration='1ms' timeout='60s' keep-alive='1h'/>\n"
        "  <route from='a' to='a' p='0.5'/>\n"
        "</architecture>\n";
    fx f;
    ac_transient_options o = opts();
    ac_transient_fault fl[1] = {{0, AC_TRANSIENT_FAULT_FAIL_PROB, 0.1, 0.0, INFINITY}};
    ac_transient_plan plan = {1, fl};
    const ac_transient *tr;
    (void)state;
    fx_parse(&f, xml);
    tr = fx_eval(&f, &o, &plan);
    print_message("cycle: %.6f (union %.6f, hand %.6f)\n", tr->e2e_error_fraction,
                  tr->e2e_error_union, 0.1 / 0.55);
    assert_true(tr->e2e_error_fraction == tr->e2e_error_union);
    assert_true(tr->e2e_loss_fraction == tr->e2e_loss_union);
    assert_double_close(tr->e2e_error_fraction, 0.1 / 0.55, 1e-4, 0.0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fanout_closed_form), cmocka_unit_test(test_fanout_score),
        cmocka_unit_test(test_branch_by_hand),     cmocka_unit_test(test_window_brackets),
        cmocka_unit_test(test_queue_redelivery),   cmocka_unit_test(test_cycle_union),
    };
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("e2e_product", tests, NULL, NULL);
}
