"""A study's identity and its rows: one checksummed row per finished outer split.

The ``--out`` folder itself (checked before work, locked, ``study.json``, the append-only log,
atomic writes) is :class:`fsopt.tools.study_folder.StudyFolder`; here are what an experiment
keeps there: ``splits.jsonl``, one JSON row per finished outer split carrying a SHA-256 of its
record (an edited row is refused), and the digest of the data in the identity.  A re-run reads
the rows back, skips the splits they hold and computes the others, so a run killed at any moment
loses at most the splits in progress and never computes a finished one twice.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

LOG = "splits.jsonl"


def data_digest(X, y):
    """SHA-256 of the data as the protocol sees it (features and labels)."""
    h = hashlib.sha256(np.ascontiguousarray(X, dtype=float).tobytes())
    h.update("\x00".join(map(str, np.asarray(y).tolist())).encode())
    return h.hexdigest()


def _plain(value):
    """NumPy scalars and arrays as JSON values."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"split record holds a {type(value).__name__}, not a JSON value")


def _checksum(split, record):
    return hashlib.sha256(json.dumps([split, record], sort_keys=True).encode()).hexdigest()


def split_row(split, record) -> dict:
    """The log row of split ``split``: its record as it will read back, and the record's SHA-256."""
    record = json.loads(json.dumps(record, default=_plain))
    return {"split": int(split), "record": record, "sha256": _checksum(int(split), record)}


def check_row(row) -> dict:
    """``row`` if it is a split row whose checksum matches its record; ValueError otherwise."""
    split = row["split"]
    if type(split) is not int or row["sha256"] != _checksum(split, row["record"]):
        raise ValueError("not a valid split row: its checksum does not match (edited or corrupt)")
    return row


def records(rows, log) -> dict:
    """{split: record} of the rows read back from ``log``; a split logged twice is an error."""
    done = {}
    for row in rows:
        if row["split"] in done:
            raise ValueError(f"{log}: split {row['split']} appears twice; remove one or use a new --out")
        done[row["split"]] = row["record"]
    return done
