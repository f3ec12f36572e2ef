"""Checks: a paper's claim measured against an independent reference, registered by the methods
(``fsopt/<method>/checks.py``) and by plugins, run by ``fsopt verify`` (:mod:`fsopt.tools.verify`): the verification harness.

A check takes ``quick`` and, optionally, ``rng`` (``None``: its canonical instances; a Generator:
one random instance drawn from the ranges the check states) and ``solver`` (the backend or profile
under study for its subproblem ``kinds``; ``None``: the default)::

    from fsopt.verify import Margins, check, draws

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

    from fsopt.verify import patch, planted_bug

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
import math
from dataclasses import dataclass, field
from typing import Callable
from unittest import mock

import numpy as np

from .core import solvers
from .core.checks import BUGS, CHECKS, PROBES, Check, PlantedBug, load_path, observe_solves

__all__ = ["Margins", "Outcome", "blind_certificate", "check", "draws", "load_path", "log_uniform", "observe_solves",
           "patch", "planted_bug", "probe", "reference_typical_spread", "wrap_backend"]


@dataclass
class Outcome:
    """What a check returns (:meth:`Margins.outcome` makes one from its conditions).

    Parameters
    ----------
    passed : bool
        Whether the claim held.
    measured : dict
        The measured numbers, by name (shown in the ``fsopt verify`` report).
    detail : str, default=""
        A note on the reference or the instances.
    slack : float, default=nan
        The worst slack, min over conditions of (limit − value)/scale: < 0 failed, nan for a
        check without numeric conditions.
    binding : str, default=""
        The condition that sets the slack (the closest to failing).
    raised : str, default=""
        The exception that ended the check, if one did (e.g. "SolverFailed").

    Examples
    --------
    >>> from fsopt.verify import Outcome
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
    >>> from fsopt.verify import Margins
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
        """The condition ``value ≤ limit``; its slack is (limit − value)/scale.

        Parameters
        ----------
        name : str
            The condition's name (a condition given twice keeps its smallest slack).
        value : float
            The measured value (NaN fails the condition).
        limit : float
            The largest value that passes.
        scale : float or None, default=None
            The unit of the slack; None: ``|limit|``.
        """
        scale = abs(limit) if scale is None else scale
        self._add(name, (limit - value) / (scale or 1.0))

    def at_least(self, name, value, limit, scale=None):
        """The condition ``value ≥ limit``; its slack is (value − limit)/scale.

        Parameters
        ----------
        name : str
            The condition's name (a condition given twice keeps its smallest slack).
        value : float
            The measured value (NaN fails the condition).
        limit : float
            The smallest value that passes.
        scale : float or None, default=None
            The unit of the slack; None: ``|limit|``.
        """
        self.at_most(name, -value, -limit, scale)  # −value ≤ −limit, the same slack

    def require(self, name, ok):
        """A condition without a magnitude: does not set the slack unless it fails (−inf)."""
        self._add(name, math.inf if ok else -math.inf)

    @property
    def slack(self) -> float:
        return min(self.slacks.values(), default=math.nan)

    def outcome(self, measured=None, detail="") -> Outcome:
        """The check's :class:`Outcome`: passed when every condition holds (and there is one).

        Parameters
        ----------
        measured : dict or None, default=None
            The numbers to report, by name.
        detail : str, default=""
            A note on the reference or the instances.

        Returns
        -------
        outcome : Outcome
        """
        binding = min(self.slacks, key=self.slacks.get) if self.slacks else ""
        return Outcome(bool(self.slacks) and self.slack >= 0, dict(measured or {}), detail, self.slack, binding)


def draws(rng, n, seed):
    """The random generators a check draws its instances from.

    Parameters
    ----------
    rng : numpy.random.Generator or None
        What the check received: None for its canonical instances (``fsopt verify``), or one
        generator (``fsopt verify --instances K`` calls the check K times).
    n : int
        The number of canonical instances.
    seed : int
        The seed of the canonical instances (each check its own).

    Returns
    -------
    generators : list of numpy.random.Generator
        ``n`` generators seeded by ``seed`` when ``rng`` is None, else ``[rng]``.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt.verify import draws
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


def check(name: str, claim: str, kinds=(), reference: str = ""):
    """Decorator: register ``func(quick[, rng][, solver]) -> Outcome`` as the check ``name``.

    ``func`` receives ``quick`` (bool: a smaller run), and, if its signature names them, ``rng``
    (see :func:`draws`) and ``solver`` (the backend or profile under study for its ``kinds``; None:
    the default).  It returns an :class:`Outcome`, usually ``margins.outcome(...)``.

    Parameters
    ----------
    name : str
        The check's name (``fsopt verify NAME`` selects by substring).
    claim : str
        The claim measured, in one line.
    kinds : sequence of str, default=()
        The subproblem names (``Subproblem.name``) the check solves: ``fsopt verify --solver
        S`` runs the check only if S can solve one of them (asked on the instance
        :func:`probe` registered for that name).
    reference : str, default=""
        What independent value the claim is measured against.

    Returns
    -------
    decorator : callable
        Registers the function and returns it unchanged.

    Examples
    --------
    >>> from fsopt.verify import Margins, check
    >>> from fsopt.core.checks import registered_checks
    >>> @check("EXAMPLE sum", "1 + 1 is 2, to 1e-12")
    ... def one_plus_one(quick):
    ...     margins = Margins()
    ...     margins.at_most("error", abs((1 + 1) - 2), 1e-12)
    ...     return margins.outcome({"sum": 1 + 1}, "exact arithmetic")
    >>> registered_checks()["EXAMPLE sum"].call(quick=True).passed
    True
    """
    def register(func):
        CHECKS.register(name, Check(name, claim, func, tuple(kinds), reference))
        return func
    return register


def probe(kind: str, factory: Callable):
    """Register a small instance of the subproblem ``kind``, on which ``fsopt verify --solver S``
    asks ``S.can_solve`` whether S can solve that kind (the checks naming it in ``kinds`` run
    only if it can).

    Parameters
    ----------
    kind : str
        The subproblem's name (``Subproblem.name``), as the checks' ``kinds`` give it.
    factory : callable
        Called with no argument, returns a small instance (with its data: the capability
        asked may read it).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import GarroteLogistic
    >>> from fsopt.verify import probe
    >>> from fsopt.core.checks import probes
    >>> from fsopt.core.solvers import backends
    >>> probe("garrote_logistic", lambda: GarroteLogistic(lam=1.0, Z=np.ones((3, 2))))
    >>> instance = probes()["garrote_logistic"]()
    >>> backends()["LBFGSB"].can_solve(instance), backends()["HIGHS"].can_solve(instance)
    (True, False)
    """
    PROBES.register(kind, factory)


def planted_bug(name: str, catches, description: str = ""):
    """Decorator: register ``func(stack)`` as the planted bug ``name``, which the checks
    ``catches`` must catch (``fsopt verify --mutants``: each must pass on clean code and fail with
    the bug planted, by its own measurement).

    ``func`` receives ``stack``, a :class:`contextlib.ExitStack`, and plants the fault by entering
    context managers on it (:func:`patch`, :func:`wrap_backend`, :func:`blind_certificate`,
    ``unittest.mock.patch``); it returns nothing.  Everything is undone when the stack closes.

    Parameters
    ----------
    name : str
        The bug's name (``fsopt verify --mutants NAME``).
    catches : str or sequence of str
        The names of the checks that must catch it (at least one).
    description : str, default=""
        What is wrong, in one line (default: the function's docstring).

    Returns
    -------
    decorator : callable
        Registers the function and returns it unchanged.

    Examples
    --------
    >>> import math
    >>> from fsopt.verify import patch, planted_bug
    >>> from fsopt.core.checks import planted_bugs
    >>> @planted_bug("sqrt off by one", catches=("EXAMPLE sqrt",), description="sqrt(x) + 1")
    ... def sqrt_off_by_one(stack):
    ...     patch(stack, math, "sqrt", lambda x: x ** 0.5 + 1)
    >>> with planted_bugs()["sqrt off by one"].planted():
    ...     math.sqrt(4.0)
    3.0
    >>> math.sqrt(4.0)
    2.0
    """
    catches = (catches,) if isinstance(catches, str) else tuple(catches)
    if not catches:
        raise ValueError(f"planted bug {name!r}: catches names no check (the checks that must catch it)")

    def register(func):
        BUGS.register(name, PlantedBug(name, catches, description or (func.__doc__ or name).strip(), func))
        return func
    return register


def patch(stack, target, attribute, new):
    """Replace ``target.attribute`` by ``new`` until ``stack`` closes (for a planted bug).

    Parameters
    ----------
    stack : contextlib.ExitStack
        The stack a planted bug receives.
    target : module or class
        What holds the attribute; patch it where the code under test looks it up.
    attribute : str
        The attribute's name.
    new : object
        Its replacement (for a method: a function taking ``self``).

    Examples
    --------
    >>> import contextlib
    >>> from fsopt import NonnegL1
    >>> from fsopt.verify import patch
    >>> with contextlib.ExitStack() as stack:
    ...     patch(stack, NonnegL1, "describe", lambda self: "patched")
    ...     NonnegL1().describe()
    'patched'
    >>> NonnegL1().describe()
    'lam=1'
    """
    stack.enter_context(mock.patch.object(target, attribute, new))


def wrap_backend(stack, name, transform, kind=None):
    """Register, until ``stack`` closes, a backend under ``name`` that runs the real one and then
    changes its answer (for a planted bug).  The stack must restore the registry (a planted bug's
    stack does).

    Parameters
    ----------
    stack : contextlib.ExitStack
        The stack a planted bug receives.
    name : str
        The registered backend to wrap.
    transform : callable
        ``transform(subproblem, solution, status, iterations)`` returns the answer the wrong
        backend gives: ``(solution, status, iterations)``.
    kind : str or None, default=None
        Change only the answers to subproblems of this name (``Subproblem.name``).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import GarroteLogistic
    >>> from fsopt.verify import planted_bug, wrap_backend
    >>> from fsopt.core.checks import planted_bugs
    >>> @planted_bug("LBFGSB shifts w", catches=("EXAMPLE garrote",))
    ... def lbfgsb_shifts_w(stack):
    ...     wrap_backend(stack, "LBFGSB", lambda sub, sol, status, it: ({"w": sol["w"] + 1}, status, it))
    >>> garrote = GarroteLogistic(lam=1.0, Z=np.array([[1.0, -0.5], [0.8, 0.2]]))
    >>> with planted_bugs()["LBFGSB shifts w"].planted():       # the certificate sees it
    ...     garrote.solve("LBFGSB", refine=False)
    Traceback (most recent call last):
    ...
    fsopt.core.exceptions.SolverFailed: garrote_logistic (7), lam=1: solver LBFGSB ended with status 'rejected_certificate', ...
    >>> garrote.solve("LBFGSB").certified
    True
    """
    real = solvers.backends()[name]

    class Wrong(type(real)):
        @functools.wraps(type(real).solve)  # the real one's options (a backend's signature states them)
        def solve(self, subproblem, **options):
            out = real.solve(subproblem, **options)
            return transform(subproblem, *out) if kind in (None, subproblem.name) else out

    solvers.register_backend(Wrong())


def blind_certificate(stack, subproblem_class):
    """Until ``stack`` closes, ``subproblem_class``'s NumPy certificate reports a zero residual: a
    wrong answer then passes the certificate policy, and only a check's own reference can see it
    (for a planted bug, with :func:`wrap_backend`).

    Parameters
    ----------
    stack : contextlib.ExitStack
        The stack a planted bug receives.
    subproblem_class : type
        The :class:`~fsopt.Subproblem` subclass whose certificate goes blind.

    Examples
    --------
    >>> import contextlib
    >>> import numpy as np
    >>> from fsopt import GarroteLogistic
    >>> from fsopt.verify import blind_certificate
    >>> garrote = GarroteLogistic(lam=1.0, Z=np.array([[1.0, -0.5], [0.8, 0.2]]))
    >>> with contextlib.ExitStack() as stack:
    ...     blind_certificate(stack, GarroteLogistic)
    ...     garrote.certificate({"w": np.array([5.0, 5.0])})   # far from the optimum
    {'residual': 0.0}
    """
    patch(stack, subproblem_class, "certificate", lambda self, solution: {"residual": 0.0})
