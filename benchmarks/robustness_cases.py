"""The edge cases of issue 10, run once each: what every case gives now (docs/robustness.md).

    python benchmarks/robustness_cases.py
Prints one line per case: the outcome class (certified result / error type) and its message.
"""
import warnings

import numpy as np

from fsopt import LOGO, SolverFailed
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS
from fsopt.nmmkl import NMMKL

TINY_LFS = dict(alpha=2, tau=1, n_beta=2, n_rounding=5, random_state=0)


def informative(seed=0, N=40, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    return X, np.where(X[:, 0] + 0.3 * rng.standard_normal(N) > 0, 1, 0)


def outcome(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = fit()
        except (ValueError, TypeError, SolverFailed) as exc:
            return f"{type(exc).__name__}: {str(exc)[:110]}"
        except AssertionError as exc:  # a result, but not the expected one
            return f"WRONG RESULT ({exc}); {len(caught)} warning(s)"
    records = [r for h in est.history_ for r in h.records]
    note = f"; {len(caught)} warning(s): {caught[0].message}" if caught else ""
    refined = sum(getattr(r, "stage", "solve") != "solve" for r in records)
    return (f"certified ({len(records)} records, {refined} refined){note}"
            if all(r.certified for r in records) else f"UNCERTIFIED result{note}")


def main():
    Xs, ys = make_spiral(40, 4, random_state=0)
    Xi, yi = informative()
    Xc = np.hstack([Xi, np.full((Xi.shape[0], 2), 3.0)])
    ref = LOGO().fit(Xs, ys).get_support()
    cases = {
        "LOGO X×1e-6 (same support as X)": lambda: _same(LOGO().fit(Xs * 1e-6, ys), ref),
        "LOGO X×1e6 (same support as X)": lambda: _same(LOGO().fit(Xs * 1e6, ys), ref),
        "LOGO X×1e300 (same support as X)": lambda: _same(LOGO().fit(Xs * 1e300, ys), ref),
        "NMMKL(1) X×1e3 picks feature 0": lambda: _pick0(NMMKL(1).fit(Xi * 1e3, yi)),
        "NMMKL(1) X×1e-300 picks feature 0": lambda: _pick0(NMMKL(1).fit(Xi * 1e-300, yi)),
        "NMMKL(3), 2 constant columns": lambda: _never_last2(NMMKL(3).fit(Xc, yi)),
        "NMMKL(7), 6 non-constant columns": lambda: NMMKL(7).fit(Xc, yi),
        "LOGO, 2 constant columns": lambda: _never_last2(LOGO().fit(Xc, yi)),
        "LFS, 2 constant columns": lambda: _never_last2(LFS(**TINY_LFS).fit(Xc, yi)),
        "all columns constant (LOGO)": lambda: LOGO().fit(np.ones((10, 3)), np.repeat([0, 1], 5)),
        "one column ×1e200 (NMMKL)": lambda: NMMKL(1).fit(Xi * np.r_[1, 1e200, 1, 1, 1, 1], yi),
        "LOGO solver_options={'max_iters': 5} (CLARABEL)":
            lambda: LOGO(solver="CLARABEL", solver_options={"max_iters": 5}).fit(Xs, ys),
        "LOGO solver_options={'tol': -1}": lambda: LOGO(solver_options={"tol": -1}).fit(Xs, ys),
        "LFS solver_options={'presolve': 'off'} (eps_solver TOPK)":
            lambda: LFS(solver_options={"presolve": "off"}, **TINY_LFS).fit(Xi, yi),
        "LFS backend='threading', n_jobs=2": lambda: LFS(backend="threading", n_jobs=2, **TINY_LFS).fit(Xi, yi),
    }
    for name, fit in cases.items():
        print(f"{name:58} {outcome(fit)}")


def _same(est, ref):
    assert np.array_equal(est.get_support(), ref), "support differs"
    return est


def _pick0(est):
    assert np.flatnonzero(est.support_).tolist() == [0], f"picked {np.flatnonzero(est.support_)}"
    return est


def _never_last2(est):
    sel = est.fstar_.any(axis=0) if hasattr(est, "fstar_") else est.get_support()
    assert not sel[-2:].any(), "a constant feature was selected"
    return est


if __name__ == "__main__":
    main()
