/*
 * A small streaming JSON writer with deterministic formatting (internal header).
 *
 * Keys and values are written in the order given; doubles use the shortest
 * representation that reads back exactly; non-finite doubles are written as
 * null (JSON has no NaN or infinity). Indentation is two spaces.
 */
#ifndef AC_COMMON_JSONW_H
#define AC_COMMON_JSONW_H

#include <stddef.h>
#include <stdio.h>

#define AC_JSONW_MAX_DEPTH 32

typedef struct ac_jsonw {
    FILE *fp;
    int depth;
    int first[AC_JSONW_MAX_DEPTH]; /* no member written yet at this depth */
    int after_key;
} ac_jsonw;

void ac_jsonw_init(ac_jsonw *w, FILE *fp);
void ac_jsonw_object_begin(ac_jsonw *w);
void ac_jsonw_object_end(ac_jsonw *w);
void ac_jsonw_array_begin(ac_jsonw *w);
void ac_jsonw_array_end(ac_jsonw *w);
void ac_jsonw_key(ac_jsonw *w, const char *key);
void ac_jsonw_string(ac_jsonw *w, const char *s);
void ac_jsonw_double(ac_jsonw *w, double v);
void ac_jsonw_int(ac_jsonw *w, long long v);
void ac_jsonw_uint(ac_jsonw *w, unsigned long long v);
void ac_jsonw_bool(ac_jsonw *w, int v);
void ac_jsonw_null(ac_jsonw *w);
/* Finish with a newline. */
void ac_jsonw_end(ac_jsonw *w);

/* Write s as a JSON string literal (with quotes) to fp. */
void ac_json_write_string(FILE *fp, const char *s);

#endif
