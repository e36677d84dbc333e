/*
 * End-to-end tests of the archcheck binary (AC_TEST_BIN, run with the working
 * directory AC_SOURCE_DIR): the bad samples and their expected diagnostics,
 * the good samples in every output format, the command line, output files,
 * and hostile inputs written to temporary files.
 */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#define BAD_DIR "samples/bad"
#define GOOD_DIR "samples"

/* ---- running the binary ---- */


/* ---- small string and file helpers ---- */

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

#define path_join(a, b) ac_test_path_join((a), (b)) /* helpers.h */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct name_list {
    char **names;
    size_t count;
} name_list;

/* The entries of dir (relative to AC_SOURCE_DIR if not absolute) whose names end in
 * `suffix` (NULL: every entry but . and ..), sorted. */
static name_list list_dir(const char *dir, const char *suffix)
{
    name_list l = {NULL, 0};
    size_t cap = 0;
    char *full = dir[0] == '/' ? strdup(dir) : path_join(AC_SOURCE_DIR, dir);
    DIR *d;
    struct dirent *e;
    assert_non_null(full);
    d = opendir(full);
    if (d == NULL)
        fail_msg("cannot open the directory %s: %s", full, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (suffix != NULL && !ends_with(e->d_name, suffix))
            continue;
        if (l.count == cap) {
            char **t;
            cap = cap ? 2 * cap : 32;
            t = realloc(l.names, cap * sizeof *t);
            assert_non_null(t);
            l.names = t;
        }
        l.names[l.count] = strdup(e->d_name);
        assert_non_null(l.names[l.count]);
        l.count++;
    }
    closedir(d);
    free(full);
    if (l.count > 1)
        qsort(l.names, l.count, sizeof *l.names, cmp_names);
    return l;
}

static void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

/* A file of the source tree, read whole (NUL-terminated). */
static char *read_source_file(const char *rel)
{
    char *full = path_join(AC_SOURCE_DIR, rel);
    char *s = ac_test_read_file(full);
    if (s == NULL)
        fail_msg("cannot read %s", full);
    free(full);
    return s;
}

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

/* Temporary directories and files: helpers.h */
#define make_tmpdir()  ac_test_mkdtemp("cli")
#define remove_tmpdir  ac_test_rmdir
#define write_tmp      ac_test_write_file

static char *write_tmp_str(const char *dir, const char *name, const char *text)
{
    return write_tmp(dir, name, text, strlen(text));
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- a strict JSON syntax checker (RFC 8259), enough to catch broken output ---- */

typedef struct json_in {
    const char *p;
    int depth;
} json_in;

static void json_ws(json_in *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
        j->p++;
}

static int json_value(json_in *j);

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int json_string(json_in *j)
{
    if (*j->p != '"')
        return 0;
    j->p++;
    for (;;) {
        unsigned char c = (unsigned char)*j->p;
        if (c == '\0' || c < 0x20)
            return 0;
        if (c == '"') {
            j->p++;
            return 1;
        }
        if (c == '\\') {
            char e = j->p[1];
            if (e == 'u') {
                for (int k = 2; k < 6; k++)
                    if (!is_hex(j->p[k]))
                        return 0;
                j->p += 6;
                continue;
            }
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0')
                return 0;
            j->p += 2;
            continue;
        }
        j->p++;
    }
}

static int json_digits(json_in *j)
{
    const char *s = j->p;
    while (*j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > s;
}

static int json_number(json_in *j)
{
    if (*j->p == '-')
        j->p++;
    if (*j->p == '0')
        j->p++;
    else if (!json_digits(j))
        return 0;
    if (*j->p == '.') {
        j->p++;
        if (!json_digits(j))
            return 0;
    }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-')
            j->p++;
        if (!json_digits(j))
            return 0;
    }
    return 1;
}

static int json_container(json_in *j, char close, int is_object)
{
    j->p++;
    if (++j->depth > 64)
        return 0;
    json_ws(j);
    if (*j->p == close) {
        j->p++;
        j->depth--;
        return 1;
    }
    for (;;) {
        json_ws(j);
        if (is_object) {
            if (!json_string(j))
                return 0;
            json_ws(j);
            if (*j->p != ':')
                return 0;
            j->p++;
        }
        if (!json_value(j))
            return 0;
        json_ws(j);
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p != close)
            return 0;
        j->p++;
        j->depth--;
        return 1;
    }
}

static int json_value(json_in *j)
{
    json_ws(j);
    switch (*j->p) {
    case '{': return json_container(j, '}', 1);
    case '[': return json_container(j, ']', 0);
    case '"': return json_string(j);
    case 't': return strncmp(j->p, "true", 4) == 0 ? (j->p += 4, 1) : 0;
    case 'f': return strncmp(j->p, "false", 5) == 0 ? (j->p += 5, 1) : 0;
    case 'n': return strncmp(j->p, "null", 4) == 0 ? (j->p += 4, 1) : 0;
    default: return json_number(j);
    }
}

/* Is `text` exactly one JSON value (surrounded by blanks)? */
static int is_json(const char *text)
{
    json_in j = {text, 0};
    if (!json_value(&j))
        return 0;
    json_ws(&j);
    return *j.p == '\0';
}

static void assert_json(const char *text, const char *what)
{
    if (!is_json(text))
        fail_msg("%s is not valid JSON:\n%s", what, text);
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
    ac_test_run r = run_ac("lint", "samples/tandem.xml", "samples/bad/AC012-duration-unit.xml",
                           NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "samples/bad/AC012-duration-unit.xml:9:30: error: "));
    assert_non_null(strstr(r.out, "2 files: 1 error"));
    assert_null(strstr(r.out, "samples/tandem.xml:"));
    ac_test_run_free(&r);
}

/* ---- the command line ---- */

static void test_version(void **state)
{
    ac_test_run r = run_ac("--version", NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "archcheck "));
    assert_true(r.out[strlen("archcheck ")] >= '0' && r.out[strlen("archcheck ")] <= '9');
    assert_true(ends_with(r.out, "\n"));
    ac_test_run_free(&r);
    r = run_ac("-V", NULL);
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "archcheck "));
    ac_test_run_free(&r);
}

static void test_help(void **state)
{
    ac_test_run r = run_ac("--help", NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "usage: archcheck"));
    assert_non_null(strstr(r.out, "lint"));
    assert_non_null(strstr(r.out, "check"));
    assert_string_equal(r.err, "");
    ac_test_run_free(&r);
    r = run_ac("-h", NULL);
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "usage: archcheck"));
    ac_test_run_free(&r);
}

static void test_no_command(void **state)
{
    ac_test_run r = run_ac(NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "usage:"));
    ac_test_run_free(&r);
}

static void test_unknown_command(void **state)
{
    ac_test_run r = run_ac("frobnicate", "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "frobnicate"));
    assert_string_equal(r.out, "");
    ac_test_run_free(&r);
}

static void test_lint_without_file(void **state)
{
    ac_test_run r = run_ac("lint", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_true(r.err[0] != '\0');
    assert_string_equal(r.out, "");
    ac_test_run_free(&r);
}

static void test_lint_bad_format(void **state)
{
    ac_test_run r = run_ac("lint", "--format", "xml", "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "xml"));
    assert_string_equal(r.out, "");
    ac_test_run_free(&r);
    /* junit is a format of check, not of lint */
    r = run_ac("lint", "--format", "junit", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
}

static void test_lint_unknown_option(void **state)
{
    ac_test_run r = run_ac("lint", "--frobnicate", "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_true(r.err[0] != '\0');
    ac_test_run_free(&r);
}

static void test_lint_missing_file(void **state)
{
    ac_test_run r = run_ac("lint", "samples/no-such-file.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "samples/no-such-file.xml"));
    assert_non_null(strstr(r.out, "[AC001]"));
    ac_test_run_free(&r);
    /* a directory is searched for architecture files (samples/bad among them) */
    r = run_ac("lint", "samples", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "samples/bad/AC012-duration-unit.xml:9:30: error: "));
    assert_null(strstr(r.out, "it is a directory"));
    ac_test_run_free(&r);
}

/* The input rules, AC001..AC031 (ids 007-009 and 019 are not used). */
static const char *const input_rules[] = {
    "AC001", "AC002", "AC003", "AC004", "AC005", "AC006", "AC010", "AC011", "AC012",
    "AC013", "AC014", "AC015", "AC016", "AC017", "AC018", "AC020", "AC021", "AC022",
    "AC023", "AC024", "AC025", "AC026", "AC027", "AC028", "AC029", "AC030", "AC031"};

static void test_rules_text(void **state)
{
    ac_test_run r = run_ac("rules", NULL);
    char prev[8] = "";
    size_t lines = 0;
    (void)state;
    assert_int_equal(r.status, 0);
    /* one rule per line, "ACnnn  severity  name  summary", in id order, no duplicate */
    for (const char *line = r.out; *line != '\0';) {
        const char *eol = strchr(line, '\n');
        char id[8];
        unsigned d1, d2, d3;
        assert_non_null(eol);
        if (sscanf(line, "AC%1u%1u%1u", &d1, &d2, &d3) != 3 || line[5] != ' ')
            fail_msg("rules: a line that does not start with a rule id:\n%.*s", (int)(eol - line),
                     line);
        memcpy(id, line, 5);
        id[5] = '\0';
        if (strcmp(prev, id) >= 0)
            fail_msg("rules: %s follows %s", id, prev);
        memcpy(prev, id, sizeof id);
        if (strstr(line, " error ") == NULL && strstr(line, " warning ") == NULL &&
            strstr(line, " note ") == NULL)
            fail_msg("rules: no severity in:\n%.*s", (int)(eol - line), line);
        lines++;
        line = eol + 1;
    }
    for (size_t i = 0; i < sizeof input_rules / sizeof input_rules[0]; i++) {
        char pat[16];
        snprintf(pat, sizeof pat, "%s  ", input_rules[i]);
        if (!starts_with(r.out, pat)) {
            snprintf(pat, sizeof pat, "\n%s  ", input_rules[i]);
            if (strstr(r.out, pat) == NULL)
                fail_msg("rules does not list %s", input_rules[i]);
        }
    }
    assert_true(lines >= sizeof input_rules / sizeof input_rules[0]);
    assert_true(starts_with(r.out, "AC001  error"));
    assert_non_null(strstr(r.out, "\nAC031  error"));
    assert_non_null(strstr(r.out, "\nAC900  warning"));
    ac_test_run_free(&r);
}

static void test_rules_json(void **state)
{
    ac_test_run r = run_ac("rules", "--format", "json", NULL);
    ac_test_run t;
    const char *p;
    size_t ids = 0, lines = 0;
    (void)state;
    assert_int_equal(r.status, 0);
    assert_json(r.out, "rules --format json");
    p = r.out;
    while (*p == ' ' || *p == '\n')
        p++;
    assert_int_equal(*p, '[');
    for (size_t i = 0; i < sizeof input_rules / sizeof input_rules[0]; i++) {
        char pat[32];
        snprintf(pat, sizeof pat, "\"id\": \"%s\"", input_rules[i]);
        if (strstr(r.out, pat) == NULL)
            fail_msg("rules --format json lacks %s", pat);
    }
    for (p = r.out; (p = strstr(p, "\"id\": ")) != NULL; p++)
        ids++;
    /* as many entries as the text listing has lines */
    t = run_ac("rules", NULL);
    for (p = t.out; *p != '\0'; p++)
        lines += *p == '\n';
    assert_int_equal(ids, lines);
    assert_non_null(strstr(r.out, "\"severity\": \"warning\""));
    ac_test_run_free(&t);
    ac_test_run_free(&r);
}

static void test_rules_bad_arguments(void **state)
{
    ac_test_run r = run_ac("rules", "--format", "sarif", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("rules", "extra", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
}

static void test_schema(void **state)
{
    ac_test_run r = run_ac("schema", NULL);
    char *xsd = read_source_file("schema/archcheck.xsd");
    (void)state;
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "<?xml"));
    assert_int_equal(strlen(r.out), strlen(xsd));
    if (strcmp(r.out, xsd) != 0)
        fail_msg("archcheck schema differs from schema/archcheck.xsd");
    assert_string_equal(r.err, "");
    free(xsd);
    ac_test_run_free(&r);
    r = run_ac("schema", "extra", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
}

/* Every command listed by `archcheck --help` accepts --help and -h. */
static void test_subcommand_help(void **state)
{
    ac_test_run h = run_ac("--help", NULL);
    const char *p = strstr(h.out, "commands:\n");
    size_t n = 0;
    (void)state;
    assert_non_null(p);
    p += strlen("commands:\n");
    while (starts_with(p, "  ") && p[2] != ' ') {
        char cmd[32];
        const char *eol = strchr(p, '\n');
        ac_test_run r;
        char usage[64];
        assert_non_null(eol);
        assert_int_equal(sscanf(p, "%31s", cmd), 1);
        snprintf(usage, sizeof usage, "usage: archcheck %s", cmd);
        r = run_ac(cmd, "--help", NULL);
        if (r.status != 0 || !starts_with(r.out, usage))
            fail_msg("archcheck %s --help exits %d and prints:\n%s%s", cmd, r.status, r.out, r.err);
        ac_test_run_free(&r);
        r = run_ac(cmd, "-h", NULL);
        if (r.status != 0 || !starts_with(r.out, usage))
            fail_msg("archcheck %s -h exits %d and prints:\n%s%s", cmd, r.status, r.out, r.err);
        ac_test_run_free(&r);
        n++;
        p = eol + 1;
    }
    /* at least check, lint, rules and schema */
    assert_true(n >= 4);
    ac_test_run_free(&h);
}

/* ---- check and its output file ---- */

static void test_check_bad_file(void **state)
{
    ac_test_run r = run_ac("check", "samples/bad/AC012-duration-unit.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    /* check prints its results, diagnostics included, on stdout */
    assert_non_null(strstr(r.out, "samples/bad/AC012-duration-unit.xml:9:30: error: "));
    assert_non_null(strstr(r.out, "[AC012]"));
    ac_test_run_free(&r);
    r = run_ac("check", "--format", "json", "samples/bad/AC021-dangling-reference.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_json(r.out, "check --format json on a bad file");
    assert_non_null(strstr(r.out, "\"rule\": \"AC021\""));
    assert_null(strstr(r.out, "\"verdict\": \"pass\""));
    ac_test_run_free(&r);
}

static void test_check_usage_errors(void **state)
{
    ac_test_run r = run_ac("check", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("check", "--fail-on", "sometimes", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("check", "--seed", "-1", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("check", "--jobs", "0", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("check", "--format", "csv", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
}

static void test_check_output_file(void **state)
{
    char *dir = make_tmpdir();
    char *out = path_join(dir, "out.json");
    name_list l;
    char *text;
    ac_test_run r;
    (void)state;
    for (int round = 0; round < 2; round++) { /* the second run replaces the file */
        r = run_ac("check", "-o", out, "--format", "json", "--no-search", "samples/tandem.xml",
                   NULL);
        if (r.status == 2)
            fail_msg("check -o %s exits 2:\n%s", out, r.err);
        assert_string_equal(r.out, "");
        ac_test_run_free(&r);
        text = ac_test_read_file(out);
        assert_non_null(text);
        assert_json(text, out);
        assert_non_null(strstr(text, "\"file\": \"samples/tandem.xml\""));
        assert_non_null(strstr(text, "\"verdict\": "));
        free(text);
        /* no temporary file left beside it */
        l = list_dir(dir, NULL);
        if (l.count != 1)
            fail_msg("%s holds %zu entries after check -o (e.g. %s)", dir, l.count,
                     l.count > 0 ? l.names[0] : "");
        assert_string_equal(l.names[0], "out.json");
        name_list_free(&l);
    }
    free(out);
    remove_tmpdir(dir);
}

static void test_check_output_unwritable(void **state)
{
    char *dir = make_tmpdir();
    char *missing = path_join(dir, "missing/x.json");
    char *sub = path_join(dir, "sub");
    name_list l;
    ac_test_run r;
    (void)state;
    if (access("/nonexistent-dir", F_OK) != 0) {
        r = run_ac("check", "-o", "/nonexistent-dir/x.json", "samples/tandem.xml", NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "/nonexistent-dir/x.json"));
        assert_string_equal(r.out, "");
        assert_int_not_equal(access("/nonexistent-dir", F_OK), 0);
        ac_test_run_free(&r);
    }
    /* a missing directory inside our own: nothing is created */
    r = run_ac("check", "-o", missing, "--format", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "archcheck: "));
    assert_non_null(strstr(r.err, "x.json"));
    ac_test_run_free(&r);
    l = list_dir(dir, NULL);
    assert_int_equal(l.count, 0);
    name_list_free(&l);
    /* the output path is a directory: rename fails, the temporary file is removed */
    assert_int_equal(mkdir(sub, 0700), 0);
    r = run_ac("check", "-o", sub, "--format", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "sub"));
    ac_test_run_free(&r);
    l = list_dir(dir, NULL);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.names[0], "sub");
    name_list_free(&l);
    l = list_dir(sub, NULL);
    assert_int_equal(l.count, 0);
    name_list_free(&l);
    free(sub);
    free(missing);
    remove_tmpdir(dir);
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
    static const char doc[] = "<architecture format=\"1\">\n  <pool id=\"w\0eb\"/>\n</architecture>\n";
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
        "<?xml version=\"1.0\"?>\n<!-- x -->\n<!DOCTYPE architecture SYSTEM \"file:///etc/passwd\">\n"
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
    n += (size_t)snprintf(doc + n, sizeof doc - n,
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
static void expect_value_rejected(const char *pool_attrs, const char *source_rate,
                                  const char *rule, const char *where)
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


/* ---- analysis commands: check verdicts, solve, simulate ---- */

/* The verdict (exit status) of `check` on every good sample, as the samples' README
 * explains for this version. */
static void test_check_sample_verdicts(void **state)
{
    static const struct {
        const char *file;
        int status;
        const char *rule; /* a rule that must be reported, or NULL */
    } cases[] = {
        {"samples/tandem.xml", 0, NULL},
        {"samples/web-tier.xml", 0, NULL},
        {"samples/overloaded.xml", 1, "[AC101]"},
        {"samples/retry-storm.xml", 1, "[AC103]"},
        {"samples/checkout.xml", 1, "[AC202]"},
        {"samples/closed-network.xml", 0, NULL},
        {"samples/autoscaled-api.xml", 0, NULL},
        {"samples/serverless-pipeline.xml", 1, "[AC203]"},
        {"samples/thumbnail-service.xml", 0, NULL},
        {"samples/faas-cascade.xml", 0, NULL},
        {"samples/daily-web-tier.xml", 0, NULL},
        {"samples/control-plane.xml", 1, "[AC205]"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* --no-search: serverless-pipeline's two resilience searches (2 x 2,200 transient
           evaluations) are not what this test is about */
        ac_test_run r = run_ac("check", "--color", "never", "--no-search", cases[i].file, NULL);
        if (r.status != cases[i].status)
            fail_msg("check %s: exit %d, expected %d\n%s", cases[i].file, r.status,
                     cases[i].status, r.out);
        if (cases[i].rule != NULL && strstr(r.out, cases[i].rule) == NULL)
            fail_msg("check %s: no %s in\n%s", cases[i].file, cases[i].rule, r.out);
        if (cases[i].status == 0)
            assert_non_null(strstr(r.out, "verdict: pass"));
        ac_test_run_free(&r);
    }
}

static void test_check_json_keys(void **state)
{
    ac_test_run r = run_ac("check", "--format", "json", "samples/web-tier.xml", NULL);
    static const char *const keys[] = {
        "\"archcheck\": ", "\"file\": \"samples/web-tier.xml\"", "\"sha256\": ",
        "\"verdict\": \"pass\"", "\"findings\": ", "\"nodes\": ", "\"arrival_rate\": 1300",
        "\"utilization\": 0.65", "\"mean_jobs\": ", "\"p95_response_time\": ",
        "\"approximation\": \"refined\"", "\"equilibria\": ", "\"stable\": true",
        "\"max_real_eigenvalue\": ", "\"end_to_end\": ", "\"headroom\": ",
        "\"bottleneck\": \"web\"", "\"checks\": "};
    (void)state;
    assert_int_equal(r.status, 0);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strstr(r.out, keys[i]) == NULL)
            fail_msg("check --format json: no %s in\n%s", keys[i], r.out);
    ac_test_run_free(&r);
}

/* The retry storm: the metastable finding names both equilibria and the simulation shows
 * that each basin holds. */
static void test_check_metastable(void **state)
{
    ac_test_run r = run_ac("check", "--color", "never", "samples/retry-storm.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "two stable equilibria"));
    assert_non_null(strstr(r.out, "good equilibrium: 1.1"));
    assert_non_null(strstr(r.out, "bad equilibrium: 39.6"));
    assert_non_null(strstr(r.out, "smallest burst"));
    assert_non_null(strstr(r.out, "(stays good)"));
    assert_non_null(strstr(r.out, "stays bad: the failure mode is real"));
    /* the burst the solver names (1.5 times it) tips the simulated pool in most runs */
    {
        const char *p = strstr(r.out, "independent runs end in the bad state");
        unsigned k = 0, n = 0;
        assert_non_null(p);
        while (p > r.out && p[-1] != ':')
            p--;
        assert_int_equal(sscanf(p, " %u of %u", &k, &n), 2);
        assert_int_equal(n, 5);
        assert_true(k >= 3);
    }
    ac_test_run_free(&r);
}

/* `archcheck size` on the two capacity samples: the counts of their hand computations
 * (utilisation 0.8 binds: ceil(lambda / (mu x 0.8)) at the load and at the headroom). */
/* In the "sizing" array of a JSON output, the row of node `id` has `needed` and
 * `with_headroom`. */
static void assert_sizing_row(const char *json, const char *id, unsigned needed,
                              unsigned with_headroom)
{
    char key[96], want[96];
    const char *p = strstr(json, "\"sizing\": [");
    const char *end;
    assert_non_null(p);
    snprintf(key, sizeof key, "\"id\": \"%s\"", id);
    p = strstr(p, key);
    if (p == NULL)
        fail_msg("no sizing row for %s", id);
    end = strchr(p, '}');
    assert_non_null(end);
    snprintf(want, sizeof want, "\"needed\": %u,", needed);
    if (strstr(p, want) == NULL || strstr(p, want) > end)
        fail_msg("sizing of %s: no %s in %.*s", id, want, (int)(end - p), p);
    snprintf(want, sizeof want, "\"needed_with_headroom\": %u,", with_headroom);
    if (strstr(p, want) == NULL || strstr(p, want) > end)
        fail_msg("sizing of %s: no %s in %.*s", id, want, (int)(end - p), p);
}

/* `archcheck size` on the two capacity samples: the counts of their hand computations
 * (utilisation 0.8 binds: ceil(lambda / (mu x 0.8)) at the load and at the headroom). */
static void test_size_samples(void **state)
{
    static const char *const cp[] = {"\"binding\": \"utilization\"", "\"saved\": -24",
                                     "\"complete\": true"};
    ac_test_run r = run_ac("size", "--format", "json", "samples/control-plane.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 1); /* short of the needed count with the headroom */
    for (size_t i = 0; i < sizeof cp / sizeof cp[0]; i++)
        if (strstr(r.out, cp[i]) == NULL)
            fail_msg("size control-plane: no %s in\n%s", cp[i], r.out);
    assert_sizing_row(r.out, "amf", 49, 74);
    assert_sizing_row(r.out, "smf", 31, 46);
    assert_sizing_row(r.out, "ausf", 20, 30);
    assert_sizing_row(r.out, "udm", 18, 26);
    ac_test_run_free(&r);
    r = run_ac("size", "--color", "never", "samples/daily-web-tier.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "max servers         260                147                177"));
    assert_non_null(strstr(r.out, "servers              40                 30                 36"));
    assert_non_null(strstr(r.out, "total: 87 fewer than designed"));
    ac_test_run_free(&r);
    r = run_ac("size", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("size", "--dispatch", "nosuch", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "'nosuch' is not a pool"));
    ac_test_run_free(&r);
    r = run_ac("check", "--size", "--no-validate", "--format", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"sizing\": ["));
    assert_non_null(strstr(r.out, "\"verdict\": \"pass\""));
    ac_test_run_free(&r);
}

static void test_solve_outputs(void **state)
{
    ac_test_run r = run_ac("solve", "samples/tandem.xml", NULL);
    size_t rows = 0;
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "end to end: mean"));
    assert_non_null(strstr(r.out, "Lyapunov: positive definite"));
    ac_test_run_free(&r);
    r = run_ac("solve", "--format", "csv", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_true(starts_with(r.out, "t_s,ccdf_"));
    assert_non_null(strstr(r.out, ",ccdf_end_to_end\n"));
    for (const char *p = r.out; *p; p++)
        rows += *p == '\n';
    assert_int_equal(rows, 502); /* the header and 501 time points */
    assert_non_null(strstr(r.out, "\n0,1,1,"));  /* P(T > 0) = 1 */
    ac_test_run_free(&r);
    r = run_ac("solve", "--format", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"approximation\": \"exact\""));
    ac_test_run_free(&r);
    r = run_ac("solve", "samples/bad/AC012-duration-unit.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "[AC012]"));
    ac_test_run_free(&r);
    r = run_ac("solve", "--format", "pdf", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    /* the transient of an autoscaled pool: its server count over the day, and the totals */
    r = run_ac("solve", "--transient", "--format", "csv", "samples/autoscaled-api.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ",api.servers\n"));
    ac_test_run_free(&r);
    r = run_ac("solve", "--transient", "--format", "json", "samples/autoscaled-api.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"scaling_events\": 39"));
    ac_test_run_free(&r);
    /* the serverless stages' own lines in the steady-state text */
    r = run_ac("solve", "samples/serverless-pipeline.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ingest: sync, 58.58 of 70 instances busy (60 Erlangs offered), "
                                  "throttled 0.0237 (Erlang-B)"));
    assert_non_null(strstr(r.out, "shard: polled by its queue"));
    assert_non_null(strstr(r.out, "jobs: 1000 consumer slots"));
    assert_non_null(strstr(r.out, "api: token bucket 1500/s with 300 tokens"));
    ac_test_run_free(&r);
    /* the serverless stages' series: at the burst's plateau (2500/s against a 1500/s
       bucket) the gateway rejects 1000/s; before the burst nothing */
    r = run_ac("solve", "--transient", "--format", "csv", "samples/serverless-pipeline.xml",
               NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, ",api.tokens,"));
    assert_non_null(strstr(r.out, ",ingest.throttle_rate,"));
    assert_non_null(strstr(r.out, ",jobs.backlog,"));
    assert_non_null(strstr(r.out, ",shard.cold_start_rate,"));
    {
        /* the api.loss_rate column (the 6th) at t = 30 s and t = 135 s */
        const char *line = r.out;
        int seen = 0;
        while ((line = strchr(line, '\n')) != NULL) {
            double t, ar, tp, mj, ut, lr;
            line++;
            if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf", &t, &ar, &tp, &mj, &ut, &lr) != 6)
                continue;
            if (fabs(t - 30.0) < 1e-9) {
                assert_double_close(lr, 0.0, 1e-6, 0);
                seen++;
            } else if (fabs(t - 135.0) < 1e-9) {
                assert_double_close(lr, 1000.0, 0, 1e-3);
                seen++;
            }
        }
        assert_int_equal(seen, 2);
    }
    ac_test_run_free(&r);
}

static void test_simulate_deterministic(void **state)
{
    ac_test_run a = run_ac("simulate", "--format", "json", "--replications", "3", "--horizon",
                           "200s", "--seed", "7", "samples/tandem.xml", NULL);
    ac_test_run b = run_ac("simulate", "--format", "json", "--replications", "3", "--horizon",
                           "200s", "--seed", "7", "samples/tandem.xml", NULL);
    ac_test_run c = run_ac("simulate", "--format", "json", "--replications", "3", "--horizon",
                           "200s", "--seed", "8", "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(a.status, 0);
    assert_string_equal(a.out, b.out);
    assert_string_not_equal(a.out, c.out);
    assert_non_null(strstr(a.out, "\"mean_jobs_ci95\": "));
    assert_non_null(strstr(a.out, "\"approximation\": \"simulation\""));
    assert_non_null(strstr(a.out, "\"replications\": 3"));
    assert_non_null(strstr(a.out, "\"seed\": 7"));
    ac_test_run_free(&a);
    ac_test_run_free(&b);
    ac_test_run_free(&c);
    a = run_ac("simulate", "--horizon", "10s", "--warmup", "20s", "samples/tandem.xml", NULL);
    assert_int_equal(a.status, 2);
    ac_test_run_free(&a);
    /* functions, queues and gateways are simulated; their own KPIs are printed */
    a = run_ac("simulate", "--replications", "2", "--horizon", "60s", "--warmup", "20s",
               "samples/serverless-pipeline.xml", NULL);
    assert_int_equal(a.status, 0);
    assert_non_null(strstr(a.out, "ingest "));
    assert_non_null(strstr(a.out, "throttled"));
    ac_test_run_free(&a);
}

/* --validate simulates and reports the simulation's value beside every check. */
static void test_check_validate(void **state)
{
    ac_test_run r = run_ac("check", "--validate", "--format", "json", "--seed", "3",
                           "samples/tandem.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"simulation\": {"));
    assert_non_null(strstr(r.out, "\"relative_error_mean_jobs\": "));
    assert_non_null(strstr(r.out, "\"simulation_value\": "));
    assert_non_null(strstr(r.out, "\"validation\": {"));
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
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_no_command),
        cmocka_unit_test(test_unknown_command),
        cmocka_unit_test(test_lint_without_file),
        cmocka_unit_test(test_lint_bad_format),
        cmocka_unit_test(test_lint_unknown_option),
        cmocka_unit_test(test_lint_missing_file),
        cmocka_unit_test(test_rules_text),
        cmocka_unit_test(test_rules_json),
        cmocka_unit_test(test_rules_bad_arguments),
        cmocka_unit_test(test_schema),
        cmocka_unit_test(test_subcommand_help),
        cmocka_unit_test(test_check_bad_file),
        cmocka_unit_test(test_check_sample_verdicts),
        cmocka_unit_test(test_size_samples),
        cmocka_unit_test(test_check_json_keys),
        cmocka_unit_test(test_check_metastable),
        cmocka_unit_test(test_solve_outputs),
        cmocka_unit_test(test_simulate_deterministic),
        cmocka_unit_test(test_check_validate),
        cmocka_unit_test(test_check_usage_errors),
        cmocka_unit_test(test_check_output_file),
        cmocka_unit_test(test_check_output_unwritable),
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
