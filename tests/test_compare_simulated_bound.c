/*
 * compare --search: the baseline's worst case at the design's workload re-run in the
 * simulator (analysis/confirm.c: the sequential test against tau that `search` and check
 * use), its score with its interval (>= 95%, simulation_level) beside
 * the fluid score in the worst-case score row (JSON simulation_value, simulation_value_ci95 beside
 * the cell's value, as a check's; a line under the text table). The case has a closed form the
 * fluid misses: a sync function (C = 10, 100 ms) at 50/s whose only term is its throttle rate, the
 * worst delay 100 ms: M/G/10/10 at a = 50 x 0.2 = 10 erlangs throttles Erlang-B(10, 10) = 0.2146 of
 * the requests (insensitive to the execution's law), where the fluid, exactly at saturation (C /
 * T_e = 50/s), has 0.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>

#include "tests/helpers.h"

static const char thr_xml[] =
    "<architecture name='thr' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='50/s'/>\n"
    "    <profile source='s'><point at='0s' rate='50/s'/><point at='20s' rate='50/s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s' keep-alive='1h'/>\n"
    "  <mitigation id='more' kind='set' target='fn' attribute='concurrency' value='20'/>\n"
    "  <faults budget='40' seed='2'>\n"
    "    <fault target='fn' delay='0ms..100ms'/>\n"
    "    <objective tau='0.7'><term metric='throttle-rate' target='fn'/></objective>\n"
    "  </faults>\n"
    "</architecture>\n";

static void test_simulated_bound(void **state)
{
    char path[] = "/tmp/ac_csb_XXXXXX";
    const double erlang = ac_test_erlang_b(10, 10.0);
    double fluid, sim, ci, reps, level, half;
    ac_test_run a, t;
    (void)state;
    ac_test_write_tmp(path, thr_xml);
    a = run_ac("compare", "--search", "-f", "json", path, NULL);
    assert_int_equal(a.status, 0);
    fluid = ac_test_json_row_number(a.out, "worst_case_score", "value", 0);
    sim = ac_test_json_row_number(a.out, "worst_case_score", "simulation_value", 0);
    ci = ac_test_json_row_number(a.out, "worst_case_score", "simulation_value_ci95", 0);
    reps = ac_test_json_row_number(a.out, "worst_case_score", "simulation_replications", 0);
    level = ac_test_json_row_number(a.out, "worst_case_score", "simulation_level", 0);
    print_message("worst-case score: fluid %.4f, simulated %.4f +- %.4f (level %.4f, %g "
                  "replications); Erlang-B(10, 10) = %.4f\n",
                  fluid, sim, ci, level, reps, erlang);
    assert_double_close(fluid, 0.0, 0.01, 0.0);
    /* the sequential test against tau = 0.7 (search's and check's): 2, 6 or 10 replications,
       an interval at 1 - 0.05 / K >= 95%, stopped where it lies below tau (at 2 replications,
       1 degree of freedom, it is wide: 0.34 here) */
    assert_true(ci > 0.0 && sim + ci < 0.7);
    assert_true(reps == 2.0 || reps == 6.0 || reps == 10.0);
    assert_true(level >= 0.95 && level < 1.0);
    /* the closed form in the simulated score's 99.9% interval (from the reported one's s) */
    half = ci * gsl_cdf_tdist_Pinv(0.9995, reps - 1.0) /
           gsl_cdf_tdist_Pinv(0.5 + 0.5 * level, reps - 1.0);
    assert_true(fabs(sim - erlang) <= half);
    /* only the baseline's column has it (one simulated_score in the row) */
    assert_true(isnan(ac_test_json_row_number(a.out, "worst_case_score", "simulation_value", 1)));
    t = run_ac("compare", "--search", path, NULL);
    assert_int_equal(t.status, 0);
    assert_non_null(strstr(t.out, "in the simulator: "));
    assert_non_null(strstr(t.out, " replications; fluid "));
    ac_test_run_free(&t);
    ac_test_run_free(&a);
    /* without --search: no row, no simulation */
    a = run_ac("compare", "-f", "json", path, NULL);
    assert_null(strstr(a.out, "simulation_value"));
    ac_test_run_free(&a);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simulated_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
