/*
 * Dispatch `jiq`: join an idle server if any, else a random one.
 * Mean-field formulation: a server is busy with probability q_1 independently, so no server
 * is idle with probability q_1^N; an arrival then joins a random busy server:
 *   a_1 = 1 - q_1^N,   a_k = q_1^(N-1) (q_{k-1} - q_k)  (k >= 2),   lost = q_1^(N-1) q_K.
 * Fixed point (unbounded): q_1 = rho, q_k = rho^(1 + N(k-1)); as N grows it tends to
 * models.md's q_1 = min(rho, 1) with jobs waiting only when every server is busy.
 */
#include <math.h>

#include "solver/pool.h"

static double jiq_admit(const ac_solver_pool_model *m, const double *q, double *a)
{
    size_t k, n = m->n;
    double busy, prev;
    if (n == 0)
        return 1.0;
    a[0] = 1.0 - pow(q[0], m->d);
    busy = pow(q[0], m->d - 1.0);
    prev = q[0];
    for (k = 1; k < n; k++) {
        a[k] = busy * (prev - q[k]);
        prev = q[k];
    }
    return n == 1 ? 1.0 - a[0] : busy * q[n - 1];
}

/* d a_1/d q_1 = -N q_1^(N-1); for k >= 2: d a_k/d q_1 += (N-1) q_1^(N-2) (q_{k-1} - q_k),
 * d a_k/d q_{k-1} += q_1^(N-1), d a_k/d q_k -= q_1^(N-1) */
static void jiq_admit_jacobian(const ac_solver_pool_model *m, const double *q, double *da)
{
    size_t k, n = m->n;
    double N = m->d, busy, dbusy;
    if (n == 0)
        return;
    busy = pow(q[0], N - 1.0);
    dbusy = N > 1.0 ? (N - 1.0) * pow(q[0], N - 2.0) : 0.0;
    da[0] = -N * busy;
    for (k = 1; k < n; k++) {
        da[k * n + 0] += dbusy * (q[k - 1] - q[k]);
        da[k * n + k - 1] += busy;
        da[k * n + k] -= busy;
    }
}

/* q_1 = rho, q_k = rho^(1 + N(k-1)) */
static double jiq_closed_form(const ac_solver_pool_model *m, double rho, size_t k)
{
    return pow(rho, 1.0 + m->d * (double)(k - 1));
}

const ac_solver_policy ac_solver_policy_jiq = {
    .name = "jiq",
    .independent = 0,
    .admit = jiq_admit,
    .admit_jacobian = jiq_admit_jacobian,
    .admit_hessian = NULL,
    .admit_finite_n = NULL,
    .closed_form = jiq_closed_form,
    .drift = NULL,
    .jacobian = NULL,
};
