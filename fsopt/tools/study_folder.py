"""An output folder (``--out``) that survives crashes: one study, one process, one append-only log.

:class:`StudyFolder` is entered once per run::

    with StudyFolder(out, identity, check_row) as folder:
        rows = folder.rows()            # the log, every row validated
        folder.append(new_rows)         # whole lines, one write, fsync'ed
        folder.write("results.csv", data)   # atomic: a temporary file, then a rename

- a lock (``flock`` on ``.lock``) makes a second run on the same folder a clear error, and dies
  with its process (SIGKILL included);
- ``study.json`` stores the study's identity; another study on the same folder is an error;
- the log is appended in whole lines; a torn last line (a crash mid-write) is dropped with a
  notice, a last line without its newline but complete is kept and the newline added;
- every file is opened without following a symbolic link (``O_NOFOLLOW``), so a planted link
  cannot make a run write outside the folder.
"""
from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path

NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


def prepare(out, what="--out") -> Path:
    """Create ``out`` (a directory) and prove it writable; a clear ValueError otherwise."""
    out = Path(out)
    parent = next((p for p in [out, *out.parents] if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise ValueError(f"{what} {out}: {parent} exists and is not a directory")
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
    (JSON lines, each checked by ``check_row(row) -> row`` when read back)."""

    def __init__(self, out, identity: dict, check_row, log_name="results.jsonl", what="--out"):
        self.path, self.identity, self.check_row = Path(out), identity, check_row
        self.log, self.what, self._lock = self.path / log_name, what, None

    def __enter__(self):
        prepare(self.path, self.what)
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
            self.write("study.json", json.dumps(self.identity, indent=1, sort_keys=True).encode())
            return
        try:
            stored = json.loads(self.read("study.json"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{self.what} {self.path}: {stored_path} is not readable study metadata "
                             f"({exc}); move it away or choose another {self.what}") from None
        if stored != self.identity:
            diff = {k: (stored.get(k), self.identity.get(k)) for k in sorted(set(stored) | set(self.identity))
                    if stored.get(k) != self.identity.get(k)}
            raise ValueError(
                f"{self.what} {self.path} holds another study ({'; '.join(f'{k}: {a!r} there, {b!r} now' for k, (a, b) in diff.items())}); "
                f"its results would be mixed or replaced: choose another {self.what}")

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
        rows = [self._row(line, number) for number, line in enumerate(lines, 1) if line.strip()]
        if tail.strip():
            try:
                rows.append(self._row(tail, len(lines) + 1))
                if repair:
                    self._append(b"\n")
            except ValueError as exc:
                notice(f"{self.log}: dropped its last line, cut short by an interrupted run "
                       f"({len(tail)} bytes; {exc}); its solve runs again")
                if not repair:
                    return rows
                fd = _open(self.log, os.O_WRONLY)
                try:
                    os.ftruncate(fd, len(data) - len(tail))
                    os.fsync(fd)
                finally:
                    os.close(fd)
        return rows

    def _row(self, line, number):
        try:
            return self.check_row(json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"results file {self.log}, line {number}, is not a row of this fsopt "
                             f"version ({type(exc).__name__}: {exc}); move it away or choose "
                             f"another {self.what}") from None

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


def _open(path, flags) -> int:
    try:
        return os.open(path, flags | NOFOLLOW, 0o644)
    except OSError as exc:
        if os.path.islink(path):
            raise ValueError(f"{path} is a symbolic link; fsopt does not follow links inside its "
                             f"output folder (remove it)") from None
        raise
