"""A LOGO check's gradients over the held-out columns: exact float64 products against the float32
estimate with its error bound, in one run.

    python benchmarks/logo_check_products.py [--shapes 460x20000 200x100000 1000x5000] [--repeat 7]

Prints a table: N, J, best time of ``zbar_products`` (float64) and of
``zbar_products_estimate`` (float32, with the bound) over ``--repeat`` runs, their ratio, the largest error of the
estimate over its bound (at most 1: the bound holds) and the median bound relative to the
largest product (how much it leaves undecided).  A and V as in a check: A from 1 % of the columns
weighted, V one column of derivatives.
"""
import argparse

import numpy as np
from logo_statistics import best_of  # this directory: the statistics kernels' benchmark

from fsopt.logo.margins import margin_coefficients, zbar_products, zbar_products_estimate


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=["460x20000", "200x100000", "1000x5000"])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print("| N | J | float64 (ms) | float32 estimate (ms) | ratio | largest error / bound | median bound / largest |")
    print("|---|---|---|---|---|---|---|")
    for shape in args.shapes:
        N, J = map(int, shape.split("x"))
        X = rng.standard_normal((N, J))
        A = margin_coefficients(X, np.arange(N) % 2, rng.random(J) * (rng.random(J) < 0.01), 2.0)
        V = rng.random((N, 1))
        X32 = X.astype(np.float32)
        exact = zbar_products(A, X, V)  # compiles both kernels outside the timings
        G, err = zbar_products_estimate(A, X32, V)
        t64 = best_of(lambda: zbar_products(A, X, V), args.repeat)
        t32 = best_of(lambda: zbar_products_estimate(A, X32, V), args.repeat)
        print(f"| {N} | {J:,} | {1e3 * t64:.1f} | {1e3 * t32:.1f} | {t64 / t32:.2f} | "
              f"{np.max(np.abs(G - exact) / err):.1e} | {np.median(err) / np.abs(exact).max():.1e} |", flush=True)


if __name__ == "__main__":
    main()
