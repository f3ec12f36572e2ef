"""The estimators at their edges: input of every wrong shape and type, fitted state before and
after fits that fail, parameters of the wrong type or range, and what survives pickling and
cloning.  Each case ends in a result whose property is checked, or in a ValueError, TypeError or
NotFittedError whose message names the cause (the row, the column, the parameter, the class):
never a traceback from deep inside NumPy, cvxpy or a solver, and never a warning-only result.

One small spiral (40 x 5); the whole module runs in about a minute on one core.
"""
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from fsopt import LFS, LOGO, NMMKL
from fsopt.datasets.spiral import make_spiral

MAKE = {
    "logo": lambda **kw: LOGO(**kw),
    "nmmkl": lambda **kw: NMMKL(**{"n_features": 2, **kw}),
    "lfs": lambda **kw: LFS(**{"alpha": 2, "tau": 1, "n_beta": 2, "n_rounding": 5, "random_state": 0, **kw}),
}
METHODS = list(MAKE)


@pytest.fixture(scope="module")
def data():
    return make_spiral(20, 3, random_state=0)


@pytest.fixture(scope="module")
def fitted(data):
    X, y = data
    return {name: make().fit(X, y) for name, make in MAKE.items()}


def answer(est, X):
    """What a fitted estimator gives for new X: LFS predicts, the selectors transform."""
    return est.predict(X) if isinstance(est, LFS) else est.transform(X)


# --- bad X and y at fit: (case, how to corrupt (X, y), error type, message pattern) ----------
def _with(X, row, col, value, dtype=float):
    X = X.astype(dtype)
    X[row, col] = value
    return X


def _other_label(y):
    return np.where(y == y[0], y[1 - int(y[1] == y[0])] if y[1] != y[0] else -y[0], y[0])


BAD_FIT_INPUT = [
    ("nan in X", lambda X, y: (_with(X, 3, 2, np.nan), y), ValueError, r"NaN or infinity at row 3, column 2"),
    ("inf in X", lambda X, y: (_with(X, 5, 0, np.inf), y), ValueError, r"NaN or infinity at row 5, column 0"),
    ("-inf in X", lambda X, y: (_with(X, 0, 4, -np.inf), y), ValueError, r"NaN or infinity at row 0, column 4"),
    ("None in object X", lambda X, y: (_with(X, 1, 1, None, object), y), (ValueError, TypeError), r"row 1, column 1"),
    ("text in object X", lambda X, y: (_with(X, 2, 3, "abc", object), y), (ValueError, TypeError), r"row 2, column 3"),
    ("complex X", lambda X, y: (X + 1j, y), ValueError, r"[Cc]omplex"),
    ("3-d X", lambda X, y: (X[:, :, None], y), ValueError, r"dim 3"),
    ("1-d X", lambda X, y: (X[:, 0], y), ValueError, r"2D array"),
    ("no rows", lambda X, y: (X[:0], y[:0]), ValueError, r"0 sample"),
    ("no columns", lambda X, y: (X[:, :0], y), ValueError, r"0 feature"),
    ("scalar X", lambda X, y: (np.float64(1.0), y), ValueError, r"2D array|scalar|inconsistent"),
    ("y shorter than X", lambda X, y: (X, y[:-1]), ValueError, r"inconsistent numbers of samples: \[40, 39\]"),
    ("y longer than X", lambda X, y: (X[:-1], y), ValueError, r"inconsistent numbers of samples: \[39, 40\]"),
    ("y None", lambda X, y: (X, None), ValueError, r"requires y"),
    ("nan in y", lambda X, y: (X, _with(y[:, None], 2, 0, np.nan)[:, 0]), ValueError, r"y contains NaN"),
    ("one class", lambda X, y: (X, np.ones(len(y))), ValueError, r"1 class"),
    ("continuous y", lambda X, y: (X, np.linspace(0, 1, len(y))), ValueError, r"[Uu]nknown label type: continuous"),
    ("2-column y", lambda X, y: (X, np.c_[y, y]), ValueError, r"1d array"),
    ("class with one sample", lambda X, y: (X, np.r_[y[:-1] * 0 + y[0], -y[0] if y[0] != 0 else 1]),
     ValueError, r"has 1 sample"),
    ("all features constant", lambda X, y: (np.ones_like(X), y), ValueError, r"no non-constant feature"),
    ("mixed int and str labels", lambda X, y: (X, np.array([1 if v > 0 else "a" for v in y], dtype=object)),
     TypeError, r"y mixes label types: 1 \(number\) at row 0 and .a. \(string\) at row 20"),
]


FITS_ANYWAY = {("nmmkl", "class with one sample")}  # an SVM needs no nearest hit


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case, corrupt, error, pattern", BAD_FIT_INPUT, ids=[c[0] for c in BAD_FIT_INPUT])
def test_bad_input_to_fit_is_refused_naming_the_cause(data, method, case, corrupt, error, pattern):
    X, y = corrupt(*data)
    est = MAKE[method]()
    if (method, case) in FITS_ANYWAY:  # a well-posed problem for this method: it must fit
        assert est.fit(X, y).get_support().sum() == est.n_features
        return
    with pytest.raises(error, match=pattern):
        est.fit(X, y)
    assert not [k for k in vars(est) if k.endswith("_") and not k.startswith("_")], "a failed first fit left fitted state"


# --- inputs that are unusual but valid: each fits, and to what the plain input gives ----------
GOOD_VARIANTS = [
    ("lists", lambda X, y: (X.tolist(), y.tolist())),
    ("float32", lambda X, y: (X.astype(np.float32).astype(np.float64).astype(np.float32), y)),
    ("Fortran order", lambda X, y: (np.asfortranarray(X), y)),
    ("non-contiguous view", lambda X, y: (np.repeat(X, 2, axis=1)[:, ::2], y)),
    ("string labels", lambda X, y: (X, np.where(y > 0, "plus", "minus").astype(object))),
    ("boolean labels", lambda X, y: (X, y > 0)),
    ("float labels", lambda X, y: (X, y.astype(float))),
    ("DataFrame and Series", lambda X, y: (pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])]),
                                           pd.Series(y, name="label"))),
    ("numeric strings", lambda X, y: (X.astype(str).astype(object), y)),
    ("read-only arrays", lambda X, y: (_read_only(X), _read_only(y))),
]


def _read_only(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case, variant", GOOD_VARIANTS, ids=[c[0] for c in GOOD_VARIANTS])
def test_an_unusual_but_valid_input_fits_like_the_plain_one(data, fitted, method, case, variant):
    X, y = data
    Xv, yv = variant(X, y)
    est = MAKE[method]().fit(Xv, yv)
    reference = fitted[method]
    if method == "lfs":
        np.testing.assert_array_equal(est.fstar_, reference.fstar_)
        assert (np.asarray(est.predict(Xv)) == est.classes_[np.searchsorted(reference.classes_, reference.predict(X))]).all() \
            if est.classes_.dtype == reference.classes_.dtype else len(est.predict(Xv)) == len(y)
    else:
        np.testing.assert_array_equal(est.get_support(), reference.get_support())
    assert est.n_features_in_ == X.shape[1]


# --- fitted state ------------------------------------------------------------------------------
BEFORE_FIT = {
    "logo": ["transform", "get_support", "inverse_transform", "get_feature_names_out", "scores_"],
    "nmmkl": ["transform", "get_support", "inverse_transform", "get_feature_names_out"],
    "lfs": ["predict", "score", "similarity"],
}


@pytest.mark.parametrize("method, use", [(m, u) for m, uses in BEFORE_FIT.items() for u in uses])
def test_using_an_unfitted_estimator_is_a_not_fitted_error(data, method, use):
    X, y = data
    est = MAKE[method]()
    if not hasattr(type(est), use):
        pytest.skip(f"{type(est).__name__} has no {use}")
    with pytest.raises(NotFittedError, match="not fitted"):
        attribute = getattr(est, use)  # a property (scores_) raises here
        attribute(*([X, y] if use == "score" else [] if use == "get_feature_names_out"
                    else [np.zeros((len(X), 2))] if use == "inverse_transform" else [X]))


AFTER_FIT_BAD = [
    ("one column more", lambda X: np.hstack([X, X[:, :1]]), ValueError, r"features"),
    ("one column less", lambda X: X[:, 1:], ValueError, r"features"),
    ("nan", lambda X: _with(X, 0, 1, np.nan), ValueError, r"NaN"),
    ("inf", lambda X: _with(X, 4, 0, np.inf), ValueError, r"NaN or infinity|infinity"),
    ("text", lambda X: _with(X, 1, 2, "x", object), (ValueError, TypeError), r"row 1, column 2|could not convert"),
    ("1-d", lambda X: X[0], ValueError, r"2D array"),
    ("3-d", lambda X: X[:, :, None], ValueError, r"dim 3"),
    ("no rows", lambda X: X[:0], ValueError, r"0 sample"),
    ("renamed columns", lambda X: pd.DataFrame(X, columns=[f"z{i}" for i in range(X.shape[1])]), ValueError,
     r"feature names"),
]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case, corrupt, error, pattern", AFTER_FIT_BAD, ids=[c[0] for c in AFTER_FIT_BAD])
def test_bad_input_after_fit_is_refused_and_the_fit_is_unchanged(data, method, case, corrupt, error, pattern):
    X, y = data
    names = [f"c{i}" for i in range(X.shape[1])]
    est = MAKE[method]().fit(pd.DataFrame(X, columns=names) if case == "renamed columns" else X, y)
    before = answer(est, pd.DataFrame(X, columns=names) if case == "renamed columns" else X)
    if method != "lfs" and case == "text":  # a selector only picks columns (as scikit-learn's do)
        dropped = np.flatnonzero(~est.get_support())[0]
        np.testing.assert_array_equal(np.asarray(answer(est, _with(X, 1, dropped, "x", object)), dtype=float), before)
        return
    with pytest.raises(error, match=pattern):
        answer(est, corrupt(X))
    np.testing.assert_array_equal(answer(est, pd.DataFrame(X, columns=names) if case == "renamed columns" else X),
                                  before)


@pytest.mark.parametrize("method", METHODS)
def test_a_single_new_row_is_answered_like_the_same_row_among_others(data, fitted, method):
    X, _ = data
    est = fitted[method]
    np.testing.assert_array_equal(np.asarray(answer(est, X[3:4]))[0], np.asarray(answer(est, X))[3])


@pytest.mark.parametrize("method", METHODS)
def test_a_pickled_fit_answers_like_the_original(data, fitted, method):
    X, _ = data
    copy = pickle.loads(pickle.dumps(fitted[method]))
    np.testing.assert_array_equal(answer(copy, X), answer(fitted[method], X))
    assert copy.get_params() == fitted[method].get_params() or method == "lfs"


@pytest.mark.parametrize("method", METHODS)
def test_a_clone_of_a_fit_is_unfitted_with_the_same_parameters(data, fitted, method):
    X, _ = data
    twin = clone(fitted[method])
    assert twin.get_params().keys() == fitted[method].get_params().keys()
    with pytest.raises(NotFittedError):
        answer(twin, X)


@pytest.mark.parametrize("method", METHODS)
def test_the_same_fit_twice_gives_the_same_answer(data, fitted, method):
    X, y = data
    again = MAKE[method]().fit(X, y)
    np.testing.assert_array_equal(answer(again, X), answer(fitted[method], X))


@pytest.mark.parametrize("method", METHODS)
def test_a_refit_on_other_data_replaces_every_fitted_attribute(data, method):
    X, y = data
    est = MAKE[method]().fit(X, y)
    wider = np.hstack([X, np.random.default_rng(1).standard_normal((len(X), 2))])
    est.fit(wider, y)
    assert est.n_features_in_ == wider.shape[1]
    assert np.asarray(answer(est, wider)).shape[0] == len(X)
    with pytest.raises(ValueError, match="features"):
        answer(est, X)


@pytest.mark.parametrize("method", METHODS)
def test_fit_does_not_modify_its_input(data, method):
    X, y = data
    X0, y0 = X.copy(), y.copy()
    MAKE[method]().fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("method", METHODS)
def test_unknown_parameters_are_refused_naming_them(method):
    with pytest.raises(ValueError, match="Invalid parameter 'bogus'"):
        MAKE[method]().set_params(bogus=1)


# --- every declared parameter, given a value of the wrong type ---------------------------------
class _Opaque:
    """A value no parameter accepts."""


def _parameter_cases():
    for method, make in MAKE.items():
        for name in sorted(type(make())._parameter_constraints):
            yield method, name


@pytest.mark.parametrize("method, name", list(_parameter_cases()))
def test_every_parameter_refuses_a_value_of_the_wrong_type_before_any_work(data, method, name):
    est = MAKE[method](**{name: _Opaque()})
    with pytest.raises((ValueError, TypeError), match=rf"'?{name}'?"):
        est.fit(*data)
    assert not hasattr(est, "n_features_in_")


NUMERIC_BAD = [float("nan"), float("inf"), -1, True]


def _numeric_cases():
    from sklearn.utils._param_validation import Interval

    for method, make in MAKE.items():
        for name, constraints in sorted(type(make())._parameter_constraints.items()):
            interval = [c for c in constraints if isinstance(c, Interval)]
            if interval:
                for value in NUMERIC_BAD:
                    if value == float("inf") and interval[0].right is None:
                        continue  # an unbounded parameter takes inf where it means "no limit"
                    if value == -1 and any(-1 in c for c in interval):  # (LFS's n_jobs = -1: every core)
                        continue
                    yield method, name, value


@pytest.mark.parametrize("method, name, value", list(_numeric_cases()))
def test_every_numeric_parameter_refuses_nan_negative_and_booleans(data, method, name, value):
    if method == "logo" and name == "sigma" and value == float("inf"):
        pytest.skip("sigma = inf is LOGO's 1-NN-free limit, accepted by design")
    est = MAKE[method](**{name: value})
    with pytest.raises((ValueError, TypeError), match=name):
        est.fit(*data)
