/*
 * Dense linear algebra for the solver (GSL inside): LU solves, tridiagonal and tridiagonal
 * plus rank-one solves, eigenvalues, the Lyapunov equation, positive definiteness. Matrices are
 * row-major double arrays.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "solver/pool.h"

/* Solve A x = b (A destroyed, b overwritten by x). AC_ENUMERIC when A is singular. */
int ac_solver_lu_solve(size_t n, double *A, double *b, ac_error *err)
{
    gsl_matrix_view Av = gsl_matrix_view_array(A, n, n);
    gsl_vector_view bv = gsl_vector_view_array(b, n);
    gsl_permutation *p = gsl_permutation_alloc(n);
    int signum, status, rc = 0;
    if (p == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (LU of %zu)", n);
    status = gsl_linalg_LU_decomp(&Av.matrix, p, &signum);
    if (status == GSL_SUCCESS)
        status = gsl_linalg_LU_svx(&Av.matrix, p, &bv.vector);
    if (status != GSL_SUCCESS)
        rc = AC_ENUMERIC; /* singular: the caller decides whether that is an error */
    gsl_permutation_free(p);
    return rc;
}

static double max_abs_of(size_t n, const double *v)
{
    double r = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return INFINITY;
        r = fmax(r, fabs(v[i]));
    }
    return r;
}

/* T x = b for the tridiagonal T (diagonal diag, upper up, lower low, n > 1) into x by GSL's
 * O(n) elimination (b and the diagonals read only); 0, or -1 when it fails or x is not
 * finite. */
int ac_solver_tridiag(size_t n, double *diag, double *up, double *low, double *b, double *x)
{
    gsl_vector_view dv = gsl_vector_view_array(diag, n), bv = gsl_vector_view_array(b, n);
    gsl_vector_view uv = gsl_vector_view_array(up, n - 1), lv = gsl_vector_view_array(low, n - 1);
    gsl_vector_view xv = gsl_vector_view_array(x, n);
    if (gsl_linalg_solve_tridiag(&dv.vector, &uv.vector, &lv.vector, &bv.vector, &xv.vector) !=
            GSL_SUCCESS ||
        !(max_abs_of(n, x) < INFINITY))
        return -1;
    return 0;
}

/*
 * Sherman-Morrison for (T + u v^T) y = b, T tridiagonal (diag, up, low; n > 1; read only):
 *   y = w - z (v.w) / (1 + v.z),  T w = b,  T z = u,
 * into y; `work` holds 4 n doubles. 0, or AC_ENUMERIC when an elimination fails or
 * 1 + v.z is at rounding level (A singular or nearly).
 */
static int sherman_morrison(size_t n, double *diag, double *up, double *low, const double *u,
                            const double *v, const double *b, double *y, double *work)
{
    double *z = work, *rhs = work + n, *uu = work + 2 * n, vy = 0.0, vz = 0.0, beta;
    /* copies keep b and u */
    memcpy(rhs, b, n * sizeof *rhs);
    memcpy(uu, u, n * sizeof *uu);
    if (ac_solver_tridiag(n, diag, up, low, rhs, y) < 0 ||
        ac_solver_tridiag(n, diag, up, low, uu, z) < 0)
        return AC_ENUMERIC;
    for (size_t i = 0; i < n; i++) {
        vy += v[i] * y[i];
        vz += v[i] * z[i];
    }
    beta = 1.0 + vz;
    if (!(fabs(beta) > 1e-12 * (1.0 + fabs(vz))))
        return AC_ENUMERIC;
    for (size_t i = 0; i < n; i++)
        y[i] -= z[i] * (vy / beta);
    return 0;
}

/*
 * A x = b into b for A = T + u v^T, T tridiagonal (pool.h): Sherman-Morrison with T = A -
 * u v^T on the three diagonals (A's entries off them are taken as those of u v^T), then the
 * residual max|A x - b| checked in O(n^2) on the dense A against 1e-10 (max|A| max|x| +
 * max|b|). AC_ENUMERIC (b untouched) when an elimination fails, when 1 + v.z is at rounding
 * level (A singular or nearly), or when the residual check fails.
 */
int ac_solver_tr1(size_t n, const double *A, double *b, const double *u, const double *v,
                  double *work)
{
    double *diag = work, *up = work + n, *low = work + 2 * n, *y = work + 3 * n;
    double amax = 0.0, rmax = 0.0;
    if (n < 2) {
        if (n == 1 && !(fabs(b[0] / A[0]) < INFINITY))
            return AC_ENUMERIC;
        if (n == 1)
            b[0] /= A[0];
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        diag[i] = A[i * n + i] - u[i] * v[i];
        if (i + 1 < n) {
            up[i] = A[i * n + i + 1] - u[i] * v[i + 1];
            low[i] = A[(i + 1) * n + i] - u[i + 1] * v[i];
        }
    }
    if (sherman_morrison(n, diag, up, low, u, v, b, y, work + 4 * n) != 0)
        return AC_ENUMERIC;
    /* the residual's loop without calls (fmax is one in libm): a NaN in A or y makes r NaN */
    for (size_t i = 0; i < n; i++) {
        const double *row = A + i * n;
        double r = -b[i];
        for (size_t j = 0; j < n; j++) {
            double a = fabs(row[j]);
            r += row[j] * y[j];
            amax = a > amax ? a : amax;
        }
        r = fabs(r);
        if (!(r <= rmax))
            rmax = r;
    }
    if (!(rmax <= 1e-10 * (amax * max_abs_of(n, y) + max_abs_of(n, b))))
        return AC_ENUMERIC;
    memcpy(b, y, n * sizeof *b);
    return 0;
}

/*
 * The same for A given by its parts, T's diagonals (diag[n], up[n-1], low[n-1], read only)
 * and u, v: the residual max|T x + u (v.x) - b| in O(n) against 1e-10 (max|T| max|x| +
 * max|u| max|v| max|x| n + max|b|). For a caller whose A is T + u v^T by construction (the
 * pool ODE's Newton matrix); `work` holds AC_SOLVER_TR1_WORK(n) doubles.
 */
int ac_solver_tr1_parts(size_t n, double *diag, double *up, double *low, const double *u,
                        const double *v, double *b, double *work)
{
    double *y = work, vy = 0.0, tmax = 0.0, rmax = 0.0, xm, uvm;
    if (n < 2) {
        double a = n == 1 ? diag[0] + u[0] * v[0] : 1.0;
        if (n == 1 && !(fabs(b[0] / a) < INFINITY))
            return AC_ENUMERIC;
        if (n == 1)
            b[0] /= a;
        return 0;
    }
    if (sherman_morrison(n, diag, up, low, u, v, b, y, work + n) != 0)
        return AC_ENUMERIC;
    for (size_t i = 0; i < n; i++)
        vy += v[i] * y[i];
    for (size_t i = 0; i < n; i++) {
        double r = diag[i] * y[i] + u[i] * vy - b[i], t = fabs(diag[i]);
        if (i + 1 < n) {
            r += up[i] * y[i + 1];
            t += fabs(up[i]);
        }
        if (i > 0) {
            r += low[i - 1] * y[i - 1];
            t += fabs(low[i - 1]);
        }
        r = fabs(r);
        if (!(r <= rmax))
            rmax = r;
        tmax = t > tmax ? t : tmax;
    }
    xm = max_abs_of(n, y);
    uvm = max_abs_of(n, u) * max_abs_of(n, v) * (double)n;
    if (!(rmax <= 1e-10 * ((tmax + uvm) * xm + max_abs_of(n, b))))
        return AC_ENUMERIC;
    memcpy(b, y, n * sizeof *b);
    return 0;
}

/*
 * Eigenvalues of a tridiagonal J with J_{i,i+1} J_{i+1,i} >= 0 (every cooperative pool
 * without retries): J is similar to the symmetric tridiagonal matrix with off-diagonal
 * sqrt(J_{i,i+1} J_{i+1,i}), so they are real. Sturm counts: the number of eigenvalues below
 * x is the number of negative pivots of T - x I.
 */
static size_t sturm_below(size_t n, const double *diag, const double *off2, double x)
{
    size_t i, count = 0;
    double dd = 1.0;
    for (i = 0; i < n; i++) {
        dd = diag[i] - x - (i > 0 ? off2[i - 1] / dd : 0.0);
        if (dd == 0.0)
            dd = -1e-300;
        if (dd < 0.0)
            count++;
    }
    return count;
}

static double sturm_bisect(size_t n, const double *diag, const double *off2, size_t below,
                           double lo, double hi)
{
    /* the eigenvalue with `below` eigenvalues under it */
    int it;
    for (it = 0; it < 200 && hi - lo > 1e-15 * (fabs(lo) + fabs(hi)); it++) {
        double mid = 0.5 * (lo + hi);
        if (sturm_below(n, diag, off2, mid) > below)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

static int eigen_tridiagonal(size_t n, const double *J, double *max_re, double *min_re,
                             size_t *unstable, int *applicable, ac_error *err)
{
    double *diag = malloc(n * sizeof *diag), *off2 = malloc(n * sizeof *off2), lo, hi;
    size_t i, j;
    int rc = 0;
    *applicable = 0;
    if (diag == NULL || off2 == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (eigenvalues of %zu)", n);
        goto cleanup;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if ((j + 1 < i || j > i + 1) && J[i * n + j] != 0.0)
                goto cleanup; /* not tridiagonal */
    lo = INFINITY;
    hi = -INFINITY;
    for (i = 0; i < n; i++) {
        double r = 0.0;
        diag[i] = J[i * n + i];
        if (i + 1 < n) {
            off2[i] = J[i * n + i + 1] * J[(i + 1) * n + i];
            if (off2[i] < 0.0)
                goto cleanup;
        }
        if (i + 1 < n)
            r += sqrt(off2[i]);
        if (i > 0)
            r += sqrt(off2[i - 1]);
        lo = fmin(lo, diag[i] - r);
        hi = fmax(hi, diag[i] + r);
    }
    *applicable = 1;
    *max_re = sturm_bisect(n, diag, off2, n - 1, lo, hi);
    *min_re = sturm_bisect(n, diag, off2, 0, lo, hi);
    *unstable = n - sturm_below(n, diag, off2, 0.0);
cleanup:
    free(diag);
    free(off2);
    return rc;
}

/* The eigenvalue of largest real part (max_re + i max_im), the smallest real part, and the
 * number of eigenvalues with a positive real part. */
int ac_solver_eigen(size_t n, const double *J, double *max_re, double *max_im, double *min_re,
                    size_t *unstable, ac_error *err)
{
    double *A = NULL;
    gsl_vector_complex *ev = NULL;
    gsl_eigen_nonsymm_workspace *w = NULL;
    size_t i;
    int rc = 0, status, tri = 0;
    if (n > 200) {
        rc = eigen_tridiagonal(n, J, max_re, min_re, unstable, &tri, err);
        if (rc < 0 || tri) {
            *max_im = 0.0;
            return rc;
        }
        if (n > AC_SOLVER_DENSE_MAX)
            return ac_error_set(err, AC_ELIMIT,
                                "eigenvalues of a dense %zu x %zu Jacobian: over the limit %d", n,
                                n, AC_SOLVER_DENSE_MAX);
    }
    A = malloc(n * n * sizeof *A);
    ev = gsl_vector_complex_alloc(n);
    w = gsl_eigen_nonsymm_alloc(n);
    if (A == NULL || ev == NULL || w == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (eigenvalues of %zu)", n);
        goto cleanup;
    }
    memcpy(A, J, n * n * sizeof *A);
    {
        gsl_matrix_view Av = gsl_matrix_view_array(A, n, n);
        gsl_eigen_nonsymm_params(0, 1, w); /* balance: the rows differ in scale */
        status = gsl_eigen_nonsymm(&Av.matrix, ev, w);
    }
    if (status != GSL_SUCCESS) {
        rc = ac_error_set(err, AC_ENUMERIC, "eigenvalues: %s", gsl_strerror(status));
        goto cleanup;
    }
    *max_re = -INFINITY;
    *min_re = INFINITY;
    *max_im = 0.0;
    *unstable = 0;
    for (i = 0; i < n; i++) {
        gsl_complex z = gsl_vector_complex_get(ev, i);
        double re = GSL_REAL(z), im = GSL_IMAG(z);
        if (re > *max_re) {
            *max_re = re;
            *max_im = fabs(im);
        }
        if (re < *min_re)
            *min_re = re;
        if (re > 0.0)
            (*unstable)++;
    }
cleanup:
    free(A);
    gsl_vector_complex_free(ev);
    gsl_eigen_nonsymm_free(w);
    return rc;
}

/* C = alpha A B^T-or-not + beta C on n x n arrays */
static int gemm(CBLAS_TRANSPOSE_t tb, size_t n, double alpha, const double *A, const double *B,
                double beta, double *C)
{
    gsl_matrix_const_view Av = gsl_matrix_const_view_array(A, n, n);
    gsl_matrix_const_view Bv = gsl_matrix_const_view_array(B, n, n);
    gsl_matrix_view Cv = gsl_matrix_view_array(C, n, n);
    return gsl_blas_dgemm(CblasNoTrans, tb, alpha, &Av.matrix, &Bv.matrix, beta, &Cv.matrix);
}

/*
 * Stable J: Smith's doubling on the Cayley transform. With p > 0, M = (J - pI)^-1,
 * A = M (J + pI), the equation J W + W J^T + Q = 0 is W = A W A^T + 2p M Q M^T, and
 * W = sum_k A^k Q~ (A^T)^k is summed by doubling: W <- W + A W A^T, A <- A^2.
 * p = sqrt(min_re max_re) centres the spectrum of A in the unit disc.
 */
static int lyapunov_smith(size_t n, const double *J, const double *Q, double p, double *W,
                          ac_error *err)
{
    double *M = malloc(n * n * sizeof *M), *A = malloc(n * n * sizeof *A),
           *T = malloc(n * n * sizeof *T), *U = malloc(n * n * sizeof *U);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    size_t i, it;
    int rc = 0, signum, status;
    if (M == NULL || A == NULL || T == NULL || U == NULL || perm == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (Lyapunov of %zu)", n);
        goto cleanup;
    }
    memcpy(T, J, n * n * sizeof *T);
    for (i = 0; i < n; i++)
        T[i * n + i] -= p;
    {
        gsl_matrix_view Tv = gsl_matrix_view_array(T, n, n);
        gsl_matrix_view Mv = gsl_matrix_view_array(M, n, n);
        status = gsl_linalg_LU_decomp(&Tv.matrix, perm, &signum);
        if (status == GSL_SUCCESS)
            status = gsl_linalg_LU_invert(&Tv.matrix, perm, &Mv.matrix);
    }
    if (status != GSL_SUCCESS) {
        rc = ac_error_set(err, AC_ENUMERIC, "Lyapunov: %s", gsl_strerror(status));
        goto cleanup;
    }
    memcpy(U, J, n * n * sizeof *U);
    for (i = 0; i < n; i++)
        U[i * n + i] += p;
    status = gemm(CblasNoTrans, n, 1.0, M, U, 0.0, A);    /* A = M (J + pI) */
    status |= gemm(CblasNoTrans, n, 1.0, M, Q, 0.0, T);   /* T = M Q */
    status |= gemm(CblasTrans, n, 2.0 * p, T, M, 0.0, W); /* W = 2p M Q M^T */
    for (it = 0; it < 80 && status == GSL_SUCCESS; it++) {
        double dmax = 0.0, wmax = 0.0;
        status |= gemm(CblasNoTrans, n, 1.0, A, W, 0.0, T); /* T = A W */
        status |= gemm(CblasTrans, n, 1.0, T, A, 0.0, U);   /* U = A W A^T */
        for (i = 0; i < n * n; i++) {
            W[i] += U[i];
            dmax = fmax(dmax, fabs(U[i]));
            wmax = fmax(wmax, fabs(W[i]));
        }
        if (dmax <= 1e-17 * wmax)
            break;
        status |= gemm(CblasNoTrans, n, 1.0, A, A, 0.0, T); /* A = A^2 */
        memcpy(A, T, n * n * sizeof *A);
    }
    if (status != GSL_SUCCESS || it == 80) {
        rc = ac_error_set(err, AC_ENUMERIC, "Lyapunov (Smith doubling) did not converge");
        goto cleanup;
    }
    for (i = 0; i < n; i++) { /* symmetrise the rounding */
        size_t j;
        for (j = i + 1; j < n; j++) {
            double v = 0.5 * (W[i * n + j] + W[j * n + i]);
            W[i * n + j] = W[j * n + i] = v;
        }
    }
cleanup:
    free(M);
    free(A);
    free(T);
    free(U);
    gsl_permutation_free(perm);
    return rc;
}

/* Any J without eigenvalue pairs summing to 0: the n(n+1)/2 equations
 * sum_k J_ik W_kj + W_ik J_jk = -Q_ij (i <= j) in the unknowns W_ij (i <= j), by LU. */
static int lyapunov_kronecker(size_t n, const double *J, const double *Q, double *W, ac_error *err)
{
    size_t m = n * (n + 1) / 2, i, j, k, row;
    double *A = calloc(m * m, sizeof *A), *b = malloc(m * sizeof *b);
    int rc = 0;
    if (A == NULL || b == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (Lyapunov of %zu)", n);
        goto cleanup;
    }
#define SYM(a, c)                                                                                  \
    ((a) <= (c) ? (a)*n - (a) * ((a)-1) / 2 + ((c) - (a)) : (c)*n - (c) * ((c)-1) / 2 + ((a) - (c)))
    for (i = 0; i < n; i++) {
        for (j = i; j < n; j++) {
            row = SYM(i, j);
            b[row] = -Q[i * n + j];
            for (k = 0; k < n; k++) {
                A[row * m + SYM(k, j)] += J[i * n + k];
                A[row * m + SYM(i, k)] += J[j * n + k];
            }
        }
    }
    rc = ac_solver_lu_solve(m, A, b, err);
    if (rc < 0) {
        rc = ac_error_set(err, AC_ENUMERIC, "Lyapunov equation is singular");
        goto cleanup;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            W[i * n + j] = b[SYM(i, j)];
#undef SYM
cleanup:
    free(A);
    free(b);
    return rc;
}

/* J W + W J^T + Q = 0 for W (n x n). min_re, max_re: J's extreme real parts. */
int ac_solver_lyapunov(size_t n, const double *J, const double *Q, double min_re, double max_re,
                       double *W, ac_error *err)
{
    if (max_re < 0.0)
        return lyapunov_smith(n, J, Q, sqrt(min_re * max_re), W, err);
    if (n <= 60)
        return lyapunov_kronecker(n, J, Q, W, err);
    return ac_error_set(err, AC_ELIMIT, "Lyapunov equation of an unstable %zu-level state", n);
}

/* *pd = 1 when W is positive definite (Cholesky succeeds). */
int ac_solver_is_pd(size_t n, const double *W, int *pd, ac_error *err)
{
    double *A = malloc(n * n * sizeof *A);
    int status;
    if (A == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (Cholesky of %zu)", n);
    memcpy(A, W, n * n * sizeof *A);
    {
        gsl_matrix_view Av = gsl_matrix_view_array(A, n, n);
        status = gsl_linalg_cholesky_decomp1(&Av.matrix);
    }
    *pd = status == GSL_SUCCESS;
    free(A);
    return 0;
}
