/*
 * The refined mean field of order 1/N^2 (Gast, Bortolussi and Tribastone 2019, "Size
 * expansions of mean field approximation: transient and steady-state analysis"; the algorithm
 * of rmf_tool's refinedRefined_fixedPoint.py, ported to the structure of a pool).
 *
 * The chain: the fraction q_k of servers holding >= k jobs jumps by +e_k/N at rate
 * N lambda (phi(q_{k-1}) - phi(q_k)) (an arrival joins level k) and by -e_k/N at rate
 * N mu (q_k - q_{k+1}) (a departure), with phi = phi0 + phi1/N + phi2/N^2 the probability that
 * every sampled server holds >= k jobs (power-of-d: phi0 = x^d; distinct sampling adds phi1,
 * phi2, see below). With Y = X - q* and the moments
 *   E[Y] = V/N + A/N^2,  E[Y Y] = W/N + B/N^2,  E[Y Y Y] = C/N^2,  E[Y^4] = D/N^2,
 * the steady-state generator equations E[L h(X)] = 0 for h = y_i, y_i y_j, y_i y_j y_k,
 * y_i y_j y_k y_l give, order by order (F', F'', F''' the derivatives of the drift f0, f1 the
 * 1/N drift, Q the jump covariance, Q' its derivative, all at q*):
 *   F' W + W F'^T + Q = 0                                            (the Lyapunov solution W)
 *   F' V = -(F'':W/2 + f1)
 *   D = 3 sym(W (x) W)   (D_ijkl = W_ij W_kl + W_ik W_jl + W_il W_jk, solves L4 D = -6 sym(Q W))
 *   L3 C = -3 sym(F'':D/2 + Q (x) V + Q'.W + f1 (x) W)                 (R = 0 at q*)
 *   F' B + B F'^T = -(sym F'':C + sym F''':D/3 + Q'.V + Q'':W/2 + f1 V^T + V f1^T
 *                     + F1' W + W F1'^T + Q1)
 *   F' A = -(F'':B/2 + F''':C/6 + F'''':D/24 + F1' V + F1'':W/2 + f2)
 * where L3 is F' acting on each index of a 3-tensor. Every derivative of the drift of order
 * >= 2 is separable: d^m f_k / dq_j^m = lambda phi^(m)(q_j) (delta_{k,j+1} - delta_{k,j}), so
 * the contractions cost O(n^3) and the only O(n^4) step is L3: with the real Schur form
 * F' = Z T Z^T (triangular: the eigenvalues of this tridiagonal F' are real) the equations
 * for W, B, C and A become triangular in the Schur basis (Bartels-Stewart).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>

#include "solver/pool.h"

/* The Schur form is accepted when ||Z T Z^T - J||_max <= this * ||J||_max. */
#define SCHUR_RESIDUAL_MAX 1e-10

/* c x^p's m-th derivative (0 where the power is exhausted, 0^0 = 1). */
static double mono_deriv(double c, double p, int m, double x)
{
    double k = c;
    int i;
    for (i = 0; i < m; i++) {
        k *= p - (double)i;
        if (k == 0.0)
            return 0.0;
    }
    return k * pow(x, p - (double)m);
}

/*
 * phi0 = x^d; with d distinct servers out of N (Sd1 = sum_{j<d} j, Sd2 = sum_{j<d} j^2),
 * prod_{j<d} (N x - j)/(N - j) = x^d exp(Sd1 (1 - 1/x)/N + Sd2 (1 - 1/x^2)/(2 N^2) + ...):
 *   phi1 = Sd1 (x^d - x^(d-1)),
 *   phi2 = Sd1^2/2 (x^d - 2 x^(d-1) + x^(d-2)) + Sd2/2 (x^d - x^(d-2)).
 * out[o][m] = the m-th derivative of phi_o at x (o = 0, 1, 2; m = 0..4).
 */
static void phi_eval(const ac_solver_pool_model *m, double x, double out[3][5])
{
    double d = m->d, s1 = 0.5 * d * (d - 1.0), s2 = (d - 1.0) * d * (2.0 * d - 1.0) / 6.0;
    int k;
    for (k = 0; k < 5; k++) {
        out[0][k] = mono_deriv(1.0, d, k, x);
        out[1][k] = 0.0;
        out[2][k] = 0.0;
        if (m->distinct) {
            out[1][k] = mono_deriv(s1, d, k, x) - mono_deriv(s1, d - 1.0, k, x);
            out[2][k] = mono_deriv(0.5 * s1 * s1 + 0.5 * s2, d, k, x) -
                        mono_deriv(s1 * s1, d - 1.0, k, x) +
                        mono_deriv(0.5 * s1 * s1 - 0.5 * s2, d - 2.0, k, x);
        }
    }
}

/* (E v)_k = lambda (v_{k-1} - v_k), v_{-1} = 0: how a separable term enters the drift. */
static double ediff(double lambda, const double *v, size_t k)
{
    return lambda * ((k > 0 ? v[k - 1] : 0.0) - v[k]);
}

/* x <- G applied on index `mode` of a tensor of `order` indices of n (row-major):
 * x'[..a..] = sum_b G_ab x[..b..]; Gt = G^T (both row-major, n x n). Inner loops are axpys
 * on contiguous rows. */
static void mode_mul(size_t n, size_t order, size_t mode, const double *G, const double *Gt,
                     double *x, double *tmp)
{
    size_t outer = 1, inner = 1, i, a, b, c;
    for (i = 0; i < mode; i++)
        outer *= n;
    for (i = mode + 1; i < order; i++)
        inner *= n;
    for (i = 0; i < outer; i++) {
        double *restrict xb = x + i * n * inner;
        memset(tmp, 0, n * inner * sizeof *tmp);
        if (inner == 1) {
            for (b = 0; b < n; b++) {
                const double *g = Gt + b * n;
                double xv = xb[b];
                for (a = 0; a < n; a++)
                    tmp[a] += g[a] * xv;
            }
        } else {
            for (a = 0; a < n; a++) {
                double *restrict o = tmp + a * inner;
                for (b = 0; b < n; b++) {
                    const double *restrict xr = xb + b * inner;
                    double g = G[a * n + b];
                    for (c = 0; c < inner; c++)
                        o[c] += g * xr[c];
                }
            }
        }
        memcpy(xb, tmp, n * inner * sizeof *tmp);
    }
}

/*
 * Solve sum over the indices of J acting on one index of X = R, for a tensor of `order`
 * (1..3) indices of n, in place on R (row-major). With J = Z T Z^T: R is rotated into the
 * Schur basis (Z^T on every index), solved by back substitution on the triangular T
 * (sum_i T_{s_i s_i} on the diagonal, the terms of larger index already known), and rotated
 * back (Z on every index).
 */
static void kron_sum_solve(size_t n, size_t order, const gsl_matrix *T, const double *Z,
                           const double *Zt, int back, double *x, double *tmp)
{
    size_t mode, total = 1, idx, s[3] = {0, 0, 0}, st[3] = {1, 1, 1}, i, tda = T->tda;
    const double *t = T->data;
    for (mode = 0; mode < order; mode++)
        mode_mul(n, order, mode, Zt, Z, x, tmp);
    for (i = 0; i < order; i++)
        total *= n;
    for (i = order; i-- > 1;)
        st[i - 1] = st[i] * n;
    for (idx = total; idx-- > 0;) {
        double v, diag = 0.0;
        size_t r = idx;
        for (i = order; i-- > 0;) {
            s[i] = r % n;
            r /= n;
        }
        v = x[idx];
        for (i = 0; i < order; i++) {
            const double *row = t + s[i] * tda;
            const double *xs = x + idx - s[i] * st[i];
            size_t c;
            diag += row[s[i]];
            for (c = s[i] + 1; c < n; c++)
                v -= row[c] * xs[c * st[i]];
        }
        x[idx] = v / diag;
    }
    for (mode = 0; back && mode < order; mode++)
        mode_mul(n, order, mode, Z, Zt, x, tmp);
}

/* C2[j m] = C[j j m] from the Schur-basis C~ (C = C~ rotated by Z on every index):
 * C[j j m] = sum_c Z_mc G_jc, G_jc = sum_ab Z_ja Z_jb C~_abc (O(n^4), a third of the full
 * rotation back). */
static void c_pairs(size_t n, const double *Z, const double *Ct, double *C2, double *tmp)
{
    size_t j, a, b, c, mm;
    double *G = tmp, *M = tmp + n * n;
    for (j = 0; j < n; j++) {
        const double *z = Z + j * n;
        memset(M, 0, n * n * sizeof *M);
        for (a = 0; a < n; a++) {
            const double *ca = Ct + a * n * n;
            for (b = 0; b < n * n; b++)
                M[b] += z[a] * ca[b];
        }
        for (c = 0; c < n; c++)
            G[j * n + c] = 0.0;
        for (b = 0; b < n; b++)
            for (c = 0; c < n; c++)
                G[j * n + c] += z[b] * M[b * n + c];
    }
    for (j = 0; j < n; j++)
        for (mm = 0; mm < n; mm++) {
            double v = 0.0;
            for (c = 0; c < n; c++)
                v += G[j * n + c] * Z[mm * n + c];
            C2[j * n + mm] = v;
        }
}

/* Real Schur form J = Z T Z^T with T upper triangular; 1 when T has a 2 x 2 block (complex
 * eigenvalues) or the decomposition does not reproduce J. */
static int schur(size_t n, const double *J, gsl_matrix *T, gsl_matrix *Z, ac_error *err)
{
    gsl_eigen_nonsymm_workspace *w = gsl_eigen_nonsymm_alloc(n);
    gsl_vector_complex *ev = gsl_vector_complex_alloc(n);
    gsl_matrix *P = gsl_matrix_alloc(n, n), *R = gsl_matrix_alloc(n, n);
    double jmax = 0.0, rmax = 0.0;
    size_t i, j;
    int rc = 0;
    if (w == NULL || ev == NULL || P == NULL || R == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (Schur form of %zu)", n);
        goto cleanup;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            gsl_matrix_set(T, i, j, J[i * n + j]);
    gsl_eigen_nonsymm_params(1, 0, w);
    if (gsl_eigen_nonsymm_Z(T, ev, Z, w) != GSL_SUCCESS) {
        rc = 1;
        goto cleanup;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++) {
            if (j + 1 == i && gsl_matrix_get(T, i, j) != 0.0) {
                rc = 1;
                goto cleanup;
            }
            gsl_matrix_set(T, i, j, 0.0);
        }
    gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, Z, T, 0.0, P);
    gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, P, Z, 0.0, R);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            jmax = fmax(jmax, fabs(J[i * n + j]));
            rmax = fmax(rmax, fabs(gsl_matrix_get(R, i, j) - J[i * n + j]));
        }
    if (!(rmax <= SCHUR_RESIDUAL_MAX * jmax))
        rc = 1;
cleanup:
    gsl_eigen_nonsymm_free(w);
    gsl_vector_complex_free(ev);
    gsl_matrix_free(P);
    gsl_matrix_free(R);
    return rc;
}

/* Workspace of one 1/N^2 computation on n levels. */
typedef struct r2_work {
    size_t n;
    double lambda, mu;
    double *ph; /* ph[(o * 5 + m) * n + j]: m-th derivative of phi_o at q_j */
    double *Qd; /* the diagonal of Q */
    double *P;  /* Q'_kk = P_k . : P = J + 2 M (M the departures' Jacobian), n x n */
    double *f1, *F, *W, *V, *Je, *e2; /* f1, F = F'':W; J, W and V on the n levels */
    double *C, *C2, *B, *tmp;         /* C (Schur basis), C2_jm = C_jjm, B */
    double *Zd, *Zt;                  /* the Schur vectors Z and Z^T, row-major */
    gsl_matrix *T, *Z;
} r2_work;

#define PH(w, o, m, j) ((w)->ph[((size_t)(o)*5 + (size_t)(m)) * (w)->n + (j)])

/* RHS of L3 C: -3 sym(Y), Y_ilm = F''D/2 + Q_il V_m + (Q'W)_ilm + f1_i W_lm, into w->C. */
static void c_rhs(r2_work *w)
{
    size_t n = w->n, i, l, mm;
    const double *W = w->W, *V = w->V, *F = w->F;
    double *Y = w->tmp;
    for (i = 0; i < n; i++)
        for (l = 0; l < n; l++)
            for (mm = 0; mm < n; mm++) {
                /* F''D_ilm = F_i W_lm + 2 lambda sum_j E_ij phi''_j W_jl W_jm */
                double g = -PH(w, 0, 2, i) * W[i * n + l] * W[i * n + mm];
                double y;
                if (i > 0)
                    g += PH(w, 0, 2, i - 1) * W[(i - 1) * n + l] * W[(i - 1) * n + mm];
                y = 0.5 * (F[i] * W[l * n + mm] + 2.0 * w->lambda * g);
                y += w->f1[i] * W[l * n + mm];
                if (i == l)
                    y += w->Qd[i] * V[mm];
                if (i == l) {
                    size_t k;
                    for (k = 0; k < n; k++)
                        y += w->P[i * n + k] * W[k * n + mm];
                }
                Y[(i * n + l) * n + mm] = y;
            }
    for (i = 0; i < n; i++)
        for (l = 0; l < n; l++)
            for (mm = 0; mm < n; mm++)
                w->C[(i * n + l) * n + mm] =
                    -0.5 *
                    (Y[(i * n + l) * n + mm] + Y[(i * n + mm) * n + l] + Y[(l * n + i) * n + mm] +
                     Y[(l * n + mm) * n + i] + Y[(mm * n + i) * n + l] + Y[(mm * n + l) * n + i]);
}

/* RHS of J B + B J^T: -(X + X^T) - diag(Q'.V + Q'':W/2 + Q1), X = (F''C + F'''D/3)/2
 * + F1' W + f1 V^T (F''C and F'''D/3 enter as their symmetric parts), into w->B. */
static void b_rhs(r2_work *w)
{
    size_t n = w->n, i, mm, k;
    const double *W = w->W, *V = w->V, *F = w->F;
    double *X = w->tmp, lam = w->lambda;
    for (i = 0; i < n; i++)
        for (mm = 0; mm < n; mm++) {
            double x =
                -PH(w, 0, 2, i) * w->C2[i * n + mm] - PH(w, 0, 3, i) * W[i * n + i] * W[i * n + mm];
            double x1 = -PH(w, 1, 1, i) * W[i * n + mm];
            if (i > 0) {
                x += PH(w, 0, 2, i - 1) * w->C2[(i - 1) * n + mm] +
                     PH(w, 0, 3, i - 1) * W[(i - 1) * n + i - 1] * W[(i - 1) * n + mm];
                x1 += PH(w, 1, 1, i - 1) * W[(i - 1) * n + mm];
            }
            X[i * n + mm] = lam * (0.5 * x + x1) + w->f1[i] * V[mm];
        }
    for (i = 0; i < n; i++)
        for (mm = 0; mm < n; mm++) {
            double b = -(X[i * n + mm] + X[mm * n + i]);
            if (i == mm) {
                double pv = 0.0;
                for (k = 0; k < n; k++)
                    pv += w->P[i * n + k] * V[k];
                b -= pv + 0.5 * F[i] + w->f1[i];
            }
            w->B[i * n + mm] = b;
        }
}

static void r2_work_free(r2_work *w)
{
    free(w->ph);
    free(w->Qd);
    free(w->P);
    free(w->f1);
    free(w->F);
    free(w->W);
    free(w->V);
    free(w->Je);
    free(w->e2);
    free(w->C);
    free(w->C2);
    free(w->B);
    free(w->tmp);
    free(w->Zd);
    free(w->Zt);
    gsl_matrix_free(w->T);
    gsl_matrix_free(w->Z);
}

static int r2_work_alloc(r2_work *w, size_t n, ac_error *err)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->ph = malloc(15 * n * sizeof *w->ph);
    w->Qd = malloc(n * sizeof *w->Qd);
    w->P = malloc(n * n * sizeof *w->P);
    w->f1 = malloc(n * sizeof *w->f1);
    w->F = malloc(n * sizeof *w->F);
    w->W = malloc(n * n * sizeof *w->W);
    w->V = malloc(n * sizeof *w->V);
    w->Je = malloc(n * n * sizeof *w->Je);
    w->e2 = malloc(n * sizeof *w->e2);
    w->C = malloc(n * n * n * sizeof *w->C);
    w->C2 = malloc(n * n * sizeof *w->C2);
    w->B = malloc(n * n * sizeof *w->B);
    /* n^3 for the tensor modes, 2 n^2 for c_pairs' G and M (more than n^3 when n = 1) */
    w->tmp = malloc((n * n * n + 2 * n * n) * sizeof *w->tmp);
    w->Zd = malloc(n * n * sizeof *w->Zd);
    w->Zt = malloc(n * n * sizeof *w->Zt);
    w->T = gsl_matrix_alloc(n, n);
    w->Z = gsl_matrix_alloc(n, n);
    if (w->ph == NULL || w->Qd == NULL || w->P == NULL || w->f1 == NULL || w->F == NULL ||
        w->W == NULL || w->V == NULL || w->Je == NULL || w->e2 == NULL || w->C == NULL ||
        w->C2 == NULL || w->B == NULL || w->tmp == NULL || w->Zd == NULL || w->Zt == NULL ||
        w->T == NULL || w->Z == NULL) {
        r2_work_free(w);
        return ac_error_set(err, AC_ENOMEM, "out of memory (1/N^2 term on %zu levels)", n);
    }
    return 0;
}

/* Fill the workspace at q on ne levels: phi's derivatives, Q, Q', f1, F = F'':W, and the
 * restrictions of J, W and V. */
static void r2_setup(r2_work *w, const ac_solver_pool_model *m, const double *q, const double *J,
                     const double *Wn, const double *Vn)
{
    size_t n = m->n, ne = w->n, i, j, o, k;
    w->lambda = m->lambda + m->extra;
    w->mu = m->mu;
    for (j = 0; j < ne; j++) {
        double p[3][5];
        phi_eval(m, q[j], p);
        for (o = 0; o < 3; o++)
            for (k = 0; k < 5; k++)
                PH(w, o, k, j) = p[o][k];
    }
    for (i = 0; i < ne; i++) {
        double a = (i > 0 ? PH(w, 0, 0, i - 1) : 1.0) - PH(w, 0, 0, i);
        double qn = i + 1 < n ? q[i + 1] : 0.0;
        w->V[i] = Vn[i];
        for (j = 0; j < ne; j++)
            w->W[i * ne + j] = Wn[i * n + j];
        w->Qd[i] = w->lambda * a + w->mu * (q[i] - qn);
        w->f1[i] = ediff(w->lambda, &PH(w, 1, 0, 0), i);
    }
    for (i = 0; i < ne; i++) {
        w->F[i] = w->lambda * ((i > 0 ? PH(w, 0, 2, i - 1) * w->W[(i - 1) * ne + i - 1] : 0.0) -
                               PH(w, 0, 2, i) * w->W[i * ne + i]);
        for (j = 0; j < ne; j++) {
            double mij = (i == j ? w->mu : 0.0) - (i + 1 == j ? w->mu : 0.0);
            w->Je[i * ne + j] = J[i * n + j];
            w->P[i * ne + j] = J[i * n + j] + 2.0 * mij;
        }
    }
}

/* A: J A = -(F'':B/2 + F''':C/6 + F'''':D/24 + F1' V + F1'':W/2 + f2) = -E e2, with e2_j
 * (phi'_j A_j added after the solve) the 1/N^2 term of E[phi_N(X_j)]; aa = the arrival
 * law's 1/N^2 term, e2_{k-1} - e2_k. */
static void a_solve(r2_work *w, double *A, double *aa)
{
    size_t ne = w->n, i, j;
    double *e2 = w->e2;
    for (j = 0; j < ne; j++) {
        double Wjj = w->W[j * ne + j];
        e2[j] = 0.5 * PH(w, 0, 2, j) * w->B[j * ne + j] + PH(w, 0, 3, j) * w->C2[j * ne + j] / 6.0 +
                PH(w, 0, 4, j) * Wjj * Wjj / 8.0 + PH(w, 1, 1, j) * w->V[j] +
                0.5 * PH(w, 1, 2, j) * Wjj + PH(w, 2, 0, j);
    }
    for (i = 0; i < ne; i++)
        A[i] = -ediff(w->lambda, e2, i);
    kron_sum_solve(ne, 1, w->T, w->Zd, w->Zt, 1, A, w->tmp);
    for (j = 0; j < ne; j++)
        e2[j] += PH(w, 0, 1, j) * A[j];
    for (i = 0; i < ne; i++)
        aa[i] = ediff(1.0, e2, i);
}

int ac_solver_refine2(const ac_solver_pool_model *m, const double *q, size_t ne, const double *J,
                      const double *W, const double *V, double *A, double *aa, ac_error *err)
{
    r2_work w;
    size_t n = m->n, i, j;
    int rc;
    if (m->policy != &ac_solver_policy_power_of_d || m->retries > 0 || ne == 0 || ne > n)
        return 1;
    rc = r2_work_alloc(&w, ne, err);
    if (rc < 0)
        return rc;
    r2_setup(&w, m, q, J, W, V);
    rc = schur(ne, w.Je, w.T, w.Z, err);
    if (rc != 0)
        goto cleanup;
    for (i = 0; i < ne; i++)
        for (j = 0; j < ne; j++) {
            w.Zd[i * ne + j] = gsl_matrix_get(w.Z, i, j);
            w.Zt[j * ne + i] = w.Zd[i * ne + j];
        }
    c_rhs(&w);
    kron_sum_solve(ne, 3, w.T, w.Zd, w.Zt, 0, w.C, w.tmp);
    c_pairs(ne, w.Zd, w.C, w.C2, w.tmp);
    b_rhs(&w);
    kron_sum_solve(ne, 2, w.T, w.Zd, w.Zt, 1, w.B, w.tmp);
    a_solve(&w, A, aa);
    for (i = ne; i < n; i++) {
        A[i] = 0.0;
        aa[i] = 0.0;
    }
    for (i = 0; i < n; i++)
        if (!isfinite(A[i]) || !isfinite(aa[i]))
            rc = 1;
cleanup:
    r2_work_free(&w);
    return rc;
}
