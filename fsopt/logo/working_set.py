"""LOGO's working set: which features the statistics see, the one owner of elimination, the checks
over all features, re-entry, the rent of kept features and the budget against the plain iteration.

The driver (:class:`fsopt.core.driver.FixedPointDriver`) runs the generic loop and asks this
policy, through :class:`~fsopt.core.driver.ActiveSetPolicy`, which features stay active, whether an
iteration closes an outer iteration, and when the run hands over to the plain iteration (a
restart).

- Elimination: a feature whose weight stays below ``prune_below`` for ``prune_patience``
  consecutive iterations leaves the statistics; an update may bring some back (``Step.reentered``).
- The check over all features (``method.kkt_violations``): before converging, and whenever the
  working set is in trouble (a cycle, a stall, slow convergence) or has run ``round_iter``
  iterations; the features it finds violating re-enter.  A working-set round counts as one outer
  iteration.
- Ski rental: the features a check brought back stay until the next check; keeping a zero-weight
  one costs one column per iteration, so they are released once that rent adds up to one pass
  (``iterate.size`` columns): never more than twice the cheaper of the two choices.
- Hand-over: after ``max_circling_checks`` checks that went round (most of their entrants an
  earlier check had brought back already), after ``_NO_HEADWAY`` checks in a row that found no
  fewer violators than the fewest an earlier check found (``method.n_violators``; restart reason
  "no headway"), once the working set's counted work
  (``FixedPointMethod.work``) exceeds its allowance (``fast_budget`` first iterations, growing by a
  quarter of it at each check that shows the working set paying, up to ``_MOST`` times it), or at
  a crowded check: one that finds more violators than the working set holds cheaply
  (``_CHEAP_SHARE`` of the features; ``method.n_violators``) while its iterations are dear (this
  one at least ``_DEAR_SHARE`` of the first iteration's work, or the cheapest so far
  ``_FLOOR_SHARE`` of it: at J up to about 10,000, where an iteration's own cost is that share),
  the run restarts as the plain iteration: the map and iterates of ``prune_below=None`` from the
  initial iterate, with ``max_iter`` outer iterations, every update solving the subproblem over
  all J.  From J = 4,096 on (``LogoFixedPoint.holds_some_margins``) its statistics are held to the
  features the last two updates weighted or took in, the others' gradients given to LBFGSB through
  :class:`~fsopt.logo.held_margins.HeldMargins`: its iterates are the plain iteration's, bit for
  bit.  So a fit's work is at most the plain run's plus ``_MOST`` × ``fast_budget`` first
  iterations.  A crowded check hands over at once: growing the working set to hold its violators
  would cost rounds at no less than that share of a first iteration each, and each round
  restarts the fixed-point iteration on the new set (docs/logo-scale.md: "A crowded check").
  With ``hand_over_first`` the run hands over at its first iteration (LOGO's "auto" below 300
  samples, restart reason "few samples": there the map often has several fixed points, and the
  working set's path can converge to another than the plain iteration's).
"""
from __future__ import annotations

import time

import numpy as np

from ..core.driver import ActiveSetPolicy, reentries

FAST_BUDGET = 4.0  # the working set's work before it hands over, in first iterations' work
_CHEAP_SHARE = 1 / 20  # a working set growing while it holds at most this share of the features pays
_MOST = 2.5  # the allowance grows to at most this many times fast_budget
_DEAR_SHARE = 1 / 10  # a working-set iteration costing this share of the first iteration's work is dear
_NO_HEADWAY = 3  # checks in a row finding no fewer violators than the fewest an earlier check found
_FLOOR_SHARE = 1 / 32  # ... and so is every one once the cheapest so far has cost this share (its own cost,
# 1,024 columns against ~3 passes: J up to about 10,000; spirals at J = 20,000: 0.017-0.020)


class WorkingSet(ActiveSetPolicy):
    """Elimination with checks over all features, re-entry and a budget (see the module docstring).

    Parameters
    ----------
    prune_below : float, default=1e-8
        A weight below this for ``prune_patience`` consecutive iterations: the feature leaves.
    prune_patience : int, default=2
        Iterations below ``prune_below`` before a feature leaves.
    round_iter : int, default=10
        Working-set iterations after which a check over all features runs anyway.
    max_circling_checks : int, default=4
        Checks that went round (since the last one that brought nothing back) before the run
        restarts as the plain iteration (restart reason "went round").
    fast_budget : float, None or "auto", default="auto"
        The working set's allowance, in first iterations' work (restart reason "budget", or
        "crowded" at a crowded check, "no headway" after checks that find no fewer violators);
        None: no budget, no crowded check and no count of headway; "auto":
        :data:`FAST_BUDGET`.
    hand_over_first : str, default=""
        A restart reason: the run hands over at its first iteration, giving this reason, and
        runs as the plain run after a hand-over from there (its first iteration the fit's first,
        not computed again where the method can replay it: ``FixedPointMethod.replay``, as LOGO's
        does); LOGO's "auto" gives "few samples".  "": only the rules above.
    """

    def __init__(self, prune_below=1e-8, prune_patience=2, round_iter=10, max_circling_checks=4,
                 fast_budget="auto", hand_over_first=""):
        self.prune_below = prune_below
        self.prune_patience = prune_patience
        self.round_iter = round_iter
        self.max_circling_checks = max_circling_checks
        self.fast_budget = fast_budget
        self.hand_over_first = hand_over_first

    def start(self, method, n_features, theta):
        self._method, self._theta = method, theta
        self._below = np.zeros(n_features, dtype=int)  # consecutive iterations under prune_below
        self._kept = np.zeros(n_features, dtype=bool)  # entered at the last check: kept while ...
        self._rent = 0  # ... the zero-weight ones cost (columns × iterations) less than one check
        self._tried = np.zeros(n_features, dtype=bool)  # features a check has brought back in this run
        self._eliminating = True  # the working-set run (False: the plain run after a hand-over)
        self._failed, self._in_round = 0, 0  # checks that went round since one admitted none; round's length
        self._budget = FAST_BUDGET if self.fast_budget == "auto" else self.fast_budget
        self._allowance, self._spent, self._unit = self._budget, 0.0, None
        self._mark, self._crowded = None, False  # the method's work when the last iteration ended
        self._fewest, self._stalled = np.inf, 0  # the fewest violators a check found; checks since without fewer
        self._floor = np.inf  # the cheapest working-set iteration without a check so far: its work
        return np.ones(n_features, dtype=bool)

    def observe(self, new, active, step, record, *, change, trouble, working_set):
        if working_set:
            self._in_round += 1
        if new.ndim != 1:
            return active
        if not self._eliminating:
            return self._screen(new, step, record) if self._screening else active
        active = self._reenter(step.reentered, active, record)
        # an update over all J solved the full problem with them: the map is the same
        record.n_reentered_in_update = 0 if working_set else record.n_reentered
        self._below = np.where(new < self.prune_below, self._below + 1, 0)
        self._rent += int(np.count_nonzero(self._kept & (new < self.prune_below)))
        if self._rent > new.size:  # keeping them has cost a pass over the data: release
            self._kept[:] = False
        leaving = active & ~self._kept & (self._below >= self.prune_patience)
        record.n_dropped = int(leaving.sum())
        active = active & ~leaving
        # the check over all features: before converging, and whenever the working set is in
        # trouble or has spent its round (it may be missing a feature); an update over all J
        # misses none, so there only before converging
        if reentries(record) == 0 and (change < self._theta or not active.any() or working_set and (
                trouble or self._in_round >= self.round_iter)):
            active = self._check(new, active, record)
        new[~active] = 0.0
        record.n_active = int(active.sum())
        return active

    def _check(self, new, active, record):
        """The check over all features at ``new``: its violators re-enter (kept until the next
        check); it counts whether it went round, whether it shows the working set paying, and
        whether it is crowded."""
        if active.all():
            return active
        t0 = time.perf_counter()
        price = None if self._method.work is None or self._mark is None else self._method.work - self._mark
        back = self._method.kkt_violations(new, active)
        record.full_check = back is not None
        record.check_time = time.perf_counter() - t0
        before, active = active, self._reenter(back, active, record)
        if back is not None:
            self._kept[:], self._rent = False, 0
            self._kept[back] = True
            entering = active & ~before
            circled = self._circling(entering) if reentries(record) else 0
            self._failed = 0 if not reentries(record) else self._failed + circled
            if self._budget is not None and self._pays(circled, int(entering.sum()), int(active.sum()), active.size):
                self._allowance = min(_MOST * self._budget, self._allowance + self._budget / 4)
            found = getattr(self._method, "n_violators", None)  # (None: a method that does not count them)
            self._headway(found)
            self._crowded = self._budget is not None and record.working_set and self._dear(price) and \
                found is not None and found > _CHEAP_SHARE * active.size
        return active

    def closes_outer(self, record, working_set):
        if working_set and not record.full_check and self._in_round < self.round_iter:
            return False
        self._in_round = 0  # a working-set round counts as one
        return True

    def verdict(self, record, settled):
        self._unit = record.work if record.iteration == 1 else self._unit  # an iteration over all features
        self._mark = self._method.work
        if not self._eliminating:
            return ""
        if self.hand_over_first and record.iteration == 1 and not settled:  # (settled: the plain answer)
            return self.hand_over_first
        if record.working_set:
            self._spent += record.work  # the working set's work, its checks' included
            self._floor = self._floor if record.full_check else min(self._floor, record.work)
        if self._failed >= self.max_circling_checks:
            return "went round"
        if self._crowded:
            return "crowded"
        if self._budget is not None and self._stalled >= _NO_HEADWAY:
            return "no headway"
        return "budget" if not settled and self._over_budget() else ""

    def restart(self):
        self._eliminating = False
        # LOGO's method (LogoFixedPoint.hand_over): its statistics held to a few features where
        # the update's solution is still the one over the full z̄, bit for bit; any other
        # method's plain run keeps every feature active
        hand_over = getattr(self._method, "hand_over", None)
        self._screening = bool(hand_over()) if hand_over is not None else False
        self._weighted = np.zeros_like(self._below, dtype=bool)

    def _screen(self, new, step, record):
        """The plain run after a hand-over: every update solves the full problem (the features it
        does not hold decided by their exact gradients); its statistics are held to the features
        this update or the one before weighted or took in (a support that swings back finds its
        columns held)."""
        record.n_reentered = record.n_reentered_in_update = len(step.reentered)
        held = new > 0
        held[step.reentered] = True
        active, self._weighted = self._weighted | held, held
        record.n_active = int(active.sum())
        return active

    def admit(self, proposal, active, record, working_set):
        if proposal.ndim != 1:
            return active
        if working_set:  # the working set's map: the rest stays at 0
            proposal[~active] = 0.0
        else:  # the full map's point, as without elimination: what it weights is active
            active = self._reenter(np.flatnonzero(~active & (proposal > 0)), active, record)
            record.n_reentered_in_update = record.n_reentered  # what it weights is back
            record.n_active = int(active.sum())
        return active

    def _over_budget(self):
        """Whether the working set has spent more than its allowance, in first iterations' work;
        never for a method that does not count its work."""
        return self._method.work is not None and self._unit is not None and self._allowance is not None and \
            self._spent > self._allowance * self._unit

    def _dear(self, price):
        """Whether a working-set iteration whose statistics and update cost ``price`` (the work
        counted before its check) is dear: at least ``_DEAR_SHARE`` of the first iteration's work,
        or the cheapest so far at least ``_FLOOR_SHARE`` of it (an iteration's own cost, the N × N
        kernel and the solver's set-up, is that share: at J ≤ 10,000 or so, however few features
        it holds, the working set cannot be cheap)."""
        if price is None or self._unit is None:
            return False
        return price >= _DEAR_SHARE * self._unit or min(self._floor, price) >= _FLOOR_SHARE * self._unit

    def _headway(self, found):
        """Count the checks in a row that found no fewer violators (``found``) than the fewest an
        earlier check of this run found (one that finds none makes headway): a working set that
        settles finds fewer as it goes, however its count jumps between checks (Fermat's spiral,
        1.75 turns, seed 1, J = 20,000: at most two such checks in a row); one that hovers over
        hundreds of violators check after check is paying rounds that do not converge.  A method
        that does not count its violators is never handed over this way."""
        if found is None:
            return
        headway = found == 0 or found < self._fewest
        self._fewest, self._stalled = min(self._fewest, found), 0 if headway else self._stalled + 1

    @staticmethod
    def _pays(circled, entered, n_active, n_features):
        """Whether a check shows the working set paying: it grows the working set (not going round)
        that still holds at most ``_CHEAP_SHARE`` of the features.  Grown geometrically (skglm,
        celer), the rounds to its support cost a few rounds of that size, each a small fraction of
        an iteration over all features (docs/logo-scale.md: why checks that go round earn
        nothing)."""
        return bool(entered) and not circled and n_active <= _CHEAP_SHARE * n_features

    def _reenter(self, features, active, record):
        """Make eliminated ``features`` active again (their patience restarts)."""
        if features is None or len(features) == 0:
            return active
        active = active.copy()
        record.n_reentered += int(np.count_nonzero(~active[features]))
        active[features] = True
        self._below[features] = 0
        return active

    def _circling(self, entering):
        """Whether a check goes round: most of the features it brings back (``entering``) an
        earlier check of this run had brought back already (they left again).  A check that brings
        mostly features no check has tried is the working set growing, which J bounds."""
        circling = 2 * np.count_nonzero(self._tried & entering) > np.count_nonzero(entering)
        self._tried |= entering
        return int(circling)
