"""LOGO as a fixed-point method for the generic driver (Alg. 1 of Sun et al. 2010), with safe
elimination of features.

A feature j left out of the statistics is fixed at w_j = 0.  That is the subproblem's optimum
(the full-J garrote (7) at the current z̄) exactly when its KKT condition holds at w_j = 0:
    slack_j = penalty.zero_slack(0, g)_j ≥ −tol,   g_j = −Σ_n s_n z̄_nj,  s_n = σ(−wᵀz̄_n)
(ℓ1 with w ≥ 0: slack_j = λ + g_j = ∂_j; form (8): ∂_j + ν).  A user's subproblem supplies
``penalty.zero_slack`` (nondecreasing in g, one coordinate at a time: a lower bound of g gives
a lower bound of the slack); a subproblem without ``penalty`` uses ``penalty_weight() + g``.

Working set (default, ``working_set=True``; the outer analogue of glmnet's strong rules with a
final KKT check, celer and skglm): the fixed point iterates on the active features only (z̄ of
those columns, distances over the nonzero weights: cheap), and the eliminated ones wait for the
driver's check over all features when the working set has converged — one full pass of z̄ per
working-set round; the violators enter and the iteration goes on.  The intermediate iterates
are then those of the working set's problem; the final one is certified over all J.
``working_set=False``: every update solves the full-J subproblem, eliminated features kept out
by the bound below (costlier when many re-enter: each one's z̄ column is recomputed).

Between the solve where ∂_j was last computed exactly (s⁰, z̄⁰, A⁰ with A = P_miss − P_hit,
eqs 3–5) and now,
    ∂_j − ∂⁰_j = −Σ_n (s_n − s⁰_n) z̄⁰_nj − Σ_n s_n (z̄_nj − z̄⁰_nj),
and z̄_nj − z̄⁰_nj = Σ_i (A_ni − A⁰_ni)|x_nj − x_ij| where each of P_miss, P_hit sums to 1 per row
and |x_nj − x_ij| ∈ [0, r_j] (r_j the range of column j), so
    ∂_j ≥ ∂⁰_j − ‖s − s⁰‖₂ ‖z̄⁰_j‖₂ − ½ r_j Σ_n s_n ‖A_n − A⁰_n‖₁.
An eliminated feature stays out while this bound is ≥ −tol; where it is not, ∂_j is computed
exactly (its z̄ column only) and the feature re-enters the same solve if it violates.  The check
over all features computes every eliminated column.

Memory: z̄ is held for at most ``_HELD_ELEMENTS`` entries (N × columns).  Beyond that the
statistics stream: z̄ is computed one column block at a time, each column's exact ∂_j (and
‖z̄_j‖) is recorded, and only the columns most likely to enter (smallest ∂_j) are kept; the
first iteration (w⁽⁰⁾ dense) ranks the columns by ∂_j at w = 0, where the garrote solve starts.
The check over the rest then streams the same way, so only the held columns, one block of X and
the N×N matrices are in memory, whatever J.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..core.blocks import column_ranges, take_columns
from ..core.driver import FixedPointMethod, Step
from ..core.exceptions import SolverFailed
from ..core.solvers import as_resolved
from .margins import margin_coefficients, signed_abs_sum

_CHUNK_ELEMENTS = 2**24  # N × columns per streamed block of z̄ (128 MiB of float64)
_HELD_ELEMENTS = 2**27  # N × columns of z̄ held in memory (1 GiB of float64), unless the working
_MIN_KEPT = 256  # set needs more: each streamed check keeps max(room, working set, this) columns


class LogoFixedPoint(FixedPointMethod):
    """statistics(w) = A and z̄ of the held features; update = solve the garrote subproblem.

    ``solver``, each of ``fallback`` and ``check_against`` are names (resolved here, once, with
    ``solver_options``) or :class:`~fsopt.core.solvers.ResolvedSolver` objects.
    ``check_against``: a second solver every subproblem is also solved with; its relative
    objective gap and weight difference go into the record's certificate, and a gap beyond
    ``check_tol`` (objective, weights relative to max(1, max w)) raises :class:`SolverFailed`.

    ``x_scale``: the statistics are those of X / x_scale without forming it (distances and z̄ are
    linear in X: the kernel width becomes σ·x_scale and z̄ is divided by x_scale).

    ``working_set``: see the module docstring.  ``data_passes`` counts the columns of X read
    (distances and z̄ alike) divided by J, cumulative; the driver records it per iteration.
    """

    def __init__(self, X, y, sigma, subproblem, solver, fallback=(), solver_options=None, w0=None,
                 check_against=None, check_tol=(1e-6, 1e-3), x_scale=1.0, working_set=True):
        self.X, self.y, self.sigma, self.x_scale = X, y, sigma, x_scale
        self.subproblem = subproblem
        self.solver, *self.fallback = [as_resolved(name, subproblem, solver_options)
                                       for name in (solver, *fallback)]
        self.w0 = w0
        self.check_against = None if check_against is None else \
            as_resolved(check_against, subproblem, solver_options)
        self.check_tol = check_tol
        self.working_set = working_set
        self.data_passes = 0.0
        self._weights = None  # the last solve's weights over all J (held columns; 0 elsewhere)
        J = X.shape[1]
        self._A = self._s = None  # the last subproblem's coefficients A and sigmoids s
        self._row_drift = np.zeros(X.shape[0])  # Σ_t ‖A_n⁽ᵗ⁾ − A_n⁽ᵗ⁻¹⁾‖₁ since the start
        self._epochs = []  # per solve: (s, row drift then)
        self._grad = np.zeros(J)  # g_j (+ ν) at its last exact evaluation, ...
        self._znorm = np.zeros(J)  # ... ‖z̄_j‖₂ then, ...
        self._epoch = np.full(J, -1)  # ... and the epoch it belongs to (-1: never computed)
        self._range = None
        self._nu = 0.0  # form (8): the multiplier of the budget at the last solve

    def initial_iterate(self):
        return np.ones(self.X.shape[1]) if self.w0 is None else np.asarray(self.w0, dtype=float)

    def statistics(self, iterate, active):
        """(A, held, z̄ of the held columns): every active column while they fit in memory, else
        the nonzero ones, else (w⁽⁰⁾ dense) those with the smallest ∂_j at w = 0 (one stream)."""
        A = margin_coefficients(self.X, self.y, iterate, self.sigma * self.x_scale)  # w = 0 off the active set
        self.data_passes += np.count_nonzero(iterate > 0) / iterate.size
        N, limit = self.X.shape[0], _HELD_ELEMENTS // self.X.shape[0]
        if active.sum() <= limit:
            X = self.X if active.all() else take_columns(self.X, active)  # no copy while nothing is eliminated
            return A, np.flatnonzero(active), self._zbar(A, X)
        nonzero = np.flatnonzero(active & (iterate > 0))
        if nonzero.size <= limit:  # the other active columns are checked in the update
            return A, nonzero, self._zbar(A, self._columns(nonzero))
        self._new_epoch(A, np.full(N, 0.5))  # σ(0): the garrote's start w = 0
        return (A, *self._stream(np.flatnonzero(active), limit))

    def update(self, stats, iterate, active):
        """Solve the garrote subproblem over the held columns; if another feature's KKT condition
        (working set: another active feature's) cannot be shown at the solution, compute its z̄
        column (kept for the rest of this update while memory allows) and, if it violates, solve
        again with it (warm-started) until none does: the result is the subproblem's solution over
        the active features (``working_set=False``: over all J)."""
        A, cols, Z = stats
        unchecked = active.copy() if self.working_set else np.ones(iterate.size, dtype=bool)
        unchecked[cols] = False
        unchecked = np.flatnonzero(unchecked)  # not held (working set: active), no exact column yet
        pool, Z_pool = unchecked[:0], np.empty((Z.shape[0], 0))  # not held, exact column known
        warm, records = iterate[cols], []
        while True:
            self.subproblem.set_margins(Z, columns=cols)
            self.subproblem.warm_start = warm
            record = self.subproblem.solve(self.solver, fallback=self.fallback)
            records.append(record)
            w = record.solution["w"]
            self._weights = np.zeros(iterate.size)
            self._weights[cols] = w
            self._new_epoch(A, expit(-(self.subproblem.Z @ w)))
            # ‖z̄_j‖ depends on A only: the held columns' norms once per update (entrants come
            # from the pool, whose norms _stream set), the pool's never again
            self._set_reference(cols, self._reduced_gradient(self._smooth_gradient(w), w),
                                Z if len(records) == 1 else None)
            tol = self._tolerance(w)
            self._set_reference(pool, self._gradient_of(Z_pool))
            unsure = self._unsure(unchecked, tol)
            if unsure.size:
                room = max(_HELD_ELEMENTS // Z.shape[0] - cols.size - pool.size, cols.size, _MIN_KEPT)
                kept, Z_kept = self._stream(unsure, room)  # the working set may double
                unchecked = np.setdiff1d(unchecked, kept, assume_unique=True)
                pool, Z_pool = np.concatenate([pool, kept]), np.hstack([Z_pool, Z_kept])
            enter = self._slack(self._grad[pool], pool) < -tol
            if not enter.any():
                break
            cols, Z = np.concatenate([cols, pool[enter]]), np.hstack([Z, Z_pool[:, enter]])
            pool, Z_pool = pool[~enter], Z_pool[:, ~enter]
            warm = np.concatenate([w, np.zeros(int(enter.sum()))])
        if self.check_against is not None:
            self._cross_check(record)
        new = np.zeros_like(iterate)
        new[cols] = w
        return Step(new, records, record.objective, reentered=cols[~active[cols]])

    def _stream(self, features, keep):
        """Exact ∂_j and ‖z̄_j‖ at the current epoch for ``features``, one column block at a time;
        returns the ``keep`` of them with the smallest ∂_j (violators first) and their z̄ (a
        column is copied into the kept buffer only when it displaces a worse one)."""
        N = self.X.shape[0]
        block = max(1, _CHUNK_ELEMENTS // N)
        slots = np.empty(min(keep, features.size), dtype=features.dtype)  # feature held per slot
        buf, used = np.empty((N, slots.size)), 0
        for start in range(0, features.size, block):
            cols = features[start:start + block]
            Z = self._zbar(self._A, self._columns(cols))
            self._set_reference(cols, self._gradient_of(Z), Z)
            take = min(slots.size - used, cols.size)  # free slots first
            slots[used:used + take], buf[:, used:used + take] = cols[:take], Z[:, :take]
            used += take
            if take == cols.size or not slots.size:
                continue
            held, new = self._slack(self._grad[slots], slots), self._slack(self._grad[cols[take:]], cols[take:])
            rest = np.flatnonzero(new < held.max()) + take
            if rest.size:  # the best of the held and the rest, written over the worst slots
                both = np.concatenate([held, new[rest - take]])
                best = np.argpartition(both, slots.size - 1)[:slots.size]
                incoming = rest[best[best >= slots.size] - slots.size]
                free = np.setdiff1d(np.arange(slots.size), best[best < slots.size])
                slots[free], buf[:, free] = cols[incoming], Z[:, incoming]
        order = np.argsort(slots[:used])
        return slots[:used][order], buf[:, :used][:, order]

    def _new_epoch(self, A, s):
        """A solve happened: its (A, s) become the current ones."""
        if self._A is not None and A is not self._A:
            self._row_drift = self._row_drift + np.abs(A - self._A).sum(axis=1)
        self._A, self._s = A, s
        self._epochs.append((s, self._row_drift))

    def _set_reference(self, cols, g, Z=None):
        """∂_j exact at the current epoch for ``cols`` (and ‖z̄_j‖ from Z, when A is new to them)."""
        self._grad[cols] = g
        if Z is not None:
            self._znorm[cols] = np.linalg.norm(Z, axis=0)
        self._epoch[cols] = len(self._epochs) - 1

    def _lower_bound(self, out):
        """The bound of the module docstring on g_j (+ ν) for the features ``out``."""
        ds = np.array([np.linalg.norm(self._s - s0) for s0, _ in self._epochs])
        dA = np.array([0.5 * self._s @ (self._row_drift - c0) for _, c0 in self._epochs])
        e = self._epoch[out]
        return self._grad[out] - ds[e] * self._znorm[out] - dA[e] * self._range[out]

    def _reduced_gradient(self, g, w):
        """g_j + ν, ν the multiplier of ‖w‖₁ ≤ β in form (8) (0 for form (7))."""
        if getattr(self.subproblem, "beta", None) is None or not np.any(w > 0):
            return g
        self._nu = max(0.0, -float(np.mean(g[w > 0])))
        return g + self._nu

    def _cross_check(self, record):
        """Solve the same subproblem with ``check_against``; record and enforce the agreement."""
        ref = self.subproblem.solve(self.check_against)
        w, w_ref = record.solution["w"], ref.solution["w"]
        gap = abs(record.objective - ref.objective) / max(abs(ref.objective), 1.0)
        diff = float(np.max(np.abs(w - w_ref), initial=0.0)) / max(1.0, float(w_ref.max(initial=0.0)))
        record.certificate.update({f"{ref.solver}_objective_gap": gap, f"{ref.solver}_weight_diff": diff})
        if gap > self.check_tol[0] or diff > self.check_tol[1]:
            raise SolverFailed(self.subproblem.describe(), record.solver, record.status,
                               detail=f"disagrees with {ref.solver}: relative objective gap "
                                      f"{gap:.3g} (tolerance {self.check_tol[0]:g}), weight "
                                      f"difference {diff:.3g} (tolerance {self.check_tol[1]:g})")

    def project(self, iterate):
        """An accelerated point onto w ≥ 0 (the distances need nonnegative weights)."""
        return np.maximum(iterate, 0.0)

    def kkt_violations(self, iterate, active):
        """Every eliminated feature checked exactly against the last subproblem (streamed in column
        blocks of z̄): those with ∂_j < −tol at w_j = 0 (tol = the certificate's,
        1e-4·max(1, max w)).  Features whose ∂_j the last update already computed exactly at
        this solve are not computed twice."""
        out, tol = np.flatnonzero(~active), self._tolerance(iterate)
        self._stream(out[self._epoch[out] != len(self._epochs) - 1], keep=0)
        return out[self._slack(self._grad[out], out) < -tol]

    def _zbar(self, A, X):
        """z̄ of the columns X of X / x_scale (eq. 3)."""
        self.data_passes += X.shape[1] / self.X.shape[1]
        Z = signed_abs_sum(A, X)
        return Z if self.x_scale == 1.0 else Z / self.x_scale

    def _columns(self, index):
        """X[:, index] for an increasing index array, without reading a store or densifying."""
        mask = np.zeros(self.X.shape[1], dtype=bool)
        mask[index] = True
        return take_columns(self.X, mask)

    def _tolerance(self, w):
        return self.subproblem.certificate_tol * max(1.0, float(w.max(initial=0.0)))

    def _gradient_of(self, Z):
        """g_j (+ ν) at w_j = 0 for the z̄ columns Z, at the last solve."""
        return self._nu - Z.T @ self._s

    def _smooth_gradient(self, w):
        """∇f(w) of the held columns: ``subproblem.smooth.gradient``, else gradient − λ."""
        smooth = getattr(self.subproblem, "smooth", None)
        if smooth is not None:
            return smooth.gradient(w)
        return self.subproblem.gradient(w) - self.subproblem.penalty_weight()

    def _slack(self, g, index):
        """How far w_j = 0 is optimal for the features ``index`` given (a lower bound of) their
        smooth gradient g: the penalty's ``zero_slack`` (a separable one restricted to ``index``; a
        non-separable one, e.g. a group penalty, on the whole vector: the held weights, the best
        known gradients, −inf where none is known yet), else λ + g."""
        penalty = getattr(self.subproblem, "feature_penalty", None) or getattr(self.subproblem, "penalty", None)
        if penalty is None:
            return self.subproblem.penalty_weight() + g
        if getattr(penalty, "separable", True):
            part = penalty if penalty.n_features is None else penalty.restrict(index)
            return np.asarray(part.zero_slack(np.zeros_like(g), g), dtype=float)
        grad = np.where(self._epoch >= 0, self._grad, -np.inf)
        grad[index] = g
        weights = self._weights if self._weights is not None else np.zeros(grad.size)
        return np.asarray(penalty.zero_slack(weights, grad), dtype=float)[index]

    def _unsure(self, out, tol):
        """The features of ``out`` whose KKT condition the bound cannot show (never computed, or
        form (8): all)."""
        if out.size == 0 or getattr(self.subproblem, "beta", None) is not None:  # (8): ν moves
            return out
        if self._range is None:
            self._range = column_ranges(self.X) / self.x_scale
        known = out[self._epoch[out] >= 0]
        sure = known[self._slack(self._lower_bound(known), known) >= -tol]
        return np.setdiff1d(out, sure, assume_unique=True)
