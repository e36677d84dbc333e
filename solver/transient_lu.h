/*
 * A numeric sparse LU refactorisation for CVODE's repeated iteration matrices
 * (transient_lu.c): KLU analyses the pattern and chooses the pivots; this redoes the
 * numeric factorisation in that order, row by row, skipping zero multipliers, and solves
 * with it. Private to solver/ (the transient's driver and tests/test_transient_lu.c).
 *
 * Indices are int64_t (SUNDIALS' sunindextype and KLU's klu_l_* on LP64). The matrix is
 * compressed-column: column j's entries are Ai[Ap[j] .. Ap[j+1]-1] with values Ax[...].
 */
#ifndef AC_SOLVER_TRANSIENT_LU_H
#define AC_SOLVER_TRANSIENT_LU_H

#include <stddef.h>
#include <stdint.h>

typedef struct ac_solver_tr_lu ac_solver_tr_lu;

/* A workspace for n x n matrices (room grows with the orders given, never under factor or
 * solve). NULL when out of memory. Free with ac_solver_tr_lu_free (NULL: no-op). */
ac_solver_tr_lu *ac_solver_tr_lu_new(size_t n);
void ac_solver_tr_lu_free(ac_solver_tr_lu *lu);

/* The order: row k of the permuted matrix B is A's row prow[k], column k of B A's column
 * qcol[k] (KLU's Numeric->Pnum and Symbolic->Q); the pattern's fill in that order without
 * pivoting (symbolic, O(n^2 + fill work)). Returns 0; AC_EINVAL when prow or qcol is not a
 * permutation of 0..n-1 or the pattern is malformed (the workspace then has no order and
 * factor fails); AC_ENOMEM. Allocates only when the fill exceeds the room so far. */
int ac_solver_tr_lu_order(ac_solver_tr_lu *lu, const int64_t *Ap, const int64_t *Ai,
                          const int64_t *prow, const int64_t *qcol);

/* B = L U (L unit lower, U upper, rows of B in the order's sequence) from the values Ax on
 * the pattern given to ac_solver_tr_lu_order. Returns 0; 1 when a pivot fails its check (not
 * finite, zero, below 1e-14 of its row of B in magnitude, or the smallest |U_kk| below
 * uround^(2/3) of the largest, SUNDIALS' test for KLU's refactorisation): the caller then
 * lets KLU pivot again; AC_EINVAL without an order. Allocates nothing. */
int ac_solver_tr_lu_factor(ac_solver_tr_lu *lu, const double *Ax);

/* x <- A^-1 x with the last successful factorisation (x of length n). Allocates nothing. */
void ac_solver_tr_lu_solve(ac_solver_tr_lu *lu, double *x);

#endif
