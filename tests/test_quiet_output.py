"""No third-party banner on the terminal: highspy writes "Running HiGHS … THIRD_PARTY_NOTICES.md"
once per process, on the first log line of any instance with output on, and ``highspy.Highs()``
logs in its constructor.  Each check runs in a fresh interpreter: in the test process an earlier
test may already have spent the banner, and a check there would pass without testing anything."""
import csv
import subprocess
import sys

import pytest

BANNER = ("Running HiGHS", "Copyright", "THIRD_PARTY")

# every built-in backend (no profiles), each on a problem it solves: LOGO's garrote (the conic
# solvers and GRADIENT, LBFGSB, PROXGRAD), NMMKL's QCQP and LP (MKLFAST; MKLLP, HIGHS through cvxpy),
# LFS's LPs (HIGHSPY, TOPK, HIGHS) — two runs, not every solver on every problem (107 s against 70)
BUILT_IN = {("spiral",): ["CLARABEL", "ECOS", "SCS", "GRADIENT", "LBFGSB", "PROXGRAD"],
            ("nmmkl_scale", "lfs_synthetic"): ["HIGHS", "HIGHSPY", "TOPK", "MKLFAST", "MKLLP"]}


def _fresh(*args, expect=0):
    """stdout + stderr of ``python ARGS`` in a new interpreter (exit code checked)."""
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600)
    assert result.returncode == expect, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout + result.stderr


def _assert_no_banner(text):
    found = [line for line in text.splitlines() if any(word in line for word in BANNER)]
    assert not found, f"third-party banner in the output: {found[:4]}"


def test_solvers_table_and_unknown_solver_error_print_no_banner():
    out = _fresh("-m", "fsopt.tools.cli", "solvers")
    assert "HIGHSPY" in out and "highs-ipm" in out  # the table and the profiles, HiGHS's included
    _assert_no_banner(out)
    err = _fresh("-m", "fsopt.tools.cli", "run", "lfs", "--problem", "lfs_synthetic", "--solver", "NOPE",
                 expect=2)
    assert "unknown solver 'NOPE'" in err
    _assert_no_banner(err)


@pytest.mark.parametrize("method", ["nmmkl", "lfs"])
def test_python_fit_prints_no_banner(method):
    """An NMMKL fit (its LP recovery (15) by HiGHS through cvxpy) and an LFS fit (HIGHSPY)."""
    fit = {
        "nmmkl": "from fsopt import NMMKL; from fsopt.datasets.nmmkl_toy import make_nmmkl_toy\n"
                 "X, y = make_nmmkl_toy(n_samples=60, random_state=0)[:2]\n"
                 "print(NMMKL(n_features=2, lp_solver='HIGHS').fit(X, y).get_support().sum())",
        "lfs": "from fsopt import LFS; from fsopt.datasets.lfs_synthetic import make_lfs_synthetic\n"
               "X, y = make_lfs_synthetic(n_plus=8, n_diamond=8, n_circle=16, n_irrelevant=3, random_state=0)[:2]\n"
               "print(LFS(n_beta=3, n_rounding=20, solver='HIGHSPY', random_state=0).fit(X, y).n_features_in_)",
    }[method]
    out = _fresh("-c", fit)
    assert out.strip().splitlines()[-1].isdigit(), out  # the fit ran to its end
    _assert_no_banner(out)


def test_bench_over_every_built_in_backend_prints_no_banner(tmp_path):
    for i, (problems, solvers) in enumerate(BUILT_IN.items()):
        out = _fresh("-m", "fsopt.tools.cli", "bench", "--quick", "--problem", *problems, "--solver", *solvers,
                     "--out", str(tmp_path / f"bench{i}"))
        with open(tmp_path / f"bench{i}" / "results.csv", newline="") as f:
            ran = {row["solver"] for row in csv.DictReader(f) if row["status"] != "skipped"}
        assert set(solvers) <= ran, set(solvers) - ran  # each backend solved something (a skipped row is no run)
        _assert_no_banner(out)


@pytest.mark.parametrize("every, lines", [(0.0, True), (3600.0, False)])
def test_a_fit_in_a_log_gets_progress_lines_and_a_short_one_none(capsys, monkeypatch, every, lines):
    """``fsopt run`` showed progress on a terminal only: a log got nothing until the end (planted:
    the driver's tqdm bar, which a log does not get).  A fit shorter than a line's interval leaves
    the log as it was."""
    from fsopt import LOGO
    from fsopt.core import progress
    from fsopt.datasets.spiral import make_spiral

    monkeypatch.setattr(progress, "LINE_EVERY", every)
    LOGO(progress=True, max_iter=3, theta=0.0).fit(*make_spiral(20, 3, random_state=0))
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    if lines:
        assert err.splitlines()[0].startswith("LOGO: 1/3 iterations (33%), elapsed")
        assert "change" in err and "active" in err and err.splitlines()[-1].startswith("LOGO: 3/3 iterations")
    else:
        assert err == ""


def test_an_experiment_in_a_log_gets_a_line_per_split(tmp_path, capsys, monkeypatch):
    from fsopt.core import progress
    from fsopt.tools.cli import main

    monkeypatch.setattr(progress, "LINE_EVERY", 0.0)
    assert main(["experiment", "nmmkl-uci", "--data", "sonar", "--quick", "--splits", "2",
                 "--out", str(tmp_path / "ex")]) == 0
    err = capsys.readouterr().err
    assert "nmmkl-uci: 1/2 splits" in err and "nmmkl-uci: 2/2 splits" in err and "\r" not in err
