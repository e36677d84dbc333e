/*
 * Validation by simulation (models.md §7): the discrete-event simulator of the
 * same semantics runs where the approximation's stated error could flip a
 * verdict (or always, with --validate), and its intervals settle the checks;
 * bistable pools are simulated from each basin to show that the metastable
 * failure mode is real.
 *
 * The sequential rule (models.md §7, "The sequential rule"). By default (validate =
 * auto, automatic replication count) the simulation is looked at after 3, 6 and 12
 * replications (the counts below min_replications, fixed before it starts) and at its
 * ordinary stop (1%
 * precision of the main KPIs after min_replications = 20, or max_replications, or the
 * event budget). At early look k every check that the simulation must settle is judged
 * on its interval at level 1 - alpha_k, alpha_k = 0.005, the last look at 1 - alpha_K,
 * alpha_K = 0.05 - 3 x 0.005 = 0.035; the run stops at the first look where every such
 * check is settled, and the checks are judged on that look's result. A check is settled
 * wrongly only if some look's interval misses its true value, so by the union bound
 * (Bonferroni over the looks) the probability of a wrong settlement of a check is at most
 * sum_k alpha_k = 0.05, as the single 95% interval before (each look's interval is the
 * fixed-n Student t interval of its replications, the looks being at fixed counts; the
 * last look's count is the ordinary stop's, as before). Repeating a 95% test after every
 * replication instead (optional stopping) has no such bound. A zero-width interval (every
 * replication gave the same value, e.g. no loss at all) settles nothing at an early look,
 * but a loss is also judged on its counts (models.md §7, "Rare losses: the count bound"):
 * the Clopper-Pearson bound of the batches that lost can pass it at a look, and its t
 * interval settles only where its counts as independent requests would.
 * With --validate (every KPI validated to 1%) or a fixed replication count there is one
 * look, at the end, at 95%, as before. The estimates reported carry the 95% half-width of
 * the replications actually run (wider when the run stopped early; `converged` false when
 * the 1% precision was not reached).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "analysis/internal.h"

/* Can the simulator run this model? (Not autoscaling, for now.) */
static int simulable(const ac_model *m, char *why, size_t size)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].kind == AC_NODE_POOL && m->nodes[i].u.pool.has_autoscale) {
            snprintf(why, size, "the simulator does not model autoscaling yet");
            return 0;
        }
    return 1;
}

size_t ac_an_seq_looks(size_t min_replications, size_t *counts)
{
    static const size_t at[AC_AN_SEQ_LOOKS] = {3, 6, 12};
    size_t n = 0;
    for (size_t k = 0; k < AC_AN_SEQ_LOOKS; k++)
        if (at[k] < min_replications)
            counts[n++] = at[k];
    return n;
}

/* alpha_k: 0.005 at each early look, the rest of 0.05 at the last (k == nlooks). */
double ac_an_seq_alpha(size_t k, size_t nlooks)
{
    const double early = 0.005;
    return k < nlooks ? early : AC_AN_SEQ_ALPHA - early * (double)nlooks;
}

int ac_an_seq_decide(double mean, double ci95, size_t n, double limit, int upper, double alpha,
                     int early, double *half)
{
    double h, lo, hi;
    if (n < 2 || !isfinite(mean) || !isfinite(ci95) || !(alpha > 0.0 && alpha < 1.0)) {
        *half = INFINITY;
        return 0;
    }
    h = ci95 * gsl_cdf_tdist_Pinv(1.0 - alpha / 2.0, (double)(n - 1)) /
        gsl_cdf_tdist_Pinv(0.975, (double)(n - 1));
    *half = h;
    if (early && !(h > 0.0))
        return 0;
    lo = mean - h;
    hi = mean + h;
    if (upper ? hi <= limit : lo >= limit)
        return 1;
    if (upper ? lo > limit : hi < limit)
        return -1;
    return 0;
}

/* The u with I_u(a, b) = p (the regularised incomplete beta, increasing in u):
 * gsl_cdf_beta_Pinv does not converge for b ~ 1e5 and small a, so bisection on
 * gsl_cdf_beta_P over log u, 200 halvings at most; the bracket's upper end when `up` (never
 * below the quantile: an upper bound stays one), else its lower end. */
static double beta_quantile(double p, double a, double b, int up)
{
    double lo = -745.0, hi = 0.0; /* log u */
    for (int k = 0; k < 200 && hi - lo > 1e-12; k++) {
        double mid = 0.5 * (lo + hi);
        if (gsl_cdf_beta_P(exp(mid), a, b) < p)
            lo = mid;
        else
            hi = mid;
    }
    return exp(up ? hi : lo);
}

/* The Clopper-Pearson bounds of a proportion from x events of n independent trials, each
 * one-sided at level 1 - alpha: lower Beta^-1(alpha; x, n - x + 1) (0 at x = 0), upper
 * Beta^-1(1 - alpha; x + 1, n - x) (1 at x = n). */
static double cp_lower(double x, double n, double alpha)
{
    return x > 0.0 ? beta_quantile(alpha, x, n - x + 1.0, 0) : 0.0;
}

static double cp_upper(double x, double n, double alpha)
{
    if (!(x < n))
        return 1.0;
    if (x == 0.0)
        return -expm1(log(alpha) / n); /* 1 - alpha^(1/n) */
    return beta_quantile(1.0 - alpha, x + 1.0, n - x, 1);
}

/*
 * The count bound of a loss (models.md §7, "Rare losses: the count bound"): `count` requests
 * lost of `trials` offered, pooled over the replications of `measured` simulated seconds
 * (after the warm-up, summed). The requests are cut, in order, into B batches of m
 * consecutive requests, m = ceil(trials / floor(measured / batch)) (a batch spans about
 * `batch` seconds), B = floor(trials / m). A batch loses at most its m requests, so the loss
 * probability p = E[lost per batch] / m <= q = P(a batch loses one or more); the batches
 * that lost are at most `count`; with independent batches (the clumps of losses shorter than
 * a batch) the one-sided Clopper-Pearson bound of q at level 1 - alpha from x = min(count,
 * B) of B, U = Beta^-1(1 - alpha; x + 1, B - x) (1 - alpha^(1/B) at x = 0: the rule of three
 * -ln(alpha) / B), bounds p with probability >= 1 - alpha. 1 when there is no batch.
 */
double ac_an_seq_count_upper(double count, double trials, double measured, double batch,
                             double alpha)
{
    double nb, m, b, x;
    if (!(trials >= 1.0) || !(count >= 0.0) || !(measured > 0.0) || !(batch > 0.0) ||
        !(alpha > 0.0 && alpha < 1.0))
        return 1.0;
    nb = floor(measured / batch);
    if (!(nb >= 1.0))
        return 1.0;
    m = ceil(trials / nb);
    b = floor(trials / m);
    x = fmin(count, b);
    return cp_upper(x, b, alpha);
}

/* A node's relaxation time for the count bound: its holding time tau over the M/M/c decay
 * rate's share min(1, c (1 - sqrt(rho))^2) (M/M/infinity relaxes at the service rate, M/M/1
 * at mu (1 - sqrt(rho))^2, the gap of its birth-death chain); INFINITY at rho >= 1. */
static double node_relaxation(double tau, double c, double rho)
{
    double g;
    if (!(rho >= 0.0))
        rho = 0.0;
    if (!(rho < 1.0) || !(tau > 0.0) || !isfinite(tau))
        return rho < 1.0 ? 0.0 : INFINITY;
    g = c * (1.0 - sqrt(rho)) * (1.0 - sqrt(rho));
    return tau / fmin(1.0, g);
}

/* The batch of the count bound: the longest of the model's time constants (the simulator's
 * time scale), the relaxation times of the pools' stable equilibria, and every node's and
 * link's holding time stretched by its load (node_relaxation: a queue near saturation stays
 * full, and loses, for longer than one holding time); INFINITY (no count bound) with a
 * bistable pool, whose losses clump for as long as it stays tipped. */
double ac_an_seq_batch_time(const ac_analysis *a, const ac_sim_result *sim)
{
    const ac_model *m = a != NULL ? a->model : NULL;
    const double base = sim != NULL && sim->timescale > 0.0 ? sim->timescale : 1.0;
    double d = base;
    for (size_t i = 0; m != NULL && i < a->nnodes && i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        const ac_node *nd = &m->nodes[i];
        const ac_solver_pool_result *r = na->pool;
        double tau = base, c = 1.0;
        if (r != NULL && r->bistable)
            return INFINITY;
        for (size_t k = 0; r != NULL && k < r->nequilibria; k++)
            if (r->equilibria[k].stable && r->equilibria[k].relaxation_time > d)
                d = r->equilibria[k].relaxation_time;
        switch (nd->kind) {
        case AC_NODE_POOL:
            tau = nd->u.pool.service_rate > 0.0 ? 1.0 / nd->u.pool.service_rate : base;
            c = (double)(na->servers > 0 ? na->servers : nd->u.pool.servers);
            break;
        case AC_NODE_FUNCTION:
            tau = nd->u.function.duration + nd->u.function.cold_start;
            c = (double)nd->u.function.concurrency;
            break;
        case AC_NODE_QUEUE: /* per consumer slot; its holding time is the consumer's */
            c = na->queue != NULL && na->queue->slots > 0 ? (double)na->queue->slots : 1.0;
            break;
        case AC_NODE_GATEWAY: /* the bucket: one server of rate rate_limit */
            tau = isfinite(nd->u.gateway.rate_limit) && nd->u.gateway.rate_limit > 0.0
                      ? 1.0 / nd->u.gateway.rate_limit
                      : 0.0;
            break;
        }
        d = fmax(d, node_relaxation(tau, c, na->utilization));
    }
    for (size_t i = 0; m != NULL && sim != NULL && i < m->nlinks && i < sim->nlinks; i++)
        if (isfinite(m->links[i].capacity) && m->links[i].capacity > 0.0)
            d = fmax(d, node_relaxation(1.0 / m->links[i].capacity, 1.0,
                                        sim->links[i].utilization.mean));
    return d;
}

int ac_an_seq_decide_est(const ac_sim_estimate *e, const ac_sim_result *sim, double batch,
                         double limit, int upper, double alpha, int early, double *half)
{
    int d = ac_an_seq_decide(e->mean, e->ci95, e->n, limit, upper, alpha, early, half);
    double u, x = e->count, n = e->trials;
    if (sim == NULL || !(n >= 1.0) || !(x >= 0.0 && x <= n) || !isfinite(e->mean))
        return d;
    /* a counted proportion: the t interval settles only where the counts, as independent
       trials (the narrowest honest bound: clumped losses only widen it), would too; a few
       equal counts give a t interval far too narrow (1, 1, 1 losses: s ~ 0) */
    if (d != 0) {
        int pass = (d > 0) == (upper != 0); /* the proportion is below the limit */
        if (pass ? !(cp_upper(x, n, alpha / 2.0) <= limit) : !(cp_lower(x, n, alpha / 2.0) > limit))
            d = 0;
        if (!upper || d != 0)
            return d;
    }
    if (!upper)
        return 0;
    /* the t interval's upper side errs with probability alpha / 2, the count bound's with
       alpha / 2: a wrong PASS at this look with probability <= alpha, as before */
    u = ac_an_seq_count_upper(x, n, (double)sim->replications * (sim->horizon - sim->warmup), batch,
                              alpha / 2.0);
    if (!(u <= limit))
        return 0;
    *half = fmax(u - e->mean, 0.0);
    return 1;
}

/* The sequential rule's look k: stop when every check the simulation must settle is. */
typedef struct seq_ctx {
    ac_an_ctx *c;
    size_t nlooks;
} seq_ctx;

static int seq_look(void *ctx, const ac_sim_result *partial, size_t k)
{
    seq_ctx *s = ctx;
    return ac_an_requirements_settled(s->c, partial, ac_an_seq_alpha(k, s->nlooks));
}

int ac_an_simulate(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a, ac_error *err)
{
    ac_error e2 = {0};
    ac_sim_options so;
    ac_an_ctx c;
    seq_ctx seq = {NULL, 0};
    size_t looks[AC_AN_SEQ_LOOKS];
    int rc;
    if (a->sim != NULL)
        return AC_OK;
    if (!simulable(m, a->sim_note, sizeof a->sim_note))
        return AC_OK;
    for (size_t i = 0; i < a->nnodes; i++)
        if (a->nodes[i].overload) {
            snprintf(a->sim_note, sizeof a->sim_note,
                     "an overloaded node has no steady state to simulate");
            return AC_OK;
        }
    so = opt->sim;
    a->sim_level = 1.0 - AC_AN_SEQ_ALPHA;
    if (opt->validate == AC_VALIDATE_AUTO && so.replications == 0) {
        memset(&c, 0, sizeof c);
        c.model = m;
        c.opt = opt;
        c.a = a;
        c.probe_node = AC_NONE;
        seq.c = &c;
        seq.nlooks = ac_an_seq_looks(so.min_replications, looks);
        so.looks = looks;
        so.nlooks = seq.nlooks;
        so.look = seq_look;
        so.look_ctx = &seq;
    }
    rc = ac_sim_run(m, &so, &a->sim, &e2);
    if (rc == AC_ENOMEM)
        return ac_error_set(err, rc, "%s", e2.message);
    if (rc == AC_OK && so.look != NULL)
        a->sim_level =
            1.0 -
            ac_an_seq_alpha(a->sim->stopped_at_look > 0 ? a->sim->stopped_at_look - 1 : seq.nlooks,
                            seq.nlooks);
    if (rc == AC_ELIMIT && strstr(e2.message, "budget-limited") != NULL) {
        /* the budget cannot pay for the settling warm-up (sim/run.c): no interval of the
           start-up is given as the model's */
        a->sim = NULL;
        snprintf(a->sim_note, sizeof a->sim_note, "not validated: %.140s", e2.message + 12);
    } else if (rc != AC_OK) {
        a->sim = NULL;
        snprintf(a->sim_note, sizeof a->sim_note, "the simulation failed: %.120s", e2.message);
    }
    return AC_OK;
}

int ac_an_sim_lookup(const ac_analysis *a, const ac_model *m, ac_out_metric metric,
                     double percentile, size_t node, double *mean, double *ci95)
{
    ac_sim_estimate e;
    if (ac_an_sim_lookup_in(a->sim, a, m, metric, percentile, node, &e) != 1)
        return 0;
    *mean = e.mean;
    *ci95 = e.ci95;
    return 1;
}

int ac_an_sim_lookup_in(const ac_sim_result *sim, const ac_analysis *a, const ac_model *m,
                        ac_out_metric metric, double percentile, size_t node, ac_sim_estimate *out)
{
    const ac_sim_estimate *e = NULL;
    double scale = 1.0;
    if (sim == NULL)
        return -1;
    if (node != AC_NONE) {
        const ac_sim_node_result *r = &sim->nodes[node];
        switch (metric) {
        case AC_OUT_LATENCY_MEAN: e = &r->mean_response_time; break;
        case AC_OUT_LATENCY_PCT:
            e = percentile == 50.0   ? &r->p50_response_time
                : percentile == 95.0 ? &r->p95_response_time
                : percentile == 99.0 ? &r->p99_response_time
                                     : NULL;
            break;
        case AC_OUT_UTILIZATION:
            e = &r->utilization;
            /* a queue's analysis is per slot, min(M, C); the simulator's per max-consumers M */
            if (m->nodes[node].kind == AC_NODE_QUEUE) {
                if (a->nodes[node].queue == NULL || a->nodes[node].queue->slots == 0)
                    return -1;
                scale = (double)r->servers / (double)a->nodes[node].queue->slots;
            }
            break;
        case AC_OUT_LOSS: /* a gateway's loss is its 429s; the simulator adds the 504s */
            e = m->nodes[node].kind == AC_NODE_GATEWAY ? &r->loss_probability
                                                       : &r->failure_probability;
            break;
        case AC_OUT_THROUGHPUT:
            /* pools: jobs passed downstream; functions: successful requests; queues:
               messages delivered successfully; gateways: admitted (the simulator's
               definitions are the solver's) */
            e = &r->throughput;
            break;
        case AC_OUT_OTHER: return -1;
        }
    } else {
        const ac_sim_entry_result *r;
        if (sim->nentries != 1)
            return -1; /* several sources: their mixture is not estimated directly */
        r = &sim->entries[0];
        switch (metric) {
        case AC_OUT_LATENCY_MEAN: e = &r->mean_response_time; break;
        case AC_OUT_LATENCY_PCT:
            e = percentile == 50.0   ? &r->p50_response_time
                : percentile == 95.0 ? &r->p95_response_time
                : percentile == 99.0 ? &r->p99_response_time
                                     : NULL;
            break;
        case AC_OUT_LOSS: e = &r->failure_probability; break;
        case AC_OUT_THROUGHPUT: e = &r->throughput; break; /* successful requests/s */
        case AC_OUT_UTILIZATION:
        case AC_OUT_OTHER: return -1;
        }
    }
    if (e == NULL)
        return -1;
    if (e->n < 2 || !isfinite(e->mean) || !isfinite(e->ci95))
        return 0;
    out->mean = e->mean * scale;
    out->ci95 = e->ci95 * scale;
    out->n = e->n;
    /* the counts of a loss (scale 1); none for a rescaled KPI */
    out->count = scale == 1.0 ? e->count : 0.0;
    out->trials = scale == 1.0 ? e->trials : 0.0;
    return 1;
}

/* A copy of m whose every source follows: its rate until `t0`, `factor` times it until
 * t0 + d, its rate again until `horizon` (the burst that the solver names, applied to the
 * sources so that it reaches the pool through the network). */
static int burst_model(const ac_model *m, double t0, double d, double factor, double horizon,
                       ac_model **out, ac_error *err)
{
    ac_model *c = NULL;
    int rc = ac_model_clone(m, &c, err);
    if (rc != AC_OK)
        return rc;
    for (size_t i = 0; i < c->nprofiles; i++)
        free(c->profiles[i].points);
    free(c->profiles);
    c->nprofiles = 0;
    c->profiles = calloc(c->nsources > 0 ? c->nsources : 1, sizeof *c->profiles);
    if (c->profiles == NULL) {
        ac_model_free(c);
        return ac_error_set(err, AC_ENOMEM, "out of memory (burst)");
    }
    for (size_t s = 0; s < c->nsources; s++) {
        ac_profile *p = &c->profiles[c->nprofiles++];
        const double r = c->sources[s].rate, eps = 1e-9 * (t0 + d);
        const double at[6] = {0.0, t0, t0 + eps, t0 + d, t0 + d + eps, horizon};
        const double rate[6] = {r, r, r * factor, r * factor, r, r};
        p->source = s;
        p->points = calloc(6, sizeof *p->points);
        if (p->points == NULL) {
            ac_model_free(c);
            return ac_error_set(err, AC_ENOMEM, "out of memory (burst)");
        }
        for (size_t k = 0; k < 6; k++) {
            p->points[k].at = at[k];
            p->points[k].rate = rate[k];
        }
        p->npoints = 6;
        c->sources[s].profile = s;
    }
    *out = c;
    return AC_OK;
}

/* The burst check of a bistable pool i: the good state first (a quarter of the horizon of
 * `base`), then 1.5 times the smallest burst that the solver says tips it, then the
 * measurement from a tenth of the horizon after it, in 5 runs of one replication each (its
 * own stream): how many end in the bad basin (near the threshold a finite pool tips in some
 * runs and not in others: the runs are counted rather than averaged); after_burst is the
 * mean jobs of those runs with its 95% Student t half-width. */
static int check_burst(const ac_model *m, const ac_analysis_options *opt,
                       const ac_sim_options *base, size_t i, double good, double bad,
                       ac_node_analysis *na, ac_error *err)
{
    const ac_solver_pool_result *r = na->pool;
    const double scale = 1.5;
    double t0 = base->horizon / 4.0, d = scale * r->smallest_burst.duration;
    double factor = (r->arrival_rate + r->smallest_burst.extra_rate) / r->arrival_rate;
    double sum = 0.0, sum2 = 0.0;
    ac_sim_options so = *base;
    ac_model *bm = NULL;
    int rc = burst_model(m, t0, d, factor, so.horizon, &bm, err);
    if (rc != AC_OK)
        return rc;
    so.initial = NULL;
    so.ninitial = 0;
    so.use_profiles = 1;
    so.warmup = t0 + d + so.horizon / 10.0;
    so.replications = 1;
    na->burst_runs = 0;
    na->burst_tipped = 0;
    for (size_t k = 0; k < 5; k++) {
        ac_sim_result *res = NULL;
        ac_error e2 = {0};
        double x;
        so.seed = (unsigned long)(ac_sim_seed_mix(opt->sim.seed, 1000u + k) & 0xffffffffu);
        rc = ac_sim_run(bm, &so, &res, &e2);
        if (rc == AC_ENOMEM) {
            ac_model_free(bm);
            return ac_error_set(err, rc, "%s", e2.message);
        }
        if (rc != AC_OK)
            continue;
        x = res->nodes[i].mean_jobs.mean;
        ac_sim_result_free(res);
        na->burst_runs++;
        if (fabs(x - bad) < fabs(x - good))
            na->burst_tipped++;
        sum += x;
        sum2 += x * x;
    }
    ac_model_free(bm);
    if (na->burst_runs > 0) {
        const double n = (double)na->burst_runs, mean = sum / n;
        na->burst_checked = 1;
        na->burst_scale = scale;
        na->after_burst.mean = mean;
        na->after_burst.n = na->burst_runs;
        na->after_burst.ci95 = na->burst_runs < 2
                                   ? INFINITY
                                   : gsl_cdf_tdist_Pinv(0.975, n - 1.0) *
                                         sqrt(fmax(sum2 - n * mean * mean, 0.0) / (n - 1.0) / n);
    }
    return AC_OK;
}

/* Simulate a bistable pool started empty, started in its bad equilibrium, and hit by a
 * burst of 1.5 times the smallest one that the solver says tips it: does each run stay in
 * (or reach) the basin that the mean field predicts? */
int ac_an_check_basins(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                       ac_error *err)
{
    char why[160];
    if (!simulable(m, why, sizeof why))
        return AC_OK;
    for (size_t i = 0; i < m->nnodes; i++) {
        ac_node_analysis *na = &a->nodes[i];
        const ac_solver_pool_result *r = na->pool;
        const ac_pool *p = &m->nodes[i].u.pool;
        ac_sim_options so = opt->sim;
        ac_sim_initial_state init;
        ac_sim_result *res = NULL;
        ac_error e2 = {0};
        size_t *jobs = NULL;
        double good, bad, relax;
        int rc;
        if (r == NULL || !r->bistable)
            continue;
        good = r->equilibria[r->good].mean_field.mean_jobs;
        bad = r->equilibria[r->bad].mean_field.mean_jobs;
        relax = fmax(r->equilibria[r->good].relaxation_time, r->equilibria[r->bad].relaxation_time);
        if (!isfinite(relax) || relax <= 0.0)
            relax = 1.0 / p->service_rate;
        /* a horizon of many relaxation times, the measurement after a warm-up */
        so.replications = 5;
        so.horizon = fmax(200.0 * relax, 2000.0 / p->service_rate);
        so.warmup = so.horizon / 2.0;
        so.initial = NULL;
        so.ninitial = 0;
        rc = ac_sim_run(m, &so, &res, &e2);
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "%s", e2.message);
        if (rc != AC_OK)
            continue;
        na->basin_good = res->nodes[i].mean_jobs;
        ac_sim_result_free(res);
        res = NULL;
        jobs = malloc(p->servers * sizeof *jobs);
        if (jobs == NULL)
            return ac_error_set(err, AC_ENOMEM, "out of memory (metastability)");
        for (size_t s = 0; s < p->servers; s++)
            jobs[s] = (size_t)floor(bad + 0.5);
        init.node = i;
        init.jobs = jobs;
        init.count = p->servers;
        so.initial = &init;
        so.ninitial = 1;
        rc = ac_sim_run(m, &so, &res, &e2);
        free(jobs);
        if (rc == AC_ENOMEM)
            return ac_error_set(err, rc, "%s", e2.message);
        if (rc != AC_OK)
            continue;
        na->basin_bad = res->nodes[i].mean_jobs;
        ac_sim_result_free(res);
        res = NULL;
        na->basin_checked = 1;
        if (isfinite(r->smallest_burst.duration) && r->arrival_rate > 0.0) {
            rc = check_burst(m, opt, &so, i, good, bad, na, err);
            if (rc != AC_OK)
                return rc;
        }
        /* in a basin: closer to its equilibrium than to the other one */
        na->stays_good = fabs(na->basin_good.mean - good) < fabs(na->basin_good.mean - bad);
        na->stays_bad = fabs(na->basin_bad.mean - bad) < fabs(na->basin_bad.mean - good);
    }
    return AC_OK;
}
