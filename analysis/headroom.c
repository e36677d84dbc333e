/*
 * Headroom (models.md §4): the largest factor alpha by which every source can
 * be scaled with stability and every load-sensitive requirement (latency,
 * utilisation, loss) still met. For stability alone, alpha = 1 / max_i rho_i
 * over the pools with an unbounded buffer (the bottleneck); requirements and
 * metastability can bind earlier, found by bisection on alpha (monotone: more
 * load never helps these requirements) to a relative precision of 1e-6. Where no stability
 * bound is known (lossy nodes) and every probe up to 2^20 holds, nothing bounds the growth:
 * the headroom is infinite with binding "nothing".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

/* The largest factor the search probes when no stability bound is known (2^20). */
#define AC_AN_HEADROOM_PROBE_MAX 1048576.0

/* Solve at alpha into a scratch analysis and test the requirements: 1 hold, 0 fail (or *rc
 * set), -1 one has no value there. */
static int holds_at(const ac_model *m, const ac_analysis_options *opt, ac_analysis *scratch,
                    double alpha, char *binding, size_t size, size_t *node, ac_error *err, int *rc)
{
    *rc = ac_an_network_solve(m, opt, alpha, scratch, err);
    if (*rc != AC_OK)
        return 0;
    if (m->nrequirements > 0) {
        *rc = ac_an_e2e_solve_points(m, scratch, 2048, err);
        if (*rc != AC_OK)
            return 0;
    }
    for (size_t i = 0; i < m->nnodes; i++)
        if (ac_an_node_saturated(&scratch->nodes[i])) {
            snprintf(binding, size, "stability");
            *node = i;
            return 0; /* offered >= capacity: an overload (AC101) */
        }
    return ac_an_requirements_hold(m, scratch, binding, size, node);
}

int ac_an_node_saturated(const ac_node_analysis *na)
{
    if (!na->analysed || na->arrival_rate <= 0.0)
        return 0;
    if (na->function != NULL)
        return na->function->mode == AC_SOLVER_FN_SYNC &&
               na->function->load >= (double)na->function->concurrency;
    if (na->gateway != NULL)
        return na->gateway->load >= 1.0;
    return 0;
}

/* Does anything but stability bound the headroom: a load-sensitive requirement, or retries
 * (metastability appears with load)? */
static int load_sensitive(const ac_model *m)
{
    for (size_t i = 0; i < m->nrequirements; i++) {
        ac_req_kind k = m->requirements[i].kind;
        if (k == AC_REQ_LATENCY || k == AC_REQ_UTILIZATION || k == AC_REQ_LOSS)
            return 1;
    }
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL &&
            (m->nodes[i].u.pool.retries > 0 || m->nodes[i].u.pool.buffer != AC_UNBOUNDED))
            return 1;
    return 0;
}

int ac_an_headroom(const ac_model *m, const ac_analysis_options *opt_in, ac_analysis *a,
                   ac_error *err)
{
    ac_analysis_options probe = *opt_in;
    const ac_analysis_options *opt = &probe;
    ac_analysis scratch;
    double alpha_stab = INFINITY, lo, hi, precision;
    int lossy = 0;
    size_t stab_node = AC_NONE, node = AC_NONE;
    char binding[64] = "";
    int rc = AC_OK;

    probe.solver.kpi_only = 1;
    probe.solver.burst_search = 0;
    a->has_headroom = 0;
    if (m->nsources == 0 || m->npopulations > 0)
        return AC_OK; /* closed or mixed workloads: not defined here */
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        const ac_node_analysis *na = &a->nodes[i];
        if (!na->analysed) {
            if (na->arrival_rate > 0.0)
                return AC_OK; /* a node the analysis does not model or solve: no headroom */
            continue;
        }
        if (nd->kind != AC_NODE_POOL) {
            /* functions throttle, gateways reject, queues dead-letter and batch: flows are
               not linear in the sources, so the search probes */
            lossy = 1;
            continue;
        }
        if (nd->u.pool.buffer != AC_UNBOUNDED || nd->u.pool.timeout > 0.0)
            lossy = 1;
        if (nd->u.pool.buffer == AC_UNBOUNDED && na->arrival_rate > 0.0) {
            /* an autoscaled pool grows up to its maximum */
            size_t n = nd->u.pool.has_autoscale ? nd->u.pool.autoscale.max : nd->u.pool.servers;
            double rho = na->arrival_rate / ((double)n * nd->u.pool.service_rate);
            /* arrival rates scale linearly with the sources while nothing is lost upstream */
            if (1.0 / rho < alpha_stab) {
                alpha_stab = 1.0 / rho;
                stab_node = i;
            }
        }
    }
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double flow = ac_an_link_flow(m, a, lk->from, lk->to);
        if (!isinf(lk->capacity) && flow > 0.0 && lk->capacity / flow < alpha_stab) {
            alpha_stab = lk->capacity / flow;
            stab_node = lk->from;
        }
    }
    /* behind a node that loses work, flows grow more slowly than the sources: the linear
       bound does not hold, and the search probes instead */
    if (lossy)
        alpha_stab = INFINITY;
    memset(&scratch, 0, sizeof scratch);
    scratch.model = m;
    scratch.nnodes = m->nnodes;
    scratch.nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *scratch.nodes);
    if (scratch.nodes == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (headroom)");

    /* an upper bracket: the stability bound, or grow until something fails */
    if (isfinite(alpha_stab)) {
        hi = alpha_stab;
    } else {
        int held = 1;
        hi = 1.0;
        while (hi < AC_AN_HEADROOM_PROBE_MAX &&
               (held = holds_at(m, opt, &scratch, hi, binding, sizeof binding, &node, err, &rc)) >
                   0)
            hi *= 2.0;
        if (rc != AC_OK)
            goto cleanup;
        if (held < 0)
            goto uncomputed;
        if (held && hi >= AC_AN_HEADROOM_PROBE_MAX) {
            /* every probe up to 2^20 times the load held: nothing bounds the growth (no
               requirement that tightens with load binds and nothing overloads); not a
               factor to report as if something bound it there */
            a->has_headroom = 1;
            a->headroom = INFINITY;
            a->headroom_node = AC_NONE;
            a->headroom_rel_error = 0.0;
            snprintf(a->headroom_binding, sizeof a->headroom_binding, "nothing");
            goto cleanup;
        }
    }
    lo = 0.0;
    /* Is the stability bound itself the answer? Probes stop 0.1% short of it: the queues of
       a pool at load 1 - eps need ~ln(1e-18)/eps levels, and a requirement that would fail
       only in that last 0.1% is within the stated error (1e-3) of the factor. */
    if (isfinite(alpha_stab)) {
        hi = alpha_stab * (1.0 - 1e-3);
        int held = load_sensitive(m)
                       ? holds_at(m, opt, &scratch, hi, binding, sizeof binding, &node, err, &rc)
                       : 1;
        if (rc != AC_OK)
            goto cleanup;
        if (held < 0)
            goto uncomputed;
        if (held) {
            a->has_headroom = 1;
            a->headroom = alpha_stab;
            a->headroom_node = stab_node;
            a->headroom_rel_error = load_sensitive(m) ? 1e-3 : 0.0; /* 1 / max rho: exact */
            snprintf(a->headroom_binding, sizeof a->headroom_binding, "stability");
            goto cleanup;
        }
        if (rc != AC_OK)
            goto cleanup;
    }
    /* with retries every probe integrates the ODE from empty and from full, slowly near the
       fold where metastability appears: a precision of 1e-3 is then stated instead of 1e-6 */
    precision = 1e-6;
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL && m->nodes[i].u.pool.retries > 0)
            precision = 1e-3;
    while (hi - lo > precision * hi && hi > 1e-9) {
        double mid = 0.5 * (lo + hi);
        char b[64] = "";
        size_t nd = AC_NONE;
        int held = holds_at(m, opt, &scratch, mid, b, sizeof b, &nd, err, &rc);
        if (rc != AC_OK)
            goto cleanup;
        if (held < 0)
            goto uncomputed;
        if (held) {
            lo = mid;
        } else {
            hi = mid;
            memcpy(binding, b, sizeof binding);
            node = nd;
        }
    }
    a->has_headroom = 1;
    a->headroom = lo;
    a->headroom_node = node;
    snprintf(a->headroom_binding, sizeof a->headroom_binding, "%s",
             binding[0] ? binding : "stability");
    /* the factor is as exact as the quantity that binds: loads from flow conservation are
       exact where nothing is lost; latencies carry their nodes' stated errors */
    a->headroom_rel_error = precision > 1e-6 ? precision : 0.0;
    if (strcmp(a->headroom_binding, "utilization") != 0 &&
        strcmp(a->headroom_binding, "stability") != 0)
        for (size_t i = 0; i < m->nnodes; i++)
            a->headroom_rel_error = fmax(a->headroom_rel_error, a->nodes[i].expected_rel_error);
    /* an end-to-end latency that binds carries the probes' lattice bracket (their least
       lattice) as well */
    if (node == AC_NONE && strstr(a->headroom_binding, "latency") != NULL && scratch.e2e.available)
        a->headroom_rel_error = fmax(a->headroom_rel_error, scratch.e2e.expected_rel_error);
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL &&
            (m->nodes[i].u.pool.buffer != AC_UNBOUNDED || m->nodes[i].u.pool.timeout > 0.0))
            a->headroom_rel_error = fmax(a->headroom_rel_error, a->nodes[i].expected_rel_error);
    goto cleanup;
uncomputed:
    /* a requirement that tightens with load had no value at a probe: no factor can be
       claimed (ac_req_headroom then says the headroom could not be computed) */
    a->has_headroom = 0;
cleanup:
    for (size_t i = 0; i < scratch.nnodes; i++)
        ac_an_node_clear(&scratch.nodes[i]);
    free(scratch.nodes);
    ac_an_e2e_clear(&scratch.e2e);
    return rc;
}
