"""Local statistics of LFS: the weights of eq. (10) and the cost vectors a, b of eq. (5)."""
from __future__ import annotations

import numpy as np


def pairwise_distances_in(X, features):
    """N×N Euclidean distances in the coordinates ``features`` (all zero for an empty set)."""
    Z = X[:, features]
    sq = np.einsum("ij,ij->i", Z, Z)
    return np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T), 0.0))


def neighbour_weights(X, y, sets, sigma=1.0):
    """w_j⁽ⁱ⁾ of eq. (10), scaled by a width σ: (1/N) Σ_k exp(−(d_ij|k − d_ij|k^min)/σ).

    ``sets`` is the N×M boolean matrix of the previous iteration's f*⁽ᵏ⁾; d^min is taken over the
    same-class (v ≠ i) or the other-class samples according to the class of j.  All sets empty
    (the first iteration) gives uniform weights 1.
    """
    N = X.shape[0]
    same = y[:, None] == y[None, :]
    same_not_self = same & ~np.eye(N, dtype=bool)
    W = np.zeros((N, N))
    for k in range(N):
        D = pairwise_distances_in(X, np.flatnonzero(sets[k]))
        d_same = np.where(same_not_self, D, np.inf).min(axis=1, keepdims=True)
        d_other = np.where(~same, D, np.inf).min(axis=1, keepdims=True)
        W += np.exp(-(D - np.where(same, d_same, d_other)) / sigma)
    return W / N


def local_costs(X, y, W):
    """a⁽ⁱ⁾ = Σ_{j same, j≠i} w_j⁽ⁱ⁾ Δ_j⁽ⁱ⁾ and b⁽ⁱ⁾ = Σ_{j other} w_j⁽ⁱ⁾ Δ_j⁽ⁱ⁾ (eqs 4–5), N×M each."""
    A, B = np.empty_like(X), np.empty_like(X)
    for i in range(X.shape[0]):
        delta = (X - X[i]) ** 2  # Δ_j⁽ⁱ⁾, row j (row i is zero)
        same = y == y[i]
        A[i] = W[i, same] @ delta[same]
        B[i] = W[i, ~same] @ delta[~same]
    return A, B
