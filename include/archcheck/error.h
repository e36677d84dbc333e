/*
 * archcheck: errors and diagnostics.
 *
 * Two kinds of trouble travel through archcheck:
 *
 *  - an ac_error: one failure that stops an operation (out of memory, an
 *    unreadable file, a solver that cannot converge). Functions return 0 on
 *    success or a negative AC_E* status, and fill the caller-owned ac_error
 *    with the message and, where known, the source location. The first error
 *    set is kept: ac_error_set does not overwrite an error already set.
 *
 *  - an ac_diag: one finding about the input or the design
 *    (`file:line:col: severity: message [RULE]`). Diagnostics are collected
 *    in an ac_diag_list so that every problem is reported, not only the first.
 */
#ifndef ARCHCHECK_ERROR_H
#define ARCHCHECK_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return statuses: 0 is success, every failure is negative. */
enum {
    AC_OK = 0,
    AC_ENOMEM = -1,   /* allocation failed */
    AC_EIO = -2,      /* a file could not be read or written */
    AC_EINPUT = -3,   /* the input is invalid (diagnostics say why) */
    AC_EINVAL = -4,   /* a caller passed an invalid argument */
    AC_ENUMERIC = -5, /* a numerical method failed or did not converge */
    AC_ELIMIT = -6    /* a documented size limit was exceeded */
};

/* A place in an input file. `file` is borrowed; line and column are 1-based,
 * 0 when unknown. */
typedef struct ac_loc {
    const char *file;
    unsigned line;
    unsigned column;
} ac_loc;

#define AC_ERROR_MESSAGE_MAX 512
#define AC_ERROR_FILE_MAX    256

/* A caller-owned error. Zero-initialise it (`ac_error err = {0};`). */
typedef struct ac_error {
    int code; /* 0 while no error is set */
    char message[AC_ERROR_MESSAGE_MAX];
    char file[AC_ERROR_FILE_MAX]; /* empty when the error has no location */
    unsigned line;
    unsigned column;
} ac_error;

/* Set `err` (if not NULL and not already set) with a printf-style message.
 * Returns `code`, so that `return ac_error_set(err, AC_EIO, ...)` reads well. */
int ac_error_set(ac_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* As ac_error_set, with a source location. */
int ac_error_set_at(ac_error *err, int code, ac_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Clear an error so that it can be reused. */
void ac_error_clear(ac_error *err);

/* The text of a status code ("out of memory", ...). Never NULL. */
const char *ac_status_str(int code);

typedef enum ac_severity { AC_SEV_NOTE = 0, AC_SEV_WARNING = 1, AC_SEV_ERROR = 2 } ac_severity;

/* The lower-case name of a severity: "note", "warning" or "error". */
const char *ac_severity_name(ac_severity sev);

/* One finding. All strings are owned by the list that holds the diagnostic. */
typedef struct ac_diag {
    char rule[8]; /* "AC012" */
    ac_severity severity;
    char *file;      /* the path as given on the command line */
    unsigned line;   /* 1-based; 0 when the finding is about the whole file */
    unsigned column; /* 1-based; 0 when unknown */
    char *node;      /* the node concerned, or NULL */
    char *message;
    char *detail;   /* further indented lines, or NULL */
    int suppressed; /* 1 when a <suppress> silenced it */
    char *suppress_reason;
} ac_diag;

typedef struct ac_diag_list {
    ac_diag *items;
    size_t count;
    size_t capacity;
} ac_diag_list;

/* Initialise an empty list (equivalent to zero-initialisation). */
void ac_diag_list_init(ac_diag_list *list);

/* Free every diagnostic and the storage; the list is empty afterwards.
 * NULL is a no-op. */
void ac_diag_list_clear(ac_diag_list *list);

/* Remove (and free) the i-th diagnostic; the later ones move up. Out of range: no-op. */
void ac_diag_list_remove(ac_diag_list *list, size_t i);

/* Append a diagnostic; the strings are copied. The severity is the rule's
 * default (see rules.h). `node` may be NULL. Returns 0 or AC_ENOMEM. */
int ac_diag_add(ac_diag_list *list, const char *rule, const char *file, unsigned line,
                unsigned column, const char *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* Attach detail lines to the last diagnostic added (copied). */
int ac_diag_set_detail(ac_diag_list *list, const char *detail);

/* Sort by file, line, column, then rule and message: a stable, deterministic order. */
void ac_diag_list_sort(ac_diag_list *list);

/* Number of unsuppressed diagnostics at or above `sev`. */
size_t ac_diag_list_count(const ac_diag_list *list, ac_severity sev);

#ifdef __cplusplus
}
#endif

#endif
