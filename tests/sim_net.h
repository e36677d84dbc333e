/*
 * tests/sim_net.h: models built by hand (pools, links, routes, sources in structs) and
 * the simulator's estimates against exact values, shared by test_sim.c,
 * test_sim_replications.c and test_sim_serverless.c (header-only, every function static
 * inline). Include after helpers.h.
 */
#ifndef AC_TESTS_SIM_NET_H
#define AC_TESTS_SIM_NET_H

#include <gsl/gsl_cdf.h>

#include "archcheck/model.h"
#include "archcheck/sim.h"

/* ---- building models by hand ----------------------------------------------------------------- */

typedef struct test_net {
    ac_node nodes[6];
    ac_route routes[8];
    ac_link links[2];
    ac_source sources[2];
    ac_population pops[1];
    ac_profile profiles[1];
    ac_profile_point points[4];
    ac_model m;
} test_net;

static char node_ids[6][2] = {"a", "b", "c", "d", "e", "f"};
static char source_ids[2][3] = {"s0", "s1"};
static char file_name[] = "test.xml";

static inline void net_init(test_net *t)
{
    memset(t, 0, sizeof *t);
    t->m.nodes = t->nodes;
    t->m.routes = t->routes;
    t->m.links = t->links;
    t->m.sources = t->sources;
    t->m.populations = t->pops;
    t->m.profiles = t->profiles;
    t->m.file = file_name;
}

/* Add a pool; returns its index. */
static inline size_t net_pool(test_net *t, size_t servers, double mu, ac_dispatch dispatch)
{
    size_t i = t->m.nnodes++;
    ac_node *n = &t->nodes[i];
    n->id = node_ids[i];
    n->kind = AC_NODE_POOL;
    n->u.pool.servers = servers;
    n->u.pool.service_rate = mu;
    n->u.pool.dispatch = dispatch;
    n->u.pool.d = 2;
    n->u.pool.sampling = AC_SAMPLING_DISTINCT;
    n->u.pool.buffer = AC_UNBOUNDED;
    return i;
}

static inline ac_route *net_route(test_net *t, size_t from, size_t to, double p)
{
    ac_route *r = &t->routes[t->m.nroutes++];
    r->from = from;
    r->to = to;
    r->p = p;
    r->fanout = 1;
    r->fanin = 1;
    return r;
}

static inline ac_source *net_source(test_net *t, size_t to, double rate)
{
    ac_source *s = &t->sources[t->m.nsources];
    s->id = source_ids[t->m.nsources];
    t->m.nsources++;
    s->to = to;
    s->rate = rate;
    s->scv = 1;
    s->profile = AC_NONE;
    return s;
}

static inline ac_sim_options fixed_opt(unsigned long seed, size_t reps, double horizon,
                                       double warmup)
{
    ac_sim_options o;
    ac_sim_options_init(&o);
    o.seed = seed;
    o.replications = reps;
    o.horizon = horizon;
    o.warmup = warmup;
    return o;
}

static inline ac_sim_result *run_ok(const test_net *t, const ac_sim_options *o)
{
    ac_sim_result *res = NULL;
    ac_error err = {0};
    int rc = ac_sim_run(&t->m, o, &res, &err);
    if (rc != 0)
        print_error("ac_sim_run: %d %s\n", rc, err.message);
    assert_int_equal(rc, 0);
    assert_non_null(res);
    return res;
}

/* The 95% half-width widened to 99.9% (Student t with n - 1 degrees of freedom): test_sim.c
 * and test_sim_serverless.c make about 85 interval checks per run together, and at 95% each
 * one misses by chance 1 time in 20 (about 4 misses per run whatever the generator); at 99.9%
 * the two files miss by chance about 1 run in 12 at most (Bonferroni). The 95% intervals
 * themselves are checked for coverage over 40 seeds (test_ci_coverage, test_ci_coverage_auto
 * in test_sim.c). */
static inline double ci999(ac_sim_estimate e)
{
    if (e.n < 2 || !isfinite(e.ci95))
        return e.ci95;
    return e.ci95 * gsl_cdf_tdist_Pinv(0.9995, (double)(e.n - 1)) /
           gsl_cdf_tdist_Pinv(0.975, (double)(e.n - 1));
}

/* One check behind the assertions below: the exact value lies within the 99.9% interval
 * (ci999) widened by rel_slack |exact| + abs_slack, and (rel_width > 0) the 95% interval is
 * informative, not wider than rel_width |exact|. Fails the test with the estimate printed. */
static inline void sim_check(const char *what, ac_sim_estimate e, double x, double rel_slack,
                             double abs_slack, double rel_width)
{
    if (!(fabs(e.mean - x) <= ci999(e) + rel_slack * fabs(x) + abs_slack) ||
        (rel_width > 0.0 && !(e.ci95 <= rel_width * fabs(x)))) {
        print_error("%s = %.6g +- %.3g (n %zu), exact %.6g\n", what, e.mean, e.ci95, e.n, x);
        fail();
    }
}

/* The exact value lies in the 95% interval, which is informative. */
#define assert_in_ci(est, exact, rel_width) sim_check(#est, (est), (exact), 0.0, 0.0, (rel_width))

/* Within the interval widened by a relative slack (histogram percentiles). */
#define assert_near_ci(est, exact, slack) sim_check(#est, (est), (exact), (slack), 0.0, 0.0)

static inline size_t in_ci(ac_sim_estimate e, double x)
{
    return fabs(e.mean - x) <= e.ci95 ? 1u : 0u;
}

/* Root of a decreasing function g on [lo, hi] by bisection. */
static inline double bisect(double (*g)(double, const double *), const double *par, double lo,
                            double hi)
{
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (g(mid, par) > 0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

#endif
