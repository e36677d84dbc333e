/*
 * The report's cells (report/pdf_report.h): numbers with their units, errors, verdict labels
 * and colours, paragraphs and bullets, and tables whose header repeats on a page break.
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

/* ---------------------------------------------------------------- formatting */

void ac_pdf_fmt_num(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n,
                 isnan(v) ? "\xE2\x80\x93"
                 : v > 0  ? "\xE2\x88\x9E"
                          : "\xE2\x88\x92\xE2\x88\x9E");
    else if (v == 0.0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%.4g", v);
}

/* A quantity with its unit: seconds get ms or µs when small. */
void ac_pdf_fmt_qty(char *buf, size_t n, double v, const char *unit)
{
    char num[48];
    if (!isfinite(v)) {
        ac_pdf_fmt_num(buf, n, v);
        return;
    }
    if (strcmp(unit, "s") == 0) {
        double a = fabs(v);
        if (v == 0.0)
            snprintf(buf, n, "0 s");
        else if (a < 1e-3)
            snprintf(buf, n, "%.4g \xC2\xB5s", v * 1e6);
        else if (a < 1.0)
            snprintf(buf, n, "%.4g ms", v * 1e3);
        else
            snprintf(buf, n, "%.4g s", v);
        return;
    }
    ac_pdf_fmt_num(num, sizeof num, v);
    if (unit[0] == '\0')
        snprintf(buf, n, "%s", num);
    else
        snprintf(buf, n, "%s %s", num, unit);
}

void ac_pdf_fmt_pct(char *buf, size_t n, double rel)
{
    if (!isfinite(rel))
        snprintf(buf, n, "\xE2\x80\x93");
    else if (rel == 0.0)
        snprintf(buf, n, "0 (exact)");
    else
        snprintf(buf, n, "\xC2\xB1%.2g%%", 100.0 * rel);
}

const char *ac_pdf_verdict_label(ac_verdict v)
{
    switch (v) {
    case AC_VERDICT_PASS: return "PASS";
    case AC_VERDICT_FAIL: return "FAIL";
    case AC_VERDICT_INCONCLUSIVE: return "INCONCLUSIVE";
    case AC_VERDICT_INVALID: return "INVALID INPUT";
    }
    return "?";
}

rgb ac_pdf_verdict_color(ac_verdict v)
{
    return v == AC_VERDICT_PASS           ? AC_PDF_PASS
           : v == AC_VERDICT_INCONCLUSIVE ? AC_PDF_INC
                                          : AC_PDF_FAIL;
}

/* ---------------------------------------------------------------- flow */

void ac_pdf_paragraph(pdf_doc *d, const char *text)
{
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, text);
}

void ac_pdf_bullet(pdf_doc *d, const char *text)
{
    ac_pdf_doc_room_ensure(d, BODY * 1.3);
    ac_plot_text(&d->cv, d->cv.regular, BODY, MARGIN_X + 4.0, d->y - BODY, AC_PLOT_LEFT,
                 "\xE2\x80\xA2");
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 14.0, text);
    d->y += BODY * 0.25;
}

/* ---------------------------------------------------------------- tables */

/* The shared cells of a row of `cols`, every text in `font`. */
static void make_cells(const pdf_col *cols, size_t n, const char *const *texts, HPDF_Font font,
                       ac_pdf_cell *out)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        out[i].text = texts[i];
        out[i].font = font;
        out[i].width = cols[i].width;
        out[i].align = cols[i].align;
    }
}

double ac_pdf_table_row_height(pdf_doc *d, const pdf_col *cols, size_t n, const char *const *texts,
                               HPDF_Font font)
{
    ac_pdf_cell cells[MAX_COLS];
    make_cells(cols, n, texts, font, cells);
    return ac_pdf_doc_row_height(d, cells, n);
}

/* A row; the cell hl_col (if < n) is drawn bold in the colour hl. */
void ac_pdf_table_row_draw(pdf_doc *d, const pdf_col *cols, size_t n, const char *const *texts,
                           HPDF_Font font, double h, int shade, size_t hl_col, rgb hl)
{
    ac_pdf_cell cells[MAX_COLS];
    make_cells(cols, n, texts, font, cells);
    if (hl_col < n) {
        cells[hl_col].font = d->cv.bold;
        cells[hl_col].color = &hl;
        cells[hl_col].restore = 1;
    }
    ac_pdf_doc_row_draw(d, cells, n, h, shade);
}

void ac_pdf_table_header(pdf_doc *d, const pdf_col *cols, size_t n)
{
    const char *titles[MAX_COLS];
    double h;
    for (size_t i = 0; i < n; i++)
        titles[i] = cols[i].title;
    h = ac_pdf_table_row_height(d, cols, n, titles, d->cv.bold);
    ac_pdf_doc_room_ensure(d, h + 16.0);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.8);
    ac_pdf_table_row_draw(d, cols, n, titles, d->cv.bold, h, 0, MAX_COLS, AC_PDF_BLACK);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.6);
}

/* One row; on a page break the header is repeated. */
void ac_pdf_table_row(pdf_doc *d, const pdf_col *cols, size_t n, const char *const *cells,
                      size_t index, size_t hl_col, rgb hl)
{
    double h = ac_pdf_table_row_height(d, cols, n, cells, d->cv.regular);
    if (d->y - h < MARGIN_BOTTOM) {
        ac_pdf_doc_page_new(d);
        ac_pdf_table_header(d, cols, n);
    }
    ac_pdf_table_row_draw(d, cols, n, cells, d->cv.regular, h, index % 2 == 1, hl_col, hl);
}

void ac_pdf_table_end(pdf_doc *d)
{
    d->y -= 10.0;
}

void ac_pdf_fmt_sim(char *buf, size_t n, const ac_sim_estimate *e, const char *unit)
{
    char v[48], c[48];
    if (e == NULL || e->n == 0 || !isfinite(e->mean)) {
        buf[0] = '\0';
        return;
    }
    ac_pdf_fmt_qty(v, sizeof v, e->mean, unit);
    ac_pdf_fmt_qty(c, sizeof c, e->ci95, unit);
    snprintf(buf, n, "%s \xC2\xB1 %s", v, c);
}
