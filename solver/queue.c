/*
 * The steady state of a message queue and its consumer (doc/serverless.md).
 *
 * A delivery hands a batch to the consumer function as `fanout` executions; it succeeds when
 * every execution succeeds within the visibility timeout V:
 *     p_ok = (1 - f) [(1 - p_cold) (1 - e^{-min(theta, V) / d})
 *                     + p_cold (1 - e^{-min(theta, V - c0) / d})],   p_del = 1 - p_ok^fanout,
 * a failed delivery's messages reappear V after the receive, and after R receives a
 * message is dead-lettered: P(DLQ) = p_del^R, receives = sum_{i<R} p_del^i.
 *
 * The consumer executions (lambda (1 - reject) receives fanout per second) are served by
 * c = min(max-consumers, concurrency) slots with occupancy p_cold c0 + E[min(X, theta)]. With
 * fanout 1 and no capacity a free slot takes min(b, visible) messages as one execution: the
 * M/M^[b]/c bulk queue (bulk_solve). Otherwise batches of one: an M/G/c queue, solved as the
 * M/M/c(/K) of the pool solver (shared-queue), or with a capacity the truncated product form
 * of the slots and the invisible failed receives (held_law_solve); a batch size > 1 there
 * states the distance to the bulk law. The wait is scaled by (1 + scv) / 2 (Lee and Longton).
 * When batches of one cannot keep up but full batches of b can (a bounded queue, a fan-out),
 * the slots are solved at the rate of full batches with a stated error of 100%. A capacity
 * the greedy batches never reach keeps the bulk law; a fan-out's wait is bounded above by
 * super-slots (fanout_upper), the headline, with the distance to the M/M/c of the
 * executions as its error.
 *
 * Throughput (output.md): messages delivered successfully, lambda (1 - loss); the consumer
 * route carries receive_rate, every receive (redeliveries included).
 *
 * A message's time in the queue: i failed receives before the successful one (weights
 * p_del^i (1 - p_del), i < R), each costing V plus a wait, then the wait of the successful
 * receive.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "archcheck/serverless.h"

/* The deepest waiting buffer solved as such (the parser's limit on a pool's buffer). */
#define AC_SOLVER_QUEUE_BUFFER_MAX 100000

void ac_solver_queue_result_clear(ac_solver_queue_result *r)
{
    if (r == NULL)
        return;
    ac_solver_pool_result_free(r->slots_model);
    memset(r, 0, sizeof *r);
}

/* The redelivery mixture, once per solution: i failed receives before the successful one
 * (i < R), weights p_del^i (1 - p_del) renormalised, each costing V plus a receive's wait. */
static void set_mixture(ac_solver_queue_result *r)
{
    double pd = r->delivery_failure, total = 0.0;
    size_t n = r->max_receives < AC_SOLVER_FN_MAX_TRIES ? r->max_receives : AC_SOLVER_FN_MAX_TRIES;
    if (n == 0)
        n = 1;
    for (size_t i = 0; i < n; i++) {
        r->weight[i] = pow(pd, (double)i) * (1.0 - pd);
        total += r->weight[i];
        r->shift[i] = (double)i * (r->visibility_timeout + r->receive_wait);
    }
    for (size_t i = 0; i < n; i++)
        r->weight[i] = total > 0.0 ? r->weight[i] / total : (i == 0 ? 1.0 : 0.0);
    r->ntries = n;
}

static double wait_cdf(const ac_solver_queue_result *r, double t)
{
    if (t < 0.0)
        return 0.0;
    if (r->slots_model == NULL) /* M/M/c: C(c, a) e^{-(c mu - lambda) t} */
        return 1.0 - r->erlang_c * exp(-r->wait_decay * t / r->wait_scale);
    return 1.0 -
           ac_solver_pool_wait_ccdf(r->slots_model, r->slots_model->operating, t / r->wait_scale);
}

double ac_solver_queue_cdf(const ac_solver_queue_result *r, double t)
{
    double s = 0.0;
    if (t < 0.0 || r->overload)
        return 0.0;
    for (size_t i = 0; i < r->ntries; i++)
        s += r->weight[i] * wait_cdf(r, t - r->shift[i]);
    return fmin(1.0, s);
}

static double cdf_cb(const void *ctx, double t)
{
    return ac_solver_queue_cdf(ctx, t);
}

/* The messages held when capacity K bounds them (doc/serverless.md: a message is held from
 * its arrival to its deletion, visible or in flight, including the V - (execution) that a
 * failed receive stays invisible). The messages form an open network of two stations: the c
 * slots (M/M/c, offered a = lambda_exec occ Erlangs) and the invisible failed receives (an
 * infinite-server station holding m = lambda_fail t_inv on average, t_inv = V minus the failed
 * execution). It is a BCMP network (classes by receive count: R-bounded routing), and blocking
 * arrivals when K are held truncates its product form (Jackson 1963; Kelly 1979, 1.6):
 *     pi(n, j) ~ w_c(n) m^j / j!,  n + j <= K,   w_c(n) = a^n / n! (n <= c),
 *                                                w_c(c) (a / c)^(n - c) (n > c),
 * so with Wm(j) = sum_{i<=j} m^i / i!: Z = sum_n w_c(n) Wm(K - n), the rejection (PASTA)
 * P(n + j = K) = sum_n w_c(n) m^(K-n) / (K-n)! / Z, E[j] = m sum_n w_c(n) Wm(K-n-1) / Z.
 * Exact for exponential executions (scv 1) without cold starts; O(K) work. */
typedef struct held_law {
    double reject, mean_held, queue_len, wait_prob;
} held_law;

static int held_law_solve(size_t K, size_t c, double a, double m, held_law *out)
{
    double *lw = malloc((K + 1) * sizeof *lw), top = -INFINITY, z = 0.0, pk = 0.0, ni = 0.0,
           ns = 0.0, lq = 0.0, pw = 0.0, la = log(a), lm = log(m);
    if (lw == NULL)
        return AC_ENOMEM;
    /* lw[j] = log Wm(j) - m (the Poisson cdf, in logs) */
    for (size_t j = 0; j <= K; j++) {
        double t =
            m > 0.0 ? (double)j * lm - lgamma((double)j + 1.0) - m : (j == 0 ? 0.0 : -INFINITY);
        lw[j] = j == 0 ? t : fmax(lw[j - 1], t) + log1p(exp(-fabs(lw[j - 1] - t)));
        if (isnan(lw[j]))
            lw[j] = j == 0 ? t : lw[j - 1];
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t n = 0; n <= K; n++) {
            double ls = n <= c ? (double)n * la - lgamma((double)n + 1.0)
                               : (double)c * la - lgamma((double)c + 1.0) +
                                     (double)(n - c) * (la - log((double)c));
            double t = ls + lw[K - n];
            if (pass == 0) {
                top = fmax(top, t);
                continue;
            }
            {
                double w = exp(t - top),
                       wj = exp(ls +
                                (m > 0.0 ? (double)(K - n) * lm - lgamma((double)(K - n) + 1.0) - m
                                         : (n == K ? 0.0 : -INFINITY)) -
                                top);
                z += w;
                pk += wj;
                ns += (double)n * w;
                if (n >= c) {
                    lq += (double)(n - c) * w;
                    pw += w;
                }
                if (n < K)
                    ni += m * exp(ls + lw[K - n - 1] - top);
            }
        }
    }
    free(lw);
    out->reject = pk / z;
    out->mean_held = (ns + ni) / z;
    out->queue_len = lq / z;
    out->wait_prob = pw / z;
    return AC_OK;
}

/* h(z) = z^(b+1) - (1 + r) z + r, r = lambda / (c mu): its root in (0, 1) is the ratio of
 * the geometric tail of the bulk-service queue below. */
typedef struct bulk_ctx {
    double r, b;
} bulk_ctx;

static double bulk_h(double z, void *params)
{
    const bulk_ctx *c = params;
    return pow(z, c->b + 1.0) - (1.0 + c->r) * z + c->r;
}

/*
 * The consumer slots with greedy batches (doc/serverless.md: a free slot takes min(b,
 * visible) messages as one execution), an M/M^[b]/c bulk-service queue. Below c busy slots
 * nothing waits; with all c busy and n messages visible a completion (rate c mu) takes
 * min(b, n). Its balance equations have the product solution
 *     p(k) = p0 a^k / k!  (k <= c busy),   p(c, n) = p(c, 0) z^n,
 *     c mu z^(b+1) - (lambda + c mu) z + lambda = 0,  z in (0, 1)  (stable: lambda < b c mu),
 * and a message that finds all busy waits ceil((n+1)/b) completions, a geometric number
 * (ratio z^b): P(W > t) = P(all busy) e^{-c mu (1 - z^b) t}. With S = 1/B(c, a) - 1 (Erlang
 * B): P(all busy) = (1/(1-z)) / (S + 1/(1-z)), E[busy] = (a S - c + c/(1-z)) / (S + 1/(1-z)).
 * b = 1 gives z = a / c: M/M/c. Returns 0 or AC_ENUMERIC (overload: no root).
 */
static int bulk_solve(size_t c, double a, double b, double *busy, double *p_all,
                      double *decay_per_cmu, double *zout)
{
    bulk_ctx ctx = {a / (double)c, b};
    gsl_function F = {bulk_h, &ctx};
    gsl_root_fsolver *s;
    double zs, z, S, inv, lo = 0.0;
    int rc = AC_OK;
    if (!(ctx.r < b))
        return AC_ENUMERIC;
    zs = pow((1.0 + ctx.r) / (b + 1.0), 1.0 / b); /* h's minimum, h(zs) < 0 */
    if (!(bulk_h(zs, &ctx) < 0.0))
        return AC_ENUMERIC;
    s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL)
        return AC_ENOMEM;
    if (gsl_root_fsolver_set(s, &F, lo, zs) != GSL_SUCCESS) {
        rc = AC_ENUMERIC;
        goto cleanup;
    }
    for (int it = 0; it < 200; it++) {
        if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS) {
            rc = AC_ENUMERIC;
            goto cleanup;
        }
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0.0,
                                   1e-14) == GSL_SUCCESS)
            break;
    }
    z = gsl_root_fsolver_root(s);
    S = 1.0 / ac_solver_erlang_b(c, a) - 1.0;
    inv = 1.0 / (1.0 - z);
    *p_all = inv / (S + inv);
    *busy = (a * S - (double)c + (double)c * inv) / (S + inv);
    *decay_per_cmu = 1.0 - pow(z, b);
    *zout = z;
cleanup:
    gsl_root_fsolver_free(s);
    return rc;
}

/* The mean wait of one receive with c slots, executions of mean occ, lam executions per
 * second in batches of min(b, visible) (b = 1: Erlang C, C(c, a) occ / (c - a)); INFINITY
 * when the slots cannot keep up. */
static double wait_at(size_t c, double lam, double occ, double b)
{
    double a = lam * occ, busy, p_all, dec, z;
    if (!(lam > 0.0))
        return 0.0;
    if (b <= 1.0)
        return a < (double)c ? ac_solver_erlang_c(c, a) * occ / ((double)c - a) : INFINITY;
    if (bulk_solve(c, a, b, &busy, &p_all, &dec, &z) != AC_OK)
        return INFINITY;
    return p_all * occ / ((double)c * dec);
}

/* E[max of k independent X | X < m], X exponential of mean d (m may be INFINITY: d H_k):
 * the integral of 1 - F(x)^k over [0, m], F the truncated law, by Simpson's rule. */
static double max_truncated(size_t k, double d, double m)
{
    double hk = 0.0, top, h, s = 0.0, z;
    if (k <= 1)
        return isinf(m) ? d : d - m * exp(-m / d) / -expm1(-m / d);
    if (isinf(m) || m > 40.0 * d) {
        for (size_t j = 1; j <= k && j <= 1000000; j++)
            hk += 1.0 / (double)j;
        return d * hk;
    }
    top = m;
    z = -expm1(-m / d);
    h = top / 400.0;
    for (int i = 0; i <= 400; i++) {
        double x = h * i, f = -expm1(-x / d) / z;
        double g = 1.0 - pow(fmin(1.0, f), (double)k);
        s += (i == 0 || i == 400 ? 1.0 : (i % 2 ? 4.0 : 2.0)) * g;
    }
    return s * h / 3.0;
}

/* The p-quantile of the time in queue: exactly 0 when at least p of the messages are
 * received at once (the bisection would stop at a denormal instead). */
static int quantile(const ac_solver_queue_result *r, double p, double *out, ac_error *err)
{
    if (ac_solver_queue_cdf(r, 0.0) >= p) {
        *out = 0.0;
        return AC_OK;
    }
    return ac_solver_law_quantile(cdf_cb, r, p, out, err);
}

/* No steady state: the consumers run flat out (full batches) and the backlog grows. */
static void set_overload(ac_solver_queue_result *out, double occ, size_t k, size_t batch)
{
    out->overload = 1;
    out->execution_rate = (double)out->slots / occ;
    out->receive_rate = out->execution_rate * (double)batch / (double)k;
    out->throughput = out->receive_rate * (1.0 - out->delivery_failure);
    out->loss_probability =
        out->arrival_rate > 0.0
            ? fmax(0.0, 1.0 - out->receive_rate / (out->arrival_rate * out->receives))
            : 0.0;
    out->mean_wait = out->p50 = out->p95 = out->p99 = INFINITY;
    out->mean_messages = INFINITY;
    out->utilization = 1.0;
    out->approximation = AC_SOLVER_APPROX_FLUID;
}

/* The mean time k exponential executions (mean 1) take on c < k instances, each instance
 * taking the next as it frees: k - c completions at rate c, then the last c in parallel,
 * (k - c) / c + H_c. */
static double fanout_makespan(size_t k, size_t c)
{
    double hc = 0.0;
    for (size_t j = 1; j <= c; j++)
        hc += 1.0 / (double)j;
    return (double)(k - c) / (double)c + hc;
}

/*
 * A fan-out of k executions per delivery: the sim's poller takes a delivery only when k
 * consumers are free (or one instance and nothing queued at the function), and the
 * delivery holds them until its slowest execution ends. Its wait is at most that of
 * max(1, c / k) super-slots, each serving one delivery at a time in
 * s_k = c0 p_cold + E[max of k executions] (d H_k; k / c of them in turn when c < k), scv
 * sum 1/j^2 / H_k^2: an M/G/c' queue with the Lee-Longton scale. The individual executions
 * of the c slots (M/M/c) are the other side. Headline the upper one (the wait law is the
 * super-slots' Erlang C), stated error the distance. AC_ENUMERIC when the super-slots cannot
 * keep up (no upper bound).
 */
static int fanout_upper(ac_solver_queue_result *out, double deliveries, size_t k, double cold,
                        double m1, double *err_io)
{
    size_t cs = out->slots >= k ? out->slots / k : 1;
    double hk = 0.0, s2 = 0.0, sk, a, scale, w_hi;
    for (size_t j = 1; j <= k && j <= 1000000; j++) {
        hk += 1.0 / (double)j;
        s2 += 1.0 / ((double)j * (double)j);
    }
    sk = cold + m1 * (out->slots >= k ? hk : fanout_makespan(k, out->slots));
    a = deliveries * sk;
    if (!(deliveries > 0.0))
        return AC_OK;
    if (!(a < (double)cs))
        return AC_ENUMERIC;
    scale = 0.5 * (1.0 + s2 / (hk * hk));
    w_hi = ac_solver_erlang_c(cs, a) * sk / ((double)cs - a) * scale;
    if (!(w_hi > out->mean_wait))
        return AC_OK; /* the individual executions' wait is the longer: keep it */
    /* a capacity only turns messages away: the admitted ones wait less than unbounded */
    ac_solver_pool_result_free(out->slots_model);
    out->slots_model = NULL;
    *err_io = fmax(*err_io, (w_hi - out->mean_wait) / w_hi);
    {
        /* and the distance of the quantiles, P(W > t) = C e^{-gamma t / scale}:
           t_p = scale / gamma ln(C / (1 - p)), 0 when C <= 1 - p */
        static const double ps[] = {0.50, 0.95, 0.99};
        double c_hi = ac_solver_erlang_c(cs, a), g_hi = (double)cs / sk - deliveries;
        for (size_t i = 0; i < 3; i++) {
            double q = 1.0 - ps[i];
            double t_hi = c_hi > q ? scale / g_hi * log(c_hi / q) : 0.0;
            double t_lo = out->erlang_c > q && out->wait_decay > 0.0
                              ? out->wait_scale / out->wait_decay * log(out->erlang_c / q)
                              : 0.0;
            if (t_hi > t_lo)
                *err_io = fmax(*err_io, (t_hi - t_lo) / t_hi);
        }
    }
    out->wait_probability = ac_solver_erlang_c(cs, a);
    out->erlang_c = out->wait_probability;
    out->wait_decay = (double)cs / sk - deliveries;
    out->wait_scale = scale;
    out->mean_wait = w_hi;
    return AC_OK;
}

/* A fan-out's capacity that even fanout_upper's super-slots never reach: their M/M/c'
 * queue holds n deliveries waiting with probability C rho'^n; below 1e-9 at the capacity. */
static int fanout_capacity_unreached(size_t slots, size_t k, double deliveries, double occ,
                                     size_t capacity)
{
    size_t cs = slots >= k ? slots / k : 1;
    double hk = 0.0, sk, a;
    for (size_t j = 1; j <= k && j <= 1000000; j++)
        hk += 1.0 / (double)j;
    sk = occ * (slots >= k ? hk : fanout_makespan(k, slots));
    a = deliveries * sk;
    if (!(a < (double)cs) || capacity <= cs)
        return 0;
    return ac_solver_erlang_c(cs, a) * pow(a / (double)cs, (double)(capacity - cs)) < 1e-9;
}

/* The cold starts' share of the error: the function's cold-start probability is stated
 * with relative error e (a lower value: the simulator is above it), so the occupancy may be
 * up to (min(1, pc (1 + e)) - pc) c0 longer; the slots' load moves by that share, the wait by
 * the ratio of the waits at the two occupancies. */
static double cold_error(const ac_solver_queue_result *out, double lam, double occ, double pc,
                         double c0, double e, size_t batch, int bulk)
{
    double hi, dl, w, w_hi;
    if (!(pc * c0 > 0.0))
        return 0.0;
    hi = fmin(1.0, pc * (1.0 + fmax(0.5, isfinite(e) ? e : 1e9)));
    dl = (hi - pc) * c0 / occ;
    if (!(out->wait_probability > 1e-9) || out->slots_model != NULL)
        return dl;
    w = wait_at(out->slots, lam, occ, bulk ? (double)batch : 1.0);
    w_hi = wait_at(out->slots, lam, occ + (hi - pc) * c0, bulk ? (double)batch : 1.0);
    if (!isfinite(w_hi))
        return INFINITY;
    return fmax(dl, w > 0.0 ? w_hi / w - 1.0 : 0.0);
}

/* The node's approximation and stated error: Lee-Longton's M/G/c scale (5% + |scv - 1| / 4,
 * 10% more with a fan-out), the cold starts, the batch bracket; 100% in the batching
 * regime. */
static void stated_error(ac_solver_queue_result *out, double scv, size_t k, double pw,
                         double batch_err, double cold_err)
{
    if (pw > 1e-9 && (fabs(scv - 1.0) > 1e-3 || k > 1)) {
        out->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
        out->expected_rel_error =
            fmax(out->expected_rel_error, 0.05 + 0.25 * fabs(scv - 1.0) + (k > 1 ? 0.1 : 0.0));
    }
    if (cold_err > 1e-9) {
        out->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
        out->expected_rel_error = fmax(out->expected_rel_error, cold_err);
    }
    if (batch_err > 1e-9) {
        out->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
        out->expected_rel_error = fmax(out->expected_rel_error, batch_err);
    }
    if (out->batching) {
        out->approximation = AC_SOLVER_APPROX_FLUID;
        out->expected_rel_error = fmax(out->expected_rel_error, 1.0);
    }
}

/* What one solve carries between its steps (ac_solver_queue_solve). */
typedef struct queue_solve {
    const ac_queue *q;
    const ac_solver_queue_consumer *consumer;
    double arrival_rate;
    double d, theta, c0, pc, V, p_ok, m1, occ, scv, lam_exec, t_inv, busy, cap_tail;
    size_t k;
    ac_pool slots; /* the consumer slots as a shared-queue pool */
    int bulk;      /* the M/M^[b]/c bulk law */
} queue_solve;

/* The consumer's laws: p_ok, the slot occupancy (mean and scv) and t_inv, the time a failed
 * receive stays invisible after its execution. */
static void consumer_laws(queue_solve *s)
{
    const ac_function *fn = s->consumer->function;
    double f = fn->fail_prob, m1, m2;
    s->d = fn->duration + s->consumer->delay;
    s->theta = fn->timeout > 0.0 ? fn->timeout : INFINITY;
    s->c0 = fn->cold_start;
    s->pc = s->consumer->cold_probability;
    s->V = s->q->visibility_timeout;
    {
        double warm = -expm1(-fmin(s->theta, s->V) / s->d);
        double cold = s->V > s->c0 ? -expm1(-fmin(s->theta, s->V - s->c0) / s->d) : 0.0;
        s->p_ok = (1.0 - f) * ((1.0 - s->pc) * warm + s->pc * cold);
    }
    {
        double e = isinf(s->theta) ? 0.0 : exp(-s->theta / s->d);
        m1 = s->d * (1.0 - e);
        m2 = isinf(s->theta) ? 2.0 * s->d * s->d
                             : 2.0 * s->d * s->d * (1.0 - e * (1.0 + s->theta / s->d));
        s->m1 = m1;
        s->occ = s->pc * s->c0 + m1;
        s->scv = fmax(
            0.0, (s->pc * s->c0 * s->c0 + 2.0 * s->pc * s->c0 * m1 + m2) / (s->occ * s->occ) - 1.0);
    }
    {
        /* a failed receive stays invisible V after the receive minus its execution: a
           timeout (X > min(theta, V)) ran min(theta, V), an inherent failure E[X | X < m] */
        double mm = fmin(s->theta, s->V), em = exp(-mm / s->d), pd = 1.0 - s->p_ok;
        double ex = em < 1.0 ? s->d - mm * em / (1.0 - em) : mm;
        s->t_inv =
            pd > 0.0
                ? fmax(0.0, (em * (s->V - mm) + (1.0 - em) * f * (s->V - ex)) / pd - s->pc * s->c0)
                : 0.0;
    }
}

/* The deliveries (receives, dead letters, executions, load) and the slots' waiting places. */
static void deliveries(queue_solve *s, ac_solver_queue_result *out)
{
    const ac_queue *q = s->q;
    const ac_function *fn = s->consumer->function;
    size_t k = s->k, R = q->max_receives;
    double cap_dec = 0.0, cap_z = 0.0;
    out->arrival_rate = s->arrival_rate;
    out->visibility_timeout = s->V;
    out->max_receives = R;
    out->slots = q->max_consumers < fn->concurrency ? q->max_consumers : fn->concurrency;
    out->delivery_failure = fmin(1.0, fmax(0.0, 1.0 - pow(s->p_ok, (double)k)));
    out->receives = 0.0;
    for (size_t i = 0; i < R && i < 100000; i++) {
        double t = pow(out->delivery_failure, (double)i);
        out->receives += t;
        if (t < 1e-18)
            break;
    }
    out->dead_letter_probability = pow(out->delivery_failure, (double)R);
    out->wait_scale = 0.5 * (1.0 + s->scv);
    s->lam_exec = s->arrival_rate * out->receives * (double)k;
    out->load = s->lam_exec * s->occ;
    out->utilization = out->slots > 0 ? out->load / (double)out->slots : INFINITY;
    out->approximation = AC_SOLVER_APPROX_EXACT;
    memset(&s->slots, 0, sizeof s->slots);
    s->slots.servers = out->slots;
    s->slots.service_rate = 1.0 / s->occ;
    s->slots.dispatch = AC_DISPATCH_SHARED_QUEUE;
    s->slots.d = 2;
    s->slots.buffer = AC_UNBOUNDED;
    if (q->capacity != AC_UNBOUNDED) {
        /* the waiting places, in executions; a queue deeper than the pool solver's buffers
           (SQS holds ~unbounded backlogs) is solved as unbounded: below capacity its tail
           there is negligible, above it the backlog grows for a very long time */
        double held =
            (double)q->capacity * (double)k -
            (k == 1 ? s->arrival_rate * out->receives * out->delivery_failure * s->t_inv : 0.0);
        double wait = held > (double)out->slots ? held - (double)out->slots : 0.0;
        if (wait <= (double)AC_SOLVER_QUEUE_BUFFER_MAX)
            s->slots.buffer = (size_t)wait;
        if (k > 1 && fanout_capacity_unreached(out->slots, k, s->arrival_rate * out->receives,
                                               s->occ, q->capacity))
            s->slots.buffer = AC_UNBOUNDED; /* then fanout_upper bounds the wait */
    }
    if (q->batch_size > 1 && k == 1 && s->slots.buffer != AC_UNBOUNDED && s->lam_exec > 0.0 &&
        bulk_solve(out->slots, s->lam_exec * s->occ, (double)q->batch_size, &s->busy, &s->cap_tail,
                   &cap_dec, &cap_z) == AC_OK) {
        /* a capacity the greedy batches never reach: P(visible >= n) = P(all busy) z^n, and
           the messages held are at most the visible ones, c b in flight and the invisible
           failed receives (Poisson of mean minv: 2 minv + 10 covers its tail) */
        double minv = s->arrival_rate * out->receives * out->delivery_failure * s->t_inv;
        double n0 =
            (double)q->capacity - (double)out->slots * (double)q->batch_size - 2.0 * minv - 10.0;
        s->cap_tail = n0 > 0.0 ? s->cap_tail * pow(cap_z, n0) : 1.0;
        if (s->cap_tail < 1e-9)
            s->slots.buffer = AC_UNBOUNDED; /* the rejection is below cap_tail */
        else
            s->cap_tail = 0.0;
    }
    s->bulk = q->batch_size > 1 && k == 1 && s->slots.buffer == AC_UNBOUNDED && s->lam_exec > 0.0;
}

/* The slots by regime: the bulk law, full batches, M/M/c in closed form or the pool
 * solver's M/M/c/K. Returns AC_OK, 1 when they cannot keep up (out set as an overload), or
 * an error. */
static int solve_slots(queue_solve *s, const ac_solver_options *opt, ac_solver_queue_result *out,
                       ac_error *err)
{
    size_t batch = s->q->batch_size;
    ac_error e2 = {0};
    int rc;
    if (s->bulk) {
        double p_all = 0.0, dec = 0.0, cm = (double)out->slots / s->occ, z = 0.0;
        rc =
            bulk_solve(out->slots, s->lam_exec * s->occ, (double)batch, &s->busy, &p_all, &dec, &z);
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "out of memory (queue)");
        if (rc != AC_OK) { /* even full batches cannot keep up */
            set_overload(out, s->occ, s->k, batch);
            return 1;
        }
        out->erlang_c = p_all;
        out->wait_decay = cm * dec;
        return AC_OK;
    }
    if (out->load >= (double)out->slots) {
        if (batch > 1 && out->load / (double)batch < (double)out->slots) {
            out->batching = 1;
            s->lam_exec /= (double)batch;
        } else if (s->slots.buffer == AC_UNBOUNDED) {
            set_overload(out, s->occ, s->k, batch);
            return 1;
        } /* else a full queue rejects: the M/M/c/K below has a steady state */
    }
    if (s->slots.buffer == AC_UNBOUNDED) {
        /* M/M/c in closed form: P(W > t) = C(c, a) e^{-(c mu - lambda) t} (the pool
           solver's phase mixture would need c phases per level: slow for thousands of
           slots near saturation) */
        double a = s->lam_exec * s->occ, cm = (double)out->slots / s->occ;
        if (a >= (double)out->slots) { /* even full batches cannot keep up */
            out->batching = 0;
            set_overload(out, s->occ, s->k, batch);
            return 1;
        }
        out->erlang_c = ac_solver_erlang_c(out->slots, a);
        out->wait_decay = cm - s->lam_exec;
        return AC_OK;
    }
    rc = ac_solver_pool_solve(&s->slots, s->lam_exec, opt, &out->slots_model, &e2);
    if (rc != AC_OK)
        return ac_error_set(err, rc, "queue: %s", e2.message);
    return AC_OK;
}

/* The admitted load, executions and batches after a rejection `loss`; *batch_err and *w_lo
 * get the bracket of a batch size > 1 solved with batches of one (w_lo -1: none). */
static void admitted(queue_solve *s, ac_solver_queue_result *out, double loss, double *batch_err,
                     double *w_lo)
{
    size_t batch = s->q->batch_size;
    double pw_b = 0.0, dec_b = 0.0, z_b = 0.0;
    out->reject_probability = loss;
    if (!out->batching && loss > 0.0) { /* the slots serve the admitted messages */
        out->load *= 1.0 - loss;
        out->utilization *= 1.0 - loss;
    }
    out->execution_rate = s->lam_exec * (1.0 - loss) * (out->batching ? (double)batch : 1.0);
    out->mean_batch = 1.0;
    if (s->bulk) { /* executions of min(b, visible) messages */
        out->load = s->busy;
        out->utilization = s->busy / (double)out->slots;
        out->execution_rate = s->busy / s->occ;
        out->mean_batch = out->execution_rate > 0.0 ? s->lam_exec / out->execution_rate : 1.0;
    } else if (out->batching) {
        out->mean_batch = (double)batch;
    } else if (batch > 1 && s->lam_exec > 0.0 &&
               bulk_solve(out->slots, s->lam_exec * s->occ, (double)batch, &s->busy, &pw_b, &dec_b,
                          &z_b) == AC_OK &&
               s->busy > 0.0) {
        /* a bounded queue, a fan-out: the greedy batches of the unbounded queue and the
           batches of one bracket the busy slots and the wait; headline the greedy busy
           slots (fanout 1) and the wait of batches of one (the longer) */
        *batch_err = fabs(out->load - s->busy) / s->busy;
        *w_lo = pw_b * s->occ / ((double)out->slots * dec_b) * out->wait_scale;
        if (s->k == 1) {
            double one = out->load;
            out->load = s->busy * (1.0 - loss);
            out->utilization = out->load / (double)out->slots;
            out->execution_rate = out->load / s->occ;
            out->mean_batch = s->lam_exec * (1.0 - loss) / out->execution_rate;
            *batch_err = fabs(one - out->load) / out->load;
        }
    }
}

/* The waits, losses, messages held, stated error and percentiles from the solved slots. */
static int queue_kpis(queue_solve *s, ac_solver_queue_result *out, ac_error *err)
{
    const ac_queue *q = s->q;
    size_t k = s->k;
    double loss = out->slots_model != NULL ? out->slots_model->kpi.loss_probability : s->cap_tail;
    double pw = out->slots_model != NULL ? out->slots_model->kpi.wait_probability : out->erlang_c;
    double w0 = out->slots_model != NULL ? out->slots_model->kpi.mean_wait
                                         : out->erlang_c / out->wait_decay;
    double batch_err = 0.0, w_lo = -1.0, nf = 0.0;
    ac_error e2 = {0};
    held_law hl;
    if (q->capacity != AC_UNBOUNDED && q->capacity <= AC_SOLVER_QUEUE_BUFFER_MAX && k == 1 &&
        !out->batching && !s->bulk && s->lam_exec > 0.0) {
        /* the failed receives' invisible time counts against the capacity */
        double minv = s->arrival_rate * out->receives * out->delivery_failure * s->t_inv;
        if (held_law_solve(q->capacity, out->slots, s->lam_exec * s->occ, minv, &hl) != AC_OK)
            return ac_error_set(err, AC_ENOMEM, "out of memory (queue)");
        loss = hl.reject;
        pw = hl.wait_prob;
        w0 = hl.queue_len / (s->lam_exec * (1.0 - loss));
    } else {
        hl.mean_held = -1.0;
    }
    admitted(s, out, loss, &batch_err, &w_lo);
    out->receive_rate = out->execution_rate * out->mean_batch / (double)k;
    out->wait_probability = pw;
    out->mean_wait = w0 * out->wait_scale;
    if (w_lo >= 0.0 && out->mean_wait > 0.0)
        batch_err = fmax(batch_err, (out->mean_wait - fmin(w_lo, out->mean_wait)) / out->mean_wait);
    if (k > 1 && fanout_upper(out, s->arrival_rate * out->receives * (1.0 - loss), k, s->pc * s->c0,
                              s->m1, &batch_err) != AC_OK) {
        out->approximation = AC_SOLVER_APPROX_MEAN_FIELD;
        out->expected_rel_error = INFINITY; /* the deliveries' slots cannot keep up */
    }
    out->receive_wait = out->mean_wait;
    set_mixture(out);
    out->loss_probability =
        out->reject_probability + (1.0 - out->reject_probability) * out->dead_letter_probability;
    out->throughput = s->arrival_rate * (1.0 - out->loss_probability);
    /* held from arrival to deletion: a wait before each receive, V for each failed
       one (pd receives of them), and the successful delivery, which lasts until the
       slowest of its `fanout` successful executions ends */
    out->mean_messages =
        s->arrival_rate * (1.0 - out->reject_probability) *
        (out->receives * out->receive_wait + out->delivery_failure * out->receives * s->V +
         (1.0 - out->dead_letter_probability) *
             (s->pc * s->c0 + max_truncated(k, s->d, fmin(s->theta, s->V))));
    if (hl.mean_held >= 0.0)
        out->mean_messages = hl.mean_held;
    stated_error(out, s->scv, k, pw, batch_err,
                 cold_error(out, s->lam_exec * (1.0 - loss), s->occ, s->pc, s->c0,
                            s->consumer->cold_rel_error, q->batch_size, s->bulk));
    if (quantile(out, 0.50, &out->p50, &e2) != AC_OK ||
        quantile(out, 0.95, &out->p95, &e2) != AC_OK ||
        quantile(out, 0.99, &out->p99, &e2) != AC_OK) {
        ac_solver_queue_result_clear(out);
        return ac_error_set(err, AC_ENUMERIC, "queue: %s", e2.message);
    }
    for (size_t i = 0; i < out->ntries; i++)
        nf += (double)i * out->weight[i]; /* failed receives of a delivered message */
    out->mean_wait = out->mean_wait * (1.0 + nf) + nf * s->V;
    return AC_OK;
}

int ac_solver_queue_solve(const ac_queue *q, double arrival_rate,
                          const ac_solver_queue_consumer *consumer, const ac_solver_options *opt,
                          ac_solver_queue_result *out, ac_error *err)
{
    queue_solve s;
    int rc;
    memset(out, 0, sizeof *out);
    if (!(arrival_rate >= 0.0) || !isfinite(arrival_rate))
        return ac_error_set(err, AC_EINVAL, "queue: invalid arrival rate %g", arrival_rate);
    memset(&s, 0, sizeof s);
    s.q = q;
    s.consumer = consumer;
    s.arrival_rate = arrival_rate;
    s.k = consumer->fanout > 0 ? consumer->fanout : 1;
    consumer_laws(&s);
    deliveries(&s, out);
    rc = solve_slots(&s, opt, out, err);
    if (rc == 1)
        return AC_OK; /* an overload */
    if (rc != AC_OK)
        return rc;
    return queue_kpis(&s, out, err);
}

/*
 * The time of a polled execution behind a fan-out of k (doc/serverless.md): an execution's
 * result is kept only while its delivery is open, so a successful one is recorded when none
 * of its k - 1 siblings failed before it ended; with inherent failures f at the end of an
 * execution, X | X < theta is weighted by (1 - f F(x))^(k-1), F the law of X: shorter. The
 * relative distance of the weighted mean and quantiles to the unweighted ones (a grid of
 * 2000 points), plus, when the function's concurrency binds before the queues'
 * max-consumers, the wait of the extra executions in the function's FIFO: the j-th waits at
 * most j - 1 completions of C busy instances, (k - 1) / C of an execution on average
 * (doubled for the quantiles).
 */
double ac_solver_queue_fanout_error(const ac_function *fn, size_t fanout, size_t polled_cap)
{
    double d = fn->duration, theta = fn->timeout > 0.0 ? fmin(fn->timeout, 40.0 * d) : 40.0 * d;
    double f = fn->fail_prob, err = 0.0, h, w0 = 0.0, w1 = 0.0, m0 = 0.0, m1 = 0.0;
    double c0[2001], c1[2001];
    static const double ps[] = {0.50, 0.95, 0.99};
    if (fanout <= 1 || !(d > 0.0))
        return 0.0;
    if (fn->concurrency < polled_cap)
        err = (double)(fanout - 1) / (double)(fn->concurrency > 0 ? fn->concurrency : 1);
    if (!(f > 0.0))
        return err;
    h = theta / 2000.0;
    for (int i = 0; i <= 2000; i++) { /* trapezoid cumulative masses of both laws */
        double x = h * i, g = exp(-x / d), wt = pow(1.0 - f * (1.0 - g), (double)(fanout - 1));
        if (i > 0) {
            double gp = exp(-(x - h) / d), wp = pow(1.0 - f * (1.0 - gp), (double)(fanout - 1));
            w0 += 0.5 * h * (g + gp);
            w1 += 0.5 * h * (g * wt + gp * wp);
            m0 += 0.5 * h * (x * g + (x - h) * gp);
            m1 += 0.5 * h * (x * g * wt + (x - h) * gp * wp);
        }
        c0[i] = w0;
        c1[i] = w1;
    }
    if (!(w0 > 0.0 && w1 > 0.0))
        return INFINITY;
    err = fmax(err, fabs(m0 / w0 - m1 / w1) / (m1 / w1));
    for (size_t k = 0; k < 3; k++) {
        int i0 = 0, i1 = 0;
        while (i0 < 2000 && c0[i0] < ps[k] * w0)
            i0++;
        while (i1 < 2000 && c1[i1] < ps[k] * w1)
            i1++;
        if (i1 > 0)
            err = fmax(err, fabs((double)(i0 - i1)) / (double)i1 + 1.0 / (double)i1);
    }
    return err;
}
