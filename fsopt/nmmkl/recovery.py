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

Structure (:meth:`PrimalRecoveryLP.reduced_lp`): Corollary 2 fixes p on A and C, so only p_B (the tie
block, eq. 11), θ and one slack pair per row of (16) are free.  Of ν_j, ξ⁺_j only the cheapest
allowed one is ever used (ν_j at cost 0 when α_j ≈ 0, else ξ⁺_j at the weight w), and of δ_j, ξ⁻_j
likewise (δ_j at 2C when α_j ≈ C and 2C ≤ w, else ξ⁻_j at w): (15) is the LP in (p_B, θ, σ⁺, σ⁻) with
N + 1 rows and |B| + 1 + 2N columns, whatever d, with the same optimum and the same row multipliers
u.  The native backend MKLLP (:mod:`fsopt.nmmkl.recovery_reduced`) solves that LP by dual simplex
and maps the vertex back; the general LP on all d + 4N + 1 columns stays the fallback.

Certificate (NumPy, on the full LP whoever solved it): primal infeasibility of the bounds and of
A x = b, dual infeasibility of the reduced costs c − Aᵀu, and the LP duality gap, from the solver's
multipliers u.  A x and Aᵀu are formed from Z, s and y in O(Nd) (A itself is built only for a
cvxpy solver or a check of an "infeasible" claim).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.farkas import inequality_form
from ..core.solvers import LP
from ..core.subproblem import Subproblem
from .qcqp import columns


class PrimalRecoveryLP(Subproblem):
    """LP (15) in standard form min cᵀx s.t. A x = b, lo ≤ x ≤ hi, x = (p, ν, δ, θ, ξ⁺, ξ⁻)."""

    name = "nmmkl_lp_recovery"
    cone = LP
    certificate_tol = 1e-6  # each part relative to its own units (certificate)

    def __init__(self, alpha_tol=1e-6, violation_weight=1e3):
        super().__init__()
        self.alpha_tol = float(alpha_tol)
        self.violation_weight = float(violation_weight)

    def describe(self):
        return f"{self.name} (15)"

    def set_state(self, Z, y, alpha, s, fixed_one, fixed_zero, m, C, tau):
        """The data of (15): s = Zᵀα, masks of A (p = 1) and C (p = 0); the LP is rebuilt lazily."""
        N, d = Z.shape
        self.Z, self.y, self.m, self.C = Z, np.asarray(y, dtype=float), int(m), float(C)
        self.w = self.violation_weight * max(1.0, C)
        n_var = d + 4 * N + 1
        self.sizes = (d, N)
        self.alpha, self.s, self.tau_i = alpha, s, s * s
        self.const = tau * float(alpha @ alpha)
        self.c = np.concatenate([self.tau_i, np.zeros(N), np.full(N, 2 * C), [0.0], np.full(2 * N, self.w)])
        self.b = np.concatenate([1.0 - tau * alpha, [float(m)]])
        lo, hi = np.zeros(n_var), np.full(n_var, np.inf)
        hi[:d] = 1.0
        lo[:d][fixed_one] = 1.0
        hi[:d][fixed_zero] = 0.0
        self.nu_allowed = alpha <= self.alpha_tol * C                  # ν∘α = 0
        self.delta_allowed = alpha >= (1 - self.alpha_tol) * C         # α∘δ = Cδ
        hi[d:d + N][~self.nu_allowed] = 0.0
        hi[d + N:d + 2 * N][~self.delta_allowed] = 0.0
        lo[d + 2 * N] = -np.inf                                       # θ free
        self.lo, self.hi = lo, hi
        self._A = None
        self.invalidate()

    @property
    def A(self):
        """The constraint matrix of A x = b (sparse, built on first use)."""
        if self._A is None:
            (d, N), Z = self.sizes, self.Z
            I = sp.identity(N, format="csr")
            top = sp.hstack([sp.csr_matrix(Z) @ sp.diags(self.s), -I, I, sp.csr_matrix(-self.y[:, None]), -I, I])
            self._A = sp.vstack([top, sp.hstack([np.ones((1, d)), sp.csr_matrix((1, 4 * N + 1))])]).tocsr()
        return self._A

    def matvec(self, x):
        """A x in O(Nd), without A."""
        d, N = self.sizes
        nu, delta, theta = x[d:d + N], x[d + N:d + 2 * N], x[d + 2 * N]
        xi_plus, xi_minus = x[d + 2 * N + 1:d + 3 * N + 1], x[d + 3 * N + 1:]
        top = self.Z @ (self.s * x[:d]) - nu + delta - theta * self.y - xi_plus + xi_minus
        return np.append(top, x[:d].sum())

    def rmatvec(self, u):
        """Aᵀu in O(Nd), without A."""
        u_rows, u_sum = u[:-1], u[-1]
        p_part = self.s * np.asarray(self.Z.T @ u_rows).ravel() + u_sum
        return np.concatenate([p_part, -u_rows, u_rows, [-float(self.y @ u_rows)], -u_rows, u_rows])

    def reduced_lp(self):
        """(cost, A_eq, b_eq, bounds, expand) of (15) over (p_B, θ, σ⁺, σ⁻) (module docstring):
        ``expand(q, u)`` maps a solution q of the reduced LP and its row multipliers u to this LP's
        solution."""
        (d, N), Z, y = self.sizes, self.Z, self.y
        fixed = self.hi[:d] <= self.lo[:d]
        free = np.flatnonzero(~fixed)
        p_fixed = np.where(fixed, self.lo[:d], 0.0)
        ZB = columns(Z, free) * self.s[free][None, :]
        rhs = self.b[:N] - Z @ (self.s * p_fixed)
        plus_cost = np.where(self.nu_allowed, 0.0, self.w)
        use_delta = self.delta_allowed & (2 * self.C <= self.w)  # the cheaper of δ_j and ξ⁻_j
        minus_cost = np.where(use_delta, 2 * self.C, self.w)
        cost = np.concatenate([self.tau_i[free], [0.0], plus_cost, minus_cost])
        I = sp.identity(N, format="csr")  # sparse: N may be large, |B| is small
        A_eq = sp.vstack([sp.hstack([sp.csr_matrix(ZB), sp.csr_matrix(-y[:, None]), -I, I]),
                          sp.hstack([np.ones((1, free.size)), sp.csr_matrix((1, 1 + 2 * N))])], format="csr")
        b_eq = np.append(rhs, self.m - p_fixed.sum())
        bounds = [(0.0, 1.0)] * free.size + [(None, None)] + [(0.0, None)] * (2 * N)

        def expand(q, u):
            p = p_fixed.copy()
            p[free] = q[:free.size]
            theta, plus, minus = q[free.size], q[free.size + 1:free.size + 1 + N], q[free.size + 1 + N:]
            nu, xi_plus = np.where(self.nu_allowed, plus, 0.0), np.where(self.nu_allowed, 0.0, plus)
            delta, xi_minus = np.where(use_delta, minus, 0.0), np.where(use_delta, 0.0, minus)
            x = np.concatenate([p, nu, delta, [theta], xi_plus, xi_minus])
            return self._solution(x, np.asarray(u, dtype=float))

        return cost, A_eq, b_eq, bounds, expand

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
        return self._solution(np.asarray(variables["x"].value, dtype=float),
                              -np.asarray(self._eq.dual_value, dtype=float))

    def _solution(self, x, u):
        """The solution dict of x = (p, ν, δ, θ, ξ⁺, ξ⁻) and the multipliers u of A x = b."""
        d, N = self.sizes
        return {"x": x, "p": x[:d], "nu": x[d:d + N], "delta": x[d + N:d + 2 * N],
                "theta": float(x[d + 2 * N]), "violation": float(x[d + 2 * N + 1:].sum()), "u": u}

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
        rebuilt = self._solution(x, u)  # NMMKL reads p, ν, δ, θ and the violation: they must be x's
        parts = max(float(np.max(np.abs(np.asarray(solution[k], dtype=float) - rebuilt[k]), initial=0.0))
                    for k in ("p", "nu", "delta", "theta", "violation"))
        primal = max(float(np.max(np.abs(self.matvec(x) - self.b))),
                     float(np.max(self.lo - x, initial=0.0)), float(np.max(x - self.hi, initial=0.0)))
        r = self.c - self.rmatvec(u)  # reduced costs: ≥ 0 needs lo finite, ≤ 0 needs hi finite
        pos, neg = np.maximum(r, 0.0), np.minimum(r, 0.0)
        dual_infeas = float(max(np.max(pos[~np.isfinite(self.lo)], initial=0.0),
                                np.max(-neg[~np.isfinite(self.hi)], initial=0.0)))
        lo = np.where(np.isfinite(self.lo), self.lo, 0.0)
        hi = np.where(np.isfinite(self.hi), self.hi, 0.0)
        dual_obj = float(self.b @ u + pos @ lo + neg @ hi)
        primal_obj = float(self.c @ x)
        gap = primal_obj - dual_obj
        # each part in its own units: x's feasibility in b's (never divided by a cost, such as the
        # violation's price), the gap in the objectives', the reduced costs in c's
        residual = max(abs(gap) / max(1.0, abs(primal_obj), abs(dual_obj)),
                       max(primal, parts) / max(1.0, float(np.max(np.abs(self.b), initial=0.0))),
                       dual_infeas / max(1.0, float(np.max(np.abs(self.c)))))
        return {"residual": residual, "duality_gap": gap, "primal_infeasibility": primal,
                "dual_infeasibility": dual_infeas, "parts_mismatch": parts, "violation_16": solution["violation"]}
