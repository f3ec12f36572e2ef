"""``fsopt run ... --out DIR``: a fit kept as files.

``features.csv`` and ``features.json`` hold one row per feature the fit saw (its name, the method's
numbers, whether it is selected), loadable by ``pandas.read_csv`` / ``pandas.read_json``;
``run.json`` holds the command that replays the run, the estimator's parameters, the package
versions, the fit certificate and who answered. The files are written into a temporary directory
beside DIR and moved into place once all are complete: a failed or refused run leaves nothing.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import secrets
import shlex
import shutil
import sys
from dataclasses import asdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

FILES = ("features.csv", "features.json", "run.json")
VERSIONS = ("fsopt", "numpy", "scipy", "pandas", "scikit-learn", "cvxpy", "numba", "clarabel", "ecos",
            "highspy", "osqp", "scs", "mosek")  # those installed are recorded


def check_output_dir(path, what="--out") -> None:
    """ValueError naming ``path`` unless the run's files can be written there (checked before
    fitting; nothing is created)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ValueError(f"{what} {path}: exists and is not a directory")
    parent = target.absolute().parent
    if not parent.is_dir():
        raise ValueError(f"{what} {path}: {parent} " + ("exists and is not a directory" if parent.exists()
                                                      else "does not exist"))
    where = target if target.exists() else parent
    if not os.access(where, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {path}: cannot write in {where}")


def versions() -> dict:
    """{distribution: version} of Python and the installed packages a run depends on."""
    found = {"python": sys.version.split()[0]}
    for name in VERSIONS:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def certificate_record(certificate) -> dict:
    """The fit certificate as JSON values: its numbers, whether it holds, and who answered."""
    record = asdict(certificate)
    record["tally"] = [{"asked": asked, "answered_by": kind, "solver": by, "solves": n}
                       for (asked, kind, by), n in certificate.tally.items()]
    record.update(holds=certificate.holds, failed=certificate.failed,
                  answered=certificate.describe_answers())
    return record


def run_record(args, problem, estimator, n_samples, fit_seconds, **outcome) -> dict:
    """run.json: the command (``argv``, to replay it from ``cwd``), when it was written, the data (the
    problem's [data] table, what the command line set, a digest of the (X, y) fitted), the
    estimator's parameters, the versions, the certificate and the method's ``outcome`` numbers."""
    argv = list(getattr(args, "argv", []))
    given = {name: getattr(args, name, None) for name in ("irrelevant", "seed")}
    return {"command": shlex.join(["fsopt", *argv]), "argv": argv, "cwd": os.getcwd(),
            "written": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "method": args.method, "problem": problem.name, "data": problem.path,
            "data_declared": problem.data, "data_given": {k: v for k, v in given.items() if v is not None},
            "data_digest": getattr(args, "data_digest", None), "n_samples": int(n_samples),
            "n_features": int(estimator.n_features_in_), "fit_seconds": round(fit_seconds, 3),
            "params": estimator.get_params(deep=False),
            "certificate": certificate_record(estimator.certificate_),
            "outcome": outcome, "versions": versions()}


def write_run(out, features, record) -> None:
    """Write ``features`` (a DataFrame, one row per feature) and ``record`` into ``out``: all
    files or none (into an existing ``out``, each file replaced whole)."""
    target = Path(out)
    text = json.dumps(_plain(record), indent=2, allow_nan=False)
    tmp = target.absolute().parent / f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    tmp.mkdir()  # with the user's umask, as the directory it becomes
    try:
        features.to_csv(tmp / "features.csv", index=False)
        features.to_json(tmp / "features.json", orient="records")
        (tmp / "run.json").write_text(text + "\n")
        if not target.exists():
            tmp.rename(target)
            return
        for name in FILES:
            os.replace(tmp / name, target / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _plain(value):
    """A JSON value: NumPy scalars and arrays as numbers and lists, NaN and infinities as null
    (JSON has neither), any other object by its text."""
    if hasattr(value, "tolist"):  # a NumPy scalar or array
        value = value.tolist()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def selection_table(names, rows, columns) -> str:
    """The ``rows`` (feature indices) of ``columns`` ({header: (per-feature values, format spec)})
    as aligned text: names left, values right, each column in one format."""
    heads = ["feature", *columns]
    cells = [[str(names[j]) for j in rows]] + [[format(values[j], spec) for j in rows]
                                              for values, spec in columns.values()]
    widths = [max([len(h), *map(len, col)]) for h, col in zip(heads, cells)]

    def line(texts):
        return "  " + "  ".join(t.ljust(w) if i == 0 else t.rjust(w)
                                for i, (t, w) in enumerate(zip(texts, widths)))
    return "\n".join([line(heads), *(line(row) for row in zip(*cells))])
