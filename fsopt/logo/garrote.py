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
(:class:`~fsopt.core.parts.MarginLoss`) in place of the logistic one.
"""
from __future__ import annotations

import numpy as np

from ..core.parts import LogisticMarginLoss, NonnegL1, NonnegL1Ball
from ..core.scaling import check_finite
from ..core.solvers import EXP
from ..core.subproblem import Subproblem


class MarginGarrote(Subproblem):
    """LOGO's subproblem with any margin loss: min_{w ≥ 0} Σ_n ℓ(z̄_nᵀw) + g(w).

    ``loss``: a :class:`~fsopt.core.parts.MarginLoss` (its margins are set here); ``penalty``: any
    penalty defined on all the features.  ``set_margins(Z, columns)``: new margins; ``columns`` are
    the features Z holds when it holds only some of them (the penalty is then restricted to those,
    the others at 0).  This is the whole contract LOGO relies on: ``set_margins``, the loss's
    ``margin_derivative`` (elimination and the working set) and ``penalty`` (as declared before the
    first ``set_margins``: the penalty over all J features).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import LogisticMarginLoss, MarginGarrote, NonnegL1
    >>> garrote = MarginGarrote(LogisticMarginLoss(), NonnegL1(1.0), Z=np.array([[1.0, -0.5], [0.8, 0.2]]))
    >>> garrote.solve("LBFGSB").certified
    True
    """

    name = "margin_garrote"
    cone = EXP
    certificate_tol = 1e-4  # KKT residual relative to max(1, max w); weights then agree to ~1e-4

    def __init__(self, loss, penalty, Z=None):
        super().__init__()
        self.loss = loss
        self.feature_penalty = self.penalty = penalty
        self.smooth = loss
        self.Z = None
        if Z is not None:
            self.set_margins(Z)

    def describe(self):
        return f"{self.name} ({type(self.loss).__name__}), {self.feature_penalty.describe()}"

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

    def gradient(self, w):
        """∇ of the objective where the penalty is differentiable on w ≥ 0 (∇f + ∇g), else ∇f."""
        grad = self.smooth.gradient(w)
        return grad + self.penalty.gradient(w) if hasattr(self.penalty, "gradient") else grad

    def certificate_scale(self, solution):
        return max(1.0, float(np.max(solution["w"], initial=0.0)))


class GarroteLogistic(MarginGarrote):
    """LOGO's subproblem (7)/(8): the logistic loss on the margins Z plus a penalty on w ≥ 0.

    ``lam`` gives (7), ``beta`` gives (8), ``penalty`` (defined on all the features) any other
    form; see :class:`MarginGarrote` for ``set_margins``.

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
