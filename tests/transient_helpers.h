/*
 * tests/transient_helpers.h: an analysis with the transient (fx), a model's transient
 * with an optional mitigation (trx), their findings and samples, shared by
 * test_transient.c, test_transient_autoscale.c and test_transient_serverless.c
 * (header-only, every function static inline). Include after helpers.h.
 */
#ifndef AC_TESTS_TRANSIENT_HELPERS_H
#define AC_TESTS_TRANSIENT_HELPERS_H

#include <time.h>

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/transient.h"

typedef struct fx {
    ac_model *m;
    ac_diag_list d;
    ac_analysis *a;
    ac_error err;
} fx;

static inline void dump(const ac_diag_list *d)
{
    for (size_t i = 0; i < d->count; i++)
        print_message("  %u:%u %s [%s] %s\n", d->items[i].line, d->items[i].column,
                      d->items[i].rule, d->items[i].node != NULL ? d->items[i].node : "-",
                      d->items[i].message);
}

static inline ac_analysis_options base_opt(void)
{
    ac_analysis_options o;
    ac_analysis_options_init(&o);
    o.validate = AC_VALIDATE_NEVER;
    o.headroom = 0;
    /* the trajectories are under test: integrate them even without a requirement that
       reads them (AUTO would skip them then) */
    o.transient = AC_TRANSIENT_ALWAYS;
    return o;
}

static inline void analyse(fx *f, const char *xml, const ac_analysis_options *opt)
{
    int rc;
    memset(f, 0, sizeof *f);
    ac_diag_list_init(&f->d);
    rc = ac_parser_parse_memory(xml, strlen(xml), "t.xml", &f->m, &f->d, &f->err);
    if (rc != AC_OK) {
        dump(&f->d);
        print_error("parse failed: %d %s\n", rc, f->err.message);
    }
    assert_int_equal(rc, AC_OK);
    rc = ac_analysis_run(f->m, opt, &f->a, &f->d, &f->err);
    if (rc != AC_OK)
        print_error("analysis failed: %d %s\n", rc, f->err.message);
    assert_int_equal(rc, AC_OK);
}

static inline void fx_free(fx *f)
{
    ac_analysis_free(f->a);
    ac_model_free(f->m);
    ac_diag_list_clear(&f->d);
}

static inline const ac_diag *maybe_rule(const ac_diag_list *d, const char *rule)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].rule, rule) == 0)
            return &d->items[i];
    return NULL;
}

/* Is there a finding with this rule whose message contains text? */
static inline int has_message(const ac_diag_list *d, const char *rule, const char *text)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].rule, rule) == 0 && strstr(d->items[i].message, text) != NULL)
            return 1;
    dump(d);
    return 0;
}

/* The first finding with this rule; the test fails without one. */
static inline const ac_diag *find_rule(const ac_diag_list *d, const char *rule)
{
    static char empty[1];
    static const ac_diag none = {.message = empty, .detail = empty};
    const ac_diag *x = maybe_rule(d, rule);
    if (x == NULL) {
        dump(d);
        fail_msg("no %s finding", rule);
        return &none;
    }
    if (x->detail == NULL)
        return &none; /* "" */
    return x;
}

/* The first check whose name starts with prefix; the test fails without one. */
static inline const ac_check *find_check(const ac_analysis *a, const char *prefix)
{
    static const ac_check none;
    for (size_t i = 0; i < a->nchecks; i++)
        if (strncmp(a->checks[i].name, prefix, strlen(prefix)) == 0)
            return &a->checks[i];
    fail_msg("no check '%s...'", prefix);
    return &none;
}

/* The analysis' transient; the test fails without one. */
static inline const ac_transient *transient_of(const fx *f)
{
    static const ac_transient none;
    if (f->a->transient == NULL) {
        fail_msg("no transient: %s", f->a->transient_note);
        return &none;
    }
    return f->a->transient;
}

/* A model parsed, optionally changed by one of its mitigations, and its transient. */
typedef struct trx {
    ac_model *m;
    ac_diag_list d;
    ac_transient *tr;
    ac_error err;
    double seconds; /* wall-clock time of ac_transient_run */
} trx;

static inline void trx_run(trx *x, const char *xml, const ac_transient_options *o,
                           const char *mitigation)
{
    struct timespec a, b;
    int rc;
    memset(x, 0, sizeof *x);
    ac_diag_list_init(&x->d);
    rc = ac_parser_parse_memory(xml, strlen(xml), "t.xml", &x->m, &x->d, &x->err);
    if (rc != AC_OK) {
        dump(&x->d);
        print_error("parse failed: %d %s\n", rc, x->err.message);
    }
    assert_int_equal(rc, AC_OK);
    for (size_t k = 0; mitigation != NULL && k < x->m->nmitigations; k++)
        if (strcmp(x->m->mitigations[k].id, mitigation) == 0)
            assert_int_equal(ac_model_apply_mitigation(x->m, k, NULL, 0, &x->err), AC_OK);
    clock_gettime(CLOCK_MONOTONIC, &a);
    rc = ac_transient_run(x->m, o, &x->tr, &x->err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    x->seconds = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    if (rc != AC_OK)
        print_error("transient failed: %d %s\n", rc, x->err.message);
    assert_int_equal(rc, AC_OK);
}

static inline void trx_free(trx *x)
{
    ac_transient_free(x->tr);
    ac_model_free(x->m);
    ac_diag_list_clear(&x->d);
}

/* The transient node of node `id`. */
static inline const ac_transient_node *tnode(const trx *x, const char *id)
{
    size_t i = ac_model_find_node(x->m, id);
    assert_true(i != AC_NONE);
    return &x->tr->nodes[i];
}

/* The index of the sample at time t (the samples are evenly spaced). */
static inline size_t at(const ac_transient *tr, double t)
{
    double k = round(t / tr->horizon * (double)(tr->nsamples - 1));
    assert_true(k >= 0.0 && k <= (double)(tr->nsamples - 1));
    assert_double_close(tr->t[(size_t)k], t, 1e-9, 1e-12);
    return (size_t)k;
}

#endif
