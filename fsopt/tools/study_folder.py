"""An output folder (``--out``) that survives crashes: one study, one process, one append-only log.

Used by ``fsopt bench`` (log ``results.jsonl``) and ``fsopt experiment`` (log ``splits.jsonl``);
each tool gives the study's identity and its own row check.  :func:`check_out` is called before
any work; :class:`StudyFolder` is entered once per run::

    with StudyFolder(out, identity, check_row) as folder:
        rows = folder.rows()            # the log, every row validated
        folder.append(new_rows)         # whole lines, one write, fsync'ed
        folder.write("results.csv", data)   # atomic: a temporary file, then a rename

- ``--out`` must be a directory that can be written, not a symbolic link (else a ValueError
  naming it);
- a lock (``flock`` on ``.lock``) makes a second run on the same folder a clear error, and dies
  with its process (SIGKILL included);
- ``study.json`` stores the study's identity; another study on the same folder is an error
  naming each field that differs, with both values; a field the tool lets grow (``grows``, e.g.
  bench's solvers) is extended instead: the union of what was stored and what is given;
- the log is appended in whole lines; a torn last line (a crash mid-write) is dropped with a
  notice, a last line without its newline but complete is kept and the newline added; any other
  line that is not a valid row is an error naming the file and the line;
- every file is opened without following a symbolic link (``O_NOFOLLOW``), so a planted link
  cannot make a run write outside the folder.
"""
from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

from ..core.limits import load_json

NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
ROW_ERRORS = (ValueError, KeyError, TypeError, AttributeError)


def check_out(out, what="--out", create=True) -> Path:
    """Create ``out`` (a directory) and prove it writable; a ValueError naming it when it is a
    file, a symbolic link, under a file, or cannot be written.  ``create=False`` checks the same
    without creating anything (a directory not there yet: its nearest existing parent must be a
    writable directory), for a run that may still be refused."""
    out = Path(out)
    if out.is_symlink():
        raise ValueError(f"{what} {out}: is a symbolic link; give the directory itself")
    if out.exists() and not out.is_dir():
        raise ValueError(f"{what} {out}: is a file, not a directory")
    parent = next((p for p in out.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise ValueError(f"{what} {out}: cannot write there ({parent} exists and is not a directory)")
    if not create and not out.exists():
        if not os.access(parent or Path.cwd(), os.W_OK | os.X_OK):
            raise ValueError(f"{what} {out}: the directory cannot be created ({parent} is not writable)")
        return out
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".fsopt-write-test-{os.getpid()}"
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600))
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"{what} {out}: the directory is not writable ({exc.strerror or exc})") from None
    return out


def notice(text):
    print(f"fsopt: notice: {text}", file=sys.stderr)


class StudyFolder:
    """``out`` holding one study (``identity``, a JSON-able dict) and its log ``log_name``
    (JSON lines, each checked by ``check_row(row) -> row`` when read back; ``check_row`` raises
    ValueError, KeyError or TypeError for a row that is not valid).  ``notices`` lists what
    reading the log repaired (also printed on stderr).

    With ``key(row)``, a key may appear again in the log only after a row that
    ``replaceable(row)`` accepts (e.g. a failed solve run again): any other repeat is a row no run
    writes, refused with the file and both line numbers; a repeat of a replaceable row that is
    byte for byte the same line is read once, with a notice."""

    def __init__(self, out, identity: dict, check_row, log_name="results.jsonl", what="--out",
                 key=None, replaceable=None, grows=None):
        self.path, self.identity, self.check_row = Path(out), identity, check_row
        self.log, self.what, self.notices, self._lock = self.path / log_name, what, [], None
        self.key, self.replaceable = key, replaceable
        self.grows = dict(grows or {})  # fields a later run may extend: a list, or "all"
        self.grown = dict(self.grows)  # after entering: the union of the stored and the given

    def __enter__(self):
        check_out(self.path, self.what)
        self._lock = _open(self.path / ".lock", os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock)
            raise ValueError(f"{self.what} {self.path} is in use by another run (lock "
                             f"{self.path / '.lock'}); wait for it to finish or choose another "
                             f"{self.what}") from None
        try:
            self._claim()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        if self._lock is not None:
            os.close(self._lock)  # releases the lock
            self._lock = None

    def _claim(self):
        """Store the identity, or check it against the one stored."""
        stored_path = self.path / "study.json"
        if not stored_path.exists() and not stored_path.is_symlink():
            self._store()
            return
        try:
            stored = load_json(self.read("study.json"), str(stored_path))
            if not isinstance(stored, dict):
                raise ValueError(f"holds {type(stored).__name__}, not a JSON object")
        except (OSError, ValueError) as exc:
            raise ValueError(f"{self.what} {self.path}: {stored_path} is not readable study metadata "
                             f"({exc}); move it away or choose another {self.what}") from None
        fixed = {k: v for k, v in stored.items() if k not in self.grows}
        if fixed != self.identity:
            differ = [f"{k}: {fixed.get(k)!r} there, {self.identity.get(k)!r} now"
                      for k in sorted(set(fixed) | set(self.identity)) if fixed.get(k) != self.identity.get(k)]
            raise ValueError(f"{self.what} {self.path} holds another study ({'; '.join(differ)}); "
                             f"its results would be mixed or replaced: choose another {self.what}")
        for k in self.grows:
            if not (stored.get(k) in (None, "all") or isinstance(stored[k], list)
                    and all(isinstance(v, str) for v in stored[k])):
                raise ValueError(f"{self.what} {self.path}: {stored_path} field {k!r} = {stored[k]!r} is not a list "
                                 f"of names or \"all\"; move it away or choose another {self.what}")
        self.grown = {k: _union(stored.get(k), v) for k, v in self.grows.items()}
        if any(stored.get(k) != v for k, v in self.grown.items()):
            self._store()

    def _store(self):
        study = dict(self.identity, **self.grown)
        self.write("study.json", (json.dumps(study, indent=1, sort_keys=True) + "\n").encode())

    def read(self, name) -> bytes:
        fd = _open(self.path / name, os.O_RDONLY)
        with os.fdopen(fd, "rb") as fh:
            return fh.read()

    def rows(self, repair=True) -> list:
        """The log's rows, each validated; a torn last line is dropped (and, with ``repair``,
        under the lock, cut from the file) with a notice; a complete last line without its
        newline gets one (``repair``)."""
        if not self.log.exists() and not self.log.is_symlink():
            return []
        data = self.read(self.log.name)
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline
        rows, sources = [], []
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    rows.append(self.check_row(load_json(line, "the line")))
                except ROW_ERRORS as exc:
                    raise ValueError(f"results file {self.log}, line {number}, is not a valid row "
                                     f"({type(exc).__name__}: {exc}); move it away or choose another "
                                     f"{self.what}") from None
                sources.append((number, line))
        if tail.strip():
            try:
                rows.append(self.check_row(load_json(tail, "the line")))
                sources.append((len(lines) + 1, tail))
            except ROW_ERRORS as exc:
                self.notices.append(f"{self.log}: dropped its last line, cut short by an interrupted run "
                                    f"({len(tail)} bytes; {type(exc).__name__}: {exc}); its row is "
                                    f"computed again")
                notice(self.notices[-1])
                if repair:
                    self._truncate(len(data) - len(tail))
            else:
                if repair:
                    self._append(b"\n")
        self._check_repeats(rows, sources)
        return rows

    def _check_repeats(self, rows, lines):
        """ValueError naming the file and both lines when a key repeats after a row that may not
        be replaced; a line repeating a replaceable one byte for byte is read once, with a notice."""
        if self.key is None:
            return
        last = {}
        for index, row in enumerate(rows):
            key = self.key(row)
            if key in last:
                (before, text), (number, again) = lines[last[key]], lines[index]
                if not self.replaceable(rows[last[key]]):
                    raise ValueError(f"results file {self.log}, lines {before} and {number}: the same entry "
                                     f"twice ({', '.join(map(str, key))}), and the first is not one a later "
                                     f"run replaces; no run writes that: remove one of them, or choose "
                                     f"another {self.what}")
                if text.strip() == again.strip():
                    self.notices.append(f"{self.log}: line {number} repeats line {before} exactly (a retry "
                                        f"that ended the same way, or a copied line); read once")
                    notice(self.notices[-1])
            last[key] = index

    def append(self, rows, default=str):
        """Append ``rows`` as whole JSON lines in one write, then fsync."""
        if rows:
            self._append("".join(json.dumps(r, default=default) + "\n" for r in rows).encode())

    def _append(self, data: bytes):
        fd = _open(self.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)

    def _truncate(self, size):
        fd = _open(self.log, os.O_WRONLY)
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        finally:
            os.close(fd)

    def write(self, name, data: bytes):
        """Replace ``name`` atomically (a reader sees the old file or the new one, never a part)."""
        target = self.path / name
        temporary = self.path / f".{name}.{os.getpid()}.tmp"
        fd = _open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temporary, target)  # replaces a link itself, never what it points to
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


def _union(stored, given):
    """A grown field: "all" if either is, else the sorted union of both lists."""
    if stored is None or stored == given:
        return given
    if "all" in (stored, given):
        return "all"
    return sorted(set(stored) | set(given))


def _open(path, flags) -> int:
    try:
        return os.open(path, flags | NOFOLLOW, 0o644)
    except OSError as exc:
        if os.path.islink(path):
            raise ValueError(f"{path} is a symbolic link; fsopt does not follow links inside its "
                             f"output folder (remove it)") from None
        raise
