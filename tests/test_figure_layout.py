"""Figures whose legends and ticks cover nothing: every legend sits beside its axes (not over the
data), iteration axes tick whole numbers, and each log axis of the study figures shows at least
two labelled ticks, none of them crowding (the sizes of the study on the size axis)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from fsopt import LFS, LOGO, NMMKL
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs.plots import plot_lfs
from fsopt.logo.plots import plot_logo
from fsopt.nmmkl.plots import plot_nmmkl
from fsopt.tools import bench_report


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _assert_legends_beside(fig):
    fig.canvas.draw()
    legends = [ax for ax in fig.axes if ax.get_legend() is not None]
    assert legends, "a figure of this test draws a legend"
    for ax in legends:
        assert not _overlap(ax.get_legend().get_window_extent(), ax.get_window_extent()), ax.get_title()


def _labelled_ticks(ax, which):
    axis = ax.xaxis if which == "x" else ax.yaxis
    low, high = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    locs = [v for v in axis.get_majorticklocs() if low <= v <= high]
    texts = axis.get_major_formatter().format_ticks(locs)
    return [v for v, text in zip(locs, texts) if text]


@pytest.fixture(scope="module")
def spiral():
    return make_spiral(n_per_class=30, n_irrelevant=4, random_state=0)


@pytest.mark.parametrize("method", ["logo", "nmmkl", "lfs"])
def test_method_figures_keep_legends_beside_the_data(method, spiral):
    X, y = spiral
    fig = {"logo": lambda: plot_logo(LOGO().fit(X, y), relevant=[0, 1]),
           "nmmkl": lambda: plot_nmmkl(NMMKL(n_features=2).fit(X, y)),
           # more than 30 features: the best are named in a legend
           "lfs": lambda: plot_lfs(LFS(alpha=2, tau=1, n_beta=3, n_rounding=20, random_state=0)
                                   .fit(np.hstack([X, np.random.default_rng(0).standard_normal((60, 30))]), y))}[method]()
    _assert_legends_beside(fig)
    plt.close(fig)


def test_logo_iteration_axis_ticks_whole_numbers(spiral):
    fig = plot_logo(LOGO().fit(*spiral))
    fig.axes[1].set_xlim(0.8, 2.2)  # two iterations: a default locator ticks 1.2, 1.4, …
    fig.canvas.draw()
    ticks = _labelled_ticks(fig.axes[1], "x")
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    plt.close(fig)


def _study():
    """A study's rows: two problems; one with sizes 50 and 500 and times inside one decade."""
    rows = []
    for problem, kind, sizes, scale in (("p", "lp", [50, 500], 0.012), ("q", "qp", [20], 0.03)):
        for size in sizes:
            for i, solver in enumerate(["A", "B", "C"]):
                for budget, tol in (("default", None), ("tol", 1e-2), ("tol", 1e-6)):
                    rows.append(dict(problem=problem, kind=kind, size=size, solver=solver, repetition=0,
                                     budget=budget, tol=tol, max_iter=None, status="optimal", solved=True,
                                     certified=True, time=scale * (1 + i) * (1 + size / 1000),
                                     error_to_reference=1e-8 if tol is None else tol))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("plot", ["plot_profiles", "plot_curves", "plot_sizes"])
def test_study_figures_legends_beside_and_log_axes_labelled(plot):
    fig = getattr(bench_report, plot)(_study())
    _assert_legends_beside(fig)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for which in ("y",) if plot == "plot_sizes" else ("x", "y"):  # sizes: the next test
            if (ax.get_xscale() if which == "x" else ax.get_yscale()) == "log":
                assert len(_labelled_ticks(ax, which)) >= 2, (plot, ax.get_title(), which)
    plt.close(fig)


def test_size_axis_ticks_are_the_study_sizes():
    fig = bench_report.plot_sizes(_study())
    fig.canvas.draw()
    ax = next(ax for ax in fig.axes if ax.get_title() == "p: lp")
    assert _labelled_ticks(ax, "x") == [50, 500] and len(ax.xaxis.get_minorticklocs()) == 0
    plt.close(fig)
