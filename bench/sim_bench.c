/*
 * sim_bench: events per second of the discrete-event simulator (include/archcheck/sim.h).
 *
 * Build and run from the source root, after `make` (which builds build/libarchcheck.a):
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -I. bench/sim_bench.c \
 *      build/libarchcheck.a $(pkg-config --libs libxml-2.0 gsl) -lm -o build/sim_bench
 *   build/sim_bench [SERVERS [RHO [HORIZON_S]]]      (defaults: 100 0.9 20000)
 *
 * It simulates one pool of SERVERS exponential servers (mu = 1/s) fed by a Poisson source at
 * RHO * SERVERS per second, for one replication of HORIZON_S simulated seconds, under each
 * dispatch policy (power-of-two with replacement first: the reference figure), and prints
 * events, wall-clock seconds and millions of events per second on one core. The floor the
 * project sets is 5 million events per second for the 100-server power-of-two pool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "archcheck/sim.h"

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench_case {
    const char *name;
    ac_dispatch dispatch;
    ac_sampling sampling;
} bench_case;

int main(int argc, char **argv)
{
    static char pool_id[] = "pool", src_id[] = "src";
    const bench_case cases[] = {
        {"power-of-2 with-replacement", AC_DISPATCH_POWER_OF_D, AC_SAMPLING_WITH_REPLACEMENT},
        {"power-of-2 distinct", AC_DISPATCH_POWER_OF_D, AC_SAMPLING_DISTINCT},
        {"random", AC_DISPATCH_RANDOM, AC_SAMPLING_DISTINCT},
        {"jsq", AC_DISPATCH_JSQ, AC_SAMPLING_DISTINCT},
        {"jiq", AC_DISPATCH_JIQ, AC_SAMPLING_DISTINCT},
        {"shared-queue", AC_DISPATCH_SHARED_QUEUE, AC_SAMPLING_DISTINCT},
    };
    size_t servers = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 100;
    double rho = argc > 2 ? strtod(argv[2], NULL) : 0.9;
    double horizon = argc > 3 ? strtod(argv[3], NULL) : 20000.0;
    size_t ncases = argc > 4 ? (size_t)strtoul(argv[4], NULL, 10) : sizeof cases / sizeof cases[0];
    int status = 0;

    if (servers < 1 || !(rho > 0 && rho < 1) || !(horizon > 0)) {
        fprintf(stderr, "usage: sim_bench [SERVERS [RHO in (0,1) [HORIZON_S]]]\n");
        return 2;
    }
    printf("pool of %zu servers, mu = 1/s, rho = %g, horizon %g s, 1 replication\n", servers,
           rho, horizon);
    for (size_t c = 0; c < ncases && c < sizeof cases / sizeof cases[0]; c++) {
        ac_node node = {0};
        ac_source src = {0};
        ac_model model = {0};
        ac_sim_options opt;
        ac_sim_result *res = NULL;
        ac_error err = {0};
        double t0, t1;
        node.id = pool_id;
        node.kind = AC_NODE_POOL;
        node.u.pool.servers = servers;
        node.u.pool.service_rate = 1.0;
        node.u.pool.dispatch = cases[c].dispatch;
        node.u.pool.d = 2;
        node.u.pool.sampling = cases[c].sampling;
        node.u.pool.buffer = AC_UNBOUNDED;
        src.id = src_id;
        src.to = 0;
        src.rate = rho * (double)servers;
        src.scv = 1.0;
        src.profile = AC_NONE;
        model.nodes = &node;
        model.nnodes = 1;
        model.sources = &src;
        model.nsources = 1;
        ac_sim_options_init(&opt);
        opt.seed = 1;
        opt.replications = 1;
        opt.horizon = horizon;
        opt.warmup = horizon / 10;
        t0 = wall();
        if (ac_sim_run(&model, &opt, &res, &err) != 0) {
            fprintf(stderr, "sim_bench: %s\n", err.message);
            return 1;
        }
        t1 = wall();
        printf("%-28s %12llu events %8.3f s %7.2f M events/s   E[L] per server %.4f\n",
               cases[c].name, res->events, t1 - t0, (double)res->events / (t1 - t0) / 1e6,
               res->nodes[0].mean_jobs.mean);
        if (c == 0 && servers == 100 && (double)res->events / (t1 - t0) < 5e6) {
            printf("  below the floor of 5 M events/s\n");
            status = 1;
        }
        ac_sim_result_free(res);
    }
    return status;
}
