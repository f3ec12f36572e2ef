"""LOGO with and without elimination (issue 11): same answer, and what elimination saves.

    python benchmarks/logo_elimination.py [--turns 1 1.5 1.75] [--irrelevant 2000 5000 20000]

Spiral (N = 460, σ = 2, λ = 1, solver LBFGSB, max_iter 100 by default): for each number of turns per arm and
each number of irrelevant features, one fit with elimination (prune_below = 1e-8) and one without
(prune_below = None), in one process.  Reports the two top-ranked features, convergence, outer
iterations, time, features dropped / re-entered (summed over the history), and the largest weight
difference between the two fits relative to the largest weight.
"""
import argparse
import time
import warnings

import numpy as np


def fit(X, y, prune_below, max_iter):
    from fsopt import LOGO

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-convergence is reported in the table
        est = LOGO(sigma=2.0, lam=1.0, solver="LBFGSB", max_iter=max_iter, prune_below=prune_below).fit(X, y)
    return est, time.perf_counter() - t0


def describe(est, seconds):
    s = est.scores_
    top = sorted(np.argsort(s)[-2:].tolist())
    dropped = sum(getattr(h, "n_dropped", 0) for h in est.history_)
    back = sum(getattr(h, "n_reentered", 0) for h in est.history_)
    ok = top == [0, 1] and s[2:].max() < 0.01
    return (f"top {top}{'' if ok else ' (not recovered)'}, {est.n_iter_} its, "
            f"{'converged' if est.converged_ else 'NOT converged'}, {seconds:.1f} s, "
            f"dropped {dropped} / re-entered {back}")


def main():
    from fsopt.datasets.spiral import make_spiral

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=float, nargs="+", default=[1.0, 1.5, 1.75])
    ap.add_argument("--irrelevant", type=int, nargs="+", default=[2000, 5000, 20000])
    ap.add_argument("--max-iter", type=int, default=100)
    args = ap.parse_args()
    print("| turns | irrelevant | with elimination | without elimination | max weight diff / max w |")
    print("|---|---|---|---|---|")
    for turns in args.turns:
        for k in args.irrelevant:
            X, y = make_spiral(230, k, turns=turns, random_state=0)
            with_, t_with = fit(X, y, 1e-8, args.max_iter)
            without, t_without = fit(X, y, None, args.max_iter)
            diff = np.max(np.abs(with_.weights_ - without.weights_)) / max(without.weights_.max(), 1e-300)
            print(f"| {turns:g} | {k:,} | {describe(with_, t_with)} | {describe(without, t_without)} | "
                  f"{diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
