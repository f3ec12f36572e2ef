"""The papers' experiments as commands: ``fsopt experiment NAME --data PATH``.

One module per protocol (``logo_microarray``, ``logo_uci``, ``nmmkl_uci``, ``lfs_table1``), each with
its paper's data sets and figures (``PAPER``), ``plan(X, y, dataset, paper, ...)`` (splits and
settings), ``run_split(plan, X, y, split)`` (one outer split's JSON-able record) and
``summarize(plan, records) -> (rows, notes)``.  Shared pieces: ``papers`` (which paper data set a
file is), ``preprocess`` (imputation, mostly-missing columns, two-class versions, fitted in the
training rows), ``study`` (the study's identity and its checksummed row per finished split, kept
in the ``--out`` folder of :mod:`fsopt.tools.study_folder`: checked first, locked, resumable),
``splits``, ``rankers``/``relieff`` (the baselines), ``evaluate`` and ``results``.
"""
from __future__ import annotations

from pathlib import Path

from joblib import Parallel, delayed
from ...core.progress import tqdm

from . import lfs_table1, logo_microarray, logo_uci, nmmkl_uci
from .papers import identify
from .preprocess import Preprocessing, one_vs_rest
from ..study_folder import StudyFolder, check_out
from .results import write
from .study import LOG, check_row, data_digest, records, split_row

PROTOCOLS = {m.NAME: m for m in (logo_microarray, logo_uci, nmmkl_uci, lfs_table1)}


def _generated():
    from ...datasets.lfs_synthetic import make_lfs_synthetic
    from ...datasets.nmmkl_toy import make_nmmkl_toy
    from ...datasets.spiral import make_spiral

    return {"spiral": lambda: make_spiral(random_state=0),
            "nmmkl-toy": lambda: make_nmmkl_toy(random_state=0),
            "lfs-synthetic": lambda: make_lfs_synthetic(random_state=0)}


def load_data(source, data_dir=None, label=None):
    """``(X, y, name)``: a generated set (spiral, nmmkl-toy, lfs-synthetic; seed 0), ``wdbc``, a CSV
    file (feature columns and a label column ``label``, or the one ``label`` names; missing cells as NaN), or a
    name found in ``data_dir`` / the default data directories (``$FSOPT_DATA``, the packaged data)."""
    from ...datasets import load_dataset

    generated = _generated()
    if str(source) in generated:
        X, y = generated[str(source)]()
        return X, y, str(source)
    X, y = load_dataset(source, data_dir=data_dir, label=label, allow_missing=True)
    name = Path(str(source)).name
    for suffix in (".gz", ".csv"):
        name = name.removesuffix(suffix)
    return X, y, name


def _run_one(protocol, plan, X, y, split, progress):
    units = (lambda items: tqdm(items, desc=f"split {split}", leave=False, position=1)) if progress else iter
    return split, protocol.run_split(plan, X, y, split, units)


def run_experiment(name, data, out, *, quick=False, n_splits=None, random_state=0, progress=True,
                   data_dir=None, label=None, paper_dataset=None, positive_class=None, impute=None,
                   drop_missing=None, n_jobs=1):
    """Run protocol ``name`` on ``data``; ``out`` holds the study (resumable) and, at the end,
    ``results.csv`` and ``results.md``; return the results frame.

    ``paper_dataset`` names the paper's data set the file is (else recognised from its shape and
    classes); ``positive_class`` makes the two-class version (that class against the rest);
    ``impute`` and ``drop_missing`` are fitted on each training part.  ``n_jobs`` runs outer splits
    in parallel processes; results are the same as a serial run's.
    """
    if name not in PROTOCOLS:
        raise ValueError(f"unknown experiment {name!r}; choose one of {', '.join(PROTOCOLS)}")
    if n_splits is not None and n_splits < 1:
        raise ValueError(f"n_splits must be >= 1; got {n_splits}")
    if not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1; got {n_jobs!r}")
    protocol = PROTOCOLS[name]
    out = check_out(out)
    pre = Preprocessing(impute, drop_missing)
    X, y, source = load_data(data, data_dir, label)
    pre.check(X, source)
    paper, how = identify(protocol.PAPER, X, y, paper_dataset, source)
    notes = [f"Data: {source}; {how}"]
    if positive_class is not None:
        y = one_vs_rest(y, positive_class)
        notes.append(f"Two-class version: class {positive_class!r} ({int((y != 'rest').sum())} samples) against "
                     f"the rest ({int((y == 'rest').sum())}).")
    dataset = paper.name if paper else source
    plan = protocol.plan(X, y, dataset, paper, quick=quick, n_splits=n_splits, random_state=random_state,
                         pre=pre.steps())
    identity = {"protocol": name, "data": data_digest(X, y), "dataset": dataset, "quick": bool(quick),
                "n_splits": len(plan.splits), "seed": int(random_state), "impute": impute,
                "drop_missing": drop_missing, "positive_class": None if positive_class is None else str(positive_class)}
    with StudyFolder(out, identity, check_row, log_name=LOG) as folder:
        done = records(folder.rows(), folder.log)
        pending = [s for s in range(len(plan.splits)) if s not in done]
        bar = tqdm(total=len(plan.splits), initial=len(plan.splits) - len(pending), desc=name, disable=not progress)
        if n_jobs == 1:
            finished = (_run_one(protocol, plan, X, y, s, progress) for s in pending)
        else:
            finished = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(_run_one)(protocol, plan, X, y, s, False) for s in pending)
        for split, record in finished:
            row = split_row(split, record)
            folder.append([row])
            done[row["split"]] = row["record"]
            bar.update()
        bar.close()
        rows, protocol_notes = protocol.summarize(plan, [done[s] for s in range(len(plan.splits))])
        resumed = len(plan.splits) - len(pending)
        notes += folder.notices + ([f"Resumed: {resumed} of {len(plan.splits)} splits read back from {folder.log}."]
                                   if resumed else [])
        title = f"{protocol.TITLE}: {dataset} ({X.shape[0]} × {X.shape[1]})"
        return write(rows, folder, title, [f"seed {random_state}."] + notes + pre.notes() + plan.notes + protocol_notes)
