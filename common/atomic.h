/*
 * Atomic output files: write to a temporary file beside the target, then
 * rename it into place, so that a reader never sees half a file
 * (internal header).
 */
#ifndef AC_COMMON_ATOMIC_H
#define AC_COMMON_ATOMIC_H

#include <stdio.h>

#include "archcheck/error.h"

typedef struct ac_atomic_file {
    FILE *fp;        /* write here */
    char *path;      /* the final path */
    char *tmp_path;  /* the temporary file */
} ac_atomic_file;

/* Create the temporary file for `path`. Returns 0, or AC_EIO with err set. */
int ac_atomic_open(ac_atomic_file *f, const char *path, ac_error *err);

/* Flush, sync and rename into place. On failure the temporary file is removed
 * and AC_EIO returned with err set. Always releases f. */
int ac_atomic_commit(ac_atomic_file *f, ac_error *err);

/* Abandon: remove the temporary file and release f. NULL-safe. */
void ac_atomic_abort(ac_atomic_file *f);

#endif
