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
 * visited v_i / c times; any other c-server pool uses Seidmann's approximation: a single
 * server of demand D_i / c followed by a delay D_i (c - 1) / c, and the numbers are then
 * marked as an approximation. A link adds a delay station (its latency, v_l visits) and,
 * with a finite capacity, a single-server station of demand v_l / capacity.
 * Above AC_AN_MVA_EXACT_MAX clients, Schweitzer's approximate MVA
 * (Q_i(M-1) ~ (M-1)/M Q_i(M)) replaces the recursion.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

#define AC_AN_MVA_EXACT_MAX 100000

typedef struct station {
    size_t node;     /* AC_NONE for a link */
    double demand;   /* queueing demand of one copy, s per request */
    double delay;    /* pure delay per request (Seidmann part, link latency), s */
    double visits;
    size_t servers;
    double copies;   /* identical single-server copies (random dispatch), else 1 */
} station;

/* Exact MVA; fills q (length ns) and returns X. */
static double mva_exact(const station *st, size_t ns, double think, size_t pop, double *q, double *resp)
{
    double x = 0.0;
    memset(q, 0, ns * sizeof *q);
    for (size_t m = 1; m <= pop; m++) {
        double total = think;
        for (size_t i = 0; i < ns; i++) {
            /* q[i]: jobs queued at one copy; the request visits every copy */
            resp[i] = st[i].copies * st[i].demand * (1.0 + q[i]) + st[i].delay;
            total += resp[i];
        }
        x = (double)m / total;
        for (size_t i = 0; i < ns; i++)
            q[i] = x * (resp[i] - st[i].delay) / st[i].copies;
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

int ac_an_closed_solve(const ac_model *m, ac_analysis *a, ac_diag_list *findings, ac_error *err)
{
    size_t n = m->nnodes;
    double *r = NULL, *v = NULL, *q = NULL, *resp = NULL;
    station *st = NULL;
    int rc = AC_OK;

    if (m->npopulations == 0)
        return AC_OK;
    if (m->nsources > 0 || m->npopulations > 1) {
        ac_diag_add(findings, "AC900", m->file, m->populations[0].loc.line,
                    m->populations[0].loc.column, m->populations[0].id,
                    "%s are not analysed yet: the verdict is inconclusive",
                    m->nsources > 0 ? "mixed open and closed workloads"
                                    : "several closed populations");
        return AC_OK;
    }
    r = ac_an_routing_matrix(m);
    v = calloc(n, sizeof *v);
    q = calloc(n, sizeof *q);
    resp = calloc(n, sizeof *resp);
    st = calloc(n + m->nlinks + 1, sizeof *st);
    if (r == NULL || v == NULL || q == NULL || resp == NULL || st == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (closed network)");
        goto cleanup;
    }
    {
        const ac_population *pop = &m->populations[0];
        size_t ns = 0;
        int exact = 1;
        double x;
        /* visit ratios: one visit to `to` per request; v = e_to + R^T v (fixed point) */
        for (int it = 0; it < 100000; it++) {
            double change = 0.0;
            double *nv = resp; /* scratch */
            memset(nv, 0, n * sizeof *nv);
            nv[pop->to] = 1.0;
            for (size_t k = 0; k < m->nroutes; k++) {
                const ac_route *rt = &m->routes[k];
                nv[rt->to] += v[rt->from] * rt->p * (double)rt->fanout / (double)rt->fanin;
            }
            for (size_t i = 0; i < n; i++) {
                change = fmax(change, fabs(nv[i] - v[i]));
                v[i] = nv[i];
            }
            if (change < 1e-14)
                break;
            if (!isfinite(change) || change > 1e12) {
                ac_an_report_cycle(m, findings);
                rc = AC_EINPUT;
                goto cleanup;
            }
        }
        for (size_t i = 0; i < n; i++) {
            const ac_node *node = &m->nodes[i];
            if (v[i] <= 0.0)
                continue;
            if (node->kind != AC_NODE_POOL || node->u.pool.timeout > 0.0 ||
                node->u.pool.buffer != AC_UNBOUNDED) {
                ac_diag_add(findings, "AC900", m->file, node->loc.line, node->loc.column, node->id,
                            "%s '%s' in a closed network is not analysed yet (only pools without "
                            "timeout or buffer are): the verdict is inconclusive",
                            ac_node_kind_name(node->kind), node->id);
                goto cleanup;
            }
            st[ns].node = i;
            st[ns].visits = v[i];
            st[ns].servers = node->u.pool.servers;
            st[ns].demand = v[i] / node->u.pool.service_rate / (double)node->u.pool.servers;
            st[ns].copies = 1.0;
            if (node->u.pool.servers > 1 && node->u.pool.dispatch == AC_DISPATCH_RANDOM) {
                st[ns].copies = (double)node->u.pool.servers; /* exact: c independent queues */
            } else {
                st[ns].delay = v[i] / node->u.pool.service_rate *
                               ((double)node->u.pool.servers - 1.0) /
                               (double)node->u.pool.servers;
                if (node->u.pool.servers > 1)
                    exact = 0;
            }
            ns++;
        }
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
            ns++;
        }
        if (pop->size > AC_AN_MVA_EXACT_MAX) {
            x = mva_schweitzer(st, ns, pop->think_time, pop->size, q, resp);
            exact = 0;
        } else {
            x = mva_exact(st, ns, pop->think_time, pop->size, q, resp);
        }
        for (size_t k = 0; k < ns; k++) {
            ac_node_analysis *na;
            if (st[k].node == AC_NONE)
                continue; /* a link */
            na = &a->nodes[st[k].node];
            double c = (double)st[k].servers;
            ac_solver_pool_result_free(na->pool);
            memset(na, 0, sizeof *na);
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
            /* Seidmann's error is small but unquantified here: state 5% */
            na->expected_rel_error = exact ? 0.0 : 0.05;
        }
        a->e2e.available = 1;
        a->e2e.percentiles = 0;
        a->e2e.throughput = x;
        a->e2e.loss_probability = 0.0;
        a->e2e.mean_response_time = (double)pop->size / x - pop->think_time;
        a->e2e.p50 = a->e2e.p95 = a->e2e.p99 = NAN;
        a->e2e.expected_rel_error = exact ? 0.0 : 0.05;
    }
cleanup:
    free(r);
    free(v);
    free(q);
    free(resp);
    free(st);
    return rc;
}
