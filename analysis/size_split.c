/*
 * Capacity planning: the end-to-end split (doc/models.md §8). When several rows bind one
 * end-to-end requirement, the greedy sizing (each row bisected in turn, the later ones at
 * the feasible start) gives the first rows the least; pairwise exchanges among the binding
 * rows lower the sum of their counts while every point tried still holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/size_internal.h"

/* Does row j's count bind an end-to-end requirement (what fails at needed - 1)? */
static int binds_end_to_end(const ac_size_answer *a)
{
    return (a->status == AC_SIZE_OK || a->status == AC_SIZE_UNCERTAIN) &&
           a->binding_node == AC_NONE && strcmp(a->binding, "nothing") != 0 &&
           strcmp(a->binding, "stability") != 0;
}

/* Probe the working model's counts as they are: 1 hold, 0 not (or no value), AC_SIZE_PROBE_BUDGET,
 * AC_SIZE_PROBE_ERROR. */
static int holds_now(sizer *s, double scale)
{
    char b[64];
    size_t nd = AC_NONE;
    int held = ac_an_size_probe(s, scale, b, sizeof b, &nd);
    return held < -1 ? held : held == 1;
}

/*
 * One exchange between rows i and j (both binding end to end), the others fixed: for t = 1,
 * 2, ... servers more at i, the least count at j that still holds, walking down from the
 * last one (it only falls as i grows: the staircase of the feasible pairs); stops where j
 * cannot fall below lj any more or the gain cannot be positive. Keeps the pair of least sum
 * (strictly below the current one) in x. Returns 1 improved, 0 not, AC_SIZE_PROBE_BUDGET,
 * AC_SIZE_PROBE_ERROR.
 */
static int exchange(sizer *s, size_t *x, size_t lj, const ac_size_node *rows, size_t i, size_t j,
                    double scale)
{
    ac_node *ni = &s->w->nodes[rows[i].node], *nj = &s->w->nodes[rows[j].node];
    size_t xi = x[i], xj = x[j], best_i = xi, best_j = xj, cj = xj;
    int improved = 0;
    for (size_t t = 1; xj > lj && t < xj - lj && xi + t <= s->opt->max_count; t++) {
        ac_an_size_count_set(ni, xi + t);
        while (cj > lj) {
            int h;
            ac_an_size_count_set(nj, cj - 1);
            h = holds_now(s, scale);
            if (h < 0) {
                ac_an_size_count_set(ni, best_i);
                ac_an_size_count_set(nj, best_j);
                x[i] = best_i;
                x[j] = best_j;
                return h;
            }
            if (!h)
                break;
            cj--;
        }
        ac_an_size_count_set(nj, cj);
        if (xi + t + cj < best_i + best_j) {
            best_i = xi + t;
            best_j = cj;
            improved = 1;
        }
        if (cj == lj)
            break; /* j at its least: more at i only costs */
    }
    ac_an_size_count_set(ni, best_i);
    ac_an_size_count_set(nj, best_j);
    x[i] = best_i;
    x[j] = best_j;
    return improved;
}

/*
 * The end-to-end split (doc/models.md §8). The rows are bisected in turn, each with the rows
 * after it at the feasible start, so the first ones take the least and the later ones what
 * is left of an end-to-end limit: a greedy split. When two rows or more bind an end-to-end
 * requirement, the split is improved by exchanges between every ordered pair of them until
 * none lowers the sum of their counts (every point tried is a probe that holds, so the
 * result holds; it is never above the greedy sum). With two such rows this enumerates the
 * staircase of the feasible pairs down to j's least count: the smallest sum exactly, for a
 * requirement H monotone in each count. lj: the least count of j with every other row at
 * the feasible start (`start`), by bisection (the first row's is its bisection's answer,
 * first_n: it was bisected so). The counts found go to the working model and x.
 * Returns 1 changed, 0 not (also when the probe budget runs out: the greedy split stays, no
 * probe is left to settle other counts with), or AC_SIZE_PROBE_ERROR (s->rc).
 */
static int split_improve(sizer *s, ac_size_node *rows, size_t nrows, const size_t *start, size_t *x,
                         size_t first_n, double scale, int headroom)
{
    size_t lj[AC_SIZE_BG_MAX], idx[AC_SIZE_BG_MAX], greedy[AC_SIZE_BG_MAX], nb = 0;
    int changed = 0, again = 1;
    for (size_t j = 0; j < nrows && nb < AC_SIZE_BG_MAX; j++)
        if (binds_end_to_end(ac_an_size_answer(&rows[j], headroom)))
            idx[nb++] = j;
    if (nb < 2)
        return 0;
    for (size_t q = 0; q < nb; q++)
        greedy[q] = x[idx[q]];
    for (size_t q = 0; q < nb; q++) { /* j's least count: the others at the feasible start */
        ac_node *nd = &s->w->nodes[rows[idx[q]].node];
        size_t lo = ac_an_size_count_min(nd) - 1, hi = x[idx[q]];
        if (idx[q] == 0 && first_n > 0) { /* the first row was bisected so: its answer */
            lj[q] = first_n;
            continue;
        }
        for (size_t r = 0; r < nrows; r++)
            if (r != idx[q])
                ac_an_size_count_set(&s->w->nodes[rows[r].node], start[r]);
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            int h;
            ac_an_size_count_set(nd, mid);
            h = holds_now(s, scale);
            if (h == AC_SIZE_PROBE_ERROR)
                return AC_SIZE_PROBE_ERROR;
            if (h == AC_SIZE_PROBE_BUDGET)
                goto budget;
            if (h)
                hi = mid;
            else
                lo = mid;
        }
        lj[q] = hi;
    }
    for (size_t r = 0; r < nrows; r++)
        ac_an_size_count_set(&s->w->nodes[rows[r].node], x[r]);
    while (again) {
        again = 0;
        for (size_t a = 0; a < nb; a++)
            for (size_t b = 0; b < nb; b++) {
                int e;
                if (a == b)
                    continue;
                e = exchange(s, x, lj[b], rows, idx[a], idx[b], scale);
                if (e == AC_SIZE_PROBE_ERROR)
                    return AC_SIZE_PROBE_ERROR;
                if (e == AC_SIZE_PROBE_BUDGET)
                    goto budget;
                if (e == 1)
                    changed = again = 1;
            }
    }
    return changed;
budget: /* no probes left to settle new counts with: the greedy split stays */
    for (size_t q = 0; q < nb; q++)
        x[idx[q]] = greedy[q];
    for (size_t r = 0; r < nrows; r++)
        ac_an_size_count_set(&s->w->nodes[rows[r].node], x[r]);
    return 0;
}

/* Settle row j at count n (the others as they are): bisect from n (one probe when n - 1
 * fails: the binding requirement) and ac_an_size_settle(). Returns the count kept, 0 (the budget
 * ran out) or (size_t)-1 on error. */
static size_t resettle(sizer *s, ac_size_node *rows, size_t j, size_t n, size_t start, double scale,
                       int headroom)
{
    ac_node *nd = &s->w->nodes[rows[j].node];
    size_t m, keep;
    ac_an_size_count_set(nd, n);
    m = ac_an_size_bisect(s, &rows[j], scale, headroom, n > ac_an_size_count_min(nd) ? n - 1 : 0);
    if (m == (size_t)-1 || m == 0)
        return m;
    keep = ac_an_size_settle(s, rows[j].node, m, start, ac_an_size_count_min(nd), scale,
                             ac_an_size_answer(&rows[j], headroom));
    if (keep == 0)
        return s->rc != AC_OK ? (size_t)-1 : 0;
    ac_an_size_count_set(nd, keep);
    return keep;
}

/* The split's new counts settled row by row; when the budget runs out on the way, the greedy
 * answers (saved) and counts stay. Returns 0 or a negative status. */
static int settle_split(sizer *s, ac_size_node *rows, size_t nrows, const size_t *start,
                        const size_t *x, const size_t *greedy, double scale, int headroom)
{
    ac_size_answer *saved = malloc((nrows > 0 ? nrows : 1) * sizeof *saved);
    if (saved == NULL)
        return ac_error_set(s->err, AC_ENOMEM, "out of memory (size)");
    for (size_t j = 0; j < nrows; j++)
        saved[j] = *ac_an_size_answer(&rows[j], headroom);
    for (size_t j = 0; j < nrows; j++) {
        size_t keep;
        if (greedy[j] == x[j]) /* not moved by the split */
            continue;
        keep = resettle(s, rows, j, x[j], start[j], scale, headroom);
        if (keep == (size_t)-1) {
            free(saved);
            return s->rc;
        }
        if (keep == 0) { /* the budget: back to the greedy split */
            for (size_t r = 0; r < nrows; r++) {
                *ac_an_size_answer(&rows[r], headroom) = saved[r];
                ac_an_size_count_set(&s->w->nodes[rows[r].node], greedy[r]);
            }
            break;
        }
        ac_an_size_answer(&rows[j], headroom)->split = 1;
    }
    free(saved);
    return AC_OK;
}

int ac_an_size_split(sizer *s, ac_size_node *rows, size_t nrows, const size_t *start, size_t *x,
                     const size_t *greedy, size_t first_n, double scale, int headroom)
{
    int f = split_improve(s, rows, nrows, start, x, first_n, scale, headroom);
    if (f == AC_SIZE_PROBE_ERROR)
        return s->rc;
    if (f == 1)
        return settle_split(s, rows, nrows, start, x, greedy, scale, headroom);
    return AC_OK;
}
