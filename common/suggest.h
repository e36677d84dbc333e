/*
 * "Did you mean": the nearest word by edit distance (internal to the modules).
 */
#ifndef AC_COMMON_SUGGEST_H
#define AC_COMMON_SUGGEST_H

#include <stddef.h>

/* Edit distance of a and b, a transposition counting one edit (ASCII case-insensitive);
 * (size_t)-1 past 63 characters. */
size_t ac_edit_distance(const char *a, const char *b);

/* The candidate nearest to `word` within one edit (words of up to 4 characters) or a third
 * of its length (and not `word` itself), else NULL. */
size_t ac_suggest_limit(const char *word);
const char *ac_suggest(const char *word, const char *const *candidates, size_t n);

#endif
