"""Every answer in the user's units is unit-free or refused (issue 41).

X·c for c from 1e-306 to 1e306 gives every estimator's answer on X: the same supports, sets and
predictions, weights × 1/c and radii × c (LFS predicts in units of the typical spread, as it fits;
before, ``predict`` at X·1e-200 agreed with the unscaled fit on half the samples).  Refused by
design, with a ValueError naming the cause: a subnormal typical spread (X·1e-309 and below: X's
differences have lost bits), and, before any work, a feature wider than 2**26 typical spreads
(a feature 1e200 times the others), named by index or column name.
"""
import re
import time

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fsopt import LOGO
from fsopt.core.driver import FixedPointDriver
from fsopt.core.scaling import MAX_FEATURE_EXTENT, check_feature_extents, typical_spread
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS
from fsopt.nmmkl import NMMKL

SCALES = [1e-306, 1e-300, 1e-200, 1e-150, 1e-100, 1e-50, 1e-6, 1.0, 1e6, 1e50, 1e100, 1e150, 1e154,
          1e200, 1e300, 1e306]
SUBNORMAL = [1e-309, 1e-315, 1e-320]  # the typical spread of X·c is below 2.2e-308


def make_lfs():
    return LFS(alpha=2, tau=2, n_beta=4, n_rounding=50, n_jobs=1, random_state=0)  # pass 2: weights (10)


@pytest.fixture(scope="module")
def spiral():
    return make_spiral(30, 4, random_state=0)


@pytest.fixture(scope="module")
def lfs_data():
    """(train X, train y, held-out X): two relevant and three irrelevant features."""
    X, y = make_lfs_synthetic(10, 10, 20, n_irrelevant=3, random_state=0)
    return X, y, make_lfs_synthetic(10, 10, 20, n_irrelevant=3, random_state=1)[0]


@pytest.fixture(scope="module")
def references(spiral, lfs_data):
    X, y = spiral
    return {"LOGO": LOGO().fit(X, y), "NMMKL": NMMKL(2).fit(X, y), "LFS": make_lfs().fit(*lfs_data[:2])}


# --- X·c: the answer on X ----------------------------------------------------------------------
@pytest.mark.parametrize("c", SCALES)
def test_logo_fit_and_transform_at_any_scale(spiral, references, c):
    X, y = spiral
    ref = references["LOGO"]
    est = LOGO().fit(X * c, y)
    assert est.converged_ and np.array_equal(est.get_support(), ref.get_support())
    np.testing.assert_allclose(est.weights_ * c, ref.weights_, rtol=1e-9, atol=1e-12 * ref.weights_.max())
    np.testing.assert_array_equal(est.transform(X * c), (X * c)[:, ref.get_support()])


@pytest.mark.parametrize("c", SCALES)
def test_nmmkl_fit_and_transform_at_any_scale(spiral, references, c):
    X, y = spiral
    ref = references["NMMKL"]
    est = NMMKL(2).fit(X * c, y)
    assert np.array_equal(est.support_, ref.support_)
    assert est.partition_.tolist() == ref.partition_.tolist()
    # scores τ_i and α are in units of the typical spread: the same numbers at every scale
    np.testing.assert_allclose(est.scores_, ref.scores_, rtol=1e-6, atol=1e-9 * ref.scores_.max())
    np.testing.assert_allclose(est.alpha_, ref.alpha_, atol=1e-5 * est.C)  # to the solver's tolerance
    np.testing.assert_array_equal(est.transform(X * c), (X * c)[:, ref.support_])


@pytest.mark.parametrize("c", SCALES)
def test_lfs_fit_predict_and_score_at_any_scale(lfs_data, references, c):
    X, y, X_new = lfs_data
    ref = references["LFS"]
    est = make_lfs().fit(X * c, y)
    assert np.array_equal(est.fstar_, ref.fstar_)
    np.testing.assert_allclose(est.radius_, ref.radius_ * c, rtol=1e-12)
    for A in (X, X_new):  # the training samples and new ones
        np.testing.assert_array_equal(est.predict(A * c), ref.predict(A))
        S, votes = est.similarity(A * c)
        S_ref, votes_ref = ref.similarity(A)
        np.testing.assert_array_equal(S, S_ref)
        np.testing.assert_array_equal(votes, votes_ref)
    assert est.score(X_new * c, ref.predict(X_new)) == 1.0
    assert est.scale_ == pytest.approx(ref.scale_ * c, rel=1e-12)
    np.testing.assert_allclose(est.unit_radius_, ref.unit_radius_, rtol=1e-12)


def test_lfs_predict_in_the_users_units_is_caught(lfs_data, references):
    """The planted bug: ``predict`` measuring in X's own units (as before) at X·1e-200, where the
    squared distances underflow to 0 and every sample is inside every sphere."""
    X, y, X_new = lfs_data
    est = make_lfs().fit(X * 1e-200, y)
    est.scale_, est.unit_radius_ = 1.0, est.radius_
    agree = np.mean(est.predict(X * 1e-200) == references["LFS"].predict(X))
    assert agree < 0.9  # the property test_lfs_fit_predict_and_score_at_any_scale asserts fails


@pytest.mark.parametrize("make", [LOGO, lambda: NMMKL(2), make_lfs], ids=["LOGO", "NMMKL", "LFS"])
@pytest.mark.parametrize("c", SUBNORMAL)
def test_subnormal_units_are_refused_by_design(spiral, make, c):
    X, y = spiral
    s = typical_spread(X * c)
    assert 0 < s < np.finfo(float).tiny  # by design: below the smallest normal float64
    with pytest.raises(ValueError, match=r"typical spread of X is .*subnormal"):
        make().fit(X * c, y)


def test_lfs_predict_far_beyond_the_training_data_is_refused(lfs_data, references):
    X, _, _ = lfs_data
    far = X[:3].copy()
    far[1] *= 1e200  # 1e200 typical spreads away: its squared distances overflow float64
    with pytest.raises(ValueError, match=r"not finite at index \(1, 0\).*row of X is too far"):
        references["LFS"].predict(far)


# --- a feature 1e200 times the others: refused by name, before any work ----------------------
ESTIMATORS = {"LOGO": LOGO, "NMMKL": lambda: NMMKL(2), "LFS": make_lfs}


@pytest.fixture
def no_work(monkeypatch):
    """Fails the test if any fit reaches its driver (the statistics, the solves)."""
    monkeypatch.setattr(FixedPointDriver, "run", lambda *a: pytest.fail("the fit started its work"))


def widened(X, j, factor=1e200):
    X = X.copy()
    X[:, j] *= factor
    return X


@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("j", [0, -1], ids=["first", "last"])
@pytest.mark.parametrize("kind", ["array", "sparse", "frame"])
def test_a_feature_1e200_wider_is_refused_by_name(spiral, no_work, name, j, kind):
    X, y = spiral
    X = widened(X, j)
    index = j % X.shape[1]
    columns = [f"col_{k}" for k in range(X.shape[1])]
    X = {"array": X, "sparse": sp.csr_matrix(X), "frame": pd.DataFrame(X, columns=columns)}[kind]
    named = f"feature {index} ('col_{index}')" if kind == "frame" else f"feature {index} of X"
    with pytest.raises(ValueError, match=re.escape(named) + r".* spans .* typical spread .*2\*\*26"):
        ESTIMATORS[name]().fit(X, y)


def test_logo_refuses_a_wide_feature_of_a_dask_array(spiral, no_work):
    """X read one column block at a time: the bounds are read block by block too."""
    da = pytest.importorskip("dask.array")
    X, y = spiral
    with pytest.raises(ValueError, match="feature 3 of X spans"):
        LOGO().fit(da.from_array(widened(X, 3), chunks=(X.shape[0], 2)), y)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_refusal_leaves_a_previous_fit_intact(spiral, name):
    X, y = spiral
    est = ESTIMATORS[name]().fit(X, y)
    before = {k: v for k, v in vars(est).items() if k.endswith("_")}
    with pytest.raises(ValueError, match="spans"):
        est.fit(widened(X, 2), y)
    assert set(before) == {k for k in vars(est) if k.endswith("_")}
    assert all(before[k] is getattr(est, k) for k in before)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_refusal_is_fast_at_300_by_20000(no_work, name):
    """Under 5 s (measured: 0.4–0.8 s): the typical spread and one pass of column bounds."""
    rng = np.random.default_rng(0)
    X = widened(rng.standard_normal((300, 20_000)), -1)
    y = np.repeat([0, 1], 150)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="feature 19999 of X spans"):
        ESTIMATORS[name]().fit(X, y)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("name", ESTIMATORS)
def test_wdbc_with_one_feature_1e200_is_refused_by_column_name(no_work, name):
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)  # WDBC, 569 × 30, shipped with scikit-learn
    X = data.data.copy()
    X["worst area"] *= 1e200
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"feature 23 \('worst area'\) of X spans"):
        ESTIMATORS[name]().fit(X, data.target.to_numpy())
    assert time.perf_counter() - start < 5.0


def test_the_limit_is_2_to_the_26_typical_spreads():
    """The criterion itself: range (or largest |x|, NMMKL) / s ≤ 2**26; exactly at it is accepted."""
    X = np.array([[0.0, 0.0], [1.0, MAX_FEATURE_EXTENT]])
    check_feature_extents(X, 1.0)
    check_feature_extents(X, 1.0, centered=False)
    X[1, 1] = np.nextafter(MAX_FEATURE_EXTENT, np.inf)
    with pytest.raises(ValueError, match="feature 1 of X spans"):
        check_feature_extents(X, 1.0)
    offset = np.array([[0.0, 1e9], [1.0, 1e9 + 1.0]])  # a narrow feature far from 0
    check_feature_extents(offset, 1.0)  # LOGO, LFS: differences only
    with pytest.raises(ValueError, match=r"largest \|x\|: the linear kernels are not centered"):
        check_feature_extents(offset, 1.0, centered=False)  # NMMKL's uncentered kernels


@pytest.mark.parametrize("name", ["NMMKL", "LFS"])
def test_a_feature_1e6_wider_is_fitted(spiral, lfs_data, name):
    """Below the limit the check refuses nothing: a feature 10⁶ times the others is fitted."""
    X, y = spiral if name == "NMMKL" else lfs_data[:2]
    est = ESTIMATORS[name]().fit(widened(X, 0, 1e6), y)
    assert (est.support_ if name == "NMMKL" else est.fstar_).any()


def test_a_tiny_feature_is_no_refusal(spiral, references):
    """A feature 1e-200 times the others is negligible, not a numerical hazard: fitted, and LOGO
    selects what it selects without it."""
    X, y = spiral
    est = LOGO().fit(widened(X, 5, 1e-200), y)
    assert est.get_support()[:5].tolist() == references["LOGO"].get_support()[:5].tolist()
