"""The three-feature toy of NMMKL (Xu et al. 2009, Fig. 1, Table 1).

Z is the single most informative feature, {X, Y} the most informative pair: X and Y carry the class
signal plus a large shared noise c that cancels in X + Y, so each of X, Y alone is weak, the pair is
almost separable, and pairing Z with X or Y cannot cancel c.  Columns are (X, Y, Z); labels ±1.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import check_count, check_memory, check_real
from ..core.validation import check_random_state_seed


def make_nmmkl_toy(n_samples=500, shift=1.0, shared_noise=3.0, own_noise=0.3, z_shift=1.5,
                   random_state=None):
    """X = shift·y + c + ε₁, Y = shift·y − c + ε₂, Z = z_shift·y + ε₃ with c ~ N(0, shared_noise²),
    ε₁, ε₂ ~ N(0, own_noise²), ε₃ ~ N(0, 1), balanced classes y = ±1 in random order."""
    n_samples, _ = nmmkl_toy_shape(n_samples)
    shift, shared_noise, own_noise, z_shift = (check_real(v, name) for v, name in (
        (shift, "shift"), (shared_noise, "shared_noise"), (own_noise, "own_noise"), (z_shift, "z_shift")))
    rng = check_random_state_seed(random_state)
    y = rng.permutation(np.resize([1, -1], n_samples))
    c = shared_noise * rng.standard_normal(n_samples)
    X = np.column_stack([shift * y + c + own_noise * rng.standard_normal(n_samples),
                         shift * y - c + own_noise * rng.standard_normal(n_samples),
                         z_shift * y + rng.standard_normal(n_samples)])
    return X, y


def nmmkl_toy_shape(n_samples):
    """``(rows, columns)`` of :func:`make_nmmkl_toy`'s X, ``n_samples`` checked (an integer
    >= 4, the memory X needs) before anything is drawn."""
    rows = check_count(n_samples, "n_samples", minimum=4)
    check_memory(rows, 3, f"make_nmmkl_toy(n_samples={n_samples})")
    return rows, 3


make_nmmkl_toy.data_shape = nmmkl_toy_shape  # read by problem files' size checks
