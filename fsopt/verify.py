"""Theorem verification: named checks that measure a paper's claim against an independent reference.

A method registers checks in ``fsopt/<method>/checks.py``::

    from fsopt.verify import Margins, check, draws

    @check("LOGO Thm 1", "the gradient path from v0 with no zero entry reaches the conic optimum",
           kinds=("garrote_logistic",))
    def theorem1(quick, rng=None, solver=None):
        margins = Margins()
        for g in draws(rng, 3, seed=1):          # canonical instances, or the one rng asks for
            ...                                  # sizes, σ, C, λ drawn from g
            margins.at_most("rel_objective_gap", gap, 1e-6)
        return margins.outcome({"starts": 3}, "reference: Clarabel at tol 1e-10")

A check takes ``quick`` and, optionally, ``rng`` (``None``: its canonical instances; a Generator:
one random instance drawn from the ranges the check states) and ``solver`` (the backend or profile
under study for its subproblem ``kinds``; ``None``: the default).  A plain ``func(quick)`` returning
``Outcome(passed, measured, detail)`` is still a valid check.

Every condition is a :class:`Margins` entry ``value ≤ limit`` (or ``≥``); the *slack* of an outcome is
the smallest ``(limit − value) / scale`` over its conditions: how far the worst one is from failing
(negative: failed).  ``fsopt verify --instances K`` reports, per check, the worst slack over K random
instances; ``--solver NAME`` runs the checks whose kinds NAME can solve, with NAME; ``--mutants`` runs
the planted bugs of :mod:`fsopt.verify_mutants` and shows which checks catch them.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from sklearn.exceptions import ConvergenceWarning


@dataclass
class Outcome:
    passed: bool
    measured: dict = field(default_factory=dict)
    detail: str = ""
    slack: float = math.nan  # min over conditions of (limit − value)/scale; < 0 failed, nan unknown
    binding: str = ""  # the condition that sets the slack


class Margins:
    """The conditions of one check, each ``value ≤ limit`` or ``value ≥ limit``, and their slack."""

    def __init__(self):
        self.slacks: dict[str, float] = {}

    def _add(self, name, slack):
        slack = -math.inf if slack is None or np.isnan(slack) else float(slack)
        self.slacks[name] = min(self.slacks.get(name, math.inf), slack)

    def at_most(self, name, value, limit, scale=None):
        """``value ≤ limit``; slack (limit − value)/scale, scale = |limit| by default."""
        scale = abs(limit) if scale is None else scale
        self._add(name, (limit - value) / (scale or 1.0))

    def at_least(self, name, value, limit, scale=None):
        """``value ≥ limit``; slack (value − limit)/scale, scale = |limit| by default."""
        scale = abs(limit) if scale is None else scale
        self._add(name, (value - limit) / (scale or 1.0))

    def require(self, name, ok):
        """A condition without a magnitude: does not set the slack unless it fails (−inf)."""
        self._add(name, math.inf if ok else -math.inf)

    @property
    def slack(self) -> float:
        return min(self.slacks.values(), default=math.nan)

    def outcome(self, measured=None, detail="") -> Outcome:
        binding = min(self.slacks, key=self.slacks.get) if self.slacks else ""
        return Outcome(bool(self.slacks) and self.slack >= 0, dict(measured or {}), detail, self.slack, binding)


def draws(rng, n, seed):
    """Instance generators: ``n`` canonical ones (seeded by ``seed``) when rng is None, else [rng]."""
    if rng is None:
        return [np.random.default_rng([seed, i]) for i in range(n)]
    return [rng]


def log_uniform(g, lo, hi):
    return float(np.exp(g.uniform(np.log(lo), np.log(hi))))


@dataclass
class Check:
    name: str
    claim: str
    func: Callable
    kinds: tuple = ()  # subproblem names whose solver ``--solver`` replaces

    @property
    def method(self) -> str:
        return self.name.split()[0]

    def call(self, quick, rng=None, solver=None) -> Outcome:
        params = inspect.signature(self.func).parameters
        kwargs = {k: v for k, v in (("rng", rng), ("solver", solver)) if k in params}
        return self.func(quick, **kwargs)


@dataclass
class Result:
    check: Check
    outcome: Outcome
    seconds: float
    instances: int = 1
    worst_instance: int | None = None
    solver: str | None = None


_CHECKS: dict[str, Check] = {}
_PROBES: dict[str, Callable] = {}


def check(name: str, claim: str, kinds=()):
    """Register ``func(quick[, rng][, solver]) -> Outcome`` as the check ``name``."""
    def register(func):
        _CHECKS[name] = Check(name, claim, func, tuple(kinds))
        return func
    return register


def probe(kind: str, factory: Callable):
    """A small instance of the subproblem ``kind``, to ask a backend whether it can solve it."""
    _PROBES[kind] = factory


def checks() -> dict[str, Check]:
    """Every registered check: each method's ``checks`` module (fsopt's own and the
    ``fsopt.methods`` plugins'), then the ``fsopt.checks`` entry points."""
    from .plugins import load_checks, method_module, method_packages

    for method in method_packages():
        method_module(method, "checks")
    load_checks()
    return dict(_CHECKS)


def select(names=None, solver=None) -> dict[str, Check]:
    """The checks whose name contains one of ``names`` and, with ``solver``, whose kinds it solves."""
    known = checks()
    if names:
        unknown = [n for n in names if not any(n.lower() in k.lower() for k in known)]
        if unknown:
            raise ValueError(f"no check matches {unknown}; known: {', '.join(known)}")
        known = {k: c for k, c in known.items() if any(n.lower() in k.lower() for n in names)}
    if solver is not None:
        from .solvers import resolve_solver

        backend, _ = resolve_solver(solver)
        known = {k: c for k, c in known.items() if any(backend.can_solve(_PROBES[kind]()) for kind in c.kinds)}
        if not known:
            kinds = sorted(kind for kind, make in _PROBES.items() if backend.can_solve(make()))
            raise ValueError(f"no check exercises a subproblem solver {solver!r} can solve "
                             f"(it solves: {', '.join(kinds) or 'none of ' + ', '.join(sorted(_PROBES))})")
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
            f"({res.seconds:.1f} s)\n       worst slack {_fmt(o.slack)}{where}"
            + (f" on {o.binding}" if o.binding else ""))
    return line + (f"\n       {numbers}" if numbers else "") + (f"\n       {o.detail}" if o.detail else "")


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)
