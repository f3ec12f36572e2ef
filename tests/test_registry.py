"""Registries are explicit objects: what a scope registers or replaces is gone after it, the
declared items are loaded once, and what code registered travels to another process."""
import pickle

import pytest

from fsopt.core import checks, plugins
from fsopt.core.registry import Registry, scoped
from fsopt.core.solvers import BACKEND_REGISTRY, backends


def test_a_scope_restores_what_it_added_and_what_it_replaced():
    colours = Registry("colours", key=str.lower)
    colours.register("red", "#f00")
    with colours.scoped():
        colours.register("RED", "#e00")
        colours.register("green", "#0f0")
        assert colours.items() == {"red": "#e00", "green": "#0f0"}
    assert colours.items() == {"red": "#f00"}


def test_a_scope_restores_even_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with BACKEND_REGISTRY.scoped():
            BACKEND_REGISTRY.register("ONLY_INSIDE", backends()["CLARABEL"])
            raise RuntimeError
    assert "ONLY_INSIDE" not in backends()


def test_scoped_with_no_registry_named_scopes_all_of_them():
    with scoped():
        plugins.register(plugins.GENERATORS, "inside", len)
        checks.PROBES.register("inside_kind", list)
    assert "inside" not in plugins.registered(plugins.GENERATORS) and "inside_kind" not in checks.probes()


def test_the_loader_runs_once_before_the_first_lookup():
    calls = []
    loaded = Registry("loaded", loader=lambda registry: (calls.append(1), registry.register("a", 1)))
    loaded.register("b", 2)  # registering loads nothing
    assert calls == []
    assert loaded.items() == {"b": 2, "a": 1} and "a" in loaded and calls == [1]


def test_the_state_code_registered_travels_to_another_registry_by_pickle():
    here = Registry("hooks")
    here.register("length", len)
    there = Registry("hooks")
    there.install(pickle.loads(pickle.dumps(here.state())))
    assert there["length"] is len
