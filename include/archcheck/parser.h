/*
 * archcheck: reading an architecture file (doc/format.md) into an ac_model.
 *
 * Validation has two layers: the XSD shipped with archcheck (schema/archcheck.xsd,
 * validated by libxml2) for the structure, and the semantic checks the schema
 * cannot express (units and ranges, unique ids, references, route
 * probabilities, reachability, profiles, mitigations, suppressions). Every
 * problem found is appended to the caller's diagnostic list, with its file,
 * line, column and rule id; parsing goes on after a problem, so that one run
 * reports them all.
 *
 * Hostile input: DOCTYPE declarations (and with them every entity, external
 * or not) are refused before libxml2 sees the document; nothing is ever
 * loaded from the network or the file system; files are limited to
 * AC_PARSER_MAX_BYTES and AC_PARSER_MAX_ELEMENTS; absurd sizes are refused
 * (rule AC015).
 */
#ifndef ARCHCHECK_PARSER_H
#define ARCHCHECK_PARSER_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest input file, in bytes (16 MiB). */
#define AC_PARSER_MAX_BYTES ((size_t)16 * 1024 * 1024)
/* Most elements in one file. */
#define AC_PARSER_MAX_ELEMENTS ((size_t)100000)
/* Deepest nesting of elements (the root is level 1). */
#define AC_PARSER_MAX_DEPTH ((size_t)256)

/* Parse and validate the file at `path`.
 *
 * On success returns 0 and sets *out to a new model (free with
 * ac_model_free); warnings may still have been added to `diags`.
 * When the input has errors, returns AC_EINPUT, sets *out to NULL and
 * `diags` holds every problem found (sorted by location).
 * Returns AC_ENOMEM on allocation failure (with `err` set). Diagnostics
 * name the file as `path` was given. */
int ac_parser_parse_file(const char *path, ac_model **out, ac_diag_list *diags, ac_error *err);

/* As ac_parser_parse_file; also the SHA-256 of exactly the bytes that were parsed, as 64
 * lower-case hex digits and a NUL, into sha256_hex (the empty string when the file could not
 * be read), so that a report names the very input it judged (the file is read once). */
int ac_parser_parse_file_digest(const char *path, char sha256_hex[65], ac_model **out,
                                ac_diag_list *diags, ac_error *err);

/* As ac_parser_parse_file, for a document in memory; `name` is the file name used in
 * diagnostics. The buffer need not be NUL-terminated. */
int ac_parser_parse_memory(const char *buf, size_t len, const char *name, ac_model **out,
                           ac_diag_list *diags, ac_error *err);

typedef enum ac_quantity {
    AC_QUANTITY_DURATION = 0, /* seconds out */
    AC_QUANTITY_RATE,         /* per second out */
    AC_QUANTITY_PROBABILITY   /* a fraction out ("1%" or "0.01") */
} ac_quantity;

/* Parse a quantity written as in the format ("5min", "800/s", "1%"), e.g. a
 * command-line option. Returns 0, or -1 with a message (after "value '...' ")
 * in msg. */
int ac_parser_quantity(const char *text, ac_quantity kind, double *out, char *msg, size_t size);

/* Set the attribute `attr` of `node` (of the node's kind, as written in the format, e.g.
 * "service-time", "retries", "dispatch") to `value`, parsed and range-checked exactly as the
 * parser does (the rules of <mitigation kind="set">); `id` and `label` cannot be set. On
 * success returns 0 and msg receives the previous value, formatted as the format writes it
 * ("100ms", "2", "unbounded"); otherwise returns -1, leaves the node unchanged and msg says
 * why. Cross-attribute rules (d <= servers, autoscale bounds) are the caller's. */
int ac_parser_set_node_attr(ac_node *node, const char *attr, const char *value, char *msg,
                            size_t size);

/* The XSD of the format, NUL-terminated, owned by the library. *len (if not NULL)
 * receives its length in bytes. */
const char *ac_parser_schema(size_t *len);

#ifdef __cplusplus
}
#endif

#endif
