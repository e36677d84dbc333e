/*
 * End-to-end lattice: pairs that compute the same law (models.md §4). Two (node, mode) pairs
 * of the walk whose nodes have the same response-time law, the same loss, and whose routes
 * lead, with the same probabilities in the same order, to pairs that are themselves the same,
 * compute bit for bit the same law on every lattice: the walk computes one of them (the
 * representative, c->rep) and reads it for all. A tree of identical stages whose siblings see
 * the same load collapses to a few pairs per level. The sharing is exact (no error is added).
 *
 * Node laws are compared exactly: a pool's law is its response-time mixture (rate, Erlang
 * tail weights, or the closed M/M/N parameters), compared value for value; any other node
 * (a function, queue, gateway, a batch or QNA law, a closed network's station), a route with
 * a link, a fan-out, a fan-in or a parallel branch keeps its pair to itself.
 *
 * Signatures are interned in an open-addressing table, in the walk's order (each pair after
 * the pairs it reads, so their representatives are known). Work: O(pairs + routes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/e2e_internal.h"
#include "archcheck/solver.h"

/* FNV-1a over 64-bit words. */
static uint64_t hash_words(const uint64_t *w, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= w[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static uint64_t bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* 1 when node i's law is its pool's response-time mixture alone (at the operating
 * equilibrium: compared with ac_solver_pool_law_equal), else 0. */
static int pool_law(const ac_model *m, const ac_node_analysis *na, size_t i)
{
    const ac_solver_pool_result *pr = na->pool;
    return m->nodes[i].kind == AC_NODE_POOL && pr != NULL && ac_node_analysis_has_law(na) &&
           na->batch == NULL && na->arrival_queue == NULL && !ac_an_e2e_qna_law(na) &&
           na->function == NULL && na->queue == NULL && na->gateway == NULL &&
           pr->operating < pr->nequilibria && pr->equilibria[pr->operating].rtd != NULL;
}

static int law_equal(const ac_node_analysis *a, const ac_node_analysis *b)
{
    return ac_solver_pool_law_equal(a->pool, a->pool->operating, b->pool, b->pool->operating);
}

/* cls[i] := the first node with node i's law (i itself when shared by none or not shareable).
 * Returns 0 or -1 (out of memory). */
static int node_classes(const ac_an_e2e_ctx *c, size_t *cls)
{
    const size_t n = c->m->nnodes;
    size_t cap = 16;
    size_t *tab;
    while (cap < 2 * n)
        cap *= 2;
    tab = malloc(cap * sizeof *tab);
    if (tab == NULL)
        return -1;
    for (size_t k = 0; k < cap; k++)
        tab[k] = AC_NONE;
    for (size_t i = 0; i < n; i++) {
        const ac_node_analysis *na = &c->a->nodes[i];
        size_t at;
        cls[i] = i;
        if (!pool_law(c->m, na, i))
            continue;
        at = (size_t)(ac_solver_pool_law_hash(na->pool, na->pool->operating) & (cap - 1));
        for (; tab[at] != AC_NONE; at = (at + 1) & (cap - 1))
            if (law_equal(na, &c->a->nodes[tab[at]]))
                break;
        if (tab[at] == AC_NONE)
            tab[at] = i;
        cls[i] = tab[at];
    }
    free(tab);
    return 0;
}

/* Pair x's signature into w (at most 5 + 3 routes words); 0 when the pair keeps to itself. */
static size_t pair_signature(const ac_an_e2e_ctx *c, const size_t *ncls, size_t x, uint64_t *w)
{
    const size_t n = x / WALK_MODES, mode = x % WALK_MODES;
    const ac_model *m = c->m;
    const ac_node *nd = &m->nodes[n];
    const ac_node_analysis *na = &c->a->nodes[n];
    size_t k = 0;
    if (mode == WALK_SYNC && (nd->kind == AC_NODE_QUEUE ||
                              (nd->kind == AC_NODE_FUNCTION &&
                               nd->u.function.invocation == AC_INVOCATION_ASYNC && !na->polled))) {
        w[k++] = 1; /* answered at once: the same law everywhere */
        return k;
    }
    if (ncls[n] == n && !pool_law(m, na, n))
        return 0;
    w[k++] = 2;
    w[k++] = (uint64_t)ncls[n];
    w[k++] = (uint64_t)mode;
    w[k++] = bits(na->polled ? 0.0 : na->loss_probability);
    w[k++] = (uint64_t)(c->rstart[n + 1] - c->rstart[n]);
    for (size_t q = c->rstart[n]; q < c->rstart[n + 1]; q++) {
        const ac_route *r = &m->routes[c->ridx[q]];
        if (r->parallel || r->fanout > 1 || r->fanin > 1)
            return 0;
        for (size_t l = 0; l < m->nlinks; l++)
            if (m->links[l].from == r->from && m->links[l].to == r->to)
                return 0;
        w[k++] = bits(r->p);
        w[k++] = (uint64_t)c->rep[r->to * WALK_MODES + mode];
        w[k++] = 0;
    }
    return k;
}

static int sig_equal(const uint64_t *sig, const size_t *off, size_t a, size_t b)
{
    size_t na = off[a + 1] - off[a], nb = off[b + 1] - off[b];
    return na == nb && memcmp(sig + off[a], sig + off[b], na * sizeof *sig) == 0;
}

/* c->rep over the pairs of c->order (set to themselves first). Returns 0 or -1 (c->oom). */
int ac_an_e2e_share(ac_an_e2e_ctx *c)
{
    const ac_model *m = c->m;
    size_t cap = 16, total = 0, *ncls = NULL, *off = NULL, *tab = NULL;
    uint64_t *sig = NULL;
    int rc = -1;
    for (size_t x = 0; x < c->npairs; x++)
        c->rep[x] = x;
    ncls = malloc((m->nnodes + 1) * sizeof *ncls);
    off = malloc((c->norder + 1) * sizeof *off);
    for (size_t k = 0; k < c->norder; k++) {
        size_t n = c->order[k] / WALK_MODES;
        total += 5 + 3 * (c->rstart[n + 1] - c->rstart[n]);
    }
    sig = malloc((total + 1) * sizeof *sig);
    while (cap < 2 * c->norder)
        cap *= 2;
    tab = malloc(cap * sizeof *tab);
    if (ncls == NULL || off == NULL || sig == NULL || tab == NULL || node_classes(c, ncls) != 0)
        goto cleanup;
    for (size_t k = 0; k < cap; k++)
        tab[k] = AC_NONE;
    off[0] = 0;
    for (size_t k = 0; k < c->norder; k++) {
        size_t x = c->order[k], len = pair_signature(c, ncls, x, sig + off[k]), at;
        off[k + 1] = off[k] + len;
        if (len == 0)
            continue;
        for (at = (size_t)(hash_words(sig + off[k], len) & (cap - 1)); tab[at] != AC_NONE;
             at = (at + 1) & (cap - 1))
            if (sig_equal(sig, off, tab[at], k))
                break;
        if (tab[at] == AC_NONE)
            tab[at] = k;
        c->rep[x] = c->order[tab[at]];
    }
    rc = 0;
cleanup:
    if (rc != 0)
        c->oom = 1;
    free(ncls);
    free(off);
    free(sig);
    free(tab);
    return rc;
}
