"""Measure LOGO's O(N²J) statistics: fsopt's kernel vs one scipy cdist pass, in one run.

    python benchmarks/logo_statistics.py [--n-per-class 230] [--J 1000 20000 100000]
        [--z-widest 512 1280]

Prints a table: J, z̄ widest column task (``margins._Z_WIDEST``), time of expected_margins
(float64, float32), time of one cdist(X, X, "cityblock") pass on the same X, and their ratio;
peak memory of the statistics.
"""
import argparse
import time
import tracemalloc

import numpy as np
from scipy.spatial.distance import cdist

from fsopt.datasets.spiral import make_spiral
import fsopt.logo.margins
from fsopt.logo.margins import expected_margins


def best_of(f, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-per-class", type=int, default=230)
    ap.add_argument("--J", type=int, nargs="+", default=[1000, 20000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--z-widest", type=int, nargs="+", default=[fsopt.logo.margins._Z_WIDEST])
    args = ap.parse_args()
    X0, y = make_spiral(args.n_per_class, 10, random_state=0)
    expected_margins(X0, y, np.ones(X0.shape[1]), 2.0)  # compile the kernel once
    expected_margins(X0.astype(np.float32), y, np.ones(X0.shape[1]), 2.0)
    print("| J | z̄ widest task | margins f64 (s) | margins f32 (s) | cdist pass (s) | f64 / cdist | f32 / cdist | max abs diff f32 | peak MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for J in args.J:
        X, _ = make_spiral(args.n_per_class, J - 2, random_state=0)
        w = np.ones(J)
        X32 = X.astype(np.float32)
        t_cd = best_of(lambda: cdist(X, X, "cityblock"), args.repeat)
        for fsopt.logo.margins._Z_WIDEST in args.z_widest:
            t64 = best_of(lambda: expected_margins(X, y, w, 2.0), args.repeat)
            t32 = best_of(lambda: expected_margins(X32, y, w, 2.0), args.repeat)
            Z64 = expected_margins(X, y, w, 2.0)
            diff = np.max(np.abs(expected_margins(X32, y, w, 2.0) - Z64))
            tracemalloc.start()
            expected_margins(X, y, w, 2.0)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            print(f"| {J} | {fsopt.logo.margins._Z_WIDEST} | {t64:.3f} | {t32:.3f} | {t_cd:.3f} | {t64 / t_cd:.2f} | "
                  f"{t32 / t_cd:.2f} | {diff:.1e} | {peak:.0f} |", flush=True)


if __name__ == "__main__":
    main()
