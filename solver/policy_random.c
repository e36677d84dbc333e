/*
 * Dispatch `random`: an arrival joins a uniformly chosen server, so the servers are
 * independent M/M/1/K queues and the mean field is exact without retries.
 *   a_k = q_{k-1} - q_k,  lost = q_K;  fixed point (unbounded) q_k = rho^k.
 */
#include <math.h>

#include "solver/pool.h"

/* a_k = q_{k-1} - q_k with q_0 = 1 */
static double random_admit(const ac_solver_pool_model *m, const double *q, double *a)
{
    size_t k;
    double prev = 1.0;
    for (k = 0; k < m->n; k++) {
        a[k] = prev - q[k];
        prev = q[k];
    }
    return m->n > 0 ? q[m->n - 1] : 1.0;
}

/* d a_k / d q_{k-1} = 1, d a_k / d q_k = -1 */
static void random_admit_jacobian(const ac_solver_pool_model *m, const double *q, double *da)
{
    size_t k, n = m->n;
    (void)q;
    for (k = 0; k < n; k++) {
        da[k * n + k] = -1.0;
        if (k > 0)
            da[k * n + k - 1] = 1.0;
    }
}

/* the law is linear: every second derivative is 0 */
static void random_admit_hessian(const ac_solver_pool_model *m, const double *q, const double *W,
                                 double *h)
{
    size_t k;
    (void)q;
    (void)W;
    for (k = 0; k < m->n; k++)
        h[k] = 0.0;
}

/* q_k = rho^k */
static double random_closed_form(const ac_solver_pool_model *m, double rho, size_t k)
{
    (void)m;
    return pow(rho, (double)k);
}

const ac_solver_policy ac_solver_policy_random = {
    .name = "random",
    .independent = 1,
    .admit = random_admit,
    .admit_jacobian = random_admit_jacobian,
    .admit_hessian = random_admit_hessian,
    .admit_finite_n = NULL,
    .closed_form = random_closed_form,
    .drift = NULL,
    .jacobian = NULL,
};
