"""LFS's subproblems for ``fsopt bench``: LPs (8) and (9) of one representative point.

The point is sample 0 in the first pass of Alg. 1 (uniform weights (10)), its cost vectors a, b of
eq. (5) scaled to unit mean as in the fit; (9) at β = ``problem.params["bench_beta"]`` (default
0.5), ε = β ε_max with ε_max from the closed form of (8).
"""
import numpy as np

from .lp import EpsilonConstraint, EpsilonMax, epsilon_max_closed_form
from .method import unit_mean
from .weights import local_costs

POINT = 0


def subproblems(problem, X, y):
    """{kind: Subproblem}: "lfs_epsilon_max" (8) and "lfs_epsilon_constraint" (9)."""
    alpha = int(problem.params.get("alpha", 5))
    beta = float(problem.params.get("bench_beta", 0.5))
    _, y_enc = np.unique(y, return_inverse=True)
    A, B = local_costs(X, y_enc, np.ones((len(y_enc), len(y_enc))))  # uniform weights (10)
    a, b = unit_mean(A[POINT]), unit_mean(B[POINT])
    em, ec = EpsilonMax(X.shape[1], alpha), EpsilonConstraint(X.shape[1], alpha)
    em.set_data(b=b)
    ec.set_data(a, b)
    ec.set_epsilon(beta * epsilon_max_closed_form(b, alpha))
    return {em.name: em, ec.name: ec}
