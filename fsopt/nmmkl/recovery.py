"""Subproblem 2 of NMMKL: recovering the relaxed primal p from (α, λ, γ) by the LP (15), Theorem 4.

(15) min_{p,ν,δ,θ} αᵀ(K(p)∘yyᵀ + τI)α + 2C eᵀδ
     s.t. (K(p)∘yyᵀ + τI)α = e + ν − δ + θy                                            (16)
          ν ≥ 0, δ ≥ 0, ν∘α = 0, α∘δ = Cδ, 0 ≤ p ≤ 1, eᵀp = m, γ∘(e − p) = 0, p_i(λ + γ_i − τ_i) = 0

With α fixed, K(p)∘yyᵀ α = Σ_i p_i s_i z_i (z_i = y∘x_i, s_i = z_iᵀα) and the objective is
Σ_i p_i τ_i + 2C eᵀδ + const: everything is linear.  The complementarity conditions become bounds:
ν_j = 0 when α_j > ``alpha_tol``·C, δ_j = 0 when α_j < (1 − ``alpha_tol``)·C, and, through the A/B/C
partition of Corollary 2 (eqs 10–13, ties of τ_i within ``tie_tol``), p_i = 1 on A, p_i = 0 on C.

Robustness: on a floating-point α those bounds usually make (16) infeasible.  The LP therefore
minimises the least violation: (16) gets slacks ξ⁺, ξ⁻ ≥ 0 weighted by ``violation_weight``
(an exact penalty: when it exceeds the multipliers of (16), the LP returns a solution of (15)
whenever (15) is feasible).  The LP is always feasible, since |A| < m ≤ |A| + |B|.
The remaining violation ‖ξ‖₁ is reported, not hidden.

Certificate (NumPy): primal infeasibility of the bounds and of eᵀp = m, dual infeasibility of the
reduced costs c − Aᵀu, and the LP duality gap, from the solver's multipliers u.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.farkas import inequality_form
from ..core.solvers import LP
from ..core.subproblem import Subproblem


class PrimalRecoveryLP(Subproblem):
    """LP (15) in standard form min cᵀx s.t. A x = b, lo ≤ x ≤ hi, x = (p, ν, δ, θ, ξ⁺, ξ⁻)."""

    name = "nmmkl_lp_recovery"
    cone = LP
    certificate_tol = 1e-6  # relative to max(1, |cᵀx|, max|c|)

    def __init__(self, alpha_tol=1e-6, violation_weight=1e3):
        super().__init__()
        self.alpha_tol = float(alpha_tol)
        self.violation_weight = float(violation_weight)

    def describe(self):
        return f"{self.name} (15)"

    def set_state(self, Z, y, alpha, s, fixed_one, fixed_zero, m, C, tau):
        """The data of (15): s = Zᵀα, masks of A (p = 1) and C (p = 0).  Rebuilds the LP."""
        N, d = Z.shape
        w = self.violation_weight * max(1.0, C)
        n_var = d + 4 * N + 1
        self.sizes = (d, N)
        self.alpha, self.s, self.tau_i = alpha, s, s * s
        self.const = tau * float(alpha @ alpha)
        self.c = np.concatenate([self.tau_i, np.zeros(N), np.full(N, 2 * C), [0.0], np.full(2 * N, w)])
        I = sp.identity(N, format="csr")
        top = sp.hstack([sp.csr_matrix(Z) @ sp.diags(s), -I, I, sp.csr_matrix(-y[:, None]), -I, I])
        self.A = sp.vstack([top, sp.hstack([np.ones((1, d)), sp.csr_matrix((1, 4 * N + 1))])]).tocsr()
        self.b = np.concatenate([1.0 - tau * alpha, [float(m)]])
        lo, hi = np.zeros(n_var), np.full(n_var, np.inf)
        hi[:d] = 1.0
        lo[:d][fixed_one] = 1.0
        hi[:d][fixed_zero] = 0.0
        hi[d:d + N][alpha > self.alpha_tol * C] = 0.0                 # ν∘α = 0
        hi[d + N:d + 2 * N][alpha < (1 - self.alpha_tol) * C] = 0.0   # α∘δ = Cδ
        lo[d + 2 * N] = -np.inf                                       # θ free
        self.lo, self.hi = lo, hi
        self.invalidate()

    def _build(self):
        import cvxpy as cp

        x = cp.Variable(self.c.size, name="x")
        lo_idx, hi_idx = np.flatnonzero(np.isfinite(self.lo)), np.flatnonzero(np.isfinite(self.hi))
        self._eq = self.A @ x == self.b
        self._lower = x[lo_idx] >= self.lo[lo_idx]
        self._upper = x[hi_idx] <= self.hi[hi_idx]
        self._idx = (lo_idx, hi_idx)
        return cp.Problem(cp.Minimize(self.c @ x), [self._eq, self._lower, self._upper]), {"x": x}

    def _extract(self, problem, variables):
        x = np.asarray(variables["x"].value, dtype=float)
        d, N = self.sizes
        return {"x": x, "p": x[:d], "nu": x[d:d + N], "delta": x[d + N:d + 2 * N],
                "theta": float(x[d + 2 * N]), "violation": float(x[d + 2 * N + 1:].sum()),
                "u": -np.asarray(self._eq.dual_value, dtype=float)}

    def solution_shapes(self):
        """x and its parts (p, ν, δ, θ, ‖ξ‖₁), and the multipliers u of A x = b."""
        d, N = self.sizes
        return {"x": (self.c.size,), "p": (d,), "nu": (N,), "delta": (N,), "theta": (),
                "violation": (), "u": (N + 1,)}

    def lp_inequality_form(self):
        """(c, G, h) of the LP A x = b, lo ≤ x ≤ hi, for the NumPy check of a solver's claim
        "infeasible" / "unbounded" (both false: the LP is feasible and c ≥ 0 on x ≥ 0 but θ)."""
        return inequality_form(self.c, self.A, self.b, self.b, self.lo, self.hi)

    def objective(self, solution):
        """Objective of (15) (penalty excluded) at the solution."""
        d, N = self.sizes
        return float(self.c[:d + 2 * N + 1] @ solution["x"][:d + 2 * N + 1] + self.const)

    def certificate(self, solution):
        x, u = solution["x"], solution["u"]
        primal = max(float(np.max(np.abs(self.A @ x - self.b))),
                     float(np.max(self.lo - x, initial=0.0)), float(np.max(x - self.hi, initial=0.0)))
        r = self.c - self.A.T @ u  # reduced costs: ≥ 0 needs lo finite, ≤ 0 needs hi finite
        pos, neg = np.maximum(r, 0.0), np.minimum(r, 0.0)
        dual_infeas = float(max(np.max(pos[~np.isfinite(self.lo)], initial=0.0),
                                np.max(-neg[~np.isfinite(self.hi)], initial=0.0)))
        lo = np.where(np.isfinite(self.lo), self.lo, 0.0)
        hi = np.where(np.isfinite(self.hi), self.hi, 0.0)
        dual_obj = float(self.b @ u + pos @ lo + neg @ hi)
        primal_obj = float(self.c @ x)
        gap = primal_obj - dual_obj
        scale = max(1.0, abs(primal_obj), float(np.max(np.abs(self.c))))
        return {"residual": max(abs(gap), primal, dual_infeas) / scale, "duality_gap": gap,
                "primal_infeasibility": primal, "dual_infeasibility": dual_infeas,
                "violation_16": solution["violation"]}
