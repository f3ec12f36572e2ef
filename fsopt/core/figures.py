"""Writing a method's figure: the library returns matplotlib Figures, only the command line writes
files; and the conventions the methods' figures share (feature names, legends beside the data)."""
from __future__ import annotations

import numpy as np

NAMED_TICKS = 30  # up to this many features, each gets its name on the axis
NAMED_BEST = 5  # beyond it, the best few are marked and named in the legend
PANEL_BEST = 10  # and the best this many get a panel of their own (a per-feature axis cannot show them)


def save_figure(fig, path) -> None:
    """Write ``fig`` to ``path`` and release it."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120)
    plt.close(fig)


def legend_beside(ax, **kwargs):
    """The axes' legend to the right of the axes, where it covers no data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False, **kwargs)


def name_features(ax, names, heights, best):
    """Name the features of a per-feature axis (feature j at x = j, bar height ``heights[j]``):
    every name as a tick label when there are at most ``NAMED_TICKS`` features, else integer index
    ticks and the first ``NAMED_BEST`` of ``best`` marked above their bars and named in the legend."""
    from matplotlib.ticker import MaxNLocator

    names = np.asarray(names)
    if names.size <= NAMED_TICKS:
        ax.set_xticks(np.arange(names.size), names, rotation=90, fontsize=7)
        return
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    best = np.asarray(best, dtype=int)
    shown = best[:NAMED_BEST]
    if shown.size:
        more = f" (+{best.size - shown.size} more)" if best.size > shown.size else ""
        heights = np.asarray(heights, dtype=float)  # the markers point down at their bars' tops
        ax.plot(shown, heights[shown] + 0.04 * heights.max(), "v", color="C1", ms=5,
                label="best:\n" + "\n".join(names[shown]) + more)


def feature_xlim(n_features):
    """x limits of a per-feature axis (feature j at x = j) with a margin of 2% of the features on
    each side (at least half a feature), so that the first and last bars stand clear of the frame."""
    margin = max(0.5, 0.02 * n_features)
    return -margin, n_features - 1 + margin


def best_features_panel(ax, names, heights, best, label):
    """The first ``PANEL_BEST`` of ``best`` as named horizontal bars of ``heights``, the best on top:
    the selected features whatever the number of features."""
    names, heights = np.asarray(names), np.asarray(heights, dtype=float)
    shown = np.asarray(best, dtype=int)[:PANEL_BEST]
    ax.barh(np.arange(shown.size), heights[shown], color="C1", height=0.6)
    ax.set_yticks(np.arange(shown.size), names[shown], fontsize=8)
    ax.set_ylim(max(shown.size, 3) - 0.5, -0.5)  # the best on top; a few bars keep their width
    more = np.asarray(best).size - shown.size
    ax.set(xlim=(0, 1.05 * max(heights.max(initial=0.0), 1e-300)), xlabel=label,
           title="selected" + (f" (best {shown.size}; +{more} more)" if more else ""))
