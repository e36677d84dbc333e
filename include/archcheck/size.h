/*
 * archcheck: capacity planning (`archcheck size`, `check --size`).
 *
 * ac_size_run finds, for every pool (servers; an autoscaled pool: its maximum), function
 * (concurrency) and queue (max-consumers) that receives work, the smallest integer count at
 * which every requirement that tightens with load (latency, utilisation, loss) and stability
 * hold, at the workload as written and at the workload times the required headroom (the
 * <headroom min> of the file, 1 when it has none). The judgement is the analysis' own
 * (ac_an_requirements_hold, the probes of the headroom search): the accurate solver of each
 * node (exact, refined, or simulated for jsq/jiq) at each count, by bisection on the count.
 *
 * Nodes are sized one after another in the file's order: first every count is doubled
 * together until the requirements hold (a feasible start), then each node's count is bisected
 * down with the nodes before it at their minima and those after it at the feasible start, so
 * the counts found hold together. Requirements on one node give that node's exact minimum.
 * An end-to-end requirement that two nodes or more bind is then split anew: exchanges
 * between every pair of them (more at one, the least that holds at the other) while the sum
 * of their counts falls; exact (the least sum) for two such nodes, never above the greedy
 * split, every point a probe that holds.
 *
 * Where the answer n sits within the stated error of a limit (some requirement straddles its
 * limit at n or n - 1), the full analysis with its validating simulation is run at n - 1 and n
 * (counted: at most max_simulations analyses): a count the simulation passes or fails is
 * settled; otherwise the count is reported as uncertain with the range [needed_lo, needed_hi]
 * that the stated errors allow.
 *
 * Work budget: every solve of the network is one probe; at most max_probes in all (then the
 * remaining nodes are AC_SIZE_BUDGET). No wall clock.
 */
#ifndef ARCHCHECK_SIZE_H
#define ARCHCHECK_SIZE_H

#include <stddef.h>

#include "archcheck/analysis.h"
#include "archcheck/error.h"
#include "archcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ac_size_options {
    ac_analysis_options analysis; /* the solver, and the simulation of the confirmations */
    size_t max_probes;            /* network solves in all (default 4000) */
    size_t max_simulations;       /* full analyses with simulation (default 8) */
    size_t max_count;             /* the largest count probed (default 2^20) */
    int load_only;                /* 1: size at the load only (each at_headroom is then
                                     AC_SIZE_UNCOMPUTED); default 0 */
} ac_size_options;

/* Fill `opt` with the defaults. */
void ac_size_options_init(ac_size_options *opt);

typedef enum ac_size_status {
    AC_SIZE_OK = 0,       /* needed is the smallest count (settled) */
    AC_SIZE_UNCERTAIN,    /* the stated errors allow any count in [needed_lo, needed_hi] */
    AC_SIZE_UNATTAINABLE, /* no count up to max_count meets the requirements */
    AC_SIZE_UNCOMPUTED,   /* a requirement had no value (why in note) */
    AC_SIZE_BUDGET        /* the work budget ran out before this node */
} ac_size_status;

/* "ok", "uncertain", "unattainable", "uncomputed", "budget". */
const char *ac_size_status_name(ac_size_status s);

/* One sizing at one workload factor. */
typedef struct ac_size_answer {
    ac_size_status status;
    size_t needed;               /* the count (status OK or UNCERTAIN) */
    size_t needed_lo, needed_hi; /* the range the stated errors allow (== needed when OK);
                                    needed_hi AC_UNBOUNDED: no count above needed_lo was sure
                                    within the scan (an undecided requirement that this count
                                    does not move) */
    char binding[64];            /* what fails at needed - 1 ("latency p95", "stability",
                                    "nothing" when needed is 1) */
    size_t binding_node;         /* the node of that requirement, AC_NONE: end to end */
    int simulated;               /* the simulation settled or bracketed the count */
    int split;                   /* 1: moved by the end-to-end split's exchanges (the
                                    greedy split gave another count) */
    char assumes[64];            /* an outcome undecided by its stated error at every count of
                                    this node (a generous one too): the count does not move it,
                                    so the count is found as if it held; the check's verdict
                                    stays INCONCLUSIVE on it. "" when none */
} ac_size_answer;

typedef struct ac_size_node {
    size_t node;                /* model node index */
    const char *kind;           /* "pool", "function", "queue" (static) */
    const char *what;           /* "servers", "max servers", "concurrency", "max-consumers" */
    size_t designed;            /* the count as written */
    ac_size_answer at_load;     /* at the workload as written */
    ac_size_answer at_headroom; /* at the workload times the required headroom */
    char note[160];
} ac_size_node;

typedef struct ac_sizing {
    double headroom_factor; /* the required headroom (1 when the file has none) */
    ac_size_node *nodes;    /* owned */
    size_t nnodes;
    long long saved;            /* sum of designed - needed_with_headroom over nodes sized OK or
                                   UNCERTAIN with a bounded needed_hi (that one); negative:
                                   servers missing */
    int complete;               /* every node sized with status OK */
    size_t probes, simulations; /* the work spent */
    char note[160];             /* why nothing was sized, or "" */
} ac_sizing;

/*
 * Size every node of `model` (valid, from the parser). On success *out is a new sizing (free
 * with ac_sizing_free). Returns 0, AC_ENOMEM, AC_EINPUT (a routing cycle) or AC_ENUMERIC (err
 * set). Closed workloads (<population>) are not sized (note says so; nnodes 0).
 */
int ac_size_run(const ac_model *model, const ac_size_options *opt, ac_sizing **out, ac_error *err);

void ac_sizing_free(ac_sizing *sizing);

/* ---- dispatch comparison (`size --dispatch POOL`) ---- */

typedef struct ac_dispatch_row {
    char name[32]; /* "random", "power-of-2 (distinct)", ..., "shared-queue" */
    ac_dispatch dispatch;
    size_t d;
    ac_sampling sampling;
    int analysed;          /* 0: the pool could not be solved under it (why in note) */
    double mean, p95, p99; /* s, response time of a job at the design load */
    double rel_error;      /* their stated relative error */
    const char *approximation;
    ac_size_answer needed; /* servers for the file's requirements at the design load */
    char note[160];
} ac_dispatch_row;

/*
 * The pool `node` of `model` under each dispatcher (random; power-of-d for d = 2, 3 with
 * distinct and with-replacement sampling; jsq; jiq; shared-queue), everything else as written:
 * its response time at the design load and the servers it needs (ac_size_run of that pool
 * alone). *out is a new array of *n rows (free()). Returns 0, AC_EINVAL (not a pool),
 * AC_ENOMEM, AC_EINPUT or AC_ENUMERIC.
 */
int ac_size_dispatch_compare(const ac_model *model, size_t node, const ac_size_options *opt,
                             ac_dispatch_row **out, size_t *n, ac_error *err);

#ifdef __cplusplus
}
#endif

#endif
