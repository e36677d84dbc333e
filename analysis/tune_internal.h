/*
 * Shared declarations of the autoscaler tuning (internal to analysis/tune*.c): the search
 * space, the checks, the jobs and the context of a run (analysis/tune.c), and the
 * simulator's confirmation of a candidate (analysis/tune_sim.c).
 */
#ifndef AC_ANALYSIS_TUNE_INTERNAL_H
#define AC_ANALYSIS_TUNE_INTERNAL_H

#include <stddef.h>

#include "analysis/internal.h"
#include "archcheck/tune.h"

/* The five settings of a pool, in gene order. */
enum { P_TARGET = 0, P_COOLDOWN, P_INTERVAL, P_MIN, P_MAX, P_N };

/* What a check reads (the same list for every candidate). */
typedef enum spec_kind {
    S_LAT_NODE = 0,
    S_LAT_E2E,
    S_UTIL_NODE,
    S_UTIL_ALL,
    S_LOSS_NODE,
    S_LOSS_E2E,
    S_ACTIONS,
    S_HOURS,
    S_HEADROOM
} spec_kind;

typedef struct check_spec {
    spec_kind kind;
    size_t req, node;
    double percentile; /* latency: (0, 100), 0 the mean */
} check_spec;

/* A candidate kept for the confirmation: its score and genes. */
typedef struct cand {
    double score;
    double *genes;
} cand;

/* A point of a job's front: cost, the binding latency value, its actions and genes. */
typedef struct tune_fpoint {
    double cost, value;
    size_t actions;
    double *genes;
} tune_fpoint;

typedef struct tune_job {
    ac_model *m; /* the clone whose <autoscale> fields each evaluation sets */
    ac_transient_ws *ws;
    double *scratch; /* nnodes + nlinks + 1 */
    ac_tune_eval ev; /* the last evaluation's */
    cand *top;       /* the best `ntop_max` feasible ones seen by this job, best first */
    size_t ntop;
    double *genes_store;
    size_t failures;
    const ac_transient *tr; /* the last evaluation's transient (the workspace's) */
    tune_fpoint *front;     /* this job's non-dominated points (front_cap) */
    size_t nfront;
    size_t front_cap;    /* min(budget, AC_TUNE_FRONT_STORE) */
    int front_cut;       /* a non-dominated point did not fit */
    double *front_genes; /* front_cap x (ngenes + 1) */
    /* the secondary objective: the feasible setting of fewest scaling actions this job saw
       (ties: the lower cost, then the genes in order) */
    int has_few;
    size_t few_actions;
    double few_cost;
    double *few_genes; /* ngenes + 1 */
} tune_job;

typedef struct tune_ctx {
    const ac_model *model;
    const ac_tune_options *opt;
    size_t npools;
    size_t *pool_node;    /* npools */
    ac_tune_range *range; /* npools x P_N */
    size_t ngenes;
    size_t *gene_of; /* ngenes: pool x P_N + parameter */
    check_spec specs[AC_TUNE_CHECKS_MAX];
    size_t nspecs;
    double H, cost_ref;
    int robust; /* the simulator cannot confirm: feasible means every margin clear */
    tune_job *jobs;
    size_t njobs, ntop_max;
    size_t front_check; /* the spec of the front's latency requirement, AC_NONE: none */
} tune_ctx;

/* int_0^H f dt by trapezoids over the transient's samples (f NULL: 0). */
double ac_an_tune_trapz(const ac_transient *tr, const double *f);

/* The settings that `genes` decode to (tune.c). */
void ac_an_tune_decode(const tune_ctx *c, const double *genes, ac_tune_setting *out);

/* The fluid evaluation of setting s on job j into *ev (tune.c): 0, 1 when the transient
 * failed (counted), or a status. */
int ac_an_tune_evaluate(const tune_ctx *c, tune_job *j, const ac_tune_setting *s, ac_tune_eval *ev,
                        ac_error *err);

/* ---- tune_front.c ---- */

/* The latency check of least relative margin in ev (AC_NONE: none): the front's. */
size_t ac_an_tune_front_pick(const tune_ctx *c, const ac_tune_eval *ev);

/* Offer job j's evaluation ev of `genes` to its front (kept when it meets every check but
 * the front's and no kept point dominates it; ties: the smaller genes). Allocates nothing. */
void ac_an_tune_front_offer(const tune_ctx *c, tune_job *j, const double *genes,
                            const ac_tune_eval *ev);

/* The jobs' fronts merged into r->front (the same for any number of jobs). 0 or AC_ENOMEM. */
int ac_an_tune_front_merge(const tune_ctx *c, ac_tune_result *r, ac_error *err);

/* The over-provisioning of r's written and best settings (opt->moments > 0), on job 0. */
int ac_an_tune_provision(const tune_ctx *c, ac_tune_result *r, ac_error *err);

/* Free what r->front and r->provision own. */
void ac_an_tune_front_free(ac_tune_result *r);

/* ---- tune_sim.c ---- */

/* About the events a simulation of the transient tr's setting needs (two per job visit). */
double ac_an_tune_sim_events(const tune_ctx *c, const ac_transient *tr);

/* Simulate job j's model (the candidate applied; j->tr its transient) over the profile with
 * the autoscalers running, the simulator's values into ev->sim: *out 1 every interval on
 * the right side, -1 one wholly on the wrong side, 0 undecided or not run (why in note).
 * Returns 0 or the simulator's status (other than a budget or model refusal). */
int ac_an_tune_simulate(const tune_ctx *c, tune_job *j, ac_tune_eval *ev, int *out, char *note,
                        size_t nsize, ac_error *err);

#endif
