/*
 * The report's method page: every approximation used, its stated error against the measured
 * one, and how to read the numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpdf.h>

#include "archcheck/report.h"
#include "archcheck/rules.h"
#include "report/pdf_doc.h"
#include "report/pdf_report.h"
#include "report/plot.h"

typedef ac_pdf_doc pdf_doc;
typedef ac_pdf_rgb rgb;
typedef ac_pdf_col pdf_col;

static const char *approx_explained(ac_solver_approx a)
{
    switch (a) {
    case AC_SOLVER_APPROX_EXACT:
        return "exact: a closed form or the exact Markov chain (random dispatch and shared queues "
               "without retries); the only error is the truncated tail.";
    case AC_SOLVER_APPROX_MEAN_FIELD:
        return "mean-field: the fixed point of the N \xE2\x86\x92 \xE2\x88\x9E limit of the pool; "
               "its stated error is the gap to the refined 1/N correction (or, for jsq and jiq, "
               "to the M/M/N bound).";
    case AC_SOLVER_APPROX_REFINED:
        return "refined: the mean field plus its 1/N and, where the terms decrease, 1/N\xC2\xB2 "
               "corrections (Gast and Van Houdt 2017; Gast, Bortolussi and Tribastone 2019); its "
               "stated error is the estimated size of the next term.";
    case AC_SOLVER_APPROX_FLUID:
        return "fluid: the deterministic fluid limit, used for transients of a shared queue.";
    case AC_SOLVER_APPROX_SIMULATION:
        return "simulation: the simulator's estimate (jsq and jiq pools at finite N, whose mean "
               "field is far off); its stated error is the 95% half-width, relative.";
    }
    return "";
}

void ac_pdf_method_page_write(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Node", 90.0, AC_PLOT_LEFT},
                                   {"Approximation", 76.0, AC_PLOT_LEFT},
                                   {"Stated error", 70.0, AC_PLOT_LEFT},
                                   {"Measured error (simulation)", 120.0, AC_PLOT_LEFT},
                                   {"State solved", CONTENT_W - 356.0, AC_PLOT_LEFT}};
    const ac_model *m = rf->model;
    const ac_analysis *a = rf->analysis;
    int used[4] = {0, 0, 0, 0};
    size_t nsupp = 0;
    char text[1200];
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "How these numbers were obtained");
    ac_pdf_table_header(d, cols, 5);
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        const ac_sim_node_result *sn =
            a->sim != NULL && i < a->sim->nnodes ? &a->sim->nodes[i] : NULL;
        char err[32], meas[160], state[160];
        const char *cells[5];
        meas[0] = state[0] = '\0';
        if (!na->analysed) {
            cells[0] = m->nodes[i].id;
            cells[1] = "not modelled";
            cells[2] = "";
            cells[3] = "";
            cells[4] = "";
            ac_pdf_table_row(d, cols, 5, cells, i, MAX_COLS, AC_PDF_BLACK);
            continue;
        }
        if ((size_t)na->approximation < 4)
            used[na->approximation] = 1;
        ac_pdf_fmt_pct(err, sizeof err, na->expected_rel_error);
        if (sn != NULL && sn->mean_jobs.n > 0 && sn->mean_jobs.mean > 0.0 &&
            isfinite(na->mean_jobs)) {
            size_t len =
                (size_t)snprintf(meas, sizeof meas, "mean jobs %+.2g%%",
                                 100.0 * (na->mean_jobs - sn->mean_jobs.mean) / sn->mean_jobs.mean);
            if (sn->mean_response_time.n > 0 && sn->mean_response_time.mean > 0.0 &&
                isfinite(na->mean_response_time) && len < sizeof meas)
                snprintf(meas + len, sizeof meas - len, "\nmean response %+.2g%%",
                         100.0 * (na->mean_response_time - sn->mean_response_time.mean) /
                             sn->mean_response_time.mean);
        } else if (a->sim == NULL) {
            snprintf(meas, sizeof meas, "not simulated");
        }
        if (na->function != NULL)
            snprintf(state, sizeof state, "throttled %.3g, cold starts %.3g",
                     na->function->throttle_probability, na->function->cold_probability);
        else if (na->queue != NULL)
            snprintf(state, sizeof state, "%zu slots, dead letters %.3g%s", na->queue->slots,
                     na->queue->dead_letter_probability,
                     na->queue->batching ? ", backlog (batching)" : "");
        else if (na->gateway != NULL)
            snprintf(state, sizeof state, "M/D/1/K, rejected %.3g%s",
                     na->gateway->reject_probability, na->gateway->bound ? " (bound)" : "");
        if (na->pool != NULL)
            snprintf(state, sizeof state, "%zu level%s, tail mass %.2g, %zu equilibri%s",
                     na->pool->truncation, na->pool->truncation == 1 ? "" : "s",
                     na->pool->tail_mass, na->pool->nequilibria,
                     na->pool->nequilibria == 1 ? "um" : "a");
        cells[0] = m->nodes[i].id;
        cells[1] = ac_solver_approx_name(na->approximation);
        cells[2] = err;
        cells[3] = meas;
        cells[4] = state;
        ac_pdf_table_row(d, cols, 5, cells, i, MAX_COLS, AC_PDF_BLACK);
    }
    ac_pdf_table_end(d);
    ac_pdf_doc_heading_write(d, 11.0, "The approximations");
    for (size_t k = 0; k < 4; k++)
        if (used[k])
            ac_pdf_bullet(d, approx_explained((ac_solver_approx)k));
    if (a->e2e.available) {
        snprintf(text, sizeof text,
                 "End to end: the nodes' response-time laws are combined along the routes on a "
                 "lattice (convolution for stages in series, maximum for fan-out joins, mixture "
                 "for probabilistic routes); stated error %.2g%%.",
                 100.0 * a->e2e.expected_rel_error);
        ac_pdf_bullet(d, text);
    }
    ac_pdf_doc_heading_write(d, 11.0, "Validation by simulation");
    if (a->sim != NULL) {
        snprintf(text, sizeof text,
                 "A discrete-event simulation of the finite design (%zu replications, %llu "
                 "events, seed %lu, horizon %.4g s, warm-up %.4g s) measured every node; the "
                 "worst relative 95%% half-width of the main quantities is %.2g%%%s. The "
                 "measured errors above compare the analytic numbers with it.",
                 a->sim->replications, a->sim->events, a->sim->seed, a->sim->horizon,
                 a->sim->warmup, 100.0 * a->sim->rel_halfwidth,
                 a->sim->converged ? "" : " (the precision target was not reached)");
        ac_pdf_paragraph(d, text);
    } else if (a->sim_note[0] != '\0') {
        snprintf(text, sizeof text, "No simulation ran: %s.", a->sim_note);
        ac_pdf_paragraph(d, text);
    } else {
        ac_pdf_paragraph(d,
                         "No simulation was needed: no check was undecided by the stated error of "
                         "its approximation (use --validate to simulate anyway).");
    }
    ac_pdf_doc_heading_write(d, 11.0, "Assumptions");
    ac_pdf_bullet(d,
                  "Requests arrive as Poisson streams at each source's rate (a source's scv other "
                  "than 1 is used by the simulator; the analysis treats the stream as Poisson).");
    ac_pdf_bullet(d,
                  "Service times are exponential with the stated mean; every server of a pool is "
                  "identical and serves its queue first come, first served.");
    ac_pdf_bullet(
        d, "A pool's dispatcher sees the queue lengths it samples at once; timed-out work is "
           "not cancelled, and a retry is a new arrival at the same pool.");
    ac_pdf_bullet(
        d, "Routes split the completed flow by their probabilities; the traffic equations are "
           "solved with the nodes' losses until the flows agree.");
    ac_pdf_bullet(d, "Numbers are steady-state averages at the workload as written (scale 1); an "
                     "autoscaled pool is analysed at its starting size.");
    ac_pdf_doc_heading_write(d, 11.0, "Suppressions");
    for (size_t s = 0; m != NULL && s < m->nsuppressions; s++) {
        const ac_suppression *sp = &m->suppressions[s];
        snprintf(text, sizeof text, "<suppress rule=\"%s\"%s%s%s> (line %u): %s", sp->rule,
                 sp->target != AC_NONE ? " target=\"" : "",
                 sp->target != AC_NONE ? m->nodes[sp->target].id : "",
                 sp->target != AC_NONE ? "\"" : "", sp->loc.line,
                 sp->reason != NULL ? sp->reason : "");
        ac_pdf_bullet(d, text);
        nsupp++;
    }
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *g = &rf->diags->items[i];
        if (!g->suppressed)
            continue;
        snprintf(text, sizeof text, "%s at line %u%s%s suppressed (%s): %s", g->rule, g->line,
                 g->node != NULL ? ", node " : "", g->node != NULL ? g->node : "",
                 g->suppress_reason != NULL ? g->suppress_reason : "", g->message);
        ac_pdf_bullet(d, text);
        nsupp++;
    }
    if (nsupp == 0)
        ac_pdf_paragraph(d, "None: every finding is reported.");
    ac_pdf_doc_cjk_note(d, 11.0, "report", ", for search and copying");
}
