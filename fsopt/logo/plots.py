"""Figures for LOGO: weights (Fig. 3 style) and θ_t per outer iteration (Fig. 5b style)."""
from __future__ import annotations

import numpy as np


def plot_logo(estimator, relevant=None):
    """Two panels: normalized feature weights, and θ_t on a log scale.  Returns the Figure."""
    import matplotlib.pyplot as plt

    fig, (ax_w, ax_t) = plt.subplots(1, 2, figsize=(11, 3.8))
    scores = estimator.scores_
    idx = np.arange(scores.size)
    ax_w.vlines(idx, 0, scores, lw=0.8, color="0.4")
    if relevant is not None:
        ax_w.plot(idx[relevant], scores[relevant], "o", color="C3", label="relevant")
    ax_w.axhline(estimator.threshold, color="C0", ls=":", lw=1,
                 label=f"selection threshold ({estimator.threshold:g} of max)")
    ax_w.legend(loc="upper right", fontsize=8)
    ax_w.set(xlabel="feature", ylabel="weight / max weight", title="LOGO feature weights",
             xlim=(-0.5, scores.size - 0.5), ylim=(0, 1.05))
    changes = [h.change for h in estimator.history_]
    ax_t.semilogy(np.arange(1, len(changes) + 1), changes, "o-", label=r"$\theta_t$")
    ax_t.axhline(estimator.theta, color="C3", ls=":", lw=1,
                 label=f"stopping threshold θ = {estimator.theta:g}")
    ax_t.legend(loc="upper right", fontsize=8)
    ax_t.set(xlabel="outer iteration t", ylabel=r"$\theta_t=\|w^{(t)}-w^{(t-1)}\|_2\,/\,\|w^{(t)}\|_2$",
             title="convergence")
    fig.tight_layout()
    return fig
