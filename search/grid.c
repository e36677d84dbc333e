/*
 * The exhaustive grid: points^n evaluations at genes i / (points - 1), in lexicographic
 * order (gene 0 fastest); the ground truth of the GA's tests on small spaces.
 */
#include <math.h>
#include <stdlib.h>

#include "archcheck/search.h"

int ac_search_grid(const ac_search_problem *problem, size_t points, size_t budget, double *best,
                   double *out_score, size_t *out_evals, ac_error *err)
{
    size_t n = problem->ngenes, total = 1;
    size_t idx[AC_SEARCH_GENES_MAX] = {0};
    double x[AC_SEARCH_GENES_MAX];
    double best_score = -INFINITY;
    if (points < 2 || n == 0 || n > AC_SEARCH_GENES_MAX)
        return ac_error_set(err, AC_EINVAL, "grid: at least 2 points per gene and 1..%d genes",
                            AC_SEARCH_GENES_MAX);
    for (size_t g = 0; g < n; g++) {
        if (total > budget / points)
            return ac_error_set(err, AC_ELIMIT, "grid: %zu^%zu points exceed the budget %zu",
                                points, n, budget);
        total *= points;
    }
    for (size_t e = 0; e < total; e++) {
        double s;
        int rc;
        for (size_t g = 0; g < n; g++)
            x[g] = (double)idx[g] / (double)(points - 1);
        rc = problem->eval(problem->ctx, 0, x, &s, err);
        if (rc != 0)
            return rc;
        if (s > best_score) {
            best_score = s;
            for (size_t g = 0; g < n; g++)
                best[g] = x[g];
        }
        for (size_t g = 0; g < n && ++idx[g] == points; g++)
            idx[g] = 0;
    }
    *out_score = best_score;
    *out_evals = total;
    return 0;
}
