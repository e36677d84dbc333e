/*
 * The flow of a pool with retries integrated by SUNDIALS CVODE (variable-order BDF) with a
 * linear solver of its own: Newton's matrix M = I - gamma J, with J = T + u gP^T tridiagonal
 * plus rank one (model.c: the retries' term lambda S'(P) a gP^T; random, power-of-d and jsq),
 * is solved by Sherman-Morrison on M's three diagonals (ac_solver_tr1_parts, O(n) with its
 * residual) instead of GSL msbdf's dense LU (O(n^3) at each of its frequent
 * refactorisations); that J has this form is checked entry by entry at each evaluation. A
 * system tr1 refuses, and a Jacobian not of that form (jiq), take GSL's dense LU of M,
 * factorised once per matrix. The Jacobian is the analytic one, evaluated when CVODE asks
 * (a new history, a stale or failing matrix) and kept otherwise; M is rebuilt from it for
 * each gamma (CVODE's linear-system function, as in transient_driver.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "solver/pool.h"

struct ac_solver_pool_ode {
    ac_solver_pool_model *m; /* borrowed */
    size_t n;
    SUNContext sun;
    N_Vector y;
    SUNMatrix A; /* CVODE's handle only: M is kept row-major below */
    SUNLinearSolver ls;
    void *mem;
    double *J, *u, *v;         /* J(y) row-major, the rank-one term u v^T of J (r1) */
    double *md, *mu, *ml, *su; /* I - gamma T on its three diagonals, -gamma u */
    double gamma;
    double *lu, *work;
    gsl_permutation *perm;
    int r1;       /* J = T + u v^T (checked entry by entry off the three diagonals) */
    int lu_valid; /* lu holds the LU factors of I - gamma J */
    double t;     /* the integration's time */
};

static int ode_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    ac_solver_pool_ode *o = user;
    (void)t;
    ac_solver_model_drift(o->m, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return 0;
}

/* 1 when J's entries off the three diagonals are u_i v_j within 1e-12 max|J| (model.c
 * builds them so; checked once per Jacobian, so that the solve's O(n) residual holds for
 * the whole matrix) */
static int rank_one_form(const ac_solver_pool_ode *o)
{
    size_t n = o->n;
    double jmax = 0.0, dmax = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double a = fabs(o->J[i * n + j]),
                   d = i > j + 1 || j > i + 1 ? fabs(o->J[i * n + j] - o->u[i] * o->v[j]) : 0.0;
            jmax = a > jmax ? a : jmax;
            dmax = d > dmax ? d : dmax;
        }
    return dmax <= 1e-12 * jmax;
}

/* M = I - gamma J(y) with J evaluated again when CVODE asks (!jok), else the kept one. */
static int ode_linsys(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix A, sunbooleantype jok,
                      sunbooleantype *jcur, sunrealtype gamma, void *user, N_Vector t1, N_Vector t2,
                      N_Vector t3)
{
    ac_solver_pool_ode *o = user;
    size_t n = o->n;
    (void)t, (void)fy, (void)A, (void)t1, (void)t2, (void)t3;
    *jcur = !jok;
    if (!jok) {
        const double *q = N_VGetArrayPointer(y);
        ac_solver_model_jacobian(o->m, q, o->J);
        o->r1 = ac_solver_rank_one_term(o->m, q, 1.0, o->u);
        if (o->r1) {
            memcpy(o->v, o->m->gp, n * sizeof *o->v);
            o->r1 = rank_one_form(o);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const double *J = o->J, *u = o->u, *v = o->v;
        o->md[i] = 1.0 - gamma * (J[i * n + i] - u[i] * v[i]);
        if (i + 1 < n) {
            o->mu[i] = -gamma * (J[i * n + i + 1] - u[i] * v[i + 1]);
            o->ml[i] = -gamma * (J[(i + 1) * n + i] - u[i + 1] * v[i]);
        }
        o->su[i] = -gamma * u[i];
    }
    o->gamma = gamma;
    o->lu_valid = 0;
    return 0;
}

static SUNLinearSolver_Type ls_type(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}

static SUNLinearSolver_ID ls_id(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}

static int ls_setup(SUNLinearSolver S, SUNMatrix A)
{
    (void)S, (void)A;
    return SUNLS_SUCCESS;
}

/* M x = b: Sherman-Morrison, else dense LU (factorised once per M). */
static int ls_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol)
{
    ac_solver_pool_ode *o = S->content;
    size_t n = o->n;
    double *xs = N_VGetArrayPointer(x);
    (void)A, (void)tol;
    memcpy(xs, N_VGetArrayPointer(b), n * sizeof *xs);
    if (o->r1 && ac_solver_tr1_parts(n, o->md, o->mu, o->ml, o->su, o->v, xs, o->work) == 0)
        return SUNLS_SUCCESS;
    {
        gsl_matrix_view lv = gsl_matrix_view_array(o->lu, n, n);
        gsl_vector_view xv = gsl_vector_view_array(xs, n);
        int sg;
        if (!o->lu_valid) {
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++)
                    o->lu[i * n + j] = (i == j ? 1.0 : 0.0) - o->gamma * o->J[i * n + j];
            if (gsl_linalg_LU_decomp(&lv.matrix, o->perm, &sg) != GSL_SUCCESS)
                return SUNLS_PACKAGE_FAIL_REC;
            o->lu_valid = 1;
        }
        if (gsl_linalg_LU_svx(&lv.matrix, o->perm, &xv.vector) != GSL_SUCCESS)
            return SUNLS_PACKAGE_FAIL_REC;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(xs[i]))
            return SUNLS_PACKAGE_FAIL_REC;
    return SUNLS_SUCCESS;
}

static int ls_free(SUNLinearSolver S)
{
    SUNLinSolFreeEmpty(S);
    return SUNLS_SUCCESS;
}

static void ode_silent(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)code, (void)module, (void)function, (void)msg, (void)user;
}

void ac_solver_pool_ode_free(ac_solver_pool_ode *o)
{
    if (o == NULL)
        return;
    if (o->mem != NULL)
        CVodeFree(&o->mem);
    if (o->ls != NULL)
        SUNLinSolFree(o->ls);
    if (o->A != NULL)
        SUNMatDestroy(o->A);
    if (o->y != NULL)
        N_VDestroy(o->y);
    if (o->sun != NULL)
        SUNContext_Free(&o->sun);
    free(o->J);
    free(o->u);
    free(o->v);
    free(o->md);
    free(o->mu);
    free(o->ml);
    free(o->su);
    free(o->lu);
    free(o->work);
    gsl_permutation_free(o->perm);
    free(o);
}

/* The CVODE objects of o (n levels): 0, or -1 when one could not be made. */
static int ode_cvode_new(ac_solver_pool_ode *o, const ac_solver_options *opt)
{
    sunindextype n = (sunindextype)o->n;
    double s = o->m->lambda + o->m->extra + o->m->mu;
    if (SUNContext_Create(NULL, &o->sun) != 0)
        return -1;
    o->y = N_VNew_Serial(n, o->sun);
    o->A = o->y != NULL ? SUNDenseMatrix(1, 1, o->sun) : NULL;
    o->ls = o->A != NULL ? SUNLinSolNewEmpty(o->sun) : NULL;
    if (o->ls == NULL)
        return -1;
    o->ls->content = o;
    o->ls->ops->gettype = ls_type;
    o->ls->ops->getid = ls_id;
    o->ls->ops->setup = ls_setup;
    o->ls->ops->solve = ls_solve;
    o->ls->ops->free = ls_free;
    o->mem = CVodeCreate(CV_BDF, o->sun);
    if (o->mem == NULL)
        return -1;
    memset(N_VGetArrayPointer(o->y), 0, o->n * sizeof(double));
    if (CVodeSetErrHandlerFn(o->mem, ode_silent, NULL) != CV_SUCCESS ||
        CVodeInit(o->mem, ode_rhs, 0.0, o->y) != CV_SUCCESS ||
        CVodeSStolerances(o->mem, opt->rtol, opt->atol) != CV_SUCCESS ||
        CVodeSetUserData(o->mem, o) != CV_SUCCESS ||
        CVodeSetLinearSolver(o->mem, o->ls, o->A) != CV_SUCCESS ||
        CVodeSetLinSysFn(o->mem, ode_linsys) != CV_SUCCESS ||
        CVodeSetInitStep(o->mem, 1e-3 / s) != CV_SUCCESS ||
        CVodeSetMaxNumSteps(o->mem, 1000000) != CV_SUCCESS ||
        CVodeSetMaxHnilWarns(o->mem, -1) != CV_SUCCESS)
        return -1;
    return 0;
}

int ac_solver_pool_ode_new(ac_solver_pool_model *m, const ac_solver_options *opt,
                           ac_solver_pool_ode **out, ac_error *err)
{
    ac_solver_pool_ode *o = calloc(1, sizeof *o);
    size_t n = m->n;
    *out = NULL;
    if (o == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (pool ODE, %zu levels)", n);
    o->m = m;
    o->n = n;
    o->J = malloc(n * n * sizeof *o->J);
    o->md = calloc(n, sizeof *o->md);
    o->mu = calloc(n, sizeof *o->mu);
    o->ml = calloc(n, sizeof *o->ml);
    o->lu = malloc(n * n * sizeof *o->lu);
    o->u = calloc(n, sizeof *o->u);
    o->v = calloc(n, sizeof *o->v);
    o->su = calloc(n, sizeof *o->su);
    o->work = malloc(AC_SOLVER_TR1_WORK(n) * sizeof *o->work);
    o->perm = gsl_permutation_alloc(n);
    if (o->J == NULL || o->md == NULL || o->mu == NULL || o->ml == NULL || o->lu == NULL ||
        o->u == NULL || o->v == NULL || o->su == NULL || o->work == NULL || o->perm == NULL ||
        ode_cvode_new(o, opt) < 0) {
        ac_solver_pool_ode_free(o);
        return ac_error_set(err, AC_ENOMEM, "out of memory (pool ODE, %zu levels)", n);
    }
    *out = o;
    return 0;
}

int ac_solver_pool_ode_start(ac_solver_pool_ode *o, const double *q, ac_error *err)
{
    memcpy(N_VGetArrayPointer(o->y), q, o->n * sizeof *q);
    o->t = 0.0;
    if (CVodeReInit(o->mem, 0.0, o->y) != CV_SUCCESS)
        return ac_error_set(err, AC_ENUMERIC, "the pool ODE could not restart");
    return 0;
}

int ac_solver_pool_ode_advance(ac_solver_pool_ode *o, double t_end, double *q, ac_error *err)
{
    sunrealtype tret = o->t;
    int flag = CV_SUCCESS;
    if (t_end > o->t) {
        flag = CVodeSetStopTime(o->mem, t_end);
        if (flag == CV_SUCCESS)
            flag = CVode(o->mem, t_end, o->y, &tret, CV_NORMAL);
    }
    memcpy(q, N_VGetArrayPointer(o->y), o->n * sizeof *q);
    if (flag < 0)
        return ac_error_set(err, AC_ENUMERIC, "integration failed at t = %g s (CVODE flag %d)",
                            (double)tret, flag);
    o->t = t_end;
    return 0;
}

double ac_solver_pool_ode_time(const ac_solver_pool_ode *o)
{
    return o->t;
}
