/*
 * The serial N_Vector operations CVODE runs in the transient's hot loop (transient_nvec.h),
 * compiled with the project and done 8 values at a time.
 *
 * Why: Debian's SUNDIALS 6.4.1 is built without optimisation (~12 instructions per entry),
 * and CVODE's predictor alone runs q (q + 1) / 2 linear sums per step; the project's scalar
 * loops (two entries a step) still cost ~4.3 instructions per entry (callgrind, bench
 * bench_transient --count 40: nv_axpy 12% of an evaluation). Here each operation is written
 * as blocks of 8 independent values (loaded, combined, stored) that GCC's and clang's
 * vectorisers turn into SSE2 pairs, or AVX2 quadruples in the second build of the same code
 * (target("avx2"), chosen at run time by tr_nv_avx2_ok).
 *
 * Results are byte-identical across machines by construction: every output is the same C
 * expression of the same inputs (no -ffast-math; -std=c11 sets -ffp-contract=off, and
 * target("avx2") does not enable FMA, so nothing is contracted), and the one reduction
 * (the WRMS norm) keeps 8 partial sums, lane k holding the entries i = k mod 8 of the
 * 8-blocks in order, added at the end in a fixed tree, then the tail in order. The AVX2
 * build is also checked against the SSE2 one on a fixed vector before it is used.
 * Each linear-sum case computes the same expression as nvector_serial.c's (bit for bit as
 * the library's); the WRMS norm's order is this file's.
 */
#include <math.h>
#include <string.h>

#include "solver/transient_nvec.h"

#include <nvector/nvector_serial.h>

/* The vector types of the two builds: 2 doubles (SSE2) and 4 (AVX2); GNU C's vector
 * extension, whose operations are the element-wise IEEE ones. */
typedef double tr_v2 __attribute__((vector_size(16)));
typedef double tr_v4 __attribute__((vector_size(32)));

/* z[i] = EXPR for every i, in blocks of 8 (8 / W vectors of type VT: X and Y hold x's and
 * y's entries, each vector loaded before its result is stored, so z may be x or y), then
 * the tail with X and Y the scalars x[i], y[i]. EXPR mixes them with scalars as C does. */
#define TR_NV_MAP(VT, n, xp, yp, z, EXPR)                                                          \
    do {                                                                                           \
        size_t b_ = 0;                                                                             \
        for (; b_ + 8 <= (n); b_ += 8)                                                             \
            _Pragma("GCC unroll 4") for (size_t j_ = 0; j_ < 8; j_ += sizeof(VT) / sizeof(double)) \
            {                                                                                      \
                VT X, Y, R_;                                                                       \
                memcpy(&X, (xp) + b_ + j_, sizeof X);                                              \
                memcpy(&Y, (yp) + b_ + j_, sizeof Y);                                              \
                (void)X, (void)Y;                                                                  \
                R_ = (EXPR);                                                                       \
                memcpy((z) + b_ + j_, &R_, sizeof R_);                                             \
            }                                                                                      \
        for (; b_ < (n); b_++) {                                                                   \
            double X = (xp)[b_], Y = (yp)[b_];                                                     \
            (void)X, (void)Y;                                                                      \
            (z)[b_] = (EXPR);                                                                      \
        }                                                                                          \
    } while (0)

#define TR_NV_INLINE static inline __attribute__((always_inline))

/* The integer vectors of the two builds' widths (the sign bits cleared for |x|). */
typedef long long tr_i2 __attribute__((vector_size(16)));
typedef long long tr_i4 __attribute__((vector_size(32)));

/* The kernels of one build (VT: its vector type). */
#define TR_NV_KERNELS(VT)                                                                          \
    /* z = a x + b y by the cases of N_VLinearSum_Serial (each the library's expression) */        \
    TR_NV_INLINE void k_linearsum_##VT(double a, const double *x, double b, const double *y,       \
                                       double *z, size_t n, int z_is_x, int z_is_y)                \
    {                                                                                              \
        if (b == 1.0 && z_is_y) { /* Vaxpy(a, x, y) */                                             \
            if (a == 1.0)                                                                          \
                TR_NV_MAP(VT, n, x, y, z, Y + X);                                                  \
            else if (a == -1.0)                                                                    \
                TR_NV_MAP(VT, n, x, y, z, Y - X);                                                  \
            else                                                                                   \
                TR_NV_MAP(VT, n, x, y, z, Y + a * X);                                              \
        } else if (a == 1.0 && z_is_x) { /* Vaxpy(b, y, x) */                                      \
            if (b == 1.0)                                                                          \
                TR_NV_MAP(VT, n, x, y, z, X + Y);                                                  \
            else if (b == -1.0)                                                                    \
                TR_NV_MAP(VT, n, x, y, z, X - Y);                                                  \
            else                                                                                   \
                TR_NV_MAP(VT, n, x, y, z, X + b * Y);                                              \
        } else if (a == 1.0 && b == 1.0) {                                                         \
            TR_NV_MAP(VT, n, x, y, z, X + Y);                                                      \
        } else if (a == 1.0 && b == -1.0) {                                                        \
            TR_NV_MAP(VT, n, x, y, z, X - Y);                                                      \
        } else if (a == -1.0 && b == 1.0) {                                                        \
            TR_NV_MAP(VT, n, x, y, z, Y - X);                                                      \
        } else if (a == 1.0) { /* Vlin1(b, y, x) */                                                \
            TR_NV_MAP(VT, n, x, y, z, (b * Y) + X);                                                \
        } else if (b == 1.0) { /* Vlin1(a, x, y) */                                                \
            TR_NV_MAP(VT, n, x, y, z, (a * X) + Y);                                                \
        } else if (a == -1.0) { /* Vlin2(b, y, x) */                                               \
            TR_NV_MAP(VT, n, x, y, z, (b * Y) - X);                                                \
        } else if (b == -1.0) { /* Vlin2(a, x, y) */                                               \
            TR_NV_MAP(VT, n, x, y, z, (a * X) - Y);                                                \
        } else if (a == b) {                                                                       \
            TR_NV_MAP(VT, n, x, y, z, a *(X + Y));                                                 \
        } else if (a == -b) {                                                                      \
            TR_NV_MAP(VT, n, x, y, z, a *(X - Y));                                                 \
        } else {                                                                                   \
            TR_NV_MAP(VT, n, x, y, z, (a * X) + (b * Y));                                          \
        }                                                                                          \
    }                                                                                              \
    /* z = c x (N_VScale_Serial's cases) */                                                        \
    TR_NV_INLINE void k_scale_##VT(double c, const double *x, double *z, size_t n)                 \
    {                                                                                              \
        if (c == 1.0)                                                                              \
            TR_NV_MAP(VT, n, x, x, z, X);                                                          \
        else if (c == -1.0)                                                                        \
            TR_NV_MAP(VT, n, x, x, z, -X);                                                         \
        else                                                                                       \
            TR_NV_MAP(VT, n, x, x, z, c *X);                                                       \
    }                                                                                              \
    /* sqrt(sum (x_i w_i)^2 / n): lane k of the 8-blocks summed in s_k, then                       \
     * ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)), then the tail in order */                \
    TR_NV_INLINE double k_wrmsnorm_##VT(const double *x, const double *w, size_t n)                \
    {                                                                                              \
        enum { W_ = sizeof(VT) / sizeof(double) };                                                 \
        VT acc[8 / W_];                                                                            \
        double s[8], sum;                                                                          \
        size_t b = 0;                                                                              \
        memset(acc, 0, sizeof acc);                                                                \
        for (; b + 8 <= n; b += 8)                                                                 \
            _Pragma("GCC unroll 4") for (size_t j = 0; j < 8 / W_; j++)                            \
            {                                                                                      \
                VT X, Wt, P;                                                                       \
                memcpy(&X, x + b + W_ * j, sizeof X);                                              \
                memcpy(&Wt, w + b + W_ * j, sizeof Wt);                                            \
                P = X * Wt;                                                                        \
                acc[j] += P * P;                                                                   \
            }                                                                                      \
        memcpy(s, acc, sizeof s);                                                                  \
        sum = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));                   \
        for (; b < n; b++) {                                                                       \
            double p = x[b] * w[b];                                                                \
            sum += p * p;                                                                          \
        }                                                                                          \
        return sqrt(sum / (double)n);                                                              \
    }

TR_NV_KERNELS(tr_v2)
TR_NV_KERNELS(tr_v4)

/* The probe's length (4 blocks and a tail of 5) and its outputs. */
#define TR_NV_PROBE 37
#define TR_NV_OUT   (TR_NV_PROBE * (3 * 16 + 4 + 3) + 1)

#define TR_D(v) NV_DATA_S(v)
#define TR_N(v) ((size_t)NV_LENGTH_S(v))

/* The table entries for one instruction set (sfx; attr: its target attribute). */
#define TR_NV_OPS(sfx, attr, VT, VI)                                                               \
    attr static void nv_linearsum_##sfx(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y,      \
                                        N_Vector z)                                                \
    {                                                                                              \
        k_linearsum_##VT(a, TR_D(x), b, TR_D(y), TR_D(z), TR_N(x), z == x, z == y);                \
    }                                                                                              \
    attr static void nv_scale_##sfx(sunrealtype c, N_Vector x, N_Vector z)                         \
    {                                                                                              \
        k_scale_##VT(c, TR_D(x), TR_D(z), TR_N(x));                                                \
    }                                                                                              \
    attr static void nv_const_##sfx(sunrealtype c, N_Vector z)                                     \
    {                                                                                              \
        double *zd = TR_D(z);                                                                      \
        size_t n = TR_N(z), i = 0;                                                                 \
        VT C;                                                                                      \
        for (size_t k = 0; k < sizeof C / sizeof c; k++)                                           \
            C[k] = c;                                                                              \
        for (; i + sizeof C / sizeof c <= n; i += sizeof C / sizeof c)                             \
            memcpy(zd + i, &C, sizeof C);                                                          \
        for (; i < n; i++)                                                                         \
            zd[i] = c;                                                                             \
    }                                                                                              \
    /* z = |x|: the sign bits cleared (what fabs does, NaN included), VI at a time */              \
    attr static inline void k_abs_##sfx(const double *xd, double *zd, size_t n)                    \
    {                                                                                              \
        size_t i = 0;                                                                              \
        for (; i + sizeof(VI) / sizeof(double) <= n; i += sizeof(VI) / sizeof(double)) {           \
            VI b_;                                                                                 \
            memcpy(&b_, xd + i, sizeof b_);                                                        \
            b_ &= 0x7fffffffffffffffLL;                                                            \
            memcpy(zd + i, &b_, sizeof b_);                                                        \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            zd[i] = fabs(xd[i]);                                                                   \
    }                                                                                              \
    attr static void nv_abs_##sfx(N_Vector x, N_Vector z)                                          \
    {                                                                                              \
        k_abs_##sfx(TR_D(x), TR_D(z), TR_N(x));                                                    \
    }                                                                                              \
    attr static void nv_inv_##sfx(N_Vector x, N_Vector z)                                          \
    {                                                                                              \
        const double *xd = TR_D(x);                                                                \
        double *zd = TR_D(z);                                                                      \
        TR_NV_MAP(VT, TR_N(x), xd, xd, zd, 1.0 / X);                                               \
    }                                                                                              \
    attr static void nv_addconst_##sfx(N_Vector x, sunrealtype b, N_Vector z)                      \
    {                                                                                              \
        const double *xd = TR_D(x);                                                                \
        double *zd = TR_D(z);                                                                      \
        TR_NV_MAP(VT, TR_N(x), xd, xd, zd, X + b);                                                 \
    }                                                                                              \
    attr static sunrealtype nv_wrmsnorm_##sfx(N_Vector x, N_Vector w)                              \
    {                                                                                              \
        return k_wrmsnorm_##VT(TR_D(x), TR_D(w), TR_N(x));                                         \
    }                                                                                              \
    /* every kernel on the fixed vectors x, y (TR_NV_PROBE entries) into out (TR_NV_OUT) */        \
    attr static void nv_probe_##sfx(const double *x, const double *y, double *out)                 \
    {                                                                                              \
        static const double coef[] = {1.0, -1.0, 0.37, -2.5};                                      \
        double *o = out;                                                                           \
        for (size_t p = 0; p < 4; p++)                                                             \
            for (size_t q = 0; q < 4; q++) {                                                       \
                double a = coef[p], b = coef[q];                                                   \
                memcpy(o, y, TR_NV_PROBE * sizeof *o); /* z is y */                                \
                k_linearsum_##VT(a, x, b, o, o, TR_NV_PROBE, 0, 1);                                \
                o += TR_NV_PROBE;                                                                  \
                memcpy(o, x, TR_NV_PROBE * sizeof *o); /* z is x */                                \
                k_linearsum_##VT(a, o, b, y, o, TR_NV_PROBE, 1, 0);                                \
                o += TR_NV_PROBE;                                                                  \
                k_linearsum_##VT(a, x, b, y, o, TR_NV_PROBE, 0, 0);                                \
                o += TR_NV_PROBE;                                                                  \
            }                                                                                      \
        for (size_t p = 0; p < 4; p++, o += TR_NV_PROBE)                                           \
            k_scale_##VT(coef[p], x, o, TR_NV_PROBE);                                              \
        k_abs_##sfx(x, o, TR_NV_PROBE);                                                            \
        o += TR_NV_PROBE;                                                                          \
        TR_NV_MAP(VT, TR_NV_PROBE, x, x, o, 1.0 / X);                                              \
        o += TR_NV_PROBE;                                                                          \
        TR_NV_MAP(VT, TR_NV_PROBE, x, x, o, X + 0.37);                                             \
        o += TR_NV_PROBE;                                                                          \
        *o = k_wrmsnorm_##VT(x, y, TR_NV_PROBE);                                                   \
    }                                                                                              \
    static void nv_install_##sfx(N_Vector v)                                                       \
    {                                                                                              \
        v->ops->nvlinearsum = nv_linearsum_##sfx;                                                  \
        v->ops->nvscale = nv_scale_##sfx;                                                          \
        v->ops->nvconst = nv_const_##sfx;                                                          \
        v->ops->nvabs = nv_abs_##sfx;                                                              \
        v->ops->nvinv = nv_inv_##sfx;                                                              \
        v->ops->nvaddconst = nv_addconst_##sfx;                                                    \
        v->ops->nvwrmsnorm = nv_wrmsnorm_##sfx;                                                    \
    }

TR_NV_OPS(base, , tr_v2, tr_i2)

#if defined(__x86_64__) && defined(__GNUC__)
#define TR_NV_HAVE_AVX2 1
TR_NV_OPS(avx2, __attribute__((target("avx2"))), tr_v4, tr_i4)
#endif

/* The probe's vectors: magnitudes over 1e-6 .. 1e6 of both signs, a fixed generator. */
static void nv_probe_vectors(double *x, double *y)
{
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < TR_NV_PROBE; i++) {
        double u[2];
        for (size_t k = 0; k < 2; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            u[k] = (double)(s >> 11) / 9007199254740992.0;
        }
        x[i] = (u[0] < 0.5 ? -1.0 : 1.0) * pow(10.0, 12.0 * u[1] - 6.0);
        y[i] = (u[1] < 0.5 ? -1.0 : 1.0) * pow(10.0, 12.0 * u[0] - 6.0);
    }
}

/* 1: this CPU has AVX2 and its build of the kernels gives the SSE2 build's bytes. */
static int tr_nv_avx2_ok(void)
{
#ifdef TR_NV_HAVE_AVX2
    double x[TR_NV_PROBE], y[TR_NV_PROBE], o1[TR_NV_OUT], o2[TR_NV_OUT];
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2"))
        return 0;
    nv_probe_vectors(x, y);
    nv_probe_base(x, y, o1);
    nv_probe_avx2(x, y, o2);
    return memcmp(o1, o2, sizeof o1) == 0;
#else
    return 0;
#endif
}

int ac_solver_tr_nvec_install(N_Vector v)
{
#ifdef TR_NV_HAVE_AVX2
    if (tr_nv_avx2_ok()) {
        nv_install_avx2(v);
        return 1;
    }
#endif
    nv_install_base(v);
    return 0;
}

void ac_solver_tr_nvec_probe(int avx2, double *out, size_t n)
{
    double x[TR_NV_PROBE], y[TR_NV_PROBE], o[TR_NV_OUT];
    nv_probe_vectors(x, y);
#ifdef TR_NV_HAVE_AVX2
    if (avx2 && __builtin_cpu_supports("avx2"))
        nv_probe_avx2(x, y, o);
    else
#endif
        nv_probe_base(x, y, o);
    (void)avx2;
    memcpy(out, o, (n < TR_NV_OUT ? n : TR_NV_OUT) * sizeof *out);
}
