/*
 * The steady state of an open network: traffic equations iterated with the
 * nodes' losses until the flows are consistent, every pool solved at its
 * arrival rate.
 *
 * A node passes downstream the requests that succeed: a pool with timeout
 * theta and r retries fails a request when every one of its r + 1 copies times
 * out or is lost, with probability P_to^(r+1) (P_to from the solver, models.md §3);
 * without a timeout P_to is the buffer's loss probability. An overloaded pool
 * (load >= 1, unbounded buffer) passes on its capacity N mu (its fluid limit).
 * Timed-out copies that finish later are not passed on (the client has
 * already retried).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static void node_clear(ac_node_analysis *na)
{
    ac_solver_pool_result_free(na->pool);
    memset(na, 0, sizeof *na);
}

/* Mean jobs per server of `pool` solved with another dispatch (for bounds); NAN on failure. */
static double mean_jobs_as(const ac_pool *pool, ac_dispatch dispatch, double lambda,
                           const ac_analysis_options *opt, double *err_out)
{
    ac_pool p = *pool;
    ac_solver_options so = opt->solver;
    ac_solver_pool_result *r = NULL;
    ac_error e = {0};
    double v = NAN;
    p.dispatch = dispatch;
    p.d = 2;
    p.sampling = AC_SAMPLING_DISTINCT;
    so.refine = AC_SOLVER_REFINE_ALWAYS;
    so.burst_search = 0;
    *err_out = 0.0;
    if (ac_solver_pool_solve(&p, lambda, &so, &r, &e) == AC_OK && !r->overload) {
        v = r->kpi.mean_jobs;
        *err_out = r->kpi.expected_rel_error;
    }
    ac_solver_pool_result_free(r);
    return v;
}

/* The mean field of jsq and jiq has no 1/N expansion, and its error at a few servers is
 * not small (at N = 8, rho = 0.6, jsq's mean field is 9% below the simulation). A sound
 * statement brackets the true value: no dispatcher beats one shared queue (M/M/N, exact),
 * and jsq does no worse than power-of-two (Winston 1977), jiq no worse than random. The
 * stated error is the distance from the headline value to the farther end of the bracket. */
static double bracket_error(const ac_pool *pool, double lambda, double value,
                            const ac_analysis_options *opt)
{
    double e_lo, e_hi;
    double lo = mean_jobs_as(pool, AC_DISPATCH_SHARED_QUEUE, lambda, opt, &e_lo);
    double hi = mean_jobs_as(pool, pool->dispatch == AC_DISPATCH_JSQ ? AC_DISPATCH_POWER_OF_D
                                                                      : AC_DISPATCH_RANDOM,
                             lambda, opt, &e_hi);
    if (!isfinite(lo) || !isfinite(hi) || !(value > 0.0))
        return NAN;
    hi *= 1.0 + e_hi;
    return fmax(fabs(value - lo), fabs(hi - value)) / value;
}

/* Solve pool node i at arrival rate lambda into na. */
static int solve_pool(const ac_node *node, double lambda, const ac_analysis_options *opt,
                      ac_node_analysis *na, ac_error *err)
{
    ac_pool scaled = node->u.pool;
    const ac_pool *p = &scaled;
    /* an autoscaled pool is analysed at the count its scaler holds at this load */
    if (scaled.has_autoscale)
        scaled.servers = ac_transient_autoscale_steady(&node->u.pool, lambda);
    ac_solver_pool_result *res = NULL;
    ac_error e2 = {0};
    int rc;
    node_clear(na);
    na->analysed = 1;
    na->servers = p->servers;
    na->arrival_rate = lambda;
    rc = ac_solver_pool_solve(p, lambda, &opt->solver, &res, &e2);
    if (rc != AC_OK) {
        na->analysed = 0;
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "%s", e2.message);
        return AC_OK; /* the node stays unanalysed: an AC900 finding says why */
    }
    na->pool = res;
    na->overload = res->overload;
    if (res->overload) {
        double cap = (double)p->servers * p->service_rate;
        na->throughput = cap;
        na->utilization = 1.0;
        na->loss_probability = lambda > 0.0 ? 1.0 - cap / lambda : 0.0;
        na->mean_jobs = INFINITY;
        na->mean_response_time = INFINITY;
        na->p50 = na->p95 = na->p99 = INFINITY;
        na->approximation = AC_SOLVER_APPROX_FLUID;
        na->expected_rel_error = 0.0;
        return AC_OK;
    }
    {
        const ac_solver_kpi *k = &res->kpi;
        double fail = pow(k->timeout_fraction, (double)p->retries + 1.0);
        if (p->timeout <= 0.0)
            fail = k->loss_probability;
        na->loss_probability = fail;
        na->throughput = lambda * (1.0 - fail);
        na->utilization = k->utilization;
        na->mean_jobs = k->mean_jobs;
        na->mean_response_time = k->mean_response_time;
        na->p50 = k->p50;
        na->p95 = k->p95;
        na->p99 = k->p99;
        na->approximation = k->approximation;
        na->expected_rel_error = k->expected_rel_error;
        if ((p->dispatch == AC_DISPATCH_JSQ || p->dispatch == AC_DISPATCH_JIQ) &&
            k->approximation != AC_SOLVER_APPROX_EXACT && p->retries == 0 &&
            p->buffer == AC_UNBOUNDED && p->servers > 1) {
            double b = bracket_error(p, lambda, k->mean_jobs, opt);
            if (isfinite(b) && b > na->expected_rel_error)
                na->expected_rel_error = b;
        }
    }
    return AC_OK;
}

int ac_an_network_solve(const ac_model *m, const ac_analysis_options *opt, double scale,
                        ac_analysis *a, ac_error *err)
{
    size_t n = m->nnodes;
    double *r = NULL, *lambda = NULL, *pass = NULL, *prev = NULL;
    int rc = AC_OK;
    int has_closed = m->npopulations > 0;

    a->scale = scale;
    r = ac_an_routing_matrix(m);
    lambda = calloc(n > 0 ? n : 1, sizeof *lambda);
    pass = malloc((n > 0 ? n : 1) * sizeof *pass);
    prev = calloc(n > 0 ? n : 1, sizeof *prev);
    if (r == NULL || lambda == NULL || pass == NULL || prev == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (network)");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        pass[i] = 1.0;
    for (int iter = 0; iter < 100; iter++) {
        double change = 0.0, total = 0.0;
        rc = ac_an_traffic_solve(m, r, pass, scale, lambda, err);
        if (rc != AC_OK)
            goto cleanup;
        for (size_t i = 0; i < n; i++) {
            const ac_node *node = &m->nodes[i];
            ac_node_analysis *na = &a->nodes[i];
            change = fmax(change, fabs(lambda[i] - prev[i]));
            total += lambda[i];
            if (iter > 0 && fabs(lambda[i] - prev[i]) <= 1e-12 * (lambda[i] + 1e-300))
                continue; /* unchanged input: keep the solution (or its failure) */
            if (node->kind == AC_NODE_POOL) {
                rc = solve_pool(node, lambda[i], opt, na, err);
                if (rc != AC_OK)
                    goto cleanup;
            } else {
                node_clear(na);
                na->arrival_rate = lambda[i];
                na->throughput = lambda[i];
            }
            pass[i] = na->arrival_rate > 0.0 ? na->throughput / na->arrival_rate : 1.0;
            if (!(pass[i] >= 0.0))
                pass[i] = 0.0;
        }
        if (iter > 0 && change <= 1e-10 * (total + 1e-300))
            break;
        memcpy(prev, lambda, n * sizeof *prev);
    }
    if (has_closed)
        rc = AC_OK; /* closed workloads are solved by closed.c on top */
    if (rc == AC_OK)
        rc = ac_an_qna_apply(m, a, err); /* bursty sources: the two-moment correction */
cleanup:
    free(r);
    free(lambda);
    free(pass);
    free(prev);
    return rc;
}

double ac_an_link_flow(const ac_model *m, const ac_analysis *a, size_t from, size_t to)
{
    double flow = 0.0;
    for (size_t k = 0; k < m->nroutes; k++) {
        const ac_route *rt = &m->routes[k];
        if (rt->from == from && rt->to == to)
            flow += a->nodes[from].throughput * rt->p * (double)rt->fanout / (double)rt->fanin;
    }
    return flow;
}
