"""LOGO's subproblems for ``fsopt bench``: the garrote problem of the first outer iteration."""
import numpy as np

from .margins import expected_margins
from .garrote import GarroteLogistic


def subproblems(problem, X, y):
    """{kind: Subproblem} built from a problem instance (w⁽⁰⁾ = 1, the problem's σ and λ)."""
    sigma = problem.params.get("sigma", 2.0)
    Z = expected_margins(X, y, np.ones(X.shape[1]), sigma)
    return {"garrote_logistic": GarroteLogistic(lam=problem.params.get("lam", 1.0), Z=Z)}
