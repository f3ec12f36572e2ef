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
"""
from __future__ import annotations

import importlib.resources
import inspect
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..core import plugins
from ..datasets import add_irrelevant_features, load_dataset
from ..datasets.lfs_synthetic import make_lfs_synthetic
from ..datasets.nmmkl_toy import make_nmmkl_toy
from ..datasets.shapes import FAMILIES as SHAPES
from ..datasets.spiral import make_spiral

for _generator in (make_spiral, make_nmmkl_toy, make_lfs_synthetic, *SHAPES.values()):  # fsopt's own, by full name
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

    def load(self, n_irrelevant=None, random_state=None, data_dir=None, **params):
        """``(X, y)`` for this problem; arguments override the file's values (``params``
        override the generator's keyword arguments)."""
        spec = dict(self.data)
        kwargs = dict(spec.get("params", {}), **params)
        k = spec.get("n_irrelevant", 0) if n_irrelevant is None else n_irrelevant
        seed = spec.get("random_state") if random_state is None else random_state
        if "generator" in spec:
            func = plugins.named(plugins.GENERATORS, spec["generator"],
                                 f"problem file {self.path or self.name}, [data] generator")
            accepted = inspect.signature(func).parameters
            if "random_state" in accepted:
                kwargs["random_state"] = seed
            if "n_irrelevant" in accepted:
                return func(n_irrelevant=k, **kwargs)
            X, y = func(**kwargs)
        elif "dataset" in spec:
            if params:
                raise ValueError(f"problem {self.name}: a data set takes no generator parameters {params}")
            X, y = load_dataset(spec["dataset"], data_dir=data_dir)
        else:
            raise ValueError(f"problem {self.name} ({self.path}): [data] needs 'generator' or 'dataset'")
        return (add_irrelevant_features(X, k, seed), y) if k else (X, y)


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
            try:
                with open(path, "rb") as fh:
                    spec = tomllib.load(fh)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"problem file {path} is not valid TOML: {exc}") from None
            if not isinstance(spec.get("method"), str):
                raise ValueError(f"problem file {path} has no 'method' entry (a string)")
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
