/*
 * archcheck: the confirmation of a worst case by simulation (analysis module, analysis/
 * confirm.c): the fault plan the search (search.h) found re-run in the simulator (sim.h), its
 * score with a confidence interval beside the fluid one. It sits above both, so that search/
 * stays free of the simulator (common <- parser <- solver <- {sim, search} <- analysis).
 *
 * Units: seconds for times; scores in [0, 1].
 */
#ifndef ARCHCHECK_CONFIRM_H
#define ARCHCHECK_CONFIRM_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/search.h"
#include "archcheck/transient.h"

/* The most threads of a confirmation, and the most looks of its sequential schedule. */
#define AC_ANALYSIS_CONFIRM_JOBS_MAX  64
#define AC_ANALYSIS_CONFIRM_LOOKS_MAX 16

/*
 * The worst case re-run in the simulator (sim.h) with the same fault plan: independent
 * replications (replication r seeded ac_sim_seed_mix(seed, r)), each settling `warmup` s at
 * the rate of t = 0 without faults (the fluid transient starts at that fixed point), then the
 * horizon H with the profiles, the workload factor and the plan shifted by the warm-up. Each
 * replication gives the objective's score from its own measurements over the horizon, and
 * the estimate is their mean with a Student t half-width. The terms, from the simulator's
 * KPIs (sim.h) with the fluid terms' weights and norms:
 *   error-rate, loss    node: loss_probability (requests failing there after every retry /
 *                       requests); end to end: the requests of every source and population
 *                       that failed / the requests completed (pooled over the entries), a
 *                       request failing when any of its jobs does: loss counts every failed
 *                       job (failure_probability of sim.h), error-rate the jobs that failed
 *                       otherwise than by a throttle (error_probability); the fluid's is the
 *                       sum over the nodes, an upper bound (doc/models.md);
 *   throttle-rate       sync function, gateway: throttle_fraction; end to end: the largest;
 *   backlog-duration    queue: backlog_fraction x H; a function's backlog is not measured
 *                       by the simulator: such a term is not confirmed (said in `why`);
 *   utilization         utilization; end to end: the largest over the nodes;
 *   p95/p99-latency     the node's p95/p99_response_time; end to end: the largest over the
 *                       sources (the successful requests).
 * Fixed (sequential = 0): `replications` of them, the 95% half-width t_{0.975, n-1} s/sqrt(n).
 * Sequential (sequential = 1, a test of the mean against `tau`): a group-sequential schedule
 * of K looks planned in advance at n = 2, then 6, 12, 24, ... below `replications`, then
 * `replications` (K = 1 when it is <= 3: that n alone); at each look the interval at level 1 - 0.05 / K,
 * t_{1 - 0.025/K, n-1} s / sqrt(n) (Bonferroni: the K intervals hold the mean together with
 * probability >= 95%, so the interval of the look where it stops does too, whatever the
 * stopping rule); it stops at the first look whose interval lies wholly above or below tau
 * (ac_analysis_confirm_side), else after the last. The interval reported is the stopping
 * look's (`level`): never narrower than the fixed test's at the same n.
 * Budget: max_events over every replication; each look's new replications share what is left
 * equally (a replication over its share stops the confirmation; the looks completed stand).
 * `jobs` threads run a look's replications (slot r on thread r mod jobs; the result is the
 * same for any number).
 */
typedef struct ac_analysis_confirm_options {
    size_t replications;           /* >= 2; default 10 (sequential: the most) */
    double warmup;                 /* s; <= 0: ac_analysis_confirm_warmup (default) */
    unsigned long seed;            /* default 1 */
    unsigned long long max_events; /* over every replication; default 50,000,000 */
    int sequential;                /* 1: the sequential test against tau; default 0 */
    double tau;                    /* the limit of the sequential test */
    size_t jobs;                   /* threads, 1 (default) .. AC_ANALYSIS_CONFIRM_JOBS_MAX */
} ac_analysis_confirm_options;

void ac_analysis_confirm_options_init(ac_analysis_confirm_options *opt);

/* The default warm-up of a confirmation of m (s): max(60 s, 100 tau_fast + tau_slow), tau_fast
 * the longest time a job holds a server (a pool's mean service, a function's duration + cold
 * start), tau_slow the longest memory of a serverless state (keep-alive, pre-warm interval,
 * async back-offs 60 + 120 (retries - 1) s, visibility timeout x max-receives); analysis/confirm.c
 * gives the reasons. */
double ac_analysis_confirm_warmup(const ac_model *m);

typedef struct ac_analysis_confirmation {
    int computed;       /* 1: score and ci95 hold the simulator's estimate */
    char why[200];      /* computed == 0: why not; computed == 1: why it stopped before the
                           last look (the budget), or empty */
    double fluid;       /* the fluid score of the plan (as given) */
    double score, ci95; /* the simulated score: mean over the replications, half-width at
                           `level` (>= 95%, simultaneous over the looks) */
    double diff;        /* score - fluid */
    double level;       /* the confidence of each look's interval: 0.95 (fixed), 1 - 0.05 / K */
    int sequential;
    size_t looks, looks_planned; /* looks made (at most planned), planned K (fixed: 1) */
    size_t replications;
    unsigned long long events; /* every replication run (a look cut by the budget included) */
    double warmup, horizon;    /* s, as used */
} ac_analysis_confirmation;

/*
 * Confirm the plan `faults` (nfaults entries; NULL: no fault) of `model` at workload factor
 * `scale` over the transient horizon `horizon` (s), for the objective whose fluid terms are
 * `terms` (nterms, from ac_search_objective_eval_plan on the same plan: their weights and
 * norms are used; the metric and target of each come from model->faults, whose term count
 * must match, else not computed), `fluid` its fluid score. opt NULL: defaults. A simulation
 * that exceeds its budget, or a term the simulator does not measure, leaves computed = 0 with
 * the reason (not an error). Returns 0, AC_EINVAL (bad arguments, a plan the simulator
 * refuses) or AC_ENOMEM.
 */
int ac_analysis_confirm(const ac_model *model, const ac_transient_fault *faults, size_t nfaults,
                        double scale, double horizon, const ac_search_term_value *terms,
                        size_t nterms, double fluid, const ac_analysis_confirm_options *opt,
                        ac_analysis_confirmation *out, ac_error *err);

/* The pilot's length (s of simulated time) of ac_analysis_confirm_events_pilot. */
#define AC_ANALYSIS_CONFIRM_PILOT 60.0

/* The events that the first look of the confirmation of `model` at workload factor `scale`
 * over `horizon` (s) spends at least, about (sequential: its first look's replications; fixed:
 * all), into *out: n (r W + A_H), with r the events per simulated second of a pilot
 * replication without faults at the rates of t = 0 (min(60 s, W) from the empty start, its
 * own seed, at most a tenth of opt->max_events: past it r is taken at that tenth's rate, a
 * lower value), W the warm-up, A_H the sources' requests over the horizon (one event each), n
 * the replications. What the faults add and the later looks come on top, so above
 * opt->max_events the
 * confirmation cannot settle anything (a search whose worst case cannot be confirmed cannot
 * settle a requirement). opt NULL: defaults. Returns 0, AC_EINVAL (bad arguments, a model the
 * simulator refuses) or AC_ENOMEM. */
int ac_analysis_confirm_events_pilot(const ac_model *model, double scale, double horizon,
                                     const ac_analysis_confirm_options *opt, double *out,
                                     ac_error *err);

/* Where the confirmed score stands against tau: 1 when its 95% interval lies at or above tau,
 * -1 when wholly below, 0 when it straddles tau or was not computed. */
int ac_analysis_confirm_side(const ac_analysis_confirmation *c, double tau);

#endif /* ARCHCHECK_CONFIRM_H */
