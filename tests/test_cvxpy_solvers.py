"""The solvers fsopt reaches through cvxpy (fsopt.core.cvxpy_solvers): each one's status map
covers what cvxpy's interface can return and a status outside it is a failed solve naming it;
``Subproblem.attempt`` is one solve that never raises; the table of docs/solvers.md matches the
classes; each installed solver of the ``solvers`` extra gives certified answers on the methods'
LPs (and its cone classes are what cvxpy accepts); a solver whose options persist between cvxpy
calls gets its default tolerance on every solve."""
import re
from pathlib import Path

import numpy as np
import pytest

from fsopt import GarroteLogistic, SolverFailed
from fsopt.core import cvxpy_solvers, solvers
from fsopt.core import status as st
from fsopt.lfs.lp import EpsilonConstraint, EpsilonMax, epsilon_max_closed_form

DOCS = Path(__file__).resolve().parents[1] / "docs" / "solvers.md"
OPEN_SOURCE = [cls.name for cls in cvxpy_solvers.BACKENDS if not issubclass(cls, cvxpy_solvers._Licensed)]


def _interface_statuses(name):
    """The statuses cvxpy's interfaces (conic and QP) for ``name`` declare in a STATUS_MAP dict."""
    from cvxpy.reductions.solvers import defines

    found = set()
    for table in (defines.SOLVER_MAP_CONIC, defines.SOLVER_MAP_QP):
        status_map = getattr(table.get(name), "STATUS_MAP", None)
        if isinstance(status_map, dict):
            found |= set(status_map.values())
    return found


@pytest.mark.parametrize("cls", cvxpy_solvers.BACKENDS, ids=lambda cls: cls.name)
def test_status_map_covers_what_cvxpys_interface_returns(cls):
    declared = _interface_statuses(cls.name)
    if not declared:
        pytest.skip(f"cvxpy's interface for {cls.name} computes its status in code (no STATUS_MAP "
                    f"dict); its map was read from that code")
    assert declared <= set(cls.status_map), sorted(declared - set(cls.status_map))
    assert set(cls.status_map.values()) <= st.STATUSES


def _lp9(n=12, alpha=3, beta=0.5, seed=4):
    """LP (9) of LFS with random costs a, b >= 0 and epsilon at ``beta`` times epsilon_max."""
    rng = np.random.default_rng(seed)
    lp = EpsilonConstraint(n, alpha)
    lp.set_data(rng.uniform(0, 1, n), rng.uniform(0, 1, n))
    lp.set_epsilon(beta * epsilon_max_closed_form(lp.b, alpha))
    return lp


class ClarabelWithoutOptimal(cvxpy_solvers.Clarabel):
    """A planted map that forgot "optimal"."""

    name = "CLARABEL_NO_OPTIMAL"
    status_map = {k: v for k, v in cvxpy_solvers.Clarabel.status_map.items() if k != st.OPTIMAL}

    def installed(self):
        return True

    def translate(self, **options):  # the solve goes to cvxpy's CLARABEL
        return super().translate(**options)


def test_a_status_outside_the_map_is_a_failed_solve_naming_it(monkeypatch, backend_registry):
    import cvxpy as cp

    planted = ClarabelWithoutOptimal()
    backend_registry.register(planted.name, planted)
    real = cp.Problem.solve
    monkeypatch.setattr(cp.Problem, "solve", lambda self, *a, solver=None, **k: real(
        self, *a, solver="CLARABEL" if solver == planted.name else solver, **k))
    record = _lp9().attempt(planted.name)
    assert record.status == st.SOLVER_ERROR and not record.claim
    assert "the status 'optimal', which is not one of CLARABEL_NO_OPTIMAL's statuses" in record.message
    with pytest.raises(SolverFailed, match="solver_error"):
        _lp9().solve(planted.name, refine=False)
    assert _lp9().attempt("CLARABEL").solved  # the real map takes the same answer


def _garrote():
    return GarroteLogistic(lam=1.0, Z=np.random.default_rng(0).normal(size=(30, 5)))


def test_attempt_is_one_solve_without_refinement_and_never_raises():
    attempt = _garrote().attempt("CLARABEL")
    with pytest.raises(SolverFailed) as failed:  # the same single solve, through solve()
        _garrote().solve("CLARABEL", refine=False)
    alone = failed.value.attempts[-1]
    assert (attempt.status, attempt.claim, attempt.claim_confirmed) == (st.REJECTED_CERTIFICATE, st.OPTIMAL, False)
    assert attempt.residual == pytest.approx(alone.residual, rel=1e-6) and attempt.residual > attempt.certificate["bound"]
    assert _garrote().solve("CLARABEL").certified  # solve() refines what attempt() reports as is
    garrote = _garrote()
    unknown = garrote.attempt("NO_SUCH_SOLVER")
    assert unknown.status == st.ERROR and "unknown solver 'NO_SUCH_SOLVER'" in unknown.message
    wrong_cone = garrote.attempt("HIGHS")
    assert wrong_cone.status == st.ERROR and "cannot solve" in wrong_cone.message


def test_attempt_certifies_a_solution_that_claims_nothing():
    record = _garrote().attempt("GRADIENT", max_iter=2)
    assert (record.status, record.solver_status, record.claim) == (st.USER_LIMIT, "iteration_limit", "")
    assert np.isfinite(record.residual) and record.objective is not None and not record.solved


def _documented():
    """{solver: (cones, package, licence, statuses)} from the table in docs/solvers.md."""
    rows = re.findall(r"^\| `(\w+)` \| ([A-Z, ]+) \| (\w+) \| ([^|]+) \| ([a-z_, ]+) \|$", DOCS.read_text(), re.M)
    return {name: tuple(part.strip() for part in parts) for name, *parts in rows}


def test_docs_list_every_cvxpy_solver_with_cones_licence_and_statuses():
    documented = _documented()
    assert set(documented) == {cls.name for cls in cvxpy_solvers.BACKENDS}
    for cls in cvxpy_solvers.BACKENDS:
        assert documented[cls.name] == (", ".join(sorted(cls.cones)), cls.package, cls.licence,
                                        ", ".join(sorted(cls.status_map))), cls.name


def _installed(name):
    backend = solvers.backends()[name]
    if backend.unavailable_reason():
        pytest.skip(f"{name} is not available here ({backend.unavailable_reason()}); "
                    f"pip install -e \".[solvers]\" installs it")
    return backend


@pytest.mark.parametrize("name", [n for n in OPEN_SOURCE if n != "MPAX"])
def test_each_installed_open_source_solver_takes_its_cones_and_certifies_an_lp(name):
    """cvxpy accepts every cone class a backend declares (and fsopt's SOC kinds need a conic
    solver); on LP (8) the solver's answer is certified by the NumPy certificate, or it says
    "infeasible" and the Farkas check refutes that (PROXQP does, in the study)."""
    import cvxpy as cp

    backend = _installed(name)
    x = cp.Variable(2)
    constraints = {solvers.LP: [x >= 0], solvers.SOC: [cp.norm(x, 2) <= 1],
                   solvers.EXP: [cp.ExpCone(x[0], cp.Constant(1.0), x[1])]}
    for cone in sorted(backend.cones):
        problem = cp.Problem(cp.Minimize(cp.sum(x)), constraints[cone] + [x <= 5, x >= -5])
        problem.solve(solver=name)
        assert problem.status in backend.status_map, (cone, problem.status)
    lp8 = EpsilonMax(12, 3)
    lp8.set_data(b=np.random.default_rng(4).uniform(0, 1, 12))
    record = lp8.attempt(name)
    assert record.solved or (record.claim == st.INFEASIBLE and not record.claim_confirmed), record


@pytest.mark.parametrize("name", ["CVXOPT", "GLPK"])
def test_default_tol_is_passed_where_cvxpy_keeps_options_between_calls(name, monkeypatch):
    """cvxpy hands CVXOPT's and GLPK's options to ``cvxopt.solvers.options``, one dict for the
    process: a loose solve would leave its tolerance to the next default solve.  fsopt passes
    ``default_tol`` on every solve; with that turned off (planted), the default solve after a loose
    one is another solve."""
    _installed(name)
    fresh = _lp9(seed=7).attempt(name)

    def default_after_loose():
        _lp9(seed=7).attempt(name, tol=1e-1)
        return _lp9(seed=7).attempt(name)

    again = default_after_loose()
    assert np.array_equal(fresh.solution["f"], again.solution["f"]) and fresh.iterations == again.iterations
    if name == "CVXOPT":  # GLPK's simplex ends at the same vertex at any tolerance
        monkeypatch.setattr(cvxpy_solvers.CVXOPT, "pins_default_tol", False)
        planted = default_after_loose()
        assert not np.allclose(planted.solution["f"], fresh.solution["f"], rtol=0, atol=1e-9)
