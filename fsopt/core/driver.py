"""The generic fixed-point and rounding driver.

    iterate ─► statistics(iterate) ─► update(stats) (solves subproblems) ─► new iterate
       ▲                                                                      │
       └──── until ‖new − old‖₂ / ‖new‖₂ < θ or max_iter; eliminate; round ◄──┘

The driver knows no method: a method is an object implementing :class:`FixedPointMethod`.
Everything a method computes reaches its estimator through the driver, with no side channel:
``update`` returns a :class:`Step` (the iterate, and in ``detail`` what its final stage needs),
and ``round(iterate, active, detail)`` — a pure function of the last iterate and the last
step's ``detail`` — returns the method's own result type, which :class:`DriverResult` carries as
``rounding`` (NMMKL: :class:`fsopt.nmmkl.NMMKLResult`; LFS: :class:`fsopt.lfs.LFSResult`).

Every run ends with a named outcome (``DriverResult.outcome``): "converged" (θ_t < θ with the
final check passed and the method's measurement over all features holding), "kkt_failed" (θ_t < θ
but that measurement fails), "cycle(k)" (the solves repeat with period k ≥ 2 to within θ: no fixed
point will be reached this way), "max_iter", or "stopped" (the callback); and with a
:class:`~fsopt.core.fit_certificate.FitCertificate` (``DriverResult.certificate``).  Each iteration records the
fixed-point residual ‖T(x) − x‖ / ‖T(x)‖ of the point it evaluated (T(x): the method's update,
certified solves); an accelerator (:mod:`fsopt.core.acceleration`) may choose the next point.
Elimination is safe when the method supplies ``kkt_violations``: a feature leaves the statistics
only while the method can show the subproblem does not need it, and a run converges only once a
check over all features lets none of the eliminated ones back in.  An iteration whose update sees
only the active features is a *working-set* iteration, not an outer iteration of the method: the
working set runs in rounds, each closed by a check over all features — when it converges, cycles,
stalls, converges slowly, or has run ``round_iter`` iterations — and ``max_iter`` counts outer
iterations (those over all features, and rounds).  A working set that does not settle (its checks
go round) or costs more than its budget (``fast_budget``: the method's counted work, against that
of an iteration over all features) hands over to the plain iteration, which starts from the
fit's own first iteration; so the fast path costs at most a bounded amount more than the plain
iteration.  A run that stops at max_iter says what its last iterations showed and what to try
(:class:`Outcome`).
"""
from __future__ import annotations

import itertools
import time
import warnings
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from .progress import tqdm

from .acceleration import Anderson, make_accelerator
from .exceptions import SolverWarning
from .fit_certificate import FitCertificate, asked_solvers, count_answers, tally_answers

_TINY = 1e-300  # the denominator of the relative change when the iterate is 0
FAST_BUDGET = 4.0  # the working set's work before it hands over, in first iterations' work
_DIAGNOSED = 10  # the last iterations a max_iter outcome is read from
_SLOW = 0.95  # a measured contraction per iteration above this is no linear convergence
_CHEAP_SHARE = 1 / 20  # a working set growing while it holds at most this share of the features pays
_MOST = 2.5  # the allowance grows to at most this many times fast_budget
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
    that counts its work (cumulative, in one unit: LOGO's passes over X, its checks' products and
    its solves, as pass equivalents) keeps it here (None: not counted); the driver records each
    iteration's share (``Iteration.work``) and bounds the working set's by it.

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

    @abstractmethod
    def initial_iterate(self) -> np.ndarray:
        """The starting iterate (LOGO: w⁽⁰⁾; LFS: the N×M relaxed sets)."""

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
            Whatever ``update`` reads (LOGO: the expected margins z̄).
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
        """The point an accelerator proposed, made a valid iterate (LOGO: onto w ≥ 0); identity
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
        """The final stage (NMMKL, LFS: the rounding).  A pure function of its arguments: it must
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


def diagnose(outcome, run, supports, theta) -> Outcome:
    """``outcome`` with what the last iterations of ``run`` (history rows) showed and what to try.

    Over the last ``_DIAGNOSED`` iterations: the contraction q = (θ_last / θ_first)^(1/(k − 1)) of
    the residual; whether θ_t goes up and down (the signs of its steps alternate in most of them: a
    near-cycle); how many features entered or left the support from one solve to the next.  q <
    ``_SLOW``: slow linear convergence, and the iterations q needs to reach θ; else the map does
    not contract here.  Theorem 2 of LOGO: above some σ* the map is a contraction, faster as σ
    grows, so a larger σ, or an accelerated iteration, is what to try."""
    if outcome.startswith("cycle"):
        return Outcome(outcome, "the solves repeat with that period",
                       "try acceleration='averaging' or 'anderson', or a larger sigma")
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
              "try a larger sigma (Theorem 2: above some sigma* the map is a contraction, faster as sigma grows) "
              "or acceleration='anderson' or 'averaging'")
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
    restarted: bool = False  # the working set did not settle: the run starts again without elimination
    resumed: bool = False  # the restarted run stopped at max_iter: the working-set run goes on after this
    repeated: bool = False  # θ_t < θ on the working set but features re-entered: the same point next
    data_passes: float = 0.0  # passes over the data in this iteration (statistics, update, check)
    work: float = 0.0  # the method's work in this iteration (``FixedPointMethod.work``; 1 where not counted)
    reused: bool = False  # the plain run's first iteration: the fit's first, taken again without computing it
    restart_reason: str = ""  # why the working set handed over here: "went round" or "budget"

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


class FixedPointDriver:
    """Alternate statistics and subproblem solves until the iterate stops moving.

    Parameters
    ----------
    theta : float, default=0.01
        Stop when θ_t = ``method.distance(new, old)`` < theta (default distance: the change
        relative to the size of the iterate; Alg. 1 of LOGO).  ``theta=0`` runs exactly
        ``max_iter`` outer iterations; otherwise reaching max_iter raises a
        ``ConvergenceWarning``.
    max_iter : int, default=50
        At most this many outer iterations: iterations whose update solves over all features
        (``method.solves_all``), and working-set rounds (each closed by a check over all
        features, or after ``round_iter`` iterations).
    prune_below : float or None, default=None
        For a 1-D iterate, features whose value stays below this for ``prune_patience``
        consecutive iterations are candidates for elimination (LOGO: 1e-8); ``None`` disables
        it.  Candidates are eliminated (fixed at 0, left out of the statistics); an update may
        bring some back (``Step.reentered``).  Before declaring convergence the driver runs
        ``method.kkt_violations`` over all eliminated features; if any re-enters, it goes on —
        from the same point when θ_t < theta there (``Iteration.repeated``): T(x) is completed
        with the features it lacked rather than left as the working set's.
        Those features stay in the working set until the following check: one that left as
        soon as its weight touched 0 would be found by that check again, at the price of
        another pass over the data.  Keeping a zero-weight feature costs one column per
        iteration, so they are released once that rent has added up to one pass
        (``iterate.size`` columns): never more than twice the cheaper of the two choices (ski
        rental).
    prune_patience : int, default=2
        Iterations below ``prune_below`` before a feature is a candidate.
    callback : callable or None, default=None
        Called as ``callback(iteration: Iteration, iterate)`` after each iteration; returning
        True stops the run.
    progress : bool, default=False
        Show a tqdm bar.
    desc : str, default="fixed point"
        The progress bar's label.
    acceleration : {"averaging", "anderson", "auto"}, accelerator or None, default=None
        None: x ← T(x).  "averaging": x ← ½x + ½T(x).  "anderson": safeguarded type-I
        Anderson, memory 5.  "auto": x ← T(x) until it cycles, stalls (no new smallest θ_t in
        ``stall`` iterations) or converges slowly, then safeguarded Anderson
        (``Iteration.switched`` marks where).  Or an accelerator object
        (:mod:`fsopt.core.acceleration`).  Acceleration starts at the second iteration (the
        first point is only a start); elimination and the stopping rule read T(x), so they do
        not depend on it.
    max_period : int, default=4
        Cycles of period 2..max_period are detected: the last k solves each within θ
        (``method.distance``) of the one k before, while θ_t ≥ θ.  With features eliminated,
        the check over all features runs first (the cycle may be the working set's); if none
        re-enters, the run stops with outcome "cycle(k)" and a ``ConvergenceWarning``.  0
        disables the detection.
    stall : int, default=10
        Iterations without a new smallest θ_t (since the last re-entry, switch or check) after
        which the iteration counts as stalled.
    round_iter : int, default=10
        Working-set iterations after which a check over all features runs anyway.
    slow_window : int, default=5
        Slow linear convergence: θ_t fell by less than ``slow_factor`` over the last
        ``slow_window`` iterations (θ_t/θ_(t−1) near 1; 0 disables).  A cycle, a stall or slow
        convergence first runs the check over all features (the working set may miss a
        feature); if none re-enters, "auto" hands over to safeguarded Anderson.
    slow_factor : float, default=3.0
        The factor of ``slow_window``.
    max_circling_checks : int, default=4
        After this many checks that went round (since the last check that brought nothing
        back), the run starts again from the initial iterate without elimination (the plain
        iteration, whose iterates and outcome the fast path must not change), with ``max_iter``
        outer iterations of its own (``Iteration.restarted`` marks where; the history keeps
        both).  A check goes round when most of the features it brings back an earlier check had
        brought back already, and they left again: the working set does not settle.  A check
        that brings mostly features no check has tried is the working set still growing toward
        its support (J bounds that): it neither counts nor resets the count.  On LOGO's benchmark
        grid the fits whose plain iteration converges go round at most twice in a row; the
        working set that finds its features late at J = 20,000 grows through ten checks and goes
        round three times; on small real samples whose map has several fixed points, the working
        set that ends at another one goes round 1–4 times (``docs/logo-scale.md``).  When the
        restarted run stops at ``max_iter`` (not a cycle: that is the plain iteration's verdict),
        the working-set run goes on from where it stopped, as if it had not restarted
        (``Iteration.resumed`` marks where), counting its outer iterations on from its own, with
        no second restart, and (a method that counts its work) only while the working set has
        allowance left (``fast_budget``).
    fast_budget : float, None or "auto", default="auto"
        The working set's budget, for a method that counts its work (``FixedPointMethod.work``):
        once the working-set run has spent more than this many times the first iteration's work
        (an iteration over all features) after it, without converging, it hands over to the plain
        iteration as after going round (``Iteration.restart_reason`` "budget"); the plain run's
        first iteration is the fit's first, taken again without computing it
        (``FixedPointMethod.replay``, ``Iteration.reused``).  A check that shows the working set
        paying adds a quarter of ``fast_budget`` (``_pays``), up to 2.5 × ``fast_budget`` in all.
        One budget: the plain run has ``max_iter`` outer iterations, and the working set, over its
        runs before and after it (a resumed run stops at max_iter once it has spent its
        allowance), spends at most its allowance, so a fit's work is at most the plain
        iteration's plus 2.5 × ``fast_budget`` first iterations.  None: no budget; "auto": the
        module's ``FAST_BUDGET`` (4: measured on issue 42's families and the spirals,
        docs/logo-scale.md).

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

    def __init__(self, theta=0.01, max_iter=50, prune_below=None, prune_patience=2,
                 callback: Callable | None = None, progress=False, desc="fixed point",
                 acceleration=None, max_period=4, stall=10, round_iter=10, slow_window=5, slow_factor=3.0,
                 max_circling_checks=4, fast_budget="auto"):
        self.theta = theta
        self.max_iter = max_iter
        self.prune_below = prune_below
        self.prune_patience = prune_patience
        self.callback = callback
        self.progress = progress
        self.desc = desc
        self.acceleration = acceleration
        self.max_period = max_period
        self.stall = stall
        self.round_iter = round_iter
        self.slow_window = slow_window
        self.slow_factor = slow_factor
        self.max_circling_checks = max_circling_checks
        self.fast_budget = fast_budget

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
            The last iterate and active features, the history (one ``Iteration`` per outer
            iteration), ``converged``, ``outcome`` ("converged", "cycle(k)", "max_iter" or
            "stopped") and ``rounding``, the method's own result.
        """
        iterate = np.array(method.initial_iterate(), dtype=float)
        active = np.ones(iterate.shape[0] if iterate.ndim == 1 else iterate.shape[-1], dtype=bool)
        history, outcome, cycle, solves, detail = [], "max_iter", (), [], None
        accelerator = _forget(make_accelerator(self.acceleration))
        below = np.zeros(active.shape, dtype=int)  # consecutive iterations under prune_below
        best, t_best, since = np.inf, 0, 0  # smallest θ_t since the last re-entry, when; that re-entry
        kept = np.zeros(active.shape, dtype=bool)  # entered at the last check: kept while ...
        rent = 0  # ... the zero-weight ones cost (columns × iterations) less than one check
        outer, in_round = 0, 0  # outer iterations (the paper's, and rounds); iterations of this round
        first = 1  # the first iteration of this run (a restart begins a run): no accelerator takes it
        eliminating, failed = self.prune_below is not None, 0  # checks since one admitted none that went round
        tried = np.zeros(active.shape, dtype=bool)  # features a check has brought back in this run
        saved = None  # the working-set run a restart set aside, resumed if the plain run fails
        opening, replay, unit = None, None, None  # the first iteration's step (reused by a restart), its work
        spent = 0.0  # the working-set run's work after the first iteration (``_over_budget``) ...
        budget = FAST_BUDGET if self.fast_budget == "auto" else self.fast_budget
        allowance = budget  # ... and what it may spend, in first iterations' work
        supports = []  # the last solves' supports (1-D iterates), for the outcome's diagnosis
        # a run that stops on θ has no known length: count iterations, show θ_t, estimate nothing
        bar = tqdm(total=self.max_iter if self.theta == 0 else None, desc=self.desc,
                   disable=not self.progress, leave=False)
        try:
            for t in itertools.count(1):
                t0, passes, work, evaluated = time.perf_counter(), method.data_passes, method.work, iterate
                working_set = not method.solves_all(active)  # the update sees the active features only
                reused = replay is not None and method.replay(replay)
                if reused:  # the plain run's first iteration is the fit's first: taken again, not computed
                    step, t1 = replay, t0
                else:
                    stats = method.statistics(iterate, active)
                    t1 = time.perf_counter()
                    step = method.update(stats, iterate, active)
                replay, t2 = None, time.perf_counter()
                new, detail = np.array(step.iterate, dtype=float), step.detail
                change = method.distance(new, iterate)
                record = Iteration(t, change, step.objective, int(active.sum()), t1 - t0, t2 - t1,
                                   [] if reused else step.records, residual=change, working_set=working_set,
                                   reused=reused)
                if t == 1 and active.all():  # an iteration over all features from the initial iterate:
                    opening = step  # the plain run's first
                if new.ndim == 1:
                    supports = supports[-(_DIAGNOSED - 1):] + [np.flatnonzero(new)]
                # a cycle on the working set may be one the eliminated features would break
                cycle = () if change < self.theta else self._cycle(
                    method, self._remember(solves, t, new, record))
                best, t_best = (change, t) if change < best else (best, t_best)
                stalled = t - t_best >= self.stall  # no new smallest θ_t in `stall` iterations
                slow = self._slow(history[since:], change)
                trouble = bool(cycle) or stalled or slow
                if working_set:
                    in_round += 1
                if eliminating and new.ndim == 1:
                    active = self._reenter(step.reentered, active, below, record)
                    # an update over all J solved the full problem with them: the map is the same
                    record.n_reentered_in_update = 0 if working_set else record.n_reentered
                    below = np.where(new < self.prune_below, below + 1, 0)
                    rent += int(np.count_nonzero(kept & (new < self.prune_below)))
                    if rent > new.size:  # keeping them has cost a pass over the data: release
                        kept[:] = False
                    leaving = active & ~kept & (below >= self.prune_patience)
                    record.n_dropped = int(leaving.sum())
                    active = active & ~leaving
                    # the check over all features: before converging, and whenever the working
                    # set is in trouble or has spent its round (it may be missing a feature); an
                    # update over all J misses none, so there only before converging
                    if _changed(record) == 0 and (change < self.theta or not active.any() or working_set and (
                            trouble or in_round >= self.round_iter)):
                        back = self._full_check(method, new, active, record)
                        before = active
                        active = self._reenter(back, active, below, record)
                        if back is not None:
                            kept[:], rent = False, 0
                            kept[back] = True
                            entering = active & ~before
                            circled = self._circling(tried, entering) if _changed(record) else 0
                            failed = 0 if not _changed(record) else failed + circled
                            allowance = allowance if budget is None else min(_MOST * budget, allowance + budget / 4 * \
                                self._pays(circled, int(entering.sum()), int(active.sum()), active.size))
                    new[~active] = 0.0
                    record.n_active = int(active.sum())
                if not working_set or record.full_check or in_round >= self.round_iter:
                    outer, in_round = outer + 1, 0  # a working-set round counts as one
                if trouble and self.acceleration == "auto" and accelerator is None:
                    accelerator, cycle, solves = Anderson(), (), []  # Anderson from here on
                    record.switched = True
                record.data_passes = method.data_passes - passes
                record.work = 0.0 if reused else 1.0 if method.work is None else method.work - work
                unit = record.work if t == 1 else unit  # the price of an iteration over all features
                if eliminating and working_set:
                    spent += record.work  # the working set's work, its checks' included
                history.append(record)
                settled = _changed(record) == 0 and (change < self.theta or not active.any())
                reason = "" if not eliminating or saved is not None else "went round" if \
                    failed >= self.max_circling_checks else "budget" if not settled and \
                    self._over_budget(spent, allowance, unit, method) else ""
                restart = bool(reason)  # the working set does not settle, or costs more than it may
                done = not restart and settled
                solves = self._remember(solves, t, new, record)
                cycle = () if done or restart or _changed(record) else cycle
                previous, iterate = iterate, new
                if record.full_check and _changed(record) and change < self.theta and not restart:
                    # T(x) on the working set was within θ of x, but the check found features it
                    # lacks that violate at x: complete T(x) with them (same point, same
                    # statistics) rather than move on
                    iterate, record.repeated = evaluated, True
                if _changed(record) or record.switched or record.full_check:
                    best, t_best, since = np.inf, t, len(history)  # progress is measured anew
                if restart:  # the plain iteration over all features, from the start: the slow path
                    _forget(accelerator)  # as after any re-entry
                    repeat = record.full_check and change < self.theta  # as above, had it not restarted
                    saved = dict(iterate=evaluated if repeat else new, active=active.copy(), below=below.copy(),
                                 kept=kept.copy(), rent=rent, outer=outer, first=first, accelerator=accelerator,
                                 solves=solves, tried=tried.copy())
                    record.restarted, record.restart_reason, eliminating, failed = True, reason, False, 0
                    iterate, active = np.array(method.initial_iterate(), dtype=float), np.ones_like(active)
                    replay = opening  # its first iteration is the fit's first
                    accelerator = _forget(make_accelerator(self.acceleration))  # a user's object: shared
                    best, t_best, since, solves, outer, in_round = np.inf, t, len(history), [], 0, 0
                    first = t + 1
                elif accelerator is not None and _changed(record):
                    _forget(accelerator)  # the problem changed: its memory is of another map
                elif accelerator is not None and t > first and not done and not cycle:
                    iterate = np.array(method.project(accelerator.propose(previous, new)), dtype=float)
                    if iterate.ndim == 1 and working_set:  # the working set's map: the rest stays at 0
                        iterate[~active] = 0.0
                    elif iterate.ndim == 1 and eliminating:  # the full map's point, as without
                        active = self._reenter(np.flatnonzero(~active & (iterate > 0)), active, below, record)
                        record.n_reentered_in_update = record.n_reentered  # elimination: what it weights is back
                        record.n_active = int(active.sum())
                    record.accelerated = True
                bar.update(1)
                bar.set_postfix(change=f"{change:.3g}", active=record.n_active)
                stopped = bool(self.callback(record, new)) if self.callback else False
                if saved is not None and not eliminating and not (done or cycle or stopped) and \
                        outer >= self.max_iter and not self._over_budget(spent, allowance, unit, method):
                    # the plain run spent its budget: back to the working set, with what is left of its own
                    record.resumed, eliminating, in_round = True, True, 0
                    iterate, active, below, kept, rent, outer, first, accelerator, solves, tried = (
                        saved[k] for k in ("iterate", "active", "below", "kept", "rent", "outer", "first",
                                           "accelerator", "solves", "tried"))
                    _forget(accelerator)  # a user's object remembers the plain run
                    best, t_best, since = np.inf, t, len(history)
                    continue
                if done or cycle or stopped or outer >= self.max_iter or \
                        eliminating and saved is not None and self._over_budget(spent, allowance, unit, method):
                    iterate = new  # the last solve's output, whatever the accelerator proposed
                    outcome = "converged" if done else f"cycle({len(cycle)})" if cycle else \
                        "stopped" if stopped else "max_iter"
                    run = history[max((i for i, h in enumerate(history) if h.restarted or h.resumed),
                                      default=-1) + 1:]  # the last run's iterations
                    outcome = diagnose(outcome, run, supports, self.theta)
                    break
        finally:
            bar.close()
        certificate = self._certificate(method, iterate, active, history)
        if outcome == "converged" and not certificate.kkt_holds:
            outcome = Outcome("kkt_failed")
            warnings.warn(f"{self.desc}: the fixed point was reached (theta_t = {history[-1].change:.3g}) but "
                          f"the last subproblem's optimality conditions fail over all features: KKT "
                          f"residual {certificate.kkt_residual:.3g} > {certificate.kkt_bound:.3g}",
                          ConvergenceWarning, stacklevel=3)
        if outcome.startswith("cycle"):
            warnings.warn(f"{self.desc}: stopped at a cycle: {outcome}, the solves of iterations "
                          f"{', '.join(map(str, cycle))} repeat (each within theta = {self.theta:g} of "
                          f"the one {len(cycle)} before; last theta_t = {history[-1].change:.3g}); "
                          f"acceleration='averaging' or 'anderson' may converge", ConvergenceWarning,
                          stacklevel=3)
        elif outcome == "max_iter" and self.theta > 0:
            warnings.warn(f"{self.desc}: max_iter: the fixed point did not converge in "
                          f"max_iter={self.max_iter} outer iterations (last theta_t = "
                          f"{history[-1].change:.3g}, theta = {self.theta:g}); {outcome.seen}; {outcome.advice}",
                          ConvergenceWarning, stacklevel=3)
        self._warn_who_answered(certificate, [r for h in history for r in h.records])
        t0 = time.perf_counter()
        rounding = method.round(iterate, active, detail)
        return DriverResult(iterate, active, history, outcome == "converged", rounding,
                            time.perf_counter() - t0, outcome=outcome, cycle=cycle,
                            certificate=certificate, n_outer=outer, evaluated=evaluated)

    def _over_budget(self, spent, allowance, unit, method):
        """Whether the working-set run has spent more than ``allowance`` iterations over all
        features would (``unit``: the first iteration's work); never for a method that does not
        count its work."""
        return method.work is not None and unit is not None and allowance is not None and \
            spent > allowance * unit

    @staticmethod
    def _pays(circled, entered, n_active, n_features):
        """Whether a check shows the working set paying (it then adds a quarter of ``fast_budget``
        to its allowance, up to ``_MOST`` times it): it grows the working set (not going round)
        that still holds at most ``_CHEAP_SHARE`` of the features.  Grown geometrically (skglm,
        celer), the rounds to its support cost a few rounds of that size, each a small fraction
        of an iteration over all features.  (Checks that admit few but go round, or a working set
        past that share, earn nothing: on issue 42's families such credit only delayed the
        hand-over, docs/logo-scale.md.)"""
        return bool(entered) and not circled and n_active <= _CHEAP_SHARE * n_features

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
            warnings.warn(f"{self.desc}: {others} of {total} subproblem answers are not {named}'s own: "
                          f"{answers.get('polished', 0)} came from the native polish of a rejected answer and "
                          f"{answers.get('fallback', 0)} from a fallback solver ({named}'s first answers: "
                          f"{'; '.join(f'{n} {what}' for what, n in why.most_common())})",
                          SolverWarning, stacklevel=3)

    def _remember(self, solves, t, new, record):
        """The last 2·max_period solves (sparse copies) for the cycle detection; a re-entry
        changes the problem, so what came before it is forgotten."""
        if self.max_period < 2:
            return solves
        solves = [] if _changed(record) else solves[-(2 * self.max_period - 1):]
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

    @staticmethod
    def _reenter(features, active, below, record):
        """Make eliminated ``features`` active again (their patience restarts)."""
        if features is None or len(features) == 0:
            return active
        active = active.copy()
        record.n_reentered += int(np.count_nonzero(~active[features]))
        active[features] = True
        below[features] = 0
        return active

    @staticmethod
    def _circling(tried, entering):
        """Whether a check goes round: most of the features it brings back (``entering``) an
        earlier check of this run had brought back already (they left again).  A check that brings
        mostly features no check has tried is the working set growing, which J bounds.  Marks
        ``entering`` as tried."""
        circling = 2 * np.count_nonzero(tried & entering) > np.count_nonzero(entering)
        tried |= entering
        return int(circling)

    @staticmethod
    def _full_check(method, new, active, record):
        """Before converging: every eliminated feature checked at the final iterate."""
        if active.all():
            return None
        t0 = time.perf_counter()
        back = method.kkt_violations(new, active)
        record.full_check = back is not None
        record.check_time = time.perf_counter() - t0
        return back


def _changed(record):
    """Features brought back after this iteration that change the map: a check's entrants, or the
    working set's (not those an update over all J took in: it solved the full problem)."""
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

