"""Defaults that fit ordinary data: LBFGSB reaches its certificate on margins of unlike scale, the
default ``solver="auto"`` escalates past a backend whose answers fail their certificate and says
who answered, and a solver named explicitly keeps its strict behaviour."""
import contextlib
import re

import numpy as np
import pytest

from fsopt import LFS, LOGO, NMMKL, BackendFailureWarning, GarroteLogistic, SolverFailed
from fsopt.core import solvers
from fsopt.core.composite import kkt_residual, lbfgsb, proximal_gradient
from fsopt.core.lbfgsb import Box, RescaledObjective, curvature_scale
from fsopt.core.exceptions import SolverWarning
from fsopt.core.fit_certificate import FitCertificate
from fsopt.core.lbfgsb_routine import minimize_on_box
from fsopt.core.solvers import builtin_chain, describe_chain
from fsopt.core.subproblem import Subproblem
from fsopt.datasets import load_dataset, standardize
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs.lp import EpsilonConstraint, EpsilonMax
from fsopt.nmmkl.qcqp import MKLDual
from fsopt.nmmkl.recovery import PrimalRecoveryLP
from fsopt.tools.cli import main

LBFGSB = type(solvers.backends()["LBFGSB"])


class PlantedLBFGSB(LBFGSB):
    """The default backend, planted: each answer fails its certificate in its own way (its
    failures are statuses it declares: one outside its map is a malformed backend's)."""
    status_map = {**LBFGSB.status_map, "infeasible": "infeasible", "iteration_limit": "user_limit"}

    def __init__(self, answer):
        self.answer = answer

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, memory=20, working_set=None):
        J = subproblem.smooth.n_features
        start = np.ones(J) if subproblem.warm_start is None else subproblem.warm_start
        if self.answer == "unscaled":  # LBFGSB before this change: plain L-BFGS-B, its stop and no more
            res = lbfgsb(subproblem.smooth, subproblem.penalty, start, tol or 1e-6, max_iter or 15000, memory)
            return {"w": res.x}, "optimal_inaccurate", int(res.nit)
        return {"nan": ({"w": np.full(J, np.nan)}, "optimal", 1),
                "infeasible": ({}, "infeasible", 1),
                "iteration_limit": ({"w": np.ones(J)}, "iteration_limit", 1),
                "w = 1": ({"w": np.ones(J)}, "optimal", 1)}[self.answer]


FAILING = ("nan", "infeasible", "iteration_limit")
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # polishing NaN


@pytest.fixture
def plant(backend_registry):
    def planted(answer):
        backend_registry.register("LBFGSB", PlantedLBFGSB(answer))
    return planted


def spiral(units="z-scored"):
    X, y = make_spiral(n_per_class=40, n_irrelevant=6, random_state=0)
    if units == "mixed":  # one column in centimetres, one in hectometres
        X = X * np.r_[1e2, 1e-2, np.ones(X.shape[1] - 2)]
    return X, y


def wdbc_subset():
    """Every third row of WDBC, unscaled (190 x 30): on the code before this change LOGO raised
    SolverFailed here at sigma = 10 and 30 (LBFGSB rejected_certificate, its polish too)."""
    X, y = load_dataset("wdbc")
    return X[::3], y[::3]


def malformed(answer):
    """A NaN answer is a backend's malformed output: it warns by name besides the fit's warning."""
    return pytest.warns(BackendFailureWarning, match="LBFGSB returned non-finite values") \
        if answer == "nan" else contextlib.nullcontext()


def tally_kinds(est):
    return {(kind, by) for (_, kind, by) in est.certificate_.tally}


# --- LBFGSB reaches the certificate itself --------------------------------------------------------
def unlike_margins(span, seed, N=200, J=20):
    """Margins whose columns differ in size by 10**span (features in unlike units)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((N, J)) + 0.3) * np.logspace(-span / 2, span / 2, J)


@pytest.mark.parametrize("span,seed", [(8, 0), (8, 2), (8, 3), (10, 0), (10, 1), (10, 2)])
def test_lbfgsb_is_certified_where_plain_lbfgsb_stops_short(span, seed):
    garrote = GarroteLogistic(lam=1.0, Z=unlike_margins(span, seed))
    plain = lbfgsb(garrote.smooth, garrote.penalty, np.ones(garrote.Z.shape[1]))
    bound = garrote.certificate_tol * max(1.0, plain.x.max())
    assert kkt_residual(garrote.smooth, garrote.penalty, plain.x) > bound  # the failure reproduces
    record = garrote.solve("LBFGSB", refine=False)
    assert record.certified and record.status == "optimal"
    assert record.residual <= 1e-6 * max(1.0, record.solution["w"].max())  # LBFGSB's own tol


@pytest.mark.parametrize("span,seed", [(10, 0), (10, 1), (10, 2)])
def test_projected_gradient_in_rescaled_variables_goes_where_it_stalls_in_w(span, seed):
    """Stage (b) of minimize_certified: from plain L-BFGS-B's stop, accelerated projected gradient in
    u = w / D reaches r(w) ≤ 1e-8·max(1, max w) in 100 steps; in w it does not reach the backend's
    1e-6 in 1,000 (curvatures 10**span apart: its step is the stiffest coordinate's)."""
    garrote = GarroteLogistic(lam=1.0, Z=unlike_margins(span, seed))
    smooth, penalty = garrote.smooth, garrote.penalty
    start = lbfgsb(smooth, penalty, np.ones(smooth.n_features)).x
    D = curvature_scale(smooth)

    def relative(w):
        return kkt_residual(smooth, penalty, w) / max(1.0, w.max())

    u, _, steps = proximal_gradient(RescaledObjective(smooth, penalty, D), Box(0.0 / D, np.inf / D), start / D,
                                    0.0, 100, stop=lambda u: relative(D * u) <= 1e-8)
    assert relative(D * u) <= 1e-8 and steps < 100
    w, _, _ = proximal_gradient(smooth, penalty, start, 1e-6, 1000)
    assert relative(w) > 1e-6


def certified_short_of_tol(span, seeds=range(20)):
    """The first margins of this span where plain L-BFGS-B stops between LBFGSB's tolerance (1e-6)
    and the certificate's (which seeds do depends on the machine's rounding)."""
    for seed in seeds:
        garrote = GarroteLogistic(lam=1.0, Z=unlike_margins(span, seed))
        plain = lbfgsb(garrote.smooth, garrote.penalty, np.ones(garrote.Z.shape[1]))
        scale = max(1.0, plain.x.max())
        if 1e-6 * scale < kkt_residual(garrote.smooth, garrote.penalty, plain.x) <= garrote.certificate_tol * scale:
            return garrote, plain
    pytest.fail(f"no margins of span {span} among seeds {seeds} where plain L-BFGS-B stops in that band")


@pytest.mark.parametrize("span", [2, 3, 4])
def test_where_plain_lbfgsbs_answer_is_certified_it_is_returned_bit_for_bit(span):
    garrote, plain = certified_short_of_tol(span)
    record = garrote.solve("LBFGSB", refine=False)
    np.testing.assert_array_equal(record.solution["w"], plain.x)
    assert record.iterations == plain.nit


@pytest.mark.parametrize("direct", [True, False], ids=["direct loop", "scipy minimize"])
def test_a_stopping_test_of_the_callers_own_ends_the_run_at_the_first_iterate_it_accepts(direct, monkeypatch):
    if not direct:
        monkeypatch.setattr("fsopt.core.lbfgsb_routine.DIRECT", None)
    M = np.diag(np.logspace(0, 2, 10))

    def fun(x):
        r = M @ (x - 1.0)
        return 0.5 * r @ r, M.T @ r

    seen = []

    def stop(x):
        seen.append(float(np.abs(x - 1.0).max()))
        return seen[-1] < 1e-2

    res = minimize_on_box(fun, np.zeros(10), -np.inf, np.inf, gtol=0.0, ftol=0.0, stop=stop)
    assert res.success and seen[-1] < 1e-2 and all(s >= 1e-2 for s in seen[:-1])
    assert np.abs(res.x - 1.0).max() < 1e-2 and res.nit == len(seen)


@pytest.mark.parametrize("sigma", [2.0, 10.0, 30.0])
def test_logo_fits_unscaled_real_data_with_lbfgsbs_own_answers(sigma):
    X, y = wdbc_subset()
    est = LOGO(sigma=sigma).fit(X, y)
    assert est.converged_ and est.certificate_.holds
    assert est.certificate_.answers["fallback"] == 0  # LBFGSB (its refinement at most) answered
    assert est.solvers_[0] == "LBFGSB"


def test_the_wdbc_subset_reproduces_the_old_rejection():
    """The subset is a test of the fix: the old LBFGSB (planted back) is rejected there."""
    X, y = wdbc_subset()
    with solvers.BACKEND_REGISTRY.scoped() as registry:
        registry.register("LBFGSB", PlantedLBFGSB("unscaled"))
        with pytest.raises(SolverFailed, match=r"solver LBFGSB ended with status 'rejected_certificate'"):
            LOGO(sigma=10.0, solver="LBFGSB").fit(X, y)


# --- the default escalates; an explicit solver stays strict ---------------------------------------
@pytest.mark.parametrize("units", ["z-scored", "mixed"])
@pytest.mark.parametrize("answer", FAILING)
def test_auto_escalates_past_a_failing_default_to_the_next_builtin_solver(plant, answer, units):
    X, y = spiral(units)
    reference = LOGO(solver="PROXGRAD").fit(X, y)  # what the next solver of the chain answers
    plant(answer)
    with pytest.warns(SolverWarning, match=r"not LBFGSB's own: 0 came from the native polish"), malformed(answer):
        est = LOGO().fit(X, y)
    assert est.converged_ and est.certificate_.holds
    assert tally_kinds(est) == {("fallback", "PROXGRAD")}
    np.testing.assert_allclose(est.weights_, reference.weights_, rtol=1e-12, atol=0)
    total = sum(est.certificate_.answers.values())
    assert est.certificate_.describe_answers() == \
        f"0 of {total} solves were LBFGSB's own certified answers, {total} from the PROXGRAD fallback"


def test_auto_refines_before_it_escalates(plant):
    """An answer the polish repairs is the polish's: no other solver is asked."""
    X, y = spiral()
    plant("w = 1")
    with pytest.warns(SolverWarning, match=r"came from the native polish"):
        est = LOGO().fit(X, y)
    assert est.converged_ and tally_kinds(est) == {("polished", "LBFGSB")}


def test_auto_escalates_on_real_stalled_answers_with_refinement_off(plant, monkeypatch):
    """The old LBFGSB on unscaled real data, refinement off: the chain's next solver answers."""
    monkeypatch.setattr(Subproblem, "refine_by_default", False)
    X, y = wdbc_subset()
    plant("unscaled")
    est = LOGO(sigma=10.0).fit(X, y)  # most answers still LBFGSB's own: no SolverWarning
    assert est.converged_ and est.certificate_.holds
    assert ("fallback", "PROXGRAD") in tally_kinds(est)


@pytest.mark.parametrize("answer", FAILING + ("unscaled",))
def test_an_explicit_solver_without_fallback_still_raises(plant, answer):
    X, y = wdbc_subset() if answer == "unscaled" else spiral()
    plant(answer)
    with pytest.raises(SolverFailed, match=r"solver LBFGSB ended with status") as err:
        LOGO(sigma=10.0, solver="LBFGSB").fit(X, y)
    assert {a.solver for a in err.value.attempts} == {"LBFGSB"}


def test_an_explicit_fallback_is_the_only_one_asked(plant):
    X, y = spiral()
    plant("nan")
    with pytest.warns(SolverWarning), malformed("nan"):
        est = LOGO(solver="LBFGSB", fallback=("CLARABEL",)).fit(X, y)
    assert est.solvers_ == ["LBFGSB", "CLARABEL"] and tally_kinds(est) == {("fallback", "CLARABEL")}


def skewed_margins(span, seed, N=200, J=20):
    """Margins whose curvatures are 10**span apart along directions that mix the features: columns
    of like size, so no rescaling of the features (:func:`curvature_scale`) evens them."""
    rng = np.random.default_rng(seed)
    rotations = [np.linalg.qr(rng.standard_normal((J, J)))[0] for _ in range(2)]
    return (rng.standard_normal((N, J)) + 0.3) @ (rotations[0] * np.logspace(-span / 2, span / 2, J)) @ rotations[1].T


def test_auto_escalates_where_no_native_solver_reaches_the_certificate():
    """Curvatures 1e10 apart in mixed directions: LBFGSB and PROXGRAD (each refined) fail their
    certificate; CLARABEL answers."""
    garrote = GarroteLogistic(lam=1.0, Z=skewed_margins(10, 1))
    assert curvature_scale(garrote.smooth) is None  # not a matter of the features' units
    first, *rest = builtin_chain(garrote)
    record = garrote.solve(first, fallback=rest)
    assert record.certified and record.solver == "CLARABEL" and record.answered_by == "fallback"
    assert list(dict.fromkeys(a.solver for a in record.attempts)) == ["LBFGSB", "PROXGRAD"]


def test_nmmkl_auto_escalates_and_an_explicit_solver_stays_strict(backend_registry):
    class OneIteration(type(solvers.backends()["CLARABEL"])):
        def translate(self, tol=None, max_iter=None, verbose=False, **extra):
            return super().translate(tol=tol, max_iter=1, verbose=verbose, **extra)

    X, y = make_nmmkl_toy(n_samples=120, random_state=0)
    X = standardize(X)
    backend_registry.register("CLARABEL", OneIteration())
    est = NMMKL(n_features=1, C=0.03).fit(X, y)
    assert est.solvers_[:2] == ["CLARABEL", "ECOS"] and est.records_[0].solver == "ECOS"
    assert "0 of 1 solves were CLARABEL's own certified answers, 1 from the ECOS fallback; " \
           "1 of 1 solves were MKLLP's own certified answers" in est.certificate_.describe()
    with pytest.raises(SolverFailed, match="solver CLARABEL ended"):
        NMMKL(n_features=1, C=0.03, solver="CLARABEL").fit(X, y)


# --- the chain and what is said about it ----------------------------------------------------------
@pytest.mark.parametrize("subproblem,expected", [
    (GarroteLogistic(lam=1.0), ["LBFGSB", "PROXGRAD", "CLARABEL", "ECOS", "GRADIENT"]),
    (GarroteLogistic(beta=1.0), ["PROXGRAD", "CLARABEL", "ECOS"]),
    (MKLDual(np.eye(2), [1.0, -1.0], 1), ["CLARABEL", "ECOS", "MKLFAST"]),
    (EpsilonConstraint(3, 1), ["BOXLP", "HIGHSPY", "HIGHS", "CLARABEL", "ECOS"]),
    (EpsilonMax(3, 1), ["TOPK", "BOXLP", "HIGHSPY", "HIGHS", "CLARABEL", "ECOS"]),
    (PrimalRecoveryLP(), ["HIGHS", "CLARABEL", "ECOS"]),
], ids=["garrote (7)", "garrote (8)", "nmmkl qcqp (8)", "lfs (9)", "lfs (8)", "nmmkl lp (15)"])
def test_the_builtin_chain_lists_capable_solvers_cheapest_first(subproblem, expected):
    assert [s.name for s in builtin_chain(subproblem)] == expected


def test_auto_gives_each_solver_the_options_it_accepts_and_refuses_one_none_accepts():
    chain = {s.name: s.solver_options for s in builtin_chain(GarroteLogistic(lam=1.0), {"memory": 5, "tol": 1e-7})}
    assert chain["LBFGSB"] == {"memory": 5, "tol": 1e-7} and chain["CLARABEL"] == {"tol": 1e-7}
    with pytest.raises(ValueError, match=r"option 'bogus' is not accepted by any solver solver='auto' would try"):
        LOGO(solver_options={"bogus": 1}).fit(*spiral())


@pytest.mark.parametrize("estimator", [LOGO, NMMKL])
def test_auto_is_the_default_and_a_non_string_solver_is_refused(estimator):
    assert estimator().get_params()["solver"] == "auto"
    with pytest.raises(ValueError, match=r"The 'solver' parameter of .* must be an instance of 'str'"):
        estimator(solver=3).fit(*spiral())


def test_who_answered_is_counted_per_solver_asked():
    tally = {("LBFGSB", "solver", "LBFGSB"): 9, ("LBFGSB", "refined", "LBFGSB"): 1,
             ("LBFGSB", "polished", "LBFGSB"): 1, ("LBFGSB", "fallback", "CLARABEL"): 2,
             ("HIGHS", "solver", "HIGHS"): 3}
    cert = FitCertificate(0.001, 0.01, answers={"solver": 12, "refined": 1, "polished": 1, "fallback": 2},
                          solvers=["LBFGSB", "HIGHS"], tally=tally)
    assert cert.describe_answers() == (
        "10 of 13 solves were LBFGSB's own certified answers (1 of them after a tighter re-solve), 1 came "
        "from its native polish, 2 from the CLARABEL fallback; 3 of 3 solves were HIGHS's own certified answers")
    assert describe_chain("auto", ["LBFGSB", "CLARABEL"]) == "auto (LBFGSB > CLARABEL, each until one is certified)"
    assert describe_chain("LBFGSB", ["LBFGSB"]) == "LBFGSB"


def test_lfs_answers_are_counted_for_the_solver_of_each_problem():
    """(8) by TOPK, (9) by BOXLP: each counted for its own solver, not all for the first."""
    X, y = make_lfs_synthetic(6, 6, 12, n_irrelevant=2, random_state=0)
    est = LFS(alpha=2, tau=1, n_beta=3, n_rounding=5, n_jobs=1, random_state=0).fit(X, y)
    n = X.shape[0]
    assert est.certificate_.describe_answers() == (
        f"{n} of {n} solves were TOPK's own certified answers; "
        f"{3 * n} of {3 * n} solves were BOXLP's own certified answers")


@pytest.mark.parametrize("answer", [None, "nan"], ids=["default", "planted failing default"])
def test_the_cli_prints_who_answered(plant, answer, tmp_path, capsys):
    X, y = spiral("mixed")
    path = tmp_path / "mixed.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", comments="",
               header=",".join([f"f{j}" for j in range(X.shape[1])] + ["label"]))
    if answer:
        plant(answer)
    with pytest.warns(SolverWarning) if answer else contextlib.nullcontext(), malformed(answer):  # else: an error
        assert main(["run", "logo", "--data", str(path), "--quiet", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "solver auto (LBFGSB > PROXGRAD > CLARABEL > ECOS > GRADIENT, each until one is certified)" in out
    line = next(line for line in out.splitlines() if line.startswith("answers: "))
    n, total = map(int, re.match(r"answers: (\d+) of (\d+) solves were LBFGSB's own", line).groups())
    if answer:
        assert n == 0 and line.endswith(f", {total} from the PROXGRAD fallback")
    else:
        assert n == total and line == f"answers: {total} of {total} solves were LBFGSB's own certified answers"

