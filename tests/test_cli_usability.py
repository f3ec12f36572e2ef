"""The command line as a newcomer meets it: own data, version, help texts, quiet long lists, logs."""
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import fsopt
from fsopt.datasets.spiral import make_spiral
from fsopt.tools import verify
from fsopt.tools.cli import build_parser, main


def _spiral_csv(path, label="label"):
    X, y = make_spiral(n_per_class=60, n_irrelevant=20, random_state=0)
    frame = pd.DataFrame(X, columns=[f"g{j}" for j in range(X.shape[1])])
    frame[label] = y
    frame.to_csv(path, index=False)
    return path


def test_run_on_own_csv_selects_the_spiral_coordinates(tmp_path, capsys):
    data = _spiral_csv(tmp_path / "mine.csv", label="class")
    assert main(["run", "logo", "--data", str(data), "--label", "class", "--quiet"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.split("best first:\n")[1].splitlines()[1:3]]
    assert "selected 2 of" in out and rows == ["g0", "g1"]


def test_run_on_csv_without_label_column_names_the_file_and_the_option(tmp_path, capsys):
    data = _spiral_csv(tmp_path / "mine.csv", label="class")
    assert main(["run", "logo", "--data", str(data), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "mine.csv" in err and "'label'" in err and "--label" in err


def test_label_without_data_is_an_error(capsys):
    assert main(["run", "logo", "--problem", "spiral", "--label", "x", "--quiet"]) == 2
    assert "--label" in capsys.readouterr().err


def test_run_on_a_packaged_data_file(data_dir, capsys):
    assert main(["run", "logo", "--data", str(data_dir / "heart.csv.gz"), "--sigma", "20",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "270 samples x 13 features" in out and "selected" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"fsopt {fsopt.__version__}"


NUMERICAL = {"numpy", "scipy", "cvxpy", "sklearn", "numba", "pandas", "matplotlib",
             "fsopt.logo", "fsopt.nmmkl", "fsopt.lfs", "fsopt.tools.experiments", "fsopt.tools.verify"}


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["run", "--help"]])
def test_version_and_help_import_no_numerical_library(args):
    """What a fresh interpreter imports for them (``-X importtime`` lists every module)."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "fsopt.tools.cli", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "fsopt" in result.stdout, result.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    assert "fsopt.tools" in imported
    assert not imported & NUMERICAL, sorted(imported & NUMERICAL)


def _all_parsers(parser):
    yield parser
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for sub in action.choices.values():
                yield from _all_parsers(sub)


def test_help_texts_have_examples_defaults_and_no_markup():
    parsers = list(_all_parsers(build_parser()))
    assert len(parsers) >= 10
    for p in parsers:
        text = p.format_help()
        assert "`" not in text, p.prog
        if not any(a.__class__.__name__ == "_SubParsersAction" for a in p._actions) or p.prog == "fsopt":
            assert "example" in text, p.prog
    bench = next(p for p in parsers if p.prog == "fsopt bench").format_help()
    assert "(default: 300.0)" in bench and "(default: bench-results)" in bench
    assert "(default: None)" not in "".join(p.format_help() for p in parsers)


def test_experiment_help_describes_the_four_protocols():
    from fsopt.tools.experiments import PROTOCOLS

    parser = next(p for p in _all_parsers(build_parser()) if p.prog == "fsopt experiment")
    text = " ".join(parser.format_help().split())
    assert len(PROTOCOLS) == 4
    for name, module in PROTOCOLS.items():
        assert name in text and " ".join(module.TITLE.split()) in text


def test_solvers_never_cut_a_description(capsys, monkeypatch):
    from fsopt.core import solvers as reg

    monkeypatch.setenv("COLUMNS", "70")
    assert main(["solvers"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name, backend in reg.backends().items():
        assert " ".join(backend.description.split()) in out, name
    for name, profile in reg.profiles().items():
        assert " ".join(profile.description.split()) in out, name


def test_problems_mention_no_issue_numbers(capsys):
    assert main(["problems"]) == 0
    assert not re.search(r"issue\s*#?\d", capsys.readouterr().out, re.I)


def test_missing_worst_slack_is_explained():
    text = verify.format_slack(math.nan)
    assert "nan" not in text and "numeric" in text
    assert verify.format_slack(0.5) == "0.5"


def _run_cli(args, tmp_path):
    """fsopt as a subprocess whose stderr is a log file (not a terminal)."""
    log = tmp_path / "stderr.log"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    with open(log, "w") as err:
        proc = subprocess.run([sys.executable, "-m", "fsopt.tools.cli", *args], stdout=subprocess.PIPE,
                              stderr=err, text=True, env=env, cwd=tmp_path, timeout=600)
    return proc, log.read_text()


def test_log_file_gets_no_progress_bar_escapes(tmp_path):
    proc, err = _run_cli(["run", "lfs", "--problem", "lfs_synthetic", "--irrelevant", "5", "--tau", "1",
                          "--n-jobs", "1"], tmp_path)
    assert proc.returncode == 0, err
    assert "\r" not in err and "\x1b" not in err, repr(err[:300])


def test_progress_bar_of_a_theta_stopped_run_estimates_nothing_from_max_iter(capsys, monkeypatch):
    from fsopt.core import progress

    monkeypatch.setattr(progress, "LINE_EVERY", 0.0)  # capsys is a log: a line per iteration
    X, y = make_spiral(n_per_class=40, n_irrelevant=5, random_state=0)
    fsopt.LOGO(progress=True, max_iter=50).fit(X, y)
    err = capsys.readouterr().err
    assert "LOGO" in err and "/50" not in err and "%|" not in err, err[-300:]


def test_figures_explain_their_lines_and_markers(tmp_path):
    import matplotlib.pyplot as plt

    from fsopt.logo.plots import plot_logo

    X, y = make_spiral(n_per_class=40, n_irrelevant=5, random_state=0)
    fig = plot_logo(fsopt.LOGO().fit(X, y), relevant=[0, 1])
    labels = [t.get_text() for ax in fig.axes for t in ax.get_legend().get_texts()]
    assert any("selection threshold" in t for t in labels) and any("stopping threshold" in t for t in labels)
    plt.close(fig)


def test_bench_ends_with_a_count_of_skipped_pairs_not_their_list(tmp_path, capsys):
    out_dir = tmp_path / "study"
    assert main(["bench", "--quick", "--problem", "spiral", "--solver", "GRADIENT", "HIGHS", "--quiet",
                 "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "## Skipped" not in out and "garrote_logistic / HIGHS" not in out
    last = out.strip().splitlines()[-1]
    assert re.match(r"1 \(subproblem kind, solver\) pair\(s\) skipped", last), last
    assert "summary.md" in last and "garrote_logistic / HIGHS" in (out_dir / "summary.md").read_text()


def test_run_logo_reports_the_numba_compile_time_of_its_fit(monkeypatch, capsys):
    """A kernel compiled during the fit is counted; kernels compiled before it are not."""
    import numba

    from fsopt.logo.estimator import LOGO

    def compiled_seconds():
        assert main(["run", "logo", "--problem", "spiral", "--irrelevant", "3", "--quiet"]) == 0
        found = re.search(r"of which ([\d.]+) s compiling numba kernels", capsys.readouterr().out)
        return 0.0 if found is None else float(found.group(1))  # said only when something compiled

    compiled_seconds()  # fsopt's kernels compiled (or loaded from the cache) in this process
    assert compiled_seconds() == 0.0
    fit = LOGO.fit

    def fit_with_a_new_kernel(self, X, y):
        def plus_one(a):
            return a + 1.0

        numba.njit(plus_one)(1.0)  # a function numba has not seen: compiled now
        return fit(self, X, y)

    monkeypatch.setattr(LOGO, "fit", fit_with_a_new_kernel)
    assert compiled_seconds() > 0.0
