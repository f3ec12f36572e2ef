"""The documentation: it builds without warnings, and its code runs.

- every ```python block of README.md and docs/*.md runs on its own, in a fresh namespace and an
  empty working directory (a block whose first line is ``# sketch: ...`` stands for user code: it
  is compiled, not run);
- every public docstring of the API has an example, and the examples pass as doctests;
- Sphinx builds the pages, the API reference and the notebooks (executed at build time, so the
  rendered pages carry their outputs) with warnings as errors.
"""
import doctest
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from unittest import mock

import pytest

import fsopt
from fsopt.core import checks, plugins, solvers

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SCRIPTS = {ROOT / "docs" / "extending.md"}  # blocks that run in order as one script (test_extending.py)
BLOCKS = [(page, i, block) for page in PAGES if page not in SCRIPTS
          for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M))]
PUBLIC = [getattr(fsopt, name) for name in fsopt.__all__]


def test_readme_first_screen_leads():
    text = (ROOT / "README.md").read_text()
    first = text.splitlines()[:60]
    assert any(line.startswith("pip install -e . && fsopt run") for line in first)
    assert 'pip install -e ".[test]" && python -m pytest -n 2' in first
    assert any("my_data.csv" in line for line in first), "the own-data example is on the first screen"
    assert len(text.splitlines()) < 200


def test_ci_runs_the_readme_setup_commands_in_a_fresh_clone():
    setup = (ROOT / "README.md").read_text().split("## Set-up", 1)[1].split("## ", 1)[0]
    commands = re.search(r"^```bash\n(.*?)^```", setup, re.S | re.M).group(1).splitlines()
    ci = (ROOT / ".ci" / "run").read_text()
    assert len(commands) == 2 and all(f"time ({command})" in ci for command in commands), commands
    steps = [ci.index(s) for s in ("git clone", 'cd "$CLONE"', *(f"time ({c})" for c in commands))]
    assert steps == sorted(steps), "the set-up commands run in the clone, after it is made"


@pytest.fixture
def registries():
    """What documentation code registers (backends, checks, probes, planted bugs, named callables)
    is forgotten after the test: the other tests of this process see fsopt's own registries."""
    groups = [mock.patch.dict(d) for d in (solvers._BACKENDS, checks._CHECKS, checks._PROBES,
                                              checks._BUGS, *plugins._REGISTERED.values())]
    for g in groups:
        g.start()
    yield
    for g in reversed(groups):
        g.stop()


@pytest.mark.parametrize("page,index,block", BLOCKS,
                         ids=[f"{p.relative_to(ROOT)}#{i}" for p, i, _ in BLOCKS])
def test_python_block_runs(page, index, block, tmp_path, monkeypatch, registries):
    monkeypatch.chdir(tmp_path)
    code = compile(block, f"{page.name} python block {index}", "exec")
    if block.startswith("# sketch:"):
        return
    exec(code, {"__name__": f"docs_block_{index}"})  # noqa: S102 - our own documentation


def test_readme_example_selects_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    block = next(b for p, _, b in BLOCKS if p.name == "README.md" and "my_data.csv" in b)
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102
    logo = namespace["logo"]
    assert logo.converged_ and set(logo.get_feature_names_out()) <= set(namespace["X"].columns)
    assert 0 < logo.get_support().sum() < namespace["X"].shape[1]


@pytest.mark.parametrize("obj", PUBLIC, ids=lambda o: o.__name__)
def test_public_docstring_has_a_passing_example(obj, registries):
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, obj.__name__) if t.examples]
    assert tests, f"{obj.__name__}: no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:  # what the examples register is forgotten (fixture registries)
        runner.run(test)
    assert runner.failures == 0, f"{obj.__name__}: {runner.failures} failing example(s)"


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None,
                    reason="sphinx and myst-nb are not installed (pip install -e '.[test]')")
def test_docs_build_without_warnings(tmp_path):
    out = tmp_path / "html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("MPLBACKEND", None)  # the notebooks' kernels draw inline: figures become outputs
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), "-c", "docs", ".", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    page = (out / "notebooks" / "logo_spiral.html").read_text()
    assert "selected: [0 1]" in page, "the notebook page carries its printed output"
    assert "<img" in page, "the notebook page carries its figures"
    api = (out / "docs" / "api.html").read_text()
    for obj in PUBLIC:
        assert obj.__name__ in api
