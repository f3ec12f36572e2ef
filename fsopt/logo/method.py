"""LOGO as a fixed-point method for the generic driver (Alg. 1 of Sun et al. 2010), with safe
elimination of features.

A feature j left out of the statistics is fixed at w_j = 0.  That is the subproblem's optimum
(the full-J garrote (7) at the current z̄) exactly when its KKT condition holds at w_j = 0:
    ∂_j = λ − Σ_n s_n z̄_nj ≥ −tol,      s_n = σ(−wᵀz̄_n)      (form (8): ∂_j + ν ≥ −tol)
z̄_nj is a difference of two convex combinations of |x_nj − x_ij| ∈ [0, r_j] (r_j the range of
column j), and the miss and hit probabilities each sum to 1, so between two outer iterations
    |Δ∂_j| ≤ r_j (‖Δs‖₁ + ½ Σ_n s_n ‖ΔA_n‖₁) = r_j δ_t,      A = P_miss − P_hit (eqs 3–5).
An eliminated feature stays out while ∂_j at its last exact evaluation minus r_j Σ δ since then is
≥ −tol; when the bound can no longer show it, ∂_j is computed exactly (its z̄ column only) and the
feature re-enters if it violates.  The check over all features computes every eliminated column.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..driver import FixedPointMethod, Step
from ..exceptions import SolverFailed
from ..margins import margin_coefficients, signed_abs_sum

_CHUNK_ELEMENTS = 2**24  # N × columns per block of the exact check (128 MiB of float64)


class LogoFixedPoint(FixedPointMethod):
    """statistics(w) = z̄ over the active features; update = solve the garrote subproblem.

    ``check_against``: a second solver every subproblem is also solved with; its relative
    objective gap and weight difference go into the record's certificate, and a gap beyond
    ``check_tol`` (objective, weights relative to max(1, max w)) raises :class:`SolverFailed`.
    """

    def __init__(self, X, y, sigma, subproblem, solver, fallback=(), solve_options=None, w0=None,
                 check_against=None, check_tol=(1e-6, 1e-3)):
        self.X, self.y, self.sigma = X, y, sigma
        self.subproblem = subproblem
        self.solver, self.fallback = solver, tuple(fallback)
        self.solve_options = dict(solve_options or {})
        self.w0 = w0
        self.check_against, self.check_tol = check_against, check_tol
        J = X.shape[1]
        self._A = self._s = None  # the last subproblem's coefficients A and sigmoids s
        self._drift = 0.0  # Σ_t δ_t since the start
        self._grad = np.zeros(J)  # ∂_j at its last exact evaluation ...
        self._drift_at = np.zeros(J)  # ... and the drift then
        self._range = None
        self._nu = 0.0  # form (8): the multiplier of the budget at the last solve

    def initial_iterate(self):
        return np.ones(self.X.shape[1]) if self.w0 is None else np.asarray(self.w0, dtype=float)

    def statistics(self, iterate, active):
        A = margin_coefficients(self.X, self.y, iterate, self.sigma)  # w = 0 off the active set
        X = self.X if active.all() else self.X[:, active]  # no copy while nothing is eliminated
        return A, signed_abs_sum(A, X)

    def update(self, stats, iterate, active):
        """Solve the garrote subproblem; if an eliminated feature's KKT condition cannot be shown
        at the solution, add its z̄ column and solve again (warm-started) until none can enter, so
        the result is the full-J subproblem's solution."""
        A, Z = stats
        cols = np.flatnonzero(active)
        warm = iterate[cols]
        while True:
            self.subproblem.set_margins(Z)
            self.subproblem.warm_start = warm
            record = self.subproblem.solve(self.solver, fallback=self.fallback, **self.solve_options)
            w = record.solution["w"]
            s = expit(-(self.subproblem.Z @ w))
            self._drift_step(A, s)
            self._grad[cols] = self._reduced_gradient(self.subproblem.gradient(w), w)
            self._drift_at[cols] = self._drift
            enter, Z_enter = self._violations(np.setdiff1d(np.flatnonzero(~active), cols), w.max(initial=0.0))
            if enter.size == 0:
                break
            cols = np.concatenate([cols, enter])
            Z = np.hstack([Z, Z_enter])
            warm = np.concatenate([w, np.zeros(enter.size)])
        if self.check_against is not None:
            self._cross_check(record)
        new = np.zeros_like(iterate)
        new[cols] = w
        return Step(new, [record], record.objective, reentered=cols[~active[cols]])

    def _drift_step(self, A, s):
        """Accumulate δ_t of the module docstring against the previous solve's (A, s)."""
        if self._A is not None:
            self._drift += float(np.abs(s - self._s).sum() + 0.5 * s @ np.abs(A - self._A).sum(axis=1))
        self._A, self._s = A, s

    def _reduced_gradient(self, g, w):
        """∂_j + ν, ν the multiplier of ‖w‖₁ ≤ β in form (8) (0 for form (7))."""
        if getattr(self.subproblem, "beta", None) is None or not np.any(w > 0):
            return g
        self._nu = max(0.0, -float(np.mean(g[w > 0])))
        return g + self._nu

    def _cross_check(self, record):
        """Solve the same subproblem with ``check_against``; record and enforce the agreement."""
        ref = self.subproblem.solve(self.check_against, **self.solve_options)
        w, w_ref = record.solution["w"], ref.solution["w"]
        gap = abs(record.objective - ref.objective) / max(abs(ref.objective), 1.0)
        diff = float(np.max(np.abs(w - w_ref), initial=0.0)) / max(1.0, float(w_ref.max(initial=0.0)))
        record.certificate.update({f"{self.check_against}_objective_gap": gap,
                                   f"{self.check_against}_weight_diff": diff})
        if gap > self.check_tol[0] or diff > self.check_tol[1]:
            raise SolverFailed(self.subproblem.describe(), record.solver, record.status,
                               detail=f"disagrees with {self.check_against}: relative objective gap "
                                      f"{gap:.3g} (tolerance {self.check_tol[0]:g}), weight "
                                      f"difference {diff:.3g} (tolerance {self.check_tol[1]:g})")

    def kkt_violations(self, iterate, active):
        """Every eliminated feature checked exactly against the last subproblem: those with
        ∂_j < −tol at w_j = 0 (tol = the certificate's, 1e-4·max(1, max w))."""
        return self._violations(np.flatnonzero(~active), iterate.max(initial=0.0), full=True)[0]

    def _violations(self, out, w_max, full=False):
        """(features of ``out`` that must enter, their z̄ columns).  Unless ``full``, ∂_j is computed
        exactly only where the drift bound cannot show ∂_j ≥ −tol."""
        tol = self.subproblem.certificate_tol * max(1.0, float(w_max))
        if self._range is None:
            self._range = np.ptp(self.X, axis=0)
        if not full:
            bound = self._grad[out] - self._range[out] * (self._drift - self._drift_at[out])
            out = out[bound < -tol]
        block = max(1, _CHUNK_ELEMENTS // self.X.shape[0])
        enter, columns = [], []
        for start in range(0, out.size, block):
            cols = out[start:start + block]
            Z = signed_abs_sum(self._A, self.X[:, cols])
            g = self.subproblem.penalty_weight() - Z.T @ self._s + self._nu
            self._grad[cols] = g
            self._drift_at[cols] = self._drift
            bad = g < -tol
            enter.append(cols[bad])
            columns.append(Z[:, bad])
        if not enter:
            return out[:0], np.empty((self.X.shape[0], 0))
        return np.concatenate(enter), np.hstack(columns)
