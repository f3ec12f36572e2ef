"""Subproblem 1 of NMMKL: the QCQP dual (8) of the relaxed MKL problem (Theorem 1).

(8)  max_{α,λ,γ} 2αᵀe − τ αᵀα − mλ − γᵀe
     s.t. αᵀy = 0, 0 ≤ α ≤ C, (x_iᵀ(α∘y))² ≤ λ + γ_i, γ_i ≥ 0, λ ≥ 0   (i = 1..d)

K_i = x_i x_iᵀ, so each quadratic constraint is one 3-dimensional second-order cone on the scalar
s_i = x_iᵀ(α∘y): no N×N kernel is ever formed.  λ ≥ 0 is the bound of eq. (14); it cuts off no
optimum (τ_i ≥ 0) and keeps λ bounded when m = d.  C, τ and m are cvxpy Parameters, so changing
them re-solves without recompiling.  The multipliers of the d cones are the relaxed primal p of (5)
(they sum to m); they are returned as ``p_cone``.

Certificate (NumPy): the duality gap between (8) and the relaxed primal (7).  With p the cone
multipliers projected onto {0 ≤ p ≤ 1, eᵀp = m}, M = K(p)∘yyᵀ + τI, r = Mα − e, the primal point
v = Mα = e + ν − δ + θy (ν = (r − θy)⁺, δ = (θy − r)⁺, θ minimising eᵀδ) is feasible for (7) with
value αᵀMα + 2C eᵀδ, and (14) gives the dual value of α: 2αᵀe − ταᵀα − (sum of the m largest τ_i).
Both use only s = Zᵀα (Z = diag(y)X), O(Nd).

Sparse X (CSR/CSC) gives a sparse CSC Z: every use of Z is a product Zᵀα or Zv (NumPy, SciPy and
cvxpy alike), so the N×d data are never densified.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.scaling import check_finite
from ..core.solvers import SOC
from ..core.subproblem import Subproblem


class MKLDual(Subproblem):
    """The QCQP (8) for data X (N×d, samples in rows), labels y ∈ {±1}^N."""

    name = "nmmkl_qcqp"
    cone = SOC
    # relative duality gap and feasibility, scaled by max(1, |value|).  The primal point is built
    # from α, so errors of the cone multipliers enter the gap linearly (~N·C·‖Δp‖): measured 1e-5
    # with Clarabel's defaults, 2e-6 at tol 1e-10, 3e-7 with SCS's defaults (N = 120, d = 30).
    certificate_tol = 1e-4

    def __init__(self, X, y, m, C=1.0, tau=1.0):
        super().__init__()
        self.Z = scale_rows(y, X)  # z_i = y∘x_i
        self.y = np.asarray(y, dtype=float)
        with np.errstate(over="ignore"):
            traces = np.asarray(self.Z.multiply(self.Z).sum(axis=0)).ravel() if sp.issparse(self.Z) \
                else np.einsum("ij,ij->j", self.Z, self.Z)
            check_finite(traces, "the kernel diagonal trace(K_i) of (8)",
                         "X is too large for the kernels x_i x_iᵀ; rescale X")
        self.m, self.C, self.tau = int(m), float(C), float(tau)

    def describe(self):
        N, d = self.Z.shape
        return f"{self.name} (8), N={N} d={d} m={self.m} C={self.C:g} tau={self.tau:g}"

    def _build(self):
        import cvxpy as cp

        N, d = self.Z.shape
        alpha = cp.Variable(N, name="alpha")
        lam = cp.Variable(nonneg=True, name="lambda")
        gamma = cp.Variable(d, nonneg=True, name="gamma")
        self._C = cp.Parameter(nonneg=True, name="C")
        self._tau = cp.Parameter(nonneg=True, name="tau")
        self._m = cp.Parameter(nonneg=True, name="m")
        self._cones = cp.square(self.Z.T @ alpha) <= lam + gamma  # d SOCs after canonicalization
        objective = 2 * cp.sum(alpha) - self._tau * cp.sum_squares(alpha) - self._m * lam - cp.sum(gamma)
        problem = cp.Problem(cp.Maximize(objective),
                             [self.y @ alpha == 0, alpha >= 0, alpha <= self._C, self._cones])
        return problem, {"alpha": alpha, "lambda": lam, "gamma": gamma}

    def _set_parameters(self):
        self._C.value, self._tau.value, self._m.value = self.C, self.tau, float(self.m)

    def _extract(self, problem, variables):
        out = {k: np.atleast_1d(np.asarray(v.value, dtype=float)) for k, v in variables.items()}
        out["lambda"] = float(out["lambda"][0])
        out["p_cone"] = np.asarray(self._cones.dual_value, dtype=float)
        return out

    def solution_shapes(self):
        """α, λ, γ and the cone multipliers p, which the certificate reads."""
        N, d = self.Z.shape
        return {"alpha": (N,), "lambda": (), "gamma": (d,), "p_cone": (d,)}

    def polish(self, solution):
        """Native polish of a rejected solve: keep α, and take λ, γ optimal for α and the p of
        the LP :func:`best_p` (the interior point multipliers' error then leaves the gap)."""
        W = np.arange(self.Z.shape[1])
        return self.solution_from_alpha(solution["alpha"], solution["p_cone"], W)

    def solution_from_alpha(self, alpha, p_W, W):
        """(α, λ = τ_(m) over all features, γ = (τ − λ)⁺, p = best_p on W, zero elsewhere)."""
        tau_i, _ = self.scores(alpha)
        lam = float(np.sort(tau_i)[::-1][self.m - 1])
        p = np.zeros(tau_i.size)
        p[W] = best_p(self, alpha, W, p_W)
        return {"alpha": alpha, "lambda": lam, "gamma": np.maximum(tau_i - lam, 0.0), "p_cone": p}

    # --- NumPy side ----------------------------------------------------------------------------
    def scores(self, alpha):
        """τ_i = (x_iᵀ(α∘y))², eq. (9), and s = Zᵀα."""
        s = self.Z.T @ alpha
        return s * s, s

    def objective(self, solution):
        a = solution["alpha"]
        return float(2 * a.sum() - self.tau * a @ a - self.m * solution["lambda"] - solution["gamma"].sum())

    def dual_value(self, alpha):
        """The objective of (14) at α (λ, γ optimal for α): 2αᵀe − ταᵀα − Σ_{m largest} τ_i."""
        tau_i, _ = self.scores(alpha)
        top = np.sort(tau_i)[::-1][: self.m].sum()
        return float(2 * alpha.sum() - self.tau * alpha @ alpha - top)

    def primal_value(self, alpha, p):
        """Value of (7) at p and the (ν, δ, θ) built from α (see module docstring)."""
        tau_i, s = self.scores(alpha)
        r = self.Z @ (p * s) + self.tau * alpha - 1.0  # Mα − e
        # eᵀδ(θ) = Σ_j (θ y_j − r_j)⁺ is convex piecewise linear in θ: minimum at a breakpoint y_j r_j
        thetas = self.y * r
        cost = np.maximum(thetas[:, None] * self.y[None, :] - r[None, :], 0.0).sum(axis=1)
        delta_sum = float(cost.min())
        return float(p @ tau_i + self.tau * alpha @ alpha + 2 * self.C * delta_sum)

    def certificate(self, solution):
        a, lam, gamma = solution["alpha"], solution["lambda"], solution["gamma"]
        p_raw = solution["p_cone"]
        p = project_capped_simplex(p_raw, self.m)
        tau_i, _ = self.scores(a)
        dual = self.dual_value(a)
        gap = self.primal_value(a, p) - dual
        scale = max(1.0, abs(dual))
        infeas = max(abs(float(self.y @ a)), float(np.max(-a, initial=0.0)),
                     float(np.max(a - self.C, initial=0.0)))
        cone_viol = float(np.max(tau_i - lam - gamma, initial=0.0))
        # λ and γ as returned: (8) at them is dual_value(α) exactly when they are optimal for α
        multipliers = abs(dual - self.objective(solution))
        p_infeas = float(max(abs(p_raw.sum() - self.m), np.max(-p_raw, initial=0.0),
                             np.max(p_raw - 1.0, initial=0.0)))
        # each part in its own units: the gap, the cones and the multipliers in (8)'s, α's feasibility
        # in C's, p's (a share of each feature) as it is
        residual = max((abs(gap) + cone_viol + multipliers) / scale, infeas / max(1.0, self.C), p_infeas)
        return {"residual": residual, "duality_gap": gap, "alpha_infeasibility": infeas,
                "cone_violation": cone_viol, "multiplier_gap": multipliers, "p_cone_infeasibility": p_infeas}


def scale_rows(y, X):
    """diag(y)X as float: a dense array, or a CSC matrix (columns z_i) when X is sparse."""
    y = np.asarray(y, dtype=float)
    if sp.issparse(X):
        return sp.csc_matrix(sp.diags(y) @ X, dtype=float)
    return y[:, None] * np.asarray(X, dtype=float)


def columns(Z, index):
    """The columns ``index`` of Z as a dense N×|index| array (a working set, never all d)."""
    sub = Z[:, index]
    return sub.toarray() if sp.issparse(sub) else sub


def best_p(subproblem, alpha, W, p_start):
    """The p on W that minimises the primal value of (7) built from α (see MKLDual.primal_value).

    min_{p,θ,δ} Σ_{i∈W} p_i τ_i + 2C eᵀδ  s.t. δ ≥ θy − r(p), δ ≥ 0, eᵀp = m, 0 ≤ p ≤ 1, with
    r(p) = Σ_i p_i s_i z_i + τα − e: an LP (HiGHS through SciPy) with |W| + N + 1 variables.  Any
    feasible p gives a valid certificate; the optimal one removes the error of the interior point
    multipliers from the duality gap, leaving only that of α.  Falls back to ``p_start``
    (projected) if HiGHS fails.
    """
    from scipy.optimize import linprog

    Z, y, C, m = columns(subproblem.Z, W), subproblem.y, subproblem.C, subproblem.m
    s = Z.T @ alpha
    N, k = Z.shape
    # θy_j − δ_j − Σ_i p_i s_i Z_ji ≤ τα_j − 1   (δ_j ≥ θy_j − r_j)
    A_ub = np.hstack([-Z * s[None, :], y[:, None], -np.eye(N)])
    b_ub = subproblem.tau * alpha - 1.0
    cost = np.concatenate([s * s, [0.0], np.full(N, 2 * C)])
    A_eq = np.concatenate([np.ones(k), np.zeros(N + 1)])[None, :]
    bounds = [(0.0, 1.0)] * k + [(None, None)] + [(0.0, None)] * N
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[float(m)], bounds=bounds, method="highs")
    if res.status != 0:
        return project_capped_simplex(p_start, m)
    return project_capped_simplex(res.x[:k], m)


def project_capped_simplex(v, m):
    """Euclidean projection of v onto {0 ≤ p ≤ 1, eᵀp = m} (bisection on the shift)."""
    v = np.asarray(v, dtype=float)
    lo, hi = float(v.min()) - 1.0, float(v.max())
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if np.clip(v - mid, 0.0, 1.0).sum() > m:
            lo = mid
        else:
            hi = mid
    return np.clip(v - 0.5 * (lo + hi), 0.0, 1.0)
