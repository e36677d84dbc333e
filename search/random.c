/*
 * Uniform random search: individuals drawn uniformly in [0, 1]^n, the chaos-testing
 * baseline of the GA in the same budget (ac_search_ga with AC_SEARCH_RANDOM draws a new
 * batch of `population` each step).
 */
#include "search/internal.h"

void ac_search_random_batch(double *genes, size_t count, size_t n, gsl_rng *rng)
{
    for (size_t i = 0; i < count * n; i++)
        genes[i] = gsl_rng_uniform(rng);
}
