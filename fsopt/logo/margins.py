"""Local statistics of LOGO (Sun et al. 2010, §3): weighted Manhattan distances, kernel
probabilities of the nearest hit and miss (eqs 4–5), and expected margin vectors z̄_n (eq. 3).

Misses pool every other class, which is the multiclass margin of eq. (20); for two classes it is
the binary margin.  The O(N²J) part is a compiled kernel (numba): one pass over sample pairs,
each |x_n − x_i| computed once for both rows, column blocks spread over the cores, no N×N×J
array; the distances likewise (rows paired so both cores get equal work).  float32 input is
kept in float32 (opt-in: half the memory; z̄ agrees with float64 to 1e-4 of its largest entry,
tested); anything else is computed in float64.  X that is not one NumPy array (dask, zarr, h5py,
scipy.sparse) is summed one column block at a time (:mod:`fsopt.core.blocks`).
"""
from __future__ import annotations

import numba
import numpy as np

from ..core.blocks import (KERNEL_COLUMNS, column_blocks, dask_blocks, dask_compute, dask_tree_sum,
                          delayed, float_type, is_blockwise, store_kind, take_columns)
from ..core.kernels import kernel_threads

_BLOCK = KERNEL_COLUMNS  # columns per block of the distances: X[:, block] stays in cache
_Z_WIDEST = 1280  # z̄ and its products: at most this many columns per task (see _task_width)
_SINGLE_FLUSH = 8  # float32 products: tiles summed in float32 before they join the float64 sums
_U32 = 2.0**-24  # float32's unit roundoff
_SERIAL_PAIRS = 2**23  # sample pairs × columns below which a kernel runs on one thread (see _threads)


def _threads(n_samples, columns):
    """Threads for a kernel over the sample pairs and ``columns`` columns: one below
    ``_SERIAL_PAIRS`` pair-columns (a few ms on one core), else :func:`kernel_threads`.  A parallel
    region waits for its threads to be scheduled: on two busy cores (load average 3–5) 12 ms per
    region for the distances and exponents at N = 300 and 11 columns, 24 ms for z̄, against
    0.05–0.25 ms on one thread, a fixed cost that made a working-set iteration over a dozen columns
    cost as much as one over 2,000.  The arithmetic per entry is the same on any number of threads
    (the tasks' widths do not depend on it), so the results are too."""
    return 1 if n_samples * (n_samples - 1) // 2 * columns < _SERIAL_PAIRS else kernel_threads()


def weighted_manhattan(X, w, out=None):
    """D[n, i] = Σ_j w_j |x_nj − x_ij| for w ≥ 0, in float64 (compiled, both cores, no copy of X).

    With ``out``, the sum is added to it in place (the column blocks of a larger X in turn).
    """
    if is_blockwise(X):
        return weighted_manhattan_blockwise(X, np.asarray(w))
    X = np.ascontiguousarray(X)
    D = np.zeros((X.shape[0], X.shape[0])) if out is None else out
    numba.set_num_threads(_threads(*X.shape))
    _weighted_cityblock(X, np.ascontiguousarray(w, dtype=X.dtype), _BLOCK, D)
    return D


@numba.njit(parallel=True, cache=True, nogil=True)
def _weighted_cityblock(X, w, block, D):
    """Column blocks in turn, each shared by every core while it is in cache (the rows of one
    block: N·block·8 bytes); within a block, rows k and N−1−k per task (equal work per task)."""
    N, J = X.shape
    for j0 in range(0, J, block):
        j1 = min(J, j0 + block)
        for k in numba.prange((N + 1) // 2):
            _row_distances(X, w, D, k, j0, j1)
            if N - 1 - k != k:
                _row_distances(X, w, D, N - 1 - k, j0, j1)
    for n in range(N):
        for i in range(n + 1, N):
            D[i, n] = D[n, i]


@numba.njit(cache=True, nogil=True, fastmath=True)
def _row_distances(X, w, D, n, j0, j1):
    """D[n, i] += Σ_{j0 ≤ j < j1} w_j |x_nj − x_ij| for i > n, four rows i at a time (x_n and w
    loaded once for four sums: 1.3–1.4× (float64) and 1.3× (float32) the speed of one row at a
    time, measured side by side at N = 460, J = 20,000)."""
    N = X.shape[0]
    xn, wb = X[n, j0:j1], w[j0:j1]
    i = n + 1
    while i + 4 <= N:
        x0, x1, x2, x3 = X[i, j0:j1], X[i + 1, j0:j1], X[i + 2, j0:j1], X[i + 3, j0:j1]
        a0 = a1 = a2 = a3 = 0.0
        for j in range(j1 - j0):
            u, v = xn[j], wb[j]
            a0 += v * abs(u - x0[j])
            a1 += v * abs(u - x1[j])
            a2 += v * abs(u - x2[j])
            a3 += v * abs(u - x3[j])
        D[n, i] += a0
        D[n, i + 1] += a1
        D[n, i + 2] += a2
        D[n, i + 3] += a3
        i += 4
    for i in range(i, N):
        xi = X[i, j0:j1]
        acc = 0.0
        for j in range(j1 - j0):
            acc += wb[j] * abs(xn[j] - xi[j])
        D[n, i] += acc


def neighbor_probabilities(D, y, sigma):
    """(P_hit, P_miss): row-normalized k(d) = exp(−d/σ) over hits (same class, i ≠ n) and misses.

    Computed stably: each row's minimum distance within the set is subtracted before exp, so
    σ → 0 tends to 1-NN and σ = inf gives uniform probabilities.  Hits and misses share one N × N
    array of exponents and one exp (each entry belongs to at most one set), then are split.
    """
    labels = np.unique(np.asarray(y), return_inverse=True)[1].ravel()  # any class labels as 0..k−1
    K = np.empty(D.shape)
    numba.set_num_threads(_threads(D.shape[0], 1))
    if np.isinf(sigma):
        K.fill(1.0)
    else:
        _exponents(np.ascontiguousarray(D, dtype=np.float64), labels, float(sigma), K)
        np.exp(K, out=K)
    P_hit, P_miss = np.empty_like(K), np.empty_like(K)
    _split(K, labels, P_hit, P_miss)
    return _normalized(P_hit), _normalized(P_miss)


def _normalized(K):
    """K with each row divided by its sum (NumPy's: the same sums, bit for bit, as before the split)."""
    return np.divide(K, K.sum(axis=1, keepdims=True), out=K)


@numba.njit(cache=True, nogil=True, inline="always")
def _member(y, n, i, hits):
    """Whether sample i is a hit (same class, i ≠ n) or, with ``hits`` False, a miss of sample n."""
    return (y[i] == y[n] and i != n) if hits else y[i] != y[n]


@numba.njit(parallel=True, cache=True, nogil=True)
def _exponents(D, y, sigma, K):
    """K[n, i] = −((D[n, i] − min over the set of i in row n) / σ), the set being row n's hits or
    its misses, whichever i is in; −inf for i = n."""
    N = D.shape[0]
    for n in numba.prange(N):
        low_hit, low_miss = np.inf, np.inf
        for i in range(N):
            if _member(y, n, i, True):
                low_hit = min(low_hit, D[n, i])
            elif _member(y, n, i, False):
                low_miss = min(low_miss, D[n, i])
        for i in range(N):
            if _member(y, n, i, True):
                K[n, i] = -((D[n, i] - low_hit) / sigma)
            elif _member(y, n, i, False):
                K[n, i] = -((D[n, i] - low_miss) / sigma)
            else:
                K[n, i] = -np.inf


@numba.njit(parallel=True, cache=True, nogil=True)
def _split(K, y, P_hit, P_miss):
    """P_hit = K on each row's hits, P_miss = K on its misses, 0 elsewhere (rows over the threads)."""
    N = K.shape[0]
    for n in numba.prange(N):
        for i in range(N):
            hit, miss = _member(y, n, i, True), _member(y, n, i, False)
            P_hit[n, i] = K[n, i] if hit else 0.0
            P_miss[n, i] = K[n, i] if miss else 0.0


_COMPILED = []  # [True] once compile_kernels has run in this process


def compile_kernels():
    """Compile, or load from numba's on-disk cache, every specialization of the statistics
    kernels a LOGO fit may call, once per process (the fixed point's first fit calls it).  The
    first fit then does it all: a warm-up fit compiles what later fits use.  Without it, the
    first fit with a check over 2,048 features or more compiled the float32 estimates, the exact
    products and float32 z̄ of the held run after a hand-over: on a fresh cache 3-8 s inside the
    default's first fits at J = 2,000 and 8,000 and none in the plain iteration's (5 × its time)."""
    if _COMPILED:
        return
    X = np.arange(48.0).reshape(6, 8) % 5  # C-contiguous float64, as every fit's X reaches them
    y = np.arange(6) % 2
    A = margin_coefficients(X, y, np.ones(8), 1.0)
    V = np.ones((6, 2))
    signed_abs_sum(A, X)
    signed_abs_sum(A.astype(np.float32), X.astype(np.float32))  # the held run's SingleMargins
    zbar_products(A, X, V)
    zbar_products(A, X, V, span=(2, 8))
    zbar_products_estimate(A, X.astype(np.float32), V, span=(0, 8))
    _COMPILED.append(True)


def expected_margins(X, y, w, sigma):
    """Z with rows z̄_n = Σ_miss P·|x_n − x_i| − Σ_hit P·|x_n − x_i| (eq. 3), for the columns of X.

    ``w`` weights the distances that define the probabilities; pass only the active columns.
    """
    return signed_abs_sum(margin_coefficients(X, y, w, sigma), X)


def margin_coefficients(X, y, w, sigma):
    """A = P_miss − P_hit at weights ``w`` (one per column of X), so that z̄ = signed_abs_sum(A, X)
    for any set of columns of X (a column's z̄ does not depend on the others)."""
    w = np.asarray(w)
    weighted = w > 0  # zero-weight columns add nothing to the distances
    D = weighted_manhattan(X if weighted.all() else take_columns(X, weighted), w[weighted])
    P_hit, P_miss = neighbor_probabilities(D, y, sigma)
    return P_miss - P_hit


def signed_abs_sum(A, X):
    """Z[n] = Σ_i A[n, i] |x_n − x_i| (the O(N²J) hot path), in X's float type."""
    if is_blockwise(X):
        return signed_abs_sum_blockwise(A, X)
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    X = np.ascontiguousarray(X, dtype=dtype)
    numba.set_num_threads(_threads(*X.shape))
    return _signed_abs_sum(np.ascontiguousarray(A, dtype=dtype), X, _task_width(X.shape[1]))


def _task_width(J):
    """Columns per task of z̄ and of its products: one task per thread the call runs on (a multiple
    of 8 columns), more where a task would pass ``_Z_WIDEST`` columns.  Measured side by side
    against the rule before (z̄: one task below 512 columns, else two per thread; the products:
    one per thread below 512, two above), 2 threads, median of 5–9 (``benchmarks/zbar_task_width.py``):
    z̄ at N = 120, 300, 460 and 1,000 and 80–1,500 columns 1.06–1.35× faster (N = 460, 300 columns:
    5.7 against 4.3 ms; 1,000 columns: 11.3 against 9.1 ms), at 2,600–8,000 columns the same within
    6 %; the products (float64 and the float32 estimate) within 5 % at N = 300 and 460, 300–20,000
    columns.  Inside fits, where the second core is not always free, less: the plain iteration at
    J = 2,000 (z̄ of 2,000 columns per iteration) 1.05–1.08× faster, the default 1.03–1.05× (both
    rules in turn in one process, medians of 4); the slow spiral's z̄ 0.89 → 0.83 s (medians of 9
    fits in turn; ranges 0.83–0.99 and 0.75–1.21 s).  A column's sum does not depend on the task it
    falls in (tests/test_margins.py), so neither do the results."""
    threads = numba.get_num_threads()
    tasks = threads * max(1, -(-J // (threads * _Z_WIDEST)))  # (J = 0: no column, one empty task)
    return max(8, -(-J // (tasks * 8)) * 8)


@numba.njit(parallel=True, cache=True, nogil=True)
def _signed_abs_sum(A, X, block):
    """Column blocks over the cores, each summed into an N × block array of its own and copied
    into Z once (:func:`_block_sums`), where the tasks had summed in place into the one Z they
    share (why that was slower is not pinned down: tasks writing cache lines at their common
    borders would explain two threads only, yet one thread gained too).  Measured against it, both versions in
    turn, three runs of each (``benchmarks/zbar_task_width.py --N 300 460 --dtypes float64 float32``,
    medians of 15 calls, two threads): 100–1,000 columns, the working set's widths, 1.1–1.8× as
    fast in float64 and 1.0–1.4× in float32; 2,000–20,000 columns 0.97–1.17× in float64 and
    0.90–1.08× in float32 (the copy).  Each column's sums are the same operations in the same
    order either way, so z̄ is the same bit for bit.  The blocks in flight take N × block entries
    per thread besides Z (at most ``_Z_WIDEST`` columns each)."""
    N, J = X.shape
    Z = np.empty((N, J), dtype=X.dtype)
    for b in numba.prange((J + block - 1) // block):
        j0 = b * block
        j1 = min(J, j0 + block)
        part = np.zeros((N, j1 - j0), dtype=X.dtype)
        _block_sums(A, X, part, j0)
        Z[:, j0:j1] = part
    return Z


@numba.njit(cache=True, nogil=True)
def _block_sums(A, X, Z, j0):
    """Z[n] = Σ_i A[n, i] |x_n − x_i| over the columns j0:j0 + Z.shape[1] of X: rows in tiles of
    four against tiles of four rows below them (each |x_n − x_i| loaded and used for both z_n and
    z_i in registers: 2.0× (float64) and 1.7–1.8× (float32) the speed of one pair at a time,
    measured side by side at N = 460, J = 20,000), the rest pair by pair."""
    N = X.shape[0]
    j1 = j0 + Z.shape[1]
    n = 0
    while n + 4 <= N:
        for p in range(n, n + 3):  # pairs within the tile
            for q in range(p + 1, n + 4):
                _pair(A, X, Z, p, q, j0, j1)
        i = n + 4
        while i + 4 <= N:
            _tile(A, X, Z, n, i, j0, j1)
            i += 4
        for q in range(i, N):
            for p in range(n, n + 4):
                _pair(A, X, Z, p, q, j0, j1)
        n += 4
    for p in range(n, N):
        for q in range(p + 1, N):
            _pair(A, X, Z, p, q, j0, j1)


@numba.njit(cache=True, nogil=True)
def _pair(A, X, Z, n, i, j0, j1):
    """z_n += A[n, i]·|x_n − x_i|, z_i += A[i, n]·|x_n − x_i| over the columns j0:j1 of X (Z: the
    block's sums, its column 0 X's column j0)."""
    a, b = A[n, i], A[i, n]
    xn, zn, xi, zi = X[n, j0:j1], Z[n, :j1 - j0], X[i, j0:j1], Z[i, :j1 - j0]
    for j in range(j1 - j0):
        d = abs(xn[j] - xi[j])
        zn[j] += a * d
        zi[j] += b * d


@numba.njit(cache=True, nogil=True, inline="always")
def _four_by_four(M, n, i):
    """M[n:n + 4, i:i + 4] as 16 scalars, row by row (read once, before a tile's column loop)."""
    return (M[n, i], M[n, i + 1], M[n, i + 2], M[n, i + 3],
            M[n + 1, i], M[n + 1, i + 1], M[n + 1, i + 2], M[n + 1, i + 3],
            M[n + 2, i], M[n + 2, i + 1], M[n + 2, i + 2], M[n + 2, i + 3],
            M[n + 3, i], M[n + 3, i + 1], M[n + 3, i + 2], M[n + 3, i + 3])


@numba.njit(cache=True, nogil=True, fastmath=True)
def _tile(A, X, Z, n, i, j0, j1):
    """The 16 pairs (n..n+3) × (i..i+3), i ≥ n + 4, over the columns j0:j1 of X, into the block's
    sums Z (as :func:`_pair`; the coefficients are read into scalars first: Z could alias A, so
    they would otherwise be reloaded per column)."""
    w = j1 - j0
    x0, x1, x2, x3 = X[i, j0:j1], X[i + 1, j0:j1], X[i + 2, j0:j1], X[i + 3, j0:j1]
    z0, z1, z2, z3 = Z[i, :w], Z[i + 1, :w], Z[i + 2, :w], Z[i + 3, :w]
    xa, xb, xc, xd = X[n, j0:j1], X[n + 1, j0:j1], X[n + 2, j0:j1], X[n + 3, j0:j1]
    za, zb, zc, zd = Z[n, :w], Z[n + 1, :w], Z[n + 2, :w], Z[n + 3, :w]
    ra0, ra1, ra2, ra3, rb0, rb1, rb2, rb3, rc0, rc1, rc2, rc3, rd0, rd1, rd2, rd3 = _four_by_four(A, n, i)
    ca0, ca1, ca2, ca3, cb0, cb1, cb2, cb3, cc0, cc1, cc2, cc3, cd0, cd1, cd2, cd3 = _four_by_four(A.T, n, i)
    for j in range(j1 - j0):
        v0, v1, v2, v3 = x0[j], x1[j], x2[j], x3[j]
        u = xa[j]
        d0, d1, d2, d3 = abs(u - v0), abs(u - v1), abs(u - v2), abs(u - v3)
        za[j] += ra0 * d0 + ra1 * d1 + ra2 * d2 + ra3 * d3
        s0, s1, s2, s3 = ca0 * d0, ca1 * d1, ca2 * d2, ca3 * d3
        u = xb[j]
        d0, d1, d2, d3 = abs(u - v0), abs(u - v1), abs(u - v2), abs(u - v3)
        zb[j] += rb0 * d0 + rb1 * d1 + rb2 * d2 + rb3 * d3
        s0, s1, s2, s3 = s0 + cb0 * d0, s1 + cb1 * d1, s2 + cb2 * d2, s3 + cb3 * d3
        u = xc[j]
        d0, d1, d2, d3 = abs(u - v0), abs(u - v1), abs(u - v2), abs(u - v3)
        zc[j] += rc0 * d0 + rc1 * d1 + rc2 * d2 + rc3 * d3
        s0, s1, s2, s3 = s0 + cc0 * d0, s1 + cc1 * d1, s2 + cc2 * d2, s3 + cc3 * d3
        u = xd[j]
        d0, d1, d2, d3 = abs(u - v0), abs(u - v1), abs(u - v2), abs(u - v3)
        zd[j] += rd0 * d0 + rd1 * d1 + rd2 * d2 + rd3 * d3
        z0[j] += s0 + cd0 * d0
        z1[j] += s1 + cd1 * d1
        z2[j] += s2 + cd2 * d2
        z3[j] += s3 + cd3 * d3


def zbar_products(A, X, V, span=None):
    """G = z̄ᵀV (columns of X × columns of V) without z̄: with C = diag(v) A + (diag(v) A)ᵀ,
    G[j, k] = Σ_{n<i} C_ni |x_nj − x_ij| — one multiply-add per pair and column of V, where z̄
    takes two per pair and the product another N per column.  For the gradients of features held
    out of the working set, whose z̄ columns are not kept.  Summed in float64 (X may be float32).
    ``span=(start, stop)``: only the columns start:stop of a NumPy X, read where they are (no copy)."""
    V = np.asarray(V, dtype=float).reshape(A.shape[0], -1)
    if is_blockwise(X):
        if span is not None:
            raise ValueError("span= reads the columns of a NumPy X in place; take the columns of this X first")
        return zbar_products_blockwise(A, X, V)
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    X = np.ascontiguousarray(X, dtype=dtype)
    start, stop = (0, X.shape[1]) if span is None else span
    C = np.triu(_pair_coefficients(A, V), 1).astype(dtype)
    numba.set_num_threads(_threads(X.shape[0], (stop - start) * C.shape[0]))
    return _pair_sums(C, X, start, stop, _task_width(stop - start)).T


def _pair_coefficients(A, V):
    """C[k] = diag(v_k) A + (diag(v_k) A)ᵀ with a zero diagonal, for each column v_k of V: the
    coefficient of |x_n − x_i| in z̄ᵀv_k, each pair n < i counted once (from the upper triangle)."""
    C = np.stack([c + c.T for c in (V[:, k, None] * A for k in range(V.shape[1]))])
    for c in C:
        np.fill_diagonal(c, 0.0)
    return C


def zbar_products_estimate(A, X32, V, span=None):
    """``(G, err)``: :func:`zbar_products` ``(A, X, V, span)`` summed from X32 = X in float32
    (1.3–1.5× faster, ``benchmarks/logo_check_products.py``), and a bound with
    |G − zbar_products(A, X, V, span)| ≤ err elementwise.

    With the float64 C of :func:`zbar_products` and exact sums Σ_{n<i} C_ni |x_nj − x_ij| as the
    reference: the five roundings of a term (C_ni, x_nj and x_ij to float32, the difference, the
    product) move it by at most 4.01u·|C_ni|(|x_nj| + |x_ij|), u = 2⁻²⁴; a float32 sum of at most
    16·flush + 6 terms (k = 16·flush + 18 is used), in any order, by γ_k = ku/(1 − ku) times the
    sum of their sizes; the float64 sums (these and zbar_products' own, of at most N²/2 terms) by
    N²·2⁻⁵³ times the same.  And Σ_{n<i} |C_ni|(|x_nj| + |x_ij|) = Σ_n |x_nj| R_n with
    R_n = Σ_{i≠n} |C_ni| (C symmetric), summed in the same pass.  So err = 1.01·((k + 4)u +
    N²2⁻⁵³)·that sum, plus N²·2⁻¹⁴⁸(1 + max|C| + max_n |x_nj|) for float32's subnormals (absolute
    error 2⁻¹⁵⁰ per rounding there); err = inf (no information) where float32 could overflow
    (max(max|C|, 1)·max(max_n |x_nj|, 1)·N² ≥ 2¹⁰⁰) or the estimate is not finite."""
    V = np.asarray(V, dtype=float).reshape(A.shape[0], -1)
    if X32.dtype != np.float32 or not X32.flags.c_contiguous:
        raise TypeError("X32 must be a C-contiguous float32 array (X in float32)")
    N = X32.shape[0]
    start, stop = (0, X32.shape[1]) if span is None else span
    C = _pair_coefficients(A, V)
    R = np.abs(C).sum(axis=2)
    numba.set_num_threads(_threads(N, (stop - start) * C.shape[0]))
    block = _task_width(stop - start)
    with np.errstate(over="ignore"):  # C beyond float32: inf, and err says so below
        C32 = np.triu(C).astype(np.float32)
    G, B, top_x = _single_pair_sums(C32, R, X32, start, stop, block, _SINGLE_FLUSH)
    top_c = float(np.abs(C).max(initial=0.0))
    terms = 16 * _SINGLE_FLUSH + 18
    err = 1.01 * ((terms + 4) * _U32 + N * N * 2.0**-53) * B + N * N * 2.0**-148 * (1.0 + top_c + top_x)
    safe = max(top_c, 1.0) * np.maximum(top_x, 1.0) * N * N < 2.0**100  # C, X, their products: finite
    err[:, ~safe] = np.inf
    err[~np.isfinite(G)] = np.inf
    return G.T, err.T


class SingleMargins:
    """z̄ of every column from X32 = X in float32 (:func:`signed_abs_sum` in float32: 0.45–0.59 × the
    time of float64's at N = 300, J = 2,000–20,000), for many gradients z̄_jᵀv at the same A, each a
    matrix–vector product with a bound on its error (:meth:`gradients`).

    The bound, against the exact sums that z̄ of float64 data stands for: the roundings of a term
    A_ni|x_nj − x_ij| (A_ni, x_nj and x_ij to float32, the difference, the product) move it by at
    most 4.01u·|A_ni|(|x_nj| + |x_ij|), u = 2⁻²⁴; an entry of z̄ is a float32 sum of at most N + 8
    terms in some order (the kernel's tiles), so by γ_{N+8} = (N+8)u/(1 − (N+8)u) times the sum of
    their sizes, whose sum over n is at most B_j = Σ_n (a_n + b_n)|x_nj| (a = |A|1, b = |A|ᵀ1);
    float64's own z̄ is within (N+8)·2⁻⁵³ of the same.  The product z̄32ᵀv32 in float32 adds
    γ_{N+1}·Σ_n |v_n||z̄32_nj| ≤ γ_{N+1}‖v‖_∞ Σ_n |z̄32_nj|, and Σ_n |z̄32_nj| ≤ (1 + 4.01u +
    γ_{N+8})·B_j (|z̄_nj| ≤ Σ_i |A_ni||x_nj − x_ij|).  Subnormals: at most 2⁻¹⁴⁹ per rounding,
    N²·2⁻¹⁴⁸·(1 + max_n |x_nj|) in all (``top``: max_n |x_nj|).  B is summed in float32 too and
    taken (1 + (N + 4)u)·1.01 larger."""

    def __init__(self, A, X32, abs_X32, top):
        N = X32.shape[0]
        self.Z = signed_abs_sum(np.asarray(A, dtype=np.float32), X32)
        absA = np.abs(A)
        weights = (absA.sum(axis=1) + absA.sum(axis=0)).astype(np.float32)
        B = 1.01 * (1.0 + (N + 4) * _U32) * (weights @ abs_X32).astype(float)
        gamma = lambda k: k * _U32 / (1 - k * _U32)  # noqa: E731 - the textbook γ_k
        z = 4.01 * _U32 + gamma(N + 8)  # a term's relative error, z̄32's sum
        # the bound per unit of ‖v‖_∞, each column (A and X fixed: once)
        self._per = 1.01 * ((z + (N + 8) * 2.0**-53 + gamma(N + 1) * (1.0 + z)) * B +
                            N * N * 2.0**-148 * (1.0 + top))

    def gradients(self, features, V):
        """``(G, err)`` for the columns ``features`` and each column of V: G ≈ z̄ᵀV, |G − z̄ᵀV| ≤ err."""
        G = (self.Z.T @ V.astype(np.float32))[features].astype(float)  # (every column: no copy of Z)
        err = self._per[features, None] * np.abs(V).max(axis=0)
        err[~np.isfinite(G)] = np.inf
        return G, err


@numba.njit(parallel=True, cache=True, nogil=True)
def _pair_sums(C, X, start, stop, block):
    """G[k, j − start] = Σ_{n<i} C[k, n, i] |x_nj − x_ij| for start ≤ j < stop: column blocks
    over the cores; rows in tiles of four against tiles of four below them (16 pairs summed in
    registers per column), the rest pair by pair."""
    N = X.shape[0]
    G = np.zeros((C.shape[0], stop - start))
    for b in numba.prange((stop - start + block - 1) // block):
        j0 = start + b * block
        j1 = min(stop, j0 + block)
        for k in range(C.shape[0]):
            g = G[k, j0 - start:j1 - start]
            n = 0
            while n + 4 <= N:
                _tile_pairs(C[k], X, g, n, j0, j1)
                i = _tiles(C[k], X, g, n, n + 4, N, j0, j1)
                _rest_pairs(C[k], X, g, n, i, j0, j1)
                n += 4
            _last_rows(C[k], X, g, n, j0, j1)
    return G


@numba.njit(parallel=True, cache=True, nogil=True)
def _single_pair_sums(C, R, X, start, stop, block, flush):
    """:func:`_pair_sums` of float32 C and X, summed in float32 over at most ``flush`` tiles of 16
    pairs (plus the six pairs within a tile, or the twelve left after the last tile) and then
    added to the float64 G; B[k, j − start] = Σ_n |x_nj| R[k, n] in float64, and the largest |x_nj|
    of each column."""
    N = X.shape[0]
    G, B = np.zeros((C.shape[0], stop - start)), np.zeros((C.shape[0], stop - start))
    top = np.zeros(stop - start)
    for b in numba.prange((stop - start + block - 1) // block):
        j0 = start + b * block
        j1 = min(stop, j0 + block)
        part = np.zeros(j1 - j0, dtype=X.dtype)
        for k in range(C.shape[0]):
            g = G[k, j0 - start:j1 - start]
            n = 0
            while n + 4 <= N:
                _tile_pairs(C[k], X, part, n, j0, j1)
                i = n + 4
                while i + 4 <= N:
                    i = _tiles(C[k], X, part, n, i, min(N, i + 4 * flush), j0, j1)
                    _add_into(g, part)
                _rest_pairs(C[k], X, part, n, i, j0, j1)
                _add_into(g, part)
                n += 4
            _last_rows(C[k], X, part, n, j0, j1)
            _add_into(g, part)
            bound = B[k, j0 - start:j1 - start]
            for n in range(N):
                r, xn = R[k, n], X[n, j0:j1]
                for j in range(j1 - j0):
                    bound[j] += abs(np.float64(xn[j])) * r
        high = top[j0 - start:j1 - start]  # the largest |x_nj| of each column
        for n in range(N):
            xn = X[n, j0:j1]
            for j in range(j1 - j0):
                high[j] = max(high[j], abs(np.float64(xn[j])))
    return G, B, top


@numba.njit(cache=True, nogil=True)
def _add_into(g, part):
    """g += part; part = 0."""
    for j in range(g.size):
        g[j] += part[j]
        part[j] = 0


@numba.njit(cache=True, nogil=True)
def _tile_pairs(C, X, g, n, j0, j1):
    """The six pairs within the tile of rows n..n+3."""
    for p in range(n, n + 3):
        for q in range(p + 1, n + 4):
            _pair_sum(C[p, q], X, g, p, q, j0, j1)


@numba.njit(cache=True, nogil=True)
def _tiles(C, X, g, n, i, stop, j0, j1):
    """The tiles (n..n+3) × (i..i+3), (i+4..i+7), … that end by row ``stop``; returns the next i."""
    while i + 4 <= stop:
        _tile_sum(C, X, g, n, i, j0, j1)
        i += 4
    return i


@numba.njit(cache=True, nogil=True)
def _rest_pairs(C, X, g, n, i, j0, j1):
    """The pairs of the tile's rows n..n+3 with the rows i.. after its last tile (at most three)."""
    for q in range(i, X.shape[0]):
        for p in range(n, n + 4):
            _pair_sum(C[p, q], X, g, p, q, j0, j1)


@numba.njit(cache=True, nogil=True)
def _last_rows(C, X, g, n, j0, j1):
    """The pairs among the rows n.. that fill no tile (at most three)."""
    for p in range(n, X.shape[0]):
        for q in range(p + 1, X.shape[0]):
            _pair_sum(C[p, q], X, g, p, q, j0, j1)


@numba.njit(cache=True, nogil=True, fastmath=True)
def _pair_sum(c, X, g, n, i, j0, j1):
    """g += c·|x_n − x_i| over columns j0:j1."""
    xn, xi = X[n, j0:j1], X[i, j0:j1]
    for j in range(j1 - j0):
        g[j] += c * abs(xn[j] - xi[j])


@numba.njit(cache=True, nogil=True, fastmath=True)
def _tile_sum(C, X, g, n, i, j0, j1):
    """g += Σ of the 16 pairs (n..n+3) × (i..i+3), i ≥ n + 4, over columns j0:j1."""
    x0, x1, x2, x3 = X[i, j0:j1], X[i + 1, j0:j1], X[i + 2, j0:j1], X[i + 3, j0:j1]
    xa, xb, xc, xd = X[n, j0:j1], X[n + 1, j0:j1], X[n + 2, j0:j1], X[n + 3, j0:j1]
    a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3 = _four_by_four(C, n, i)
    for j in range(j1 - j0):
        v0, v1, v2, v3 = x0[j], x1[j], x2[j], x3[j]
        u = xa[j]
        s = a0 * abs(u - v0) + a1 * abs(u - v1) + a2 * abs(u - v2) + a3 * abs(u - v3)
        u = xb[j]
        s += b0 * abs(u - v0) + b1 * abs(u - v1) + b2 * abs(u - v2) + b3 * abs(u - v3)
        u = xc[j]
        s += c0 * abs(u - v0) + c1 * abs(u - v1) + c2 * abs(u - v2) + c3 * abs(u - v3)
        u = xd[j]
        s += d0 * abs(u - v0) + d1 * abs(u - v1) + d2 * abs(u - v2) + d3 * abs(u - v3)
        g[j] += s


# --- X read one column block at a time (dask, zarr, h5py, scipy.sparse) ----------------------
def weighted_manhattan_blockwise(X, w):
    """D = Σ_blocks D_block with D_block[n, i] = Σ_{j ∈ block} w_j |x_nj − x_ij|, for w ≥ 0, in float64."""
    if store_kind(X) == "dask":
        return dask_tree_sum([delayed(_partial_distances)(blk, w[j0:j1])
                          for j0, j1, blk in dask_blocks(X)], X.shape[0])
    D = np.zeros((X.shape[0], X.shape[0]))
    for j0, j1, block in column_blocks(X):  # blocks aligned to the kernel's: D as in memory, bit for bit
        weighted_manhattan(block, w[j0:j1], out=D)
    return D


def signed_abs_sum_blockwise(A, X):
    """Z[:, block] = signed_abs_sum(A, X[:, block]) for each column block, in X's float type."""
    dtype = float_type(X.dtype)
    if store_kind(X) == "dask":
        A = delayed(A)  # one copy of the N×N matrix in the graph, shared by the tasks
        parts = dask_compute(*[delayed(signed_abs_sum)(A, blk) for _, _, blk in dask_blocks(X)])
        return np.concatenate(parts, axis=1) if parts else np.zeros((X.shape[0], 0), dtype)
    Z = np.empty(X.shape, dtype=dtype)
    for j0, j1, block in column_blocks(X):
        Z[:, j0:j1] = signed_abs_sum(A, block)
    return Z


def zbar_products_blockwise(A, X, V):
    """G[block] = zbar_products(A, X[:, block], V) for each column block."""
    if store_kind(X) == "dask":
        A = delayed(A)  # one copy of the N×N matrix in the graph, shared by the tasks
        parts = dask_compute(*[delayed(zbar_products)(A, blk, V) for _, _, blk in dask_blocks(X)])
    else:
        parts = [zbar_products(A, block, V) for _, _, block in column_blocks(X)]
    return np.concatenate(parts, axis=0) if parts else np.zeros((0, V.shape[1]))


def _partial_distances(block, w):
    return weighted_manhattan(np.ascontiguousarray(block, dtype=float_type(block.dtype)), w)
