/*
 * A small streaming JSON writer.
 */
#include "common/jsonw.h"

#include <math.h>

#include "common/strbuf.h"

void ac_jsonw_init(ac_jsonw *w, FILE *fp)
{
    w->fp = fp;
    w->depth = 0;
    w->first[0] = 1;
    w->after_key = 0;
}

static void indent(ac_jsonw *w)
{
    fputc('\n', w->fp);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->fp);
}

/* Before any value or key: the comma and line break. */
static void before(ac_jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth])
            fputc(',', w->fp);
        indent(w);
    }
    w->first[w->depth] = 0;
}

static void open_(ac_jsonw *w, char c)
{
    before(w);
    fputc(c, w->fp);
    if (w->depth + 1 < AC_JSONW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = 1;
}

static void close_(ac_jsonw *w, char c)
{
    int empty = w->first[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!empty)
        indent(w);
    fputc(c, w->fp);
}

void ac_jsonw_object_begin(ac_jsonw *w)
{
    open_(w, '{');
}
void ac_jsonw_object_end(ac_jsonw *w)
{
    close_(w, '}');
}
void ac_jsonw_array_begin(ac_jsonw *w)
{
    open_(w, '[');
}
void ac_jsonw_array_end(ac_jsonw *w)
{
    close_(w, ']');
}

void ac_json_write_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*p < 0x20)
                fprintf(fp, "\\u%04x", *p);
            else
                fputc(*p, fp);
        }
    }
    fputc('"', fp);
}

void ac_jsonw_key(ac_jsonw *w, const char *key)
{
    before(w);
    ac_json_write_string(w->fp, key);
    fputs(": ", w->fp);
    w->after_key = 1;
}

void ac_jsonw_string(ac_jsonw *w, const char *s)
{
    before(w);
    if (s == NULL)
        fputs("null", w->fp);
    else
        ac_json_write_string(w->fp, s);
}

void ac_jsonw_double(ac_jsonw *w, double v)
{
    char buf[40];
    before(w);
    if (!isfinite(v)) {
        fputs("null", w->fp);
        return;
    }
    if (v == 0.0)
        v = 0.0; /* no "-0" */
    ac_format_double(buf, sizeof buf, v);
    fputs(buf, w->fp);
}

void ac_jsonw_int(ac_jsonw *w, long long v)
{
    before(w);
    fprintf(w->fp, "%lld", v);
}

void ac_jsonw_uint(ac_jsonw *w, unsigned long long v)
{
    before(w);
    fprintf(w->fp, "%llu", v);
}

void ac_jsonw_bool(ac_jsonw *w, int v)
{
    before(w);
    fputs(v ? "true" : "false", w->fp);
}

void ac_jsonw_null(ac_jsonw *w)
{
    before(w);
    fputs("null", w->fp);
}

void ac_jsonw_end(ac_jsonw *w)
{
    fputc('\n', w->fp);
}
