/*
 * The benchmark table's rows (bench/README.md): every figure a bench program measures is one
 * line appended to the file named by $AC_BENCH_ROWS (nothing when it is unset), in the form
 *
 *     figure|value|unit|floor|goal|status|detail
 *
 * status PASS (the floor is met), MISS (it is not) or INFO (no floor); detail free text
 * (medians of how many interleaved pairs, instruction counts, sizes), no '|' nor newline.
 * bench/collect.sh gathers the lines into build/bench/table.md and table.csv.
 */
#ifndef AC_BENCH_ROWS_H
#define AC_BENCH_ROWS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define AC_BENCH_PRINTF __attribute__((format(printf, 7, 8)))
#else
#define AC_BENCH_PRINTF
#endif

/* Append one row; floor/goal may be NULL (no floor: status INFO unless given). */
static inline void ac_bench_row(const char *figure, double value, const char *unit,
                                const char *floor, const char *goal, const char *status,
                                const char *detail_fmt, ...) AC_BENCH_PRINTF;
static inline void ac_bench_row(const char *figure, double value, const char *unit,
                                const char *floor, const char *goal, const char *status,
                                const char *detail_fmt, ...)
{
    const char *path = getenv("AC_BENCH_ROWS");
    char detail[512] = "";
    FILE *f;
    if (detail_fmt != NULL) {
        va_list ap;
        va_start(ap, detail_fmt);
        vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);
    }
    printf("  row: %s = %.6g %s (floor %s, goal %s): %s %s\n", figure, value, unit,
           floor ? floor : "-", goal ? goal : "-", status, detail);
    if (path == NULL || path[0] == '\0')
        return;
    f = fopen(path, "a");
    if (f == NULL)
        return;
    fprintf(f, "%s|%.6g|%s|%s|%s|%s|%s\n", figure, value, unit, floor ? floor : "",
            goal ? goal : "", status, detail);
    fclose(f);
}

#endif
