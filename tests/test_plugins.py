"""Plugins through entry points: the example package examples/fsopt_pnewton, pip-installed, joins
``fsopt solvers``, ``fsopt problems``, ``fsopt bench`` and ``fsopt verify``; the groups' loaders."""
import importlib.metadata
import os
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import EXAMPLES, install_example, run_fsopt

from fsopt.core import plugins, solvers
from fsopt.tools import bench
from fsopt.tools.cli import _method_clis
from fsopt.tools.problems import get_problem


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory):
    """fsopt-pnewton pip-installed where only the subprocesses of these tests see it."""
    tmp = tmp_path_factory.mktemp("plugin")
    return install_example("fsopt_pnewton", tmp), tmp


def _fsopt(env, *args, cwd=None):
    return run_fsopt(env, *args, cwd=cwd)


def test_installed_plugin_joins_solvers_and_problems(plugin_env):
    env, _ = plugin_env
    assert any(line.split()[:2] == ["PNEWTON", "yes"] for line in _fsopt(env, "solvers").splitlines())
    assert "pnewton_spiral" in _fsopt(env, "problems", "--method", "logo")
    assert "PNEWTON" not in _fsopt(dict(os.environ), "solvers")  # not installed in this session


def test_installed_plugin_joins_bench(plugin_env):
    env, tmp = plugin_env
    _fsopt(env, "bench", "--quick", "--problem", "pnewton_spiral", "--solver", "PNEWTON",
           "--out", str(tmp / "study"), "--quiet")
    frame = pd.read_csv(tmp / "study" / "results.csv")
    mine = frame[(frame["solver"] == "PNEWTON") & (frame["budget"] == "default")]
    assert len(mine) == 1 and mine["solved"].all() and mine["error_to_reference"].max() < 1e-8
    assert set(frame.loc[frame["budget"] == "tol", "tol"]) == {1e-3, 1e-6}  # the plugin's schedule
    assert (tmp / "study" / "report.html").exists()


def test_installed_plugin_joins_verify(plugin_env):
    env, _ = plugin_env
    out = _fsopt(env, "verify", "--quick", "PNEWTON")
    assert "[PASS] PNEWTON garrote" in out and "1/1 checks passed" in out


def _entry_points(monkeypatch, *points):
    eps = [importlib.metadata.EntryPoint(name, value, group) for name, value, group in points]
    monkeypatch.setattr(plugins, "entry_points", lambda group: [e for e in eps if e.group == group])


def test_backend_entry_points_register_a_class_and_name_a_broken_plugin(monkeypatch):
    _entry_points(monkeypatch, ("LBFGSB2", "fsopt.core.lbfgsb:LBFGSB", plugins.BACKENDS))
    registered = []
    monkeypatch.setattr(solvers, "register_backend", registered.append)
    solvers.load_plugin_backends()
    from fsopt.core.cvxpy_solvers import BACKENDS as CVXPY  # fsopt's cvxpy backends come first

    assert [type(b).__name__ for b in registered if type(b) not in CVXPY] == ["LBFGSB"]
    _entry_points(monkeypatch, ("BROKEN", "no_such_module:Backend", plugins.BACKENDS))
    with pytest.raises(ValueError, match=r"fsopt plugin 'BROKEN' = 'no_such_module:Backend' \(group "
                                         r"fsopt.backends.*No module named 'no_such_module'"):
        solvers.load_plugin_backends()


def test_method_entry_point_joins_run(monkeypatch):
    builtin = [(ep.name, ep.value, ep.group) for ep in plugins.entry_points(plugins.METHODS)]
    _entry_points(monkeypatch, *builtin, ("garrote2", "fsopt.logo", plugins.METHODS))
    clis = _method_clis()
    assert clis["garrote2"] is clis["logo"] and {"lfs", "logo", "nmmkl"} <= set(clis)


def test_a_hook_beside_its_problem_file_loads_without_touching_sys_path(monkeypatch):
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(EXAMPLES))
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != EXAMPLES])
    before = list(sys.path)
    hook = bench._hook(get_problem("elastic_net_spiral"), allow_files=True)
    assert hook.__name__ == "bench_subproblems" and sys.path == before
