"""Time z̄ (``fsopt.logo.margins.signed_abs_sum``) at the widths a working set gives it.

    python benchmarks/zbar_task_width.py [--N 120 300 460 1000] [--J 40 80 160 300 600 1000 1500 2600 8000]
                                         [--repeat 9] [--dtypes float64 float32]

Prints one line per (N, J, float type): the best and the median time of z̄ over ``--repeat``
calls and the threads it ran on.  Run it on two versions in turn (e.g. with ``PYTHONPATH`` set
to each checkout) to compare how their kernels split and sum the columns: the sums are the same
bit for bit whatever the split (tests/test_margins.py), only the time moves.
"""
import argparse

import numba
import numpy as np
from logo_statistics import best_of  # this directory: the statistics kernels' benchmark

from fsopt.logo import margins


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, nargs="+", default=[120, 300, 460, 1000])
    ap.add_argument("--J", type=int, nargs="+", default=[40, 80, 160, 300, 600, 1000, 1500, 2600, 8000])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--dtypes", nargs="+", default=["float64"], choices=["float64", "float32"])
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| N | J | float | z̄ ms (best) | z̄ ms (median) | threads |\n|---|---|---|---|---|---|")
    for N in args.N:
        A = rng.standard_normal((N, N))
        for J in args.J:
            X = rng.standard_normal((N, J))
            for dtype in args.dtypes:
                Ad, Xd = A.astype(dtype), X.astype(dtype)
                margins.signed_abs_sum(Ad, Xd)  # compiled, and the threads woken
                times = [1e3 * best_of(lambda: margins.signed_abs_sum(Ad, Xd), 1) for _ in range(args.repeat)]
                print(f"| {N} | {J} | {dtype} | {min(times):.2f} | {np.median(times):.2f} | "
                      f"{numba.get_num_threads()} |", flush=True)


if __name__ == "__main__":
    main()
