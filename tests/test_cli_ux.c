/*
 * End-to-end tests of what a newcomer and a CI pipeline meet (issue #15, items 4-12):
 * the progress bar (on a pseudo-terminal), exit status, verdict and streams agreeing, the
 * check list in text, CI formats, baselines and the linter conventions. The binary is
 * AC_TEST_BIN, run in AC_SOURCE_DIR on the samples or on small files written to /tmp.
 */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <stdint.h>

#include <errno.h>
#include <sys/stat.h>

/* ---- a run with stderr on a pseudo-terminal ---- */

/* Run archcheck with stderr on a new pseudo-terminal (its session's controlling terminal),
 * stdout to a file. *tty gets what the terminal received, r.out stdout. */
static ac_test_run run_tty_opts(char **tty, int stdout_too, const char *env, const char *arg,
                                va_list ap0);

static ac_test_run run_on_tty(char **tty, const char *arg, ...)
{
    va_list ap;
    ac_test_run r;
    va_start(ap, arg);
    r = run_tty_opts(tty, 0, NULL, arg, ap);
    va_end(ap);
    return r;
}

/* Both stdout and stderr on the terminal, with `env` ("NAME=value" or NULL) set. */
static ac_test_run run_all_on_tty(char **tty, const char *env, const char *arg, ...)
{
    va_list ap;
    ac_test_run r;
    va_start(ap, arg);
    r = run_tty_opts(tty, 1, env, arg, ap);
    va_end(ap);
    return r;
}

static ac_test_run run_tty_opts(char **tty, int stdout_too, const char *env, const char *arg,
                                va_list ap0)
{
    ac_test_run r = {-1, NULL, NULL};
    char out_path[] = "/tmp/ac_test_ttyXXXXXX";
    char *argv[40];
    size_t n = 0, len = 0, cap = 1 << 16;
    int fo = mkstemp(out_path), master, st = 0;
    pid_t pid;
    va_list ap;
    argv[n++] = strdup(AC_TEST_BIN);
    va_copy(ap, ap0);
    for (const char *a = arg; a != NULL && n < 39; a = va_arg(ap, const char *))
        argv[n++] = strdup(a);
    va_end(ap);
    argv[n] = NULL;
    *tty = calloc(cap, 1);
    assert_non_null(*tty);
    assert_true(fo >= 0);
    master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(master >= 0);
    assert_int_equal(grantpt(master), 0);
    assert_int_equal(unlockpt(master), 0);
    pid = fork();
    if (pid == 0) {
        int slave, devnull = open("/dev/null", O_RDONLY);
        setsid();
        slave = open(ptsname(master), O_RDWR);
        if (slave < 0 || devnull < 0)
            _exit(127);
        dup2(devnull, 0);
        dup2(stdout_too ? slave : fo, 1);
        dup2(slave, 2);
        unsetenv("NO_COLOR");
        if (env != NULL)
            putenv((char *)(uintptr_t)env);
        close(master);
        if (chdir(AC_SOURCE_DIR) != 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    for (;;) { /* until the child closes the terminal (EIO) */
        ssize_t k = read(master, *tty + len, cap - 1 - len);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            break;
        }
        len += (size_t)k;
        if (len + 1 >= cap)
            break;
    }
    waitpid(pid, &st, 0);
    close(master);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    lseek(fo, 0, SEEK_SET);
    r.out = ac_test_slurp_fd(fo);
    r.err = strdup("");
    close(fo);
    unlink(out_path);
    return r;
}

/* Item 4: a progress bar on stderr when it is a terminal (work done, time left), nothing with
 * --quiet or when stderr is a file, and the same stdout bytes in every case. */
static void test_progress_bar(void **state)
{
    char *tty = NULL;
    ac_test_run plain, t;
    (void)state;
    plain = run_ac("simulate", "--max-events", "3000000", "samples/web-tier.xml", NULL);
    assert_int_equal(plain.status, 0);
    assert_string_equal(plain.err, ""); /* stderr a file: nothing */
    t = run_on_tty(&tty, "simulate", "--max-events", "3000000", "samples/web-tier.xml", NULL);
    assert_int_equal(t.status, 0);
    assert_string_equal(t.out, plain.out); /* the bar never changes stdout */
    assert_non_null(strstr(tty, "samples/web-tier.xml ["));
    assert_non_null(strstr(tty, "%  about "));
    assert_non_null(strstr(tty, " left"));
    assert_non_null(strstr(tty, "\r\033[K")); /* erased at the end */
    free(tty);
    ac_test_run_free(&t);
    t = run_on_tty(&tty, "simulate", "--quiet", "--max-events", "3000000", "samples/web-tier.xml",
                   NULL);
    assert_int_equal(t.status, 0);
    assert_string_equal(t.out, plain.out);
    assert_string_equal(tty, ""); /* --quiet: nothing */
    free(tty);
    ac_test_run_free(&t);
    ac_test_run_free(&plain);
    /* check: the bar names the file being checked; stdout is the same */
    plain = run_ac("check", "--color", "never", "samples/tandem.xml", NULL);
    t = run_on_tty(&tty, "check", "--color", "never", "samples/tandem.xml", NULL);
    assert_int_equal(t.status, plain.status);
    assert_string_equal(t.out, plain.out);
    assert_string_equal(plain.err, "");
    assert_non_null(strstr(tty, "samples/tandem.xml ["));
    free(tty);
    ac_test_run_free(&t);
    ac_test_run_free(&plain);
}

/* ---- small files ---- */

/* A pool that passes its utilisation and has a resilience requirement, which this version
 * cannot decide (AC900): INCONCLUSIVE and nothing else. */
static const char inconclusive_xml[] =
    "<architecture name=\"inc\" format=\"1\">\n"
    "  <workload><source id=\"in\" to=\"web\" rate=\"100/s\"/></workload>\n"
    "  <pool id=\"web\" servers=\"4\" service-time=\"10ms\" dispatch=\"random\"/>\n"
    "  <faults budget=\"100\" seed=\"1\">\n"
    "    <fault target=\"web\" delay=\"0ms..1s\"/>\n"
    "    <objective tau=\"0.7\"><term metric=\"error-rate\" weight=\"1\"/></objective>\n"
    "  </faults>\n"
    "  <requirements>\n"
    "    <utilization max=\"0.9\"/>\n"
    "    <resilience tau=\"0.7\" min-boundary=\"300/s\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

/* Write `text` to a new file in a new temporary directory; *dir gets the directory. */
static char *tmp_file(char **dir, const char *name, const char *text)
{
    char tmpl[] = "/tmp/ac_ux_XXXXXX", *path;
    FILE *fp;
    assert_non_null(mkdtemp(tmpl));
    *dir = strdup(tmpl);
    path = malloc(strlen(tmpl) + strlen(name) + 2);
    assert_non_null(*dir);
    assert_non_null(path);
    sprintf(path, "%s/%s", tmpl, name);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    return path;
}

static void tmp_remove(char *dir, char *path)
{
    char cmd[600];
    unlink(path);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(path);
    free(dir);
}

/* Item 5: the exit status, the verdict and the streams agree. */
static void test_exit_status_and_verdict(void **state)
{
    char *dir, *inc = tmp_file(&dir, "inc.xml", inconclusive_xml);
    ac_test_run r;
    (void)state;
    /* --fail-on never: exit 0, and the summary says what the 0 means */
    r = run_ac("check", "-q", "--fail-on", "never", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "verdict: fail; exit status 0 (--fail-on never)\n"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "--fail-on", "never", "-f", "json", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"verdict\": \"fail\""));
    assert_non_null(strstr(r.out, "\"exit_status\": 0"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "-f", "json", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "\"exit_status\": 1"));
    ac_test_run_free(&r);
    /* an undecided check (AC900) is INCONCLUSIVE, exit 3, at --fail-on error and warning */
    r = run_ac("check", "-q", inc, NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.out, "[AC900]"));
    assert_non_null(strstr(r.out, "verdict: inconclusive\n"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "--fail-on", "warning", inc, NULL);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.out, "verdict: inconclusive\n"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "--fail-on", "never", inc, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "verdict: inconclusive; exit status 0 (--fail-on never)\n"));
    ac_test_run_free(&r);
    /* a FAIL outranks it: the serverless sample fails one check and has two AC900 */
    r = run_ac("check", "-q", "--fail-on", "warning", "--no-search",
               "samples/serverless-pipeline.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "[AC900]"));
    ac_test_run_free(&r);
    /* invalid input: exit 2 whatever --fail-on, and "invalid" in JSON */
    r = run_ac("check", "-q", "--fail-on", "never", "-f", "json",
               "samples/bad/AC012-duration-unit.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "\"verdict\": \"invalid\""));
    assert_null(strstr(r.out, "\"verdict\": \"fail\""));
    assert_non_null(strstr(r.out, "\"input_valid\": false"));
    ac_test_run_free(&r);
    tmp_remove(dir, inc);
}

/* Item 5: simulate of an overloaded model (render: 300/s against 266.7/s) exits 3 as its
 * help says, with the AC101 finding and no intervals; a stable model still simulates. */
static void test_simulate_overloaded(void **state)
{
    ac_test_run r = run_ac("simulate", "--max-events", "1000000", "samples/overloaded.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 3);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "samples/overloaded.xml:25:3: error: pool 'render' is "
                                  "overloaded"));
    assert_non_null(strstr(r.err, "[AC101]"));
    assert_non_null(strstr(r.err, "cannot simulate"));
    ac_test_run_free(&r);
    r = run_ac("simulate", "--help", NULL);
    assert_non_null(strstr(r.out, "or an overloaded model"));
    ac_test_run_free(&r);
}

/* Item 5: lint writes its findings to stdout like check (stderr empty), in every format;
 * JSON has one shape: an object with "files" for one file and for several. */
static void test_lint_stdout_and_json_shape(void **state)
{
    ac_test_run r = run_ac("lint", "samples/bad/AC012-duration-unit.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "samples/bad/AC012-duration-unit.xml:9:30: error: "));
    assert_string_equal(r.err, "");
    ac_test_run_free(&r);
    r = run_ac("lint", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "verdict: pass\n"));
    assert_string_equal(r.err, "");
    ac_test_run_free(&r);
    /* one file: an object, its keys at the top level and in files[0] */
    r = run_ac("check", "-q", "-f", "json", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_true(r.out[0] == '{');
    assert_non_null(strstr(r.out, "{\n  \"archcheck\": "));
    assert_non_null(strstr(r.out, "\n  \"file\": \"samples/tandem.xml\""));
    assert_non_null(strstr(r.out, "\n  \"files\": [\n    {\n      \"archcheck\": "));
    assert_non_null(strstr(r.out, "\n      \"file\": \"samples/tandem.xml\""));
    ac_test_run_free(&r);
    /* several: an object too, the worst verdict and files[] */
    r = run_ac("lint", "-f", "json", "samples/tandem.xml", "samples/bad/AC012-duration-unit.xml",
               NULL);
    assert_int_equal(r.status, 2);
    assert_true(r.out[0] == '{');
    assert_non_null(strstr(r.out, "{\n  \"archcheck\": \"" AC_VERSION "\",\n  \"verdict\": "
                                  "\"invalid\",\n  \"exit_status\": 2,\n  \"files\": ["));
    assert_non_null(strstr(r.out, "\n      \"file\": \"samples/tandem.xml\""));
    assert_non_null(strstr(r.out, "\n      \"file\": \"samples/bad/AC012-duration-unit.xml\""));
    ac_test_run_free(&r);
}

/* Item 6: check --verbose lists every check with its value, limit and status in text
 * (checkout: p95 326.6 ms > 200 ms, web at 0.9 > 0.85, db 0.3375, headroom 0.639 < 1.2). */
static void test_check_verbose(void **state)
{
    ac_test_run r =
        run_ac("check", "-q", "--verbose", "--color", "never", "samples/checkout.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "samples/checkout.xml: 6 checks\n"));
    assert_non_null(strstr(r.out, "    PASS                stability of 'web': 0.9, limit <= 1"));
    assert_non_null(strstr(r.out, "    FAIL AC201          latency p95 end to end: 326.6 ms"));
    assert_non_null(strstr(r.out, "limit <= 200 ms [line 28]\n"));
    assert_non_null(strstr(r.out, "    FAIL AC202          utilization of 'web': 0.9 "));
    assert_non_null(strstr(r.out, "    PASS                utilization of 'db': 0.3375, limit "
                                  "<= 0.85 [line 29]\n"));
    assert_non_null(strstr(r.out, "    FAIL AC205          headroom of the workload: 0.6391"));
    ac_test_run_free(&r);
    /* without --verbose: no list */
    r = run_ac("check", "-q", "--color", "never", "samples/checkout.xml", NULL);
    assert_null(strstr(r.out, ": 6 checks"));
    ac_test_run_free(&r);
}

/* Run archcheck in the directory `dir` (argument list NULL-terminated, at most 32). */
static ac_test_run run_in(const char *dir, const char *arg, ...)
{
    char *argv[34];
    size_t n = 0;
    va_list ap;
    ac_test_run r;
    argv[n++] = strdup(AC_TEST_BIN);
    va_start(ap, arg);
    for (const char *a = arg; a != NULL && n <= 32; a = va_arg(ap, const char *))
        argv[n++] = strdup(a);
    va_end(ap);
    argv[n] = NULL;
    r = ac_test_exec(dir, argv);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    assert_non_null(r.out);
    assert_non_null(r.err);
    assert_true(r.status < 128);
    return r;
}

static size_t count_of(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* A pool at utilisation 0.9 against a limit of 0.85 (AC202), its latency requirement
 * suppressed in the source: one finding that fails, one suppressed inSource. */
static const char sarif_xml[] =
    "<architecture name=\"s\" format=\"1\">\n"
    "  <workload><source id=\"in\" to=\"web\" rate=\"90/s\"/></workload>\n"
    "  <pool id=\"web\" servers=\"10\" service-time=\"100ms\" dispatch=\"random\"/>\n"
    "  <requirements>\n"
    "    <utilization max=\"0.85\"/>\n"
    "    <latency max=\"100ms\"/>\n"
    "  </requirements>\n"
    "  <suppress rule=\"AC201\" reason=\"tracked elsewhere\"/>\n"
    "</architecture>\n";

/* Item 7: SARIF URIs relative to the working directory (or --sarif-root) under
 * originalUriBaseIds ROOT, partialFingerprints that do not move with the line, suppressions
 * inSource and external (baseline); JUnit test-case names unique per file. */
static void test_sarif_and_junit_for_ci(void **state)
{
    char *dir, *xml = tmp_file(&dir, "s.xml", sarif_xml), *shifted, *base, fp1[64], fp2[64];
    const char *p;
    ac_test_run r, t;
    (void)state;
    r = run_ac("check", "-q", "-f", "sarif", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "\"originalUriBaseIds\": {\n        \"ROOT\": {\n"
                                  "          \"uri\": \"file://" AC_SOURCE_DIR "/\""));
    assert_non_null(strstr(r.out, "\"uri\": \"samples/checkout.xml\",\n"
                                  "                  \"uriBaseId\": \"ROOT\""));
    assert_int_equal(count_of(r.out, "\"partialFingerprints\": {"), count_of(r.out, "\"ruleId\""));
    ac_test_run_free(&r);
    /* from elsewhere, with an absolute path and --sarif-root: the same relative URI */
    r = run_in("/tmp", "check", "-q", "-f", "sarif", "--sarif-root", AC_SOURCE_DIR,
               AC_SOURCE_DIR "/samples/checkout.xml", NULL);
    assert_non_null(strstr(r.out, "\"uri\": \"samples/checkout.xml\""));
    ac_test_run_free(&r);
    /* a file outside the root: an absolute file:// URI without a base id */
    r = run_ac("check", "-q", "-f", "sarif", xml, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "\"uri\": \"file:///"));
    assert_non_null(strstr(r.out, "/s.xml\"\n"));
    /* the in-source suppression is inSource */
    assert_non_null(strstr(r.out, "\"kind\": \"inSource\""));
    assert_non_null(strstr(r.out, "\"justification\": \"tracked elsewhere\""));
    p = strstr(r.out, "\"archcheckFinding/v1\": \"");
    assert_non_null(p);
    snprintf(fp1, sizeof fp1, "%.32s", p + strlen("\"archcheckFinding/v1\": \""));
    ac_test_run_free(&r);
    /* the same file with three lines more at the top: the same fingerprint */
    {
        char *text = malloc(sizeof sarif_xml + 64);
        assert_non_null(text);
        sprintf(text, "<!-- a -->\n<!-- b -->\n<!-- c -->\n%s", sarif_xml);
        shifted = malloc(strlen(dir) + 16);
        assert_non_null(shifted);
        sprintf(shifted, "%s/s.xml", dir);
        {
            FILE *fp = fopen(shifted, "w");
            assert_non_null(fp);
            fputs(text, fp);
            assert_int_equal(fclose(fp), 0);
        }
        free(text);
    }
    r = run_ac("check", "-q", "-f", "sarif", shifted, NULL);
    assert_non_null(strstr(r.out, "\"startLine\": 8"));
    p = strstr(r.out, "\"archcheckFinding/v1\": \"");
    assert_non_null(p);
    snprintf(fp2, sizeof fp2, "%.32s", p + strlen("\"archcheckFinding/v1\": \""));
    assert_string_equal(fp1, fp2);
    ac_test_run_free(&r);
    free(shifted);
    /* a baseline's suppression is external */
    base = malloc(strlen(dir) + 16);
    assert_non_null(base);
    sprintf(base, "%s/base.json", dir);
    r = run_ac("check", "-q", "--write-baseline", base, xml, NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "-f", "sarif", "--baseline", base, xml, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"kind\": \"external\""));
    assert_non_null(strstr(r.out, "\"justification\": \"in baseline\""));
    ac_test_run_free(&r);
    unlink(base);
    free(base);
    /* JUnit: every test case of a file has its own name (the serverless sample's two
       resilience requirements among them) */
    t = run_ac("check", "-q", "--no-validate", "--no-search", "-f", "junit",
               "samples/serverless-pipeline.xml", NULL);
    assert_non_null(strstr(t.out, " name=\"resilience of the design at 3000/s\""));
    assert_non_null(strstr(t.out, " name=\"resilience of prewarm-snapstart at 3000/s\""));
    {
        const char *key = "<testcase classname=\"samples/serverless-pipeline.xml\" name=\"";
        char names[64][160];
        size_t n = 0;
        for (const char *q = strstr(t.out, key); q != NULL && n < 64; q = strstr(q + 1, key)) {
            const char *b = q + strlen(key), *e = strchr(b, '"');
            assert_non_null(e);
            snprintf(names[n], sizeof names[n], "%.*s", (int)(e - b), b);
            for (size_t k = 0; k < n; k++)
                assert_string_not_equal(names[k], names[n]);
            n++;
        }
        assert_true(n >= 10);
    }
    ac_test_run_free(&t);
    tmp_remove(dir, xml);
}

/* Item 8: a baseline written beside the file matches from a subdirectory (../x.xml), from
 * the root (an absolute path) and with ./ in front: paths are relative to the baseline. */
static void test_baseline_from_elsewhere(void **state)
{
    char *dir, *xml = tmp_file(&dir, "s.xml", sarif_xml), sub[512], abs_xml[512];
    ac_test_run r;
    (void)state;
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    r = run_in(dir, "check", "-q", "--write-baseline", "base.json", "s.xml", NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    r = run_in(dir, "check", "-q", "s.xml", NULL);
    assert_int_equal(r.status, 1); /* without it, the finding fails */
    ac_test_run_free(&r);
    r = run_in(sub, "check", "-q", "--baseline", "../base.json", "../s.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "(2 suppressed)"));
    ac_test_run_free(&r);
    snprintf(abs_xml, sizeof abs_xml, "%s/./s.xml", dir);
    r = run_in("/", "check", "-q", "--baseline", dir[0] == '/' ? dir + 1 : dir, abs_xml, NULL);
    assert_int_equal(r.status, 2); /* a directory is not a baseline */
    ac_test_run_free(&r);
    {
        char b[600];
        snprintf(b, sizeof b, "%s/base.json", dir + 1);
        r = run_in("/", "check", "-q", "--baseline", b, abs_xml, NULL);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "(2 suppressed)"));
        ac_test_run_free(&r);
    }
    {
        char b[600];
        snprintf(b, sizeof b, "%s/base.json", dir);
        unlink(b);
    }
    rmdir(sub);
    tmp_remove(dir, xml);
}

/* Run archcheck (in AC_SOURCE_DIR) with the file `in` on its standard input. */
static ac_test_run run_stdin(const char *in, const char *arg, ...)
{
    ac_test_run r = {-1, NULL, NULL};
    char out_path[] = "/tmp/ac_ux_outXXXXXX", err_path[] = "/tmp/ac_ux_errXXXXXX";
    char *argv[34];
    size_t n = 0;
    int fo = mkstemp(out_path), fe = mkstemp(err_path), st = 0;
    pid_t pid;
    va_list ap;
    argv[n++] = strdup(AC_TEST_BIN);
    va_start(ap, arg);
    for (const char *a = arg; a != NULL && n <= 32; a = va_arg(ap, const char *))
        argv[n++] = strdup(a);
    va_end(ap);
    argv[n] = NULL;
    assert_true(fo >= 0 && fe >= 0);
    pid = fork();
    if (pid == 0) {
        int fi = open(in, O_RDONLY);
        if (fi < 0 || chdir(AC_SOURCE_DIR) != 0)
            _exit(127);
        dup2(fi, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    lseek(fo, 0, SEEK_SET);
    lseek(fe, 0, SEEK_SET);
    r.out = ac_test_slurp_fd(fo);
    r.err = ac_test_slurp_fd(fe);
    close(fo);
    close(fe);
    unlink(out_path);
    unlink(err_path);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    return r;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Item 9: `-` is the standard input; a directory is searched for architecture files (not a
 * pom.xml, not hidden directories); --architectures-only skips a named pom.xml. */
static void test_stdin_and_directories(void **state)
{
    char *dir, *xml = tmp_file(&dir, "a.xml", sarif_xml), p[600], q[600];
    ac_test_run r;
    (void)state;
    r = run_stdin(AC_SOURCE_DIR "/samples/bad/AC012-duration-unit.xml", "lint", "-", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "<stdin>:9:30: error: "));
    ac_test_run_free(&r);
    r = run_stdin(AC_SOURCE_DIR "/samples/tandem.xml", "check", "-q", "-", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "verdict: pass\n"));
    ac_test_run_free(&r);
    snprintf(p, sizeof p, "%s/pom.xml", dir);
    write_text(p, "<?xml version=\"1.0\"?>\n<project><modelVersion>4</modelVersion></project>\n");
    snprintf(q, sizeof q, "%s/sub", dir);
    assert_int_equal(mkdir(q, 0700), 0);
    snprintf(q, sizeof q, "%s/sub/b.xml", dir);
    write_text(q, "<?xml version=\"1.0\"?>\n<!-- b -->\n<architecture name=\"b\" format=\"1\">"
                  "<workload><source id=\"s\" to=\"p\" rate=\"1/s\"/></workload>"
                  "<pool id=\"p\" servers=\"1\" service-time=\"10ms\"/></architecture>\n");
    snprintf(q, sizeof q, "%s/.hidden", dir);
    assert_int_equal(mkdir(q, 0700), 0);
    snprintf(q, sizeof q, "%s/.hidden/c.xml", dir);
    write_text(q, "<architecture name=\"c\" format=\"1\"><oops/></architecture>\n");
    r = run_ac("lint", dir, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "2 files: 0 errors"));
    assert_null(strstr(r.out, "pom.xml"));
    assert_null(strstr(r.out, "c.xml"));
    ac_test_run_free(&r);
    r = run_ac("lint", p, NULL); /* named, a pom.xml is an error */
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.out, "[AC006]"));
    ac_test_run_free(&r);
    r = run_ac("lint", "--architectures-only", p, NULL); /* the pre-commit hook's way */
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "no architecture file to check"));
    ac_test_run_free(&r);
    r = run_ac("lint", "--architectures-only", p, "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "1 file: 0 errors"));
    ac_test_run_free(&r);
    unlink(p);
    snprintf(q, sizeof q, "%s/sub/b.xml", dir);
    unlink(q);
    snprintf(q, sizeof q, "%s/.hidden/c.xml", dir);
    unlink(q);
    tmp_remove(dir, xml);
}

/* Item 9: NO_COLOR (set, not empty) turns colour off on a terminal; --color always wins. */
static void test_no_color(void **state)
{
    char *tty = NULL;
    ac_test_run r;
    (void)state;
    r = run_all_on_tty(&tty, NULL, "lint", "samples/bad/AC012-duration-unit.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(tty, "\033[1m"));
    free(tty);
    ac_test_run_free(&r);
    r = run_all_on_tty(&tty, "NO_COLOR=1", "lint", "samples/bad/AC012-duration-unit.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(tty, "error: attribute"));
    assert_null(strstr(tty, "\033["));
    free(tty);
    ac_test_run_free(&r);
    r = run_all_on_tty(&tty, "NO_COLOR=1", "lint", "--color", "always",
                       "samples/bad/AC012-duration-unit.xml", NULL);
    assert_non_null(strstr(tty, "\033[1m"));
    free(tty);
    ac_test_run_free(&r);
}

/* Item 9: --select / --exclude, AC033 for a suppression that matches nothing, GitLab Code
 * Quality, and the project file .archcheck.toml found upward. */
static void test_rule_selection_and_project_file(void **state)
{
    char *dir, *xml = tmp_file(&dir, "s.xml", sarif_xml), sub[600], cfgp[600];
    ac_test_run r;
    (void)state;
    /* checkout: AC201, AC202, AC205 errors; its <suppress> of AC201 on db matches nothing */
    r = run_ac("check", "-q", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "samples/checkout.xml:33:3: warning: suppression of AC201 on "
                                  "'db' matches no finding [AC033]"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", xml, NULL); /* a suppression that is used: no AC033 */
    assert_null(strstr(r.out, "[AC033]"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "--exclude", "AC202,AC205", "--exclude", "AC033",
               "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1); /* AC201 still fails */
    assert_null(strstr(r.out, "[AC202]"));
    assert_null(strstr(r.out, "[AC205]"));
    assert_non_null(strstr(r.out, "[AC201]"));
    assert_non_null(strstr(r.out, "(3 suppressed)"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "--select", "AC202", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "[AC202]"));
    assert_null(strstr(r.out, "[AC201]"));
    ac_test_run_free(&r);
    r = run_ac("check", "-q", "--exclude", "AC201,AC202,AC205,AC033", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    r = run_ac("check", "--exclude", "AC900", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "AC900 cannot be excluded"));
    ac_test_run_free(&r);
    r = run_ac("lint", "--exclude", "AC012", "samples/bad/AC012-duration-unit.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "input errors cannot be excluded"));
    ac_test_run_free(&r);
    r = run_ac("check", "--select", "AC2O2", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown rule 'AC2O2'; did you mean AC202?"));
    ac_test_run_free(&r);
    /* GitLab Code Quality */
    r = run_ac("check", "-q", "-f", "gitlab", "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_true(r.out[0] == '[');
    assert_non_null(strstr(r.out, "\"check_name\": \"AC201\""));
    assert_non_null(strstr(r.out, "\"severity\": \"major\""));
    assert_non_null(strstr(r.out, "\"path\": \"samples/checkout.xml\""));
    assert_non_null(strstr(r.out, "\"begin\": 28"));
    assert_int_equal(count_of(r.out, "\"fingerprint\": \""), count_of(r.out, "\"check_name\""));
    ac_test_run_free(&r);
    /* the project file, from a subdirectory; the command line wins */
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(cfgp, sizeof cfgp, "%s/.archcheck.toml", dir);
    write_text(cfgp, "# the project's options\n"
                     "exclude = [\"AC202\"]  # accepted\n"
                     "[lint]\nformat = \"json\"\n"
                     "[check]\nverbose = true\nquiet = true\n");
    r = run_in(sub, "check", "../s.xml", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "../s.xml: 3 checks\n"));
    assert_null(strstr(r.out, "[AC202]"));
    ac_test_run_free(&r);
    r = run_in(sub, "lint", "../s.xml", NULL);
    assert_non_null(strstr(r.out, "\"file\": \"../s.xml\""));
    ac_test_run_free(&r);
    r = run_in(sub, "lint", "--format", "text", "../s.xml", NULL);
    assert_non_null(strstr(r.out, "1 file: 0 errors"));
    ac_test_run_free(&r);
    r = run_in(sub, "check", "--no-config", "-q", "../s.xml", NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "[AC202]"));
    ac_test_run_free(&r);
    write_text(cfgp, "fail_on = \"warning\"\n");
    r = run_in(sub, "check", "../s.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, ".archcheck.toml:1: error: unknown key 'fail_on'; did you mean "
                                  "'fail-on'?"));
    ac_test_run_free(&r);
    unlink(cfgp);
    rmdir(sub);
    tmp_remove(dir, xml);
}

/* Item 10: "did you mean" for a misspelt node reference, element, attribute and option, and
 * one diagnostic for one mistake (no unreachable nodes, no missing service time after). */
static void test_did_you_mean(void **state)
{
    static const char ok[] = "<architecture name=\"t\" format=\"1\">\n"
                             "  <workload><source id=\"in\" to=\"web\" rate=\"10/s\"/></workload>\n"
                             "  <pool id=\"web\" servers=\"2\" service-time=\"10ms\"/>\n"
                             "  <pool id=\"db\" servers=\"2\" service-time=\"10ms\"/>\n"
                             "  <route from=\"web\" to=\"db\"/>\n"
                             "</architecture>\n";
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"to=\"web\" rate", "to=\"wbe\" rate",
         "t.xml:2:29: error: attribute 'to' of <source> names 'wbe', which is not defined (did "
         "you mean 'web'?) [AC021]\n1 file: 1 error"},
        /* item 10: the elements allowed there (the XSD's, or libxml2's list) */
        {"<pool id=\"db\"", "<pol id=\"db\"",
         "t.xml:4:3: error: element <pol>: This element is not expected in <architecture>. Did "
         "you mean <pool>? Expected one of: <workload>, <pool>, <function>, <queue>, <gateway>, "
         "<route>, <link>, <mitigation>, <faults>, <requirements>, <suppress>. [AC004]\n1 file: "
         "1 error"},
        {"<pool id=\"db\"", "<zzz/><pool id=\"db\"",
         "t.xml:4:3: error: element <zzz>: This element is not expected in <architecture>. "
         "Expected one of: <workload>, <pool>, <function>, <queue>, <gateway>, <route>, <link>, "
         "<mitigation>, <faults>, <requirements>, <suppress>. [AC004]\n1 file: 1 error"},
        {"</architecture>",
         "<requirements><latncy percentile=\"95\" max=\"1s\"/></requirements>"
         "</architecture>",
         "t.xml:6:15: error: element <latncy>: This element is not expected in <requirements>. "
         "Did you mean <latency>? Expected one of: <latency>, <utilization>, <loss>, "
         "<throughput>, <headroom>, <recovery>, <scaling>, <resilience>. [AC004]\n1 file: 1 "
         "error"},
        {"service-time=\"10ms\"/>\n  <pool id=\"db\"",
         "service-time=\"10ms\"><autoscal/></pool>\n  <pool id=\"db\"",
         "t.xml:3:50: error: element <autoscal>: This element is not expected in <pool>. Did you "
         "mean <autoscale>? Expected: <autoscale>. [AC004]\n1 file: 1 error"},
        /* a second <objective>: only what is allowed there is suggested */
        {"</architecture>", "<faults><objective/><objectiv/></faults></architecture>",
         "t.xml:6:21: error: element <objectiv>: This element is not expected in <faults>. "
         "Expected: <fault>. [AC004]\n1 file: 1 error"},
        {"\"2\" service-time=\"10ms\"/>\n  <pool id=\"db\"",
         "\"2\" sevice-time=\"10ms\"/>\n  <pool id=\"db\"",
         "error: element <pool>: attribute 'sevice-time' is not allowed here (did you mean "
         "'service-time'?) [AC004]\n1 file: 1 error"},
    };
    ac_test_run r;
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024], *dir, *path;
        const char *at = strstr(ok, cases[i].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - ok), ok, cases[i].to,
                 at + strlen(cases[i].from));
        path = tmp_file(&dir, "t.xml", text);
        r = run_ac("lint", path, NULL);
        assert_int_equal(r.status, 2);
        if (strstr(r.out, cases[i].want) == NULL)
            fail_msg("case %zu: expected\n%s\nin\n%s", i, cases[i].want, r.out);
        ac_test_run_free(&r);
        tmp_remove(dir, path);
    }
    r = run_ac("check", "--fial-on", "never", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "unknown option '--fial-on'; did you mean '--fail-on'?"));
    ac_test_run_free(&r);
    r = run_ac("lint", "--format", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "option '--format' needs a value"));
    ac_test_run_free(&r);
}

/* The text pdftotext finds on pages first..last of a PDF (NULL without poppler-utils). */
static char *pdf_text(const char *pdf, int first, int last)
{
    char tool[64];
    snprintf(tool, sizeof tool, "pdftotext -f %d -l %d", first, last);
    return ac_test_poppler(tool, pdf, 0);
}

/* Item 11: a report of several files opens with a summary page: the run's verdict (the
 * worst file's) and every file with its verdict, before the first file's pages. Item 12: a
 * report whose findings quote simulations does not say "Validation: not needed". */
static void test_pdf_summary_page(void **state)
{
    char *dir, *xml = tmp_file(&dir, "s.xml", sarif_xml), pdf[600], *p1, *p2;
    ac_test_run r;
    (void)state;
    snprintf(pdf, sizeof pdf, "%s/multi.pdf", dir);
    r = run_ac("check", "-q", "--no-validate", "--report", pdf, "samples/tandem.xml",
               "samples/checkout.xml", NULL);
    assert_int_equal(r.status, 1);
    ac_test_run_free(&r);
    p1 = pdf_text(pdf, 1, 1);
    if (p1 == NULL) {
        unlink(pdf);
        tmp_remove(dir, xml);
        skip();
    }
    assert_non_null(strstr(p1, "Summary of 2 files"));
    assert_non_null(strstr(p1, "FAIL"));
    assert_non_null(strstr(p1, "1 pass, 1 fail, 0 inconclusive, 0 invalid input"));
    assert_non_null(strstr(p1, "samples/tandem.xml"));
    assert_non_null(strstr(p1, "samples/checkout.xml"));
    assert_non_null(strstr(p1, "PASS"));
    assert_null(strstr(p1, "Log ingestion pipeline")); /* tandem's own page comes after */
    p2 = pdf_text(pdf, 2, 2);
    assert_non_null(p2);
    assert_non_null(strstr(p2, "Log ingestion pipeline"));
    free(p1);
    free(p2);
    unlink(pdf);
    /* one file: no summary page */
    r = run_ac("check", "-q", "--no-validate", "--report", pdf, "samples/tandem.xml", NULL);
    ac_test_run_free(&r);
    p1 = pdf_text(pdf, 1, 1);
    assert_non_null(p1);
    assert_null(strstr(p1, "Summary of"));
    free(p1);
    unlink(pdf);
    /* the retry storm's findings quote the simulation of each basin */
    r = run_ac("check", "-q", "--report", pdf, "samples/retry-storm.xml", NULL);
    assert_int_equal(r.status, 1);
    if (strstr(r.out, "simulat") != NULL) {
        p1 = pdf_text(pdf, 1, 2);
        assert_non_null(p1);
        assert_null(strstr(p1, "not needed (no check was undecided"));
        free(p1);
    }
    ac_test_run_free(&r);
    unlink(pdf);
    tmp_remove(dir, xml);
}

/* Item 12: the serverless sample's PDF: the gateway's page does not speak of a pool without
 * equilibrium, no time axis in 1e-64 s (the queue's wait is 0 with probability near 1), no
 * plot frame without a curve for the gateway. */
static void test_pdf_page_defects(void **state)
{
    char *dir, *xml = tmp_file(&dir, "s.xml", sarif_xml), pdf[600], *text;
    ac_test_run r;
    (void)state;
    snprintf(pdf, sizeof pdf, "%s/sl.pdf", dir);
    r = run_ac("check", "-q", "--no-search", "--report", pdf, "samples/serverless-pipeline.xml",
               NULL);
    assert_int_equal(r.status, 1);
    ac_test_run_free(&r);
    text = pdf_text(pdf, 1, 99);
    if (text == NULL) {
        unlink(pdf);
        tmp_remove(dir, xml);
        skip();
    }
    assert_null(strstr(text, "the pool has no equilibrium"));
    assert_non_null(strstr(text, "No plots: a gateway admits or rejects at once"));
    assert_null(strstr(text, "e-64"));
    assert_null(strstr(text, "e-6\n"));
    free(text);
    unlink(pdf);
    tmp_remove(dir, xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_bar),
        cmocka_unit_test(test_exit_status_and_verdict),
        cmocka_unit_test(test_simulate_overloaded),
        cmocka_unit_test(test_lint_stdout_and_json_shape),
        cmocka_unit_test(test_check_verbose),
        cmocka_unit_test(test_sarif_and_junit_for_ci),
        cmocka_unit_test(test_baseline_from_elsewhere),
        cmocka_unit_test(test_stdin_and_directories),
        cmocka_unit_test(test_no_color),
        cmocka_unit_test(test_rule_selection_and_project_file),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_pdf_summary_page),
        cmocka_unit_test(test_pdf_page_defects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
