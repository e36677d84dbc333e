/*
 * The variants of a resilience study (include/archcheck/search.h): the baseline, every
 * declared <mitigation> (combines included), and the combinations the file does not declare:
 *   - with at most AC_SEARCH_SUBSETS_MAX simple mitigations (non-combines): every subset of
 *     two or more of them;
 *   - past that: every pair (the subsets would be 2^n - 1 studies).
 * A combination whose set of simple mitigations equals a declared combine's is that combine
 * (not repeated). A combination with two parts that cannot go together (the parser's AC026
 * rule for combines: SnapStart with provisioned concurrency on one function, two `set` of one
 * attribute, two mitigations of one kind on one node) is listed, not computed, with why.
 * A combination applies its parts in model order to a clone of the model.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/internal.h"

/* The most simple mitigations whose pairs are listed (their sets fit a 64-bit mask). */
#define PAIRS_LEAVES_MAX 64

static int popcount(uint64_t s)
{
    int k = 0;
    for (; s != 0; s &= s - 1)
        k++;
    return k;
}

/* 1 when the simple mitigations a and b cannot be combined (as parser/check.c's AC026). */
static int conflict(const ac_model *m, size_t a, size_t b, char *why, size_t size)
{
    const ac_mitigation *x = &m->mitigations[a], *y = &m->mitigations[b];
    if (x->target == AC_NONE || x->target != y->target)
        return 0;
    if ((x->kind == AC_MIT_SNAPSTART && y->kind == AC_MIT_PROVISIONED_CONCURRENCY) ||
        (y->kind == AC_MIT_SNAPSTART && x->kind == AC_MIT_PROVISIONED_CONCURRENCY)) {
        snprintf(why, size,
                 "'%s' and '%s' cannot be combined (AWS Lambda does not allow "
                 "SnapStart with provisioned concurrency)",
                 x->id, y->id);
        return 1;
    }
    if (x->kind == y->kind &&
        (x->kind != AC_MIT_SET || (x->attribute != NULL && y->attribute != NULL &&
                                   strcmp(x->attribute, y->attribute) == 0))) {
        snprintf(why, size, "'%s' and '%s' change the same setting of '%s'", x->id, y->id,
                 m->nodes[x->target].id);
        return 1;
    }
    return 0;
}

/* The set of simple mitigations of every mitigation, as masks over the leaves' ranks (bit
 * leaf_rank[i] for a simple one; the union of its parts for a combine), by an explicit-stack
 * post-order walk (the parser refused cycles): O(mitigations + references), no recursion. */
static int leaf_masks(const ac_model *m, const size_t *rank, uint64_t *mask, ac_error *err)
{
    size_t n = m->nmitigations;
    size_t *stack = calloc(2 * n + 2, sizeof *stack);
    unsigned char *done = calloc(n + 1, 1);
    if (stack == NULL || done == NULL) {
        free(stack);
        free(done);
        return ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    }
    for (size_t r = 0; r < n; r++) {
        size_t depth = 0;
        if (done[r])
            continue;
        stack[0] = r;
        stack[1] = 0;
        depth = 1;
        while (depth > 0) {
            size_t i = stack[2 * (depth - 1)], *next = &stack[2 * (depth - 1) + 1];
            const ac_mitigation *mt = &m->mitigations[i];
            if (mt->kind == AC_MIT_COMBINE && *next < mt->nof) {
                size_t j = mt->of[(*next)++];
                if (j < n && !done[j] && depth < n) {
                    stack[2 * depth] = j;
                    stack[2 * depth + 1] = 0;
                    depth++;
                } else if (j < n)
                    mask[i] |= mask[j];
                continue;
            }
            if (mt->kind != AC_MIT_COMBINE)
                mask[i] = rank[i] < PAIRS_LEAVES_MAX ? (uint64_t)1 << rank[i] : 0;
            done[i] = 1;
            depth--;
            if (depth > 0)
                mask[stack[2 * (depth - 1)]] |= mask[i];
        }
    }
    free(stack);
    free(done);
    return 0;
}

/* The undeclared combinations to list: masks of two or more leaves (all subsets, or pairs),
 * minus the declared combines' sets. Writes at most `cap` into out; returns how many. */
static size_t list_combinations(size_t nleaves, int all, const uint64_t *declared, size_t ndeclared,
                                uint64_t *out, size_t cap)
{
    size_t k = 0;
    uint64_t limit = all ? (uint64_t)1 << nleaves : 0;
    if (all) {
        /* by size, then by the mask's value: {a,b} {a,c} {b,c} {a,b,c} ... */
        for (int size = 2; size <= (int)nleaves; size++)
            for (uint64_t s = 1; s < limit; s++) {
                int dup = 0;
                if (popcount(s) != size)
                    continue;
                for (size_t d = 0; d < ndeclared; d++)
                    dup |= declared[d] == s;
                if (!dup && k < cap)
                    out[k++] = s;
            }
        return k;
    }
    for (size_t a = 0; a < nleaves && a < PAIRS_LEAVES_MAX; a++)
        for (size_t b = a + 1; b < nleaves && b < PAIRS_LEAVES_MAX; b++) {
            uint64_t s = ((uint64_t)1 << a) | ((uint64_t)1 << b);
            int dup = 0;
            for (size_t d = 0; d < ndeclared; d++)
                dup |= declared[d] == s;
            if (!dup && k < cap)
                out[k++] = s;
        }
    return k;
}

/* Fill variant v as the combination `set` (a mask over the leaves; leaf[r]: the mitigation
 * of rank r). */
static void combination_variant(const ac_model *m, uint64_t set, const size_t *leaf,
                                ac_search_variant *v)
{
    size_t len = 0;
    v->mitigation = AC_NONE;
    for (size_t r = 0; r < PAIRS_LEAVES_MAX && v->nparts < AC_SEARCH_PARTS_MAX; r++) {
        if (!(set >> r & 1))
            continue;
        v->parts[v->nparts++] = leaf[r];
        len += (size_t)snprintf(v->id + len, len < sizeof v->id ? sizeof v->id - len : 0, "%s%s",
                                len > 0 ? "+" : "", m->mitigations[leaf[r]].id);
    }
    for (size_t a = 0; a < v->nparts && v->why[0] == '\0'; a++)
        for (size_t b = a + 1; b < v->nparts && v->why[0] == '\0'; b++)
            if (conflict(m, v->parts[a], v->parts[b], v->why, sizeof v->why))
                v->excluded = 1;
}

int ac_search_study_variants(const ac_model *m, size_t only, int combinations, ac_search_study *st,
                             ac_error *err)
{
    size_t n = m->nmitigations, nleaves = 0, ndecl = 0, ncomb = 0, cap, nv;
    size_t *rank = calloc(n + 1, sizeof *rank), *leaf = calloc(n + 1, sizeof *leaf);
    uint64_t *mask = calloc(n + 1, sizeof *mask), *decl = calloc(n + 1, sizeof *decl), *comb;
    int rc = 0, all;
    if (rank == NULL || leaf == NULL || mask == NULL || decl == NULL)
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (m->mitigations[i].kind != AC_MIT_COMBINE) {
            rank[i] = nleaves;
            leaf[nleaves++] = i;
        }
    all = nleaves <= AC_SEARCH_SUBSETS_MAX;
    if (rc == 0 && only == AC_NONE)
        rc = leaf_masks(m, rank, mask, err);
    for (size_t i = 0; rc == 0 && only == AC_NONE && i < n; i++)
        if (m->mitigations[i].kind == AC_MIT_COMBINE)
            decl[ndecl++] = mask[i];
    cap = only != AC_NONE || nleaves < 2 || !combinations
              ? 0
              : (all ? ((size_t)1 << nleaves)
                     : (nleaves > PAIRS_LEAVES_MAX ? PAIRS_LEAVES_MAX : nleaves) * nleaves / 2);
    comb = calloc(cap + 1, sizeof *comb);
    if (rc == 0 && comb == NULL)
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    if (rc == 0 && cap > 0)
        ncomb = list_combinations(nleaves, all, decl, ndecl, comb, cap);
    nv = 1 + (only == AC_NONE ? n : 1) + ncomb;
    if (rc == 0 && (st->variants = calloc(nv, sizeof *st->variants)) == NULL)
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (study)");
    if (rc == 0) {
        st->nvariants = nv;
        st->all_subsets = only == AC_NONE && all;
        snprintf(st->scope, sizeof st->scope, "%s",
                 only != AC_NONE ? "one mitigation"
                 : !combinations ? "every declared mitigation (no other combination)"
                 : all           ? "every combination of the simple mitigations (at most "
                                   "AC_SEARCH_SUBSETS_MAX = 4 of them) and every declared mitigation"
                       : "more than 4 simple mitigations: every declared mitigation and every "
                         "pair, not every combination");
        for (size_t i = 0; i < nv; i++) {
            ac_search_variant *v = &st->variants[i];
            v->gain = v->gain_against = v->worst_score = NAN;
            v->mitigation = AC_NONE;
            if (i == 0)
                continue;
            if (i <= nv - 1 - ncomb) {
                v->mitigation = only != AC_NONE ? only : i - 1;
                snprintf(v->id, sizeof v->id, "%s", m->mitigations[v->mitigation].id);
            } else
                combination_variant(m, comb[i - (nv - ncomb)], leaf, v);
        }
    }
    free(rank);
    free(leaf);
    free(mask);
    free(decl);
    free(comb);
    return rc;
}

int ac_search_variant_model(const ac_model *m, const ac_search_variant *v, ac_model **out,
                            ac_error *err)
{
    char note[256];
    int rc = ac_model_clone(m, out, err);
    if (rc == 0 && v->mitigation != AC_NONE)
        rc = ac_model_apply_mitigation(*out, v->mitigation, note, sizeof note, err);
    for (size_t k = 0; rc == 0 && v->mitigation == AC_NONE && k < v->nparts; k++)
        rc = ac_model_apply_mitigation(*out, v->parts[k], note, sizeof note, err);
    if (rc != 0) {
        ac_model_free(*out);
        *out = NULL;
    }
    return rc;
}
