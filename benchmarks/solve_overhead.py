"""Time one small solve: what ``Subproblem.solve`` spends around the solver on a LOGO
working-set update.

    python benchmarks/solve_overhead.py [--N 300] [--columns 8] [--solves 400] [--repeat 3]

A ``GarroteLogistic`` over an N × columns margin matrix, solved ``--solves`` times with LOGO's
default chain (LBFGSB, then PROXGRAD, CLARABEL, ECOS, GRADIENT as fallbacks) and with LBFGSB
alone; prints the mean time of a solve, best of ``--repeat``, with the parts' answers held for
each solve (``fsopt.core.parts.parts_held``, as fsopt does) and without (a null context: every
question about the parts read again, as before), in turn.
"""
import argparse
import contextlib
import time

import numpy as np

from fsopt.core import subproblem
from fsopt.core.solvers import as_resolved
from fsopt.logo import GarroteLogistic

CHAIN = ("LBFGSB", "PROXGRAD", "CLARABEL", "ECOS", "GRADIENT")


def mean_solve_ms(sub, Z, chain, solves):
    t0 = time.perf_counter()
    for _ in range(solves):
        sub.set_margins(Z)
        sub.solve(chain[0], fallback=chain[1:])
    return (time.perf_counter() - t0) / solves * 1e3


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=300)
    ap.add_argument("--columns", type=int, default=8)
    ap.add_argument("--solves", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    Z = 0.3 * np.random.default_rng(0).standard_normal((args.N, args.columns))
    sub = GarroteLogistic(lam=1.0, Z=Z)
    resolved = [as_resolved(name, sub) for name in CHAIN]
    held = subproblem.parts_held
    print("| chain | parts held (ms a solve) | read again (ms a solve) |\n|---|---|---|")
    for label, chain in (("LBFGSB and four fallbacks", resolved), ("LBFGSB alone", resolved[:1])):
        best = {}
        for _ in range(args.repeat):
            for name, context in (("held", held), ("again", contextlib.nullcontext)):
                subproblem.parts_held = context
                best[name] = min(best.get(name, np.inf), mean_solve_ms(sub, Z, chain, args.solves))
        subproblem.parts_held = held
        print(f"| {label} | {best['held']:.3f} | {best['again']:.3f} |")


if __name__ == "__main__":
    main()
