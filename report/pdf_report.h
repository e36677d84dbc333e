/*
 * What the pages of the PDF report share (report/pdf.c, pdf_node.c, pdf_e2e.c, pdf_method.c),
 * internal to report/: number formats, paragraphs, tables (report/pdf_table.c) and the pages.
 * Every function draws into the document `d` and never allocates; a libharu failure jumps to
 * d->env (report/pdf_doc.h).
 */
#ifndef AC_REPORT_PDF_REPORT_H
#define AC_REPORT_PDF_REPORT_H

#include <stddef.h>

#include <hpdf.h>

#include "archcheck/report.h"
#include "report/pdf_doc.h"
#include "report/plot.h"

/* The most columns of a table. */
#define MAX_COLS 8

/* A column of a table: its title, width (points) and alignment. */
typedef struct ac_pdf_col {
    const char *title;
    double width;
    ac_plot_align align;
} ac_pdf_col;

/* ---------------------------------------------------------------- formatting (into buf, n bytes)
 */

/* A number in 4 significant digits; "–" for NaN, "∞" and "−∞". */
void ac_pdf_fmt_num(char *buf, size_t n, double v);

/* A quantity with its unit: seconds get ms or µs when small. */
void ac_pdf_fmt_qty(char *buf, size_t n, double v, const char *unit);

/* A relative error as "±x%" ("0 (exact)", "–" when not finite). */
void ac_pdf_fmt_pct(char *buf, size_t n, double rel);

/* A simulation's estimate as "mean ± ci95" in `unit`; empty when there is none. */
void ac_pdf_fmt_sim(char *buf, size_t n, const ac_sim_estimate *e, const char *unit);

/* The verdict's label ("PASS", ..., "INVALID INPUT") and colour. */
const char *ac_pdf_verdict_label(ac_verdict v);
ac_pdf_rgb ac_pdf_verdict_color(ac_verdict v);

/* ---------------------------------------------------------------- flow */

/* A body paragraph, and a bulleted one. */
void ac_pdf_paragraph(ac_pdf_doc *d, const char *text);
void ac_pdf_bullet(ac_pdf_doc *d, const char *text);

/* ---------------------------------------------------------------- tables (n <= MAX_COLS) */

/* The height of a row of `texts` in `font`. */
double ac_pdf_table_row_height(ac_pdf_doc *d, const ac_pdf_col *cols, size_t n,
                               const char *const *texts, HPDF_Font font);

/* A row of height h (shaded when `shade`); the cell hl_col (if < n) is drawn bold in the
 * colour hl. */
void ac_pdf_table_row_draw(ac_pdf_doc *d, const ac_pdf_col *cols, size_t n,
                           const char *const *texts, HPDF_Font font, double h, int shade,
                           size_t hl_col, ac_pdf_rgb hl);

/* The header row (column titles between rules), on a new page if needed. */
void ac_pdf_table_header(ac_pdf_doc *d, const ac_pdf_col *cols, size_t n);

/* Row number `index` (shaded when odd); on a page break the header is repeated. */
void ac_pdf_table_row(ac_pdf_doc *d, const ac_pdf_col *cols, size_t n, const char *const *cells,
                      size_t index, size_t hl_col, ac_pdf_rgb hl);

/* The space after a table. */
void ac_pdf_table_end(ac_pdf_doc *d);

/* ---------------------------------------------------------------- pages */

/* The page of node i of rf (report/pdf_node.c). */
void ac_pdf_node_page_write(ac_pdf_doc *d, const ac_report_file *rf, size_t i);

/* The end-to-end page (report/pdf_e2e.c). */
void ac_pdf_e2e_page_write(ac_pdf_doc *d, const ac_report_file *rf);

/* The method page (report/pdf_method.c). */
void ac_pdf_method_page_write(ac_pdf_doc *d, const ac_report_file *rf);

#endif
