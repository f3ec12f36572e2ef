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

A check proves itself by failing: a *planted bug* is a deliberate fault, planted by patching a
documented function or registering a wrong backend inside a context that restores everything, and
it names the checks that must catch it (the pairing is explicit)::

    from fsopt.core.checks import patch, planted_bug

    @planted_bug("margins ignore w", catches=("MYMETHOD Thm 3",), description="z̄ computed at w = 1")
    def margins_ignore_w(stack):                 # stack: a contextlib.ExitStack, closed on exit
        patch(stack, my_module, "margins", lambda X, y, w: real(X, y, np.ones_like(w)))

Checks and bugs come from the methods (``fsopt/<method>/checks.py`` and ``bugs.py``), from the
``fsopt.checks`` entry points, and from a path (:func:`load_path`: ``fsopt verify --checks PATH``
or ``FSOPT_CHECKS_PATH``).  :func:`observe_solves` (from :mod:`fsopt.core.subproblem`) collects the
records of the solves a check makes, each with the subproblem it solved.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import inspect
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from unittest import mock

import numpy as np

from . import solvers
from .subproblem import observe_solves

__all__ = ["Check", "Margins", "Outcome", "PlantedBug", "blind_certificate", "check", "draws", "load_path", "log_uniform",
           "observe_solves", "patch", "planted_bug", "planted_bugs", "probe", "probes", "reference_typical_spread",
           "registered_checks", "wrap_backend"]


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
    raised: str = ""  # the exception that ended the check, if one did (e.g. "SolverFailed")


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


def reference_typical_spread(X) -> float:
    """The unit of X by its definition (fsopt.core.scaling), for references that must not reuse the
    code's own: over the non-constant columns, the median of (q₃ − q₁)/(2Φ⁻¹(3/4)), the quartiles
    interpolated linearly between the sorted values (rank q·(N − 1)), or of the standard deviation
    where the two quartiles coincide."""
    from scipy.stats import norm

    X = np.asarray(X, dtype=float)
    normal_iqr = 2.0 * float(norm.ppf(0.75))  # interquartile range of N(0, 1)
    spreads = []
    for column in X.T:
        values = np.sort(column)
        if values[0] == values[-1]:
            continue
        quartiles = []
        for q in (0.25, 0.75):
            rank = q * (values.size - 1)
            low = int(math.floor(rank))
            high = min(low + 1, values.size - 1)
            quartiles.append(values[low] + (rank - low) * (values[high] - values[low]))
        q1, q3 = quartiles
        spreads.append((q3 - q1) / normal_iqr if q3 > q1 else float(np.sqrt(np.mean((column - column.mean()) ** 2))))
    return float(np.median(spreads))


@dataclass
class Check:
    name: str
    claim: str
    func: Callable
    kinds: tuple = ()  # subproblem names whose solver ``--solver`` replaces
    reference: str = ""  # the independent value the claim is measured against

    def call(self, quick, rng=None, solver=None) -> Outcome:
        params = inspect.signature(self.func).parameters
        kwargs = {k: v for k, v in (("rng", rng), ("solver", solver)) if k in params}
        return self.func(quick, **kwargs)


_CHECKS: dict[str, Check] = {}
_PROBES: dict[str, Callable] = {}


def check(name: str, claim: str, kinds=(), reference: str = ""):
    """Register ``func(quick[, rng][, solver]) -> Outcome`` as the check ``name``.

    ``kinds`` names the subproblem kinds the check solves (``fsopt verify --solver`` runs a check
    only with a solver that can solve them); ``reference`` says what independent value the claim
    is measured against.

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
        _CHECKS[name] = Check(name, claim, func, tuple(kinds), reference)
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


# --- planted bugs ----------------------------------------------------------------------------------
@dataclass
class PlantedBug:
    """A deliberate fault and the checks that must catch it (explicit pairing, see :func:`planted_bug`)."""

    name: str
    catches: tuple  # names of the checks that must fail under it (and pass on clean code)
    description: str
    plant: Callable  # plant(stack): enters patches on a contextlib.ExitStack

    @contextlib.contextmanager
    def planted(self):
        """The code with this bug planted; the backend registry and every patch restored on exit."""
        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.dict(solvers._BACKENDS))  # wrong backends registered inside
            self.plant(stack)
            yield


_BUGS: dict[str, PlantedBug] = {}


def planted_bug(name: str, catches, description: str = ""):
    """Register ``func(stack)`` as the planted bug ``name``, which the checks ``catches`` must catch.

    ``func`` plants the fault by entering context managers on ``stack`` (``patch``,
    ``wrap_backend``, ``unittest.mock.patch``): everything is undone when the stack closes.
    """
    catches = (catches,) if isinstance(catches, str) else tuple(catches)
    if not catches:
        raise ValueError(f"planted bug {name!r}: catches names no check (the checks that must catch it)")

    def register(func):
        _BUGS[name] = PlantedBug(name, catches, description or (func.__doc__ or name).strip(), func)
        return func
    return register


def planted_bugs() -> dict[str, PlantedBug]:
    """The planted bugs registered so far (importing a method's ``bugs`` module registers its own)."""
    return dict(_BUGS)


def patch(stack, target, attribute, new):
    """Replace ``target.attribute`` by ``new`` until ``stack`` closes."""
    stack.enter_context(mock.patch.object(target, attribute, new))


def wrap_backend(stack, name, transform, kind=None):
    """Register, until ``stack`` closes, a backend under ``name`` that runs the real one and then
    ``transform(subproblem, solution, status, iterations)`` on its answer (only for subproblems
    named ``kind``, when given).  The stack must restore the registry (``PlantedBug.planted`` does)."""
    real = solvers.backends()[name]

    class Wrong(type(real)):
        @functools.wraps(type(real).solve)  # the real one's options (a backend's signature states them)
        def solve(self, subproblem, **options):
            out = real.solve(subproblem, **options)
            return transform(subproblem, *out) if kind in (None, subproblem.name) else out

    solvers.register_backend(Wrong())


def blind_certificate(stack, subproblem_class):
    """Until ``stack`` closes, ``subproblem_class``'s NumPy certificate reports a zero residual: a
    wrong answer then passes the certificate policy, and only a check's own reference can see it."""
    patch(stack, subproblem_class, "certificate", lambda self, solution: {"residual": 0.0})


# --- checks from a path ----------------------------------------------------------------------------
def load_path(path) -> list[str]:
    """Import a ``.py`` file, or every ``*.py`` file of a folder (sorted), so that its ``@check`` and
    ``@planted_bug`` functions register; returns the module names.  A ValueError names a missing
    path or a file that fails to import."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"checks path {str(path)!r} does not exist")
    files = sorted(path.glob("*.py")) if path.is_dir() else [path]
    if path.is_file() and path.suffix != ".py":
        raise ValueError(f"checks path {str(path)!r} is not a .py file or a folder")
    names = []
    for file in files:
        digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:10]
        name = f"fsopt_checks_{file.stem}_{digest}"
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, file)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:  # noqa: BLE001 - a broken user file is named, whatever broke it
                del sys.modules[name]
                raise ValueError(f"checks file {str(file)!r} cannot be imported: "
                                 f"{type(exc).__name__}: {exc}") from exc
        names.append(name)
    return names
