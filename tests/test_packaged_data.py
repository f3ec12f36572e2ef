"""The benchmark data shipped with fsopt: what its README states, found by name from the package
alone (no ``$FSOPT_DATA``, nothing beside the repository), and ``$FSOPT_DATA`` searched first."""
import fnmatch
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fsopt
from fsopt.datasets import available_datasets, load_dataset, packaged_data_dir

README = packaged_data_dir() / "README.md"


def _readme_tables():
    """{file: (n_samples, n_features, {label: count})} and {file: sha256} from the README's tables."""
    shapes, digests = {}, {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not cells[0].endswith(".csv.gz"):
            continue
        if len(cells) == 2:
            digests[cells[0]] = cells[1]
            continue
        n, d = (int(v) for v in re.fullmatch(r"(\d+) × (\d+)", cells[1]).groups())
        counts = dict(item.strip().rsplit(":", 1) for item in cells[2].split(","))
        shapes[cells[0]] = (n, d, {label: int(c) for label, c in counts.items()})
    return shapes, digests


SHAPES, DIGESTS = _readme_tables()


def test_the_readme_lists_exactly_the_packaged_files():
    files = sorted(p.name for p in packaged_data_dir().glob("*.csv.gz"))
    assert len(files) == 10 and sorted(SHAPES) == files and sorted(DIGESTS) == files
    assert sorted(available_datasets(packaged_data_dir())) == [f.removesuffix(".csv.gz") for f in files]


@pytest.mark.parametrize("file", sorted(SHAPES))
def test_each_file_is_what_the_readme_states(file):
    path = packaged_data_dir() / file
    assert hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest() == DIGESTS[file]
    X, y = load_dataset(path)
    n, d, counts = SHAPES[file]
    labels, found = np.unique(y, return_counts=True)
    assert X.shape == (n, d) and dict(zip(map(str, labels), found.tolist())) == counts


def test_the_wheel_declares_every_packaged_file():
    """pyproject's package data matches each file of fsopt/datasets/data (else the wheel lacks it)."""
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    setuptools = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]
    assert "fsopt.datasets.data" in setuptools["packages"]
    globs = setuptools["package-data"]["fsopt.datasets.data"]
    for path in packaged_data_dir().iterdir():
        assert any(fnmatch.fnmatch(path.name, g) for g in globs), path.name


def test_a_name_loads_from_the_package_alone(tmp_path):
    """fsopt copied where nothing lies beside it, run from a temporary directory, FSOPT_DATA unset."""
    site = tmp_path / "site"
    shutil.copytree(Path(fsopt.__file__).parent, site / "fsopt",
                    ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "FSOPT_DATA"}
    env["PYTHONPATH"] = str(site)
    script = ("import fsopt, fsopt.datasets as d\n"
              "X, y = d.load_dataset('sonar')\n"
              "print(fsopt.__file__); print(X.shape, sorted(set(y))); print(sorted(d.available_datasets()))")
    result = subprocess.run([sys.executable, "-c", script], cwd=work, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    where, shape, names = result.stdout.splitlines()
    assert Path(where).is_relative_to(site) and not (site.parents[1] / "shared").exists()
    assert shape == "(208, 60) ['M', 'R']"
    assert names == str(sorted(f.removesuffix(".csv.gz") for f in SHAPES))


def test_fsopt_data_is_searched_before_the_packaged_copy(tmp_path, monkeypatch):
    pd.DataFrame({"x0": [0.0, 1.0, 2.0], "label": ["a", "b", "a"]}).to_csv(tmp_path / "sonar.csv", index=False)
    monkeypatch.setenv("FSOPT_DATA", str(tmp_path))
    X, y = load_dataset("sonar")
    assert X.shape == (3, 1) and list(y) == ["a", "b", "a"]
    assert load_dataset("colon")[0].shape == (62, 2000)  # not in FSOPT_DATA: the packaged copy
