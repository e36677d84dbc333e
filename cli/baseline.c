/*
 * Baselines for CI: see cli/baseline.h.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/baseline.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/report.h"
#include "common/atomic.h"
#include "common/jsonw.h"
#include "common/sha256.h"
#include "common/strbuf.h"

#define BASELINE_MAX_BYTES (64u << 20)
#define IN_BASELINE        AC_REPORT_IN_BASELINE

void ac_baseline_fingerprint(const char *message, char out[17])
{
    ac_report_fingerprint(message, out);
}

/* The path as compared: a leading "./" does not matter. */
static const char *norm_path(const char *s)
{
    while (s[0] == '.' && s[1] == '/')
        s += 2;
    return s;
}

static int baselinable(const ac_diag *d)
{
    if (d->severity == AC_SEV_ERROR && strncmp(d->rule, "AC0", 3) == 0)
        return 0;
    return !d->suppressed ||
           (d->suppress_reason != NULL && strcmp(d->suppress_reason, IN_BASELINE) == 0);
}

/* The key of `file` in the baseline `b`: its path relative to the baseline's directory when
 * both resolve, so that the baseline matches from any working directory ("../x.xml" from a
 * subdirectory is the same file as "x.xml" beside the baseline); else the path as given
 * (without leading "./"). Caller frees; NULL when memory runs out. */
static char *file_key(const ac_baseline *b, const char *file)
{
    char abs[PATH_MAX];
    const char *d = b->dir, *f = abs;
    size_t common = 0;
    ac_strbuf sb = {0};
    if (d == NULL || realpath(file, abs) == NULL)
        return ac_strdup(norm_path(file));
    /* the longest common prefix that ends at a component boundary */
    for (size_t i = 0;; i++) {
        if ((d[i] == '\0' || d[i] == '/') && (f[i] == '\0' || f[i] == '/'))
            common = i;
        if (d[i] == '\0' || f[i] == '\0' || d[i] != f[i])
            break;
    }
    for (const char *p = d + common; *p != '\0'; p++) /* up from the baseline's directory */
        if (*p == '/' && p[1] != '\0')
            ac_strbuf_append(&sb, "../");
    f += common;
    if (*f == '/')
        f++;
    ac_strbuf_append(&sb, f);
    return sb.data != NULL ? sb.data : ac_strdup("");
}

int ac_baseline_init(ac_baseline *b, const char *path)
{
    char dir[PATH_MAX], abs[PATH_MAX];
    const char *slash = strrchr(path, '/');
    memset(b, 0, sizeof *b);
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (realpath(dir, abs) == NULL)
        return AC_OK; /* the paths as given */
    b->dir = ac_strdup(abs);
    return b->dir != NULL ? AC_OK : AC_ENOMEM;
}

static int push(ac_baseline *b, const char *file, const char *rule, const char *node,
                const char *fp, const char *severity, const char *message)
{
    ac_baseline_entry *e;
    if (b->count == b->capacity) {
        size_t cap = b->capacity != 0 ? 2 * b->capacity : 16;
        ac_baseline_entry *items = realloc(b->items, cap * sizeof *items);
        if (items == NULL)
            return AC_ENOMEM;
        b->items = items;
        b->capacity = cap;
    }
    e = &b->items[b->count];
    e->file = ac_strdup(file);
    e->rule = ac_strdup(rule);
    e->node = ac_strdup(node != NULL ? node : "");
    e->fingerprint = ac_strdup(fp);
    e->severity = severity != NULL ? ac_strdup(severity) : NULL;
    e->message = message != NULL ? ac_strdup(message) : NULL;
    b->count++;
    if (e->file == NULL || e->rule == NULL || e->node == NULL || e->fingerprint == NULL ||
        (severity != NULL && e->severity == NULL) || (message != NULL && e->message == NULL))
        return AC_ENOMEM;
    return AC_OK;
}

void ac_baseline_free(ac_baseline *b)
{
    for (size_t i = 0; i < b->count; i++) {
        free(b->items[i].file);
        free(b->items[i].rule);
        free(b->items[i].node);
        free(b->items[i].fingerprint);
        free(b->items[i].severity);
        free(b->items[i].message);
    }
    free(b->items);
    free(b->dir);
    memset(b, 0, sizeof *b);
}

int ac_baseline_add(ac_baseline *b, const char *file, const ac_diag_list *diags)
{
    char *key = file_key(b, file);
    int rc = key != NULL ? AC_OK : AC_ENOMEM;
    for (size_t i = 0; rc == AC_OK && i < diags->count; i++) {
        const ac_diag *d = &diags->items[i];
        char fp[17];
        if (!baselinable(d))
            continue;
        ac_baseline_fingerprint(d->message, fp);
        rc = push(b, key, d->rule, d->node, fp, ac_severity_name(d->severity), d->message);
    }
    free(key);
    return rc;
}

int ac_baseline_write(const ac_baseline *b, const char *path, ac_error *err)
{
    ac_atomic_file f;
    ac_jsonw w;
    if (ac_atomic_open(&f, path, err) != AC_OK)
        return AC_EIO;
    ac_jsonw_init(&w, f.fp);
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "archcheck_baseline");
    ac_jsonw_uint(&w, 1);
    ac_jsonw_key(&w, "archcheck");
    ac_jsonw_string(&w, AC_VERSION);
    ac_jsonw_key(&w, "findings");
    ac_jsonw_array_begin(&w);
    for (size_t i = 0; i < b->count; i++) {
        const ac_baseline_entry *e = &b->items[i];
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "file");
        ac_jsonw_string(&w, e->file);
        ac_jsonw_key(&w, "rule");
        ac_jsonw_string(&w, e->rule);
        if (e->node[0] != '\0') {
            ac_jsonw_key(&w, "node");
            ac_jsonw_string(&w, e->node);
        }
        ac_jsonw_key(&w, "fingerprint");
        ac_jsonw_string(&w, e->fingerprint);
        if (e->severity != NULL) {
            ac_jsonw_key(&w, "severity");
            ac_jsonw_string(&w, e->severity);
        }
        if (e->message != NULL) {
            ac_jsonw_key(&w, "message");
            ac_jsonw_string(&w, e->message);
        }
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    return ac_atomic_commit(&f, err);
}

/* ---------------------------------------------------------------- a small JSON reader */

typedef struct jreader {
    const char *s, *p, *end;
    int depth;
} jreader;

static void skip_ws(jreader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex4(jreader *r, unsigned *out)
{
    unsigned v = 0;
    if (r->end - r->p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int h = hexval(r->p[i]);
        if (h < 0)
            return -1;
        v = v * 16u + (unsigned)h;
    }
    r->p += 4;
    *out = v;
    return 0;
}

static void put_utf8(ac_strbuf *sb, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    ac_strbuf_appendn(sb, b, n);
}

/* A string literal into *out (NULL: skipped). Returns 0 or -1. */
static int read_string(jreader *r, char **out)
{
    ac_strbuf sb = {0};
    if (r->p >= r->end || *r->p != '"')
        return -1;
    r->p++;
    while (r->p < r->end && *r->p != '"') {
        char c = *r->p++;
        if ((unsigned char)c < 0x20)
            goto bad;
        if (c != '\\') {
            ac_strbuf_appendn(&sb, &c, 1);
            continue;
        }
        if (r->p >= r->end)
            goto bad;
        c = *r->p++;
        switch (c) {
        case '"':
        case '\\':
        case '/': ac_strbuf_appendn(&sb, &c, 1); break;
        case 'b': ac_strbuf_append(&sb, "\b"); break;
        case 'f': ac_strbuf_append(&sb, "\f"); break;
        case 'n': ac_strbuf_append(&sb, "\n"); break;
        case 'r': ac_strbuf_append(&sb, "\r"); break;
        case 't': ac_strbuf_append(&sb, "\t"); break;
        case 'u': {
            unsigned cp, lo;
            if (read_hex4(r, &cp) != 0)
                goto bad;
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u')
                    goto bad;
                r->p += 2;
                if (read_hex4(r, &lo) != 0 || lo < 0xDC00 || lo >= 0xE000)
                    goto bad;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                goto bad;
            }
            if (cp == 0)
                goto bad;
            put_utf8(&sb, cp);
            break;
        }
        default: goto bad;
        }
    }
    if (r->p >= r->end || sb.failed)
        goto bad;
    r->p++;
    if (out != NULL) {
        *out = sb.data != NULL ? ac_strbuf_take(&sb) : ac_strdup("");
        if (*out == NULL)
            return -1;
    } else {
        ac_strbuf_free(&sb);
    }
    return 0;
bad:
    ac_strbuf_free(&sb);
    return -1;
}

static int skip_value(jreader *r);

static int skip_container(jreader *r, char open, char close)
{
    int first = 1;
    if (++r->depth > 64)
        return -1;
    r->p++; /* open */
    (void)open;
    for (;;) {
        skip_ws(r);
        if (r->p < r->end && *r->p == close) {
            r->p++;
            r->depth--;
            return 0;
        }
        if (!first) {
            if (r->p >= r->end || *r->p != ',')
                return -1;
            r->p++;
            skip_ws(r);
        }
        first = 0;
        if (close == '}') {
            if (read_string(r, NULL) != 0)
                return -1;
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':')
                return -1;
            r->p++;
            skip_ws(r);
        }
        if (skip_value(r) != 0)
            return -1;
    }
}

static int skip_value(jreader *r)
{
    skip_ws(r);
    if (r->p >= r->end)
        return -1;
    switch (*r->p) {
    case '"': return read_string(r, NULL);
    case '{': return skip_container(r, '{', '}');
    case '[': return skip_container(r, '[', ']');
    default: break;
    }
    if (r->end - r->p >= 4 && (strncmp(r->p, "true", 4) == 0 || strncmp(r->p, "null", 4) == 0)) {
        r->p += 4;
        return 0;
    }
    if (r->end - r->p >= 5 && strncmp(r->p, "false", 5) == 0) {
        r->p += 5;
        return 0;
    }
    if (*r->p == '-' || isdigit((unsigned char)*r->p)) {
        char *stop;
        errno = 0;
        (void)strtod(r->p, &stop);
        if (stop == r->p || stop > r->end)
            return -1;
        r->p = stop;
        return 0;
    }
    return -1;
}

/* One finding object into b. */
static int read_entry(jreader *r, ac_baseline *b)
{
    char *file = NULL, *rule = NULL, *node = NULL, *fp = NULL;
    int first = 1, rc = -1;
    skip_ws(r);
    if (r->p >= r->end || *r->p != '{')
        return -1;
    r->p++;
    for (;;) {
        char *key = NULL, **slot = NULL;
        skip_ws(r);
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            break;
        }
        if (!first) {
            if (r->p >= r->end || *r->p != ',')
                goto done;
            r->p++;
            skip_ws(r);
        }
        first = 0;
        if (read_string(r, &key) != 0)
            goto done;
        skip_ws(r);
        if (r->p >= r->end || *r->p != ':') {
            free(key);
            goto done;
        }
        r->p++;
        skip_ws(r);
        if (strcmp(key, "file") == 0)
            slot = &file;
        else if (strcmp(key, "rule") == 0)
            slot = &rule;
        else if (strcmp(key, "node") == 0)
            slot = &node;
        else if (strcmp(key, "fingerprint") == 0)
            slot = &fp;
        free(key);
        if (slot != NULL) {
            free(*slot);
            *slot = NULL;
            if (read_string(r, slot) != 0)
                goto done;
        } else if (skip_value(r) != 0) {
            goto done;
        }
    }
    if (file != NULL && rule != NULL && fp != NULL)
        rc = push(b, file, rule, node, fp, NULL, NULL) == AC_OK ? 0 : -2;
    else
        rc = -1;
done:
    free(file);
    free(rule);
    free(node);
    free(fp);
    return rc;
}

static int parse(jreader *r, ac_baseline *b)
{
    int first = 1, version = 0;
    skip_ws(r);
    if (r->p >= r->end || *r->p != '{')
        return -1;
    r->p++;
    for (;;) {
        char *key = NULL;
        skip_ws(r);
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            break;
        }
        if (!first) {
            if (r->p >= r->end || *r->p != ',')
                return -1;
            r->p++;
            skip_ws(r);
        }
        first = 0;
        if (read_string(r, &key) != 0)
            return -1;
        skip_ws(r);
        if (r->p >= r->end || *r->p != ':') {
            free(key);
            return -1;
        }
        r->p++;
        skip_ws(r);
        if (strcmp(key, "findings") == 0) {
            int n = 0;
            free(key);
            if (r->p >= r->end || *r->p != '[')
                return -1;
            r->p++;
            for (;;) {
                int rc;
                skip_ws(r);
                if (r->p < r->end && *r->p == ']') {
                    r->p++;
                    break;
                }
                if (n > 0) {
                    if (r->p >= r->end || *r->p != ',')
                        return -1;
                    r->p++;
                }
                rc = read_entry(r, b);
                if (rc != 0)
                    return rc;
                n++;
            }
        } else {
            if (strcmp(key, "archcheck_baseline") == 0)
                version = 1;
            free(key);
            if (skip_value(r) != 0)
                return -1;
        }
    }
    skip_ws(r);
    if (r->p != r->end)
        return -1;
    return version ? 0 : -3;
}

int ac_baseline_load(ac_baseline *b, const char *path, ac_error *err)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long size;
    jreader r;
    int rc = ac_baseline_init(b, path);
    if (rc != AC_OK) {
        if (fp != NULL)
            fclose(fp);
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    }
    if (fp == NULL)
        return ac_error_set(err, AC_EIO, "cannot read the baseline '%s': %s", path,
                            strerror(errno));
    if (fseek(fp, 0, SEEK_END) != 0 || (size = ftell(fp)) < 0 ||
        (unsigned long)size > BASELINE_MAX_BYTES || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return ac_error_set(err, AC_EIO,
                            "cannot read the baseline '%s': not a regular file of "
                            "at most 64 MiB",
                            path);
    }
    buf = malloc((size_t)size + 1);
    if (buf == NULL) {
        fclose(fp);
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    }
    if (fread(buf, 1, (size_t)size, fp) != (size_t)size) {
        free(buf);
        fclose(fp);
        return ac_error_set(err, AC_EIO, "cannot read the baseline '%s'", path);
    }
    fclose(fp);
    buf[size] = '\0';
    r.s = r.p = buf;
    r.end = buf + size;
    r.depth = 0;
    rc = parse(&r, b);
    if (rc != 0) {
        size_t at = (size_t)(r.p - r.s);
        free(buf);
        ac_baseline_free(b);
        if (rc == -2)
            return ac_error_set(err, AC_ENOMEM, "out of memory");
        if (rc == -3)
            return ac_error_set(err, AC_EINPUT,
                                "'%s' is not an archcheck baseline (no \"archcheck_baseline\" "
                                "key; write one with --write-baseline)",
                                path);
        return ac_error_set(err, AC_EINPUT, "the baseline '%s' is not valid: bad JSON at byte %zu",
                            path, at);
    }
    free(buf);
    return AC_OK;
}

int ac_baseline_apply(const ac_baseline *b, const char *file, ac_diag_list *diags,
                      ac_analysis *analysis)
{
    int matched = 0;
    char *f = file_key(b, file);
    if (f == NULL)
        return AC_ENOMEM;
    for (size_t i = 0; i < diags->count; i++) {
        ac_diag *d = &diags->items[i];
        char fp[17];
        if (d->suppressed || !baselinable(d))
            continue;
        ac_baseline_fingerprint(d->message, fp);
        for (size_t k = 0; k < b->count; k++) {
            const ac_baseline_entry *e = &b->items[k];
            if (strcmp(e->file, f) != 0 || strcmp(e->rule, d->rule) != 0 ||
                strcmp(e->node, d->node != NULL ? d->node : "") != 0 ||
                strcmp(e->fingerprint, fp) != 0)
                continue;
            free(d->suppress_reason);
            d->suppress_reason = ac_strdup(IN_BASELINE);
            if (d->suppress_reason == NULL) {
                free(f);
                return AC_ENOMEM;
            }
            d->suppressed = 1;
            matched++;
            if (analysis != NULL)
                for (size_t c = 0; c < analysis->nchecks; c++) {
                    ac_check *ck = &analysis->checks[c];
                    const char *node = ck->node != AC_NONE && analysis->model != NULL
                                           ? analysis->model->nodes[ck->node].id
                                           : "";
                    if (ck->status != AC_CHECK_PASS && strcmp(ck->rule, d->rule) == 0 &&
                        strcmp(node, d->node != NULL ? d->node : "") == 0)
                        ck->suppressed = 1;
                }
            break;
        }
    }
    free(f);
    return matched;
}
