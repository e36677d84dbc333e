/*
 * The steady state of a token-bucket gateway (doc/serverless.md).
 *
 * Tokens refill continuously at rate r into a bucket of K = max(burst, 1); a request takes
 * one token or is rejected (429). The deficit K - tokens, in units of 1/r seconds, is the
 * work in an M/D/1/K queue with service time 1/r: a request is admitted exactly when the
 * M/D/1/K queue would accept a customer. So the rejection probability is that queue's
 * blocking probability, computed from its embedded chain at departures (Tijms):
 *     pi_{j+1} = (pi_j - pi_0 a_j - sum_{i=1..j} pi_i a_{j-i+1}) / a_0,  j = 0..K-2,
 *     a_k = e^{-rho} rho^k / k!,  rho = lambda / r,  P_block = 1 - 1 / (pi_0 + rho)
 * with pi normalised over {0..K-1}; the time-average law is p_j = pi_j / (pi_0 + rho) for
 * j < K and p_K = P_block.
 *
 * Very deep buckets are truncated at AC_GW_KMAX places: the blocking probability decreases
 * in K, so the value is then an upper bound (stated as the error, with the fluid lower bound
 * max(0, 1 - 1/rho)). For rho >= AC_GW_RHO_FLUID the chain is not needed: the rejection lies
 * between 1 - 1/rho and rho / (1 + rho) (K = 1), and their midpoint is stated with half the
 * gap as its error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/serverless.h"

#define AC_GW_KMAX      4000
#define AC_GW_RHO_FLUID 20.0

int ac_solver_gateway_solve(const ac_gateway *gw, double arrival_rate, double capacity_loss,
                            ac_solver_gateway_result *out, ac_error *err)
{
    double r, rho, *pi = NULL, *a = NULL;
    size_t K, Kc;
    int rc = AC_OK;
    memset(out, 0, sizeof *out);
    if (!(arrival_rate >= 0.0) || !isfinite(arrival_rate) || !(capacity_loss >= 0.0) ||
        !(capacity_loss < 1.0))
        return ac_error_set(err, AC_EINVAL, "gateway: invalid arrival rate %g or loss %g",
                            arrival_rate, capacity_loss);
    r = gw->rate_limit * (1.0 - capacity_loss);
    K = gw->burst > 1 ? gw->burst : 1;
    out->arrival_rate = arrival_rate;
    out->rate_limit = r;
    out->bucket = K;
    out->approximation = AC_SOLVER_APPROX_EXACT;
    if (isinf(r) || arrival_rate == 0.0) {
        out->throughput = arrival_rate;
        return AC_OK;
    }
    rho = arrival_rate / r;
    out->load = rho;
    if (rho >= AC_GW_RHO_FLUID) {
        double lo = 1.0 - 1.0 / rho, hi = rho / (1.0 + rho);
        out->reject_probability = 0.5 * (lo + hi);
        out->expected_abs_error = 0.5 * (hi - lo);
        out->approximation = AC_SOLVER_APPROX_FLUID;
        out->mean_deficit = (double)K;
        goto done;
    }
    Kc = K < AC_GW_KMAX ? K : AC_GW_KMAX;
    pi = calloc(Kc, sizeof *pi);
    a = malloc(Kc * sizeof *a);
    if (pi == NULL || a == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (gateway)");
        goto cleanup;
    }
    a[0] = exp(-rho);
    for (size_t k = 1; k < Kc; k++)
        a[k] = a[k - 1] * rho / (double)k;
    pi[0] = 1.0;
    for (size_t j = 0; j + 1 < Kc; j++) {
        double s = pi[j] - pi[0] * a[j];
        for (size_t i = 1; i <= j; i++)
            s -= pi[i] * a[j - i + 1];
        pi[j + 1] = fmax(0.0, s / a[0]);
        if (pi[j + 1] > 1e250) { /* rescale (rho > 1 grows geometrically) */
            for (size_t i = 0; i <= j + 1; i++)
                pi[i] *= 1e-250;
        }
    }
    {
        double sum = 0.0, pb, ld = 0.0;
        for (size_t j = 0; j < Kc; j++)
            sum += pi[j];
        for (size_t j = 0; j < Kc; j++)
            pi[j] /= sum;
        pb = fmax(0.0, 1.0 - 1.0 / (pi[0] + rho));
        /* tokens missing = the M/D/1/K work in units of 1/r: (N - 1) plus the residual
           fraction of the service under way, whose time average is 1/2 (renewal reward) */
        for (size_t j = 0; j < Kc; j++)
            ld += (double)j * pi[j] / (pi[0] + rho);
        ld += (double)Kc * pb;
        ld -= 0.5 * (1.0 - pi[0] / (pi[0] + rho));
        /* the recursion's rounding leaves an absolute error of order 1e-16 K */
        out->expected_abs_error = 1e-14 * (double)Kc;
        out->reject_probability = pb > out->expected_abs_error ? pb : 0.0;
        out->mean_deficit = ld;
        if (Kc < K) {
            double lo = fmax(0.0, 1.0 - 1.0 / rho);
            out->bound = 1;
            out->expected_abs_error = fmax(out->expected_abs_error, pb - lo);
        }
    }
done:
    out->throughput = arrival_rate * (1.0 - out->reject_probability);
    out->utilization = out->throughput / r;
cleanup:
    free(pi);
    free(a);
    return rc;
}
