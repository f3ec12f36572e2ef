"""The I-RELIEF weight update as a convex subproblem (Sun 2007, eq. 12):

    max_w  z̄ᵀw   s.t.  ‖w‖₂ ≤ 1,  w ≥ 0                                  (R)

with z̄ = (1/N) Σ_n z̄_n the mean expected margin at the current weights.  Its optimum is
w* = z̄₊/‖z̄₊‖₂ (z̄₊ = max(z̄, 0)), and max over the feasible set of z̄ᵀw is ‖z̄₊‖₂, so the duality
gap ‖z̄₊‖₂ − z̄ᵀw of any feasible w is computed exactly in NumPy: that is the certificate.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np

from fsopt import Subproblem

NONNEG_UNIT_BALL = "nonnegative unit ball"  # the feasible set, as the closed-form backend reads it


class ReliefUpdate(Subproblem):
    """(R) as ``min −cᵀw`` over the nonnegative unit ball, c the mean margin."""

    name = "relief_update"
    cone = "SOC"
    certificate_tol = 1e-7
    feasible_set = NONNEG_UNIT_BALL

    def __init__(self, cost=None):
        super().__init__()
        self.cost = None if cost is None else np.asarray(cost, dtype=float)

    def set_cost(self, cost):
        """New mean margin: a Parameter of the cvxpy model, so no rebuild unless J changes."""
        cost = np.asarray(cost, dtype=float)
        if self.cost is None or cost.shape != self.cost.shape:
            self.invalidate()
        self.cost = cost

    def _build(self):
        w = cp.Variable(self.cost.size, nonneg=True, name="w")
        self._c = cp.Parameter(self.cost.size, name="c")
        return cp.Problem(cp.Maximize(self._c @ w), [cp.norm(w, 2) <= 1]), {"w": w}

    def _set_parameters(self):
        self._c.value = self.cost

    def objective(self, solution):
        return -float(self.cost @ solution["w"])

    def certificate(self, solution):
        w = solution["w"]
        best = float(np.linalg.norm(np.maximum(self.cost, 0.0)))
        infeasible = max(float(np.linalg.norm(w)) - 1.0, float(-w.min(initial=0.0)), 0.0)
        return {"residual": max(best - float(self.cost @ w), 0.0) + infeasible,
                "duality_gap": best - float(self.cost @ w), "primal_infeasibility": infeasible}

    def certificate_scale(self, solution):
        return max(1.0, float(np.linalg.norm(np.maximum(self.cost, 0.0))))
