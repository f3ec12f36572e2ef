"""`fsopt verify`: every check passes on clean code, fails under planted bugs, sweeps instances, and
runs with a solver registered at run time."""
import re
from unittest import mock

import numpy as np
import pytest

from fsopt.core import solvers
from fsopt.core.checks import observe_solves
from fsopt.lfs.lp import EpsilonMax
from fsopt.core.lbfgsb import LBFGSB
from fsopt.tools import cli, verify, verify_mutants

CHECKS = sorted(verify.checks())


@pytest.mark.parametrize("name", CHECKS)
def test_check_passes(name):
    result = verify.run(quick=True, names=[name], echo=None)
    assert result, name
    for res in result:
        assert res.outcome.passed, (res.check.name, res.outcome.measured, res.outcome.detail)
        assert not res.outcome.slack < 0, (res.check.name, res.outcome.binding)  # nan: a plain check


@pytest.mark.parametrize("extra", ["h5py"])
def test_checks_pass_without_the_optional_extras(extra, monkeypatch):
    """The wheel installs no extras and `fsopt verify --quick` must pass there (CI runs it)."""
    monkeypatch.setitem(__import__("sys").modules, extra, None)  # `import h5py` raises ImportError
    result = verify.run(quick=True, names=["LOGO fixed point (3)-(7)"], echo=None)
    assert result[0].outcome.passed, result[0].outcome.raised or result[0].outcome.measured
    assert result[0].outcome.measured["forms"] == ["dense", "sparse"]


def test_every_method_registers_checks():
    prefixes = {name.split()[0] for name in CHECKS}
    assert {"LOGO", "NMMKL", "LFS"} <= prefixes, prefixes


def test_every_planted_bug_is_caught_by_a_measurement_and_every_check_catches_one():
    table = verify_mutants.run(quick=True, echo=None)
    text = table.format()
    assert len(table.bugs) >= 25
    assert re.fullmatch(rf"bugs caught: {len(table.bugs)} of {len(table.bugs)} \(\d+ by a check's measurement, "
                        r"\d+ by the certificate policy only\); checks that catch none by their measurement: 0",
                        text.splitlines()[-1]), text
    assert table.ok
    new = ("elimination bound always holds", "elimination without final check", "block boundary off by one",
           "column block read twice", "unit scale ignored", "statistics frozen at w0")
    assert all(table.measured(b) for b in table.bugs if b.name in new)  # by a measurement, not the certificate
    assert {c.name for c in table.checks} == set(CHECKS)  # every check is some bug's pair


def _targets():
    """Every attribute a planted bug replaces (found by planting it) and the backend registry."""
    targets, real = set(), mock.patch.object

    def spy(target, attribute, *args, **kwargs):
        targets.add((target, attribute))
        return real(target, attribute, *args, **kwargs)

    for bug in verify.bugs().values():
        with mock.patch.object(mock.patch, "object", spy), bug.planted():
            pass
    return sorted(targets, key=repr)


def test_planted_bugs_restore_everything():
    targets = _targets()
    assert len(targets) >= 10, targets
    before = ({(t, a): getattr(t, a) for t, a in targets}, dict(solvers.backends()))
    for bug in verify.bugs().values():
        with bug.planted():
            pass
    after = ({(t, a): getattr(t, a) for t, a in targets}, dict(solvers.backends()))
    assert after == before
    for bug in verify.bugs().values():  # and each one did replace something while planted
        with bug.planted():
            changed = [(t, a) for t, a in targets if getattr(t, a) is not before[0][(t, a)]]
            assert changed or dict(solvers.backends()) != before[1], bug.name


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


def test_solver_registered_at_run_time_is_verified(backend_registry):
    solvers.register_backend(_SortBackend())
    results = verify.run(quick=True, solver="TINYSORT", names=["LFS TOPK"], echo=None)
    assert [r.check.name for r in results] == ["LFS TOPK (8)"]
    assert results[0].outcome.passed and results[0].solver == "TINYSORT"
    assert set(verify.select(solver="TINYSORT")) == {"LFS TOPK (8)", "LFS feasibility"}
    wrong = _SortBackend()
    wrong.shift = 1  # the 2nd..(α+1)-th largest: feasible, not optimal
    solvers.register_backend(wrong)
    assert not verify.run(quick=True, solver="TINYSORT", names=["LFS TOPK"], echo=None)[0].outcome.passed


def test_a_check_whose_kind_has_no_probe_is_a_clear_error():
    """--solver chooses the checks by asking can_solve on each kind's probe instance: a kind without
    one is named (it was a KeyError, as the 'LOGO fit certificate' check's margin_garrote was)."""
    from fsopt.verify import check
    from fsopt.core import checks

    with checks.CHECKS.scoped():
        check("USER unprobed", "a claim", kinds=("unprobed_kind",))(lambda quick: None)
        with pytest.raises(ValueError, match=r"check 'USER unprobed' names the subproblem kind 'unprobed_kind', "
                                             r"and no probe\('unprobed_kind', factory\) registered"):
            verify.select(solver="CLARABEL", names=["USER"])
    assert "LOGO fit certificate" in verify.select(solver="LBFGSB", names=["LOGO fit"])


def test_solver_that_solves_no_checked_subproblem_is_a_clear_error():
    with pytest.raises(ValueError, match="no check exercises"):
        verify.select(solver="TOPK", names=["LOGO"])


class _SkewedLBFGSB(LBFGSB):
    """A copy of LBFGSB registered at run time whose only change: weights on the support × 1.002."""

    name = "SKEWED"

    def solve(self, subproblem, **options):
        sol, status, iterations = super().solve(subproblem, **options)
        w = sol["w"].copy()
        w[w > 0] *= 1.002
        return {**sol, "w": w}, status, iterations


def test_skewed_backend_fails_verify_with_its_rejected_solves_counted(backend_registry, capsys):
    """The acceptance test of `verify --solver`: NAME's own answers are judged (no refinement), each
    rejected certificate fails its check and is counted; the honest backend passes."""
    solvers.register_backend(_SkewedLBFGSB())
    assert cli.main(["verify", "--quick", "--solver", "SKEWED"]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("[")]
    assert lines and all(line.startswith("[FAIL]") for line in lines), out
    rejected = [int(n) for n in re.findall(r"SKEWED's solves: 0 certified, (\d+) rejected, 0 refined", out)]
    assert len(rejected) == len(lines) and all(n >= 1 for n in rejected), out
    assert f"SKEWED 0 certified, {sum(rejected)} rejected, 0 refined" in out  # the summary per solver
    assert f"SKEWED's claims: 0 of {sum(rejected)} confirmed by the NumPy certificates (0%" in out
    assert cli.main(["verify", "--quick", "--solver", "LBFGSB"]) == 0
    out = capsys.readouterr().out
    assert "[FAIL]" not in out and re.search(r"LBFGSB's solves: \d+ certified, 0 rejected, 0 refined", out), out
    certified = sum(int(n) for n in re.findall(r"LBFGSB's solves: (\d+) certified", out))
    assert f"LBFGSB's claims: {certified} of {certified} confirmed by the NumPy certificates (100%" in out


def test_refine_restores_the_policy_and_names_the_repaired_answers(backend_registry):
    solvers.register_backend(_SkewedLBFGSB())
    res = verify.run(quick=True, names=["LOGO Thm 1"], solver="SKEWED", refine=True, echo=None)[0]
    counts = verify.solves_of(res, "SKEWED")
    assert res.outcome.passed and counts["refined"] >= 1 and counts["rejected"] == 0, counts
    assert res.repaired and "garrote_logistic" in res.repaired[0]
    assert "repaired by the certificate policy" in verify.format_result(res)


USER_CHECKS = '''
import numpy as np
from fsopt.verify import Margins, check, patch, planted_bug
import fsopt.lfs.weights as weights

@check("USER costs (5)", "the cost vectors a, b of (5) are nonnegative")
def costs(quick, rng=None):
    X, y = np.random.default_rng(0).standard_normal((8, 3)), np.arange(8) % 2
    A, B = weights.local_costs(X, y, np.full((8, 8), 1 / 8))
    margins = Margins()
    margins.at_least("min_cost", float(min(A.min(), B.min())), 0.0, scale=1.0)
    return margins.outcome({"min": float(min(A.min(), B.min()))})

@planted_bug("costs negated", catches=("USER costs (5)",))
def negated(stack):
    real = weights.local_costs
    patch(stack, weights, "local_costs", lambda X, y, W: tuple(-c for c in real(X, y, W)))
'''


def test_checks_and_planted_bugs_from_a_path(tmp_path, capsys, monkeypatch):
    """A user's check and its planted bug, from a folder (--checks) or FSOPT_CHECKS_PATH;
    --mutants NAME runs only the bugs named."""
    (tmp_path / "user_checks.py").write_text(USER_CHECKS)
    assert cli.main(["verify", "--quick", "--checks", str(tmp_path), "USER"]) == 0
    assert "[PASS] USER costs (5)" in capsys.readouterr().out
    monkeypatch.setenv(verify.CHECKS_PATH, str(tmp_path / "user_checks.py"))
    assert cli.main(["verify", "--quick", "--mutants", "costs negated"]) == 0
    out = capsys.readouterr().out
    assert "costs negated" in out and "measurement: USER costs (5)" in out and "rounding" not in out, out
    with pytest.raises(ValueError, match="does not exist"):
        verify.load([tmp_path / "missing.py"])
    with pytest.raises(ValueError, match="no planted bug matches"):
        verify_mutants.select_bugs(["no such bug"])


def test_observed_solves_can_be_recertified():
    """Every solve of a fit is observed with a copy of what it solved: its certificate recomputed
    from that copy equals the one recorded, even though the subproblem moved on since."""
    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    X, y = make_spiral(40, 8, random_state=0)
    with observe_solves() as records:
        LOGO(max_iter=5).fit(X, y)
    assert len(records) >= 2 and all(r.input is not None for r in records)
    for r in records:
        assert r.input.certificate(r.solution)["residual"] == r.certificate["residual"]
    assert records[0].input.Z is not records[-1].input.Z


def test_a_check_that_needs_refinement_on_clean_code_still_catches_its_bug():
    """A check whose clean run fails without refinement (an unrefined answer rejected: SolverFailed)
    is run, clean and with each bug, with the refinement ``fsopt verify`` uses: its bug is caught
    by its measurement, not hidden by the clean failure (which left the cell 'not caught')."""
    import types

    from fsopt.core.checks import BUGS, CHECKS
    from fsopt.core.exceptions import SolverFailed
    from fsopt.core.subproblem import Subproblem
    from fsopt.verify import Margins, check, patch, planted_bug

    box = types.SimpleNamespace(value=lambda: 0.0)
    with CHECKS.scoped(), BUGS.scoped():
        @check("NEEDS refinement", "the value is 0")
        def needs_refinement(quick):
            if not Subproblem.refine_by_default:
                raise SolverFailed("toy", "TOY", "rejected_certificate")
            margins = Margins()
            margins.at_most("value", box.value(), 1e-9, scale=1.0)
            return margins.outcome({"value": box.value()}, "")

        @planted_bug("value off by one", catches=("NEEDS refinement",))
        def off_by_one(stack):
            patch(stack, box, "value", lambda: 1.0)

        table = verify_mutants.run(quick=True, names=["value off by one"], echo=None)
    assert table.refined == {"NEEDS refinement"}
    assert table.cells[("value off by one", "NEEDS refinement")] == verify_mutants.MEASUREMENT
    assert Subproblem.refine_by_default  # the policy restored
