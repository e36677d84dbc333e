/*
 * archcheck: writing verdicts and findings (text, JSON, SARIF 2.1.0, JUnit XML, PDF).
 *
 * Each writer takes the results of one run over one or more input files and
 * writes to a stdio stream that the caller owns. Output is deterministic:
 * the same results give the same bytes. Formats follow doc/archcheck.1.
 */
#ifndef ARCHCHECK_REPORT_H
#define ARCHCHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "archcheck/analysis.h"
#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/search.h"
#include "archcheck/size.h"
#include "archcheck/tune.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ac_verdict {
    AC_VERDICT_PASS = 0,
    AC_VERDICT_FAIL,
    AC_VERDICT_INCONCLUSIVE,
    AC_VERDICT_INVALID /* the input could not be analysed (exit status 2) */
} ac_verdict;

/* "pass", "fail", "inconclusive", "invalid". */
const char *ac_verdict_name(ac_verdict v);

/* The results for one input file. Everything is borrowed from the caller. */
typedef struct ac_report_file {
    const char *file; /* the path as given */
    char sha256[65];  /* hex digest of the file's bytes, "" if unread */
    ac_verdict verdict;
    const ac_diag_list *diags;   /* this file's findings, sorted */
    const ac_model *model;       /* NULL when the input was invalid */
    const ac_analysis *analysis; /* NULL when not analysed (lint, invalid input) */
    /* `size` and `check --size` (NULL otherwise): the sizing, and with --dispatch the
       comparison rows of pool dispatch_node (ndispatch of them) */
    const ac_sizing *sizing;
    const ac_dispatch_row *dispatch;
    size_t ndispatch, dispatch_node;
} ac_report_file;

typedef struct ac_report_run {
    const char *command; /* "lint", "check", ... */
    const ac_report_file *files;
    size_t nfiles;
    unsigned long seed;
    int has_seed;
    int color;              /* text only: ANSI colours */
    int verbose;            /* text only: list every check (value, limit, status) */
    ac_severity fail_on;    /* findings at or above this severity fail the verdict */
    int fail_never;         /* --fail-on never: the exit status is 0 whatever the verdict */
    const char *sarif_root; /* SARIF: URIs relative to this directory (NULL: the working
                               directory) */
    int has_exit_status;    /* exit_status is the command's (check, lint) */
    int exit_status;
} ac_report_run;

/* gcc-style diagnostics, `FILE:LINE:COL: SEVERITY: MESSAGE [RULE]`, detail lines
 * indented, then one summary line. Suppressed findings are not printed. */
int ac_report_text(FILE *fp, const ac_report_run *run);

/* JSON per doc/archcheck.1, one shape for any number of files: an object with "files" (an
 * object per file); with one file its keys are also at the top level (the output.md
 * contract), with several the top level has "archcheck", the worst "verdict" and
 * "exit_status". */
int ac_report_json(FILE *fp, const ac_report_run *run);

/* The streaming JSON writer of common/jsonw.h (its caller initialises and owns it). */
struct ac_jsonw;

/* The members every JSON document about one file opens with, written into the object that `w`
 * has open: "archcheck" (the version), "file", "sha256" (left out when sha256 is NULL) and
 * "seed" (left out when seed is NULL), in that order (doc/output.md). Everything is borrowed,
 * nothing is kept or allocated. No return value: a write error stays on w's stream, which the
 * caller checks (ferror: AC_EIO) when it ends the document. Used by every JSON form of
 * report/ and by `solve --transient` and `search` (cli/). */
void ac_report_json_header(struct ac_jsonw *w, const char *file, const char *sha256,
                           const unsigned long *seed);

/* The suppression reason of a finding matched by a baseline (`check --baseline`). */
#define AC_REPORT_IN_BASELINE "in baseline"

/* The fingerprint of a finding's message: SHA-256 of the message with every number replaced
 * by '#', its first 16 hex digits (lower case) and a NUL. A number that drifts is the same
 * finding. */
void ac_report_fingerprint(const char *message, char out[17]);

/* "file:///abs/root/" (percent-encoded) of the directory `root` (NULL: the working
 * directory), or NULL when it cannot be resolved or memory runs out. Caller frees. */
char *ac_report_root_uri(const char *root);

/* The SARIF URI of `file`: relative to `root` (NULL: the working directory), percent-encoded,
 * with *relative = 1; a file outside the root is an absolute file:// URI (*relative = 0).
 * NULL when memory runs out. Caller frees. */
char *ac_report_artifact_uri(const char *file, const char *root, int *relative);

/* The path of `file` relative to `root` (NULL: the working directory), not encoded; absolute
 * outside it. Caller frees; NULL when memory runs out. */
char *ac_report_artifact_path(const char *file, const char *root);

/* A finding's identity across commits: SHA-256 of its file's URI, rule, node and message
 * fingerprint (never the line), 32 hex digits and a NUL. Returns 0 or AC_ENOMEM. */
int ac_report_finding_fingerprint(const ac_diag *d, const char *root, char out[33]);

/* GitLab Code Quality JSON: an array, one issue per unsuppressed finding (description,
 * check_name, fingerprint, severity info/minor/major, location.path and lines.begin). */
int ac_report_gitlab(FILE *fp, const ac_report_run *run);

/* SARIF 2.1.0: one run, the rules that fired, one result per finding, URIs relative to the
 * root (originalUriBaseIds ROOT), partialFingerprints, suppressions inSource (<suppress>) or
 * external (a baseline). */
int ac_report_sarif(FILE *fp, const ac_report_run *run);

/* JUnit XML: one test suite per file, one test case per check. */
int ac_report_junit(FILE *fp, const ac_report_run *run);

/* CSV of the response-time distributions: one row per time point, columns
 * t_s, then P(T > t) for each analysed node and end to end. */
int ac_report_csv(FILE *fp, const ac_report_file *file);

/* The result of `archcheck simulate`: JSON (each quantity with a sibling <key>_ci95) or
 * a text table. */
int ac_report_simulation_json(FILE *fp, const ac_report_file *file, const ac_sim_result *result);
int ac_report_simulation_text(FILE *fp, const ac_report_file *file, const ac_sim_result *result);

/* `archcheck size` as text: per node the count as written, needed at the load and with the
 * required headroom, the binding requirement, the total saved or missing; with --dispatch the
 * comparison table (report/size.c). Nothing when file->sizing is NULL. */
int ac_report_sizing_text(FILE *fp, const ac_report_file *file);

/* A human-readable table of the solution: nodes, equilibria, end to end, headroom. */
int ac_report_solution_text(FILE *fp, const ac_report_file *file);

/* `archcheck tune` (report/tune.c): the settings as written and the best, their cost and
 * checks, the search's work; as text, or as JSON (doc/output.md "tune"). Return 0 or AC_EIO. */
int ac_report_tune_text(FILE *fp, const char *file, const ac_model *model, const ac_tune_result *r);
int ac_report_tune_json(FILE *fp, const char *file, const char *sha256, unsigned long seed,
                        const ac_model *model, const ac_tune_result *r);

/*
 * The PDF report (`archcheck check --report OUT.pdf`): per file, a verdict page (verdict,
 * file, SHA-256, version, seed, every check with its value, limit and simulation, then the
 * findings), one page per node (KPIs with approximation and expected error, equilibria, the
 * queue-length distribution and the response-time CCDF with p95/p99), an end-to-end page
 * (CCDF, headroom, utilisation per node) and "How these numbers were obtained"
 * (approximations, their stated and measured errors, assumptions, suppressions).
 *
 * Text is UTF-8 in embedded DejaVu Sans (any label prints). The output is deterministic: the
 * same run gives the same bytes; no date or id is written unless has_creation_date. The file
 * is written atomically (temporary file, then rename): on failure nothing is left at `path`.
 */
typedef struct ac_report_pdf_options {
    int has_creation_date;   /* 1: write CreationDate (and ModDate) */
    long long creation_date; /* seconds since 1970-01-01 00:00 UTC */
    const char *font_dir;    /* holds DejaVuSans.ttf and DejaVuSans-Bold.ttf; NULL: the
                                default, /usr/share/fonts/truetype/dejavu */
} ac_report_pdf_options;

/* Fill `opt` with the defaults (no date, the default font directory). */
void ac_report_pdf_options_init(ac_report_pdf_options *opt);

/* Write the PDF report of every file of `run` to `path` (opt NULL: defaults). Returns 0, or
 * AC_EIO (cannot write, font missing, libharu failure) / AC_ENOMEM with `err` saying why. */
int ac_report_pdf(const char *path, const ac_report_run *run, const ac_report_pdf_options *opt,
                  ac_error *err);

/* ---------------------------------------------------------------- archcheck search */

/* What `search --report` draws (everything borrowed). */
typedef struct ac_report_search {
    const char *file;
    const ac_model *model;
    const char *method;             /* "ga" or "random" */
    double horizon;                 /* s, > 0 */
    double score, tau;              /* the worst case's fluid score, the objective's tau */
    size_t evaluations;             /* of the search */
    size_t failures;                /* plans that failed to integrate */
    const ac_transient_fault *plan; /* the worst case (nfaults) */
    size_t nfaults;
    const ac_search_term_value *terms; /* its terms (nterms) */
    size_t nterms;
    int has_confirm; /* 1: sim_score, sim_ci95 hold the simulation's confirmation */
    double sim_score, sim_ci95;
    double sim_level; /* the confidence of sim_ci95 (0.95 fixed; 1 - 0.05 / K for the
                         sequential test of K looks); 0: taken as 0.95 */
    const double *ga_evals, *ga_best; /* after each generation of the GA: evaluations, best */
    size_t ga_n;
    const double *random_evals, *random_best; /* the same for random sampling */
    size_t random_n;
    const ac_search_convergence *convergence; /* NULL, or several seeds (nseeds > 1): the
                                                 convergence page shows their median and
                                                 quartiles instead of the one-seed traces */
} ac_report_search;

/* The search's pages (report/pdf_search.c): the worst case (each fault's window on the time
 * axis, the terms, the score against tau) and the convergence (best score per evaluation, GA
 * against random). Written atomically and deterministically. Returns 0, AC_EINVAL (no
 * horizon), AC_EIO or AC_ENOMEM with `err` saying why. */
int ac_report_search_pdf(const char *path, const ac_report_search *search,
                         const ac_report_pdf_options *opt, ac_error *err);

/* The tune page (report/pdf_tune.c, `tune --report OUT.pdf`): the settings, the cost-vs-SLA
 * front (plot and table) and the over-provisioning figure. Returns 0, AC_EINVAL (no horizon),
 * AC_EIO or AC_ENOMEM (err says why). */
int ac_report_tune_pdf(const char *path, const char *file, const ac_model *model,
                       const ac_tune_result *r, const ac_report_pdf_options *opt, ac_error *err);

/* ---------------------------------------------------------------- archcheck compare */

/* One column of `archcheck compare`: the baseline, a mitigation applied to it, or a file.
 * Everything is borrowed from the caller. */
typedef struct ac_compare_variant {
    const char *id;              /* "baseline", the mitigation's id, or the file's path */
    const char *kind;            /* "baseline", "file", or the mitigation's kind */
    const char *label;           /* the mitigation's (or architecture's) label, or NULL */
    const char *file;            /* the file it comes from */
    const char *changes;         /* what the mitigation changed in the model, or NULL */
    const char *error;           /* why it could not be analysed, or NULL */
    const ac_model *model;       /* the model analysed, NULL when not analysed */
    const ac_analysis *analysis; /* NULL when it could not be analysed (then error says why) */
    const ac_diag_list *diags;   /* its findings, or NULL */
    ac_verdict verdict;          /* of its findings (meaningful when analysis != NULL) */
    int has_search;              /* 1: the resilience study ran (compare --search): the three
                                    numbers below, each NAN when not known */
    double worst_score;          /* the worst-case score at the design's workload, in [0, 1] */
    double resilience_boundary;  /* B_r, /s (fluid) */
    double resilience_gain;      /* R_g = B_r / B_r(baseline) - 1 */
    int has_worst_sim;           /* 1: the worst case behind worst_score was re-run in the
                                    simulator (compare --search: the baseline's) */
    int worst_sim_computed;      /* 1: worst_sim, worst_sim_ci95 hold its estimate; 0: not
                                    computed, worst_sim_why says why */
    double worst_sim;            /* its simulated score (mean over the replications) */
    double worst_sim_ci95;       /* the half-width of its interval at worst_sim_level (>= 95%:
                                    the sequential test's stopping look, confirm.h) */
    double worst_sim_level;
    size_t worst_sim_replications;
    const char *worst_sim_why; /* borrowed, or NULL */
} ac_compare_variant;

/* A whole comparison. Borrowed from the caller. */
typedef struct ac_compare_run {
    const char *files[2];               /* the input file(s) as given */
    const char *sha256[2];              /* hex digests ("" if unread) */
    size_t nfiles;                      /* 1 or 2 */
    const ac_compare_variant *variants; /* variants[0] is the reference (the baseline, or the
                                           first file) */
    size_t nvariants;
    unsigned long seed; /* the simulation seed used */
    int has_seed;       /* 1: given by --seed */
    const char *note;   /* NULL, or a sentence about the whole comparison (text:
                           "note: ..." under the table; JSON: "note") */
} ac_compare_run;

/* One cell of the table: a variant's value of the row's quantity. */
typedef struct ac_compare_cell {
    int present;    /* 0: the variant has no such number (not analysed, ...) */
    double value;   /* SI units; may be INFINITY (overload) */
    int has_status; /* check rows: the check's status */
    ac_check_status status;
    double limit; /* check rows with a value: the limit */
    int best;     /* 1: the best value of a row whose values differ (every
                     variant tied with the best is marked) */
} ac_compare_cell;

typedef enum ac_compare_better {
    AC_COMPARE_LOWER = 0, /* lower is better (latency, utilisation, loss) */
    AC_COMPARE_HIGHER     /* higher is better (headroom, throughput) */
} ac_compare_better;

/* One row: a check (matched across variants by its name and occurrence) or a KPI. */
typedef struct ac_compare_row {
    char name[200];  /* checks: the check's name ("latency p95 end to end");
                        KPIs: "'db' utilization", "end to end response time p95",
                        "headroom factor" */
    char metric[32]; /* KPI rows: "utilization", "mean_response_time",
                        "p95_response_time", "loss_probability",
                        "end_to_end_mean_response_time", ..., "headroom";
                        check rows: "check" */
    int is_check;
    const char *node; /* the node's id (borrowed from a variant's model), or NULL */
    char unit[8];     /* "s", "/s", "" */
    ac_compare_better better;
    size_t best;            /* the variant with the strictly best value, AC_NONE when no
                               single variant is best (fewer than two values, or a tie:
                               values within 0.01% of each other) */
    ac_compare_cell *cells; /* nvariants cells (owned) */
} ac_compare_row;

typedef struct ac_compare_table {
    ac_compare_row *rows; /* owned */
    size_t nrows;
    size_t nvariants;
} ac_compare_table;

/*
 * The rows of a comparison, in this order: every check (the reference variant's in its order,
 * then checks only other variants have), then per node (in the order of the first model that
 * has it) utilisation, mean response time, p95 response time and loss probability, then end to
 * end mean, p95 and p99 response time, then the headroom factor, then (compare --search) the
 * worst-case score (metric "worst_case_score"), the resilience boundary ("resilience_boundary")
 * and its gain ("resilience_gain"). Rows no variant has a number for are left out. On success *out
 * is a new table (free with ac_report_compare_table_free). Returns 0 or AC_ENOMEM.
 */
int ac_report_compare_table_new(const ac_compare_run *run, ac_compare_table **out, ac_error *err);

/* Free a table. NULL is a no-op. */
void ac_report_compare_table_free(ac_compare_table *table);

/* The comparison as an aligned text table: a verdict row, one row per check and KPI, each
 * cell its value with unit (and PASS/FAIL/INCONCLUSIVE for checks), `*` after the best value
 * of a row; then what each mitigation changed. Returns 0, AC_EIO or AC_ENOMEM. */
int ac_report_compare_text(FILE *fp, const ac_compare_run *run);

/* The comparison as JSON (snake_case keys, SI units): "variants" (id, kind, verdict, changes,
 * error) and "rows" (name, metric, node, unit, better, best, and a "cells" array in the order
 * of the variants, each with variant, value, status, limit). Returns 0, AC_EIO or AC_ENOMEM. */
int ac_report_compare_json(FILE *fp, const ac_compare_run *run);

/* The comparison as a PDF document: the variants and their verdicts, the table (split into
 * column groups when there are many variants), what each mitigation changed, a bar chart of
 * the headroom factor per variant, and with compare --search a bar chart of the resilience
 * boundary per variant. Written atomically and deterministically, like ac_report_pdf (opt NULL:
 * defaults). Returns 0, or AC_EIO / AC_ENOMEM with `err` saying why. */
int ac_report_compare_pdf(const char *path, const ac_compare_run *run,
                          const ac_report_pdf_options *opt, ac_error *err);

/* The verdict of one file from its findings: INVALID on any input (AC0xx) error,
 * else FAIL on any unsuppressed finding at or above fail_on, else INCONCLUSIVE on an
 * unsuppressed AC900, else PASS. */
ac_verdict ac_report_verdict(const ac_diag_list *diags, ac_severity fail_on);

/* The worst verdict of a run's files: invalid, then fail, then inconclusive, then pass
 * (pass for no file). */
ac_verdict ac_report_run_verdict(const ac_report_run *run);

#ifdef __cplusplus
}
#endif

#endif
