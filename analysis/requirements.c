/*
 * Requirements into checks and findings. Each family evaluates its outcomes
 * (req_*.c); here they become PASS, FAIL or INCONCLUSIVE: a value within its
 * stated error of the limit, rel_error x |value| + abs_error, cannot support either verdict
 * (the absolute part matters near 0: a loss of 1e-6 stated within 1e-3 does not pass
 * loss <= 1e-4).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/internal.h"

static const char *req_rule(ac_req_kind k)
{
    switch (k) {
    case AC_REQ_LATENCY: return "AC201";
    case AC_REQ_UTILIZATION: return "AC202";
    case AC_REQ_LOSS: return "AC203";
    case AC_REQ_THROUGHPUT: return "AC204";
    case AC_REQ_HEADROOM: return "AC205";
    case AC_REQ_RECOVERY: return "AC206";
    case AC_REQ_SCALING: return "AC207";
    case AC_REQ_RESILIENCE: return "AC301";
    }
    return "AC900";
}

static void format_value(char *buf, size_t size, double v, const char *unit)
{
    if (isinf(v))
        snprintf(buf, size, "unbounded");
    else if (strcmp(unit, "s") == 0 && v < 1.0)
        snprintf(buf, size, "%.4gms", v * 1e3);
    else
        snprintf(buf, size, "%.6g%s", v, unit);
}

/* The outcome's stated error in its unit: rel x |value| + abs (0 x inf counts as 0). */
static double stated_error(const ac_req_outcome *o)
{
    double e = o->rel_error > 0.0 ? o->rel_error * fabs(o->value) : 0.0;
    if (isnan(e))
        e = INFINITY; /* an unbounded relative error of 0 */
    return e + (o->abs_error > 0.0 ? o->abs_error : 0.0);
}

/* "12%", or "12% + 0.003" with an absolute part (in the value's unit). */
static void format_error(char *buf, size_t size, const ac_req_outcome *o)
{
    char ab[48];
    if (!(o->abs_error > 0.0)) {
        snprintf(buf, size, "%.2g%%", 100.0 * o->rel_error);
        return;
    }
    format_value(ab, sizeof ab, o->abs_error, o->unit);
    snprintf(buf, size, "%.2g%% + %s", 100.0 * o->rel_error, ab);
}

/* Does the outcome straddle its limit within the stated error? */
static int straddles(const ac_req_outcome *o)
{
    return (o->rel_error > 0.0 || o->abs_error > 0.0) && isfinite(o->value) &&
           fabs(o->value - o->limit) <= stated_error(o);
}

/*
 * The one place that decides whether an outcome has a value to judge: a family that set
 * `evaluated` on a value that is NaN (not computed: a law that does not exist, an
 * approximation that failed) gets it taken back, with the reason, so that nothing is ever
 * judged on a value that was not computed. +-infinity stays a value (unbounded: overload).
 */
static ac_req_outcome computed_outcome(const ac_req_outcome *o, int strict)
{
    ac_req_outcome v = *o;
    /* strict (verdicts): a value without a stated error cannot be judged either; the
       headroom's probes compare values only */
    if (v.evaluated && (isnan(v.value) || (strict && (isnan(v.rel_error) || isnan(v.abs_error))))) {
        v.evaluated = 0;
        v.pass = 0;
        if (v.note[0] == '\0')
            snprintf(v.note, sizeof v.note, "its value could not be computed");
    }
    if (!v.evaluated)
        v.pass = 0;
    return v;
}

/* Can the simulation settle this outcome (a metric it estimates)? */
static int sim_metric(const ac_req_outcome *o)
{
    return o->metric != AC_OUT_OTHER;
}

static void emit_finding(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *given)
{
    const ac_model *m = c->model;
    const ac_req_outcome checked = computed_outcome(given, 1), *o = &checked;
    const char *node_id = o->node != AC_NONE ? m->nodes[o->node].id : NULL;
    char where[80], val[48], lim[48], er[112];
    ac_check ck;
    int upper = r->kind != AC_REQ_THROUGHPUT && r->kind != AC_REQ_HEADROOM;
    int sim_decision = 0, has_decision = 0;

    if (o->node != AC_NONE && r->kind != AC_REQ_HEADROOM)
        snprintf(where, sizeof where, "of '%s'", node_id);
    else if (r->kind == AC_REQ_HEADROOM)
        snprintf(where, sizeof where, "of the workload");
    else
        snprintf(where, sizeof where, "end to end");
    format_value(val, sizeof val, o->value, o->unit);
    format_value(lim, sizeof lim, o->limit, o->unit);
    format_error(er, sizeof er, o);

    memset(&ck, 0, sizeof ck);
    snprintf(ck.name, sizeof ck.name, "%.63s %.79s", o->what, where);
    ck.has_value = o->evaluated;
    ck.value = o->value;
    ck.limit = o->limit;
    ck.upper = upper;
    ck.rel_error = o->rel_error;
    ck.abs_error = o->abs_error;
    ck.node = o->node;
    ck.loc = r->loc;
    snprintf(ck.unit, sizeof ck.unit, "%.7s", o->unit);

    {
        ac_sim_estimate se;
        if (o->has_sim) {
            ck.has_sim = 1;
            ck.sim_value = o->sim_value;
            ck.sim_ci95 = o->sim_ci95;
            ck.sim_level = 0.95;
            ck.sim_halfwidth = o->sim_ci95;
        } else if ((o->evaluated || sim_metric(o)) &&
                   ac_an_sim_lookup_in(c->a->sim, c->a, m, o->metric, o->percentile, o->node,
                                       &se) == 1) {
            /* the validating simulation: judged at the level of the sequential rule's look
               that stopped it (validate.c) */
            ck.has_sim = 1;
            ck.sim_value = se.mean;
            ck.sim_ci95 = se.ci95;
            ck.sim_level = c->a->sim_level > 0.0 ? c->a->sim_level : 0.95;
            sim_decision = ac_an_seq_decide_est(
                &se, c->a->sim, ac_an_seq_batch_time(c->a, c->a->sim), o->limit, upper,
                1.0 - ck.sim_level, c->a->sim->stopped_at_look > 0, &ck.sim_halfwidth);
            has_decision = 1;
        }
    }
    if (((o->evaluated && straddles(o)) || !o->evaluated) && ck.has_sim) {
        /* the simulation's interval decides where the approximation cannot (its error
           straddles the limit, or it has no value at all) */
        double lo = ck.sim_value - ck.sim_halfwidth, hi = ck.sim_value + ck.sim_halfwidth;
        int pass = has_decision ? sim_decision > 0 : upper ? hi <= o->limit : lo >= o->limit;
        int fail = has_decision ? sim_decision < 0 : upper ? lo > o->limit : hi < o->limit;
        char sv[48], sc[48], lv[48];
        format_value(sv, sizeof sv, ck.sim_value, o->unit);
        format_value(sc, sizeof sc, ck.sim_halfwidth, o->unit);
        snprintf(lv, sizeof lv, "%.3g%%", 100.0 * ck.sim_level);
        ck.settled_by_simulation = pass || fail;
        if (pass) {
            ck.status = AC_CHECK_PASS;
        } else if (fail) {
            ck.status = AC_CHECK_FAIL;
            snprintf(ck.rule, sizeof ck.rule, "%s", req_rule(r->kind));
            ac_an_finding(c, req_rule(r->kind), r->loc, node_id,
                          "requirement %s %s not met: the simulation gives %s +- %s (%s), "
                          "%s the %s %s",
                          o->what, where, sv, sc, lv, upper ? "above" : "below",
                          upper ? "maximum" : "minimum", lim);
        } else {
            ck.status = AC_CHECK_INCONCLUSIVE;
            snprintf(ck.rule, sizeof ck.rule, "AC900");
            if (o->evaluated)
                ac_an_finding(c, "AC900", r->loc, node_id,
                              "requirement %s %s is undecided: the approximation gives %s "
                              "(stated error %s) and the simulation %s +- %s (%s), both "
                              "straddling the limit %s",
                              o->what, where, val, er, sv, sc, lv, lim);
            else
                ac_an_finding(c, "AC900", r->loc, node_id,
                              "requirement %s %s is undecided: %s, and the simulation's %s +- "
                              "%s (%s) straddles the limit %s",
                              o->what, where, o->note, sv, sc, lv, lim);
        }
    } else if (!o->evaluated) {
        ck.sim_level = 0.0; /* the simulation, if any, did not judge it */
        ck.sim_halfwidth = 0.0;
        ck.status = AC_CHECK_INCONCLUSIVE;
        snprintf(ck.rule, sizeof ck.rule, "AC900");
        ac_an_finding(c, "AC900", r->loc, node_id, "requirement %s %s cannot be evaluated: %s%s%s",
                      o->what, where, o->note,
                      sim_metric(o) && c->a->sim_note[0] ? "; no simulation settles it: " : "",
                      sim_metric(o) ? c->a->sim_note : "");
    } else if (straddles(o)) {
        ck.sim_level = 0.0;
        ck.sim_halfwidth = 0.0;
        ck.status = AC_CHECK_INCONCLUSIVE;
        snprintf(ck.rule, sizeof ck.rule, "AC900");
        ac_an_finding(c, "AC900", r->loc, node_id,
                      "requirement %s %s is undecided: %s is within the approximation's stated "
                      "error (%s) of the limit %s%s%s",
                      o->what, where, val, er, lim,
                      c->a->sim_note[0] ? ", and no simulation settles it: " : "", c->a->sim_note);
    } else if (o->pass) {
        ck.sim_level = 0.0;
        ck.sim_halfwidth = 0.0;
        ck.status = AC_CHECK_PASS;
    } else {
        ck.sim_level = 0.0;
        ck.sim_halfwidth = 0.0;
        ck.status = AC_CHECK_FAIL;
        snprintf(ck.rule, sizeof ck.rule, "%s", req_rule(r->kind));
        if (r->kind == AC_REQ_HEADROOM && o->value < 1.0)
            ac_an_finding(c, req_rule(r->kind), r->loc, node_id,
                          "requirement headroom not met: there is no headroom, %s already "
                          "fails%s%s at the current workload (the workload must shrink to "
                          "%.4g%% of its rate, a factor of %s, for it to hold); the required "
                          "factor is %s",
                          c->a->headroom_binding, node_id != NULL ? " at " : "",
                          node_id != NULL ? node_id : "", 100.0 * o->value, val, lim);
        else if (r->kind == AC_REQ_HEADROOM)
            ac_an_finding(c, req_rule(r->kind), r->loc, node_id,
                          "requirement headroom not met: the workload can grow by a factor of "
                          "%s before %s fails%s%s, below the required %s",
                          val, c->a->headroom_binding, node_id != NULL ? " at " : "",
                          node_id != NULL ? node_id : "", lim);
        else
            ac_an_finding(c, req_rule(r->kind), r->loc, node_id,
                          "requirement %s %s not met: %s %s the %s %s", o->what, where, val,
                          upper ? "exceeds" : "is below", upper ? "maximum" : "minimum", lim);
    }
    ac_an_add_check(c, &ck);
}

static void dispatch(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    switch (r->kind) {
    case AC_REQ_LATENCY: ac_req_latency(c, r, emit); break;
    case AC_REQ_UTILIZATION: ac_req_utilization(c, r, emit); break;
    case AC_REQ_LOSS: ac_req_loss(c, r, emit); break;
    case AC_REQ_THROUGHPUT: ac_req_throughput(c, r, emit); break;
    case AC_REQ_HEADROOM: ac_req_headroom(c, r, emit); break;
    case AC_REQ_RESILIENCE:
        /* the search runs once, for the findings (req_resilience.c); the probes see it
           undecided, outside the simulation's metrics */
        if (emit == emit_finding)
            ac_req_resilience(c, r);
        else
            ac_req_deferred(c, r, emit);
        break;
    case AC_REQ_RECOVERY:
    case AC_REQ_SCALING: ac_req_deferred(c, r, emit); break;
    }
}

void ac_an_check_requirements(ac_an_ctx *c)
{
    for (size_t i = 0; i < c->model->nrequirements; i++)
        dispatch(c, &c->model->requirements[i], emit_finding);
}

static void emit_probe(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *given)
{
    const ac_req_outcome checked = computed_outcome(given, 0), *o = &checked;
    (void)r;
    if (!o->evaluated && sim_metric(o))
        c->probe_uncomputed = 1;
    if (c->probe_failed || !o->evaluated || o->pass)
        return;
    c->probe_failed = 1;
    snprintf(c->probe_binding, sizeof c->probe_binding, "%.63s", o->what);
    c->probe_node = o->node;
    c->probe_abs_share =
        o->abs_error > 0.0 && fabs(o->limit) > 0.0 ? o->abs_error / fabs(o->limit) : 0.0;
}

/* Would the simulation settle something: an outcome whose error straddles its limit, or one
 * of a simulated metric that has no value? */
static void emit_straddle(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *given)
{
    const ac_req_outcome checked = computed_outcome(given, 1), *o = &checked;
    (void)r;
    if ((o->evaluated && straddles(o)) || (!o->evaluated && sim_metric(o)))
        c->probe_failed = 1;
}

/* The sequential rule's look (validate.c): an outcome the simulation must settle that the
 * look's result (c->look_sim) does not settle at level 1 - c->look_alpha marks probe_failed.
 * Outcomes with a simulation of their own, or of a metric the simulation never estimates,
 * are not waited for. */
static void emit_settled(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *given)
{
    const ac_req_outcome checked = computed_outcome(given, 1), *o = &checked;
    int upper = r->kind != AC_REQ_THROUGHPUT && r->kind != AC_REQ_HEADROOM, found;
    ac_sim_estimate se;
    double half;
    if (!((o->evaluated && straddles(o)) || (!o->evaluated && sim_metric(o))) || o->has_sim)
        return;
    found =
        ac_an_sim_lookup_in(c->look_sim, c->a, c->model, o->metric, o->percentile, o->node, &se);
    if (found < 0)
        return;
    if (found == 0 ||
        ac_an_seq_decide_est(&se, c->look_sim, ac_an_seq_batch_time(c->a, c->look_sim), o->limit,
                             upper, c->look_alpha, 1, &half) == 0)
        c->probe_failed = 1;
}

int ac_an_requirements_settled(ac_an_ctx *c, const ac_sim_result *sim, double alpha)
{
    ac_an_ctx probe = *c;
    probe.findings = NULL;
    probe.probe_failed = 0;
    probe.look_sim = sim;
    probe.look_alpha = alpha;
    for (size_t i = 0; i < c->model->nrequirements; i++)
        dispatch(&probe, &c->model->requirements[i], emit_settled);
    return !probe.probe_failed;
}

int ac_an_requirements_straddle(ac_an_ctx *c)
{
    ac_an_ctx probe = *c;
    probe.findings = NULL;
    probe.probe_failed = 0;
    for (size_t i = 0; i < c->model->nrequirements; i++)
        dispatch(&probe, &c->model->requirements[i], emit_straddle);
    return probe.probe_failed;
}

int ac_an_requirements_hold(const ac_model *m, ac_analysis *a, char *binding, size_t size,
                            size_t *node)
{
    return ac_an_requirements_hold_abs(m, a, binding, size, node, NULL);
}

int ac_an_requirements_hold_abs(const ac_model *m, ac_analysis *a, char *binding, size_t size,
                                size_t *node, double *abs_share)
{
    ac_an_ctx c;
    memset(&c, 0, sizeof c);
    c.model = m;
    c.a = a;
    c.probe_node = AC_NONE;
    for (size_t i = 0; i < m->nnodes && !c.probe_failed; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        if ((m->nodes[i].kind == AC_NODE_POOL && !na->analysed && na->arrival_rate > 0.0) ||
            na->overload || (na->pool != NULL && na->pool->bistable)) {
            c.probe_failed = 1;
            snprintf(c.probe_binding, sizeof c.probe_binding, "stability");
            c.probe_node = i;
        }
    }
    for (size_t l = 0; l < m->nlinks && !c.probe_failed; l++) {
        const ac_link *lk = &m->links[l];
        if (!isinf(lk->capacity) && ac_an_link_flow(m, a, lk->from, lk->to) >= lk->capacity) {
            c.probe_failed = 1;
            snprintf(c.probe_binding, sizeof c.probe_binding, "stability");
            c.probe_node = lk->from;
        }
    }
    for (size_t i = 0; i < m->nrequirements && !c.probe_failed; i++) {
        const ac_requirement *r = &m->requirements[i];
        if (r->kind == AC_REQ_LATENCY || r->kind == AC_REQ_UTILIZATION || r->kind == AC_REQ_LOSS)
            dispatch(&c, r, emit_probe);
    }
    if (abs_share != NULL)
        *abs_share = c.probe_failed ? c.probe_abs_share : 0.0;
    if (c.probe_failed) {
        snprintf(binding, size, "%s", c.probe_binding);
        *node = c.probe_node;
        return 0;
    }
    return c.probe_uncomputed ? -1 : 1;
}
