/*
 * End-to-end tests of the archcheck binary: the command line (version, help, lint's
 * options, rules, schema, subcommand help) and `check` with its output file.
 */
#include "helpers.h"

#include <sys/stat.h>

#include "cli_helpers.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
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
        cmocka_unit_test(test_check_usage_errors),
        cmocka_unit_test(test_check_output_file),
        cmocka_unit_test(test_check_output_unwritable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
