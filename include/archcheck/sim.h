/*
 * archcheck: the discrete-event simulator (spec/models.md §7).
 *
 * It simulates an ac_model with exactly the semantics of spec/models.md and
 * spec/format.md for a finite number of servers, and estimates every KPI with
 * independent replications and 95% confidence intervals. It is the reference
 * where no closed form exists.
 *
 * What is simulated
 *  - <pool>: N servers with exponential service of rate mu.
 *      random        a uniformly random server;
 *      power-of-d    the server with the fewest jobs among d sampled ones
 *                    (`distinct`: d different servers; `with-replacement`: d
 *                    independent uniform draws); ties go to the first sampled;
 *      jsq           the server with the fewest jobs, ties broken uniformly;
 *      jiq           a uniformly chosen idle server if any, else a uniformly
 *                    random server;
 *      shared-queue  one FCFS queue that every idle server takes the next job
 *                    from (M/M/N); `buffer` is the most jobs WAITING in it.
 *    Per server the discipline is FCFS. `buffer` K is the most jobs one server
 *    holds, the one in service included: an arrival whose chosen server is full
 *    is lost (with jsq, lost only when every server is full).
 *  - Timeouts and retries (pool `timeout` theta, `retries` r): a client gives up
 *    on an attempt that has not finished theta after it arrived at the pool and
 *    sends a new attempt at once, up to r times; a lost arrival is retried the
 *    same way. The work of a timed-out attempt is NOT cancelled: the copy keeps
 *    its place and its server busy and is discarded when it completes (it counts
 *    in throughput and response time, as the server sees it). After r retries
 *    the job fails and leaves the system. A retry goes to the pool directly
 *    (not through a link again).
 *  - <route>: on completion a job takes one of the non-parallel routes with
 *    probability p (or leaves the system), and ALSO every `parallel` route.
 *    `fanout` k sends k jobs. `fanin` k joins k completions into one job:
 *    jobs born of one fan-out (a fan-out group) are joined within their group
 *    (the join of a whole group returns to the enclosing group), so that
 *    fanout k followed by fanin k waits for the slowest of the k; jobs that
 *    belong to no fan-out are batched across requests per route (the batch
 *    continues with the request of its k-th job; the others' share ends).
 *    A group whose remaining jobs all wait at joins that can no longer fill is
 *    complete.
 *  - <link>: the routes from A to B pass a FCFS single server transmitting at
 *    `capacity` jobs/s (deterministic time 1/capacity per job: a fluid pipe),
 *    with at most `buffer` jobs waiting (more are lost, not retried), then
 *    a fixed delay `latency`. An unbounded capacity is a pure delay.
 *  - <source>: Poisson with scv = 1; with scv < 1 a renewal process with gamma
 *    inter-arrivals (shape 1/scv); with scv > 1 a renewal process with
 *    balanced-means two-phase hyperexponential inter-arrivals (H2: p1 =
 *    (1 + sqrt((scv-1)/(scv+1)))/2, rates 2 p1 lambda and 2 p2 lambda). With
 *    `use_profiles` a source with a <profile> is a non-homogeneous Poisson
 *    process of the piecewise-linear rate (simulated by thinning; its scv is
 *    then ignored).
 *  - <population>: `size` clients, each thinking an exponential time of mean
 *    `think-time` (clients start thinking at time 0), then sending one request
 *    and waiting until it has left the system. (With think-time 0 and a request
 *    refused at once, time stands still: set max_events to bound such runs.)
 *  - A request (from a source or a population) is complete when its job and
 *    every job descended from it (fan-out, parallel branches, retries) have
 *    left the system; its end-to-end time runs from its arrival until then.
 *    It has failed when any of its jobs was lost or gave up.
 *  - Functions, queues and gateways are not simulated yet: a model holding one
 *    is refused with AC_EINVAL. A pool's <autoscale> is not simulated (the pool
 *    keeps `servers`); faults and mitigations are the caller's to apply to the
 *    model before simulating.
 *
 * Statistics
 *  - Each replication runs from time 0 to `horizon`; statistics are collected
 *    over [warmup, horizon] (jobs present at the warm-up are measured when they
 *    leave; ratios of window counts can therefore exceed 1 by a hair).
 *    Replication r uses its own mt19937 stream seeded with ac_sim_seed_mix(seed,
 *    r) (splitmix64; mt19937 takes 32 bits of it), so replications are
 *    independent and the same seed gives the same result byte for byte on one
 *    build (no threads, no clock, no environment are involved).
 *  - Per replication and node: time averages (mean jobs per server, utilisation),
 *    rates per second over the window, ratios of counts, the mean response time
 *    of the jobs that left in the window and its percentiles p50/p95/p99 (from a
 *    log-spaced histogram: 256 bins per octave, linear interpolation inside a
 *    bin, relative resolution 0.4%). Percentiles are computed PER REPLICATION
 *    and then averaged like every other KPI.
 *  - Each estimate is the mean over the replications in which the KPI was
 *    defined (a ratio with a zero denominator is undefined), with the 95%
 *    half-width t_{0.975, n-1} s / sqrt(n) (Student t); INFINITY when n < 2,
 *    NAN when n = 0.
 *  - Automatic replication count (replications = 0): replications run until
 *    the relative half-width of the MAIN KPIs is at most `rel_precision`, at
 *    least `min_replications` and at most `max_replications`, and until the
 *    budget `max_events` or `max_wall_seconds` is spent (checked between
 *    replications; a wall-clock stop makes the count machine dependent). The
 *    main KPIs are the mean end-to-end response time of every source and
 *    population; without any, the mean jobs of every pool.
 */
#ifndef ARCHCHECK_SIM_H
#define ARCHCHECK_SIM_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pool's state at time 0 of every replication: `jobs[i]` jobs at server i
 * (count == the pool's servers); jobs beyond a server's buffer are dropped.
 * With shared-queue only the sum matters (at most servers + buffer). The jobs
 * arrive at time 0, belong to no request, time out and are retried like any
 * other, and are routed on when they complete. Used to start a pool in each
 * basin of a bistable design and watch whether it stays (compare mean_jobs
 * over a window after the warm-up). */
typedef struct ac_sim_initial_state {
    size_t node;        /* index of a pool in the model */
    const size_t *jobs; /* borrowed */
    size_t count;       /* must equal the pool's servers */
} ac_sim_initial_state;

typedef struct ac_sim_options {
    unsigned long seed;        /* default 1; every value (0 too) is a distinct seed */
    size_t replications;       /* fixed count (>= 2 for an interval); 0: automatic (default) */
    double rel_precision;      /* automatic: target half-width / |mean| of the main KPIs; 0.01 */
    size_t min_replications;   /* automatic: default 5 */
    size_t max_replications;   /* automatic: default 200 */
    double horizon;            /* s, end of each replication; 0: automatic (default):
                                  20000 times the longest time constant of the model */
    double warmup;             /* s, start of the measurement; < 0: horizon / 10 (default) */
    unsigned long long max_events; /* budget over all replications; 0: unlimited. A single
                                      replication that exceeds it fails with AC_ELIMIT. */
    double max_wall_seconds;   /* automatic mode: no new replication after this; 0: unlimited */
    size_t max_jobs;           /* most jobs alive at once (overload guard); default 10^7;
                                  exceeded: AC_ELIMIT */
    int use_profiles;          /* 1: sources with a <profile> follow it; 0 (default): steady
                                  state at each source's `rate` */
    double load_scale;         /* every source's rate (and profile) times this; default 1 */
    const ac_sim_initial_state *initial; /* borrowed; may be NULL */
    size_t ninitial;
} ac_sim_options;

/* One estimate: the mean over n replications and the half-width of its 95%
 * confidence interval. */
typedef struct ac_sim_estimate {
    double mean;
    double ci95;
    size_t n;
} ac_sim_estimate;

/* KPIs of one node (a pool or a link). Counts are over the measurement window.
 * Attempts are arrivals at the node, retries included. */
typedef struct ac_sim_node_result {
    char *id;      /* the node's id; for a link its id or "FROM->TO" */
    int is_link;
    size_t servers; /* pools: N; links: 1 */
    ac_sim_estimate arrival_rate;        /* attempts per second */
    ac_sim_estimate throughput;          /* completions per second (timed-out copies too) */
    ac_sim_estimate utilization;         /* busy servers / servers, time average */
    ac_sim_estimate mean_jobs;           /* jobs per server (pools) or in the link, time average */
    ac_sim_estimate loss_probability;    /* attempts lost (full buffer) / attempts */
    ac_sim_estimate mean_response_time;  /* s, arrival to completion of each completed copy */
    ac_sim_estimate p50_response_time;   /* s */
    ac_sim_estimate p95_response_time;   /* s */
    ac_sim_estimate p99_response_time;   /* s */
    ac_sim_estimate timeout_fraction;    /* attempts that timed out / attempts */
    ac_sim_estimate retries_per_job;     /* retries / first attempts */
    ac_sim_estimate failure_probability; /* jobs given up after all retries / first attempts */
} ac_sim_node_result;

/* End-to-end KPIs of one source or population (requests completed in the window). */
typedef struct ac_sim_entry_result {
    char *id;
    int is_population;
    ac_sim_estimate arrival_rate;        /* requests per second */
    ac_sim_estimate throughput;          /* requests completed per second */
    ac_sim_estimate mean_response_time;  /* s, end to end */
    ac_sim_estimate p50_response_time;
    ac_sim_estimate p95_response_time;
    ac_sim_estimate p99_response_time;
    ac_sim_estimate failure_probability; /* completed requests with a lost or failed job */
} ac_sim_entry_result;

typedef struct ac_sim_result {
    ac_sim_node_result *nodes; /* one per model node, in model order */
    size_t nnodes;
    ac_sim_node_result *links; /* one per model link, in model order */
    size_t nlinks;
    ac_sim_entry_result *entries; /* the sources, then the populations, in model order */
    size_t nentries;
    size_t replications;          /* replications used */
    unsigned long long events;    /* events simulated over all replications */
    double rel_halfwidth;         /* the worst relative half-width of the main KPIs */
    int converged;                /* 1 when rel_halfwidth <= rel_precision (automatic mode) */
    unsigned long seed;
    double horizon, warmup;       /* s, as used */
} ac_sim_result;

/* Fill `opt` with the defaults above. */
void ac_sim_options_init(ac_sim_options *opt);

/* Simulate `model` (opt NULL: defaults) and return the estimates in `*out`
 * (free with ac_sim_result_free). Returns 0, or AC_EINVAL (a node kind not
 * simulated, an invalid option or model value), AC_ENOMEM, AC_ELIMIT (the
 * event budget or max_jobs exceeded: an overloaded model); `err` says why. */
int ac_sim_run(const ac_model *model, const ac_sim_options *opt, ac_sim_result **out,
               ac_error *err);

/* NULL is a no-op. */
void ac_sim_result_free(ac_sim_result *result);

/* Render a result as deterministic text (every value "%.17g"), one line per
 * KPI: "node ID KPI MEAN CI95 N". The string is the caller's to free. */
int ac_sim_result_format(const ac_sim_result *result, char **out, ac_error *err);

/* The mixer behind the per-replication seeds: splitmix64 of seed and stream.
 * Exposed for the search and the benchmark. */
unsigned long long ac_sim_seed_mix(unsigned long long seed, unsigned long long stream);

#ifdef __cplusplus
}
#endif

#endif
