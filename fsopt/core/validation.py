"""Input checks shared by the estimators: scikit-learn's ``validate_data`` (shapes, complex and
empty input, ``y=None``, column-vector y, feature names, ``n_features_in_``) plus clear errors of
our own (the NaN's row and column, the non-numeric entry, the class that is too small), all raised
before any heavy work; :func:`transactional_fit` makes a failed fit leave the fitted state as it was."""
import functools
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import get_tags
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_X_y, validate_data


def validate_fit(estimator, X, y, *, accept_sparse=False, min_per_class=1):
    """fit's first step: (X as float64, y 1-D); sets ``n_features_in_`` and ``feature_names_in_``.

    Binary-only estimators say so through ``tags.classifier_tags.multi_class = False``; their y
    must then have exactly two classes.  Sparse X is accepted as CSR or CSC when ``accept_sparse``.
    """
    check_open(X)
    if isinstance(y, (list, tuple)) or getattr(y, "dtype", None) == object:  # named before sklearn's checks
        _check_label_types(np.asarray(y, dtype=object), "y")
    X, y = validate_data(estimator, X, y, accept_sparse=accept_sparse, dtype=None,
                         ensure_all_finite=False)
    tags = get_tags(estimator).classifier_tags
    binary = tags is not None and not tags.multi_class
    return _as_float(X), check_labels(y, min_per_class=min_per_class, binary=binary,
                                      who=type(estimator).__name__)


def transactional_fit(fit):
    """Decorator of an estimator's ``fit``: numeric parameters given as booleans are a TypeError
    (``max_iter=True`` is not 1), and a fit that raises leaves every attribute as it was before
    the call, so the previous fit stays intact and usable (scikit-learn: fitted state changes
    only when ``fit`` succeeds)."""
    @functools.wraps(fit)
    def transaction(self, *args, **kwargs):
        _reject_booleans(self)
        before = dict(vars(self))
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            vars(self).clear()
            vars(self).update(before)
            raise
    return transaction


def _reject_booleans(estimator):
    """TypeError for a bool given where the constraints accept numbers but not booleans."""
    for name, constraints in getattr(estimator, "_parameter_constraints", {}).items():
        value = getattr(estimator, name, None)
        if not isinstance(value, (bool, np.bool_)) or "boolean" in constraints or bool in constraints:
            continue
        if any(getattr(c, "type", None) in (numbers.Integral, numbers.Real) or c in (numbers.Integral, numbers.Real)
               for c in constraints):
            raise TypeError(f"{type(estimator).__name__}: {name} must be a number, not a boolean; got {value!r}")


def validate_predict(estimator, X, *, accept_sparse=False):
    """X at predict/transform time: same checks, and the features (count, names) of fit."""
    check_open(X)
    X = validate_data(estimator, X, reset=False, accept_sparse=accept_sparse, dtype=None,
                      ensure_all_finite=False)
    return _as_float(X)


def check_open(X, what="X"):
    """ValueError for an h5py dataset whose file is closed (h5py says only "RuntimeError: Unable
    to synchronously get dataspace")."""
    if type(X).__module__.startswith("h5py.") and hasattr(X, "id") and not X.id.valid:
        raise ValueError(f"{what} is an h5py dataset whose file is closed; fit while the file is open "
                         f"(inside `with h5py.File(...) as f:`) or read it first with X[:]")


def densify(X, limit_bytes, who):
    """Sparse X as a dense float64 array for a method without a sparse path, refused with a clear
    error when the dense copy would exceed ``limit_bytes``; dense X is returned unchanged."""
    if not sp.issparse(X):
        return X
    need = 8 * X.shape[0] * X.shape[1]
    if need > limit_bytes:
        raise ValueError(f"{who} works on dense data: sparse X of shape {X.shape} would take "
                         f"{need / 2**30:.2f} GiB dense, above the limit of "
                         f"{limit_bytes / 2**30:.2f} GiB; reduce the features first "
                         f"(e.g. a SelectKBest step)")
    return X.toarray()


def check_data(X, y, *, min_per_class=1, binary=False):
    """The same checks for functions (no estimator): (X as float64 2-D array, y 1-D)."""
    X, y = check_X_y(X, y, dtype=None, ensure_all_finite=False)
    return _as_float(X), check_labels(y, min_per_class=min_per_class, binary=binary)


def check_labels(y, *, min_per_class=1, binary=False, who="this method", what="y"):
    """y as class labels: no missing label, one type (numbers or strings, not both), discrete
    (scikit-learn's check), ≥ 2 classes, binary when required, and at least ``min_per_class``
    samples in each class; ``what`` names the labels (y, or a file's label column) in errors."""
    _check_label_types(np.asarray(y), what)
    check_classification_targets(y)
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError(f"y has {classes.size} class ({classes.tolist()}); at least 2 classes are needed")
    if binary and classes.size != 2:
        raise ValueError(f"Only binary classification is supported: {who} is a two-class method; "
                         f"y is {type_of_target(y)} with {classes.size} classes: {classes.tolist()}")
    few = classes[counts < min_per_class]
    if few.size:
        raise ValueError(
            f"class {few.tolist()[0]!r} has {counts[counts < min_per_class][0]} sample(s); "
            f"each class needs at least {min_per_class}"
        )
    return y


def _check_label_types(y, what):
    """ValueError at a missing label (None, NaN) and TypeError when labels of several types
    (e.g. ints and strings) are mixed, naming ``what`` and the rows, instead of scikit-learn's
    "Unknown label type: unknown"."""
    if y.dtype != object or y.ndim != 1:
        return
    types = set(map(type, y.tolist()))
    if len(types) == 1 and issubclass(types.pop(), (str, numbers.Integral)):  # the common case, fast
        return
    kinds = np.frompyfunc(_label_kind, 1, 1)(y)
    missing = np.flatnonzero(kinds == "missing")
    if missing.size:
        raise ValueError(f"{what} has a missing label (None or NaN) at row {missing[0]}")
    other = np.flatnonzero(kinds != kinds[0]) if kinds.size else []
    if len(other):
        j = int(other[0])
        raise TypeError(f"{what} mixes label types: {y[0]!r} ({kinds[0]}) at row 0 and {y[j]!r} "
                        f"({kinds[j]}) at row {j}; give every label the same type (e.g. all strings)")


def _label_kind(value) -> str:
    if value is None or (isinstance(value, (float, np.floating)) and np.isnan(value)):
        return "missing"
    if isinstance(value, (str, np.str_)):
        return "string"
    if isinstance(value, (numbers.Real, np.bool_)):
        return "number"
    return type(value).__name__


def _as_float(X, what="X"):
    """X (dense 2-D or CSR/CSC, already shape-checked by scikit-learn) as finite float64."""
    if sp.issparse(X):
        if X.dtype.kind not in "biuf":
            raise TypeError(f"sparse {what} must be numeric; got dtype {X.dtype}")
        X = X.astype(np.float64, copy=False)
        bad = ~np.isfinite(X.data)
        if bad.any():
            row, col = _sparse_position(X, int(np.flatnonzero(bad)[0]))
            raise ValueError(f"{what} contains NaN or infinity at row {row}, column {col}")
        return X
    if X.dtype.kind not in "biuf":
        try:
            X = X.astype(np.float64, copy=False)
        except (TypeError, ValueError) as exc:
            row, col = _first_non_numeric(X)
            raise TypeError(f"{what} must be numeric; entry at row {row}, column {col} is "
                            f"{X[row, col]!r} ({exc})") from None
    X = np.ascontiguousarray(X, dtype=np.float64)
    finite = np.isfinite(X)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise ValueError(f"{what} contains NaN or infinity at row {row}, column {col}")
    return X


def _sparse_position(X, k):
    """(row, column) of the k-th stored entry of a CSR or CSC matrix."""
    major = int(np.searchsorted(X.indptr, k, side="right") - 1)
    minor = int(X.indices[k])
    return (major, minor) if X.format == "csr" else (minor, major)


def _first_non_numeric(arr):
    for idx in np.ndindex(arr.shape):
        try:
            float(arr[idx])
        except (TypeError, ValueError):
            return idx
    return 0, 0


def check_random_state_seed(random_state):
    """A numpy Generator from None / int / Generator."""
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.Generator)):
        return np.random.default_rng(random_state)
    raise TypeError(f"random_state must be None, an int or a numpy Generator; got {type(random_state).__name__}")


def feature_names(estimator, names=None):
    """The names of a fitted estimator's features, as an array of str: ``names`` if given, else
    ``feature_names_in_`` (fitted on a DataFrame), else scikit-learn's ``x0, x1, …``."""
    n = estimator.n_features_in_
    if names is None:
        names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        return np.array([f"x{j}" for j in range(n)], dtype=object)
    names = np.asarray(names, dtype=object).astype(str)
    if names.shape != (n,):
        raise ValueError(f"names must give one name per feature ({n}); got {names.size}")
    return names
