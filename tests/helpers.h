/*
 * Shared helpers for the cmocka tests (header-only, every function static).
 */
#ifndef AC_TESTS_HELPERS_H
#define AC_TESTS_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* cmocka's assert_float_equal compares as float. This one compares doubles:
 * it passes when |a - b| <= abs_tol or |a - b| <= rel_tol * max(|a|, |b|). */
#define assert_double_close(a, b, abs_tol, rel_tol)                                                \
    ac_test_double_close((a), (b), (abs_tol), (rel_tol), #a, #b, __FILE__, __LINE__)
/* Erlang B by the recurrence B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)), offered load a in
 * erlangs, c servers: the loss probability of M/M/c/c. */
static inline double ac_test_erlang_b(size_t c, double a)
{
    double b = 1.0;
    for (size_t k = 1; k <= c; k++)
        b = a * b / ((double)k + a * b);
    return b;
}

/* Erlang C from B: C = c B / (c - a (1 - B)), the waiting probability of M/M/c (a < c). */
static inline double ac_test_erlang_c(size_t c, double a)
{
    double b = ac_test_erlang_b(c, a);
    return (double)c * b / ((double)c - a * (1.0 - b));
}

/* M/M/c mean response time: C / (c mu - lambda) + 1 / mu, arrival rate lambda and service
 * rate mu in 1/s, result in s (infinite when c mu <= lambda). */
static inline double ac_test_mmc_mean(size_t c, double lambda, double mu)
{
    if ((double)c * mu <= lambda)
        return INFINITY;
    return ac_test_erlang_c(c, lambda / mu) / ((double)c * mu - lambda) + 1.0 / mu;
}

static inline void ac_test_double_close(double a, double b, double abs_tol, double rel_tol,
                                        const char *sa, const char *sb, const char *file, int line)
{
    double diff = fabs(a - b);
    double scale = fmax(fabs(a), fabs(b));
    if (!(diff <= abs_tol || diff <= rel_tol * scale)) {
        print_error("%s = %.17g and %s = %.17g differ by %.3g (abs tol %.3g, rel tol %.3g)\n", sa,
                    a, sb, b, diff, abs_tol, rel_tol);
        _fail(file, line);
    }
}

/* The result of running a program: exit status and everything it printed. */
typedef struct ac_test_run {
    int status; /* exit status, or 128 + signal */
    char *out;  /* stdout, NUL-terminated */
    char *err;  /* stderr, NUL-terminated */
} ac_test_run;

static inline char *ac_test_slurp_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ssize_t n;
    if (buf == NULL)
        return NULL;
    for (;;) {
        if (len + 1 >= cap) {
            char *b2 = realloc(buf, cap * 2);
            if (b2 == NULL)
                break;
            buf = b2;
            cap *= 2;
        }
        n = read(fd, buf + len, cap - len - 1);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

/* How to run a program: stdout to an existing file instead of captured (NULL: captured),
 * and a file-size limit (RLIMIT_FSIZE, bytes; 0: unchanged). */
typedef struct ac_test_opts {
    const char *stdout_path;
    long fsize_limit;
} ac_test_opts;

/* A temporary file, already unlinked, for capturing a stream; -1 on failure. */
static inline int ac_test_capture_fd(void)
{
    char tmpl[] = "/tmp/ac_test_capXXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        unlink(tmpl);
    return fd;
}

/* Start argv (argv[0] a path) in `dir` (NULL: unchanged) with stdin from /dev/null, stdout to
 * fo (or o->stdout_path) and stderr to fe. Returns the child's pid, or -1. */
static inline pid_t ac_test_spawn(const ac_test_opts *o, const char *dir, char *const argv[],
                                  int fo, int fe)
{
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        if (o != NULL && o->stdout_path != NULL) {
            int fd = open(o->stdout_path, O_WRONLY);
            if (fd < 0)
                _exit(126);
            dup2(fd, 1);
        } else {
            dup2(fo, 1);
        }
        dup2(fe, 2);
        if (o != NULL && o->fsize_limit > 0) {
            struct rlimit rl = {(rlim_t)o->fsize_limit, (rlim_t)o->fsize_limit};
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (dir != NULL && chdir(dir) != 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* The whole content of a capture file (from its start), closing it. */
static inline char *ac_test_slurp_capture(int fd)
{
    char *s;
    lseek(fd, 0, SEEK_SET);
    s = ac_test_slurp_fd(fd);
    close(fd);
    return s;
}

/* Run argv (argv[0] a path) in `dir` (NULL: unchanged) with the options `o` (NULL: stdout and
 * stderr captured), and wait for it. Free with ac_test_run_free; out/err NULL and status -1
 * when it could not be run. */
static inline ac_test_run ac_test_exec_opts(const ac_test_opts *o, const char *dir,
                                            char *const argv[])
{
    ac_test_run r = {-1, NULL, NULL};
    int fo = ac_test_capture_fd(), fe = ac_test_capture_fd(), st = 0;
    pid_t pid;
    if (fo < 0 || fe < 0 || (pid = ac_test_spawn(o, dir, argv, fo, fe)) < 0 ||
        waitpid(pid, &st, 0) != pid) {
        if (fo >= 0)
            close(fo);
        if (fe >= 0)
            close(fe);
        return r;
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = ac_test_slurp_capture(fo);
    r.err = ac_test_slurp_capture(fe);
    return r;
}

/* The same with stdout and stderr captured. */
static inline ac_test_run ac_test_exec(const char *dir, char *const argv[])
{
    return ac_test_exec_opts(NULL, dir, argv);
}

/* Run the archcheck binary under test (AC_TEST_BIN) in AC_SOURCE_DIR with the options `o`
 * (NULL: captured) and the arguments (NULL-terminated, at most 38). Fails the test if it
 * could not be run, or if archcheck dies of a signal unless allow_signal: whatever the input,
 * it never should. */
#if defined(AC_TEST_BIN) && defined(AC_SOURCE_DIR)
static inline ac_test_run ac_test_run_args(const ac_test_opts *o, int allow_signal,
                                           const char *const *args)
{
    char *argv[40];
    size_t n = 0;
    ac_test_run r;
    argv[n++] = strdup(AC_TEST_BIN);
    for (; args[n - 1] != NULL && n < 39; n++)
        argv[n] = strdup(args[n - 1]);
    argv[n] = NULL;
    for (size_t i = 0; i < n; i++)
        assert_non_null(argv[i]);
    r = ac_test_exec_opts(o, AC_SOURCE_DIR, argv);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    assert_non_null(r.out);
    assert_non_null(r.err);
    if (r.status >= 128 && !allow_signal)
        fail_msg("archcheck %s ... died with signal %d\nstderr:\n%s",
                 args[0] != NULL ? args[0] : "", r.status - 128, r.err);
    return r;
}

/* The same with the arguments as a list (NULL-terminated, at most 32), captured. */
static inline ac_test_run run_ac(const char *arg, ...)
{
    const char *args[34];
    size_t n = 0;
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a != NULL && n < 32; a = va_arg(ap, const char *))
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return ac_test_run_args(NULL, 0, args);
}
#endif

static inline void ac_test_run_free(ac_test_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Read a whole file (NUL-terminated), or NULL. */
static inline char *ac_test_read_file(const char *path)
{
    char *s;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    s = ac_test_slurp_fd(fd);
    close(fd);
    return s;
}

/* Write `text` to a new file made from the mkstemp template `path` (its XXXXXX replaced in
 * place); the test fails when it cannot. */
static inline void ac_test_write_tmp(char *path, const char *text)
{
    int fd = mkstemp(path);
    FILE *fp;
    assert_true(fd >= 0);
    fp = fdopen(fd, "w");
    assert_non_null(fp);
    assert_true(fputs(text, fp) >= 0);
    assert_int_equal(fclose(fp), 0);
}

/* What poppler's `tool` (pdfinfo, pdffonts, "pdftotext -layout", "pdftotext -f 1 -l 2", ...)
 * says of `pdf` (pdftotext writes to a file, the others to stdout), or NULL if it failed
 * (also without poppler-utils). With `strict`, poppler must say nothing on stderr: a warning
 * there is a defect of the file and fails the test; else its stderr is discarded. */
static inline char *ac_test_poppler(const char *tool, const char *pdf, int strict)
{
    char cmd[1500], out[] = "/tmp/ac_poppler_XXXXXX", err[40];
    int fd = mkstemp(out);
    int to_file = strncmp(tool, "pdftotext", 9) == 0;
    char *text, *warn;
    if (fd < 0)
        return NULL;
    close(fd);
    if (strict)
        snprintf(err, sizeof err, "%s.err", out);
    else
        snprintf(err, sizeof err, "/dev/null");
    if (to_file)
        snprintf(cmd, sizeof cmd, "%s '%s' '%s' 2>'%s'", tool, pdf, out, err);
    else
        snprintf(cmd, sizeof cmd, "%s '%s' > '%s' 2>'%s'", tool, pdf, out, err);
    if (system(cmd) != 0) {
        unlink(out);
        if (strict)
            unlink(err);
        return NULL;
    }
    text = ac_test_read_file(out);
    unlink(out);
    if (!strict)
        return text;
    warn = ac_test_read_file(err);
    unlink(err);
    if (warn != NULL && warn[0] != '\0')
        fail_msg("%s on %s says: %.300s", tool, pdf, warn);
    free(warn);
    return text;
}

/* dir/name in a new string (free it). */
static inline char *ac_test_path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* A fresh temporary directory /tmp/ac_test_<name>XXXXXX (free it with ac_test_rmdir). */
static inline char *ac_test_mkdtemp(const char *name)
{
    char tmpl[128];
    char *d;
    snprintf(tmpl, sizeof tmpl, "/tmp/ac_test_%sXXXXXX", name);
    if (mkdtemp(tmpl) == NULL)
        fail_msg("mkdtemp: %s", strerror(errno));
    d = strdup(tmpl);
    assert_non_null(d);
    return d;
}

/* Remove dir, its files and its empty subdirectories (read-only ones made writable), and
 * free the string. */
static inline void ac_test_rmdir(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            char *p;
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            p = ac_test_path_join(dir, e->d_name);
            chmod(p, 0700);
            if (unlink(p) != 0)
                (void)rmdir(p);
            free(p);
        }
        closedir(d);
    }
    (void)rmdir(dir);
    free(dir);
}

/* Write len bytes to dir/name; returns the path (free it). */
static inline char *ac_test_write_file(const char *dir, const char *name, const void *data,
                                       size_t len)
{
    char *p = ac_test_path_join(dir, name);
    FILE *fp = fopen(p, "wb");
    if (fp == NULL)
        fail_msg("cannot create %s: %s", p, strerror(errno));
    if (len > 0 && fwrite(data, 1, len, fp) != len)
        fail_msg("cannot write %s", p);
    assert_int_equal(fclose(fp), 0);
    return p;
}

/* ---- numbers in archcheck's JSON (its own layout: `"key": value`, one space) ---- */

/* The number after the first `"key": ` from `from`; NAN when absent or null. */
static inline double ac_test_json_num(const char *from, const char *key)
{
    char k[128];
    const char *p;
    snprintf(k, sizeof k, "\"%s\": ", key);
    p = from != NULL ? strstr(from, k) : NULL;
    if (p == NULL || strncmp(p + strlen(k), "null", 4) == 0)
        return NAN;
    return strtod(p + strlen(k), NULL);
}

/* 1 when `"key": null` follows `from`. */
static inline int ac_test_json_is_null(const char *from, const char *key)
{
    char k[128];
    snprintf(k, sizeof k, "\"%s\": null", key);
    return from != NULL && strstr(from, k) != NULL;
}

/* The number after the k-th (0-based) `"key": ` of the row `"metric": "<metric>"` (compare's
 * JSON), before the next row's; NAN if absent. */
static inline double ac_test_json_row_number(const char *json, const char *metric, const char *key,
                                             int k)
{
    char m[96], kk[64];
    const char *p, *end;
    snprintf(m, sizeof m, "\"metric\": \"%s\"", metric);
    snprintf(kk, sizeof kk, "\"%s\": ", key);
    p = strstr(json, m);
    end = p != NULL ? strstr(p + 1, "\"metric\": ") : NULL; /* the next row */
    for (int i = 0; p != NULL && i <= k; i++)
        p = strstr(p + 1, kk);
    if (p == NULL || (end != NULL && p > end))
        return NAN;
    return strtod(p + strlen(kk), NULL);
}

#endif
