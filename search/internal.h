/*
 * Internal to search/: the evaluation pool and the random batch.
 */
#ifndef AC_SEARCH_INTERNAL_H
#define AC_SEARCH_INTERNAL_H

#include "archcheck/search.h"

/* `count` uniform individuals of n genes in [0, 1] into genes (count x n). */
void ac_search_random_batch(double *genes, size_t count, size_t n, gsl_rng *rng);

typedef struct ac_search_pool ac_search_pool;

/* A pool of `jobs` evaluators of `problem` (jobs - 1 threads; the caller is job 0). */
int ac_search_pool_new(const ac_search_problem *problem, size_t jobs, ac_search_pool **out,
                       ac_error *err);

/* Score the individuals [0, count) of genes (count x ngenes) into score[slot]: slot i on
 * job i mod jobs; by the problem's screen when `screen` and it has one. Returns 0 or the
 * status of the lowest failed slot (its error in err). */
int ac_search_pool_eval(ac_search_pool *pool, const double *genes, double *score, size_t count,
                        int screen, ac_error *err);

void ac_search_pool_free(ac_search_pool *pool); /* NULL is a no-op */

/* The plan cache (search/cache.c): per job of the objective, the scores (kind 0: the
 * screen's, 1: full) and statuses (0, or the AC_ENUMERIC / AC_ELIMIT of a plan that failed)
 * of recent plans at the current scale. _new gives *out NULL (no cache) for more than
 * AC_SEARCH_CACHE_FAULTS_MAX faults; 0 or AC_ENOMEM. _clear forgets every entry (a new
 * scale). _get: 1 and the stored values on a hit, else 0. Only _new allocates. */
#define AC_SEARCH_CACHE_BITS       8
#define AC_SEARCH_CACHE_FAULTS_MAX 32
typedef struct ac_search_cache ac_search_cache;
int ac_search_cache_new(size_t nfaults, ac_search_cache **out);
void ac_search_cache_free(ac_search_cache *c); /* NULL is a no-op */
void ac_search_cache_clear(ac_search_cache *c);
int ac_search_cache_get(const ac_search_cache *c, int kind, const ac_transient_fault *plan,
                        double *score, int *status);
void ac_search_cache_put(ac_search_cache *c, int kind, const ac_transient_fault *plan, double score,
                         int status);

/* The variants of a study (search/variants.c): st->variants (owned by st), st->nvariants,
 * st->all_subsets and st->scope; `only` a mitigation index (that one alone) or AC_NONE (every
 * declared one, and the combinations unless `combinations` is 0). Returns 0 or AC_ENOMEM. */
int ac_search_study_variants(const ac_model *m, size_t only, int combinations, ac_search_study *st,
                             ac_error *err);

/* A clone of m with the variant applied (*out, caller frees); 0, AC_EINVAL or AC_ENOMEM. */
int ac_search_variant_model(const ac_model *m, const ac_search_variant *v, ac_model **out,
                            ac_error *err);

#endif
