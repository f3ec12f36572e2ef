"""NMMKL's subproblems for ``fsopt bench``: the QCQP dual (8) and the LP recovery (15).

The LP (15) is built from a reference solution of (8) (Clarabel at tolerance 1e-10), partitioned by
eqs (10)–(12) exactly as :class:`fsopt.nmmkl.NMMKLMethod` does, so every solver gets the same LP.
"""
import numpy as np

from ..datasets import standardize
from .qcqp import MKLDual
from .recovery import PrimalRecoveryLP
from .rounding import partition

REFERENCE = {"solver": "CLARABEL", "tol": 1e-10}


def subproblems(problem, X, y):
    """{kind: Subproblem or builder} for one problem instance (the problem's m, C, τ; X
    standardized if asked); the LP is built only when asked for (it needs a reference dual solve)."""
    if problem.data.get("standardize", True):
        X = standardize(X)
    params = problem.params
    y = np.where(y == np.max(y), 1.0, -1.0)
    dual = MKLDual(X, y, params.get("n_features", 10), params.get("C", 1.0), params.get("tau", 1.0))
    return {"nmmkl_qcqp": dual, "nmmkl_lp_recovery": lambda: _recovery_lp(dual)}


def _recovery_lp(dual):
    alpha = dual.solve(**REFERENCE).solution["alpha"]
    tau_i, s = dual.scores(alpha)
    part = partition(tau_i, dual.m)
    lp = PrimalRecoveryLP()
    lp.set_state(dual.Z, dual.y, alpha, s, part.A, part.C, dual.m, dual.C, dual.tau)
    return lp
