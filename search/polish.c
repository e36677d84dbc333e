/*
 * The polish of a worst case (include/archcheck/search.h): a compass search around the
 * search's best, the bounds of each gene first (a degradation is often monotone in a fault's
 * size, so its worst is at a range's end), then +-step with the step halved when no move
 * helps. Deterministic: the order of the genes and the moves is fixed, job 0 evaluates.
 * With a screen, a move whose estimate is below the score by screen_eps is not kept
 * without its full evaluation (its true score is below the score: the screen's error is
 * below eps / 2); every kept move is scored in full.
 */
#include <math.h>
#include <string.h>

#include "archcheck/search.h"

/* Try gene i at value v: kept when it scores strictly higher. 1 kept, 0 not, < 0 a status. */
static int try_move(const ac_search_problem *pr, double *g, size_t i, double v, double *score,
                    size_t *evals, ac_error *err)
{
    double old = g[i], s;
    int rc;
    v = fmin(1.0, fmax(0.0, v));
    if (v == old)
        return 0;
    g[i] = v;
    (*evals)++;
    if (pr->screen != NULL) { /* a move the screen puts below the score by eps is not kept */
        rc = pr->screen(pr->ctx, 0, g, &s, err);
        if (rc == 0 && !isnan(s) && s < *score - pr->screen_eps)
            rc = 1;
        if (rc != 0) {
            g[i] = old;
            return rc > 0 ? 0 : rc;
        }
    }
    rc = pr->eval(pr->ctx, 0, g, &s, err);
    if (rc != 0) {
        g[i] = old;
        return rc;
    }
    if (s > *score) {
        *score = s;
        return 1;
    }
    g[i] = old;
    return 0;
}

int ac_search_polish(const ac_search_problem *pr, double *genes, double *score, size_t budget,
                     size_t *evals, ac_error *err)
{
    size_t n = pr->ngenes;
    int rc = 0;
    *evals = 0;
    for (size_t i = 0; i < n && rc >= 0; i++)
        for (int b = 1; b >= 0 && rc >= 0 && *evals < budget; b--)
            rc = try_move(pr, genes, i, (double)b, score, evals, err);
    for (double step = 0.25; step >= 1.0 / 1024.0 && rc >= 0 && *evals < budget; step /= 2) {
        int moved = 1;
        while (moved && rc >= 0 && *evals < budget) {
            moved = 0;
            for (size_t i = 0; i < n && rc >= 0 && *evals < budget; i++) {
                rc = try_move(pr, genes, i, genes[i] + step, score, evals, err);
                if (rc == 0 && *evals < budget)
                    rc = try_move(pr, genes, i, genes[i] - step, score, evals, err);
                moved |= rc == 1;
            }
        }
    }
    return rc < 0 ? rc : 0;
}
