"""Bad declarations and arguments get a clear message naming the file and the field (issue 20)."""
import time

import numpy as np
import pytest

from fsopt import LOGO
from fsopt.core import solvers
from fsopt.datasets import read_csv
from fsopt.datasets.spiral import make_spiral
from fsopt.nmmkl import NMMKL
from fsopt.tools import bench
from fsopt.tools.cli import main


@pytest.mark.parametrize("text, message", [
    ('name = 123\nbackend = "CLARABEL"', r"name = 123 must be a string"),
    ('backend = "CLARABEL"\noptions = "tol"', r"options = 'tol' must be a table"),
    ('backend = "CLARABEL"\n[options]\ntol = "abc"', r"\[options\]: option tol must be a positive finite number; got 'abc'"),
    ('backend = "CLARABEL"\n[options]\nmax_iters = 5', r"\[options\]: option 'max_iters' is not accepted by solver CLARABEL"),
    ('backend = "NOSUCH"', r"backend = 'NOSUCH' names an unknown backend 'NOSUCH'; registered: .*CLARABEL"),
    ('name = "clarabel"\nbackend = "SCS"', r"name 'clarabel' is the name of backend CLARABEL, which always wins"),
    ('name = "clarabel-tight"\nbackend = "SCS"', r"name 'clarabel-tight' is already the profile of .*clarabel-tight.toml"),
])
def test_a_bad_solver_profile_names_its_file_and_field(tmp_path, monkeypatch, capsys, text, message):
    (tmp_path / "mine.toml").write_text(text + "\n")
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    with pytest.raises(ValueError, match=rf"solver profile {tmp_path / 'mine.toml'}.*{message}"):
        solvers.profiles()
    assert main(["solvers"]) == 2 and "mine.toml" in capsys.readouterr().err


@pytest.mark.parametrize("table, message", [
    ("size = 'n_irrelevant'", r"\[bench\] has no 'sizes'"),
    ("sizes = 'big'", r"\[bench\] sizes = 'big': must be a non-empty list of positive integers"),
    ("sizes = [0, 5]", r"\[bench\] sizes = \[0, 5\]: must be a non-empty list of positive integers"),
    ("sizes = [5]\ntolerances = ['tight']", r"\[bench\] tolerances = \['tight'\]: must be a list of positive"),
    ("sizes = [5]\nquick_sizes = [5, 5]", r"\[bench\] quick_sizes = \[5, 5\]: a value is given twice"),
    ("sizes = [5]\ntolerances = [1.0, 1.0]", r"\[bench\] tolerances = \[1.0, 1.0\]: a value is given twice"),
])
def test_a_bad_bench_table_names_its_file(tmp_path, monkeypatch, table, message):
    (tmp_path / "mine.toml").write_text(f'method = "logo"\n[data]\ngenerator = '
                                        f'"fsopt.datasets.spiral:make_spiral"\n[bench]\n{table}\n')
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(tmp_path))
    with pytest.raises(ValueError, match=rf"problem file {tmp_path / 'mine.toml'}, {message}"):
        bench.run(out=tmp_path / "out", problem_names=["mine"], solvers=["GRADIENT"], progress=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_verify_instances_must_be_positive(capsys, value):
    with pytest.raises(SystemExit) as stop:
        main(["verify", "--instances", value])
    assert stop.value.code == 2
    assert f"argument --instances: expected a positive integer, got '{value}'" in capsys.readouterr().err


def test_an_unreachable_dask_scheduler_is_a_fast_clear_error(tmp_path):
    pytest.importorskip("distributed")
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"--dask tcp://127.0.0.1:9: no dask scheduler answered within 5 s"):
        bench.run(out=tmp_path / "out", quick=True, problem_names=["spiral"], solvers=["GRADIENT"],
                  dask="tcp://127.0.0.1:9", progress=False)
    assert time.perf_counter() - t0 < 20 and not (tmp_path / "out").exists()


@pytest.mark.parametrize("make", [LOGO, lambda: NMMKL(1)], ids=["logo", "nmmkl"])
def test_an_h5py_dataset_whose_file_is_closed(tmp_path, make):
    h5py = pytest.importorskip("h5py")
    X, y = make_spiral(20, 2, random_state=0)
    with h5py.File(tmp_path / "x.h5", "w") as fh:
        fh["X"] = X
    fh = h5py.File(tmp_path / "x.h5", "r")
    dataset = fh["X"]
    fh.close()
    with pytest.raises(ValueError, match="X is an h5py dataset whose file is closed"):
        make().fit(dataset, y)


def test_a_csv_with_a_header_and_no_rows(tmp_path):
    (tmp_path / "empty.csv").write_text("a,b,label\n")
    with pytest.raises(ValueError, match=rf"{tmp_path / 'empty.csv'}: has no data rows \(columns a, b, label\)"):
        read_csv(tmp_path / "empty.csv")


def test_a_tol_outside_the_solvers_range_is_refused_naming_the_range():
    """SCIP's feastol takes at most 1e-3; tol = 1e-2 failed inside SCIP, as a solver error with
    24 lines of C errors (planted: no tol_range on SCIP lets it through)."""
    from fsopt.core.cvxpy_solvers import SCIP

    with pytest.raises(ValueError, match=r"tol=0.01 is outside what SCIP takes: tol in \[1e-17, 0.001\]"):
        SCIP().check_options({"tol": 1e-2})
    SCIP().check_options({"tol": 1e-3})
