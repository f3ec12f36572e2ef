"""The closed-form gradient path of LOGO, eqs (9)–(10): the reference solver.

Substituting w = v² turns (7) into the unconstrained problem
    min_v Σ_n log(1 + exp(−Σ_j v_j² z̄_nj)) + λ‖v‖₂²                                  (9)
solved by v ← v − η (λ1 − Σ_n σ_n z̄_n) ⊗ v, σ_n = exp(−m_n)/(1 + exp(−m_n))         (10)
(the exact gradient carries a factor 2, kept here).  Theorem 1: from v⁽⁰⁾ with no zero entry
the stationary point reached is the global minimizer of (7).

The substitution needs only that the feasible set is w ≥ 0 and the penalty is differentiable
there, so the path runs on any subproblem that declares a smooth loss f (value, gradient,
n_features) and such a penalty g (value, gradient, box = (0, ∞)) — the ℓ1 of (7), the elastic
net λ‖w‖₁ + (μ/2)‖w‖² — as min_v f(v²) + g(v²), with ∂ = ∇f + ∇g in place of (10)'s bracket.

Choices the paper leaves open: η by Armijo backtracking from a Barzilai–Borwein trial step;
a coordinate whose factor (1 − 2η∂_j) would fall within 1e-3 of zero gets 1e-3 instead — a
step of exactly 1/(2∂_j) sets v_j = 0, the saddle Theorem 1 excludes (measured: with N=40,
J=10⁴ a BB step of exactly 1/(2λ) zeroed every v_j at once); stop when the KKT residual of
w = v² is below ``tol``·max(1, max w).
"""
from __future__ import annotations

import numpy as np

from ..core.composite import PartsBackend
from ..core.parts import LogisticMarginLoss, NonnegL1, SMOOTH_NEEDS

PENALTY_NEEDS = ("value", "gradient", "box")


def gradient_path(Z, lam, v0=None, tol=1e-6, max_iter=100_000, armijo=1e-4, stall=500):
    """Minimize (9) on the margins Z with weight λ; see :func:`reparametrized_path`."""
    return reparametrized_path(LogisticMarginLoss(Z), NonnegL1(lam), v0, tol, max_iter, armijo, stall)


def reparametrized_path(smooth, penalty, v0=None, tol=1e-6, max_iter=100_000, armijo=1e-4, stall=500):
    """Minimize f(v²) + g(v²); returns ``(v, status, iterations)``.

    status is "optimal" once the KKT residual max_j |min(w_j, ∂_j)| ≤ tol·max(1, max w)
    (coordinates with ∂_j > 0 and w_j under that bound are then returned as exact zeros),
    "optimal_inaccurate" when the objective has not decreased by a relative 1e-15 in ``stall``
    iterations (degenerate features with w_j → 0 and ∂_j → 0 converge sublinearly; the record's
    certificate then decides whether the point is used), else "iteration_limit".
    """
    v = np.ones(smooth.n_features) if v0 is None else np.array(v0, dtype=float)
    if np.any(v == 0):
        raise ValueError("gradient_path needs v0 with no zero entry (Theorem 1)")

    def phi(v):
        w = v * v
        return smooth.value(w) + penalty.value(w)

    f = phi(v)
    eta, v_prev, grad_prev = 1.0, None, None
    f_mark, it_mark = f, 0
    for it in range(1, max_iter + 1):
        w = v * v
        g_w = smooth.gradient(w) + penalty.gradient(w)  # ∂/∂w of f + g
        bound = tol * max(1.0, w.max())
        if np.max(np.abs(np.minimum(w, g_w))) <= bound:
            # coordinates KKT puts at the bound (∂_j > 0, w_j within tolerance) are exactly 0
            return np.where((g_w > 0) & (w <= bound), 0.0, v), "optimal", it - 1
        if it - it_mark >= stall:
            if f_mark - f <= 1e-15 * abs(f):
                return v, "optimal_inaccurate", it - 1
            f_mark, it_mark = f, it
        grad = 2.0 * g_w * v
        if v_prev is not None:
            s, yk = v - v_prev, grad - grad_prev
            sy = s @ yk
            eta = (s @ s) / sy if sy > 0 else 2.0 * eta
        gg = grad @ grad
        while True:
            factor = 1.0 - 2.0 * eta * g_w  # v − η∇ = v ⊗ (1 − 2η∂), eq. (10)
            factor[np.abs(factor) < 1e-3] = 1e-3  # never land on v_j = 0 (Theorem 1)
            v_new = v * factor
            f_new = phi(v_new)
            if f_new <= f - armijo * eta * gg or eta < 1e-20:
                break
            eta *= 0.5
        v_prev, grad_prev = v, grad
        v, f = v_new, f_new
    return v, "iteration_limit", max_iter


class GradientPath(PartsBackend):
    """Native backend "GRADIENT": eq. (10) on f(v²) + g(v²) for a penalty differentiable on w ≥ 0."""

    name = "GRADIENT"
    description = ("LOGO closed-form gradient path, eqs (9)-(10); reference for garrote_logistic (7) "
                   "and any penalty differentiable on w >= 0")
    needs = {"smooth": SMOOTH_NEEDS, "penalty": PENALTY_NEEDS}
    default_tol = 1e-6
    status_map = {"optimal": "optimal", "optimal_inaccurate": "optimal_inaccurate", "iteration_limit": "user_limit"}
    tol_meaning = "stopping rule: KKT residual max_j abs(min(w_j, d_j)) <= tol*max(1, max w) of w = v^2 for f(v^2) + g(v^2)"

    def supports(self, subproblem):
        return super().supports(subproblem) and tuple(subproblem.penalty.box) == (0.0, np.inf)

    def refusal(self, subproblem):
        reason = super().refusal(subproblem)
        if reason or self.supports(subproblem):
            return reason
        return f"its penalty's box is {subproblem.penalty.box}; {self.name} needs w >= 0, box (0, inf)"

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, v0=None):
        v, status, iterations = reparametrized_path(
            subproblem.smooth, subproblem.penalty, v0=v0, tol=self.default_tol if tol is None else tol,
            max_iter=100_000 if max_iter is None else max_iter)
        if verbose:
            print(f"gradient path: {status} after {iterations} iterations")
        return {"w": v * v}, status, iterations

