/*
 * Tournament selection: `size` individuals drawn uniformly with replacement, the best of
 * them wins (ties: the first drawn). The best of n distinct scores is picked with
 * probability 1 - (1 - 1/n)^size.
 */
#include "archcheck/search.h"

static size_t tournament_select(const double *score, size_t n, size_t size, gsl_rng *rng)
{
    size_t best = (size_t)gsl_rng_uniform_int(rng, n);
    for (size_t k = 1; k < size; k++) {
        size_t c = (size_t)gsl_rng_uniform_int(rng, n);
        if (score[c] > score[best])
            best = c;
    }
    return best;
}

const ac_search_selection ac_search_tournament = {"tournament", tournament_select};
