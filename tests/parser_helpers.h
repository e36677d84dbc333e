/*
 * tests/parser_helpers.h: parsing a string and finding its diagnostics, shared by
 * test_parser.c and test_parser_limits.c (header-only, every function static inline).
 * Include after helpers.h.
 */
#ifndef AC_TESTS_PARSER_HELPERS_H
#define AC_TESTS_PARSER_HELPERS_H

#include "archcheck/parser.h"

/* ---- helpers ---- */

static inline int parse(const char *xml, ac_model **m, ac_diag_list *d)
{
    ac_error err = {0};
    ac_diag_list_init(d);
    return ac_parser_parse_memory(xml, strlen(xml), "t.xml", m, d, &err);
}

/* The number of diagnostics with this rule. */
static inline size_t count_rule(const ac_diag_list *d, const char *rule)
{
    size_t n = 0;
    for (size_t i = 0; i < d->count; i++)
        n += strcmp(d->items[i].rule, rule) == 0;
    return n;
}

static inline const ac_diag *find_rule(const ac_diag_list *d, const char *rule)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].rule, rule) == 0)
            return &d->items[i];
    return NULL;
}

static inline void dump(const ac_diag_list *d)
{
    for (size_t i = 0; i < d->count; i++)
        print_message("  %u:%u %s %s\n", d->items[i].line, d->items[i].column, d->items[i].rule,
                      d->items[i].message);
}

/* Expect exactly one error diagnostic, with this rule at this line and column. */
static inline void expect_one(const char *xml, const char *rule, unsigned line, unsigned column)
{
    ac_model *m = NULL;
    ac_diag_list d;
    int rc = parse(xml, &m, &d);
    if (d.count != 1)
        dump(&d);
    assert_int_equal(rc, AC_EINPUT);
    assert_null(m);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].rule, rule);
    assert_int_equal(d.items[0].line, line);
    assert_int_equal(d.items[0].column, column);
    assert_string_equal(d.items[0].file, "t.xml");
    ac_diag_list_clear(&d);
}

#define HEAD                                                                                       \
    "<architecture format=\"1\">\n<workload><source id=\"u\" to=\"web\" "                          \
    "rate=\"10\"/></workload>\n"

static inline void expect_rule(const char *xml, const char *rule, size_t n)
{
    ac_model *m = NULL;
    ac_diag_list d;
    parse(xml, &m, &d);
    if (count_rule(&d, rule) != n)
        dump(&d);
    assert_int_equal(count_rule(&d, rule), n);
    ac_model_free(m);
    ac_diag_list_clear(&d);
}

#define POOL(id) "<pool id=\"" id "\" servers=\"2\" service-time=\"10ms\"/>\n"

#endif
