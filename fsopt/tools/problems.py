"""Problem declarations: ``problems/*.toml`` (and ``$FSOPT_PROBLEMS_PATH``).

A problem names a method, where its data come from and the method's parameters::

    description = "Fermat's spiral + irrelevant N(0,1) features (LOGO §4.1)"
    method = "logo"
    [data]
    generator = "fsopt.datasets.spiral:make_spiral"   # or: dataset = "sonar"
    n_irrelevant = 50          # irrelevant N(0,1) columns (passed to the generator, or appended)
    random_state = 0
    [data.params]              # further keyword arguments of the generator
    n_per_class = 230
    [params]                   # estimator parameters
    sigma = 2.0

Adding a problem is adding such a file (or shipping it in a plugin, see :mod:`fsopt.core.plugins`);
nothing in fsopt/ changes.  A file is data: ``generator`` names a registered generator (fsopt's
own below, one registered by code with ``fsopt.core.plugins.register``, or an installed
package's ``fsopt.generators`` entry point), never an arbitrary importable callable.

Declarations are bounded: the file nests tables at most :data:`fsopt.core.limits.MAX_DEPTH`
deep; sizes are integers (a bool is not), checked against the memory X needs before anything is
drawn (a generator declares its shape with a ``data_shape`` attribute, as fsopt's own do);
``dataset`` is ``"wdbc"``, a name in ``$FSOPT_DATA`` or the packaged data, or a file beside the
problem file or below its folder (links resolved first; never above it).  Each error names the
file and the field.
"""
from __future__ import annotations

import importlib.resources
import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..core import plugins
from ..core.limits import check_count, check_memory, load_toml
from ..datasets import add_irrelevant_features, available_datasets, default_data_dirs, load_dataset
from ..datasets.lfs_synthetic import make_lfs_synthetic
from ..datasets.nmmkl_toy import make_nmmkl_toy
from ..datasets.shapes import FAMILIES, HELD_OUT
from ..datasets.spiral import make_spiral

# fsopt's own generators, by full name (the shape families and the held-out ones alike)
for _generator in (make_spiral, make_nmmkl_toy, make_lfs_synthetic, *FAMILIES.values(), *HELD_OUT.values()):
    plugins.register(plugins.GENERATORS, f"{_generator.__module__}:{_generator.__name__}", _generator)


@dataclass
class Problem:
    name: str
    method: str
    description: str = ""
    data: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # any other tables (protocols, splits ...)
    path: str = ""

    def load(self, n_irrelevant=None, random_state=None, data_dir=None, *, given_by="arguments",
             **params):
        """``(X, y)`` for this problem; arguments override the file's values (``params``
        override the generator's keyword arguments; ``given_by`` says where they come from, e.g.
        "--irrelevant", in error messages).  Every declared value is checked (types, bounds, the
        memory X needs) before anything is drawn or read; errors name the file and the field."""
        return self._data(n_irrelevant, random_state, data_dir, given_by, params, draw=True)

    def check_size(self, n_irrelevant=None, random_state=None, data_dir=None, *, given_by="arguments",
                   **params):
        """What :meth:`load` checks, without drawing the data (a data set is read for its rows)."""
        self._data(n_irrelevant, random_state, data_dir, given_by, params, draw=False)

    def _data(self, n_irrelevant, random_state, data_dir, given_by, params, draw):
        spec = dict(self.data)
        where = f"problem file {self.path or self.name}, [data]"
        given = dict(params, n_irrelevant=n_irrelevant, random_state=random_state)
        given = {key: value for key, value in given.items() if value is not None}
        if given:
            where += f" (with {', '.join(f'{k} = {v!r}' for k, v in given.items())} from {given_by})"
        if not isinstance(spec.get("params", {}), dict):
            raise ValueError(f"{where}: params must be a table ([data.params])")
        kwargs = dict(spec.get("params", {}), **params)
        if "random_state" in kwargs:
            raise ValueError(f"{where}: random_state belongs in [data], not among the generator's parameters")
        if "n_irrelevant" in kwargs and "n_irrelevant" in spec:
            raise ValueError(f"{where}: n_irrelevant is given twice, in [data] and in [data.params]; keep one")
        declared = kwargs.pop("n_irrelevant", spec.get("n_irrelevant", 0))
        k = _within(where, check_count, declared if n_irrelevant is None else n_irrelevant, "n_irrelevant")
        seed = spec.get("random_state") if random_state is None else random_state
        if seed is not None:
            _within(where, check_count, seed, "random_state")
        if "generator" in spec:
            func = plugins.named(plugins.GENERATORS, spec["generator"], f"{where} generator")
            kwargs = _arguments(func, kwargs, k, seed, where)
            shape = getattr(func, "data_shape", None)
            if shape is not None:
                sizes = {name: kwargs[name] for name in inspect.signature(shape).parameters}
                rows, cols = _within(where, shape, **sizes)
                if "n_irrelevant" not in kwargs:
                    _within(where, check_memory, rows, cols + k, f"n_irrelevant = {k}")
            if not draw:
                return None
            if "n_irrelevant" in kwargs:
                return _within(where, func, **kwargs)
            X, y = _within(where, func, **kwargs)
        elif "dataset" in spec:
            if kwargs:
                raise ValueError(f"{where}: a data set takes no generator parameters; got "
                                 f"{', '.join(sorted(kwargs))} ([data.params] is for a generator)")
            source = self._dataset_source(spec["dataset"], data_dir, where)
            X, y = _within(where, load_dataset, source, data_dir=data_dir)
            if not draw:
                return _within(where, check_memory, X.shape[0], X.shape[1] + k, f"n_irrelevant = {k}")
        else:
            raise ValueError(f"{where} needs 'generator' or 'dataset'")
        return (_within(where, add_irrelevant_features, X, k, seed), y) if k else (X, y)

    def _dataset_source(self, value, data_dir, where):
        """``dataset = value`` resolved: 'wdbc', a name in the data directories, or a file beside
        the problem file or below its folder (links resolved first); ValueError otherwise."""
        if not isinstance(value, str) or not value:
            raise TypeError(f"{where} dataset = {value!r}: must be a non-empty string (a data set's name "
                            f"or a file beside the problem file)")
        if value.lower() == "wdbc":
            return value
        data_dirs = ([Path(data_dir)] if data_dir else []) + default_data_dirs()
        if "/" not in value and os.sep not in value:
            found = available_datasets(data_dir)
            if value in found:
                return found[value]
        folder = Path(self.path).resolve().parent if self.path else Path.cwd()
        target = (folder / value).resolve()
        roots = [folder] + [d.resolve() for d in data_dirs]
        if not any(target.is_relative_to(root) for root in roots):
            raise ValueError(f"{where} dataset = {value!r}: resolves to {target}, outside the allowed "
                             f"places; a problem's data set is 'wdbc', a name in the data directories "
                             f"({', '.join(map(str, data_dirs))}; $FSOPT_DATA), or a file beside the problem "
                             f"file or below its folder {folder} (never above it)")
        if not target.is_file():
            known = ", ".join(sorted(available_datasets(data_dir))) or "none"
            raise ValueError(f"{where} dataset = {value!r}: no such data set: not a name in the data "
                             f"directories ({', '.join(map(str, data_dirs))}; known: {known}, plus 'wdbc'), "
                             f"and no file {target}")
        return target


def _within(where, func, *args, **kwargs):
    """``func(*args, **kwargs)``, its ValueError or TypeError prefixed with ``where`` (the file
    and the table the arguments came from)."""
    try:
        return func(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{where}: {exc}") from None


def _arguments(func, kwargs, k, seed, where) -> dict:
    """The generator's keyword arguments: ``kwargs`` plus the seed and ``n_irrelevant`` when it
    takes them, the defaults filled in; a TypeError naming the file and any unknown parameter."""
    accepted = inspect.signature(func).parameters
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown and not any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
        raise TypeError(f"{where}: {', '.join(map(repr, unknown))} is not a parameter of the generator "
                        f"{func.__name__}; it takes {', '.join(accepted)}")
    if "random_state" in accepted:
        kwargs["random_state"] = seed
    if "n_irrelevant" in accepted:
        kwargs["n_irrelevant"] = k
    bound = inspect.signature(func).bind_partial(**kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def problem_dirs() -> list[Path]:
    """``$FSOPT_PROBLEMS_PATH``, fsopt's own ``problems/``, then the plugins' (entry points
    ``fsopt.problems``), in that order of precedence."""
    from ..core.plugins import problem_dirs as plugin_dirs

    dirs = [Path(p) for p in os.environ.get("FSOPT_PROBLEMS_PATH", "").split(os.pathsep) if p]
    dirs.append(Path(str(importlib.resources.files("fsopt._problems"))))
    return dirs + plugin_dirs()


def problems(method=None) -> dict[str, Problem]:
    """All declared problems by name (first directory wins), optionally for one method."""
    found = {}
    for d in problem_dirs():
        for path in sorted(Path(d).glob("*.toml")):
            if path.stem in found:
                continue
            spec = load_toml(path, f"problem file {path}")
            if not isinstance(spec.get("method"), str):
                raise ValueError(f"problem file {path} has no 'method' entry (a string)")
            for key in ("name", "description"):
                if not isinstance(spec.get(key, ""), str):
                    raise ValueError(f"problem file {path}: {key} = {spec[key]!r} must be a string")
            for table in ("data", "params"):
                if not isinstance(spec.get(table, {}), dict):
                    raise ValueError(f"problem file {path}: [{table}] must be a table")
            known = {"method", "description", "data", "params", "name"}
            found[path.stem] = Problem(
                name=spec.get("name", path.stem), method=spec["method"].lower(),
                description=spec.get("description", ""), data=spec.get("data", {}),
                params=spec.get("params", {}), path=str(path),
                extra={k: v for k, v in spec.items() if k not in known})
    if method is not None:
        found = {k: p for k, p in found.items() if p.method == method.lower()}
    return found


def get_problem(name, method=None) -> Problem:
    known = problems(method)
    if name not in known:
        what = f" for method {method}" if method else ""
        raise ValueError(f"unknown problem {name!r}{what}; known: {', '.join(sorted(known)) or 'none'}")
    return known[name]
