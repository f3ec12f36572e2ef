"""A study's durable state under ``--out``: checked before work, locked, one row per finished split.

``out/study.json`` holds the study's identity (protocol, a digest of the data, the options that
change results); ``out/splits.jsonl`` one JSON row per finished outer split, appended with a single
``write`` and ``fsync`` as the split ends, each carrying a SHA-256 of its record.  A re-run reads
the rows back (validated; a torn last line from a killed run is dropped with a notice), skips the
splits they hold and computes the others, so a run killed at any moment loses at most the splits
in progress and never computes a finished one twice.  ``out/.lock`` keeps a second run out.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
from pathlib import Path

import numpy as np

LOG, IDENTITY, LOCK = "splits.jsonl", "study.json", ".lock"


def check_out(out):
    """The ``--out`` directory, created; ValueError naming it when it is a file or cannot be written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out}: is a file, not a directory")
    if out.is_symlink():
        raise ValueError(f"--out {out}: is a symbolic link; give the directory itself")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"--out {out}: cannot write there ({exc.strerror})") from None
    return out


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


def _open_nofollow(path, flags):
    try:
        return os.open(path, flags | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise ValueError(f"{path}: cannot open ({exc.strerror}; a symbolic link is not followed)") from None


class SplitLog:
    """Context manager over ``out``: lock, identity check, finished records (``records``), ``append``."""

    def __init__(self, out, identity):
        self.out, self.identity = Path(out), identity
        self.records, self.notices = {}, []

    def __enter__(self):
        self._lock = _open_nofollow(self.out / LOCK, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock)
            raise ValueError(f"--out {self.out}: another run is writing there (locked)") from None
        try:
            self._check_identity()
            self._read()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        os.close(self._lock)

    def _check_identity(self):
        path = self.out / IDENTITY
        if path.is_symlink():
            raise ValueError(f"{path}: is a symbolic link")
        if path.exists():
            stored = json.loads(path.read_text())
            differ = sorted(k for k in set(stored) | set(self.identity) if stored.get(k) != self.identity.get(k))
            if differ:
                raise ValueError(f"--out {self.out} holds another study (differs in {', '.join(differ)}); "
                                 f"use a new --out or remove that one")
            return
        tmp = self.out / f"{IDENTITY}.tmp"
        tmp.write_text(json.dumps(self.identity, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)

    def _read(self):
        path = self.out / LOG
        if not path.exists():
            return
        fd = _open_nofollow(path, os.O_RDWR)
        try:
            data = os.read(fd, os.fstat(fd).st_size) if os.fstat(fd).st_size else b""
            lines, good = data.split(b"\n"), 0
            for number, line in enumerate(lines[:-1], 1):  # complete lines end with "\n"
                try:
                    entry = json.loads(line)
                    split, record = entry["split"], entry["record"]
                    valid = entry["sha256"] == _checksum(split, record) and isinstance(split, int)
                except (ValueError, KeyError, TypeError):
                    valid = False
                if not valid:
                    raise ValueError(f"{path}: line {number} is not a valid split row (edited or corrupt); "
                                     f"remove the line or use a new --out")
                if split in self.records:
                    raise ValueError(f"{path}: split {split} appears twice (line {number})")
                self.records[split] = record
                good += len(line) + 1
            if lines[-1]:
                self.notices.append(f"{path}: dropped a torn last line ({len(lines[-1])} bytes) left by an "
                                    f"interrupted run; that split is computed again.")
                os.ftruncate(fd, good)
        finally:
            os.close(fd)

    def append(self, split, record):
        """Append split ``split``'s record as one line (one write, then fsync)."""
        record = json.loads(json.dumps(record, default=_plain))  # as it will read back
        line = json.dumps({"split": int(split), "record": record, "sha256": _checksum(int(split), record)})
        data = (line + "\n").encode()
        fd = _open_nofollow(self.out / LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            while data:
                data = data[os.write(fd, data):]
            os.fsync(fd)
        finally:
            os.close(fd)
        self.records[int(split)] = record


def write_atomic(path, text):
    """Write ``text`` to ``path`` through a temporary file and a rename (never a half-written file)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
