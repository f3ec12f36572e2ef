"""Local statistics of LFS: the weights of eq. (10) and the cost vectors a, b of eq. (5)."""
from __future__ import annotations

import numpy as np


def pairwise_distances_in(X, features):
    """N×N Euclidean distances in the coordinates ``features`` (all zero for an empty set)."""
    Z = X[:, features]
    sq = np.einsum("ij,ij->i", Z, Z)
    return np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T), 0.0))


WEIGHT_POWERS = {"exponential": 1, "gaussian": 2}  # exp(−gap/σ): eq. (10); exp(−gap²/σ): LFSpy


def neighbour_weights(X, y, sets, sigma=1.0, kernel="exponential"):
    """w_j⁽ⁱ⁾ of eq. (10), scaled by a width σ: (1/N) Σ_k exp(−(d_ij|k − d_ij|k^min)/σ).

    ``sets`` is the N×M boolean matrix of the previous iteration's f*⁽ᵏ⁾; d^min is taken over the
    same-class (v ≠ i) or the other-class samples according to the class of j.  All sets empty
    (the first iteration) gives uniform weights 1.  ``kernel="gaussian"`` squares the gap,
    exp(−(d − d^min)²/σ), as LFSpy 1.0.4 does where eq. (10) has the gap itself.
    """
    power = WEIGHT_POWERS[kernel]
    N = X.shape[0]
    same = y[:, None] == y[None, :]
    same_not_self = same & ~np.eye(N, dtype=bool)
    W = np.zeros((N, N))
    for k in range(N):
        D = pairwise_distances_in(X, np.flatnonzero(sets[k]))
        d_same = np.where(same_not_self, D, np.inf).min(axis=1, keepdims=True)
        d_other = np.where(~same, D, np.inf).min(axis=1, keepdims=True)
        # D − d^min ≥ 0 except on the diagonal (j = i, unused by (5)), where exp(d^min/σ) could overflow
        W += np.exp(-np.maximum(D - np.where(same, d_same, d_other), 0.0) ** power / sigma)
    return W / N


def local_costs(X, y, W):
    """a⁽ⁱ⁾ = Σ_{j same, j≠i} w_j⁽ⁱ⁾ Δ_j⁽ⁱ⁾ and b⁽ⁱ⁾ = Σ_{j other} w_j⁽ⁱ⁾ Δ_j⁽ⁱ⁾ (eqs 4–5), N×M each.

    Σ_j w_j (x_i − x_j)² = (Σ_j w_j) x_i² − 2 x_i (Σ_j w_j x_j) + Σ_j w_j x_j²: three matrix
    products instead of N passes over N×M; round-off below zero is clipped (a, b ≥ 0).
    """
    same = y[:, None] == y[None, :]
    X2 = X * X

    def weighted(Wm):
        return np.maximum(Wm.sum(axis=1)[:, None] * X2 - 2.0 * X * (Wm @ X) + Wm @ X2, 0.0)

    return weighted(np.where(same, W, 0.0) * (1.0 - np.eye(len(y)))), weighted(np.where(same, 0.0, W))
