"""The certificate policy of Subproblem.solve: a solve whose NumPy certificate fails is polished,
refined or falls back — or raises SolverFailed — and is never returned; statuses are a closed set;
solver options are checked before any solve; solver resolution is cached."""
import sys
from pathlib import Path

import numpy as np
import pytest

from fsopt import GarroteLogistic, SolverFailed
from fsopt.core import solvers as registry
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS, EpsilonConstraint
from fsopt.logo.margins import expected_margins
from fsopt.nmmkl import NMMKL
from fsopt.nmmkl.qcqp import MKLDual
from fsopt.core.solvers import NativeBackend, register_backend, resolve_solver
from fsopt.core.status import REJECTED_CERTIFICATE, STATUSES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from robustness_nmmkl import wpbc_like  # noqa: E402


@pytest.fixture(scope="module")
def Z():
    X, y = make_spiral(40, 8, random_state=3)
    return expected_margins(X, y, np.ones(X.shape[1]), 2.0)


def lp9(seed=0, M=40, alpha=4, beta=0.5):
    rng = np.random.default_rng(seed)
    sub = EpsilonConstraint(M, alpha)
    a, b = rng.gamma(2.0, size=M), rng.gamma(2.0, size=M)
    sub.set_data(a, b)
    sub.set_epsilon(beta * np.sort(b)[-alpha:].sum())
    return sub


class Perturbed(NativeBackend):
    """Solves the LP (9) with HiGHS and moves the solution by ``10 * tol``: a planted
    inaccurate solver that a tighter tolerance repairs (``shift`` fixed: nothing repairs it)."""

    package = "highspy"
    default_tol = 1e-7

    def __init__(self, name, shift=None):
        self.name, self.shift = name, shift

    def supports(self, subproblem):
        return subproblem.name == "lfs_epsilon_constraint"

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        rec = subproblem.solve("HIGHS", refine=False)
        sol = dict(rec.solution)
        sol["f"] = sol["f"] + (10 * (tol or self.default_tol) if self.shift is None else self.shift)
        return sol, "optimal", 1


register_backend(Perturbed("PERTURBED"))
register_backend(Perturbed("PERTURBED_FIXED", shift=1e-3))


def all_records(record_or_exc):
    return [*record_or_exc.attempts] + ([] if isinstance(record_or_exc, SolverFailed) else [record_or_exc])


def test_perturbed_solution_is_refined_at_a_tighter_tolerance():
    rec = lp9().solve("PERTURBED")
    assert rec.certified and rec.stage == "refine" and rec.solver == "PERTURBED"
    first = rec.attempts[0]
    assert first.status == REJECTED_CERTIFICATE and first.solver_status == "optimal"
    assert first.residual > first.certificate["bound"] and not first.certified
    assert rec.options != first.options  # the refinement ran with tol 100 times smaller


def test_unrepairable_solution_falls_back_then_raises():
    sub = lp9()
    rec = sub.solve("PERTURBED_FIXED", fallback=["HIGHS"])
    assert rec.solver == "HIGHS" and rec.certified and rec.stage == "solve"
    assert [(a.solver, a.stage, a.status) for a in rec.attempts] == [
        ("PERTURBED_FIXED", "solve", REJECTED_CERTIFICATE),
        ("PERTURBED_FIXED", "refine", REJECTED_CERTIFICATE)]
    with pytest.raises(SolverFailed, match=r"PERTURBED_FIXED ended with status 'rejected_certificate', "
                                           r"certificate residual [0-9.e-]+") as info:
        sub.solve("PERTURBED_FIXED")
    assert info.value.residual > 1e-4 and len(info.value.attempts) == 2


def test_planted_inaccurate_scs_is_polished_or_raises_never_returned_uncertified(Z):
    """SCS at eps 1e-2 and 3 iterations: its answer fails the KKT certificate; the garrote's
    native polish (L-BFGS-B from it) repairs it; without refinement the solve raises."""
    sp = GarroteLogistic(lam=1.0, Z=Z)
    with pytest.raises(SolverFailed) as info:
        sp.solve("SCS", tol=1e-2, max_iter=3, refine=False)
    assert info.value.status in (REJECTED_CERTIFICATE, "user_limit")
    rec = sp.solve("SCS", tol=1e-2, max_iter=3)
    assert rec.certified and rec.stage == "polish"
    assert rec.residual <= sp.certificate_tol * sp.certificate_scale(rec.solution)
    assert rec.attempts[0].solver == "SCS" and not rec.attempts[0].certified


def test_budget_form_is_polished_by_proximal_gradient_or_raises(Z):
    """Form (8) declares its parts (logistic loss, ℓ1 ball): its polish is proximal gradient with
    the projection onto the ball; without refinement the planted failure raises."""
    sp = GarroteLogistic(beta=2.0, Z=Z)
    with pytest.raises(SolverFailed, match="SCS") as info:
        sp.solve("SCS", tol=1e-2, max_iter=3, refine=False)
    assert all(not a.certified for a in info.value.attempts)
    rec = sp.solve("SCS", tol=1e-2, max_iter=3)
    assert rec.certified and rec.stage == "polish" and rec.solution["w"].sum() <= 2.0 + 1e-9
    ref = sp.solve("clarabel-tight")
    assert abs(rec.objective - ref.objective) <= 1e-6 * ref.objective


@pytest.mark.parametrize("seed", [2, 32])
def test_nmmkl_qcqp_rejected_at_clarabel_defaults_is_polished_by_the_lp(seed):
    """Raw Wpbc-like data (seeds measured to fail): Clarabel's cone multipliers leave a duality
    gap over 1e-4; the LP for p (best_p) removes it.  Without refinement: SolverFailed."""
    X, y = wpbc_like(seed)
    q = MKLDual(X, np.where(y == 1, 1.0, -1.0), 10)
    with pytest.raises(SolverFailed, match="'rejected_certificate', certificate residual"):
        q.solve("CLARABEL", refine=False)
    rec = q.solve("CLARABEL")
    assert rec.certified and rec.stage == "polish" and rec.residual < 1e-5
    assert rec.attempts[0].status == REJECTED_CERTIFICATE and rec.attempts[0].residual > 1e-4


def test_every_status_belongs_to_the_closed_set(Z):
    sp = GarroteLogistic(lam=1.0, Z=Z)
    seen = []
    for solver, opts in [("ECOS", {"max_iter": 1}), ("SCS", {"max_iter": 2}), ("GRADIENT", {}),
                         ("LBFGSB", {"max_iter": 1})]:
        try:
            seen += all_records(sp.solve(solver, **opts))
        except SolverFailed as exc:
            seen += all_records(exc)
            assert exc.status in STATUSES
    assert seen and all(r.status in STATUSES for r in seen)
    assert not any(r.status.startswith("optimal") and not r.certified for r in seen)


# --- options ----------------------------------------------------------------------------------
@pytest.mark.parametrize("solver, options, match", [
    ("CLARABEL", {"max_iters": 5}, "'max_iters' is not accepted by solver CLARABEL.*accepted:.*max_iter"),
    ("ECOS", {"max_iter_": 5}, "'max_iter_' is not accepted by solver ECOS.*max_iters"),
    ("SCS", {"eps_absolute": 1e-3}, "'eps_absolute'.*SCS.*eps_abs"),
    ("HIGHS", {"highs_options": {"presolv": "off"}}, "'presolv' is not a HiGHS option"),
    ("HIGHS", {"presolv": "off"}, "'presolv' is not accepted by solver HIGHS"),
    ("GRADIENT", {"memory": 3}, "'memory' is not accepted by solver GRADIENT.*v0"),
    ("CLARABEL", {"tol": -1e-8}, "tol must be a positive finite number"),
    ("CLARABEL", {"max_iter": -3}, "max_iter must be a positive integer"),
    ("CLARABEL", {"max_iter": 2.5}, "max_iter must be a positive integer"),
])
def test_bad_options_are_rejected_before_any_solve(Z, solver, options, match):
    sp = lp9() if solver == "HIGHS" else GarroteLogistic(lam=1.0, Z=Z)
    sp._build = None  # any solve would fail on this: the error must come first
    with pytest.raises(ValueError, match=match):
        sp.solve(solver, **options)


def test_highs_advanced_option_is_accepted():
    assert resolve_solver("HIGHS", solver_options={"presolve": "off"}).solver_options == {"presolve": "off"}


def test_lfs_option_for_the_other_solver_is_a_clear_error():
    X = np.random.default_rng(0).normal(size=(20, 4))
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="eps_solver='TOPK'.*'presolve' is not accepted by solver TOPK"):
        LFS(alpha=2, solver="HIGHSPY", solver_options={"presolve": "off"}).fit(X, y)
    with pytest.raises(ValueError, match="LFS solver='HIGHSPY'.*'presolv' is not a HiGHS option"):
        LFS(alpha=2, solver="HIGHSPY", eps_solver="HIGHSPY", solver_options={"presolv": "off"}).fit(X, y)
    fit = LFS(alpha=2, tau=1, n_beta=2, n_rounding=5, solver="HIGHSPY", eps_solver="HIGHSPY", random_state=0,
              solver_options={"presolve": "off"}).fit(X, y)
    assert fit.lp_check_["all_certified"]


def test_nmmkl_negative_tolerance_is_rejected_before_solving():
    X = np.random.default_rng(0).normal(size=(20, 4))
    est = NMMKL(2, solver_options={"tol": -1.0})
    with pytest.raises(ValueError, match="tol must be a positive"):
        est.fit(X, np.repeat([0, 1], 10))
    assert not hasattr(est, "history_")


# --- resolution cache -----------------------------------------------------------------------
def test_profiles_parsed_once_and_reread_when_a_file_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    prof = tmp_path / "mine.toml"
    prof.write_text('backend = "CLARABEL"\n[options]\nmax_iter = 7\n')
    calls = []
    real = registry._read_profiles
    monkeypatch.setattr(registry, "_read_profiles", lambda paths: calls.append(1) or real(paths))
    for _ in range(5):
        assert resolve_solver("mine").solver_options == {"max_iter": 7}
    assert len(calls) == 1
    prof.write_text('backend = "CLARABEL"\n[options]\nmax_iter = 9\n')
    import os
    os.utime(prof, ns=(prof.stat().st_atime_ns, prof.stat().st_mtime_ns + 10**9))
    assert resolve_solver("mine").solver_options == {"max_iter": 9} and len(calls) == 2


def test_corrupt_profile_names_the_file(tmp_path, monkeypatch):
    (tmp_path / "broken.toml").write_text('backend = "CLARABEL\n')
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    with pytest.raises(ValueError, match="broken.toml is not valid TOML"):
        resolve_solver("broken")


def test_mosek_licence_probed_at_most_once(monkeypatch):
    """Counted where the probe happens (a MOSEK solve through cvxpy), not by the cache's own count."""
    import cvxpy as cp

    from fsopt.core import cvxpy_solvers

    cvxpy_solvers._licence_problem.cache_clear()
    solves, real = [], cp.Problem.solve
    monkeypatch.setattr(cp.Problem, "solve", lambda self, *a, **k: solves.append(k.get("solver")) or real(self, *a, **k))
    mosek = registry.backends()["MOSEK"]
    monkeypatch.setattr(type(mosek), "installed", lambda self: True)  # probed even where MOSEK is absent
    monkeypatch.setattr(cvxpy_solvers.CvxpyBackend, "unavailable_reason", lambda self: None)
    for _ in range(4):
        assert mosek.unavailable_reason() == mosek.unavailable_reason()
    assert solves.count("MOSEK") == 1
