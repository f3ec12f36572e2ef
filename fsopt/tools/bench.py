"""Solver comparison studies: problems × solvers × sizes × repetitions, one tidy row per solve.

A problem takes part when its TOML file has a ``[bench]`` table::

    [bench]
    size = "n_irrelevant"          # the data knob that "size" sets
    sizes = [50, 500, 5000]
    quick_sizes = [20, 200]        # used by --quick
    reference = "clarabel-tight"   # high-accuracy solver for error_to_reference
    quick_exclude = ["scs-tight"]  # solvers left out under --quick
    tolerances = [1e-2, 1e-4, 1e-6, 1e-8]   # convergence curve: one solve per tolerance ...
    iterations = [10, 30, 100]     # ... and/or per iteration budget (quick_tolerances, quick_iterations)

and its method package has ``bench.subproblems(problem, X, y) -> {kind: Subproblem}`` (or the
table names another hook, ``subproblems = "name"``: a hook registered by code,
``fsopt.core.plugins.register(BENCH_HOOKS, name, func)``, or an installed package's
``fsopt.bench_hooks`` entry point; a file ``module.py`` beside the problem file for
``"module:function"`` runs only when the user allows it, ``--allow-hook-files``).  A hook may give
a zero-argument callable instead of a Subproblem for a kind that is expensive to build; it is
called only for the cells of that kind.

Every installed backend and profile that can solve a kind is run on it, ``repeat`` times (the
``repetition`` column), then along the convergence schedule (``budget`` = ``tol`` or
``max_iter``; the study's point is ``budget`` = ``default``), every solve built and compiled afresh,
all of one (solver, instance) pair in one worker process, on a fresh copy of the instance, after
one untimed warm-up solve (its wall time in ``warmup_time``), each solve under the time limit, the
pair's peak memory counted from its start; the workers are started once and reused
(:mod:`fsopt.tools.bench_pool`).  The solver's word is
kept apart (``claim``, ``claim_confirmed``: :mod:`fsopt.tools.bench_claims`).  Every (solver, instance) pair left
out gets a row with status ``skipped`` and the ``reason``.  Statuses come from
:mod:`fsopt.core.status`; a solve is *solved* only when its NumPy certificate holds.  Each row carries
a key of everything that determines it (:mod:`fsopt.tools.bench_keys`): a rerun reuses the rows of
``results.jsonl`` whose key matches, re-solves the rest and says why; solvers may be added to a
study (its solvers grow); a solve logged again after a row that no run replaces (a result
that stands, not a failure to retry) is refused, naming the file and both lines.  Every size of
a ``[bench]`` table is checked against the memory its data need before any work.  Summary, plots and report: :mod:`fsopt.tools.bench_report`.
"""
from __future__ import annotations

import ast
import contextlib
import copy
import importlib.util
import json
import math
import multiprocessing
import os
import pickle
import sys
import time
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from ..core import plugins
from ..core import status as st
from ..core.limits import MAX_JOBS
from . import bench_keys as keys
from .bench_pool import NOT_RUN, ROW, WARM_UP, Job, WorkerPool, peak_memory, reset_peak_memory
from .study_folder import StudyFolder, notice

COLUMNS = ["problem", "kind", "size", "solver", "repetition", "budget", "tol", "max_iter", "status",
           "reason", "solved", "objective", "certificate", "certified", "certificate_parts", "error_to_reference",
           "compile_time", "solve_time", "time", "iterations", "peak_memory", "options", "claim",
           "claim_confirmed", "warmup_time", "key", "provenance"]
KEY_COLUMNS = ("key", "provenance")  # what determines a row (fsopt.tools.bench_keys)
DEFAULT, TOL, MAX_ITER = "default", "tol", "max_iter"
DEFAULT_TOLERANCES = {False: [1e-2, 1e-4, 1e-6, 1e-8], True: [1e-2, 1e-4, 1e-6]}  # by quick
# repetitions of the default solve, by quick: a median of 5 was within 2.8 % (typically) and 13 %
# (90th percentile) of the median of 9 on a busy machine, 7 no better (benchmarks/repeat_spread.py)
DEFAULT_REPEAT = {False: 5, True: 1}
MAX_REPEAT = 1000  # repetitions of one solve (each a fresh build, compile and solve)


@dataclass(frozen=True)
class Cell:
    """One process: a solver on one instance, ``repeat`` default solves, then the convergence
    schedule's ``points`` ``((budget, value), ...)``."""

    problem: str
    kind: str
    size: int
    solver: str
    repeat: int = 1
    points: tuple = ()
    pending: tuple | None = None  # the solves still to run (None: all)
    context: bytes = field(default=b"", compare=False, repr=False)  # pickled WorkerContext
    provenance: str = field(default="{}", compare=False, repr=False)  # the cell's part of each row's key

    def provenance_of(self, solve) -> str:
        """The canonical JSON of everything that determines the row of ``solve``."""
        part = json.loads(self.provenance)
        return keys.canonical(keys.provenance(part, self.size, _solve_id(solve)) if part else {})

    def keyed(self, row) -> dict:
        """``row`` with its ``provenance`` and ``key`` (:mod:`fsopt.tools.bench_keys`)."""
        text = self.provenance_of(_solve_key(row))
        return dict(row, provenance=text, key=keys.digest(text.encode()))

    @property
    def key(self):
        return (self.problem, self.kind, int(self.size), self.solver)

    def solves(self):
        """[(repetition, budget, value)] of the study, in the order they run."""
        return [(r, DEFAULT, None) for r in range(self.repeat)] + [(0, b, v) for b, v in self.points]

    def to_run(self):
        """The solves this process runs: ``pending``, or all of them."""
        return self.solves() if self.pending is None else list(self.pending)


@dataclass
class WorkerContext:
    """What a worker process needs that a fresh ``import fsopt`` does not give it: the cell's
    backend (it may have been registered at run time), the generators and hooks registered by
    code, and whether hook files beside problem files may run."""

    backend: object = None
    named: dict = field(default_factory=dict)  # {group: {name: callable}}
    allow_hook_files: bool = False

    def install(self):
        from ..core.solvers import register_backend

        if self.backend is not None:
            register_backend(self.backend)
        for group, state in self.named.items():
            plugins.REGISTRIES[group].install(state)


def _context(solver, allow_hook_files) -> bytes:
    """The pickled :class:`WorkerContext` of a solver's cells; a ValueError saying how to make a
    backend or hook sendable when it cannot be pickled."""
    backend, _ = _backend(solver)
    named = {g: plugins.REGISTRIES[g].state() for g in (plugins.GENERATORS, plugins.BENCH_HOOKS)}
    sent = [(f"backend {backend.name}", backend, type(backend).__module__)]
    sent += [(f"{g.split('.')[-1][:-1].replace('_', ' ')} {n!r}", f, getattr(f, "__module__", ""))
             for g, funcs in named.items() for n, f in funcs.items()]
    for what, obj, module in sent:
        if module == "__main__" and not getattr(sys.modules.get("__main__"), "__file__", None):
            raise ValueError(f"fsopt bench cannot send {what} to its worker processes: it is defined "
                             f"in an interactive session, which they cannot import; define it in a "
                             f"module (or install it as a plugin, entry point {plugins.BACKENDS})")
        try:
            pickle.dumps(obj)
        except Exception as exc:  # noqa: BLE001 - whatever pickling raises, say how to fix it
            raise ValueError(f"fsopt bench cannot send {what} to its worker processes ({type(exc).__name__}: "
                             f"{exc}); define it at the top level of an importable module (or of the "
                             f"script, under an `if __name__ == \"__main__\":` guard) with picklable "
                             f"attributes, or install it as a plugin (entry point {plugins.BACKENDS})") from None
    return pickle.dumps(WorkerContext(backend, named, allow_hook_files))


def _bench_problems(names=None):
    from .problems import problems

    found = {n: p for n, p in problems().items() if "bench" in p.extra}
    if names:
        missing = sorted(set(names) - set(found))
        if missing:
            raise ValueError(f"problem(s) {missing} have no [bench] table; benchable: {sorted(found)}")
        found = {n: found[n] for n in names}
    for problem in found.values():
        _check_bench_table(problem)
    return found


def _check_bench_table(problem):
    """ValueError naming the file and field of a [bench] table that cannot plan a study."""
    bench, where = problem.extra["bench"], f"problem file {problem.path}, [bench]"
    if not isinstance(bench, dict):
        raise ValueError(f"{where} must be a table")
    if "sizes" not in bench:
        raise ValueError(f"{where} has no 'sizes' (a list of positive integers, e.g. sizes = [50, 500])")
    for key in ("sizes", "quick_sizes"):
        sizes = bench.get(key, [1])
        if (not isinstance(sizes, list) or not sizes
                or not all(isinstance(v, Integral) and not isinstance(v, bool) and v > 0 for v in sizes)):
            raise ValueError(f"{where} {key} = {sizes!r}: must be a non-empty list of positive integers")
    for key in ("tolerances", "quick_tolerances"):
        values = bench.get(key, [1.0])
        if not isinstance(values, list) or not all(isinstance(v, Real) and not isinstance(v, bool)
                                                   and 0 < v < math.inf for v in values):
            raise ValueError(f"{where} {key} = {values!r}: must be a list of positive numbers")
    for key in ("iterations", "quick_iterations"):
        values = bench.get(key, [1])
        if not isinstance(values, list) or not all(isinstance(v, Integral) and not isinstance(v, bool)
                                                   and v > 0 for v in values):
            raise ValueError(f"{where} {key} = {values!r}: must be a list of positive integers")
    for key in ("sizes", "quick_sizes", "tolerances", "quick_tolerances", "iterations", "quick_iterations"):
        values = bench.get(key, [])
        if len(set(values)) < len(values):  # each value is a cell: twice would run and count it twice
            raise ValueError(f"{where} {key} = {values!r}: a value is given twice")
    for key in ("size", "reference", "subproblems"):
        if key in bench and not isinstance(bench[key], str):
            raise ValueError(f"{where} {key} = {bench[key]!r}: must be a string")
    knob = bench.get("size", "n_irrelevant")
    for key in ("sizes", "quick_sizes"):  # the largest instance's X fits in memory, before any work
        if key in bench:
            problem.check_size(**{knob: max(bench[key])}, given_by=f"[bench] {key}")


def _instance(problem, size, allow_hook_files=False, digests=False):
    """{kind: Subproblem or builder} of a problem at one size; with ``digests``, also the digest
    of its data ``(X, y)`` and of each kind's instance (class and state), for the rows' keys."""
    bench = problem.extra["bench"]
    X, y = problem.load(**{bench.get("size", "n_irrelevant"): int(size)}, given_by="[bench] sizes")
    entries = _hook(problem, allow_hook_files)(problem, X, y)
    if not digests:
        return entries
    return entries, keys.array_digest(X, y), {kind: {"class": keys.code(entry), "state": keys.digest(keys.state(entry))}
                                              for kind, entry in entries.items()}


def _hook(problem, allow_files=False):
    """The bench hook of a problem: ``[bench] subproblems = "name"`` resolved through the
    registry (:func:`fsopt.core.plugins.named`), else the method's ``bench`` module.  With
    ``allow_files`` (the user's explicit choice), ``"module:function"`` may also load
    ``module.py`` beside the problem file (without touching sys.path)."""
    from ..core.plugins import method_module

    target = problem.extra["bench"].get("subproblems")
    if target is None:
        module = method_module(problem.method, "bench")
        if module is None:
            raise ValueError(f"problem {problem.name} ({problem.path}): method {problem.method!r} has "
                             f"no bench module and [bench] names no 'subproblems' hook")
        return module.subproblems
    name, _, attr = target.partition(":")
    beside = Path(problem.path).parent / f"{name}.py"
    known = target in plugins.registered(plugins.BENCH_HOOKS) or any(
        target in (ep.name, ep.value) for ep in plugins.entry_points(plugins.BENCH_HOOKS))
    if not known and beside.is_file():
        if not allow_files:
            raise ValueError(
                f"problem file {problem.path}, [bench] subproblems = {target!r}: not a registered hook, "
                f"and fsopt does not run {beside} unless you allow it (fsopt bench --allow-hook-files, "
                f"bench.run(allow_hook_files=True)); or register the hook "
                f"(fsopt.core.plugins.register or entry point {plugins.BENCH_HOOKS!r})")
        spec = importlib.util.spec_from_file_location(f"_fsopt_bench_hook_{name}", beside)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not callable(getattr(module, attr, None)):
            raise ValueError(f"problem file {problem.path}, [bench] subproblems = {target!r}: "
                             f"{beside} defines no function {attr!r}")
        return getattr(module, attr)
    return plugins.named(plugins.BENCH_HOOKS, target,
                         f"problem file {problem.path}, [bench] subproblems")


def _backend(name):
    """(Backend, profile options) for a backend or profile name; ValueError listing valid names."""
    from ..core.solvers import backends, profiles

    registry, profs = backends(), profiles()
    if name.upper() in registry:
        return registry[name.upper()], {}
    if name.lower() in profs and profs[name.lower()].backend in registry:
        prof = profs[name.lower()]
        return registry[prof.backend], dict(prof.options)
    raise ValueError(f"unknown solver {name!r}; valid: backends {', '.join(sorted(registry))}; "
                     f"profiles {', '.join(sorted(profs)) or 'none'}")


def _skip_reason(name, subproblem):
    """Why ``name`` cannot run on ``subproblem`` (None when it can)."""
    backend, _ = _backend(name)
    reason = backend.unavailable_reason()
    if reason:
        return f"not available: {reason}"
    if not backend.can_solve(subproblem):
        return f"cannot solve {subproblem.name} (needs {subproblem.cone} cones or a native method for it)"
    return None


def _quick_reason(name):
    """Why ``--quick`` leaves ``name`` out: its profile says ``quick = false`` or its backend
    declares a ``slow_reason`` (None: it runs)."""
    from ..core.solvers import profiles

    backend, _ = _backend(name)
    profile = profiles().get(name.lower()) if name.upper() != backend.name else None
    if profile is not None and not profile.quick:
        return f"left out of --quick: profile {profile.name} says quick = false ({profile.path})"
    if backend.slow_reason:
        return f"left out of --quick: {backend.slow_reason}"
    return None


def _all_solvers():
    from ..core.solvers import backends, profiles

    return sorted(backends()) + sorted(profiles())


def _schedule(bench, quick):
    """The convergence schedule [(budget, value), ...] of a problem's [bench] table."""
    prefix = "quick_" if quick else ""
    tols = bench.get(prefix + "tolerances", bench.get("tolerances", DEFAULT_TOLERANCES[quick]))
    iters = bench.get(prefix + "iterations", bench.get("iterations", []))
    return tuple((TOL, float(t)) for t in tols) + tuple((MAX_ITER, int(n)) for n in iters)


def plan(problem_names=None, solvers=None, quick=False, repeat=1, allow_hook_files=False):
    """The grid: ``(cells to run, skipped rows)`` for each benchable problem, size, subproblem
    kind and solver (every registered backend and profile unless ``solvers`` names some).  Each
    cell carries its part of its rows' keys: the declaration, the digests of the data and the
    instance at its size, the solver's part and the versions (:mod:`fsopt.tools.bench_keys`)."""
    names = list(dict.fromkeys(solvers)) if solvers else _all_solvers()
    for name in names:
        _backend(name)
    cells, skipped, contexts, solver_parts = [], [], {}, {}
    for pname, problem in _bench_problems(problem_names).items():
        bench = problem.extra["bench"]
        sizes = [int(s) for s in bench.get("quick_sizes" if quick else "sizes", bench.get("sizes", []))]
        excluded = set(bench.get("quick_exclude", [])) if quick else set()
        ref = bench.get("reference")
        schedule = _schedule(bench, quick)
        digests = {}
        for size in sorted(set(sizes)):
            entries, data, instances = _instance(problem, size, allow_hook_files, digests=True)
            digests[size] = (data, instances)
            if size == min(sizes):
                smallest = entries
        declared = keys.declaration(problem)
        for kind, entry in smallest.items():
            sp = _materialize(entry)
            for solver in names + ([ref] if ref and ref not in names else []):
                reason = _skip_reason(solver, sp)
                if reason is None and solver in excluded and solver != ref:
                    reason = "excluded by quick_exclude"
                if reason is None and quick and solver != ref:
                    reason = _quick_reason(solver)
                if reason is not None:
                    skipped += [_row(Cell(pname, kind, s, solver), st.SKIPPED, reason=reason) for s in sizes]
                    continue
                if solver not in contexts:
                    contexts[solver] = _context(solver, allow_hook_files)
                    solver_parts[solver] = keys.solver(solver, *_backend(solver))
                backend, fixed = _backend(solver)  # a profile's own tol / max_iter is not scheduled
                points = tuple(p for p in schedule if p[0] not in fixed)
                beyond = tuple(p for p in points if p[0] == TOL and not backend.takes_tol(p[1]))
                points = tuple(p for p in points if p not in beyond)
                skipped += [_row(Cell(pname, kind, s, solver), st.SKIPPED, (0, TOL, value),
                                 reason=f"{solver} takes {backend.tol_range_text()}")
                            for s in sizes for _, value in beyond]
                for s in sizes:
                    part = {"declaration": declared, "data": digests[s][0], "subproblem": digests[s][1][kind],
                            "solver": solver_parts[solver], "versions": keys.versions()}
                    cells.append(Cell(pname, kind, s, solver, repeat, points, context=contexts[solver],
                                      provenance=keys.canonical(part)))
    return cells, skipped


def _materialize(entry):
    from ..core.subproblem import Subproblem

    return entry if isinstance(entry, Subproblem) else entry()


def check_main_guard():
    """ValueError before any work when the main script runs code at import with no
    ``if __name__ == "__main__":`` guard: each worker process imports it again and would run the
    study again instead of its solve."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or multiprocessing.current_process().daemon:
        return
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return
    if not any(isinstance(node, ast.If) and _is_main_test(node.test) for node in tree.body):
        raise ValueError(f"{path} runs fsopt bench without an `if __name__ == \"__main__\":` guard; "
                         f"bench's worker processes import the script again, which would start the "
                         f"study again in each of them: put the call under the guard (keep backend "
                         f"classes and register_backend calls at the top level)")


def _is_main_test(test) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
            and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides))


def prepare_worker():
    """Import once in a worker what its pairs need (cvxpy, the backends and their plugins), so
    that no pair's warm-up pays for it."""
    import cvxpy  # noqa: F401
    from ..core.solvers import backends

    backends()


def _solve_cell(cell: Cell, emit=None, cache=None) -> list[dict]:
    """The rows of one cell: a fresh copy of its instance, one untimed warm-up solve, then its
    solves, each row's ``peak_memory`` the process's peak RSS (MiB) since the cell began; each
    measurement passed to ``emit`` as soon as it is made: ``(WARM_UP, seconds)``, then
    ``(ROW, row, wall seconds of the solve call)``."""
    reset_peak_memory()
    sp, failure = _cell_instance(cell, InstanceCache() if cache is None else cache)
    warmup = _warm_up(sp, cell.solver) if sp is not None else np.nan
    if emit is not None:
        emit((WARM_UP, warmup))
    rows = []
    for solve in cell.to_run():
        started = time.perf_counter()
        row = _solve(sp, cell, solve) if sp is not None else _row(cell, st.ERROR, solve, reason=failure)
        call = time.perf_counter() - started
        row["warmup_time"] = warmup
        row["peak_memory"] = peak_memory()
        rows.append(row)
        if emit is not None:
            emit((ROW, row, call))
    return rows


def _cell_instance(cell, cache):
    """(a fresh subproblem of the cell, None), or (None, why it could not be had)."""
    try:
        context = pickle.loads(cell.context) if cell.context else WorkerContext()
        context.install()
    except Exception as exc:  # noqa: BLE001 - a backend the worker cannot import is a result
        return None, (f"the worker cannot receive the solver's backend or the registered hooks "
                      f"({type(exc).__name__}: {exc}); define them at the top level of an "
                      f"importable module, or install them as a plugin")[:400]
    try:
        return cache.subproblem(cell, context.allow_hook_files), None
    except Exception as exc:  # noqa: BLE001 - a broken instance is a result, not a stop
        return None, f"building the instance failed: {type(exc).__name__}: {exc}"[:300]


class InstanceCache:
    """A worker's last ``size`` instances by (problem, size), each built and checked against its
    planned digests once; every pair gets a fresh copy of its subproblem (a deep copy, or the
    kind's builder called again), so no state passes from one pair's solves to another's."""

    def __init__(self, size=2):
        self.size, self.built = size, {}

    def subproblem(self, cell, allow_hook_files):
        from ..core.subproblem import Subproblem
        from .problems import get_problem

        key = (cell.problem, int(cell.size), allow_hook_files)
        if key not in self.built:
            problem = get_problem(cell.problem)
            entries, data, instances = _instance(problem, cell.size, allow_hook_files, digests=True)
            self.built[key] = (problem, entries, data, instances)
            while len(self.built) > self.size:
                self.built.pop(next(iter(self.built)))
        self.built[key] = self.built.pop(key)  # the most recent last
        problem, entries, data, instances = self.built[key]
        _check_planned(cell, data, instances[cell.kind])
        entry = entries[cell.kind]
        if not isinstance(entry, Subproblem):  # a builder: a new subproblem at each call
            return entry()
        entry.invalidate()
        try:
            return copy.deepcopy(entry)
        except Exception:  # noqa: BLE001 - an instance that cannot be copied is built again
            return _materialize(_instance(problem, cell.size, allow_hook_files)[cell.kind])


def _check_planned(cell, data, instance):
    """ValueError when the instance built in the worker is not the one its rows' keys describe."""
    planned = json.loads(cell.provenance)
    if not planned:
        return
    for what, then, now in (("data", planned["data"], data), ("subproblem instance", planned["subproblem"], instance)):
        if then != now:
            raise ValueError(f"the {what} built for the solves differs from the one planned (digest "
                             f"{keys.digest(then)} planned, {keys.digest(now)} built): the problem's data are "
                             f"not the same at each load (give [data] random_state) or its file changed "
                             f"during the run")


def _warm_up(sp, solver) -> float:
    """Wall time (s) of one untimed solve at the solver's defaults: a pair's first solve also pays
    for the solver package's first use, numba's kernel loading and cvxpy's first canonicalization
    of the instance, which the timed solves after it do not (benchopt warms up each solver the
    same way)."""
    sp.invalidate()
    t0 = time.perf_counter()
    with contextlib.suppress(Exception):  # the timed solves record any failure
        sp.solve(solver, refine=False)
    return time.perf_counter() - t0


def _solve(sp, cell, solve) -> dict:
    """The row of one solve: the solver under study alone, no polish or re-solve
    (:meth:`fsopt.core.subproblem.Subproblem.attempt`: its status map, the NumPy certificate)."""
    _, budget, value = solve
    kwargs = {} if budget == DEFAULT else {budget: value}
    sp.invalidate()  # every solve builds and compiles afresh: comparable times
    record = sp.attempt(cell.solver, **kwargs)
    renamed = record.solver_status if record.solver_status and not record.claim else ""
    return _row(cell, record.status, solve, reason=record.message or renamed,
                objective=np.nan if record.objective is None else record.objective,
                certificate=record.residual, certified=record.certified, claim=record.claim,
                certificate_parts=json.dumps(record.certificate, sort_keys=True, default=float),
                claim_confirmed=record.claim_confirmed,
                compile_time=record.compile_time, solve_time=record.solve_time,
                time=(record.compile_time or 0.0) + record.solve_time, iterations=record.iterations,
                options=json.dumps(record.options, default=str, sort_keys=True))


def _row(cell, status, solve=(0, DEFAULT, None), **values):
    repetition, budget, value = solve
    row = dict.fromkeys(COLUMNS, np.nan)
    row.update(problem=cell.problem, kind=cell.kind, size=int(cell.size), solver=cell.solver,
               repetition=int(repetition), budget=budget, options="", reason="", claim="", certificate_parts="",
               iterations=None, certified=False, claim_confirmed=False, status=st.check_status(status))
    if budget != DEFAULT:
        row[budget] = value
    row.update(values)
    row["solved"] = bool(row["status"] in st.SUCCESS and row["certified"])
    return cell.keyed(row)


def _within(row, timeout) -> dict:
    """``row`` as this run's ``timeout`` would have ended it: a solve logged under a longer limit
    that took longer than this one is a ``timeout`` here (its logged row stays as it is)."""
    if row["status"] == st.TIMEOUT or not (isinstance(row["time"], (int, float)) and row["time"] > timeout):
        return row
    return dict(row, status=st.TIMEOUT, solved=False, certified=False, claim="", claim_confirmed=False,
                objective=None, certificate=None, error_to_reference=None, time=float(timeout),
                reason=f"took {row['time']:.3g} s, logged under a longer --timeout than this run's {timeout:g} s")


def _check_arguments(timeout, repeat, n_jobs, shift):
    if not isinstance(shift, (int, float)) or not math.isfinite(shift) or shift < 0:
        raise ValueError(f"shift must be a finite number of seconds >= 0; got {shift!r}")
    if not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= MAX_REPEAT:
        raise ValueError(f"repeat must be an integer >= 1 (at most {MAX_REPEAT}); got {repeat!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or abs(n_jobs) > MAX_JOBS:
        raise ValueError(f"n_jobs must be a nonzero integer (-1: all cores; at most {MAX_JOBS}); got {n_jobs!r}")


RETRYABLE = st.STATUSES - st.SUCCESS - {st.SKIPPED}


def check_retry(retry) -> frozenset:
    """``retry`` ("timeout,error" or a list of statuses) as a set of retryable statuses."""
    words = retry.split(",") if isinstance(retry, str) else list(retry or ())
    words = {w.strip() for w in words if str(w).strip()}
    bad = sorted(w for w in words if w not in RETRYABLE)
    if bad:
        raise ValueError(f"retry: {', '.join(map(repr, bad))} is not a status to retry; choose among "
                         f"{', '.join(sorted(RETRYABLE))}")
    return frozenset(words)


_TEXT, _NUMBER = ("problem", "kind", "solver", "status", "reason", "options", "claim", "certificate_parts", "key",
                  "provenance"), (
    "objective", "certificate", "error_to_reference", "compile_time", "solve_time", "time", "peak_memory",
    "warmup_time")


def check_row(row) -> dict:
    """A row read back from results.jsonl, checked field by field (types, closed statuses,
    ``solved`` consistent with status and certificate); a ValueError names the first bad field."""
    if isinstance(row, dict) and set(row) < set(COLUMNS) and not set(KEY_COLUMNS) & set(row):
        raise ValueError(f"a row of an earlier fsopt bench, written before rows carried keys ({', '.join(KEY_COLUMNS)}): "
                         f"what produced it cannot be checked, so it is never reused; rerun the study in a new --out "
                         f"(or move this results.jsonl away)")
    if not isinstance(row, dict) or set(row) != set(COLUMNS):
        missing = sorted(set(COLUMNS) - set(row)) if isinstance(row, dict) else COLUMNS
        raise ValueError(f"not a row of {len(COLUMNS)} columns (missing {missing})")
    for key in _TEXT:
        if not isinstance(row[key], str):
            raise ValueError(f"{key} must be a string; got {row[key]!r}")
    for key in ("size", "repetition"):
        if isinstance(row[key], bool) or not isinstance(row[key], int) or row[key] < 0:
            raise ValueError(f"{key} must be an integer >= 0; got {row[key]!r}")
    for key in _NUMBER + ("tol", "max_iter", "iterations"):
        if row[key] is not None and (isinstance(row[key], bool) or not isinstance(row[key], (int, float))):
            raise ValueError(f"{key} must be a number or null; got {row[key]!r}")
    if row["budget"] not in (DEFAULT, TOL, MAX_ITER):
        raise ValueError(f"budget must be {DEFAULT}, {TOL} or {MAX_ITER}; got {row['budget']!r}")
    if row["budget"] != DEFAULT and not (isinstance(row[row["budget"]], (int, float))
                                         and row[row["budget"]] > 0):
        raise ValueError(f"a {row['budget']} row needs a positive {row['budget']}")
    st.check_status(row["status"])
    if keys.digest(row["provenance"].encode()) != row["key"]:
        raise ValueError(f"key {row['key']!r} is not the digest of the row's provenance")
    for key in ("solved", "certified", "claim_confirmed"):
        if not isinstance(row[key], bool):
            raise ValueError(f"{key} must be true or false; got {row[key]!r}")
    if row["solved"] != (row["status"] in st.SUCCESS and row["certified"]):
        raise ValueError(f"solved={row['solved']} contradicts status {row['status']!r} and "
                         f"certified={row['certified']}")
    if row["claim"] and row["claim"] not in st.CLAIMS:
        raise ValueError(f"claim must be empty or one of {sorted(st.CLAIMS)}; got {row['claim']!r}")
    if row["claim_confirmed"] and not row["claim"] or row["claim"] in st.SUCCESS and (
            row["claim_confirmed"] != row["certified"]):
        raise ValueError(f"claim_confirmed={row['claim_confirmed']} contradicts claim {row['claim']!r} "
                         f"and certified={row['certified']}")
    if row["certified"] and not (isinstance(row["certificate"], (int, float)) and math.isfinite(row["certificate"])
                                 and isinstance(row["objective"], (int, float)) and math.isfinite(row["objective"])):
        raise ValueError("a certified row needs a finite objective and certificate")
    return row


def _index(rows) -> dict:
    """{(cell key, solve id): {row key: row}}, the most recent key last; the last row of a solve
    under one key wins (a retry's)."""
    done = {}
    for row in rows:
        logged = done.setdefault((_cell_key(row), _solve_key(row)), {})
        logged.pop(row["key"], None)
        logged[row["key"]] = row
    return done


def read_log(path) -> dict:
    """{cell key: {(repetition, budget, value): row}} of a results.jsonl (the last row of each
    solve, whatever its key), every row validated (read only: a torn last line is left to the next
    run); a ValueError naming the file and line if one is not a row."""
    path = Path(path)
    if not path.exists():
        return {}
    found = {}
    for (cell, solve), logged in _index(_folder(path.parent, {}, log_name=path.name).rows(repair=False)).items():
        found.setdefault(cell, {})[solve] = list(logged.values())[-1]
    return found


def _folder(out, identity, **kwargs) -> StudyFolder:
    """The study folder of a bench run: a solve may be logged again only after a row that a run
    replaces (one with a status to retry, or one its cell's failure left out), never after a
    result that stands."""
    return StudyFolder(out, identity, check_row, key=lambda row: (*_cell_key(row), *_solve_key(row), row["key"]),
                       replaceable=_replaceable, **kwargs)


def _replaceable(row) -> bool:
    return row["status"] in RETRYABLE or (row["status"] == st.SKIPPED and row["reason"].startswith(NOT_RUN))


def _cell_key(row):
    return (row["problem"], row["kind"], int(row["size"]), row["solver"])


def _solve_key(row):
    budget = row["budget"]
    return _solve_id((row["repetition"], budget, None if budget == DEFAULT else row[budget]))


def _solve_id(solve):
    repetition, budget, value = solve
    return (int(repetition), budget, None if value is None else float(value))


def _pending(cell, logged, retry) -> Cell | None:
    """``cell`` restricted to its solves not in the log, or logged with a status in ``retry``
    (then also the solves that failure left out); None when nothing is left."""
    def again(row):
        return row["status"] in retry
    retried = any(again(row) for row in logged.values())
    todo = []
    for solve in cell.solves():
        row = logged.get(_solve_id(solve))
        if (row is None or again(row)
                or (retried and row["status"] == st.SKIPPED and row["reason"].startswith(NOT_RUN))):
            todo.append(solve)
    if not todo:
        return None
    return replace(cell, pending=tuple(todo))


def run(out="bench-results", quick=False, problem_names=None, solvers=None, timeout=300.0,
        n_jobs=1, dask=None, progress=True, repeat=None, shift=10.0, retry=(), allow_hook_files=False,
        command=None):
    """Run (or resume) a study; returns the tidy pandas DataFrame and writes results.csv,
    results.parquet, summary.md, the plots and report.html (:func:`fsopt.tools.bench_report.write`).

    ``repeat``: repetitions of each default solve (None: ``DEFAULT_REPEAT``, 5, or 1 under ``quick``).
    ``retry``: statuses (e.g. ``"timeout,error"``) whose logged solves run again.
    ``allow_hook_files``: let ``[bench] subproblems = "module:function"`` run ``module.py`` beside
    a problem file (code you trust; off by default).  ``progress``: a bar on a terminal, else a
    line every few seconds (:class:`fsopt.core.progress.Progress`).  ``command``: the command
    line shown at the top of summary.md (default: this call).

    Until every solve is logged, summary.md and report.html say "partial: k of n solves" (written
    before the first solve, so a killed run leaves them so); an interrupted run (SIGINT, SIGTERM)
    writes every output of the solves done, marked partial."""
    started = time.perf_counter()
    repeat = DEFAULT_REPEAT[bool(quick)] if repeat is None else repeat
    _check_arguments(timeout, repeat, n_jobs, shift)
    retry = check_retry(retry)
    for name in solvers or []:
        _backend(name)
    bench_problems = _bench_problems(problem_names)
    if dask in (None, "local"):  # worker processes of this machine import the main script again
        check_main_guard()
    command = command or _call(out, quick, problem_names, solvers, timeout, repeat, retry)
    identity = {"study": "fsopt bench", "problems": sorted(problem_names) if problem_names else "all",
                "quick": bool(quick)}
    asked = sorted(set(solvers)) if solvers else "all"
    with contextlib.ExitStack() as stack:
        if dask:  # connected (or a clear error) before the folder is touched
            _dask_client(dask, stack)
        folder = stack.enter_context(_folder(out, identity, grows={"solvers": asked}))
        pool = None if dask else stack.enter_context(WorkerPool(_workers(n_jobs), timeout, JOB)).start()
        logged = _index(folder.rows())
        cells, skipped = plan(problem_names, _registered(folder.grown["solvers"]), quick, repeat, allow_hook_files)
        todo, account = _resume(cells, logged, retry, bench_problems)
        for line in account if progress else ():  # also at the top of summary.md
            print(line, file=sys.stderr)
        study = Study(folder, cells, skipped, logged, command, started, account)
        study.harness["planning"] = time.perf_counter() - started
        stack.enter_context(_signals_as_interrupt())
        try:
            study.solve(todo, pool, timeout, progress)
        except (KeyboardInterrupt, SystemExit):  # what was solved is written, marked partial
            study.logged = _index(folder.rows())  # the log's rows: one appended as the signal came counts
            study.write(bench_problems, timeout, shift)
            raise
        return study.write(bench_problems, timeout, shift)


def _workers(n_jobs) -> int:
    """The worker processes of ``n_jobs`` (-1: one per core, -2: all but one, ...)."""
    import joblib

    return max(1, joblib.effective_n_jobs(n_jobs))


def _call(out, quick, problem_names, solvers, timeout, repeat, retry) -> str:
    """A ``fsopt bench`` command line that runs this study (for summary.md)."""
    import shlex

    words = ["fsopt", "bench", "--out", str(out)] + (["--quick"] if quick else [])
    words += ["--problem", *problem_names] if problem_names else []
    words += ["--solver", *solvers] if solvers else []
    words += ["--timeout", f"{timeout:g}", "--repeat", str(repeat)]
    return shlex.join(words + (["--retry", ",".join(sorted(retry))] if retry else []))


class Study:
    """One run of a study in its folder: the cells planned, the rows logged (by cell key and solve,
    then row key), what this run measured (:attr:`harness`) and its partial marker."""

    def __init__(self, folder, cells, skipped, logged, command, started, account):
        self.folder, self.cells, self.skipped, self.logged = folder, cells, skipped, logged
        self.command, self.account = command, account
        self.total = sum(len(c.solves()) for c in cells)
        self.harness = {"started": started, "workers": 0, "solves": 0, "calls": 0.0, "measured": 0.0,
                        "warmups": 0.0, "planning": 0.0, "solving": 0.0}
        self.marked = None

    def done(self) -> int:
        """Solves of the study logged under their current key (a skipped one too: its row is)."""
        return sum(1 for c in self.cells for solve in c.solves() if self._row(c, solve) is not None)

    def _row(self, cell, solve):
        return self.logged.get((cell.key, _solve_id(solve)), {}).get(keys.digest(cell.provenance_of(solve).encode()))

    def mark_partial(self, done):
        """summary.md and report.html say "partial: done of total" (rewritten when done changed)."""
        from .bench_report import write_partial

        if done != self.marked:
            write_partial(self.folder, done, self.total, self.command)
            self.marked = done

    def solve(self, todo, pool, timeout, progress):
        """Run the ``todo`` cells on ``pool`` (a started :class:`fsopt.tools.bench_pool.WorkerPool`;
        None: on the dask cluster of the joblib configuration), logging each cell's rows when it
        ends; progress on stderr."""
        from ..core.progress import LINE_EVERY, Progress

        self.mark_partial(self.done())
        last = [time.perf_counter()]

        def tick():
            bar.tick()
            if time.perf_counter() - last[0] >= LINE_EVERY:
                last[0] = time.perf_counter()
                self.mark_partial(self.done())

        began = time.perf_counter()
        with Progress(sum(len(c.to_run()) for c in todo), "fsopt bench", enabled=progress) as bar:
            for event in self._events(todo, pool, timeout, tick):
                bar.update(event.finished)
                self.harness["calls"] += event.call_seconds
                self.harness["warmups"] += event.warmup_seconds
                if event.rows is not None:
                    self.folder.append(event.rows, default=_json_default)
                    self._log(event.rows)
                self.harness["solving"] = time.perf_counter() - began

    def _log(self, rows):
        ran = [row for row in rows if row["status"] != st.SKIPPED]
        self.harness["solves"] += len(ran)
        self.harness["measured"] += float(np.nansum(np.asarray([row["time"] for row in ran], dtype=float)))
        for row in rows:
            self.logged.setdefault((_cell_key(row), _solve_key(row)), {})[row["key"]] = row

    def _events(self, todo, pool, timeout, tick):
        """The pool's events (:class:`fsopt.tools.bench_pool.Event`), or one per cell on dask."""
        import joblib

        from .bench_pool import Event

        if pool is not None:
            self.harness["workers"] = pool.size
            yield from pool.run(sorted(todo, key=lambda c: (c.problem, c.size)), tick)  # an instance's pairs together
            pool.close()
            return
        with joblib.parallel_config(backend="dask"):
            parallel = joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
            for rows in parallel(joblib.delayed(run_cell)(c, timeout) for c in todo):
                yield Event(None, finished=len(rows), rows=rows, warmup_seconds=float(np.nan_to_num(
                    rows[0]["warmup_time"])), call_seconds=sum(np.nan_to_num(r["time"]) for r in rows))
                tick()

    def write(self, bench_problems, timeout, shift):
        """The frame of the rows logged (every solve of the study, or those done so far, marked
        partial) with the reference errors; every output written.  Returns the frame."""
        import pandas as pd

        from .bench_report import write

        rows = [_within(row, timeout) for c in self.cells for solve in c.solves()
                if (row := self._row(c, solve)) is not None]
        frame = pd.DataFrame(rows + self.skipped, columns=COLUMNS)
        numbers = [*_NUMBER, "tol", "max_iter"]  # float even where a partial study has only nulls
        frame[numbers] = frame[numbers].astype(float)
        frame = add_reference_error(frame, bench_problems)
        frame = frame.sort_values(["problem", "kind", "size", "solver", "repetition", "budget", "tol",
                                   "max_iter"]).reset_index(drop=True)
        done = len(rows)
        frame.attrs.update(run=self.account, command=self.command, harness=dict(self.harness),
                           partial=(done, self.total) if done < self.total else None)
        write(frame, self.folder, time_limit=timeout, shift=shift)
        return frame


@contextlib.contextmanager
def _signals_as_interrupt():
    """SIGTERM raises SystemExit(143) in the main thread while the study runs (as SIGINT raises
    KeyboardInterrupt), so that the workers are stopped and what was solved is written."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def terminate(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _registered(solvers):
    """The study's solvers (None: all) less those not registered in this run (a backend an
    earlier run's script registered), with a notice."""
    if solvers == "all":
        return None
    known = []
    for name in solvers:
        try:
            _backend(name)
            known.append(name)
        except ValueError:
            notice(f"solver {name!r} of this study's earlier runs is not registered now: its rows are left out")
    return known


def _resume(cells, logged, retry, bench_problems):
    """(the cells with solves to run, the lines saying what is reused and what runs).  A logged
    row is reused only under the key its solve has now; a solve logged under another key only is
    re-solved, the difference said in words (:func:`fsopt.tools.bench_keys.explain`)."""
    todo, stale, counts = [], {}, {"solves": 0, "reused": 0, "new": 0, "retried": 0}
    for cell in cells:
        matching, changed = {}, set()
        for solve in cell.solves():
            sid, text = _solve_id(solve), cell.provenance_of(solve)
            rows = logged.get((cell.key, sid), {})
            key = keys.digest(text.encode())
            if key in rows:
                matching[sid] = rows[key]
            elif rows:
                changed.add(sid)
                why = keys.explain(json.loads(text), json.loads(list(rows.values())[-1]["provenance"]),
                                   f"problem file {bench_problems[cell.problem].path}")
                stale[why] = stale.get(why, 0) + 1
        pending = _pending(cell, matching, retry)
        runs = [] if pending is None else [_solve_id(solve) for solve in pending.to_run()]
        counts["solves"] += len(cell.solves())
        counts["retried"] += sum(sid in matching for sid in runs)
        counts["new"] += sum(sid not in matching and sid not in changed for sid in runs)
        counts["reused"] += len(cell.solves()) - len(runs)
        if pending is not None:
            todo.append(pending)
    lines = [f"fsopt bench: {counts['solves']} solves in this study: {counts['reused']} reused from the log "
             f"(their keys match), {counts['new']} new, {sum(stale.values())} re-solved because what "
             f"determines them changed, {counts['retried']} retried (--retry)"]
    lines += [f"  re-solved {n}: {why}" for why, n in sorted(stale.items(), key=lambda item: -item[1])]
    return todo, lines


def add_reference_error(frame, bench_problems):
    """error_to_reference = |f − f_ref| / max(1, |f_ref|), f_ref the median objective of the
    reference solver's certified default solves on the same instance."""
    frame = frame.copy()
    frame["error_to_reference"] = np.nan
    for name, problem in bench_problems.items():
        ref = problem.extra["bench"].get("reference")
        sel = frame["problem"] == name
        for _, group in frame[sel].groupby(["kind", "size"]):
            f_ref = group.loc[(group["solver"] == ref) & (group["budget"] == DEFAULT) & group["solved"],
                              "objective"].median()
            if np.isfinite(f_ref):
                err = (group["objective"] - f_ref).abs() / max(1.0, abs(f_ref))
                frame.loc[group.index, "error_to_reference"] = err
    return frame


def _dask_client(address, stack):
    """A dask.distributed Client (and a local cluster for ``"local"``) closed by ``stack``, even
    on failure; dask's global configuration is left as it was."""
    from dask.distributed import Client, LocalCluster

    if address == "local":
        import dask

        with dask.config.set({"distributed.worker.daemon": False}):  # workers may fork solves
            cluster = stack.enter_context(LocalCluster(n_workers=2, threads_per_worker=1,
                                                       processes=True, dashboard_address=None))
        return stack.enter_context(Client(cluster))
    try:
        client = Client(address, timeout=f"{DASK_CONNECT_TIMEOUT}s")
    except (OSError, TimeoutError) as exc:
        raise ValueError(f"--dask {address}: no dask scheduler answered within {DASK_CONNECT_TIMEOUT} s "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}); "
                         f"start one (dask scheduler) or use --dask local") from None
    return stack.enter_context(client)


DASK_CONNECT_TIMEOUT = 5


def _json_default(value):
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return str(value)



JOB = Job(prepare=prepare_worker, cache=InstanceCache, solve=_solve_cell, row=_row)  # a worker's


def run_cell(cell, timeout: float) -> list[dict]:
    """The rows of one cell in a worker of its own (in this process where no child may be
    started, e.g. a daemonic dask worker)."""
    if multiprocessing.current_process().daemon:
        return _solve_cell(cell)
    with WorkerPool(1, timeout, JOB) as pool:
        return next(e.rows for e in pool.run([cell]) if e.rows is not None)

__all__ = ["COLUMNS", "Cell", "WorkerContext", "check_main_guard", "check_retry", "check_row", "plan",
           "read_log", "run", "run_cell"]
