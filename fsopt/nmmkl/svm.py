"""ω(p) of eq. (3) solved independently of cvxpy, by LIBSVM (scikit-learn's SVC).

(3) ω(p) = max_α 2αᵀe − (α∘y)ᵀ(K(p) + τI)(α∘y)  s.t. αᵀy = 0, 0 ≤ α ≤ C
is twice the standard SVC dual  max eᵀα − ½(α∘y)ᵀK'(α∘y)  with the precomputed kernel
K' = K(p) + τI = X_S X_Sᵀ + τI (S = the selected features), so LIBSVM gives α and ω(p).
Used for Corollary 3 (m = d) and for the exhaustive search of (4) behind Theorem 6.
X is taken in units of its typical spread (:func:`fsopt.core.scaling.rescale`), as NMMKL does, so τ
and C mean the same here and there.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from ..core.scaling import rescale


def svm_dual(X, y, C=1.0, tau=1.0, features=None, tol=1e-10):
    """(ω(p), α) of (3) for p = indicator of ``features`` (all features when None)."""
    from sklearn.svm import SVC

    X = rescale(np.asarray(X, dtype=float))[0]  # NMMKL's units (fsopt.core.scaling)
    Xs = X if features is None else X[:, np.asarray(features)]
    K = Xs @ Xs.T + tau * np.eye(X.shape[0])
    svc = SVC(C=C, kernel="precomputed", tol=tol, max_iter=-1).fit(K, y)
    alpha = np.zeros(X.shape[0])
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    ay = alpha * np.where(y == svc.classes_[1], 1.0, -1.0)
    return float(2 * alpha.sum() - ay @ K @ ay), alpha


def exhaustive_search(X, y, m, C=1.0, tau=1.0):
    """min over all C(d, m) subsets of ω (problem (4)): returns (ω(p̃*), best subset, all values)."""
    values = {S: svm_dual(X, y, C, tau, S)[0] for S in combinations(range(X.shape[1]), m)}
    best = min(values, key=values.get)
    return values[best], best, values
