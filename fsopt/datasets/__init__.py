"""Data: generators, the benchmark data shipped with fsopt and a loader for their CSV format.

``load_dataset`` takes a name (looked up in ``$FSOPT_DATA``, then in the copy shipped in this
package, ``fsopt/datasets/data/``, whose README gives each file's source), a directory or a file
(``.csv`` or ``.csv.gz``: feature columns and a ``label`` column).  Nothing is downloaded;
``"wdbc"`` comes from scikit-learn's bundled copy.
"""
from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

import numpy as np

from ..core.validation import check_random_state_seed

_SUFFIXES = (".csv.gz", ".csv")


def packaged_data_dir() -> Path:
    """The directory of the benchmark data shipped with fsopt (its README: sources and contents)."""
    return Path(str(importlib.resources.files(__name__) / "data"))


def default_data_dirs() -> list[Path]:
    """``$FSOPT_DATA`` (os.pathsep separated, the user's own files first), then the packaged data."""
    dirs = [Path(p) for p in os.environ.get("FSOPT_DATA", "").split(os.pathsep) if p]
    return dirs + [packaged_data_dir()]


def available_datasets(data_dir=None) -> dict[str, Path]:
    """Data set names found in the data directories (plus the built-in ``wdbc``)."""
    found = {}
    for d in [Path(data_dir)] if data_dir else default_data_dirs():
        if d.is_dir():
            for path in sorted(d.iterdir()):
                for suf in _SUFFIXES:
                    if path.name.endswith(suf):
                        found.setdefault(path.name[: -len(suf)], path)
    return found


def load_dataset(source, data_dir=None, *, label=None, allow_missing=False, as_frame=False):
    """Return ``(X, y)`` from a name, a directory+name, or a file path.

    ``source`` may be ``"wdbc"`` (scikit-learn's bundled copy), a path to a CSV file, or a
    name found in ``data_dir`` / the default data directories.  ``label`` names the label column
    (required when the file has none called ``label``); ``allow_missing`` keeps missing cells as NaN;
    ``as_frame`` returns X as a pandas DataFrame whose columns are the feature names.
    """
    if str(source).lower() == "wdbc":
        from sklearn.datasets import load_breast_cancer

        data = load_breast_cancer(as_frame=as_frame)
        return data.data.astype(float), np.where(data.target == 0, "M", "B")
    path = Path(source)
    if not path.is_file():
        found = available_datasets(data_dir)
        if str(source) not in found:
            where = [str(data_dir)] if data_dir else [str(d) for d in default_data_dirs()]
            raise ValueError(
                f"data set {source!r} not found: not a file, and not in {', '.join(where)} "
                f"(known: {', '.join(sorted(found)) or 'none'}, plus 'wdbc'); set FSOPT_DATA or pass a path"
            )
        path = found[str(source)]
    return read_csv(path, label=label, allow_missing=allow_missing, as_frame=as_frame)


def read_csv(path, label=None, allow_missing=False, as_frame=False):
    """One file in the data sets' format: features and a label column; labels kept as given.

    The label column is ``label`` unless ``label`` names another; a file without a ``label`` column
    and no ``label`` given is refused (its last column is not taken silently).  Missing cells are
    refused unless ``allow_missing`` (then they are NaN, for an imputation fitted later).
    ``as_frame`` returns X as a DataFrame (the file's feature columns) instead of an array.
    """
    import pandas as pd

    frame = pd.read_csv(path)
    if frame.empty:
        raise ValueError(f"{path}: has no data rows (columns {', '.join(map(str, frame.columns)) or 'none'})")
    if frame.shape[1] < 2:
        raise ValueError(f"{path}: needs at least one feature column and a label column")
    if label is None and "label" not in frame.columns:
        raise ValueError(f"{path}: no 'label' column; name the label column (--label COLUMN, label=); "
                         f"columns: {', '.join(map(str, frame.columns[:8]))}{' …' if frame.shape[1] > 8 else ''}")
    label_col = "label" if label is None else str(label)
    if label_col not in frame.columns:
        raise ValueError(f"{path}: label column {label_col!r} not found")
    y = frame.pop(label_col).to_numpy()
    if pd.isna(y).any():
        raise ValueError(f"{path}: label column {label_col!r} has a missing value at row {int(np.flatnonzero(pd.isna(y))[0])}")
    bad = [c for c in frame.columns if frame[c].dtype.kind not in "biuf"]
    if bad:
        raise TypeError(f"{path}: column {bad[0]!r} is not numeric")
    X = frame.to_numpy(dtype=float)
    if np.isnan(X).any() and not allow_missing:
        row, col = np.argwhere(np.isnan(X))[0]
        raise ValueError(f"{path}: missing value at row {row}, column {frame.columns[col]!r}; impute it first")
    return (frame.astype(float), y) if as_frame else (X, y)


def add_irrelevant_features(X, n_irrelevant, random_state=None):
    """Append ``n_irrelevant`` independent N(0, 1) columns (the papers' irrelevant features)."""
    if n_irrelevant < 0:
        raise ValueError(f"n_irrelevant must be >= 0; got {n_irrelevant}")
    rng = check_random_state_seed(random_state)
    return np.hstack([X, rng.standard_normal((X.shape[0], int(n_irrelevant)))])


def standardize(X_train, *others):
    """z-score with the training mean and standard deviation (constant columns left centred)."""
    mu, sd = X_train.mean(axis=0), X_train.std(axis=0)
    sd[sd == 0] = 1.0
    out = [(X_train - mu) / sd] + [(X - mu) / sd for X in others]
    return out[0] if not others else tuple(out)
