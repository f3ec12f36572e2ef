"""Figures for LOGO: weights (Fig. 3 style) and θ_t per outer iteration (Fig. 5b style)."""
from __future__ import annotations

import numpy as np

from ..core.figures import NAMED_TICKS, best_features_panel, feature_xlim, legend_beside, name_features
from ..core.validation import feature_names


def plot_logo(estimator, relevant=None, names=None):
    """Two panels: normalized feature weights, and θ_t on a log scale.  Features are named by
    ``names``, else by the estimator's ``feature_names_in_``, else x0, x1, ….  Returns the Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    scores = estimator.scores_
    selected = np.flatnonzero(estimator.get_support())
    best = selected[np.argsort(-scores[selected])]
    names = feature_names(estimator, names)
    if scores.size <= NAMED_TICKS:  # every feature named on the axis
        fig, (ax_w, ax_t) = plt.subplots(1, 2, figsize=(12, 4))
    else:  # the selected ones get a panel of their own: on 5,000 ticks they share a pixel
        fig = plt.figure(figsize=(15, 4))
        grid = fig.add_gridspec(1, 3, width_ratios=[3.2, 1.4, 2.6])
        ax_w, ax_t = fig.add_subplot(grid[0]), fig.add_subplot(grid[2])
        best_features_panel(fig.add_subplot(grid[1]), names, scores, best, "weight / max weight")
    idx = np.arange(scores.size)
    ax_w.vlines(idx, 0, scores, lw=0.8, color="0.4")
    if relevant is not None:
        ax_w.plot(idx[relevant], scores[relevant], "o", color="C3", label="relevant")
    ax_w.axhline(estimator.threshold, color="C0", ls=":", lw=1,
                 label=f"selection threshold\n({estimator.threshold:g} of max)")
    name_features(ax_w, names, scores, best)
    legend_beside(ax_w)
    ax_w.set(xlabel="feature", ylabel="weight / max weight", title="LOGO feature weights",
             xlim=feature_xlim(scores.size), ylim=(0, 1.12))
    changes = [h.change for h in estimator.history_]
    ax_t.semilogy(np.arange(1, len(changes) + 1), changes, "o-", label=r"$\theta_t$")
    ax_t.axhline(estimator.theta, color="C3", ls=":", lw=1,
                 label=f"stopping threshold\nθ = {estimator.theta:g}")
    ax_t.xaxis.set_major_locator(MaxNLocator(integer=True))
    legend_beside(ax_t)
    ax_t.set(xlabel="outer iteration t", ylabel=r"$\theta_t=\|w^{(t)}-w^{(t-1)}\|_2\,/\,\|w^{(t)}\|_2$",
             title="convergence")
    fig.tight_layout()
    return fig
