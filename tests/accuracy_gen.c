/*
 * The generator of random small architectures for the accuracy harness (accuracy.h).
 *
 * Each family draws a topology and its parameters from one mt19937 stream seeded by the
 * model's seed and family, computes every node's arrival rate from the routes (visit
 * ratios, ignoring losses), and sets each node's service so that its load is the drawn
 * rho in [0.1, 0.9]. Every KPI the harness compares is then asked for by a requirement
 * whose limit never binds (one element per line, so that a check's line names its
 * requirement).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "archcheck/sim.h"
#include "common/strbuf.h"
#include "tests/accuracy.h"

#define GEN_MAX_NODES 4

typedef struct gen {
    gsl_rng *rng;
    ac_strbuf xml;
    ac_strbuf desc;
    int kind[GEN_MAX_NODES]; /* ac_node_kind */
    size_t nnodes;
    int mitigation;
} gen;

static const char *const family_names[ACC_NFAMILIES] = {"pool",     "network", "bursty", "closed",
                                                        "function", "queue",   "gateway"};

const char *acc_family_name(acc_family family)
{
    return (unsigned)family < ACC_NFAMILIES ? family_names[family] : "?";
}

acc_family acc_family_of(size_t index)
{
    /* pools and networks carry most approximations: twice as often */
    static const acc_family order[] = {ACC_POOL,     ACC_NETWORK, ACC_BURSTY,
                                       ACC_POOL,     ACC_CLOSED,  ACC_NETWORK,
                                       ACC_FUNCTION, ACC_QUEUE,   ACC_GATEWAY};
    return order[index % (sizeof order / sizeof order[0])];
}

static double uni(gen *g, double lo, double hi)
{
    return lo + (hi - lo) * gsl_rng_uniform(g->rng);
}

static double loguni(gen *g, double lo, double hi)
{
    return exp(uni(g, log(lo), log(hi)));
}

/* An integer in [lo, hi]. */
static size_t pick(gen *g, size_t lo, size_t hi)
{
    return lo + (size_t)gsl_rng_uniform_int(g->rng, (unsigned long)(hi - lo + 1));
}

static int chance(gen *g, double p)
{
    return gsl_rng_uniform(g->rng) < p;
}

/* A pool's parameters, drawn for an arrival rate. */
typedef struct gen_pool {
    size_t servers, d, buffer, retries; /* buffer 0: unbounded */
    int dispatch;                       /* ac_dispatch */
    int with_replacement;
    double rho, mu, timeout; /* timeout 0: none */
} gen_pool;

static const char *const dispatch_names[] = {"random", "power-of-d", "jsq", "jiq", "shared-queue"};

static gen_pool draw_pool(gen *g, double lambda, int closed)
{
    static const size_t sizes[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 30, 40, 50};
    gen_pool p;
    double u = gsl_rng_uniform(g->rng);
    memset(&p, 0, sizeof p);
    p.dispatch = u < 0.2 ? 0 : u < 0.5 ? 1 : u < 0.65 ? 2 : u < 0.8 ? 3 : 4;
    p.servers = sizes[pick(g, 0, sizeof sizes / sizeof sizes[0] - 1)];
    if (p.dispatch != 0 && p.dispatch != 4 && p.servers < 2)
        p.servers = pick(g, 2, 10);
    if (p.dispatch == 1) {
        p.d = pick(g, 2, p.servers < 3 ? 2 : 3);
        p.with_replacement = chance(g, 0.5);
    }
    p.rho = uni(g, 0.1, 0.9);
    p.mu = lambda / ((double)p.servers * p.rho);
    if (!closed && chance(g, 0.25))
        p.buffer = p.dispatch == 4 ? pick(g, 1, 3 * p.servers) : pick(g, 2, 10);
    if (!closed && chance(g, 0.2)) {
        p.timeout = uni(g, 3.0, 15.0) / p.mu;
        p.retries = pick(g, 0, 2);
    }
    return p;
}

static void emit_pool(gen *g, const char *id, const gen_pool *p)
{
    ac_strbuf_printf(&g->xml,
                     "  <pool id=\"%s\" servers=\"%zu\" service-rate=\"%.6g/s\" dispatch=\"%s\"",
                     id, p->servers, p->mu, dispatch_names[p->dispatch]);
    ac_strbuf_printf(&g->desc, " %s=pool(N=%zu %s", id, p->servers, dispatch_names[p->dispatch]);
    if (p->dispatch == 1) {
        ac_strbuf_printf(&g->xml, " d=\"%zu\" sampling=\"%s\"", p->d,
                         p->with_replacement ? "with-replacement" : "distinct");
        ac_strbuf_printf(&g->desc, " d=%zu %s", p->d, p->with_replacement ? "wr" : "distinct");
    }
    if (isfinite(p->rho))
        ac_strbuf_printf(&g->desc, " rho=%.3g", p->rho);
    ac_strbuf_printf(&g->desc, " mu=%.4g", p->mu);
    if (p->buffer > 0) {
        ac_strbuf_printf(&g->xml, " buffer=\"%zu\"", p->buffer);
        ac_strbuf_printf(&g->desc, " K=%zu", p->buffer);
    }
    if (p->timeout > 0.0) {
        ac_strbuf_printf(&g->xml, " timeout=\"%.6gs\" retries=\"%zu\"", p->timeout, p->retries);
        ac_strbuf_printf(&g->desc, " timeout=%.3g/mu retries=%zu", p->timeout * p->mu, p->retries);
    }
    ac_strbuf_append(&g->xml, "/>\n");
    ac_strbuf_append(&g->desc, ")");
}

static void emit_source(gen *g, const char *to, double rate, double scv)
{
    ac_strbuf_printf(&g->xml, "  <workload>\n    <source id=\"src\" to=\"%s\" rate=\"%.6g/s\"", to,
                     rate);
    if (scv != 1.0)
        ac_strbuf_printf(&g->xml, " scv=\"%.6g\"", scv);
    ac_strbuf_append(&g->xml, "/>\n  </workload>\n");
    ac_strbuf_printf(&g->desc, " src(%.4g/s%s", rate, scv != 1.0 ? " scv=" : "");
    if (scv != 1.0)
        ac_strbuf_printf(&g->desc, "%.3g", scv);
    ac_strbuf_append(&g->desc, ")");
}

static void emit_route(gen *g, const char *from, const char *to, double p, size_t fanout,
                       size_t fanin, int parallel)
{
    ac_strbuf_printf(&g->xml, "  <route from=\"%s\" to=\"%s\"", from, to);
    ac_strbuf_printf(&g->desc, " %s->%s", from, to);
    if (p < 1.0) {
        ac_strbuf_printf(&g->xml, " p=\"%.4g\"", p);
        ac_strbuf_printf(&g->desc, "(p=%.3g)", p);
    }
    if (fanout > 1) {
        ac_strbuf_printf(&g->xml, " fanout=\"%zu\"", fanout);
        ac_strbuf_printf(&g->desc, "(fanout=%zu)", fanout);
    }
    if (fanin > 1) {
        ac_strbuf_printf(&g->xml, " fanin=\"%zu\"", fanin);
        ac_strbuf_printf(&g->desc, "(fanin=%zu)", fanin);
    }
    if (parallel) {
        ac_strbuf_append(&g->xml, " parallel=\"true\"");
        ac_strbuf_append(&g->desc, "(parallel)");
    }
    ac_strbuf_append(&g->xml, "/>\n");
}

/* A link on the route from -> to carrying `flow` jobs/s; `scale` a time scale (s). */
static void maybe_link(gen *g, const char *from, const char *to, double flow, double scale,
                       int allow_buffer)
{
    int cap = chance(g, 0.7), lat = chance(g, 0.6);
    if (!chance(g, 0.35))
        return;
    ac_strbuf_printf(&g->xml, "  <link from=\"%s\" to=\"%s\"", from, to);
    ac_strbuf_printf(&g->desc, " link(%s->%s", from, to);
    if (cap || !lat) {
        double rho = uni(g, 0.1, 0.8);
        ac_strbuf_printf(&g->xml, " capacity=\"%.6g/s\"", flow / rho);
        ac_strbuf_printf(&g->desc, " rho=%.3g cap=%.4g", rho, flow / rho);
        if (allow_buffer && chance(g, 0.3)) {
            size_t b = pick(g, 1, 8);
            ac_strbuf_printf(&g->xml, " buffer=\"%zu\"", b);
            ac_strbuf_printf(&g->desc, " buffer=%zu", b);
        }
    }
    if (lat) {
        double l = uni(g, 0.05, 1.0) * scale;
        ac_strbuf_printf(&g->xml, " latency=\"%.6gs\"", l);
        ac_strbuf_printf(&g->desc, " latency=%.3gs", l);
    }
    ac_strbuf_append(&g->xml, "/>\n");
    ac_strbuf_append(&g->desc, ")");
}

static void gen_pool_family(gen *g)
{
    double rate = loguni(g, 1.0, 200.0);
    gen_pool p = draw_pool(g, rate, 0);
    emit_source(g, "n0", rate, 1.0);
    emit_pool(g, "n0", &p);
    g->kind[0] = AC_NODE_POOL;
    g->nnodes = 1;
}

/* Pools in one of six shapes; the rates are the visit ratios times the source's rate. */
static void gen_network_family(gen *g, double scv)
{
    enum { TANDEM2, TANDEM3, BRANCH, PARALLEL, FANOUT, CYCLE, NSHAPES };
    static const char *const shapes[] = {"tandem2",  "tandem3", "branch",
                                         "parallel", "fanout",  "cycle"};
    int shape = scv != 1.0 ? (chance(g, 0.5) ? TANDEM2 : BRANCH) : (int)pick(g, 0, NSHAPES - 1);
    double rate = loguni(g, 1.0, 100.0), lam[3], p = uni(g, 0.2, 0.8);
    size_t n = shape == TANDEM2 ? 2 : 3, k = pick(g, 2, 4);
    gen_pool pools[3];
    char id[3][4] = {"n0", "n1", "n2"};
    ac_strbuf_printf(&g->desc, " shape=%s", shapes[shape]);
    lam[0] = shape == CYCLE ? rate / (1.0 - 0.3) : rate;
    lam[1] = shape == BRANCH ? lam[0] * p : shape == FANOUT ? lam[0] * (double)k : lam[0];
    lam[2] = shape == BRANCH ? lam[0] * (1.0 - p) * 0.9 : shape == TANDEM3 ? lam[1] * p : lam[0];
    if (shape == CYCLE)
        lam[2] = lam[1];
    emit_source(g, "n0", rate, scv);
    for (size_t i = 0; i < n; i++) {
        pools[i] = draw_pool(g, lam[i], 0);
        if (shape == FANOUT || shape == PARALLEL || shape == CYCLE) {
            /* joins and cycles: no buffer, no timeout (a lost or retried job of a fan-out
               group is another model) */
            pools[i].buffer = 0;
            pools[i].timeout = 0.0;
        }
        emit_pool(g, id[i], &pools[i]);
        g->kind[i] = AC_NODE_POOL;
    }
    g->nnodes = n;
    switch (shape) {
    case TANDEM2: emit_route(g, "n0", "n1", 1.0, 1, 1, 0); break;
    case TANDEM3:
        emit_route(g, "n0", "n1", 1.0, 1, 1, 0);
        emit_route(g, "n1", "n2", p, 1, 1, 0);
        break;
    case BRANCH:
        emit_route(g, "n0", "n1", p, 1, 1, 0);
        emit_route(g, "n0", "n2", (1.0 - p) * 0.9, 1, 1, 0);
        break;
    case PARALLEL:
        emit_route(g, "n0", "n1", 1.0, 1, 1, 1);
        emit_route(g, "n0", "n2", 1.0, 1, 1, 1);
        break;
    case FANOUT:
        emit_route(g, "n0", "n1", 1.0, k, 1, 0);
        emit_route(g, "n1", "n2", 1.0, 1, k, 0);
        break;
    case CYCLE:
        emit_route(g, "n0", "n1", 1.0, 1, 1, 0);
        emit_route(g, "n1", "n0", 0.3, 1, 1, 0);
        emit_route(g, "n1", "n2", 0.7, 1, 1, 0);
        break;
    default: break;
    }
    /* links on the forward routes */
    if (shape != CYCLE) {
        maybe_link(g, "n0", "n1", lam[1], 1.0 / pools[1].mu, shape != FANOUT);
        if (n > 2)
            maybe_link(g, shape == TANDEM3 || shape == FANOUT ? "n1" : "n0", "n2", lam[2],
                       1.0 / pools[2].mu, shape != FANOUT && shape != PARALLEL);
    }
}

static void gen_bursty_family(gen *g)
{
    static const double scvs[] = {0.25, 0.5, 2.0, 3.0, 4.0};
    double scv = scvs[pick(g, 0, 4)];
    if (chance(g, 0.6)) {
        double rate = loguni(g, 1.0, 200.0);
        gen_pool p = draw_pool(g, rate, 0);
        emit_source(g, "n0", rate, scv);
        emit_pool(g, "n0", &p);
        g->kind[0] = AC_NODE_POOL;
        g->nnodes = 1;
    } else {
        gen_network_family(g, scv);
    }
}

/* A population into one to three pools; the demands are set so that the bottleneck's
 * utilisation bound M Dmax / (Z + sum D) is the drawn u. */
static void gen_closed_family(gen *g)
{
    size_t m = pick(g, 1, 30), n = pick(g, 1, 3);
    double z = loguni(g, 0.1, 10.0), u = uni(g, 0.2, 0.95), p = uni(g, 0.3, 0.9);
    double w[3], v[3] = {1.0, n == 3 ? 1.0 : p, p}, wsum = 0.0, wmax = 0.0, s;
    char id[3][4] = {"n0", "n1", "n2"};
    for (size_t i = 0; i < n; i++) {
        w[i] = uni(g, 0.3, 1.0);
        wsum += w[i];
        wmax = fmax(wmax, w[i]);
    }
    /* M s wmax = u (Z + s wsum) */
    if ((double)m * wmax <= u * wsum)
        u = 0.5 * (double)m * wmax / wsum;
    s = u * z / ((double)m * wmax - u * wsum);
    ac_strbuf_printf(&g->xml,
                     "  <workload>\n    <population id=\"users\" size=\"%zu\" "
                     "think-time=\"%.6gs\" to=\"n0\"/>\n  </workload>\n",
                     m, z);
    ac_strbuf_printf(&g->desc, " population(M=%zu Z=%.3gs u=%.3g)", m, z, u);
    for (size_t i = 0; i < n; i++) {
        /* D_i = v_i / (N_i mu_i) = w_i s */
        gen_pool pl = draw_pool(g, 1.0, 1);
        pl.mu = v[i] / ((double)pl.servers * w[i] * s);
        pl.rho = NAN;
        emit_pool(g, id[i], &pl);
        g->kind[i] = AC_NODE_POOL;
    }
    g->nnodes = n;
    if (n >= 2)
        emit_route(g, "n0", "n1", n == 3 ? 1.0 : p, 1, 1, 0);
    if (n == 3)
        emit_route(g, "n1", "n2", p, 1, 1, 0);
    if (n >= 2 && chance(g, 0.5)) {
        /* a link: a delay, and sometimes a capacity (flow about u / Dmax per visit) */
        double l = uni(g, 0.1, 1.0) * s, x = u / (wmax * s);
        if (chance(g, 0.4))
            ac_strbuf_printf(
                &g->xml, "  <link from=\"n0\" to=\"n1\" latency=\"%.6gs\" capacity=\"%.6g/s\"/>\n",
                l, x * v[1] / uni(g, 0.2, 0.8));
        else
            ac_strbuf_printf(&g->xml, "  <link from=\"n0\" to=\"n1\" latency=\"%.6gs\"/>\n", l);
        ac_strbuf_printf(&g->desc, " link(n0->n1 latency=%.3gs)", l);
    }
}

/* A function of mean duration d and concurrency c, at load rho (for the description). */
static void emit_function(gen *g, const char *id, double d, size_t c, double rho, int polled,
                          double max_timeout)
{
    int async = !polled && chance(g, 0.35);
    double timeout = fmin(max_timeout, chance(g, 0.15) ? d * uni(g, 1.2, 2.5) : fmax(3.0, 8.0 * d));
    ac_strbuf_printf(&g->xml,
                     "  <function id=\"%s\" concurrency=\"%zu\" duration=\"%.6gs\" "
                     "timeout=\"%.6gs\"",
                     id, c, d, timeout);
    ac_strbuf_printf(&g->desc, " %s=function(C=%zu rho=%.3g d=%.4gs timeout=%.3gs", id, c, rho, d,
                     timeout);
    if (async) {
        ac_strbuf_append(&g->xml, " invocation=\"async\"");
        ac_strbuf_append(&g->desc, " async");
    }
    if (chance(g, 0.5)) {
        double c0 = uni(g, 0.1, 2.0) * d;
        double ka = loguni(g, 0.5, 30.0);
        ac_strbuf_printf(&g->xml, " cold-start=\"%.6gs\" keep-alive=\"%.6gs\"", c0, ka);
        ac_strbuf_printf(&g->desc, " cold=%.3gs keep-alive=%.3gs", c0, ka);
        if (chance(g, 0.2)) {
            double sr = uni(g, 0.5, 5.0);
            ac_strbuf_printf(&g->xml, " scale-rate=\"%.4g/s\"", sr);
            ac_strbuf_printf(&g->desc, " scale-rate=%.3g", sr);
        }
        if (!polled && chance(g, 0.3)) {
            size_t amount = pick(g, 1, c > 1 ? c / 2 : 1);
            g->mitigation = chance(g, 0.6) ? 1 : 2;
            if (g->mitigation == 1) {
                ac_strbuf_printf(&g->desc, " provisioned=%zu", amount);
            } else {
                ac_strbuf_printf(&g->desc, " prewarm=%zu", amount);
            }
            g->mitigation = (int)(g->mitigation * 1000 + (int)amount);
        }
    } else {
        ac_strbuf_append(&g->xml, " keep-alive=\"1000h\"");
    }
    if (chance(g, 0.3)) {
        double f = uni(g, 0.01, 0.2);
        ac_strbuf_printf(&g->xml, " fail-prob=\"%.4g\"", f);
        ac_strbuf_printf(&g->desc, " fail=%.3g", f);
    }
    if (!polled && chance(g, 0.4)) {
        size_t r = pick(g, 0, async ? 2 : 3);
        ac_strbuf_printf(&g->xml, " retries=\"%zu\"", r);
        ac_strbuf_printf(&g->desc, " retries=%zu", r);
    }
    ac_strbuf_append(&g->xml, "/>\n");
    ac_strbuf_append(&g->desc, ")");
}

/* The mitigation element of a drawn provisioned concurrency or pre-warming (after the
 * nodes: the harness applies mitigation 0). */
static void emit_mitigation(gen *g, const char *target)
{
    int kind = g->mitigation / 1000, amount = g->mitigation % 1000;
    if (g->mitigation == 0)
        return;
    if (kind == 1)
        ac_strbuf_printf(&g->xml,
                         "  <mitigation id=\"m\" kind=\"provisioned-concurrency\" target=\"%s\" "
                         "amount=\"%d\"/>\n",
                         target, amount);
    else
        ac_strbuf_printf(&g->xml,
                         "  <mitigation id=\"m\" kind=\"pre-warming\" target=\"%s\" "
                         "amount=\"%d\" interval=\"%.4gs\"/>\n",
                         target, amount, uni(g, 10.0, 60.0));
}

static size_t draw_concurrency(gen *g)
{
    static const size_t cs[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 50};
    return cs[pick(g, 0, sizeof cs / sizeof cs[0] - 1)];
}

static void gen_function_family(gen *g)
{
    size_t c = draw_concurrency(g);
    double rho = uni(g, 0.1, 0.9), d = loguni(g, 0.02, 1.0);
    double rate = fmin(rho * (double)c / d, 50.0);
    rho = rate * d / (double)c;
    emit_source(g, "n0", rate, 1.0);
    emit_function(g, "n0", d, c, rho, 0, 1e9);
    g->kind[0] = AC_NODE_FUNCTION;
    g->nnodes = 1;
    emit_mitigation(g, "n0");
}

static void gen_queue_family(gen *g)
{
    size_t c = draw_concurrency(g), mc = pick(g, 1, 20),
           batch = chance(g, 0.5) ? 1 : pick(g, 2, 10);
    size_t fanout = chance(g, 0.2) ? 2 : 1, slots = c < mc ? c : mc, receives = pick(g, 1, 5);
    double rho = uni(g, 0.1, 0.9), d = loguni(g, 0.02, 1.0), v = uni(g, 5.0, 30.0);
    /* batches of one at light load: executions = fanout x messages */
    double rate = fmin(rho * (double)slots / (d * (double)fanout), 50.0);
    rho = rate * d * (double)fanout / (double)slots;
    emit_source(g, "q", rate, 1.0);
    ac_strbuf_printf(&g->xml,
                     "  <queue id=\"q\" batch-size=\"%zu\" max-consumers=\"%zu\" "
                     "visibility-timeout=\"%.4gs\" max-receives=\"%zu\"",
                     batch, mc, v, receives);
    ac_strbuf_printf(&g->desc, " q=queue(batch=%zu M=%zu V=%.3gs R=%zu", batch, mc, v, receives);
    if (chance(g, 0.3)) {
        size_t cap = pick(g, 20, 500);
        ac_strbuf_printf(&g->xml, " capacity=\"%zu\"", cap);
        ac_strbuf_printf(&g->desc, " capacity=%zu", cap);
    }
    ac_strbuf_append(&g->xml, "/>\n");
    ac_strbuf_append(&g->desc, ")");
    emit_function(g, "f", d, c, rate * (double)fanout * d / (double)c, 1, 0.8 * v);
    emit_route(g, "q", "f", 1.0, fanout, 1, 0);
    g->kind[0] = AC_NODE_QUEUE;
    g->kind[1] = AC_NODE_FUNCTION;
    g->nnodes = 2;
}

static void gen_gateway_family(gen *g)
{
    double rate = loguni(g, 1.0, 50.0), rho = uni(g, 0.1, 0.9), service;
    int to_pool = chance(g, 0.5);
    emit_source(g, "gw", rate, 1.0);
    ac_strbuf_append(&g->xml, "  <gateway id=\"gw\"");
    ac_strbuf_append(&g->desc, " gw=gateway(");
    if (chance(g, 0.7)) {
        size_t burst = chance(g, 0.3) ? 0 : pick(g, 1, 20);
        ac_strbuf_printf(&g->xml, " rate-limit=\"%.6g/s\" burst=\"%zu\"", rate / rho, burst);
        ac_strbuf_printf(&g->desc, "rho=%.3g burst=%zu", rho, burst);
    }
    if (to_pool) {
        gen_pool p = draw_pool(g, rate, 0);
        service = 1.0 / p.mu;
        if (chance(g, 0.5)) {
            double t = uni(g, 1.0, 8.0) * service;
            ac_strbuf_printf(&g->xml, " timeout=\"%.6gs\"", t);
            ac_strbuf_printf(&g->desc, " timeout=%.3gs", t);
        }
        ac_strbuf_append(&g->xml, "/>\n");
        ac_strbuf_append(&g->desc, ")");
        emit_pool(g, "n1", &p);
        g->kind[1] = AC_NODE_POOL;
    } else {
        size_t c = draw_concurrency(g);
        double frho = uni(g, 0.1, 0.9);
        service = frho * (double)c / rate;
        if (chance(g, 0.5)) {
            double t = uni(g, 1.0, 8.0) * service;
            ac_strbuf_printf(&g->xml, " timeout=\"%.6gs\"", t);
            ac_strbuf_printf(&g->desc, " timeout=%.3gs", t);
        }
        ac_strbuf_append(&g->xml, "/>\n");
        ac_strbuf_append(&g->desc, ")");
        emit_function(g, "n1", service, c, frho, 0, 1e9);
        g->kind[1] = AC_NODE_FUNCTION;
    }
    emit_route(g, "gw", "n1", 1.0, 1, 1, 0);
    g->kind[0] = AC_NODE_GATEWAY;
    g->nnodes = 2;
    if (!to_pool)
        emit_mitigation(g, "n1");
}

/* The requirements that make every KPI a check: per node mean, p50, p95, p99 latency
 * (not gateways: 0), loss and throughput; utilisation of every node; the same end to end. */
static void emit_requirements(gen *g, const char *const *ids)
{
    static const char *const lat[] = {"", " percentile=\"50\"", " percentile=\"95\"",
                                      " percentile=\"99\""};
    ac_strbuf_append(&g->xml, "  <requirements>\n");
    for (size_t i = 0; i <= g->nnodes; i++) {
        char target[40] = "";
        if (i < g->nnodes)
            snprintf(target, sizeof target, " target=\"%s\"", ids[i]);
        if (i == g->nnodes || g->kind[i] != AC_NODE_GATEWAY)
            for (size_t k = 0; k < 4; k++)
                ac_strbuf_printf(&g->xml, "    <latency%s%s max=\"1000h\"/>\n", target, lat[k]);
        ac_strbuf_printf(&g->xml, "    <loss%s max=\"1\"/>\n", target);
        ac_strbuf_printf(&g->xml, "    <throughput%s min=\"1e-9/s\"/>\n", target);
    }
    ac_strbuf_append(&g->xml, "    <utilization max=\"1\"/>\n  </requirements>\n");
}

int acc_model_generate(unsigned long seed, acc_family family, acc_model *out)
{
    static const char *const net_ids[] = {"n0", "n1", "n2", "n3"};
    static const char *const queue_ids[] = {"q", "f"};
    static const char *const gw_ids[] = {"gw", "n1"};
    gen g;
    memset(out, 0, sizeof *out);
    memset(&g, 0, sizeof g);
    g.rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (g.rng == NULL)
        return AC_ENOMEM;
    gsl_rng_set(g.rng, (unsigned long)(ac_sim_seed_mix(seed, (unsigned long long)family + 77u) &
                                       0xffffffffu));
    ac_strbuf_printf(&g.xml, "<architecture name=\"acc-%s-%lu\" format=\"1\">\n",
                     acc_family_name(family), seed);
    ac_strbuf_printf(&g.desc, "%s", acc_family_name(family));
    switch (family) {
    case ACC_POOL: gen_pool_family(&g); break;
    case ACC_NETWORK: gen_network_family(&g, 1.0); break;
    case ACC_BURSTY: gen_bursty_family(&g); break;
    case ACC_CLOSED: gen_closed_family(&g); break;
    case ACC_FUNCTION: gen_function_family(&g); break;
    case ACC_QUEUE: gen_queue_family(&g); break;
    case ACC_GATEWAY:
    case ACC_NFAMILIES: gen_gateway_family(&g); break;
    }
    emit_requirements(&g, family == ACC_QUEUE     ? queue_ids
                          : family == ACC_GATEWAY ? gw_ids
                                                  : net_ids);
    ac_strbuf_append(&g.xml, "</architecture>\n");
    gsl_rng_free(g.rng);
    out->seed = seed;
    out->family = family;
    out->mitigation = g.mitigation != 0;
    snprintf(out->desc, sizeof out->desc, "%s", g.desc.data != NULL ? g.desc.data : "");
    ac_strbuf_free(&g.desc);
    out->xml = ac_strbuf_take(&g.xml);
    return out->xml != NULL ? AC_OK : AC_ENOMEM;
}

void acc_model_clear(acc_model *m)
{
    free(m->xml);
    memset(m, 0, sizeof *m);
}
