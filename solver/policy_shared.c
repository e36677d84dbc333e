/*
 * Dispatch `shared-queue`: one FCFS queue for all N servers, the M/M/N (unbounded) or
 * M/M/N/N+B queue, solved exactly in steady state:
 *   p_n ∝ a^n / n! (n <= N),  p_n ∝ a^N / N! (a/N)^(n-N) (n > N),  a = Lambda / mu.
 * An accepted arrival that finds n >= N jobs waits Erlang(n - N + 1, N mu); its response time
 * adds an Exp(mu) service, which is a Geometric(1/N) number of Exp(N mu) phases, so both laws
 * are Erlang mixtures of rate N mu. Unbounded: Erlang C, P(W > t) = C e^{-(N mu - Lambda) t}.
 * Transients use the fluid limit dx/dt = (Lambda/N) a(x) - mu min(x, 1), x = n/N, with the
 * admitted share a(x) = clamp((x_B - x) / delta, 0, 1) at a finite buffer (x_B = 1 + B/N,
 * delta = SHARED_EDGE / N: the last SHARED_EDGE jobs of the buffer): a step [x < x_B] would
 * make the drift jump at a full buffer under overload, where the integrator then chatters
 * with steps of 1e-9 s until its work budget is gone. The ramp keeps the drift Lipschitz and
 * linear in Lambda; at a full buffer the fluid holds x_B - delta mu / (Lambda/N) (at most
 * SHARED_EDGE jobs below the full buffer) and admits exactly the departures, so the loss
 * Lambda - N mu is exact.
 */
#include <math.h>
#include <stdlib.h>

#include "solver/pool.h"

/* The jobs of a full buffer over which admission goes from 1 to 0 (the top of this file). */
#define SHARED_EDGE 1e-2

/* a(x) (the top of this file) and its derivative */
static double shared_admit(const ac_solver_pool_model *m, double x, double *da)
{
    double delta = SHARED_EDGE / m->servers, room = m->buffer_x - x;
    *da = 0.0;
    if (!(room < delta))
        return 1.0;
    if (room <= 0.0)
        return 0.0;
    *da = -1.0 / delta;
    return room / delta;
}

/* f = lambda a(x) - mu min(x, 1) */
static void shared_drift(const ac_solver_pool_model *m, const double *q, double *f)
{
    double x = q[0], da;
    f[0] = (m->lambda + m->extra) * shared_admit(m, x, &da) - m->mu * (x < 1.0 ? x : 1.0);
}

static void shared_jacobian(const ac_solver_pool_model *m, const double *q, double *J)
{
    double da;
    (void)shared_admit(m, q[0], &da);
    J[0] = (m->lambda + m->extra) * da - (q[0] < 1.0 ? m->mu : 0.0);
}

const ac_solver_policy ac_solver_policy_shared_queue = {
    .name = "shared-queue",
    .independent = 0,
    .admit = NULL,
    .admit_jacobian = NULL,
    .admit_hessian = NULL,
    .admit_finite_n = NULL,
    .closed_form = NULL,
    .drift = shared_drift,
    .jacobian = shared_jacobian,
};

/* The response mixture from the wait mixture: w'_m = (1 - p) w'_{m-1} + p w_{m-1}, p = 1/N
 * (W plus a Geometric(p) number of phases), until the remaining mass is below 1e-17. */
static int response_from_wait(const double *w, size_t nw, double N, double **out, size_t *nout,
                              ac_error *err)
{
    double p = 1.0 / N, left = 1.0, *r;
    size_t extra = 1, m, n;
    if (p < 1.0)
        extra = (size_t)ceil(log(1e-17) / log1p(-p)) + 1;
    if (nw + extra > AC_SOLVER_LEVELS_MAX)
        return ac_error_set(err, AC_ELIMIT, "response-time law of %zu phases over the limit",
                            nw + extra);
    n = nw + extra;
    r = malloc(n * sizeof *r);
    if (r == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (response-time law)");
    r[0] = 0.0;
    for (m = 1; m < n; m++) {
        r[m] = (1.0 - p) * r[m - 1] + p * (m - 1 < nw ? w[m - 1] : 0.0);
        left -= r[m];
        if (m >= nw && left < 1e-17) {
            n = m + 1;
            break;
        }
    }
    *out = r;
    *nout = n;
    return 0;
}

/* The stationary law of the jobs in a shared-queue pool: their mean and variance, the loss, the
 * throughput, the probability C of waiting and, with a buffer, the wait's Erlang weights
 * w[0..nw-1] (malloc'd, the caller frees them). */
typedef struct shared_law {
    double mean_n, var_n, loss, thr, C;
    double *w;
    size_t nw;
} shared_law;

/* M/M/N (an unbounded buffer, rho < 1): Erlang C. Returns 0 or AC_ENOMEM. */
static int erlang_c_law(const ac_pool *pool, double arrival_rate, double a, shared_law *out,
                        ac_error *err)
{
    double N = (double)pool->servers, rho = a / N, C;
    /* Erlang C (rho < 1 here) */
    C = pool->servers > 0 ? ac_solver_erlang_c(pool->servers, a) : 1.0;
    out->C = C;
    out->nw = 0; /* the laws in closed form (rtd.c) */
    out->mean_n = a + C * rho / (1.0 - rho);
    /* E[n^2] = sum_{m<N} m^2 p_m + sum_{i>=0} (N+i)^2 C (1-rho) rho^i
             = sum_{m<N} m^2 p_m + C (N^2 + 2N rho/(1-rho) + rho(1+rho)/(1-rho)^2);
       p_m (m < N) in log space, normalised to P(n < N) = 1 - C */
    {
        double lpn = 0.0, lmx = 0.0, norm = 0.0, sm2 = 0.0;
        size_t m;
        double *lp = malloc((pool->servers + 1) * sizeof *lp);
        if (lp == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (M/M/N)");
        for (m = 0; m < pool->servers; m++) {
            if (m > 0)
                lpn += log(a) - log((double)m);
            lp[m] = lpn;
            lmx = fmax(lmx, lpn);
        }
        for (m = 0; m < pool->servers; m++)
            norm += exp(lp[m] - lmx);
        for (m = 0; m < pool->servers; m++)
            sm2 += (double)m * (double)m * (1.0 - C) * exp(lp[m] - lmx) / norm;
        out->var_n = sm2 +
                     C * (N * N + 2.0 * N * rho / (1.0 - rho) +
                          rho * (1.0 + rho) / ((1.0 - rho) * (1.0 - rho))) -
                     out->mean_n * out->mean_n;
        free(lp);
    }
    out->loss = 0.0;
    out->thr = arrival_rate;
    return 0;
}

/* M/M/N/N+B (a buffer of B), in log space. Returns 0 or AC_ENOMEM. */
static int finite_buffer_law(const ac_pool *pool, double arrival_rate, double a, shared_law *out,
                             ac_error *err)
{
    double N = (double)pool->servers, lmax, z, *lp;
    size_t n, j, B = pool->buffer, top;
    top = pool->servers + B;
    lp = malloc((top + 1) * sizeof *lp);
    if (lp == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (M/M/N/N+B)");
    lp[0] = 0.0;
    lmax = 0.0;
    for (n = 1; n <= top; n++) {
        lp[n] = lp[n - 1] + log(a) - log(n <= pool->servers ? (double)n : N);
        if (a == 0.0)
            lp[n] = -INFINITY;
        lmax = fmax(lmax, lp[n]);
    }
    z = 0.0;
    for (n = 0; n <= top; n++)
        z += exp(lp[n] - lmax);
    out->mean_n = 0.0;
    out->var_n = 0.0;
    for (n = 0; n <= top; n++) {
        double p = exp(lp[n] - lmax) / z;
        out->mean_n += (double)n * p;
        out->var_n += (double)n * (double)n * p;
    }
    out->var_n -= out->mean_n * out->mean_n;
    out->loss = exp(lp[top] - lmax) / z;
    out->thr = arrival_rate * (1.0 - out->loss);
    out->nw = B + 1;
    out->w = malloc(out->nw * sizeof *out->w);
    if (out->w == NULL) {
        free(lp);
        return ac_error_set(err, AC_ENOMEM, "out of memory (M/M/N/N+B)");
    }
    out->w[0] = 0.0;
    for (n = 0; n < pool->servers && n < top; n++)
        out->w[0] += exp(lp[n] - lmax) / z / (1.0 - out->loss);
    for (j = 1; j < out->nw; j++)
        out->w[j] = exp(lp[pool->servers + j - 1] - lmax) / z / (1.0 - out->loss);
    out->C = 1.0 - out->w[0];
    free(lp);
    return 0;
}

int ac_solver_shared_solve(const ac_pool *pool, double arrival_rate, const ac_solver_options *opt,
                           ac_solver_pool_result *r, ac_error *err)
{
    double N = (double)pool->servers, mu = pool->service_rate, a = arrival_rate / mu;
    double rho = a / N, alpha = N * mu, *w = NULL, *resp = NULL;
    double mean_n, var_n, loss, thr, C;
    size_t nw, nresp = 0, B = pool->buffer;
    shared_law law = {0};
    ac_solver_equilibrium *eq;
    ac_solver_kpi *k;
    int rc = 0;
    (void)opt;

    if (pool->retries > 0)
        return ac_error_set(err, AC_EINVAL,
                            "retries on a shared-queue pool are not supported by the solver yet");
    r->equilibria = calloc(1, sizeof *r->equilibria);
    if (r->equilibria == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (result)");
    r->nequilibria = 1;
    r->truncation = 1;
    r->unique = 1;
    eq = &r->equilibria[0];
    k = &eq->mean_field;

    if (B == AC_UNBOUNDED)
        rc = erlang_c_law(pool, arrival_rate, a, &law, err);
    else
        rc = finite_buffer_law(pool, arrival_rate, a, &law, err);
    w = law.w;
    if (rc < 0)
        goto cleanup;
    mean_n = law.mean_n;
    var_n = law.var_n;
    loss = law.loss;
    thr = law.thr;
    C = law.C;
    nw = law.nw;

    if (B != AC_UNBOUNDED) {
        rc = response_from_wait(w, nw, N, &resp, &nresp, err);
        if (rc < 0)
            goto cleanup;
    }
    eq->rtd = calloc(1, sizeof *eq->rtd);
    if (eq->rtd == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (result)");
        goto cleanup;
    }
    if (B == AC_UNBOUNDED) {
        /* Erlang C's wait C e^{-(N mu - lambda) t} and the response with its Exp(mu) service
           in closed form (rtd.c): the Erlang mixtures of rate N mu without their phases */
        ac_solver_mix_init_mmn(&eq->rtd->wait, C, alpha * (1.0 - rho), mu, alpha, 0);
        ac_solver_mix_init_mmn(&eq->rtd->response, C, alpha * (1.0 - rho), mu, alpha, 1);
    } else {
        rc = ac_solver_mix_init(&eq->rtd->wait, alpha, w, nw, err);
        if (rc == 0)
            rc = ac_solver_mix_init(&eq->rtd->response, alpha, resp, nresp, err);
        if (rc < 0)
            goto cleanup;
    }

    eq->dim = 1;
    eq->q = malloc(sizeof *eq->q);
    if (eq->q == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (result)");
        goto cleanup;
    }
    eq->q[0] = fmin(rho, B == AC_UNBOUNDED ? INFINITY : 1.0 + (double)B / N);
    eq->found_from = AC_SOLVER_FROM_CLOSED_FORM;
    eq->stable = 1;
    eq->max_real_eigenvalue = -mu; /* the fluid limit's */
    eq->max_eigenvalue_imag = 0.0;
    eq->relaxation_time = 1.0 / mu;
    eq->lyapunov_solved = 1;
    eq->lyapunov_pd = var_n > 0.0;
    eq->mean_jobs_std = sqrt(var_n > 0.0 ? var_n : 0.0) / N;

    k->mean_jobs = mean_n / N;
    k->throughput = thr;
    k->utilization = thr / (N * mu);
    k->loss_probability = loss;
    k->mean_response_time = thr > 0.0 ? mean_n / thr : 1.0 / mu;
    k->wait_probability = C;
    k->mean_wait = eq->rtd->wait.mean;
    rc = ac_solver_mix_quantile(&eq->rtd->response, 0.50, &k->p50, err);
    if (rc == 0)
        rc = ac_solver_mix_quantile(&eq->rtd->response, 0.95, &k->p95, err);
    if (rc == 0)
        rc = ac_solver_mix_quantile(&eq->rtd->response, 0.99, &k->p99, err);
    if (rc < 0)
        goto cleanup;
    k->timeout_fraction =
        pool->timeout > 0.0
            ? loss + (1.0 - loss) * ac_solver_mix_ccdf(&eq->rtd->response, pool->timeout)
            : loss;
    k->effective_arrival_rate = arrival_rate;
    k->approximation = AC_SOLVER_APPROX_EXACT;
    k->expected_rel_error = 0.0;
    r->kpi = *k;
    r->operating = 0;
cleanup:
    free(w);
    free(resp);
    return rc;
}
