"""The worker processes of a solver study: each started once, then running (solver, instance)
pairs one after another, every solve under the study's time limit.

A fresh process per pair spent most of a quick study's wall time starting and importing (fsopt,
cvxpy, scikit-learn, the solvers' packages: about 1 s a pair on an idle core, several under
load).  A worker here imports them once (as benchopt keeps its workers) and keeps what makes
one pair's measurements its own (:func:`fsopt.tools.bench._solve_cell`): a fresh copy of the
instance, an untimed warm-up solve, its repetitions, and its peak memory counted from its start
(:func:`reset_peak_memory`).  A solve over the limit, or a worker that dies, ends its pair as
before (``timeout`` / ``error``, the pair's other solves ``skipped``) and the next pair gets a
new worker.

Workers come from a fork server (fork-safe even after numba or BLAS started threads).
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait

from ..core import status as st

READY, WARM_UP, ROW, DONE = "ready", "warm-up", "row", "done"  # a worker's messages
STARTUP_LIMIT = 120.0  # seconds a worker may take to start and import (not counted in any solve)
STOP_LIMIT = 5.0  # seconds a worker asked to stop may take before it is killed
TICK = 1.0  # seconds between two calls of ``tick`` while the workers are busy
NOT_RUN = "not run"  # reason of the solves a pair's failure left out (run again with --retry)


@dataclass
class Event:
    """What a pair's worker reported: ``finished`` solves more (each row's call took
    ``call_seconds`` in all, the warm-up ``warmup_seconds``); ``rows``: all of the pair's rows
    once it ended, else None."""

    cell: object
    finished: int = 0
    rows: list | None = None
    call_seconds: float = 0.0
    warmup_seconds: float = 0.0


@dataclass(frozen=True)
class Job:
    """What a worker runs, given by the study (:data:`fsopt.tools.bench.JOB`): ``prepare()`` once,
    ``cache()`` a store of built instances, ``solve(cell, send, cache)`` each pair, and
    ``row(cell, status, solve, **values)`` the row of a solve that ended in a failure.  Module-level
    functions, so that the job reaches a worker by reference."""

    prepare: object
    cache: object
    solve: object
    row: object


@dataclass
class _Pair:
    """A pair in progress on a worker: its solves, the rows received, the current deadline."""

    cell: object
    solves: list
    deadline: float
    rows: list = field(default_factory=list)
    warmed: bool = False
    since: float = field(default_factory=time.perf_counter)


class _Worker:
    def __init__(self, ctx, job):
        self.conn, child = ctx.Pipe()
        env = {k: v for k, v in os.environ.items() if k.startswith("FSOPT_")}  # the fork server's are stale
        self.process = ctx.Process(target=serve, args=(child, env, job))
        self.process.start()
        child.close()
        self.ready = False

    def kill(self):
        self.process.kill()
        self.process.join()
        self.conn.close()


class WorkerPool:
    """Up to ``size`` worker processes running cells (:class:`fsopt.tools.bench.Cell`), each
    solve within ``timeout`` seconds; a context manager that stops (or kills) every worker."""

    def __init__(self, size: int, timeout: float, job: Job):
        self.size, self.timeout, self.job = int(size), float(timeout), job
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["fsopt", "fsopt.tools.bench"])
        self.idle, self.started = [], 0

    def __enter__(self):
        return self

    def start(self):
        """Start every worker now (they import while the caller plans the study); returns self."""
        while self.started < self.size:
            self.idle.append(self._new_worker())
        return self

    def __exit__(self, *exc):
        self.close(kill=exc[0] is not None)

    def close(self, kill=False):
        """Stop the idle workers (ask, then kill after STOP_LIMIT); ``kill``: at once."""
        for worker in self.idle:
            if not kill:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
                worker.process.join(STOP_LIMIT)
            worker.kill()
        self.idle = []

    def run(self, cells, tick=None):
        """Events (:class:`Event`) of ``cells`` as their workers report them, pairs run in the
        order given; ``tick()`` is called at least every TICK seconds."""
        queue, busy = deque(cells), {}
        try:
            while queue or busy:
                while queue and len(busy) < self.size:
                    worker, cell = self._worker(), queue.popleft()
                    with contextlib.suppress(OSError):  # a worker that died: its pipe says so below
                        worker.conn.send(cell)
                    limit = self.timeout if worker.ready else max(self.timeout, STARTUP_LIMIT)
                    busy[worker] = _Pair(cell, cell.to_run(), time.perf_counter() + limit)
                soonest = min(p.deadline for p in busy.values())
                ready = wait([w.conn for w in busy], timeout=max(0.0, min(TICK, soonest - time.perf_counter())))
                for worker in [w for w in busy if w.conn in ready]:
                    event = self._receive(worker, busy[worker])
                    if event is not None:
                        if event.rows is not None:
                            del busy[worker]
                        yield event
                now = time.perf_counter()
                for worker in [w for w, p in busy.items() if p.deadline < now]:
                    yield self._timed_out(worker, busy.pop(worker))
                if tick is not None:
                    tick()
        finally:
            for worker in busy:
                worker.kill()

    def _worker(self) -> _Worker:
        """An idle worker, or a new one."""
        return self.idle.pop(0) if self.idle else self._new_worker()

    def _new_worker(self) -> _Worker:
        self.started += 1
        return _Worker(self.ctx, self.job)

    def _receive(self, worker, pair) -> Event | None:
        """The event of one message from ``worker`` (None for a message that is no news)."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):  # the worker died: a solver crash, or it could not start
            worker.kill()
            return self._ended(pair, *_death(worker, pair))
        now = time.perf_counter()
        if message[0] == READY:
            worker.ready = True
            pair.deadline, pair.since = now + self.timeout, now
            return None
        pair.deadline, elapsed, pair.since = now + self.timeout, now - pair.since, now
        if message[0] == WARM_UP:
            pair.warmed = True
            return Event(pair.cell, warmup_seconds=message[1])
        if message[0] == ROW:
            pair.rows.append(message[1])
            return Event(pair.cell, finished=1, call_seconds=message[2])
        self.idle.append(worker)  # DONE: ready for the next pair
        return Event(pair.cell, rows=pair.rows)

    def _timed_out(self, worker, pair) -> Event:
        worker.kill()
        if not worker.ready:
            return self._ended(pair, st.ERROR, f"the worker process did not start within "
                                                  f"{STARTUP_LIMIT:g} s")
        reason = f"no result within {self.timeout:g} s" + ("" if pair.warmed else
                                                           " (the untimed warm-up solve before the timed ones)")
        waited = time.perf_counter() - pair.since
        event = self._ended(pair, st.TIMEOUT, reason, solve_time=waited, time=self.timeout)
        event.call_seconds, event.warmup_seconds = (waited, 0.0) if pair.warmed else (0.0, waited)
        return event

    def _ended(self, pair, status, reason, **values) -> Event:
        """The pair ended by a failure: its row for the solve under way, the rest skipped."""
        row = self.job.row
        solves = pair.solves
        solve = solves[len(pair.rows)] if pair.warmed and len(pair.rows) < len(solves) else solves[0]
        rows = pair.rows + [row(pair.cell, status, solve, reason=reason, **values)]
        last = rows[-1]
        rows += [row(pair.cell, st.SKIPPED, s, reason=f"{NOT_RUN}: the solve before it ({last['budget']}, "
                            f"repetition {last['repetition']}) ended in {last['status']}")
                 for s in solves[len(rows):]]
        return Event(pair.cell, finished=len(rows) - len(pair.rows), rows=rows)


def _death(worker, pair):
    code = worker.process.exitcode
    if not worker.ready:
        return st.ERROR, _startup_failure(code)
    return st.ERROR, (f"the solver process died (exit code {code})"
                         + ("" if pair.warmed else " in the untimed warm-up solve"))


def _startup_failure(exitcode) -> str:
    main = getattr(sys.modules.get("__main__"), "__file__", None) or "the main module"
    return (f"the worker process died while starting, before any solve (exit code {exitcode}): it "
            f"imports {main} again, so a script that runs fsopt bench must do so under "
            f"`if __name__ == \"__main__\":`, and every backend and hook it registered must be "
            f"importable there (the worker's traceback is on stderr)")


def serve(conn, env, job):
    """A worker's life: import once, then run each cell received until None (or the pipe closes).
    Ctrl-C reaches the whole process group: the parent stops the workers (no traceback from each)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for key in [k for k in os.environ if k.startswith("FSOPT_") and k not in env]:
        del os.environ[key]
    os.environ.update(env)
    job.prepare()
    conn.send((READY,))
    cache = job.cache()
    while True:
        try:
            cell = conn.recv()
        except (EOFError, OSError):
            break
        if cell is None:
            break
        try:
            job.solve(cell, conn.send, cache)
        except BaseException as exc:  # noqa: BLE001 - a backend's KeyboardInterrupt or SystemExit: the pair's row
            # says the process died; one line here instead of multiprocessing's traceback
            print(f"fsopt bench worker: {cell.solver} raised {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            os._exit(1)
        conn.send((DONE,))


def reset_peak_memory() -> bool:
    """Reset this process's peak resident set size to its current one (Linux ≥ 4.0:
    ``/proc/self/clear_refs``, value 5); False where that cannot be done."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_memory() -> float:
    """This process's peak resident set size (MiB): ``VmHWM`` of /proc/self/status (since the last
    :func:`reset_peak_memory`), else ``getrusage``'s ``ru_maxrss`` (since the process started)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
