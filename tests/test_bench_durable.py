"""fsopt bench outputs survive crashes and misuse: a torn log, a missing newline, a second run or
another study on the same --out, planted links, forged rows, a study where nothing is solved,
--retry, a growing --repeat, SIGKILL at random moments; run-time backends reach the workers; a
script without a __main__ guard gets a clear message."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from fsopt.logo.gradient_path import GradientPath
from fsopt.tools import bench
from fsopt.tools.study_folder import StudyFolder

QUICK = dict(quick=True, problem_names=["spiral"], progress=False)
REF = ["clarabel-tight"]  # spiral's reference: one solve per cell, 2 sizes


def _log(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _keys(rows):
    return Counter((r["problem"], r["kind"], r["size"], r["solver"], r["repetition"], r["budget"],
                    r["tol"] if r["budget"] == "tol" else r["max_iter"] if r["budget"] == "max_iter" else None)
                   for r in rows)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("finished")
    frame = bench.run(out=out, solvers=REF, **QUICK)
    return out, frame


def test_nothing_solved_still_gets_its_table_and_a_report_saying_so_then_retry_and_repeat(tmp_path):
    frame = bench.run(out=tmp_path, solvers=REF, timeout=0.001, **QUICK)
    assert set(frame["status"]) == {"timeout"} and not frame["solved"].any()
    assert len(pd.read_csv(tmp_path / "results.csv")) == 2
    assert "Nothing was solved in this study" in (tmp_path / "report.html").read_text()
    again = bench.run(out=tmp_path, solvers=REF, **QUICK)  # no --retry: the timeouts stand
    assert len(_log(tmp_path)) == 2 and not again["solved"].any()
    with pytest.raises(ValueError, match="'optimal' is not a status to retry"):
        bench.run(out=tmp_path, solvers=REF, retry="timeout,optimal", **QUICK)
    retried = bench.run(out=tmp_path, solvers=REF, retry="timeout,error", **QUICK)
    assert retried["solved"].all() and len(retried) == 2 and len(_log(tmp_path)) == 4
    grown = bench.run(out=tmp_path, solvers=REF, repeat=2, **QUICK)  # only repetition 1 runs
    log = _log(tmp_path)
    assert len(log) == 6 and [r["repetition"] for r in log[4:]] == [1, 1]
    assert len(grown) == 4 and grown["solved"].all()


def test_a_torn_last_line_is_dropped_with_a_notice_and_its_solve_runs_again(finished, tmp_path, capfd):
    out, frame = finished
    for name in ("results.jsonl", "study.json"):
        (tmp_path / name).write_bytes((out / name).read_bytes())
    data = (tmp_path / "results.jsonl").read_bytes()
    (tmp_path / "results.jsonl").write_bytes(data[:-40])  # a crash in the middle of the last row
    again = bench.run(out=tmp_path, solvers=REF, **QUICK)
    assert "dropped its last line, cut short by an interrupted run" in capfd.readouterr().err
    rows = _log(tmp_path)
    assert len(rows) == 2 and max(_keys(rows).values()) == 1 and again["solved"].all()
    np.testing.assert_allclose(again["objective"], frame["objective"], rtol=1e-6)


def test_a_complete_last_line_without_its_newline_is_kept_and_the_next_row_not_glued(finished, tmp_path):
    out, _ = finished
    for name in ("results.jsonl", "study.json"):
        (tmp_path / name).write_bytes((out / name).read_bytes())
    (tmp_path / "results.jsonl").write_bytes((out / "results.jsonl").read_bytes().rstrip(b"\n"))
    bench.run(out=tmp_path, solvers=REF, repeat=2, **QUICK)
    rows = _log(tmp_path)  # every line parses: nothing glued
    assert len(rows) == 4 and max(_keys(rows).values()) == 1


def test_a_second_run_on_the_same_out_is_refused_while_the_first_holds_it(tmp_path):
    with StudyFolder(tmp_path, {"study": "x"}, bench.check_row):
        with pytest.raises(ValueError, match=r"is in use by another run \(lock"):
            bench.run(out=tmp_path, solvers=REF, **QUICK)


def test_another_study_on_the_same_out_is_an_error_and_replaces_nothing(finished):
    out, _ = finished
    before = (out / "results.csv").read_bytes()
    with pytest.raises(ValueError, match=r"holds another study \(problems: \['spiral'\] there, "
                                         r"\['lfs_synthetic', 'spiral'\] now\)"):
        bench.run(out=out, solvers=REF, quick=True, problem_names=["spiral", "lfs_synthetic"], progress=False)
    assert (out / "results.csv").read_bytes() == before


def test_links_under_out_are_never_followed(finished, tmp_path):
    out, _ = finished
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    study = tmp_path / "study"
    study.mkdir()
    (study / "results.jsonl").symlink_to(outside)
    with pytest.raises(ValueError, match="results.jsonl is a symbolic link; fsopt does not follow links"):
        bench.run(out=study, solvers=REF, **QUICK)
    assert outside.read_text() == "keep me"
    (study / "results.jsonl").unlink()
    (study / "results.csv").symlink_to(outside)  # an output file: replaced, the target untouched
    bench.run(out=study, solvers=REF, **QUICK)
    assert outside.read_text() == "keep me" and not (study / "results.csv").is_symlink()


@pytest.mark.parametrize("change, message", [
    ({"solved": True, "status": "timeout"}, "solved=True contradicts status 'timeout'"),
    ({"status": "done"}, "unknown status 'done'|not a closed-set status|done"),
    ({"size": "20"}, "size must be an integer"),
    ({"certified": True, "certificate": None}, "a certified row needs a finite objective and certificate"),
])
def test_forged_rows_are_refused_naming_file_and_line(finished, tmp_path, change, message):
    out, _ = finished
    rows = _log(out)
    rows[1].update(change)
    (tmp_path / "study.json").write_bytes((out / "study.json").read_bytes())
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=rf"results file .*results.jsonl, line 2, .*({message})"):
        bench.run(out=tmp_path, solvers=REF, **QUICK)


class RunTimeGradient(GradientPath):
    """The gradient path under another name, registered only inside a test (a fresh worker
    process that imports fsopt does not know it)."""

    name = "RUNTIME_GRADIENT"


class Unpicklable(GradientPath):
    name = "UNPICKLABLE_GRADIENT"

    def __init__(self):
        self.hook = lambda: None  # a lambda cannot be pickled


def test_a_backend_registered_at_run_time_solves_in_the_workers(tmp_path, backend_registry):
    backend_registry.register("RUNTIME_GRADIENT", RunTimeGradient())
    frame = bench.run(out=tmp_path, solvers=["RUNTIME_GRADIENT"], **QUICK)
    mine = frame[(frame["solver"] == "RUNTIME_GRADIENT") & (frame["budget"] == "default")]
    assert len(mine) == 2 and mine["solved"].all() and mine["error_to_reference"].max() < 1e-6


def test_a_backend_that_cannot_be_sent_is_a_clear_error_before_any_work(tmp_path, backend_registry):
    backend_registry.register("UNPICKLABLE_GRADIENT", Unpicklable())
    with pytest.raises(ValueError, match="cannot send backend UNPICKLABLE_GRADIENT to its worker "
                                         "processes .*define it at the top level of an importable module"):
        bench.run(out=tmp_path, solvers=["UNPICKLABLE_GRADIENT"], **QUICK)
    assert not (tmp_path / "results.jsonl").exists()


SCRIPT = """
import sys
from fsopt.core.solvers import register_backend
from fsopt.logo.gradient_path import GradientPath
from fsopt.tools import bench


class ProjectedGradient(GradientPath):
    name = "SCRIPT_GRADIENT"


{guard}
register_backend(ProjectedGradient())
frame = bench.run(out=sys.argv[1], quick=True, problem_names=["spiral"], solvers=["SCRIPT_GRADIENT"],
                  progress=False)
mine = frame[(frame["solver"] == "SCRIPT_GRADIENT") & (frame["budget"] == "default")]
print("solved", int(mine["solved"].sum()), "of", len(mine))
"""


def _script(tmp_path, guard):
    body = SCRIPT.format(guard="if __name__ == '__main__':" if guard else "")
    if guard:  # the study (and the registration) under the guard
        head, tail = body.split("if __name__ == '__main__':\n")
        body = head + "if __name__ == '__main__':\n" + textwrap.indent(tail, "    ")
    path = tmp_path / ("guarded.py" if guard else "unguarded.py")
    path.write_text(body)
    return subprocess.run([sys.executable, str(path), str(tmp_path / path.stem)], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))


def test_a_script_registering_a_backend_under_its_main_guard_runs_it_in_bench(tmp_path):
    result = _script(tmp_path, guard=True)
    assert result.returncode == 0, result.stderr
    assert "solved 2 of 2" in result.stdout  # the default solve of both sizes, certified


def test_a_script_without_a_main_guard_gets_a_clear_message_before_any_work(tmp_path):
    result = _script(tmp_path, guard=False)
    assert result.returncode != 0
    assert "runs fsopt bench without an `if __name__ == \"__main__\":` guard" in result.stderr
    assert "process died" not in result.stderr and not (tmp_path / "unguarded").exists()


def test_killing_bench_at_random_moments_loses_no_row_and_logs_no_solve_twice(tmp_path):
    """SIGKILL the `fsopt bench` process at seeded random delays, then let it finish."""
    out = tmp_path / "study"
    args = [sys.executable, "-m", "fsopt.tools.cli", "bench", "--quick", "--problem", "spiral",
            "--solver", "GRADIENT", "--repeat", "2", "--out", str(out), "--quiet"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    kills = 0
    for delay in np.random.default_rng(0).uniform(2.0, 12.0, size=4):
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
    final = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
    assert final.returncode == 0, final.stderr
    rows = _log(out)
    keys = _keys(rows)
    # 2 sizes x (GRADIENT: 2 repetitions + 3 tolerances; clarabel-tight: 2 repetitions)
    assert len(keys) == 2 * (5 + 2) and max(keys.values()) == 1, keys
    frame = pd.read_csv(out / "results.csv")
    assert len(frame) == 14 and frame.loc[frame["budget"] == "default", "solved"].all()
    assert kills >= 1
