/*
 * Small string helpers.
 */
#include "common/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strbuf_reserve(ac_strbuf *sb, size_t extra)
{
    size_t need;
    if (sb->failed)
        return -1;
    need = sb->len + extra + 1;
    if (need > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 64;
        char *data;
        while (cap < need)
            cap *= 2;
        data = realloc(sb->data, cap);
        if (data == NULL) {
            sb->failed = 1;
            return -1;
        }
        sb->data = data;
        sb->cap = cap;
    }
    return 0;
}

void ac_strbuf_appendn(ac_strbuf *sb, const char *s, size_t n)
{
    if (strbuf_reserve(sb, n) != 0)
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void ac_strbuf_append(ac_strbuf *sb, const char *s)
{
    ac_strbuf_appendn(sb, s, strlen(s));
}

void ac_strbuf_printf(ac_strbuf *sb, const char *fmt, ...)
{
    va_list ap, ap2;
    int n;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || strbuf_reserve(sb, (size_t)n) != 0) {
        if (n < 0)
            sb->failed = 1;
        va_end(ap2);
        return;
    }
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    sb->len += (size_t)n;
}

void ac_strbuf_free(ac_strbuf *sb)
{
    if (sb == NULL)
        return;
    free(sb->data);
    memset(sb, 0, sizeof *sb);
}

char *ac_strbuf_take(ac_strbuf *sb)
{
    char *s;
    if (sb->failed) {
        ac_strbuf_free(sb);
        return NULL;
    }
    if (sb->data == NULL && strbuf_reserve(sb, 0) != 0)
        return NULL;
    if (sb->len == 0)
        sb->data[0] = '\0';
    s = sb->data;
    memset(sb, 0, sizeof *sb);
    return s;
}

char *ac_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d == NULL)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *ac_strdup(const char *s)
{
    return ac_strndup(s, strlen(s));
}

char *ac_vstrdupf(const char *fmt, va_list ap)
{
    va_list ap2;
    int n;
    char *s;
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    s = malloc((size_t)n + 1);
    if (s == NULL)
        return NULL;
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *ac_strdupf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    s = ac_vstrdupf(fmt, ap);
    va_end(ap);
    return s;
}

void ac_format_double(char *buf, size_t size, double v)
{
    if (isnan(v)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v > 0 ? "inf" : "-inf");
        return;
    }
    /* the shortest precision in [6, 17] that reads back as v: 6 first (round values), then a
       bisection (a precision that reads back implies every larger one does: the correctly
       rounded longer decimal is at least as close to v) */
    snprintf(buf, size, "%.6g", v);
    if (strtod(buf, NULL) != v) {
        int lo = 7, hi = 17;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            snprintf(buf, size, "%.*g", mid, v);
            if (strtod(buf, NULL) == v)
                hi = mid;
            else
                lo = mid + 1;
        }
        snprintf(buf, size, "%.*g", lo, v);
    }
}
