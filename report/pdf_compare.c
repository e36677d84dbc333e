/*
 * The PDF of `archcheck compare` (libharu 2.3.0): see ac_report_compare_pdf in
 * archcheck/report.h.
 *
 * The document machinery (set-up, fonts, errors, pages, paragraphs, table rows) is shared with
 * report/pdf.c in report/pdf_doc.c: every libharu failure longjmps back to ac_pdf_doc_write,
 * which frees the document and the output buffer and leaves no file behind; drawing never
 * allocates. Determinism: no /ID, no date unless asked, fixed fonts and order.
 *
 * Layout: a title block (files, SHA-256, seed, version), the variants with their verdicts and
 * what each changed, the table (checks and KPIs; each variant's column as wide as its widest
 * text, as many columns per table as fit the page width, the reference variant repeated in
 * every further table), the headroom factor per variant as a bar chart, and a marked place
 * for the resilience boundary per variant.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "archcheck/report.h"
#include "report/pdf_doc.h"
#include "report/plot.h"

#define NAME_W   150.0                          /* the name column's width when there is room */
#define NAME_MIN 110.0                          /* its narrowest (names wrap) */
#define COL_PAD  8.0                            /* a variant column: its widest text plus this */
#define COL_MAX  ((CONTENT_W - NAME_MIN) / 2.0) /* wider texts wrap (two columns always fit) */
#define MAX_COLS 16 /* variant columns per table, the reference included (>= CONTENT_W/COL_PAD) */
#define MAX_BARS 24

typedef ac_pdf_doc cdoc;
typedef ac_pdf_rgb rgb;

static rgb verdict_color(const ac_compare_variant *v)
{
    if (v->analysis == NULL || v->verdict == AC_VERDICT_INCONCLUSIVE)
        return AC_PDF_INC;
    return v->verdict == AC_VERDICT_PASS ? AC_PDF_PASS : AC_PDF_FAIL;
}

/* ---------------------------------------------------------------- flow */

static void paragraph(cdoc *d, const char *text)
{
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, text);
}

/* ---------------------------------------------------------------- the table */

/* One cell to draw: text, font and colour. */
typedef struct ccell {
    char text[256];
    int bold;
    rgb color;
} ccell;

/* The shared cells of a row: the first left-aligned, the others right-aligned. */
static void make_cells(cdoc *d, const ccell *cells, size_t n, const double *widths,
                       ac_pdf_cell *out)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        out[i].text = cells[i].text;
        out[i].font = cells[i].bold ? d->cv.bold : d->cv.regular;
        out[i].width = widths[i];
        out[i].align = i == 0 ? AC_PLOT_LEFT : AC_PLOT_RIGHT;
        out[i].color = &cells[i].color;
    }
}

static double cells_height(cdoc *d, const ccell *cells, size_t n, const double *widths)
{
    ac_pdf_cell row[MAX_COLS + 1];
    make_cells(d, cells, n, widths, row);
    return ac_pdf_doc_row_height(d, row, n);
}

static void draw_cells(cdoc *d, const ccell *cells, size_t n, const double *widths, double h,
                       int shade)
{
    ac_pdf_cell row[MAX_COLS + 1];
    make_cells(d, cells, n, widths, row);
    ac_pdf_doc_row_draw(d, row, n, h, shade);
}

/* The header of one column group: variant ids, then their verdicts. */
static void group_header(cdoc *d, const ac_compare_run *run, const size_t *cols, size_t n,
                         const double *widths)
{
    ccell cells[MAX_COLS + 1];
    double h;
    memset(cells, 0, sizeof cells);
    snprintf(cells[0].text, sizeof cells[0].text, "Check or quantity");
    cells[0].bold = 1;
    for (size_t i = 0; i < n; i++) {
        snprintf(cells[i + 1].text, sizeof cells[i + 1].text, "%s", run->variants[cols[i]].id);
        cells[i + 1].bold = 1;
    }
    h = cells_height(d, cells, n + 1, widths);
    ac_pdf_doc_room_ensure(d, 2.0 * h + 20.0);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.8);
    draw_cells(d, cells, n + 1, widths, h, 0);
    snprintf(cells[0].text, sizeof cells[0].text, "verdict");
    for (size_t i = 0; i < n; i++) {
        snprintf(cells[i + 1].text, sizeof cells[i + 1].text, "%s",
                 ac_report_compare_verdict_label(&run->variants[cols[i]]));
        cells[i + 1].color = verdict_color(&run->variants[cols[i]]);
    }
    h = cells_height(d, cells, n + 1, widths);
    draw_cells(d, cells, n + 1, widths, h, 0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.6);
}

/* The text of variant column `v` in row `row` (value and mark, then the status of a check). */
static void value_cell(const ac_compare_row *row, size_t v, ccell *out)
{
    const ac_compare_cell *c = &row->cells[v];
    char val[64];
    if (c->present)
        ac_report_compare_value_format(val, sizeof val, c->value, row->unit, 1);
    else
        snprintf(val, sizeof val, "\xE2\x80\x93");
    if (c->has_status) {
        snprintf(out->text, sizeof out->text, "%s%s\n%s", val, c->best ? " *" : "",
                 ac_report_check_status_label(c->status));
        out->color = ac_pdf_doc_status_color(c->status);
    } else {
        snprintf(out->text, sizeof out->text, "%s%s", val, c->best ? " *" : "");
        out->color = AC_PDF_BLACK;
    }
    out->bold = c->best;
}

/* The width of the widest line of `text`. */
static double widest_line(cdoc *d, HPDF_Font font, const char *text)
{
    double w = 0.0;
    char line[256];
    while (*text != '\0') {
        size_t n = strcspn(text, "\n");
        size_t k = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, text, k);
        line[k] = '\0';
        w = fmax(w, ac_plot_text_width(&d->cv, font, CELL, line));
        text += n + (text[n] == '\n');
    }
    return w;
}

/* The width variant v's column needs: its id, its verdict and every value, on one line each. */
static double column_need(cdoc *d, const ac_compare_run *run, const ac_compare_table *t, size_t v)
{
    double w = fmax(widest_line(d, d->cv.bold, run->variants[v].id),
                    widest_line(d, d->cv.bold, ac_report_compare_verdict_label(&run->variants[v])));
    for (size_t r = 0; r < t->nrows; r++) {
        ccell c;
        memset(&c, 0, sizeof c);
        value_cell(&t->rows[r], v, &c);
        w = fmax(w, widest_line(d, c.bold ? d->cv.bold : d->cv.regular, c.text));
    }
    return fmin(w + COL_PAD, COL_MAX);
}

/* The widths of one table from what its n variant columns need: the name column what is
 * left (at most NAME_W: the rest is shared among the variant columns). */
static void group_widths(const double *need, size_t n, double *out)
{
    double sum = 0.0, extra;
    for (size_t i = 0; i < n; i++)
        sum += need[i];
    out[0] = fmin(NAME_W, CONTENT_W - sum);
    extra = (CONTENT_W - sum - out[0]) / (double)n;
    for (size_t i = 0; i < n; i++)
        out[i + 1] = need[i] + extra;
}

static void write_group(cdoc *d, const ac_compare_run *run, const ac_compare_table *t,
                        const double *need, const size_t *cols, size_t n)
{
    double widths[MAX_COLS + 1];
    group_widths(need, n, widths);
    group_header(d, run, cols, n, widths);
    for (size_t r = 0; r < t->nrows; r++) {
        const ac_compare_row *row = &t->rows[r];
        ccell cells[MAX_COLS + 1];
        double h;
        memset(cells, 0, sizeof cells);
        snprintf(cells[0].text, sizeof cells[0].text, "%s", row->name);
        for (size_t i = 0; i < n; i++)
            value_cell(row, cols[i], &cells[i + 1]);
        h = cells_height(d, cells, n + 1, widths);
        if (d->y - h < MARGIN_BOTTOM) {
            ac_pdf_doc_page_new(d);
            group_header(d, run, cols, n, widths);
        }
        draw_cells(d, cells, n + 1, widths, h, r % 2 == 1);
    }
    d->y -= 10.0;
}

static void write_table(cdoc *d, const ac_compare_run *run, const ac_compare_table *t)
{
    size_t cols[MAX_COLS], start;
    double need[MAX_COLS];
    ac_pdf_doc_heading_write(d, 12.0, "Side by side");
    paragraph(d, "One row per requirement check and per KPI; a check's cell gives its value and "
                 "its status. * and bold: the best value of a row whose values differ (lower is "
                 "better, except for the headroom factor and minimum requirements; every variant "
                 "with that value is marked). \xE2\x80\x93: no number (not analysed, or not "
                 "applicable).");
    if (run->note != NULL) {
        char text[512];
        snprintf(text, sizeof text, "Note: %s.", run->note);
        paragraph(d, text);
    }
    if (run->nvariants == 0 || t->nrows == 0) {
        paragraph(d, "Nothing to compare.");
        return;
    }
    /* tables of columns: the reference, then as many others as fit beside NAME_MIN */
    need[0] = column_need(d, run, t, 0);
    start = 1;
    do {
        size_t n = 1;
        double used = NAME_MIN + need[0];
        cols[0] = 0;
        for (size_t v = start; v < run->nvariants && n < MAX_COLS; v++) {
            double w = column_need(d, run, t, v);
            if (n >= 2 && used + w > CONTENT_W)
                break;
            used += w;
            need[n] = w;
            cols[n++] = v;
        }
        write_group(d, run, t, need, cols, n);
        start += n - 1;
    } while (start < run->nvariants);
}

/* ---------------------------------------------------------------- the rest */

static void write_title(cdoc *d, const ac_compare_run *run)
{
    char text[1200], created[64];
    ac_pdf_doc_page_new(d);
    ac_plot_set_gray(&d->cv, 0.0, 0.4);
    ac_plot_text(&d->cv, d->cv.regular, 9.0, MARGIN_X, d->y - 9.0, AC_PLOT_LEFT,
                 "archcheck comparison");
    d->y -= 14.0;
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    if (run->nfiles == 2)
        snprintf(text, sizeof text, "%s versus %s", run->files[0], run->files[1]);
    else
        snprintf(text, sizeof text, "%s: the baseline and %zu mitigation%s", run->files[0],
                 run->nvariants > 0 ? run->nvariants - 1 : 0, run->nvariants == 2 ? "" : "s");
    ac_pdf_doc_heading_write(d, 15.0, text);
    for (size_t f = 0; f < run->nfiles && f < 2; f++) {
        snprintf(text, sizeof text, "File %s, SHA-256 %s", run->files[f],
                 run->sha256[f] != NULL && run->sha256[f][0] != '\0' ? run->sha256[f]
                                                                     : "(not read)");
        paragraph(d, text);
    }
    snprintf(text, sizeof text,
             "archcheck %s. Seed %lu %s, the same for every variant. Every variant is analysed "
             "as `archcheck check` analyses a file; a mitigation is applied to a copy of the "
             "baseline model.",
             AC_VERSION, run->seed, run->has_seed ? "(--seed)" : "(the file's, else the default)");
    paragraph(d, text);
    if (d->opt.has_creation_date) {
        ac_pdf_doc_created_format(&d->opt, created, sizeof created);
        snprintf(text, sizeof text, "Created %s.", created);
        paragraph(d, text);
    }
    d->y -= 6.0;
}

static void write_variants(cdoc *d, const ac_compare_run *run)
{
    ac_pdf_doc_heading_write(d, 12.0, "Variants");
    for (size_t v = 0; v < run->nvariants; v++) {
        const ac_compare_variant *x = &run->variants[v];
        char text[2400];
        rgb col = verdict_color(x);
        snprintf(text, sizeof text, "%s (%s%s%s): %s", x->id, x->kind, x->label != NULL ? ", " : "",
                 x->label != NULL ? x->label : "", ac_report_compare_verdict_label(x));
        ac_pdf_doc_room_ensure(d, BODY * 1.3);
        ac_plot_set_rgb_fill(&d->cv, col.r, col.g, col.b);
        ac_plot_rect_fill(&d->cv, MARGIN_X + 2.0, d->y - BODY + 0.5, 6.0, 6.0);
        ac_plot_set_gray(&d->cv, 0.0, 0.0);
        ac_pdf_doc_paragraph_write(d, d->cv.bold, BODY, 14.0, text);
        if (x->changes != NULL && x->changes[0] != '\0') {
            snprintf(text, sizeof text, "Changes: %s.", x->changes);
            ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 14.0, text);
        }
        if (x->error != NULL && x->error[0] != '\0') {
            snprintf(text, sizeof text, "Not analysed: %s.", x->error);
            ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 14.0, text);
        }
    }
    d->y -= 6.0;
}

/* The headroom factor per variant, with the headroom requirement as a dotted line. */
static void write_headroom_chart(cdoc *d, const ac_compare_run *run, const ac_compare_table *t)
{
    const char *names[MAX_BARS];
    double x[MAX_BARS], h[MAX_BARS], limit = NAN, box_h = 210.0, top = 0.0;
    size_t n = 0, any = 0;
    ac_plot p;
    for (size_t r = 0; r < t->nrows; r++) {
        const ac_compare_row *row = &t->rows[r];
        if (!row->is_check || strstr(row->name, "headroom") == NULL)
            continue;
        for (size_t v = 0; v < run->nvariants; v++)
            if (row->cells[v].present && isfinite(row->cells[v].limit))
                limit = isfinite(limit) ? fmax(limit, row->cells[v].limit) : row->cells[v].limit;
    }
    for (size_t v = 0; v < run->nvariants && n < MAX_BARS; v++) {
        const ac_analysis *a = run->variants[v].analysis;
        names[n] = run->variants[v].id;
        x[n] = (double)n;
        h[n] = a != NULL && a->has_headroom && isfinite(a->headroom) ? a->headroom : NAN;
        if (isfinite(h[n])) {
            any++;
            top = fmax(top, h[n]);
        }
        n++;
    }
    if (any > 0)
        ac_pdf_doc_room_ensure(d, box_h + 40.0); /* keep the heading with its chart */
    ac_pdf_doc_heading_write(d, 12.0, "Headroom per variant");
    if (any == 0) {
        paragraph(d, "No variant has a headroom factor.");
        return;
    }
    ac_plot_init(&p,
                 isfinite(limit) ? "Headroom factor (dotted: the headroom requirement)"
                                 : "Headroom factor",
                 AC_PLOT_LINEAR, NULL, AC_PLOT_LINEAR, "workload factor");
    p.xaxis.categories = names;
    p.xaxis.ncategories = n;
    p.yaxis.min = 0.0;
    p.yaxis.max = fmax(top, isfinite(limit) ? limit : 0.0) * 1.15;
    if (!(p.yaxis.max > 0.0))
        p.yaxis.max = 1.0;
    ac_pdf_doc_bars_draw(d, &p, x, h, n, limit, box_h);
}

/* The resilience boundary B_r per variant (compare --search; the fluid study), with the
 * baseline's as a dotted line. */
static void write_resilience_chart(cdoc *d, const ac_compare_run *run)
{
    const char *names[MAX_BARS];
    double x[MAX_BARS], h[MAX_BARS], box_h = 210.0, top = 0.0, base = NAN;
    size_t n = 0, any = 0, searched = 0;
    ac_plot p;
    for (size_t v = 0; v < run->nvariants && n < MAX_BARS; v++) {
        const ac_compare_variant *c = &run->variants[v];
        names[n] = c->id;
        x[n] = (double)n;
        h[n] = c->has_search && isfinite(c->resilience_boundary) ? c->resilience_boundary : NAN;
        searched += c->has_search != 0;
        if (isfinite(h[n])) {
            any++;
            top = fmax(top, h[n]);
            if (v == 0)
                base = h[n];
        }
        n++;
    }
    if (searched == 0)
        return; /* compare without --search */
    if (any > 0)
        ac_pdf_doc_room_ensure(d, box_h + 40.0);
    ac_pdf_doc_heading_write(d, 12.0, "Resilience boundary per variant");
    if (any == 0) {
        paragraph(d, "No variant has a resilience boundary (see the table's rows).");
        return;
    }
    paragraph(d, "B_r: the lowest peak request rate at which the worst-case score found "
                 "reaches tau (the fluid study of the fault search; a heuristic search: a worse "
                 "plan is not excluded). It has no stated error: the simulator is not run on "
                 "it (archcheck search confirms the baseline's worst case). Dotted: the "
                 "baseline's.");
    ac_plot_init(&p, "Resilience boundary B_r", AC_PLOT_LINEAR, NULL, AC_PLOT_LINEAR, "requests/s");
    p.xaxis.categories = names;
    p.xaxis.ncategories = n;
    p.yaxis.min = 0.0;
    p.yaxis.max = top * 1.15;
    ac_pdf_doc_bars_draw(d, &p, x, h, n, base, box_h);
}

/* What the callback of ac_pdf_doc_write draws. */
typedef struct compare_ctx {
    const ac_compare_run *run;
    const ac_compare_table *table;
} compare_ctx;

/* Draw the comparison (the draw callback of ac_pdf_doc_write). */
static void draw_compare(cdoc *d, const void *ctx)
{
    const compare_ctx *c = ctx;
    d->footer_kind = "compare \xC2\xB7 ";
    d->footer = c->run->files[0];
    snprintf(d->doing, sizeof d->doing, "drawing the comparison");
    write_title(d, c->run);
    write_variants(d, c->run);
    write_table(d, c->run, c->table);
    write_headroom_chart(d, c->run, c->table);
    write_resilience_chart(d, c->run);
    ac_pdf_doc_cjk_note(d, 12.0, "comparison", "");
}

int ac_report_compare_pdf(const char *path, const ac_compare_run *run,
                          const ac_report_pdf_options *opt, ac_error *err)
{
    compare_ctx c;
    ac_compare_table *table = NULL;
    int rc = ac_report_compare_table_new(run, &table, err);
    if (rc != AC_OK)
        goto cleanup;
    c.run = run;
    c.table = table;
    rc = ac_pdf_doc_write(path, opt, "comparison", "archcheck comparison", draw_compare, &c, err);
cleanup:
    ac_report_compare_table_free(table);
    return rc;
}
