"""``fsopt run irelief --problem NAME``: the plugin's method on a declared problem."""
from __future__ import annotations

import numpy as np


def add_arguments(parser):
    parser.add_argument("--sigma", type=float, default=None, help="kernel width (problem default)")


def run(args, problem, X, y) -> int:
    from .estimator import IRelief

    params = dict(problem.params)
    if args.sigma is not None:
        params["sigma"] = args.sigma
    if args.solver:
        params["solver"] = args.solver
    est = IRelief(**params).fit(X, y)
    best = np.argsort(-est.weights_)[:10]
    print(f"problem {problem.name}: {X.shape[0]} samples x {X.shape[1]} features; solver {est.solver}")
    print(f"I-RELIEF: {est.n_iter_} iterations ({'converged' if est.converged_ else 'NOT converged'})")
    print("best features: " + ", ".join(f"{j} ({est.weights_[j]:.3f})" for j in best))
    return 0
