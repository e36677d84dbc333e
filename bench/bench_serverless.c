/*
 * Benchmark: the serverless models (solver/function.c, queue.c, gateway.c) against the
 * simulator of the same semantics (doc/serverless.md), case by case.
 *
 * For each case it prints the analysis' value, the error it states, the simulation's mean
 * and 95% half-width, and whether they agree: |analysis - simulation| <= stated error x
 * |analysis| + 1.7 half-widths + 0.5% of the value (+ 1e-4 absolute for probabilities). The
 * cases cover what is exact (Erlang-B, Erlang-C, M/D/1/K, dead letters), and what is an
 * approximation whose stated error this benchmark measures (cold starts at moderate
 * rates, M/G/C waits with a timeout-cut occupancy, fan-out deliveries). Exit 1 when a case
 * disagrees.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"

#include "rows.h"

typedef enum metric {
    M_THROTTLE,
    M_COLD,
    M_BUSY,
    M_RESPONSE,
    M_LOSS,
    M_REJECT,
    M_DEAD,
    M_HELD,
    M_E2E_LOSS /* end to end: throttled, rejected, 504, dead-lettered */
} metric;

typedef struct bcase {
    const char *name;
    const char *xml;
    const char *node;
    metric what;
    double horizon; /* s */
} bcase;

#define SRC(rate, to) "<workload><source id=\"s\" to=\"" to "\" rate=\"" rate "\"/></workload>"

static const bcase cases[] = {
    {"sync C=10, load 8: throttle (Erlang-B)",
     "<architecture format=\"1\">" SRC(
         "80/s", "f") "<function id=\"f\" concurrency=\"10\" duration=\"100ms\" "
                      "keep-alive=\"1000h\"/></architecture>",
     "f", M_THROTTLE, 4000.0},
    {"sync C=70, 1000/s x 60 ms, cold 300 ms: throttle",
     "<architecture format=\"1\">" SRC(
         "1000/s", "f") "<function id=\"f\" concurrency=\"70\" duration=\"60ms\" "
                        "cold-start=\"300ms\"/></architecture>",
     "f", M_THROTTLE, 600.0},
    {"sync C=10, f 20%, 2 retries: loss",
     "<architecture format=\"1\">" SRC("50/s",
                                       "f") "<function id=\"f\" concurrency=\"10\" "
                                            "duration=\"100ms\" fail-prob=\"20%\" retries=\"2\" "
                                            "keep-alive=\"1000h\"/></architecture>",
     "f", M_LOSS, 4000.0},
    {"cold starts, 2/s x 0.5 s, keep-alive 5 s: cold fraction",
     "<architecture format=\"1\">" SRC(
         "2/s", "f") "<function id=\"f\" concurrency=\"50\" duration=\"500ms\" cold-start=\"1s\" "
                     "keep-alive=\"5s\"/></architecture>",
     "f", M_COLD, 20000.0},
    {"cold starts, same: mean response",
     "<architecture format=\"1\">" SRC(
         "2/s", "f") "<function id=\"f\" concurrency=\"50\" duration=\"500ms\" cold-start=\"1s\" "
                     "keep-alive=\"5s\"/></architecture>",
     "f", M_RESPONSE, 20000.0},
    {"cold starts, 20/s x 0.2 s, keep-alive 1 s: cold fraction",
     "<architecture format=\"1\">" SRC(
         "20/s",
         "f") "<function id=\"f\" concurrency=\"100\" duration=\"200ms\" cold-start=\"500ms\" "
              "keep-alive=\"1s\"/></architecture>",
     "f", M_COLD, 4000.0},
    {"cold starts, 0.05/s, keep-alive 30 s: cold fraction",
     "<architecture format=\"1\">" SRC(
         "0.05/s", "f") "<function id=\"f\" concurrency=\"10\" duration=\"1s\" cold-start=\"2s\" "
                        "keep-alive=\"30s\"/></architecture>",
     "f", M_COLD, 200000.0},
    {"async C=4, load 3: mean response (Erlang-C)",
     "<architecture format=\"1\">" SRC("3/s",
                                       "f") "<function id=\"f\" invocation=\"async\" "
                                            "concurrency=\"4\" duration=\"1s\" timeout=\"1h\" "
                                            "keep-alive=\"1000h\"/></architecture>",
     "f", M_RESPONSE, 20000.0},
    {"async C=8, load 6, timeout 1.5 d: mean response (M/G/C)",
     "<architecture format=\"1\">" SRC("6/s",
                                       "f") "<function id=\"f\" invocation=\"async\" "
                                            "concurrency=\"8\" duration=\"1s\" timeout=\"1500ms\" "
                                            "retries=\"0\" keep-alive=\"1000h\"/></architecture>",
     "f", M_RESPONSE, 20000.0},
    {"gateway 100/s, burst 5, 90/s: rejected (M/D/1/K)",
     "<architecture format=\"1\">" SRC(
         "90/s",
         "g") "<gateway id=\"g\" rate-limit=\"100/s\" burst=\"5\"/>"
              "<pool id=\"p\" servers=\"1000\" service-rate=\"1/s\"/><route from=\"g\" to=\"p\"/>"
              "</architecture>",
     "g", M_REJECT, 2000.0},
    {"queue, 3 consumers, load 2: time in queue (Erlang-C)",
     "<architecture format=\"1\">" SRC(
         "4/s",
         "q") "<queue id=\"q\" batch-size=\"1\" max-consumers=\"3\"/>"
              "<function id=\"f\" concurrency=\"10\" duration=\"500ms\" keep-alive=\"1000h\"/>"
              "<route from=\"q\" to=\"f\"/></architecture>",
     "q", M_RESPONSE, 20000.0},
    {"queue, f 30%, 3 receives: dead letters",
     "<architecture format=\"1\">" SRC(
         "4/s",
         "q") "<queue id=\"q\" batch-size=\"1\" max-consumers=\"10\" visibility-timeout=\"5s\" "
              "max-receives=\"3\"/>"
              "<function id=\"f\" concurrency=\"10\" duration=\"100ms\" fail-prob=\"30%\" "
              "keep-alive=\"1000h\"/><route from=\"q\" to=\"f\"/></architecture>",
     "q", M_DEAD, 20000.0},
    {"queue, fan-out 8, 976 msgs/s: messages held",
     "<architecture format=\"1\">" SRC(
         "976/s",
         "q") "<queue id=\"q\" batch-size=\"1\" max-consumers=\"1000\"/>"
              "<function id=\"f\" concurrency=\"1000\" duration=\"100ms\" keep-alive=\"1000h\"/>"
              "<route from=\"q\" to=\"f\" fanout=\"8\"/></architecture>",
     "q", M_HELD, 300.0},
    {"same, 2 provisioned instances: cold fraction",
     "<architecture format=\"1\">" SRC(
         "2/s",
         "f") "<function id=\"f\" concurrency=\"50\" duration=\"500ms\" cold-start=\"1s\" "
              "keep-alive=\"5s\"/>"
              "<mitigation id=\"pc\" kind=\"provisioned-concurrency\" target=\"f\" amount=\"2\"/>"
              "</architecture>",
     "f", M_COLD, 20000.0},
    {"gateway timeout 0.3 s, 100 ms function: 504s end to end",
     "<architecture format=\"1\">" SRC(
         "50/s",
         "g") "<gateway id=\"g\" timeout=\"300ms\"/>"
              "<function id=\"f\" concurrency=\"100\" duration=\"100ms\" keep-alive=\"1000h\"/>"
              "<route from=\"g\" to=\"f\"/></architecture>",
     "g", M_E2E_LOSS, 4000.0},
    {"async C=10, f 30%, 2 retries after back-off: loss",
     "<architecture format=\"1\">" SRC(
         "20/s",
         "f") "<function id=\"f\" invocation=\"async\" concurrency=\"10\" duration=\"100ms\" "
              "fail-prob=\"30%\" keep-alive=\"1000h\"/></architecture>",
     "f", M_LOSS, 20000.0},
    {"queue, fan-out 8, same: consumer executions busy",
     "<architecture format=\"1\">" SRC(
         "976/s",
         "q") "<queue id=\"q\" batch-size=\"1\" max-consumers=\"1000\"/>"
              "<function id=\"f\" concurrency=\"1000\" duration=\"100ms\" keep-alive=\"1000h\"/>"
              "<route from=\"q\" to=\"f\" fanout=\"8\"/></architecture>",
     "f", M_BUSY, 300.0},
};

static int is_probability(metric w)
{
    return w == M_THROTTLE || w == M_COLD || w == M_LOSS || w == M_REJECT || w == M_DEAD ||
           w == M_E2E_LOSS;
}

static double analysis_value(const ac_node_analysis *na, metric w)
{
    switch (w) {
    case M_THROTTLE: return na->function != NULL ? na->function->throttle_probability : NAN;
    case M_COLD: return na->function != NULL ? na->function->cold_probability : NAN;
    case M_BUSY: return na->mean_jobs;
    case M_RESPONSE: return na->mean_response_time;
    case M_LOSS: return na->loss_probability;
    case M_REJECT: return na->loss_probability;
    case M_DEAD: return na->queue != NULL ? na->queue->dead_letter_probability : NAN;
    case M_HELD: return na->mean_jobs;
    case M_E2E_LOSS: return NAN; /* end to end: read by the caller */
    }
    return NAN;
}

static const ac_sim_estimate *sim_value(const ac_sim_node_result *r, metric w)
{
    switch (w) {
    case M_THROTTLE: return &r->throttle_fraction;
    case M_COLD: return &r->cold_start_fraction;
    case M_BUSY: return &r->mean_jobs;
    case M_RESPONSE: return &r->mean_response_time;
    case M_LOSS: return &r->failure_probability;
    case M_REJECT: return &r->throttle_fraction;
    case M_DEAD: return &r->dead_letter_fraction;
    case M_HELD: return &r->mean_jobs;
    case M_E2E_LOSS: return NULL; /* end to end: read by the caller */
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    int bad = 0;
    size_t nok = 0;
    double t_an = 0.0, t_sim = 0.0;
    gsl_set_error_handler_off();
    printf("%-58s %12s %8s %22s %s\n", "case", "analysis", "stated", "simulation (95%)", "agree");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bcase *bc = &cases[k];
        ac_model *m = NULL;
        ac_analysis *a = NULL;
        ac_sim_result *sr = NULL;
        ac_diag_list d;
        ac_error err = {0};
        ac_analysis_options opt;
        ac_sim_options so;
        size_t node;
        double av, tol, t0, stated;
        const ac_sim_estimate *se;
        int ok;
        ac_diag_list_init(&d);
        if (ac_parser_parse_memory(bc->xml, strlen(bc->xml), "case.xml", &m, &d, &err) != AC_OK) {
            fprintf(stderr, "bench_serverless: case %zu does not parse: %s\n", k, err.message);
            for (size_t i = 0; i < d.count; i++)
                fprintf(stderr, "  %s\n", d.items[i].message);
            return 2;
        }
        /* a case with a mitigation is the mitigated design */
        if (m->nmitigations > 0 && ac_model_apply_mitigation(m, 0, NULL, 0, &err) != AC_OK) {
            fprintf(stderr, "bench_serverless: case %zu: %s\n", k, err.message);
            return 2;
        }
        ac_analysis_options_init(&opt);
        opt.validate = AC_VALIDATE_NEVER;
        opt.headroom = 0;
        t0 = now();
        if (ac_analysis_run(m, &opt, &a, &d, &err) != AC_OK) {
            fprintf(stderr, "bench_serverless: case %zu: %s\n", k, err.message);
            return 2;
        }
        t_an += now() - t0;
        ac_sim_options_init(&so);
        so.seed = 1000 + k;
        so.replications = 10;
        so.horizon = bc->horizon;
        so.warmup = bc->horizon / 10.0;
        so.max_events = 0;
        t0 = now();
        if (ac_sim_run(m, &so, &sr, &err) != AC_OK) {
            fprintf(stderr, "bench_serverless: case %zu: simulation: %s\n", k, err.message);
            return 2;
        }
        t_sim += now() - t0;
        node = ac_model_find_node(m, bc->node);
        if (bc->what == M_E2E_LOSS) {
            av = a->e2e.loss_probability;
            se = &sr->entries[0].failure_probability;
            stated = a->e2e.expected_rel_error;
        } else {
            av = analysis_value(&a->nodes[node], bc->what);
            se = sim_value(&sr->nodes[node], bc->what);
            stated = bc->what == M_COLD ? a->nodes[node].function->cold_rel_error
                                        : a->nodes[node].expected_rel_error;
        }
        /* 1.7 half-widths: about a 99.8% interval, so that 14 cases rarely fail by chance */
        tol = stated * fabs(av) + 1.7 * se->ci95 + 0.005 * fabs(av) +
              (is_probability(bc->what) ? 1e-4 : 0.0);
        ok = fabs(av - se->mean) <= tol;
        printf("%-58s %12.6g %7.2g%% %12.6g +- %-8.2g %s\n", bc->name, av, 100.0 * stated, se->mean,
               se->ci95, ok ? "yes" : "NO");
        if (!ok)
            bad = 1;
        else
            nok++;
        ac_sim_result_free(sr);
        ac_analysis_free(a);
        ac_model_free(m);
        ac_diag_list_clear(&d);
    }
    printf("\nanalysis %.3f s in all, simulation %.1f s (10 replications per case)\n", t_an, t_sim);
    ac_bench_row("functions, queues, gateways: analysis within its stated error of the simulator",
                 (double)nok, "cases", "all", NULL, bad ? "MISS" : "PASS",
                 "%zu of %zu cases (stated error + 1.7 half-widths); analysis %.3f s, simulation "
                 "%.1f s in all",
                 nok, sizeof cases / sizeof cases[0], t_an, t_sim);
    return bad;
}
