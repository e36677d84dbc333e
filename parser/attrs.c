/*
 * The table-driven attribute reader (parser/attrs.h): every attribute of every element is
 * parsed by one routine (type, unit, range, default), so that each value gets a precise
 * diagnostic at its own location.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "parser/attrs.h"
#include "parser/units.h"

const char *ac_attrs_elem_name(const xmlNode *n)
{
    return (const char *)n->name;
}

int ac_attrs_is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp(ac_attrs_elem_name(n), name) == 0;
}

/* The attribute's value (a copy owned by the caller), or NULL when absent. */
char *ac_attrs_get(const xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
    char *copy;
    if (v == NULL)
        return NULL;
    copy = ac_strdup((const char *)v);
    xmlFree(v);
    return copy;
}

int ac_attrs_is_ncname(const char *s)
{
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80))
        return 0;
    for (s++; *s; s++) {
        c = (unsigned char)*s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c >= 0x80))
            return 0;
    }
    return 1;
}

/* The first invisible or direction-changing character of an id, which would make two ids
 * that read alike differ (or one read as another): C0 and C1 controls, U+061C, U+200B..U+200F,
 * U+2028..U+202E, U+2060..U+2069, U+FEFF. Returns its code point and sets *index to its
 * position in characters (from 1), or returns 0. The text is valid UTF-8 (xml.c). */
static unsigned id_bad_char(const char *s, size_t *index)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t k = 0;
    for (size_t i = 0; u[i] != 0; k++) {
        unsigned cp = u[i];
        size_t n = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
        for (size_t j = 1; j < n && u[i + j] != 0; j++)
            cp = (j == 1 ? cp & (0xFFu >> (n + 1)) : cp) << 6 | (u[i + j] & 0x3Fu);
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C ||
            (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
            (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF) {
            *index = k + 1;
            return cp;
        }
        for (size_t j = 0; j < n && u[i] != 0; j++)
            i++;
    }
    return 0;
}

void ac_attrs_add_ref(ac_pctx *ctx, const char *id, size_t *slot, int *is_link, ac_ref_kind kind,
                      const char *attr, const char *elem, ac_loc loc)
{
    ac_pending_ref *r;
    if (ctx->nrefs == ctx->caprefs) {
        size_t cap = ctx->caprefs ? 2 * ctx->caprefs : 64;
        ac_pending_ref *refs = realloc(ctx->refs, cap * sizeof *refs);
        if (refs == NULL) {
            ctx->oom = 1;
            return;
        }
        ctx->refs = refs;
        ctx->caprefs = cap;
    }
    r = &ctx->refs[ctx->nrefs];
    r->id = ac_strdup(id);
    if (r->id == NULL) {
        ctx->oom = 1;
        return;
    }
    r->slot = slot;
    r->is_link = is_link;
    r->kind = kind;
    r->attr = attr;
    r->elem = elem;
    r->loc = loc;
    ctx->nrefs++;
}

static int parse_range(const char *text, attr_type base, ac_range *out, ac_unit_fail *fail)
{
    const char *dots = strstr(text, "..");
    char *lo_text;
    int rc = -1;
    if (dots == NULL) {
        fail->rule = "AC016";
        snprintf(fail->message, sizeof fail->message,
                 "is a range: write LOW..HIGH (e.g. 0ms..2s or 0..30%%), got '%.80s'", text);
        return -1;
    }
    lo_text = ac_strndup(text, (size_t)(dots - text));
    if (lo_text == NULL) {
        fail->rule = "AC016";
        snprintf(fail->message, sizeof fail->message, "could not be read (out of memory)");
        return -1;
    }
    if (base == T_RANGE_DURATION)
        rc = ac_units_duration(lo_text, &out->lo, fail) == 0 &&
                     ac_units_duration(dots + 2, &out->hi, fail) == 0
                 ? 0
                 : -1;
    else if (base == T_RANGE_PROB)
        rc = ac_units_probability(lo_text, &out->lo, fail) == 0 &&
                     ac_units_probability(dots + 2, &out->hi, fail) == 0
                 ? 0
                 : -1;
    else {
        size_t a = 0, b = 0;
        rc = ac_units_count(lo_text, MILLION, &a, fail) == 0 &&
                     ac_units_count(dots + 2, MILLION, &b, fail) == 0
                 ? 0
                 : -1;
        out->lo = (double)a;
        out->hi = (double)b;
    }
    free(lo_text);
    if (rc == 0 && out->lo > out->hi) {
        fail->rule = "AC016";
        snprintf(fail->message, sizeof fail->message,
                 "is a range whose LOW is above its HIGH: got '%.80s'", text);
        return -1;
    }
    if (rc == 0)
        out->present = 1;
    return rc;
}

/* Parse one attribute value per its spec into `base + spec->offset`.
 * Returns 0, or -1 with a diagnostic added at loc. */
int ac_attrs_parse_value(ac_pctx *ctx, const attr_spec *s, const char *text, void *base, ac_loc loc,
                         const char *elem, const char *node_id)
{
    ac_unit_fail fail = {NULL, ""};
    char *dst = s->offset == (size_t)-1 ? NULL : (char *)base + s->offset;
    double v = 0.0;
    size_t c = 0;
    int ok = 0;

    switch (s->type) {
    case T_STRING:
    case T_NAME:
        if (s->type == T_NAME && !ac_attrs_is_ncname(text)) {
            ac_pdiag(
                ctx, loc, node_id, "AC011",
                "attribute '%s' of <%s> is an id: a letter or '_' followed by letters, digits, "
                "'-', '_' or '.', got '%s'",
                s->name, elem, text);
            return -1;
        }
        if (s->type == T_NAME) {
            size_t at = 0;
            unsigned cp = id_bad_char(text, &at);
            if (cp != 0) {
                ac_pdiag(ctx, loc, node_id, "AC011",
                         "attribute '%s' of <%s> is an id and contains the invisible or "
                         "bidirectional control character U+%04X (character %zu): ids must read "
                         "as what they are",
                         s->name, elem, cp, at);
                return -1;
            }
        }
        if (dst != NULL) {
            char *copy = ac_strdup(text);
            if (copy == NULL) {
                ctx->oom = 1;
                return -1;
            }
            free(*(char **)(void *)dst);
            *(char **)(void *)dst = copy;
        }
        return 0;
    case T_REF: return 0; /* handled by the caller */
    case T_DURATION:
    case T_PERIOD_RATE: ok = ac_units_duration(text, &v, &fail) == 0; break;
    case T_RATE: ok = ac_units_rate(text, &v, &fail) == 0; break;
    case T_PROB: ok = ac_units_probability(text, &v, &fail) == 0; break;
    case T_FACTOR: ok = ac_units_factor(text, &v, &fail) == 0; break;
    case T_NUMBER:
    case T_PERCENTILE:
        ok = ac_units_number(text, &v, &fail) == 0;
        if (ok && s->type == T_NUMBER && v < 0.0) {
            ac_pdiag(ctx, loc, node_id, "AC011",
                     "attribute '%s' of <%s> must not be negative: got '%s'", s->name, elem, text);
            return -1;
        }
        if (ok && s->type == T_PERCENTILE && !(v > 0.0 && v < 100.0)) {
            ac_pdiag(
                ctx, loc, node_id, "AC011",
                "attribute '%s' of <%s> is a percentile strictly between 0 and 100 (e.g. 95 or "
                "99.9): got '%s'",
                s->name, elem, text);
            return -1;
        }
        break;
    case T_COUNT:
        ok = ac_units_count(text, s->max, &c, &fail) == 0;
        if (ok && (s->flags & F_MIN1) && c < 1) {
            ac_pdiag(ctx, loc, node_id, "AC011",
                     "attribute '%s' of <%s> must be at least 1: got '%s'", s->name, elem, text);
            return -1;
        }
        if (ok && (s->flags & F_MIN2) && c < 2) {
            ac_pdiag(ctx, loc, node_id, "AC011",
                     "attribute '%s' of <%s> must be at least 2: got '%s'", s->name, elem, text);
            return -1;
        }
        if (ok && dst != NULL)
            memcpy(dst, &c, sizeof c);
        if (!ok)
            break;
        return 0;
    case T_ENUM:
    case T_BOOL: {
        ac_strbuf allowed = {0};
        for (int i = 0; s->keywords[i] != NULL; i++) {
            if (strcmp(text, s->keywords[i]) == 0) {
                if (dst != NULL)
                    memcpy(dst, &i, sizeof i);
                return 0;
            }
        }
        for (int i = 0; s->keywords[i] != NULL; i++) {
            ac_strbuf_append(&allowed, i ? ", " : "");
            ac_strbuf_append(&allowed, s->keywords[i]);
        }
        ac_pdiag(ctx, loc, node_id, "AC017", "attribute '%s' of <%s> must be one of %s: got '%s'",
                 s->name, elem, allowed.data != NULL ? allowed.data : "", text);
        ac_strbuf_free(&allowed);
        return -1;
    }
    case T_RANGE_DURATION:
    case T_RANGE_PROB:
    case T_RANGE_COUNT: {
        ac_range r = {0, 0.0, 0.0};
        if (parse_range(text, s->type, &r, &fail) == 0) {
            if (dst != NULL)
                memcpy(dst, &r, sizeof r);
            return 0;
        }
        ok = 0;
        break;
    }
    }
    if (!ok) {
        ac_pdiag(ctx, loc, node_id, fail.rule, "attribute '%s' of <%s> %s", s->name, elem,
                 fail.message);
        return -1;
    }
    if ((s->flags & F_POSITIVE) && !(v > 0.0)) {
        ac_pdiag(ctx, loc, node_id, "AC011", "attribute '%s' of <%s> must be positive: got '%s'",
                 s->name, elem, text);
        return -1;
    }
    if (s->type == T_PERIOD_RATE)
        v = 1.0 / v;
    if (dst != NULL)
        memcpy(dst, &v, sizeof v);
    return 0;
}

/* Parse every attribute of `n` listed in `specs` into `base`. Missing required
 * attributes are reported. Returns the number of problems found. */
int ac_attrs_parse(ac_pctx *ctx, const xmlNode *n, const attr_spec *specs, size_t nspecs,
                   void *base, const char *node_id)
{
    int problems = 0;
    for (size_t i = 0; i < nspecs; i++) {
        const attr_spec *s = &specs[i];
        char *text = ac_attrs_get(n, s->name);
        ac_loc loc;
        if (text == NULL) {
            if (s->flags & F_REQUIRED) {
                ac_pdiag(ctx, ac_xml_elem_loc(ctx, n), node_id, "AC004",
                         "element <%s> needs the attribute '%s'", ac_attrs_elem_name(n), s->name);
                problems++;
            }
            continue;
        }
        loc = ac_xml_attr_loc(ctx, n, s->name);
        if (s->type == T_REF) {
            if (!ac_attrs_is_ncname(text)) {
                ac_pdiag(ctx, loc, node_id, "AC021",
                         "attribute '%s' of <%s> must name an id: got '%s'", s->name,
                         ac_attrs_elem_name(n), text);
                problems++;
            } else if (s->offset != (size_t)-1) {
                int *is_link = NULL;
                if (s->ref == AC_REF_NODE_OR_LINK)
                    is_link = (int *)(void *)((char *)base + offsetof(ac_fault, target_is_link));
                ac_attrs_add_ref(ctx, text, (size_t *)(void *)((char *)base + s->offset), is_link,
                                 s->ref, s->name, ac_attrs_elem_name(n), loc);
            }
        } else if (ac_attrs_parse_value(ctx, s, text, base, loc, ac_attrs_elem_name(n), node_id) !=
                   0) {
            problems++;
        }
        free(text);
    }
    return problems;
}

int ac_attrs_has(const xmlNode *n, const char *name)
{
    return xmlHasProp(n, (const xmlChar *)name) != NULL;
}

const char *ac_attrs_node_id(const xmlNode *n, char *buf, size_t size)
{
    char *id = ac_attrs_get(n, "id");
    if (id == NULL)
        return NULL;
    snprintf(buf, size, "%s", id);
    free(id);
    return buf;
}

/* Count children of `n` named `name`. */
size_t ac_attrs_count_children(const xmlNode *n, const char *name)
{
    size_t k = 0;
    for (const xmlNode *c = n->children; c != NULL; c = c->next)
        if (ac_attrs_is_elem(c, name))
            k++;
    return k;
}

/* The value of the attribute `s` of `base` as the format writes it ("100ms", "2", "jsq",
 * "unbounded"). */
void ac_attrs_format_value(const attr_spec *s, const void *base, char *buf, size_t size)
{
    const char *p = (const char *)base + s->offset;
    double v = 0.0;
    size_t c = 0;
    int k = 0;
    switch (s->type) {
    case T_COUNT:
        memcpy(&c, p, sizeof c);
        if (c == AC_UNBOUNDED)
            snprintf(buf, size, "unbounded");
        else
            snprintf(buf, size, "%zu", c);
        return;
    case T_ENUM:
    case T_BOOL:
        memcpy(&k, p, sizeof k);
        snprintf(buf, size, "%s", k >= 0 && s->keywords[k] != NULL ? s->keywords[k] : "?");
        return;
    case T_DURATION:
    case T_PERIOD_RATE:
        memcpy(&v, p, sizeof v);
        if (s->type == T_PERIOD_RATE)
            v = v > 0.0 ? 1.0 / v : INFINITY;
        if (!isfinite(v))
            snprintf(buf, size, "unbounded");
        else if (v > 0.0 && v < 1.0)
            snprintf(buf, size, "%gms", v * 1e3);
        else
            snprintf(buf, size, "%gs", v);
        return;
    case T_RATE:
        memcpy(&v, p, sizeof v);
        if (isfinite(v))
            snprintf(buf, size, "%g/s", v);
        else
            snprintf(buf, size, "unbounded");
        return;
    default:
        memcpy(&v, p, sizeof v);
        snprintf(buf, size, "%g", v);
        return;
    }
}
