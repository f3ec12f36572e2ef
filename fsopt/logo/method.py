"""LOGO as a fixed-point method for the generic driver (Alg. 1 of Sun et al. 2010)."""
from __future__ import annotations

import numpy as np

from ..chunked import take_columns
from ..driver import FixedPointMethod, Step
from ..margins import expected_margins


class LogoFixedPoint(FixedPointMethod):
    """statistics(w) = z̄ over the active features; update = solve the garrote subproblem."""

    def __init__(self, X, y, sigma, subproblem, solver, fallback=(), solve_options=None, w0=None):
        self.X, self.y, self.sigma = X, y, sigma
        self.subproblem = subproblem
        self.solver, self.fallback = solver, tuple(fallback)
        self.solve_options = dict(solve_options or {})
        self.w0 = w0

    def initial_iterate(self):
        return np.ones(self.X.shape[1]) if self.w0 is None else np.asarray(self.w0, dtype=float)

    def statistics(self, iterate, active):
        X = self.X if active.all() else take_columns(self.X, active)  # no copy while nothing is pruned
        return expected_margins(X, self.y, iterate[active], self.sigma)

    def update(self, stats, iterate, active):
        self.subproblem.set_margins(stats)
        self.subproblem.warm_start = iterate[active]
        record = self.subproblem.solve(self.solver, fallback=self.fallback, **self.solve_options)
        new = np.zeros_like(iterate)
        new[active] = record.solution["w"]
        return Step(new, [record], record.objective)
