/*
 * Stability findings: overload (AC101) of nodes and links, an unstable operating
 * equilibrium (AC102), two stable equilibria: a metastable failure mode (AC103),
 * nodes not analysed (AC900), approximations outside their accurate range (AC901).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/internal.h"
#include "common/strbuf.h"

/* A sync function offered at least as many Erlangs as its concurrency, or a gateway offered
 * at least its rate limit: a loss system with a steady state, but one that refuses most of
 * what exceeds its capacity, so offered >= capacity is an overload like any other node's
 * (AC101). */
static void saturation_finding(ac_an_ctx *c, const ac_node *node, const ac_node_analysis *na)
{
    if (na->function != NULL) {
        const ac_solver_function_result *f = na->function;
        ac_an_finding(c, "AC101", node->loc, node->id,
                      "function '%s' is overloaded: %.6g Erlangs offered (%.6g requests/s of "
                      "%.4gs) against a concurrency of %zu; %.4g%% of its requests are throttled",
                      node->id, f->load, f->arrival_rate, f->occupancy, f->concurrency,
                      100.0 * f->throttle_probability);
        return;
    }
    ac_an_finding(c, "AC101", node->loc, node->id,
                  "gateway '%s' is overloaded: %.6g requests/s against a rate limit of %.6g/s; "
                  "%.4g%% of them are rejected (429)",
                  node->id, na->gateway->arrival_rate, na->gateway->rate_limit,
                  100.0 * na->gateway->reject_probability);
}

static void describe_equilibrium(ac_strbuf *sb, const char *name, const ac_solver_pool_result *r,
                                 size_t e)
{
    const ac_solver_equilibrium *eq = &r->equilibria[e];
    const ac_solver_kpi *k = eq->has_refined ? &eq->refined : &eq->mean_field;
    ac_strbuf_printf(sb,
                     "%s equilibrium: %.4g jobs per server, mean response %.4gs, timeout "
                     "fraction %.3g, effective load %.4g (%.6g jobs/s against a capacity of "
                     "%.6g jobs/s)\n",
                     name, k->mean_jobs, k->mean_response_time, k->timeout_fraction,
                     k->effective_arrival_rate / ((double)r->servers * r->service_rate),
                     k->effective_arrival_rate, (double)r->servers * r->service_rate);
}

void ac_an_check_stability(ac_an_ctx *c)
{
    const ac_model *m = c->model;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *node = &m->nodes[i];
        const ac_node_analysis *na = &c->a->nodes[i];
        const ac_solver_pool_result *r = na->pool;
        if (!na->analysed) {
            if (node->kind == AC_NODE_POOL)
                ac_an_finding(
                    c, "AC900", node->loc, node->id,
                    "pool '%s' could not be solved (%s): the verdict is inconclusive", node->id,
                    na->why[0] ? na->why : "no convergence or beyond the solver's limits");
            else if (node->kind == AC_NODE_QUEUE && ac_an_queue_consumer(m, i) == NULL)
                ac_an_finding(c, "AC900", node->loc, node->id,
                              "queue '%s' is not analysed: archcheck models a queue consumed by "
                              "one function (one route with p = 1 and no fan-in), so the "
                              "verdict is inconclusive",
                              node->id);
            else
                ac_an_finding(c, "AC900", node->loc, node->id,
                              "%s '%s' could not be solved (%s): the verdict is inconclusive",
                              ac_node_kind_name(node->kind), node->id,
                              na->why[0] ? na->why : "beyond the models' limits");
            continue;
        }
        if (na->overload && node->kind == AC_NODE_FUNCTION) {
            const ac_solver_function_result *f = na->function;
            ac_an_finding(c, "AC101", node->loc, node->id,
                          "function '%s' is overloaded: %.6g executions/s of %.4gs need %.6g "
                          "instances against a concurrency of %zu; its event queue grows "
                          "without bound",
                          node->id, f->execution_rate, f->occupancy, f->load, f->concurrency);
            continue;
        }
        if (na->overload && node->kind == AC_NODE_QUEUE) {
            const ac_solver_queue_result *q = na->queue;
            ac_an_finding(c, "AC101", node->loc, node->id,
                          "queue '%s' is overloaded: %.6g messages/s need %.6g consumer "
                          "executions at once (batches of %zu) against %zu slots; its backlog "
                          "grows without bound",
                          node->id, q->arrival_rate, q->load, node->u.queue.batch_size, q->slots);
            continue;
        }
        if (ac_an_node_saturated(na)) {
            saturation_finding(c, node, na);
            continue;
        }
        if (na->overload) {
            double cap = (double)node->u.pool.servers * node->u.pool.service_rate;
            ac_an_finding(c, "AC101", node->loc, node->id,
                          "pool '%s' is overloaded: %.6g jobs/s arrive against a capacity of "
                          "%.6g jobs/s (utilisation %.4g); its queues grow without bound",
                          node->id, na->arrival_rate, cap, na->arrival_rate / cap);
            continue;
        }
        if (r == NULL) {
            if (na->expected_rel_error > 0.05)
                ac_an_finding(c, "AC901", node->loc, node->id,
                              "the %s numbers of %s '%s' have an expected error of %.1f%% "
                              "(utilisation %.3g)",
                              ac_solver_approx_name(na->approximation),
                              ac_node_kind_name(node->kind), node->id,
                              100.0 * na->expected_rel_error, na->utilization);
            continue;
        }
        if (r->bistable) {
            ac_strbuf sb = {0};
            ac_an_finding(c, "AC103", node->loc, node->id,
                          "pool '%s' has two stable equilibria: a metastable failure mode (a "
                          "burst can leave it stuck in the bad one)",
                          node->id);
            describe_equilibrium(&sb, "good", r, r->good);
            describe_equilibrium(&sb, "bad", r, r->bad);
            if (isfinite(r->smallest_burst.duration))
                ac_strbuf_printf(&sb,
                                 "smallest burst that tips it: %.6g extra jobs/s for %.4gs (%.6g "
                                 "jobs)",
                                 r->smallest_burst.extra_rate, r->smallest_burst.duration,
                                 r->smallest_burst.jobs);
            else if (r->burst_searched && r->burst_budget_spent)
                ac_strbuf_append(&sb, "the burst search ran out of its probe budget before a "
                                      "burst tipped it; the bad state is reached from a full "
                                      "start");
            else if (r->burst_searched)
                ac_strbuf_append(&sb, "no burst tried tipped it; the bad state is reached from a "
                                      "full start");
            else
                ac_strbuf_append(&sb, "the smallest tipping burst was not searched (the state is "
                                      "too large); the bad state is reached from a full start");
            if (na->basin_checked)
                ac_strbuf_printf(&sb,
                                 "\nsimulated (%zu servers): started empty it holds %.4g +- %.2g "
                                 "jobs per server (%s); started in the bad state, %.4g +- %.2g "
                                 "(%s)",
                                 node->u.pool.servers, na->basin_good.mean, na->basin_good.ci95,
                                 na->stays_good ? "stays good" : "does not stay good",
                                 na->basin_bad.mean, na->basin_bad.ci95,
                                 na->stays_bad ? "stays bad: the failure mode is real"
                                               : "leaves it: at this size the bad state is not "
                                                 "absorbing");
            if (na->burst_checked)
                ac_strbuf_printf(
                    &sb,
                    "\nsimulated burst of %.3g times the smallest one (%.6g extra jobs/s "
                    "for %.4gs) on the good state: %zu of %zu independent runs end in "
                    "the bad state and stay there%s",
                    na->burst_scale, r->smallest_burst.extra_rate,
                    na->burst_scale * r->smallest_burst.duration, na->burst_tipped, na->burst_runs,
                    na->burst_tipped == na->burst_runs
                        ? ""
                        : " (near the threshold a finite pool tips only sometimes)");
            if (sb.data != NULL && ac_diag_set_detail(c->findings, sb.data) != AC_OK)
                c->oom = 1;
            ac_strbuf_free(&sb);
        } else if (r->nequilibria > 0 && !r->equilibria[r->operating].stable) {
            ac_an_finding(c, "AC102", node->loc, node->id,
                          "the operating equilibrium of pool '%s' is unstable (largest eigenvalue "
                          "real part %.4g/s)",
                          node->id, r->equilibria[r->operating].max_real_eigenvalue);
        }
        if (na->expected_rel_error > 0.05)
            ac_an_finding(c, "AC901", node->loc, node->id,
                          "the %s numbers of pool '%s' have an expected error of %.1f%% (%zu "
                          "servers, load %.3g)",
                          ac_solver_approx_name(na->approximation), node->id,
                          100.0 * na->expected_rel_error, node->u.pool.servers, r->load);
    }
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double flow;
        if (isinf(lk->capacity))
            continue;
        flow = ac_an_link_flow(m, c->a, lk->from, lk->to);
        if (flow >= lk->capacity)
            ac_an_finding(c, "AC101", lk->loc, lk->id != NULL ? lk->id : m->nodes[lk->from].id,
                          "the link from '%s' to '%s' is overloaded: %.6g jobs/s against a "
                          "capacity of %.6g jobs/s",
                          m->nodes[lk->from].id, m->nodes[lk->to].id, flow, lk->capacity);
    }
}
