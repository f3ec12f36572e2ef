import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

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
