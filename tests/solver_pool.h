/*
 * tests/solver_pool.h: a pool built by hand and its solution by the pool solver, Erlang C
 * by its textbook sum, a model of XML simulated and an analysis number against the
 * simulation, shared by test_solver.c, test_solver_serverless.c and test_solver_headline.c
 * (header-only, every function static inline). Include after helpers.h.
 */
#ifndef AC_TESTS_SOLVER_POOL_H
#define AC_TESTS_SOLVER_POOL_H

#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "archcheck/solver.h"

static inline ac_pool make_pool(ac_dispatch dispatch, size_t servers, double mu, size_t buffer)
{
    ac_pool p;
    memset(&p, 0, sizeof p);
    p.servers = servers;
    p.service_rate = mu;
    p.dispatch = dispatch;
    p.d = 2;
    p.sampling = AC_SAMPLING_WITH_REPLACEMENT;
    p.buffer = buffer;
    return p;
}

static inline ac_solver_pool_result *solve_ok(const ac_pool *p, double rate,
                                              const ac_solver_options *opt)
{
    ac_solver_pool_result *r = NULL;
    ac_error err = {0};
    int rc = ac_solver_pool_solve(p, rate, opt, &r, &err);
    if (rc != 0)
        print_error("solve failed: %d %s\n", rc, err.message);
    assert_int_equal(rc, 0);
    assert_non_null(r);
    return r;
}

static inline const ac_solver_equilibrium *operating(const ac_solver_pool_result *r)
{
    assert_true(r->nequilibria >= 1);
    assert_true(r->operating < r->nequilibria);
    return &r->equilibria[r->operating];
}

/* Erlang C by its textbook sum: C = (a^N/N! N/(N-a)) / (sum_{k<N} a^k/k! + a^N/N! N/(N-a)),
 * independent of the Erlang B recursion that ac_solver_erlang_c and ac_test_erlang_c share. */
static inline double erlang_c_sum(size_t N, double a)
{
    double term = 1.0, s = 0.0, top;
    size_t k;
    for (k = 0; k < N; k++) {
        s += term;
        term *= a / (double)(k + 1);
    }
    top = term * (double)N / ((double)N - a);
    return top / (s + top);
}

/* Parse `xml` and simulate it (fixed replications, horizon, warm-up 1/10). */
static inline ac_sim_result *simulate_xml(const char *xml, unsigned long seed, size_t reps,
                                          double horizon)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(xml, strlen(xml), "t.xml", &m, &d, &err), AC_OK);
    ac_sim_options_init(&so);
    so.seed = seed;
    so.replications = reps;
    so.horizon = horizon;
    so.warmup = horizon / 10.0;
    if (ac_sim_run(m, &so, &sr, &err) != AC_OK)
        print_error("simulation: %s\n", err.message);
    assert_non_null(sr);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return sr;
}

/* |analysis - simulation| <= the simulation's 95% half-width + rel * simulation. */
static inline void assert_near_sim(const char *what, double analysis, const ac_sim_estimate *e,
                                   double rel)
{
    int ok = fabs(analysis - e->mean) <= e->ci95 + rel * fabs(e->mean);
    if (!ok)
        print_error("%s: analysis %.6g, simulation %.6g +- %.3g (allowed %.3g)\n", what, analysis,
                    e->mean, e->ci95, rel);
    assert_true(ok);
}

#endif
