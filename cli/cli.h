/*
 * The command line (internal to cli/): one file per command.
 * Only cli/ reads argv, prints to the terminal and chooses the exit status.
 */
#ifndef AC_CLI_H
#define AC_CLI_H

#include <stdio.h>

#include "archcheck/report.h"

/* Exit statuses (doc/archcheck.1). */
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
int ac_cli_search(int argc, char **argv);
int ac_cli_size(int argc, char **argv);

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

/* Check a --color value (auto, always or never) and keep it in *mode. Returns 0, or
 * AC_EXIT_USAGE after printing why. */
int ac_cli_color_parse(const char *value, const char **mode);

/* The output options of check, lint and compare: --format (among `formats`, a
 * NULL-terminated list), --output and --color (getopt codes 'f', 'o' and 'c'). */
typedef struct ac_cli_out_opts {
    const char *const *formats;
    ac_cli_format format; /* text unless --format */
    const char *out;      /* NULL: the standard stream */
    const char *color;    /* "auto" unless --color */
} ac_cli_out_opts;

void ac_cli_out_opts_init(ac_cli_out_opts *o, const char *const *formats);

/* Take getopt's option `c` (argument `arg`) if it is an output option. Returns 1 taken,
 * 0 not an output option, AC_EXIT_USAGE after printing why the argument is wrong. */
int ac_cli_out_opts_parse(ac_cli_out_opts *o, int c, const char *arg);

/* A whole number from 0 to max, digits only. Returns 0 or -1. */
int ac_cli_ulong_parse(const char *s, unsigned long max, unsigned long *out);

/* The options that check and compare share: --seed, --validate, --no-validate, --report and
 * --timestamp (getopt codes 's', 'v', 'V', 'r' and 'T'). */
typedef struct ac_cli_run_opts {
    unsigned long seed; /* 1 unless --seed */
    int has_seed;
    ac_validate_mode validate;
    const char *report; /* the PDF to write, or NULL */
    int timestamp;      /* date the PDF */
} ac_cli_run_opts;

void ac_cli_run_opts_init(ac_cli_run_opts *o);

/* Take getopt's option `c` (argument `arg`) if it is one of the shared ones. Returns 1 taken,
 * 0 not a shared option, AC_EXIT_USAGE after printing why the argument is wrong. */
int ac_cli_run_opts_parse(ac_cli_run_opts *o, int c, const char *arg);

/* The analysis options of the shared options (defaults, the seed and the validation mode). */
void ac_cli_run_opts_apply(const ac_cli_run_opts *o, ac_analysis_options *aopt);

/* The PDF options: the fonts from $ARCHCHECK_FONT_DIR; with --timestamp the creation date
 * ($SOURCE_DATE_EPOCH if set, for reproducible builds, else now). */
void ac_cli_pdf_options_init(ac_report_pdf_options *opt, const ac_cli_run_opts *o);

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

/* ac_cli_input_load of the files after the options (argv[optind..]); without any, print
 * `usage` and "COMMAND: no input file" to stderr. Returns 0, or AC_EXIT_USAGE with nothing
 * left to free. */
int ac_cli_input_load_args(ac_cli_input *in, int argc, char **argv, const char *command,
                           const char *usage, ac_severity fail_on);

/* Analyse every valid input (findings join the file's diagnostics; verdicts are
 * recomputed). Without has_seed, a file's <faults seed> seeds its simulation.
 * Returns 0 or AC_EXIT_USAGE after printing a fatal error. */
int ac_cli_input_analyse(ac_cli_input *in, const ac_analysis_options *opt, ac_severity fail_on,
                         int has_seed);
void ac_cli_input_free(ac_cli_input *in);

/* `check --size` and `size` (cli/cmd_size.c): size every analysed input (out[i] one per
 * input, NULL where not analysed; the caller frees each with ac_sizing_free) and point
 * in->files[i].sizing at it. Returns 0 or AC_EXIT_USAGE after printing why. */
int ac_cli_size_attach(ac_cli_input *in, const ac_analysis_options *aopt, size_t max_probes,
                       size_t max_sims, ac_sizing **out);
/* The progress bar of long work: drawn on `stream` (stderr) only when it is a terminal and
 * not `quiet`; ac_cli_progress_update (an ac_sim_options.progress callback, ctx the bar)
 * takes the work done in [0, 1] (a fall by more than a quarter starts a new piece of work);
 * ac_cli_progress_end erases the bar and starts over. Nothing is written
 * to any other stream. */
typedef struct ac_cli_progress {
    FILE *fp;
    const char *what;
    int on, drawn;
    size_t part; /* pieces of work after the first (the work done fell back) */
    double t0, last_draw, done;
} ac_cli_progress;

void ac_cli_progress_init(ac_cli_progress *p, const char *what, int quiet, FILE *stream);
void ac_cli_progress_update(void *ctx, double done);
void ac_cli_progress_end(ac_cli_progress *p);
/* ac_cli_progress_end, then a bar at 0% for the work named `what` (borrowed). */
void ac_cli_progress_start(void *ctx, const char *what);

/* Exit status for a run's verdicts: 2 if any input is invalid, else 1 if any
 * fails, else 3 if any is inconclusive, else 0. */
int ac_cli_exit_status(const ac_report_run *run);

#endif
