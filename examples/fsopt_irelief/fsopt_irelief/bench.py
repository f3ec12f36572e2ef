"""``fsopt bench`` hook: the update (R) at the first iteration (uniform weights) of a problem."""
import numpy as np

from fsopt.logo.margins import expected_margins

from .penalty import adaptive_garrote
from .subproblem import ReliefUpdate


def subproblems(problem, X, y):
    w0 = np.full(X.shape[1], 1.0 / np.sqrt(X.shape[1]))
    cost = expected_margins(X, y, w0, problem.params.get("sigma", 2.0)).mean(axis=0)
    return {ReliefUpdate.name: ReliefUpdate(cost)}


def adaptive_garrote_subproblems(problem, X, y):
    """``fsopt bench`` hook of LOGO problems naming the adaptive garrote (A): its first outer
    iteration (w⁽⁰⁾ = 1), the adaptive weights from I-RELIEF on the same data."""
    sp = adaptive_garrote(X, y, **problem.params.get("subproblem_params", {}))
    sp.set_margins(expected_margins(X, y, np.ones(X.shape[1]), problem.params.get("sigma", 2.0)))
    return {sp.name: sp}
