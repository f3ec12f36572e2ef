"""ReliefF feature weights (Kononenko 1994; Robnik-Šikonja & Kononenko 2003, Fig. 3), vectorized.

For every sample R: its k nearest hits H_j and, for every other class C, its k nearest misses
M_j(C), with the Manhattan distance on features rescaled to [0, 1] by their training range.  Then

    W_a = (1/N) Σ_R [ −Σ_j diff(a, R, H_j) / k + Σ_{C≠y_R} P(C)/(1 − P(y_R)) Σ_j diff(a, R, M_j(C)) / k ]

with diff(a, R, S) = |R_a − S_a| / (max_a − min_a).  All N samples are used (m = N); neighbour
ties are broken by the lower index; a class with fewer than k other members uses all of them.
``skrebate.ReliefF`` computes the same weights (tested where it is installed) but loops in Python:
5.5 CPU s on Colon (62 × 2000) against 0.05 here (benchmarks/relieff_speed.py).
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data


class ReliefF(BaseEstimator):
    """ReliefF weights ``feature_importances_`` (larger = more relevant); ``n_neighbors`` = k."""

    def __init__(self, n_neighbors=10):
        self.n_neighbors = n_neighbors

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        if self.n_neighbors < 1:
            raise ValueError(f"n_neighbors must be >= 1; got {self.n_neighbors}")
        span = X.max(axis=0) - X.min(axis=0)
        Z = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
        dist = cdist(Z, Z, metric="cityblock")
        np.fill_diagonal(dist, np.inf)
        classes, y_idx = np.unique(y, return_inverse=True)
        prior = np.bincount(y_idx) / y.size
        weights = np.zeros(X.shape[1])
        for i in range(X.shape[0]):
            for c in range(classes.size):
                members = np.flatnonzero((y_idx == c) & (np.arange(y.size) != i))
                if members.size == 0:
                    continue
                near = members[np.argsort(dist[i, members], kind="stable")[: self.n_neighbors]]
                diff = np.abs(Z[near] - Z[i]).mean(axis=0)
                if c == y_idx[i]:
                    weights -= diff
                else:
                    weights += prior[c] / (1.0 - prior[y_idx[i]]) * diff
        self.feature_importances_ = weights / X.shape[0]
        return self
