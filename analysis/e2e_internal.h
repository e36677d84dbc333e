/*
 * The end-to-end lattice's private interface (analysis/e2e.c sizes the lattice, checks the
 * budget and stores the brackets; analysis/e2e_walk.c puts the nodes' laws on it and walks
 * the routes). Not installed.
 */
#ifndef AC_ANALYSIS_E2E_INTERNAL_H
#define AC_ANALYSIS_E2E_INTERNAL_H

#include <gsl/gsl_integration.h>

#include "analysis/internal.h"
#include "archcheck/link.h"

#define AC_E2E_M_MIN     2048  /* the least lattice (a power of two) */
#define AC_E2E_M_MAX     32768 /* the most */
#define AC_E2E_M_SIZE    512   /* the sizing pass's lattice, which finds the tail */
#define AC_E2E_TAIL      1e-7  /* the lattice reaches where P(T > t) <= this is certain */
#define AC_E2E_RES       0.01  /* target: visits x step <= this x the end-to-end mean */
#define AC_E2E_TRIM      1e-12 /* most mass of a convolution's far tail moved (e2e_walk.c) */
#define AC_E2E_CACHE_MAX ((size_t)1 << 23) /* most CDF values cached (64 MB) */
#define AC_E2E_WORK_MAX  1.2e10 /* the work budget of one end-to-end solve, lattice operations */

/* The walk's modes: the whole work of the request; stop at a fan-in (the jobs of a fan-out
 * up to their join); and the synchronous part only, whose end is when a caller gets its
 * answer (a queue or an async function answers at once: the work behind it goes on). */
enum { WALK_ALL = 0, WALK_STOP_AT_FANIN = 1, WALK_SYNC = 2, WALK_MODES = 3 };

/* (node, mode) pairs of the walk are encoded as node * WALK_MODES + mode */
typedef struct ac_an_e2e_ctx {
    const ac_model *m;
    const ac_analysis *a;
    double h;
    size_t M;
    int upper; /* 0: the floor lattice (T' <= T); 1: the ceiling lattice (T' >= T,
                  its last point standing for "at least (M-1) h") */
    size_t npairs;
    unsigned char *state; /* 0 not computed, 1 in progress (on the stack), 2 memoised */
    double **memo;        /* D(pair) (owned) while a later read still needs it */
    double *memo_success;
    size_t *memo_depth; /* the laws' depths and early masses (e2e_walk.c, struct law) */
    size_t *memo_depth_min;
    double *memo_eps;
    size_t *memo_join;
    size_t *uses, *left;   /* reads of each pair (the replay counts them); left in this pass */
    size_t *order, norder; /* the pairs, each after the pairs it reads */
    size_t *stack;
    size_t *rep;    /* the pair whose law stands for each pair (e2e_share.c), or itself */
    size_t missing; /* dry run: the pair a computation needs first, or AC_NONE */
    int dry;        /* the dry run: unmemoised reads are reported in `missing` */
    int counting;   /* the replay: count the reads */
    double work;    /* lattice operations done (the budget's unit) */
    double **cache; /* per node: F(kh) on the current lattice (owned), or NULL */
    size_t *cache_n;
    double *cache_h;                    /* the step it was computed at */
    size_t cached;                      /* values held in the cache */
    gsl_integration_glfixed_table *tab; /* the quadrature of the QNA laws (owned) */
    ac_solver_link_result *links;       /* per model link, at its flow (owned) */
    int links_ok;                       /* every link solved and none overloaded */
    double fan_mean_gap;   /* this pass: sum over fan-outs of E[max iid] - E[one job] (s) */
    double fan_q_gap;      /* and of the largest quantile shift between those laws (s) */
    size_t *rstart, *ridx; /* the routes from node n: ridx[rstart[n] .. rstart[n+1]), in
                              the file's order */
    double *conv_t;        /* this pass's convolutions: (short, long) supports in s (owned) */
    size_t nconv, conv_cap;
    double conv_work;      /* this pass's work in convolutions */
    size_t pass_depth;     /* this pass (floor): the true time below the law + depth steps ... */
    double pass_eps;       /* ... but for at most this mass */
    size_t pass_depth_min; /* the fewest steps on a path (the plan sets both depths too) */
    int shift_upper;       /* the ceiling law is the floor law moved up pass_depth steps (e2e.c) */
    int failed;            /* a cycle or a node without a law */
    int over_budget;
    int oom;
} ac_an_e2e_ctx;

/* Set up c for model m and its steady state a (the route index, the walk's pairs, every
 * link's law at its flow). Returns 0 or AC_ENOMEM; ac_an_e2e_ctx_free in either case. */
int ac_an_e2e_ctx_init(ac_an_e2e_ctx *c, const ac_model *m, const ac_analysis *a);
void ac_an_e2e_ctx_free(ac_an_e2e_ctx *c);

/* The dry run and the read counts of the walk from `roots` (e2e_walk.c). Returns 0 or -1. */
int ac_an_e2e_plan(ac_an_e2e_ctx *c, const size_t *roots, size_t nroots);

/* c->rep over the pairs of c->order: pairs that compute the same law share one
 * (e2e_share.c). Returns 0 or -1 (c->oom). */
int ac_an_e2e_share(ac_an_e2e_ctx *c);

/* One pass on the lattice (c->M, c->h, c->upper) into mix and *succ. Returns 0 or -1. */
int ac_an_e2e_run_pass(ac_an_e2e_ctx *c, const size_t *roots, const double *w, size_t nroots,
                       double *mix, double *succ);

/* A new zeroed law of c->M points (caller frees); NULL with c->oom set (e2e_conv.c). */
double *ac_an_e2e_law_new(ac_an_e2e_ctx *c);

/* a := a (+) b, truncated to the lattice (the excess on the last point), its work counted in
 * c->work and c->conv_work; on a failed allocation a is unchanged and c->oom set. Returns
 * the mass its tail cut placed early on the floor lattice (0 on the ceiling lattice). */
double ac_an_e2e_convolve(ac_an_e2e_ctx *c, double *a, const double *b);

/* The predicted work of a pass on M points over length L (s), from the last pass's work
 * pass_work and its convolutions' supports (their cost at the new step; the rest scaled by
 * the points per second). */
double ac_an_e2e_predict(const ac_an_e2e_ctx *c, double pass_work, size_t M, double L);

/* Every link of m at its flow into *out (ac_an_e2e_links_free); *ok := all solved and none
 * overloaded. Returns 0 or AC_ENOMEM. */
int ac_an_e2e_links_solve(const ac_model *m, const ac_analysis *a, ac_solver_link_result **out,
                          int *ok);
void ac_an_e2e_links_free(const ac_model *m, ac_solver_link_result *links);

/* Does the node's law come from the QNA pass (a pool fed by a renewal stream)? */
int ac_an_e2e_qna_law(const ac_node_analysis *na);

#endif
