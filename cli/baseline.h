/*
 * Baselines for CI (internal to cli/): `check --write-baseline FILE` records the current
 * findings; `check --baseline FILE` reports the findings recorded there as suppressed
 * ("in baseline") so that they do not fail the verdict, and fails only on new ones.
 *
 * A finding is identified by its file (relative to the baseline's directory), rule, node and a
 * fingerprint of its message (SHA-256 of the message with every number replaced by '#', first 16
 * hex digits), never by its line: edits elsewhere in the file do not invalidate the baseline, and a
 * number that drifts (a p99 of 1.21 s instead of 1.2 s) is still the same finding. Input errors
 * (AC0xx errors) are never baselined.
 *
 * The file is JSON:
 *   { "archcheck_baseline": 1, "archcheck": "0.1.0",
 *     "findings": [ { "file": "design.xml", "rule": "AC103", "node": "api",
 *                     "fingerprint": "9f2c...", "severity": "error", "message": "..." } ] }
 * ("severity" and "message" are for the reader; matching ignores them.)
 */
#ifndef AC_CLI_BASELINE_H
#define AC_CLI_BASELINE_H

#include <stddef.h>

#include "archcheck/analysis.h"
#include "archcheck/error.h"

typedef struct ac_baseline_entry {
    char *file, *rule, *node, *fingerprint;
    char *severity, *message; /* for the reader; NULL when loaded */
} ac_baseline_entry;

typedef struct ac_baseline {
    ac_baseline_entry *items;
    size_t count, capacity;
    char *dir; /* the baseline file's directory (absolute), or NULL: paths as given */
} ac_baseline;

/* An empty baseline for the file `path`: the findings' files are recorded and matched by
 * their path relative to the directory of `path` (when it resolves), so that a baseline
 * matches whatever the working directory. Returns 0 or AC_ENOMEM. */
int ac_baseline_init(ac_baseline *b, const char *path);

/* The fingerprint of a message: 16 lower-case hex digits and a NUL. */
void ac_baseline_fingerprint(const char *message, char out[17]);

/* Read a baseline file. Returns 0, or AC_EIO / AC_EINPUT / AC_ENOMEM with err set. */
int ac_baseline_load(ac_baseline *b, const char *path, ac_error *err);

/* Add every baselinable finding of `diags` (unsuppressed ones, and those already suppressed
 * as "in baseline"). Returns 0 or AC_ENOMEM. */
int ac_baseline_add(ac_baseline *b, const char *file, const ac_diag_list *diags);

/* Write the baseline atomically. Returns 0 or AC_EIO with err set. */
int ac_baseline_write(const ac_baseline *b, const char *path, ac_error *err);

/* Mark the findings of `diags` that are in the baseline as suppressed "in baseline", and the
 * failed checks of `analysis` (may be NULL) with the same rule and node as suppressed.
 * Returns the number of findings matched, or AC_ENOMEM. */
int ac_baseline_apply(const ac_baseline *b, const char *file, ac_diag_list *diags,
                      ac_analysis *analysis);

void ac_baseline_free(ac_baseline *b);

#endif
