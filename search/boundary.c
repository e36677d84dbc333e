/*
 * The resilience boundary B_r (doc/models.md §6): the lowest workload factor s at which the
 * worst-case score W(s) = max over the fault space of the objective at s reaches tau,
 * reported as the peak request rate s Lambda_peak. W is assumed non-decreasing in s; it is
 * bracketed on [lo, hi] and bisected geometrically (s = sqrt(lo hi)) until hi / lo <= 1 +
 * rel_tol, each probe a full search (the budget of opt) warm-started from the previous
 * probe's last population.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/search.h"

/* The highest total rate of the sources (/s, at factor 1): the profiles are linear between
 * their points and held after, so the maximum of their sum is at one of the points' times. */
double ac_search_peak_rate(const ac_model *m)
{
    double peak = 0.0;
    for (size_t p = 0; p <= m->nprofiles; p++) {
        size_t npts = p < m->nprofiles ? m->profiles[p].npoints : 1;
        for (size_t k = 0; k < npts; k++) {
            double t = p < m->nprofiles ? m->profiles[p].points[k].at : 0.0, sum = 0.0;
            for (size_t s = 0; s < m->nsources; s++)
                sum += ac_transient_source_rate(m, s, 1.0, t);
            peak = fmax(peak, sum);
        }
    }
    return peak;
}

typedef struct probe_ctx {
    ac_search_objective *obj;
    ac_search_problem pr;
    ac_search_options opt;
    double *warm; /* population x ngenes */
    size_t nwarm;
    size_t evals, probes;
    const ac_transient_fault *fixed; /* a fixed plan instead of a search (NULL: search) */
    double *best;                    /* ngenes: the worst case of the last probe */
    double *best_hi;      /* ngenes: the worst case at the bracket's hi (NULL: not kept) */
    size_t last_failures; /* plans of the last probe that failed to integrate */
    double tau;
    int stop_at_tau; /* a probe ends once a plan reaches tau */
    size_t failures, failures_below;
} probe_ctx;

/* W(scale): the worst case searched at `scale` (the fixed plan when the space has no gene). */
static int probe(probe_ctx *c, double scale, double *out, ac_error *err)
{
    ac_search_ga *ga = NULL;
    const double *pop;
    size_t failed0 = ac_search_objective_failures(c->obj);
    int rc = ac_search_objective_set_scale(c->obj, scale, err);
    c->last_failures = 0;
    if (rc != 0)
        return rc;
    c->probes++;
    if (c->fixed != NULL) {
        c->evals++;
        return ac_search_objective_eval_plan(c->obj, 0, c->fixed, out, NULL, err);
    }
    if (c->pr.ngenes == 0) {
        c->evals++;
        return ac_search_objective_eval(c->obj, 0, NULL, out, NULL, err);
    }
    rc = ac_search_ga_new(&c->pr, &c->opt, &ga, err);
    if (rc == 0 && c->nwarm > 0)
        rc = ac_search_ga_warm(ga, c->warm, c->nwarm, err);
    for (int done = 0; rc == 0 && !done;) {
        rc = ac_search_ga_step(ga, &done, err);
        /* W(scale) >= tau is decided by the first plan that reaches it */
        if (c->stop_at_tau && ac_search_ga_best(ga, NULL) >= c->tau)
            done = 1;
    }
    if (rc == 0) {
        const double *g;
        size_t pe = 0;
        *out = ac_search_ga_best(ga, &g);
        memcpy(c->best, g, c->pr.ngenes * sizeof *c->best);
        c->evals += ac_search_ga_evaluations(ga);
        /* the peak near the GA's best (a tenth of the budget more), unless decided */
        if (!(c->stop_at_tau && *out >= c->tau))
            rc = ac_search_polish(&c->pr, c->best, out, c->opt.budget / 10 + 2 * c->pr.ngenes, &pe,
                                  err);
        c->evals += pe;
    }
    if (rc == 0) {
        c->nwarm = ac_search_ga_population(ga, &pop);
        memcpy(c->warm, pop, c->nwarm * c->pr.ngenes * sizeof *c->warm);
    }
    c->last_failures = ac_search_objective_failures(c->obj) - failed0;
    c->failures += c->last_failures;
    ac_search_ga_free(ga);
    return rc;
}

/* A probe judged below tau: its failed plans could have reached tau (the bracket's low side,
 * and so B_r, then rests on plans whose score is unknown). */
static void below(probe_ctx *c)
{
    c->failures_below += c->last_failures;
}

/* Keep the last probe's worst case as the one at hi. */
static void keep_hi(probe_ctx *c)
{
    if (c->best_hi != NULL && c->fixed == NULL)
        memcpy(c->best_hi, c->best, c->pr.ngenes * sizeof *c->best);
}

static int bisect(const ac_model *model, probe_ctx *c, double tau, double lo, double hi,
                  double rel_tol, ac_search_boundary *out, ac_error *err);

int ac_search_boundary_find(const ac_model *model, ac_search_objective *obj,
                            const ac_search_options *opt, double tau, double lo, double hi,
                            double rel_tol, ac_search_boundary *out, ac_error *err)
{
    return ac_search_boundary_find_worst(model, obj, opt, tau, lo, hi, rel_tol, out, NULL, err);
}

int ac_search_boundary_find_worst(const ac_model *model, ac_search_objective *obj,
                                  const ac_search_options *opt, double tau, double lo, double hi,
                                  double rel_tol, ac_search_boundary *out, double *worst,
                                  ac_error *err)
{
    return ac_search_boundary_find_warm(model, obj, opt, NULL, tau, lo, hi, rel_tol, out, worst,
                                        err);
}

int ac_search_boundary_find_warm(const ac_model *model, ac_search_objective *obj,
                                 const ac_search_options *opt, ac_search_warm *warm, double tau,
                                 double lo, double hi, double rel_tol, ac_search_boundary *out,
                                 double *worst, ac_error *err)
{
    probe_ctx c;
    int rc;
    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    c.obj = obj;
    c.pr = ac_search_objective_problem(obj);
    c.best_hi = worst;
    c.tau = tau;
    if (opt != NULL)
        c.opt = *opt;
    else
        ac_search_options_init(&c.opt);
    c.warm = calloc(c.opt.population * (c.pr.ngenes + 1), sizeof *c.warm);
    c.best = calloc(c.pr.ngenes + 1, sizeof *c.best);
    if (c.warm == NULL || c.best == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (boundary)");
        goto cleanup;
    }
    if (warm != NULL) {
        c.stop_at_tau = warm->stop_at_tau;
        c.nwarm = warm->genes != NULL ? warm->count : 0;
        if (c.nwarm > c.opt.population)
            c.nwarm = c.opt.population;
        if (c.nwarm > 0)
            memcpy(c.warm, warm->genes, c.nwarm * c.pr.ngenes * sizeof *c.warm);
    }
    rc = bisect(model, &c, tau, lo, hi, rel_tol, out, err);
    if (rc == 0 && warm != NULL && warm->last != NULL) {
        warm->nlast = c.nwarm; /* bisect updates its copy: see the end of bisect */
        memcpy(warm->last, c.warm, c.nwarm * c.pr.ngenes * sizeof *c.warm);
    }
cleanup:
    free(c.warm);
    free(c.best);
    return rc;
}

int ac_search_boundary_plan(const ac_model *model, ac_search_objective *obj,
                            const ac_transient_fault *faults, double tau, double lo, double hi,
                            double rel_tol, ac_search_boundary *out, ac_error *err)
{
    probe_ctx c;
    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    c.obj = obj;
    c.pr = ac_search_objective_problem(obj);
    c.fixed = faults;
    return bisect(model, &c, tau, lo, hi, rel_tol, out, err);
}

/* The bracket and the bisection of W on [lo, hi] (c set up). */
static int bisect(const ac_model *model, probe_ctx *pc, double tau, double lo, double hi,
                  double rel_tol, ac_search_boundary *out, ac_error *err)
{
    probe_ctx c = *pc;
    double wlo, whi;
    int rc;
    if (!(lo > 0.0) || !(hi > lo) || !isfinite(hi) || !(rel_tol > 0.0) || !(tau > 0.0))
        return ac_error_set(err, AC_EINVAL, "boundary: 0 < lo < hi, tau > 0, rel_tol > 0");
    out->peak_rate = ac_search_peak_rate(model);
    rc = probe(&c, lo, &wlo, err);
    if (rc == 0 && wlo >= tau) {
        out->status = AC_SEARCH_BOUNDARY_BELOW;
        out->lo = out->hi = lo;
        keep_hi(&c);
        goto cleanup;
    }
    if (rc == 0)
        below(&c);
    if (rc == 0)
        rc = probe(&c, hi, &whi, err);
    if (rc == 0)
        keep_hi(&c);
    if (rc == 0 && whi < tau) {
        below(&c);
        out->status = AC_SEARCH_BOUNDARY_ABOVE;
        out->lo = out->hi = hi;
        goto cleanup;
    }
    /* W(lo) < tau <= W(hi): halve the bracket's log until its ratio is 1 + rel_tol (at most
     * log2(log(hi / lo) / log(1 + rel_tol)) + 1 probes). */
    while (rc == 0 && hi / lo > 1.0 + rel_tol) {
        double mid = sqrt(lo * hi), w;
        rc = probe(&c, mid, &w, err);
        if (rc == 0 && w >= tau) {
            hi = mid;
            keep_hi(&c);
        } else if (rc == 0) {
            lo = mid;
            below(&c);
        }
    }
    out->status = AC_SEARCH_BOUNDARY_FOUND;
    out->lo = lo;
    out->hi = hi;
cleanup:
    out->probes = c.probes;
    out->evaluations = c.evals;
    out->failures = c.failures;
    out->failures_below = c.failures_below;
    pc->nwarm = c.nwarm; /* the last probe's population, for a warm start elsewhere */
    out->scale = out->hi;
    out->rate = out->hi * out->peak_rate;
    return rc;
}
