"""Checks: a paper's claim measured against an independent reference, registered by the methods
(``fsopt/<method>/checks.py``) and by plugins, run by ``fsopt verify`` (:mod:`fsopt.tools.verify`).

A check takes ``quick`` and, optionally, ``rng`` (``None``: its canonical instances; a Generator:
one random instance drawn from the ranges the check states) and ``solver`` (the backend or profile
under study for its subproblem ``kinds``; ``None``: the default)::

    from fsopt import Margins, check, draws

    @check("LOGO Thm 1", "the gradient path from v0 with no zero entry reaches the conic optimum",
           kinds=("garrote_logistic",))
    def theorem1(quick, rng=None, solver=None):
        margins = Margins()
        for g in draws(rng, 3, seed=1):          # canonical instances, or the one rng asks for
            ...                                  # sizes, σ, C, λ drawn from g
            margins.at_most("rel_objective_gap", gap, 1e-6)
        return margins.outcome({"starts": 3}, "reference: Clarabel at tol 1e-10")

Every condition is a :class:`Margins` entry ``value ≤ limit`` (or ``≥``); the *slack* of an outcome is
the smallest ``(limit − value) / scale`` over its conditions: how far the worst one is from failing
(negative: failed).
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Outcome:
    """What a check returns: passed, the measured numbers, a note on the reference, the worst
    slack (nan for a check without numeric conditions) and the condition closest to failing.

    Examples
    --------
    >>> from fsopt import Outcome
    >>> Outcome(True, {"gap": 1e-9}, "Clarabel at tol 1e-10", slack=0.99, binding="gap").passed
    True
    """

    passed: bool
    measured: dict = field(default_factory=dict)
    detail: str = ""
    slack: float = math.nan  # min over conditions of (limit − value)/scale; < 0 failed, nan unknown
    binding: str = ""  # the condition that sets the slack


class Margins:
    """The conditions of one check, each ``value ≤ limit`` or ``value ≥ limit``, and their slack.

    Examples
    --------
    >>> from fsopt import Margins
    >>> margins = Margins()
    >>> margins.at_most("residual", 2e-7, 1e-6)       # slack (1e-6 - 2e-7) / 1e-6 = 0.8
    >>> margins.at_least("recovered", 3, 2)           # slack (3 - 2) / 2 = 0.5
    >>> outcome = margins.outcome({"residual": 2e-7})
    >>> outcome.passed, round(outcome.slack, 3), outcome.binding
    (True, 0.5, 'recovered')
    """

    def __init__(self):
        self.slacks: dict[str, float] = {}

    def _add(self, name, slack):
        slack = -math.inf if slack is None or np.isnan(slack) else float(slack)
        self.slacks[name] = min(self.slacks.get(name, math.inf), slack)

    def at_most(self, name, value, limit, scale=None):
        """``value ≤ limit``; slack (limit − value)/scale, scale = ``|limit|`` by default."""
        scale = abs(limit) if scale is None else scale
        self._add(name, (limit - value) / (scale or 1.0))

    def at_least(self, name, value, limit, scale=None):
        """``value ≥ limit``; slack (value − limit)/scale, scale = ``|limit|`` by default."""
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
    """Instance generators: ``n`` canonical ones (seeded by ``seed``) when rng is None, else [rng].

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import draws
    >>> len(draws(None, 3, seed=7))                    # fsopt verify: 3 canonical instances
    3
    >>> rng = np.random.default_rng(0)
    >>> draws(rng, 3, seed=7) == [rng]                 # fsopt verify --instances K: one per call
    True
    """
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


_CHECKS: dict[str, Check] = {}
_PROBES: dict[str, Callable] = {}


def check(name: str, claim: str, kinds=()):
    """Register ``func(quick[, rng][, solver]) -> Outcome`` as the check ``name``.

    ``kinds`` names the subproblem kinds the check solves (``fsopt verify --solver`` runs a check
    only with a solver that can solve them).

    Examples
    --------
    >>> from fsopt.core.checks import Margins, check, registered_checks
    >>> @check("EXAMPLE sum", "1 + 1 is 2, to 1e-12")
    ... def one_plus_one(quick):
    ...     margins = Margins()
    ...     margins.at_most("error", abs((1 + 1) - 2), 1e-12)
    ...     return margins.outcome({"sum": 1 + 1}, "exact arithmetic")
    >>> registered_checks()["EXAMPLE sum"].call(quick=True).passed
    True
    """
    def register(func):
        _CHECKS[name] = Check(name, claim, func, tuple(kinds))
        return func
    return register


def probe(kind: str, factory: Callable):
    """A small instance of the subproblem ``kind``, to ask a backend whether it can solve it."""
    _PROBES[kind] = factory


def registered_checks() -> dict[str, Check]:
    """The checks registered so far (importing a method's ``checks`` module registers its own)."""
    return dict(_CHECKS)


def probes() -> dict[str, Callable]:
    """{subproblem kind: factory of a small instance}, to ask a backend whether it can solve it."""
    return dict(_PROBES)
