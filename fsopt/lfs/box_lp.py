"""Exact solution of box LPs with at most two general rows by their Lagrangian dual.

    min cᵀx  s.t.  0 ≤ x ≤ 1,  lo_r ≤ A_r x ≤ hi_r  (r = 1, 2)                               (P)

For multipliers y the box LP separates: g(y) = Σ_r σ_r(y_r) + Σ_m min(0, c_m − (Aᵀy)_m), with
σ_r(y) = lo_r·y for y ≥ 0 and hi_r·y for y ≤ 0; g is concave and piecewise linear.

One row (:func:`solve_one_row`): the breakpoints of g are t_m = c_m / A_m; sorting them gives the
row activity S(y) = A x(y) as a step function and the smallest maximiser y* of g exactly; the
primal vertex fills the items tied at y* until the row holds (at most one fractional entry).

Two rows (:class:`TwoRowDual`): H(z) = max over the inner row's multiplier of g, a concave
piecewise-linear function of the outer row's multiplier z (its sign fixed by the evaluation at
z = 0).  Every x of the inner feasible set X₁ gives a line ℓ_x(z) = cᵀx + z(target − qᵀx) ≥ H(z),
tight where x solves the inner LP (one call of :func:`solve_one_row`).  Newton's method on H
(the intersection of the last lines of positive and negative slope) ends, after finitely many
pieces, on the maximiser z*, where the two lines' sets are both inner-optimal: their combination
that meets the outer row is optimal and is reduced to a vertex with at most two fractional
entries (:func:`purify`).  Every line stays valid when only the outer row's bound changes (the β
sweep of LFS (9)), so the lines of earlier solves warm-start the next.

When the inner row is a cardinality row (all ones, finite upper bound K) only items that fewer
than K others dominate (cost no larger, outer coefficient no smaller, for z ≥ 0) can enter an
inner solution (:func:`undominated`): the Newton steps run on those, the smallest inner
multiplier keeps the dual valid for all items, and the NumPy certificate is computed on all.
"""
from __future__ import annotations

import numpy as np

FEAS_RTOL = 1e-12  # relative slack for a row bound (sums of M terms in floating point)
VALUE_RTOL = 1e-13  # Newton stops when H(z) is this close (relatively) to the two lines' value
MAX_NEWTON = 200  # pieces of H visited at most (each step visits a new one)
PRUNE_BLOCK = 128  # block size of the running K-th largest outer coefficient (:func:`undominated`)


class Infeasible(Exception):
    """(P) has no feasible point (the rows cannot hold within the box)."""


def solve_one_row(c, p, lo, hi):
    """(x, y): a vertex of min cᵀx over 0 ≤ x ≤ 1, lo ≤ pᵀx ≤ hi, and the smallest optimal
    multiplier y of the row (y > 0: lo holds with equality, y < 0: hi does).  O(n log n)."""
    tol = FEAS_RTOL * max(1.0, float(np.abs(p).sum()))
    x = (c < 0).astype(float)
    nz = np.flatnonzero(p != 0)
    pn = p[nz]
    t = c[nz] / pn
    order = np.argsort(t, kind="stable")
    ts, w = t[order], np.abs(pn[order])
    s_min = float(pn[pn < 0].sum())
    cum = s_min + np.cumsum(w)  # S(ts[k]+), before ties are grouped
    s_max = cum[-1] if cum.size else s_min
    if lo > hi + tol or lo > s_max + tol or hi < s_min - tol:
        raise Infeasible(f"row bounds [{lo:.6g}, {hi:.6g}] outside the attainable [{s_min:.6g}, {s_max:.6g}]")
    if ts.size:
        cum = cum[np.searchsorted(ts, ts, side="right") - 1]  # S(t+) counts every item tied at t
    # the smallest maximiser of g: the first candidate (breakpoint, or the kink at 0) after which
    # the right derivative σ'(y+) − S(y+) is ≤ 0
    first = np.flatnonzero(np.where(ts >= 0, lo, hi) - cum <= tol)
    candidates = [ts[first[0]]] if first.size else []
    if lo - (s_min + float(w[ts <= 0].sum())) <= tol:
        candidates.append(0.0)
    y = min(candidates)
    below = ts < y
    on = np.where(pn[order] > 0, below, ts > y).astype(float)
    s_before = s_min + float(w[below].sum())
    tied = np.flatnonzero(ts == y)
    if y > 0:
        target = lo
    elif y < 0:
        target = hi
    else:
        target = min(max(lo, s_before), hi)
    need = max(target - s_before, 0.0)
    fill = np.clip((need - np.concatenate([[0.0], np.cumsum(w[tied])[:-1]])) / w[tied], 0.0, 1.0) \
        if tied.size else np.zeros(0)
    on[tied] = np.where(pn[order][tied] > 0, fill, 1.0 - fill)
    x[nz[order]] = on
    return x, float(y)


def undominated(c, q, k):
    """Sorted indices of a superset of the items that fewer than ``k`` others dominate
    (c_j ≤ c_m and q_j ≥ q_m, ties broken by position); the others are never needed by a
    solution of the inner cardinality LP (at most k items) at any outer multiplier z ≥ 0.
    First in O(n): an item above the PRUNE_BLOCK smallest costs whose q is at most the k-th
    largest q among those is dominated k times; then a running k-th largest q over blocks of the
    survivors in increasing c."""
    n = c.size
    if k >= PRUNE_BLOCK // 4 or n <= 2 * PRUNE_BLOCK:
        return np.arange(n)
    cheapest = np.argpartition(c, PRUNE_BLOCK)[:PRUNE_BLOCK + 1]
    first = c <= c[cheapest].max()
    threshold = np.partition(q[cheapest], PRUNE_BLOCK + 1 - k)[PRUNE_BLOCK + 1 - k]
    items = np.flatnonzero(first | (q > threshold))
    order = items[np.lexsort((-q[items], c[items]))]
    qs = q[order]
    block = PRUNE_BLOCK // 4
    keep = np.ones(order.size, dtype=bool)
    top = np.partition(qs[:block], block - k)[block - k:]
    for start in range(block, order.size, block):
        chunk = qs[start:start + block]
        keep[start:start + block] = chunk > top.min()  # ≤: k earlier items dominate it
        merged = np.concatenate([top, chunk])
        top = np.partition(merged, merged.size - k)[merged.size - k:]
    return np.sort(order[keep])


def cardinality_row(c, lo, hi):
    """:func:`solve_one_row` for the row 1ᵀx (finite hi) in O(n): only the ⌈hi⌉ + 1 smallest
    costs can enter x or be the smallest optimal multiplier (the others are at least as large)."""
    n = c.size
    tol = FEAS_RTOL * max(1.0, n)
    if lo > hi + tol or lo > n + tol or hi < -tol:
        raise Infeasible(f"row bounds [{lo:.6g}, {hi:.6g}] outside the attainable [0, {n}]")
    m = min(n, int(np.ceil(hi)) + 1)
    idx = np.argpartition(c, m - 1)[:m] if m < n else np.arange(n)
    idx = idx[np.argsort(c[idx], kind="stable")]
    v = c[idx].tolist()
    # the smallest maximiser of g: the kink at 0 or the first tie group after which the right
    # derivative (hi below 0, lo above) − #{c ≤ y} is ≤ 0
    y = 0.0 if lo - sum(u <= 0 for u in v) <= tol else np.inf
    j = 0
    while j < m and v[j] < y:
        last = j
        while last + 1 < m and v[last + 1] == v[j]:
            last += 1
        if (hi if v[j] < 0 else lo) - (last + 1) <= tol:
            y = v[j]
        j = last + 1
    y = 0.0 if not np.isfinite(y) else y
    before = sum(u < y for u in v)
    tied = sum(u == y for u in v)
    target = lo if y > 0 else hi if y < 0 else min(max(lo, before), hi)
    fill = np.clip(target - before - np.arange(tied), 0.0, 1.0)
    x = np.zeros(n)
    x[idx[:before]] = 1.0
    x[idx[before:before + tied]] = fill
    return x, float(y)


def purify(x, rows, c):
    """x moved, at no increase of cᵀx and with ``rows``·x unchanged, to a point with at most
    len(rows) entries strictly inside (0, 1): along null directions of the rows on
    len(rows) + 1 fractional entries at a time, until one reaches a bound."""
    x = x.copy()
    k = rows.shape[0]
    frac = [int(i) for i in np.flatnonzero((x > 0) & (x < 1))]
    while len(frac) > k:
        idx = frac[:k + 1]
        d = np.linalg.svd(rows[:, idx])[2][-1]  # a null direction of the k × (k+1) block
        if c[idx] @ d > 0:
            d = -d
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(d > 0, (1 - x[idx]) / d, np.where(d < 0, -x[idx] / d, np.inf))
        step = float(room.min())
        x[idx] = np.clip(x[idx] + step * d, 0.0, 1.0)
        hit = int(np.argmin(room))
        x[idx[hit]] = 1.0 if d[hit] > 0 else 0.0
        frac = [i for i in frac if 0 < x[i] < 1]
    return x


class TwoRowDual:
    """(P) with an inner row p (lo₁ ≤ pᵀx ≤ hi₁) and an outer row q whose bounds may change
    between solves; the lines of every solve are kept for the next (module docstring)."""

    def __init__(self, c, p, lo1, hi1, q):
        self.c, self.p, self.q, self.lo1, self.hi1 = c, p, q, lo1, hi1
        self.evaluations = 0
        cardinality = np.isfinite(hi1) and bool(np.all(p == 1.0))
        self.k = int(np.ceil(hi1 - FEAS_RTOL * c.size)) if cardinality else None
        self.x0, self.y0 = self._inner(c, p)  # z = 0; Infeasible: the inner row cannot hold
        self.q0 = float(q @ self.x0)
        self.tol = FEAS_RTOL * max(1.0, float(np.abs(q).sum()))  # for the outer row's bounds
        self._sides = {}

    def _inner(self, cost, p):
        """(x, y₁) of the inner LP min costᵀx over the box and the inner row."""
        if self.k is not None:
            return cardinality_row(cost, self.lo1, self.hi1)
        return solve_one_row(cost, p, self.lo1, self.hi1)

    def solve(self, lo2, hi2, max_steps=MAX_NEWTON):
        """(x, y₁, y₂, converged) of (P) with lo₂ ≤ qᵀx ≤ hi₂; Infeasible if it has no point."""
        tol = self.tol
        if lo2 > hi2 + tol:
            raise Infeasible(f"outer row bounds [{lo2:.6g}, {hi2:.6g}] are empty")
        if lo2 - tol <= self.q0 <= hi2 + tol:
            return self.x0, self.y0, 0.0, True
        side = 1.0 if self.q0 < lo2 else -1.0
        state = self._sides.get(side) or self._side(side)
        xc, y1, z, converged = self._newton(state, side * (lo2 if side > 0 else hi2), tol, max_steps)
        x = np.zeros(self.c.size)
        x[state["items"]] = xc
        return x, y1, side * z, converged

    def _side(self, side):
        """The items that can enter (all, or the undominated ones of a cardinality row), their
        data, and the first two lines: z = 0 and the largest sideᵀ·qᵀx (z → ∞)."""
        qs = side * self.q
        items = np.arange(self.c.size) if self.k is None else \
            np.union1d(undominated(self.c, qs, self.k), np.flatnonzero(self.x0))
        state = {"items": items, "c": self.c[items], "p": self.p[items], "q": qs[items],
                 "rows": np.vstack([self.p[items], qs[items]]),
                 "lines": [(0.0, float(self.c @ self.x0), float(qs @ self.x0), self.x0[items], self.y0)]}
        x_inf, y_inf = self._inner(-state["q"], state["p"])
        state["infinity"] = (np.inf, float(state["c"] @ x_inf), float(state["q"] @ x_inf), x_inf, y_inf)
        self._sides[side] = state
        return state

    def _line(self, state, z):
        """Solve the inner LP at outer multiplier z: its line (z, cᵀx, qᵀx, x, y₁), kept."""
        self.evaluations += 1
        x, y1 = self._inner(state["c"] - z * state["q"], state["p"])
        line = (z, float(state["c"] @ x), float(state["q"] @ x), x, y1)
        state["lines"].append(line)
        return line

    def _newton(self, state, target, tol, max_steps):
        """Maximise H(z) = min_x cᵀx + z(target − qᵀx) over z ≥ 0 (module docstring)."""
        if target > state["infinity"][2] + tol:
            raise Infeasible(f"the outer row needs {target:.10g}; at most {state['infinity'][2]:.10g} is attainable")
        lines = state["lines"]
        for z, cost, qx, x, y1 in lines:
            if abs(target - qx) <= tol:
                return x, y1, z, True
        low = max((ln for ln in lines if target - ln[2] > tol), key=lambda ln: ln[0])
        high = min((ln for ln in lines if target - ln[2] < -tol), key=lambda ln: ln[0],
                   default=state["infinity"])
        for _ in range(max_steps):
            s_low, s_high = target - low[2], target - high[2]
            z = max((high[1] - low[1]) / (s_low - s_high), 0.0)  # z < 0 only by round-off
            bound = low[1] + z * s_low
            line = self._line(state, z)
            value = line[1] + z * (target - line[2])
            scale = max(1.0, abs(low[1]), abs(high[1]), abs(z * target))
            if value >= bound - VALUE_RTOL * scale or not low[0] < z < high[0]:
                theta = -s_high / (s_low - s_high)
                x = high[3] + theta * (low[3] - high[3])
                x[low[3] == high[3]] = low[3][low[3] == high[3]]
                return purify(x, state["rows"], state["c"]), line[4], z, True
            if abs(target - line[2]) <= tol:
                return line[3], line[4], z, True
            if target - line[2] > 0:
                low = line
            else:
                high = line
        return None, np.nan, np.nan, False
