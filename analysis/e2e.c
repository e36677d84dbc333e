/*
 * End-to-end response time (models.md §4): the nodes' response-time laws combined along
 * the routes on a lattice t_k = k h, k = 0..M-1 (the walk: e2e_walk.c); here the lattice
 * is sized within its work budget and the quantiles are bracketed.
 *
 * Each law is discretised twice, by rounding down and by rounding up. Sums, mixtures and
 * maxima of independent laws are monotone, so the floor lattice's end-to-end time is below
 * the true one and the ceiling lattice's above it, path by path: every quantile is
 * bracketed, Q_floor(p) <= Q(p) <= Q_ceil(p), and the bracket is the stated discretisation
 * error (whatever the number of nodes on a path). The ceiling lattice's last point stands
 * for "at least (M-1) h": a quantile that falls there has no upper bound. The sources' laws
 * are mixed by rate. When every path discretises as many laws (d) and no gateway has a
 * timeout, the ceiling law is the floor law moved up d points instead of a pass of its own
 * (upper_from_floor: T < T_floor + d h path by path; the same law but for atoms at the
 * lattice points and the masses cut short, which it moves to the last point).
 *
 * The lattice is sized per request, not per network: its length by ceiling passes from
 * 16 times the end-to-end mean (on 512 points, or 8 a visit up to 2048; grown until
 * P(T > L) <= 1e-7 is certain, then shrunk to that point on the final step), its points, on
 * that length, so that visits x step stays within 1% of the mean (between 2048 and 32768)
 * and three passes within the work budget.
 *
 * The mean is exact by visit ratios (sum_i v_i E[T_i]) when there is no fan-out or parallel
 * branch, and from the lattice otherwise. A cycle of routes leaves only the mean.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/e2e_internal.h"

/* Is there a fan-out or a parallel route? */
static int has_fanout(const ac_model *m)
{
    for (size_t k = 0; k < m->nroutes; k++)
        if (m->routes[k].fanout > 1 || m->routes[k].parallel || m->routes[k].fanin > 1)
            return 1;
    return 0;
}

/* Is there a gateway with a timeout? Its 504s and the conditioning of the time on its
 * timeout are read off both lattices, so the ceiling lattice gets its own pass. */
static int gateway_timeout(const ac_model *m)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_GATEWAY && isfinite(m->nodes[i].u.gateway.timeout))
            return 1;
    return 0;
}

void ac_an_e2e_clear(ac_end_to_end *e)
{
    free(e->grid_t);
    free(e->grid_ccdf);
    free(e->grid_ccdf_lo);
    free(e->grid_ccdf_hi);
    memset(e, 0, sizeof *e);
}

/*
 * The p-quantile bracketed by the floor and ceiling lattices (P(T > t) at t_k = k h):
 * Q_floor(p) = k_lo h <= Q(p) <= k_hi h = Q_ceil(p), infinite when the ceiling lattice's
 * quantile is its last point ("at least"). The value is the mean of the two lattices'
 * quantiles interpolated within their cells ([kh, kh + h) floor, (kh - h, kh] ceiling), its
 * stated error the farther end of the bracket.
 */
static void bracket(const double *ccdf_lo, const double *ccdf_hi, size_t M, double h, double p,
                    double *value, double *rel_error)
{
    size_t klo = M - 1, khi = M - 1;
    double lower, upper, qlo, qhi, v;
    for (size_t k = 0; k < M; k++)
        if (1.0 - ccdf_lo[k] >= p) {
            klo = k;
            break;
        }
    for (size_t k = 0; k < M; k++)
        if (1.0 - ccdf_hi[k] >= p) {
            khi = k;
            break;
        }
    {
        double prev = klo > 0 ? 1.0 - ccdf_lo[klo - 1] : 0.0, cur = 1.0 - ccdf_lo[klo];
        qlo = ((double)klo + (cur > prev ? (p - prev) / (cur - prev) : 1.0)) * h;
    }
    {
        double prev = khi > 0 ? 1.0 - ccdf_hi[khi - 1] : 0.0, cur = 1.0 - ccdf_hi[khi];
        qhi = khi > 0 ? ((double)khi - 1.0 + (cur > prev ? (p - prev) / (cur - prev) : 1.0)) * h
                      : 0.0;
    }
    lower = (double)klo * h;
    upper = khi >= M - 1 ? INFINITY : (double)khi * h;
    v = isinf(upper) ? qlo : 0.5 * (qlo + qhi);
    v = fmin(fmax(v, lower), upper);
    *value = v;
    if (isinf(upper))
        *rel_error = INFINITY;
    else if (v > 0.0)
        *rel_error = fmax(v - lower, upper - v) / v;
    else
        *rel_error = upper > 0.0 ? INFINITY : 0.0;
}

int ac_an_e2e_quantile(const ac_end_to_end *e, double p, double *value, double *rel_error)
{
    *value = NAN;
    *rel_error = NAN;
    if (!e->available || !e->percentiles || e->grid_n < 2 || e->grid_ccdf_lo == NULL ||
        e->grid_ccdf_hi == NULL || !(p > 0.0 && p < 1.0))
        return AC_EINVAL;
    bracket(e->grid_ccdf_lo, e->grid_ccdf_hi, e->grid_n, e->grid_t[1] - e->grid_t[0], p, value,
            rel_error);
    *rel_error += e->node_rel_error;
    return AC_OK;
}

typedef struct e2e_job {
    const size_t *roots;
    const double *w;
    size_t nroots;
    double mean_est, visits;
    size_t max_points; /* the most lattice points */
} e2e_job;

/* What it gives besides e's percentiles and grids. */
typedef struct e2e_out {
    double mean, mean_rel_error; /* the lattice's mean and its bracket */
    double success, success_abs_error;
    double fan_mean_gap, fan_q_gap; /* fan-outs' iid-max bounds (s): see fanout_gap */
} e2e_out;

/* Why the lattice could not be built, into e->why. */
static void lattice_why(const ac_an_e2e_ctx *c, ac_end_to_end *e)
{
    if (c->over_budget)
        snprintf(e->why, sizeof e->why,
                 "the end-to-end lattice would exceed its work budget (%.3g operations)",
                 AC_E2E_WORK_MAX);
    else
        snprintf(e->why, sizeof e->why,
                 "a cycle of routes, or a node on the way without a response-time law");
}

/* The points: visits x step within AC_E2E_RES of the mean on the lattice of length L,
 * M - 1 >= visits L / (AC_E2E_RES mean) (16 means when the mean is unknown), between the
 * least lattice and max_points. */
static size_t lattice_points(const e2e_job *job, double L)
{
    double means = job->mean_est > 0.0 && isfinite(job->mean_est) ? L / job->mean_est : 16.0;
    double need = ceil(means * job->visits / AC_E2E_RES) + 1.0;
    if (!(need > (double)AC_E2E_M_MIN))
        return AC_E2E_M_MIN;
    return need < (double)job->max_points ? (size_t)need : job->max_points;
}

/*
 * The ceiling law from the floor law lo of the last pass: on the floor lattice every law on a
 * path of d discretised laws is below the truth by less than d steps (T' = floor(T/h) h >
 * T - h each; sums add, mixtures and maxima take the most), but for the mass pass_eps that a
 * cut placed early, so
 *     T <= T' + pass_depth h   (but for pass_eps of the mass, anywhere above):
 * hi = lo moved up pass_depth points (the excess on the last point, "at least"), then
 * pass_eps of its mass moved from its lowest points to the last one. Above the truth, as
 * the ceiling lattice is, at no cost of a pass.
 */
static void upper_from_floor(const ac_an_e2e_ctx *c, const double *lo, double *hi)
{
    size_t M = c->M, d = c->pass_depth < M ? c->pass_depth : M - 1;
    double eps = fmin(1.0, c->pass_eps), move = eps;
    memset(hi, 0, M * sizeof *hi);
    for (size_t k = 0; k < M; k++)
        hi[k + d < M ? k + d : M - 1] += lo[k];
    for (size_t k = 0; k + 1 < M && move > 0.0; k++) {
        double x = fmin(hi[k], move);
        hi[k] -= x;
        move -= x;
    }
    hi[M - 1] += eps - move;
}

/* A ceiling pass at (L, c->M) into hi (c->shift_upper: a floor pass into lo, hi from it); *tail
 * := where P(T > t) <= AC_E2E_TAIL for certain (the ceiling lattice is above the truth), or
 * -1 when its last point holds more; *work := the pass's work. Returns 0 or -1. */
static int sizing_pass(ac_an_e2e_ctx *c, const e2e_job *job, double L, double *lo, double *hi,
                       double *s_hi, double *tail, double *work)
{
    double before = c->work, cum = 0.0;
    c->h = L / (double)(c->M - 1);
    c->upper = !c->shift_upper;
    *tail = -1.0;
    if (ac_an_e2e_run_pass(c, job->roots, job->w, job->nroots, c->upper ? hi : lo, s_hi) != 0)
        return -1;
    if (!c->upper)
        upper_from_floor(c, lo, hi);
    *work = c->work - before;
    for (size_t k = 0; k + 1 < c->M; k++) {
        cum += hi[k];
        if (1.0 - cum <= AC_E2E_TAIL) {
            *tail = (double)(k + 1) * c->h;
            break;
        }
    }
    return 0;
}

/*
 * Size the lattice. On AC_E2E_M_SIZE points (8 a visit, up to the least lattice) from
 * L = 16 means: grow L 8 times while the last point holds more than AC_E2E_TAIL, and take L
 * where the tail is below it (a ceiling lattice: at or beyond the true tail). Then the
 * points: the target of lattice_points on
 * that L, halved until three passes fit in the budget (a pass's cost
 * predicted from the sizing pass's: its convolutions' supports costed at the new step, the
 * rest scaled by the points; the direct sums grow as M^2, the FFTs as M log M). Then, on that
 * lattice, shrink L to the tail (+2%) while it is below 80% of L (a ceiling lattice overstates the
 * tail by up to the visits times the step, so a finer step finds a shorter L) and the budget
 * allows. Leaves the last ceiling pass's law in hi and its success in *s_hi. Returns 0, or -1
 * (c->failed / c->oom / c->over_budget; a tail beyond reach sets c->failed with `why`).
 */
static int lattice_size(ac_an_e2e_ctx *c, const e2e_job *job, double *lo, double *hi, double *s_hi,
                        int *beyond)
{
    double L = job->mean_est > 0.0 && isfinite(job->mean_est) ? 16.0 * job->mean_est : 1.0;
    double tail = -1.0, w_min = 0.0, w = 0.0;
    size_t M;
    *beyond = 0;
    /* the ceiling lattice moves the law up to a step per visit: 8 x visits points at least */
    c->M = AC_E2E_M_SIZE;
    while (c->M < AC_E2E_M_MIN && (double)c->M < 8.0 * job->visits)
        c->M *= 2;
    for (int it = 0; it < 5 && tail < 0.0; it++) {
        if (sizing_pass(c, job, L, lo, hi, s_hi, &tail, &w_min) != 0)
            return -1;
        if (tail < 0.0)
            L *= 8.0;
    }
    if (tail < 0.0) {
        *beyond = 1;
        return -1;
    }
    L = fmax(1.02 * tail, 2.0 * c->h);
    M = lattice_points(job, L);
    while (M > AC_E2E_M_MIN && c->work + 3.6 * ac_an_e2e_predict(c, w_min, M, L) > AC_E2E_WORK_MAX)
        M /= 2;
    c->M = M;
    for (int it = 0; it < 4; it++) {
        if (sizing_pass(c, job, L, lo, hi, s_hi, &tail, &w) != 0)
            return -1;
        if (tail < 0.0 || tail >= 0.8 * L || c->work + 2.0 * w > AC_E2E_WORK_MAX)
            break; /* a last point holding mass leaves the high quantiles unbounded */
        L = fmax(1.02 * tail, 2.0 * c->h);
    }
    return 0;
}

/* The floor and ceiling laws into e (grids, p50/p95/p99 with the bracket as their error). */
static int lattice_store(const ac_an_e2e_ctx *c, const double *lo, const double *hi,
                         ac_end_to_end *e, ac_error *err)
{
    double clo = 0.0, chi = 0.0, rel;
    size_t M = c->M;
    e->grid_t = malloc(M * sizeof *e->grid_t);
    e->grid_ccdf = malloc(M * sizeof *e->grid_ccdf);
    e->grid_ccdf_lo = malloc(M * sizeof *e->grid_ccdf_lo);
    e->grid_ccdf_hi = malloc(M * sizeof *e->grid_ccdf_hi);
    if (e->grid_t == NULL || e->grid_ccdf == NULL || e->grid_ccdf_lo == NULL ||
        e->grid_ccdf_hi == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
    e->grid_n = M;
    for (size_t k = 0; k < M; k++) {
        clo += lo[k];
        chi += hi[k];
        e->grid_t[k] = (double)k * c->h;
        e->grid_ccdf_lo[k] = fmax(0.0, 1.0 - clo);
        e->grid_ccdf_hi[k] = fmax(0.0, 1.0 - chi);
        e->grid_ccdf[k] = 0.5 * (e->grid_ccdf_lo[k] + e->grid_ccdf_hi[k]);
    }
    e->percentiles = 1;
    e->lattice_rel_error = 0.0;
    bracket(e->grid_ccdf_lo, e->grid_ccdf_hi, M, c->h, 0.50, &e->p50, &rel);
    e->lattice_rel_error = fmax(e->lattice_rel_error, rel);
    bracket(e->grid_ccdf_lo, e->grid_ccdf_hi, M, c->h, 0.95, &e->p95, &rel);
    e->lattice_rel_error = fmax(e->lattice_rel_error, rel);
    bracket(e->grid_ccdf_lo, e->grid_ccdf_hi, M, c->h, 0.99, &e->p99, &rel);
    e->lattice_rel_error = fmax(e->lattice_rel_error, rel);
    return AC_OK;
}

/* The end-to-end law of `job` on the lattice into e (percentiles = 1) and out; when it
 * cannot be built, percentiles = 0 and e->why says why. Returns 0 or AC_ENOMEM. */
static int lattice_solve(const ac_model *m, const ac_analysis *a, const e2e_job *job,
                         ac_end_to_end *e, e2e_out *out, ac_error *err)
{
    ac_an_e2e_ctx c;
    double *lo = NULL, *hi = NULL, L, s_lo = 0.0, s_hi = 0.0;
    int rc = AC_OK, beyond = 0;
    memset(out, 0, sizeof *out);
    e->percentiles = 0;
    if (ac_an_e2e_ctx_init(&c, m, a) != AC_OK)
        goto oom;
    lo = malloc(AC_E2E_M_MAX * sizeof *lo); /* each pass writes its M points */
    hi = malloc(AC_E2E_M_MAX * sizeof *hi);
    if (lo == NULL || hi == NULL)
        goto oom;
    if (ac_an_e2e_plan(&c, job->roots, job->nroots) != 0) {
        if (c.oom)
            goto oom;
        lattice_why(&c, e);
        goto cleanup;
    }
    /* all paths alike (as many laws discretised on each): the ceiling law is the floor law
       moved up that many points (but for atoms at the lattice points), without its pass */
    c.shift_upper = !gateway_timeout(m) && c.pass_depth_min == c.pass_depth;
    if (lattice_size(&c, job, lo, hi, &s_hi, &beyond) == 0) {
        c.upper = 0;
        if (c.shift_upper)
            s_lo = s_hi; /* the last sizing pass was the floor pass (no 504s: no lattice in it) */
        else if (ac_an_e2e_run_pass(&c, job->roots, job->w, job->nroots, lo, &s_lo) != 0)
            c.failed |= !c.over_budget && !c.oom;
    }
    if (c.oom)
        goto oom;
    if (beyond) {
        snprintf(e->why, sizeof e->why,
                 "the lattice cannot bound the law's tail within 8^4 x 16 x its mean at the "
                 "step its work budget allows (%.3g visits per request)",
                 job->visits);
        goto cleanup;
    }
    if (c.failed || c.over_budget) {
        lattice_why(&c, e);
        goto cleanup;
    }
    L = c.h * (double)(c.M - 1);
    rc = lattice_store(&c, lo, hi, e, err);
    if (rc != AC_OK)
        goto cleanup;
    {
        double mlo = 0.0, mhi = 0.0;
        for (size_t k = 0; k < c.M; k++) {
            mlo += (double)k * c.h * lo[k];
            mhi += (double)k * c.h * hi[k];
        }
        out->mean = 0.5 * (mlo + mhi);
        out->mean_rel_error = out->mean > 0.0 ? 0.5 * (mhi - mlo) / out->mean : 0.0;
        if (hi[c.M - 1] > 0.0)
            out->mean_rel_error += hi[c.M - 1] * L / fmax(out->mean, c.h); /* beyond L */
    }
    out->fan_mean_gap = c.fan_mean_gap; /* of the last (floor) pass */
    out->fan_q_gap = c.fan_q_gap;
    out->success = 0.5 * (s_lo + s_hi);
    out->success_abs_error = 0.5 * fabs(s_hi - s_lo);
    goto cleanup;
oom:
    rc = ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
cleanup:
    ac_an_e2e_ctx_free(&c);
    free(lo);
    free(hi);
    return rc;
}

/*
 * Percentiles of a closed workload (one <population>): MVA gives exact means but no
 * distributions. Each station's response law is exact where closed.c could apply the arrival
 * theorem (single-server FCFS stations: the queue found on arrival is the marginal of the
 * network with one client fewer), else the open model of the pool at the MVA arrival rate;
 * the visits are combined on the lattice as for an open network. The stated error: the
 * nodes', the gap between the lattice mean and the exact MVA mean, the correlation of the
 * visits when there are several, and the lattice's bracket; the simulator settles a check
 * that this error straddles.
 */
static int closed_percentiles(const ac_model *m, ac_analysis *a, size_t max_points, ac_error *err)
{
    e2e_job job;
    e2e_out out;
    size_t root = m->populations[0].to;
    double w = 1.0, max_err = 0.0, visits = 0.0;
    int rc;
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0 && !ac_node_analysis_has_law(&a->nodes[i]))
            return AC_OK; /* a station without a response law: no percentiles */
    if (has_fanout(m) || !(a->e2e.throughput > 0.0))
        return AC_OK;
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0) {
            max_err = fmax(max_err, a->nodes[i].expected_rel_error);
            visits += a->nodes[i].arrival_rate / a->e2e.throughput;
        }
    job.roots = &root;
    job.w = &w;
    job.nroots = 1;
    job.mean_est = a->e2e.mean_response_time;
    job.visits = visits + (double)m->nlinks;
    job.max_points = max_points;
    rc = lattice_solve(m, a, &job, &a->e2e, &out, err);
    if (rc != AC_OK || !a->e2e.percentiles)
        return rc;
    a->e2e.node_rel_error =
        max_err + fabs(out.mean - a->e2e.mean_response_time) / a->e2e.mean_response_time;
    /* each visit's law is exact (arrival theorem) but the lattice adds visits as independent:
       in a closed network they are not (a long queue at one station means short ones at the
       others). Measured: two single-server stations, 10 clients, Z = 5 s, 1 s and 0.8 s: p99
       15.99 s against the simulator's 14.57 +- 0.10 s (+9.7%); stated 25% */
    if (visits > 1.0 + 1e-9)
        a->e2e.node_rel_error += 0.25;
    a->e2e.expected_rel_error = a->e2e.node_rel_error + a->e2e.lattice_rel_error;
    return AC_OK;
}

/* A pool behind a loaded link sees the link's departures, smoother than the Poisson stream it
 * is solved for (M/D/1: c_d^2 = 1 - rho^2): smoother arrivals wait less (GI/M/c waits are
 * increasing in the convex order of the inter-arrival times), so the pool's mean is at most
 * high by its wait share, stated as a further error of its numbers (measured: a shared queue
 * of 4 at rho 0.5 behind a link at rho 0.8 is 1.3% high end to end). */
static double link_fed_error(const ac_model *m, const ac_analysis *a,
                             const ac_solver_link_result *links, size_t i)
{
    const ac_node_analysis *na = &a->nodes[i];
    for (size_t l = 0; l < m->nlinks; l++) {
        if (m->links[l].to != i || !(links[l].load > 0.0) || na->pool == NULL ||
            !(na->mean_response_time > 0.0))
            continue;
        return fmax(0.0, 1.0 - 1.0 / (m->nodes[i].u.pool.service_rate * na->mean_response_time));
    }
    return 0.0;
}

/* The nodes' and links' state before the lattice: whether the mean exists (every node on
 * the way solved, nothing overloaded) and the largest stated error of a node. */
static int open_state(const ac_model *m, ac_analysis *a, const ac_solver_link_result *links,
                      int links_ok, double *max_err)
{
    int mean_ok = links_ok;
    *max_err = 0.0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        if (na->arrival_rate > 0.0 &&
            (!na->analysed || na->overload || !isfinite(na->mean_response_time)))
            mean_ok = 0; /* a mean that was not computed, or an unbounded one */
        if (na->arrival_rate > 0.0 && na->overload)
            a->e2e.unbounded = 1;
        if (na->arrival_rate > 0.0)
            *max_err = fmax(*max_err, na->expected_rel_error + link_fed_error(m, a, links, i));
    }
    for (size_t l = 0; l < m->nlinks; l++)
        if (links[l].overload) {
            mean_ok = 0;
            a->e2e.unbounded = 1;
        }
    return mean_ok;
}

int ac_an_e2e_solve(const ac_model *m, ac_analysis *a, ac_error *err)
{
    return ac_an_e2e_solve_points(m, a, AC_E2E_M_MAX, err);
}

int ac_an_e2e_solve_points(const ac_model *m, ac_analysis *a, size_t max_points, ac_error *err)
{
    double rate_total = 0.0, mean_visits = 0.0, visits = 0.0, max_err = 0.0;
    ac_solver_link_result *links = NULL;
    int links_ok = 1;
    size_t *roots = NULL;
    double *w = NULL;
    e2e_job job;
    e2e_out out;
    int rc = AC_OK;

    if (m->nsources == 0) {
        /* closed workloads: closed.c fills the means; the percentiles come from here */
        if (m->npopulations == 1 && a->e2e.available && !a->e2e.percentiles)
            return closed_percentiles(m, a, max_points, err);
        return AC_OK;
    }
    ac_an_e2e_clear(&a->e2e);
    for (size_t s = 0; s < m->nsources; s++)
        rate_total += m->sources[s].rate;
    if (ac_an_e2e_links_solve(m, a, &links, &links_ok) != AC_OK) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
        goto cleanup;
    }
    if (!open_state(m, a, links, links_ok, &max_err) || !(rate_total > 0.0))
        goto cleanup;
    roots = malloc(m->nsources * sizeof *roots);
    w = malloc(m->nsources * sizeof *w);
    if (roots == NULL || w == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (end to end)");
        goto cleanup;
    }
    a->e2e.available = 1;
    a->e2e.expected_rel_error = max_err;
    a->e2e.mean_rel_error = max_err;
    /* the lattice combines the laws the nodes report (a pool fed by a bursty stream: its
       GI/M/1 or QNA law), so their stated errors are the nodes' own */
    /* ... except where the simulator gave a pool's numbers (jsq, jiq): the lattice has its
       mean-field law, so the percentiles carry the change of its mean as a further error */
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        if (na->pool != NULL && !ac_an_e2e_qna_law(na) && na->mean_response_time > 0.0)
            max_err =
                fmax(max_err, fabs(na->mean_response_time - na->pool->kpi.mean_response_time) /
                                      na->mean_response_time +
                                  na->expected_rel_error);
    }
    /* the mean by visit ratios: sum_i (Lambda_i / gamma) E[T_i], exact without fan-out */
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0) {
            mean_visits += a->nodes[i].arrival_rate * a->nodes[i].mean_response_time;
            if (a->nodes[i].gateway == NULL)
                visits += a->nodes[i].arrival_rate;
        }
    for (size_t l = 0; l < m->nlinks; l++) {
        mean_visits += links[l].mean_jobs; /* Little: carried flow x (W + 1/c + latency) */
        visits += links[l].throughput;
    }
    a->e2e.mean_response_time = mean_visits / (rate_total * a->scale);
    for (size_t s = 0; s < m->nsources; s++) {
        roots[s] = m->sources[s].to;
        w[s] = m->sources[s].rate;
    }
    job.roots = roots;
    job.w = w;
    job.nroots = m->nsources;
    job.mean_est = a->e2e.mean_response_time;
    job.visits = visits / (rate_total * a->scale);
    job.max_points = max_points;
    rc = lattice_solve(m, a, &job, &a->e2e, &out, err);
    if (rc != AC_OK)
        goto cleanup;
    if (!a->e2e.percentiles) {
        /* a cycle (or no lattice): only the mean (and without fan-out: the visit-ratio mean
           is exact) */
        a->e2e.p50 = a->e2e.p95 = a->e2e.p99 = NAN;
        a->e2e.throughput = NAN;
        a->e2e.loss_probability = NAN;
        if (has_fanout(m))
            a->e2e.available = 0;
        goto cleanup;
    }
    /* with failures the lattice's mean too: the visit ratios' mean counts a refused request
       (or a lost one) with the time it spent, where the end-to-end time is that of the
       successful requests (gateway seed 279 of the accuracy harness: 429s at 44%, visit
       ratios 0.638 s, the simulator 1.133 s, the lattice 1.14 s), where the failures
       move it more than the lattice's own error */
    if (has_fanout(m) || 1.0 - out.success > out.mean_rel_error) {
        a->e2e.mean_response_time = out.mean; /* from the lattice */
        a->e2e.mean_rel_error =
            max_err + out.mean_rel_error + out.fan_mean_gap / fmax(out.mean, 1e-300);
    }
    a->e2e.loss_probability = fmax(0.0, 1.0 - out.success);
    a->e2e.throughput = out.success * rate_total * a->scale;
    /* the fan-outs' siblings are associated, not independent: their gap joins the nodes' */
    a->e2e.node_rel_error =
        max_err + (out.fan_q_gap > 0.0 ? out.fan_q_gap / fmax(a->e2e.p50, 1e-300) : 0.0);
    a->e2e.expected_rel_error = a->e2e.node_rel_error + a->e2e.lattice_rel_error;
    /* the loss carries the nodes' errors, relative and absolute (each node's weighted by its
       visits: a request lost there is lost end to end); a gateway's 504s are read off both
       lattices, whose difference brackets them (an absolute error: it does not vanish with
       the loss) */
    a->e2e.loss_rel_error = max_err;
    a->e2e.loss_abs_error = out.success_abs_error;
    for (size_t i = 0; i < m->nnodes; i++)
        if (a->nodes[i].arrival_rate > 0.0 && a->nodes[i].loss_abs_error > 0.0)
            a->e2e.loss_abs_error +=
                a->nodes[i].arrival_rate * a->nodes[i].loss_abs_error / (rate_total * a->scale);
    a->e2e.loss_abs_error = fmin(1.0, a->e2e.loss_abs_error);
cleanup:
    ac_an_e2e_links_free(m, links);
    free(roots);
    free(w);
    return rc;
}
