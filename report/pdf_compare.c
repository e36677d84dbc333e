/*
 * The PDF of `archcheck compare` (libharu 2.3.0): see ac_report_compare_pdf in
 * archcheck/report.h.
 *
 * Same conventions as report/pdf.c (whose helpers are private to it, so the few needed here are
 * repeated in small): every libharu failure longjmps back to ac_report_compare_pdf, which frees
 * the document, the table and the output buffer and leaves no file behind; drawing never
 * allocates. Determinism: no /ID, no date unless asked, fixed fonts and order.
 *
 * Layout: a title block (files, SHA-256, seed, version), the variants with their verdicts and
 * what each changed, the table (checks and KPIs; the reference variant is repeated in every
 * column group when there are more than COLS_PER_GROUP variants), the headroom factor per
 * variant as a bar chart, and a marked place for the resilience boundary per variant.
 */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hpdf.h>

#include "archcheck/report.h"
#include "common/atomic.h"
#include "report/plot.h"

#define PAGE_W 595.276
#define PAGE_H 841.89
#define MARGIN_X 48.0
#define MARGIN_TOP 48.0
#define MARGIN_BOTTOM 50.0
#define CONTENT_W (PAGE_W - 2.0 * MARGIN_X)
#define BODY 8.5
#define CELL 7.8
#define CELL_LEAD 9.6
#define NAME_W 150.0
#define COLS_PER_GROUP 4 /* variant columns per table (the reference included) */
#define MAX_BARS 24
#define DEFAULT_FONT_DIR "/usr/share/fonts/truetype/dejavu"

typedef struct cdoc {
    HPDF_Doc doc;
    jmp_buf env;
    ac_plot_canvas cv;
    ac_plot_cjk cjk; /* the fallback font for Korean, Chinese and Japanese (lazy) */
    double y;
    unsigned pages;
    const char *footer;
    HPDF_STATUS error_no, detail_no;
    char doing[300];
    unsigned char *buf;
    HPDF_UINT32 size;
    ac_report_pdf_options opt;
    ac_compare_table *table;
} cdoc;

typedef struct rgb {
    double r, g, b;
} rgb;

static const rgb COLOR_PASS = {0.05, 0.45, 0.15};
static const rgb COLOR_FAIL = {0.75, 0.05, 0.05};
static const rgb COLOR_INC = {0.70, 0.42, 0.0};
static const rgb COLOR_BLACK = {0.0, 0.0, 0.0};

static void on_hpdf_error(HPDF_STATUS error_no, HPDF_STATUS detail_no, void *user_data)
{
    cdoc *d = user_data;
    if (error_no == HPDF_STREAM_EOF)
        return;
    d->error_no = error_no;
    d->detail_no = detail_no;
    longjmp(d->env, 1);
}

/* ---------------------------------------------------------------- formatting */

static void fmt_qty(char *buf, size_t n, double v, const char *unit)
{
    if (isnan(v)) {
        snprintf(buf, n, "\xE2\x80\x93");
    } else if (isinf(v)) {
        snprintf(buf, n, "%s", v > 0 ? "unbounded" : "\xE2\x88\x92\xE2\x88\x9E");
    } else if (strcmp(unit, "s") == 0) {
        double a = fabs(v);
        if (v == 0.0)
            snprintf(buf, n, "0 s");
        else if (a < 1e-3)
            snprintf(buf, n, "%.4g \xC2\xB5s", v * 1e6);
        else if (a < 1.0)
            snprintf(buf, n, "%.4g ms", v * 1e3);
        else
            snprintf(buf, n, "%.4g s", v);
    } else if (unit[0] != '\0') {
        snprintf(buf, n, "%.4g %s", v, unit);
    } else {
        snprintf(buf, n, "%.4g", v);
    }
}

static const char *status_label(ac_check_status s)
{
    switch (s) {
    case AC_CHECK_PASS: return "PASS";
    case AC_CHECK_FAIL: return "FAIL";
    case AC_CHECK_INCONCLUSIVE: return "INCONCLUSIVE";
    }
    return "?";
}

static rgb status_color(ac_check_status s)
{
    return s == AC_CHECK_PASS ? COLOR_PASS : s == AC_CHECK_FAIL ? COLOR_FAIL : COLOR_INC;
}

static const char *verdict_label(const ac_compare_variant *v)
{
    if (v->analysis == NULL)
        return "NOT ANALYSED";
    switch (v->verdict) {
    case AC_VERDICT_PASS: return "PASS";
    case AC_VERDICT_FAIL: return "FAIL";
    case AC_VERDICT_INCONCLUSIVE: return "INCONCLUSIVE";
    case AC_VERDICT_INVALID: return "INVALID";
    }
    return "?";
}

static rgb verdict_color(const ac_compare_variant *v)
{
    if (v->analysis == NULL || v->verdict == AC_VERDICT_INCONCLUSIVE)
        return COLOR_INC;
    return v->verdict == AC_VERDICT_PASS ? COLOR_PASS : COLOR_FAIL;
}

/* ---------------------------------------------------------------- pages and flow */

static void new_page(cdoc *d)
{
    char foot[400];
    HPDF_Page page = HPDF_AddPage(d->doc);
    if (page == NULL)
        ac_plot_throw(&d->cv);
    d->cv.page = page;
    AC_PLOT_CHECK(&d->cv, HPDF_Page_SetSize(page, HPDF_PAGE_SIZE_A4, HPDF_PAGE_PORTRAIT));
    d->pages++;
    d->y = PAGE_H - MARGIN_TOP;
    snprintf(foot, sizeof foot, "archcheck %s \xC2\xB7 compare \xC2\xB7 %s", AC_VERSION,
             d->footer != NULL ? d->footer : "");
    ac_plot_set_gray(&d->cv, 0.55, 0.45);
    ac_plot_line(&d->cv, MARGIN_X, MARGIN_BOTTOM - 14.0, PAGE_W - MARGIN_X, MARGIN_BOTTOM - 14.0,
                 0.4);
    ac_plot_text_wrapped(&d->cv, d->cv.regular, 7.0, MARGIN_X, MARGIN_BOTTOM - 24.0,
                         CONTENT_W - 60.0, 8.0, AC_PLOT_LEFT, foot);
    snprintf(foot, sizeof foot, "page %u", d->pages);
    ac_plot_text(&d->cv, d->cv.regular, 7.0, PAGE_W - MARGIN_X, MARGIN_BOTTOM - 24.0,
                 AC_PLOT_RIGHT, foot);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
}

static void ensure(cdoc *d, double h)
{
    if (d->y - h < MARGIN_BOTTOM)
        new_page(d);
}

static void heading(cdoc *d, double size, const char *text)
{
    size_t lines = ac_plot_text_lines(&d->cv, d->cv.bold, size, text, CONTENT_W);
    double h = (double)lines * size * 1.25;
    ensure(d, h + size + 40.0);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_text_wrapped(&d->cv, d->cv.bold, size, MARGIN_X, d->y - size, CONTENT_W, size * 1.25,
                         AC_PLOT_LEFT, text);
    d->y -= h + size * 0.5;
}

/* A wrapped paragraph, broken across pages line by line. */
static void paragraph_indent(cdoc *d, HPDF_Font font, double indent, const char *text)
{
    double lead = BODY * 1.3, width = CONTENT_W - indent;
    const char *s = text;
    while (*s != '\0') {
        char line[2048];
        const char *next;
        size_t len = ac_plot_text_break(&d->cv, font, BODY, s, width, &next);
        if (len >= sizeof line)
            len = sizeof line - 1;
        memcpy(line, s, len);
        line[len] = '\0';
        ensure(d, lead);
        ac_plot_text(&d->cv, font, BODY, MARGIN_X + indent, d->y - BODY, AC_PLOT_LEFT, line);
        d->y -= lead;
        if (next == s)
            break;
        s = next;
    }
    d->y -= BODY * 0.4;
}

static void paragraph(cdoc *d, const char *text)
{
    paragraph_indent(d, d->cv.regular, 0.0, text);
}

/* ---------------------------------------------------------------- the table */

/* One cell to draw: text, font and colour. */
typedef struct ccell {
    char text[256];
    int bold;
    rgb color;
} ccell;

static double cells_height(cdoc *d, const ccell *cells, size_t n, const double *widths)
{
    size_t lines = 1;
    for (size_t i = 0; i < n; i++) {
        size_t l = ac_plot_text_lines(&d->cv, cells[i].bold ? d->cv.bold : d->cv.regular, CELL,
                                      cells[i].text, widths[i] - 6.0);
        lines = l > lines ? l : lines;
    }
    return (double)lines * CELL_LEAD + 5.0;
}

static void draw_cells(cdoc *d, const ccell *cells, size_t n, const double *widths, double h,
                       int shade)
{
    double x = MARGIN_X;
    if (shade) {
        ac_plot_set_gray(&d->cv, 0.0, 0.94);
        ac_plot_rect_fill(&d->cv, MARGIN_X, d->y - h, CONTENT_W, h);
    }
    for (size_t i = 0; i < n; i++) {
        ac_plot_set_rgb_fill(&d->cv, cells[i].color.r, cells[i].color.g, cells[i].color.b);
        ac_plot_text_wrapped(&d->cv, cells[i].bold ? d->cv.bold : d->cv.regular, CELL, x + 3.0,
                             d->y - 3.0 - CELL, widths[i] - 6.0, CELL_LEAD,
                             i == 0 ? AC_PLOT_LEFT : AC_PLOT_RIGHT, cells[i].text);
        x += widths[i];
    }
    ac_plot_set_gray(&d->cv, 0.8, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y - h, MARGIN_X + CONTENT_W, d->y - h, 0.4);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    d->y -= h;
}

/* The header of one column group: variant ids, then their verdicts. */
static void group_header(cdoc *d, const ac_compare_run *run, const size_t *cols, size_t n,
                         const double *widths)
{
    ccell cells[COLS_PER_GROUP + 1];
    double h;
    memset(cells, 0, sizeof cells);
    snprintf(cells[0].text, sizeof cells[0].text, "Check or quantity");
    cells[0].bold = 1;
    for (size_t i = 0; i < n; i++) {
        snprintf(cells[i + 1].text, sizeof cells[i + 1].text, "%s", run->variants[cols[i]].id);
        cells[i + 1].bold = 1;
    }
    h = cells_height(d, cells, n + 1, widths);
    ensure(d, 2.0 * h + 20.0);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.8);
    draw_cells(d, cells, n + 1, widths, h, 0);
    snprintf(cells[0].text, sizeof cells[0].text, "verdict");
    for (size_t i = 0; i < n; i++) {
        snprintf(cells[i + 1].text, sizeof cells[i + 1].text, "%s",
                 verdict_label(&run->variants[cols[i]]));
        cells[i + 1].color = verdict_color(&run->variants[cols[i]]);
    }
    h = cells_height(d, cells, n + 1, widths);
    draw_cells(d, cells, n + 1, widths, h, 0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.6);
}

static void write_group(cdoc *d, const ac_compare_run *run, const size_t *cols, size_t n)
{
    const ac_compare_table *t = d->table;
    double widths[COLS_PER_GROUP + 1];
    widths[0] = NAME_W;
    for (size_t i = 0; i < n; i++)
        widths[i + 1] = (CONTENT_W - NAME_W) / (double)COLS_PER_GROUP;
    group_header(d, run, cols, n, widths);
    for (size_t r = 0; r < t->nrows; r++) {
        const ac_compare_row *row = &t->rows[r];
        ccell cells[COLS_PER_GROUP + 1];
        double h;
        memset(cells, 0, sizeof cells);
        snprintf(cells[0].text, sizeof cells[0].text, "%s", row->name);
        for (size_t i = 0; i < n; i++) {
            const ac_compare_cell *c = &row->cells[cols[i]];
            ccell *x = &cells[i + 1];
            char v[64];
            if (c->present)
                fmt_qty(v, sizeof v, c->value, row->unit);
            else
                snprintf(v, sizeof v, "\xE2\x80\x93");
            if (c->has_status) {
                snprintf(x->text, sizeof x->text, "%s%s\n%s", v, row->best == cols[i] ? " *" : "",
                         status_label(c->status));
                x->color = status_color(c->status);
            } else {
                snprintf(x->text, sizeof x->text, "%s%s", v, row->best == cols[i] ? " *" : "");
                x->color = COLOR_BLACK;
            }
            x->bold = row->best == cols[i];
        }
        h = cells_height(d, cells, n + 1, widths);
        if (d->y - h < MARGIN_BOTTOM) {
            new_page(d);
            group_header(d, run, cols, n, widths);
        }
        draw_cells(d, cells, n + 1, widths, h, r % 2 == 1);
    }
    d->y -= 10.0;
}

static void write_table(cdoc *d, const ac_compare_run *run)
{
    size_t cols[COLS_PER_GROUP], start;
    heading(d, 12.0, "Side by side");
    paragraph(d, "One row per requirement check and per KPI; a check's cell gives its value and "
                 "its status. * and bold: the strictly best value of the row (lower is better, "
                 "except for the headroom factor and minimum requirements). \xE2\x80\x93: no "
                 "number (not analysed, or not applicable).");
    if (run->nvariants == 0 || d->table->nrows == 0) {
        paragraph(d, "Nothing to compare.");
        return;
    }
    /* groups of columns: the reference, then up to COLS_PER_GROUP - 1 others */
    start = 1;
    do {
        size_t n = 0;
        cols[n++] = 0;
        for (size_t v = start; v < run->nvariants && n < COLS_PER_GROUP; v++)
            cols[n++] = v;
        write_group(d, run, cols, n);
        start += COLS_PER_GROUP - 1;
    } while (start < run->nvariants);
}

/* ---------------------------------------------------------------- the rest */

static void write_title(cdoc *d, const ac_compare_run *run)
{
    char text[1200], created[64];
    new_page(d);
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
    heading(d, 15.0, text);
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
        time_t t = (time_t)d->opt.creation_date;
        struct tm tm;
        if (gmtime_r(&t, &tm) != NULL)
            strftime(created, sizeof created, "%Y-%m-%d %H:%M:%S UTC", &tm);
        else
            snprintf(created, sizeof created, "%lld", d->opt.creation_date);
        snprintf(text, sizeof text, "Created %s.", created);
        paragraph(d, text);
    }
    d->y -= 6.0;
}

static void write_variants(cdoc *d, const ac_compare_run *run)
{
    heading(d, 12.0, "Variants");
    for (size_t v = 0; v < run->nvariants; v++) {
        const ac_compare_variant *x = &run->variants[v];
        char text[2400];
        rgb col = verdict_color(x);
        snprintf(text, sizeof text, "%s (%s%s%s): %s", x->id, x->kind,
                 x->label != NULL ? ", " : "", x->label != NULL ? x->label : "", verdict_label(x));
        ensure(d, BODY * 1.3);
        ac_plot_set_rgb_fill(&d->cv, col.r, col.g, col.b);
        ac_plot_rect_fill(&d->cv, MARGIN_X + 2.0, d->y - BODY + 0.5, 6.0, 6.0);
        ac_plot_set_gray(&d->cv, 0.0, 0.0);
        paragraph_indent(d, d->cv.bold, 14.0, text);
        if (x->changes != NULL && x->changes[0] != '\0') {
            snprintf(text, sizeof text, "Changes: %s.", x->changes);
            paragraph_indent(d, d->cv.regular, 14.0, text);
        }
        if (x->error != NULL && x->error[0] != '\0') {
            snprintf(text, sizeof text, "Not analysed: %s.", x->error);
            paragraph_indent(d, d->cv.regular, 14.0, text);
        }
    }
    d->y -= 6.0;
}

/* The headroom factor per variant, with the headroom requirement as a dotted line. */
static void write_headroom_chart(cdoc *d, const ac_compare_run *run)
{
    const char *names[MAX_BARS];
    double x[MAX_BARS], h[MAX_BARS], lx[2], ly[2], limit = NAN, box_h = 210.0, top = 0.0;
    size_t n = 0, any = 0;
    ac_plot p;
    for (size_t r = 0; r < d->table->nrows; r++) {
        const ac_compare_row *row = &d->table->rows[r];
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
        ensure(d, box_h + 40.0); /* keep the heading with its chart */
    heading(d, 12.0, "Headroom per variant");
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
    ac_plot_add(&p, AC_PLOT_KIND_BARS, AC_PLOT_DASHED, x, h, n, NULL);
    if (isfinite(limit)) {
        lx[0] = -0.5;
        lx[1] = (double)n - 0.5;
        ly[0] = ly[1] = limit;
        ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DOTTED, lx, ly, 2, NULL);
    }
    ensure(d, box_h);
    ac_plot_draw(&d->cv, &p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
    d->y -= box_h + 12.0;
}

/* RESILIENCE-BOUNDARY: the place for the resilience boundary per variant (the lowest workload
 * at which the worst-case degradation exceeds tau). The worst-case search is not part of this
 * comparison yet; when ac_analysis carries a boundary, draw it here as a second bar chart like
 * write_headroom_chart, and add a row to ac_report_compare_table_new. */
static void write_resilience_placeholder(cdoc *d)
{
    heading(d, 12.0, "Resilience boundary per variant");
    paragraph(d, "Not computed by this version: the worst-case search that gives each variant's "
                 "resilience boundary is not part of the comparison yet.");
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

/* Build and serialise the document into d->buf (every failure jumps to d->env). */
static void build(cdoc *d, const ac_compare_run *run)
{
    const char *dir = d->opt.font_dir != NULL ? d->opt.font_dir : DEFAULT_FONT_DIR;
    char font_path[1024];
    const char *regular_name, *bold_name;
    HPDF_UINT32 got;
    HPDF_STATUS st;
    snprintf(d->doing, sizeof d->doing, "setting up the document");
    AC_PLOT_CHECK(&d->cv, HPDF_SetCompressionMode(d->doc, HPDF_COMP_ALL));
    AC_PLOT_CHECK(&d->cv, HPDF_UseUTFEncodings(d->doc));
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
    snprintf(d->doing, sizeof d->doing, "setting the document information");
    AC_PLOT_CHECK(&d->cv, HPDF_SetInfoAttr(d->doc, HPDF_INFO_CREATOR, "archcheck " AC_VERSION));
    AC_PLOT_CHECK(&d->cv, HPDF_SetInfoAttr(d->doc, HPDF_INFO_TITLE, "archcheck comparison"));
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
    d->footer = run->files[0];
    snprintf(d->doing, sizeof d->doing, "drawing the comparison");
    write_title(d, run);
    write_variants(d, run);
    write_table(d, run);
    write_headroom_chart(d, run);
    write_resilience_placeholder(d);
    if (ac_plot_cjk_missing(&d->cjk)) {
        char text[1400];
        heading(d, 12.0, "Fonts");
        snprintf(text, sizeof text,
                 "Korean, Chinese and Japanese text in this comparison is drawn as empty boxes "
                 "(it is still in the text of the document): the fallback font '%.600s' could not "
                 "be loaded. Install the Debian package " AC_PLOT_CJK_PACKAGE " or set $"
                 AC_PLOT_CJK_ENV " to a TrueType font with these characters.",
                 d->cjk.path);
        paragraph(d, text);
    }
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

int ac_report_compare_pdf(const char *path, const ac_compare_run *run,
                          const ac_report_pdf_options *opt, ac_error *err)
{
    cdoc *d = calloc(1, sizeof *d);
    ac_atomic_file out;
    int rc;
    if (d == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    if (opt != NULL)
        d->opt = *opt;
    else
        ac_report_pdf_options_init(&d->opt);
    rc = ac_report_compare_table_new(run, &d->table, err);
    if (rc != AC_OK) {
        free(d);
        return rc;
    }
    d->cv.env = &d->env;
    d->doc = HPDF_New(on_hpdf_error, d);
    if (d->doc == NULL) {
        ac_report_compare_table_free(d->table);
        free(d);
        return ac_error_set(err, AC_ENOMEM, "cannot write the PDF comparison: out of memory");
    }
    ac_plot_cjk_init(&d->cjk, d->doc, on_hpdf_error);
    d->cv.cjk = &d->cjk;
    if (setjmp(d->env) != 0) {
        if (d->error_no != 0)
            rc = ac_error_set(err, d->error_no == HPDF_FAILD_TO_ALLOC_MEM ? AC_ENOMEM : AC_EIO,
                              "cannot write the PDF comparison '%s': %s (libharu 0x%04X, detail "
                              "%u) while %s",
                              path, hpdf_error_name(d->error_no), (unsigned)d->error_no,
                              (unsigned)d->detail_no, d->doing);
        else
            rc = ac_error_set(err, AC_EIO,
                              "cannot write the PDF comparison '%s': a libharu call failed while "
                              "%s",
                              path, d->doing);
        goto cleanup;
    }
    build(d, run);
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
    ac_report_compare_table_free(d->table);
    free(d->buf);
    free(d);
    return rc;
}
