"""Registries: the named tables that code and entry points fill (backends, checks, planted bugs,
probes, generators, bench hooks, subproblem factories), as explicit objects.

A :class:`Registry` maps names to items.  Code adds to it with :meth:`Registry.register`; a
registry given a ``loader`` calls it once, on the first lookup, to add what installed packages
declare (the backends' entry points).  :meth:`Registry.scoped` gives a test (or a planted bug) a
registry it may change freely, restored on exit; :meth:`Registry.state` and
:meth:`Registry.install` carry what code registered to another process (``fsopt bench``'s
workers), which a fresh ``import fsopt`` would not give it.

Examples
--------
>>> from fsopt.core.registry import Registry
>>> colours = Registry("colours", key=str.lower)
>>> colours.register("Red", "#f00")
'#f00'
>>> with colours.scoped():
...     colours.register("green", "#0f0")
...     sorted(colours)
'#0f0'
['green', 'red']
>>> sorted(colours)
['red']
"""
from __future__ import annotations

import contextlib
import threading
from typing import Callable

_ALL: list["Registry"] = []  # every registry, for scoped() over all of them (tests of documentation)


class Registry:
    """A table ``name -> item``, filled by code (:meth:`register`) and, once, by ``loader``.

    Parameters
    ----------
    name : str
        What it holds, for messages (``"backends"``).
    key : callable, default=str
        Normalises a name (``str.upper``: backends are found whatever the case).
    loader : callable or None, default=None
        ``loader(registry)``, called once before the first lookup to add the declared items.
    """

    def __init__(self, name: str, key: Callable = str, loader: Callable | None = None):
        self.name, self._key, self._loader = name, key, loader
        self._items: dict = {}
        self._loaded = loader is None
        self._lock = threading.RLock()
        _ALL.append(self)

    def register(self, name, item):
        """Add ``item`` under ``name`` (replacing any item of that name); returns ``item``."""
        self._items[self._key(name)] = item
        return item

    def _load(self):
        if not self._loaded:
            with self._lock:
                if not self._loaded:
                    self._loaded = True  # a loader that looks items up sees those registered so far
                    try:
                        self._loader(self)
                    except BaseException:
                        self._loaded = False
                        raise

    def items(self) -> dict:
        """A copy of the table, ``{name: item}`` (the declared items loaded first)."""
        self._load()
        return dict(self._items)

    def get(self, name, default=None):
        self._load()
        return self._items.get(self._key(name), default)

    def __getitem__(self, name):
        self._load()
        return self._items[self._key(name)]

    def __contains__(self, name) -> bool:
        self._load()
        return self._key(name) in self._items

    def __iter__(self):
        return iter(self.items())

    def __len__(self) -> int:
        return len(self.items())

    def __repr__(self) -> str:
        return f"Registry({self.name!r}, {len(self._items)} items{'' if self._loaded else ', not loaded'})"

    def state(self) -> dict:
        """What code registered, ``{name: item}``, to send to another process (:meth:`install`)."""
        return dict(self._items)

    def install(self, state: dict):
        """Register every item of ``state`` (from :meth:`state`) after loading the declared ones."""
        self._load()
        self._items.update(state)

    @contextlib.contextmanager
    def scoped(self):
        """This registry as it is, restored on exit whatever was registered or replaced inside."""
        self._load()
        saved = dict(self._items)
        try:
            yield self
        finally:
            self._items.clear()
            self._items.update(saved)


@contextlib.contextmanager
def scoped(*registries: Registry):
    """Several registries scoped at once (:meth:`Registry.scoped`); none named: every registry."""
    with contextlib.ExitStack() as stack:
        for registry in registries or tuple(_ALL):
            stack.enter_context(registry.scoped())
        yield
