/*
 * The accuracy harness, one model at a time (accuracy.h): the analysis, the simulation with
 * a horizon chosen from the analysis' own rates and relaxation times, and every KPI's
 * comparison.
 *
 * Three definitions differ between the analysis and the simulator's KPI of the same name,
 * and the harness compares like with like: a gateway's loss is its 429s (the simulator's
 * loss_probability, not failure_probability, which adds the 504s); a queue's utilisation is
 * per slot, min(max-consumers, concurrency) (the simulator's per max-consumers, rescaled);
 * and a sync function's throttle is compared only without retries (per request = per
 * attempt).
 *
 * The KPIs are the checks of the requirements the generator wrote (value and stated error
 * exactly as archcheck judges a requirement), matched to their requirement by the element's
 * location, plus per node the mean jobs, the cold-start and the throttle fractions. The
 * simulation's estimate of each is read as analysis/validate.c reads it (the same KPI
 * definitions), and its 95% half-width is widened by what the simulator cannot resolve:
 * 0.4% of a percentile (its histogram's bins), and 3 / trials for a probability (the rule
 * of three: no event in `trials` is consistent with a probability up to 3 / trials).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "tests/accuracy.h"

#define ACC_PCT_RESOLUTION 0.004 /* the simulator's histogram: 256 bins per octave */

void acc_options_init(acc_options *o)
{
    o->sim_seed = 1;
    o->replications = 10;
    o->events_per_rep = 60000.0;
    o->relax_factor = 60.0;
    o->max_events = 12000000ull;
}

static void logf_res(acc_results *res, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void logf_res(acc_results *res, const char *fmt, ...)
{
    char line[1536];
    size_t n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    n = strlen(line);
    if (res->log_len + n + 2 > res->log_cap) {
        size_t cap = res->log_cap > 0 ? res->log_cap : 4096;
        char *grown;
        while (res->log_len + n + 2 > cap)
            cap *= 2;
        grown = realloc(res->log, cap);
        if (grown == NULL)
            return;
        res->log = grown;
        res->log_cap = cap;
    }
    memcpy(res->log + res->log_len, line, n);
    res->log_len += n;
    res->log[res->log_len++] = '\n';
    res->log[res->log_len] = '\0';
}

void acc_results_clear(acc_results *res)
{
    free(res->kpis);
    free(res->log);
    memset(res, 0, sizeof *res);
}

static acc_kpi *kpi_push(acc_results *res)
{
    if (res->n == res->cap) {
        size_t cap = res->cap > 0 ? 2 * res->cap : 256;
        acc_kpi *grown = realloc(res->kpis, cap * sizeof *grown);
        if (grown == NULL)
            return NULL;
        res->kpis = grown;
        res->cap = cap;
    }
    memset(&res->kpis[res->n], 0, sizeof res->kpis[0]);
    return &res->kpis[res->n++];
}

/* What one model's comparison needs. */
typedef struct run_ctx {
    const acc_model *gm;
    const ac_model *m;
    const ac_analysis *a;
    const ac_sim_result *sim;
    double window; /* s, the measurement window of one replication */
    size_t misses;
    acc_results *res;
} run_ctx;

/* The kind label of a node: "pool:jsq", "function:async", ... */
static void kind_label(const run_ctx *c, size_t node, char *buf, size_t size)
{
    const ac_node *nd;
    if (node == AC_NONE) {
        snprintf(buf, size, "e2e:%s", acc_family_name(c->gm->family));
        return;
    }
    nd = &c->m->nodes[node];
    switch (nd->kind) {
    case AC_NODE_POOL:
        snprintf(buf, size, "pool:%s%s", ac_dispatch_name(nd->u.pool.dispatch),
                 nd->u.pool.dispatch == AC_DISPATCH_POWER_OF_D &&
                         nd->u.pool.sampling == AC_SAMPLING_WITH_REPLACEMENT
                     ? "-wr"
                     : "");
        break;
    case AC_NODE_FUNCTION:
        snprintf(buf, size, "function:%s",
                 c->a->nodes[node].polled                           ? "polled"
                 : nd->u.function.invocation == AC_INVOCATION_ASYNC ? "async"
                                                                    : "sync");
        break;
    case AC_NODE_QUEUE: snprintf(buf, size, "queue"); break;
    case AC_NODE_GATEWAY: snprintf(buf, size, "gateway"); break;
    }
}

/* The approximation group of a node's (or the end to end's) numbers. */
static void group_label(const run_ctx *c, size_t node, char *buf, size_t size)
{
    int closed = c->m->npopulations > 0;
    if (node == AC_NONE)
        snprintf(buf, size, closed ? "e2e-closed" : "e2e");
    else
        snprintf(buf, size, "%s%s", closed ? "mva-" : "",
                 ac_node_analysis_approximation(&c->a->nodes[node]));
}

typedef enum acc_which {
    W_MEAN = 0,
    W_P50,
    W_P95,
    W_P99,
    W_UTIL,
    W_LOSS,
    W_THR,
    W_JOBS,
    W_COLD,
    W_THROTTLE
} acc_which;

static const char *const which_names[] = {"mean", "p50", "p95",  "p99",  "util",
                                          "loss", "thr", "jobs", "cold", "throttle"};

/* The simulation's estimate of KPI `w` of `node` (AC_NONE: the single entry), as
 * validate.c reads it; *trials the number of trials behind a probability. 0 when the
 * simulation does not estimate it. */
static int sim_estimate(const run_ctx *c, size_t node, acc_which w, double *mean, double *ci,
                        double *trials)
{
    const ac_sim_estimate *e = NULL, *arr;
    double scale = 1.0;
    double reps = (double)c->sim->replications;
    if (node != AC_NONE) {
        const ac_sim_node_result *r = &c->sim->nodes[node];
        const ac_sim_estimate *pct[] = {&r->mean_response_time, &r->p50_response_time,
                                        &r->p95_response_time, &r->p99_response_time};
        arr = &r->arrival_rate;
        switch (w) {
        case W_MEAN:
        case W_P50:
        case W_P95:
        case W_P99: e = pct[w]; break;
        case W_UTIL:
            e = &r->utilization;
            /* a queue's: the simulator's is per max-consumers M, the analysis' per slot
               (min(M, the consumer's concurrency)) */
            if (c->m->nodes[node].kind == AC_NODE_QUEUE && c->a->nodes[node].queue != NULL &&
                c->a->nodes[node].queue->slots > 0)
                scale = (double)c->m->nodes[node].u.queue.max_consumers /
                        (double)c->a->nodes[node].queue->slots;
            break;
        case W_LOSS:
            /* a gateway's own loss is its 429s (analysis.h); its 504s are the end to end's
               (the simulator's failure_probability adds them) */
            e = c->m->nodes[node].kind == AC_NODE_GATEWAY ? &r->loss_probability
                                                          : &r->failure_probability;
            break;
        case W_JOBS: e = &r->mean_jobs; break;
        case W_COLD: e = &r->cold_start_fraction; break;
        case W_THROTTLE: e = &r->throttle_fraction; break;
        case W_THR:
            if (c->m->nodes[node].kind != AC_NODE_POOL) {
                e = &r->throughput;
                break;
            }
            /* first attempts that did not fail */
            if (r->failure_probability.n < 2)
                return 0;
            scale = (1.0 - r->failure_probability.mean) / (1.0 + r->retries_per_job.mean);
            e = &r->arrival_rate;
            break;
        }
    } else {
        const ac_sim_entry_result *r;
        if (c->sim->nentries != 1)
            return 0;
        r = &c->sim->entries[0];
        arr = &r->arrival_rate;
        switch (w) {
        case W_MEAN: e = &r->mean_response_time; break;
        case W_P50: e = &r->p50_response_time; break;
        case W_P95: e = &r->p95_response_time; break;
        case W_P99: e = &r->p99_response_time; break;
        case W_LOSS: e = &r->failure_probability; break;
        case W_THR:
            if (r->failure_probability.n < 2)
                return 0;
            scale = 1.0 - r->failure_probability.mean;
            e = &r->arrival_rate;
            break;
        default: return 0;
        }
    }
    if (e == NULL || e->n < 2 || !isfinite(e->mean) || !isfinite(e->ci95))
        return 0;
    *mean = e->mean * scale;
    *ci = e->ci95 * fabs(scale);
    *trials = arr->n > 0 && isfinite(arr->mean) ? arr->mean * c->window * reps : 0.0;
    return 1;
}

/* Compare one KPI and record it. */
static int compare(run_ctx *c, size_t node, acc_which w, double value, double stated,
                   double abs_err)
{
    acc_kpi *k;
    double s, ci, trials, width, allowed;
    if (!isfinite(value) || !isfinite(stated) || isnan(abs_err)) {
        c->res->unevaluated++;
        return AC_OK;
    }
    if (!sim_estimate(c, node, w, &s, &ci, &trials)) {
        c->res->unsimulated++;
        return AC_OK;
    }
    /* the floating-point floor: 3e-64 s against an exact 0 s is no error */
    width = ci + 1e-9 * fmax(fabs(value), fabs(s)) + 1e-12;
    if (w == W_P50 || w == W_P95 || w == W_P99)
        width += ACC_PCT_RESOLUTION * fabs(s);
    if (w == W_LOSS || w == W_COLD || w == W_THROTTLE)
        width = fmax(width, trials > 0.0 ? 3.0 / trials : 1.0);
    k = kpi_push(c->res);
    if (k == NULL)
        return AC_ENOMEM;
    k->seed = c->gm->seed;
    k->family = c->gm->family;
    snprintf(k->node, sizeof k->node, "%s", node == AC_NONE ? "e2e" : c->m->nodes[node].id);
    snprintf(k->kpi, sizeof k->kpi, "%s", which_names[w]);
    group_label(c, node, k->group, sizeof k->group);
    {
        char kind[40];
        kind_label(c, node, kind, sizeof kind);
        snprintf(k->cls, sizeof k->cls, "%s/%s/%s", k->group, kind, k->kpi);
    }
    k->value = value;
    k->stated = stated;
    k->abs = abs_err > 0.0 ? abs_err : 0.0;
    k->sim = s;
    k->ci = ci;
    k->width = width;
    k->rel = s != 0.0 ? fabs(value - s) / fabs(s) : value == 0.0 ? 0.0 : INFINITY;
    /* the rule archcheck judges a requirement by (analysis/requirements.c) */
    allowed = stated * fabs(value) + k->abs + width;
    k->miss = fabs(value - s) > allowed;
    c->misses += (size_t)k->miss;
    return AC_OK;
}

/* The requirement a check was made from (same element location), or NULL. */
static const ac_requirement *check_requirement(const ac_model *m, const ac_check *ck)
{
    for (size_t i = 0; i < m->nrequirements; i++)
        if (m->requirements[i].loc.line == ck->loc.line &&
            m->requirements[i].loc.column == ck->loc.column)
            return &m->requirements[i];
    return NULL;
}

static int compare_checks(run_ctx *c)
{
    for (size_t i = 0; i < c->a->nchecks; i++) {
        const ac_check *ck = &c->a->checks[i];
        const ac_requirement *r = check_requirement(c->m, ck);
        acc_which w;
        int rc;
        if (r == NULL)
            continue; /* a stability check */
        switch (r->kind) {
        case AC_REQ_LATENCY:
            w = r->percentile == 0.0    ? W_MEAN
                : r->percentile == 50.0 ? W_P50
                : r->percentile == 95.0 ? W_P95
                                        : W_P99;
            break;
        case AC_REQ_UTILIZATION: w = W_UTIL; break;
        case AC_REQ_LOSS: w = W_LOSS; break;
        case AC_REQ_THROUGHPUT: w = W_THR; break;
        default: continue;
        }
        if (!ck->has_value) {
            c->res->unevaluated++;
            continue;
        }
        rc = compare(c, ck->node, w, ck->value, ck->rel_error, ck->abs_error);
        if (rc != AC_OK)
            return rc;
    }
    return AC_OK;
}

/* The numbers a node states that no requirement reads: mean jobs, cold starts, throttles. */
static int compare_extras(run_ctx *c)
{
    for (size_t i = 0; i < c->m->nnodes; i++) {
        const ac_node_analysis *na = &c->a->nodes[i];
        const ac_node *nd = &c->m->nodes[i];
        int rc;
        if (!na->analysed || na->overload || !(na->arrival_rate > 0.0))
            continue;
        rc = compare(c, i, W_JOBS, na->mean_jobs, na->expected_rel_error, 0.0);
        if (rc == AC_OK && na->function != NULL && nd->u.function.cold_start > 0.0)
            rc = compare(c, i, W_COLD, na->function->cold_probability, na->function->cold_rel_error,
                         0.0);
        /* throttles per request (analysis) are throttles per attempt (simulation) only
           without retries: a throttled request's retries at once are throttled again */
        if (rc == AC_OK && na->function != NULL && !na->polled &&
            nd->u.function.invocation == AC_INVOCATION_SYNC && nd->u.function.retries == 0)
            rc = compare(c, i, W_THROTTLE, na->function->throttle_probability,
                         na->expected_rel_error, na->function->throttle_abs_error);
        if (rc != AC_OK)
            return rc;
    }
    return AC_OK;
}

/* Time scales of the model (s): the fastest-moving one's longest constant, the slowest
 * serverless delay, and the longest relaxation time the analysis found. */
typedef struct acc_scales {
    double fast, slow, relax;
    double event_rate; /* events per simulated second, roughly */
    double min_rate;   /* the least positive arrival rate of a node or the entry */
} acc_scales;

static void node_scales(const ac_node *nd, const ac_node_analysis *na, acc_scales *sc)
{
    switch (nd->kind) {
    case AC_NODE_POOL:
        sc->fast = fmax(sc->fast, 1.0 / nd->u.pool.service_rate);
        if (na->pool != NULL && na->pool->nequilibria > 0) {
            double t = na->pool->equilibria[na->pool->operating].relaxation_time;
            if (isfinite(t))
                sc->relax = fmax(sc->relax, t);
        }
        break;
    case AC_NODE_FUNCTION: {
        const ac_function *f = &nd->u.function;
        sc->fast = fmax(sc->fast, f->duration + f->cold_start);
        if (f->cold_start > 0.0 || f->provisioned > 0 || f->prewarm > 0)
            sc->slow = fmax(sc->slow, f->keep_alive);
        sc->slow = fmax(sc->slow, f->prewarm_interval);
        if (f->invocation == AC_INVOCATION_ASYNC && f->retries > 0)
            sc->slow = fmax(sc->slow, 60.0 + 120.0 * (double)(f->retries - 1));
        break;
    }
    case AC_NODE_QUEUE:
        sc->slow =
            fmax(sc->slow, nd->u.queue.visibility_timeout * (double)nd->u.queue.max_receives);
        break;
    case AC_NODE_GATEWAY:
        if (isfinite(nd->u.gateway.rate_limit))
            sc->fast = fmax(sc->fast, (double)(nd->u.gateway.burst > 0 ? nd->u.gateway.burst : 1) /
                                          nd->u.gateway.rate_limit);
        break;
    }
}

static acc_scales model_scales(const ac_model *m, const ac_analysis *a)
{
    acc_scales sc = {0.0, 0.0, 0.0, 0.0, INFINITY};
    for (size_t s = 0; s < m->nsources; s++) {
        sc.fast = fmax(sc.fast, 1.0 / m->sources[s].rate);
        sc.event_rate += m->sources[s].rate;
        sc.min_rate = fmin(sc.min_rate, m->sources[s].rate);
    }
    for (size_t p = 0; p < m->npopulations; p++) {
        sc.fast = fmax(sc.fast, m->populations[p].think_time);
        if (a->e2e.available && a->e2e.throughput > 0.0) {
            sc.event_rate += a->e2e.throughput;
            sc.min_rate = fmin(sc.min_rate, a->e2e.throughput);
        }
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        node_scales(&m->nodes[i], na, &sc);
        if (na->arrival_rate > 0.0) {
            sc.event_rate += 3.0 * na->arrival_rate;
            sc.min_rate = fmin(sc.min_rate, na->arrival_rate);
        }
    }
    for (size_t l = 0; l < m->nlinks; l++) {
        const ac_link *lk = &m->links[l];
        double flow = a->nodes[lk->from].throughput;
        if (!isinf(lk->capacity))
            sc.fast = fmax(sc.fast, 1.0 / lk->capacity);
        sc.fast = fmax(sc.fast, lk->latency);
        if (flow > 0.0)
            sc.event_rate += 3.0 * flow;
    }
    return sc;
}

/* Why the model has no steady state to compare, or NULL. */
static const char *no_steady_state(const ac_analysis *a)
{
    for (size_t i = 0; i < a->nnodes; i++) {
        if (a->nodes[i].overload)
            return "an overloaded node";
        if (a->nodes[i].pool != NULL && a->nodes[i].pool->bistable)
            return "a bistable pool (its finite-N operating point is metastable)";
    }
    if (a->e2e.unbounded)
        return "an overloaded link";
    return NULL;
}

/* The simulation's options for this model: a horizon of at least relax_factor relaxation
 * times, 300 of the slowest service-like constant, 10 serverless delays, 2000 arrivals at the
 * least visited node, and events_per_rep events; the replications that fit max_events
 * (at least 4, else the model is skipped: return 0). */
static int sim_options(const acc_options *o, const acc_scales *sc, ac_sim_options *so,
                       double *expected)
{
    double h = fmax(o->events_per_rep / fmax(sc->event_rate, 1e-9), o->relax_factor * sc->relax);
    double per_rep, reps;
    h = fmax(h, fmax(300.0 * sc->fast, 10.0 * sc->slow));
    if (isfinite(sc->min_rate) && sc->min_rate > 0.0)
        h = fmax(h, 2000.0 / sc->min_rate);
    per_rep = h * sc->event_rate;
    reps = fmin((double)o->replications, floor((double)o->max_events / per_rep));
    *expected = per_rep * (double)o->replications;
    if (reps < 4.0)
        return 0;
    ac_sim_options_init(so);
    so->seed = o->sim_seed;
    so->replications = (size_t)reps;
    so->horizon = h;
    so->warmup = h / 10.0;
    so->max_events = 3ull * o->max_events; /* a hard cap: a model far off its estimate */
    return 1;
}

/* Parse the generated model and apply its mitigation; NULL on failure (logged). */
static ac_model *parse_model(const acc_model *gm, acc_results *res)
{
    ac_model *m = NULL;
    ac_diag_list diags = {0};
    ac_error err = {0};
    char name[64], note[256];
    snprintf(name, sizeof name, "acc-%s-%lu.xml", acc_family_name(gm->family), gm->seed);
    if (ac_parser_parse_memory(gm->xml, strlen(gm->xml), name, &m, &diags, &err) != AC_OK) {
        for (size_t i = 0; i < diags.count; i++)
            logf_res(res, "error: %s seed %lu: parse: %u:%u: %s [%s]", acc_family_name(gm->family),
                     gm->seed, diags.items[i].line, diags.items[i].column, diags.items[i].message,
                     diags.items[i].rule);
        logf_res(res, "  model: %s", gm->desc);
        ac_diag_list_clear(&diags);
        res->errors++;
        return NULL;
    }
    ac_diag_list_clear(&diags);
    if (gm->mitigation && m->nmitigations > 0 &&
        ac_model_apply_mitigation(m, 0, note, sizeof note, &err) != AC_OK) {
        logf_res(res, "error: %s seed %lu: mitigation: %s", acc_family_name(gm->family), gm->seed,
                 err.message);
        res->errors++;
        ac_model_free(m);
        return NULL;
    }
    return m;
}

int acc_run_model(const acc_model *gm, const acc_options *opt, acc_results *res)
{
    ac_analysis_options ao;
    ac_analysis *a = NULL;
    ac_sim_result *sim = NULL;
    ac_diag_list findings = {0};
    ac_error err = {0};
    ac_sim_options so;
    acc_scales sc;
    const char *why;
    double expected = 0.0;
    int rc = AC_OK;
    const char *fam = acc_family_name(gm->family);
    ac_model *m = parse_model(gm, res);

    res->models++;
    if (m == NULL)
        return AC_OK;
    ac_analysis_options_init(&ao);
    ao.headroom = 0;
    ao.validate = AC_VALIDATE_NEVER;
    ao.transient = AC_TRANSIENT_NEVER;
    rc = ac_analysis_run(m, &ao, &a, &findings, &err);
    ac_diag_list_clear(&findings);
    if (rc != AC_OK) {
        logf_res(res, "error: %s seed %lu: analysis: %s\n  model: %s", fam, gm->seed, err.message,
                 gm->desc);
        res->errors++;
        rc = rc == AC_ENOMEM ? rc : AC_OK;
        goto cleanup;
    }
    if ((why = no_steady_state(a)) != NULL) {
        logf_res(res, "skipped: %s seed %lu: %s\n  model: %s", fam, gm->seed, why, gm->desc);
        res->skipped++;
        goto cleanup;
    }
    sc = model_scales(m, a);
    if (!sim_options(opt, &sc, &so, &expected)) {
        logf_res(res,
                 "skipped: %s seed %lu: the horizon needs %.3g events (budget %.3g; relaxation "
                 "%.3gs)\n  model: %s",
                 fam, gm->seed, expected, (double)opt->max_events, sc.relax, gm->desc);
        res->skipped++;
        goto cleanup;
    }
    rc = ac_sim_run(m, &so, &sim, &err);
    if (rc != AC_OK) {
        logf_res(res, "%s: %s seed %lu: simulation: %s\n  model: %s",
                 rc == AC_ELIMIT ? "skipped" : "error", fam, gm->seed, err.message, gm->desc);
        if (rc == AC_ELIMIT)
            res->skipped++;
        else
            res->errors++;
        rc = rc == AC_ENOMEM ? rc : AC_OK;
        goto cleanup;
    }
    res->events += sim->events;
    {
        run_ctx c = {gm, m, a, sim, so.horizon - so.warmup, 0, res};
        rc = compare_checks(&c);
        if (rc == AC_OK)
            rc = compare_extras(&c);
        if (c.misses > 0)
            logf_res(res, "model %s seed %lu (%zu misses): %s", fam, gm->seed, c.misses, gm->desc);
    }
cleanup:
    ac_sim_result_free(sim);
    ac_analysis_free(a);
    ac_model_free(m);
    return rc;
}
