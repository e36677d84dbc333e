/*
 * tests/sim_ci.h: a simulator estimate against an exact value, shared by the simulator's
 * tests (header-only, static inline). Include after helpers.h (cmocka) and archcheck/sim.h.
 */
#ifndef AC_TESTS_SIM_CI_H
#define AC_TESTS_SIM_CI_H

#include <math.h>

#include <gsl/gsl_cdf.h>

/* The 95% half-width widened to 99.9% (Student t, n - 1 degrees of freedom): about 15
 * interval checks in one program then miss by chance about 1 run in 70. */
static inline double ci999(ac_sim_estimate e)
{
    if (e.n < 2 || !isfinite(e.ci95))
        return e.ci95;
    return e.ci95 * gsl_cdf_tdist_Pinv(0.9995, (double)(e.n - 1)) /
           gsl_cdf_tdist_Pinv(0.975, (double)(e.n - 1));
}

/* The exact x within the 99.9% interval of e, and the 95% interval no wider than
 * rel_width |x| (an informative estimate); fails the test with the estimate printed. */
static inline void sim_check(const char *what, ac_sim_estimate e, double x, double rel_width)
{
    if (!(fabs(e.mean - x) <= ci999(e)) || !(e.ci95 <= rel_width * fabs(x))) {
        print_error("%s = %.6g +- %.3g (n %zu), exact %.6g\n", what, e.mean, e.ci95, e.n, x);
        fail();
    }
}
#define assert_in_ci(est, exact, rel_width) sim_check(#est, (est), (exact), (rel_width))

#endif
