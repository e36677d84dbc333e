/*
 * Accuracy regressions of the serverless stages (queues, functions, gateways) found by the
 * accuracy harness (tests/accuracy.h): each analysis number is checked against the simulator
 * (its 95% interval plus the stated error) or a closed form.
 */
#include "helpers.h"
#include "fixture.h"

#include "analysis/internal.h"
#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/serverless.h"
#include "archcheck/sim.h"

typedef struct run {
    ac_model *m;
    ac_analysis *a;
    ac_sim_result *sim;
} run;

/* Parse xml, analyse it and (when reps > 0) simulate it with a fixed seed. */
static run run_xml(const char *xml, size_t reps, double horizon)
{
    run r = {NULL, NULL, NULL};
    fx f;
    ac_error err = {0};
    ac_analysis_options ao = no_sim();
    ao.transient = AC_TRANSIENT_NEVER;
    analyse_with(&f, xml, &ao); /* fixture.h; the model and analysis move into r */
    r.m = f.m;
    r.a = f.a;
    ac_diag_list_clear(&f.d);
    if (reps > 0) {
        ac_sim_options so;
        ac_sim_options_init(&so);
        so.seed = 7;
        so.replications = reps;
        so.horizon = horizon;
        so.warmup = horizon / 10.0;
        assert_int_equal(ac_sim_run(r.m, &so, &r.sim, &err), AC_OK);
    }
    return r;
}

/* The index of node `id` (the simulator's nodes are in model order). */
static size_t node_of(const run *r, const char *id)
{
    for (size_t i = 0; i < r->sim->nnodes; i++)
        if (strcmp(r->sim->nodes[i].id, id) == 0)
            return i;
    fail_msg("no node %s", id);
    return 0;
}

static void run_free(run *r)
{
    ac_sim_result_free(r->sim);
    ac_analysis_free(r->a);
    ac_model_free(r->m);
}

/* |analysis - simulation| <= stated x |analysis| + 2 x the simulation's 95% half-width (the
 * factor 2 keeps the test from failing 5% of the time by chance) + abs. */
static void assert_within(double a, double stated, ac_sim_estimate s, double abs_tol,
                          const char *what)
{
    double allowed = stated * fabs(a) + 2.0 * s.ci95 + abs_tol;
    if (!(fabs(a - s.mean) <= allowed)) {
        print_error("%s: analysis %.6g (stated %.3g) vs simulation %.6g +- %.3g\n", what, a, stated,
                    s.mean, s.ci95);
        fail();
    }
}

/* ---- 1. a queue's capacity holds the failed messages while they are invisible ---------- */

/* The accuracy harness's queue/53: 10.6% of the deliveries fail and stay invisible for
 * V = 14.6 s, about 77 messages on average against a capacity of 56. */
static const char QUEUE_CAPACITY[] =
    "<architecture name=\"q53\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"50/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"1\" max-consumers=\"6\" visibility-timeout=\"14.58s\"\n"
    "         max-receives=\"2\" capacity=\"56\"/>\n"
    "  <function id=\"f\" concurrency=\"12\" duration=\"0.0655674s\" timeout=\"3s\"\n"
    "            keep-alive=\"1000h\" fail-prob=\"0.1062\"/>\n"
    "  <route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_queue_capacity_counts_invisible(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_CAPACITY, 6, 3000.0);
    const ac_node_analysis *q = &r.a->nodes[node_of(&r, "q")];
    const ac_sim_node_result *s = &r.sim->nodes[node_of(&r, "q")];
    assert_non_null(q->queue);
    /* far above the M/M/6/56 of the executions alone (about 1%) */
    assert_true(q->loss_probability > 0.3);
    assert_within(q->loss_probability, q->expected_rel_error, s->loss_probability, 0.0, "loss");
    assert_within(q->mean_jobs, q->expected_rel_error, s->mean_jobs, 0.0, "messages held");
    /* the slots serve the admitted messages: per slot (the simulator's is per M = 6 = c) */
    assert_within(q->utilization, q->expected_rel_error, s->utilization, 0.0, "utilization");
    run_free(&r);
}

/* Without failures the truncated law is the M/M/c/K of the executions: Erlang's closed form
 * P(K) = a^K / (c! c^(K-c)) / sum_n w(n) (c = 2, K = 5, a = 1.5). */
static void test_queue_capacity_mmck(void **state)
{
    (void)state;
    ac_queue q;
    ac_function fn;
    ac_solver_queue_consumer cons = {&fn, 1, 0.0, 0.0, 0.0};
    ac_solver_queue_result r;
    ac_error err = {0};
    double w[6], z = 0.0, a = 1.5, mean = 0.0;
    memset(&q, 0, sizeof q);
    memset(&fn, 0, sizeof fn);
    q.capacity = 5;
    q.batch_size = 1;
    q.max_consumers = 2;
    q.visibility_timeout = 1e6;
    q.max_receives = 3;
    fn.concurrency = 10;
    fn.duration = 0.1;
    assert_int_equal(ac_solver_queue_solve(&q, 15.0, &cons, NULL, &r, &err), AC_OK);
    for (size_t n = 0; n <= 5; n++) {
        w[n] = n == 0 ? 1.0 : w[n - 1] * a / (double)(n < 2 ? n : 2);
        z += w[n];
    }
    for (size_t n = 0; n <= 5; n++)
        mean += (double)n * w[n] / z;
    assert_double_close(r.reject_probability, w[5] / z, 1e-9, 1e-6);
    assert_double_close(r.mean_messages, mean, 1e-9, 1e-6);
    ac_solver_queue_result_clear(&r);
}

/* ---- 2. a polled function runs greedy batches of min(b, visible) ------------------------ */

/* The harness's queue/89 made exponential: one slot, batches of up to 9, 90% of the slot's
 * capacity at batches of one. */
static const char QUEUE_BATCH[] =
    "<architecture name=\"q89\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"12.6/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"9\" max-consumers=\"7\" visibility-timeout=\"8s\"\n"
    "         max-receives=\"3\"/>\n"
    "  <function id=\"f\" concurrency=\"1\" duration=\"0.0714s\" keep-alive=\"1000h\"/>\n"
    "  <route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_queue_batches_fill(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_BATCH, 6, 3000.0);
    const ac_node_analysis *q = &r.a->nodes[node_of(&r, "q")];
    const ac_node_analysis *f = &r.a->nodes[node_of(&r, "f")];
    const ac_sim_node_result *sq = &r.sim->nodes[node_of(&r, "q")];
    const ac_sim_node_result *sf = &r.sim->nodes[node_of(&r, "f")];
    assert_true(q->utilization < 0.8); /* batches of one would say 0.9 */
    /* the simulator's is per max-consumers (7), the analysis's per slot (1) */
    assert_within(q->utilization / 7.0, q->expected_rel_error, sq->utilization, 0.0,
                  "q utilization");
    assert_within(f->utilization, f->expected_rel_error, sf->utilization, 0.0, "f utilization");
    assert_within(f->throughput, f->expected_rel_error, sf->throughput, 0.0, "f throughput");
    assert_within(q->mean_response_time, q->expected_rel_error, sq->mean_response_time, 0.0,
                  "time in queue");
    run_free(&r);
}

/* The M/M^[b]/c bulk-service queue in closed form: at b = 2, c = 1 the tail ratio solves
 * z^3 - (1 + r) z + r = (z - 1)(z^2 + z - r) = 0, z = (sqrt(1 + 4r) - 1) / 2, and
 * p(0) = 1 / (1 + r / (1 - z)) (r = 0.9); at b = 1 it is M/M/c: Erlang C, busy = a. */
static void test_queue_bulk_closed_form(void **state)
{
    (void)state;
    ac_queue q;
    ac_function fn;
    ac_solver_queue_consumer cons = {&fn, 1, 0.0, 0.0, 0.0};
    ac_solver_queue_result r;
    ac_error err = {0};
    double rr = 0.9, z = (sqrt(1.0 + 4.0 * rr) - 1.0) / 2.0;
    memset(&q, 0, sizeof q);
    memset(&fn, 0, sizeof fn);
    q.capacity = AC_UNBOUNDED;
    q.batch_size = 2;
    q.max_consumers = 1;
    q.visibility_timeout = 1e6;
    q.max_receives = 1;
    fn.concurrency = 1;
    fn.duration = 0.1;
    assert_int_equal(ac_solver_queue_solve(&q, rr * 10.0, &cons, NULL, &r, &err), AC_OK);
    assert_double_close(r.utilization, 1.0 - 1.0 / (1.0 + rr / (1.0 - z)), 1e-9, 1e-7);
    assert_double_close(r.wait_probability, (rr / (1.0 - z)) / (1.0 + rr / (1.0 - z)), 1e-9, 1e-7);
    ac_solver_queue_result_clear(&r);
    q.batch_size = 1;
    q.max_consumers = 3;
    fn.concurrency = 3;
    assert_int_equal(ac_solver_queue_solve(&q, 24.0, &cons, NULL, &r, &err), AC_OK);
    assert_double_close(r.utilization, 0.8, 1e-9, 1e-9);
    assert_double_close(r.wait_probability, ac_solver_erlang_c(3, 2.4), 1e-9, 1e-9);
    ac_solver_queue_result_clear(&r);
}

/* ---- 3. a rate limit smooths the stream it admits --------------------------------------- */

/* A bucket of one token admits the first arrival 1/r after the last admission: the admitted
 * stream is renewal with intervals 1/r + Exp(lambda), so the pool behind it is a GI/M/1 with
 * A(s) = e^{-s/r} lambda / (lambda + s), and T ~ Exp(mu (1 - sigma)), sigma = A(mu (1 -
 * sigma)) (Kleinrock §6.4). The Poisson M/M/1 at the admitted rate is 9% higher here. */
static void test_gateway_smooths_downstream(void **state)
{
    static const char xml[] = "<architecture name=\"gw\" format=\"1\">\n"
                              "  <workload><source id=\"src\" to=\"g\" rate=\"10/s\"/></workload>\n"
                              "  <gateway id=\"g\" rate-limit=\"12/s\" burst=\"1\"/>\n"
                              "  <pool id=\"p\" servers=\"1\" service-rate=\"6/s\"/>\n"
                              "  <route from=\"g\" to=\"p\"/>\n"
                              "</architecture>\n";
    double lam = 10.0, r = 12.0, mu = 6.0, sigma = 0.5, t_exact, adm, t_poisson;
    run rr;
    const ac_node_analysis *p;
    (void)state;
    for (int it = 0; it < 200; it++)
        sigma = exp(-mu * (1.0 - sigma) / r) * lam / (lam + mu * (1.0 - sigma));
    t_exact = 1.0 / (mu * (1.0 - sigma));
    adm = lam / (1.0 + lam / r); /* 1 - P_429 = 1 / (1 + rho) */
    t_poisson = 1.0 / (mu - adm);
    assert_true(t_poisson > 1.05 * t_exact);
    rr = run_xml(xml, 0, 0.0);
    assert_int_equal(rr.m->nodes[1].kind, AC_NODE_POOL); /* g, p in model order */
    p = &rr.a->nodes[1];
    assert_double_close(p->throughput, adm, 1e-9, 1e-9);
    if (!(fabs(p->mean_response_time - t_exact) <= p->expected_rel_error * p->mean_response_time)) {
        print_error("mean %.6g (stated %.3g) vs GI/M/1 %.6g\n", p->mean_response_time,
                    p->expected_rel_error, t_exact);
        fail();
    }
    {
        double p95 = -log(0.05) * t_exact;
        assert_true(fabs(p->p95 - p95) <= p->expected_rel_error * p->p95);
    }
    run_free(&rr);
}

/* ---- 4. the cold-start fraction's stated error covers the first-passage approximation --- */

/* The harness's function/196: lambda tau = 34 arrivals per keep-alive; the exponential
 * first passage gives 0.0021, the simulator 0.009 (outside the former 50%). */
static void test_cold_fraction_error_covers(void **state)
{
    static const char xml[] =
        "<architecture name=\"f196\" format=\"1\">\n"
        "  <workload><source id=\"src\" to=\"f\" rate=\"5.893/s\"/></workload>\n"
        "  <function id=\"f\" concurrency=\"6\" duration=\"0.5321s\" timeout=\"4.26s\"\n"
        "            cold-start=\"0.574s\" keep-alive=\"5.74s\"/>\n"
        "</architecture>\n";
    run r = run_xml(xml, 8, 4000.0);
    const ac_solver_function_result *f = r.a->nodes[0].function;
    ac_sim_estimate s = r.sim->nodes[0].cold_start_fraction;
    (void)state;
    assert_non_null(f);
    /* the simulator is outside the former 50% */
    assert_true(fabs(f->cold_probability - s.mean) > 0.5 * f->cold_probability + 2.0 * s.ci95);
    assert_within(f->cold_probability, f->cold_rel_error, s, 0.0, "cold-start fraction");
    run_free(&r);
}

/* ---- 5. a percentile at the atom of zero wait is 0, not a denormal ---------------------- */

/* M/M/2 of the executions, a = 1.6 (no failures, no timeout): P(W > t) = C(2, a)
 * e^{-(2 mu - lambda) t}, C(2, 1.6) = 0.711: the median is ln(C / 0.5) / (2 mu - lambda); at
 * a = 0.5, C = 0.1 < 0.5: the median is exactly 0 (was 3e-64, which no relative error
 * bounds against a simulated 0), and the p95 ln(C / 0.05) / (2 mu - lambda). */
static void test_queue_percentile_at_zero(void **state)
{
    ac_queue q;
    ac_function fn;
    ac_solver_queue_consumer cons = {&fn, 1, 0.0, 0.0, 0.0};
    ac_solver_queue_result r;
    ac_error err = {0};
    (void)state;
    memset(&q, 0, sizeof q);
    memset(&fn, 0, sizeof fn);
    q.capacity = AC_UNBOUNDED;
    q.batch_size = 1;
    q.max_consumers = 2;
    q.visibility_timeout = 1e6;
    q.max_receives = 1;
    fn.concurrency = 2;
    fn.duration = 0.1;
    assert_int_equal(ac_solver_queue_solve(&q, 5.0, &cons, NULL, &r, &err), AC_OK);
    {
        double c = ac_solver_erlang_c(2, 0.5), decay = 20.0 - 5.0;
        assert_true(c < 0.5 && c > 0.05);
        assert_true(r.p50 == 0.0);
        assert_double_close(r.p95, log(c / 0.05) / decay, 1e-12, 1e-6);
    }
    ac_solver_queue_result_clear(&r);
    assert_int_equal(ac_solver_queue_solve(&q, 16.0, &cons, NULL, &r, &err), AC_OK);
    {
        double c = ac_solver_erlang_c(2, 1.6), decay = 20.0 - 16.0;
        assert_true(c > 0.5);
        assert_double_close(r.p50, log(c / 0.5) / decay, 1e-12, 1e-6);
    }
    ac_solver_queue_result_clear(&r);
}

/* ---- 6. the simulation lookup compares like with like ----------------------------------- */

/* A gateway whose downstream often outlasts its timeout (504s), and a queue with more
 * max-consumers (8) than its consumer's concurrency (2 slots). */
static const char LOOKUP[] =
    "<architecture name=\"lookup\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"g\" rate=\"100/s\"/>\n"
    "            <source id=\"s2\" to=\"q\" rate=\"10/s\"/></workload>\n"
    "  <gateway id=\"g\" rate-limit=\"90/s\" burst=\"2\" timeout=\"50ms\"/>\n"
    "  <pool id=\"p\" servers=\"20\" service-time=\"40ms\"/>\n"
    "  <queue id=\"q\" batch-size=\"1\" max-consumers=\"8\" visibility-timeout=\"30s\"/>\n"
    "  <function id=\"f\" concurrency=\"2\" duration=\"0.1s\" keep-alive=\"1000h\"/>\n"
    "  <route from=\"g\" to=\"p\"/><route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_sim_lookup_like_with_like(void **state)
{
    (void)state;
    run r = run_xml(LOOKUP, 0, 0.0);
    ac_analysis *a = r.a;
    ac_analysis_options ao;
    ac_error err = {0};
    double mean = 0.0, ci = 0.0;
    size_t g, q;
    ac_analysis_options_init(&ao);
    ao.sim.seed = 5;
    ao.sim.replications = 6;
    ao.sim.horizon = 2000.0;
    ao.sim.warmup = 200.0;
    assert_int_equal(ac_an_simulate(r.m, &ao, a, &err), AC_OK);
    assert_non_null(a->sim);
    r.sim = NULL; /* owned by the analysis */
    for (g = 0; strcmp(a->sim->nodes[g].id, "g") != 0; g++)
        ;
    for (q = 0; strcmp(a->sim->nodes[q].id, "q") != 0; q++)
        ;
    /* the 429s alone (M/D/1/K blocking), not 429 + 504 (about a quarter of the requests) */
    assert_int_equal(ac_an_sim_lookup(a, r.m, AC_OUT_LOSS, 0.0, g, &mean, &ci), 1);
    assert_true(a->sim->nodes[g].failure_probability.mean > mean + 0.1);
    assert_within(a->nodes[g].loss_probability, a->nodes[g].expected_rel_error,
                  (ac_sim_estimate){.mean = mean, .ci95 = ci, .n = 6}, 0.0, "gateway 429s");
    /* per slot: lambda d / c = 10 x 0.1 / 2 (M/M/2), not per max-consumers (0.125) */
    assert_int_equal(ac_an_sim_lookup(a, r.m, AC_OUT_UTILIZATION, 0.0, q, &mean, &ci), 1);
    assert_double_close(mean, 0.5, 2.0 * ci + 1e-3, 0.0);
    run_free(&r);
}

/* ---- 9. a queue's throughput is its messages delivered (output.md: requests, not attempts) */

/* 30% of the executions fail, R = 2: p_del = 1 - 0.7 (1 - e^{-3 / 0.1}), receives 1 + p_del,
 * delivered lambda (1 - p_del^2); the consumer sees every receive. */
static const char QUEUE_THROUGHPUT[] =
    "<architecture name=\"thr\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"10/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"1\" max-consumers=\"4\" visibility-timeout=\"5s\"\n"
    "         max-receives=\"2\"/>\n"
    "  <function id=\"f\" concurrency=\"8\" duration=\"0.1s\" timeout=\"3s\"\n"
    "            keep-alive=\"1000h\" fail-prob=\"0.3\"/>\n"
    "  <route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_queue_throughput_delivered(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_THROUGHPUT, 6, 3000.0);
    size_t qi = node_of(&r, "q"), fi = node_of(&r, "f");
    const ac_node_analysis *q = &r.a->nodes[qi], *f = &r.a->nodes[fi];
    double pd = 1.0 - 0.7 * -expm1(-30.0);
    assert_double_close(q->throughput, 10.0 * (1.0 - pd * pd), 0.0, 1e-9);
    assert_double_close(q->loss_probability, pd * pd, 0.0, 1e-9);
    assert_double_close(f->arrival_rate, 10.0 * (1.0 + pd), 0.0, 1e-9);
    assert_within(q->throughput, 0.0, r.sim->nodes[qi].throughput, 0.0, "delivered");
    assert_within(f->arrival_rate, 0.0, r.sim->nodes[fi].arrival_rate, 0.0, "receives");
    run_free(&r);
}

/* ---- 10. dead-lettered messages are held R x V ------------------------------------------ */

/* The harness's queue/43 shape: R = 1, 30% of the deliveries fail and their messages are held
 * invisible V = 20 s before the dead-letter queue: lambda p_del V = 120 of the ~121 held (the
 * formula conditioned on delivery counted none of them). */
static const char QUEUE_DEAD_HELD[] =
    "<architecture name=\"dlq\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"20/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"1\" max-consumers=\"10\" visibility-timeout=\"20s\"\n"
    "         max-receives=\"1\"/>\n"
    "  <function id=\"f\" concurrency=\"10\" duration=\"0.05s\" timeout=\"3s\"\n"
    "            keep-alive=\"1000h\" fail-prob=\"0.3\"/>\n"
    "  <route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_queue_dead_letters_held(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_DEAD_HELD, 6, 2000.0);
    size_t qi = node_of(&r, "q");
    const ac_node_analysis *q = &r.a->nodes[qi];
    assert_true(q->mean_jobs > 120.0);
    assert_within(q->mean_jobs, q->expected_rel_error, r.sim->nodes[qi].mean_jobs, 0.0, "held");
    run_free(&r);
}

/* ---- 11. a capacity the greedy batches never reach keeps the bulk law ------------------- */

/* The harness's queue/286: batches of one would load 2 slots to 0.78 (mean wait 0.65 s); the
 * greedy batches of up to 10 wait about 0.1 s, and capacity 385 is never reached. */
static const char QUEUE_BULK_CAPACITY[] =
    "<architecture name=\"q286\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"3.725/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"10\" max-consumers=\"2\" visibility-timeout=\"6.03s\"\n"
    "         max-receives=\"4\" capacity=\"385\"/>\n"
    "  <function id=\"f\" concurrency=\"8\" duration=\"0.4182s\" timeout=\"3.35s\"\n"
    "            keep-alive=\"1000h\"/>\n"
    "  <route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_queue_bulk_capacity_unreached(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_BULK_CAPACITY, 6, 3000.0);
    size_t qi = node_of(&r, "q");
    const ac_node_analysis *q = &r.a->nodes[qi];
    const ac_sim_node_result *s = &r.sim->nodes[qi];
    assert_true(q->mean_response_time < 0.3);
    assert_within(q->mean_response_time, q->expected_rel_error, s->mean_response_time, 0.0, "wait");
    assert_within(q->p95, q->expected_rel_error, s->p95_response_time, 0.0, "p95");
    assert_within(q->mean_jobs, q->expected_rel_error, s->mean_jobs, 0.0, "held");
    run_free(&r);
}

/* ---- 12. a fan-out's deliveries wait for k consumers: an upper bound -------------------- */

/* Fan-out 2, max-consumers 4 binding (concurrency 50): a delivery waits until 2 of the 4
 * consumers are free, longer than 4 independent executions would (M/M/4 at 0.6); the two
 * super-slots (each a delivery's 2 executions, 0.3 s on average) bound it from above. */
static const char QUEUE_FANOUT[] =
    "<architecture name=\"fan\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"6/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"1\" max-consumers=\"4\" visibility-timeout=\"20s\"\n"
    "         max-receives=\"3\"/>\n"
    "  <function id=\"f\" concurrency=\"50\" duration=\"0.2s\" timeout=\"3s\"\n"
    "            keep-alive=\"1000h\"/>\n"
    "  <route from=\"q\" to=\"f\" fanout=\"2\"/>\n"
    "</architecture>\n";

static void test_queue_fanout_upper(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_FANOUT, 6, 3000.0);
    size_t qi = node_of(&r, "q");
    const ac_node_analysis *q = &r.a->nodes[qi];
    const ac_sim_node_result *s = &r.sim->nodes[qi];
    double a = 6.0 * 2.0 * 0.2, mmc = ac_solver_erlang_c(4, a) * 0.2 / (4.0 - a);
    assert_true(q->expected_rel_error <= 1.0);
    assert_true(q->mean_response_time >=
                s->mean_response_time.mean - 2.0 * s->mean_response_time.ci95);
    assert_true(s->mean_response_time.mean > mmc); /* the M/M/c of executions is too low */
    assert_within(q->mean_response_time, q->expected_rel_error, s->mean_response_time, 0.0, "wait");
    assert_within(q->p95, q->expected_rel_error, s->p95_response_time, 0.0, "p95");
    assert_within(q->p99, q->expected_rel_error, s->p99_response_time, 0.0, "p99");
    run_free(&r);
}

/* ---- 13. a polled function's cold starts: its queue runs at most max-consumers ---------- */

/* One consumer (max-consumers 1, concurrency 50): the executions are an M/G/1 queue, and an
 * execution starts cold exactly when it ends an idle period (probability 1 - rho, PASTA)
 * longer than the keep-alive (exponential of rate lambda); one that starts as the previous
 * ends reuses its instance:
 *     p = (1 - lambda (d + p c0)) e^{-lambda tau}
 *   = (1 - lambda d) e^{-lambda tau} / (1 + lambda c0 e^{-lambda tau}) = 0.05298
 * (lambda 2/s, d 0.3 s, c0 0.08 s, tau 1 s). Counting 50 instances as a loss system gave
 * several times that, and one instance without the queue's warm starts e^{-2} = 0.135. */
static const char QUEUE_POLLED_COLD[] =
    "<architecture name=\"cold\" format=\"1\">\n"
    "  <workload><source id=\"src\" to=\"q\" rate=\"2/s\"/></workload>\n"
    "  <queue id=\"q\" batch-size=\"1\" max-consumers=\"1\" visibility-timeout=\"30s\"\n"
    "         max-receives=\"3\"/>\n"
    "  <function id=\"f\" concurrency=\"50\" duration=\"0.3s\" timeout=\"10s\"\n"
    "            cold-start=\"0.08s\" keep-alive=\"1s\"/>\n"
    "  <route from=\"q\" to=\"f\"/>\n"
    "</architecture>\n";

static void test_queue_polled_cold(void **state)
{
    (void)state;
    run r = run_xml(QUEUE_POLLED_COLD, 6, 5000.0);
    size_t fi = node_of(&r, "f");
    const ac_node_analysis *f = &r.a->nodes[fi];
    double g = exp(-2.0), p = 0.4 * g / (1.0 + 0.16 * g);
    assert_non_null(f->function);
    /* the simulator follows the closed form */
    assert_within(p, 0.0, r.sim->nodes[fi].cold_start_fraction, 0.0, "simulated cold");
    /* and so does the analysis (the fixed point of the occupancy) */
    assert_double_close(f->function->cold_probability, p, 0.0, 0.01);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_capacity_counts_invisible),
        cmocka_unit_test(test_queue_capacity_mmck),
        cmocka_unit_test(test_queue_batches_fill),
        cmocka_unit_test(test_queue_bulk_closed_form),
        cmocka_unit_test(test_gateway_smooths_downstream),
        cmocka_unit_test(test_cold_fraction_error_covers),
        cmocka_unit_test(test_queue_percentile_at_zero),
        cmocka_unit_test(test_sim_lookup_like_with_like),
        cmocka_unit_test(test_queue_throughput_delivered),
        cmocka_unit_test(test_queue_dead_letters_held),
        cmocka_unit_test(test_queue_bulk_capacity_unreached),
        cmocka_unit_test(test_queue_fanout_upper),
        cmocka_unit_test(test_queue_polled_cold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
