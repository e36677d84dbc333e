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

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* cmocka's assert_float_equal compares as float. This one compares doubles:
 * it passes when |a - b| <= abs_tol or |a - b| <= rel_tol * max(|a|, |b|). */
#define assert_double_close(a, b, abs_tol, rel_tol)                                                \
    ac_test_double_close((a), (b), (abs_tol), (rel_tol), #a, #b, __FILE__, __LINE__)

static inline void ac_test_double_close(double a, double b, double abs_tol, double rel_tol,
                                        const char *sa, const char *sb, const char *file,
                                        int line)
{
    double diff = fabs(a - b);
    double scale = fmax(fabs(a), fabs(b));
    if (!(diff <= abs_tol || diff <= rel_tol * scale)) {
        print_error("%s = %.17g and %s = %.17g differ by %.3g (abs tol %.3g, rel tol %.3g)\n",
                    sa, a, sb, b, diff, abs_tol, rel_tol);
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

/* Run argv (argv[0] a path) with the working directory `dir` (NULL: unchanged), stdout and
 * stderr captured to temporary files. Free with ac_test_run_free. */
static inline ac_test_run ac_test_exec(const char *dir, char *const argv[])
{
    ac_test_run r = {-1, NULL, NULL};
    char out_path[] = "/tmp/ac_test_outXXXXXX";
    char err_path[] = "/tmp/ac_test_errXXXXXX";
    int fo = mkstemp(out_path);
    int fe = mkstemp(err_path);
    pid_t pid;
    int st = 0;
    if (fo < 0 || fe < 0)
        return r;
    pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(fo, 1);
        dup2(fe, 2);
        if (dir != NULL && chdir(dir) != 0)
            _exit(127);
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
    return r;
}

/* Run the archcheck binary under test (AC_TEST_BIN) in AC_SOURCE_DIR with the arguments given
 * (NULL-terminated, at most 32). Fails the test if archcheck dies of a signal: whatever the
 * input, it never should. */
#if defined(AC_TEST_BIN) && defined(AC_SOURCE_DIR)
static inline ac_test_run run_ac(const char *arg, ...)
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
    for (size_t i = 0; i < n; i++)
        assert_non_null(argv[i]);
    r = ac_test_exec(AC_SOURCE_DIR, argv);
    for (size_t i = 0; i < n; i++)
        free(argv[i]);
    assert_non_null(r.out);
    assert_non_null(r.err);
    if (r.status >= 128)
        fail_msg("archcheck %s ... died with signal %d\nstderr:\n%s", arg != NULL ? arg : "",
                 r.status - 128, r.err);
    return r;
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

#endif
