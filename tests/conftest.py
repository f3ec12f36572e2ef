import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# The suite's property searches are the same on every run (hypothesis derives their examples from
# each test, and keeps no database): a failure is the commit's, not the draw's.  A search of new
# examples: FSOPT_HYPOTHESIS=explore, or pytest --hypothesis-profile=explore.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("FSOPT_HYPOTHESIS", "deterministic"))

from fsopt.datasets import packaged_data_dir

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def install_example(name, tmp):
    """An environment whose Python sees the example plugin package ``examples/<name>``,
    pip-installed (built from a copy, so the source tree stays clean) into a target folder under
    ``tmp``: the rest of the test session, possibly running in parallel, never sees the plugin."""
    source = shutil.copytree(EXAMPLES / name, tmp / "src")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(tmp / "site"), str(source)], check=True, capture_output=True, timeout=300)
    path = os.pathsep.join(p for p in [str(tmp / "site"), os.environ.get("PYTHONPATH")] if p)
    return dict(os.environ, PYTHONPATH=path)


def run_fsopt(env, *args, cwd=None, expect=0):
    """``fsopt ARGS`` in a fresh interpreter with ``env``; its stdout (exit code checked)."""
    result = subprocess.run([sys.executable, "-m", "fsopt.tools.cli", *args], env=env, cwd=cwd,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == expect, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


@pytest.fixture(autouse=True)
def _packaged_data_only(monkeypatch):
    """Data set names resolve to the packaged copy in every test (and its subprocesses), whatever
    ``$FSOPT_DATA`` the user has set; tests of ``$FSOPT_DATA`` set it themselves."""
    monkeypatch.delenv("FSOPT_DATA", raising=False)


@pytest.fixture(scope="session")
def data_dir():
    """The benchmark data shipped with fsopt (``fsopt/datasets/data``; ``$FSOPT_DATA`` is not read)."""
    return packaged_data_dir()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


# --- executed notebooks (the documentation build runs each one: tests/test_docs.py) ----------
def _texts(output):
    """Every text an output shows: a stream's, and each of a result's text formats."""
    if output.output_type == "stream":
        return [output.text]
    if output.output_type == "error":
        return ["\n".join(output.traceback)]
    return [v for k, v in output.get("data", {}).items() if k.startswith("text/")]


# a path from the file-system root with at least one directory: /home/u/x, /tmp/a.png
ABSOLUTE_PATH = re.compile(r"(?:^|[\s'\"(=\[])(/(?:[\w.+-]+/)+[\w.+-]*)")
MARKDOWN_TABLE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$", re.M)
MAX_TABLE_CHARS = 120  # a table whose rows need more characters runs past the page's column


def _table_width(html):
    """The widest cell of each column, summed: the characters an HTML table's row needs."""
    widths = {}
    for row in re.findall(r"<tr.*?</tr>", html, re.S):
        for j, cell in enumerate(re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)):
            widths[j] = max(widths.get(j, 0), len(re.sub(r"<[^>]+>", "", cell).strip()))
    return sum(widths.values())


def _output_problems(cell_index, output):
    found = []
    if output.output_type == "stream" and output.name == "stderr":
        found.append(f"stderr: {output.text[:200]!r}")
    for text in _texts(output):
        if "Warning" in text:
            found.append(f"a warning: {text[:200]!r}")
        found += [f"an absolute path: {m!r}" for m in ABSOLUTE_PATH.findall(text)]
    plain = output.get("data", {}).get("text/plain", "") + (output.text if output.output_type == "stream" else "")
    if MARKDOWN_TABLE.search(plain):
        found.append("a Markdown table shown as raw text (display it with IPython.display.Markdown)")
    if any(line.endswith(" \\") for line in plain.splitlines()):
        found.append("a DataFrame too wide for the column (pandas split it)")
    data = output.get("data", {})
    markdown_rows = [line for line in data.get("text/markdown", "").splitlines() if line.startswith("|")]
    width = max([_table_width(data.get("text/html", ""))] + [len(row) for row in markdown_rows])
    if width > MAX_TABLE_CHARS:
        found.append(f"a table {width} characters wide (at most {MAX_TABLE_CHARS} fit the column)")
    return [f"cell {cell_index}: {p}" for p in found]


def notebook_output_problems(nb):
    """What an executed notebook's outputs must not show, cell by cell: stderr, a warning, an
    absolute path, a raw Markdown table, a table wider than the page's column."""
    return [p for i, cell in enumerate(nb.cells) for out in cell.get("outputs", []) for p in _output_problems(i, out)]


@pytest.fixture
def backend_registry():
    """The backend registry, restored after the test whatever it registers or replaces."""
    from fsopt.core.solvers import BACKEND_REGISTRY

    with BACKEND_REGISTRY.scoped() as registry:
        yield registry
