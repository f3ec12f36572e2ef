"""The typical spread (every estimator divides X by it) on data of several kinds: its time.

    python benchmarks/typical_spread.py [--shape 460x20000] [--repeat 5] [--kinds normal binary counts]

Prints the best of ``--repeat`` calls of ``fsopt.core.scaling.typical_spread`` per kind of X
(compiled outside the timings): N(0, 1) values, binary columns (a tenth of them 1), and Poisson(½)
counts, whose columns hold a few distinct values each (the case a selection that splits no ties
takes one round per value in).  Run it under two checkouts to compare them.
"""
import argparse
import time

import numpy as np

KINDS = {"normal": lambda rng, s: rng.standard_normal(s),
         "binary": lambda rng, s: (rng.random(s) < 0.1).astype(float),
         "counts": lambda rng, s: rng.poisson(0.5, s).astype(float)}


def main(argv=None):
    from fsopt.core.scaling import typical_spread

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="460x20000", help="N x J")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    args = ap.parse_args(argv)
    N, J = map(int, args.shape.split("x"))
    rng = np.random.default_rng(0)
    print("| X | N × J | typical spread | best of", args.repeat, "(ms) |\n|---|---|---|---|")
    for kind in args.kinds:
        X = KINDS[kind](rng, (N, J))
        typical_spread(np.ascontiguousarray(X[:, :16]))  # compile for this layout outside the timing
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            s = typical_spread(X)
            times.append(time.perf_counter() - t0)
        print(f"| {kind} | {N} × {J:,} | {s:.6g} | {1e3 * min(times):.1f} |", flush=True)


if __name__ == "__main__":
    main()
