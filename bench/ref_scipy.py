"""The seed reference (shared/seeds/000_*.txt): power-of-d mean field integrated by
scipy.integrate.solve_ivp (BDF, rtol 1e-7, atol 1e-9) from empty to T, the end state taken
as the equilibrium. Run with Debian's /usr/bin/python3 (python3-scipy).

usage: ref_scipy.py LAMBDA D K T REPEATS
prints: "seconds <best processor time of one run>" (process_time: a shared machine's load does not inflate it) then "q <q_1> ... <q_K>"
"""
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp


def mfa_power_of_d_rhs(t, q, lam=0.8, mu=1.0, d=2):
    # verbatim from the seed document
    K = len(q)
    q_ext = np.empty(K + 2)
    q_ext[0] = 1.0
    q_ext[1:-1] = np.clip(q, 0.0, 1.0)
    q_ext[-1] = 0.0
    dq = np.empty_like(q)
    for k in range(1, K + 1):
        arr = lam * (q_ext[k - 1] ** d - q_ext[k] ** d)
        svc = mu * (q_ext[k] - q_ext[k + 1])
        dq[k - 1] = arr - svc
    for k in range(K - 1):
        if dq[k] < dq[k + 1] and q[k] <= q[k + 1]:
            dq[k + 1] = dq[k]
    return dq


def run(lam, mu, d, K, T):
    q0 = np.zeros(K)
    sol = solve_ivp(mfa_power_of_d_rhs, [0, T], q0, args=(lam, mu, d),
                    method="BDF", rtol=1e-7, atol=1e-9)
    return np.clip(sol.y[:, -1], 0.0, 1.0)


def main():
    lam, d, K, T, repeats = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), \
        float(sys.argv[4]), int(sys.argv[5])
    best = float("inf")
    q = None
    for _ in range(repeats):
        t0 = time.process_time()
        q = run(lam, 1.0, d, K, T)
        best = min(best, time.process_time() - t0)
    print(f"seconds {best:.9g}")
    print("q " + " ".join(f"{v:.17g}" for v in q))


if __name__ == "__main__":
    main()
