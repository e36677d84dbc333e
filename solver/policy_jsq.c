/*
 * Dispatch `jsq`: join the shortest queue of all N servers.
 * Mean-field formulation: power-of-d with d = N samples (models.md: "the limit of power-of-d
 * as d -> N"),
 *   a_k = q_{k-1}^N - q_k^N,
 * a smooth ODE whose fixed point q_k = rho^((N^k-1)/(N-1)) tends to the JSQ fluid limit
 * q_1 = rho, q_k = 0 (k >= 2) as N grows (q_2 = rho^(N+1)). No refined mean field: the
 * 1/N expansion does not hold when d grows with N.
 */
#include "solver/pool.h"

const ac_solver_policy ac_solver_policy_jsq = {
    .name = "jsq",
    .independent = 0,
    .admit = ac_solver_pod_admit,
    .admit_jacobian = ac_solver_pod_admit_jacobian,
    .admit_hessian = NULL,
    .admit_finite_n = NULL,
    .closed_form = ac_solver_pod_closed_form,
    .drift = NULL,
    .jacobian = NULL,
};
