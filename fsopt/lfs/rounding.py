"""Randomized rounding of a relaxed solution of (9) (§3.1.3 of the paper).

Each f_m is set to 1 with probability f_m, R times; the best sample is the one that satisfies the
constraints of (9) with the smallest aᵀf.  Entries at 0 or 1 round to themselves, so only the k
fractional entries are drawn (the same distribution for far less work).  A vertex of (9) has at most
two fractional entries (two rows besides the bounds), so ``exact`` enumerates all 2^k roundings
instead: its best candidate is the limit R → ∞ of the sampled one, and equals it whenever the
samples contain the enumerated optimum.  ``common`` is LFSpy 1.0.4's draws (its ``rr_seed`` set): the
generator is re-seeded before every rounding, so every point, β and pass compares its f with the
same M × R uniforms, ``f_m = 1`` where ``u_m ≤ f_m`` (:class:`CommonUniforms`).
"""
from __future__ import annotations

import itertools

import numpy as np

INTEGRAL_TOL = 1e-9  # |f_m − round(f_m)| below this counts as integral (solver round-off)
FEASIBILITY_RTOL = 1e-9  # relative slack for bᵀf ≥ ε of a rounded candidate


class CommonUniforms:
    """LFSpy's uniforms: ``np.random.RandomState(seed).rand(M, R)``, drawn once and shared by every
    rounding of a fit (LFSpy re-seeds before each), rows restricted to the features ``keep``."""

    def __init__(self, seed, n_features, n_rounding, keep):
        self.uniforms = np.random.RandomState(seed).rand(n_features, n_rounding)[keep]

    def draws(self, frac_index, frac_values):
        """R × k booleans ``u ≤ f`` of the fractional entries ``frac_index`` (LFSpy's ``<=``)."""
        return (self.uniforms[frac_index] <= frac_values[:, None]).T


def candidate_patterns(frac_values, n_rounding, rng, method="sample", frac_index=None):
    """Distinct 0/1 patterns of the fractional entries: sampled R times, or all 2^k (``exact``);
    ``common``: ``rng`` is a :class:`CommonUniforms` and ``frac_index`` the entries' features."""
    k = frac_values.size
    if k == 0:
        return np.zeros((1, 0), dtype=bool)
    if method == "exact" and 2 ** k <= max(n_rounding, 4):
        return np.array(list(itertools.product([False, True], repeat=k)), dtype=bool)
    if method == "common":
        draws = rng.draws(frac_index, frac_values)
    else:
        draws = rng.random((n_rounding, k)) < frac_values
    if k > 62:
        return np.unique(draws, axis=0)
    place = np.left_shift(1, np.arange(k - 1, -1, -1, dtype=np.int64))  # first entry most significant
    codes = np.unique(draws @ place)  # same rows and order as np.unique(draws, axis=0), much faster
    return (codes[:, None] & place) > 0


def round_solution(f, a, b, eps, alpha, n_rounding, rng, method="sample"):
    """Best rounding of ``f``: ``(f_binary or None, a·f_binary)``; None when no rounding is feasible.
    Ties of a·f go to the first pattern in lexicographic order (first feature most significant),
    as LFSpy's ``np.unique(..., axis=1)`` then ``argmin``."""
    f = np.clip(f, 0.0, 1.0)
    ones = f >= 1.0 - INTEGRAL_TOL
    frac = np.flatnonzero((f > INTEGRAL_TOL) & ~ones)
    patterns = candidate_patterns(f[frac], n_rounding, rng, method, frac)
    base_a, base_b, base_n = float(a[ones].sum()), float(b[ones].sum()), int(ones.sum())
    cost = base_a + patterns @ a[frac]
    gain = base_b + patterns @ b[frac]
    count = base_n + patterns.sum(axis=1)
    ok = (count >= 1) & (count <= alpha) & (gain >= eps - FEASIBILITY_RTOL * max(abs(eps), 1.0))
    if not ok.any():
        return None, np.inf
    best = np.flatnonzero(ok)[np.argmin(cost[ok])]
    out = ones.copy()
    out[frac[patterns[best]]] = True
    return out, float(cost[best])
