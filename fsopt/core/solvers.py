"""Solver registry: which backends exist, what each can solve, how common options translate.

A *backend* is a class that declares the cone families it supports (``LP``, ``SOC``, ``EXP``)
and, for native methods, the subproblems it solves directly.  A *profile* (a TOML file in
``solvers/``) is a named backend plus options, e.g. ``clarabel-tight``.  ``resolve_solver``
turns a user's string (backend or profile name) and ``solver_options`` into a
:class:`ResolvedSolver` (name, backend, merged ``solver_options``), raising a ValueError that
lists what is installed when the name is unknown or not installed, and checking the options
before any solve: each backend declares the option names it accepts (``accepted_options``); an
unknown name, a negative tolerance or iteration limit is a ValueError.  An estimator resolves
each of its solvers once per fit and hands the ResolvedSolver down to every solve
(``Subproblem.solve`` accepts it in place of a name and looks nothing up again).

Options keep one name, ``solver_options``, from the estimator to the backend: fsopt's common
``tol``, ``max_iter``, ``verbose`` plus backend-specific names; only ``Backend.translate`` maps
them to the backend's own arguments.  ``tol`` has one meaning per backend, declared in its
``tol_meaning`` (the table in docs/solvers.md); ``default_tol`` is the ``tol`` it uses when none
is given.
"""
from __future__ import annotations

import functools
import importlib
import importlib.resources
import inspect
import math
import os
import threading
from dataclasses import dataclass, field
from numbers import Integral, Real
from pathlib import Path

from . import plugins
from . import status as st
from .registry import Registry
from .limits import check_count, check_real, load_toml
from .parts import UnreadablePart, parts_refusal

LP, SOC, EXP = "LP", "SOC", "EXP"
COMMON_OPTIONS = frozenset({"tol", "max_iter", "verbose"})


class Backend:
    """A solver backend.  Subclasses set the class attributes and ``translate``.

    Examples
    --------
    >>> from fsopt import Backend
    >>> from fsopt.core.solvers import backends
    >>> scs = backends()["SCS"]
    >>> isinstance(scs, Backend), sorted(scs.cones)
    (True, ['EXP', 'LP', 'SOC'])
    >>> scs.translate(tol=1e-6)            # fsopt's common options in SCS's own words
    {'verbose': False, 'eps_abs': 1e-06, 'eps_rel': 1e-06}
    """

    name: str = ""
    cones: frozenset = frozenset()
    package: str = ""  # python module that must import
    description: str = ""
    native = False
    default_tol: float | None = 1e-8  # the tol in effect when none is given (None: exact method)
    tol_meaning: str = ""  # what ``tol`` controls for this backend, in one sentence
    tol_range: tuple = (0.0, math.inf)  # the tol values the solver's parameters take: [low, high]
    status_map: dict = {}  # the backend's own statuses -> fsopt's closed set (fsopt.core.status)
    slow_reason: str = ""  # why ``fsopt bench --quick`` leaves this backend out ("": it runs)

    def installed(self) -> bool:
        return _importable(self.package)

    def unavailable_reason(self) -> str | None:
        if not self.installed():
            return f"python package {self.package!r} is not installed"
        return None

    def can_solve(self, subproblem) -> bool:
        """Whether this backend can solve ``subproblem`` (a cvxpy backend: by its cone class, and
        the parts its generic model and certificate read: :func:`fsopt.core.parts.parts_refusal`).

        Parameters
        ----------
        subproblem : Subproblem
            The subproblem to solve.

        Returns
        -------
        bool
        """
        return subproblem.cone in self.cones and not parts_refusal(subproblem, self)

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        """Map fsopt's common options to this backend's arguments.

        Parameters
        ----------
        tol : float or None, default=None
            The common tolerance (None: the backend's ``default_tol``).
        max_iter : int or None, default=None
            The iteration limit (None: the backend's own).
        verbose : bool, default=False
            Let the solver print its log.
        **extra
            Backend-specific options, passed on under their own names.

        Returns
        -------
        options : dict
            The keyword arguments of the backend's solve call.
        """
        raise NotImplementedError

    def accepted_options(self) -> frozenset:
        """Option names this backend takes besides the common ones."""
        return frozenset()

    def check_options(self, options: dict, what: str = "") -> None:
        """ValueError naming the first option this backend does not accept or a bad common value."""
        accepted = COMMON_OPTIONS | self.accepted_options()
        for key in options:
            if key not in accepted:
                raise ValueError(
                    f"option {key!r} is not accepted by solver {self.name}{what}; accepted: "
                    f"{', '.join(sorted(accepted))}")
        tol, max_iter = options.get("tol"), options.get("max_iter")
        if tol is not None and (isinstance(tol, bool) or not isinstance(tol, Real)
                                or not math.isfinite(tol) or tol <= 0):
            raise ValueError(f"option tol must be a positive finite number; got {tol!r}")
        if tol is not None and not self.takes_tol(tol):
            raise ValueError(f"option tol={tol:g} is outside what {self.name} takes: {self.tol_range_text()}")
        if max_iter is not None and (isinstance(max_iter, bool) or not isinstance(max_iter, Integral)
                                     or max_iter < 1):
            raise ValueError(f"option max_iter must be a positive integer; got {max_iter!r}")


    def takes_tol(self, tol) -> bool:
        low, high = self.tol_range
        return low <= tol <= high

    def tol_range_text(self) -> str:
        low, high = self.tol_range
        return f"tol in [{low:g}, {high:g}] ({self.tol_meaning or 'its tolerance'})"


class NativeBackend(Backend):
    """A method-specific algorithm (no cvxpy) that solves some subproblems directly.

    Subclasses implement ``supports(subproblem)`` and
    ``solve(subproblem, tol, max_iter, verbose, **options) -> (solution, status, iterations)``.
    A subproblem whose loss is not smooth (:func:`fsopt.core.parts.nonsmooth_reason`) is refused
    before ``supports`` is asked, naming smoothness, unless the backend declares
    ``takes_nonsmooth = True`` (its answers are then certified by a duality gap).

    Examples
    --------
    For LOGO's garrote (7), w = 0 is optimal when λ ≥ ½ max_j Σ_n z̄_nj; the subproblem's NumPy
    certificate, not the backend, decides whether the answer is accepted:

    >>> import numpy as np
    >>> from fsopt import GarroteLogistic, NativeBackend, register_backend
    >>> class AllZero(NativeBackend):
    ...     name, description = "ALLZERO", "w = 0 (optimal for a large enough lam)"
    ...     def supports(self, subproblem):
    ...         return isinstance(subproblem, GarroteLogistic)
    ...     def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
    ...         return {"w": np.zeros(subproblem.Z.shape[1])}, "optimal", 0
    >>> _ = register_backend(AllZero())
    >>> GarroteLogistic(lam=10.0, Z=np.array([[1.0, -0.5], [0.8, 0.2]])).solve("ALLZERO").certified
    True
    """

    native = True
    takes_nonsmooth = False  # natives follow gradients: a loss that is not smooth is refused
    # a plugin's native may return any status a solver can give of its solve (fsopt's own declare
    # theirs); fsopt's verdicts (skipped, timeout, error, rejected_certificate) are not a solver's to give
    status_map = {**{status: status for status in st.SOLVER_STATUSES}, **st.ALIASES}

    def can_solve(self, subproblem) -> bool:
        return not parts_refusal(subproblem, self) and self.supports(subproblem)

    def supports(self, subproblem) -> bool:
        """Whether this algorithm solves ``subproblem``; ask for the parts it uses (e.g.
        ``subproblem.smooth`` with ``value`` and ``gradient``) rather than for a class or name.

        Parameters
        ----------
        subproblem : Subproblem
            The subproblem to solve.

        Returns
        -------
        bool
        """
        raise NotImplementedError

    def refusal(self, subproblem) -> str:
        """Why ``supports(subproblem)`` is False, e.g. the part of the subproblem it lacks."""
        return ""

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        return dict(extra, tol=tol, max_iter=max_iter, verbose=bool(verbose))

    def accepted_options(self):
        """The keyword parameters of ``solve`` besides the common ones."""
        params = list(inspect.signature(self.solve).parameters.values())[1:]  # after subproblem
        return frozenset(p.name for p in params if p.kind == p.KEYWORD_ONLY
                         or (p.kind == p.POSITIONAL_OR_KEYWORD)) - COMMON_OPTIONS

    def solve(self, subproblem, **options):
        """Solve ``subproblem``; its NumPy certificate, not this method, decides acceptance.

        Parameters
        ----------
        subproblem : Subproblem
            A subproblem ``supports`` accepted.
        **options
            The common options ``tol``, ``max_iter``, ``verbose``, then the keyword parameters a
            subclass declares in its own signature (those are the options it accepts).

        Returns
        -------
        solution : dict
            The variables by name (e.g. ``{"w": ...}``).
        status : str
            A status of :mod:`fsopt.core.status` ("optimal", "user_limit", ...).
        iterations : int or None
            The iterations taken.
        """
        raise NotImplementedError


BACKEND_REGISTRY = Registry("backends", key=str.upper, loader=lambda registry: load_plugin_backends())


def register_backend(backend: Backend) -> Backend:
    """Add a backend (an instance) to the registry; native methods call this on import.

    A plugin registers its backends through the entry point group ``fsopt.backends`` instead.

    Parameters
    ----------
    backend : Backend
        The backend instance; registered under ``backend.name`` (upper case), replacing any
        backend of that name.

    Returns
    -------
    backend : Backend
        The same instance.

    Examples
    --------
    Clarabel under a second name, with its tolerance always 1e-10:

    >>> from fsopt.core.solvers import backends, register_backend
    >>> class TightClarabel(type(backends()["CLARABEL"])):
    ...     name = "CLARABEL_TIGHT"
    ...     def translate(self, tol=None, max_iter=None, verbose=False, **extra):
    ...         return super().translate(tol=1e-10, max_iter=max_iter, verbose=verbose, **extra)
    >>> register_backend(TightClarabel()).name in backends()
    True
    """
    return BACKEND_REGISTRY.register(backend.name, backend)


def load_plugin_backends():
    """Register every ``fsopt.backends`` entry point, fsopt's own first (its cvxpy backends,
    :mod:`fsopt.core.cvxpy_solvers`, and its native ones, declared there like a plugin's:
    :mod:`fsopt.builtin_plugins`), so that a plugin's backend of the same name replaces fsopt's: a
    Backend subclass (instantiated), an instance, a sequence of those, or a module that registers
    its backends on import; a broken one is a ValueError naming the plugin."""
    for ep in sorted(plugins.entry_points(plugins.BACKENDS), key=lambda ep: plugins.distribution(ep) != "fsopt"):
        _register_plugin(ep, plugins.load(ep))


def _register_plugin(ep, obj):
    if isinstance(obj, (list, tuple)):
        for item in obj:
            _register_plugin(ep, item)
        return
    if isinstance(obj, type) and issubclass(obj, Backend):
        obj = obj()
    if isinstance(obj, Backend):
        if not obj.name:
            raise ValueError(f"fsopt plugin {ep.name!r}: backend {type(obj).__name__} has no name")
        register_backend(obj)
    elif not hasattr(obj, "__path__") and not hasattr(obj, "__file__"):
        raise ValueError(f"fsopt plugin {ep.name!r} = {ep.value!r} (group {plugins.BACKENDS}) is "
                         f"neither a Backend subclass, a Backend instance, a sequence of those nor a module")


def backends() -> dict[str, Backend]:
    """All registered backends (fsopt's and plugins'), installed or not, by upper-case name."""
    return BACKEND_REGISTRY.items()


def installed_backends() -> list[str]:
    return [name for name, b in BACKEND_REGISTRY.items().items() if b.installed()]


@dataclass(frozen=True)
class Profile:
    """A named solver configuration read from a TOML file in ``solvers/``."""

    name: str
    backend: str
    options: dict = field(default_factory=dict)
    description: str = ""
    path: str = ""
    quick: bool = True  # False: ``fsopt bench --quick`` leaves it out


def profile_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("FSOPT_SOLVERS_PATH", "").split(os.pathsep) if p]
    dirs.append(Path(str(importlib.resources.files("fsopt._solvers"))))
    return dirs


_PROFILE_LOCK = threading.Lock()
_PROFILE_CACHE: dict = {}  # ((path, mtime_ns), ...) -> {name: Profile}; one entry, replaced on change


def profiles() -> dict[str, Profile]:
    """Solver profiles from ``solvers/*.toml`` (and ``$FSOPT_SOLVERS_PATH``), by lower-case name.

    Parsed once per set of files (keyed by path and modification time), so calling this on
    every solve only lists the directories."""
    files = tuple((str(path), path.stat().st_mtime_ns)
                  for d in reversed(profile_dirs()) for path in sorted(d.glob("*.toml")))
    with _PROFILE_LOCK:
        if files not in _PROFILE_CACHE:
            _PROFILE_CACHE.clear()
            _PROFILE_CACHE[files] = _read_profiles([Path(p) for p, _ in files])
        return dict(_PROFILE_CACHE[files])


def _read_profiles(paths) -> dict[str, Profile]:
    found = {}
    for path in paths:
        prof = _check_profile(load_toml(path, f"solver profile {path}"), path)
        if prof.name.lower() in found:
            raise ValueError(f"solver profile {path}: name {prof.name!r} is already the profile of "
                             f"{found[prof.name.lower()].path}; give it another name")
        found[prof.name.lower()] = prof
    return found


def _check_profile(spec, path) -> Profile:
    """A Profile from a parsed file, or a ValueError naming the file and the field."""
    where = f"solver profile {path}"
    if "backend" not in spec:
        raise ValueError(f"{where} has no 'backend' entry")
    for key, kind in (("name", str), ("backend", str), ("description", str), ("options", dict),
                      ("quick", bool)):
        if key in spec and not isinstance(spec[key], kind):
            raise ValueError(f"{where}: {key} = {spec[key]!r} must be a "
                             + {dict: "table, e.g. [options] tol = 1e-9", bool: "boolean (true or false)",
                                str: "string"}[kind])
    prof = Profile(name=spec.get("name", path.stem), backend=spec["backend"].upper(),
                   options=dict(spec.get("options", {})), description=spec.get("description", ""),
                   path=str(path), quick=spec.get("quick", True))
    if prof.name.upper() in BACKEND_REGISTRY:
        raise ValueError(f"{where}: name {prof.name!r} is the name of backend {prof.name.upper()}, "
                         f"which always wins; give the profile another name")
    if prof.backend not in BACKEND_REGISTRY:
        raise ValueError(f"{where}: backend = {spec['backend']!r} names an unknown backend "
                         f"{prof.backend!r}; registered: {', '.join(sorted(BACKEND_REGISTRY))}")
    backend = BACKEND_REGISTRY[prof.backend]
    if backend.installed():
        try:
            backend.check_options(prof.options)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{where}, [options]: {exc}") from None
    _check_profile_numbers(prof.options, where)
    return prof


PROFILE_INT_LIMIT = 2**31 - 1  # the largest integer option every backend takes (32-bit C ints)


def _check_profile_numbers(options, where, table="options"):
    """ValueError naming the field of a number a solver cannot take: ``max_iter`` an integer in
    [1, 2³¹ − 1], ``tol`` in (0, 1), a time limit ≥ 0, every number finite, every integer within
    ± (2³¹ − 1); nested tables (e.g. ``[options.highs_options]``) included."""
    for key, value in options.items():
        field = f"{where}, [{table}] {key}"
        if isinstance(value, dict):
            _check_profile_numbers(value, where, f"{table}.{key}")
        elif key == "max_iter":
            if check_count(value, field, minimum=1) > PROFILE_INT_LIMIT:
                raise ValueError(f"{field} = {value}: above {PROFILE_INT_LIMIT}, the largest iteration "
                                 f"limit the solvers take")
        elif key == "tol":
            if not 0 < check_real(value, field) < 1:
                raise ValueError(f"{field} = {value!r}: must be in (0, 1)")
        elif isinstance(value, bool) or not isinstance(value, Real):
            continue
        elif "time" in key.lower():
            check_real(value, f"{field} (a time limit in seconds; omit it for none)", low=0.0)
        elif isinstance(value, Integral) and abs(value) > PROFILE_INT_LIMIT:
            raise ValueError(f"{field} = {value}: outside ± {PROFILE_INT_LIMIT}, the integers the solvers take")
        else:
            check_real(value, field)


@dataclass(frozen=True)
class ResolvedSolver:
    """A solver name resolved once: the name as given (backend or profile), its backend and the
    merged ``solver_options`` (the profile's, then the caller's), already checked.

    Pass it to :meth:`fsopt.core.subproblem.Subproblem.solve` (as ``solver`` or in ``fallback``)
    in place of the name: nothing is looked up again.  Unpacks as ``backend, solver_options``.
    """

    name: str
    backend: Backend
    solver_options: dict = field(default_factory=dict)

    def __iter__(self):
        return iter((self.backend, self.solver_options))

    def for_subproblem(self, subproblem=None, solver_options=None) -> ResolvedSolver:
        """This solver checked against ``subproblem`` (ValueError if the backend cannot solve
        it), with ``solver_options`` added (checked; they override the resolved ones)."""
        _check_capable(self.name, self.backend, subproblem)
        if not solver_options:
            return self
        _check_is_dict(solver_options)
        merged = dict(self.solver_options, **solver_options)
        self.backend.check_options(merged, _context(self.name, self.backend, subproblem))
        return ResolvedSolver(self.name, self.backend, merged)

    def backend_arguments(self) -> dict:
        """The ``solver_options`` in the backend's own names (:meth:`Backend.translate`)."""
        opts = dict(self.solver_options)
        common = {k: opts.pop(k, None) for k in ("tol", "max_iter", "verbose")}
        return self.backend.translate(**common, **opts)


PROBED = "as it stood when the solver was chosen"  # when a capability check runs (its messages)


def resolve_solver(name, subproblem=None, solver_options=None, *, probed=PROBED) -> ResolvedSolver:
    """The :class:`ResolvedSolver` of a backend or profile name; clear errors otherwise.

    ``solver_options`` (the caller's) override the profile's; all are checked against the
    backend's accepted names and ranges here, before any solve, and ``subproblem`` (if given)
    against the backend's capabilities.  ``probed`` says, in the error messages of that check,
    at what point it runs (e.g. on a fresh subproblem that holds no data yet)."""
    if not isinstance(name, str):
        raise TypeError(f"solver must be a string naming a backend or profile; got {type(name).__name__}")
    opts = {}
    key = name.upper()
    if key not in BACKEND_REGISTRY:
        prof = profiles().get(name.lower())
        if prof is None:
            raise ValueError(
                f"unknown solver {name!r}; installed: {', '.join(_usable_for(subproblem))}"
                f" (profiles: {', '.join(sorted(profiles())) or 'none'})"
            )
        key, opts = prof.backend, dict(prof.options)
        if key not in BACKEND_REGISTRY:
            raise ValueError(f"solver profile {prof.name!r} ({prof.path}) names unknown backend {key!r}")
    backend = BACKEND_REGISTRY[key]
    reason = backend.unavailable_reason()
    if reason:
        raise ValueError(
            f"solver {name!r} is not available: {reason}; installed: {', '.join(_usable_for(subproblem))}"
        )
    _check_capable(name, backend, subproblem, probed)
    _check_is_dict(solver_options)
    opts.update(solver_options or {})
    backend.check_options(opts, _context(name, backend, subproblem))
    return ResolvedSolver(name, backend, opts)


# fsopt's own backends, cheapest first: the order ``solver="auto"`` tries them in (exact closed forms
# and native methods before conic interior points; the slow reference GRADIENT last).  Measured on
# one rejected LOGO subproblem (unscaled WDBC, σ = 10; N = 569, J = 30; a loaded 2-core machine):
# PROXGRAD 0.8 s, CLARABEL 1.2 s, ECOS 0.5 s but rejected (residual 8e-4), GRADIENT 38 s, SCS 51 s
# and rejected.  Left out, to be named in ``fallback`` by a user who wants them: SCS (first-order,
# 1e-5 by default: its answers rarely pass a 1e-4 KKT certificate, and a chain that ends in it only
# fails later) and MOSEK (it needs a licence).
ESCALATION_ORDER = ("TOPK", "BOXLP", "HIGHSPY", "LBFGSB", "PROXGRAD", "HIGHS", "CLARABEL", "ECOS", "MKLFAST",
                    "GRADIENT")


def solver_chain(solver, fallback, subproblem, solver_options=None, *, probed=PROBED) -> list[ResolvedSolver]:
    """An estimator's solvers tried in turn on ``subproblem``, resolved once before any work:
    ``solver`` ("auto": :func:`builtin_chain`), then each of ``fallback``."""
    for position, name in enumerate(fallback):
        if not isinstance(name, str):
            raise TypeError(f"fallback must list solver names (strings); entry {position} is "
                            f"{type(name).__name__} {name!r}")
    first = builtin_chain(subproblem, solver_options, probed=probed) if solver == "auto" \
        else [resolve_solver(solver, subproblem, solver_options, probed=probed)]
    return first + [resolve_solver(name, subproblem, solver_options, probed=probed) for name in fallback]


def builtin_chain(subproblem, solver_options=None, *, probed=PROBED) -> list[ResolvedSolver]:
    """fsopt's installed backends able to solve ``subproblem``, cheapest first
    (:data:`ESCALATION_ORDER`), resolved: what ``solver="auto"`` tries in turn.

    Each gets the common options of ``solver_options`` and those of its other options it accepts;
    an option none of them accepts is a ValueError, as for a named solver.

    Parameters
    ----------
    subproblem : Subproblem
        The subproblem (its parts and cone class decide who can solve it).
    solver_options : dict or None, default=None
        The estimator's ``solver_options``.
    probed : str
        When the capability check runs (for its messages).

    Returns
    -------
    chain : list of ResolvedSolver
        At least one; ValueError when no built-in backend can solve ``subproblem``.
    """
    _check_is_dict(solver_options)
    options = dict(solver_options or {})
    capable = [BACKEND_REGISTRY[name] for name in ESCALATION_ORDER
               if name in BACKEND_REGISTRY and not BACKEND_REGISTRY[name].unavailable_reason()
               and _suggestable(BACKEND_REGISTRY[name], subproblem)]
    if not capable:
        usable = _usable_for(subproblem)
        raise ValueError(f"no built-in solver can solve {subproblem.describe()}{_refusals(subproblem)}"
                         + (f"; suitable installed solvers: {', '.join(usable)}: name one as solver="
                            if usable != ["none"] else ""))
    taken = set(COMMON_OPTIONS)
    for backend in capable:
        taken |= backend.accepted_options()
    unknown = sorted(set(options) - taken)
    if unknown:
        raise ValueError(f"option {unknown[0]!r} is not accepted by any solver solver='auto' would try "
                         f"({', '.join(b.name for b in capable)})")
    return [resolve_solver(backend.name, subproblem,
                           {k: v for k, v in options.items()
                            if k in COMMON_OPTIONS or k in backend.accepted_options()}, probed=probed)
            for backend in capable]


def describe_chain(asked, chain) -> str:
    """``asked`` (an estimator's ``solver``) and, when it stands for several solvers, the order
    they are tried in: "auto (LBFGSB > PROXGRAD > ..., each until one is certified)"."""
    chain = list(chain)
    return asked if chain == [asked] else f"{asked} ({' > '.join(chain)}, each until one is certified)"


def _check_capable(name, backend, subproblem, probed=PROBED):
    """ValueError if ``backend`` cannot solve ``subproblem``; TypeError (from the error) if reading
    a part it asks for raised.  A native backend's messages say what it read, and when."""
    if subproblem is None:
        return
    why = (f". {backend.name} read the parts it needs from the {type(subproblem).__name__} {probed}, "
           f"to refuse a solver that cannot take it before any work") if backend.native else ""
    try:
        refused = parts_refusal(subproblem, backend)  # named first: smoothness, the generic methods' parts
        capable = not refused and backend.can_solve(subproblem)  # (also for a can_solve of its own)
    except UnreadablePart as exc:
        raise TypeError(f"solver {name!r}: cannot tell whether it can solve {subproblem.describe()}: "
                        f"{exc}{why}; a part must be readable then (e.g. n_features returning None "
                        f"while there is no data)") from exc
    except (MemoryError, Warning):
        raise
    except Exception:  # noqa: BLE001 - a broken supports(): each solve with it fails, named
        return  # (Subproblem.solve records it and tries the fallback)
    if not capable:
        raise ValueError(
            f"solver {name!r} cannot solve {subproblem.describe()} (needs {subproblem.cone} cones "
            f"or a native method for it{_refusal(backend, subproblem, refused)}); "
            f"suitable installed solvers: {', '.join(_usable_for(subproblem))}{why}"
        )


def _check_is_dict(solver_options):
    if solver_options is not None and not isinstance(solver_options, dict):
        raise TypeError(f"solver_options must be a dict; got {type(solver_options).__name__}")


def _context(name, backend, subproblem) -> str:
    """Where options come from, for their error messages: the profile and the subproblem."""
    what = "" if subproblem is None else f" (for {subproblem.name})"
    return what if name.upper() == backend.name.upper() else f" (profile {name!r}){what}"


def as_resolved(solver, subproblem=None, solver_options=None) -> ResolvedSolver:
    """``solver`` as a :class:`ResolvedSolver`: a name is resolved (:func:`resolve_solver`); a
    ResolvedSolver is only checked against ``subproblem`` and given ``solver_options`` — no
    lookup, so an estimator that resolved its solvers once passes them down at no cost."""
    if isinstance(solver, ResolvedSolver):
        return solver.for_subproblem(subproblem, solver_options)
    return resolve_solver(solver, subproblem, solver_options)


def _refusal(backend, subproblem, refused="") -> str:
    reason = refused or (backend.refusal(subproblem) if backend.native else "")
    return f": {reason}" if reason else ""


def _refusals(subproblem) -> str:
    """Why the installed built-in backends that take ``subproblem``'s form refuse its parts,
    backends grouped by reason (a backend for another form is left out)."""
    by_reason = {}
    for name in ESCALATION_ORDER:
        backend = BACKEND_REGISTRY.get(name)
        if backend is None or backend.unavailable_reason():
            continue
        try:
            reason = parts_refusal(subproblem, backend)
            if not reason or (backend.native and not backend.supports(subproblem)):
                continue
        except (MemoryError, Warning):
            raise
        except Exception:  # noqa: BLE001 - unreadable: _check_capable says so when it is named
            continue
        by_reason.setdefault(reason.replace(name, "it"), []).append(name)
    return "".join(f"; {', '.join(names)}: {reason}" for reason, names in by_reason.items())


def _usable_for(subproblem) -> list[str]:
    """The installed backends to suggest for ``subproblem``; one that cannot tell (a part it reads
    raised: :func:`_check_capable` reports that when it is chosen) is not suggested."""
    names = [n for n in installed_backends() if subproblem is None or _suggestable(BACKEND_REGISTRY[n], subproblem)]
    return names or ["none"]


def _suggestable(backend, subproblem) -> bool:
    try:
        return backend.can_solve(subproblem)
    except (MemoryError, Warning):
        raise
    except Exception:  # noqa: BLE001 - an unreadable part or a broken supports(): not suggested
        return False


@functools.lru_cache(maxsize=1)
def silence_highs_banner() -> None:
    """Spend HiGHS's banner where nobody sees it.

    highspy (1.16) writes "Running HiGHS … THIRD_PARTY_NOTICES.md" to stdout once per process, on
    the first log line of any instance whose ``output_flag`` is on — and ``highspy.Highs()`` logs in
    its constructor, before any option can be set (cvxpy's HIGHS interface and fsopt's HIGHSPY
    alike).  One bare instance with ``log_to_console`` off takes that turn; later instances print
    only what their own ``output_flag`` asks for (a ``verbose`` solve still shows its log).
    """
    if not _importable("highspy"):
        return
    import highspy

    first = highspy._Highs()  # the C++ object: its constructor logs nothing
    first.setOptionValue("log_to_console", False)
    first.setCallback(None, None)  # its first log line: the banner, to no console


def quiet_highs():
    """A ``highspy.Highs`` with its output off, that printed no banner."""
    import highspy

    silence_highs_banner()
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    return highs


@functools.lru_cache(maxsize=None)
def highs_option_names() -> frozenset:
    """HiGHS's documented option names (listed in errors; advanced ones pass ``is_highs_option``)."""
    return frozenset(a for a in dir(quiet_highs().getOptions()) if not a.startswith("_"))


def check_highs_options(options, what):
    """ValueError naming the first key of ``options`` HiGHS does not know."""
    for key in options:
        if not is_highs_option(key):
            raise ValueError(f"{key!r} is not a HiGHS option ({what}); HiGHS options include: "
                             f"{', '.join(sorted(highs_option_names()))}")


@functools.lru_cache(maxsize=None)
def is_highs_option(name: str) -> bool:
    import highspy

    return quiet_highs().getOptionType(name)[0] == highspy.HighsStatus.kOk


@functools.lru_cache(maxsize=None)
def _importable(module: str) -> bool:
    if not module:
        return True
    try:
        importlib.import_module(module)
    except Exception:  # noqa: BLE001 - any import failure means "not installed"
        return False
    return True

