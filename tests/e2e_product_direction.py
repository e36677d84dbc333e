#!/usr/bin/env python3
"""The direction of the fluid's end-to-end product (doc/models.md §5, "End-to-end failed
fractions"): on a chain a -> k_b x b -> k_c x c whose failure probabilities vary in time
(piecewise constant, random, conditionally independent given the time), the product over the
horizon's flow-weighted shares, 1 - (1 - f_a)(1 - f_b)^k_b (1 - f_c)^k_c with f_v weighted by
v's own flow (the survivors of the stages before), against the time-resolved truth
1 - E_t[(1 - a)(1 - b)^k_b (1 - c)^k_c]. Prints the largest truth - product found (a positive
value would be an optimistic case). Not run by `make test` (a one-off check, seeded).
Usage: python3 tests/e2e_product_direction.py [cases]"""
import sys

import numpy as np


def worst(rng, cases, stages):
    big = -1.0
    for _ in range(cases):
        n = int(rng.integers(2, 5))
        w = rng.dirichlet(np.ones(n))
        q = [rng.random(n) * rng.integers(0, 2, n) for _ in range(stages)]
        k = [1]
        for _ in range(1, stages):
            k.append(k[-1] * int(rng.integers(1, 5)))
        truth_clear = np.sum(w * np.prod([(1 - q[i]) ** k[i] for i in range(stages)], axis=0))
        prod, flow = 1.0, w.copy()
        for i in range(stages):
            f = np.sum(flow * q[i]) / np.sum(flow) if np.sum(flow) > 0 else 0.0
            prod *= (1 - f) ** k[i]
            flow = flow * (1 - q[i])
        big = max(big, (1 - truth_clear) - (1 - prod))
    return big


def main():
    cases = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    rng = np.random.default_rng(1)
    for stages in (2, 3):
        print(f"{stages} stages, {cases} time courses: largest truth - product {worst(rng, cases, stages):.3g}")


if __name__ == "__main__":
    main()
