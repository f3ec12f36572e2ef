"""``fsopt run METHOD --data FILE.csv --label COLUMN`` names the selected features by the file's
columns, in its printout and in its figure (read from the matplotlib Figure the command draws)."""
import re

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import fsopt.core.figures
from fsopt.tools.cli import main

COLUMNS = ["radius_b", "radius_a", "texture_c", "area_d", "noise_e", "noise_f"]


@pytest.fixture
def csv_file(tmp_path):
    """60 samples; the class shows in radius_b (strongly) and radius_a; the rest is noise."""
    rng = np.random.default_rng(0)
    y = np.repeat([1, -1], 30)
    X = rng.standard_normal((60, len(COLUMNS)))
    X[:, 0] += 2.5 * y
    X[:, 1] += 1.5 * y
    frame = pd.DataFrame(X, columns=COLUMNS).assign(outcome=np.where(y > 0, "yes", "no"))
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def drawn(monkeypatch):
    """The figures the command draws, kept instead of written."""
    figures = []
    monkeypatch.setattr(fsopt.core.figures, "save_figure", lambda fig, path: figures.append(fig))
    return figures


def _texts(fig):
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()]
    legends = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    return ticks + legends


@pytest.mark.parametrize("method, options", [("logo", ["--sigma", "2"]), ("nmmkl", ["--m", "2"]),
                                             ("lfs", ["--alpha", "2", "--tau", "1", "--quiet"])])
def test_run_on_a_csv_names_the_selected_columns(method, options, csv_file, drawn, tmp_path, capsys):
    args = ["run", method, "--data", str(csv_file), "--label", "outcome", "--plot", str(tmp_path / "f.png")]
    assert main(args + options) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # the strongest column is named on the first line of the selection, the other informative one too
    first = next(i for i, line in enumerate(lines) if line.endswith("first:")) + 2  # below the header
    assert "radius_b" in lines[first] and "radius_a" in out, out
    assert not any(re.match(r"\s*(feature )?\d", line) for line in lines[first:first + 2]), out  # no bare indices
    (fig,) = drawn
    texts = _texts(fig)
    assert "radius_b" in texts and "radius_a" in texts, texts


def test_generated_data_keeps_x_names(capsys):
    assert main(["run", "logo", "--problem", "spiral", "--irrelevant", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "  x0 " in out and "  x1 " in out


def test_many_features_are_named_in_the_legend_from_a_dataframe_fit():
    """Beyond 30 features the best ones are marked and named in the legend; a Python user's
    DataFrame columns reach the figure through feature_names_in_."""
    import matplotlib.pyplot as plt

    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral
    from fsopt.logo.plots import plot_logo

    X, y = make_spiral(n_per_class=40, n_irrelevant=38, random_state=0)
    frame = pd.DataFrame(X, columns=["spiral_u", "spiral_v"] + [f"noise_{j}" for j in range(38)])
    fig = plot_logo(LOGO().fit(frame, y))
    legend = " ".join(_texts(fig))
    assert "spiral_u" in legend and "spiral_v" in legend
    plt.close(fig)
