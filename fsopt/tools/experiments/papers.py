"""The papers' data sets and which one a file is: ``--paper-dataset NAME`` or its shape and classes.

Each protocol keeps a table of its paper's data sets (``PaperDataset``: sizes from the paper's text,
the shapes of the public copies, the figures of its result table, the flags that turn a public
copy into the paper's version).  ``identify`` names the paper data set a file is: the name given
(with aliases) when the file's shape and class counts are that data set's, else a ValueError
naming both; without a name, the one entry whose feature count, sample count and class counts
match the file.  The reason is returned for the notes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FLAG_OPTIONS = {"positive_class": "--positive-class", "drop_missing": "--drop-missing", "impute": "--impute"}


@dataclass(frozen=True)
class PaperDataset:
    """One data set of a paper's table.

    ``n_features`` is the paper's count of original features (or a tuple of the counts of the
    usual copies, the paper's first); ``n_samples`` the sample counts of
    the copies recognised as this set (the paper's train + test, and the usual public copy);
    ``class_counts`` the sorted class sizes of those copies when known (None: shape only).
    ``train``/``test`` are the paper's split sizes; ``figures`` the paper's figures by row key.
    ``flags`` are the options that make the public copy the paper's version (``positive_class``,
    ``impute``, ``drop_missing``), applied when the file is this data set; ``why`` is the
    sentence that justifies them (the paper's words, or what its tables imply where it is silent).
    """

    name: str
    n_features: int | tuple
    n_samples: tuple
    class_counts: tuple | None = None
    train: int | None = None
    test: int | None = None
    figures: dict = field(default_factory=dict)
    aliases: tuple = ()
    flags: dict = field(default_factory=dict)
    why: str = ""

    def shape_text(self):
        """"72 × 7129, classes 25/47": the sizes a copy of this data set has."""
        n = " or ".join(map(str, self.n_samples))
        d = " or ".join(map(str, np.atleast_1d(self.n_features)))
        return f"{n} × {d}" + (f", classes {'/'.join(map(str, self.class_counts))}" if self.class_counts else "")

    def flags_text(self):
        """The recommended flags as command-line options ("" when none)."""
        return " ".join(f"{FLAG_OPTIONS[k]} {v}" for k, v in self.flags.items())


def _key(name):
    return str(name).lower().replace("-", "").replace("_", "").replace(" ", "")


def find(table, name):
    """The entry of ``table`` (name -> PaperDataset) called ``name`` or one of its aliases, else None."""
    for entry in table.values():
        if _key(name) in {_key(entry.name), *map(_key, entry.aliases)}:
            return entry
    return None


def class_counts(y):
    """Sorted class sizes of ``y``."""
    return tuple(sorted(np.unique(np.asarray(y).astype(str), return_counts=True)[1].tolist()))


def matches(entry, X, y):
    """True when ``X, y`` has the shape (and, where known, the class counts) of ``entry``."""
    n, d = X.shape
    return (d in np.atleast_1d(entry.n_features) and n in entry.n_samples
            and (entry.class_counts is None or entry.class_counts == class_counts(y)))


def identify(table, X, y, paper_dataset=None, source=""):
    """``(entry or None, how)``: the paper data set ``X, y`` is, and a sentence saying how it was named.

    A named data set (``paper_dataset``) whose shape or class counts the file does not have is a
    ValueError naming both: its figures, splits and flags would be applied to other data.
    """
    n, d = X.shape
    counts = class_counts(y)
    if paper_dataset is not None:
        entry = find(table, paper_dataset)
        if entry is None:
            raise ValueError(f"--paper-dataset {paper_dataset!r} is not one of this paper's data sets: "
                             f"{', '.join(e.name for e in table.values())}")
        if not matches(entry, X, y):
            raise ValueError(f"--paper-dataset {paper_dataset!r}: {source} is {n} × {d}, classes "
                             f"{'/'.join(map(str, counts))}, not the paper's {entry.name} ({entry.shape_text()}); "
                             "give the paper's copy, or leave --paper-dataset out to run without the paper's figures")
        return entry, f"named the paper's {entry.name} by --paper-dataset ({n} × {d}, as the paper's copy)."
    found = [e for e in table.values() if matches(e, X, y)]
    if len(found) == 1:
        entry = found[0]
        return entry, (f"recognised as the paper's {entry.name} from its shape {n} × {d}"
                       + (f" and class counts {'/'.join(map(str, counts))}" if entry.class_counts else "")
                       + " (--paper-dataset overrides).")
    if len(found) > 1:
        return None, (f"{source} matches several of the paper's data sets by shape ("
                      f"{', '.join(e.name for e in found)}): pass --paper-dataset to name it; no paper figure.")
    return None, f"{source} ({n} × {d}) is not one of the paper's data sets by shape and class counts; no paper figure."


def resolve_flags(entry, given):
    """``(flags, notes, comparable)``: the options to run with, the notes saying where they came from,
    and whether the task is still the paper's.

    ``given`` holds the options passed (None = not passed).  An option not passed takes the paper
    data set's recommended value; one passed with another value is used and stated as a deviation;
    another positive class is another task, so the paper's figures are not comparable.
    """
    flags, notes, comparable = dict(given), [], True
    if entry is None or not entry.flags:
        return flags, notes, comparable
    applied = []
    for key, value in entry.flags.items():
        if given.get(key) is None:
            flags[key] = value
            applied.append(f"{FLAG_OPTIONS[key]} {value}")
        elif str(given[key]) != str(value):
            notes.append(f"Deviation: {FLAG_OPTIONS[key]} {given[key]} where the paper's {entry.name} "
                         f"takes {value}.")
            comparable &= key != "positive_class"
    if applied:
        notes.insert(0, f"The paper's {entry.name}: {', '.join(applied)} applied (recommended; {entry.why})")
    return flags, notes, comparable
