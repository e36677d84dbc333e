/*
 * The accuracy harness: archcheck's promise that every stated error is an upper bound of the
 * real one, checked against the simulator on random small models.
 *
 * accuracy_gen.c  a seeded, deterministic generator of small valid architectures (XML text,
 *                 parsed with the project's parser), one family at a time: single pools of
 *                 every dispatch (buffers, timeouts, retries), networks of pools (tandem,
 *                 branches, parallel routes, fan-out/fan-in, cycles, links), bursty sources,
 *                 closed populations, functions (sync, async, retries, failures, cold
 *                 starts, provisioned concurrency, pre-warming), queues and gateways. Loads
 *                 0.1..0.9 per node, at most 50 servers.
 * accuracy_run.c  for one model: the analysis (requirements on every node and end to end,
 *                 so that every KPI comes out as an ac_check with the value and the stated
 *                 relative error that archcheck judges it with, plus the mean jobs, cold
 *                 starts and throttles of the nodes), the simulator with a fixed seed and a
 *                 counted event budget, and per KPI the assertion
 *                     |analysis - simulation| <= stated * |analysis| + abs + half-width,
 *                 abs the stated absolute error (ac_check.abs_error: the loss's and the
 *                 throughput's part that does not vanish with the value),
 *                 the half-width being the simulation's 95% interval widened by its own
 *                 resolution (histogram bins for percentiles, the rule of three for rare
 *                 events). Then the table per approximation and per class (approximation,
 *                 node kind, KPI): count, measured relative error |a - s| / |s| (mean, p95,
 *                 max), stated error range, misses, and the most misses that a 5% miss
 *                 rate explains (binomial, probability 1e-3).
 *
 * Everything is counted (models, events); nothing depends on the clock.
 */
#ifndef AC_TESTS_ACCURACY_H
#define AC_TESTS_ACCURACY_H

#include <stddef.h>
#include <stdio.h>

#include "archcheck/error.h"

typedef enum acc_family {
    ACC_POOL = 0, /* one pool: every dispatch, buffer, timeout, retries */
    ACC_NETWORK,  /* pools: tandem, branch, parallel, fan-out/fan-in, cycle; links */
    ACC_BURSTY,   /* a renewal source (scv != 1) into one or two pools */
    ACC_CLOSED,   /* a population into one to three pools */
    ACC_FUNCTION, /* a function: sync/async, retries, cold starts, provisioned, pre-warming */
    ACC_QUEUE,    /* a queue consumed by a function */
    ACC_GATEWAY,  /* a gateway in front of a pool or a function */
    ACC_NFAMILIES
} acc_family;

/* "pool", "network", ... Never NULL. */
const char *acc_family_name(acc_family family);

/* A generated model. */
typedef struct acc_model {
    unsigned long seed;
    acc_family family;
    char *xml;       /* the architecture file (owned) */
    char desc[1024]; /* one line: the topology and every node's parameters */
    int mitigation;  /* 1: apply mitigation 0 (provisioned concurrency, pre-warming) */
} acc_model;

/* Generate the model of `family` for `seed` into *out (deterministic). Returns 0 or
 * AC_ENOMEM. */
int acc_model_generate(unsigned long seed, acc_family family, acc_model *out);

/* The family that model number `index` of a run uses (round robin). */
acc_family acc_family_of(size_t index);

/* Release what a model owns. */
void acc_model_clear(acc_model *m);

typedef struct acc_options {
    unsigned long sim_seed;        /* the simulator's seed (default 1) */
    size_t replications;           /* default 10 */
    double events_per_rep;         /* the horizon's event target per replication (default 60000) */
    double relax_factor;           /* the horizon covers this many relaxation times (default 60) */
    unsigned long long max_events; /* budget per model over all replications (default 1.2e7):
                                      a model whose horizon needs more is skipped (counted) */
} acc_options;

void acc_options_init(acc_options *o);

/* One KPI compared. */
typedef struct acc_kpi {
    unsigned long seed;
    acc_family family;
    char node[24];  /* the node's id, or "e2e" */
    char kpi[12];   /* "mean", "p50", "p95", "p99", "util", "loss", "thr", "jobs", "cold",
                       "throttle" */
    char group[24]; /* the approximation: ac_node_analysis_approximation, "e2e", "e2e-closed" */
    char cls[96];   /* group/kind/kpi, e.g. "refined/pool:power-of-d/p95" */
    double value;   /* the analysis */
    double stated;  /* its stated relative error */
    double abs;     /* its stated absolute error (the value's unit; 0 for most) */
    double sim, ci; /* the simulation's mean and 95% half-width */
    double width;   /* the half-width used: ci widened by the simulation's resolution */
    double rel;     /* |value - sim| / |sim| (INFINITY when sim is 0 and value is not) */
    int miss;       /* |value - sim| > stated |value| + abs + width */
} acc_kpi;

/* What a run collected. */
typedef struct acc_results {
    acc_kpi *kpis;
    size_t n, cap;
    size_t models;      /* models run */
    size_t skipped;     /* models skipped (overloaded, bistable, over the event budget) */
    size_t unevaluated; /* KPIs without an analysis value (INCONCLUSIVE, not a miss) */
    size_t unsimulated; /* KPIs the simulation does not estimate (n < 2) */
    size_t errors;      /* models whose parse, analysis or simulation failed: harness or
                           project bugs, always a failure */
    char *log;          /* one line per skipped model and per error (owned) */
    size_t log_len, log_cap;
    unsigned long long events; /* simulated events, all models */
} acc_results;

/* Run one model into `res`. Returns 0 or AC_ENOMEM (other failures are counted in
 * res->errors and logged). */
int acc_run_model(const acc_model *gm, const acc_options *opt, acc_results *res);

void acc_results_clear(acc_results *res);

/* One row of the table. */
typedef struct acc_row {
    char key[96];
    size_t count, misses, bound;       /* bound: the most misses a 5% rate gives w.p. >= 1e-3 */
    double rel_mean, rel_p95, rel_max; /* measured |a - s| / |s| (finite ones) */
    double stated_min, stated_max;
    double abs_max;                /* the largest stated absolute error */
    double excess_p95, excess_max; /* max(0, |a - s| - abs - half-width) / |a|: the least
                                      stated error that would not miss */
    int fail;                      /* misses > bound */
} acc_row;

typedef struct acc_table {
    acc_row *groups; /* per approximation */
    size_t ngroups;
    acc_row *classes; /* per approximation, node kind and KPI */
    size_t nclasses;
} acc_table;

/* Build the table of `res` (kpis in res are not modified). Per group the bound is at
 * probability 1e-3; per class at 1e-3 / number of classes (Bonferroni). Returns 0 or
 * AC_ENOMEM. */
int acc_table_build(const acc_results *res, acc_table *out);
void acc_table_clear(acc_table *t);

/* Rows that fail (groups and classes). */
size_t acc_table_failures(const acc_table *t);

/* The table as markdown and as CSV (columns: level, key, count, mean, p95, max,
 * stated_min, stated_max, abs_max, excess_p95, excess_max, misses, bound, fail). */
void acc_table_write_md(FILE *fp, const acc_table *t, const acc_results *res);
void acc_table_write_csv(FILE *fp, const acc_table *t);

/* Every miss of `res`, one line each (model seed and family, node, KPI, analysis and stated
 * error, simulation mean and half-width), and the log. With `only_failing` the misses of
 * classes that pass are left out. */
void acc_write_misses(FILE *fp, const acc_results *res, const acc_table *t, int only_failing);

#endif
