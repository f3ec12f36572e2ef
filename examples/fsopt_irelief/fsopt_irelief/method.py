"""I-RELIEF (Sun 2007, Alg. 1) as a fixed-point method of fsopt's generic driver.

statistics(w): the mean expected margin z̄ = (1/N) Σ_n z̄_n(w), z̄_n the LOGO margins (eq. 3 of Sun,
Todorovic, Goodison 2010) with kernel exp(−d_w/σ); update: solve (R) for z̄ (any solver of the
registry, UNITBALL in closed form by default); the iterate is the new w.  Rounding: the top
``n_select`` features by weight (a pure function of the final weights).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fsopt import FixedPointMethod, Step
from fsopt.logo.margins import expected_margins

from .subproblem import ReliefUpdate


@dataclass(frozen=True)
class ReliefSelection:
    """What I-RELIEF's rounding returns: the selected features, best first, and their weights."""

    features: np.ndarray
    weights: np.ndarray


class IReliefFixedPoint(FixedPointMethod):
    """The pieces the driver alternates; ``solver`` is a backend or profile name."""

    def __init__(self, X, y, sigma, solver="UNITBALL", n_select=None, solve_options=None):
        self.X, self.y, self.sigma = X, y, float(sigma)
        self.solver, self.n_select = solver, n_select
        self.solve_options = dict(solve_options or {})
        self.subproblem = ReliefUpdate()

    def initial_iterate(self):
        J = self.X.shape[1]
        return np.full(J, 1.0 / np.sqrt(J))  # a point of the unit sphere, every feature alike

    def statistics(self, iterate, active):
        return expected_margins(self.X, self.y, iterate, self.sigma).mean(axis=0)

    def update(self, stats, iterate, active):
        self.subproblem.set_cost(stats)
        record = self.subproblem.solve(self.solver, **self.solve_options)
        return Step(record.solution["w"], [record], record.objective)

    def round(self, iterate, active, detail=None):
        k = iterate.size if self.n_select is None else self.n_select
        order = np.argsort(-iterate, kind="stable")[:k]
        return ReliefSelection(order, iterate[order])
