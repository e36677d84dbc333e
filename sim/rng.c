/*
 * The simulator's generator and its exponential ziggurat (sim/rng.h).
 */
#include "sim/rng.h"

#include <string.h>

/* splitmix64 (Steele, Lea and Flood 2014): one step of the Weyl sequence and its mix. */
static uint64_t splitmix64_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ac_sim_rng_seed(ac_sim_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (size_t i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&x);
    /* splitmix64 is a bijection of distinct inputs, so the four words are never all 0 */
}

/* 256-layer constants (Marsaglia and Tsang 2000): r = x_255 and the common area v of a
 * layer, v = r f(r) + integral_r^inf f = (r + 1) e^-r. */
#define ZIG_R 7.69711747013104972
#define ZIG_V 3.949659822581572e-3

/*
 * Layer edges downwards from x_255 = r: f(x_{i-1}) = f(x_i) + v / x_i, i.e.
 * x_{i-1} = -log(v / x_i + e^-x_i). Scaled to 53-bit draws: w[i] = x_i 2^-53, k[i] =
 * (x_{i-1} / x_i) 2^53 (the share of layer i inside the layer above, accepted at once);
 * the base: w[0] = (v / f(r)) 2^-53, k[0] = (r f(r) / v) 2^53.
 */
void ac_sim_zig_init(ac_sim_zig *z)
{
    double x = ZIG_R, q = ZIG_V / exp(-ZIG_R);
    memset(z, 0, sizeof *z);
    z->k[0] = (uint64_t)((ZIG_R / q) * 0x1p53);
    z->w[0] = q * 0x1p-53;
    z->f[0] = 1.0;
    z->w[AC_SIM_ZIG_LAYERS - 1] = ZIG_R * 0x1p-53;
    z->f[AC_SIM_ZIG_LAYERS - 1] = exp(-ZIG_R);
    for (size_t i = AC_SIM_ZIG_LAYERS - 2; i >= 1; i--) {
        double lower = -log(ZIG_V / x + exp(-x));
        z->k[i + 1] = (uint64_t)((lower / x) * 0x1p53);
        x = lower;
        z->f[i] = exp(-x);
        z->w[i] = x * 0x1p-53;
    }
    z->k[1] = 0;
}

/* The draw u fell outside its layer's inner rectangle: the tail (layer 0: r plus a fresh
 * exponential, by memorylessness), or the wedge of layer i (accept x when a uniform height
 * in [f(x_i), f(x_{i-1})] is below f(x)); a rejected wedge starts a new draw. */
double ac_sim_zig_exp_slow(ac_sim_rng *r, const ac_sim_zig *z, uint64_t u)
{
    for (;;) {
        size_t i = (size_t)(u & (AC_SIM_ZIG_LAYERS - 1));
        uint64_t j = u >> 11;
        double x;
        if (j < z->k[i])
            return (double)j * z->w[i];
        if (i == 0)
            return ZIG_R - log1p(-ac_sim_rng_uniform(r));
        x = (double)j * z->w[i];
        if (z->f[i] + ac_sim_rng_uniform(r) * (z->f[i - 1] - z->f[i]) < exp(-x))
            return x;
        u = ac_sim_rng_next(r);
    }
}

/* ---- as a gsl_rng type (for GSL's samplers) ---------------------------------------------- */

static void gsl_set(void *state, unsigned long seed)
{
    ac_sim_rng_seed(state, (uint64_t)seed);
}

/* The top 32 bits: max is 2^32 - 1 wherever unsigned long is. */
static unsigned long gsl_get(void *state)
{
    return (unsigned long)(ac_sim_rng_next(state) >> 32);
}

static double gsl_get_double(void *state)
{
    return ac_sim_rng_uniform(state);
}

const gsl_rng_type ac_sim_rng_gsl_type = {
    "ac-xoshiro256**", 0xffffffffUL, 0, sizeof(ac_sim_rng), gsl_set, gsl_get, gsl_get_double};
