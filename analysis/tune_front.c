/*
 * Autoscaler tuning, what the search saw (analysis/tune_internal.h): the cost-vs-SLA front
 * (the settings meeting every requirement but the binding latency one, non-dominated in
 * server-seconds and that latency) and the over-provisioning of the settings against the
 * right-sized count at each moment of the profile (ac_size_run at the rates of the moment).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/tune_internal.h"
#include "archcheck/size.h"

size_t ac_an_tune_front_pick(const tune_ctx *c, const ac_tune_eval *ev)
{
    size_t best = AC_NONE;
    double least = INFINITY;
    for (size_t k = 0; k < ev->nchecks && k < c->nspecs; k++) {
        const ac_tune_check *ck = &ev->checks[k];
        double margin;
        if (c->specs[k].kind != S_LAT_NODE && c->specs[k].kind != S_LAT_E2E)
            continue;
        if (!isfinite(ck->value) || !(ck->limit > 0.0))
            continue;
        margin = (ck->limit - ck->value) / ck->limit;
        if (margin < least) {
            least = margin;
            best = k;
        }
    }
    return best;
}

/* Genes a before b (lexicographic). */
static int genes_before(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Insert (cost, value, actions, genes) into the front f of *n points (capacity max): a point
 * no other dominates, ties in both broken by the smaller genes. */
static int front_insert(tune_fpoint *f, size_t *n, size_t max, size_t ngenes, double cost,
                        double value, size_t actions, const double *genes)
{
    size_t w = 0;
    for (size_t i = 0; i < *n; i++) {
        const tune_fpoint *e = &f[i];
        if (e->cost <= cost && e->value <= value) {
            if (e->cost == cost && e->value == value && genes_before(genes, e->genes, ngenes))
                break; /* replaced below */
            return 0;
        }
    }
    for (size_t i = 0; i < *n; i++) { /* drop the points the new one dominates (or ties) */
        tune_fpoint *e = &f[i];
        if (cost <= e->cost && value <= e->value)
            continue;
        if (w != i) {
            double *g = f[w].genes;
            f[w] = *e;
            e->genes = g;
        }
        w++;
    }
    *n = w;
    if (*n >= max)
        return -1; /* a non-dominated point that does not fit */
    f[*n].cost = cost;
    f[*n].value = value;
    f[*n].actions = actions;
    memcpy(f[*n].genes, genes, ngenes * sizeof *genes);
    (*n)++;
    return 0;
}

void ac_an_tune_front_offer(const tune_ctx *c, tune_job *j, const double *genes,
                            const ac_tune_eval *ev)
{
    size_t k = c->front_check;
    if (k == AC_NONE || !ev->computed || k >= ev->nchecks || !isfinite(ev->checks[k].value))
        return;
    for (size_t q = 0; q < ev->nchecks; q++)
        if (q != k && !ev->checks[q].pass)
            return;
    if (front_insert(j->front, &j->nfront, j->front_cap, c->ngenes, ev->cost, ev->checks[k].value,
                     ev->actions, genes) != 0)
        j->front_cut = 1;
}

static int by_cost(const void *a, const void *b)
{
    const tune_fpoint *x = a, *y = b;
    return (x->cost > y->cost) - (x->cost < y->cost);
}

int ac_an_tune_front_merge(const tune_ctx *c, ac_tune_result *r, ac_error *err)
{
    size_t total = 0, n = 0;
    tune_fpoint *all;
    double *store;
    const ac_tune_check *ck = c->front_check != AC_NONE ? &r->written.checks[c->front_check] : NULL;
    for (size_t i = 0; i < c->njobs; i++) {
        total += c->jobs[i].nfront;
        r->front_cut |= c->jobs[i].front_cut;
    }
    if (total == 0)
        return AC_OK;
    all = calloc(total, sizeof *all);
    store = calloc(total * (c->ngenes + 1), sizeof *store);
    r->front = calloc(total, sizeof *r->front);
    if (all == NULL || store == NULL || r->front == NULL) {
        free(all);
        free(store);
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune front)");
    }
    for (size_t i = 0; i < total; i++)
        all[i].genes = store + i * (c->ngenes + 1);
    for (size_t i = 0; i < c->njobs; i++)
        for (size_t k = 0; k < c->jobs[i].nfront; k++) {
            const tune_fpoint *p = &c->jobs[i].front[k];
            (void)front_insert(all, &n, total, c->ngenes, p->cost, p->value, p->actions,
                               p->genes); /* room for all: never -1 */
        }
    qsort(all, n, sizeof *all, by_cost);
    for (size_t i = 0; i < n && i < AC_TUNE_FRONT_MAX; i++) {
        ac_tune_point *pt = &r->front[r->nfront];
        pt->pools = calloc(c->npools, sizeof *pt->pools);
        if (pt->pools == NULL) {
            free(all);
            free(store);
            return ac_error_set(err, AC_ENOMEM, "out of memory (tune front)");
        }
        ac_an_tune_decode(c, all[i].genes, pt->pools);
        pt->cost = all[i].cost;
        pt->value = all[i].value;
        pt->actions = all[i].actions;
        pt->met = ck != NULL && pt->value <= ck->limit;
        r->nfront++;
    }
    free(all);
    free(store);
    return AC_OK;
}

/* ------------------------------------------------------ over-provisioning */

/* The right-sized count (summed over the autoscaled pools) of `m` at the rates of time t of
 * the original model: its sizing at the load. NAN when a pool is not sized. */
static int needed_at(const tune_ctx *c, ac_model *m, double t, double *out, ac_error *err)
{
    ac_size_options so;
    ac_sizing *sz = NULL;
    double sum = 0.0;
    int rc;
    for (size_t s = 0; s < m->nsources; s++)
        m->sources[s].rate = ac_transient_source_rate(c->model, s, 1.0, t);
    ac_size_options_init(&so);
    so.max_simulations = 0;
    so.load_only = 1; /* at_load is all that is read */
    so.analysis.validate = AC_VALIDATE_NEVER;
    so.analysis.search = 0;
    so.analysis.headroom = 0;
    so.analysis.transient = AC_TRANSIENT_NEVER;
    rc = ac_size_run(m, &so, &sz, err);
    if (rc != AC_OK)
        return rc;
    for (size_t k = 0; k < c->npools && !isnan(sum); k++) {
        double n = NAN;
        for (size_t i = 0; i < sz->nnodes; i++) {
            const ac_size_answer *a = &sz->nodes[i].at_load;
            if (sz->nodes[i].node == c->pool_node[k] &&
                (a->status == AC_SIZE_OK || a->status == AC_SIZE_UNCERTAIN))
                n = (double)a->needed;
        }
        sum += n;
    }
    ac_sizing_free(sz);
    *out = sum;
    return AC_OK;
}

/* The fluid's serving count (summed over the autoscaled pools) of tr at time t. */
static double serving_at(const tune_ctx *c, const ac_transient *tr, double t)
{
    size_t i = 0;
    double sum = 0.0;
    while (i + 2 < tr->nsamples && tr->t[i + 1] <= t)
        i++;
    for (size_t k = 0; k < c->npools; k++) {
        const double *n = tr->nodes[c->pool_node[k]].servers;
        double dt = tr->t[i + 1] - tr->t[i], w = dt > 0.0 ? (t - tr->t[i]) / dt : 0.0;
        if (n == NULL)
            return NAN;
        sum += n[i] + fmin(fmax(w, 0.0), 1.0) * (n[i + 1] - n[i]);
    }
    return sum;
}

/* The serving counts of setting s at the moments into `out`, its excess and shortfall. */
static int trace(const tune_ctx *c, ac_tune_result *r, const ac_tune_setting *s, double *out,
                 double *over, double *under, ac_error *err)
{
    tune_job *j = &c->jobs[0];
    ac_tune_provision *p = &r->provision;
    double dt = c->H / (double)p->n;
    int rc = ac_an_tune_evaluate(c, j, s, &j->ev, err);
    r->evaluations++;
    *over = *under = 0.0;
    if (rc != AC_OK || j->tr == NULL || j->tr->nsamples < 2) {
        for (size_t i = 0; i < p->n; i++)
            out[i] = NAN;
        *over = *under = NAN;
        return rc > 0 ? AC_OK : rc;
    }
    for (size_t i = 0; i < p->n; i++) {
        out[i] = serving_at(c, j->tr, p->t[i]);
        *over += fmax(out[i] - p->needed[i], 0.0) * dt;
        *under += fmax(p->needed[i] - out[i], 0.0) * dt;
    }
    return AC_OK;
}

int ac_an_tune_provision(const tune_ctx *c, ac_tune_result *r, ac_error *err)
{
    ac_tune_provision *p = &r->provision;
    ac_model *m = NULL;
    size_t n = c->opt->moments;
    int rc;
    p->t = calloc(n, sizeof *p->t);
    p->needed = calloc(n, sizeof *p->needed);
    p->written = calloc(n, sizeof *p->written);
    p->best = calloc(n, sizeof *p->best);
    if (p->t == NULL || p->needed == NULL || p->written == NULL || p->best == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (tune over-provisioning)");
    if ((rc = ac_model_clone(c->model, &m, err)) != AC_OK)
        return rc;
    p->n = n;
    for (size_t i = 0; i < n && rc == AC_OK; i++) {
        p->t[i] = ((double)i + 0.5) * c->H / (double)n;
        rc = needed_at(c, m, p->t[i], &p->needed[i], err);
        p->needed_ss += p->needed[i] * c->H / (double)n;
    }
    ac_model_free(m);
    if (rc == AC_ENOMEM)
        return rc;
    if (rc != AC_OK) { /* a sizing that fails is said, not fatal */
        snprintf(p->note, sizeof p->note, "not computed: the sizing failed (%.90s)", err->message);
        memset(err, 0, sizeof *err);
        p->n = 0;
        return AC_OK;
    }
    if (isnan(p->needed_ss))
        snprintf(p->note, sizeof p->note, "a pool could not be sized at some moment");
    rc = trace(c, r, r->written.pools, p->written, &p->written_over, &p->written_under, err);
    p->best_over = p->best_under = NAN;
    for (size_t i = 0; i < n; i++)
        p->best[i] = NAN;
    if (rc == AC_OK && r->confirmed != AC_TUNE_NONE)
        rc = trace(c, r, r->best.pools, p->best, &p->best_over, &p->best_under, err);
    return rc;
}

void ac_an_tune_front_free(ac_tune_result *r)
{
    for (size_t i = 0; r->front != NULL && i < r->nfront; i++)
        free(r->front[i].pools);
    free(r->front);
    free(r->provision.t);
    free(r->provision.needed);
    free(r->provision.written);
    free(r->provision.best);
}
