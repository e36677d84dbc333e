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

void ac_diag_list_clear(ac_diag_list *list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < list->count; i++)
        diag_free(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

int ac_diag_add(ac_diag_list *list, const char *rule, const char *file, unsigned line,
                unsigned column, const char *node, const char *fmt, ...)
{
    va_list ap;
    ac_diag d;
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
    d.message = ac_vstrdupf(fmt, ap);
    va_end(ap);
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
