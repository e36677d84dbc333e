/*
 * Quantities with units, as format.md writes them (internal to parser/).
 *
 * Every function parses the whole string (surrounding blanks allowed), writes
 * the value in SI units to *out and returns 0, or returns -1 and fills *fail
 * with the rule id and a message fragment that follows "attribute 'x' ",
 * e.g. "needs a unit (us, ms, s, min, h): got '120'".
 */
#ifndef AC_PARSER_UNITS_H
#define AC_PARSER_UNITS_H

#include <stddef.h>

typedef struct ac_unit_fail {
    const char *rule;
    char message[256];
} ac_unit_fail;

/* duration: a number and one of us, ms, s, min, h; seconds out. Not negative. */
int ac_units_duration(const char *s, double *out, ac_unit_fail *fail);
/* rate: a number with an optional /s, /min, /h; per second out. Not negative. */
int ac_units_rate(const char *s, double *out, ac_unit_fail *fail);
/* probability: a number in [0, 1] or a percentage in [0%, 100%]; a fraction out. */
int ac_units_probability(const char *s, double *out, ac_unit_fail *fail);
/* count: a non-negative whole number (12, or 1e3); not above `max`. */
int ac_units_count(const char *s, size_t max, size_t *out, ac_unit_fail *fail);
/* factor: a positive number. */
int ac_units_factor(const char *s, double *out, ac_unit_fail *fail);
/* A plain decimal number (any sign), finite. */
int ac_units_number(const char *s, double *out, ac_unit_fail *fail);

#endif
