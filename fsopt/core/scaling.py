"""The units of X: one global scale, so that no result depends on them.

Every estimator divides X by its *typical spread* s — the median over the non-constant features
of a robust spread (interquartile range / 1.349, the standard deviation where the quartiles
coincide), taken as exactly 1 within 1e-12 of it — right after validating it, so that no single
row (an outlier at 10⁶) decides the units, and maps its unit-bearing outputs back
(LOGO's weights ×1/s, LFS's radii ×s).  So σ (LOGO, LFS), τ and C (NMMKL) are in units of the
data's typical spread: on normal data s ≈ 1 (its standard deviation); on X·c every selection
is the one on X.  One scale for all features keeps their relative scales (which the methods
use); a per-feature standardization would change the problem and is left to the user.
Constant features (max = min) carry no information: :func:`constant_features` finds them and
each method documents what it does with them (never selected).  Refused, with a ValueError naming
the cause, before any work: a subnormal s (:func:`unit_scale`), and a feature wider than
``MAX_FEATURE_EXTENT`` = 2²⁶ typical spreads (:func:`check_feature_extents`, named by index and
column name), which no float64 computation can weigh against the others.  New X at predict time
is divided by the fitted s (LFS's ``scale_``).
"""
from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from .kernels import kernel_threads


def constant_features(X) -> np.ndarray:
    """Boolean mask of the columns of X (dense or sparse) whose entries are all equal."""
    if sp.issparse(X):
        X = sp.csc_matrix(X)
        return (X.max(axis=0) - X.min(axis=0)).toarray().ravel() == 0
    return np.ptp(X, axis=0) == 0


_NORMAL_IQR = 1.3489795003921634  # interquartile range of N(0, 1): IQR / this estimates σ


def typical_spread(X) -> float:
    """Median over the non-constant columns of X of a per-column spread that one row cannot move:
    the interquartile range / 1.349 (σ for normal data), or, where the quartiles coincide (a
    column zero in over half its rows, binary columns), the standard deviation.  Overflow-safe
    (each column divided by its largest |x| first); read one column block at a time (dense,
    dask, zarr or h5py X; no copy of X), sparse X from its stored entries (never densified).
    One outlier row moves no quartile by more than one rank, so it cannot rescale the other rows
    (the standard deviation it replaces could: one row at 10³ among 60 N(0, 1) rows made it
    ≈ 130)."""
    from .blocks import column_blocks

    if sp.issparse(X):
        spreads = _sparse_spreads(X)
    else:
        blocks = [X] if isinstance(X, np.ndarray) else (block for _, _, block in column_blocks(X))
        spreads = [_dense_spreads(block) for block in blocks]  # read in place, in float64
        spreads = np.concatenate(spreads) if spreads else np.zeros(0)
    if not spreads.size:
        raise ValueError(f"X has no non-constant feature (all {X.shape[1]} columns are constant); "
                         "there is nothing to select from")
    return float(np.median(spreads))


def _robust_spread(q1, q3, std):
    """(q3 − q1) / 1.349 where the quartiles differ, else the standard deviation."""
    return np.where(q3 > q1, (q3 - q1) / _NORMAL_IQR, std)


def _dense_spreads(block):
    """The robust spread of each non-constant column of a dense block: the quartiles, largest |x|
    (and standard deviation where the quartiles coincide) of each column by a compiled kernel that
    copies eight columns at a time into a buffer of its own (each column's values contiguous there;
    the quartiles by selection, not sorting), where ``np.percentile(unit, [25, 75], axis=0)`` on
    the strided columns took 0.3–0.55 s of a 460 × 20,000 fit, and a transposed copy of each block
    0.07 s of the 0.15 s this took then (0.03 s now; ``tests/test_outlier_units.py`` checks it
    against NumPy).
    Any float type: each value is read into the float64 buffer (no float64 copy of X)."""
    q1, q3, std, top = np.empty((4, block.shape[1]))
    numba.set_num_threads(kernel_threads())
    (lo1, hi1, t1), (lo3, hi3, t3) = _percentile_positions(block.shape[0], (25, 75))
    _column_statistics(block, lo1, hi1, t1, lo3, hi3, t3, q1, q3, std, top)
    varying = top > 0
    return _robust_spread(q1[varying], q3[varying], std[varying]) * top[varying]


def _percentile_positions(N, q):
    """For each percentile in ``q`` of N sorted values: (lo, hi, t), the percentile being the
    values of rank lo and hi interpolated by t (``np.percentile``'s linear method)."""
    out = []
    for quantile in np.atleast_1d(np.asarray(q, dtype=np.float64)) / 100:
        h = (N - 1) * quantile
        lo = int(np.floor(h))
        out.append((lo, min(lo + 1, N - 1), h - lo))
    return out


@numba.njit(parallel=True, cache=True, nogil=True)
def _column_statistics(X, lo1, hi1, t1, lo3, hi3, t3, q1, q3, std, top):
    """For each column of X divided by its largest |x| (``top``; 0 for a constant column, whose
    other entries are not set): the quartiles, and the standard deviation where they coincide (the
    only columns whose spread reads it; elsewhere ``std`` is not set).  The division keeps the
    order, so the ranks are selected on x and then divided.  Columns in groups of eight (a cache
    line of each row), copied into a buffer, one group per task; the upper quartile is selected
    among the values above the lower one only, in a copy: the standard deviation sums the column in
    the rows' order, as before.  Plain loops: 2.5 s to compile on a fresh cache (1.7 s with
    Hoare's selection alone), against 12.5 s with ``np.partition``."""
    N, J = X.shape
    for group in numba.prange((J + 7) // 8):
        j0 = 8 * group
        width = min(8, J - j0)
        columns, work = np.empty((width, N)), np.empty(N)
        for n in range(N):
            for c in range(width):
                columns[c, n] = X[n, j0 + c]
        for c in range(width):
            j = j0 + c
            col = columns[c]
            low, high = col[0], col[0]
            for v in col:
                low, high = min(low, v), max(high, v)
            if low == high:
                top[j] = 0.0
                continue
            top[j] = scale = max(-low, high)
            work[:] = col  # reordered by the selection; col keeps the rows' order
            q1[j] = _quantile(work, 0, lo1, hi1, t1, scale)
            q3[j] = _quantile(work, lo1 + 1 if lo3 > lo1 else 0, lo3, hi3, t3, scale)
            if q3[j] > q1[j]:
                continue
            total = 0.0
            for v in col:
                total += v / scale
            mean, total = total / N, 0.0
            for v in col:
                total += (v / scale - mean) ** 2
            std[j] = np.sqrt(total / N)


@numba.njit(cache=True, nogil=True)
def _quantile(work, start, lo, hi, t, top):
    """The values of rank lo and hi of ``work`` (reordered in place; ranks below ``start`` are
    already in place, as :func:`_select` leaves them), each divided by ``top``, interpolated by t
    as ``np.percentile``'s linear method."""
    a = _select(work, start, lo)
    b = a
    if hi > lo:
        b = work[lo + 1]
        for v in work[lo + 1:]:
            b = min(b, v)
    a, b = a / top, b / top
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


@numba.njit(cache=True, nogil=True)
def _select(a, lo, k):
    """The value of rank k of ``a``, where a[:lo] holds the ranks below lo; ``a`` reordered in
    place so that a[:k] ≤ a[k] ≤ a[k + 1:].  Quickselect with median-of-three pivots and
    partitions without branches on the data (each value swapped into place, the boundary moved by
    the comparison), where Hoare's partition mispredicted its branches half the time on normal
    data; the values equal to the pivot are gathered next to it, so a column of a few distinct
    values (binary, counts) takes a few rounds, not one per value (``benchmarks/typical_spread.py``,
    best of 5: 460 × 20,000 normal 98 → 34 ms, binary 45 → 36, counts 68 → 25; 100 × 100,000,
    2,000 × 2,000 and 30 × 20,000 1.3–3 × faster too).  Reads ``a[:lo]`` never."""
    hi = a.size - 1
    while hi > lo:
        if hi == lo + 1:
            if a[hi] < a[lo]:
                a[lo], a[hi] = a[hi], a[lo]
            return a[k]
        mid = (lo + hi) // 2
        x, y, z = a[lo], a[mid], a[hi]  # sorted: x ≤ y ≤ z, y the pivot (at hi during the pass)
        if y < x:
            x, y = y, x
        if z < y:
            y, z = z, y
            if y < x:
                x, y = y, x
        a[lo], a[mid], a[hi] = x, z, y
        store = lo
        for i in range(lo, hi):
            v = a[i]
            a[i] = a[store]
            a[store] = v
            store += v < y
        a[hi] = a[store]
        a[store] = y
        if k <= store:
            if k == store:
                return y
            hi = store - 1
            continue
        equal = store + 1  # the values equal to the pivot next to it, so that ties end a round
        for i in range(store + 1, hi + 1):
            v = a[i]
            a[i] = a[equal]
            a[equal] = v
            equal += v == y
        if k < equal:
            return y
        lo = equal
    return a[k]


def _sparse_spreads(X):
    """:func:`_dense_spreads` of sparse X from its stored entries: O(nnz) memory."""
    X = _canonical_csc(X)
    unit = X[:, np.flatnonzero(~constant_features(X))]
    N, J = unit.shape
    cols = np.repeat(np.arange(J), np.diff(unit.indptr))
    top = np.zeros(J)
    np.maximum.at(top, cols, np.abs(unit.data))
    unit.data = unit.data / top[cols]  # as the dense blocks: each column divided by its max |x|
    q1, q3 = sparse_column_percentiles(unit, [25, 75])
    mean = np.bincount(cols, weights=unit.data, minlength=J) / N
    squares = np.bincount(cols, weights=(unit.data - mean[cols]) ** 2, minlength=J)
    std = np.sqrt((squares + (N - np.diff(unit.indptr)) * mean**2) / N)  # implicit zeros too
    return _robust_spread(q1, q3, std) * top


def _canonical_csc(X):
    """X as a CSC array without duplicate entries (X's own arrays are never modified)."""
    X = sp.csc_array(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def sparse_column_percentiles(X, q):
    """``np.percentile(X.toarray(), q, axis=0)`` (linear interpolation) of sparse X without
    densifying it: each column's sorted stored values with its implicit zeros counted, O(nnz)."""
    X = _canonical_csc(X)
    N, J = X.shape
    counts = np.diff(X.indptr)
    cols = np.repeat(np.arange(J), counts)
    values = np.append(X.data[np.lexsort((X.data, cols))], 0.0)  # sorted per column; a 0 at nnz
    negative = np.bincount(cols[X.data < 0], minlength=J)
    implicit = N - counts

    def order_statistic(k):
        """The k-th smallest entry (k per column) of each full column."""
        zero = (k >= negative) & (k < negative + implicit)
        stored = np.where(k < negative, k, k - implicit)
        return np.where(zero, 0.0, values[np.where(zero, X.nnz, X.indptr[:-1] + stored)])

    out = []
    for lo, hi, t in _percentile_positions(N, q):
        a, b = order_statistic(np.full(J, lo)), order_statistic(np.full(J, hi))
        out.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)  # as NumPy's lerp
    return np.array(out).reshape(np.shape(q) + (J,))


def unit_scale(X) -> float:
    """s = :func:`typical_spread` (exactly 1 within 1e-12 of it: standardized data stays
    bit-identical), or a clear error when it is not a positive normal float64: a subnormal s
    (below 2.2e-308) means X's differences carry fewer than float64's 53 bits, so a fit would
    depend on the units of X.  Above it, any entry's rounding is at most 2⁻⁵³ s (a subnormal
    entry's absolute error 2⁻¹⁰⁷⁵ included): every fit is the fit of X / s."""
    s = typical_spread(X)
    if abs(s - 1.0) < 1e-12:
        s = 1.0
    if not (np.isfinite(s) and s > 0):
        raise ValueError(f"the typical spread of X is {s!r}; X's scale is outside floating point range")
    if s < np.finfo(float).tiny:
        raise ValueError(f"the typical spread of X is {s:.3g}, a subnormal number (below the smallest "
                         f"normal float64, {np.finfo(float).tiny:.3g}): X's differences carry fewer than "
                         f"53 significant bits, so the result would depend on X's units; multiply X by a "
                         f"constant (e.g. 1e300) first")
    return s


# Largest extent of a feature, in units of X's typical spread, that a fit accepts: 2²⁶ ≈ 6.7e7,
# the square root of 1/ε (float64's ε = 2⁻⁵²).  Every method forms squares of the features: LOGO the
# curvature Σ σ' z̄ z̄ᵀ of (7) and its KKT certificate, NMMKL the kernels x_j x_jᵀ of (8), LFS the
# squared distances and the costs a, b of (5).  A feature r typical spreads wide enters them as r²
# next to the other features' ~1: beyond r² = 1/ε their contributions are below float64's rounding
# of its own, in every backend alike (measured on a 60 × 6 spiral, one feature × r: LOGO with CLARABEL
# and with the gradient path fails from r = 1e8, NMMKL with ECOS from 1e8 and with CLARABEL from 1e12).
MAX_FEATURE_EXTENT = 2.0**26


def check_feature_extents(X, s, names=None, centered=True, limit=MAX_FEATURE_EXTENT):
    """ValueError naming X's first feature whose extent exceeds ``limit`` typical spreads s, before
    any heavy work: its range max − min (``centered``: methods of differences, LOGO and LFS) or its
    largest |x| (NMMKL's uncentered linear kernels), divided by s.  ``names``: X's column names."""
    low, high = (np.asarray(b, dtype=np.float64) for b in _column_bounds(X))
    with np.errstate(over="ignore"):  # X / s is finite where fit accepts X; an overflow is too wide
        extent = high / s - low / s if centered else np.maximum(-low, high) / s
    wide = np.flatnonzero(extent > limit)
    if not wide.size:
        return
    j = int(wide[0])
    label = f"feature {j}" + (f" ({str(names[j])!r})" if names is not None else "")
    measure = "range max - min" if centered else "largest |x|: the linear kernels are not centered"
    more = f" (and {wide.size - 1} more: {wide[1:6].tolist()})" if wide.size > 1 else ""
    raise ValueError(
        f"{label} of X{more} spans {extent[j]:.3g} times X's typical spread s = {s:.3g} (its {measure}); "
        f"above {limit:.3g} (2**26) no float64 computation resolves the other features next to it "
        f"(their squares fall below the rounding of its own): standardize the columns of X (e.g. "
        f"sklearn's StandardScaler), or rescale or drop this feature")


def _column_bounds(X):
    """(min, max) of each column of X: dense, scipy.sparse (implicit zeros counted) or blockwise
    (dask, zarr, h5py: one column block at a time)."""
    from .blocks import column_blocks

    if isinstance(X, np.ndarray):
        return X.min(axis=0), X.max(axis=0)
    if sp.issparse(X):
        X = sp.csc_array(X)
        return (np.asarray(X.min(axis=0).todense()).ravel(), np.asarray(X.max(axis=0).todense()).ravel())
    bounds = [(b.min(axis=0), b.max(axis=0)) for _, _, b in column_blocks(X)]
    return tuple(np.concatenate(part) for part in zip(*bounds))


def rescale(X, s=None) -> tuple[np.ndarray, float]:
    """``(X / s, s)`` with s = :func:`unit_scale` of X unless the caller computed it; a clear error
    if X / s is not finite."""
    s = unit_scale(X) if s is None else s
    with np.errstate(over="ignore", under="ignore"):
        Xs = X if s == 1.0 else (X * (1.0 / s) if sp.issparse(X) else X / s)
    check_finite(Xs.data if sp.issparse(Xs) else Xs, "X divided by its typical spread",
                 "the feature scales span too many orders of magnitude; standardize X")
    return Xs, s


def check_finite(values, what, hint=""):
    """ValueError naming ``what`` (and the first bad index) if ``values`` has NaN or infinity."""
    values = np.asarray(values)
    if not np.all(np.isfinite(values)):
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(values))[0])
        raise ValueError(f"{what} is not finite at index {where}" + (f": {hint}" if hint else ""))
