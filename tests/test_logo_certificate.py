"""A LOGO fit's "converged" is a certificate of its answer (issue 25): for any declared margin
loss, the fast path (working set, elimination) returns what the plain iteration returns, the
fit's full-J KKT residual is measured from the declared parts, and who answered is counted."""
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from fsopt import LOGO, MarginGarrote, MarginLoss, NativeBackend, NonnegL1, SolverWarning
from fsopt.core.composite import proximal_gradient
from fsopt.core.scaling import unit_scale
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.checks import SquaredHingeLoss, margins_by_samples
from fsopt.logo.method import LogoFixedPoint


class Exponential(MarginLoss):
    """ℓ(m) = exp(−m) (AdaBoost's loss)."""

    def margin_value(self, m):
        return np.exp(-m)

    def margin_derivative(self, m):
        return -np.exp(-m)

    def cvxpy_margin(self, m):
        return cp.sum(cp.exp(-m))


LOSSES = {"squared hinge": SquaredHingeLoss, "exponential": Exponential}  # declared as a user would


def garrote(loss, lam=3.0):
    return MarginGarrote(LOSSES[loss](), NonnegL1(lam))


def spiral(shape, seed=0, J=250):
    return make_spiral(50, J - 2, shape=shape, random_state=seed)


def full_kkt_at(X, y, loss, x, w, sigma=2.0, lam=3.0):
    """Independently of fsopt's statistics and solvers: the margins z̄ at weights ``x`` by the loop
    of the definitions (eqs 3-5), the garrote of ``loss`` over all J features solved there by
    Clarabel through cvxpy, and the largest difference of ``w`` from that solution, over max w
    (X, x and w in fsopt's units of X's typical spread)."""
    Z = margins_by_samples(X, y, x, sigma)
    v = cp.Variable(X.shape[1], nonneg=True)
    cp.Problem(cp.Minimize(LOSSES[loss]().cvxpy_margin(Z @ v) + lam * cp.sum(v))).solve(
        solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return float(np.max(np.abs(v.value - w)) / w.max())


@pytest.mark.parametrize("loss, shape", [("squared hinge", "archimedean"), ("exponential", "fermat")])
def test_a_user_margin_loss_is_screened_with_its_own_derivative(loss, shape):
    """LOGO's fast path (working set, elimination: the default from N²·J = 2.5e7 and J = 4,096 on, asked for
    here on a smaller sample) on a user's loss reaches the fixed point the plain iteration reaches
    (same support, weights to the accuracy θ allows), and certifies it: its last solve is the
    full-J optimum at the margins it was solved at, measured by an independent full-J solve at
    those margins."""
    X, y = spiral(shape)
    fast = LOGO(subproblem=garrote(loss), theta=1e-4, max_iter=100, prune_below=1e-8).fit(X, y)
    plain = LOGO(subproblem=garrote(loss), theta=1e-4, max_iter=100, working_set=False,
                 prune_below=None).fit(X, y)
    assert fast.converged_ and plain.converged_ and fast.certificate_.holds
    assert sum(h.n_dropped for h in fast.history_) > 200  # the fast path did eliminate
    assert np.array_equal(fast.get_support(), plain.get_support())
    assert np.max(np.abs(fast.weights_ - plain.weights_)) <= 1e-3 * plain.weights_.max()
    c = fast.certificate_
    assert c.n_features == X.shape[1] and c.kkt_residual <= c.kkt_bound
    scale = unit_scale(X)
    diff = full_kkt_at(X / scale, y, loss, fast.margins_at_ * scale, fast.weights_ * scale)
    assert diff <= 1e-3


def test_default_theta_fit_of_a_user_loss_is_a_fixed_point_to_the_accuracy_theta_allows():
    """At θ = 0.01 the returned weights are the full-J solve at the margins they were solved at
    (to 1e-3 of max w) and, at their own margins, within about θ of a fixed point."""
    X, y = spiral("fermat", seed=1)
    est = LOGO(subproblem=garrote("squared hinge")).fit(X, y)
    scale = unit_scale(X)
    w = est.weights_ * scale
    assert full_kkt_at(X / scale, y, "squared hinge", est.margins_at_ * scale, w) <= 1e-3
    assert full_kkt_at(X / scale, y, "squared hinge", w, w) <= 3e-2  # T(w) − w at θ = 0.01


def test_screening_with_another_losss_gradient_fails_the_fit_certificate(monkeypatch):
    """The planted bug of the issue: the screening reads the logistic derivative whatever loss is
    declared.  The fit's own certificate (each column's gradient from the declared loss, computed
    apart from the screening's) names the failure instead of calling the fit converged."""
    X, y = spiral("archimedean")
    monkeypatch.setattr(LogoFixedPoint, "_screening_derivative", lambda self, m: -1.0 / (1.0 + np.exp(m)))
    with pytest.warns(ConvergenceWarning, match="optimality conditions fail over all features"):
        est = LOGO(subproblem=garrote("squared hinge"), theta=1e-4, max_iter=100, prune_below=1e-8).fit(X, y)
    assert not est.converged_ and est.outcome_ == "kkt_failed"
    assert est.certificate_.failed == ["kkt"] and est.certificate_.kkt_residual > 10 * est.certificate_.kkt_bound


class ValueAndGradientOnly:
    """A smooth loss on margins that declares no margin_derivative (value and gradient only)."""

    def __init__(self, Z=None):
        self.Z = Z

    @property
    def n_features(self):
        return None if self.Z is None else self.Z.shape[1]

    def with_margins(self, Z):
        return ValueAndGradientOnly(Z)

    def value(self, w):
        return float(np.sum(np.maximum(0.0, 1.0 - self.Z @ w) ** 2))

    def gradient(self, w):
        return -2.0 * self.Z.T @ np.maximum(0.0, 1.0 - self.Z @ w)

    def cvxpy_form(self, w):
        return cp.sum_squares(cp.pos(1 - self.Z @ w))


@pytest.mark.parametrize("n, J, prune_below", [(50, 60, 1e-8), (230, 4096, "auto")])  # "auto" eliminates at 460² × 4,096
def test_a_loss_without_margin_derivative_is_refused_before_any_work(monkeypatch, n, J, prune_below):
    X, y = make_spiral(n, J - 2, shape="fermat", random_state=0)
    calls = []
    monkeypatch.setattr(LogoFixedPoint, "statistics", lambda *a: calls.append(a))
    with pytest.raises(ValueError, match=r"declares no smooth\.margin_derivative.*prune_below=None"):
        LOGO(subproblem=MarginGarrote(ValueAndGradientOnly(), NonnegL1(1.0)), prune_below=prune_below).fit(X, y)
    assert calls == []  # refused before the statistics


def test_without_elimination_such_a_loss_is_certified_by_its_own_solves():
    X, y = spiral("fermat", J=60)
    est = LOGO(subproblem=MarginGarrote(ValueAndGradientOnly(), NonnegL1(3.0)), prune_below=None,
               solver="PROXGRAD").fit(X, y)
    assert est.converged_ and est.certificate_.holds and est.certificate_.n_features == X.shape[1]
    assert {0, 1} <= set(est.get_support(indices=True))


class ClaimsOptimalEarly(NativeBackend):
    """A user's proximal gradient that stops after 5 iterations and says "optimal"."""

    name = "FISTA_WRONG"
    package = "scipy"
    description = "proximal gradient stopped after 5 iterations, reported optimal"

    def supports(self, subproblem):
        return True

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        J = subproblem.smooth.n_features
        w0 = subproblem.warm_start if subproblem.warm_start is not None else np.zeros(J)
        w, _, it = proximal_gradient(subproblem.smooth, subproblem.penalty, w0, 1e-12, max_iter=5)
        return {"w": w}, "optimal", it


def test_a_backend_that_claims_optimal_falsely_is_named_and_counted(backend_registry):
    backend_registry.register("FISTA_WRONG", ClaimsOptimalEarly())
    X, y = spiral("fermat", J=100)
    with pytest.warns(SolverWarning, match=r"not FISTA_WRONG's own: \d+ came from the native polish"):
        est = LOGO(solver="FISTA_WRONG").fit(X, y)
    answers, total = est.certificate_.answers, sum(est.certificate_.answers.values())
    assert answers["polished"] > total / 2 and answers["polished"] + answers["solver"] == total
    assert est.certificate_.solvers == ["FISTA_WRONG"] and est.certificate_.own_answers == answers["solver"]
    assert f"{answers['solver']} of {total} solves were FISTA_WRONG's own" in est.certificate_.describe()
    with warnings.catch_warnings():  # a correct solver: all its own answers, no warning
        warnings.simplefilter("error")
        good = LOGO(solver="LBFGSB").fit(X, y)
    assert good.certificate_.answers["solver"] == sum(good.certificate_.answers.values())
