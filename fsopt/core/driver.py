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
Elimination is safe when the method supplies ``kkt_violations``: a feature leaves the statistics
only while the method can show the subproblem does not need it, and a run converges only once a
check over all features lets none of the eliminated ones back in.
"""
from __future__ import annotations

import time
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from tqdm.auto import tqdm

_TINY = 1e-300  # the denominator of the relative change when the iterate is 0
R = TypeVar("R")  # a method's result type (what its ``round`` returns)


@dataclass
class Step:
    """What one ``update`` returns: the new iterate, its solve records, an objective value, the
    eliminated features the update found it needs and brought back (indices), and ``detail``:
    whatever else the update computed that the method's final stage reads (typed by the method;
    the driver passes the last step's ``detail`` to ``round``)."""

    iterate: np.ndarray
    records: list = field(default_factory=list)
    objective: float | None = None
    reentered: np.ndarray | None = None
    detail: Any = None


class FixedPointMethod(ABC, Generic[R]):
    """The pieces a method supplies to :class:`FixedPointDriver`; ``R`` is its result type."""

    @abstractmethod
    def initial_iterate(self) -> np.ndarray:
        """The starting iterate (LOGO: w⁽⁰⁾; LFS: the N×M relaxed sets)."""

    @abstractmethod
    def statistics(self, iterate: np.ndarray, active: np.ndarray) -> Any:
        """Local statistics at ``iterate`` over the active features (NumPy)."""

    @abstractmethod
    def update(self, stats: Any, iterate: np.ndarray, active: np.ndarray) -> Step:
        """Solve the subproblem(s) for ``stats``; return the new full-size iterate."""

    def distance(self, new: np.ndarray, old: np.ndarray) -> float:
        """θ_t, the change between two iterates (default relative: ‖new − old‖₂ / max(‖new‖₂, tiny),
        so the stopping rule does not depend on the scale of the iterate)."""
        return float(np.linalg.norm(new - old) / max(float(np.linalg.norm(new)), _TINY))

    def kkt_violations(self, iterate: np.ndarray, active: np.ndarray) -> np.ndarray | None:
        """The check over all features before the run is declared converged: the inactive features
        whose optimality conditions fail at ``iterate`` (indices), which re-enter; ``None`` when
        the method cannot check (elimination is then final)."""
        return None

    def round(self, iterate: np.ndarray, active: np.ndarray, detail: Any) -> R | None:
        """The final stage (NMMKL, LFS: the rounding), from the last iterate, the active features
        and the last step's ``detail``: the method's result, carried as ``DriverResult.rounding``
        (``None`` for methods without one).  A pure function of its arguments: it must not
        change them or the method, so calling it twice gives the same result."""
        return None


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
    full_check: bool = False  # the check over all features ran after this iteration ...
    check_time: float = 0.0  # ... taking this long

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

    @property
    def n_iter(self) -> int:
        return len(self.history)


class FixedPointDriver:
    """Alternate statistics and subproblem solves until the iterate stops moving.

    Parameters
    ----------
    theta : stop when θ_t = ``method.distance(new, old)`` < theta (default: the change relative
        to the size of the iterate; Alg. 1 of LOGO).  ``theta=0`` runs exactly ``max_iter``
        iterations; otherwise reaching max_iter raises a ``ConvergenceWarning``.
    max_iter : at most this many outer iterations.
    prune_below : for a 1-D iterate, features whose value stays below this for ``prune_patience``
        consecutive iterations are candidates for elimination (LOGO: 1e-8); ``None`` disables it.
        Candidates are eliminated (fixed at 0, left out of the statistics); an update may bring
        some back (``Step.reentered``).  Before declaring convergence the driver runs
        ``method.kkt_violations`` over all eliminated features; if any re-enters, it goes on.
    prune_patience : iterations below ``prune_below`` before a feature is a candidate.
    callback : ``callback(iteration: Iteration, iterate)``; returning True stops the run.
    progress : show a tqdm bar.
    """

    def __init__(self, theta=0.01, max_iter=50, prune_below=None, prune_patience=2,
                 callback: Callable | None = None, progress=False, desc="fixed point"):
        self.theta = theta
        self.max_iter = max_iter
        self.prune_below = prune_below
        self.prune_patience = prune_patience
        self.callback = callback
        self.progress = progress
        self.desc = desc

    def run(self, method: FixedPointMethod[R]) -> DriverResult[R]:
        iterate = np.array(method.initial_iterate(), dtype=float)
        active = np.ones(iterate.shape[0] if iterate.ndim == 1 else iterate.shape[-1], dtype=bool)
        history, converged, stopped, detail = [], False, False, None
        below = np.zeros(active.shape, dtype=int)  # consecutive iterations under prune_below
        bar = tqdm(total=self.max_iter, desc=self.desc, disable=not self.progress, leave=False)
        try:
            for t in range(1, self.max_iter + 1):
                t0 = time.perf_counter()
                stats = method.statistics(iterate, active)
                t1 = time.perf_counter()
                step = method.update(stats, iterate, active)
                t2 = time.perf_counter()
                new, detail = np.array(step.iterate, dtype=float), step.detail
                change = method.distance(new, iterate)
                record = Iteration(t, change, step.objective, int(active.sum()), t1 - t0, t2 - t1,
                                   step.records)
                if self.prune_below is not None and new.ndim == 1:
                    active = self._reenter(step.reentered, active, below, record)
                    below = np.where(new < self.prune_below, below + 1, 0)
                    record.n_dropped = int((active & (below >= self.prune_patience)).sum())
                    active = active & (below < self.prune_patience)
                    if record.n_reentered == 0 and (change < self.theta or not active.any()):
                        back = self._full_check(method, new, active, record)
                        active = self._reenter(back, active, below, record)
                    new[~active] = 0.0
                    record.n_active = int(active.sum())
                history.append(record)
                iterate = new
                bar.update(1)
                bar.set_postfix(change=f"{change:.3g}", active=record.n_active)
                stopped = bool(self.callback(record, iterate)) if self.callback else False
                if record.n_reentered == 0 and (change < self.theta or not active.any()):
                    converged = True  # nothing left to move: a fixed point
                    break
                if stopped:
                    break
        finally:
            bar.close()
        if not converged and not stopped and self.theta > 0:
            warnings.warn(f"{self.desc}: the fixed point did not converge in max_iter={self.max_iter} "
                          f"outer iterations (last theta_t = {history[-1].change:.3g}, "
                          f"theta = {self.theta:g})", ConvergenceWarning, stacklevel=3)
        t0 = time.perf_counter()
        rounding = method.round(iterate, active, detail)
        return DriverResult(iterate, active, history, converged, rounding, time.perf_counter() - t0)

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
    def _full_check(method, new, active, record):
        """Before converging: every eliminated feature checked at the final iterate."""
        if active.all():
            return None
        t0 = time.perf_counter()
        back = method.kkt_violations(new, active)
        record.full_check = back is not None
        record.check_time = time.perf_counter() - t0
        return back
