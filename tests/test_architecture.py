"""The house: three layers with arrows pointing down (pyproject's import-linter contracts) and no
import cycle among fsopt's modules, imports inside functions included."""
import subprocess
import sys
from pathlib import Path

import grimp

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
