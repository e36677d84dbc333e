/*
 * Quantities with units (format.md, "Principles").
 *
 * Numbers follow one strict grammar, [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?,
 * checked by hand before strtod so that nan, inf, hexadecimal and empty values
 * never get through; values that overflow a double are out of range.
 */
#include "parser/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail_set(ac_unit_fail *fail, const char *rule, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void fail_set(ac_unit_fail *fail, const char *rule, const char *fmt, ...)
{
    va_list ap;
    fail->rule = rule;
    va_start(ap, fmt);
    vsnprintf(fail->message, sizeof fail->message, fmt, ap);
    va_end(ap);
}

/* Length of the longest prefix of s that is a number, 0 if none. */
static size_t number_prefix(const char *s)
{
    size_t i = 0, digits = 0;
    if (s[i] == '+' || s[i] == '-')
        i++;
    while (isdigit((unsigned char)s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.' && s[i + 1] != '.') {
        i++;
        while (isdigit((unsigned char)s[i])) {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            j++;
        if (isdigit((unsigned char)s[j])) {
            while (isdigit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

/* Split "  12.5ms " into the number (parsed) and the unit suffix (trimmed), copying into
 * buf. Returns 0, or -1 with *fail set for text that is not a number. */
static int split_number(const char *s, char *buf, size_t bufsize, double *value, const char **unit,
                        ac_unit_fail *fail)
{
    size_t len, n;
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (len == 0) {
        fail_set(fail, "AC010", "is empty: a number is needed%s", "");
        return -1;
    }
    if (len >= bufsize) {
        fail_set(fail, "AC010", "is not a number: got '%.40s...'", s);
        return -1;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    n = number_prefix(buf);
    if (n == 0) {
        fail_set(fail, "AC010", "is not a decimal number: got '%s'", buf);
        return -1;
    }
    errno = 0;
    *value = strtod(buf, &end);
    if (end != buf + n) {
        fail_set(fail, "AC010", "is not a decimal number: got '%s'", buf);
        return -1;
    }
    if (errno == ERANGE || !isfinite(*value)) {
        if (fabs(*value) > 1.0) {
            fail_set(fail, "AC011", "is too large to be represented: got '%s'", buf);
            return -1;
        }
        if (fabs(*value) < 2.2250738585072014e-308) { /* subnormal, or a nonzero gone to 0 */
            fail_set(fail, "AC011", "is too small to be represented: got '%s'", buf);
            return -1;
        }
    }
    *unit = buf + n;
    while (isspace((unsigned char)**unit))
        (*unit)++;
    return 0;
}

/* v (after unit scaling) is 0 or within [lo, hi] in magnitude; `what` names the quantity and
 * `lo_text`, `hi_text` the bounds in its own units, for the message. */
static int check_magnitude(double v, double lo, double hi, const char *what, const char *lo_text,
                           const char *hi_text, const char *text, ac_unit_fail *fail)
{
    double a = fabs(v);
    if (!isfinite(v)) {
        fail_set(fail, "AC011", "is too large to be represented: got '%s'", text);
        return -1;
    }
    if (a > hi) {
        fail_set(fail, "AC015",
                 "is larger than archcheck can analyse (%s are at most %s): got '%s'", what,
                 hi_text, text);
        return -1;
    }
    if (a != 0.0 && a < lo) {
        fail_set(fail, "AC011", "is too small (%s are 0 or at least %s): got '%s'", what, lo_text,
                 text);
        return -1;
    }
    return 0;
}

static int check_nonneg(double v, const char *text, ac_unit_fail *fail)
{
    if (v < 0.0) {
        fail_set(fail, "AC011", "must not be negative: got '%s'", text);
        return -1;
    }
    return 0;
}

int ac_units_number(const char *s, double *out, ac_unit_fail *fail)
{
    char buf[128];
    const char *unit;
    double v;
    if (split_number(s, buf, sizeof buf, &v, &unit, fail) != 0)
        return -1;
    if (*unit != '\0') {
        fail_set(fail, "AC010", "is not a plain number: got '%s'", buf);
        return -1;
    }
    if (check_magnitude(v, AC_UNITS_NUMBER_MIN, AC_UNITS_NUMBER_MAX, "numbers", "1e-9", "1e12", buf,
                        fail) != 0)
        return -1;
    *out = v;
    return 0;
}

int ac_units_duration(const char *s, double *out, ac_unit_fail *fail)
{
    static const struct {
        const char *name;
        double scale;
    } units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}};
    char buf[128];
    const char *unit;
    double v;
    if (split_number(s, buf, sizeof buf, &v, &unit, fail) != 0)
        return -1;
    if (*unit == '\0') {
        fail_set(fail, "AC012", "needs a unit (us, ms, s, min, h): got '%s'", buf);
        return -1;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].name) == 0) {
            if (check_nonneg(v, buf, fail) != 0)
                return -1;
            v *= units[i].scale;
            if (check_magnitude(v, AC_UNITS_DURATION_MIN, AC_UNITS_DURATION_MAX, "durations", "1ns",
                                "1e9s", buf, fail) != 0)
                return -1;
            *out = v;
            return 0;
        }
    }
    fail->rule = "AC013";
    snprintf(fail->message, sizeof fail->message,
             "has an unknown duration unit '%s' (us, ms, s, min, h): got '%s'", unit, buf);
    return -1;
}

int ac_units_rate(const char *s, double *out, ac_unit_fail *fail)
{
    static const struct {
        const char *name;
        double scale;
    } units[] = {{"", 1.0}, {"/s", 1.0}, {"/min", 1.0 / 60.0}, {"/h", 1.0 / 3600.0}};
    char buf[128];
    const char *unit;
    double v;
    if (split_number(s, buf, sizeof buf, &v, &unit, fail) != 0)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].name) == 0) {
            if (check_nonneg(v, buf, fail) != 0)
                return -1;
            v *= units[i].scale;
            if (check_magnitude(v, AC_UNITS_RATE_MIN, AC_UNITS_RATE_MAX, "rates", "1e-9/s",
                                "1e12/s", buf, fail) != 0)
                return -1;
            *out = v;
            return 0;
        }
    }
    fail->rule = "AC013";
    snprintf(fail->message, sizeof fail->message,
             "has an unknown rate unit '%s' (none, /s, /min, /h): got '%s'", unit, buf);
    return -1;
}

int ac_units_probability(const char *s, double *out, ac_unit_fail *fail)
{
    char buf[128];
    const char *unit;
    double v;
    if (split_number(s, buf, sizeof buf, &v, &unit, fail) != 0)
        return -1;
    if (strcmp(unit, "%") == 0) {
        if (v < 0.0 || v > 100.0) {
            fail_set(fail, "AC011", "is a percentage outside [0%%, 100%%]: got '%s'", buf);
            return -1;
        }
        v /= 100.0;
        if (check_magnitude(v, AC_UNITS_PROBABILITY_MIN, 1.0, "probabilities", "1e-13%", "100%",
                            buf, fail) != 0)
            return -1;
        *out = v;
        return 0;
    }
    if (*unit != '\0') {
        fail->rule = "AC013";
        snprintf(fail->message, sizeof fail->message,
                 "is a probability: a number in [0, 1] or a percentage, not '%s'", buf);
        return -1;
    }
    if (v < 0.0 || v > 1.0) {
        fail_set(fail, "AC011", "is a probability: it must lie in [0, 1] (or 0%%..100%%): got '%s'",
                 buf);
        return -1;
    }
    if (check_magnitude(v, AC_UNITS_PROBABILITY_MIN, 1.0, "probabilities", "1e-15", "1", buf,
                        fail) != 0)
        return -1;
    *out = v;
    return 0;
}

int ac_units_count(const char *s, size_t max, size_t *out, ac_unit_fail *fail)
{
    char buf[128];
    const char *unit;
    double v;
    if (split_number(s, buf, sizeof buf, &v, &unit, fail) != 0)
        return -1;
    if (*unit != '\0' || v != floor(v)) {
        fail_set(fail, "AC014", "is a count: a non-negative whole number, not '%s'", buf);
        return -1;
    }
    if (v < 0.0) {
        fail_set(fail, "AC011", "is a count and must not be negative: got '%s'", buf);
        return -1;
    }
    if (v > (double)max || v >= (double)SIZE_MAX) { /* (double)SIZE_MAX rounds up to 2^64 */
        fail->rule = "AC015";
        snprintf(fail->message, sizeof fail->message,
                 "is larger than archcheck can analyse (at most %zu): got '%s'", max, buf);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

int ac_units_factor(const char *s, double *out, ac_unit_fail *fail)
{
    char buf[128];
    const char *unit;
    double v;
    if (split_number(s, buf, sizeof buf, &v, &unit, fail) != 0)
        return -1;
    if (*unit != '\0') {
        fail_set(fail, "AC013", "is a factor: a plain positive number, not '%s'", buf);
        return -1;
    }
    if (!(v > 0.0)) {
        fail_set(fail, "AC011", "is a factor and must be positive: got '%s'", buf);
        return -1;
    }
    if (check_magnitude(v, AC_UNITS_NUMBER_MIN, AC_UNITS_NUMBER_MAX, "factors", "1e-9", "1e12", buf,
                        fail) != 0)
        return -1;
    *out = v;
    return 0;
}
