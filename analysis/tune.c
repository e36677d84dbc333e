/*
 * Autoscaler tuning (include/archcheck/tune.h): the GA of search/ over the scalers' settings,
 * each candidate judged on the fluid transient (a workspace per job on its own clone of the
 * model, whose <autoscale> fields the evaluation sets: the workspace reads them at each
 * look), the cheapest feasible ones confirmed by the simulator with its autoscalers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/tune_internal.h"
#include "archcheck/search.h"

void ac_tune_options_init(ac_tune_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->budget = AC_TUNE_BUDGET;
    opt->population = 16;
    opt->patience = 8;
    opt->seed = 1;
    opt->jobs = 1;
    opt->target.lo = opt->target.hi = NAN;
    opt->cooldown.lo = opt->cooldown.hi = NAN;
    opt->interval.lo = opt->interval.hi = NAN;
    opt->min.lo = opt->min.hi = NAN;
    opt->max.lo = opt->max.hi = NAN;
    opt->confirm = 4;
    opt->replications = 10;
    opt->max_events = 50000000ull;
    opt->warmup = 60.0;
}

const char *ac_tune_confirm_text(ac_tune_confirm c)
{
    switch (c) {
    case AC_TUNE_FLUID: return "accepted on the fluid, not simulated: margins beyond their errors";
    case AC_TUNE_SIMULATED: return "confirmed by simulation";
    case AC_TUNE_UNCERTAIN: return "not confirmed; a margin within its stated error";
    default: return "none";
    }
}

const char *ac_tune_confirm_name(ac_tune_confirm c)
{
    switch (c) {
    case AC_TUNE_FLUID: return "fluid";
    case AC_TUNE_SIMULATED: return "simulation";
    case AC_TUNE_UNCERTAIN: return "uncertain";
    default: return "none";
    }
}

/* ------------------------------------------------------------------ the space */

/* The range of parameter p of pool k: the option's, or the documented default. */
static ac_tune_range default_range(const ac_tune_options *o, const ac_autoscale *as, int p)
{
    ac_tune_range r;
    switch (p) {
    case P_TARGET:
        r = o->target;
        if (isnan(r.lo)) {
            r.lo = 0.3;
            r.hi = 0.9;
        }
        break;
    case P_COOLDOWN:
        r = o->cooldown;
        if (isnan(r.lo)) {
            r.lo = 0.0;
            r.hi = 900.0;
        }
        break;
    case P_INTERVAL:
        r = o->interval;
        if (isnan(r.lo)) {
            r.lo = 5.0;
            r.hi = 60.0;
        }
        break;
    case P_MIN:
        r = o->min;
        if (isnan(r.lo)) {
            r.lo = 1.0;
            r.hi = (double)as->max;
        }
        break;
    default:
        r = o->max;
        if (isnan(r.lo)) {
            r.lo = (double)as->min;
            r.hi = 2.0 * (double)as->max;
        }
        break;
    }
    return r;
}

static int range_check(const ac_tune_range *r, int p, ac_error *err)
{
    static const char *const names[P_N] = {"target", "cooldown", "interval", "min", "max"};
    double lo_min = p == P_TARGET ? 1e-6 : p == P_COOLDOWN ? 0.0 : p == P_INTERVAL ? 1e-3 : 1.0;
    double hi_max = p == P_TARGET ? 1.0 : p == P_MIN || p == P_MAX ? 1e6 : 1e9;
    if (!(r->lo >= lo_min) || !(r->hi <= hi_max) || !(r->lo <= r->hi))
        return ac_error_set(err, AC_EINVAL,
                            "tune: the %s range %g..%g is not within %g..%g with LOW <= HIGH",
                            names[p], r->lo, r->hi, lo_min, hi_max);
    if ((p == P_MIN || p == P_MAX) && (r->lo != floor(r->lo) || r->hi != floor(r->hi)))
        return ac_error_set(err, AC_EINVAL, "tune: the %s range takes whole numbers", names[p]);
    return AC_OK;
}

/* The settings that `genes` decode to (fixed ranges: their LOW; counts: floor(lo + g (hi -
 * lo + 1)), at most hi; max raised to min). */
void ac_an_tune_decode(const tune_ctx *c, const double *genes, ac_tune_setting *out)
{
    double v[P_N];
    for (size_t k = 0; k < c->npools; k++) {
        for (int p = 0; p < P_N; p++)
            v[p] = c->range[k * P_N + (size_t)p].lo;
        for (size_t g = 0; g < c->ngenes; g++) {
            size_t k2 = c->gene_of[g] / P_N, p = c->gene_of[g] % P_N;
            const ac_tune_range *r = &c->range[c->gene_of[g]];
            double x = fmin(fmax(genes[g], 0.0), 1.0);
            if (k2 != k)
                continue;
            v[p] = p == P_MIN || p == P_MAX ? fmin(floor(r->lo + x * (r->hi - r->lo + 1.0)), r->hi)
                                            : r->lo + x * (r->hi - r->lo);
        }
        out[k].node = c->pool_node[k];
        out[k].target = v[P_TARGET];
        out[k].cooldown = v[P_COOLDOWN];
        out[k].interval = v[P_INTERVAL];
        out[k].min = (size_t)v[P_MIN];
        out[k].max = (size_t)fmax(v[P_MAX], v[P_MIN]);
    }
}

/* The genes of the settings as written (clamped into the ranges): the GA's warm start. */
static void encode_written(const tune_ctx *c, double *genes)
{
    for (size_t g = 0; g < c->ngenes; g++) {
        size_t k = c->gene_of[g] / P_N, p = c->gene_of[g] % P_N;
        const ac_autoscale *as = &c->model->nodes[c->pool_node[k]].u.pool.autoscale;
        const ac_tune_range *r = &c->range[c->gene_of[g]];
        double w = p == P_TARGET     ? as->target_utilization
                   : p == P_COOLDOWN ? as->cooldown
                   : p == P_INTERVAL ? as->interval
                   : p == P_MIN      ? (double)as->min
                                     : (double)as->max;
        if (p == P_MIN || p == P_MAX)
            genes[g] = (w - r->lo + 0.5) / (r->hi - r->lo + 1.0);
        else
            genes[g] = (w - r->lo) / (r->hi - r->lo);
        genes[g] = fmin(fmax(genes[g], 0.0), 1.0);
    }
}

static void written_settings(const tune_ctx *c, ac_tune_setting *out)
{
    for (size_t k = 0; k < c->npools; k++) {
        const ac_autoscale *as = &c->model->nodes[c->pool_node[k]].u.pool.autoscale;
        out[k].node = c->pool_node[k];
        out[k].target = as->target_utilization;
        out[k].cooldown = as->cooldown;
        out[k].interval = as->interval;
        out[k].min = as->min;
        out[k].max = as->max;
    }
}

static void apply(ac_model *m, const ac_tune_setting *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        ac_autoscale *as = &m->nodes[s[k].node].u.pool.autoscale;
        as->target_utilization = s[k].target;
        as->cooldown = s[k].cooldown;
        as->interval = s[k].interval;
        as->min = s[k].min;
        as->max = s[k].max;
    }
}

/* ------------------------------------------------------------------ the checks */

static void spec_add(tune_ctx *c, spec_kind kind, size_t req, size_t node, double pct)
{
    if (c->nspecs >= AC_TUNE_CHECKS_MAX)
        return;
    c->specs[c->nspecs].kind = kind;
    c->specs[c->nspecs].req = req;
    c->specs[c->nspecs].node = node;
    c->specs[c->nspecs].percentile = pct;
    c->nspecs++;
}

/* The checks of the model's requirements; the kinds tune does not judge into `skipped`. */
static void build_specs(tune_ctx *c, char *skipped, size_t size)
{
    const ac_model *m = c->model;
    skipped[0] = '\0';
    for (size_t q = 0; q < m->nrequirements; q++) {
        const ac_requirement *r = &m->requirements[q];
        size_t t = r->target;
        switch (r->kind) {
        case AC_REQ_LATENCY:
            spec_add(c, t == AC_NONE ? S_LAT_E2E : S_LAT_NODE, q, t, r->percentile);
            break;
        case AC_REQ_UTILIZATION:
            spec_add(c, t == AC_NONE ? S_UTIL_ALL : S_UTIL_NODE, q, t, 0);
            break;
        case AC_REQ_LOSS: spec_add(c, t == AC_NONE ? S_LOSS_E2E : S_LOSS_NODE, q, t, 0); break;
        case AC_REQ_SCALING:
            if (r->max_events != AC_UNBOUNDED)
                spec_add(c, S_ACTIONS, q, t, 0);
            if (!isinf(r->max_server_hours))
                spec_add(c, S_HOURS, q, t, 0);
            break;
        case AC_REQ_HEADROOM: spec_add(c, S_HEADROOM, q, t, 0); break;
        default: {
            size_t len = strlen(skipped);
            const char *name = ac_req_kind_name(r->kind);
            if (strstr(skipped, name) == NULL && len + strlen(name) + 3 < size)
                snprintf(skipped + len, size - len, "%s%s", len ? ", " : "", name);
            break;
        }
        }
    }
}

/* int_0^H f dt by trapezoids over the samples (f NULL: 0). */
double ac_an_tune_trapz(const ac_transient *tr, const double *f)
{
    double s = 0.0;
    if (f == NULL)
        return 0.0;
    for (size_t i = 0; i + 1 < tr->nsamples; i++)
        s += 0.5 * (f[i] + f[i + 1]) * (tr->t[i + 1] - tr->t[i]);
    return s;
}

/* The mean of the quasi-stationary response laws of a node or link (transient.h: T = a +
 * c0 B + W + S), mixed over the samples with `weight` (the jobs served) x the trapezoids' dt:
 * E T = a + p_c c0 + p_w / rate + smean (1 - exp(-cap / smean)). The fluid's own jobs (Little)
 * leave out the waiting of a pool below capacity, which the laws' Erlang C wait has. */
static double law_mean(const ac_transient *tr, const double *law, const double *weight)
{
    size_t ns = tr->nsamples;
    double num = 0.0, den = 0.0;
    if (law == NULL || weight == NULL)
        return NAN;
    for (size_t s = 0; s < ns; s++) {
        double dt =
            (s > 0 ? tr->t[s] - tr->t[s - 1] : 0.0) + (s + 1 < ns ? tr->t[s + 1] - tr->t[s] : 0.0);
        double w = fmax(weight[s], 0.0) * 0.5 * dt, m;
        double pw = law[AC_TRANSIENT_LAW_PWAIT * ns + s], g = law[AC_TRANSIENT_LAW_WRATE * ns + s];
        double sm = law[AC_TRANSIENT_LAW_SMEAN * ns + s], cap = law[AC_TRANSIENT_LAW_SCAP * ns + s];
        if (!(w > 0.0))
            continue;
        m = law[AC_TRANSIENT_LAW_SHIFT * ns + s] +
            law[AC_TRANSIENT_LAW_PCOLD * ns + s] * law[AC_TRANSIENT_LAW_COLD * ns + s];
        if (pw > 0.0)
            m += g > 0.0 ? pw / g : INFINITY;
        if (sm > 0.0)
            m += isinf(cap) ? sm : sm * (1.0 - exp(-cap / sm));
        num += w * m;
        den += w;
    }
    return den > 0.0 ? num / den : NAN;
}

/* A node's jobs-served weight (as ac_transient_node_quantile's). */
static const double *served(const ac_transient_node *n)
{
    return n->execution_rate != NULL ? n->execution_rate : n->throughput;
}

/* The busy over the serving server-seconds of a pool; the time mean for other kinds. */
static double util_of(const ac_transient *tr, size_t v)
{
    const ac_transient_node *n = &tr->nodes[v];
    double num = 0.0, den = 0.0;
    if (n->utilization == NULL)
        return NAN;
    if (n->servers == NULL)
        return ac_an_tune_trapz(tr, n->utilization) / tr->horizon;
    for (size_t i = 0; i + 1 < tr->nsamples; i++) {
        double dt = tr->t[i + 1] - tr->t[i];
        num += 0.5 *
               (n->servers[i] * n->utilization[i] + n->servers[i + 1] * n->utilization[i + 1]) * dt;
        den += 0.5 * (n->servers[i] + n->servers[i + 1]) * dt;
    }
    return den > 0.0 ? num / den : NAN;
}

static double max_of(const double *f, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; f != NULL && i < n; i++)
        m = fmax(m, f[i]);
    return m;
}

/* Headroom: min over the autoscaled pools of max mu u_lim / lambda_peak (the utilisation
 * limit of the pool from the file's requirements, else 1). */
static double headroom_of(const tune_ctx *c, const ac_model *m, const ac_transient *tr)
{
    double h = INFINITY;
    for (size_t k = 0; k < c->npools; k++) {
        size_t v = c->pool_node[k];
        const ac_pool *p = &m->nodes[v].u.pool;
        double ulim = 1.0, peak = max_of(tr->nodes[v].arrival_rate, tr->nsamples);
        for (size_t q = 0; q < m->nrequirements; q++)
            if (m->requirements[q].kind == AC_REQ_UTILIZATION &&
                (m->requirements[q].target == AC_NONE || m->requirements[q].target == v))
                ulim = fmin(ulim, m->requirements[q].max);
        if (peak > 0.0)
            h = fmin(h, (double)p->autoscale.max * p->service_rate * ulim / peak);
    }
    return h;
}

/* The fluid value of check spec k and its stated relative error. */
static double fluid_value(const tune_ctx *c, tune_job *j, const ac_transient *tr,
                          const check_spec *k, double *rel)
{
    double v = NAN, p = k->percentile / 100.0;
    ac_an_scaling sc;
    *rel = AC_TUNE_FLUID_ERROR;
    switch (k->kind) {
    case S_LAT_NODE: {
        const ac_transient_node *n = &tr->nodes[k->node];
        if (p > 0.0)
            (void)ac_transient_node_quantile(tr, k->node, p, NULL, &v);
        else
            v = law_mean(tr, n->law, served(n));
        return v;
    }
    case S_LAT_E2E:
        if (p > 0.0) {
            (void)ac_transient_e2e_quantile(tr, p, j->scratch, &v);
        } else if (tr->e2e_offered > 0.0) { /* sum over stages of visits x mean */
            v = 0.0;
            for (size_t i = 0; i < tr->nnodes; i++) {
                double w = ac_an_tune_trapz(tr, served(&tr->nodes[i]));
                if (w > 0.0)
                    v +=
                        w / tr->e2e_offered * law_mean(tr, tr->nodes[i].law, served(&tr->nodes[i]));
            }
            for (size_t l = 0; l < tr->nlinks; l++) {
                double w = ac_an_tune_trapz(tr, tr->links[l].throughput);
                if (w > 0.0)
                    v += w / tr->e2e_offered *
                         law_mean(tr, tr->links[l].law, tr->links[l].throughput);
            }
        }
        return v;
    case S_UTIL_NODE: return util_of(tr, k->node);
    case S_UTIL_ALL:
        v = 0.0;
        for (size_t i = 0; i < tr->nnodes; i++)
            if (tr->nodes[i].modelled && tr->nodes[i].offered > 0.0 && !isnan(util_of(tr, i)))
                v = fmax(v, util_of(tr, i));
        return v;
    case S_LOSS_NODE: {
        const ac_transient_node *n = &tr->nodes[k->node];
        *rel = AC_TUNE_FLUID_ERROR_LOSS;
        double a = ac_an_tune_trapz(tr, n->arrival_rate);
        return a > 0.0 ? ac_an_tune_trapz(tr, n->loss_rate) / a : 0.0;
    }
    case S_LOSS_E2E: *rel = AC_TUNE_FLUID_ERROR_LOSS; return tr->e2e_loss_fraction;
    case S_ACTIONS:
        ac_an_scaling_measure(j->m, tr, c->H, k->node, &sc);
        *rel = sc.actions_rel;
        return (double)sc.actions;
    case S_HOURS:
        ac_an_scaling_measure(j->m, tr, c->H, k->node, &sc);
        *rel = sc.hours_rel;
        return sc.hours;
    default: *rel = 0.0; return headroom_of(c, j->m, tr);
    }
}

/* The limit of spec k and whether it is an upper one. */
static double spec_limit(const ac_model *m, const check_spec *k, int *upper)
{
    const ac_requirement *r = &m->requirements[k->req];
    *upper = k->kind != S_HEADROOM;
    return k->kind == S_ACTIONS    ? (double)r->max_events
           : k->kind == S_HOURS    ? r->max_server_hours
           : k->kind == S_HEADROOM ? r->min
                                   : r->max;
}

static void spec_name(const ac_model *m, const check_spec *k, char *out, size_t size)
{
    const char *id = k->node != AC_NONE ? m->nodes[k->node].id : NULL;
    char pct[16];
    if (k->percentile > 0.0)
        snprintf(pct, sizeof pct, "p%g", k->percentile);
    else
        snprintf(pct, sizeof pct, "mean");
    switch (k->kind) {
    case S_LAT_NODE: snprintf(out, size, "latency %s of '%.20s'", pct, id); break;
    case S_LAT_E2E: snprintf(out, size, "latency %s end to end", pct); break;
    case S_UTIL_NODE: snprintf(out, size, "utilization of '%.20s'", id); break;
    case S_UTIL_ALL: snprintf(out, size, "utilization (largest)"); break;
    case S_LOSS_NODE: snprintf(out, size, "loss of '%.20s'", id); break;
    case S_LOSS_E2E: snprintf(out, size, "loss end to end"); break;
    case S_ACTIONS: snprintf(out, size, "scaling actions"); break;
    case S_HOURS: snprintf(out, size, "server-hours"); break;
    default: snprintf(out, size, "headroom (autoscaled max)"); break;
    }
}

static int check_pass(const ac_tune_check *ck)
{
    if (isnan(ck->value))
        return 0;
    return ck->upper ? ck->value <= ck->limit : ck->value >= ck->limit;
}

/* Fill ev's checks, cost and counts from the transient tr of job j's model. */
static void judge(const tune_ctx *c, tune_job *j, const ac_transient *tr, ac_tune_eval *ev)
{
    ac_an_scaling sc;
    double q = NAN;
    int have_q = 0;
    ev->nchecks = c->nspecs;
    ev->feasible = 1;
    for (size_t k = 0; k < c->nspecs; k++) {
        ac_tune_check *ck = &ev->checks[k];
        ck->requirement = c->specs[k].req;
        spec_name(c->model, &c->specs[k], ck->what, sizeof ck->what);
        ck->value = fluid_value(c, j, tr, &c->specs[k], &ck->rel_error);
        ck->ci95 = 0.0;
        ck->limit = spec_limit(c->model, &c->specs[k], &ck->upper);
        ck->pass = check_pass(ck);
        ev->feasible &= ck->pass;
        if (c->specs[k].kind == S_LAT_E2E && c->specs[k].percentile == 95.0) {
            q = ck->value; /* the same bound as below (fluid_value) */
            have_q = 1;
        }
    }
    ac_an_scaling_measure(j->m, tr, c->H, AC_NONE, &sc);
    ev->server_hours = sc.hours;
    ev->cost = sc.hours * 3600.0;
    ev->actions = sc.actions;
    ev->flaps = sc.flaps;
    if (!have_q)
        (void)ac_transient_e2e_quantile(tr, 0.95, j->scratch, &q);
    ev->e2e_p95 = q;
    ev->computed = 1;
}

/* The relative violation of a check (0 when met; 1000 at most, and for no value). */
static double violation(const ac_tune_check *ck)
{
    double d;
    if (isnan(ck->value))
        return 1e3;
    d = ck->upper ? ck->value - ck->limit : ck->limit - ck->value;
    return d <= 0.0 ? 0.0 : fmin(1e3, d / fmax(fabs(ck->limit), 1e-12));
}

/* The transient of `s` on job j into *ev. Returns 0, 1 when the transient failed (counted;
 * why in err), or a status. */
int ac_an_tune_evaluate(const tune_ctx *c, tune_job *j, const ac_tune_setting *s, ac_tune_eval *ev,
                        ac_error *err)
{
    const ac_transient *tr;
    int rc;
    apply(j->m, s, c->npools);
    if (ev->pools != s)
        memcpy(ev->pools, s, c->npools * sizeof *s);
    ev->computed = 0;
    ev->nchecks = ev->nsim = 0;
    rc = ac_transient_eval(j->ws, NULL, 1.0, &tr, err);
    j->tr = rc == AC_OK ? tr : NULL;
    if (rc == AC_ENUMERIC || rc == AC_ELIMIT) {
        j->failures++;
        return 1;
    }
    if (rc != AC_OK)
        return rc;
    judge(c, j, tr, ev);
    return AC_OK;
}

static int margins_clear(const ac_tune_eval *ev);

/* Robust mode: an unclear margin counts as a violation by what is missing of it. */
static double score_of(const tune_ctx *c, const ac_tune_eval *ev)
{
    double v = 0.0;
    if (!ev->computed)
        return -1e7;
    if (ev->feasible && (!c->robust || margins_clear(ev)))
        return -ev->cost / c->cost_ref;
    for (size_t k = 0; k < ev->nchecks; k++) {
        ac_tune_check ck = ev->checks[k];
        if (c->robust && !isnan(ck.value))
            ck.value *= ck.upper ? 1.0 + ck.rel_error : 1.0 - ck.rel_error;
        v += violation(&ck);
    }
    return -2.0 - v;
}

/* ------------------------------------------------------ the candidates kept */

/* a before b: the higher score, then the genes in order. */
static int cand_before(const double *ga, double sa, const double *gb, double sb, size_t n)
{
    if (sa != sb)
        return sa > sb;
    for (size_t i = 0; i < n; i++)
        if (ga[i] != gb[i])
            return ga[i] < gb[i];
    return 0;
}

static void top_insert(const tune_ctx *c, tune_job *j, const double *genes, double score)
{
    size_t pos = j->ntop;
    double *slot;
    for (size_t i = 0; i < j->ntop; i++) {
        if (memcmp(j->top[i].genes, genes, c->ngenes * sizeof *genes) == 0)
            return; /* seen */
        if (pos == j->ntop &&
            cand_before(genes, score, j->top[i].genes, j->top[i].score, c->ngenes))
            pos = i;
    }
    if (pos >= c->ntop_max)
        return;
    /* the last slot's genes are reused for the new one */
    slot = j->ntop < c->ntop_max ? j->genes_store + j->ntop * c->ngenes
                                 : j->top[c->ntop_max - 1].genes;
    if (j->ntop < c->ntop_max)
        j->ntop++;
    memmove(&j->top[pos + 1], &j->top[pos], (j->ntop - 1 - pos) * sizeof *j->top);
    memcpy(slot, genes, c->ngenes * sizeof *genes);
    j->top[pos].genes = slot;
    j->top[pos].score = score;
}

/* (actions, cost, genes) of a before b, lexicographically. */
static int few_before(size_t aa, double ca, const double *ga, size_t ab, double cb,
                      const double *gb, size_t n)
{
    if (aa != ab)
        return aa < ab;
    if (ca != cb)
        return ca < cb;
    for (size_t i = 0; i < n; i++)
        if (ga[i] != gb[i])
            return ga[i] < gb[i];
    return 0;
}

/* The secondary objective: keep a feasible setting of fewer scaling actions. */
static void few_offer(const tune_ctx *c, tune_job *j, const double *genes, const ac_tune_eval *ev)
{
    if (j->has_few && !few_before(ev->actions, ev->cost, genes, j->few_actions, j->few_cost,
                                  j->few_genes, c->ngenes))
        return;
    j->has_few = 1;
    j->few_actions = ev->actions;
    j->few_cost = ev->cost;
    memcpy(j->few_genes, genes, c->ngenes * sizeof *genes);
}

/* The fewest-actions setting over every job (the same for any --jobs: a total order) into
 * r->fewest (has_fewest). */
static void few_merge(const tune_ctx *c, ac_tune_result *r)
{
    const tune_job *b = NULL;
    for (size_t i = 0; i < c->njobs; i++) {
        const tune_job *j = &c->jobs[i];
        if (j->has_few &&
            (b == NULL || few_before(j->few_actions, j->few_cost, j->few_genes, b->few_actions,
                                     b->few_cost, b->few_genes, c->ngenes)))
            b = j;
    }
    if (b == NULL)
        return;
    r->has_fewest = 1;
    ac_an_tune_decode(c, b->few_genes, r->fewest.pools);
    r->fewest.actions = b->few_actions;
    r->fewest.cost = b->few_cost;
    r->fewest.server_hours = b->few_cost / 3600.0;
}

/* The GA's problem: score a candidate on job `job`'s workspace. */
static int problem_eval(void *ctx, size_t job, const double *genes, double *out, ac_error *err)
{
    tune_ctx *c = ctx;
    tune_job *j = &c->jobs[job];
    ac_error e2 = {0};
    int rc;
    ac_an_tune_decode(c, genes, j->ev.pools);
    rc = ac_an_tune_evaluate(c, j, j->ev.pools, &j->ev, &e2);
    if (rc < 0) {
        *err = e2;
        return rc;
    }
    *out = score_of(c, &j->ev);
    if (*out >= -1.0) {
        top_insert(c, j, genes, *out);
        few_offer(c, j, genes, &j->ev);
    }
    ac_an_tune_front_offer(c, j, genes, &j->ev);
    return AC_OK;
}

/* Every fluid margin outside its stated error? */
static int margins_clear(const ac_tune_eval *ev)
{
    for (size_t k = 0; k < ev->nchecks; k++) {
        const ac_tune_check *ck = &ev->checks[k];
        double m = ck->upper ? ck->limit - ck->value : ck->value - ck->limit;
        if (!ck->pass || !(m > ck->rel_error * fabs(ck->value)))
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ the run */

static void ctx_free(tune_ctx *c)
{
    for (size_t i = 0; c->jobs != NULL && i < c->njobs; i++) {
        ac_transient_ws_free(c->jobs[i].ws);
        ac_model_free(c->jobs[i].m);
        free(c->jobs[i].scratch);
        free(c->jobs[i].ev.pools);
        free(c->jobs[i].top);
        free(c->jobs[i].genes_store);
        free(c->jobs[i].front);
        free(c->jobs[i].front_genes);
        free(c->jobs[i].few_genes);
    }
    free(c->jobs);
    free(c->pool_node);
    free(c->range);
    free(c->gene_of);
}

/* The autoscaled pools, their ranges and the genes. */
static int ctx_space(tune_ctx *c, ac_error *err)
{
    const ac_model *m = c->model;
    for (size_t v = 0; v < m->nnodes; v++)
        c->npools += m->nodes[v].kind == AC_NODE_POOL && m->nodes[v].u.pool.has_autoscale;
    if (c->npools == 0)
        return ac_error_set(err, AC_EINVAL, "tune: the model has no autoscaled pool");
    c->H = ac_an_profile_horizon(m);
    if (m->nprofiles == 0 || !(c->H > 0.0))
        return ac_error_set(err, AC_EINVAL, "tune: the model has no <profile> to tune over");
    c->pool_node = calloc(c->npools, sizeof *c->pool_node);
    c->range = calloc(c->npools * P_N, sizeof *c->range);
    c->gene_of = calloc(c->npools * P_N, sizeof *c->gene_of);
    if (c->pool_node == NULL || c->range == NULL || c->gene_of == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune)");
    c->npools = 0;
    for (size_t v = 0; v < m->nnodes; v++) {
        const ac_pool *p = &m->nodes[v].u.pool;
        if (m->nodes[v].kind != AC_NODE_POOL || !p->has_autoscale)
            continue;
        for (int q = 0; q < P_N; q++) {
            ac_tune_range *r = &c->range[c->npools * P_N + (size_t)q];
            int rc;
            *r = default_range(c->opt, &p->autoscale, q);
            if ((rc = range_check(r, q, err)) != AC_OK)
                return rc;
            if (r->hi > r->lo)
                c->gene_of[c->ngenes++] = c->npools * P_N + (size_t)q;
            c->cost_ref += (q == P_MAX ? fmax(r->hi, (double)p->servers) : 0.0) * c->H;
        }
        c->pool_node[c->npools++] = v;
    }
    for (size_t v = 0; v < m->nnodes; v++)
        if (m->nodes[v].kind == AC_NODE_POOL && !m->nodes[v].u.pool.has_autoscale)
            c->cost_ref += (double)m->nodes[v].u.pool.servers * c->H;
    return AC_OK;
}

/* Job i: its clone (the scalers' widest bounds and shortest interval, for the workspace's
 * tables), its workspace, its scratch. */
static int job_new(tune_ctx *c, tune_job *j, ac_error *err)
{
    ac_transient_options to;
    int rc;
    if ((rc = ac_model_clone(c->model, &j->m, err)) != AC_OK)
        return rc;
    for (size_t k = 0; k < c->npools; k++) {
        ac_autoscale *as = &j->m->nodes[c->pool_node[k]].u.pool.autoscale;
        const ac_tune_range *r = &c->range[k * P_N];
        as->min = (size_t)fmin((double)as->min, r[P_MIN].lo);
        as->max = (size_t)fmax((double)as->max, r[P_MAX].hi);
        as->interval = fmin(as->interval, r[P_INTERVAL].lo);
    }
    ac_transient_options_init(&to);
    to.horizon = c->H;
    to.percentiles = 0; /* the checks' quantiles on demand (fluid_value, judge) */
    j->scratch = calloc(c->model->nnodes + c->model->nlinks + 1, sizeof *j->scratch);
    j->ev.pools = calloc(c->npools, sizeof *j->ev.pools);
    j->top = calloc(c->ntop_max, sizeof *j->top);
    j->genes_store = calloc(c->ntop_max * (c->ngenes + 1), sizeof *j->genes_store);
    j->front_cap = c->opt->budget < AC_TUNE_FRONT_STORE ? c->opt->budget : AC_TUNE_FRONT_STORE;
    j->front = calloc(j->front_cap, sizeof *j->front);
    j->front_genes = calloc(j->front_cap * (c->ngenes + 1), sizeof *j->front_genes);
    j->few_genes = calloc(c->ngenes + 1, sizeof *j->few_genes);
    if (j->scratch == NULL || j->ev.pools == NULL || j->top == NULL || j->genes_store == NULL ||
        j->front == NULL || j->front_genes == NULL || j->few_genes == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune)");
    for (size_t i = 0; i < j->front_cap; i++)
        j->front[i].genes = j->front_genes + i * (c->ngenes + 1);
    return ac_transient_new(j->m, &to, &j->ws, err);
}

static int eval_alloc(ac_tune_eval *ev, size_t npools)
{
    ev->pools = calloc(npools, sizeof *ev->pools);
    return ev->pools != NULL ? AC_OK : AC_ENOMEM;
}

/* The GA, stopped after `patience` generations without improvement or at the budget. */
static int search(tune_ctx *c, ac_tune_result *r, ac_error *err)
{
    ac_search_problem pb = {c->ngenes, problem_eval, c, NULL, 0.0};
    ac_search_options so;
    ac_search_ga *ga = NULL;
    double *warm = calloc(c->ngenes + 1, sizeof *warm), best = -INFINITY;
    size_t stale = 0;
    int rc, done = 0;
    if (warm == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune)");
    ac_search_options_init(&so);
    so.budget = c->opt->budget;
    so.population = c->opt->population;
    so.seed = c->opt->seed;
    so.jobs = c->njobs;
    rc = ac_search_ga_new(&pb, &so, &ga, err);
    if (rc == AC_OK) {
        encode_written(c, warm);
        rc = ac_search_ga_warm(ga, warm, 1, err);
    }
    while (rc == AC_OK && !done) {
        const double *g;
        double b;
        rc = ac_search_ga_step(ga, &done, err);
        r->generations++;
        b = ac_search_ga_best(ga, &g);
        stale = b > best ? 0 : stale + 1;
        best = fmax(best, b);
        if (stale >= c->opt->patience)
            break;
    }
    r->budget_exhausted = rc == AC_OK && done && stale < c->opt->patience;
    r->evaluations += ga != NULL ? ac_search_ga_evaluations(ga) : 0;
    ac_search_ga_free(ga);
    free(warm);
    return rc;
}

/* The kept candidates of every job, merged, best first (at most ntop_max). */
static size_t merge_tops(tune_ctx *c, cand *out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->njobs; i++)
        for (size_t t = 0; t < c->jobs[i].ntop; t++) {
            const cand *x = &c->jobs[i].top[t];
            size_t pos = n, dup = 0;
            for (size_t k = 0; k < n && !dup; k++)
                dup = memcmp(out[k].genes, x->genes, c->ngenes * sizeof *x->genes) == 0;
            for (size_t k = 0; k < n && !dup && pos == n; k++)
                if (cand_before(x->genes, x->score, out[k].genes, out[k].score, c->ngenes))
                    pos = k;
            if (dup || pos >= c->ntop_max)
                continue;
            if (n < c->ntop_max)
                n++;
            memmove(&out[pos + 1], &out[pos], (n - 1 - pos) * sizeof *out);
            out[pos] = *x;
        }
    return n;
}

static int same_settings(const ac_tune_setting *a, const ac_tune_setting *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (a[k].target != b[k].target || a[k].cooldown != b[k].cooldown ||
            a[k].interval != b[k].interval || a[k].min != b[k].min || a[k].max != b[k].max)
            return 0;
    return 1;
}

static void eval_copy(ac_tune_eval *dst, const ac_tune_eval *src, size_t npools)
{
    ac_tune_setting *keep = dst->pools;
    *dst = *src;
    dst->pools = keep;
    memcpy(keep, src->pools, npools * sizeof *keep);
}

/* The fallback when no candidate is confirmed by simulation: the first (cheapest) one left
 * undecided, marked FLUID (accepted on the fluid, as check accepts a value beyond its stated
 * error) when no simulation of it ran (none fits the event budget) and its every fluid margin
 * clears its stated error, else UNCERTAIN (a margin within its error, or a simulation whose
 * intervals straddle a limit: the simulator, the reference, did not settle it); why into
 * r->note. */
static void fallback_keep(tune_ctx *c, ac_tune_result *r, const ac_tune_eval *ev, const char *why,
                          ac_tune_confirm *kind)
{
    eval_copy(&r->best, ev, c->npools);
    *kind = ev->nsim == 0 && margins_clear(ev) ? AC_TUNE_FLUID : AC_TUNE_UNCERTAIN;
    snprintf(r->note, sizeof r->note, "not confirmed by simulation: %s", why);
}

/*
 * The cheapest kept candidates in turn, each simulated with its autoscalers (the counted
 * event budget of ac_an_tune_simulate): the first whose every 95% interval is on the right
 * side is the result (SIMULATED); one wholly on the wrong side is refused. When no
 * simulation confirms one, the cheapest left undecided is returned with the reason: FLUID
 * (not simulated, every margin clears its stated error: accepted on the fluid, as check
 * accepts a value beyond its stated error) or UNCERTAIN. In robust mode no simulation fits
 * the budget: the cheapest candidate with every margin clear is returned unsimulated (FLUID).
 */
static int confirm(tune_ctx *c, ac_tune_result *r, ac_error *err)
{
    cand *list = calloc(c->ntop_max, sizeof *list);
    ac_tune_setting *prev = calloc(c->npools * (c->ntop_max + 1), sizeof *prev);
    tune_job *j = &c->jobs[0];
    ac_tune_confirm fallback = AC_TUNE_NONE;
    size_t n, seen = 0;
    int rc = AC_OK;
    if (list == NULL || prev == NULL) {
        free(list);
        free(prev);
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune)");
    }
    n = merge_tops(c, list);
    for (size_t i = 0; i < n && rc == AC_OK && r->confirmed == AC_TUNE_NONE; i++) {
        char note[200] = "";
        int side = 0;
        ac_an_tune_decode(c, list[i].genes, j->ev.pools);
        for (size_t k = 0; k < seen; k++)
            if (same_settings(&prev[k * c->npools], j->ev.pools, c->npools))
                goto next;
        memcpy(&prev[seen++ * c->npools], j->ev.pools, c->npools * sizeof *prev);
        rc = ac_an_tune_evaluate(c, j, j->ev.pools, &j->ev, err);
        r->evaluations++;
        if (rc != AC_OK || !j->ev.feasible) {
            rc = rc > 0 ? AC_OK : rc;
            continue;
        }
        if (c->robust && margins_clear(&j->ev)) {
            snprintf(note, sizeof note,
                     "the simulation would need about %.3g events (budget %llu); every fluid "
                     "margin clears its stated error (measured against the simulator)",
                     ac_an_tune_sim_events(c, j->tr), c->opt->max_events);
            fallback_keep(c, r, &j->ev, note, &fallback);
            break;
        }
        rc = ac_an_tune_simulate(c, j, &j->ev, &side, note, sizeof note, err);
        r->simulations += j->ev.nsim > 0;
        if (side < 0) {
            r->refused++;
        } else if (side > 0) {
            eval_copy(&r->best, &j->ev, c->npools);
            r->confirmed = AC_TUNE_SIMULATED;
            r->note[0] = '\0';
        } else if (rc == AC_OK && fallback == AC_TUNE_NONE) {
            fallback_keep(c, r, &j->ev, note, &fallback);
        }
    next:;
    }
    if (rc == AC_OK && r->confirmed == AC_TUNE_NONE)
        r->confirmed = fallback;
    free(list);
    free(prev);
    return rc;
}

int ac_tune_run(const ac_model *model, const ac_tune_options *opt, ac_tune_result **out,
                ac_error *err)
{
    ac_tune_options defaults;
    tune_ctx c;
    ac_tune_result *r;
    static const double no_gene[1] = {0.0};
    int rc;
    *out = NULL;
    if (opt == NULL) {
        ac_tune_options_init(&defaults);
        opt = &defaults;
    }
    if (opt->budget < 1 || opt->budget > AC_SEARCH_BUDGET_MAX || opt->population < 2 ||
        opt->jobs < 1 || opt->jobs > AC_SEARCH_JOBS_MAX || opt->confirm < 1 ||
        opt->replications < 2 || !(opt->warmup >= 0.0) || opt->moments > AC_TUNE_MOMENTS_MAX)
        return ac_error_set(err, AC_EINVAL, "tune: invalid options");
    memset(&c, 0, sizeof c);
    c.model = model;
    c.opt = opt;
    c.njobs = opt->jobs;
    c.front_check = AC_NONE;
    c.ntop_max = opt->confirm;
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune)");
    rc = ctx_space(&c, err);
    if (rc == AC_OK) {
        build_specs(&c, r->not_judged, sizeof r->not_judged);
        r->horizon = c.H;
        r->npools = c.npools;
        r->budget = opt->budget;
        c.jobs = calloc(c.njobs, sizeof *c.jobs);
        if (c.jobs == NULL || eval_alloc(&r->written, c.npools) != AC_OK ||
            eval_alloc(&r->best, c.npools) != AC_OK || eval_alloc(&r->fewest, c.npools) != AC_OK)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (tune)");
    }
    for (size_t i = 0; rc == AC_OK && i < c.njobs; i++)
        rc = job_new(&c, &c.jobs[i], err);
    if (rc == AC_OK) { /* the settings as written */
        written_settings(&c, r->written.pools);
        rc = ac_an_tune_evaluate(&c, &c.jobs[0], r->written.pools, &r->written, err);
        r->evaluations++;
        if (rc == 1)
            rc = AC_ENUMERIC;
        if (rc == AC_OK)
            c.robust = ac_an_tune_sim_events(&c, c.jobs[0].tr) > (double)opt->max_events;
        r->robust = c.robust;
        c.front_check = r->front_check = ac_an_tune_front_pick(&c, &r->written);
    }
    if (rc == AC_OK && c.ngenes > 0)
        rc = search(&c, r, err);
    else if (rc == AC_OK) { /* every range fixed: its one setting */
        double score;
        rc = problem_eval(&c, 0, no_gene, &score, err);
        r->evaluations++;
    }
    if (rc == AC_OK)
        few_merge(&c, r);
    if (rc == AC_OK)
        rc = confirm(&c, r, err);
    if (rc == AC_OK)
        rc = ac_an_tune_front_merge(&c, r, err);
    if (rc == AC_OK && opt->moments > 0)
        rc = ac_an_tune_provision(&c, r, err);
    for (size_t i = 0; c.jobs != NULL && i < c.njobs; i++)
        r->failures += c.jobs[i].failures;
    if (rc == AC_OK && r->confirmed != AC_TUNE_NONE && r->written.cost > 0.0)
        r->saving = 1.0 - r->best.cost / r->written.cost;
    else
        r->saving = NAN;
    ctx_free(&c);
    if (rc != AC_OK) {
        ac_tune_result_free(r);
        return rc;
    }
    *out = r;
    return AC_OK;
}

void ac_tune_result_free(ac_tune_result *r)
{
    if (r == NULL)
        return;
    free(r->written.pools);
    free(r->best.pools);
    free(r->fewest.pools);
    ac_an_tune_front_free(r);
    free(r);
}
