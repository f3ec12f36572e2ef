"""Plugins: backends, methods, checks and problems from other installed packages (entry points).

A package extends fsopt, with no change to fsopt, by declaring entry points in its
``pyproject.toml``::

    [project.entry-points."fsopt.backends"]    # a Backend subclass (or instance) to register
    PNEWTON = "my_plugin.backend:ProjectedNewton"
    [project.entry-points."fsopt.methods"]     # a method package, laid out like fsopt's own:
    mymethod = "my_plugin.mymethod"            #   cli.py (fsopt run), bench.py, checks.py
    [project.entry-points."fsopt.checks"]      # a module whose @fsopt.verify.check functions
    my_plugin = "my_plugin.checks"             #   join fsopt verify
    [project.entry-points."fsopt.problems"]    # a package holding problem *.toml files
    my_plugin = "my_plugin.problems"
    [project.entry-points."fsopt.generators"]  # data generators a problem TOML may name
    my_data = "my_plugin.data:make_data"       #   generator = "my_data"
    [project.entry-points."fsopt.bench_hooks"] # bench hooks a [bench] table may name
    my_hook = "my_plugin.bench:subproblems"    #   subproblems = "my_hook"
    [project.entry-points."fsopt.subproblems"] # subproblem factories f(X, y, **params) a
    my_form = "my_plugin.forms:make"           #   problem's [params] subproblem = "my_form" names

A TOML file is data: the generators and hooks it names resolve only through :func:`named`, i.e.
what code registered (:func:`register`: fsopt's own, or a script's) and the entry points of
installed packages; naming any other importable callable is an error that names the file.
Entry points are read from the installed metadata and imported only when a command needs one.

A subproblem kind needs no entry point: it is a :class:`fsopt.Subproblem` subclass that a
method's or a problem's bench hook builds, and that a backend's ``supports`` accepts.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.resources
import importlib.util
from pathlib import Path

from .. import builtin_plugins
from .registry import Registry

BACKENDS, METHODS, CHECKS, PROBLEMS = "fsopt.backends", "fsopt.methods", "fsopt.checks", "fsopt.problems"
GENERATORS, BENCH_HOOKS = "fsopt.generators", "fsopt.bench_hooks"
SUBPROBLEMS = "fsopt.subproblems"  # factories(X, y, **params) -> Subproblem a problem's [params] may name
REGISTRIES = {group: Registry(group) for group in (GENERATORS, BENCH_HOOKS, SUBPROBLEMS)}  # filled by code (register)


def entry_points(group: str) -> list:
    """The entry points of ``group``, sorted by name: the installed ones, and fsopt's own
    (:mod:`fsopt.builtin_plugins`) where the installed metadata of fsopt lacks them."""
    installed = list(importlib.metadata.entry_points(group=group))
    have = {ep.name for ep in installed if distribution(ep) == "fsopt"}
    own = [importlib.metadata.EntryPoint(name, value, group)
           for name, value in builtin_plugins.ENTRY_POINTS.get(group, {}).items() if name not in have]
    return sorted(installed + own, key=lambda ep: ep.name)


def load(ep):
    """``ep.load()``, or a ValueError naming the plugin and its distribution when that fails."""
    try:
        return ep.load()
    except Exception as exc:  # noqa: BLE001 - a broken plugin is named, whatever broke it
        raise ValueError(f"fsopt plugin {ep.name!r} = {ep.value!r} (group {ep.group}, distribution "
                         f"{distribution(ep)}) cannot be loaded: {type(exc).__name__}: {exc}") from exc


def method_packages() -> dict[str, str]:
    """{method name: package} from the ``fsopt.methods`` entry points: fsopt's own methods are
    declared there too (its ``pyproject.toml``), and a plugin cannot replace one of them."""
    found = {}
    for ep in sorted(entry_points(METHODS), key=lambda ep: distribution(ep) != "fsopt"):
        found.setdefault(ep.name, ep.value.partition(":")[0])
    return found


def distribution(ep) -> str:
    """The name of the distribution declaring ``ep`` ("fsopt" for fsopt's own), or "?"."""
    if getattr(ep, "dist", None):
        return getattr(ep.dist, "name", "?")
    return "fsopt" if builtin_plugins.ENTRY_POINTS.get(ep.group, {}).get(ep.name) == ep.value else "?"


def method_module(method: str, part: str):
    """The module ``<package of method>.<part>`` (e.g. ``cli``, ``bench``, ``checks``), or None."""
    package = method_packages().get(method)
    if package is None:
        return None
    try:
        spec = importlib.util.find_spec(f"{package}.{part}")
    except ModuleNotFoundError as exc:
        raise ValueError(f"method {method!r}: package {package!r} cannot be imported ({exc})") from None
    return importlib.import_module(f"{package}.{part}") if spec is not None else None


def problem_dirs() -> list[Path]:
    """The folders of the ``fsopt.problems`` entry points (each a package of *.toml files)."""
    dirs = []
    for ep in entry_points(PROBLEMS):
        module = ep.value.partition(":")[0]
        try:
            dirs.append(Path(str(importlib.resources.files(module))))
        except (ModuleNotFoundError, TypeError) as exc:
            raise ValueError(f"fsopt plugin {ep.name!r} (group {PROBLEMS}): {module!r} is not an "
                             f"importable package of problem files ({exc})") from None
    return dirs


def load_checks():
    """Import every ``fsopt.checks`` entry point (its ``@check`` functions register themselves)."""
    for ep in entry_points(CHECKS):
        load(ep)


def register(group: str, name: str, func):
    """Let problem files name ``func`` as ``name`` in ``group`` (:data:`GENERATORS`,
    :data:`BENCH_HOOKS` or :data:`SUBPROBLEMS`); returns ``func`` (usable as a decorator's body)."""
    if group not in REGISTRIES:
        raise ValueError(f"unknown group {group!r}; one of {', '.join(sorted(REGISTRIES))}")
    if not isinstance(name, str) or not name or not callable(func):
        raise TypeError(f"register({group!r}, name, func) needs a non-empty name and a callable; "
                        f"got {name!r}, {type(func).__name__}")
    return REGISTRIES[group].register(name, func)


def registered(group: str) -> dict:
    """{name: callable} registered by code in ``group`` (not the entry points)."""
    return REGISTRIES[group].items()


def named(group: str, name, where: str):
    """The callable ``name`` of ``group``: registered by code, else the installed entry point of
    that name (or value), imported now; a ValueError naming ``where`` (the file and field) and
    what is registered otherwise.  Nothing else is ever imported."""
    if not isinstance(name, str):
        raise ValueError(f"{where}: must be a string naming a registered callable; got {name!r}")
    if name in REGISTRIES[group]:
        return REGISTRIES[group][name]
    for ep in entry_points(group):
        if name in (ep.name, ep.value):
            return load(ep)
    known = sorted(REGISTRIES[group]) + [ep.name for ep in entry_points(group)]
    raise ValueError(f"{where}: {name!r} is not a registered {group.split('.')[-1][:-1].replace('_', ' ')}; "
                     f"a problem file names only callables that code registered "
                     f"(fsopt.core.plugins.register) or an installed package declares (entry point "
                     f"group {group!r}); known: {', '.join(known) or 'none'}")
