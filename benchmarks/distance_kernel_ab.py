"""The weighted cityblock distances D = Σ_j w_j |x_nj − x_ij| of fsopt.logo.margins against those
of an earlier revision, in one process, alternating (A B A B …): the median time of each, their
ratio, one scipy cdist pass beside them, and whether D is the same bit for bit.

    python benchmarks/distance_kernel_ab.py --before c61ad4d [--sizes 460x20000 200x100000 1000x5000]
"""
import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def load_revision(rev):
    """fsopt/logo/margins.py as it was at ``rev`` (git show), imported under another name."""
    source = subprocess.run(["git", "show", f"{rev}:fsopt/logo/margins.py"], capture_output=True, text=True,
                            check=True, cwd=Path(__file__).resolve().parents[1]).stdout
    path = Path(tempfile.mkdtemp()) / "margins_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("fsopt.logo.margins_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its relative imports resolve inside fsopt.logo
    spec.loader.exec_module(module)
    return module


def main():
    from scipy.spatial.distance import cdist

    from fsopt.datasets.spiral import make_spiral
    from fsopt.logo import margins as after

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git revision to compare with")
    ap.add_argument("--sizes", nargs="+", default=["460x20000", "200x100000", "1000x5000"])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    before = load_revision(args.before)
    print(f"| N × J | before {args.before} (s) | after (s) | before / after | one cdist pass (s) | same D |")
    print("|---|---|---|---|---|---|")
    for size in args.sizes:
        N, J = map(int, size.split("x"))
        X, _ = make_spiral(N // 2, J - 2, random_state=0)
        w = np.ones(J)
        same = np.array_equal(before.weighted_manhattan(X, w), after.weighted_manhattan(X, w))  # + compile
        times = {before: [], after: []}
        for _ in range(args.repeat):
            for module in (before, after):
                t0 = time.perf_counter()
                module.weighted_manhattan(X, w)
                times[module].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cdist(X, X, "cityblock")
        t_cdist = time.perf_counter() - t0
        a, b = np.median(times[before]), np.median(times[after])
        print(f"| {N} × {J:,} | {a:.3f} | {b:.3f} | {a / b:.2f} | {t_cdist:.2f} | {'yes' if same else 'no'} |",
              flush=True)


if __name__ == "__main__":
    main()
