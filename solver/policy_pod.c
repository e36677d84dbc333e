/*
 * Dispatch `power-of-d`: an arrival samples d servers and joins the least loaded.
 *   a_k = q_{k-1}^d - q_k^d,  lost = q_K^d;  fixed point (unbounded) q_k = rho^((d^k-1)/(d-1))
 * (Vvedenskaya, Dobrushin, Karpelevich 1996; Mitzenmacher 1996).
 * With d distinct servers out of N, P(all d hold >= k) = prod_{j<d} (N q_k - j)/(N - j)
 *   = q_k^d + (d(d-1)/2) (q_k^d - q_k^(d-1)) / N + O(1/N^2),
 * so the finite-N law is a + b/N with b_k = c (phi(q_{k-1}) - phi(q_k)), phi(x) = x^d - x^(d-1),
 * c = d(d-1)/2. With replacement b = 0.
 */
#include <math.h>

#include "solver/pool.h"

double ac_solver_pod_admit(const ac_solver_pool_model *m, const double *q, double *a)
{
    size_t k;
    double prev = 1.0, cur;
    for (k = 0; k < m->n; k++) {
        cur = pow(q[k], m->d);
        a[k] = prev - cur;
        prev = cur;
    }
    return m->n > 0 ? prev : 1.0;
}

/* d a_k / d q_{k-1} = d q_{k-1}^(d-1),  d a_k / d q_k = -d q_k^(d-1) */
void ac_solver_pod_admit_jacobian(const ac_solver_pool_model *m, const double *q, double *da)
{
    size_t k, n = m->n;
    double d = m->d;
    for (k = 0; k < n; k++) {
        double g = d * pow(q[k], d - 1.0);
        da[k * n + k] = -g;
        if (k + 1 < n)
            da[(k + 1) * n + k] = g;
    }
}

/* h_k = d(d-1) (q_{k-1}^(d-2) W_{k-1,k-1} - q_k^(d-2) W_{k,k}) */
static void pod_admit_hessian(const ac_solver_pool_model *m, const double *q, const double *W,
                              double *h)
{
    size_t k, n = m->n;
    double d = m->d, prev = 0.0, cur;
    for (k = 0; k < n; k++) {
        cur = d * (d - 1.0) * pow(q[k], d - 2.0) * W[k * n + k];
        h[k] = prev - cur;
        prev = cur;
    }
}

/* b_k = c (phi(q_{k-1}) - phi(q_k)) for distinct sampling, 0 with replacement */
static void pod_admit_finite_n(const ac_solver_pool_model *m, const double *q, double *b)
{
    size_t k;
    double d = m->d, c = 0.5 * d * (d - 1.0), prev = 0.0, cur;
    for (k = 0; k < m->n; k++) {
        cur = m->distinct ? c * (pow(q[k], d) - pow(q[k], d - 1.0)) : 0.0;
        b[k] = prev - cur;
        prev = cur;
    }
}

/* q_k = rho^((d^k - 1)/(d - 1)) (rho^k when d = 1) */
double ac_solver_pod_closed_form(const ac_solver_pool_model *m, double rho, size_t k)
{
    double d = m->d, e;
    if (d == 1.0)
        e = (double)k;
    else
        e = (pow(d, (double)k) - 1.0) / (d - 1.0);
    return pow(rho, e);
}

const ac_solver_policy ac_solver_policy_power_of_d = {
    .name = "power-of-d",
    .independent = 0,
    .admit = ac_solver_pod_admit,
    .admit_jacobian = ac_solver_pod_admit_jacobian,
    .admit_hessian = pod_admit_hessian,
    .admit_finite_n = pod_admit_finite_n,
    .closed_form = ac_solver_pod_closed_form,
    .drift = NULL,
    .jacobian = NULL,
};
