/*
 * Simulated binary crossover (Deb and Agrawal 1995) on genes in [0, 1]. Per gene, with
 * probability 1/2 (else the parents' genes are copied):
 *   beta = (2u)^(1/(eta+1))            for u <= 1/2,
 *          (1 / (2 (1 - u)))^(1/(eta+1)) otherwise,
 *   c1 = (a + b)/2 - beta |b - a|/2,  c2 = (a + b)/2 + beta |b - a|/2,
 * so c1 + c2 = a + b (the spread beta has the density of the binary crossover's); the
 * children are clamped to [0, 1], and which parent's side each child takes is drawn.
 */
#include <math.h>

#include "archcheck/search.h"

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

static void sbx_cross(const double *a, const double *b, double *c1, double *c2, size_t n,
                      double eta, gsl_rng *rng)
{
    double e = 1.0 / (eta + 1.0);
    for (size_t i = 0; i < n; i++) {
        double u, beta, mid, half;
        if (gsl_rng_uniform(rng) >= 0.5) {
            c1[i] = a[i];
            c2[i] = b[i];
            continue;
        }
        u = gsl_rng_uniform(rng);
        beta = u <= 0.5 ? pow(2.0 * u, e) : pow(1.0 / (2.0 * (1.0 - u)), e);
        mid = 0.5 * (a[i] + b[i]);
        half = 0.5 * beta * fabs(b[i] - a[i]);
        if (gsl_rng_uniform(rng) < 0.5) {
            c1[i] = clamp01(mid - half);
            c2[i] = clamp01(mid + half);
        } else {
            c1[i] = clamp01(mid + half);
            c2[i] = clamp01(mid - half);
        }
    }
}

const ac_search_crossover ac_search_sbx = {"sbx", sbx_cross};
