"""fsopt bench's harness: persistent workers (one per pair no longer), each pair's peak memory its
own, a worker that dies replaced, progress lines in a log, the partial marker of a killed study,
the harness's share of the wall time, profiles whose axis covers every solved ratio."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from fsopt.core import solvers
from fsopt.core.progress import Progress
from fsopt.logo.gradient_path import GradientPath
from fsopt.tools import bench, bench_report, bench_stats
from fsopt.tools.bench_pool import WorkerPool, peak_memory, reset_peak_memory

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
LINE = re.compile(r"^fsopt bench: (\d+)/(\d+) solves \(\d+%\), elapsed \d+ s(, about \d+ s left)?$")


class CrashingGradient(GradientPath):
    """The gradient path, whose worker process dies (exit code 3) at its second solve: the
    untimed warm-up passes, the first timed solve kills the worker."""

    name = "CRASHING_GRADIENT"
    calls = 0

    def solve(self, subproblem, **options):
        type(self).calls += 1
        if type(self).calls == 2:
            os._exit(3)
        return super().solve(subproblem, **options)


def _cells(names):
    cells, _ = bench.plan(["spiral"], names, quick=True)
    return [c for c in cells if c.solver in names and c.size == 20]


def test_one_worker_runs_every_pair_and_a_dead_one_is_replaced(monkeypatch, backend_registry):
    backend_registry.register("CRASHING_GRADIENT", CrashingGradient())
    good, crash = _cells(["GRADIENT"]), _cells(["CRASHING_GRADIENT"])
    with WorkerPool(1, timeout=300, job=bench.JOB) as pool:
        rows = [e.rows for e in pool.run(good + crash + good) if e.rows is not None]
        started = pool.started
    first, dead, again = rows
    assert started == 2  # one worker for the first two pairs, a new one after the crash
    assert [r["status"] for r in dead] == ["error"] + ["skipped"] * 3
    assert dead[0]["reason"] == "the solver process died (exit code 3)" and dead[0]["budget"] == "default"
    assert first[0]["solved"] and again[0]["solved"]
    # the same solve in a reused worker and in a fresh one: the same answer, the same key
    assert [r["key"] for r in first] == [r["key"] for r in again]
    np.testing.assert_allclose([r["objective"] for r in first], [r["objective"] for r in again], rtol=1e-9)


def test_two_workers_start_and_give_the_rows_of_one():
    """``--jobs 2`` hung before planning: ``start`` took its one idle worker back as the next and
    never started a second (planted: ``start`` calling ``_worker``; the thread below never ends)."""
    cells = _cells(["GRADIENT", "PROXGRAD"])
    with WorkerPool(2, timeout=300, job=bench.JOB) as pool:
        starting = threading.Thread(target=pool.start, daemon=True)
        starting.start()
        starting.join(60)
        assert not starting.is_alive() and pool.started == 2
        two = {e.cell.solver: e.rows for e in pool.run(cells) if e.rows is not None}
        assert pool.started == 2
    with WorkerPool(1, timeout=300, job=bench.JOB) as pool:
        one = {e.cell.solver: e.rows for e in pool.run(cells) if e.rows is not None}
    assert sorted(two) == sorted(one) == ["GRADIENT", "PROXGRAD"]
    for solver in one:
        assert [r["key"] for r in two[solver]] == [r["key"] for r in one[solver]]
        np.testing.assert_allclose([r["objective"] for r in two[solver]], [r["objective"] for r in one[solver]],
                                   rtol=1e-9)


def test_peak_memory_is_measured_from_the_pairs_start():
    big = np.ones(40_000_000)  # 305 MiB
    big += 1.0
    del big
    before = peak_memory()
    assert reset_peak_memory()
    after = peak_memory()
    assert before - after > 250  # the earlier peak is forgotten: a pair's peak is its own
    small = np.ones(5_000_000)
    small += 1.0
    assert 30 < peak_memory() - after < 100
    del small


def test_a_log_gets_progress_lines_and_quiet_silences_them(tmp_path):
    args = [sys.executable, "-m", "fsopt.tools.cli", "bench", "--quick", "--problem", "spiral", "--solver",
            "GRADIENT", "ECOS"]
    with open(tmp_path / "stderr.txt", "w") as err:
        done = subprocess.run(args + ["--out", str(tmp_path / "a")], env=ENV, stderr=err, stdout=subprocess.PIPE,
                              text=True, timeout=900)
    assert done.returncode == 0
    lines = [line for line in (tmp_path / "stderr.txt").read_text().splitlines() if line.startswith("fsopt bench: ")]
    progress = [LINE.match(line) for line in lines[1:]]
    assert lines[0].startswith("fsopt bench: 18 solves in this study") and all(progress), lines
    counts = [int(m.group(1)) for m in progress]
    assert counts == sorted(counts) and counts[-1] == 18 and progress[-1].group(2) == "18"
    assert "\r" not in (tmp_path / "stderr.txt").read_text()  # no bar in a log
    assert re.search(r"18 solved in this run, [\d.]+ s, [\d.]+ solves/s", done.stdout)
    quiet = subprocess.run(args + ["--out", str(tmp_path / "b"), "--quiet"], env=ENV, capture_output=True,
                           text=True, timeout=900)
    assert quiet.returncode == 0 and "fsopt bench:" not in quiet.stderr


def test_progress_lines_estimate_the_time_left():
    import io

    stream = io.StringIO()
    with Progress(10, "study", every=0.0, stream=stream) as bar:
        bar.started -= 20.0  # 20 s ago
        bar.update(4)
    first, last = stream.getvalue().splitlines()
    assert first == "study: 4/10 solves (40%), elapsed 20 s, about 30 s left"
    assert last.startswith("study: 4/10 solves (40%), elapsed 20 s")
    assert Progress(10, "study", enabled=False, stream=stream).bar is None


def _study(out, solvers=("GRADIENT", "ECOS")):
    return [sys.executable, "-m", "fsopt.tools.cli", "bench", "--quick", "--problem", "spiral", "--solver",
            *solvers, "--repeat", "2", "--out", str(out), "--quiet"]


def _kill_after_first_pair(out, sig, solvers=("GRADIENT", "ECOS")):
    proc = subprocess.Popen(_study(out, solvers), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        log = out / "results.jsonl"
        if log.exists() and log.read_text().count("\n") >= 1:  # a pair's rows come in one write
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the study ended before it could be killed"
    proc.send_signal(sig)
    proc.wait(timeout=120)
    return proc


def test_a_killed_study_says_partial_until_it_completes(tmp_path):
    out = tmp_path / "study"
    proc = _kill_after_first_pair(out, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    summary, report = (out / "summary.md").read_text(), (out / "report.html").read_text()
    found = re.match(r"\*\*partial: (\d+) of (\d+) solves\*\*", summary)
    assert found and int(found.group(1)) < int(found.group(2)) == 24, summary[:200]
    assert "<p id='partial'><strong>partial: " in report
    assert f"Command: `fsopt bench --quick --problem spiral --solver GRADIENT ECOS --repeat 2 --out {out}" in summary
    done = subprocess.run(_study(out), env=ENV, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    summary, report = (out / "summary.md").read_text(), (out / "report.html").read_text()
    assert "partial" not in summary and "id='partial'" not in report
    assert summary.startswith("Command: `fsopt bench") and "## Shifted geometric mean" in summary


def test_a_terminated_study_writes_what_it_solved_marked_partial(tmp_path):
    """Stopped after its first pair, GRADIENT's (no compile time: a column of nulls only)."""
    out = tmp_path / "study"
    proc = _kill_after_first_pair(out, signal.SIGTERM, solvers=("GRADIENT",))
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr.read()
    logged = len((out / "results.jsonl").read_text().splitlines())
    summary = (out / "summary.md").read_text()
    assert summary.startswith(f"**partial: {logged} of 14 solves**") and "## Shifted geometric mean" in summary
    frame = pd.read_csv(out / "results.csv")
    assert len(frame[frame["status"] != "skipped"]) == logged  # every solve logged, none invented
    report = (out / "report.html").read_text()
    assert report.index("id='partial'") < report.index("<h1>") and "Performance profiles" in report


def test_summary_states_the_harness_share_of_the_wall_time(tmp_path):
    frame = bench.run(out=tmp_path, quick=True, problem_names=["spiral"], solvers=["GRADIENT"], progress=False)
    harness = frame.attrs["harness"]
    assert harness["workers"] == 1 and harness["solves"] == 10
    assert 0 < harness["measured"] <= harness["calls"] < harness["wall"]
    line = next(line for line in (tmp_path / "summary.md").read_text().splitlines() if "harness overhead" in line)
    share = 1 - (harness["calls"] + harness["warmups"]) / harness["wall"]
    assert f"{share:.0%} of the workers' time" in line
    assert frame.attrs["command"].startswith("fsopt bench --out ")


# --- the performance profile's axis --------------------------------------------------------

def _frame(times):
    """A study frame: {solver: [time per instance, None = not solved]} on one kind."""
    rows = []
    for solver, values in times.items():
        for size, value in enumerate(values, 1):
            rows.append(bench._row(bench.Cell("p", "k", size, solver), "optimal" if value else "rejected_certificate",
                                   time=value or 1.0, certified=value is not None, objective=1.0))
    return pd.DataFrame(rows, columns=bench.COLUMNS)


def unplotted(frame):
    """The (solver, instance, ratio) of every solved ratio the profile does not draw with ρ > 0
    inside its axis, read from the plotted lines."""
    fig = bench_report.plot_profiles(frame)
    ax = fig.axes[0]
    times = bench_stats.instance_times(frame).xs("k", level="kind")
    ratio = pd.DataFrame(bench_stats.ratios(times), index=times.index, columns=times.columns)
    lines = {line.get_label(): line for line in ax.get_lines()}
    missing = []
    for solver in ratio.columns:
        x, y = lines[solver].get_xdata(), lines[solver].get_ydata()
        for instance, r in ratio[solver].items():
            if np.isfinite(r):
                at = np.flatnonzero(x >= r)
                if not at.size or x[at[0]] > ax.get_xlim()[1] or y[at[0]] <= 0:
                    missing.append((solver, instance, r))
    import matplotlib.pyplot as plt

    plt.close(fig)
    return missing


STUDY = {"FAST": [1e-3, 2e-3, 1e-3], "SLOW": [3.85, 3.463, None], "MID": [0.5, 2e-3, 0.1]}


def test_the_profile_axis_covers_every_solved_ratio():
    frame = _frame(STUDY)
    assert unplotted(frame) == []
    assert bench_stats.profile_taus(bench_stats.instance_times(frame))[-1] == 1e4  # 3,850 < 10⁴


def test_the_axis_check_catches_a_profile_cut_at_a_thousand(monkeypatch):
    monkeypatch.setattr(bench_report, "profile_taus", lambda times: bench_stats.TAUS)  # the old fixed axis
    missing = unplotted(_frame(STUDY))
    assert sorted((s, round(r)) for s, _, r in missing) == [("SLOW", 1732), ("SLOW", 3850)]


def test_a_signal_between_logging_a_pair_and_counting_it_leaves_the_count_the_logs(tmp_path, monkeypatch):
    """An interruption that comes after a pair's rows reach results.jsonl but before the study
    counts them: the partial summary counts what the log holds (it had said 0 of 14 solves with 5
    logged, a race a SIGTERM under load hit)."""
    from fsopt.tools import bench

    def interrupted(self, rows):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench.Study, "_log", interrupted)
    out = tmp_path / "study"
    with pytest.raises(KeyboardInterrupt):
        bench.run(out=str(out), quick=True, problem_names=["spiral"], solvers=["GRADIENT"], repeat=2,
                  progress=False, n_jobs=1)
    logged = len((out / "results.jsonl").read_text().splitlines())
    assert logged > 0 and (out / "summary.md").read_text().startswith(f"**partial: {logged} of 14 solves**")
