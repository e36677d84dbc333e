/*
 * The simulator's replications (tests for include/archcheck/sim.h): determinism, the
 * automatic number of replications, refused options, the generator (sim/rng.h) and
 * replications on threads. Models built by hand (tests/sim_net.h), fixed seeds.
 */
#include "helpers.h"

#include <gsl/gsl_cdf.h>

#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "archcheck/solver.h"
#include "sim/rng.h"

#include "sim_net.h"

static char pop_id[] = "p";

/* ---- replications, determinism, errors ------------------------------------------------------- */

static void build_mixed(test_net *t)
{
    ac_route *r;
    net_init(t);
    net_pool(t, 4, 2.0, AC_DISPATCH_POWER_OF_D);
    net_pool(t, 3, 1.0, AC_DISPATCH_JIQ);
    net_pool(t, 2, 3.0, AC_DISPATCH_SHARED_QUEUE);
    r = net_route(t, 0, 1, 0.5);
    r->fanout = 2;
    net_route(t, 1, 2, 1.0)->fanin = 2;
    net_route(t, 0, 2, 0.3)->parallel = 1;
    t->nodes[1].u.pool.timeout = 3;
    t->nodes[1].u.pool.retries = 1;
    t->links[0].from = 0;
    t->links[0].to = 1;
    t->links[0].capacity = 20;
    t->links[0].latency = 0.01;
    t->links[0].buffer = 5;
    t->m.nlinks = 1;
    net_source(t, 0, 3.0)->scv = 2.0;
    t->pops[0].id = pop_id;
    t->pops[0].to = 2;
    t->pops[0].size = 3;
    t->pops[0].think_time = 1;
    t->m.npopulations = 1;
}

static void test_determinism(void **state)
{
    test_net t;
    ac_sim_options o = fixed_opt(123, 3, 300, 30);
    ac_sim_result *r1, *r2, *r3;
    char *s1 = NULL, *s2 = NULL, *s3 = NULL;
    ac_error err = {0};
    (void)state;
    build_mixed(&t);
    r1 = run_ok(&t, &o);
    r2 = run_ok(&t, &o);
    o.seed = 124;
    r3 = run_ok(&t, &o);
    assert_int_equal(ac_sim_result_format(r1, &s1, &err), 0);
    assert_int_equal(ac_sim_result_format(r2, &s2, &err), 0);
    assert_int_equal(ac_sim_result_format(r3, &s3, &err), 0);
    assert_string_equal(s1, s2);
    assert_string_not_equal(s1, s3);
    assert_true(r1->nodes[0].mean_jobs.mean != r3->nodes[0].mean_jobs.mean);
    assert_true(r1->events == r2->events);
    /* every request completes (none stuck in a join): the successful ones per second are
       the arrivals that did not fail */
    assert_double_close(r1->entries[0].throughput.mean,
                        r1->entries[0].arrival_rate.mean *
                            (1.0 - r1->entries[0].failure_probability.mean),
                        0.0, 0.02);
    assert_true(r1->entries[1].throughput.mean > 0);
    assert_non_null(strstr(s1, "node a mean_jobs "));
    assert_non_null(strstr(s1, "population p mean_response_time "));
    free(s1);
    free(s2);
    free(s3);
    ac_sim_result_free(r1);
    ac_sim_result_free(r2);
    ac_sim_result_free(r3);
    /* seeds 0 and 4357 were the same mt19937 seed; the mixer keeps them apart */
    assert_true(ac_sim_seed_mix(0, 0) != ac_sim_seed_mix(4357, 0));
    assert_true(ac_sim_seed_mix(1, 0) != ac_sim_seed_mix(1, 1));
}

static void test_auto_replications(void **state)
{
    test_net t;
    ac_sim_options o;
    ac_sim_result *res;
    (void)state;
    net_init(&t);
    net_pool(&t, 1, 1.0, AC_DISPATCH_RANDOM);
    net_source(&t, 0, 0.5);
    ac_sim_options_init(&o);
    o.seed = 9;
    o.horizon = 1000;
    o.warmup = 100;
    o.rel_precision = 0.03;
    res = run_ok(&t, &o);
    assert_true(res->converged);
    assert_true(res->rel_halfwidth <= 0.03);
    assert_true(res->replications >= o.min_replications);
    assert_true(res->replications < o.max_replications);
    assert_true(res->entries[0].mean_response_time.ci95 <=
                0.03 * res->entries[0].mean_response_time.mean);
    ac_sim_result_free(res);

    /* an event budget stops early, unconverged */
    o.rel_precision = 0.0001;
    o.max_events = 20000;
    res = run_ok(&t, &o);
    assert_false(res->converged);
    assert_true(res->replications >= 2 && res->replications <= 20);
    assert_true(res->events <= 20000 + 1);
    ac_sim_result_free(res);

    /* a wall-clock budget stops after the first two replications */
    o.max_events = 0;
    o.max_wall_seconds = 1e-9;
    res = run_ok(&t, &o);
    assert_int_equal(res->replications, 2);
    ac_sim_result_free(res);

    /* defaults: automatic horizon (20000 x the longest time constant, 2 s) */
    ac_sim_options_init(&o);
    o.replications = 2;
    res = run_ok(&t, &o);
    assert_double_close(res->horizon, 40000.0, 0.0, 1e-12);
    assert_double_close(res->warmup, 4000.0, 0.0, 1e-12);
    ac_sim_result_free(res);
}

static void test_errors(void **state)
{
    test_net t;
    ac_sim_options o = fixed_opt(1, 2, 100, 10);
    ac_sim_result *res = NULL;
    ac_error err = {0};
    (void)state;
    ac_sim_result_free(NULL);
    net_init(&t);
    net_pool(&t, 1, 1.0, AC_DISPATCH_RANDOM);
    net_source(&t, 0, 0.5);
    o.warmup = 200;
    assert_int_equal(ac_sim_run(&t.m, &o, &res, &err), AC_EINVAL);
    assert_null(res);
    assert_true(err.message[0] != '\0');

    /* a function with invalid parameters (functions are simulated: see the tests below) */
    ac_error_clear(&err);
    o.warmup = 10;
    {
        const ac_node saved = t.nodes[0];
        memset(&t.nodes[0].u, 0, sizeof t.nodes[0].u);
        t.nodes[0].kind = AC_NODE_FUNCTION;
        t.nodes[0].u.function.concurrency = 1;
        t.nodes[0].u.function.duration = 0; /* must be > 0 */
        t.nodes[0].u.function.timeout = 3;
        assert_int_equal(ac_sim_run(&t.m, &o, &res, &err), AC_EINVAL);
        assert_non_null(strstr(err.message, "function 'a'"));
        t.nodes[0] = saved;
    }

    /* overload: the jobs grow past max_jobs */
    ac_error_clear(&err);
    t.sources[0].rate = 5.0;
    o.horizon = 1000;
    o.max_jobs = 1000;
    assert_int_equal(ac_sim_run(&t.m, &o, &res, &err), AC_ELIMIT);
    assert_null(res);
    assert_non_null(strstr(err.message, "overloaded"));

    /* an initial state must match the pool */
    {
        size_t jobs[2] = {1, 1};
        ac_sim_initial_state init = {0, jobs, 2};
        ac_error_clear(&err);
        o.max_jobs = 0;
        o.initial = &init;
        o.ninitial = 1;
        assert_int_equal(ac_sim_run(&t.m, &o, &res, &err), AC_EINVAL);
    }
}

/* ---- the generator (sim/rng.h) ----------------------------------------------------------------
 */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* xoshiro256** against its published definition: from the state {1, 2, 3, 4} the first output
 * is rotl(2 * 5, 7) * 9 = 11520; and one seed, one stream. */
static void test_rng_xoshiro(void **state)
{
    ac_sim_rng r = {{1, 2, 3, 4}}, a, b;
    (void)state;
    assert_true(ac_sim_rng_next(&r) == 11520u);
    assert_true(ac_sim_rng_next(&r) == 0u); /* s1 became 2 ^ (3 ^ 1) = 0 */
    ac_sim_rng_seed(&a, 42);
    ac_sim_rng_seed(&b, 42);
    for (size_t i = 0; i < 1000; i++)
        assert_true(ac_sim_rng_next(&a) == ac_sim_rng_next(&b));
    ac_sim_rng_seed(&b, 43);
    assert_true(ac_sim_rng_next(&a) != ac_sim_rng_next(&b));
}

/* The ziggurat exponential: 10^6 draws against Exp(1). Kolmogorov-Smirnov D below 1.95 /
 * sqrt(n) (level 0.1%), the mean within 4 sigma (sigma = 1 / sqrt(n)), the variance within 4
 * sigma (sigma = sqrt(8 / n): mu4 = 9), and the tail beyond the ziggurat's base (r = 7.697,
 * P = e^-r, drawn by the slow path) within 5 sigma of its binomial count. */
static void test_rng_exponential(void **state)
{
    const size_t n = 1000000;
    double *x = malloc(n * sizeof *x), sum = 0, sum2 = 0, d = 0, mean, var, tail_p;
    ac_sim_rng r;
    ac_sim_zig z;
    size_t tail = 0;
    (void)state;
    assert_non_null(x);
    ac_sim_rng_seed(&r, 7);
    ac_sim_zig_init(&z);
    for (size_t i = 0; i < n; i++) {
        x[i] = ac_sim_rng_exp1(&r, &z);
        assert_true(x[i] >= 0 && isfinite(x[i]));
        sum += x[i];
        sum2 += x[i] * x[i];
        tail += x[i] > 7.69711747013104972;
    }
    qsort(x, n, sizeof *x, cmp_double);
    for (size_t i = 0; i < n; i++) {
        double f = -expm1(-x[i]);
        d = fmax(d, fmax((double)(i + 1) / (double)n - f, f - (double)i / (double)n));
    }
    mean = sum / (double)n;
    var = sum2 / (double)n - mean * mean;
    tail_p = exp(-7.69711747013104972);
    print_message("exponential: KS D %.5f (crit %.5f), mean %.5f, variance %.5f, tail %zu "
                  "(expected %.0f)\n",
                  d, 1.95 / sqrt((double)n), mean, var, tail, tail_p * (double)n);
    assert_true(d < 1.95 / sqrt((double)n));
    assert_true(fabs(mean - 1.0) < 4.0 / sqrt((double)n));
    assert_true(fabs(var - 1.0) < 4.0 * sqrt(8.0 / (double)n));
    assert_true(fabs((double)tail - tail_p * (double)n) <
                5.0 * sqrt(tail_p * (1 - tail_p) * (double)n));
    free(x);
}

/* Uniform integers below 10 and below 3 * 2^30 (where rejection matters): chi-square of 10
 * (resp. 3) equal cells below the 0.1% critical value (27.88 with 9 degrees of freedom, 13.82
 * with 2); and uniform doubles in [0, 1) with mean 1/2 within 4 sigma. */
static void test_rng_uniform(void **state)
{
    const size_t n = 1000000;
    size_t c10[10] = {0}, c3[3] = {0};
    double chi10 = 0, chi3 = 0, su = 0;
    ac_sim_rng r;
    (void)state;
    ac_sim_rng_seed(&r, 11);
    for (size_t i = 0; i < n; i++) {
        double u = ac_sim_rng_uniform(&r);
        assert_true(u >= 0 && u < 1);
        su += u;
        c10[ac_sim_rng_below(&r, 10)]++;
        c3[ac_sim_rng_below(&r, 3u << 30) >> 30]++;
    }
    for (size_t k = 0; k < 10; k++)
        chi10 += pow((double)c10[k] - (double)n / 10, 2) / ((double)n / 10);
    for (size_t k = 0; k < 3; k++)
        chi3 += pow((double)c3[k] - (double)n / 3, 2) / ((double)n / 3);
    print_message("uniform: chi2 %.2f (10 cells), %.2f (3 cells), mean %.5f\n", chi10, chi3,
                  su / (double)n);
    assert_true(chi10 < 27.88);
    assert_true(chi3 < 13.82);
    assert_true(fabs(su / (double)n - 0.5) < 4.0 * sqrt(1.0 / 12.0 / (double)n));
}

/* ---- replications on threads ------------------------------------------------------------------
 */

/* The mixed network in automatic mode (stopping at the precision, so that a batch of
 * threads runs replications that are then discarded) and in fixed mode with a budget: the
 * text of the result is the same for 1, 2 and 5 threads, and the replications stop where
 * one thread stops them. */
static char *format_with_jobs(const test_net *t, ac_sim_options o, size_t jobs)
{
    ac_sim_result *res;
    ac_error err = {0};
    char *text = NULL;
    o.jobs = jobs;
    res = run_ok(t, &o);
    assert_int_equal(ac_sim_result_format(res, &text, &err), 0);
    ac_sim_result_free(res);
    return text;
}

static void test_jobs_identical(void **state)
{
    test_net t;
    ac_sim_options o;
    (void)state;
    build_mixed(&t);
    ac_sim_options_init(&o);
    o.seed = 77;
    o.horizon = 200;
    o.rel_precision = 0.05;
    o.min_replications = 3;
    for (size_t pass = 0; pass < 2; pass++) {
        char *one = format_with_jobs(&t, o, 1);
        for (size_t jobs = 2; jobs <= 5; jobs += 3) {
            char *many = format_with_jobs(&t, o, jobs);
            if (strcmp(one, many) != 0)
                fail_msg("--jobs %zu differs from --jobs 1:\n%s\n----\n%s", jobs, many, one);
            free(many);
        }
        print_message("%.*s\n", (int)strcspn(one, "\n"), one);
        free(one);
        o.replications = 9; /* then fixed, with a budget that ends the automatic horizon */
        o.max_events = 400000;
        o.horizon = 0;
    }
}

/*
 * The pilot run that sets the automatic horizon is replication 0's start (sim/run.c's
 * pilot_horizon, ac_sim_state_resume): an automatic run prints exactly what a fresh run with
 * the horizon and warm-up it chose prints, byte for byte, on 1 and 2 threads. Budgets that cut
 * the pilot (the horizon shortened: the pilot stopped before the warm-up ends and goes on to
 * the shorter horizon) and one that lets the pilot reach the horizon (replication 0 is then
 * only finished). A resumed state that drifted from the fresh run's law or draws
 * (a warm-up begun too early, a horizon's cut events, a lost event) changes the text.
 */
static void test_pilot_is_replication_0(void **state)
{
    static const unsigned long long budgets[] = {400000, 200000000, 400000};
    test_net t;
    (void)state;
    for (size_t b = 0; b < 3; b++) {
        build_mixed(&t);
        if (b == 2) { /* a fan-out of 10 to node 2 (40 servers): 3x the events the horizon's
                         first cap counts on (two a node a request), so the pilot cuts it */
            t.routes[2].fanout = 10;
            t.nodes[2].u.pool.servers = 40;
        }
        for (size_t jobs = 1; jobs <= 2; jobs++) {
            ac_sim_options o;
            ac_sim_result *res;
            char *fresh;
            char *automatic;
            ac_sim_options_init(&o);
            o.seed = 91;
            o.rel_precision = 0.05;
            o.min_replications = 3;
            o.max_events = budgets[b];
            o.jobs = jobs;
            res = run_ok(&t, &o);

            /* the pilot's cap, budget / (16 x 3), cut it (b 0, 2) or not (b 1); in b 2 it
               shortened the horizon below the first cap, budget / (3 x 2 x 5 nodes x 6/s) */
            assert_int_equal((double)res->events / (double)res->replications >
                                 (double)budgets[b] / 48.0,
                             b != 1);
            if (b == 2)
                assert_true(res->horizon < (double)budgets[b] / 180.0);
            /* in b 2 the warm-up is the settling time (100 tau = 100 s), not a tenth of the
               shortened horizon: the fresh run is given both */
            assert_int_equal(res->warmup_rule,
                             b == 2 ? AC_SIM_WARMUP_SETTLING : AC_SIM_WARMUP_TENTH);
            o.horizon = res->horizon;
            o.warmup = res->warmup;
            ac_sim_result_free(res);
            fresh = format_with_jobs(&t, o, jobs);
            o.horizon = 0;
            o.warmup = -1;
            automatic = format_with_jobs(&t, o, jobs);
            if (strcmp(fresh, automatic) != 0)
                fail_msg("budget %llu, %zu jobs: automatic\n%s\n---- fresh\n%s", budgets[b], jobs,
                         automatic, fresh);
            print_message("budget %llu, %zu jobs: %.*s\n", budgets[b], jobs,
                          (int)strcspn(automatic, "\n"), automatic);
            free(fresh);
            free(automatic);
        }
    }
}

/* Through the binary: `simulate --jobs 2` prints what `--jobs 1` prints, byte for byte (an
 * automatic run stopped by the precision after an odd number of replications: the
 * speculative one of the last pair is discarded). */
static void test_simulate_jobs_cli(void **state)
{
    ac_test_run a = run_ac("simulate", "--seed", "3", "--max-events", "1000000", "--format", "json",
                           "samples/web-tier.xml", "--jobs", "1", NULL);
    ac_test_run b = run_ac("simulate", "--seed", "3", "--max-events", "1000000", "--format", "json",
                           "samples/web-tier.xml", "--jobs", "2", NULL);
    (void)state;
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_non_null(strstr(a.out, "\"replications\": 31,"));
    assert_string_equal(a.out, b.out);
    ac_test_run_free(&a);
    ac_test_run_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_auto_replications),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_rng_xoshiro),
        cmocka_unit_test(test_rng_exponential),
        cmocka_unit_test(test_rng_uniform),
        cmocka_unit_test(test_jobs_identical),
        cmocka_unit_test(test_simulate_jobs_cli),
        cmocka_unit_test(test_pilot_is_replication_0),
    };
    return cmocka_run_group_tests_name("sim_replications", tests, NULL, NULL);
}
