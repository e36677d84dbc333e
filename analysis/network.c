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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

#define AC_AN_JSQ_BUFFER_ERROR 0.30     /* measured; see solve_pool */
#define AC_AN_STORM_ERROR      INFINITY /* see solve_pool */
#include "archcheck/batch.h"
#include "archcheck/link.h"

void ac_an_node_clear(ac_node_analysis *na)
{
    ac_solver_pool_result_free(na->pool);
    ac_solver_batch_result_clear(na->batch);
    free(na->batch);
    free(na->function);
    free(na->arrival_queue);
    if (na->queue != NULL)
        ac_solver_queue_result_clear(na->queue);
    free(na->queue);
    free(na->gateway);
    memset(na, 0, sizeof *na);
}

/* Is function node i fed by a queue (polled)? */
static int is_polled(const ac_model *m, size_t i)
{
    for (size_t k = 0; k < m->nroutes; k++)
        if (m->routes[k].to == i && m->nodes[m->routes[k].from].kind == AC_NODE_QUEUE)
            return 1;
    return 0;
}

/* The most executions of polled function i at once: the sum of its queues' max-consumers. */
static size_t polled_slots(const ac_model *m, size_t i)
{
    size_t total = 0;
    for (size_t q = 0; q < m->nnodes; q++) {
        if (m->nodes[q].kind != AC_NODE_QUEUE)
            continue;
        for (size_t k = 0; k < m->nroutes; k++)
            if (m->routes[k].from == q && m->routes[k].to == i) {
                total += m->nodes[q].u.queue.max_consumers;
                break;
            }
    }
    return total;
}

/* The share of polled function i's executions that a message arriving to a free consumer
 * starts (the others start on the instance an execution of the same queue frees, warm):
 * received messages (1 - P(wait)) per execution, flow-weighted over its queues (1 before
 * they are solved). */
static double polled_fresh(const ac_model *m, const ac_analysis *a, size_t i)
{
    double fresh = 0.0, execs = 0.0;
    for (size_t k = 0; k < m->nroutes; k++) {
        const ac_route *rt = &m->routes[k];
        const ac_solver_queue_result *q = a->nodes[rt->from].queue;
        if (rt->to != i || m->nodes[rt->from].kind != AC_NODE_QUEUE)
            continue;
        if (q == NULL || q->overload || !(q->execution_rate > 0.0) || rt->fanout > 1)
            return 1.0; /* a fan-out's wait is an upper bound: no share taken off */
        fresh += q->receive_rate * (double)rt->fanout * (1.0 - q->wait_probability);
        execs += q->execution_rate;
    }
    return execs > 0.0 ? fmin(1.0, fresh / execs) : 1.0;
}

/* Messages per execution of polled function i: its queues' greedy batches, weighted by
 * the messages each hands over (1 before the queues are solved). */
static double polled_batch(const ac_model *m, const ac_analysis *a, size_t i, double *err_out)
{
    double msgs = 0.0, execs = 0.0;
    *err_out = 0.0;
    for (size_t k = 0; k < m->nroutes; k++) {
        const ac_route *rt = &m->routes[k];
        const ac_node_analysis *q = &a->nodes[rt->from];
        double flow;
        if (rt->to != i || m->nodes[rt->from].kind != AC_NODE_QUEUE || q->queue == NULL ||
            !(q->queue->mean_batch >= 1.0))
            continue;
        flow = ac_an_node_outflow(a, rt->from) * rt->p * (double)rt->fanout / (double)rt->fanin;
        msgs += flow;
        if (m->nodes[rt->from].u.queue.batch_size > 1) /* the batches are the queue's model */
            *err_out = fmax(*err_out, q->expected_rel_error);
        execs += flow / q->queue->mean_batch;
    }
    return execs > 0.0 ? msgs / execs : 1.0;
}

/* The consumer route of queue node i: its only route, to a function; NULL otherwise (the
 * solver's helper, shared with the transient). */
const ac_route *ac_an_queue_consumer(const ac_model *m, size_t i)
{
    return ac_solver_queue_consumer_route(m, i);
}

double ac_an_node_outflow(const ac_analysis *a, size_t i)
{
    const ac_node_analysis *na = &a->nodes[i];
    return na->queue != NULL && !na->queue->overload ? na->queue->receive_rate : na->throughput;
}

/* Copy the common numbers of a serverless solution into na. */
static void fill_common(ac_node_analysis *na, double throughput, double utilization, double loss,
                        double mean_jobs, double mean, double p50, double p95, double p99,
                        ac_solver_approx approx, double rel_error)
{
    na->throughput = throughput;
    na->utilization = utilization;
    na->loss_probability = loss;
    na->mean_jobs = mean_jobs;
    na->mean_response_time = mean;
    na->p50 = p50;
    na->p95 = p95;
    na->p99 = p99;
    na->approximation = approx;
    na->expected_rel_error = rel_error;
}

static int solve_function(const ac_model *m, const ac_analysis *a, size_t i, double lambda,
                          ac_node_analysis *na, ac_error *err)
{
    const ac_function *fn = &m->nodes[i].u.function;
    ac_function polled_fn;
    ac_solver_function_result *r = malloc(sizeof *r);
    ac_solver_fn_mode mode;
    ac_error e2 = {0};
    int polled = is_polled(m, i);
    double batch, batch_err = 0.0;
    ac_an_node_clear(na);
    if (r == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (function)");
    mode = polled                                  ? AC_SOLVER_FN_POLLED
           : fn->invocation == AC_INVOCATION_ASYNC ? AC_SOLVER_FN_ASYNC
                                                   : AC_SOLVER_FN_SYNC;
    na->arrival_rate = lambda;
    na->polled = polled;
    batch = polled ? polled_batch(m, a, i, &batch_err) : 1.0; /* an execution runs a batch */
    if (polled) {
        /* its queues start at most their max-consumers executions at once: the instances
           ever busy (and so its cold starts) are bounded by that, not the concurrency */
        size_t mc = polled_slots(m, i);
        polled_fn = *fn;
        if (mc < polled_fn.concurrency)
            polled_fn.concurrency = mc;
        fn = &polled_fn;
    }
    if ((polled ? ac_solver_function_solve_polled(fn, lambda / batch, polled_fresh(m, a, i), r, &e2)
                : ac_solver_function_solve(fn, lambda / batch, mode, 0.0, r, &e2)) != AC_OK) {
        free(r);
        snprintf(na->why, sizeof na->why, "%.150s", e2.message);
        return AC_OK; /* not analysed: an AC900 finding says so */
    }
    na->function = r;
    na->analysed = 1;
    na->overload = mode == AC_SOLVER_FN_ASYNC && r->overload;
    if (na->overload) {
        fill_common(na, (double)fn->concurrency / r->occupancy, 1.0,
                    lambda > 0.0 ? fmax(0.0, 1.0 - (double)fn->concurrency / r->load) : 0.0,
                    INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, AC_SOLVER_APPROX_FLUID, 0.0);
        return AC_OK;
    }
    if (polled && m->nodes[i].u.function.concurrency > 0) { /* per its own concurrency */
        r->concurrency = m->nodes[i].u.function.concurrency;
        r->utilization = r->busy / (double)r->concurrency;
    }
    fill_common(na, r->throughput * batch, r->utilization, r->loss_probability, r->busy,
                r->mean_response_time, r->p50, r->p95, r->p99, r->approximation,
                r->expected_rel_error);
    na->loss_abs_error = r->throttle_abs_error;
    if (polled) { /* behind a fan-out: the siblings' failures and the instances' FIFO */
        for (size_t k = 0; k < m->nroutes; k++)
            if (m->routes[k].to == i && m->nodes[m->routes[k].from].kind == AC_NODE_QUEUE)
                batch_err = fmax(batch_err, ac_solver_queue_fanout_error(&m->nodes[i].u.function,
                                                                         m->routes[k].fanout,
                                                                         polled_slots(m, i)));
    }
    if (batch_err > na->expected_rel_error) {
        na->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
        na->expected_rel_error = batch_err;
    }
    return AC_OK;
}

static int solve_queue(const ac_model *m, size_t i, double lambda, const ac_analysis *a,
                       const ac_analysis_options *opt, ac_node_analysis *na, ac_error *err)
{
    const ac_route *rt = ac_an_queue_consumer(m, i);
    ac_solver_queue_consumer cons;
    ac_solver_queue_result *r;
    ac_error e2 = {0};
    int rc;
    ac_an_node_clear(na);
    na->arrival_rate = lambda;
    if (rt == NULL)
        return AC_OK; /* not analysed: the stability check says why */
    cons.function = &m->nodes[rt->to].u.function;
    cons.fanout = rt->fanout;
    cons.delay = 0.0;
    cons.cold_probability =
        a->nodes[rt->to].function != NULL ? a->nodes[rt->to].function->cold_probability : 0.0;
    cons.cold_rel_error =
        a->nodes[rt->to].function != NULL ? a->nodes[rt->to].function->cold_rel_error : 0.0;
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (queue)");
    rc = ac_solver_queue_solve(&m->nodes[i].u.queue, lambda, &cons, &opt->solver, r, &e2);
    if (rc != AC_OK) {
        free(r);
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "%s", e2.message);
        snprintf(na->why, sizeof na->why, "%.150s", e2.message);
        return AC_OK;
    }
    na->queue = r;
    na->analysed = 1;
    na->overload = r->overload;
    fill_common(na, r->throughput, r->utilization, r->loss_probability, r->mean_messages,
                r->mean_wait, r->p50, r->p95, r->p99, r->approximation, r->expected_rel_error);
    return AC_OK;
}

static int solve_gateway(const ac_model *m, size_t i, double lambda, ac_node_analysis *na,
                         ac_error *err)
{
    ac_solver_gateway_result *r = malloc(sizeof *r);
    ac_error e2 = {0};
    int rc;
    ac_an_node_clear(na);
    na->arrival_rate = lambda;
    if (r == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (gateway)");
    rc = ac_solver_gateway_solve(&m->nodes[i].u.gateway, lambda, 0.0, r, &e2);
    if (rc != AC_OK) {
        free(r);
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "%s", e2.message);
        snprintf(na->why, sizeof na->why, "%.150s", e2.message);
        return AC_OK;
    }
    na->gateway = r;
    na->analysed = 1;
    fill_common(na, r->throughput, r->utilization, r->reject_probability, r->mean_deficit, 0.0, 0.0,
                0.0, 0.0, r->approximation,
                r->approximation != AC_SOLVER_APPROX_EXACT && r->reject_probability > 0.0
                    ? r->expected_abs_error / r->reject_probability
                    : 0.0);
    na->loss_abs_error = r->approximation != AC_SOLVER_APPROX_EXACT ? r->expected_abs_error : 0.0;
    return AC_OK;
}

/* `pool` solved with another dispatch (power-of-d with d = 2 and distinct sampling where
 * it is power-of-d; refined; no burst search): the result (caller frees) or NULL on failure
 * or overload. */
static ac_solver_options warm_options(const ac_analysis_options *opt, const ac_an_warm_set *w,
                                      size_t servers, double lambda);
static void warm_keep(ac_an_warm_set *w, const ac_solver_pool_result *res, size_t servers,
                      double lambda);

/* ... w: the node's warm starts (its store for `dispatch`), or NULL. */
static ac_solver_pool_result *solve_as(const ac_pool *pool, ac_dispatch dispatch, double lambda,
                                       const ac_analysis_options *opt, ac_an_warm *w)
{
    ac_pool p = *pool;
    ac_an_warm_set *ws = w != NULL ? &w->as[dispatch] : NULL;
    ac_solver_options so = warm_options(opt, ws, p.servers, lambda);
    ac_solver_pool_result *r = NULL;
    ac_error e = {0};
    p.dispatch = dispatch;
    p.d = 2;
    p.sampling = AC_SAMPLING_DISTINCT;
    so.refine = AC_SOLVER_REFINE_ALWAYS;
    so.burst_search = 0;
    int rc = ac_solver_pool_solve(&p, lambda, &so, &r, &e);
    if (rc == AC_OK && ws != NULL)
        warm_keep(ws, r, p.servers, lambda);
    if (rc == AC_OK && !r->overload)
        return r;
    ac_solver_pool_result_free(r);
    return NULL;
}

/* Mean jobs per server of `pool` solved with another dispatch (for bounds); NAN on failure. */
static double mean_jobs_as(const ac_pool *pool, ac_dispatch dispatch, double lambda,
                           const ac_analysis_options *opt, ac_an_warm *w, double *err_out)
{
    ac_solver_pool_result *r = solve_as(pool, dispatch, lambda, opt, w);
    double v = NAN;
    *err_out = 0.0;
    if (r != NULL) {
        v = r->kpi.mean_jobs;
        *err_out = r->kpi.expected_rel_error;
    }
    ac_solver_pool_result_free(r);
    return v;
}

/* The loss of `pool` solved with another dispatch (the same retries and timeout), raised by
 * its stated relative error; NAN on failure. */
static double loss_as(const ac_pool *pool, ac_dispatch dispatch, double lambda,
                      const ac_analysis_options *opt, ac_an_warm *w)
{
    ac_solver_pool_result *r = solve_as(pool, dispatch, lambda, opt, w);
    double v = NAN;
    if (r != NULL)
        v = pool->timeout > 0.0 ? pow(r->kpi.timeout_fraction, (double)pool->retries + 1.0)
                                : r->kpi.loss_probability;
    if (isfinite(v) && r != NULL && r->kpi.expected_rel_error > 0.0)
        v *= 1.0 + r->kpi.expected_rel_error;
    ac_solver_pool_result_free(r);
    return v;
}

/* The absolute error of a buffered (or timed-out) pool's loss `value` under a dispatch that
 * routes no worse than random (power-of-d, jiq) or than power-of-two (jsq): the distance to
 * that dispatch's loss, the bracket's upper end. */
static double loss_bracket_abs(const ac_pool *p, double lambda, const ac_analysis_options *opt,
                               ac_an_warm *w, double value)
{
    double hi =
        loss_as(p, p->dispatch == AC_DISPATCH_JSQ ? AC_DISPATCH_POWER_OF_D : AC_DISPATCH_RANDOM,
                lambda, opt, w);
    return isfinite(hi) ? fmin(1.0, fmax(0.0, hi - value)) : 1.0;
}

/* The mean field of jsq and jiq has no 1/N expansion, and its error at a few servers is
 * not small (at N = 8, rho = 0.6, jsq's mean field is 9% below the simulation). A sound
 * statement brackets the true value: no dispatcher beats one shared queue (M/M/N, exact),
 * and jsq does no worse than power-of-two (Winston 1977), jiq no worse than random. The
 * stated error is the distance from the headline value to the farther end of the bracket. */
static double bracket_error(const ac_pool *pool, double lambda, double value,
                            const ac_analysis_options *opt, ac_an_warm *w)
{
    double e_lo, e_hi;
    double lo = mean_jobs_as(pool, AC_DISPATCH_SHARED_QUEUE, lambda, opt, w, &e_lo);
    double hi = mean_jobs_as(
        pool, pool->dispatch == AC_DISPATCH_JSQ ? AC_DISPATCH_POWER_OF_D : AC_DISPATCH_RANDOM,
        lambda, opt, w, &e_hi);
    if (!isfinite(lo) || !isfinite(hi) || !(value > 0.0))
        return NAN;
    hi *= 1.0 + e_hi;
    return fmax(fabs(value - lo), fabs(hi - value)) / value;
}

void ac_an_warm_clear(ac_an_warm *w)
{
    for (size_t s = 0; s <= AC_DISPATCH_SHARED_QUEUE + 1; s++) {
        ac_an_warm_set *ws = s == 0 ? &w->own : &w->as[s - 1];
        for (size_t k = 0; k < AC_AN_WARM_KEEP; k++) {
            free(ws->at[k].low);
            free(ws->at[k].high);
        }
    }
    memset(w, 0, sizeof *w);
}

/* A copy of q's n levels, or NULL (out of memory only loses a warm start). */
static double *warm_copy(const double *q, size_t n)
{
    double *d = malloc((n > 0 ? n : 1) * sizeof *d);
    if (d != NULL)
        memcpy(d, q, n * sizeof *d);
    return d;
}

/* Keep res's least equilibrium (found from empty or the closed form) and greatest (from full) at
 * lambda in w, in place of its oldest entry. */
static void warm_keep(ac_an_warm_set *w, const ac_solver_pool_result *res, size_t servers,
                      double lambda)
{
    size_t k = w->next;
    if (res == NULL || res->overload || res->nequilibria == 0)
        return;
    free(w->at[k].low);
    free(w->at[k].high);
    w->at[k].low = w->at[k].high = NULL;
    w->at[k].lambda = lambda;
    w->at[k].servers = servers;
    w->at[k].dim = res->equilibria[0].dim;
    for (size_t e = 0; e < res->nequilibria; e++) {
        const ac_solver_equilibrium *eq = &res->equilibria[e];
        if (eq->dim != w->at[k].dim)
            continue;
        /* the closed form's equilibrium (no retries) is the unique one, hence the least */
        if ((eq->found_from & (AC_SOLVER_FROM_EMPTY | AC_SOLVER_FROM_CLOSED_FORM)) &&
            w->at[k].low == NULL)
            w->at[k].low = warm_copy(eq->q, eq->dim);
        if ((eq->found_from & AC_SOLVER_FROM_FULL) && w->at[k].high == NULL)
            w->at[k].high = warm_copy(eq->q, eq->dim);
    }
    w->next = (k + 1) % AC_AN_WARM_KEEP;
}

/* The solver's options with w's warm starts valid at (servers, lambda): the least equilibrium
 * of the highest kept rate at or below lambda starts the search from empty, the greatest of
 * the lowest kept rate at or above it the one from full (the drift grows with the rate); both
 * of one state dimension (the start from below wins). */
static ac_solver_options warm_options(const ac_analysis_options *opt, const ac_an_warm_set *w,
                                      size_t servers, double lambda)
{
    ac_solver_options so = opt->solver;
    size_t lo = AC_AN_WARM_KEEP, hi = AC_AN_WARM_KEEP;
    for (size_t k = 0; w != NULL && k < AC_AN_WARM_KEEP; k++) {
        if (w->at[k].servers != servers)
            continue;
        if (w->at[k].low != NULL && w->at[k].lambda <= lambda &&
            (lo == AC_AN_WARM_KEEP || w->at[k].lambda > w->at[lo].lambda))
            lo = k;
        if (w->at[k].high != NULL && w->at[k].lambda >= lambda &&
            (hi == AC_AN_WARM_KEEP || w->at[k].lambda < w->at[hi].lambda))
            hi = k;
    }
    if (lo < AC_AN_WARM_KEEP && hi < AC_AN_WARM_KEEP && w->at[lo].dim != w->at[hi].dim)
        hi = AC_AN_WARM_KEEP;
    if (lo < AC_AN_WARM_KEEP)
        so.start_low = w->at[lo].low;
    if (hi < AC_AN_WARM_KEEP)
        so.start_high = w->at[hi].high;
    if (lo < AC_AN_WARM_KEEP || hi < AC_AN_WARM_KEEP)
        so.start_dim = w->at[lo < AC_AN_WARM_KEEP ? lo : hi].dim;
    return so;
}

/* Solve pool node i at arrival rate lambda into na (w: its warm starts, or NULL). */
static int solve_pool(const ac_node *node, double lambda, const ac_analysis_options *opt,
                      ac_node_analysis *na, ac_an_warm *w, ac_error *err)
{
    ac_pool scaled = node->u.pool;
    const ac_pool *p = &scaled;
    /* an autoscaled pool is analysed at the count its scaler holds at this load */
    if (scaled.has_autoscale)
        scaled.servers = ac_solver_autoscale_steady(&node->u.pool, lambda);
    ac_solver_pool_result *res = NULL;
    ac_solver_options so = warm_options(opt, w != NULL ? &w->own : NULL, p->servers, lambda);
    ac_error e2 = {0};
    int rc;
    ac_an_node_clear(na);
    na->analysed = 1;
    na->servers = p->servers;
    na->arrival_rate = lambda;
    rc = ac_solver_pool_solve(p, lambda, &so, &res, &e2);
    if (rc == AC_OK && w != NULL)
        warm_keep(&w->own, res, p->servers, lambda);
    if (rc != AC_OK) {
        na->analysed = 0;
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "%s", e2.message);
        snprintf(na->why, sizeof na->why, "%.150s", e2.message);
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
        /* a retry storm's mean field at finite N (1% of the attempts or more time out and
           are sent again): the feedback makes the finite pool metastable and drift, its
           numbers are not bounded (the accuracy harness: gateway seed 72, N = 50, p99 23.5 s
           stated within 0.02%, the simulation 212 s at its horizon and 703 s at 2000 s; pool
           seeds 316, 514, 946): the stated error is infinite, a requirement on it is left
           to the simulation (INCONCLUSIVE without one) */
        if (p->timeout > 0.0 && p->retries > 0 && k->timeout_fraction >= 0.01 &&
            k->approximation != AC_SOLVER_APPROX_EXACT)
            na->expected_rel_error = fmax(na->expected_rel_error, AC_AN_STORM_ERROR);
        /* power-of-d's loss at finite N: the (refined) mean field's tail q_K^d vanishes far
           faster than the finite pool's, where d samples of a few servers are often all full
           (accuracy harness, 1,000 models: N = 6, rho 0.8, 6 places, loss 8.7e-8 against
           2.7e-3 simulated; network seeds 596, 794, 992): an absolute error up to random
           dispatch's loss */
        if (p->dispatch == AC_DISPATCH_POWER_OF_D && p->servers > 1 &&
            k->approximation != AC_SOLVER_APPROX_EXACT &&
            (p->buffer != AC_UNBOUNDED || p->timeout > 0.0) && !opt->loss_bracket_unread)
            na->loss_abs_error = loss_bracket_abs(p, lambda, opt, w, fail);
        /* jsq and jiq at finite N: the simulator's numbers (pool_sim.c), kept in the bracket */
        rc = ac_an_pool_simulated(p) ? ac_an_pool_simulate(p, lambda, opt, na, err) : 1;
        if (rc < 0)
            return rc;
        if (rc == 0) {
            /* the exact ends of the bracket: M/M/N below, random (M/M/1 per server) above */
            double e_lo, rho = lambda / ((double)p->servers * p->service_rate);
            double lo = mean_jobs_as(p, AC_DISPATCH_SHARED_QUEUE, lambda, opt, w, &e_lo);
            double v = fmin(na->mean_jobs, rho / (1.0 - rho));
            if (isfinite(lo))
                v = fmax(v, lo);
            if (v != na->mean_jobs && na->throughput > 0.0) {
                na->mean_jobs = v;
                na->mean_response_time = v * (double)p->servers / na->throughput;
            }
        } else if (rc != 0 && (p->dispatch == AC_DISPATCH_JSQ || p->dispatch == AC_DISPATCH_JIQ) &&
                   k->approximation != AC_SOLVER_APPROX_EXACT && p->servers > 1 &&
                   (p->retries > 0 || p->buffer != AC_UNBOUNDED)) {
            /* jsq and jiq with a buffer or retries keep their mean field (no 1/N expansion, no
               sound bracket with losses): its error measured by the accuracy harness (1,000
               models, seed 1: 35 such pools, N 2..40) has p95 23% and max 25% over the mean,
               the jobs and the percentiles, where 0% was stated; stated 30% */
            na->expected_rel_error = fmax(na->expected_rel_error, AC_AN_JSQ_BUFFER_ERROR);
            /* and their loss near 0: the mean field's idle servers (q_1 = rho) hide the
               finite pool's moments with none idle, when the chosen queue may be full
               (accuracy harness, 1,000 models: jiq loss 6e-6 against 4e-3 simulated, 3e-9
               against 3e-4). A relative error cannot bound that; the absolute one is the
               distance to the bracket's upper end, the loss of random dispatch (jiq) or
               power-of-two (jsq), which route no better */
            if (!opt->loss_bracket_unread)
                na->loss_abs_error = loss_bracket_abs(p, lambda, opt, w, na->loss_probability);
        } else if (rc != 0 && (p->dispatch == AC_DISPATCH_JSQ || p->dispatch == AC_DISPATCH_JIQ) &&
                   k->approximation != AC_SOLVER_APPROX_EXACT && p->retries == 0 &&
                   p->buffer == AC_UNBOUNDED && p->servers > 1) {
            double b = bracket_error(p, lambda, k->mean_jobs, opt, w);
            if (isfinite(b) && b > na->expected_rel_error)
                na->expected_rel_error = b;
        }
    }
    return AC_OK;
}

int ac_an_link_solve(const ac_model *m, const ac_analysis *a, size_t l, ac_solver_link_result *out,
                     ac_error *err)
{
    const ac_link *lk = &m->links[l];
    return ac_solver_link_solve(lk, ac_an_link_flow(m, a, lk->from, lk->to), 0.0, out, err);
}

/* A link's full buffer loses jobs: the routes through it carry r0 (1 - loss). */
static void link_losses(const ac_model *m, const ac_analysis *a, const double *r0, double *r)
{
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        size_t at = lk->from * m->nnodes + lk->to;
        ac_solver_link_result lr;
        ac_error e2 = {0};
        if (lk->buffer == AC_UNBOUNDED || isinf(lk->capacity))
            continue;
        if (ac_an_link_solve(m, a, l, &lr, &e2) == AC_OK)
            r[at] = r0[at] * (1.0 - lr.loss_probability);
        ac_solver_link_result_clear(&lr);
    }
}

int ac_an_network_solve(const ac_model *m, const ac_analysis_options *opt, double scale,
                        ac_analysis *a, ac_error *err)
{
    size_t n = m->nnodes;
    double *r = NULL, *r0 = NULL, *lambda = NULL, *pass = NULL, *prev = NULL;
    int rc = AC_OK;
    int has_closed = m->npopulations > 0;

    a->scale = scale;
    r = ac_an_routing_matrix(m);
    r0 = ac_an_routing_matrix(m);
    lambda = calloc(n > 0 ? n : 1, sizeof *lambda);
    pass = malloc((n > 0 ? n : 1) * sizeof *pass);
    prev = calloc(n > 0 ? n : 1, sizeof *prev);
    if (r == NULL || r0 == NULL || lambda == NULL || pass == NULL || prev == NULL) {
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
            if (iter > 0 && fabs(lambda[i] - prev[i]) <= 1e-12 * (lambda[i] + 1e-300) &&
                !(node->kind == AC_NODE_FUNCTION && is_polled(m, i)) && /* batches may change */
                node->kind != AC_NODE_QUEUE) /* its consumer's cold starts may change */
                continue; /* unchanged input: keep the solution (or its failure) */
            switch (node->kind) {
            case AC_NODE_POOL:
                rc = solve_pool(node, lambda[i], opt, na, a->warm ? &a->warm[i] : NULL, err);
                break;
            case AC_NODE_FUNCTION: rc = solve_function(m, a, i, lambda[i], na, err); break;
            case AC_NODE_QUEUE: rc = solve_queue(m, i, lambda[i], a, opt, na, err); break;
            case AC_NODE_GATEWAY: rc = solve_gateway(m, i, lambda[i], na, err); break;
            }
            if (rc != AC_OK)
                goto cleanup;
            if (!na->analysed)
                na->throughput = lambda[i]; /* passes its inflow on: the finding says so */
            pass[i] = na->arrival_rate > 0.0 ? ac_an_node_outflow(a, i) / na->arrival_rate : 1.0;
            if (!(pass[i] >= 0.0))
                pass[i] = 0.0;
        }
        link_losses(m, a, r0, r);
        if (iter > 0 && change <= 1e-10 * (total + 1e-300))
            break;
        memcpy(prev, lambda, n * sizeof *prev);
    }
    if (has_closed)
        rc = AC_OK; /* closed workloads are solved by closed.c on top */
    if (rc == AC_OK)
        rc = ac_an_batch_apply(m, a, err); /* pools behind a fan-out: batch arrivals */
    if (rc == AC_OK)
        rc = ac_an_qna_apply(m, a, err); /* bursty sources: the two-moment correction */
cleanup:
    free(r);
    free(r0);
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
            flow += ac_an_node_outflow(a, from) * rt->p * (double)rt->fanout / (double)rt->fanin;
    }
    return flow;
}
