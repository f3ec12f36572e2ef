"""NMMKL's figure: τ_i by rank with the A/B/C partition (eqs 10–12), and the relaxed p."""
from __future__ import annotations

import numpy as np

from ..core.figures import legend_beside
from ..core.validation import feature_names


def plot_nmmkl(estimator, top=40, names=None):
    """Left: the largest τ_i coloured by partition, selected features ringed, each named (``names``,
    else the estimator's ``feature_names_in_``, else x0, x1, …). Right: the LP's p against the cone
    multipliers of (8).  Returns the Figure."""
    import matplotlib.pyplot as plt

    order = np.argsort(-estimator.scores_)[:top]
    colours = {"A": "C2", "B": "C1", "C": "0.6"}
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(12, 4))
    ranks = np.arange(order.size)
    for part, colour in colours.items():
        sel = estimator.partition_[order] == part
        if sel.any():
            ax_t.bar(ranks[sel], estimator.scores_[order][sel], color=colour, label=part)
    chosen = estimator.support_[order]
    ax_t.plot(ranks[chosen], estimator.scores_[order][chosen], "o", mfc="none", mec="k",
              label=f"selected (m={estimator.n_features})")
    ax_t.set_xticks(ranks, feature_names(estimator, names)[order], rotation=90, fontsize=7)
    ax_t.set(ylabel=r"$\tau_i=(x_i^T(\alpha\circ y))^2$", title="features by score and partition")
    legend_beside(ax_t)
    ax_p.plot(estimator.p_cone_, estimator.p_, "o", ms=4)
    ax_p.plot([0, 1], [0, 1], ":", color="0.5")
    ax_p.set(xlabel="p from the cone multipliers of (8)", ylabel="p from the LP recovery (15)",
             title="relaxed primal p, two ways")
    fig.tight_layout()
    return fig
