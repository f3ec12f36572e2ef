"""Inputs at their extremes, found by an audit of the estimators: a warm start far from any
minimizer, a penalty of zero, a refit on an array without names, a budget below rounding, joblib
settings that cannot run, parameters a message must name, and where warnings point.  A planted
bug named in a docstring was run against the test and failed it."""
import warnings

import dask.array as da
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from fsopt import LFS, LOGO, NMMKL, NonnegElasticNet, NonnegL1
from fsopt.core.parts import Penalty, project_simplex
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import method as lfs_method
from fsopt.logo.garrote import GarroteLogistic


@pytest.fixture(scope="module")
def spiral():
    return make_spiral(n_per_class=30, n_irrelevant=4, random_state=0)  # features 0 and 1 relevant


@pytest.mark.parametrize("w0", [np.full(6, 1e16), np.r_[0.0, 0.0, 1e20, 1e20, 1e20, 1e20]])
def test_a_warm_start_far_from_any_minimizer_is_not_certified_as_one(spiral, w0):
    """From w0 = 1e20 on the noise features, L-BFGS-B stops at once (its decrease is nothing
    against an objective of 4e20), and a tolerance relative to max w (1e-4 · 1e20) passed that
    start as optimal: the fit returned the noise features, "converged".  Outside the sublevel set
    {F ≤ F(0)} the scale is 1, so the start is rejected and the fallback answers.  Planted:
    ``certificate_scale`` returning max(1, max w) again selects [2 3 4 5] (run)."""
    X, y = spiral
    reference = LOGO().fit(X, y)
    fit = LOGO(w0=w0).fit(X, y)
    assert fit.converged_
    np.testing.assert_array_equal(fit.get_support(indices=True), reference.get_support(indices=True))
    np.testing.assert_allclose(fit.weights_, reference.weights_, atol=1e-3 * reference.weights_.max())


@pytest.mark.parametrize("penalty", [None, "ball", "group"])
def test_a_point_above_the_objective_at_zero_is_refuted_whatever_its_residual(spiral, penalty):
    """w = 1e20: the ℓ1 residual kept the gradient but the bound grew with max w; the ball's and the
    group's generic residual |w − prox(w − g)| rounds to exactly 0 there.  0 is feasible, so every
    minimizer is below F(0): the point is refuted (planted: ``certificate`` without the comparison
    certifies all three)."""
    from fsopt import NonnegGroupL1, NonnegL1Ball

    X, y = spiral
    made = {None: None, "ball": NonnegL1Ball(1e21), "group": NonnegGroupL1(1.0, [0, 0, 1])}[penalty]
    garrote = GarroteLogistic(lam=1.0, Z=X[:, :3] - X[:, :3].mean(axis=0), penalty=made)  # margins of both signs
    huge = {"w": np.full(3, 1e20)}
    measures = garrote.certificate(huge)
    assert measures["refuted"] and measures["objective_above_zero"] > 1e19
    optimum = garrote.solve("CLARABEL")
    assert optimum.certified and "objective_above_zero" not in optimum.certificate


def test_every_part_of_a_certificate_is_in_its_own_units():
    """Found by planting wrong answers under the claim "optimal": a budget exceeded by 20 % (the
    prox residual saw the excess spread over the support), NMMKL's λ and γ far from optimal (the
    gap read α alone), a recovery LP's p that is not its x, and p_cone shifted by 1 (both divided
    by the objective).  Each is refuted now (planted: the residuals as they were certify each)."""
    from fsopt.nmmkl.method import NMMKLMethod
    from fsopt.nmmkl.qcqp import MKLDual

    rng = np.random.default_rng(0)
    Z = np.tile(np.abs(rng.standard_normal((40, 2))) + 0.1, (1, 500))  # the budget binds, over 1,000 columns
    ball = GarroteLogistic(beta=1.0, Z=Z)
    w = ball.solve("PROXGRAD").solution["w"]
    np.testing.assert_allclose(w.sum(), 1.0)
    assert ball.certificate({"w": w * 1.2})["residual"] >= 0.19  # Σw = 1.2 > β (the prox residual: 1.3e-3)

    X, y = rng.standard_normal((40, 6)), np.where(rng.standard_normal(40) > 0, 1.0, -1.0)
    dual = MKLDual(X, y, 3, C=1.0, tau=1.0)
    trusted = dual.solve("CLARABEL")
    assert trusted.certified
    for changes in ({"lambda": 1e6, "gamma": np.zeros(6)}, {"p_cone": trusted.solution["p_cone"] + 1.0}):
        assert dual.certificate(dict(trusted.solution, **changes))["residual"] > dual.certificate_tol

    method = NMMKLMethod(X, y, 2, lp_solver="HIGHS")
    method.update(None, method.initial_iterate(), None)  # (15) gets its data from (8)'s answer
    lp = method.lp
    solved = lp.solve("HIGHS")
    assert solved.certified
    forged = dict(solved.solution, p=np.array([-3.0, 0, 0, 0, 0, 7.0]))
    assert lp.certificate(forged)["residual"] > lp.certificate_tol


def test_lfs_8_takes_only_nonnegative_distances():
    """(8)'s closed form (TOPK, the certificate) is max bᵀf for b ≥ 0; with b = (1, −5) TOPK's
    wrong answer was certified and the right ones rejected."""
    from fsopt.lfs.lp import EpsilonMax

    with pytest.raises(ValueError, match="b must be nonnegative"):
        EpsilonMax(2, 2).set_data(b=np.array([1.0, -5.0]))


@pytest.mark.parametrize("penalty, exact", [
    (NonnegL1(lam=1.0), 20.8),
    (NonnegElasticNet(lam=1.0, mu=0.5), (0.5 * 1e20 + 20.8) / 1.5),
])
def test_the_kkt_residual_keeps_the_gradient_where_w_dwarfs_it(penalty, exact):
    """|w − prox(w − g)| rounds to 0 once w ≫ |g + λ| (ℓ1: the base class's formula gives 0 at
    w = 1e20, g + λ = 20.8); the closed forms keep it.  Elsewhere they are the generic formula's."""
    rng = np.random.default_rng(0)
    w, g = np.abs(rng.standard_normal(50)) * (rng.random(50) < 0.5), rng.standard_normal(50) * 3
    np.testing.assert_allclose(penalty.violation(w, g), Penalty.violation(penalty, w, g), atol=1e-12)
    np.testing.assert_allclose(penalty.violation(np.array([1e20]), np.array([19.8])), [exact], rtol=1e-12)


def test_lam_zero_is_refused_naming_lam(spiral):
    """(7) without its penalty has no minimizer on separable margins (the loss falls along a
    ray); the fit used to return one solver's stopping point as converged."""
    X, y = spiral
    with pytest.raises(ValueError, match="lam=0"):
        LOGO(lam=0).fit(X, y)
    LOGO(lam=0, beta=5.0).fit(X, y)  # lam unused beside a budget


def test_a_refit_on_an_array_without_names_forgets_the_names(spiral):
    """Planted: the blockwise branch not dropping feature_names_in_ keeps 'A'..'F' (run)."""
    X, y = spiral
    est = LOGO().fit(pd.DataFrame(X, columns=list("ABCDEF")), y)
    est.fit(da.from_array(X[:, :4], chunks=(60, 2)), y)
    assert not hasattr(est, "feature_names_in_") and est.n_features_in_ == 4
    assert list(est.get_feature_names_out()) == [f"x{j}" for j in est.get_support(indices=True)]


@pytest.mark.parametrize("radius", [1e-20, 1e-300])
def test_the_simplex_projection_takes_a_radius_below_rounding(radius):
    v = np.array([3.0, 1.0, -2.0])
    x = project_simplex(v, radius)
    assert np.all(x >= 0) and x.sum() <= 4 * np.spacing(3.0) and x[1:].sum() == 0


def test_lfs_refuses_joblib_settings_that_cannot_run_before_any_work(spiral, monkeypatch):
    X, y = spiral
    monkeypatch.setattr(lfs_method.LFSFixedPoint, "statistics", lambda *a: pytest.fail("work began"))
    with pytest.raises(ValueError, match="n_jobs"):
        LFS(alpha=2, n_jobs=0).fit(X, y)
    with pytest.raises(ValueError, match="backend='nope'"):
        LFS(alpha=2, backend="nope").fit(X, y)


@pytest.mark.parametrize("make, error, named", [
    (lambda: LOGO(fallback=[1]), TypeError, "fallback"),
    (lambda: LOGO(w0=["a"] * 6), TypeError, "w0"),
    (lambda: LOGO(w0=np.full(6, 1e200)), ValueError, "w0"),
    (lambda: NMMKL(n_features=2, lp_options={"tol": 0}), ValueError, "lp_options"),
    (lambda: NMMKL(n_features=2, solver_options={"tol": 0}), ValueError, "solver_options"),
])
def test_the_message_names_the_parameter(spiral, make, error, named):
    X, y = spiral
    with pytest.raises(error, match=named):
        make().fit(X, y)


def test_warnings_point_at_the_callers_line(spiral):
    """Planted: a stacklevel that does not count the fit's wrapper points at fsopt/core/validation.py."""
    X, y = spiral
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        LOGO(max_iter=1).fit(X, y)
        LOGO(lam=1e6).fit(X, y)
    assert {w.category for w in caught} >= {ConvergenceWarning, UserWarning}
    assert {w.filename for w in caught} == {__file__}


def test_an_lfs_fit_runs_blas_at_one_thread(spiral, monkeypatch):
    """As LOGO's and NMMKL's fits: OpenBLAS's spinning threads took the cores from the per-point
    LPs (a fit at 40 x 20,000 under load: 21 s against 1.1 s; planted: no limit sees 2 threads)."""
    from threadpoolctl import threadpool_info

    seen = []
    update = lfs_method.LFSFixedPoint.update

    def watched(self, *args):
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return update(self, *args)

    monkeypatch.setattr(lfs_method.LFSFixedPoint, "update", watched)
    LFS(alpha=2, tau=1, n_beta=3, n_rounding=5, random_state=0).fit(*spiral)
    assert seen and set(seen) == {1}
