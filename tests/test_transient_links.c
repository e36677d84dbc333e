/*
 * Links inside the transient (solver/transient_link.c) and the oldest job's age
 * (solver/transient_metrics.c): against the steady state of solver/link.c (M/D/1, M/D/1/K),
 * hand computations, and the simulator under the same plan (sim/faults.c).
 *
 * Tolerances (stated at each assertion, documented in doc/models.md §4):
 *   constant load vs solver/link.c (carried, lost, jobs), unbounded     1e-6 (closed form)
 *   constant load vs solver/link.c, buffer (M/D/1/K tables)             1% (interpolation)
 *   a whole-horizon capacity-loss vs the faulted steady state           as above
 *   burst and capacity-loss window vs the simulator: mean jobs, mean
 *     and p95 response of the link over the window                      the 95% half-width
 *                                                                       + 15% (measured below)
 *   oldest age on a deterministic overload, T (1 - mu / lambda)          2% (the fluid's start)
 */
#include "helpers.h"

#include "archcheck/link.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"
#include "archcheck/transient.h"

#include "fixture.h"

/* A source into a fast pool `a` (200 servers of 1 ms: nearly a pure delay), the link
 * a -> b, and pool b (200 servers of 1 ms). */
#define LINK_MODEL(rate, profile, link)                                                            \
    "<architecture name='l' format='1'>\n"                                                         \
    "  <workload><source id='s' to='a' rate='" rate "'/>" profile "</workload>\n"                  \
    "  <pool id='a' servers='200' service-time='1ms'/>\n"                                          \
    "  <pool id='b' servers='200' service-time='1ms'/>\n"                                          \
    "  <route from='a' to='b'/>\n"                                                                 \
    "  " link "\n"                                                                                 \
    "</architecture>\n"

/* The link's carried, lost and jobs at the last sample against ac_solver_link_solve at the
 * offered rate with capacity_loss, within rel. */
static void check_steady(fx *f, const ac_transient *tr, double lambda, double loss, double rel)
{
    size_t last = tr->nsamples - 1;
    const ac_transient_link *k = &tr->links[0];
    ac_solver_link_result lr;
    double jobs;
    assert_int_equal(ac_solver_link_solve(&f->m->links[0], lambda, loss, &lr, &f->err), AC_OK);
    jobs = lr.throughput * (lr.mean_wait + 1.0 / lr.capacity); /* waiting or transmitting */
    print_message("link rho %.3f: carried %.6f (steady %.6f), lost %.6g (%.6g), jobs %.6f (%.6f)\n",
                  lr.load, k->throughput[last], lr.throughput, k->loss_rate[last],
                  lambda * lr.loss_probability, k->in_system[last], jobs);
    assert_double_close(k->arrival_rate[last], lambda, 0.0, 1e-6);
    assert_double_close(k->throughput[last], lr.throughput, 0.0, rel);
    assert_double_close(k->loss_rate[last], lambda * lr.loss_probability, 1e-9, 10.0 * rel);
    assert_double_close(k->in_system[last], jobs, 0.0, rel);
    /* the node behind is fed what the link carries */
    assert_double_close(tr->nodes[1].arrival_rate[last], lr.throughput, 0.0, rel);
    /* the law's mean is the steady state's: latency + 1/c + the mean wait */
    {
        const double *law = k->law;
        size_t ns = tr->nsamples;
        double g = law[AC_TRANSIENT_LAW_WRATE * ns + last];
        double mean = law[AC_TRANSIENT_LAW_SHIFT * ns + last] +
                      (g > 0.0 ? law[AC_TRANSIENT_LAW_PWAIT * ns + last] / g : 0.0);
        assert_double_close(mean, lr.mean_response_time, 0.0, 10.0 * rel);
    }
    ac_solver_link_result_clear(&lr);
}

/* Constant loads: M/D/1 at rho 0.9 (closed forms: exact), M/D/1/K with buffer 3 at rho 0.9
 * (loss 0.09136) and overloaded at rho 1.5 (the tables, 1%). */
static void test_link_constant_load_steady(void **state)
{
    static const char md1[] = LINK_MODEL("90/s", "",
                                         "<link from='a' to='b' capacity='100/s' "
                                         "latency='2ms'/>");
    static const char md1k[] = LINK_MODEL("90/s", "",
                                          "<link from='a' to='b' capacity='100/s' "
                                          "latency='2ms' buffer='3'/>");
    static const char over[] = LINK_MODEL("150/s", "",
                                          "<link from='a' to='b' capacity='100/s' "
                                          "buffer='3'/>");
    fx f;
    ac_transient_options opt;
    (void)state;
    ac_transient_options_init(&opt);
    opt.horizon = 20.0;
    opt.samples = 21;
    fx_parse(&f, md1);
    check_steady(&f, fx_eval(&f, &opt, NULL), 90.0, 0.0, 1e-6);
    fx_free(&f);
    fx_parse(&f, md1k);
    check_steady(&f, fx_eval(&f, &opt, NULL), 90.0, 0.0, 0.01);
    fx_free(&f);
    fx_parse(&f, over);
    check_steady(&f, fx_eval(&f, &opt, NULL), 150.0, 0.0, 0.01);
    fx_free(&f);
}

/* A capacity-loss of 40% over the whole horizon: after the start (the fixed point without
 * faults) the link settles at the steady state of the faulted link (solver/link.c's
 * capacity_loss), unbounded (rho 50 / 60) and with buffer 3 (rho 80 / 60); a delay fault
 * adds to the law's shift. */
static void test_link_constant_fault_steady(void **state)
{
    static const char md1[] = LINK_MODEL("50/s", "", "<link from='a' to='b' capacity='100/s'/>");
    static const char md1k[] = LINK_MODEL("80/s", "",
                                          "<link from='a' to='b' capacity='100/s' "
                                          "buffer='3'/>");
    fx f;
    ac_transient_options opt;
    ac_transient_fault fl[2] = {{3, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 0.4, 0.0, INFINITY},
                                {3, AC_TRANSIENT_FAULT_DELAY, 0.25, 0.0, INFINITY}};
    ac_transient_plan plan = {2, fl};
    const ac_transient *tr;
    size_t last;
    double shift;
    (void)state;
    ac_transient_options_init(&opt);
    opt.horizon = 30.0;
    opt.samples = 31;
    fx_parse(&f, md1);
    fl[0].target = fl[1].target = f.m->nnodes; /* link 0 */
    tr = fx_eval(&f, &opt, &plan);
    last = tr->nsamples - 1;
    shift = tr->links[0].law[AC_TRANSIENT_LAW_SHIFT * tr->nsamples + last];
    {
        ac_solver_link_result lr;
        assert_int_equal(ac_solver_link_solve(&f.m->links[0], 50.0, 0.4, &lr, &f.err), AC_OK);
        /* below the capacity the whole stationary wait is the exponential part */
        assert_double_close(shift, 0.25 + 1.0 / 60.0, 0.0, 1e-9);
        ac_solver_link_result_clear(&lr);
    }
    plan.nfaults = 1;
    check_steady(&f, fx_eval(&f, &opt, &plan), 50.0, 0.4, 1e-6);
    fx_free(&f);
    fx_parse(&f, md1k);
    fl[0].target = f.m->nnodes;
    check_steady(&f, fx_eval(&f, &opt, &plan), 80.0, 0.4, 0.01);
    fx_free(&f);
}

/* The p-quantile of the link's laws mixed over the samples in [t0, t1], weighted by the
 * offered rate (the law at t is that of a job arriving at t): bisection on the mixture. */
static double link_mix_quantile(const ac_transient *tr, double t0, double t1, double p)
{
    const ac_transient_link *k = &tr->links[0];
    double lo = 0.0, hi = 1.0, wsum = 0.0;
    for (size_t s = 0; s < tr->nsamples; s++)
        if (tr->t[s] >= t0 && tr->t[s] <= t1)
            wsum += k->arrival_rate[s];
    while (hi < 1e4) {
        double c = 0.0;
        for (size_t s = 0; s < tr->nsamples; s++)
            if (tr->t[s] >= t0 && tr->t[s] <= t1)
                c += k->arrival_rate[s] * ac_transient_law_ccdf(k->law, tr->nsamples, s, hi);
        if (c / wsum <= 1.0 - p)
            break;
        hi *= 2.0;
    }
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi), c = 0.0;
        for (size_t s = 0; s < tr->nsamples; s++)
            if (tr->t[s] >= t0 && tr->t[s] <= t1)
                c += k->arrival_rate[s] * ac_transient_law_ccdf(k->law, tr->nsamples, s, mid);
        *(c / wsum > 1.0 - p ? &lo : &hi) = mid;
    }
    return hi;
}

/* The time average over [t0, t1] (trapezoids) of the link's jobs (propagating ones at
 * carried x latency included, as the simulator counts them), and the mean response of the jobs
 * arriving then (the laws' means weighted by the offered rate). */
static void link_window(const ac_transient *tr, double lat, double t0, double t1, double *jobs,
                        double *resp)
{
    const ac_transient_link *k = &tr->links[0];
    size_t ns = tr->nsamples;
    double area = 0.0, wr = 0.0, w = 0.0;
    for (size_t s = 0; s < ns; s++) {
        const double *law = k->law;
        double g = law[AC_TRANSIENT_LAW_WRATE * ns + s];
        double mean = law[AC_TRANSIENT_LAW_SHIFT * ns + s] +
                      (g > 0.0 ? law[AC_TRANSIENT_LAW_PWAIT * ns + s] / g : 0.0);
        if (tr->t[s] < t0 || tr->t[s] > t1)
            continue;
        wr += k->arrival_rate[s] * mean;
        w += k->arrival_rate[s];
        if (s > 0 && tr->t[s - 1] >= t0) { /* propagating jobs count in the simulator's */
            double j0 = k->in_system[s - 1] + k->throughput[s - 1] * lat;
            double j1 = k->in_system[s] + k->throughput[s] * lat;
            area += 0.5 * (j0 + j1) * (tr->t[s] - tr->t[s - 1]);
        }
    }
    *jobs = area / (t1 - t0);
    *resp = wr / w;
}

/* The link's mean jobs, mean and p95 response over [t0, t1] against the simulator's (40
 * replications, the same profile and plan), within its 95% half-width + rel. */
static void vs_sim(fx *f, const ac_transient *tr, const ac_transient_plan *plan, double lat,
                   double t0, double t1, double rel, const char *what)
{
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    const ac_sim_node_result *sl;
    double jobs, resp, q95 = link_mix_quantile(tr, t0, t1, 0.95);
    link_window(tr, lat, t0, t1, &jobs, &resp);
    ac_sim_options_init(&so);
    so.seed = 5;
    so.replications = 40;
    so.horizon = t1;
    so.warmup = t0;
    so.use_profiles = 1;
    so.faults = plan;
    assert_int_equal(ac_sim_run(f->m, &so, &sr, &f->err), AC_OK);
    sl = &sr->links[0];
    print_message("%s: link jobs %.3f vs sim %.3f +- %.3f (%+.1f%%); mean %.4f s vs %.4f +- %.4f "
                  "(%+.1f%%); p95 %.4f s vs %.4f +- %.4f (%+.1f%%)\n",
                  what, jobs, sl->mean_jobs.mean, sl->mean_jobs.ci95,
                  100.0 * (jobs / sl->mean_jobs.mean - 1.0), resp, sl->mean_response_time.mean,
                  sl->mean_response_time.ci95, 100.0 * (resp / sl->mean_response_time.mean - 1.0),
                  q95, sl->p95_response_time.mean, sl->p95_response_time.ci95,
                  100.0 * (q95 / sl->p95_response_time.mean - 1.0));
    assert_double_close(jobs, sl->mean_jobs.mean, sl->mean_jobs.ci95, rel);
    assert_double_close(resp, sl->mean_response_time.mean, sl->mean_response_time.ci95, rel);
    assert_double_close(q95, sl->p95_response_time.mean, sl->p95_response_time.ci95, rel);
    /* what the link carried reached b: the same totals in both */
    assert_double_close(tr->nodes[1].cum_arrivals[tr->nsamples - 1] - tr->nodes[1].cum_arrivals[0],
                        sr->nodes[1].arrival_rate.mean * (t1 - t0) +
                            tr->nodes[1].arrival_rate[0] * t0,
                        sr->nodes[1].arrival_rate.ci95 * (t1 - t0), rel);
    ac_sim_result_free(sr);
}

/* The link against the simulator over the window [5, 40] s of a 40-s horizon, the same
 * profile and plan in both (vs_sim's tolerance: the 95% half-width + 20%):
 *   burst          a link of 100/s (latency 5 ms) offered 50/s, 150/s over [10, 20) s, then
 *                  50/s: the fluid backlog grows to about 500 and drains by 30 s;
 *   capacity-loss  50% over [10, 20) s on a link of 100/s (latency 1 ms) carrying 60/s: the
 *                  backlog grows at 10/s and drains at 40/s.
 * Both saturate the link, and the node behind it is fed at most the link's capacity. */
static void test_link_vs_sim(void **state)
{
    static const struct {
        const char *what, *xml;
        double loss;    /* the link's capacity-loss share over [10, 20) s (0: no fault) */
        double latency; /* the link's, s */
    } cases[] = {
        {"burst",
         LINK_MODEL("50/s",
                    "<profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
                    "<point at='10.001s' rate='150/s'/><point at='20s' rate='150/s'/>"
                    "<point at='20.001s' rate='50/s'/><point at='40s' rate='50/s'/></profile>",
                    "<link from='a' to='b' capacity='100/s' latency='5ms'/>"),
         0.0, 0.005},
        {"capacity-loss",
         LINK_MODEL("60/s", "", "<link id='ab' from='a' to='b' capacity='100/s' latency='1ms'/>"),
         0.5, 0.001},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx f;
        ac_transient_options opt;
        ac_transient_fault fl = {0, AC_TRANSIENT_FAULT_CAPACITY_LOSS, cases[i].loss, 10.0, 20.0};
        ac_transient_plan plan = {1, &fl};
        const ac_transient_plan *faults = cases[i].loss > 0.0 ? &plan : NULL;
        const ac_transient *tr;
        fx_parse(&f, cases[i].xml);
        fl.target = f.m->nnodes;
        ac_transient_options_init(&opt);
        opt.horizon = 40.0;
        opt.samples = 801;
        tr = fx_eval(&f, &opt, faults);
        assert_true(tr->links[0].saturated);
        for (size_t s = 0; s < tr->nsamples; s++)
            assert_true(tr->nodes[1].arrival_rate[s] <= 100.0 * (1.0 + 1e-6));
        vs_sim(&f, tr, faults, cases[i].latency, 5.0, 40.0, 0.20, cases[i].what);
        fx_free(&f);
    }
}

/* A link down (capacity-loss 100%, kept at 1e-6 of its capacity) over [10, 20) s at 60/s:
 * everything offered then waits (unbounded buffer), 600 jobs, the node behind gets nothing,
 * and the backlog drains at 100 - 60 = 40/s in 15 s. */
static void test_link_down(void **state)
{
    static const char xml[] =
        LINK_MODEL("60/s", "", "<link id='ab' from='a' to='b' capacity='100/s'/>");
    fx f;
    ac_transient_options opt;
    ac_transient_fault fl = {0, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 1.0, 10.0, 20.0};
    ac_transient_plan plan = {1, &fl};
    const ac_transient *tr;
    (void)state;
    fx_parse(&f, xml);
    fl.target = f.m->nnodes;
    ac_transient_options_init(&opt);
    opt.horizon = 50.0;
    opt.samples = 501;
    tr = fx_eval(&f, &opt, &plan);
    assert_double_close(tr->links[0].backlog_peak, 600.0, 0.0, 0.02);
    assert_double_close(tr->links[0].drain_time, 15.0, 0.0, 0.03);
    assert_true(tr->nodes[1].arrival_rate[150] < 1e-3); /* t = 15 s */
    assert_true(tr->links[0].saturated);
    fx_free(&f);
}

/* The latency in the flows: a step 50 -> 100/s at 10 s through a link of 2 s latency (pure
 * delay; then with a capacity of 1000/s). The stages hold lambda x latency jobs at a steady
 * load, so the count a sends minus b's received count grows by (100 - 50) x 2 = 100
 * jobs (the mean delay is the latency); b still receives about 50/s at 10.5 s (Erlang(4) of
 * mean 2 s: 1.9% of the step delivered) and about 100/s at 16 s (99.8%). */
static void test_link_latency_in_flows(void **state)
{
    static const char *const xml[2] = {
        LINK_MODEL("50/s",
                   "<profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
                   "<point at='10.001s' rate='100/s'/><point at='30s' rate='100/s'/></profile>",
                   "<link from='a' to='b' latency='2s'/>"),
        LINK_MODEL("50/s",
                   "<profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
                   "<point at='10.001s' rate='100/s'/><point at='30s' rate='100/s'/></profile>",
                   "<link from='a' to='b' capacity='1000/s' latency='2s'/>")};
    (void)state;
    for (int w = 0; w < 2; w++) {
        fx f;
        ac_transient_options opt;
        const ac_transient *tr;
        size_t last;
        double held;
        fx_parse(&f, xml[w]);
        ac_transient_options_init(&opt);
        opt.horizon = 30.0;
        opt.samples = 601;
        tr = fx_eval(&f, &opt, NULL);
        last = tr->nsamples - 1;
        /* a's departures (an ODE counter; a pure delay's own counts are trapezoids) */
        held = tr->nodes[0].cum_departures[last] - tr->nodes[1].cum_arrivals[last];
        print_message("latency %s: held %.4f jobs (hand 100 + the backlog's %.4f), b at 10.5 s "
                      "%.3f/s, at 16 s %.3f/s\n",
                      w ? "and capacity" : "alone", held,
                      tr->links[0].in_system[last] - tr->links[0].in_system[0],
                      tr->nodes[1].arrival_rate[210], tr->nodes[1].arrival_rate[320]);
        assert_double_close(held - (tr->links[0].in_system[last] - tr->links[0].in_system[0]),
                            100.0, 0.0, 0.01);
        assert_double_close(tr->nodes[1].arrival_rate[210], 50.0 + 50.0 * 0.0190, 0.0, 0.01);
        assert_double_close(tr->nodes[1].arrival_rate[320], 50.0 + 50.0 * 0.9977, 0.0, 0.01);
        /* the law's shift carries the latency */
        assert_true(tr->links[0].law[AC_TRANSIENT_LAW_SHIFT * tr->nsamples + last] >= 2.0);
        fx_free(&f);
    }
}

/* The simulator's link faults alone (sim/faults.c) against the closed forms: a capacity-loss
 * of 40% and a delay of 50 ms over the whole run on a link of 100/s carrying 50/s is the
 * M/D/1 of capacity 60/s (solver/link.c's capacity_loss) and 50 ms more latency. */
static void test_sim_link_faults_closed_form(void **state)
{
    static const char xml[] =
        LINK_MODEL("50/s", "", "<link id='ab' from='a' to='b' capacity='100/s' latency='1ms'/>");
    fx f;
    ac_transient_fault fl[2] = {{0, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 0.4, 0.0, INFINITY},
                                {0, AC_TRANSIENT_FAULT_DELAY, 0.05, 0.0, INFINITY}};
    ac_transient_plan plan = {2, fl};
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    ac_solver_link_result lr;
    (void)state;
    fx_parse(&f, xml);
    fl[0].target = fl[1].target = f.m->nnodes;
    assert_int_equal(ac_solver_link_solve(&f.m->links[0], 50.0, 0.4, &lr, &f.err), AC_OK);
    ac_sim_options_init(&so);
    so.seed = 3;
    so.replications = 20;
    so.horizon = 200.0;
    so.warmup = 20.0;
    so.faults = &plan;
    assert_int_equal(ac_sim_run(f.m, &so, &sr, &f.err), AC_OK);
    print_message("sim link under faults: mean %.5f s +- %.5f vs M/D/1 at 60/s + 50 ms %.5f; "
                  "utilisation %.4f vs %.4f\n",
                  sr->links[0].mean_response_time.mean, sr->links[0].mean_response_time.ci95,
                  lr.mean_response_time + 0.05, sr->links[0].utilization.mean, lr.utilization);
    assert_double_close(sr->links[0].mean_response_time.mean, lr.mean_response_time + 0.05,
                        2.0 * sr->links[0].mean_response_time.ci95, 0.0);
    assert_double_close(sr->links[0].utilization.mean, lr.utilization,
                        2.0 * sr->links[0].utilization.ci95, 0.0);
    ac_solver_link_result_clear(&lr);
    ac_sim_result_free(sr);
    /* a fault the link cannot take is refused */
    fl[1].attr = AC_TRANSIENT_FAULT_SERVERS_DOWN;
    assert_int_equal(ac_sim_run(f.m, &so, &sr, &f.err), AC_EINVAL);
    fx_free(&f);
}

/* ---- the oldest job's age ----------------------------------------------------------------- */

/* A deterministic overload from empty: lambda = 20/s into mu = 10/s for T = 30 s. The jobs
 * entered by s are 20 s, those left by T are 10 T: the oldest entered at T / 2, its age
 * T (1 - mu / lambda) = 15 s. At a steady load (M/M/1 at rho 0.5) the age is the mean
 * response time 1 / (mu - lambda) = 0.2 s (Little, FIFO). Pool, queue (one consumer of 10/s),
 * link. */
static void test_oldest_age(void **state)
{
    static const char pool[] = "<architecture name='o' format='1'>\n"
                               "  <workload><source id='s' to='p' rate='20/s'/></workload>\n"
                               "  <pool id='p' servers='1' service-rate='10/s'/>\n"
                               "</architecture>\n";
    static const char steady[] = "<architecture name='o' format='1'>\n"
                                 "  <workload><source id='s' to='p' rate='5/s'/></workload>\n"
                                 "  <pool id='p' servers='1' service-rate='10/s'/>\n"
                                 "</architecture>\n";
    static const char queue[] =
        "<architecture name='o' format='1'>\n"
        "  <workload><source id='s' to='q' rate='20/s'/></workload>\n"
        "  <queue id='q' batch-size='1' max-consumers='1' visibility-timeout='1h'/>\n"
        "  <function id='c' concurrency='1' duration='100ms' timeout='1h' keep-alive='1h'/>\n"
        "  <route from='q' to='c'/>\n"
        "</architecture>\n";
    static const char link[] = LINK_MODEL("20/s", "", "<link from='a' to='b' capacity='10/s'/>");
    fx f;
    ac_transient_options opt;
    const ac_transient *tr;
    (void)state;
    ac_transient_options_init(&opt);
    opt.horizon = 30.0;
    opt.samples = 301;
    opt.start = AC_TRANSIENT_START_EMPTY;
    fx_parse(&f, pool);
    tr = fx_eval(&f, &opt, NULL);
    print_message("oldest age: pool %.4f s (hand 15)\n", tr->nodes[0].oldest_age);
    assert_double_close(tr->nodes[0].oldest_age, 15.0, 0.0, 0.02);
    fx_free(&f);
    fx_parse(&f, queue);
    tr = fx_eval(&f, &opt, NULL);
    print_message("oldest age: queue %.4f s (hand 15)\n", tr->nodes[0].oldest_age);
    assert_double_close(tr->nodes[0].oldest_age, 15.0, 0.0, 0.02);
    fx_free(&f);
    fx_parse(&f, link);
    tr = fx_eval(&f, &opt, NULL);
    print_message("oldest age: link %.4f s (hand 15)\n", tr->links[0].oldest_age);
    assert_double_close(tr->links[0].oldest_age, 15.0, 0.0, 0.02);
    fx_free(&f);
    opt.start = AC_TRANSIENT_START_STEADY;
    fx_parse(&f, steady);
    tr = fx_eval(&f, &opt, NULL);
    print_message("oldest age: steady M/M/1 %.6f s (hand 0.2)\n", tr->nodes[0].oldest_age);
    assert_double_close(tr->nodes[0].oldest_age, 0.2, 0.0, 1e-3);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_constant_load_steady),
        cmocka_unit_test(test_link_constant_fault_steady),
        cmocka_unit_test(test_link_vs_sim),
        cmocka_unit_test(test_link_down),
        cmocka_unit_test(test_link_latency_in_flows),
        cmocka_unit_test(test_sim_link_faults_closed_form),
        cmocka_unit_test(test_oldest_age),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
