/*
 * A small plotting layer on libharu: text measured and wrapped, axes with ticks (linear and
 * log10), line and step series with a legend, bar charts, vertical marker lines.
 * See report/plot.h.
 */
#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX 2048

void ac_plot_throw(const ac_plot_canvas *c)
{
    longjmp(*c->env, 1);
}

static HPDF_REAL r(double v)
{
    return (HPDF_REAL)v;
}

/* ---------------------------------------------------------------- the CJK fallback */

static size_t utf8_len(const char *p)
{
    unsigned char b = (unsigned char)*p;
    size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if (p[i] == '\0' || ((unsigned char)p[i] & 0xC0) != 0x80)
            return i;
    return n;
}

/* The code point of the character at p, `n` bytes long (0 when malformed). */
static unsigned long utf8_code(const char *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    switch (n) {
    case 1: return b[0] < 0x80 ? b[0] : 0;
    case 2: return b[0] >= 0xC0 && b[0] < 0xE0 ? ((b[0] & 0x1Ful) << 6) | (b[1] & 0x3Ful) : 0;
    case 3:
        return b[0] >= 0xE0 && b[0] < 0xF0
                   ? ((b[0] & 0x0Ful) << 12) | ((b[1] & 0x3Ful) << 6) | (b[2] & 0x3Ful)
                   : 0;
    case 4:
        return b[0] >= 0xF0 && b[0] < 0xF8 ? ((b[0] & 0x07ul) << 18) | ((b[1] & 0x3Ful) << 12) |
                                                 ((b[2] & 0x3Ful) << 6) | (b[3] & 0x3Ful)
                                           : 0;
    default: return 0;
    }
}

/* Characters of the fallback font: Hangul, CJK ideographs, kana, CJK punctuation, full width. */
static int is_cjk(unsigned long u)
{
    return (u >= 0x1100 && u <= 0x11FF)      /* Hangul jamo */
           || (u >= 0x2E80 && u <= 0x2FFF)   /* CJK and Kangxi radicals, description chars */
           || (u >= 0x3000 && u <= 0x303F)   /* CJK symbols and punctuation */
           || (u >= 0x3040 && u <= 0x30FF)   /* hiragana, katakana */
           || (u >= 0x3100 && u <= 0x31FF)   /* bopomofo, compatibility jamo, kanbun, strokes */
           || (u >= 0x3200 && u <= 0x4DBF)   /* enclosed CJK, compatibility, extension A */
           || (u >= 0x4E00 && u <= 0x9FFF)   /* CJK unified ideographs */
           || (u >= 0xA960 && u <= 0xA97F)   /* Hangul jamo extended A */
           || (u >= 0xAC00 && u <= 0xD7FF)   /* Hangul syllables, jamo extended B */
           || (u >= 0xF900 && u <= 0xFAFF)   /* CJK compatibility ideographs */
           || (u >= 0xFE30 && u <= 0xFE4F)   /* CJK compatibility forms */
           || (u >= 0xFF00 && u <= 0xFFEF)   /* half-width and full-width forms */
           || (u >= 0x1B000 && u <= 0x1B16F) /* kana supplement and extended */
           || (u >= 0x20000 && u <= 0x3134F); /* CJK ideographs, planes 2 and 3 */
}

/* The run starting at s: its length in bytes, *cjk whether the fallback draws it. */
static size_t next_run(const char *s, int *cjk)
{
    const char *p = s;
    int first = -1;
    while (*p != '\0') {
        size_t n = utf8_len(p);
        int k = is_cjk(utf8_code(p, n));
        if (first < 0)
            first = k;
        else if (k != first)
            break;
        p += n;
    }
    *cjk = first > 0;
    return (size_t)(p - s);
}

int ac_plot_needs_cjk(const char *s)
{
    int cjk;
    if (s == NULL)
        return 0;
    while (*s != '\0') {
        size_t n = next_run(s, &cjk);
        if (cjk)
            return 1;
        s += n;
    }
    return 0;
}

void ac_plot_cjk_init(ac_plot_cjk *f, HPDF_Doc doc, HPDF_Error_Handler on_error)
{
    const char *env = getenv(AC_PLOT_CJK_ENV);
    memset(f, 0, sizeof *f);
    f->doc = doc;
    f->on_error = on_error;
    if (env != NULL && env[0] != '\0') {
        snprintf(f->path, sizeof f->path, "%s", env);
    } else {
        snprintf(f->path, sizeof f->path, "%s", AC_PLOT_CJK_DEFAULT);
        snprintf(f->bold_path, sizeof f->bold_path, "%s", AC_PLOT_CJK_DEFAULT_BOLD);
    }
}

int ac_plot_cjk_missing(const ac_plot_cjk *f)
{
    return f != NULL && f->missing;
}

static int readable(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return 0;
    fclose(fp);
    return 1;
}

/* The error handler while a fallback font loads: the failure is returned, not thrown. */
static void quiet_error(HPDF_STATUS error_no, HPDF_STATUS detail_no, void *user_data)
{
    (void)error_no;
    (void)detail_no;
    (void)user_data;
}

/* The ToUnicode CMap of ac_plot_font_tounicode (plot.h): the identity on the BMP. */
HPDF_STATUS ac_plot_font_tounicode(HPDF_Doc doc, HPDF_Font font)
{
    static const char head[] =
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n";
    static const char tail[] = "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
    HPDF_Dict cmap = HPDF_DictStream_New(doc->mmgr, doc->xref);
    HPDF_STATUS st;
    unsigned hi = 0, left = 0;
    char line[40];
    if (cmap == NULL)
        return HPDF_GetError(doc);
    cmap->filter = HPDF_STREAM_FILTER_FLATE_DECODE;
    st = HPDF_Stream_WriteStr(cmap->stream, head);
    /* blocks of at most 100 ranges (the CMap format's limit per block) */
    for (; st == HPDF_OK && hi < 256; hi++) {
        if (hi >= 0xD8 && hi <= 0xDF) /* surrogates are not characters */
            continue;
        if (left == 0) {
            unsigned rest = 0;
            for (unsigned h = hi; h < 256; h++)
                rest += h < 0xD8 || h > 0xDF;
            left = rest < 100 ? rest : 100;
            snprintf(line, sizeof line, "%u beginbfrange\n", left);
            st = HPDF_Stream_WriteStr(cmap->stream, line);
        }
        snprintf(line, sizeof line, "<%02X00> <%02XFF> <%02X00>\n", hi, hi, hi);
        if (st == HPDF_OK)
            st = HPDF_Stream_WriteStr(cmap->stream, line);
        if (st == HPDF_OK && --left == 0)
            st = HPDF_Stream_WriteStr(cmap->stream, "endbfrange\n");
    }
    if (st == HPDF_OK)
        st = HPDF_Stream_WriteStr(cmap->stream, tail);
    if (st == HPDF_OK)
        st = HPDF_Dict_Add(font, "ToUnicode", cmap);
    return st;
}

/* Load a TrueType font (embedded, UTF-8); NULL when it cannot be read or is not usable. */
static HPDF_Font load_font(const ac_plot_cjk *f, const char *path)
{
    const char *name;
    HPDF_Font font = NULL;
    if (!readable(path))
        return NULL;
    if (HPDF_SetErrorHandler(f->doc, quiet_error) != HPDF_OK)
        return NULL;
    name = HPDF_LoadTTFontFromFile(f->doc, path, HPDF_TRUE);
    if (name != NULL)
        font = HPDF_GetFont(f->doc, name, "UTF-8");
    if (font != NULL && ac_plot_font_tounicode(f->doc, font) != HPDF_OK)
        font = NULL;
    if (font == NULL)
        HPDF_ResetError(f->doc);
    (void)HPDF_SetErrorHandler(f->doc, f->on_error);
    return font;
}

/* The fallback face for text in `base` (bold or regular), loaded on first use; NULL when
 * there is none (the text then goes to `base`). */
static HPDF_Font cjk_font(const ac_plot_canvas *c, HPDF_Font base)
{
    ac_plot_cjk *f = c->cjk;
    if (f == NULL || f->missing)
        return NULL;
    if (!f->checked) {
        f->checked = 1;
        if (!readable(f->path)) {
            f->missing = 1;
            return NULL;
        }
    }
    if (base == c->bold && f->bold_path[0] != '\0') {
        if (!f->bold_tried) {
            f->bold_tried = 1;
            f->bold = load_font(f, f->bold_path);
        }
        if (f->bold != NULL)
            return f->bold;
    }
    if (f->regular == NULL) {
        f->regular = load_font(f, f->path);
        /* a DejaVu file given as the fallback comes back as the font already loaded */
        if (f->regular == NULL || f->regular == c->regular || f->regular == c->bold) {
            f->regular = NULL;
            f->missing = 1;
            return NULL;
        }
    }
    return f->regular;
}

/* ---------------------------------------------------------------- text */

static void set_font(const ac_plot_canvas *c, HPDF_Font font, double size)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetFontAndSize(c->page, font, r(size)));
}

/* The fallback face `s` needs with `font`, or NULL: `s` has no such text or there is no
 * fallback (then everything goes to `font`, exactly as without a fallback). */
static HPDF_Font fallback_for(const ac_plot_canvas *c, HPDF_Font font, const char *s)
{
    if (c->cjk == NULL || !ac_plot_needs_cjk(s))
        return NULL;
    return cjk_font(c, font);
}

/* Width of `s` run by run: each run in its own font. */
static double runs_width(HPDF_Font font, HPDF_Font cjk, double size, const char *s)
{
    double w = 0.0;
    while (*s != '\0') {
        int k;
        size_t n = next_run(s, &k);
        HPDF_TextWidth tw = HPDF_Font_TextWidth(k ? cjk : font, (const HPDF_BYTE *)s, (HPDF_UINT)n);
        w += (double)tw.width * size / 1000.0;
        s += n;
    }
    return w;
}

/* Show `s` from the current text position, run by run (inside BeginText/EndText). */
static void show_runs(const ac_plot_canvas *c, HPDF_Font font, HPDF_Font cjk, double size,
                      const char *s)
{
    while (*s != '\0') {
        int k;
        size_t n = next_run(s, &k);
        set_font(c, k ? cjk : font, size);
        while (n > 0) {
            char buf[TEXT_MAX];
            size_t len = 0;
            while (len < n) {
                size_t cl = utf8_len(s + len);
                if (len + cl >= sizeof buf)
                    break;
                len += cl;
            }
            memcpy(buf, s, len);
            buf[len] = '\0';
            AC_PLOT_CHECK(c, HPDF_Page_ShowText(c->page, buf));
            s += len;
            n -= len;
        }
    }
}

double ac_plot_text_width(const ac_plot_canvas *c, HPDF_Font font, double size, const char *s)
{
    HPDF_Font cjk;
    if (s == NULL || *s == '\0')
        return 0.0;
    cjk = fallback_for(c, font, s);
    if (cjk != NULL)
        return runs_width(font, cjk, size, s);
    set_font(c, font, size);
    return (double)HPDF_Page_TextWidth(c->page, s);
}

void ac_plot_text(const ac_plot_canvas *c, HPDF_Font font, double size, double x, double y,
                  ac_plot_align align, const char *s)
{
    double w;
    HPDF_Font cjk;
    if (s == NULL || *s == '\0')
        return;
    w = ac_plot_text_width(c, font, size, s);
    if (align == AC_PLOT_CENTER)
        x -= w / 2.0;
    else if (align == AC_PLOT_RIGHT)
        x -= w;
    cjk = fallback_for(c, font, s);
    AC_PLOT_CHECK(c, HPDF_Page_BeginText(c->page));
    if (cjk != NULL) {
        AC_PLOT_CHECK(c, HPDF_Page_MoveTextPos(c->page, r(x), r(y)));
        show_runs(c, font, cjk, size, s);
    } else {
        set_font(c, font, size);
        AC_PLOT_CHECK(c, HPDF_Page_TextOut(c->page, r(x), r(y), s));
    }
    AC_PLOT_CHECK(c, HPDF_Page_EndText(c->page));
}

void ac_plot_text_vertical(const ac_plot_canvas *c, HPDF_Font font, double size, double x,
                           double y, const char *s)
{
    double w;
    HPDF_Font cjk;
    if (s == NULL || *s == '\0')
        return;
    w = ac_plot_text_width(c, font, size, s);
    cjk = fallback_for(c, font, s);
    AC_PLOT_CHECK(c, HPDF_Page_BeginText(c->page));
    if (cjk != NULL) {
        AC_PLOT_CHECK(c, HPDF_Page_SetTextMatrix(c->page, 0, 1, -1, 0, r(x), r(y - w / 2.0)));
        show_runs(c, font, cjk, size, s);
    } else {
        set_font(c, font, size);
        AC_PLOT_CHECK(c, HPDF_Page_SetTextMatrix(c->page, 0, 1, -1, 0, r(x), r(y - w / 2.0)));
        AC_PLOT_CHECK(c, HPDF_Page_ShowText(c->page, s));
    }
    AC_PLOT_CHECK(c, HPDF_Page_EndText(c->page));
}

size_t ac_plot_text_break(const ac_plot_canvas *c, HPDF_Font font, double size, const char *s,
                          double width, const char **next)
{
    const char *p = s, *space = NULL, *hyphen = NULL;
    double w = 0.0;
    size_t len;
    while (*p != '\0' && *p != '\n') {
        char ch[8];
        size_t n = utf8_len(p);
        memcpy(ch, p, n);
        ch[n] = '\0';
        w += ac_plot_text_width(c, font, size, ch);
        if (w > width && p != s)
            break;
        if (*p == ' ')
            space = p;
        else if ((*p == '-' || *p == '_' || *p == '/') && p != s)
            hyphen = p + 1; /* a word too long for the line breaks after its hyphen */
        p += n;
    }
    if (*p == '\0' || *p == '\n') {
        len = (size_t)(p - s);
        *next = *p == '\n' ? p + 1 : p;
    } else if (space != NULL && space != s) {
        len = (size_t)(space - s);
        *next = space;
        while (**next == ' ')
            (*next)++;
    } else if (hyphen != NULL && hyphen != p) {
        len = (size_t)(hyphen - s);
        *next = hyphen;
    } else {
        len = (size_t)(p - s);
        *next = p;
    }
    while (len > 0 && s[len - 1] == ' ')
        len--;
    return len;
}

size_t ac_plot_text_lines(const ac_plot_canvas *c, HPDF_Font font, double size, const char *s,
                          double width)
{
    size_t lines = 0;
    if (s == NULL || *s == '\0')
        return 1;
    while (*s != '\0') {
        const char *next;
        (void)ac_plot_text_break(c, font, size, s, width, &next);
        lines++;
        if (next == s)
            break;
        s = next;
    }
    return lines;
}

size_t ac_plot_text_wrapped(const ac_plot_canvas *c, HPDF_Font font, double size, double x,
                            double y, double width, double leading, ac_plot_align align,
                            const char *s)
{
    size_t lines = 0;
    if (s == NULL)
        return 0;
    while (*s != '\0') {
        char buf[TEXT_MAX];
        const char *next;
        size_t len = ac_plot_text_break(c, font, size, s, width, &next);
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, s, len);
        buf[len] = '\0';
        ac_plot_text(c, font, size,
                     align == AC_PLOT_CENTER  ? x + width / 2.0
                     : align == AC_PLOT_RIGHT ? x + width
                                              : x,
                     y - (double)lines * leading, align, buf);
        lines++;
        if (next == s)
            break;
        s = next;
    }
    return lines;
}

/* ---------------------------------------------------------------- primitives */

void ac_plot_set_gray(const ac_plot_canvas *c, double stroke, double fill)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetGrayStroke(c->page, r(stroke)));
    AC_PLOT_CHECK(c, HPDF_Page_SetGrayFill(c->page, r(fill)));
}

void ac_plot_set_rgb_fill(const ac_plot_canvas *c, double red, double green, double blue)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetRGBFill(c->page, r(red), r(green), r(blue)));
}

void ac_plot_set_rgb_stroke(const ac_plot_canvas *c, double red, double green, double blue)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetRGBStroke(c->page, r(red), r(green), r(blue)));
}

void ac_plot_line(const ac_plot_canvas *c, double x0, double y0, double x1, double y1,
                  double width)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetLineWidth(c->page, r(width)));
    AC_PLOT_CHECK(c, HPDF_Page_MoveTo(c->page, r(x0), r(y0)));
    AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x1), r(y1)));
    AC_PLOT_CHECK(c, HPDF_Page_Stroke(c->page));
}

void ac_plot_rect_fill(const ac_plot_canvas *c, double x, double y, double w, double h)
{
    AC_PLOT_CHECK(c, HPDF_Page_Rectangle(c->page, r(x), r(y), r(w), r(h)));
    AC_PLOT_CHECK(c, HPDF_Page_Fill(c->page));
}

void ac_plot_rect_stroke(const ac_plot_canvas *c, double x, double y, double w, double h,
                         double width)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetLineWidth(c->page, r(width)));
    AC_PLOT_CHECK(c, HPDF_Page_Rectangle(c->page, r(x), r(y), r(w), r(h)));
    AC_PLOT_CHECK(c, HPDF_Page_Stroke(c->page));
}

/* ---------------------------------------------------------------- chart description */

void ac_plot_init(ac_plot *p, const char *title, ac_plot_scale xscale, const char *xlabel,
                  ac_plot_scale yscale, const char *ylabel)
{
    memset(p, 0, sizeof *p);
    p->title = title;
    p->xaxis.scale = xscale;
    p->xaxis.label = xlabel;
    p->yaxis.scale = yscale;
    p->yaxis.label = ylabel;
}

void ac_plot_add(ac_plot *p, ac_plot_kind kind, ac_plot_style style, const double *x,
                 const double *y, size_t n, const char *label)
{
    ac_plot_series *s;
    if (p->nseries >= AC_PLOT_MAX_SERIES)
        return;
    s = &p->series[p->nseries++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->style = style;
    s->x = x;
    s->y = y;
    s->n = n;
    s->bar_width = 0.6;
    s->label = label;
}

void ac_plot_add_marker(ac_plot *p, double x, const char *label)
{
    if (p->nmarkers >= AC_PLOT_MAX_MARKERS || !isfinite(x))
        return;
    p->markers[p->nmarkers].x = x;
    p->markers[p->nmarkers].label = label;
    p->nmarkers++;
}

/* ---------------------------------------------------------------- axes */

#define TICK_FONT 7.0
#define LABEL_FONT 8.0
#define TITLE_FONT 9.0
#define LEGEND_FONT 7.5
#define MARKER_FONT 7.0
#define MAX_TICKS 24

typedef struct axis_layout {
    ac_plot_scale scale;
    double lo, hi;         /* data range drawn (log axis: the values, not exponents) */
    double ticks[MAX_TICKS];
    char labels[MAX_TICKS][32];
    size_t nticks;
    double label_width;    /* widest tick label */
} axis_layout;

/* Copy `src` into dst (size > 0), cut at a character boundary when it does not fit. */
static void copy_utf8(char *dst, size_t size, const char *src)
{
    size_t len = 0;
    while (src[len] != '\0') {
        size_t n = utf8_len(src + len);
        if (len + n >= size)
            break;
        len += n;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static int usable(ac_plot_scale s, double v)
{
    return isfinite(v) && (s == AC_PLOT_LINEAR || v > 0.0);
}

static double nice_step(double raw)
{
    double e = floor(log10(raw)), f = raw / pow(10.0, e);
    double nf = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 2.5 ? 2.5 : f <= 5.0 ? 5.0 : 10.0;
    return nf * pow(10.0, e);
}

static void utf8_superscript(char *buf, size_t size, long k)
{
    static const char *const sup[] = {"\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",
                                      "\xE2\x81\xB4", "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7",
                                      "\xE2\x81\xB8", "\xE2\x81\xB9"};
    char digits[24];
    size_t len;
    snprintf(buf, size, "10");
    if (k < 0)
        strncat(buf, "\xE2\x81\xBB", size - strlen(buf) - 1);
    snprintf(digits, sizeof digits, "%ld", k < 0 ? -k : k);
    len = strlen(digits);
    for (size_t i = 0; i < len; i++)
        strncat(buf, sup[digits[i] - '0'], size - strlen(buf) - 1);
}

void ac_plot_format_tick(char *buf, size_t size, double v)
{
    if (v == 0.0)
        snprintf(buf, size, "0");
    else
        snprintf(buf, size, "%.4g", v);
}

static void format_linear_tick(char *buf, size_t size, double v, double step)
{
    int decimals = step >= 1.0 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (fabs(v) < step * 1e-9)
        v = 0.0;
    if (decimals > 6 || fabs(v) >= 1e6)
        snprintf(buf, size, "%.3g", v);
    else
        snprintf(buf, size, "%.*f", decimals, v);
}

/* Data range of an axis over the series (is_x: the x values) and the markers. */
static int data_range(const ac_plot *p, int is_x, ac_plot_scale scale, double *lo, double *hi)
{
    int any = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t s = 0; s < p->nseries; s++) {
        const ac_plot_series *se = &p->series[s];
        for (size_t i = 0; i < se->n; i++) {
            double v = is_x ? se->x[i] : se->y[i];
            double other = is_x ? se->y[i] : se->x[i];
            if (!usable(scale, v) || !isfinite(other))
                continue;
            if (se->kind == AC_PLOT_KIND_BARS && is_x) {
                *lo = fmin(*lo, v - se->bar_width / 2.0);
                *hi = fmax(*hi, v + se->bar_width / 2.0);
            } else {
                *lo = fmin(*lo, v);
                *hi = fmax(*hi, v);
            }
            if (se->kind == AC_PLOT_KIND_BARS && !is_x && scale == AC_PLOT_LINEAR)
                *lo = fmin(*lo, 0.0);
            any = 1;
        }
    }
    if (is_x)
        for (size_t m = 0; m < p->nmarkers; m++)
            if (usable(scale, p->markers[m].x)) {
                *lo = fmin(*lo, p->markers[m].x);
                *hi = fmax(*hi, p->markers[m].x);
                any = 1;
            }
    return any;
}

/* Ticks of an axis `length` points long; horizontal axes need room for their labels. */
static void layout_axis(const ac_plot_canvas *c, const ac_plot *p, const ac_plot_axis *ax,
                        int is_x, double length, axis_layout *L)
{
    double lo, hi;
    memset(L, 0, sizeof *L);
    L->scale = ax->scale;
    if (is_x && ax->categories != NULL && ax->ncategories > 0) {
        size_t n = ax->ncategories < MAX_TICKS ? ax->ncategories : MAX_TICKS;
        L->lo = -0.5;
        L->hi = (double)ax->ncategories - 0.5;
        for (size_t i = 0; i < n; i++) {
            L->ticks[i] = (double)i;
            copy_utf8(L->labels[i], sizeof L->labels[i], ax->categories[i]);
        }
        L->nticks = n;
        return;
    }
    if (ax->min < ax->max && usable(ax->scale, ax->min)) {
        lo = ax->min;
        hi = ax->max;
    } else if (!data_range(p, is_x, ax->scale, &lo, &hi)) {
        lo = ax->scale == AC_PLOT_LOG10 ? 1e-3 : 0.0;
        hi = 1.0;
    }
    if (ax->scale == AC_PLOT_LOG10) {
        long e0 = (long)floor(log10(lo) + 1e-9), e1 = (long)ceil(log10(hi) - 1e-9);
        long every = 1;
        if (e1 <= e0)
            e1 = e0 + 1;
        if (e1 - e0 > 300)
            e0 = e1 - 300;
        L->lo = pow(10.0, (double)e0);
        L->hi = pow(10.0, (double)e1);
        for (;;) {
            size_t n = 0;
            double maxw = 0.0, spacing;
            for (long e = e0; e <= e1 && n < MAX_TICKS; e += every) {
                L->ticks[n] = pow(10.0, (double)e);
                if (e >= -1 && e <= 1)
                    snprintf(L->labels[n], sizeof L->labels[n], "%g", L->ticks[n]);
                else
                    utf8_superscript(L->labels[n], sizeof L->labels[n], e);
                maxw = fmax(maxw, ac_plot_text_width(c, c->regular, TICK_FONT, L->labels[n]));
                n++;
            }
            L->nticks = n;
            spacing = length * (double)every / (double)(e1 - e0);
            if ((is_x ? spacing >= maxw + 6.0 : spacing >= TICK_FONT * 1.6) &&
                (long)n <= MAX_TICKS)
                break;
            if (every > e1 - e0)
                break;
            every++;
        }
    } else {
        for (int target = 8; target >= 2; target--) {
            double step, t0, maxw = 0.0, spacing;
            size_t n = 0;
            double a = lo, b = hi;
            if (!(b > a)) {
                double d = a == 0.0 ? 1.0 : fabs(a) * 0.1;
                a -= d;
                b += d;
            }
            step = nice_step((b - a) / (double)target);
            if (ax->integer && step < 1.0)
                step = 1.0; /* a count has no tick at 0.5 */
            t0 = floor(a / step + 1e-9) * step;
            L->lo = ax->min < ax->max ? a : t0;
            L->hi = ax->min < ax->max ? b : ceil(b / step - 1e-9) * step;
            for (double t = ax->min < ax->max ? ceil(a / step - 1e-9) * step : t0;
                 t <= L->hi + step * 1e-6 && n < MAX_TICKS; t += step) {
                L->ticks[n] = t;
                format_linear_tick(L->labels[n], sizeof L->labels[n], t, step);
                maxw = fmax(maxw, ac_plot_text_width(c, c->regular, TICK_FONT, L->labels[n]));
                n++;
            }
            L->nticks = n;
            spacing = n > 1 ? length * step / (L->hi - L->lo) : length;
            if (is_x ? spacing >= maxw + 8.0 : spacing >= TICK_FONT * 2.0)
                break;
        }
    }
    for (size_t i = 0; i < L->nticks; i++)
        L->label_width =
            fmax(L->label_width, ac_plot_text_width(c, c->regular, TICK_FONT, L->labels[i]));
}

/* Position of v along an axis drawn from `start` over `length` points; NAN if unusable. */
static double axis_pos(const axis_layout *L, double v, double start, double length)
{
    double f;
    if (!usable(L->scale, v))
        return NAN;
    if (L->scale == AC_PLOT_LOG10)
        f = (log10(v) - log10(L->lo)) / (log10(L->hi) - log10(L->lo));
    else
        f = (v - L->lo) / (L->hi - L->lo);
    /* keep far-off points finite: the clip path hides them */
    f = fmax(-10.0, fmin(11.0, f));
    return start + f * length;
}

/* ---------------------------------------------------------------- styles */

static void apply_style(const ac_plot_canvas *c, ac_plot_style style)
{
    static const HPDF_UINT16 dashed[] = {5, 3};
    static const HPDF_UINT16 dotted[] = {1, 2};
    static const HPDF_UINT16 dashdot[] = {6, 2, 1, 2};
    switch (style) {
    case AC_PLOT_SOLID:
        ac_plot_set_rgb_stroke(c, 0.0, 0.0, 0.0);
        ac_plot_set_rgb_fill(c, 0.0, 0.0, 0.0);
        AC_PLOT_CHECK(c, HPDF_Page_SetDash(c->page, NULL, 0, 0));
        AC_PLOT_CHECK(c, HPDF_Page_SetLineWidth(c->page, 1.4f));
        break;
    case AC_PLOT_DASHED:
        ac_plot_set_rgb_stroke(c, 0.05, 0.25, 0.75);
        ac_plot_set_rgb_fill(c, 0.05, 0.25, 0.75);
        AC_PLOT_CHECK(c, HPDF_Page_SetDash(c->page, dashed, 2, 0));
        AC_PLOT_CHECK(c, HPDF_Page_SetLineWidth(c->page, 1.2f));
        break;
    case AC_PLOT_DOTTED:
        ac_plot_set_rgb_stroke(c, 0.80, 0.10, 0.10);
        ac_plot_set_rgb_fill(c, 0.80, 0.10, 0.10);
        AC_PLOT_CHECK(c, HPDF_Page_SetDash(c->page, dotted, 2, 0));
        AC_PLOT_CHECK(c, HPDF_Page_SetLineWidth(c->page, 1.4f));
        break;
    case AC_PLOT_DASHDOT:
        ac_plot_set_rgb_stroke(c, 0.10, 0.50, 0.15);
        ac_plot_set_rgb_fill(c, 0.10, 0.50, 0.15);
        AC_PLOT_CHECK(c, HPDF_Page_SetDash(c->page, dashdot, 4, 0));
        AC_PLOT_CHECK(c, HPDF_Page_SetLineWidth(c->page, 1.2f));
        break;
    }
}

static void solid(const ac_plot_canvas *c)
{
    AC_PLOT_CHECK(c, HPDF_Page_SetDash(c->page, NULL, 0, 0));
}

static void draw_point_marker(const ac_plot_canvas *c, ac_plot_style style, double x, double y)
{
    switch (style) {
    case AC_PLOT_SOLID: return;
    case AC_PLOT_DASHED:
        AC_PLOT_CHECK(c, HPDF_Page_Rectangle(c->page, r(x - 2.0), r(y - 2.0), 4.0f, 4.0f));
        break;
    case AC_PLOT_DOTTED: AC_PLOT_CHECK(c, HPDF_Page_Circle(c->page, r(x), r(y), 2.2f)); break;
    case AC_PLOT_DASHDOT:
        AC_PLOT_CHECK(c, HPDF_Page_MoveTo(c->page, r(x - 2.5), r(y - 2.0)));
        AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x + 2.5), r(y - 2.0)));
        AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x), r(y + 2.5)));
        AC_PLOT_CHECK(c, HPDF_Page_ClosePath(c->page));
        break;
    }
    AC_PLOT_CHECK(c, HPDF_Page_Fill(c->page));
}

/* The legend sample of a style: a short line with its marker, or a bar swatch. */
static void draw_sample(const ac_plot_canvas *c, const ac_plot_series *s, double x, double y)
{
    apply_style(c, s->style);
    if (s->kind == AC_PLOT_KIND_BARS) {
        solid(c);
        ac_plot_rect_fill(c, x + 4.0, y - 3.0, 10.0, 7.0);
        return;
    }
    AC_PLOT_CHECK(c, HPDF_Page_MoveTo(c->page, r(x), r(y)));
    AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x + 18.0), r(y)));
    AC_PLOT_CHECK(c, HPDF_Page_Stroke(c->page));
    solid(c);
    draw_point_marker(c, s->style, x + 9.0, y);
}

/* ---------------------------------------------------------------- series */

typedef struct plot_area {
    double x, y, w, h;
    axis_layout xl, yl;
} plot_area;

static double px(const plot_area *a, double v)
{
    return axis_pos(&a->xl, v, a->x, a->w);
}

static double py(const plot_area *a, double v)
{
    return axis_pos(&a->yl, v, a->y, a->h);
}

static void draw_series(const ac_plot_canvas *c, const plot_area *a, const ac_plot_series *s)
{
    int pen = 0;
    double lastx = 0.0, lasty = 0.0;
    size_t drawn = 0, every;
    apply_style(c, s->style);
    if (s->kind == AC_PLOT_KIND_BARS) {
        double base = a->yl.scale == AC_PLOT_LOG10 ? a->y : py(a, fmax(0.0, a->yl.lo));
        solid(c);
        for (size_t i = 0; i < s->n; i++) {
            double x0 = px(a, s->x[i] - s->bar_width / 2.0), x1 = px(a, s->x[i] + s->bar_width / 2.0);
            double yy = py(a, s->y[i]);
            if (!isfinite(x0) || !isfinite(x1) || !isfinite(yy))
                continue;
            ac_plot_rect_fill(c, x0, fmin(base, yy), x1 - x0, fabs(yy - base));
        }
        return;
    }
    for (size_t i = 0; i < s->n; i++) {
        double x = px(a, s->x[i]), y = py(a, s->y[i]);
        if (!isfinite(x) || !isfinite(y)) {
            if (pen)
                AC_PLOT_CHECK(c, HPDF_Page_Stroke(c->page));
            pen = 0;
            continue;
        }
        if (!pen) {
            AC_PLOT_CHECK(c, HPDF_Page_MoveTo(c->page, r(x), r(y)));
            pen = 1;
        } else if (s->kind == AC_PLOT_KIND_STEP) {
            AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x), r(lasty)));
            AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x), r(y)));
        } else {
            AC_PLOT_CHECK(c, HPDF_Page_LineTo(c->page, r(x), r(y)));
        }
        lastx = x;
        lasty = y;
        drawn++;
    }
    (void)lastx;
    if (pen)
        AC_PLOT_CHECK(c, HPDF_Page_Stroke(c->page));
    /* about eight markers per series, evenly spread over the points */
    if (s->style == AC_PLOT_SOLID || drawn == 0)
        return;
    solid(c);
    every = drawn > 8 ? drawn / 8 : 1;
    for (size_t i = 0, k = 0; i < s->n; i++) {
        double x = px(a, s->x[i]), y = py(a, s->y[i]);
        if (!isfinite(x) || !isfinite(y))
            continue;
        if (k++ % every == 0 && x >= a->x - 0.5 && x <= a->x + a->w + 0.5 && y >= a->y - 0.5 &&
            y <= a->y + a->h + 0.5)
            draw_point_marker(c, s->style, x, y);
    }
}

/* Marker lines with their labels stacked in rows at the top of the area, never overlapping. */
static void draw_markers(const ac_plot_canvas *c, const plot_area *a, const ac_plot *p)
{
    enum { ROWS = 4 };
    double used_lo[ROWS][AC_PLOT_MAX_MARKERS], used_hi[ROWS][AC_PLOT_MAX_MARKERS];
    size_t nused[ROWS] = {0};
    static const HPDF_UINT16 dash[] = {3, 2};
    /* every line first, so that no line crosses a label drawn before it */
    for (size_t m = 0; m < p->nmarkers; m++) {
        double x = px(a, p->markers[m].x);
        if (!isfinite(x) || x < a->x - 0.01 || x > a->x + a->w + 0.01)
            continue;
        ac_plot_set_gray(c, 0.35, 0.0);
        AC_PLOT_CHECK(c, HPDF_Page_SetDash(c->page, dash, 2, 0));
        ac_plot_line(c, x, a->y, x, a->y + a->h, 0.8);
        solid(c);
    }
    for (size_t m = 0; m < p->nmarkers; m++) {
        double x = px(a, p->markers[m].x), w, lo = 0.0, hi = 0.0, ty;
        size_t row;
        int placed = 0;
        if (!isfinite(x) || x < a->x - 0.01 || x > a->x + a->w + 0.01)
            continue;
        if (p->markers[m].label == NULL)
            continue;
        w = ac_plot_text_width(c, c->regular, MARKER_FONT, p->markers[m].label);
        /* first try not to cover another marker's line, then allow it */
        for (int strict = 1; strict >= 0 && !placed; strict--) {
            for (row = 0; row < ROWS && !placed; row++) {
                for (int side = 0; side < 2 && !placed; side++) {
                    int clash = 0;
                    lo = side == 0 ? x + 2.0 : x - 2.0 - w;
                    hi = lo + w;
                    if (lo < a->x + 1.0 || hi > a->x + a->w - 1.0)
                        continue;
                    for (size_t k = 0; k < nused[row]; k++)
                        if (lo < used_hi[row][k] + 3.0 && hi > used_lo[row][k] - 3.0)
                            clash = 1;
                    for (size_t o = 0; strict && o < p->nmarkers; o++) {
                        double ox = px(a, p->markers[o].x);
                        if (o != m && isfinite(ox) && ox > lo - 1.5 && ox < hi + 1.5)
                            clash = 1;
                    }
                    if (!clash)
                        placed = 1;
                }
                if (placed)
                    break;
            }
        }
        if (!placed) {
            /* no free slot: the last row, on the side with more room */
            row = ROWS - 1;
            lo = x + 2.0 + w <= a->x + a->w ? x + 2.0 : fmax(a->x + 1.0, x - 2.0 - w);
            hi = lo + w;
        }
        if (nused[row] < AC_PLOT_MAX_MARKERS) {
            used_lo[row][nused[row]] = lo;
            used_hi[row][nused[row]] = hi;
            nused[row]++;
        }
        ty = a->y + a->h - 9.0 - (double)row * 10.0;
        ac_plot_set_gray(c, 1.0, 1.0);
        ac_plot_rect_fill(c, lo - 1.0, ty - 2.5, w + 2.0, 9.5);
        ac_plot_set_gray(c, 0.0, 0.0);
        ac_plot_text(c, c->regular, MARKER_FONT, lo, ty, AC_PLOT_LEFT, p->markers[m].label);
    }
}

/* ---------------------------------------------------------------- the chart */

/* Height of the legend for this width, and draw it when `draw` (top baseline at y). */
static double legend(const ac_plot_canvas *c, const ac_plot *p, double x, double y, double w,
                     int draw)
{
    double cx = x, rows = 0.0;
    int any = 0;
    for (size_t s = 0; s < p->nseries; s++) {
        const ac_plot_series *se = &p->series[s];
        double item;
        if (se->label == NULL)
            continue;
        item = 22.0 + ac_plot_text_width(c, c->regular, LEGEND_FONT, se->label);
        if (!any)
            rows = 1.0;
        if (any && cx + item > x + w) {
            cx = x;
            rows += 1.0;
        }
        any = 1;
        if (draw) {
            double by = y - (rows - 1.0) * 11.0;
            draw_sample(c, se, cx, by + 2.5);
            ac_plot_set_gray(c, 0.0, 0.0);
            ac_plot_text_wrapped(c, c->regular, LEGEND_FONT, cx + 22.0, by, x + w - cx - 22.0,
                                 9.0, AC_PLOT_LEFT, se->label);
        }
        cx += item + 12.0;
    }
    return rows * 11.0;
}

void ac_plot_draw(const ac_plot_canvas *c, const ac_plot *p, double x, double y, double w,
                  double h)
{
    plot_area a;
    double top = y + h, left, bottom, leg_h, title_h = 0.0;
    int has_data = 0;
    ac_plot_set_gray(c, 0.0, 0.0);
    solid(c);
    if (p->title != NULL) {
        size_t lines = ac_plot_text_lines(c, c->bold, TITLE_FONT, p->title, w);
        ac_plot_text_wrapped(c, c->bold, TITLE_FONT, x, top - TITLE_FONT, w, 11.0, AC_PLOT_LEFT,
                             p->title);
        title_h = (double)lines * 11.0 + 2.0;
    }
    leg_h = legend(c, p, x, 0.0, w, 0);
    if (leg_h > 0.0)
        legend(c, p, x, top - title_h - LEGEND_FONT, w, 1);
    /* vertical room: x tick labels and the x label below, the title and legend above */
    bottom = y + (p->xaxis.label != NULL ? LABEL_FONT + 4.0 : 0.0) + TICK_FONT + 6.0;
    a.y = bottom;
    a.h = top - title_h - leg_h - 6.0 - bottom;
    layout_axis(c, p, &p->yaxis, 0, a.h, &a.yl);
    left = x + (p->yaxis.label != NULL ? LABEL_FONT + 5.0 : 0.0) + a.yl.label_width + 5.0;
    a.x = left;
    a.w = x + w - left - 4.0;
    layout_axis(c, p, &p->xaxis, 1, a.w, &a.xl);
    if (a.xl.nticks > 0) {
        /* the last tick label is centred on the right edge: keep it inside the box */
        double half = ac_plot_text_width(c, c->regular, TICK_FONT, a.xl.labels[a.xl.nticks - 1]) / 2.0;
        double pos = px(&a, a.xl.ticks[a.xl.nticks - 1]);
        if (pos + half > x + w)
            a.w -= pos + half - (x + w);
    }
    if (a.h < 20.0 || a.w < 40.0)
        return; /* no room: the caller gave too small a box */

    /* frame, grid and ticks */
    ac_plot_set_gray(c, 0.88, 0.0);
    for (size_t i = 0; i < a.yl.nticks; i++) {
        double ty = py(&a, a.yl.ticks[i]);
        if (ty > a.y + 0.5 && ty < a.y + a.h - 0.5)
            ac_plot_line(c, a.x, ty, a.x + a.w, ty, 0.4);
    }
    ac_plot_set_gray(c, 0.0, 0.0);
    ac_plot_rect_stroke(c, a.x, a.y, a.w, a.h, 0.7);
    for (size_t i = 0; i < a.yl.nticks; i++) {
        double ty = py(&a, a.yl.ticks[i]);
        if (ty < a.y - 0.5 || ty > a.y + a.h + 0.5)
            continue;
        ac_plot_line(c, a.x - 3.0, ty, a.x, ty, 0.7);
        ac_plot_text(c, c->regular, TICK_FONT, a.x - 4.5, ty - TICK_FONT * 0.35, AC_PLOT_RIGHT,
                     a.yl.labels[i]);
    }
    for (size_t i = 0; i < a.xl.nticks; i++) {
        double tx = px(&a, a.xl.ticks[i]);
        if (tx < a.x - 0.5 || tx > a.x + a.w + 0.5)
            continue;
        ac_plot_line(c, tx, a.y - 3.0, tx, a.y, 0.7);
        if (p->xaxis.categories != NULL) {
            double slot = a.w / (double)a.xl.nticks - 2.0;
            char buf[32];
            const char *next;
            size_t len = ac_plot_text_break(c, c->regular, TICK_FONT, a.xl.labels[i], slot, &next);
            /* a name wider than its slot is shortened to what fits, marked with an ellipsis */
            if (*next != '\0' && len + 4 < sizeof buf) {
                len = ac_plot_text_break(c, c->regular, TICK_FONT, a.xl.labels[i],
                                         slot - ac_plot_text_width(c, c->regular, TICK_FONT,
                                                                   "\xE2\x80\xA6"),
                                         &next);
                memcpy(buf, a.xl.labels[i], len);
                memcpy(buf + len, "\xE2\x80\xA6", 4);
            } else {
                snprintf(buf, sizeof buf, "%s", a.xl.labels[i]);
            }
            ac_plot_text(c, c->regular, TICK_FONT, tx, a.y - 3.0 - TICK_FONT - 1.0, AC_PLOT_CENTER,
                         buf);
        } else {
            ac_plot_text(c, c->regular, TICK_FONT, tx, a.y - 3.0 - TICK_FONT - 1.0, AC_PLOT_CENTER,
                         a.xl.labels[i]);
        }
    }
    if (p->xaxis.label != NULL)
        ac_plot_text(c, c->regular, LABEL_FONT, a.x + a.w / 2.0, y + 2.0, AC_PLOT_CENTER,
                     p->xaxis.label);
    if (p->yaxis.label != NULL)
        ac_plot_text_vertical(c, c->regular, LABEL_FONT, x + LABEL_FONT, a.y + a.h / 2.0,
                              p->yaxis.label);

    /* the data, clipped to the area */
    AC_PLOT_CHECK(c, HPDF_Page_GSave(c->page));
    AC_PLOT_CHECK(c, HPDF_Page_Rectangle(c->page, r(a.x), r(a.y), r(a.w), r(a.h)));
    AC_PLOT_CHECK(c, HPDF_Page_Clip(c->page));
    AC_PLOT_CHECK(c, HPDF_Page_EndPath(c->page));
    for (size_t s = 0; s < p->nseries; s++) {
        if (p->series[s].n > 0)
            has_data = 1;
        draw_series(c, &a, &p->series[s]);
    }
    AC_PLOT_CHECK(c, HPDF_Page_GRestore(c->page));
    solid(c);
    draw_markers(c, &a, p);
    if (!has_data && p->empty_note != NULL) {
        ac_plot_set_gray(c, 0.0, 0.3);
        ac_plot_text_wrapped(c, c->regular, LABEL_FONT, a.x + 6.0, a.y + a.h / 2.0, a.w - 12.0,
                             10.0, AC_PLOT_CENTER, p->empty_note);
    }
    ac_plot_set_gray(c, 0.0, 0.0);
}
