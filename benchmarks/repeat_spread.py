"""How many repetitions give a stable median time: from a study run with many repetitions
(``fsopt bench --quick --repeat 9 --out DIR``), the relative distance between the median of r
repetitions drawn from a pair's (with replacement, a bootstrap) and the median of all of them, for
each (solver, instance) pair whose default solves were all certified; typical (median) and 90th
percentile per pair, then the median over pairs.  The default of ``fsopt bench --repeat`` is
where a larger r stops paying.

    python benchmarks/repeat_spread.py DIR [--draws 2000] [--random-state 0]
"""
import argparse
from pathlib import Path

import numpy as np
import pandas as pd


def spread(frame, repeats=(1, 3, 5, 7), draws=2000, random_state=0) -> pd.DataFrame:
    """r × (typical, p90): the median over pairs of the bootstrap deviation of an r-median."""
    rng = np.random.default_rng(random_state)
    default = frame[(frame["budget"] == "default") & frame["solved"]]
    rows = []
    for _, pair in default.groupby(["problem", "kind", "size", "solver"]):
        t = pair["time"].to_numpy(dtype=float)
        if len(t) < max(repeats):
            continue
        full = np.median(t)
        for r in repeats:
            dev = np.abs(np.median(rng.choice(t, size=(draws, r)), axis=1) - full) / full
            rows.append({"r": r, "typical": np.median(dev), "p90": np.quantile(dev, 0.9)})
    if not rows:
        raise ValueError(f"no (solver, instance) pair has {max(repeats)} certified default repetitions; "
                         f"run the study with --repeat {max(repeats) + 2}")
    table = pd.DataFrame(rows)
    return table.groupby("r").median().assign(pairs=len(table) // len(repeats))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("study", type=Path, help="an fsopt bench --out folder")
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args()
    results = args.study / "results.parquet"
    if not results.is_file():
        raise SystemExit(f"{results} does not exist: give the --out folder of a finished fsopt bench study")
    table = spread(pd.read_parquet(results), draws=args.draws, random_state=args.random_state)
    print(table.to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
