/*
 * Small string helpers shared by every module (internal header).
 */
#ifndef AC_COMMON_STRBUF_H
#define AC_COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

/* A growable, always NUL-terminated string. Zero-initialise it. */
typedef struct ac_strbuf {
    char *data;
    size_t len;
    size_t cap;
    int failed; /* set once an allocation failed; later appends are ignored */
} ac_strbuf;

void ac_strbuf_append(ac_strbuf *sb, const char *s);
void ac_strbuf_appendn(ac_strbuf *sb, const char *s, size_t n);
void ac_strbuf_printf(ac_strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void ac_strbuf_free(ac_strbuf *sb);
/* Hand the string over to the caller (who frees it); the buffer is reset.
 * Returns NULL if an allocation failed on the way. */
char *ac_strbuf_take(ac_strbuf *sb);

char *ac_strdup(const char *s);
char *ac_strndup(const char *s, size_t n);
char *ac_strdupf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
char *ac_vstrdupf(const char *fmt, va_list ap);

/* Format a double the same way everywhere ("%.17g" shortened to the
 * shortest form that reads back exactly), for deterministic output. */
void ac_format_double(char *buf, size_t size, double v);

#endif
