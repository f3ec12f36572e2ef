"""The two LPs of LFS for one representative point, as framework subproblems.

(8)  ε_max = max bᵀf            s.t. 0 ≤ f ≤ 1, 1 ≤ 1ᵀf ≤ α
(9)  min aᵀf                    s.t. 0 ≤ f ≤ 1, 1 ≤ 1ᵀf ≤ α, bᵀf ≥ β ε_max

a, b (eq. 5) and ε are cvxpy Parameters: one Problem per (M, α) serves every representative
point and every β of the sweep without recompiling.  The certificates are NumPy-only: (8) is
compared with its closed form (b ≥ 0 ⇒ ε_max = sum of the α largest b_m); (9) by primal
feasibility and the duality gap at the dual point (λ, ν) the solver returned, whose Lagrangian
bound g(λ, ν) = λε + ν⁺ − αν⁻ + Σ_m min(0, a_m − λb_m − ν) is valid for any λ ≥ 0.
"""
from __future__ import annotations

import numpy as np

from ..core.solvers import LP
from ..core.subproblem import Subproblem


def epsilon_max_closed_form(b, alpha):
    """Optimal value of (8) for b ≥ 0: the sum of the α largest entries of b."""
    alpha = min(int(alpha), b.size)
    return float(np.partition(b, b.size - alpha)[b.size - alpha:].sum())


def _box_card_violation(f, alpha):
    """Violation of 0 ≤ f ≤ 1 and 1 ≤ 1ᵀf ≤ α."""
    s = float(f.sum())
    return max(0.0, -float(f.min()), float(f.max()) - 1.0, 1.0 - s, s - alpha)


class _LFSLinearProgram(Subproblem):
    """Shared data of (8) and (9): the cost vectors, α, and a version counter for native caches."""

    cone = LP
    certificate_tol = 1e-6
    lp_variable = "f"  # the solution key native LP backends fill (fsopt.lfs.backends)

    def __init__(self, n_features, alpha):
        super().__init__()
        self.n_features, self.alpha = int(n_features), int(alpha)
        self.a = self.b = None
        self.eps = 0.0
        self.data_version = 0  # bumped when a or b change (native backends rebuild their model)

    def set_data(self, a=None, b=None):
        self.a = None if a is None else np.ascontiguousarray(a, dtype=float)
        self.b = np.ascontiguousarray(b, dtype=float)
        self.data_version += 1

    def _variable_and_cardinality(self):
        import cvxpy as cp

        f = cp.Variable(self.n_features, name="f")
        card_lo, card_hi = cp.sum(f) >= 1, cp.sum(f) <= self.alpha
        return f, [f >= 0, f <= 1, card_lo, card_hi], card_lo, card_hi

    def certificate_scale(self, solution):
        return max(1.0, abs(self.objective(solution)))

    def solution_shapes(self):
        """f, which the objective and certificate read."""
        return {"f": (self.n_features,)}


class EpsilonMax(_LFSLinearProgram):
    """LP (8): the largest total inter-class distance bᵀf over the relaxed feasible set."""

    name = "lfs_epsilon_max"
    lp_rows = 1  # general rows of lp_data besides the box (native backends: fsopt.lfs.backends)

    def describe(self):
        return f"{self.name} (8), M={self.n_features}, alpha={self.alpha}"

    def set_data(self, a=None, b=None):
        """b: the inter-class distances, b ≥ 0 (its closed form, TOPK and the certificate rest on it)."""
        super().set_data(a, b)
        if not np.all(self.b >= 0):
            raise ValueError(f"{self.name}: b must be nonnegative (distances); entry {int(np.argmin(self.b))} is "
                             f"{float(np.min(self.b)):.3g}")

    def lp_data(self):
        """(cost, rows, row_lower, row_upper) in min form over 0 ≤ f ≤ 1, for native LP backends."""
        return -self.b, np.ones((1, self.n_features)), [1.0], [float(self.alpha)]

    def top_k_data(self):
        """(b, α): (8) is max bᵀf over 0 ≤ f ≤ 1, 1 ≤ 1ᵀf ≤ α with b ≥ 0 (the TOPK closed form)."""
        return self.b, self.alpha

    def _build(self):
        import cvxpy as cp

        f, cons, _, _ = self._variable_and_cardinality()
        self._b = cp.Parameter(self.n_features, nonneg=True, name="b")
        return cp.Problem(cp.Maximize(self._b @ f), cons), {"f": f}

    def _set_parameters(self):
        self._b.value = self.b

    def objective(self, solution):
        return float(self.b @ solution["f"])

    def certificate(self, solution):
        f = solution["f"]
        best = epsilon_max_closed_form(self.b, self.alpha)
        gap = best - float(self.b @ f)
        infeas = _box_card_violation(f, self.alpha)
        return {"residual": max(abs(gap), infeas), "gap_to_closed_form": gap,
                "primal_infeasibility": infeas, "closed_form": best}


class EpsilonConstraint(_LFSLinearProgram):
    """LP (9): minimum intra-class distance aᵀf with inter-class distance bᵀf ≥ ε = β ε_max."""

    name = "lfs_epsilon_constraint"
    lp_dual_names = ("nu", "lam")  # duals of the rows of lp_data: 1ᵀf, then bᵀf ≥ ε
    lp_rows = 2

    def describe(self):
        return f"{self.name} (9), M={self.n_features}, alpha={self.alpha}, eps={self.eps:.6g}"

    def solution_shapes(self):
        """f and the duals (λ, ν) of the certificate's Lagrangian bound."""
        return dict(super().solution_shapes(), lam=(), nu=())

    def set_epsilon(self, eps):
        self.eps = float(eps)

    def lp_data(self):
        rows = np.vstack([np.ones(self.n_features), self.b])
        return (self.a, rows, *self.lp_row_bounds())

    def lp_row_bounds(self):
        """The row bounds of ``lp_data`` alone (what changes along the β sweep)."""
        return [1.0, self.eps], [float(self.alpha), np.inf]

    def _build(self):
        import cvxpy as cp

        f, cons, lo, hi = self._variable_and_cardinality()
        self._a = cp.Parameter(self.n_features, nonneg=True, name="a")
        self._b = cp.Parameter(self.n_features, nonneg=True, name="b")
        self._eps = cp.Parameter(nonneg=True, name="eps")
        inter = self._b @ f >= self._eps
        self._duals = (inter, lo, hi)
        return cp.Problem(cp.Minimize(self._a @ f), [*cons, inter]), {"f": f}

    def _set_parameters(self):
        self._a.value, self._b.value, self._eps.value = self.a, self.b, self.eps

    def _extract(self, problem, variables):
        inter, lo, hi = self._duals
        return {"f": np.asarray(variables["f"].value, dtype=float),
                "lam": float(inter.dual_value), "nu": float(lo.dual_value) - float(hi.dual_value)}

    def objective(self, solution):
        return float(self.a @ solution["f"])

    def dual_bound(self, lam, nu):
        """Lagrangian lower bound g(λ, ν) on (9); valid for every λ ≥ 0 and every ν."""
        lam = max(float(lam), 0.0)
        reduced = self.a - lam * self.b - nu
        return lam * self.eps + max(nu, 0.0) - self.alpha * max(-nu, 0.0) + float(np.minimum(reduced, 0.0).sum())

    def certificate(self, solution):
        f = solution["f"]
        infeas = max(_box_card_violation(f, self.alpha), self.eps - float(self.b @ f))
        gap = self.objective(solution) - self.dual_bound(solution["lam"], solution["nu"])
        return {"residual": max(abs(gap), infeas), "duality_gap": gap, "primal_infeasibility": infeas}
