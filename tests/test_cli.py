"""The command line, run in-process."""
import pytest

from fsopt.tools.cli import main


def test_run_logo_on_spiral_prints_selection_and_writes_plot(tmp_path, capsys):
    plot = tmp_path / "weights.png"
    assert main(["run", "logo", "--problem", "spiral", "--irrelevant", "30", "--quiet", "--verbose",
                 "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.split("best first:\n")[1].splitlines()[1:3]]
    assert "selected 2 of 32 features" in out and rows == ["x0", "x1"]
    assert "statistics" in out and "solve" in out
    assert plot.stat().st_size > 10_000


def test_run_logo_takes_the_papers_path_on_request(capsys):
    """--prune-below none: the paper's iteration over all features (5,000 irrelevant features are
    above the fast path's N²·J, which the default takes and says so); a bad value names itself."""
    args = ["run", "logo", "--problem", "spiral", "--irrelevant", "5000", "--quiet", "--verbose"]
    assert main(args) == 0
    assert "the paper's iteration may reach another: --prune-below none" in capsys.readouterr().out
    assert main(args + ["--prune-below", "none"]) == 0
    assert "elimination: off (the paper's iteration" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["run", "logo", "--problem", "spiral", "--prune-below", "sometimes"])
    assert exc.value.code == 2
    assert "expected auto, none or a nonnegative number, got 'sometimes'" in capsys.readouterr().err


def test_solvers_command_lists_capabilities(capsys):
    assert main(["solvers"]) == 0
    out = capsys.readouterr().out
    assert "CLARABEL" in out and "GRADIENT" in out and "scs-tight" in out


def test_unknown_solver_is_a_clean_error(capsys):
    assert main(["run", "logo", "--problem", "spiral", "--irrelevant", "2", "--solver", "NOPE",
                 "--quiet"]) == 2
    assert "unknown solver 'NOPE'; installed:" in capsys.readouterr().err


def test_run_nmmkl_toy_writes_its_figure(tmp_path, capsys):
    plot = tmp_path / "nmmkl.png"
    assert main(["run", "nmmkl", "--problem", "nmmkl_toy", "--m", "2", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "selected" in out and plot.stat().st_size > 10_000


def test_run_logo_tells_a_restart_and_why():
    from fsopt.core.driver import Iteration
    from fsopt.logo.cli import restart_story

    history = [Iteration(t, 1.0, None, 5, 0.0, 0.0) for t in range(1, 6)]
    assert restart_story(history) == ""
    history[1].restarted, history[1].restart_reason = True, "budget"
    assert restart_story(history) == ("; the working set spent its budget, so the fit restarted as the plain "
                                      "iteration after iteration 2")
    history[1].restart_reason = "went round"
    assert "the working set went round, so" in restart_story(history)
