"""The papers' data sets and which one a file is: ``--paper-dataset NAME`` or its shape and classes.

Each protocol keeps a table of its paper's data sets (``PaperDataset``: sizes from the paper's text,
the shapes of the public copies, the figures of its result table).  ``identify`` names the paper
data set a file is: the name given (with aliases), else the one entry whose feature count, sample
count and class counts match the file; the reason is returned for the notes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class PaperDataset:
    """One data set of a paper's table.

    ``n_features`` is the paper's count of original features (or a tuple of the counts of the
    usual copies, the paper's first); ``n_samples`` the sample counts of
    the copies recognised as this set (the paper's train + test, and the usual public copy);
    ``class_counts`` the sorted class sizes of those copies when known (None: shape only).
    ``train``/``test`` are the paper's split sizes; ``figures`` the paper's figures by row key.
    """

    name: str
    n_features: int | tuple
    n_samples: tuple
    class_counts: tuple | None = None
    train: int | None = None
    test: int | None = None
    figures: dict = field(default_factory=dict)
    aliases: tuple = ()


def _key(name):
    return str(name).lower().replace("-", "").replace("_", "").replace(" ", "")


def find(table, name):
    """The entry of ``table`` (name -> PaperDataset) called ``name`` or one of its aliases, else None."""
    for entry in table.values():
        if _key(name) in {_key(entry.name), *map(_key, entry.aliases)}:
            return entry
    return None


def identify(table, X, y, paper_dataset=None, source=""):
    """``(entry or None, how)``: the paper data set ``X, y`` is, and a sentence saying how it was named."""
    n, d = X.shape
    if paper_dataset is not None:
        entry = find(table, paper_dataset)
        if entry is None:
            raise ValueError(f"--paper-dataset {paper_dataset!r} is not one of this paper's data sets: "
                             f"{', '.join(e.name for e in table.values())}")
        how = f"named the paper's {entry.name} by --paper-dataset"
        if d not in np.atleast_1d(entry.n_features):
            how += f" (the file has {d} features, the paper's {entry.name} {np.atleast_1d(entry.n_features)[0]})"
        return entry, how + "."
    counts = tuple(sorted(np.unique(np.asarray(y).astype(str), return_counts=True)[1].tolist()))
    matches = [e for e in table.values() if d in np.atleast_1d(e.n_features) and n in e.n_samples
               and (e.class_counts is None or e.class_counts == counts)]
    if len(matches) == 1:
        entry = matches[0]
        return entry, (f"recognised as the paper's {entry.name} from its shape {n} × {d}"
                       + (f" and class counts {'/'.join(map(str, counts))}" if entry.class_counts else "")
                       + " (--paper-dataset overrides).")
    if len(matches) > 1:
        return None, (f"{source} matches several of the paper's data sets by shape ("
                      f"{', '.join(e.name for e in matches)}): pass --paper-dataset to name it; no paper figure.")
    return None, f"{source} ({n} × {d}) is not one of the paper's data sets by shape and class counts; no paper figure."
