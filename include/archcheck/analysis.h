/*
 * archcheck: the analysis of a whole architecture and its verdict logic.
 *
 * ac_analysis_run takes a validated model and
 *   1. solves the traffic equations of the open network (routes with probability, fan-out,
 *      fan-in, parallel branches) for every node's arrival rate, iterating with the nodes'
 *      losses until the flows are consistent;
 *   2. solves every node at its arrival rate (pools: ac_solver_pool_solve), or the closed
 *      network of a <population> by Mean Value Analysis;
 *   3. combines the nodes' response-time distributions into the end-to-end one;
 *   4. turns the numbers into findings: stability (AC1xx), requirements (AC2xx), notes on
 *      the analysis (AC9xx), honouring <suppress>;
 *   5. finds the headroom: the largest factor by which every source can grow with every
 *      requirement still met (bisection).
 *
 * A check that the analysis cannot decide (a node kind not modelled yet, no convergence, an
 * approximation whose stated error straddles the limit) is an AC900 finding, which makes the
 * verdict INCONCLUSIVE: archcheck never says PASS without numbers to support it.
 *
 * Units: seconds, jobs per second, fractions.
 */
#ifndef ARCHCHECK_ANALYSIS_H
#define ARCHCHECK_ANALYSIS_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/serverless.h"
#include "archcheck/sim.h"
#include "archcheck/solver.h"
#include "archcheck/transient.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ac_validate_mode {
    AC_VALIDATE_AUTO = 0, /* simulate when a check is undecided by the approximation's error,
                             and to demonstrate metastable failure modes (default) */
    AC_VALIDATE_ALWAYS,   /* simulate every model the simulator supports */
    AC_VALIDATE_NEVER
} ac_validate_mode;

typedef struct ac_analysis_options {
    ac_solver_options solver;
    int headroom;           /* 1: compute the headroom factor (default 1) */
    size_t headroom_probes; /* the headroom search's work budget, in probes (each a network
                               solve and an end-to-end lattice within their own budgets);
                               0: the default, 40. Past it the headroom is not computed
                               (ac_analysis.headroom_why says so, with the bracket reached) */
    ac_validate_mode validate;
    ac_sim_options sim;          /* for validation: seed, precision (default 1%), event budget
                                    (default 5e8 events: deterministic, no wall-clock limit) */
    ac_transient_mode transient; /* default AC_TRANSIENT_AUTO */
    ac_transient_options transient_opt; /* defaults of ac_transient_options_init */
    int search; /* 1 (default): a <resilience> requirement runs the worst-case search
                   at its minimum boundary and confirms the worst case by simulation
                   (analysis/req_resilience.c); 0: it is INCONCLUSIVE */
    const char *search_skipped; /* search == 0: why, ending the AC900 message (a static
                             string, borrowed); NULL (default): "the worst-case search was
                             skipped (--no-search)" */
    size_t search_jobs;         /* the search's evaluation threads; default 1 */
    size_t search_budget;       /* evaluations over every resilience search of one analysis (each
                                   the <faults budget>, else 2000, and a tenth more polishing it);
                                   a search that could exceed what is left is not run (INCONCLUSIVE);
                                   default 200000 */
    unsigned long long search_confirm_events; /* the event budget of the simulation that
                             confirms a worst case, over its replications; 0: the default
                             of ac_analysis_confirm_options (50,000,000) */
    int loss_bracket_unread; /* 1: no pool's loss bracket (loss_abs_error stays 0): set by
                             the headroom's probes when the model has no loss or throughput
                             requirement, its only readers; default 0 */
} ac_analysis_options;

/* Fill `opt` with the defaults. */
void ac_analysis_options_init(ac_analysis_options *opt);

/* The steady state of one node. */
typedef struct ac_node_analysis {
    int analysed;              /* 0 when the node's kind is not modelled (see note) */
    size_t servers;            /* pools: the servers analysed (for an autoscaled pool, the count
                                  its scaler holds at this load), else 0 */
    int overload;              /* load >= 1 with an unbounded buffer */
    double arrival_rate;       /* offered jobs/s (first attempts) */
    double throughput;         /* jobs/s completed and passed downstream */
    double utilization;        /* fraction of server capacity busy */
    double loss_probability;   /* fraction of requests that fail (lost, or timed out after
                                  every retry) */
    double mean_jobs;          /* per server (pools) */
    double mean_response_time; /* s */
    double p50, p95, p99;      /* s */
    ac_solver_approx approximation;
    double expected_rel_error;   /* stated relative error of the numbers (0 for exact) */
    double percentile_rel_error; /* of p50/p95/p99 when larger (closed networks), else 0 */
    /* the stated absolute error of loss_probability (a fraction, >= 0): the part of the
       approximation's error that does not vanish with the value (a throttle of 1e-18 that
       the simulator puts at 3e-3); the loss's stated error is expected_rel_error x |loss| +
       loss_abs_error, the throughput's expected_rel_error x |throughput| + arrival_rate x
       loss_abs_error */
    double loss_abs_error;
    ac_solver_pool_result *pool; /* pools: the full solution (owned); else NULL */
    /* pools fed by a fan-out (its jobs arrive together): the batch-arrival law that replaces
       the Poisson one in the numbers above and the response-time law (owned), or NULL */
    struct ac_solver_batch_result *batch;
    /* closed networks, a single-server FCFS station (or one of c random-dispatch copies): the
       law of the jobs an arriving request finds there, arrival_queue[j] for j < arrival_queue_n
       (arrival theorem: the stationary law of the network with one client fewer; owned), and
       the server's rate: the response given j ahead is Erlang(j + 1, closed_service_rate) */
    double *arrival_queue;
    size_t arrival_queue_n;
    double closed_service_rate;
    /* the serverless stages (owned; NULL for other kinds). Their numbers above: functions:
       arrival_rate = requests (polled: executions), throughput = successful ones, loss =
       throttled or failed after every retry (polled: a failed execution, which the queue
       redelivers), mean_jobs = busy instances, utilization = busy / concurrency, response =
       first attempt to successful end; queues: arrival_rate = messages, throughput =
       deliveries passed to the consumer (redeliveries included), loss = rejected or
       dead-lettered, mean_jobs = messages held, response = time in the queue; gateways:
       throughput = admitted, loss = rejected (429), mean_jobs = tokens in use,
       utilization = admitted / rate limit, response 0 */
    ac_solver_function_result *function;
    ac_solver_queue_result *queue;
    ac_solver_gateway_result *gateway;
    int polled;    /* functions: fed by a queue */
    char why[160]; /* when not analysed: the solver's reason, or "" */
    /* metastability by simulation (bistable pools, when simulated): the window mean of the
       jobs per server when started empty and when started in the bad equilibrium */
    int basin_checked;
    ac_sim_estimate basin_good, basin_bad;
    int stays_good, stays_bad;
    /* and after a burst (burst_scale times the smallest one the solver names) on top of the
       good state: the window mean of the jobs per server after the burst */
    int burst_checked;
    double burst_scale;
    ac_sim_estimate after_burst;     /* over the runs */
    size_t burst_runs, burst_tipped; /* independent runs, and how many ended in the bad basin */
    /* QNA (Whitt 1983), analysis/qna.c: pools fed by a non-Poisson stream have their waits
       scaled by (c_a^2 + 1) / 2 (mean response time, mean jobs, percentiles); the stated
       error grows with |c_a^2 - 1| */
    int qna;                /* 1: the two-moment correction was applied */
    double arrival_scv;     /* c_a^2 of the arrival stream (1 for Poisson; set when qna) */
    double qna_wait_factor; /* (c_a^2 + c_s^2) / 2, c_s^2 = 1 */
    int qna_exact;          /* instead: a renewal source straight into a random-dispatch pool
                               is solved exactly as GI/M/1 per server (gamma or H2
                               inter-arrivals, as the simulator draws them) */
} ac_node_analysis;

/* End-to-end numbers of the open workload (sources), combined along the routes. */
typedef struct ac_end_to_end {
    int available;              /* 0 when there is no open workload or it cannot be combined */
    int percentiles;            /* 1 when p50/p95/p99 are available */
    double throughput;          /* requests/s completed */
    double loss_probability;    /* fraction of requests that fail somewhere */
    double mean_response_time;  /* s */
    double p50, p95, p99;       /* s */
    double expected_rel_error;  /* of the percentiles (node errors plus the lattice's) */
    double mean_rel_error;      /* of the mean (exact by visit ratios without fan-out) */
    double loss_rel_error;      /* of the loss and the throughput: the nodes' errors (the
                                   lattice's step does not enter them) */
    double loss_abs_error;      /* the loss's stated absolute error (a fraction): the nodes'
                                   loss_abs_error weighted by their visits, plus the
                                   lattice's bracket of a gateway's 504s; the throughput's is
                                   the entry rate x it */
    int unbounded;              /* a node or link on the way is overloaded: no steady state */
    double *grid_t, *grid_ccdf; /* P(T > t) on a grid (owned), or NULL */
    double *grid_ccdf_lo, *grid_ccdf_hi; /* P(T > t) of the floor and the ceiling lattices on
                                  the same grid (owned): the true law lies between them */
    size_t grid_n;
    double lattice_rel_error; /* the lattice's bracket of p50/p95/p99 (the largest), a bound */
    double node_rel_error;    /* the nodes' part of the percentiles' stated error */
    char why[160];            /* when an open workload has no percentiles: why */
} ac_end_to_end;

typedef enum ac_check_status {
    AC_CHECK_PASS = 0,
    AC_CHECK_FAIL,
    AC_CHECK_INCONCLUSIVE
} ac_check_status;

/* "pass", "fail", "inconclusive". */
const char *ac_check_status_name(ac_check_status s);

/* One check (a requirement on one node or end to end, or the stability of a node), passed
 * or not: the rows of a report's table and the test cases of JUnit. */
typedef struct ac_check {
    char name[160]; /* "latency p95 (end to end)", "stability of web", ... */
    char rule[8];   /* the rule of its finding when it does not pass */
    ac_check_status status;
    int has_value;
    double value, limit;       /* SI units */
    char unit[8];              /* "s", "/s", "" */
    int upper;                 /* 1: value must be <= limit; 0: >= limit */
    double rel_error;          /* the value's stated relative error */
    double abs_error;          /* and its stated absolute error (the value's unit): the
                                  value is within rel_error x |value| + abs_error */
    size_t node;               /* AC_NONE: end to end */
    ac_loc loc;                /* the requirement's (or node's) element */
    int suppressed;            /* its finding was suppressed */
    int settled_by_simulation; /* the approximation's error straddled the limit and the
                                  simulation's 95% interval decided */
    int has_sim;
    double sim_value, sim_ci95; /* the simulation's estimate, when simulated: its 95%
                                   half-width from the replications actually run */
    /* When the validating simulation judged the check (its approximation straddled or had no
     * value): the two-sided confidence of the interval that judged it (models.md §7, "The
     * sequential rule": 0.995 at an early look, 0.965 at the last; 0.95 with --validate or a
     * fixed count) and that interval's half-width; 0 otherwise. */
    double sim_level;
    double sim_halfwidth;
} ac_check;

typedef struct ac_analysis {
    const ac_model *model;   /* borrowed */
    double scale;            /* the workload factor analysed (1 = as written) */
    ac_node_analysis *nodes; /* one per model node */
    size_t nnodes;
    ac_end_to_end e2e;
    int has_headroom;
    double headroom;           /* the largest workload factor meeting every requirement */
    size_t headroom_node;      /* the node that binds first, AC_NONE if none */
    char headroom_binding[64]; /* what binds: "stability", "utilization", "latency p95", ... */
    double headroom_rel_error; /* the stated relative error of the factor */
    char headroom_why[160];    /* why there is no factor (has_headroom 0), or "" */
    ac_check *checks;          /* every check, in the file's order (owned) */
    size_t nchecks;
    ac_sim_result *sim;      /* the validating simulation, or NULL (owned) */
    double sim_level;        /* the confidence of the intervals judging checks on it: 1 -
                                alpha_k of the look that stopped it (models.md §7) */
    char sim_note[160];      /* why no simulation ran, when one was wanted */
    ac_transient *transient; /* the fluid transient over the profiles' horizon (owned), or
                                NULL (transient_note says why when it was wanted) */
    char transient_note[256];
    struct ac_an_warm *warm; /* internal (the headroom's probes): per node, warm starts of the
                                pool solve and of its bound solves as other dispatches
                                (analysis/network.c), or NULL (borrowed) */
} ac_analysis;

/*
 * Analyse `model` (which must be valid: from ac_parser_parse_*). Findings (AC1xx, AC2xx,
 * AC9xx) are appended to `findings` with the model's file and the element's location;
 * suppressed ones are marked so, with the reason. On success *out is a new analysis
 * (free with ac_analysis_free). Returns 0, AC_ENOMEM, or AC_EINPUT when the routing makes
 * jobs circulate forever (an AC032 finding names the routes).
 */
int ac_analysis_run(const ac_model *model, const ac_analysis_options *opt, ac_analysis **out,
                    ac_diag_list *findings, ac_error *err);

/* The routing check that ac_analysis_run makes before solving any node, alone (lint runs
 * it, so that it refuses what check refuses): the traffic equations at the sources' rates,
 * and the visit ratios of a closed population. Returns 0; AC_EINPUT with an AC032 finding
 * naming the routes when jobs would circulate forever; AC_ENOMEM or AC_ENUMERIC (err set).
 * The model must come from the parser. */
int ac_analysis_check_routing(const ac_model *model, ac_diag_list *findings, ac_error *err);

/* Free an analysis. NULL is a no-op. */
void ac_analysis_free(ac_analysis *analysis);

/* Does the node have a response-time law (analysed, not overloaded, of a modelled kind)? */
int ac_node_analysis_has_law(const ac_node_analysis *na);

/* P(T > t) for the time a request spends at the node, t in s (pools: an accepted job's
 * response; functions: first attempt to successful end; queues: arrival to the successful
 * delivery; gateways: 0). NAN when the node has no law. */
double ac_node_analysis_ccdf(const ac_node_analysis *na, double t);

/* The p-quantile (0 < p < 1) of that law into *out (s). Returns 0, AC_EINVAL (no law or p
 * outside (0, 1)) or AC_ENUMERIC. */
int ac_node_analysis_quantile(const ac_node_analysis *na, double p, double *out, ac_error *err);

/* The name of the approximation behind a node's numbers (doc/archcheck.1 "approximation"):
 * ac_solver_approx_name(na->approximation), or "qna" when the QNA two-moment correction
 * was applied on top of it. Never NULL. */
const char *ac_node_analysis_approximation(const ac_node_analysis *na);

#ifdef __cplusplus
}
#endif

#endif
