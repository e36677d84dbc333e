/*
 * Output files: atomic replacement of regular files, write-through to devices and FIFOs
 * (see common/atomic.h).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "common/atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strbuf.h"

static void block_signals(ac_atomic_file *f)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGXFSZ);
    f->masked = sigprocmask(SIG_BLOCK, &set, &f->saved) == 0;
}

/* Release f; a signal that arrived while the temporary file existed is delivered here. */
static void release(ac_atomic_file *f)
{
    int masked = f->masked;
    sigset_t saved = f->saved;
    free(f->path);
    free(f->tmp_path);
    memset(f, 0, sizeof f[0]);
    if (masked)
        sigprocmask(SIG_SETMASK, &saved, NULL);
}

static const char *kind_name(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file, a character device or a FIFO";
}

/* Write through to a character device or a FIFO (never created, never truncated). */
static int open_direct(ac_atomic_file *f, const char *path, ac_error *err)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    int flags;
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO)
            return ac_error_set(err, AC_EIO, "cannot write '%s': no process reads the FIFO", path);
        return ac_error_set(err, AC_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) ||
        (flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        close(fd);
        return ac_error_set(err, AC_EIO, "cannot write '%s': it changed while being opened", path);
    }
    f->path = ac_strdup(path);
    f->fp = f->path != NULL ? fdopen(fd, "w") : NULL;
    if (f->fp == NULL) {
        close(fd);
        free(f->path);
        f->path = NULL;
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    }
    return AC_OK;
}

/* Where the data goes: `*target` (malloc'd) is the regular file to replace (perhaps new), or
 * NULL to write `path` through (a character device or a FIFO). */
static int resolve(const char *path, char **target, ac_error *err)
{
    struct stat st;
    char *real = NULL;
    *target = NULL;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return ac_error_set(err, AC_EIO, "cannot write '%s': %s", path, strerror(errno));
        st.st_mode = S_IFREG; /* a new file */
    } else if (S_ISLNK(st.st_mode)) {
        real = realpath(path, NULL);
        if (real == NULL || stat(real, &st) != 0) {
            free(real);
            return ac_error_set(err, AC_EIO,
                                "cannot write '%s': it is a symbolic link to a file that does "
                                "not exist",
                                path);
        }
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        free(real);
        return AC_OK;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *verb = real != NULL ? "links to" : "is";
        free(real);
        return ac_error_set(err, AC_EIO, "cannot write '%s': it %s %s", path, verb,
                            kind_name(st.st_mode));
    }
    *target = real != NULL ? real : ac_strdup(path); /* a link: its target, the link survives */
    return *target != NULL ? AC_OK : ac_error_set(err, AC_ENOMEM, "out of memory");
}

int ac_atomic_open(ac_atomic_file *f, const char *path, ac_error *err)
{
    char *target = NULL;
    int fd, rc;
    memset(f, 0, sizeof f[0]);
    rc = resolve(path, &target, err);
    if (rc != AC_OK)
        return rc == AC_ENOMEM ? rc : AC_EIO;
    if (target == NULL)
        return open_direct(f, path, err) == AC_OK ? AC_OK : AC_EIO;
    f->path = target;
    f->tmp_path = ac_strdupf("%s.tmp.XXXXXX", target);
    if (f->tmp_path == NULL) {
        ac_atomic_abort(f);
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    }
    block_signals(f); /* from before the temporary file exists until it is gone */
    fd = mkstemp(f->tmp_path);
    if (fd < 0) {
        int e = errno;
        free(f->tmp_path);
        f->tmp_path = NULL;
        ac_atomic_abort(f);
        return ac_error_set(err, AC_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    f->fp = fdopen(fd, "w");
    if (f->fp == NULL) {
        int e = errno;
        close(fd);
        ac_atomic_abort(f);
        return ac_error_set(err, AC_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return AC_OK;
}

int ac_atomic_commit(ac_atomic_file *f, ac_error *err)
{
    int rc = AC_OK;
    int failed =
        ferror(f->fp) || fflush(f->fp) != 0 || (f->tmp_path != NULL && fsync(fileno(f->fp)) != 0);
    int e = failed && errno != 0 ? errno : EIO;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    f->fp = NULL;
    if (!failed && f->tmp_path != NULL) {
        /* mkstemp creates 0600; give the output the usual permissions */
        mode_t mask = umask(0);
        umask(mask);
        (void)chmod(f->tmp_path, 0666 & ~mask);
        if (rename(f->tmp_path, f->path) != 0) {
            failed = 1;
            e = errno;
        }
    }
    if (failed) {
        rc = ac_error_set(err, AC_EIO, "cannot write '%s': %s", f->path, strerror(e));
        if (f->tmp_path != NULL)
            unlink(f->tmp_path);
    }
    release(f);
    return rc;
}

void ac_atomic_abort(ac_atomic_file *f)
{
    if (f == NULL)
        return;
    if (f->fp != NULL)
        fclose(f->fp);
    f->fp = NULL;
    if (f->tmp_path != NULL)
        unlink(f->tmp_path);
    release(f);
}
