"""Input checks shared by the estimators: clear errors before any heavy work."""
import numbers

import numpy as np


def check_data(X, y=None, *, min_classes=2, min_per_class=1, binary=False, what="X"):
    """Return (X as float64 2-D array, y as 1-D array) or raise a ValueError/TypeError naming the problem."""
    X = _as_numeric_matrix(X, what)
    if y is None:
        return X, None
    y = np.asarray(y)
    if y.ndim != 1:
        if y.ndim == 2 and 1 in y.shape:
            y = y.ravel()
        else:
            raise ValueError(f"y must be 1-D (one label per row of {what}); got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"{what} has {X.shape[0]} rows but y has {y.shape[0]} labels; they must match")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        bad = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"y contains NaN or infinity (row {bad})")
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < min_classes:
        raise ValueError(
            f"y has {classes.size} class ({classes.tolist()}); at least {min_classes} classes are needed"
        )
    if binary and classes.size != 2:
        raise ValueError(f"y must be binary; it has {classes.size} classes: {classes.tolist()}")
    few = classes[counts < min_per_class]
    if few.size:
        raise ValueError(
            f"class {few[0].item()!r} has {counts[counts < min_per_class][0]} sample(s); "
            f"each class needs at least {min_per_class}"
        )
    return X, y


def _as_numeric_matrix(X, what):
    if hasattr(X, "to_numpy"):  # pandas
        X = X.to_numpy()
    try:
        arr = np.asarray(X)
    except ValueError as exc:  # ragged rows
        raise ValueError(f"{what} is not a rectangular array: {exc}") from None
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            row, col = _first_non_numeric(arr)
            raise TypeError(
                f"{what} must be numeric; entry at row {row}, column {col} is {arr[row, col]!r}"
            ) from None
    if arr.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (samples x features); got {arr.ndim}-D")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{what} is empty: shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    finite = np.isfinite(arr)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        raise ValueError(f"{what} contains NaN or infinity at row {row}, column {col}")
    return arr


def _first_non_numeric(arr):
    arr = np.atleast_2d(arr)
    for idx in np.ndindex(arr.shape):
        try:
            float(arr[idx])
        except (TypeError, ValueError):
            return idx[0], idx[1]
    return 0, 0


def check_random_state_seed(random_state):
    """A numpy Generator from None / int / Generator."""
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.Generator)):
        return np.random.default_rng(random_state)
    raise TypeError(f"random_state must be None, an int or a numpy Generator; got {type(random_state).__name__}")
