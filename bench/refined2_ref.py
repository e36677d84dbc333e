#!/usr/bin/python3
"""refined2_ref.py: independent reference numbers for the refined mean field of order 1/N and
1/N^2 (Gast, Bortolussi and Tribastone 2019) of a power-of-d pool with a buffer of K jobs per
server, by the generic algorithm of rmf_tool (github.com/ngast/rmf_tool,
src/refinedRefined_fixedPoint.py, computePiVA): full derivative tensors F', F'', F''', F''''
of the drift and Q, Q', Q'', R of the jump covariance built from the list of transitions
(polynomial rates, differentiated exactly), W by scipy's Lyapunov solver, D and C by the
Kronecker-sum linear systems (no closed form for D), B by Lyapunov, A by a linear solve.
For small N it also solves the exact CTMC (servers exchangeable: the counts of servers at
each level) for E[L].

Used once to produce the numbers hard-coded in tests/test_solver.c (test_refined2_reference);
never run by `make test`. Needs python3-numpy and python3-scipy.

usage: /usr/bin/python3 bench/refined2_ref.py (Debian python3-numpy, python3-scipy)
"""
import itertools
import math

import numpy as np
from scipy import sparse
from scipy.linalg import solve_continuous_lyapunov
from scipy.optimize import fsolve
from scipy.sparse.linalg import spsolve


def poly_deriv(poly, var):
    """d/dx_var of a polynomial {exponent tuple: coefficient}."""
    out = {}
    for e, c in poly.items():
        if e[var] > 0:
            e2 = list(e)
            e2[var] -= 1
            out[tuple(e2)] = out.get(tuple(e2), 0.0) + c * e[var]
    return out


def poly_eval(poly, x):
    return sum(c * np.prod([x[i] ** e[i] for i in range(len(e))]) for e, c in poly.items())


def transitions(K, d, lam, mu):
    """(jump vector, rate polynomial) of the power-of-d pool with buffer K (per server)."""
    n = K
    tr = []
    for k in range(n):
        up = {}
        e = [0] * n
        if k > 0:
            e[k - 1] = d
            up[tuple(e)] = lam
        else:
            up[tuple([0] * n)] = lam
        e = [0] * n
        e[k] = d
        up[tuple(e)] = up.get(tuple(e), 0.0) - lam
        l = np.zeros(n)
        l[k] = 1.0
        tr.append((l, up))
        down = {}
        e = [0] * n
        e[k] = 1
        down[tuple(e)] = mu
        if k + 1 < n:
            e = [0] * n
            e[k + 1] = 1
            down[tuple(e)] = -mu
        tr.append((-l, down))
    return tr


def derivs(poly, n, order, x):
    """The tensor of order-th derivatives of poly at x (shape n^order)."""
    T = np.zeros((n,) * order)
    for idx in itertools.product(range(n), repeat=order):
        p = poly
        for v in idx:
            p = poly_deriv(p, v)
            if not p:
                break
        if p:
            T[idx] = poly_eval(p, x)
    return T


def tensors(tr, n, x):
    Fp = np.zeros((n, n))
    Fpp = np.zeros((n, n, n))
    Fppp = np.zeros((n, n, n, n))
    Fpppp = np.zeros((n, n, n, n, n))
    Q = np.zeros((n, n))
    Qp = np.zeros((n, n, n))
    Qpp = np.zeros((n, n, n, n))
    R = np.zeros((n, n, n))
    for l, p in tr:
        r0 = poly_eval(p, x)
        d1 = derivs(p, n, 1, x)
        d2 = derivs(p, n, 2, x)
        d3 = derivs(p, n, 3, x)
        d4 = derivs(p, n, 4, x)
        Fp += np.einsum('i,j->ij', l, d1)
        Fpp += np.einsum('i,jk->ijk', l, d2)
        Fppp += np.einsum('i,jkl->ijkl', l, d3)
        Fpppp += np.einsum('i,jklm->ijklm', l, d4)
        ll = np.outer(l, l)
        Q += ll * r0
        Qp += np.einsum('ab,k->abk', ll, d1)
        Qpp += np.einsum('ab,kl->abkl', ll, d2)
        R += np.einsum('a,b,c->abc', l, l, l) * r0
    return Fp, Fpp, Fppp, Fpppp, Q, Qp, Qpp, R


def sym(T):
    k = T.ndim
    out = np.zeros_like(T)
    for s in itertools.permutations(range(k)):
        out += np.transpose(T, s)
    return out / math.factorial(k)


def kron_sum(Fp, k):
    n = Fp.shape[0]
    I = sparse.eye(n)
    M = None
    for i in range(k):
        term = None
        for j in range(k):
            f = sparse.csr_matrix(Fp) if i == j else I
            term = f if term is None else sparse.kron(term, f)
        M = term if M is None else M + term
    return sparse.csc_matrix(M)


def pi_v_a(Fp, Fpp, Fppp, Fpppp, Q, Qp, Qpp, R):
    """computePiVA of rmf_tool, with direct sparse solves instead of lgmres."""
    n = Fp.shape[0]
    W = solve_continuous_lyapunov(Fp, -Q)
    V = -np.linalg.solve(Fp, np.tensordot(Fpp, W / 2, 2))
    QW = sym(np.tensordot(W, Q, 0))
    D = spsolve(kron_sum(Fp, 4), -6 * QW.reshape(n ** 4)).reshape((n,) * 4)
    QV = sym(np.tensordot(Q, V, 0))
    QpW = sym(np.tensordot(Qp, W, 1))
    FppD = sym(np.tensordot(Fpp, D, 2))
    b = (-(3 * FppD / 2 + 3 * QV + 3 * QpW + R)).reshape(n ** 3)
    C = spsolve(kron_sum(Fp, 3), b).reshape((n,) * 3)
    FppC = sym(np.tensordot(Fpp, C, 2))
    FpppD = sym(np.tensordot(Fppp, D, 3))
    QpV = sym(np.tensordot(Qp, V, 1))
    QppW = sym(np.tensordot(Qpp, W, 2))
    B = solve_continuous_lyapunov(Fp, -(FppC + FpppD / 3 + QpV + QppW / 2))
    A = -np.linalg.solve(Fp, np.tensordot(Fpp, B, 2) / 2 + np.tensordot(Fppp, C, 3) / 6 +
                         np.tensordot(Fpppp, D, 4) / 24)
    return W, V, A


def fixed_point(tr, n, rho, d):
    def drift(x):
        f = np.zeros(n)
        for l, p in tr:
            f += l * poly_eval(p, x)
        return f
    x0 = np.array([rho ** ((d ** (k + 1) - 1) / (d - 1)) for k in range(n)])
    x = fsolve(drift, x0, xtol=1e-15)
    return x, np.max(np.abs(drift(x)))


def exact_ctmc(N, K, d, lam, mu):
    """E[L] per server of N servers, buffer K, power-of-d with replacement: the state is the
    number of servers holding j jobs, j = 0..K; an arrival joins the least loaded of d
    uniform samples (lost when all are full)."""
    states = []

    def gen(prefix, left, slots):
        if slots == 1:
            states.append(tuple(prefix + [left]))
            return
        for c in range(left, -1, -1):
            gen(prefix + [c], left - c, slots - 1)
    gen([], N, K + 1)
    index = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []
    for i, s in enumerate(states):
        out = 0.0
        # arrival: joins level j (holding j) with prob (x_{>=j}^d - x_{>=j+1}^d)
        ge = [sum(s[j:]) / N for j in range(K + 2)]
        for j in range(K):
            pj = ge[j] ** d - ge[j + 1] ** d
            if s[j] > 0 and pj > 0:
                t = list(s)
                t[j] -= 1
                t[j + 1] += 1
                r = N * lam * pj
                rows.append(index[tuple(t)])
                cols.append(i)
                vals.append(r)
                out += r
        for j in range(1, K + 1):
            if s[j] > 0:
                t = list(s)
                t[j] -= 1
                t[j - 1] += 1
                r = mu * s[j]
                rows.append(index[tuple(t)])
                cols.append(i)
                vals.append(r)
                out += r
        rows.append(i)
        cols.append(i)
        vals.append(-out)
    m = len(states)
    G = sparse.csr_matrix((vals, (rows, cols)), shape=(m, m)).tolil()
    G[0, :] = 1.0
    rhs = np.zeros(m)
    rhs[0] = 1.0
    p = spsolve(sparse.csc_matrix(G), rhs)
    L = np.array([sum(j * s[j] for j in range(K + 1)) / N for s in states])
    return float(p @ L), m


def main():
    np.set_printoptions(precision=12)
    print("refined2_ref.py: power-of-d with replacement, mu = 1, buffer K per server")
    print("d  K  rho    mean field E[L]      v (1/N coeff)       a (1/N^2 coeff)")
    cases = [(2, 5, 0.9), (2, 7, 0.9), (2, 6, 0.7), (3, 5, 0.9)]
    results = {}
    for d, K, rho in cases:
        tr = transitions(K, d, rho, 1.0)
        x, res = fixed_point(tr, K, rho, d)
        Fp, Fpp, Fppp, Fpppp, Q, Qp, Qpp, R = tensors(tr, K, x)
        W, V, A = pi_v_a(Fp, Fpp, Fppp, Fpppp, Q, Qp, Qpp, R)
        results[(d, K, rho)] = (x.sum(), V.sum(), A.sum())
        print("%d %2d  %.2f  %.15f  %.15f  %.15f   (residual %.1e)" %
              (d, K, rho, x.sum(), V.sum(), A.sum(), res))
    print("exact CTMC E[L] against mf + v/N and mf + v/N + a/N^2:")
    for d, K, rho, N in [(2, 5, 0.9, 10), (2, 6, 0.7, 10), (3, 5, 0.9, 10), (2, 7, 0.9, 10)]:
        mf, v, a = results[(d, K, rho)]
        e, m = exact_ctmc(N, K, d, rho, 1.0)
        print("d=%d K=%d rho=%.2f N=%d (%d states): exact %.10f  1/N %.10f  1/N^2 %.10f" %
              (d, K, rho, N, m, e, mf + v / N, mf + v / N + a / N ** 2))


if __name__ == "__main__":
    main()
