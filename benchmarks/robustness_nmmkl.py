"""NMMKL at defaults on Wpbc-like random data (198×33 standardized, binary): how many fits end
with a certificate warning (old behaviour) / a refinement / an error (certificate policy).

    python benchmarks/robustness_nmmkl.py [n_fits]
Counts are per fit: "warned" = a CertificateWarning was emitted (old code), "refined" = a record
in the history came from a polish/refine stage, "raised" = SolverFailed.
"""
import sys
import warnings

import numpy as np

from fsopt.core.exceptions import SolverFailed
from fsopt.nmmkl import NMMKL


def wpbc_like(seed, n=194, d=33, standardize=False):
    """Random data of Wpbc's shape, labels ~24% positive; raw features are nonnegative with
    spreads over orders of magnitude (as Wpbc's radius ... area columns)."""
    rng = np.random.default_rng(seed)
    X = np.abs(rng.normal(size=(n, d)) * rng.lognormal(2, 2, d))
    y = (rng.random(n) < 0.24).astype(int)
    return ((X - X.mean(0)) / X.std(0) if standardize else X), y


def main(n_fits=50):
    counts = {"fits": 0, "warned": 0, "refined": 0, "raised": 0}
    worst = 0.0
    for seed in range(n_fits):
        X, y = wpbc_like(seed, standardize=seed % 2 == 1)
        m = 10
        counts["fits"] += 1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est = NMMKL(n_features=m).fit(X, y)
            except SolverFailed as exc:
                counts["raised"] += 1
                print(f"seed {seed}: SolverFailed {exc}"[:200])
                continue
        if any("certificate" in str(w.message) for w in caught):
            counts["warned"] += 1
        worst = max(worst, max(r.residual for r in est.records_))
        if any(getattr(r, "stage", "solve") != "solve" for r in est.records_):
            counts["refined"] += 1
    print(counts, f"worst residual seen {worst:.2e}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
