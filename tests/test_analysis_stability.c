/*
 * Tests of analysis/ (include/archcheck/analysis.h): the stability findings (overloaded
 * pools and links, bistable pools). Models written as XML, parsed as "t.xml".
 */
#include "helpers.h"
#include "fixture.h"

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "archcheck/sim.h"

#include "analysis_helpers.h"

/* ---- 5. Stability -----------------------------------------------------------------------------
 */

static void test_overload(void **state)
{
    fx f;
    const ac_node_analysis *na;
    const ac_diag *d;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                  "<workload><source id=\"s\" to=\"web\" rate=\"3/s\"/></workload>\n"
                  "<pool id=\"web\" servers=\"2\" service-rate=\"1/s\"/>\n"
                  "<requirements><latency max=\"10s\"/></requirements>\n"
                  "</architecture>\n");
    na = node(&f, "web");
    assert_int_equal(na->analysed, 1);
    assert_int_equal(na->overload, 1);
    assert_double_close(na->throughput, 2.0, 0, 1e-12); /* capacity N mu */
    assert_double_close(na->loss_probability, 1.0 / 3.0, 0, 1e-12);
    assert_true(isinf(na->mean_jobs));
    d = find_diag(&f.d, "AC101", "web");
    assert_diag(d, "AC101", 3, 1, "web");
    assert_int_equal(d->severity, AC_SEV_ERROR);
    assert_non_null(strstr(d->message, "web"));
    /* the stability check of web fails with an unbounded value */
    {
        const ac_check *ck = check_at(f.a, 3, 0);
        assert_non_null(ck);
        assert_int_equal(ck->status, AC_CHECK_FAIL);
        assert_string_equal(ck->rule, "AC101");
        assert_true(isinf(ck->value));
    }
    /* the end-to-end latency is unbounded: it fails */
    assert_int_equal(check_at(f.a, 4, AC_NONE)->status, AC_CHECK_FAIL);
    assert_true(isinf(check_at(f.a, 4, AC_NONE)->value));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    /* no headroom left: the latency requirement binds before saturation (2/3):
       1 / (1 - 1.5 alpha) = 10 s at alpha = 0.6 */
    assert_double_close(f.a->headroom, 0.6, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "mean latency");
    fx_free(&f);
}

/* A link carrying more than its capacity: a (10 servers, mu 1) passes 6/s to b over a link of
 * capacity 5/s: AC101 on the link (line 6), the pools are fine. */
static void test_link_overload(void **state)
{
    fx f;
    const ac_diag *d;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"6/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<pool id=\"b\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<link id=\"wire\" from=\"a\" to=\"b\" capacity=\"5/s\"/>\n"
                "<requirements><latency max=\"100s\"/></requirements>\n"
                "</architecture>\n");
    assert_int_equal(node(&f, "a")->overload, 0);
    assert_int_equal(node(&f, "b")->overload, 0);
    assert_int_equal(count_rule(&f.d, "AC101"), 1);
    d = find_diag(&f.d, "AC101", NULL);
    assert_diag(d, "AC101", 6, 1, "wire");
    assert_non_null(strstr(d->message, "'a'"));
    assert_non_null(strstr(d->message, "'b'"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    /* Was a bug (fixed): an overloaded link makes the end-to-end mean unbounded, yet
     * ac_an_e2e_solve (e2e.c:434-439) adds flow * 1/(capacity - flow) = 6 * 1/(5 - 6) = -6
     * job-seconds for it (a NEGATIVE delay), so e2e.mean_response_time = (15 + 15 - 6) / 6 = 4 s,
     * and ac_req_latency (req_latency.c:77-83) treats only overloaded NODES as unbounded: the
     * end-to-end latency requirement (max 100 s) PASSES. */
    assert_int_not_equal(check_at(f.a, 7, AC_NONE)->status, AC_CHECK_PASS);
    assert_false(f.a->e2e.available && f.a->e2e.mean_response_time < 100.0);
    assert_int_equal(check_at(f.a, 7, AC_NONE)->loc.column, 15);
    fx_free(&f);

    /* below the capacity: no finding, and the link's M/D/1 delay enters the mean:
     * a, b: 1/(1 - 0.4) per hop; the link: the latency, the transmission 1/c and the
     * Pollaczek-Khinchine wait rho / (2 c (1 - rho)) */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"4/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<pool id=\"b\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<link id=\"wire\" from=\"a\" to=\"b\" capacity=\"10/s\" latency=\"100ms\"/>\n"
                "</architecture>\n");
    assert_int_equal(count_rule(&f.d, "AC101"), 0);
    /* per-server M/M/1 at 0.4: 1/0.6 each; the link: 0.1 + 1/10 + 0.4 / (2 10 0.6) */
    assert_double_close(f.a->e2e.mean_response_time,
                        2.0 / 0.6 + 0.1 + 0.1 + 0.4 / (2.0 * 10.0 * 0.6), 0, 1e-6);
    fx_free(&f);
}

/*
 * The bistable pool of models.md §3: power-of-two (with replacement), 100 servers, lambda = 0.7
 * per server, mu = 1, K = 40, timeout 8 s, 2 retries. Two stable equilibria: E[L] ~ 1.14
 * (P_to ~ 0.003) and E[L] ~ 39.6 with lambda_eff = 2.1 (effective load 2.1). AC103 with both
 * in the detail. Without retries the equilibrium is unique: no AC103.
 */
static const char BISTABLE_FMT[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"api\" rate=\"70/s\"/></workload>\n"
    "<pool id=\"api\" servers=\"100\" service-time=\"1s\" dispatch=\"power-of-d\" d=\"2\"\n"
    "      sampling=\"with-replacement\" buffer=\"40\" timeout=\"8s\" retries=\"%d\"/>\n"
    "</architecture>\n";

/* The number after `key` in `s`. */
static double number_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    assert_non_null(p);
    return strtod(p + strlen(key), NULL);
}

static void test_bistable(void **state)
{
    fx f;
    char xml[1024];
    const ac_diag *d;
    const ac_solver_pool_result *r;
    ac_analysis_options opt;
    (void)state;
    opt = analytic_opt();
    opt.headroom = 0;
    opt.solver.burst_search = 0; /* the burst search is the solver's (test_solver.c); keep fast */
    snprintf(xml, sizeof xml, BISTABLE_FMT, 2);
    assert_int_equal(analyse_opt(&f, xml, &opt), AC_OK);
    r = node(&f, "api")->pool;
    assert_non_null(r);
    assert_int_equal(r->bistable, 1);
    assert_double_close(r->equilibria[r->good].mean_field.mean_jobs, 1.14, 0, 0.02);
    assert_double_close(r->equilibria[r->bad].mean_field.mean_jobs, 39.6, 0, 0.01);
    d = find_diag(&f.d, "AC103", "api");
    assert_diag(d, "AC103", 3, 1, "api");
    assert_int_equal(d->severity, AC_SEV_ERROR);
    assert_non_null(d->detail);
    assert_double_close(number_after(d->detail, "good equilibrium: "), 1.14, 0, 0.02);
    assert_double_close(number_after(d->detail, "bad equilibrium: "), 39.6, 0, 0.01);
    /* the bad one: every request times out, sent three times: effective load 2.1 */
    assert_double_close(number_after(strstr(d->detail, "bad equilibrium"), "effective load "), 2.1,
                        0, 0.01);
    assert_double_close(number_after(strstr(d->detail, "good equilibrium"), "effective load "), 0.7,
                        0, 0.01);
    /* the operating point is the good one */
    assert_double_close(node(&f, "api")->mean_jobs, 1.14, 0, 0.02);
    {
        const ac_check *ck = check_at(f.a, 3, 0);
        assert_non_null(ck);
        assert_int_equal(ck->status, AC_CHECK_FAIL);
        assert_string_equal(ck->rule, "AC103");
    }
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);

    snprintf(xml, sizeof xml, BISTABLE_FMT, 0);
    assert_int_equal(analyse_opt(&f, xml, &opt), AC_OK);
    r = node(&f, "api")->pool;
    assert_int_equal(r->bistable, 0);
    assert_int_equal(count_rule(&f.d, "AC103"), 0);
    assert_int_equal(count_rule(&f.d, "AC101"), 0);
    assert_int_equal(check_at(f.a, 3, 0)->status, AC_CHECK_PASS);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overload),
        cmocka_unit_test(test_link_overload),
        cmocka_unit_test(test_bistable),
    };
    /* the library reports GSL failures as status codes (a failed Cholesky factorisation is its
     * test of positive definiteness): GSL's default handler, which aborts, must be off, as the
     * CLI (cli/main.c) does */
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("analysis_stability", tests, NULL, NULL);
}
