"""NMMKL: non-monotonic feature selection of exactly m features (QCQP + LP recovery + rounding)."""
from __future__ import annotations

import time

import numpy as np

from ..core.limits import integer_argument


def add_arguments(parser):
    parser.add_argument("--m", type=integer_argument(1), default=None, help="number of features to select")
    parser.add_argument("--C", type=float, default=None, help="SVM box constraint C of (3)")
    parser.add_argument("--tau", type=float, default=None, help="ridge tau of (3)")
    parser.add_argument("--lp-solver", default=None, help="LP solver for the recovery (15)")
    parser.add_argument("--cv", action="store_true",
                        help="choose C and tau by the problem's [cv] grid (5-fold CV accuracy)")


def run(args, problem, X, y) -> int:
    import pandas as pd

    from ..core.run_output import run_record, selection_table, write_run
    from ..core.solvers import describe_chain
    from ..core.validation import feature_names
    from ..datasets import standardize
    from .baselines import fisher_score, top_m
    from .checks import LAMBDA_TOL, P_TOL
    from .estimator import NMMKL
    from .protocol import tune

    params = dict(problem.params)
    for key, arg in (("n_features", "m"), ("C", "C"), ("tau", "tau"), ("lp_solver", "lp_solver")):
        if getattr(args, arg) is not None:
            params[key] = getattr(args, arg)
    if args.solver:
        params["solver"] = args.solver
    prefilter = problem.extra.get("protocol", {}).get("prefilter")
    est = NMMKL(**params)
    if args.cv:  # on the raw data: z-scoring and prefilter are fitted inside each CV fold
        grid = problem.extra.get("cv", {})
        est, best = tune(est, X, y, grid, random_state=args.seed or 0, prefilter=prefilter,
                         scale=problem.data.get("standardize", True))
        print(f"5-fold CV chose {best} (z-scoring and prefilter fitted inside each fold)")
    if problem.data.get("standardize", True):
        X = standardize(X)  # the final fit uses every row: no held-out data to leak into
    keep = np.arange(X.shape[1])
    if prefilter and prefilter < X.shape[1]:
        keep = np.flatnonzero(top_m(fisher_score(X, y), prefilter))
        print(f"Fisher prefilter: {X.shape[1]} -> {keep.size} features")
    t0 = time.perf_counter()
    est.fit(X[:, keep], y)
    total = time.perf_counter() - t0
    sel = np.flatnonzero(est.support_)
    print(f"problem {problem.name}: {X.shape[0]} samples x {keep.size} features; m={est.n_features} "
          f"C={est.C:g} tau={est.tau:g}")
    given = problem.extra.get("feature_names")
    names = feature_names(est, None if given is None else np.asarray(given)[keep])
    shown = sel[np.argsort(-est.scores_[sel])]
    print(f"selected {shown.size} of {keep.size} features (tau_i of (3); p: the recovered and the cone "
          f"multipliers; set of Corollary 2), best first:")
    print(selection_table(names, shown, {"tau_i": (est.scores_, ".4g"), "p": (est.p_, ".4f"),
                                         "cone p": (est.p_cone_, ".4f"), "set": (est.partition_, "")}))
    dg = est.diagnostics_
    print(f"Corollary 2: lambda's distance from [tau_(1+k_max), tau_m] / max tau_i "
          f"{dg['corollary2_lambda']:.1e} <= {LAMBDA_TOL:g}; |p - 1| on A, |p| on C "
          f"{dg['corollary2_p_A_C']:.1e} <= {P_TOL:g}")
    print(est.certificate_.describe())
    print(f"fit time {total:.2f} s")
    if args.verbose:
        print(f"solvers {describe_chain(est.solver, est.solvers_)} + {est.lp_solver}")
        print(f"partition |A|={dg['n_A']} |B|={dg['n_B']} |C|={dg['n_C']}; Theorem 6 bound {est.bound_:.4g}")
        print("diagnostics of Theorem 1's KKT conditions (relative to max tau_i; measured, no bound): "
              + ", ".join(f"{k} {dg[k]:.2e}" for k in ("kkt_stationarity", "kkt_complementarity", "p_agreement")))
        for r in est.records_:
            print(f"  {r.subproblem:18} {r.solver:9} {r.status:10} compile {r.compile_time:.3f} s "
                  f"solve {r.solve_time:.3f} s  certificate {r.residual:.2e} ({'ok' if r.certified else 'NOT certified'})")
    if args.plot:
        from ..core.figures import save_figure
        from .plots import plot_nmmkl

        save_figure(plot_nmmkl(est, names=names), args.plot)
        print(f"figure written to {args.plot}")
    if args.out:
        frame = pd.DataFrame({"feature": names, "tau_i": est.scores_, "p": est.p_, "cone_p": est.p_cone_,
                              "set": est.partition_, "selected": est.support_})
        write_run(args.out, frame, run_record(args, problem, est, X.shape[0], total, prefilter=int(keep.size),
                                              diagnostics=dg, theorem6_bound=est.bound_))
        print(f"result written to {args.out}/: features.csv, features.json, run.json")
    return 0
