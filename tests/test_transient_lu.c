/*
 * The transient's numeric LU refactorisation in KLU's pivot order (solver/transient_lu.c):
 *   - random sparse iteration matrices I - gamma J (n 1 .. 60, 2% to 30% dense, KLU's
 *     analysis and pivoting factorisation giving the order, as in transient_driver.c):
 *     the solution of A x = b against GSL's dense LU (partial pivoting) within 1e-8 of
 *     |x|_inf, the residual |A x - b|_inf within 1e-11 |A|_inf |x|_inf, and the worst of
 *     each within a small factor of KLU's own solve's worst in the same orders (klu_l_solve:
 *     threshold pivoting allows growth, GSL's partial pivoting is the reference); then again
 *     after new values on the same pattern with a third of J's entries set to 0 (the zero
 *     multipliers skipped) in the old order (KLU by klu_l_refactor), then with 80% of J 0
 *     and with none (the packed factors' rows shrinking and growing back; at least 550 of
 *     those 600 refactorisations keep the order and are checked). Some of the matrices
 *     have several diagonal blocks and blocks larger than 1 (asserted);
 *   - singular pivots, exactly: a zero pivot (structural and by cancellation), a pivot below
 *     1e-14 of its row, and the rcond test at uround^(2/3) (1e-12 refused, 1e-10 accepted);
 *   - refused orders: a repeated or out-of-range row or column, a malformed pattern
 *     (AC_EINVAL), after which factor refuses too.
 */
#include "helpers.h"

#include <gsl/gsl_linalg.h>
#include <klu.h>

#include "archcheck/error.h"
#include "solver/transient_lu.h"

static unsigned long long g_seed = 777;

static double rnd(void)
{
    g_seed = g_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g_seed >> 11) / 9007199254740992.0;
}

/* A compressed-column matrix from a dense one (entries where mask). */
typedef struct csc {
    int64_t n, *Ap, *Ai;
    double *Ax;
} csc;

static void csc_from(csc *m, const double *dense, const unsigned char *mask, int64_t n)
{
    int64_t p = 0;
    m->n = n;
    m->Ap = calloc((size_t)n + 1, sizeof *m->Ap);
    m->Ai = calloc((size_t)(n * n) + 1, sizeof *m->Ai);
    m->Ax = calloc((size_t)(n * n) + 1, sizeof *m->Ax);
    assert_true(m->Ap && m->Ai && m->Ax);
    for (int64_t j = 0; j < n; j++) {
        m->Ap[j] = p;
        for (int64_t i = 0; i < n; i++)
            if (mask[i * n + j]) {
                m->Ai[p] = i;
                m->Ax[p++] = dense[i * n + j];
            }
    }
    m->Ap[n] = p;
}

static void csc_free(csc *m)
{
    free(m->Ap), free(m->Ai), free(m->Ax);
}

/* x = A^-1 b by GSL's dense LU (A row-major n x n, copied). */
static void gsl_solve(const double *a, const double *b, double *x, size_t n)
{
    double *copy = malloc(n * n * sizeof *copy);
    gsl_permutation *p = gsl_permutation_alloc(n);
    int signum;
    assert_true(copy && p);
    memcpy(copy, a, n * n * sizeof *copy);
    memcpy(x, b, n * sizeof *x);
    gsl_matrix_view mv = gsl_matrix_view_array(copy, n, n);
    gsl_vector_view xv = gsl_vector_view_array(x, n);
    assert_int_equal(gsl_linalg_LU_decomp(&mv.matrix, p, &signum), 0);
    assert_int_equal(gsl_linalg_LU_svx(&mv.matrix, p, &xv.vector), 0);
    gsl_permutation_free(p);
    free(copy);
}

/* |A x - b|_inf; *amax = |A|_inf. */
static double residual(const double *a, const double *x, const double *b, size_t n, double *amax)
{
    double res = 0.0;
    *amax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = -b[i], rowsum = 0.0;
        for (size_t j = 0; j < n; j++) {
            r += a[i * n + j] * x[j];
            rowsum += fabs(a[i * n + j]);
        }
        res = fmax(res, fabs(r));
        *amax = fmax(*amax, rowsum);
    }
    return res;
}

/* The worst relative residuals |A x - b| / (|A| |x|) so far, lu's and KLU's; the worst
 * relative distances to GSL's x, lu's and KLU's. */
static double g_worst, g_worst_klu, g_err, g_err_klu;

/* Solve with lu: against GSL's x within 1e-8 of |x| (KLU's own: 1.7e-10 at worst on these
 * matrices, some with condition numbers near 1e6); the relative residual within 1e-11
 * (threshold pivoting's growth: KLU's own solve in the same order, klu_l_solve on num,
 * reaches 2.1e-11 on these matrices, GSL's partial pivoting 9e-16), its worst kept. */
static void check_solve(ac_solver_tr_lu *lu, const double *a, size_t n, klu_l_symbolic *sym,
                        klu_l_numeric *num, klu_l_common *common)
{
    double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *xr = malloc(n * sizeof *xr);
    double *xk = malloc(n * sizeof *xk), xmax = 0.0, amax, err = 0.0, err_klu = 0.0, res, res_klu;
    assert_true(b && x && xr && xk);
    for (size_t i = 0; i < n; i++)
        xk[i] = x[i] = b[i] = 2.0 * rnd() - 1.0;
    ac_solver_tr_lu_solve(lu, x);
    gsl_solve(a, b, xr, n);
    assert_int_equal(klu_l_solve(sym, num, (int64_t)n, 1, xk, common), 1);
    for (size_t i = 0; i < n; i++) {
        xmax = fmax(xmax, fabs(xr[i]));
        err = fmax(err, fabs(x[i] - xr[i]));
        err_klu = fmax(err_klu, fabs(xk[i] - xr[i]));
    }
    res = residual(a, x, b, n, &amax);
    res_klu = residual(a, xk, b, n, &amax);
    assert_true(err <= 1e-8 * xmax);
    g_err = fmax(g_err, err / xmax);
    g_err_klu = fmax(g_err_klu, err_klu / xmax);
    assert_true(res <= 1e-11 * amax * xmax);
    g_worst = fmax(g_worst, res / (amax * xmax));
    g_worst_klu = fmax(g_worst_klu, res_klu / (amax * xmax));
    free(b), free(x), free(xr), free(xk);
}

/* A = I - gamma J on mask's pattern (J's entries: 0 where zero_frac says). */
static void iteration_matrix(double *a, const unsigned char *mask, size_t n, double zero_frac)
{
    double gamma = pow(10.0, -3.0 + 3.0 * rnd());
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double jij = mask[i * n + j] && rnd() >= zero_frac ? 20.0 * rnd() - 10.0 : 0.0;
            a[i * n + j] = (i == j ? 1.0 : 0.0) - gamma * jij;
        }
}

static void test_random_against_gsl(void **state)
{
    int multi_block = 0, big_block = 0, refactored = 0, repacked = 0;
    (void)state;
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 1 + (size_t)(60.0 * rnd());
        double density = 0.02 + 0.28 * rnd();
        unsigned char *mask = calloc(n * n, 1);
        double *a = calloc(n * n, sizeof *a);
        csc m;
        klu_l_common common;
        klu_l_symbolic *sym;
        klu_l_numeric *num;
        ac_solver_tr_lu *lu = ac_solver_tr_lu_new(n);
        assert_true(mask && a && lu);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                mask[i * n + j] = i == j || rnd() < density;
        iteration_matrix(a, mask, n, 0.0);
        csc_from(&m, a, mask, (int64_t)n);
        klu_l_defaults(&common);
        sym = klu_l_analyze(m.n, m.Ap, m.Ai, &common);
        assert_non_null(sym);
        num = klu_l_factor(m.Ap, m.Ai, m.Ax, sym, &common);
        assert_non_null(num);
        multi_block |= sym->nblocks > 1;
        big_block |= sym->nblocks > 1 && sym->maxblock > 1;
        assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, num->Pnum, sym->Q), 0);
        assert_int_equal(ac_solver_tr_lu_factor(lu, m.Ax), 0);
        check_solve(lu, a, n, sym, num, &common);
        /* new values on the pattern, a third of J zero: the old order; then 80% zero and
         * none (the packed factors' rows shrink, then grow back to the whole pattern) */
        for (int f = 0; f < 3; f++) {
            iteration_matrix(a, mask, n, (const double[]){1.0 / 3.0, 0.8, 0.0}[f]);
            csc_free(&m);
            csc_from(&m, a, mask, (int64_t)n);
            if (ac_solver_tr_lu_factor(lu, m.Ax) == 0) { /* KLU's refactorisation, same order */
                assert_int_equal(klu_l_refactor(m.Ap, m.Ai, m.Ax, sym, num, &common), 1);
                check_solve(lu, a, n, sym, num, &common);
                refactored += f == 0;
                repacked += f > 0;
            }
        }
        klu_l_free_numeric(&num, &common);
        klu_l_free_symbolic(&sym, &common);
        ac_solver_tr_lu_free(lu);
        csc_free(&m);
        free(mask), free(a);
    }
    assert_true(multi_block);
    assert_true(big_block);
    assert_true(refactored >= 250); /* of 300: the old order mostly holds */
    assert_true(repacked >= 550);   /* of 600 (measured: 594) */
    /* as accurate as KLU in the same orders (measured: worst 5.6e-12 against KLU's 2.1e-11) */
    assert_true(g_worst <= 2.0 * g_worst_klu);
    /* and as close to GSL's (measured: worst 7.6e-11 against KLU's 1.7e-10) */
    assert_true(g_err <= 4.0 * g_err_klu);
}

/* Factor the dense 2 x 2 or 3 x 3 matrix a (every entry in the pattern unless zero and
 * off the diagonal) in the identity order. */
static int factor_identity(const double *a, size_t n)
{
    unsigned char mask[9];
    int64_t id[3] = {0, 1, 2};
    csc m;
    ac_solver_tr_lu *lu = ac_solver_tr_lu_new(n);
    int rc;
    for (size_t k = 0; k < n * n; k++)
        mask[k] = a[k] != 0.0 || k % (n + 1) == 0;
    csc_from(&m, a, mask, (int64_t)n);
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, id, id), 0);
    rc = ac_solver_tr_lu_factor(lu, m.Ax);
    ac_solver_tr_lu_free(lu);
    csc_free(&m);
    return rc;
}

static void test_singular_pivots(void **state)
{
    (void)state;
    /* a zero on the diagonal in this order (the swap KLU would make is refused here) */
    assert_int_equal(factor_identity((const double[]){0.0, 1.0, 1.0, 0.0}, 2), 1);
    /* cancellation: the second pivot 1 - 1 = 0 */
    assert_int_equal(factor_identity((const double[]){1.0, 1.0, 1.0, 1.0}, 2), 1);
    /* a pivot 1e-16 of its row (1 - (1 - 1e-16)) refused; 1e-6 accepted */
    assert_int_equal(factor_identity((const double[]){1.0, 1.0, 1.0, 1.0 + 2.2e-16}, 2), 1);
    assert_int_equal(factor_identity((const double[]){1.0, 1.0, 1.0, 1.0 + 1e-6}, 2), 0);
    /* rcond: min |u_kk| / max |u_kk| = 1e-12 < uround^(2/3) = 3.7e-11 refused, 1e-10 not */
    assert_int_equal(factor_identity((const double[]){1.0, 0.0, 0.0, 1e-12}, 2), 1);
    assert_int_equal(factor_identity((const double[]){1.0, 0.0, 0.0, 1e-10}, 2), 0);
    /* not finite */
    assert_int_equal(factor_identity((const double[]){1.0, 0.0, 0.0, NAN}, 2), 1);
    /* a 3 x 3 that needs no pivoting in this order: accepted */
    assert_int_equal(
        factor_identity((const double[]){4.0, 1.0, 0.0, 1.0, 4.0, 1.0, 0.0, 1.0, 4.0}, 3), 0);
}

static void test_refused_orders(void **state)
{
    static const double a[] = {2.0, 1.0, 1.0, 3.0};
    static const unsigned char mask[] = {1, 1, 1, 1};
    int64_t id[2] = {0, 1}, dup[2] = {1, 1}, out[2] = {0, 2}, neg[2] = {-1, 0};
    csc m;
    ac_solver_tr_lu *lu = ac_solver_tr_lu_new(2);
    (void)state;
    assert_non_null(lu);
    csc_from(&m, a, mask, 2);
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, dup, id), AC_EINVAL);
    assert_int_equal(ac_solver_tr_lu_factor(lu, m.Ax), AC_EINVAL);
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, id, dup), AC_EINVAL);
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, out, id), AC_EINVAL);
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, id, neg), AC_EINVAL);
    m.Ai[1] = 5; /* a row out of range */
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, id, id), AC_EINVAL);
    m.Ai[1] = 1;
    /* a valid order after the refused ones works: x = A^-1 (1, 1) = (0.4, 0.2) */
    assert_int_equal(ac_solver_tr_lu_order(lu, m.Ap, m.Ai, id, id), 0);
    assert_int_equal(ac_solver_tr_lu_factor(lu, m.Ax), 0);
    {
        double x[2] = {1.0, 1.0};
        ac_solver_tr_lu_solve(lu, x);
        assert_double_close(x[0], 0.4, 1e-15, 0.0);
        assert_double_close(x[1], 0.2, 1e-15, 0.0);
    }
    ac_solver_tr_lu_free(NULL);
    ac_solver_tr_lu_free(lu);
    csc_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_gsl),
        cmocka_unit_test(test_singular_pivots),
        cmocka_unit_test(test_refused_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
