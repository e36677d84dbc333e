/*
 * Tests of analysis/tune.c (include/archcheck/tune.h): `archcheck tune` on a model whose
 * cheapest feasible setting is known by hand.
 *
 * The model: one shared-queue pool (M/M/c), mu = 10/s, under a constant 50/s over a 600-s
 * profile (a = 5 Erlangs), written with 12 servers and a scaler (interval 10 s, cooldown 60 s,
 * tolerance 10%, min 1, max 12), and a mean latency limit of 110 ms on the pool. By Erlang C
 * (computed here) the mean response time C(c, a) / (c mu - lambda) + 1 / mu is 0.1162 s at
 * c = 7 and 0.1056 s at c = 8: the smallest count meeting the limit is n* = 8. Every setting
 * starts at the 12 servers written; the scaler's first looks recommend ceil(5 / target)
 * clamped to [min, max], and the count of t = 0 leaves the cooldown window at t = 60 s, when
 * the pool scales down to that recommendation n: the cost is 12 x 60 + n x 540 server-seconds,
 * 5040 for n* (the mean latency over the horizon, weighted by the jobs, mixes 60 s at 12
 * servers, 0.1001 s, with n's: at n = 7 it is 0.1146 s > 0.110, so 7 still fails).
 */
#include "helpers.h"

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/tune.h"

#include "fixture.h"

static const char model_xml[] =
    "<architecture name=\"tune\" format=\"1\">\n"
    "  <workload>\n"
    "    <source id=\"s\" to=\"p\" rate=\"50/s\"/>\n"
    "    <profile source=\"s\">\n"
    "      <point at=\"0s\" rate=\"50/s\"/>\n"
    "      <point at=\"600s\" rate=\"50/s\"/>\n"
    "    </profile>\n"
    "  </workload>\n"
    "  <pool id=\"p\" servers=\"12\" service-time=\"100ms\" dispatch=\"shared-queue\">\n"
    "    <autoscale min=\"1\" max=\"12\" target-utilization=\"40%\" interval=\"10s\"\n"
    "               tolerance=\"10%\" scale-up-delay=\"30s\" cooldown=\"60s\"/>\n"
    "  </pool>\n"
    "  <requirements>\n"
    "    <latency target=\"p\" max=\"110ms\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

/* The options of these tests: interval and cooldown fixed as written, target and the
 * bounds searched. */
static void opts(ac_tune_options *o, size_t budget, size_t jobs)
{
    ac_tune_options_init(o);
    o->budget = budget;
    o->jobs = jobs;
    o->interval.lo = o->interval.hi = 10.0;
    o->cooldown.lo = o->cooldown.hi = 60.0;
    o->target.lo = 0.3;
    o->target.hi = 0.95;
    o->min.lo = 1.0;
    o->min.hi = 12.0;
    o->max.lo = 1.0;
    o->max.hi = 12.0;
    o->warmup = 0.0;
}

static ac_tune_result *tune_ok(fx *f, const ac_tune_options *o)
{
    ac_tune_result *r = NULL;
    int rc = ac_tune_run(f->m, o, &r, &f->err);
    if (rc != AC_OK)
        print_error("tune failed: %d %s\n", rc, f->err.message);
    assert_int_equal(rc, AC_OK);
    assert_non_null(r);
    return r;
}

/* The count the scaler settles at from 12 servers: ceil(5 / target) within [min, max]. */
static size_t settled(const ac_tune_setting *s)
{
    double n = ceil(5.0 / s->target - 1e-12);
    n = fmax(n, (double)s->min);
    n = fmin(n, (double)s->max);
    return (size_t)n;
}

static void test_hand_closed_form(void **state)
{
    size_t nstar = 1;
    (void)state;
    while (ac_test_mmc_mean(nstar, 50.0, 10.0) > 0.110)
        nstar++;
    assert_int_equal(nstar, 8);
    assert_true(ac_test_mmc_mean(7, 50.0, 10.0) > 0.116);
    /* the horizon mean at n = 7 (jobs-weighted, equal throughput): still over the limit */
    assert_true(
        (60.0 * ac_test_mmc_mean(12, 50.0, 10.0) + 540.0 * ac_test_mmc_mean(7, 50.0, 10.0)) /
            600.0 >
        0.114);
}

/* The cheapest feasible setting holds n* = 8 servers after the scale-down: cost 5040 s. */
static void test_erlang_c_minimum(void **state)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    (void)state;
    fx_parse(&f, model_xml);
    opts(&o, 160, 1);
    r = tune_ok(&f, &o);
    assert_int_equal(r->npools, 1);
    /* as written: target 40% holds ceil(5 / 0.4) = 13 -> max 12: 12 servers all along */
    assert_true(r->written.feasible);
    assert_double_close(r->written.cost, 12.0 * 600.0, 1e-6, 1e-9);
    /* tune's result is confirmed by its own simulation (the done-when: it never violates a
       requirement in the simulator) */
    assert_int_equal(r->confirmed, AC_TUNE_SIMULATED);
    assert_int_equal(settled(&r->best.pools[0]), 8);
    assert_double_close(r->best.cost, 12.0 * 60.0 + 8.0 * 540.0, 1e-6, 1e-6);
    assert_double_close(r->saving, 1.0 - 5040.0 / 7200.0, 1e-9, 1e-6);
    assert_true(r->best.feasible);
    assert_int_equal(r->best.nchecks, 1);
    /* the fluid's mean over the horizon: 60 s at 12 servers, 540 s at 8 (jobs-weighted) */
    assert_double_close(
        r->best.checks[0].value,
        (60.0 * ac_test_mmc_mean(12, 50.0, 10.0) + 540.0 * ac_test_mmc_mean(8, 50.0, 10.0)) / 600.0,
        0.0, 0.01);
    {
        /* the simulator's mean (its scaler at 8 after 60 s) within its interval + 2% of the
           same Erlang C mixture, and below the limit with its whole interval */
        double want =
            (60.0 * ac_test_mmc_mean(12, 50.0, 10.0) + 540.0 * ac_test_mmc_mean(8, 50.0, 10.0)) /
            600.0;
        assert_int_equal(r->best.nsim, 1);
        assert_true(r->best.sim[0].pass);
        assert_true(r->best.sim[0].value + r->best.sim[0].ci95 <= 0.110);
        assert_double_close(r->best.sim[0].value, want, r->best.sim[0].ci95, 0.02);
        assert_true(r->simulations >= 1);
        assert_string_equal(r->note, "");
    }
    assert_true(r->evaluations <= 160 + 1 + o.confirm);
    ac_tune_result_free(r);
    fx_free(&f);
}

/* The GA's best equals the best of an exhaustive grid of the same settings (each a tune run
 * with every range fixed: one evaluation). */
static void test_grid_agrees(void **state)
{
    static const double targets[] = {0.5, 0.6, 0.7, 0.8};
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    double grid_best = INFINITY;
    (void)state;
    fx_parse(&f, model_xml);
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        for (size_t mx = 6; mx <= 10; mx++) {
            opts(&o, 1, 1);
            o.replications = 4;
            o.confirm = 1;
            o.target.lo = o.target.hi = targets[i];
            o.min.lo = o.min.hi = 1.0;
            o.max.lo = o.max.hi = (double)mx;
            r = tune_ok(&f, &o);
            if (r->confirmed != AC_TUNE_NONE && r->best.feasible)
                grid_best = fmin(grid_best, r->best.cost);
            /* by hand: feasible exactly when the settled count is at least 8 */
            assert_int_equal(r->confirmed != AC_TUNE_NONE,
                             (size_t)fmin(ceil(5.0 / targets[i] - 1e-12), (double)mx) >= 8);
            ac_tune_result_free(r);
        }
    assert_double_close(grid_best, 5040.0, 1e-6, 1e-6);
    opts(&o, 120, 1);
    o.target.lo = 0.5;
    o.target.hi = 0.8;
    o.min.lo = o.min.hi = 1.0;
    o.max.lo = 6.0;
    o.max.hi = 10.0;
    r = tune_ok(&f, &o);
    assert_true(r->confirmed != AC_TUNE_NONE);
    assert_double_close(r->best.cost, grid_best, 1e-6, 1e-9);
    ac_tune_result_free(r);
    fx_free(&f);
}

/* The same result, to the bit, for --jobs 1 and 2 (and the JSON of the CLI byte for byte). */
static void test_jobs_deterministic(void **state)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *a, *b;
    (void)state;
    fx_parse(&f, model_xml);
    opts(&o, 64, 1);
    a = tune_ok(&f, &o);
    o.jobs = 2;
    b = tune_ok(&f, &o);
    assert_int_equal(a->confirmed, b->confirmed);
    assert_int_equal(a->evaluations, b->evaluations);
    assert_int_equal(a->generations, b->generations);
    assert_memory_equal(&a->best.cost, &b->best.cost, sizeof a->best.cost);
    assert_memory_equal(a->best.pools, b->best.pools, sizeof *a->best.pools);
    assert_int_equal(a->nfront, b->nfront);
    for (size_t i = 0; i < a->nfront; i++) {
        assert_memory_equal(&a->front[i].cost, &b->front[i].cost, sizeof a->front[i].cost);
        assert_memory_equal(&a->front[i].value, &b->front[i].value, sizeof a->front[i].value);
        assert_memory_equal(a->front[i].pools, b->front[i].pools, sizeof *a->front[i].pools);
    }
    ac_tune_result_free(a);
    ac_tune_result_free(b);
    fx_free(&f);
}

/* The cost-vs-SLA front on the test model: each point scales down to some n at 60 s, so its
 * cost is 12 x 60 + n x 540 and its mean the jobs-weighted mix (60 mmc(12) + 540 mmc(n)) /
 * 600 by Erlang C (within the fluid's 1% here, 2% asserted); met exactly when that is at most
 * 110 ms, the cheapest met point the best (n* = 8). The right-sized count at every moment is
 * n* = 8 (Erlang C at the constant 50/s): 4800 server-seconds; as written (12 all along)
 * 2400 above it; the best 0 above and 0 below at the moments after the 60-s scale-down. */
static void test_front_and_provision(void **state)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    size_t met = 0;
    (void)state;
    fx_parse(&f, model_xml);
    opts(&o, 160, 1);
    o.moments = 4;
    r = tune_ok(&f, &o);
    assert_true(r->front_check != AC_NONE);
    assert_true(r->nfront >= 2);
    for (size_t i = 0; i < r->nfront; i++) {
        const ac_tune_point *pt = &r->front[i];
        double n = (pt->cost - 720.0) / 540.0, mix;
        assert_double_close(n, round(n), 1e-6, 0.0);
        mix = (60.0 * ac_test_mmc_mean(12, 50.0, 10.0) +
               540.0 * ac_test_mmc_mean((size_t)round(n), 50.0, 10.0)) /
              600.0;
        print_message("  front: n %.0f cost %.0f mean %.4f s (Erlang C mix %.4f s)\n", n, pt->cost,
                      pt->value, mix);
        if (n >= 6.0)
            assert_double_close(pt->value, mix, 0.0, 0.02);
        assert_int_equal(pt->met, pt->value <= 0.110);
        if (i > 0)
            assert_true(pt->cost > r->front[i - 1].cost && pt->value < r->front[i - 1].value);
        if (pt->met && met++ == 0)
            assert_double_close(pt->cost, 5040.0, 1e-6, 1e-9);
    }
    assert_true(met >= 1);
    assert_int_equal(r->provision.n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_double_close(r->provision.needed[i], 8.0, 0.0, 0.0);
    assert_double_close(r->provision.needed_ss, 4800.0, 1e-6, 1e-9);
    assert_double_close(r->provision.written_over, 2400.0, 1e-6, 1e-6);
    assert_double_close(r->provision.written_under, 0.0, 1e-6, 0.0);
    assert_double_close(r->provision.best_over, 0.0, 1e-6, 0.0);
    assert_double_close(r->provision.best_under, 0.0, 1e-6, 0.0);
    ac_tune_result_free(r);
    fx_free(&f);
}

/* The front is a function of the settings evaluated, not of how the threads split them: with
 * a budget below AC_TUNE_FRONT_STORE no point is dropped, and one job and two give the same
 * points (a per-thread cap of 256 used to drop a thread's newcomers once full). */
static void test_front_any_jobs(void **state)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *r1, *r2;
    (void)state;
    fx_parse(&f, model_xml);
    opts(&o, 160, 1);
    o.moments = 0;
    r1 = tune_ok(&f, &o);
    o.jobs = 2;
    r2 = tune_ok(&f, &o);
    assert_int_equal(r1->front_cut, 0);
    assert_int_equal(r2->front_cut, 0);
    assert_true(r1->nfront >= 2);
    assert_int_equal(r1->nfront, r2->nfront);
    for (size_t i = 0; i < r1->nfront; i++) {
        assert_double_close(r1->front[i].cost, r2->front[i].cost, 0.0, 0.0);
        assert_double_close(r1->front[i].value, r2->front[i].value, 0.0, 0.0);
        assert_int_equal(r1->front[i].actions, r2->front[i].actions);
    }
    ac_tune_result_free(r1);
    ac_tune_result_free(r2);
    fx_free(&f);
}

/* The secondary objective on the test model, by hand: a setting either keeps the 12 servers
 * all along (0 actions, 12 x 600 = 7200 server-seconds) or scales once to its settled count
 * n (one action; feasible when n >= 8, Erlang C). The fewest actions among the feasible
 * settings is 0, at 7200 server-seconds (every 0-action setting costs that); the best (least
 * cost, 5040: n = 8 after 60 s) takes one action. */
static void test_fewest_actions(void **state)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    (void)state;
    fx_parse(&f, model_xml);
    opts(&o, 160, 1);
    o.moments = 0;
    r = tune_ok(&f, &o);
    assert_true(r->confirmed != AC_TUNE_NONE);
    assert_true(r->has_fewest);
    print_message("  fewest: %zu actions at %.1f server-s; best %zu at %.1f\n", r->fewest.actions,
                  r->fewest.cost, r->best.actions, r->best.cost);
    assert_int_equal(r->fewest.actions, 0);
    assert_double_close(r->fewest.cost, 7200.0, 1e-6, 1e-9);
    assert_int_equal(r->best.actions, 1);
    assert_double_close(r->best.cost, 5040.0, 1e-6, 1e-9);
    assert_int_equal(settled(&r->fewest.pools[0]), 12);
    ac_tune_result_free(r);
    fx_free(&f);
}

/*
 * Without a simulation that fits the event budget nothing is called confirmed by simulation. The
 * test model with a 130 ms limit and an event budget of 1000 (the 600-s profile at 50/s needs about
 * 6e5 events per replication): the search is robust, the cheapest setting whose every margin clears
 * the fluid's 10% (a mean <= 0.130 / 1.1 = 0.1182 s: the mix at n = 7, 0.1146 s, by Erlang C; n = 6
 * gives 0.1529 s) is returned unsimulated, accepted on the fluid, with the reason; the command line
 * exits 0 (as check accepts a value beyond its stated error) and its text says "accepted on the
 * fluid, not simulated", never "confirmed by simulation".
 */
static void test_not_confirmed_without_simulation(void **state)
{
    char xml[sizeof model_xml + 8];
    const char *lim = strstr(model_xml, "110ms");
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    ac_test_run a;
    FILE *fp;
    (void)state;
    assert_non_null(lim);
    snprintf(xml, sizeof xml, "%.*s130ms%s", (int)(lim - model_xml), model_xml, lim + 5);
    fx_parse(&f, xml);
    opts(&o, 160, 1);
    o.max_events = 1000;
    r = tune_ok(&f, &o);
    assert_true(r->robust);
    assert_int_equal(r->confirmed, AC_TUNE_FLUID);
    assert_int_equal(r->simulations, 0);
    assert_int_equal(r->best.nsim, 0);
    assert_non_null(strstr(r->note, "not confirmed by simulation"));
    assert_non_null(strstr(r->note, "budget 1000"));
    assert_int_equal(settled(&r->best.pools[0]), 7);
    assert_true(r->best.checks[0].value * 1.1 <= 0.130);
    ac_tune_result_free(r);
    fx_free(&f);
    fp = fopen("build/tests/tune_nc.xml", "w");
    assert_non_null(fp);
    fputs(xml, fp);
    fclose(fp);
    a = run_ac("tune", "--budget", "40", "--interval", "10", "--cooldown", "60", "--moments", "0",
               "--max-events", "1000", "build/tests/tune_nc.xml", NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "best (accepted on the fluid, not simulated"));
    assert_non_null(strstr(a.out, "note: not confirmed by simulation"));
    assert_null(strstr(a.out, "confirmed by simulation)"));
    ac_test_run_free(&a);
    remove("build/tests/tune_nc.xml");
}

/* A budget of a few evaluations: the best so far, said to be so; and the counted budget. */
static void test_budget_exhausted(void **state)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    (void)state;
    fx_parse(&f, model_xml);
    opts(&o, 10, 1);
    o.patience = 1000;
    r = tune_ok(&f, &o);
    assert_true(r->budget_exhausted);
    assert_true(r->evaluations <= 10 + 1 + o.confirm);
    ac_tune_result_free(r);
    fx_free(&f);
}

/* Refused: no autoscaled pool, no profile, a bad range. */
static void test_refused(void **state)
{
    static const char no_scaler[] =
        "<architecture name=\"t\" format=\"1\"><workload><source id=\"s\" to=\"p\" "
        "rate=\"5/s\"/></workload><pool id=\"p\" servers=\"2\" service-time=\"100ms\"/>"
        "</architecture>";
    fx f;
    ac_tune_options o;
    ac_tune_result *r = NULL;
    (void)state;
    fx_parse(&f, no_scaler);
    assert_int_equal(ac_tune_run(f.m, NULL, &r, &f.err), AC_EINVAL);
    assert_null(r);
    assert_non_null(strstr(f.err.message, "autoscaled"));
    fx_free(&f);
    fx_parse(&f, model_xml);
    opts(&o, 10, 1);
    o.target.lo = 0.9;
    o.target.hi = 0.2;
    assert_int_equal(ac_tune_run(f.m, &o, &r, &f.err), AC_EINVAL);
    assert_null(r);
    fx_free(&f);
}

/* The command line: --jobs 1 and --jobs 2 print the same JSON; a bad range exits 2. */
static void test_cli(void **state)
{
    ac_test_run a, b, c;
    FILE *fp = fopen("build/tests/tune_model.xml", "w");
    (void)state;
    assert_non_null(fp);
    fputs(model_xml, fp);
    fclose(fp);
    a = run_ac("tune", "--budget", "40", "--jobs", "1", "--interval", "10", "--cooldown", "60",
               "--format", "json", "build/tests/tune_model.xml", NULL);
    b = run_ac("tune", "--budget", "40", "--jobs", "2", "--interval", "10", "--cooldown", "60",
               "--format", "json", "build/tests/tune_model.xml", NULL);
    assert_true(a.status == 0 || a.status == 3);
    assert_int_equal(a.status, b.status);
    assert_string_equal(a.out, b.out);
    assert_non_null(strstr(a.out, "\"tune\""));
    c = run_ac("tune", "--target", "0.9..x", "build/tests/tune_model.xml", NULL);
    assert_int_equal(c.status, 2);
    ac_test_run_free(&a);
    ac_test_run_free(&b);
    ac_test_run_free(&c);
    remove("build/tests/tune_model.xml");
}

/*
 * A scaling check that the fluid cannot decide is settled by the simulator with its
 * autoscalers (analysis/req_capacity.c). The step model of tests/test_sim_autoscale.c (mu =
 * 10/s, 9 servers, target 55%, interval 15 s, tolerance 25%, scale-up delay 30 s, cooldown 2
 * min; 50/s, then 150/s from t = 90 s, here a 5-s ramp, over 300 s; random dispatch with 20
 * places per server, on which the transient integrates the overload): by hand (that file's
 * header) the serving count changes twice, 9 -> about 17 at 135 s (the look at 105 sees the
 * 9 servers saturated) and -> N2 = ceil(15 busy / 0.55 +- noise) in [24, 31] at 180 s, then
 * holds (ratio within the band). The fluid counts 2 too, with a stated error of (1 monotone
 * run + 1) x 1 pool / 2 = 100%: undecided against a limit of 2 or 1; the simulation's count
 * (2 in every replication) settles max-events 2 as met and max-events 1 as not met.
 */
static const char step_xml[] =
    "<architecture name=\"step\" format=\"1\">\n"
    "  <workload>\n"
    "    <source id=\"s\" to=\"p\" rate=\"150/s\"/>\n"
    "    <profile source=\"s\">\n"
    "      <point at=\"0s\" rate=\"50/s\"/>\n"
    "      <point at=\"90s\" rate=\"50/s\"/>\n"
    "      <point at=\"95s\" rate=\"150/s\"/>\n"
    "      <point at=\"300s\" rate=\"150/s\"/>\n"
    "    </profile>\n"
    "  </workload>\n"
    "  <pool id=\"p\" servers=\"9\" service-time=\"100ms\" dispatch=\"random\" "
    "buffer=\"20\">\n"
    "    <autoscale min=\"9\" max=\"60\" target-utilization=\"55%%\" interval=\"15s\"\n"
    "               tolerance=\"25%%\" scale-up-delay=\"30s\" cooldown=\"2min\"/>\n"
    "  </pool>\n"
    "  <requirements>\n"
    "    <scaling max-events=\"%s\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

static void scaling_case(const char *limit, ac_check_status want)
{
    char xml[2048];
    fx f;
    ac_analysis_options ao;
    ac_analysis *a = NULL;
    const ac_check *ck = NULL;
    int rc;
    snprintf(xml, sizeof xml, step_xml, limit);
    fx_parse(&f, xml);
    ac_analysis_options_init(&ao);
    ao.headroom = 0;
    rc = ac_analysis_run(f.m, &ao, &a, &f.d, &f.err);
    if (rc != AC_OK)
        print_error("analysis failed: %d %s\n", rc, f.err.message);
    assert_int_equal(rc, AC_OK);
    for (size_t i = 0; i < a->nchecks; i++)
        if (strstr(a->checks[i].name, "scaling events") != NULL)
            ck = &a->checks[i];
    assert_non_null(ck);
    if (ck == NULL)
        return;
    assert_double_close(ck->value, 2.0, 0.0, 0.0); /* the fluid: two serving-count changes */
    assert_true(ck->has_sim);
    assert_double_close(ck->sim_value, 2.0, 1e-9, 0.0);
    assert_true(ck->settled_by_simulation);
    assert_int_equal(ck->status, want);
    ac_analysis_free(a);
    fx_free(&f);
}

static void test_scaling_settled_by_simulation(void **state)
{
    (void)state;
    scaling_case("2", AC_CHECK_PASS);
    scaling_case("1", AC_CHECK_FAIL);
}

/*
 * Flapping (AC208): two 18-s pulses of 150/s on the step model's pool (the scaler above), at
 * 90 s and 390 s, over 700 s. By hand, per pulse: the look at 105 s sees the 9 servers
 * saturated and orders about 17, serving at 135 s; the load is back at 50/s by 110 s, so the
 * looks from 120 s recommend the minimum 9, but the window keeps the 17 of 105 s until 225 s,
 * when the pool scales down to 9: 90 s after the scale-up, within the 120-s cooldown, one
 * flap; the second pulse makes the second (scale-up 435 s, scale-down 525 s). Without the
 * second pulse, one flap: no warning.
 */
static const char flap_xml[] =
    "<architecture name=\"flap\" format=\"1\">\n"
    "  <workload>\n"
    "    <source id=\"s\" to=\"p\" rate=\"50/s\"/>\n"
    "    <profile source=\"s\">\n"
    "      <point at=\"0s\" rate=\"50/s\"/>\n"
    "      <point at=\"90s\" rate=\"50/s\"/>\n"
    "      <point at=\"92s\" rate=\"150/s\"/>\n"
    "      <point at=\"108s\" rate=\"150/s\"/>\n"
    "      <point at=\"110s\" rate=\"50/s\"/>\n"
    "      <point at=\"390s\" rate=\"50/s\"/>\n"
    "      <point at=\"392s\" rate=\"150/s\"/>\n"
    "      <point at=\"408s\" rate=\"150/s\"/>\n"
    "      <point at=\"410s\" rate=\"50/s\"/>\n"
    "      <point at=\"700s\" rate=\"50/s\"/>\n"
    "    </profile>\n"
    "  </workload>\n"
    "  <pool id=\"p\" servers=\"9\" service-time=\"100ms\" dispatch=\"random\" buffer=\"20\">\n"
    "    <autoscale min=\"9\" max=\"60\" target-utilization=\"55%\" interval=\"15s\"\n"
    "               tolerance=\"25%\" scale-up-delay=\"30s\" cooldown=\"2min\"/>\n"
    "  </pool>\n"
    "  <requirements>\n"
    "    <scaling max-events=\"100\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

static size_t flap_warnings(const char *xml)
{
    fx f;
    ac_analysis_options ao;
    ac_analysis *a = NULL;
    size_t n;
    int rc;
    fx_parse(&f, xml);
    ac_analysis_options_init(&ao);
    ao.headroom = 0;
    rc = ac_analysis_run(f.m, &ao, &a, &f.d, &f.err);
    assert_int_equal(rc, AC_OK);
    n = count_rule(&f.d, "AC208");
    ac_analysis_free(a);
    fx_free(&f);
    return n;
}

static void test_flapping_warning(void **state)
{
    char one[4096];
    const char *second = strstr(flap_xml, "      <point at=\"392s\"");
    const char *after = strstr(flap_xml, "      <point at=\"700s\"");
    (void)state;
    assert_int_equal(flap_warnings(flap_xml), 1);
    /* the same profile without the second pulse */
    assert_non_null(second);
    assert_non_null(after);
    snprintf(one, sizeof one, "%.*s%s", (int)(second - flap_xml), flap_xml, after);
    assert_int_equal(flap_warnings(one), 0);
}

/* The fluid's stated error against the simulator with its autoscalers (AC_TUNE_FLUID_ERROR,
 * _LOSS: how far the fluid may lie below the truth): on the test model at the 8 servers of
 * the closed form, and on a 60-s ramp from 20/s to 400/s into a shared-queue pool of 4
 * (buffer 50; scaling up 20 s after each look, the buffer overflows meanwhile), the worst
 * case measured (doc/models.md §9: utilisation -4.8%, loss -53% there). Every latency,
 * utilisation and loss check: sim - its 95% half-width <= fluid (1 + stated error). */
static const char ramp_xml[] =
    "<architecture name=\"ramp\" format=\"1\">\n"
    "  <workload>\n"
    "    <source id=\"s\" to=\"p\" rate=\"400/s\"/>\n"
    "    <profile source=\"s\">\n"
    "      <point at=\"0s\" rate=\"20/s\"/><point at=\"120s\" rate=\"20/s\"/>\n"
    "      <point at=\"180s\" rate=\"400/s\"/><point at=\"480s\" rate=\"400/s\"/>\n"
    "      <point at=\"540s\" rate=\"20/s\"/><point at=\"900s\" rate=\"20/s\"/>\n"
    "    </profile>\n"
    "  </workload>\n"
    "  <pool id=\"p\" servers=\"4\" service-time=\"100ms\" dispatch=\"shared-queue\" "
    "buffer=\"50\">\n"
    "    <autoscale min=\"2\" max=\"100\" target-utilization=\"60%\" interval=\"10s\"\n"
    "               tolerance=\"10%\" scale-up-delay=\"20s\" cooldown=\"60s\"/>\n"
    "  </pool>\n"
    "  <requirements>\n"
    "    <latency target=\"p\" percentile=\"95\" max=\"60s\"/>\n"
    "    <latency target=\"p\" max=\"60s\"/>\n"
    "    <utilization target=\"p\" max=\"0.99\"/>\n"
    "    <loss target=\"p\" max=\"0.9\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

static void fluid_error_case(const char *xml, double target, double cooldown, double interval,
                             double min, double max)
{
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    size_t judged = 0;
    fx_parse(&f, xml);
    ac_tune_options_init(&o);
    o.target.lo = o.target.hi = target;
    o.cooldown.lo = o.cooldown.hi = cooldown;
    o.interval.lo = o.interval.hi = interval;
    o.min.lo = o.min.hi = min;
    o.max.lo = o.max.hi = max;
    o.warmup = 0.0;
    r = tune_ok(&f, &o);
    assert_int_equal(r->confirmed, AC_TUNE_SIMULATED);
    assert_int_equal(r->best.nsim, r->best.nchecks);
    for (size_t k = 0; k < r->best.nchecks; k++) {
        const ac_tune_check *fl = &r->best.checks[k], *sm = &r->best.sim[k];
        int loss = strncmp(fl->what, "loss", 4) == 0;
        if (strncmp(fl->what, "latency", 7) != 0 && strncmp(fl->what, "utilization", 11) != 0 &&
            !loss)
            continue;
        assert_double_close(fl->rel_error, loss ? AC_TUNE_FLUID_ERROR_LOSS : AC_TUNE_FLUID_ERROR,
                            0.0, 1e-12);
        print_message("  %-28s fluid %.4g sim %.4g +- %.2g: %+.1f%% of the fluid\n", fl->what,
                      fl->value, sm->value, sm->ci95, 100.0 * (sm->value / fl->value - 1.0));
        assert_true(sm->value - sm->ci95 <= fl->value * (1.0 + fl->rel_error));
        judged++;
    }
    assert_true(judged >= 1);
    ac_tune_result_free(r);
    fx_free(&f);
}

static void test_fluid_error_measured(void **state)
{
    (void)state;
    fluid_error_case(model_xml, 0.63, 60.0, 10.0, 1.0, 12.0); /* settles at ceil(5/0.63) = 8 */
    fluid_error_case(ramp_xml, 0.6, 60.0, 10.0, 2.0, 100.0);
}

/*
 * The fluid trajectory with its autoscalers against the simulator with its own (the same
 * semantics: interval, tolerance, scale-up delay, cooldown, min/max): the serving count over
 * the profile, through its integral (server-hours) and its changes (scaling actions), two-sided
 * within the simulation's 95% half-width plus the stated error of the scaling check
 * (analysis/req_capacity.c: the look grid's phase, the fluid's missing noise). On the test
 * model the fluid's are the hand computation's (12 servers for 60 s, then ceil(5 / 0.63) = 8:
 * 1.4 server-hours, 1 action); the simulator's noise at utilisation 0.625 moves the count
 * (measured: 1.525 +- 0.035 server-hours, 1.7 +- 0.6 actions, inside the stated 13% and
 * 100%). On the 60-s ramp 20 -> 400/s (shared-queue pool of 4, buffer 50) the scaler climbs
 * to about 400 / (10 x 0.6) = 67 servers and back (measured: fluid 7.51 server-hours (+-14%),
 * 13 actions (+-23%); simulated 6.63 +- 0.08, 16.1 +- 1.7: 77% and 66% of the tolerance).
 */
static void trajectory_case(const char *xml_in, double target, double min, double max)
{
    char xml[4096];
    const char *end = strstr(xml_in, "  </requirements>");
    fx f;
    ac_tune_options o;
    ac_tune_result *r;
    size_t judged = 0;
    assert_non_null(end);
    snprintf(xml, sizeof xml,
             "%.*s    <scaling max-events=\"100000\" max-server-hours=\"1e6\"/>\n%s",
             (int)(end - xml_in), xml_in, end);
    fx_parse(&f, xml);
    ac_tune_options_init(&o);
    o.target.lo = o.target.hi = target;
    o.cooldown.lo = o.cooldown.hi = 60.0;
    o.interval.lo = o.interval.hi = 10.0;
    o.min.lo = o.min.hi = min;
    o.max.lo = o.max.hi = max;
    o.warmup = 0.0;
    o.moments = 0;
    r = tune_ok(&f, &o);
    assert_true(r->confirmed != AC_TUNE_NONE);
    assert_int_equal(r->best.nsim, r->best.nchecks);
    for (size_t k = 0; k < r->best.nchecks; k++) {
        const ac_tune_check *fl = &r->best.checks[k], *sm = &r->best.sim[k];
        double tol;
        if (strcmp(fl->what, "scaling actions") != 0 && strcmp(fl->what, "server-hours") != 0)
            continue;
        tol = sm->ci95 + fl->rel_error * fl->value;
        print_message("  %-16s fluid %.5g (+-%.0f%%) sim %.5g +- %.2g\n", fl->what, fl->value,
                      100.0 * fl->rel_error, sm->value, sm->ci95);
        assert_true(fabs(sm->value - fl->value) <= tol);
        judged++;
    }
    assert_int_equal(judged, 2);
    ac_tune_result_free(r);
    fx_free(&f);
}

static void test_trajectory_against_sim(void **state)
{
    (void)state;
    trajectory_case(model_xml, 0.63, 1.0, 12.0);
    trajectory_case(ramp_xml, 0.6, 2.0, 100.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_closed_form),
        cmocka_unit_test(test_erlang_c_minimum),
        cmocka_unit_test(test_grid_agrees),
        cmocka_unit_test(test_jobs_deterministic),
        cmocka_unit_test(test_budget_exhausted),
        cmocka_unit_test(test_not_confirmed_without_simulation),
        cmocka_unit_test(test_fewest_actions),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_scaling_settled_by_simulation),
        cmocka_unit_test(test_flapping_warning),
        cmocka_unit_test(test_fluid_error_measured),
        cmocka_unit_test(test_trajectory_against_sim),
        cmocka_unit_test(test_front_and_provision),
        cmocka_unit_test(test_front_any_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
