"""NMMKL's native MKL-dual backend (MKLFAST) against Clarabel, and the bench hook."""
import numpy as np
import pytest

from fsopt.nmmkl import NMMKL, MKLDual
from fsopt.nmmkl.checks import random_problem


@pytest.mark.parametrize("N,d,m", [(60, 600, 5), (40, 12, 6), (50, 300, 1)])
def test_mklfast_matches_clarabel_with_certified_gap(N, d, m):
    X, y = random_problem(7 + d, N, d)
    fast = NMMKL(m, C=0.5, solver="MKLFAST").fit(X, y)
    ref = NMMKL(m, C=0.5, solver="CLARABEL", solver_options={"tol": 1e-10}).fit(X, y)
    rec, rec_ref = fast.records_[0], ref.records_[0]
    assert rec.solver == "MKLFAST" and rec.status == "optimal" and rec.certified
    assert abs(rec.certificate["duality_gap"]) <= 1e-6 * max(1.0, abs(rec.objective))
    # weak duality: the conic optimum lies between fast's certified dual and primal values
    assert rec.objective - 1e-9 <= rec_ref.objective <= rec.objective + rec.certificate["duality_gap"] + 1e-7
    np.testing.assert_allclose(fast.alpha_, ref.alpha_, atol=1e-5)
    np.testing.assert_array_equal(fast.support_, ref.support_)
    assert fast.p_cone_.sum() == pytest.approx(m, abs=1e-8)


def test_mklfast_working_set_stays_small_and_satisfies_the_stopping_rule():
    X, y = random_problem(3, 50, 2000)
    q = MKLDual(X, y.astype(float), m=4, C=0.3)
    rec = q.solve("MKLFAST")
    W = rec.solution["working_set"]
    tau_i, _ = q.scores(rec.solution["alpha"])
    outside = np.setdiff1d(np.arange(2000), W)
    assert W.size < 2000 / 4
    assert tau_i[outside].max() <= np.sort(tau_i[W])[::-1][3]  # (*) of fsopt/nmmkl/fast.py


def test_bench_hook_builds_both_kinds_and_they_are_certified():
    from fsopt.nmmkl.bench import subproblems
    from fsopt.tools.problems import get_problem

    problem = get_problem("nmmkl_scale")
    kinds = subproblems(problem, *problem.load(n_irrelevant=20))
    assert set(kinds) == {"nmmkl_qcqp", "nmmkl_lp_recovery"}
    qcqp = kinds["nmmkl_qcqp"].solve("CLARABEL")
    lp = kinds["nmmkl_lp_recovery"]().solve("HIGHS")  # built lazily: it needs a reference dual
    assert qcqp.certified and lp.certified
    assert lp.solution["p"].sum() == pytest.approx(problem.params["n_features"], abs=1e-8)
    assert lp.solution["violation"] < 1e-4  # least violation of (16) left by the rounded bounds


def test_scale_benchmark_script_runs_small(tmp_path):
    from test_nmmkl_benchmarks import load

    df = load("nmmkl_scale").main(["--d", "300", "--out", str(tmp_path)])
    assert (tmp_path / "nmmkl_scale.csv").is_file()
    assert set(df.config) == {"default", "MKLFAST", "CLARABEL", "CLARABEL+HIGHS"}
    assert df["same_selection"].all() and df["certified"].all()
    assert df.set_index("config").loc["MKLFAST", "rel_gap_8"] <= 1e-6
