/*
 * End-to-end tests of the archcheck binary's analysis commands on the good samples:
 * check's verdicts and JSON keys, metastability, size, solve, simulate, validation.
 */
#include "helpers.h"

#include "cli_helpers.h"

/* ---- analysis commands: check verdicts, solve, simulate ---- */

/* The verdict (exit status) of `check` on every good sample, as the samples' README
 * explains for this version. */
static void test_check_sample_verdicts(void **state)
{
    static const struct {
        const char *file;
        int status;
        const char *rule; /* a rule that must be reported, or NULL */
    } cases[] = {
        {"samples/tandem.xml", 0, NULL},
        {"samples/web-tier.xml", 0, NULL},
        {"samples/overloaded.xml", 1, "[AC101]"},
        {"samples/retry-storm.xml", 1, "[AC103]"},
        {"samples/checkout.xml", 1, "[AC202]"},
        {"samples/closed-network.xml", 0, NULL},
        {"samples/autoscaled-api.xml", 0, NULL},
        {"samples/serverless-pipeline.xml", 1, "[AC203]"},
        {"samples/thumbnail-service.xml", 0, NULL},
        {"samples/faas-cascade.xml", 0, NULL},
        {"samples/daily-web-tier.xml", 0, NULL},
        {"samples/control-plane.xml", 1, "[AC205]"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* --no-search: serverless-pipeline's two resilience searches (2 x 2,200 transient
           evaluations) are not what this test is about */
        ac_test_run r = run_ac("check", "--color", "never", "--no-search", cases[i].file, NULL);
        if (r.status != cases[i].status)
            fail_msg("check %s: exit %d, expected %d\n%s", cases[i].file, r.status, cases[i].status,
                     r.out);
        if (cases[i].rule != NULL && strstr(r.out, cases[i].rule) == NULL)
            fail_msg("check %s: no %s in\n%s", cases[i].file, cases[i].rule, r.out);
        if (cases[i].status == 0)
            assert_non_null(strstr(r.out, "verdict: pass"));
        ac_test_run_free(&r);
    }
}

static void test_check_json_keys(void **state)
{
    ac_test_run r = run_ac("check", "--format", "json", "samples/web-tier.xml", NULL);
    static const char *const keys[] = {"\"archcheck\": ",
                                       "\"file\": \"samples/web-tier.xml\"",
                                       "\"sha256\": ",
                                       "\"verdict\": \"pass\"",
                                       "\"findings\": ",
                                       "\"nodes\": ",
                                       "\"arrival_rate\": 1300",
                                       "\"utilization\": 0.65",
                                       "\"mean_jobs\": ",
                                       "\"p95_response_time\": ",
                                       "\"approximation\": \"refined\"",
                                       "\"equilibria\": ",
                                       "\"stable\": true",
                                       "\"max_real_eigenvalue\": ",
                                       "\"end_to_end\": ",
                                       "\"headroom\": ",
                                       "\"bottleneck\": \"web\"",
                                       "\"checks\": "};
    (void)state;
    assert_int_equal(r.status, 0);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strstr(r.out, keys[i]) == NULL)
            fail_msg("check --format json: no %s in\n%s", keys[i], r.out);
    ac_test_run_free(&r);
}

/* The retry storm: the metastable finding names both equilibria and the simulation shows
 * that each basin holds. */
static void test_check_metastable(void **state)
{
    ac_test_run r = run_ac("check", "--color", "never", "samples/retry-storm.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "two stable equilibria"));
    assert_non_null(strstr(r.out, "good equilibrium: 1.1"));
    assert_non_null(strstr(r.out, "bad equilibrium: 39.6"));
    assert_non_null(strstr(r.out, "smallest burst"));
    assert_non_null(strstr(r.out, "(stays good)"));
    assert_non_null(strstr(r.out, "stays bad: the failure mode is real"));
    /* the burst the solver names (1.5 times it) tips the simulated pool in most runs */
    {
        const char *p = strstr(r.out, "independent runs end in the bad state");
        unsigned k = 0, n = 0;
        assert_non_null(p);
        while (p > r.out && p[-1] != ':')
            p--;
        assert_int_equal(sscanf(p, " %u of %u", &k, &n), 2);
        assert_int_equal(n, 5);
        assert_true(k >= 3);
    }
    ac_test_run_free(&r);
}

/* `archcheck size` on the two capacity samples: the counts of their hand computations
 * (utilisation 0.8 binds: ceil(lambda / (mu x 0.8)) at the load and at the headroom). */
/* In the "sizing" array of a JSON output, the row of node `id` has `needed` and
 * `with_headroom`. */
static void assert_sizing_row(const char *json, const char *id, unsigned needed,
                              unsigned with_headroom)
{
    char key[96], want[96];
    const char *p = strstr(json, "\"sizing\": [");
    const char *end;
    assert_non_null(p);
    snprintf(key, sizeof key, "\"id\": \"%s\"", id);
    p = strstr(p, key);
    if (p == NULL)
        fail_msg("no sizing row for %s", id);
    end = strchr(p, '}');
    assert_non_null(end);
    snprintf(want, sizeof want, "\"needed\": %u,", needed);
    if (strstr(p, want) == NULL || strstr(p, want) > end)
        fail_msg("sizing of %s: no %s in %.*s", id, want, (int)(end - p), p);
    snprintf(want, sizeof want, "\"needed_with_headroom\": %u,", with_headroom);
    if (strstr(p, want) == NULL || strstr(p, want) > end)
        fail_msg("sizing of %s: no %s in %.*s", id, want, (int)(end - p), p);
}

/* `archcheck size` on the two capacity samples: the counts of their hand computations
 * (utilisation 0.8 binds: ceil(lambda / (mu x 0.8)) at the load and at the headroom). */
static void test_size_samples(void **state)
{
    static const char *const cp[] = {"\"binding\": \"utilization\"", "\"saved\": -24",
                                     "\"complete\": true"};
    ac_test_run r = run_ac("size", "--format", "json", "samples/control-plane.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 1); /* short of the needed count with the headroom */
    for (size_t i = 0; i < sizeof cp / sizeof cp[0]; i++)
        if (strstr(r.out, cp[i]) == NULL)
            fail_msg("size control-plane: no %s in\n%s", cp[i], r.out);
    assert_sizing_row(r.out, "amf", 49, 74);
    assert_sizing_row(r.out, "smf", 31, 46);
    assert_sizing_row(r.out, "ausf", 20, 30);
    assert_sizing_row(r.out, "udm", 18, 26);
    ac_test_run_free(&r);
    r = run_ac("size", "--color", "never", "samples/daily-web-tier.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "max servers         260                147                177"));
    assert_non_null(strstr(r.out, "servers              40                 30                 36"));
    assert_non_null(strstr(r.out, "total: 87 fewer than designed"));
    ac_test_run_free(&r);
    r = run_ac("size", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("size", "--dispatch", "nosuch", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "'nosuch' is not a pool"));
    ac_test_run_free(&r);
    r = run_ac("check", "--size", "--no-validate", "--format", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"sizing\": ["));
    assert_non_null(strstr(r.out, "\"verdict\": \"pass\""));
    ac_test_run_free(&r);
}

static void test_solve_outputs(void **state)
{
    ac_test_run r = run_ac("solve", "samples/tandem.xml", NULL);
    size_t rows = 0;
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "end to end: mean"));
    assert_non_null(strstr(r.out, "Lyapunov: positive definite"));
    ac_test_run_free(&r);
    r = run_ac("solve", "--format", "csv", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "t_s,ccdf_"));
    assert_non_null(strstr(r.out, ",ccdf_end_to_end\n"));
    for (const char *p = r.out; *p; p++)
        rows += *p == '\n';
    assert_int_equal(rows, 502);                /* the header and 501 time points */
    assert_non_null(strstr(r.out, "\n0,1,1,")); /* P(T > 0) = 1 */
    ac_test_run_free(&r);
    r = run_ac("solve", "--format", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"approximation\": \"exact\""));
    ac_test_run_free(&r);
    r = run_ac("solve", "samples/bad/AC012-duration-unit.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "[AC012]"));
    ac_test_run_free(&r);
    r = run_ac("solve", "--format", "pdf", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    /* the transient of an autoscaled pool: its server count over the day, and the totals */
    r = run_ac("solve", "--transient", "--format", "csv", "samples/autoscaled-api.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ",api.servers\n"));
    ac_test_run_free(&r);
    r = run_ac("solve", "--transient", "--format", "json", "samples/autoscaled-api.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"scaling_events\": 39"));
    ac_test_run_free(&r);
    /* the serverless stages' own lines in the steady-state text */
    r = run_ac("solve", "samples/serverless-pipeline.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ingest: sync, 58.58 of 70 instances busy (60 Erlangs offered), "
                                  "throttled 0.0237 (Erlang-B)"));
    assert_non_null(strstr(r.out, "shard: polled by its queue"));
    assert_non_null(strstr(r.out, "jobs: 1000 consumer slots"));
    assert_non_null(strstr(r.out, "api: token bucket 1500/s with 300 tokens"));
    ac_test_run_free(&r);
    /* the serverless stages' series: at the burst's plateau (2500/s against a 1500/s
       bucket) the gateway rejects 1000/s; before the burst nothing */
    r = run_ac("solve", "--transient", "--format", "csv", "samples/serverless-pipeline.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ",api.tokens,"));
    assert_non_null(strstr(r.out, ",ingest.throttle_rate,"));
    assert_non_null(strstr(r.out, ",jobs.backlog,"));
    assert_non_null(strstr(r.out, ",shard.cold_start_rate,"));
    {
        /* the api.loss_rate column (the 6th) at t = 30 s and t = 135 s */
        const char *line = r.out;
        int seen = 0;
        while ((line = strchr(line, '\n')) != NULL) {
            double t, ar, tp, mj, ut, lr;
            line++;
            if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", &t, &ar, &tp, &mj, &ut, &lr) != 6)
                continue;
            if (fabs(t - 30.0) < 1e-9) {
                assert_double_close(lr, 0.0, 1e-6, 0);
                seen++;
            } else if (fabs(t - 135.0) < 1e-9) {
                assert_double_close(lr, 1000.0, 0, 1e-3);
                seen++;
            }
        }
        assert_int_equal(seen, 2);
    }
    ac_test_run_free(&r);
}

static void test_simulate_deterministic(void **state)
{
    ac_test_run a = run_ac("simulate", "--format", "json", "--replications", "3", "--horizon",
                           "200s", "--seed", "7", "samples/tandem.xml", NULL);
    ac_test_run b = run_ac("simulate", "--format", "json", "--replications", "3", "--horizon",
                           "200s", "--seed", "7", "samples/tandem.xml", NULL);
    ac_test_run c = run_ac("simulate", "--format", "json", "--replications", "3", "--horizon",
                           "200s", "--seed", "8", "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(a.status, 0);
    assert_string_equal(a.out, b.out);
    assert_string_not_equal(a.out, c.out);
    assert_non_null(strstr(a.out, "\"mean_jobs_ci95\": "));
    assert_non_null(strstr(a.out, "\"approximation\": \"simulation\""));
    assert_non_null(strstr(a.out, "\"replications\": 3"));
    assert_non_null(strstr(a.out, "\"seed\": 7"));
    ac_test_run_free(&a);
    ac_test_run_free(&b);
    ac_test_run_free(&c);
    a = run_ac("simulate", "--horizon", "10s", "--warmup", "20s", "samples/tandem.xml", NULL);
    assert_int_equal(a.status, 2);
    ac_test_run_free(&a);
    /* functions, queues and gateways are simulated; their own KPIs are printed */
    a = run_ac("simulate", "--replications", "2", "--horizon", "60s", "--warmup", "20s",
               "samples/serverless-pipeline.xml", NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "ingest "));
    assert_non_null(strstr(a.out, "throttled"));
    ac_test_run_free(&a);
}

/* --validate simulates and reports the simulation's value beside every check. */
static void test_check_validate(void **state)
{
    ac_test_run r = run_ac("check", "--validate", "--format", "json", "--seed", "3",
                           "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"simulation\": {"));
    assert_non_null(strstr(r.out, "\"relative_error_mean_jobs\": "));
    assert_non_null(strstr(r.out, "\"simulation_value\": "));
    assert_non_null(strstr(r.out, "\"validation\": {"));
    ac_test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_sample_verdicts), cmocka_unit_test(test_size_samples),
        cmocka_unit_test(test_check_json_keys),       cmocka_unit_test(test_check_metastable),
        cmocka_unit_test(test_solve_outputs),         cmocka_unit_test(test_simulate_deterministic),
        cmocka_unit_test(test_check_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
