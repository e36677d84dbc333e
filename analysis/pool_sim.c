/*
 * The headline numbers of a jsq or jiq pool of N > 1 servers (unbounded buffer, no timeout),
 * by simulation.
 *
 * The mean field of jsq and jiq (solver/policy_jsq.c, policy_jiq.c) is their N -> infinity
 * limit and has no 1/N expansion; at finite N it is far off (N = 20, rho = 0.9: jsq's mean
 * field says 1.009 jobs per server, below even the M/M/20 bound 1.148, where the simulator
 * finds 1.316; jiq 1.025 against 1.493). The exact finite-N chain is too large beyond a few
 * servers, so the pool alone (Poisson arrivals at its rate, as the traffic equations give
 * them) is simulated by the project's simulator (sim/) and its estimates are the headline:
 * approximation "simulation", stated error the largest relative 95% half-width of the mean
 * jobs, the mean response time and the percentiles, plus the 0.4% resolution of the
 * simulator's percentile histogram.
 *
 * The run: `AC_POOL_SIM_REPS` replications with the analysis' seed (deterministic), each of
 * horizon H = max(budget / (reps * 2 lambda), 40 tau) and warm-up H / 10, tau the slowest
 * time constant of the pool, max(1/mu, 4 / (N mu (1 - rho)^2)) (the queue above N servers
 * relaxes like an M/M/1 queue of rates lambda and N mu); the event budget is counted (a
 * run that needs more than 4 budgets is refused and the mean field stays, with its bracket
 * as the stated error). Headroom probes use a quarter of the budget; a budget is at most a
 * quarter of the analysis' simulation budget (options.sim.max_events) when that is set.
 *
 * The mean jobs is then kept inside the sound bracket [M/M/N, random] (both exact; network.c),
 * the mean response time following it by Little's law. Nothing is lost (unbounded buffer),
 * so the traffic equations see the pool pass its whole inflow on, as before. (A finite
 * buffer or timeouts keep the mean field: a simulated loss would make the traffic
 * equations' fixed point noisy.)
 */
#include <math.h>
#include <string.h>

#include "analysis/internal.h"

#define AC_POOL_SIM_REPS   5
#define AC_POOL_SIM_BUDGET 4e6 /* events of a headline run */

int ac_an_pool_simulated(const ac_pool *p)
{
    return (p->dispatch == AC_DISPATCH_JSQ || p->dispatch == AC_DISPATCH_JIQ) && p->servers > 1 &&
           p->retries == 0 && !(p->timeout > 0.0) && p->buffer == AC_UNBOUNDED;
}

/* Relative half-width of an estimate; INFINITY when undefined. */
static double rel_ci(const ac_sim_estimate *e)
{
    if (e->n < 2 || !(fabs(e->mean) > 0.0))
        return e->n >= 2 && e->ci95 == 0.0 ? 0.0 : INFINITY;
    return e->ci95 / fabs(e->mean);
}

int ac_an_pool_simulate(const ac_pool *pool, double lambda, const ac_analysis_options *opt,
                        ac_node_analysis *na, ac_error *err)
{
    char node_id[] = "pool", source_id[] = "source";
    ac_node node;
    ac_source src;
    ac_model m;
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    ac_error e2 = {0};
    const ac_sim_node_result *r;
    double n = (double)pool->servers, mu = pool->service_rate, rho = lambda / (n * mu);
    double budget = AC_POOL_SIM_BUDGET * (opt->solver.kpi_only ? 0.25 : 1.0), tau, h, rel;
    int rc;

    if (!(lambda > 0.0))
        return 1;
    if (opt->sim.max_events > 0) /* the analysis' simulation budget bounds this run too */
        budget = fmin(budget, 0.25 * (double)opt->sim.max_events);
    tau = rho < 1.0 ? fmax(1.0 / mu, 4.0 / (n * mu * (1.0 - rho) * (1.0 - rho))) : 1.0 / mu;
    h = fmax(budget / (AC_POOL_SIM_REPS * 2.0 * lambda), 40.0 * tau);
    memset(&node, 0, sizeof node);
    memset(&src, 0, sizeof src);
    memset(&m, 0, sizeof m);
    node.id = node_id;
    node.kind = AC_NODE_POOL;
    node.u.pool = *pool;
    node.u.pool.has_autoscale = 0;
    src.id = source_id;
    src.to = 0;
    src.rate = lambda;
    src.scv = 1.0;
    src.profile = AC_NONE;
    m.nodes = &node;
    m.nnodes = 1;
    m.sources = &src;
    m.nsources = 1;
    ac_sim_options_init(&so);
    so.seed = opt->sim.seed;
    so.replications = AC_POOL_SIM_REPS;
    so.horizon = h;
    so.warmup = h / 10.0;
    so.max_events = (unsigned long long)(4.0 * budget);
    rc = ac_sim_run(&m, &so, &sr, &e2);
    if (rc == AC_ENOMEM) {
        ac_sim_result_free(sr);
        return ac_error_set(err, rc, "%s", e2.message);
    }
    if (rc != AC_OK || sr == NULL || sr->nnodes != 1) {
        ac_sim_result_free(sr);
        return 1; /* over budget: the caller keeps the mean field and its bracket */
    }
    r = &sr->nodes[0];
    rel = fmax(fmax(rel_ci(&r->mean_jobs), rel_ci(&r->mean_response_time)),
               fmax(rel_ci(&r->p95_response_time), rel_ci(&r->p99_response_time)));
    rel = fmax(rel, rel_ci(&r->p50_response_time)) + 0.004;
    if (!isfinite(rel)) {
        ac_sim_result_free(sr);
        return 1;
    }
    na->loss_probability = 0.0; /* unbounded buffer */
    na->throughput = lambda;
    na->utilization = rho; /* exact: nothing is lost, every arrival is served */
    na->mean_jobs = r->mean_jobs.mean;
    na->mean_response_time = r->mean_response_time.mean;
    na->p50 = r->p50_response_time.mean;
    na->p95 = r->p95_response_time.mean;
    na->p99 = r->p99_response_time.mean;
    na->approximation = AC_SOLVER_APPROX_SIMULATION;
    na->expected_rel_error = rel;
    ac_sim_result_free(sr);
    return 0;
}
