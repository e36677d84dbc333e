/*
 * The numeric LU refactorisation of the transient's iteration matrices (transient_lu.h).
 *
 * Why not klu_refactor alone (callgrind, bench_transient --count 40, serverless-pipeline's
 * 73 states, 509 entries, 40 diagonal blocks of which 3 of 11 to 13 rows): SUNDIALS' KLU
 * interface already refactorises (klu_l_refactor in KLU's pivot order, its rcond test),
 * but on a matrix this small KLU's per-call work dominates: 35,000 instructions per
 * refactorisation (its row scaling klu_l_scale a third of it) and 9,000 per solve for
 * ~700 multiply-adds of factors, 2.0e9 of 4.2e9 instructions over 40 evaluations. KLU
 * still analyses the pattern and chooses the pivots (klu_l_analyze, klu_l_factor); this
 * redoes the numbers in its order and solves with them.
 *
 * B = A(prow, qcol) is block upper triangular with diagonal blocks that need no pivoting in
 * that order, so its LU without pivoting keeps L inside the diagonal blocks and U's part
 * outside them is B's own: a plain row-wise (IKJ) elimination over the fill pattern of B
 * does the blocks' LUs and leaves the off-diagonal blocks alone. Row i of B, scattered into
 * a dense row w:  for k < i in the row's pattern, in increasing order:
 *     l_ik = w_k / u_kk;  if l_ik != 0: w_j -= l_ik u_kj for j > k in U's row k;
 * then U's row i is w on its pattern. A zero multiplier (common: the fluid mins put many
 * Jacobian entries at 0 on their current branch) skips its row update.
 *
 * The factors are kept packed, their nonzero entries only (lz*, uz*: on faas-cascade's 73
 * states, 75% of L's pattern and 82% of U's are exactly 0 at a typical factorisation), and
 * both the row updates above and the solves run over the packed rows. Skipping a zero
 * u_kj or l_ik drops a subtraction of an exact +-0 (the factors are finite when factor
 * succeeds): every other term comes in the same order, so the values are the same bits,
 * up to the sign of an exact zero. Callgrind, `archcheck search --budget 40` on
 * samples/faas-cascade.xml: 5,260 instructions per solve and 14,600 per factorisation
 * before.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/error.h"
#include "solver/transient_lu.h"

struct ac_solver_tr_lu {
    size_t n;
    int ordered;
    /* B's rows: entries bptr[i] .. bptr[i+1]-1, each A's value index bsrc[] at column bcol[] */
    size_t *bptr, *bsrc, *bcol, bcap, bcap2;
    /* L's pattern's rows (strictly lower, increasing columns) and U's (strictly upper) */
    size_t *lptr, *lcol, *uptr, *ucol, lcap, ucap;
    /* the factors' nonzero entries on those rows (same order), room lzcap, uzcap */
    size_t *lzptr, *lzcol, *uzptr, *uzcol, lzcap, uzcap;
    double *lzval, *uzval, *udinv; /* ... and 1 / u_ii */
    /* rows without L entries (U's row is B's): each U entry's value index in A (umap, room
       umapcap), the diagonal's (dsrc; SIZE_MAX: none) */
    size_t *umap, umapcap, *dsrc;
    size_t *prow, *qcol; /* the order */
    size_t *qinv;        /* B's column of each of A's columns */
    double *w;           /* a dense row (n), zero between rows */
    double *c;           /* the solve's vector (n) */
    unsigned char *mark; /* the symbolic's marks (n) */
};

void ac_solver_tr_lu_free(ac_solver_tr_lu *lu)
{
    if (lu == NULL)
        return;
    free(lu->bptr), free(lu->bsrc), free(lu->bcol);
    free(lu->lptr), free(lu->lcol), free(lu->uptr), free(lu->ucol);
    free(lu->lzptr), free(lu->lzcol), free(lu->uzptr), free(lu->uzcol);
    free(lu->lzval), free(lu->uzval), free(lu->udinv);
    free(lu->umap), free(lu->dsrc);
    free(lu->prow), free(lu->qcol), free(lu->qinv);
    free(lu->w), free(lu->c), free(lu->mark);
    free(lu);
}

ac_solver_tr_lu *ac_solver_tr_lu_new(size_t n)
{
    ac_solver_tr_lu *lu = calloc(1, sizeof *lu);
    if (lu == NULL)
        return NULL;
    lu->n = n;
    lu->bptr = calloc(n + 1, sizeof *lu->bptr);
    lu->lptr = calloc(n + 1, sizeof *lu->lptr);
    lu->uptr = calloc(n + 1, sizeof *lu->uptr);
    lu->lzptr = calloc(n + 1, sizeof *lu->lzptr);
    lu->uzptr = calloc(n + 1, sizeof *lu->uzptr);
    lu->dsrc = calloc(n + 1, sizeof *lu->dsrc);
    lu->udinv = calloc(n + 1, sizeof *lu->udinv);
    lu->prow = calloc(n + 1, sizeof *lu->prow);
    lu->qcol = calloc(n + 1, sizeof *lu->qcol);
    lu->qinv = calloc(n + 1, sizeof *lu->qinv);
    lu->w = calloc(n + 1, sizeof *lu->w);
    lu->c = calloc(n + 1, sizeof *lu->c);
    lu->mark = calloc(n + 1, 1);
    if (lu->bptr == NULL || lu->lptr == NULL || lu->uptr == NULL || lu->lzptr == NULL ||
        lu->uzptr == NULL || lu->dsrc == NULL || lu->udinv == NULL || lu->prow == NULL ||
        lu->qcol == NULL || lu->qinv == NULL || lu->w == NULL || lu->c == NULL ||
        lu->mark == NULL) {
        ac_solver_tr_lu_free(lu);
        return NULL;
    }
    return lu;
}

/* Room for cap index/value pairs in (*idx, *val) (val NULL: indices only). */
static int lu_room(size_t **idx, double **val, size_t *have, size_t cap)
{
    size_t *ni;
    if (cap <= *have)
        return 0;
    cap += cap / 2 + 16;
    ni = realloc(*idx, cap * sizeof *ni);
    if (ni == NULL)
        return AC_ENOMEM;
    *idx = ni;
    if (val != NULL) {
        double *nv = realloc(*val, cap * sizeof *nv);
        if (nv == NULL)
            return AC_ENOMEM;
        *val = nv;
    }
    *have = cap;
    return 0;
}

/* The order's permutations (checked) and B's rows from A's columns. */
static int lu_rows(ac_solver_tr_lu *lu, const int64_t *Ap, const int64_t *Ai, const int64_t *prow,
                   const int64_t *qcol)
{
    size_t n = lu->n, nnz, *pinv = lu->uptr; /* scratch until the symbolic */
    int rc;
    memset(lu->mark, 0, n);
    for (size_t k = 0; k < n; k++) { /* qcol a permutation */
        if (qcol[k] < 0 || (size_t)qcol[k] >= n || lu->mark[qcol[k]])
            return AC_EINVAL;
        lu->mark[qcol[k]] = 1;
        lu->qcol[k] = (size_t)qcol[k];
        lu->qinv[qcol[k]] = k;
    }
    memset(lu->mark, 0, n);
    for (size_t k = 0; k < n; k++) { /* prow a permutation */
        if (prow[k] < 0 || (size_t)prow[k] >= n || lu->mark[prow[k]])
            return AC_EINVAL;
        lu->mark[prow[k]] = 1;
        lu->prow[k] = (size_t)prow[k];
        pinv[prow[k]] = k;
    }
    if (Ap[0] != 0 || Ap[n] < 0)
        return AC_EINVAL;
    nnz = (size_t)Ap[n];
    if ((rc = lu_room(&lu->bsrc, NULL, &lu->bcap, nnz)) != 0 ||
        (rc = lu_room(&lu->bcol, NULL, &lu->bcap2, lu->bcap)) != 0)
        return rc;
    memset(lu->bptr, 0, (n + 1) * sizeof *lu->bptr);
    for (size_t j = 0; j < n; j++) { /* counts per row of B */
        if (Ap[j + 1] < Ap[j] || (size_t)Ap[j + 1] > nnz)
            return AC_EINVAL;
        for (int64_t p = Ap[j]; p < Ap[j + 1]; p++) {
            if (Ai[p] < 0 || (size_t)Ai[p] >= n)
                return AC_EINVAL;
            lu->bptr[pinv[Ai[p]] + 1]++;
        }
    }
    for (size_t i = 0; i < n; i++)
        lu->bptr[i + 1] += lu->bptr[i];
    for (size_t j = 0; j < n; j++)
        for (int64_t p = Ap[j]; p < Ap[j + 1]; p++) {
            size_t i = pinv[Ai[p]], at = lu->bptr[i]++;
            lu->bsrc[at] = (size_t)p;
            lu->bcol[at] = lu->qinv[j];
        }
    for (size_t i = n; i > 0; i--)
        lu->bptr[i] = lu->bptr[i - 1];
    lu->bptr[0] = 0;
    return 0;
}

/* The fill of row i: B's pattern, then U's row k for each marked k < i in increasing order;
 * appended to L's and U's rows (the diagonal is always in the pattern). */
static int lu_symbolic_row(ac_solver_tr_lu *lu, size_t i)
{
    size_t n = lu->n, nl = lu->lptr[i], nu = lu->uptr[i];
    unsigned char *mark = lu->mark;
    int rc;
    for (size_t p = lu->bptr[i]; p < lu->bptr[i + 1]; p++)
        mark[lu->bcol[p]] = 1;
    for (size_t k = 0; k < i; k++)
        if (mark[k])
            for (size_t q = lu->uptr[k]; q < lu->uptr[k + 1]; q++)
                mark[lu->ucol[q]] = 1;
    for (size_t k = 0; k < n; k++) {
        if (!mark[k] || k == i)
            continue;
        if (k < i) {
            if ((rc = lu_room(&lu->lcol, NULL, &lu->lcap, nl + 1)) != 0)
                return rc;
            lu->lcol[nl++] = k;
        } else {
            if ((rc = lu_room(&lu->ucol, NULL, &lu->ucap, nu + 1)) != 0)
                return rc;
            lu->ucol[nu++] = k;
        }
    }
    memset(mark, 0, n);
    lu->lptr[i + 1] = nl;
    lu->uptr[i + 1] = nu;
    return 0;
}

/* For each row without L entries: the value index in A of each of U's entries and of the
 * diagonal (pos: n scratch indices). */
static void lu_direct_map(ac_solver_tr_lu *lu, size_t *pos)
{
    for (size_t i = 0; i < lu->n; i++) {
        if (lu->lptr[i + 1] != lu->lptr[i])
            continue;
        lu->dsrc[i] = SIZE_MAX;
        for (size_t p = lu->bptr[i]; p < lu->bptr[i + 1]; p++) {
            pos[lu->bcol[p]] = lu->bsrc[p];
            if (lu->bcol[p] == i)
                lu->dsrc[i] = lu->bsrc[p];
        }
        for (size_t q = lu->uptr[i]; q < lu->uptr[i + 1]; q++)
            lu->umap[q] = pos[lu->ucol[q]];
    }
}

int ac_solver_tr_lu_order(ac_solver_tr_lu *lu, const int64_t *Ap, const int64_t *Ai,
                          const int64_t *prow, const int64_t *qcol)
{
    int rc;
    if (lu == NULL || Ap == NULL || Ai == NULL || prow == NULL || qcol == NULL)
        return AC_EINVAL;
    lu->ordered = 0;
    memset(lu->w, 0, lu->n * sizeof *lu->w);
    rc = lu_rows(lu, Ap, Ai, prow, qcol);
    if (rc != 0)
        return rc;
    memset(lu->mark, 0, lu->n);
    lu->lptr[0] = lu->uptr[0] = 0;
    for (size_t i = 0; i < lu->n; i++)
        if ((rc = lu_symbolic_row(lu, i)) != 0)
            return rc;
    /* the packed factors' room: at most the whole pattern */
    if ((rc = lu_room(&lu->lzcol, &lu->lzval, &lu->lzcap, lu->lptr[lu->n] + 1)) != 0 ||
        (rc = lu_room(&lu->uzcol, &lu->uzval, &lu->uzcap, lu->uptr[lu->n] + 1)) != 0 ||
        (rc = lu_room(&lu->umap, NULL, &lu->umapcap, lu->uptr[lu->n] + 1)) != 0)
        return rc;
    lu_direct_map(lu, lu->lzptr); /* scratch until the factorisation */
    lu->ordered = 1;
    return 0;
}

/* Row i of B into w (zero outside the rows being eliminated: each row leaves it zero);
 * the largest |entry| returned. */
static double lu_scatter(const ac_solver_tr_lu *lu, size_t i, const double *restrict Ax,
                         double *restrict w)
{
    const size_t *restrict src = lu->bsrc, *restrict col = lu->bcol;
    double m = 0.0;
    for (size_t p = lu->bptr[i], end = lu->bptr[i + 1]; p < end; p++) {
        double v = Ax[src[p]], a = fabs(v);
        w[col[p]] = v;
        m = a > m ? a : m;
    }
    return m;
}

/* Row i's elimination (w holds B's row i; the packed rows before i done): L's and U's
 * packed rows i; w zero again after. The pivot returned. */
static double lu_eliminate(ac_solver_tr_lu *lu, size_t i, double *restrict w)
{
    const size_t *restrict lcol = lu->lcol, *restrict ucol = lu->ucol;
    size_t *restrict lzcol = lu->lzcol, *restrict uzcol = lu->uzcol, *restrict uzptr = lu->uzptr;
    double *restrict lzval = lu->lzval, *restrict uzval = lu->uzval, piv;
    const double *restrict udinv = lu->udinv;
    size_t nl = lu->lzptr[i], nu = uzptr[i];
    for (size_t p = lu->lptr[i], end = lu->lptr[i + 1]; p < end; p++) {
        size_t k = lcol[p];
        double l = w[k] * udinv[k];
        w[k] = 0.0;
        if (l == 0.0)
            continue;
        lzcol[nl] = k, lzval[nl++] = l;
        for (size_t q = uzptr[k], qe = uzptr[k + 1]; q < qe; q++)
            w[uzcol[q]] -= l * uzval[q];
    }
    for (size_t q = lu->uptr[i], qe = lu->uptr[i + 1]; q < qe; q++) {
        double u = w[ucol[q]];
        w[ucol[q]] = 0.0;
        if (u != 0.0)
            uzcol[nu] = ucol[q], uzval[nu++] = u;
    }
    lu->lzptr[i + 1] = nl;
    uzptr[i + 1] = nu;
    piv = w[i];
    w[i] = 0.0;
    return piv;
}

/* Row i without L entries: U's packed row i straight from A's values (as B's row scattered
 * and gathered: the same values); the pivot returned, B's row's largest |entry| in *rowmax. */
static double lu_direct(ac_solver_tr_lu *lu, size_t i, const double *restrict Ax, double *rowmax)
{
    const size_t *restrict ucol = lu->ucol, *restrict umap = lu->umap;
    size_t *restrict uzcol = lu->uzcol, nu = lu->uzptr[i];
    double *restrict uzval = lu->uzval;
    double piv = lu->dsrc[i] == SIZE_MAX ? 0.0 : Ax[lu->dsrc[i]], m = fabs(piv);
    for (size_t q = lu->uptr[i], qe = lu->uptr[i + 1]; q < qe; q++) {
        double u = Ax[umap[q]], a = fabs(u);
        m = a > m ? a : m;
        if (u != 0.0)
            uzcol[nu] = ucol[q], uzval[nu++] = u;
    }
    lu->lzptr[i + 1] = lu->lzptr[i];
    lu->uzptr[i + 1] = nu;
    *rowmax = m;
    return piv;
}

int ac_solver_tr_lu_factor(ac_solver_tr_lu *lu, const double *Ax)
{
    double dmin = INFINITY, dmax = 0.0;
    /* SUNDIALS' KLU refactorisation test: rcond below uround^(2/3) (a constant: GCC folds
       the pow) */
    const double rcond_min = pow(DBL_EPSILON, 2.0 / 3.0);
    if (lu == NULL || !lu->ordered || Ax == NULL)
        return AC_EINVAL;
    lu->lzptr[0] = lu->uzptr[0] = 0;
    for (size_t i = 0; i < lu->n; i++) {
        double rowmax, piv, a;
        if (lu->lptr[i + 1] == lu->lptr[i]) {
            piv = lu_direct(lu, i, Ax, &rowmax);
        } else {
            rowmax = lu_scatter(lu, i, Ax, lu->w);
            piv = lu_eliminate(lu, i, lu->w);
        }
        a = fabs(piv);
        if (!isfinite(piv) || piv == 0.0 || !(a >= 1e-14 * rowmax))
            return 1;
        lu->udinv[i] = 1.0 / piv;
        dmin = a < dmin ? a : dmin;
        dmax = a > dmax ? a : dmax;
    }
    return lu->n > 0 && !(dmin >= rcond_min * dmax) ? 1 : 0;
}

void ac_solver_tr_lu_solve(ac_solver_tr_lu *lu, double *x)
{
    size_t n = lu->n;
    double *restrict c = lu->c;
    const size_t *restrict lptr = lu->lzptr, *restrict lcol = lu->lzcol, *restrict uptr = lu->uzptr,
                           *restrict ucol = lu->uzcol, *restrict prow = lu->prow,
                           *restrict qcol = lu->qcol;
    const double *restrict lval = lu->lzval, *restrict uval = lu->uzval,
                           *restrict udinv = lu->udinv;
    for (size_t i = 0; i < n; i++) { /* c = P b, then L c = P b */
        double s = x[prow[i]];
        for (size_t p = lptr[i], end = lptr[i + 1]; p < end; p++)
            s -= lval[p] * c[lcol[p]];
        c[i] = s;
    }
    for (size_t i = n; i-- > 0;) { /* U c' = c */
        double s = c[i];
        for (size_t q = uptr[i], end = uptr[i + 1]; q < end; q++)
            s -= uval[q] * c[ucol[q]];
        c[i] = s * udinv[i];
    }
    for (size_t i = 0; i < n; i++) /* x = Q c' */
        x[qcol[i]] = c[i];
}
