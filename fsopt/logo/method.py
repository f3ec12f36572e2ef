"""LOGO as a fixed-point method for the generic driver (Alg. 1 of Sun et al. 2010), with safe
elimination of features and a certificate over all features.

A feature j left out of the statistics is fixed at w_j = 0.  That is the subproblem's optimum
(the full-J subproblem at the current z̄) exactly when its KKT condition holds at w_j = 0:
    slack_j = penalty.zero_slack(w, g)_j ≥ −tol,   g_j = Σ_n ℓ'(m_n) z̄_nj,   m = Z w
(ℓ the subproblem's margin loss, :class:`~fsopt.core.parts.MarginLoss`: ℓ'(m) = −σ(−m) for the
logistic loss of (7); with ℓ1 on w ≥ 0, slack_j = λ + g_j; form (8): g_j + ν).  Everything is read
from the subproblem's declared parts: ``smooth.margin_derivative`` and ``penalty.zero_slack``
(nondecreasing in g: a lower bound of g gives a lower bound of the slack), the penalty over all J
features being ``subproblem.penalty`` as declared before the first ``set_margins``.  A subproblem
that does not declare them gets no elimination: LOGO refuses ``prune_below`` before any work,
naming the missing part (:func:`screening_refusal`).

Working set (default, ``working_set=True``; the outer analogue of glmnet's strong rules with a
final KKT check, celer and skglm): the fixed point iterates on the active features only (z̄ of
those columns, distances over the nonzero weights: cheap), in rounds closed by the driver's check
over all features — when the working set converges, cycles, stalls or converges slowly, or after
``round_iter`` iterations (it may be missing a feature) — one pass over the held-out columns per
round, which needs their gradients z̄_jᵀℓ'(m), not z̄ (:func:`~fsopt.logo.margins.zbar_products`,
half the multiply-adds of z̄ and no N × J result), over an in-memory X first estimated in float32
with a bound on the error (the timings: docs/logo-scale.md), the features the bound cannot decide then computed exactly, so
that every decision and every number of the certificate is the exact computation's; the most
violating features enter (at most twice the working set, and 100: as skglm and celer grow
theirs) and the iteration goes on.  The intermediate iterates are then those of the working
set's problem; the final one is certified over all J.  ``working_set=False``: every update solves
the full-J subproblem, eliminated features kept out by the bound below (costlier when many
re-enter: each one's z̄ column is recomputed) — or, with LBFGSB from J = ``_HELD_FROM`` on (the
plain run after a hand-over), through :class:`~fsopt.logo.held_margins.HeldMargins`: z̄ of the
held columns, every other column's gradient as products, the solution the full z̄'s bit for bit.

Between the solve where ∂_j was last computed exactly (s⁰, z̄⁰, A⁰ with s = −ℓ'(m) and
A = P_miss − P_hit, eqs 3–5) and now,
    ∂_j − ∂⁰_j = −Σ_n (s_n − s⁰_n) z̄⁰_nj − Σ_n s_n (z̄_nj − z̄⁰_nj),
and z̄_nj − z̄⁰_nj = Σ_i (A_ni − A⁰_ni)|x_nj − x_ij| where each of P_miss, P_hit sums to 1 per row
and |x_nj − x_ij| ∈ [0, r_j] (r_j the range of column j), so
    ∂_j ≥ ∂⁰_j − ‖s − s⁰‖₂ ‖z̄⁰_j‖₂ − ½ r_j Σ_n |s_n| ‖A_n − A⁰_n‖₁.
An eliminated feature stays out while this bound is ≥ −tol; where it is not, ∂_j is computed
exactly (its z̄ column only) and the feature re-enters the same solve if it violates.  The check
over all features computes every eliminated feature's ∂_j exactly (``working_set=False``, or a
penalty that is not separable, where the bound reads ‖z̄_j‖: from z̄ itself).

The fit's certificate (:meth:`LogoFixedPoint.certificate`): the proximal KKT residual of the last
subproblem over all J features at the margins it was solved at, max_j |w_j − prox(w − ∇f(w))_j|
with the declared penalty over all J and each column's gradient z̄_jᵀℓ'(m) from the declared loss
— its own product, computed beside the screening's in the same pass over the columns (one
product where the two derivative vectors are equal number for number), so a screening that used
another gradient does not certify itself.

Memory: z̄ is held for at most ``_HELD_ELEMENTS`` entries (N × columns).  Beyond that the
statistics stream: z̄ is computed one column block at a time, each column's exact ∂_j (and
‖z̄_j‖) is recorded, and only the columns most likely to enter (smallest ∂_j) are kept; the
first iteration (w⁽⁰⁾ dense) ranks the columns by ∂_j at w = 0, where the garrote solve starts.
The check over the rest then streams the same way, so only the held columns, one block of X and
the N×N matrices are in memory, whatever J.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.blocks import column_ranges, take_columns
from ..core.driver import FixedPointMethod, Step
from ..core.exceptions import SolverFailed
from ..core.parts import missing_parts, nonsmooth_reason
from ..core.solvers import as_resolved
from .held_margins import HeldMargins
from .margins import (SingleMargins, compile_kernels, margin_coefficients, signed_abs_sum, zbar_products,
                      zbar_products_estimate)

_CHUNK_ELEMENTS = 2**24  # N × columns per streamed block of z̄ (128 MiB of float64)
_HELD_ELEMENTS = 2**27  # N × columns of z̄ held in memory (1 GiB of float64), unless the working
_MIN_KEPT = 256  # set needs more: each streamed check keeps max(room, working set, this) columns
_IN_PLACE_SHARE = 0.8  # a check reads X in place (all columns of the span) when its features are this
# share of their span, else copies them: a column copied costs ~1/4 of its products (460 × 20,000)
_MIN_ENTRANTS = 100  # a check admits the most violating features: max(this, 2 × working set)
_SINGLE_FROM = 2048  # a check over at least this many columns of an in-memory X estimates in float32 first
_SINGLE_EXACT_SHARE = 0.25  # ... until a check had to compute more than this share of them again exactly
_PRODUCT_WORK = 0.5  # a column of gradient products, in columns of z̄
_HELD_FROM = 2 * _SINGLE_FROM  # held margins from this J: an update then costs z̄ of every column in float32
# (0.46-0.61 of float64's) or ~3.5 passes of products; at J = 2,000 no cheaper than the plain update (docs/logo-scale.md)
_ITERATION_COLUMNS = 1024  # an iteration's own cost (N × N kernel, solver set-up), in columns (docs/logo-scale.md)
SCREENING_NEEDS = {"smooth": ("margin_derivative",), "penalty": ("zero_slack", "violation")}


def zbar_fits(X) -> bool:
    """Whether z̄ of every column of X fits in the memory the statistics hold (``_HELD_ELEMENTS``
    entries): else they stream, and a fit screens features whatever ``prune_below`` says."""
    return X.shape[0] * X.shape[1] <= _HELD_ELEMENTS


def screening_refusal(subproblem) -> str:
    """Why LOGO cannot screen features for ``subproblem`` ("" if it can): a loss that is not smooth
    (no gradient to screen with), or the parts elimination, the working set and a streamed fit read
    (:data:`SCREENING_NEEDS`) that it does not declare."""
    nonsmooth = nonsmooth_reason(getattr(subproblem, "smooth", None))
    if nonsmooth:
        return (f"{nonsmooth}: LOGO's elimination and working set screen a held-out feature by its gradient "
                f"z̄_jᵀℓ'(m), which such a loss does not have at its kink (a smooth loss declares them)")
    missing = missing_parts(subproblem, **SCREENING_NEEDS)
    if not missing:
        return ""
    return (f"{type(subproblem).__name__} declares no {', '.join(missing)}: LOGO's elimination and working "
            f"set compute the gradient of a feature they hold out as z̄_jᵀℓ'(m) (smooth.margin_derivative: the "
            f"per-sample derivative of a margin loss, see fsopt.MarginLoss) and test it with the penalty "
            f"(penalty.zero_slack, penalty.violation, see fsopt.Penalty)")


class _Opening(NamedTuple):
    """What an update over all J leaves behind, for :meth:`LogoFixedPoint.replay`."""

    A: np.ndarray
    margins: np.ndarray
    grad: np.ndarray
    own: np.ndarray
    znorm: np.ndarray
    weights: np.ndarray
    record: object


class LogoFixedPoint(FixedPointMethod):
    """statistics(w) = A and z̄ of the held features; update = solve the garrote subproblem.

    ``solver``, each of ``fallback`` and ``check_against`` are names (resolved here, once, with
    ``solver_options``) or :class:`~fsopt.core.solvers.ResolvedSolver` objects.
    ``check_against``: a second solver every subproblem is also solved with; its relative
    objective gap and weight difference go into the record's certificate, and a gap beyond
    ``check_tol`` (objective, weights relative to max(1, max w)) raises :class:`SolverFailed`.

    ``x_scale``: the statistics are those of X / x_scale without forming it (distances and z̄ are
    linear in X: the kernel width becomes σ·x_scale and z̄ is divided by x_scale).

    ``working_set``: see the module docstring.  ``screening``: whether features may be held out
    (elimination, or z̄ beyond the memory budget); it needs the parts of :data:`SCREENING_NEEDS`.
    ``data_passes`` counts the columns of X read (distances and z̄ alike) divided by J,
    cumulative; the driver records it per iteration.  ``work`` counts what the driver's budget
    reads, in pass equivalents, by what is computed rather than how: a column of distances or of z̄
    1, a feature a check computes the gradient of ½ (one multiply-add per pair of rows where z̄
    takes two; whether from float32 estimates or in place does not change it), a column solved 1,
    and each iteration's own cost (the N × N kernel, the solver's set-up) ``_ITERATION_COLUMNS``, at
    most one pass.
    """

    remedy = "a larger sigma (Theorem 2: above some sigma* the map is a contraction, faster as sigma grows)"

    def __init__(self, X, y, sigma, subproblem, solver, fallback=(), solver_options=None, w0=None,
                 check_against=None, check_tol=(1e-6, 1e-3), x_scale=1.0, working_set=True,
                 screening=True):
        compile_kernels()  # (once per process: a first fit compiles what any later one runs)
        self.X, self.y, self.sigma, self.x_scale = X, y, sigma, x_scale
        self.subproblem = subproblem
        self.penalty = subproblem.penalty  # over all J features (before any set_margins(columns=))
        self.solver, *self.fallback = [as_resolved(name, subproblem, solver_options)
                                       for name in (solver, *fallback)]
        self.w0 = w0
        self.check_against = None if check_against is None else \
            as_resolved(check_against, subproblem, solver_options)
        self.check_tol = check_tol
        self.working_set = working_set
        self.screening = screening
        self.data_passes = self.work = 0.0
        self.n_violators = 0  # features the last check over all features found violating (before its limit)
        J = X.shape[1]
        self._weights = np.zeros(J)  # the last solve's weights over all J (held columns; 0 elsewhere)
        self._record = None  # the last solve's record
        self._A = self._S = None  # the last subproblem's coefficients A and derivatives [−ℓ'(m), ℓ'(m)]
        self._row_drift = np.zeros(X.shape[0])  # Σ_t ‖A_n⁽ᵗ⁾ − A_n⁽ᵗ⁻¹⁾‖₁ since the start
        self._epochs = []  # per solve: (s, row drift then)
        self._grad = np.zeros(J)  # g_j as the screening computes it, at its last exact evaluation, ...
        self._own_grad = np.zeros(J)  # ... the certificate's own g_j then, ...
        self._znorm = np.zeros(J)  # ... ‖z̄_j‖₂ then, ...
        self._epoch = np.full(J, -1)  # ... and the epoch it belongs to (-1: never computed)
        self._range = None
        self._held = None  # (active mask, X[:, mask]) of the last statistics over a working set
        self._single = None  # X in float32 for the checks' estimates (False: not used)
        self._abs32 = None  # |X| in float32 and its columns' largest entries

    def initial_iterate(self):
        return np.ones(self.X.shape[1]) if self.w0 is None else np.asarray(self.w0, dtype=float)

    def solves_all(self, active):
        return not self.working_set or bool(active.all())

    def statistics(self, iterate, active):
        """(A, held, z̄ of the held columns): every active column while they fit in memory, else
        the nonzero ones, else (w⁽⁰⁾ dense) those with the smallest ∂_j at w = 0 (one stream)."""
        read = np.count_nonzero(iterate > 0) / iterate.size
        self.data_passes += read
        self.work += read + min(_ITERATION_COLUMNS / iterate.size, 1.0)  # at most a pass: a few columns' X
        N, limit = self.X.shape[0], _HELD_ELEMENTS // self.X.shape[0]
        if active.sum() <= limit:
            X = self._held_columns(active)
            A = margin_coefficients(X, self.y, iterate[active], self.sigma * self.x_scale)  # w = 0 off it
            return A, np.flatnonzero(active), self._zbar(A, X)
        A = margin_coefficients(self.X, self.y, iterate, self.sigma * self.x_scale)
        nonzero = np.flatnonzero(active & (iterate > 0))
        if nonzero.size <= limit:  # the other active columns are checked in the update
            return A, nonzero, self._zbar(A, self._columns(nonzero))
        self._new_epoch(A, np.zeros(N))  # margins 0: the garrote's start w = 0
        return (A, *self._stream(np.flatnonzero(active), limit))

    def _held_columns(self, active):
        """X[:, active]: X itself while nothing is eliminated; else from the last copy when the
        active set only lost features since (each subset read from X scans all of it)."""
        if active.all():
            return self.X
        if self._held is not None and not (active & ~self._held[0]).any():
            mask, X = self._held
            X = X if np.array_equal(mask, active) else take_columns(X, active[mask])
        else:
            X = take_columns(self.X, active)
        self._held = (active.copy(), X)
        return X

    def update(self, stats, iterate, active):
        """Solve the garrote subproblem over the held columns; if another feature's KKT condition
        (working set: another active feature's) cannot be shown at the solution, compute its z̄
        column (kept for the rest of this update while memory allows) and, if it violates, solve
        again with it (warm-started) until none does: the result is the subproblem's solution over
        the active features (``working_set=False``: over all J)."""
        A, cols, Z = stats
        held, failed = self._solve_held(A, cols, Z, iterate, active) if self.holds_some_margins() else (None, [])
        if held is not None:
            return held
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
            self.work += cols.size / iterate.size
            w = record.solution["w"]
            self._weights = np.zeros(iterate.size)
            self._weights[cols] = w
            self._record = record
            if not self.screening:
                break
            self._new_epoch(A, Z @ w)
            # ‖z̄_j‖ depends on A only: the held columns' norms once per update (entrants come
            # from the pool, whose norms _stream set), the pool's never again
            g = self.subproblem.smooth.gradient(w)
            self._set_reference(cols, g, g, Z if len(records) == 1 else None)
            tol = self._tolerance(w)
            self._set_reference(pool, *self._gradient_of(Z_pool))
            unsure = self._unsure(unchecked, tol)
            if unsure.size:
                kept, Z_kept = self._violators(unsure, tol) if self._screens_by_products() else \
                    self._stream(unsure, max(_HELD_ELEMENTS // Z.shape[0] - cols.size - pool.size, cols.size,
                                             _MIN_KEPT))  # the working set may double
                unchecked = np.setdiff1d(unchecked, kept, assume_unique=True)
                pool, Z_pool = np.concatenate([pool, kept]), np.hstack([Z_pool, Z_kept])
            enter = self._slack(self._grad[pool], pool) < -tol
            if not enter.any():
                break
            cols, Z = np.concatenate([cols, pool[enter]]), np.hstack([Z, Z_pool[:, enter]])
            pool, Z_pool = pool[~enter], Z_pool[:, ~enter]
            warm = np.concatenate([w, np.zeros(int(enter.sum()))])
        records[0].attempts[:0] = failed  # a held solve that failed first: named in the answer's attempts
        if self.check_against is not None:
            self._cross_check(record)
        new = np.zeros_like(iterate)
        new[cols] = w
        opening = None
        if self.screening and cols.size == iterate.size:  # every gradient exact at this solve: replayable
            opening = _Opening(A, Z @ w, self._grad.copy(), self._own_grad.copy(), self._znorm.copy(),
                               self._weights.copy(), record)
        return Step(new, records, record.objective, reentered=cols[~active[cols]], detail=opening)

    def hand_over(self):
        """The plain run after a hand-over (:class:`~fsopt.logo.working_set.WorkingSet`): every
        update solves the subproblem over all J from now on; returns whether its statistics may
        hold some columns only (:meth:`holds_some_margins`).  Where they do not and z̄ of every
        column fits in memory, the run is the plain iteration's own (``screening`` off, as without
        elimination): each update solves with every column held, and its solve's certificate
        covers all J, so the screening's bookkeeping (gradients, ‖z̄_j‖ and the drift of A kept
        for every column) would only cost time: 5–10 % of an update at J = 2,000."""
        self.working_set = False
        held = self.holds_some_margins()
        if not held and zbar_fits(self.X):
            self.screening = False
        return held

    def holds_some_margins(self, working_set=None):
        """Whether an update over all J may hold z̄ for some columns only, its solution that over
        the full z̄ bit for bit (:class:`~fsopt.logo.held_margins.HeldMargins`): updates over all J
        (``working_set=False``) with features held out (``screening``), X a NumPy array (on a sparse X
        the held run's iterates were measured to leave the plain iteration's in the last
        digits), a backend that reads the
        smooth part only through gradient and restrict at this J (LBFGSB's working set), a
        subproblem that takes a margin source and has a margin loss to hold (``loss`` with
        ``with_margins``: any other gets the plain update), no second solver to check against (it
        would need every column), and the screening's products (a separable penalty).
        ``working_set``: asked of the run with this setting (None: this run's; False: the run
        after a hand-over)."""
        J, backend = self.X.shape[1], self.solver.backend
        return self.screening and J >= _HELD_FROM and isinstance(self.X, np.ndarray) and \
            self._screens_by_products(working_set) and self.check_against is None and \
            J >= getattr(backend, "working_set_from", np.inf) and \
            self.solver.solver_options.get("working_set", True) is not False and \
            hasattr(self.subproblem, "set_margin_source") and \
            callable(getattr(getattr(self.subproblem, "loss", None), "with_margins", None))

    def _solve_held(self, A, cols, Z, iterate, active):
        """The subproblem over all J with z̄ held for ``cols``: the backend computes the others'
        gradients as products and a column's z̄ when it asks its exact gradient or takes it (the
        solution is that over the full z̄, bit for bit: module docstring of
        :mod:`fsopt.logo.held_margins`).  Returns the step and
        ``[]``, or None and the failed solve's attempts when the solver fails: the caller then solves
        again with every fallback, as without held margins, and names them in its answer's attempts."""
        J, single, last = iterate.size, [], []

        def estimated(features, m):
            """A new epoch (the margins of the backend's point) and the float32 estimates z̄ᵀ[ℓ'] of
            ``features`` with their bounds (z̄ of every column in float32 once a solve), or None.  The
            backend's test of entrants and its KKT test at the answer ask at the same point: one product."""
            self._new_epoch(A, m)
            if not single and self._single_copy() is not None:
                single.append(SingleMargins(self._of_scaled_X(A, J), self._single, *self._single_abs()))
                self.work += 1.0
            if not single:
                return None
            if not (last and np.array_equal(last[0], m) and np.array_equal(last[1], features)):
                last[:] = [m.copy(), features.copy(), single[0].gradients(features, self._derivatives())]
            return last[2]

        def gradients(features, m):
            estimate = estimated(features, m)
            if estimate is not None:
                G, err = estimate
                self._settle(features, G.copy(), err, self._derivatives())  # (settle writes exact numbers into G)
            else:
                self.work += _PRODUCT_WORK * features.size / J
                self._check_products(features)
            return self._own_grad[features]

        def estimates(features, m):  # the backend's (own) gradient, estimated: no column computed exactly
            estimate = estimated(features, m)
            return None if estimate is None else (estimate[0][:, -1], estimate[1][:, -1])

        margins = HeldMargins(self.subproblem.loss, Z, cols, J, lambda f: self._zbar(A, self._columns(f)), gradients,
                              estimates)
        self.subproblem.set_margin_source(margins)
        self.subproblem.warm_start = iterate
        try:
            record = self.subproblem.solve(self.solver)
        except SolverFailed as failure:
            return None, list(failure.attempts)
        w = record.solution["w"]
        margins.gradient(w)  # (known: the backend's KKT test) its epoch is the current one
        held = margins.held
        self._set_reference(held, *self._gradient_of(margins.Z), margins.Z)
        self.work += held.size / J
        self._weights, self._record = np.array(w, dtype=float), record
        return Step(self._weights.copy(), [record], record.objective, reentered=held[~active[held]]), []

    def replay(self, step):
        """The fit's first update taken again (a restart's first iteration): its coefficients,
        margins, gradients over all J and solve become the current ones, as if just computed (no
        pass over X).  Only an update that held every column can be replayed."""
        opening = step.detail
        if not isinstance(opening, _Opening):
            return False
        self._new_epoch(opening.A, opening.margins)
        self._set_reference(np.arange(self.X.shape[1]), opening.grad, opening.own)
        self._znorm[:] = opening.znorm
        self._weights, self._record = opening.weights.copy(), opening.record
        return True

    def certificate(self, iterate, active):
        """The last subproblem's proximal KKT residual over all J features at the margins it was
        solved at (module docstring), and its bound (the subproblem's own certificate tolerance).
        Columns whose gradient at that solve is not known yet are computed (one pass over them:
        none after a final check); without screening every column was held, and the last solve's
        own certificate covers all J."""
        J, record = self.X.shape[1], self._record
        if not self.screening:
            return {"kkt_residual": record.residual, "kkt_bound": record.certificate["bound"], "n_features": J}
        stale = np.flatnonzero(self._epoch != len(self._epochs) - 1)
        if stale.size:
            self._stream(stale, keep=0)
        w = self._weights
        residual = float(np.max(self.penalty.violation(w, self._own_grad), initial=0.0))
        return {"kkt_residual": residual, "kkt_bound": float(self._tolerance(w)), "n_features": J}

    def _stream(self, features, keep):
        """Exact ∂_j and ‖z̄_j‖ at the current epoch for ``features``, one column block at a time;
        returns the ``keep`` of them with the smallest ∂_j (violators first) and their z̄ (a
        column is copied into the kept buffer only when it displaces a worse one)."""
        N = self.X.shape[0]
        block = max(1, _CHUNK_ELEMENTS // N)
        if keep == 0 and self._bounds_unused():
            self._check_products(features)
            return features[:0], np.empty((N, 0))
        slots = np.empty(min(keep, features.size), dtype=features.dtype)  # feature held per slot
        buf, used = np.empty((N, slots.size)), 0
        for start in range(0, features.size, block):
            cols = features[start:start + block]
            Z = self._zbar(self._A, self._columns(cols))
            self._set_reference(cols, *self._gradient_of(Z), Z)
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

    def _screens_by_products(self, working_set=None):
        """Whether an update over all J decides the features it does not hold by their gradients'
        products alone (½ a column each, no z̄): a separable penalty reads only each feature's own
        gradient (``working_set``: of a run with this setting; None: this run's)."""
        working_set = self.working_set if working_set is None else working_set
        return not working_set and getattr(self.penalty, "separable", True)

    def _violators(self, features, tol):
        """Exact ∂_j at the current epoch for ``features`` from products (:meth:`_check_products`);
        returns their violators and the violators' z̄ columns (exact ∂_j and ‖z̄_j‖ from them)."""
        self.work += _PRODUCT_WORK * features.size / self.X.shape[1]
        estimated, _, _ = self._check_products(features, tol)
        known = np.setdiff1d(features, estimated, assume_unique=True)
        violators = np.union1d(known[self._slack(self._grad[known], known) < -tol], estimated)
        Z = self._zbar(self._A, self._columns(violators))
        self._set_reference(violators, *self._gradient_of(Z), Z)
        return violators, Z

    def _bounds_unused(self):
        """Whether no bound is drawn from a feature the check computed: the working set holds
        the active columns exactly, and a separable penalty reads only each feature's own
        gradient (else the check keeps ‖z̄_j‖ for the bound of the module docstring)."""
        return self.working_set and getattr(self.penalty, "separable", True)

    def _check_products(self, features, tol=None):
        """:meth:`_products_of` over ``features``, one column block at a time; returns the
        features left estimated (violators, with ``tol``) and their slack's lower and upper bounds."""
        block = max(1, _CHUNK_ELEMENTS // self.X.shape[0])
        parts = [self._products_of(features[start:start + block], tol)
                 for start in range(0, features.size, block)]
        if not parts:
            return features[:0], np.empty(0), np.empty(0)
        return tuple(np.concatenate(part) for part in zip(*parts))

    def _products_of(self, cols, tol=None):
        """Exact ∂_j at the current epoch for ``cols`` as z̄ᵀ[ℓ'_screening, ℓ'_own] without z̄
        (:func:`~fsopt.logo.margins.zbar_products`), one product when the two derivatives are the same numbers; ‖z̄_j‖
        is not known (inf: no bound is drawn from it; the feature is computed again when one is
        needed).

        Over many columns of an in-memory X, the products are first estimated from X in float32
        with a bound on their error (:func:`~fsopt.logo.margins.zbar_products_estimate`).  A feature whose slack is > 0 at every gradient within the bound (both
        derivatives) keeps the estimate: it is no violator and its certificate's violation is 0
        from either number.  With ``tol``, a feature whose slack is < −tol at every gradient within
        the bound is a violator either way: it keeps its last epoch and is returned as
        (features, lower, upper bound of the slack).  Every other feature is computed exactly.  So
        each decision the check takes, and each number the certificate reads, is the exact
        computation's; returns the estimated violators."""
        S = self._derivatives()
        X32 = self._single_copy() if cols.size >= _SINGLE_FROM and self._in_place(cols) else None
        if X32 is None:
            self._set_products(cols, self._exact_products(cols, S))
            return cols[:0], np.empty(0), np.empty(0)
        start, stop = cols[0], cols[-1] + 1
        G, err = zbar_products_estimate(self._of_scaled_X(self._A, cols.size), X32, S, span=(start, stop))
        return self._settle(cols, G[cols - start], err[cols - start], S, tol)

    def _settle(self, cols, G, err, S, tol=None):
        """Estimates G of z̄ᵀS for ``cols`` within ``err``: what :meth:`_products_of` keeps of them,
        computing exactly the features they cannot decide; returns the estimated violators."""
        sure = np.logical_and.reduce([self._slack(G[:, k] - err[:, k], cols) > 0 for k in range(S.shape[1])])
        upper = self._slack(G[:, 0] + err[:, 0], cols) if tol is not None else np.full(cols.size, np.inf)
        estimated = ~sure & (upper < -tol) if tol is not None else np.zeros_like(sure)
        exact = ~sure & ~estimated
        if tol is not None and exact.sum() > _SINGLE_EXACT_SHARE * cols.size:
            self._single = False  # the estimates decide too little on this data: exact checks from now on
        if exact.any():
            G[exact] = self._exact_products(cols[exact], S)
        known = ~estimated
        self._set_products(cols[known], G[known])
        lower = self._slack(G[estimated, 0] - err[estimated, 0], cols[estimated])
        return cols[estimated], lower, upper[estimated]

    def _derivatives(self):
        """The derivative columns the products need: [ℓ'_screening, ℓ'_own], or one when they are
        the same numbers."""
        same = np.array_equal(self._S[:, 0], self._S[:, 1])
        return self._S[:, :1] if same else self._S

    def _set_products(self, cols, G):
        """∂_j from the products G = z̄ᵀ[ℓ'_screening, ℓ'_own] (one column: the same numbers) at the
        current epoch; ‖z̄_j‖ not known."""
        self._set_reference(cols, G[:, 0], G[:, -1])
        self._znorm[cols] = np.inf

    def _exact_products(self, cols, S):
        """z̄ᵀS for the columns ``cols`` (reading X in place when they fill most of their span)."""
        A = self._of_scaled_X(self._A, cols.size)
        if self._in_place(cols):
            start = cols[0]
            return zbar_products(A, self.X, S, span=(start, cols[-1] + 1))[cols - start]
        return zbar_products(A, self._columns(cols), S)

    def _in_place(self, cols):
        """Whether the columns ``cols`` are read where they are (an in-memory X, and at least
        ``_IN_PLACE_SHARE`` of the span they cover): else they are copied first."""
        return isinstance(self.X, np.ndarray) and self.X.flags.c_contiguous and \
            cols.size >= _IN_PLACE_SHARE * (cols[-1] + 1 - cols[0])

    def _single_copy(self):
        """X in float32 for the checks' estimates, made at the first check that uses it (half of
        X's memory), or None: X not float64, larger than ``_HELD_ELEMENTS`` entries (the copy would
        pass 512 MiB), not finite in float32, or estimates that decided too little
        (:meth:`_products_of`)."""
        if self._single is None:
            small = self.X.dtype == np.float64 and self.X.size <= _HELD_ELEMENTS
            X32 = self.X.astype(np.float32) if small else None
            self._single = X32 if X32 is not None and np.isfinite(X32).all() else False
        return None if self._single is False else self._single

    def _single_abs(self):
        """|X| in float32 and each column's largest |x_nj| (for the bound of
        :class:`~fsopt.logo.margins.SingleMargins`), made once."""
        if self._abs32 is None:
            absolute = np.abs(self._single)
            self._abs32 = (absolute, absolute.max(axis=0).astype(float))
        return self._abs32

    def _screening_derivative(self, m):
        """ℓ'(m) as the screening reads it: the declared loss's ``margin_derivative``."""
        return self.subproblem.smooth.margin_derivative(m)

    def _new_epoch(self, A, m):
        """A solve happened at margins ``m``: its A and loss derivatives become the current ones."""
        if self._A is not None and A is not self._A:
            self._row_drift = self._row_drift + np.abs(A - self._A).sum(axis=1)
        s = -np.asarray(self._screening_derivative(m), dtype=float)
        own = np.asarray(self.subproblem.smooth.margin_derivative(m), dtype=float)
        self._A, self._S = A, np.column_stack([-s, own])
        self._epochs.append((s, self._row_drift))

    def _set_reference(self, cols, g, own, Z=None):
        """∂_j exact at the current epoch for ``cols`` (the screening's, ``g``, and the
        certificate's, ``own``; and ‖z̄_j‖ from Z, when A is new to them)."""
        self._grad[cols], self._own_grad[cols] = g, own
        if Z is not None:
            # ‖z̄_j‖ without an N×J temporary
            self._znorm[cols] = np.sqrt(np.einsum("nj,nj->j", Z, Z))
        self._epoch[cols] = len(self._epochs) - 1

    def _lower_bound(self, out):
        """The bound of the module docstring on g_j for the features ``out`` (exact at the current
        epoch, −inf where never computed)."""
        s, e = self._epochs[-1][0], self._epoch[out]
        ds, dA = np.zeros(len(self._epochs)), np.zeros(len(self._epochs))
        for k in np.unique(e[e >= 0]):  # the epochs these features were computed at
            s0, c0 = self._epochs[k]
            ds[k], dA[k] = np.linalg.norm(s - s0), 0.5 * np.abs(s) @ (self._row_drift - c0)
        drift = np.multiply(ds[e], self._znorm[out], out=np.zeros(out.size), where=ds[e] > 0)  # ‖z̄_j‖ may be inf
        bound = self._grad[out] - drift - dA[e] * self._range[out]
        return np.where(e >= 0, bound, -np.inf)

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
        blocks of z̄): of those with slack < −tol at w_j = 0 (tol = the certificate's,
        1e-4·max(1, max w)), the most violating max(100, 2 × active) enter (equal slacks: the lower
        index first); how many violate is kept in ``n_violators``.  Features whose ∂_j the last
        update already computed exactly at this solve are not computed twice; violators known from
        float32 estimates (:meth:`_products_of`) are computed exactly only where the order of the
        entrants needs it."""
        out, tol = np.flatnonzero(~active), self._tolerance(iterate)
        fresh = out[self._epoch[out] != len(self._epochs) - 1]
        if self._bounds_unused():  # products: their work counted by feature, however they are computed
            self.work += _PRODUCT_WORK * fresh.size / self.X.shape[1]
            estimated, lower, upper = self._check_products(fresh, tol)
        else:
            self._stream(fresh, keep=0)
            estimated, lower, upper = fresh[:0], np.empty(0), np.empty(0)
        known = np.setdiff1d(out, estimated, assume_unique=True)
        slack = self._slack(self._grad[known], known)
        violators, slack = known[slack < -tol], slack[slack < -tol]
        self.n_violators = violators.size + estimated.size
        limit = max(_MIN_ENTRANTS, 2 * int(active.sum()))
        if violators.size + estimated.size <= limit:
            return np.union1d(violators, estimated)
        while True:  # the limit-th smallest slack lies in [cut_low, cut_high]
            cut_low = np.partition(np.concatenate([slack, lower]), limit - 1)[limit - 1]
            cut_high = np.partition(np.concatenate([slack, upper]), limit - 1)[limit - 1]
            unclear = (upper >= cut_low) & (lower <= cut_high)
            if not unclear.any():
                break
            exact = estimated[unclear]
            G = self._exact_products(exact, self._derivatives())
            self._set_products(exact, G)
            order = np.argsort(np.concatenate([violators, exact]))
            violators = np.concatenate([violators, exact])[order]
            slack = np.concatenate([slack, self._slack(G[:, 0], exact)])[order]
            estimated, lower, upper = estimated[~unclear], lower[~unclear], upper[~unclear]
        inside = estimated[upper < cut_low]  # below the limit-th slack: enter; the rest stay out
        chosen = violators[np.argsort(slack, kind="stable")[:limit - inside.size]]
        return np.union1d(chosen, inside)

    def _zbar(self, A, X):
        """z̄ of the columns X of X / x_scale (eq. 3)."""
        self.work += X.shape[1] / self.X.shape[1]
        return signed_abs_sum(self._of_scaled_X(A, X.shape[1]), X)

    def _of_scaled_X(self, A, columns):
        """A for the columns of X / x_scale, about to be read (``columns`` of them: counted in
        ``data_passes``): z̄ and its products are linear in A, so A / x_scale (N × N) is scaled,
        not the N × J result."""
        self.data_passes += columns / self.X.shape[1]
        return A if self.x_scale == 1.0 else A / self.x_scale

    def _columns(self, index):
        """X[:, index] for an increasing index array, without reading a store or densifying."""
        mask = np.zeros(self.X.shape[1], dtype=bool)
        mask[index] = True
        return take_columns(self.X, mask)

    def _tolerance(self, w):
        """The bound of the subproblem's own certificate at w (KKT conditions within it hold)."""
        return self.subproblem.certificate_tol * self.subproblem.certificate_scale({"w": w})

    def _gradient_of(self, Z):
        """g_j at w_j = 0 for the z̄ columns Z at the last solve: the screening's and the
        certificate's own (one product with both derivative vectors)."""
        G = Z.T @ self._S
        return G[:, 0], G[:, 1]

    def _slack(self, g, index):
        """How far w_j = 0 is optimal for the features ``index`` given (a lower bound of) their
        smooth gradient g: the penalty's ``zero_slack`` over all J — a separable one restricted to
        ``index``; a non-separable one (a group penalty, the budget of (8)) on the whole vector:
        the last solve's weights, and lower bounds of every other gradient (exact at this solve,
        −inf where never computed)."""
        penalty = self.penalty
        if getattr(penalty, "separable", True):
            part = penalty if penalty.n_features is None else penalty.restrict(index)
            return np.asarray(part.zero_slack(np.zeros_like(g), g), dtype=float)
        if self._range is None:
            self._range = column_ranges(self.X) / self.x_scale
        grad = self._lower_bound(np.arange(self.X.shape[1]))
        grad[index] = g
        return np.asarray(penalty.zero_slack(self._weights, grad), dtype=float)[index]

    def _unsure(self, out, tol):
        """The features of ``out`` whose KKT condition the bound cannot show."""
        if out.size == 0:
            return out
        if self._range is None:
            self._range = column_ranges(self.X) / self.x_scale
        known = out[self._epoch[out] >= 0]
        sure = known[self._slack(self._lower_bound(known), known) >= -tol]
        return np.setdiff1d(out, sure, assume_unique=True)
