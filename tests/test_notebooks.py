"""The notebooks are stored without outputs; the documentation build (tests/test_docs.py) executes
each one from top to bottom, with its assertions, and renders the outputs, which must read clean."""
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and not any(c.get("outputs") or c.get("execution_count") for c in code), "committed outputs"


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


def _problems(cell_index, output):
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_renders_clean(path, tmp_path):
    """Executed as the documentation build does (a fresh kernel, a temporary working directory),
    no output shows stderr, a warning, an absolute path, a raw Markdown table or a table wider
    than the page's column."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    problems = [p for i, cell in enumerate(nb.cells) for out in cell.get("outputs", []) for p in _problems(i, out)]
    assert not problems, "\n".join(problems)
