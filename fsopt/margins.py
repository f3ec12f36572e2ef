"""Local statistics of LOGO (Sun et al. 2010, §3): weighted Manhattan distances, kernel
probabilities of the nearest hit and miss (eqs 4–5), and expected margin vectors z̄_n (eq. 3).

Misses pool every other class, which is the multiclass margin of eq. (20); for two classes it is
the binary margin.  The O(N²J) work is chunked so no N×N×J array is ever held.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

_CHUNK_BYTES = 64 * 2**20


def weighted_manhattan(X, w):
    """D[n, i] = Σ_j w_j |x_nj − x_ij| for w ≥ 0 (one cityblock pass over X∘w)."""
    Xw = X * w
    return cdist(Xw, Xw, "cityblock")


def neighbor_probabilities(D, y, sigma):
    """(P_hit, P_miss): row-normalized k(d) = exp(−d/σ) over hits (same class, i ≠ n) and misses.

    Computed stably: each row's minimum distance within the set is subtracted before exp, so
    σ → 0 tends to 1-NN and σ = inf gives uniform probabilities.
    """
    same = y[:, None] == y[None, :]
    hit = same.copy()
    np.fill_diagonal(hit, False)
    return _row_softmax(D, hit, sigma), _row_softmax(D, ~same, sigma)


def _row_softmax(D, mask, sigma):
    if np.isinf(sigma):
        K = mask.astype(float)
    else:
        Dm = np.where(mask, D, np.inf)
        K = np.exp(-(Dm - Dm.min(axis=1, keepdims=True)) / sigma)
    return K / K.sum(axis=1, keepdims=True)


def expected_margins(X, y, w, sigma):
    """Z with rows z̄_n = Σ_miss P·|x_n − x_i| − Σ_hit P·|x_n − x_i| (eq. 3), for the columns of X.

    ``w`` weights the distances that define the probabilities; pass only the active columns.
    """
    P_hit, P_miss = neighbor_probabilities(weighted_manhattan(X, w), y, sigma)
    return signed_abs_sum(P_miss - P_hit, X)


def signed_abs_sum(A, X):
    """Z[n] = Σ_i A[n, i] |x_n − x_i|: the O(N²J) kernel, in chunks of rows."""
    N, J = X.shape
    Z = np.empty((N, J))
    rows = max(1, int(_CHUNK_BYTES // (8 * N * J)))
    for start in range(0, N, rows):
        stop = min(N, start + rows)
        diff = np.abs(X[start:stop, None, :] - X[None, :, :])
        np.einsum("ni,nij->nj", A[start:stop], diff, out=Z[start:stop], optimize=False)
    return Z
