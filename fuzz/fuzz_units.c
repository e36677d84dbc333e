/*
 * libFuzzer target for the unit and number parser (parser/units.c): any string must be
 * accepted with a value in its documented range (parser/units.h) or refused with a rule
 * and a message. An accepted value also survives a round trip through its SI form
 * ("%.17g" and the base unit), so that what the parser accepts it accepts once written
 * back. A violated invariant aborts (libFuzzer reports it as a crash).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/parser.h"
#include "parser/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Longer than every internal buffer of units.c (128), so that the length limit is fuzzed
 * too, but short enough to keep the executions fast. */
#define FUZZ_UNITS_MAX_LEN 512

static void require(int cond, const char *what, const char *text)
{
    if (!cond) {
        fprintf(stderr, "fuzz_units: invariant violated: %s, input '%s'\n", what, text);
        abort();
    }
}

/* The result of one call: 0 with a value in [lo, hi] (0 or at least `tiny` in magnitude),
 * or -1 with a rule and a message. */
static void check_result(int rc, double v, const ac_unit_fail *fail, double lo, double hi,
                         double tiny, const char *what, const char *text)
{
    require(rc == 0 || rc == -1, what, text);
    if (rc == 0) {
        require(isfinite(v), "an accepted value is finite", text);
        require(v >= lo && v <= hi, what, text);
        require(v == 0.0 || fabs(v) >= tiny, "an accepted value is 0 or normal-sized", text);
    } else {
        require(fail->rule != NULL && strncmp(fail->rule, "AC0", 3) == 0,
                "a refusal names its rule", text);
        require(fail->message[0] != '\0', "a refusal has a message", text);
        require(memchr(fail->message, '\0', sizeof fail->message) != NULL,
                "the message is terminated", text);
    }
}

/* Writes v in the base unit `suffix` and parses it back with `parse`: the same value. */
static void check_round_trip(int (*parse)(const char *, double *, ac_unit_fail *), double v,
                             const char *suffix, const char *text)
{
    char buf[64];
    double w = NAN;
    ac_unit_fail fail = {NULL, ""};
    snprintf(buf, sizeof buf, "%.17g%s", v, suffix);
    require(parse(buf, &w, &fail) == 0, "the SI form of an accepted value is accepted", text);
    require(w == v, "the SI form of an accepted value parses to the same value", text);
}

static void fuzz_doubles(const char *text)
{
    double v = NAN, q = NAN;
    ac_unit_fail fail = {NULL, ""};
    char msg[256];
    int rc, qrc;

    rc = ac_units_duration(text, &v, &fail);
    check_result(rc, v, &fail, 0.0, AC_UNITS_DURATION_MAX, AC_UNITS_DURATION_MIN, "duration", text);
    if (rc == 0)
        check_round_trip(ac_units_duration, v, "s", text);
    msg[0] = '\0';
    qrc = ac_parser_quantity(text, AC_QUANTITY_DURATION, &q, msg, sizeof msg);
    require(qrc == rc && (rc != 0 || q == v), "ac_parser_quantity = ac_units_duration", text);
    require(qrc == 0 || msg[0] != '\0', "ac_parser_quantity says why", text);

    fail = (ac_unit_fail){NULL, ""};
    rc = ac_units_rate(text, &v, &fail);
    check_result(rc, v, &fail, 0.0, AC_UNITS_RATE_MAX, AC_UNITS_RATE_MIN, "rate", text);
    if (rc == 0)
        check_round_trip(ac_units_rate, v, "/s", text);
    msg[0] = '\0';
    qrc = ac_parser_quantity(text, AC_QUANTITY_RATE, &q, msg, sizeof msg);
    require(qrc == rc && (rc != 0 || q == v), "ac_parser_quantity = ac_units_rate", text);
    require(qrc == 0 || msg[0] != '\0', "ac_parser_quantity says why", text);

    fail = (ac_unit_fail){NULL, ""};
    rc = ac_units_probability(text, &v, &fail);
    check_result(rc, v, &fail, 0.0, 1.0, AC_UNITS_PROBABILITY_MIN, "probability", text);
    if (rc == 0)
        check_round_trip(ac_units_probability, v, "", text);
    msg[0] = '\0';
    qrc = ac_parser_quantity(text, AC_QUANTITY_PROBABILITY, &q, msg, sizeof msg);
    require(qrc == rc && (rc != 0 || q == v), "ac_parser_quantity = ac_units_probability", text);
    require(qrc == 0 || msg[0] != '\0', "ac_parser_quantity says why", text);

    fail = (ac_unit_fail){NULL, ""};
    rc = ac_units_factor(text, &v, &fail);
    check_result(rc, v, &fail, AC_UNITS_NUMBER_MIN, AC_UNITS_NUMBER_MAX, AC_UNITS_NUMBER_MIN,
                 "factor", text);
    if (rc == 0)
        check_round_trip(ac_units_factor, v, "", text);

    fail = (ac_unit_fail){NULL, ""};
    rc = ac_units_number(text, &v, &fail);
    check_result(rc, v, &fail, -AC_UNITS_NUMBER_MAX, AC_UNITS_NUMBER_MAX, AC_UNITS_NUMBER_MIN,
                 "number", text);
    if (rc == 0)
        check_round_trip(ac_units_number, v, "", text);
}

static void fuzz_counts(const char *text)
{
    /* the maxima the parser uses (build.c, build_review.c), and the extremes */
    static const size_t maxima[] = {0, 1, 1000000, 4294967295u, SIZE_MAX};
    for (size_t i = 0; i < sizeof maxima / sizeof maxima[0]; i++) {
        size_t c = 12345;
        ac_unit_fail fail = {NULL, ""};
        int rc = ac_units_count(text, maxima[i], &c, &fail);
        check_result(rc, 0.0, &fail, 0.0, 0.0, 0.0, "count", text);
        require(rc != 0 || c <= maxima[i], "an accepted count is at most max", text);
        require(rc == 0 || c == 12345, "a refused count leaves *out alone", text);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[FUZZ_UNITS_MAX_LEN + 1];
    if (size > FUZZ_UNITS_MAX_LEN)
        size = FUZZ_UNITS_MAX_LEN;
    memcpy(text, data, size);
    text[size] = '\0'; /* an embedded NUL ends the string, as in an attribute value */
    fuzz_doubles(text);
    fuzz_counts(text);
    return 0;
}
