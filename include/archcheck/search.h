/*
 * archcheck: the worst-case fault search (doc/models.md §6, doc/format.md <faults>).
 *
 * Four pieces, one file each in search/:
 *   - the space (space.c): one real gene in [0, 1] per fault attribute range of <faults>
 *     whose LOW is below its HIGH (the value ranges, then `at`, then `for` of each <fault>),
 *     decoded to an ac_transient fault plan (transient.h);
 *   - the objective (objective.c): the degradation score of <objective> on the transient
 *     of a plan, S = sum_i w_i min(1, m_i / norm_i) / sum_i w_i, in [0, 1];
 *   - the operators (op_*.c): selection, crossover and mutation behind const tables of
 *     function pointers;
 *   - the searches: the GA (ga.c, with elitism), uniform random sampling in the same budget
 *     (random.c, the chaos-testing baseline) and the exhaustive grid (grid.c, for tests and
 *     small spaces).
 *
 * A search maximises a problem: a function of the genes to a score, evaluated by one or
 * several threads (`jobs`), each with its own state (for the objective: its own transient
 * workspace). Every random draw is made by the calling thread from the gsl_rng seeded by the
 * options, and every score is written to its slot, so the result is the same for any number
 * of jobs and the same seed. The budget counts evaluations (calls of the problem's eval).
 *
 * Units: seconds for times, SI for the metrics; genes are in [0, 1].
 */
#ifndef ARCHCHECK_SEARCH_H
#define ARCHCHECK_SEARCH_H

#include <stddef.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/transient.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most genes of one space, and the most evaluation threads. */
#define AC_SEARCH_GENES_MAX 1024
#define AC_SEARCH_JOBS_MAX  64
/* The largest budget (format.md: budget is 1..10000000). */
#define AC_SEARCH_BUDGET_MAX 10000000

/* ---------------------------------------------------------------- the space */

/* What one gene sets. */
typedef enum ac_search_gene_kind {
    AC_SEARCH_GENE_VALUE = 0, /* the value of one fault attribute */
    AC_SEARCH_GENE_AT,        /* the start of a <fault>'s window */
    AC_SEARCH_GENE_FOR        /* the length of a <fault>'s window */
} ac_search_gene_kind;

typedef struct ac_search_gene {
    size_t fault; /* index into model->faults.items */
    ac_search_gene_kind kind;
    ac_transient_fault_attr attr; /* AC_SEARCH_GENE_VALUE only */
    double lo, hi;                /* the range (attribute's unit; s for at/for) */
    int integer;                  /* 1: a count (servers-down), decoded to a whole number */
    char name[96];                /* "NODE.ATTRIBUTE", "NODE.at", "NODE.for" */
} ac_search_gene;

typedef struct ac_search_space ac_search_space;

/*
 * The space of `model`'s <faults> (valid, from the parser; it must outlive the space) over
 * the transient horizon `horizon` (s, > 0; a window without `for` lasts to the horizon).
 * Each present value attribute of a <fault> is one fault of the plan; a range whose LOW
 * equals its HIGH is fixed (no gene). A fault on link l targets model->nnodes + l (delay,
 * capacity-loss: transient.h). Returns 0, AC_EINVAL (no <faults>, horizon not positive, more
 * than AC_TRANSIENT_PLAN_MAX faults or AC_SEARCH_GENES_MAX genes) or AC_ENOMEM; on success
 * *out is the new space (free with ac_search_space_free).
 */
int ac_search_space_new(const ac_model *model, double horizon, ac_search_space **out,
                        ac_error *err);
void ac_search_space_free(ac_search_space *space); /* NULL is a no-op */

/* The id of a plan fault's target (borrowed from model): the node's for a target below
 * model->nnodes, link l's for nnodes + l, "?" past both. */
const char *ac_search_target_id(const ac_model *model, size_t target);
/* 1 when a plan fault's target is a link (nnodes <= target < nnodes + nlinks). */
int ac_search_target_is_link(const ac_model *model, size_t target);

size_t ac_search_space_ngenes(const ac_search_space *space);
/* The gene i (< ngenes), borrowed. */
const ac_search_gene *ac_search_space_gene(const ac_search_space *space, size_t i);
/* The faults of every plan (the plan's nfaults). */
size_t ac_search_space_nfaults(const ac_search_space *space);

/*
 * Decode `genes` (ngenes values, clamped to [0, 1]) into `faults` (caller-owned, nfaults
 * entries): value = lo + g (hi - lo) (counts: floor(lo + g (hi - lo + 1)), at most hi);
 * start = at, end = at + for, or INFINITY without `for`. Allocates nothing.
 */
void ac_search_space_decode(const ac_search_space *space, const double *genes,
                            ac_transient_fault *faults);

/* ------------------------------------------------------------ the objective */

/* The value of one term of the objective, on one transient. */
typedef struct ac_search_term_value {
    double metric; /* m_i in the metric's unit */
    double norm;   /* norm_i */
    double weight; /* w_i / sum w */
    double score;  /* min(1, m_i / norm_i) */
} ac_search_term_value;

typedef struct ac_search_objective ac_search_objective;

/*
 * The objective of `model`'s <faults> (its <objective>; without one, the end-to-end error
 * rate alone) on transient workspaces built with `topt` (NULL: defaults; its horizon must
 * come out positive), one per job (1..AC_SEARCH_JOBS_MAX), evaluated at the workload
 * factor `scale`. The metrics, from the transient's trajectories (trapezoids over the
 * samples, t = 0 to the horizon):
 *   error-rate      node: jobs failed (not throttled) / offered (error_fraction of
 *                   transient.h); end to end: the transient's e2e_error_fraction;
 *   throttle-rate   sync function: throttled attempts / attempts, (r + 1) T / ((r + 1) T + E)
 *                   with T, E the integrals of throttle_rate and execution_rate; gateway:
 *                   429s / offered; end to end: e2e_throttle_fraction;
 *   loss            node: failed or throttled / offered; end to end: e2e_loss_fraction;
 *   p95-, p99-latency  node: the quantile over the horizon of its quasi-stationary laws
 *                   (ac_transient_node_quantile); end to end: the transient's upper bound
 *                   (ac_transient_e2e_quantile); without a norm, against the no-fault value
 *                   m0 at the scale (one evaluation, again at each set_scale): the share is
 *                   min(1, max(0, m / m0 - 1)), the latency doubled counting as total;
 *   backlog-duration  queue or async/polled function: the time its backlog holds one message
 *                   or more; end to end: the longest; default norm the horizon;
 *   utilization     node: the time mean of utilization; end to end: the largest.
 * Returns 0, AC_EINVAL, AC_EINPUT, AC_ENOMEM, AC_ELIMIT (as ac_transient_new) ; on success
 * *out is the new objective (free with ac_search_objective_free).
 */
int ac_search_objective_new(const ac_model *model, const ac_search_space *space,
                            const ac_transient_options *topt, double scale, size_t jobs,
                            ac_search_objective **out, ac_error *err);
void ac_search_objective_free(ac_search_objective *obj); /* NULL is a no-op */

size_t ac_search_objective_nterms(const ac_search_objective *obj);

/* Evaluate at the workload factor `scale` from now on: (0, the largest of the `scale` of
 * ac_search_objective_new and topt->scale]. Returns 0 or AC_EINVAL. */
int ac_search_objective_set_scale(ac_search_objective *obj, double scale, ac_error *err);

/*
 * The score of the plan that `genes` decode to, on the workspace of job `job` (< jobs; one
 * thread per job at a time): *out in [0, 1]; `terms` (NULL, or nterms entries) receives the
 * terms. Returns 0, AC_EINVAL or AC_ENUMERIC (from ac_transient_eval). Allocates nothing.
 */
int ac_search_objective_eval(ac_search_objective *obj, size_t job, const double *genes, double *out,
                             ac_search_term_value *terms, ac_error *err);

/* The same on a given plan (faults: nfaults entries of the space, or NULL: no fault). */
int ac_search_objective_eval_plan(ac_search_objective *obj, size_t job,
                                  const ac_transient_fault *faults, double *out,
                                  ac_search_term_value *terms, ac_error *err);

/* ---------------------------------------------------------------- a problem */

/* What a search maximises: eval(ctx, job, genes, out, err) puts the score of `genes`
 * (ngenes values in [0, 1]) in *out and returns 0 or a negative status; calls with
 * different `job` run in parallel. */
typedef struct ac_search_problem {
    size_t ngenes;
    int (*eval)(void *ctx, size_t job, const double *genes, double *out, ac_error *err);
    void *ctx;
    /* Optional (NULL: none): a cheaper estimate of eval's score, within screen_eps / 2 of
     * it, or NAN when it has none (then eval decides). The searches (GA, random, polish)
     * score a plan by eval whenever its estimate could matter: it is within screen_eps of
     * the best or of the elite (ac_search_ga_step, ac_search_polish); a plan scored by its
     * estimate only is below every plan that could be kept, so the best, the elite, every
     * score reported and every verdict are eval's. */
    int (*screen)(void *ctx, size_t job, const double *genes, double *out, ac_error *err);
    double screen_eps;
} ac_search_problem;

/* The evaluations of the objective's problem whose transient failed to integrate
 * (AC_ENUMERIC, or AC_ELIMIT: the work budget of transient.h's max_work used up), since the
 * objective was made: each scored -1 (below every plan that integrates) rather than ending
 * the search. Such a plan's score is
 * unknown, not 0: a search with failures has not shown that its best is the worst of what it
 * tried (a worst case may lie among the failed plans), so a verdict that rests on the worst
 * case staying below tau cannot be a PASS (analysis/req_resilience.c) and a boundary whose
 * probes below tau had failures is an upper bound only (ac_search_boundary). Deterministic:
 * the same for any number of jobs. */
size_t ac_search_objective_failures(const ac_search_objective *obj);
/* Of them, the ones that used up the work budget (AC_ELIMIT). */
size_t ac_search_objective_failures_limit(const ac_search_objective *obj);

/* The problem of an objective (its space's genes, ac_search_objective_eval; a plan the
 * transient cannot integrate scores -1 and is counted by ac_search_objective_failures),
 * with its screen when screening is on (ac_search_objective_screen). */
ac_search_problem ac_search_objective_problem(ac_search_objective *obj);

/*
 * Screening: a second transient workspace per job at the looser tolerances below scores
 * every plan first, and the searches re-score at the objective's own tolerances those
 * whose screened score is within AC_SEARCH_SCREEN_EPS of the best or of the elite
 * (ac_search_problem.screen). The screen's error against the full score, measured on
 * samples/faas-cascade.xml over 2,500 plans (tests/test_search_screen.c), must stay below
 * half the margin: that test asserts it. A screened failure to integrate leaves the plan
 * to the full evaluation (only full evaluations count in ac_search_objective_failures).
 */
#define AC_SEARCH_SCREEN_RTOL 1e-4
#define AC_SEARCH_SCREEN_ATOL 1e-7
#define AC_SEARCH_SCREEN_EPS  1e-2

/* Screening on (the default of ac_search_objective_new when its tolerances are tighter than
 * the screen's; the screen's workspaces are made the first time) or off (the screen then
 * answers NAN: every plan is scored in full, as without a screen). Returns 0, AC_ENOMEM or
 * the status of ac_transient_new. */
int ac_search_objective_screen(ac_search_objective *obj, int on, ac_error *err);

/* The evaluations of the objective's problem so far: integrated by the screen and in full
 * (ac_search_objective_eval_plan's included), and the plans whose score the cache gave
 * instead (a plan evaluated again at the same scale, on the same job: search/cache.c). */
typedef struct ac_search_counts {
    size_t screened, full;
    size_t screen_hits, full_hits;
} ac_search_counts;
void ac_search_objective_counts(const ac_search_objective *obj, ac_search_counts *out);

/* -------------------------------------------------------------- operators */

/* Selection: the index of one parent among n scored individuals (higher is better). */
typedef struct ac_search_selection {
    const char *name;
    size_t (*select)(const double *score, size_t n, size_t size, gsl_rng *rng);
} ac_search_selection;

/* Crossover of parents a, b into children c1, c2 (n genes, in [0, 1]); `param` is the
 * operator's (SBX: the distribution index eta; blend: alpha). */
typedef struct ac_search_crossover {
    const char *name;
    void (*cross)(const double *a, const double *b, double *c1, double *c2, size_t n, double param,
                  gsl_rng *rng);
} ac_search_crossover;

/* Mutation of x (n genes, in [0, 1]), each gene with probability `rate`; `param` is the
 * operator's (polynomial: the distribution index eta; Gaussian: sigma). */
typedef struct ac_search_mutation {
    const char *name;
    void (*mutate)(double *x, size_t n, double rate, double param, gsl_rng *rng);
} ac_search_mutation;

/* Tournament of `size` individuals drawn with replacement: the best of them (ties: the
 * first drawn). P(the best of n is picked) = 1 - (1 - 1/n)^size. */
extern const ac_search_selection ac_search_tournament;
/* Simulated binary crossover (Deb and Agrawal 1995), bounded to [0, 1] per gene with
 * probability 1/2: beta = (2u)^(1/(eta+1)) or (1/(2(1-u)))^(1/(eta+1)); c = (a + b)/2 -+
 * beta (b - a)/2, clamped to [0, 1]. Mean-preserving: c1 + c2 = a + b before the clamp. */
extern const ac_search_crossover ac_search_sbx;
/* BLX-alpha (Eshelman and Schaffer 1993): each child gene uniform on [min - alpha d, max +
 * alpha d], d = |a - b|, clamped to [0, 1]. */
extern const ac_search_crossover ac_search_blend;
/* Polynomial mutation (Deb and Goyal 1996), bounded: delta = (2u + (1 - 2u)(1 - x)^(eta+1))
 * ^(1/(eta+1)) - 1 for u < 1/2, else 1 - (2(1 - u) + 2(u - 1/2) x^(eta+1))^(1/(eta+1));
 * x + delta stays in [0, 1]. */
extern const ac_search_mutation ac_search_polynomial;
/* Gaussian mutation: x + N(0, sigma), clamped to [0, 1]. */
extern const ac_search_mutation ac_search_gaussian;

/* ------------------------------------------------------------ the searches */

typedef enum ac_search_method {
    AC_SEARCH_GA = 0, /* the genetic algorithm (default) */
    AC_SEARCH_RANDOM  /* uniform random sampling, the same budget */
} ac_search_method;

typedef struct ac_search_options {
    ac_search_method method;
    size_t budget;                        /* evaluations, 1..AC_SEARCH_BUDGET_MAX; default 2000 */
    size_t population;                    /* >= 2; default 20 (random: the batch) */
    size_t elite;                         /* kept as they are each generation; default 2 */
    double crossover_rate;                /* [0, 1], default 0.9 */
    double mutation_rate;                 /* per gene, [0, 1]; default 0: 1 / ngenes */
    const ac_search_selection *selection; /* default &ac_search_tournament */
    size_t tournament;                    /* default 2 */
    const ac_search_crossover *crossover; /* default &ac_search_sbx */
    double crossover_param;               /* default 15 (SBX eta; blend: use 0.5) */
    const ac_search_mutation *mutation;   /* default &ac_search_polynomial */
    double mutation_param;                /* default 20 (polynomial eta; Gaussian: 0.1) */
    unsigned long seed;                   /* default 1 (gsl_rng_mt19937) */
    size_t jobs;                          /* evaluation threads, default 1 */
    double immigrants;                    /* share [0, 1] of each generation's bred slots
                                             replaced by uniform individuals; default 0.4 */
} ac_search_options;

void ac_search_options_init(ac_search_options *opt);

typedef struct ac_search_ga ac_search_ga;

/*
 * A search (the GA, or random sampling by opt->method) of `problem` (borrowed; it must
 * outlive the search, and its eval accept job < opt->jobs). `opt` may be NULL (defaults).
 * Returns 0, AC_EINVAL (bad options, no gene) or AC_ENOMEM; on success *out is the new
 * search (free with ac_search_ga_free). Threads are started here when jobs > 1.
 */
int ac_search_ga_new(const ac_search_problem *problem, const ac_search_options *opt,
                     ac_search_ga **out, ac_error *err);

/*
 * One generation: the first step scores a uniform random population; each next one keeps
 * the `elite` best, breeds the others (selection, crossover with crossover_rate, mutation;
 * a share `immigrants` of them drawn uniformly instead) and scores them (random: a new uniform
 * batch), never past the budget. *done is set to 1 when the budget is spent. Returns 0 or the
 * problem's status (the lowest slot's error); allocates nothing.
 */
int ac_search_ga_step(ac_search_ga *ga, int *done, ac_error *err);

/* A warm start, before the first step: generation 0 takes the first `count` (at most the
 * population) individuals of `genes` (count x ngenes, clamped to [0, 1]), the rest uniform.
 * Returns 0 or AC_EINVAL (after a step). */
int ac_search_ga_warm(ac_search_ga *ga, const double *genes, size_t count, ac_error *err);

/* The current population: *out points to its individuals (population x ngenes, valid until
 * the next step); returns how many (0 before the first step). */
size_t ac_search_ga_population(const ac_search_ga *ga, const double **out);

/* Step until the budget is spent. */
int ac_search_ga_run(ac_search_ga *ga, ac_error *err);

/* The best individual so far: *out points to its ngenes genes (valid until the next step or
 * free); returns its score (-INFINITY before the first step). */
double ac_search_ga_best(const ac_search_ga *ga, const double **out);
/* Evaluations spent so far, and the evaluation (1-based) at which the best was found. */
size_t ac_search_ga_evaluations(const ac_search_ga *ga);
size_t ac_search_ga_best_at(const ac_search_ga *ga);

void ac_search_ga_free(ac_search_ga *ga); /* NULL is a no-op; joins the threads */

/*
 * The exhaustive grid: every point of `points` (>= 2) values per gene, i / (points - 1),
 * evaluated with job 0 (points^ngenes evaluations, at most `budget`: else AC_ELIMIT).
 * *out_score is the best score, `best` (ngenes entries) its genes (the first in the grid's
 * order among ties), *out_evals the evaluations. Returns 0, AC_EINVAL, AC_ELIMIT or the
 * problem's status.
 */
int ac_search_grid(const ac_search_problem *problem, size_t points, size_t budget, double *best,
                   double *out_score, size_t *out_evals, ac_error *err);

/*
 * A local polish of a search's best (a compass search, deterministic, job 0): from `genes`
 * (ngenes, updated in place) with score *score, each gene is tried at its two bounds, then at
 * +-step for step = 1/4, 1/8, ... down to 1/1024, a move kept when it scores strictly higher,
 * until `budget` evaluations are spent (*evals: how many). The GA's best is near a peak but
 * rarely on it (a worst case at a range's end is approached, not reached); a resilience
 * verdict wants the peak. Returns 0 or the problem's status.
 */
int ac_search_polish(const ac_search_problem *problem, double *genes, double *score, size_t budget,
                     size_t *evals, ac_error *err);

/* ------------------------------------------------------- the resilience boundary */

typedef enum ac_search_boundary_status {
    AC_SEARCH_BOUNDARY_FOUND = 0, /* W(lo) < tau <= W(hi), hi / lo <= 1 + rel_tol */
    AC_SEARCH_BOUNDARY_BELOW,     /* W reaches tau already at the lowest factor: B_r <= that */
    AC_SEARCH_BOUNDARY_ABOVE      /* W stays below tau at the highest factor: B_r > that */
} ac_search_boundary_status;

typedef struct ac_search_boundary {
    ac_search_boundary_status status;
    double lo, hi;         /* the final bracket of the workload factor */
    double scale;          /* = hi: the factor reported */
    double peak_rate;      /* /s, the sources' highest total rate at factor 1 */
    double rate;           /* /s, B_r = scale x peak_rate */
    size_t probes;         /* worst-case searches */
    size_t evaluations;    /* over every probe */
    size_t failures;       /* plans whose transient failed to integrate, over every probe */
    size_t failures_below; /* of them, those in probes judged below tau: when > 0 the low side
                              of the bracket is not shown (a failed plan may reach tau there),
                              so B_r is an upper bound only (FOUND or ABOVE alike) */
} ac_search_boundary;

/* The sources' highest total request rate (/s) at workload factor 1 (the profiles are linear
 * between their points: the maximum is at one of them). */
double ac_search_peak_rate(const ac_model *model);

/*
 * The resilience boundary of `model` for the objective `obj` (built with a scale of at least
 * `hi`): the lowest workload factor s in [lo, hi] at which the worst-case score W(s) reaches
 * `tau`, W assumed non-decreasing in s. Each probe is a search with `opt` (NULL: defaults;
 * its budget per probe) warm-started from the previous probe's population (a space without
 * a gene: its one plan). Geometric bisection to hi / lo <= 1 + rel_tol. *out is filled;
 * returns 0, AC_EINVAL, AC_ENOMEM or the objective's status.
 */
int ac_search_boundary_find(const ac_model *model, ac_search_objective *obj,
                            const ac_search_options *opt, double tau, double lo, double hi,
                            double rel_tol, ac_search_boundary *out, ac_error *err);

/* The same, and `worst` (NULL, or ngenes entries) receives the genes of the worst case found
 * at the reported factor (hi; at lo when BELOW, at hi when ABOVE). */
int ac_search_boundary_find_worst(const ac_model *model, ac_search_objective *obj,
                                  const ac_search_options *opt, double tau, double lo, double hi,
                                  double rel_tol, ac_search_boundary *out, double *worst,
                                  ac_error *err);

/* A warm start of a boundary, and its last population. */
typedef struct ac_search_warm {
    const double *genes; /* generation 0 of the first probe (count x ngenes; at most the
                            population are taken), or NULL */
    size_t count;
    int stop_at_tau; /* 1: a probe ends as soon as a plan reaches tau (that decides
                        W >= tau; the worst case kept at hi is then the first plan found
                        to reach it, not the worst) and is not polished */
    double *last;    /* NULL, or room for population x ngenes: the last probe's population
                        (for the warm start of another variant's search) */
    size_t nlast;    /* out: its individuals */
} ac_search_warm;

/* ac_search_boundary_find_worst with a warm start (warm NULL: none, as find_worst). */
int ac_search_boundary_find_warm(const ac_model *model, ac_search_objective *obj,
                                 const ac_search_options *opt, ac_search_warm *warm, double tau,
                                 double lo, double hi, double rel_tol, ac_search_boundary *out,
                                 double *worst, ac_error *err);

/* The boundary of one fixed plan (faults: the space's nfaults entries, or NULL: no fault):
 * the same bisection on the objective of that plan, one evaluation per probe (how a
 * mitigation fares against the baseline's worst case). */
int ac_search_boundary_plan(const ac_model *model, ac_search_objective *obj,
                            const ac_transient_fault *faults, double tau, double lo, double hi,
                            double rel_tol, ac_search_boundary *out, ac_error *err);

/* ------------------------------------------------- convergence over several seeds */

/* The grid of a convergence (evaluations budget j / P, j = 1..P) and the most seeds. */
#define AC_SEARCH_CONVERGENCE_POINTS    100
#define AC_SEARCH_CONVERGENCE_SEEDS_MAX 50

typedef struct ac_search_convergence {
    size_t nseeds; /* seeds seed .. seed + nseeds - 1, each method */
    unsigned long seed;
    size_t budget;                                   /* of each run */
    double evals[AC_SEARCH_CONVERGENCE_POINTS];      /* the grid */
    double best[2][3][AC_SEARCH_CONVERGENCE_POINTS]; /* [GA, random][q1, median, q3] of the
                                                        best score found by each grid point
                                                        over the seeds (NAN before a seed's
                                                        first generation) */
    double final[2][3];                              /* [GA, random] quartiles of the final best */
    double top;                                      /* the best score of every run */
    double reach99[2];   /* median evaluations (grid) to reach 0.99 top, over the seeds that
                            did; NAN when fewer than half did */
    size_t reached99[2]; /* seeds that did */
} ac_search_convergence;

/*
 * The GA against random sampling (opt's options, its budget per run; method ignored) on
 * `problem` over `nseeds` seeds (1..AC_SEARCH_CONVERGENCE_SEEDS_MAX) from opt->seed:
 * 2 nseeds runs of opt->budget evaluations (no polish). *out is filled (caller-owned).
 * Returns 0, AC_EINVAL, AC_ENOMEM or a run's status (search/convergence.c).
 */
int ac_search_convergence_run(const ac_search_problem *problem, const ac_search_options *opt,
                              size_t nseeds, ac_search_convergence *out, ac_error *err);

/* ------------------------------------------------ the resilience of every mitigation */

/* The default budget of a study: evaluations over every variant and probe. */
#define AC_SEARCH_STUDY_BUDGET 200000

typedef struct ac_search_study_options {
    ac_search_options search;       /* each probe's search (its budget per probe) */
    ac_transient_options transient; /* the workspaces' (scale: set to hi) */
    double lo, hi, rel_tol;         /* the factor's bracket and tolerance; default 1/16, 16,
                                       1e-3 */
    size_t max_evaluations;         /* over the study; default AC_SEARCH_STUDY_BUDGET */
    size_t mitigation;              /* AC_NONE: every mitigation and combination (default);
                                       else that one */
    int warm_start;                 /* 1 (default): each variant's search starts from the
                                       baseline's final population, and its probes end once a
                                       plan reaches tau; 0: cold, full probes (to measure) */
    int combinations;               /* 1 (default): the combinations the file does not declare
                                       too; 0: the declared mitigations only */
    double score_at;                /* the workload factor of each variant's worst-case score
                                       (a search of the per-probe budget); default 1 (the
                                       design's workload); 0: none */
} ac_search_study_options;

void ac_search_study_options_init(ac_search_study_options *opt);

/* Every combination of the simple (non-combine) mitigations is studied when there are at
 * most this many of them; past it, the declared ones and every pair (search/variants.c). */
#define AC_SEARCH_SUBSETS_MAX 4
/* The most parts of an undeclared combination. */
#define AC_SEARCH_PARTS_MAX AC_SEARCH_SUBSETS_MAX

typedef struct ac_search_variant {
    size_t mitigation; /* index into model->mitigations (a declared one); AC_NONE: the
                          baseline (nparts 0) or a combination the file does not declare */
    size_t nparts;     /* an undeclared combination: its simple mitigations, model order */
    size_t parts[AC_SEARCH_PARTS_MAX];
    char id[160]; /* "" for the baseline; the declared id; "a+b" for a combination */
    int excluded; /* 1: its parts cannot be combined (why says so); not computed */
    int computed; /* 0: not computed, `why` says why (not applicable, over the budget,
                     a search that failed, parts that cannot be combined) */
    char why[256];
    ac_search_boundary own;     /* B_r against its own worst cases: the lower of its own
                                   search's and the baseline worst case's (a plan of its space
                                   too) */
    int own_is_baseline_worst;  /* 1: `own` is the baseline worst case's boundary */
    ac_search_boundary against; /* B_r against the baseline's worst case (mitigations) */
    double gain;                /* R_g = own.rate / B_r(none) - 1, when both are FOUND and
                                   neither has failures_below; else NAN */
    double gain_against;        /* against.rate / B_r(none) - 1, the same way */
    double worst_score;         /* the worst-case score found at the workload factor
                                   score_at (NAN: not searched) */
    size_t worst_failures;      /* plans of that search that failed to integrate */
    size_t evaluations;         /* spent on the variant (own + against + the score) */
    size_t evaluations_cold;    /* the most its probes could have spent without the warm
                                   start and the early stop (probes x (budget + polish)):
                                   evaluations_cold - evaluations were saved */
} ac_search_variant;

typedef struct ac_search_study {
    double tau;
    size_t nvariants; /* the baseline first, then the declared mitigations in model order, then
                         the undeclared combinations (by size, then model order) */
    ac_search_variant *variants;
    int all_subsets;    /* 1: every combination of the simple mitigations is among them */
    char scope[160];    /* which variants, in words */
    size_t evaluations; /* spent over the study, at most budget */
    size_t budget;      /* the study's budget (the baseline's searches count too) */
    size_t nfaults;
    ac_transient_fault *baseline_worst; /* the baseline's worst case at its B_r (nfaults) */
    ac_transient_fault *score_worst;    /* the baseline's worst case at score_at (nfaults), the
                                           plan of variants[0].worst_score; NULL: not searched */
    ac_search_term_value *score_terms;  /* its terms (nterms), for ac_analysis_confirm */
    size_t nterms;
    size_t ngenes;
    double *final; /* the baseline's final population (nfinal x ngenes): the warm start */
    size_t nfinal;
} ac_search_study;

/*
 * The resilience study (doc/models.md §6) of `model` (valid, with <faults>): for the
 * baseline and every mitigation (each <mitigation>, combines included, applied to a clone),
 * B_r against its own worst cases (ac_search_boundary_find_worst) and against the
 * baseline's worst case at B_r(none) (ac_search_boundary_plan), and the gains R_g. The budget
 * max_evaluations binds the whole study, the baseline included (evaluations <= budget): a
 * search that could exceed what is left (probes x the per-probe budget) is not run, and its
 * variant is not computed (why: the budget); when the baseline cannot fit, no variant is
 * computed (variants[0].computed == 0: a caller reports the study INCONCLUSIVE with its why).
 * opt NULL: defaults. Returns 0, AC_EINVAL (no <faults>, a bad option, or the baseline's
 * space or objective refused: err says why), AC_ENOMEM, or the baseline's search status;
 * *out is the new study (ac_search_study_free).
 */
int ac_search_study_run(const ac_model *model, const ac_search_study_options *opt,
                        ac_search_study **out, ac_error *err);
void ac_search_study_free(ac_search_study *study); /* NULL is a no-op */

/* ------------------------------------------------------ export to a live drill */

/*
 * The plan `faults` (nfaults; times in s over the horizon `horizon`) as an AWS Fault
 * Injection Service experiment template (the JSON of `aws fis create-experiment-template
 * --cli-input-json`), written to fp (search/export.c):
 *   function delay      aws:lambda:invocation-add-delay, startupDelayMilliseconds, 100%;
 *   function fail-prob  aws:lambda:invocation-error, invocationPercentage = 100 p,
 *                       preventExecution false (the execution runs, then fails);
 *   pool servers-down   aws:ec2:stop-instances on COUNT(k) instances of the pool,
 *                       started again after the window;
 *   pool delay          aws:ssm:send-command of AWSFIS-Run-Network-Latency (the delay as
 *                       added network latency; its region is the placeholder REGION);
 *   link delay          aws:ssm:send-command of AWSFIS-Run-Network-Latency-Sources on the
 *                       instances of the link's sending node, Sources = the receiving
 *                       node's id (a placeholder for its host name);
 *   link capacity-loss  v >= 0.999: aws:network:disrupt-connectivity (scope all) on the
 *                       sending node's subnets; below: aws:ssm:send-command of
 *                       AWSFIS-Run-Network-Packet-Loss-Sources, LossPercent = 100 v (FIS has
 *                       no bandwidth limit; packet loss cuts a TCP flow's throughput by more
 *                       than v: a harsher drill than the model's fault);
 * each with its window: an aws:fis:wait of `start` first, an ISO 8601 duration of end -
 * start (to the horizon without an end), rounded up to whole seconds. Targets are selected by
 * the tag archcheck:node = the node's id (a link's: its sending node's); the role is the
 * placeholder arn:aws:iam::ACCOUNT_ID:role/archcheck-fis. A fault FIS has no action for (a
 * function's cold-start, a gateway's capacity-loss) is carried in the tag
 * archcheck:not-exported. Every fault is in the description. Returns 0 or AC_EIO (a write
 * failed).
 */
int ac_search_export_fis(FILE *fp, const ac_model *model, const ac_transient_fault *faults,
                         size_t nfaults, double horizon, double score, ac_error *err);

/*
 * The same plan as a Chaos Toolkit experiment (JSON): its steady-state hypothesis, from the
 * requirement: one probe per term of the objective (chaosaws.cloudwatch.probes
 * get_metric_statistics of the metric published in the CloudWatch namespace "archcheck",
 * metric = the term's metric name, dimension node = its target or "end-to-end", Maximum over
 * the horizon) with the tolerance range [0, tau norm] (a latency without a norm: [0, (1 + tau)
 * m0], m0 = terms[i].norm, the no-fault value; a term whose limit is not known, terms NULL,
 * has no probe): every term within it keeps the score at most tau. Its method starts the FIS
 * template above (chaosaws.fis.actions.start_experiment, the template id from the
 * environment variable ARCHCHECK_FIS_TEMPLATE_ID, tagged archcheck=worst-case) and waits the
 * horizon; its rollback stops the experiments so tagged (stop_experiments_by_tags); every
 * fault of the plan is listed in the extension "archcheck". `terms` (NULL, or nterms from
 * ac_search_objective_eval_plan) gives the no-fault latencies. Returns 0 or AC_EIO.
 */
int ac_search_export_chaostoolkit(FILE *fp, const ac_model *model, const ac_transient_fault *faults,
                                  size_t nfaults, const ac_search_term_value *terms, size_t nterms,
                                  double horizon, double score, ac_error *err);

/* The name of a fault attribute as written in the format ("delay", "fail-prob", ...). */
const char *ac_search_attr_name(ac_transient_fault_attr attr);

#ifdef __cplusplus
}
#endif

#endif
