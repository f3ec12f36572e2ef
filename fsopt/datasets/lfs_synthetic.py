"""The synthetic set of LFS (Armanfard et al. 2016, §4.2, Fig. 3).

Class Y1 has two clusters, "+" centred at (s, 0) and "◇" at (0, s); class Y2 one cluster "o" at
(0, 0); unit-variance normal coordinates x1, x2.  Telling "+" from Y2 needs only x1, "◇" only x2,
and "o" both: the expected local sets.  Irrelevant N(0, 1) features follow the two relevant ones.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import check_count, check_memory, check_real
from ..core.validation import check_random_state_seed

CLUSTERS = ("+", "◇", "o")
EXPECTED = np.array([[True, False], [False, True], [True, True]])  # relevant set per cluster


def make_lfs_synthetic(n_plus=25, n_diamond=25, n_circle=50, n_irrelevant=0, separation=4.0,
                       random_state=None, return_clusters=False):
    """``(X, y)`` with y ∈ {1, 2} (Y1, Y2); with ``return_clusters`` also the cluster index
    (0 "+", 1 "◇", 2 "o") for :func:`expected_sets`.  Columns 0, 1 are x1, x2."""
    _, cols = lfs_synthetic_shape(n_plus, n_diamond, n_circle, n_irrelevant)
    sizes = np.array([n_plus, n_diamond, n_circle])
    separation = check_real(separation, "separation")
    rng = check_random_state_seed(random_state)
    cluster = np.repeat(np.arange(3), sizes)
    centres = np.array([[separation, 0.0], [0.0, separation], [0.0, 0.0]])
    X = np.hstack([centres[cluster] + rng.standard_normal((cluster.size, 2)),
                   rng.standard_normal((cluster.size, cols - 2))])
    y = np.where(cluster == 2, 2, 1)
    return (X, y, cluster) if return_clusters else (X, y)


def lfs_synthetic_shape(n_plus, n_diamond, n_circle, n_irrelevant):
    """``(rows, columns)`` of :func:`make_lfs_synthetic`'s X, the sizes checked (integers, at
    least one sample per cluster, the memory X needs) before anything is drawn."""
    rows = sum(check_count(n, name, minimum=1) for n, name in
               ((n_plus, "n_plus"), (n_diamond, "n_diamond"), (n_circle, "n_circle")))
    cols = 2 + check_count(n_irrelevant, "n_irrelevant")
    check_memory(rows, cols, f"make_lfs_synthetic(n_plus={n_plus}, n_diamond={n_diamond}, "
                             f"n_circle={n_circle}, n_irrelevant={n_irrelevant})")
    return rows, cols


make_lfs_synthetic.data_shape = lfs_synthetic_shape  # read by problem files' size checks


def expected_sets(cluster):
    """(n, 2) boolean: the relevant features each sample's set should contain exactly."""
    return EXPECTED[np.asarray(cluster)]
