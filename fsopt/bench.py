"""Solver comparison studies: problems × solvers × sizes, one tidy row per solve (benchopt-style).

A problem takes part when its TOML file has a ``[bench]`` table::

    [bench]
    size = "n_irrelevant"          # the data knob that "size" sets
    sizes = [50, 500, 5000]
    quick_sizes = [20, 200]        # used by --quick
    reference = "clarabel-tight"   # high-accuracy solver for error_to_reference
    quick_exclude = ["scs-tight"]  # solvers left out under --quick

and its method package has ``bench.subproblems(problem, X, y) -> {kind: Subproblem}`` (or the
table names another hook, ``subproblems = "module:function"``, found beside the problem file).
A hook may give a zero-argument callable instead of a Subproblem for a kind that is expensive to
build; it is called only for the cells of that kind.  Every
installed backend and every profile in ``solvers/`` that can solve a kind is run on it.  Each
solve runs in its own process (a per-solve timeout and the peak memory of that process);
cells already in ``results.jsonl`` are not rerun.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import multiprocessing
import os
import resource
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

COLUMNS = ["problem", "kind", "size", "solver", "options", "status", "objective", "certificate",
           "certified", "error_to_reference", "compile_time", "solve_time", "iterations", "peak_memory"]


@dataclass(frozen=True)
class Cell:
    problem: str
    kind: str
    size: int
    solver: str

    @property
    def key(self):
        return (self.problem, self.kind, int(self.size), self.solver)


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
    """``[bench] subproblems = "module:function"`` (a module beside the problem file is found),
    else ``fsopt.<method>.bench:subproblems``."""
    target = problem.extra["bench"].get("subproblems", f"fsopt.{problem.method}.bench:subproblems")
    module, _, attr = target.partition(":")
    folder = str(Path(problem.path).parent)
    if folder not in sys.path and (Path(folder) / f"{module.split('.')[0]}.py").exists():
        sys.path.append(folder)
    return getattr(importlib.import_module(module), attr)


def _solvers_for(subproblem, solvers=None):
    from .solvers import backends, profiles, resolve_solver

    names = solvers or [n for n, b in backends().items() if b.installed()] + sorted(profiles())
    usable = []
    for name in names:
        try:
            resolve_solver(name, subproblem)
        except ValueError:
            continue
        usable.append(name)
    return usable


def plan(problem_names=None, solvers=None, quick=False) -> list[Cell]:
    """The grid: for each benchable problem, size and subproblem kind, every capable solver."""
    cells = []
    for name, problem in _bench_problems(problem_names).items():
        bench = problem.extra["bench"]
        sizes = bench.get("quick_sizes" if quick else "sizes", bench.get("sizes", []))
        skip = set(bench.get("quick_exclude", [])) if quick else set()
        prototypes = _instance(problem, min(sizes))
        for kind, entry in prototypes.items():
            sp = _materialize(entry)
            for solver in [s for s in _solvers_for(sp, solvers) if s not in skip]:
                cells += [Cell(name, kind, int(s), solver) for s in sizes]
            ref = bench.get("reference")
            if ref and ref not in _solvers_for(sp, solvers):
                cells += [Cell(name, kind, int(s), ref) for s in sizes]
    return cells


def _materialize(entry):
    from .subproblem import Subproblem

    return entry if isinstance(entry, Subproblem) else entry()


def run_cell(cell: Cell, timeout: float) -> dict:
    """Solve one cell in a fresh child process; a timeout kills it and is recorded as such.

    Children come from a fork server (fork-safe even after numba or BLAS started threads), so
    each solve's peak memory is its own.
    """
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["fsopt", "fsopt.bench"])
    if multiprocessing.current_process().daemon:  # e.g. a daemonic dask worker: no children
        return _solve_cell(cell)
    receive, send = ctx.Pipe(duplex=False)
    env = {k: v for k, v in os.environ.items() if k.startswith("FSOPT_")}  # the fork server's are stale
    proc = ctx.Process(target=_child, args=(cell, send, env))
    t0 = time.perf_counter()
    proc.start()
    send.close()
    if receive.poll(timeout):
        try:
            row = receive.recv()
        except EOFError:  # the child died (a solver crash)
            proc.join()
            return _row(cell, status=f"crashed (exit code {proc.exitcode})",
                        solve_time=time.perf_counter() - t0)
        proc.join()
    else:
        proc.kill()
        proc.join()
        row = _row(cell, status="timeout", solve_time=time.perf_counter() - t0)
    return row


def _child(cell, conn, env):
    for key in [k for k in os.environ if k.startswith("FSOPT_") and k not in env]:
        del os.environ[key]
    os.environ.update(env)
    conn.send(_solve_cell(cell))
    conn.close()


def _solve_cell(cell: Cell) -> dict:
    from .exceptions import SolverFailed
    from .problems import get_problem
    from .subproblem import CertificateWarning

    try:
        sp = _materialize(_instance(get_problem(cell.problem), cell.size)[cell.kind])
        with warnings.catch_warnings():  # an uncertified solve is a row with certified=False
            warnings.simplefilter("ignore", CertificateWarning)
            record = sp.solve(cell.solver)
        row = _row(cell, status=record.status, objective=record.objective,
                   certificate=record.residual, certified=record.certified,
                   compile_time=record.compile_time,
                   solve_time=record.solve_time, iterations=record.iterations,
                   options=json.dumps(record.options, default=str, sort_keys=True))
    except SolverFailed as exc:
        last = exc.attempts[-1] if exc.attempts else None
        row = _row(cell, status=exc.status, solve_time=getattr(last, "solve_time", np.nan),
                   compile_time=getattr(last, "compile_time", np.nan),
                   iterations=getattr(last, "iterations", None))
    except Exception as exc:  # noqa: BLE001 - a crashing solver is a result, not a stop
        row = _row(cell, status=f"error: {type(exc).__name__}: {exc}"[:300])
        row["traceback"] = traceback.format_exc(limit=3)
    row["peak_memory"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # MiB
    return row


def _row(cell, **values):
    row = dict.fromkeys(COLUMNS, np.nan)
    row.update(problem=cell.problem, kind=cell.kind, size=int(cell.size), solver=cell.solver,
               options="", iterations=None, certified=False)
    row.update(values)
    return row


def run(out="bench-results", quick=False, problem_names=None, solvers=None, timeout=300.0,
        n_jobs=1, dask=None, progress=True):
    """Run (or resume) a study; returns the tidy pandas DataFrame and writes CSV, Parquet, PNGs."""
    import joblib
    import pandas as pd
    from tqdm.auto import tqdm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "results.jsonl"
    done = {}
    if log.exists():
        for line in log.read_text().splitlines():
            row = json.loads(line)
            done[(row["problem"], row["kind"], int(row["size"]), row["solver"])] = row
    cells = plan(problem_names, solvers, quick)
    todo = [c for c in cells if c.key not in done]
    backend = _dask_backend(dask) if dask else None
    with joblib.parallel_config(backend="dask") if backend else contextlib.nullcontext():
        parallel = joblib.Parallel(n_jobs=n_jobs if not backend else -1, return_as="generator_unordered")
        rows = parallel(joblib.delayed(run_cell)(c, timeout) for c in todo)
        with open(log, "a") as fh:
            for row in tqdm(rows, total=len(todo), desc="bench", disable=not progress):
                fh.write(json.dumps(row, default=_json_default) + "\n")
                fh.flush()
                done[(row["problem"], row["kind"], int(row["size"]), row["solver"])] = row
    keys = {c.key for c in cells}
    frame = pd.DataFrame([r for k, r in done.items() if k in keys])
    frame = add_reference_error(frame, _bench_problems(problem_names))
    frame = frame[COLUMNS].sort_values(["problem", "kind", "size", "solver"]).reset_index(drop=True)
    frame.to_csv(out / "results.csv", index=False)
    frame.to_parquet(out / "results.parquet", index=False)
    plot(frame, out)
    if backend is not None:
        backend.close()
    return frame


def add_reference_error(frame, bench_problems):
    """error_to_reference = |f − f_ref| / max(1, |f_ref|), f_ref the reference solver's objective."""
    frame = frame.copy()
    frame["error_to_reference"] = np.nan
    for name, problem in bench_problems.items():
        ref = problem.extra["bench"].get("reference")
        sel = frame["problem"] == name
        for (kind, size), group in frame[sel].groupby(["kind", "size"]):
            f_ref = group.loc[group["solver"] == ref, "objective"]
            if len(f_ref) and np.isfinite(f_ref.iloc[0]):
                err = (group["objective"] - f_ref.iloc[0]).abs() / max(1.0, abs(f_ref.iloc[0]))
                frame.loc[group.index, "error_to_reference"] = err
    return frame


def summary(frame) -> str:
    """Markdown: solve time (s) per problem/kind/size × solver, with error to reference."""
    lines = []
    for (problem, kind), group in frame.groupby(["problem", "kind"]):
        solvers = sorted(group["solver"].unique())
        lines.append(f"\n**{problem} / {kind}** — solve time s (error to reference; status if not "
                     f"optimal; [uncertified] if the NumPy certificate exceeds its tolerance)\n")
        lines.append("| size | " + " | ".join(solvers) + " |")
        lines.append("|---" * (len(solvers) + 1) + "|")
        for size, rows in group.groupby("size"):
            cells = []
            for s in solvers:
                r = rows[rows["solver"] == s]
                if r.empty:
                    cells.append("")
                    continue
                r = r.iloc[0]
                text = f"{r['solve_time']:.3g}" if np.isfinite(r["solve_time"]) else "—"
                if np.isfinite(r["error_to_reference"]):
                    text += f" ({r['error_to_reference']:.1e})"
                if not str(r["status"]).startswith("optimal"):
                    text += f" [{str(r['status'])[:30]}]"
                elif not r["certified"]:
                    text += " [uncertified]"
                cells.append(text)
            lines.append(f"| {size} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(frame, out):
    """time_vs_size.png (one panel per problem/kind) and error_vs_time.png."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    groups = list(frame.groupby(["problem", "kind"]))
    solvers = sorted(frame["solver"].unique())
    colour = {s: plt.cm.tab20(i % 20) for i, s in enumerate(solvers)}  # one colour per solver
    ncols = min(3, len(groups))
    nrows = -(-len(groups) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5 * ncols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    for ax, ((problem, kind), g) in zip(axes.flat, groups):
        for solver, gs in g.groupby("solver"):
            ok = gs[gs["status"].astype(str).str.startswith("optimal")].sort_values("size")
            ax.loglog(ok["size"], ok["solve_time"], "o-", color=colour[solver], label=solver)
        ax.set(title=f"{problem}: {kind}", xlabel="size", ylabel="solve time (s)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(Path(out) / "time_vs_size.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    for solver, gs in frame.groupby("solver"):
        err = gs["error_to_reference"].clip(lower=1e-16)
        ax.loglog(gs["solve_time"], err, "o", color=colour[solver], label=solver)
    ax.set(xlabel="solve time (s)", ylabel="relative objective error to reference",
           title="error vs time")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(Path(out) / "error_vs_time.png", dpi=110)
    plt.close(fig)


def _dask_backend(address):
    from dask.distributed import Client, LocalCluster

    if address == "local":
        import dask

        dask.config.set({"distributed.worker.daemon": False})
        return Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True))
    return Client(address)


def _json_default(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return str(value)


__all__ = ["Cell", "plan", "run", "run_cell", "summary"]
