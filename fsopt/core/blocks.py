"""Reading X one column block at a time, for statistics that are sums over feature columns.

- a dask array (column-chunked): one task per chunk (``dask_blocks``), run by ``dask_compute`` —
  on the active ``dask.distributed`` client when there is one;
- a zarr array or an h5py dataset (out of core on one machine): blocks are read in turn, the next
  block while the caller works on this one (``column_blocks``);
- scipy.sparse CSC/CSR: one column block is densified at a time, never N×J.

Block widths are whole multiples of ``KERNEL_COLUMNS`` (the compiled kernels' column block), so a
sum over blocks runs in the same order as over one NumPy array.
"""
from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from .validation import check_open

_BLOCK_BYTES = 2**25  # ~32 MiB of X per block when the store has no chunking of its own
KERNEL_COLUMNS = 128  # block widths are multiples of this (the statistics kernels' column block)


def is_blockwise(X):
    """True for the inputs read one column block at a time: dask, zarr, h5py, scipy.sparse."""
    return sp.issparse(X) or isinstance(X, ColumnSubset) or store_kind(X) is not None


def store_kind(X):
    module = type(X).__module__ + "."
    return next((k.split(".")[0] for k in ("dask.array.", "zarr.", "h5py.") if module.startswith(k)),
                None)


class ColumnSubset:
    """The columns ``index`` (and the rows ``rows``, default all) of a zarr/h5py array, read
    lazily (fancy-indexing those stores is slow): column blocks are read whole, then rows taken."""

    def __init__(self, X, index, rows=None):
        self.base, self.index = X, np.asarray(index)
        self.rows = None if rows is None else np.asarray(rows)
        self.shape = (X.shape[0] if rows is None else self.rows.size, self.index.size)
        self.dtype = X.dtype


def take_columns(X, mask):
    """X[:, mask] without reading a zarr/h5py store and without densifying sparse X."""
    if isinstance(X, ColumnSubset):
        return ColumnSubset(X.base, X.index[mask], X.rows)
    if store_kind(X) in ("zarr", "h5py"):
        return ColumnSubset(X, np.flatnonzero(mask))
    if sp.issparse(X):
        return sp.csc_array(X)[:, np.flatnonzero(mask)]
    if isinstance(X, np.ndarray):  # C-ordered, as the kernels read it (X[:, mask] is F-ordered:
        return np.compress(mask, X, axis=1)  # the kernels copied it again; 0.014 s against 0.083)
    return X[:, mask]


def take_rows(X, rows):
    """X[rows] (``rows`` an index array) without reading a zarr/h5py store."""
    if isinstance(X, ColumnSubset):
        return ColumnSubset(X.base, X.index, rows if X.rows is None else X.rows[rows])
    if store_kind(X) in ("zarr", "h5py"):
        return ColumnSubset(X, np.arange(X.shape[1]), rows)
    if sp.issparse(X):
        return sp.csr_array(X)[rows]
    return X[rows]


def column_blocks(X, width=None):
    """Yield (j0, j1, X[:, j0:j1] as a C-contiguous ndarray) over X's columns, reading ahead one block.

    ``width`` defaults to the store's column chunking, else ~32 MiB of X per block, in whole blocks
    of the compiled kernels (so the sums run in the same order as on one NumPy array).
    """
    J = X.shape[1]
    width = width or _block_width(X)
    if sp.issparse(X):
        X = sp.csc_array(X)  # column slices of CSC cost O(nnz of the slice); CSR is converted once
    starts = range(0, J, width)

    def read(j0):
        j1 = min(J, j0 + width)
        return j0, j1, _read(X, j0, j1)

    with ThreadPoolExecutor(1) as pool:  # I/O of block k+1 overlaps the (nogil) kernels on block k
        ahead = pool.submit(read, starts[0]) if J else None
        for k in range(len(starts)):
            block = ahead.result()
            ahead = pool.submit(read, starts[k + 1]) if k + 1 < len(starts) else None
            yield block


def _block_width(X):
    """The store's column chunk, else ~_BLOCK_BYTES of X, rounded up to whole kernel blocks."""
    chunks = getattr(X.base if isinstance(X, ColumnSubset) else X, "chunks", None)
    if isinstance(X, ColumnSubset) or not chunks:
        width = _BLOCK_BYTES // (8 * X.shape[0])
    else:
        col = chunks[1]  # dask: a tuple of chunk widths; zarr/h5py: one width
        width = int(col[0] if isinstance(col, tuple) else col)
    return max(1, -(-width // KERNEL_COLUMNS)) * KERNEL_COLUMNS


def distinct_rows(X, y):
    """Ascending indices of the first row of each distinct (x_n, y_n): rows of X equal byte for
    byte with the same label count once.  Rows are first told apart by their label and their
    first ``KERNEL_COLUMNS`` columns; only rows that agree there are hashed in full (BLAKE2b, 128
    bits, one column block at a time: X is never copied or densified beyond one block), and rows
    of an in-memory array whose hashes agree are also compared in full."""
    labels = np.unique(np.asarray(y), return_inverse=True)[1].reshape(-1)
    N, J = X.shape
    head = _read(X, 0, min(J, KERNEL_COLUMNS))
    first = {}
    for n in range(N):
        first.setdefault((int(labels[n]), head[n].tobytes()), []).append(n)
    candidates = np.array(sorted(n for rows in first.values() if len(rows) > 1 for n in rows), dtype=np.intp)
    if candidates.size == 0:
        return np.arange(N)
    digests = {n: hashlib.blake2b(digest_size=16) for n in candidates}
    in_memory = isinstance(X, np.ndarray)
    for _, _, block in [(0, J, X)] if in_memory and X.flags.c_contiguous else column_blocks(X):
        for n in candidates:
            digests[n].update(np.ascontiguousarray(block[n]).data)
    seen, drop = {}, set()
    for n in candidates:
        n0 = seen.setdefault((int(labels[n]), digests[n].digest()), n)
        if n0 != n and (not in_memory or np.array_equal(X[n], X[n0])):  # (else a hash collision)
            drop.add(n)
    return np.array([n for n in range(N) if n not in drop], dtype=np.intp)


def column_ranges(X):
    """max_n x_nj − min_n x_nj per column (np.ptp over rows), block by block for blockwise X."""
    if not is_blockwise(X):
        return np.ptp(X, axis=0)
    return np.concatenate([np.ptp(block, axis=0) for _, _, block in column_blocks(X)]) \
        if X.shape[1] else np.zeros(0)


def _read(X, j0, j1):
    if isinstance(X, ColumnSubset):  # contiguous reads within one store chunk each, then select
        idx = X.index[j0:j1]
        span = getattr(X.base, "chunks", None)
        span = int(span[1]) if span else _BLOCK_BYTES // (8 * X.shape[0])
        pieces = np.split(idx, np.flatnonzero(np.diff(idx // span)) + 1)
        block = np.concatenate([np.asarray(X.base[:, p[0]:p[-1] + 1])[:, p - p[0]] for p in pieces],
                               axis=1)
        if X.rows is not None:
            block = block[X.rows]
    elif sp.issparse(X):
        block = X[:, j0:j1].toarray()
    else:
        block = np.asarray(X[:, j0:j1])
    return np.ascontiguousarray(block, dtype=float_type(X.dtype))


def float_type(dtype):
    return np.float32 if dtype == np.float32 else np.float64


def dask_blocks(X):
    """(j0, j1, delayed block) per column chunk of a dask array, each chunk holding all rows."""
    X = X.rechunk({0: -1})
    ends = np.cumsum((0,) + X.chunks[1])
    return [(int(ends[k]), int(ends[k + 1]), blk) for k, blk in enumerate(X.to_delayed()[0])]


def delayed(obj):
    import dask

    return dask.delayed(obj, pure=True)


def dask_tree_sum(parts, N):
    """Pairwise (tree) sum of the partial distance matrices, so no task gathers them all."""
    add = delayed(np.add)
    while len(parts) > 1:
        parts = [add(*parts[k:k + 2]) if k + 1 < len(parts) else parts[k]
                 for k in range(0, len(parts), 2)]
    return dask_compute(parts[0])[0] if parts else np.zeros((N, N))


def dask_compute(*tasks):
    """Run on the active dask.distributed client if any; else in this process, one chunk at a
    time (the compiled kernels already use every core)."""
    import dask

    try:
        from distributed import default_client
        default_client()
        scheduler = None
    except (ImportError, ValueError):
        scheduler = "synchronous"
    return dask.compute(*tasks, scheduler=scheduler)


def check_blockwise(X, what="X"):
    """Raise a ValueError/TypeError unless X is a non-empty 2-D numeric array of finite values,
    reading it one column block at a time (on the dask client for a dask array)."""
    check_open(X, what)
    if len(X.shape) != 2:
        raise ValueError(f"{what} must be a 2-D array (samples x features); got {len(X.shape)}-D")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{what} is empty: shape {tuple(X.shape)}")
    if np.dtype(X.dtype).kind not in "biuf":
        raise TypeError(f"{what} must be numeric; got dtype {X.dtype}")
    if store_kind(X) == "dask":
        found = dask_compute(*[delayed(_first_non_finite)(blk, j0) for j0, _, blk in dask_blocks(X)])
    else:
        found = (_first_non_finite(block, j0) for j0, _, block in column_blocks(X))
    bad = next((f for f in found if f is not None), None)
    if bad is not None:
        raise ValueError(f"{what} contains NaN or infinity at row {bad[0]}, column {bad[1]}")


def _first_non_finite(block, j0):
    finite = np.isfinite(block)
    if finite.all():
        return None
    row, col = np.argwhere(~finite)[0]
    return int(row), int(col) + j0
