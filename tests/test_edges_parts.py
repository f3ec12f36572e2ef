"""Parts declare what they are (issue 41): a margin loss or penalty says whether it is smooth; a
loss that is not goes only to the backends that take its cvxpy form and is certified by a duality
gap computed in NumPy, or is refused before any work, naming smoothness; a missing part is refused
before any statistics pass."""
import contextlib
import re
import time

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import linprog

from fsopt import (LOGO, HingeMarginLoss, LogisticMarginLoss, MarginGarrote, MarginLoss, NativeBackend,
                   NonnegElasticNet, NonnegGroupL1, NonnegL1, NonnegL1Ball, Penalty, SolverFailed,
                   SquaredHingeMarginLoss)
from fsopt.core.parts import derivative_jump, duality_gap, nonsmooth_reason, placeholder
from fsopt.core.scaling import unit_scale
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.checks import margins_by_samples
from fsopt.logo.method import LogoFixedPoint

BUILT_IN_LOSSES = {LogisticMarginLoss: True, SquaredHingeMarginLoss: True, HingeMarginLoss: False}
NATIVE = ("LBFGSB", "GRADIENT", "PROXGRAD")
CONIC = ("CLARABEL", "ECOS", "SCS", "HIGHS")


class UserHinge(MarginLoss):
    """A hinge declared as a user would, saying nothing about smoothness (the issue's case)."""

    def margin_value(self, m):
        return np.maximum(0.0, 1.0 - m)

    def margin_derivative(self, m):
        return -(m < 1.0).astype(float)

    def cvxpy_margin(self, m):
        return cp.sum(cp.pos(1 - m))


def margins(N=60, J=30, seed=0):
    return np.random.default_rng(seed).standard_normal((N, J)) + 0.3


def hinge_lp(Z, lam=None, beta=None):
    """The garrote of the hinge written out as an LP and solved by SciPy, independently of fsopt:
    min Σ t + λ1ᵀw (or s.t. 1ᵀw ≤ β), t ≥ 1 − Zw, t ≥ 0, w ≥ 0.  Returns its optimal value."""
    N, J = Z.shape
    cost = np.concatenate([np.full(J, 0.0 if lam is None else lam), np.ones(N)])
    rows, upper = np.hstack([-Z, -np.eye(N)]), -np.ones(N)
    if beta is not None:
        rows, upper = np.vstack([rows, np.concatenate([np.ones(J), np.zeros(N)])]), np.append(upper, beta)
    result = linprog(cost, A_ub=rows, b_ub=upper, bounds=(0, None), method="highs")
    assert result.status == 0
    return result.fun, result


def hinge_objective(Z, w, lam):
    return float(np.sum(np.maximum(0.0, 1.0 - Z @ w)) + lam * np.sum(w))


def statistics_calls(monkeypatch):
    calls = []
    monkeypatch.setattr(LogoFixedPoint, "statistics", lambda *a: calls.append(a))
    return calls


# --- declarations are truthful -------------------------------------------------------------------
@pytest.mark.parametrize("loss", BUILT_IN_LOSSES, ids=lambda c: c.__name__)
def test_a_built_in_loss_declares_its_smoothness_truthfully(loss):
    """The declaration agrees with the derivative: a jump survives halving the interval, a
    Lipschitz derivative's change does not."""
    jump, _ = derivative_jump(loss().margin_derivative)
    assert loss.smooth is BUILT_IN_LOSSES[loss]
    assert (jump > 1e-3) is (not loss.smooth) and (jump < 1e-9) is loss.smooth
    assert bool(nonsmooth_reason(loss())) is (not loss.smooth)


@pytest.mark.parametrize("loss", BUILT_IN_LOSSES, ids=lambda c: c.__name__)
def test_a_built_in_loss_declares_its_conjugate_truthfully(loss):
    """ℓ*(u) = sup_m u·m − ℓ(m), by brute force on a fine grid, at points of the declared domain."""
    lo, hi = loss.margin_dual_domain
    u = np.linspace(max(lo, -3.0), hi, 7)[1:-1]
    m = np.linspace(-40.0, 40.0, 400_001)
    brute = np.array([np.max(x * m - loss().margin_value(m)) for x in u])
    assert np.allclose(loss().margin_conjugate(u), brute, atol=1e-6)


PENALTIES = {"l1": (NonnegL1(0.7), True), "elastic net": (NonnegElasticNet(0.7, 0.5), True),
             "l1 ball": (NonnegL1Ball(2.0), True), "group l1": (NonnegGroupL1(0.7, [0, 0, 1, 1, 2]), False)}


@pytest.mark.parametrize("name", PENALTIES)
def test_a_built_in_penalty_declares_smoothness_conjugate_and_dual_scale_truthfully(name):
    """g*(v) = max_{w ∈ C} vᵀw − g(w) by Clarabel (inside a box |w| ≤ 100 that the maximizer of a
    v in g*'s domain never reaches) at v scaled by dual_scale; 1 % beyond that scale, when it is
    below 1, the maximum runs to the box: the scale is the largest."""
    penalty, smooth = PENALTIES[name]
    assert penalty.smooth is smooth
    v0 = np.array([1.5, -0.3, 0.9, 0.2, 2.0])

    def brute(v):
        w = cp.Variable(5, nonneg=True)
        form, constraints = penalty.cvxpy_form(w)
        problem = cp.Problem(cp.Maximize(v @ w - form), [*constraints, w <= 100])
        problem.solve(solver="CLARABEL")
        return problem.value

    s = penalty.dual_scale(v0)
    assert brute(s * v0) == pytest.approx(penalty.conjugate(s * v0), abs=1e-6)
    if s < 1:
        assert brute(1.01 * s * v0) > penalty.conjugate(s * v0) + 0.1


# --- a loss that is not smooth: refused by the natives, at once, naming smoothness -------------
@pytest.mark.parametrize("loss", [HingeMarginLoss, UserHinge], ids=["declared", "probed"])
@pytest.mark.parametrize("solver", NATIVE)
def test_a_native_backend_refuses_a_loss_that_is_not_smooth_before_any_statistics(monkeypatch, loss, solver):
    X, y = make_spiral(30, 8, random_state=0)
    calls = statistics_calls(monkeypatch)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=rf"'{solver}' cannot solve .*is not smooth.*"
                                         r"solver='CLARABEL'.*smooth loss \(SquaredHingeMarginLoss"):
        LOGO(subproblem=MarginGarrote(loss(), NonnegL1(1.0)), solver=solver, prune_below=None).fit(X, y)
    assert time.perf_counter() - t0 < 1.0 and calls == []


def test_the_default_solver_refuses_a_hinge_at_j_50000_in_under_a_second(monkeypatch):
    """The issue's case: a plain hinge through LOGO's default solver (LBFGSB) ran 216-248 s and
    blamed a residual; now the cause, at fit entry."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((300, 50_000)), np.repeat([0, 1], 150)
    calls = statistics_calls(monkeypatch)
    for prune_below in ("auto", None):  # "auto" eliminates here: refused for its screening first
        t0 = time.perf_counter()
        with pytest.raises(ValueError, match="UserHinge is not smooth: it does not declare smooth, and its "
                                             "margin_derivative jumps by 1 .* at m = 1"):
            LOGO(subproblem=MarginGarrote(UserHinge(), NonnegL1(1.0)), prune_below=prune_below).fit(X, y)
        assert time.perf_counter() - t0 < 1.0
    assert calls == []


def test_the_suggested_solvers_for_a_hinge_are_the_conic_ones():
    """The hinge garrote is an LP: the solvers suggested are the installed LP solvers through
    cvxpy (the base install's four at least), never a gradient method."""
    from fsopt.core.solvers import backends

    garrote = MarginGarrote(HingeMarginLoss(), NonnegL1(1.0), Z=margins())
    with pytest.raises(ValueError, match=r"suitable installed solvers: ([A-Z, ]+)(\.|$)") as raised:
        garrote.solve("LBFGSB")
    named = set(re.search(r"suitable installed solvers: ([A-Z, ]+)", str(raised.value)).group(1).split(", "))
    assert {"CLARABEL", "ECOS", "SCS", "HIGHS"} <= named
    assert not named & {"LBFGSB", "PROXGRAD", "GRADIENT"}
    assert all("LP" in backends()[name].cones for name in named)


@pytest.mark.parametrize("kink", [0.37, -3.3, 250.0, 1e-3])
def test_an_undeclared_kink_anywhere_in_the_probed_range_is_found(kink):
    class Shifted(UserHinge):
        def margin_derivative(self, m):
            return np.where(m < kink, -2.0, 0.5)

    jump, where = derivative_jump(Shifted().margin_derivative)
    assert jump == pytest.approx(2.5 / 2.0) and where == pytest.approx(kink, abs=1e-9 * max(1.0, abs(kink)))


class Exponential(UserHinge):
    def margin_value(self, m):
        return np.exp(-m)

    def margin_derivative(self, m):
        return -np.exp(-m)


class SmoothHuber(UserHinge):
    def margin_derivative(self, m):
        return -np.clip(1.0 - m, 0.0, 1.0)  # continuous, 1-Lipschitz: smooth


@pytest.mark.parametrize("loss", [Exponential, SmoothHuber])
def test_an_undeclared_smooth_loss_is_not_called_nonsmooth(loss):
    assert nonsmooth_reason(loss()) == ""


# --- a loss that is not smooth: solved by the conic backends, certified by the gap --------------
@pytest.mark.parametrize("solver", CONIC)
def test_a_conic_backend_solves_the_hinge_lp_certified_by_its_duality_gap(solver):
    """The issue's CLARABEL answer (exact to 4e-9) was rejected, its certificate reading a
    gradient; now each conic backend's answer is the exact LP's optimum (SciPy's HiGHS on the LP
    written out) and certified by the gap."""
    Z = margins()
    record = MarginGarrote(HingeMarginLoss(), NonnegL1(2.0), Z=Z).solve(solver)
    best, _ = hinge_lp(Z, lam=2.0)
    assert record.certified and record.stage == "solve"
    assert record.certificate["duality_gap"] <= 1e-6 * best
    assert hinge_objective(Z, record.solution["w"], 2.0) == pytest.approx(best, rel=1e-7)


@pytest.mark.parametrize("solver", ["CLARABEL", "HIGHS"])
def test_the_hinge_with_a_budget_is_the_exact_lp_optimum(solver):
    Z = margins(seed=1)
    record = MarginGarrote(HingeMarginLoss(), NonnegL1Ball(1.5), Z=Z).solve(solver)
    best, _ = hinge_lp(Z, beta=1.5)
    assert record.certified and record.solution["w"].sum() <= 1.5 + 1e-7
    assert hinge_objective(Z, record.solution["w"], 0.0) == pytest.approx(best, rel=1e-7)


@pytest.mark.parametrize("penalty", [NonnegElasticNet(1.0, 0.5), NonnegGroupL1(1.0, np.arange(30) // 3)],
                         ids=["elastic net", "group l1"])
def test_the_hinge_with_a_conic_penalty_is_certified_and_optimal(penalty):
    """The gap with a penalty's conjugate: certified, and the objective is that of the problem
    written directly in cvxpy."""
    Z = margins(seed=2)
    record = MarginGarrote(HingeMarginLoss(), penalty, Z=Z).solve("CLARABEL")
    w = cp.Variable(30, nonneg=True)
    form, constraints = penalty.cvxpy_form(w)
    direct = cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - Z @ w)) + form), constraints)
    direct.solve(solver="ECOS", abstol=1e-10, reltol=1e-10, feastol=1e-10)
    assert record.certified and record.objective == pytest.approx(direct.value, rel=1e-6)


@pytest.mark.parametrize("penalty", [NonnegElasticNet(1.0, 0.5), NonnegL1Ball(1.0)], ids=["elastic net", "l1 ball"])
def test_the_cone_is_the_hardest_of_the_parts(penalty):
    assert MarginGarrote(HingeMarginLoss(), NonnegL1(1.0)).cone == "LP"
    assert MarginGarrote(HingeMarginLoss(), penalty).cone == penalty.cone
    assert MarginGarrote(LogisticMarginLoss(), penalty).cone == "EXP"
    assert MarginGarrote(UserHinge(), NonnegL1(1.0)).cone == "EXP"  # undeclared: the most general


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL"])
def test_logo_with_a_hinge_fits_weights_that_solve_the_exact_lp_at_its_margins(solver):
    """Done when: a plain hinge through MarginGarrote fits, and its weights solve the exact LP of
    the full problem at the fit's margins — the margins by the loop of eqs (3)-(5), the LP by SciPy."""
    X, y = make_spiral(40, 18, random_state=0)
    est = LOGO(subproblem=MarginGarrote(HingeMarginLoss(), NonnegL1(1.0)), solver=solver).fit(X, y)
    assert est.converged_ and est.certificate_.holds
    scale = unit_scale(X)
    Z = margins_by_samples(X / scale, y, est.margins_at_ * scale, 2.0)
    best, _ = hinge_lp(Z, lam=1.0)
    assert hinge_objective(Z, est.weights_ * scale, 1.0) == pytest.approx(best, rel=1e-6)
    assert {0, 1} <= set(est.get_support(indices=True))


@pytest.mark.parametrize("solver", ["LBFGSB", "PROXGRAD", "GRADIENT", "CLARABEL"])
def test_a_smooth_loss_still_goes_to_every_backend(solver):
    Z = margins(seed=3)
    record = MarginGarrote(SquaredHingeMarginLoss(), NonnegL1(2.0), Z=Z).solve(solver, tol=1e-9)
    reference = MarginGarrote(SquaredHingeMarginLoss(), NonnegL1(2.0), Z=Z).solve("CLARABEL", tol=1e-10)
    assert record.certified and "duality_gap" not in record.certificate  # its KKT residual
    assert record.objective == pytest.approx(reference.objective, rel=1e-6)


# --- the certificate proves itself by failing ---------------------------------------------------
class LinprogHinge(NativeBackend):
    """A backend that takes the hinge (``takes_nonsmooth``): SciPy's LP, with the LP's duals as the
    claim; ``bug`` plants one fault in what it returns."""

    name, takes_nonsmooth, default_tol = "LINPROG_HINGE", True, None

    def __init__(self, bug=None):
        self.bug = bug

    def supports(self, subproblem):
        return isinstance(subproblem.smooth, HingeMarginLoss) and isinstance(subproblem.penalty, NonnegL1)

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        Z, lam = subproblem.Z, subproblem.penalty.lam
        keep = np.arange(Z.shape[0]) != 0 if self.bug == "dropped constraint" else slice(None)
        _, result = hinge_lp(Z[keep], lam=lam)
        w = result.x[:Z.shape[1]]
        dual = np.zeros(Z.shape[0])
        dual[keep] = result.ineqlin.marginals  # −α: the claimed subgradient of the hinge
        if self.bug == "perturbed solution":
            w = w + 1e-2 * (np.arange(w.size) == np.argmax(w))
        if self.bug == "infeasible solution":
            w = w - 1e-2 * (np.arange(w.size) == np.argmin(w))
        if self.bug == "dual claim of another problem":
            dual = -np.ones(Z.shape[0])
        return {"w": w, "loss_dual": dual}, "optimal", result.nit


@pytest.mark.parametrize("bug", [None, "perturbed solution", "dropped constraint", "infeasible solution"])
def test_the_duality_gap_catches_a_planted_bug(backend_registry, bug):
    """The same backend, right and with a planted fault: the right answer is certified, each
    fault is rejected by the gap (its claimed dual is the exact LP's, so only the gap can tell)."""
    backend_registry.register(LinprogHinge.name, LinprogHinge(bug))
    garrote = MarginGarrote(HingeMarginLoss(), NonnegL1(2.0), Z=margins(seed=4))
    if bug is None:
        assert garrote.solve(LinprogHinge.name).certified
        return
    with pytest.raises(SolverFailed, match="LINPROG_HINGE ended with status 'rejected_certificate'"):
        garrote.solve(LinprogHinge.name)


def test_a_wrong_dual_claim_rejects_a_right_answer_never_the_reverse(backend_registry):
    """The claim is only where the gap starts: a claim of another problem makes the gap large
    (the answer is rejected, not certified wrongly), and the gap stays a true upper bound."""
    backend_registry.register(LinprogHinge.name, LinprogHinge("dual claim of another problem"))
    Z = margins(seed=4)
    with pytest.raises(SolverFailed):
        MarginGarrote(HingeMarginLoss(), NonnegL1(2.0), Z=Z).solve(LinprogHinge.name)
    best, result = hinge_lp(Z, lam=2.0)
    w = result.x[:30]
    for claim in (-np.ones(60), np.zeros(60), np.random.default_rng(0).uniform(-3, 2, 60)):
        gap = duality_gap(HingeMarginLoss(Z), NonnegL1(2.0), w, claim)
        assert gap["dual_objective"] <= best + 1e-9  # weak duality: a lower bound, whatever the claim


def test_a_perturbed_cvxpy_answer_is_rejected(monkeypatch):
    """A planted bug on the conic path: the extracted weights moved by 1 % of the largest."""
    extract = MarginGarrote._extract

    def perturbed(self, problem, variables):
        solution = extract(self, problem, variables)
        solution["w"] = solution["w"] + 0.01 * solution["w"].max() * (np.arange(solution["w"].size) == 0)
        return solution

    monkeypatch.setattr(MarginGarrote, "_extract", perturbed)
    with pytest.raises(SolverFailed, match="rejected_certificate"):
        MarginGarrote(HingeMarginLoss(), NonnegL1(2.0), Z=margins(seed=5)).solve("CLARABEL", refine=False)


# --- missing parts: refused at fit entry, naming the piece ----------------------------------------
def without(*names, smooth=True):
    """A hinge-like user loss declaring ``smooth`` and every piece but ``names``."""
    pieces = {"margin_value": lambda self, m: np.maximum(0.0, 1.0 - m) ** 2,
              "margin_derivative": lambda self, m: -2.0 * np.maximum(0.0, 1.0 - m),
              "cvxpy_margin": lambda self, m: cp.sum_squares(cp.pos(1 - m))}
    body = {k: v for k, v in pieces.items() if k not in names}
    return type("Partial", (MarginLoss,), dict(body, smooth=smooth))


MISSING = [  # (missing piece, solver, what the refusal names; None: the fit goes on)
    ("margin_value", "LBFGSB", r"smooth\.margin_value \(for smooth\.value\)"),
    ("margin_value", "CLARABEL", r"smooth\.margin_value \(for smooth\.value\)"),
    ("margin_derivative", "LBFGSB", r"smooth\.margin_derivative \(for smooth\.gradient\)"),
    ("margin_derivative", "CLARABEL", r"smooth\.margin_derivative \(for smooth\.gradient\)"),
    ("cvxpy_margin", "CLARABEL", r"smooth\.cvxpy_margin \(for smooth\.cvxpy_form\)"),
    ("cvxpy_margin", "PROXGRAD", None),  # a native reads no cvxpy form
]


@pytest.mark.parametrize("piece, solver, named", MISSING)
def test_a_missing_piece_of_a_user_loss_is_refused_before_any_statistics(monkeypatch, piece, solver, named):
    X, y = make_spiral(30, 8, random_state=0)
    garrote = MarginGarrote(without(piece)(), NonnegL1(1.0))
    if named is None:
        assert LOGO(subproblem=garrote, solver=solver, prune_below=None).fit(X, y).certificate_.holds
        return
    calls = statistics_calls(monkeypatch)
    with pytest.raises(ValueError, match=rf"'{solver}' cannot solve .*declares no {named}"):
        LOGO(subproblem=garrote, solver=solver, prune_below=None).fit(X, y)
    assert calls == []


def test_a_missing_part_is_refused_in_under_a_second_at_j_50000(monkeypatch):
    """Done when: at 300 x 50,000 a loss that lacks its derivative is refused at fit entry, with
    the default settings (elimination: its screening needs the derivative) and without."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((300, 50_000)), np.repeat([0, 1], 150)
    calls = statistics_calls(monkeypatch)
    for prune_below in ("auto", None):
        t0 = time.perf_counter()
        with pytest.raises(ValueError, match=r"declares no smooth\.margin_derivative"):
            LOGO(subproblem=MarginGarrote(without("margin_derivative")(), NonnegL1(1.0)),
                 prune_below=prune_below).fit(X, y)
        assert time.perf_counter() - t0 < 1.0
    assert calls == []


def test_a_hinge_without_its_conjugate_is_refused_by_the_conic_backends_naming_smoothness():
    """A user's hinge has a cvxpy form, but its certificate, the gap, needs its conjugate."""
    with pytest.raises(ValueError, match=r"'CLARABEL' cannot solve .*declares no smooth\.margin_conjugate "
                                         r"\(for smooth\.conjugate\) \(UserHinge is not smooth.*HingeMarginLoss"):
        MarginGarrote(UserHinge(), NonnegL1(1.0), Z=margins()).solve("CLARABEL")


class CappedL1(Penalty):
    """λ‖w‖₁ on 0 ≤ w ≤ 1, declaring no conjugate."""

    def value(self, w):
        return float(np.sum(w))

    def prox(self, v, step):
        return np.clip(v - step, 0.0, 1.0)

    def cvxpy_form(self, w):
        return cp.sum(w), [w <= 1]


class NoProx(Penalty):
    def value(self, w):
        return float(np.sum(w))

    def cvxpy_form(self, w):
        return cp.sum(w), []


@pytest.mark.parametrize("loss, penalty, solver, named", [
    (HingeMarginLoss, CappedL1, "HIGHS", r"penalty\.conjugate, penalty\.dual_scale"),
    (SquaredHingeMarginLoss, NoProx, "PROXGRAD", r"penalty\.prox"),
    (SquaredHingeMarginLoss, NoProx, "CLARABEL", r"penalty\.prox"),  # the KKT certificate reads it
], ids=["gap without conjugate", "native without prox", "certificate without prox"])
def test_a_missing_piece_of_a_user_penalty_is_refused_before_any_statistics(monkeypatch, loss, penalty, solver,
                                                                              named):
    X, y = make_spiral(30, 8, random_state=0)
    calls = statistics_calls(monkeypatch)
    with pytest.raises(ValueError, match=rf"'{solver}' cannot solve .*declares no .*{named}"):
        LOGO(subproblem=MarginGarrote(loss(), penalty()), solver=solver, prune_below=None).fit(X, y)
    assert calls == []


def test_a_penalty_declared_not_smooth_is_refused_by_a_backend_that_needs_its_gradient():
    class KinkedL1(NonnegL1):
        smooth = False

    garrote = MarginGarrote(LogisticMarginLoss(), KinkedL1(1.0), Z=margins())
    with pytest.raises(ValueError, match="KinkedL1 is not smooth on its feasible set.*use PROXGRAD"):
        garrote.solve("LBFGSB")
    assert garrote.solve("PROXGRAD").certified


def _counting_reads(monkeypatch):
    """Count :func:`fsopt.core.parts.undeclared` calls (each reads a part's attributes)."""
    from fsopt.core import parts

    reads, undeclared = [0], parts.undeclared

    def counting(*args):
        reads[0] += 1
        return undeclared(*args)

    monkeypatch.setattr(parts, "undeclared", counting)
    return reads


def test_a_solve_reads_each_question_about_its_parts_once(monkeypatch):
    """One solve with LOGO's chain of five solvers asks 10-20 questions about the subproblem's parts
    (each solver's capability, the certificate, the objective); inside a solve they cannot change,
    so each distinct question reads the parts once.  Planted: without holding them, every question
    reads them again."""
    from fsopt.core import subproblem
    from fsopt.logo import GarroteLogistic

    sub = GarroteLogistic(lam=1.0, Z=margins())
    chain = ("PROXGRAD", "CLARABEL", "ECOS", "GRADIENT")
    reads = _counting_reads(monkeypatch)
    held = sub.solve("LBFGSB", fallback=chain)
    n_held = reads[0]
    monkeypatch.setattr(subproblem, "parts_held", contextlib.nullcontext)
    reads[0] = 0
    unheld = sub.solve("LBFGSB", fallback=chain)
    assert held.certified and unheld.certified and held.objective == unheld.objective
    assert 2 * n_held < reads[0], (n_held, reads[0])


def test_parts_changed_between_two_solves_are_read_again():
    """What a solve learnt about the parts ends with it: the same penalty object, its prox withdrawn
    after a first solve, is refused by the next, naming it.  (Planted, answers kept past the solve:
    the second solve goes ahead.)"""
    from fsopt.logo import GarroteLogistic

    sub = GarroteLogistic(lam=1.0, Z=margins())
    assert sub.solve("PROXGRAD").certified
    sub.penalty.prox = placeholder(lambda v, step: v)  # (a placeholder: no longer a declaration)
    with pytest.raises(ValueError, match="prox"):
        sub.solve("PROXGRAD")


def test_a_user_backend_that_lists_its_needs_is_asked_as_before(backend_registry):
    """A user's PartsBackend may list its needs in lists (the questions are held by value): it
    solves a subproblem that declares them and names a missing one."""
    from fsopt.core.composite import PartsBackend, proximal_gradient
    from fsopt.logo import GarroteLogistic

    class Listed(PartsBackend):
        name, package = "LISTED", "scipy"
        needs = {"smooth": ["value", "gradient", "n_features"], "penalty": ["value", "prox"]}

        def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
            w, status, _ = proximal_gradient(subproblem.smooth, subproblem.penalty,
                                             np.zeros(subproblem.smooth.n_features), tol or 1e-8)
            return {"w": w}, status, 1

    backend_registry.register("LISTED", Listed())
    sub = GarroteLogistic(lam=1.0, Z=margins())
    assert sub.solve("LISTED").certified
    sub.penalty.prox = placeholder(lambda v, step: v)
    with pytest.raises(ValueError, match="prox"):
        sub.solve("LISTED")
