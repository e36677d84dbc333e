/*
 * The plotting layer's axes (report/plot_internal.h): data ranges, nice linear and log10
 * ticks and their labels, positions along an axis.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot.h"
#include "report/plot_internal.h"

/* ---------------------------------------------------------------- axes */

/* Copy `src` into dst (size > 0), cut at a character boundary when it does not fit. */
static void copy_utf8(char *dst, size_t size, const char *src)
{
    size_t len = 0;
    while (src[len] != '\0') {
        size_t n = ac_plot_utf8_len(src + len);
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
    static const char *const sup[] = {
        "\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",     "\xE2\x81\xB4",
        "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7", "\xE2\x81\xB8", "\xE2\x81\xB9"};
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
void ac_plot_axis_lay_out(const ac_plot_canvas *c, const ac_plot *p, const ac_plot_axis *ax,
                          int is_x, double length, ac_plot_axis_layout *L)
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
            if ((is_x ? spacing >= maxw + 6.0 : spacing >= TICK_FONT * 1.6) && (long)n <= MAX_TICKS)
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
double ac_plot_axis_pos(const ac_plot_axis_layout *L, double v, double start, double length)
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
