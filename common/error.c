/*
 * Errors (ac_error) and diagnostic lists (ac_diag_list).
 */
#include "archcheck/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/rules.h"
#include "common/strbuf.h"

static void error_vset(ac_error *err, int code, ac_loc loc, const char *fmt, va_list ap)
{
    if (err == NULL || err->code != 0)
        return;
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    if (loc.file != NULL)
        snprintf(err->file, sizeof err->file, "%s", loc.file);
    else
        err->file[0] = '\0';
    err->line = loc.line;
    err->column = loc.column;
}

int ac_error_set(ac_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    ac_loc none = {NULL, 0, 0};
    va_start(ap, fmt);
    error_vset(err, code, none, fmt, ap);
    va_end(ap);
    return code;
}

int ac_error_set_at(ac_error *err, int code, ac_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(err, code, loc, fmt, ap);
    va_end(ap);
    return code;
}

void ac_error_clear(ac_error *err)
{
    if (err != NULL)
        memset(err, 0, sizeof *err);
}

const char *ac_status_str(int code)
{
    switch (code) {
    case AC_OK: return "success";
    case AC_ENOMEM: return "out of memory";
    case AC_EIO: return "input/output error";
    case AC_EINPUT: return "invalid input";
    case AC_EINVAL: return "invalid argument";
    case AC_ENUMERIC: return "numerical failure";
    case AC_ELIMIT: return "size limit exceeded";
    default: return "unknown error";
    }
}

const char *ac_severity_name(ac_severity sev)
{
    switch (sev) {
    case AC_SEV_ERROR: return "error";
    case AC_SEV_WARNING: return "warning";
    case AC_SEV_NOTE: return "note";
    }
    return "error";
}

void ac_diag_list_init(ac_diag_list *list)
{
    memset(list, 0, sizeof *list);
}

static void diag_free(ac_diag *d)
{
    free(d->file);
    free(d->node);
    free(d->message);
    free(d->detail);
    free(d->suppress_reason);
}

void ac_diag_list_remove(ac_diag_list *list, size_t i)
{
    if (list == NULL || i >= list->count)
        return;
    diag_free(&list->items[i]);
    memmove(&list->items[i], &list->items[i + 1], (list->count - i - 1) * sizeof *list->items);
    list->count--;
}

void ac_diag_list_clear(ac_diag_list *list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < list->count; i++)
        diag_free(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* A diagnostic message on one line, readable and of a readable length: control characters
 * (a newline in a libxml2 message, a tab) become spaces; invisible and direction-changing
 * characters (C1 controls, U+061C, U+200B..U+200F, U+2028..U+202E, U+2060..U+2069, U+FEFF)
 * are shown as <U+XXXX>; a run of more than AC_DIAG_RUN_MAX characters without a space (a
 * 1 MB id, a long value) keeps its first AC_DIAG_RUN_MAX, then "...", then its closing
 * punctuation (a quote, a parenthesis). Returns a new string. */
#define AC_DIAG_RUN_MAX 64

/* The code point of the UTF-8 sequence at m (*n its length; a stray byte is itself). */
static unsigned decode(const unsigned char *m, size_t *n)
{
    unsigned c = m[0];
    size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    unsigned cp = k == 1 ? c : c & (0x7Fu >> k);
    for (size_t j = 1; j < k; j++) {
        if ((m[j] & 0xC0) != 0x80) {
            *n = 1;
            return c;
        }
        cp = cp << 6 | (m[j] & 0x3Fu);
    }
    *n = k;
    return cp;
}

static int invisible(unsigned cp)
{
    return (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF;
}

static char *tidy_message(const char *msg)
{
    const unsigned char *m = (const unsigned char *)msg;
    size_t len = strlen(msg), w = 0, run = 0;
    char *out = malloc(5 * len + 16);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t n, end;
        unsigned cp = decode(m + i, &n);
        if (cp <= 0x20) {
            out[w++] = ' ';
            run = 0;
            i += n;
            continue;
        }
        if (run++ == AC_DIAG_RUN_MAX) { /* too long: skip to the run's end, keep its tail */
            for (end = i; end < len && m[end] > 0x20;)
                end++;
            memcpy(out + w, "...", 3);
            w += 3;
            for (i = end; i > end - 3 && strchr("'\",.;:)]", m[i - 1]) != NULL;)
                i--;
            memcpy(out + w, m + i, end - i);
            w += end - i;
            i = end;
            continue;
        }
        if (invisible(cp))
            w += (size_t)sprintf(out + w, "<U+%04X>", cp);
        else {
            memcpy(out + w, m + i, n);
            w += n;
        }
        i += n;
    }
    out[w] = '\0';
    return out;
}

int ac_diag_add(ac_diag_list *list, const char *rule, const char *file, unsigned line,
                unsigned column, const char *node, const char *fmt, ...)
{
    va_list ap;
    ac_diag d;
    char *raw;
    const ac_rule *r = ac_rule_find(rule);

    if (list->count == list->capacity) {
        size_t cap = list->capacity ? 2 * list->capacity : 16;
        ac_diag *items = realloc(list->items, cap * sizeof *items);
        if (items == NULL)
            return AC_ENOMEM;
        list->items = items;
        list->capacity = cap;
    }
    memset(&d, 0, sizeof d);
    snprintf(d.rule, sizeof d.rule, "%s", rule);
    d.severity = r != NULL ? r->severity : AC_SEV_ERROR;
    d.line = line;
    d.column = column;
    va_start(ap, fmt);
    raw = ac_vstrdupf(fmt, ap);
    va_end(ap);
    d.message = raw != NULL ? tidy_message(raw) : NULL;
    free(raw);
    d.file = ac_strdup(file != NULL ? file : "-");
    d.node = node != NULL ? ac_strdup(node) : NULL;
    if (d.message == NULL || d.file == NULL || (node != NULL && d.node == NULL)) {
        diag_free(&d);
        return AC_ENOMEM;
    }
    list->items[list->count++] = d;
    return AC_OK;
}

int ac_diag_set_detail(ac_diag_list *list, const char *detail)
{
    char *copy;
    if (list->count == 0)
        return AC_EINVAL;
    copy = ac_strdup(detail);
    if (copy == NULL)
        return AC_ENOMEM;
    free(list->items[list->count - 1].detail);
    list->items[list->count - 1].detail = copy;
    return AC_OK;
}

static int diag_cmp(const void *pa, const void *pb)
{
    const ac_diag *a = pa;
    const ac_diag *b = pb;
    int c = strcmp(a->file, b->file);
    if (c != 0)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->column != b->column)
        return a->column < b->column ? -1 : 1;
    c = strcmp(a->rule, b->rule);
    if (c != 0)
        return c;
    return strcmp(a->message, b->message);
}

void ac_diag_list_sort(ac_diag_list *list)
{
    if (list->count > 1)
        qsort(list->items, list->count, sizeof *list->items, diag_cmp);
}

size_t ac_diag_list_count(const ac_diag_list *list, ac_severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++)
        if (!list->items[i].suppressed && list->items[i].severity >= sev)
            n++;
    return n;
}
