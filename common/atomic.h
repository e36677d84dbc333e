/*
 * Output files (internal header). A regular file (or a new one) is written atomically: to a
 * temporary file beside it, then renamed into place, so that a reader never sees half a file;
 * a symbolic link is followed and its target replaced, so the link survives. A character
 * device (/dev/null, /dev/stdout, a terminal) or a FIFO is written through; anything else (a
 * directory, a block device, a socket, a dangling link) is refused.
 *
 * While the temporary file exists, the signals that end a process (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGXFSZ) are blocked: one that arrives is delivered, with its own disposition,
 * once the temporary file has been renamed or removed, so an interrupted run leaves no
 * `*.tmp.XXXXXX` behind. Nothing is installed and no global state is kept.
 */
#ifndef AC_COMMON_ATOMIC_H
#define AC_COMMON_ATOMIC_H

#include <signal.h>
#include <stdio.h>

#include "archcheck/error.h"

typedef struct ac_atomic_file {
    FILE *fp;       /* write here */
    char *path;     /* the final path (a link's target when `path` was a link) */
    char *tmp_path; /* the temporary file; NULL when written through */
    int masked;     /* the signals are blocked; `saved` is the mask to restore */
    sigset_t saved;
} ac_atomic_file;

/* Open `path` for writing as described above. Returns 0, or AC_EIO with err set ("cannot
 * write 'PATH': why"). */
int ac_atomic_open(ac_atomic_file *f, const char *path, ac_error *err);

/* Flush, sync and rename into place (written through: flush and close). On failure the
 * temporary file is removed and AC_EIO returned with err set. Always releases f. */
int ac_atomic_commit(ac_atomic_file *f, ac_error *err);

/* Abandon: remove the temporary file and release f. NULL-safe. */
void ac_atomic_abort(ac_atomic_file *f);

#endif
