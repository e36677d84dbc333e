/*
 * The equilibrium alone (ac_solver_pool_equilibrium) against the full solve and the closed
 * forms; the tridiagonal + rank-one solve of Newton with retries (ac_solver_tr1) against
 * GSL's dense LU.
 */
#include "helpers.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>

#include "archcheck/solver.h"
#include "solver/pool.h"

#include "solver_pool.h"

/* ac_solver_pool_equilibrium of (p, rate, opt): 0 expected; *dim the dimension */
static double *equilibrium_ok(const ac_pool *p, double rate, const ac_solver_options *opt,
                              size_t *dim)
{
    double *q = NULL;
    ac_error err = {0};
    int rc = ac_solver_pool_equilibrium(p, rate, opt, &q, dim, &err);
    if (rc != 0)
        print_error("equilibrium failed: %d %s\n", rc, err.message);
    assert_int_equal(rc, 0);
    return q;
}

/* The equilibrium alone is the full solve's operating equilibrium bit for bit; returns the
 * full solve's found_from bits. */
static unsigned same_as_solve(const ac_pool *p, double rate, const ac_solver_options *opt)
{
    size_t dim = 0;
    double *q = equilibrium_ok(p, rate, opt, &dim);
    ac_solver_pool_result *r = solve_ok(p, rate, opt);
    const ac_solver_equilibrium *op = operating(r);
    unsigned from = op->found_from;
    assert_non_null(q);
    assert_int_equal(dim, op->dim);
    assert_int_equal(dim, r->truncation);
    assert_memory_equal(q, op->q, dim * sizeof *q);
    free(q);
    ac_solver_pool_result_free(r);
    return from;
}

/* max_k |q_k - rho^((d^k - 1)/(d - 1))| (power-of-d's fixed point, unbounded buffer) */
static double pod_closed_error(const double *q, size_t dim, double rho, double d)
{
    double e = 0.0;
    for (size_t k = 1; k <= dim; k++)
        e = fmax(e, fabs(q[k - 1] - pow(rho, (pow(d, (double)k) - 1.0) / (d - 1.0))));
    return e;
}

static void test_equilibrium_only(void **state)
{
    static const struct {
        unsigned d;
        size_t servers, buffer;
        double rho;
    } pods[] = {{2, 1000, 30, 0.9},
                {2, 100, AC_UNBOUNDED, 0.99},
                {3, 50, AC_UNBOUNDED, 0.95},
                {2, 1000, 200, 0.99},
                {5, 20, 12, 0.7}};
    (void)state;
    /* power-of-d: Newton from the closed form, which the full solve no longer follows by
       implicit Euler from empty (found from the closed form only) */
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) {
        ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, pods[i].servers, 1.0, pods[i].buffer);
        double rate = pods[i].rho * (double)pods[i].servers, *q;
        size_t dim;
        p.d = pods[i].d;
        assert_int_equal(same_as_solve(&p, rate, NULL), AC_SOLVER_FROM_CLOSED_FORM);
        q = equilibrium_ok(&p, rate, NULL, &dim);
        /* the buffer's or the truncation's boundary moves levels whose closed value is below
           1e-12 (rho^(2^k - 1) falls doubly exponentially): the fixed point within rounding */
        assert_true(pod_closed_error(q, dim, pods[i].rho, (double)pods[i].d) <= 1e-12);
        free(q);
    }
    {
        /* random: M/M/1 levels q_k = rho^k exactly */
        ac_pool p = make_pool(AC_DISPATCH_RANDOM, 10, 2.0, AC_UNBOUNDED);
        size_t dim;
        double *q;
        assert_int_equal(same_as_solve(&p, 0.8 * 20.0, NULL), AC_SOLVER_FROM_CLOSED_FORM);
        q = equilibrium_ok(&p, 0.8 * 20.0, NULL, &dim);
        for (size_t k = 1; k <= dim; k++)
            assert_double_close(q[k - 1], pow(0.8, (double)k), 1e-15, 1e-15);
        free(q);
    }
    {
        /* no closed form above rho = 1 with a finite buffer: implicit Euler from empty */
        ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 200, 1.0, 30);
        assert_int_equal(same_as_solve(&p, 1.2 * 200, NULL), AC_SOLVER_FROM_EMPTY);
        p = make_pool(AC_DISPATCH_JIQ, 50, 1.0, 20);
        assert_int_equal(same_as_solve(&p, 1.1 * 50, NULL), AC_SOLVER_FROM_EMPTY);
        assert_int_equal(same_as_solve(&p, 0.9 * 50, NULL), AC_SOLVER_FROM_CLOSED_FORM);
        p = make_pool(AC_DISPATCH_JSQ, 50, 1.0, 20);
        assert_int_equal(same_as_solve(&p, 0.9 * 50, NULL), AC_SOLVER_FROM_CLOSED_FORM);
    }
    {
        /* all_starts: the full solve meets the equilibrium from all three starts, the
           equilibrium alone (all_starts ignored) the same q from the closed form */
        ac_solver_options opt;
        ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 200, 1.0, 30);
        ac_solver_options_init(&opt);
        opt.all_starts = 1;
        assert_int_equal(same_as_solve(&p, 0.95 * 200, &opt),
                         AC_SOLVER_FROM_EMPTY | AC_SOLVER_FROM_FULL | AC_SOLVER_FROM_CLOSED_FORM);
    }
    {
        /* retries: monostable (light load) and bistable (models.md section 3's case: the
           operating equilibrium is the good one, the limit from empty) */
        ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 1000, 1.0, 40);
        ac_solver_pool_result *r;
        p.timeout = 8.0;
        p.retries = 2;
        assert_true(same_as_solve(&p, 300.0, NULL) & AC_SOLVER_FROM_EMPTY);
        assert_true(same_as_solve(&p, 700.0, NULL) & AC_SOLVER_FROM_EMPTY);
        r = solve_ok(&p, 700.0, NULL);
        assert_true(r->bistable);
        assert_int_equal(r->good, r->operating);
        ac_solver_pool_result_free(r);
        p = make_pool(AC_DISPATCH_RANDOM, 100, 1.0, 25);
        p.timeout = 5.0;
        p.retries = 1;
        assert_true(same_as_solve(&p, 80.0, NULL) & AC_SOLVER_FROM_EMPTY);
    }
    {
        /* shared queue: the exact chain's fluid state rho */
        ac_pool p = make_pool(AC_DISPATCH_SHARED_QUEUE, 10, 1.0, AC_UNBOUNDED);
        size_t dim;
        double *q;
        assert_int_equal(same_as_solve(&p, 7.0, NULL), AC_SOLVER_FROM_CLOSED_FORM);
        q = equilibrium_ok(&p, 7.0, NULL, &dim);
        assert_int_equal(dim, 1);
        assert_double_close(q[0], 0.7, 1e-15, 0.0);
        free(q);
    }
    {
        /* overload: no equilibrium; bad arguments refused like the full solve */
        ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 10, 1.0, AC_UNBOUNDED);
        ac_error err = {0};
        size_t dim = 7;
        double *q = equilibrium_ok(&p, 10.0, NULL, &dim);
        assert_null(q);
        assert_int_equal(dim, 0);
        assert_int_equal(ac_solver_pool_equilibrium(&p, -1.0, NULL, &q, &dim, &err), AC_EINVAL);
        assert_int_equal(ac_solver_pool_equilibrium(NULL, 1.0, NULL, &q, &dim, &err), AC_EINVAL);
        assert_int_equal(ac_solver_pool_equilibrium(&p, 1.0, NULL, NULL, &dim, &err), AC_EINVAL);
    }
}

/* x = A^-1 b by GSL's LU (A copied) into x, and cond_inf(A) = |A|_inf |A^-1|_inf */
static double lu_reference(size_t n, const double *A, const double *b, double *x)
{
    gsl_matrix *M = gsl_matrix_alloc(n, n), *Inv = gsl_matrix_alloc(n, n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    gsl_vector_const_view bv = gsl_vector_const_view_array(b, n);
    gsl_vector_view xv = gsl_vector_view_array(x, n);
    double na = 0.0, ni = 0.0;
    int sg;
    assert_non_null(M);
    assert_non_null(Inv);
    assert_non_null(perm);
    for (size_t i = 0; i < n; i++) {
        double ra = 0.0;
        for (size_t j = 0; j < n; j++) {
            gsl_matrix_set(M, i, j, A[i * n + j]);
            ra += fabs(A[i * n + j]);
        }
        na = fmax(na, ra);
    }
    assert_int_equal(gsl_linalg_LU_decomp(M, perm, &sg), GSL_SUCCESS);
    assert_int_equal(gsl_linalg_LU_solve(M, perm, &bv.vector, &xv.vector), GSL_SUCCESS);
    assert_int_equal(gsl_linalg_LU_invert(M, perm, Inv), GSL_SUCCESS);
    for (size_t i = 0; i < n; i++) {
        double ri = 0.0;
        for (size_t j = 0; j < n; j++)
            ri += fabs(gsl_matrix_get(Inv, i, j));
        ni = fmax(ni, ri);
    }
    gsl_matrix_free(M);
    gsl_matrix_free(Inv);
    gsl_permutation_free(perm);
    return na * ni;
}

/* A = T + u v^T (n x n, row-major) from T's diagonals */
static void tr1_dense(size_t n, const double *diag, const double *up, const double *low,
                      const double *u, const double *v, double *A)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            A[i * n + j] = u[i] * v[j] + (i == j       ? diag[i]
                                          : j == i + 1 ? up[i]
                                          : i == j + 1 ? low[j]
                                                       : 0.0);
}

/* ac_solver_tr1(A, b) against GSL's LU: 0 expected, max|x - x_lu| within the forward error
 * of a 1e-10 backward error (the residual tr1 accepts), cond_inf(A) 1e-10 max|x| (plus LU's
 * own, cond 1e-13); returns the relative difference */
static double tr1_against_lu(size_t n, const double *A, const double *b, const double *u,
                             const double *v)
{
    double *x = malloc(n * sizeof *x), *xl = malloc(n * sizeof *xl), d = 0.0, xm = 0.0, cond;
    double *work = malloc(AC_SOLVER_TR1_WORK(n) * sizeof *work);
    assert_non_null(x);
    assert_non_null(xl);
    assert_non_null(work);
    memcpy(x, b, n * sizeof *x);
    cond = lu_reference(n, A, b, xl);
    assert_int_equal(ac_solver_tr1(n, A, x, u, v, work), 0);
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(x[i] - xl[i]));
        xm = fmax(xm, fabs(xl[i]));
    }
    assert_true(d <= 2.0 * (1e-10 + 1e-13) * cond * xm);
    free(x);
    free(xl);
    free(work);
    return d / xm;
}

/* ac_solver_tr1_parts (T's diagonals, u, v) gives tr1's x within 1e-12 max|x| (the same
 * eliminations; T's diagonals taken from A differ by rounding) */
static void parts_against_dense(size_t n, const double *diag, const double *up, const double *low,
                                const double *u, const double *v, const double *b, const double *A)
{
    double d[100], du[100], dl[100], x[100], xp[100], work[AC_SOLVER_TR1_WORK(100)], e = 0.0,
                                                                                     xm = 0.0;
    memcpy(d, diag, n * sizeof *d);
    memcpy(du, up, n * sizeof *du);
    memcpy(dl, low, n * sizeof *dl);
    memcpy(x, b, n * sizeof *x);
    memcpy(xp, b, n * sizeof *xp);
    assert_int_equal(ac_solver_tr1(n, A, x, u, v, work), 0);
    assert_int_equal(ac_solver_tr1_parts(n, d, du, dl, u, v, xp, work), 0);
    for (size_t i = 0; i < n; i++) {
        e = fmax(e, fabs(x[i] - xp[i]));
        xm = fmax(xm, fabs(x[i]));
    }
    assert_true(e <= 1e-12 * xm);
}

static void test_tridiagonal_rank_one(void **state)
{
    static const size_t sizes[] = {2, 3, 7, 30, 100};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double diag[100], up[100], low[100], u[100], v[100], b[100], A[100 * 100], worst[2] = {0};
    (void)state;
    assert_non_null(rng);
    gsl_rng_set(rng, 14);
    for (int dominant = 1; dominant >= 0; dominant--) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (int rep = 0; rep < 20; rep++) {
                size_t n = sizes[s];
                for (size_t i = 0; i < n; i++) {
                    up[i] = gsl_rng_uniform(rng) * 2.0 - 1.0;
                    low[i] = gsl_rng_uniform(rng) * 2.0 - 1.0;
                    u[i] = gsl_rng_uniform(rng) * 2.0 - 1.0;
                    v[i] = gsl_rng_uniform(rng) * 2.0 - 1.0;
                    b[i] = gsl_rng_uniform(rng) * 2.0 - 1.0;
                    /* dominant: |T_ii| > 2 + the row's rank-one mass, else in [-1, 1] */
                    diag[i] = dominant ? (gsl_rng_uniform(rng) < 0.5 ? -1.0 : 1.0) *
                                             (2.5 + (double)n * fabs(u[i]))
                                       : gsl_rng_uniform(rng) * 2.0 - 1.0;
                }
                tr1_dense(n, diag, up, low, u, v, A);
                worst[dominant] = fmax(worst[dominant], tr1_against_lu(n, A, b, u, v));
                parts_against_dense(n, diag, up, low, u, v, b, A);
            }
        }
    }
    print_message("tr1 vs LU, max relative difference: dominant %.2e, non-dominant %.2e\n",
                  worst[1], worst[0]);
    /* the diagonally dominant cases are well conditioned: agreement to rounding */
    assert_true(worst[1] <= 1e-13);
    {
        /* singular A = T + u v^T (T regular): v = -z / |z|^2, z = T^-1 u, so that
           1 + v.z = 0; tr1 must refuse and leave b untouched */
        size_t n = 30;
        double z[30], zz = 0.0, bc[30], work[AC_SOLVER_TR1_WORK(30)];
        for (size_t i = 0; i < n; i++) {
            diag[i] = 4.0;
            up[i] = 1.0;
            low[i] = -1.0;
            u[i] = gsl_rng_uniform(rng) + 0.5;
            b[i] = bc[i] = gsl_rng_uniform(rng);
        }
        {
            double d2[30], u2[30], l2[30], uu[30];
            memcpy(d2, diag, sizeof d2);
            memcpy(u2, up, sizeof u2);
            memcpy(l2, low, sizeof l2);
            memcpy(uu, u, sizeof uu);
            assert_int_equal(ac_solver_tridiag(n, d2, u2, l2, uu, z), 0);
        }
        for (size_t i = 0; i < n; i++)
            zz += z[i] * z[i];
        for (size_t i = 0; i < n; i++)
            v[i] = -z[i] / zz;
        tr1_dense(n, diag, up, low, u, v, A);
        assert_int_equal(ac_solver_tr1(n, A, b, u, v, work), AC_ENUMERIC);
        assert_memory_equal(b, bc, n * sizeof *b);
        assert_int_equal(ac_solver_tr1_parts(n, diag, up, low, u, v, b, work), AC_ENUMERIC);
        assert_memory_equal(b, bc, n * sizeof *b);
        /* T singular (a zero pivot: diag 0 and an empty first row) while A is regular:
           the eliminations cannot run, tr1 refuses (jacobian_solve then takes LU) */
        diag[0] = 0.0;
        up[0] = 0.0;
        for (size_t i = 0; i < n; i++)
            v[i] = gsl_rng_uniform(rng);
        tr1_dense(n, diag, up, low, u, v, A);
        assert_int_equal(ac_solver_tr1(n, A, b, u, v, work), AC_ENUMERIC);
        assert_memory_equal(b, bc, n * sizeof *b);
        assert_int_equal(ac_solver_tr1_parts(n, diag, up, low, u, v, b, work), AC_ENUMERIC);
        assert_memory_equal(b, bc, n * sizeof *b);
    }
    gsl_rng_free(rng);
}

/* The system Newton solves for a pool with retries: J(q) = T + u gP^T, u_k = lf S'(P) a_k
 * (model.c), at the bistable pool's good and bad states and at empty, against LU */
static void test_tridiagonal_rank_one_pool(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 1000, 1.0, 40);
    ac_solver_pool_result *r;
    ac_solver_pool_model *m = NULL;
    ac_error err = {0};
    (void)state;
    p.timeout = 8.0;
    p.retries = 2;
    r = solve_ok(&p, 700.0, NULL);
    assert_true(r->bistable);
    assert_int_equal(ac_solver_model_build(&p, 700.0, r->truncation, NULL, &m, NULL, &err), 0);
    for (int at = 0; at < 3; at++) {
        size_t n = m->n;
        double *J = malloc(n * n * sizeof *J), *u = malloc(n * sizeof *u), *b, *q, pr, s0, s1, s2;
        double *zero = calloc(n, sizeof *zero);
        assert_non_null(J);
        assert_non_null(u);
        assert_non_null(zero);
        q = at == 0 ? zero : r->equilibria[at == 1 ? r->good : r->bad].q;
        b = malloc(n * sizeof *b);
        assert_non_null(b);
        for (size_t k = 0; k < n; k++)
            b[k] = 1.0 / (1.0 + (double)k);
        ac_solver_model_jacobian(m, q, J);
        (void)ac_solver_model_rate(m, q, &pr, NULL);
        ac_solver_retry_sum(m->retries, pr, &s0, &s1, &s2);
        for (size_t k = 0; k < n; k++)
            u[k] = (m->lambda + m->extra) * s1 * m->a[k];
        (void)tr1_against_lu(n, J, b, u, m->gp);
        free(J);
        free(u);
        free(b);
        free(zero);
    }
    ac_solver_pool_model_free(m);
    ac_solver_pool_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equilibrium_only),
        cmocka_unit_test(test_tridiagonal_rank_one),
        cmocka_unit_test(test_tridiagonal_rank_one_pool),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("solver_equilibrium", tests, NULL, NULL);
}
