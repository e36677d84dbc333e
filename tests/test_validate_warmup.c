/*
 * The validating simulation's warm-up when the event budget shortens the automatic horizon
 * (sim/run.c, settled_horizon): the warm-up stays the settling time W = 100 tau + tau_slow
 * (ac_sim_settling_time) and only the measured part shrinks. Before, the warm-up was a tenth
 * of the shortened horizon: on samples/serverless-pipeline.xml 20.7 s of 207 s, far below
 * the 690 s that the keep-alive's memory of the empty start needs, and the KPIs were biased
 * beyond their own intervals (end-to-end p99 814 +- 8.6 ms against 792 +- 0.8 ms after 690 s;
 * `aggregate`'s alive instances 64.6 against 56.3). Here: a function whose empty start
 * leaves ~30 instances alive for a keep-alive while the steady state keeps ~15; the
 * budget-limited run's interval holds the value that a warm-up of 3 W gives, and a budget
 * that cannot pay for two replications of the warm-up and a minimal measured part gives
 * AC_ELIMIT with its reason (the analysis then says the KPIs are not validated), never
 * intervals of the start-up.
 */
#include "helpers.h"
#include "fixture.h"

#include <stdio.h>
#include <string.h>

#include "archcheck/analysis.h"
#include "archcheck/sim.h"
#include "warm_fixture.h"

/* W = 100 tau + tau_slow = 53 + 120 = 173 s for the fixture of tests/warm_fixture.h. */

#define W_SETTLE (100.0 * 0.53 + 120.0)

/* The automatic horizon under a budget of `budget` events, the default warm-up. */
static int run_budget(const ac_model *m, unsigned long long budget, ac_sim_result **res,
                      ac_error *err)
{
    ac_sim_options so;
    ac_sim_options_init(&so);
    so.seed = 3;
    so.max_events = budget;
    return ac_sim_run(m, &so, res, err);
}

static void test_budget_keeps_settling_warmup(void **state)
{
    fx f;
    ac_sim_options so;
    ac_sim_result *lim = NULL, *ref = NULL;
    ac_error err = {0};
    ac_sim_estimate a, b;
    (void)state;
    fx_parse(&f, warm_xml);
    /* 900,000 events: 20 replications of the automatic horizon (1,200 s) do not fit; the old
     * rule shortened it to about 50 s with a 5 s warm-up */
    assert_int_equal(run_budget(f.m, 900000ULL, &lim, &err), AC_OK);
    /* the reference: 10 replications of 3 W warm-up and 100 s measured, no budget */
    ac_sim_options_init(&so);
    so.seed = 11;
    so.replications = 10;
    so.warmup = 3.0 * W_SETTLE;
    so.horizon = so.warmup + 100.0;
    assert_int_equal(ac_sim_run(f.m, &so, &ref, &err), AC_OK);
    a = lim->nodes[0].mean_instances;
    b = ref->nodes[0].mean_instances;
    print_message("budget-limited: %zu replications of %g s, warm-up %g s (%s): alive "
                  "%.3f +- %.3f; reference %.3f +- %.3f\n",
                  lim->replications, lim->horizon, lim->warmup,
                  ac_sim_warmup_rule_name(lim->warmup_rule), a.mean, a.ci95, b.mean, b.ci95);
    assert_true(lim->budget_limited);
    assert_int_equal(lim->warmup_rule, AC_SIM_WARMUP_SETTLING);
    assert_int_equal(ref->warmup_rule, AC_SIM_WARMUP_GIVEN);
    assert_double_close(lim->warmup, W_SETTLE, 0.0, 1e-9);
    /* the measured part is at least 100 tau */
    assert_true(lim->horizon >= W_SETTLE + 53.0 - 1e-9);
    assert_true(lim->replications >= 2 && lim->events <= 900001ULL);
    /* the budget-limited interval holds the long warm-up's value (the summed half-widths of
     * two independent 95% intervals); the old warm-up gave ~30 alive, beyond them */
    assert_true(fabs(a.mean - b.mean) <= a.ci95 + b.ci95);
    /* and so does the mean busy count, lambda E[S] = 6 within 5% (tests/test_confirm_warmup.c) */
    assert_true(fabs(lim->nodes[0].mean_jobs.mean - 6.0) <= lim->nodes[0].mean_jobs.ci95 + 0.3);
    ac_sim_result_free(lim);
    ac_sim_result_free(ref);
    fx_free(&f);
}

static void test_budget_too_small_is_budget_limited(void **state)
{
    fx f;
    ac_sim_result *res = NULL;
    ac_error err = {0};
    ac_analysis_options ao;
    ac_analysis *an = NULL;
    ac_diag_list diags = {0};
    (void)state;
    fx_parse(&f, warm_xml);
    /* 2 replications of 173 + 53 s at ~600 events/s need ~270,000 events: 100,000 do not
       pay for them */
    assert_int_equal(run_budget(f.m, 100000ULL, &res, &err), AC_ELIMIT);
    assert_null(res);
    print_message("%s\n", err.message);
    assert_non_null(strstr(err.message, "budget-limited"));
    assert_non_null(strstr(err.message, "settling warm-up (173 s)"));
    /* the analysis: no simulated interval, the reason in its note */
    ac_analysis_options_init(&ao);
    ao.validate = AC_VALIDATE_ALWAYS;
    ao.transient = AC_TRANSIENT_NEVER;
    ao.headroom = 0;
    ao.sim.max_events = 100000ULL;
    assert_int_equal(ac_analysis_run(f.m, &ao, &an, &diags, &err), AC_OK);
    print_message("note: %s\n", an->sim_note);
    assert_null(an->sim);
    assert_non_null(strstr(an->sim_note, "not validated"));
    assert_non_null(strstr(an->sim_note, "budget-limited"));
    ac_analysis_free(an);
    ac_diag_list_clear(&diags);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_keeps_settling_warmup),
        cmocka_unit_test(test_budget_too_small_is_budget_limited),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
