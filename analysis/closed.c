/*
 * Closed workloads (<population>): Mean Value Analysis (models.md §4).
 *
 * A population of M clients, each thinking for an exponential time Z and then
 * sending a request into the network at its node `to`, is a closed network with
 * a delay station (the think time) and the nodes the requests visit, with visit
 * ratios v solving v = e_to + R^T v. Station i has service demand D_i = v_i / mu_i.
 * Exact MVA (Reiser and Lavenberg 1980), for m = 1..M:
 *     R_i(m) = D_i (1 + Q_i(m-1))          single-server station
 *     X(m)   = m / (Z + sum_i R_i(m))
 *     Q_i(m) = X(m) R_i(m)
 * A pool of c > 1 servers with random dispatch is exactly c single-server stations, each
 * visited v_i / c times. A shared-queue pool is an M/M/c station, product form: exact MVA
 * with load-dependent rates alpha(j) = min(j, c) and the marginal probabilities p_i(j | m):
 *     R_i(m) = sum_{j=1..m} j / alpha(j) D_i p_i(j-1 | m-1),
 *     p_i(j | m) = D_i / alpha(j) X(m) p_i(j-1 | m-1),  p_i(0 | m) = 1 - sum_{j>0} p_i(j | m).
 * Power-of-d, jsq and jiq pools are not product form: they are solved as M/M/c (the best any
 * dispatcher does) with the gap to c random queues (the worst) as their stated error. Above
 * AC_AN_MVA_LD_MAX clients, Seidmann's approximation replaces M/M/c (a single server of
 * demand D_i / c and a delay D_i (c - 1) / c), with a stated error of 25%. A link adds a delay
 * station (its latency, v_l visits) and, with a finite capacity, a single-server station of demand
 * v_l / capacity: its transmission is deterministic (M/D/1, not product form), so the stated error
 * is the gap to the same network with that station a pure delay (no wait at all). Above
 * AC_AN_MVA_EXACT_MAX clients, Schweitzer's approximate MVA (Q_i(M-1) ~ (M-1)/M Q_i(M)) replaces
 * the recursion.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

#define AC_AN_MVA_EXACT_MAX 100000
#define AC_AN_MVA_LD_MAX    3000

typedef struct station {
    size_t node;   /* AC_NONE for a link */
    double demand; /* queueing demand of one copy, s per request */
    double delay;  /* pure delay per request (Seidmann part, link latency), s */
    double visits;
    size_t servers;
    double copies;    /* identical single-server copies (random dispatch), else 1 */
    double ld_demand; /* > 0: a load-dependent M/M/c station of this full demand D_i */
    double *p;        /* its marginal probabilities p(j), j = 0..population */
} station;

/* Exact MVA; fills q (length ns) and returns X; xs (NULL or pop + 1 entries): X(m). */
static double mva_exact(const station *st, size_t ns, double think, size_t pop, double *q,
                        double *resp, double *xs)
{
    double x = 0.0;
    memset(q, 0, ns * sizeof *q);
    for (size_t m = 1; m <= pop; m++) {
        double total = think;
        for (size_t i = 0; i < ns; i++) {
            if (st[i].ld_demand > 0.0) {
                double c = (double)st[i].servers, r = 0.0;
                for (size_t j = 1; j <= m; j++)
                    r += (double)j / fmin((double)j, c) * st[i].ld_demand * st[i].p[j - 1];
                resp[i] = r;
            } else {
                /* q[i]: jobs queued at one copy; the request visits every copy */
                resp[i] = st[i].copies * st[i].demand * (1.0 + q[i]) + st[i].delay;
            }
            total += resp[i];
        }
        x = (double)m / total;
        if (xs != NULL)
            xs[m] = x;
        for (size_t i = 0; i < ns; i++) {
            if (st[i].ld_demand > 0.0) {
                double c = (double)st[i].servers, sum = 0.0, jobs = 0.0;
                for (size_t j = m; j >= 1; j--) {
                    st[i].p[j] = st[i].ld_demand / fmin((double)j, c) * x * st[i].p[j - 1];
                    sum += st[i].p[j];
                    jobs += (double)j * st[i].p[j];
                }
                st[i].p[0] = fmax(0.0, 1.0 - sum);
                q[i] = jobs;
            } else {
                q[i] = x * (resp[i] - st[i].delay) / st[i].copies;
            }
        }
    }
    return x;
}

/* Schweitzer's approximate MVA, a fixed point iteration. */
static double mva_schweitzer(const station *st, size_t ns, double think, size_t pop, double *q,
                             double *resp)
{
    double x = 0.0, mm = (double)pop;
    for (size_t i = 0; i < ns; i++)
        q[i] = mm / (double)(ns + 1);
    for (int it = 0; it < 100000; it++) {
        double total = think, change = 0.0;
        for (size_t i = 0; i < ns; i++) {
            resp[i] = st[i].copies * st[i].demand * (1.0 + (mm - 1.0) / mm * q[i]) + st[i].delay;
            total += resp[i];
        }
        x = mm / total;
        for (size_t i = 0; i < ns; i++) {
            double nq = x * (resp[i] - st[i].delay) / st[i].copies;
            change = fmax(change, fabs(nq - q[i]));
            q[i] = nq;
        }
        if (change < 1e-12 * mm)
            break;
    }
    return x;
}

/* The station's response-time law where the arrival theorem is not applied (multi-server
 * stations, approximate MVA), approximated by the open pool at the MVA arrival rate (for
 * percentiles, which MVA does not give): the percentiles carry the gap between that model's
 * mean and the exact MVA mean as their error. */
static void open_law(const ac_node *node, ac_node_analysis *na)
{
    ac_solver_options so;
    ac_solver_pool_result *r = NULL;
    ac_error e = {0};
    ac_solver_options_init(&so);
    so.burst_search = 0;
    if (ac_solver_pool_solve(&node->u.pool, na->arrival_rate, &so, &r, &e) != AC_OK ||
        r->overload) {
        ac_solver_pool_result_free(r);
        return;
    }
    na->pool = r;
    na->p50 = r->kpi.p50;
    na->p95 = r->kpi.p95;
    na->p99 = r->kpi.p99;
    na->percentile_rel_error =
        fabs(r->kpi.mean_response_time - na->mean_response_time) / na->mean_response_time +
        na->expected_rel_error;
}

/*
 * The arrival theorem for a single-server FCFS station (one of its random-dispatch copies): a
 * request arriving there finds the stationary law of the network with one client fewer, and
 * in product form the marginal of a single-server station follows the MVA recursion
 *     p(j | m) = d X(m) p(j - 1 | m - 1), j >= 1,  p(0 | m) = 1 - sum_{j >= 1} p(j | m)
 * (d the copy's demand per request, X(m) the MVA throughput). The response given j ahead is
 * Erlang(j + 1, mu): exact (Reiser and Lavenberg 1980; Sevcik and Mitrani 1981). The node's
 * percentiles follow from that law. Returns 0 or AC_ENOMEM.
 */
static int arrival_law(const station *s, double mu, const double *xs, size_t pop,
                       ac_node_analysis *na, ac_error *err)
{
    size_t n = pop; /* j = 0..pop-1 ahead with pop - 1 other clients */
    double *p = calloc(n + 1, sizeof *p), sum = 0.0;
    ac_error e2 = {0};
    if (p == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (closed network)");
    p[0] = 1.0;
    for (size_t m = 1; m + 1 <= pop; m++) { /* up to m = pop - 1 */
        double tail = 0.0;
        for (size_t j = m; j >= 1; j--) {
            p[j] = s->demand * xs[m] * p[j - 1];
            tail += p[j];
        }
        p[0] = fmax(0.0, 1.0 - tail);
    }
    for (size_t j = 0; j < n; j++)
        sum += p[j];
    for (size_t j = 0; j < n && sum > 0.0; j++)
        p[j] /= sum;
    na->arrival_queue = p;
    na->arrival_queue_n = n;
    na->closed_service_rate = mu;
    if (ac_node_analysis_quantile(na, 0.50, &na->p50, &e2) != AC_OK ||
        ac_node_analysis_quantile(na, 0.95, &na->p95, &e2) != AC_OK ||
        ac_node_analysis_quantile(na, 0.99, &na->p99, &e2) != AC_OK)
        na->p50 = na->p95 = na->p99 = NAN;
    na->percentile_rel_error = na->expected_rel_error;
    return AC_OK;
}

/* The stations of the pools a request visits (v[i] > 0), appended to st (*ns of them): a pool
 * dispatching at random as c independent queues (exact), a larger one as a load-dependent
 * M/M/c when the population allows (*bracket when it is not product form), else one queue
 * and Seidmann's delay (*exact cleared). Returns 0, 1 when a node visited cannot be analysed
 * (an AC900 finding added), or AC_ENOMEM. */
static int node_stations(const ac_model *m, const double *v, station *st, size_t *ns, int *exact,
                         int *bracket, ac_diag_list *findings, ac_error *err)
{
    const ac_population *pop = &m->populations[0];
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *node = &m->nodes[i];
        if (v[i] <= 0.0)
            continue;
        if (node->kind != AC_NODE_POOL || node->u.pool.timeout > 0.0 ||
            node->u.pool.buffer != AC_UNBOUNDED) {
            ac_diag_add(findings, "AC900", m->file, node->loc.line, node->loc.column, node->id,
                        "%s '%s' in a closed network is not analysed yet (only pools without "
                        "timeout or buffer are): the verdict is inconclusive",
                        ac_node_kind_name(node->kind), node->id);
            return 1;
        }
        st[*ns].node = i;
        st[*ns].visits = v[i];
        st[*ns].servers = node->u.pool.servers;
        st[*ns].demand = v[i] / node->u.pool.service_rate / (double)node->u.pool.servers;
        st[*ns].copies = 1.0;
        if (node->u.pool.servers > 1 && node->u.pool.dispatch == AC_DISPATCH_RANDOM) {
            st[*ns].copies = (double)node->u.pool.servers; /* exact: c independent queues */
        } else if (node->u.pool.servers > 1 && pop->size <= AC_AN_MVA_LD_MAX) {
            st[*ns].ld_demand = v[i] / node->u.pool.service_rate;
            st[*ns].p = calloc(pop->size + 1, sizeof *st[*ns].p);
            if (st[*ns].p == NULL)
                return ac_error_set(err, AC_ENOMEM, "out of memory (closed network)");
            st[*ns].p[0] = 1.0;
            if (node->u.pool.dispatch != AC_DISPATCH_SHARED_QUEUE)
                *bracket = 1; /* not product form: M/M/c, with the gap to random queues */
        } else {
            st[*ns].delay = v[i] / node->u.pool.service_rate *
                            ((double)node->u.pool.servers - 1.0) / (double)node->u.pool.servers;
            if (node->u.pool.servers > 1)
                *exact = 0;
        }
        (*ns)++;
    }
    return 0;
}

/* The stations of the links a request crosses, appended to st from ns: a delay (the latency)
 * and, with a finite capacity, an M/D/1 queue (*bracket: not product form). Returns the new
 * number of stations. */
static size_t link_stations(const ac_model *m, const double *v, station *st, size_t ns,
                            int *bracket)
{
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double vl = 0.0;
        for (size_t k = 0; k < m->nroutes; k++)
            if (m->routes[k].from == lk->from && m->routes[k].to == lk->to)
                vl += v[lk->from] * m->routes[k].p * (double)m->routes[k].fanout /
                      (double)m->routes[k].fanin;
        if (vl <= 0.0)
            continue;
        st[ns].node = AC_NONE;
        st[ns].visits = vl;
        st[ns].servers = 1;
        st[ns].copies = 1.0;
        st[ns].delay = vl * lk->latency;
        st[ns].demand = isinf(lk->capacity) ? 0.0 : vl / lk->capacity;
        if (!isinf(lk->capacity))
            *bracket = 1; /* M/D/1, not product form: between this queue and a delay */
        ns++;
    }
    return ns;
}

/* MVA of a network that is not product form: its throughput *x (q, resp) with the pools as
 * M/M/c and the links as M/D/1 queues, and its gaps *gap (throughput) and *rgap (end-to-end
 * mean) to the same network with those pools as c random queues and the links' transmission as
 * a delay (respr: its response times), the farthest a dispatcher can be from M/M/c. Returns 0
 * or AC_ENOMEM. */
static int bracket_solve(const ac_model *m, station *st, size_t ns, double *q, double *resp,
                         double *respr, double *x, double *gap, double *rgap, ac_error *err)
{
    const ac_population *pop = &m->populations[0];
    /* the same network with the non-product-form pools as c random queues: the
       farthest a dispatcher can be from M/M/c */
    station *alt = malloc(ns * sizeof *alt);
    double xr;
    if (alt == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (closed network)");
    memcpy(alt, st, ns * sizeof *alt);
    for (size_t k = 0; k < ns; k++)
        if (alt[k].ld_demand > 0.0 && alt[k].node != AC_NONE &&
            m->nodes[alt[k].node].u.pool.dispatch != AC_DISPATCH_SHARED_QUEUE) {
            alt[k].ld_demand = 0.0;
            alt[k].copies = (double)alt[k].servers;
        } else if (alt[k].node == AC_NONE) {
            alt[k].delay += alt[k].demand; /* a link's transmission without its wait */
            alt[k].demand = 0.0;
        }
    xr = mva_exact(alt, ns, pop->think_time, pop->size, q, respr, NULL);
    free(alt);
    for (size_t k = 0; k < ns; k++) {
        if (st[k].ld_demand > 0.0) {
            st[k].p[0] = 1.0;
            memset(st[k].p + 1, 0, pop->size * sizeof *st[k].p);
        }
    }
    *x = mva_exact(st, ns, pop->think_time, pop->size, q, resp, NULL);
    *gap = fabs(*x - xr) / xr;
    /* the response time moves more than the throughput (R = M / X - Z): the
       bracket of the end-to-end mean is its own gap */
    *rgap = fabs(((double)pop->size / xr - pop->think_time) -
                 ((double)pop->size / *x - pop->think_time)) /
            ((double)pop->size / *x - pop->think_time);
    return 0;
}

int ac_an_closed_solve(const ac_model *m, ac_analysis *a, ac_diag_list *findings, ac_error *err)
{
    size_t n = m->nnodes;
    double *r = NULL, *v = NULL, *q = NULL, *resp = NULL, *xs = NULL, *respr = NULL;
    station *st = NULL;
    int rc = AC_OK;

    if (m->npopulations == 0)
        return AC_OK;
    if (m->nsources > 0 || m->npopulations > 1) {
        ac_diag_add(
            findings, "AC900", m->file, m->populations[0].loc.line, m->populations[0].loc.column,
            m->populations[0].id, "%s are not analysed yet: the verdict is inconclusive",
            m->nsources > 0 ? "mixed open and closed workloads" : "several closed populations");
        return AC_OK;
    }
    r = ac_an_routing_matrix(m);
    v = calloc(n, sizeof *v);
    q = calloc(n + m->nlinks + 1, sizeof *q);
    resp = calloc(n + m->nlinks + 1, sizeof *resp);
    respr = calloc(n + m->nlinks + 1, sizeof *respr);
    st = calloc(n + m->nlinks + 1, sizeof *st);
    if (r == NULL || v == NULL || q == NULL || resp == NULL || respr == NULL || st == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (closed network)");
        goto cleanup;
    }
    {
        const ac_population *pop = &m->populations[0];
        size_t ns = 0;
        int exact = 1, bracket = 0;
        double x = 0.0, gap = 0.0, rgap = 0.0;
        /* visit ratios: one visit to `to` per request; v = e_to + R^T v (fixed point) */
        if (ac_an_visit_ratios(m, pop->to, v, resp) != AC_OK) {
            ac_an_report_cycle(m, findings);
            rc = AC_EINPUT;
            goto cleanup;
        }
        rc = node_stations(m, v, st, &ns, &exact, &bracket, findings, err);
        if (rc != 0) {
            if (rc > 0)
                rc = AC_OK; /* not analysed: the finding says why */
            goto cleanup;
        }
        ns = link_stations(m, v, st, ns, &bracket);
        if (bracket) {
            rc = bracket_solve(m, st, ns, q, resp, respr, &x, &gap, &rgap, err);
            if (rc != AC_OK)
                goto cleanup;
            exact = 0;
        } else if (pop->size > AC_AN_MVA_EXACT_MAX) {
            x = mva_schweitzer(st, ns, pop->think_time, pop->size, q, resp);
            exact = 0;
        } else {
            xs = calloc(pop->size + 1, sizeof *xs);
            if (xs == NULL) {
                rc = ac_error_set(err, AC_ENOMEM, "out of memory (closed network)");
                goto cleanup;
            }
            x = mva_exact(st, ns, pop->think_time, pop->size, q, resp, xs);
        }
        for (size_t k = 0; k < ns; k++) {
            ac_node_analysis *na;
            if (st[k].node == AC_NONE)
                continue; /* a link */
            na = &a->nodes[st[k].node];
            double c = (double)st[k].servers;
            ac_an_node_clear(na);
            na->analysed = 1;
            na->arrival_rate = x * st[k].visits;
            na->throughput = na->arrival_rate;
            na->utilization = x * st[k].demand;
            na->loss_probability = 0.0;
            /* jobs at the station: queueing part (every copy) plus those in the Seidmann delay */
            na->mean_jobs = (q[k] * st[k].copies + x * st[k].delay) / c;
            na->mean_response_time = resp[k] / st[k].visits;
            na->p50 = na->p95 = na->p99 = NAN;
            na->approximation = exact ? AC_SOLVER_APPROX_EXACT : AC_SOLVER_APPROX_MEAN_FIELD;
            /* Seidmann (Schweitzer above AC_AN_MVA_EXACT_MAX): 25%; the dispatch bracket */
            na->expected_rel_error = exact ? 0.0 : bracket ? fmax(gap, 1e-3) : 0.25;
            /* a station's own bracket: its response time (and jobs) between the two networks
               (closed seed 32..185 of the accuracy harness: p-o-d means 16% off, gap 6%) */
            if (bracket && resp[k] > 0.0)
                na->expected_rel_error =
                    fmax(na->expected_rel_error, fabs(respr[k] - resp[k]) / resp[k]);
            if (xs != NULL && exact && st[k].ld_demand == 0.0 && st[k].delay == 0.0 &&
                pop->size <= AC_AN_MVA_LD_MAX) {
                rc = arrival_law(&st[k], m->nodes[st[k].node].u.pool.service_rate, xs, pop->size,
                                 na, err);
                if (rc != AC_OK)
                    goto cleanup;
            } else {
                open_law(&m->nodes[st[k].node], na);
            }
        }
        a->e2e.available = 1;
        a->e2e.percentiles = 0;
        a->e2e.throughput = x;
        a->e2e.loss_probability = 0.0;
        a->e2e.mean_response_time = (double)pop->size / x - pop->think_time;
        a->e2e.p50 = a->e2e.p95 = a->e2e.p99 = NAN;
        a->e2e.expected_rel_error = exact ? 0.0 : bracket ? fmax(fmax(gap, rgap), 1e-3) : 0.25;
        a->e2e.mean_rel_error = a->e2e.expected_rel_error;
        /* the throughput (read with the loss' error) is MVA's X: exact only when MVA is */
        a->e2e.loss_rel_error = exact ? 0.0 : bracket ? fmax(gap, 1e-3) : 0.25;
    }
cleanup:
    for (size_t k = 0; st != NULL && k < n + m->nlinks + 1; k++)
        free(st[k].p);
    free(r);
    free(v);
    free(q);
    free(resp);
    free(respr);
    free(st);
    free(xs);
    return rc;
}
