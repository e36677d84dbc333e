/*
 * The fixture shared by the cmocka tests of the analysis (test_analysis.c, test_network.c,
 * test_serverless_accuracy.c), the simulator and the search (test_sim_faults.c,
 * test_sim_autoscale.c, test_search_resilience.c): a model parsed from a string and its
 * analysis (header-only, every function static inline). Include after helpers.h.
 */
#ifndef AC_TESTS_FIXTURE_H
#define AC_TESTS_FIXTURE_H

#include "archcheck/analysis.h"
#include "archcheck/parser.h"

typedef struct fx {
    ac_model *m;
    ac_diag_list d;
    ac_analysis *a;
    int rc;
    ac_error err;
} fx;

/* Print every diagnostic (for a failing test's log). */
static inline void dump(const ac_diag_list *d)
{
    for (size_t i = 0; i < d->count; i++)
        print_message("  %u:%u %s [%s]%s %s\n", d->items[i].line, d->items[i].column,
                      d->items[i].rule, d->items[i].node != NULL ? d->items[i].node : "-",
                      d->items[i].suppressed ? " (suppressed)" : "", d->items[i].message);
}

/* Parse `xml` (named "t.xml"; it must be valid) into f->m. */
static inline void fx_parse(fx *f, const char *xml)
{
    memset(f, 0, sizeof *f);
    ac_diag_list_init(&f->d);
    f->rc = ac_parser_parse_memory(xml, strlen(xml), "t.xml", &f->m, &f->d, &f->err);
    if (f->rc != AC_OK) {
        dump(&f->d);
        print_error("parse failed: %d %s\n", f->rc, f->err.message);
    }
    assert_int_equal(f->rc, AC_OK);
    assert_non_null(f->m);
}

/* Parse `xml` and analyse it with `opt` (NULL: defaults); both must succeed. */
static inline void analyse_with(fx *f, const char *xml, const ac_analysis_options *opt)
{
    fx_parse(f, xml);
    f->rc = ac_analysis_run(f->m, opt, &f->a, &f->d, &f->err);
    if (f->rc != AC_OK) {
        dump(&f->d);
        print_error("analysis failed: %d %s\n", f->rc, f->err.message);
    }
    assert_int_equal(f->rc, AC_OK);
    assert_non_null(f->a);
}

/* The options without the validating simulation and without the headroom search. */
static inline ac_analysis_options no_sim(void)
{
    ac_analysis_options o;
    ac_analysis_options_init(&o);
    o.validate = AC_VALIDATE_NEVER;
    o.headroom = 0;
    return o;
}

static inline void fx_free(fx *f)
{
    ac_analysis_free(f->a);
    ac_model_free(f->m);
    ac_diag_list_clear(&f->d);
    memset(f, 0, sizeof *f);
}

/* The diagnostics with this rule. */
static inline size_t count_rule(const ac_diag_list *d, const char *rule)
{
    size_t n = 0;
    for (size_t i = 0; i < d->count; i++)
        n += strcmp(d->items[i].rule, rule) == 0;
    return n;
}

#endif
