"""The command line at its edges: every wrong option value ends in exit 2 with one line on stderr
that names the option (or the file, the solver, the method) before any work, never a traceback,
and nothing is written.  The commands run in this process (``fsopt.tools.cli.main``), so the
module takes seconds."""
import pytest

from fsopt.tools.cli import main

SPIRAL = ["run", "logo", "--problem", "spiral", "--irrelevant", "10", "--quiet"]

REFUSED = [
    # (arguments, words the one line must contain)
    (["run", "bogus"], ["bogus"]),
    (["run"], ["METHOD"]),
    (["frobnicate"], ["frobnicate"]),
    (["run", "logo", "--problem", "nope"], ["nope", "spiral"]),
    (["run", "lfs", "--problem", "spiral"], ["spiral", "lfs"]),
    (["run", "logo", "--problem", "spiral", "--data", "x.csv"], ["--problem", "--data"]),
    (SPIRAL + ["--sigma", "0"], ["sigma"]),
    (SPIRAL + ["--sigma", "-1"], ["sigma"]),
    (SPIRAL + ["--sigma", "nan"], ["sigma"]),
    (SPIRAL + ["--sigma", "abc"], ["--sigma"]),
    (SPIRAL + ["--lam", "-1"], ["lam"]),
    (SPIRAL + ["--lam", "nan"], ["lam"]),
    (SPIRAL + ["--theta", "-1"], ["theta"]),
    (SPIRAL + ["--prune-below", "x"], ["--prune-below"]),
    (SPIRAL + ["--prune-below", "-1"], ["prune"]),
    (SPIRAL + ["--irrelevant", "-5"], ["--irrelevant"]),
    (SPIRAL + ["--irrelevant", "1e3"], ["--irrelevant"]),
    (SPIRAL + ["--irrelevant", "ten"], ["--irrelevant"]),
    (SPIRAL + ["--solver", "NOPE"], ["NOPE"]),
    (SPIRAL + ["--plot", "/"], ["--plot"]),
    (SPIRAL + ["--plot", "/nonexistent-dir/w.png"], ["--plot"]),
    (SPIRAL + ["--plot", "weights.xyz"], ["--plot"]),
    (SPIRAL + ["--label", "y"], ["--label"]),
    (["run", "nmmkl", "--problem", "nmmkl_toy", "--m", "0", "--quiet"], ["--m"]),
    (["run", "nmmkl", "--problem", "nmmkl_toy", "--m", "-2", "--quiet"], ["m"]),
    (["run", "nmmkl", "--problem", "nmmkl_toy", "--m", "99", "--quiet"], ["99"]),
    (["run", "nmmkl", "--problem", "nmmkl_toy", "--m", "2", "--solver", "LBFGSB", "--quiet"], ["LBFGSB"]),
    (["run", "lfs", "--problem", "lfs_synthetic", "--alpha", "0", "--quiet"], ["alpha"]),
    (["run", "lfs", "--problem", "lfs_synthetic", "--tau", "0", "--quiet"], ["--tau"]),
    (["run", "lfs", "--problem", "lfs_synthetic", "--n-jobs", "1000000", "--quiet"], ["--n-jobs"]),
    (["run", "lfs", "--problem", "lfs_synthetic", "--random-state", "-1", "--quiet"], ["--random-state"]),
    (["run", "logo", "--data", "no-such-file.csv", "--label", "y", "--quiet"], ["no-such-file.csv"]),
    (["bench", "--quick", "--solver", "NOPE"], ["NOPE"]),
    (["bench", "--repeat", "0"], ["repeat"]),
    (["bench", "--repeat", "-3"], ["repeat"]),
    (["bench", "--timeout", "-1"], ["timeout"]),
    (["bench", "--timeout", "0"], ["timeout"]),
    (["bench", "--timeout", "nan"], ["timeout"]),
    (["bench", "--quick", "--out", "/proc/fsopt-bench"], ["--out"]),
    (["verify", "--solver", "NOPE"], ["NOPE"]),
    (["verify", "--instances", "0"], ["--instances"]),
    (["verify", "--instances", "x"], ["--instances"]),
    (["verify", "--checks", "no-such-checks.py"], ["no-such-checks.py"]),
    (["verify", "--quick", "no-such-check"], ["no-such-check"]),
    (["experiment", "nope"], ["nope"]),
    (["experiment", "nmmkl-uci", "--data", "nope"], ["nope"]),
    (["experiment", "nmmkl-uci", "--data", "sonar", "--quick", "--out", "/dev/null/x"], ["/dev/null"]),
    (["problems", "--method", "nope"], ["nope"]),
    (["run", "logo", "--data", ".", "--label", "y", "--quiet"], [".: a directory"]),  # not "no such file"
    (SPIRAL + ["--out", "/etc/hostname/sub"], ["--out", "/etc/hostname exists and is not a directory"]),
    (["verify", "--quick", "--seed", "-1", "LOGO margins"], ["--seed"]),
    (["run", "lfs", "--problem", "lfs_synthetic", "--test-size", "1.5", "--quiet"], ["--test-size 1.5"]),
    # checked before any mutant runs (it was after all of them: minutes lost, then a traceback)
    (["verify", "--quick", "--mutants", "kernel width x4 (LFS)", "--report", "nodir/t.md"], ["--report", "nodir"]),
    (["verify", "--quick", "--report", "t.md", "LOGO margins"], ["--report", "--mutants"]),
    (["verify", "--quick", "--all-cells", "LOGO margins"], ["--all-cells", "--mutants"]),
    (["verify", "--quick", "--refine", "LOGO margins"], ["--refine", "--solver"]),
]


@pytest.mark.parametrize("args, words", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_a_wrong_option_is_exit_2_with_one_line_naming_it(tmp_path, monkeypatch, capsys, args, words):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(args)
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    last = [line for line in err.splitlines() if line.strip()][-1]
    assert last.startswith("fsopt"), err
    for word in words:
        assert word in last, (word, last)
    assert not list(tmp_path.iterdir()), "a refused command wrote files"


@pytest.mark.parametrize("command", [SPIRAL, ["bench", "--quick", "--out", "study"]])
def test_an_interrupt_is_one_line_and_exit_130(tmp_path, monkeypatch, capsys, command):
    """Ctrl-C printed a traceback (planted: main without its KeyboardInterrupt branch)."""
    from fsopt.tools import cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "_cmd_run", interrupted)
    monkeypatch.setattr(cli, "_cmd_bench", interrupted)
    assert main(command) == 130
    err = capsys.readouterr().err.strip()
    assert err.startswith("fsopt: interrupted") and "\n" not in err
    assert ("resumes" in err) == (command[0] == "bench")


def test_a_reader_that_goes_away_ends_the_output_quietly():
    """``fsopt solvers | head -2``: BrokenPipeError's traceback (planted: no branch for it).  The
    reading end is closed before fsopt writes, so every write meets a closed pipe."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-m", "fsopt.tools.cli", "solvers"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=300) == 141 and err == ""


def test_a_failed_operation_inside_fsopt_is_an_internal_error_with_its_traceback(monkeypatch, capsys):
    """A NumPy shape error from a bug read as "fsopt: error: matmul: ..." with exit 2, as if the
    input were wrong (planted: every ValueError printed as the user's error)."""
    import numpy as np

    from fsopt.tools import cli

    def buggy(*args, **kwargs):
        return np.ones(2) @ np.ones(3)

    monkeypatch.setattr(cli, "_cmd_run", buggy)
    assert main(SPIRAL) == 70
    err = capsys.readouterr().err
    assert err.startswith("fsopt: internal error") and "Traceback" in err and "matmul" in err
