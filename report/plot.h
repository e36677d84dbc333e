/*
 * A small plotting layer on libharu (internal to report/; the only place besides pdf*.c that
 * sees libharu types).
 *
 * Errors: every libharu call either succeeds or ends in ac_plot_throw(), which longjmps to
 * the canvas's jump buffer (the document's error handler does the same). The caller owns the
 * document and frees it after the jump. Nothing here allocates outside the document (the
 * fallback font is loaded into it, and HPDF_Free frees it), so a jump leaks nothing.
 *
 * Coordinates are PDF points with the origin at the bottom left of the page. Text is UTF-8
 * (the fonts are TrueType fonts loaded with the "UTF-8" encoder), measured with
 * HPDF_Page_TextWidth so that labels can be placed without overlapping or being cut. Text in
 * Korean, Chinese or Japanese is drawn and measured run by run with a fallback font (below).
 */
#ifndef AC_REPORT_PLOT_H
#define AC_REPORT_PLOT_H

#include <setjmp.h>
#include <stddef.h>

#include <hpdf.h>

/* ---- the fallback font for Korean, Chinese and Japanese ----
 *
 * DejaVu Sans has no Hangul, CJK ideographs or kana. Every string drawn or measured is split
 * into runs by script: Hangul syllables and jamo, CJK ideographs, kana, bopomofo, CJK
 * punctuation and symbols, full-width forms go to the fallback font, everything else (spaces
 * included) to the DejaVu font asked for. The fallback is loaded the first time a string needs
 * it, so a document without such text has exactly the bytes it had without the fallback.
 * When its file cannot be read (or loaded), that text is drawn with DejaVu (empty boxes) and
 * ac_plot_cjk_missing says so; drawing never fails because of it. */

#define AC_PLOT_CJK_ENV          "ARCHCHECK_CJK_FONT"
#define AC_PLOT_CJK_DEFAULT      "/usr/share/fonts/truetype/nanum/NanumGothic.ttf"
#define AC_PLOT_CJK_DEFAULT_BOLD "/usr/share/fonts/truetype/nanum/NanumGothicBold.ttf"
#define AC_PLOT_CJK_PACKAGE      "fonts-nanum"

typedef struct ac_plot_cjk {
    HPDF_Doc doc;
    HPDF_Error_Handler on_error; /* the document's handler, put back after a trial load */
    char path[1024];             /* the regular face (a TrueType .ttf file) */
    char bold_path[1024];        /* the bold face; empty: the regular face for bold text */
    int checked, missing, bold_tried;
    HPDF_Font regular, bold; /* NULL until loaded */
} ac_plot_cjk;

/*
 * Give `font` (a Type0 font that HPDF_GetFont loaded with the "UTF-8" encoder) a ToUnicode
 * CMap that says what its codes mean. libharu attaches its Identity-H encoding CMap (a CID
 * CMap, `begincidrange`) as the font's /ToUnicode, which readers refuse ("Invalid
 * 'begincidrange' operator in ToUnicode CMap", poppler) and then guess from the glyphs. Under
 * that encoder a code is the character's Unicode scalar value (the Basic Multilingual Plane),
 * so the map is the identity: 248 `bfrange`s of one high byte each (a range may not cross
 * its last byte), the surrogate block D800-DFFF left out. Returns HPDF_OK or libharu's
 * status (the document's error handler has been called).
 */
HPDF_STATUS ac_plot_font_tounicode(HPDF_Doc doc, HPDF_Font font);

/* Set up the fallback of `doc` (nothing is loaded): $ARCHCHECK_CJK_FONT if set and not empty
 * (then used for bold text too), else AC_PLOT_CJK_DEFAULT and AC_PLOT_CJK_DEFAULT_BOLD.
 * `on_error` is the handler the document was created with. */
void ac_plot_cjk_init(ac_plot_cjk *f, HPDF_Doc doc, HPDF_Error_Handler on_error);

/* Non-zero when some text needed the fallback and it could not be loaded (it was drawn as
 * empty boxes). */
int ac_plot_cjk_missing(const ac_plot_cjk *f);

/* Non-zero when the UTF-8 string holds a character that the fallback font draws. */
int ac_plot_needs_cjk(const char *s);

/* Where drawing goes: one page, its fonts, and the jump buffer of the document. */
typedef struct ac_plot_canvas {
    HPDF_Page page;
    HPDF_Font regular, bold;
    jmp_buf *env;
    ac_plot_cjk *cjk; /* the fallback for Korean, Chinese and Japanese; NULL: none */
} ac_plot_canvas;

/* Jump out to the canvas's jump buffer (a libharu call failed). */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void ac_plot_throw(const ac_plot_canvas *c);

/* Check a libharu status: anything but HPDF_OK jumps out. */
#define AC_PLOT_CHECK(c, call)                                                                     \
    do {                                                                                           \
        if ((call) != HPDF_OK)                                                                     \
            ac_plot_throw(c);                                                                      \
    } while (0)

/* ---- text and primitives ---- */

typedef enum ac_plot_align { AC_PLOT_LEFT = 0, AC_PLOT_CENTER, AC_PLOT_RIGHT } ac_plot_align;

/* Width of `s` (UTF-8) in points at this font and size. */
double ac_plot_text_width(const ac_plot_canvas *c, HPDF_Font font, double size, const char *s);

/* Draw `s` with its baseline at y; x is the left edge, the centre or the right edge. */
void ac_plot_text(const ac_plot_canvas *c, HPDF_Font font, double size, double x, double y,
                  ac_plot_align align, const char *s);

/* Draw `s` rotated by 90 degrees (reading upwards), centred on (x, y) along its length. */
void ac_plot_text_vertical(const ac_plot_canvas *c, HPDF_Font font, double size, double x, double y,
                           const char *s);

/* The longest prefix of `s` (whole UTF-8 characters, preferring a break at a space, then
 * one after a '-', '_' or '/' in a word too long for the line) whose
 * width is at most `width`: its byte count, at least one character. *next is where the next
 * line starts (spaces skipped). A newline ends a line. */
size_t ac_plot_text_break(const ac_plot_canvas *c, HPDF_Font font, double size, const char *s,
                          double width, const char **next);

/* Number of lines `s` takes when wrapped at `width`. */
size_t ac_plot_text_lines(const ac_plot_canvas *c, HPDF_Font font, double size, const char *s,
                          double width);

/* Draw `s` wrapped at `width`, the first baseline at y, `leading` points between baselines.
 * Returns the number of lines drawn. */
size_t ac_plot_text_wrapped(const ac_plot_canvas *c, HPDF_Font font, double size, double x,
                            double y, double width, double leading, ac_plot_align align,
                            const char *s);

void ac_plot_set_gray(const ac_plot_canvas *c, double stroke, double fill);
void ac_plot_set_rgb_fill(const ac_plot_canvas *c, double r, double g, double b);
void ac_plot_set_rgb_stroke(const ac_plot_canvas *c, double r, double g, double b);
void ac_plot_line(const ac_plot_canvas *c, double x0, double y0, double x1, double y1,
                  double width);
void ac_plot_rect_fill(const ac_plot_canvas *c, double x, double y, double w, double h);
void ac_plot_rect_stroke(const ac_plot_canvas *c, double x, double y, double w, double h,
                         double width);

/* ---- charts ---- */

typedef enum ac_plot_scale { AC_PLOT_LINEAR = 0, AC_PLOT_LOG10 } ac_plot_scale;

/* Series styles, distinguishable in black and white: line pattern and marker differ. */
typedef enum ac_plot_style {
    AC_PLOT_SOLID = 0, /* black, solid, no marker */
    AC_PLOT_DASHED,    /* blue, dashed, square markers */
    AC_PLOT_DOTTED,    /* red, dotted, circle markers */
    AC_PLOT_DASHDOT    /* green, dash-dot, triangle markers */
} ac_plot_style;

typedef enum ac_plot_kind {
    AC_PLOT_KIND_LINE = 0,
    AC_PLOT_KIND_STEP,
    AC_PLOT_KIND_BARS
} ac_plot_kind;

#define AC_PLOT_MAX_SERIES  6
#define AC_PLOT_MAX_MARKERS 6

typedef struct ac_plot_axis {
    ac_plot_scale scale;
    double min, max; /* min == max: from the data */
    const char *label;
    const char *const *categories; /* x only: names of the positions 0..n-1 (bar charts) */
    size_t ncategories;
    int integer; /* linear: whole-number ticks only (counts of jobs, instances) */
} ac_plot_axis;

typedef struct ac_plot_series {
    ac_plot_kind kind;
    ac_plot_style style;
    const double *x, *y; /* borrowed until ac_plot_draw */
    size_t n;
    double bar_width;  /* bars: in x units */
    const char *label; /* in the legend; NULL: not listed */
} ac_plot_series;

typedef struct ac_plot_marker {
    double x;
    const char *label;
} ac_plot_marker;

/* A chart, described first and drawn at once by ac_plot_draw (so that the layout knows every
 * label). Everything is borrowed. */
typedef struct ac_plot {
    const char *title;
    ac_plot_axis xaxis, yaxis;
    ac_plot_series series[AC_PLOT_MAX_SERIES];
    size_t nseries;
    ac_plot_marker markers[AC_PLOT_MAX_MARKERS];
    size_t nmarkers;
    const char *empty_note; /* printed in the plot area when there is nothing to draw */
} ac_plot;

/* Start a chart with a title and its axes (labels borrowed). */
void ac_plot_init(ac_plot *p, const char *title, ac_plot_scale xscale, const char *xlabel,
                  ac_plot_scale yscale, const char *ylabel);

/* Add a series; ignored beyond AC_PLOT_MAX_SERIES. */
void ac_plot_add(ac_plot *p, ac_plot_kind kind, ac_plot_style style, const double *x,
                 const double *y, size_t n, const char *label);

/* Add a vertical marker line at x with a label (e.g. "p95 0.42 s"). */
void ac_plot_add_marker(ac_plot *p, double x, const char *label);

/* Draw the chart in the box (x, y) lower-left, w x h: title on top, then the legend, the
 * plotting area with its axes, ticks and labels. Non-finite points (and non-positive ones on a
 * log axis) break a line. Data outside the axes is clipped. */
void ac_plot_draw(const ac_plot_canvas *c, const ac_plot *p, double x, double y, double w,
                  double h);

/* Format a tick value compactly ("0.25", "1e-06", "1500"). */
void ac_plot_format_tick(char *buf, size_t size, double v);

#endif
