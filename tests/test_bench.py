"""fsopt bench: the tidy table, repetitions, schedules, statuses, skipped pairs, errors, resuming,
timeouts, a dask cluster."""
import json
import numpy as np
import pandas as pd
import pytest

from fsopt.tools import bench
from fsopt.tools.cli import main
from fsopt.core.status import STATUSES

SOLVERS = ["GRADIENT", "CLARABEL", "scs-tight", "HIGHS", "MOSEK"]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    frame = bench.run(out=out, quick=True, problem_names=["spiral"], solvers=SOLVERS, progress=False,
                      repeat=2)
    return out, frame


def test_one_tidy_row_per_solve_and_repetition(study):
    out, frame = study
    assert list(frame.columns) == bench.COLUMNS and set(frame["status"]) <= STATUSES
    default = frame[(frame["budget"] == "default") & (frame["status"] != "skipped")]
    # GRADIENT, CLARABEL, scs-tight and the reference clarabel-tight, 2 sizes, 2 repetitions each
    assert len(default) == 4 * 2 * 2
    assert set(default["solver"]) == {"GRADIENT", "CLARABEL", "scs-tight", "clarabel-tight"}
    assert (default.groupby(["solver", "size"])["repetition"].apply(sorted) == pd.Series([[0, 1]] * 8,
            index=default.groupby(["solver", "size"]).size().index)).all()
    assert default["solved"].all() and default["error_to_reference"].max() < 1e-6
    assert (default["certificate"] < 1e-4).all() and (default["peak_memory"] > 0).all()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), frame, check_dtype=False)


def test_every_skipped_pair_has_a_row_with_its_reason(study):
    _, frame = study
    skipped = frame[frame["status"] == "skipped"].set_index(["solver", "size"])["reason"]
    assert "cannot solve garrote_logistic (needs EXP cones" in skipped[("HIGHS", 20)]
    assert skipped[("MOSEK", 100)].startswith("not available: python package 'mosek'")
    assert set(skipped.index.get_level_values("size")) == {20, 100}


def test_schedule_rows_keep_time_error_and_certificate(study):
    _, frame = study
    curve = frame[(frame["solver"] == "GRADIENT") & (frame["budget"] == "tol") & (frame["size"] == 100)]
    assert sorted(curve["tol"]) == [1e-6, 1e-4, 1e-2] and (curve["repetition"] == 0).all()
    assert curve[["time", "error_to_reference", "certificate"]].notna().all().all()
    by_tol = curve.set_index("tol")
    # looser tolerance: larger certificate residual and error, and never certified as solved at 1e-2
    assert by_tol.loc[1e-2, "certificate"] > by_tol.loc[1e-6, "certificate"]
    assert by_tol.loc[1e-2, "error_to_reference"] > by_tol.loc[1e-6, "error_to_reference"]
    assert by_tol.loc[1e-2, "status"] == "rejected_certificate" and not by_tol.loc[1e-2, "solved"]
    # a profile that fixes its own tolerance (scs-tight, clarabel-tight) is not scheduled
    assert set(frame.loc[frame["budget"] == "tol", "solver"]) == {"GRADIENT", "CLARABEL"}


def test_a_solve_whose_certificate_fails_is_rejected_not_solved():
    cell = bench.Cell("spiral", "garrote_logistic", 20, "GRADIENT", 1, (("max_iter", 2),))
    default, short = bench._solve_cell(cell)
    assert default["status"] == "optimal" and default["solved"]
    assert short["status"] in {"user_limit", "rejected_certificate"} and not short["solved"]
    assert short["certificate"] > 1e-3 and np.isfinite(short["objective"])


def test_finished_cells_are_not_rerun(study):
    out, frame = study
    lines = (out / "results.jsonl").read_text().splitlines()
    again = bench.run(out=out, quick=True, problem_names=["spiral"], solvers=SOLVERS, progress=False,
                      repeat=2)
    assert (out / "results.jsonl").read_text().splitlines() == lines
    assert np.allclose(again["objective"], frame["objective"], equal_nan=True)


def test_timeout_is_recorded_and_the_rest_of_the_schedule_is_skipped():
    cell = bench.Cell("spiral", "garrote_logistic", 100, "scs-tight", 2, (("tol", 1e-3),))
    first, second, point = bench.run_cell(cell, timeout=0.01)
    assert first["status"] == "timeout" and first["time"] == 0.01 and not first["solved"]
    assert "the untimed warm-up solve" in first["reason"]  # the warm-up runs under the same limit
    assert [second["repetition"], point["budget"]] == [1, "tol"]
    assert {second["status"], point["status"]} == {"skipped"} and "timeout" in point["reason"]


def _cli(capsys, *args):
    code = main(["bench", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--solver", "FOO", "GRADIENT"], "unknown solver 'FOO'; valid: backends "),
    (["--timeout", "-1"], "timeout must be a positive number of seconds; got -1.0"),
    (["--repeat", "0"], "repeat must be an integer >= 1"),
    (["--out", "/proc/fsopt-bench"], "--out /proc/fsopt-bench: the directory is not writable"),
])
def test_cli_rejects_bad_arguments_before_any_work(args, message, tmp_path, capsys):
    if "--out" not in args:
        args = [*args, "--out", str(tmp_path / "out")]
    code, err = _cli(capsys, "--quick", "--problem", "spiral", *args)
    assert code == 2 and message in err
    assert not (tmp_path / "out").exists()


def test_cli_rejects_an_out_path_under_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    code, err = _cli(capsys, "--quick", "--out", str(tmp_path / "file" / "sub"))
    assert code == 2 and f"{tmp_path / 'file'} exists and is not a directory" in err


def test_a_corrupt_results_file_is_named(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"problem": "spiral"}\nnot json\n')
    with pytest.raises(ValueError, match=r"results file .*results.jsonl, line 1"):
        bench.run(out=tmp_path, quick=True, problem_names=["spiral"], solvers=["GRADIENT"], progress=False)


def test_study_runs_on_a_local_dask_cluster_and_closes_it_on_failure(tmp_path, monkeypatch):
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    from fsopt.core import progress

    before = dask.config.get("distributed.worker.daemon")

    def fail_after_the_last_cell(self, *args):
        raise RuntimeError("planted failure while the cluster is up")

    monkeypatch.setattr(progress.Progress, "close", fail_after_the_last_cell)  # after the last cell
    with pytest.raises(RuntimeError, match="planted"):
        bench.run(out=tmp_path, quick=True, problem_names=["spiral"], solvers=["GRADIENT"],
                  dask="local", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    # 2 sizes x (GRADIENT: default + 3 tolerances; the reference clarabel-tight), on the cluster
    assert len(rows) == 2 * (4 + 1)
    assert all(r["solved"] for r in rows if r["budget"] == "default")
    with pytest.raises(ValueError, match="No clients found"):
        distributed.default_client()  # the client (and its local cluster) were closed
    assert dask.config.get("distributed.worker.daemon") == before
