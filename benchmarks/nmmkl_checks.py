"""The paper's checks for NMMKL, measured (issue 3, "Done when"):

    python benchmarks/nmmkl_checks.py            # all sections
    python benchmarks/nmmkl_checks.py --only toy theorem6

toy        Fig. 1 toy, 30 draws (400 train / 100 test, standardized, C by 5-fold CV): rate of
           m=1 → {Z} and m=2 → {X, Y}, test accuracy of a linear SVM on the selection.
corollary3 m = d: value and α of (8) vs the SVM dual (3) solved by LIBSVM.
theorem6   random problems d ≤ 12, τ ∈ [N/4, 4N] (finite, small bounds): ω(p_alg)/ω(p̃*) (exhaustive
           search) vs bound_ and the fraction of the bound used; also the ratio when ties in B are
           broken by index only (p ignored).
kkt        Corollary 2 / Theorem 1 residuals (worst over the Theorem 6 problems).
solvers    CLARABEL, ECOS, SCS (tol 1e-9): same selection and α on random problems and Sonar.
Writes bench-results/nmmkl_checks_<section>.csv.
"""
from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from fsopt.datasets import load_dataset, standardize
from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
from fsopt.nmmkl import NMMKL
from fsopt.nmmkl.checks import corollary3_table, random_problem, theorem6_table
from fsopt.nmmkl.protocol import selected_accuracy, tune

OUT = Path("bench-results")


def toy(draws=30):
    rows = []
    for seed in range(draws):
        X, y = make_nmmkl_toy(random_state=seed)
        Xtr, Xte = standardize(X[:400], X[400:])
        for m in (1, 2):
            est, best = tune(NMMKL(m), Xtr, y[:400], random_state=seed)
            mask = est.fit(Xtr, y[:400]).support_
            rows.append({"draw": seed, "m": m, "C": best["C"], "selected": "".join(np.array(list("XYZ"))[mask]),
                         "accuracy": selected_accuracy(mask, Xtr, y[:400], Xte, y[400:])})
    df = pd.DataFrame(rows)
    for m, want in ((1, "Z"), (2, "XY")):
        sub = df[df.m == m]
        print(f"toy m={m}: selected {{{want}}} in {(sub.selected == want).sum()}/{len(sub)} draws; "
              f"test accuracy {100 * sub.accuracy.mean():.1f} ± {100 * sub.accuracy.std(ddof=1):.1f} %; "
              f"sets {sub.selected.value_counts().to_dict()}; C chosen {sub.C.value_counts().to_dict()}")
    return df


def corollary3(n=10):
    df = corollary3_table(n)
    print(f"Corollary 3 (m = d, {n} problems N=80 d=10): max relative value difference "
          f"{df.rel_value_diff.max():.1e}, max |alpha - alpha_libsvm| / C {df.alpha_max_diff_over_C.max():.1e}")
    return df


def theorem6(n=18):
    df = theorem6_table(n, ds=(8, 10, 12))
    print(f"Theorem 6 ({len(df)} problems, d in 8/10/12, N in [20, 40], C in [0.1, 10], tau in [N/4, 4N]): "
          f"max fraction of the bound used {df.fraction_of_bound_used.max():.3g}; ratio <= bound in "
          f"{(df.ratio <= df.bound).sum()}/{len(df)}; ratio median {df.ratio.median():.3f} max {df.ratio.max():.3f}; "
          f"bound median {df.bound.median():.3g} min {df.bound.min():.3g} max {df.bound.max():.3g}; "
          f"exact optimum found in {df.optimal_found.sum()}/{len(df)}; ties by index only: ratio max "
          f"{df.ratio_ties_by_index.max():.3f}, median {df.ratio_ties_by_index.median():.3f}")
    print(df[["d", "m", "n_B", "ratio", "ratio_ties_by_index", "bound"]].to_string(index=False,
                                                                                   float_format="%.4g"))
    keys = ["corollary2_lambda", "corollary2_p_A_C", "kkt_stationarity", "kkt_complementarity", "p_agreement"]
    print("KKT / Corollary 2 residuals, worst over these problems: "
          + ", ".join(f"{k} {df[k].max():.1e}" for k in keys)
          + f"; sum p_LP - m max {np.abs(df.p_sum_lp - df.m).max():.1e}, sum p_cone - m max {np.abs(df.p_sum_cone - df.m).max():.1e}")
    return df


def solvers(n=10):
    cases = [(f"random {s}", *random_problem(2000 + s, N=60, d=15), 5) for s in range(n)]
    Xs, ys = load_dataset("sonar")
    cases.append(("sonar", standardize(Xs), ys, 10))
    rows = []
    opts = {"CLARABEL": {}, "ECOS": {}, "SCS": {"tol": 1e-9, "max_iter": 200000}}
    for name, X, y, m in cases:
        fits = {s: NMMKL(m, C=0.3, tau=1.0, solver=s, solver_options=o).fit(X, y) for s, o in opts.items()}
        ref = fits["CLARABEL"]
        for s, est in fits.items():
            rows.append({"case": name, "solver": s, "same_selection": bool((est.support_ == ref.support_).all()),
                         "same_partition": bool((est.partition_ == ref.partition_).all()),
                         "alpha_max_diff": float(np.abs(est.alpha_ - ref.alpha_).max()),
                         "p_max_diff": float(np.abs(est.p_ - ref.p_).max()),
                         "qcqp_certificate": est.records_[0].residual,
                         "solve_time": est.records_[0].solve_time})
    df = pd.DataFrame(rows)
    for s, sub in df.groupby("solver", sort=False):
        print(f"{s:8}: same selection {sub.same_selection.sum()}/{len(sub)}, same A/B/C {sub.same_partition.sum()}/{len(sub)}, "
              f"max |alpha - alpha_CLARABEL| {sub.alpha_max_diff.max():.1e}, max |p - p_CLARABEL| {sub.p_max_diff.max():.1e}, "
              f"worst certificate {sub.qcqp_certificate.max():.1e}")
    return df


SECTIONS = {"toy": toy, "corollary3": corollary3, "theorem6": theorem6, "solvers": solvers}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=sorted(SECTIONS), default=list(SECTIONS))
    args = ap.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    warnings.simplefilter("always")
    for name in args.only:
        SECTIONS[name]().to_csv(OUT / f"nmmkl_checks_{name}.csv", index=False)


if __name__ == "__main__":
    main()
