"""LFS fit time for N = 100, M ∈ {100, 1000, 10000}, α = 5, τ = 2, n_beta = 20, R = 1000
(paper §4.6: about 25 s for N = 100, M = 10,000 on a 12-core desktop, Matlab).

    python benchmarks/lfs_speed.py [--m 100 1000 10000] [--n-jobs 2] [--paths fast cvxpy]

Paths: "fast" = (9) by HIGHSPY (highspy directly, warm-started β sweep) and (8) by TOPK (closed
form); "cvxpy" = the default, HiGHS through cvxpy for both LPs (one compiled Problem per process,
a, b, ε as Parameters).  Data: the synthetic set of Fig. 3 padded with irrelevant features.
The columns split the time into statistics (weights (10), a, b) and the per-point work
(LPs, rounding, β selection), summed over the τ passes.
"""
import argparse
import time

import numpy as np

from fsopt.datasets import standardize
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.lfs import LFS

PATHS = {"fast": dict(solver="HIGHSPY", eps_solver="TOPK"), "cvxpy": dict(solver="HIGHS")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--paths", nargs="+", default=["fast", "cvxpy"], choices=list(PATHS))
    args = parser.parse_args()
    print(f"{'path':6} {'N':>4} {'M':>6} {'fit_s':>7} {'stats_s':>7} {'points_s':>8} {'LPs':>5} "
          f"{'LP_solve_s':>10} {'max_resid':>9}")
    for path in args.paths:
        for m in args.m:
            X, y = make_lfs_synthetic(n_plus=25, n_diamond=25, n_circle=50, n_irrelevant=m - 2,
                                      random_state=0)
            X = standardize(X)
            est = LFS(alpha=5, n_jobs=args.n_jobs, random_state=0, **PATHS[path])
            t0 = time.perf_counter()
            est.fit(X, y)
            fit = time.perf_counter() - t0
            h = est.history_
            solve = sum(r.solve_time + r.compile_time for it in h for r in it.records)
            print(f"{path:6} {X.shape[0]:>4} {m:>6} {fit:7.2f} {sum(i.statistics_time for i in h):7.2f} "
                  f"{sum(i.update_time for i in h):8.2f} {est.lp_check_['n_lps']:>5} {solve:10.2f} "
                  f"{est.lp_check_['max_residual']:9.1e}", flush=True)
    print("LP_solve_s sums the solvers' own times across workers (it can exceed the wall time).")


if __name__ == "__main__":
    main()
