/*
 * End-to-end tests of the archcheck binary (AC_TEST_BIN, run with the working
 * directory AC_SOURCE_DIR): the bad samples and their expected diagnostics,
 * the good samples in every output format, the command line, output files,
 * and hostile inputs written to temporary files.
 */
#include "helpers.h"

#include "cli_helpers.h"

#define BAD_DIR  "samples/bad"
#define GOOD_DIR "samples"

/* "samples/bad/AC012-duration-unit.xml" -> "samples/bad/AC012-duration-unit.expected" */
static char *expected_path(const char *xml_rel)
{
    size_t n = strlen(xml_rel);
    char *p = malloc(n + 16);
    assert_non_null(p);
    assert_true(ends_with(xml_rel, ".xml"));
    memcpy(p, xml_rel, n - 4);
    strcpy(p + n - 4, ".expected");
    return p;
}

/* The text of the string value of the first "key" at or after `from`, copied into buf. */
static const char *json_find_string(const char *from, const char *key, char *buf, size_t size)
{
    char pat[128];
    const char *p, *q;
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    p = strstr(from, pat);
    if (p == NULL)
        return NULL;
    p += strlen(pat);
    q = strchr(p, '"');
    if (q == NULL || (size_t)(q - p) >= size)
        return NULL;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = '\0';
    return q;
}

/* The number value of the first "key" at or after `from`; -1 if absent. */
static long json_find_long(const char *from, const char *key, const char **after)
{
    char pat[128];
    const char *p;
    char *end;
    long v;
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    p = strstr(from, pat);
    if (p == NULL)
        return -1;
    p += strlen(pat);
    v = strtol(p, &end, 10);
    if (end == p)
        return -1;
    if (after != NULL)
        *after = end;
    return v;
}

/* ---- the first diagnostic of an .expected file ---- */

typedef struct first_diag {
    int exit_status;
    unsigned line, column;
    char rule[16];
} first_diag;

/* Parse "# exit N" and the first "FILE:LINE:COL: SEV: MESSAGE [RULE]" line. */
static int parse_expected(const char *expected, const char *file, first_diag *fd)
{
    const char *l2, *lb, *rb, *eol;
    size_t flen = strlen(file);
    memset(fd, 0, sizeof *fd);
    if (sscanf(expected, "# exit %d", &fd->exit_status) != 1)
        return -1;
    l2 = strchr(expected, '\n');
    if (l2 == NULL)
        return -1;
    l2++;
    if (strncmp(l2, file, flen) != 0 || l2[flen] != ':')
        return -1;
    if (sscanf(l2 + flen, ":%u:%u:", &fd->line, &fd->column) != 2)
        return -1;
    eol = strchr(l2, '\n');
    if (eol == NULL)
        return -1;
    rb = eol - 1;
    lb = rb;
    while (lb > l2 && *lb != '[')
        lb--;
    if (*rb != ']' || *lb != '[' || (size_t)(rb - lb - 1) >= sizeof fd->rule)
        return -1;
    memcpy(fd->rule, lb + 1, (size_t)(rb - lb - 1));
    fd->rule[rb - lb - 1] = '\0';
    return 0;
}

/* ---- bad samples ---- */

/* Every samples/bad/NAME.xml: lint's exit status and stderr are exactly NAME.expected. */
static void test_bad_samples_match_expected(void **state)
{
    name_list l = list_dir(BAD_DIR, ".xml");
    size_t mismatches = 0;
    (void)state;
    if (l.count < 30)
        fail_msg("expected at least 30 bad samples in " BAD_DIR ", found %zu", l.count);
    for (size_t i = 0; i < l.count; i++) {
        char *rel = path_join(BAD_DIR, l.names[i]);
        char *exp_rel = expected_path(rel);
        char *expected = read_source_file(exp_rel);
        ac_test_run r = run_ac("lint", rel, NULL);
        size_t n = strlen(r.out) + 32;
        char *actual = malloc(n);
        assert_non_null(actual);
        snprintf(actual, n, "# exit %d\n%s", r.status, r.out);
        if (strcmp(actual, expected) != 0) {
            print_message("MISMATCH %s\n--- expected (%s)\n%s--- actual\n%s---\n", rel, exp_rel,
                          expected, actual);
            mismatches++;
        }
        if (r.err[0] != '\0') {
            print_message("%s: lint printed on stderr:\n%s\n", rel, r.err);
            mismatches++;
        }
        free(actual);
        ac_test_run_free(&r);
        free(expected);
        free(exp_rel);
        free(rel);
    }
    name_list_free(&l);
    assert_int_equal(mismatches, 0);
}

/* The fixtures themselves: every .xml has its .expected and vice versa, opens with an XML
 * comment, is named after its rule, and triggers that rule only (no unrelated noise). */
static void test_bad_samples_are_consistent(void **state)
{
    name_list xml = list_dir(BAD_DIR, ".xml");
    name_list exp = list_dir(BAD_DIR, ".expected");
    (void)state;
    assert_int_equal(xml.count, exp.count);
    for (size_t i = 0; i < xml.count; i++) {
        char *rel = path_join(BAD_DIR, xml.names[i]);
        char *exp_rel = expected_path(rel);
        char *text = read_source_file(rel);
        char *expected = read_source_file(exp_rel);
        char rule[8];
        first_diag fd;
        const char *line;
        size_t diags = 0;
        unsigned d1, d2, d3;
        /* NAME is ACnnn-something.xml */
        if (sscanf(xml.names[i], "AC%1u%1u%1u-", &d1, &d2, &d3) != 3 || xml.names[i][5] != '-')
            fail_msg("%s is not named after its rule (ACnnn-what.xml)", rel);
        memcpy(rule, xml.names[i], 5);
        rule[5] = '\0';
        if (!starts_with(text, "<!--"))
            fail_msg("%s does not start with an XML comment explaining the mistake", rel);
        if (parse_expected(expected, rel, &fd) != 0)
            fail_msg("%s does not start with '# exit N' and a diagnostic of %s", exp_rel, rel);
        /* every diagnostic line carries the file's rule */
        for (line = strchr(expected, '\n') + 1; *line != '\0';) {
            const char *eol = strchr(line, '\n');
            size_t len = eol != NULL ? (size_t)(eol - line) : strlen(line);
            if (starts_with(line, rel)) {
                char tag[16];
                snprintf(tag, sizeof tag, "[%s]", rule);
                diags++;
                if (len < strlen(tag) || strncmp(line + len - strlen(tag), tag, strlen(tag)) != 0)
                    fail_msg("%s: a diagnostic of another rule than %s:\n%.*s", exp_rel, rule,
                             (int)len, line);
            } else if (line[0] != ' ' && !starts_with(line, "1 file: ")) {
                fail_msg("%s: unexpected line:\n%.*s", exp_rel, (int)len, line);
            }
            line += len + (eol != NULL);
        }
        assert_true(diags >= 1);
        assert_string_equal(fd.rule, rule);
        /* errors exit 2; a file with warnings only exits 0 */
        if (strstr(expected, ": error: ") != NULL)
            assert_int_equal(fd.exit_status, 2);
        else
            assert_int_equal(fd.exit_status, 0);
        free(expected);
        free(text);
        free(exp_rel);
        free(rel);
    }
    name_list_free(&xml);
    name_list_free(&exp);
}

/* lint --format sarif on each bad file: SARIF 2.1.0 whose first result is the first
 * diagnostic of the text output (rule, line, column), with the path as given. */
static void test_bad_samples_sarif(void **state)
{
    name_list l = list_dir(BAD_DIR, ".xml");
    (void)state;
    assert_true(l.count > 0);
    for (size_t i = 0; i < l.count; i++) {
        char *rel = path_join(BAD_DIR, l.names[i]);
        char *exp_rel = expected_path(rel);
        char *expected = read_source_file(exp_rel);
        ac_test_run r = run_ac("lint", "--format", "sarif", rel, NULL);
        first_diag fd;
        char buf[256], uri[512];
        const char *results, *after = NULL;
        assert_int_equal(parse_expected(expected, rel, &fd), 0);
        if (r.status != fd.exit_status)
            fail_msg("%s: lint --format sarif exits %d, lint exits %d", rel, r.status,
                     fd.exit_status);
        assert_json(r.out, rel);
        assert_non_null(strstr(r.out, "\"version\": \"2.1.0\""));
        assert_non_null(strstr(r.out, "\"name\": \"archcheck\""));
        results = strstr(r.out, "\"results\"");
        assert_non_null(results);
        assert_non_null(json_find_string(results, "ruleId", buf, sizeof buf));
        if (strcmp(buf, fd.rule) != 0)
            fail_msg("%s: first SARIF ruleId %s, text diagnostic %s", rel, buf, fd.rule);
        assert_non_null(json_find_string(results, "uri", uri, sizeof uri));
        assert_string_equal(uri, rel);
        if (json_find_long(results, "startLine", &after) != (long)fd.line ||
            json_find_long(after, "startColumn", NULL) != (long)fd.column)
            fail_msg("%s: SARIF location is not %u:%u:\n%s", rel, fd.line, fd.column, r.out);
        /* the rule that fired is described in tool.driver.rules */
        snprintf(uri, sizeof uri, "\"id\": \"%s\"", fd.rule);
        assert_non_null(strstr(r.out, uri));
        ac_test_run_free(&r);
        free(expected);
        free(exp_rel);
        free(rel);
    }
    name_list_free(&l);
}

/* lint --format json on each bad file: valid JSON whose first finding is the first
 * diagnostic of the text output. */
static void test_bad_samples_json(void **state)
{
    name_list l = list_dir(BAD_DIR, ".xml");
    (void)state;
    for (size_t i = 0; i < l.count; i++) {
        char *rel = path_join(BAD_DIR, l.names[i]);
        char *exp_rel = expected_path(rel);
        char *expected = read_source_file(exp_rel);
        ac_test_run r = run_ac("lint", "--format", "json", rel, NULL);
        first_diag fd;
        char buf[512];
        const char *findings, *after = NULL;
        assert_int_equal(parse_expected(expected, rel, &fd), 0);
        assert_int_equal(r.status, fd.exit_status);
        assert_json(r.out, rel);
        assert_non_null(json_find_string(r.out, "file", buf, sizeof buf));
        assert_string_equal(buf, rel);
        findings = strstr(r.out, "\"findings\"");
        assert_non_null(findings);
        assert_non_null(json_find_string(findings, "rule", buf, sizeof buf));
        assert_string_equal(buf, fd.rule);
        if (json_find_long(findings, "line", &after) != (long)fd.line ||
            json_find_long(after, "column", NULL) != (long)fd.column)
            fail_msg("%s: JSON location is not %u:%u:\n%s", rel, fd.line, fd.column, r.out);
        ac_test_run_free(&r);
        free(expected);
        free(exp_rel);
        free(rel);
    }
    name_list_free(&l);
}

/* ---- good samples ---- */

static void test_good_samples_lint_text(void **state)
{
    name_list l = list_dir(GOOD_DIR, ".xml");
    (void)state;
    assert_true(l.count >= 1);
    for (size_t i = 0; i < l.count; i++) {
        char *rel = path_join(GOOD_DIR, l.names[i]);
        ac_test_run r = run_ac("lint", rel, NULL);
        const char *last;
        size_t n = strlen(r.out);
        if (r.status != 0 || strstr(r.out, ": error: ") != NULL)
            fail_msg("lint %s exits %d:\n%s", rel, r.status, r.out);
        /* the summary is the last line */
        assert_true(n > 0 && r.out[n - 1] == '\n');
        last = r.out + n - 1;
        while (last > r.out && last[-1] != '\n')
            last--;
        if (!starts_with(last, "1 file: 0 errors, ") || strstr(last, "verdict: pass\n") == NULL)
            fail_msg("lint %s: no summary line of a valid file:\n%s", rel, r.out);
        assert_string_equal(r.err, "");
        ac_test_run_free(&r);
        free(rel);
    }
    name_list_free(&l);
}

static int have_sha256sum(void)
{
    return access("/usr/bin/sha256sum", X_OK) == 0;
}

static void test_good_samples_lint_json(void **state)
{
    name_list l = list_dir(GOOD_DIR, ".xml");
    (void)state;
    assert_true(l.count >= 1);
    for (size_t i = 0; i < l.count; i++) {
        char *rel = path_join(GOOD_DIR, l.names[i]);
        ac_test_run r = run_ac("lint", "--format", "json", rel, NULL);
        char sha[128], file[512];
        if (r.status != 0)
            fail_msg("lint --format json %s exits %d:\n%s%s", rel, r.status, r.out, r.err);
        assert_json(r.out, rel);
        if (strstr(r.out, "\"verdict\": \"pass\"") == NULL)
            fail_msg("lint --format json %s: no \"verdict\": \"pass\":\n%s", rel, r.out);
        assert_non_null(json_find_string(r.out, "file", file, sizeof file));
        assert_string_equal(file, rel);
        assert_non_null(json_find_string(r.out, "sha256", sha, sizeof sha));
        assert_int_equal(strlen(sha), 64);
        for (size_t k = 0; k < 64; k++)
            if (!((sha[k] >= '0' && sha[k] <= '9') || (sha[k] >= 'a' && sha[k] <= 'f')))
                fail_msg("sha256 of %s is not lower-case hex: %s", rel, sha);
        if (have_sha256sum()) {
            char *argv[] = {strdup("/usr/bin/sha256sum"), strdup(rel), NULL};
            ac_test_run h;
            assert_non_null(argv[0]);
            assert_non_null(argv[1]);
            h = ac_test_exec(AC_SOURCE_DIR, argv);
            assert_int_equal(h.status, 0);
            if (strncmp(h.out, sha, 64) != 0)
                fail_msg("sha256 of %s: archcheck says %s, sha256sum says %.64s", rel, sha, h.out);
            ac_test_run_free(&h);
            free(argv[0]);
            free(argv[1]);
        }
        assert_string_equal(r.err, "");
        ac_test_run_free(&r);
        free(rel);
    }
    name_list_free(&l);
}

static void test_good_samples_lint_sarif(void **state)
{
    name_list l = list_dir(GOOD_DIR, ".xml");
    (void)state;
    for (size_t i = 0; i < l.count; i++) {
        char *rel = path_join(GOOD_DIR, l.names[i]);
        ac_test_run r = run_ac("lint", "--format", "sarif", rel, NULL);
        assert_int_equal(r.status, 0);
        assert_json(r.out, rel);
        assert_non_null(strstr(r.out, "\"version\": \"2.1.0\""));
        assert_null(strstr(r.out, "\"level\": \"error\""));
        ac_test_run_free(&r);
        free(rel);
    }
    name_list_free(&l);
}

/* Several files at once: one invalid file makes the run exit 2; both are reported. */
static void test_lint_several_files(void **state)
{
    ac_test_run r =
        run_ac("lint", "samples/tandem.xml", "samples/bad/AC012-duration-unit.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "samples/bad/AC012-duration-unit.xml:9:30: error: "));
    assert_non_null(strstr(r.out, "2 files: 1 error"));
    assert_null(strstr(r.out, "samples/tandem.xml:"));
    ac_test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_samples_match_expected),
        cmocka_unit_test(test_bad_samples_are_consistent),
        cmocka_unit_test(test_bad_samples_sarif),
        cmocka_unit_test(test_bad_samples_json),
        cmocka_unit_test(test_good_samples_lint_text),
        cmocka_unit_test(test_good_samples_lint_json),
        cmocka_unit_test(test_good_samples_lint_sarif),
        cmocka_unit_test(test_lint_several_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
