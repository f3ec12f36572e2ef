"""``fsopt run`` output a user can keep, read and trust: ``--out DIR`` files that pandas loads and
that replay the run, written all or nothing; a short default text whose counts are the fit's
records; error messages that the README quotes; a LOGO figure that shows the selected features
whatever the number of features."""
import json
import re
from datetime import datetime
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from fsopt import LFS, LOGO, NMMKL
from fsopt.core import run_output
from fsopt.core.run_output import FILES
from fsopt.datasets import packaged_data_dir, standardize
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.plots import plot_logo
from fsopt.tools.bench_keys import array_digest
from fsopt.tools.cli import main
from fsopt.tools.problems import get_problem

README = Path(__file__).resolve().parents[1] / "README.md"
RUNS = {"logo": ["--problem", "spiral", "--irrelevant", "20"],
        "nmmkl": ["--problem", "nmmkl_toy", "--m", "2"],
        "lfs": ["--problem", "lfs_synthetic", "--tau", "1", "--irrelevant", "10"]}
ESTIMATORS = {"logo": LOGO, "nmmkl": NMMKL, "lfs": LFS}


@pytest.fixture
def fitted(monkeypatch):
    """The estimators ``fit`` was called on, in order (the fit the command line ran)."""
    seen = []
    for cls in ESTIMATORS.values():
        def fit(self, X, y, _fit=cls.fit, **kw):
            seen.append(self)
            return _fit(self, X, y, **kw)
        monkeypatch.setattr(cls, "fit", fit)
    return seen


def _csv(path, n_per_class=40, n_irrelevant=3):
    X, y = make_spiral(n_per_class=n_per_class, n_irrelevant=n_irrelevant, random_state=0)
    frame = pd.DataFrame(X, columns=["radius", "angle", *(f"noise{i}" for i in range(n_irrelevant))])
    frame["diagnosis"] = y
    frame.to_csv(path, index=False)
    return path, X, y


def _listing(directory):
    return sorted(p.name for p in directory.iterdir())


def test_out_files_load_in_pandas_and_a_refit_from_run_json_gives_their_numbers(tmp_path, capsys):
    data, X, y = _csv(tmp_path / "mine.csv")
    out = tmp_path / "result"
    assert main(["run", "logo", "--data", str(data), "--label", "diagnosis", "--out", str(out), "--quiet"]) == 0
    assert _listing(out) == sorted(FILES)
    table = pd.read_csv(out / "features.csv")
    assert list(table.columns) == ["feature", "weight", "score", "selected"]
    assert list(table.feature) == ["radius", "angle", "noise0", "noise1", "noise2"]
    pd.testing.assert_frame_equal(pd.read_json(out / "features.json"), table, check_exact=False, rtol=1e-12)
    record = json.loads((out / "run.json").read_text())
    assert record["method"] == "logo" and record["n_samples"] == X.shape[0] and record["n_features"] == 5
    assert {"fsopt", "numpy", "cvxpy", "python"} <= set(record["versions"])
    est = LOGO(**record["params"]).fit(standardize(X), y)  # the parameters the run used
    np.testing.assert_allclose(table.weight, est.weights_, rtol=1e-6, atol=1e-12)
    np.testing.assert_array_equal(table.selected, est.get_support())
    cert = record["certificate"]
    assert cert["holds"] == est.certificate_.holds and cert["answered"] == est.certificate_.describe_answers()
    assert sum(t["solves"] for t in cert["tally"]) == sum(len(h.records) for h in est.history_)


@pytest.mark.parametrize("method", sorted(RUNS))
def test_each_method_replays_from_run_json_and_its_files_are_the_fit(method, tmp_path, capsys, fitted):
    first, again = tmp_path / "first", tmp_path / "again"
    assert main(["run", method, *RUNS[method], "--out", str(first), "--quiet"]) == 0
    est = fitted[-1]
    table = pd.read_csv(first / "features.csv")
    column, values, selected = {
        "logo": lambda: ("weight", est.weights_, est.get_support()),
        "nmmkl": lambda: ("tau_i", est.scores_, est.support_),
        "lfs": lambda: ("share", est.fstar_.mean(axis=0), est.fstar_.any(axis=0))}[method]()
    np.testing.assert_allclose(table[column], values, rtol=1e-12)
    np.testing.assert_array_equal(table.selected, selected)
    record = json.loads((first / "run.json").read_text())
    argv = record["argv"]
    argv[argv.index("--out") + 1] = str(again)
    assert main(argv) == 0
    pd.testing.assert_frame_equal(pd.read_csv(again / "features.csv"), table, check_exact=False, rtol=1e-7)
    # the data are named by what they are, not only by the file and arguments that made them
    problem = get_problem(RUNS[method][1], method)
    irrelevant = int(RUNS[method][RUNS[method].index("--irrelevant") + 1]) if "--irrelevant" in RUNS[method] else None
    assert record["data_digest"] == array_digest(*problem.load(n_irrelevant=irrelevant))
    assert record["data_declared"] == problem.data and datetime.fromisoformat(record["written"]).tzinfo


def test_a_run_into_an_existing_directory_replaces_its_files(tmp_path, capsys):
    out = tmp_path / "result"
    out.mkdir()
    (out / "features.csv").write_text("stale\n")
    assert main(["run", "nmmkl", *RUNS["nmmkl"], "--out", str(out), "--quiet"]) == 0
    assert _listing(out) == sorted(FILES) and "stale" not in (out / "features.csv").read_text()
    assert _listing(tmp_path) == ["result"]  # no temporary directory left beside it


@pytest.mark.parametrize("case", ["parent missing", "a file", "refused option", "fit fails"])
def test_a_refused_or_failed_run_writes_nothing(case, tmp_path, capsys):
    out = {"parent missing": tmp_path / "no" / "result", "a file": tmp_path / "result"}.get(case, tmp_path / "result")
    if case == "a file":
        out.write_text("mine\n")
    extra = {"refused option": ["--lam", "-1"], "fit fails": ["--solver", "no-such-solver"]}.get(case, [])
    before = _listing(tmp_path)
    assert main(["run", "logo", *RUNS["logo"], *extra, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert _listing(tmp_path) == before
    if case == "a file":
        assert out.read_text() == "mine\n" and "--out" in err and "not a directory" in err
    if case == "parent missing":
        assert "--out" in err and "does not exist" in err


def test_a_failure_while_writing_leaves_no_file(tmp_path, capsys, monkeypatch):
    def broken(self, *a, **kw):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_json", broken)  # features.csv is written, then this fails
    with pytest.raises(OSError, match="No space"):
        main(["run", "nmmkl", *RUNS["nmmkl"], "--out", str(tmp_path / "result"), "--quiet"])
    assert _listing(tmp_path) == []


def _answer_counts(text):
    """{solver asked: (own answers, solves)} from an "answers: ..." line."""
    line = next(x for x in text.splitlines() if x.startswith("answers: "))
    return {asked: (int(own), int(total)) for own, total, asked in
            re.findall(r"(\d+) of (\d+) solves were (\S+)'s own", line)}


@pytest.mark.parametrize("method", sorted(RUNS))
def test_printed_counts_are_the_fit_records(method, capsys, fitted):
    assert main(["run", method, *RUNS[method], "--quiet"]) == 0
    text = capsys.readouterr().out
    est = fitted[-1]
    records = est.records_ if method == "nmmkl" else [r for h in est.history_ for r in h.records]
    expected = {}
    for r in records:
        asked = (r.attempts[0] if r.attempts else r).solver
        own, total = expected.get(asked, (0, 0))
        expected[asked] = (own + (r.answered_by in ("solver", "refined")), total + 1)
    assert _answer_counts(text) == expected
    assert not re.search(r"\(\d+ solver\)", text)
    if method == "nmmkl":
        assert set(expected) == {"CLARABEL", "MKLLP"} and all(n == (1, 1) for n in expected.values())
    if method == "logo":
        iterations = int(re.search(r"converged after (\d+) iterations", text).group(1))
        assert iterations == len(est.history_) == est.n_iter_
        selected = int(re.search(r"selected (\d+) of (\d+) features", text).group(1))
        assert selected == est.get_support().sum()


def test_default_logo_output_is_short_and_the_expert_text_is_behind_verbose(capsys):
    assert main(["run", "logo", "--problem", "spiral", "--irrelevant", "5000", "--quiet"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert len(lines) <= 15, text
    assert lines[1].startswith("selected 2 of 5002 features") and lines[2].split() == ["feature", "weight", "weight/max"]
    for expert in ("sigma*", "working set", "0.00 s", "theta_t =", "elimination"):
        assert expert not in text, expert
    assert main(["run", "logo", "--problem", "spiral", "--irrelevant", "5000", "--quiet", "--verbose"]) == 0
    verbose = capsys.readouterr().out
    assert "theta_t =" in verbose and "elimination: 5000 feature(s) dropped" in verbose and "sigma*" in verbose


def test_the_selection_table_aligns_its_numbers_at_a_fixed_precision():
    names = np.array(["x0", "a_long_name", "x2"])
    table = run_output.selection_table(names, np.array([1, 0, 2]),
                                       {"weight": (np.array([3.34461, 0.079139, 0.0532334]), ".4g"),
                                        "weight/max": (np.array([1.0, 0.0236, 0.0159]), ".3f")})
    lines = table.splitlines()
    assert [line.split()[1:] for line in lines[1:]] == [["0.07914", "0.024"], ["3.345", "1.000"],
                                                        ["0.05323", "0.016"]]
    assert len({len(line) for line in lines}) == 1  # right-aligned columns: every line as long


def test_missing_label_column_message_is_the_readmes_and_shows_the_last_columns(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    frame = pd.DataFrame(np.random.default_rng(0).standard_normal((10, 20)), columns=[f"f{j}" for j in range(20)])
    frame["diagnosis"] = np.arange(10) % 2
    frame.to_csv(path, index=False)
    assert main(["run", "logo", "--data", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    quoted = "no 'label' column; name the class column with --label NAME; columns: "
    assert quoted in err and quoted.rstrip(": ") in README.read_text()
    assert "diagnosis" in err and "(21 columns)" in err and "label=" not in err


@pytest.mark.parametrize("given", ["missing.csv", "missing.csv.gz", "sub/missing"])
def test_a_missing_path_is_a_missing_file_not_a_data_set_name(given, tmp_path, capsys):
    path = str(tmp_path / given) if given.startswith("sub") else given
    assert main(["run", "logo", "--data", path, "--label", "c", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"fsopt: error: {path}: no such file"
    assert "no such file" in README.read_text() and str(packaged_data_dir()) not in err
    assert main(["run", "logo", "--data", "nosuchset", "--quiet"]) == 2  # a bare name is looked up
    err = capsys.readouterr().err
    assert "not a data set in $FSOPT_DATA or the data shipped with fsopt" in err
    assert str(packaged_data_dir()) not in err


def test_logo_figure_shows_the_selected_features_inside_the_frame_at_many_features():
    X, y = make_spiral(n_per_class=30, n_irrelevant=298, random_state=0)
    est = LOGO().fit(X, y)
    best = np.flatnonzero(est.get_support())
    best = best[np.argsort(-est.scores_[best])]
    fig = plot_logo(est, relevant=[0, 1])
    ax_w, _, panel = fig.axes
    low, high = ax_w.get_xlim()
    assert low < -1 and high > X.shape[1]  # the first and last bars stand clear of the frame
    ylow, yhigh = ax_w.get_ylim()
    for line in ax_w.get_lines():
        xs, ys = (np.asarray(v, dtype=float) for v in line.get_data())
        assert ((xs > low) & (xs < high)).all() and (ys <= 0.95 * yhigh).all(), line.get_label()
    widths = [bar.get_width() for bar in panel.patches]
    np.testing.assert_allclose(widths, est.scores_[best][:10])
    assert [t.get_text() for t in panel.get_yticklabels()] == [f"x{j}" for j in best[:10]]
    plt.close(fig)
