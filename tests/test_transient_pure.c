/*
 * A transient evaluation is a function of (plan, scale) alone, to the bit: on
 * samples/faas-cascade.xml (73 states, CVODE with KLU) plans A and B at two workload
 * factors, evaluated on one workspace in several orders, give the same bits as each on a
 * fresh workspace as its first evaluation. Before ac_transient_new fixed the Jacobian's
 * pattern and KLU's pivot order (solver/transient.c ws_prime), the pattern grew during a
 * workspace's first run and a later evaluation of A differed by up to 4.5e-9 in its score
 * (3.2e-7 for B), so that --jobs 1 and --jobs 2 could disagree (one workspace per job).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "archcheck/parser.h"
#include "archcheck/search.h"
#include "tests/helpers.h"

#define NPLANS 3

typedef struct fx {
    ac_model *m;
    ac_search_space *sp;
    ac_transient_options opt;
    ac_transient_fault plans[NPLANS][AC_TRANSIENT_PLAN_MAX];
    size_t nfaults;
} fx;

/* FNV-1a over the bytes of n doubles, chained. */
static uint64_t fnv(uint64_t h, const double *x, size_t n)
{
    const unsigned char *p = (const unsigned char *)x;
    for (size_t i = 0; x != NULL && i < n * sizeof *x; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* Every node's trajectories the objective reads, and the end-to-end summaries. */
static uint64_t digest(const ac_transient *tr)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t v = 0; v < tr->nnodes; v++) {
        const ac_transient_node *n = &tr->nodes[v];
        double s[] = {n->error_fraction, n->throttle_fraction, n->backlog_duration};
        h = fnv(h, n->mean_jobs, tr->nsamples);
        h = fnv(h, n->throughput, tr->nsamples);
        h = fnv(h, n->arrival_rate, tr->nsamples);
        h = fnv(h, n->execution_rate, tr->nsamples);
        h = fnv(h, n->throttle_rate, tr->nsamples);
        h = fnv(h, s, 3);
    }
    {
        double e[] = {tr->e2e_error_fraction, tr->e2e_throttle_fraction};
        h = fnv(h, e, 2);
    }
    return h;
}

static void fx_init(fx *f)
{
    ac_diag_list d;
    ac_error err;
    double genes[AC_SEARCH_GENES_MAX];
    memset(f, 0, sizeof *f);
    ac_diag_list_init(&d);
    memset(&err, 0, sizeof err);
    assert_int_equal(
        ac_parser_parse_file(AC_SOURCE_DIR "/samples/faas-cascade.xml", &f->m, &d, &err), AC_OK);
    ac_diag_list_clear(&d);
    ac_transient_options_init(&f->opt);
    f->opt.percentiles = 0;
    assert_int_equal(ac_search_space_new(f->m, ac_transient_horizon(f->m, &f->opt), &f->sp, &err),
                     AC_OK);
    f->nfaults = ac_search_space_nfaults(f->sp);
    assert_true(f->nfaults > 0 && f->nfaults <= AC_TRANSIENT_PLAN_MAX);
    for (size_t p = 0; p < NPLANS; p++) {
        for (size_t g = 0; g < ac_search_space_ngenes(f->sp); g++) /* fixed, spread genes */
            genes[g] = fmod(0.37 * (double)(p + 1) + 0.618 * (double)g, 1.0);
        ac_search_space_decode(f->sp, genes, f->plans[p]);
    }
}

static void fx_free(fx *f)
{
    ac_search_space_free(f->sp);
    ac_model_free(f->m);
}

static uint64_t eval(fx *f, ac_transient_ws *ws, size_t p, double scale)
{
    ac_transient_plan plan = {f->nfaults, f->plans[p]};
    const ac_transient *tr = NULL;
    ac_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(ac_transient_eval(ws, &plan, scale, &tr, &err), AC_OK);
    return digest(tr);
}

/* The first evaluation of a fresh workspace. */
static uint64_t fresh(fx *f, size_t p, double scale)
{
    ac_transient_ws *ws = NULL;
    ac_error err;
    uint64_t h;
    memset(&err, 0, sizeof err);
    assert_int_equal(ac_transient_new(f->m, &f->opt, &ws, &err), AC_OK);
    h = eval(f, ws, p, scale);
    ac_transient_ws_free(ws);
    return h;
}

/* Plans 0 and 1 at factors 1 and 0.8 on one workspace, in two orders each (a plan, another
 * plan, the first again; a factor, the other, back), against fresh workspaces. */
static void test_eval_pure(void **state)
{
    static const double scales[2] = {1.0, 0.8};
    static const size_t seq[][2] = {{0, 0}, {1, 0}, {0, 0}, {0, 1}, {1, 1}, {0, 0},
                                    {1, 1}, {0, 1}, {2, 0}, {1, 0}, {2, 1}, {0, 1}};
    uint64_t ref[NPLANS][2];
    ac_transient_ws *ws = NULL;
    ac_error err;
    fx f;
    (void)state;
    fx_init(&f);
    f.opt.scale = 1.0;
    for (size_t p = 0; p < NPLANS; p++)
        for (size_t s = 0; s < 2; s++)
            ref[p][s] = fresh(&f, p, scales[s]);
    assert_true(ref[0][0] != ref[1][0] && ref[0][0] != ref[0][1]); /* the digest sees them */
    memset(&err, 0, sizeof err);
    assert_int_equal(ac_transient_new(f.m, &f.opt, &ws, &err), AC_OK);
    for (size_t k = 0; k < sizeof seq / sizeof seq[0]; k++) {
        uint64_t h = eval(&f, ws, seq[k][0], scales[seq[k][1]]);
        if (h != ref[seq[k][0]][seq[k][1]])
            fail_msg("evaluation %zu (plan %zu at %g) differs from a fresh workspace's", k,
                     seq[k][0], scales[seq[k][1]]);
    }
    { /* a run without faults in between changes nothing either */
        const ac_transient *tr = NULL;
        assert_int_equal(ac_transient_eval(ws, NULL, 0.9, &tr, &err), AC_OK);
        assert_true(eval(&f, ws, 1, 1.0) == ref[1][0]);
    }
    ac_transient_ws_free(ws);
    fx_free(&f);
}

/* The objective's scores: job 1's workspace (a plan first) and job 0's (the no-fault base
 * first, then a plan at another factor) give the same bits for the same plans in other
 * orders. */
static void test_objective_pure(void **state)
{
    ac_search_objective *obj = NULL;
    ac_error err;
    double a[NPLANS], b[NPLANS];
    fx f;
    (void)state;
    fx_init(&f);
    memset(&err, 0, sizeof err);
    assert_int_equal(ac_search_objective_new(f.m, f.sp, &f.opt, 1.0, 2, &obj, &err), AC_OK);
    for (size_t p = 0; p < NPLANS; p++)
        assert_int_equal(ac_search_objective_eval_plan(obj, 1, f.plans[p], &a[p], NULL, &err),
                         AC_OK);
    assert_int_equal(ac_search_objective_set_scale(obj, 0.8, &err), AC_OK);
    assert_int_equal(ac_search_objective_eval_plan(obj, 0, f.plans[2], &b[0], NULL, &err), AC_OK);
    assert_int_equal(ac_search_objective_set_scale(obj, 1.0, &err), AC_OK);
    for (size_t p = NPLANS; p-- > 0;)
        assert_int_equal(ac_search_objective_eval_plan(obj, 0, f.plans[p], &b[p], NULL, &err),
                         AC_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_true(a[0] != a[1]);
    ac_search_objective_free(obj);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_pure),
        cmocka_unit_test(test_objective_pure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
