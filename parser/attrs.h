/*
 * The table-driven attribute reader shared by parser/build.c (the system's elements) and
 * parser/build_review.c (mitigations, faults, requirements, suppressions): an attribute spec
 * names the attribute, its type (unit, range), flags and where in the element's struct its
 * value goes. Internal to parser/.
 */
#ifndef AC_PARSER_ATTRS_H
#define AC_PARSER_ATTRS_H

#include <stddef.h>

#include <libxml/tree.h>

#include "parser/internal.h"

typedef enum attr_type {
    T_STRING,         /* char * */
    T_NAME,           /* char *, an NCName */
    T_REF,            /* size_t, resolved later */
    T_DURATION,       /* double, seconds */
    T_PERIOD_RATE,    /* double: a duration d stored as the rate 1/d */
    T_RATE,           /* double, per second */
    T_PROB,           /* double in [0, 1] */
    T_COUNT,          /* size_t */
    T_FACTOR,         /* double > 0 */
    T_NUMBER,         /* double, not negative */
    T_PERCENTILE,     /* double in (0, 100) */
    T_ENUM,           /* int, index into keywords */
    T_BOOL,           /* int */
    T_RANGE_DURATION, /* ac_range */
    T_RANGE_PROB,
    T_RANGE_COUNT
} attr_type;

enum { F_REQUIRED = 1, F_POSITIVE = 2, F_MIN1 = 4, F_MIN2 = 8 };

typedef struct attr_spec {
    const char *name;
    attr_type type;
    unsigned flags;
    size_t offset;
    size_t max;                  /* T_COUNT: the largest value allowed */
    const char *const *keywords; /* T_ENUM, NULL-terminated; T_REF: unused */
    ac_ref_kind ref;             /* T_REF */
} attr_spec;

#define MILLION   ((size_t)1000000)
#define NSPECS(a) (sizeof(a) / sizeof((a)[0]))

/* The element's name. */
const char *ac_attrs_elem_name(const xmlNode *n);

/* 1 when `n` is the element `name`, else 0. */
int ac_attrs_is_elem(const xmlNode *n, const char *name);

/* The attribute's value (a copy owned by the caller, free it), or NULL when absent. */
char *ac_attrs_get(const xmlNode *n, const char *name);

/* 1 when `n` has the attribute `name`, else 0. */
int ac_attrs_has(const xmlNode *n, const char *name);

/* 1 when `s` is an XML NCName (an id), else 0. */
int ac_attrs_is_ncname(const char *s);

/* The element's id copied into buf (size bytes), or NULL when it has none. */
const char *ac_attrs_node_id(const xmlNode *n, char *buf, size_t size);

/* The number of children of `n` named `name`. */
size_t ac_attrs_count_children(const xmlNode *n, const char *name);

/* Queue a reference to the id `id`, resolved into *slot once every id is known (check.c);
 * out of memory sets ctx->oom. */
void ac_attrs_add_ref(ac_pctx *ctx, const char *id, size_t *slot, int *is_link, ac_ref_kind kind,
                      const char *attr, const char *elem, ac_loc loc);

/* Parse one attribute value per its spec into `base + s->offset` (base NULL: check only).
 * Returns 0, or -1 with a diagnostic added at loc. */
int ac_attrs_parse_value(ac_pctx *ctx, const attr_spec *s, const char *text, void *base, ac_loc loc,
                         const char *elem, const char *node_id);

/* Parse every attribute of `n` listed in `specs` into `base`; missing required attributes are
 * reported. Returns the number of problems found. */
int ac_attrs_parse(ac_pctx *ctx, const xmlNode *n, const attr_spec *specs, size_t nspecs,
                   void *base, const char *node_id);

/* The value of the attribute `s` of `base` as the format writes it ("100ms", "2", "jsq",
 * "unbounded"), into buf (size bytes). */
void ac_attrs_format_value(const attr_spec *s, const void *base, char *buf, size_t size);

#endif
