/*
 * Gaussian mutation: each gene with probability `rate`, x <- x + N(0, sigma^2), clamped to
 * [0, 1].
 */
#include <gsl/gsl_randist.h>

#include "archcheck/search.h"

static void gaussian_mutate(double *x, size_t n, double rate, double sigma, gsl_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        double v;
        if (gsl_rng_uniform(rng) >= rate)
            continue;
        v = x[i] + gsl_ran_gaussian(rng, sigma);
        x[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
    }
}

const ac_search_mutation ac_search_gaussian = {"gaussian", gaussian_mutate};
