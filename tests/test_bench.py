"""fsopt bench: the tidy table, reference errors, timeouts, resuming, a dask cluster."""
import json

import numpy as np
import pandas as pd
import pytest

from fsopt import bench

SOLVERS = ["GRADIENT", "CLARABEL", "scs-tight"]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    frame = bench.run(out=out, quick=True, problem_names=["spiral"], solvers=SOLVERS, progress=False)
    return out, frame


def test_one_tidy_row_per_solve_with_all_columns(study):
    out, frame = study
    assert list(frame.columns) == bench.COLUMNS
    # 3 solvers + the reference profile, at each quick size
    assert len(frame) == 4 * 2 and set(frame["solver"]) == set(SOLVERS) | {"clarabel-tight"}
    assert frame["status"].str.startswith("optimal").all()  # optimal_inaccurate only if certified
    assert frame["error_to_reference"].max() < 1e-6  # all agree with the high-accuracy reference
    assert (frame["certificate"] < 1e-4).all() and (frame["peak_memory"] > 0).all()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), frame, check_dtype=False)
    assert (out / "time_vs_size.png").stat().st_size > 5000
    assert "| size |" in bench.summary(frame)


def test_finished_cells_are_not_rerun(study):
    out, frame = study
    lines = (out / "results.jsonl").read_text().splitlines()
    again = bench.run(out=out, quick=True, problem_names=["spiral"], solvers=SOLVERS, progress=False)
    assert (out / "results.jsonl").read_text().splitlines() == lines
    assert np.allclose(again["objective"], frame["objective"])


def test_timeout_is_recorded_and_the_study_goes_on(tmp_path):
    cell = bench.Cell("spiral", "garrote_logistic", 100, "scs-tight")
    row = bench.run_cell(cell, timeout=0.01)
    assert row["status"] == "timeout" and row["problem"] == "spiral"


def test_study_runs_on_a_local_dask_cluster(tmp_path):
    frame = bench.run(out=tmp_path, quick=True, problem_names=["spiral"], solvers=["GRADIENT"],
                      dask="local", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(frame) == 4 and frame["status"].str.startswith("optimal").all()
