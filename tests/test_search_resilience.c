/*
 * The worst case beyond the fluid search: its confirmation by simulation (against Erlang-B),
 * the resilience study of every mitigation (against the fluid closed form), the exports to a
 * live drill, and the command end to end.
 */
#include "helpers.h"
#include "fixture.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <gsl/gsl_cdf.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/confirm.h"
#include "archcheck/search.h"

/* A sync function (C = 10, 100 ms, no cold start, warm for an hour) whose only term is its
 * throttle rate, a delay of 0..100 ms in the space, and two mitigations: twice the
 * concurrency, and SnapStart (a restore of 10 ms where there is no cold start: no gain). */
static const char thr_xml[] =
    "<architecture name='thr' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='50/s'/>\n"
    "    <profile source='s'><point at='0s' rate='50/s'/><point at='20s' rate='50/s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s' keep-alive='1h'/>\n"
    "  <mitigation id='more' kind='set' target='fn' attribute='concurrency' value='20'/>\n"
    "  <mitigation id='snap' kind='snapstart' target='fn' restore='10ms'/>\n"
    "  <faults budget='40' seed='2'>\n"
    "    <fault target='fn' delay='0ms..100ms'/>\n"
    "    <objective tau='0.7'><term metric='throttle-rate' target='fn'/></objective>\n"
    "  </faults>\n"
    "</architecture>\n";

/* The fluid terms of `plan` at `scale` (a workspace on a one-gene space). */
static void fluid_terms(fx *f, const ac_transient_fault *plan, double scale, double *score,
                        ac_search_term_value *tv)
{
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    assert_int_equal(ac_search_space_new(f->m, 20.0, &sp, &f->err), AC_OK);
    assert_int_equal(ac_search_objective_new(f->m, sp, NULL, scale, 1, &obj, &f->err), AC_OK);
    assert_int_equal(ac_search_objective_eval_plan(obj, 0, plan, score, tv, &f->err), AC_OK);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
}

static double ci999(const ac_analysis_confirmation *c)
{
    return c->ci95 * gsl_cdf_tdist_Pinv(0.9995, (double)(c->replications - 1)) /
           gsl_cdf_tdist_Pinv(0.975, (double)(c->replications - 1));
}

/*
 * The worst delay (100 ms) at 40/s: the function is M/G/10/10 at a = 40 x 0.2 = 8, its
 * throttled share Erlang-B(10, 8) = 0.1217 whatever the law of the execution (insensitive),
 * where the fluid has 0 below saturation (C / T_e = 50/s). The simulated score holds the
 * closed form in its 99.9% interval. With the window [0, 10 s) of the 20 s only, the share
 * is about the mean of B(10, 8) and B(10, 4) = 0.0053 over the two halves (within 5%: the
 * busy count relaxes in a few execution times).
 */
static void test_confirm_erlang_b(void **state)
{
    ac_transient_fault plan = {0, AC_TRANSIENT_FAULT_DELAY, 0.1, 0.0, INFINITY};
    ac_search_term_value tv;
    ac_analysis_confirm_options co;
    ac_analysis_confirmation c;
    double fluid, b8 = ac_test_erlang_b(10, 8.0), half = 0.5 * (b8 + ac_test_erlang_b(10, 4.0));
    fx f;
    (void)state;
    fx_parse(&f, thr_xml);
    fluid_terms(&f, &plan, 0.8, &fluid, &tv);
    assert_double_close(fluid, 0.0, 1e-3, 0.0);
    ac_analysis_confirm_options_init(&co);
    co.replications = 30;
    assert_int_equal(ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &c, &f.err),
                     AC_OK);
    print_message("confirmed %.5f +- %.5f vs Erlang-B %.5f (fluid %.5f)\n", c.score, c.ci95, b8,
                  fluid);
    assert_true(c.computed);
    assert_int_equal(c.replications, 30);
    assert_true(fabs(c.score - b8) <= ci999(&c));
    assert_true(c.ci95 < 0.1 * b8);
    assert_double_close(c.diff, c.score - fluid, 1e-15, 0.0);
    assert_int_equal(ac_analysis_confirm_side(&c, 0.7), -1);
    assert_int_equal(ac_analysis_confirm_side(&c, 0.01), 1);
    assert_int_equal(ac_analysis_confirm_side(&c, c.score), 0);
    plan.end = 10.0;
    assert_int_equal(ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &c, &f.err),
                     AC_OK);
    print_message("window [0, 10 s): %.5f +- %.5f vs %.5f\n", c.score, c.ci95, half);
    assert_true(fabs(c.score - half) <= ci999(&c) + 0.05 * half);
    fx_free(&f);
}

/*
 * The sequential test against tau (looks at 2, 6, 10 replications, each interval at
 * 1 - 0.05/3): with tau far from the mean (0.7 against Erlang-B(10, 8) = 0.1217) it stops at
 * the first look, its mean that of the fixed test with 2 replications (the same seeds) bit
 * for bit and its half-width wider by t_{1-0.025/3, 1} / t_{0.975, 1}; with tau at the
 * closed form no look can clear it, so it runs all 10 (the fixed test's mean, its half-width
 * wider by the 9-df ratio). Two threads give the same bits. A budget that covers the first
 * look and not the second: the first look stands, the reason is said.
 */
static void test_confirm_sequential(void **state)
{
    ac_transient_fault plan = {0, AC_TRANSIENT_FAULT_DELAY, 0.1, 0.0, INFINITY};
    ac_search_term_value tv;
    ac_analysis_confirm_options co;
    ac_analysis_confirmation seq, fix, two;
    double fluid, b8 = ac_test_erlang_b(10, 8.0), q = 1.0 - 0.025 / 3.0;
    fx f;
    (void)state;
    fx_parse(&f, thr_xml);
    assert_double_close(ac_analysis_confirm_warmup(f.m), 100.0 * 0.1 + 3600.0, 1e-12, 0.0);
    fluid_terms(&f, &plan, 0.8, &fluid, &tv);
    ac_analysis_confirm_options_init(&co);
    co.sequential = 1;
    co.tau = 0.7;
    assert_int_equal(
        ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &seq, &f.err), AC_OK);
    co.sequential = 0;
    co.replications = 2;
    assert_int_equal(
        ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &fix, &f.err), AC_OK);
    print_message("sequential: %.5f +- %.5f after %zu replications (fixed 2: +- %.5f), "
                  "Erlang-B %.5f\n",
                  seq.score, seq.ci95, seq.replications, fix.ci95, b8);
    assert_true(seq.computed && fix.computed);
    assert_int_equal(seq.replications, 2);
    assert_int_equal(seq.looks, 1);
    assert_int_equal(seq.looks_planned, 3);
    assert_int_equal(fix.looks_planned, 1);
    assert_double_close(seq.level, 1.0 - 0.05 / 3.0, 1e-15, 0.0);
    assert_true(seq.score == fix.score);
    assert_double_close(seq.ci95 / fix.ci95,
                        gsl_cdf_tdist_Pinv(q, 1.0) / gsl_cdf_tdist_Pinv(0.975, 1.0), 0.0, 1e-12);
    assert_int_equal(ac_analysis_confirm_side(&seq, 0.7), -1);
    assert_true(fabs(seq.score - b8) <=
                seq.ci95 * gsl_cdf_tdist_Pinv(0.9995, 1.0) / gsl_cdf_tdist_Pinv(q, 1.0));
    /* tau at the closed form: every look straddles it (or the test is wrong 5% of the time:
       the seeds are fixed, so this is deterministic) */
    co.sequential = 1;
    co.replications = 10;
    co.tau = b8;
    assert_int_equal(
        ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &seq, &f.err), AC_OK);
    co.jobs = 2;
    assert_int_equal(
        ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &two, &f.err), AC_OK);
    co.sequential = 0;
    co.jobs = 1;
    assert_int_equal(
        ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &fix, &f.err), AC_OK);
    assert_int_equal(seq.replications, 10);
    assert_int_equal(seq.looks, 3);
    assert_true(seq.score == fix.score);
    assert_double_close(seq.ci95 / fix.ci95,
                        gsl_cdf_tdist_Pinv(q, 9.0) / gsl_cdf_tdist_Pinv(0.975, 9.0), 0.0, 1e-12);
    assert_int_equal(ac_analysis_confirm_side(&seq, b8), 0);
    assert_true(two.score == seq.score && two.ci95 == seq.ci95 && two.events == seq.events);
    /* a budget for the first look (2 of them) and not for the next 4 */
    co.sequential = 1;
    co.max_events = seq.events * 4 / 10;
    assert_int_equal(
        ac_analysis_confirm(f.m, &plan, 1, 0.8, 20.0, &tv, 1, fluid, &co, &two, &f.err), AC_OK);
    assert_true(two.computed);
    assert_int_equal(two.looks, 1);
    assert_int_equal(two.replications, 2);
    assert_non_null(strstr(two.why, "budget"));
    fx_free(&f);
}

/* What the simulator cannot measure is said, not guessed; bad arguments are refused. */
static void test_confirm_not_computed(void **state)
{
    ac_transient_fault plan = {0, AC_TRANSIENT_FAULT_DELAY, 0.1, 0.0, INFINITY};
    ac_search_term_value tv[2] = {{0.0, 1.0, 1.0, 0.0}, {0.0, 1.0, 0.0, 0.0}};
    ac_analysis_confirm_options co;
    ac_analysis_confirmation c;
    fx f;
    (void)state;
    fx_parse(&f, thr_xml);
    ac_analysis_confirm_options_init(&co);
    assert_int_equal(ac_analysis_confirm(f.m, &plan, 1, 1.0, 20.0, tv, 2, 0.0, &co, &c, &f.err),
                     AC_OK);
    assert_false(c.computed);
    assert_non_null(strstr(c.why, "do not match"));
    assert_int_equal(ac_analysis_confirm_side(&c, 0.5), 0);
    co.replications = 1;
    assert_int_equal(ac_analysis_confirm(f.m, &plan, 1, 1.0, 20.0, tv, 1, 0.0, &co, &c, &f.err),
                     AC_EINVAL);
    ac_error_clear(&f.err);
    /* a budget too small for one replication: not computed, with the reason */
    co.replications = 2;
    co.max_events = 100;
    assert_int_equal(ac_analysis_confirm(f.m, &plan, 1, 1.0, 20.0, tv, 1, 0.0, &co, &c, &f.err),
                     AC_OK);
    assert_false(c.computed);
    assert_non_null(strstr(c.why, "budget"));
    fx_free(&f);
}

/*
 * The study against the fluid closed form: the fluid function admits C / T_e, its throttled
 * share 1 - C / (lambda T_e) reaches tau = 0.7 at lambda = C / (0.3 T_e): at the worst delay
 * (T_e = 0.2 s) 166.7/s for C = 10 and 333.3/s for C = 20 (R_g = 1); SnapStart changes no
 * throttle (R_g within the search's 2%). Against the baseline's worst case the same. A budget
 * that holds the baseline only leaves the mitigations not computed, saying so.
 */
static void test_study(void **state)
{
    ac_search_study_options o;
    ac_search_study *st = NULL;
    fx f;
    (void)state;
    fx_parse(&f, thr_xml);
    ac_search_study_options_init(&o);
    o.search.budget = 40;
    o.search.population = 10;
    assert_int_equal(ac_search_study_run(f.m, &o, &st, &f.err), AC_OK);
    /* the baseline, the two declared mitigations, and their combination */
    assert_int_equal(st->nvariants, 4);
    assert_true(st->all_subsets);
    assert_int_equal(st->variants[0].mitigation, AC_NONE);
    assert_string_equal(st->variants[3].id, "more+snap");
    assert_int_equal(st->variants[3].mitigation, AC_NONE);
    assert_int_equal(st->variants[3].nparts, 2);
    for (size_t i = 0; i < 4; i++) {
        const ac_search_variant *v = &st->variants[i];
        print_message("variant %zu %s: B_r %.4f/s, against %.4f/s, R_g %.4f, %zu evaluations "
                      "(at most %zu cold)\n",
                      i, v->id, v->own.rate, v->against.rate, v->gain, v->evaluations,
                      v->evaluations_cold);
        assert_true(v->computed);
        assert_int_equal(v->own.status, AC_SEARCH_BOUNDARY_FOUND);
        assert_true(v->evaluations <= v->evaluations_cold);
    }
    /* at the design's 50/s the worst delay (T = 0.2 s) brings the function to its fluid
       capacity C / T = 50/s: the fluid throttle share max(0, 1 - C / (lambda T)) is 0 */
    assert_double_close(st->variants[0].worst_score, 0.0, 0.01, 0.0);
    assert_double_close(st->variants[1].worst_score, 0.0, 0.01, 0.0);
    /* SnapStart changes no throttle: the combination is twice the concurrency */
    assert_double_close(st->variants[3].own.rate, 20.0 / (0.3 * 0.2), 0.0, 0.015);
    assert_double_close(st->variants[3].gain, 1.0, 0.03, 0.0);
    assert_double_close(st->variants[0].own.rate, 10.0 / (0.3 * 0.2), 0.0, 0.015);
    assert_double_close(st->variants[1].own.rate, 20.0 / (0.3 * 0.2), 0.0, 0.015);
    assert_double_close(st->variants[1].against.rate, 20.0 / (0.3 * 0.2), 0.0, 0.015);
    assert_double_close(st->variants[1].gain, 1.0, 0.03, 0.0);
    assert_double_close(st->variants[2].gain, 0.0, 0.02, 0.0);
    assert_true(st->variants[1].own.rate <= st->variants[1].against.rate);
    assert_true(st->evaluations <= st->budget);
    assert_int_equal(st->nfaults, 1);
    assert_double_close(st->baseline_worst[0].value, 0.1, 0.0, 0.02);
    {
        /* the warm start and the early stop, measured against cold full probes: the same
           boundaries (to the bisection's tolerance and the search's 1.5%), fewer evaluations */
        ac_search_study *cold = NULL;
        size_t warm_evals = 0, cold_evals = 0;
        o.warm_start = 0;
        assert_int_equal(ac_search_study_run(f.m, &o, &cold, &f.err), AC_OK);
        for (size_t i = 1; i < 4; i++) {
            assert_double_close(cold->variants[i].own.rate, st->variants[i].own.rate, 0.0, 0.015);
            warm_evals += st->variants[i].evaluations;
            cold_evals += cold->variants[i].evaluations;
            /* the budget check's bound of a variant is attained by a cold one */
            assert_int_equal(cold->variants[i].evaluations, 751);
        }
        print_message("mitigations: %zu evaluations warm, %zu cold (%.0f%% saved)\n", warm_evals,
                      cold_evals, 100.0 * (1.0 - (double)warm_evals / (double)cold_evals));
        assert_true(warm_evals < cold_evals);
        ac_search_study_free(cold);
        o.warm_start = 1;
    }
    ac_search_study_free(st);
    /* the baseline could need 16 probes x (40 + 4 + 2) = 736 and spends them all (the bound
       is attained: 15 probes and the search at the design's load, each a full GA and a full
       polish): the variant's 15 x 46 + 15 + 46 = 751 do not fit in the 64 left */
    o.max_evaluations = 800;
    o.mitigation = 1;
    assert_int_equal(ac_search_study_run(f.m, &o, &st, &f.err), AC_OK);
    assert_int_equal(st->nvariants, 2);
    assert_true(st->variants[0].computed);
    assert_int_equal(st->variants[1].mitigation, 1);
    assert_false(st->variants[1].computed);
    assert_non_null(strstr(st->variants[1].why, "budget"));
    assert_non_null(strstr(st->variants[1].why, "could need 751 evaluations and 64 of"));
    assert_int_equal(st->variants[0].evaluations, 736);
    assert_true(isnan(st->variants[1].gain));
    assert_true(st->evaluations <= st->budget);
    ac_search_study_free(st);
    /* the budget binds the baseline too: below its 736, nothing is computed, nothing spent */
    o.max_evaluations = 735;
    assert_int_equal(ac_search_study_run(f.m, &o, &st, &f.err), AC_OK);
    assert_false(st->variants[0].computed);
    assert_non_null(strstr(st->variants[0].why, "could need 736 evaluations"));
    assert_false(st->variants[1].computed);
    assert_non_null(strstr(st->variants[1].why, "the baseline was not"));
    assert_int_equal(st->evaluations, 0);
    assert_true(isnan(st->variants[0].gain));
    ac_search_study_free(st);
    ac_search_study_free(NULL);
    o.mitigation = 7;
    assert_int_equal(ac_search_study_run(f.m, &o, &st, &f.err), AC_EINVAL);
    fx_free(&f);
}

/*
 * The variants of a study: with 4 simple mitigations every combination of two or more (11)
 * less the declared combine's set {more, pw} (10), those holding SnapStart and provisioned
 * concurrency on one function listed but excluded (AWS refuses them: 1 pair, 2 triples, the
 * quadruple); with a fifth, the declared ones and every pair (10 less the declared 1), said so.
 * A budget that holds the baseline alone leaves the others not searched.
 */
static void test_study_variants(void **state)
{
    static const char mits[] =
        "  <mitigation id='more' kind='set' target='fn' attribute='concurrency' value='20'/>\n"
        "  <mitigation id='snap' kind='snapstart' target='fn' restore='10ms'/>\n"
        "  <mitigation id='pc' kind='provisioned-concurrency' target='fn' amount='5'/>\n"
        "  <mitigation id='pw' kind='pre-warming' target='fn' amount='5'/>\n"
        "  <mitigation id='both' kind='combine' of='more pw'/>\n";
    static const char fifth[] =
        "  <mitigation id='keep' kind='set' target='fn' attribute='keep-alive' value='2h'/>\n";
    const char *cut = strstr(thr_xml, "  <mitigation id='more'");
    const char *rest = strstr(thr_xml, "  <faults");
    char xml[4096];
    ac_search_study_options o;
    ac_search_study *st = NULL;
    (void)state;
    for (int five = 0; five < 2; five++) {
        size_t excluded = 0, combos = 0;
        fx f;
        snprintf(xml, sizeof xml, "%.*s%s%s%s", (int)(cut - thr_xml), thr_xml, mits,
                 five ? fifth : "", rest);
        fx_parse(&f, xml);
        ac_search_study_options_init(&o);
        o.search.budget = 4;
        o.search.population = 4;
        o.max_evaluations = 100; /* the baseline's 16 x (4 + 2) = 96, no variant's 112 */
        if (ac_search_study_run(f.m, &o, &st, &f.err) != AC_OK)
            fail_msg("%s", f.err.message);
        assert_int_equal(st->nvariants, five ? 1 + 6 + 9 : 1 + 5 + 10);
        assert_int_equal(st->all_subsets, !five);
        assert_non_null(strstr(st->scope, five ? "every pair" : "every combination"));
        assert_true(st->variants[0].computed);
        for (size_t i = 1; i < st->nvariants; i++) {
            const ac_search_variant *v = &st->variants[i];
            assert_false(v->computed);
            combos += v->mitigation == AC_NONE;
            excluded += v->excluded != 0;
            if (v->excluded)
                assert_non_null(strstr(v->why, "SnapStart"));
            else
                assert_non_null(strstr(v->why, "budget"));
            if (v->mitigation == AC_NONE)
                assert_false(v->nparts == 2 && strcmp(v->id, "more+pw") == 0);
        }
        assert_int_equal(combos, five ? 9 : 10);
        assert_int_equal(excluded, five ? 1 : 4);
        assert_string_equal(st->variants[6].id, five ? "keep" : "more+snap");
        ac_search_study_free(st);
        fx_free(&f);
    }
}

/* The exit status of tests/validate_exports.py KIND on `text` (the published formats'
 * required keys and types: the FIS CreateExperimentTemplate request, the Chaos Toolkit
 * experiment); -1 when python3 is not there (the check is then skipped). */
static int validate_export(const char *kind, const char *text)
{
    char path[] = "/tmp/ac_sres_exp_XXXXXX", cmd[1024];
    int fd, rc;
    FILE *fp;
    if (system("python3 -c 'import json' >/dev/null 2>&1") != 0)
        return -1;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    fp = fdopen(fd, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "python3 %s/tests/validate_exports.py %s %s", AC_SOURCE_DIR, kind,
             path);
    rc = system(cmd);
    unlink(path);
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* The exports carry every fault: the FIS actions with their parameters and windows (a link's
 * delay and partial capacity-loss by SSM documents on its sending node, a cut by
 * disrupt-connectivity on its subnets), the ones FIS has no action for in a tag, and the Chaos
 * Toolkit experiment every fault and a steady-state hypothesis of the objective's tau. */
static void test_export(void **state)
{
    static const char xml[] = "<architecture name='x' format='1'>\n"
                              "  <workload><source id='s' to='fn' rate='5/s'/></workload>\n"
                              "  <function id='fn' concurrency='10' duration='100ms'/>\n"
                              "  <pool id='db' servers='4' service-rate='100/s'/>\n"
                              "  <route from='fn' to='db'/>\n"
                              "  <link id='net' from='fn' to='db' capacity='100/s'/>\n"
                              "  <faults>\n"
                              "    <fault target='db' servers-down='0..2'/>\n"
                              "    <objective tau='0.6'>\n"
                              "      <term metric='error-rate' target='db' norm='0.2'/>\n"
                              "      <term metric='p95-latency'/>\n"
                              "    </objective>\n"
                              "  </faults>\n"
                              "</architecture>\n";
    ac_transient_fault plan[7] = {{0, AC_TRANSIENT_FAULT_DELAY, 0.25, 10.0, 70.0},
                                  {0, AC_TRANSIENT_FAULT_FAIL_PROB, 0.128, 0.0, INFINITY},
                                  {1, AC_TRANSIENT_FAULT_SERVERS_DOWN, 2.0, 30.0, 45.5},
                                  {0, AC_TRANSIENT_FAULT_COLD_START, 1.5, 0.0, INFINITY},
                                  {2, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 0.4, 0.0, 20.0},
                                  {2, AC_TRANSIENT_FAULT_DELAY, 0.05, 0.0, 20.0},
                                  {2, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 1.0, 50.0, 60.0}};
    ac_search_term_value terms[2] = {{0.01, 0.2, 0.5, 0.05}, {0.3, 0.12, 0.5, 1.0}};
    char *buf = NULL;
    size_t len = 0;
    FILE *fp;
    fx f;
    (void)state;
    fx_parse(&f, xml);
    fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    assert_int_equal(ac_search_export_fis(fp, f.m, plan, 7, 120.0, 0.83, &f.err), AC_OK);
    fclose(fp);
    assert_non_null(strstr(buf, "\"actionId\": \"aws:lambda:invocation-add-delay\""));
    assert_non_null(strstr(buf, "\"startupDelayMilliseconds\": \"250\""));
    assert_non_null(strstr(buf, "\"duration\": \"PT60S\"")); /* 10 s .. 70 s */
    assert_non_null(strstr(buf, "\"duration\": \"PT10S\"")); /* its wait */
    assert_non_null(strstr(buf, "\"actionId\": \"aws:lambda:invocation-error\""));
    assert_non_null(strstr(buf, "\"invocationPercentage\": \"13\""));
    assert_non_null(strstr(buf, "\"duration\": \"PT120S\"")); /* to the horizon */
    assert_non_null(strstr(buf, "\"selectionMode\": \"COUNT(2)\""));
    assert_non_null(strstr(buf, "\"startInstancesAfterDuration\": \"PT16S\""));
    assert_non_null(strstr(buf, "\"archcheck:not-exported\": \"fn.cold-start = 1.5 s"));
    assert_non_null(strstr(buf, "\"startAfter\": [\n"));
    assert_non_null(strstr(buf, "\"wait-db-3\"\n"));
    /* the link: 40% lost as packet loss, 50 ms as latency toward db, the cut on fn's subnets */
    assert_non_null(strstr(buf, "AWSFIS-Run-Network-Packet-Loss-Sources"));
    assert_non_null(strstr(buf, "\\\"LossPercent\\\":\\\"40\\\",\\\"Sources\\\":\\\"db\\\""));
    assert_non_null(strstr(buf, "AWSFIS-Run-Network-Latency-Sources"));
    assert_non_null(strstr(buf, "\\\"DelayMilliseconds\\\":\\\"50\\\",\\\"Sources\\\":\\\"db\\\""));
    assert_non_null(strstr(buf, "\"actionId\": \"aws:network:disrupt-connectivity\""));
    assert_non_null(strstr(buf, "\"resourceType\": \"aws:ec2:subnet\""));
    assert_non_null(strstr(buf, "\"Subnets\": \"target-net-7\""));
    assert_non_null(strstr(buf, "\"wait-net-7\""));
    assert_non_null(strstr(buf, "net.capacity-loss = 0.4 from 0 s to 20 s"));
    assert_null(strstr(buf, "not-exported\": \"net"));
    {
        /* valid against the FIS request's required keys and types; without its role, not */
        int v = validate_export("fis", buf);
        char *role = strstr(buf, "\"roleArn\"");
        if (v < 0) {
            free(buf);
            fx_free(&f);
            skip();
        }
        assert_int_equal(v, 0);
        assert_non_null(role);
        memcpy(role, "\"roleAr_\"", 9);
        assert_int_equal(validate_export("fis", buf), 1);
    }
    free(buf);
    fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    assert_int_equal(ac_search_export_chaostoolkit(fp, f.m, plan, 7, terms, 2, 120.0, 0.83, &f.err),
                     AC_OK);
    fclose(fp);
    assert_non_null(strstr(buf, "\"func\": \"start_experiment\""));
    assert_non_null(strstr(buf, "\"func\": \"stop_experiments_by_tags\""));
    assert_non_null(strstr(buf, "\"attribute\": \"cold-start\""));
    assert_non_null(strstr(buf, "\"attribute\": \"servers-down\""));
    assert_non_null(strstr(buf, "\"target\": \"net\",\n"));
    assert_non_null(strstr(buf, "\"target_kind\": \"link\""));
    assert_non_null(strstr(buf, "\"after\": 120"));
    /* the hypothesis: db's error rate within tau x 0.2 = 0.12; the end-to-end p95 (no norm)
     * within (1 + tau) x its no-fault 0.12 s = 0.192 s */
    assert_non_null(strstr(buf, "\"steady-state-hypothesis\""));
    assert_non_null(strstr(buf, "\"name\": \"term-1-error-rate-db\""));
    assert_non_null(strstr(buf, "\"range\": [\n"));
    assert_non_null(strstr(buf, "0.12\n"));
    assert_non_null(strstr(buf, "\"name\": \"term-2-p95-latency-end-to-end\""));
    assert_non_null(strstr(buf, "0.192\n"));
    assert_int_equal(validate_export("chaostoolkit", buf), 0);
    {
        char *m = strstr(buf, "\"method\"");
        assert_non_null(m);
        memcpy(m, "\"metho_\"", 8);
        assert_int_equal(validate_export("chaostoolkit", buf), 1);
        memcpy(m, "\"method\"", 8);
        m = strstr(buf, "\"steady-state-hypothesis\"");
        assert_non_null(m);
        m[1] = 'S'; /* the hypothesis is required */
        assert_int_equal(validate_export("chaostoolkit", buf), 1);
        m[1] = 's';
        m = strstr(buf, "\"tolerance\"");
        assert_non_null(m);
        m[1] = 'T'; /* and every probe's tolerance */
        assert_int_equal(validate_export("chaostoolkit", buf), 1);
    }
    free(buf);
    fx_free(&f);
}

/* The whole file at `path` (the test fails when it cannot be read). */
static char *slurp(const char *path)
{
    char *s = ac_test_read_file(path);
    assert_non_null(s);
    return s;
}

/* End to end: the confirmation, the study and the exports of `search`, the same output for
 * --jobs 1 and 2, and bad options refused. */
static void test_command(void **state)
{
    char path[] = "/tmp/ac_sres_XXXXXX", fis[] = "/tmp/ac_sres_fis_XXXXXX";
    ac_test_run a, b;
    char *text;
    (void)state;
    ac_test_write_tmp(path, thr_xml);
    ac_test_write_tmp(fis, "");
    a = run_ac("search", "--format", "json", "--mitigation", "all", "--export-fis", fis, path,
               NULL);
    b = run_ac("search", "--format", "json", "--mitigation", "all", "--jobs", "2", path, NULL);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    assert_string_equal(a.out, b.out);
    assert_non_null(strstr(a.out, "\"confirmation\": {\n      \"computed\": true"));
    assert_non_null(strstr(a.out, "\"id\": \"more\""));
    assert_non_null(strstr(a.out, "\"resilience_gain\": "));
    assert_non_null(strstr(a.out, "\"boundary_against_baseline_worst_case\": "));
    text = slurp(fis);
    assert_non_null(strstr(text, "aws:lambda:invocation-add-delay"));
    free(text);
    ac_test_run_free(&a);
    ac_test_run_free(&b);
    /* --report: the two pages, the same bytes for the same seed */
    {
        char p1[] = "/tmp/ac_sres_pdf_XXXXXX", p2[] = "/tmp/ac_sres_pdf_XXXXXX";
        char *x, *y;
        ac_test_write_tmp(p1, "");
        ac_test_write_tmp(p2, "");
        a = run_ac("search", "--confirm", "0", "--report", p1, path, NULL);
        b = run_ac("search", "--confirm", "0", "--report", p2, path, NULL);
        assert_int_equal(a.status, 0);
        assert_int_equal(b.status, 0);
        x = slurp(p1);
        y = slurp(p2);
        assert_memory_equal(x, "%PDF-", 5);
        {
            struct stat s1, s2;
            assert_int_equal(stat(p1, &s1), 0);
            assert_int_equal(stat(p2, &s2), 0);
            assert_int_equal(s1.st_size, s2.st_size);
            assert_memory_equal(x, y, (size_t)s1.st_size);
        }
        assert_non_null(strstr(x, "/Count 2"));
        free(x);
        free(y);
        ac_test_run_free(&a);
        ac_test_run_free(&b);
        /* --report-seeds 3: the same two pages, identical for the same seed; 0 and 51 refused */
        a = run_ac("search", "--confirm", "0", "--report-seeds", "3", "--report", p1, path, NULL);
        b = run_ac("search", "--confirm", "0", "--report-seeds", "3", "--report", p2, path, NULL);
        assert_int_equal(a.status, 0);
        assert_int_equal(b.status, 0);
        x = slurp(p1);
        y = slurp(p2);
        assert_non_null(strstr(x, "/Count 2"));
        {
            struct stat s1, s2;
            assert_int_equal(stat(p1, &s1), 0);
            assert_int_equal(stat(p2, &s2), 0);
            assert_int_equal(s1.st_size, s2.st_size);
            assert_memory_equal(x, y, (size_t)s1.st_size);
        }
        free(x);
        free(y);
        ac_test_run_free(&a);
        ac_test_run_free(&b);
        a = run_ac("search", "--report-seeds", "0", path, NULL);
        assert_int_equal(a.status, 2);
        ac_test_run_free(&a);
        a = run_ac("search", "--report-seeds", "51", path, NULL);
        assert_int_equal(a.status, 2);
        ac_test_run_free(&a);
        unlink(p1);
        unlink(p2);
    }
    /* compare --search: the rows of the study, against the fluid closed form C / (0.3 T) */
    a = run_ac("compare", "--search", "-f", "json", path, NULL);
    assert_int_equal(a.status, 0);
    assert_double_close(ac_test_json_row_number(a.out, "resilience_boundary", "value", 0),
                        10.0 / (0.3 * 0.2), 0.0, 0.015);
    assert_double_close(ac_test_json_row_number(a.out, "resilience_boundary", "value", 1),
                        20.0 / (0.3 * 0.2), 0.0, 0.015);
    assert_double_close(ac_test_json_row_number(a.out, "resilience_gain", "value", 1), 1.0, 0.03,
                        0.0);
    assert_double_close(ac_test_json_row_number(a.out, "worst_case_score", "value", 0), 0.0, 0.01,
                        0.0);
    ac_test_run_free(&a);
    a = run_ac("compare", "-f", "json", path, NULL);
    assert_null(strstr(a.out, "resilience_boundary"));
    ac_test_run_free(&a);
    a = run_ac("search", "--mitigation", "nope", path, NULL);
    assert_int_equal(a.status, 3);
    assert_non_null(strstr(a.err, "no mitigation 'nope'"));
    ac_test_run_free(&a);
    a = run_ac("search", "--confirm", "1", path, NULL);
    assert_int_equal(a.status, 2);
    ac_test_run_free(&a);
    a = run_ac("search", "--export-fis", "/nonexistent-dir/x.json", "--confirm", "0", path, NULL);
    assert_int_equal(a.status, 2);
    assert_non_null(strstr(a.err, "x.json"));
    ac_test_run_free(&a);
    unlink(path);
    unlink(fis);
}

/* How many times `needle` occurs in `s`. */
static size_t count_of(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/*
 * compare on the passing model of test_check_resilience (variants: the baseline, 'more' and
 * 'snap'). Without --search no <resilience> requirement is computed: each of the 2 x 3 cells
 * is INCONCLUSIVE, never PASS, each variant's verdict inconclusive, and the note says why.
 * With --search they are checked as by check, against Erlang-B: the baseline and 'snap' (a
 * 10 ms restore on a function that never starts cold, keep-alive 1 h) as there; 'more'
 * (C = 20) at 100/s B(20, 20) = 0.16, and 'more' set again at 250/s B(20, 50) = 0.61, below
 * tau 0.7: every cell PASS.
 */
static void compare_resilience(const char *pass)
{
    ac_test_run a = run_ac("compare", "-f", "json", pass, NULL);
    const char *row;
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "\"note\": \"the <resilience> requirements are INCONCLUSIVE "
                                  "in every variant: not computed: compare runs the worst-case "
                                  "search only with --search\""));
    row = strstr(a.out, "\"name\": \"resilience of the design at 100/s\"");
    assert_non_null(row);
    assert_int_equal(count_of(a.out, "\"status\": \"inconclusive\""), 6);
    assert_int_equal(count_of(a.out, "\"verdict\": \"inconclusive\""), 3);
    ac_test_run_free(&a);
    a = run_ac("compare", pass, NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "\nnote: the <resilience> requirements are INCONCLUSIVE"));
    ac_test_run_free(&a);
    a = run_ac("compare", "--search", "-f", "json", pass, NULL);
    assert_int_equal(a.status, 0);
    assert_null(strstr(a.out, "\"note\""));
    assert_int_equal(count_of(a.out, "\"status\": \"inconclusive\""), 0);
    assert_int_equal(count_of(a.out, "\"verdict\": \"pass\""), 3);
    ac_test_run_free(&a);
}

/*
 * <resilience> in `check`: the worst case at the minimum boundary, confirmed by simulation.
 * The worst delay (100 ms) makes the function M/G/10/10 at a = lambda 0.2 s, its throttled
 * share Erlang-B: at 100/s B(10, 20) = 0.53 < tau 0.7 (PASS), at 200/s B(10, 40) = 0.76 >=
 * tau (FAIL, AC301), with twice the concurrency at 250/s B(20, 50) = 0.61 (PASS). Without the
 * search: INCONCLUSIVE (AC900, exit 3); an analysis budget too small for one search: the same.
 */
static void test_check_resilience(void **state)
{
    char path[] = "/tmp/ac_sres_XXXXXX", pass[] = "/tmp/ac_sres_XXXXXX";
    char xml[4096];
#define REQ(extra)                                                                                 \
    "  <requirements>\n"                                                                           \
    "    <resilience tau='0.7' min-boundary='100/s'/>\n"                                           \
    "    <resilience tau='0.7' min-boundary='250/s' mitigation='more'/>\n" extra                   \
    "  </requirements>\n"                                                                          \
    "</architecture>\n"
    size_t head = (size_t)(strstr(thr_xml, "</architecture>") - thr_xml);
    ac_test_run a;
    (void)state;
    snprintf(xml, sizeof xml, "%.*s%s", (int)head, thr_xml,
             REQ("    <resilience tau='0.7' min-boundary='200/s'/>\n"));
    ac_test_write_tmp(path, xml);
    snprintf(xml, sizeof xml, "%.*s%s", (int)head, thr_xml, REQ(""));
    ac_test_write_tmp(pass, xml);
    a = run_ac("check", "--format", "json", path, NULL);
    assert_int_equal(a.status, 1);
    assert_non_null(strstr(a.out, "\"rule\": \"AC301\""));
    assert_non_null(strstr(a.out, "resilience of the design at 200/s"));
    assert_null(strstr(a.out, "AC900"));
    {
        /* the fluid score (0.76 at Erlang-B's a = 40, the fluid's 1 - C/a = 0.75) has no
           stated error: null, never 0 */
        const char *ck = strstr(a.out, "\"name\": \"resilience of the design at 200/s\"");
        const char *end = ck != NULL ? strchr(ck, '}') : NULL;
        const char *e = ck != NULL ? strstr(ck, "\"expected_absolute_error\": null") : NULL;
        assert_non_null(end);
        assert_true(e != NULL && e < end);
        e = strstr(ck, "\"expected_relative_error\": null");
        assert_true(e != NULL && e < end);
    }
    ac_test_run_free(&a);
    {
        /* the PDF says what such a PASS is worth: the search's worst case, not every plan */
        char pdf[64], *text;
        snprintf(pdf, sizeof pdf, "%s.pdf", pass);
        a = run_ac("check", "--report", pdf, pass, NULL);
        assert_int_equal(a.status, 0);
        assert_non_null(strstr(a.out, "checks: 3 pass, 0 fail, 0 inconclusive"));
        ac_test_run_free(&a);
        text = ac_test_poppler("pdftotext", pdf, 0);
        if (text != NULL) { /* poppler-utils installed */
            size_t k = 0;
            for (size_t i = 0; text[i] != '\0'; i++)
                if (text[i] != ' ' && text[i] != '\n')
                    text[k++] = text[i];
            text[k] = '\0';
            assert_non_null(strstr(text, "AresiliencePASSholdsagainsttheworstcasethesearch"
                                         "found,confirmedbysimulation:thegeneticsearchisnot"
                                         "exhaustive,andaworsefaultplanisnotexcluded."));
            assert_non_null(strstr(text, "(nostatederror)"));
            free(text);
        }
        unlink(pdf);
    }
    a = run_ac("check", "--no-search", pass, NULL);
    assert_int_equal(a.status, 3);
    assert_non_null(strstr(a.out, "skipped (--no-search) [AC900]"));
    ac_test_run_free(&a);
    compare_resilience(pass);
    /* solve runs no search: the check is INCONCLUSIVE with the reason, never PASS */
    a = run_ac("solve", "--format", "json", pass, NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "not computed: solve does not run the worst-case search"));
    {
        const char *ck = strstr(a.out, "\"name\": \"resilience of the design at 100/s\"");
        const char *st = "\"status\": \"inconclusive\"";
        assert_non_null(ck);
        assert_true(strncmp(strstr(ck, "\"status\": "), st, strlen(st)) == 0);
    }
    ac_test_run_free(&a);
    /* the confirmation's event budget: the first look's 2 warm-ups of 100 x 0.1 s + the
       keep-alive 3600 s = 3610 s at 100/s spend the source's 100 arrivals/s and the
       function's completions, 100 (1 - B(10, 10)) = 78.5/s, and the horizon's 2 x 20 s x
       100/s requests: 1.29e6 events (the pilot's 60 s count them within 3%: ~10,700 events,
       the start-up ~1 s), over a budget of 10^6: not run, said so */
    a = run_ac("check", "--confirm-events", "1000000", pass, NULL);
    assert_int_equal(a.status, 3);
    {
        const char *at = strstr(a.out, "would spend about ");
        double need = 2.0 * (3610.0 * 100.0 * (2.0 - ac_test_erlang_b(10, 10.0)) + 20.0 * 100.0);
        assert_non_null(at);
        assert_double_close(strtod(at + strlen("would spend about "), NULL), need, 0.0, 0.03);
        assert_non_null(strstr(a.out, "warm-ups of 3610 s"));
    }
    assert_non_null(strstr(a.out, "(--confirm-events)"));
    ac_test_run_free(&a);
    a = run_ac("search", "--confirm-events", "100", pass, NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "not confirmed by simulation"));
    assert_non_null(strstr(a.out, "event budget"));
    ac_test_run_free(&a);
    a = run_ac("search", "--confirm-events", "0", pass, NULL);
    assert_int_equal(a.status, 2);
    ac_test_run_free(&a);
    unlink(path);
    unlink(pass);
}

/* The number after the first `key` in `text` (NAN when absent). */
static double number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p != NULL ? strtod(p + strlen(key), NULL) : NAN;
}

/*
 * search confirms its worst case as check does: the same sequential test against tau (at
 * most 10 replications, looks at 2, 6 and 10), so at one event budget a worst case that
 * check confirms is confirmed by search too, with the same numbers. On thr_xml at 50/s the
 * worst delay, 100 ms, makes a = 10: the simulated throttled share is Erlang-B B(10, 10) =
 * 0.215. A replication (a warm-up of 3610 s at 50/s, about 3610 x 50 x (2 - B) + 20 x 50 =
 * 3.2e5 events) fits a share of 2e6 / 2 of the budget, not 2e6 / 10: search's old fixed 10
 * replications said "not confirmed: event budget exhausted" here (as on
 * serverless-pipeline.xml at the default 5e7, where check's first look fits).
 */
static void test_search_confirms_as_check(void **state)
{
    char path[] = "/tmp/ac_sres_XXXXXX", req[] = "/tmp/ac_sres_XXXXXX", xml[4096];
    size_t head = (size_t)(strstr(thr_xml, "</architecture>") - thr_xml);
    double score, ci, b10 = ac_test_erlang_b(10, 10.0);
    const char *conf;
    ac_test_run a, b;
    (void)state;
    ac_test_write_tmp(path, thr_xml);
    snprintf(xml, sizeof xml,
             "%.*s  <requirements><resilience tau='0.7' min-boundary='50/s'/></requirements>\n"
             "</architecture>\n",
             (int)head, thr_xml);
    ac_test_write_tmp(req, xml);
    a = run_ac("search", "--format", "json", "--confirm-events", "2000000", path, NULL);
    b = run_ac("check", "--format", "json", "--confirm-events", "2000000", req, NULL);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    conf = strstr(a.out, "\"confirmation\": {\n      \"computed\": true");
    assert_non_null(conf);
    /* stopped at the first look: 0.215 is far below tau; its interval at 1 - 0.05 / 3 */
    assert_non_null(strstr(conf, "\"replications\": 2,\n      \"looks\": 1,\n"
                                 "      \"looks_planned\": 3,"));
    assert_double_close(number_after(conf, "\"level\": "), 1.0 - 0.05 / 3.0, 1e-15, 0.0);
    assert_true(number_after(conf, "\"events\": ") <= 2e6);
    score = number_after(conf, "\"score\": ");
    ci = number_after(conf, "\"score_ci95\": ");
    print_message("search confirms %.5f +- %.5f vs Erlang-B %.5f\n", score, ci, b10);
    assert_true(ci > 0.0 && fabs(score - b10) <= ci);
    /* check's confirmation of the same worst case: the same estimate, bit for bit */
    assert_double_close(number_after(b.out, "\"simulation_value\": "), score, 0.0, 0.0);
    assert_double_close(number_after(b.out, "\"simulation_value_ci95\": "), ci, 0.0, 0.0);
    ac_test_run_free(&a);
    ac_test_run_free(&b);
    /* the text says which look it stopped at */
    a = run_ac("search", "--confirm-events", "2000000", path, NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "(98.33%, 2 replications, look 1 of 3, "));
    ac_test_run_free(&a);
    unlink(path);
    unlink(req);
}

/*
 * The analysis' search budget: one <resilience> search of the file's 40 evaluations costs at
 * most 40 + 4 + 2 x 1 (the GA, then the polish's tenth and two moves per gene) = 46. With 45
 * it is refused before anything is computed (INCONCLUSIVE, the bound said), with 46 it runs
 * (the worst delay at 200/s: Erlang-B(10, 40) = 0.76 >= tau, FAIL) and spends at most 46.
 */
static void test_analysis_search_budget(void **state)
{
    static const char req[] = "  <requirements>\n"
                              "    <resilience tau='0.7' min-boundary='200/s'/>\n"
                              "  </requirements>\n"
                              "</architecture>\n";
    size_t head = (size_t)(strstr(thr_xml, "</architecture>") - thr_xml);
    char xml[4096];
    fx f;
    (void)state;
    snprintf(xml, sizeof xml, "%.*s%s", (int)head, thr_xml, req);
    fx_parse(&f, xml);
    for (size_t budget = 45; budget <= 46; budget++) {
        ac_analysis_options ao;
        ac_analysis *an = NULL;
        ac_diag_list d;
        int found = 0;
        ac_diag_list_init(&d);
        ac_analysis_options_init(&ao);
        ao.validate = AC_VALIDATE_NEVER;
        ao.search_budget = budget;
        assert_int_equal(ac_analysis_run(f.m, &ao, &an, &d, &f.err), AC_OK);
        for (size_t i = 0; i < an->nchecks; i++)
            if (strncmp(an->checks[i].name, "resilience", 10) == 0) {
                found = 1;
                assert_int_equal(an->checks[i].status,
                                 budget == 45 ? AC_CHECK_INCONCLUSIVE : AC_CHECK_FAIL);
            }
        assert_true(found);
        found = 0;
        for (size_t i = 0; i < d.count; i++) {
            const char *msg = d.items[i].message, *at = strstr(msg, " evaluations) scores");
            if (budget == 45 && strstr(msg, "its search could need 46 evaluations") != NULL)
                found = 1;
            if (budget == 46 && strcmp(d.items[i].rule, "AC301") == 0 && at != NULL) {
                while (at > msg && at[-1] >= '0' && at[-1] <= '9')
                    at--;
                assert_true(strtoul(at, NULL, 10) <= 46);
                found = 1;
            }
        }
        assert_true(found);
        ac_analysis_free(an);
        ac_diag_list_clear(&d);
    }
    fx_free(&f);
}

/* Does the plan of gene g integrate on model m within the work budget `budget`? (a fresh
 * objective at scale 16, as below; 1 integrates, 0 runs out of the budget) */
static int integrates(fx *f, double budget, double g)
{
    ac_transient_options to;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_problem pr;
    double score = 0.0;
    size_t limit;
    ac_transient_options_init(&to);
    to.max_work = budget;
    assert_int_equal(ac_search_space_new(f->m, 20.0, &sp, &f->err), AC_OK);
    assert_int_equal(ac_search_objective_new(f->m, sp, &to, 16.0, 1, &obj, &f->err), AC_OK);
    assert_int_equal(ac_search_objective_set_scale(obj, 4.0, &f->err), AC_OK);
    pr = ac_search_objective_problem(obj);
    assert_int_equal(pr.eval(pr.ctx, 0, &g, &score, &f->err), AC_OK);
    limit = ac_search_objective_failures_limit(obj);
    assert_int_equal(ac_search_objective_failures(obj), limit); /* no other failure */
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    return limit == 0;
}

/* The least work budget (steps x states, an integer) at which gene g's plan integrates, by
 * bisection in [1, hi] (hi integrates: asserted). */
static double least_budget(fx *f, double g, double hi)
{
    double lo = 0.0; /* lo fails, hi integrates */
    assert_true(integrates(f, hi, g));
    while (hi - lo > 1.0) {
        double mid = floor(0.5 * (lo + hi));
        if (integrates(f, mid, g))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* thr_xml's fault, the 100 ms delay from a time in the space: at 2 s .. 22 s (gene 0: from
 * 2 s, the worst; gene 1: past the 20 s horizon, no fault at all). */
static const char thr_at_fault[] = "<fault target='fn' delay='100ms..100ms' at='2s..22s'/>";

/*
 * Plans the transient cannot integrate are no evidence of harmlessness. On thr_xml at
 * 200/s with the 100 ms delay from a time `at` in [2 s, 22 s): the plan past the horizon
 * (gene 1) has no fault and a fluid throttle share 1 - C / (lambda T) = 1 - 10 / (200 x 0.1)
 * = 0.5, below tau 0.7; the delay from 2 s (gene 0) is the worst case (Erlang-B(10, 40) =
 * 0.76 >= tau in steady state; the fluid scores 0.72). With a work budget at which only the
 * fault-free plan integrates, a search that scored the failed plans 0 and kept the
 * integrated one would PASS a requirement that FAILs. Instead: the failures are counted (-1
 * each, below every integrated score), the boundary says its low side rests on failed
 * plans, and the requirement is INCONCLUSIVE with the count; with the default budget it
 * FAILs (AC301), as the closed form says.
 * The budget is the fault-free plan's least, bisected on this build (w_clear), not a fixed
 * number: a plan whose fault starts inside the horizon restarts the integrator there (a kink
 * of the drift: CVODE again from order 1 and a short step) and follows a new transient, so
 * it needs more steps than the plan with neither (asserted: w_fault > w_clear; measured 126
 * against 84 = 12 steps x 7 states, and 147 against 84 on the build before the LU of
 * solver/transient_lu.c, where this version passes too). The previous version put the fault over
 * the whole horizon and relied on the 100 ms delay taking a step more than no delay at a fixed
 * budget of 95: it broke whenever the settle's step count moved by one (after the LU of
 * solver/transient_lu.c both need 84).
 */
static void test_failed_integrations(void **state)
{
    static const char req[] = "  <requirements>\n"
                              "    <resilience tau='0.7' min-boundary='200/s'/>\n"
                              "  </requirements>\n"
                              "</architecture>\n";
    const char *fault = strstr(thr_xml, "<fault target='fn'"), *fault_end = strstr(fault, "/>") + 2;
    const char *tail = strstr(thr_xml, "</architecture>");
    char xml[4096];
    ac_transient_options to;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_problem pr;
    ac_search_boundary b;
    ac_analysis_options ao;
    double g = 0.0, score = 0.0, w_clear, w_fault;
    fx f;
    (void)state;
    snprintf(xml, sizeof xml, "%.*s%s%.*s%s", (int)(fault - thr_xml), thr_xml, thr_at_fault,
             (int)(tail - fault_end), fault_end, req);
    fx_parse(&f, xml);
    w_clear = least_budget(&f, 1.0, 1e4);
    w_fault = least_budget(&f, 0.0, 1e4);
    print_message("least work budgets: %.0f without a fault, %.0f with the delay from 2 s\n",
                  w_clear, w_fault);
    assert_true(w_fault > w_clear);
    ac_transient_options_init(&to);
    to.max_work = w_clear;
    assert_int_equal(ac_search_space_new(f.m, 20.0, &sp, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_new(f.m, sp, &to, 16.0, 1, &obj, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_set_scale(obj, 4.0, &f.err), AC_OK);
    pr = ac_search_objective_problem(obj);
    assert_int_equal(pr.eval(pr.ctx, 0, &g, &score, &f.err), AC_OK);
    assert_double_close(score, -1.0, 0.0, 0.0);
    assert_int_equal(ac_search_objective_failures(obj), 1);
    assert_int_equal(ac_search_objective_failures_limit(obj), 1);
    g = 1.0;
    assert_int_equal(pr.eval(pr.ctx, 0, &g, &score, &f.err), AC_OK);
    assert_double_close(score, 0.5, 1e-3, 0.0);
    assert_int_equal(ac_search_objective_failures(obj), 1);
    {
        ac_search_options so;
        ac_search_options_init(&so);
        so.budget = 40;
        so.population = 10;
        assert_int_equal(
            ac_search_boundary_find(f.m, obj, &so, 0.7, 1.0 / 16.0, 16.0, 1e-3, &b, &f.err), AC_OK);
    }
    print_message("boundary %.4g/s, %zu failures, %zu below tau\n", b.rate, b.failures,
                  b.failures_below);
    assert_true(b.failures > 0);
    assert_true(b.failures_below > 0);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    for (int budget = 0; budget < 2; budget++) {
        ac_analysis *an = NULL;
        ac_diag_list d;
        int found = 0;
        ac_diag_list_init(&d);
        ac_analysis_options_init(&ao);
        ao.validate = AC_VALIDATE_NEVER;
        if (budget == 0)
            ao.transient_opt.max_work = w_clear;
        assert_int_equal(ac_analysis_run(f.m, &ao, &an, &d, &f.err), AC_OK);
        for (size_t i = 0; i < an->nchecks; i++)
            if (strncmp(an->checks[i].name, "resilience", 10) == 0) {
                found = 1;
                assert_int_equal(an->checks[i].status,
                                 budget == 0 ? AC_CHECK_INCONCLUSIVE : AC_CHECK_FAIL);
            }
        assert_true(found);
        found = 0;
        for (size_t i = 0; i < d.count; i++)
            if (budget == 0 && strstr(d.items[i].message, "could not be integrated") != NULL) {
                print_message("%s\n", d.items[i].message);
                found = 1;
            } else if (budget == 1 && strcmp(d.items[i].rule, "AC301") == 0)
                found = 1;
        assert_true(found);
        ac_analysis_free(an);
        ac_diag_list_clear(&d);
    }
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confirm_erlang_b),
        cmocka_unit_test(test_confirm_not_computed),
        cmocka_unit_test(test_confirm_sequential),
        cmocka_unit_test(test_study),
        cmocka_unit_test(test_study_variants),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_check_resilience),
        cmocka_unit_test(test_search_confirms_as_check),
        cmocka_unit_test(test_failed_integrations),
        cmocka_unit_test(test_analysis_search_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
