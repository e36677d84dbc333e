/*
 * Shared helpers of the report module (internal to report/).
 */
#ifndef AC_REPORT_INTERNAL_H
#define AC_REPORT_INTERNAL_H

#include "archcheck/report.h"
#include "archcheck/sim.h"
#include "common/jsonw.h"

/* The simulated KPIs of one node, each with its _ci95 sibling. */
void ac_report_sim_node_json(ac_jsonw *w, const ac_sim_node_result *r);

/* ---- shared by the text, JSON and PDF forms ---- */

/* "PASS", "FAIL" or "INCONCLUSIVE" (report/compare.c). */
const char *ac_report_check_status_label(ac_check_status s);

/* A variant's verdict in capitals, "NOT ANALYSED" without an analysis (report/compare.c). */
const char *ac_report_compare_verdict_label(const ac_compare_variant *v);

/* A value of a comparison with its unit: seconds as s, ms or µs; in ASCII unless `unicode`
 * (then a dash for no number, µ and the minus sign) (report/compare.c). */
void ac_report_compare_value_format(char *buf, size_t n, double v, const char *unit, int unicode);

/* Add the analysis's checks to the three tallies (nothing without an analysis)
 * (report/text.c). */
void ac_report_checks_count(const ac_analysis *a, size_t *pass, size_t *fail, size_t *inc);

/* The headroom factor of `a` (a->has_headroom set) in one sentence: how far the workload can
 * grow, or, below 1, that there is no headroom, what fails and to what share of its rate the
 * workload must shrink (report/headroom.c). */
void ac_report_headroom_sentence(char *buf, size_t n, const ac_model *m, const ac_analysis *a);

/* The "sizing" and "dispatch" keys of a file's JSON object when file->sizing is set
 * (report/size.c). */
void ac_report_sizing_json(ac_jsonw *w, const ac_report_file *file);

/* A value in seconds as "12.3 ms", "1.25 s" (report/size.c). */
void ac_report_seconds_format(char *buf, size_t n, double s);

#endif
