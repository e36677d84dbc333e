/*
 * A small plotting layer on libharu: text measured and wrapped, axes with ticks (linear and
 * log10), line and step series with a legend, bar charts, vertical marker lines.
 * See report/plot.h. This file holds the primitives, the chart description, styles, series
 * and the chart; the text (and its CJK fallback) is report/plot_text.c, the axes
 * report/plot_axis.c (report/plot_internal.h).
 */
#include "report/plot.h"
#include "report/plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ac_plot_throw(const ac_plot_canvas *c)
{
    longjmp(*c->env, 1);
}

static HPDF_REAL r(double v)
{
    return (HPDF_REAL)v;
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

void ac_plot_line(const ac_plot_canvas *c, double x0, double y0, double x1, double y1, double width)
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
    ac_plot_axis_layout xl, yl;
} plot_area;

static double px(const plot_area *a, double v)
{
    return ac_plot_axis_pos(&a->xl, v, a->x, a->w);
}

static double py(const plot_area *a, double v)
{
    return ac_plot_axis_pos(&a->yl, v, a->y, a->h);
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
            double x0 = px(a, s->x[i] - s->bar_width / 2.0),
                   x1 = px(a, s->x[i] + s->bar_width / 2.0);
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
            ac_plot_text_wrapped(c, c->regular, LEGEND_FONT, cx + 22.0, by, x + w - cx - 22.0, 9.0,
                                 AC_PLOT_LEFT, se->label);
        }
        cx += item + 12.0;
    }
    return rows * 11.0;
}

void ac_plot_draw(const ac_plot_canvas *c, const ac_plot *p, double x, double y, double w, double h)
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
    ac_plot_axis_lay_out(c, p, &p->yaxis, 0, a.h, &a.yl);
    left = x + (p->yaxis.label != NULL ? LABEL_FONT + 5.0 : 0.0) + a.yl.label_width + 5.0;
    a.x = left;
    a.w = x + w - left - 4.0;
    ac_plot_axis_lay_out(c, p, &p->xaxis, 1, a.w, &a.xl);
    if (a.xl.nticks > 0) {
        /* the last tick label is centred on the right edge: keep it inside the box */
        double half =
            ac_plot_text_width(c, c->regular, TICK_FONT, a.xl.labels[a.xl.nticks - 1]) / 2.0;
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
                len = ac_plot_text_break(
                    c, c->regular, TICK_FONT, a.xl.labels[i],
                    slot - ac_plot_text_width(c, c->regular, TICK_FONT, "\xE2\x80\xA6"), &next);
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
