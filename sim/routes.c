/*
 * The model's graph for the simulator: routes and links grouped by node in compressed sparse
 * rows (CSR), the check for cycles of instantaneous routes, and the compiled routes of each
 * node. Everything here is O(nodes + routes + links): no n x n table and no scan of every
 * route per node, so that a network of 10^5 nodes is set up as fast as it simulates.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/internal.h"

static size_t route_from(const ac_model *m, size_t k)
{
    return m->routes[k].from;
}

static size_t route_to(const ac_model *m, size_t k)
{
    return m->routes[k].to;
}

static size_t link_from(const ac_model *m, size_t k)
{
    return m->links[k].from;
}

/* Items 0..n-1 grouped by row key(m, k) < nrows, each row in index order (a counting sort).
 * 0 or AC_ENOMEM. */
static int csr_build(const ac_model *m, size_t nrows, size_t n,
                     size_t (*key)(const ac_model *, size_t), ac_sim_csr *out)
{
    size_t *fill;
    out->start = calloc(nrows + 1, sizeof *out->start);
    out->idx = malloc((n ? n : 1) * sizeof *out->idx);
    fill = malloc((nrows ? nrows : 1) * sizeof *fill);
    if (out->start == NULL || out->idx == NULL || fill == NULL) {
        free(fill);
        ac_sim_csr_free(out);
        return AC_ENOMEM;
    }
    for (size_t k = 0; k < n; k++)
        out->start[key(m, k) + 1]++;
    for (size_t i = 0; i < nrows; i++) {
        out->start[i + 1] += out->start[i];
        fill[i] = out->start[i];
    }
    for (size_t k = 0; k < n; k++)
        out->idx[fill[key(m, k)]++] = k;
    free(fill);
    return 0;
}

int ac_sim_graph_new(const ac_model *m, ac_sim_graph *out)
{
    out->from.start = out->from.idx = NULL;
    out->to.start = out->to.idx = NULL;
    out->links.start = out->links.idx = NULL;
    if (csr_build(m, m->nnodes, m->nroutes, route_from, &out->from) != 0 ||
        csr_build(m, m->nnodes, m->nroutes, route_to, &out->to) != 0 ||
        csr_build(m, m->nnodes, m->nlinks, link_from, &out->links) != 0) {
        ac_sim_graph_free(out);
        return AC_ENOMEM;
    }
    return 0;
}

void ac_sim_csr_free(ac_sim_csr *c)
{
    free(c->start);
    free(c->idx);
    c->start = c->idx = NULL;
}

void ac_sim_graph_free(ac_sim_graph *g)
{
    if (g == NULL)
        return;
    ac_sim_csr_free(&g->from);
    ac_sim_csr_free(&g->to);
    ac_sim_csr_free(&g->links);
}

size_t ac_sim_graph_link(const ac_model *m, const ac_sim_graph *g, size_t from, size_t to)
{
    for (size_t k = g->links.start[from]; k < g->links.start[from + 1]; k++)
        if (m->links[g->links.idx[k]].to == to)
            return g->links.idx[k];
    return AC_NONE;
}

/* Does route r pass a job on in no time? Out of a gateway (admission is instantaneous), or
 * out of a queue to a node that is not a function (a hand-off), through no link or a link
 * of unbounded capacity and no latency. */
static int route_instant(const ac_model *m, const ac_sim_graph *g, const ac_route *r)
{
    ac_node_kind from = m->nodes[r->from].kind;
    size_t l;
    if (!r->parallel && !(r->p > 0))
        return 0;
    if (from != AC_NODE_GATEWAY &&
        !(from == AC_NODE_QUEUE && m->nodes[r->to].kind != AC_NODE_FUNCTION))
        return 0;
    l = ac_sim_graph_link(m, g, r->from, r->to);
    if (l != AC_NONE)
        return !isfinite(m->links[l].capacity) && !(m->links[l].latency > 0);
    return 1;
}

/* A cycle of instantaneous routes would pass a job around forever at one instant: the node
 * on one, or AC_NONE. Depth-first search with colours (0 new, 1 on the path, 2 done) and
 * an explicit stack of (node, next position in its row of g->from). 0 or AC_ENOMEM in *rc. */
size_t ac_sim_instant_cycle(const ac_model *m, const ac_sim_graph *g, int *rc)
{
    unsigned char *colour = calloc(m->nnodes ? m->nnodes : 1, 1);
    size_t *stack = malloc((m->nnodes ? m->nnodes : 1) * 2 * sizeof *stack), found = AC_NONE;
    *rc = 0;
    if (colour == NULL || stack == NULL) {
        *rc = AC_ENOMEM;
        goto cleanup;
    }
    for (size_t root = 0; root < m->nnodes && found == AC_NONE; root++) {
        size_t top;
        if (colour[root] != 0)
            continue;
        colour[root] = 1;
        stack[0] = root;
        stack[1] = g->from.start[root];
        top = 1;
        while (top > 0 && found == AC_NONE) {
            size_t u = stack[2 * (top - 1)], *k = &stack[2 * (top - 1) + 1];
            size_t end = g->from.start[u + 1];
            while (*k < end && !route_instant(m, g, &m->routes[g->from.idx[*k]]))
                (*k)++;
            if (*k == end) {
                colour[u] = 2;
                top--;
                continue;
            }
            {
                size_t v = m->routes[g->from.idx[(*k)++]].to;
                if (colour[v] == 1)
                    found = v;
                else if (colour[v] == 0) {
                    colour[v] = 1;
                    stack[2 * top] = v;
                    stack[2 * top + 1] = g->from.start[v];
                    top++;
                }
            }
        }
    }
cleanup:
    free(colour);
    free(stack);
    return found;
}

/* Node n's parallel routes and its choice routes (p > 0, cumulative p), in route order;
 * whether its one choice route is sure (n->sure), and its only route when a job goes on
 * along it as itself (n->cont: sure, fan-out and fan-in 1). */
static int node_routes(ac_sim_state *s, ac_sim_node *n, size_t i)
{
    const ac_model *m = s->model;
    const ac_sim_csr *rows = &s->graph.from;
    size_t np = 0, nc = 0;
    double cum = 0;
    for (size_t q = rows->start[i]; q < rows->start[i + 1]; q++) {
        const ac_route *r = &m->routes[rows->idx[q]];
        if (r->parallel)
            np++;
        else if (r->p > 0)
            nc++;
    }
    if (np > 0 && (n->par = malloc(np * sizeof *n->par)) == NULL)
        return AC_ENOMEM;
    if (nc > 0 && ((n->choice = malloc(nc * sizeof *n->choice)) == NULL ||
                   (n->cum = malloc(nc * sizeof *n->cum)) == NULL))
        return AC_ENOMEM;
    for (size_t q = rows->start[i]; q < rows->start[i + 1]; q++) {
        size_t k = rows->idx[q];
        const ac_route *r = &m->routes[k];
        if (r->parallel) {
            n->par[n->npar++] = (uint32_t)k;
        } else if (r->p > 0) {
            cum += r->p;
            n->choice[n->nchoice] = (uint32_t)k;
            n->cum[n->nchoice++] = cum;
        }
    }
    n->sure = nc == 1 && n->cum[0] >= 1.0;
    if (np + nc == 1 && (np == 1 || n->sure)) {
        uint32_t k = np == 1 ? n->par[0] : n->choice[0];
        if (s->routes[k].fanout == 1 && s->routes[k].fanin == 1)
            n->cont = k;
    }
    return 0;
}

int ac_sim_routes_compile(ac_sim_state *s)
{
    const ac_model *m = s->model;
    s->nroutes = m->nroutes;
    if (m->nroutes > 0) {
        s->routes = calloc(m->nroutes, sizeof *s->routes);
        if (s->routes == NULL)
            return AC_ENOMEM;
    }
    for (size_t i = 0; i < m->nroutes; i++) {
        const ac_route *r = &m->routes[i];
        ac_sim_route *cr = &s->routes[i];
        size_t l = ac_sim_graph_link(m, &s->graph, r->from, r->to);
        cr->to = (uint32_t)r->to;
        cr->via = l != AC_NONE ? (uint32_t)(s->nmodel_nodes + l) : AC_SIM_NIL;
        cr->fanout = (uint32_t)r->fanout;
        cr->fanin = (uint32_t)r->fanin;
        cr->join = AC_SIM_NIL;
        if (r->fanin > 1)
            cr->join = (uint32_t)s->njoin++;
    }
    if (s->njoin > 0) {
        s->batch = calloc(s->njoin, sizeof *s->batch);
        if (s->batch == NULL)
            return AC_ENOMEM;
    }
    for (size_t i = 0; i < s->nmodel_nodes; i++) {
        int rc = node_routes(s, &s->nodes[i], i);
        if (rc != 0)
            return rc;
    }
    return 0;
}
