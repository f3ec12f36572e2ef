"""The garrote subproblem (7)/(8): every solver against independent NumPy/SciPy computation."""
import numpy as np
import pytest
from scipy.optimize import minimize

from fsopt import GarroteLogistic, SolverFailed
from fsopt.logo.gradient_path import gradient_path
from fsopt.logo.margins import expected_margins
from fsopt.datasets.spiral import make_spiral


@pytest.fixture(scope="module")
def Z():
    X, y = make_spiral(40, 8, random_state=3)
    return expected_margins(X, y, np.ones(X.shape[1]), 2.0)


def scipy_reference(Z, lam):
    """(7) by L-BFGS-B on w >= 0, with the analytic gradient: an independent solver."""
    sp = GarroteLogistic(lam, Z=Z)
    res = minimize(lambda w: sp.objective({"w": w}), np.ones(Z.shape[1]), jac=sp.gradient,
                   method="L-BFGS-B", bounds=[(0, None)] * Z.shape[1],
                   options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10000})
    return res.x, res.fun


@pytest.mark.parametrize("solver", ["GRADIENT", "LBFGSB", "CLARABEL", "ECOS", "scs-tight"])
def test_form7_matches_independent_reference(Z, solver):
    sp = GarroteLogistic(lam=1.0, Z=Z)
    record = sp.solve(solver)
    w_ref, f_ref = scipy_reference(Z, 1.0)
    assert record.status.startswith("optimal")  # optimal_inaccurate is used only if certified
    assert record.certified, record.certificate
    assert abs(record.objective - f_ref) <= 1e-6 * abs(f_ref)
    assert np.max(np.abs(record.solution["w"] - w_ref)) <= 1e-3 * w_ref.max()
    # the NumPy objective agrees with the value the solver reports
    if record.solver_objective is not None:
        assert abs(record.solver_objective - record.objective) <= 1e-5 * abs(f_ref)


@pytest.mark.parametrize("solver", ["CLARABEL", "ECOS"])
def test_form8_budget_constraint(Z, solver):
    beta = 0.5
    sp = GarroteLogistic(beta=beta, Z=Z)
    record = sp.solve(solver)
    w = record.solution["w"]
    assert record.certified and w.sum() <= beta * (1 + 1e-6)
    res = minimize(lambda v: sp.objective({"w": v}), np.full(Z.shape[1], beta / Z.shape[1]),
                   jac=sp.gradient, method="SLSQP", bounds=[(0, None)] * Z.shape[1],
                   constraints=[{"type": "ineq", "fun": lambda v: beta - v.sum(),
                                 "jac": lambda v: -np.ones_like(v)}],
                   options={"ftol": 1e-14, "maxiter": 1000})
    assert abs(record.objective - res.fun) <= 1e-6 * abs(res.fun)


def test_certificate_detects_a_wrong_point(Z):
    sp = GarroteLogistic(lam=1.0, Z=Z)
    w = sp.solve("CLARABEL").solution["w"]
    assert sp.certificate({"w": w})["residual"] < 1e-4
    assert sp.certificate({"w": w * 1.1 + 0.01})["residual"] > 1e-3


def test_gradient_path_from_any_nonzero_start_reaches_the_optimum(Z, rng):
    """Theorem 1: any v0 with no zero entry (signs included) gives the global minimizer."""
    sp = GarroteLogistic(lam=1.0, Z=Z)
    f_ref = scipy_reference(Z, 1.0)[1]
    for _ in range(3):
        v0 = rng.uniform(0.1, 3.0, Z.shape[1]) * rng.choice([-1, 1], Z.shape[1])
        v, status, _ = gradient_path(Z, 1.0, v0=v0, tol=1e-8)
        assert status == "optimal"
        assert abs(sp.objective({"w": v * v}) - f_ref) <= 1e-7 * f_ref


def test_failed_solve_names_solver_and_status(Z):
    sp = GarroteLogistic(lam=1.0, Z=Z)
    with pytest.raises(SolverFailed, match="ECOS.*max_iters|ECOS.*status") as info:
        sp.solve("ECOS", max_iter=1)
    assert info.value.solver == "ECOS" and info.value.status != "optimal"


def test_fallback_records_the_failed_attempt(Z, tmp_path, monkeypatch):
    (tmp_path / "ecos-2iter.toml").write_text('backend = "ECOS"\n[options]\nmax_iter = 2\n')
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    sp = GarroteLogistic(lam=1.0, Z=Z)
    record = sp.solve("ecos-2iter", fallback=["CLARABEL"])
    assert record.solver == "CLARABEL" and record.certified
    assert [a.solver for a in record.attempts] == ["ecos-2iter"]
    assert record.attempts[0].status != "optimal"


def test_inaccurate_scs_is_not_used_when_certificate_fails(Z):
    """SCS after 3 iterations fails the certificate: without refinement SolverFailed; with it,
    the result returned is the certified native polish, never SCS's point."""
    sp = GarroteLogistic(lam=1.0, Z=Z)
    with pytest.raises(SolverFailed) as info:
        sp.solve("SCS", max_iter=3, refine=False)
    assert "SCS" in str(info.value)
    record = sp.solve("SCS", max_iter=3)
    assert record.certified and record.stage == "polish" and not record.attempts[0].certified


def test_gradient_backend_refuses_budget_form(Z):
    with pytest.raises(ValueError, match="cannot solve garrote_logistic \\(8\\).*CLARABEL"):
        GarroteLogistic(beta=1.0, Z=Z).solve("gradient")


def test_lambda_is_a_parameter_no_rebuild(Z):
    sp = GarroteLogistic(lam=1.0, Z=Z)
    sp.solve("clarabel-tight")
    problem = sp.problem
    sp.lam = 2.0
    record = sp.solve("clarabel-tight")
    assert sp.problem is problem  # same cvxpy Problem, only the Parameter changed
    assert abs(record.objective - scipy_reference(Z, 2.0)[1]) <= 1e-6 * record.objective


def test_lbfgsb_warm_start_is_used_and_reaches_the_same_optimum(Z):
    sp = GarroteLogistic(lam=1.0, Z=Z)
    cold = sp.solve("LBFGSB", tol=1e-9)
    sp.warm_start = cold.solution["w"]
    warm = sp.solve("LBFGSB", tol=1e-9)
    assert warm.iterations < cold.iterations
    assert abs(warm.objective - cold.objective) <= 1e-9 * cold.objective


def test_lbfgsb_working_set_is_exact_on_the_full_problem():
    X, y = make_spiral(60, 2500, random_state=4)
    sp = GarroteLogistic(lam=1.0, Z=expected_margins(X, y, np.ones(X.shape[1]), 2.0))
    from fsopt.core.lbfgsb import LBFGSB

    sol_ws, status, _ = LBFGSB().solve(sp, working_set=True, tol=1e-8)
    ref = sp.solve("clarabel-tight")
    assert status.startswith("optimal") and sp.certificate(sol_ws)["residual"] <= 1e-6
    assert abs(sp.objective(sol_ws) - ref.objective) <= 1e-7 * ref.objective
    assert np.max(np.abs(sol_ws["w"] - ref.solution["w"])) <= 1e-4 * ref.solution["w"].max()


@pytest.mark.parametrize("n_features", [600, 1500])
def test_lbfgsb_default_between_500_and_2000_features_is_the_direct_solve(n_features):
    """From 500 features the default solve works on a KKT-checked working set (it used to solve
    1,000–2,000 directly, 10× slower inside a LOGO fit): same optimum as the direct solve and an
    independent conic solver."""
    from fsopt.core.lbfgsb import LBFGSB

    X, y = make_spiral(50, n_features - 2, turns=1.5, random_state=3)
    sp = GarroteLogistic(lam=1.0, Z=expected_margins(X, y, np.ones(X.shape[1]), 2.0))
    default, status, _ = LBFGSB().solve(sp)  # the tolerance a LOGO fit solves at
    direct, direct_status, _ = LBFGSB().solve(sp, working_set=False)
    ref = sp.solve("clarabel-tight")
    assert status == direct_status == "optimal"
    for sol in (default, direct):
        assert sp.certificate(sol)["residual"] <= 1e-6 * max(1.0, sol["w"].max())
        assert abs(sp.objective(sol) - ref.objective) <= 1e-7 * ref.objective
    assert np.max(np.abs(default["w"] - direct["w"])) <= 1e-4 * direct["w"].max()
