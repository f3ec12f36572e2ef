"""``fsopt verify``: run the registered checks (:mod:`fsopt.core.checks`) and report each one's
worst slack.

``--instances K`` reports, per check, the worst slack over K random instances; ``--solver NAME``
runs the checks whose kinds NAME can solve, with NAME; ``--mutants`` runs the planted bugs and shows
which checks catch them.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..core.checks import Check, Outcome, probes, registered_checks
from ..core.plugins import load_checks, method_module, method_packages
from ..core.solvers import resolve_solver


@dataclass
class Result:
    check: Check
    outcome: Outcome
    seconds: float
    instances: int = 1
    worst_instance: int | None = None
    solver: str | None = None


def checks() -> dict[str, Check]:
    """Every registered check: each method's ``checks`` module (fsopt's own and the
    ``fsopt.methods`` plugins'), then the ``fsopt.checks`` entry points."""
    for method in method_packages():
        method_module(method, "checks")
    load_checks()
    return registered_checks()


def select(names=None, solver=None) -> dict[str, Check]:
    """The checks whose name contains one of ``names`` and, with ``solver``, whose kinds it solves."""
    known = checks()
    if names:
        unknown = [n for n in names if not any(n.lower() in k.lower() for k in known)]
        if unknown:
            raise ValueError(f"no check matches {unknown}; known: {', '.join(known)}")
        known = {k: c for k, c in known.items() if any(n.lower() in k.lower() for n in names)}
    if solver is not None:
        backend, _ = resolve_solver(solver)
        known = {k: c for k, c in known.items() if any(backend.can_solve(probes()[kind]()) for kind in c.kinds)}
        if not known:
            kinds = sorted(kind for kind, make in probes().items() if backend.can_solve(make()))
            raise ValueError(f"no check exercises a subproblem solver {solver!r} can solve "
                             f"(it solves: {', '.join(kinds) or 'none of ' + ', '.join(sorted(probes()))})")
    return known


def run_check(chk: Check, quick=False, instances=None, solver=None, seed=0) -> Result:
    """One check: its canonical instances, or ``instances`` random ones (worst slack kept)."""
    t0 = time.perf_counter()
    if instances is None:
        outcome, worst = _guarded(chk, quick, None, solver), None
        n = 1
    else:
        accepts_rng = "rng" in inspect.signature(chk.func).parameters
        n = int(instances) if accepts_rng else 1
        outcomes = [_guarded(chk, quick, np.random.default_rng([seed, k]) if accepts_rng else None, solver)
                    for k in range(n)]
        worst = min(range(n), key=lambda k: _order(outcomes[k]))
        outcome = outcomes[worst]
        outcome.passed = all(o.passed for o in outcomes)
    return Result(chk, outcome, time.perf_counter() - t0, n, worst, solver)


def _order(o: Outcome):
    return (o.passed, -math.inf if math.isnan(o.slack) else o.slack)


def _guarded(chk, quick, rng, solver) -> Outcome:
    """The check's outcome; an exception inside the check is a failure (slack −inf), not a crash.

    Checks run single-threaded (BLAS and numba): their instances are small, and on a busy machine
    thread start-up dominated (measured: one LOGO statistics call on 80×8 took 0.15 s with the
    default threads under load, under 1 ms with one thread).
    """
    try:
        with warnings.catch_warnings(), _one_thread():
            warnings.simplefilter("ignore")  # a check measures; warnings would repeat its numbers
            # ... but a fit that stopped at max_iter is no fixed point: the check fails (raised)
            # unless it catches the warning itself and reports convergence among its numbers
            warnings.simplefilter("error", ConvergenceWarning)
            return chk.call(quick, rng, solver)
    except Exception as exc:  # noqa: BLE001 - a planted bug may break anything the check calls
        return Outcome(False, {}, f"raised {type(exc).__name__}: {str(exc)[:300]}", -math.inf, "raised")


@contextlib.contextmanager
def _one_thread():
    import numba
    from threadpoolctl import threadpool_limits

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        numba.set_num_threads(before)


def run(quick=False, names=None, echo=print, instances=None, solver=None, seed=0) -> list[Result]:
    results = []
    for chk in select(names, solver).values():
        res = run_check(chk, quick, instances, solver, seed)
        results.append(res)
        if echo:
            echo(format_result(res))
    return results


def format_result(res: Result) -> str:
    o = res.outcome
    numbers = ", ".join(f"{k}={_fmt(v)}" for k, v in o.measured.items())
    where = f" over {res.instances} instances (worst: #{res.worst_instance})" if res.instances > 1 else ""
    with_solver = f" [solver {res.solver}]" if res.solver else ""
    line = (f"[{'PASS' if o.passed else 'FAIL'}] {res.check.name}{with_solver}: {res.check.claim} "
            f"({res.seconds:.1f} s)\n       worst slack {format_slack(o.slack)}{where}"
            + (f" on {o.binding}" if o.binding else ""))
    return line + (f"\n       {numbers}" if numbers else "") + (f"\n       {o.detail}" if o.detail else "")


def format_slack(slack) -> str:
    """The worst slack, or what its absence means (a check without a numeric condition)."""
    if isinstance(slack, float) and math.isnan(slack):
        return "none (this check's conditions are pass/fail, without a numeric margin)"
    return _fmt(slack)


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)
