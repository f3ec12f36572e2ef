"""A new penalty for LOGO's garrote: the adaptive ℓ1, weighted by I-RELIEF's feature weights.

    g(w) = λ Σ_j c_j w_j  on  w ≥ 0,    c_j = 1 / (r_j / max r + γ)                    (A)

r the I-RELIEF weights: a feature I-RELIEF finds relevant is penalized less (Zou's adaptive lasso
with a RELIEF-based first stage).  The penalty states its parts (``fsopt.Penalty``): value,
gradient on its box, prox, zero_slack, restrict and its cvxpy form, so it gets a certificate, a
polish, LBFGSB, PROXGRAD, GRADIENT and LOGO's elimination without a line of fsopt changing.
"""
from __future__ import annotations

import numpy as np

from fsopt import GarroteLogistic, Penalty


class AdaptiveL1(Penalty):
    """(A) with given weights ``c`` (one per feature, positive)."""

    box = (0.0, np.inf)

    def __init__(self, lam, c):
        self.lam = float(lam)
        self.c = np.asarray(c, dtype=float)
        if self.c.ndim != 1 or not np.all(np.isfinite(self.c)) or np.any(self.c <= 0):
            raise ValueError("the adaptive weights c must be a 1-D array of positive finite numbers")
        self.n_features = self.c.size

    def describe(self):
        return f"adaptive l1, lam={self.lam:g}"

    def value(self, w):
        return self.lam * float(self.c @ np.abs(w))

    def gradient(self, w):
        return self.lam * self.c

    def prox(self, v, step):
        return np.maximum(v - step * self.lam * self.c, 0.0)

    def zero_slack(self, w, grad):
        return grad + self.lam * self.c

    def restrict(self, columns):
        return AdaptiveL1(self.lam, self.c[columns])

    @property
    def lam_c(self):
        """λc, one cvxpy Parameter (a product of two Parameters would not be DPP)."""
        return self.lam * self.c

    def cvxpy_form(self, w):
        return self.parameter("lam_c", nonneg=True) @ w, []


def adaptive_weights(relief_weights, gamma=0.1):
    """c_j = 1 / (r_j / max r + γ) of (A)."""
    r = np.maximum(np.asarray(relief_weights, dtype=float), 0.0)
    return 1.0 / (r / max(float(r.max()), 1e-300) + gamma)


def adaptive_garrote(X, y, lam=1.0, sigma=2.0, gamma=0.1):
    """LOGO's garrote with penalty (A), its weights from I-RELIEF on (X, y): a subproblem factory
    (``fsopt.subproblems`` entry point) that ``fsopt run logo`` builds for a problem naming it."""
    from .estimator import IRelief

    relief = IRelief(sigma=sigma).fit(X, y)
    return GarroteLogistic(penalty=AdaptiveL1(lam, adaptive_weights(relief.weights_, gamma)))
