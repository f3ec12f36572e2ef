"""The local classifier of §3.2: hyperspheres by impurity level γ, the leave-one-out criterion
that picks β, the class similarity (11) and the fallback vote."""
from __future__ import annotations

import numpy as np

from ..core.scaling import check_finite


def sphere_radius(dist, same, gamma, n_same, n_other, rule="fit"):
    """Largest radius around a representative point whose impurity stays ≤ γ.

    ``dist``: distances from the representative to every training sample (itself included, at 0);
    ``same``: which samples share its class.  Impurity at radius r = (other-class count / n_other)
    / (same-class count excluding itself / (n_same − 1)).  Growing r over the sorted distances,
    the first distance where the impurity exceeds γ stops the growth; the radius is the midpoint
    to the previous distance (as in the authors' code).  If it never does, every sample is inside.
    ``rule="lfspy"``: LFSpy 1.0.4's predict-time radius, which keeps the authors' 1-based test
    ``k − 1 == 0`` under 0-based indexing: stopped at the second distance level it is that level
    itself (its samples inside), at the first, half the largest distance.
    """
    levels, inverse = np.unique(dist, return_inverse=True)
    n_s = np.cumsum(np.bincount(inverse, weights=same.astype(float), minlength=levels.size)) - 1.0
    n_o = np.cumsum(np.bincount(inverse, weights=(~same).astype(float), minlength=levels.size))
    over = np.flatnonzero(gamma * n_s / (n_same - 1) < n_o / n_other)
    if over.size == 0:
        return float(levels[-1])
    k = over[0]
    if rule == "lfspy" and k <= 1:
        return float(levels[1] if k == 1 else 0.5 * (levels[-1] + levels[0]))
    return float(levels[0] if k == 0 else 0.5 * (levels[k - 1] + levels[k]))


def sphere_radii(X, y_enc, sets, gamma, class_counts, rule="fit"):
    """:func:`sphere_radius` of every representative point i in its coordinates ``sets[i]``."""
    same_size = class_counts[y_enc]
    radius = np.empty(len(sets))
    for i, s in enumerate(sets):
        Xs = X[:, s]
        dist = np.sqrt(((Xs - Xs[i]) ** 2).sum(axis=1))
        radius[i] = sphere_radius(dist, y_enc == y_enc[i], gamma, same_size[i],
                                  y_enc.size - same_size[i], rule)
    return radius


def nearest_label(D, y_enc, n_classes):
    """Plurality label of the nearest neighbours (all ties) per row of ``D``; −1 on a tie of labels."""
    tied = D <= D.min(axis=1, keepdims=True)
    counts = tied.astype(float) @ np.eye(n_classes)[y_enc]
    top = counts.max(axis=1, keepdims=True)
    label = counts.argmax(axis=1)
    label[(counts == top).sum(axis=1) > 1] = -1
    return label, counts / counts.sum(axis=1, keepdims=True)


def local_performance(Xs, y_enc, i, gamma, class_counts):
    """(score, radius) of the candidate coordinates ``Xs`` = X[:, f*] for representative i.

    score = DR/N_same − FAR/N_other over the training samples inside the sphere: DR counts the
    same-class ones that leave-one-out 1-NN (in these coordinates) classifies correctly, FAR the
    other-class ones it assigns to y⁽ⁱ⁾.  N_same, N_other are the class sizes.
    """
    n_classes = class_counts.size
    same = y_enc == y_enc[i]
    n_same = class_counts[y_enc[i]]
    n_other = y_enc.size - n_same
    dist = np.sqrt(((Xs - Xs[i]) ** 2).sum(axis=1))
    radius = sphere_radius(dist, same, gamma, n_same, n_other)
    inside = np.flatnonzero(dist <= radius)
    D = np.sqrt(((Xs[inside, None, :] - Xs[None, :, :]) ** 2).sum(axis=2))
    D[np.arange(inside.size), inside] = np.inf  # leave one out
    label, _ = nearest_label(D, y_enc, n_classes)
    hit = label == y_enc[i]
    dr = np.sum(hit & same[inside])
    far = np.sum(hit & ~same[inside])
    return dr / n_same - far / n_other, radius


def class_similarity(Xq, X, y_enc, sets, radius, class_counts, fallback_vote="all"):
    """Similarities S_ℓ(x_q) of eq. (11) and the fallback votes, both (n_queries × n_classes).

    s_i(x_q) = 1 if x_q lies in sphere i (in the coordinates f*⁽ⁱ⁾) and its nearest training sample
    there has label y⁽ⁱ⁾.  The fallback (§3.2): each of the N coordinate systems votes for the label
    of x_q's nearest neighbour in it (tied neighbours share the vote); votes are divided by the
    class sizes.  ``fallback_vote="own_class"`` (LFSpy 1.0.4): system i votes, one vote, only for
    its own class y⁽ⁱ⁾ and only when the plurality of x_q's nearest neighbours there has it.  Xq, X and ``radius`` in
    the units of fit (X divided by its typical spread); a query whose squared distances overflow
    is a ValueError naming its row.
    """
    n_classes = class_counts.size
    S = np.zeros((Xq.shape[0], n_classes))
    votes = np.zeros_like(S)
    for i, feats in enumerate(sets):
        Q, T = Xq[:, feats], X[:, feats]
        with np.errstate(over="ignore"):
            D = np.sqrt(((Q[:, None, :] - T[None, :, :]) ** 2).sum(axis=2))
        check_finite(D, "the distance (row of X, training sample) of the local classifier",
                     "that row of X is too far from the training data for float64 squared distances")
        label, share = nearest_label(D, y_enc, n_classes)
        if fallback_vote == "own_class":
            votes[:, y_enc[i]] += label == y_enc[i]
        else:
            votes += share
        inside = np.sqrt(((Q - X[i, feats]) ** 2).sum(axis=1)) <= radius[i]
        S[:, y_enc[i]] += inside & (label == y_enc[i])
    return S / class_counts, votes / class_counts


def predict_labels(S, votes):
    """argmax of S (eq. 11); the fallback vote where every similarity is zero."""
    use_vote = ~(S > 0).any(axis=1)
    return np.where(use_vote, votes.argmax(axis=1), S.argmax(axis=1))
