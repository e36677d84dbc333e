/*
 * The simulator's serverless stages against closed forms (tests for include/archcheck/sim.h,
 * doc/serverless.md): functions, queues, gateways, their mix and the automatic horizon.
 * Models parsed from XML through the parser; every run has a fixed seed.
 */
#include "helpers.h"

#include <gsl/gsl_cdf.h>

#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "archcheck/solver.h"
#include "sim/rng.h"

#include "sim_net.h"

/* ---- serverless: functions, queues, gateways (doc/serverless.md) ----------------------------- */

/* Parse `xml` (must be valid; warnings allowed). */
static ac_model *parse_xml(const char *xml)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    int rc;
    ac_diag_list_init(&d);
    rc = ac_parser_parse_memory(xml, strlen(xml), "t.xml", &m, &d, &err);
    if (rc != 0)
        for (size_t i = 0; i < d.count; i++)
            print_error("t.xml:%u:%u: %s [%s]\n", d.items[i].line, d.items[i].column,
                        d.items[i].message, d.items[i].rule);
    ac_diag_list_clear(&d);
    assert_int_equal(rc, 0);
    assert_non_null(m);
    return m;
}

/* Simulate the model of `xml`. */
static ac_sim_result *sim_xml(const char *xml, const ac_sim_options *o)
{
    ac_model *m = parse_xml(xml);
    ac_sim_result *res = NULL;
    ac_error err = {0};
    int rc = ac_sim_run(m, o, &res, &err);
    if (rc != 0)
        print_error("ac_sim_run: %d %s\n", rc, err.message);
    ac_model_free(m);
    assert_int_equal(rc, 0);
    assert_non_null(res);
    return res;
}

static const ac_sim_node_result *res_node(const ac_sim_result *res, const char *id)
{
    for (size_t i = 0; i < res->nnodes; i++)
        if (strcmp(res->nodes[i].id, id) == 0)
            return &res->nodes[i];
    fail_msg("no node '%s' in the result", id);
    return NULL;
}

/* The exact value lies within the 95% interval plus 0.5% of itself (tolerates a
 * 2.5-sigma draw while rejecting any bias above 0.5%); the interval is informative. */
#define assert_sim_close(est, exact, rel_width)                                                    \
    sim_check(#est, (est), (exact), 0.005, 0.0, (rel_width))

/* The exact value lies within the 95% interval widened by an absolute slack (for a closed form
 * known only up to a bracket of half-width `slack`). */
#define assert_in_ci_abs(est, exact, slack) sim_check(#est, (est), (exact), 0.0, (slack), 0.0)

static void show(const char *what, ac_sim_estimate e, double exact)
{
    print_message("%-44s %.6g +- %.3g (exact %.6g)\n", what, e.mean, e.ci95, exact);
}

/* The doc's fixed point (doc/serverless.md, "Analytic steady state"): q = B(C, lambda_att
 * occ) + (1 - B) p_fail with lambda_att = lambda sum_{i<=r} q^i, iterated (damped) from
 * q = 0; returns q (the loss is q^(r+1)). */
static double doc_fixed_point_q(size_t C, double lambda, double occ, double p_fail, size_t r)
{
    double q = 0;
    for (int it = 0; it < 10000; it++) {
        double att = 0, qi = 1, B, qn;
        for (size_t i = 0; i <= r; i++, qi *= q)
            att += lambda * qi;
        B = ac_test_erlang_b(C, att * occ);
        qn = B + (1 - B) * p_fail;
        if (fabs(qn - q) < 1e-15)
            break;
        q = 0.5 * (q + qn);
    }
    return q;
}

/* Sync function, Poisson arrivals, no retries: throttling is Erlang B(C, lambda d) (the
 * busy instances are an M/M/C/C loss system; cold-start 0, keep-alive long). */
static void test_function_erlang_b(void **state)
{
    ac_sim_options o = fixed_opt(31, 20, 5000, 500);
    ac_sim_result *res;
    const ac_sim_node_result *f;
    const double B = ac_test_erlang_b(10, 8.0);
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"8/s\"/></workload>"
                  "<function id=\"f\" concurrency=\"10\" duration=\"1s\" cold-start=\"0s\" "
                  "keep-alive=\"10h\" timeout=\"10h\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    show("sync C=10 A=8 throttle_fraction", f->throttle_fraction, B);
    assert_double_close(B, 0.1216610642, 0.0, 1e-8);
    assert_int_equal(f->kind, AC_NODE_FUNCTION);
    assert_int_equal(f->servers, 10);
    assert_sim_close(f->throttle_fraction, B, 0.1);
    assert_sim_close(f->loss_probability, B, 0.1);
    assert_sim_close(f->failure_probability, B, 0.1);
    assert_sim_close(res->entries[0].failure_probability, B, 0.1);
    assert_sim_close(f->mean_jobs, 8.0 * (1 - B), 0.05);
    assert_sim_close(f->utilization, 0.8 * (1 - B), 0.05);
    assert_sim_close(f->throughput, 8.0 * (1 - B), 0.05);
    assert_sim_close(f->mean_response_time, 1.0, 0.05);
    /* 10 instances are started in the first seconds and never reclaimed */
    assert_double_close(f->cold_start_fraction.mean, 0.0, 0.0, 0.0);
    assert_double_close(f->mean_instances.mean, 10.0, 0.0, 1e-12);
    assert_true(isnan(f->dead_letter_fraction.mean) && f->dead_letter_fraction.n == 0);
    ac_sim_result_free(res);
}

/* Sync retries. (1) Without throttling (C large) every attempt fails independently with
 * p = f + (1 - f) e^{-theta/d}: the doc's fixed point q = B + (1 - B) p has B ~ 0 and the
 * loss is q^(r+1). (2) With throttling the semantics are exact but NOT the fixed point's:
 * a throttled attempt retried at once sees the same C busy instances (throttled again), and a
 * retry after a failed execution takes the instance that just ended; so an admitted request
 * holds one instance for H = the sum of its N <= r + 1 executions (E[H] = E[min(X, theta)]
 * sum_{i<=r} p^i by Wald) and, by the insensitivity of the Erlang loss system,
 * loss = B + (1 - B) p^(r+1) with B = B(C, lambda E[H]). */
static void test_function_retries(void **state)
{
    ac_sim_options o = fixed_opt(32, 10, 4000, 400);
    ac_sim_result *res;
    const ac_sim_node_result *f;
    const double lambda = 8.0, d = 1.0, theta = 2.0, fp = 0.3;
    const double p = fp + (1 - fp) * exp(-theta / d), occ = d * (1 - exp(-theta / d));
    double q, B, EN, loss, thr;
    (void)state;
    /* (1) */
    q = doc_fixed_point_q(60, lambda, occ, p, 2);
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"8/s\"/></workload>"
                  "<function id=\"f\" concurrency=\"60\" duration=\"1s\" timeout=\"2s\" "
                  "fail-prob=\"30%\" retries=\"2\" keep-alive=\"10h\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    show("sync retries=2, no throttling: failure", f->failure_probability, q * q * q);
    assert_double_close(q, p, 0.0, 1e-9); /* B(60, ~13) is negligible */
    assert_sim_close(f->failure_probability, q * q * q, 0.1);
    assert_sim_close(res->entries[0].failure_probability, q * q * q, 0.1);
    assert_sim_close(f->retries_per_job, q + q * q, 0.05);
    assert_sim_close(f->attempt_rate, lambda * (1 + q + q * q), 0.05);
    assert_sim_close(f->arrival_rate, lambda, 0.05); /* requests, not attempts */
    assert_sim_close(f->loss_probability, q * q * q, 0.1);
    assert_sim_close(f->timeout_fraction, exp(-theta / d), 0.05);
    assert_sim_close(f->mean_jobs, lambda * occ * (1 + q + q * q), 0.05);
    assert_double_close(f->throttle_fraction.mean, 0.0, 0.0, 0.0);
    ac_sim_result_free(res);

    /* (2) C = 10, lambda d = 8, fail-prob 20%, r = 2 */
    o = fixed_opt(33, 10, 4000, 400);
    EN = 1 + 0.2 + 0.04;
    B = ac_test_erlang_b(10, lambda * d * EN);
    loss = B + (1 - B) * 0.008;
    thr = 3 * B / (3 * B + (1 - B) * EN);
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"8/s\"/></workload>"
                  "<function id=\"f\" concurrency=\"10\" duration=\"1s\" timeout=\"10h\" "
                  "fail-prob=\"20%\" retries=\"2\" keep-alive=\"10h\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    q = doc_fixed_point_q(10, lambda, d, 0.2, 2);
    show("sync C=10 retries=2 f=0.2: failure", f->failure_probability, loss);
    print_message("  (the doc's fixed point would say q = %.4f, loss q^3 = %.4f)\n", q, q * q * q);
    assert_sim_close(f->failure_probability, loss, 0.1);
    assert_sim_close(f->loss_probability, loss, 0.1); /* per request, after every retry */
    assert_sim_close(f->arrival_rate, lambda, 0.05);
    assert_sim_close(f->throughput, lambda * (1 - loss), 0.05);
    assert_sim_close(res->entries[0].failure_probability, loss, 0.1);
    assert_sim_close(res->entries[0].throughput, lambda * (1 - loss), 0.05);
    assert_sim_close(f->throttle_fraction, thr, 0.1);
    assert_sim_close(f->retries_per_job, 2 * B + (1 - B) * (EN - 1), 0.1);
    assert_sim_close(f->mean_jobs, lambda * d * EN * (1 - B), 0.05);
    ac_sim_result_free(res);
}

/* Async function: attempts wait in the function's FIFO, so C = 4 instances at load 3 are an
 * M/M/4 queue; the response (first attempt to end) is the Erlang-C wait plus d. */
static void test_function_async_erlang_c(void **state)
{
    ac_sim_options o = fixed_opt(34, 10, 4000, 400);
    ac_sim_result *res;
    const ac_sim_node_result *f;
    const double W = ac_test_erlang_c(4, 3.0) / (4.0 - 3.0);
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"3/s\"/></workload>"
                  "<function id=\"f\" invocation=\"async\" concurrency=\"4\" duration=\"1s\" "
                  "timeout=\"10h\" keep-alive=\"10h\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    show("async C=4 load 3: mean response", f->mean_response_time, W + 1.0);
    assert_sim_close(f->mean_response_time, W + 1.0, 0.1);
    assert_sim_close(res->entries[0].mean_response_time, W + 1.0, 0.1);
    assert_sim_close(f->utilization, 0.75, 0.05);
    assert_sim_close(f->mean_jobs, 3.0, 0.05);
    assert_double_close(f->throttle_fraction.mean, 0.0, 0.0, 0.0);
    assert_double_close(f->failure_probability.mean, 0.0, 0.0, 0.0);
    ac_sim_result_free(res);

    /* async retries: every execution fails (fail-prob 100%), r = 2: attempts 3 per request,
     * the request fails 60 + 120 s (plus three executions) after its first attempt, and
     * so has no end-to-end time (only successful requests are timed) */
    o = fixed_opt(35, 4, 4000, 400);
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"0.5/s\"/></workload>"
                  "<function id=\"f\" invocation=\"async\" concurrency=\"100\" duration=\"10ms\" "
                  "fail-prob=\"100%\" keep-alive=\"10h\"/>"
                  "<pool id=\"after\" servers=\"1\" service-rate=\"100/s\"/>"
                  "<route from=\"f\" to=\"after\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    assert_double_close(res->entries[0].failure_probability.mean, 1.0, 0.0, 0.0);
    assert_sim_close(f->retries_per_job, 2.0, 0.05); /* counted at the retries: window edges */
    /* end-to-end times are those of successful requests: none here */
    assert_int_equal(res->entries[0].mean_response_time.n, 0);
    assert_true(isnan(res->entries[0].mean_response_time.mean));
    assert_double_close(res_node(res, "after")->arrival_rate.mean, 0.0, 0.0, 0.0);
    ac_sim_result_free(res);
}

/* Timeout and fail-prob: an execution fails with f + (1 - f) e^{-theta/d}; it runs into the
 * timeout with e^{-theta/d}; a successful one lasts E[X | X <= theta]. */
static void test_function_timeout_fail(void **state)
{
    ac_sim_options o = fixed_opt(36, 10, 4000, 400);
    ac_sim_result *res;
    const ac_sim_node_result *f;
    const double d = 1.0, theta = 1.5, fp = 0.1, e = exp(-theta / d);
    const double pf = fp + (1 - fp) * e;
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"2/s\"/></workload>"
                  "<function id=\"f\" concurrency=\"1000\" duration=\"1s\" timeout=\"1.5s\" "
                  "fail-prob=\"10%\" keep-alive=\"10h\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    show("timeout 1.5 s, fail 10%: failure", f->failure_probability, pf);
    assert_sim_close(f->failure_probability, pf, 0.05);
    assert_sim_close(res->entries[0].failure_probability, pf, 0.05);
    assert_sim_close(f->timeout_fraction, e, 0.05);
    assert_sim_close(f->mean_response_time, d - theta * e / (1 - e), 0.05);
    assert_sim_close(f->mean_jobs, 2.0 * d * (1 - e), 0.05);
    assert_sim_close(f->throughput, 2.0 * (1 - pf), 0.05);
    ac_sim_result_free(res);
}

/* Cold starts at a low rate (lambda = 0.01/s, d = 0.1 s, c0 = 0.2 s, keep-alive tau = 60 s,
 * C large). An arrival that finds no instance busy starts cold exactly when nothing
 * completed in the last tau seconds, i.e. when the system was empty tau ago and nothing
 * arrived since: probability pi_0 e^{-lambda tau} (PASTA; the arrivals after t - tau are
 * independent of the state then). An arrival that finds an instance busy (probability
 * 1 - pi_0 <= lambda (d + c0) = 0.003, by Little) starts cold or not. So
 *   P(cold) in [(1 - 0.003) e^{-0.6}, e^{-0.6} + 0.003] = e^{-0.6} (0.548812) +- 0.0025,
 * and the mean response d + c0 P(cold) in 0.1 + 0.2 (that bracket). */
static void test_function_cold_starts(void **state)
{
    ac_sim_options o = fixed_opt(37, 20, 1000000, 1000);
    ac_sim_result *res;
    const ac_sim_node_result *f;
    const double lambda = 0.01, tau = 60, busy = lambda * (0.1 + 0.2);
    const double lo = (1 - busy) * exp(-lambda * tau), hi = exp(-lambda * tau) + busy;
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"0.01/s\"/></workload>"
                  "<function id=\"f\" duration=\"100ms\" cold-start=\"200ms\" "
                  "keep-alive=\"60s\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    show("cold_start_fraction (lambda tau = 0.6)", f->cold_start_fraction, exp(-lambda * tau));
    assert_in_ci_abs(f->cold_start_fraction, 0.5 * (lo + hi), 0.5 * (hi - lo));
    assert_true(f->cold_start_fraction.ci95 < 0.01);
    assert_in_ci_abs(f->mean_response_time, 0.1 + 0.2 * 0.5 * (lo + hi), 0.2 * 0.5 * (hi - lo));
    /* an instance is alive when something completed in the last tau (or is busy) */
    assert_in_ci_abs(f->mean_instances, 1 - exp(-lambda * tau), 2 * busy);
    ac_sim_result_free(res);
}

/* The scale-token bucket's depth (`scale-burst`, doc/format.md; AWS Lambda's 2023 scaling:
 * 1,000 environments at once, refilled at 100/s). A sync function offered 1000/s from empty,
 * executions of mean 1000 s (so nearly none ends within the horizon H = 10 s): every
 * admission but the reuse of an ended execution's instance is a cold start and takes a
 * token, and with arrivals ten times the refill every token is taken as it comes, so
 * A = D + s H + R requests are admitted (within a token), R = the executions ended by H,
 * each reused at once: E[R] = int_0^H a(u) (H - u) / d du with a = 1000/s until the bucket
 * is empty (t* = D / (1000 - s) = 1.11 s) and s after: 14.4 (to +-2: the reuses themselves
 * and the expansion of 1 - e^-x). Throttled fraction 1 - A / 10000 = 0.79856 (the 1 / N
 * bias of a ratio is 1e-8 here); the default depth max(1, s) = 100 would give 0.8886. */
static void test_function_scale_burst(void **state)
{
    ac_sim_options o = fixed_opt(41, 20, 10, 0);
    ac_sim_result *res;
    const ac_sim_node_result *f;
    const double D = 1000, s = 100, H = 10, lam = 1000, d = 1000, ts = D / (lam - s);
    const double R = lam * (H * ts - ts * ts / 2) / d + s * (H - ts) * (H - ts) / 2 / d;
    const double exact = 1 - (D + s * H + R) / (lam * H);
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"1000/s\"/></workload>"
                  "<function id=\"f\" concurrency=\"100000\" duration=\"1000s\" "
                  "timeout=\"100000s\" keep-alive=\"1h\" scale-rate=\"100/s\" "
                  "scale-burst=\"1000\"/>"
                  "</architecture>",
                  &o);
    f = res_node(res, "f");
    show("throttle_fraction (scale-burst 1000)", f->throttle_fraction, exact);
    assert_in_ci_abs(f->throttle_fraction, exact, 3.0 / (lam * H));
    assert_true(f->throttle_fraction.ci95 < 0.002);
    ac_sim_result_free(res);
}

/* Provisioned instances are warm from time 0 and never reclaimed; pre-warming tops the
 * instances up to W at every ping. */
static void test_function_provisioned_prewarm(void **state)
{
    ac_sim_options o = fixed_opt(38, 4, 100000, 1000);
    ac_model *m;
    ac_sim_result *res;
    ac_error err = {0};
    double cold_plain, cold_pw;
    (void)state;
    m = parse_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"0.005/s\"/></workload>"
                  "<function id=\"f\" concurrency=\"5\" duration=\"100ms\" cold-start=\"1s\" "
                  "keep-alive=\"60s\"/>"
                  "</architecture>");
    assert_int_equal(ac_sim_run(m, &o, &res, &err), 0);
    cold_plain = res->nodes[0].cold_start_fraction.mean;
    assert_in_ci_abs(res->nodes[0].cold_start_fraction, exp(-0.3), 0.01);
    ac_sim_result_free(res);

    /* provisioned = concurrency: never a cold start, always 5 instances */
    m->nodes[0].u.function.provisioned = 5;
    assert_int_equal(ac_sim_run(m, &o, &res, &err), 0);
    assert_double_close(res->nodes[0].cold_start_fraction.mean, 0.0, 0.0, 0.0);
    assert_double_close(res->nodes[0].mean_instances.mean, 5.0, 0.0, 1e-12);
    assert_sim_close(res->nodes[0].mean_response_time, 0.1, 0.2);
    ac_sim_result_free(res);

    /* pre-warming 2 instances every 60 s (= keep-alive): the instances made at a ping are
     * reclaimed at the next, which makes new ones; one used between pings became idle later
     * and expires off the beat, leaving 1 until the next ping (a ping tops up, it does not
     * refresh): between 1 and 2 alive, a cold start only when both went */
    m->nodes[0].u.function.provisioned = 0;
    m->nodes[0].u.function.prewarm = 2;
    m->nodes[0].u.function.prewarm_interval = 60;
    assert_int_equal(ac_sim_run(m, &o, &res, &err), 0);
    cold_pw = res->nodes[0].cold_start_fraction.mean;
    print_message("cold fraction: plain %.4f, pre-warmed %.4f\n", cold_plain, cold_pw);
    assert_true(cold_pw < 0.05);
    assert_true(res->nodes[0].mean_instances.mean > 1.5 &&
                res->nodes[0].mean_instances.mean <= 2.0 + 1e-9);
    ac_sim_result_free(res);
    ac_model_free(m);
}

/* A queue with batches of 1 and M = 3 consumers (function C = 10 >= M, no failures) is an
 * M/M/3 queue: the time in queue is the Erlang-C wait, the backlog (a visible message) is
 * N >= 4: P = C(3, a) a / 3, the messages held are its L. */
static void test_queue_mmc(void **state)
{
    ac_sim_options o = fixed_opt(39, 10, 4000, 400);
    ac_sim_result *res;
    const ac_sim_node_result *q, *f;
    const double a = 2.0, Cw = ac_test_erlang_c(3, a);
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"q\" rate=\"2/s\"/></workload>"
                  "<queue id=\"q\" batch-size=\"1\" max-consumers=\"3\" visibility-timeout=\"1h\"/>"
                  "<function id=\"f\" concurrency=\"10\" duration=\"1s\" timeout=\"10h\" "
                  "keep-alive=\"10h\"/>"
                  "<route from=\"q\" to=\"f\"/>"
                  "</architecture>",
                  &o);
    q = res_node(res, "q");
    f = res_node(res, "f");
    show("queue M=3 a=2: time in queue", q->mean_response_time, Cw / (3 - a));
    assert_sim_close(q->mean_response_time, Cw / (3 - a), 0.1);
    assert_sim_close(q->backlog_fraction, Cw * a / 3, 0.1);
    assert_sim_close(q->mean_jobs, a + Cw * a / (3 - a), 0.1);
    assert_sim_close(q->utilization, a / 3, 0.05);
    assert_sim_close(q->throughput, 2.0, 0.05);
    assert_sim_close(res->entries[0].mean_response_time, Cw / (3 - a) + 1.0, 0.1);
    assert_sim_close(f->mean_jobs, a, 0.05);
    assert_sim_close(f->mean_response_time, 1.0, 0.05);
    assert_double_close(q->dead_letter_fraction.mean, 0.0, 0.0, 0.0);
    assert_double_close(q->loss_probability.mean, 0.0, 0.0, 0.0);
    assert_double_close(f->throttle_fraction.mean, 0.0, 0.0, 0.0);
    assert_true(f->cold_start_fraction.mean < 1e-3);
    ac_sim_result_free(res);
}

/* Every execution fails with f = 0.5, max-receives R = 3: a message is dead-lettered with
 * f^R = 0.125, received 1 + f + f^2 times, and (consumers plentiful, so a message is taken
 * again the moment it is visible) waits (k - 1) V in the queue when its k-th receive
 * succeeds: E = V (f (1 - f) + 2 f^2 (1 - f)) / (1 - f^3). */
static void test_queue_dead_letters(void **state)
{
    ac_sim_options o = fixed_opt(40, 10, 4000, 400);
    ac_sim_result *res;
    const ac_sim_node_result *q, *f;
    const double fp = 0.5, V = 2.0;
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"q\" rate=\"1/s\"/></workload>"
                  "<queue id=\"q\" batch-size=\"1\" max-consumers=\"100\" "
                  "visibility-timeout=\"2s\" max-receives=\"3\"/>"
                  "<function id=\"f\" concurrency=\"100\" duration=\"100ms\" timeout=\"10h\" "
                  "fail-prob=\"50%\" keep-alive=\"10h\"/>"
                  "<route from=\"q\" to=\"f\"/>"
                  "</architecture>",
                  &o);
    q = res_node(res, "q");
    f = res_node(res, "f");
    show("dead_letter_fraction (f = 0.5, R = 3)", q->dead_letter_fraction, 0.125);
    assert_sim_close(q->dead_letter_fraction, fp * fp * fp, 0.1);
    assert_sim_close(q->loss_probability, fp * fp * fp, 0.1);
    assert_sim_close(res->entries[0].failure_probability, fp * fp * fp, 0.1);
    assert_sim_close(q->retries_per_job, fp + fp * fp, 0.05);
    assert_sim_close(q->mean_response_time,
                     V * (fp * (1 - fp) + 2 * fp * fp * (1 - fp)) / (1 - fp * fp * fp), 0.05);
    assert_sim_close(f->failure_probability, fp, 0.05);
    assert_sim_close(f->throughput, 1 - fp * fp * fp, 0.05);
    assert_double_close(q->timeout_fraction.mean, 0.0, 0.0, 0.0);
    ac_sim_result_free(res);
}

/* capacity K = 5 held messages (visible or in flight), batches of 1, M = 3 consumers,
 * exponential executions: an M/M/3/5 queue, overloaded (a = 4): the rejection is p_5. */
static void test_queue_capacity(void **state)
{
    ac_sim_options o = fixed_opt(41, 10, 3000, 300);
    ac_sim_result *res;
    const ac_sim_node_result *q;
    const double a = 4.0;
    double p[6], sum = 0;
    (void)state;
    p[0] = 1;
    for (size_t n = 1; n <= 5; n++)
        p[n] = p[n - 1] * a / (double)(n < 3 ? n : 3);
    for (size_t n = 0; n <= 5; n++)
        sum += p[n];
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"q\" rate=\"4/s\"/></workload>"
                  "<queue id=\"q\" capacity=\"5\" batch-size=\"1\" max-consumers=\"3\"/>"
                  "<function id=\"f\" concurrency=\"10\" duration=\"1s\" timeout=\"10h\" "
                  "keep-alive=\"10h\"/>"
                  "<route from=\"q\" to=\"f\"/>"
                  "</architecture>",
                  &o);
    q = res_node(res, "q");
    show("queue K=5 M=3 a=4: rejection", q->loss_probability, p[5] / sum);
    assert_true(q->loss_probability.mean > 0.1);
    assert_sim_close(q->loss_probability, p[5] / sum, 0.1);
    assert_sim_close(res->entries[0].failure_probability, p[5] / sum, 0.1);
    assert_double_close(q->dead_letter_fraction.mean, 0.0, 0.0, 0.0);
    ac_sim_result_free(res);
}

/* M/D/1/K blocking: the embedded chain at departures on {0..K-1} (a_k = P(k Poisson(rho)
 * arrivals in one service)), then P_block = 1 - 1 / (pi_d(0) + rho). */
static double md1k_blocking(size_t K, double rho)
{
    double a[16], P[16][16], pi[16], next[16];
    assert_true(K >= 1 && K <= 16);
    a[0] = exp(-rho);
    for (size_t k = 1; k < K; k++)
        a[k] = a[k - 1] * rho / (double)k;
    for (size_t i = 0; i < K; i++) {
        double rest = 1;
        size_t base = i == 0 ? 0 : i - 1; /* customers left when the next service starts */
        for (size_t j = 0; j + 1 < K; j++) {
            P[i][j] = j >= base ? a[j - base] : 0.0;
            rest -= P[i][j];
        }
        P[i][K - 1] = rest;
        pi[i] = 1.0 / (double)K;
    }
    for (int it = 0; it < 100000; it++) { /* power iteration (the chain is aperiodic) */
        double diff = 0;
        for (size_t j = 0; j < K; j++) {
            next[j] = 0;
            for (size_t i = 0; i < K; i++)
                next[j] += pi[i] * P[i][j];
        }
        for (size_t j = 0; j < K; j++) {
            diff = fmax(diff, fabs(next[j] - pi[j]));
            pi[j] = next[j];
        }
        if (diff < 1e-15)
            break;
    }
    return 1 - 1 / (pi[0] + rho);
}

/* Gateway: token bucket of K = max(burst, 1) tokens refilled at r: with Poisson arrivals the
 * rejection is the M/D/1/K blocking, service 1/r. Unbounded: nothing rejected. */
static void test_gateway_md1k(void **state)
{
    const double rhos[2] = {0.9, 1.2};
    const char *xml[2] = {"<architecture format=\"1\">"
                          "<workload><source id=\"s\" to=\"g\" rate=\"9/s\"/></workload>"
                          "<gateway id=\"g\" rate-limit=\"10/s\" burst=\"5\"/>"
                          "</architecture>",
                          "<architecture format=\"1\">"
                          "<workload><source id=\"s\" to=\"g\" rate=\"12/s\"/></workload>"
                          "<gateway id=\"g\" rate-limit=\"10/s\" burst=\"5\"/>"
                          "</architecture>"};
    ac_sim_result *res;
    const ac_sim_node_result *g;
    (void)state;
    assert_double_close(md1k_blocking(1, 0.5), 0.5 / 1.5, 0.0, 1e-12); /* Erlang B, 1 place */
    for (size_t i = 0; i < 2; i++) {
        ac_sim_options o = fixed_opt(42 + i, 10, 3000, 300);
        double P = md1k_blocking(5, rhos[i]);
        res = sim_xml(xml[i], &o);
        g = res_node(res, "g");
        show(i == 0 ? "gateway K=5 rho=0.9: rejection" : "gateway K=5 rho=1.2: rejection",
             g->loss_probability, P);
        assert_int_equal(g->kind, AC_NODE_GATEWAY);
        assert_int_equal(g->servers, 5);
        assert_sim_close(g->loss_probability, P, 0.1);
        assert_sim_close(g->throttle_fraction, P, 0.1);
        assert_sim_close(res->entries[0].failure_probability, P, 0.1);
        assert_sim_close(g->utilization, rhos[i] * (1 - P), 0.02);
        assert_double_close(g->mean_response_time.mean, 0.0, 0.0, 0.0);
        assert_double_close(g->p99_response_time.mean, 0.0, 0.0, 0.0);
        assert_true(g->mean_jobs.mean > 0 && g->mean_jobs.mean < 5);
        ac_sim_result_free(res);
    }
    {
        ac_sim_options o = fixed_opt(44, 10, 1000, 100);
        res = sim_xml("<architecture format=\"1\">"
                      "<workload><source id=\"s\" to=\"g\" rate=\"50/s\"/></workload>"
                      "<gateway id=\"g\"/>"
                      "</architecture>",
                      &o);
        g = res_node(res, "g");
        assert_double_close(g->loss_probability.mean, 0.0, 0.0, 0.0);
        assert_double_close(g->failure_probability.mean, 0.0, 0.0, 0.0);
        assert_double_close(g->utilization.mean, 0.0, 0.0, 0.0);
        assert_double_close(g->mean_jobs.mean, 0.0, 0.0, 0.0);
        assert_sim_close(g->throughput, 50.0, 0.02);
        ac_sim_result_free(res);
    }
}

/* A gateway answers 504 when the downstream work takes longer than its timeout: behind it a
 * function without queueing (d = 0.5 s) and a fan-out of two to a pool without queueing
 * (Exp(1) each) joined again; the request fails when X + max(Y1, Y2) > T = 2 s. */
static void test_gateway_504(void **state)
{
    ac_sim_options o = fixed_opt(45, 10, 4000, 400);
    ac_sim_result *res;
    const ac_sim_node_result *g;
    /* X ~ Exp(mean 0.5), M = max of two Exp(1): P(M > t) = 2 e^{-t} - e^{-2t}, and
     * P(X + M > 2) = P(X > 2) + int_0^2 2 e^{-2x} P(M > 2 - x) dx = 4 e^{-2} - 7 e^{-4} */
    const double exact = 4 * exp(-2.0) - 7 * exp(-4.0);
    (void)state;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"g\" rate=\"1/s\"/></workload>"
                  "<gateway id=\"g\" timeout=\"2s\"/>"
                  "<function id=\"f\" concurrency=\"1000\" duration=\"500ms\" timeout=\"10h\" "
                  "keep-alive=\"10h\"/>"
                  "<pool id=\"p\" servers=\"1000\" service-time=\"1s\" dispatch=\"shared-queue\"/>"
                  "<pool id=\"j\" servers=\"1\" service-rate=\"1000000/s\"/>"
                  "<route from=\"g\" to=\"f\"/>"
                  "<route from=\"f\" to=\"p\" fanout=\"2\"/>"
                  "<route from=\"p\" to=\"j\" fanin=\"2\"/>"
                  "</architecture>",
                  &o);
    g = res_node(res, "g");
    show("gateway 504 fraction (T = 2 s)", g->timeout_fraction, exact);
    assert_in_ci_abs(g->timeout_fraction, exact, 2e-5); /* the join pool's microseconds */
    assert_in_ci_abs(g->failure_probability, exact, 2e-5);
    assert_in_ci_abs(res->entries[0].failure_probability, exact, 2e-5);
    assert_sim_close(res_node(res, "j")->throughput, 1.0, 0.05);
    assert_double_close(g->loss_probability.mean, 0.0, 0.0, 0.0);
    ac_sim_result_free(res);
}

static const char mixed_serverless_xml[] =
    "<architecture format=\"1\">"
    "<workload><source id=\"s\" to=\"g\" rate=\"20/s\" scv=\"2\"/>"
    "<population id=\"p\" size=\"3\" think-time=\"1s\" to=\"sf\"/></workload>"
    "<gateway id=\"g\" rate-limit=\"25/s\" burst=\"10\" timeout=\"400ms\"/>"
    "<function id=\"sf\" concurrency=\"8\" duration=\"200ms\" cold-start=\"500ms\" "
    "keep-alive=\"20s\" fail-prob=\"5%\" retries=\"1\" timeout=\"1s\"/>"
    "<queue id=\"q\" capacity=\"200\" batch-size=\"3\" max-consumers=\"4\" "
    "visibility-timeout=\"2s\" max-receives=\"2\"/>"
    "<function id=\"af\" invocation=\"async\" concurrency=\"6\" duration=\"300ms\" "
    "cold-start=\"1s\" keep-alive=\"10s\" scale-rate=\"2/s\" fail-prob=\"10%\" timeout=\"1s\"/>"
    "<pool id=\"db\" servers=\"2\" service-rate=\"40/s\"/>"
    "<route from=\"g\" to=\"sf\"/>"
    "<route from=\"sf\" to=\"q\" p=\"0.7\"/>"
    "<route from=\"q\" to=\"af\" fanout=\"2\"/>"
    "<route from=\"af\" to=\"db\" fanin=\"2\"/>"
    "</architecture>";

/* Same seed, same bytes; another seed, other bytes; the new KPIs are in the text. */
static void test_serverless_determinism(void **state)
{
    ac_sim_options o = fixed_opt(46, 3, 300, 30);
    ac_sim_result *r1, *r2, *r3;
    char *s1 = NULL, *s2 = NULL, *s3 = NULL;
    ac_error err = {0};
    (void)state;
    r1 = sim_xml(mixed_serverless_xml, &o);
    r2 = sim_xml(mixed_serverless_xml, &o);
    o.seed = 47;
    r3 = sim_xml(mixed_serverless_xml, &o);
    assert_int_equal(ac_sim_result_format(r1, &s1, &err), 0);
    assert_int_equal(ac_sim_result_format(r2, &s2, &err), 0);
    assert_int_equal(ac_sim_result_format(r3, &s3, &err), 0);
    assert_string_equal(s1, s2);
    assert_string_not_equal(s1, s3);
    assert_true(r1->events == r2->events);
    assert_non_null(strstr(s1, "node sf cold_start_fraction "));
    assert_non_null(strstr(s1, "node sf throttle_fraction "));
    assert_non_null(strstr(s1, "node af mean_instances "));
    assert_non_null(strstr(s1, "node q dead_letter_fraction "));
    assert_non_null(strstr(s1, "node q backlog_fraction "));
    assert_non_null(strstr(s1, "node g throttle_fraction "));
    assert_null(strstr(s1, "node db cold_start_fraction"));
    /* every kind did something: throttles, 504s, dead letters, failed polled executions,
     * fan-in after the queue; no more than M consumer executions */
    assert_true(res_node(r1, "sf")->throttle_fraction.mean > 0);
    assert_true(res_node(r1, "sf")->retries_per_job.mean > 0);
    assert_true(res_node(r1, "g")->timeout_fraction.mean > 0);
    assert_true(res_node(r1, "q")->dead_letter_fraction.mean > 0);
    assert_true(res_node(r1, "q")->utilization.mean <= 1.0);
    assert_true(res_node(r1, "af")->failure_probability.mean > 0);
    assert_true(res_node(r1, "af")->mean_instances.mean > 0);
    assert_true(res_node(r1, "db")->throughput.mean > 0);
    assert_true(r1->entries[0].failure_probability.mean > 0);
    assert_true(r1->entries[1].throughput.mean > 0);
    free(s1);
    free(s2);
    free(s3);
    ac_sim_result_free(r1);
    ac_sim_result_free(r2);
    ac_sim_result_free(r3);
}

/* samples/serverless-pipeline.xml: gateway, sync ingest (C = 70, 1000/s x 60 ms), queue,
 * 8-way fan-out, fan-in: ingest throttles Erlang-B(70, 60) = 0.0237 (the gateway's 1500/s
 * bucket of 300 tokens rejects nothing at 1000/s); the run starts cold (ingest's and shard's
 * instances are made in the first seconds), hence the 30 s warm-up. */
static void test_serverless_sample(void **state)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_sim_options o = fixed_opt(48, 6, 90, 30);
    ac_sim_result *res = NULL;
    const ac_sim_node_result *ingest;
    const double B = ac_test_erlang_b(70, 60.0);
    (void)state;
    ac_diag_list_init(&d);
    assert_int_equal(
        ac_parser_parse_file(AC_SOURCE_DIR "/samples/serverless-pipeline.xml", &m, &d, &err), 0);
    ac_diag_list_clear(&d);
    assert_int_equal(ac_sim_run(m, &o, &res, &err), 0);
    ingest = res_node(res, "ingest");
    show("sample: ingest throttle_fraction", ingest->throttle_fraction, B);
    print_message("  %llu events; end to end p95 %.3f s, failure %.4f\n", res->events,
                  res->entries[0].p95_response_time.mean, res->entries[0].failure_probability.mean);
    assert_double_close(B, 0.0237, 0.0, 0.01);
    assert_sim_close(ingest->throttle_fraction, B, 0.2);
    assert_sim_close(res->entries[0].failure_probability, B, 0.2);
    assert_double_close(res_node(res, "api")->loss_probability.mean, 0.0, 0.0, 0.0);
    assert_double_close(res_node(res, "jobs")->dead_letter_fraction.mean, 0.0, 0.0, 0.0);
    assert_sim_close(res_node(res, "shard")->arrival_rate, 8 * 1000 * (1 - B), 0.02);
    assert_sim_close(res_node(res, "aggregate")->arrival_rate, 1000 * (1 - B), 0.02);
    assert_true(res->entries[0].p95_response_time.mean < 2.0);
    ac_sim_result_free(res);
    ac_model_free(m);
}

static void test_serverless_errors(void **state)
{
    ac_model *m;
    ac_sim_options o = fixed_opt(1, 2, 100, 10);
    ac_sim_result *res = NULL;
    ac_error err = {0};
    size_t jobs[1] = {1};
    ac_sim_initial_state init = {0, jobs, 1};
    (void)state;
    /* polling through a link is not simulated */
    m = parse_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"q\" rate=\"1/s\"/></workload>"
                  "<queue id=\"q\"/><function id=\"f\" duration=\"1s\" timeout=\"10s\"/>"
                  "<route from=\"q\" to=\"f\"/><link from=\"q\" to=\"f\" latency=\"1ms\"/>"
                  "</architecture>");
    assert_int_equal(ac_sim_run(m, &o, &res, &err), AC_EINVAL);
    assert_null(res);
    assert_non_null(strstr(err.message, "link"));
    ac_model_free(m);
    /* a cycle that takes no time: gateway -> queue -> (hand-off) gateway */
    m = parse_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"g\" rate=\"1/s\"/></workload>"
                  "<gateway id=\"g\"/><queue id=\"q\"/>"
                  "<pool id=\"p\" servers=\"1\" service-rate=\"10/s\"/>"
                  "<route from=\"g\" to=\"q\"/><route from=\"q\" to=\"g\" p=\"0.5\"/>"
                  "<route from=\"q\" to=\"p\" p=\"0.5\"/>"
                  "</architecture>");
    ac_error_clear(&err);
    assert_int_equal(ac_sim_run(m, &o, &res, &err), AC_EINVAL);
    assert_non_null(strstr(err.message, "cycle"));
    /* through a link with latency, time passes: simulated (half the requests go round) */
    m->links = calloc(1, sizeof *m->links);
    assert_non_null(m->links);
    m->nlinks = 1;
    m->links[0].from = 1;
    m->links[0].to = 0;
    m->links[0].capacity = INFINITY;
    m->links[0].latency = 0.001;
    m->links[0].buffer = AC_UNBOUNDED;
    ac_error_clear(&err);
    o = fixed_opt(2, 10, 2000, 100);
    assert_int_equal(ac_sim_run(m, &o, &res, &err), 0);
    assert_sim_close(res->nodes[0].arrival_rate, 2.0, 0.05);
    ac_sim_result_free(res);
    res = NULL;
    ac_model_free(m);
    /* an initial state is for pools only; invalid function parameters */
    m = parse_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"f\" rate=\"1/s\"/></workload>"
                  "<function id=\"f\" duration=\"1s\" timeout=\"10s\"/>"
                  "</architecture>");
    ac_error_clear(&err);
    o.initial = &init;
    o.ninitial = 1;
    assert_int_equal(ac_sim_run(m, &o, &res, &err), AC_EINVAL);
    o.initial = NULL;
    o.ninitial = 0;
    ac_error_clear(&err);
    m->nodes[0].u.function.fail_prob = 2;
    assert_int_equal(ac_sim_run(m, &o, &res, &err), AC_EINVAL);
    assert_non_null(strstr(err.message, "function 'f'"));
    ac_model_free(m);
}

/* The automatic horizon leaves the event budget room for the replications: a deep token
 * bucket refilling at 1/s has a time constant of 1000 s, and 20000 of them would be 2e9
 * arrivals; with a budget of 1e6 events the horizon is cut to fit. */
static void test_horizon_fits_budget(void **state)
{
    ac_sim_options o;
    ac_sim_result *res;
    (void)state;
    ac_sim_options_init(&o);
    o.max_events = 1000000;
    res = sim_xml("<architecture format=\"1\">"
                  "<workload><source id=\"s\" to=\"g\" rate=\"100/s\"/></workload>"
                  "<gateway id=\"g\" rate-limit=\"1/s\" burst=\"100\"/>"
                  "<pool id=\"p\" servers=\"1\" service-rate=\"1000/s\"/>"
                  "<route from=\"g\" to=\"p\"/></architecture>",
                  &o);
    /* the least number of replications (20) of 2 events per node and request fit */
    assert_true(res->horizon <= 1e6 / (20.0 * 2.0 * 3.0 * 100.0) * 1.0001);
    assert_true(res->budget_limited);
    assert_true(res->events <= 1100000); /* checked between replications */
    assert_true(res->replications >= 2);
    /* nearly everything is rejected: 1/s of 100/s admitted (the first 100 tokens are spent
       before the warm-up ends) */
    assert_double_close(res_node(res, "g")->throttle_fraction.mean, 0.99, 0.02, 0);
    ac_sim_result_free(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_horizon_fits_budget),
        cmocka_unit_test(test_function_erlang_b),
        cmocka_unit_test(test_function_retries),
        cmocka_unit_test(test_function_async_erlang_c),
        cmocka_unit_test(test_function_timeout_fail),
        cmocka_unit_test(test_function_cold_starts),
        cmocka_unit_test(test_function_scale_burst),
        cmocka_unit_test(test_function_provisioned_prewarm),
        cmocka_unit_test(test_queue_mmc),
        cmocka_unit_test(test_queue_dead_letters),
        cmocka_unit_test(test_queue_capacity),
        cmocka_unit_test(test_gateway_md1k),
        cmocka_unit_test(test_gateway_504),
        cmocka_unit_test(test_serverless_determinism),
        cmocka_unit_test(test_serverless_sample),
        cmocka_unit_test(test_serverless_errors),
    };
    return cmocka_run_group_tests_name("sim_serverless", tests, NULL, NULL);
}
