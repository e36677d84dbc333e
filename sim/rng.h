/*
 * The simulator's random numbers (internal to sim/): xoshiro256** (Blackman and Vigna,
 * 2018) seeded by splitmix64, uniform integers by Lemire's multiply-shift with rejection,
 * and exponentials by the ziggurat of Marsaglia and Tsang (2000, 256 layers).
 *
 * Deterministic per seed on every platform (integer arithmetic; the ziggurat's tables are
 * computed from closed forms in ac_sim_zig_init, the same on every build that has a
 * correctly rounded exp and log; libm's are within an ulp and a table entry an ulp off
 * only moves a layer's edge by that ulp). The generator is wrapped as a gsl_rng type so
 * that GSL's samplers (gamma) draw from the same stream.
 */
#ifndef AC_SIM_RNG_H
#define AC_SIM_RNG_H

#include <math.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#define AC_SIM_ZIG_LAYERS 256

typedef struct ac_sim_rng {
    uint64_t s[4];
} ac_sim_rng;

/* The exponential ziggurat: layer i (1..255) is [0, x_i] x [f(x_i), f(x_{i-1})] with f(x) =
 * e^-x, x_0 = 0 and x_255 = r; layer 0 is the base [0, v / f(r)] x [0, f(r)] with the tail
 * beyond r. A draw is (index i, 53-bit j): accepted at once when j < k[i], x = j w[i]. */
typedef struct ac_sim_zig {
    uint64_t k[AC_SIM_ZIG_LAYERS];
    double w[AC_SIM_ZIG_LAYERS];
    double f[AC_SIM_ZIG_LAYERS];
} ac_sim_zig;

/* The gsl_rng type whose state is an ac_sim_rng (gsl_rng_alloc(&ac_sim_rng_gsl_type)). */
extern const gsl_rng_type ac_sim_rng_gsl_type;

/* Seed: the state is four successive outputs of splitmix64 started at `seed`. */
void ac_sim_rng_seed(ac_sim_rng *r, uint64_t seed);
void ac_sim_zig_init(ac_sim_zig *z);
/* The slow path of the ziggurat (wedges and the tail); u is the rejected draw. */
double ac_sim_zig_exp_slow(ac_sim_rng *r, const ac_sim_zig *z, uint64_t u);

static inline uint64_t ac_sim_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256**: the next 64 bits. */
static inline uint64_t ac_sim_rng_next(ac_sim_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = ac_sim_rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ac_sim_rng_rotl(s[3], 45);
    return out;
}

/* Uniform on [0, 1) with 53 random bits. */
static inline double ac_sim_rng_uniform(ac_sim_rng *r)
{
    return (double)(ac_sim_rng_next(r) >> 11) * 0x1p-53;
}

/* Uniform integer in [0, n), 1 <= n < 2^32, unbiased: Lemire (2019), m = x n on 64 bits
 * with x the top 32 bits of a draw, rejecting the low words below 2^32 mod n. */
static inline uint32_t ac_sim_rng_below(ac_sim_rng *r, uint32_t n)
{
    uint64_t m = (ac_sim_rng_next(r) >> 32) * (uint64_t)n;
    if ((uint32_t)m < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while ((uint32_t)m < t)
            m = (ac_sim_rng_next(r) >> 32) * (uint64_t)n;
    }
    return (uint32_t)(m >> 32);
}

/* Exponential of mean 1 (ziggurat; about 98.9% of draws take the first branch). */
static inline double ac_sim_rng_exp1(ac_sim_rng *r, const ac_sim_zig *z)
{
    uint64_t u = ac_sim_rng_next(r);
    size_t i = (size_t)(u & (AC_SIM_ZIG_LAYERS - 1));
    uint64_t j = u >> 11;
    if (j < z->k[i])
        return (double)j * z->w[i];
    return ac_sim_zig_exp_slow(r, z, u);
}

#endif
