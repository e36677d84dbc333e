/*
 * bench_jsq: the headline mean jobs per server of jsq and jiq pools at finite N (the
 * analysis' simulation, analysis/pool_sim.c) against an independent reference simulation
 * (another seed, twice the horizon, 8 replications), over N = 2 .. 1000 and rho = 0.1 ..
 * 0.99. A case passes when |headline - reference| <= stated error * reference + the
 * reference's 95% half-width, and the headline lies in [M/M/N, random]. The mean field's
 * error is shown beside it. Exit status 1 when a case fails.
 *
 * usage: bench_jsq
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/sim.h"

#include "rows.h"

/* Erlang C from the Erlang B recursion (stable for thousands of servers). */
static double erlang_c(size_t n, double a)
{
    double b = 1.0;
    for (size_t k = 1; k <= n; k++)
        b = a * b / ((double)k + a * b);
    return (double)n * b / ((double)n - a * (1.0 - b));
}

static int one_case(const char *dispatch, size_t n, double rho, int *fail)
{
    char xml[512];
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_analysis_options o;
    ac_analysis *a = NULL;
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    double lambda = rho * (double)n, mmn, mf, v, stated, ref, ci, tau, rel;
    int ok;
    clock_t t0;
    snprintf(xml, sizeof xml,
             "<architecture format=\"1\">\n"
             "<workload><source id=\"s\" to=\"p\" rate=\"%.17g/s\"/></workload>\n"
             "<pool id=\"p\" servers=\"%zu\" service-rate=\"1/s\" dispatch=\"%s\"/>\n"
             "</architecture>\n",
             lambda, n, dispatch);
    ac_diag_list_init(&d);
    if (ac_parser_parse_memory(xml, strlen(xml), "bench.xml", &m, &d, &err) != AC_OK)
        return -1;
    ac_analysis_options_init(&o);
    o.validate = AC_VALIDATE_NEVER;
    o.headroom = 0;
    t0 = clock();
    if (ac_analysis_run(m, &o, &a, &d, &err) != AC_OK)
        return -1;
    if (!a->nodes[0].analysed) {
        /* not analysed (the mean field's state is over its limits): no number, INCONCLUSIVE */
        printf("%-4s %5zu %5.2f  not analysed: %s\n", dispatch, n, rho, a->nodes[0].why);
        ac_analysis_free(a);
        ac_model_free(m);
        ac_diag_list_clear(&d);
        return 0;
    }
    v = a->nodes[0].mean_jobs;
    stated = a->nodes[0].expected_rel_error;
    mf = a->nodes[0].pool != NULL ? a->nodes[0].pool->kpi.mean_jobs : NAN;
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* the reference: seed 7, 8 replications of twice the analysis' horizon */
    tau = fmax(1.0, 4.0 / ((double)n * (1.0 - rho) * (1.0 - rho)));
    ac_sim_options_init(&so);
    so.seed = 7;
    so.replications = 8;
    so.horizon = 2.0 * fmax(4e6 / (5.0 * 2.0 * lambda), 40.0 * tau);
    so.warmup = so.horizon / 10.0;
    if (ac_sim_run(m, &so, &sr, &err) != AC_OK)
        return -1;
    ref = sr->nodes[0].mean_jobs.mean;
    ci = sr->nodes[0].mean_jobs.ci95;
    mmn = (lambda + erlang_c(n, lambda) * lambda / ((double)n - lambda)) / (double)n;
    rel = fabs(v - ref) / ref;
    ok = fabs(v - ref) <= stated * ref + ci && v >= mmn * (1.0 - 1e-12) &&
         v <= rho / (1.0 - rho) + 1e-12;
    printf(
        "%-4s %5zu %5.2f  %8.4f  %8.4f %6.2f%%  %8.4f+-%.4f  %6.2f%%  %7.2f%%  %8.4f  %5.2fs  %s\n",
        dispatch, n, rho, mf, v, 100.0 * stated, ref, ci, 100.0 * rel, 100.0 * (mf - ref) / ref,
        mmn, secs, ok ? "ok" : "FAIL");
    fflush(stdout);
    if (!ok)
        *fail = 1;
    ac_sim_result_free(sr);
    ac_analysis_free(a);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return 0;
}

int main(void)
{
    static const size_t ns[] = {2, 5, 20, 100, 1000};
    static const double rhos[] = {0.1, 0.5, 0.9, 0.99};
    static const char *const disp[] = {"jsq", "jiq"};
    int fail = 0;
    printf("bench_jsq: headline mean jobs per server (simulation, stated error) vs a reference "
           "simulation\n");
    printf("disp     N   rho  meanfield  headline stated  reference          |err|   "
           "mf err     M/M/N   time\n");
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t j = 0; j < sizeof rhos / sizeof rhos[0]; j++)
                if (one_case(disp[k], ns[i], rhos[j], &fail) != 0) {
                    printf("%s N=%zu rho=%.2f: failed to run\n", disp[k], ns[i], rhos[j]);
                    fail = 1;
                }
    printf("bench_jsq: %s\n", fail ? "FAIL" : "every case within its stated error");
    ac_bench_row("jsq and jiq pools at finite N (N 2..1000, rho 0.1..0.99): headline within its "
                 "stated error of a reference simulation",
                 fail ? 0.0 : 1.0, "all cases", "1", NULL, fail ? "MISS" : "PASS",
                 "40 cases; 1 = every case within its stated error");
    return fail;
}
