/*
 * Tests of archcheck's promise that every stated error is an upper bound of the real one
 * (tests/accuracy.h): per family of models, ACC_TEST_MODELS random models (fixed seeds)
 * analysed and simulated (fixed seed, counted event budget), every KPI within its stated
 * error plus the simulation's 95% half-width, misses within what a 5% rate explains
 * (binomial, 1e-3, per approximation and per class). A failure prints every violation with
 * its model. The generator's coverage and validity and the table's bound are tested too.
 */
#include "helpers.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "archcheck/parser.h"
#include "tests/accuracy.h"

#define ACC_TEST_MODELS 8

/* Run the models of one family and assert that no row fails. */
static void run_family(acc_family family)
{
    acc_options opt;
    acc_results res;
    acc_table t;
    size_t failures;
    acc_options_init(&opt);
    memset(&res, 0, sizeof res);
    for (unsigned long seed = 1; seed <= ACC_TEST_MODELS; seed++) {
        acc_model gm;
        assert_int_equal(acc_model_generate(seed, family, &gm), AC_OK);
        assert_int_equal(acc_run_model(&gm, &opt, &res), AC_OK);
        acc_model_clear(&gm);
    }
    assert_int_equal(acc_table_build(&res, &t), AC_OK);
    failures = acc_table_failures(&t);
    if (failures > 0 || res.errors > 0) {
        print_error("accuracy of the %s family: %zu failing rows, %zu errors\n",
                    acc_family_name(family), failures, res.errors);
        acc_table_write_md(stderr, &t, &res);
        acc_write_misses(stderr, &res, &t, 1);
    }
    /* something was compared: the models are not all skipped */
    assert_true(res.n >= 10 * ACC_TEST_MODELS);
    assert_true(res.skipped <= ACC_TEST_MODELS / 2);
    assert_int_equal(res.errors, 0);
    assert_int_equal(failures, 0);
    acc_table_clear(&t);
    acc_results_clear(&res);
}

static void test_pool(void **state)
{
    (void)state;
    run_family(ACC_POOL);
}

static void test_network(void **state)
{
    (void)state;
    run_family(ACC_NETWORK);
}

static void test_bursty(void **state)
{
    (void)state;
    run_family(ACC_BURSTY);
}

static void test_closed(void **state)
{
    (void)state;
    run_family(ACC_CLOSED);
}

static void test_function(void **state)
{
    (void)state;
    run_family(ACC_FUNCTION);
}

static void test_queue(void **state)
{
    (void)state;
    run_family(ACC_QUEUE);
}

static void test_gateway(void **state)
{
    (void)state;
    run_family(ACC_GATEWAY);
}

/* Features seen over many generated models (bit per feature). */
enum {
    F_RANDOM = 1 << 0,
    F_POD_DISTINCT = 1 << 1,
    F_POD_WR = 1 << 2,
    F_JSQ = 1 << 3,
    F_JIQ = 1 << 4,
    F_SHARED = 1 << 5,
    F_BUFFER = 1 << 6,
    F_RETRIES = 1 << 7,
    F_FANOUT = 1 << 8,
    F_PARALLEL = 1 << 9,
    F_LINK = 1 << 10,
    F_SCV = 1 << 11,
    F_POPULATION = 1 << 12,
    F_ASYNC = 1 << 13,
    F_COLD = 1 << 14,
    F_MITIGATION = 1 << 15,
    F_QUEUE = 1 << 16,
    F_GATEWAY = 1 << 17,
    F_FN_RETRIES = 1 << 18,
    F_ALL = (1 << 19) - 1
};

static unsigned model_features(const ac_model *m)
{
    unsigned f = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *n = &m->nodes[i];
        if (n->kind == AC_NODE_POOL) {
            const ac_pool *p = &n->u.pool;
            static const unsigned bits[] = {F_RANDOM, F_POD_DISTINCT, F_JSQ, F_JIQ, F_SHARED};
            f |=
                p->dispatch == AC_DISPATCH_POWER_OF_D && p->sampling == AC_SAMPLING_WITH_REPLACEMENT
                    ? (unsigned)F_POD_WR
                    : bits[p->dispatch];
            f |= p->buffer != AC_UNBOUNDED ? (unsigned)F_BUFFER : 0u;
            f |= p->timeout > 0.0 && p->retries > 0 ? (unsigned)F_RETRIES : 0u;
            /* every load is moderate and every pool small */
            assert_true(p->servers >= 1 && p->servers <= 50);
        } else if (n->kind == AC_NODE_FUNCTION) {
            f |= n->u.function.invocation == AC_INVOCATION_ASYNC ? (unsigned)F_ASYNC : 0u;
            f |= n->u.function.cold_start > 0.0 ? (unsigned)F_COLD : 0u;
            f |= n->u.function.retries_given && n->u.function.retries > 0 ? (unsigned)F_FN_RETRIES
                                                                          : 0u;
        } else {
            f |= n->kind == AC_NODE_QUEUE ? (unsigned)F_QUEUE : (unsigned)F_GATEWAY;
        }
    }
    for (size_t k = 0; k < m->nroutes; k++) {
        f |= m->routes[k].fanout > 1 ? (unsigned)F_FANOUT : 0u;
        f |= m->routes[k].parallel ? (unsigned)F_PARALLEL : 0u;
    }
    f |= m->nlinks > 0 ? (unsigned)F_LINK : 0u;
    for (size_t s = 0; s < m->nsources; s++)
        f |= m->sources[s].scv != 1.0 ? (unsigned)F_SCV : 0u;
    f |= m->npopulations > 0 ? (unsigned)F_POPULATION : 0u;
    for (size_t i = 0; i < m->nmitigations; i++)
        f |= m->mitigations[i].kind == AC_MIT_PROVISIONED_CONCURRENCY ||
                     m->mitigations[i].kind == AC_MIT_PRE_WARMING
                 ? (unsigned)F_MITIGATION
                 : 0u;
    return f;
}

/* Every generated model parses without a diagnostic, the same seed gives the same text, and
 * 60 models of each family cover every feature the harness promises. */
static void test_generator(void **state)
{
    unsigned seen = 0;
    (void)state;
    for (size_t i = 0; i < 60 * ACC_NFAMILIES; i++) {
        acc_model gm, again;
        ac_model *m = NULL;
        ac_diag_list diags = {0};
        ac_error err = {0};
        int rc;
        assert_int_equal(acc_model_generate(i + 1, acc_family_of(i), &gm), AC_OK);
        assert_int_equal(acc_model_generate(i + 1, acc_family_of(i), &again), AC_OK);
        assert_string_equal(gm.xml, again.xml);
        rc = ac_parser_parse_memory(gm.xml, strlen(gm.xml), "gen.xml", &m, &diags, &err);
        if (rc != AC_OK || diags.count > 0) {
            print_error("model %zu (%s): %s\n%s", i, gm.desc,
                        diags.count > 0 ? diags.items[0].message : err.message, gm.xml);
            fail();
        }
        seen |= model_features(m);
        ac_model_free(m);
        ac_diag_list_clear(&diags);
        acc_model_clear(&gm);
        acc_model_clear(&again);
    }
    if (seen != F_ALL)
        print_error("features not generated: %#x\n", (unsigned)F_ALL & ~seen);
    assert_int_equal(seen, F_ALL);
}

/* The table's binomial bound: the most misses k with P(Binomial(n, 0.05) > k) >= 1e-3, so
 * that k + 1 misses or more happen with probability below 1e-3; rows fail above it. */
static void test_table_bound(void **state)
{
    acc_results res;
    acc_table t;
    (void)state;
    memset(&res, 0, sizeof res);
    res.cap = res.n = 200;
    res.kpis = calloc(res.n, sizeof *res.kpis);
    assert_non_null(res.kpis);
    for (size_t i = 0; i < res.n; i++) {
        acc_kpi *k = &res.kpis[i];
        snprintf(k->group, sizeof k->group, "%s", i < 100 ? "a" : "b");
        snprintf(k->cls, sizeof k->cls, "%s/x", k->group);
        k->rel = 0.01 * (double)(i % 100 + 1);
        k->stated = 0.1;
        /* group a: 5 misses of 100 (the nominal rate); b: 20 of 100 */
        k->miss = i < 100 ? i % 20 == 0 : i % 5 == 0;
    }
    assert_int_equal(acc_table_build(&res, &t), AC_OK);
    assert_int_equal(t.ngroups, 2);
    for (size_t g = 0; g < 2; g++) {
        const acc_row *r = &t.groups[g];
        assert_int_equal(r->count, 100);
        assert_true(gsl_cdf_binomial_Q((unsigned)r->bound, 0.05, 100) < 1e-3);
        assert_true(gsl_cdf_binomial_Q((unsigned)r->bound - 1, 0.05, 100) >= 1e-3);
        assert_double_close(r->rel_max, 1.0, 1e-12, 0.0);
        assert_double_close(r->rel_p95, 0.95, 1e-12, 0.0);
        assert_double_close(r->rel_mean, 0.505, 1e-12, 0.0);
    }
    assert_int_equal(t.groups[0].misses, 5);
    assert_false(t.groups[0].fail);
    assert_int_equal(t.groups[1].misses, 20);
    assert_true(t.groups[1].fail);
    assert_int_equal(acc_table_failures(&t), 2); /* group b and its class */
    acc_table_clear(&t);
    acc_results_clear(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator), cmocka_unit_test(test_table_bound),
        cmocka_unit_test(test_pool),      cmocka_unit_test(test_network),
        cmocka_unit_test(test_bursty),    cmocka_unit_test(test_closed),
        cmocka_unit_test(test_function),  cmocka_unit_test(test_queue),
        cmocka_unit_test(test_gateway),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
