/*
 * The plotting layer's text (report/plot.h): UTF-8 strings measured, wrapped and drawn run by
 * run, Korean, Chinese and Japanese with the fallback font loaded on first use.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot.h"
#include "report/plot_internal.h"

#define TEXT_MAX 2048

/* ---------------------------------------------------------------- the CJK fallback */

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
    return (u >= 0x1100 && u <= 0x11FF)       /* Hangul jamo */
           || (u >= 0x2E80 && u <= 0x2FFF)    /* CJK and Kangxi radicals, description chars */
           || (u >= 0x3000 && u <= 0x303F)    /* CJK symbols and punctuation */
           || (u >= 0x3040 && u <= 0x30FF)    /* hiragana, katakana */
           || (u >= 0x3100 && u <= 0x31FF)    /* bopomofo, compatibility jamo, kanbun, strokes */
           || (u >= 0x3200 && u <= 0x4DBF)    /* enclosed CJK, compatibility, extension A */
           || (u >= 0x4E00 && u <= 0x9FFF)    /* CJK unified ideographs */
           || (u >= 0xA960 && u <= 0xA97F)    /* Hangul jamo extended A */
           || (u >= 0xAC00 && u <= 0xD7FF)    /* Hangul syllables, jamo extended B */
           || (u >= 0xF900 && u <= 0xFAFF)    /* CJK compatibility ideographs */
           || (u >= 0xFE30 && u <= 0xFE4F)    /* CJK compatibility forms */
           || (u >= 0xFF00 && u <= 0xFFEF)    /* half-width and full-width forms */
           || (u >= 0x1B000 && u <= 0x1B16F)  /* kana supplement and extended */
           || (u >= 0x20000 && u <= 0x3134F); /* CJK ideographs, planes 2 and 3 */
}

/* The run starting at s: its length in bytes, *cjk whether the fallback draws it. */
static size_t next_run(const char *s, int *cjk)
{
    const char *p = s;
    int first = -1;
    while (*p != '\0') {
        size_t n = ac_plot_utf8_len(p);
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
    AC_PLOT_CHECK(c, HPDF_Page_SetFontAndSize(c->page, font, (HPDF_REAL)size));
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
                size_t cl = ac_plot_utf8_len(s + len);
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
        AC_PLOT_CHECK(c, HPDF_Page_MoveTextPos(c->page, (HPDF_REAL)x, (HPDF_REAL)y));
        show_runs(c, font, cjk, size, s);
    } else {
        set_font(c, font, size);
        AC_PLOT_CHECK(c, HPDF_Page_TextOut(c->page, (HPDF_REAL)x, (HPDF_REAL)y, s));
    }
    AC_PLOT_CHECK(c, HPDF_Page_EndText(c->page));
}

void ac_plot_text_vertical(const ac_plot_canvas *c, HPDF_Font font, double size, double x, double y,
                           const char *s)
{
    double w;
    HPDF_Font cjk;
    if (s == NULL || *s == '\0')
        return;
    w = ac_plot_text_width(c, font, size, s);
    cjk = fallback_for(c, font, s);
    AC_PLOT_CHECK(c, HPDF_Page_BeginText(c->page));
    if (cjk != NULL) {
        AC_PLOT_CHECK(c, HPDF_Page_SetTextMatrix(c->page, 0, 1, -1, 0, (HPDF_REAL)x,
                                                 (HPDF_REAL)(y - w / 2.0)));
        show_runs(c, font, cjk, size, s);
    } else {
        set_font(c, font, size);
        AC_PLOT_CHECK(c, HPDF_Page_SetTextMatrix(c->page, 0, 1, -1, 0, (HPDF_REAL)x,
                                                 (HPDF_REAL)(y - w / 2.0)));
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
        size_t n = ac_plot_utf8_len(p);
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
