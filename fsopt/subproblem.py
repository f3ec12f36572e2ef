"""Subproblem: a method's convex subproblem, built once as a cvxpy Problem, solved by any
capable backend, and certified in NumPy independently of the solver.

A subclass supplies the model (``_build``), the NumPy objective and the certificate (a KKT
residual or a duality gap).  Data that change cheaply (λ, β, ε) live in cvxpy Parameters that
``_set_parameters`` refreshes; data that change shape or are large (a margin matrix) call
``invalidate()`` so the next solve rebuilds (cheaper than a DPP recompile of a big Parameter).
"""
from __future__ import annotations

import time
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .exceptions import SolverFailed
from .solvers import resolve_solver

OPTIMAL = "optimal"
OPTIMAL_INACCURATE = "optimal_inaccurate"


class CertificateWarning(UserWarning):
    """A solver reported success but the independent certificate exceeds its tolerance."""


@dataclass
class SolveRecord:
    """Everything one solve produced: solution, objective, timings and the NumPy certificate."""

    subproblem: str
    solver: str
    status: str
    solution: dict = field(repr=False)
    objective: float | None = None  # evaluated in NumPy at the returned solution
    solver_objective: float | None = None  # as the solver reported it
    compile_time: float = 0.0
    solve_time: float = 0.0
    iterations: int | None = None
    certificate: dict = field(default_factory=dict)
    certified: bool = False
    options: dict = field(default_factory=dict)
    attempts: list = field(default_factory=list, repr=False)  # failed records before this one

    @property
    def residual(self) -> float:
        return self.certificate.get("residual", np.nan)


class Subproblem(ABC):
    """Base class of every convex subproblem."""

    name: ClassVar[str] = ""
    cone: ClassVar[str] = ""  # "LP", "SOC" or "EXP": the hardest cone the model needs
    certificate_tol: float = 1e-6

    def __init__(self):
        self._problem = None
        self._variables = None

    # --- model -------------------------------------------------------------------------
    @abstractmethod
    def _build(self):
        """Return ``(cvxpy.Problem, {name: Variable})``; called once per invalidation."""

    def _set_parameters(self):
        """Copy the current small data (λ, β, ε ...) into the Problem's Parameters."""

    def _extract(self, problem, variables) -> dict:
        """The solution as NumPy arrays; override to add dual values."""
        return {k: np.asarray(v.value, dtype=float) for k, v in variables.items()}

    def invalidate(self):
        """Mark the cvxpy Problem stale (the data it holds as constants changed)."""
        self._problem = None
        self._variables = None

    @property
    def problem(self):
        if self._problem is None:
            self._problem, self._variables = self._build()
        return self._problem

    def describe(self) -> str:
        return self.name

    # --- checks in NumPy -------------------------------------------------------------------
    @abstractmethod
    def objective(self, solution: dict) -> float:
        """Objective value at ``solution`` computed in NumPy."""

    @abstractmethod
    def certificate(self, solution: dict) -> dict:
        """Optimality measures at ``solution`` in NumPy; key ``residual`` is the headline number."""

    def certificate_scale(self, solution: dict) -> float:
        return 1.0

    # --- solving ---------------------------------------------------------------------------
    def solve(self, solver="CLARABEL", *, fallback=(), tol=None, max_iter=None, verbose=False,
              accept_inaccurate="certified", **options) -> SolveRecord:
        """Solve with ``solver``; on failure try each of ``fallback`` in turn.

        Returns the first record whose status is optimal.  A status of optimal_inaccurate is
        used only when ``accept_inaccurate`` is True, or is "certified" (the default) and the
        NumPy certificate is within tolerance; the record keeps the solver's status either way.
        Raises :class:`SolverFailed` listing every attempt when no solver succeeds.
        """
        names = [solver, *fallback]
        resolved = [resolve_solver(n, self, options) for n in names]  # errors before any work
        attempts = []
        for name, (backend, opts) in zip(names, resolved):
            common = {"tol": opts.pop("tol", tol), "max_iter": opts.pop("max_iter", max_iter),
                      "verbose": opts.pop("verbose", verbose)}
            native_opts = backend.translate(**common, **opts)
            record = self._solve_native(backend, native_opts) if backend.native else \
                self._solve_cvxpy(backend, native_opts)
            record.solver = name
            record.attempts = list(attempts)
            if record.status == OPTIMAL:
                self._certify(record, warn=True)
                return record
            if record.status == OPTIMAL_INACCURATE and accept_inaccurate:
                self._certify(record, warn=accept_inaccurate is True)
                if record.certified or accept_inaccurate is True:
                    return record
                record.status += f" (certificate residual {record.residual:.3g} over tolerance)"
            attempts.append(record)
        last = attempts[-1]
        raise SolverFailed(self.describe(), last.solver, last.status, attempts=attempts)

    def _solve_cvxpy(self, backend, opts) -> SolveRecord:
        import cvxpy as cp

        t0 = time.perf_counter()
        problem = self.problem
        build_time = time.perf_counter() - t0
        self._set_parameters()
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():  # the status is checked explicitly below
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                problem.solve(solver=backend.name, **opts)
        except cp.error.SolverError as exc:
            return SolveRecord(self.name, backend.name, f"solver_error: {exc}", {}, options=opts,
                               solve_time=time.perf_counter() - t0)
        wall = time.perf_counter() - t0
        stats = problem.solver_stats
        compile_time = build_time + (problem.compilation_time or 0.0)
        solve_time = stats.solve_time if stats.solve_time is not None else wall - (problem.compilation_time or 0.0)
        status = str(problem.status)
        solution = self._extract(problem, self._variables) if status in (OPTIMAL, OPTIMAL_INACCURATE) else {}
        return SolveRecord(self.name, backend.name, status, solution,
                           solver_objective=float(problem.value) if problem.value is not None else None,
                           compile_time=compile_time, solve_time=float(solve_time),
                           iterations=stats.num_iters, options=opts)

    def _solve_native(self, backend, opts) -> SolveRecord:
        t0 = time.perf_counter()
        solution, status, iterations = backend.solve(self, **opts)
        return SolveRecord(self.name, backend.name, status, solution,
                           solve_time=time.perf_counter() - t0, iterations=iterations, options=opts)

    def _certify(self, record: SolveRecord, warn: bool):
        record.objective = float(self.objective(record.solution))
        record.certificate = {k: float(v) for k, v in self.certificate(record.solution).items()}
        bound = self.certificate_tol * self.certificate_scale(record.solution)
        record.certified = bool(record.certificate["residual"] <= bound)
        if warn and not record.certified:
            warnings.warn(
                f"{self.describe()}: solver {record.solver} reported {record.status} but the NumPy "
                f"certificate residual is {record.certificate['residual']:.3g} > {bound:.3g}",
                CertificateWarning, stacklevel=3)
