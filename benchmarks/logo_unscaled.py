"""LOGO with its defaults on the README's data set as it comes: WDBC (569 x 30), not z-scored.

    python benchmarks/logo_unscaled.py [--sigma 2 10 30] [--solver auto]

Its features span five orders of magnitude (areas ~1e3, smoothness ~1e-1), so the margins of the
garrote (7) do too.  Before LBFGSB went on past L-BFGS-B's own stop (fsopt/core/lbfgsb.py), sigma =
10 and 30 raised SolverFailed (LBFGSB rejected_certificate, residual 4e-4 against a bound of
2e-4).  Prints, per sigma: wall time, outcome, the fit's certificate and who answered each solve.
"""
import argparse
import time
import warnings

from fsopt import LOGO
from fsopt.datasets import load_dataset


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigma", type=float, nargs="+", default=[2.0, 10.0, 30.0])
    parser.add_argument("--solver", default="auto")
    args = parser.parse_args()
    X, y = load_dataset("wdbc")
    with warnings.catch_warnings():  # load the numba kernels outside the timings
        warnings.simplefilter("ignore")
        LOGO(sigma=2.0, max_iter=1).fit(X[:60], y[:60])
    for sigma in args.sigma:
        t0 = time.perf_counter()
        est = LOGO(sigma=sigma, solver=args.solver).fit(X, y)
        wall = time.perf_counter() - t0
        print(f"sigma={sigma:g}: {wall:.2f} s, {est.outcome_} after {est.n_iter_} iterations, "
              f"{est.get_support().sum()} features selected")
        print("  " + est.certificate_.describe().replace("\n", "\n  "))


if __name__ == "__main__":
    main()
