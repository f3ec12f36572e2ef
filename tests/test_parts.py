"""The parts of a composite subproblem (fsopt.core.parts): each penalty's prox and optimality test
against independent computations, the certificates they give, the native solvers that read them,
the polish-inheritance rule, and LOGO(subproblem=...)."""
import copy
import re
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

from fsopt import LOGO, GarroteLogistic, Subproblem
from fsopt.core.parts import (LogisticMarginLoss, NonnegElasticNet, NonnegGroupL1, NonnegL1,
                              NonnegL1Ball)
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.margins import expected_margins

GROUPS = [np.array([0, 3]), np.array([1, 2, 4]), np.array([5]), np.array([6, 7, 8, 9])]


def margins(n_per_class, n_irrelevant, seed):
    X, y = make_spiral(n_per_class, n_irrelevant, random_state=seed)
    return expected_margins(X, y, np.ones(X.shape[1]), 2.0)


@pytest.fixture(scope="module")
def Z():
    return margins(40, 8, 3)


def penalties():
    return {"l1": NonnegL1(0.7), "elastic_net": NonnegElasticNet(0.7, 0.4),
            "ball": NonnegL1Ball(1.5), "group": NonnegGroupL1(np.array([0.5, 1.0, 0.3, 0.8]), GROUPS)}


def independent_cvxpy(name, x):
    """g(x) and its constraints written here, independently of the parts' cvxpy_form."""
    if name == "l1":
        return 0.7 * cp.sum(x), [x >= 0]
    if name == "elastic_net":
        return 0.7 * cp.sum(x) + 0.2 * cp.sum_squares(x), [x >= 0]
    if name == "ball":
        return 0, [x >= 0, cp.sum(x) <= 1.5]
    return sum(lam * cp.norm(x[g], 2) for lam, g in zip([0.5, 1.0, 0.3, 0.8], GROUPS)), [x >= 0]


def test_logistic_margin_loss_against_finite_differences(Z, rng):
    loss = LogisticMarginLoss(Z)
    for w in (rng.random(Z.shape[1]), 50 * rng.random(Z.shape[1])):  # large margins stay finite
        value, grad = loss.value_and_gradient(w)
        assert value == pytest.approx(float(np.sum(np.log1p(np.exp(-(Z @ w))))), rel=1e-12)
        assert np.allclose(grad, loss.gradient(w), rtol=1e-13)
        h = 1e-6
        fd = [(loss.value(w + h * e) - loss.value(w - h * e)) / (2 * h) for e in np.eye(w.size)]
        assert np.allclose(fd, grad, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["l1", "elastic_net", "ball", "group"])
@pytest.mark.parametrize("step", [0.3, 2.0])
def test_prox_matches_an_independent_conic_solve(name, step, rng):
    penalty = penalties()[name]
    for _ in range(3):
        v = rng.normal(0.2, 1.0, 10)
        x = cp.Variable(10)
        g, constraints = independent_cvxpy(name, x)
        problem = cp.Problem(cp.Minimize(step * g + 0.5 * cp.sum_squares(x - v)), constraints)
        problem.solve("CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
        prox, conic = penalty.prox(v, step), x.value
        x.value = prox  # the prox's point in the independent model: feasible, and no worse
        assert all(c.violation().max(initial=0) <= 1e-12 for c in constraints)
        assert problem.objective.value <= problem.value + 1e-9
        assert np.max(np.abs(prox - conic)) <= 1e-5  # strong convexity: ‖Δ‖² ≤ 2 × objective gap


@pytest.mark.parametrize("name", ["l1", "elastic_net", "group"])
def test_zero_slack_is_the_smallest_directional_derivative(name, rng):
    """Brute force: at w with w_j = 0 (its whole group zero for the group penalty), the smallest
    derivative of grad·x + g(x) along sampled feasible unit directions that raise coordinate j
    (within its group) matches zero_slack_j; the slack never decreases when a grad_j grows."""
    penalty = penalties()[name]
    labels = np.zeros(10, dtype=int)
    for k, g in enumerate(GROUPS):
        labels[g] = k
    for _ in range(5):
        w = np.where(rng.random(10) < 0.5, rng.uniform(0.1, 2.0, 10), 0.0)
        w[GROUPS[rng.integers(4)]] = 0.0  # at least one zero group
        grad = rng.normal(0.0, 1.5, 10)
        slack = penalty.zero_slack(w, grad)
        for j in np.flatnonzero(w == 0):
            support = GROUPS[labels[j]] if name == "group" and not w[GROUPS[labels[j]]].any() else [j]
            dirs = np.abs(rng.normal(size=(4000, len(support))))
            dirs = np.vstack([dirs, np.eye(len(support))]) / np.linalg.norm(
                np.vstack([dirs, np.eye(len(support))]), axis=1, keepdims=True)
            h, best = 1e-7, np.inf
            for d in dirs:
                step = np.zeros(10)
                step[support] = d
                best = min(best, grad @ step + (penalty.value(w + h * step) - penalty.value(w)) / h)
            assert slack[j] - 1e-5 <= best <= slack[j] + 1e-2 * (1 + abs(slack[j])), (j, best, slack[j])
        bumped = grad.copy()
        bumped[rng.integers(10)] += 0.5
        assert np.all(penalty.zero_slack(w, bumped) >= slack - 1e-12)


def test_ball_zero_slack_is_the_best_exchange_at_the_optimum(Z):
    """Brute force for the budget (8): at the optimum, raising w_j means lowering some w_k > 0;
    the best such exchange has derivative min_k (grad_j − grad_k) = zero_slack_j ≥ 0."""
    sp = GarroteLogistic(beta=1.5, Z=Z)
    w = sp.solve("clarabel-tight").solution["w"]
    grad = sp.smooth.gradient(w)
    slack = sp.penalty.zero_slack(w, grad)
    pos = w > 1e-6
    for j in np.flatnonzero(~pos):
        assert abs(np.min(grad[j] - grad[pos]) - slack[j]) <= 1e-5 and slack[j] >= -1e-5


@pytest.mark.parametrize("name", ["l1", "elastic_net", "ball", "group"])
def test_certificate_holds_at_the_optimum_and_catches_a_perturbed_solution(Z, name, rng):
    sp = GarroteLogistic(Z=Z, penalty=penalties()[name])
    record = sp.solve("clarabel-tight")
    w = record.solution["w"]
    assert record.certified and record.residual <= 1e-5
    moved = w.copy()
    moved[np.argmax(w)] *= 0.9  # still feasible (the ball too), no longer optimal
    assert sp.certificate({"w": moved})["residual"] > 1e-3
    assert sp.certificate({"w": sp.penalty.prox(w + 0.05 * rng.random(w.size), 0.0)})["residual"] > 1e-3


@pytest.mark.parametrize("shape", [(40, 8, 3), (60, 30, 5)])
@pytest.mark.parametrize("solver", ["LBFGSB", "PROXGRAD", "GRADIENT"])
def test_native_solvers_match_clarabel_on_the_elastic_net(shape, solver):
    """The same objective as Clarabel's, and the same weights up to what Clarabel's own objective
    gap allows: F is μ-strongly convex (μ = 0.5), so (μ/2)‖w_ref − w*‖² ≤ F(w_ref) − F(w*) (on
    some CPUs Clarabel at 1e-10 stops "optimal_inaccurate", 5e-5 from the optimum)."""
    mu = 0.5
    sp = GarroteLogistic(Z=margins(*shape), penalty=NonnegElasticNet(1.0, mu))
    ref = sp.solve("clarabel-tight")
    record = sp.solve(solver, tol=1e-9)
    assert record.certified and record.solver == solver and record.stage == "solve"
    assert abs(record.objective - ref.objective) <= 1e-8 * ref.objective
    ref_gap = max(ref.objective - record.objective, 0.0)  # the native's point is the better one
    allowed = 1e-5 * ref.solution["w"].max() + np.sqrt(2.0 * ref_gap / mu)
    assert np.max(np.abs(record.solution["w"] - ref.solution["w"])) <= allowed


def test_lbfgsb_working_set_on_the_elastic_net_matches_the_full_problem():
    sp = GarroteLogistic(Z=margins(40, 300, 4), penalty=NonnegElasticNet(1.0, 0.5))
    from fsopt.core.lbfgsb import LBFGSB

    sol, status, _ = LBFGSB().solve(sp, working_set=True, tol=1e-8)
    ref = sp.solve("clarabel-tight")
    assert status.startswith("optimal") and sp.certificate(sol)["residual"] <= 1e-6
    assert abs(sp.objective(sol) - ref.objective) <= 1e-8 * ref.objective
    assert np.max(np.abs(sol["w"] - ref.solution["w"])) <= 1e-5 * ref.solution["w"].max()


@pytest.mark.parametrize("shape", [(40, 8, 3), (60, 30, 5)])
def test_proxgrad_matches_clarabel_on_the_group_garrote(shape):
    Zs = margins(*shape)
    sp = GarroteLogistic(Z=Zs, penalty=NonnegGroupL1(1.0, np.arange(Zs.shape[1]) // 3))
    ref = sp.solve("clarabel-tight")
    record = sp.solve("PROXGRAD", tol=1e-9)
    assert record.certified and abs(record.objective - ref.objective) <= 1e-8 * ref.objective
    assert np.max(np.abs(record.solution["w"] - ref.solution["w"])) <= 1e-5 * ref.solution["w"].max()


def test_solvers_that_need_a_missing_part_name_it(Z):
    group = GarroteLogistic(Z=Z, penalty=NonnegGroupL1(1.0, GROUPS))
    for solver in ("LBFGSB", "GRADIENT"):
        with pytest.raises(ValueError, match=rf"declares no penalty\.gradient, penalty\.box; {solver} needs"):
            group.solve(solver)

    class NoParts(Subproblem):
        name, cone = "no_parts", "EXP"

        def _build(self):
            x = cp.Variable(2)
            return cp.Problem(cp.Minimize(cp.sum_squares(x - 1))), {"w": x}

        def objective(self, solution):
            return float(np.sum((solution["w"] - 1) ** 2))

        def certificate(self, solution):
            return {"residual": float(np.max(np.abs(2 * (solution["w"] - 1))))}

    with pytest.raises(ValueError, match=r"NoParts declares no smooth, penalty; PROXGRAD needs smooth\.value"):
        NoParts().solve("PROXGRAD")
    assert NoParts().solve("CLARABEL").certified and NoParts().polish({"w": np.zeros(2)}) is None


def test_restricted_penalty_is_the_full_one_with_the_rest_at_zero(Z, rng):
    full = NonnegGroupL1(np.array([0.5, 1.0, 0.3, 0.8]), GROUPS)
    cols = np.array([0, 2, 3, 7, 9])
    part = full.restrict(cols)
    w = np.zeros(10)
    w[cols] = rng.random(cols.size)
    assert part.value(w[cols]) == pytest.approx(full.value(w))
    assert np.allclose(part.prox(w[cols], 0.4), full.prox(w, 0.4)[cols])
    sp = GarroteLogistic(penalty=full)
    with pytest.raises(ValueError, match="margins hold 5 columns but the penalty .* 10 features; pass columns="):
        sp.set_margins(Z[:, cols])
    sp.set_margins(Z[:, cols], columns=cols)
    assert sp.solve("PROXGRAD").certified


# --- polish and certificate belong to the problem they solve ---------------------------------------
def test_planted_bug_a_subclass_keeping_its_parents_polish_is_refused_when_defined():
    class NativeGarrote(GarroteLogistic):
        def polish(self, solution):  # a polish written for (7)
            return super().polish(solution)

    with pytest.raises(TypeError, match=r"Ridge changes the objective \(_build\) but would inherit "
                                        r"polish from NativeGarrote"):
        class Ridge(NativeGarrote):
            def _build(self):
                problem, variables = super()._build()
                w = variables["w"]
                return cp.Problem(cp.Minimize(problem.objective.expr + cp.sum_squares(w)),
                                  problem.constraints), variables

    class RidgeStated(NativeGarrote):  # states that it has no polish and its own certificate
        polish = None

        def _build(self):
            return super()._build()

        def certificate(self, solution):
            return super().certificate(solution)

    assert RidgeStated.polish is None


def test_planted_bug_a_subclass_changing_the_model_but_not_its_parts_is_caught(Z):
    """The old elastic-net example: a ridge term added to the cvxpy model (and to the NumPy
    objective) while the parts still say (7); the parts' certificate and polish would certify
    (7).  The check of the parts against the model refuses it at the first solve."""
    class RidgeModelOnly(GarroteLogistic):
        def _build(self):
            problem, variables = super()._build()
            w = variables["w"]
            return cp.Problem(cp.Minimize(problem.objective.expr + 0.05 * cp.sum_squares(w)),
                              problem.constraints), variables

    with pytest.raises(TypeError, match="RidgeModelOnly: its cvxpy model objective .* differs from its "
                                        "declared parts"):
        RidgeModelOnly(Z=Z).solve("CLARABEL")

    class RidgeObjectiveOnly(GarroteLogistic):
        def objective(self, solution):
            return super().objective(solution) + 0.025 * float(solution["w"] @ solution["w"])

    with pytest.raises(TypeError, match="RidgeObjectiveOnly: its objective .* differs"):
        RidgeObjectiveOnly(Z=Z).solve("LBFGSB")
    # stated by its parts, the same problem solves and polishes (the rejected SCS point)
    fixed = GarroteLogistic(Z=Z, penalty=NonnegElasticNet(1.0, 0.05))
    record = fixed.solve("SCS", tol=1e-2, max_iter=3)
    assert record.certified and record.stage == "polish"
    assert abs(record.objective - fixed.solve("clarabel-tight").objective) <= 1e-8 * record.objective


# --- LOGO(subproblem=...) ----------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(100, 10, 1), (60, 200, 2)])
def test_user_subproblem_gives_the_built_in_weights(shape):
    """The user's subproblem, when it is the l1 garrote, gives the built-in weights (instance or
    factory): σ and λ are in the same units on both paths."""
    n, irrelevant, seed = shape
    X, y = make_spiral(n, irrelevant, random_state=seed)
    X = X * 7.0  # units other than 1, so a unit mismatch would show
    built_in = LOGO(lam=0.5).fit(X, y).weights_
    instance = GarroteLogistic(lam=0.5)
    user = LOGO(subproblem=instance).fit(X, y)
    assert instance.Z is None  # the estimator's parameter is copied, never fitted
    factory = LOGO(subproblem=lambda: GarroteLogistic(penalty=NonnegL1(0.5))).fit(X, y).weights_
    for w in (user.weights_, factory):
        assert np.max(np.abs(w - built_in)) <= 1e-9 * built_in.max()


def test_user_subproblem_parameters_are_in_the_units_of_the_built_in_path():
    """Elastic net through the estimator: X·c gives weights ×1/c and the same selection."""
    X, y = make_spiral(100, 10, random_state=1)
    sub = GarroteLogistic(penalty=NonnegElasticNet(1.0, 0.3))
    base = LOGO(subproblem=sub).fit(X, y)
    scaled = LOGO(subproblem=sub).fit(X * 1e3, y)
    assert np.max(np.abs(scaled.weights_ * 1e3 - base.weights_)) <= 1e-6 * base.weights_.max()
    assert scaled.get_support(indices=True).tolist() == base.get_support(indices=True).tolist() == [0, 1]


def test_user_subproblem_is_validated_in_fit():
    X, y = make_spiral(30, 2, random_state=0)
    est = LOGO(subproblem=lambda: "garrote")
    with pytest.raises(TypeError, match="factory returned str"):
        est.fit(X, y)
    with pytest.raises(ValueError, match="'LBFGSB' cannot solve .*declares no penalty.gradient"):
        LOGO(subproblem=GarroteLogistic(penalty=NonnegGroupL1(1.0, np.arange(4) // 2)),
             prune_below=None, solver="LBFGSB").fit(X, y)
    assert copy.deepcopy(est).get_params()["subproblem"] is not None


class MarginsOnlyLoss(LogisticMarginLoss):
    """A user's loss whose n_features reads its margins: it raises before LOGO has set them."""

    @property
    def n_features(self):
        return self.Z.shape[1]


class MarginsOnlyGarrote(GarroteLogistic):
    def __init__(self):
        super().__init__(lam=1.0)
        self.smooth = MarginsOnlyLoss()


def test_a_part_that_raises_when_probed_is_reported_with_its_error():
    """The capability probe reads smooth.n_features on the fresh subproblem LOGO copies before the
    fit: the property's AttributeError is the cause (chained), not "declares no smooth.n_features"
    (hasattr would call the declared part missing), and the message says what was read, from
    which object, when and why."""
    X, y = make_spiral(30, 2, random_state=0)
    for solver in ("LBFGSB", "PROXGRAD"):
        with pytest.raises(TypeError) as caught:
            LOGO(subproblem=MarginsOnlyGarrote, solver=solver).fit(X, y)
        message = str(caught.value)
        assert "declares no" not in message
        assert (f"solver {solver!r}: cannot tell whether it can solve garrote_logistic (7), lam=1: reading "
                f"smooth.n_features (MarginsOnlyLoss.n_features) raised AttributeError: 'NoneType' object "
                f"has no attribute 'shape'") in message
        assert (f"{solver} read the parts it needs from the MarginsOnlyGarrote when LOGO chose its solvers, "
                f"before the fit: a fresh copy of the subproblem, before set_margins gave it the margins") in message
        cause = caught.value.__cause__
        assert isinstance(cause.__cause__, AttributeError) and "'shape'" in str(cause.__cause__)
    with pytest.raises(ValueError, match=r"'HIGHS' cannot solve garrote_logistic .*suitable installed solvers: "
                                         r"CLARABEL"):  # the suggestions skip the natives that cannot tell
        LOGO(subproblem=MarginsOnlyGarrote, solver="HIGHS").fit(X, y)
    with_margins = MarginsOnlyGarrote()
    with_margins.set_margins(margins(30, 2, 0))  # once the part reads, the same solver takes it
    assert with_margins.solve("LBFGSB").certified


def test_a_refused_solver_says_what_was_probed_and_when():
    X, y = make_spiral(30, 2, random_state=0)
    group = GarroteLogistic(penalty=NonnegGroupL1(1.0, np.arange(4) // 2))
    with pytest.raises(ValueError) as caught:
        LOGO(subproblem=group, prune_below=None, solver="LBFGSB").fit(X, y)
    assert re.search(r"GarroteLogistic declares no penalty\.gradient, penalty\.box; LBFGSB needs .*"
                     r"\. LBFGSB read the parts it needs from the GarroteLogistic when LOGO chose its "
                     r"solvers, before the fit: a fresh copy of the subproblem, before set_margins gave it "
                     r"the margins z̄ \(no data yet\), to refuse a solver that cannot take it before any work",
                     str(caught.value))
    with pytest.raises(ValueError, match=r"LBFGSB read the parts it needs from the GarroteLogistic as it "
                                         r"stood when the solver was chosen, to refuse"):
        GarroteLogistic(Z=margins(30, 2, 0), penalty=NonnegGroupL1(1.0, np.arange(4) // 2)).solve("LBFGSB")


def test_the_parts_page_runs():
    """docs/parts.md: a user's own penalty gets a certificate, PROXGRAD and LBFGSB from its parts."""
    page = Path(__file__).resolve().parents[1] / "docs" / "parts.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert blocks
    namespace = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["records"]["LBFGSB"].solver == "LBFGSB"
