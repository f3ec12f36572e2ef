"""Acceleration of a fixed-point iteration x ← T(x) (the driver's outer loop).

An accelerator sees each evaluated pair (x, T(x)) in turn and proposes the next point to
evaluate; the driver stops on the residual ‖T(x) − x‖ of an evaluated point, so an accelerator
changes the path to the fixed point, never what counts as one.

- :class:`Averaging`: Krasnoselskii–Mann, x ← (1 − α)x + αT(x) (α = ½ by default).  For a
  nonexpansive T it converges where the plain iteration may cycle (a 2-cycle x ↔ T(x) is
  averaged onto its midpoint).
- :class:`Anderson`: type-I Anderson acceleration with memory m and the safeguard of Zhang,
  O'Donoghue & Boyd (2020, SIAM J. Optim. 30(4), "Globally convergent type-I Anderson
  acceleration for nonsmooth fixed-point iterations", Alg. 3): an Anderson point is kept only
  if its residual is at most D‖g₀‖(n/R + 1)^−(1+ε) (n the Anderson points kept so far);
  otherwise the iteration returns to the last kept point and takes an averaging step from it.

"auto" (the driver's): the plain iteration while it makes progress (its iterates unchanged),
then, from a detected cycle or a stall (no new smallest residual in a number of iterations),
safeguarded Anderson, whose fallback step averages a 2-cycle onto its midpoint.

A user's accelerator is any object with ``propose(x, fx) -> next point`` (and ``reset()``).
Points are projected by the method (``FixedPointMethod.project``, e.g. onto w ≥ 0) afterwards.
"""
from __future__ import annotations

import numpy as np


class Averaging:
    """x ← (1 − α)x + αT(x), 0 < α ≤ 1 (α = 1: the plain iteration)."""

    def __init__(self, alpha=0.5):
        if not 0 < alpha <= 1:
            raise ValueError(f"alpha must be in (0, 1]; got {alpha!r}")
        self.alpha = alpha

    def propose(self, x, fx):
        return (1 - self.alpha) * x + self.alpha * fx

    def reset(self):
        """Nothing is remembered."""


class Anderson:
    """Safeguarded type-I Anderson acceleration (Zhang, O'Donoghue & Boyd 2020, Alg. 3).

    With g(x) = x − T(x), s_i = x_{i+1} − x_i and y_i = g(x_{i+1}) − g(x_i) over the last
    ``memory`` kept points, the type-I step is x⁺ = T(x) − (S − Y)γ with γ solving
    Sᵀ Y γ = Sᵀ g(x) (least squares; eq. (10) of the paper with H = I + (S − Y)(SᵀY)⁻¹Sᵀ).
    The memory restarts when full.  Safeguard: the residual at an Anderson point must be at most
    ``D``·‖g₀‖·(n/``R`` + 1)^−(1+``eps``); if not, the point is dropped and the next point is
    the averaging step (weight ``alpha``) from the last kept point.
    """

    def __init__(self, memory=5, D=1.0, eps=1e-6, R=1, alpha=0.5):
        if int(memory) < 1:
            raise ValueError(f"memory must be >= 1; got {memory!r}")
        self.memory, self.D, self.eps, self.R = int(memory), D, eps, R
        self.averaging = Averaging(alpha)
        self.reset()

    def reset(self):
        self._S, self._Y = [], []
        self._kept = None  # (x, T(x), g) of the last kept point
        self._g0 = None
        self._n_anderson = 0
        self._pending = False  # the point being evaluated is an Anderson point
        self.rejected = 0  # Anderson points the safeguard dropped

    def propose(self, x, fx):
        g = x - fx
        norm = float(np.linalg.norm(g))
        if self._g0 is None:
            self._g0 = norm
        if self._pending:
            bound = self.D * self._g0 * (self._n_anderson / self.R + 1) ** -(1 + self.eps)
            if norm > bound:  # safeguard: back to the last kept point, one averaging step
                self.rejected += 1
                self._pending = False
                self._S, self._Y = [], []
                x0, fx0, _ = self._kept
                return self.averaging.propose(x0, fx0)
            self._n_anderson += 1
        if self._kept is not None:
            x0, _, g0 = self._kept
            if len(self._S) == self.memory:
                self._S, self._Y = [], []  # restart
            self._S.append(x - x0)
            self._Y.append(g - g0)
        self._kept = (x, fx, g)
        if not self._S:
            self._pending = False
            return self.averaging.propose(x, fx)
        self._pending = True
        return self.step(fx, g, np.column_stack(self._S), np.column_stack(self._Y))

    @staticmethod
    def step(fx, g, S, Y):
        """The type-I point T(x) − (S − Y)γ, γ the least-squares solution of SᵀYγ = Sᵀg."""
        gamma = np.linalg.lstsq(S.T @ Y, S.T @ g, rcond=None)[0]
        return fx - (S - Y) @ gamma


def make_accelerator(acceleration):
    """None, "averaging", "anderson", or an object with ``propose`` (used as given); "auto" (the
    plain iteration until it cycles or stalls, then Anderson: the driver switches) starts as None."""
    if acceleration is None or acceleration == "auto" or hasattr(acceleration, "propose"):
        return None if acceleration == "auto" else acceleration
    choices = {"averaging": Averaging, "anderson": Anderson}
    if acceleration not in choices:
        raise ValueError(f"acceleration must be None, 'auto', {', '.join(map(repr, choices))} or an "
                         f"object with propose(x, fx); got {acceleration!r}")
    return choices[acceleration]()
