"""LOGO: local-learning-based feature selection on your data or a declared problem."""
from __future__ import annotations

import argparse
import time

import numpy as np

SHOWN = 20  # selected features printed; --out keeps them all


def add_arguments(parser):
    from .estimator import FAST_PATH_FEATURES, FAST_PATH_FROM

    parser.add_argument("--sigma", type=float, default=None, help="kernel width (problem default)")
    parser.add_argument("--lam", type=float, default=None, help="l1 weight of (7)")
    parser.add_argument("--theta", type=float, default=None, help="outer stopping threshold")
    parser.add_argument("--prune-below", type=_prune_below, default=None, metavar="auto|none|FLOAT",
                        help=f"elimination threshold: 'auto' (the default: the fast path from N²·J = "
                             f"{FAST_PATH_FROM:.2g} on, and J = {FAST_PATH_FEATURES:,} with LBFGSB), 'none' (the paper's "
                             f"iteration over all features: its "
                             f"fixed point where the map has several) or a threshold such as 1e-8")


def _prune_below(text):
    """--prune-below: "auto", "none" or a nonnegative number."""
    if text.lower() in ("auto", "none"):
        return text.lower()
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected auto, none or a nonnegative number, got {text!r}")
    return value


def run(args, problem, X, y) -> int:
    from numba.core import event

    import pandas as pd

    from ..core.figures import save_figure
    from ..core.plugins import SUBPROBLEMS, named
    from ..core.run_output import run_record, selection_table, write_run
    from ..core.validation import feature_names
    from ..datasets import standardize
    from .estimator import LOGO
    from .plots import plot_logo

    params = dict(problem.params)
    for key in ("sigma", "lam", "theta", "prune_below"):
        if getattr(args, key, None) is not None:
            params[key] = None if getattr(args, key) == "none" else getattr(args, key)
    if args.solver:
        params["solver"] = args.solver
    if problem.data.get("standardize", "dataset" in problem.data):
        X = standardize(X)
    if isinstance(params.get("subproblem"), str):  # a registered factory (X, y, **subproblem_params)
        factory = named(SUBPROBLEMS, params["subproblem"], f"problem {problem.path}: [params] subproblem")
        params["subproblem"] = factory(X, y, **params.pop("subproblem_params", {}))
    est = LOGO(progress=args.progress, **params)
    t0 = time.perf_counter()
    with event.install_listener("numba:compile", event.TimingListener()) as kernels:  # not cache loads
        est.fit(X, y)
    total = time.perf_counter() - t0
    kernel_t = kernels.duration if kernels.done else 0.0
    hist = est.history_
    selected = np.flatnonzero(est.get_support())
    order = selected[np.argsort(est.scores_[selected])[::-1]]
    names = feature_names(est, problem.extra.get("feature_names"))
    print(f"problem {problem.name}: {X.shape[0]} samples x {X.shape[1]} features; sigma={est.sigma:g} "
          + (f"lam={est.lam:g}" if est.subproblem is None else f"subproblem {est.subproblem.describe()}"))
    print(f"selected {order.size} of {X.shape[1]} features (weight > {est.threshold:g} of the largest), "
          f"best first:")
    print(selection_table(names, order[:SHOWN], {"weight": (est.weights_, ".4g"),
                                                 "weight/max": (est.scores_, ".3f")}))
    if order.size > SHOWN:
        print(f"  ... and {order.size - SHOWN} more")
    compiled = f" (of which {kernel_t:.2f} s compiling numba kernels, first run only)" if kernel_t > 0 else ""
    print(f"{'converged' if est.converged_ else 'NOT converged (' + est.outcome_ + ')'} after "
          f"{est.n_iter_} iterations in {total:.2f} s{compiled}")
    print(est.certificate_.describe())
    if not est.converged_:
        print("  not converged: a larger --sigma (Theorem 2: one fixed point above some sigma) or a "
              "larger --lam usually converges; the weights above are the last iterate's")
        print(f"  seen: {getattr(est.outcome_, 'describe', est.outcome_.__str__)()}")
    if args.verbose:
        _print_details(est, hist, total)
    if args.plot:
        relevant = problem.data.get("relevant")  # a problem file may name its relevant features
        save_figure(plot_logo(est, relevant=relevant, names=names), args.plot)
        print(f"figure written to {args.plot}")
    if args.out:
        frame = pd.DataFrame({"feature": names, "weight": est.weights_, "score": est.scores_,
                              "selected": est.get_support()})
        write_run(args.out, frame, run_record(args, problem, est, X.shape[0], total,
                                              converged=est.converged_, outcome=est.outcome_,
                                              n_iter=est.n_iter_, n_outer_iter=est.n_outer_iter_,
                                              numba_compile_seconds=round(kernel_t, 3)))
        print(f"result written to {args.out}/: features.csv, features.json, run.json")
    return 0


def _print_details(est, hist, total):
    """--verbose: the solvers, the iteration trace, the time split and the elimination."""
    from ..core.solvers import describe_chain
    from .estimator import FAST_PATH_FEATURES, FAST_PATH_FROM

    print(f"solver {describe_chain(est.solver, est.solvers_)}")
    changes = [f"{h.change:.3g}" for h in hist]
    shown = changes if len(changes) <= 8 else changes[:3] + ["..."] + changes[-3:]
    print(f"iterations: {est.n_iter_}, of which {est.n_outer_iter_} over all features (the others over "
          f"the working set); theta_t = {', '.join(shown)}")
    stats_t = sum(h.statistics_time for h in hist)
    comp_t = sum(h.compile_time for h in hist)
    solve_t = sum(h.solve_time for h in hist)
    records = [r for h in hist for r in h.records]
    worst = max(r.residual for r in records)
    check_t = sum(h.check_time for h in hist)
    print(f"time: total {total:.2f} s = statistics {stats_t:.2f} s + subproblem compile {comp_t:.2f} s "
          f"+ solve {solve_t:.2f} s + final check {check_t:.2f} s (+ overhead)")
    print(f"solves: {len(records)}, {sum(r.certified for r in records)} certified; worst solve certificate "
          f"residual {worst:.2e}")
    if est.prune_below_ is None:
        print(f"elimination: off (the paper's iteration over all features; prune_below='auto' eliminates "
              f"from N²·J = {FAST_PATH_FROM:.2g} on, and J = {FAST_PATH_FEATURES:,} with a backend's own working set)")
    else:
        print(f"elimination: {sum(h.n_dropped for h in hist)} feature(s) dropped, "
              f"{sum(h.n_reentered for h in hist)} re-entered; {hist[-1].n_active} active at the end"
              + restart_story(hist))
        if est.converged_ and not any(h.restarted for h in hist):
            print("  the fast path's answer is a certified fixed point; where the map has several "
                  "(sigma below Theorem 2's sigma*), the paper's iteration may reach another: "
                  "--prune-below none follows it")


def restart_story(history) -> str:
    """The restart that ``history`` marks, as a clause ("" if the fit did not restart)."""
    from .estimator import WORKING_SET_SAMPLES

    restarted = [h for h in history if h.restarted]
    if not restarted:
        return ""
    why = {"budget": "spent its budget", "went round": "went round",
           "crowded": "found more violators than it holds cheaply",
           "no headway": "found no fewer violators in three checks in a row",
           "few samples": f"was skipped (fewer than {WORKING_SET_SAMPLES} samples, where the map has several "
                          f"fixed points more often)"}.get(restarted[0].restart_reason, "did not settle")
    return (f"; the working set {why}, so the fit restarted as the plain iteration after "
            f"iteration {restarted[0].iteration}")
