/*
 * End-to-end tests of what a newcomer and a CI pipeline meet (issue #15, items 4-12):
 * the progress bar (on a pseudo-terminal), exit status, verdict and streams agreeing, the
 * check list in text, CI formats, baselines and the linter conventions. The binary is
 * AC_TEST_BIN, run in AC_SOURCE_DIR on the samples or on small files written to /tmp.
 */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>

/* ---- a run with stderr on a pseudo-terminal ---- */

/* Run archcheck with stderr on a new pseudo-terminal (its session's controlling terminal),
 * stdout to a file. *tty gets what the terminal received, r.out stdout. */
static ac_test_run run_on_tty(char **tty, const char *arg, ...)
{
    ac_test_run r = {-1, NULL, NULL};
    char out_path[] = "/tmp/ac_test_ttyXXXXXX";
    char *argv[40];
    size_t n = 0, len = 0, cap = 1 << 16;
    int fo = mkstemp(out_path), master, st = 0;
    pid_t pid;
    va_list ap;
    argv[n++] = strdup(AC_TEST_BIN);
    va_start(ap, arg);
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
        dup2(fo, 1);
        dup2(slave, 2);
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
    t = run_on_tty(&tty, "simulate", "--quiet", "--max-events", "3000000",
                   "samples/web-tier.xml", NULL);
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
    r = run_ac("check", "-q", "--no-validate", "--fail-on", "warning",
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
 * (checkout: p95 326.5 ms > 200 ms, web at 0.9 > 0.85, db 0.3375, headroom 0.639 < 1.2). */
static void test_check_verbose(void **state)
{
    ac_test_run r = run_ac("check", "-q", "--verbose", "--color", "never",
                           "samples/checkout.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "samples/checkout.xml: 6 checks\n"));
    assert_non_null(strstr(r.out, "    PASS                stability of 'web': 0.9, limit <= 1"));
    assert_non_null(strstr(r.out, "    FAIL AC201          latency p95 end to end: 326.5 ms"));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_bar),
        cmocka_unit_test(test_exit_status_and_verdict),
        cmocka_unit_test(test_simulate_overloaded),
        cmocka_unit_test(test_lint_stdout_and_json_shape),
        cmocka_unit_test(test_check_verbose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
