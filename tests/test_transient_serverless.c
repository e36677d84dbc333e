/*
 * Tests of the fluid transient of serverless stages (solver/transient*.c,
 * include/archcheck/transient.h): functions (sync, async, keep-alive, cold starts,
 * provisioned concurrency), gateways and queues, against closed forms and conservation.
 */
#include "helpers.h"

#include <time.h>

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/transient.h"

#include "transient_helpers.h"

/* ---- serverless stages (functions, queues, gateways) ----------------------------------- */

/* E[min(X, theta)], X ~ Exp(mean d). */
static double mean_exec(double d, double theta)
{
    return d * (1.0 - exp(-theta / d));
}

/*
 * A sync function under a constant rate reaches the fluid steady state. Below the
 * concurrency (lambda T_e = 5 < C = 10): busy = lambda T_e, every request admitted (throttle
 * 0, loss 0), instances = busy (the fluid keeps no spare instance: a freed one serves the
 * demand at once), utilisation busy / C. Above (lambda T_e = 15 > 10): the
 * busy count holds at C and the throttle rate is lambda - C / T_e = 50/s, the fluid limit of
 * Erlang-B. Both from the steady start and, at a long horizon, from empty (cold starts).
 * Tolerance 1e-6 relative: the integration's (rtol 1e-7) on values reached by integrating.
 */
static const char sync_fmt[] =
    "<architecture name='f' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='%s'/>\n"
    "    <profile source='s'><point at='0s' rate='%s'/><point at='100s' rate='%s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s'/>\n"
    "</architecture>\n";

static void test_fn_sync_steady(void **state)
{
    const double Te = mean_exec(0.1, 60.0);
    ac_transient_options o;
    char xml[1024];
    trx x;
    (void)state;
    for (int start = 0; start < 2; start++) {
        const ac_transient_node *n;
        size_t H;
        ac_transient_options_init(&o);
        o.start = start ? AC_TRANSIENT_START_EMPTY : AC_TRANSIENT_START_STEADY;
        snprintf(xml, sizeof xml, sync_fmt, "50/s", "50/s", "50/s");
        trx_run(&x, xml, &o, NULL);
        n = tnode(&x, "fn");
        H = x.tr->nsamples - 1;
        assert_true(n->modelled);
        assert_string_equal(x.tr->method, "cvode-bdf");
        assert_int_equal(x.tr->started_steady, !start);
        assert_double_close(n->busy[H], 50.0 * Te, 0.0, 1e-6);
        assert_double_close(n->mean_jobs[H], 50.0 * Te, 0.0, 1e-6);
        assert_double_close(n->utilization[H], 50.0 * Te / 10.0, 0.0, 1e-6);
        assert_double_close(n->throughput[H], 50.0, 0.0, 1e-6);
        assert_double_close(n->throttle_rate[H], 0.0, 1e-6, 0.0);
        assert_double_close(n->loss_rate[H], 0.0, 1e-6, 0.0);
        assert_double_close(n->cold_start_rate[H], 0.0, 1e-6, 0.0);
        /* no idle-warm stock under a steady load: a freed instance serves the demand at once */
        assert_double_close(n->instances[H], 50.0 * Te, 0.0, 1e-6);
        assert_double_close(n->mean_response_time[H], Te, 0.0, 1e-6);
        trx_free(&x);

        snprintf(xml, sizeof xml, sync_fmt, "150/s", "150/s", "150/s");
        trx_run(&x, xml, &o, NULL);
        n = tnode(&x, "fn");
        assert_double_close(n->throttle_rate[H], 150.0 - 10.0 / Te, 0.0, 1e-6);
        assert_double_close(n->loss_rate[H], 150.0 - 10.0 / Te, 0.0, 1e-6);
        assert_double_close(n->throughput[H], 10.0 / Te, 0.0, 1e-6);
        assert_double_close(n->busy[H], 10.0, 0.0, 1e-6);
        assert_double_close(n->utilization[H], 1.0, 0.0, 1e-6);
        print_message("sync function, %s start: throttle %.9g/s (fluid Erlang-B limit %.9g/s)\n",
                      start ? "empty" : "steady", n->throttle_rate[H], 150.0 - 10.0 / Te);
        trx_free(&x);
    }
}

/*
 * An async function with failures and retries (f = 0.2, r = 2): in steady state the attempts
 * are lambda (1 + f + f^2) = 62/s on instances busy 62 T_e, the loss lambda f^3 = 0.4/s, and
 * a request's mean time includes its back-offs: T_e (1 + f + f^2) per request spent busy
 * and f 60 s + f^2 120 s in back-off, by Little. A burst above the concurrency (200/s
 * against C / T_e = 100 executions/s) waits in the backlog, which grows at the difference
 * (the first attempts 200/s and their retries against 100/s) and nothing is throttled.
 */
static void test_fn_async_steady(void **state)
{
    static const char xml[] =
        "<architecture name='a' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='50/s'/>\n"
        "    <profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
        "<point at='10.001s' rate='200/s'/><point at='20s' rate='200/s'/></profile>\n"
        "  </workload>\n"
        "  <function id='fn' invocation='async' concurrency='10' duration='100ms' timeout='60s'"
        " fail-prob='0.2'/>\n"
        "</architecture>\n";
    const double Te = mean_exec(0.1, 60.0), f = 0.2, att = 50.0 * (1.0 + f + f * f);
    ac_transient_options o;
    const ac_transient_node *n;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 201;
    trx_run(&x, xml, &o, NULL);
    n = tnode(&x, "fn");
    assert_true(x.tr->started_steady);
    assert_double_close(n->execution_rate[0], att, 0.0, 1e-6);
    assert_double_close(n->busy[0], att * Te, 0.0, 1e-6);
    assert_double_close(n->loss_rate[0], 50.0 * f * f * f, 0.0, 1e-6);
    assert_double_close(n->throughput[0], 50.0 * (1.0 - f * f * f), 0.0, 1e-6);
    assert_double_close(n->mean_response_time[0], Te + f * 60.0 + f * f * 120.0, 0.0, 1e-6);
    /* the burst: every slot busy, no throttling, a backlog */
    {
        size_t a = at(x.tr, 15.0), b = at(x.tr, 19.0);
        assert_double_close(n->busy[b], 10.0, 0.0, 1e-6);
        assert_double_close(n->throttle_rate[b], 0.0, 1e-12, 0.0);
        assert_true(n->backlog[b] > n->backlog[a] && n->backlog[a] > 100.0);
    }
    trx_free(&x);
}

/*
 * Conservation on a network with a burst: a gateway that rejects, a sync function that
 * throttles and retries its failed executions, a queue with redeliveries and dead letters,
 * its polled consumer, an async function with retries and a backlog, and a pool. For every
 * node: offered - departed - lost = the change of what it holds (1e-6 relative); for the
 * sync function: offered = admitted + throttled (its throttled requests are lost at once);
 * each node is offered what its upstream node sent (the counters of both, 1e-6).
 */
static void test_serverless_conservation(void **state)
{
    static const char xml[] =
        "<architecture name='c' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='gw' rate='40/s'/>\n"
        "    <profile source='s'><point at='0s' rate='40/s'/><point at='5s' rate='40/s'/>"
        "<point at='6s' rate='140/s'/><point at='20s' rate='140/s'/><point at='21s' rate='40/s'/>"
        "<point at='60s' rate='40/s'/></profile>\n"
        "  </workload>\n"
        "  <gateway id='gw' rate-limit='100/s' burst='30'/>\n"
        "  <function id='ingest' concurrency='8' duration='60ms' timeout='1s' fail-prob='5%'"
        " retries='1' cold-start='200ms' scale-rate='20/s' keep-alive='20s'/>\n"
        "  <queue id='q' batch-size='2' max-consumers='6' visibility-timeout='3s'"
        " max-receives='3' capacity='400'/>\n"
        "  <function id='worker' concurrency='50' duration='150ms' fail-prob='10%'"
        " cold-start='100ms'/>\n"
        "  <function id='notify' invocation='async' concurrency='3' duration='50ms'"
        " fail-prob='30%' retries='2'/>\n"
        "  <pool id='db' servers='2' service-rate='60/s' dispatch='shared-queue'/>\n"
        "  <route from='gw' to='ingest'/>\n"
        "  <route from='ingest' to='q'/>\n"
        "  <route from='q' to='worker' fanout='2'/>\n"
        "  <route from='worker' to='notify' p='0.5' fanin='2'/>\n"
        "  <route from='worker' to='db' p='0.5'/>\n"
        "</architecture>\n";
    static const char *ids[] = {"gw", "ingest", "q", "worker", "notify", "db"};
    ac_transient_options o;
    size_t H;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 121;
    trx_run(&x, xml, &o, NULL);
    H = x.tr->nsamples - 1;
    print_message("conservation network: %zu states, %s, %.3f s\n", x.tr->dim, x.tr->method,
                  x.seconds);
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        const ac_transient_node *n = tnode(&x, ids[k]);
        double lost = n->cum_lost != NULL ? n->cum_lost[H] : 0.0;
        double held = n->in_system[H] - n->in_system[0];
        assert_true(n->modelled);
        assert_true(n->cum_arrivals[H] > 100.0);
        assert_double_close(n->cum_arrivals[H] - n->cum_departures[H] - lost, held,
                            1e-6 * n->cum_arrivals[H], 0.0);
    }
    {
        const ac_transient_node *gw = tnode(&x, "gw"), *in = tnode(&x, "ingest");
        const ac_transient_node *q = tnode(&x, "q"), *w = tnode(&x, "worker");
        const ac_transient_node *nt = tnode(&x, "notify"), *db = tnode(&x, "db");
        /* every stage lost something in the burst */
        assert_true(gw->cum_lost[H] > 10.0 && in->cum_throttled[H] > 10.0);
        assert_true(q->cum_lost[H] > 1.0 && nt->cum_lost[H] > 1.0);
        assert_double_close(in->cum_arrivals[H], in->cum_admitted[H] + in->cum_throttled[H], 0.0,
                            1e-6);
        assert_double_close(in->cum_arrivals[H], gw->cum_departures[H], 0.0, 1e-6);
        assert_double_close(q->cum_arrivals[H], in->cum_departures[H], 0.0, 1e-6);
        assert_double_close(nt->cum_arrivals[H], 0.25 * w->cum_departures[H], 0.0, 1e-6);
        assert_double_close(db->cum_arrivals[H], 0.5 * w->cum_departures[H], 0.0, 1e-6);
    }
    trx_free(&x);
}

/* P(Erlang(k, rate) > t) */
static double erlang_survival(int k, double rate, double t)
{
    double s = 0.0, term = exp(-rate * t);
    for (int n = 0; n < k; n++) {
        s += term;
        term *= rate * t / (double)(n + 1);
    }
    return s;
}

/* Its density at t. */
static double erlang_density(int k, double rate, double t)
{
    return rate * exp(-rate * t) * pow(rate * t, (double)(k - 1)) / tgamma((double)k);
}

/*
 * Keep-alive: 200/s on executions of T_e = 50 ms (10 busy instances, no idle ones) until
 * t0 = 20 s, then nothing. Each busy instance ends its execution (Exp(T_e)) and then stays
 * idle an Erlang(k, k / tau) time (tau = 60 s, k = AC_TRANSIENT_KEEPALIVE_STAGES), so the
 * instances alive at t0 + t are N0 P(E + G > t) = N0 [P(G > t) + T_e g(t) + O(T_e^2 g')],
 * and their area after t0 is N0 (T_e + tau) (the mean of E + G). At tau: 45% alive for k = 8
 * (a fixed delay would keep them all up to tau, then none). With 4 provisioned instances the
 * count falls to 4 and stays there (they are never reclaimed), the on-demand ones decaying
 * as above.
 */
static void test_fn_keepalive(void **state)
{
    static const char xml[] =
        "<architecture name='k' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='200/s'/>\n"
        "    <profile source='s'><point at='0s' rate='200/s'/><point at='19.999s' rate='200/s'/>"
        "<point at='20s' rate='0/s'/><point at='400s' rate='0/s'/></profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='1000' duration='50ms' timeout='60s' keep-alive='60s'/>\n"
        "  <mitigation id='pc' kind='provisioned-concurrency' target='fn' amount='4'/>\n"
        "</architecture>\n";
    const int k = AC_TRANSIENT_KEEPALIVE_STAGES;
    const double Te = mean_exec(0.05, 60.0), tau = 60.0, rate = (double)k / tau;
    const double surv = erlang_survival(k, rate, tau) + Te * erlang_density(k, rate, tau);
    ac_transient_options o;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 801; /* 0.5 s apart */
    for (int prov = 0; prov < 2; prov++) {
        const ac_transient_node *n;
        double P = prov ? 4.0 : 0.0, N0, B0, W0, area = 0.0, expect, expect_area;
        size_t s0, s1, sb;
        trx_run(&x, xml, &o, prov ? "pc" : NULL);
        n = tnode(&x, "fn");
        sb = at(x.tr, 19.5);
        s0 = at(x.tr, 20.0);
        s1 = at(x.tr, 20.0 + tau);
        /* at t0: 10 busy, of which P / (1 + rho) provisioned (the relaxation keeps rho of
           the provisioned ones idle) and B0 on-demand; no idle-warm on-demand ones (a freed
           instance serves the demand at once) */
        B0 = n->busy[sb] - P / (1.0 + AC_TRANSIENT_RELAX);
        W0 = 0.0;
        N0 = n->instances[s0] - P;
        assert_double_close(n->busy[sb], 200.0 * Te, 0.0, 1e-6);
        assert_double_close(N0, B0 + W0, 0.0, 1e-3);
        expect = (B0 * surv + W0 * erlang_survival(k, rate, tau)) / (B0 + W0);
        expect_area = (B0 * (Te + tau) + W0 * tau) / (B0 + W0);
        for (size_t s = s0; s < x.tr->nsamples - 1; s++)
            area += 0.5 * (n->instances[s] + n->instances[s + 1] - 2.0 * P) *
                    (x.tr->t[s + 1] - x.tr->t[s]);
        print_message("keep-alive%s: alive after tau %.6f of the on-demand ones (Erlang-%d "
                      "%.6f), area %.4f s per instance (T_e + tau = %.4f s)\n",
                      prov ? " with 4 provisioned" : "", (n->instances[s1] - P) / N0, k, expect,
                      area / N0, expect_area);
        assert_double_close((n->instances[s1] - P) / N0, expect, 0.0, 1e-3);
        assert_double_close(area / N0, expect_area, 0.0, 1e-3);
        assert_double_close(n->instances[x.tr->nsamples - 1], P, 1e-6, 0.0);
        assert_double_close(n->busy[x.tr->nsamples - 1], 0.0, 1e-6, 0.0);
        assert_double_close(n->cold_start_rate[s1], 0.0, 1e-12, 0.0);
        trx_free(&x);
    }
}

/*
 * Cold starts: an empty function (C = 1000, d = 1 s, c0 = 0.5 s, s = 10/s, bucket G = 10)
 * offered 100/s from t = 0. The fluid by hand: the bucket's G tokens go first (cold starts
 * at the offered rate while they last: t_0 = G / (lambda - s) = 0.111 s), then one new
 * instance per token, s per second: instances alive = G + s t exactly (every instance, once
 * it has run, is reused at once: the demand exceeds them), and the rest is throttled:
 * lambda - s - busy / T_e. The growth stops when the warm reuse busy / T_e and the scale
 * rate cover the demand: busy = (lambda - s) T_e, with s c0 more still initialising, i.e. at
 * G + s t* = (lambda - s) T_e + s c0, t* = 8.5 s (lambda (d + c0) = 150 would be the count
 * if every execution started cold; with reuse the function needs lambda d = 100 once warm,
 * and the fluid reaches (lambda - s) d + s c0 = 95 at the scale rate). Then busy -> lambda T_e.
 * A freed instance serves the demand at once (no idle-warm stock of the relaxation), so
 * these hold as they are: busy = G + s t - c.
 * The same with scale-burst='30' (the bucket's depth G = 30, doc/format.md's extension; AWS
 * Lambda's 2023 scaling is scale-rate 100/s with scale-burst 1000): t_0 = 0.333 s, instances
 * alive 30 + s t, t* = 6.5 s. Fails when the transient ignores scale-burst (G stays 10: the
 * instances at 4 s would be 50, not 70).
 */
static void cold_start_step(const char *burst_attr, double G)
{
    static const char fmt[] =
        "<architecture name='c' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='100/s'/>\n"
        "    <profile source='s'><point at='0s' rate='100/s'/><point at='20s' rate='100/s'/>"
        "</profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='1000' duration='1s' timeout='60s' cold-start='500ms'"
        " scale-rate='10/s'%s/>\n"
        "</architecture>\n";
    const double lam = 100.0, s = 10.0, c0 = 0.5, Te = mean_exec(1.0, 60.0);
    const double t0 = G / (lam - s);
    const double tstar = ((lam - s) * Te + s * c0 - G) / s, hi = fmin(6.0, tstar - 0.5);
    ac_transient_options o;
    const ac_transient_node *n;
    size_t first = AC_NONE;
    char xml[1024];
    trx x;
    snprintf(xml, sizeof xml, fmt, burst_attr);
    ac_transient_options_init(&o);
    o.start = AC_TRANSIENT_START_EMPTY;
    o.samples = 2001; /* 0.01 s apart */
    trx_run(&x, xml, &o, NULL);
    n = tnode(&x, "fn");
    /* the growth at the scale rate, from the bucket's G (until t*) */
    assert_double_close((n->instances[at(x.tr, hi)] - n->instances[at(x.tr, 2.0)]) / (hi - 2.0), s,
                        0.0, 1e-6);
    assert_double_close(n->instances[at(x.tr, 4.0)], G + s * 4.0, 0.0, 1e-6);
    assert_double_close(n->cold_start_rate[at(x.tr, 4.0)], s, 0.0, 1e-6);
    {
        /* initialising: c' = s - c / c0 from c(t_0) = lambda c0 (1 - e^{-t_0/c0}); the
           others busy (a freed instance serves the demand at once: none idle) */
        double ct0 = lam * c0 * (1.0 - exp(-t0 / c0));
        double c4 = s * c0 + (ct0 - s * c0) * exp(-(4.0 - t0) / c0);
        double busy = G + s * 4.0 - c4;
        assert_double_close(n->initialising[at(x.tr, 4.0)], c4, 0.0, 1e-4);
        assert_double_close(n->busy[at(x.tr, 4.0)], busy, 0.0, 1e-4);
        assert_double_close(n->throttle_rate[at(x.tr, 4.0)], lam - s - busy / Te, 0.0, 1e-4);
    }
    for (size_t k = 0; k < x.tr->nsamples && first == AC_NONE; k++)
        if (x.tr->t[k] > 1.0 && n->cold_start_rate[k] < s * (1.0 - 1e-6))
            first = k;
    assert_true(first != AC_NONE);
    print_message("cold starts (G %g): growth at %.9g instances/s ends at %.3f s (hand %.3f s)\n",
                  G, (n->instances[at(x.tr, hi)] - n->instances[at(x.tr, 2.0)]) / (hi - 2.0),
                  x.tr->t[first], tstar);
    assert_double_close(x.tr->t[first], tstar, 0.021, 0.0);
    assert_double_close(n->busy[x.tr->nsamples - 1], lam * Te, 0.0, 1e-4);
    assert_double_close(n->throttle_rate[x.tr->nsamples - 1], 0.0, 1e-6, 0.0);
    assert_true(n->instances[x.tr->nsamples - 1] >= lam * Te);
    assert_double_close(n->cum_cold_starts[x.tr->nsamples - 1], n->instances[x.tr->nsamples - 1],
                        0.0, 1e-6); /* none reclaimed yet */
    trx_free(&x);
}

static void test_fn_cold_start_step(void **state)
{
    (void)state;
    cold_start_step("", 10.0);
    cold_start_step(" scale-burst='30'", 30.0);
}

/*
 * Provisioned and pre-warmed instances. With 10 provisioned instances and lambda T_e = 5 an
 * empty function never starts cold: 10 instances all along. With pre-warming (20 every
 * 100 s, keep-alive 50 s) and no load, the pings at 0, 100 and 200 s top the instances up
 * to 20, which then age through the keep-alive: S = the Erlang survival, the instances
 * created = 20 + 20 (1 - S(100)) + 20 (1 - S(200) - (1 - S(100)) S(100)).
 */
static void test_fn_provisioned_prewarm(void **state)
{
    static const char xml[] =
        "<architecture name='p' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='fn' rate='%s'/>\n"
        "    <profile source='s'><point at='0s' rate='%s'/><point at='250s' rate='%s'/>"
        "</profile>\n"
        "  </workload>\n"
        "  <function id='fn' concurrency='100' duration='100ms' timeout='60s' keep-alive='50s'/>\n"
        "  <mitigation id='pc' kind='provisioned-concurrency' target='fn' amount='10'/>\n"
        "  <mitigation id='pw' kind='pre-warming' target='fn' amount='20' interval='100s'/>\n"
        "</architecture>\n";
    const int k = AC_TRANSIENT_KEEPALIVE_STAGES;
    const double rate = (double)k / 50.0;
    const double S100 = erlang_survival(k, rate, 100.0), S200 = erlang_survival(k, rate, 200.0);
    ac_transient_options o;
    const ac_transient_node *n;
    char buf[2048];
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.start = AC_TRANSIENT_START_EMPTY;
    o.samples = 501; /* 0.5 s apart */
    snprintf(buf, sizeof buf, xml, "50/s", "50/s", "50/s");
    trx_run(&x, buf, &o, "pc");
    n = tnode(&x, "fn");
    for (size_t s = 0; s < x.tr->nsamples; s++)
        assert_double_close(n->instances[s], 10.0, 1e-9, 0.0);
    assert_double_close(n->cum_cold_starts[x.tr->nsamples - 1], 0.0, 1e-9, 0.0);
    assert_double_close(n->busy[x.tr->nsamples - 1], 5.0, 0.0, 1e-6);
    trx_free(&x);

    snprintf(buf, sizeof buf, xml, "0/s", "0/s", "0/s");
    trx_run(&x, buf, &o, "pw");
    n = tnode(&x, "fn");
    assert_double_close(n->prewarm_instances,
                        20.0 + 20.0 * (1.0 - S100) + 20.0 * (1.0 - S200 - (1.0 - S100) * S100), 0.0,
                        1e-6);
    /* topped up to 20 at 100 s, then aged 0.5 s (the older ones with them) */
    assert_double_close(n->instances[at(x.tr, 100.5)],
                        20.0 * erlang_survival(k, rate, 100.5) +
                            20.0 * (1.0 - S100) * erlang_survival(k, rate, 0.5),
                        0.0, 1e-6);
    assert_double_close(n->instances[at(x.tr, 99.5)], 20.0 * erlang_survival(k, rate, 99.5), 0.0,
                        1e-6);
    assert_double_close(n->cum_cold_starts[x.tr->nsamples - 1], 0.0, 1e-9, 0.0);
    trx_free(&x);
}

/*
 * A gateway (rate limit r = 100/s, bucket 50) offered 150/s from 10 s to 30 s (ramps of 1 ms)
 * over a base of 50/s. By hand: the bucket drains at lambda - r = 50/s, empty burst / (lambda
 * - r) = 1 s after the rate passed r (at 11.00075 s with the ramp); nothing is rejected
 * before; then the rejection is lambda - r = 50/s, the admitted flow r; after the burst the
 * bucket refills at r - lambda = 50/s. An unbounded gateway behind it passes everything on.
 */
static void test_gateway_burst(void **state)
{
    static const char xml[] =
        "<architecture name='g' format='1'>\n"
        "  <workload>\n"
        "    <source id='s' to='g' rate='50/s'/>\n"
        "    <profile source='s'><point at='0s' rate='50/s'/><point at='10s' rate='50/s'/>"
        "<point at='10.001s' rate='150/s'/><point at='30s' rate='150/s'/>"
        "<point at='30.001s' rate='50/s'/><point at='60s' rate='50/s'/></profile>\n"
        "  </workload>\n"
        "  <gateway id='g' rate-limit='100/s' burst='50'/>\n"
        "  <gateway id='u'/>\n"
        "  <route from='g' to='u'/>\n"
        "</architecture>\n";
    const double ramp = 0.5 * 0.0005 * 50.0; /* the ramp's share above r */
    const double t_empty = 10.001 + (50.0 - ramp) / 50.0;
    /* the relaxation: tau = AC_TRANSIENT_RELAX burst / r; the rejection reaches lambda - r
       within a few tau of the bucket's end (at the fixed point admitted = r + z / tau = r:
       the bucket is empty, z = 0) */
    const double tau = AC_TRANSIENT_RELAX * 50.0 / 100.0;
    size_t first = AC_NONE;
    ac_transient_options o;
    const ac_transient_node *g, *u;
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 6001; /* 0.01 s apart */
    trx_run(&x, xml, &o, NULL);
    g = tnode(&x, "g");
    u = tnode(&x, "u");
    /* 1e-5: the relaxation (tau = 1e-4 / r) lags the bucket by a few tau (lambda - r) */
    assert_double_close(g->tokens[at(x.tr, 10.5)], 50.0 - ramp - 50.0 * (10.5 - 10.001), 0.0, 1e-6);
    for (size_t s = 0; s < x.tr->nsamples && first == AC_NONE; s++)
        if (g->loss_rate[s] > 1e-9)
            first = s;
    assert_true(first != AC_NONE);
    assert_double_close(x.tr->t[first], t_empty, 0.01 + 3.0 * tau, 0.0);
    for (size_t s = at(x.tr, 11.1); s <= at(x.tr, 30.0); s++) {
        assert_double_close(g->loss_rate[s], 50.0, 0.0, 1e-6);
        assert_double_close(g->throughput[s], 100.0, 0.0, 1e-6);
        assert_double_close(g->tokens[s], 0.0, 1e-6, 0.0);
        assert_double_close(g->mean_jobs[s], 50.0, 1e-6, 0.0);
    }
    print_message("gateway: tokens at %.2f s %.6g, rejection from %.2f s (hand %.5f s), %.9g/s\n",
                  10.5, g->tokens[at(x.tr, 10.5)], x.tr->t[first], t_empty,
                  g->loss_rate[at(x.tr, 20.0)]);
    assert_double_close(g->tokens[at(x.tr, 30.5)], ramp + 50.0 * (30.5 - 30.001), 0.0, 1e-5);
    assert_double_close(g->tokens[at(x.tr, 31.5)], 50.0, 0.0, 1e-6);
    /* the rejected: 50/s from the empty bucket to the end of the burst, within the
       relaxation's lag at the start (about (lambda - r) tau) */
    assert_double_close(g->cum_lost[x.tr->nsamples - 1], 50.0 * (30.0005 - t_empty),
                        2.0 * 50.0 * tau, 0.0);
    for (size_t s = 0; s < x.tr->nsamples; s++) {
        assert_double_close(u->throughput[s], g->throughput[s], 1e-12, 1e-12);
        assert_true(u->loss_rate[s] == 0.0);
    }
    assert_null(u->tokens);
    trx_free(&x);
}

/*
 * A queue consumed by a function (C = 10, T_e = 0.1 s, batch 1): drain capacity C / T_e =
 * 100 messages/s. 50/s with a burst of 150/s from 10 s to 30 s. By hand: the consumer first
 * fills its 5 free slots, taking every arrival while its busy count rises as 15 - 10 e^{-t /
 * T_e}, which reaches C after T_e ln 2; from then the backlog grows at 150 - 100 = 50/s, and
 * after the burst it drains at 100 - 50 = 50/s: empty at 30 + (30 - 10 - T_e ln 2) = 49.93 s.
 * With batches of 10 and ten times the rates (500/s, burst 1500/s) the consumer holds full
 * batches under the backlog (1000 messages/s): the backlog grows at 500/s, and at 500/s the
 * fluid queue keeps 5 messages visible (batches of 5 keep up). With fail-prob 0.5 and three
 * receives at 40/s, a delivery fails with phi = 0.5: dead letters lambda phi^3, deliveries
 * lambda (1 + phi + phi^2).
 */
static const char queue_fmt[] =
    "<architecture name='q' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='q' rate='%g/s'/>\n"
    "    <profile source='s'><point at='0s' rate='%g/s'/><point at='10s' rate='%g/s'/>"
    "<point at='10.001s' rate='%g/s'/><point at='30s' rate='%g/s'/>"
    "<point at='30.001s' rate='%g/s'/><point at='80s' rate='%g/s'/></profile>\n"
    "  </workload>\n"
    "  <queue id='q' batch-size='%d' max-receives='3'/>\n"
    "  <function id='w' concurrency='10' duration='100ms' timeout='60s' fail-prob='%g'/>\n"
    "  <route from='q' to='w'/>\n"
    "</architecture>\n";

static void queue_xml(char *buf, size_t size, double base, double burst, int batch, double f)
{
    snprintf(buf, size, queue_fmt, base, base, base, burst, burst, base, base, batch, f);
}

static void test_queue_backlog(void **state)
{
    const double Te = mean_exec(0.1, 60.0), t1 = Te * log(2.0);
    const double peak = 50.0 * (30.0 - 10.001 - t1), t_empty = 30.0005 + peak / 50.0;
    ac_transient_options o;
    const ac_transient_node *q, *w;
    size_t first = AC_NONE;
    char xml[2048];
    trx x;
    (void)state;
    ac_transient_options_init(&o);
    o.samples = 8001; /* 0.01 s apart */
    queue_xml(xml, sizeof xml, 50.0, 150.0, 1, 0.0);
    trx_run(&x, xml, &o, NULL);
    q = tnode(&x, "q");
    w = tnode(&x, "w");
    assert_double_close(q->backlog[at(x.tr, 5.0)], 0.0, 1e-9, 0.0);
    assert_double_close(q->utilization[at(x.tr, 5.0)], 0.5, 0.0, 1e-9);
    assert_double_close((q->backlog[at(x.tr, 25.0)] - q->backlog[at(x.tr, 15.0)]) / 10.0, 50.0, 0.0,
                        1e-6);
    assert_double_close(q->backlog[at(x.tr, 30.0)], peak, 0.0, 1e-3);
    assert_double_close(q->throughput[at(x.tr, 20.0)], 100.0, 0.0, 1e-9);
    assert_double_close(w->busy[at(x.tr, 20.0)], 10.0, 0.0, 1e-9);
    assert_double_close(w->throttle_rate[at(x.tr, 20.0)], 0.0, 1e-12, 0.0); /* polled */
    for (size_t k = at(x.tr, 31.0); k < x.tr->nsamples && first == AC_NONE; k++)
        if (q->backlog[k] < 1e-6)
            first = k;
    assert_true(first != AC_NONE);
    print_message("queue: backlog %.6g at 30 s (hand %.6g), empty at %.2f s (hand %.3f s)\n",
                  q->backlog[at(x.tr, 30.0)], peak, x.tr->t[first], t_empty);
    assert_double_close(x.tr->t[first], t_empty, 0.02, 0.0);
    assert_double_close(q->throughput[x.tr->nsamples - 1], 50.0, 0.0, 1e-6);
    assert_double_close(w->busy[x.tr->nsamples - 1], 5.0, 0.0, 1e-6);
    trx_free(&x);

    queue_xml(xml, sizeof xml, 500.0, 1500.0, 10, 0.0);
    trx_run(&x, xml, &o, NULL);
    q = tnode(&x, "q");
    w = tnode(&x, "w");
    assert_double_close(q->backlog[at(x.tr, 5.0)], 5.0, 0.0, 1e-6);
    assert_double_close(w->busy[at(x.tr, 5.0)], 10.0, 0.0, 1e-6);
    assert_double_close((q->backlog[at(x.tr, 25.0)] - q->backlog[at(x.tr, 15.0)]) / 10.0, 500.0,
                        0.0, 1e-6);
    assert_double_close(q->throughput[at(x.tr, 20.0)], 100.0, 0.0, 1e-9);
    trx_free(&x);

    queue_xml(xml, sizeof xml, 40.0, 40.0, 1, 0.5); /* 70 deliveries/s, below 100/s */
    trx_run(&x, xml, &o, NULL);
    q = tnode(&x, "q");
    assert_true(x.tr->started_steady);
    assert_double_close(q->dead_letter_rate[x.tr->nsamples - 1], 40.0 * 0.125, 0.0, 1e-6);
    assert_double_close(q->loss_rate[x.tr->nsamples - 1], 40.0 * 0.125, 0.0, 1e-6);
    assert_double_close(q->throughput[x.tr->nsamples - 1], 40.0 * 1.75, 0.0, 1e-6);
    assert_double_close(q->backlog[x.tr->nsamples - 1], 0.0, 1e-9, 0.0);
    trx_free(&x);
}

/*
 * samples/serverless-pipeline.xml over its 10-minute profile: the gateway (1500/s, 300
 * tokens) rejects nothing before the bucket is empty; the rate passes 1500/s at 70 s and
 * rises by 50/s^2, so the 300 tokens last until 70 + sqrt(2 300 / 50) = 73.46 s; at the
 * 2500/s plateau the rejection is 1000/s. ingest (C = 70, T_e = 60 ms: 1166.7/s) throttles
 * nothing at the base rate, lambda(t) - 1166.7 on the ramp while the gateway passes
 * everything (from about 63 s: a little earlier, while its last cold starts, 3/s for 0.3 s,
 * hold slots; within 1e-3 from 65 s), and 1500 - 1166.7 = 333.3/s at the plateau.
 */
static void test_serverless_sample(void **state)
{
    const double t_empty = 70.0 + sqrt(2.0 * 300.0 / 50.0);
    const double Te = mean_exec(0.06, 3.0);
    ac_transient_options o;
    const ac_transient_node *api, *ingest;
    size_t first = AC_NONE;
    char *xml = ac_test_read_file(AC_SOURCE_DIR "/samples/serverless-pipeline.xml");
    trx x;
    (void)state;
    assert_non_null(xml);
    ac_transient_options_init(&o);
    o.samples = 6001; /* 0.1 s apart */
    trx_run(&x, xml, &o, NULL);
    free(xml);
    api = tnode(&x, "api");
    ingest = tnode(&x, "ingest");
    print_message("serverless-pipeline.xml: %zu states (%s), integrated in %.3f s\n", x.tr->dim,
                  x.tr->method, x.seconds);
    assert_string_equal(x.tr->method, "cvode-bdf");
    assert_true(x.tr->started_steady);
    for (size_t s = 0; s < x.tr->nsamples; s++) {
        if (x.tr->t[s] < t_empty - 0.05) {
            double lam = ac_transient_source_rate(x.m, 0, 1.0, x.tr->t[s]);
            assert_true(api->loss_rate[s] == 0.0);
            if (x.tr->t[s] < 60.0)
                assert_double_close(ingest->throttle_rate[s], 0.0, 1e-6, 0.0);
            else if (x.tr->t[s] > 65.0)
                assert_double_close(ingest->throttle_rate[s], lam - 70.0 / Te, 0.0, 1e-3);
        }
        if (api->loss_rate[s] > 0.0 && first == AC_NONE)
            first = s;
        if (x.tr->t[s] >= 91.0 && x.tr->t[s] <= 150.0) { /* relaxed after the ramp */
            assert_double_close(api->loss_rate[s], 1000.0, 0.0, 1e-6);
            assert_double_close(api->tokens[s], 0.0, 1e-6, 0.0);
            assert_double_close(ingest->throttle_rate[s], 1500.0 - 70.0 / Te, 0.0, 1e-6);
        }
    }
    assert_true(first != AC_NONE);
    print_message("  gateway empty at %.1f s (hand %.3f s), rejection %.6g/s at the plateau, "
                  "ingest throttles %.6g/s (hand %.6g/s)\n",
                  x.tr->t[first], t_empty, api->loss_rate[at(x.tr, 120.0)],
                  ingest->throttle_rate[at(x.tr, 120.0)], 1500.0 - 70.0 / Te);
    assert_double_close(x.tr->t[first], t_empty, 0.1, 0.0);
    assert_true(api->loss_rate[x.tr->nsamples - 1] == 0.0);
    trx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fn_sync_steady),
        cmocka_unit_test(test_fn_async_steady),
        cmocka_unit_test(test_serverless_conservation),
        cmocka_unit_test(test_fn_keepalive),
        cmocka_unit_test(test_fn_cold_start_step),
        cmocka_unit_test(test_fn_provisioned_prewarm),
        cmocka_unit_test(test_gateway_burst),
        cmocka_unit_test(test_queue_backlog),
        cmocka_unit_test(test_serverless_sample),
    };
    gsl_set_error_handler_off();
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("transient_serverless", tests, NULL, NULL);
}
