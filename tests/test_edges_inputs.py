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


def test_the_certificate_scale_is_the_weights_only_below_the_objective_at_zero(spiral):
    X, y = spiral
    garrote = GarroteLogistic(lam=1.0, Z=np.abs(X[:, :3]) + 1.0)  # margins that grow with w
    at_zero = garrote.objective({"w": np.zeros(3)})
    scales = {}
    for top in (0.5, 2.0, 10.0, 1e3, 1e20):
        w = np.full(3, top)
        below = garrote.objective({"w": w}) <= at_zero
        scales[top] = garrote.certificate_scale({"w": w})
        assert scales[top] == (max(1.0, top) if below else 1.0)
    assert scales[1e20] == 1.0 and scales[2.0] == 2.0  # both sides are taken
    assert garrote.certificate_scale({"w": np.full(7, 1e3)}) == 1e3  # w over other features: as before


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
