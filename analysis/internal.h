/*
 * Shared declarations of the analysis module (internal to analysis/).
 */
#ifndef AC_ANALYSIS_INTERNAL_H
#define AC_ANALYSIS_INTERNAL_H

#include <stddef.h>

#include <gsl/gsl_integration.h>

#include "archcheck/analysis.h"

/* ---- req_capacity.c ---- */

/* The scaling of the autoscaled pools over [0, H) of a transient (ac_an_scaling_measure). */
struct ac_transient;
typedef struct ac_an_scaling {
    size_t actions;     /* serving-count changes (the simulator's scaling actions) */
    size_t flaps;       /* actions opposite to the pool's previous one within one cooldown */
    size_t nscaled;     /* autoscaled pools in scope */
    size_t nmin, nmax;  /* the serving counts' range (AC_UNBOUNDED, 0 without a scaler) */
    double actions_rel; /* the stated relative error of actions */
    double hours;       /* server-hours of every pool in scope over [0, H] */
    double hours_rel;   /* its stated relative error */
} ac_an_scaling;

double ac_an_profile_horizon(const ac_model *m);
void ac_an_scaling_measure(const ac_model *m, const struct ac_transient *tr, double H,
                           size_t target, ac_an_scaling *out);

/* ---- traffic.c ---- */

/* The routing matrix: r[i*n + j] = mean jobs at j per completion at i (p * fanout / fanin),
 * parallel routes included. n = model->nnodes. Caller frees. NULL on allocation failure. */
double *ac_an_routing_matrix(const ac_model *m);

/* Solve the linear traffic equations lambda = gamma + R^T x where x = lambda .* pass
 * (pass[i] = the fraction of node i's arrivals passed downstream; NULL = all), gamma the
 * sources times `scale`. Returns 0, AC_EINPUT (no finite non-negative solution: jobs
 * circulate; *cycle set), AC_ENOMEM or AC_ENUMERIC. */
int ac_an_traffic_solve(const ac_model *m, const double *r, const double *pass, double scale,
                        double *lambda, ac_error *err);

/* The visit ratios of a closed population entering at node `to`, v = e_to + R^T v, by
 * fixed-point iteration from v = 0 (at most 100000 steps; v and scratch have nnodes
 * entries). Returns 0, or AC_EINPUT when they diverge (jobs circulate forever). */
int ac_an_visit_ratios(const ac_model *m, size_t to, double *v, double *scratch);

/* Add an AC032 finding naming the routes that lie on a cycle. */
void ac_an_report_cycle(const ac_model *m, ac_diag_list *findings);

/* ---- network.c ---- */

/* A pool's warm starts across the headroom's probes: its last AC_AN_WARM_KEEP solutions
 * (arrival rate, servers, state dimension, the least equilibrium, found from empty, and the
 * greatest, from full; owned arrays or NULL). A solve at rate lambda starts from empty at
 * the least equilibrium of the highest kept rate <= lambda and from full at the greatest of
 * the lowest kept rate >= lambda (ac_solver_options.start_low/high): a converging search
 * probes between its last probes. */
#define AC_AN_WARM_KEEP 4
typedef struct ac_an_warm_set {
    struct {
        double lambda;
        size_t servers, dim;
        double *low, *high;
    } at[AC_AN_WARM_KEEP];
    size_t next; /* the entry the next solution replaces */
} ac_an_warm_set;
/* own: the pool's solve; as[d]: its solve as dispatch d for the bounds (network.c solve_as) */
typedef struct ac_an_warm {
    ac_an_warm_set own, as[AC_DISPATCH_SHARED_QUEUE + 1];
} ac_an_warm;

void ac_an_warm_clear(ac_an_warm *w);

/* Solve every node at workload factor `scale`: traffic equations iterated with the
 * nodes' losses, each pool solved. Fills a->nodes (freeing any previous solutions).
 * Returns 0, AC_EINPUT (routing cycle), AC_ENOMEM or AC_ENUMERIC (err set). */
int ac_an_network_solve(const ac_model *m, const ac_analysis_options *opt, double scale,
                        ac_analysis *a, ac_error *err);

/* Release what a node's analysis owns and zero it. */
void ac_an_node_clear(ac_node_analysis *na);

/* ---- pool_sim.c ---- */

/* jsq and jiq pools of N > 1 servers, unbounded buffer, no timeout: their headline numbers
 * come from the simulator. ac_an_pool_simulate fills na's numbers from a simulation of the
 * pool alone at `lambda` jobs/s and returns 0, 1 when it could not (na untouched: the
 * caller keeps the mean field), or AC_ENOMEM. */
int ac_an_pool_simulated(const ac_pool *p);
int ac_an_pool_simulate(const ac_pool *pool, double lambda, const ac_analysis_options *opt,
                        ac_node_analysis *na, ac_error *err);

/* The consumer route of queue node `i` (its only route, with p = 1, to a function), or NULL
 * when the queue has another shape (then it is not analysed). */
const ac_route *ac_an_queue_consumer(const ac_model *m, size_t i);

/* Jobs per second node `i` sends along its routes: its throughput, except for a queue, which
 * hands its consumer every receive (redeliveries included; its throughput counts the
 * messages delivered successfully). */
double ac_an_node_outflow(const ac_analysis *a, size_t i);

/* Flow on the routes from node `from` to node `to` (jobs/s), at the solved state. */
double ac_an_link_flow(const ac_model *m, const ac_analysis *a, size_t from, size_t to);

/* Link `l` solved at its flow (solver/link.c: M/D/1 or M/D/1/K); out cleared by the caller
 * with ac_solver_link_result_clear. Returns as ac_solver_link_solve. */
struct ac_solver_link_result;
/* Is node analysis na a sync function offered at least its concurrency in Erlangs, or a
 * gateway offered at least its rate limit (an overload, AC101, although it has a steady
 * state: it refuses the excess)? */
int ac_an_node_saturated(const ac_node_analysis *na);

int ac_an_link_solve(const ac_model *m, const ac_analysis *a, size_t l,
                     struct ac_solver_link_result *out, ac_error *err);

/* ---- batch.c ---- */

/* Pools whose arrivals come in batches (the jobs of a fan-out arrive together): random and
 * shared-queue pools without buffer or timeout are re-solved exactly as M^X/M/1 per server
 * or M^X/M/c (solver/batch.c); other dispatchers keep their Poisson numbers with the batch
 * effect stated as a further error. Returns 0 or AC_ENOMEM. */
int ac_an_batch_apply(const ac_model *m, ac_analysis *a, ac_error *err);

/* ---- closed.c ---- */

/* Mean Value Analysis of the closed workloads (<population>): fills the nodes reached by
 * populations. Returns 0 or a negative status; adds AC900 findings for what it cannot do. */
int ac_an_closed_solve(const ac_model *m, ac_analysis *a, ac_diag_list *findings, ac_error *err);

/* ---- e2e.c, e2e_walk.c ---- */

/* Combine the nodes' response-time laws along the routes from the sources. */
int ac_an_e2e_solve(const ac_model *m, ac_analysis *a, ac_error *err);
/* The same on at most `max_points` lattice points (>= 2048; the headroom's probes use the
 * least lattice: their verdicts carry its bracket). */
int ac_an_e2e_solve_points(const ac_model *m, ac_analysis *a, size_t max_points, ac_error *err);
void ac_an_e2e_clear(ac_end_to_end *e);

/* The p-quantile (0 < p < 1) of the end-to-end law into *value (s), bracketed by the floor and
 * ceiling lattices, with its stated relative error (the bracket plus the nodes' errors;
 * infinite when the ceiling lattice cannot bound it) in *rel_error. Returns 0, or AC_EINVAL
 * when there are no end-to-end percentiles (both NAN). */
int ac_an_e2e_quantile(const ac_end_to_end *e, double p, double *value, double *rel_error);

/* ---- transient.c, qna.c ---- */

/* Integrate the transient into a->transient as opt->transient asks (a failure other than
 * AC_ENOMEM leaves it NULL with a->transient_note saying why). Returns 0 or AC_ENOMEM. */
int ac_an_transient_solve(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                          ac_error *err);

/* QNA two-moment correction of the pools fed by non-Poisson streams (sources with
 * scv != 1); a no-op when every source is Poisson, or when already applied to a's current
 * solution. Returns 0 or AC_ENOMEM. */
int ac_an_qna_apply(const ac_model *m, ac_analysis *a, ac_error *err);

/* P(T > t) of a pool the QNA pass changed (na->qna or na->qna_exact with a pool): the
 * exact GI/M/1 exponential, or the law of c W + S; `tab` a 64-point Gauss-Legendre table. */
double ac_an_qna_ccdf(const ac_node_analysis *na, const gsl_integration_glfixed_table *tab,
                      double t);

/* ---- findings ---- */

typedef struct ac_an_ctx {
    const ac_model *model;
    const ac_analysis_options *opt;
    ac_analysis *a;
    ac_diag_list *findings;
    int oom;
    /* probing (headroom): the first requirement that fails */
    int probe_failed;
    int probe_uncomputed; /* a requirement that tightens with load had no value */
    char probe_binding[64];
    size_t probe_node;
    double probe_abs_share; /* the binding outcome's abs_error / |limit| */
    size_t search_evals;    /* evaluations spent by the resilience searches (req_resilience.c) */
    const ac_sim_result *look_sim; /* the sequential rule's look (validate.c): its result */
    double look_alpha;             /* and the look's alpha */
} ac_an_ctx;

/* Add a finding at `loc` about node `node` (NULL for none). */
void ac_an_finding(ac_an_ctx *c, const char *rule, ac_loc loc, const char *node, const char *fmt,
                   ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* stability.c: AC101 overload (nodes and links), AC102 unstable, AC103 metastable, AC901. */
void ac_an_check_stability(ac_an_ctx *c);

/* Record a check (grows a->checks). */
void ac_an_add_check(ac_an_ctx *c, const ac_check *check);

typedef enum ac_out_metric {
    AC_OUT_OTHER = 0,
    AC_OUT_LATENCY_MEAN,
    AC_OUT_LATENCY_PCT, /* with `percentile` */
    AC_OUT_UTILIZATION,
    AC_OUT_LOSS,
    AC_OUT_THROUGHPUT
} ac_out_metric;

/* One requirement's outcome. */
typedef struct ac_req_outcome {
    ac_out_metric metric;
    double percentile; /* AC_OUT_LATENCY_PCT: in (0, 100) */
    int evaluated;     /* 0: cannot be decided (why in `note`) */
    int pass;
    double value, limit; /* in SI units */
    double rel_error;    /* the value's stated relative error */
    double abs_error;    /* its stated absolute error (the value's unit), added to it */
    size_t node;         /* AC_NONE: end to end */
    char what[64];       /* "latency p95", "utilization", ... */
    char unit[8];        /* "s", "/s", "" */
    char note[160];
    int has_sim; /* 1: the outcome's own simulation (scaling: with its autoscalers) */
    double sim_value, sim_ci95;
} ac_req_outcome;

/* Evaluate every outcome of one requirement (several for "every node" requirements).
 * Calls `emit` for each. The families, one file each. */
typedef void (*ac_req_emit)(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *o);
void ac_req_latency(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit);
void ac_req_utilization(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit);
void ac_req_loss(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit);
void ac_req_throughput(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit);
void ac_req_headroom(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit);
void ac_req_deferred(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit);
/* req_resilience.c: the worst-case search at the minimum boundary, confirmed by simulation,
 * into a check and its finding. */
void ac_req_resilience(ac_an_ctx *c, const ac_requirement *r);

/* requirements.c: evaluate every requirement into findings (emit = findings) or into a
 * pass/fail predicate (for the headroom search). */
void ac_an_check_requirements(ac_an_ctx *c);

/* One probe of the load (headroom, sizing): solve `m` with every source scaled by `scale`
 * into `a` (the end-to-end laws at 2048 points when there are requirements). *saturated is
 * the first node offered at least its capacity (an overload, AC101), else AC_NONE. Returns
 * AC_OK or the solve's error (err set). */
int ac_an_probe_solve(const ac_model *m, const ac_analysis_options *opt, double scale,
                      ac_analysis *a, size_t *saturated, ac_error *err);

/* Do the requirements that tighten with load (latency, utilization, loss) and stability
 * all hold in a? Sets binding/node of the first one that fails. Returns 1 (hold), 0 (one
 * fails), or -1 when one of them has no value in a (not computed: nothing can be claimed). */
int ac_an_requirements_hold(const ac_model *m, ac_analysis *a, char *binding, size_t size,
                            size_t *node);
/* The same, and `abs_share` (may be NULL) the binding outcome's stated absolute error over
 * its limit (0 when it has none, or nothing binds): the share of the limit that the value's
 * relative error does not cover (a loss near 0). */
int ac_an_requirements_hold_abs(const ac_model *m, ac_analysis *a, char *binding, size_t size,
                                size_t *node, double *abs_share);

/* validate.c: the simulation's estimate of an outcome's metric (node or end to end);
 * returns 1 and fills mean/ci95 when the simulation has it. */
int ac_an_sim_lookup(const ac_analysis *a, const ac_model *m, ac_out_metric metric,
                     double percentile, size_t node, double *mean, double *ci95);

/* Run the validating simulation into a->sim (a->sim_note says why not). */
int ac_an_simulate(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                   ac_error *err);

/* Simulate each bistable pool from empty and from its bad equilibrium. */
int ac_an_check_basins(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                       ac_error *err);

/* Would any requirement be undecided by the approximation's error alone? */
int ac_an_requirements_straddle(ac_an_ctx *c);

/* The sequential rule (validate.c, models.md §7): is every outcome that the validating
 * simulation must settle (straddling, or a simulated metric without a value) settled by
 * `sim` at the two-sided level 1 - alpha, as an early look (a zero-width interval settles
 * nothing)? Outcomes the simulation cannot estimate at all are not waited for. */
int ac_an_requirements_settled(ac_an_ctx *c, const ac_sim_result *sim, double alpha);

/* The estimate of a metric in `sim` (as ac_an_sim_lookup): 1 found (finite, n >= 2); 0 not
 * yet (too few replications defined it); -1 the simulation never estimates it. */
int ac_an_sim_lookup_in(const ac_sim_result *sim, const ac_analysis *a, const ac_model *m,
                        ac_out_metric metric, double percentile, size_t node, ac_sim_estimate *out);

/* The sequential rule's decision on one estimate (mean, 95% half-width ci95 over n
 * replications) against `limit` (upper: value <= limit passes): the half-width at level
 * 1 - alpha, h = ci95 t_{1-alpha/2,n-1} / t_{0.975,n-1}, into *half; +1 when [mean - h,
 * mean + h] passes, -1 when it fails, 0 when it straddles (and, `early`, when h is 0: a
 * degenerate interval settles nothing at an early look). */
int ac_an_seq_decide(double mean, double ci95, size_t n, double limit, int upper, double alpha,
                     int early, double *half);

/* The sequential rule's decision on a simulated estimate (ac_an_seq_decide), and for an
 * upper limit on a counted loss (e->trials > 0) also its count bound: PASS when
 * ac_an_seq_count_upper(count, trials, the replications' measured seconds, batch,
 * alpha / 2) <= limit (*half then the bound minus the mean). `batch` from
 * ac_an_seq_batch_time. models.md §7, "Rare losses: the count bound". */
int ac_an_seq_decide_est(const ac_sim_estimate *e, const ac_sim_result *sim, double batch,
                         double limit, int upper, double alpha, int early, double *half);
/* The one-sided 1 - alpha upper bound of a loss probability from `count` lost of `trials`
 * in batches of about `batch` s of `measured` s (1 when there is no batch). */
double ac_an_seq_count_upper(double count, double trials, double measured, double batch,
                             double alpha);
/* The count bound's batch (s): the longest of the model's time constants and the pools'
 * relaxation times. */
double ac_an_seq_batch_time(const ac_analysis *a, const ac_sim_result *sim);

/* The sequential rule's looks: the replication counts (3, 6, 12) below `min_replications`
 * into *counts (at most AC_AN_SEQ_LOOKS), their number returned; the alpha of look k
 * (k == that number: the last look, the ordinary stop) in ac_an_seq_alpha. */
#define AC_AN_SEQ_LOOKS 3
#define AC_AN_SEQ_ALPHA 0.05 /* per check, over every look */
size_t ac_an_seq_looks(size_t min_replications, size_t *counts);
double ac_an_seq_alpha(size_t k, size_t nlooks);

/* headroom.c */
int ac_an_headroom(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                   ac_error *err);

/* suppress.c: mark the findings silenced by the model's <suppress> elements. */
void ac_an_apply_suppressions(const ac_model *m, ac_diag_list *findings, size_t first);

#endif
