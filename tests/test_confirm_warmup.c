/*
 * The confirmation's warm-up (ac_analysis_confirm_warmup, analysis/confirm.c) reaches the
 * steady state the horizon must start from: the simulated state just after it (a function's
 * mean alive instances and mean jobs over the first seconds) equals, within the simulator's
 * intervals, the state after a warm-up long past every memory; and the keep-alive term of the
 * rule is needed: after the fast relaxation alone (100 tau_fast) the instances that the empty
 * start created are still alive, far outside those intervals. (Measured on
 * samples/serverless-pipeline.xml: after 90 s its `aggregate` has 63-100 alive instances in
 * 6 replications, after the rule's 690 s 59-64.)
 */
#include "helpers.h"
#include "fixture.h"

#include <stdio.h>

#include "archcheck/confirm.h"
#include "archcheck/sim.h"
#include "warm_fixture.h"

/* The function's mean alive instances and mean jobs over [w, w + 5 s], 20 replications. */
static void state_after(const ac_model *m, double w, ac_sim_estimate *inst, ac_sim_estimate *jobs)
{
    ac_sim_options so;
    ac_sim_result *res = NULL;
    ac_error err = {0};
    ac_sim_options_init(&so);
    so.replications = 20;
    so.horizon = w + 5.0;
    so.warmup = w;
    so.seed = 7;
    assert_int_equal(ac_sim_run(m, &so, &res, &err), AC_OK);
    *inst = res->nodes[0].mean_instances;
    *jobs = res->nodes[0].mean_jobs;
    ac_sim_result_free(res);
}

static void test_warmup_reaches_steady_state(void **state)
{
    fx f;
    ac_sim_estimate i_rule, j_rule, i_long, j_long, i_fast, j_fast;
    double w, fast;
    (void)state;
    fx_parse(&f, warm_xml);
    w = ac_analysis_confirm_warmup(f.m);
    fast = 100.0 * (0.030 + 0.5);
    /* 100 tau_fast + the keep-alive (no retry: no back-off memory) */
    assert_double_close(w, fast + 120.0, 0.0, 1e-9);
    state_after(f.m, w, &i_rule, &j_rule);
    state_after(f.m, 3.0 * w, &i_long, &j_long);
    state_after(f.m, fast, &i_fast, &j_fast);
    print_message("alive instances after %g s: %.3f +- %.3f; after %g s: %.3f +- %.3f; after "
                  "%g s: %.3f +- %.3f\n",
                  w, i_rule.mean, i_rule.ci95, 3.0 * w, i_long.mean, i_long.ci95, fast, i_fast.mean,
                  i_fast.ci95);
    print_message("mean jobs: %.4f +- %.4f, %.4f +- %.4f, %.4f +- %.4f\n", j_rule.mean, j_rule.ci95,
                  j_long.mean, j_long.ci95, j_fast.mean, j_fast.ci95);
    /* the rule's state is the steady state's within the intervals (1.5 x the sum of the 95%
     * half-widths: beyond 99.9% for two independent t intervals of 19 degrees) */
    assert_true(fabs(i_rule.mean - i_long.mean) <= 1.5 * (i_rule.ci95 + i_long.ci95));
    assert_true(fabs(j_rule.mean - j_long.mean) <= 1.5 * (j_rule.ci95 + j_long.ci95));
    /* the busy count is the closed form's lambda E[S] = 6 within its interval and 5% (the
     * cold starts' share of the holding time: one execution in hundreds) */
    assert_true(fabs(j_long.mean - 6.0) <= j_long.ci95 + 0.3);
    /* without the keep-alive term the start-up's instances are still there */
    assert_true(i_fast.mean - i_long.mean > 3.0 * (i_fast.ci95 + i_long.ci95));
    assert_true(i_fast.mean > i_long.mean + 5.0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warmup_reaches_steady_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
