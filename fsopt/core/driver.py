"""The generic fixed-point and rounding driver.

    iterate ─► statistics(iterate) ─► update(stats) (solves subproblems) ─► new iterate
       ▲                                                                      │
       └──── until ‖new − old‖₂ / ‖new‖₂ < θ or max_iter; active set; round ◄┘

The driver knows no method: a method is an object implementing :class:`FixedPointMethod`.
Everything a method computes reaches its estimator through the driver, with no side channel:
``update`` returns a :class:`Step` (the iterate, and in ``detail`` what its final stage needs),
and ``round(iterate, active, detail)`` — a pure function of the last iterate and the last
step's ``detail`` — returns the method's own result type, which :class:`DriverResult` carries as
``rounding``.

Every run ends with a named outcome (``DriverResult.outcome``): "converged" (θ_t < θ with the
final check passed and the method's measurement over all features holding), "kkt_failed" (θ_t < θ
but that measurement fails), "cycle(k)" (the solves repeat with period k ≥ 2 to within θ: no fixed
point will be reached this way), "max_iter", or "stopped" (the callback); and with a
:class:`~fsopt.core.fit_certificate.FitCertificate` (``DriverResult.certificate``).  Each iteration
records the fixed-point residual ‖T(x) − x‖ / ‖T(x)‖ of the point it evaluated (T(x): the method's
update, certified solves); an accelerator (:mod:`fsopt.core.acceleration`) may choose the next
point.  Which features the statistics see is the method's own policy
(:class:`ActiveSetPolicy`: by default all of them): it may hold features out, bring them back,
decide which iterations count toward ``max_iter``, and restart the run as the plain iteration over
all features (whose first iteration, the fit's first, is taken again without computing it).  The
driver's state is one dataclass.  A run that stops at max_iter says what its last iterations
showed and what to try (:class:`Outcome`).
"""
from __future__ import annotations

import itertools
import time
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, NamedTuple, TypeVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from .progress import Progress

from .acceleration import Anderson, make_accelerator
from .exceptions import SolverWarning, warn
from .fit_certificate import FitCertificate, asked_solvers, count_answers, tally_answers

_TINY = 1e-300  # the denominator of the relative change when the iterate is 0
_DIAGNOSED = 10  # the last iterations a max_iter outcome is read from
_SLOW = 0.95  # a measured contraction per iteration above this is no linear convergence
R = TypeVar("R")  # a method's result type (what its ``round`` returns)


@dataclass
class Step:
    """What one ``update`` returns.

    Parameters
    ----------
    iterate : ndarray
        The new full-size iterate.
    records : list of SolveRecord
        The solve records of the update.
    objective : float or None, default=None
        An objective value at the new iterate, shown in the history.
    reentered : ndarray of int or None, default=None
        The eliminated features the update found it needs and brought back.
    detail : object, default=None
        Whatever else the update computed that the method's final stage reads (typed by the
        method; the driver passes the last step's ``detail`` to ``round``).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import Step
    >>> Step(np.array([0.5, 0.0]), objective=1.25).reentered is None
    True
    """

    iterate: np.ndarray
    records: list = field(default_factory=list)
    objective: float | None = None
    reentered: np.ndarray | None = None
    detail: Any = None


class FixedPointMethod(ABC, Generic[R]):
    """The pieces a method supplies to :class:`FixedPointDriver`; ``R`` is its result type.

    ``initial_iterate``, ``statistics`` and ``update`` are required; ``distance``,
    ``kkt_violations``, ``project``, ``replay`` and ``round`` have defaults.  ``data_passes``: a
    method that counts its passes over the data (columns read / all columns, cumulative) keeps them
    here; the driver records each iteration's share (``Iteration.data_passes``).  ``work``: a method
    that counts its work (cumulative, in one unit: e.g. passes over the data, checks' products and
    its solves, as pass equivalents) keeps it here (None: not counted); the driver records each
    iteration's share (``Iteration.work``).  ``remedy``: what the outcome of a run that did not
    converge advises besides acceleration (:func:`diagnose`).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import FixedPointDriver, FixedPointMethod, Step
    >>> class Sqrt2(FixedPointMethod):          # Newton's iteration for x**2 = 2
    ...     def initial_iterate(self):
    ...         return np.array([1.0])
    ...     def statistics(self, iterate, active):
    ...         return iterate ** 2 - 2.0
    ...     def update(self, stats, iterate, active):
    ...         return Step(iterate - stats / (2 * iterate))
    >>> round(float(FixedPointDriver(theta=1e-12).run(Sqrt2()).iterate[0]), 10)
    1.4142135624
    """

    data_passes: float = 0.0
    work: float | None = None
    remedy: str = ""  # what to try, besides acceleration, when the map does not contract

    @abstractmethod
    def initial_iterate(self) -> np.ndarray:
        """The starting iterate."""

    @abstractmethod
    def statistics(self, iterate: np.ndarray, active: np.ndarray) -> Any:
        """Local statistics at ``iterate`` over the active features (NumPy).

        Parameters
        ----------
        iterate : ndarray
            The current iterate.
        active : ndarray of bool
            The features not eliminated.

        Returns
        -------
        stats : object
            Whatever ``update`` reads.
        """

    @abstractmethod
    def update(self, stats: Any, iterate: np.ndarray, active: np.ndarray) -> Step:
        """Solve the subproblem(s) for ``stats``.

        Parameters
        ----------
        stats : object
            What ``statistics`` returned.
        iterate : ndarray
            The current iterate.
        active : ndarray of bool
            The features not eliminated.

        Returns
        -------
        step : Step
            The new full-size iterate and the solve records.
        """

    def distance(self, new: np.ndarray, old: np.ndarray) -> float:
        """θ_t, the change between two iterates (default relative: ‖new − old‖₂ / max(‖new‖₂, tiny),
        so the stopping rule does not depend on the scale of the iterate).

        Parameters
        ----------
        new : ndarray
            The iterate just computed.
        old : ndarray
            The iterate before it.

        Returns
        -------
        theta : float
        """
        return float(np.linalg.norm(new - old) / max(float(np.linalg.norm(new)), _TINY))

    def kkt_violations(self, iterate: np.ndarray, active: np.ndarray) -> np.ndarray | None:
        """The check over all features before the run is declared converged.

        Parameters
        ----------
        iterate : ndarray
            The converged iterate of the working set.
        active : ndarray of bool
            The features not eliminated.

        Returns
        -------
        violations : ndarray of int or None
            The inactive features whose optimality conditions fail at ``iterate``, which
            re-enter; ``None`` when the method cannot check (elimination is then final).
        """
        return None

    def solves_all(self, active: np.ndarray) -> bool:
        """Whether ``update`` solves the subproblem over every feature given ``active`` (default:
        when none is eliminated); an update that does not is a working-set iteration.

        Parameters
        ----------
        active : ndarray of bool
            The features not eliminated.

        Returns
        -------
        bool
        """
        return bool(active.all())

    def certificate(self, iterate: np.ndarray, active: np.ndarray) -> dict | None:
        """The last subproblem's optimality over all features at the statistics it was solved at.

        Parameters
        ----------
        iterate : ndarray
            The last iterate.
        active : ndarray of bool
            The features not eliminated.

        Returns
        -------
        certificate : dict or None
            ``{"kkt_residual", "kkt_bound", "n_features"}`` (measured from the subproblem's
            declared parts), or None when the method measures none (the fit then claims only
            θ_t < θ).
        """
        return None

    def replay(self, step: Step) -> bool:
        """Take ``step`` (the fit's first ``update``, over all features from the initial iterate) as
        this iteration's, without computing it again: restore whatever state the method keeps of
        its last update (the certificate reads it).  Return False (the default) when it cannot;
        the driver then computes the iteration.

        Parameters
        ----------
        step : Step
            What ``update`` returned at the first iteration.

        Returns
        -------
        bool
        """
        return False

    def project(self, iterate: np.ndarray) -> np.ndarray:
        """The point an accelerator proposed, made a valid iterate (e.g. onto w ≥ 0); identity
        by default.

        Parameters
        ----------
        iterate : ndarray
            The accelerator's proposal.

        Returns
        -------
        iterate : ndarray
        """
        return iterate

    def round(self, iterate: np.ndarray, active: np.ndarray, detail: Any) -> R | None:
        """The final stage (e.g. a rounding).  A pure function of its arguments: it must
        not change them or the method, so calling it twice gives the same result.

        Parameters
        ----------
        iterate : ndarray
            The last iterate.
        active : ndarray of bool
            The features not eliminated.
        detail : object
            The last step's ``Step.detail``.

        Returns
        -------
        result : R or None
            The method's result, carried as ``DriverResult.rounding`` (``None`` for methods
            without one).
        """
        return None


class Outcome(str):
    """How a run ended, a string ("converged", "kkt_failed", "cycle(k)", "max_iter", "stopped") that
    also says, where it did not converge, what its last iterations showed (``seen``; ``rate``: the
    measured contraction of θ_t per iteration) and what to try (``advice``)."""

    def __new__(cls, name, seen="", advice="", rate=None):
        outcome = super().__new__(cls, name)
        outcome.seen, outcome.advice, outcome.rate = seen, advice, rate
        return outcome

    def __reduce__(self):
        return Outcome, (str(self), self.seen, self.advice, self.rate)

    def describe(self) -> str:
        """One line: the outcome, what was seen, what to try."""
        return "; ".join(part for part in (str(self), self.seen, self.advice) if part)


def diagnose(outcome, run, supports, theta, remedy="") -> Outcome:
    """``outcome`` with what the last iterations of ``run`` (history rows) showed and what to try.

    Over the last ``_DIAGNOSED`` iterations: the contraction q = (θ_last / θ_first)^(1/(k − 1)) of
    the residual; whether θ_t goes up and down (the signs of its steps alternate in most of them: a
    near-cycle); how many features entered or left the support from one solve to the next.  q <
    ``_SLOW``: slow linear convergence, and the iterations q needs to reach θ; else the map does
    not contract here, and an accelerated iteration, or the method's ``remedy``
    (``FixedPointMethod.remedy``), is what to try."""
    remedy = f" or {remedy}" if remedy else ""
    if outcome.startswith("cycle"):
        return Outcome(outcome, "the solves repeat with that period",
                       f"try acceleration='averaging' or 'anderson'{remedy}")
    if outcome != "max_iter" or len(run) < 3:
        return Outcome(outcome)
    residuals = np.array([h.change for h in run[-_DIAGNOSED:]])
    k = residuals.size
    q = float((residuals[-1] / max(residuals[0], _TINY)) ** (1.0 / (k - 1)))
    steps = np.sign(np.diff(residuals))
    oscillating = k >= 4 and np.count_nonzero(steps[1:] * steps[:-1] < 0) >= 0.6 * (k - 2)
    churn = [np.setxor1d(a, b).size for a, b in zip(supports[:-1], supports[1:])]
    seen = []
    if q < _SLOW and not oscillating:
        more = int(np.ceil(np.log(theta / residuals[-1]) / np.log(q))) if theta > 0 else 0
        seen.append(f"slow linear convergence: theta_t shrinks by a factor {q:.3g} per iteration over the last "
                    f"{k} (the measured contraction of the map), about {more} more iterations to reach theta")
    else:
        seen.append(f"no linear convergence: the measured contraction of theta_t over the last {k} iterations "
                    f"is {q:.3g} per iteration")
        if oscillating:
            seen.append("theta_t goes up and down (a near-cycle)")
    if churn and np.median(churn) > 0:
        seen.append(f"the support oscillates: {int(np.median(churn))} features enter or leave per iteration "
                    f"(median over the last {len(churn)})")
    advice = ("try a larger max_iter or acceleration='anderson'" if q < _SLOW and not oscillating else
              f"try acceleration='anderson' or 'averaging'{remedy}")
    return Outcome(outcome, "; ".join(seen), advice, q)


@dataclass
class Iteration:
    """One row of the driver's history."""

    iteration: int
    change: float
    objective: float | None
    n_active: int
    statistics_time: float
    update_time: float
    records: list = field(repr=False, default_factory=list)
    n_dropped: int = 0  # features eliminated after this iteration
    n_reentered: int = 0  # eliminated features brought back (a failed KKT check) after it
    n_reentered_in_update: int = 0  # of those, brought back inside an update over all J (same map)
    full_check: bool = False  # the check over all features ran after this iteration ...
    check_time: float = 0.0  # ... taking this long
    residual: float = float("nan")  # ‖T(x) − x‖ / ‖T(x)‖ at the evaluated x (= change)
    accelerated: bool = False  # the next point is the accelerator's, not T(x)
    switched: bool = False  # acceleration="auto": a cycle, stall or slow progress here, Anderson from now on
    working_set: bool = False  # the update solved over the active features only (not an outer iteration)
    restarted: bool = False  # the policy's verdict: the plain iteration starts again from the initial iterate
    repeated: bool = False  # θ_t < θ on the working set but features re-entered: the same point next
    data_passes: float = 0.0  # passes over the data in this iteration (statistics, update, check)
    work: float = 0.0  # the method's work in this iteration (``FixedPointMethod.work``; 1 where not counted)
    reused: bool = False  # the plain run's first iteration: the fit's first, taken again without computing it
    restart_reason: str = ""  # why the active-set policy restarted the run here (``ActiveSetPolicy.verdict``)

    @property
    def compile_time(self) -> float:
        return sum(r.compile_time for r in self.records)

    @property
    def solve_time(self) -> float:
        return sum(r.solve_time for r in self.records)


@dataclass
class DriverResult(Generic[R]):
    """What :meth:`FixedPointDriver.run` returns: the last iterate and active features, the
    history, whether the fixed point was reached, and ``rounding``: the method's own result
    (``FixedPointMethod.round``), with the time it took."""

    iterate: np.ndarray
    active: np.ndarray
    history: list
    converged: bool
    rounding: R | None = None
    rounding_time: float = 0.0
    outcome: str = "max_iter"  # "converged", "kkt_failed", "cycle(k)", "max_iter" or "stopped" (an Outcome)
    cycle: tuple = ()  # for "cycle(k)": the iterations of the repeated period
    certificate: FitCertificate | None = None
    n_outer: int = 0  # outer iterations: those over all features, and working-set rounds (of the last run)
    evaluated: np.ndarray | None = None  # the point x of the last iteration: iterate = T(x)

    @property
    def n_iter(self) -> int:
        return len(self.history)


class ActiveSetPolicy:
    """Which features the statistics see, and when a run starts again: the protocol through which a
    method's own policy steers the driver.  This
    default keeps every feature active and never restarts.

    The driver calls, in each iteration: ``observe`` after the update (the active features from
    now on; it may zero ``new`` outside them and record its changes in ``record``:
    ``n_reentered``, ``n_dropped``, ``full_check``), ``closes_outer`` (whether the iteration counts
    toward ``max_iter``), ``verdict`` (a reason to restart as the plain iteration, or ""),
    and ``admit`` for an accelerator's proposal.
    """

    def start(self, method, n_features: int, theta: float) -> np.ndarray:
        """A new run of ``method`` over ``n_features`` (stopping rule ``theta``): the active mask."""
        return np.ones(n_features, dtype=bool)

    def observe(self, new, active, step, record, *, change, trouble, working_set) -> np.ndarray:
        """The active features after the update that returned ``step`` (``new``: its iterate,
        which the policy may change in place); ``trouble``: a cycle, stall or slow progress."""
        return active

    def closes_outer(self, record, working_set) -> bool:
        """Whether the iteration of ``record`` counts as an outer iteration."""
        return True

    def verdict(self, record, settled) -> str:
        """Why the run restarts as the plain iteration after ``record`` ("": it does not)."""
        return ""

    def restart(self) -> None:
        """The run restarts as the plain iteration, every feature active."""

    def admit(self, proposal, active, record, working_set) -> np.ndarray:
        """The active features for an accelerator's ``proposal`` (which may be changed in place)."""
        return active



@dataclass
class _Loop:
    """The state of the loop; a restart starts it again from the initial iterate."""

    iterate: np.ndarray
    active: np.ndarray
    accelerator: Any
    history: list = field(default_factory=list)
    solves: list = field(default_factory=list)  # the last solves, for the cycle detection
    supports: list = field(default_factory=list)  # the last solves' supports, for the diagnosis
    cycle: tuple = ()
    detail: Any = None
    evaluated: np.ndarray | None = None  # the point x of the last iteration
    best: float = np.inf  # smallest θ_t since the last re-entry, switch or check ...
    t_best: int = 0  # ... when ...
    since: int = 0  # ... and from which row of the history progress is measured
    outer: int = 0  # outer iterations of this run
    first: int = 1  # the first iteration of this run: no accelerator takes it
    opening: Step | None = None  # the fit's first step, over all features (a restart reuses it)
    replay: Step | None = None  # the step the next iteration takes again without computing it
    outcome: str = "max_iter"

    def measure_anew(self, t):
        """Progress is measured from iteration ``t`` on (a re-entry, a switch, a check, a restart)."""
        self.best, self.t_best, self.since = np.inf, t, len(self.history)


class _Evaluation(NamedTuple):
    """One evaluation of the map: iteration ``t``, its history row, the method's step, T(x),
    whether the iteration is in trouble (a cycle, a stall, slow progress), and the method's
    counters of passes and work before it."""

    t: int
    record: Iteration
    step: Step
    new: np.ndarray
    trouble: bool
    passes: float
    work: float | None


class FixedPointDriver:
    """Alternate statistics and subproblem solves until the iterate stops moving.

    Parameters
    ----------
    theta : float, default=0.01
        Stop when θ_t = ``method.distance(new, old)`` < theta (default distance: the change
        relative to the size of the iterate).  ``theta=0`` runs exactly
        ``max_iter`` outer iterations; otherwise reaching max_iter raises a
        ``ConvergenceWarning``.
    max_iter : int, default=50
        At most this many outer iterations (``ActiveSetPolicy.closes_outer``: by default every
        iteration).
    active_set : ActiveSetPolicy or None, default=None
        Which features the statistics see and when the run restarts as the plain iteration (the
        method's own policy; None: every feature, never).  A restart starts from the initial
        iterate with every feature active, its first iteration the fit's first, taken again
        without computing it (``FixedPointMethod.replay``, ``Iteration.reused``), with
        ``max_iter`` outer iterations of its own (``Iteration.restarted``).  The run converges only with no feature brought back at its
        last iteration; one whose check brought features back at a point within θ evaluates
        that point again (``Iteration.repeated``).
    callback : callable or None, default=None
        Called as ``callback(iteration: Iteration, iterate)`` after each iteration; returning
        True stops the run.
    progress : bool, default=False
        Show progress: tqdm's bar on a terminal, a line every few seconds in a log.
    desc : str, default="fixed point"
        The progress bar's label.
    acceleration : {"averaging", "anderson", "auto"}, accelerator or None, default=None
        None: x ← T(x).  "averaging": x ← ½x + ½T(x).  "anderson": safeguarded type-I
        Anderson, memory 5.  "auto": x ← T(x) until it cycles, stalls (no new smallest θ_t in
        ``stall`` iterations) or converges slowly, then safeguarded Anderson
        (``Iteration.switched`` marks where).  Or an accelerator object
        (:mod:`fsopt.core.acceleration`).  Acceleration starts at the second iteration (the
        first point is only a start); the active set and the stopping rule read T(x), so they
        do not depend on it.
    max_period : int, default=4
        Cycles of period 2..max_period are detected: the last k solves each within θ
        (``method.distance``) of the one k before, while θ_t ≥ θ.  The policy sees the cycle
        first (it may be the working set's and a check may break it); if no feature comes back,
        the run stops with outcome "cycle(k)" and a ``ConvergenceWarning``.  0 disables it.
    stall : int, default=10
        Iterations without a new smallest θ_t (since the last re-entry, switch or check) after
        which the iteration counts as stalled.
    slow_window : int, default=5
        Slow linear convergence: θ_t fell by less than ``slow_factor`` over the last
        ``slow_window`` iterations (θ_t/θ_(t−1) near 1; 0 disables).  A cycle, a stall or slow
        convergence is the policy's ``trouble``; "auto" then hands over to safeguarded Anderson.
    slow_factor : float, default=3.0
        The factor of ``slow_window``.

    Examples
    --------
    A method whose update halves the distance to 1 (a contraction) converges to the fixed point:

    >>> import numpy as np
    >>> from fsopt import FixedPointDriver, FixedPointMethod, Step
    >>> class Halfway(FixedPointMethod):
    ...     def initial_iterate(self):
    ...         return np.zeros(3)
    ...     def statistics(self, iterate, active):
    ...         return 1.0 - iterate
    ...     def update(self, stats, iterate, active):
    ...         return Step(iterate + stats / 2)
    >>> result = FixedPointDriver(theta=1e-6, max_iter=100).run(Halfway())
    >>> result.converged, np.allclose(result.iterate, 1.0, atol=1e-5)
    (True, True)
    """

    def __init__(self, theta=0.01, max_iter=50, active_set: ActiveSetPolicy | None = None,
                 callback: Callable | None = None, progress=False, desc="fixed point",
                 acceleration=None, max_period=4, stall=10, slow_window=5, slow_factor=3.0):
        self.theta = theta
        self.max_iter = max_iter
        self.active_set = active_set
        self.callback = callback
        self.progress = progress
        self.desc = desc
        self.acceleration = acceleration
        self.max_period = max_period
        self.stall = stall
        self.slow_window = slow_window
        self.slow_factor = slow_factor

    def run(self, method: FixedPointMethod[R]) -> DriverResult[R]:
        """Iterate ``method`` from its initial iterate until θ_t < theta, a cycle, ``max_iter``
        or the callback stops it.

        Parameters
        ----------
        method : FixedPointMethod
            The statistics, update and final stage of the method.

        Returns
        -------
        result : DriverResult
            The last iterate and active features, the history (one ``Iteration`` per
            iteration), ``converged``, ``outcome`` ("converged", "kkt_failed", "cycle(k)",
            "max_iter" or "stopped") and ``rounding``, the method's own result.
        """
        policy = self.active_set if self.active_set is not None else ActiveSetPolicy()
        iterate = np.array(method.initial_iterate(), dtype=float)
        n_features = iterate.shape[0] if iterate.ndim == 1 else iterate.shape[-1]
        loop = _Loop(iterate, policy.start(method, n_features, self.theta),
                     _forget(make_accelerator(self.acceleration)))
        # a run that stops on θ has no known length: count iterations, show θ_t, estimate nothing
        bar = Progress(self.max_iter if self.theta == 0 else None, self.desc, unit="iterations",
                       enabled=self.progress, brief=True)
        try:
            for t in itertools.count(1):
                evaluation = self._evaluate(method, loop, t)
                if self._advance(method, policy, loop, evaluation, bar):
                    break
        finally:
            bar.close()
        return self._finish(method, loop)

    def _evaluate(self, method, loop, t):
        """One evaluation of the map at ``loop.iterate`` (or the replayed first step): its
        :class:`_Evaluation`."""
        t0, passes, work = time.perf_counter(), method.data_passes, method.work
        loop.evaluated, active = loop.iterate, loop.active
        working_set = not method.solves_all(active)  # the update sees the active features only
        reused = loop.replay is not None and method.replay(loop.replay)
        if reused:  # the restarted run's first iteration is the fit's first: taken again, not computed
            step, t1 = loop.replay, t0
        else:
            stats = method.statistics(loop.iterate, active)
            t1 = time.perf_counter()
            step = method.update(stats, loop.iterate, active)
        loop.replay, t2 = None, time.perf_counter()
        new, loop.detail = np.array(step.iterate, dtype=float), step.detail
        change = method.distance(new, loop.iterate)
        record = Iteration(t, change, step.objective, int(active.sum()), t1 - t0, t2 - t1,
                           [] if reused else step.records, residual=change, working_set=working_set,
                           reused=reused)
        if t == 1 and active.all():  # an iteration over all features from the initial iterate:
            loop.opening = step  # the restarted run's first
        if new.ndim == 1:
            loop.supports = loop.supports[-(_DIAGNOSED - 1):] + [np.flatnonzero(new)]
        # a cycle on the working set may be one the features held out would break
        loop.cycle = () if change < self.theta else self._cycle(
            method, self._remember(loop.solves, t, new, record))
        loop.best, loop.t_best = (change, t) if change < loop.best else (loop.best, loop.t_best)
        stalled = t - loop.t_best >= self.stall  # no new smallest θ_t in `stall` iterations
        slow = self._slow(loop.history[loop.since:], change)
        return _Evaluation(t, record, step, new, bool(loop.cycle) or stalled or slow, passes, work)

    def _advance(self, method, policy, loop, evaluation, bar):
        """Everything after the evaluation: the policy's active set, the counts, the stopping
        rule, a restart or the accelerator's next point; True when the run stops."""
        t, record, new = evaluation.t, evaluation.record, evaluation.new
        working_set, change = record.working_set, record.change
        loop.active = policy.observe(new, loop.active, evaluation.step, record, change=change,
                                     trouble=evaluation.trouble, working_set=working_set)
        loop.outer += policy.closes_outer(record, working_set)
        if evaluation.trouble and self.acceleration == "auto" and loop.accelerator is None:
            loop.accelerator, loop.cycle, loop.solves = Anderson(), (), []  # Anderson from here on
            record.switched = True
        record.data_passes = method.data_passes - evaluation.passes
        record.work = 0.0 if record.reused else 1.0 if method.work is None else method.work - evaluation.work
        loop.history.append(record)
        settled = reentries(record) == 0 and (change < self.theta or not loop.active.any())
        reason = policy.verdict(record, settled)  # the working set does not settle, or costs too much
        done = not reason and settled
        loop.solves = self._remember(loop.solves, t, new, record)
        loop.cycle = () if done or reason or reentries(record) else loop.cycle
        previous, loop.iterate = loop.iterate, new
        if record.full_check and reentries(record) and change < self.theta and not reason:
            # T(x) on the working set was within θ of x, but the check found features it lacks
            # that violate at x: complete T(x) with them (same point, same statistics)
            loop.iterate, record.repeated = loop.evaluated, True
        if reentries(record) or record.switched or record.full_check:
            loop.measure_anew(t)
        if reason:
            self._restart(method, policy, loop, t, record, reason)
        else:
            self._accelerate(method, policy, loop, t, record, previous, new, done)
        bar.set_postfix(change=f"{change:.3g}", active=record.n_active)
        bar.update(1)
        stopped = bool(self.callback(record, new)) if self.callback else False
        if done or loop.cycle or stopped or loop.outer >= self.max_iter:
            loop.iterate = new  # the last solve's output, whatever the accelerator proposed
            outcome = "converged" if done else f"cycle({len(loop.cycle)})" if loop.cycle else \
                "stopped" if stopped else "max_iter"
            run = loop.history[max((i for i, h in enumerate(loop.history) if h.restarted),
                                   default=-1) + 1:]  # the last run's iterations
            loop.outcome = diagnose(outcome, run, loop.supports, self.theta, method.remedy)
            return True
        return False

    def _restart(self, method, policy, loop, t, record, reason):
        """The plain iteration over all features, from the start."""
        record.restarted, record.restart_reason = True, reason
        policy.restart()
        loop.iterate = np.array(method.initial_iterate(), dtype=float)
        loop.active = np.ones_like(loop.active)
        loop.replay = loop.opening  # its first iteration is the fit's first
        loop.accelerator = _forget(make_accelerator(self.acceleration))  # a user's object: shared
        loop.measure_anew(t)
        loop.solves, loop.outer, loop.first = [], 0, t + 1

    def _accelerate(self, method, policy, loop, t, record, previous, new, done):
        """The accelerator's next point (its memory cleared where the map changed)."""
        if loop.accelerator is None:
            return
        if reentries(record):
            _forget(loop.accelerator)  # the problem changed: its memory is of another map
        elif t > loop.first and not done and not loop.cycle:
            loop.iterate = np.array(method.project(loop.accelerator.propose(previous, new)), dtype=float)
            loop.active = policy.admit(loop.iterate, loop.active, record, record.working_set)
            record.accelerated = True

    def _finish(self, method, loop):
        """The certificate, the warnings of a run that did not converge, the method's rounding."""
        history, outcome = loop.history, loop.outcome
        certificate = self._certificate(method, loop.iterate, loop.active, history)
        if outcome == "converged" and not certificate.kkt_holds:
            outcome = Outcome("kkt_failed")
            warn(f"{self.desc}: the fixed point was reached (theta_t = {history[-1].change:.3g}) but "
                 f"the last subproblem's optimality conditions fail over all features: KKT "
                 f"residual {certificate.kkt_residual:.3g} > {certificate.kkt_bound:.3g}",
                 ConvergenceWarning)
        if outcome.startswith("cycle"):
            warn(f"{self.desc}: stopped at a cycle: {outcome}, the solves of iterations "
                 f"{', '.join(map(str, loop.cycle))} repeat (each within theta = {self.theta:g} of "
                 f"the one {len(loop.cycle)} before; last theta_t = {history[-1].change:.3g}); "
                 f"acceleration='averaging' or 'anderson' may converge", ConvergenceWarning)
        elif outcome == "max_iter" and self.theta > 0:
            warn(f"{self.desc}: max_iter: the fixed point did not converge in "
                 f"max_iter={self.max_iter} outer iterations (last theta_t = "
                 f"{history[-1].change:.3g}, theta = {self.theta:g}); {outcome.seen}; {outcome.advice}",
                 ConvergenceWarning)
        self._warn_who_answered(certificate, [r for h in history for r in h.records])
        t0 = time.perf_counter()
        rounding = method.round(loop.iterate, loop.active, loop.detail)
        return DriverResult(loop.iterate, loop.active, history, outcome == "converged", rounding,
                            time.perf_counter() - t0, outcome=outcome, cycle=loop.cycle,
                            certificate=certificate, n_outer=loop.outer, evaluated=loop.evaluated)

    def _slow(self, history, change):
        """Slow linear convergence: over the last ``slow_window`` iterations (since the last
        re-entry or switch) θ_t fell by less than a factor ``slow_factor``."""
        k = self.slow_window
        if not k or len(history) < k:
            return False
        return bool(change * self.slow_factor > history[-k].change)

    def _certificate(self, method, iterate, active, history):
        """The fit's :class:`FitCertificate`: θ_t of the last iteration, the method's measurement
        over all features at the last solve, and who answered each solve."""
        records = [r for h in history for r in h.records]
        measured = method.certificate(iterate, active) or {}
        return FitCertificate(history[-1].change, self.theta, answers=count_answers(records),
                              solvers=asked_solvers(records), tally=tally_answers(records), **measured)

    def _warn_who_answered(self, certificate, records):
        """A fit whose answers came mostly from the polish or a fallback says so, naming the solver
        and what its own first answers were (a claim the certificate rejected, a failure)."""
        answers, total = certificate.answers, sum(certificate.answers.values())
        others = answers.get("polished", 0) + answers.get("fallback", 0)
        if total and 2 * others > total:
            named = certificate.solvers[0] if certificate.solvers else "the solver"
            why = Counter(_first_answer(r) for r in records if r.attempts)
            warn(f"{self.desc}: {others} of {total} subproblem answers are not {named}'s own: "
                 f"{answers.get('polished', 0)} came from the native polish of a rejected answer and "
                 f"{answers.get('fallback', 0)} from a fallback solver ({named}'s first answers: "
                 f"{'; '.join(f'{n} {what}' for what, n in why.most_common())})",
                 SolverWarning)

    def _remember(self, solves, t, new, record):
        """The last 2·max_period solves (sparse copies) for the cycle detection; a re-entry
        changes the problem, so what came before it is forgotten."""
        if self.max_period < 2:
            return solves
        solves = [] if reentries(record) else solves[-(2 * self.max_period - 1):]
        nz = np.flatnonzero(new) if new.ndim == 1 else None
        return solves + [(t, new.shape, nz, new[nz] if nz is not None else new.copy(), record.change)]

    def _cycle(self, method, solves):
        """The iterations of the shortest period k ≥ 2 whose last k solves each repeat the one k
        before to within θ while θ_t does not shrink (summed over the period, by less than 10%:
        an oscillation that converges is no cycle), or () (period 1 is convergence)."""
        def dense(entry):
            _, shape, nz, values, _ = entry
            if nz is None:
                return values
            out = np.zeros(shape)
            out[nz] = values
            return out

        for k in range(2, self.max_period + 1):
            if len(solves) < 2 * k:
                break
            last, before = solves[-k:], solves[-2 * k:-k]
            if sum(e[4] for e in last) < 0.9 * sum(e[4] for e in before):
                continue
            if all(method.distance(dense(solves[-i]), dense(solves[-i - k])) < self.theta
                   for i in range(1, k + 1)):
                return tuple(entry[0] for entry in solves[-k:])
        return ()


def reentries(record):
    """Features brought back after this iteration that change the map: a check's entrants, or the
    working set's (not those an update over all features took in: it solved the full problem)."""
    return record.n_reentered - record.n_reentered_in_update


def _forget(accelerator):
    """Clear an accelerator's memory (one without ``reset`` remembers nothing); returns it."""
    if accelerator is not None and hasattr(accelerator, "reset"):
        accelerator.reset()
    return accelerator


def _first_answer(record) -> str:
    """What the first solver asked for ``record``'s solve did: failed, or a rejected claim."""
    first = record.attempts[0]
    if first.backend_failed:
        return f"failed ({first.status})"
    if first.status == "rejected_certificate":
        return f"said '{first.solver_status}' where the NumPy certificate did not hold"
    return f"ended with status '{first.status}'"

