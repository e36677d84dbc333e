/*
 * The PDF document machinery shared by the report (report/pdf.c) and the comparison
 * (report/pdf_compare.c), internal to report/ (libharu 2.3.0).
 *
 * Errors: libharu's error handler and every ac_plot_* failure longjmp back to
 * ac_pdf_doc_write, which frees the document and the output buffer (the only allocations) and
 * leaves no file behind. Drawing helpers never allocate. Determinism: no /ID, no dates unless
 * asked, fixed fonts and order.
 *
 * The last section holds the few labels and numbers that the text forms (report/text.c,
 * report/compare.c) compute as the PDF forms do.
 */
#ifndef AC_REPORT_PDF_DOC_H
#define AC_REPORT_PDF_DOC_H

#include <setjmp.h>
#include <stddef.h>

#include <hpdf.h>

#include "report/internal.h"

#include "archcheck/report.h"
#include "report/plot.h"

/* ---------------------------------------------------------------- layout (points, A4) */

#define PAGE_W        595.276
#define PAGE_H        841.89
#define MARGIN_X      48.0
#define MARGIN_TOP    48.0
#define MARGIN_BOTTOM 50.0
#define CONTENT_W     (PAGE_W - 2.0 * MARGIN_X)
#define BODY          8.5
#define CELL          7.8
#define CELL_LEAD     9.6

/* ---------------------------------------------------------------- colours */

typedef struct ac_pdf_rgb {
    double r, g, b;
} ac_pdf_rgb;

#define AC_PDF_PASS  ((ac_pdf_rgb){0.05, 0.45, 0.15})
#define AC_PDF_FAIL  ((ac_pdf_rgb){0.75, 0.05, 0.05})
#define AC_PDF_INC   ((ac_pdf_rgb){0.70, 0.42, 0.0})
#define AC_PDF_BLACK ((ac_pdf_rgb){0.0, 0.0, 0.0})

/* The colour of a check status: green, red or amber. */
ac_pdf_rgb ac_pdf_doc_status_color(ac_check_status s);

/* ---------------------------------------------------------------- the document */

typedef struct ac_pdf_doc {
    HPDF_Doc doc;
    jmp_buf env;
    ac_plot_canvas cv; /* the current page */
    ac_plot_cjk cjk;   /* the fallback font for Korean, Chinese and Japanese (lazy) */
    int cjk_noted;     /* the document said that the fallback is missing */
    double y;          /* top of the free space on the current page */
    unsigned pages;
    const char *footer_kind; /* put before the footer's file ("compare · "), or NULL */
    const char *footer;      /* the file of the pages being written */
    HPDF_STATUS error_no, detail_no;
    char doing[300];    /* what was being done, for the error message */
    unsigned char *buf; /* the serialised document */
    HPDF_UINT32 size;
    ac_report_pdf_options opt;
} ac_pdf_doc;

/* Draws the pages of a document (every failure jumps to d->env). */
typedef void (*ac_pdf_doc_draw_fn)(ac_pdf_doc *d, const void *ctx);

/* Write the PDF `what` ("report", "comparison": for the error messages) titled `title` to
 * `path`, atomically: set up the document and its fonts, call draw(d, ctx), serialise. */
int ac_pdf_doc_write(const char *path, const ac_report_pdf_options *opt, const char *what,
                     const char *title, ac_pdf_doc_draw_fn draw, const void *ctx, ac_error *err);

/* ---------------------------------------------------------------- pages and flow */

/* A new page with its footer ("archcheck VERSION · [kind]FILE", "page N"). */
void ac_pdf_doc_page_new(ac_pdf_doc *d);

/* Make room for `h` points, starting a new page if needed. */
void ac_pdf_doc_room_ensure(ac_pdf_doc *d, double h);

/* A bold heading of `size` points, kept with what follows. */
void ac_pdf_doc_heading_write(ac_pdf_doc *d, double size, const char *text);

/* A wrapped paragraph indented by `indent`, broken across pages line by line. */
void ac_pdf_doc_paragraph_write(ac_pdf_doc *d, HPDF_Font font, double size, double indent,
                                const char *text);

/* The creation date of the options as "YYYY-MM-DD HH:MM:SS UTC" (the raw number if it is
 * out of range); only meaningful when opt->has_creation_date. */
void ac_pdf_doc_created_format(const ac_report_pdf_options *opt, char *buf, size_t n);

/* The "Fonts" section when the CJK fallback is missing (once per document): `what` is the
 * kind of document ("report"), `aside` is added to the parenthesis ("" or ", for ..."). */
void ac_pdf_doc_cjk_note(ac_pdf_doc *d, double size, const char *what, const char *aside);

/* A bar chart of n bars (x, y) in a box of box_h points, with the limit as a dotted line
 * across when it is finite; moves d->y below it. */
void ac_pdf_doc_bars_draw(ac_pdf_doc *d, ac_plot *p, const double *x, const double *y, size_t n,
                          double limit, double box_h);

/* The sizing page (report/pdf_size.c): nothing when file->sizing is NULL. */
void ac_report_pdf_size_page(ac_pdf_doc *d, const ac_report_file *rf);

/* ---------------------------------------------------------------- table rows */

/* One cell of a table row. The text is drawn black (gray) unless `color` is set; `restore`
 * goes back to black after a coloured text. */
typedef struct ac_pdf_cell {
    const char *text; /* NULL: empty */
    HPDF_Font font;
    double width;
    ac_plot_align align;
    const ac_pdf_rgb *color;
    int restore;
} ac_pdf_cell;

/* The height of a row: the most lines of any cell at CELL_LEAD, plus padding. */
double ac_pdf_doc_row_height(ac_pdf_doc *d, const ac_pdf_cell *cells, size_t n);

/* Draw a row of height h at d->y (shaded if asked) with its rule below; moves d->y down. */
void ac_pdf_doc_row_draw(ac_pdf_doc *d, const ac_pdf_cell *cells, size_t n, double h, int shade);

#endif
