"""Data: generators, the benchmark data shipped with fsopt and a loader for their CSV format.

``load_dataset`` takes a name (looked up in ``$FSOPT_DATA``, then in the copy shipped in this
package, ``fsopt/datasets/data/``, whose README gives each file's source), a directory or a file
(``.csv`` or ``.csv.gz``: feature columns and a ``label`` column).  Nothing is downloaded;
``"wdbc"`` comes from scikit-learn's bundled copy.
"""
from __future__ import annotations

import gzip
import importlib.resources
import io
import os
import warnings
import zlib
from pathlib import Path

import numpy as np

from ..core.limits import check_count, check_memory
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


def load_dataset(source, data_dir=None, *, label=None, allow_missing=False, as_frame=False,
                 label_hint="label=NAME"):
    """Return ``(X, y)`` from a name, a directory+name, or a file path.

    ``source`` may be ``"wdbc"`` (scikit-learn's bundled copy), a path to a CSV file, or a
    name found in ``data_dir`` / the default data directories.  ``label`` names the label column
    (required when the file has none called ``label``); ``allow_missing`` keeps missing cells as NaN;
    ``as_frame`` returns X as a pandas DataFrame whose columns are the feature names; ``label_hint``
    is how an error tells to name the label column (``"--label NAME"`` on the command line).
    A source that looks like a path (``.csv``, ``.csv.gz`` or a directory separator) and is no file
    is reported as missing, not looked up as a name.
    """
    if str(source).lower() == "wdbc":
        from sklearn.datasets import load_breast_cancer

        data = load_breast_cancer(as_frame=as_frame)
        return data.data.astype(float), np.where(data.target == 0, "M", "B")
    path = Path(source)
    if not path.is_file():
        text = str(source)
        found = available_datasets(data_dir)
        if path.is_dir() and text not in found:
            raise ValueError(f"{source}: a directory, not a data file (give a .csv or .csv.gz in it)")
        if text.endswith(_SUFFIXES) or any(sep and sep in text for sep in (os.sep, os.altsep)):
            raise ValueError(f"{source}: no such file")
        if text not in found:
            where = str(data_dir) if data_dir else "$FSOPT_DATA or the data shipped with fsopt"
            raise ValueError(
                f"data set {source!r} not found: not a file, and not a data set in {where} "
                f"(known: {', '.join(sorted(found)) or 'none'}, plus 'wdbc'); pass a path to a .csv file"
            )
        path = found[text]
    return read_csv(path, label=label, allow_missing=allow_missing, as_frame=as_frame, label_hint=label_hint)


def read_csv(path, label=None, allow_missing=False, as_frame=False, label_hint="label=NAME"):
    """One file in the data sets' format: features and a label column; labels kept as given.

    The label column is ``label`` unless ``label`` names another; a file without a ``label`` column
    and no ``label`` given is refused (its last column is not taken silently).  Missing cells are
    refused unless ``allow_missing`` (then they are NaN, for an imputation fitted later).
    ``as_frame`` returns X as a DataFrame (the file's feature columns) instead of an array;
    ``label_hint`` is how the error of a file without a label column tells to name it.

    Only CSV text is read (``.csv``, or gzip-compressed ``.csv.gz``); anything else (an empty
    file, binary data, a pickle, parquet, npz ...) is a ValueError naming the file, and nothing is
    ever unpickled.  Duplicate column names are refused, not renamed.
    """
    import pandas as pd

    path = Path(path)
    text = _csv_text(path)
    try:
        with warnings.catch_warnings():  # a row longer than the header: an error, not lost cells
            warnings.simplefilter("error", pd.errors.ParserWarning)
            header = pd.read_csv(text, header=None, nrows=1, dtype=str, keep_default_na=False).iloc[0]
            text.seek(0)
            frame = pd.read_csv(text, index_col=False)
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError, pd.errors.ParserWarning) as exc:
        raise ValueError(f"{path}: cannot be read as CSV ({type(exc).__name__}: {exc})") from None
    seen = [str(name) for name in header]
    twice = sorted({name for name in seen if seen.count(name) > 1})
    if twice:
        raise ValueError(f"{path}: duplicate column name(s) {', '.join(map(repr, twice))}; "
                         f"every column needs its own name")
    if frame.empty:
        raise ValueError(f"{path}: has no data rows (columns {', '.join(map(str, frame.columns)) or 'none'})")
    if frame.shape[1] < 2:
        raise ValueError(f"{path}: needs at least one feature column and a label column")
    if label is None and "label" not in frame.columns:
        raise ValueError(f"{path}: no 'label' column; name the class column with {label_hint}; "
                         f"columns: {_column_list(frame.columns)}")
    label_col = "label" if label is None else str(label)
    if label_col not in frame.columns:
        raise ValueError(f"{path}: label column {label_col!r} not found; columns: {_column_list(frame.columns)}")
    y = frame.pop(label_col).to_numpy()
    if pd.isna(y).any():
        raise ValueError(f"{path}: label column {label_col!r} has a missing value at row {int(np.flatnonzero(pd.isna(y))[0])}")
    for column in frame.columns:
        if frame[column].dtype.kind not in "biuf":
            values = frame[column]
            bad = np.flatnonzero(values.notna() & pd.to_numeric(values, errors="coerce").isna())
            row = int(bad[0]) if bad.size else 0
            raise TypeError(f"{path}: column {column!r} is not numeric: row {row} (line {row + 2} of the "
                            f"file) holds {values.iloc[row]!r}")
    X = frame.to_numpy(dtype=float)
    if np.isinf(X).any() or (np.isnan(X).any() and not allow_missing):
        row, col = np.argwhere(np.isinf(X) | (np.isnan(X) & (not allow_missing)))[0]
        what = "an infinite value" if np.isinf(X[row, col]) else "missing value"
        raise ValueError(f"{path}: {what} at row {row}, column {frame.columns[col]!r}"
                         f"{'' if np.isinf(X[row, col]) else '; impute it first'}")
    return (frame.astype(float), y) if as_frame else (X, y)


# the first bytes of formats that are not CSV text (a pickle: protocol 2 and later)
_MAGIC = {b"\x1f\x8b": "gzip-compressed", b"PK\x03\x04": "a zip archive (npz, xlsx ...)",
          b"PAR1": "a parquet file", b"\x93NUMPY": "a NumPy .npy file", b"\x89HDF": "an HDF5 file",
          b"ARROW1": "an Arrow/feather file", b"BZh": "bzip2-compressed", b"\xfd7zXZ": "xz-compressed",
          b"\x28\xb5\x2f\xfd": "zstd-compressed", **{bytes([0x80, p]): "a Python pickle" for p in range(2, 6)}}


def _csv_text(path) -> io.BytesIO:
    """The bytes of ``path`` (decompressed for ``.csv.gz``), checked to be non-empty UTF-8 text;
    an empty file, a broken or truncated gzip stream, binary data or a known non-CSV format is a
    ValueError naming the file."""
    if not path.is_file():
        raise ValueError(f"{path}: not a file")
    gz = path.name.endswith(".gz")
    try:
        with (gzip.open(path, "rb") if gz else open(path, "rb")) as fh:
            data = fh.read()
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ValueError(f"{path}: not a complete gzip file ({type(exc).__name__}: {exc}); a .csv.gz "
                         f"must be gzip-compressed CSV text") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not data.strip():
        raise ValueError(f"{path}: is empty{' once decompressed' if gz else ''}; a data file holds a "
                         f"header line and data rows")
    kind = next((name for magic, name in _MAGIC.items() if data.startswith(magic)), None)
    if kind is None and b"\x00" in data[:65536]:
        kind = "binary data"
    if kind is None:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            kind = f"not UTF-8 text (byte {exc.start}, line {line})"
    if kind is not None:
        raise ValueError(f"{path}: is {kind}, not CSV text; fsopt reads data only from CSV files "
                         f"(.csv, or .csv.gz compressed with gzip) and never unpickles anything")
    return io.BytesIO(data)


def _column_list(columns, shown=6) -> str:
    """All column names, or the first and last ``shown`` of many with their count."""
    names = [str(c) for c in columns]
    if len(names) <= 2 * shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])}, … , {', '.join(names[-shown:])} ({len(names)} columns)"


def add_irrelevant_features(X, n_irrelevant, random_state=None, what="n_irrelevant"):
    """Append ``n_irrelevant`` independent N(0, 1) columns (the papers' irrelevant features);
    ``what`` names the count in errors (its size is checked against memory before drawing)."""
    k = check_count(n_irrelevant, what)
    check_memory(X.shape[0], X.shape[1] + k, f"{what} = {k}")
    rng = check_random_state_seed(random_state)
    return np.hstack([X, rng.standard_normal((X.shape[0], k))])


def standardize(X_train, *others):
    """z-score with the training mean and standard deviation (constant columns left centred)."""
    mu, sd = X_train.mean(axis=0), X_train.std(axis=0)
    sd[sd == 0] = 1.0
    out = [(X_train - mu) / sd] + [(X - mu) / sd for X in others]
    return out[0] if not others else tuple(out)
