/*
 * Requirements that need more than the steady state: headroom (evaluated from
 * the headroom search), recovery and scaling (from the fluid transient with its
 * autoscalers, transient.c), and resilience, which needs the worst-case search
 * (not in this version: inconclusive).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

void ac_req_headroom(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    ac_req_outcome o;
    memset(&o, 0, sizeof o);
    o.node = AC_NONE;
    o.limit = r->min;
    snprintf(o.what, sizeof o.what, "headroom");
    if (c->a->has_headroom) {
        o.value = c->a->headroom;
        o.node = c->a->headroom_node;
        o.evaluated = 1;
        o.pass = o.value >= o.limit;
        o.rel_error = c->a->headroom_rel_error;
    } else {
        snprintf(o.note, sizeof o.note, "the headroom could not be computed%s%.120s",
                 c->a->headroom_why[0] ? ": " : "", c->a->headroom_why);
    }
    emit(c, r, &o);
}

/*
 * Recovery (format.md <recovery max>): the time from the end of the profile's burst (when
 * the rate is back at its base after the peak) until the system is back within its
 * requirements for good: the last time, after the burst, at which a criterion is violated
 * (linear interpolation between samples). Criteria: every load-sensitive requirement that
 * holds in steady state (utilisation of a pool, a pool's loss, latency of a pool by Little
 * L / (mu q_1), end-to-end latency as sum_j v_j T_j(t) with the steady visit ratios; a
 * percentile is followed as the mean times its steady-state ratio percentile / mean, a
 * quasi-static approximation); without such requirements, every pool's mean jobs within 5%
 * of its fixed point at the base rates. A target narrows the criteria to that node.
 */
typedef struct rec_crit {
    size_t node;         /* AC_NONE: end to end */
    int kind;            /* 0 utilization, 1 loss, 2 latency, 3 mean jobs within 5% */
    double limit, ratio; /* ratio: percentile / mean (latency) */
    char what[64];
} rec_crit;

/* The criterion's value at sample s. */
static double crit_value(const ac_analysis *a, const rec_crit *k, size_t s)
{
    const ac_transient *tr = a->transient;
    if (k->node == AC_NONE) { /* end-to-end latency: sum_j v_j T_j(t) */
        double total = 0.0, sum = 0.0;
        for (size_t i = 0; i < a->model->nsources; i++)
            total += a->scale * a->model->sources[i].rate;
        for (size_t j = 0; j < tr->nnodes; j++)
            if (tr->nodes[j].modelled && a->nodes[j].arrival_rate > 0.0 && total > 0.0)
                sum += a->nodes[j].arrival_rate / total * tr->nodes[j].mean_response_time[s];
        return sum * k->ratio;
    }
    {
        const ac_transient_node *n = &tr->nodes[k->node];
        switch (k->kind) {
        case 0: return n->utilization[s];
        case 1: return n->arrival_rate[s] > 0.0 ? n->loss_rate[s] / n->arrival_rate[s] : 0.0;
        case 2: return n->mean_response_time[s] * k->ratio;
        default: return fabs(n->mean_jobs[s] - n->steady_mean_jobs);
        }
    }
}

/* Normalised violation of a criterion: > 0 when outside. */
static double crit_margin(const ac_analysis *a, const rec_crit *k, size_t s)
{
    double v = crit_value(a, k, s), lim = k->kind == 3 ? k->limit + 1e-12 : k->limit;
    return (v - lim) / (lim > 0.0 ? lim : 1.0);
}

static int crit_add(rec_crit *list, size_t *n, size_t cap, size_t node, int kind, double limit,
                    double ratio, const char *what)
{
    if (*n >= cap)
        return 0;
    list[*n].node = node;
    list[*n].kind = kind;
    list[*n].limit = limit;
    list[*n].ratio = ratio;
    snprintf(list[*n].what, sizeof list[*n].what, "%s", what);
    (*n)++;
    return 1;
}

/* The criteria of recovery for `target` (AC_NONE: all). Returns how many (at most cap). */
static size_t recovery_criteria(ac_an_ctx *c, size_t target, rec_crit *list, size_t cap)
{
    const ac_model *m = c->model;
    const ac_analysis *a = c->a;
    const ac_transient *tr = a->transient;
    size_t n = 0;
    char what[64];
    for (size_t q = 0; q < m->nrequirements; q++) {
        const ac_requirement *rq = &m->requirements[q];
        for (size_t i = 0; i < m->nnodes; i++) {
            const ac_node_analysis *na = &a->nodes[i];
            if (!tr->nodes[i].modelled || !na->analysed || na->overload)
                continue;
            if (target != AC_NONE && i != target)
                continue;
            if (rq->target != AC_NONE && rq->target != i)
                continue;
            if (rq->kind == AC_REQ_UTILIZATION && na->utilization <= rq->max) {
                snprintf(what, sizeof what, "utilization of '%s'", m->nodes[i].id);
                crit_add(list, &n, cap, i, 0, rq->max, 1.0, what);
            } else if (rq->kind == AC_REQ_LOSS && rq->target == i &&
                       na->loss_probability <= rq->max) {
                snprintf(what, sizeof what, "loss of '%s'", m->nodes[i].id);
                crit_add(list, &n, cap, i, 1, rq->max, 1.0, what);
            } else if (rq->kind == AC_REQ_LATENCY && rq->target == i &&
                       ac_node_analysis_has_law(na)) {
                double v = na->mean_response_time, ratio = 1.0;
                if (rq->percentile > 0.0) {
                    double pv = NAN;
                    ac_error e = {0};
                    if (rq->percentile == 50.0)
                        pv = na->p50;
                    else if (rq->percentile == 95.0)
                        pv = na->p95;
                    else if (rq->percentile == 99.0)
                        pv = na->p99;
                    else if (ac_node_analysis_quantile(na, rq->percentile / 100.0, &pv, &e) !=
                             AC_OK)
                        pv = NAN;
                    if (!(pv > 0.0) || !(v > 0.0))
                        continue;
                    ratio = pv / v;
                    v = pv;
                }
                if (v <= rq->max) {
                    snprintf(what, sizeof what, "latency %s of '%s'",
                             rq->percentile > 0.0 ? "percentile" : "mean", m->nodes[i].id);
                    crit_add(list, &n, cap, i, 2, rq->max, ratio, what);
                }
            }
        }
        if (rq->kind == AC_REQ_LATENCY && rq->target == AC_NONE && target == AC_NONE &&
            a->e2e.available && a->e2e.mean_response_time > 0.0) {
            /* followed as sum_j v_j T_j(t) scaled so that it equals the steady-state value
               (mean or percentile) at the steady state: with fan-out, parallel jobs are not
               a sum, so the scale comes from the steady state's own sum */
            double v = a->e2e.mean_response_time, steady = 0.0, total = 0.0, ratio;
            for (size_t s2 = 0; s2 < m->nsources; s2++)
                total += a->scale * m->sources[s2].rate;
            for (size_t j = 0; j < m->nnodes; j++)
                if (tr->nodes[j].modelled && a->nodes[j].arrival_rate > 0.0 && total > 0.0 &&
                    isfinite(a->nodes[j].mean_response_time))
                    steady += a->nodes[j].arrival_rate / total * a->nodes[j].mean_response_time;
            if (rq->percentile > 0.0) {
                double pv = rq->percentile == 50.0   ? a->e2e.p50
                            : rq->percentile == 95.0 ? a->e2e.p95
                            : rq->percentile == 99.0 ? a->e2e.p99
                                                     : NAN;
                if (!a->e2e.percentiles || !(pv > 0.0))
                    continue;
                v = pv;
            }
            if (!(steady > 0.0))
                continue;
            ratio = v / steady;
            if (v <= rq->max)
                crit_add(list, &n, cap, AC_NONE, 2, rq->max, ratio, "end-to-end latency");
        }
    }
    if (n > 0)
        return n;
    for (size_t i = 0; i < m->nnodes; i++) {
        double ref = tr->nodes[i].steady_mean_jobs;
        if (!tr->nodes[i].modelled || !isfinite(ref) || (target != AC_NONE && i != target))
            continue;
        snprintf(what, sizeof what, "mean jobs of '%s' within 5%% of its steady state",
                 m->nodes[i].id);
        /* 5%, and at least a thousandth of a job: a steady value of 0 (an idle function, a
           full token bucket) would otherwise never be reached through integration noise */
        crit_add(list, &n, cap, i, 3, fmax(0.05 * ref, 1e-3), 1.0, what);
    }
    return n;
}

static void recovery(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    const ac_analysis *a = c->a;
    const ac_transient *tr = a->transient;
    ac_req_outcome o;
    rec_crit *crit = NULL;
    size_t ncrit = 0, cap, first = AC_NONE, last_bad = AC_NONE, binding = 0;
    size_t before = c->findings != NULL ? c->findings->count : 0;
    double tend;

    memset(&o, 0, sizeof o);
    o.node = r->target;
    o.limit = r->max;
    snprintf(o.what, sizeof o.what, "recovery");
    snprintf(o.unit, sizeof o.unit, "s");
    if (tr == NULL) {
        snprintf(o.note, sizeof o.note, "%.150s",
                 a->transient_note[0] ? a->transient_note : "the transient was not computed");
        if (c->model->nprofiles == 0)
            snprintf(o.note, sizeof o.note,
                     "the model has no <profile>, so there is no burst to recover from");
        emit(c, r, &o);
        return;
    }
    if (!tr->has_burst) {
        snprintf(o.note, sizeof o.note,
                 "no profile has a burst above its base rate (its first point's) that returns "
                 "to the base rate");
        emit(c, r, &o);
        return;
    }
    tend = tr->burst_end;
    if (!(tend < tr->horizon)) {
        snprintf(o.note, sizeof o.note, "the burst ends at %gs, not before the horizon %gs", tend,
                 tr->horizon);
        emit(c, r, &o);
        return;
    }
    for (size_t i = 0; i < c->model->nnodes; i++) {
        /* a node that carries flow without a transient model would be read as recovered */
        if (tr->nodes[i].modelled || !(a->nodes[i].arrival_rate > 0.0) ||
            (r->target != AC_NONE && r->target != i))
            continue;
        snprintf(o.note, sizeof o.note,
                 "the transient model has no state for %s '%s', which carries %.4g jobs/s",
                 ac_node_kind_name(c->model->nodes[i].kind), c->model->nodes[i].id,
                 a->nodes[i].arrival_rate);
        emit(c, r, &o);
        return;
    }
    cap = 4 * (c->model->nnodes + 1) * (c->model->nrequirements + 1);
    crit = calloc(cap, sizeof *crit);
    if (crit == NULL) {
        c->oom = 1;
        return;
    }
    ncrit = recovery_criteria(c, r->target, crit, cap);
    if (ncrit == 0) {
        snprintf(o.note, sizeof o.note,
                 "no requirement that holds in steady state, and no pool with a steady state "
                 "at the base rate, to recover to");
        emit(c, r, &o);
        free(crit);
        return;
    }
    for (size_t s = 0; s < tr->nsamples; s++) {
        if (tr->t[s] < tend)
            continue;
        if (first == AC_NONE)
            first = s;
        for (size_t k = 0; k < ncrit; k++)
            if (crit_margin(a, &crit[k], s) > 0.0) {
                last_bad = s;
                binding = k;
                break;
            }
    }
    o.evaluated = 1;
    if (last_bad == AC_NONE) {
        o.value = 0.0;
    } else if (last_bad + 1 >= tr->nsamples) {
        double since = tr->horizon - tend;
        o.value = since;
        if (since < r->max) {
            o.evaluated = 0;
            snprintf(o.note, sizeof o.note,
                     "the system is not back within its requirements at the horizon %gs, "
                     "only %gs after the burst ended (extend the horizon)",
                     tr->horizon, since);
        }
    } else {
        /* the crossing of the binding criterion between last_bad and last_bad + 1 */
        double m0 = crit_margin(a, &crit[binding], last_bad);
        double m1 = crit_margin(a, &crit[binding], last_bad + 1);
        double t0 = tr->t[last_bad], t1 = tr->t[last_bad + 1];
        double tc = m0 > m1 ? t0 + (t1 - t0) * m0 / (m0 - m1) : t1;
        o.value = fmax(0.0, fmin(tc, t1) - tend);
    }
    if (o.evaluated) {
        double dt = tr->horizon / (double)(tr->nsamples - 1);
        o.pass = last_bad == AC_NONE || (last_bad + 1 < tr->nsamples && o.value <= o.limit);
        o.rel_error = o.value > 0.0 ? 0.5 * dt / o.value : 0.0; /* the sampling's resolution */
        if (o.rel_error > 0.0 && fabs(o.value - o.limit) > o.rel_error * o.value)
            o.rel_error = 0.0; /* clearly on one side: no straddle */
    }
    emit(c, r, &o);
    if (o.evaluated && !o.pass && c->findings != NULL && c->findings->count > before) {
        char detail[480];
        if (last_bad + 1 >= tr->nsamples)
            snprintf(detail, sizeof detail,
                     "the burst ends at %gs; at the horizon (%gs) the %s is still outside its "
                     "limit: the system does not recover within the horizon",
                     tend, tr->horizon, crit[binding].what);
        else
            snprintf(detail, sizeof detail,
                     "the burst ends at %gs; the %s is the last to come back, %gs later "
                     "(fluid transient, %s)",
                     tend, crit[binding].what, o.value, tr->method);
        if (ac_diag_set_detail(c->findings, detail) != AC_OK)
            c->oom = 1;
    }
    free(crit);
}

/*
 * Monotone runs of the profiles over [0, horizon): the maximal stretches on which a
 * profile's rate only rises or only falls (flat segments do not break a run). Repeats
 * unfolded up to the horizon.
 */
static size_t profile_runs(const ac_model *m, double horizon)
{
    size_t runs = 0;
    for (size_t q = 0; q < m->nprofiles; q++) {
        const ac_profile *p = &m->profiles[q];
        double period = p->points[p->npoints - 1].at;
        size_t reps = p->repeat && period > 0.0 ? (size_t)fmin(ceil(horizon / period), 1e6) : 1;
        int last = 0;
        for (size_t r = 0; r < reps; r++)
            for (size_t k = 1; k < p->npoints; k++) {
                double d = p->points[k].rate - p->points[k - 1].rate;
                int sg = d > 0.0 ? 1 : d < 0.0 ? -1 : 0;
                if ((double)r * period + p->points[k - 1].at >= horizon)
                    break;
                if (sg != 0 && sg != last) {
                    runs++;
                    last = sg;
                }
            }
    }
    return runs;
}

/* The profiles' horizon: the largest last point (one period of a repeated profile). */
double ac_an_profile_horizon(const ac_model *m)
{
    double h = 0.0;
    for (size_t q = 0; q < m->nprofiles; q++)
        h = fmax(h, m->profiles[q].points[m->profiles[q].npoints - 1].at);
    return h;
}

/* The cooldown-window noise of pool node n over [0, H): sum_s N sd zmax dt (server-s). */
static double scaler_noise(const ac_transient *tr, const ac_transient_node *n, const ac_pool *pool,
                           double H)
{
    double dt = tr->horizon / (double)(tr->nsamples - 1), noise = 0.0;
    double W = floor(pool->autoscale.cooldown / pool->autoscale.interval) + 1.0;
    double zmax = W > 1.0 ? sqrt(2.0 * log(W)) : 0.0;
    for (size_t s = 0; s + 1 < tr->nsamples && tr->t[s] < H; s++) {
        double B = fmax(1.0, n->servers[s] * n->utilization[s]);
        double sd = fmin(1.0, sqrt(2.0 / (B * pool->service_rate * pool->autoscale.interval)));
        noise += n->servers[s] * sd * zmax * fmin(dt, H - tr->t[s]);
    }
    return noise;
}

/*
 * The scaling of the pools in scope (target: one node, AC_NONE: all) over [0, H) of the fluid
 * transient `tr` (analysis/internal.h). One definition with the simulator (sim.h): a scaling
 * action is a change of a pool's serving count (a target change that only cancels pending
 * orders is none), a flap an action opposite to the pool's previous one within one cooldown.
 * Stated errors: see scaling() below.
 */
void ac_an_scaling_measure(const ac_model *m, const ac_transient *tr, double H, size_t target,
                           ac_an_scaling *out)
{
    double phase = 0.0, noise = 0.0;
    memset(out, 0, sizeof *out);
    out->nmin = AC_UNBOUNDED;
    for (size_t i = 0; i < tr->nnodes; i++) {
        const ac_transient_node *n = &tr->nodes[i];
        const ac_pool *pool;
        if (!n->modelled || (target != AC_NONE && target != i))
            continue;
        out->hours += ac_transient_server_hours_until(n, H);
        if (!n->autoscaled)
            continue;
        pool = &m->nodes[i].u.pool;
        out->nscaled++;
        out->nmin = n->start_servers < out->nmin ? n->start_servers : out->nmin;
        out->nmax = n->start_servers > out->nmax ? n->start_servers : out->nmax;
        for (size_t k = 0; k < n->nchanges && n->change_t[k] < H; k++) {
            size_t prev = k > 0 ? n->change_servers[k - 1] : n->start_servers;
            size_t now = n->change_servers[k];
            out->actions++;
            if (k > 0) {
                size_t pp = k > 1 ? n->change_servers[k - 2] : n->start_servers;
                if ((prev > pp) != (now > prev) &&
                    n->change_t[k] - n->change_t[k - 1] <=
                        pool->autoscale.cooldown + 1e-9 * fmax(1.0, n->change_t[k]))
                    out->flaps++;
            }
            phase += (double)(now > prev ? now - prev : prev - now) * pool->autoscale.interval;
            out->nmin = now < out->nmin ? now : out->nmin;
            out->nmax = now > out->nmax ? now : out->nmax;
        }
        noise += scaler_noise(tr, n, pool, H);
    }
    if (out->actions > 0)
        out->actions_rel = (double)((profile_runs(m, H) + 1) * out->nscaled) / (double)out->actions;
    if (out->hours > 0.0)
        out->hours_rel = (phase / 3600.0 + noise / 3600.0) / out->hours;
}

/* Does the outcome's stated error straddle its limit? */
static int scaling_straddles(const ac_req_outcome *o)
{
    return isfinite(o->limit) && o->rel_error > 0.0 &&
           fabs(o->value - o->limit) <= o->rel_error * fabs(o->value);
}

/*
 * Settle straddling scaling outcomes by simulation with the autoscalers running
 * (ac_sim_options.autoscale): a warm-up of max(60 s, 10 intervals) at the rates of t = 0,
 * then the profile over H, 10 replications, within the analysis' event budget (skipped
 * when the jobs over the horizon alone would exceed it). The simulator's scaling actions
 * (serving-count changes in the window) and server-hours (autoscaled pools: the integral of
 * the serving count; the others: servers x H) with their 95% half-widths go into the
 * outcomes, which requirements.c judges like every simulated check. Flaps (an action
 * opposite to the previous one within one cooldown) at 2 or more per replication on a pool
 * are AC208 warnings.
 */
static void scaling_simulate(ac_an_ctx *c, const ac_requirement *r, double H, ac_req_outcome *ev,
                             ac_req_outcome *hr)
{
    const ac_model *m = c->model;
    ac_sim_options so = c->opt->sim;
    ac_sim_result *res = NULL;
    ac_error err = {0};
    double warm = 60.0, jobs = 0.0, act = 0.0, act_v = 0.0, hrs = 0.0, hrs_v = 0.0;
    for (size_t i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].kind == AC_NODE_POOL && m->nodes[i].u.pool.has_autoscale)
            warm = fmax(warm, 10.0 * m->nodes[i].u.pool.autoscale.interval);
        jobs += c->a->nodes[i].arrival_rate;
    }
    so.replications = 10;
    so.warmup = warm;
    so.horizon = warm + H;
    so.profile_offset = warm;
    so.use_profiles = 1;
    so.autoscale = 1;
    if (so.max_events > 0 && 2.0 * jobs * (warm + H) * 10.0 > (double)so.max_events)
        return; /* the peak rate bounds the events: cannot fit */
    if (ac_sim_run(m, &so, &res, &err) != AC_OK) {
        if (err.code == AC_ENOMEM)
            c->oom = 1;
        return;
    }
    for (size_t i = 0; i < res->nnodes; i++) {
        const ac_sim_node_result *n = &res->nodes[i];
        if (m->nodes[i].kind != AC_NODE_POOL || (r->target != AC_NONE && r->target != i))
            continue;
        if (n->scaling_actions.n > 0) {
            act += n->scaling_actions.mean;
            act_v += n->scaling_actions.ci95 * n->scaling_actions.ci95;
            hrs += n->server_seconds.mean / 3600.0;
            hrs_v += pow(n->server_seconds.ci95 / 3600.0, 2);
            if (n->scaling_flaps.mean >= 2.0)
                ac_an_finding(c, "AC208", m->nodes[i].u.pool.autoscale.loc, m->nodes[i].id,
                              "the autoscaler of '%s' flaps: %.3g +- %.2g scale-ups and "
                              "scale-downs reversed within one cooldown (%gs) over the profile "
                              "(simulation)",
                              m->nodes[i].id, n->scaling_flaps.mean, n->scaling_flaps.ci95,
                              m->nodes[i].u.pool.autoscale.cooldown);
        } else {
            hrs += (double)m->nodes[i].u.pool.servers * H / 3600.0;
        }
    }
    ev->has_sim = hr->has_sim = 1;
    ev->sim_value = act;
    ev->sim_ci95 = sqrt(act_v);
    hr->sim_value = hrs;
    hr->sim_ci95 = sqrt(hrs_v);
    ac_sim_result_free(res);
}

/*
 * Scaling (format.md <scaling max-events max-server-hours>): over the profile's horizon H
 * (its last point; one period of a repeated profile) the scaling actions (changes of the
 * autoscaled pools' serving counts: the simulator's definition, ac_an_scaling_measure) and
 * the server-hours int_0^H N dt / 3600 of every pool in scope (all pools, autoscaled or not:
 * server time is the cost; `target` narrows to one), from the fluid transient with its
 * scalers (transient.h). Two outcomes, one per limit (one undecided "scaling" outcome when
 * they cannot be evaluated).
 *
 * Stated errors (the fluid model is deterministic; a real scaler is not):
 *  - actions: +-1 per monotone run of the load and per autoscaled pool, +1 for the start.
 *    On a run the scaler acts each time the load has moved by the tolerance since the last
 *    action (the count is about ln(ratio of the run) / ln(1 +- tolerance)); where the look
 *    grid falls (its phase against the profile) moves the first and last of them by up to
 *    one interval, which can add or drop one at each end.
 *  - server-hours: the phase of the looks (each change of N by up to one interval: sum |dN|
 *    interval) plus the noise the fluid leaves out, which biases the cooldown upwards (it
 *    keeps the highest recommendation of W = cooldown / interval + 1 looks): with a
 *    utilisation metric averaged over one interval I, the busy count B of an M/M/inf-like
 *    pool gives a recommendation with relative standard deviation sqrt(2 / (B mu I)), and the
 *    maximum of W of them is higher by about sqrt(2 ln W) of those: that share of N,
 *    averaged over the horizon with weight N.
 */
static void scaling(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    const ac_model *m = c->model;
    const ac_analysis *a = c->a;
    const ac_transient *tr = a->transient;
    ac_req_outcome ev, hr;
    ac_an_scaling sc;
    double H = ac_an_profile_horizon(m);
    size_t before = c->findings != NULL ? c->findings->count : 0;

    memset(&ev, 0, sizeof ev);
    ev.node = r->target;
    ev.limit = r->max_events == AC_UNBOUNDED ? INFINITY : (double)r->max_events;
    snprintf(ev.what, sizeof ev.what, "scaling events");
    hr = ev;
    hr.limit = r->max_server_hours;
    snprintf(hr.what, sizeof hr.what, "server-hours");
    snprintf(hr.unit, sizeof hr.unit, "h");

    if (r->target != AC_NONE && m->nodes[r->target].kind != AC_NODE_POOL) {
        snprintf(ev.note, sizeof ev.note, "'%.60s' is not a pool: only pools have servers",
                 m->nodes[r->target].id);
    } else if (m->nprofiles == 0) {
        /* the steady state decides the count: report it */
        size_t first = AC_NONE;
        for (size_t i = 0; i < m->nnodes && first == AC_NONE; i++)
            if (m->nodes[i].kind == AC_NODE_POOL && m->nodes[i].u.pool.has_autoscale &&
                (r->target == AC_NONE || r->target == i))
                first = i;
        if (first != AC_NONE)
            snprintf(
                ev.note, sizeof ev.note,
                "the model has no <profile> to count over; in steady state at the source "
                "rates the autoscaler holds '%.40s' at %zu servers",
                m->nodes[first].id,
                ac_solver_autoscale_steady(&m->nodes[first].u.pool, a->nodes[first].arrival_rate));
        else
            snprintf(ev.note, sizeof ev.note,
                     "the model has no <profile>: scaling is counted over a profile's horizon");
    } else if (tr == NULL) {
        snprintf(ev.note, sizeof ev.note, "%.150s",
                 a->transient_note[0] ? a->transient_note : "the transient was not computed");
    } else if (tr->horizon < H * (1.0 - 1e-12)) {
        snprintf(ev.note, sizeof ev.note,
                 "the transient's horizon %gs is shorter than the profile's %gs", tr->horizon, H);
    } else {
        ev.evaluated = 1;
    }
    if (!ev.evaluated) { /* one undecided outcome for the requirement */
        snprintf(ev.what, sizeof ev.what, "scaling");
        emit(c, r, &ev);
        return;
    }

    ac_an_scaling_measure(m, tr, H, r->target, &sc);
    ev.value = (double)sc.actions;
    ev.pass = ev.value <= ev.limit;
    ev.rel_error = sc.actions_rel;
    hr.value = sc.hours;
    hr.evaluated = 1;
    hr.pass = hr.value <= hr.limit;
    hr.rel_error = sc.hours_rel;
    if (c->findings != NULL && c->opt->validate != AC_VALIDATE_NEVER &&
        ((r->max_events != AC_UNBOUNDED && scaling_straddles(&ev)) ||
         (!isinf(r->max_server_hours) && scaling_straddles(&hr))))
        scaling_simulate(c, r, H, &ev, &hr);
    if (c->findings != NULL && sc.flaps >= 2) {
        for (size_t i = 0; i < m->nnodes; i++)
            if (m->nodes[i].kind == AC_NODE_POOL && m->nodes[i].u.pool.has_autoscale &&
                (r->target == AC_NONE || r->target == i)) {
                ac_an_finding(c, "AC208", m->nodes[i].u.pool.autoscale.loc, m->nodes[i].id,
                              "the autoscalers flap in the fluid transient: %zu scaling actions "
                              "reversed within one cooldown over the profile",
                              sc.flaps);
                break;
            }
    }
    if (r->max_events != AC_UNBOUNDED)
        emit(c, r, &ev);
    if (!isinf(r->max_server_hours))
        emit(c, r, &hr);
    if (c->findings != NULL && c->findings->count > before && (!ev.pass || !hr.pass)) {
        char detail[480];
        if (sc.nscaled > 0)
            snprintf(detail, sizeof detail,
                     "over the profile's %gs (fluid transient with its autoscalers, %s): %zu "
                     "scaling actions (serving-count changes), %.6g server-hours; autoscaled "
                     "servers between %zu and %zu",
                     H, tr->method, sc.actions, sc.hours, sc.nmin, sc.nmax);
        else
            snprintf(detail, sizeof detail,
                     "over the profile's %gs: no autoscaled pool in scope, %.6g server-hours at "
                     "fixed counts",
                     H, sc.hours);
        if (ac_diag_set_detail(c->findings, detail) != AC_OK)
            c->oom = 1;
    }
}

void ac_req_deferred(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    ac_req_outcome o;
    if (r->kind == AC_REQ_RECOVERY) {
        recovery(c, r, emit);
        return;
    }
    if (r->kind == AC_REQ_SCALING) {
        scaling(c, r, emit);
        return;
    }
    memset(&o, 0, sizeof o);
    o.node = r->target;
    snprintf(o.what, sizeof o.what, "%s", ac_req_kind_name(r->kind));
    snprintf(o.note, sizeof o.note,
             "%s requirements need the worst-case fault search, which archcheck %s does not "
             "have yet",
             ac_req_kind_name(r->kind), AC_VERSION);
    emit(c, r, &o);
}
