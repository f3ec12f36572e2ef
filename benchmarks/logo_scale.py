"""LOGO at scale (issues 6, 19), each figure measured in one run beside its reference, as a ratio.

    python benchmarks/logo_scale.py [--J 1000 20000 100000 1000000] [--turns 1 1.75] [--lam 1 2]
                                    [--shape fermat archimedean] [--solver LBFGSB] [--busy 0 1]

1. Spiral (Fermat's r = √θ or Archimedes' r = θ; turns per arm), N = 460, J total features, σ = 2
   and each λ: the default LOGO fit (working set, the final check over all J features included) —
   time and peak memory (RSS high-water mark of a fresh process per J), the ratio to one scipy
   cdist(X, X, "cityblock") pass on the same X, the passes over X the fit made (columns read by
   the distances and z̄, over J), its outcome, and whether the two relevant features come out on
   top.  ``--busy 1``: the same with one other busy process (a Python spin loop) running beside
   it, started before the cdist reference and stopped after the fit.
2. The garrote subproblem of the first outer iteration at J = 5,000: the native L-BFGS-B backend
   vs Clarabel, same objective to 1e-6 relative, and the speed ratio.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning


def one_size(J, solver, turns, lam, shape):
    from scipy.spatial.distance import cdist

    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    X, y = make_spiral(230, J - 2, turns=turns, random_state=0, shape=shape)
    LOGO(solver=solver).fit(X[:, :50], y)  # compile the kernels outside the timings
    t0 = time.perf_counter()
    cdist(X, X, "cityblock")
    t_cdist = time.perf_counter() - t0
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # reported in the table
        est = LOGO(sigma=2.0, lam=lam, solver=solver, max_iter=100).fit(X, y)
    t_fit = time.perf_counter() - t0
    s = est.scores_
    return {"J": J, "turns": turns, "lam": lam, "shape": shape, "outcome": est.outcome_,
            "fit_s": t_fit, "cdist_s": t_cdist, "ratio": t_fit / t_cdist,
            "passes": sum(h.data_passes for h in est.history_),
            "statistics_s": sum(h.statistics_time for h in est.history_),
            "check_s": sum(h.check_time for h in est.history_),
            "solve_s": sum(h.solve_time for h in est.history_), "iterations": est.n_iter_,
            "relevant_on_top": bool(set(np.argsort(s)[-2:]) == {0, 1} and s[2:].max() < 0.01),
            "peak_GiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
            "load": os.getloadavg()[0]}


def garrote_native_vs_clarabel(J=5000):
    from fsopt import GarroteLogistic
    from fsopt.datasets.spiral import make_spiral
    from fsopt.logo.margins import expected_margins

    X, y = make_spiral(230, J - 2, random_state=0)
    sp = GarroteLogistic(lam=1.0, Z=expected_margins(X, y, np.ones(J), 2.0))
    native = sp.solve("LBFGSB")
    conic = sp.solve("CLARABEL")
    gap = abs(native.objective - conic.objective) / abs(conic.objective)
    return {"J": J, "lbfgsb_s": native.solve_time, "clarabel_s": conic.solve_time + conic.compile_time,
            "speedup": (conic.solve_time + conic.compile_time) / native.solve_time,
            "rel_objective_gap": gap, "lbfgsb_residual": native.residual,
            "clarabel_residual": conic.residual, "clarabel_status": conic.status}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--J", type=int, nargs="+", default=[1000, 20000, 100000, 1000000])
    ap.add_argument("--turns", type=float, nargs="+", default=[1.0, 1.75])
    ap.add_argument("--lam", type=float, nargs="+", default=[1.0])
    ap.add_argument("--shape", nargs="+", default=["fermat"], choices=["fermat", "archimedean"])
    ap.add_argument("--busy", type=int, nargs="+", default=[0], choices=[0, 1],
                    help="run with this many other busy processes (0, 1 or both)")
    ap.add_argument("--solver", default="LBFGSB")
    ap.add_argument("--no-garrote", action="store_true", help="skip part 2")
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one, args.solver, args.turns[0], args.lam[0], args.shape[0])))
        return
    print("| data | J | other busy processes | fit / cdist | passes over X | fit (s) | cdist (s) | "
          "statistics (s) | final checks (s) | solve (s) | outer its | outcome | relevant on top | "
          "peak RSS (GiB) | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for shape, turns, lam, J, busy in ((s, t, lam, J, b) for s in args.shape for t in args.turns
                                       for lam in args.lam for J in args.J for b in args.busy):
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            out = subprocess.run([sys.executable, __file__, "--one", str(J), "--solver", args.solver,
                                  "--turns", str(turns), "--lam", str(lam), "--shape", shape],
                                 capture_output=True, text=True, check=True)
        finally:
            for p in spinners:
                p.kill()
                p.wait()
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"| {shape} spiral, {turns:g} turn(s), λ = {lam:g} | {r['J']:,} | {busy} | {r['ratio']:.2f} | "
              f"{r['passes']:.2f} | {r['fit_s']:.2f} | {r['cdist_s']:.2f} | {r['statistics_s']:.2f} | "
              f"{r['check_s']:.2f} | {r['solve_s']:.2f} | {r['iterations']} | {r['outcome']} | "
              f"{'yes' if r['relevant_on_top'] else 'no'} | {r['peak_GiB']:.2f} | {r['load']:.1f} |",
              flush=True)
    if not args.no_garrote:
        g = garrote_native_vs_clarabel()
        print(f"\nGarrote subproblem, J={g['J']:,}: L-BFGS-B {g['lbfgsb_s']:.2f} s vs Clarabel "
              f"{g['clarabel_s']:.2f} s ({g['clarabel_status']}) -> {g['speedup']:.1f}x; relative objective "
              f"gap {g['rel_objective_gap']:.1e}; KKT residuals {g['lbfgsb_residual']:.1e} / {g['clarabel_residual']:.1e}")


if __name__ == "__main__":
    main()
