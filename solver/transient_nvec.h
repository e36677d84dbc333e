/*
 * The serial N_Vector operations of the transient's CVODE integrator (transient_nvec.c),
 * 8 values at a time, byte-identical on every machine. Private to solver/.
 */
#ifndef AC_SOLVER_TRANSIENT_NVEC_H
#define AC_SOLVER_TRANSIENT_NVEC_H

#include <stddef.h>

#include <sundials/sundials_nvector.h>

/* Put the operations into v's table (before any clone of v: its clones copy the table):
 * linear sum, scale, const, abs, inv, addconst, WRMS norm. Returns 1 when the AVX2 build
 * was installed (the CPU has AVX2 and it gives the SSE2 build's bytes on a probe), 0 the
 * portable one. Allocates nothing. */
int ac_solver_tr_nvec_install(N_Vector v);

/* The probe's outputs (every kernel on fixed vectors; the first n of them into out), by
 * the AVX2 build when avx2 != 0 and the CPU has it, else the portable one: for tests. */
void ac_solver_tr_nvec_probe(int avx2, double *out, size_t n);

#endif
