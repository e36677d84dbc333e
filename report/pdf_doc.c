/*
 * The PDF document machinery shared by report/pdf.c and report/pdf_compare.c: see
 * report/pdf_doc.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/atomic.h"
#include "report/pdf_doc.h"

#define DEFAULT_FONT_DIR "/usr/share/fonts/truetype/dejavu"

ac_pdf_rgb ac_pdf_doc_status_color(ac_check_status s)
{
    return s == AC_CHECK_PASS ? AC_PDF_PASS : s == AC_CHECK_FAIL ? AC_PDF_FAIL : AC_PDF_INC;
}

static void on_hpdf_error(HPDF_STATUS error_no, HPDF_STATUS detail_no, void *user_data)
{
    ac_pdf_doc *d = user_data;
    /* reading the memory stream to its end is not a failure */
    if (error_no == HPDF_STREAM_EOF)
        return;
    d->error_no = error_no;
    d->detail_no = detail_no;
    longjmp(d->env, 1);
}

static const char *hpdf_error_name(HPDF_STATUS e)
{
    switch (e) {
    case HPDF_FILE_OPEN_ERROR: return "cannot open a file";
    case HPDF_FILE_IO_ERROR: return "file input/output error";
    case HPDF_FAILD_TO_ALLOC_MEM: return "out of memory";
    case HPDF_TTF_INVALID_FOMAT: return "not a TrueType font";
    case HPDF_INVALID_DATE_TIME: return "invalid date";
    default: return "libharu error";
    }
}

/* Load the DejaVu Sans faces from the font directory into the canvas. */
static void load_fonts(ac_pdf_doc *d)
{
    const char *dir = d->opt.font_dir != NULL ? d->opt.font_dir : DEFAULT_FONT_DIR;
    char font_path[1024];
    const char *regular_name, *bold_name;
    snprintf(font_path, sizeof font_path, "%s/DejaVuSans.ttf", dir);
    snprintf(d->doing, sizeof d->doing, "loading the font '%.250s'", font_path);
    regular_name = HPDF_LoadTTFontFromFile(d->doc, font_path, HPDF_TRUE);
    if (regular_name == NULL)
        ac_plot_throw(&d->cv);
    snprintf(font_path, sizeof font_path, "%s/DejaVuSans-Bold.ttf", dir);
    snprintf(d->doing, sizeof d->doing, "loading the font '%.250s'", font_path);
    bold_name = HPDF_LoadTTFontFromFile(d->doc, font_path, HPDF_TRUE);
    if (bold_name == NULL)
        ac_plot_throw(&d->cv);
    d->cv.regular = HPDF_GetFont(d->doc, regular_name, "UTF-8");
    d->cv.bold = HPDF_GetFont(d->doc, bold_name, "UTF-8");
    if (d->cv.regular == NULL || d->cv.bold == NULL)
        ac_plot_throw(&d->cv);
    snprintf(d->doing, sizeof d->doing, "writing the fonts' ToUnicode maps");
    AC_PLOT_CHECK(&d->cv, ac_plot_font_tounicode(d->doc, d->cv.regular));
    AC_PLOT_CHECK(&d->cv, ac_plot_font_tounicode(d->doc, d->cv.bold));
}

/* The creator, the title and, if asked, the creation and modification dates. */
static void set_info(ac_pdf_doc *d, const char *title)
{
    snprintf(d->doing, sizeof d->doing, "setting the document information");
    AC_PLOT_CHECK(&d->cv, HPDF_SetInfoAttr(d->doc, HPDF_INFO_CREATOR, "archcheck " AC_VERSION));
    AC_PLOT_CHECK(&d->cv, HPDF_SetInfoAttr(d->doc, HPDF_INFO_TITLE, title));
    if (d->opt.has_creation_date) {
        time_t t = (time_t)d->opt.creation_date;
        struct tm tm;
        HPDF_Date date;
        snprintf(d->doing, sizeof d->doing, "setting the creation date");
        if (gmtime_r(&t, &tm) == NULL)
            ac_plot_throw(&d->cv);
        memset(&date, 0, sizeof date);
        date.year = tm.tm_year + 1900;
        date.month = tm.tm_mon + 1;
        date.day = tm.tm_mday;
        date.hour = tm.tm_hour;
        date.minutes = tm.tm_min;
        date.seconds = tm.tm_sec;
        date.ind = 'Z';
        AC_PLOT_CHECK(&d->cv, HPDF_SetInfoDateAttr(d->doc, HPDF_INFO_CREATION_DATE, date));
        AC_PLOT_CHECK(&d->cv, HPDF_SetInfoDateAttr(d->doc, HPDF_INFO_MOD_DATE, date));
    }
}

/* Serialise the document into d->buf. */
static void serialise(ac_pdf_doc *d)
{
    HPDF_UINT32 got;
    HPDF_STATUS st;
    snprintf(d->doing, sizeof d->doing, "serialising the document");
    AC_PLOT_CHECK(&d->cv, HPDF_SaveToStream(d->doc));
    d->size = HPDF_GetStreamSize(d->doc);
    if (d->size == 0)
        ac_plot_throw(&d->cv);
    d->buf = malloc(d->size);
    if (d->buf == NULL) {
        d->error_no = HPDF_FAILD_TO_ALLOC_MEM;
        ac_plot_throw(&d->cv);
    }
    got = d->size;
    st = HPDF_ReadFromStream(d->doc, d->buf, &got);
    if ((st != HPDF_OK && st != HPDF_STREAM_EOF) || got != d->size)
        ac_plot_throw(&d->cv);
}

/* Build and serialise the document into d->buf (every failure jumps to d->env). */
static void build(ac_pdf_doc *d, const char *title, ac_pdf_doc_draw_fn draw, const void *ctx)
{
    snprintf(d->doing, sizeof d->doing, "setting up the document");
    AC_PLOT_CHECK(&d->cv, HPDF_SetCompressionMode(d->doc, HPDF_COMP_ALL));
    AC_PLOT_CHECK(&d->cv, HPDF_UseUTFEncodings(d->doc));
    load_fonts(d);
    set_info(d, title);
    draw(d, ctx);
    serialise(d);
}

int ac_pdf_doc_write(const char *path, const ac_report_pdf_options *opt, const char *what,
                     const char *title, ac_pdf_doc_draw_fn draw, const void *ctx, ac_error *err)
{
    ac_pdf_doc *d = calloc(1, sizeof *d);
    ac_atomic_file out;
    int rc;
    if (d == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    if (opt != NULL)
        d->opt = *opt;
    else
        ac_report_pdf_options_init(&d->opt);
    d->cv.env = &d->env;
    d->doc = HPDF_New(on_hpdf_error, d);
    if (d->doc == NULL) {
        free(d);
        return ac_error_set(err, AC_ENOMEM, "cannot write the PDF %s: out of memory", what);
    }
    ac_plot_cjk_init(&d->cjk, d->doc, on_hpdf_error);
    d->cv.cjk = &d->cjk;
    if (setjmp(d->env) != 0) {
        if (d->error_no != 0)
            rc = ac_error_set(err, d->error_no == HPDF_FAILD_TO_ALLOC_MEM ? AC_ENOMEM : AC_EIO,
                              "cannot write the PDF %s '%s': %s (libharu 0x%04X, detail %u) "
                              "while %s",
                              what, path, hpdf_error_name(d->error_no), (unsigned)d->error_no,
                              (unsigned)d->detail_no, d->doing);
        else
            rc = ac_error_set(err, AC_EIO,
                              "cannot write the PDF %s '%s': a libharu call failed while %s", what,
                              path, d->doing);
        goto cleanup;
    }
    build(d, title, draw, ctx);
    /* the document is complete in memory: now the file, atomically */
    rc = ac_atomic_open(&out, path, err);
    if (rc != AC_OK)
        goto cleanup;
    if (fwrite(d->buf, 1, d->size, out.fp) != d->size) {
        ac_atomic_abort(&out);
        rc = ac_error_set(err, AC_EIO, "cannot write '%s'", path);
        goto cleanup;
    }
    rc = ac_atomic_commit(&out, err);
cleanup:
    HPDF_Free(d->doc);
    free(d->buf);
    free(d);
    return rc;
}

/* ---------------------------------------------------------------- pages and flow */

void ac_pdf_doc_page_new(ac_pdf_doc *d)
{
    char foot[400];
    HPDF_Page page = HPDF_AddPage(d->doc);
    if (page == NULL)
        ac_plot_throw(&d->cv);
    d->cv.page = page;
    AC_PLOT_CHECK(&d->cv, HPDF_Page_SetSize(page, HPDF_PAGE_SIZE_A4, HPDF_PAGE_PORTRAIT));
    d->pages++;
    d->y = PAGE_H - MARGIN_TOP;
    snprintf(foot, sizeof foot, "archcheck %s \xC2\xB7 %s%s", AC_VERSION,
             d->footer_kind != NULL ? d->footer_kind : "", d->footer != NULL ? d->footer : "");
    ac_plot_set_gray(&d->cv, 0.55, 0.45);
    ac_plot_line(&d->cv, MARGIN_X, MARGIN_BOTTOM - 14.0, PAGE_W - MARGIN_X, MARGIN_BOTTOM - 14.0,
                 0.4);
    ac_plot_text_wrapped(&d->cv, d->cv.regular, 7.0, MARGIN_X, MARGIN_BOTTOM - 24.0,
                         CONTENT_W - 60.0, 8.0, AC_PLOT_LEFT, foot);
    snprintf(foot, sizeof foot, "page %u", d->pages);
    ac_plot_text(&d->cv, d->cv.regular, 7.0, PAGE_W - MARGIN_X, MARGIN_BOTTOM - 24.0, AC_PLOT_RIGHT,
                 foot);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
}

void ac_pdf_doc_room_ensure(ac_pdf_doc *d, double h)
{
    if (d->y - h < MARGIN_BOTTOM)
        ac_pdf_doc_page_new(d);
}

void ac_pdf_doc_heading_write(ac_pdf_doc *d, double size, const char *text)
{
    size_t lines = ac_plot_text_lines(&d->cv, d->cv.bold, size, text, CONTENT_W);
    double h = (double)lines * size * 1.25;
    ac_pdf_doc_room_ensure(d, h + size + 40.0); /* keep a heading with what follows */
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_text_wrapped(&d->cv, d->cv.bold, size, MARGIN_X, d->y - size, CONTENT_W, size * 1.25,
                         AC_PLOT_LEFT, text);
    d->y -= h + size * 0.5;
}

void ac_pdf_doc_paragraph_write(ac_pdf_doc *d, HPDF_Font font, double size, double indent,
                                const char *text)
{
    double lead = size * 1.3, width = CONTENT_W - indent;
    const char *s = text;
    while (*s != '\0') {
        char line[2048];
        const char *next;
        size_t len = ac_plot_text_break(&d->cv, font, size, s, width, &next);
        if (len >= sizeof line)
            len = sizeof line - 1;
        memcpy(line, s, len);
        line[len] = '\0';
        ac_pdf_doc_room_ensure(d, lead);
        ac_plot_text(&d->cv, font, size, MARGIN_X + indent, d->y - size, AC_PLOT_LEFT, line);
        d->y -= lead;
        if (next == s)
            break;
        s = next;
    }
    d->y -= size * 0.4;
}

void ac_pdf_doc_created_format(const ac_report_pdf_options *opt, char *buf, size_t n)
{
    time_t t = (time_t)opt->creation_date;
    struct tm tm;
    if (gmtime_r(&t, &tm) != NULL)
        strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
    else
        snprintf(buf, n, "%lld", opt->creation_date);
}

void ac_pdf_doc_cjk_note(ac_pdf_doc *d, double size, const char *what, const char *aside)
{
    char text[1400];
    if (!ac_plot_cjk_missing(&d->cjk) || d->cjk_noted)
        return;
    ac_pdf_doc_heading_write(d, size, "Fonts");
    snprintf(text, sizeof text,
             "Korean, Chinese and Japanese text in this %s is drawn as empty boxes (it is still "
             "in the text of the document%s): the fallback font '%.600s' could not be loaded. "
             "Install the Debian package " AC_PLOT_CJK_PACKAGE " or set $" AC_PLOT_CJK_ENV
             " to a TrueType font with these characters.",
             what, aside, d->cjk.path);
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, text);
    d->cjk_noted = 1;
}

void ac_pdf_doc_bars_draw(ac_pdf_doc *d, ac_plot *p, const double *x, const double *y, size_t n,
                          double limit, double box_h)
{
    double lx[2], ly[2];
    ac_plot_add(p, AC_PLOT_KIND_BARS, AC_PLOT_DASHED, x, y, n, NULL);
    if (isfinite(limit)) {
        lx[0] = -0.5;
        lx[1] = (double)n - 0.5;
        ly[0] = ly[1] = limit;
        ac_plot_add(p, AC_PLOT_KIND_LINE, AC_PLOT_DOTTED, lx, ly, 2, NULL);
    }
    ac_pdf_doc_room_ensure(d, box_h);
    ac_plot_draw(&d->cv, p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
    d->y -= box_h + 12.0;
}

/* ---------------------------------------------------------------- table rows */

double ac_pdf_doc_row_height(ac_pdf_doc *d, const ac_pdf_cell *cells, size_t n)
{
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) {
        size_t l =
            ac_plot_text_lines(&d->cv, cells[i].font, CELL,
                               cells[i].text != NULL ? cells[i].text : "", cells[i].width - 6.0);
        if (l > lines)
            lines = l;
    }
    return (double)lines * CELL_LEAD + 5.0;
}

void ac_pdf_doc_row_draw(ac_pdf_doc *d, const ac_pdf_cell *cells, size_t n, double h, int shade)
{
    double x = MARGIN_X;
    if (shade) {
        ac_plot_set_gray(&d->cv, 0.0, 0.94);
        ac_plot_rect_fill(&d->cv, MARGIN_X, d->y - h, CONTENT_W, h);
    }
    for (size_t i = 0; i < n; i++) {
        const ac_pdf_cell *c = &cells[i];
        if (c->color != NULL)
            ac_plot_set_rgb_fill(&d->cv, c->color->r, c->color->g, c->color->b);
        else
            ac_plot_set_gray(&d->cv, 0.0, 0.0);
        ac_plot_text_wrapped(&d->cv, c->font, CELL, x + 3.0, d->y - 3.0 - CELL, c->width - 6.0,
                             CELL_LEAD, c->align, c->text != NULL ? c->text : "");
        if (c->color != NULL && c->restore)
            ac_plot_set_gray(&d->cv, 0.0, 0.0);
        x += c->width;
    }
    ac_plot_set_gray(&d->cv, 0.8, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y - h, MARGIN_X + CONTENT_W, d->y - h, 0.4);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    d->y -= h;
}
