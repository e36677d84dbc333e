/*
 * The integrator behind the transient (transient_internal.h): SUNDIALS CVODE (variable-order
 * BDF, Newton with the dense Jacobian of transient_ode.c) up to opt->dense_max states, GSL's
 * rkf45 (explicit, adaptive, no Jacobian) above. Every SUNDIALS type stays in this file.
 *
 * Why CVODE and not GSL's msbdf (measured with callgrind on samples/serverless-pipeline.xml,
 * 73 states): msbdf re-factorises its iteration matrix I - h gamma J at nearly every step
 * around the kinks of the fluid mins (1,879 dense LUs and 65% of 1.92e9 instructions per
 * evaluation); CVODE keeps the matrix over up to 20 steps (and J over up to 51) while
 * h gamma changes by less than 30% and Newton converges, and re-evaluates J only on a
 * convergence failure. Everything CVODE needs is allocated by ac_solver_tr_driver_new;
 * a restart is CVodeReInit (no allocation). The linear system I - gamma J is this file's
 * and the serial vector's operations transient_nvec.c's (Debian's SUNDIALS is built without
 * optimisation: 2.10e8 -> 1.16e8 instructions per plan evaluation with bit-identical
 * results, then 8 values at a time).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include "solver/transient_internal.h"
#include "solver/transient_lu.h"
#include "solver/transient_nvec.h"

/* The error-test and convergence failures CVODE accepts within one step (its defaults, 7
 * and 10, give up at a kink of a fluid min that a step straddles; each failure shrinks the
 * step, so this bounds the shrinking, not the work of the evaluation: that is max_steps). */
#define TR_CV_FAILS 60

/* CVODE's Newton convergence test coefficient (its default 0.1; the corrector's estimated
 * error against this share of the local error test). */
#define TR_CV_NLCOEF 0.2

struct tr_driver {
    tr_ctx *c;
    size_t D;
    int cv; /* 1: CVODE, 0: GSL rkf45 */
    /* GSL rkf45 */
    gsl_odeiv2_system sys;
    gsl_odeiv2_driver *d;
    double h; /* the step of the next rkf45 step */
    /* CVODE */
    SUNContext sun;
    void *mem;
    N_Vector y, yi; /* the state; an interpolated state (ac_solver_tr_driver_dense) */
    SUNMatrix A;
    SUNLinearSolver ls;  /* KLU: the analysis, the pivoting factorisations */
    SUNLinearSolver lsw; /* CVODE's linear solver: transient_lu.c in KLU's order (cv_ls_*) */
    ac_solver_tr_lu *lu; /* its factors */
    int lu_stale;        /* KLU analyses again at its next setup: the order is to be rebuilt */
    int lu_mine;         /* the last setup's factors are lu's (0: KLU's) */
    int ls_flag;         /* the last setup's or solve's status */
    double *jrow, *dfdt; /* the Jacobian row-major (D x D), df/dt (D) */
    unsigned char *mask; /* the sparse pattern (D x D, row-major) */
    double *jval;        /* J on the pattern, in A's compressed-column order */
    size_t *jpos;        /* each entry's position in jrow */
    size_t *jdpos;       /* the position of each column's diagonal entry in jval (D) */
    size_t cap;          /* room in jval, jpos */
    int built;           /* A's pattern is written */
    int klu_ready;       /* KLU has analysed the pattern (a restart need not redo it) */
    int frozen;          /* the pattern no longer grows (ac_solver_tr_driver_freeze) */
    size_t nnz;          /* its entries */
    double *canon;       /* the canonical matrix (nnz values, ac_solver_tr_driver_fix) */
    sunindextype *pnum;  /* KLU's pivot order on it (D) */
    double tstop;        /* the stop time set, NAN: none */
    char why[96];        /* the last failure */

    /* the forward-mode columns in groups (cv_group_columns), its scratch */
    size_t *grp_start, *grp_col;
    size_t *grp_rptr, *grp_row;       /* each grouped column's rows on the pattern */
    unsigned char *rowmark, *colmark; /* nnodes + D, nfd */
    size_t *rowblock;                 /* the block (node) of each row */
};

static int cv_f(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    tr_driver *dr = user;
    /* positive: recoverable (CVODE retries with a shorter step) */
    return ac_solver_tr_f(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), dr->c) == GSL_SUCCESS
               ? 0
               : 1;
}

/* Room for `cap` entries of the pattern (J's values, their dense positions, the diagonal's
 * marks) and in A. */
static int cv_room(tr_driver *dr, SUNMatrix A, size_t cap)
{
    double *jv;
    size_t *pos;
    if (cap <= dr->cap)
        return 0;
    if ((sunindextype)cap > SUNSparseMatrix_NNZ(A) &&
        SUNSparseMatrix_Reallocate(A, (sunindextype)cap) != 0)
        return -1;
    jv = realloc(dr->jval, cap * sizeof *jv);
    if (jv != NULL)
        dr->jval = jv;
    pos = jv != NULL ? realloc(dr->jpos, cap * sizeof *pos) : NULL;
    if (pos == NULL)
        return -1;
    dr->jpos = pos;
    dr->cap = cap;
    return 0;
}

/* A's compressed columns from the pattern (dr->mask), with each entry's dense position. */
static void cv_pattern(tr_driver *dr, SUNMatrix A)
{
    size_t D = dr->D, p = 0;
    sunindextype *ptr = SUNSparseMatrix_IndexPointers(A), *row = SUNSparseMatrix_IndexValues(A);
    for (size_t col = 0; col < D; col++) {
        ptr[col] = (sunindextype)p;
        for (size_t r = 0; r < D; r++)
            if (dr->mask[r * D + col]) {
                row[p] = (sunindextype)r;
                dr->jpos[p] = r * D + col;
                if (r == col)
                    dr->jdpos[col] = p;
                p++;
            }
    }
    ptr[D] = (sunindextype)p;
}

/*
 * The Jacobian of transient_ode.c (row-major, dense) on the pattern of every entry nonzero
 * so far into dr->jval (the union grows as the fluid mins switch branches; with the
 * diagonal from the start, so that I - gamma J keeps its pattern). When it grows, A's
 * storage may grow (SUNSparseMatrix_Reallocate) and KLU is told to analyse the new pattern
 * at its next factorisation; otherwise KLU refactorises on the pattern it has analysed (no
 * allocation). Once the pattern is frozen (ac_solver_tr_driver_freeze), an entry outside it
 * is left out: the iteration matrix is then an approximation, as it already is between
 * CVODE's Jacobian updates (Newton's convergence test and the error test are on f itself,
 * so the solution keeps its tolerances; a poor matrix costs iterations or a shorter step,
 * never accuracy), and nothing is allocated.
 */
static int cv_jac_eval(tr_driver *dr, double t, N_Vector y, SUNMatrix A)
{
    size_t D = dr->D;
    int grown = !dr->built;
    if (ac_solver_tr_jac(t, N_VGetArrayPointer(y), dr->jrow, NULL, dr->c) != GSL_SUCCESS)
        return 1;
    for (size_t k = 0; !dr->frozen && k < D * D; k++)
        if (dr->jrow[k] != 0.0 && !dr->mask[k]) {
            dr->mask[k] = 1;
            dr->nnz++;
            grown = 1;
        }
    if (grown) {
        if (dr->nnz > dr->cap && cv_room(dr, A, 2 * dr->nnz) != 0)
            return -1;
        cv_pattern(dr, A);
        if (dr->built &&
            SUNLinSol_KLUReInit(dr->ls, A, SUNSparseMatrix_NNZ(A), SUNKLU_REINIT_PARTIAL) != 0)
            return -1;
        dr->built = 1;
        dr->lu_stale = 1;
    }
    for (size_t k = 0; k < dr->nnz; k++)
        dr->jval[k] = dr->jrow[dr->jpos[k]];
    return 0;
}

/*
 * CVODE's linear system A = I - gamma J on the fixed pattern: J evaluated again when CVODE
 * asks (!jok: a new step history, a stale or failing Jacobian), else the last one, kept
 * here (the default system function keeps a second copy of the sparse matrix and copies,
 * zeroes and scales it in SUNDIALS' unoptimised loops: 13% of an evaluation). The same
 * values as the default: (-gamma) J_k, plus 1 on the diagonal.
 */
/* z = c x, 8 entries at a time (GNU C vector pairs: SSE2; the same product per entry). */
static void cv_scale(double c, const double *x, double *z, size_t n)
{
    typedef double v2 __attribute__((vector_size(16)));
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _Pragma("GCC unroll 4") for (size_t j = 0; j < 8; j += 2)
        {
            v2 a;
            memcpy(&a, x + i + j, sizeof a);
            a = c * a;
            memcpy(z + i + j, &a, sizeof a);
        }
    for (; i < n; i++)
        z[i] = c * x[i];
}

static int cv_linsys(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix A, sunbooleantype jok,
                     sunbooleantype *jcur, sunrealtype gamma, void *user, N_Vector t1, N_Vector t2,
                     N_Vector t3)
{
    tr_driver *dr = user;
    sunrealtype *val = SUNSparseMatrix_Data(A);
    (void)fy, (void)t1, (void)t2, (void)t3;
    *jcur = !jok;
    if (!jok) {
        int rc = cv_jac_eval(dr, t, y, A);
        if (rc != 0)
            return rc;
    }
    cv_scale(-gamma, dr->jval, val, dr->nnz);
    for (size_t col = 0; col < dr->D; col++)
        val[dr->jdpos[col]] += 1.0;
    return 0;
}

/*
 * CVODE initialises its linear solver at the first step after every CVodeReInit, and KLU's
 * initialize forces a new symbolic analysis (klu_analyze, which allocates). The pattern
 * has not changed (cv_jac tells KLU itself when it grows), so after the first time this
 * keeps the analysis and the factorisation is redone on the new values (klu_refactor).
 */
static int cv_klu_keep(SUNLinearSolver ls)
{
    (void)ls;
    return SUNLS_SUCCESS;
}

/* ---- CVODE's linear solver: KLU's analysis and pivots, transient_lu.c's numbers ----
 *
 * Each of CVODE's setups refactorises I - gamma J in the order KLU chose (rows
 * Numeric->Pnum, columns Symbolic->Q) by ac_solver_tr_lu_factor; KLU itself runs only when
 * the pattern is new (its analysis and pivoting factorisation, after which the order is
 * rebuilt) or a pivot fails that order's check (KLU then pivots again on the current
 * values: klu_l_factor on its analysis, and the order is rebuilt from its new pivots; if
 * the order still fails, this setup's solves are KLU's own). */

static SUNLinearSolver_Type cv_ls_type(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}

static SUNLinearSolver_ID cv_ls_id(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}

static int cv_ls_init(SUNLinearSolver S)
{
    tr_driver *dr = S->content;
    if (!dr->klu_ready)
        dr->lu_stale = 1; /* KLU's initialize makes it analyse again */
    return SUNLinSolInitialize(dr->ls);
}

/* The order from KLU's last pivoting factorisation, then this matrix's factors in it. */
static int cv_ls_reorder(tr_driver *dr, SUNMatrix A)
{
    SUNLinearSolverContent_KLU k = dr->ls->content;
    dr->lu_stale = 0;
    dr->lu_mine = ac_solver_tr_lu_order(dr->lu, SUNSparseMatrix_IndexPointers(A),
                                        SUNSparseMatrix_IndexValues(A), k->numeric->Pnum,
                                        k->symbolic->Q) == 0 &&
                  ac_solver_tr_lu_factor(dr->lu, SUNSparseMatrix_Data(A)) == 0;
    return 0;
}

static int cv_ls_setup(SUNLinearSolver S, SUNMatrix A)
{
    tr_driver *dr = S->content;
    SUNLinearSolverContent_KLU k = dr->ls->content;
    if (!dr->lu_stale && ac_solver_tr_lu_factor(dr->lu, SUNSparseMatrix_Data(A)) == 0) {
        dr->lu_mine = 1;
        return dr->ls_flag = SUNLS_SUCCESS;
    }
    if (dr->lu_stale) { /* KLU analyses and factorises */
        dr->ls_flag = SUNLinSolSetup(dr->ls, A);
        if (dr->ls_flag != SUNLS_SUCCESS)
            return dr->ls_flag;
    } else { /* a pivot failed: KLU pivots again on these values */
        klu_l_free_numeric(&k->numeric, &k->common);
        k->numeric = klu_l_factor(SUNSparseMatrix_IndexPointers(A), SUNSparseMatrix_IndexValues(A),
                                  SUNSparseMatrix_Data(A), k->symbolic, &k->common);
        if (k->numeric == NULL)
            return dr->ls_flag = SUNLS_PACKAGE_FAIL_REC;
    }
    return dr->ls_flag = cv_ls_reorder(dr, A);
}

static int cv_ls_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol)
{
    tr_driver *dr = S->content;
    if (!dr->lu_mine)
        return dr->ls_flag = SUNLinSolSolve(dr->ls, A, x, b, tol);
    if (x != b)
        memcpy(N_VGetArrayPointer(x), N_VGetArrayPointer(b), dr->D * sizeof(double));
    ac_solver_tr_lu_solve(dr->lu, N_VGetArrayPointer(x));
    return dr->ls_flag = SUNLS_SUCCESS;
}

static sunindextype cv_ls_lastflag(SUNLinearSolver S)
{
    return ((tr_driver *)S->content)->ls_flag;
}

/* The solver CVODE is given (its content is dr; freed by ac_solver_tr_driver_free). */
static SUNLinearSolver cv_ls_new(tr_driver *dr)
{
    SUNLinearSolver S = SUNLinSolNewEmpty(dr->sun);
    if (S == NULL)
        return NULL;
    S->content = dr;
    S->ops->gettype = cv_ls_type;
    S->ops->getid = cv_ls_id;
    S->ops->initialize = cv_ls_init;
    S->ops->setup = cv_ls_setup;
    S->ops->solve = cv_ls_solve;
    S->ops->lastflag = cv_ls_lastflag;
    return S;
}

/* After the first integration: keep KLU's analysis over restarts (cv_klu_keep). */
static void cv_keep_analysis(tr_driver *dr)
{
    if (!dr->klu_ready) {
        dr->ls->ops->initialize = cv_klu_keep;
        dr->klu_ready = 1;
    }
}

/* CVODE's messages are not printed: its return codes are checked and reported. */
static void cv_silent(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)code, (void)module, (void)function, (void)msg, (void)user;
}

static const char *cv_reason(int flag)
{
    switch (flag) {
    case CV_TOO_MUCH_WORK: return "too many steps to the next output";
    case CV_TOO_MUCH_ACC: return "the tolerances cannot be met";
    case CV_ERR_FAILURE: return "repeated error-test failures (the step size went to its minimum)";
    case CV_CONV_FAILURE: return "repeated Newton convergence failures";
    case CV_LSETUP_FAIL: return "the iteration matrix is singular";
    case CV_LSOLVE_FAIL: return "the linear solve failed";
    case CV_RHSFUNC_FAIL:
    case CV_REPTD_RHSFUNC_ERR:
    case CV_UNREC_RHSFUNC_ERR:
    case CV_FIRST_RHSFUNC_ERR: return "the drift is not finite";
    default: return "the integrator failed";
    }
}

void ac_solver_tr_driver_free(tr_driver *dr)
{
    if (dr == NULL)
        return;
    if (dr->d != NULL)
        gsl_odeiv2_driver_free(dr->d);
    if (dr->mem != NULL)
        CVodeFree(&dr->mem);
    if (dr->lsw != NULL)
        SUNLinSolFreeEmpty(dr->lsw);
    if (dr->ls != NULL)
        SUNLinSolFree(dr->ls);
    ac_solver_tr_lu_free(dr->lu);
    if (dr->A != NULL)
        SUNMatDestroy(dr->A);
    if (dr->y != NULL)
        N_VDestroy(dr->y);
    if (dr->yi != NULL)
        N_VDestroy(dr->yi);
    if (dr->sun != NULL)
        SUNContext_Free(&dr->sun);
    free(dr->jrow);
    free(dr->dfdt);
    free(dr->mask);
    free(dr->jval);
    free(dr->jpos);
    free(dr->jdpos);
    free(dr->canon);
    free(dr->pnum);
    free(dr->grp_start);
    free(dr->grp_col);
    free(dr->grp_rptr);
    free(dr->grp_row);
    free(dr->rowmark);
    free(dr->colmark);
    free(dr->rowblock);
    free(dr);
}

/* The Jacobians a seeding looks at (fewer when dim^2 is large). */
#define TR_SEEDS 64

/*
 * Seed the pattern (before the first integration, so that KLU analyses it once and the
 * frozen pattern of ac_solver_tr_driver_freeze misses few entries): the union of the
 * Jacobians at the empty state and at TR_SEEDS states of magnitudes drawn log-uniformly over
 * [1e-6, 1e4] (a fixed generator, so deterministic), which put the fluid mins on their
 * branches in many combinations. A Jacobian that is not finite there is skipped.
 */
static void cv_seed_pattern(tr_driver *dr, double *y)
{
    size_t D = dr->D, nseeds = D * D <= 100000 ? TR_SEEDS : 2;
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    for (size_t it = 0; it <= nseeds; it++) {
        for (size_t k = 0; k < D; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            y[k] = it == 0 ? 0.0 : pow(10.0, -6.0 + 10.0 * (double)(s >> 11) / 9007199254740992.0);
        }
        if (ac_solver_tr_jac(0.0, y, dr->jrow, dr->dfdt, dr->c) != GSL_SUCCESS)
            continue;
        for (size_t k = 0; k < D * D; k++)
            if (dr->jrow[k] != 0.0 && isfinite(dr->jrow[k]) && !dr->mask[k]) {
                dr->mask[k] = 1;
                dr->nnz++;
            }
    }
}

/* CVODE's memory, vector, sparse matrix (room for the seeded pattern and 8 more entries a
 * column) and KLU for c->dim states. */
static int cv_new(tr_driver *dr, double h0)
{
    const ac_transient_options *opt = dr->c->opt;
    sunindextype n = (sunindextype)dr->D;
    dr->jrow = malloc(dr->D * dr->D * sizeof *dr->jrow);
    dr->dfdt = malloc(dr->D * sizeof *dr->dfdt);
    dr->mask = calloc(dr->D * dr->D, 1);
    dr->grp_start = malloc((dr->c->nfd + 1) * sizeof *dr->grp_start);
    dr->grp_col = malloc((dr->c->nfd + 1) * sizeof *dr->grp_col);
    dr->rowmark = malloc(dr->c->m->nnodes + dr->D + 1);
    dr->colmark = malloc(dr->c->nfd + 1);
    dr->rowblock = malloc((dr->D + 1) * sizeof *dr->rowblock);
    dr->jdpos = malloc((dr->D + 1) * sizeof *dr->jdpos);
    if (dr->jrow == NULL || dr->dfdt == NULL || dr->mask == NULL || dr->grp_start == NULL ||
        dr->grp_col == NULL || dr->rowmark == NULL || dr->colmark == NULL || dr->rowblock == NULL ||
        dr->jdpos == NULL || SUNContext_Create(NULL, &dr->sun) != 0)
        return AC_ENOMEM;
    for (size_t k = 0; k < dr->D; k++)
        dr->mask[k * dr->D + k] = 1;
    dr->nnz = dr->D;
    dr->y = N_VNew_Serial(n, dr->sun);
    if (dr->y != NULL)
        cv_seed_pattern(dr, N_VGetArrayPointer(dr->y));
    dr->A = dr->y != NULL ? SUNSparseMatrix(n, n, (sunindextype)dr->nnz + 8 * n, CSC_MAT, dr->sun)
                          : NULL;
    if (dr->A != NULL && cv_room(dr, dr->A, dr->nnz + 8 * dr->D) != 0)
        return AC_ENOMEM;
    dr->ls = dr->A != NULL ? SUNLinSol_KLU(dr->y, dr->A, dr->sun) : NULL;
    dr->lu = dr->ls != NULL ? ac_solver_tr_lu_new(dr->D) : NULL;
    dr->lsw = dr->lu != NULL ? cv_ls_new(dr) : NULL;
    dr->lu_stale = 1;
    dr->mem = dr->lsw != NULL ? CVodeCreate(CV_BDF, dr->sun) : NULL;
    if (dr->mem == NULL)
        return AC_ENOMEM;
    memset(N_VGetArrayPointer(dr->y), 0, dr->D * sizeof(double));
    (void)ac_solver_tr_nvec_install(dr->y);
    dr->yi = N_VClone(dr->y);
    if (dr->yi == NULL)
        return AC_ENOMEM;
    if (CVodeSetErrHandlerFn(dr->mem, cv_silent, NULL) != CV_SUCCESS ||
        CVodeInit(dr->mem, cv_f, 0.0, dr->y) != CV_SUCCESS ||
        CVodeSStolerances(dr->mem, opt->rtol, opt->atol) != CV_SUCCESS ||
        CVodeSetUserData(dr->mem, dr) != CV_SUCCESS ||
        CVodeSetLinearSolver(dr->mem, dr->lsw, dr->A) != CV_SUCCESS ||
        CVodeSetLinSysFn(dr->mem, cv_linsys) != CV_SUCCESS ||
        CVodeSetInitStep(dr->mem, h0) != CV_SUCCESS ||
        CVodeSetMaxHnilWarns(dr->mem, -1) != CV_SUCCESS ||
        CVodeSetMaxErrTestFails(dr->mem, TR_CV_FAILS) != CV_SUCCESS ||
        CVodeSetMaxConvFails(dr->mem, TR_CV_FAILS) != CV_SUCCESS ||
        CVodeSetNonlinConvCoef(dr->mem, TR_CV_NLCOEF) != CV_SUCCESS)
        return AC_ENOMEM;
    dr->tstop = NAN;
    return AC_OK;
}

int ac_solver_tr_driver_new(tr_ctx *c, int dense, double h0, tr_driver **out)
{
    tr_driver *dr = calloc(1, sizeof *dr);
    int rc = AC_ENOMEM;
    *out = NULL;
    if (dr == NULL)
        return AC_ENOMEM;
    dr->c = c;
    dr->D = c->dim;
    dr->cv = dense;
    dr->h = h0;
    if (dense) {
        rc = cv_new(dr, h0);
    } else {
        dr->sys.function = ac_solver_tr_f;
        dr->sys.jacobian = NULL;
        dr->sys.dimension = c->dim;
        dr->sys.params = c;
        dr->d = gsl_odeiv2_driver_alloc_y_new(&dr->sys, gsl_odeiv2_step_rkf45, h0, c->opt->atol,
                                              c->opt->rtol);
        rc = dr->d != NULL ? AC_OK : AC_ENOMEM;
    }
    if (rc != AC_OK) {
        ac_solver_tr_driver_free(dr);
        return rc;
    }
    *out = dr;
    return AC_OK;
}

const char *ac_solver_tr_driver_method(const tr_driver *dr)
{
    return dr == NULL || dr->cv ? "cvode-bdf" : "rkf45";
}

const char *ac_solver_tr_driver_why(const tr_driver *dr)
{
    return dr->why;
}

int ac_solver_tr_driver_restart(tr_driver *dr, double t, const double *y, double h0)
{
    if (!dr->cv) {
        dr->h = h0;
        return gsl_odeiv2_driver_reset_hstart(dr->d, h0) == GSL_SUCCESS ? AC_OK : AC_ENUMERIC;
    }
    memcpy(N_VGetArrayPointer(dr->y), y, dr->D * sizeof *y);
    dr->tstop = NAN;
    if (CVodeSetInitStep(dr->mem, h0) != CV_SUCCESS || CVodeReInit(dr->mem, t, dr->y) != CV_SUCCESS)
        return AC_ENUMERIC;
    return AC_OK;
}

/*
 * Group the forward-mode columns on the frozen pattern (Curtis, Powell and Reid: columns
 * that reach no row in common are differentiated in one evaluation; greedy, in column
 * order): the Jacobian's entries on the pattern are the same sums of the same derivatives.
 * A column reaches every row of each node (its states and counters; a row of no node is a
 * block of its own) where the pattern has an entry of it, not only those entries: an entry
 * that the frozen pattern missed (a branch no seeding took) would otherwise be added to
 * the entry of another column in its row, and it falls inside a node the column reaches.
 */
static void cv_row_blocks(tr_driver *dr)
{
    const tr_ctx *c = dr->c;
    size_t n = c->m->nnodes;
    for (size_t r = 0; r < dr->D; r++)
        dr->rowblock[r] = n + r;
    for (size_t v = 0; v < n; v++) {
        for (size_t k = 0; k < c->nst[v]; k++)
            dr->rowblock[c->st_off[v] + k] = v;
        for (size_t k = 0; k < c->ncnt[v]; k++)
            dr->rowblock[c->cnt_off[v] + k] = v;
    }
}

/* Does column col reach a marked block (mark: 0 test, 1 mark its blocks)? */
static int cv_col_blocks(tr_driver *dr, size_t col, int mark)
{
    size_t D = dr->D;
    for (size_t r = 0; r < D; r++) {
        if (!dr->mask[r * D + col])
            continue;
        if (mark)
            dr->rowmark[dr->rowblock[r]] = 1;
        else if (dr->rowmark[dr->rowblock[r]])
            return 1;
    }
    return 0;
}

/* The rows of each grouped column on the pattern, increasing (left NULL when out of
 * memory: transient_ode.c then scans the pattern's column). */
static void cv_group_rows(tr_driver *dr, size_t placed)
{
    size_t D = dr->D, n = 0;
    free(dr->grp_rptr), free(dr->grp_row);
    dr->grp_row = NULL;
    dr->grp_rptr = malloc((placed + 1) * sizeof *dr->grp_rptr);
    for (size_t k = 0; dr->grp_rptr != NULL && k < placed; k++)
        for (size_t r = 0; r < D; r++)
            n += dr->mask[r * D + dr->grp_col[k]] != 0;
    if (dr->grp_rptr != NULL)
        dr->grp_row = malloc((n + 1) * sizeof *dr->grp_row);
    if (dr->grp_row == NULL) {
        free(dr->grp_rptr);
        dr->grp_rptr = NULL;
        return;
    }
    n = 0;
    for (size_t k = 0; k < placed; k++) {
        dr->grp_rptr[k] = n;
        for (size_t r = 0; r < D; r++)
            if (dr->mask[r * D + dr->grp_col[k]])
                dr->grp_row[n++] = r;
    }
    dr->grp_rptr[placed] = n;
}

static void cv_group_columns(tr_driver *dr)
{
    tr_ctx *c = dr->c;
    size_t ng = 0, placed = 0;
    cv_row_blocks(dr);
    memset(dr->colmark, 0, c->nfd + 1);
    while (placed < c->nfd) {
        memset(dr->rowmark, 0, c->m->nnodes + dr->D);
        dr->grp_start[ng] = placed;
        for (size_t k = 0; k < c->nfd; k++) {
            if (dr->colmark[k] || cv_col_blocks(dr, c->fdcols[k], 0))
                continue;
            (void)cv_col_blocks(dr, c->fdcols[k], 1);
            dr->colmark[k] = 1;
            dr->grp_col[placed++] = c->fdcols[k];
        }
        ng++;
    }
    dr->grp_start[ng] = placed;
    cv_group_rows(dr, placed);
    c->jgrp_start = dr->grp_start;
    c->jgrp_col = dr->grp_col;
    c->jgrp_rptr = dr->grp_rptr;
    c->jgrp_row = dr->grp_row;
    c->jmask = dr->mask;
    c->jzero = dr->jpos;
    c->jnz = dr->nnz;
    c->jgroups = ng;
}

void ac_solver_tr_driver_freeze(tr_driver *dr)
{
    if (dr == NULL || dr->frozen)
        return;
    dr->frozen = dr->cv && dr->klu_ready;
    if (dr->frozen && dr->c->nfd > 0)
        cv_group_columns(dr);
}

int ac_solver_tr_driver_kink(tr_driver *dr, double t, const double *y, double h0)
{
    return dr->cv ? ac_solver_tr_driver_restart(dr, t, y, h0) : AC_OK;
}

/* Stop CVODE exactly at t_stop (set once per stop). */
static int cv_stop_at(tr_driver *dr, double t_stop)
{
    if (dr->tstop == t_stop)
        return CV_SUCCESS;
    dr->tstop = t_stop;
    return CVodeSetStopTime(dr->mem, t_stop);
}

int ac_solver_tr_driver_step(tr_driver *dr, double t_stop, double *t, double *y)
{
    int flag;
    if (!dr->cv) {
        int st =
            gsl_odeiv2_evolve_apply(dr->d->e, dr->d->c, dr->d->s, &dr->sys, t, t_stop, &dr->h, y);
        if (st == GSL_SUCCESS)
            return AC_OK;
        snprintf(dr->why, sizeof dr->why, "%s", gsl_strerror(st));
        return AC_ENUMERIC;
    }
    flag = cv_stop_at(dr, t_stop);
    if (flag == CV_SUCCESS)
        flag = CVode(dr->mem, t_stop, dr->y, t, CV_ONE_STEP);
    if (flag == CV_TSTOP_RETURN)
        dr->tstop = NAN; /* reached: CVODE has dropped it */
    if (flag >= 0)
        cv_keep_analysis(dr);
    if (flag < 0) {
        snprintf(dr->why, sizeof dr->why, "%s (CVODE flag %d)", cv_reason(flag), flag);
        return AC_ENUMERIC;
    }
    memcpy(y, N_VGetArrayPointer(dr->y), dr->D * sizeof *y);
    return AC_OK;
}

int ac_solver_tr_driver_dense(tr_driver *dr, double t, double *out)
{
    if (!dr->cv || dr->yi == NULL)
        return AC_EINVAL;
    if (out == NULL)
        return AC_OK;
    if (CVodeGetDky(dr->mem, t, 0, dr->yi) != CV_SUCCESS)
        return AC_ENUMERIC;
    memcpy(out, N_VGetArrayPointer(dr->yi), dr->D * sizeof *out);
    return AC_OK;
}

int ac_solver_tr_driver_advance(tr_driver *dr, double t_end, size_t max_steps, double *t, double *y)
{
    int flag;
    if (!dr->cv) {
        int st;
        gsl_odeiv2_driver_set_nmax(dr->d, max_steps);
        st = gsl_odeiv2_driver_apply(dr->d, t, t_end, y);
        if (st == GSL_SUCCESS)
            return AC_OK;
        snprintf(dr->why, sizeof dr->why, "%s", gsl_strerror(st));
        return st == GSL_EMAXITER ? AC_ELIMIT : AC_ENUMERIC;
    }
    flag = CVodeSetMaxNumSteps(dr->mem, (long)max_steps);
    if (flag == CV_SUCCESS)
        flag = cv_stop_at(dr, t_end);
    if (flag == CV_SUCCESS)
        flag = CVode(dr->mem, t_end, dr->y, t, CV_NORMAL);
    if (flag == CV_TSTOP_RETURN)
        dr->tstop = NAN;
    memcpy(y, N_VGetArrayPointer(dr->y), dr->D * sizeof *y);
    if (flag >= 0) {
        cv_keep_analysis(dr);
        return AC_OK;
    }
    snprintf(dr->why, sizeof dr->why, "%s (CVODE flag %d)", cv_reason(flag), flag);
    return flag == CV_TOO_MUCH_WORK ? AC_ELIMIT : AC_ENUMERIC;
}

/* ---- a pure evaluation --------------------------------------------------------------------
 *
 * What a run leaves in the driver that the next one reads: the pattern (it grows while not
 * frozen) and KLU's pivot order (klu_refactor keeps the order of the last klu_factor: the
 * first factorisation's, or one SUNDIALS redid on a poor condition estimate). Both change the
 * iteration matrix, so Newton's inexact solves, so the result at ~1e-8 (a plan's score after
 * other plans differed from the same plan's on a fresh workspace). ac_solver_tr_driver_fix
 * (at the end of ac_transient_new) freezes the pattern and factorises a canonical matrix
 * (I - h0 J at the given state), both functions of the model and the options only;
 * ac_solver_tr_driver_canon (at the start of every evaluation) restores that factorisation
 * whenever the pivot order is no longer its own (allocating then only: KLU's analysis).
 */

/* KLU's analysis and factorisation of the canonical matrix, its pivot order into dr->pnum. */
static int cv_canon_factor(tr_driver *dr)
{
    sun_klu_numeric *num;
    memcpy(SUNSparseMatrix_Data(dr->A), dr->canon, dr->nnz * sizeof *dr->canon);
    if (SUNLinSol_KLUReInit(dr->ls, dr->A, SUNSparseMatrix_NNZ(dr->A), SUNKLU_REINIT_PARTIAL) !=
            0 ||
        SUNLinSolSetup_KLU(dr->ls, dr->A) != SUNLS_SUCCESS)
        return AC_ENUMERIC;
    num = SUNLinSol_KLUGetNumeric(dr->ls);
    if (num == NULL)
        return AC_ENUMERIC;
    memcpy(dr->pnum, num->Pnum, dr->D * sizeof *dr->pnum);
    /* transient_lu.c's order is KLU's: rebuilt from these pivots (and this matrix factorised) */
    return cv_ls_reorder(dr, dr->A);
}

int ac_solver_tr_driver_fix(tr_driver *dr, double t, const double *y, double h0)
{
    double *v;
    if (dr == NULL || !dr->cv)
        return AC_OK;
    if (!dr->frozen) {
        dr->frozen = 1;
        if (dr->c->nfd > 0)
            cv_group_columns(dr);
    }
    if (!dr->built) { /* no step was taken: A's pattern is written here */
        cv_pattern(dr, dr->A);
        dr->built = 1;
    }
    dr->canon = malloc((dr->nnz + 1) * sizeof *dr->canon);
    dr->pnum = malloc((dr->D + 1) * sizeof *dr->pnum);
    if (dr->canon == NULL || dr->pnum == NULL)
        return AC_ENOMEM;
    memcpy(N_VGetArrayPointer(dr->yi), y, dr->D * sizeof *y);
    if (cv_jac_eval(dr, t, dr->yi, dr->A) != 0) /* not finite there: the identity */
        memset(dr->jval, 0, dr->nnz * sizeof *dr->jval);
    v = dr->canon;
    for (size_t k = 0; k < dr->nnz; k++)
        v[k] = -h0 * dr->jval[k];
    for (size_t col = 0; col < dr->D; col++)
        v[dr->jdpos[col]] += 1.0;
    if (cv_canon_factor(dr) != AC_OK) {
        free(dr->canon);
        dr->canon = NULL;
        return AC_ENUMERIC;
    }
    dr->ls->ops->initialize = cv_klu_keep;
    dr->klu_ready = 1;
    return AC_OK;
}

int ac_solver_tr_driver_canon(tr_driver *dr)
{
    const sun_klu_numeric *num;
    if (dr == NULL || !dr->cv || dr->canon == NULL)
        return AC_OK;
    num = SUNLinSol_KLUGetNumeric(dr->ls);
    if (num != NULL && memcmp(num->Pnum, dr->pnum, dr->D * sizeof *dr->pnum) == 0)
        return AC_OK;
    return cv_canon_factor(dr);
}
