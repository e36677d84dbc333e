/*
 * The simulator on a large network and on its one-pool fast path (sim/routes.c, sim/fast.c),
 * against closed forms.
 *
 * - A chain of 5,000 M/M/1 pools (one server each, mu = 10/s, Poisson 1/s into the first):
 *   a Jackson tandem, every stage's sojourn Exp(mu - lambda) (Burke), so the mean end-to-end
 *   response is sum 1/(mu - lambda) = 5000/9 s and every node holds rho/(1 - rho) = 1/9 jobs
 *   on average. The routes' tables are CSR (no n x n table, no scan of every route per
 *   node): the model is built in C, so nothing else stands between it and the simulator.
 * - One pool on the fast path (power-of-d and random dispatch, a buffer): random dispatch
 *   makes every server an M/M/1 (M/M/1/K with a buffer: the loss is the closed form), and
 *   the request's end-to-end figures equal the pool's; the fast path (the pool's jump chain)
 *   and the generic loop (a heap of completion times) agree within their intervals.
 */
#include "helpers.h"

#include <gsl/gsl_cdf.h>

#include "archcheck/model.h"
#include "archcheck/sim.h"
#include "sim_ci.h"

/* A model of n single-dispatch pools (ids "p0", ...), one source into pool 0, and the
 * routes of a chain when chain is set; free with net_free. */
typedef struct net {
    ac_model m;
    char *ids; /* n x 24 */
    char src_id[4];
} net;

static void net_new(net *t, size_t n, size_t servers, double mu, double lambda, int chain)
{
    memset(t, 0, sizeof *t);
    t->m.nodes = calloc(n, sizeof *t->m.nodes);
    t->ids = calloc(n, 24);
    t->m.routes = chain && n > 1 ? calloc(n - 1, sizeof *t->m.routes) : NULL;
    t->m.sources = calloc(1, sizeof *t->m.sources);
    assert_non_null(t->m.nodes);
    assert_non_null(t->ids);
    assert_non_null(t->m.sources);
    t->m.nnodes = n;
    for (size_t i = 0; i < n; i++) {
        ac_node *nd = &t->m.nodes[i];
        snprintf(t->ids + 24 * i, 24, "p%zu", i);
        nd->id = t->ids + 24 * i;
        nd->kind = AC_NODE_POOL;
        nd->u.pool.servers = servers;
        nd->u.pool.service_rate = mu;
        nd->u.pool.dispatch = AC_DISPATCH_RANDOM;
        nd->u.pool.d = 2;
        nd->u.pool.buffer = AC_UNBOUNDED;
    }
    if (chain && n > 1) {
        assert_non_null(t->m.routes);
        t->m.nroutes = n - 1;
        for (size_t i = 0; i + 1 < n; i++) {
            t->m.routes[i].from = i;
            t->m.routes[i].to = i + 1;
            t->m.routes[i].p = 1.0;
            t->m.routes[i].fanout = t->m.routes[i].fanin = 1;
        }
    }
    memcpy(t->src_id, "src", 4);
    t->m.sources[0].id = t->src_id;
    t->m.sources[0].to = 0;
    t->m.sources[0].rate = lambda;
    t->m.sources[0].scv = 1.0;
    t->m.sources[0].profile = AC_NONE;
    t->m.nsources = 1;
}

static void net_free(net *t)
{
    free(t->m.nodes);
    free(t->m.routes);
    free(t->m.sources);
    free(t->ids);
}

static ac_sim_result *run(const ac_model *m, size_t reps, double horizon, double warmup,
                          unsigned long long seed)
{
    ac_sim_options o;
    ac_sim_result *res = NULL;
    ac_error err = {0};
    int rc;
    ac_sim_options_init(&o);
    o.seed = seed;
    o.replications = reps;
    o.horizon = horizon;
    o.warmup = warmup;
    o.max_events = 0;
    rc = ac_sim_run(m, &o, &res, &err);
    if (rc != 0)
        print_error("ac_sim_run: %d %s\n", rc, err.message);
    assert_int_equal(rc, 0);
    assert_non_null(res);
    return res;
}

/*
 * 5,000 M/M/1 stages in tandem, lambda 1/s, mu 10/s: E[T] = 5000 / 9 = 555.6 s. The
 * warm-up (650 s) is longer than any request's stay (sd sqrt(5000)/9 = 7.9 s), so the
 * requests completed in the window are not the short ones only; the flow front moves with
 * the requests, so each stage has run for as long as the request that reaches it.
 */
static void test_chain_5000(void **state)
{
    const size_t n = 5000;
    const double mu = 10.0, lambda = 1.0, rho = lambda / mu;
    net t;
    ac_sim_result *res;
    (void)state;
    net_new(&t, n, 1, mu, lambda, 1);
    res = run(&t.m, 4, 800.0, 650.0, 1);
    assert_int_equal(res->nnodes, n);
    /* the width: 2% (consecutive requests meet correlated queues); without queueing the
       mean would be n / mu = 500 s, 10% below */
    assert_in_ci(res->entries[0].mean_response_time, (double)n / (mu - lambda), 0.02);
    assert_in_ci(res->entries[0].throughput, lambda, 0.3);
    assert_in_ci(res->nodes[n - 1].throughput, lambda, 0.3);
    /* the means over every stage: the response 1/(mu - lambda) (a stage's own interval,
       from ~600 jobs, is 10-25% wide; each within it at 99.9% would be 5,000 checks: the
       average's error is below 1%, measured 0.04%), and the utilisation = throughput / mu
       (rho itself is only as close as the window's count of arrivals, which every stage
       shares: +-4% over 4 replications) */
    {
        double resp = 0, util = 0, thr = 0;
        for (size_t i = 0; i < n; i++) {
            resp += res->nodes[i].mean_response_time.mean;
            util += res->nodes[i].utilization.mean;
            thr += res->nodes[i].throughput.mean;
        }
        print_message("stage means: response %.6g (exact %.6g), utilisation %.6g (rho %.6g, "
                      "throughput / mu %.6g)\n",
                      resp / (double)n, 1.0 / (mu - lambda), util / (double)n, rho,
                      thr / (double)n / mu);
        assert_double_close(resp / (double)n, 1.0 / (mu - lambda), 0.0, 0.01);
        assert_double_close(util / (double)n, thr / (double)n / mu, 0.0, 0.01);
        assert_double_close(util / (double)n, rho, 0.0, 0.05);
    }
    ac_sim_result_free(res);
    net_free(&t);
}

/* One pool of random dispatch on the fast path: N M/M/1 queues at lambda / N each. */
static void test_fast_random(void **state)
{
    const size_t N = 10;
    const double mu = 1.0, lambda = 7.0, rho = lambda / (mu * (double)N);
    net t;
    ac_sim_result *res;
    (void)state;
    net_new(&t, 1, N, mu, lambda, 0);
    res = run(&t.m, 10, 20000.0, 2000.0, 3);
    assert_in_ci(res->nodes[0].mean_response_time, 1.0 / (mu - lambda / (double)N), 0.02);
    assert_in_ci(res->nodes[0].mean_jobs, rho / (1.0 - rho), 0.02);
    assert_in_ci(res->nodes[0].utilization, rho, 0.01);
    /* a request is one job: its end-to-end figures are the pool's */
    assert_double_close(res->entries[0].mean_response_time.mean,
                        res->nodes[0].mean_response_time.mean, 0.0, 1e-15);
    assert_double_close(res->entries[0].p95_response_time.mean,
                        res->nodes[0].p95_response_time.mean, 0.0, 1e-15);
    /* the response of an M/M/1 is Exp(mu - lambda_s): p95 = ln(20) / (mu - lambda_s) */
    assert_in_ci(res->nodes[0].p95_response_time, log(20.0) / (mu - lambda / (double)N), 0.03);
    ac_sim_result_free(res);
    net_free(&t);
}

/* M/M/1/K per server (K = buffer = 2 jobs): the loss is rho^K (1 - rho) / (1 - rho^(K+1)). */
static void test_fast_buffer(void **state)
{
    const size_t N = 10, K = 2;
    const double mu = 1.0, lambda = 12.0, r = lambda / (double)N / mu;
    const double loss = pow(r, (double)K) * (1 - r) / (1 - pow(r, (double)K + 1));
    net t;
    ac_sim_result *res;
    (void)state;
    net_new(&t, 1, N, mu, lambda, 0);
    t.m.nodes[0].u.pool.buffer = K;
    res = run(&t.m, 10, 20000.0, 2000.0, 5);
    assert_in_ci(res->nodes[0].loss_probability, loss, 0.02);
    assert_in_ci(res->entries[0].failure_probability, loss, 0.02);
    assert_in_ci(res->nodes[0].throughput, lambda * (1 - loss), 0.01);
    ac_sim_result_free(res);
    net_free(&t);
}

/* The fast path against the generic loop: a second source of rate 0 (it never fires and
 * draws nothing) takes the model off the fast path. The fast path simulates the pool's
 * Markov chain by its jump chain and the generic loop by a heap of completion times: the
 * same law, other draws, so each estimate must agree within the two replications' spread
 * (10 replications each: 2.5 x the combined 95% half-width is beyond the 99.9% quantile
 * of the difference of two such means, Welch's t on about 18 degrees of freedom). */
static void agree(const char *what, ac_sim_estimate a, ac_sim_estimate b)
{
    double tol = 2.5 * sqrt(a.ci95 * a.ci95 + b.ci95 * b.ci95);
    if (isnan(a.mean) && isnan(b.mean))
        return;
    if (!(fabs(a.mean - b.mean) <= tol)) {
        print_error("%s: fast %.17g +- %.17g, generic %.17g +- %.17g\n", what, a.mean, a.ci95,
                    b.mean, b.ci95);
        fail();
    }
}

static void fast_vs_generic(ac_dispatch dispatch, size_t d, int with_replacement, size_t buffer,
                            double lambda)
{
    net t;
    ac_source two[2], *one;
    ac_sim_result *fast, *gen;
    net_new(&t, 1, 20, 1.0, lambda, 0);
    t.m.nodes[0].u.pool.dispatch = dispatch;
    t.m.nodes[0].u.pool.d = d;
    t.m.nodes[0].u.pool.sampling =
        with_replacement ? AC_SAMPLING_WITH_REPLACEMENT : AC_SAMPLING_DISTINCT;
    t.m.nodes[0].u.pool.buffer = buffer;
    fast = run(&t.m, 10, 3000.0, 300.0, 11);
    one = t.m.sources;
    two[0] = two[1] = one[0];
    two[1].rate = 0.0;
    t.m.sources = two;
    t.m.nsources = 2;
    gen = run(&t.m, 10, 3000.0, 300.0, 11);
    t.m.sources = one;
    t.m.nsources = 1;
    {
        const ac_sim_node_result *a = &fast->nodes[0], *b = &gen->nodes[0];
        agree("arrival", a->arrival_rate, b->arrival_rate);
        agree("throughput", a->throughput, b->throughput);
        agree("utilization", a->utilization, b->utilization);
        agree("jobs", a->mean_jobs, b->mean_jobs);
        agree("loss", a->loss_probability, b->loss_probability);
        agree("mean", a->mean_response_time, b->mean_response_time);
        agree("p50", a->p50_response_time, b->p50_response_time);
        agree("p95", a->p95_response_time, b->p95_response_time);
        agree("p99", a->p99_response_time, b->p99_response_time);
        agree("attempts", a->attempt_rate, b->attempt_rate);
        agree("attempt loss", a->attempt_loss_fraction, b->attempt_loss_fraction);
        agree("failure", a->failure_probability, b->failure_probability);
    }
    {
        /* a request is one job: the entry's figures are the pool's, bit for bit, on both */
        const ac_sim_entry_result *a = &fast->entries[0];
        const ac_sim_node_result *b = &fast->nodes[0];
        assert_double_close(a->mean_response_time.mean, b->mean_response_time.mean, 0.0, 0.0);
        assert_double_close(a->p99_response_time.mean, b->p99_response_time.mean, 0.0, 0.0);
        agree("e2e mean", a->mean_response_time, gen->entries[0].mean_response_time);
        agree("e2e p95", a->p95_response_time, gen->entries[0].p95_response_time);
        agree("e2e throughput", a->throughput, gen->entries[0].throughput);
        agree("e2e failure", a->failure_probability, gen->entries[0].failure_probability);
    }
    ac_sim_result_free(fast);
    ac_sim_result_free(gen);
    net_free(&t);
}

static void test_fast_agrees_with_generic(void **state)
{
    (void)state;
    fast_vs_generic(AC_DISPATCH_POWER_OF_D, 2, 1, AC_UNBOUNDED, 18.0);
    fast_vs_generic(AC_DISPATCH_POWER_OF_D, 3, 1, 4, 19.5);
    fast_vs_generic(AC_DISPATCH_POWER_OF_D, 2, 0, AC_UNBOUNDED, 17.0);
    fast_vs_generic(AC_DISPATCH_RANDOM, 2, 1, 2, 22.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_5000),
        cmocka_unit_test(test_fast_random),
        cmocka_unit_test(test_fast_buffer),
        cmocka_unit_test(test_fast_agrees_with_generic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
