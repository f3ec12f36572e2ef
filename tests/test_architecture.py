"""The house: three layers with arrows pointing down (pyproject's import-linter contracts) and no
import cycle among fsopt's modules, imports inside functions included."""
import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

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


def stated_layers(page=ROOT / "docs" / "architecture.md"):
    """The layer table of docs/architecture.md, top first: [[unit, ...], ...]."""
    rows = re.findall(r"^\| *(\w[\w ]*?) *\| *(`fsopt[^|]*) *\|", page.read_text().split("## Layers", 1)[1].split("\n## ", 1)[0], re.M)
    return [re.findall(r"`(fsopt[\w.]*)`", modules) for _, modules in rows]


def unit_of(module, layers):
    """(rank, unit) of ``module``: the listed package or module holding it (``fsopt`` only itself)."""
    best = None
    for rank, units in enumerate(layers):
        for unit in units:
            if module == unit or (unit != "fsopt" and module.startswith(unit + ".")):
                if best is None or len(unit) > len(best[1]):
                    best = (rank, unit)
    return best


def fsopt_imports():
    """[(importer, imported)] of every import statement under fsopt/, function-level ones included."""
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p
               for p in (ROOT / "fsopt").rglob("*.py")}
    found = []
    for module, path in sorted(modules.items()):
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(module, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else [])) \
                    if node.level else node.module
                found += [(module, f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base) for a in node.names]
    return modules, [(a, b) for a, b in found if b == "fsopt" or b.startswith("fsopt.")]


def layer_violations(layers, imports):
    """The imports that go up a layer or across to a sibling package of the same layer."""
    bad = []
    for importer, imported in imports:
        (rank_a, unit_a), (rank_b, unit_b) = unit_of(importer, layers), unit_of(imported, layers)
        if rank_b < rank_a or (rank_b == rank_a and unit_a != unit_b):
            bad.append(f"{importer} ({unit_a}) imports {imported} ({unit_b})")
    return bad


def test_the_layers_the_architecture_page_states_hold_for_every_import():
    layers = stated_layers()
    assert len(layers) >= 4 and ["fsopt.tools"] == layers[0]
    modules, imports = fsopt_imports()
    assert [m for m in modules if unit_of(m, layers) is None] == []  # every module has its layer
    assert len(imports) > 300 and layer_violations(layers, imports) == []


@pytest.mark.parametrize("planted", [("fsopt.core.solvers", "fsopt.logo"),  # core up to a method
                                     ("fsopt.logo.estimator", "fsopt.nmmkl.rounding"),  # across methods
                                     ("fsopt.verify", "fsopt.datasets.spiral"),  # across a shared layer
                                     ("fsopt.builtin_plugins", "fsopt.core.solvers")])
def test_a_planted_violation_fails_the_layer_check(planted):
    layers = stated_layers()
    _, imports = fsopt_imports()
    assert layer_violations(layers, imports + [planted]) == [
        f"{planted[0]} ({unit_of(planted[0], layers)[1]}) imports {planted[1]} ({unit_of(planted[1], layers)[1]})"]


def test_a_module_the_page_leaves_out_is_found(tmp_path):
    page = tmp_path / "architecture.md"
    page.write_text((ROOT / "docs" / "architecture.md").read_text().replace(", `fsopt.datasets`", ""))
    layers = stated_layers(page)
    assert "fsopt.datasets.spiral" in [m for m in fsopt_imports()[0] if unit_of(m, layers) is None]


def long_functions(text, limit=80):
    """[(name, lines)] of the functions of ``text`` that have ``limit`` lines or more."""
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 >= limit]


def test_every_function_is_under_80_lines():
    found = {str(p.relative_to(ROOT)): long_functions(p.read_text()) for p in sorted((ROOT / "fsopt").rglob("*.py"))}
    assert {f: n for f, n in found.items() if n} == {}
    assert long_functions("def planted():\n" + "    x = 1\n" * 79) == [("planted", 80)]
