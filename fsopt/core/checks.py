"""The registries of ``fsopt verify``: checks, the probes that tell which solver a check can use,
and planted bugs, filled by the harness's decorators (:mod:`fsopt.verify`: ``@check``,
``probe``, ``@planted_bug``) from the methods (``<method>/checks.py`` and ``bugs.py``), the
``fsopt.checks`` entry points and a path (:func:`load_path`: ``fsopt verify --checks PATH`` or
``FSOPT_CHECKS_PATH``), and read by the tool (:mod:`fsopt.tools.verify`).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import solvers
from .registry import Registry
from .subproblem import observe_solves

__all__ = ["BUGS", "CHECKS", "PROBES", "Check", "PlantedBug", "load_path", "observe_solves", "planted_bugs", "probes",
           "registered_checks"]


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


CHECKS = Registry("checks")  # name -> Check
PROBES = Registry("probes")  # subproblem kind -> factory of a small instance



def registered_checks() -> dict[str, Check]:
    """The checks registered so far (importing a method's ``checks`` module registers its own)."""
    return CHECKS.items()


def probes() -> dict[str, Callable]:
    """{subproblem kind: factory of a small instance}, to ask a backend whether it can solve it."""
    return PROBES.items()


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
            stack.enter_context(solvers.BACKEND_REGISTRY.scoped())  # wrong backends registered inside
            self.plant(stack)
            yield


BUGS = Registry("planted bugs")  # name -> PlantedBug



def planted_bugs() -> dict[str, PlantedBug]:
    """The planted bugs registered so far (importing a method's ``bugs`` module registers its own)."""
    return BUGS.items()


# --- checks from a path ----------------------------------------------------------------------------
def load_path(path) -> list[str]:
    """Import a ``.py`` file, or every ``*.py`` file of a folder (sorted), so that its ``@check`` and
    ``@planted_bug`` functions register; returns the module names.  The file's directory (the
    folder) joins the front of ``sys.path``, as Python does for a script, so the file imports the
    modules beside it.  A ValueError names a missing path or a file that fails to import."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"checks path {str(path)!r} does not exist")
    files = sorted(path.glob("*.py")) if path.is_dir() else [path]
    if path.is_file() and path.suffix != ".py":
        raise ValueError(f"checks path {str(path)!r} is not a .py file or a folder")
    home = str((path if path.is_dir() else path.parent).resolve())
    if home not in sys.path:
        sys.path.insert(0, home)
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
