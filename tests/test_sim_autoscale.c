/*
 * The autoscaler in the simulator (ac_sim_options.autoscale, sim/autoscale.c) on step
 * profiles, against a hand computation of the HPA rule (doc/format.md <autoscale>).
 *
 * The pool: shared-queue, mu = 10/s, 20 waiting places (so that an overload leaves at most
 * 20 jobs to drain), 9 servers at the start; target 55%, interval 15 s, tolerance 25%,
 * scale-up delay 30 s, cooldown 2 min. The source: 50/s, 150/s from t = 90 s (a 1 ms ramp).
 * Looks at 15, 30, ...; the utilisation of a look is the busy server-seconds of the past
 * interval over (15 s x serving now).
 *
 * Hand computation (u the look's utilisation; ratio u / 0.55; band [0.75, 1.25]):
 *   looks 15..90: u = 5/9 = 0.556 (std of a 15-s average about 0.026: sqrt(2 x 5 x 0.1 /
 *     15) / 9 busy), ratio 1.01 +- 0.05: inside the band by 4.8 std: no action.
 *   look 105 (the first after the step; the one at 90 sees only [75, 90]): the 9 servers
 *     are busy within ~0.05 s, u > 0.99, ratio 1.8: rec = ceil(9 u / 0.55) = 17 for any u in
 *     (0.978, 1]: ordered, ready at 105 + 30 = 135 s (the first action, 9 -> 17).
 *   look 120: u = 1, ratio 1.82, but 9 x 1.82 / 17 = 0.96 is inside the band: held.
 *   look 135 (after the order serves): u = 9 x 15 / (15 x 17) = 0.53, ratio 0.96: nothing.
 *   look 150: u = 15 / 17 = 0.88 (plus the 20 queued jobs, 0.1%), ratio 1.6: rec =
 *     ceil(busy / 0.55) with busy = 15 +- 0.45 (15-s average): ceil(27.3 +- 0.8), within
 *     [24, 31] at 4 std; ready at 180 s (the second action, 17 -> N2).
 *   then u = 15 / N2, ratio 0.87..1.14 for N2 in [24, 31]: no action while the load lasts.
 * The drop test adds 50/s again from t = 390 s:
 *   looks 405..: busy 5, rec = ceil(5 / 0.55 +- 0.47) in [9, 11] (4 std: [8, 12]), but the
 *     window (t - 120, t] holds the recommendations N2 of 300..390 until the one at 390
 *     leaves it, at t = 510 s: the scale-down N2 -> max(recs of 405..510) then, at once.
 * The flap test drops the load to 10/s at t = 106 s (after the look at 105 ordered 17):
 *   look 120 sees u = (9 x 1 + 1 x 14) / (15 x 9) = 0.17, ratio 0.31: rec ~3, below the
 *   target 17, but the window (0, 120] holds 17 (the look at 105): no change; the order
 *   serves at 135 (9 -> 17); looks 135.. see busy ~1, rec = ceil(1.8 +- 0.2) in [2, 3]; the
 *   recommendation of 105 leaves the window at 225: the scale-down 17 -> the highest of
 *   the recommendations of 120..225, in [2, 5], at 225 s, 90 s after the scale-up: within
 *   one cooldown (120 s), one flap (the horizon 235 s ends before the look at 240, where
 *   the recommendation of 120 leaves the window in turn). With min 9 every recommendation is
 * clamped to 9: the scale-down goes to 9 exactly. Server-seconds (warm-up 0): the integral of the
 * serving count from the action log, e.g. 9 x 135 + 17 x 45 + N2 x (H - 180) for the step, to 1e-9
 * relative.
 */
#include "helpers.h"
#include "fixture.h"

#include "archcheck/model.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"

static const char xml_fmt[] =
    "<architecture name='as' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='a' rate='50/s'/>\n"
    "    <profile source='s'>%s</profile>\n"
    "  </workload>\n"
    "  <pool id='a' servers='9' service-rate='10/s' dispatch='shared-queue' buffer='20'>\n"
    "    <autoscale min='%d' max='%d' target-utilization='55%%' interval='15s'\n"
    "               tolerance='25%%' scale-up-delay='30s' cooldown='2min'/>\n"
    "  </pool>\n"
    "</architecture>\n";

static const char step_up[] = "<point at='0s' rate='50/s'/><point at='90s' rate='50/s'/>"
                              "<point at='90001ms' rate='150/s'/>";
static const char step_up_down[] =
    "<point at='0s' rate='50/s'/><point at='90s' rate='50/s'/>"
    "<point at='90001ms' rate='150/s'/><point at='390s' rate='150/s'/>"
    "<point at='390001ms' rate='50/s'/>";
static const char blip[] = "<point at='0s' rate='50/s'/><point at='90s' rate='50/s'/>"
                           "<point at='90001ms' rate='150/s'/><point at='106s' rate='150/s'/>"
                           "<point at='106001ms' rate='10/s'/>";

/* The pool under `profile` with autoscaling between min and max servers. */
static void fx_profile(fx *f, const char *profile, int min, int max)
{
    char xml[2048];
    snprintf(xml, sizeof xml, xml_fmt, profile, min, max);
    fx_parse(f, xml);
}

/* One replication of seed `seed` over [0, horizon], every second measured. */
static ac_sim_result *run(fx *f, unsigned long seed, double horizon)
{
    ac_sim_options o;
    ac_sim_result *res = NULL;
    int rc;
    ac_sim_options_init(&o);
    o.seed = seed;
    o.replications = 1;
    o.horizon = horizon;
    o.warmup = 0.0;
    o.use_profiles = 1;
    o.autoscale = 1;
    rc = ac_sim_run(f->m, &o, &res, &f->err);
    if (rc != 0)
        print_error("ac_sim_run: %d %s\n", rc, f->err.message);
    assert_int_equal(rc, 0);
    return res;
}

/* The integral of the serving count over [0, h] from the log (starting count n0). */
static double log_server_seconds(const ac_sim_node_result *n, size_t n0, double h)
{
    double area = 0.0, t = 0.0;
    size_t cur = n0;
    for (size_t k = 0; k < n->nactions; k++) {
        assert_int_equal(n->actions[k].from, cur);
        area += (double)cur * (n->actions[k].t - t);
        t = n->actions[k].t;
        cur = n->actions[k].to;
    }
    return area + (double)cur * (h - t);
}

static void assert_action(const ac_sim_scaling_action *a, double t, size_t from, size_t lo,
                          size_t hi)
{
    if (!(fabs(a->t - t) <= 1e-9 * t) || a->from != from || a->to < lo || a->to > hi) {
        print_error("action at %.12g: %zu -> %zu; hand: at %g from %zu to [%zu, %zu]\n", a->t,
                    a->from, a->to, t, from, lo, hi);
        fail();
    }
}

/* The step: 9 -> 17 at 135 s exactly, 17 -> N2 in [24, 31] at 180 s exactly, nothing else. */
static void test_step_up(void **state)
{
    fx f;
    (void)state;
    fx_profile(&f, step_up, 2, 40);
    for (unsigned long seed = 1; seed <= 5; seed++) {
        ac_sim_result *res = run(&f, seed, 330.0);
        const ac_sim_node_result *a = &res->nodes[0];
        double n2, hand;
        assert_int_equal(a->nactions, 2);
        assert_action(&a->actions[0], 135.0, 9, 17, 17);
        assert_action(&a->actions[1], 180.0, 17, 24, 31);
        n2 = (double)a->actions[1].to;
        hand = 9.0 * 135.0 + 17.0 * 45.0 + n2 * (330.0 - 180.0);
        assert_double_close(a->server_seconds.mean, hand, 0.0, 1e-9);
        assert_double_close(log_server_seconds(a, 9, 330.0), hand, 0.0, 1e-9);
        assert_double_close(a->scaling_actions.mean, 2.0, 0.0, 0.0);
        assert_double_close(a->scaling_flaps.mean, 0.0, 0.0, 0.0);
        ac_sim_result_free(res);
    }
    fx_free(&f);
}

/* Up, then down after the cooldown: N2 -> M in [8, 12] at 510 s exactly, no flap. */
static void test_step_down(void **state)
{
    fx f;
    (void)state;
    fx_profile(&f, step_up_down, 2, 40);
    for (unsigned long seed = 1; seed <= 3; seed++) {
        ac_sim_result *res = run(&f, seed, 520.0);
        const ac_sim_node_result *a = &res->nodes[0];
        assert_int_equal(a->nactions, 3);
        assert_action(&a->actions[0], 135.0, 9, 17, 17);
        assert_action(&a->actions[1], 180.0, 17, 24, 31);
        assert_action(&a->actions[2], 510.0, a->actions[1].to, 8, 12);
        assert_double_close(a->server_seconds.mean, log_server_seconds(a, 9, 520.0), 0.0, 1e-9);
        assert_double_close(a->scaling_flaps.mean, 0.0, 0.0, 0.0);
        ac_sim_result_free(res);
    }
    fx_free(&f);
}

/* A blip: up at 135, down at 225 (90 s after the up, within a cooldown): one flap. With
 * min 9 the scale-down stops at 9 exactly. */
static void test_flap_and_min(void **state)
{
    fx f;
    (void)state;
    fx_profile(&f, blip, 2, 40);
    for (unsigned long seed = 1; seed <= 3; seed++) {
        ac_sim_result *res = run(&f, seed, 235.0);
        const ac_sim_node_result *a = &res->nodes[0];
        assert_int_equal(a->nactions, 2);
        assert_action(&a->actions[0], 135.0, 9, 17, 17);
        assert_action(&a->actions[1], 225.0, 17, 2, 5);
        assert_double_close(a->scaling_flaps.mean, 1.0, 0.0, 0.0);
        ac_sim_result_free(res);
    }
    fx_free(&f);
    fx_profile(&f, blip, 9, 40);
    for (unsigned long seed = 1; seed <= 3; seed++) {
        ac_sim_result *res = run(&f, seed, 235.0);
        const ac_sim_node_result *a = &res->nodes[0];
        assert_int_equal(a->nactions, 2);
        assert_action(&a->actions[1], 225.0, 17, 9, 9);
        assert_double_close(a->server_seconds.mean, 9.0 * 135.0 + 17.0 * 90.0 + 9.0 * 10.0, 0.0,
                            1e-9);
        ac_sim_result_free(res);
    }
    fx_free(&f);
}

/* max 12: the look at 105 recommends 17, clamped to 12 (9 -> 12 at 135); later looks see
 * the 12 saturated (ratio 1.8) and recommend ceil(12 x 1.8) = 22, clamped to 12 again: one
 * action in all, never above max. */
static void test_max(void **state)
{
    fx f;
    (void)state;
    fx_profile(&f, step_up, 2, 12);
    for (unsigned long seed = 1; seed <= 3; seed++) {
        ac_sim_result *res = run(&f, seed, 330.0);
        const ac_sim_node_result *a = &res->nodes[0];
        assert_int_equal(a->nactions, 1);
        assert_action(&a->actions[0], 135.0, 9, 12, 12);
        assert_double_close(a->server_seconds.mean, 9.0 * 135.0 + 12.0 * 195.0, 0.0, 1e-9);
        /* busy over serving server-seconds: (90 x 5 + 45 x 9 + 195 x 12) / 3555 = 0.8987
           (the 90-s average of 5 busy has std 0.1: 0.003 here) */
        assert_double_close(a->utilization.mean, 3195.0 / 3555.0, 0.01, 0.0);
        ac_sim_result_free(res);
    }
    fx_free(&f);
}

/* One seed, one result, byte for byte; another seed, another trajectory (N2 or the KPIs). */
static void test_deterministic(void **state)
{
    fx f;
    ac_sim_result *r1, *r2;
    char *s1 = NULL, *s2 = NULL;
    (void)state;
    fx_profile(&f, step_up_down, 2, 40);
    r1 = run(&f, 11, 520.0);
    r2 = run(&f, 11, 520.0);
    assert_int_equal(ac_sim_result_format(r1, &s1, &f.err), 0);
    assert_int_equal(ac_sim_result_format(r2, &s2, &f.err), 0);
    assert_string_equal(s1, s2);
    assert_non_null(strstr(s1, "node a scaling_actions 3 "));
    assert_int_equal(r1->nodes[0].nactions, r2->nodes[0].nactions);
    assert_memory_equal(r1->nodes[0].actions, r2->nodes[0].actions,
                        r1->nodes[0].nactions * sizeof *r1->nodes[0].actions);
    free(s1);
    free(s2);
    ac_sim_result_free(r1);
    ac_sim_result_free(r2);
    fx_free(&f);
}

/* Without the option the pool keeps its 9 servers (the steady-state simulator as before). */
static void test_off(void **state)
{
    fx f;
    ac_sim_options o;
    ac_sim_result *res = NULL;
    (void)state;
    fx_profile(&f, step_up, 2, 40);
    ac_sim_options_init(&o);
    o.replications = 1;
    o.horizon = 330.0;
    o.warmup = 0.0;
    o.use_profiles = 1;
    assert_int_equal(ac_sim_run(f.m, &o, &res, &f.err), 0);
    assert_int_equal(res->nodes[0].nactions, 0);
    assert_null(res->nodes[0].actions);
    assert_int_equal(res->nodes[0].scaling_actions.n, 0);
    ac_sim_result_free(res);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_up),       cmocka_unit_test(test_step_down),
        cmocka_unit_test(test_flap_and_min),  cmocka_unit_test(test_max),
        cmocka_unit_test(test_deterministic), cmocka_unit_test(test_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
