/*
 * Tests of analysis/ (include/archcheck/analysis.h): open Jackson networks against product-form
 * closed forms, closed networks against hand-computed exact MVA, the end-to-end lattice against
 * closed-form laws and the simulator, headroom, requirements into checks and findings,
 * suppressions, stability findings, routing cycles, nodes not analysed, determinism.
 *
 * Every model is written as XML (as users write it) and parsed with ac_parser_parse_memory; the
 * file is called "t.xml" and the line/column of each element is known from the string.
 *
 * Tolerances (stated at each assertion):
 *   closed forms of exact solutions (M/M/1, M/M/1/K, traffic equations)     1e-6 relative or better
 *   exact MVA                                                              1e-9 relative
 *   end-to-end quantiles and means on the 2048-point lattice               1e-3 relative
 *   headroom by the search (relative tolerance 1e-5, stated)                2e-5 relative
 *   the simulator                                                          its 95% CI widened by 2%
 *
 * Comments "Was a bug (fixed)" name defects these tests found; they now guard against them.
 */
#include "helpers.h"
#include "fixture.h"

#include <gsl/gsl_errno.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/report.h"
#include "archcheck/sim.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

/* Parse `xml` (must be valid) and analyse it with `opt` (NULL: defaults); the analysis'
 * status is returned (fixture.h's analyse_with asserts it). */
static int analyse_opt(fx *f, const char *xml, const ac_analysis_options *opt)
{
    fx_parse(f, xml);
    f->rc = ac_analysis_run(f->m, opt, &f->a, &f->d, &f->err);
    return f->rc;
}

/* The options of most tests: the defaults, without the validating simulation (the analytic
 * results are under test; validation has its own tests below). */
static ac_analysis_options analytic_opt(void)
{
    ac_analysis_options o;
    ac_analysis_options_init(&o);
    o.validate = AC_VALIDATE_NEVER;
    return o;
}

static void analyse_ok(fx *f, const char *xml, const ac_analysis_options *o)
{
    int rc = analyse_opt(f, xml, o);
    if (rc != AC_OK) {
        dump(&f->d);
        print_error("analysis failed: %d %s\n", rc, f->err.message);
    }
    assert_int_equal(rc, AC_OK);
    assert_non_null(f->a);
}

/* Parse and analyse without simulation and without the headroom search (tests of the headroom
 * use analyse_h); the analysis must succeed. */
static void analyse(fx *f, const char *xml)
{
    ac_analysis_options o = analytic_opt();
    o.headroom = 0;
    analyse_ok(f, xml, &o);
}

/* The same with the headroom search. */
static void analyse_h(fx *f, const char *xml)
{
    ac_analysis_options o = analytic_opt();
    analyse_ok(f, xml, &o);
}

static size_t node_index(const fx *f, const char *id)
{
    size_t i = ac_model_find_node(f->m, id);
    assert_true(i != AC_NONE);
    return i;
}

static const ac_node_analysis *node(const fx *f, const char *id)
{
    return &f->a->nodes[node_index(f, id)];
}

/* The finding with this rule about this node (NULL: any node), or NULL. */
static const ac_diag *maybe_diag(const ac_diag_list *d, const char *rule, const char *node_id)
{
    for (size_t i = 0; i < d->count; i++) {
        const ac_diag *x = &d->items[i];
        if (strcmp(x->rule, rule) != 0)
            continue;
        if (node_id != NULL && (x->node == NULL || strcmp(x->node, node_id) != 0))
            continue;
        return x;
    }
    return NULL;
}

/* Lookups that must succeed: they fail the test (and never return NULL) otherwise. */
static const ac_diag *find_diag(const ac_diag_list *d, const char *rule, const char *node_id)
{
    static const ac_diag none;
    const ac_diag *x = maybe_diag(d, rule, node_id);
    if (x == NULL) {
        dump(d);
        print_error("no %s finding about %s\n", rule, node_id != NULL ? node_id : "any node");
        fail();
        return &none;
    }
    return x;
}

/* The finding with this rule at this line. */
static const ac_diag *find_diag_at(const ac_diag_list *d, const char *rule, unsigned line)
{
    static const ac_diag none;
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].rule, rule) == 0 && d->items[i].line == line)
            return &d->items[i];
    dump(d);
    print_error("no %s finding at line %u\n", rule, line);
    fail();
    return &none;
}

/* The check at this line about this node (AC_NONE: end to end or any). */
static const ac_check *check_at(const ac_analysis *a, unsigned line, size_t node_i)
{
    static const ac_check none;
    for (size_t k = 0; k < a->nchecks; k++)
        if (a->checks[k].loc.line == line && (node_i == AC_NONE || a->checks[k].node == node_i))
            return &a->checks[k];
    print_error("no check at line %u\n", line);
    fail();
    return &none;
}

static size_t count_checks_at(const ac_analysis *a, unsigned line)
{
    size_t n = 0;
    for (size_t k = 0; k < a->nchecks; k++)
        n += a->checks[k].loc.line == line;
    return n;
}

static ac_verdict verdict(const fx *f)
{
    return ac_report_verdict(&f->d, AC_SEV_ERROR);
}

/* A check with these fields (value to `rel` relative, limit exactly). */
static void assert_check(const ac_check *ck, ac_check_status st, double value, double limit,
                         double rel, const char *unit, int upper, size_t node_i, unsigned line,
                         unsigned column)
{
    assert_non_null(ck);
    if (ck->status != st)
        print_error("check '%s': status %s, expected %s\n", ck->name,
                    ac_check_status_name(ck->status), ac_check_status_name(st));
    assert_int_equal(ck->status, st);
    assert_int_equal(ck->has_value, 1);
    assert_double_close(ck->value, value, 0, rel);
    assert_double_close(ck->limit, limit, 0, 1e-12);
    assert_string_equal(ck->unit, unit);
    assert_int_equal(ck->upper, upper);
    assert_int_equal(ck->node, node_i);
    assert_int_equal(ck->loc.line, line);
    assert_int_equal(ck->loc.column, column);
    assert_int_equal(ck->suppressed, 0);
    if (st == AC_CHECK_PASS)
        assert_string_equal(ck->rule, "");
}

static void assert_diag(const ac_diag *d, const char *rule, unsigned line, unsigned column,
                        const char *node_id)
{
    assert_non_null(d);
    assert_string_equal(d->rule, rule);
    assert_string_equal(d->file, "t.xml");
    assert_int_equal(d->line, line);
    assert_int_equal(d->column, column);
    if (node_id == NULL)
        assert_null(d->node);
    else
        assert_string_equal(d->node, node_id);
    assert_int_equal(d->suppressed, 0);
}

/* P(T > t) of the sum of independent exponentials with distinct rates r[0..n-1]
 * (hypoexponential): sum_i e^{-r_i t} prod_{j != i} r_j / (r_j - r_i). */
static double hypo_ccdf(const double *r, size_t n, double t)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double c = 1.0;
        for (size_t j = 0; j < n; j++)
            if (j != i)
                c *= r[j] / (r[j] - r[i]);
        s += c * exp(-r[i] * t);
    }
    return s;
}

/* The t with ccdf(t) = 1 - p, by bisection (ccdf decreasing). */
typedef double (*ccdf_fn)(const void *ctx, double t);

static double quantile_of(ccdf_fn fn, const void *ctx, double p)
{
    double lo = 0.0, hi = 1.0;
    while (fn(ctx, hi) > 1.0 - p)
        hi *= 2.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (fn(ctx, mid) > 1.0 - p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

typedef struct hypo_ctx {
    const double *r;
    size_t n;
} hypo_ctx;

static double hypo_fn(const void *ctx, double t)
{
    const hypo_ctx *h = ctx;
    return hypo_ccdf(h->r, h->n, t);
}

/* ---- 1. Jackson networks ---------------------------------------------------------------------- */

/*
 * Tandem of two M/M/1 (random dispatch, one server each): lambda = 1, mu1 = 2, mu2 = 3.
 *   rho = 0.5, 1/3; L = rho/(1-rho) = 1, 0.5; T = 1/(mu-lambda) = 1, 0.5 (exponential);
 *   end to end: Exp(1) + Exp(2) (Burke: independent), mean 1.5,
 *   P(T > t) = 2 e^{-t} - e^{-2t}.
 */
static const char TANDEM[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
    "<pool id=\"a\" servers=\"1\" service-rate=\"2/s\" dispatch=\"random\"/>\n"
    "<pool id=\"b\" servers=\"1\" service-rate=\"3/s\"/>\n"
    "<route from=\"a\" to=\"b\"/>\n"
    "</architecture>\n";

static void test_tandem_mm1(void **state)
{
    fx f;
    const double lambda = 1.0, mu[2] = {2.0, 3.0};
    const char *ids[2] = {"a", "b"};
    const double rates[2] = {mu[0] - lambda, mu[1] - lambda};
    hypo_ctx h = {rates, 2};
    (void)state;
    analyse(&f, TANDEM);
    for (int i = 0; i < 2; i++) {
        const ac_node_analysis *na = node(&f, ids[i]);
        double rho = lambda / mu[i], r = mu[i] - lambda;
        assert_int_equal(na->analysed, 1);
        assert_int_equal(na->overload, 0);
        assert_int_equal(na->approximation, AC_SOLVER_APPROX_EXACT);
        assert_double_close(na->expected_rel_error, 0.0, 1e-12, 0);
        /* product form, 1e-6 relative */
        assert_double_close(na->arrival_rate, lambda, 0, 1e-12);
        assert_double_close(na->throughput, lambda, 0, 1e-9);
        assert_double_close(na->loss_probability, 0.0, 1e-12, 0);
        assert_double_close(na->utilization, rho, 0, 1e-6);
        assert_double_close(na->mean_jobs, rho / (1 - rho), 0, 1e-6);
        assert_double_close(na->mean_response_time, 1 / r, 0, 1e-6);
        /* exponential sojourn: p-quantile = -ln(1-p) / (mu - lambda) */
        assert_double_close(na->p50, log(2.0) / r, 0, 1e-6);
        assert_double_close(na->p95, log(20.0) / r, 0, 1e-6);
        assert_double_close(na->p99, log(100.0) / r, 0, 1e-6);
    }
    assert_int_equal(f.a->e2e.available, 1);
    assert_int_equal(f.a->e2e.percentiles, 1);
    /* the mean by visit ratios is exact: 1 + 0.5 */
    assert_double_close(f.a->e2e.mean_response_time, 1.5, 0, 1e-6);
    assert_double_close(f.a->e2e.throughput, lambda, 0, 1e-9);
    assert_double_close(f.a->e2e.loss_probability, 0.0, 1e-9, 0);
    /* hypoexponential quantiles (p50 = 1.2279, p95 = 3.6761, p99 = 5.2958), lattice: 1e-3 */
    assert_double_close(f.a->e2e.p50, quantile_of(hypo_fn, &h, 0.50), 0, 1e-3);
    assert_double_close(f.a->e2e.p95, quantile_of(hypo_fn, &h, 0.95), 0, 1e-3);
    assert_double_close(f.a->e2e.p99, quantile_of(hypo_fn, &h, 0.99), 0, 1e-3);
    assert_double_close(quantile_of(hypo_fn, &h, 0.95), 3.676138, 0, 1e-6); /* the hand value */
    /* the published grid is P(T > t): the mass at t_k = k h stands for [t_k - h/2, t_k + h/2],
     * so grid_ccdf[k] = P(T > t_k + h/2); checked near t = 2 (1e-4 absolute) */
    assert_true(f.a->e2e.grid_n > 100);
    assert_non_null(f.a->e2e.grid_t);
    assert_non_null(f.a->e2e.grid_ccdf);
    {
        size_t k = 0;
        while (k + 1 < f.a->e2e.grid_n && f.a->e2e.grid_t[k] < 2.0)
            k++;
        assert_double_close(f.a->e2e.grid_ccdf[k],
                            hypo_ccdf(rates, 2, f.a->e2e.grid_t[k] + 0.5 * f.a->e2e.grid_t[1]),
                            1e-4, 0);
    }
    /* no requirement: one passing stability check per node, verdict PASS */
    assert_int_equal(f.a->nchecks, 2);
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(f.a->checks[k].status, AC_CHECK_PASS);
        assert_int_equal(f.a->checks[k].has_value, 1);
        assert_double_close(f.a->checks[k].value, lambda / mu[k], 0, 1e-6);
    }
    assert_int_equal(count_rule(&f.d, "AC101"), 0);
    assert_int_equal(count_rule(&f.d, "AC900"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_PASS);
    fx_free(&f);
}

/*
 * Feedback: source lambda = 1 to a; a -> b (p = 1); b -> a (p = 0.3).
 *   Lambda_a = 1 + 0.3 Lambda_b, Lambda_b = Lambda_a  =>  Lambda = 1/0.7 = 1.428571
 *   a: mu = 3, rho = 0.476190, L = rho/(1-rho) = 0.909091, T = 1/(3 - 1.428571) = 0.636364
 *   b: mu = 4, rho = 0.357143, L = 0.555556, T = 1/(4 - 1.428571) = 0.388889
 *   end to end (Little): (L_a + L_b) / lambda = 1.464646. A cycle: no percentiles.
 */
static void test_feedback_network(void **state)
{
    fx f;
    const double lambda = 1.0, big = lambda / 0.7;
    const double mu_a = 3.0, mu_b = 4.0;
    double la = (big / mu_a) / (1 - big / mu_a), lb = (big / mu_b) / (1 - big / mu_b);
    (void)state;
    analyse(&f,
            "<architecture format=\"1\">\n"
            "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
            "<pool id=\"a\" servers=\"1\" service-rate=\"3/s\"/>\n"
            "<pool id=\"b\" servers=\"1\" service-rate=\"4/s\"/>\n"
            "<route from=\"a\" to=\"b\"/>\n"
            "<route from=\"b\" to=\"a\" p=\"0.3\"/>\n"
            "</architecture>\n");
    assert_double_close(node(&f, "a")->arrival_rate, big, 0, 1e-9);
    assert_double_close(node(&f, "b")->arrival_rate, big, 0, 1e-9);
    assert_double_close(node(&f, "a")->utilization, big / mu_a, 0, 1e-6);
    assert_double_close(node(&f, "b")->utilization, big / mu_b, 0, 1e-6);
    assert_double_close(node(&f, "a")->mean_jobs, la, 0, 1e-6);
    assert_double_close(node(&f, "b")->mean_jobs, lb, 0, 1e-6);
    assert_double_close(la, 0.909091, 0, 1e-6); /* the hand values */
    assert_double_close(lb, 0.555556, 0, 1e-6);
    assert_double_close(node(&f, "a")->mean_response_time, 1 / (mu_a - big), 0, 1e-6);
    assert_double_close(node(&f, "b")->mean_response_time, 1 / (mu_b - big), 0, 1e-6);
    /* node b passes 30% back and lets 70% leave: its throughput is its arrival rate */
    assert_double_close(node(&f, "b")->throughput, big, 0, 1e-9);
    assert_int_equal(f.a->e2e.available, 1);
    assert_double_close(f.a->e2e.mean_response_time, (la + lb) / lambda, 0, 1e-6);
    assert_double_close(f.a->e2e.mean_response_time, 1.464646, 0, 1e-6);
    assert_int_equal(f.a->e2e.percentiles, 0);
    assert_int_equal(verdict(&f), AC_VERDICT_PASS);
    fx_free(&f);
}

/* Random dispatch over N servers: each server is an M/M/1 at lambda / N.
 * N = 4, mu = 2, lambda = 6: per server 1.5, rho = 0.75, L = 3 per server, T = 2 s,
 * p95 = ln(20) / 0.5 = 5.991465 s. */
static void test_random_pool_multi_server(void **state)
{
    fx f;
    const ac_node_analysis *na;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"p\" rate=\"6/s\"/></workload>\n"
                "<pool id=\"p\" servers=\"4\" service-time=\"500ms\" dispatch=\"random\"/>\n"
                "</architecture>\n");
    na = node(&f, "p");
    assert_int_equal(na->approximation, AC_SOLVER_APPROX_EXACT);
    assert_double_close(na->arrival_rate, 6.0, 0, 1e-12);
    assert_double_close(na->throughput, 6.0, 0, 1e-9);
    assert_double_close(na->utilization, 0.75, 0, 1e-6);
    assert_double_close(na->mean_jobs, 3.0, 0, 1e-6); /* per server */
    assert_double_close(na->mean_response_time, 2.0, 0, 1e-6);
    assert_double_close(na->p95, log(20.0) / 0.5, 0, 1e-6);
    assert_double_close(na->p99, log(100.0) / 0.5, 0, 1e-6);
    assert_double_close(f.a->e2e.mean_response_time, 2.0, 0, 1e-6);
    assert_double_close(f.a->e2e.p95, log(20.0) / 0.5, 0, 1e-3);
    fx_free(&f);
}

/*
 * A probabilistic branch and a parallel scatter, against closed forms.
 * (a) a (mu 3) -> b (mu 2) with p = 0.5, lambda = 1: Lambda_b = 0.5.
 *     T = Exp(2) + [with prob. 0.5] Exp(1.5): mean 1/2 + 0.5/1.5 = 0.833333,
 *     P(T > t) = 0.5 e^{-2t} + 0.5 hypo(2, 1.5)(t).
 * (b) a (mu 3) -> b (mu 2) and a -> c (mu 4), both parallel, lambda = 1:
 *     T = Exp(2) + max(Exp(1), Exp(3)); P(max > t) = e^{-t} + e^{-3t} - e^{-4t}, a signed
 *     mixture of exponentials, so P(T > t) = h(2,1) + h(2,3) - h(2,4) (h the hypoexponential
 *     survival) and
 *     E[T] = 1/2 + 1 + 1/3 - 1/4 = 1.583333.
 */
typedef struct branch_ctx {
    int parallel; /* 0: the branch (a), 1: the scatter (b), 2: two sources */
} branch_ctx;

static double branch_fn(const void *ctx, double t)
{
    const branch_ctx *b = ctx;
    if (b->parallel == 0) {
        const double r[2] = {2.0, 1.5};
        return 0.5 * exp(-2.0 * t) + 0.5 * hypo_ccdf(r, 2, t);
    } else if (b->parallel == 2) { /* two sources: 0.5 hypo(2, 3) + 0.5 Exp(3) */
        const double r[2] = {2.0, 3.0};
        return 0.5 * hypo_ccdf(r, 2, t) + 0.5 * exp(-3.0 * t);
    } else {
        const double r1[2] = {2.0, 1.0}, r2[2] = {2.0, 3.0}, r3[2] = {2.0, 4.0};
        return hypo_ccdf(r1, 2, t) + hypo_ccdf(r2, 2, t) - hypo_ccdf(r3, 2, t);
    }
}

static void test_branch_and_parallel_e2e(void **state)
{
    fx f;
    branch_ctx mix = {0}, par = {1}, two = {2};
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"3/s\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"2/s\"/>\n"
                "<route from=\"a\" to=\"b\" p=\"0.5\"/>\n"
                "</architecture>\n");
    assert_double_close(node(&f, "b")->arrival_rate, 0.5, 0, 1e-12);
    assert_double_close(f.a->e2e.mean_response_time, 0.5 + 0.5 / 1.5, 0, 1e-6);
    assert_double_close(f.a->e2e.p50, quantile_of(branch_fn, &mix, 0.50), 0, 1e-3);
    assert_double_close(f.a->e2e.p95, quantile_of(branch_fn, &mix, 0.95), 0, 1e-3);
    assert_double_close(f.a->e2e.p99, quantile_of(branch_fn, &mix, 0.99), 0, 1e-3);
    fx_free(&f);

    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"3/s\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"2/s\"/>\n"
                "<pool id=\"c\" servers=\"1\" service-rate=\"4/s\"/>\n"
                "<route from=\"a\" to=\"b\" parallel=\"true\"/>\n"
                "<route from=\"a\" to=\"c\" parallel=\"true\"/>\n"
                "</architecture>\n");
    assert_double_close(node(&f, "b")->arrival_rate, 1.0, 0, 1e-12);
    assert_double_close(node(&f, "c")->arrival_rate, 1.0, 0, 1e-12);
    assert_double_close(f.a->e2e.mean_response_time, 0.5 + 1.0 + 1.0 / 3 - 0.25, 0, 1e-3);
    assert_double_close(f.a->e2e.p50, quantile_of(branch_fn, &par, 0.50), 0, 1e-3);
    assert_double_close(f.a->e2e.p95, quantile_of(branch_fn, &par, 0.95), 0, 1e-3);
    assert_double_close(f.a->e2e.p99, quantile_of(branch_fn, &par, 0.99), 0, 1e-3);
    fx_free(&f);

    /* two sources mixed by rate: s1 (1/s) -> a (mu 3) -> b (mu 5), s2 (1/s) -> b:
     * Lambda_b = 2, T_a ~ Exp(2), T_b ~ Exp(3); half the requests take Exp(2) + Exp(3), half
     * Exp(3): mean 0.5 (1/2 + 1/3) + 0.5 / 3 = 0.583333 */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s1\" to=\"a\" rate=\"1/s\"/>"
                "<source id=\"s2\" to=\"b\" rate=\"1/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"3/s\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"5/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "</architecture>\n");
    assert_double_close(node(&f, "b")->arrival_rate, 2.0, 0, 1e-12);
    assert_double_close(f.a->e2e.mean_response_time, 0.5 * (0.5 + 1.0 / 3) + 0.5 / 3, 0, 1e-6);
    assert_double_close(f.a->e2e.throughput, 2.0, 0, 1e-9);
    assert_double_close(f.a->e2e.p95, quantile_of(branch_fn, &two, 0.95), 0, 1e-3);
    assert_double_close(f.a->e2e.p50, quantile_of(branch_fn, &two, 0.50), 0, 1e-3);
    fx_free(&f);
}

/* ---- 2. Closed networks (MVA) ----------------------------------------------------------------- */

/*
 * 3 clients, think time Z = 1 s, to a (one server, mu = 2: D_a = 0.5 s) then b (one server,
 * mu = 4: D_b = 0.25 s). Exact MVA, R_i(m) = D_i (1 + Q_i(m-1)), X(m) = m / (Z + sum R),
 * Q_i(m) = X(m) R_i(m):
 *   m = 1: R = 1/2, 1/4;        X = 1 / (7/4)   = 4/7;     Q = 2/7, 1/7
 *   m = 2: R = 9/14, 4/14;      X = 2 / (27/14) = 28/27;   Q = 2/3, 8/27
 *   m = 3: R = 5/6, 35/108;     X = 3 / (233/108) = 324/233 = 1.390558
 *          Q_a = 324/233 * 5/6 = 270/233 = 1.158798, Q_b = 105/233 = 0.450644
 *          U_a = X D_a = 162/233, U_b = 81/233; end-to-end R = 125/108 = 1.157407
 */
static void test_mva_textbook(void **state)
{
    fx f;
    const ac_node_analysis *a, *b;
    const double x = 324.0 / 233.0;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"users\" size=\"3\" think-time=\"1s\" to=\"a\"/>"
                "</workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"2/s\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"4/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "</architecture>\n");
    a = node(&f, "a");
    b = node(&f, "b");
    assert_int_equal(a->analysed, 1);
    assert_int_equal(a->approximation, AC_SOLVER_APPROX_EXACT);
    assert_int_equal(b->approximation, AC_SOLVER_APPROX_EXACT);
    assert_double_close(x, 1.390558, 0, 1e-6); /* the hand value */
    assert_double_close(a->arrival_rate, x, 0, 1e-9);
    assert_double_close(b->arrival_rate, x, 0, 1e-9);
    assert_double_close(a->throughput, x, 0, 1e-9);
    assert_double_close(a->mean_jobs, 270.0 / 233.0, 0, 1e-9);
    assert_double_close(b->mean_jobs, 105.0 / 233.0, 0, 1e-9);
    assert_double_close(a->mean_response_time, 5.0 / 6.0, 0, 1e-9);
    assert_double_close(b->mean_response_time, 35.0 / 108.0, 0, 1e-9);
    assert_double_close(a->utilization, 162.0 / 233.0, 0, 1e-9);
    assert_double_close(b->utilization, 81.0 / 233.0, 0, 1e-9);
    assert_int_equal(f.a->e2e.available, 1);
    assert_double_close(f.a->e2e.throughput, x, 0, 1e-9);
    assert_double_close(f.a->e2e.mean_response_time, 125.0 / 108.0, 0, 1e-9);
    /* Little on the whole loop: N = X (Z + R) */
    assert_double_close(x * (1.0 + f.a->e2e.mean_response_time), 3.0, 0, 1e-12);
    /* percentiles: the stations' open laws at the MVA rates, an approximation that states
       its error (the gap between its mean and the exact MVA mean) */
    assert_int_equal(f.a->e2e.percentiles, 1);
    assert_true(f.a->e2e.p50 < f.a->e2e.p95 && f.a->e2e.p95 < f.a->e2e.p99);
    assert_true(f.a->e2e.expected_rel_error > 0.0);
    assert_int_equal(f.a->has_headroom, 0); /* closed workload: no headroom */
    fx_free(&f);

    /* visit ratios with feedback: a -> b, b -> a with p = 0.5: v_a = v_b = 2; one client,
     * Z = 1 s, mu = 4 at both: D = 0.5 s each, X = 1 / (1 + 0.5 + 0.5) = 0.5 requests/s, each
     * node sees X v = 1 job/s, 0.25 s per visit, 1 s per request */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"users\" size=\"1\" think-time=\"1s\" to=\"a\"/>"
                "</workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"4/s\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"4/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<route from=\"b\" to=\"a\" p=\"0.5\"/>\n"
                "</architecture>\n");
    assert_double_close(f.a->e2e.throughput, 0.5, 0, 1e-9);
    assert_double_close(node(&f, "a")->arrival_rate, 1.0, 0, 1e-9);
    assert_double_close(node(&f, "b")->arrival_rate, 1.0, 0, 1e-9);
    assert_double_close(node(&f, "a")->mean_response_time, 0.25, 0, 1e-9);
    assert_double_close(node(&f, "a")->utilization, 0.25, 0, 1e-9);
    assert_double_close(f.a->e2e.mean_response_time, 1.0, 0, 1e-9);
    fx_free(&f);
}

/*
 * The same closed network with a link of latency 0.5 s between a and b (format.md: the latency
 * "is added to every job on it"): a delay station of demand 0.5 s. Exact MVA:
 *   m = 1: R = 1/2, 1/4 (+0.5);     X = 1 / 2.25 = 4/9;          Q = 2/9, 1/9
 *   m = 2: R = 11/18, 5/18 (+0.5);  X = 2 / (43/18) = 36/43;     Q = 22/43, 10/43
 *   m = 3: R = 65/86, 53/172 (+0.5); X = 3 / (441/172) = 172/147 = 1.170068
 *          Q_a = 130/147, Q_b = 53/147; end to end 269/172 = 1.563953 s (link included)
 */
static void test_mva_link_latency(void **state)
{
    fx f;
    const double x = 172.0 / 147.0;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"users\" size=\"3\" think-time=\"1s\" to=\"a\"/>"
                "</workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"2/s\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"4/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<link from=\"a\" to=\"b\" latency=\"500ms\"/>\n"
                "</architecture>\n");
    assert_double_close(x, 1.170068, 0, 1e-6);
    /* Was a bug (fixed): ac_an_closed_solve (closed.c:130-151) builds its stations from the nodes only and
     * never reads m->links: the link's latency is no delay station, so X = 324/233 = 1.3906
     * (as without the link) and the end-to-end mean, 125/108 = 1.1574 s, omits the 0.5 s. */
    assert_double_close(f.a->e2e.throughput, x, 0, 1e-9);
    assert_double_close(node(&f, "a")->mean_jobs, 130.0 / 147.0, 0, 1e-9);
    assert_double_close(node(&f, "b")->mean_jobs, 53.0 / 147.0, 0, 1e-9);
    assert_double_close(node(&f, "a")->mean_response_time, 65.0 / 86.0, 0, 1e-9);
    assert_double_close(f.a->e2e.mean_response_time, 269.0 / 172.0, 0, 1e-9);
    /* whatever the link, Little holds on the loop: N = X (Z + R) */
    assert_double_close(f.a->e2e.throughput * (1.0 + f.a->e2e.mean_response_time), 3.0, 0, 1e-9);
    fx_free(&f);
}

/*
 * Large populations approach the fluid (bottleneck) limit X -> 1/D_max = 2/s; the non-bottleneck
 * b then sees Poisson-like arrivals at rate 2: Q_b -> rho/(1-rho) = 1 (rho_b = 0.5), and
 * the queue at a holds the rest: Q_a = N - X Z - Q_b. Exact MVA (N = 2000) and Schweitzer's
 * approximation (N = 200000, above the exact limit): both to 1%.
 */
static void test_mva_bottleneck_asymptote(void **state)
{
    fx f;
    static const char *sizes[2] = {"2000", "200000"};
    const double n[2] = {2000.0, 200000.0};
    (void)state;
    for (int i = 0; i < 2; i++) {
        char xml[1024];
        double x;
        snprintf(xml, sizeof xml,
                 "<architecture format=\"1\">\n"
                 "<workload><population id=\"users\" size=\"%s\" think-time=\"1s\" to=\"a\"/>"
                 "</workload>\n"
                 "<pool id=\"a\" servers=\"1\" service-rate=\"2/s\"/>\n"
                 "<pool id=\"b\" servers=\"1\" service-rate=\"4/s\"/>\n"
                 "<route from=\"a\" to=\"b\"/>\n"
                 "</architecture>\n",
                 sizes[i]);
        analyse(&f, xml);
        x = f.a->e2e.throughput;
        assert_double_close(x, 2.0, 0, 0.01);
        assert_true(x <= 2.0 * (1 + 1e-12)); /* never above the bound */
        assert_double_close(node(&f, "a")->utilization, 1.0, 0, 0.01);
        assert_double_close(node(&f, "b")->utilization, 0.5, 0, 0.01);
        assert_double_close(node(&f, "a")->mean_jobs, n[i] - 2.0 - 1.0, 0, 0.01);
        assert_double_close(f.a->e2e.mean_response_time, n[i] / 2.0 - 1.0, 0, 0.01);
        if (i == 0) {
            assert_double_close(node(&f, "b")->mean_jobs, 1.0, 0, 0.01);
            assert_int_equal(node(&f, "a")->approximation, AC_SOLVER_APPROX_EXACT);
        }
        fx_free(&f);
    }
}

/*
 * Multi-server stations in a closed network.
 * (a) One client, Z = 1 s, a 2-server pool (mu = 2, shared queue): no client ever waits, so
 *     X = 1 / (Z + 1/mu) = 2/3 exactly, per-server utilisation X / (2 mu) = 1/6, R = 0.5 s; the
 *     approximation is declared (Seidmann, not exact).
 * (b) A pool of 2 servers with RANDOM dispatch is, exactly, two single-server product-form
 *     stations each visited with probability 1/2: demand 0.5 s each (mu = 1). 3 clients,
 *     Z = 1 s, exact MVA:
 *       m = 1: R = 1/2, 1/2;   X = 1/2;        Q = 1/4 each
 *       m = 2: R = 5/8 each;   X = 2 / (9/4) = 8/9;   Q = 5/9 each
 *       m = 3: R = 7/9 each;   X = 3 / (23/9) = 27/23 = 1.173913; Q = 21/23 per server
 *     end to end 14/9 = 1.555556 s. (Seidmann's M/M/2 approximation gives X = 1.3077, 11% off.)
 *     The simulator confirms X (its 95% interval widened by 2%).
 */
static void test_mva_multi_server(void **state)
{
    fx f;
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    ac_error err = {0};
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"u\" size=\"1\" think-time=\"1s\" to=\"a\"/></workload>\n"
                "<pool id=\"a\" servers=\"2\" service-rate=\"2/s\" dispatch=\"shared-queue\"/>\n"
                "</architecture>\n");
    assert_double_close(f.a->e2e.throughput, 2.0 / 3.0, 0, 1e-9);
    assert_double_close(f.a->e2e.mean_response_time, 0.5, 0, 1e-9);
    assert_double_close(node(&f, "a")->utilization, 1.0 / 6.0, 0, 1e-9);
    assert_double_close(node(&f, "a")->mean_jobs, 1.0 / 6.0, 0, 1e-9);
    /* a shared queue is an M/M/c station: product form, exact by load-dependent MVA */
    assert_int_equal(node(&f, "a")->approximation, AC_SOLVER_APPROX_EXACT);
    assert_true(node(&f, "a")->expected_rel_error == 0.0);
    fx_free(&f);

    /* load-dependent MVA against the Markov chain: 3 clients (Z = 1 s) on an M/M/2 station
       (mu = 1): pi_k ~ 1, 3, 3, 3/2 for k = 0..3, so X = sum min(k, 2) pi_k = 24/17 */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"u\" size=\"3\" think-time=\"1s\" to=\"a\"/></workload>\n"
                "<pool id=\"a\" servers=\"2\" service-rate=\"1/s\" dispatch=\"shared-queue\"/>\n"
                "</architecture>\n");
    assert_double_close(f.a->e2e.throughput, 24.0 / 17.0, 0, 1e-12);
    assert_double_close(f.a->e2e.mean_response_time, 3.0 / (24.0 / 17.0) - 1.0, 0, 1e-12);
    assert_double_close(node(&f, "a")->mean_jobs * 2.0, (3.0 + 6.0 + 4.5) * 2.0 / 17.0, 0, 1e-12);
    fx_free(&f);

    /* a jsq pool is not product form: M/M/2 numbers, stating the gap to random queues */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"u\" size=\"3\" think-time=\"1s\" to=\"a\"/></workload>\n"
                "<pool id=\"a\" servers=\"2\" service-rate=\"1/s\" dispatch=\"jsq\"/>\n"
                "</architecture>\n");
    assert_double_close(f.a->e2e.throughput, 24.0 / 17.0, 0, 1e-12);
    assert_int_not_equal(node(&f, "a")->approximation, AC_SOLVER_APPROX_EXACT);
    /* c random queues give X = 27/23: the stated error covers the whole bracket, of the
       throughput and of the response time (R = M / X - Z: 9/8 s against 14/9 s) */
    assert_double_close(node(&f, "a")->expected_rel_error, (14.0 / 9.0 - 9.0 / 8.0) / (9.0 / 8.0),
                        0, 1e-9);
    fx_free(&f);

    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><population id=\"u\" size=\"3\" think-time=\"1s\" to=\"a\"/></workload>\n"
                "<pool id=\"a\" servers=\"2\" service-rate=\"1/s\" dispatch=\"random\"/>\n"
                "</architecture>\n");
    ac_sim_options_init(&so);
    so.seed = 5;
    so.replications = 5;
    so.horizon = 4000.0;
    so.warmup = 400.0;
    assert_int_equal(ac_sim_run(f.m, &so, &sr, &err), AC_OK);
    assert_true(fabs(sr->entries[0].throughput.mean - 27.0 / 23.0) <=
                sr->entries[0].throughput.ci95 + 0.02 * 27.0 / 23.0);
    ac_sim_result_free(sr);
    /* Was a bug (fixed): closed.c:145-149 applies Seidmann's multi-server approximation (an M/M/c station)
     * to every pool of c > 1 servers whatever its dispatch; a random-dispatch pool is c
     * single-server stations with exact product form (X = 27/23 = 1.1739, as the simulator
     * confirms), and the Seidmann value X = 17/13 = 1.3077 is 11% off, beyond the 5% error the
     * analysis states for it. */
    assert_double_close(f.a->e2e.throughput, 27.0 / 23.0, 0, 1e-9);
    assert_double_close(node(&f, "a")->mean_jobs, 21.0 / 23.0, 0, 1e-9);
    assert_double_close(f.a->e2e.mean_response_time, 14.0 / 9.0, 0, 1e-9);
    assert_true(fabs(f.a->e2e.throughput - 27.0 / 23.0) <=
                (node(&f, "a")->expected_rel_error + 0.12) * 27.0 / 23.0);
    fx_free(&f);

    /* an open source and a population together are not analysed: AC900, inconclusive */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/>\n"
                "<population id=\"u\" size=\"3\" think-time=\"1s\" to=\"a\"/></workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"4/s\"/>\n"
                "</architecture>\n");
    assert_diag(find_diag(&f.d, "AC900", "u"), "AC900", 3, 1, "u");
    assert_int_equal(verdict(&f), AC_VERDICT_INCONCLUSIVE);
    fx_free(&f);
}

/* ---- 3. Headroom ------------------------------------------------------------------------------ */

static void mm1_xml(char *buf, size_t size, const char *rate, const char *mu, const char *req)
{
    snprintf(buf, size,
             "<architecture format=\"1\">\n"
             "<workload><source id=\"s\" to=\"p\" rate=\"%s\"/></workload>\n"
             "<pool id=\"p\" servers=\"1\" service-rate=\"%s\"/>\n"
             "%s"
             "</architecture>\n",
             rate, mu, req);
}

static void test_headroom(void **state)
{
    fx f;
    char xml[2048];
    (void)state;
    /* M/M/1 at rho = 0.8, no requirement: alpha = 1/rho = 1.25 (1e-9), bound by stability */
    mm1_xml(xml, sizeof xml, "0.8/s", "1/s", "");
    analyse_h(&f, xml);
    assert_int_equal(f.a->has_headroom, 1);
    assert_double_close(f.a->headroom, 1.25, 0, 1e-9);
    assert_string_equal(f.a->headroom_binding, "stability");
    assert_int_equal(f.a->headroom_node, 0);
    fx_free(&f);

    /*
     * Was a bug (fixed), the four cases below: ac_an_headroom (headroom.c:79-82) first probes just below the
     * stability bound, at alpha_stab (1 - 1e-7), where a pool's load is 1 - 1e-7 and its
     * unbounded buffer needs ~2.8e8 truncation levels: ac_solver_pool_solve returns AC_ELIMIT,
     * solve_pool (network.c:79-84) leaves the node unanalysed, the requirement outcomes are
     * "not evaluated", and emit_probe (requirements.c:162-169) counts an unevaluated outcome as
     * holding. So the probe "holds" and the headroom is alpha_stab with binding "stability"
     * (1.25 and 2 below) whatever the utilisation or latency requirements say. (The failed
     * probe is also slow: the solver fills 1e7 levels before giving up, once per iteration of
     * the network loop, since an unanalysed node is never "unchanged".)
     */
    /* utilization max 0.6: 0.8 alpha = 0.6 -> alpha = 0.75 (1e-5) */
    mm1_xml(xml, sizeof xml, "0.8/s", "1/s",
            "<requirements><utilization max=\"0.6\"/></requirements>\n");
    analyse_h(&f, xml);
    assert_int_equal(f.a->has_headroom, 1);
    assert_double_close(f.a->headroom, 0.75, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "utilization");
    assert_int_equal(f.a->headroom_node, 0);
    fx_free(&f);

    /* mean latency of p at most 1 s, mu = 2, lambda = 1: 1/(2 - alpha) = 1 -> alpha = 1 */
    mm1_xml(xml, sizeof xml, "1/s", "2/s",
            "<requirements><latency max=\"1s\" target=\"p\"/></requirements>\n");
    analyse_h(&f, xml);
    assert_int_equal(f.a->has_headroom, 1);
    assert_double_close(f.a->headroom, 1.0, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "mean latency");
    assert_int_equal(f.a->headroom_node, 0);
    fx_free(&f);

    /* the same end to end (the lattice is used for the probes too) */
    mm1_xml(xml, sizeof xml, "1/s", "2/s", "<requirements><latency max=\"1s\"/></requirements>\n");
    analyse_h(&f, xml);
    assert_double_close(f.a->headroom, 1.0, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "mean latency");
    assert_true(f.a->headroom <= 2.0 * (1 + 1e-12));
    fx_free(&f);

    /* p95 of p at most 3 s, mu = 2, lambda = 1: ln(20)/(2 - alpha) = 3 -> alpha = 2 - ln(20)/3 */
    mm1_xml(xml, sizeof xml, "1/s", "2/s",
            "<requirements><latency percentile=\"95\" max=\"3s\" target=\"p\"/></requirements>\n");
    analyse_h(&f, xml);
    assert_double_close(f.a->headroom, 2.0 - log(20.0) / 3.0, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "latency p95");
    assert_true(f.a->headroom <= 2.0 * (1 + 1e-12));
    fx_free(&f);

    /* a finite buffer has no stability bound: the bisection alone finds where utilisation
     * max 0.9 binds on an M/M/1/10 (mu 1, lambda 0.5): U(rho) = 1 - (1-rho)/(1-rho^11) = 0.9 */
    {
        double lo = 0.5, hi = 10.0;
        for (int i = 0; i < 200; i++) {
            double mid = 0.5 * (lo + hi);
            double u = 1.0 - (1.0 - mid) / (1.0 - pow(mid, 11));
            if (u < 0.9)
                lo = mid;
            else
                hi = mid;
        }
        analyse_h(&f, "<architecture format=\"1\">\n"
                    "<workload><source id=\"s\" to=\"p\" rate=\"0.5/s\"/></workload>\n"
                    "<pool id=\"p\" servers=\"1\" service-rate=\"1/s\" buffer=\"10\"/>\n"
                    "<requirements><utilization max=\"0.9\"/></requirements>\n"
                    "</architecture>\n");
        assert_int_equal(f.a->has_headroom, 1);
        assert_double_close(f.a->headroom, lo / 0.5, 0, 2e-5); /* the search's tolerance 1e-5 */
        assert_string_equal(f.a->headroom_binding, "utilization");
        assert_int_equal(f.a->headroom_node, 0);
        fx_free(&f);
    }

    /* two pools: the bottleneck is named; rho = 0.5 (a) and 0.8 (b): alpha = 1.25 at b */
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"4/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"2\" service-rate=\"4/s\"/>\n"
                "<pool id=\"b\" servers=\"5\" service-rate=\"1/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "</architecture>\n");
    assert_double_close(f.a->headroom, 1.25, 0, 1e-9);
    assert_string_equal(f.a->headroom_binding, "stability");
    assert_int_equal(f.a->headroom_node, node_index(&f, "b"));
    fx_free(&f);
}

/*
 * Headroom must respect link capacity (models.md §4: "Λ ≥ c is overload"; stability is always
 * required). Source 2/s -> a (10 servers, mu 1: rho 0.2) -> b (20 servers, mu 1: rho 0.1) over a
 * link of capacity 4/s: the link saturates at alpha = 4/2 = 2, the pools only at alpha = 5.
 */
static void test_headroom_link_capacity(void **state)
{
    fx f;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"2/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<pool id=\"b\" servers=\"20\" service-rate=\"1/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<link id=\"wire\" from=\"a\" to=\"b\" capacity=\"4/s\"/>\n"
                "</architecture>\n");
    assert_int_equal(f.a->has_headroom, 1);
    assert_int_equal(count_rule(&f.d, "AC101"), 0);
    /* Was a bug (fixed): the stability bound of ac_an_headroom (headroom.c:44-58) and the probe predicate
     * ac_an_requirements_hold (requirements.c:197-204) look at pools only: the link is
     * ignored and the factor reported is 5 (the pools' bound), although the link is
     * overloaded (AC101 at the analysed load) beyond alpha = 2. */
    assert_double_close(f.a->headroom, 2.0, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "stability");
    assert_true(f.a->headroom <= 5.0 * (1 + 1e-9));
    fx_free(&f);
}

/*
 * Headroom behind a lossy pool. a: M/M/1/5 (mu = 1, buffer 5) passes at most 1 job/s, so b
 * (one server, mu = 1.2, unbounded) can never be overloaded, whatever the workload. With
 * <utilization max="0.95" target="a"/> the headroom is where a's utilisation reaches 0.95:
 * U(rho) = 1 - (1 - rho)/(1 - rho^6) = 0.95 at rho_star (bisection below), alpha = rho_star / 0.9.
 */
static double mm1k_util(double rho, int k)
{
    return 1.0 - (1.0 - rho) / (1.0 - pow(rho, k + 1));
}

static void test_headroom_lossy_upstream(void **state)
{
    fx f;
    double lo = 1.0001, hi = 100.0;
    (void)state;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (mm1k_util(mid, 5) < 0.95)
            lo = mid;
        else
            hi = mid;
    }
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"0.9/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"1\" service-rate=\"1/s\" buffer=\"5\"/>\n"
                "<pool id=\"b\" servers=\"1\" service-rate=\"1.2/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<requirements><utilization max=\"0.95\" target=\"a\"/></requirements>\n"
                "</architecture>\n");
    /* a's utilisation at alpha = 1: the M/M/1/5 closed form */
    assert_double_close(node(&f, "a")->utilization, mm1k_util(0.9, 5), 0, 1e-6);
    assert_double_close(node(&f, "b")->arrival_rate, mm1k_util(0.9, 5), 0, 1e-6);
    assert_int_equal(f.a->has_headroom, 1);
    /* Was a bug (fixed): headroom.c:52-57 takes 1/rho_b = 1.2/0.786 = 1.5256 as the stability bound (it
     * assumes that arrival rates scale linearly with the sources, which a lossy upstream pool
     * breaks), the probe just below it holds, and the headroom is reported as 1.5256 with
     * binding "stability" at b, a node that cannot be overloaded; the true factor is 1.6489
     * (a's utilisation). */
    assert_double_close(f.a->headroom, lo / 0.9, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "utilization");
    assert_int_equal(f.a->headroom_node, node_index(&f, "a"));
    fx_free(&f);
}

/* ---- 4. Requirements -------------------------------------------------------------------------- */

/*
 * Latency requirements, source lambda = 1 -> web (mu 2) -> db (mu 4), both M/M/1:
 *   line 7  mean of web  max 900ms: 1 s          FAIL  AC201 (node web)
 *   line 8  p95 of web   max 4s:    ln 20 = 2.996 PASS
 *   line 9  p90 of db    max 2s:    ln 10 / 3 = 0.7675 PASS (a percentile the solver computes)
 *   line 10 mean e2e     max 1.5s:  1 + 1/3      PASS
 *   line 11 p99 e2e      max 4s:    hypo(1, 3): 1.5 e^{-t} - 0.5 e^{-3t} = 0.01 -> 5.0106 FAIL
 *   line 12 p90 e2e      max 2.5s:  1.5 e^{-t} - 0.5 e^{-3t} = 0.1 -> 2.7066          FAIL
 *           (a percentile other than 50/95/99, from the end-to-end grid)
 */
static const char LATENCY_REQS[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"web\" rate=\"1/s\"/></workload>\n"
    "<pool id=\"web\" servers=\"1\" service-rate=\"2/s\"/>\n"
    "<pool id=\"db\" servers=\"1\" service-rate=\"4/s\"/>\n"
    "<route from=\"web\" to=\"db\"/>\n"
    "<requirements>\n"
    "  <latency max=\"900ms\" target=\"web\"/>\n"
    "  <latency percentile=\"95\" max=\"4s\" target=\"web\"/>\n"
    "  <latency percentile=\"90\" max=\"2s\" target=\"db\"/>\n"
    "  <latency max=\"1.5s\"/>\n"
    "  <latency percentile=\"99\" max=\"4s\"/>\n"
    "  <latency percentile=\"90\" max=\"2.5s\"/>\n"
    "</requirements>\n"
    "</architecture>\n";

static void test_req_latency(void **state)
{
    fx f;
    char xml[1024];
    const double r2[2] = {1.0, 3.0};
    hypo_ctx h = {r2, 2};
    size_t web, db;
    double p99;
    (void)state;
    analyse(&f, LATENCY_REQS);
    web = node_index(&f, "web");
    db = node_index(&f, "db");
    p99 = quantile_of(hypo_fn, &h, 0.99);
    assert_double_close(p99, 5.0106, 0, 1e-4);
    assert_check(check_at(f.a, 7, AC_NONE), AC_CHECK_FAIL, 1.0, 0.9, 1e-6, "s", 1, web, 7, 3);
    assert_string_equal(check_at(f.a, 7, AC_NONE)->rule, "AC201");
    assert_check(check_at(f.a, 8, AC_NONE), AC_CHECK_PASS, log(20.0), 4.0, 1e-6, "s", 1, web, 8,
                 3);
    assert_check(check_at(f.a, 9, AC_NONE), AC_CHECK_PASS, log(10.0) / 3.0, 2.0, 1e-6, "s", 1, db,
                 9, 3);
    assert_check(check_at(f.a, 10, AC_NONE), AC_CHECK_PASS, 4.0 / 3.0, 1.5, 1e-6, "s", 1, AC_NONE,
                 10, 3);
    assert_check(check_at(f.a, 11, AC_NONE), AC_CHECK_FAIL, p99, 4.0, 1e-3, "s", 1, AC_NONE, 11, 3);
    assert_string_equal(check_at(f.a, 11, AC_NONE)->rule, "AC201");
    assert_double_close(quantile_of(hypo_fn, &h, 0.90), 2.7066, 0, 1e-4);
    assert_check(check_at(f.a, 12, AC_NONE), AC_CHECK_FAIL, quantile_of(hypo_fn, &h, 0.90), 2.5,
                 1e-3, "s", 1, AC_NONE, 12, 3);
    /* exactly three AC201 findings, at the failing requirements' elements */
    assert_int_equal(count_rule(&f.d, "AC201"), 3);
    assert_diag(find_diag_at(&f.d, "AC201", 12), "AC201", 12, 3, NULL);
    assert_diag(find_diag_at(&f.d, "AC201", 7), "AC201", 7, 3, "web");
    assert_diag(find_diag_at(&f.d, "AC201", 11), "AC201", 11, 3, NULL);
    assert_int_equal(count_rule(&f.d, "AC900"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);

    /* An exact end-to-end mean is not undecided: M/M/1 at rho = 0.8 (mu = 1) has the exact mean
     * 5 s (visit ratios, no fan-out), 1% below a limit of 5.05 s: PASS. The node-level check of
     * the same number has no stated error and passes. */
    mm1_xml(xml, sizeof xml, "0.8/s", "1/s",
            "<requirements>\n  <latency max=\"5.05s\"/>\n  <latency max=\"5.05s\" target=\"p\"/>\n"
            "</requirements>\n");
    analyse(&f, xml);
    assert_double_close(f.a->e2e.mean_response_time, 5.0, 0, 1e-9);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->status, AC_CHECK_PASS);
    assert_double_close(check_at(f.a, 6, AC_NONE)->rel_error, 0.0, 1e-12, 0);
    /* Was a bug (fixed): ac_an_e2e_solve (e2e.c:468, expected_rel_error = max_err + h / p50) states the
     * lattice's quantile error (1.8% here) for every end-to-end number, and ac_req_latency
     * (req_latency.c:91) uses it for the mean too, although the mean comes from visit ratios and
     * is exact without fan-out: the check is INCONCLUSIVE (AC900) instead of PASS (and with
     * validation a needless simulation runs). */
    assert_int_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_PASS);
    assert_int_equal(count_rule(&f.d, "AC900"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_PASS);
    assert_int_not_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_FAIL);
    fx_free(&f);
}

/*
 * Utilisation of every node (no target): source 1.5/s -> x (2 servers, mu 1: rho 0.75) ->
 * y (1 server, mu 2: rho 0.75) -> z (4 servers, mu 1: rho 0.375); max 0.7 (line 8):
 * one check per node, one AC202 finding per violating node (x and y).
 */
#define UTIL_HEAD                                                                                  \
    "<architecture format=\"1\">\n"                                                                \
    "<workload><source id=\"s\" to=\"x\" rate=\"1.5/s\"/></workload>\n"                            \
    "<pool id=\"x\" servers=\"2\" service-rate=\"1/s\"/>\n"                                        \
    "<pool id=\"y\" servers=\"1\" service-rate=\"2/s\"/>\n"                                        \
    "<pool id=\"z\" servers=\"4\" service-rate=\"1/s\"/>\n"                                        \
    "<route from=\"x\" to=\"y\"/>\n"                                                               \
    "<route from=\"y\" to=\"z\"/>\n"                                                               \
    "<requirements><utilization max=\"0.7\"/></requirements>\n"

static void test_req_utilization_every_node(void **state)
{
    fx f;
    (void)state;
    analyse(&f, UTIL_HEAD "</architecture>\n");
    assert_int_equal(count_checks_at(f.a, 8), 3);
    assert_check(check_at(f.a, 8, node_index(&f, "x")), AC_CHECK_FAIL, 0.75, 0.7, 1e-6, "", 1,
                 node_index(&f, "x"), 8, 15);
    assert_check(check_at(f.a, 8, node_index(&f, "y")), AC_CHECK_FAIL, 0.75, 0.7, 1e-6, "", 1,
                 node_index(&f, "y"), 8, 15);
    assert_check(check_at(f.a, 8, node_index(&f, "z")), AC_CHECK_PASS, 0.375, 0.7, 1e-6, "", 1,
                 node_index(&f, "z"), 8, 15);
    assert_string_equal(check_at(f.a, 8, node_index(&f, "x"))->rule, "AC202");
    assert_int_equal(count_rule(&f.d, "AC202"), 2);
    assert_diag(find_diag(&f.d, "AC202", "x"), "AC202", 8, 15, "x");
    assert_diag(find_diag(&f.d, "AC202", "y"), "AC202", 8, 15, "y");
    assert_null(maybe_diag(&f.d, "AC202", "z"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* Suppressions: silence AC202 on x (with the reason); y still fails; silencing both passes. */
static void test_suppressions(void **state)
{
    fx f;
    const ac_diag *dx, *dy;
    (void)state;
    analyse(&f, UTIL_HEAD "<suppress rule=\"AC202\" target=\"x\" reason=\"batch tier, accepted\"/>\n"
                          "</architecture>\n");
    dx = find_diag(&f.d, "AC202", "x");
    dy = find_diag(&f.d, "AC202", "y");
    assert_non_null(dx);
    assert_non_null(dy);
    assert_int_equal(dx->suppressed, 1);
    assert_non_null(dx->suppress_reason);
    assert_string_equal(dx->suppress_reason, "batch tier, accepted");
    assert_int_equal(dy->suppressed, 0);
    assert_int_equal(ac_diag_list_count(&f.d, AC_SEV_ERROR), 1);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    assert_int_equal(check_at(f.a, 8, node_index(&f, "x"))->suppressed, 1);
    /* Was a bug (fixed): mark_suppressed_checks (analysis.c:101-113) matches checks to suppressed findings by
     * rule and location only, not by node; every node's check of one "every node" requirement
     * shares the requirement's location, so y's check is marked suppressed by x's suppression
     * (while y's finding is, correctly, not suppressed). */
    assert_int_equal(check_at(f.a, 8, node_index(&f, "y"))->suppressed, 0);
    fx_free(&f);

    analyse(&f, UTIL_HEAD "<suppress rule=\"AC202\" target=\"x\" reason=\"batch tier\"/>\n"
                          "<suppress rule=\"AC202\" target=\"y\" reason=\"batch tier too\"/>\n"
                          "</architecture>\n");
    assert_int_equal(find_diag(&f.d, "AC202", "x")->suppressed, 1);
    assert_int_equal(find_diag(&f.d, "AC202", "y")->suppressed, 1);
    assert_string_equal(find_diag(&f.d, "AC202", "y")->suppress_reason, "batch tier too");
    assert_int_equal(ac_diag_list_count(&f.d, AC_SEV_WARNING), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_PASS);
    fx_free(&f);

    /* without a target: everywhere */
    analyse(&f, UTIL_HEAD "<suppress rule=\"AC202\" reason=\"known\"/>\n</architecture>\n");
    assert_int_equal(count_rule(&f.d, "AC202"), 2);
    assert_int_equal(find_diag(&f.d, "AC202", "x")->suppressed, 1);
    assert_int_equal(find_diag(&f.d, "AC202", "y")->suppressed, 1);
    assert_int_equal(verdict(&f), AC_VERDICT_PASS);
    fx_free(&f);

    /* a suppression of another rule changes nothing */
    analyse(&f, UTIL_HEAD "<suppress rule=\"AC201\" reason=\"n/a\"/>\n</architecture>\n");
    assert_int_equal(find_diag(&f.d, "AC202", "x")->suppressed, 0);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/*
 * Loss and throughput on an M/M/1/K: lambda = 1, mu = 1.25 (rho = 0.8), K = 5:
 *   P(loss) = rho^K (1 - rho) / (1 - rho^{K+1}) = 0.065536 / 0.737856 = 0.0888195
 *   L = rho/(1-rho) - (K+1) rho^{K+1} / (1 - rho^{K+1}) = 4 - 6 * 0.262144/0.737856 = 1.868313
 *   throughput lambda (1 - P) = 0.9111805
 *   line 7  loss of q max 0.05         FAIL AC203
 *   line 8  loss e2e  max 0.1          PASS
 *   line 9  throughput e2e min 0.95/s  FAIL AC204
 *   line 10 throughput of q min 0.9/s  PASS
 */
static void test_req_loss_throughput(void **state)
{
    fx f;
    const double rho = 0.8, r6 = pow(rho, 6);
    const double ploss = pow(rho, 5) * (1 - rho) / (1 - r6);
    const double mean_l = rho / (1 - rho) - 6 * r6 / (1 - r6);
    const ac_node_analysis *na;
    size_t q;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"q\" rate=\"1/s\"/></workload>\n"
                "<pool id=\"q\" servers=\"1\" service-rate=\"1.25/s\" buffer=\"5\"/>\n"
                "<pool id=\"sink\" servers=\"1\" service-rate=\"100/s\"/>\n"
                "<route from=\"q\" to=\"sink\"/>\n"
                "<requirements>\n"
                "  <loss max=\"0.05\" target=\"q\"/>\n"
                "  <loss max=\"0.1\"/>\n"
                "  <throughput min=\"0.95/s\"/>\n"
                "  <throughput min=\"0.9/s\" target=\"q\"/>\n"
                "</requirements>\n"
                "</architecture>\n");
    q = node_index(&f, "q");
    na = node(&f, "q");
    assert_double_close(ploss, 0.0888195, 0, 1e-6);
    assert_double_close(na->loss_probability, ploss, 0, 1e-6);
    assert_double_close(na->mean_jobs, mean_l, 0, 1e-6);
    assert_double_close(na->throughput, 1 - ploss, 0, 1e-6);
    assert_double_close(na->utilization, (1 - ploss) / 1.25, 0, 1e-6);
    /* Little for accepted jobs */
    assert_double_close(na->mean_response_time, mean_l / (1 - ploss), 0, 1e-6);
    /* downstream sees only what q passes */
    assert_double_close(node(&f, "sink")->arrival_rate, 1 - ploss, 0, 1e-6);
    assert_double_close(f.a->e2e.loss_probability, ploss, 0, 1e-6);
    assert_double_close(f.a->e2e.throughput, 1 - ploss, 0, 1e-6);

    assert_check(check_at(f.a, 7, AC_NONE), AC_CHECK_FAIL, ploss, 0.05, 1e-6, "", 1, q, 7, 3);
    assert_string_equal(check_at(f.a, 7, AC_NONE)->rule, "AC203");
    assert_check(check_at(f.a, 8, AC_NONE), AC_CHECK_PASS, ploss, 0.1, 1e-6, "", 1, AC_NONE, 8, 3);
    assert_check(check_at(f.a, 9, AC_NONE), AC_CHECK_FAIL, 1 - ploss, 0.95, 1e-6, "/s", 0, AC_NONE,
                 9, 3);
    assert_string_equal(check_at(f.a, 9, AC_NONE)->rule, "AC204");
    assert_check(check_at(f.a, 10, AC_NONE), AC_CHECK_PASS, 1 - ploss, 0.9, 1e-6, "/s", 0, q, 10,
                 3);
    assert_int_equal(count_rule(&f.d, "AC203"), 1);
    assert_int_equal(count_rule(&f.d, "AC204"), 1);
    assert_diag(find_diag(&f.d, "AC203", NULL), "AC203", 7, 3, "q");
    assert_diag(find_diag(&f.d, "AC204", NULL), "AC204", 9, 3, NULL);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* Headroom requirement: M/M/1 at rho = 0.8 has a factor of 1.25: min 1.5 fails (AC205 naming the
 * bottleneck), min 1.2 passes. */
static void test_req_headroom(void **state)
{
    fx f;
    char xml[2048];
    (void)state;
    mm1_xml(xml, sizeof xml, "0.8/s", "1/s",
            "<requirements>\n  <headroom min=\"1.5\"/>\n  <headroom min=\"1.2\"/>\n"
            "</requirements>\n");
    analyse_h(&f, xml);
    assert_check(check_at(f.a, 5, AC_NONE), AC_CHECK_FAIL, 1.25, 1.5, 1e-9, "", 0, 0, 5, 3);
    assert_string_equal(check_at(f.a, 5, AC_NONE)->rule, "AC205");
    assert_check(check_at(f.a, 6, AC_NONE), AC_CHECK_PASS, 1.25, 1.2, 1e-9, "", 0, 0, 6, 3);
    assert_int_equal(count_rule(&f.d, "AC205"), 1);
    assert_diag(find_diag(&f.d, "AC205", NULL), "AC205", 5, 3, "p");
    assert_non_null(strstr(find_diag(&f.d, "AC205", NULL)->message, "stability"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/*
 * The straddle rule: a power-of-two pool (with replacement) of 10 servers at rho = 0.9 is solved
 * by the refined mean field with a stated error e > 0; models.md §2 gives the reference values
 * per server: mean field 2.3527, refined 2.7513 (order 1/N), 2.8045 (order 1/N^2, the headline;
 * tests/test_refined.c), simulation 2.8008. Without a simulation
 * (validate = never), a mean-latency limit within e of the value cannot support a verdict
 * (AC900, inconclusive); one clearly beyond it fails (AC201) or passes.
 */
static const char STRADDLE_FMT[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"p\" rate=\"9/s\"/></workload>\n"
    "<pool id=\"p\" servers=\"10\" service-rate=\"1/s\" dispatch=\"power-of-d\" "
    "sampling=\"with-replacement\"/>\n"
    "<requirements>\n"
    "  <latency max=\"%.17gs\" target=\"p\"/>\n"
    "</requirements>\n"
    "</architecture>\n";

static const char STRADDLE95_FMT[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"p\" rate=\"9.5/s\"/></workload>\n"
    "<pool id=\"p\" servers=\"10\" service-rate=\"1/s\" dispatch=\"power-of-d\" "
    "sampling=\"with-replacement\"/>\n"
    "<requirements>\n"
    "  <latency max=\"%.17gs\" target=\"p\"/>\n"
    "</requirements>\n"
    "</architecture>\n";

static void test_straddle_inconclusive(void **state)
{
    fx f;
    char xml[1024];
    double t, e;
    (void)state;
    snprintf(xml, sizeof xml, STRADDLE_FMT, 1000.0);
    analyse(&f, xml);
    t = node(&f, "p")->mean_response_time;
    e = node(&f, "p")->expected_rel_error;
    assert_int_equal(node(&f, "p")->approximation, AC_SOLVER_APPROX_REFINED);
    assert_double_close(node(&f, "p")->mean_jobs, 2.8045, 0, 1e-3);
    assert_double_close(t, 2.8045 / 0.9, 0, 1e-3); /* Little */
    assert_true(e > 1e-3 && e < 0.2);
    /* the stated error covers the simulation's reference value */
    assert_true(fabs(2.8008 - node(&f, "p")->mean_jobs) <= e * node(&f, "p")->mean_jobs);
    assert_check(check_at(f.a, 5, AC_NONE), AC_CHECK_PASS, t, 1000.0, 1e-12, "s", 1, 0, 5, 3);
    fx_free(&f);

    /* within the error, below the value: inconclusive */
    snprintf(xml, sizeof xml, STRADDLE_FMT, t * (1 - 0.5 * e));
    analyse(&f, xml);
    {
        const ac_check *ck = check_at(f.a, 5, AC_NONE);
        assert_int_equal(ck->status, AC_CHECK_INCONCLUSIVE);
        assert_string_equal(ck->rule, "AC900");
        assert_double_close(ck->value, t, 0, 1e-12);
        assert_double_close(ck->rel_error, e, 0, 1e-12);
        assert_int_equal(ck->has_sim, 0);
    }
    assert_diag(find_diag_at(&f.d, "AC900", 5), "AC900", 5, 3, "p");
    assert_int_equal(count_rule(&f.d, "AC201"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_INCONCLUSIVE);
    fx_free(&f);

    /* within the error, above the value: inconclusive too */
    snprintf(xml, sizeof xml, STRADDLE_FMT, t * (1 + 0.5 * e));
    analyse(&f, xml);
    assert_int_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_INCONCLUSIVE);
    assert_int_equal(verdict(&f), AC_VERDICT_INCONCLUSIVE);
    fx_free(&f);

    /* clearly below: fail */
    snprintf(xml, sizeof xml, STRADDLE_FMT, t * (1 - 3 * e));
    analyse(&f, xml);
    assert_int_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_FAIL);
    assert_diag(find_diag_at(&f.d, "AC201", 5), "AC201", 5, 3, "p");
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);

    /* clearly above: pass */
    snprintf(xml, sizeof xml, STRADDLE_FMT, t * (1 + 3 * e));
    analyse(&f, xml);
    assert_int_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_PASS);
    assert_int_equal(count_rule(&f.d, "AC900"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_PASS);
    fx_free(&f);
}

/*
 * With validation (the default, validate = auto) the simulator settles a straddling check. At
 * rho = 0.95 (9.5/s on the pool above) the headline (order 1/N^2) is 4.3265 jobs per server,
 * t = 4.554 s, with a stated error e = 7.1%; bench_refined's simulation gives 4.2689 +- 0.072
 * jobs, 4.494 s. A limit of t (1 - 0.9 e) ~ 4.26 s (within the stated error) fails on the
 * simulation's interval (about 4.49 +- 0.1). A limit far from the value needs no simulation.
 * (Seeded; 10 replications of 50000 s.)
 */
static void test_straddle_settled_by_simulation(void **state)
{
    fx f;
    char xml[1024];
    ac_analysis_options o;
    double t, e;
    (void)state;
    ac_analysis_options_init(&o);
    assert_int_equal(o.validate, AC_VALIDATE_AUTO);
    o.headroom = 0;
    o.sim.seed = 12;
    o.sim.replications = 10;
    o.sim.horizon = 50000.0;
    o.sim.warmup = 5000.0;
    snprintf(xml, sizeof xml, STRADDLE95_FMT, 1000.0);
    analyse_ok(&f, xml, &o);
    t = node(&f, "p")->mean_response_time;
    e = node(&f, "p")->expected_rel_error;
    assert_null(f.a->sim); /* nothing straddles: no simulation */
    assert_int_equal(check_at(f.a, 5, AC_NONE)->has_sim, 0);
    fx_free(&f);

    snprintf(xml, sizeof xml, STRADDLE95_FMT, t * (1 - 0.9 * e));
    analyse_ok(&f, xml, &o);
    {
        const ac_check *ck = check_at(f.a, 5, AC_NONE);
        assert_non_null(f.a->sim);
        assert_int_equal(ck->has_sim, 1);
        /* the simulation's estimate agrees with the reference 4.494 s within its interval
         * widened by 2% */
        assert_true(fabs(ck->sim_value - 4.2689 / 0.95) <= ck->sim_ci95 + 0.02 * 4.2689 / 0.95);
        if (!(ck->sim_value - ck->sim_ci95 > ck->limit))
            print_error("simulation %g +- %g, limit %g\n", ck->sim_value, ck->sim_ci95, ck->limit);
        assert_true(ck->sim_ci95 < 0.05 * ck->sim_value); /* informative */
        assert_true(ck->sim_value - ck->sim_ci95 > ck->limit);
        assert_int_equal(ck->settled_by_simulation, 1);
        assert_int_equal(ck->status, AC_CHECK_FAIL);
        assert_string_equal(ck->rule, "AC201");
    }
    assert_diag(find_diag_at(&f.d, "AC201", 5), "AC201", 5, 3, "p");
    assert_int_equal(count_rule(&f.d, "AC900"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* Recovery, scaling and resilience need the transient model and the search: AC900 each, the
 * check inconclusive, the verdict inconclusive (never PASS). */
static void test_deferred_requirements(void **state)
{
    fx f;
    char xml[2048];
    (void)state;
    mm1_xml(xml, sizeof xml, "0.5/s", "1/s",
            "<requirements>\n"
            "  <recovery max=\"60s\"/>\n"
            "  <scaling max-events=\"20\" max-server-hours=\"500\"/>\n"
            "  <resilience min-boundary=\"3000/s\"/>\n"
            "</requirements>\n"
            "<faults><fault target=\"p\" delay=\"0ms..1s\"/></faults>\n");
    analyse(&f, xml);
    for (unsigned line = 5; line <= 7; line++) {
        const ac_check *ck = check_at(f.a, line, AC_NONE);
        assert_non_null(ck);
        assert_int_equal(ck->status, AC_CHECK_INCONCLUSIVE);
        assert_string_equal(ck->rule, "AC900");
        assert_int_equal(ck->has_value, 0);
        assert_int_equal(ck->loc.column, 3);
        assert_diag(find_diag_at(&f.d, "AC900", line), "AC900", line, 3, NULL);
    }
    assert_int_equal(count_rule(&f.d, "AC900"), 3);
    assert_int_equal(count_rule(&f.d, "AC206"), 0);
    assert_int_equal(count_rule(&f.d, "AC207"), 0);
    assert_int_equal(count_rule(&f.d, "AC301"), 0);
    assert_int_equal(verdict(&f), AC_VERDICT_INCONCLUSIVE);
    fx_free(&f);
}

/* ---- 5. Stability ----------------------------------------------------------------------------- */

static void test_overload(void **state)
{
    fx f;
    const ac_node_analysis *na;
    const ac_diag *d;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"web\" rate=\"3/s\"/></workload>\n"
                "<pool id=\"web\" servers=\"2\" service-rate=\"1/s\"/>\n"
                "<requirements><latency max=\"10s\"/></requirements>\n"
                "</architecture>\n");
    na = node(&f, "web");
    assert_int_equal(na->analysed, 1);
    assert_int_equal(na->overload, 1);
    assert_double_close(na->throughput, 2.0, 0, 1e-12);      /* capacity N mu */
    assert_double_close(na->loss_probability, 1.0 / 3.0, 0, 1e-12);
    assert_true(isinf(na->mean_jobs));
    d = find_diag(&f.d, "AC101", "web");
    assert_diag(d, "AC101", 3, 1, "web");
    assert_int_equal(d->severity, AC_SEV_ERROR);
    assert_non_null(strstr(d->message, "web"));
    /* the stability check of web fails with an unbounded value */
    {
        const ac_check *ck = check_at(f.a, 3, 0);
        assert_non_null(ck);
        assert_int_equal(ck->status, AC_CHECK_FAIL);
        assert_string_equal(ck->rule, "AC101");
        assert_true(isinf(ck->value));
    }
    /* the end-to-end latency is unbounded: it fails */
    assert_int_equal(check_at(f.a, 4, AC_NONE)->status, AC_CHECK_FAIL);
    assert_true(isinf(check_at(f.a, 4, AC_NONE)->value));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    /* no headroom left: the latency requirement binds before saturation (2/3):
       1 / (1 - 1.5 alpha) = 10 s at alpha = 0.6 */
    assert_double_close(f.a->headroom, 0.6, 0, 2e-5); /* the search's tolerance 1e-5 */
    assert_string_equal(f.a->headroom_binding, "mean latency");
    fx_free(&f);
}

/* A link carrying more than its capacity: a (10 servers, mu 1) passes 6/s to b over a link of
 * capacity 5/s: AC101 on the link (line 6), the pools are fine. */
static void test_link_overload(void **state)
{
    fx f;
    const ac_diag *d;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"6/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<pool id=\"b\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<link id=\"wire\" from=\"a\" to=\"b\" capacity=\"5/s\"/>\n"
                "<requirements><latency max=\"100s\"/></requirements>\n"
                "</architecture>\n");
    assert_int_equal(node(&f, "a")->overload, 0);
    assert_int_equal(node(&f, "b")->overload, 0);
    assert_int_equal(count_rule(&f.d, "AC101"), 1);
    d = find_diag(&f.d, "AC101", NULL);
    assert_diag(d, "AC101", 6, 1, "wire");
    assert_non_null(strstr(d->message, "'a'"));
    assert_non_null(strstr(d->message, "'b'"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    /* Was a bug (fixed): an overloaded link makes the end-to-end mean unbounded, yet ac_an_e2e_solve
     * (e2e.c:434-439) adds flow * 1/(capacity - flow) = 6 * 1/(5 - 6) = -6 job-seconds for it (a
     * NEGATIVE delay), so e2e.mean_response_time = (15 + 15 - 6) / 6 = 4 s, and
     * ac_req_latency (req_latency.c:77-83) treats only overloaded NODES as unbounded: the
     * end-to-end latency requirement (max 100 s) PASSES. */
    assert_int_not_equal(check_at(f.a, 7, AC_NONE)->status, AC_CHECK_PASS);
    assert_false(f.a->e2e.available && f.a->e2e.mean_response_time < 100.0);
    assert_int_equal(check_at(f.a, 7, AC_NONE)->loc.column, 15);
    fx_free(&f);

    /* below the capacity: no finding, and the link's M/D/1 delay enters the mean:
     * a, b: 1/(1 - 0.4) per hop; the link: the latency, the transmission 1/c and the
     * Pollaczek-Khinchine wait rho / (2 c (1 - rho)) */
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"4/s\"/></workload>\n"
                "<pool id=\"a\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<pool id=\"b\" servers=\"10\" service-rate=\"1/s\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<link id=\"wire\" from=\"a\" to=\"b\" capacity=\"10/s\" latency=\"100ms\"/>\n"
                "</architecture>\n");
    assert_int_equal(count_rule(&f.d, "AC101"), 0);
    /* per-server M/M/1 at 0.4: 1/0.6 each; the link: 0.1 + 1/10 + 0.4 / (2 10 0.6) */
    assert_double_close(f.a->e2e.mean_response_time,
                        2.0 / 0.6 + 0.1 + 0.1 + 0.4 / (2.0 * 10.0 * 0.6), 0, 1e-6);
    fx_free(&f);
}

/*
 * The bistable pool of models.md §3: power-of-two (with replacement), 100 servers, lambda = 0.7
 * per server, mu = 1, K = 40, timeout 8 s, 2 retries. Two stable equilibria: E[L] ~ 1.14
 * (P_to ~ 0.003) and E[L] ~ 39.6 with lambda_eff = 2.1 (effective load 2.1). AC103 with both
 * in the detail. Without retries the equilibrium is unique: no AC103.
 */
static const char BISTABLE_FMT[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"api\" rate=\"70/s\"/></workload>\n"
    "<pool id=\"api\" servers=\"100\" service-time=\"1s\" dispatch=\"power-of-d\" d=\"2\"\n"
    "      sampling=\"with-replacement\" buffer=\"40\" timeout=\"8s\" retries=\"%d\"/>\n"
    "</architecture>\n";

/* The number after `key` in `s`. */
static double number_after(const char *s, const char *key)
{
    const char *p = strstr(s, key);
    assert_non_null(p);
    return strtod(p + strlen(key), NULL);
}

static void test_bistable(void **state)
{
    fx f;
    char xml[1024];
    const ac_diag *d;
    const ac_solver_pool_result *r;
    ac_analysis_options opt;
    (void)state;
    opt = analytic_opt();
    opt.headroom = 0;
    opt.solver.burst_search = 0; /* the burst search is the solver's (test_solver.c); keep fast */
    snprintf(xml, sizeof xml, BISTABLE_FMT, 2);
    assert_int_equal(analyse_opt(&f, xml, &opt), AC_OK);
    r = node(&f, "api")->pool;
    assert_non_null(r);
    assert_int_equal(r->bistable, 1);
    assert_double_close(r->equilibria[r->good].mean_field.mean_jobs, 1.14, 0, 0.02);
    assert_double_close(r->equilibria[r->bad].mean_field.mean_jobs, 39.6, 0, 0.01);
    d = find_diag(&f.d, "AC103", "api");
    assert_diag(d, "AC103", 3, 1, "api");
    assert_int_equal(d->severity, AC_SEV_ERROR);
    assert_non_null(d->detail);
    assert_double_close(number_after(d->detail, "good equilibrium: "), 1.14, 0, 0.02);
    assert_double_close(number_after(d->detail, "bad equilibrium: "), 39.6, 0, 0.01);
    /* the bad one: every request times out, sent three times: effective load 2.1 */
    assert_double_close(number_after(strstr(d->detail, "bad equilibrium"), "effective load "), 2.1,
                        0, 0.01);
    assert_double_close(number_after(strstr(d->detail, "good equilibrium"), "effective load "),
                        0.7, 0, 0.01);
    /* the operating point is the good one */
    assert_double_close(node(&f, "api")->mean_jobs, 1.14, 0, 0.02);
    {
        const ac_check *ck = check_at(f.a, 3, 0);
        assert_non_null(ck);
        assert_int_equal(ck->status, AC_CHECK_FAIL);
        assert_string_equal(ck->rule, "AC103");
    }
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);

    snprintf(xml, sizeof xml, BISTABLE_FMT, 0);
    assert_int_equal(analyse_opt(&f, xml, &opt), AC_OK);
    r = node(&f, "api")->pool;
    assert_int_equal(r->bistable, 0);
    assert_int_equal(count_rule(&f.d, "AC103"), 0);
    assert_int_equal(count_rule(&f.d, "AC101"), 0);
    assert_int_equal(check_at(f.a, 3, 0)->status, AC_CHECK_PASS);
    fx_free(&f);
}

/* ---- 6. Routing cycle ------------------------------------------------------------------------- */

static void test_routing_cycle(void **state)
{
    fx f;
    const ac_diag *d;
    (void)state;
    assert_int_equal(analyse_opt(&f,
                                 "<architecture format=\"1\">\n"
                                 "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
                                 "<pool id=\"a\" servers=\"1\" service-rate=\"5/s\"/>\n"
                                 "<pool id=\"b\" servers=\"1\" service-rate=\"5/s\"/>\n"
                                 "<route from=\"a\" to=\"b\" p=\"1\"/>\n"
                                 "<route from=\"b\" to=\"a\" p=\"1\"/>\n"
                                 "</architecture>\n",
                                 NULL),
                     AC_EINPUT);
    assert_null(f.a);
    assert_int_equal(count_rule(&f.d, "AC032"), 1);
    d = find_diag(&f.d, "AC032", NULL);
    assert_int_equal(d->severity, AC_SEV_ERROR);
    assert_int_equal(d->line, 5);
    assert_int_equal(d->column, 1);
    assert_string_equal(d->node, "a");
    assert_non_null(d->detail);
    assert_non_null(strstr(d->detail, "line 5: route from 'a' to 'b'"));
    assert_non_null(strstr(d->detail, "line 6: route from 'b' to 'a'"));
    assert_int_equal(ac_report_verdict(&f.d, AC_SEV_ERROR), AC_VERDICT_INVALID);
    fx_free(&f);

    /* a cycle with a fan-out that returns more than it takes: a -> b fanout 2, b -> a p 0.5 */
    assert_int_equal(analyse_opt(&f,
                                 "<architecture format=\"1\">\n"
                                 "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
                                 "<pool id=\"a\" servers=\"1\" service-rate=\"5/s\"/>\n"
                                 "<pool id=\"b\" servers=\"1\" service-rate=\"5/s\"/>\n"
                                 "<route from=\"a\" to=\"b\" fanout=\"3\"/>\n"
                                 "<route from=\"b\" to=\"a\" p=\"0.5\"/>\n"
                                 "</architecture>\n",
                                 NULL),
                     AC_EINPUT);
    assert_int_equal(count_rule(&f.d, "AC032"), 1);
    fx_free(&f);
}

/* ---- 7. Fan-out and fan-in end to end ---------------------------------------------------------- */

/*
 * source 1/s -> a (1 server, mu 10) -> b with fanout 3 (1000 servers, mu 1, random dispatch:
 * each of the 3 jobs meets an M/M/1 at 3/1000 per server, sojourn Exp(r), r = 0.997)
 * -> c with fanin 3 (1 server, mu 12).
 *   E[max of 3 iid Exp(r)] = (1 + 1/2 + 1/3) / r = 1.838849
 *   end to end: 1/9 + 1.838849 + 1/11 = 2.040870; the law is the sum of independent exponentials
 *   of rates 9, 11, 3r, 2r, r (Renyi: the max of 3 Exp(r) is Exp(3r) + Exp(2r) + Exp(r)).
 */
static const char FANOUT[] =
    "<architecture format=\"1\">\n"
    "<workload><source id=\"s\" to=\"a\" rate=\"1/s\"/></workload>\n"
    "<pool id=\"a\" servers=\"1\" service-rate=\"10/s\"/>\n"
    "<pool id=\"b\" servers=\"1000\" service-rate=\"1/s\" dispatch=\"random\"/>\n"
    "<pool id=\"c\" servers=\"1\" service-rate=\"12/s\"/>\n"
    "<route from=\"a\" to=\"b\" fanout=\"3\"/>\n"
    "<route from=\"b\" to=\"c\" fanin=\"3\"/>\n"
    "</architecture>\n";

static void test_fanout_fanin(void **state)
{
    fx f;
    const double r = 1.0 - 3.0 / 1000.0;
    const double rates[5] = {9.0, 11.0, 3 * r, 2 * r, r};
    const double mean = 1.0 / 9 + (1.0 + 0.5 + 1.0 / 3) / r + 1.0 / 11;
    hypo_ctx h = {rates, 5};
    ac_sim_options so;
    ac_sim_result *sr = NULL;
    ac_error err = {0};
    double sm, ci;
    (void)state;
    analyse(&f, FANOUT);
    assert_double_close(node(&f, "b")->arrival_rate, 3.0, 0, 1e-12);
    assert_double_close(node(&f, "c")->arrival_rate, 1.0, 0, 1e-12);
    /* the 3 jobs arrive together: a server gets Binomial(3, 1/1000) of them (M^X/M/1), and
       T = (E X^2 + E X) / (2 E X) / (mu - lambda_s) = 1.001 / r */
    assert_double_close(node(&f, "b")->mean_response_time, 1.001 / r, 0, 1e-9);
    assert_int_equal(f.a->e2e.percentiles, 1);
    /* closed form, lattice 1e-3 */
    assert_double_close(mean, 2.040870, 0, 1e-6);
    assert_double_close(f.a->e2e.mean_response_time, mean, 0, 1e-3);
    assert_double_close(f.a->e2e.p50, quantile_of(hypo_fn, &h, 0.50), 0, 1e-3);
    assert_double_close(f.a->e2e.p95, quantile_of(hypo_fn, &h, 0.95), 0, 1e-3);
    assert_double_close(f.a->e2e.p99, quantile_of(hypo_fn, &h, 0.99), 0, 1e-3);
    assert_double_close(f.a->e2e.throughput, 1.0, 0, 1e-9);

    /* the simulator, seed 7, 4 replications of 4000 s (warm-up 400 s) */
    ac_sim_options_init(&so);
    so.seed = 7;
    so.replications = 4;
    so.horizon = 4000.0;
    so.warmup = 400.0;
    assert_int_equal(ac_sim_run(f.m, &so, &sr, &err), AC_OK);
    assert_int_equal(sr->nentries, 1);
    sm = sr->entries[0].mean_response_time.mean;
    ci = sr->entries[0].mean_response_time.ci95;
    if (!(fabs(f.a->e2e.mean_response_time - sm) <= ci + 0.02 * sm))
        print_error("analysis %.6g, simulation %.6g +- %.3g\n", f.a->e2e.mean_response_time, sm,
                    ci);
    assert_true(fabs(f.a->e2e.mean_response_time - sm) <= ci + 0.02 * sm);
    assert_true(ci < 0.05 * sm); /* the interval is informative */
    ac_sim_result_free(sr);
    fx_free(&f);
}

/* ---- 8. Serverless stages in a network ------------------------------------------------------ */

/* A pool feeding a sync function: the function is Erlang-B (exact), the end-to-end mean is
 * the sum of the two means, the loss the function's throttling, and a loss requirement below
 * it fails (AC203). */
static void test_function_in_network(void **state)
{
    fx f;
    size_t fn;
    double B = ac_solver_erlang_b(10, 8.0);
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"web\" rate=\"80/s\"/></workload>\n"
                "<pool id=\"web\" servers=\"1\" service-rate=\"100/s\"/>\n"
                "<function id=\"fn\" duration=\"100ms\" concurrency=\"10\" keep-alive=\"1000h\" "
                "timeout=\"900s\"/>\n"
                "<route from=\"web\" to=\"fn\"/>\n"
                "<requirements><latency max=\"10s\"/><loss max=\"1%\"/></requirements>\n"
                "</architecture>\n");
    fn = node_index(&f, "fn");
    assert_int_equal(f.a->nodes[fn].analysed, 1);
    assert_non_null(f.a->nodes[fn].function);
    assert_double_close(f.a->nodes[fn].loss_probability, B, 0, 1e-9);
    assert_double_close(f.a->nodes[fn].throughput, 80.0 * (1.0 - B), 0, 1e-9);
    assert_double_close(f.a->e2e.loss_probability, B, 0, 1e-9);
    /* the successful requests' mean (the lattice's, within its stated error) */
    assert_true(f.a->e2e.mean_rel_error < 0.01);
    assert_double_close(f.a->e2e.mean_response_time, 1.0 / 20.0 + 0.1, 0,
                        fmax(1e-6, f.a->e2e.mean_rel_error));
    assert_diag(find_diag(&f.d, "AC203", NULL), "AC203", 6, 35, NULL);
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* A queue of another shape than "one route to a function" is not analysed: AC900, and the
 * verdict is inconclusive, never pass. */
static void test_queue_shape_not_analysed(void **state)
{
    fx f;
    const ac_diag *d;
    size_t q;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"q\" rate=\"5/s\"/></workload>\n"
                "<queue id=\"q\"/>\n"
                "<pool id=\"web\" servers=\"2\" service-rate=\"10/s\"/>\n"
                "<route from=\"q\" to=\"web\"/>\n"
                "<requirements><latency max=\"10s\"/><utilization max=\"0.99\"/></requirements>\n"
                "</architecture>\n");
    q = node_index(&f, "q");
    assert_int_equal(f.a->nodes[q].analysed, 0);
    assert_int_equal(node(&f, "web")->analysed, 1);
    assert_double_close(f.a->nodes[q].arrival_rate, 5.0, 0, 1e-12);
    d = find_diag(&f.d, "AC900", "q");
    assert_diag(d, "AC900", 3, 1, "q");
    assert_non_null(strstr(d->message, "consumed by one function"));
    assert_int_equal(check_at(f.a, 3, q)->status, AC_CHECK_INCONCLUSIVE);
    assert_int_equal(f.a->e2e.available, 0);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->status, AC_CHECK_INCONCLUSIVE);
    assert_int_equal(verdict(&f), AC_VERDICT_INCONCLUSIVE);
    fx_free(&f);
}

/* An async function beyond its concurrency is overloaded (AC101); a queue whose consumer
 * cannot keep up even with full batches too. */
static void test_serverless_overload(void **state)
{
    fx f;
    (void)state;
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"fn\" rate=\"50/s\"/></workload>\n"
                "<function id=\"fn\" duration=\"100ms\" concurrency=\"4\" invocation=\"async\"/>\n"
                "</architecture>\n");
    assert_int_equal(f.a->nodes[0].overload, 1);
    assert_non_null(strstr(find_diag(&f.d, "AC101", "fn")->message, "concurrency of 4"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"q\" rate=\"50/s\"/></workload>\n"
                "<queue id=\"q\" batch-size=\"1\" max-consumers=\"2\"/>\n"
                "<function id=\"fn\" duration=\"100ms\"/>\n"
                "<route from=\"q\" to=\"fn\"/>\n"
                "</architecture>\n");
    assert_int_equal(f.a->nodes[0].overload, 1);
    assert_non_null(strstr(find_diag(&f.d, "AC101", "q")->message, "against 2 slots"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
    /* the largest sizes the format allows: no crash, no hang, no out-of-memory */
    analyse_h(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"g\" rate=\"1e9/s\"/></workload>\n"
                "<gateway id=\"g\" rate-limit=\"1e8/s\" burst=\"1000000000\"/>\n"
                "<function id=\"f\" concurrency=\"1000000\" duration=\"1h\" timeout=\"2h\" "
                "cold-start=\"1h\" keep-alive=\"1000h\" scale-rate=\"0.001/s\" retries=\"100\" "
                "fail-prob=\"99%\" invocation=\"async\"/>\n"
                "<queue id=\"q\" capacity=\"1000000000000\" batch-size=\"1000\" "
                "max-consumers=\"1000000\" visibility-timeout=\"1s\" max-receives=\"1000\"/>\n"
                "<function id=\"c\" concurrency=\"1000000\" duration=\"1ms\" fail-prob=\"50%\"/>\n"
                "<route from=\"g\" to=\"f\"/><route from=\"f\" to=\"q\"/>"
                "<route from=\"q\" to=\"c\" fanout=\"1000\"/>\n"
                "<requirements><latency max=\"1s\"/><loss max=\"1%\"/><headroom min=\"2\"/>"
                "</requirements>\n"
                "</architecture>\n");
    assert_int_equal(node(&f, "g")->analysed, 1);
    assert_double_close(node(&f, "g")->loss_probability, 0.9, 0.001, 0);
    assert_int_equal(node(&f, "f")->overload, 1);
    assert_non_null(find_diag(&f.d, "AC101", "f"));
    /* a million consumer slots: the M/M/c wait in closed form */
    assert_int_equal(node(&f, "q")->analysed, 1);
    assert_null(maybe_diag(&f.d, "AC900", "q"));
    assert_int_equal(verdict(&f), AC_VERDICT_FAIL);
    fx_free(&f);
}

/* Analysis against simulation on the thumbnail-service sample (gateway, sync function, queue
 * with redeliveries, polled consumer): the end-to-end mean and p99 and the stages' busy
 * instances agree within the stated error plus 1.7 half-widths of the simulation. */
static void test_serverless_against_simulation(void **state)
{
    fx f;
    ac_analysis_options o = analytic_opt();
    char *xml = ac_test_read_file(AC_SOURCE_DIR "/samples/thumbnail-service.xml");
    const ac_sim_result *sr;
    struct {
        double an, rel, sim, ci;
        const char *what;
    } cmp[4];
    (void)state;
    assert_non_null(xml);
    o.validate = AC_VALIDATE_ALWAYS;
    o.headroom = 0;
    o.sim.seed = 11;
    o.sim.replications = 6;
    o.sim.horizon = 2000.0;
    o.sim.warmup = 400.0;
    analyse_ok(&f, xml, &o);
    free(xml);
    sr = f.a->sim;
    assert_non_null(sr);
    assert_int_equal(f.a->e2e.available, 1);
    cmp[0].what = "end-to-end mean";
    cmp[0].an = f.a->e2e.mean_response_time;
    cmp[0].rel = f.a->e2e.mean_rel_error;
    cmp[0].sim = sr->entries[0].mean_response_time.mean;
    cmp[0].ci = sr->entries[0].mean_response_time.ci95;
    cmp[1].what = "end-to-end p99";
    cmp[1].an = f.a->e2e.p99;
    cmp[1].rel = f.a->e2e.expected_rel_error;
    cmp[1].sim = sr->entries[0].p99_response_time.mean;
    cmp[1].ci = sr->entries[0].p99_response_time.ci95;
    cmp[2].what = "upload busy";
    cmp[2].an = node(&f, "upload")->mean_jobs;
    cmp[2].rel = node(&f, "upload")->expected_rel_error;
    cmp[2].sim = sr->nodes[node_index(&f, "upload")].mean_jobs.mean;
    cmp[2].ci = sr->nodes[node_index(&f, "upload")].mean_jobs.ci95;
    cmp[3].what = "resize busy";
    cmp[3].an = node(&f, "resize")->mean_jobs;
    cmp[3].rel = node(&f, "resize")->expected_rel_error;
    cmp[3].sim = sr->nodes[node_index(&f, "resize")].mean_jobs.mean;
    cmp[3].ci = sr->nodes[node_index(&f, "resize")].mean_jobs.ci95;
    for (size_t k = 0; k < 4; k++) {
        double tol = cmp[k].rel * cmp[k].an + 1.7 * cmp[k].ci + 0.005 * cmp[k].an;
        print_message("%s: analysis %.6g (+-%.2g%%), simulation %.6g +- %.2g\n", cmp[k].what,
                      cmp[k].an, 100.0 * cmp[k].rel, cmp[k].sim, cmp[k].ci);
        assert_true(isfinite(cmp[k].sim));
        assert_true(fabs(cmp[k].an - cmp[k].sim) <= tol);
    }
    /* nothing is lost in either: dead letters at 1e-9 */
    assert_true(sr->entries[0].failure_probability.mean < 1e-3);
    assert_int_equal(count_rule(&f.d, "AC201"), 0);
    assert_int_equal(count_rule(&f.d, "AC203"), 0);
    fx_free(&f);
}

/* Recovery through a serverless stage: an async function of capacity 100/s (C = 10, d =
 * 100 ms) at 50/s takes 150/s for 10 s: its backlog grows by 50/s to 500 attempts and
 * drains at 50/s. The mean latency requirement (1 s) is met again once the backlog is small
 * (Little: at most 40 to 90 attempts, depending on the rate it is divided by), so the
 * recovery lies between (500 - 90) / 50 = 8.2 s and 500 / 50 = 10 s; a limit of 5 s fails. */
#define RECOVERY_XML(limit)                                                                        \
    "<architecture format=\"1\">\n"                                                            \
    "<workload><source id=\"s\" to=\"f\" rate=\"50/s\"/>\n"                                  \
    "<profile source=\"s\"><point at=\"0s\" rate=\"50/s\"/><point at=\"100s\" rate=\"50/s\"/>" \
    "<point at=\"100.001s\" rate=\"150/s\"/><point at=\"110s\" rate=\"150/s\"/>"             \
    "<point at=\"110.001s\" rate=\"50/s\"/><point at=\"300s\" rate=\"50/s\"/></profile>\n"   \
    "</workload>\n"                                                                             \
    "<function id=\"f\" invocation=\"async\" concurrency=\"10\" duration=\"100ms\" "         \
    "timeout=\"900s\" keep-alive=\"1000h\"/>\n"                                               \
    "<requirements><latency target=\"f\" max=\"1s\"/>\n<recovery max=\"" limit               \
    "\"/></requirements>\n"                                                                     \
    "</architecture>\n"

static void test_serverless_recovery(void **state)
{
    fx f;
    const ac_check *ck;
    (void)state;
    analyse(&f, RECOVERY_XML("30s"));
    ck = check_at(f.a, 7, AC_NONE);
    assert_non_null(ck);
    assert_int_equal(ck->status, AC_CHECK_PASS);
    print_message("recovery %.4g s\n", ck->value);
    assert_true(ck->value > 8.2 && ck->value < 10.0);
    fx_free(&f);
    analyse(&f, RECOVERY_XML("5s"));
    assert_int_equal(check_at(f.a, 7, AC_NONE)->status, AC_CHECK_FAIL);
    assert_int_equal(count_rule(&f.d, "AC206"), 1);
    fx_free(&f);
}

/* The end-to-end loss carries the nodes' stated errors, not the lattice's step: behind two
 * gateways (no time spent, p50 = 0) a loss far above its limit is decided without a
 * simulation. */
static void test_e2e_loss_error_without_lattice(void **state)
{
    fx f;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"a\" rate=\"100/s\"/></workload>\n"
                "<gateway id=\"a\" rate-limit=\"50/s\" burst=\"10\"/>\n"
                "<gateway id=\"b\" rate-limit=\"1000/s\" burst=\"10\"/>\n"
                "<route from=\"a\" to=\"b\"/>\n"
                "<requirements><loss max=\"1%\"/></requirements>\n"
                "</architecture>\n");
    assert_double_close(f.a->e2e.loss_probability, node(&f, "a")->loss_probability, 1e-12, 0);
    assert_true(f.a->e2e.loss_rel_error < 1e-6);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->status, AC_CHECK_FAIL);
    assert_int_equal(check_at(f.a, 6, AC_NONE)->settled_by_simulation, 0);
    fx_free(&f);
}

/* By default the transient is integrated only for a requirement that reads it (recovery
 * from a burst, scaling): a profile alone costs nothing, and a recovery requirement without
 * a burst that returns is inconclusive at once, with the reason. */
static void test_transient_only_when_needed(void **state)
{
    fx f;
    (void)state;
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"p\" rate=\"5/s\"/>\n"
                "<profile source=\"s\"><point at=\"0s\" rate=\"5/s\"/>"
                "<point at=\"60s\" rate=\"8/s\"/></profile></workload>\n"
                "<pool id=\"p\" servers=\"1\" service-rate=\"10/s\"/>\n"
                "<requirements><utilization max=\"0.9\"/></requirements>\n"
                "</architecture>\n");
    assert_null(f.a->transient);
    assert_non_null(strstr(f.a->transient_note, "no profile has a burst"));
    fx_free(&f);
    analyse(&f, "<architecture format=\"1\">\n"
                "<workload><source id=\"s\" to=\"p\" rate=\"5/s\"/>\n"
                "<profile source=\"s\"><point at=\"0s\" rate=\"5/s\"/>"
                "<point at=\"60s\" rate=\"8/s\"/></profile></workload>\n"
                "<pool id=\"p\" servers=\"1\" service-rate=\"10/s\"/>\n"
                "<requirements><recovery max=\"60s\"/></requirements>\n"
                "</architecture>\n");
    assert_null(f.a->transient);
    assert_int_equal(check_at(f.a, 5, AC_NONE)->status, AC_CHECK_INCONCLUSIVE);
    assert_non_null(strstr(find_diag(&f.d, "AC900", NULL)->message, "no profile has a burst"));
    fx_free(&f);
}

/* ---- 9. Determinism --------------------------------------------------------------------------- */

/* The KPIs of every node and end to end, as a flat array of doubles. */
static size_t kpis(const ac_analysis *a, double *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        const double v[13] = {(double)na->analysed,    (double)na->overload,
                              na->arrival_rate,        na->throughput,
                              na->utilization,         na->loss_probability,
                              na->mean_jobs,           na->mean_response_time,
                              na->p50,                 na->p95,
                              na->p99,                 (double)na->approximation,
                              na->expected_rel_error};
        assert_true(n + 13 <= cap);
        memcpy(out + n, v, sizeof v);
        n += 13;
    }
    {
        const double v[8] = {a->e2e.throughput, a->e2e.loss_probability,
                             a->e2e.mean_response_time, a->e2e.p50, a->e2e.p95, a->e2e.p99,
                             a->e2e.expected_rel_error, a->headroom};
        assert_true(n + 8 <= cap);
        memcpy(out + n, v, sizeof v);
        n += 8;
    }
    return n;
}

static void test_determinism(void **state)
{
    static const char xml[] =
        "<architecture format=\"1\">\n"
        "<workload><source id=\"s\" to=\"lb\" rate=\"8/s\"/></workload>\n"
        "<pool id=\"lb\" servers=\"10\" service-rate=\"1/s\" dispatch=\"power-of-d\"/>\n"
        "<pool id=\"w\" servers=\"50\" service-rate=\"1/s\" dispatch=\"jsq\"/>\n"
        "<pool id=\"db\" servers=\"3\" service-rate=\"4/s\" dispatch=\"shared-queue\"/>\n"
        "<route from=\"lb\" to=\"w\" fanout=\"2\"/>\n"
        "<route from=\"w\" to=\"db\" fanin=\"2\" p=\"0.5\"/>\n"
        "<requirements><latency percentile=\"95\" max=\"30s\"/></requirements>\n"
        "</architecture>\n";
    fx f1, f2;
    double k1[64], k2[64];
    size_t n1, n2;
    (void)state;
    analyse(&f1, xml);
    analyse(&f2, xml);
    n1 = kpis(f1.a, k1, 64);
    n2 = kpis(f2.a, k2, 64);
    assert_int_equal(n1, n2);
    assert_true(memcmp(k1, k2, n1 * sizeof *k1) == 0);
    assert_int_equal(f1.a->e2e.grid_n, f2.a->e2e.grid_n);
    assert_true(f1.a->e2e.grid_n > 0);
    assert_true(memcmp(f1.a->e2e.grid_ccdf, f2.a->e2e.grid_ccdf,
                       f1.a->e2e.grid_n * sizeof *f1.a->e2e.grid_ccdf) == 0);
    assert_string_equal(f1.a->headroom_binding, f2.a->headroom_binding);
    assert_int_equal(f1.a->nchecks, f2.a->nchecks);
    for (size_t k = 0; k < f1.a->nchecks; k++) {
        assert_string_equal(f1.a->checks[k].name, f2.a->checks[k].name);
        assert_int_equal(f1.a->checks[k].status, f2.a->checks[k].status);
        assert_true(memcmp(&f1.a->checks[k].value, &f2.a->checks[k].value, sizeof(double)) == 0);
    }
    assert_int_equal(f1.d.count, f2.d.count);
    for (size_t i = 0; i < f1.d.count; i++)
        assert_string_equal(f1.d.items[i].message, f2.d.items[i].message);
    /* sanity: the numbers are real ones */
    assert_double_close(f1.a->nodes[1].arrival_rate, 16.0, 0, 1e-12);
    assert_double_close(f1.a->nodes[2].arrival_rate, 4.0, 0, 1e-12);
    fx_free(&f1);
    fx_free(&f2);
}


/* Renewal arrivals against the simulator: bursty (scv 4, hyperexponential) and smooth
 * (scv 0.25, gamma) arrivals into a tandem. The first pool is an exact GI/M/1; the second
 * gets QNA's two-moment correction. Each mean response time must lie within its stated
 * error of the simulation's 95% interval. */
static void test_qna_against_simulation(void **state)
{
    static const char *const scvs[] = {"4", "0.25"};
    (void)state;
    for (size_t k = 0; k < sizeof scvs / sizeof scvs[0]; k++) {
        char xml[1024];
        fx f;
        ac_sim_options so;
        ac_sim_result *sr = NULL;
        ac_error err = {0};
        snprintf(xml, sizeof xml,
                 "<architecture format=\"1\">\n"
                 "<workload><source id=\"s\" to=\"a\" rate=\"0.6/s\" scv=\"%s\"/></workload>\n"
                 "<pool id=\"a\" servers=\"1\" service-rate=\"1/s\"/>\n"
                 "<pool id=\"b\" servers=\"1\" service-rate=\"1.25/s\"/>\n"
                 "<route from=\"a\" to=\"b\"/>\n"
                 "</architecture>\n",
                 scvs[k]);
        analyse(&f, xml);
        ac_sim_options_init(&so);
        so.seed = 11;
        so.replications = 20; /* H2 arrivals of scv 4: 6 replications gave a noisy interval */
        so.horizon = 20000.0;
        so.warmup = 1000.0;
        assert_int_equal(ac_sim_run(f.m, &so, &sr, &err), AC_OK);
        for (size_t i = 0; i < 2; i++) {
            const ac_node_analysis *na = &f.a->nodes[i];
            double sim = sr->nodes[i].mean_response_time.mean;
            /* the 99.9% interval (t_{0.9995,19} / t_{0.975,19} = 1.86): four checks, and the
               GI/M/1 means of one replication are skewed */
            double ci = 1.86 * sr->nodes[i].mean_response_time.ci95;
            double tol = na->expected_rel_error * na->mean_response_time + ci;
            if (i == 0) {
                /* fed straight by the renewal source: exact GI/M/1 */
                assert_true(na->qna_exact);
                assert_int_equal(na->approximation, AC_SOLVER_APPROX_EXACT);
            } else {
                /* the departures of a: QNA's two-moment correction */
                assert_true(na->qna);
                assert_true(na->expected_rel_error > 0.0);
            }
            if (fabs(na->mean_response_time - sim) > tol)
                fail_msg("scv %s, node %zu: QNA %.5g s, simulation %.5g +- %.2g s, stated error "
                         "%.3g",
                         scvs[k], i, na->mean_response_time, sim, ci, na->expected_rel_error);
        }
        ac_sim_result_free(sr);
        fx_free(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tandem_mm1),
        cmocka_unit_test(test_feedback_network),
        cmocka_unit_test(test_random_pool_multi_server),
        cmocka_unit_test(test_branch_and_parallel_e2e),
        cmocka_unit_test(test_mva_textbook),
        cmocka_unit_test(test_mva_link_latency),
        cmocka_unit_test(test_mva_bottleneck_asymptote),
        cmocka_unit_test(test_mva_multi_server),
        cmocka_unit_test(test_headroom),
        cmocka_unit_test(test_headroom_link_capacity),
        cmocka_unit_test(test_headroom_lossy_upstream),
        cmocka_unit_test(test_req_latency),
        cmocka_unit_test(test_req_utilization_every_node),
        cmocka_unit_test(test_suppressions),
        cmocka_unit_test(test_req_loss_throughput),
        cmocka_unit_test(test_req_headroom),
        cmocka_unit_test(test_straddle_inconclusive),
        cmocka_unit_test(test_straddle_settled_by_simulation),
        cmocka_unit_test(test_deferred_requirements),
        cmocka_unit_test(test_overload),
        cmocka_unit_test(test_link_overload),
        cmocka_unit_test(test_bistable),
        cmocka_unit_test(test_routing_cycle),
        cmocka_unit_test(test_fanout_fanin),
        cmocka_unit_test(test_function_in_network),
        cmocka_unit_test(test_queue_shape_not_analysed),
        cmocka_unit_test(test_serverless_overload),
        cmocka_unit_test(test_serverless_against_simulation),
        cmocka_unit_test(test_serverless_recovery),
        cmocka_unit_test(test_transient_only_when_needed),
        cmocka_unit_test(test_e2e_loss_error_without_lattice),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_qna_against_simulation),
    };
    /* the library reports GSL failures as status codes (a failed Cholesky factorisation is its
     * test of positive definiteness): GSL's default handler, which aborts, must be off, as the
     * CLI (cli/main.c) does */
    gsl_set_error_handler_off();
    return cmocka_run_group_tests_name("analysis", tests, NULL, NULL);
}
