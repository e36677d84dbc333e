/*
 * The command line (internal to cli/): one file per command.
 * Only cli/ reads argv, prints to the terminal and chooses the exit status.
 */
#ifndef AC_CLI_H
#define AC_CLI_H

#include <getopt.h>
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
int ac_cli_tune(int argc, char **argv);

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
    AC_FORMAT_JUNIT,
    AC_FORMAT_GITLAB
} ac_cli_format;

/* Parse a --format value among those allowed (a NULL-terminated list of names). */
int ac_cli_parse_format(const char *value, const char *const *allowed, ac_cli_format *out);

/* A writer for ac_cli_emit: writes what ctx points at to fp. Returns AC_OK or a negative
 * status (the stream's error state says whether the stream failed). */
typedef int (*ac_cli_writer)(FILE *fp, const void *ctx);

/* Run `write` on `stream` when path is NULL or "-", or else on `path` written atomically
 * (common/atomic.h: committed when the writer succeeds, removed when it fails). Returns 0,
 * or AC_EXIT_USAGE after saying why on stderr; a failed write to stdout is left for main()
 * to report (it checks stdout's error state on exit). */
int ac_cli_emit(const char *path, FILE *stream, ac_cli_writer write, const void *ctx);

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
 * NULL-terminated list), --output, --color and --sarif-root (getopt codes 'f', 'o', 'c', 'R'). */
typedef struct ac_cli_out_opts {
    const char *const *formats;
    ac_cli_format format;   /* text unless --format */
    const char *out;        /* NULL: the standard stream */
    const char *color;      /* "auto" unless --color */
    const char *sarif_root; /* --sarif-root (getopt code 'R'), or NULL */
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

/* Input paths as linters take them (cli/inputs.c): `-` is the standard input, a directory is
 * searched for architecture files (.xml, root element <architecture>), sorted; with
 * arch_only, a named file whose root is not <architecture> (a pom.xml) is skipped. */
typedef struct ac_cli_paths {
    char **v;
    size_t n, cap;
    size_t skipped; /* named files skipped by arch_only */
    int empty_dir;  /* a directory held no architecture file */
} ac_cli_paths;

int ac_cli_paths_expand(char **args, size_t n, int arch_only, ac_cli_paths *out);
void ac_cli_paths_free(ac_cli_paths *l);
/* 1 when the file's root element is <architecture> (what precedes it: BOM, comments, PIs). */
int ac_cli_is_architecture(const char *path);
/* Parse the standard input as "<stdin>" (at most the parser's 16 MiB). */
int ac_cli_parse_stdin(char sha256_hex[65], ac_model **model, ac_diag_list *diags, ac_error *err);

/* The shared engine of lint and check: parse and validate each file, fill
 * files[] (diags owned by the caller's lists). Returns 0, or AC_EXIT_USAGE on a
 * fatal error (out of memory). */
typedef struct ac_cli_input {
    ac_cli_paths paths; /* the expanded paths (ac_cli_input_load_args), owned */
    ac_report_file *files;
    ac_diag_list *diags;
    ac_model **models;
    ac_analysis **analyses;
    size_t n;
} ac_cli_input;

int ac_cli_input_load(ac_cli_input *in, char **paths, size_t n, ac_severity fail_on);

/* ac_cli_input_load of the files after the options (argv[optind..], expanded by
 * ac_cli_paths_expand); without any, print `usage` and "COMMAND: no input file" to stderr.
 * Returns 0, AC_CLI_NOTHING when every named file was skipped (arch_only: nothing to check,
 * not an error), or AC_EXIT_USAGE (also for a directory without architecture files), with
 * nothing left to free. */
#define AC_CLI_NOTHING (-1)
int ac_cli_input_load_args(ac_cli_input *in, int argc, char **argv, const char *command,
                           const char *usage, ac_severity fail_on, int arch_only);

/* Analyse every valid input (findings join the file's diagnostics; verdicts are
 * recomputed). Without has_seed, a file's <faults seed> seeds its simulation.
 * Returns 0 or AC_EXIT_USAGE after printing a fatal error. */
int ac_cli_input_analyse(ac_cli_input *in, const ac_analysis_options *opt, ac_severity fail_on,
                         int has_seed);
void ac_cli_input_free(ac_cli_input *in);
/* ac_cli_input_load of the one file `path` for the commands of one model (search, simulate,
 * size, tune). Returns 0 with in->models[0] set, or AC_EXIT_USAGE with nothing left to free:
 * a fatal error (printed), or an input that did not parse, whose diagnostics are printed on
 * stderr as check's text (with colour when `color`). */
int ac_cli_input_load_one(ac_cli_input *in, char *path, int color);

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

/* Rule selection (cli/select.c): --select LIST keeps only those rules' findings, --exclude
 * LIST drops those; a dropped finding is marked suppressed (with the option as its reason),
 * and so are the failed checks of its rule. Input errors and AC900 are never dropped. */
typedef struct ac_cli_rule_filter {
    char ids[64][16];
    int select[64]; /* 1: from --select, 0: from --exclude */
    size_t n;
} ac_cli_rule_filter;

/* The options of the linter commands (lint and check), spliced into each one's option table:
 * the output options, --architectures-only, --no-config, --select, --exclude and --help. */
/* clang-format off */
#define AC_CLI_LINTER_OPTIONS                                                                      \
    {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},           \
        {"color", required_argument, NULL, 'c'}, {"sarif-root", required_argument, NULL, 'R'},    \
        {"architectures-only", no_argument, NULL, 'A'}, {"no-config", no_argument, NULL, 'N'},    \
        {"select", required_argument, NULL, 'S'}, {"exclude", required_argument, NULL, 'X'},      \
        {"help", no_argument, NULL, 'h'}
/* clang-format on */

typedef struct ac_cli_linter_opts {
    ac_cli_out_opts out;
    int arch_only; /* --architectures-only */
    ac_cli_rule_filter filter;
} ac_cli_linter_opts;

void ac_cli_linter_opts_init(ac_cli_linter_opts *o, const char *const *formats);

/* Take getopt's option `c` (argument `arg`) if it is one of AC_CLI_LINTER_OPTIONS but --help.
 * Returns 1 taken, 0 not one of them, AC_EXIT_USAGE after printing why the argument is
 * wrong. */
int ac_cli_linter_opts_parse(ac_cli_linter_opts *o, int c, const char *arg);

/* Add a comma-separated list of rule ids (each checked, with the nearest id suggested).
 * Returns 0 or AC_EXIT_USAGE after printing why. */
int ac_cli_rule_filter_add(ac_cli_rule_filter *f, int select, const char *list);
/* Apply the filter to a file's findings (and its analysis' checks; may be NULL). Returns 0 or
 * -1 out of memory. */
int ac_cli_rule_filter_apply(const ac_cli_rule_filter *f, ac_diag_list *diags, ac_analysis *a);
/* An AC033 warning for each <suppress> of `m` that silenced no finding of `diags`. Returns 0
 * or -1 out of memory. */
int ac_cli_unused_suppressions(const ac_model *m, const char *file, ac_diag_list *diags);

/* Levenshtein distance (ASCII case-insensitive; (size_t)-1 for words over 63 characters). */
size_t ac_cli_edit_distance(const char *a, const char *b);
/* The candidate nearest to `word` if within a third of its length (+1), else NULL. */
const char *ac_cli_suggest(const char *word, const char *const *candidates, size_t n);

/* 1 when `word` is one of words[0..n); else 0 and *near the nearest (or NULL). */
int ac_cli_known_word(const char *word, const char *const *words, size_t n, const char **near);

/* After getopt_long returned '?' (with opterr = 0): print `usage` and why, with the nearest
 * long option for an unknown one ("did you mean '--format'?"). Returns AC_EXIT_USAGE. */
int ac_cli_bad_option(char **argv, const struct option *opts, const char *shortopts,
                      const char *usage);

/* The project file (cli/config.c): the nearest .archcheck.toml from the working directory up
 * puts its options (those of `opts`) before the command line's: *argc and *argv are replaced
 * (and *owned set: free with ac_cli_config_free(owned, new argc, old argc)). Nothing when
 * there is none or the command line has --no-config. Returns 0 or AC_EXIT_USAGE after printing
 * FILE:LINE: error: ... (an unknown key gets the nearest one). */
int ac_cli_config_args(const char *command, const struct option *opts, int *argc, char ***argv,
                       char ***owned);
void ac_cli_config_free(char **owned, int argc, int original_argc);

/* Exit status for a run's verdicts: 2 if any input is invalid, else 1 if any
 * fails, else 3 if any is inconclusive, else 0. */
int ac_cli_exit_status(const ac_report_run *run);

#endif
