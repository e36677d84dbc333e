/*
 * archcheck: the catalogue of rules.
 *
 * Every diagnostic carries a stable rule id: AC0xx input (syntax, schema,
 * units, references), AC1xx stability and equilibria, AC2xx requirements,
 * AC3xx resilience, AC9xx notes on the analysis itself. The catalogue is a
 * constant table; `archcheck rules` prints it.
 */
#ifndef ARCHCHECK_RULES_H
#define ARCHCHECK_RULES_H

#include <stddef.h>

#include "archcheck/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ac_rule {
    const char *id;       /* "AC012" */
    ac_severity severity; /* default severity */
    const char *name;     /* short kebab-case name, e.g. "duration-unit" */
    const char *summary;  /* one line */
    const char *help;     /* what to do about it: a paragraph */
} ac_rule;

/* The rule with this id, or NULL. */
const ac_rule *ac_rule_find(const char *id);

/* The whole catalogue, in id order; *count receives its length. */
const ac_rule *ac_rules_all(size_t *count);

#ifdef __cplusplus
}
#endif

#endif
