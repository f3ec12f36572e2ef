"""The paper's checks for NMMKL, measured (issue 3, "Done when"):

    python benchmarks/nmmkl_checks.py            # all sections
    python benchmarks/nmmkl_checks.py --only toy theorem6

toy        Fig. 1 toy, 30 draws (400 train / 100 test, standardized, C by 5-fold CV): rate of
           m=1 → {Z} and m=2 → {X, Y}, test accuracy of a linear SVM on the selection.
corollary3 m = d: value and α of (8) vs the SVM dual (3) solved by LIBSVM.
theorem6   random problems d ≤ 12: ω(p_alg)/ω(p̃*) (exhaustive search) vs bound_; also the ratio
           when ties in B are broken by index only (p ignored).
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
from fsopt.nmmkl import NMMKL, exhaustive_search, svm_dual
from fsopt.nmmkl.protocol import selected_accuracy, tune

OUT = Path("bench-results")


def random_problem(seed, N, d):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    w = rng.standard_normal(d) * (rng.random(d) < 0.5)
    y = np.where(X @ w + 0.5 * rng.standard_normal(N) > 0, 1, -1)
    return X, y


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
    rows = []
    for seed in range(n):
        X, y = random_problem(100 + seed, N=80, d=10)
        C, tau = [0.1, 1.0, 10.0][seed % 3], [0.1, 1.0][seed % 2]
        est = NMMKL(10, C=C, tau=tau, solver_options={"tol": 1e-10}).fit(X, y)
        omega, alpha = svm_dual(X, y, C, tau)
        value = est.records_[0].objective
        rows.append({"seed": seed, "C": C, "tau": tau, "value_qcqp": value, "omega_libsvm": omega,
                     "rel_value_diff": abs(value - omega) / omega,
                     "alpha_max_diff": float(np.abs(est.alpha_ - alpha).max())})
    df = pd.DataFrame(rows)
    print(f"Corollary 3 (m = d, {n} problems N=80 d=10): max relative value difference "
          f"{df.rel_value_diff.max():.1e}, max |alpha - alpha_libsvm| {df.alpha_max_diff.max():.1e}")
    return df


def theorem6(per_d=6):
    rows = []
    for d in (8, 10, 12):
        for k in range(per_d):
            seed = 1000 * d + k
            X, y = random_problem(seed, N=40, d=d)
            m = [2, d // 2, d - 2][k % 3]
            est = NMMKL(m, C=1.0, tau=1.0).fit(X, y)
            best, subset, values = exhaustive_search(X, y, m)
            by_index = np.flatnonzero(est.partition_ == "A").tolist()
            by_index += np.flatnonzero(est.partition_ == "B")[: m - len(by_index)].tolist()
            rows.append({"d": d, "m": m, "seed": seed, "n_B": est.diagnostics_["n_B"],
                         "ratio": values[tuple(np.flatnonzero(est.support_))] / best,
                         "ratio_ties_by_index": values[tuple(sorted(by_index))] / best,
                         "bound": est.bound_, "optimal_found": tuple(np.flatnonzero(est.support_)) == subset,
                         **{k2: v for k2, v in est.diagnostics_.items() if not k2.startswith("n_")}})
    df = pd.DataFrame(rows)
    print(f"Theorem 6 ({len(df)} problems, d in 8/10/12, N=40, C=tau=1): ratio <= bound in "
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
