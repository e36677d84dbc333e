/*
 * End-to-end tests of the archcheck binary on hostile inputs written to temporary files:
 * too large, empty, NUL bytes, UTF-16, gzip, external entities, entity expansion, deep
 * nesting, too many elements, huge numbers; each rejected with its rule, quickly.
 */
#include "helpers.h"

#include <time.h>

#include "cli_helpers.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- hostile inputs ---- */

/* lint FILE exits 2 and names `rule` on stderr; returns how long it took. */
static double expect_rejected(const char *path, const char *rule)
{
    char tag[16];
    double t0 = now_seconds(), dt;
    ac_test_run r = run_ac("lint", path, NULL);
    dt = now_seconds() - t0;
    snprintf(tag, sizeof tag, "[%s]", rule);
    if (r.status != 2 || strstr(r.out, tag) == NULL)
        fail_msg("lint %s: expected exit 2 and %s, got exit %d:\n%s", path, rule, r.status, r.out);
    ac_test_run_free(&r);
    /* and check agrees */
    r = run_ac("check", "--format", "json", path, NULL);
    assert_int_equal(r.status, 2);
    assert_json(r.out, path);
    snprintf(tag, sizeof tag, "\"%s\"", rule);
    assert_non_null(strstr(r.out, tag));
    ac_test_run_free(&r);
    return dt;
}

static const char valid_head[] = "<architecture name=\"t\" format=\"1\">\n"
                                 "  <workload>\n"
                                 "    <source id=\"users\" to=\"web\" rate=\"200/s\"/>\n"
                                 "  </workload>\n";

static void test_hostile_too_large(void **state)
{
    char *dir = make_tmpdir();
    char *path = path_join(dir, "huge.xml");
    FILE *fp = fopen(path, "wb");
    size_t chunk = 1 << 20;
    char *pad = malloc(chunk);
    ac_test_run r;
    (void)state;
    assert_non_null(fp);
    assert_non_null(pad);
    memset(pad, 'x', chunk);
    /* a well-formed document of 17 MiB: the bulk is one comment */
    fputs(valid_head, fp);
    fputs("  <pool id=\"web\" servers=\"4\" service-time=\"20ms\"/>\n  <!--", fp);
    for (int i = 0; i < 17; i++)
        assert_int_equal(fwrite(pad, 1, chunk, fp), chunk);
    fputs("-->\n</architecture>\n", fp);
    assert_int_equal(fclose(fp), 0);
    free(pad);
    (void)expect_rejected(path, "AC005");
    r = run_ac("lint", path, NULL);
    assert_non_null(strstr(r.out, "16 MiB"));
    ac_test_run_free(&r);
    free(path);
    remove_tmpdir(dir);
}

static void test_hostile_empty(void **state)
{
    char *dir = make_tmpdir();
    char *p = write_tmp(dir, "empty.xml", "", 0);
    char *q = write_tmp_str(dir, "blank.xml", "  \n\n");
    (void)state;
    (void)expect_rejected(p, "AC002");
    (void)expect_rejected(q, "AC002");
    free(p);
    free(q);
    remove_tmpdir(dir);
}

static void test_hostile_nul_byte(void **state)
{
    static const char doc[] =
        "<architecture format=\"1\">\n  <pool id=\"w\0eb\"/>\n</architecture>\n";
    char *dir = make_tmpdir();
    char *p = write_tmp(dir, "nul.xml", doc, sizeof doc - 1);
    ac_test_run r;
    (void)state;
    (void)expect_rejected(p, "AC002");
    r = run_ac("lint", p, NULL);
    assert_non_null(strstr(r.out, "nul.xml:2:14: error: "));
    ac_test_run_free(&r);
    free(p);
    remove_tmpdir(dir);
}

/* The UTF-16 encoding of an ASCII string, with or without a byte-order mark. */
static size_t to_utf16(const char *s, unsigned char *out, int big_endian, int bom)
{
    size_t n = 0;
    if (bom) {
        out[n++] = big_endian ? 0xFE : 0xFF;
        out[n++] = big_endian ? 0xFF : 0xFE;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        out[n++] = big_endian ? 0 : c;
        out[n++] = big_endian ? c : 0;
    }
    return n;
}

static void test_hostile_utf16(void **state)
{
    const char *doc = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n"
                      "<architecture format=\"1\">\n"
                      "  <workload><source id=\"u\" to=\"w\" rate=\"1\"/></workload>\n"
                      "  <pool id=\"w\" servers=\"1\" service-time=\"1ms\"/>\n"
                      "</architecture>\n";
    unsigned char *buf = malloc(2 * strlen(doc) + 2);
    char *dir = make_tmpdir();
    ac_test_run r;
    (void)state;
    assert_non_null(buf);
    for (int variant = 0; variant < 3; variant++) {
        size_t n = to_utf16(doc, buf, variant == 1, variant < 2);
        char name[32];
        char *p;
        snprintf(name, sizeof name, "utf16-%d.xml", variant);
        p = write_tmp(dir, name, buf, n);
        (void)expect_rejected(p, "AC002");
        if (variant < 2) {
            r = run_ac("lint", p, NULL);
            assert_non_null(strstr(r.out, "UTF-16"));
            ac_test_run_free(&r);
        }
        free(p);
    }
    free(buf);
    remove_tmpdir(dir);
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* A gzip file (RFC 1952) of `data` with one stored deflate block (RFC 1951). */
static unsigned char *gzip_stored(const char *data, size_t n, size_t *out_len)
{
    unsigned char *g = malloc(n + 32);
    size_t k = 0;
    uint32_t crc = crc32_of((const unsigned char *)data, n);
    static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    assert_non_null(g);
    assert_true(n < 65536);
    memcpy(g, header, sizeof header);
    k = sizeof header;
    g[k++] = 1; /* BFINAL, BTYPE 00 (stored) */
    g[k++] = (unsigned char)(n & 0xFF);
    g[k++] = (unsigned char)(n >> 8);
    g[k++] = (unsigned char)(~n & 0xFF);
    g[k++] = (unsigned char)((~n >> 8) & 0xFF);
    memcpy(g + k, data, n);
    k += n;
    for (int i = 0; i < 4; i++)
        g[k++] = (unsigned char)((crc >> (8 * i)) & 0xFF);
    for (int i = 0; i < 4; i++)
        g[k++] = (unsigned char)((n >> (8 * i)) & 0xFF);
    *out_len = k;
    return g;
}

static void test_hostile_gzip(void **state)
{
    char *sample = read_source_file("samples/tandem.xml");
    char *dir = make_tmpdir();
    size_t n = 0;
    unsigned char *gz = gzip_stored(sample, strlen(sample), &n);
    char *p = write_tmp(dir, "tandem.xml", gz, n);
    ac_test_run r;
    (void)state;
    /* the sample itself is valid: it is the compression that must be refused */
    r = run_ac("lint", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    (void)expect_rejected(p, "AC002");
    r = run_ac("lint", p, NULL);
    assert_null(strstr(r.out, "verdict: pass"));
    ac_test_run_free(&r);
    free(p);
    free(gz);
    free(sample);
    remove_tmpdir(dir);
}

static void test_hostile_external_entity(void **state)
{
    static const char *const docs[] = {
        "<!DOCTYPE architecture [\n  <!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>\n"
        "<architecture format=\"1\" label=\"&xxe;\">\n"
        "  <workload><source id=\"u\" to=\"w\" rate=\"1\"/></workload>\n"
        "  <pool id=\"w\" servers=\"1\" service-time=\"1ms\"/>\n</architecture>\n",
        /* after an XML declaration and a comment */
        "<?xml version=\"1.0\"?>\n<!-- x -->\n<!DOCTYPE architecture SYSTEM "
        "\"file:///etc/passwd\">\n"
        "<architecture format=\"1\"/>\n",
        /* a parameter entity, after a byte-order mark */
        "\xEF\xBB\xBF<!DOCTYPE architecture [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]>\n"
        "<architecture format=\"1\"/>\n",
        /* an entity reference without any declaration */
        "<architecture format=\"1\" label=\"&xxe;\"/>\n",
    };
    char *dir = make_tmpdir();
    (void)state;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char name[32];
        char *p;
        ac_test_run r;
        snprintf(name, sizeof name, "xxe-%zu.xml", i);
        p = write_tmp_str(dir, name, docs[i]);
        (void)expect_rejected(p, "AC003");
        r = run_ac("lint", "--format", "json", p, NULL);
        assert_null(strstr(r.out, "root:"));
        assert_null(strstr(r.err, "root:"));
        ac_test_run_free(&r);
        free(p);
    }
    remove_tmpdir(dir);
}

static void test_hostile_billion_laughs(void **state)
{
    char doc[4096];
    size_t n = 0;
    char *dir = make_tmpdir();
    char *p;
    double dt;
    (void)state;
    n += (size_t)snprintf(doc + n, sizeof doc - n,
                          "<?xml version=\"1.0\"?>\n<!DOCTYPE architecture [\n"
                          "  <!ENTITY lol0 \"lol\">\n");
    for (int i = 1; i <= 9; i++) {
        n += (size_t)snprintf(doc + n, sizeof doc - n, "  <!ENTITY lol%d \"", i);
        for (int k = 0; k < 10; k++)
            n += (size_t)snprintf(doc + n, sizeof doc - n, "&lol%d;", i - 1);
        n += (size_t)snprintf(doc + n, sizeof doc - n, "\">\n");
    }
    n += (size_t)snprintf(
        doc + n, sizeof doc - n,
        "]>\n<architecture format=\"1\" label=\"&lol9;\">\n"
        "  <workload><source id=\"u\" to=\"w\" rate=\"1\"/></workload>\n"
        "  <pool id=\"w\" servers=\"1\" service-time=\"1ms\"/>\n</architecture>\n");
    assert_true(n < sizeof doc);
    p = write_tmp(dir, "lol.xml", doc, n);
    dt = expect_rejected(p, "AC003");
    if (dt > 5.0)
        fail_msg("the entity bomb took %.1f s to reject", dt);
    free(p);
    remove_tmpdir(dir);
}

static void test_hostile_deep_nesting(void **state)
{
    size_t depth = 300, cap = 64 + depth * 24;
    char *doc = malloc(cap);
    char *dir = make_tmpdir();
    char *p;
    size_t n = 0;
    (void)state;
    assert_non_null(doc);
    n += (size_t)snprintf(doc + n, cap - n, "<architecture format=\"1\">");
    for (size_t i = 0; i < depth; i++)
        n += (size_t)snprintf(doc + n, cap - n, "<workload>");
    for (size_t i = 0; i < depth; i++)
        n += (size_t)snprintf(doc + n, cap - n, "</workload>");
    n += (size_t)snprintf(doc + n, cap - n, "</architecture>\n");
    assert_true(n < cap);
    p = write_tmp(dir, "deep.xml", doc, n);
    (void)expect_rejected(p, "AC005");
    free(p);
    free(doc);
    remove_tmpdir(dir);
}

static void test_hostile_too_many_elements(void **state)
{
    size_t count = 100001, cap = 256 + count * 12;
    char *doc = malloc(cap);
    char *dir = make_tmpdir();
    char *p;
    size_t n = 0;
    (void)state;
    assert_non_null(doc);
    n += (size_t)snprintf(doc + n, cap - n, "<architecture format=\"1\">\n");
    for (size_t i = 0; i < count; i++)
        n += (size_t)snprintf(doc + n, cap - n, "<workload/>\n");
    n += (size_t)snprintf(doc + n, cap - n, "</architecture>\n");
    assert_true(n < cap);
    p = write_tmp(dir, "many.xml", doc, n);
    (void)expect_rejected(p, "AC005");
    free(p);
    free(doc);
    remove_tmpdir(dir);
}

/* A valid document with one attribute replaced; lint must report `rule` at line:col. */
static void expect_value_rejected(const char *pool_attrs, const char *source_rate, const char *rule,
                                  const char *where)
{
    char doc[1024], name[64], want[128];
    char *dir = make_tmpdir();
    char *p;
    ac_test_run r;
    snprintf(doc, sizeof doc,
             "<architecture format=\"1\">\n"
             "  <workload><source id=\"u\" to=\"w\" rate=\"%s\"/></workload>\n"
             "  <pool id=\"w\" %s/>\n"
             "</architecture>\n",
             source_rate, pool_attrs);
    snprintf(name, sizeof name, "%s.xml", rule);
    p = write_tmp_str(dir, name, doc);
    (void)expect_rejected(p, rule);
    r = run_ac("lint", p, NULL);
    snprintf(want, sizeof want, "%s:%s: error: ", p, where);
    if (strstr(r.out, want) == NULL)
        fail_msg("expected a diagnostic at %s:\n%s", where, r.out);
    ac_test_run_free(&r);
    free(p);
    remove_tmpdir(dir);
}

static void test_hostile_huge_numbers(void **state)
{
    (void)state;
    /* a rate that overflows a double */
    expect_value_rejected("servers=\"1\" service-time=\"1ms\"", "1e400", "AC011", "2:35");
    /* a trillion servers */
    expect_value_rejected("servers=\"1e12\" service-time=\"1ms\"", "1", "AC015", "3:16");
    /* a service time that overflows once converted to seconds */
    expect_value_rejected("servers=\"1\" service-time=\"1e308h\"", "1", "AC011", "3:28");
    /* a count that overflows a double */
    expect_value_rejected("servers=\"1e400\" service-time=\"1ms\"", "1", "AC011", "3:16");
    /* a number too long to be anything */
    expect_value_rejected("servers=\"1\" service-time=\"1ms\"",
                          "1000000000000000000000000000000000000000000000000000000000000000000"
                          "0000000000000000000000000000000000000000000000000000000000000000000",
                          "AC010", "2:35");
}

static void test_clean_valid_file_in_tmp(void **state)
{
    /* the hostile tests' scaffold is itself valid, so each rejection is due to its change */
    char doc[1024];
    char *dir = make_tmpdir();
    char *p;
    ac_test_run r;
    (void)state;
    snprintf(doc, sizeof doc,
             "<architecture format=\"1\">\n"
             "  <workload><source id=\"u\" to=\"w\" rate=\"1\"/></workload>\n"
             "  <pool id=\"w\" servers=\"1\" service-time=\"1ms\"/>\n"
             "</architecture>\n");
    p = write_tmp_str(dir, "ok.xml", doc);
    r = run_ac("lint", p, NULL);
    if (r.status != 0)
        fail_msg("the scaffold document is invalid:\n%s", r.out);
    ac_test_run_free(&r);
    free(p);
    p = path_join(dir, "ok2.xml");
    {
        FILE *fp = fopen(p, "w");
        assert_non_null(fp);
        fputs(valid_head, fp);
        fputs("  <pool id=\"web\" servers=\"4\" service-time=\"20ms\"/>\n</architecture>\n", fp);
        assert_int_equal(fclose(fp), 0);
    }
    r = run_ac("lint", p, NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    free(p);
    remove_tmpdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_valid_file_in_tmp),
        cmocka_unit_test(test_hostile_too_large),
        cmocka_unit_test(test_hostile_empty),
        cmocka_unit_test(test_hostile_nul_byte),
        cmocka_unit_test(test_hostile_utf16),
        cmocka_unit_test(test_hostile_gzip),
        cmocka_unit_test(test_hostile_external_entity),
        cmocka_unit_test(test_hostile_billion_laughs),
        cmocka_unit_test(test_hostile_deep_nesting),
        cmocka_unit_test(test_hostile_too_many_elements),
        cmocka_unit_test(test_hostile_huge_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
