/*
 * The PDF report (libharu 2.3.0): see ac_report_pdf in archcheck/report.h.
 *
 * The document machinery (set-up, fonts, errors, pages, paragraphs, table rows) is shared with
 * report/pdf_compare.c in report/pdf_doc.c: libharu's error handler longjmps back to
 * ac_pdf_doc_write, which frees the document and the output buffer (the only allocations) and
 * leaves no file behind. Drawing helpers never allocate. Determinism: no /ID, no dates unless
 * asked, fixed fonts and order.
 *
 * This file draws the first page (the verdict, the run, the checks, the findings) and puts the
 * pages of a file together; the node, end-to-end and method pages are report/pdf_node.c,
 * pdf_e2e.c and pdf_method.c, their cells and tables report/pdf_table.c (pdf_report.h).
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

void ac_report_pdf_options_init(ac_report_pdf_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

/* ---------------------------------------------------------------- page 1: the verdict */

/* Does a check carry a simulated value, or a finding quote a simulation (the basins of a
 * metastable pool, a simulated jsq/jiq pool)? */
static int quotes_simulation(const ac_report_file *rf)
{
    const ac_analysis *a = rf->analysis;
    for (size_t k = 0; a != NULL && k < a->nchecks; k++)
        if (a->checks[k].has_sim)
            return 1;
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *dg = &rf->diags->items[i];
        if (strstr(dg->message, "simulat") != NULL ||
            (dg->detail != NULL && strstr(dg->detail, "simulat") != NULL))
            return 1;
    }
    return 0;
}

static void write_meta(pdf_doc *d, const ac_report_run *run, const ac_report_file *rf,
                       const ac_report_pdf_options *opt)
{
    static const pdf_col cols[] = {{"", 90.0, AC_PLOT_LEFT}, {"", CONTENT_W - 90.0, AC_PLOT_LEFT}};
    char seed[96], created[64], sim[300];
    const ac_analysis *a = rf->analysis;
    const char *rows[8][2];
    size_t n = 0;
    unsigned long s = run->seed;
    const char *src = run->has_seed ? "(--seed)" : "(default)";
    if (!run->has_seed && rf->model != NULL && rf->model->faults.has_seed) {
        s = rf->model->faults.seed;
        src = "(the file's <faults seed>)";
    }
    snprintf(seed, sizeof seed, "%lu %s", s, src);
    rows[n][0] = "File";
    rows[n++][1] = rf->file;
    rows[n][0] = "SHA-256";
    rows[n++][1] = rf->sha256[0] != '\0' ? rf->sha256 : "(not read)";
    rows[n][0] = "archcheck";
    rows[n++][1] = AC_VERSION;
    rows[n][0] = "Seed";
    rows[n++][1] = seed;
    rows[n][0] = "Fails on";
    rows[n++][1] = ac_severity_name(run->fail_on);
    if (a != NULL) {
        if (a->sim != NULL)
            snprintf(sim, sizeof sim,
                     "simulated: %zu replications, %llu events, seed %lu, worst relative 95%% "
                     "half-width %.2g%%%s",
                     a->sim->replications, a->sim->events, a->sim->seed,
                     100.0 * a->sim->rel_halfwidth, a->sim->converged ? "" : " (not converged)");
        else if (a->sim_note[0] != '\0')
            snprintf(sim, sizeof sim, "not simulated: %s", a->sim_note);
        else if (quotes_simulation(rf))
            snprintf(sim, sizeof sim,
                     "no simulation of the whole model; the findings quote the simulations "
                     "that decided them");
        else
            snprintf(sim, sizeof sim, "not needed (no check was undecided by its approximation)");
        rows[n][0] = "Validation";
        rows[n++][1] = sim;
    }
    if (opt->has_creation_date) {
        ac_pdf_doc_created_format(opt, created, sizeof created);
        rows[n][0] = "Created";
        rows[n++][1] = created;
    }
    for (size_t i = 0; i < n; i++) {
        double h = ac_pdf_table_row_height(d, cols, 2, rows[i], d->cv.regular);
        ac_pdf_doc_room_ensure(d, h);
        ac_pdf_table_row_draw(d, cols, 2, rows[i], d->cv.regular, h, 0, 0, AC_PDF_BLACK);
    }
    d->y -= 8.0;
}

static void write_verdict(pdf_doc *d, const ac_report_run *run, const ac_report_file *rf)
{
    const char *v = ac_pdf_verdict_label(rf->verdict);
    rgb col = ac_pdf_verdict_color(rf->verdict);
    double size = 40.0, w, box_h = 58.0;
    char summary[300];
    size_t pass = 0, fail = 0, inc = 0, shown = 0, supp = 0;
    const ac_analysis *a = rf->analysis;
    ac_report_checks_count(a, &pass, &fail, &inc);
    for (size_t i = 0; i < rf->diags->count; i++) {
        if (rf->diags->items[i].suppressed)
            supp++;
        else
            shown++;
    }
    ac_pdf_doc_room_ensure(d, box_h + 10.0);
    w = ac_plot_text_width(&d->cv, d->cv.bold, size, v);
    ac_plot_set_rgb_stroke(&d->cv, col.r, col.g, col.b);
    ac_plot_set_rgb_fill(&d->cv, col.r, col.g, col.b);
    ac_plot_rect_stroke(&d->cv, MARGIN_X, d->y - box_h, w + 28.0, box_h, 2.5);
    ac_plot_text(&d->cv, d->cv.bold, size, MARGIN_X + 14.0, d->y - box_h + 16.0, AC_PLOT_LEFT, v);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    if (a != NULL)
        snprintf(summary, sizeof summary,
                 "Verdict of %s. Checks: %zu pass, %zu fail, %zu inconclusive. Findings: %zu "
                 "reported, %zu suppressed. Findings at or above '%s' fail the verdict; an "
                 "undecided check makes it inconclusive.",
                 run->command, pass, fail, inc, shown, supp, ac_severity_name(run->fail_on));
    else
        snprintf(summary, sizeof summary,
                 "The input could not be analysed: %zu finding%s below say why.", shown,
                 shown == 1 ? "" : "s");
    {
        double tx = MARGIN_X + w + 44.0, tw = MARGIN_X + CONTENT_W - tx;
        size_t lines = ac_plot_text_lines(&d->cv, d->cv.regular, 9.0, summary, tw);
        double ty = d->y - box_h / 2.0 + (double)lines * 11.5 / 2.0 - 9.0;
        ac_plot_text_wrapped(&d->cv, d->cv.regular, 9.0, tx, ty, tw, 11.5, AC_PLOT_LEFT, summary);
    }
    d->y -= box_h + 14.0;
}

static void write_checks(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Check", 150.0, AC_PLOT_LEFT},
                                   {"Status", 72.0, AC_PLOT_LEFT},
                                   {"Value (expected error)", 84.0, AC_PLOT_LEFT},
                                   {"Limit", 62.0, AC_PLOT_LEFT},
                                   {"Simulation (95% CI)", 100.0, AC_PLOT_LEFT},
                                   {"Line", 30.8, AC_PLOT_RIGHT}};
    const ac_analysis *a = rf->analysis;
    size_t nres = 0;
    if (a == NULL)
        return;
    ac_pdf_doc_heading_write(d, 12.0, "Checks");
    if (a->nchecks == 0) {
        ac_pdf_paragraph(d, "No check: the file states no requirement and has no node to check.");
        return;
    }
    ac_pdf_table_header(d, cols, 6);
    for (size_t k = 0; k < a->nchecks; k++) {
        const ac_check *c = &a->checks[k];
        char status[64], value[160], limit[64], sim[192], line[16], v[48], e[32], l[48];
        const char *cells[6];
        snprintf(status, sizeof status, "%s%s%s%s", ac_report_check_status_label(c->status),
                 c->status != AC_CHECK_PASS && c->rule[0] != '\0' ? " " : "",
                 c->status != AC_CHECK_PASS ? c->rule : "", c->suppressed ? "\n(suppressed)" : "");
        value[0] = limit[0] = sim[0] = '\0';
        if (c->has_value) {
            ac_pdf_fmt_qty(v, sizeof v, c->value, c->unit);
            if (c->abs_error > 0.0 && isfinite(c->abs_error)) {
                char ab[48];
                ac_pdf_fmt_qty(ab, sizeof ab, c->abs_error, c->unit);
                ac_pdf_fmt_pct(e, sizeof e, isfinite(c->rel_error) ? c->rel_error : 0.0);
                snprintf(value, sizeof value, "%s (%s + %s)", v, e, ab);
            } else if (c->rel_error > 0.0 && isfinite(c->rel_error)) {
                ac_pdf_fmt_pct(e, sizeof e, c->rel_error);
                snprintf(value, sizeof value, "%s (%s)", v, e);
            } else if (isnan(c->rel_error) && isnan(c->abs_error)) {
                snprintf(value, sizeof value, "%s\n(no stated error)", v); /* a fluid score */
            } else {
                snprintf(value, sizeof value, "%s", v);
            }
            ac_pdf_fmt_qty(l, sizeof l, c->limit, c->unit);
            snprintf(limit, sizeof limit, "%s %s", c->upper ? "\xE2\x89\xA4" : "\xE2\x89\xA5", l);
        }
        if (c->has_sim) {
            ac_pdf_fmt_qty(v, sizeof v, c->sim_value, c->unit);
            ac_pdf_fmt_qty(l, sizeof l, c->sim_ci95, c->unit);
            snprintf(sim, sizeof sim, "%s \xC2\xB1 %s%s", v, l,
                     c->settled_by_simulation ? "\n(settled the check)" : "");
            if (c->sim_level > 0.0 && c->sim_level != 0.95) { /* the sequential rule's */
                size_t used = strlen(sim);
                ac_pdf_fmt_qty(l, sizeof l, c->sim_halfwidth, c->unit);
                snprintf(sim + used, sizeof sim - used, "\n(judged at %.3g%%: \xC2\xB1 %s)",
                         100.0 * c->sim_level, l);
            }
        }
        snprintf(line, sizeof line, "%u", c->loc.line);
        cells[0] = c->name;
        cells[1] = status;
        cells[2] = value;
        cells[3] = limit;
        cells[4] = sim;
        cells[5] = line;
        ac_pdf_table_row(d, cols, 6, cells, k, 1, ac_pdf_doc_status_color(c->status));
        nres += strncmp(c->name, "resilience ", 11) == 0 && c->status == AC_CHECK_PASS;
    }
    ac_pdf_table_end(d);
    if (nres > 0) /* analysis/req_resilience.c: a heuristic search's worst case */
        ac_pdf_paragraph(d, "A resilience PASS holds against the worst case the search found, "
                            "confirmed by simulation: the genetic search is not exhaustive, and "
                            "a worse fault plan is not excluded.");
}

static void write_findings(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Rule", 40.0, AC_PLOT_LEFT},
                                   {"Severity", 58.0, AC_PLOT_LEFT},
                                   {"Where", 70.0, AC_PLOT_LEFT},
                                   {"Message", CONTENT_W - 168.0, AC_PLOT_LEFT}};
    ac_pdf_doc_heading_write(d, 12.0, "Findings");
    if (rf->diags->count == 0) {
        ac_pdf_paragraph(d, "No finding.");
        return;
    }
    ac_pdf_table_header(d, cols, 4);
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *g = &rf->diags->items[i];
        char sev[64], where[160], msg[4096];
        const char *cells[4];
        rgb col = g->suppressed                   ? AC_PDF_BLACK
                  : g->severity == AC_SEV_ERROR   ? AC_PDF_FAIL
                  : g->severity == AC_SEV_WARNING ? AC_PDF_INC
                                                  : AC_PDF_BLACK;
        snprintf(sev, sizeof sev, "%s%s", ac_severity_name(g->severity),
                 g->suppressed ? "\n(suppressed)" : "");
        if (g->line > 0)
            snprintf(where, sizeof where, "line %u:%u%s%s", g->line, g->column,
                     g->node != NULL ? "\nnode " : "", g->node != NULL ? g->node : "");
        else
            snprintf(where, sizeof where, "%s%s", g->node != NULL ? "node " : "whole file",
                     g->node != NULL ? g->node : "");
        snprintf(msg, sizeof msg, "%s%s%s%s%s", g->message, g->detail != NULL ? "\n" : "",
                 g->detail != NULL ? g->detail : "", g->suppressed ? "\nsuppressed: " : "",
                 g->suppressed ? (g->suppress_reason != NULL ? g->suppress_reason : "") : "");
        cells[0] = g->rule;
        cells[1] = sev;
        cells[2] = where;
        cells[3] = msg;
        ac_pdf_table_row(d, cols, 4, cells, i, 1, col);
    }
    ac_pdf_table_end(d);
}

/* ---------------------------------------------------------------- the document */

static void write_file(pdf_doc *d, const ac_report_run *run, const ac_report_file *rf,
                       const ac_report_pdf_options *opt)
{
    const ac_model *m = rf->model;
    char title[600];
    d->footer = rf->file;
    ac_pdf_doc_page_new(d);
    ac_plot_set_gray(&d->cv, 0.0, 0.4);
    ac_plot_text(&d->cv, d->cv.regular, 9.0, MARGIN_X, d->y - 9.0, AC_PLOT_LEFT,
                 "archcheck design check");
    d->y -= 14.0;
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    if (m != NULL && m->label != NULL && m->name != NULL)
        snprintf(title, sizeof title, "%s (%s)", m->label, m->name);
    else if (m != NULL && (m->label != NULL || m->name != NULL))
        snprintf(title, sizeof title, "%s", m->label != NULL ? m->label : m->name);
    else
        snprintf(title, sizeof title, "%s", rf->file);
    ac_pdf_doc_heading_write(d, 17.0, title);
    write_verdict(d, run, rf);
    write_meta(d, run, rf, opt);
    write_checks(d, rf);
    write_findings(d, rf);
    if (m == NULL || rf->analysis == NULL)
        return;
    for (size_t i = 0; i < m->nnodes; i++)
        ac_pdf_node_page_write(d, rf, i);
    ac_pdf_e2e_page_write(d, rf);
    ac_report_pdf_size_page(d, rf);
    ac_pdf_method_page_write(d, rf);
}

/* A report of several files opens with a summary: the run's verdict (the worst), then a row
 * per file with its verdict, checks and findings, so that a FAIL on page 7 is on page 1. */
static void write_summary(pdf_doc *d, const ac_report_run *run)
{
    static const pdf_col cols[] = {{"File", CONTENT_W - 250.0, AC_PLOT_LEFT},
                                   {"Verdict", 80.0, AC_PLOT_LEFT},
                                   {"Checks (pass / fail / inconclusive)", 110.0, AC_PLOT_LEFT},
                                   {"Findings", 60.0, AC_PLOT_RIGHT}};
    ac_verdict worst = ac_report_run_verdict(run);
    const char *v = ac_pdf_verdict_label(worst);
    rgb col = ac_pdf_verdict_color(worst);
    double size = 40.0, w, box_h = 58.0;
    char line[200];
    size_t counts[4] = {0};
    d->footer = "summary";
    ac_pdf_doc_page_new(d);
    ac_plot_set_gray(&d->cv, 0.0, 0.4);
    ac_plot_text(&d->cv, d->cv.regular, 9.0, MARGIN_X, d->y - 9.0, AC_PLOT_LEFT,
                 "archcheck design check");
    d->y -= 14.0;
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    snprintf(line, sizeof line, "Summary of %zu files", run->nfiles);
    ac_pdf_doc_heading_write(d, 17.0, line);
    for (size_t f = 0; f < run->nfiles; f++)
        counts[run->files[f].verdict]++;
    w = ac_plot_text_width(&d->cv, d->cv.bold, size, v);
    ac_plot_set_rgb_stroke(&d->cv, col.r, col.g, col.b);
    ac_plot_set_rgb_fill(&d->cv, col.r, col.g, col.b);
    ac_plot_rect_stroke(&d->cv, MARGIN_X, d->y - box_h, w + 28.0, box_h, 2.5);
    ac_plot_text(&d->cv, d->cv.bold, size, MARGIN_X + 14.0, d->y - box_h + 16.0, AC_PLOT_LEFT, v);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    snprintf(line, sizeof line,
             "The run's verdict is its worst file's. %zu pass, %zu fail, %zu inconclusive, %zu "
             "invalid input.",
             counts[AC_VERDICT_PASS], counts[AC_VERDICT_FAIL], counts[AC_VERDICT_INCONCLUSIVE],
             counts[AC_VERDICT_INVALID]);
    ac_plot_text_wrapped(&d->cv, d->cv.regular, 9.0, MARGIN_X + w + 44.0, d->y - box_h / 2.0 + 2.0,
                         MARGIN_X + CONTENT_W - (MARGIN_X + w + 44.0), 11.5, AC_PLOT_LEFT, line);
    d->y -= box_h + 14.0;
    ac_pdf_table_header(d, cols, 4);
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_report_file *rf = &run->files[f];
        size_t pass = 0, fail = 0, inc = 0, shown = 0;
        char checks[64], findings[32];
        const char *cells[4];
        ac_report_checks_count(rf->analysis, &pass, &fail, &inc);
        for (size_t i = 0; i < rf->diags->count; i++)
            shown += !rf->diags->items[i].suppressed;
        if (rf->analysis != NULL)
            snprintf(checks, sizeof checks, "%zu / %zu / %zu", pass, fail, inc);
        else
            snprintf(checks, sizeof checks, "not analysed");
        snprintf(findings, sizeof findings, "%zu", shown);
        cells[0] = rf->file;
        cells[1] = ac_pdf_verdict_label(rf->verdict);
        cells[2] = checks;
        cells[3] = findings;
        ac_pdf_table_row(d, cols, 4, cells, f, 1, ac_pdf_verdict_color(rf->verdict));
    }
    ac_pdf_table_end(d);
}

/* Draw every file's pages (the draw callback of ac_pdf_doc_write). */
static void draw_run(pdf_doc *d, const void *ctx)
{
    const ac_report_run *run = ctx;
    if (run->nfiles > 1)
        write_summary(d, run);
    for (size_t f = 0; f < run->nfiles; f++) {
        snprintf(d->doing, sizeof d->doing, "drawing the report of '%.250s'", run->files[f].file);
        write_file(d, run, &run->files[f], &d->opt);
    }
}

int ac_report_pdf(const char *path, const ac_report_run *run, const ac_report_pdf_options *opt,
                  ac_error *err)
{
    return ac_pdf_doc_write(path, opt, "report",
                            run->nfiles == 1 ? run->files[0].file : "archcheck report", draw_run,
                            run, err);
}
