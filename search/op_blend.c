/*
 * Blend crossover BLX-alpha (Eshelman and Schaffer 1993): each child's gene uniform on
 * [min(a, b) - alpha d, max(a, b) + alpha d], d = |a - b|, clamped to [0, 1].
 */
#include <math.h>

#include "archcheck/search.h"

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

static void blend_cross(const double *a, const double *b, double *c1, double *c2, size_t n,
                        double alpha, gsl_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        double lo = fmin(a[i], b[i]), d = fabs(a[i] - b[i]);
        double from = lo - alpha * d, width = d * (1.0 + 2.0 * alpha);
        c1[i] = clamp01(from + width * gsl_rng_uniform(rng));
        c2[i] = clamp01(from + width * gsl_rng_uniform(rng));
    }
}

const ac_search_crossover ac_search_blend = {"blend", blend_cross};
