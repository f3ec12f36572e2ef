"""NMMKL's whole fit at scale (issues 6, 45): the default NMMKL() against solver="CLARABEL".

    python benchmarks/nmmkl_scale.py                          # d = 20,000 on problems/nmmkl_scale
    python benchmarks/nmmkl_scale.py --d 200 1000 5000 20000 --data nmmkl_scale colon   # crossover

Data: ``nmmkl_scale`` (problems/nmmkl_scale.toml: the Fig. 1 toy with 100 samples plus d − 3
irrelevant N(0,1) features) or ``colon`` (62 samples; its first d genes, or all 2,000 plus
d − 2,000 irrelevant N(0,1) features), standardized; C = 0.1, τ = 1, m = 10.  Each size runs,
after one warm-up fit, ``--repeats`` rounds of the configurations interleaved: the default
``NMMKL()`` (solver and lp_solver "auto"), ``solver="MKLFAST"``, ``solver="CLARABEL"``, and ``solver="CLARABEL",
lp_solver="HIGHS"`` (the default before issue 45: both subproblems on the whole problem).  The
table gives the median whole-fit time, the time of the QCQP (8) and of the LP (15) (model build +
solve), who solved them, the relative duality gap of (8)'s NumPy certificate, whether the
selection equals that of solver="CLARABEL", and the ratio of whole-fit times to solver="CLARABEL".
Writes bench-results/nmmkl_scale.csv.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from fsopt.datasets import add_irrelevant_features, load_dataset, standardize
from fsopt.nmmkl import NMMKL
from fsopt.tools.problems import get_problem

CONFIGS = {"default": {}, "MKLFAST": {"solver": "MKLFAST"}, "CLARABEL": {"solver": "CLARABEL"},
           "CLARABEL+HIGHS": {"solver": "CLARABEL", "lp_solver": "HIGHS"}}


def load(data, d):
    """X (standardized) and y of ``data`` with d features."""
    if data == "nmmkl_scale":
        X, y = get_problem("nmmkl_scale").load(n_irrelevant=d - 3)
    else:
        X, y = load_dataset(data)
        X = X[:, :d] if d <= X.shape[1] else add_irrelevant_features(X, d - X.shape[1], random_state=0)
    return standardize(X), y


def run(X, y, m, config):
    """One whole fit: its row (times, solvers, certificate) and the selected features."""
    est = NMMKL(m, C=0.1, tau=1.0, **CONFIGS[config])
    t0 = time.perf_counter()
    est.fit(X, y)
    total = time.perf_counter() - t0
    qcqp, lp = est.records_
    gap = qcqp.certificate["duality_gap"] / max(1.0, abs(qcqp.objective))
    return {"fit_s": total, "qcqp_s": qcqp.compile_time + qcqp.solve_time, "lp_s": lp.compile_time + lp.solve_time,
            "qcqp_solver": qcqp.solver, "lp_solver": lp.solver, "rel_gap_8": gap,
            "certified": qcqp.certified and lp.certified}, np.flatnonzero(est.support_)


def measure(data, d, m, repeats):
    """The rows of one (data, d): configurations interleaved, medians over ``repeats`` rounds."""
    X, y = load(data, d)
    run(X[:, :50], y, m, "default")  # warm-up: imports, compiled kernels
    rows, selected = {c: [] for c in CONFIGS}, {}
    for _ in range(repeats):
        for config in CONFIGS:
            row, selected[config] = run(X, y, m, config)
            rows[config].append(row)
    out = []
    for config, runs in rows.items():
        row = dict(runs[-1], **{k: float(np.median([r[k] for r in runs])) for k in ("fit_s", "qcqp_s", "lp_s")})
        out.append({"data": data, "N": X.shape[0], "d": d, "config": config, **row,
                    "same_selection": bool(np.array_equal(selected[config], selected["CLARABEL"])),
                    "selected": " ".join(map(str, selected[config]))})
    clarabel = next(r["fit_s"] for r in out if r["config"] == "CLARABEL")
    for row in out:
        row["speedup_vs_CLARABEL"] = clarabel / row["fit_s"]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[20000], help="numbers of features")
    ap.add_argument("--data", nargs="+", default=["nmmkl_scale"], choices=["nmmkl_scale", "colon", "sonar"])
    ap.add_argument("--m", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=1, help="interleaved rounds (medians)")
    ap.add_argument("--out", default="bench-results")
    args = ap.parse_args(argv)
    rows = [row for data in args.data for d in args.d for row in measure(data, d, args.m, args.repeats)]
    df = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "nmmkl_scale.csv", index=False)
    print(markdown(df.drop(columns=["selected"])))
    print(f"load average {os.getloadavg()[0]:.2f} (1 min)")
    return df


def markdown(df) -> str:
    """A Markdown table (floats to 4 significant digits) without the optional tabulate package."""
    cell = lambda v: f"{v:.4g}" if isinstance(v, float) else str(v)  # noqa: E731
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
