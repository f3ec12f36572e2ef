"""The notebooks are stored without outputs; the documentation build (tests/test_docs.py) executes
each one from top to bottom, with its assertions, and renders the outputs, which must read clean."""
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and not any(c.get("outputs") or c.get("execution_count") for c in code), "committed outputs"
