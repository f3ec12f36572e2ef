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

import numpy as np
from joblib import Parallel, delayed
from ...core.progress import Progress, tqdm

from . import lfs_table1, logo_microarray, logo_uci, nmmkl_uci
from .papers import identify, resolve_flags
from .preprocess import Preprocessing, one_vs_rest
from ..study_folder import StudyFolder, check_out
from .results import add_chance, majority_row, withhold_paper, write
from .study import LOG, check_row, data_digest, records, split_row

PROTOCOLS = {m.NAME: m for m in (logo_microarray, logo_uci, nmmkl_uci, lfs_table1)}


def _generated():
    from ...datasets.lfs_synthetic import make_lfs_synthetic
    from ...datasets.nmmkl_toy import make_nmmkl_toy
    from ...datasets.spiral import make_spiral

    return {"spiral": lambda: make_spiral(random_state=0),
            "nmmkl-toy": lambda: make_nmmkl_toy(random_state=0),
            "lfs-synthetic": lambda: make_lfs_synthetic(random_state=0)}


def paper_datasets(name=None):
    """Text listing each protocol's paper data sets (of ``name``, or all): sizes of the copies
    recognised, and the recommended flags with the sentence that justifies them."""
    lines = []
    for protocol in ([PROTOCOLS[name]] if name else PROTOCOLS.values()):
        lines.append(f"{protocol.NAME}: {protocol.TITLE}")
        for entry in protocol.PAPER.values():
            lines.append(f"  {entry.name:16} {entry.shape_text()}" + (f"  [{entry.flags_text()}]" if entry.flags else ""))
            if entry.why:
                lines.append(f"  {'':16} why: {entry.why}")
    return "\n".join(lines)


def load_data(source, data_dir=None, label=None):
    """``(X, y, name)``: a generated set (spiral, nmmkl-toy, lfs-synthetic; seed 0), ``wdbc``, a CSV
    file (feature columns and a label column ``label``, or the one ``label`` names; missing cells as NaN), or a
    name found in ``data_dir`` / the default data directories (``$FSOPT_DATA``, the packaged data)."""
    from ...datasets import load_dataset

    generated = _generated()
    if str(source) in generated:
        X, y = generated[str(source)]()
        return X, y, str(source)
    X, y = load_dataset(source, data_dir=data_dir, label=label, allow_missing=True, label_hint="--label NAME")
    name = Path(str(source)).name
    for suffix in (".gz", ".csv"):
        name = name.removesuffix(suffix)
    return X, y, name


def _run_one(protocol, plan, X, y, key, split, progress):
    units = (lambda items: tqdm(items, desc=f"split {split}", leave=False, position=1)) if progress else iter
    return key, protocol.run_split(plan, X, y, split, units)


def permuted_labels(y, n_null, random_state):
    """``n_null`` permutations of ``y``, seeded apart from the splits' seeds (``SeedSequence([seed, 2**31 + r])``)."""
    return [np.random.default_rng(np.random.SeedSequence([int(random_state), 2**31 + r])).permutation(y)
            for r in range(n_null)]


def _check_arguments(name, n_splits, n_jobs, n_null):
    if name not in PROTOCOLS:
        raise ValueError(f"unknown experiment {name!r}; choose one of {', '.join(PROTOCOLS)}")
    if n_splits is not None and n_splits < 1:
        raise ValueError(f"n_splits must be >= 1; got {n_splits}")
    if not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1; got {n_jobs!r}")
    if not isinstance(n_null, int) or n_null < 0:
        raise ValueError(f"n_null (--null) must be an int >= 0; got {n_null!r}")


def _add_chance_level(rows, protocol, plans, labels, done, source):
    """Each row's error on the permuted labels (``labels[1:]``), added to ``rows``; returns the note."""
    n, n_null = len(plans[0].splits), len(plans) - 1
    null_rows = []
    for r in range(1, n_null + 1):
        permuted, _ = protocol.summarize(plans[r], [done[r * n + s] for s in range(n)])
        null_rows.append(permuted + [majority_row(source, labels[r], plans[r].splits)])
    add_chance(rows, null_rows)
    return (f"Permuted labels: the whole protocol run again on {n_null} permutation"
            f"{'s' * (n_null > 1)} of the labels (seeded), each with its own splits; "
            "'permuted labels' is the row's error there (the mean over the permutations "
            "± their standard deviation when more than one): its chance level.")


def _caption(rows, quick, comparable, flag_notes):
    """The table's caption; the paper column withheld where the run is not the paper's protocol."""
    caption = []
    if quick:
        caption.append("Paper column blank: --quick runs fewer splits, smaller grids and fewer features than the "
                       "paper's protocol, so its figures are not comparable.")
        withhold_paper(rows, "--quick is not the paper's protocol")
    elif not comparable:
        caption.append("Paper column blank: another positive class than the paper's is another task.")
        withhold_paper(rows, "another positive class than the paper's")
    return caption + [n for n in flag_notes if n.startswith("Deviation")]


def run_experiment(name, data, out, *, quick=False, n_splits=None, random_state=0, progress=True,
                   data_dir=None, label=None, paper_dataset=None, positive_class=None, impute=None,
                   drop_missing=None, n_jobs=1, n_null=0):
    """Run protocol ``name`` on ``data``; ``out`` holds the study (resumable) and, at the end,
    ``results.csv`` and ``results.md``; return the results frame.

    ``paper_dataset`` names the paper's data set the file is (else recognised from its shape and
    classes; a file that is not that data set is refused); its recommended flags apply unless
    given.  ``positive_class`` makes the two-class version (that class against the rest);
    ``impute`` and ``drop_missing`` are fitted on each training part.  ``n_null`` runs the whole
    protocol again on that many permutations of the labels: the chance level of every method.
    ``n_jobs`` runs outer splits in parallel processes; results are the same as a serial run's.
    Everything is checked before ``out`` is created: a refused run leaves nothing behind.
    """
    _check_arguments(name, n_splits, n_jobs, n_null)
    protocol = PROTOCOLS[name]
    check_out(out, create=False)
    X, y, source = load_data(data, data_dir, label)
    paper, how = identify(protocol.PAPER, X, y, paper_dataset, source)
    flags, flag_notes, comparable = resolve_flags(paper, {"positive_class": positive_class, "impute": impute,
                                                          "drop_missing": drop_missing})
    pre = Preprocessing(flags["impute"], flags["drop_missing"])
    pre.check(X, source)
    notes = [f"Data: {source}; {how}"] + flag_notes
    if flags["positive_class"] is not None:
        y = one_vs_rest(y, flags["positive_class"])
        notes.append(f"Two-class version: class {flags['positive_class']!r} ({int((y != 'rest').sum())} samples) "
                     f"against the rest ({int((y == 'rest').sum())}).")
    settings = dict(quick=quick, n_splits=n_splits, random_state=random_state, pre=pre.steps())
    labels = [y] + permuted_labels(y, n_null, random_state)
    plans = [protocol.plan(X, permuted, source, paper, **settings) for permuted in labels]
    plan, n = plans[0], len(plans[0].splits)
    identity = {"protocol": name, "data": data_digest(X, y), "dataset": source, "quick": bool(quick),
                "n_splits": n, "seed": int(random_state), "impute": flags["impute"],
                "drop_missing": flags["drop_missing"], "positive_class": None if flags["positive_class"] is None
                else str(flags["positive_class"]), "null": n_null}
    with StudyFolder(out, identity, check_row, log_name=LOG) as folder:
        done = records(folder.rows(), folder.log)
        pending = [(r, s) for r in range(n_null + 1) for s in range(n) if r * n + s not in done]
        total = n * (n_null + 1)
        bar = Progress(total, name, unit="splits", enabled=progress, initial=total - len(pending))
        inner = bar.bar is not None  # each split's own bar on a terminal; a log gets the splits' lines
        if n_jobs == 1:
            finished = (_run_one(protocol, plans[r], X, labels[r], r * n + s, s, inner) for r, s in pending)
        else:
            finished = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                delayed(_run_one)(protocol, plans[r], X, labels[r], r * n + s, s, False) for r, s in pending)
        for key, record in finished:
            row = split_row(key, record)
            folder.append([row])
            done[row["split"]] = row["record"]
            bar.update()
        bar.close()
        rows, protocol_notes = protocol.summarize(plan, [done[s] for s in range(n)])
        rows.append(majority_row(source, y, plan.splits))
        if n_null:
            protocol_notes.append(_add_chance_level(rows, protocol, plans, labels, done, source))
        caption = _caption(rows, quick, comparable, flag_notes)
        resumed = total - len(pending)
        notes += folder.notices + ([f"Resumed: {resumed} of {total} splits read back from {folder.log}."]
                                   if resumed else [])
        title = f"{protocol.TITLE}: {source} ({X.shape[0]} × {X.shape[1]})" + (f", the paper's {paper.name}" if paper else "")
        return write(rows, folder, title, [f"seed {random_state}."] + notes + pre.notes() + plan.notes + protocol_notes,
                     caption)
