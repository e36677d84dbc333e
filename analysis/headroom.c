/*
 * Headroom (models.md §4): the largest factor alpha by which every source can be scaled
 * with stability and every load-sensitive requirement (latency, utilisation, loss) still
 * met. More load never helps these requirements, so "every requirement holds at alpha" is
 * monotone in alpha and the factor is found from a bracket [lo, hi] (lo holds, hi fails):
 *
 *  - nothing can bind (no load-sensitive requirement, every loaded node a bounded pool
 *    without retries, no finite link): the headroom is infinite, binding "nothing", with
 *    no probe at all;
 *  - stability alone: alpha = 1 / max_i rho_i over the pools with an unbounded buffer and
 *    the links (the bottleneck), exact where nothing upstream loses work;
 *  - only utilisation binds and the flows are linear in the sources (no node loses work,
 *    no autoscaler, no retries): alpha = min(stability, min_i u_max / u_i), closed form;
 *  - otherwise probes: the network solved at alpha (and its end-to-end lattice), the
 *    requirements tested. The first probe is at the known factor 1; then a safeguarded
 *    secant on the margin g(alpha) = max_r log(value_r / limit_r) against log alpha (exact
 *    in one step where the binding quantity is proportional to alpha, such as a
 *    utilisation), each estimate nudged by a third of the tolerance across the root so that
 *    both ends of the bracket close; a bisection whenever two steps did not halve the
 *    bracket or no margin is known (a stability failure has none; at a bistable pool the
 *    probes go to just below and just above the onset of its bistability instead,
 *    ac_solver_pool_bistable_onset). The tolerance is 1e-5
 *    relative (the report prints the factor to 4 to 6 significant digits, 1e-3 with retries whose
 *    probes integrate the ODE), and is part of the stated error. The factor reported is the
 *    bracket's lower end: a load at which every requirement was seen to hold.
 *
 * The work is counted in probes (options.headroom_probes, default 40; each probe within the
 * network's and the lattice's own budgets): past it the headroom is not computed and
 * headroom_why gives the bracket reached.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

/* The largest factor the search probes when no stability bound is known (2^20). */
#define AC_AN_HEADROOM_PROBE_MAX 1048576.0
/* The relative precision of the factor: the report prints it to 4 significant digits (6 in
   solve's text), and a value near a rounding boundary needs a margin below 1e-4. */
#define AC_AN_HEADROOM_TOL 1e-5
/* With retries every probe integrates the ODE from empty and from full, slowly near the
   fold where metastability appears: a precision of 1e-3 then. */
#define AC_AN_HEADROOM_TOL_RETRIES 1e-3
/* The default probe budget. */
#define AC_AN_HEADROOM_PROBES 40

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

/* One probe's outcome. */
typedef struct hr_probe {
    double alpha;
    int held;      /* 1 every requirement holds, 0 one fails, -1 one has no value there */
    double margin; /* max over the load-sensitive outcomes of log(value / limit); NAN when
                      unknown (a stability failure, a value of 0 or infinity) */
    char binding[64];
    size_t node;
    double abs_share; /* the binding outcome's stated absolute error over its limit */
    double onset;     /* a bistable pool's failure: the factor where its bistability begins,
                         estimated from its equilibria (ac_solver_pool_bistable_onset); NAN
                         when none */
} hr_probe;

/* The search: the model, the probe options, the scratch analysis, the probes counted. */
typedef struct hr_search {
    const ac_model *m;
    const ac_analysis_options *opt;
    ac_analysis scratch;
    size_t probes, budget;
    double tol; /* the factor's relative precision */
    ac_error *err;
    int rc;
} hr_search;

/* The requirements' context with the margin gathered by emit_margin (c first: the callback
 * gets &c). */
typedef struct margin_ctx {
    ac_an_ctx c;
    double g;
    int unknown;
} margin_ctx;

static void emit_margin(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *o)
{
    margin_ctx *mc = (margin_ctx *)c;
    (void)r;
    if (!o->evaluated || isnan(o->value))
        return;
    /* a value of 0 under a positive limit (a loss none of whose requests is lost) is
       log 0 = -infinity in the max: the others guide the step (the verdicts, not the margin,
       decide the bracket) */
    if (o->value == 0.0 && o->limit > 0.0)
        return;
    if (!(o->value > 0.0) || !isfinite(o->value) || !(o->limit > 0.0)) {
        mc->unknown = 1; /* negative or unbounded: no slope to follow */
        return;
    }
    mc->g = fmax(mc->g, log(o->value / o->limit));
}

/* g = max_r log(value_r / limit_r) over the latency, utilisation and loss outcomes of a
 * (a value of 0 adds nothing); NAN when one is unbounded or none is positive. */
static double margin_of(const ac_model *m, ac_analysis *a)
{
    margin_ctx mc;
    memset(&mc, 0, sizeof mc);
    mc.c.model = m;
    mc.c.a = a;
    mc.c.probe_node = AC_NONE;
    mc.g = -INFINITY;
    for (size_t i = 0; i < m->nrequirements; i++) {
        const ac_requirement *r = &m->requirements[i];
        switch (r->kind) {
        case AC_REQ_LATENCY: ac_req_latency(&mc.c, r, emit_margin); break;
        case AC_REQ_UTILIZATION: ac_req_utilization(&mc.c, r, emit_margin); break;
        case AC_REQ_LOSS: ac_req_loss(&mc.c, r, emit_margin); break;
        default: break;
        }
    }
    return mc.unknown || !isfinite(mc.g) ? NAN : mc.g;
}

int ac_an_probe_solve(const ac_model *m, const ac_analysis_options *opt, double scale,
                      ac_analysis *a, size_t *saturated, ac_error *err)
{
    int rc = ac_an_network_solve(m, opt, scale, a, err);
    *saturated = AC_NONE;
    if (rc == AC_OK && m->nrequirements > 0)
        rc = ac_an_e2e_solve_points(m, a, 2048, err);
    for (size_t i = 0; rc == AC_OK && i < m->nnodes && *saturated == AC_NONE; i++)
        if (ac_an_node_saturated(&a->nodes[i]))
            *saturated = i;
    return rc;
}

/* A stability failure at a bistable pool fed in proportion to the load (no autoscaler): the
 * factor alpha x_c / x where its bistability begins, x_c the onset of its arrival rate x
 * (ac_solver_pool_bistable_onset, to 1/100 of the search's tolerance) into p->onset, a guide
 * for the next probe (the probes decide). Returns 0, or -1 out of memory (s->rc set). */
static int onset_of(hr_search *s, hr_probe *p)
{
    const ac_node_analysis *na;
    ac_error local = {0};
    double x_c;
    if (p->node == AC_NONE || p->node >= s->m->nnodes)
        return 0;
    na = &s->scratch.nodes[p->node];
    if (s->m->nodes[p->node].kind != AC_NODE_POOL || s->m->nodes[p->node].u.pool.has_autoscale ||
        na->pool == NULL || !na->pool->bistable || !(na->arrival_rate > 0.0))
        return 0;
    if (ac_solver_pool_bistable_onset(&s->m->nodes[p->node].u.pool, na->pool, s->tol / 100.0, &x_c,
                                      &local) != 0) {
        if (local.code == AC_ENOMEM) {
            s->rc = ac_error_set(s->err, AC_ENOMEM, "%s", local.message);
            return -1;
        }
        return 0; /* no guide: the search bisects */
    }
    p->onset = p->alpha * x_c / na->arrival_rate;
    return 0;
}

/* Solve at alpha into the scratch analysis and test the requirements into *p (with the onset
 * of a bistability failure when want_onset). Returns 0, or -1 when the budget is spent or the
 * solve failed (s->rc set). */
static int probe(hr_search *s, double alpha, hr_probe *p, int want_onset)
{
    const ac_model *m = s->m;
    ac_analysis *sc = &s->scratch;
    memset(p, 0, sizeof *p);
    p->alpha = alpha;
    p->node = AC_NONE;
    p->margin = NAN;
    p->onset = NAN;
    if (s->probes >= s->budget)
        return -1;
    s->probes++;
    s->rc = ac_an_probe_solve(m, s->opt, alpha, sc, &p->node, s->err);
    if (s->rc != AC_OK)
        return -1;
    if (p->node != AC_NONE) {
        snprintf(p->binding, sizeof p->binding, "stability");
        return 0; /* offered >= capacity: an overload (AC101) */
    }
    p->held =
        ac_an_requirements_hold_abs(m, sc, p->binding, sizeof p->binding, &p->node, &p->abs_share);
    if (p->held >= 0 && strcmp(p->binding, "stability") != 0)
        p->margin = margin_of(m, sc);
    else if (p->held == 0 && want_onset && onset_of(s, p) != 0)
        return -1;
    /* a margin that disagrees with the verdict is no guide */
    if (!isnan(p->margin) &&
        ((p->held == 1 && p->margin > 0.0) || (p->held == 0 && p->margin <= 0.0)))
        p->margin = NAN;
    return 0;
}

/* Is a requirement present that tightens with load (latency, utilisation, loss)? */
static int tightens_with_load(const ac_model *m)
{
    for (size_t i = 0; i < m->nrequirements; i++) {
        ac_req_kind k = m->requirements[i].kind;
        if (k == AC_REQ_LATENCY || k == AC_REQ_UTILIZATION || k == AC_REQ_LOSS)
            return 1;
    }
    return 0;
}

/* Does anything but stability bound the headroom: a load-sensitive requirement, or retries
 * (metastability appears with load)? */
static int load_sensitive(const ac_model *m)
{
    if (tightens_with_load(m))
        return 1;
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL &&
            (m->nodes[i].u.pool.retries > 0 || m->nodes[i].u.pool.buffer != AC_UNBOUNDED))
            return 1;
    return 0;
}

/* Is a requirement present that reads a pool's loss bracket (loss_abs_error): a loss, or a
 * throughput (its absolute error is the loss's times the arrivals, req_load.c)? */
static int reads_loss_bracket(const ac_model *m)
{
    for (size_t i = 0; i < m->nrequirements; i++)
        if (m->requirements[i].kind == AC_REQ_LOSS || m->requirements[i].kind == AC_REQ_THROUGHPUT)
            return 1;
    return 0;
}

/* Is a load-sensitive requirement other than utilisation present? */
static int beyond_utilization(const ac_model *m)
{
    for (size_t i = 0; i < m->nrequirements; i++) {
        ac_req_kind k = m->requirements[i].kind;
        if (k == AC_REQ_LATENCY || k == AC_REQ_LOSS)
            return 1;
    }
    return 0;
}

/* Can anything fail as the load grows? Not when no requirement tightens with load, every
 * loaded node is a pool with a finite buffer, no retries and no timeout (it loses work instead
 * of overloading, and the throughput it passes on grows with its load) and no finite link
 * carries flow. */
static int can_bind(const ac_model *m, const ac_analysis *a)
{
    /* (a bounded pool's loss grows with the load, but only a loss requirement can bind it;
       retries are caught below) */
    if (tightens_with_load(m))
        return 1;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        if (!(a->nodes[i].arrival_rate > 0.0))
            continue;
        /* (a timeout makes the goodput passed on fall as the queue grows: probes decide) */
        if (nd->kind != AC_NODE_POOL || nd->u.pool.buffer == AC_UNBOUNDED ||
            nd->u.pool.retries > 0 || nd->u.pool.timeout > 0.0)
            return 1;
    }
    for (size_t l = 0; l < m->nlinks; l++)
        if (!isinf(m->links[l].capacity) &&
            ac_an_link_flow(m, a, m->links[l].from, m->links[l].to) > 0.0)
            return 1;
    return 0;
}

/* The stability bound 1 / max rho over the unbounded pools and the finite links into
 * *alpha (INFINITY when none, or when a node upstream loses work: *lossy), its node into
 * *node; *linear := the flows are linear in the sources and the utilisations proportional
 * to them (no loss, no autoscaler). Returns 0, or -1 when a loaded node is not modelled. */
static int stability_bound(const ac_model *m, const ac_analysis *a, double *alpha, size_t *node,
                           int *lossy, int *linear)
{
    *alpha = INFINITY;
    *node = AC_NONE;
    *lossy = 0;
    *linear = 1;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        const ac_node_analysis *na = &a->nodes[i];
        if (!na->analysed) {
            if (na->arrival_rate > 0.0)
                return -1; /* a node the analysis does not model or solve: no headroom */
            continue;
        }
        if (nd->kind != AC_NODE_POOL) {
            /* functions throttle, gateways reject, queues dead-letter and batch: flows are
               not linear in the sources, so the search probes */
            *lossy = 1;
            continue;
        }
        if (nd->u.pool.buffer != AC_UNBOUNDED || nd->u.pool.timeout > 0.0)
            *lossy = 1;
        if ((nd->u.pool.has_autoscale || nd->u.pool.retries > 0) && na->arrival_rate > 0.0)
            *linear = 0;
        if (nd->u.pool.buffer == AC_UNBOUNDED && na->arrival_rate > 0.0) {
            /* an autoscaled pool grows up to its maximum */
            size_t n = nd->u.pool.has_autoscale ? nd->u.pool.autoscale.max : nd->u.pool.servers;
            double rho = na->arrival_rate / ((double)n * nd->u.pool.service_rate);
            /* arrival rates scale linearly with the sources while nothing is lost upstream */
            if (1.0 / rho < *alpha) {
                *alpha = 1.0 / rho;
                *node = i;
            }
        }
    }
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double flow = ac_an_link_flow(m, a, lk->from, lk->to);
        if (lk->buffer != AC_UNBOUNDED && !isinf(lk->capacity) && flow > 0.0)
            *lossy = 1; /* a full link buffer loses jobs */
        if (!isinf(lk->capacity) && flow > 0.0 && lk->capacity / flow < *alpha) {
            *alpha = lk->capacity / flow;
            *node = lk->from;
        }
    }
    /* behind a node that loses work, flows grow more slowly than the sources: the linear
       bound does not hold, and the search probes instead */
    if (*lossy) {
        *alpha = INFINITY;
        *linear = 0;
    }
    return 0;
}

/* Only utilisation binds and the flows are linear: u_i(alpha) = alpha u_i(1), so the factor
 * is min(stability, u_max / u_i) in closed form. Returns 1 with the answer in a, 0 when a
 * utilisation has no value (the search decides). */
static int utilization_closed_form(const ac_model *m, ac_analysis *a, double alpha_stab,
                                   size_t stab_node)
{
    double best = alpha_stab;
    size_t node = stab_node;
    for (size_t k = 0; k < m->nrequirements; k++) {
        const ac_requirement *r = &m->requirements[k];
        if (r->kind != AC_REQ_UTILIZATION)
            continue;
        for (size_t i = 0; i < m->nnodes; i++) {
            const ac_node_analysis *na = &a->nodes[i];
            if ((r->target != AC_NONE && r->target != i) || !(na->arrival_rate > 0.0))
                continue;
            if (!na->analysed || na->overload || !(na->utilization > 0.0))
                return 0;
            if (r->max / na->utilization < best) {
                best = r->max / na->utilization;
                node = i;
            }
        }
    }
    if (!isfinite(best))
        return 0;
    a->has_headroom = 1;
    a->headroom = best;
    a->headroom_node = node;
    a->headroom_rel_error = 0.0; /* flow conservation: exact */
    snprintf(a->headroom_binding, sizeof a->headroom_binding, "%s",
             best < alpha_stab ? "utilization" : "stability");
    return 1;
}

/* The bracket: lo held, hi failed (lo = 0 when no probe held), with the margins the secant
 * uses (Illinois: an end kept twice in a row has its margin halved, so that the secant
 * closes from both sides). */
typedef struct hr_bracket {
    hr_probe lo, hi;
    double glo, ghi;
    int last_held; /* the last probe held */
    int streak;    /* probes in a row on the same side */
} hr_bracket;

/* The next probe: the secant root of the margin against log alpha through the two ends,
 * nudged by a third of the tolerance across it (away from the end that last moved) and kept
 * that far inside the bracket; the midpoint when either end has no margin or `bisect`. */
static double next_probe(const hr_bracket *b, double tol, int bisect)
{
    double lo = b->lo.alpha, hi = b->hi.alpha, mid = 0.5 * (lo + hi), est, d;
    if (b->hi.onset > lo && b->hi.onset < hi) {
        /* the failing end's bistability onset: the root, up to the onset's 1% of tol */
        d = tol * b->hi.onset / 3.0;
        est = b->hi.onset + (b->last_held ? d : -d);
        return fmin(fmax(est, lo + d), hi - d);
    }
    if (bisect || !(lo > 0.0) || isnan(b->glo) || isnan(b->ghi) || !(b->ghi > b->glo))
        return mid;
    est = exp(log(lo) - b->glo * (log(hi) - log(lo)) / (b->ghi - b->glo));
    if (!(est > lo && est < hi))
        return mid;
    d = tol * est / 3.0;
    est += b->last_held ? d : -d;
    return fmin(fmax(est, lo + d), hi - d);
}

/* The answer from a finished bracket into a. */
static void store_bracket(const ac_model *m, ac_analysis *a, const hr_search *s, const hr_probe *lo,
                          const hr_probe *hi, double tol)
{
    a->has_headroom = 1;
    a->headroom = lo->alpha;
    a->headroom_node = hi->node;
    snprintf(a->headroom_binding, sizeof a->headroom_binding, "%s",
             hi->binding[0] ? hi->binding : "stability");
    /* the factor is as exact as the quantity that binds, within the search's tolerance:
       loads from flow conservation are exact where nothing is lost; latencies carry their
       nodes' stated errors */
    a->headroom_rel_error = lo->alpha > 0.0 ? tol : 0.0;
    if (strcmp(a->headroom_binding, "utilization") != 0 &&
        strcmp(a->headroom_binding, "stability") != 0)
        for (size_t i = 0; i < m->nnodes; i++)
            a->headroom_rel_error = fmax(a->headroom_rel_error, a->nodes[i].expected_rel_error);
    /* an end-to-end latency that binds carries the probes' lattice bracket (their least
       lattice) as well */
    if (hi->node == AC_NONE && strstr(a->headroom_binding, "latency") != NULL &&
        s->scratch.e2e.available)
        a->headroom_rel_error = fmax(a->headroom_rel_error, s->scratch.e2e.expected_rel_error);
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL &&
            (m->nodes[i].u.pool.buffer != AC_UNBOUNDED || m->nodes[i].u.pool.timeout > 0.0))
            a->headroom_rel_error = fmax(a->headroom_rel_error, a->nodes[i].expected_rel_error);
    /* a binding value with an absolute error (a loss near 0): that share of its limit is
       not covered by the relative errors above; the factor's error is at most the value's
       (the binding quantities grow at least in proportion to the load) */
    if (hi->abs_share > 0.0)
        a->headroom_rel_error += hi->abs_share;
}

/* The Anderson-Bjorck factor for the end kept twice: 1 - g_new / g_old of the end that
 * moved, 1/2 when that is not in (0, 1) (Illinois). */
static double ab_scale(double g_new, double g_old)
{
    double f = 1.0 - g_new / g_old;
    return f > 0.0 && f < 1.0 ? f : 0.5;
}

/* Close the bracket [lo, hi] to the tolerance (last_held: the last probe held). Returns 1
 * done, 0 uncomputed or out of budget (a->headroom_why says which), -1 on error (s->rc). */
static int refine(hr_search *s, hr_probe *lo, hr_probe *hi, double tol, int last_held,
                  ac_analysis *a)
{
    hr_bracket b;
    int slow = 0;
    double w_before = hi->alpha - lo->alpha;
    b.lo = *lo;
    b.hi = *hi;
    b.glo = lo->margin;
    b.ghi = hi->margin;
    b.last_held = last_held;
    b.streak = 0;
    while (b.hi.alpha - b.lo.alpha > tol * b.hi.alpha && b.hi.alpha > 1e-9) {
        hr_probe p;
        double x = next_probe(&b, tol, slow >= 3);
        /* a failure at x closes the bracket when x - lo <= tol x: no guide needed then */
        if (probe(s, x, &p, x - b.lo.alpha > tol * x) != 0) {
            if (s->rc != AC_OK)
                return -1;
            snprintf(a->headroom_why, sizeof a->headroom_why,
                     "the search ran out of its budget of %zu probes with the factor between "
                     "%.6g and %.6g",
                     s->budget, b.lo.alpha, b.hi.alpha);
            return 0;
        }
        if (p.held < 0) {
            snprintf(a->headroom_why, sizeof a->headroom_why,
                     "a requirement that tightens with load has no value at %.6g times the load",
                     x);
            return 0;
        }
        b.streak = p.held == b.last_held ? b.streak + 1 : 0;
        b.last_held = p.held;
        if (p.held) {
            if (b.streak > 0) /* hi kept twice: scaled (Anderson-Bjorck) */
                b.ghi *= ab_scale(p.margin, b.glo);
            b.lo = p;
            b.glo = p.margin;
        } else {
            if (b.streak > 0)
                b.glo *= ab_scale(p.margin, b.ghi);
            b.hi = p;
            b.ghi = p.margin;
        }
        /* steps that did not halve the bracket: bisect once after three */
        if (b.hi.alpha - b.lo.alpha > 0.5 * w_before) {
            slow++;
        } else {
            slow = 0;
            w_before = b.hi.alpha - b.lo.alpha;
        }
        if (slow > 3) {
            slow = 0;
            w_before = b.hi.alpha - b.lo.alpha;
        }
    }
    *lo = b.lo;
    *hi = b.hi;
    return 1;
}

/* The held end's answer when the probes reach the cap: the stability bound, or nothing
 * bounds the growth. */
static void store_cap(ac_analysis *a, double alpha_stab, size_t stab_node)
{
    a->has_headroom = 1;
    a->headroom = isfinite(alpha_stab) ? alpha_stab : INFINITY;
    a->headroom_node = isfinite(alpha_stab) ? stab_node : AC_NONE;
    /* probes stop 0.1% short of the bound: a requirement that would fail only in that last
       0.1% is within this stated error of the factor */
    a->headroom_rel_error = isfinite(alpha_stab) ? 1e-3 : 0.0;
    snprintf(a->headroom_binding, sizeof a->headroom_binding, "%s",
             isfinite(alpha_stab) ? "stability" : "nothing");
}

/* From the end probe `at` and the probe before it on the same side (`before`), the next
 * factor outwards: the root of the margin against log alpha, by the secant through both or,
 * with one point, by slope 1 (exact where the binding quantity is proportional to the load,
 * a utilisation), pushed a third of the tolerance past it; between 1 + tol and 2 times `at`
 * (growing: dir = 1) or 1/1024 and 1 - tol times it (dir = -1: a margin that no longer falls
 * with the load reaches the floor 1e-9 in a few probes); a factor of 2 without margins. */
static double outwards(const hr_probe *before, const hr_probe *at, int dir, double tol)
{
    double x = at->alpha * (dir > 0 ? 2.0 : 0.5), slope = 1.0;
    if (dir < 0 && at->onset > 0.0 && at->onset < at->alpha)
        return fmin(fmax(at->onset * (1.0 - tol / 3.0), at->alpha / 1024.0),
                    (1.0 - tol) * at->alpha); /* just below a bistability onset */
    if (isnan(at->margin))
        return x;
    if (!isnan(before->margin) && before->alpha != at->alpha) {
        double s = (at->margin - before->margin) / (log(at->alpha) - log(before->alpha));
        if (s > 0.0 && isfinite(s))
            slope = s;
    }
    x = at->alpha * exp(-at->margin / slope) * (1.0 + (double)dir * tol / 3.0);
    if (dir > 0)
        return fmin(fmax(x, (1.0 + tol) * at->alpha), 2.0 * at->alpha);
    return fmin(fmax(x, at->alpha / 1024.0), (1.0 - tol) * at->alpha);
}

/* The probing search (the bounds above did not settle it): a bracket from the first probe
 * at the known factor 1, grown (or shrunk) until it holds a root, then closed. Returns 0 or
 * an error code. */
static int search(hr_search *s, ac_analysis *a, double alpha_stab, size_t stab_node)
{
    const ac_model *m = s->m;
    double tol = AC_AN_HEADROOM_TOL;
    double cap = isfinite(alpha_stab) ? alpha_stab * (1.0 - 1e-3) : AC_AN_HEADROOM_PROBE_MAX;
    hr_probe lo, hi, p, prev;
    int done;
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL && m->nodes[i].u.pool.retries > 0)
            tol = AC_AN_HEADROOM_TOL_RETRIES;
    s->tol = tol;
    memset(&lo, 0, sizeof lo);
    lo.node = AC_NONE;
    lo.margin = NAN;
    lo.onset = NAN;
    if (probe(s, fmin(1.0, cap), &p, 1) != 0)
        goto out_of_budget;
    if (p.held < 0)
        goto uncomputed;
    prev = p;
    if (p.held) {
        /* grow towards the cap */
        lo = p;
        for (;;) {
            double x;
            if (lo.alpha >= cap) {
                store_cap(a, alpha_stab, stab_node);
                return AC_OK;
            }
            x = fmin(outwards(&prev, &lo, 1, tol), cap);
            if (probe(s, x, &p, 1) != 0)
                goto out_of_budget;
            if (p.held < 0)
                goto uncomputed;
            if (!p.held) {
                hi = p;
                break;
            }
            prev = lo;
            lo = p;
        }
    } else {
        /* shrink towards 0 */
        hi = p;
        while (hi.alpha > 1e-9) {
            double x = outwards(&prev, &hi, -1, tol);
            if (probe(s, x, &p, 1) != 0)
                goto out_of_budget;
            if (p.held < 0)
                goto uncomputed;
            if (p.held) {
                lo = p;
                break;
            }
            prev = hi;
            hi = p;
        }
    }
    done = refine(s, &lo, &hi, tol, p.held == 1, a);
    if (done < 0)
        return s->rc;
    if (done == 0)
        return AC_OK;
    store_bracket(m, a, s, &lo, &hi, tol);
    return AC_OK;
out_of_budget:
    if (s->rc != AC_OK)
        return s->rc;
    snprintf(a->headroom_why, sizeof a->headroom_why,
             "the search ran out of its budget of %zu probes", s->budget);
    return AC_OK;
uncomputed:
    /* a requirement that tightens with load had no value at a probe: no factor can be
       claimed (ac_req_headroom then says the headroom could not be computed) */
    snprintf(a->headroom_why, sizeof a->headroom_why,
             "a requirement that tightens with load has no value at %.6g times the load", p.alpha);
    return AC_OK;
}

int ac_an_headroom(const ac_model *m, const ac_analysis_options *opt_in, ac_analysis *a,
                   ac_error *err)
{
    ac_analysis_options probe_opt = *opt_in;
    hr_search s;
    double alpha_stab;
    size_t stab_node;
    int lossy, linear, rc;

    probe_opt.solver.kpi_only = 1;
    probe_opt.solver.burst_search = 0;
    /* a pool's loss bracket (its loss solved again under random dispatch) is read by loss
       and throughput requirements only */
    probe_opt.loss_bracket_unread = !reads_loss_bracket(m);
    a->has_headroom = 0;
    a->headroom_why[0] = '\0';
    if (m->nsources == 0 || m->npopulations > 0)
        return AC_OK; /* closed or mixed workloads: not defined here */
    if (stability_bound(m, a, &alpha_stab, &stab_node, &lossy, &linear) != 0)
        return AC_OK;
    if (!can_bind(m, a)) {
        /* no requirement tightens with load and no loaded node can overload: nothing bounds
           the growth (not a factor to report as if something bound it somewhere) */
        a->has_headroom = 1;
        a->headroom = INFINITY;
        a->headroom_node = AC_NONE;
        a->headroom_rel_error = 0.0;
        snprintf(a->headroom_binding, sizeof a->headroom_binding, "nothing");
        return AC_OK;
    }
    if (isfinite(alpha_stab) && !load_sensitive(m)) {
        a->has_headroom = 1; /* 1 / max rho: exact */
        a->headroom = alpha_stab;
        a->headroom_node = stab_node;
        a->headroom_rel_error = 0.0;
        snprintf(a->headroom_binding, sizeof a->headroom_binding, "stability");
        return AC_OK;
    }
    if (linear && !beyond_utilization(m) && utilization_closed_form(m, a, alpha_stab, stab_node))
        return AC_OK;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.opt = &probe_opt;
    s.err = err;
    s.budget = opt_in->headroom_probes > 0 ? opt_in->headroom_probes : AC_AN_HEADROOM_PROBES;
    s.scratch.model = m;
    s.scratch.nnodes = m->nnodes;
    s.scratch.nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *s.scratch.nodes);
    /* each probe's pools start from the equilibria of the probes at neighbouring loads */
    s.scratch.warm = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *s.scratch.warm);
    if (s.scratch.nodes == NULL || s.scratch.warm == NULL) {
        free(s.scratch.nodes);
        free(s.scratch.warm);
        return ac_error_set(err, AC_ENOMEM, "out of memory (headroom)");
    }
    rc = search(&s, a, alpha_stab, stab_node);
    if (rc != AC_OK || !a->has_headroom)
        a->has_headroom = 0;
    for (size_t i = 0; i < s.scratch.nnodes; i++) {
        ac_an_node_clear(&s.scratch.nodes[i]);
        ac_an_warm_clear(&s.scratch.warm[i]);
    }
    free(s.scratch.warm);
    free(s.scratch.nodes);
    ac_an_e2e_clear(&s.scratch.e2e);
    return rc;
}
