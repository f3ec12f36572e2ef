"""NMMKL (Xu et al. 2009): QCQP (8), LP recovery (15), rounding, and the paper's checks."""
import numpy as np
import pytest

from fsopt.datasets import standardize
from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
from fsopt.core.exceptions import SolverFailed
from fsopt.nmmkl import NMMKL, exhaustive_search, partition, select, svm_dual
from fsopt.nmmkl.checks import corollary2_residuals
from fsopt.nmmkl.protocol import fraction, tune


def random_problem(seed, N=40, d=8):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    y = np.where(X[:, 0] - X[:, 1] + 0.8 * rng.standard_normal(N) > 0, 1, -1)
    return X, y


def test_qcqp_and_lp_certified_and_multipliers_are_relaxed_p():
    X, y = random_problem(0)
    est = NMMKL(3, C=1.0, tau=1.0).fit(X, y)
    qcqp, lp = est.records_
    assert qcqp.subproblem == "nmmkl_qcqp" and qcqp.certified and qcqp.status == "optimal"
    assert lp.subproblem == "nmmkl_lp_recovery" and lp.certified
    assert est.support_.sum() == 3 and est.transform(X).shape == (40, 3)
    assert est.p_.sum() == pytest.approx(3, abs=1e-8) and est.p_cone_.sum() == pytest.approx(3, abs=1e-6)
    assert est.diagnostics_["p_agreement"] < 1e-4


def test_kkt_of_theorem1_and_corollary2():
    X, y = random_problem(1, N=60, d=10)
    est = NMMKL(4, C=0.5, tau=1.0).fit(X, y)
    dg = est.diagnostics_
    assert dg["kkt_complementarity"] < 1e-6 and dg["kkt_stationarity"] < 1e-2
    # Corollary 2 on the solver's cone multipliers (the LP's p has these values as bounds)
    res = corollary2_residuals(est)
    assert res["lambda_outside_interval"] < 1e-7 and res["unresolved_A_or_C"] == 0
    assert max(res["p_cone_on_A_minus_1"], res["p_cone_on_C"], res["p_cone_sum_minus_m"]) < 1e-4
    # eq. (14): the value of (8) equals 2αᵀe − ταᵀα − (sum of the m largest τ_i)
    top = np.sort(est.scores_)[::-1][:4].sum()
    value = 2 * est.alpha_.sum() - est.alpha_ @ est.alpha_ - top
    assert est.records_[0].objective == pytest.approx(value, rel=1e-6)


def test_corollary3_m_equals_d_is_the_svm_dual():
    X, y = random_problem(2, N=50, d=6)
    est = NMMKL(6, C=0.7, tau=0.5, solver_options={"tol": 1e-10}).fit(X, y)
    omega, alpha = svm_dual(X, y, C=0.7, tau=0.5)  # LIBSVM, no cvxpy
    assert est.records_[0].objective == pytest.approx(omega, rel=1e-6)
    np.testing.assert_allclose(est.alpha_, alpha, atol=1e-5)
    assert est.support_.all()


@pytest.mark.parametrize("seed,m,tau", [(3, 2, 10.0), (4, 3, 30.0), (5, 4, 15.0), (6, 5, 20.0)])
def test_theorem6_bound_against_exhaustive_search(seed, m, tau):
    """τ comparable to ‖z_j‖² ≈ N keeps the bound finite and below 10 (informative); ω by LIBSVM."""
    X, y = random_problem(seed, N=30, d=8)
    est = NMMKL(m, C=1.0, tau=tau, solver_options={"tol": 1e-9}).fit(X, y)
    best, subset, values = exhaustive_search(X, y, m, C=1.0, tau=tau)
    ratio = values[tuple(np.flatnonzero(est.support_))] / best
    assert est.bound_ < 10.0
    assert ratio <= est.bound_


def test_rounding_breaks_ties_by_p_then_index():
    tau = np.array([5.0, 2.0, 2.0, 2.0, 2.0, 0.5])
    part = partition(tau, 3)
    assert part.labels().tolist() == ["A", "B", "B", "B", "B", "C"]
    p = np.array([1.0, 0.2, 0.6, 0.6, 0.6, 0.0])
    assert np.flatnonzero(select(part, p, 3).support).tolist() == [0, 2, 3]


def test_solvers_agree_on_alpha_and_selection():
    X, y = random_problem(7, N=50, d=10)
    fits = {s: NMMKL(4, C=1.0, tau=1.0, solver=s, solver_options=o).fit(X, y)
            for s, o in [("CLARABEL", {}), ("ECOS", {}), ("SCS", {"tol": 1e-9, "max_iter": 100000})]}
    ref = fits["CLARABEL"]
    for est in fits.values():
        np.testing.assert_allclose(est.alpha_, ref.alpha_, atol=1e-4)
        np.testing.assert_array_equal(est.support_, ref.support_)
        np.testing.assert_array_equal(est.partition_, ref.partition_)


def test_toy_is_non_monotonic_with_cv_tuned_C():
    picked = {1: [], 2: []}
    for seed in range(3):
        X, y = make_nmmkl_toy(random_state=seed)
        Xtr = standardize(X[:400])
        for m in (1, 2):
            est, _ = tune(NMMKL(m), Xtr, y[:400], {"C": [0.01, 0.1, 1.0], "tau": [1.0]}, folds=3)
            picked[m].append(np.flatnonzero(est.fit(Xtr, y[:400]).support_))
    assert fraction(picked[1], [2]) >= 2 / 3  # {Z}
    assert fraction(picked[2], [0, 1]) >= 2 / 3  # {X, Y}


X_OK, Y_OK = random_problem(8, N=20, d=5)


@pytest.mark.parametrize("kwargs,X,y,err,match", [
    ({"n_features": 0}, X_OK, Y_OK, ValueError, "n_features"),
    ({"n_features": 6}, X_OK, Y_OK, ValueError, "exceeds"),
    ({"n_features": 2}, X_OK, np.arange(20) % 3, ValueError, "Only binary classification is supported"),
    ({"n_features": 2}, X_OK, np.ones(20), ValueError, "class"),
    ({"n_features": 2}, np.where(np.eye(20, 5) > 0, np.nan, X_OK), Y_OK, ValueError, "NaN"),
    ({"n_features": 2}, np.where(np.eye(20, 5) > 0, np.inf, X_OK), Y_OK, ValueError, "infinity"),
    ({"n_features": 2, "C": 0.0}, X_OK, Y_OK, ValueError, "'C'"),
    ({"n_features": 2, "C": -1.0}, X_OK, Y_OK, ValueError, "'C'"),
    ({"n_features": 2, "tau": -0.1}, X_OK, Y_OK, ValueError, "'tau'"),
    ({"n_features": 2, "solver": "HIGHS"}, X_OK, Y_OK, ValueError, "SOC"),
    ({"n_features": 2, "lp_solver": "nope"}, X_OK, Y_OK, ValueError, "unknown solver"),
    ({"n_features": 2.5}, X_OK, Y_OK, ValueError, "n_features"),
    ({"n_features": 2}, [["a"] * 5] * 20, Y_OK, TypeError, "numeric"),
    ({"n_features": 2}, X_OK + 1j, Y_OK, ValueError, "Complex data not supported"),
    ({"n_features": 2}, X_OK, None, ValueError, "requires y to be passed"),
    ({"n_features": 2}, X_OK, Y_OK + 0.1 * np.arange(20), ValueError, "Unknown label type: continuous"),
])
def test_bad_input_is_rejected_before_solving(kwargs, X, y, err, match):
    est = NMMKL(**kwargs)
    with pytest.raises(err, match=match):
        est.fit(X, y)
    assert not hasattr(est, "history_")


def test_failed_solve_reports_solver_and_status_and_does_not_round():
    est = NMMKL(2, solver="ECOS", fallback=["CLARABEL"], solver_options={"max_iter": 1})
    with pytest.raises(SolverFailed, match="ECOS.*user_limit") as info:
        est.fit(X_OK, Y_OK)
    assert info.value.solver == "CLARABEL" and info.value.status == "user_limit"
    assert [a.solver for a in info.value.attempts] == ["ECOS", "CLARABEL"]
    assert not hasattr(est, "support_")


def test_cli_runs_the_toy(capsys):
    from fsopt.tools.cli import main

    assert main(["run", "nmmkl", "--problem", "nmmkl_toy", "--m", "1", "--quiet", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "Theorem 6 bound" in out and "certificate" in out
    assert out.split("selected")[1].splitlines()[2].split()[0] == "Z"  # the table's first row
