"""The generic fixed-point and rounding driver.

    iterate ─► statistics(iterate) ─► update(stats) (solves subproblems) ─► new iterate
       ▲                                                                      │
       └───────────── until ‖new − old‖₂ < θ or max_iter; prune; round ◄──────┘

The driver knows no method: a method is an object implementing :class:`FixedPointMethod`.
"""
from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from tqdm.auto import tqdm


@dataclass
class Step:
    """What one ``update`` returns: the new iterate, its solve records, an objective value."""

    iterate: np.ndarray
    records: list = field(default_factory=list)
    objective: float | None = None


class FixedPointMethod(ABC):
    """The pieces a method supplies to :class:`FixedPointDriver`."""

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
        """θ_t, the change between two iterates (default ‖new − old‖₂)."""
        return float(np.linalg.norm(new - old))

    def round(self, iterate: np.ndarray, active: np.ndarray) -> Any:
        """The rounding stage (NMMKL, LFS); ``None`` for methods without one."""
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

    @property
    def compile_time(self) -> float:
        return sum(r.compile_time for r in self.records)

    @property
    def solve_time(self) -> float:
        return sum(r.solve_time for r in self.records)


@dataclass
class DriverResult:
    iterate: np.ndarray
    active: np.ndarray
    history: list
    converged: bool
    rounding: Any = None
    rounding_time: float = 0.0

    @property
    def n_iter(self) -> int:
        return len(self.history)


class FixedPointDriver:
    """Alternate statistics and subproblem solves until the iterate stops moving.

    Parameters
    ----------
    theta : stop when θ_t = ``method.distance(new, old)`` < theta (Alg. 1 of LOGO; 0 runs max_iter).
    max_iter : at most this many outer iterations.
    prune_below : for a 1-D iterate, features whose value stays below this for ``prune_patience``
        consecutive iterations are removed from later iterations and fixed at 0 (LOGO: 1e-8).
        ``None`` disables pruning.
    prune_patience : iterations below ``prune_below`` before a feature is removed.  With exact
        subproblem solvers a feature can be exactly 0 at one iteration and come back at the next
        (measured: a relevant spiral feature at J=10⁵), so the default waits for two.
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

    def run(self, method: FixedPointMethod) -> DriverResult:
        iterate = np.array(method.initial_iterate(), dtype=float)
        active = np.ones(iterate.shape[0] if iterate.ndim == 1 else iterate.shape[-1], dtype=bool)
        history, converged = [], False
        below = np.zeros(active.shape, dtype=int)  # consecutive iterations under prune_below
        bar = tqdm(total=self.max_iter, desc=self.desc, disable=not self.progress, leave=False)
        try:
            for t in range(1, self.max_iter + 1):
                t0 = time.perf_counter()
                stats = method.statistics(iterate, active)
                t1 = time.perf_counter()
                step = method.update(stats, iterate, active)
                t2 = time.perf_counter()
                new = np.array(step.iterate, dtype=float)
                change = method.distance(new, iterate)
                if self.prune_below is not None and new.ndim == 1:
                    below = np.where(new < self.prune_below, below + 1, 0)
                    active = active & (below < self.prune_patience)
                    new[~active] = 0.0
                record = Iteration(t, change, step.objective, int(active.sum()), t1 - t0, t2 - t1,
                                   step.records)
                history.append(record)
                iterate = new
                bar.update(1)
                bar.set_postfix(change=f"{change:.3g}", active=record.n_active)
                stop = bool(self.callback(record, iterate)) if self.callback else False
                if change < self.theta or not active.any():  # nothing left to move: a fixed point
                    converged = True
                    break
                if stop:
                    break
        finally:
            bar.close()
        t0 = time.perf_counter()
        rounding = method.round(iterate, active)
        return DriverResult(iterate, active, history, converged, rounding, time.perf_counter() - t0)
