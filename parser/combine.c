/*
 * The structure of combine mitigations, walked without recursion.
 *
 * A combine names other mitigations (`of`), which may be combines themselves: the names form
 * a directed graph that the input controls (a chain of 100000 combines, or 40 levels of
 * diamonds whose paths number 2^40). Every walk here uses an explicit stack and visits each
 * mitigation at most once per walk, so a walk costs O(mitigations + references), and the
 * steps are counted against a budget.
 */
#include <stdlib.h>
#include <string.h>

#include "parser/internal.h"

typedef struct frame {
    size_t node;
    size_t next; /* the next index of `of` to visit */
} frame;

int ac_combine_walk_init(ac_combine_walk *w, const ac_model *m)
{
    size_t n = m->nmitigations > 0 ? m->nmitigations : 1;
    memset(w, 0, sizeof *w);
    w->model = m;
    w->stamp = calloc(n, sizeof *w->stamp);
    w->onpath = calloc(n, 1);
    w->stack = calloc(n, sizeof(frame));
    w->leaves = calloc(n, sizeof *w->leaves);
    if (w->stamp == NULL || w->onpath == NULL || w->stack == NULL || w->leaves == NULL) {
        ac_combine_walk_free(w);
        return AC_ENOMEM;
    }
    w->budget = AC_COMBINE_WORK_MAX;
    return AC_OK;
}

void ac_combine_walk_free(ac_combine_walk *w)
{
    if (w == NULL)
        return;
    free(w->stamp);
    free(w->onpath);
    free(w->stack);
    free(w->leaves);
    memset(w, 0, sizeof *w);
}

/* Depth-first from `root` over the `of` lists: every mitigation is entered once (stamped with
 * this walk's generation); the non-combines are appended to w->leaves in the order first met,
 * which is the order a recursive walk of the `of` lists meets them. */
int ac_combine_leaves(ac_combine_walk *w, size_t root)
{
    const ac_model *m = w->model;
    frame *st = w->stack;
    size_t depth = 0;
    int rc = AC_OK;

    w->nleaves = 0;
    if (root >= m->nmitigations)
        return AC_EINVAL;
    w->generation++;
    w->stamp[root] = w->generation;
    if (m->mitigations[root].kind != AC_MIT_COMBINE) {
        w->leaves[w->nleaves++] = root;
        return AC_OK;
    }
    st[depth++] = (frame){root, 0};
    w->onpath[root] = 1;
    while (depth > 0) {
        frame *f = &st[depth - 1];
        const ac_mitigation *mt = &m->mitigations[f->node];
        size_t child;
        if (w->budget == 0) {
            rc = AC_COMBINE_TOO_LARGE;
            break;
        }
        w->budget--;
        if (f->next >= mt->nof) { /* every child done: leave the node */
            w->onpath[f->node] = 0;
            depth--;
            continue;
        }
        child = mt->of[f->next++];
        if (child == AC_NONE || child >= m->nmitigations)
            continue;
        if (w->onpath[child]) {
            rc = AC_COMBINE_CYCLE;
            break;
        }
        if (w->stamp[child] == w->generation)
            continue; /* met already: its leaves are in the list */
        w->stamp[child] = w->generation;
        if (m->mitigations[child].kind != AC_MIT_COMBINE) {
            w->leaves[w->nleaves++] = child;
            continue;
        }
        w->onpath[child] = 1;
        st[depth++] = (frame){child, 0}; /* depth <= number of combines: on a path, no repeat */
    }
    while (depth > 0) /* stopped early: clear the path for the next walk */
        w->onpath[st[--depth].node] = 0;
    return rc;
}

/* Which combines reach a cycle of combines (themselves on it or below one): one depth-first
 * pass over the whole graph. A node is finished when all its children are; it reaches a cycle
 * if a child is on the current path (a back edge) or is finished and reaches one. */
int ac_combine_cycles(ac_combine_walk *w, unsigned char *out)
{
    const ac_model *m = w->model;
    frame *st = w->stack;
    size_t n = m->nmitigations;

    memset(out, 0, n > 0 ? n : 1);
    w->generation++;
    for (size_t r = 0; r < n; r++) {
        size_t depth = 0;
        if (w->stamp[r] == w->generation || m->mitigations[r].kind != AC_MIT_COMBINE)
            continue;
        w->stamp[r] = w->generation;
        w->onpath[r] = 1;
        st[depth++] = (frame){r, 0};
        while (depth > 0) {
            frame *f = &st[depth - 1];
            const ac_mitigation *mt = &m->mitigations[f->node];
            size_t child;
            if (f->next >= mt->nof) {
                w->onpath[f->node] = 0;
                depth--;
                if (depth > 0 && out[f->node])
                    out[st[depth - 1].node] = 1;
                continue;
            }
            child = mt->of[f->next++];
            if (child == AC_NONE || child >= n || m->mitigations[child].kind != AC_MIT_COMBINE)
                continue;
            if (w->onpath[child]) {
                out[f->node] = 1;
                continue;
            }
            if (w->stamp[child] == w->generation) {
                if (out[child])
                    out[f->node] = 1;
                continue;
            }
            w->stamp[child] = w->generation;
            w->onpath[child] = 1;
            st[depth++] = (frame){child, 0};
        }
    }
    return AC_OK;
}
