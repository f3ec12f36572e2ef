"""``--import MODULE``: a module of the user's (a backend, checks, hooks) joins one command.

A backend registered at run time (``register_backend``) lives in the process that registered
it; a shell command is another process.  ``fsopt bench|verify|run --import my_pg`` imports
``my_pg`` first, with the current directory at the front of the import path as ``python -m``
puts it, so what the module registers when imported is there for the command (and for bench's
worker processes, which import it again by name).  An installed package declares the same
through entry points instead (docs/extending.md).
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path


def add_import_argument(parser):
    parser.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                        help="import MODULE first, from the current directory or the installed "
                             "packages, so that the backends, checks and hooks it registers join "
                             "this command (repeatable)")


def import_modules(names):
    """Import each of ``names`` with the current directory first on ``sys.path``; a ValueError
    names a module that cannot be imported, and why."""
    if not names:
        return
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    for name in names:
        if name.endswith(".py"):
            raise ValueError(f"--import {name}: give the module's name ({Path(name).stem}), not its file")
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - a broken user module is named, whatever broke it
            raise ValueError(f"--import {name}: {type(exc).__name__}: {exc}") from exc
