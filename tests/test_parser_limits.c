/*
 * Tests of parser/ on hostile input (through the library API): magnitudes, nesting depth,
 * ids and messages, special files refused without blocking, deep combines walked
 * without recursion.
 */
#include "helpers.h"

#include <dirent.h>
#include <sys/stat.h>

#include "archcheck/parser.h"
#include "archcheck/rules.h"
#include "archcheck/serverless.h"
#include "parser/units.h"

#include "parser_helpers.h"

/* ---- hostile input ---- */

static void test_hostile(void **state)
{
    ac_model *m = NULL;
    ac_diag_list d;
    char *big;
    (void)state;
    expect_one("<?xml version=\"1.0\"?>\n<!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
               "<architecture format=\"1\">&x;</architecture>\n",
               "AC003", 2, 1);
    expect_one("<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]>"
               "<architecture format=\"1\" name=\"&lol2;\"/>",
               "AC003", 1, 1);
    expect_one("", "AC002", 1, 1);
    /* only the first error of a malformed document: the rest are its consequences */
    expect_rule("<architecture format=\"1\">\n  <pool id=\"a\"\n", "AC002", 1);
    /* a NUL byte */
    {
        static const char nul[] = "<architecture format=\"1\">\0</architecture>";
        ac_error err = {0};
        ac_diag_list_init(&d);
        assert_int_equal(ac_parser_parse_memory(nul, sizeof nul - 1, "t.xml", &m, &d, &err),
                         AC_EINPUT);
        assert_non_null(find_rule(&d, "AC002"));
        ac_diag_list_clear(&d);
    }
    /* too large */
    big = malloc(AC_PARSER_MAX_BYTES + 2);
    assert_non_null(big);
    memset(big, ' ', AC_PARSER_MAX_BYTES + 1);
    big[AC_PARSER_MAX_BYTES + 1] = '\0';
    {
        ac_error err = {0};
        ac_diag_list_init(&d);
        assert_int_equal(
            ac_parser_parse_memory(big, AC_PARSER_MAX_BYTES + 1, "t.xml", &m, &d, &err), AC_EINPUT);
        assert_non_null(find_rule(&d, "AC005"));
        ac_diag_list_clear(&d);
    }
    free(big);
    /* 300 nested elements: libxml2's depth limit (256) */
    {
        size_t n = 300, len = 0;
        char *s = malloc(n * 8 + 64);
        assert_non_null(s);
        len += (size_t)sprintf(s + len, "<architecture format=\"1\">");
        for (size_t i = 0; i < n; i++)
            len += (size_t)sprintf(s + len, "<a>");
        for (size_t i = 0; i < n; i++)
            len += (size_t)sprintf(s + len, "</a>");
        len += (size_t)sprintf(s + len, "</architecture>");
        {
            ac_error err = {0};
            ac_diag_list_init(&d);
            assert_int_equal(ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err), AC_EINPUT);
            assert_true(d.count >= 1);
            assert_null(m);
            ac_diag_list_clear(&d);
        }
        free(s);
    }
}

/* A gateway without burst has the bucket the schema documents (1 token): its rejection is
 * the blocking of M/D/1/1, which is Erlang-B with one server (insensitive to the service
 * distribution): rho / (1 + rho), rho = lambda / r. A rate-limit mitigation without burst
 * leaves the same depth. */
static void test_gateway_default_burst(void **state)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_solver_gateway_result g;
    ac_error err = {0};
    (void)state;
    assert_int_equal(parse("<architecture format=\"1\">\n<workload><source id=\"u\" to=\"gw\" "
                           "rate=\"50/s\"/></workload>\n<gateway id=\"gw\" rate-limit=\"100/s\"/>"
                           "<mitigation id=\"rl\" kind=\"rate-limit\" target=\"gw\" rate=\"80\"/>"
                           "</architecture>",
                           &m, &d),
                     AC_OK);
    assert_int_equal(m->nodes[0].u.gateway.burst, 1);
    assert_int_equal(m->mitigations[0].burst, 1);
    assert_int_equal(ac_solver_gateway_solve(&m->nodes[0].u.gateway, 50.0, 0.0, &g, &err), AC_OK);
    assert_int_equal(g.bucket, 1);
    assert_double_close(g.reject_probability, 0.5 / 1.5, 1e-9, 0);
    ac_model_free(m);
    ac_diag_list_clear(&d);
}

/* ---- magnitudes, depth, ids and messages ---- */

static void expect_unit_fail(int rc, const ac_unit_fail *f, const char *rule)
{
    assert_int_equal(rc, -1);
    assert_string_equal(f->rule, rule);
}

/* Every value or its reciprocal is a finite, normal double in the documented range. */
static void test_magnitudes(void **state)
{
    double v = 0;
    ac_unit_fail f;
    (void)state;
    assert_int_equal(ac_units_rate("1e12/s", &v, &f), 0);
    assert_true(v == 1e12);
    expect_unit_fail(ac_units_rate("1e303/s", &v, &f), &f, "AC015");
    assert_string_equal(f.message, "is larger than archcheck can analyse (rates are at most "
                                   "1e12/s): got '1e303/s'");
    expect_unit_fail(ac_units_rate("1.0001e12", &v, &f), &f, "AC015");
    expect_unit_fail(ac_units_rate("6.1e13/min", &v, &f), &f, "AC015"); /* 1.02e12/s */
    assert_int_equal(ac_units_rate("1/h", &v, &f), 0);
    expect_unit_fail(ac_units_rate("1e-10/s", &v, &f), &f, "AC011");
    assert_int_equal(ac_units_rate("0", &v, &f), 0);
    /* 1e-303us is 1e-309 s, subnormal: its reciprocal is infinite */
    expect_unit_fail(ac_units_duration("1e-303us", &v, &f), &f, "AC011");
    assert_string_equal(f.message,
                        "is too small (durations are 0 or at least 1ns): got '1e-303us'");
    expect_unit_fail(ac_units_duration("1e-400s", &v, &f), &f, "AC011"); /* underflows to 0 */
    expect_unit_fail(ac_units_duration("0.0009us", &v, &f), &f, "AC011");
    assert_int_equal(ac_units_duration("0.001us", &v, &f), 0);
    assert_double_close(v, 1e-9, 0, 1e-12);
    assert_int_equal(ac_units_duration("1e9s", &v, &f), 0);
    expect_unit_fail(ac_units_duration("1.1e9s", &v, &f), &f, "AC015");
    expect_unit_fail(ac_units_duration("300000h", &v, &f), &f, "AC015"); /* 1.08e9 s */
    assert_int_equal(ac_units_probability("1e-15", &v, &f), 0);
    expect_unit_fail(ac_units_probability("1e-16", &v, &f), &f, "AC011");
    expect_unit_fail(ac_units_probability("1e-14%", &v, &f), &f, "AC011");
    expect_unit_fail(ac_units_factor("1e13", &v, &f), &f, "AC015");
    expect_unit_fail(ac_units_factor("1e-10", &v, &f), &f, "AC011");
    expect_unit_fail(ac_units_number("2e12", &v, &f), &f, "AC015");
    expect_unit_fail(ac_units_number("1e-320", &v, &f), &f, "AC011");
    /* through the parser: located */
    expect_one(HEAD "<pool id=\"web\" servers=\"2\" service-time=\"1e-303us\"/></architecture>",
               "AC011", 3, 28);
    expect_one("<architecture format=\"1\">\n<workload><source id=\"u\" to=\"web\" "
               "rate=\"1e303/s\"/></workload>\n" POOL("web") "</architecture>",
               "AC015", 2, 35);
}

static char *nested(size_t levels, size_t *len)
{
    char *s = malloc(levels * 24 + 64);
    assert_non_null(s);
    *len = (size_t)sprintf(s, "<architecture format=\"1\">");
    for (size_t i = 1; i < levels; i++)
        *len += (size_t)sprintf(s + *len, "<workload>");
    for (size_t i = 1; i < levels; i++)
        *len += (size_t)sprintf(s + *len, "</workload>");
    *len += (size_t)sprintf(s + *len, "</architecture>");
    return s;
}

/* 256 levels (the root is level 1) are accepted, 257 refused at the 257th start tag. */
static void test_depth_exact(void **state)
{
    size_t len;
    char *s;
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    (void)state;
    s = nested(256, &len);
    ac_diag_list_init(&d);
    /* (nested workloads are not schema-valid: AC004, but no AC005) */
    ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err);
    assert_int_equal(count_rule(&d, "AC005"), 0);
    assert_true(count_rule(&d, "AC004") > 0);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    free(s);
    s = nested(257, &len);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err), AC_EINPUT);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].rule, "AC005");
    assert_string_equal(d.items[0].message, "the elements are nested more than 256 levels deep");
    assert_int_equal(d.items[0].line, 1);
    assert_int_equal(d.items[0].column, 26 + 255 * 10); /* the 257th start tag */
    ac_diag_list_clear(&d);
    free(s);
}

static void test_ids_and_messages(void **state)
{
    static const char *const bad[] = {"w\xe2\x80\x8b"
                                      "eb",
                                      "w\xe2\x80\x8f"
                                      "eb",
                                      "w\xe2\x80\xaa"
                                      "eb",
                                      "w\xe2\x80\xae"
                                      "eb",
                                      "w\xe2\x81\xa6"
                                      "eb",
                                      "w\xe2\x81\xa9"
                                      "eb",
                                      "w\xef\xbb\xbf"
                                      "eb",
                                      "w\xc2\x85"
                                      "eb",
                                      "w\xc2\x9f"
                                      "eb"};
    ac_diag_list d;
    char *big;
    size_t n = 1000000;
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char xml[512];
        snprintf(xml, sizeof xml,
                 HEAD POOL("web") "<mitigation id=\"%s\" kind=\"add-servers\" target=\"web\" "
                                  "amount=\"1\"/></architecture>",
                 bad[i]);
        expect_one(xml, "AC011", 4, 13);
    }
    /* a 1 MB id: its diagnostic shows 64 characters and "..." */
    big = malloc(n + 512);
    assert_non_null(big);
    {
        size_t len = (size_t)sprintf(big, HEAD POOL("web") "<pool id=\"");
        ac_model *m = NULL;
        ac_error err = {0};
        memset(big + len, 'x', n);
        len += n;
        len += (size_t)sprintf(big + len, "\" servers=\"1\" service-time=\"1ms\"/></architecture>");
        ac_diag_list_init(&d);
        assert_int_equal(ac_parser_parse_memory(big, len, "t.xml", &m, &d, &err), AC_EINPUT);
        assert_int_equal(d.count, 1);
        assert_string_equal(d.items[0].rule, "AC024");
        assert_true(strlen(d.items[0].message) < 200);
        assert_non_null(strstr(d.items[0].message,
                               "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                               "xxxxxxxxxxxxxxxx...' is unreachable"));
        ac_diag_list_clear(&d);
    }
    free(big);
    /* messages are one line: control characters become spaces, invisible ones are shown */
    ac_diag_list_init(&d);
    assert_int_equal(ac_diag_add(&d, "AC002", "f", 1, 1, NULL, "%s",
                                 "Opening and ending tag mismatch:\na line 1\r\nand\tb\n"),
                     AC_OK);
    assert_int_equal(ac_diag_add(&d, "AC021", "f", 1, 1, NULL,
                                 "names 'w\xe2\x80\xae"
                                 "eb'"),
                     AC_OK);
    assert_string_equal(d.items[0].message, "Opening and ending tag mismatch: a line 1  and b ");
    assert_string_equal(d.items[1].message, "names 'w<U+202E>eb'");
    ac_diag_list_clear(&d);
}

/* ---- files: special files refused without blocking, the digest of the bytes parsed ---- */

static void test_special_files(void **state)
{
    char dir[] = "/tmp/ac_test_parserXXXXXX";
    char fifo[64], plain[64], hex[65];
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    FILE *fp;
    (void)state;
    alarm(20); /* a watchdog: opening the FIFO used to wait for a writer forever */
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/in.xml", dir);
    snprintf(plain, sizeof plain, "%s/abc.xml", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_file_digest(fifo, hex, &m, &d, &err), AC_EINPUT);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].rule, "AC001");
    assert_int_equal(d.items[0].line, 1);
    assert_non_null(strstr(d.items[0].message, "a FIFO, not a regular file"));
    assert_string_equal(hex, "");
    ac_diag_list_clear(&d);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_file(dir, &m, &d, &err), AC_EINPUT);
    assert_non_null(strstr(d.items[0].message, "a directory"));
    ac_diag_list_clear(&d);
    /* the digest is of the bytes parsed: SHA-256("abc") (FIPS 180-2, appendix B.1) */
    fp = fopen(plain, "wb");
    assert_non_null(fp);
    fputs("abc", fp);
    fclose(fp);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_file_digest(plain, hex, &m, &d, &err), AC_EINPUT);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ac_diag_list_clear(&d);
    unlink(fifo);
    unlink(plain);
    rmdir(dir);
    alarm(0);
}

/* ---- combines: deep structures, walked without recursion ---- */

static char *combine_doc(size_t *len)
{
    char *s = malloc(8u << 20);
    assert_non_null(s);
    *len = (size_t)sprintf(s, HEAD "<pool id=\"web\" servers=\"2\" service-time=\"10ms\"/>\n");
    return s;
}

/* A chain of 99990 combines (the file's element limit is 100000) ending at one add-servers:
 * valid, and applying its head adds the servers once. */
static void test_combine_chain(void **state)
{
    const size_t n = 99990;
    size_t len;
    char *s = combine_doc(&len);
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    (void)state;
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(s + len, "<mitigation id=\"c%zu\" kind=\"combine\" of=\"c%zu\"/>\n",
                               i, i + 1);
    len += (size_t)sprintf(s + len,
                           "<mitigation id=\"c%zu\" kind=\"add-servers\" target=\"web\" "
                           "amount=\"3\"/>\n</architecture>\n",
                           n);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err), AC_OK);
    assert_non_null(m);
    assert_int_equal(count_rule(&d, "AC026"), 0);
    assert_int_equal(ac_model_apply_mitigation(m, 0, NULL, 0, &err), AC_OK);
    assert_int_equal(m->nodes[0].u.pool.servers, 5);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    /* the same chain closed into a cycle: every combine on it is refused */
    len = (size_t)(strstr(s, "<mitigation id=\"c99990\"") - s);
    len += (size_t)sprintf(s + len,
                           "<mitigation id=\"c%zu\" kind=\"combine\" of=\"c0\"/>\n"
                           "</architecture>\n",
                           n);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err), AC_EINPUT);
    assert_null(m);
    assert_int_equal(count_rule(&d, "AC026"), n + 1);
    ac_diag_list_clear(&d);
    free(s);
}

/* 40 levels of diamonds (d_k combines a_k and b_k, which both combine d_{k+1}): 2^40 paths
 * but 120 mitigations. The leaf is met once: applied once; two leaves of one kind on one
 * target at the bottom are one conflict, reported at the root. */
static void test_combine_diamonds(void **state)
{
    const size_t levels = 40;
    size_t len, bottom;
    char *s = combine_doc(&len);
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    (void)state;
    for (size_t k = 0; k < levels; k++)
        len += (size_t)sprintf(s + len,
                               "<mitigation id=\"d%zu\" kind=\"combine\" of=\"a%zu b%zu\"/>"
                               "<mitigation id=\"a%zu\" kind=\"combine\" of=\"d%zu\"/>"
                               "<mitigation id=\"b%zu\" kind=\"combine\" of=\"d%zu\"/>\n",
                               k, k, k, k, k + 1, k, k + 1);
    bottom = len;
    len += (size_t)sprintf(s + len,
                           "<mitigation id=\"d%zu\" kind=\"add-servers\" target=\"web\" "
                           "amount=\"3\"/>\n</architecture>\n",
                           levels);
    assert_true(len < 8192); /* a small file */
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err), AC_OK);
    assert_int_equal(ac_model_apply_mitigation(m, 0, NULL, 0, &err), AC_OK);
    assert_int_equal(m->nodes[0].u.pool.servers, 5);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    len = bottom;
    len += (size_t)sprintf(s + len,
                           "<mitigation id=\"d%zu\" kind=\"combine\" of=\"x y\"/>"
                           "<mitigation id=\"x\" kind=\"add-servers\" target=\"web\" "
                           "amount=\"3\"/><mitigation id=\"y\" kind=\"add-servers\" "
                           "target=\"web\" amount=\"1\"/>\n</architecture>\n",
                           levels);
    ac_diag_list_init(&d);
    assert_int_equal(ac_parser_parse_memory(s, len, "t.xml", &m, &d, &err), AC_EINPUT);
    assert_int_equal(count_rule(&d, "AC026"), 1);
    {
        const ac_diag *c = find_rule(&d, "AC026");
        assert_non_null(c);
        if (c != NULL)
            assert_non_null(strstr(c->message, "'d0' combines 'x' and 'y'"));
    }
    ac_diag_list_clear(&d);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile),          cmocka_unit_test(test_gateway_default_burst),
        cmocka_unit_test(test_magnitudes),       cmocka_unit_test(test_depth_exact),
        cmocka_unit_test(test_ids_and_messages), cmocka_unit_test(test_special_files),
        cmocka_unit_test(test_combine_chain),    cmocka_unit_test(test_combine_diamonds),
    };
    return cmocka_run_group_tests_name("parser_limits", tests, NULL, NULL);
}
