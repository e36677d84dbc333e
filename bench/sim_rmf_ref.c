/*
 * sim_rmf_ref: the refined mean-field reference used by tests/test_sim.c
 * (test_power_of_two_refined), recomputed from the published formula.
 *
 * Power-of-two with replacement, per-server load rho, mu = 1 (doc/models.md §1-2):
 * f_k(q) = rho (q_{k-1}^2 - q_k^2) - (q_k - q_{k+1}), fixed point q_k = rho^(2^k - 1).
 * Refined mean field (Gast and Van Houdt 2017): E[sum q] = sum q* + (sum V) / N with
 * A W + W A^T + Q = 0 (A the Jacobian, Q = diag of the transition rates at q*) and
 * A V = -1/2 sum_jl d2f/dq_j dq_l W_jl = -rho (W_{k-1,k-1} - W_kk).
 * It reproduces the published values (rmf_tool): rho 0.9, N 10: 2.7513; rho 0.7, N 10: 1.2150;
 * rho 0.7, N 100: 1.1386.
 *
 *   cc -O2 -std=c11 bench/sim_rmf_ref.c $(pkg-config --libs gsl) -lm -o build/sim_rmf_ref
 *   build/sim_rmf_ref 0.9 10 100
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_linalg.h>

#define LEVELS 20

int main(int argc, char **argv)
{
    double rho, q[LEVELS + 2], A[LEVELS][LEVELS] = {{0}}, Q[LEVELS] = {0}, mf = 0, v = 0;
    const size_t n = LEVELS * LEVELS;
    gsl_matrix *M, *J;
    gsl_vector *b, *w, *c, *V;
    gsl_permutation *p, *p2;
    int sign;
    if (argc < 3) {
        fprintf(stderr, "usage: sim_rmf_ref RHO N...\n");
        return 2;
    }
    rho = strtod(argv[1], NULL);
    q[0] = 1;
    for (int k = 1; k <= LEVELS; k++)
        q[k] = pow(rho, pow(2, k) - 1);
    q[LEVELS + 1] = 0;
    for (int k = 1; k <= LEVELS; k++) {
        int i = k - 1;
        if (k > 1)
            A[i][i - 1] += 2 * rho * q[k - 1];
        A[i][i] += -2 * rho * q[k] - 1;
        if (k < LEVELS)
            A[i][i + 1] += 1;
        Q[i] = rho * (q[k - 1] * q[k - 1] - q[k] * q[k]) + (q[k] - q[k + 1]);
    }
    /* Lyapunov by Kronecker: (I (x) A + A (x) I) vec W = -vec Q */
    M = gsl_matrix_calloc(n, n);
    b = gsl_vector_calloc(n);
    w = gsl_vector_alloc(n);
    for (size_t i = 0; i < LEVELS; i++)
        for (size_t j = 0; j < LEVELS; j++) {
            size_t r = i * LEVELS + j;
            for (size_t l = 0; l < LEVELS; l++) {
                *gsl_matrix_ptr(M, r, l * LEVELS + j) += A[i][l];
                *gsl_matrix_ptr(M, r, i * LEVELS + l) += A[j][l];
            }
            if (i == j)
                gsl_vector_set(b, r, -Q[i]);
        }
    p = gsl_permutation_alloc(n);
    gsl_linalg_LU_decomp(M, p, &sign);
    gsl_linalg_LU_solve(M, p, b, w);
    J = gsl_matrix_alloc(LEVELS, LEVELS);
    c = gsl_vector_alloc(LEVELS);
    V = gsl_vector_alloc(LEVELS);
    for (size_t i = 0; i < LEVELS; i++) {
        double wprev = i > 0 ? gsl_vector_get(w, (i - 1) * LEVELS + (i - 1)) : 0;
        for (size_t j = 0; j < LEVELS; j++)
            gsl_matrix_set(J, i, j, A[i][j]);
        gsl_vector_set(c, i, -rho * (wprev - gsl_vector_get(w, i * LEVELS + i)));
    }
    p2 = gsl_permutation_alloc(LEVELS);
    gsl_linalg_LU_decomp(J, p2, &sign);
    gsl_linalg_LU_solve(J, p2, c, V);
    for (size_t k = 1; k <= LEVELS; k++) {
        mf += q[k];
        v += gsl_vector_get(V, k - 1);
    }
    for (int a = 2; a < argc; a++) {
        double N = strtod(argv[a], NULL);
        printf("rho %g N %g: mean field %.5f refined %.5f (V = %.5f)\n", rho, N, mf, mf + v / N, v);
    }
    gsl_permutation_free(p);
    gsl_permutation_free(p2);
    gsl_matrix_free(M);
    gsl_matrix_free(J);
    gsl_vector_free(b);
    gsl_vector_free(w);
    gsl_vector_free(c);
    gsl_vector_free(V);
    return 0;
}
