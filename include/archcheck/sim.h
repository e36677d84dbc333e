/*
 * archcheck: the discrete-event simulator (doc/models.md §7).
 *
 * It simulates an ac_model with exactly the semantics of doc/models.md and
 * doc/format.md for a finite number of servers, and estimates every KPI with
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
 *    `capacity` jobs/s (deterministic time 1/capacity per job), with at most
 *    `buffer` jobs waiting (more are lost, not retried), then a fixed delay
 *    `latency`: M/D/1 (M/D/1/K, K = buffer + 1) and a delay, as solver/link.c
 *    solves it. An unbounded capacity is a pure delay.
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
 *    It has failed when any of its jobs was lost or gave up. The end-to-end
 *    response times are those of the requests that did not fail (a request
 *    refused at once would otherwise make the latency look better).
 *  - <function> (doc/serverless.md, "Function"): instances are busy
 *    (initialising or executing; at most `concurrency` C) or idle-warm. An
 *    attempt runs on an idle provisioned instance, else on the most recently
 *    used idle on-demand instance (warm start), else on a new instance (cold
 *    start: `cold-start` c0, deterministic, then the execution) that takes a
 *    scale token (bucket of `scale-burst` tokens, default max(1, scale-rate);
 *    full at time 0,
 *    refilled continuously at `scale-rate`). The execution time X is
 *    exponential of mean `duration`; X > `timeout` fails at the timeout (c0
 *    not counted), otherwise it ends at X and fails with `fail-prob`. The
 *    instance is busy c0 + min(X, timeout), then idle-warm; an idle on-demand
 *    instance is reclaimed `keep-alive` after it became idle. `provisioned`
 *    instances exist from time 0 and are never reclaimed; pre-warming (`prewarm`
 *    W every `prewarm_interval` I) tops the alive instances up to W with new
 *    idle ones at times 0, I, 2I, ... (no token; reclaimed like any idle one;
 *    a ping does not refresh the instances already idle, and an instance whose
 *    keep-alive ends at the ping's instant is reclaimed before the top-up).
 *      sync    an attempt that finds C busy, or needs a cold start without a
 *              token, is throttled; throttled and failed attempts are retried
 *              AT ONCE up to `retries` times, then the request fails. (A retry
 *              at once after a throttle sees the same busy instances: it is
 *              throttled again. A retry after a failed execution finds the
 *              instance that just ended idle: it is never throttled.)
 *      async   an attempt is never throttled: it waits in the function's FIFO
 *              (unbounded) for a slot and, for a cold start, a token. A failed
 *              execution is retried after 60 s, then 120 s before each later
 *              retry, up to `retries` times, then the request fails.
 *      polled  executions handed over by a <queue> (below); their failures are
 *              the queue's to redeliver.
 *  - <queue> (doc/serverless.md, "Queue"): a message arriving when `capacity`
 *    messages are held (visible or in flight) is rejected (lost). While
 *    messages are visible, the queue's consumer executions not yet ended
 *    leave room under `max-consumers` M for one more delivery (k executions:
 *    the fanout of its route to a function; a delivery with k > M needs none
 *    running) and every consumer function (a function target of the queue's
 *    routes) can start an execution at once, the poller takes the
 *    min(`batch-size`, visible) OLDEST visible messages as one delivery,
 *    which leaves along the queue's routes like a completion (every parallel
 *    route, one route chosen by p). To a function, fanout k makes k
 *    executions of the batch (a polled execution is never throttled: those
 *    beyond the function's free capacity wait in its FIFO, first in line);
 *    each execution carries one job per message, and an execution that
 *    succeeds passes its jobs downstream at once (a delivery that fails
 *    later thus passes them twice: at least once, as SQS). To another kind
 *    of node a route is a hand-off (the jobs are delivered there, through its
 *    <link> if any, and the route is settled at once). The delivery succeeds
 *    when all its executions have succeeded (at once when it made none):
 *    its messages are deleted. An execution that fails, or the visibility
 *    timeout V passing first, fails it: V after the receive its messages are
 *    visible again, except those received `max-receives` times, which go to
 *    the dead-letter queue (lost). Executions still running go on; their
 *    results are discarded. A <link> between a queue and a function is
 *    refused (AC_EINVAL).
 *  - <gateway> (doc/serverless.md, "Gateway"): a token bucket of max(burst, 1)
 *    tokens, full at time 0, refilled continuously at `rate-limit`; a request
 *    finding fewer than one token is rejected (429, lost), otherwise it takes
 *    one and goes on at once (unbounded rate-limit: everything goes on). When
 *    the synchronous downstream work of an admitted request (every job
 *    descended from it after the gateway, until it reaches a queue or an async
 *    function, where the caller has its answer) ends more than `timeout` after
 *    the admission, the request failed (504; the work went on). Joins (fanin) see through the
 *    gateway: a fan-in downstream of a gateway joins within the nearest
 *    enclosing fan-out as if the gateway were not there.
 *  - A request fails when any of its jobs is lost or given up: lost at a full
 *    pool or link, timed out at a pool after all retries, throttled or failed
 *    at a function after all retries, rejected or dead-lettered at a queue,
 *    rejected or answered 504 by a gateway.
 *  - A cycle of routes that take no time (out of a gateway, or a queue's
 *    hand-off to a node that is not a function, with no link or a link of
 *    unbounded capacity and no latency) would pass a job around forever at one
 *    instant: such a model is refused (AC_EINVAL).
 *  - A pool's <autoscale> is not simulated (the pool keeps `servers`);
 *    mitigations are the caller's to apply to the model before simulating; faults in
 *    time come as a plan (ac_sim_options.faults, sim/faults.c).
 *
 * Statistics
 *  - Each replication runs from time 0 to `horizon`; statistics are collected
 *    over [warmup, horizon] (jobs present at the warm-up are measured when they
 *    leave; ratios of window counts can therefore exceed 1 by a hair).
 *    Random numbers: replication r uses its own xoshiro256** generator (Blackman
 *    and Vigna 2018) whose 256-bit state is four successive splitmix64 outputs
 *    started at ac_sim_seed_mix(seed, r); uniform integers by Lemire's
 *    multiply-shift with rejection (unbiased), exponentials by the 256-layer
 *    ziggurat of Marsaglia and Tsang (2000; exact, its tail by memorylessness),
 *    gamma inter-arrivals by GSL's gsl_ran_gamma on the same stream. So
 *    replications are independent and the same seed gives the same result byte
 *    for byte on one build, whatever the number of threads (no clock, no
 *    environment, no thread schedule is involved).
 *  - Per replication and node: time averages (mean jobs per server, utilisation),
 *    rates per second over the window, ratios of counts, the mean response time
 *    of the jobs that left in the window and its percentiles p50/p95/p99 (from a
 *    log-spaced histogram: 256 bins per octave, linear interpolation inside a
 *    bin, relative resolution 0.4%). Percentiles: see "sectioning" below.
 *  - Each estimate is the mean over the replications in which the KPI was
 *    defined (a ratio with a zero denominator is undefined), with the 95%
 *    half-width t_{0.975, n-1} s / sqrt(n) (Student t); INFINITY when n < 2,
 *    NAN when n = 0.
 *  - Automatic replication count (replications = 0): replications run until
 *    the relative half-width of the MAIN KPIs is at most `rel_precision`, at
 *    least `min_replications` (default 20) and at most `max_replications`, and
 *    until the budget `max_events` or `max_wall_seconds` is spent (checked
 *    between replications; a wall-clock stop makes the count machine
 *    dependent). The main KPIs are the mean end-to-end response time of every
 *    source and population; without any, the mean jobs of every pool.
 *  - Percentiles by sectioning: the estimate is the quantile of the
 *    histograms pooled over the replications, its interval the Student t one
 *    of the per-replication quantiles (averaging per-replication quantiles
 *    carries each one's small-sample bias, which many short replications make
 *    larger than the interval).
 *  - Automatic horizon with a budget: a pilot replication (at most
 *    max_events / (16 min_replications) events) measures the events per
 *    simulated second, and the horizon shrinks so that min_replications of
 *    them take 0.8 of `max_events` (budget_limited says so in the result).
 *    The default warm-up then does not shrink with the horizon: it stays the
 *    settling time W = 100 tau + tau_slow (a tenth of a shortened horizon
 *    ends before the instances the empty start created are reclaimed: a bias
 *    beyond the intervals), the measured part is the rest, at least 100 tau,
 *    and the budget stops the replications early; when 2 replications (or the
 *    fixed count) of W + 100 tau exceed the budget, AC_ELIMIT ("budget-limited").
 *    The pilot is replication 0's start (its seed and warm-up; cut, it stops
 *    before the warm-up ends) and goes on as replication 0 when
 *    that run is the one a fresh run with the chosen horizon makes: the
 *    result is the same as with that horizon and warm-up given.
 */
#ifndef ARCHCHECK_SIM_H
#define ARCHCHECK_SIM_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/transient.h"

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

struct ac_sim_result; /* below */

typedef struct ac_sim_options {
    unsigned long seed;      /* default 1; every value (0 too) is a distinct seed */
    size_t replications;     /* fixed count (>= 2 for an interval); 0: automatic (default) */
    double rel_precision;    /* automatic: target half-width / |mean| of the main KPIs; 0.01 */
    size_t min_replications; /* automatic: default 5 */
    size_t max_replications; /* automatic: default 200 */
    double horizon;          /* s, end of each replication; 0: automatic (default):
                                the larger of 20000 times the longest time constant of
                                the model (service times, inter-arrival and think times,
                                links, function duration + cold-start, a gateway's
                                bucket refill time) and 10 times its slowest serverless
                                delay (keep-alive, pre-warm interval, async back-offs,
                                visibility timeout x max-receives), so that the default
                                warm-up (a tenth) covers an instance population's
                                settling */
    double warmup;           /* s, start of the measurement; < 0 (default): horizon / 10, or,
                                when the budget shortens the automatic horizon, the settling
                                time 100 tau + tau_slow (the longest time constant and the
                                slowest serverless delay above), the measured part the rest
                                (at least 100 tau; a budget that cannot pay for that in 2
                                replications, or the fixed count: AC_ELIMIT) */
    unsigned long long max_events; /* budget over all replications; 0: unlimited. A single
                                      replication that exceeds it fails with AC_ELIMIT. */
    double max_wall_seconds;       /* automatic mode: no new replication after this; 0: unlimited */
    size_t max_jobs;               /* most jobs alive at once (overload guard); default 10^7;
                                      exceeded: AC_ELIMIT */
    int use_profiles;              /* 1: sources with a <profile> follow it; 0 (default): steady
                                      state at each source's `rate` */
    double load_scale;             /* every source's rate (and profile) times this; default 1 */
    const ac_sim_initial_state *initial; /* borrowed; may be NULL */
    size_t ninitial;
    size_t jobs;                     /* threads running replications (pthreads); 0 or 1 (default):
                                        this thread only. Replication r has its own state and
                                        generator (seed, r) whatever thread runs it, and the
                                        replications are combined in order, so the result is the
                                        same byte for byte for every `jobs` (speculative
                                        replications beyond the stopping point are discarded).
                                        At most 256. */
    const ac_transient_plan *faults; /* borrowed; NULL: none. Faults in time with the
                                  transient's semantics (transient.h; sim/faults.c): on a
                                  function, delay (every execution lasts delay + X, cut by
                                  the timeout), fail-prob (an execution also fails with this
                                  probability: 1 - (1 - f)(1 - value)), cold-start (the
                                  cold-start latency); on a pool, delay (every service lasts
                                  delay + Exp(mu): the transient approximates it as
                                  exponential of that mean), servers-down (that many servers
                                  take no new job: idle ones first, a busy one finishes what
                                  it holds; they come back as they are); on a gateway,
                                  capacity-loss (the rate limit is r (1 - value), the bucket
                                  brought up to date at the edge). Faults on one attribute add
                                  up (delay, servers-down, at most servers - 1) or combine
                                  (fail-prob, capacity-loss); the last cold-start wins. The
                                  windows [start, end) are in simulated time (s). */
    double profile_offset;           /* s: the profiles are read at t - profile_offset (their
                                        first point's rate before), so that a replication can
                                        settle at the rate of t = 0 first; default 0 */
    /* Optional progress report (borrowed; NULL: none), called on the calling thread every
       65,536 events of its replications and after each replication, with the work done
       as a fraction in [0, 1] of the most the run may do: counted events of max_events,
       or replications of a fixed count (never the clock). It cannot change the result. */
    void (*progress)(void *ctx, double done);
    void *progress_ctx;
    /* Optional looks of a sequential rule (automatic mode only; NULL: none; borrowed). After
       exactly looks[k] replications have been combined (strictly increasing counts, each
       below the ordinary stop), the result so far (every estimate as the final result
       would give it from those replications, `replications` = looks[k]) is passed to
       look(look_ctx, partial, k) on the calling thread; a return of 1 stops the run there
       (`stopped_at_look` = k + 1 in the result). The looks fall at fixed replication
       counts, so the decision is the same for every `jobs`; batches of replications never
       run past the next look. */
    const size_t *looks;
    size_t nlooks;
    int (*look)(void *ctx, const struct ac_sim_result *partial, size_t k);
    void *look_ctx;
    int autoscale; /* 1: pools with an <autoscale> scale (sim/autoscale.c, the
                      transient's semantics); 0 (default): they keep `servers`.
                      The scaler looks at t = k x interval, k >= 1; its
                      utilisation is the busy server-seconds since the last
                      look over (that time x the servers serving now: servers
                      that joined meanwhile count idle before, as HPA counts
                      pods not yet ready). Outside 1 +- tolerance of the target
                      the recommendation is ceil(serving x u / target) within
                      [min, max], else the target count (serving + ordered); a
                      scale-up is held while orders are pending and
                      serving x u / (target count x target) is within the
                      tolerance. A scale-up is ordered, the servers serve
                      scale-up-delay later; a scale-down goes to the highest
                      recommendation of the past cooldown (the window; the
                      starting count is recommended at t = 0), cancels pending
                      orders first (newest first), then takes servers away at
                      once: idle ones first, a busy one finishes what it holds
                      and takes no new job (as servers-down, sim/faults.c).
                      Servers-down faults on a scaled pool are refused. */
} ac_sim_options;

/* One change of an autoscaled pool's serving count. */
typedef struct ac_sim_scaling_action {
    double t;        /* s, simulated time */
    size_t from, to; /* serving servers before and after */
} ac_sim_scaling_action;

/* One estimate: the mean over n replications and the half-width of its 95%
 * confidence interval. A proportion counted per request (the loss and failure
 * probabilities) also carries its counts pooled over the n replications: `count` requests
 * lost or failed out of `trials` (trials 0: not a counted proportion, or nothing offered). */
typedef struct ac_sim_estimate {
    double mean;
    double ci95;
    size_t n;
    double count, trials;
} ac_sim_estimate;

/* KPIs of one node. Counts are over the measurement window; attempts are arrivals at the
 * node, retries included; requests are first attempts. A KPI that a kind does not define
 * (or whose denominator was 0 in every replication) has n == 0 and a NAN mean.
 * The keys shared with the solver have the solver's definitions (output.md, report/json.c):
 * arrival_rate requests/s (not retry attempts), throughput jobs passed downstream/s,
 * loss_probability the fraction of requests that fail after all retries. The attempt
 * counts are attempt_rate (attempts/s) and attempt_loss_fraction (refused / attempts).
 * Per kind:
 *
 * Pool, link: arrival_rate first attempts/s; throughput completions passed downstream/s
 *   (timed-out copies, which finish later, are not); utilization busy servers / servers;
 *   mean_jobs jobs per server (pool) or in the link; loss_probability = failure_probability
 *   requests lost at a full buffer or timed out after all retries / requests; response times
 *   from the arrival to the completion of each completed copy; timeout_fraction attempts
 *   that timed out / attempts; retries_per_job retries / first attempts. The five serverless
 *   KPIs are undefined.
 *
 * Function: arrival_rate first attempts/s (a polled execution of a batch of m messages is m;
 *   a redelivery is a new execution); throughput jobs passed downstream/s (successful
 *   executions; polled: not the discarded ones); utilization busy instances / concurrency C;
 *   mean_jobs busy instances; loss_probability = failure_probability (below);
 *   throttle_fraction throttled attempts / attempts (0 for async and polled); response times from
 * the FIRST attempt to the end of the successful execution (sync: retries included; async: the FIFO
 * wait and the back-offs included; polled: from the hand-over by the queue); timeout_fraction
 * executions stopped at the timeout / executions; retries_per_job retries (sync: throttled or
 * failed attempts; async: failed executions; polled: none) / first attempts; failure_probability
 * requests that failed here after all retries / first attempts (polled: jobs of failed executions /
 * jobs: the queue redelivers them); cold_start_fraction cold starts / executions; mean_instances
 *   alive instances (busy + idle-warm, provisioned included), time average.
 *
 * Queue: arrival_rate messages arriving/s; throughput messages whose delivery succeeded/s;
 *   utilization consumer executions of the queue not yet ended / max-consumers M;
 *   mean_jobs messages held (visible + in flight); loss_probability = failure_probability
 *   (messages rejected at capacity + dead-lettered) / messages; response times: the time in
 *   queue, from the arrival to the receive of the delivery that succeeded;
 *   timeout_fraction message receives still unsettled V after the receive (executions too
 *   long) / receives; retries_per_job receives after the first / messages;
 *   dead_letter_fraction dead-lettered / messages; backlog_fraction the fraction of the
 *   window during which a visible message waited (the `backlog-duration` over the window).
 *
 * Gateway: arrival_rate requests/s; throughput admitted/s; utilization admitted/s /
 *   rate-limit (0 when unbounded); mean_jobs the token deficit, depth - tokens, time
 *   average (the work, in tokens, of the equivalent M/D/1/K queue); loss_probability =
 *   throttle_fraction rejected (429) / requests (the 504s are in failure_probability); response
 * times 0 (admission takes no time; the downstream time counts through the 504s); timeout_fraction
 * requests answered 504 / requests; retries_per_job 0; failure_probability (rejected + 504) /
 * requests.
 */
typedef struct ac_sim_node_result {
    char *id; /* the node's id; for a link its id or "FROM->TO" */
    int is_link;
    ac_node_kind kind; /* the model node's kind (AC_NODE_POOL for a link: see is_link) */
    size_t servers;    /* pools: N; links: 1; functions: concurrency C; queues: max-consumers M;
                          gateways: bucket depth max(burst, 1) */
    ac_sim_estimate arrival_rate; /* per second */
    ac_sim_estimate throughput;   /* per second */
    ac_sim_estimate utilization;  /* time average */
    ac_sim_estimate mean_jobs;    /* time average */
    ac_sim_estimate loss_probability;
    ac_sim_estimate mean_response_time; /* s */
    ac_sim_estimate p50_response_time;  /* s */
    ac_sim_estimate p95_response_time;  /* s */
    ac_sim_estimate p99_response_time;  /* s */
    ac_sim_estimate timeout_fraction;
    ac_sim_estimate retries_per_job;
    ac_sim_estimate failure_probability;
    ac_sim_estimate cold_start_fraction;   /* functions */
    ac_sim_estimate throttle_fraction;     /* functions, gateways */
    ac_sim_estimate dead_letter_fraction;  /* queues */
    ac_sim_estimate backlog_fraction;      /* queues */
    ac_sim_estimate mean_instances;        /* functions */
    ac_sim_estimate attempt_rate;          /* attempts per second, retries included */
    ac_sim_estimate attempt_loss_fraction; /* attempts refused (full, throttled) / attempts */
    /* Autoscaled pools (ac_sim_options.autoscale; otherwise n == 0, actions NULL). Their
     * utilization is busy server-seconds / serving server-seconds and mean_jobs jobs per
     * serving server (time averages over the window); `servers` is the starting count. */
    ac_sim_estimate scaling_actions; /* changes of the serving count in the window, per
                                        replication */
    ac_sim_estimate scaling_flaps;   /* of those, actions in the direction opposite to the
                                        previous action and within one cooldown of it */
    ac_sim_estimate server_seconds;  /* integral of the serving count over the window, s
                                        (server-hours: / 3600) */
    ac_sim_scaling_action *actions;  /* replication 0's changes over [0, horizon], in time
                                        order (warm-up included); owned by the result */
    size_t nactions;
} ac_sim_node_result;

/* End-to-end KPIs of one source or population (requests completed in the window). */
typedef struct ac_sim_entry_result {
    char *id;
    int is_population;
    ac_sim_estimate arrival_rate;       /* requests per second */
    ac_sim_estimate throughput;         /* successful requests completed per second (the
                                           failed ones are not: as the solver's) */
    ac_sim_estimate mean_response_time; /* s, end to end */
    ac_sim_estimate p50_response_time;
    ac_sim_estimate p95_response_time;
    ac_sim_estimate p99_response_time;
    ac_sim_estimate failure_probability; /* completed requests with a lost or failed job
                                            (lost, throttled, dead-lettered or failed: the
                                            contract's `loss`) / completed requests */
    ac_sim_estimate error_probability;   /* completed requests with a job that failed
                                            otherwise than by a throttle (an execution failed
                                            or timed out, a full buffer, a queue's rejection
                                            or dead letter, a gateway's 504; not a function's
                                            throttle or a gateway's 429 after the retries:
                                            the objective's `error-rate`) / completed
                                            requests; not in ac_sim_result_format */
} ac_sim_entry_result;

/* How a run's warm-up was chosen. */
typedef enum ac_sim_warmup_rule {
    AC_SIM_WARMUP_TENTH = 0, /* the default: a tenth of the horizon */
    AC_SIM_WARMUP_SETTLING,  /* the default when the budget shortened the automatic horizon:
                                the settling time 100 tau + tau_slow (tau: `timescale`;
                                tau_slow: the slowest serverless delay), the measured part
                                the rest */
    AC_SIM_WARMUP_GIVEN      /* ac_sim_options.warmup >= 0 */
} ac_sim_warmup_rule;

/* "tenth", "settling" or "given" (static). */
const char *ac_sim_warmup_rule_name(ac_sim_warmup_rule rule);

typedef struct ac_sim_result {
    ac_sim_node_result *nodes; /* one per model node, in model order */
    size_t nnodes;
    ac_sim_node_result *links; /* one per model link, in model order */
    size_t nlinks;
    ac_sim_entry_result *entries; /* the sources, then the populations, in model order */
    size_t nentries;
    size_t replications;       /* replications used */
    unsigned long long events; /* events simulated over all replications */
    double rel_halfwidth;      /* the worst relative half-width of the main KPIs */
    int converged;             /* 1 when rel_halfwidth <= rel_precision (automatic mode) */
    int budget_limited;        /* 1 when max_events shortened the automatic horizon or
                                  stopped the replications: the precision is what the
                                  budget allowed */
    unsigned long seed;
    double horizon, warmup;         /* s, as used */
    ac_sim_warmup_rule warmup_rule; /* why `warmup` is what it is (above) */
    size_t stopped_at_look;         /* k + 1 when options.look stopped the run at its look k
                                       (looks[k] replications); 0 otherwise */
    double timescale;               /* s, the model's longest time constant (service, holding,
                                       think, transmission, refill times; the automatic horizon
                                       is 20,000 of them) */
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
 * KPI: "node ID KPI MEAN CI95 N" (links: "link ..."). Every node has the twelve
 * KPIs from arrival_rate to failure_probability; functions add
 * cold_start_fraction, throttle_fraction and mean_instances, queues
 * dead_letter_fraction and backlog_fraction, gateways throttle_fraction. The
 * string is the caller's to free. */
int ac_sim_result_format(const ac_sim_result *result, char **out, ac_error *err);

/* The mixer behind the per-replication seeds: splitmix64 of seed and stream.
 * Exposed for the search and the benchmark. */
unsigned long long ac_sim_seed_mix(unsigned long long seed, unsigned long long stream);

#ifdef __cplusplus
}
#endif

#endif
