"""The LOGO subproblem: nonnegative-garrote regression on expected margins.

(7)  min_w Σ_n log(1 + exp(−wᵀz̄_n)) + λ‖w‖₁   s.t. w ≥ 0          (``beta=None``)
(8)  min_w Σ_n log(1 + exp(−wᵀz̄_n))            s.t. ‖w‖₁ ≤ β, w ≥ 0

Declared from its parts (:mod:`fsopt.core.parts`): the smooth loss
:class:`~fsopt.core.parts.LogisticMarginLoss` on the margins and the penalty
:class:`~fsopt.core.parts.NonnegL1` (7) or :class:`~fsopt.core.parts.NonnegL1Ball` (8) — or any
other penalty given as ``penalty`` (an elastic net, a group penalty, a user's own).  The cvxpy
model (exponential cone; the penalty's data in Parameters), the NumPy certificate (the proximal
KKT residual ‖w − prox(w − ∇f(w))‖_∞, zero exactly at the optimum) and the native polish all
come from these parts.  :class:`MarginGarrote` takes any margin loss
(:class:`~fsopt.core.parts.MarginLoss`) in place of the logistic one; one that is not smooth (the
hinge) is solved through its cvxpy form with the margins m = Zw a variable of their own, whose
constraint's dual the solver returns as a claim, and certified by the duality gap
(:func:`~fsopt.core.parts.duality_gap`) recomputed in NumPy from that claim.
"""
from __future__ import annotations

import numpy as np

from ..core.parts import (LOSS_DUAL, LogisticMarginLoss, NonnegL1, NonnegL1Ball, from_parts, hardest_cone,
                          nonsmooth_reason, undeclared)
from ..core.scaling import check_finite
from ..core.subproblem import Subproblem


class MarginGarrote(Subproblem):
    """LOGO's subproblem with any margin loss: min_{w ≥ 0} Σ_n ℓ(z̄_nᵀw) + g(w).

    ``set_margins(Z, columns)``: new margins; ``columns`` are the features Z holds when it holds
    only some of them (the penalty is then restricted to those, the others at 0).  This is the
    whole contract LOGO relies on: ``set_margins``, the loss's ``margin_derivative`` (elimination
    and the working set) and ``penalty`` (as declared before the first ``set_margins``: the
    penalty over all J features).

    Parameters
    ----------
    loss : MarginLoss
        The loss on the margins (its margins are set here).
    penalty : Penalty
        Any penalty defined on all the features.
    Z : ndarray of shape (N, J) or None, default=None
        The expected margins z̄_n, one row per sample; None: set later with ``set_margins``.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import LogisticMarginLoss, MarginGarrote, NonnegL1
    >>> garrote = MarginGarrote(LogisticMarginLoss(), NonnegL1(1.0), Z=np.array([[1.0, -0.5], [0.8, 0.2]]))
    >>> garrote.solve("LBFGSB").certified
    True
    """

    name = "margin_garrote"
    certificate_tol = 1e-4  # KKT residual relative to max(1, max w); weights then agree to ~1e-4

    def __init__(self, loss, penalty, Z=None):
        super().__init__()
        self.loss = loss
        self.feature_penalty = self.penalty = penalty
        self.smooth = loss
        self.Z = None
        if Z is not None:
            self.set_margins(Z)

    @property
    def cone(self):
        """The hardest cone of the loss's and the penalty's cvxpy forms (the hinge with ℓ1: "LP")."""
        return hardest_cone(self.loss, self.feature_penalty)

    def describe(self):
        return f"{self.name} ({type(self.loss).__name__}), {self.feature_penalty.describe()}"

    @from_parts
    def _build(self):
        """The parts' model; for a loss that is not smooth, with m = Zw a variable of its own:
        min ℓ-sum(m) + g(w) s.t. Zw − m = 0, whose dual is a claimed subgradient of the loss."""
        if not nonsmooth_reason(self.smooth) or undeclared("smooth", self.smooth, ("cvxpy_margin",)):
            return super()._build()  # (a loss on w only: its dual claim is its own dual_claim)
        import cvxpy as cp

        self._require_parts("a cvxpy model")
        w = cp.Variable(self.Z.shape[1], name="w", nonneg=bool(getattr(self.penalty, "nonneg", False)))
        m = cp.Variable(self.Z.shape[0], name="margins")
        penalty, constraints = self.penalty.cvxpy_form(w)
        problem = cp.Problem(cp.Minimize(self.smooth.cvxpy_margin(m) + penalty),
                             [self.Z @ w - m == 0, *constraints])
        return problem, {"w": w, "margins": m}

    def _extract(self, problem, variables):
        """w (projected onto the penalty's set) and, from the margins' constraint, the dual claim."""
        solution = super()._extract(problem, {"w": variables["w"]})
        if "margins" in variables and problem.constraints[0].dual_value is not None:
            solution[LOSS_DUAL] = np.asarray(problem.constraints[0].dual_value, dtype=float)
        return solution

    def check_parts(self, solution, objective):
        if self._variables is not None and "margins" in self._variables:  # the model's m at m = Zw
            self._variables["margins"].value = self.Z @ solution["w"]
        super().check_parts(solution, objective)

    def set_margins(self, Z, columns=None):
        """New margin matrix (N×J): held as a constant, so the Problem is rebuilt on next solve.
        ``columns``: the features whose margins Z holds, when not all of them."""
        self.Z = np.ascontiguousarray(Z, dtype=float)
        check_finite(self.Z, "the expected margins of the garrote subproblem",
                     "X is too large for the margin computation; rescale X")
        expected = self.feature_penalty.n_features
        if columns is not None:
            self.penalty = self.feature_penalty.restrict(columns)
        elif expected is not None and expected != self.Z.shape[1]:
            raise ValueError(f"the margins hold {self.Z.shape[1]} columns but the penalty of "
                             f"{self.describe()} is defined on {expected} features; pass columns=")
        else:
            self.penalty = self.feature_penalty
        self.smooth = self.loss.with_margins(self.Z)
        self.invalidate()

    def set_margin_source(self, smooth):
        """Margins held by a smooth part over all J features instead of a matrix
        (:class:`~fsopt.logo.held_margins.HeldMargins`: some columns of z̄ in memory, the others'
        gradients on demand); the penalty is the one over all J.  Only a backend that reads the
        smooth part through its declared methods can take it (LBFGSB)."""
        self.Z = None
        self.smooth, self.penalty = smooth, self.feature_penalty
        self.invalidate()

    def gradient(self, w):
        """∇ of the objective where the penalty is differentiable on w ≥ 0 (∇f + ∇g), else ∇f."""
        grad = self.smooth.gradient(w)
        return grad + self.penalty.gradient(w) if hasattr(self.penalty, "gradient") else grad

    def certificate_scale(self, solution):
        return max(1.0, float(np.max(solution["w"], initial=0.0)))


class GarroteLogistic(MarginGarrote):
    """LOGO's subproblem (7)/(8): the logistic loss on the margins Z plus a penalty on w ≥ 0.

    ``set_margins(Z, columns)`` gives new margins: see :class:`MarginGarrote`.

    Parameters
    ----------
    lam : float, default=1.0
        λ of form (7): the penalty λ‖w‖₁ (used when neither ``beta`` nor ``penalty`` is given).
    beta : float or None, default=None
        β of form (8): the budget ‖w‖₁ ≤ β instead of the ℓ1 penalty.
    Z : ndarray of shape (N, J) or None, default=None
        The expected margins z̄_n (eqs 3–5), one row per sample; None: set later with
        ``set_margins``.
    penalty : Penalty or None, default=None
        Any other penalty, defined on all J features (e.g. ``NonnegElasticNet(1.0, 0.1)``);
        it replaces ``lam`` and ``beta``.

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

    def __init__(self, lam=1.0, beta=None, Z=None, penalty=None):
        if penalty is None:
            penalty = NonnegL1(lam) if beta is None else NonnegL1Ball(beta)
        super().__init__(LogisticMarginLoss(), penalty, Z)

    @property
    def lam(self):
        """λ of the penalty (None if it has none)."""
        return getattr(self.feature_penalty, "lam", None)

    @lam.setter
    def lam(self, value):
        self.feature_penalty.lam = float(value)

    @property
    def beta(self):
        """β of form (8), None for every other penalty."""
        return self.feature_penalty.beta if isinstance(self.feature_penalty, NonnegL1Ball) else None

    def describe(self):
        if isinstance(self.feature_penalty, NonnegL1Ball):
            return f"{self.name} (8), beta={self.beta:g}"
        form = "(7), " if type(self.feature_penalty) is NonnegL1 else ""
        return f"{self.name} {form}{self.feature_penalty.describe()}"
