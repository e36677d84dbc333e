/*
 * <resilience tau min-boundary mitigation> requirements (doc/format.md): the resilience
 * boundary B_r (the lowest workload at which the worst-case score reaches tau) is at least
 * `min-boundary`. With W non-decreasing in the workload, B_r >= min exactly when the worst
 * case at the workload whose peak rate is `min` stays below tau. So one search decides it:
 *   1. the worst case at that workload, by the search of <faults> (search.h: its budget, the
 *      file's or 2000 evaluations; its seed) on the fluid transient of the variant (the
 *      baseline, or the requirement's mitigation applied to a clone);
 *   2. that worst case re-run in the simulator (ac_analysis_confirm, a sequential test against
 *      tau: looks at 2, 6 and 10 replications, each interval at 1 - 0.05/3, stopping at the
 *      first that clears tau; the interval of the stopping look holds the mean with
 *      probability >= 95%): the fluid misses the fluctuations (a sync function alone
 *      throttles below saturation, so the fluid boundary is ~4% optimistic against
 *      Erlang-B), so the fluid alone never passes;
 *   3. PASS when the simulated score's interval lies below tau (and the fluid's is below
 *      too) and every plan the search tried was integrated, FAIL (AC301) when it lies at or
 *      above tau, else INCONCLUSIVE (AC900) with the reason (an interval across tau, a term
 *      the simulator does not measure, a simulation over its budget, the search skipped or
 *      refused, plans whose transient failed to integrate: their score is unknown, and the
 *      worst case may be among them; a FAIL stands, the plan found is a counterexample).
 * The PASS is the search's: a plan worse than the one found is not excluded (a heuristic
 * search), as every message says.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "archcheck/confirm.h"
#include "archcheck/search.h"

typedef struct res_run {
    size_t evals;
    size_t failures, limited; /* plans the transient could not integrate (limited: its budget) */
    double fluid;
    ac_analysis_confirmation conf;
    char plan[200]; /* the worst case, in words */
} res_run;

static void plan_words(const ac_model *m, const ac_transient_fault *p, size_t n, char *buf,
                       size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < n && len + 1 < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s.%s = %.4g", k > 0 ? ", " : "",
                                ac_search_target_id(m, p[k].target), ac_search_attr_name(p[k].attr),
                                p[k].value);
    if (n == 0)
        snprintf(buf, size, "no fault");
}

/* Steps 1 and 2 on model m at workload factor s (the confirmation a sequential test against
 * tau); 0 or a status with err set. */
static int search_and_confirm(const ac_an_ctx *c, const ac_model *m, double s, double tau,
                              res_run *out, ac_error *err)
{
    ac_transient_options to = c->opt->transient_opt;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_options so;
    ac_search_problem pr;
    ac_transient_fault *plan = NULL;
    ac_search_term_value *terms = NULL;
    const double *genes = NULL;
    double horizon;
    int rc;
    ac_search_options_init(&so);
    so.budget = m->faults.has_budget ? m->faults.budget : so.budget;
    so.seed = m->faults.has_seed ? m->faults.seed : c->opt->sim.seed;
    so.jobs = c->opt->search_jobs > 0 ? c->opt->search_jobs : 1;
    to.scale = s;
    horizon = ac_transient_horizon(m, &to);
    rc = ac_search_space_new(m, horizon, &sp, err);
    if (rc == 0)
        rc = ac_search_objective_new(m, sp, &to, s, so.jobs, &obj, err);
    if (rc == 0) {
        pr = ac_search_objective_problem(obj);
        rc = ac_search_ga_new(&pr, &so, &ga, err);
    }
    if (rc == 0)
        rc = ac_search_ga_run(ga, err);
    if (rc == 0) {
        plan = calloc(ac_search_space_nfaults(sp) + 1, sizeof *plan);
        terms = calloc(ac_search_objective_nterms(obj), sizeof *terms);
        if (plan == NULL || terms == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (resilience)");
    }
    if (rc == 0) {
        double best = ac_search_ga_best(ga, &genes);
        size_t pe = 0, n = ac_search_space_ngenes(sp);
        double *g = calloc(n + 1, sizeof *g);
        out->evals = ac_search_ga_evaluations(ga);
        if (g == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (resilience)");
        if (rc == 0) {
            memcpy(g, genes, n * sizeof *g);
            rc = ac_search_polish(&pr, g, &best, so.budget / 10 + 2 * n, &pe, err);
            out->evals += pe;
            out->failures = ac_search_objective_failures(obj);
            out->limited = ac_search_objective_failures_limit(obj);
            ac_search_space_decode(sp, g, plan);
        }
        free(g);
    }
    if (rc == 0) {
        plan_words(m, plan, ac_search_space_nfaults(sp), out->plan, sizeof out->plan);
        rc = ac_search_objective_eval_plan(obj, 0, plan, &out->fluid, terms, err);
    }
    if (rc == 0) {
        ac_analysis_confirm_options co;
        ac_analysis_confirm_options_init(&co);
        co.seed = so.seed;
        co.sequential = 1;
        co.tau = tau;
        co.jobs = so.jobs;
        if (c->opt->search_confirm_events > 0)
            co.max_events = c->opt->search_confirm_events;
        rc = ac_analysis_confirm(m, plan, ac_search_space_nfaults(sp), s, horizon, terms,
                                 ac_search_objective_nterms(obj), out->fluid, &co, &out->conf, err);
    }
    free(plan);
    free(terms);
    ac_search_ga_free(ga);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    return rc;
}

/* The check of the requirement, without a value yet (INCONCLUSIVE). */
static ac_check check_of(const ac_requirement *r, const char *what)
{
    ac_check ck;
    memset(&ck, 0, sizeof ck);
    snprintf(ck.name, sizeof ck.name, "resilience %.120s", what);
    ck.status = AC_CHECK_INCONCLUSIVE;
    snprintf(ck.rule, sizeof ck.rule, "AC900");
    ck.limit = r->tau;
    ck.upper = 1;
    /* the fluid score has no stated error (it under-estimates the simulated one: 0.404
       against 0.429 on serverless-pipeline's worst case), and alone it never judges */
    ck.rel_error = NAN;
    ck.abs_error = NAN;
    ck.node = AC_NONE;
    ck.loc = r->loc;
    return ck;
}

static void undecided(ac_an_ctx *c, const ac_requirement *r, const char *what, const char *why)
{
    ac_check ck = check_of(r, what);
    ac_an_finding(c, "AC900", r->loc, NULL, "requirement resilience %s cannot be evaluated: %s",
                  what, why);
    ac_an_add_check(c, &ck);
}

/* How the simulated interval was made, in words: "95%, 3 replications" or "95% over 3
 * planned looks, 6 replications", and why it stopped early when it did. */
static void interval_words(const ac_analysis_confirmation *cf, char *buf, size_t size)
{
    if (cf->looks_planned > 1)
        snprintf(buf, size, "95%% simultaneous over %zu planned looks, %zu replications%s%.120s",
                 cf->looks_planned, cf->replications, cf->why[0] != '\0' ? "; stopped: " : "",
                 cf->why);
    else
        snprintf(buf, size, "95%%, %zu replications%s%.120s", cf->replications,
                 cf->why[0] != '\0' ? "; stopped: " : "", cf->why);
}

/* Step 3: the verdict from the confirmed score. */
static void judge(ac_an_ctx *c, const ac_requirement *r, const char *what, const res_run *run)
{
    ac_check ck = check_of(r, what);
    const ac_analysis_confirmation *cf = &run->conf;
    int side = ac_analysis_confirm_side(cf, r->tau);
    char iv[224];
    interval_words(cf, iv, sizeof iv);
    ck.has_value = 1;
    ck.value = run->fluid;
    ck.has_sim = cf->computed;
    ck.sim_value = cf->score;
    ck.sim_ci95 = cf->ci95;
    ck.settled_by_simulation = cf->computed && side != 0;
    if (!cf->computed) {
        ac_an_finding(c, "AC900", r->loc, NULL,
                      "requirement resilience %s is undecided: the worst case found (%s; %zu "
                      "evaluations) scores %.4g on the fluid model, which alone cannot pass, "
                      "and is not confirmed by simulation: %s",
                      what, run->plan, run->evals, run->fluid, cf->why);
    } else if (side < 0 && run->fluid < r->tau && run->failures > 0) {
        /* the plan found stays below tau, but plans the search could not score may not */
        ac_an_finding(c, "AC900", r->loc, NULL,
                      "requirement resilience %s is undecided: the worst case found (%s; %zu "
                      "evaluations) scores %.4g +- %.2g in simulation (%s; fluid %.4g), below "
                      "tau %.4g, but %zu of the plans searched could not be integrated by the "
                      "transient (%zu of them over its work budget) and have no score: the "
                      "worst case may be among them",
                      what, run->plan, run->evals, cf->score, cf->ci95, iv, run->fluid, r->tau,
                      run->failures, run->limited);
    } else if (side < 0 && run->fluid < r->tau) {
        ck.status = AC_CHECK_PASS;
        ck.rule[0] = '\0';
    } else if (side > 0) {
        ck.status = AC_CHECK_FAIL;
        snprintf(ck.rule, sizeof ck.rule, "AC301");
        ac_an_finding(c, "AC301", r->loc, NULL,
                      "requirement resilience %s not met: the worst case found there (%s; %zu "
                      "evaluations) scores %.4g +- %.2g in simulation (%s; fluid %.4g), "
                      "reaching tau %.4g: the resilience boundary is at most the "
                      "minimum",
                      what, run->plan, run->evals, cf->score, cf->ci95, iv, run->fluid, r->tau);
    } else {
        ac_an_finding(c, "AC900", r->loc, NULL,
                      "requirement resilience %s is undecided: the worst case found (%s; %zu "
                      "evaluations) scores %.4g +- %.2g in simulation (%s; fluid %.4g), which "
                      "does not settle it against tau %.4g",
                      what, run->plan, run->evals, cf->score, cf->ci95, iv, run->fluid, r->tau);
    }
    ac_an_add_check(c, &ck);
}

/* The most the search of step 1 at workload factor s can spend: the GA's budget B (it spends
 * no more) and the polish's B / 10 + 2 n (ac_search_polish stops at its budget), n the genes
 * of the space (the mitigations change parameters, not nodes: the same for every variant;
 * AC_SEARCH_GENES_MAX when the space cannot be built, whose error the search reports). */
static size_t search_cost(const ac_an_ctx *c, double s)
{
    const ac_model *m = c->model;
    ac_transient_options to = c->opt->transient_opt;
    ac_search_options so;
    ac_search_space *sp = NULL;
    ac_error err = {0};
    size_t n = AC_SEARCH_GENES_MAX, b;
    ac_search_options_init(&so);
    b = m->faults.has_budget ? m->faults.budget : so.budget;
    to.scale = s;
    if (ac_search_space_new(m, ac_transient_horizon(m, &to), &sp, &err) == 0)
        n = ac_search_space_ngenes(sp);
    ac_search_space_free(sp);
    return b + b / 10 + 2 * n;
}

/* 1 (with the reason in `note`) when the simulation that must confirm the worst case at
 * workload factor s needs more events than its budget allows, whatever the search finds:
 * the search is then not run (it could not settle the requirement). */
static int confirmation_cannot_fit(const ac_an_ctx *c, double s, char *note, size_t size)
{
    const ac_model *m = c->model;
    ac_transient_options to = c->opt->transient_opt;
    ac_analysis_confirm_options co;
    ac_error err = {0};
    double need = 0.0;
    ac_analysis_confirm_options_init(&co);
    co.sequential = 1;
    if (c->opt->search_confirm_events > 0)
        co.max_events = c->opt->search_confirm_events;
    co.seed = m->faults.has_seed ? m->faults.seed : c->opt->sim.seed;
    to.scale = s;
    if (ac_analysis_confirm_events_pilot(m, s, ac_transient_horizon(m, &to), &co, &need, &err) != 0)
        return 0; /* the confirmation reports the simulator's refusal itself */
    if (!(need > (double)co.max_events))
        return 0;
    snprintf(note, size,
             "its worst case could not be confirmed: the simulation's first %zu replications "
             "would spend about %.3g events (warm-ups of %.4g s at the rate of a pilot run "
             "without faults, and the horizon's requests), over its budget of %.3g "
             "(--confirm-events), and "
             "the fluid model alone cannot pass (the search was not run)",
             co.replications <= 3 ? co.replications : (size_t)2, need, ac_analysis_confirm_warmup(m),
             (double)co.max_events);
    return 1;
}

void ac_req_resilience(ac_an_ctx *c, const ac_requirement *r)
{
    const ac_model *m = c->model;
    ac_model *variant = NULL;
    ac_error err = {0};
    res_run run;
    char what[128], note[384];
    double peak = ac_search_peak_rate(m);
    int rc = 0;
    snprintf(what, sizeof what, "of %.40s at %.6g/s",
             r->mitigation == AC_NONE ? "the design" : m->mitigations[r->mitigation].id, r->min);
    memset(&run, 0, sizeof run);
    if (!c->opt->search) {
        undecided(c, r, what,
                  c->opt->search_skipped != NULL
                      ? c->opt->search_skipped
                      : "the worst-case search was skipped (--no-search)");
        return;
    }
    if (!m->faults.present || !(peak > 0.0)) {
        undecided(c, r, what,
                  !m->faults.present ? "the file has no <faults> space to search"
                                     : "the sources offer no request to scale");
        return;
    }
    {
        size_t per = search_cost(c, r->min / peak);
        if (c->search_evals + per > c->opt->search_budget) {
            snprintf(note, sizeof note,
                     "its search could need %zu evaluations, and %zu of the analysis' budget of "
                     "%zu are left",
                     per, c->opt->search_budget - c->search_evals, c->opt->search_budget);
            undecided(c, r, what, note);
            return;
        }
    }
    if (confirmation_cannot_fit(c, r->min / peak, note, sizeof note)) {
        undecided(c, r, what, note);
        return;
    }
    if (r->mitigation != AC_NONE) {
        rc = ac_model_clone(m, &variant, &err);
        if (rc == 0)
            rc = ac_model_apply_mitigation(variant, r->mitigation, note, sizeof note, &err);
    }
    if (rc == 0)
        rc =
            search_and_confirm(c, variant != NULL ? variant : m, r->min / peak, r->tau, &run, &err);
    c->search_evals += run.evals;
    if (rc == AC_ENOMEM)
        c->oom = 1;
    if (rc != 0)
        undecided(c, r, what, err.message);
    else
        judge(c, r, what, &run);
    ac_model_free(variant);
}
