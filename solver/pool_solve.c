/*
 * ac_solver_pool_solve: equilibria of a pool, their stability, KPIs, the refined mean field,
 * and the bursts that tip a bistable pool (doc/models.md sections 1-3).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/pool.h"

/* Equilibria closer than this (max norm on q) are one. */
#define MERGE_TOL 1e-6
/* Levels below this are dropped from the Lyapunov equation (their noise is nil). */
#define LYAP_LEVEL_MIN 1e-14
/* The refined mean field's error over the square of its correction's relative size g:
 * bench_refined measures (|refined - sim| - ci) / (sim g^2) against the simulator over
 * power-of-d, d = 2, 3, N = 10 .. 300, rho = 0.7 .. 0.99: at most 0.83 where the simulation
 * resolves it (N <= 50), 3.54 once (N = 300, rho = 0.95, inside the simulation's noise);
 * an independent precise run at N = 100, rho = 0.95, d = 3 gives 1.3 - 1.9. Rounded up. */
#define AC_SOLVER_REFINED_KAPPA 4.0
/* The 1/N^2 value's error over the size of the next term, estimated from the last two as
 * t3 = t2^2 / t1 (t1 = |v|/N, t2 = |a|/N^2, relative to the mean field): measured by
 * bench_refined against the simulator (see there); used only where t2 <= t1 / 2. */
#define AC_SOLVER_REFINED2_KAPPA 4.0
#define AC_SOLVER_REFINED2_RATIO 0.5
/* The most mass at a real buffer's last level for the 1/N^2 value to be used. */
#define AC_SOLVER_REFINED2_EDGE 1e-9

void ac_solver_options_init(ac_solver_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->tail_tolerance = 1e-12;
    opt->residual_tolerance = 1e-13;
    opt->rtol = 1e-8;
    opt->atol = 1e-11;
    opt->max_time = 1e6;
    opt->refine = AC_SOLVER_REFINE_AUTO;
    opt->refine_below = 100;
    opt->all_starts = 0;
    opt->burst_search = 1;
}

const char *ac_solver_approx_name(ac_solver_approx approx)
{
    switch (approx) {
    case AC_SOLVER_APPROX_EXACT: return "exact";
    case AC_SOLVER_APPROX_MEAN_FIELD: return "mean-field";
    case AC_SOLVER_APPROX_REFINED: return "refined";
    case AC_SOLVER_APPROX_FLUID: return "fluid";
    case AC_SOLVER_APPROX_SIMULATION: return "simulation";
    }
    return "mean-field";
}

static void equilibrium_clear(ac_solver_equilibrium *eq)
{
    free(eq->q);
    eq->q = NULL;
    ac_solver_rtd_free(eq->rtd);
    eq->rtd = NULL;
}

void ac_solver_pool_result_free(ac_solver_pool_result *result)
{
    size_t i;
    if (result == NULL)
        return;
    for (i = 0; i < result->nequilibria; i++)
        equilibrium_clear(&result->equilibria[i]);
    free(result->equilibria);
    free(result->bursts);
    free(result);
}

double ac_solver_pool_ccdf(const ac_solver_pool_result *result, size_t eq, double t)
{
    if (result == NULL || eq >= result->nequilibria || result->equilibria[eq].rtd == NULL)
        return NAN;
    return ac_solver_mix_ccdf(&result->equilibria[eq].rtd->response, t);
}

double ac_solver_pool_wait_ccdf(const ac_solver_pool_result *result, size_t eq, double t)
{
    if (result == NULL || eq >= result->nequilibria || result->equilibria[eq].rtd == NULL)
        return NAN;
    return ac_solver_mix_ccdf(&result->equilibria[eq].rtd->wait, t);
}

int ac_solver_pool_quantile(const ac_solver_pool_result *result, size_t eq, double p, int wait,
                            double *out, ac_error *err)
{
    const ac_solver_rtd *r;
    if (result == NULL || out == NULL || eq >= result->nequilibria ||
        result->equilibria[eq].rtd == NULL)
        return ac_error_set(err, AC_EINVAL, "no equilibrium %zu", eq);
    r = result->equilibria[eq].rtd;
    return ac_solver_mix_quantile(wait ? &r->wait : &r->response, p, out, err);
}

/* ---------------------------------------------------------------- candidates */

typedef struct cand_list {
    double **q;
    unsigned *from;
    size_t count, cap;
} cand_list;

static void cand_list_clear(cand_list *c)
{
    size_t i;
    for (i = 0; i < c->count; i++)
        free(c->q[i]);
    free(c->q);
    free(c->from);
    memset(c, 0, sizeof *c);
}

/* Add q (copied) found from `from`, or merge it with a known one. */
static int cand_add(cand_list *c, size_t n, const double *q, unsigned from, ac_error *err)
{
    size_t i, k;
    for (i = 0; i < c->count; i++) {
        double dmax = 0.0;
        for (k = 0; k < n; k++)
            dmax = fmax(dmax, fabs(c->q[i][k] - q[k]));
        if (dmax < MERGE_TOL) {
            c->from[i] |= from;
            return 0;
        }
    }
    if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 4;
        double **q2 = realloc(c->q, cap * sizeof *q2);
        unsigned *f2;
        if (q2 == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (equilibria)");
        c->q = q2;
        f2 = realloc(c->from, cap * sizeof *f2);
        if (f2 == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (equilibria)");
        c->from = f2;
        c->cap = cap;
    }
    c->q[c->count] = malloc(n * sizeof *q);
    if (c->q[c->count] == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (equilibria)");
    memcpy(c->q[c->count], q, n * sizeof *q);
    c->from[c->count] = from;
    c->count++;
    return 0;
}

/* M/M/1/K of random dispatch: q_k = (rho^k - rho^(K+1)) / (1 - rho^(K+1)) (rho^k unbounded),
 * written with sigma = 1/rho when rho > 1, (K+1-k)/(K+1) at rho = 1. */
static void random_exact(const ac_solver_pool_model *m, size_t buffer, double *q)
{
    double rho = m->lambda / m->mu, K = (double)buffer;
    size_t k;
    for (k = 1; k <= m->n; k++) {
        double dk = (double)k;
        if (buffer == AC_UNBOUNDED)
            q[k - 1] = pow(rho, dk);
        else if (rho < 1.0)
            q[k - 1] = (pow(rho, dk) - pow(rho, K + 1.0)) / (1.0 - pow(rho, K + 1.0));
        else if (rho > 1.0)
            q[k - 1] = (1.0 - pow(1.0 / rho, K + 1.0 - dk)) / (1.0 - pow(1.0 / rho, K + 1.0));
        else
            q[k - 1] = (K + 1.0 - dk) / (K + 1.0);
    }
}

/* q := the warm start `start` when it has the model's n levels, else `cold` everywhere. */
static void start_at(double *q, size_t n, const double *start, size_t start_dim, double cold)
{
    if (start != NULL && start_dim == n) {
        memcpy(q, start, n * sizeof *q);
        return;
    }
    for (size_t k = 0; k < n; k++)
        q[k] = cold;
}

/* Candidates: without retries the equilibrium is unique (Newton from the closed form; implicit
 * Euler from empty when that fails or does not apply, or with opt->all_starts); with retries
 * msbdf from empty and from full, then Newton between two stable ones for the saddle. With
 * `operating` set, only the candidate ac_solver_pool_solve reports as operating: the first
 * one found (without retries and all_starts it is the only one; with retries the limit from
 * empty, the only candidate found from empty). */
static int find_equilibria(ac_solver_pool_model *m, const ac_pool *pool,
                           const ac_solver_options *opt, int operating, cand_list *c, ac_error *err)
{
    size_t n = m->n, k;
    double *q = malloc(n * sizeof *q), rho = m->lambda / m->mu;
    ac_solver_pool_ode *ode = NULL;
    int rc = 0;
    if (q == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (equilibria)");
    if (m->retries == 0 && m->policy->independent) {
        random_exact(m, pool->buffer, q);
        rc = cand_add(c, n, q, AC_SOLVER_FROM_CLOSED_FORM, err);
        goto cleanup;
    }
    if (n > AC_SOLVER_DENSE_MAX) {
        rc = ac_error_set(err, AC_ELIMIT, "a %s pool state of %zu levels is over the limit %d",
                          m->policy->name, n, AC_SOLVER_DENSE_MAX);
        goto cleanup;
    }
    if (m->retries == 0) {
        if (rho < 1.0 && m->policy->closed_form != NULL) {
            for (k = 0; k < n; k++)
                q[k] = m->policy->closed_form(m, rho, k + 1);
            if (ac_solver_newton(m, q, opt->residual_tolerance, err) == 0) {
                rc = cand_add(c, n, q, AC_SOLVER_FROM_CLOSED_FORM, err);
                /* the equilibrium is unique: implicit Euler from empty would reach it too */
                if (rc < 0 || !opt->all_starts)
                    goto cleanup;
            }
        }
        start_at(q, n, opt->start_low, opt->start_dim, 0.0);
        if (ac_solver_ptc(m, q, opt, err) == 0) {
            rc = cand_add(c, n, q, AC_SOLVER_FROM_EMPTY, err);
            if (rc < 0)
                goto cleanup;
        } else if (err != NULL && err->code != 0) {
            rc = err->code;
            goto cleanup;
        }
        if (opt->all_starts || c->count == 0) {
            start_at(q, n, opt->start_high, opt->start_dim, 1.0);
            if (ac_solver_ptc(m, q, opt, err) == 0) {
                rc = cand_add(c, n, q, AC_SOLVER_FROM_FULL, err);
                if (rc < 0)
                    goto cleanup;
            } else if (err != NULL && err->code != 0) {
                rc = err->code;
                goto cleanup;
            }
        }
        if (c->count == 0) {
            /* last resort: follow the flow with msbdf */
            memset(q, 0, n * sizeof *q);
            rc = ac_solver_settle(m, q, opt, err);
            if (rc == 0)
                rc = cand_add(c, n, q, AC_SOLVER_FROM_EMPTY, err);
        }
        goto cleanup;
    }
    /* retries: the cooperative ODE's limits from empty (the least equilibrium) and from full
     * (the greatest) bracket every equilibrium */
    rc = ac_solver_pool_ode_new(m, opt, &ode, err);
    if (rc < 0)
        goto cleanup;
    start_at(q, n, opt->start_low, opt->start_dim, 0.0);
    rc = ac_solver_settle_ode(m, q, opt, ode, NULL, NULL, err);
    if (rc < 0)
        goto cleanup;
    rc = cand_add(c, n, q, AC_SOLVER_FROM_EMPTY, err);
    if (rc < 0 || operating)
        goto cleanup;
    start_at(q, n, opt->start_high, opt->start_dim, 1.0);
    rc = ac_solver_settle_ode(m, q, opt, ode, NULL, NULL, err);
    if (rc < 0)
        goto cleanup;
    rc = cand_add(c, n, q, AC_SOLVER_FROM_FULL, err);
    if (rc < 0)
        goto cleanup;
    if (c->count == 2) {
        static const double at[] = {0.5, 0.25, 0.75, 0.1, 0.9};
        size_t i;
        for (i = 0; i < sizeof at / sizeof at[0]; i++) {
            for (k = 0; k < n; k++)
                q[k] = c->q[0][k] + at[i] * (c->q[1][k] - c->q[0][k]);
            if (ac_solver_newton(m, q, opt->residual_tolerance, err) == 0) {
                rc = cand_add(c, n, q, AC_SOLVER_FROM_BETWEEN, err);
                if (rc < 0)
                    goto cleanup;
                if (c->count > 2)
                    break;
            }
        }
    }
cleanup:
    ac_solver_pool_ode_free(ode);
    free(q);
    return rc;
}

/* ---------------------------------------------------------------- analysis */

typedef struct solve_ctx {
    ac_solver_pool_model *m;
    const ac_pool *pool;
    const ac_solver_options *opt;
    int prefer_refined;
} solve_ctx;

/* KPIs from an arrival law a (joining level k+1 = k ahead) and the level means q. */
static int kpi_fill(const solve_ctx *x, const double *q, const double *a, double lost, double p_to,
                    double lambda_eff, ac_solver_kpi *k, ac_solver_rtd **rtd_out, ac_error *err)
{
    const ac_solver_pool_model *m = x->m;
    size_t n = m->n, i;
    double *pi = malloc(n * sizeof *pi), acc = 0.0, sum = 0.0, N = m->servers;
    ac_solver_rtd *rtd = NULL;
    int rc = 0;
    if (pi == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (KPIs)");
    for (i = 0; i < n; i++) {
        pi[i] = a[i] > 0.0 ? a[i] : 0.0;
        acc += pi[i];
        sum += q[i];
    }
    for (i = 0; i < n; i++)
        pi[i] = acc > 0.0 ? pi[i] / acc : (i == 0 ? 1.0 : 0.0);
    rc = ac_solver_rtd_queue(m->mu, pi, n, &rtd, err);
    if (rc < 0)
        goto cleanup;
    k->mean_jobs = sum;
    k->utilization = q[0];
    k->throughput = N * m->mu * q[0];
    k->loss_probability = m->real_buffer ? lost : 0.0;
    k->mean_response_time = q[0] > 0.0 ? sum / (m->mu * q[0]) : 1.0 / m->mu;
    k->wait_probability = 1.0 - pi[0];
    k->mean_wait = k->mean_response_time - 1.0 / m->mu;
    if (k->mean_wait < 0.0)
        k->mean_wait = 0.0;
    rc = ac_solver_mix_quantile(&rtd->response, 0.50, &k->p50, err);
    if (rc == 0)
        rc = ac_solver_mix_quantile(&rtd->response, 0.95, &k->p95, err);
    if (rc == 0)
        rc = ac_solver_mix_quantile(&rtd->response, 0.99, &k->p99, err);
    if (rc < 0)
        goto cleanup;
    k->timeout_fraction = m->real_buffer || m->theta > 0.0 ? p_to : 0.0;
    k->effective_arrival_rate = N * lambda_eff;
    *rtd_out = rtd;
    rtd = NULL;
cleanup:
    free(pi);
    ac_solver_rtd_free(rtd);
    return rc;
}

/*
 * The refined mean field (Gast and Van Houdt 2017) at an equilibrium q with Jacobian J and
 * Lyapunov solution W (n x n, zero-padded):
 *   J V = -1/2 F - g,  F_k = sum_ij d2 f_k/dq_i dq_j W_ij,  g = the 1/N drift term,
 * with f_k = lf S(P) a_k - mu (q_k - q_{k+1}), P = 1 - sum_m c_m a_m:
 *   F_k = lf [S'' a_k (gP^T W gP) + S' a_k (H_P:W) + 2 S' (da_k^T W gP) + S h_k],
 *   g_k = lf [S b_k - S' a_k sum_m c_m b_m],  gP = -sum_m c_m da_m,  H_P:W = -sum_m c_m h_m.
 * Refined means: E[q] = q + V/N, E[a] = a + (da V + h/2 + b)/N.
 */
/*
 * The 1/N^2 term (refined2.c): with t1 = |v|/N and t2 = |a|/N^2 relative to the mean field
 * mf, the first order's stated error is at least the next term's size, *e1 >= t2 (a buffer
 * of 5 at rho 0.9, N = 10: t2 = 21% where kappa g^2 says 0.7% and the exact chain 4.1%);
 * the second-order value replaces the first (qr, ar) where the terms decrease (t2 <= t1/2)
 * and its stated error kappa2 t2^2/t1 is below *e1. Returns < 0 on error, else 0 (*e1 the
 * stated error of what qr, ar hold).
 */
static int refine_second(const solve_ctx *x, const double *q, size_t ne, const double *J,
                         const double *W, const double *V, double *qr, double *ar,
                         ac_solver_equilibrium *eq, double *e1, ac_error *err)
{
    const ac_solver_pool_model *m = x->m;
    size_t n = m->n, i;
    double *A = malloc(2 * n * sizeof *A), N = m->servers, mf = eq->mean_field.mean_jobs;
    double sv = 0.0, sa = 0.0, t1, t2, e2, amax = 0.0;
    int rc;
    if (A == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (1/N^2 term)");
    rc = ac_solver_refine2(m, q, ne, J, W, V, A, A + n, err);
    if (rc != 0)
        goto cleanup;
    for (i = 0; i < n; i++) {
        sv += V[i];
        sa += A[i];
    }
    eq->mean_jobs_a = sa;
    t1 = fabs(sv) / (N * mf);
    t2 = fabs(sa) / (N * N * mf);
    *e1 = fmax(*e1, t2);
    if (!(mf > 0.0) || !(t1 > 0.0) || t2 > AC_SOLVER_REFINED2_RATIO * t1)
        goto cleanup;
    /* a buffer whose last level carries mass is a boundary the expansion does not see: power-
       of-three, buffer 5, rho 0.9, N = 10 has t2 = t1/4 yet the 1/N^2 value is 8.9% off the
       exact chain (1/N: 4.5%); only the first order, with its error >= t2, is used there */
    if (m->real_buffer && q[n - 1] > AC_SOLVER_REFINED2_EDGE)
        goto cleanup;
    e2 = AC_SOLVER_REFINED2_KAPPA * t2 * t2 / t1;
    if (!(e2 < *e1))
        goto cleanup;
    /* terms below the solve's rounding (1e-9 of the largest) are dropped: a level whose
       1/N^2 term is 0 exactly (q_1 = rho without loss, flow conservation) stays exact */
    for (i = 0; i < 2 * n; i++)
        amax = fmax(amax, fabs(A[i]));
    for (i = 0; i < n; i++) {
        if (fabs(A[i]) > 1e-9 * amax)
            qr[i] += A[i] / (N * N);
        if (fabs(A[n + i]) > 1e-9 * amax)
            ar[i] += A[n + i] / (N * N);
    }
    *e1 = e2;
    eq->refined_order = 2;
cleanup:
    free(A);
    return rc < 0 ? rc : 0;
}

static int refine(const solve_ctx *x, const double *q, size_t ne, const double *J, const double *W,
                  ac_solver_equilibrium *eq, int keep_rtd, ac_error *err)
{
    ac_solver_pool_model *m = x->m;
    size_t n = m->n, i, j;
    double *da = calloc(n * n, sizeof *da), *h = malloc(n * sizeof *h), *b = calloc(n, sizeof *b);
    double *gp = calloc(n, sizeof *gp), *wg = malloc(n * sizeof *wg), *V = malloc(n * sizeof *V);
    double *A = malloc(n * n * sizeof *A), *qr = malloc(n * sizeof *qr),
           *ar = malloc(n * sizeof *ar);
    double *a = malloc(n * sizeof *a);
    double N = m->servers, lf = m->lambda + m->extra, lost, p, s, s1, s2, hp = 0.0, gwg = 0.0;
    double cb = 0.0, lost_r, p_r, leff_r, mf = eq->mean_field.mean_jobs, sv = 0.0, e_r;
    ac_solver_rtd *rtd = NULL;
    int rc = 0;
    if (da == NULL || h == NULL || b == NULL || gp == NULL || wg == NULL || V == NULL ||
        A == NULL || qr == NULL || ar == NULL || a == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (refined mean field)");
        goto cleanup;
    }
    lost = m->policy->admit(m, q, a);
    (void)lost;
    m->policy->admit_jacobian(m, q, da);
    m->policy->admit_hessian(m, q, W, h);
    if (m->policy->admit_finite_n != NULL)
        m->policy->admit_finite_n(m, q, b);
    p = 1.0;
    for (i = 0; i < n; i++) {
        p -= m->c[i] * a[i];
        hp -= m->c[i] * h[i];
        cb += m->c[i] * b[i];
        for (j = 0; j < n; j++)
            gp[j] -= m->c[i] * da[i * n + j];
    }
    ac_solver_retry_sum(m->retries, p, &s, &s1, &s2);
    for (i = 0; i < n; i++) { /* wg = W gP */
        wg[i] = 0.0;
        for (j = 0; j < n; j++)
            wg[i] += W[i * n + j] * gp[j];
        gwg += gp[i] * wg[i];
    }
    for (i = 0; i < n; i++) {
        double dawg = 0.0, F, g;
        for (j = 0; j < n; j++)
            dawg += da[i * n + j] * wg[j];
        F = lf * (s2 * a[i] * gwg + s1 * a[i] * hp + 2.0 * s1 * dawg + s * h[i]);
        g = lf * (s * b[i] - s1 * a[i] * cb);
        V[i] = -0.5 * F - g;
    }
    memcpy(A, J, n * n * sizeof *A);
    if (ac_solver_lu_solve(n, A, V, err) < 0) {
        rc = 0; /* singular J: no refined numbers */
        goto cleanup;
    }
    for (i = 0; i < n; i++) {
        double dav = 0.0;
        for (j = 0; j < n; j++)
            dav += da[i * n + j] * V[j];
        qr[i] = q[i] + V[i] / N;
        ar[i] = a[i] + (dav + 0.5 * h[i] + b[i]) / N;
        sv += V[i];
    }
    /* stated errors (bench_refined measures them against the simulator): the first-order
       error is at most kappa g^2, g = |refined - mean field| / mean field; the second
       order's (where it is used) kappa2 t2^2 / t1 */
    eq->refined_order = 1;
    eq->mean_jobs_v = sv;
    eq->mean_jobs_a = NAN;
    e_r = mf > 0.0 ? AC_SOLVER_REFINED_KAPPA * (sv / (N * mf)) * (sv / (N * mf)) : 0.0;
    rc = refine_second(x, q, ne, J, W, V, qr, ar, eq, &e_r, err);
    if (rc < 0)
        goto cleanup;
    lost_r = 1.0;
    p_r = 1.0;
    for (i = 0; i < n; i++) {
        lost_r -= ar[i];
        p_r -= m->c[i] * ar[i];
    }
    leff_r = m->retries > 0 ? lf * (s + s1 * (p_r - p) + 0.5 * s2 * gwg / N) : lf;
    rc = kpi_fill(x, qr, ar, lost_r, p_r, leff_r, &eq->refined, &rtd, err);
    if (rc < 0)
        goto cleanup;
    eq->has_refined = 1;
    /* the mean field's error: at most the gap to the refined value plus the refined value's
       (triangle inequality) */
    eq->refined.expected_rel_error = e_r;
    eq->mean_field.expected_rel_error =
        (mf > 0.0 ? fabs(eq->refined.mean_jobs - mf) / mf : 0.0) + e_r;
    eq->refined.approximation = AC_SOLVER_APPROX_REFINED;
    if (keep_rtd) {
        ac_solver_rtd_free(eq->rtd);
        eq->rtd = rtd;
        rtd = NULL;
    }
cleanup:
    free(da);
    free(h);
    free(b);
    free(gp);
    free(wg);
    free(V);
    free(A);
    free(qr);
    free(ar);
    free(a);
    ac_solver_rtd_free(rtd);
    return rc;
}

/* random without retries, above the dense limits: J is tridiagonal Toeplitz (lambda below,
 * -(lambda+mu) on, mu above the diagonal) with eigenvalues
 * -(lambda+mu) + 2 sqrt(lambda mu) cos(j pi/(n+1)); the servers are independent, so
 * N Cov(q_j, q_k) = q_max(j,k) - q_j q_k and N Var(mean jobs) = sum (2k-1) q_k - (sum q_k)^2. */
static void analyse_independent_large(const ac_solver_pool_model *m, const double *q,
                                      ac_solver_equilibrium *eq)
{
    double l = m->lambda, mu = m->mu, c = 2.0 * sqrt(l * mu), sum = 0.0, s2 = 0.0;
    size_t k;
    eq->max_real_eigenvalue = -(l + mu) + c * cos(3.14159265358979323846 / ((double)m->n + 1.0));
    eq->max_eigenvalue_imag = 0.0;
    eq->unstable_eigenvalues = 0;
    for (k = 0; k < m->n; k++) {
        sum += q[k];
        s2 += (2.0 * (double)k + 1.0) * q[k];
    }
    eq->lyapunov_solved = 1;
    eq->lyapunov_pd = 1;
    eq->mean_jobs_std = sqrt(fmax(s2 - sum * sum, 0.0) / m->servers);
}

/* Stability, Lyapunov, KPIs and the refined mean field at the equilibrium q. */
static int analyse(const solve_ctx *x, const double *q, unsigned from, ac_solver_equilibrium *eq,
                   ac_error *err)
{
    ac_solver_pool_model *m = x->m;
    size_t n = m->n, ne, i, j, unstable = 0;
    double *J = NULL, *Je = NULL, *Q = NULL, *We = NULL, *W = NULL;
    double lost, p_to, rate, re = 0.0, im = 0.0, lo = 0.0;
    int rc = 0, exact = m->policy->independent && m->retries == 0;
    ac_error local = {0};

    eq->dim = n;
    eq->found_from = from;
    eq->q = malloc(n * sizeof *eq->q);
    if (eq->q == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (equilibrium)");
    memcpy(eq->q, q, n * sizeof *q);
    eq->mean_jobs_std = NAN;

    rate = ac_solver_model_rate(m, q, &p_to, &lost);
    rc = kpi_fill(x, q, m->a, lost, p_to, rate, &eq->mean_field, &eq->rtd, err);
    if (rc < 0)
        return rc;
    eq->mean_field.approximation = exact ? AC_SOLVER_APPROX_EXACT : AC_SOLVER_APPROX_MEAN_FIELD;
    eq->mean_field.expected_rel_error = exact ? 0.0 : NAN;

    if (exact) {
        /* independent servers: the Jacobian is tridiagonal Toeplitz, known in closed form */
        analyse_independent_large(m, q, eq);
        goto verdict;
    }
    /* the levels that carry mass: the Lyapunov equation's size, and the refined mean
       field's work budget (none above AC_SOLVER_LYAP_MAX) */
    ne = n;
    while (ne > 1 && q[ne - 1] < LYAP_LEVEL_MIN)
        ne--;
    if (x->opt->kpi_only && m->retries == 0 &&
        (!x->prefer_refined || ne > AC_SOLVER_LYAP_MAX || n > AC_SOLVER_DENSE_MAX)) {
        /* without retries the equilibrium is unique and globally stable (the flux
           equations); probes need the KPIs only */
        eq->max_real_eigenvalue = NAN;
        eq->max_eigenvalue_imag = NAN;
        eq->stable = 1;
        eq->relaxation_time = NAN;
        return 0;
    }
    if (n > AC_SOLVER_DENSE_MAX)
        return ac_error_set(err, AC_ELIMIT, "a %zu-level state is over the dense limit %d", n,
                            AC_SOLVER_DENSE_MAX);
    J = malloc(n * n * sizeof *J);
    if (J == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (Jacobian of %zu)", n);
    ac_solver_model_jacobian(m, q, J);
    rc = ac_solver_eigen(n, J, &re, &im, &lo, &unstable, err);
    if (rc < 0)
        goto cleanup;
    eq->max_real_eigenvalue = re;
    eq->max_eigenvalue_imag = im;
    eq->unstable_eigenvalues = unstable;

    /* Lyapunov on the levels that carry mass */
    if (ne <= AC_SOLVER_LYAP_MAX) {
        double sum = 0.0;
        int pd = 0;
        Je = malloc(ne * ne * sizeof *Je);
        Q = calloc(ne * ne, sizeof *Q);
        We = malloc(ne * ne * sizeof *We);
        W = calloc(n * n, sizeof *W);
        if (Je == NULL || Q == NULL || We == NULL || W == NULL) {
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (Lyapunov of %zu)", ne);
            goto cleanup;
        }
        for (i = 0; i < ne; i++) {
            for (j = 0; j < ne; j++)
                Je[i * ne + j] = J[i * n + j];
            /* Q_kk = arrivals joining level k + departures from level k (unit jumps) */
            Q[i * ne + i] = rate * m->a[i] + m->mu * (q[i] - (i + 1 < n ? q[i + 1] : 0.0));
        }
        if (ac_solver_lyapunov(ne, Je, Q, lo, re, We, &local) == 0) {
            eq->lyapunov_solved = 1;
            rc = ac_solver_is_pd(ne, We, &pd, err);
            if (rc < 0)
                goto cleanup;
            eq->lyapunov_pd = pd;
            for (i = 0; i < ne; i++)
                for (j = 0; j < ne; j++) {
                    W[i * n + j] = We[i * ne + j];
                    sum += We[i * ne + j];
                }
            eq->mean_jobs_std = sqrt(fmax(sum, 0.0) / m->servers);
        } else if (local.code == AC_ENOMEM) {
            rc = ac_error_set(err, AC_ENOMEM, "%s", local.message);
            goto cleanup;
        }
    }
    if (!exact && eq->lyapunov_solved && re < 0.0 && m->policy->admit_hessian != NULL) {
        rc = refine(x, q, ne, J, W, eq, x->prefer_refined, err);
        if (rc < 0)
            goto cleanup;
    }
    if (!exact && !eq->has_refined && m->real_buffer == 0 && m->retries == 0 &&
        (m->policy == &ac_solver_policy_jsq || m->policy == &ac_solver_policy_jiq)) {
        /* no 1/N expansion: the gap to M/M/N, which no dispatcher beats, bounds the error
         * from below: E[L]/N = rho + C rho / (N (1 - rho)) */
        double rho = m->lambda / m->mu;
        if (rho > 0.0 && rho < 1.0) {
            double C = ac_solver_erlang_c((size_t)m->servers, rho * m->servers);
            eq->mean_field.expected_rel_error = C / (m->servers * (1.0 - rho));
        }
    }
verdict:
    eq->stable = eq->max_real_eigenvalue < 0.0;
    eq->relaxation_time = eq->stable ? -1.0 / eq->max_real_eigenvalue : INFINITY;
cleanup:
    free(J);
    free(Je);
    free(Q);
    free(We);
    free(W);
    return rc;
}

/* ---------------------------------------------------------------- the solve */

static int eq_order(const void *pa, const void *pb)
{
    const ac_solver_equilibrium *a = pa, *b = pb;
    if (a->stable != b->stable)
        return a->stable ? -1 : 1;
    return (a->mean_field.mean_jobs > b->mean_field.mean_jobs) -
           (a->mean_field.mean_jobs < b->mean_field.mean_jobs);
}

static void overload_kpi(const ac_solver_pool_result *r, ac_solver_kpi *k)
{
    double cap = (double)r->servers * r->service_rate;
    k->mean_jobs = INFINITY;
    k->throughput = cap;
    k->utilization = 1.0;
    k->loss_probability = 0.0;
    k->mean_response_time = INFINITY;
    k->wait_probability = 1.0;
    k->mean_wait = INFINITY;
    k->p50 = k->p95 = k->p99 = INFINITY;
    k->timeout_fraction = r->arrival_rate > 0.0 ? 1.0 : 0.0;
    k->effective_arrival_rate = r->arrival_rate;
    k->approximation = AC_SOLVER_APPROX_FLUID;
    k->expected_rel_error = 0.0;
}

static int pool_args_check(const ac_pool *pool, double arrival_rate, ac_error *err)
{
    if (pool == NULL)
        return ac_error_set(err, AC_EINVAL, "no pool");
    if (pool->servers < 1 || !(pool->service_rate > 0.0) || !isfinite(pool->service_rate) ||
        !(arrival_rate >= 0.0) || !isfinite(arrival_rate))
        return ac_error_set(err, AC_EINVAL,
                            "a pool needs servers >= 1, a positive service rate and an arrival "
                            "rate >= 0 (got %zu, %g, %g)",
                            pool->servers, pool->service_rate, arrival_rate);
    return 0;
}

static int retry_levels_check(const ac_pool *pool, const ac_solver_pool_model *m, ac_error *err)
{
    if (pool->retries > 0 && m->n > AC_SOLVER_ODE_MAX)
        /* a retry storm can fill every level: the dense integration would take hours */
        return ac_error_set(err, AC_ELIMIT,
                            "a pool with retries is analysed up to %d levels of its buffer; "
                            "this one needs %zu",
                            AC_SOLVER_ODE_MAX, m->n);
    return 0;
}

/* The shared queue's equilibrium (policy_shared.c: exact, dim 1) through the full solve. */
static int shared_equilibrium(const ac_pool *pool, double arrival_rate,
                              const ac_solver_options *opt, double **q_out, size_t *dim_out,
                              ac_error *err)
{
    ac_solver_pool_result *r = NULL;
    int rc = ac_solver_pool_solve(pool, arrival_rate, opt, &r, err);
    if (rc < 0)
        return rc;
    if (r->nequilibria > 0) {
        const ac_solver_equilibrium *op = &r->equilibria[r->operating];
        *q_out = op->q;
        *dim_out = op->dim;
        r->equilibria[r->operating].q = NULL;
    }
    ac_solver_pool_result_free(r);
    return 0;
}

/* The operating equilibrium alone (solver.h): ac_solver_pool_solve's candidate search with
 * all_starts off, stopped at the operating candidate, without its analysis. */
int ac_solver_pool_equilibrium(const ac_pool *pool, double arrival_rate,
                               const ac_solver_options *opt, double **q_out, size_t *dim_out,
                               ac_error *err)
{
    ac_solver_options o;
    ac_solver_pool_model *m = NULL;
    cand_list cands = {0};
    int rc;

    if (q_out == NULL || dim_out == NULL)
        return ac_error_set(err, AC_EINVAL, "no output for the pool equilibrium");
    *q_out = NULL;
    *dim_out = 0;
    if (opt == NULL)
        ac_solver_options_init(&o);
    else
        o = *opt;
    o.all_starts = 0;
    rc = pool_args_check(pool, arrival_rate, err);
    if (rc < 0)
        return rc;
    if (pool->buffer == AC_UNBOUNDED &&
        arrival_rate / ((double)pool->servers * pool->service_rate) >= 1.0)
        return 0; /* overload: no equilibrium */
    if (pool->dispatch == AC_DISPATCH_SHARED_QUEUE)
        return shared_equilibrium(pool, arrival_rate, &o, q_out, dim_out, err);
    rc = ac_solver_model_build(pool, arrival_rate, 0, &o, &m, NULL, err);
    if (rc == 0)
        rc = retry_levels_check(pool, m, err);
    if (rc == 0)
        rc = find_equilibria(m, pool, &o, 1, &cands, err);
    if (rc == 0 && cands.count == 0)
        rc =
            ac_error_set(err, AC_ENUMERIC, "no equilibrium found for the %s pool", m->policy->name);
    if (rc == 0) {
        *q_out = cands.q[0];
        *dim_out = m->n;
        cands.q[0] = NULL;
    }
    cand_list_clear(&cands);
    ac_solver_pool_model_free(m);
    return rc;
}

int ac_solver_pool_solve(const ac_pool *pool, double arrival_rate, const ac_solver_options *opt,
                         ac_solver_pool_result **out, ac_error *err)
{
    ac_solver_options defaults;
    ac_solver_pool_result *r = NULL;
    ac_solver_pool_model *m = NULL;
    cand_list cands = {0};
    solve_ctx x;
    double tail = 0.0;
    size_t i, nstable = 0;
    int rc = 0;

    if (out == NULL)
        return ac_error_set(err, AC_EINVAL, "no output for the pool result");
    *out = NULL;
    if (opt == NULL) {
        ac_solver_options_init(&defaults);
        opt = &defaults;
    }
    rc = pool_args_check(pool, arrival_rate, err);
    if (rc < 0)
        return rc;
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (pool result)");
    r->dispatch = pool->dispatch;
    r->servers = pool->servers;
    r->arrival_rate = arrival_rate;
    r->service_rate = pool->service_rate;
    r->load = arrival_rate / ((double)pool->servers * pool->service_rate);
    r->buffer = pool->buffer;
    r->smallest_burst.duration = INFINITY;
    r->smallest_burst.jobs = INFINITY;

    if (pool->buffer == AC_UNBOUNDED && r->load >= 1.0) {
        r->overload = 1;
        overload_kpi(r, &r->kpi);
        goto done;
    }
    if (pool->dispatch == AC_DISPATCH_SHARED_QUEUE) {
        rc = ac_solver_shared_solve(pool, arrival_rate, opt, r, err);
        if (rc < 0)
            goto cleanup;
        goto done;
    }

    rc = ac_solver_model_build(pool, arrival_rate, 0, opt, &m, &tail, err);
    if (rc < 0)
        goto cleanup;
    r->truncation = m->n;
    r->tail_mass = tail;
    r->unique = pool->retries == 0;
    rc = retry_levels_check(pool, m, err);
    if (rc < 0)
        goto cleanup;

    rc = find_equilibria(m, pool, opt, 0, &cands, err);
    if (rc < 0)
        goto cleanup;
    if (cands.count == 0) {
        rc =
            ac_error_set(err, AC_ENUMERIC, "no equilibrium found for the %s pool", m->policy->name);
        goto cleanup;
    }

    x.m = m;
    x.pool = pool;
    x.opt = opt;
    /* the refined numbers whenever they are computed (within the work budget): their
       stated error (kappa g^2) is below the mean field's (g + kappa g^2) at every N */
    x.prefer_refined = opt->refine != AC_SOLVER_REFINE_NEVER;
    r->equilibria = calloc(cands.count, sizeof *r->equilibria);
    if (r->equilibria == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (equilibria)");
        goto cleanup;
    }
    for (i = 0; i < cands.count; i++) {
        r->nequilibria = i + 1;
        rc = analyse(&x, cands.q[i], cands.from[i], &r->equilibria[i], err);
        if (rc < 0)
            goto cleanup;
    }
    qsort(r->equilibria, r->nequilibria, sizeof *r->equilibria, eq_order);
    r->operating = 0;
    for (i = 0; i < r->nequilibria; i++) {
        if (r->equilibria[i].stable)
            nstable++;
        if (r->equilibria[i].found_from & (AC_SOLVER_FROM_EMPTY | AC_SOLVER_FROM_CLOSED_FORM)) {
            if (!(r->equilibria[r->operating].found_from &
                  (AC_SOLVER_FROM_EMPTY | AC_SOLVER_FROM_CLOSED_FORM)))
                r->operating = i;
        }
    }
    {
        const ac_solver_equilibrium *op = &r->equilibria[r->operating];
        r->kpi = x.prefer_refined && op->has_refined ? op->refined : op->mean_field;
    }
    if (nstable >= 2) {
        r->bistable = 1;
        r->good = r->operating;
        r->bad = r->operating;
        for (i = 0; i < r->nequilibria; i++)
            if (i != r->good && r->equilibria[i].stable &&
                (r->bad == r->good || r->equilibria[i].mean_field.mean_jobs >
                                          r->equilibria[r->bad].mean_field.mean_jobs))
                r->bad = i;
        r->burst_searched = opt->burst_search && m->n <= AC_SOLVER_BURST_MAX;
        if (r->burst_searched) {
            rc = ac_solver_burst_search(m, opt, r, err);
            if (rc < 0)
                goto cleanup;
        }
    }
done:
    *out = r;
    r = NULL;
cleanup:
    cand_list_clear(&cands);
    ac_solver_pool_model_free(m);
    ac_solver_pool_result_free(r);
    return rc;
}
