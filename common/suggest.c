/*
 * "Did you mean": Levenshtein distance, two rows (d(i, j) = min(d(i-1, j) + 1,
 * d(i, j-1) + 1, d(i-1, j-1) + [a_i != b_j], and d(i-2, j-2) + 1 for a transposition:
 * the optimal string alignment distance).
 */
#include "common/suggest.h"

#include <string.h>

size_t ac_edit_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b), row[3][64];
    if (na > 63 || nb > 63)
        return (size_t)-1;
    for (size_t j = 0; j <= nb; j++)
        row[0][j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t *cur = row[i % 3], *prev = row[(i - 1) % 3], *prev2 = row[(i + 1) % 3];
        cur[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            char x = (char)(a[i - 1] | 32), y = (char)(b[j - 1] | 32);
            size_t sub = prev[j - 1] + (x != y), del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t v = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (i > 1 && j > 1 && x == (b[j - 2] | 32) && (a[i - 2] | 32) == y &&
                prev2[j - 2] + 1 < v)
                v = prev2[j - 2] + 1; /* a transposition */
            cur[j] = v;
        }
    }
    return row[na % 3][nb];
}

size_t ac_suggest_limit(const char *word)
{
    size_t len = strlen(word);
    return len <= 4 ? 1 : len / 3;
}

const char *ac_suggest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, limit = ac_suggest_limit(word);
    for (size_t i = 0; i < n; i++) {
        size_t d = ac_edit_distance(word, candidates[i]);
        if (d > 0 && d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best_d <= limit ? best : NULL;
}
