"""The LOGO subproblem: nonnegative-garrote logistic regression on expected margins.

(7)  min_w Σ_n log(1 + exp(−wᵀz̄_n)) + λ‖w‖₁   s.t. w ≥ 0          (``beta=None``)
(8)  min_w Σ_n log(1 + exp(−wᵀz̄_n))            s.t. ‖w‖₁ ≤ β, w ≥ 0

Both are exponential-cone programs.  The certificate is the natural KKT residual
‖w − Π_C(w − ∇F(w))‖_∞ over the feasible set C, zero exactly at the optimum, in NumPy.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..core.scaling import check_finite
from ..core.solvers import EXP
from ..core.subproblem import Subproblem


class GarroteLogistic(Subproblem):
    """LOGO's nonnegative-garrote logistic regression: eq. (7), or (8) when ``beta`` is given.

    ``Z`` holds the expected margins z̄_n (eq. 3), one row per sample.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import GarroteLogistic
    >>> garrote = GarroteLogistic(lam=1.0, Z=np.array([[1.0, -0.5], [0.8, 0.2], [1.2, 0.1]]))
    >>> a, b = garrote.solve("LBFGSB"), garrote.solve("CLARABEL")
    >>> a.certified and b.certified and abs(a.objective - b.objective) < 1e-6
    True
    """

    name = "garrote_logistic"
    cone = EXP
    certificate_tol = 1e-4  # KKT residual relative to max(1, max w); weights then agree to ~1e-4

    def __init__(self, lam=1.0, beta=None, Z=None):
        super().__init__()
        self.lam = float(lam)
        self.beta = None if beta is None else float(beta)
        self.Z = None
        self.warm_start = None  # a starting point native backends may use
        if Z is not None:
            self.set_margins(Z)

    def describe(self):
        form = f"(7), lam={self.lam:g}" if self.beta is None else f"(8), beta={self.beta:g}"
        return f"{self.name} {form}"

    def set_margins(self, Z):
        """New margin matrix (N×J): held as a constant, so the Problem is rebuilt on next solve."""
        self.Z = np.ascontiguousarray(Z, dtype=float)
        check_finite(self.Z, "the expected margins of the garrote subproblem",
                     "X is too large for the margin computation; rescale X")
        self.invalidate()

    def polish(self, solution):
        """L-BFGS-B from the rejected weights (form (7) only; (8) has no native method)."""
        if self.beta is not None:
            return None
        from .lbfgsb import polish_garrote

        return {"w": polish_garrote(self.Z, self.lam, solution["w"])}

    def _build(self):
        import cvxpy as cp

        w = cp.Variable(self.Z.shape[1], nonneg=True, name="w")
        loss = cp.sum(cp.logistic(-self.Z @ w))
        self._param = cp.Parameter(nonneg=True, name="beta" if self.beta is not None else "lam")
        if self.beta is None:
            problem = cp.Problem(cp.Minimize(loss + self._param * cp.sum(w)))
        else:
            problem = cp.Problem(cp.Minimize(loss), [cp.sum(w) <= self._param])
        return problem, {"w": w}

    def _set_parameters(self):
        self._param.value = self.lam if self.beta is None else self.beta

    def _extract(self, problem, variables):
        return {"w": np.maximum(np.asarray(variables["w"].value, dtype=float), 0.0)}

    # --- NumPy side --------------------------------------------------------------------------
    def penalty_weight(self):
        return self.lam if self.beta is None else 0.0

    def loss(self, w):
        return float(np.logaddexp(0.0, -(self.Z @ w)).sum())

    def gradient(self, w):
        """∇F(w) = −Zᵀ σ(−Zw) + λ1 (λ = 0 for form (8))."""
        return -(self.Z.T @ expit(-(self.Z @ w))) + self.penalty_weight()

    def objective(self, solution):
        w = solution["w"]
        return self.loss(w) + self.penalty_weight() * float(w.sum())

    def project(self, v):
        """Euclidean projection onto C = {w ≥ 0} (7) or {w ≥ 0, Σw ≤ β} (8)."""
        p = np.maximum(v, 0.0)
        if self.beta is None or p.sum() <= self.beta:
            return p
        return _project_simplex(v, self.beta)

    def certificate(self, solution):
        w = solution["w"]
        g = self.gradient(w)
        out = {"residual": float(np.max(np.abs(w - self.project(w - g)), initial=0.0)),
               "complementarity": float(np.max(np.abs(w * g), initial=0.0)),
               "primal_infeasibility": float(max(-w.min(initial=0.0), 0.0))}
        if self.beta is not None:
            out["primal_infeasibility"] = max(out["primal_infeasibility"], float(w.sum() - self.beta))
        return out

    def certificate_scale(self, solution):
        return max(1.0, float(np.max(solution["w"], initial=0.0)))


def _project_simplex(v, radius):
    """Projection onto {x ≥ 0, Σx = radius} (sort-based, Held et al.)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - radius
    k = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)
