/*
 * The pool's flow by CVODE with the tridiagonal + rank-one Newton solve (solver/pool_ode.c)
 * against GSL msbdf's dense integration (ac_solver_integrate), the closed-form fixed point,
 * and the equilibria of the full solve.
 */
#include "helpers.h"

#include <gsl/gsl_errno.h>

#include "archcheck/solver.h"
#include "solver/pool.h"

#include "solver_pool.h"

static ac_solver_pool_model *model_ok(const ac_pool *p, double rate, size_t dim)
{
    ac_solver_pool_model *m = NULL;
    ac_error err = {0};
    assert_int_equal(ac_solver_model_build(p, rate, dim, NULL, &m, NULL, &err), 0);
    return m;
}

/* max_k |CVODE - msbdf| after integrating from q0 for each of the times (extra per-server
 * burst rate `extra`) */
static double against_msbdf(ac_solver_pool_model *m, const double *q0, double extra)
{
    static const double times[] = {0.3, 2.0, 10.0, 60.0};
    ac_solver_options opt;
    ac_solver_pool_ode *ode = NULL;
    ac_error err = {0};
    size_t n = m->n;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), worst = 0.0;
    assert_non_null(a);
    assert_non_null(b);
    ac_solver_options_init(&opt);
    m->extra = extra;
    assert_int_equal(ac_solver_pool_ode_new(m, &opt, &ode, &err), 0);
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        memcpy(a, q0, n * sizeof *a);
        memcpy(b, q0, n * sizeof *b);
        assert_int_equal(ac_solver_integrate_ode(m, a, times[i] / m->mu, &opt, ode, &err), 0);
        assert_int_equal(ac_solver_integrate(m, b, times[i] / m->mu, &opt, &err), 0);
        for (size_t k = 0; k < n; k++)
            worst = fmax(worst, fabs(a[k] - b[k]));
    }
    ac_solver_pool_ode_free(ode);
    m->extra = 0.0;
    free(a);
    free(b);
    return worst;
}

static void test_pool_ode(void **state)
{
    ac_pool p = make_pool(AC_DISPATCH_POWER_OF_D, 1000, 1.0, 40);
    ac_solver_pool_result *r;
    ac_solver_pool_model *m;
    double *q0, worst = 0.0;
    (void)state;
    p.timeout = 8.0;
    p.retries = 2;
    /* the bistable pool of models.md section 3 from empty, good (with a burst), full */
    r = solve_ok(&p, 700.0, NULL);
    assert_true(r->bistable);
    m = model_ok(&p, 700.0, r->truncation);
    q0 = calloc(m->n, sizeof *q0);
    assert_non_null(q0);
    worst = fmax(worst, against_msbdf(m, q0, 0.0));
    worst = fmax(worst, against_msbdf(m, r->equilibria[r->good].q, 1.4));
    for (size_t k = 0; k < m->n; k++)
        q0[k] = 1.0;
    worst = fmax(worst, against_msbdf(m, q0, 0.0));
    print_message("power-of-two with retries: max |CVODE - msbdf| %.2e\n", worst);
    /* both at rtol 1e-8, atol 1e-11 over up to 60/mu through the tipping transient */
    assert_true(worst <= 1e-6);
    {
        /* the settle by CVODE from empty and full reaches the full solve's good and bad
           equilibria (Newton-polished) */
        ac_solver_options opt;
        ac_solver_pool_ode *ode = NULL;
        ac_error err = {0};
        double dg = 0.0, db = 0.0;
        ac_solver_options_init(&opt);
        assert_int_equal(ac_solver_pool_ode_new(m, &opt, &ode, &err), 0);
        memset(q0, 0, m->n * sizeof *q0);
        assert_int_equal(ac_solver_settle_ode(m, q0, &opt, ode, NULL, NULL, &err), 0);
        for (size_t k = 0; k < m->n; k++)
            dg = fmax(dg, fabs(q0[k] - r->equilibria[r->good].q[k]));
        for (size_t k = 0; k < m->n; k++)
            q0[k] = 1.0;
        assert_int_equal(ac_solver_settle_ode(m, q0, &opt, ode, NULL, NULL, &err), 0);
        for (size_t k = 0; k < m->n; k++)
            db = fmax(db, fabs(q0[k] - r->equilibria[r->bad].q[k]));
        assert_true(dg <= 1e-10);
        assert_true(db <= 1e-10);
        ac_solver_pool_ode_free(ode);
    }
    free(q0);
    ac_solver_pool_model_free(m);
    ac_solver_pool_result_free(r);

    /* jiq with retries: no tridiagonal + rank-one form, the dense LU path */
    p = make_pool(AC_DISPATCH_JIQ, 100, 1.0, 20);
    p.timeout = 4.0;
    p.retries = 1;
    m = model_ok(&p, 85.0, 0);
    q0 = calloc(m->n, sizeof *q0);
    assert_non_null(q0);
    worst = against_msbdf(m, q0, 0.0);
    print_message("jiq with retries: max |CVODE - msbdf| %.2e\n", worst);
    assert_true(worst <= 1e-6);
    free(q0);
    ac_solver_pool_model_free(m);

    {
        /* power-of-two without retries from empty: the closed-form fixed point
           rho^(2^k - 1) (unbounded buffer truncated where the tail is below 1e-12) */
        ac_solver_options opt;
        ac_solver_pool_ode *ode = NULL;
        ac_error err = {0};
        double e = 0.0;
        p = make_pool(AC_DISPATCH_POWER_OF_D, 100, 2.0, AC_UNBOUNDED);
        m = model_ok(&p, 0.9 * 200.0, 0);
        q0 = calloc(m->n, sizeof *q0);
        assert_non_null(q0);
        ac_solver_options_init(&opt);
        assert_int_equal(ac_solver_pool_ode_new(m, &opt, &ode, &err), 0);
        assert_int_equal(ac_solver_integrate_ode(m, q0, 400.0 / m->mu, &opt, ode, &err), 0);
        for (size_t k = 1; k <= m->n; k++)
            e = fmax(e, fabs(q0[k - 1] - pow(0.9, pow(2.0, (double)k) - 1.0)));
        print_message("power-of-two, rho 0.9, t = 400/mu: max |q - closed form| %.2e\n", e);
        /* the slowest mode decays by e^{-400 x 0.01...}: well below the tolerances */
        assert_true(e <= 1e-7);
        ac_solver_pool_ode_free(ode);
        free(q0);
        ac_solver_pool_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_ode),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("pool_ode", tests, NULL, NULL);
}
