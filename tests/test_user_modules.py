"""A backend or check defined in the user's file is visible from the shell: ``--import MODULE``
(the current directory first on the import path) and ``--checks FILE`` (its directory on it)."""
import sys

import pytest

from fsopt.core import registry
from fsopt.tools.cli import build_parser, main

BACKEND = '''
from fsopt import register_backend
from fsopt.core.solvers import backends


class Renamed(type(backends()["LBFGSB"])):
    name = "MYLBFGSB"


register_backend(Renamed())
'''

CHECK = '''
from fsopt.verify import Margins, check

from beside import VALUE


@check("MYCHECK neighbour", "the module beside this file is imported")
def neighbour(quick, rng=None):
    margins = Margins()
    margins.at_most("value", VALUE, 1.0)
    return margins.outcome({"value": VALUE}, "")
'''


@pytest.fixture
def user_session(tmp_path, monkeypatch):
    """A fresh directory as the current one; the registries, sys.path and the user's modules are
    restored afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    with registry.scoped():
        yield tmp_path
    for name in set(sys.modules) - before:
        if name in ("my_backend", "beside") or name.startswith("fsopt_checks_"):
            del sys.modules[name]


def test_import_makes_a_backend_of_the_current_directory_a_solver(user_session, capsys):
    (user_session / "my_backend.py").write_text(BACKEND)
    args = ["verify", "--quick", "--solver", "MYLBFGSB", "LOGO Thm 1"]
    assert main(args) == 2
    assert "unknown solver 'MYLBFGSB'" in capsys.readouterr().err
    assert main([*args, "--import", "my_backend"]) == 0
    assert "[PASS] LOGO Thm 1 [solver MYLBFGSB]" in capsys.readouterr().out


@pytest.mark.parametrize("name,message", [("no_such_module", "--import no_such_module: ModuleNotFoundError"),
                                          ("my_backend.py", "give the module's name (my_backend), not its file")])
def test_import_names_a_module_it_cannot_import(user_session, capsys, name, message):
    assert main(["verify", "--quick", "--import", name, "LOGO Thm 1"]) == 2
    assert message in capsys.readouterr().err


def test_a_checks_file_imports_the_modules_beside_it(user_session, capsys):
    folder = user_session / "mine"
    folder.mkdir()
    (folder / "beside.py").write_text("VALUE = 0.5\n")
    (folder / "my_checks.py").write_text(CHECK)
    assert main(["verify", "--quick", "--checks", "mine/my_checks.py", "MYCHECK"]) == 0
    assert "[PASS] MYCHECK neighbour" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["bench"], ["verify"], ["run", "logo", "--problem", "spiral"]])
def test_bench_verify_and_run_take_import(command):
    args = build_parser(command=command[0]).parse_args([*command, "--import", "a", "--import", "b.c"])
    assert args.imports == ["a", "b.c"]
