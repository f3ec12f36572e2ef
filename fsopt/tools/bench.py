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
table names another hook, ``subproblems = "module:function"``: an importable module, or a file
``module.py`` beside the problem file).  A hook may give a zero-argument callable instead of a
Subproblem for a kind that is expensive to build; it is called only for the cells of that kind.

Every installed backend and profile that can solve a kind is run on it, ``repeat`` times (the
``repetition`` column), then along the convergence schedule (``budget`` = ``tol`` or
``max_iter``; the study's point is ``budget`` = ``default``), every solve built and compiled afresh,
all of one (solver, instance) pair in one fresh process (a per-solve timeout, that process's peak
memory).  Every (solver, instance) pair left
out gets a row with status ``skipped`` and the ``reason``.  Statuses come from
:mod:`fsopt.core.status`; a solve is *solved* only when its NumPy certificate holds.  Cells already in
``results.jsonl`` are not rerun.  Summary, plots and report: :mod:`fsopt.tools.bench_report`.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import math
import multiprocessing
import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core import status as st

COLUMNS = ["problem", "kind", "size", "solver", "repetition", "budget", "tol", "max_iter", "status",
           "reason", "solved", "objective", "certificate", "certified", "error_to_reference",
           "compile_time", "solve_time", "time", "iterations", "peak_memory", "options"]
DEFAULT, TOL, MAX_ITER = "default", "tol", "max_iter"
DEFAULT_TOLERANCES = {False: [1e-2, 1e-4, 1e-6, 1e-8], True: [1e-2, 1e-4, 1e-6]}  # by quick


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

    @property
    def key(self):
        return (self.problem, self.kind, int(self.size), self.solver)

    def solves(self):
        """[(repetition, budget, value)] in the order they run."""
        return [(r, DEFAULT, None) for r in range(self.repeat)] + [(0, b, v) for b, v in self.points]


def _bench_problems(names=None):
    from .problems import problems

    found = {n: p for n, p in problems().items() if "bench" in p.extra}
    if names:
        missing = sorted(set(names) - set(found))
        if missing:
            raise ValueError(f"problem(s) {missing} have no [bench] table; benchable: {sorted(found)}")
        found = {n: found[n] for n in names}
    return found


def _instance(problem, size):
    bench = problem.extra["bench"]
    X, y = problem.load(**{bench.get("size", "n_irrelevant"): int(size)})
    return _hook(problem)(problem, X, y)


def _hook(problem):
    """``[bench] subproblems = "module:function"`` (an importable module, else ``module.py``
    beside the problem file, loaded without touching sys.path), else the method's ``bench``."""
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
    if beside.exists() and not _importable(name):
        spec = importlib.util.spec_from_file_location(f"_fsopt_bench_hook_{name}", beside)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(name)
    return getattr(module, attr)


def _importable(name) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


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


def _all_solvers():
    from ..core.solvers import backends, profiles

    return sorted(backends()) + sorted(profiles())


def _schedule(bench, quick):
    """The convergence schedule [(budget, value), ...] of a problem's [bench] table."""
    prefix = "quick_" if quick else ""
    tols = bench.get(prefix + "tolerances", bench.get("tolerances", DEFAULT_TOLERANCES[quick]))
    iters = bench.get(prefix + "iterations", bench.get("iterations", []))
    return tuple((TOL, float(t)) for t in tols) + tuple((MAX_ITER, int(n)) for n in iters)


def plan(problem_names=None, solvers=None, quick=False, repeat=1):
    """The grid: ``(cells to run, skipped rows)`` for each benchable problem, size, subproblem
    kind and solver (every registered backend and profile unless ``solvers`` names some)."""
    names = list(dict.fromkeys(solvers)) if solvers else _all_solvers()
    for name in names:
        _backend(name)
    cells, skipped = [], []
    for pname, problem in _bench_problems(problem_names).items():
        bench = problem.extra["bench"]
        sizes = [int(s) for s in bench.get("quick_sizes" if quick else "sizes", bench.get("sizes", []))]
        excluded = set(bench.get("quick_exclude", [])) if quick else set()
        ref = bench.get("reference")
        schedule = _schedule(bench, quick)
        for kind, entry in _instance(problem, min(sizes)).items():
            sp = _materialize(entry)
            for solver in names + ([ref] if ref and ref not in names else []):
                reason = _skip_reason(solver, sp)
                if reason is None and solver in excluded and solver != ref:
                    reason = "excluded by quick_exclude"
                if reason is not None:
                    skipped += [_row(Cell(pname, kind, s, solver), st.SKIPPED, reason=reason) for s in sizes]
                    continue
                fixed = _backend(solver)[1]  # a profile's own tol / max_iter is not scheduled
                points = tuple(p for p in schedule if p[0] not in fixed)
                cells += [Cell(pname, kind, s, solver, repeat, points) for s in sizes]
    return cells, skipped


def _materialize(entry):
    from ..core.subproblem import Subproblem

    return entry if isinstance(entry, Subproblem) else entry()


def run_cell(cell: Cell, timeout: float) -> list[dict]:
    """Solve one cell (its repetitions, then its schedule) in a fresh child process; a solve
    that exceeds ``timeout`` seconds kills it and is recorded as such, the solves after it as
    skipped.

    Children come from a fork server (fork-safe even after numba or BLAS started threads), so
    each cell's peak memory is its own process's.
    """
    if multiprocessing.current_process().daemon:  # e.g. a daemonic dask worker: no children
        return _solve_cell(cell)
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["fsopt", "fsopt.tools.bench"])
    receive, send = ctx.Pipe(duplex=False)
    env = {k: v for k, v in os.environ.items() if k.startswith("FSOPT_")}  # the fork server's are stale
    proc = ctx.Process(target=_child, args=(cell, send, env))
    proc.start()
    send.close()
    rows, solves = [], cell.solves()
    t0 = time.perf_counter()
    for solve in solves:
        if not receive.poll(timeout):
            proc.kill()
            rows.append(_row(cell, st.TIMEOUT, solve, reason=f"no result within {timeout:g} s",
                             solve_time=time.perf_counter() - t0, time=timeout))
            break
        try:
            rows.append(receive.recv())
        except EOFError:  # the child died (a solver crash)
            proc.join()
            rows.append(_row(cell, st.ERROR, solve,
                             reason=f"the solver process died (exit code {proc.exitcode})"))
            break
        t0 = time.perf_counter()
    proc.join()
    last = rows[-1]
    rows += [_row(cell, st.SKIPPED, solve, reason=f"not run: the solve before it ({last['budget']}, "
                  f"repetition {last['repetition']}) ended in {last['status']}")
             for solve in solves[len(rows):]]
    return rows


def _child(cell, conn, env):
    for key in [k for k in os.environ if k.startswith("FSOPT_") and k not in env]:
        del os.environ[key]
    os.environ.update(env)
    _solve_cell(cell, conn.send)
    conn.close()


def _solve_cell(cell: Cell, emit=None) -> list[dict]:
    """The rows of one cell, each passed to ``emit`` as soon as it is measured."""
    from .problems import get_problem

    rows = []
    try:
        sp = _materialize(_instance(get_problem(cell.problem), cell.size)[cell.kind])
    except Exception as exc:  # noqa: BLE001 - a broken instance is a result, not a stop
        sp, failure = None, f"building the instance failed: {type(exc).__name__}: {exc}"[:300]
    for solve in cell.solves():
        row = _solve(sp, cell, solve) if sp is not None else _row(cell, st.ERROR, solve, reason=failure)
        row["peak_memory"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # MiB
        rows.append(row)
        if emit is not None:
            emit(row)
    return rows


def _solve(sp, cell, solve) -> dict:
    from ..core.exceptions import SolverFailed

    _, budget, value = solve
    kwargs = {} if budget == DEFAULT else {budget: value}
    sp.invalidate()  # every solve builds and compiles afresh: comparable times
    try:
        # the solver under study alone: no polish or re-solve (an uncertified solve becomes a row
        # with status rejected_certificate)
        record = sp.solve(cell.solver, refine=False, **kwargs)
    except SolverFailed as exc:
        if not exc.attempts:
            return _row(cell, _closed_status(exc.status, False), solve, reason=str(exc.status))
        record = exc.attempts[-1]
    except Exception as exc:  # noqa: BLE001 - a crashing solver is a result, not a stop
        return _row(cell, st.ERROR, solve, reason=f"{type(exc).__name__}: {exc}"[:400])
    objective, residual, certified = _certify(sp, record)
    closed = _closed_status(record.status, certified)
    return _row(cell, closed, solve, reason="" if closed == record.status else str(record.status),
                objective=objective, certificate=residual, certified=certified,
                compile_time=record.compile_time, solve_time=record.solve_time,
                time=(record.compile_time or 0.0) + record.solve_time, iterations=record.iterations,
                options=json.dumps(record.options, default=str, sort_keys=True))


def _certify(sp, record):
    """(objective, certificate residual, certified) of a record, computed in NumPy when the
    record does not carry them (a failed attempt)."""
    if not record.solution:
        return np.nan, np.nan, False
    if record.certificate and record.objective is not None:
        return record.objective, record.residual, bool(record.certified)
    residual = float(sp.certificate(record.solution)["residual"])
    bound = sp.certificate_tol * sp.certificate_scale(record.solution)
    return float(sp.objective(record.solution)), residual, bool(residual <= bound)


def _closed_status(raw, certified):
    """The closed-set status of a solver's word: success without a certificate is rejected."""
    raw = str(raw)
    if raw in st.SUCCESS or raw.startswith("optimal"):
        return raw if raw in st.SUCCESS and certified else st.REJECTED_CERTIFICATE
    if raw in st.STATUSES:
        return raw
    if raw.startswith(st.SOLVER_ERROR):
        return st.SOLVER_ERROR
    if "limit" in raw:  # e.g. a native method's iteration_limit
        return st.USER_LIMIT
    return st.ERROR


def _row(cell, status, solve=(0, DEFAULT, None), **values):
    repetition, budget, value = solve
    row = dict.fromkeys(COLUMNS, np.nan)
    row.update(problem=cell.problem, kind=cell.kind, size=int(cell.size), solver=cell.solver,
               repetition=int(repetition), budget=budget, options="", reason="",
               iterations=None, certified=False, status=st.check_status(status))
    if budget != DEFAULT:
        row[budget] = value
    row.update(values)
    row["solved"] = bool(row["status"] in st.SUCCESS and row["certified"])
    return row


def _check_arguments(timeout, repeat, n_jobs, shift):
    if not isinstance(shift, (int, float)) or not math.isfinite(shift) or shift < 0:
        raise ValueError(f"shift must be a finite number of seconds >= 0; got {shift!r}")
    if not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an integer >= 1; got {repeat!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a nonzero integer (-1: all cores); got {n_jobs!r}")


def _prepare_out(out) -> Path:
    """Create ``out`` (a directory) and prove it writable; a clear ValueError otherwise."""
    out = Path(out)
    parent = next((p for p in [out, *out.parents] if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise ValueError(f"--out {out}: {parent} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".fsopt-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"--out {out}: the directory is not writable ({exc.strerror or exc})") from None
    return out


def read_log(path) -> dict:
    """{cell key: {(repetition, budget, tol, max_iter): row}} of a results.jsonl (the last row of
    each solve wins); a ValueError naming the file and line if it is corrupt."""
    done = {}
    if not Path(path).exists():
        return done
    with open(path) as fh:
        for number, line in enumerate(fh, 1):
            try:
                row = json.loads(line)
                st.check_status(row["status"])
                done.setdefault(_cell_key(row), {})[_solve_key(row)] = row
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"results file {path}, line {number}, is not a row of this fsopt "
                                 f"version ({type(exc).__name__}: {exc}); move it away or choose "
                                 f"another --out") from None
    return done


def _cell_key(row):
    return (row["problem"], row["kind"], int(row["size"]), row["solver"])


def _solve_key(row):
    budget = row["budget"]
    return _solve_id((row["repetition"], budget, None if budget == DEFAULT else row[budget]))


def _solve_id(solve):
    repetition, budget, value = solve
    return (int(repetition), budget, None if value is None else float(value))


def _finished(cell, logged) -> bool:
    return all(_solve_id(solve) in logged for solve in cell.solves())


def run(out="bench-results", quick=False, problem_names=None, solvers=None, timeout=300.0,
        n_jobs=1, dask=None, progress=True, repeat=1, shift=10.0):
    """Run (or resume) a study; returns the tidy pandas DataFrame and writes results.csv,
    results.parquet, summary.md, the plots and report.html (:func:`fsopt.tools.bench_report.write`)."""
    import joblib
    import pandas as pd
    from tqdm.auto import tqdm

    from .bench_report import write

    _check_arguments(timeout, repeat, n_jobs, shift)
    for name in solvers or []:
        _backend(name)
    bench_problems = _bench_problems(problem_names)
    out = _prepare_out(out)
    log = out / "results.jsonl"
    done = read_log(log)
    cells, skipped = plan(problem_names, solvers, quick, repeat)
    todo = [c for c in cells if not _finished(c, done.get(c.key, {}))]
    with contextlib.ExitStack() as stack:
        if dask:
            _dask_client(dask, stack)
            stack.enter_context(joblib.parallel_config(backend="dask"))
        parallel = joblib.Parallel(n_jobs=-1 if dask else n_jobs, return_as="generator_unordered")
        results = parallel(joblib.delayed(run_cell)(c, timeout) for c in todo)
        with open(log, "a") as fh:
            for rows in tqdm(results, total=len(todo), desc="bench", disable=not progress):
                for row in rows:
                    fh.write(json.dumps(row, default=_json_default) + "\n")
                    done.setdefault(_cell_key(row), {})[_solve_key(row)] = row
                fh.flush()
    rows = [done[c.key][_solve_id(solve)] for c in cells for solve in c.solves()]
    rows += skipped
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame = add_reference_error(frame, bench_problems)
    frame = frame.sort_values(["problem", "kind", "size", "solver", "repetition", "budget", "tol",
                               "max_iter"]).reset_index(drop=True)
    write(frame, out, time_limit=timeout, shift=shift)
    return frame


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
    return stack.enter_context(Client(address))


def _json_default(value):
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return str(value)


__all__ = ["COLUMNS", "Cell", "plan", "read_log", "run", "run_cell"]
