"""NMMKL dual (8) at scale (issue 6): native MKLFAST vs Clarabel, N=100, d=20,000, m=10.

    python benchmarks/nmmkl_scale.py                 # the issue's size (Clarabel takes about a minute)
    python benchmarks/nmmkl_scale.py --d 2000        # smaller

Data: problems/nmmkl_scale.toml (the Fig. 1 toy with 100 samples plus d − 3 irrelevant N(0,1)
features, standardized; C = 0.1, τ = 1).  Each solver runs the whole NMMKL fit (QCQP (8), LP (15),
rounding); the table gives the QCQP time (model build + solve), the relative duality gap of the
NumPy certificate of (7)–(8), the selected features and the ratio of QCQP times.
Writes bench-results/nmmkl_scale.csv.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fsopt.datasets import standardize
from fsopt.nmmkl import NMMKL
from fsopt.tools.problems import get_problem


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=20000, help="number of features")
    ap.add_argument("--m", type=int, default=10)
    ap.add_argument("--solvers", nargs="+", default=["MKLFAST", "CLARABEL"])
    ap.add_argument("--out", default="bench-results")
    args = ap.parse_args(argv)
    problem = get_problem("nmmkl_scale")
    X, y = problem.load(n_irrelevant=args.d - 3)
    X = standardize(X)
    rows, supports = [], {}
    for solver in args.solvers:
        est = NMMKL(args.m, C=problem.params["C"], tau=problem.params["tau"], solver=solver)
        t0 = time.perf_counter()
        est.fit(X, y)
        total = time.perf_counter() - t0
        rec = est.records_[0]
        supports[solver] = np.flatnonzero(est.support_)
        rows.append({"solver": solver, "N": X.shape[0], "d": X.shape[1], "m": args.m,
                     "qcqp_time_s": rec.compile_time + rec.solve_time, "fit_time_s": total,
                     "status": rec.status, "objective": rec.objective,
                     "rel_duality_gap": rec.certificate["duality_gap"] / max(1.0, abs(rec.objective)),
                     "certified_1e-6": abs(rec.certificate["duality_gap"]) <= 1e-6 * max(1.0, abs(rec.objective)),
                     "selected": " ".join(map(str, supports[solver]))})
    df = pd.DataFrame(rows)
    ref = args.solvers[-1]
    df["time_ratio_to_" + ref] = df.qcqp_time_s[df.solver == ref].iloc[0] / df.qcqp_time_s
    df["same_selection_as_" + ref] = [bool(np.array_equal(supports[s], supports[ref])) for s in df.solver]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "nmmkl_scale.csv", index=False)
    print(markdown(df.drop(columns=["N", "m"])))
    return df


def markdown(df) -> str:
    """A Markdown table (floats to 4 significant digits) without the optional tabulate package."""
    cell = lambda v: f"{v:.4g}" if isinstance(v, float) else str(v)  # noqa: E731
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
