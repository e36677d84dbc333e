/*
 * Benchmark: the steady state of a large open network by ac_analysis_run (validate NEVER,
 * headroom off). Pools of 10 servers with a buffer of K = 64 jobs (random dispatch, state
 * dimension 64), in two shapes:
 *   chain  pool i -> pool i+1 with p = 0.999 (the rest leaves), one source at the head;
 *   tree   a binary tree, each node sending to each child with p = 0.45, one source at the root.
 * For 250, 500, 1000 and 2000 pools, each run in a fresh child process (so that ru_maxrss
 * is that run's peak): the time of parsing, of the whole analysis, and of its two main
 * phases measured on their own (the network solve: traffic equations + every pool; the
 * end-to-end lattice), and the peak memory. Target: 1,000 pools in under 1 s.
 *
 * usage: bench_network [SHAPE] [N...]   (default: both shapes, 250 500 1000 2000)
 *
 * With --check ARCHCHECK [N...] (default 100 1000 10000): `ARCHCHECK check` of the same
 * networks as whole processes (the XML written to a temporary file), the wall time (median
 * of 3 up to 1,000 pools, one run above), the user and system time and the peak memory
 * (wait4), the growth per decade; rows for the table (bench/rows.h). Floors (issue #14):
 * the 10,000-pool chain in <= 10 s (goal 2 s) and <= 500 MB, the tree in <= 3 s. Exit 1 when
 * a floor is missed, 2 when a run failed.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "analysis/internal.h"
#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "common/strbuf.h"
#include "rows.h"
#include "check_proc.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The XML of a network of n pools. */
static char *network_xml(const char *shape, size_t n)
{
    ac_strbuf b = {0};
    ac_strbuf_printf(&b, "<architecture name='bench' format='1'>\n<workload>\n"
                         "  <source id='s' to='p0' rate='600/s'/>\n</workload>\n");
    for (size_t i = 0; i < n; i++)
        ac_strbuf_printf(&b, "<pool id='p%zu' servers='10' service-rate='100/s' buffer='64'/>\n",
                         i);
    if (strcmp(shape, "chain") == 0) {
        for (size_t i = 0; i + 1 < n; i++)
            ac_strbuf_printf(&b, "<route from='p%zu' to='p%zu' p='0.999'/>\n", i, i + 1);
    } else {
        for (size_t i = 1; i < n; i++)
            ac_strbuf_printf(&b, "<route from='p%zu' to='p%zu' p='0.45'/>\n", (i - 1) / 2, i);
    }
    ac_strbuf_printf(&b, "</architecture>\n");
    return b.data;
}

static int run_one(const char *shape, size_t n)
{
    char *xml = network_xml(shape, n);
    ac_model *m = NULL;
    ac_analysis *a = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_analysis_options opt;
    ac_analysis scratch;
    struct rusage ru;
    double t0, t_parse, t_run, t_net, t_e2e, t_traffic = -1.0;
    int rc;

    ac_diag_list_init(&d);
    if (xml == NULL)
        return 1;
    t0 = now();
    rc = ac_parser_parse_memory(xml, strlen(xml), "bench.xml", &m, &d, &err);
    t_parse = now() - t0;
    free(xml);
    if (rc != AC_OK) {
        fprintf(stderr, "parse failed: %s (%zu diagnostics)\n", err.message, d.count);
        return 1;
    }
    ac_analysis_options_init(&opt);
    opt.validate = AC_VALIDATE_NEVER;
    opt.headroom = 0;
    t0 = now();
    rc = ac_analysis_run(m, &opt, &a, &d, &err);
    t_run = now() - t0;
    if (rc != AC_OK) {
        fprintf(stderr, "analysis failed: %s\n", err.message);
        return 1;
    }
    /* the phases on their own, into a scratch analysis */
    memset(&scratch, 0, sizeof scratch);
    scratch.model = m;
    scratch.nnodes = m->nnodes;
    scratch.nodes = calloc(m->nnodes, sizeof *scratch.nodes);
    if (scratch.nodes == NULL)
        return 1;
    {
        double *r = ac_an_routing_matrix(m), *lambda = calloc(m->nnodes, sizeof *lambda);
        if (r != NULL && lambda != NULL) {
            t0 = now();
            if (ac_an_traffic_solve(m, r, NULL, 1.0, lambda, &err) == AC_OK)
                t_traffic = now() - t0;
        }
        free(r);
        free(lambda);
    }
    t0 = now();
    rc = ac_an_network_solve(m, &opt, 1.0, &scratch, &err);
    t_net = now() - t0;
    t0 = now();
    if (rc == AC_OK)
        rc = ac_an_e2e_solve(m, &scratch, &err);
    t_e2e = now() - t0;
    for (size_t i = 0; i < scratch.nnodes; i++)
        ac_solver_pool_result_free(scratch.nodes[i].pool);
    free(scratch.nodes);
    ac_an_e2e_clear(&scratch.e2e);
    getrusage(RUSAGE_SELF, &ru);
    printf("%-5s %5zu pools  parse %6.3f s  analysis %6.3f s  (network %6.3f s of which one "
           "traffic solve %6.3f s; e2e %6.3f s)  peak RSS %6.1f MiB\n",
           shape, n, t_parse, t_run, t_net, t_traffic, t_e2e, (double)ru.ru_maxrss / 1024.0);
    ac_analysis_free(a);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return rc == AC_OK ? 0 : 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* check of chains and trees of the given sizes; rows for the table. */
static int check_mode(const char *bin, const size_t *sizes, size_t nsizes)
{
    static const char *const shapes[] = {"chain", "tree"};
    int status = 0;
    for (int s = 0; s < 2; s++) {
        double prev_t = NAN, prev_m = NAN;
        size_t prev_n = 0;
        for (size_t k = 0; k < nsizes; k++) {
            size_t n = sizes[k], runs = n <= 1000 ? 3 : 1;
            char path[] = "/tmp/ac_bench_networkXXXXXX";
            char *xml = network_xml(shapes[s], n);
            int fd = mkstemp(path), rc = 0;
            double walls[3], cpus[3], cpu, t, wall;
            long peak = 0;
            FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
            if (xml == NULL || f == NULL || fputs(xml, f) < 0 || fclose(f) != 0) {
                free(xml);
                return 2;
            }
            free(xml);
            for (size_t r = 0; r < runs && rc >= 0; r++) {
                long pk = 0;
                rc = ac_bench_check_once(bin, path, &walls[r], &cpus[r], &pk);
                peak = pk > peak ? pk : peak;
                /* 0 pass, 1 fail, 3 inconclusive: a verdict; 2 or a signal: a failure */
                if (rc == 2 || rc < 0 || rc > 3)
                    rc = -1;
            }
            unlink(path);
            if (rc < 0)
                runs = 1;
            qsort(walls, runs, sizeof walls[0], cmp_double);
            qsort(cpus, runs, sizeof cpus[0], cmp_double);
            /* judged on the processor time (user + system: one thread), which a machine
               shared with other jobs does not inflate as it does the wall time */
            t = cpu = cpus[runs / 2];
            wall = walls[runs / 2];
            printf("check %-5s %6zu pools  %8.3f s cpu (median of %zu)  %8.3f s wall  peak %8.1f "
                   "MiB",
                   shapes[s], n, cpu, runs, wall, (double)peak / 1024.0);
            if (prev_n > 0)
                printf("  x%.1f time, x%.1f memory for x%.0f pools", t / prev_t,
                       (double)peak / prev_m, (double)n / (double)prev_n);
            printf("\n");
            {
                char fig[96], growth[128] = "";
                const char *floor = NULL, *goal = NULL, *st = "INFO";
                int is_chain = s == 0, big = n == 10000;
                if (prev_n > 0)
                    snprintf(growth, sizeof growth, ", x%.1f time and x%.1f memory per x%.0f pools",
                             t / prev_t, (double)peak / prev_m, (double)n / (double)prev_n);
                if (big) {
                    floor = is_chain ? "10 s" : "3 s";
                    goal = is_chain ? "2 s" : NULL;
                    st = t <= (is_chain ? 10.0 : 3.0) ? "PASS" : "MISS";
                }
                if (rc < 0)
                    st = "FAIL";
                snprintf(fig, sizeof fig, "check %s of %zu pools: time (user+sys)", shapes[s], n);
                ac_bench_row(fig, t, "s", floor, goal, st, "median of %zu, wall %.3f s%s", runs,
                             wall, growth);
                snprintf(fig, sizeof fig, "check %s of %zu pools: peak memory", shapes[s], n);
                st = big && is_chain ? ((double)peak / 1024.0 <= 500.0 ? "PASS" : "MISS") : "INFO";
                if (rc < 0)
                    st = "FAIL";
                ac_bench_row(fig, (double)peak / 1024.0, "MiB", big && is_chain ? "500 MB" : NULL,
                             NULL, st, "maximum RSS");
                if (rc < 0)
                    status = 2;
                else if (strcmp(st, "MISS") == 0 || (big && !(t <= (is_chain ? 10.0 : 3.0))))
                    status = status ? status : 1;
            }
            prev_t = t;
            prev_m = (double)peak;
            prev_n = n;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    static const char *const shapes[] = {"chain", "tree"};
    static const size_t sizes[] = {250, 500, 1000, 2000};
    size_t nsizes = sizeof sizes / sizeof sizes[0], given[16], ngiven = 0;
    int status = 0, first_shape = 0, nshapes = 2;
    gsl_set_error_handler_off();
    if (argc > 2 && strcmp(argv[1], "--check") == 0) {
        static const size_t decades[] = {100, 1000, 10000};
        for (int i = 3; i < argc && ngiven < 16; i++)
            given[ngiven++] = (size_t)strtoul(argv[i], NULL, 10);
        return ngiven ? check_mode(argv[2], given, ngiven) : check_mode(argv[2], decades, 3);
    }
    if (argc > 1) {
        first_shape = strcmp(argv[1], "tree") == 0;
        nshapes = 1;
        for (int i = 2; i < argc && ngiven < 16; i++)
            given[ngiven++] = (size_t)strtoul(argv[i], NULL, 10);
    }
    for (int s = first_shape; s < first_shape + nshapes; s++)
        for (size_t k = 0; k < (ngiven ? ngiven : nsizes); k++) {
            size_t n = ngiven ? given[k] : sizes[k];
            pid_t pid;
            int st = 0;
            fflush(stdout);
            pid = fork();
            if (pid == 0) {
                int rc = run_one(shapes[s], n);
                fflush(stdout);
                _exit(rc);
            }
            if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                status = 1;
        }
    return status;
}
