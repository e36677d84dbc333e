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

/* The magnitudes archcheck accepts (anything else is refused where it is read, AC015 above
 * the range and AC011 below it): a value is 0 or lies in its range, so that it, its
 * reciprocal and their products with the model's other quantities stay finite, normal
 * doubles. Durations: 0 or 1 ns .. 1e9 s (31 years); rates: 0 or 1e-9/s .. 1e12/s; factors
 * and plain numbers: 0 or 1e-9 .. 1e12 in magnitude; probabilities: 0 or 1e-15 .. 1. */
#define AC_UNITS_DURATION_MIN    1e-9
#define AC_UNITS_DURATION_MAX    1e9
#define AC_UNITS_RATE_MIN        1e-9
#define AC_UNITS_RATE_MAX        1e12
#define AC_UNITS_NUMBER_MIN      1e-9
#define AC_UNITS_NUMBER_MAX      1e12
#define AC_UNITS_PROBABILITY_MIN 1e-15

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
