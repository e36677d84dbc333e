/*
 * The pool's mean-field ODE: generic part (departures, timeouts, retries, truncation) around
 * a dispatch policy's law a_k(q), and the public model API.
 *
 *   f_k(q) = lambda S(P(q)) a_k(q) - mu (q_k - q_{k+1}),   k = 1..n, q_{n+1} = 0,
 *   P(q)   = 1 - sum_k c_k a_k(q)       (c_k = P(Erlang(k, mu) <= theta), 1 without timeout:
 *                                         a copy joining level k is served within theta),
 *   S(P)   = sum_{i=0..r} P^i           (a request and its r retries).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/pool.h"

/* S(P) = sum_{i=0..r} P^i, S' = sum i P^(i-1), S'' = sum i (i-1) P^(i-2) */
void ac_solver_retry_sum(size_t r, double p, double *s, double *s1, double *s2)
{
    double p0 = 1.0, pm1 = 0.0, pm2 = 0.0; /* p^i, p^(i-1), p^(i-2) */
    size_t i;
    *s = *s1 = *s2 = 0.0;
    for (i = 0; i <= r; i++) {
        double di = (double)i;
        *s += p0;
        *s1 += di * pm1;
        *s2 += di * (di - 1.0) * pm2;
        pm2 = pm1;
        pm1 = p0;
        p0 *= p;
    }
}

/* lambda_eff(q) = (lambda + extra) S(P(q)); P(q) = 1 - sum_k c_k a_k(q). Fills m->a. */
double ac_solver_model_rate(ac_solver_pool_model *m, const double *q, double *p_to, double *loss)
{
    double lost = m->policy->admit(m, q, m->a), served = 0.0, s, s1, s2;
    size_t k;
    for (k = 0; k < m->n; k++)
        served += m->c[k] * m->a[k];
    if (p_to != NULL)
        *p_to = 1.0 - served;
    if (loss != NULL)
        *loss = lost;
    if (m->retries == 0)
        return m->lambda + m->extra;
    ac_solver_retry_sum(m->retries, 1.0 - served, &s, &s1, &s2);
    return (m->lambda + m->extra) * s;
}

void ac_solver_model_drift(ac_solver_pool_model *m, const double *q, double *f)
{
    double rate;
    size_t k;
    if (m->policy->drift != NULL) {
        m->policy->drift(m, q, f);
        return;
    }
    rate = ac_solver_model_rate(m, q, NULL, NULL);
    for (k = 0; k < m->n; k++)
        f[k] = rate * m->a[k] - m->mu * (q[k] - (k + 1 < m->n ? q[k + 1] : 0.0));
}

/*
 * J_kj = lambda S da_kj + lambda S' a_k dP/dq_j - mu (delta_kj - delta_{k+1,j}),
 * dP/dq_j = -sum_k c_k da_kj.
 */
void ac_solver_model_jacobian(ac_solver_pool_model *m, const double *q, double *J)
{
    size_t n = m->n, k, j;
    double rate, p, s, s1, s2, lf = m->lambda + m->extra;
    if (m->policy->jacobian != NULL) {
        m->policy->jacobian(m, q, J);
        return;
    }
    rate = ac_solver_model_rate(m, q, &p, NULL);
    memset(J, 0, n * n * sizeof *J);
    m->policy->admit_jacobian(m, q, J);
    if (m->retries > 0) {
        for (j = 0; j < n; j++)
            m->gp[j] = 0.0;
        for (k = 0; k < n; k++)
            for (j = 0; j < n; j++)
                m->gp[j] -= m->c[k] * J[k * n + j];
        ac_solver_retry_sum(m->retries, p, &s, &s1, &s2);
    } else {
        s1 = 0.0;
    }
    for (k = 0; k < n; k++) {
        double *row = J + k * n;
        for (j = 0; j < n; j++)
            row[j] *= rate;
        if (s1 != 0.0)
            for (j = 0; j < n; j++)
                row[j] += lf * s1 * m->a[k] * m->gp[j];
        row[k] -= m->mu;
        if (k + 1 < n)
            row[k + 1] += m->mu;
    }
}

int ac_solver_model_alloc(size_t n, ac_solver_pool_model **out, ac_error *err)
{
    ac_solver_pool_model *m = calloc(1, sizeof *m);
    size_t k;
    if (m == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (pool model)");
    m->n = n;
    m->c = malloc(n * sizeof *m->c);
    m->a = malloc(n * sizeof *m->a);
    m->gp = malloc(n * sizeof *m->gp);
    if (m->c == NULL || m->a == NULL || m->gp == NULL) {
        ac_solver_pool_model_free(m);
        return ac_error_set(err, AC_ENOMEM, "out of memory (pool model of %zu levels)", n);
    }
    for (k = 0; k < n; k++)
        m->c[k] = 1.0;
    *out = m;
    return 0;
}

static const ac_solver_policy *policy_of(ac_dispatch dispatch)
{
    switch (dispatch) {
    case AC_DISPATCH_RANDOM: return &ac_solver_policy_random;
    case AC_DISPATCH_POWER_OF_D: return &ac_solver_policy_power_of_d;
    case AC_DISPATCH_JSQ: return &ac_solver_policy_jsq;
    case AC_DISPATCH_JIQ: return &ac_solver_policy_jiq;
    case AC_DISPATCH_SHARED_QUEUE: return &ac_solver_policy_shared_queue;
    }
    return NULL;
}

/*
 * The truncation: the smallest n with sum_{k>n} q_k <= tol for the closed form at load rho,
 * the tail beyond the last computed level bounded geometrically (q_{k+1}/q_k is
 * non-increasing for every policy here).
 */
static int truncation(const ac_solver_pool_model *m, double rho, double tol, size_t *n_out,
                      double *tail_out, ac_error *err)
{
    size_t cap = 64, len = 0, k;
    double *q = malloc(cap * sizeof *q), tail, r;
    int rc = 0;
    if (q == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (truncation)");
    for (;;) {
        double v = m->policy->closed_form(m, rho, len + 1);
        if (len == cap) {
            double *q2 = realloc(q, 2 * cap * sizeof *q);
            if (q2 == NULL) {
                rc = ac_error_set(err, AC_ENOMEM, "out of memory (truncation)");
                goto cleanup;
            }
            q = q2;
            cap *= 2;
        }
        q[len++] = v;
        if (v < tol * 1e-6 || len >= AC_SOLVER_LEVELS_MAX)
            break;
        /* near saturation the tail decays geometrically at best: predict the levels still
           needed and give up at once rather than after AC_SOLVER_LEVELS_MAX evaluations */
        if (len >= 64 && q[len - 2] > 0.0 && v > 0.0) {
            double ratio = v / q[len - 2];
            if (ratio < 1.0 &&
                (double)len + log(tol * 1e-6 / v) / log(ratio) > (double)AC_SOLVER_LEVELS_MAX) {
                len = AC_SOLVER_LEVELS_MAX;
                break;
            }
        }
    }
    if (len >= AC_SOLVER_LEVELS_MAX) {
        rc = ac_error_set(err, AC_ELIMIT,
                          "an unbounded buffer at load %.9g needs more than %d levels", rho,
                          AC_SOLVER_LEVELS_MAX);
        goto cleanup;
    }
    r = len >= 2 && q[len - 2] > 0.0 ? q[len - 1] / q[len - 2] : 0.0;
    tail = r < 1.0 ? q[len - 1] * r / (1.0 - r) : q[len - 1];
    k = len;
    while (k > 1 && tail + q[k - 1] <= tol) {
        tail += q[k - 1];
        k--;
    }
    *n_out = k;
    *tail_out = tail;
cleanup:
    free(q);
    return rc;
}

int ac_solver_model_build(const ac_pool *pool, double arrival_rate, size_t dim,
                          const ac_solver_options *opt, ac_solver_pool_model **out,
                          double *tail_out, ac_error *err)
{
    const ac_solver_policy *policy;
    ac_solver_pool_model probe, *m = NULL;
    double N, lambda, mu, rho, tail = 0.0, tol = opt != NULL ? opt->tail_tolerance : 1e-12;
    size_t n = 0, buffer;
    int rc;

    if (pool == NULL || out == NULL)
        return ac_error_set(err, AC_EINVAL, "no pool");
    policy = policy_of(pool->dispatch);
    if (policy == NULL)
        return ac_error_set(err, AC_EINVAL, "unknown dispatch policy %d", (int)pool->dispatch);
    if (pool->servers < 1)
        return ac_error_set(err, AC_EINVAL, "a pool needs at least one server");
    if (!(pool->service_rate > 0.0) || !isfinite(pool->service_rate))
        return ac_error_set(err, AC_EINVAL, "service rate %g is not a positive number",
                            pool->service_rate);
    if (!(arrival_rate >= 0.0) || !isfinite(arrival_rate))
        return ac_error_set(err, AC_EINVAL, "arrival rate %g is not a number >= 0", arrival_rate);
    if (!(pool->timeout >= 0.0) || !isfinite(pool->timeout))
        return ac_error_set(err, AC_EINVAL, "timeout %g is not a number >= 0", pool->timeout);
    if (pool->buffer == 0)
        return ac_error_set(err, AC_EINVAL, "a buffer holds at least one job");
    if (!(tol > 0.0 && tol < 1.0))
        return ac_error_set(err, AC_EINVAL, "tail tolerance %g is not in (0, 1)", tol);

    N = (double)pool->servers;
    mu = pool->service_rate;
    lambda = arrival_rate / N;
    rho = lambda / mu;
    buffer = pool->buffer;

    memset(&probe, 0, sizeof probe);
    probe.policy = policy;
    probe.servers = N;
    probe.d = 1.0;
    if (pool->dispatch == AC_DISPATCH_POWER_OF_D) {
        size_t d = pool->d >= 1 ? pool->d : 2;
        probe.distinct = pool->sampling == AC_SAMPLING_DISTINCT;
        if (probe.distinct && d > pool->servers)
            d = pool->servers; /* d distinct servers out of N: at most N */
        probe.d = (double)d;
    } else if (pool->dispatch == AC_DISPATCH_JSQ || pool->dispatch == AC_DISPATCH_JIQ) {
        probe.d = N;
    }

    if (pool->dispatch == AC_DISPATCH_SHARED_QUEUE) {
        n = 1;
    } else if (dim > 0) {
        n = buffer != AC_UNBOUNDED && dim > buffer ? buffer : dim;
    } else if (pool->retries > 0 && buffer != AC_UNBOUNDED) {
        n = buffer; /* a retry storm can fill every level */
    } else if (rho < 1.0) {
        double rho_t = rho;
        if (pool->retries > 0 && rho * (double)(pool->retries + 1) < 1.0)
            rho_t = rho * (double)(pool->retries + 1);
        rc = truncation(&probe, rho_t, tol, &n, &tail, err);
        if (rc < 0)
            return rc;
        if (buffer != AC_UNBOUNDED && n >= buffer) {
            n = buffer;
            tail = 0.0;
        }
    } else if (buffer != AC_UNBOUNDED) {
        n = buffer;
    } else {
        return ac_error_set(err, AC_EINVAL,
                            "load %.6g >= 1 with an unbounded buffer: no steady state (give a "
                            "dimension for transients)",
                            rho);
    }
    if (n > AC_SOLVER_LEVELS_MAX)
        return ac_error_set(err, AC_ELIMIT, "a buffer of %zu levels is over the limit of %d", n,
                            AC_SOLVER_LEVELS_MAX);

    rc = ac_solver_model_alloc(n, &m, err);
    if (rc < 0)
        return rc;
    m->policy = policy;
    m->servers = N;
    m->lambda = lambda;
    m->mu = mu;
    m->d = probe.d;
    m->distinct = probe.distinct;
    m->retries = pool->retries;
    m->theta = pool->timeout;
    m->real_buffer = buffer != AC_UNBOUNDED && n == buffer;
    m->buffer_x = buffer == AC_UNBOUNDED ? INFINITY : 1.0 + (double)buffer / N;
    if (m->theta > 0.0 && pool->dispatch != AC_DISPATCH_SHARED_QUEUE)
        ac_solver_erlang_cdf_levels(mu, m->theta, n, m->c);
    if (tail_out != NULL)
        *tail_out = tail;
    *out = m;
    return 0;
}

int ac_solver_pool_model_new(const ac_pool *pool, double arrival_rate, size_t dim,
                             ac_solver_pool_model **out, ac_error *err)
{
    return ac_solver_model_build(pool, arrival_rate, dim, NULL, out, NULL, err);
}

void ac_solver_pool_model_free(ac_solver_pool_model *model)
{
    if (model == NULL)
        return;
    free(model->c);
    free(model->a);
    free(model->gp);
    free(model);
}

size_t ac_solver_pool_model_dim(const ac_solver_pool_model *model)
{
    return model->n;
}

void ac_solver_pool_model_set_arrival_rate(ac_solver_pool_model *model, double arrival_rate)
{
    model->lambda = arrival_rate / model->servers;
}

void ac_solver_pool_model_drift(ac_solver_pool_model *model, const double *q, double *out)
{
    ac_solver_model_drift(model, q, out);
}

void ac_solver_pool_model_jacobian(ac_solver_pool_model *model, const double *q, double *out)
{
    ac_solver_model_jacobian(model, q, out);
}

double ac_solver_pool_model_departures(const ac_solver_pool_model *model, const double *q)
{
    double busy = q[0] < 1.0 ? q[0] : 1.0;
    return model->servers * model->mu * busy;
}
