"""Breadth of `fsopt bench --quick` (issue 43): with the ``solvers`` extra installed, the quick
study's LPs (LFS's (8) and (9), here at its smallest quick size only) give certified rows from at
least 10 distinct cvxpy solvers, each with a claim-accuracy row; a tight profile marked
``quick = false`` and a backend with a ``slow_reason`` are skipped rows saying why.  Skipped, with
the reason, where fewer than 10 are installed."""
from pathlib import Path

import pandas as pd
import pytest

from fsopt.core import cvxpy_solvers, solvers
from fsopt.tools import bench, bench_claims

MIN_SOLVERS = 10


def _runnable():
    """The installed cvxpy solvers a quick study runs (not the ones it leaves out as slow)."""
    registry = solvers.backends()
    return [cls.name for cls in cvxpy_solvers.BACKENDS
            if not registry[cls.name].unavailable_reason() and not cls.slow_reason]


def test_quick_study_certifies_ten_cvxpy_solvers_each_with_a_claim_row(tmp_path, monkeypatch):
    names = _runnable()
    if len(names) < MIN_SOLVERS:
        pytest.skip(f"only {len(names)} cvxpy solvers are installed ({', '.join(names)}); "
                    f"pip install -e \".[solvers]\" installs {len(cvxpy_solvers.BACKENDS)}")
    shipped = Path(__file__).resolve().parents[1] / "problems" / "lfs_synthetic.toml"
    (tmp_path / "problems").mkdir()
    (tmp_path / "problems" / "lfs_breadth.toml").write_text(  # the quick study's first size only
        shipped.read_text().replace("quick_sizes = [50, 200]", "quick_sizes = [50]"))
    (tmp_path / "solvers").mkdir()
    shipped_profile = shipped.parents[1] / "solvers" / "pdlp-tight.toml"
    (tmp_path / "solvers" / "pdlp-tight-copy.toml").write_text(shipped_profile.read_text())
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(tmp_path / "problems"))
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path / "solvers"))
    frame = bench.run(out=tmp_path / "out", quick=True, problem_names=["lfs_breadth"], progress=False,
                      solvers=names + ["pdlp-tight-copy", "MPAX"])
    certified = set(frame.loc[frame["solved"], "solver"]) & set(names)
    assert len(certified) >= MIN_SOLVERS, sorted(certified)
    claims = bench_claims.claim_table(frame)
    for name in certified:
        rows = claims[(claims["solver"] == name) & (claims["budget"] == "default")]
        assert len(rows) and (rows["confirmed"] > 0).any(), name
    skipped = frame[frame["status"] == "skipped"].groupby("solver")["reason"].first()
    assert "quick = false" in skipped["pdlp-tight-copy"] and "jit" in skipped["MPAX"]
    assert len(pd.read_parquet(tmp_path / "out" / "results.parquet")) == len(frame)
    if "SCIP" in names:  # tol = 1e-2 is outside SCIP's feastol: a skipped point, not a solver error
        scip = frame[frame["solver"] == "SCIP"]
        beyond = scip[scip["tol"] > 1e-3]
        assert len(beyond) and (beyond["status"] == "skipped").all()
        assert beyond["reason"].str.contains(r"SCIP takes tol in \[1e-17, 0.001\]").all()
        assert not (scip["status"] == "solver_error").any(), scip[["tol", "status", "reason"]]
