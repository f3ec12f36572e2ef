"""LFS on the synthetic set of Fig. 3 (paper §4.2, Fig. 4): % of representative points whose
selected relevant features are exactly the expected ones (x1 for "+", x2 for "◇", both for "o"),
per cluster and overall; test error; every LP checked; relaxed-vs-binary ℓ1 distance (Fig. 10).

    python benchmarks/lfs_synthetic.py [--irrelevant 100 1000] [--n-jobs 2] [--seeds 0]

Every (8) is solved as an LP (HIGHSPY) and certified against its closed form; every (9) is
certified by its duality gap and re-solved with Clarabel (interior point) for the objective check.
"""
import argparse
import time

import numpy as np

from fsopt.datasets import standardize
from fsopt.datasets.lfs_synthetic import CLUSTERS, expected_sets, make_lfs_synthetic
from fsopt.lfs import LFS


def run(n_irrelevant, seed, n_jobs, check_solver):
    X, y, c = make_lfs_synthetic(n_irrelevant=n_irrelevant, random_state=seed, return_clusters=True)
    Xt, yt, _ = make_lfs_synthetic(100, 100, 200, n_irrelevant=n_irrelevant,
                                   random_state=seed + 1000, return_clusters=True)
    X, Xt = standardize(X, Xt)
    est = LFS(alpha=2, tau=2, solver="HIGHSPY", eps_solver="HIGHSPY", check_solver=check_solver,
              n_jobs=n_jobs, random_state=seed)
    t0 = time.perf_counter()
    est.fit(X, y)
    fit_time = time.perf_counter() - t0
    hit = (est.fstar_[:, :2] == expected_sets(c)).all(axis=1)
    clean = hit & ~est.fstar_[:, 2:].any(axis=1)
    dist = np.abs(est.f_relaxed_ - est.fstar_).sum(axis=1) / X.shape[1]
    records = [r for h in est.history_ for r in h.records]
    eps_gap = max(abs(r.certificate["gap_to_closed_form"]) for r in records if "gap_to_closed_form" in r.certificate)
    row = {"k": n_irrelevant, "seed": seed, **{f"{name}": 100 * hit[c == j].mean() for j, name in enumerate(CLUSTERS)},
           "overall": 100 * hit.mean(), "no_irrelevant": 100 * clean.mean(),
           "test_err": 100 * (1 - est.score(Xt, yt)), "n_lps": est.lp_check_["n_lps"],
           "certified": est.lp_check_["all_certified"], "max_resid": est.lp_check_["max_residual"],
           "eps_gap": eps_gap, "obj_gap": est.lp_check_["max_objective_gap"] or np.nan,
           "l1_mean": dist.mean(), "l1_max": dist.max(), "fit_s": fit_time}
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--irrelevant", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--check-solver", default="CLARABEL", help='second LP solver, or "none"')
    args = parser.parse_args()
    check = None if args.check_solver.lower() == "none" else args.check_solver
    print("k = irrelevant features; +, ◇, o, overall: % of points whose relevant features are exactly "
          "the expected ones; no_irrelevant: % also free of irrelevant features")
    head = (f"{'k':>5} {'seed':>4} {'+':>6} {'◇':>6} {'o':>6} {'overall':>7} {'no_irr':>6} {'test_err':>8} "
            f"{'LPs':>5} {'cert':>5} {'max_resid':>9} {'eps_gap':>8} {'obj_gap(9)':>10} "
            f"{'l1/M mean':>9} {'l1/M max':>8} {'fit_s':>6}")
    print(head)
    for k in args.irrelevant:
        for seed in args.seeds:
            r = run(k, seed, args.n_jobs, check)
            print(f"{r['k']:>5} {r['seed']:>4} {r['+']:6.1f} {r['◇']:6.1f} {r['o']:6.1f} {r['overall']:7.1f} "
                  f"{r['no_irrelevant']:6.1f} {r['test_err']:8.2f} {r['n_lps']:>5} {str(r['certified']):>5} "
                  f"{r['max_resid']:9.1e} {r['eps_gap']:8.1e} {r['obj_gap']:10.1e} {r['l1_mean']:9.2e} "
                  f"{r['l1_max']:8.2e} {r['fit_s']:6.1f}", flush=True)


if __name__ == "__main__":
    main()
