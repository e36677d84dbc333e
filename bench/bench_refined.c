/*
 * bench_refined: the refined mean field (Gast and Van Houdt, order 1/N) of power-of-d pools
 * against the simulator, over d = 2, 3 (with replacement), N = 10 .. 300, rho = 0.7 .. 0.99.
 * Per case: the mean field MF, the refined R, the simulation S +- its 95% half-width, the
 * errors |MF - S| / S and |R - S| / S, the gap g = |R - MF| / MF and the solver's stated
 * errors of both. A case passes when each error is within its stated error plus the
 * simulation's relative half-width. The last column is kappa = (|R - S| - ci) / (S g^2), the
 * constant the solver's statement of the refined error (kappa_max g^2) must cover.
 * Exit status 1 when a case fails.
 *
 * usage: bench_refined
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archcheck/sim.h"
#include "archcheck/solver.h"

static int one_case(size_t d, size_t n, double rho, double *kappa_max, int *fail)
{
    char node_id[] = "p", source_id[] = "s";
    ac_pool p;
    ac_node node;
    ac_source src;
    ac_model m;
    ac_solver_options o;
    ac_solver_pool_result *r = NULL;
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    ac_error err = {0};
    double lambda = rho * (double)n, mf, rf, s, ci, gap, emf, erf, kappa, tau;
    const ac_solver_equilibrium *eq;
    int ok;
    memset(&p, 0, sizeof p);
    p.servers = n;
    p.service_rate = 1.0;
    p.dispatch = AC_DISPATCH_POWER_OF_D;
    p.d = d;
    p.sampling = AC_SAMPLING_WITH_REPLACEMENT;
    p.buffer = AC_UNBOUNDED;
    ac_solver_options_init(&o);
    o.burst_search = 0;
    if (ac_solver_pool_solve(&p, lambda, &o, &r, &err) != AC_OK || r->nequilibria == 0)
        return -1;
    eq = &r->equilibria[r->operating];
    if (!eq->has_refined) {
        ac_solver_pool_result_free(r);
        return -1;
    }
    mf = eq->mean_field.mean_jobs;
    rf = eq->refined.mean_jobs;
    memset(&node, 0, sizeof node);
    memset(&src, 0, sizeof src);
    memset(&m, 0, sizeof m);
    node.id = node_id;
    node.kind = AC_NODE_POOL;
    node.u.pool = p;
    src.id = source_id;
    src.rate = lambda;
    src.scv = 1.0;
    src.profile = AC_NONE;
    m.nodes = &node;
    m.nnodes = 1;
    m.sources = &src;
    m.nsources = 1;
    ac_sim_options_init(&so);
    so.seed = 3;
    so.replications = 10;
    tau = fmax(1.0, 4.0 / ((double)n * (1.0 - rho) * (1.0 - rho)));
    so.horizon = fmax(1e7 / (10.0 * 2.0 * lambda), 40.0 * tau);
    so.warmup = so.horizon / 10.0;
    if (ac_sim_run(&m, &so, &sr, &err) != AC_OK) {
        ac_solver_pool_result_free(r);
        return -1;
    }
    s = sr->nodes[0].mean_jobs.mean;
    ci = sr->nodes[0].mean_jobs.ci95;
    gap = fabs(rf - mf) / mf;
    emf = fabs(mf - s) / s;
    erf = fabs(rf - s) / s;
    kappa = gap > 0.0 ? fmax(0.0, fabs(rf - s) - ci) / (s * gap * gap) : 0.0;
    if (kappa > *kappa_max)
        *kappa_max = kappa;
    ok = emf <= eq->mean_field.expected_rel_error + ci / s &&
         erf <= eq->refined.expected_rel_error + ci / s &&
         r->kpi.approximation == AC_SOLVER_APPROX_REFINED;
    printf("%zu %5zu %5.2f  %9.5f %9.5f  %9.5f+-%.5f  %6.2f%% (%5.2f%%)  %6.3f%% (%6.3f%%)  "
           "%6.2f%%  %6.2f  %s\n",
           d, n, rho, mf, rf, s, ci, 100.0 * emf, 100.0 * eq->mean_field.expected_rel_error,
           100.0 * erf, 100.0 * eq->refined.expected_rel_error, 100.0 * gap, kappa,
           ok ? "ok" : "FAIL");
    fflush(stdout);
    if (!ok)
        *fail = 1;
    ac_sim_result_free(sr);
    ac_solver_pool_result_free(r);
    return 0;
}

int main(void)
{
    static const size_t ds[] = {2, 3};
    static const size_t ns[] = {10, 20, 50, 100, 300};
    static const double rhos[] = {0.7, 0.9, 0.95, 0.99};
    double kappa_max = 0.0;
    int fail = 0;
    printf("bench_refined: power-of-d, mean jobs per server: mean field, refined, simulation\n");
    printf("d     N   rho         MF         R   simulation           MF err (stated)  "
           "R err (stated)       gap   kappa\n");
    for (size_t a = 0; a < 2; a++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++)
                if (one_case(ds[a], ns[i], rhos[j], &kappa_max, &fail) != 0) {
                    printf("d=%zu N=%zu rho=%.2f: failed to run\n", ds[a], ns[i], rhos[j]);
                    fail = 1;
                }
    printf("bench_refined: kappa_max %.3g; %s\n", kappa_max,
           fail ? "FAIL" : "every error within its statement");
    return fail;
}
