/*
 * The resilience study (include/archcheck/search.h, doc/models.md §6): the boundary B_r of
 * the baseline and of every variant (search/variants.c: each declared mitigation and the
 * combinations), each against its own worst cases and against the baseline's, and the gains
 * R_g(m) = B_r(m) / B_r(none) - 1.
 *
 * A variant is applied to a clone of the model; its space is the same <faults> (the
 * mitigations change parameters, not nodes), so the baseline's worst plan applies to it as it
 * is. Each variant's search starts from the baseline's final population (its last probe's, at
 * B_r(none)) and each of its probes ends once a plan reaches tau (which decides that probe):
 * the baseline's worst plans are the first candidates against a mitigation. Budget: it binds
 * the whole study, the baseline included. Before the baseline, the most it can spend, P =
 * 2 + ceil(log2(ln(hi / lo) / ln(1 + rel_tol))) probes of the per-probe budget (and its
 * polish) and the search at score_at, must fit in max_evaluations; else nothing is computed
 * (every variant says why: a study without its baseline has no boundary to compare with).
 * Before a variant, the most its two boundaries can spend, P probes plus as many single
 * evaluations (and the search at score_at), must fit in what is left; else it is not
 * computed. So st->evaluations <= st->budget always. Both bounds are attained: P is the
 * bracket's two probes plus the bisection's fixed count, and a GA spends its whole budget
 * and the polish its tenth + 2 n whenever no move of the polish is skipped (a gene at a bound
 * of its range), as on the one-gene test case of tests/test_search_resilience.c, where the
 * baseline spends exactly its bound (736) and a cold variant exactly its 751.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/internal.h"

void ac_search_study_options_init(ac_search_study_options *opt)
{
    memset(opt, 0, sizeof *opt);
    ac_search_options_init(&opt->search);
    ac_transient_options_init(&opt->transient);
    opt->lo = 1.0 / 16.0;
    opt->hi = 16.0;
    opt->rel_tol = 1e-3;
    opt->max_evaluations = AC_SEARCH_STUDY_BUDGET;
    opt->mitigation = AC_NONE;
    opt->warm_start = 1;
    opt->combinations = 1;
    opt->score_at = 1.0;
}

void ac_search_study_free(ac_search_study *study)
{
    if (study == NULL)
        return;
    free(study->variants);
    free(study->baseline_worst);
    free(study->score_worst);
    free(study->score_terms);
    free(study->final);
    free(study);
}

/* The most probes of one bisection on [lo, hi] to hi / lo <= 1 + rel_tol. */
static size_t max_probes(const ac_search_study_options *o)
{
    return 2 + (size_t)ceil(log2(log(o->hi / o->lo) / log1p(o->rel_tol)) + 1e-9);
}

/* The most one probe's search can spend: its budget and the polish (boundary.c). */
static size_t probe_cost(const ac_search_study_options *o, size_t ngenes)
{
    return o->search.budget + o->search.budget / 10 + 2 * ngenes;
}

/* The most one variant can spend: its own boundary (P probes of a search), the boundary of
 * the baseline's worst plan (P single evaluations) and the search at score_at. Attained when
 * no probe of its own reaches tau (each probe then runs its full budget and polish). */
static size_t variant_cost(const ac_search_study_options *o, size_t ngenes)
{
    size_t p = max_probes(o);
    return p * probe_cost(o, ngenes) + p + (o->score_at > 0.0) * probe_cost(o, ngenes);
}

/* The space and objective of model m at the study's options. */
static int open_objective(const ac_model *m, const ac_search_study_options *o, ac_search_space **sp,
                          ac_search_objective **obj, ac_error *err)
{
    ac_transient_options to = o->transient;
    int rc;
    to.scale = o->hi;
    rc = ac_search_space_new(m, ac_transient_horizon(m, &to), sp, err);
    if (rc == 0)
        rc = ac_search_objective_new(m, *sp, &to, o->hi, o->search.jobs, obj, err);
    return rc;
}

/* R_g; NAN unless both boundaries are FOUND on probes that integrated every plan below tau
 * (else either is an upper bound only, and their ratio is not known). */
static double gain(const ac_search_boundary *b, const ac_search_boundary *base)
{
    if (b->status != AC_SEARCH_BOUNDARY_FOUND || base->status != AC_SEARCH_BOUNDARY_FOUND ||
        b->failures_below > 0 || base->failures_below > 0)
        return NAN;
    return b->rate / base->rate - 1.0;
}

/* The baseline's worst case at score_at (genes g) into st->score_worst and its terms (one
 * evaluation more: the same score, an evaluation being a function of the plan). */
static int keep_score_worst(ac_search_objective *obj, const ac_search_space *sp, const double *g,
                            ac_search_study *st, ac_error *err)
{
    double s;
    st->nterms = ac_search_objective_nterms(obj);
    st->score_worst = calloc(st->nfaults + 1, sizeof *st->score_worst);
    st->score_terms = calloc(st->nterms + 1, sizeof *st->score_terms);
    if (st->score_worst == NULL || st->score_terms == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    ac_search_space_decode(sp, g, st->score_worst);
    return ac_search_objective_eval_plan(obj, 0, st->score_worst, &s, st->score_terms, err);
}

/* The worst-case score of a variant at the workload factor o->score_at (a search of the
 * per-probe budget and its polish, warm-started from `warm`: the baseline's final population,
 * or none), with the failed integrations it met; the plan kept in `keep` (the baseline's:
 * keep_score_worst) unless NULL. */
static int worst_at(ac_search_objective *obj, const ac_search_space *sp,
                    const ac_search_study_options *o, const double *warm, size_t nwarm,
                    ac_search_variant *v, ac_search_study *keep, ac_error *err)
{
    ac_search_problem pr = ac_search_objective_problem(obj);
    ac_search_ga *ga = NULL;
    size_t failed0 = ac_search_objective_failures(obj), pe = 0;
    double *g = calloc(pr.ngenes + 1, sizeof *g);
    int rc = g == NULL ? ac_error_set(err, AC_ENOMEM, "out of memory (study)") : 0;
    if (rc == 0)
        rc = ac_search_objective_set_scale(obj, o->score_at, err);
    if (rc == 0 && pr.ngenes == 0) {
        v->evaluations++;
        rc = ac_search_objective_eval(obj, 0, NULL, &v->worst_score, NULL, err);
        goto cleanup;
    }
    if (rc == 0)
        rc = ac_search_ga_new(&pr, &o->search, &ga, err);
    if (rc == 0 && nwarm > 0)
        rc = ac_search_ga_warm(ga, warm, nwarm, err);
    if (rc == 0)
        rc = ac_search_ga_run(ga, err);
    if (rc == 0) {
        const double *best;
        v->worst_score = ac_search_ga_best(ga, &best);
        memcpy(g, best, pr.ngenes * sizeof *g);
        v->evaluations += ac_search_ga_evaluations(ga);
        rc = ac_search_polish(&pr, g, &v->worst_score, o->search.budget / 10 + 2 * pr.ngenes, &pe,
                              err);
        v->evaluations += pe;
    }
cleanup:
    if (rc == 0 && keep != NULL)
        rc = keep_score_worst(obj, sp, g, keep, err);
    v->worst_failures = ac_search_objective_failures(obj) - failed0;
    ac_search_ga_free(ga);
    free(g);
    return rc;
}

/* Over the budget before the baseline: every variant not computed, with why. */
static void skip_all(ac_search_study *st, size_t need)
{
    for (size_t i = 0; i < st->nvariants; i++) {
        ac_search_variant *v = &st->variants[i];
        v->computed = 0;
        v->gain = v->gain_against = v->worst_score = NAN;
        if (v->excluded)
            continue;
        if (i == 0)
            snprintf(v->why, sizeof v->why,
                     "not searched: its boundary could need %zu evaluations, more than the "
                     "study's budget of %zu",
                     need, st->budget);
        else
            snprintf(v->why, sizeof v->why,
                     "not searched: the baseline was not (its boundary could need %zu "
                     "evaluations, more than the study's budget of %zu)",
                     need, st->budget);
    }
}

/* The baseline: its boundary and worst case at it; *skipped = 1 when it cannot fit in the
 * budget (then nothing is computed). */
static int run_baseline(const ac_model *m, const ac_search_study_options *o, ac_search_study *st,
                        int *skipped, ac_error *err)
{
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_variant *v = &st->variants[0];
    double *worst = NULL;
    int rc = open_objective(m, o, &sp, &obj, err);
    *skipped = 0;
    if (rc == 0) {
        size_t need =
            (max_probes(o) + (o->score_at > 0.0)) * probe_cost(o, ac_search_space_ngenes(sp));
        if (need > st->budget) {
            skip_all(st, need);
            *skipped = 1;
            goto cleanup;
        }
    }
    if (rc == 0) {
        st->nfaults = ac_search_space_nfaults(sp);
        worst = calloc(ac_search_space_ngenes(sp) + 1, sizeof *worst);
        st->baseline_worst = calloc(st->nfaults + 1, sizeof *st->baseline_worst);
        if (worst == NULL || st->baseline_worst == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    }
    if (rc == 0) {
        st->ngenes = ac_search_space_ngenes(sp);
        st->final = calloc(o->search.population * (st->ngenes + 1), sizeof *st->final);
        if (st->final == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    }
    if (rc == 0) {
        ac_search_warm w = {NULL, 0, 0, st->final, 0};
        rc = ac_search_boundary_find_warm(m, obj, &o->search, &w, st->tau, o->lo, o->hi, o->rel_tol,
                                          &v->own, worst, err);
        st->nfinal = w.nlast;
    }
    if (rc == 0) {
        ac_search_space_decode(sp, worst, st->baseline_worst);
        v->computed = 1;
        v->evaluations = v->own.evaluations;
        v->evaluations_cold = v->own.evaluations;
        v->against = v->own;
        v->gain = v->gain_against = v->own.failures_below > 0 ? NAN : 0.0;
        if (o->score_at > 0.0)
            rc = worst_at(obj, sp, o, NULL, 0, v, st, err);
        v->evaluations_cold = v->evaluations;
        st->evaluations += v->evaluations;
    }
cleanup:
    free(worst);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    return rc;
}

/* One variant: its clone, boundaries and gains; a failure is the variant's `why`. */
static int run_variant(const ac_model *m, const ac_search_study_options *o, ac_search_study *st,
                       ac_search_variant *v)
{
    ac_model *mm = NULL;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_error e = {0};
    size_t need = variant_cost(o, st->ngenes);
    int rc;
    if (v->excluded)
        return 0;
    if (st->evaluations + need > st->budget) {
        snprintf(v->why, sizeof v->why,
                 "not searched: it could need %zu evaluations and %zu of the budget of %zu "
                 "are left",
                 need, st->budget - st->evaluations, st->budget);
        return 0;
    }
    rc = ac_search_variant_model(m, v, &mm, &e);
    if (rc == 0)
        rc = open_objective(mm, o, &sp, &obj, &e);
    if (rc == 0) {
        ac_search_warm w = {st->final, o->warm_start ? st->nfinal : 0, o->warm_start, NULL, 0};
        rc = ac_search_boundary_find_warm(mm, obj, &o->search, &w, st->tau, o->lo, o->hi,
                                          o->rel_tol, &v->own, NULL, &e);
    }
    if (rc == 0)
        rc = ac_search_boundary_plan(mm, obj, st->baseline_worst, st->tau, o->lo, o->hi, o->rel_tol,
                                     &v->against, &e);
    if (rc == 0 && o->score_at > 0.0)
        rc = worst_at(obj, sp, o, st->final, o->warm_start ? st->nfinal : 0, v, NULL, &e);
    if (rc == 0) {
        size_t at = v->evaluations; /* worst_at's */
        v->evaluations += v->own.evaluations + v->against.evaluations;
        v->evaluations_cold =
            at + v->own.probes * probe_cost(o, st->ngenes) + v->against.evaluations;
        /* the baseline's worst case is a plan of the variant's space too: its own worst case
           is at least as bad, so its boundary is at most that one's */
        if (v->against.status != AC_SEARCH_BOUNDARY_ABOVE &&
            (v->own.status == AC_SEARCH_BOUNDARY_ABOVE || v->against.rate < v->own.rate)) {
            size_t probes = v->own.probes, evals = v->own.evaluations;
            size_t failures = v->own.failures, below = v->own.failures_below;
            v->own = v->against;
            v->own.probes = probes;
            v->own.evaluations = evals;
            v->own.failures = failures; /* its own search's plans still count */
            v->own.failures_below = below;
            v->own_is_baseline_worst = 1;
        }
        v->computed = 1;
        v->gain = gain(&v->own, &st->variants[0].own);
        v->gain_against = gain(&v->against, &st->variants[0].own);
        st->evaluations += v->evaluations;
    } else {
        snprintf(v->why, sizeof v->why, "%.200s", e.message);
    }
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    ac_model_free(mm);
    return rc == AC_ENOMEM ? rc : 0;
}

int ac_search_study_run(const ac_model *model, const ac_search_study_options *opt,
                        ac_search_study **out, ac_error *err)
{
    ac_search_study_options o;
    ac_search_study *st;
    size_t nv;
    int rc, skipped = 0;
    *out = NULL;
    if (opt != NULL)
        o = *opt;
    else
        ac_search_study_options_init(&o);
    if (!model->faults.present)
        return ac_error_set(err, AC_EINVAL, "study: the model has no <faults>");
    if (!(o.lo > 0.0) || !(o.hi > o.lo) || !isfinite(o.hi) || !(o.rel_tol > 0.0) ||
        o.max_evaluations == 0 ||
        (o.mitigation != AC_NONE && o.mitigation >= model->nmitigations) || !(o.score_at >= 0.0) ||
        o.score_at > o.hi)
        return ac_error_set(err, AC_EINVAL, "study: invalid options");
    st = calloc(1, sizeof *st);
    if (st == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    rc = ac_search_study_variants(model, o.mitigation, o.combinations, st, err);
    if (rc != 0) {
        ac_search_study_free(st);
        return rc;
    }
    nv = st->nvariants;
    st->tau = model->faults.tau;
    st->budget = o.max_evaluations;
    rc = run_baseline(model, &o, st, &skipped, err);
    for (size_t i = 1; i < nv && rc == 0 && !skipped; i++) {
        rc = run_variant(model, &o, st, &st->variants[i]);
        if (rc != 0)
            ac_error_set(err, rc, "out of memory (study)");
    }
    if (rc != 0) {
        ac_search_study_free(st);
        return rc;
    }
    *out = st;
    return 0;
}
