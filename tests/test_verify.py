"""`fsopt verify`: every check passes on clean code, fails under planted bugs, sweeps instances, and
runs with a solver registered at run time."""
import numpy as np
import pytest

from fsopt.core import solvers
from fsopt.tools import verify, verify_mutants
from fsopt.lfs.lp import EpsilonMax

CHECKS = sorted(verify.checks())


@pytest.mark.parametrize("name", CHECKS)
def test_check_passes(name):
    result = verify.run(quick=True, names=[name], echo=None)
    assert result, name
    for res in result:
        assert res.outcome.passed, (res.check.name, res.outcome.measured, res.outcome.detail)
        assert not res.outcome.slack < 0, (res.check.name, res.outcome.binding)  # nan: a plain check


def test_every_method_registers_checks():
    prefixes = {name.split()[0] for name in CHECKS}
    assert {"LOGO", "NMMKL", "LFS"} <= prefixes, prefixes


def test_every_mutant_is_caught_and_every_check_catches_one():
    table = verify_mutants.run(quick=True, echo=None)
    text = table.format()
    assert len(table.mutants) >= 10
    assert text.splitlines()[-1] == f"mutants caught: {len(table.mutants)} of {len(table.mutants)}; " \
                                    "checks that caught none: 0", text
    assert table.ok


def test_mutants_restore_everything():
    from fsopt.logo import margins
    from fsopt.lfs import rounding
    from fsopt.nmmkl.qcqp import MKLDual

    before = (dict(solvers.backends()), margins.neighbor_probabilities, rounding.round_solution,
              MKLDual._extract, MKLDual._build)
    for m in verify_mutants.MUTANTS:
        with verify_mutants.applied(m):
            pass
    after = (dict(solvers.backends()), margins.neighbor_probabilities, rounding.round_solution,
             MKLDual._extract, MKLDual._build)
    assert after == before


def test_instances_report_the_worst_slack_over_random_instances():
    res = verify.run(quick=True, names=["LFS rounding"], instances=4, echo=None)[0]
    assert res.instances == 4 and res.outcome.passed and 0 <= res.outcome.slack <= 1
    cor2 = verify.checks()["NMMKL Cor. 2"]
    details = [verify.run_check(cor2, quick=True, instances=1, seed=s).outcome.detail for s in range(2)]
    assert details[0] != details[1]  # the seed draws another instance (sizes, m, C, tau in the detail)
    again = verify.run_check(cor2, quick=True, instances=1, seed=1).outcome.detail
    assert again == details[1]  # and the same seed the same one


class _SortBackend(solvers.NativeBackend):
    """A tiny LP (8) solver for the test: f = 1 on the α largest b by a full sort (or a wrong one)."""

    name, package = "TINYSORT", ""
    description = "test backend"
    shift = 0

    def supports(self, subproblem):
        return subproblem.name == EpsilonMax.name

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        order = np.argsort(-subproblem.b, kind="stable")
        f = np.zeros(subproblem.b.size)
        f[order[self.shift:self.shift + subproblem.alpha]] = 1.0
        return {"f": f}, "optimal", 0


@pytest.fixture
def registry():
    saved = dict(solvers._BACKENDS)
    yield
    solvers._BACKENDS.clear()
    solvers._BACKENDS.update(saved)


def test_solver_registered_at_run_time_is_verified(registry):
    solvers.register_backend(_SortBackend())
    results = verify.run(quick=True, solver="TINYSORT", names=["LFS TOPK"], echo=None)
    assert [r.check.name for r in results] == ["LFS TOPK (8)"]
    assert results[0].outcome.passed and results[0].solver == "TINYSORT"
    assert set(verify.select(solver="TINYSORT")) == {"LFS TOPK (8)", "LFS feasibility"}
    wrong = _SortBackend()
    wrong.shift = 1  # the 2nd..(α+1)-th largest: feasible, not optimal
    solvers.register_backend(wrong)
    assert not verify.run(quick=True, solver="TINYSORT", names=["LFS TOPK"], echo=None)[0].outcome.passed


def test_solver_that_solves_no_checked_subproblem_is_a_clear_error():
    with pytest.raises(ValueError, match="no check exercises"):
        verify.select(solver="TOPK", names=["LOGO"])
