/*
 * The command line (internal to cli/): one file per command.
 * Only cli/ reads argv, prints to the terminal and chooses the exit status.
 */
#ifndef AC_CLI_H
#define AC_CLI_H

#include <stdio.h>

#include "archcheck/report.h"

/* Exit statuses (spec/output.md). */
enum {
    AC_EXIT_PASS = 0,
    AC_EXIT_FAIL = 1,
    AC_EXIT_USAGE = 2, /* bad input or command line */
    AC_EXIT_INCONCLUSIVE = 3
};

int ac_cli_lint(int argc, char **argv);
int ac_cli_check(int argc, char **argv);
int ac_cli_rules(int argc, char **argv);
int ac_cli_schema(int argc, char **argv);
int ac_cli_solve(int argc, char **argv);
int ac_cli_simulate(int argc, char **argv);
int ac_cli_compare(int argc, char **argv);

/* Print "archcheck: " and the message to stderr; returns AC_EXIT_USAGE. */
int ac_cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

typedef enum ac_cli_format {
    AC_FORMAT_TEXT = 0,
    AC_FORMAT_JSON,
    AC_FORMAT_SARIF,
    AC_FORMAT_JUNIT
} ac_cli_format;

/* Parse a --format value among those allowed (a NULL-terminated list of names). */
int ac_cli_parse_format(const char *value, const char *const *allowed, ac_cli_format *out);

/* Write the run in `format` to `out_path` (atomically) or to `stream` when out_path is NULL.
 * Returns 0, or AC_EXIT_USAGE after printing why. */
int ac_cli_write(const ac_report_run *run, ac_cli_format format, const char *out_path,
                 FILE *stream);

/* Is colour wanted on this stream? `mode` is "auto", "always" or "never". */
int ac_cli_color(const char *mode, FILE *stream);

/* The shared engine of lint and check: parse and validate each file, fill
 * files[] (diags owned by the caller's lists). Returns 0, or AC_EXIT_USAGE on a
 * fatal error (out of memory). */
typedef struct ac_cli_input {
    ac_report_file *files;
    ac_diag_list *diags;
    ac_model **models;
    ac_analysis **analyses;
    size_t n;
} ac_cli_input;

int ac_cli_input_load(ac_cli_input *in, char **paths, size_t n, ac_severity fail_on);

/* Analyse every valid input (findings join the file's diagnostics; verdicts are
 * recomputed). Without has_seed, a file's <faults seed> seeds its simulation.
 * Returns 0 or AC_EXIT_USAGE after printing a fatal error. */
int ac_cli_input_analyse(ac_cli_input *in, const ac_analysis_options *opt, ac_severity fail_on,
                         int has_seed);
void ac_cli_input_free(ac_cli_input *in);

/* Exit status for a run's verdicts: 2 if any input is invalid, else 1 if any
 * fails, else 3 if any is inconclusive, else 0. */
int ac_cli_exit_status(const ac_report_run *run);

#endif
