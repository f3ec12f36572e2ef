"""Solver registry: which backends exist, what each can solve, how common options translate.

A *backend* is a class that declares the cone families it supports (``LP``, ``SOC``, ``EXP``)
and, for native methods, the subproblems it solves directly.  A *profile* (a TOML file in
``solvers/``) is a named backend plus options, e.g. ``clarabel-tight``.  ``resolve_solver``
turns a user's string (backend or profile name) into ``(backend, options)``, raising a
ValueError that lists what is installed when the name is unknown or not installed.
"""
from __future__ import annotations

import importlib
import importlib.resources
import os
import threading
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

LP, SOC, EXP = "LP", "SOC", "EXP"


class Backend:
    """A solver backend.  Subclasses set the class attributes and ``translate``."""

    name: str = ""
    cones: frozenset = frozenset()
    package: str = ""  # python module that must import
    description: str = ""
    native = False

    def installed(self) -> bool:
        return _importable(self.package)

    def unavailable_reason(self) -> str | None:
        if not self.installed():
            return f"python package {self.package!r} is not installed"
        return None

    def can_solve(self, subproblem) -> bool:
        return subproblem.cone in self.cones

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        """Map fsopt's common options (tol, max_iter, verbose) to this backend's arguments."""
        raise NotImplementedError


class NativeBackend(Backend):
    """A method-specific algorithm (no cvxpy) that solves some subproblems directly.

    Subclasses implement ``supports(subproblem)`` and
    ``solve(subproblem, tol, max_iter, verbose, **options) -> (solution, status, iterations)``.
    """

    native = True

    def can_solve(self, subproblem) -> bool:
        return self.supports(subproblem)

    def supports(self, subproblem) -> bool:
        raise NotImplementedError

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        return dict(extra, tol=tol, max_iter=max_iter, verbose=bool(verbose))

    def solve(self, subproblem, **options):
        raise NotImplementedError


class CvxpyBackend(Backend):
    """A solver reached through ``cvxpy.Problem.solve(solver=...)``; options declared by name."""

    tol_options: tuple = ()  # keyword arguments that receive the common ``tol``
    max_iter_options: tuple = ()  # ... and the common ``max_iter``

    def installed(self) -> bool:
        if not _importable("cvxpy"):
            return False
        import cvxpy as cp

        return self.name in cp.installed_solvers()

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        opts = dict(extra, verbose=bool(verbose))
        opts.update(self._tol(tol) if tol is not None else {})
        opts.update(self._max_iter(int(max_iter)) if max_iter is not None else {})
        return opts

    def _tol(self, tol):
        return dict.fromkeys(self.tol_options, tol)

    def _max_iter(self, n):
        return dict.fromkeys(self.max_iter_options, n)


class Clarabel(CvxpyBackend):
    name, package = "CLARABEL", "clarabel"
    cones = frozenset({LP, SOC, EXP})
    description = "interior point (Rust), LP/SOC/EXP/PSD"
    tol_options = ("tol_gap_abs", "tol_gap_rel", "tol_feas")
    max_iter_options = ("max_iter",)


class ECOS(CvxpyBackend):
    name, package = "ECOS", "ecos"
    cones = frozenset({LP, SOC, EXP})
    description = "interior point (C), LP/SOC/EXP"
    tol_options = ("abstol", "reltol", "feastol")
    max_iter_options = ("max_iters",)


class SCS(CvxpyBackend):
    name, package = "SCS", "scs"
    cones = frozenset({LP, SOC, EXP})
    description = "first-order splitting (ADMM), LP/SOC/EXP/PSD; low accuracy by default"
    tol_options = ("eps_abs", "eps_rel")
    max_iter_options = ("max_iters",)


class HiGHS(CvxpyBackend):
    name, package = "HIGHS", "highspy"
    cones = frozenset({LP})
    description = "simplex / interior point LP (C++)"
    tol_options = ("primal_feasibility_tolerance", "dual_feasibility_tolerance",
                   "ipm_optimality_tolerance")
    max_iter_options = ("simplex_iteration_limit", "ipm_iteration_limit")


class MOSEK(CvxpyBackend):
    name, package = "MOSEK", "mosek"
    cones = frozenset({LP, SOC, EXP})
    description = "commercial interior point; needs a license"

    def unavailable_reason(self):
        reason = super().unavailable_reason()
        if reason or not self.installed():
            return reason or "not listed by cvxpy.installed_solvers()"
        return _mosek_license_problem()

    tol_options = ("MSK_DPAR_INTPNT_CO_TOL_REL_GAP", "MSK_DPAR_INTPNT_CO_TOL_PFEAS",
                   "MSK_DPAR_INTPNT_CO_TOL_DFEAS")
    max_iter_options = ("MSK_IPAR_INTPNT_MAX_ITERATIONS",)

    def translate(self, tol=None, max_iter=None, verbose=False, **extra):
        """MOSEK takes its parameters in one ``mosek_params`` dict."""
        params = {}
        params.update(self._tol(tol) if tol is not None else {})
        params.update(self._max_iter(int(max_iter)) if max_iter is not None else {})
        params.update(extra.pop("mosek_params", {}))
        opts = dict(extra, verbose=bool(verbose))
        if params:
            opts["mosek_params"] = params
        return opts


_BACKENDS: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    """Add a backend (an instance) to the registry; native methods call this on import."""
    _BACKENDS[backend.name.upper()] = backend
    return backend


for _cls in (Clarabel, ECOS, SCS, HiGHS, MOSEK):
    register_backend(_cls())

_PLUGINS = {"loaded": False, "lock": threading.Lock()}


def _load_plugins():
    """Register the backends of installed plugins (entry points ``fsopt.backends``) once."""
    if _PLUGINS["loaded"]:
        return
    with _PLUGINS["lock"]:
        if not _PLUGINS["loaded"]:
            from .plugins import load_backends

            load_backends(register_backend)
            _PLUGINS["loaded"] = True


def backends() -> dict[str, Backend]:
    """All registered backends (fsopt's and plugins'), installed or not, by upper-case name."""
    _load_plugins()
    return dict(_BACKENDS)


def installed_backends() -> list[str]:
    _load_plugins()
    return [name for name, b in _BACKENDS.items() if b.installed()]


@dataclass(frozen=True)
class Profile:
    """A named solver configuration read from a TOML file in ``solvers/``."""

    name: str
    backend: str
    options: dict = field(default_factory=dict)
    description: str = ""
    path: str = ""


def profile_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get("FSOPT_SOLVERS_PATH", "").split(os.pathsep) if p]
    dirs.append(Path(str(importlib.resources.files("fsopt._solvers"))))
    return dirs


def profiles() -> dict[str, Profile]:
    """Solver profiles from ``solvers/*.toml`` (and ``$FSOPT_SOLVERS_PATH``), by lower-case name."""
    found = {}
    for d in reversed(profile_dirs()):
        for path in sorted(d.glob("*.toml")):
            with open(path, "rb") as fh:
                spec = tomllib.load(fh)
            try:
                prof = Profile(name=spec.get("name", path.stem), backend=spec["backend"].upper(),
                               options=dict(spec.get("options", {})),
                               description=spec.get("description", ""), path=str(path))
            except KeyError:
                raise ValueError(f"solver profile {path} has no 'backend' entry") from None
            found[prof.name.lower()] = prof
    return found


def resolve_solver(name, subproblem=None, options=None) -> tuple[Backend, dict]:
    """(backend, merged common options) for a backend or profile name; clear errors otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"solver must be a string naming a backend or profile; got {type(name).__name__}")
    _load_plugins()
    opts = {}
    key = name.upper()
    if key not in _BACKENDS:
        prof = profiles().get(name.lower())
        if prof is None:
            raise ValueError(
                f"unknown solver {name!r}; installed: {', '.join(_usable_for(subproblem))}"
                f" (profiles: {', '.join(sorted(profiles())) or 'none'})"
            )
        key, opts = prof.backend, dict(prof.options)
        if key not in _BACKENDS:
            raise ValueError(f"solver profile {prof.name!r} ({prof.path}) names unknown backend {key!r}")
    backend = _BACKENDS[key]
    reason = backend.unavailable_reason()
    if reason:
        raise ValueError(
            f"solver {name!r} is not available: {reason}; installed: {', '.join(_usable_for(subproblem))}"
        )
    if subproblem is not None and not backend.can_solve(subproblem):
        raise ValueError(
            f"solver {name!r} cannot solve {subproblem.describe()} (needs {subproblem.cone} cones "
            f"or a native method for it); "
            f"suitable installed solvers: {', '.join(_usable_for(subproblem))}"
        )
    opts.update(options or {})
    return backend, opts


def _usable_for(subproblem) -> list[str]:
    names = [n for n in installed_backends() if subproblem is None or _BACKENDS[n].can_solve(subproblem)]
    return names or ["none"]


def _importable(module: str) -> bool:
    if not module:
        return True
    try:
        importlib.import_module(module)
    except Exception:  # noqa: BLE001 - any import failure means "not installed"
        return False
    return True


def _mosek_license_problem() -> str | None:
    import cvxpy as cp

    x = cp.Variable()
    try:
        cp.Problem(cp.Minimize(x), [x >= 1]).solve(solver="MOSEK")
    except Exception as exc:  # noqa: BLE001 - report whatever MOSEK says about its license
        return f"MOSEK is installed but cannot solve ({str(exc).splitlines()[0][:200]}); check its license"
    return None
