/*
 * Atomic output files (temporary file in the same directory, then rename).
 */
#include "common/atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strbuf.h"

int ac_atomic_open(ac_atomic_file *f, const char *path, ac_error *err)
{
    int fd;
    memset(f, 0, sizeof f[0]);
    f->path = ac_strdup(path);
    f->tmp_path = ac_strdupf("%s.tmp.XXXXXX", path);
    if (f->path == NULL || f->tmp_path == NULL) {
        ac_atomic_abort(f);
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    }
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
    int failed = ferror(f->fp) || fflush(f->fp) != 0 || fsync(fileno(f->fp)) != 0;
    int e = errno;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    f->fp = NULL;
    if (!failed) {
        /* mkstemp creates 0600; give the report the usual permissions */
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
        unlink(f->tmp_path);
    }
    free(f->path);
    free(f->tmp_path);
    memset(f, 0, sizeof f[0]);
    return rc;
}

void ac_atomic_abort(ac_atomic_file *f)
{
    if (f == NULL)
        return;
    if (f->fp != NULL)
        fclose(f->fp);
    if (f->tmp_path != NULL)
        unlink(f->tmp_path);
    free(f->path);
    free(f->tmp_path);
    memset(f, 0, sizeof f[0]);
}
