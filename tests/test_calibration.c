/*
 * Calibration of the stated errors that the accuracy harness (tests/accuracy.h) found too
 * small: each test is one model of the harness' misses (its family and seed in the test's
 * comment), analysed and simulated (fixed seed and horizon), and asserts that every stated
 * error covers the simulation: |analysis - simulation| <= stated |analysis| + the 95%
 * half-width (widened by the simulator's 0.4% percentile resolution).
 */
#include "helpers.h"

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"

typedef struct calib {
    ac_model *m;
    ac_analysis *a;
    ac_sim_result *sim;
} calib;

/* Parse, analyse (no headroom, no validation) and simulate `xml` (reps x horizon). */
static void calib_run(const char *xml, size_t reps, double horizon, calib *out)
{
    ac_analysis_options ao;
    ac_sim_options so;
    ac_diag_list diags = {0};
    ac_error err = {0};
    memset(out, 0, sizeof *out);
    assert_int_equal(ac_parser_parse_memory(xml, strlen(xml), "calib.xml", &out->m, &diags, &err),
                     AC_OK);
    assert_int_equal(diags.count, 0);
    ac_analysis_options_init(&ao);
    ao.headroom = 0;
    ao.validate = AC_VALIDATE_NEVER;
    ao.transient = AC_TRANSIENT_NEVER;
    assert_int_equal(ac_analysis_run(out->m, &ao, &out->a, &diags, &err), AC_OK);
    ac_diag_list_clear(&diags);
    ac_sim_options_init(&so);
    so.seed = 1;
    so.replications = reps;
    so.horizon = horizon;
    so.warmup = horizon / 10.0;
    so.max_events = 100000000ull;
    assert_int_equal(ac_sim_run(out->m, &so, &out->sim, &err), AC_OK);
}

static void calib_free(calib *c)
{
    ac_sim_result_free(c->sim);
    ac_analysis_free(c->a);
    ac_model_free(c->m);
}

/* The check of the requirement written on line `line`. */
static const ac_check *check_at(const calib *c, unsigned line)
{
    for (size_t i = 0; i < c->a->nchecks; i++)
        if (c->a->checks[i].loc.line == line && c->a->checks[i].has_value)
            return &c->a->checks[i];
    fail_msg("no check on line %u", line);
    return NULL;
}

static void assert_covered(double value, double stated, const ac_sim_estimate *e, double extra,
                           const char *what)
{
    double allowed = stated * fabs(value) + e->ci95 + extra;
    if (!(fabs(value - e->mean) <= allowed))
        fail_msg("%s: analysis %g (stated %.3g%%), simulation %g +- %g: |a - s| = %g > %g", what,
                 value, 100.0 * stated, e->mean, e->ci95, fabs(value - e->mean), allowed);
}

/* A closed network (accuracy harness: closed seed 32): a power-of-two pool is not product
 * form, MVA solves it as M/M/25 and brackets it with 25 random queues. The throughput is
 * MVA's, not the flow-conservation identity of an open network: it carries the bracket
 * (it was stated exact, 5.459/s against the simulation's 5.391 +- 0.029), and so do the
 * station's and the end-to-end mean response times. */
static void test_closed_pod_throughput(void **state)
{
    static const char xml[] =
        "<architecture name=\"c\" format=\"1\">\n"
        "  <workload>\n"
        "    <population id=\"users\" size=\"16\" think-time=\"1.50559s\" to=\"n0\"/>\n"
        "  </workload>\n"
        "  <pool id=\"n0\" servers=\"25\" service-rate=\"1.03516/s\" dispatch=\"power-of-d\" "
        "d=\"2\" sampling=\"with-replacement\"/>\n"
        "  <pool id=\"n1\" servers=\"16\" service-rate=\"0.964031/s\" dispatch=\"random\"/>\n"
        "  <route from=\"n0\" to=\"n1\" p=\"0.3783\"/>\n"
        "  <requirements>\n"
        "    <throughput target=\"n0\" min=\"1e-9/s\"/>\n" /* line 9 */
        "    <throughput min=\"1e-9/s\"/>\n"               /* line 10 */
        "    <utilization target=\"n0\" max=\"1\"/>\n"     /* line 11 */
        "    <latency max=\"1000h\"/>\n"                   /* line 12 */
        "    <latency target=\"n0\" max=\"1000h\"/>\n"     /* line 13 */
        "  </requirements>\n"
        "</architecture>\n";
    calib c;
    const ac_sim_entry_result *e;
    (void)state;
    calib_run(xml, 10, 4000.0, &c);
    e = &c.sim->entries[0];
    assert_true(check_at(&c, 9)->rel_error > 0.0);
    assert_true(check_at(&c, 10)->rel_error > 0.0);
    assert_true(check_at(&c, 11)->rel_error > 0.0);
    assert_covered(check_at(&c, 9)->value, check_at(&c, 9)->rel_error, &c.sim->nodes[0].throughput,
                   0.0, "n0 throughput");
    assert_covered(check_at(&c, 10)->value, check_at(&c, 10)->rel_error, &e->throughput, 0.0,
                   "end-to-end throughput");
    assert_covered(check_at(&c, 12)->value, check_at(&c, 12)->rel_error, &e->mean_response_time,
                   0.0, "end-to-end mean");
    assert_covered(check_at(&c, 13)->value, check_at(&c, 13)->rel_error,
                   &c.sim->nodes[0].mean_response_time, 0.0, "n0 mean");
    calib_free(&c);
}

/* The end-to-end time is that of the successful requests (the simulator's, output.md's):
 * behind a rate limit (accuracy harness: gateway seed 279, 44% answered 429) the visit
 * ratios' mean counted each refused request with 0 s (0.638 s against the simulation's
 * 1.133 s); behind a gateway timeout (gateway seed 270) the 504s' times were in the law (p99
 * 0.378 s for a timeout of 0.305 s; simulation 0.275 s). And work behind an async function
 * is no part of the gateway's timeout: the law there is not truncated (gateway seed 119). */
static void test_gateway_e2e_successful(void **state)
{
    static const char rate_limit[] =
        "<architecture name=\"g\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"gw\" rate=\"2.04366/s\"/></workload>\n"
        "  <gateway id=\"gw\" rate-limit=\"2.63009/s\" burst=\"0\"/>\n"
        "  <function id=\"n1\" concurrency=\"12\" duration=\"1.13766s\" timeout=\"9.10127s\" "
        "keep-alive=\"1000h\"/>\n"
        "  <route from=\"gw\" to=\"n1\"/>\n"
        "  <requirements><latency max=\"1000h\"/></requirements>\n" /* line 6 */
        "</architecture>\n";
    static const char timeout[] =
        "<architecture name=\"g\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"gw\" rate=\"48.3194/s\"/></workload>\n"
        "  <gateway id=\"gw\" rate-limit=\"56.947/s\" burst=\"0\" timeout=\"0.304749s\"/>\n"
        "  <function id=\"n1\" concurrency=\"8\" duration=\"0.0769795s\" timeout=\"3s\" "
        "keep-alive=\"1000h\" fail-prob=\"0.07996\" retries=\"1\"/>\n"
        "  <route from=\"gw\" to=\"n1\"/>\n"
        "  <requirements><latency max=\"1000h\"/>\n"                      /* line 6 */
        "    <latency percentile=\"99\" max=\"1000h\"/></requirements>\n" /* line 7 */
        "</architecture>\n";
    static const char async[] =
        "<architecture name=\"g\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"gw\" rate=\"3.15/s\"/></workload>\n"
        "  <gateway id=\"gw\" timeout=\"0.23s\"/>\n"
        "  <function id=\"n1\" concurrency=\"1\" duration=\"0.1894s\" timeout=\"3s\" "
        "invocation=\"async\" keep-alive=\"1000h\" fail-prob=\"0.122\" retries=\"0\"/>\n"
        "  <route from=\"gw\" to=\"n1\"/>\n"
        "  <requirements><latency max=\"1000h\"/></requirements>\n" /* line 6 */
        "</architecture>\n";
    calib c;
    (void)state;
    calib_run(rate_limit, 10, 3000.0, &c);
    assert_covered(check_at(&c, 6)->value, check_at(&c, 6)->rel_error,
                   &c.sim->entries[0].mean_response_time, 0.0, "mean behind a rate limit");
    calib_free(&c);
    calib_run(timeout, 10, 300.0, &c);
    assert_covered(check_at(&c, 6)->value, check_at(&c, 6)->rel_error,
                   &c.sim->entries[0].mean_response_time, 0.0, "mean behind a timeout");
    assert_covered(check_at(&c, 7)->value, check_at(&c, 7)->rel_error,
                   &c.sim->entries[0].p99_response_time,
                   0.004 * c.sim->entries[0].p99_response_time.mean, "p99 behind a timeout");
    calib_free(&c);
    calib_run(async, 10, 3000.0, &c);
    assert_covered(check_at(&c, 6)->value, check_at(&c, 6)->rel_error,
                   &c.sim->entries[0].mean_response_time, 0.0, "mean behind an async function");
    calib_free(&c);
}

/* jiq with a buffer keeps its mean field, which has no 1/N expansion (accuracy harness: pool
 * seed 1, N = 8, K = 3, rho 0.61: p50 0.547 s stated exact, simulation 0.594 +- 0.006 s):
 * the stated error is the measured one's. */
static void test_jiq_buffer(void **state)
{
    static const char xml[] =
        "<architecture name=\"p\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"n0\" rate=\"6.2662/s\"/></workload>\n"
        "  <pool id=\"n0\" servers=\"8\" service-rate=\"1.29182/s\" dispatch=\"jiq\" "
        "buffer=\"3\"/>\n"
        "  <requirements><latency target=\"n0\" max=\"1000h\"/>\n"       /* line 4 */
        "    <latency target=\"n0\" percentile=\"50\" max=\"1000h\"/>\n" /* line 5 */
        "    <latency target=\"n0\" percentile=\"99\" max=\"1000h\"/>\n" /* line 6 */
        "  </requirements>\n"
        "</architecture>\n";
    calib c;
    const ac_sim_node_result *r;
    (void)state;
    calib_run(xml, 10, 2000.0, &c);
    r = &c.sim->nodes[0];
    assert_covered(check_at(&c, 4)->value, check_at(&c, 4)->rel_error, &r->mean_response_time, 0.0,
                   "jiq mean");
    assert_covered(check_at(&c, 5)->value, check_at(&c, 5)->rel_error, &r->p50_response_time,
                   0.004 * r->p50_response_time.mean, "jiq p50");
    assert_covered(check_at(&c, 6)->value, check_at(&c, 6)->rel_error, &r->p99_response_time,
                   0.004 * r->p99_response_time.mean, "jiq p99");
    calib_free(&c);
}

/* A function behind a rate limit is fed a smoothed stream, not Poisson (accuracy harness:
 * gateway seed 59, one token, 31% refused: the admitted stream's SCV 0.48); Erlang's
 * throttles 0.288 were stated exact, the simulation gives 0.171. */
static void test_function_behind_rate_limit(void **state)
{
    static const char xml[] =
        "<architecture name=\"g\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"gw\" rate=\"8.533/s\"/></workload>\n"
        "  <gateway id=\"gw\" rate-limit=\"18.8931/s\" burst=\"0\"/>\n"
        "  <function id=\"n1\" concurrency=\"1\" duration=\"0.0687336s\" timeout=\"3s\" "
        "keep-alive=\"1000h\" retries=\"0\"/>\n"
        "  <route from=\"gw\" to=\"n1\"/>\n"
        "  <requirements><loss target=\"n1\" max=\"1\"/></requirements>\n" /* line 6 */
        "</architecture>\n";
    calib c;
    (void)state;
    calib_run(xml, 10, 1000.0, &c);
    assert_covered(check_at(&c, 6)->value, check_at(&c, 6)->rel_error,
                   &c.sim->nodes[1].failure_probability, 0.0, "throttles behind a rate limit");
    calib_free(&c);
}

/* A retry storm at finite N (accuracy harness: gateway seed 72, power-of-two with
 * replacement, N = 50, timeout 9.7 s, one retry, rho 0.79): the mean field's operating point
 * times out most attempts and its p99 was stated within 0.02% (29.7 s) where the simulated
 * pool drifts (703 s at this horizon): a p99 <= 100 s requirement passed. Its error is not
 * bounded: without a simulation the requirement is INCONCLUSIVE. */
static void test_retry_storm(void **state)
{
    static const char xml[] =
        "<architecture name=\"s\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"n1\" rate=\"16.5371/s\"/></workload>\n"
        "  <pool id=\"n1\" servers=\"50\" service-rate=\"0.416858/s\" dispatch=\"power-of-d\" "
        "d=\"2\" sampling=\"with-replacement\" timeout=\"9.72204s\" retries=\"1\"/>\n"
        "  <requirements><latency target=\"n1\" percentile=\"99\" max=\"100s\"/>\n" /* 4 */
        "  </requirements>\n"
        "</architecture>\n";
    calib c;
    const ac_check *ck;
    (void)state;
    calib_run(xml, 5, 2000.0, &c);
    ck = check_at(&c, 4);
    assert_true(ck->value < 100.0);                              /* the mean field passes it */
    assert_true(c.sim->nodes[0].p99_response_time.mean > 100.0); /* the pool does not */
    assert_true(isinf(ck->rel_error));
    assert_int_equal(ck->status, AC_CHECK_INCONCLUSIVE);
    calib_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_pod_throughput),
        cmocka_unit_test(test_gateway_e2e_successful),
        cmocka_unit_test(test_jiq_buffer),
        cmocka_unit_test(test_function_behind_rate_limit),
        cmocka_unit_test(test_retry_storm),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
