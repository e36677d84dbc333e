/*
 * What the pieces of the plotting layer share (report/plot.c: primitives, series, the chart;
 * report/plot_text.c: the CJK fallback and text; report/plot_axis.c: axes and ticks),
 * internal to report/plot*.c. See report/plot.h.
 */
#ifndef AC_REPORT_PLOT_INTERNAL_H
#define AC_REPORT_PLOT_INTERNAL_H

#include <stddef.h>

#include <hpdf.h>

#include "report/plot.h"

/* The length in bytes of the UTF-8 character at p (1 for a malformed byte, never past a NUL). */
static inline size_t ac_plot_utf8_len(const char *p)
{
    unsigned char b = (unsigned char)*p;
    size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    for (size_t i = 1; i < n; i++)
        if (p[i] == '\0' || ((unsigned char)p[i] & 0xC0) != 0x80)
            return i;
    return n;
}

/* Font sizes (points) and the most ticks of an axis. */
#define TICK_FONT   7.0
#define LABEL_FONT  8.0
#define TITLE_FONT  9.0
#define LEGEND_FONT 7.5
#define MARKER_FONT 7.0
#define MAX_TICKS   24

/* The ticks and labels of an axis, laid out for its length. */
typedef struct ac_plot_axis_layout {
    ac_plot_scale scale;
    double lo, hi; /* data range drawn (log axis: the values, not exponents) */
    double ticks[MAX_TICKS];
    char labels[MAX_TICKS][32];
    size_t nticks;
    double label_width; /* widest tick label */
} ac_plot_axis_layout;

/* Ticks of the axis `ax` of p (the x axis when is_x), `length` points long, into *L;
 * horizontal axes need room for their labels. */
void ac_plot_axis_lay_out(const ac_plot_canvas *c, const ac_plot *p, const ac_plot_axis *ax,
                          int is_x, double length, ac_plot_axis_layout *L);

/* Position of v along an axis drawn from `start` over `length` points; NAN if unusable. */
double ac_plot_axis_pos(const ac_plot_axis_layout *L, double v, double start, double length);

#endif
