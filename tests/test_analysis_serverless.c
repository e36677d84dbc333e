/*
 * Tests of analysis/ (include/archcheck/analysis.h): serverless stages (functions, queues,
 * gateways) in a network, against closed forms and the simulator: overload, recovery,
 * the end-to-end loss, when the transient runs. Models written as XML, parsed as "t.xml";
 * tolerances as in test_analysis.c.
 */
#include "helpers.h"
#include "fixture.h"

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "archcheck/sim.h"

#include "analysis_helpers.h"

/* ---- 8. Serverless stages in a network ------------------------------------------------------ */

/* A pool feeding a sync function: the function is Erlang-B (exact), the end-to-end mean is
 * the sum of the two means, the loss the function's throttling, and a loss requirement below
 * it fails (AC203). */
static void test_function_in_network(void **state)
{
    fx f;
    size_t fn;
    double B = ac_solver_erlang_b(10, 8.0);
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                  "<workload><source id=\"s\" to=\"web\" rate=\"80/s\"/></workload>\n"
                  "<pool id=\"web\" servers=\"1\" service-rate=\"100/s\"/>\n"
                  "<function id=\"fn\" duration=\"100ms\" concurrency=\"10\" keep-alive=\"1000h\" "
                  "timeout=\"900s\"/>\n"
                  "<route from=\"web\" to=\"fn\"/>\n"
                  "<requirements><latency max=\"10s\"/><loss max=\"1%\"/></requirements>\n"
                  "</architecture>\n");
    fn = node_index(&f, "fn");
    assert_int_equal(f.a->nodes[fn].analysed, 1);
    assert_non_null(f.a->nodes[fn].function);
    assert_double_close(f.a->nodes[fn].loss_probability, B, 0, 1e-9);
    assert_double_close(f.a->nodes[fn].throughput, 80.0 * (1.0 - B), 0, 1e-9);
    assert_double_close(f.a->e2e.loss_probability, B, 0, 1e-9);
    /* the successful requests' mean (the lattice's, within its stated error) */
    assert_true(f.a->e2e.mean_rel_error < 0.01);
    assert_double_close(f.a->e2e.mean_response_time, 1.0 / 20.0 + 0.1, 0,
                        fmax(1e-6, f.a->e2e.mean_rel_error));
    assert_diag(find_diag(&f.d, "AC203", NULL), "AC203", 6, 35, NULL);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* A queue of another shape than "one route to a function" is not analysed: AC900, and the
 * verdict is inconclusive, never pass. */
static void test_queue_shape_not_analysed(void **state)
{
    fx f;
    const ac_diag *d;
    size_t q;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                  "<workload><source id=\"s\" to=\"q\" rate=\"5/s\"/></workload>\n"
                  "<queue id=\"q\"/>\n"
                  "<pool id=\"web\" servers=\"2\" service-rate=\"10/s\"/>\n"
                  "<route from=\"q\" to=\"web\"/>\n"
                  "<requirements><latency max=\"10s\"/><utilization max=\"0.99\"/></requirements>\n"
                  "</architecture>\n");
    q = node_index(&f, "q");
    assert_int_equal(f.a->nodes[q].analysed, 0);
    assert_int_equal(node(&f, "web")->analysed, 1);
    assert_double_close(f.a->nodes[q].arrival_rate, 5.0, 0, 1e-12);
    d = find_diag(&f.d, "AC900", "q");
    assert_diag(d, "AC900", 3, 1, "q");
    assert_non_null(strstr(d->message, "consumed by one function"));
    assert_int_equal(check_at(f.a, 3, q)->status, AC_CHECK_INCONCLUSIVE);
    assert_int_equal(f.a->e2e.available, 0);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->status, AC_CHECK_INCONCLUSIVE);
    assert_int_equal(verdict(&f), AC_VERDICT_INCONCLUSIVE);
    fx_free(&f);
}

/* An async function beyond its concurrency is overloaded (AC101); a queue whose consumer
 * cannot keep up even with full batches too. */
static void test_serverless_overload(void **state)
{
    fx f;
    (void)state;
    analyse_h(&f,
              "<architecture format=\"1\">\n"
              "<workload><source id=\"s\" to=\"fn\" rate=\"50/s\"/></workload>\n"
              "<function id=\"fn\" duration=\"100ms\" concurrency=\"4\" invocation=\"async\"/>\n"
              "</architecture>\n");
    assert_int_equal(f.a->nodes[0].overload, 1);
    assert_non_null(strstr(find_diag(&f.d, "AC101", "fn")->message, "concurrency of 4"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
    analyse_h(&f, "<architecture format=\"1\">\n"
                  "<workload><source id=\"s\" to=\"q\" rate=\"50/s\"/></workload>\n"
                  "<queue id=\"q\" batch-size=\"1\" max-consumers=\"2\"/>\n"
                  "<function id=\"fn\" duration=\"100ms\"/>\n"
                  "<route from=\"q\" to=\"fn\"/>\n"
                  "</architecture>\n");
    assert_int_equal(f.a->nodes[0].overload, 1);
    assert_non_null(strstr(find_diag(&f.d, "AC101", "q")->message, "against 2 slots"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
    /* the largest sizes the format allows: no crash, no hang, no out-of-memory */
    analyse_h(&f,
              "<architecture format=\"1\">\n"
              "<workload><source id=\"s\" to=\"g\" rate=\"1e9/s\"/></workload>\n"
              "<gateway id=\"g\" rate-limit=\"1e8/s\" burst=\"1000000000\"/>\n"
              "<function id=\"f\" concurrency=\"1000000\" duration=\"1h\" timeout=\"2h\" "
              "cold-start=\"1h\" keep-alive=\"1000h\" scale-rate=\"0.001/s\" retries=\"100\" "
              "fail-prob=\"99%\" invocation=\"async\"/>\n"
              "<queue id=\"q\" capacity=\"1000000000000\" batch-size=\"1000\" "
              "max-consumers=\"1000000\" visibility-timeout=\"1s\" max-receives=\"1000\"/>\n"
              "<function id=\"c\" concurrency=\"1000000\" duration=\"1ms\" fail-prob=\"50%\"/>\n"
              "<route from=\"g\" to=\"f\"/><route from=\"f\" to=\"q\"/>"
              "<route from=\"q\" to=\"c\" fanout=\"1000\"/>\n"
              "<requirements><latency max=\"1s\"/><loss max=\"1%\"/><headroom min=\"2\"/>"
              "</requirements>\n"
              "</architecture>\n");
    assert_int_equal(node(&f, "g")->analysed, 1);
    assert_double_close(node(&f, "g")->loss_probability, 0.9, 0.001, 0);
    assert_int_equal(node(&f, "f")->overload, 1);
    assert_non_null(find_diag(&f.d, "AC101", "f"));
    /* a million consumer slots: the M/M/c wait in closed form */
    assert_int_equal(node(&f, "q")->analysed, 1);
    assert_null(maybe_diag(&f.d, "AC900", "q"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* Analysis against simulation on the thumbnail-service sample (gateway, sync function, queue
 * with redeliveries, polled consumer): the end-to-end mean and p99 and the stages' busy
 * instances agree within the stated error plus 1.7 half-widths of the simulation. */
static void test_serverless_against_simulation(void **state)
{
    fx f;
    ac_analysis_options o = analytic_opt();
    char *xml = ac_test_read_file(AC_SOURCE_DIR "/samples/thumbnail-service.xml");
    const ac_sim_result *sr;
    struct {
        double an, rel, sim, ci;
        const char *what;
    } cmp[4];
    (void)state;
    assert_non_null(xml);
    o.validate = AC_VALIDATE_ALWAYS;
    o.headroom = 0;
    o.sim.seed = 11;
    o.sim.replications = 6;
    o.sim.horizon = 2000.0;
    o.sim.warmup = 400.0;
    analyse_ok(&f, xml, &o);
    free(xml);
    sr = f.a->sim;
    assert_non_null(sr);
    assert_int_equal(f.a->e2e.available, 1);
    cmp[0].what = "end-to-end mean";
    cmp[0].an = f.a->e2e.mean_response_time;
    cmp[0].rel = f.a->e2e.mean_rel_error;
    cmp[0].sim = sr->entries[0].mean_response_time.mean;
    cmp[0].ci = sr->entries[0].mean_response_time.ci95;
    cmp[1].what = "end-to-end p99";
    cmp[1].an = f.a->e2e.p99;
    cmp[1].rel = f.a->e2e.expected_rel_error;
    cmp[1].sim = sr->entries[0].p99_response_time.mean;
    cmp[1].ci = sr->entries[0].p99_response_time.ci95;
    cmp[2].what = "upload busy";
    cmp[2].an = node(&f, "upload")->mean_jobs;
    cmp[2].rel = node(&f, "upload")->expected_rel_error;
    cmp[2].sim = sr->nodes[node_index(&f, "upload")].mean_jobs.mean;
    cmp[2].ci = sr->nodes[node_index(&f, "upload")].mean_jobs.ci95;
    cmp[3].what = "resize busy";
    cmp[3].an = node(&f, "resize")->mean_jobs;
    cmp[3].rel = node(&f, "resize")->expected_rel_error;
    cmp[3].sim = sr->nodes[node_index(&f, "resize")].mean_jobs.mean;
    cmp[3].ci = sr->nodes[node_index(&f, "resize")].mean_jobs.ci95;
    for (size_t k = 0; k < 4; k++) {
        double tol = cmp[k].rel * cmp[k].an + 1.7 * cmp[k].ci + 0.005 * cmp[k].an;
        print_message("%s: analysis %.6g (+-%.2g%%), simulation %.6g +- %.2g\n", cmp[k].what,
                      cmp[k].an, 100.0 * cmp[k].rel, cmp[k].sim, cmp[k].ci);
        assert_true(isfinite(cmp[k].sim));
        assert_true(fabs(cmp[k].an - cmp[k].sim) <= tol);
    }
    /* nothing is lost in either: dead letters at 1e-9 */
    assert_true(sr->entries[0].failure_probability.mean < 1e-3);
    assert_int_equal(count_rule(&f.d, "AC201"), 0);
    assert_int_equal(count_rule(&f.d, "AC203"), 0);
    fx_free(&f);
}

/* Recovery through a serverless stage: an async function of capacity 100/s (C = 10, d =
 * 100 ms) at 50/s takes 150/s for 10 s: its backlog grows by 50/s to 500 attempts and
 * drains at 50/s. The mean latency requirement (1 s) is met again once the backlog is small
 * (Little: at most 40 to 90 attempts, depending on the rate it is divided by), so the
 * recovery lies between (500 - 90) / 50 = 8.2 s and 500 / 50 = 10 s; a limit of 5 s fails. */
#define RECOVERY_XML(limit)                                                                        \
    "<architecture format=\"1\">\n"                                                                \
    "<workload><source id=\"s\" to=\"f\" rate=\"50/s\"/>\n"                                        \
    "<profile source=\"s\"><point at=\"0s\" rate=\"50/s\"/><point at=\"100s\" rate=\"50/s\"/>"     \
    "<point at=\"100.001s\" rate=\"150/s\"/><point at=\"110s\" rate=\"150/s\"/>"                   \
    "<point at=\"110.001s\" rate=\"50/s\"/><point at=\"300s\" rate=\"50/s\"/></profile>\n"         \
    "</workload>\n"                                                                                \
    "<function id=\"f\" invocation=\"async\" concurrency=\"10\" duration=\"100ms\" "               \
    "timeout=\"900s\" keep-alive=\"1000h\"/>\n"                                                    \
    "<requirements><latency target=\"f\" max=\"1s\"/>\n<recovery max=\"" limit                     \
    "\"/></requirements>\n"                                                                        \
    "</architecture>\n"

static void test_serverless_recovery(void **state)
{
    fx f;
    const ac_check *ck;
    (void)state;
    analyse(&f, RECOVERY_XML("30s"));
    ck = check_at(f.a, 7, AC_NONE);
    assert_non_null(ck);
    assert_int_equal(ck->status, AC_CHECK_PASS);
    print_message("recovery %.4g s\n", ck->value);
    assert_true(ck->value > 8.2 && ck->value < 10.0);
    fx_free(&f);
    analyse(&f, RECOVERY_XML("5s"));
    assert_int_equal(check_at(f.a, 7, AC_NONE)->status, AC_CHECK_FAIL);
    assert_int_equal(count_rule(&f.d, "AC206"), 1);
    fx_free(&f);
}

/* The end-to-end loss carries the nodes' stated errors, not the lattice's step: behind two
 * gateways (no time spent, p50 = 0) a loss far above its limit is decided without a
 * simulation. */
static void test_e2e_loss_error_without_lattice(void **state)
{
    fx f;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"100/s\"/></workload>\n"
                "<gateway id=\"a\" rate-limit=\"50/s\" burst=\"10\"/>\n"
                "<gateway id=\"b\" rate-limit=\"1000/s\" burst=\"10\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<requirements><loss max=\"1%\"/></requirements>\n"
                "</architecture>\n");
    assert_double_close(f.a->e2e.loss_probability, node(&f, "a")->loss_probability, 1e-12, 0);
    assert_true(f.a->e2e.loss_rel_error < 1e-6);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->status, AC_CHECK_FAIL);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->settled_by_simulation, 0);
    fx_free(&f);
}

/* By default the transient is integrated only for a requirement that reads it (recovery
 * from a burst, scaling): a profile alone costs nothing, and a recovery requirement without
 * a burst that returns is inconclusive at once, with the reason. */
static void test_transient_only_when_needed(void **state)
{
    fx f;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"p\" rate=\"5/s\"/>\n"
                "<profile source=\"s\"><point at=\"0s\" rate=\"5/s\"/>"
                "<point at=\"60s\" rate=\"8/s\"/></profile></workload>\n"
                "<pool id=\"p\" servers=\"1\" service-rate=\"10/s\"/>\n"
                "<requirements><utilization max=\"0.9\"/></requirements>\n"
                "</architecture>\n");
    assert_null(f.a->transient);
    assert_non_null(strstr(f.a->transient_note, "no profile has a burst"));
    fx_free(&f);
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"p\" rate=\"5/s\"/>\n"
                "<profile source=\"s\"><point at=\"0s\" rate=\"5/s\"/>"
                "<point at=\"60s\" rate=\"8/s\"/></profile></workload>\n"
                "<pool id=\"p\" servers=\"1\" service-rate=\"10/s\"/>\n"
                "<requirements><recovery max=\"60s\"/></requirements>\n"
                "</architecture>\n");
    assert_null(f.a->transient);
    assert_int_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_INCONCLUSIVE);
    assert_non_null(strstr(find_diag(&f.d, "AC900", NULL)->message, "no profile has a burst"));
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_in_network),
        cmocka_unit_test(test_queue_shape_not_analysed),
        cmocka_unit_test(test_serverless_overload),
        cmocka_unit_test(test_serverless_against_simulation),
        cmocka_unit_test(test_serverless_recovery),
        cmocka_unit_test(test_transient_only_when_needed),
        cmocka_unit_test(test_e2e_loss_error_without_lattice),
    };
    /* the library reports GSL failures as status codes (a failed Cholesky factorisation is its
     * test of positive definiteness): GSL's default handler, which aborts, must be off, as the
     * CLI (cli/main.c) does */
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("analysis_serverless", tests, NULL, NULL);
}
