"""The papers' experiments as commands: ``fsopt experiment NAME --data PATH``.

One module per protocol (``logo_microarray``, ``logo_uci``, ``nmmkl_uci``, ``lfs_table1``), each with
``run(X, y, dataset, quick=, n_splits=, random_state=, progress=) -> (rows, notes)``; shared pieces:
``splits`` (seeded outer splits), ``rankers``/``selectors``/``relieff`` (the baselines),
``evaluate`` (pipelines fitted on training rows) and ``results`` (results.csv / results.md).
"""
from __future__ import annotations

from pathlib import Path

from . import lfs_table1, logo_microarray, logo_uci, nmmkl_uci
from .results import write

PROTOCOLS = {m.NAME: m for m in (logo_microarray, logo_uci, nmmkl_uci, lfs_table1)}


def _generated():
    from ...datasets.lfs_synthetic import make_lfs_synthetic
    from ...datasets.nmmkl_toy import make_nmmkl_toy
    from ...datasets.spiral import make_spiral

    return {"spiral": lambda: make_spiral(random_state=0),
            "nmmkl-toy": lambda: make_nmmkl_toy(random_state=0),
            "lfs-synthetic": lambda: make_lfs_synthetic(random_state=0)}


def load_data(source, data_dir=None):
    """``(X, y, name)``: a generated set (spiral, nmmkl-toy, lfs-synthetic; seed 0), ``wdbc``, a CSV
    file in the shared/data format, or a name found in ``data_dir`` / the default data directories."""
    from ...datasets import load_dataset

    generated = _generated()
    if str(source) in generated:
        X, y = generated[str(source)]()
        return X, y, str(source)
    X, y = load_dataset(source, data_dir=data_dir)
    name = Path(str(source)).name
    for suffix in (".gz", ".csv"):
        name = name.removesuffix(suffix)
    return X, y, name


def run_experiment(name, data, out, *, quick=False, n_splits=None, random_state=0, progress=True,
                   data_dir=None):
    """Run protocol ``name`` on ``data``; write ``out/results.csv`` and ``out/results.md``; return the frame."""
    if name not in PROTOCOLS:
        raise ValueError(f"unknown experiment {name!r}; choose one of {', '.join(PROTOCOLS)}")
    if n_splits is not None and n_splits < 1:
        raise ValueError(f"n_splits must be >= 1; got {n_splits}")
    protocol = PROTOCOLS[name]
    X, y, dataset = load_data(data, data_dir)
    rows, notes = protocol.run(X, y, dataset, quick=quick, n_splits=n_splits, random_state=random_state,
                               progress=progress)
    title = f"{protocol.TITLE}: {dataset} ({X.shape[0]} × {X.shape[1]})"
    return write(rows, out, title, [f"seed {random_state}."] + notes)
