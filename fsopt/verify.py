"""Theorem verification: named checks that measure a paper's claim and say PASS or FAIL.

A method registers checks in ``fsopt/<method>/checks.py``::

    from fsopt.verify import Outcome, check

    @check("LOGO Thm 1", "the gradient path from v0 with no zero entry reaches the conic optimum")
    def theorem1(quick: bool) -> Outcome:
        ...
        return Outcome(passed, {"max_rel_objective_gap": gap}, "5 random starts")

``fsopt verify [--quick] [NAME ...]`` runs them; ``quick`` keeps every check to a few seconds.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class Outcome:
    passed: bool
    measured: dict = field(default_factory=dict)
    detail: str = ""


@dataclass
class Check:
    name: str
    claim: str
    func: Callable[[bool], Outcome]


@dataclass
class Result:
    check: Check
    outcome: Outcome
    seconds: float


_CHECKS: dict[str, Check] = {}


def check(name: str, claim: str):
    """Register ``func(quick) -> Outcome`` as the check ``name``."""
    def register(func):
        _CHECKS[name] = Check(name, claim, func)
        return func
    return register


def checks() -> dict[str, Check]:
    """Every registered check: each method's ``checks`` module (fsopt's own and the
    ``fsopt.methods`` plugins'), then the ``fsopt.checks`` entry points."""
    from .plugins import load_checks, method_module, method_packages

    for method in method_packages():
        method_module(method, "checks")
    load_checks()
    return dict(_CHECKS)


def run(quick=False, names=None, echo=print) -> list[Result]:
    known = checks()
    if names:
        unknown = [n for n in names if not any(n.lower() in k.lower() for k in known)]
        if unknown:
            raise ValueError(f"no check matches {unknown}; known: {', '.join(known)}")
        known = {k: c for k, c in known.items() if any(n.lower() in k.lower() for n in names)}
    results = []
    for name, chk in known.items():
        t0 = time.perf_counter()
        outcome = chk.func(quick)
        res = Result(chk, outcome, time.perf_counter() - t0)
        results.append(res)
        if echo:
            echo(format_result(res))
    return results


def format_result(res: Result) -> str:
    o = res.outcome
    numbers = ", ".join(f"{k}={_fmt(v)}" for k, v in o.measured.items())
    line = f"[{'PASS' if o.passed else 'FAIL'}] {res.check.name}: {res.check.claim} ({res.seconds:.1f} s)"
    return line + (f"\n       {numbers}" if numbers else "") + (f"\n       {o.detail}" if o.detail else "")


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)
