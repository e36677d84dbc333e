/*
 * archcheck: writing verdicts and findings (text, JSON, SARIF 2.1.0, JUnit XML).
 *
 * Each writer takes the results of one run over one or more input files and
 * writes to a stdio stream that the caller owns. Output is deterministic:
 * the same results give the same bytes. Formats follow spec/output.md.
 */
#ifndef ARCHCHECK_REPORT_H
#define ARCHCHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "archcheck/analysis.h"
#include "archcheck/error.h"
#include "archcheck/model.h"

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
    const char *file;        /* the path as given */
    char sha256[65];         /* hex digest of the file's bytes, "" if unread */
    ac_verdict verdict;
    const ac_diag_list *diags; /* this file's findings, sorted */
    const ac_model *model;   /* NULL when the input was invalid */
    const ac_analysis *analysis; /* NULL when not analysed (lint, invalid input) */
} ac_report_file;

typedef struct ac_report_run {
    const char *command;     /* "lint", "check", ... */
    const ac_report_file *files;
    size_t nfiles;
    unsigned long seed;
    int has_seed;
    int color;               /* text only: ANSI colours */
    ac_severity fail_on;     /* findings at or above this severity fail the verdict */
} ac_report_run;

/* gcc-style diagnostics, `FILE:LINE:COL: SEVERITY: MESSAGE [RULE]`, detail lines
 * indented, then one summary line. Suppressed findings are not printed. */
int ac_report_text(FILE *fp, const ac_report_run *run);

/* JSON per spec/output.md: one object for one file, an array of objects for several. */
int ac_report_json(FILE *fp, const ac_report_run *run);

/* SARIF 2.1.0: one run, the rules that fired, one result per finding. */
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

/* A human-readable table of the solution: nodes, equilibria, end to end, headroom. */
int ac_report_solution_text(FILE *fp, const ac_report_file *file);

/* The verdict of one file from its findings: INVALID on any input (AC0xx) error,
 * else FAIL on any unsuppressed finding at or above fail_on, else INCONCLUSIVE on an
 * unsuppressed AC900, else PASS. */
ac_verdict ac_report_verdict(const ac_diag_list *diags, ac_severity fail_on);

#ifdef __cplusplus
}
#endif

#endif
