/*
 * Finding equilibria of a pool's ODE dq/dt = f(q): Newton on the analytic Jacobian, implicit
 * Euler with growing steps (pseudo-transient continuation), and GSL's msbdf integrator.
 *
 * Internal convention: a method that merely fails to converge returns AC_ENUMERIC without
 * setting `err` (the caller decides whether to try something else); `err` is set for real
 * failures (memory, GSL errors).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

#include "solver/pool.h"

static double scale_of(const ac_solver_pool_model *m)
{
    return m->lambda + m->extra + m->mu;
}

static double max_abs(size_t n, const double *v)
{
    double r = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return INFINITY;
        r = fmax(r, fabs(v[i]));
    }
    return r;
}

static void clamp_unit(size_t n, double *q)
{
    size_t i;
    for (i = 0; i < n; i++)
        q[i] = q[i] < 0.0 ? 0.0 : (q[i] > 1.0 ? 1.0 : q[i]);
}

/* Is the n x n row-major A tridiagonal (every entry off the three diagonals 0)? */
static int is_tridiagonal(size_t n, const double *A)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if ((j + 1 < i || j > i + 1) && A[i * n + j] != 0.0)
                return 0;
    return 1;
}

/* The scratch doubles jacobian_solve needs for n levels. */
#define AC_SOLVER_JSOLVE_WORK(n) AC_SOLVER_TR1_WORK(n)

/*
 * A x = b into b (A row-major, destroyed only on the dense path). A pool without retries
 * under random, power-of-d or jsq dispatch has a tridiagonal Jacobian (a_k depends on q_{k-1}
 * and q_k, the departures on q_k and q_{k+1}): then GSL's O(n) tridiagonal solve, whose
 * elimination without pivoting is stable here (J's columns sum to 0 inside, so J and I - h J
 * are column diagonally dominant). With retries (u, v not NULL) A is tridiagonal plus u v^T:
 * ac_solver_tr1 (linalg.c). Elsewhere (jiq's first column), or when those solves fail or are not
 * finite: dense LU. `work` holds AC_SOLVER_JSOLVE_WORK(n) doubles.
 */
static int jacobian_solve(size_t n, double *A, double *b, const double *u, const double *v,
                          double *work, ac_error *err)
{
    if (n > 1 && u != NULL && ac_solver_tr1(n, A, b, u, v, work) == 0)
        return 0;
    if (n > 1 && u == NULL && is_tridiagonal(n, A)) {
        double *diag = work, *up = work + n, *low = work + 2 * n, *x = work + 3 * n;
        for (size_t i = 0; i < n; i++) {
            diag[i] = A[i * n + i];
            if (i + 1 < n) {
                up[i] = A[i * n + i + 1];
                low[i] = A[(i + 1) * n + i];
            }
        }
        if (ac_solver_tridiag(n, diag, up, low, b, x) == 0) {
            memcpy(b, x, n * sizeof *b);
            return 0;
        }
    }
    return ac_solver_lu_solve(n, A, b, err);
}

/*
 * The rank-one term of J(q) with retries (model.c: J = T + u gP^T with T tridiagonal under
 * random, power-of-d and jsq, u_k = lf S'(P) a_k, gP = dP/dq in m->gp), times `scale`, into u:
 * 1 after ac_solver_model_jacobian(m, q, .) with retries and the generic Jacobian, else 0.
 */
int ac_solver_rank_one_term(ac_solver_pool_model *m, const double *q, double scale, double *u)
{
    double p, s, s1, s2, lf = m->lambda + m->extra;
    if (m->retries == 0 || m->policy->jacobian != NULL || m->policy == &ac_solver_policy_jiq)
        return 0;
    (void)ac_solver_model_rate(m, q, &p, NULL);
    ac_solver_retry_sum(m->retries, p, &s, &s1, &s2);
    for (size_t k = 0; k < m->n; k++)
        u[k] = scale * lf * s1 * m->a[k];
    return 1;
}

/*
 * Newton's method on f(q) = 0: J(q) dq = -f(q), q <- q + dq (kept in [0, 1]^n), until
 * max|f| <= tol (lambda + mu) and the step is at rounding level.
 */
int ac_solver_newton(ac_solver_pool_model *m, double *q, double tol, ac_error *err)
{
    size_t n = m->n, it;
    double *f = malloc(n * sizeof *f), *J = malloc(n * n * sizeof *J);
    double *q0 = malloc(n * sizeof *q0), *u = malloc(n * sizeof *u), s = scale_of(m);
    double *work = malloc(AC_SOLVER_JSOLVE_WORK(n) * sizeof *work);
    int rc = AC_ENUMERIC;
    if (f == NULL || J == NULL || q0 == NULL || work == NULL || u == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (Newton, %zu levels)", n);
        goto cleanup;
    }
    memcpy(q0, q, n * sizeof *q0);
    for (it = 0; it < 60; it++) {
        double res, step;
        size_t i;
        int r1;
        ac_solver_model_drift(m, q, f);
        res = max_abs(n, f);
        if (!isfinite(res))
            break;
        ac_solver_model_jacobian(m, q, J);
        r1 = ac_solver_rank_one_term(m, q, 1.0, u);
        for (i = 0; i < n; i++)
            f[i] = -f[i];
        if (jacobian_solve(n, J, f, r1 ? u : NULL, m->gp, work, err) < 0)
            break;
        step = max_abs(n, f);
        if (!isfinite(step))
            break;
        for (i = 0; i < n; i++)
            q[i] += f[i];
        clamp_unit(n, q);
        if (res <= tol * s && step <= 1e-9) {
            rc = 0;
            break;
        }
    }
    if (rc == 0) {
        ac_solver_model_drift(m, q, f);
        if (!(max_abs(n, f) <= tol * s * 10.0))
            rc = AC_ENUMERIC;
    }
    if (rc != 0)
        memcpy(q, q0, n * sizeof *q0);
cleanup:
    free(f);
    free(J);
    free(q0);
    free(u);
    free(work);
    return rc;
}

/*
 * Implicit Euler with growing steps h: y - q - h f(y) = 0 solved by Newton
 * ((I - h J(y)) dy = -(y - q - h f(y))), h tripled after a success, quartered after a
 * failure; once max|f| is small, plain Newton (h = infinity) finishes. Without retries the
 * pool has one equilibrium (its flux equations have one solution) and the cooperative ODE
 * converges to it from every state, so following the flow loosely with large steps is safe.
 */
int ac_solver_ptc(ac_solver_pool_model *m, double *q, const ac_solver_options *opt, ac_error *err)
{
    size_t n = m->n, step, it, i;
    double *y = malloc(n * sizeof *y), *g = malloc(n * sizeof *g), *f = malloc(n * sizeof *f);
    double *J = malloc(n * n * sizeof *J), *work = malloc(AC_SOLVER_JSOLVE_WORK(n) * sizeof *work);
    double *u = malloc(n * sizeof *u), s = scale_of(m), h = 0.5 / s, res;
    int rc = AC_ENUMERIC, ok, r1;
    if (y == NULL || g == NULL || f == NULL || J == NULL || work == NULL || u == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (implicit Euler, %zu levels)", n);
        goto cleanup;
    }
    for (step = 0; step < 400; step++) {
        ac_solver_model_drift(m, q, f);
        res = max_abs(n, f);
        if (!isfinite(res))
            break;
        if (res <= 1e-6 * s) {
            memcpy(y, q, n * sizeof *y);
            if (ac_solver_newton(m, y, opt->residual_tolerance, err) == 0) {
                memcpy(q, y, n * sizeof *y);
                rc = 0;
                break;
            }
            if (err != NULL && err->code == AC_ENOMEM)
                break;
        }
        memcpy(y, q, n * sizeof *y);
        ok = 0;
        for (it = 0; it < 12; it++) {
            double dmax;
            ac_solver_model_drift(m, y, f);
            ac_solver_model_jacobian(m, y, J);
            r1 = ac_solver_rank_one_term(m, y, -h, u); /* I - h J = (I - h T) - h u gP^T */
            for (i = 0; i < n; i++) {
                size_t j;
                g[i] = -(y[i] - q[i] - h * f[i]);
                for (j = 0; j < n; j++)
                    J[i * n + j] = (i == j ? 1.0 : 0.0) - h * J[i * n + j];
            }
            if (jacobian_solve(n, J, g, r1 ? u : NULL, m->gp, work, err) < 0)
                break;
            dmax = max_abs(n, g);
            if (!isfinite(dmax))
                break;
            for (i = 0; i < n; i++)
                y[i] += g[i];
            clamp_unit(n, y);
            if (dmax <= 1e-12) {
                ok = 1;
                break;
            }
        }
        if (ok) {
            memcpy(q, y, n * sizeof *y);
            h = fmin(h * 3.0, 1e15 / s);
        } else {
            h *= 0.25;
            if (h < 1e-12 / s)
                break;
        }
    }
cleanup:
    free(y);
    free(g);
    free(f);
    free(J);
    free(u);
    free(work);
    return rc;
}

static int ode_f(double t, const double y[], double dydt[], void *params)
{
    (void)t;
    ac_solver_model_drift(params, y, dydt);
    return GSL_SUCCESS;
}

static int ode_jac(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    ac_solver_pool_model *m = params;
    size_t i;
    (void)t;
    ac_solver_model_jacobian(m, y, dfdy);
    for (i = 0; i < m->n; i++)
        dfdt[i] = 0.0;
    return GSL_SUCCESS;
}

static gsl_odeiv2_driver *driver_new(ac_solver_pool_model *m, gsl_odeiv2_system *sys,
                                     const ac_solver_options *opt)
{
    gsl_odeiv2_driver *d;
    sys->function = ode_f;
    sys->jacobian = ode_jac;
    sys->dimension = m->n;
    sys->params = m;
    d = gsl_odeiv2_driver_alloc_y_new(sys, gsl_odeiv2_step_msbdf, 1e-3 / scale_of(m), opt->atol,
                                      opt->rtol);
    if (d != NULL)
        gsl_odeiv2_driver_set_nmax(d, 1000000);
    return d;
}

/* Integrate dq/dt = f(q) over [0, t_end] (s) with `ode` (pool_ode.c; NULL: msbdf). */
int ac_solver_integrate_ode(ac_solver_pool_model *m, double *q, double t_end,
                            const ac_solver_options *opt, ac_solver_pool_ode *ode, ac_error *err)
{
    int rc;
    if (ode == NULL)
        return ac_solver_integrate(m, q, t_end, opt, err);
    rc = ac_solver_pool_ode_start(ode, q, err);
    if (rc == 0)
        rc = ac_solver_pool_ode_advance(ode, t_end, q, err);
    clamp_unit(m->n, q);
    return rc;
}

/* Integrate dq/dt = f(q) over [0, t_end] (s) with msbdf and the analytic Jacobian. */
int ac_solver_integrate(ac_solver_pool_model *m, double *q, double t_end,
                        const ac_solver_options *opt, ac_error *err)
{
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *d = driver_new(m, &sys, opt);
    double t = 0.0;
    int status;
    if (d == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu levels)", m->n);
    status = gsl_odeiv2_driver_apply(d, &t, t_end, q);
    gsl_odeiv2_driver_free(d);
    clamp_unit(m->n, q);
    if (status != GSL_SUCCESS)
        return ac_error_set(err, AC_ENUMERIC, "integration failed at t = %g s: %s", t,
                            gsl_strerror(status));
    return 0;
}

/* 1 when every eigenvalue of J(q) has a negative real part */
static int is_stable(ac_solver_pool_model *m, const double *q, ac_error *err, int *stable)
{
    size_t n = m->n, unstable;
    double *J = malloc(n * n * sizeof *J), re, im, lo;
    int rc;
    if (J == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (Jacobian of %zu)", n);
    ac_solver_model_jacobian(m, q, J);
    rc = ac_solver_eigen(n, J, &re, &im, &lo, &unstable, err);
    *stable = rc == 0 && re < 0.0;
    free(J);
    return rc;
}

/*
 * Follow the flow from q to its limit: msbdf over chunks of doubling length; once max|f| is
 * small, Newton polishes a copy, accepted when the polished point is a stable equilibrium
 * (a trajectory only lingers near a saddle). Gives up after opt->max_time / mu.
 */
int ac_solver_settle(ac_solver_pool_model *m, double *q, const ac_solver_options *opt,
                     ac_error *err)
{
    return ac_solver_settle_watch(m, q, opt, NULL, NULL, err);
}

/* ac_solver_settle, asking watch(ctx, q) at the start and at every chunk's end: when it
 * returns 1 the settle stops there (q the state reached) and returns 1. */
int ac_solver_settle_watch(ac_solver_pool_model *m, double *q, const ac_solver_options *opt,
                           ac_solver_settle_watch_fn watch, void *ctx, ac_error *err)
{
    return ac_solver_settle_ode(m, q, opt, NULL, watch, ctx, err);
}

/* One chunk of the flow, [*t, t_end], by CVODE (ode) or msbdf (d). */
static int flow_chunk(gsl_odeiv2_driver *d, ac_solver_pool_ode *ode, double *t, double t_end,
                      double *q, ac_error *err)
{
    int status;
    if (ode != NULL) {
        int rc = ac_solver_pool_ode_advance(ode, t_end, q, err);
        *t = ac_solver_pool_ode_time(ode);
        return rc;
    }
    status = gsl_odeiv2_driver_apply(d, t, t_end, q);
    if (status != GSL_SUCCESS)
        return ac_error_set(err, AC_ENUMERIC, "integration failed at t = %g s: %s", *t,
                            gsl_strerror(status));
    return 0;
}

/* ac_solver_settle_watch, the flow integrated by `ode` (pool_ode.c; NULL: msbdf). */
int ac_solver_settle_ode(ac_solver_pool_model *m, double *q, const ac_solver_options *opt,
                         ac_solver_pool_ode *ode, ac_solver_settle_watch_fn watch, void *ctx,
                         ac_error *err)
{
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *d = ode == NULL ? driver_new(m, &sys, opt) : NULL;
    size_t n = m->n;
    double *f = malloc(n * sizeof *f), *y = malloc(n * sizeof *y);
    double t = 0.0, chunk = 1.0 / m->mu, horizon = opt->max_time / m->mu, s = scale_of(m);
    int rc = 0, stable;
    if ((d == NULL && ode == NULL) || f == NULL || y == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (ODE driver, %zu levels)", n);
        goto cleanup;
    }
    if (ode != NULL && (rc = ac_solver_pool_ode_start(ode, q, err)) < 0)
        goto cleanup;
    if (watch != NULL && watch(ctx, q)) {
        rc = 1;
        goto cleanup;
    }
    for (;;) {
        rc = flow_chunk(d, ode, &t, t + chunk, q, err);
        if (rc < 0)
            goto cleanup;
        if (watch != NULL && watch(ctx, q)) {
            rc = 1;
            goto cleanup;
        }
        ac_solver_model_drift(m, q, f);
        if (max_abs(n, f) <= 1e-5 * s) {
            memcpy(y, q, n * sizeof *y);
            if (ac_solver_newton(m, y, opt->residual_tolerance, err) == 0) {
                rc = is_stable(m, y, err, &stable);
                if (rc < 0)
                    goto cleanup;
                if (stable) {
                    memcpy(q, y, n * sizeof *y);
                    goto cleanup;
                }
            }
            if (err != NULL && err->code == AC_ENOMEM) {
                rc = AC_ENOMEM;
                goto cleanup;
            }
        }
        if (t >= horizon) {
            rc = ac_error_set(err, AC_ENUMERIC,
                              "the %s pool did not settle within %g s (a limit cycle?)",
                              m->policy->name, horizon);
            goto cleanup;
        }
        chunk *= 2.0;
        if (t + chunk > horizon)
            chunk = horizon - t;
    }
cleanup:
    if (d != NULL)
        gsl_odeiv2_driver_free(d);
    free(f);
    free(y);
    return rc;
}

/* 1 when Newton from `start` (n levels) at the model's rate converges to an equilibrium above
 * `least` by more than AC_SOLVER_ONSET_GAP at some level, left in q; 0 otherwise. */
#define AC_SOLVER_ONSET_GAP 1e-6
static int second_equilibrium(ac_solver_pool_model *m, const double *start, const double *least,
                              double *q, ac_error *err, int *out)
{
    ac_error local = {0};
    int rc;
    *out = 0;
    memcpy(q, start, m->n * sizeof *q);
    rc = ac_solver_newton(m, q, 1e-13, &local);
    if (local.code == AC_ENOMEM)
        return ac_error_set(err, AC_ENOMEM, "%s", local.message);
    if (rc != 0)
        return 0;
    for (size_t k = 0; k < m->n; k++)
        if (q[k] > least[k] + AC_SOLVER_ONSET_GAP) {
            *out = 1;
            break;
        }
    return 0;
}

/*
 * The bistability onset (solver.h): bisection on the rate x in [0, x_hi] for the fold where
 * the bad equilibrium's branch ends; a rate with an equilibrium q* not below the least
 * equilibrium at x_hi (the least equilibrium grows with the rate, so q* is not the least one
 * at x <= x_hi) is above the fold, and its q* starts the next Newton.
 */
int ac_solver_pool_bistable_onset(const ac_pool *pool, const ac_solver_pool_result *result,
                                  double rel_tol, double *out, ac_error *err)
{
    ac_solver_pool_model *m = NULL;
    const ac_solver_equilibrium *good, *bad;
    double *warm = NULL, *q = NULL, lo = 0.0, hi;
    int rc;
    if (pool == NULL || result == NULL || out == NULL || !result->bistable ||
        result->good >= result->nequilibria || result->bad >= result->nequilibria ||
        pool->servers != result->servers || pool->dispatch == AC_DISPATCH_SHARED_QUEUE)
        return ac_error_set(err, AC_EINVAL, "no bistable pool solution to follow");
    good = &result->equilibria[result->good];
    bad = &result->equilibria[result->bad];
    hi = result->arrival_rate;
    rc = ac_solver_model_build(pool, hi, result->truncation, NULL, &m, NULL, err);
    if (rc < 0)
        return rc;
    if (m->n != good->dim || m->n != bad->dim) {
        rc = ac_error_set(err, AC_EINVAL, "the solution's state has %zu levels, the pool %zu",
                          bad->dim, m->n);
        goto cleanup;
    }
    warm = malloc(m->n * sizeof *warm);
    q = malloc(m->n * sizeof *q);
    if (warm == NULL || q == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (bistability onset)");
        goto cleanup;
    }
    memcpy(warm, bad->q, m->n * sizeof *warm);
    if (!(rel_tol >= 1e-12))
        rel_tol = 1e-12;
    /* at most 200 halvings: rel_tol >= 1e-12 of a positive rate needs fewer than 45 once the
       lower end is above 0, and the floor 1e-300 stops the approach to 0 */
    for (int it = 0; it < 200 && hi - lo > rel_tol * hi && hi > 1e-300; it++) {
        double mid = lo > 0.0 ? 0.5 * (lo + hi) : 0.5 * hi;
        int found;
        ac_solver_pool_model_set_arrival_rate(m, mid);
        rc = second_equilibrium(m, warm, good->q, q, err, &found);
        if (rc < 0)
            goto cleanup;
        if (found) {
            hi = mid;
            memcpy(warm, q, m->n * sizeof *warm);
        } else {
            lo = mid;
        }
    }
    *out = hi;
    rc = 0;
cleanup:
    free(warm);
    free(q);
    ac_solver_pool_model_free(m);
    return rc;
}
