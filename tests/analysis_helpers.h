/*
 * tests/analysis_helpers.h: an analysis of a model parsed from XML, its nodes, checks and
 * findings, and the CCDFs of hypoexponential sums, shared by test_analysis.c,
 * test_analysis_requirements.c, test_analysis_stability.c and test_analysis_serverless.c
 * (header-only, every function static inline). Include after helpers.h.
 */
#ifndef AC_TESTS_ANALYSIS_HELPERS_H
#define AC_TESTS_ANALYSIS_HELPERS_H

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "fixture.h"

/* ---- helpers ---- */

/* Parse `xml` (must be valid) and analyse it with `opt` (NULL: defaults); the analysis'
 * status is returned (fixture.h's analyse_with asserts it). */
static inline int analyse_opt(fx *f, const char *xml, const ac_analysis_options *opt)
{
    fx_parse(f, xml);
    f->rc = ac_analysis_run(f->m, opt, &f->a, &f->d, &f->err);
    return f->rc;
}

/* The options of most tests: the defaults, without the validating simulation (the analytic
 * results are under test; validation has its own tests below). */
static inline ac_analysis_options analytic_opt(void)
{
    ac_analysis_options o;
    ac_analysis_options_init(&o);
    o.validate = AC_VALIDATE_NEVER;
    return o;
}

static inline void analyse_ok(fx *f, const char *xml, const ac_analysis_options *o)
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
static inline void analyse(fx *f, const char *xml)
{
    ac_analysis_options o = analytic_opt();
    o.headroom = 0;
    analyse_ok(f, xml, &o);
}

/* The same with the headroom search. */
static inline void analyse_h(fx *f, const char *xml)
{
    ac_analysis_options o = analytic_opt();
    analyse_ok(f, xml, &o);
}

static inline size_t node_index(const fx *f, const char *id)
{
    size_t i = ac_model_find_node(f->m, id);
    assert_true(i != AC_NONE);
    return i;
}

static inline const ac_node_analysis *node(const fx *f, const char *id)
{
    return &f->a->nodes[node_index(f, id)];
}

/* The finding with this rule about this node (NULL: any node), or NULL. */
static inline const ac_diag *maybe_diag(const ac_diag_list *d, const char *rule,
                                        const char *node_id)
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
static inline const ac_diag *find_diag(const ac_diag_list *d, const char *rule, const char *node_id)
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
static inline const ac_diag *find_diag_at(const ac_diag_list *d, const char *rule, unsigned line)
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
static inline const ac_check *check_at(const ac_analysis *a, unsigned line, size_t node_i)
{
    static const ac_check none;
    for (size_t k = 0; k < a->nchecks; k++)
        if (a->checks[k].loc.line == line && (node_i == AC_NONE || a->checks[k].node == node_i))
            return &a->checks[k];
    print_error("no check at line %u\n", line);
    fail();
    return &none;
}

static inline size_t count_checks_at(const ac_analysis *a, unsigned line)
{
    size_t n = 0;
    for (size_t k = 0; k < a->nchecks; k++)
        n += a->checks[k].loc.line == line;
    return n;
}

static inline ac_verdict verdict(const fx *f)
{
    return ac_report_verdict(&f->d, AC_SEV_ERROR);
}

/* A check with these fields (value to `rel` relative, limit exactly). */
static inline void assert_check(const ac_check *ck, ac_check_status st, double value, double limit,
                                double rel, const char *unit, int upper, size_t node_i,
                                unsigned line, unsigned column)
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

static inline void assert_diag(const ac_diag *d, const char *rule, unsigned line, unsigned column,
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
static inline double hypo_ccdf(const double *r, size_t n, double t)
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

static inline double quantile_of(ccdf_fn fn, const void *ctx, double p)
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

static inline double hypo_fn(const void *ctx, double t)
{
    const hypo_ctx *h = ctx;
    return hypo_ccdf(h->r, h->n, t);
}

#endif
