"""The key of a study's row: a digest of everything that determines it.

A row's ``provenance`` (canonical JSON) holds

- ``declaration``: the parsed problem declaration (method, ``[data]``, ``[params]``, every other
  table) without what only chooses which cells exist (``description``, ``name`` and the
  ``[bench]`` plan: sizes, schedules, reference, exclusions); not the file's name;
- ``data``: a digest of the arrays ``(X, y)`` the problem's declaration gives at that size;
- ``subproblem``: the instance's class and a digest of its state (arrays, numbers, nested
  parts; a lazily built kind: the builder and what it closes over).  An object of a user's class
  (not fsopt's) is described by every attribute it holds, private ones and ``__slots__`` too, and by
  the code of each of its classes (:func:`code`), so that an edited penalty or loss is another key;
- ``solver``: the name, its backend's class and the backend instance's state (as above: a
  user's backend constructed with other arguments is another key), its package and version, the
  profile's options and the backend arguments they resolve to;
- ``versions``: fsopt (its version and a digest of its source files), cvxpy, numpy, scipy;
- ``size`` and ``solve`` (repetition, budget, value).

``key`` = the first 16 hex digits of its SHA-256.  A rerun reuses a logged row only when the key
matches; :func:`explain` says what differs when it does not.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import inspect
import json
import sys
from pathlib import Path

import numpy as np

# [bench] fields that choose which cells a study has, not what a cell's solve gives
PLAN_FIELDS = ("sizes", "quick_sizes", "tolerances", "quick_tolerances", "iterations", "quick_iterations",
               "reference", "quick_exclude")
MAX_STATE_DEPTH = 8
WRITTEN_BY_FSOPT = frozenset({"_smoothness_probe"})  # caches fsopt keeps on a user's object: not its state


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def digest(value) -> str:
    """First 16 hex digits of the SHA-256 of ``value``'s canonical JSON (bytes: their own)."""
    data = value if isinstance(value, bytes) else canonical(value).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def declaration(problem) -> dict:
    """The parts of a problem's declaration that determine its rows."""
    extra = {k: v for k, v in problem.extra.items() if k != "bench"}
    bench = {k: v for k, v in problem.extra.get("bench", {}).items() if k not in PLAN_FIELDS}
    return {"method": problem.method, "data": problem.data, "params": problem.params, "bench": bench, **extra}


def array_digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes() if a.dtype != object else canonical(a.tolist()).encode())
    return h.hexdigest()[:16]


def state(obj, depth=0, seen=None):
    """A JSON-able description of ``obj``'s parameters: numbers and text as they are, arrays by
    digest, objects by class and public attributes, functions by name and what they close over
    (cvxpy Parameters by value; other cvxpy objects, built from these, are left out)."""
    seen = set() if seen is None else seen
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, (float, np.floating, np.integer, np.bool_)):
        return repr(obj.item() if hasattr(obj, "item") else obj)
    if isinstance(obj, np.ndarray):
        return {"array": array_digest(obj)}
    if depth >= MAX_STATE_DEPTH or id(obj) in seen:
        return f"<{_qualname(obj)}>"
    seen = seen | {id(obj)}
    if isinstance(obj, (list, tuple)):
        return [state(v, depth + 1, seen) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return {"set": sorted((state(v, depth + 1, seen) for v in obj), key=canonical)}
    if isinstance(obj, dict):
        return {str(k): state(v, depth + 1, seen) for k, v in obj.items()}
    if type(obj).__module__.startswith("cvxpy"):
        return {"value": state(obj.value, depth + 1, seen)} if hasattr(obj, "is_param") and obj.is_param() else None
    if inspect.isfunction(obj):
        cells = [c.cell_contents for c in obj.__closure__ or ()]
        described = {"function": _qualname(obj), "closure": state(cells, depth + 1, seen),
                     "defaults": state(obj.__defaults__, depth + 1, seen)}
        return described if _is_fsopt(obj) else dict(described, code=code(obj))
    if hasattr(obj, "toarray") and hasattr(obj, "shape"):  # a sparse matrix
        return {"array": array_digest(obj.toarray())}
    if _is_fsopt(obj):  # fsopt's classes: their parameters are public, what is private a cache
        attrs = {k: v for k, v in getattr(obj, "__dict__", {}).items() if not k.startswith("_")}
        return {"class": _qualname(obj), "state": {k: state(v, depth + 1, seen) for k, v in sorted(attrs.items())}}
    attrs = {k: v for k, v in _attributes(obj).items() if k not in WRITTEN_BY_FSOPT}
    return {"class": _qualname(obj), "code": [code(cls) for cls in _user_classes(obj)],
            "state": {k: state(v, depth + 1, seen) for k, v in sorted(attrs.items())}}


def _attributes(obj) -> dict:
    """Every attribute ``obj`` holds: its ``__dict__`` and its ``__slots__``."""
    held = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in [slots] if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                held[name] = getattr(obj, name)
    return held


def _user_classes(obj) -> list:
    """``obj``'s classes whose code is not fsopt's nor Python's own (``object``, ``abc``)."""
    return [cls for cls in type(obj).__mro__ if not _is_fsopt(cls) and cls.__module__ not in ("builtins", "abc")]


def _is_fsopt(obj) -> bool:
    target = obj if inspect.isfunction(obj) or inspect.isclass(obj) else type(obj)
    return target.__module__ == "fsopt" or target.__module__.startswith("fsopt.")


def _qualname(obj) -> str:
    target = obj if inspect.isfunction(obj) or inspect.isclass(obj) else type(obj)
    return f"{target.__module__}:{target.__qualname__}"


def code(obj) -> dict:
    """Where ``obj``'s code comes from: fsopt's own (covered by fsopt's source digest), else a
    digest of its module's source file, and the version of the distribution that installed it (an
    editable install changes its code, not its version)."""
    target = obj if inspect.isfunction(obj) or inspect.isclass(obj) else type(obj)
    module = target.__module__
    found = {"name": _qualname(obj)}
    if _is_fsopt(target):
        return found
    dists = _distributions().get(module.split(".")[0])
    if dists:
        found["version"] = _version(dists[0])
    path = getattr(sys.modules.get(module), "__file__", None)
    if path and Path(path).is_file():
        found["source"] = _file_digest(path, Path(path).stat().st_mtime_ns)
    return found


@functools.lru_cache(maxsize=256)
def _file_digest(path, mtime) -> str:
    """A source file's digest (read again when it was written since)."""
    return digest(Path(path).read_bytes())


def _version(dist) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def versions() -> dict:
    """fsopt's version and a digest of its source files; cvxpy's, numpy's and scipy's versions."""
    import fsopt

    root = Path(fsopt.__file__).parent
    sources = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        sources.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return {"fsopt": f"{fsopt.__version__} (sources {sources.hexdigest()[:12]})",
            **{name: _version(name) for name in ("cvxpy", "numpy", "scipy")}}


def solver(name, backend, options) -> dict:
    """A solver's part of the key: name, backend class, package version, profile options and the
    backend arguments they resolve to."""
    from ..core.solvers import ResolvedSolver

    try:
        arguments = ResolvedSolver(name, backend, dict(options)).backend_arguments()
    except Exception as exc:  # noqa: BLE001 - a backend whose translate fails: its rows say so
        arguments = f"{type(exc).__name__}: {exc}"
    return {"name": name, "backend": backend.name, "class": code(backend), "state": state(backend),
            "package": backend.package or None,
            "package_version": _version_of_module(backend.package) if backend.package else None,
            "profile": options, "arguments": json.loads(canonical(arguments))}


def _version_of_module(module) -> str | None:
    return _version(_distributions().get(module, [module])[0])


@functools.lru_cache(maxsize=1)
def _distributions() -> dict:
    """{top-level module: [distribution]} of the installed packages (read once: it scans them all)."""
    return importlib.metadata.packages_distributions()


def provenance(cell_part: dict, size, solve) -> dict:
    """The full provenance of one solve: its cell's part, the size and the solve's id."""
    repetition, budget, value = solve
    return dict(cell_part, size=int(size), solve=[int(repetition), budget, None if value is None else float(value)])


def explain(expected: dict, logged: dict, where: str) -> str:
    """Why a logged row's provenance differs from the one expected now, in words: each changed
    declaration field (``params.C 0.1 → 1.0 in problem file X``), the data, the solver, the
    versions; the subproblem instance only when nothing else differs."""
    reasons = [f"{path} {_short(old)} → {_short(new)} in {where}"
               for path, old, new in _differences(logged.get("declaration"), expected.get("declaration"))]
    if logged.get("data") != expected.get("data"):
        reasons.append("the data changed")
    for field_, what in (("solver", "the solver"), ("versions", "versions")):
        reasons += [f"{what}: {path} {_short(old)} → {_short(new)}"
                    for path, old, new in _differences(logged.get(field_), expected.get(field_))]
    if not reasons:
        reasons = [f"{field_} changed" for field_ in sorted(set(expected) | set(logged))
                   if expected.get(field_) != logged.get(field_)] or ["unknown"]
    return "; ".join(reasons)


def _differences(old, new, path=""):
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            yield from _differences(old.get(k), new.get(k), f"{path}.{k}" if path else k)
    elif old != new:
        yield path or "value", old, new


def _short(value) -> str:
    text = "(none)" if value is None else canonical(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."
