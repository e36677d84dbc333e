/*
 * Tests of analysis/size.c (include/archcheck/size.h): right-sizing against closed forms
 * computed here by hand (Erlang C for a shared-queue pool's mean and p95, Erlang B for a sync
 * function's throttling), a power-of-two pool against the simulator at the returned count and
 * one below, and the dispatch comparison against the M/M/1 and power-of-d mean-field closed
 * forms.
 *
 * Tolerances: the exact solvers' answers must equal the hand-computed count (integers); the
 * simulator's 95% interval is widened by the stated error of the count's binding value.
 */
#include "helpers.h"

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "archcheck/size.h"

#include "fixture.h"

static ac_sizing *size_ok(fx *f, int simulate)
{
    ac_size_options o;
    ac_sizing *z = NULL;
    int rc;
    ac_size_options_init(&o);
    if (!simulate) {
        o.analysis.validate = AC_VALIDATE_NEVER;
        o.max_simulations = 0;
    }
    rc = ac_size_run(f->m, &o, &z, &f->err);
    if (rc != AC_OK)
        print_error("size failed: %d %s\n", rc, f->err.message);
    assert_int_equal(rc, AC_OK);
    assert_non_null(z);
    return z;
}

/* ---- closed forms, by hand ---- */

/* M/M/c response-time CCDF: T = W + S, W = 0 w.p. 1 - C else Exp(theta = c mu - lambda):
 * P(T > t) = (1 - C) e^{-mu t} + C (theta e^{-mu t} - mu e^{-theta t}) / (theta - mu). */
static double mmc_ccdf(size_t c, double lambda, double mu, double t)
{
    double C = ac_test_erlang_c(c, lambda / mu), th = (double)c * mu - lambda;
    double conv = fabs(th - mu) < 1e-12 ? (1.0 + mu * t) * exp(-mu * t)
                                        : (th * exp(-mu * t) - mu * exp(-th * t)) / (th - mu);
    return (1.0 - C) * exp(-mu * t) + C * conv;
}

/* Its p-quantile by bisection on t. */
static double mmc_quantile(size_t c, double lambda, double mu, double p)
{
    double lo = 0.0, hi = 1.0;
    if ((double)c * mu <= lambda)
        return INFINITY;
    while (mmc_ccdf(c, lambda, mu, hi) > 1.0 - p)
        hi *= 2.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mmc_ccdf(c, lambda, mu, mid) > 1.0 - p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static const ac_size_node *row_of(const fx *f, const ac_sizing *z, const char *id)
{
    size_t i = ac_model_find_node(f->m, id);
    for (size_t j = 0; j < z->nnodes; j++)
        if (z->nodes[j].node == i)
            return &z->nodes[j];
    fail_msg("no sizing row for %s", id);
    return NULL;
}

/* What one sizing row must say (0 / NULL / -1: not checked). */
typedef struct size_want {
    const char *node, *kind;
    size_t designed, at_load, at_headroom;
    const char *binding;
    long long saved;        /* -1: not checked */
    double headroom_factor; /* 0: not checked */
} size_want;

/* Size `xml` by the analysis alone and check the row of w->node against w. */
static void expect_sizing(const char *xml, const size_want *w)
{
    fx f;
    ac_sizing *z;
    const ac_size_node *r;
    fx_parse(&f, xml);
    z = size_ok(&f, 0);
    r = row_of(&f, z, w->node);
    if (w->kind != NULL)
        assert_string_equal(r->kind, w->kind);
    if (w->designed > 0)
        assert_int_equal(r->designed, w->designed);
    assert_int_equal(r->at_load.status, AC_SIZE_OK);
    assert_int_equal(r->at_load.needed, w->at_load);
    if (w->at_headroom > 0) {
        assert_int_equal(r->at_headroom.status, AC_SIZE_OK);
        assert_int_equal(r->at_headroom.needed, w->at_headroom);
    }
    assert_string_equal(r->at_load.binding, w->binding);
    if (w->headroom_factor > 0.0)
        assert_double_close(z->headroom_factor, w->headroom_factor, 0, 0);
    if (w->saved != -1)
        assert_int_equal(z->saved, w->saved);
    ac_sizing_free(z);
    fx_free(&f);
}

/* ---- tests ---- */

/* A shared-queue pool: lambda = 45/s, mu = 10/s, mean response <= 120 ms; with the required
 * headroom 1.5 the load is 67.5/s. The smallest c by Erlang C at both. */
static void test_shared_queue_mean(void **state)
{
    size_t c1 = 1, c2 = 1;
    (void)state;
    while (ac_test_mmc_mean(c1, 45.0, 10.0) > 0.12)
        c1++;
    while (ac_test_mmc_mean(c2, 67.5, 10.0) > 0.12)
        c2++;
    /* not within 0.1% of the limit: the answer is well defined */
    assert_true(fabs(ac_test_mmc_mean(c1 - 1, 45.0, 10.0) - 0.12) > 1e-4);
    expect_sizing(
        "<architecture format=\"1\">\n"
        "<workload><source id=\"s\" to=\"web\" rate=\"45/s\"/></workload>\n"
        "<pool id=\"web\" servers=\"20\" service-rate=\"10/s\" dispatch=\"shared-queue\"/>\n"
        "<requirements><latency max=\"120ms\" target=\"web\"/><headroom min=\"1.5\"/>"
        "</requirements>\n"
        "</architecture>\n",
        &(size_want){"web", NULL, 20, c1, c2, "mean latency", 20 - (long long)c2, 1.5});
}

/* load_only: the shared-queue pool of test_shared_queue_mean sized at the load alone gives
 * Erlang C's smallest c there, with fewer probes than the full sizing (whose headroom pass
 * at 67.5/s probes more), and says its headroom answer was not computed. */
static void test_load_only(void **state)
{
    fx f;
    ac_size_options o;
    ac_sizing *full, *z = NULL;
    size_t c1 = 1;
    int rc;
    (void)state;
    while (ac_test_mmc_mean(c1, 45.0, 10.0) > 0.12)
        c1++;
    fx_parse(&f, "<architecture format=\"1\">\n"
                 "<workload><source id=\"s\" to=\"web\" rate=\"45/s\"/></workload>\n"
                 "<pool id=\"web\" servers=\"20\" service-rate=\"10/s\" "
                 "dispatch=\"shared-queue\"/>\n"
                 "<requirements><latency max=\"120ms\" target=\"web\"/><headroom min=\"1.5\"/>"
                 "</requirements>\n"
                 "</architecture>\n");
    full = size_ok(&f, 0);
    ac_size_options_init(&o);
    o.analysis.validate = AC_VALIDATE_NEVER;
    o.max_simulations = 0;
    o.load_only = 1;
    rc = ac_size_run(f.m, &o, &z, &f.err);
    assert_int_equal(rc, AC_OK);
    assert_int_equal(z->nnodes, 1);
    assert_int_equal(z->nodes[0].at_load.status, AC_SIZE_OK);
    assert_int_equal(z->nodes[0].at_load.needed, c1);
    assert_int_equal(z->nodes[0].at_headroom.status, AC_SIZE_UNCOMPUTED);
    assert_int_equal(z->complete, 0);
    assert_int_equal(full->nodes[0].at_load.needed, c1);
    assert_true(z->probes < full->probes);
    ac_sizing_free(z);
    ac_sizing_free(full);
    fx_free(&f);
}

/* The same pool with a p95 limit of 150 ms at 80/s (rho near 1 at the answer). */
static void test_shared_queue_p95(void **state)
{
    size_t c = 1;
    (void)state;
    while (mmc_quantile(c, 80.0, 10.0, 0.95) > 0.35)
        c++;
    assert_true(fabs(mmc_quantile(c - 1, 80.0, 10.0, 0.95) - 0.35) > 1e-3);
    assert_true(fabs(mmc_quantile(c, 80.0, 10.0, 0.95) - 0.35) > 1e-3);
    expect_sizing(
        "<architecture format=\"1\">\n"
        "<workload><source id=\"s\" to=\"web\" rate=\"80/s\"/></workload>\n"
        "<pool id=\"web\" servers=\"64\" service-rate=\"10/s\" dispatch=\"shared-queue\"/>\n"
        "<requirements><latency percentile=\"95\" max=\"350ms\" target=\"web\"/>"
        "</requirements>\n"
        "</architecture>\n",
        &(size_want){"web", NULL, 0, c, c, "latency p95", 64 - (long long)c, 0.0});
}

/* A sync function: 200 requests/s of 100 ms (a = 20 Erlangs), throttling <= 0.1%: the
 * smallest concurrency C with B(C, 20) <= 1e-3. */
static void test_function_erlang_b(void **state)
{
    size_t c = 1;
    (void)state;
    while (ac_test_erlang_b(c, 20.0) > 1e-3)
        c++;
    expect_sizing("<architecture format=\"1\">\n"
                  "<workload><source id=\"s\" to=\"fn\" rate=\"200/s\"/></workload>\n"
                  "<function id=\"fn\" duration=\"100ms\" concurrency=\"100\" "
                  "keep-alive=\"1000h\" timeout=\"900s\"/>\n"
                  "<requirements><loss max=\"1e-3\" target=\"fn\"/></requirements>\n"
                  "</architecture>\n",
                  &(size_want){"fn", "function", 100, c, 0, "loss", -1, 0.0});
}

/* Simulate the pool of `f` with `servers` servers: the mean response time of node 0. */
static ac_sim_estimate sim_mean(fx *f, size_t servers)
{
    ac_sim_options o;
    ac_sim_result *res = NULL;
    ac_sim_estimate e;
    size_t before = f->m->nodes[0].u.pool.servers;
    int rc;
    ac_sim_options_init(&o);
    o.seed = 7;
    o.rel_precision = 0.005;
    f->m->nodes[0].u.pool.servers = servers;
    rc = ac_sim_run(f->m, &o, &res, &f->err);
    f->m->nodes[0].u.pool.servers = before;
    assert_int_equal(rc, AC_OK);
    e = res->nodes[0].mean_response_time;
    ac_sim_result_free(res);
    return e;
}

/* A tandem of two M/M/c pools (a: 20/s at mu 2/s, b: mu 4/s, 30 servers each) under a mean
 * end-to-end limit of 800 ms: the mean response times add, T_a(c_a) + T_b(c_b) <= 0.8 s
 * (Erlang C each), and the least total c_a + c_b is found here by enumerating every pair.
 * The greedy split (a first with b at its feasible start, then b) gives 13 + 10 = 23; the
 * least sum is 22 (14 + 8, T = 0.7857 s). */
static void test_tandem_split_least_sum(void **state)
{
    size_t best = SIZE_MAX, ba = 0, bb = 0;
    fx f;
    ac_sizing *z;
    const ac_size_node *ra, *rb;
    (void)state;
    for (size_t a = 1; a <= 30; a++)
        for (size_t b = 1; b <= 30; b++)
            if (ac_test_mmc_mean(a, 20.0, 2.0) + ac_test_mmc_mean(b, 20.0, 4.0) <= 0.8 &&
                a + b < best) {
                best = a + b;
                ba = a;
                bb = b;
            }
    assert_int_equal(best, 22); /* the enumeration itself: the example is what it claims */
    fx_parse(&f, "<architecture format=\"1\">\n"
                 "<workload><source id=\"s\" to=\"a\" rate=\"20/s\"/></workload>\n"
                 "<pool id=\"a\" servers=\"30\" service-rate=\"2/s\" dispatch=\"shared-queue\"/>\n"
                 "<pool id=\"b\" servers=\"30\" service-rate=\"4/s\" dispatch=\"shared-queue\"/>\n"
                 "<route from=\"a\" to=\"b\"/>\n"
                 "<requirements><latency max=\"800ms\"/></requirements>\n"
                 "</architecture>\n");
    z = size_ok(&f, 0);
    ra = row_of(&f, z, "a");
    rb = row_of(&f, z, "b");
    assert_int_equal(ra->at_load.status, AC_SIZE_OK);
    assert_int_equal(rb->at_load.status, AC_SIZE_OK);
    assert_int_equal(ra->at_load.needed + rb->at_load.needed, best);
    assert_int_equal(ra->at_load.needed, ba);
    assert_int_equal(rb->at_load.needed, bb);
    /* the pair found meets the limit by the closed form, and one fewer at either does not */
    assert_true(ac_test_mmc_mean(ba, 20.0, 2.0) + ac_test_mmc_mean(bb, 20.0, 4.0) <= 0.8);
    assert_true(ac_test_mmc_mean(ba - 1, 20.0, 2.0) + ac_test_mmc_mean(bb, 20.0, 4.0) > 0.8);
    assert_true(ac_test_mmc_mean(ba, 20.0, 2.0) + ac_test_mmc_mean(bb - 1, 20.0, 4.0) > 0.8);
    assert_string_equal(ra->at_load.binding, "mean latency");
    assert_int_equal(ra->at_load.binding_node, AC_NONE); /* end to end */
    assert_int_equal(z->saved, 60 - (long long)best);
    ac_sizing_free(z);
    fx_free(&f);
}

/* A power-of-two pool, 300/s at mu = 10/s, mean response <= 140 ms: the simulator at the
 * returned count meets the limit, one below it does not (each within its interval plus the
 * count's stated error). */
static void test_power_of_two_against_sim(void **state)
{
    fx f;
    ac_sizing *z;
    const ac_size_node *r;
    ac_sim_estimate at, below;
    (void)state;
    fx_parse(&f, "<architecture format=\"1\">\n"
                 "<workload><source id=\"s\" to=\"web\" rate=\"300/s\"/></workload>\n"
                 "<pool id=\"web\" servers=\"60\" service-rate=\"10/s\" dispatch=\"power-of-d\"/>\n"
                 "<requirements><latency max=\"140ms\" target=\"web\"/></requirements>\n"
                 "</architecture>\n");
    z = size_ok(&f, 1);
    r = row_of(&f, z, "web");
    assert_true(r->at_load.status == AC_SIZE_OK || r->at_load.status == AC_SIZE_UNCERTAIN);
    print_message("power-of-two: needed %zu [%zu, %zu] (%s)%s\n", r->at_load.needed,
                  r->at_load.needed_lo, r->at_load.needed_hi,
                  ac_size_status_name(r->at_load.status), r->at_load.simulated ? " simulated" : "");
    /* the count is at least the stability bound lambda / mu = 30 */
    assert_true(r->at_load.needed > 30);
    at = sim_mean(&f, r->at_load.needed_hi);
    below = sim_mean(&f, r->at_load.needed_lo - 1);
    print_message("sim mean at %zu: %.5f +- %.5f; at %zu: %.5f +- %.5f\n", r->at_load.needed_hi,
                  at.mean, at.ci95, r->at_load.needed_lo - 1, below.mean, below.ci95);
    /* the simulator's interval, widened by 0.5% (its precision target), on the right side of
       the limit at both counts */
    assert_true(at.mean + at.ci95 <= 0.140 * 1.005);
    assert_true(below.mean - below.ci95 >= 0.140 * 0.995);
    ac_sizing_free(z);
    fx_free(&f);
}

/* Power-of-d mean field at load rho (N -> infinity): E[T] mu = sum_{i>=1} rho^((d^i-d)/(d-1)). */
static double pod_mean(double rho, double d, double mu)
{
    double s = 0.0;
    for (int i = 1; i < 40; i++) {
        double e = (pow(d, i) - d) / (d - 1.0);
        if (e > 2000.0)
            break;
        s += pow(rho, e);
    }
    return s / mu;
}

/* The dispatch comparison at rho = 0.8: random is M/M/1 per server (1 / (mu - lambda/N)),
 * power-of-2 is below it by the mean-field margin, and needs no more servers. */
static void test_dispatch_direction(void **state)
{
    fx f;
    ac_size_options o;
    ac_dispatch_row *rows = NULL;
    size_t n = 0;
    const ac_dispatch_row *rnd, *p2, *sq;
    size_t ir = 99, ip = 99, is = 99;
    int rc;
    (void)state;
    fx_parse(&f, "<architecture format=\"1\">\n"
                 "<workload><source id=\"s\" to=\"web\" rate=\"800/s\"/></workload>\n"
                 "<pool id=\"web\" servers=\"100\" service-rate=\"10/s\" dispatch=\"random\"/>\n"
                 "<requirements><latency max=\"250ms\" target=\"web\"/></requirements>\n"
                 "</architecture>\n");
    ac_size_options_init(&o);
    o.analysis.validate = AC_VALIDATE_NEVER;
    o.max_simulations = 0;
    rc = ac_size_dispatch_compare(f.m, 0, &o, &rows, &n, &f.err);
    assert_int_equal(rc, AC_OK);
    assert_int_equal(n, 8);
    for (size_t i = 0; i < n; i++) {
        print_message("%-22s mean %.4f p95 %.4f p99 %.4f (%s, err %.3g) needs %zu (%s)\n",
                      rows[i].name, rows[i].mean, rows[i].p95, rows[i].p99, rows[i].approximation,
                      rows[i].rel_error, rows[i].needed.needed,
                      ac_size_status_name(rows[i].needed.status));
        if (strcmp(rows[i].name, "random") == 0)
            ir = i;
        if (strcmp(rows[i].name, "power-of-2 (distinct)") == 0)
            ip = i;
        if (strcmp(rows[i].name, "shared-queue") == 0)
            is = i;
    }
    assert_true(ir < n && ip < n && is < n);
    rnd = &rows[ir];
    p2 = &rows[ip];
    sq = &rows[is];
    assert_int_equal(rnd->analysed, 1);
    assert_int_equal(p2->analysed, 1);
    /* random: M/M/1 per server at rho = 0.8: 1 / (10 - 8) = 0.5 s */
    assert_double_close(rnd->mean, 0.5, 0, 1e-6);
    /* power-of-2: the mean field 0.1947 s within its stated error plus the finite-N (N = 100)
       correction the refined solver adds (bounded here by 5%) */
    assert_double_close(p2->mean, pod_mean(0.8, 2.0, 10.0), 0, 0.05 + p2->rel_error);
    /* the direction, by the closed forms' margin: at least 50% lower */
    assert_true(p2->mean < 0.5 * rnd->mean);
    /* the smallest random pool for 250 ms: 1 / (mu - 800 / N) <= 0.25 -> N >= 800 / 6 = 133.3:
       134 */
    assert_int_equal(rnd->needed.status, AC_SIZE_OK);
    assert_int_equal(rnd->needed.needed, 134);
    assert_true(p2->needed.needed < rnd->needed.needed);
    /* power-of-2's count: the mean field's closed form at N servers (rho = 80 / N) gives the
       smallest N = 91 for 250 ms (90: 250.6 ms); the refined count within one of it, and at
       least 30% below random's (the seed claimed 10-15%: README) */
    {
        size_t nmf = 81;
        while (pod_mean(80.0 / (double)nmf, 2.0, 10.0) > 0.25)
            nmf++;
        assert_int_equal(nmf, 91);
        assert_int_equal(p2->needed.status, AC_SIZE_OK);
        assert_true(p2->needed.needed + 1 >= nmf && p2->needed.needed <= nmf + 1);
        assert_true((double)p2->needed.needed <= 0.7 * (double)rnd->needed.needed);
    }
    /* shared-queue: Erlang C at the returned count and one below */
    assert_int_equal(sq->needed.status, AC_SIZE_OK);
    assert_true(ac_test_mmc_mean(sq->needed.needed, 800.0, 10.0) <= 0.25);
    assert_true(ac_test_mmc_mean(sq->needed.needed - 1, 800.0, 10.0) > 0.25);
    free(rows);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_queue_mean),  cmocka_unit_test(test_shared_queue_p95),
        cmocka_unit_test(test_function_erlang_b),  cmocka_unit_test(test_power_of_two_against_sim),
        cmocka_unit_test(test_dispatch_direction), cmocka_unit_test(test_tandem_split_least_sum),
        cmocka_unit_test(test_load_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
