"""LOGO with and without elimination (issue 11): same answer, and what elimination saves.

    python benchmarks/logo_elimination.py [--turns 1 1.5 1.75] [--irrelevant 2000 5000 20000]
                                          [--lam 1 2] [--theta 0.01] [--colon [DATA_DIR]]

Spiral (N = 460, σ = 2, λ = 1, solver LBFGSB, max_iter 100 by default): for each number of turns per arm and
each number of irrelevant features, one fit with elimination (prune_below = 1e-8) and one without
(prune_below = None), in one process.  Reports the two top-ranked features, convergence, outer
iterations, time, features dropped / re-entered (summed over the history), and the largest weight
difference between the two fits relative to the largest weight.

``--colon [DIR]``: Colon (62 × 2000, shipped with fsopt, or colon.csv.gz in DIR) leave-one-out as in the paper's microarray protocol
(σ = 5, λ = 1, genes z-scored on the training part): in how many folds the top-5 genes or the
support differ with and without elimination, the largest weight difference, and the iterations.
"""
import argparse
import time
import warnings

import numpy as np


def fit(X, y, prune_below, max_iter, sigma=2.0, lam=1.0, theta=0.01):
    from fsopt import LOGO

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-convergence is reported in the table
        est = LOGO(sigma=sigma, lam=lam, solver="LBFGSB", max_iter=max_iter, theta=theta,
                   prune_below=prune_below).fit(X, y)
    return est, time.perf_counter() - t0


def colon_loocv(data_dir, max_iter):
    from fsopt.datasets import load_dataset, standardize

    X, y = load_dataset("colon", data_dir=data_dir)
    top5 = support = 0
    diffs, its, converged = [], [], 0
    for n in range(len(y)):
        train = np.arange(len(y)) != n
        Xt = standardize(X[train])
        with_, _ = fit(Xt, y[train], 1e-8, max_iter, sigma=5.0)
        without, _ = fit(Xt, y[train], None, max_iter, sigma=5.0)
        top5 += set(np.argsort(with_.weights_)[-5:]) != set(np.argsort(without.weights_)[-5:])
        support += not np.array_equal(with_.get_support(), without.get_support())
        diffs.append(np.max(np.abs(with_.weights_ - without.weights_)) / without.weights_.max())
        its.append((with_.n_iter_, without.n_iter_))
        converged += with_.converged_ and without.converged_
    its = np.array(its)
    print(f"Colon LOOCV, {len(y)} folds (sigma = 5, lam = 1): top-5 genes differ in {top5} folds, "
          f"support in {support}; both converged in {converged}; largest weight difference "
          f"{max(diffs):.1e} of max w; outer iterations with / without elimination: median "
          f"{np.median(its[:, 0]):g} / {np.median(its[:, 1]):g}, max {its[:, 0].max()} / {its[:, 1].max()}")


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
    ap.add_argument("--lam", type=float, nargs="+", default=[1.0])
    ap.add_argument("--theta", type=float, default=0.01)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--colon", nargs="?", const="", metavar="DATA_DIR",
                    help="run the Colon leave-one-out comparison instead (default: the data shipped with fsopt)")
    args = ap.parse_args()
    if args.colon is not None:
        colon_loocv(args.colon or None, args.max_iter)
        return
    print("| turns | λ | irrelevant | with elimination | without elimination | max weight diff / max w |")
    print("|---|---|---|---|---|---|")
    for turns, lam, k in ((t, lam, k) for t in args.turns for lam in args.lam for k in args.irrelevant):
        X, y = make_spiral(230, k, turns=turns, random_state=0)
        with_, t_with = fit(X, y, 1e-8, args.max_iter, lam=lam, theta=args.theta)
        without, t_without = fit(X, y, None, args.max_iter, lam=lam, theta=args.theta)
        diff = np.max(np.abs(with_.weights_ - without.weights_)) / max(without.weights_.max(), 1e-300)
        print(f"| {turns:g} | {lam:g} | {k:,} | {describe(with_, t_with)} | {describe(without, t_without)} | "
              f"{diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
