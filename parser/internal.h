/*
 * The parser's shared state (internal to parser/; libxml2 types stay here).
 */
#ifndef AC_PARSER_INTERNAL_H
#define AC_PARSER_INTERNAL_H

#include <stddef.h>

#include <libxml/tree.h>

#include "archcheck/error.h"
#include "archcheck/model.h"

typedef enum ac_ref_kind {
    AC_REF_NODE = 0,     /* pool, function, queue, gateway */
    AC_REF_SOURCE,       /* a <source> */
    AC_REF_MITIGATION,   /* a <mitigation> */
    AC_REF_NODE_OR_LINK  /* a node, or a <link> with an id */
} ac_ref_kind;

/* A reference waiting to be resolved once every id is known. */
typedef struct ac_pending_ref {
    char *id;
    size_t *slot;       /* receives the index */
    int *is_link;       /* AC_REF_NODE_OR_LINK: receives 1 for a link; else NULL */
    ac_ref_kind kind;
    const char *attr;   /* attribute name, for messages */
    const char *elem;   /* element name, for messages */
    ac_loc loc;
} ac_pending_ref;

typedef struct ac_pctx {
    const char *file;
    const char *buf;
    size_t len;
    size_t *line_starts;
    size_t nlines;
    size_t *tag_offsets; /* byte offset of each start tag, in document order */
    size_t ntags;
    ac_diag_list *diags;
    ac_model *model;
    int oom;
    ac_pending_ref *refs;
    size_t nrefs, caprefs;
    unsigned xml_errors;       /* libxml2 errors reported (only the first is kept) */
    unsigned char *dup_nodes;  /* nodes whose id repeats an earlier one (check.c) */
} ac_pctx;

/* ---- xml.c ---- */

/* Read and parse the buffer safely; on success *out is the document (every
 * element's _private holds its start-tag index + 1). Problems are added to
 * ctx->diags; returns NULL when the document cannot be used at all. */
xmlDocPtr ac_xml_read(ac_pctx *ctx);

/* Validate against the embedded XSD; structural problems become AC004 diagnostics. */
int ac_xml_validate(ac_pctx *ctx, xmlDocPtr doc);

/* Location of an element's start tag, and of one of its attributes (the
 * element's location when the attribute is absent). */
ac_loc ac_xml_elem_loc(const ac_pctx *ctx, const xmlNode *node);
ac_loc ac_xml_attr_loc(const ac_pctx *ctx, const xmlNode *node, const char *attr);

/* Location of a byte offset. */
ac_loc ac_xml_offset_loc(const ac_pctx *ctx, size_t offset);

/* ---- build.c ---- */

/* Fill ctx->model from the document. */
int ac_build_model(ac_pctx *ctx, xmlDocPtr doc);

/* Parse `value` as the attribute `attr` of a node of kind `kind` into a scratch
 * node (used by <mitigation kind="set">). Returns 0 if the attribute exists and the
 * value is valid; otherwise adds a diagnostic at loc and returns -1. */
int ac_build_check_node_attr(ac_pctx *ctx, ac_node_kind kind, const char *attr, const char *value,
                             ac_loc loc, const char *node_id);

/* ---- check.c ---- */

/* Resolve references and run the semantic checks. */
int ac_check_model(ac_pctx *ctx);

/* ---- shared helpers (parser.c) ---- */

/* Add a diagnostic; records out-of-memory in ctx. */
void ac_pdiag(ac_pctx *ctx, ac_loc loc, const char *node, const char *rule, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
