"""``fsopt bench`` hook: the update (R) at the first iteration (uniform weights) of a problem."""
import numpy as np

from fsopt.logo.margins import expected_margins

from .subproblem import ReliefUpdate


def subproblems(problem, X, y):
    w0 = np.full(X.shape[1], 1.0 / np.sqrt(X.shape[1]))
    cost = expected_margins(X, y, w0, problem.params.get("sigma", 2.0)).mean(axis=0)
    return {ReliefUpdate.name: ReliefUpdate(cost)}
