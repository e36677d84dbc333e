/*
 * archcheck: autoscaler tuning (`archcheck tune`, doc/models.md §7).
 *
 * ac_tune_run searches the settings of every autoscaled pool of a model (its <autoscale>
 * target utilisation, cooldown, interval, min and max; tolerance and scale-up delay stay as
 * written) for the least cost, the server-seconds of every pool over the profile's horizon
 * H (its last point; one period of a repeated profile), among the settings that keep every
 * requirement met over the profile. It reuses the GA of search/ (search.h: its loop, its
 * operators, its parallel evaluation) on a real-coded space, one gene in [0, 1] per range
 * whose LOW is below its HIGH; a candidate is evaluated on the fluid transient with its
 * scalers (transient.h: a workspace per job, ac_transient_new / ac_transient_eval).
 *
 * Requirements over the profile (one definition with the simulator's, sim.h):
 *   latency     node: the percentile of the response times of the jobs completing over [0,
 *               H] (ac_transient_node_quantile), the mean by Little (int jobs / int
 *               throughput); end to end: the transient's upper bound of the percentile
 *               (ac_transient_e2e_quantile), the mean sum_v int jobs_v / requests offered;
 *   utilization the busy server-seconds over the serving server-seconds (int N u / int N)
 *               of the node (without a target: the largest over the nodes that carry load);
 *   loss        node: int loss rate / int arrival rate; end to end: the error and throttle
 *               fractions' sum (an upper bound);
 *   scaling     scaling actions = changes of the serving count over [0, H) (the simulator's
 *               definition, the analysis' too) and the server-hours of the pools in scope;
 *   headroom    a necessary condition: every autoscaled pool's max meets its profile peak
 *               times the headroom, max mu u_lim >= h lambda_peak (u_lim the utilisation
 *               limit of the pool, else 1: stability);
 *   the others (throughput, recovery, resilience) are not judged by tune (listed in the
 *   result; `check` judges them).
 * Score (maximised by the GA): a feasible setting -cost / cost_ref (cost_ref: every pool at
 * the largest count of its range over H), an infeasible one -1 - sum of the relative
 * violations, one whose transient fails (counted) -1e7.
 *
 * Stated errors: scaling events and server-hours as the analysis states them (the look
 * grid's phase, the fluid's missing noise: analysis/req_capacity.c); latency, utilisation
 * from the fluid over a profile AC_TUNE_FLUID_ERROR, loss AC_TUNE_FLUID_ERROR_LOSS (relative; the
 * pointwise-stationary laws, measured against the simulator, not proven). The cheapest feasible
 * candidates (at most `confirm` of them, cheapest first) are taken in turn and simulated with
 * the autoscalers running (ac_sim_options.autoscale, `replications` replications after a
 * warm-up at the rate of t = 0, the profile over H; its 95% intervals, at most max_events
 * events): the first whose every interval is on the right side is the result, confirmed
 * (AC_TUNE_SIMULATED); one wholly on the wrong side is refused. When none is confirmed, the
 * cheapest left undecided (intervals straddling a limit, or a simulation that cannot fit
 * max_events) is the result, not confirmed by simulation (AC_TUNE_FLUID, accepted on the
 * fluid, when it was not simulated and every fluid margin exceeds its stated error, as check
 * accepts a value; else AC_TUNE_UNCERTAIN; why in note). When the simulation of the setting as
 * written already cannot fit max_events (a long profile at a high rate), the search is robust
 * instead: a candidate is feasible only when every margin exceeds its stated error (the values
 * inflated by it are what is scored), and the cheapest is returned unsimulated, accepted on
 * the fluid (AC_TUNE_FLUID).
 *
 * Work budget: `budget` evaluations of the transient in the GA (AC_TUNE_BUDGET by default),
 * and the search stops earlier when the best has not improved for `patience` generations;
 * when the budget is spent first the result says "budget exhausted" (the best so far). No
 * wall clock. Deterministic for a seed and any number of jobs (the GA's guarantee; the
 * candidates are ranked by score, then gene by gene).
 */
#ifndef ARCHCHECK_TUNE_H
#define ARCHCHECK_TUNE_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default budget: evaluations of the transient by the GA. */
#define AC_TUNE_BUDGET 300
/* The stated relative error of the fluid's latency and utilisation over a profile, and of its
 * loss: how far the fluid's value may lie below the truth, (true - fluid) / fluid (every
 * check they enter is an upper limit). Measured against the simulator with its autoscalers
 * (doc/models.md §9: test models, fast ramps, the samples over a 2-h day), not proven: the
 * largest under-estimate seen was 5.6% (utilisation, a shared-queue pool on a 60-s ramp to
 * 20 times its load) and 3.5% (a mean latency); of the loss 58% (the same ramp, the buffer
 * overflowing while the scaler's pods start); each set at about twice that, with a margin.
 * Over-estimates are larger (a pool's p95 +66% on a 10-s ramp, the end-to-end bound by
 * construction): they only send a candidate to the simulator. */
#define AC_TUNE_FLUID_ERROR      0.10
#define AC_TUNE_FLUID_ERROR_LOSS 0.75
/* The most points of the cost-vs-SLA front reported (the cheapest ones). */
#define AC_TUNE_FRONT_MAX 256
/* The most non-dominated points one evaluation thread keeps (min(budget, this)): a thread
 * evaluates at most `budget` settings, so with a budget at or below it no point is ever
 * dropped and the front is the same for any --jobs. Above it, a thread whose front fills
 * drops the newcomers and the result says so (front_cut). */
#define AC_TUNE_FRONT_STORE 65536
/* The most moments of the over-provisioning. */
#define AC_TUNE_MOMENTS_MAX 1000
/* The most requirement checks of one evaluation. */
#define AC_TUNE_CHECKS_MAX 64

/* A range LOW..HIGH; NAN in both: the documented default. */
typedef struct ac_tune_range {
    double lo, hi;
} ac_tune_range;

typedef struct ac_tune_options {
    size_t budget;                 /* GA evaluations, 1..10,000,000; default AC_TUNE_BUDGET */
    size_t population;             /* default 16 */
    size_t patience;               /* generations without improvement before stopping; default 8 */
    unsigned long seed;            /* the GA's and the simulations' seed; default 1 */
    size_t jobs;                   /* evaluation threads; default 1 */
    ac_tune_range target;          /* target utilisation in (0, 1]; default 0.3..0.9 */
    ac_tune_range cooldown;        /* s; default 0..900 */
    ac_tune_range interval;        /* s, > 0; default 5..60 */
    ac_tune_range min;             /* servers; default 1..the pool's max as written */
    ac_tune_range max;             /* servers; default the pool's min as written..2 x its max */
    size_t confirm;                /* candidates examined, cheapest first; default 4 */
    size_t replications;           /* of each simulation; default 10 */
    unsigned long long max_events; /* of each simulation; default 50,000,000 */
    double warmup;                 /* s of each simulation before the profile; default 60 */
    size_t moments; /* the over-provisioning's moments over [0, H] (a sizing at each); 0 (the
                       default): not computed; at most AC_TUNE_MOMENTS_MAX */
} ac_tune_options;

void ac_tune_options_init(ac_tune_options *opt);

/* One pool's setting. */
typedef struct ac_tune_setting {
    size_t node; /* model node index */
    double target, cooldown, interval;
    size_t min, max;
} ac_tune_setting;

/* One requirement judged on one setting. */
typedef struct ac_tune_check {
    size_t requirement; /* index into model->requirements */
    char what[64];      /* "latency p95 of 'web'", "scaling actions", ... */
    double value;       /* NAN: not computed */
    double ci95;        /* simulated checks: the 95% half-width; else 0 */
    double limit;
    int upper;        /* 1: value <= limit is met; 0: value >= limit */
    double rel_error; /* the stated relative error of value */
    int pass;
} ac_tune_check;

/* What stands behind the chosen setting: SIMULATED a confirmation by the simulator; FLUID the
 * fluid's margins beyond their stated errors (measured against the simulator), no simulation
 * fitting the budget: accepted, as check accepts a value, but not confirmed by simulation;
 * UNCERTAIN undecided (the command exits 3). */
typedef enum ac_tune_confirm {
    AC_TUNE_NONE = 0,  /* no feasible setting was found */
    AC_TUNE_FLUID,     /* not simulated (none fit the event budget); every fluid margin
                          exceeds its stated error */
    AC_TUNE_SIMULATED, /* confirmed: the simulator's intervals meet every requirement */
    AC_TUNE_UNCERTAIN  /* not confirmed: a margin within its error, no simulation settled it */
} ac_tune_confirm;

/* "none", "fluid", "simulation", "uncertain" (the JSON's names). */
const char *ac_tune_confirm_name(ac_tune_confirm c);
/* The phrase the text and PDF print: "confirmed by simulation", "not confirmed by
 * simulation; ...", "not confirmed; ...", "none". Static storage. */
const char *ac_tune_confirm_text(ac_tune_confirm c);

/* The evaluation of one setting (its pools' settings, its cost and checks). */
typedef struct ac_tune_eval {
    ac_tune_setting *pools; /* npools entries, owned by the result */
    double cost;            /* server-seconds of every pool over [0, H] */
    double server_hours;    /* cost / 3600 */
    size_t actions;         /* serving-count changes of the autoscaled pools over [0, H) */
    size_t flaps;           /* of those, reversals within one cooldown */
    double e2e_p95;         /* s, the end-to-end p95 bound over the profile (NAN: none) */
    int computed;           /* 0: the transient failed (why in the result's note) */
    int feasible;           /* every judged check passes on the fluid */
    ac_tune_check checks[AC_TUNE_CHECKS_MAX];
    size_t nchecks;
    ac_tune_check sim[AC_TUNE_CHECKS_MAX]; /* the simulator's values (confirmed == SIMULATED,
                                              or a simulated refusal), nsim entries */
    size_t nsim;
} ac_tune_eval;

/* One point of the cost-vs-SLA front: a setting evaluated by the search that meets every
 * requirement other than the binding latency one (on the fluid), not dominated in (cost,
 * value) by another such setting. */
typedef struct ac_tune_point {
    double cost;  /* server-seconds over [0, H] */
    double value; /* s, the binding latency requirement's fluid value (its stated error) */
    size_t actions;
    int met;                /* value <= the requirement's limit */
    ac_tune_setting *pools; /* npools entries, owned by the result */
} ac_tune_point;

/* Over-provisioning against the right-sized count at each moment t_i = (i + 1/2) H / n: the
 * least servers of the autoscaled pools meeting every latency, utilisation and loss
 * requirement at the workload of t_i (ac_size_run at the sources' rates then, its count at
 * the load, no simulation), against the serving counts of the fluid at t_i. */
typedef struct ac_tune_provision {
    size_t n;         /* moments; 0: not computed (why in note) */
    double *t;        /* s, n entries (this and the arrays below owned by the result) */
    double *needed;   /* servers summed over the autoscaled pools (NAN: not sized) */
    double *written;  /* the fluid's serving count of the settings as written */
    double *best;     /* of the chosen setting (NAN without one) */
    double needed_ss; /* server-seconds, sum_i needed_i H / n */
    double written_over, written_under; /* server-seconds above and below the needed count */
    double best_over, best_under;       /* NAN without a chosen setting */
    char note[128];
} ac_tune_provision;

typedef struct ac_tune_result {
    double horizon; /* s, H */
    size_t npools;
    ac_tune_eval written; /* the settings as written */
    ac_tune_eval best;    /* the setting chosen (valid when confirmed != NONE) */
    ac_tune_confirm confirmed;
    double saving; /* 1 - best.cost / written.cost (NAN: not comparable) */
    size_t budget, evaluations, generations;
    int budget_exhausted; /* the budget ran out before the search settled */
    size_t failures;      /* evaluations whose transient failed */
    size_t simulations;   /* confirmations run */
    size_t refused;       /* candidates the simulator refused */
    int robust;           /* 1: the robust search (no simulation could confirm) */
    char not_judged[256]; /* the requirement kinds tune does not judge, "" if none */
    char note[256];       /* why a candidate stays uncertain, what failed; "" */
    /* The cost-vs-SLA front over the binding latency requirement: the latency check with the
       smallest relative margin as written (front_check, an index into written.checks;
       AC_NONE: no latency requirement, nfront 0). Points by increasing cost. */
    size_t front_check;
    ac_tune_point *front;
    size_t nfront;
    int front_cut; /* a thread's store (AC_TUNE_FRONT_STORE) filled: points may be missing */
    ac_tune_provision provision;
    /* The secondary objective, scaling actions: of the settings the search evaluated that
       meet every requirement on the fluid (robust mode: with every margin clear), the one of
       fewest actions (ties: the lower cost, then the genes). Not confirmed by simulation;
       its pools, actions, cost and server_hours only (has_fewest 0: none). */
    int has_fewest;
    ac_tune_eval fewest;
} ac_tune_result;

/*
 * Tune `model` (valid, from the parser: at least one autoscaled pool and a <profile>). opt
 * NULL: defaults. On success *out is the new result (free with ac_tune_result_free). Returns
 * 0, AC_EINVAL (no autoscaled pool, no profile, a bad range or option: err says which),
 * AC_ENOMEM, or the transient's status when the setting as written cannot be evaluated.
 */
int ac_tune_run(const ac_model *model, const ac_tune_options *opt, ac_tune_result **out,
                ac_error *err);
void ac_tune_result_free(ac_tune_result *r); /* NULL is a no-op */

#ifdef __cplusplus
}
#endif

#endif
