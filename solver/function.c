/*
 * The steady state of a serverless function (models.md §5, doc/serverless.md).
 *
 * One execution on a warm instance runs X ~ Exp(mean d) (d = duration + a fault's delay),
 * cut at the timeout theta: it fails when X > theta (probability e = exp(-theta/d)) or,
 * having ended, with the inherent probability f:
 *     p_fail = e + (1 - e) f,   E[min(X, theta)] = d (1 - e),
 *     E[min(X, theta)^2] = 2 d^2 (1 - e (1 + theta/d)).
 * A cold start adds c0 of initialisation with probability p_cold (below).
 *
 * Sync. A throttled attempt's immediate retries meet the same C busy instances and are
 * throttled too; a failed execution frees its instance and the retry, at once, reuses it.
 * So the busy count is the M/G/C/C loss system of the requests, each holding an instance
 * for E[hold] = p_cold c0 + E[min(X, theta)] sum_{i=0..r} p_fail^i, and the throttle
 * probability is Erlang-B: B(C, lambda E[hold]), exact by insensitivity. A request fails
 * when throttled or when all its r + 1 executions fail: loss = B + (1 - B) p_fail^(r+1).
 *
 * Async. Every attempt (the first, and each retry after its back-off) joins an internal
 * FIFO served by C instances: M/G/C with lambda_att = lambda sum_{i<=r} p_fail^i, whose
 * wait is the Erlang-C wait of M/M/C scaled by (1 + scv) / 2 (Lee and Longton), scv the
 * squared coefficient of variation of the occupancy; load >= C is overload.
 *
 * Polled (a queue's consumer): the executions arrive at the rate given; the queue holds the
 * wait and the redeliveries (solver/queue.c).
 *
 * Cold starts. With the most recently used idle instance taken first and each idle one
 * reclaimed tau after it went idle, the instances alive at t are the most that were busy in
 * (t - tau, t]; an attempt that finds b < C busy starts cold iff the busy count has not
 * exceeded b in the last tau seconds. The busy count is reversible, so by PASTA
 *     P(cold) = sum_{b=F}^{C-1} pi_b P_b(T_{b+1} > tau) / sum_{b<C} pi_b,
 * pi the Erlang (truncated Poisson) law at the load, F the floor of instances kept alive
 * (provisioned; pre-warmed during the fraction min(1, tau / I) of the time their pings
 * keep them), and P_b(T_{b+1} > tau) ~ exp(-tau / E_b[T_{b+1}]) with
 * E_b[T_{b+1}] = P(B <= b) / (lambda pi_b) (exact for b = 0: e^{-lambda tau}). The load
 * depends on p_cold through c0: a fixed-point iteration. (The exact law of T_{b+1}, by
 * uniformization, moves P(cold) by under 2% on bench_serverless's cases: the gap to the
 * simulator, 10-20% low at moderate rates, comes from the deterministic initialisation and
 * the clustering of cold starts at high busy counts, which the birth-death chain ignores.) The
 * scale rate s caps new instances: cold starts above s per second are counted as throttled (sync; a
 * bound).
 *
 * Response law of a successful request: a mixture over the i failed executions before the
 * successful one (weights p_fail^i (1 - p_fail), renormalised over i <= r), then
 * [c0 if cold] + [async wait] + X | X <= theta.
 * Sync: each failed execution takes theta (a timeout, share a = e / p_fail) or X | X <= theta
 * (an inherent failure), independently, so with k timeouts among the i failures the time is
 * k theta + S_{i-k+1}, S_m the sum of m iid Y = X | X <= theta (Y's law, Exp(beta) truncated
 * at theta, Z = 1 - e^{-beta theta}); by inclusion-exclusion over the coordinates above theta
 *     P(S_m <= x) = Z^{-m} sum_{j=0..m} (-1)^j C(m, j) e^{-beta j theta} P(Erlang(m, beta) <= x - j
 * theta) (exact; theta infinite: Erlang(m, beta)). The law is the binomial mixture over k of these.
 * Async: each failed execution takes its mean time plus its mean wait and the back-off (60 s,
 * then 120 s): the back-offs dominate and the shift is stated as such (mean-field).
 *
 * Stated error: 0 for the Erlang-B numbers without cold starts (with them, an absolute error
 * of the throttle, sync_throttle_abs); otherwise the change of the
 * load (and of a throttle probability above 1e-6) when p_cold is off by half (the cold-start
 * formula's approximation: bench_serverless measures it 10-20% low at moderate rates, exact
 * at low ones), plus (async, occupancy not exponential) 5% + |scv - 1| / 4 of the wait.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_sf_gamma.h>

#include "archcheck/serverless.h"

/*
 * Erlang B by the reciprocal recursion r_k = 1 / B(k, A) = 1 + (k / A) r_(k-1), r_0 = 1: every
 * term positive (no cancellation), as stable as B_k = A B_(k-1) / (k + A B_(k-1)), but
 * without a division in the chain, and unrolled two levels at a time,
 * r_(k+1) = (1 + a_(k+1)) + a_(k+1) a_k r_(k-1) with a_k = k / A, so that the dependent chain
 * is one multiply-add per two servers (the division's latency made the old loop the
 * transient metrics' costliest, ~20% of an evaluation's cycles on serverless-pipeline).
 * r overflows to infinity where B underflows: B = 1 / r = 0 there, as before.
 */
double ac_solver_erlang_b(size_t servers, double load)
{
    double r = 1.0, inv;
    size_t k = 1;
    if (!(load > 0.0))
        return servers == 0 ? 1.0 : 0.0;
    inv = 1.0 / load;
    for (; k + 1 <= servers; k += 2) {
        double a0 = (double)k * inv, a1 = (double)(k + 1) * inv;
        r = (1.0 + a1) + (a1 * a0) * r;
    }
    if (k <= servers)
        r = 1.0 + (double)k * inv * r;
    return 1.0 / r;
}

double ac_solver_erlang_c(size_t servers, double load)
{
    double b, c = (double)servers;
    if (!(load > 0.0))
        return 0.0;
    if (load >= c)
        return 1.0;
    b = ac_solver_erlang_b(servers, load);
    return c * b / (c - load * (1.0 - b));
}

/* P(cold) of an admitted attempt: the sum above, in log space (pi_b far in the tail
 * underflows harmlessly). `up` is the arrival rate at the busy count, `load` its mean. */
static double cold_probability(size_t C, double load, double up, double tau, size_t floor_, int qs)
{
    double logZ = -INFINITY, num = 0.0, den = 0.0, cdf = 0.0, logA, sq = 0.0;
    size_t lo, hi, mode;
    if (!(load > 0.0) || !(up > 0.0) || C == 0)
        return 0.0;
    if (floor_ >= C)
        return 0.0;
    logA = log(load);
    mode = (size_t)fmin((double)C, floor(load));
    /* the mass of the truncated Poisson lies within mode +- 40 sqrt(load) + 50 */
    {
        double w = 40.0 * sqrt(load) + 50.0;
        lo = (double)mode > w ? mode - (size_t)w : 0;
        hi = (double)mode + w < (double)C ? mode + (size_t)w : C;
    }
    for (size_t b = lo; b <= hi; b++) {
        double lp = (double)b * logA - lgamma((double)b + 1.0);
        logZ = logZ > lp ? logZ + log1p(exp(lp - logZ)) : lp + log1p(exp(logZ - lp));
    }
    /* cumulative P(B <= b) needs the mass below lo: negligible by the window's width */
    for (size_t b = lo; b <= hi && b < C; b++) {
        double pi = exp((double)b * logA - lgamma((double)b + 1.0) - logZ);
        cdf += pi;
        den += pi;
        if (pi > 0.0)
            sq += cdf * cdf / (up * pi);
        if (b >= floor_ && pi > 0.0)
            num += pi * (qs ? exp(-tau * cdf / sq) : exp(-tau * up * pi / cdf));
    }
    return den > 0.0 ? fmin(1.0, num / den) : 0.0;
}

/* P(cold) with the mitigations: provisioned P always; pre-warmed W during the fraction
 * min(1, tau / I) of the time. */
static double cold_with_floor(const ac_function *fn, size_t C, double load, double up, int qs)
{
    double tau = fn->keep_alive;
    double p = cold_probability(C, load, up, tau, fn->provisioned, qs);
    if (fn->prewarm > fn->provisioned && fn->prewarm_interval > 0.0) {
        double share = fmin(1.0, tau / fn->prewarm_interval);
        double pw = cold_probability(C, load, up, tau, fn->prewarm, qs);
        p = share * pw + (1.0 - share) * p;
    }
    return p;
}

/*
 * The stated error of P(cold). The headline takes T_{b+1} exponential with the mean from b,
 * E_b[T_{b+1}]; that misses the passages that go down first and come back slowly, so it is
 * a lower value (on the accuracy harness's 300 functions the simulator is up to 10^3 times
 * above it when P(cold) is tiny, e^{-tau / E_b} for lambda tau >> 1). The quasi-stationary
 * rate 1 / E_{pi|<=b}[T_{b+1}], with E_{pi|<=b}[T_{b+1}] = sum_{k<=b} P(B<=k)^2 /
 * (lambda pi_k) / P(B<=b) (birth-death passages), brackets it from above on the same
 * table; the error is the bracket's width (and at least 50%, the deterministic
 * initialisation's share). When the scale rate binds, the token wait turns cold starts
 * into warm ones (async): 100%.
 */
static double cold_error(const ac_function *fn, const ac_solver_function_result *r, double load,
                         double up, double fresh)
{
    double lo = r->cold_probability, hi, e = 0.5;
    if (!(lo > 0.0))
        return 0.0;
    hi = fresh * cold_with_floor(fn, r->concurrency, load, up, 1) * lo / fmax(r->cold_request, lo);
    if (hi > lo)
        e = fmax(e, (hi - lo) / lo);
    if (r->cold_start_rate > 0.5 * fn->scale_rate)
        e = fmax(e, 1.0);
    return e;
}

/*
 * Erlang-B with the cold starts where they happen. An arrival at b busy starts cold with
 * probability q_b = P_b(T_{b+1} > tau) ~ exp(-tau lambda pi_b / P(B <= b)) (the passage of
 * cold_probability), which is ~1 in the rare high states that throttling comes from: the
 * holding time depends on the state and insensitivity no longer holds (the harness: Erlang-B
 * at the mean load 30-50% below the simulated throttle). The birth-death chain with
 * births lambda and deaths (b + 1) / h_b from b + 1, h_b = hold_warm + c0 q_b (every job
 * present as cold as the last one to arrive: an upper value), gives
 *     B_chain = w_C / sum_b w_b,   w_{b+1} = w_b lambda h_b / (b + 1),
 * in log space. States below `floor_` are warm. Above 1e6 instances: every start cold
 * (B(C, lambda (c0 + hold_warm)), a coarser upper value).
 */
static double erlang_b_cold_states(size_t C, double lambda, double hold_warm, double c0,
                                   double load, double tau, size_t floor_)
{
    double logA, logZ = -INFINITY, logcdf = -INFINITY, lw = 0.0, logS = 0.0;
    if (C > 1000000)
        return ac_solver_erlang_b(C, lambda * (c0 + hold_warm));
    if (!(load > 0.0) || !(lambda > 0.0))
        return 0.0;
    logA = log(load);
    for (size_t b = 0; b <= C; b++) {
        double lp = (double)b * logA - lgamma((double)b + 1.0);
        logZ = logZ > lp ? logZ + log1p(exp(lp - logZ)) : lp + log1p(exp(logZ - lp));
    }
    for (size_t b = 0; b < C; b++) {
        double lp = (double)b * logA - lgamma((double)b + 1.0) - logZ, q, h;
        logcdf = logcdf > lp ? logcdf + log1p(exp(lp - logcdf)) : lp + log1p(exp(logcdf - lp));
        q = b < floor_ ? 0.0 : exp(-tau * lambda * exp(lp - logcdf));
        h = hold_warm + c0 * q;
        lw += log(lambda * h) - log((double)b + 1.0);
        logS = logS > lw ? logS + log1p(exp(lw - logS)) : lw + log1p(exp(logS - lw));
    }
    return exp(lw - logS);
}

/*
 * The absolute error of a sync function's throttle (and loss), the part that does not vanish
 * with the value (the accuracy harness: Erlang-B throttles of 1e-18 against 3e-3 simulated):
 *  - the cold starts' place: erlang_b_cold_states - B, and the cold-start bracket: P(cold)
 *    up to p_hi = p_cold (1 + cold_rel_error) raises the mean load to lambda (p_hi c0 +
 *    E[min(X, theta)] n_exec): the larger of the two B(...) - B;
 *  - the scale-token bucket (depth max(1, s), refilled at s): cold starts come in clusters
 *    (the busy count climbing past its recent peak makes every arrival start one), which the
 *    mean cold-start rate does not see. A cluster is at most the arrival stream itself, so the
 *    attempts that need a cold start (p_hi of them) are refused at most as often as a Poisson
 *    stream of every admitted arrival is refused by that bucket: p_hi x P_block, the M/D/1/K
 *    blocking of ac_solver_gateway_solve with K = max(1, floor(s)) (a shallower bucket: more
 *    refusals). Measured, not proven (accuracy harness, function family).
 */
static double sync_throttle_abs(const ac_function *fn, const ac_solver_function_result *r,
                                double hold_warm, double B)
{
    double lambda = r->arrival_rate, p_hi, b_hi, tok = 0.0;
    ac_gateway gw;
    ac_solver_gateway_result g;
    ac_error e = {0};
    if (!(r->cold_request > 0.0) || !(lambda > 0.0))
        return 0.0;
    p_hi = fmin(1.0, r->cold_request * (1.0 + fmax(r->cold_rel_error, 0.5)));
    if (!isfinite(p_hi))
        p_hi = 1.0;
    b_hi = ac_solver_erlang_b(r->concurrency, lambda * (p_hi * r->cold_start + hold_warm));
    {
        /* the pre-warmed floor only when its pings keep it all the time */
        size_t floor_ = fn->provisioned;
        if (fn->prewarm > floor_ && fn->prewarm_interval > 0.0 &&
            fn->keep_alive >= fn->prewarm_interval)
            floor_ = fn->prewarm;
        b_hi = fmax(b_hi, erlang_b_cold_states(r->concurrency, lambda, hold_warm, r->cold_start,
                                               r->load, fn->keep_alive, floor_));
    }
    gw.rate_limit = fn->scale_rate;
    gw.burst = (size_t)floor(fmin(ac_function_scale_depth(fn), 1e6));
    gw.timeout = 0.0;
    if (isfinite(fn->scale_rate) &&
        ac_solver_gateway_solve(&gw, lambda * (1.0 - B), 0.0, &g, &e) == AC_OK)
        tok = p_hi * fmin(1.0, g.reject_probability + g.expected_abs_error);
    else if (isfinite(fn->scale_rate))
        tok = p_hi;
    tok = fmin(1.0, fmax(0.0, b_hi - B) + tok);
    return tok > 1e-12 ? tok : 0.0; /* below rounding: the Erlang-B value stays exact */
}

/* P(E + Y <= t), E ~ Exp(alpha) (alpha = INFINITY: 0), Y ~ Exp(beta) conditioned on
 * Y <= theta:  (1/Z) [1 - e^{-beta m} - beta e^{-alpha t} (e^{(alpha-beta) m} - 1)/(alpha-beta)],
 * m = min(t, theta), Z = 1 - e^{-beta theta}. */
static double exp_plus_trunc(double alpha, double beta, double theta, double t)
{
    double m, z, v;
    if (t <= 0.0)
        return 0.0;
    m = fmin(t, theta);
    z = -expm1(-beta * theta);
    if (!(z > 0.0))
        return t >= theta ? 1.0 : 0.0;
    if (isinf(alpha)) {
        v = -expm1(-beta * m);
    } else if (fabs(alpha - beta) < 1e-9 * beta) {
        v = -expm1(-beta * m) - beta * m * exp(-alpha * t);
    } else {
        /* beta e^{-alpha t} (e^{(alpha-beta)m} - 1) / (alpha - beta)
           = beta (e^{-alpha (t-m) - beta m} - e^{-alpha t}) / (alpha - beta) */
        v = -expm1(-beta * m) -
            beta * (exp(-alpha * (t - m) - beta * m) - exp(-alpha * t)) / (alpha - beta);
    }
    return fmin(1.0, fmax(0.0, v / z));
}

/* One attempt's successful time, without the shift: [c0 if cold] + [wait] + Y. */
static double attempt_cdf(const ac_solver_function_result *r, double t)
{
    double beta = 1.0 / r->mean_execution, theta = r->timeout;
    double pw = r->mode == AC_SOLVER_FN_ASYNC ? r->wait_probability : 0.0;
    double alpha = r->wait_rate > 0.0 ? r->wait_rate : INFINITY;
    double warm, cold = 0.0;
    warm = (1.0 - pw) * exp_plus_trunc(INFINITY, beta, theta, t) +
           pw * exp_plus_trunc(alpha, beta, theta, t);
    if (r->cold_request > 0.0)
        cold = (1.0 - pw) * exp_plus_trunc(INFINITY, beta, theta, t - r->cold_start) +
               pw * exp_plus_trunc(alpha, beta, theta, t - r->cold_start);
    return (1.0 - r->cold_request) * warm + r->cold_request * cold;
}

/* P(S_m <= x), S_m the sum of m iid Exp(beta) truncated at theta (the formula above). */
static double trunc_sum_cdf(size_t m, double beta, double theta, double x)
{
    double s = 0.0, z, binom = 1.0;
    if (!(x > 0.0))
        return 0.0;
    if (isinf(theta))
        return gsl_sf_gamma_inc_P((double)m, beta * x);
    if (x >= (double)m * theta)
        return 1.0;
    z = -expm1(-beta * theta);
    for (size_t j = 0; j <= m && x - (double)j * theta > 0.0; j++) {
        double term = binom * exp(-beta * (double)j * theta) *
                      gsl_sf_gamma_inc_P((double)m, beta * (x - (double)j * theta));
        s += (j % 2 == 0) ? term : -term;
        binom = binom * (double)(m - j) / (double)(j + 1);
    }
    return fmin(1.0, fmax(0.0, s / pow(z, (double)m)));
}

/* Sync: P(T <= t) given i failed executions before the successful one, cold start excluded:
 * sum_k C(i, k) a^k (1 - a)^(i-k) P(S_{i-k+1} <= t - k theta), a = r->timeout_share. */
static double sync_try_cdf(const ac_solver_function_result *r, size_t i, double t)
{
    double beta = 1.0 / r->mean_execution, a = r->timeout_share, s = 0.0, binom = 1.0;
    for (size_t k = 0; k <= i; k++) {
        double w = binom * pow(a, (double)k) * pow(1.0 - a, (double)(i - k));
        if (w > 0.0)
            s += w * trunc_sum_cdf(i - k + 1, beta, r->timeout, t - (double)k * r->timeout);
        binom = binom * (double)(i - k) / (double)(k + 1);
        if (isinf(r->timeout))
            break; /* a = 0: no timeouts */
    }
    return s;
}

double ac_solver_function_cdf(const ac_solver_function_result *r, double t)
{
    double s = 0.0;
    if (t <= 0.0)
        return 0.0;
    if (r->mode != AC_SOLVER_FN_ASYNC) {
        for (size_t i = 0; i < r->ntries; i++)
            if (r->weight[i] > 0.0)
                s += r->weight[i] * ((1.0 - r->cold_request) * sync_try_cdf(r, i, t) +
                                     (r->cold_request > 0.0
                                          ? r->cold_request * sync_try_cdf(r, i, t - r->cold_start)
                                          : 0.0));
        return fmin(1.0, s);
    }
    for (size_t i = 0; i < r->ntries; i++)
        if (r->weight[i] > 0.0)
            s += r->weight[i] * attempt_cdf(r, t - r->shift[i]);
    return fmin(1.0, s);
}

static double cdf_cb(const void *ctx, double t)
{
    return ac_solver_function_cdf(ctx, t);
}

int ac_solver_law_quantile(double (*cdf)(const void *ctx, double t), const void *ctx, double p,
                           double *out, ac_error *err)
{
    double lo = 0.0, hi = 1e-3;
    *out = NAN;
    if (!(p > 0.0 && p < 1.0))
        return ac_error_set(err, AC_EINVAL, "quantile %g outside (0, 1)", p);
    /* an atom at 0 (a wait that is 0 with probability >= p): the quantile is 0, not the
       bisection's last step towards it (it used to end near 1e-58 s) */
    if (cdf(ctx, 0.0) >= p) {
        *out = 0.0;
        return AC_OK;
    }
    while (cdf(ctx, hi) < p) {
        hi *= 2.0;
        if (hi > 1e12)
            return ac_error_set(err, AC_ENUMERIC, "quantile %g beyond 1e12 s", p);
    }
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (cdf(ctx, mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    *out = 0.5 * (lo + hi);
    return AC_OK;
}

/* The response mixture: weights over i failed executions before the successful one. */
static void response_mixture(ac_solver_function_result *r, double pf, size_t retries, double t_fail)
{
    size_t n = retries + 1 < AC_SOLVER_FN_MAX_TRIES ? retries + 1 : AC_SOLVER_FN_MAX_TRIES;
    double total = 0.0, shift = 0.0;
    for (size_t i = 0; i < n; i++) {
        r->weight[i] = pow(pf, (double)i) * (1.0 - pf);
        total += r->weight[i];
    }
    /* retries beyond the table keep their mass on the last slot */
    for (size_t i = n; i <= retries && i < 1000; i++) {
        double w = pow(pf, (double)i) * (1.0 - pf);
        r->weight[n - 1] += w;
        total += w;
    }
    for (size_t i = 0; i < n; i++) {
        r->weight[i] = total > 0.0 ? r->weight[i] / total : (i == 0 ? 1.0 : 0.0);
        r->shift[i] = shift;
        shift += t_fail;
        if (r->mode == AC_SOLVER_FN_ASYNC)
            shift += r->mean_wait + (i == 0 ? 60.0 : 120.0);
    }
    r->ntries = n;
}

static int function_solve(const ac_function *fn, double arrival_rate, ac_solver_fn_mode mode,
                          double delay, double fresh, ac_solver_function_result *out,
                          ac_error *err);

int ac_solver_function_solve(const ac_function *fn, double arrival_rate, ac_solver_fn_mode mode,
                             double delay, ac_solver_function_result *out, ac_error *err)
{
    return function_solve(fn, arrival_rate, mode, delay, 1.0, out, err);
}

int ac_solver_function_solve_polled(const ac_function *fn, double executions, double fresh,
                                    ac_solver_function_result *out, ac_error *err)
{
    return function_solve(fn, executions, AC_SOLVER_FN_POLLED, 0.0,
                          fmin(1.0, fmax(0.0, isfinite(fresh) ? fresh : 1.0)), out, err);
}

/* A sync function: a loss system (Erlang-B) holding each request for its cold start (with
 * probability p_cold, a fixed point) and its executions, m1 each, n_exec per request. */
static void solve_sync(const ac_function *fn, double lambda, double m1, double n_exec, double pf,
                       size_t retries, ac_solver_function_result *r)
{
    size_t C = fn->concurrency;
    double c0 = fn->cold_start;
    double p_cold = 0.0, B = 0.0, A = 0.0, thr, hold = 0.0;
    for (int it = 0; it < 50; it++) {
        double prev = p_cold;
        hold = p_cold * c0 + m1 * n_exec;
        A = lambda * hold;
        B = ac_solver_erlang_b(C, A);
        p_cold = cold_with_floor(fn, C, A, lambda, 0);
        if (fabs(p_cold - prev) <= 1e-12 + 1e-9 * p_cold)
            break;
    }
    hold = p_cold * c0 + m1 * n_exec;
    A = lambda * hold;
    B = ac_solver_erlang_b(C, A);
    r->cold_probability = p_cold / n_exec; /* per execution: retries reuse the instance */
    r->cold_request = p_cold;
    r->cold_start_rate = lambda * (1.0 - B) * p_cold;
    thr = B;
    if (r->cold_start_rate > fn->scale_rate && lambda > 0.0) {
        r->scale_throttle = (r->cold_start_rate - fn->scale_rate) / lambda;
        thr = fmin(1.0, B + r->scale_throttle);
        r->cold_start_rate = fn->scale_rate;
        r->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
    }
    r->load = A;
    r->occupancy = hold / n_exec;
    r->throttle_probability = thr;
    r->loss_probability = thr + (1.0 - thr) * pow(pf, (double)retries + 1.0);
    r->execution_rate = lambda * (1.0 - thr) * n_exec;
    r->throughput = lambda * (1.0 - r->loss_probability);
    r->busy = lambda * (1.0 - thr) * hold;
    /* the stated error: p_cold off by half moves the load by p_cold c0 / 2 */
    if (0.5 * p_cold * c0 / hold > 1e-9 && A > 0.0) {
        double dA = 0.5 * lambda * p_cold * c0;
        double b_hi = ac_solver_erlang_b(C, A + dA);
        r->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
        /* the throttle's relative error counts once it can matter (above 1e-6) */
        r->expected_rel_error = fmax(dA / A, B > 1e-6 ? (b_hi - B) / B : 0.0);
    }
    if (r->scale_throttle > 0.0)
        r->expected_rel_error = fmax(r->expected_rel_error, r->scale_throttle / thr);
}

/* An async or polled function: an M/G/C queue of the executions (n_exec per request for
 * async, one per delivery when polled), each holding an instance for its cold start and m1
 * (second moment m2 without the cold start). */
static void solve_queued(const ac_function *fn, ac_solver_fn_mode mode, double lambda, double m1,
                         double m2, double n_exec, double pf, size_t retries, double fresh,
                         ac_solver_function_result *r)
{
    size_t C = fn->concurrency;
    double c0 = fn->cold_start;
    double att = lambda * n_exec, p_cold = 0.0, A = 0.0;
    for (int it = 0; it < 50; it++) {
        double prev = p_cold;
        A = att * (p_cold * c0 + m1);
        p_cold = fresh * cold_with_floor(fn, C, fmin(A, (double)C), att, 0);
        if (fabs(p_cold - prev) <= 1e-12 + 1e-9 * p_cold)
            break;
    }
    r->cold_probability = p_cold;
    r->cold_request = p_cold;
    r->occupancy = p_cold * c0 + m1;
    A = att * r->occupancy;
    r->load = A;
    r->execution_rate = att;
    r->cold_start_rate = att * p_cold;
    {
        double e1 = r->occupancy, e2 = p_cold * c0 * c0 + 2.0 * p_cold * c0 * m1 + m2;
        r->occupancy_scv = e1 > 0.0 ? fmax(0.0, e2 / (e1 * e1) - 1.0) : 0.0;
    }
    r->busy = fmin(A, (double)C);
    if (mode == AC_SOLVER_FN_ASYNC) {
        r->loss_probability = pow(pf, (double)retries + 1.0);
        if (A >= (double)C) {
            r->overload = 1;
            r->mean_wait = INFINITY;
            r->wait_probability = 1.0;
        } else if (A > 0.0) {
            double scale = 0.5 * (1.0 + r->occupancy_scv);
            r->wait_probability = ac_solver_erlang_c(C, A);
            r->mean_wait = r->wait_probability * scale / ((double)C / r->occupancy - att);
            r->wait_rate = r->mean_wait > 0.0 ? r->wait_probability / r->mean_wait : 0.0;
            /* the wait's error, as a share of the time at the function, and the
               cold-start formula's */
            double scv_gap = fabs(r->occupancy_scv - 1.0);
            r->expected_rel_error = (scv_gap > 1e-3 ? 0.05 + 0.25 * scv_gap : 0.0) * r->mean_wait /
                                        (r->mean_wait + r->occupancy) +
                                    0.5 * p_cold * c0 / r->occupancy;
            if (r->expected_rel_error > 1e-9)
                r->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
            else
                r->expected_rel_error = 0.0;
        }
    } else {
        r->loss_probability = pf; /* per execution; the queue redelivers */
        if (A >= (double)C)
            r->overload = 1;
        if (0.5 * p_cold * c0 / r->occupancy > 1e-9) {
            r->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
            r->expected_rel_error = 0.5 * p_cold * c0 / r->occupancy;
        }
    }
    r->throughput = lambda * (1.0 - r->loss_probability);
}

static int function_solve(const ac_function *fn, double arrival_rate, ac_solver_fn_mode mode,
                          double delay, double fresh, ac_solver_function_result *out, ac_error *err)
{
    ac_solver_function_result *r = out;
    double d, theta, c0, e, m1, m2, pf, tf, n_exec, lambda = arrival_rate;
    size_t C = fn->concurrency, retries = mode == AC_SOLVER_FN_POLLED ? 0 : fn->retries;
    memset(r, 0, sizeof *r);
    if (!(arrival_rate >= 0.0) || !isfinite(arrival_rate) || !(delay >= 0.0))
        return ac_error_set(err, AC_EINVAL, "function: invalid arrival rate %g or delay %g",
                            arrival_rate, delay);
    d = fn->duration + delay;
    theta = fn->timeout > 0.0 ? fn->timeout : INFINITY;
    c0 = fn->cold_start;
    e = isinf(theta) ? 0.0 : exp(-theta / d);
    m1 = d * (1.0 - e);
    m2 = isinf(theta) ? 2.0 * d * d : 2.0 * d * d * (1.0 - e * (1.0 + theta / d));
    pf = e + (1.0 - e) * fn->fail_prob;
    /* the mean time of a failed execution: theta for a timeout, E[X | X <= theta] for an
       inherent failure */
    {
        double ex = e < 1.0 ? d - (isinf(theta) ? 0.0 : theta * e / (1.0 - e)) : theta;
        tf = pf > 0.0 ? (e * (isinf(theta) ? 0.0 : theta) + (1.0 - e) * fn->fail_prob * ex) / pf
                      : 0.0;
    }
    n_exec = 0.0;
    for (size_t i = 0; i <= retries && i < 100000; i++) {
        double t = pow(pf, (double)i);
        n_exec += t;
        if (t < 1e-18)
            break;
    }
    r->mode = mode;
    r->concurrency = C;
    r->arrival_rate = lambda;
    r->execution_failure = pf;
    r->cold_start = c0;
    r->mean_execution = d;
    r->timeout = theta;
    r->timeout_share = pf > 0.0 ? e / pf : 0.0;
    r->approximation = AC_SOLVER_APPROX_EXACT;

    if (mode == AC_SOLVER_FN_SYNC)
        solve_sync(fn, lambda, m1, n_exec, pf, retries, r);
    else
        solve_queued(fn, mode, lambda, m1, m2, n_exec, pf, retries, fresh, r);
    r->cold_rel_error =
        cold_error(fn, r, mode == AC_SOLVER_FN_SYNC ? r->load : fmin(r->load, (double)C),
                   mode == AC_SOLVER_FN_SYNC ? lambda : r->execution_rate, fresh);
    if (mode == AC_SOLVER_FN_SYNC) {
        r->throttle_abs_error = sync_throttle_abs(fn, r, m1 * n_exec, r->throttle_probability);
        if (r->throttle_abs_error > 0.0)
            r->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
    }
    r->utilization = C > 0 ? r->busy / (double)C : 0.0;
    r->occupancy_scv = r->occupancy_scv > 0.0 ? r->occupancy_scv : 0.0;
    response_mixture(r, pf, retries, tf);
    if (r->overload) {
        r->mean_response_time = r->p50 = r->p95 = r->p99 = INFINITY;
        return AC_OK;
    }
    {
        double ey = e < 1.0 ? d - (isinf(theta) ? 0.0 : theta * e / (1.0 - e)) : theta;
        double one = r->cold_request * c0 + ey + (mode == AC_SOLVER_FN_ASYNC ? r->mean_wait : 0.0);
        double mean = 0.0;
        for (size_t i = 0; i < r->ntries; i++)
            mean += r->weight[i] * (r->shift[i] + one);
        r->mean_response_time = mean;
    }
    {
        ac_error e2 = {0};
        if (ac_solver_law_quantile(cdf_cb, r, 0.50, &r->p50, &e2) != AC_OK ||
            ac_solver_law_quantile(cdf_cb, r, 0.95, &r->p95, &e2) != AC_OK ||
            ac_solver_law_quantile(cdf_cb, r, 0.99, &r->p99, &e2) != AC_OK)
            return ac_error_set(err, AC_ENUMERIC, "function: %s", e2.message);
    }
    return AC_OK;
}
