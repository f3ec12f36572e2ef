"""The house: three layers with arrows pointing down (pyproject's import-linter contracts) and no
import cycle among fsopt's modules, imports inside functions included."""
import ast
import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

from fsopt import builtin_plugins
from fsopt.core import plugins

ROOT = Path(__file__).resolve().parents[1]


def strongly_connected(graph):
    """Tarjan's components of the module graph with more than one module (each a cycle)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(graph.modules):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_among_fsopt_modules():
    graph = grimp.build_graph("fsopt", cache_dir=None)  # every import statement, function-level ones included
    assert strongly_connected(graph) == []


def test_the_cycle_check_finds_a_planted_cycle():
    graph = grimp.build_graph("fsopt", cache_dir=None)
    graph.add_import(importer="fsopt.core.status", imported="fsopt.core.subproblem")  # subproblem imports status
    assert any({"fsopt.core.status", "fsopt.core.subproblem"} <= set(c) for c in strongly_connected(graph))


def test_layer_contracts_hold():
    code = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(config_filename='pyproject.toml', no_logo=True, no_cache=True))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


METHOD_PACKAGES = ("fsopt.logo", "fsopt.nmmkl", "fsopt.lfs")


def docstrings(tree):
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def imported(module, node):
    """The modules an import node of ``module`` (dotted name) imports, relative levels resolved."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    package = module.split(".")[:len(module.split(".")) - node.level] if node.level else []
    base = ".".join(package + ([node.module] if node.module else []))
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def named_method_packages(module, text):
    """The method packages ``module`` (dotted; its source ``text``) names in an import or in a
    string that is not a docstring."""
    tree, named = ast.parse(text), set()
    skip = docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            named |= {p for name in imported(module, node) for p in METHOD_PACKAGES
                      if name == p or name.startswith(p + ".")}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            named |= {p for p in METHOD_PACKAGES if p in node.value or p.replace(".", "/") in node.value}
    return sorted(named)


def test_no_core_module_names_a_method_package():
    """fsopt's own methods and backends are entry points (fsopt.builtin_plugins): core names none."""
    found = {path.name: named_method_packages(f"fsopt.core.{path.stem}", path.read_text())
             for path in sorted((ROOT / "fsopt" / "core").glob("*.py"))}
    assert {name: packages for name, packages in found.items() if packages} == {}


def test_the_method_package_finder_sees_a_planted_name():
    text = (ROOT / "fsopt" / "core" / "solvers.py").read_text()  # where the arrow used to be
    assert named_method_packages("fsopt.core.solvers", text) == []
    planted = text + '\nimportlib.import_module("fsopt.nmmkl")\nfrom ..logo import lbfgsb\n'
    assert named_method_packages("fsopt.core.solvers", planted) == ["fsopt.logo", "fsopt.nmmkl"]


def test_fsopts_own_entry_points_are_declared_in_pyproject_as_in_builtin_plugins():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert {g: declared[g] for g in builtin_plugins.ENTRY_POINTS} == builtin_plugins.ENTRY_POINTS


def test_without_installed_metadata_fsopts_own_entry_points_still_load(monkeypatch):
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    found = {ep.name: ep for ep in plugins.entry_points(plugins.BACKENDS)}
    assert set(found) == set(builtin_plugins.ENTRY_POINTS[plugins.BACKENDS])
    assert plugins.distribution(found["LBFGSB"]) == "fsopt" and plugins.method_packages() == {
        "lfs": "fsopt.lfs", "logo": "fsopt.logo", "nmmkl": "fsopt.nmmkl"}
    lbfgsb = plugins.load(found["LBFGSB"])
    assert (lbfgsb.__module__, lbfgsb.__name__) == ("fsopt.core.lbfgsb", "LBFGSB")
