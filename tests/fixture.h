/*
 * The fixture shared by the cmocka tests of the analysis (test_analysis.c, test_network.c,
 * test_serverless_accuracy.c), the simulator and the search (test_sim_faults.c,
 * test_sim_autoscale.c, test_search_resilience.c), the transient (test_transient_links.c,
 * test_transient_metrics.c), sizing and tuning (test_size.c, test_tune.c) and the refined
 * mean field (test_refined.c): a model parsed from a string, its analysis or its transient
 * workspace, and a power-of-d pool (header-only, every function static inline). Include after
 * helpers.h.
 */
#ifndef AC_TESTS_FIXTURE_H
#define AC_TESTS_FIXTURE_H

#include "archcheck/analysis.h"
#include "archcheck/parser.h"
#include "archcheck/transient.h"

typedef struct fx {
    ac_model *m;
    ac_diag_list d;
    ac_analysis *a;
    int rc;
    ac_error err;
    ac_transient_ws *ws; /* fx_eval's workspace on m */
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

/* A transient workspace on f's model (made on the first call), evaluated under `plan` (NULL:
 * none); both must succeed. */
static inline const ac_transient *fx_eval(fx *f, const ac_transient_options *opt,
                                          const ac_transient_plan *plan)
{
    const ac_transient *tr = NULL;
    if (f->ws == NULL) {
        f->rc = ac_transient_new(f->m, opt, &f->ws, &f->err);
        if (f->rc != AC_OK)
            print_error("ac_transient_new: %s\n", f->err.message);
        assert_int_equal(f->rc, AC_OK);
    }
    f->rc = ac_transient_eval(f->ws, plan, 1.0, &tr, &f->err);
    if (f->rc != AC_OK)
        print_error("ac_transient_eval: %s\n", f->err.message);
    assert_int_equal(f->rc, AC_OK);
    return tr;
}

static inline void fx_free(fx *f)
{
    ac_transient_ws_free(f->ws);
    ac_analysis_free(f->a);
    ac_model_free(f->m);
    ac_diag_list_clear(&f->d);
    memset(f, 0, sizeof *f);
}

/* A power-of-d pool (sampling with replacement) of `servers` servers of rate 1 and `buffer`
 * places each. */
static inline ac_pool pod_pool(size_t d, size_t servers, size_t buffer)
{
    ac_pool p;
    memset(&p, 0, sizeof p);
    p.servers = servers;
    p.service_rate = 1.0;
    p.dispatch = AC_DISPATCH_POWER_OF_D;
    p.d = d;
    p.sampling = AC_SAMPLING_WITH_REPLACEMENT;
    p.buffer = buffer;
    return p;
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
