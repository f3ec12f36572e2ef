"""A problem file is data: the generators and hooks it names resolve only through the registry
(fsopt's own, code's registrations, installed entry points); a planted TOML naming an importable
callable that would write a file runs nothing.  Plugins are imported only when a command needs
them (``fsopt --help`` imports none)."""
import os
import subprocess
import sys
import textwrap

import pytest

from fsopt.core import plugins
from fsopt.tools import bench
from fsopt.tools.cli import main
from fsopt.tools.problems import get_problem

PAYLOAD = """
from pathlib import Path

Path({marker!r}).write_text("ran at import")


def write(*args, **kwargs):
    Path({marker!r}).write_text("ran")
    return args
"""


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A problems folder with planted TOMLs, an importable payload module that writes ``marker``,
    and a hook file beside the TOMLs that writes ``marker`` too."""
    marker = tmp_path / "marker"
    code = tmp_path / "code"
    problems = tmp_path / "problems"
    code.mkdir()
    problems.mkdir()
    (code / "payload.py").write_text(PAYLOAD.format(marker=str(marker)))
    (problems / "besidehook.py").write_text(PAYLOAD.format(marker=str(marker)))
    (problems / "evil_generator.toml").write_text(textwrap.dedent("""
        method = "logo"
        [data]
        generator = "payload:write"
        [data.params]
        command = "touch pwned"
        [bench]
        sizes = [10]
        """))
    (problems / "evil_hook.toml").write_text(textwrap.dedent("""
        method = "logo"
        [data]
        generator = "fsopt.datasets.spiral:make_spiral"
        [data.params]
        n_per_class = 20
        [bench]
        sizes = [2]
        subproblems = "besidehook:write"
        """))
    (problems / "importable_hook.toml").write_text(textwrap.dedent("""
        method = "logo"
        [data]
        generator = "fsopt.datasets.spiral:make_spiral"
        [bench]
        sizes = [2]
        subproblems = "payload:write"
        """))
    monkeypatch.syspath_prepend(str(code))  # payload is importable: still nothing may run it
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(problems))
    return marker, problems


def test_a_generator_outside_the_registry_runs_nothing_and_names_the_file(planted, capsys):
    marker, problems = planted
    code = main(["run", "logo", "--problem", "evil_generator"])
    err = capsys.readouterr().err
    assert code == 2 and f"problem file {problems / 'evil_generator.toml'}, [data] generator" in err
    assert "'payload:write' is not a registered generator" in err and not marker.exists()


def test_plain_bench_planning_runs_no_planted_generator(planted, tmp_path, capsys):
    marker, problems = planted
    code = main(["bench", "--quick", "--solver", "GRADIENT", "--out", str(tmp_path / "out"), "--quiet"])
    assert code == 2 and "evil_generator.toml" in capsys.readouterr().err
    assert not marker.exists()


def test_a_hook_file_beside_the_toml_runs_only_when_the_user_allows_it(planted, tmp_path):
    marker, problems = planted
    with pytest.raises(ValueError, match=r"evil_hook.toml, \[bench\] subproblems = 'besidehook:write': "
                                         r"not a registered hook, and fsopt does not run .*besidehook.py "
                                         r"unless you allow it \(fsopt bench --allow-hook-files"):
        bench.run(out=tmp_path / "out", quick=True, problem_names=["evil_hook"], solvers=["GRADIENT"],
                  progress=False)
    assert not marker.exists()
    bench._hook(get_problem("evil_hook"), allow_files=True)  # the documented opt-in runs the file
    assert marker.read_text() == "ran at import"


def test_an_importable_hook_outside_the_registry_runs_nothing(planted, tmp_path):
    marker, problems = planted
    with pytest.raises(ValueError, match=r"importable_hook.toml, \[bench\] subproblems: 'payload:write' "
                                         r"is not a registered bench hook"):
        bench.run(out=tmp_path / "out", quick=True, problem_names=["importable_hook"],
                  solvers=["GRADIENT"], progress=False, allow_hook_files=True)
    assert not marker.exists()


def test_a_generator_registered_by_code_is_found(planted):
    from fsopt.datasets.spiral import make_spiral

    marker, problems = planted
    with plugins.REGISTRIES[plugins.GENERATORS].scoped() as generators:
        generators.register("my_spiral", make_spiral)
        (problems / "mine.toml").write_text('method = "logo"\n[data]\ngenerator = "my_spiral"\n'
                                            '[data.params]\nn_per_class = 15\n')
        X, y = get_problem("mine").load(random_state=0)
    assert X.shape == (30, 2) and not marker.exists()


ENTRY_POINTS = """
[fsopt.methods]
planted = planted_method
[fsopt.backends]
PLANTED = planted_backend:Backend
"""


def test_help_imports_no_plugin_and_a_command_imports_only_what_it_needs(tmp_path):
    site = tmp_path / "site"
    (site / "planted_method").mkdir(parents=True)
    dist = site / "planted_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: planted-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    for module, path in [("method", site / "planted_method" / "__init__.py"),
                         ("backend", site / "planted_backend.py")]:
        path.write_text(f"from pathlib import Path\nPath({str(tmp_path / module)!r}).write_text('x')\n"
                        + ("from fsopt.logo.gradient_path import GradientPath\n\n\nclass Backend(GradientPath):\n"
                           "    name = 'PLANTED'\n" if module == "backend" else ""))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *sys.path]))

    def fsopt(*args):
        return subprocess.run([sys.executable, "-m", "fsopt.tools.cli", *args], env=env,
                              capture_output=True, text=True, timeout=300)

    for args in (["--help"], ["run", "--help"], ["bench", "--help"], ["problems"]):
        assert fsopt(*args).returncode == 0
        assert not (tmp_path / "method").exists() and not (tmp_path / "backend").exists(), args
    assert "planted" in fsopt("run", "--help").stdout  # listed from the metadata, not imported
    assert "PLANTED" in fsopt("solvers").stdout and (tmp_path / "backend").exists()
    assert not (tmp_path / "method").exists()
