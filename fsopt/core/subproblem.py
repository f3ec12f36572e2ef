"""Subproblem: a method's convex subproblem, built once as a cvxpy Problem, solved by any
capable backend, and certified in NumPy independently of the solver.

A subclass supplies the model (``_build``), the NumPy objective and the certificate (a KKT
residual or a duality gap) — or declares its parts (:mod:`fsopt.core.parts`): a smooth loss
``smooth`` and a penalty ``penalty`` of the variable ``parts_variable``; the cvxpy model, the
objective, the certificate (:func:`fsopt.core.parts.composite_certificate`) and the native polish
(:func:`fsopt.core.composite.polish_from_parts`) then come from the parts, and so do the native
backends that need only parts (LBFGSB, PROXGRAD, GRADIENT).

Polish and certificate belong to the problem they solve: a subclass that changes the objective
(defines ``_build`` or ``objective``) must define its own ``polish`` (``polish = None``: none) and
``certificate`` unless both are the generic ones of the parts (TypeError when the class is
created); and the generic ones check that the declared parts describe the subproblem — at every
certificate the NumPy objective, once per built model the cvxpy objective, must equal
``smooth.value + penalty.value`` (TypeError naming the class otherwise).  Data that change cheaply (λ, β, ε) live in cvxpy Parameters that
``_set_parameters`` refreshes; data that change shape or are large (a margin matrix) call
``invalidate()`` so the next solve rebuilds (cheaper than a DPP recompile of a big Parameter).

Certificate policy (``solve``): a solution is returned only if its NumPy certificate holds.  A
solve whose certificate fails gets status ``rejected_certificate`` and is refined — polished by
the subproblem's native method when it has one (``polish``), then re-solved at a tighter
tolerance — before the next solver of the fallback list is tried; when none is certified,
:class:`SolverFailed` names the solver, its status and the residual.  Every attempt is kept in
``record.attempts`` (and ``SolverFailed.attempts``).  A claim that no optimum exists
("infeasible", "unbounded", ...) is checked too where the subproblem is an LP
(``lp_inequality_form``): by a Farkas or primal ray verified in NumPy (:mod:`fsopt.core.farkas`);
a refuted one becomes ``rejected_certificate``, a confirmed one keeps its status.

A backend's failure is a failed solve (``_attempt``): whatever a backend raises (but
MemoryError, and a warning the caller's filter made an error), and any output that is not a
solution of this subproblem — not a ``(solution, status, iterations)`` tuple, a status outside
:mod:`fsopt.core.status`, an iteration count that is not a count, a solution that is not a dict or
lacks an entry of ``solution_shapes`` or holds one that is not real or of the declared shape — gives
a record with status ``solver_error`` whose ``message`` names the backend and what it raised or
returned; the next solver of the fallback list is then tried.  A certified answer reached after
such a failure (or after a non-finite solution) comes with a :class:`BackendFailureWarning`
naming each failed backend.
"""
from __future__ import annotations

import contextlib
import copy
import time
import warnings
from abc import ABC
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from . import status as st
from .composite import polish_from_parts
from .exceptions import BackendFailureWarning, SolverFailed, describe_attempt, warn
from .farkas import check_claim, inequality_form
from .parts import LOSS_DUAL, composite_certificate, missing_parts, nonsmooth_reason, parts_held
from .solvers import ResolvedSolver, as_resolved

OPTIMAL = st.OPTIMAL
OPTIMAL_INACCURATE = st.OPTIMAL_INACCURATE
REFINE_FACTOR = 1e-2  # a refinement re-solves at REFINE_FACTOR × the tolerance used ...
REFINE_FLOOR = 1e-12  # ... but not below this
PARTS_RTOL = 1e-6  # the declared parts must give the subproblem's objective to this relative error
MESSAGE_CHARS = 200  # what a backend raised or returned is quoted up to this length
NOT_A_BACKEND_FAILURE = (MemoryError, Warning)  # propagate: out of memory; a warning made an error


@dataclass
class SolveRecord:
    """Everything one solve produced: solution, objective, timings and the NumPy certificate.

    Parameters
    ----------
    subproblem : str
        The subproblem's name (e.g. "garrote_logistic").
    solver : str
        The backend that solved it.
    status : str
        A status of :mod:`fsopt.core.status`.  A solve the solver called successful but whose
        certificate failed has status "rejected_certificate" and the solver's word in
        ``solver_status``.
    solution : dict
        The variables by name (e.g. ``{"w": ...}``).
    objective : float or None, default=None
        The objective evaluated in NumPy at ``solution``.
    solver_objective : float or None, default=None
        The objective as the solver reported it.
    compile_time : float, default=0.0
        Seconds spent building the solver's problem (cvxpy canonicalization).
    solve_time : float, default=0.0
        Seconds spent in the solver.
    iterations : int or None, default=None
        The solver's iteration count, when it reports one.
    certificate : dict
        The NumPy optimality measures; ``certificate["residual"]`` is the headline number.
    certified : bool, default=False
        Whether the certificate holds.
    options : dict
        The options the solver was called with.
    attempts : list of SolveRecord
        The failed records before this one (other solvers, polish, refinement).
    stage : str, default="solve"
        "solve", "polish" (the native polish of a rejected solution) or "refine" (the re-solve
        at a tighter tolerance).
    solver_status : str or None, default=None
        The solver's own status, when it differs from ``status``.
    message : str, default=""
        The solver's error message, if any.
    input : Subproblem or None, default=None
        A copy of the data solved, kept only while :func:`fsopt.core.checks.observe_solves`
        collects.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import GarroteLogistic
    >>> record = GarroteLogistic(lam=1.0, Z=np.array([[1.0, -0.5], [0.8, 0.2]])).solve("LBFGSB")
    >>> record.status, record.certified, record.residual < 1e-4
    ('optimal', True, True)
    """

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
    stage: str = "solve"
    solver_status: str | None = None  # the solver's own status when it differs from ``status``
    message: str = ""  # the solver's error message, if any
    input: "Subproblem | None" = field(default=None, repr=False)  # what was solved: kept only
    #   while :func:`observe_solves` collects (a copy of the subproblem's data at this solve)

    def __post_init__(self):
        self.status = st.check_status(self.status)

    @property
    def residual(self) -> float:
        return self.certificate.get("residual", np.nan)

    @property
    def solved(self) -> bool:
        """Whether this is a certified solution: status optimal or optimal_inaccurate, and the
        NumPy certificate holds."""
        return self.status in st.SUCCESS and self.certified

    @property
    def claim(self) -> str:
        """The solver's word when it asserts something checkable (:data:`fsopt.core.status.CLAIMS`:
        a solution, or that no optimum exists), also when the certificate rejected it; else ""."""
        word = self.solver_status or self.status
        return word if word in st.CLAIMS else ""

    @property
    def claim_confirmed(self) -> bool:
        """Whether a NumPy certificate confirmed :attr:`claim`: the solution's certificate holds,
        or a ray confirmed "no optimum" (:mod:`fsopt.core.farkas`); False for no claim."""
        if self.claim in st.SUCCESS:
            return self.certified
        return bool(self.claim) and bool(self.certificate.get("confirmed", False))

    @property
    def backend_failed(self) -> bool:
        """Whether the backend gave nothing the certificate could judge: it raised, returned
        malformed output or reported an error (status ``solver_error``/``error``), or returned
        non-finite values."""
        return self.status in st.FAILURES or bool(self.certificate.get("non_finite_solution"))

    @property
    def answered_by(self) -> str:
        """Who gave this answer: "solver" (the asked solver's own), "refined" (its re-solve at a
        tighter tolerance), "polished" (the subproblem's native polish of its rejected answer) or
        "fallback" (another solver of the fallback list, however it was reached)."""
        if self.attempts and self.solver != self.attempts[0].solver:
            return "fallback"
        return {"polish": "polished", "refine": "refined"}.get(self.stage, "solver")


_OBSERVERS: list[list] = []


@contextlib.contextmanager
def observe_solves():
    """Collect the final record of every ``Subproblem.solve`` call made inside the block.

    Yields a list that fills as solves happen: the certified record returned, or, when the call
    raised :class:`SolverFailed`, its last rejected attempt (``certified`` False).  Each record's
    ``attempts`` tell whether a polish or a re-solve repaired it (``stage``), and its ``input`` is
    a copy of the subproblem as solved, so that ``record.input.certificate(record.solution)``
    re-certifies it.  Blocks nest; outside any block records keep no input (no memory held).
    """
    seen: list = []
    _OBSERVERS.append(seen)
    try:
        yield seen
    finally:
        _OBSERVERS.remove(seen)


class Subproblem(ABC):
    """Base class of every convex subproblem.

    A subclass builds its cvxpy model once (``_build``) and computes its objective and
    certificate in NumPy; ``solve`` returns a :class:`SolveRecord` only if the certificate holds.

    Parts (None: not declared): ``smooth`` — a smooth loss f (value, gradient, n_features);
    ``penalty`` — a penalty g with its feasible set (value, prox, zero_slack, ...), both of the
    variable ``parts_variable``; see :mod:`fsopt.core.parts`.  ``warm_start``: a starting point
    native backends may use.

    Examples
    --------
    The projection of ``a`` onto the nonnegative orthant, certified by its KKT residual:

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from fsopt import Subproblem
    >>> class Projection(Subproblem):
    ...     name, cone = "projection", "SOC"
    ...     def __init__(self, a):
    ...         super().__init__()
    ...         self.a = np.asarray(a, dtype=float)
    ...     def _build(self):
    ...         x = cp.Variable(self.a.size)
    ...         return cp.Problem(cp.Minimize(cp.sum_squares(x - self.a)), [x >= 0]), {"x": x}
    ...     def objective(self, solution):
    ...         return float(np.sum((solution["x"] - self.a) ** 2))
    ...     def certificate(self, solution):
    ...         x = solution["x"]
    ...         return {"residual": float(np.max(np.abs(np.minimum(x, 2 * (x - self.a)))))}
    >>> record = Projection([1.0, -2.0, 0.5]).solve("CLARABEL")
    >>> record.certified, np.round(record.solution["x"], 6).tolist()
    (True, [1.0, 0.0, 0.5])
    """

    name: ClassVar[str] = ""
    cone: ClassVar[str] = ""  # "LP", "SOC" or "EXP": the hardest cone the model needs
    certificate_tol: float = 1e-6
    refine_by_default: ClassVar[bool] = True  # solve(refine=None): polish / re-solve a rejected solve
    smooth = None
    penalty = None
    parts_variable: ClassVar[str] = "w"
    warm_start = None

    def __init__(self):
        self._problem = None
        self._variables = None
        self._parts_checked = False

    def __init_subclass__(cls, **kwargs):
        """Refuse a class that changes the objective but inherits a polish or a certificate
        written for its parent's problem (the generic ones of the parts are checked at run time)."""
        super().__init_subclass__(**kwargs)
        changes = [name for name in ("_build", "objective") if name in cls.__dict__]
        for attr in ("polish", "certificate") if changes else ():
            owner = next(k for k in cls.__mro__ if attr in k.__dict__)
            if owner is not cls and owner is not Subproblem:
                raise TypeError(
                    f"{cls.__name__} changes the objective ({', '.join(changes)}) but would inherit "
                    f"{attr} from {owner.__name__}, written for {owner.__name__}'s problem; define "
                    f"{cls.__name__}.{attr} for the new problem (polish = None: no polish), or "
                    f"declare the new problem's smooth and penalty parts and use the generic ones")

    # --- model -------------------------------------------------------------------------
    def _build(self):
        """Return ``(cvxpy.Problem, {name: Variable})``; called once per invalidation.  The
        default builds min f(w) + g(w) from the parts' ``cvxpy_form``."""
        import cvxpy as cp

        self._require_parts("a cvxpy model (or a _build method)")
        w = cp.Variable(self.smooth.n_features, name=self.parts_variable,
                        nonneg=bool(getattr(self.penalty, "nonneg", False)))
        penalty, constraints = self.penalty.cvxpy_form(w)
        problem = cp.Problem(cp.Minimize(self.smooth.cvxpy_form(w) + penalty), constraints)
        return problem, {self.parts_variable: w}

    def _set_parameters(self):
        """Copy the current small data (λ, β, ε ...) into the Problem's Parameters."""
        if self.penalty is not None and hasattr(self.penalty, "set_parameters"):
            self.penalty.set_parameters()

    def _extract(self, problem, variables) -> dict:
        """The solution as NumPy arrays (the parts' variable projected onto the penalty's
        feasible set, which a solver meets only to its tolerance); override to add dual values."""
        out = {k: np.asarray(v.value, dtype=float) for k, v in variables.items()}
        if self.penalty is not None and self.parts_variable in out:
            out[self.parts_variable] = self.penalty.prox(out[self.parts_variable], 0.0)
        return out

    def invalidate(self):
        """Mark the cvxpy Problem stale (the data it holds as constants changed)."""
        self._problem = None
        self._variables = None
        self._parts_checked = False

    @property
    def problem(self):
        if self._problem is None:
            self._problem, self._variables = self._build()
        return self._problem

    def describe(self) -> str:
        return self.name

    # --- checks in NumPy -------------------------------------------------------------------
    def objective(self, solution: dict) -> float:
        """Objective value at ``solution`` computed in NumPy (default: f + g of the parts).

        Parameters
        ----------
        solution : dict
            The variables by name, as a backend returns them.

        Returns
        -------
        value : float
        """
        self._require_parts("objective")
        w = solution[self.parts_variable]
        return self.smooth.value(w) + self.penalty.value(w)

    def certificate(self, solution: dict) -> dict:
        """Optimality measures at ``solution`` in NumPy (default: the parts' proximal KKT residual,
        :func:`fsopt.core.parts.composite_certificate`).

        Parameters
        ----------
        solution : dict
            The variables by name, as a backend returns them.

        Returns
        -------
        measures : dict
            Key ``residual`` is the headline number, compared with the solver's tolerance.
        """
        self._require_parts("certificate")
        return composite_certificate(self.smooth, self.penalty, solution[self.parts_variable],
                                     solution.get(LOSS_DUAL), tol=self.certificate_tol)

    def certificate_scale(self, solution: dict) -> float:
        return 1.0

    def solution_shapes(self) -> dict | None:
        """The entries of a solution the NumPy objective and certificate read, by name, with their
        shapes (``()``: a number).  A backend's solution must hold each, real, of that shape, or
        its solve fails (module docstring).  Default: the parts' variable, of shape
        ``(smooth.n_features,)``, when the parts are declared; else None (not declared: what the
        certificate raises on a solution makes that solve fail)."""
        if missing_parts(self):
            return None
        return {self.parts_variable: (int(self.smooth.n_features),)}

    def lp_inequality_form(self):
        """(c, G, h) of the subproblem as the LP min cᵀx s.t. Gx ≤ h, or None (not an LP).
        Default: from ``lp_data()`` (over 0 ≤ x ≤ 1) when the class declares it."""
        if not callable(getattr(self, "lp_data", None)):
            return None
        cost, rows, row_lower, row_upper = self.lp_data()
        return inequality_form(cost, rows, row_lower, row_upper, 0.0, 1.0)

    def polish(self, solution: dict) -> dict | None:
        """A better solution computed natively from a rejected one, or None (no native method).
        Default: from the parts when declared (L-BFGS-B or proximal gradient), else None."""
        if missing_parts(self) or nonsmooth_reason(self.smooth):  # both methods follow a gradient
            return None
        w = solution[self.parts_variable]
        return {self.parts_variable: polish_from_parts(self.smooth, self.penalty, w)}

    def _require_parts(self, what):
        missing = missing_parts(self)
        if missing:
            raise NotImplementedError(f"{type(self).__name__} declares no {', '.join(missing)}; "
                                      f"define {what} or declare the smooth and penalty parts")

    def check_parts(self, solution: dict, objective: float):
        """TypeError if the declared parts do not give the subproblem's ``objective`` at
        ``solution`` (NumPy, every time) or the cvxpy model's objective (once per built model):
        the generic certificate and polish would then answer for another problem."""
        if missing_parts(self):
            return
        w = solution[self.parts_variable]
        parts = self.smooth.value(w) + self.penalty.value(w)
        values = {"objective": objective}
        if self._problem is not None and not self._parts_checked:
            self._set_parameters()
            self._variables[self.parts_variable].value = w
            values["cvxpy model objective"] = float(self._problem.objective.value)
            self._parts_checked = True
        for what, value in values.items():
            if not abs(value - parts) <= PARTS_RTOL * max(1.0, abs(parts)):
                raise TypeError(
                    f"{type(self).__name__}: its {what} ({value:.10g}) differs from its declared parts "
                    f"smooth + penalty ({parts:.10g}) at the solution; the parts' certificate and "
                    f"polish would answer for another problem: declare the parts of this objective")

    # --- solving ---------------------------------------------------------------------------
    def solve(self, solver: str | ResolvedSolver = "CLARABEL", *, fallback=(), tol=None,
              max_iter=None, verbose=False, refine=None, **solver_options) -> SolveRecord:
        """Solve with ``solver``, then each of ``fallback``, until a solve is certified.

        Names and options are checked before any solve.  A rejected solution is refined first
        (``polish``, then a re-solve at a tighter tolerance) unless ``refine`` is False.

        Parameters
        ----------
        solver : str or ResolvedSolver, default="CLARABEL"
            A backend or profile name (resolved here with ``solver_options``), or a
            :class:`~fsopt.core.solvers.ResolvedSolver` resolved once by the caller.
        fallback : sequence of str or ResolvedSolver, default=()
            Solvers tried in turn when the previous one ends without a certified solution.
        tol : float or None, default=None
            Tolerance, overriding the resolved options (its meaning per backend:
            docs/solvers.md).
        max_iter : int or None, default=None
            Iteration limit, overriding the resolved options.
        verbose : bool, default=False
            Let the solver print its log.
        refine : bool or None, default=None
            Refine a rejected solution; None: the class attribute ``refine_by_default`` (which
            ``fsopt verify --mutants`` turns off).
        **solver_options
            Backend-specific options, overriding the resolved ones.

        Returns
        -------
        record : SolveRecord
            The first record whose NumPy certificate holds (status optimal, or
            optimal_inaccurate when certified).

        Raises
        ------
        SolverFailed
            When nothing is certified; it names the last solver, its status and residual, and
            carries every attempt.
        """
        given = {k: v for k, v in (("tol", tol), ("max_iter", max_iter), ("verbose", verbose or None))
                 if v is not None}  # explicit arguments override a profile's options
        with parts_held():  # (the parts cannot change during a solve: each capability read once)
            chain = [as_resolved(s, self, dict(solver_options, **given)) for s in (solver, *fallback)]
            attempts = []
            for resolved in chain:
                record = self._attempt(resolved, attempts)
                if (self.refine_by_default if refine is None else refine) \
                        and record.status == st.REJECTED_CERTIFICATE:
                    record = self._refine(resolved, record, attempts)
                if record.certified:
                    _warn_failed_backends(self.name, record)
                    return self._observed(record)
        last = self._observed(attempts[-1])
        raise SolverFailed(self.describe(), last.solver, last.status, attempts=attempts,
                           residual=last.residual, detail=last.message)

    def attempt(self, solver: str | ResolvedSolver = "CLARABEL", *, tol=None, max_iter=None,
                verbose=False, **solver_options) -> SolveRecord:
        """One solve with ``solver`` alone — no fallback, polish or re-solve — that never raises.

        The record has the solver's status mapped through its backend's ``status_map``
        (``status``; the solver's own word in ``solver_status`` when it differs, and in
        :attr:`SolveRecord.claim` when it is a claim), the NumPy certificate of any solution it
        returned (also one that claims nothing, e.g. at an iteration limit: ``certified`` says
        whether it holds; :attr:`SolveRecord.solved` whether it is a certified claim) or the ray
        checking a "no optimum" claim, and the timings.  Whatever goes wrong outside the solver
        (an unknown name or option, a certificate that raises) is a record with status
        ``error`` and the exception in ``message``; only KeyboardInterrupt and SystemExit pass.

        Parameters
        ----------
        solver : str or ResolvedSolver, default="CLARABEL"
            A backend or profile name, or a resolved solver.
        tol, max_iter, verbose, **solver_options
            As for :meth:`solve`.

        Returns
        -------
        record : SolveRecord
        """
        t0 = time.perf_counter()
        given = {k: v for k, v in (("tol", tol), ("max_iter", max_iter), ("verbose", verbose or None))
                 if v is not None}
        try:
            with parts_held():
                record = self._attempt(as_resolved(solver, self, dict(solver_options, **given)), [])
                if record.solution and not record.certificate:  # a solution that claims nothing
                    _blamed_call("its certificate", self._measure, record)
        except _BackendFailure as failure:  # the certificate of a solution that claims nothing
            record.message = f"the solution {record.solver} returned with status {record.status}: {failure}"
        except Exception as exc:  # noqa: BLE001 - never raises: the failure is the record
            record = SolveRecord(self.name, getattr(solver, "name", str(solver)), st.ERROR, {},
                                 solve_time=time.perf_counter() - t0, message=_quoted(exc))
        return record

    def _observed(self, record: SolveRecord) -> SolveRecord:
        """Hand ``record`` to the active :func:`observe_solves` blocks, with a copy of the input."""
        if _OBSERVERS:
            record.input = copy.copy(self)
            record.input._problem = record.input._variables = None
            for seen in _OBSERVERS:
                seen.append(record)
        return record

    def _refine(self, solver: ResolvedSolver, rejected, attempts) -> SolveRecord:
        """Polish ``rejected``; if still rejected, re-solve at REFINE_FACTOR × the tolerance used
        (the backend's ``default_tol`` if none was given; exact methods have none) and polish
        that.  Returns the last record made (certified or not)."""
        record = self._polish(rejected, attempts) or rejected
        used = solver.solver_options.get("tol")
        used = solver.backend.default_tol if used is None else used
        if record.certified or used is None:
            return record
        tighter = solver.for_subproblem(solver_options={"tol": max(REFINE_FLOOR, REFINE_FACTOR * used)})
        record = self._attempt(tighter, attempts, stage="refine")
        if record.status == st.REJECTED_CERTIFICATE:
            record = self._polish(record, attempts) or record
        return record

    def _attempt(self, solver: ResolvedSolver, attempts, stage="solve") -> SolveRecord:
        """One solve with ``solver``, certified; appended to ``attempts`` unless certified.  A
        backend that raises or returns malformed output gives a ``solver_error`` record naming it."""
        backend, t0 = solver.backend, time.perf_counter()
        shapes = self.solution_shapes()
        try:
            record = self._run_backend(solver, shapes)
            record.solver, record.stage = solver.name, stage
            if record.status in st.SUCCESS and shapes is None:  # the certificate judges the form
                _blamed_call("the certificate of its solution", self._certify, record)
            elif record.status in st.SUCCESS:
                self._certify(record)
        except _BackendFailure as failure:
            record = SolveRecord(self.name, solver.name, st.SOLVER_ERROR, {}, stage=stage,
                                 options=solver.solver_options, solve_time=time.perf_counter() - t0,
                                 solver_status=failure.status, message=f"backend {backend.name}: {failure}")
        record.attempts = list(attempts)
        if record.status in st.NO_SOLUTION_CLAIMS:
            self._check_claim(record)
        if not record.certified:
            attempts.append(record)
        return record

    def _run_backend(self, solver: ResolvedSolver, shapes) -> SolveRecord:
        """The backend's record, its solution checked against ``shapes``; _BackendFailure when
        the backend raised (in ``supports``, ``translate`` or its solve) or returned malformed output."""
        backend = solver.backend
        if not _blamed_call("supports()", backend.can_solve, self):
            raise _BackendFailure(f"supports() is now False for {self.describe()}")
        arguments = _blamed_call("translate()", solver.backend_arguments)
        record = self._solve_native(backend, arguments) if backend.native else \
            self._solve_cvxpy(backend, arguments)
        if record.status in st.SUCCESS:
            record.solution = _checked_solution(record.solution, shapes)
        return record

    def _polish(self, rejected: SolveRecord, attempts) -> SolveRecord | None:
        if self.polish is None or not rejected.solution or rejected.backend_failed:
            return None  # no polish, or nothing to polish (a non-finite solution is no start)
        t0 = time.perf_counter()
        solution = self.polish(rejected.solution)
        if solution is None:
            return None
        record = SolveRecord(self.name, rejected.solver, st.OPTIMAL, solution, stage="polish",
                             solve_time=time.perf_counter() - t0, options=rejected.options,
                             attempts=list(attempts))
        self._certify(record)
        if not record.certified:
            attempts.append(record)
        return record

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
            return SolveRecord(self.name, backend.name, st.SOLVER_ERROR, {}, options=opts,
                               solve_time=time.perf_counter() - t0, message=str(exc)[:300])
        except NOT_A_BACKEND_FAILURE:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever a solver raises is its failed solve
            raise _BackendFailure(f"the cvxpy solve raised {_quoted(exc)}") from exc
        wall = time.perf_counter() - t0
        status = _mapped_status(backend, problem.status)
        record = _blamed_call("reading its result", self._cvxpy_record, backend, problem, status, opts,
                              build_time, wall)
        record.solver_status = problem.status if problem.status != status else None
        return record

    def _cvxpy_record(self, backend, problem, status, opts, build_time, wall) -> SolveRecord:
        stats = problem.solver_stats
        compile_time = build_time + (problem.compilation_time or 0.0)
        solve_time = stats.solve_time if stats.solve_time is not None else wall - (problem.compilation_time or 0.0)
        solution = self._extract(problem, self._variables) if status in st.SUCCESS else {}
        return SolveRecord(self.name, backend.name, status, solution,
                           solver_objective=float(problem.value) if problem.value is not None else None,
                           compile_time=compile_time, solve_time=float(solve_time),
                           iterations=stats.num_iters, options=opts)

    def _solve_native(self, backend, opts) -> SolveRecord:
        t0 = time.perf_counter()
        returned = _blamed_call("solve()", backend.solve, self, **opts)
        solve_time = time.perf_counter() - t0
        if not isinstance(returned, tuple) or len(returned) != 3:
            raise _BackendFailure(f"solve() returned {_quoted(returned)}, not a tuple "
                                  f"(solution, status, iterations)")
        solution, word, iterations = returned
        status = _mapped_status(backend, word)
        if status not in st.SUCCESS and not isinstance(solution, dict):
            solution = {}  # no solution claimed (a claimed one is checked by _run_backend)
        return SolveRecord(self.name, backend.name, status, solution, solve_time=solve_time,
                           iterations=_checked_iterations(iterations), options=opts,
                           solver_status=word if word != status else None)

    def _check_claim(self, record: SolveRecord):
        """A claim that no optimum exists, checked in NumPy by a Farkas or primal ray
        (:mod:`fsopt.core.farkas`) when the subproblem is an LP; a refuted claim turns the status
        into ``rejected_certificate``.  Other subproblems have no such certificate: the claim
        stays unchecked (empty ``certificate``)."""
        form = self.lp_inequality_form()
        if form is None:
            return
        record.certificate = check_claim(record.status, *form, tol=self.certificate_tol)
        if not record.certificate["confirmed"]:
            record.solver_status, record.status = record.status, st.REJECTED_CERTIFICATE

    def _certify(self, record: SolveRecord):
        """Certificate in NumPy; a failed one turns the status into ``rejected_certificate``."""
        self._measure(record)
        if not record.certified:
            record.solver_status, record.status = record.status, st.REJECTED_CERTIFICATE

    def _measure(self, record: SolveRecord):
        """The NumPy objective, certificate and its bound at ``record.solution``; ``certified``
        says whether the certificate holds (the status is left to the caller)."""
        non_finite = _non_finite_entries(record.solution)
        if not non_finite:
            with np.errstate(all="ignore"):
                record.objective = float(self.objective(record.solution))
                self.check_parts(record.solution, record.objective)
                record.certificate = {k: float(v) for k, v in self.certificate(record.solution).items()}
                bound = self.certificate_tol * self.certificate_scale(record.solution)
        else:
            record.certificate, bound = {"residual": np.inf, "non_finite_solution": 1.0}, 0.0
            record.message = f"{record.solver} returned non-finite values in " + ", ".join(map(repr, non_finite))
        record.certificate["bound"] = float(bound)
        # False for a NaN residual; an infinite bound (an objective that overflowed) certifies nothing;
        # nor does a point refuted outright (composite_certificate: above the objective at 0)
        record.certified = bool(record.certificate["residual"] <= bound < np.inf
                                and not record.certificate.get("refuted"))
        if record.certificate.get("refuted"):
            record.message = (f"its objective is {record.certificate['objective_above_zero']:.3g} above the "
                              f"objective at w = 0: not a minimizer")


class _BackendFailure(Exception):
    """What a backend did wrong (raised, or returned malformed output), for its failed record;
    ``status`` keeps an unknown status it returned."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def _quoted(value) -> str:
    """An exception as "Type: message", or a returned value's repr, cut to MESSAGE_CHARS."""
    text = f"{type(value).__name__}: {value}" if isinstance(value, BaseException) else repr(value)
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 3] + "..."


def _blamed_call(what, function, *args, **kwargs):
    """``function(*args, **kwargs)``; what it raises (but NOT_A_BACKEND_FAILURE) becomes a
    _BackendFailure saying ``what`` raised it."""
    try:
        return function(*args, **kwargs)
    except NOT_A_BACKEND_FAILURE:
        raise
    except Exception as exc:  # noqa: BLE001 - a backend's error is its failed solve
        raise _BackendFailure(f"{what} raised {_quoted(exc)}") from exc


def _mapped_status(backend, status) -> str:
    """A backend's ``status`` in fsopt's closed set (:mod:`fsopt.core.status`) through its
    ``status_map``, or a _BackendFailure naming the status the map does not list."""
    mapped = backend.status_map.get(status) if isinstance(status, str) else None
    if mapped is None:
        raise _BackendFailure(f"returned the status {_quoted(status)}, which is not one of "
                              f"{backend.name}'s statuses ({', '.join(sorted(backend.status_map))})",
                              status=_quoted(status))
    return mapped


def _checked_iterations(iterations):
    """An iteration count: None or an integer ≥ 0 (a _BackendFailure otherwise)."""
    if iterations is None:
        return None
    if isinstance(iterations, (bool, np.bool_)) or not isinstance(iterations, (int, np.integer)) \
            or iterations < 0:
        raise _BackendFailure(f"returned the iteration count {_quoted(iterations)}; "
                              f"an iteration count is None or an integer >= 0")
    return int(iterations)


def _checked_solution(solution, shapes) -> dict:
    """``solution`` with each entry of ``shapes`` as a float array (a float for shape ()), or a
    _BackendFailure naming the first entry missing, not real, or of another shape."""
    if not isinstance(solution, dict):
        raise _BackendFailure(f"returned a solution of type {type(solution).__name__} "
                              f"({_quoted(solution)}), not a dict of the variables by name")
    checked = dict(solution)
    for name, shape in (shapes or {}).items():
        needs = f"{name!r} of shape {tuple(shape)}"
        if name not in solution:
            raise _BackendFailure(f"returned a solution without {needs} "
                                  f"(entries: {', '.join(map(repr, solution)) or 'none'})")
        try:
            value = np.asarray(solution[name])
        except Exception as exc:  # noqa: BLE001 - e.g. a ragged sequence
            raise _BackendFailure(f"returned {name!r} = {_quoted(solution[name])}: not an array "
                                  f"({_quoted(exc)})") from exc
        if value.dtype.kind not in "fiu":
            raise _BackendFailure(f"returned {name!r} of dtype {value.dtype} "
                                  f"({_quoted(solution[name])}); it needs {needs}, real")
        if value.shape != tuple(shape):
            raise _BackendFailure(f"returned {name!r} of shape {value.shape}; it needs {needs}")
        checked[name] = float(value) if value.shape == () else value.astype(float)
    return checked


def _non_finite_entries(solution) -> list:
    """Names of the numeric entries of ``solution`` holding a NaN or an infinity."""
    bad = []
    for name, value in solution.items():
        if isinstance(value, (float, int, np.ndarray, np.number)) and not isinstance(value, bool):
            value = np.asarray(value)
            if value.dtype.kind in "fc" and not np.all(np.isfinite(value)):
                bad.append(name)
    return bad


def _warn_failed_backends(subproblem, record):
    """A certified ``record`` reached after backends failed: a BackendFailureWarning naming each."""
    failed = list(dict.fromkeys(describe_attempt(a) for a in record.attempts if a.backend_failed))
    if failed:
        warn(f"{subproblem}: {'; '.join(failed)}; answered by {record.solver}, certified",
             BackendFailureWarning)
