"""`fsopt experiment --out`: checked before work, locked, one durable row per split, resumable."""
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fsopt.tools.cli import main
from fsopt.tools.experiments import nmmkl_uci, run_experiment

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def no_protocol(monkeypatch):
    """Fail the test if the protocol starts planning (the --out check must come first)."""
    def refuse(*args, **kwargs):
        raise AssertionError("the protocol ran before --out was checked")

    monkeypatch.setattr(nmmkl_uci, "plan", refuse)


def test_out_that_is_a_file_or_unwritable_is_refused_before_the_protocol_runs(tmp_path, no_protocol, capsys):
    file = tmp_path / "results.txt"
    file.write_text("x")
    assert main(["experiment", "nmmkl-uci", "--data", "wdbc", "--quiet", "--out", str(file)]) == 2
    assert f"--out {file}: is a file, not a directory" in capsys.readouterr().err
    with pytest.raises(ValueError, match="cannot write there"):
        run_experiment("nmmkl-uci", "wdbc", file / "sub", progress=False)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(ValueError, match="symbolic link"):
        run_experiment("nmmkl-uci", "wdbc", link, progress=False)


def test_a_locked_out_or_another_study_there_is_refused(data_dir, tmp_path):
    sonar = data_dir / "sonar.csv.gz"
    run_experiment("nmmkl-uci", sonar, tmp_path, quick=True, n_splits=1, progress=False)
    with pytest.raises(ValueError, match=r"holds another study \(n_splits: 1 there, 2 now; seed: 0 there, 1 now\)"):
        run_experiment("nmmkl-uci", sonar, tmp_path, quick=True, n_splits=2, random_state=1, progress=False)
    with pytest.raises(ValueError,
                       match=r"holds another study \(data: '[0-9a-f]{64}' there, '[0-9a-f]{64}' now; dataset: "):
        run_experiment("nmmkl-uci", data_dir / "ionosphere.csv.gz", tmp_path, quick=True, n_splits=1,
                       progress=False)
    with open(tmp_path / ".lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(ValueError, match=r"is in use by another run \(lock"):
            run_experiment("nmmkl-uci", sonar, tmp_path, quick=True, n_splits=1, progress=False)


def test_torn_last_line_is_dropped_and_forged_rows_are_refused(data_dir, tmp_path):
    sonar = data_dir / "sonar.csv.gz"
    whole = run_experiment("nmmkl-uci", sonar, tmp_path / "whole", quick=True, progress=False)
    log = tmp_path / "whole" / "splits.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    assert len(lines) == 2 and all(json.loads(line)["split"] == i for i, line in enumerate(lines))
    log.write_bytes(lines[0] + lines[1][: len(lines[1]) // 2])  # killed in the middle of the second write
    again = run_experiment("nmmkl-uci", sonar, tmp_path / "whole", quick=True, progress=False)
    text = (tmp_path / "whole" / "results.md").read_text()
    assert "dropped its last line, cut short by an interrupted run" in text and "Resumed: 1 of 2 splits" in text
    pd.testing.assert_frame_equal(whole.drop(columns="fit_time"), again.drop(columns="fit_time"))
    assert log.read_bytes().startswith(lines[0]) and len(log.read_bytes().splitlines()) == 2
    forged = json.loads(lines[0])
    forged["record"]["results"]["NMMKL|10"][0] = 0.0  # a better error, without the matching checksum
    log.write_text(json.dumps(forged) + "\n")
    with pytest.raises(ValueError, match=r"splits.jsonl, line 1, is not a valid row .*checksum does not match"):
        run_experiment("nmmkl-uci", sonar, tmp_path / "whole", quick=True, progress=False)


def test_skipped_methods_get_a_row_with_the_reason(data_dir, tmp_path):
    frame = run_experiment("nmmkl-uci", data_dir / "thyroid.csv.gz", tmp_path, quick=True, n_splits=1,
                           progress=False).set_index("method")
    assert frame.loc["NMMKL (m = 10)", "note"] == "skipped: m = 10 ≥ d = 5 features: nothing to select"
    assert frame.loc["NMMKL (m = 10)", "n_splits"] == 0
    assert frame.loc["linear SVM, all features", "n_splits"] == 1
    assert "skipped: m = 10 ≥ d = 5" in (tmp_path / "results.md").read_text()


def test_killed_at_random_moments_the_study_finishes_with_every_split_once(data_dir, tmp_path):
    args = ["experiment", "nmmkl-uci", "--data", str(data_dir / "sonar.csv.gz"), "--quick", "--splits", "4",
            "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "fsopt.tools.cli", *args]
    reference = tmp_path / "reference"
    start = time.perf_counter()
    assert subprocess.run([*command, "--out", str(reference)], env=env, capture_output=True).returncode == 0
    duration = time.perf_counter() - start  # kill moments scale with it: the machine may be idle or loaded
    out = tmp_path / "killed"
    command += ["--out", str(out)]
    rng = np.random.default_rng(7)
    kills, before = 0, b""
    for attempt in range(8):
        child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.15, 0.85) * duration)
        if child.poll() is not None:
            break
        child.send_signal(signal.SIGKILL if attempt % 2 else signal.SIGTERM)
        child.wait()
        kills += 1
        log = out / "splits.jsonl"
        now = log.read_bytes() if log.exists() else b""
        complete = now[: now.rfind(b"\n") + 1]
        assert complete.startswith(before)  # finished rows are never rewritten
        before = complete
    assert kills >= 1
    assert subprocess.run(command, env=env, capture_output=True).returncode == 0
    rows = [json.loads(line) for line in (out / "splits.jsonl").read_text().splitlines()]
    assert sorted(r["split"] for r in rows) == [0, 1, 2, 3]  # none lost, none twice
    got, want = pd.read_csv(out / "results.csv"), pd.read_csv(reference / "results.csv")
    pd.testing.assert_frame_equal(got.drop(columns="fit_time"), want.drop(columns="fit_time"))
