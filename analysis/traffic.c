/*
 * The traffic equations of an open network (models.md §4):
 *
 *     Lambda = gamma + R^T (Lambda .* pass)
 *
 * with R_ij = p * fanout / fanin summed over the routes i -> j (parallel routes
 * included: they add to the others), gamma the source rates and pass_i the
 * fraction of node i's arrivals that it passes downstream (1 without loss).
 * An acyclic network is solved in one sweep in topological order (exact, linear time);
 * one with feedback exactly by LU (GSL) up to AC_AN_DENSE_MAX nodes, above by the sparse
 * iteration Lambda <- gamma + R^T (Lambda .* pass), geometric. A singular system or a negative
 * or non-finite solution means that jobs circulate forever.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "analysis/internal.h"
#include "common/strbuf.h"

#define AC_AN_DENSE_MAX 1500

double *ac_an_routing_matrix(const ac_model *m)
{
    size_t n = m->nnodes;
    double *r;
    if (n > AC_AN_DENSE_MAX)
        return calloc(1, sizeof *r); /* the sparse solver reads the routes: a placeholder */
    r = calloc(n * n > 0 ? n * n : 1, sizeof *r);
    if (r == NULL)
        return NULL;
    for (size_t k = 0; k < m->nroutes; k++) {
        const ac_route *rt = &m->routes[k];
        r[rt->from * n + rt->to] += rt->p * (double)rt->fanout / (double)rt->fanin;
    }
    return r;
}

static void source_rates(const ac_model *m, double scale, double *gamma)
{
    memset(gamma, 0, m->nnodes * sizeof *gamma);
    for (size_t s = 0; s < m->nsources; s++)
        gamma[m->sources[s].to] += scale * m->sources[s].rate;
}

/*
 * Do jobs circulate forever, i.e. is the spectral radius of A = R^T diag(pass) >= 1 (a cycle
 * whose loop gain reaches 1)? Decided by the structure, not by the determinant (the product
 * of the pivots underflows: 200 independent loops of gain 0.99 have det = 0.01^200) nor by
 * the pivots (a fan-out of 1000 makes pivots of 1000 and 1/1000 in a network without any
 * cycle). For A >= 0: rho(A) < 1 if and only if (I - A) x = 1 has a solution x > 0 (then
 * x = sum_k A^k 1, the expected visits; conversely A x = x - 1 < x gives rho(A) < 1 by
 * Collatz-Wielandt). More than 1e15 expected visits of one node count as circulating (a gain
 * of 1 to rounding). `lu` is the LU factorisation of I - A. Returns 1, 0, or -1 when out of
 * memory.
 */
static int circulates(const gsl_matrix *lu, const gsl_permutation *perm, size_t n)
{
    gsl_vector *x = gsl_vector_alloc(n);
    int out = 0;
    if (x == NULL)
        return -1;
    gsl_vector_set_all(x, 1.0);
    if (gsl_linalg_LU_svx(lu, perm, x) != GSL_SUCCESS) {
        out = 1;
    } else {
        for (size_t i = 0; i < n && !out; i++) {
            double v = gsl_vector_get(x, i);
            if (!isfinite(v) || !(v > 0.0) || v > 1e15)
                out = 1;
        }
    }
    gsl_vector_free(x);
    return out;
}

static int solve_dense(const ac_model *m, const double *r, const double *pass, const double *gamma,
                       double *lambda, ac_error *err)
{
    size_t n = m->nnodes;
    gsl_matrix *a = gsl_matrix_alloc(n, n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    gsl_vector_const_view b = gsl_vector_const_view_array(gamma, n);
    gsl_vector_view x = gsl_vector_view_array(lambda, n);
    int signum, rc = AC_OK, st;
    if (a == NULL || perm == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (traffic equations)");
        goto cleanup;
    }
    /* (I - R^T diag(pass)) Lambda = gamma: row j, column i holds -R_ij pass_i */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            gsl_matrix_set(a, j, i,
                           (i == j ? 1.0 : 0.0) - r[i * n + j] * (pass != NULL ? pass[i] : 1.0));
    st = gsl_linalg_LU_decomp(a, perm, &signum);
    if (st == GSL_SUCCESS) {
        int circ = circulates(a, perm, n);
        if (circ < 0) {
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (traffic equations)");
            goto cleanup;
        }
        if (circ)
            st = GSL_ESING;
    }
    if (st == GSL_SUCCESS)
        st = gsl_linalg_LU_solve(a, perm, &b.vector, &x.vector);
    if (st != GSL_SUCCESS) {
        rc = AC_EINPUT;
        goto cleanup;
    }
cleanup:
    gsl_permutation_free(perm);
    gsl_matrix_free(a);
    return rc;
}

/* Lambda in one sweep in topological order (Kahn, iterative) when the routes are acyclic:
 * exact. Returns 1 when done, 0 when there is a cycle, -1 when out of memory. */
static int solve_acyclic(const ac_model *m, const double *pass, const double *gamma, double *lambda)
{
    size_t n = m->nnodes, head = 0, tail = 0, done = 0;
    size_t *indeg = calloc(n + 1, sizeof *indeg), *queue = malloc((n + 1) * sizeof *queue);
    size_t *start = calloc(n + 2, sizeof *start), *out = malloc((m->nroutes + 1) * sizeof *out);
    int rc = -1;
    if (indeg == NULL || queue == NULL || start == NULL || out == NULL)
        goto cleanup;
    for (size_t k = 0; k < m->nroutes; k++) {
        indeg[m->routes[k].to]++;
        start[m->routes[k].from + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    {
        size_t *fill = queue; /* scratch: the next free slot of each node's out-list */
        memcpy(fill, start, n * sizeof *fill);
        for (size_t k = 0; k < m->nroutes; k++)
            out[fill[m->routes[k].from]++] = k;
    }
    memcpy(lambda, gamma, n * sizeof *lambda);
    for (size_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            queue[tail++] = i;
    while (head < tail) {
        size_t u = queue[head++];
        done++;
        for (size_t q = start[u]; q < start[u + 1]; q++) {
            const ac_route *rt = &m->routes[out[q]];
            lambda[rt->to] += lambda[u] * (pass != NULL ? pass[u] : 1.0) * rt->p *
                              (double)rt->fanout / (double)rt->fanin;
            if (--indeg[rt->to] == 0)
                queue[tail++] = rt->to;
        }
    }
    rc = done == n;
cleanup:
    free(indeg);
    free(queue);
    free(start);
    free(out);
    return rc;
}

static int solve_sparse(const ac_model *m, const double *pass, const double *gamma, double *lambda,
                        ac_error *err)
{
    size_t n = m->nnodes;
    double *next = malloc(n * sizeof *next);
    double total = 0.0;
    int rc = AC_ENUMERIC;
    if (next == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (traffic equations)");
    for (size_t i = 0; i < n; i++)
        total += gamma[i];
    memcpy(lambda, gamma, n * sizeof *lambda);
    for (size_t it = 0; it < 1000000; it++) {
        double change = 0.0, sum = 0.0;
        memcpy(next, gamma, n * sizeof *next);
        for (size_t k = 0; k < m->nroutes; k++) {
            const ac_route *rt = &m->routes[k];
            next[rt->to] += lambda[rt->from] * (pass != NULL ? pass[rt->from] : 1.0) * rt->p *
                            (double)rt->fanout / (double)rt->fanin;
        }
        for (size_t i = 0; i < n; i++) {
            change = fmax(change, fabs(next[i] - lambda[i]));
            sum += next[i];
        }
        memcpy(lambda, next, n * sizeof *lambda);
        if (!isfinite(sum) || sum > 1e15 * (total + 1.0)) {
            rc = AC_EINPUT;
            break;
        }
        if (change <= 1e-13 * (sum + 1e-300)) {
            rc = AC_OK;
            break;
        }
    }
    if (rc == AC_ENUMERIC)
        ac_error_set(err, rc, "the traffic equations did not converge");
    free(next);
    return rc;
}

int ac_an_traffic_solve(const ac_model *m, const double *r, const double *pass, double scale,
                        double *lambda, ac_error *err)
{
    size_t n = m->nnodes;
    double *gamma;
    double total = 0.0;
    int rc;
    if (n == 0) /* the parser refuses such a model (AC031); a library caller may not have */
        return ac_error_set(err, AC_EINVAL,
                            "the model has no nodes: there are no traffic equations to solve");
    gamma = malloc(n * sizeof *gamma);
    if (gamma == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (traffic equations)");
    source_rates(m, scale, gamma);
    for (size_t i = 0; i < n; i++)
        total += gamma[i];
    /* an acyclic network in one sweep in topological order (exact, O(nodes + routes)); with
       feedback LU up to AC_AN_DENSE_MAX nodes, the sparse iteration above */
    switch (solve_acyclic(m, pass, gamma, lambda)) {
    case 1: rc = AC_OK; break;
    case -1: rc = ac_error_set(err, AC_ENOMEM, "out of memory (traffic equations)"); break;
    default:
        rc = n <= AC_AN_DENSE_MAX ? solve_dense(m, r, pass, gamma, lambda, err)
                                  : solve_sparse(m, pass, gamma, lambda, err);
        break;
    }
    if (rc == AC_OK) {
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(lambda[i]) || lambda[i] < -1e-9 * (total + 1.0)) {
                rc = AC_EINPUT;
                break;
            }
            if (lambda[i] < 0.0)
                lambda[i] = 0.0;
        }
    }
    free(gamma);
    return rc;
}

int ac_an_visit_ratios(const ac_model *m, size_t to, double *v, double *scratch)
{
    size_t n = m->nnodes;
    memset(v, 0, n * sizeof *v);
    for (int it = 0; it < 100000; it++) {
        double change = 0.0;
        memset(scratch, 0, n * sizeof *scratch);
        scratch[to] = 1.0;
        for (size_t k = 0; k < m->nroutes; k++) {
            const ac_route *rt = &m->routes[k];
            scratch[rt->to] += v[rt->from] * rt->p * (double)rt->fanout / (double)rt->fanin;
        }
        for (size_t i = 0; i < n; i++) {
            change = fmax(change, fabs(scratch[i] - v[i]));
            v[i] = scratch[i];
        }
        if (change < 1e-14)
            break;
        if (!isfinite(change) || change > 1e12)
            return AC_EINPUT;
    }
    return AC_OK;
}

/* What check finds of the routing before any node is solved, so that lint refuses the same
 * files: the traffic equations at the sources' rates without loss (check's first iteration),
 * and the visit ratios of a single closed population (as ac_an_closed_solve computes them). */
int ac_analysis_check_routing(const ac_model *m, ac_diag_list *findings, ac_error *err)
{
    size_t n = m->nnodes;
    double *r = NULL, *lambda = NULL, *scratch = NULL;
    int rc;
    if (n == 0)
        return AC_OK; /* the parser refuses it (AC031) */
    r = ac_an_routing_matrix(m);
    lambda = calloc(n, sizeof *lambda);
    scratch = calloc(n, sizeof *scratch);
    if (r == NULL || lambda == NULL || scratch == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (traffic equations)");
        goto cleanup;
    }
    rc = ac_an_traffic_solve(m, r, NULL, 1.0, lambda, err);
    if (rc == AC_OK && m->nsources == 0 && m->npopulations == 1)
        rc = ac_an_visit_ratios(m, m->populations[0].to, lambda, scratch);
    if (rc == AC_EINPUT)
        ac_an_report_cycle(m, findings);
cleanup:
    free(r);
    free(lambda);
    free(scratch);
    return rc;
}

/* Routes on a cycle: route i -> j with j reaching i. */
void ac_an_report_cycle(const ac_model *m, ac_diag_list *findings)
{
    size_t n = m->nnodes;
    unsigned char *seen = malloc(n > 0 ? n : 1);
    size_t *stack = malloc((n > 0 ? n : 1) * sizeof *stack);
    ac_strbuf detail = {0};
    size_t first = AC_NONE;
    if (seen == NULL || stack == NULL)
        goto cleanup;
    for (size_t k = 0; k < m->nroutes; k++) {
        const ac_route *rt = &m->routes[k];
        size_t top = 0;
        int cyc = 0;
        memset(seen, 0, n);
        stack[top++] = rt->to;
        seen[rt->to] = 1;
        while (top > 0 && !cyc) {
            size_t u = stack[--top];
            if (u == rt->from) {
                cyc = 1;
                break;
            }
            for (size_t q = 0; q < m->nroutes; q++)
                if (m->routes[q].from == u && !seen[m->routes[q].to]) {
                    seen[m->routes[q].to] = 1;
                    stack[top++] = m->routes[q].to;
                }
        }
        if (!cyc)
            continue;
        if (first == AC_NONE)
            first = k;
        ac_strbuf_printf(&detail,
                         "%sline %u: route from '%s' to '%s' (p=%g, fanout %zu, fanin %zu)",
                         detail.len ? "\n" : "", rt->loc.line, m->nodes[rt->from].id,
                         m->nodes[rt->to].id, rt->p, rt->fanout, rt->fanin);
    }
    if (first != AC_NONE) {
        const ac_route *rt = &m->routes[first];
        if (ac_diag_add(findings, "AC032", m->file, rt->loc.line, rt->loc.column,
                        m->nodes[rt->from].id,
                        "jobs circulate forever: the traffic equations have no finite solution "
                        "(the routes below form a cycle that returns every job)") == AC_OK &&
            detail.data != NULL)
            ac_diag_set_detail(findings, detail.data);
    } else {
        ac_diag_add(findings, "AC032", m->file, m->loc.line, m->loc.column, NULL,
                    "the traffic equations have no finite solution");
    }
cleanup:
    ac_strbuf_free(&detail);
    free(seen);
    free(stack);
}
