/*
 * sim_ref: the hand-written one-pool simulator that bench/sim_bench measures archcheck's
 * simulator against (bench/sim_ref.c).
 */
#ifndef AC_BENCH_SIM_REF_H
#define AC_BENCH_SIM_REF_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_ref_result {
    unsigned long long events; /* arrivals + completions in [0, horizon] */
    double mean_jobs;          /* time average over [warmup, horizon], per server */
    double utilization;        /* busy servers / servers, time average */
    double mean_response;      /* s, of the jobs completed in the window */
    unsigned long long completions;
} sim_ref_result;

/* One replication of `servers` servers (mu = 1/s), Poisson arrivals at rho x servers per
 * second, power-of-two with replacement, from time 0 (empty) to `horizon` s, measured from
 * `warmup`; the generator seeded with `seed` (sim/rng.h). 0, or -1 when out of memory. */
int sim_ref_run(size_t servers, double rho, double horizon, double warmup, uint64_t seed,
                sim_ref_result *out);

#endif
