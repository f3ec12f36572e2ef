"""LFS: local feature selection and its local classifier on your data or a declared problem."""
from __future__ import annotations

import time

import numpy as np

from ..core.limits import MAX_JOBS, integer_argument

SHOWN = 10  # features printed; --out keeps them all


def add_arguments(parser):
    parser.add_argument("--alpha", type=integer_argument(1), default=None, help="largest set size per point")
    parser.add_argument("--tau", type=integer_argument(1), default=None, help="outer iterations")
    parser.add_argument("--gamma", type=float, default=None, help="impurity level of the spheres")
    parser.add_argument("--n-jobs", type=integer_argument(-1, MAX_JOBS), default=None, help="joblib workers")
    parser.add_argument("--test-size", type=float, default=None,
                        help="hold out this fraction (or count, if > 1) for a test error")
    parser.add_argument("--random-state", type=integer_argument(0, 2**32 - 1), default=0, help="seed of split and rounding")


def run(args, problem, X, y) -> int:
    import pandas as pd
    from sklearn.model_selection import train_test_split

    from ..core.figures import save_figure
    from ..core.run_output import run_record, selection_table, write_run
    from ..core.validation import feature_names
    from ..datasets import standardize
    from .estimator import LFS
    from .plots import plot_lfs

    params = dict(problem.params)
    protocol = dict(problem.extra.get("protocol", {}))
    for key in ("alpha", "tau", "gamma", "n_jobs"):
        if getattr(args, key) is not None:
            params[key] = getattr(args, key)
    if args.solver:
        params["solver"] = args.solver
    test_size = args.test_size if args.test_size is not None else protocol.get("test_size")
    if test_size:
        if not (0 < test_size < 1 or test_size >= 1 and float(test_size).is_integer()):
            raise ValueError(f"--test-size {test_size:g}: a fraction in (0, 1) or a whole number of samples")
        test_size = int(test_size) if test_size >= 1 else float(test_size)
        X, Xt, y, yt = train_test_split(X, y, test_size=test_size, stratify=y,
                                        random_state=args.random_state)
    if problem.data.get("standardize", True):
        X, Xt = standardize(X, Xt) if test_size else (standardize(X), None)
    params.setdefault("random_state", args.random_state)
    est = LFS(progress=args.progress, **params)
    t0 = time.perf_counter()
    est.fit(X, y)
    fit_time = time.perf_counter() - t0
    sizes = est.fstar_.sum(axis=1)
    freq = est.fstar_.mean(axis=0)
    top = np.argsort(-freq, kind="stable")[: min(SHOWN, np.count_nonzero(freq))]
    names = feature_names(est, problem.extra.get("feature_names"))
    print(f"problem {problem.name}: {X.shape[0]} training samples x {X.shape[1]} features; "
          f"alpha={est.alpha} tau={est.tau} gamma={est.gamma:g}")
    print(f"each point selects its own features: {sizes.mean():.2f} on average (min {sizes.min()}, max "
          f"{sizes.max()}); {np.count_nonzero(freq)} of {X.shape[1]} features are selected by some point, "
          f"most often first:")
    print(selection_table(names, top, {"share of points": (freq, ".3f")}))
    if np.count_nonzero(freq) > top.size:
        print(f"  ... and {np.count_nonzero(freq) - top.size} more")
    print(est.certificate_.describe())
    print(f"fit time {fit_time:.2f} s")
    if test_size:
        print(f"test error: {100 * (1 - est.score(Xt, yt)):.2f}% on {len(yt)} held-out samples")
    chk = est.lp_check_
    dist = np.abs(est.f_relaxed_ - est.fstar_).sum(axis=1) / X.shape[1]
    if args.verbose:
        print(f"solver {est.solver}; LPs solved: {chk['n_lps']}, all certified: {chk['all_certified']}, "
              f"worst certificate residual {chk['max_residual']:.2e}")
        print(f"relaxed-vs-binary l1 distance / M: mean {dist.mean():.2e}, max {dist.max():.2e}")
    if args.plot:
        save_figure(plot_lfs(est, names=names), args.plot)
        print(f"figure written to {args.plot}")
    if args.out:
        frame = pd.DataFrame({"feature": names, "share": freq, "selected": freq > 0})
        write_run(args.out, frame, run_record(
            args, problem, est, X.shape[0], fit_time, n_lps=chk["n_lps"], all_certified=chk["all_certified"],
            max_residual=chk["max_residual"], mean_set_size=sizes.mean(),
            test_error=(1 - est.score(Xt, yt)) if test_size else None))
        print(f"result written to {args.out}/: features.csv, features.json, run.json")
    return 0
