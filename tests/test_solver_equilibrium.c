/*
 * The equilibrium alone (ac_solver_pool_equilibrium) against the full solve and the closed
 * forms.
 */
#include "helpers.h"

#include <gsl/gsl_errno.h>

#include "archcheck/solver.h"

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
    } pods[] = {{2, 1000, 30, 0.9},         {2, 100, AC_UNBOUNDED, 0.99},
                {3, 50, AC_UNBOUNDED, 0.95}, {2, 1000, 200, 0.99},
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equilibrium_only),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("solver_equilibrium", tests, NULL, NULL);
}
