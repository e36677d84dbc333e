/*
 * The hostile-input suite: the archcheck binary (AC_TEST_BIN) on generated files at and past
 * every limit, every encoding, deep structures, special files as input and as output,
 * signals, full and read-only outputs.
 *
 * Every case asserts: no death by a signal (unless the test sent it), exit status 2 with a
 * located diagnostic (FILE:LINE:COL: error: ... [RULE]) for invalid input, and nothing left
 * behind (no *.tmp.* file in the output directory). Every case is bounded by the binary's own
 * limits; an alarm() watchdog fails the whole program after 20 s per test, no time is
 * asserted.
 */
#define _DEFAULT_SOURCE /* mknod, makedev */
#include "helpers.h"

#include "archcheck/analysis.h"
#include "archcheck/parser.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

/* ---- files (path_join, make_tmpdir, remove_tmpdir, write_file: helpers.h) ---- */

/* The number of entries of dir whose name contains `part` (NULL: every entry). */
static size_t count_entries(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    if (d == NULL)
        fail_msg("cannot open %s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (part == NULL || strstr(e->d_name, part) != NULL))
            n++;
    closedir(d);
    return n;
}

/* Nothing left behind: no temporary output file in dir. */
static void assert_no_tmp(const char *dir)
{
    size_t n = count_entries(dir, ".tmp.");
    if (n != 0)
        fail_msg("%zu temporary file(s) left behind in %s", n, dir);
}

#define path_join(a, b) ac_test_path_join((a), (b))
#define make_tmpdir()   ac_test_mkdtemp("hostile")
#define remove_tmpdir   ac_test_rmdir
#define write_file      ac_test_write_file

static char *write_str(const char *dir, const char *name, const char *text)
{
    return write_file(dir, name, text, strlen(text));
}

/* A growing text buffer for generated inputs. */
typedef struct gen {
    char *s;
    size_t len, cap;
} gen;

static void gen_add(gen *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void gen_add(gen *g, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        size_t room = g->cap - g->len;
        va_start(ap, fmt);
        n = vsnprintf(g->s != NULL ? g->s + g->len : NULL, room, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < room)
            break;
        g->cap = g->cap * 2 + (size_t)n + 4096;
        g->s = realloc(g->s, g->cap);
        assert_non_null(g->s);
    }
    g->len += (size_t)n;
}

/* ---- running the binary ---- */

/* helpers.h: ac_test_run_args (a death by a signal fails the test unless allowed) */
typedef ac_test_run hrun;
typedef ac_test_opts hopts;
#define RUN(...)              run_opts(NULL, 0, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_OPTS(o, ...)      run_opts((o), 0, (const char *const[]){__VA_ARGS__, NULL})
#define run_opts(o, sig, ...) ac_test_run_args((o), (sig), __VA_ARGS__)
#define hrun_free             ac_test_run_free

/* Invalid input: exit 2, and a diagnostic "FILE:LINE:COL: error: ... [RULE]" with this rule,
 * LINE >= 1, COL >= 1 (on stderr; check prints its text report on stdout). */
static void assert_invalid(const hrun *r, const char *file, const char *rule)
{
    char want[600];
    const char *p;
    unsigned line = 0, col = 0;
    if (r->status != 2)
        fail_msg("exit status %d, not 2\nstderr:\n%s", r->status, r->err);
    snprintf(want, sizeof want, "%s:", file);
    p = strstr(r->err, want);
    if (p == NULL)
        p = strstr(r->out, want);
    if (p == NULL)
        fail_msg("no diagnostic located in %s:\n%s%s", file, r->err, r->out);
    if (sscanf(p + strlen(want), "%u:%u: error: ", &line, &col) != 2 || line < 1 || col < 1)
        fail_msg("the diagnostic is not FILE:LINE:COL: error: ...:\n%s", r->err);
    snprintf(want, sizeof want, "[%s]", rule);
    if (strstr(p, want) == NULL)
        fail_msg("no %s diagnostic:\n%s", rule, r->err);
}

#define ARCH_HEAD                                                                                  \
    "<architecture name=\"h\" format=\"1\">\n"                                                     \
    "<workload><source id=\"u\" to=\"web\" rate=\"10/s\"/></workload>\n"                           \
    "<pool id=\"web\" servers=\"2\" service-time=\"50ms\"/>\n"
#define ARCH_TAIL                                                                                  \
    "<requirements><latency target=\"web\" percentile=\"99\" max=\"2s\"/></requirements>\n"        \
    "</architecture>\n"

/* ---- limits, at and past the edge ---- */

/* A file of exactly `elements` elements (the root, workload, source, pool, the rest empty
 * <requirements>-free padding as routes' siblings: <link>s would change the model, so the
 * padding is <suppress> elements, which count as elements and change nothing). */
static char *elements_file(const char *dir, const char *name, size_t elements)
{
    gen g = {0};
    char *p;
    gen_add(&g, ARCH_HEAD);
    for (size_t i = 4; i < elements; i++)
        gen_add(&g, "<suppress rule=\"AC024\" reason=\"padding %zu\"/>\n", i);
    gen_add(&g, "</architecture>\n");
    p = write_file(dir, name, g.s, g.len);
    free(g.s);
    return p;
}

static void test_limit_elements(void **state)
{
    char *dir = make_tmpdir();
    char *at = elements_file(dir, "at.xml", 100000);
    char *past = elements_file(dir, "past.xml", 100001);
    hrun r;
    (void)state;
    r = RUN("lint", at);
    assert_int_equal(r.status, 0);
    hrun_free(&r);
    r = RUN("lint", past);
    assert_invalid(&r, past, "AC005");
    assert_non_null(strstr(r.out, "more than 100000 elements"));
    hrun_free(&r);
    free(at);
    free(past);
    remove_tmpdir(dir);
}

/* 16 MiB exactly is read; one byte more is refused before parsing. The padding is comments
 * after the root element (a single 16 MB run of blanks is past libxml2's own limit on a run
 * of text, which is AC005 too). */
static void test_limit_bytes(void **state)
{
    const size_t limit = (size_t)16 * 1024 * 1024;
    const char *doc = ARCH_HEAD ARCH_TAIL;
    char *dir = make_tmpdir();
    char *buf = malloc(limit + 1);
    char *at, *past;
    hrun r;
    (void)state;
    assert_non_null(buf);
    memset(buf, '\n', limit + 1);
    memcpy(buf, doc, strlen(doc));
    for (size_t i = strlen(doc); i + 64 < limit; i += 64)
        memcpy(buf + i, "<!-- padding to the limit, a comment of 64 bytes ........... -->", 64);
    at = write_file(dir, "at.xml", buf, limit);
    past = write_file(dir, "past.xml", buf, limit + 1);
    r = RUN("lint", at);
    assert_int_equal(r.status, 0);
    hrun_free(&r);
    r = RUN("check", past);
    assert_invalid(&r, past, "AC005");
    assert_non_null(strstr(r.out, "the limit is 16777216 bytes"));
    hrun_free(&r);
    free(past);
    memset(buf, ' ', limit); /* blanks only: libxml2's run limit */
    memcpy(buf, doc, strlen(doc));
    past = write_file(dir, "blanks.xml", buf, limit);
    r = RUN("lint", past);
    assert_invalid(&r, past, "AC005");
    hrun_free(&r);
    free(buf);
    free(at);
    free(past);
    remove_tmpdir(dir);
}

static char *nested_file(const char *dir, const char *name, size_t levels)
{
    gen g = {0};
    char *p;
    gen_add(&g, "<architecture format=\"1\">\n");
    for (size_t i = 1; i < levels; i++)
        gen_add(&g, "<workload>");
    for (size_t i = 1; i < levels; i++)
        gen_add(&g, "</workload>");
    gen_add(&g, "</architecture>\n");
    p = write_file(dir, name, g.s, g.len);
    free(g.s);
    return p;
}

/* Depth: 256 levels (the root is level 1) pass the limit (the nested workloads are a
 * schema error, AC004), 257 and 100000 do not (AC005). */
static void test_limit_depth(void **state)
{
    char *dir = make_tmpdir();
    char *at = nested_file(dir, "at.xml", 256);
    char *past = nested_file(dir, "past.xml", 257);
    char *deep = nested_file(dir, "deep.xml", 99999);
    hrun r;
    (void)state;
    r = RUN("lint", at);
    assert_invalid(&r, at, "AC004");
    assert_null(strstr(r.out, "AC005"));
    hrun_free(&r);
    r = RUN("lint", past);
    assert_invalid(&r, past, "AC005");
    assert_non_null(strstr(r.out, "nested more than 256 levels"));
    hrun_free(&r);
    r = RUN("lint", deep);
    assert_invalid(&r, deep, "AC005");
    hrun_free(&r);
    free(at);
    free(past);
    free(deep);
    remove_tmpdir(dir);
}

typedef struct value_case {
    const char *attrs; /* the pool's attributes, or the source's rate */
    const char *rule;  /* NULL: accepted */
} value_case;

/* Numbers at and past their ranges, through every command that reads a file. */
static void test_limit_numbers(void **state)
{
    static const value_case pools[] = {
        {"servers=\"2\" service-time=\"1e-303us\"", "AC011"},
        {"servers=\"2\" service-time=\"1e-400s\"", "AC011"},
        {"servers=\"2\" service-time=\"4.9e-324s\"", "AC011"},
        {"servers=\"2\" service-time=\"0.0009us\"", "AC011"},
        {"servers=\"2\" service-time=\"1e308h\"", "AC011"},
        {"servers=\"2\" service-time=\"1.1e9s\"", "AC015"},
        {"servers=\"2\" service-rate=\"1e303/s\"", "AC015"},
        {"servers=\"2\" service-rate=\"1e400\"", "AC011"},
        {"servers=\"1e12\" service-time=\"50ms\"", "AC015"},
        {"servers=\"1000001\" service-time=\"50ms\"", "AC015"},
        {"servers=\"2\" service-time=\"50ms\" buffer=\"100001\"", "AC015"},
        {"servers=\"2\" service-time=\"50ms\" retries=\"101\" timeout=\"1s\"", "AC015"},
        {"servers=\"18446744073709551616\" service-time=\"50ms\"", "AC015"},
        {"servers=\"2\" service-time=\"50ms\"", NULL},
    };
    static const value_case rates[] = {
        {"1e303/s", "AC015"}, {"1.5e12/s", "AC015"}, {"1e-10/s", "AC011"},
        {"1e-320", "AC011"},  {"1e12/s", NULL},
    };
    char *dir = make_tmpdir();
    (void)state;
    for (size_t i = 0; i < sizeof pools / sizeof pools[0] + sizeof rates / sizeof rates[0]; i++) {
        int is_pool = i < sizeof pools / sizeof pools[0];
        const value_case *c = is_pool ? &pools[i] : &rates[i - sizeof pools / sizeof pools[0]];
        gen g = {0};
        char *p;
        hrun r;
        gen_add(&g,
                "<architecture name=\"h\" format=\"1\">\n<workload><source id=\"u\" to=\"web\" "
                "rate=\"%s\"/></workload>\n<pool id=\"web\" %s/>\n</architecture>\n",
                is_pool ? "10/s" : c->attrs,
                is_pool ? c->attrs : "servers=\"2\" service-time=\"50ms\"");
        p = write_file(dir, "n.xml", g.s, g.len);
        free(g.s);
        r = RUN("lint", p);
        if (c->rule == NULL) {
            if (r.status != 0)
                fail_msg("%s: exit %d\n%s", c->attrs, r.status, r.out);
        } else {
            assert_invalid(&r, p, c->rule);
        }
        hrun_free(&r);
        if (c->rule != NULL) {
            r = RUN("solve", p);
            assert_invalid(&r, p, c->rule);
            assert_null(strstr(r.out, "pass"));
            hrun_free(&r);
        }
        free(p);
    }
    remove_tmpdir(dir);
}

/* Ids: control characters and invisible or bidirectional ones refused; a 1 MB id is shown
 * with its first 64 characters. */
static void test_limit_ids(void **state)
{
    static const char *const bad[] = {"w\xe2\x80\x8b"
                                      "eb",
                                      "w\xe2\x80\x8e"
                                      "eb",
                                      "w\xe2\x80\xad"
                                      "eb",
                                      "w\xe2\x81\xa7"
                                      "eb",
                                      "w\xef\xbb\xbf"
                                      "eb",
                                      "w\xc2\x80"
                                      "eb"};
    char *dir = make_tmpdir();
    gen g = {0};
    char *p;
    hrun r;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        g.len = 0;
        gen_add(&g,
                ARCH_HEAD "<mitigation id=\"%s\" kind=\"add-servers\" target=\"web\" "
                          "amount=\"1\"/>\n" ARCH_TAIL,
                bad[i]);
        p = write_file(dir, "id.xml", g.s, g.len);
        r = RUN("check", p);
        assert_invalid(&r, p, "AC011");
        assert_non_null(strstr(r.out, "invisible or bidirectional control character U+"));
        hrun_free(&r);
        free(p);
    }
    /* a C0 control in an attribute is not XML at all */
    g.len = 0;
    gen_add(&g, ARCH_HEAD "<mitigation id=\"a\x01b\" kind=\"add-servers\" target=\"web\" "
                          "amount=\"1\"/>\n" ARCH_TAIL);
    p = write_file(dir, "c0.xml", g.s, g.len);
    r = RUN("lint", p);
    assert_invalid(&r, p, "AC002");
    assert_null(strchr(strchr(r.out, ']'), '\x01'));
    hrun_free(&r);
    free(p);
    /* a 1 MB id */
    g.len = 0;
    gen_add(&g, ARCH_HEAD "<pool id=\"");
    for (size_t i = 0; i < 1000000 / 50; i++)
        gen_add(&g, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwx");
    gen_add(&g, "\" servers=\"1\" service-time=\"1ms\"/>\n" ARCH_TAIL);
    p = write_file(dir, "long.xml", g.s, g.len);
    r = RUN("lint", p);
    assert_invalid(&r, p, "AC024");
    assert_true(strlen(r.out) < 400);
    assert_non_null(
        strstr(r.out, "'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxabcdefghijklm...' is"));
    hrun_free(&r);
    free(p);
    free(g.s);
    remove_tmpdir(dir);
}

/* ---- deep structures ---- */

/* A chain of 99990 combines (a stack overflow before), the same chain closed into a cycle,
 * and 40 levels of combine diamonds (2^40 paths before): lint answers each from the
 * structure, compare applies the chain's head once. */
static void test_deep_combines(void **state)
{
    const size_t n = 99990;
    char *dir = make_tmpdir();
    gen g = {0};
    char *chain, *cycle, *diamonds;
    hrun r;
    (void)state;
    gen_add(&g, ARCH_HEAD);
    for (size_t i = 0; i < n; i++)
        gen_add(&g, "<mitigation id=\"c%zu\" kind=\"combine\" of=\"c%zu\"/>\n", i, i + 1);
    gen_add(&g,
            "<mitigation id=\"c%zu\" kind=\"add-servers\" target=\"web\" amount=\"2\"/>\n"
            "</architecture>\n",
            n);
    chain = write_file(dir, "chain.xml", g.s, g.len);
    g.len = (size_t)(strstr(g.s, "<mitigation id=\"c99990\"") - g.s);
    gen_add(&g, "<mitigation id=\"c%zu\" kind=\"combine\" of=\"c0\"/>\n</architecture>\n", n);
    cycle = write_file(dir, "cycle.xml", g.s, g.len);
    g.len = 0;
    gen_add(&g, ARCH_HEAD);
    for (size_t k = 0; k < 40; k++)
        gen_add(&g,
                "<mitigation id=\"d%zu\" kind=\"combine\" of=\"a%zu b%zu\"/>"
                "<mitigation id=\"a%zu\" kind=\"combine\" of=\"d%zu\"/>"
                "<mitigation id=\"b%zu\" kind=\"combine\" of=\"d%zu\"/>\n",
                k, k, k, k, k + 1, k, k + 1);
    gen_add(&g, "<mitigation id=\"d40\" kind=\"combine\" of=\"x y\"/><mitigation id=\"x\" "
                "kind=\"add-servers\" target=\"web\" amount=\"1\"/><mitigation id=\"y\" "
                "kind=\"add-servers\" target=\"web\" amount=\"2\"/>\n" ARCH_TAIL);
    diamonds = write_file(dir, "diamonds.xml", g.s, g.len);
    free(g.s);
    r = RUN("lint", chain);
    assert_int_equal(r.status, 0);
    hrun_free(&r);
    r = RUN("compare", "--no-validate", "--mitigation", "c0", chain);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "servers 2 -> 4"));
    hrun_free(&r);
    r = RUN("lint", cycle);
    assert_invalid(&r, cycle, "AC026");
    assert_non_null(strstr(r.out, "combines itself"));
    hrun_free(&r);
    r = RUN("lint", diamonds);
    assert_invalid(&r, diamonds, "AC026");
    assert_non_null(strstr(r.out, "mitigation 'd0' combines 'x' and 'y'"));
    hrun_free(&r);
    assert_no_tmp(dir);
    free(chain);
    free(cycle);
    free(diamonds);
    remove_tmpdir(dir);
}

/* ---- lint refuses what check refuses ---- */

/* Routes that return every job (open: p = 1 both ways; closed: a fan-out of 2 around a
 * loop with p = 0.8, spectral radius 1.6): check and lint both refuse them (AC032). */
static void test_lint_refuses_circulation(void **state)
{
    static const char *const docs[] = {
        "<architecture name=\"c\" format=\"1\">\n<workload><source id=\"u\" to=\"web\" "
        "rate=\"10/s\"/></workload>\n<pool id=\"web\" servers=\"4\" service-time=\"20ms\"/>\n"
        "<pool id=\"db\" servers=\"4\" service-time=\"20ms\"/>\n<route from=\"web\" to=\"db\" "
        "p=\"1\"/>\n<route from=\"db\" to=\"web\" p=\"1\"/>\n</architecture>\n",
        "<architecture name=\"c\" format=\"1\">\n<workload><population id=\"u\" to=\"web\" "
        "size=\"5\" think-time=\"1s\"/></workload>\n<pool id=\"web\" servers=\"4\" "
        "service-time=\"20ms\"/>\n<pool id=\"db\" servers=\"4\" service-time=\"20ms\"/>\n"
        "<route from=\"web\" to=\"db\" p=\"1\" fanout=\"2\"/>\n<route from=\"db\" to=\"web\" "
        "p=\"0.8\"/>\n</architecture>\n",
    };
    char *dir = make_tmpdir();
    (void)state;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char *p = write_str(dir, "loop.xml", docs[i]);
        hrun r = RUN("check", p);
        assert_invalid(&r, p, "AC032");
        hrun_free(&r);
        r = RUN("lint", p);
        assert_invalid(&r, p, "AC032");
        hrun_free(&r);
        r = RUN("lint", "-f", "json", p);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.out, "AC032"));
        hrun_free(&r);
        free(p);
    }
    remove_tmpdir(dir);
}

/* Over every bad sample: lint exits 2 exactly when check does. */
static void test_lint_and_check_agree(void **state)
{
    DIR *d = opendir(AC_SOURCE_DIR "/samples/bad");
    struct dirent *e;
    size_t n = 0;
    (void)state;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char rel[512];
        size_t len = strlen(e->d_name);
        hrun lint, check;
        if (len < 4 || strcmp(e->d_name + len - 4, ".xml") != 0)
            continue;
        snprintf(rel, sizeof rel, "samples/bad/%s", e->d_name);
        lint = RUN("lint", rel);
        check = RUN("check", "--no-validate", rel);
        if ((lint.status == 2) != (check.status == 2))
            fail_msg("%s: lint exits %d, check %d\n%s%s", rel, lint.status, check.status, lint.out,
                     check.out);
        hrun_free(&lint);
        hrun_free(&check);
        n++;
    }
    closedir(d);
    assert_true(n >= 30);
}

/* ---- an analysis that fails gives no verdict ---- */

/* A source rate of 1e303/s overflowed the analysis of a function (it returned AC_EINPUT
 * without a finding or a message, and check printed "verdict: pass" with no check). The
 * parser now refuses that rate; the model is changed after parsing, through the library.
 * Either the analysis fails (a message and no analysis, which cli/ turns into exit 2 and no
 * verdict) or the solvers cope and the overload is found (AC101): never a pass. */
static void test_analysis_failure(void **state)
{
    static const char doc[] = "<architecture name=\"h\" format=\"1\">\n<workload><source "
                              "id=\"u\" to=\"a\" rate=\"10/s\"/></workload>\n<function "
                              "id=\"a\" duration=\"1ms\"/>\n<requirements><latency target=\"a\" "
                              "percentile=\"99\" max=\"1s\"/></requirements>\n</architecture>\n";
    ac_model *m = NULL;
    ac_analysis_options opt;
    ac_analysis *an = NULL;
    ac_diag_list d;
    ac_error err = {0};
    int rc;
    (void)state;
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(doc, sizeof doc - 1, "h.xml", &m, &d, &err), AC_OK);
    m->sources[0].rate = 1e303;
    ac_analysis_options_init(&opt);
    opt.validate = AC_VALIDATE_NEVER;
    rc = ac_analysis_run(m, &opt, &an, &d, &err);
    if (rc != AC_OK) {
        /* a failure: no analysis, no finding, a message (cli/ prints no verdict, exit 2) */
        assert_int_not_equal(rc, AC_EINPUT); /* AC_EINPUT is for input a finding explains */
        assert_null(an);
        assert_int_equal(d.count, 0);
        assert_true(err.code != 0 && strstr(err.message, "failed") != NULL);
    } else {
        /* the solvers cope: then 1e300 Erlangs against 1000 instances is an overload (AC101),
           never a pass */
        int ac101 = 0;
        for (size_t i = 0; i < d.count; i++)
            ac101 |= strcmp(d.items[i].rule, "AC101") == 0;
        assert_true(ac101);
        ac_analysis_free(an);
    }
    ac_model_free(m);
    ac_diag_list_clear(&d);
}

/* ---- empty architectures ---- */

/* No node (a requirement only): a located AC031 and exit 2 from every command (it used to
 * be "out of memory (traffic equations)"); a model without nodes given to the analysis
 * through the library gets a clear error, not an out-of-memory one. */
static void test_empty_architecture(void **state)
{
    static const char *const cmds[] = {"lint", "check", "solve", "simulate", "compare"};
    char *dir = make_tmpdir();
    char *p = write_str(dir, "empty.xml",
                        "<architecture name=\"e\" format=\"1\">\n<requirements><throughput "
                        "min=\"10/s\"/></requirements>\n</architecture>\n");
    char *q = write_str(dir, "no-workload.xml",
                        "<architecture name=\"e\" format=\"1\">\n<pool id=\"web\" servers=\"1\" "
                        "service-time=\"1ms\"/>\n<requirements><throughput "
                        "min=\"10/s\"/></requirements>\n</architecture>\n");
    ac_model *m = calloc(1, sizeof *m);
    ac_analysis_options opt;
    ac_analysis *an = NULL;
    ac_diag_list d;
    ac_error err = {0};
    int rc;
    (void)state;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        hrun r = RUN(cmds[i], p);
        assert_invalid(&r, p, "AC031");
        assert_null(strstr(r.err, "out of memory"));
        assert_null(strstr(r.out, "pass"));
        hrun_free(&r);
        r = RUN(cmds[i], q);
        assert_invalid(&r, q, "AC031");
        hrun_free(&r);
    }
    assert_non_null(m);
    m->file = strdup("empty.xml");
    ac_analysis_options_init(&opt);
    ac_diag_list_init(&d);
    rc = ac_analysis_run(m, &opt, &an, &d, &err);
    assert_int_not_equal(rc, AC_OK);
    assert_int_not_equal(rc, AC_ENOMEM);
    assert_null(strstr(err.message, "out of memory"));
    assert_non_null(strstr(err.message, "no nodes"));
    ac_analysis_free(an);
    ac_diag_list_clear(&d);
    ac_model_free(m);
    free(p);
    free(q);
    remove_tmpdir(dir);
}

/* ---- encodings: UTF-8 only ---- */

typedef struct enc_case {
    const char *name;
    const char *bytes;
    size_t len;         /* 0: strlen */
    unsigned line, col; /* where the AC002 is; 0: accepted */
} enc_case;

#define VALID_BODY                                                                                 \
    "<architecture name=\"h\" format=\"1\"><workload><source id=\"u\" to=\"web\" "                 \
    "rate=\"10/s\"/></workload><pool id=\"web\" servers=\"2\" service-time=\"50ms\"/>"             \
    "</architecture>\n"

static void test_encodings(void **state)
{
    static const enc_case cases[] = {
        /* a DOCTYPE hidden from the byte scan in UTF-7 ("+ADw-" is '<') */
        {"utf7.xml",
         "<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n+ADw-!DOCTYPE a +AFs-+ADw-!ENTITY x "
         "SYSTEM +ACI-file:///etc/passwd+ACI-+AD4-+AF0-+AD4-\n" VALID_BODY,
         0, 1, 31},
        /* an EBCDIC encoding declared in ASCII bytes */
        {"ebcdic-declared.xml", "<?xml version='1.0' encoding='IBM037'?>\n" VALID_BODY, 0, 1, 31},
        {"latin1-declared.xml", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" VALID_BODY, 0, 1,
         31},
        /* "<?xml" in EBCDIC bytes: not UTF-8 at its third byte */
        {"ebcdic.xml", "\x4c\x6f\xa7\x94\x93\x40\xa5\x85\x99", 0, 1, 3},
        {"utf16le-bom.xml", "\xff\xfe<\0a\0", 6, 1, 1},
        {"utf16be-bom.xml", "\xfe\xff\0<\0a", 6, 1, 1},
        {"utf16le-nobom.xml", "<\0?\0x\0m\0l\0", 10, 1, 2},
        {"latin1-byte.xml", "<architecture name=\"caf\xe9\" format=\"1\"/>", 0, 1, 24},
        {"overlong.xml", "<architecture name=\"\xc0\xaf\" format=\"1\"/>", 0, 1, 21},
        {"surrogate.xml", "<architecture name=\"\xed\xa0\x80\" format=\"1\"/>", 0, 1, 21},
        {"too-high.xml", "<architecture name=\"\xf4\x90\x80\x80\" format=\"1\"/>", 0, 1, 21},
        {"truncated.xml", "<architecture format=\"1\"/>\xe2\x82", 0, 1, 27},
        /* accepted: UTF-8 declared in any case, with or without a BOM, or nothing declared */
        {"utf8.xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" VALID_BODY, 0, 0, 0},
        {"bom.xml", "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" VALID_BODY, 0, 0, 0},
        {"bom-only.xml", "\xef\xbb\xbf" VALID_BODY, 0, 0, 0},
        {"none.xml", "<?xml version=\"1.0\"?>" VALID_BODY, 0, 0, 0},
        {"utf8-name.xml",
         "<architecture name=\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\" format=\"1\"><workload>"
         "<source id=\"u\" to=\"web\" rate=\"10/s\"/></workload><pool id=\"web\" servers=\"2\" "
         "service-time=\"50ms\"/></architecture>",
         0, 0, 0},
    };
    char *dir = make_tmpdir();
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const enc_case *c = &cases[i];
        char *p = write_file(dir, c->name, c->bytes, c->len ? c->len : strlen(c->bytes));
        hrun r = RUN("lint", p);
        if (c->line == 0) {
            if (r.status != 0)
                fail_msg("%s: exit %d\n%s", c->name, r.status, r.out);
        } else {
            char want[600];
            assert_invalid(&r, p, "AC002");
            snprintf(want, sizeof want, "%s:%u:%u: error: ", p, c->line, c->col);
            if (strstr(r.out, want) == NULL)
                fail_msg("%s: expected %s\n%s", c->name, want, r.out);
        }
        hrun_free(&r);
        free(p);
    }
    remove_tmpdir(dir);
}

/* ---- special files as input ---- */

static void test_input_special_files(void **state)
{
    char *dir = make_tmpdir();
    char *fifo = path_join(dir, "in.xml");
    hrun r;
    (void)state;
    alarm(20); /* a FIFO without a writer used to block archcheck forever */
    assert_int_equal(mkfifo(fifo, 0600), 0);
    r = RUN("lint", fifo);
    assert_invalid(&r, fifo, "AC001");
    assert_non_null(strstr(r.out, "a FIFO, not a regular file"));
    hrun_free(&r);
    r = RUN("check", fifo);
    assert_invalid(&r, fifo, "AC001");
    hrun_free(&r);
    r = RUN("lint", dir); /* a directory is searched; a FIFO in it is not read */
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no architecture file"));
    hrun_free(&r);
    r = RUN("solve", "/dev/null");
    assert_invalid(&r, "/dev/null", "AC001");
    assert_non_null(strstr(r.err, "a character device"));
    hrun_free(&r);
    r = RUN("simulate", "/dev/zero");
    assert_invalid(&r, "/dev/zero", "AC001");
    hrun_free(&r);
    free(fifo);
    remove_tmpdir(dir);
    alarm(0);
}

/* ---- special files as output ---- */

/* -o to a symbolic link replaces the link's target (atomically): the link survives. */
static void test_output_symlink(void **state)
{
    char *dir = make_tmpdir();
    char *target = write_str(dir, "real.json", "old\n");
    char *link = path_join(dir, "link.json");
    struct stat st;
    hrun r;
    char *s;
    (void)state;
    assert_int_equal(symlink("real.json", link), 0);
    r = RUN("check", "--no-validate", "-f", "json", "-o", link, "samples/tandem.xml");
    assert_int_equal(r.status, 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    s = ac_test_read_file(target);
    assert_non_null(s);
    assert_non_null(strstr(s, "\"archcheck\""));
    free(s);
    hrun_free(&r);
    assert_no_tmp(dir);
    /* a dangling link is refused, and nothing is created */
    assert_int_equal(unlink(target), 0);
    r = RUN("check", "--no-validate", "-o", link, "samples/tandem.xml");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "symbolic link to a file that does not exist"));
    assert_int_equal(count_entries(dir, NULL), 1);
    hrun_free(&r);
    free(target);
    free(link);
    remove_tmpdir(dir);
}

/* A character device to write to: as root, a private one in dir with the numbers of
 * /dev/null (1,3) or /dev/full (1,7), so that a regression (a device replaced by a regular
 * file) can never damage the machine's own /dev; otherwise the system's, which a user other
 * than root cannot replace. NULL when root cannot create device nodes (a container). */
static char *char_device(const char *dir, const char *name, unsigned minor)
{
    char *p;
    if (geteuid() != 0)
        return strdup(minor == 3 ? "/dev/null" : "/dev/full");
    p = path_join(dir, name);
    if (mknod(p, S_IFCHR | 0666, makedev(1, minor)) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* -o DEVICE writes through: /dev/null stays a character device, /dev/full reports its
 * error. */
static void test_output_devices(void **state)
{
    char *dir = make_tmpdir();
    char *null_dev = char_device(dir, "null", 3);
    char *full_dev = char_device(dir, "full", 7);
    char want[256];
    struct stat st;
    hrun r;
    (void)state;
    if (null_dev == NULL || full_dev == NULL) {
        print_message("skipped: device nodes cannot be created here\n");
        free(null_dev);
        free(full_dev);
        remove_tmpdir(dir);
        return;
    }
    r = RUN("check", "--no-validate", "-o", null_dev, "samples/tandem.xml");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err, "");
    assert_int_equal(stat(null_dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    hrun_free(&r);
    r = RUN("check", "--no-validate", "--report", null_dev, "samples/tandem.xml");
    assert_int_equal(r.status, 0);
    assert_int_equal(stat(null_dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    hrun_free(&r);
    /* a full device: the write error is reported, exit 2 */
    r = RUN("check", "--no-validate", "-o", full_dev, "samples/tandem.xml");
    assert_int_equal(r.status, 2);
    snprintf(want, sizeof want, "cannot write '%s': No space left on device", full_dev);
    assert_non_null(strstr(r.err, want));
    hrun_free(&r);
    r = RUN("check", "--no-validate", "--report", full_dev, "samples/tandem.xml");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, full_dev));
    hrun_free(&r);
    assert_int_equal(stat(full_dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_no_tmp(dir);
    free(null_dev);
    free(full_dev);
    remove_tmpdir(dir);
}

/* A FIFO as output: written through when a reader is there, refused (not waited on) when
 * none is; a directory is refused. */
static void test_output_fifo_and_directory(void **state)
{
    char *dir = make_tmpdir();
    char *fifo = path_join(dir, "out.fifo");
    struct stat st;
    hrun r;
    (void)state;
    alarm(20);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    r = RUN("check", "--no-validate", "-o", fifo, "samples/tandem.xml");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "no process reads the FIFO"));
    hrun_free(&r);
    {
        int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader */
        char buf[65536];
        ssize_t n;
        size_t got = 0;
        assert_true(rd >= 0);
        r = RUN("check", "--no-validate", "-o", fifo, "samples/tandem.xml");
        assert_int_equal(r.status, 0);
        while ((n = read(rd, buf, sizeof buf)) > 0)
            got += (size_t)n;
        close(rd);
        assert_true(got > 0);
        hrun_free(&r);
    }
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    r = RUN("check", "--no-validate", "-o", dir, "samples/tandem.xml");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "it is a directory"));
    hrun_free(&r);
    assert_no_tmp(dir);
    free(fifo);
    remove_tmpdir(dir);
    alarm(0);
}

/* A read-only directory: the output cannot be created; nothing is left. Root writes anyway
 * (permissions do not stop it), so the case is skipped as root. */
static void test_output_read_only_dir(void **state)
{
    char *dir = make_tmpdir();
    char *out = path_join(dir, "out.txt");
    hrun r;
    (void)state;
    if (geteuid() == 0) {
        print_message("skipped as root: a read-only directory does not stop root's writes\n");
        free(out);
        remove_tmpdir(dir);
        return;
    }
    assert_int_equal(chmod(dir, 0500), 0);
    r = RUN("check", "--no-validate", "-o", out, "samples/tandem.xml");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cannot write"));
    hrun_free(&r);
    assert_int_equal(count_entries(dir, NULL), 0);
    chmod(dir, 0700);
    free(out);
    remove_tmpdir(dir);
}

/* Standard output on a full disk (/dev/full): every command says so and exits 2 (solve,
 * simulate and solve --transient in text used to exit 0; rules exited 2 silently). */
static void test_stdout_full(void **state)
{
    static const char *const cmds[][8] = {
        {"rules", NULL},
        {"rules", "-f", "json", NULL},
        {"schema", NULL},
        {"--version", NULL},
        {"lint", "-f", "json", "samples/tandem.xml", NULL},
        {"check", "samples/tandem.xml", NULL},
        {"check", "-f", "sarif", "samples/tandem.xml", NULL},
        {"solve", "samples/tandem.xml", NULL},
        {"solve", "-f", "csv", "samples/tandem.xml", NULL},
        {"solve", "--transient", "--horizon", "10s", "samples/tandem.xml", NULL},
        {"simulate", "--max-events", "20000", "samples/tandem.xml", NULL},
        {"compare", "samples/tandem.xml", NULL},
    };
    hopts o = {"/dev/full", 0};
    (void)state;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        hrun r = run_opts(&o, 0, cmds[i]);
        if (r.status != 2 || strstr(r.err, "archcheck: cannot write the standard output") == NULL)
            fail_msg("archcheck %s %s > /dev/full: exit %d\nstderr:\n%s", cmds[i][0],
                     cmds[i][1] != NULL ? cmds[i][1] : "", r.status, r.err);
        hrun_free(&r);
    }
}

/* ---- signals while an output is being written ---- */

/* A file size limit is reached while the temporary file is written: SIGXFSZ (deterministic).
 * The process dies of it, with the temporary file removed first. */
static void test_signal_file_size_limit(void **state)
{
    char *dir = make_tmpdir();
    char *out = path_join(dir, "out.json");
    char *pdf = path_join(dir, "out.pdf");
    hopts o = {NULL, 1024};
    hrun r;
    (void)state;
    r = run_opts(
        &o, 1,
        (const char *const[]){"check", "-f", "json", "-o", out, "samples/checkout.xml", NULL});
    assert_int_equal(r.status, 128 + SIGXFSZ);
    hrun_free(&r);
    assert_int_equal(count_entries(dir, NULL), 0);
    r = run_opts(&o, 1,
                 (const char *const[]){"check", "--report", pdf, "samples/tandem.xml", NULL});
    assert_int_equal(r.status, 128 + SIGXFSZ);
    hrun_free(&r);
    assert_int_equal(count_entries(dir, NULL), 0);
    free(out);
    free(pdf);
    remove_tmpdir(dir);
}

/* SIGTERM or SIGINT once the temporary report exists: the process ends (by the signal, once
 * the temporary file is renamed or removed) and leaves no temporary file. Each attempt waits
 * until the temporary file appears or the process has ended, then signals it; attempts are
 * repeated until one caught the temporary file (at most 50). */
static void test_signal_while_writing(void **state)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    (void)state;
    for (size_t k = 0; k < 2; k++) {
        int caught = 0;
        for (int attempt = 0; attempt < 50 && !caught; attempt++) {
            char *dir = make_tmpdir();
            char *pdf = path_join(dir, "report.pdf");
            char bin[] = AC_TEST_BIN, check[] = "check", report[] = "--report",
                 input[] = "samples/checkout.xml";
            char *argv[] = {bin, check, report, pdf, input, NULL};
            int fo = ac_test_capture_fd(), fe = ac_test_capture_fd(), st = 0;
            pid_t pid = ac_test_spawn(NULL, AC_SOURCE_DIR, argv, fo, fe), w;
            assert_true(fo >= 0 && fe >= 0 && pid > 0);
            struct timespec pause = {0, 100000};
            while ((w = waitpid(pid, &st, WNOHANG)) == 0) {
                if (count_entries(dir, ".tmp.") > 0) {
                    kill(pid, sigs[k]);
                    caught = 1;
                    w = waitpid(pid, &st, 0);
                    break;
                }
                nanosleep(&pause, NULL);
            }
            assert_int_equal(w, pid);
            /* the verdict's status (0, 1 or 3), or the signal once the file is renamed */
            if (caught)
                assert_true((WIFSIGNALED(st) && WTERMSIG(st) == sigs[k]) ||
                            (WIFEXITED(st) && WEXITSTATUS(st) != 2));
            else
                assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 2);
            assert_no_tmp(dir);
            close(fo);
            close(fe);
            free(pdf);
            remove_tmpdir(dir);
        }
        if (caught)
            print_message("signal %d sent while the temporary report existed\n", sigs[k]);
        else
            print_message("signal %d: the temporary report was never seen in 50 runs\n", sigs[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_elements),
        cmocka_unit_test(test_limit_bytes),
        cmocka_unit_test(test_limit_depth),
        cmocka_unit_test(test_limit_numbers),
        cmocka_unit_test(test_limit_ids),
        cmocka_unit_test(test_deep_combines),
        cmocka_unit_test(test_lint_refuses_circulation),
        cmocka_unit_test(test_lint_and_check_agree),
        cmocka_unit_test(test_analysis_failure),
        cmocka_unit_test(test_empty_architecture),
        cmocka_unit_test(test_encodings),
        cmocka_unit_test(test_input_special_files),
        cmocka_unit_test(test_output_symlink),
        cmocka_unit_test(test_output_devices),
        cmocka_unit_test(test_output_fifo_and_directory),
        cmocka_unit_test(test_output_read_only_dir),
        cmocka_unit_test(test_stdout_full),
        cmocka_unit_test(test_signal_file_size_limit),
        cmocka_unit_test(test_signal_while_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
