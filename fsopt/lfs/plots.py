"""Figures for LFS: share of points selecting each feature (Figs 5, 9) and the histogram of
relaxed-vs-binary ℓ1 distances normalized by M (Fig. 10)."""
from __future__ import annotations

import numpy as np

from ..core.figures import feature_xlim, legend_beside, name_features
from ..core.validation import feature_names


def plot_lfs(estimator, names=None):
    """Two panels from a fitted :class:`fsopt.lfs.LFS`, its features named by ``names``, else its
    ``feature_names_in_``, else x0, x1, …; returns the Figure."""
    import matplotlib.pyplot as plt

    fig, (ax_f, ax_d) = plt.subplots(1, 2, figsize=(12, 4))
    share = 100 * estimator.fstar_.mean(axis=0)
    ax_f.vlines(np.arange(share.size), 0, share, lw=0.8, color="0.3")
    name_features(ax_f, feature_names(estimator, names), share, np.argsort(-share)[: np.count_nonzero(share)])
    if ax_f.get_legend_handles_labels()[0]:
        legend_beside(ax_f)
    ax_f.set(xlabel="feature", ylabel="% of representative points", title="selected features",
             xlim=feature_xlim(share.size))
    dist = np.abs(estimator.f_relaxed_ - estimator.fstar_).sum(axis=1) / estimator.fstar_.shape[1]
    ax_d.hist(dist, bins=20, weights=np.full(dist.size, 1.0 / dist.size), color="C0")
    ax_d.set(xlabel=r"$\|f_\beta - f^*\|_1 / M$", ylabel="fraction of points",
             title="relaxed vs binary (Fig. 10)")
    fig.tight_layout()
    return fig
