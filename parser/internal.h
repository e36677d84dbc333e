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
    AC_REF_NODE = 0,    /* pool, function, queue, gateway */
    AC_REF_SOURCE,      /* a <source> */
    AC_REF_MITIGATION,  /* a <mitigation> */
    AC_REF_NODE_OR_LINK /* a node, or a <link> with an id */
} ac_ref_kind;

/* A reference waiting to be resolved once every id is known. */
typedef struct ac_pending_ref {
    char *id;
    size_t *slot; /* receives the index */
    int *is_link; /* AC_REF_NODE_OR_LINK: receives 1 for a link; else NULL */
    ac_ref_kind kind;
    const char *attr; /* attribute name, for messages */
    const char *elem; /* element name, for messages */
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
    unsigned xml_errors;      /* libxml2 errors reported (only the first is kept) */
    unsigned char *dup_nodes; /* nodes whose id repeats an earlier one (check.c) */
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

/* ---- build_review.c ---- */

/* Fill one <mitigation>, the <faults>, the <requirements> and one <suppress> of ctx->model
 * from their elements (diagnostics into ctx->diags; out of memory sets ctx->oom). */
void ac_build_mitigation(ac_pctx *ctx, const xmlNode *n, ac_mitigation *mt);
void ac_build_faults(ac_pctx *ctx, const xmlNode *n);
void ac_build_requirements(ac_pctx *ctx, const xmlNode *n);
void ac_build_suppress(ac_pctx *ctx, const xmlNode *n, ac_suppression *s);

/* ---- check.c ---- */

/* Resolve references and run the semantic checks. */
int ac_check_model(ac_pctx *ctx);

/* ---- combine.c ---- */

/* Steps a combine walk may take (over every walk of one ac_combine_walk): the structure of
 * combines is input, so its cost is bounded. */
#define AC_COMBINE_WORK_MAX ((size_t)50000000)

enum { AC_COMBINE_CYCLE = 1, AC_COMBINE_TOO_LARGE = 2 };

/* Scratch space for walks of the combine graph (sized by the model's mitigations). */
typedef struct ac_combine_walk {
    const ac_model *model;
    size_t *stamp;         /* generation at which each mitigation was last entered */
    unsigned char *onpath; /* on the current path of the walk */
    void *stack;           /* explicit depth-first stack */
    size_t *leaves;        /* ac_combine_leaves: the leaves found */
    size_t nleaves;
    size_t generation;
    size_t budget; /* steps left (AC_COMBINE_WORK_MAX at init) */
} ac_combine_walk;

int ac_combine_walk_init(ac_combine_walk *w, const ac_model *m);
void ac_combine_walk_free(ac_combine_walk *w);

/* The non-combine mitigations that mitigation `root` reaches through `of` (itself if it is no
 * combine), each once, in the order a depth-first walk of the `of` lists first meets them,
 * into w->leaves / w->nleaves. Returns AC_OK, AC_COMBINE_CYCLE (a combine reachable from root
 * is on a cycle), AC_COMBINE_TOO_LARGE (the budget is spent) or AC_EINVAL (no such index). */
int ac_combine_leaves(ac_combine_walk *w, size_t root);

/* out[i] = 1 for every combine that is on, or reaches, a cycle of combines (out has one byte
 * per mitigation). One pass, O(mitigations + references). Returns AC_OK. */
int ac_combine_cycles(ac_combine_walk *w, unsigned char *out);

/* ---- shared helpers (parser.c) ---- */

/* Add a diagnostic; records out-of-memory in ctx. */
void ac_pdiag(ac_pctx *ctx, ac_loc loc, const char *node, const char *rule, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
