/*
 * Bounded polynomial mutation (Deb and Goyal 1996) on genes in [0, 1]: each gene with
 * probability `rate`, u uniform,
 *   delta = (2u + (1 - 2u)(1 - x)^(eta+1))^(1/(eta+1)) - 1           for u < 1/2,
 *           1 - (2(1 - u) + 2(u - 1/2) x^(eta+1))^(1/(eta+1))           otherwise,
 * x <- x + delta, which stays in [0, 1] (delta in [-x, 1 - x]).
 */
#include <math.h>

#include "archcheck/search.h"

static void polynomial_mutate(double *x, size_t n, double rate, double eta, gsl_rng *rng)
{
    double e = 1.0 / (eta + 1.0);
    for (size_t i = 0; i < n; i++) {
        double u, delta, v;
        if (gsl_rng_uniform(rng) >= rate)
            continue;
        u = gsl_rng_uniform(rng);
        if (u < 0.5)
            delta = pow(2.0 * u + (1.0 - 2.0 * u) * pow(1.0 - x[i], eta + 1.0), e) - 1.0;
        else
            delta = 1.0 - pow(2.0 * (1.0 - u) + 2.0 * (u - 0.5) * pow(x[i], eta + 1.0), e);
        v = x[i] + delta;
        x[i] = v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
    }
}

const ac_search_mutation ac_search_polynomial = {"polynomial", polynomial_mutate};
