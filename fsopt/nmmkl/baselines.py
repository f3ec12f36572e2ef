"""Feature scores NMMKL is compared with (§3): SVM-LW and the Fisher score (monotonic rankings)."""
from __future__ import annotations

import numpy as np

from ..core.validation import check_data


def fisher_score(X, y):
    """(μ₊ − μ₋)² / (σ₊² + σ₋²) per feature (Bishop 1995); also the Colon prefilter of §3.2."""
    X, y = check_data(X, y, binary=True, min_per_class=2)
    pos = y == np.unique(y)[1]
    a, b = X[pos], X[~pos]
    return (a.mean(0) - b.mean(0)) ** 2 / np.maximum(a.var(0) + b.var(0), np.finfo(float).tiny)


def svm_lw_score(X, y, C=1.0):
    """|w_i| of a linear SVM (the "SVM-LW" baseline: top |w| features)."""
    from sklearn.svm import SVC

    X, y = check_data(X, y, binary=True)
    return np.abs(SVC(kernel="linear", C=C).fit(X, y).coef_[0])


def top_m(scores, m):
    """Boolean mask of the m largest scores (ties by lower index)."""
    order = np.lexsort((np.arange(scores.size), -np.asarray(scores)))
    mask = np.zeros(scores.size, dtype=bool)
    mask[order[:m]] = True
    return mask
