"""The estimators stay consistent: fitted state changes only when a fit succeeds, labels of any
dtype (strings from a pandas column), numeric parameters are not booleans, clear errors for a
solver that cannot solve the chosen form, a numpy Generator as LFS's random_state."""
import numpy as np
import pandas as pd
import pytest

from fsopt import LOGO
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS
from fsopt.nmmkl import NMMKL

LFS_TINY = dict(alpha=2, tau=1, n_beta=2, n_rounding=5, random_state=0)


@pytest.fixture(scope="module")
def data():
    return make_spiral(30, 3, random_state=0)


@pytest.mark.parametrize("make", [LOGO, lambda: NMMKL(2), lambda: LFS(**LFS_TINY)], ids=["logo", "nmmkl", "lfs"])
def test_a_failed_refit_leaves_the_previous_fit_intact_and_usable(data, make):
    X, y = data
    est = make().fit(X, y)
    state = {k: v for k, v in vars(est).items() if k.endswith("_")}
    use = est.transform if hasattr(est, "transform") else est.predict  # LFS is a classifier
    selected = use(X)
    with pytest.raises(ValueError, match="unknown solver 'NOPE'"):
        est.set_params(solver="NOPE").fit(np.hstack([X, X[:, :2]]), y)
    assert {k: v for k, v in vars(est).items() if k.endswith("_")}.keys() == state.keys()
    assert est.n_features_in_ == X.shape[1] and est.solver == "NOPE"  # the parameter is the user's
    np.testing.assert_array_equal(use(X), selected)
    with pytest.raises(ValueError, match="features"):
        use(np.hstack([X, X[:, :2]]))  # still the old width


@pytest.mark.parametrize("make", [LOGO, lambda: LFS(**LFS_TINY)], ids=["logo", "lfs"])
def test_a_too_small_class_of_string_labels_is_a_clear_error(make):
    X = np.random.default_rng(0).standard_normal((5, 3))
    y = pd.Series(["a", "a", "a", "b", "a"]).to_numpy()  # object dtype, as pandas gives
    with pytest.raises(ValueError, match="class 'b' has 1 sample"):
        make().fit(X, y)


def test_string_labels_fit_like_integer_labels(data):
    X, y = data
    named = np.where(y > 0, "plus", "minus").astype(object)
    np.testing.assert_allclose(LOGO().fit(X, named).weights_, LOGO().fit(X, y).weights_)
    assert set(NMMKL(2).fit(X, named).classes_) == {"minus", "plus"}


@pytest.mark.parametrize("param", ["max_iter", "prune_patience"])
def test_booleans_are_not_integers(data, param):
    with pytest.raises(TypeError, match=f"LOGO: {param} must be a number, not a boolean; got True"):
        LOGO(**{param: True}).fit(*data)


def test_beta_with_a_solver_that_cannot_solve_form_8_names_the_solvers_that_can(data):
    with pytest.raises(ValueError, match=r"solver 'LBFGSB' cannot solve garrote_logistic \(8\).*"
                                         r"suitable installed solvers: CLARABEL"):
        LOGO(beta=1.0, solver="LBFGSB").fit(*data)
    assert LOGO(beta=1.0, solver="CLARABEL").fit(*data).weights_.sum() <= 1.0 + 1e-6
    assert LOGO(beta=1.0).fit(*data).weights_.sum() <= 1.0 + 1e-6  # solver="auto": one that can


def test_lfs_takes_a_numpy_generator_as_random_state(data):
    X, y = data
    first = LFS(**dict(LFS_TINY, random_state=np.random.default_rng(7))).fit(X, y)
    second = LFS(**dict(LFS_TINY, random_state=np.random.default_rng(7))).fit(X, y)
    np.testing.assert_array_equal(first.fstar_, second.fstar_)
