/*
 * The validating simulation's sequential rule (analysis/validate.c, models.md §7, "The
 * sequential rule"): looks at 3, 6, 12 replications at alpha 0.005 each and at the ordinary
 * stop at 0.035, Bonferroni over the looks.
 *
 * - A check clearly beyond its limit is settled at the first look (3 replications, <= 8),
 *   with the verdict of the closed form: the mean response time of M/M/c (Erlang C) and the
 *   loss of M/M/c/c (Erlang B), through ac_sim_run's looks and the rule's decision.
 * - The rule's error rate: the arrival rate of a Poisson source (exactly lambda in
 *   expectation, replication by replication) against a limit lambda +- 0.001 (a hair on the
 *   right side); over 400 seeds each way the wrong settlements stay within the binomial
 *   99.9% bound of the rule's one-sided level sum alpha_k / 2 = 0.025. Testing the 95%
 *   interval after every replication instead (optional stopping) is counted beside it.
 * - Through the analysis: a straddling latency check on a power-of-two pool is settled
 *   before 20 replications, the same result byte for byte with 1 and 2 threads.
 */
#include "helpers.h"

#include <gsl/gsl_cdf.h>

#include "analysis/internal.h"
#include "archcheck/analysis.h"
#include "archcheck/model.h"
#include "archcheck/sim.h"
#include "fixture.h"

/* One pool of c servers (rate mu) under `dispatch` with `buffer` (sim.h's meaning), Poisson
 * lambda into it. */
typedef struct one_pool {
    ac_model m;
    ac_node node;
    ac_source src;
    char nid[4], sid[4];
} one_pool;

static void one_pool_init(one_pool *t, ac_dispatch dispatch, size_t c, double mu, size_t buffer,
                          double lambda)
{
    memset(t, 0, sizeof *t);
    memcpy(t->nid, "p", 2);
    memcpy(t->sid, "s", 2);
    t->node.id = t->nid;
    t->node.kind = AC_NODE_POOL;
    t->node.u.pool.servers = c;
    t->node.u.pool.service_rate = mu;
    t->node.u.pool.dispatch = dispatch;
    t->node.u.pool.d = 2;
    t->node.u.pool.buffer = buffer;
    t->src.id = t->sid;
    t->src.to = 0;
    t->src.rate = lambda;
    t->src.scv = 1.0;
    t->src.profile = AC_NONE;
    t->m.nodes = &t->node;
    t->m.nnodes = 1;
    t->m.sources = &t->src;
    t->m.nsources = 1;
}

/* What a look judges: one KPI of node 0 against a limit (the rule's decision, as the
 * analysis takes it); the look and decision that stopped the run. */
typedef enum which { W_RESP, W_LOSS, W_ARRIVAL } which;

typedef struct judge {
    which what;
    double limit;
    int upper;
    size_t nlooks;    /* the rule's early looks (ac_an_seq_looks) */
    int decision;     /* at the look that stopped the run, or the last */
    size_t stopped_n; /* its replications */
    int naive;        /* the 95% interval after every replication: first decision */
    double batch;     /* > 0: the count bound of a loss too, batches of this many s */
    size_t by_count;  /* runs settled PASS where the t interval alone did not */
} judge;

static ac_sim_estimate kpi(const ac_sim_result *r, which w)
{
    return w == W_RESP   ? r->nodes[0].mean_response_time
           : w == W_LOSS ? r->nodes[0].loss_probability
                         : r->nodes[0].arrival_rate;
}

static int decide(judge *j, const ac_sim_result *r, double alpha, int early)
{
    ac_sim_estimate e = kpi(r, j->what);
    double h;
    int t = ac_an_seq_decide(e.mean, e.ci95, e.n, j->limit, j->upper, alpha, early, &h), d;
    if (!(j->batch > 0.0))
        return t;
    d = ac_an_seq_decide_est(&e, r, j->batch, j->limit, j->upper, alpha, early, &h);
    j->by_count += d == 1 && t == 0;
    return d;
}

/* Looks at the rule's counts only. */
static int rule_look(void *ctx, const ac_sim_result *partial, size_t k)
{
    judge *j = ctx;
    j->decision = decide(j, partial, ac_an_seq_alpha(k, j->nlooks), 1);
    j->stopped_n = partial->replications;
    return j->decision != 0;
}

static ac_sim_options seq_options(judge *j, size_t *looks, unsigned long seed, double horizon)
{
    ac_sim_options so;
    ac_sim_options_init(&so);
    so.seed = seed;
    so.horizon = horizon;
    so.warmup = horizon / 10.0;
    so.max_replications = 20;
    j->nlooks = ac_an_seq_looks(so.min_replications, looks);
    so.looks = looks;
    so.nlooks = j->nlooks;
    so.look = rule_look;
    so.look_ctx = j;
    return so;
}

/* Run the rule on m; the decision (at the stopping look, else at the last look). */
static ac_sim_result *run_rule(const ac_model *m, judge *j, unsigned long seed, double horizon)
{
    size_t looks[AC_AN_SEQ_LOOKS];
    ac_sim_options so = seq_options(j, looks, seed, horizon);
    ac_sim_result *r = NULL;
    ac_error err = {0};
    j->decision = 0;
    j->stopped_n = 0;
    if (ac_sim_run(m, &so, &r, &err) != 0)
        print_error("%s\n", err.message);
    assert_non_null(r);
    if (r->stopped_at_look == 0) {
        j->decision = decide(j, r, ac_an_seq_alpha(j->nlooks, j->nlooks), 0);
        j->stopped_n = r->replications;
    }
    return r;
}

/* M/M/4, lambda 3, mu 1: T = 1/mu + C(4, 3) / (4 mu - lambda) = 1.5094 s. A limit of 0.8 T
 * fails and one of 1.25 T passes, each at the first look; M/M/4/4 at a = 3 (jsq, one job per
 * server): B = 0.2061 lost, a limit of B / 2 fails at once. */
static void test_clear_case_settles_early(void **state)
{
    one_pool t;
    judge j;
    ac_sim_result *r;
    const double t_exact = 1.0 + ac_test_erlang_c(4, 3.0) / (4.0 - 3.0),
                 b = ac_test_erlang_b(4, 3.0);
    (void)state;
    assert_double_close(t_exact, 1.50943, 0, 1e-5);
    one_pool_init(&t, AC_DISPATCH_SHARED_QUEUE, 4, 1.0, AC_UNBOUNDED, 3.0);
    memset(&j, 0, sizeof j);
    j.what = W_RESP;
    j.upper = 1;
    j.limit = 0.8 * t_exact;
    r = run_rule(&t.m, &j, 5, 20000.0);
    assert_int_equal(j.decision, -1); /* T > limit: FAIL, as the closed form */
    assert_true(j.stopped_n <= 8);
    assert_int_equal(r->replications, j.stopped_n);
    assert_int_equal(r->stopped_at_look, 1);
    /* what it reports: the estimate of the 3 replications with their (wide) 95% interval */
    assert_true(fabs(r->nodes[0].mean_response_time.mean - t_exact) <=
                3.0 * r->nodes[0].mean_response_time.ci95);
    ac_sim_result_free(r);

    j.limit = 1.25 * t_exact;
    r = run_rule(&t.m, &j, 6, 20000.0);
    assert_int_equal(j.decision, 1); /* T < limit: PASS */
    assert_true(j.stopped_n <= 8);
    ac_sim_result_free(r);

    /* jsq with one job per server: lost only when all 4 are busy, M/M/4/4 */
    one_pool_init(&t, AC_DISPATCH_JSQ, 4, 1.0, 1, 3.0);
    assert_double_close(b, 0.206107, 0, 1e-5);
    j.what = W_LOSS;
    j.limit = 0.5 * b;
    r = run_rule(&t.m, &j, 7, 20000.0);
    assert_int_equal(j.decision, -1);
    assert_true(j.stopped_n <= 8);
    assert_true(fabs(r->nodes[0].loss_probability.mean - b) <=
                3.0 * r->nodes[0].loss_probability.ci95);
    ac_sim_result_free(r);
}

/* The count bound (models.md §7, "Rare losses: the count bound"). M/M/16/16 at a = 2 (jsq,
 * one job per server, lambda 2, mu 1): B = 4.2e-10, no loss in 3 replications of 18,000
 * measured seconds, 0 +- 0, which the t interval cannot settle at a look; against a limit of
 * 1e-3 the count bound (108,000 requests in 54,000 batches of one time scale, 1 s: the rule
 * of three -ln(0.0025) / 54,000 = 1.1e-4 at the look's alpha / 2) settles PASS at the first
 * look, as the closed form. M/M/4/4 at a = 3 against 0.98 B (a loss near the limit, above
 * it): never PASS at any look. */
static void test_count_bound_rare_loss(void **state)
{
    one_pool t;
    judge j;
    ac_sim_result *r;
    const double b16 = ac_test_erlang_b(16, 2.0), b4 = ac_test_erlang_b(4, 3.0);
    ac_sim_estimate e;
    double h, u;
    (void)state;
    assert_true(b16 < 1e-9);
    one_pool_init(&t, AC_DISPATCH_JSQ, 16, 1.0, 1, 2.0);
    memset(&j, 0, sizeof j);
    j.what = W_LOSS;
    j.upper = 1;
    j.limit = 1e-3;
    j.batch = 1.0;
    r = run_rule(&t.m, &j, 11, 20000.0);
    assert_int_equal(j.decision, 1);
    assert_int_equal(r->stopped_at_look, 1);
    assert_int_equal(j.stopped_n, 3);
    assert_int_equal(j.by_count, 1);
    e = r->nodes[0].loss_probability;
    assert_true(e.mean == 0.0 && e.ci95 == 0.0 && e.count == 0.0);
    assert_true(e.trials > 100000.0 && e.trials < 116000.0); /* 3 x 18,000 s x 2/s */
    /* without the counts the zero-width interval settles nothing */
    assert_int_equal(ac_an_seq_decide(e.mean, e.ci95, e.n, j.limit, 1, 0.005, 1, &h), 0);
    u = ac_an_seq_count_upper(e.count, e.trials, 3.0 * 18000.0, 1.0, 0.0025);
    {
        /* batches of m = ceil(trials / 54,000) requests (3 when a few more than 108,000
           arrived), B = floor(trials / m) of them */
        double m = ceil(e.trials / 54000.0), nb = floor(e.trials / m);
        assert_double_close(u, 1.0 - pow(0.0025, 1.0 / nb), 1e-12, 0);
    }
    assert_true(u < j.limit && u > b16);

    /* the gate: three replications of 9,000 requests with one loss each, a t interval of
       almost zero width (the requests differ a little), 1.1e-4 +- 1e-7, under the limit
       1.26e-4; the counts, 3 of 27,000, bound the loss by the Clopper-Pearson 4.4e-4 at
       one-sided 0.0025 (gsl_cdf_binomial_P(3, u, 27000) = 0.0025): no PASS */
    e.mean = 1.1e-4;
    e.ci95 = 1e-7;
    e.n = 3;
    e.count = 3.0;
    e.trials = 27000.0;
    assert_int_equal(ac_an_seq_decide(e.mean, e.ci95, e.n, 1.26e-4, 1, 0.005, 1, &h), 1);
    assert_int_equal(ac_an_seq_decide_est(&e, r, 1.0, 1.26e-4, 1, 0.005, 1, &h), 0);
    u = ac_an_seq_count_upper(3.0, 27000.0, 27000.0, 1.0, 0.0025); /* one request a batch */
    assert_double_close(gsl_cdf_binomial_P(3, u, 27000), 0.0025, 1e-9, 0);
    assert_double_close(u, 4.40196e-4, 0, 1e-5); /* gsl_cdf_beta_Pinv(0.9975, 4, 26997) */
    ac_sim_result_free(r);

    /* a counted loss near the limit: B = 0.2061 above 0.98 B; 3 requests per batch, the
       bound is about three times the loss: it never passes */
    one_pool_init(&t, AC_DISPATCH_JSQ, 4, 1.0, 1, 3.0);
    memset(&j, 0, sizeof j);
    j.what = W_LOSS;
    j.upper = 1;
    j.limit = 0.98 * b4;
    j.batch = 1.0;
    r = run_rule(&t.m, &j, 12, 20000.0);
    assert_true(j.decision != 1);
    assert_int_equal(j.by_count, 0);
    e = r->nodes[0].loss_probability;
    assert_true(ac_an_seq_count_upper(e.count, e.trials,
                                      (double)r->replications * (r->horizon - r->warmup), 1.0,
                                      0.0025) > 2.0 * b4);
    ac_sim_result_free(r);
}

/* The count bound's batch (ac_an_seq_batch_time) covers the relaxation of a loaded queue:
 * M/M/1 at rho = 0.9 (mu 1/s) relaxes at the gap of its birth-death chain,
 * mu (1 - sqrt(rho))^2 = 1 / 379.7 s, far beyond its holding time of 1 s; with a buffer of 40
 * the chain of K + 1 = 42 states relaxes faster, at lambda + mu - 2 sqrt(lambda mu)
 * cos(pi / (K + 1)) = 1 / 126 s, which the batch covers too (it takes the unbounded queue's at
 * the carried load); M/M/50 at rho = 0.5, 50 (1 - sqrt(rho))^2 = 4.3 > 1, relaxes at about
 * the service rate (M/M/infinity's): its batch stays near 1 s. */
static void test_count_bound_batch(void **state)
{
    static const char FMT[] = "<architecture format=\"1\">\n"
                              "<workload><source id=\"s\" to=\"p\" rate=\"%g/s\"/></workload>\n"
                              "<pool id=\"p\" servers=\"%d\" service-rate=\"1/s\" "
                              "dispatch=\"shared-queue\"%s/>\n"
                              "</architecture>\n";
    const double gap = 1.0 / ((1.0 - sqrt(0.9)) * (1.0 - sqrt(0.9))),
                 gap_k = 1.0 / (1.9 - 2.0 * sqrt(0.9) * cos(M_PI / 42.0));
    char xml[512];
    ac_analysis_options o = no_sim();
    fx f;
    double d;
    (void)state;
    o.headroom = 0;
    snprintf(xml, sizeof xml, FMT, 0.9, 1, "");
    analyse_with(&f, xml, &o);
    d = ac_an_seq_batch_time(f.a, NULL);
    assert_double_close(d, gap, 0, 1e-6);
    fx_free(&f);
    snprintf(xml, sizeof xml, FMT, 0.9, 1, " buffer=\"40\"");
    analyse_with(&f, xml, &o);
    d = ac_an_seq_batch_time(f.a, NULL);
    print_message("M/M/1 at 0.9: batch = 1 / gap = %.4g s; buffer 40: batch %.4g s (its chain's "
                  "relaxation %.4g s)\n",
                  gap, d, gap_k);
    assert_true(d >= gap_k && d <= gap);
    fx_free(&f);
    snprintf(xml, sizeof xml, FMT, 25.0, 50, "");
    analyse_with(&f, xml, &o);
    d = ac_an_seq_batch_time(f.a, NULL);
    assert_true(d >= 1.0 && d < 2.0);
    fx_free(&f);
}

/* Both rules from one run looked at after every replication 2..19: the naive one (the
 * 95% interval every time, the first that clears decides) and the sequential rule (its
 * looks 3, 6, 12 among those counts, the first that settles decides; the run goes on, which
 * changes nothing before). */
typedef struct both {
    judge *j;
    size_t looks[AC_AN_SEQ_LOOKS], next;
    int rule_done;
} both;

static int both_look(void *ctx, const ac_sim_result *partial, size_t k)
{
    both *b = ctx;
    judge *j = b->j;
    int d;
    (void)k;
    if (j->naive == 0 && (d = decide(j, partial, 0.05, 0)) != 0)
        j->naive = d;
    if (!b->rule_done && b->next < j->nlooks && partial->replications == b->looks[b->next]) {
        d = decide(j, partial, ac_an_seq_alpha(b->next, j->nlooks), 1);
        b->next++;
        if (d != 0) {
            j->decision = d;
            b->rule_done = 1;
        }
    }
    return 0;
}

/* The 99.9% quantile of Binomial(n, p): the most misses a correct rule shows but once in
 * a thousand programs. */
static unsigned binom_q999(unsigned n, double p)
{
    unsigned k = 0;
    while (k < n && gsl_cdf_binomial_P(k, p, n) < 0.999)
        k++;
    return k;
}

/* One seed: 20 replications of 500 s (the last look at max_replications = 20). */
static void error_rate_case(const ac_model *m, judge *j, unsigned long seed)
{
    size_t every[18];
    both b;
    ac_sim_options so = seq_options(j, b.looks, seed, 500.0);
    ac_sim_result *r = NULL;
    ac_error err = {0};
    for (size_t k = 0; k < 18; k++)
        every[k] = k + 2;
    b.j = j;
    b.next = 0;
    b.rule_done = 0;
    so.looks = every;
    so.nlooks = 18;
    so.look = both_look;
    so.look_ctx = &b;
    so.rel_precision = 0.0;
    j->naive = 0;
    j->decision = 0;
    assert_int_equal(ac_sim_run(m, &so, &r, &err), 0);
    assert_int_equal(r->replications, 20);
    if (!b.rule_done)
        j->decision = decide(j, r, ac_an_seq_alpha(j->nlooks, j->nlooks), 0);
    if (j->naive == 0)
        j->naive = decide(j, r, 0.05, 0);
    ac_sim_result_free(r);
}

static void test_error_rate_within_alpha(void **state)
{
    one_pool t;
    const unsigned seeds = 400;
    const double lambda = 1.0, offset = 0.001;
    unsigned wrong[2] = {0, 0}, naive_wrong[2] = {0, 0}, right[2] = {0, 0}, bound;
    (void)state;
    one_pool_init(&t, AC_DISPATCH_RANDOM, 1, 4.0, AC_UNBOUNDED, lambda);
    for (int side = 0; side < 2; side++) {
        judge j;
        memset(&j, 0, sizeof j);
        j.what = W_ARRIVAL;
        /* side 0: limit lambda + offset, a maximum (PASS right, FAIL wrong); side 1: limit
           lambda - offset, a maximum (FAIL right, PASS wrong) */
        j.upper = 1;
        j.limit = side == 0 ? lambda + offset : lambda - offset;
        for (unsigned s = 0; s < seeds; s++) {
            int bad = side == 0 ? -1 : 1;
            error_rate_case(&t.m, &j, 1000u + s + 7919u * (unsigned)side);
            wrong[side] += j.decision == bad;
            right[side] += j.decision == -bad;
            naive_wrong[side] += j.naive == bad;
        }
    }
    bound = binom_q999(seeds, 0.025);
    print_message("sequential rule: wrong %u and %u of %u (bound %u at 99.9%%), right %u and "
                  "%u; the 95%% interval after every replication: wrong %u and %u\n",
                  wrong[0], wrong[1], seeds, bound, right[0], right[1], naive_wrong[0],
                  naive_wrong[1]);
    assert_true(wrong[0] <= bound);
    assert_true(wrong[1] <= bound);
}

/* The rule with the count bound on a rare loss, both ways: M/M/5/5 at a = 0.5 (jsq, one job
 * per server; lambda 0.5, mu 1, time scale 2 s: one or two requests per batch), B = 1.58e-4,
 * about 4 losses at the first look; limits 1.25 B (PASS right) and 0.8 B (PASS wrong). Over
 * 200 seeds each way the wrong settlements stay within the binomial 99.9% bound of 0.025
 * (the looks' one-sided levels summed). */
static void test_count_bound_error_rate(void **state)
{
    one_pool t;
    const unsigned seeds = 200;
    const double b = ac_test_erlang_b(5, 0.5);
    unsigned wrong[2] = {0, 0}, right[2] = {0, 0}, bound;
    size_t by_count = 0;
    (void)state;
    assert_double_close(b, 1.5795e-4, 0, 1e-3);
    one_pool_init(&t, AC_DISPATCH_JSQ, 5, 1.0, 1, 0.5);
    for (int side = 0; side < 2; side++) {
        judge j;
        memset(&j, 0, sizeof j);
        j.what = W_LOSS;
        j.upper = 1;
        j.limit = side == 0 ? 1.25 * b : 0.8 * b;
        j.batch = 2.0;
        for (unsigned s = 0; s < seeds; s++) {
            int bad = side == 0 ? -1 : 1;
            ac_sim_result *r = run_rule(&t.m, &j, 5000u + s + 7919u * (unsigned)side, 20000.0);
            ac_sim_result_free(r);
            wrong[side] += j.decision == bad;
            right[side] += j.decision == -bad;
        }
        by_count += j.by_count;
    }
    bound = binom_q999(seeds, 0.025);
    print_message("count bound: wrong %u and %u of %u (bound %u at 99.9%%), right %u and %u, "
                  "%zu settled by the count\n",
                  wrong[0], wrong[1], seeds, bound, right[0], right[1], by_count);
    assert_true(wrong[0] <= bound);
    assert_true(wrong[1] <= bound);
}

/* A power-of-two pool at rho = 0.95 (test_analysis' STRADDLE95): the latency's headline
 * t = 4.55 s is stated within e = 7.1%, the simulation's value is about 4.49 s; a limit of
 * t (1 - 0.9 e) ~ 4.26 s straddles the stated error and is settled by the simulation before
 * the 20 replications of the 1% rule, FAIL, the same byte for byte on 1 and 2 threads. */
static const char POD95_FMT[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"p\" rate=\"9.5/s\"/></workload>\n"
    "<pool id=\"p\" servers=\"10\" service-rate=\"1/s\" dispatch=\"power-of-d\" "
    "sampling=\"with-replacement\"/>\n"
    "<requirements>\n"
    "  <latency max=\"%.17gs\" target=\"p\"/>\n"
    "</requirements>\n"
    "</architecture>\n";

static void analyse_pod(fx *f, double limit, size_t jobs, char **text)
{
    char xml[1024];
    ac_analysis_options o;
    ac_error err = {0};
    ac_analysis_options_init(&o);
    o.headroom = 0;
    o.sim.seed = 3;
    o.sim.horizon = 20000.0;
    o.sim.jobs = jobs;
    snprintf(xml, sizeof xml, POD95_FMT, limit);
    analyse_with(f, xml, &o);
    assert_non_null(f->a);
    assert_non_null(f->a->sim);
    assert_int_equal(ac_sim_result_format(f->a->sim, text, &err), 0);
}

static void test_analysis_stops_early_same_bytes(void **state)
{
    fx f1, f2;
    char *t1 = NULL, *t2 = NULL;
    static const ac_check none;
    const ac_check *ck = &none;
    double t, e, limit;
    (void)state;
    {
        fx f0;
        char xml[1024];
        ac_analysis_options o = no_sim();
        o.headroom = 0;
        snprintf(xml, sizeof xml, POD95_FMT, 1000.0);
        analyse_with(&f0, xml, &o);
        t = f0.a->nodes[0].mean_response_time;
        e = f0.a->nodes[0].expected_rel_error;
        fx_free(&f0);
    }
    limit = t * (1.0 - 0.9 * e);
    analyse_pod(&f1, limit, 1, &t1);
    analyse_pod(&f2, limit, 2, &t2);
    assert_string_equal(t1, t2);
    for (size_t i = 0; i < f1.a->nchecks; i++)
        if (f1.a->checks[i].has_value && f1.a->checks[i].limit == limit)
            ck = &f1.a->checks[i];
    assert_true(ck != &none);
    assert_int_equal(ck->settled_by_simulation, 1);
    assert_int_equal(ck->status, AC_CHECK_FAIL);
    assert_true(f1.a->sim->stopped_at_look > 0);
    assert_true(f1.a->sim->replications < 20);
    assert_true(ck->sim_level > 0.99); /* an early look's level, 1 - 0.005 */
    assert_true(ck->sim_value - ck->sim_halfwidth > limit);
    assert_true(ck->sim_halfwidth > ck->sim_ci95); /* wider than the 95% one */
    free(t1);
    free(t2);
    fx_free(&f1);
    fx_free(&f2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clear_case_settles_early),
        cmocka_unit_test(test_error_rate_within_alpha),
        cmocka_unit_test(test_count_bound_rare_loss),
        cmocka_unit_test(test_count_bound_batch),
        cmocka_unit_test(test_count_bound_error_rate),
        cmocka_unit_test(test_analysis_stops_early_same_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
