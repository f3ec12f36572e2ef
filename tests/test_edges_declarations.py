"""Declarations and files at their edges (issue 41): every bad problem file, data file, generator
argument, CLI flag, bench table or log, solver profile and label set is refused fast with a
ValueError/TypeError (the CLI: exit 2 and one line) naming the file and the field or column; a
declared size is checked against the memory it needs before anything is allocated."""
import gzip
import json
import pickle
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from fsopt import LOGO
from fsopt.core import limits
from fsopt.core import status as st
from fsopt.core.solvers import _read_profiles
from fsopt.core.validation import check_labels
from fsopt.datasets import add_irrelevant_features, load_dataset, read_csv
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS
from fsopt.nmmkl import NMMKL
from fsopt.tools import bench
from fsopt.tools.cli import main
from fsopt.tools.problems import get_problem, problems
from fsopt.tools.study_folder import StudyFolder

TERA = 10**12
SPIRAL = 'method = "logo"\n[data]\ngenerator = "fsopt.datasets.spiral:make_spiral"\n'
LFS_GEN = 'method = "lfs"\n[data]\ngenerator = "fsopt.datasets.lfs_synthetic:make_lfs_synthetic"\n'
TOY = 'method = "nmmkl"\n[data]\ngenerator = "fsopt.datasets.nmmkl_toy:make_nmmkl_toy"\n'


def refused(call, error, *fragments, seconds=1.0, peak_mb=64):
    """``call()`` raises ``error`` whose message holds every fragment, within ``seconds`` and
    ``peak_mb`` MiB of allocations: refused before any work."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(error) as info:
            call()
        elapsed = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    text = str(info.value)
    for fragment in fragments:
        assert str(fragment) in text, f"{fragment!r} not in: {text}"
    assert elapsed < seconds, f"refused after {elapsed:.2f} s"
    assert peak < peak_mb, f"allocated {peak:.0f} MiB before refusing"
    return text


@pytest.fixture(autouse=True)
def _at_most_64_gib(monkeypatch):
    """The 10^8 cases (368 GB) stay refused on a machine with more memory free than that."""
    real = limits.available_memory()
    monkeypatch.setattr(limits, "available_memory", lambda: min(real, 64 * 2**30))


@pytest.fixture
def problem_dir(tmp_path, monkeypatch):
    folder = tmp_path / "problems"
    folder.mkdir()
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(folder))
    return folder


def declare(folder, text, name="edge"):
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


# --- problem files: sizes, types and values of [data] and [data.params] ----------------------
SIZE_CASES = [
    (SPIRAL + f"n_irrelevant = {TERA}\n", ValueError, "n_irrelevant", "memory"),
    (SPIRAL + "n_irrelevant = 100000000\n", ValueError, "n_irrelevant", "memory"),
    (SPIRAL + "[data.params]\nn_irrelevant = 100000000\n", ValueError, "n_irrelevant", "memory"),
    (SPIRAL + f"[data.params]\nn_per_class = {TERA}\n", ValueError, "n_per_class", "memory"),
    (SPIRAL + "[data.params]\nn_per_class = 100000000\nn_irrelevant = 100\n", ValueError, "n_per_class", "memory"),
    (SPIRAL + "n_irrelevant = -1\n", ValueError, "n_irrelevant", ">= 0"),
    (SPIRAL + 'n_irrelevant = "5"\n', TypeError, "n_irrelevant", "'5'"),
    (SPIRAL + "n_irrelevant = true\n", TypeError, "n_irrelevant", "bool"),
    (SPIRAL + "n_irrelevant = 2.5\n", TypeError, "n_irrelevant", "float"),
    (SPIRAL + "n_irrelevant = [1]\n", TypeError, "n_irrelevant", "list"),
    (SPIRAL + "random_state = -1\n", ValueError, "random_state", ">= 0"),
    (SPIRAL + 'random_state = "seed"\n', TypeError, "random_state", "'seed'"),
    (SPIRAL + "random_state = 1.5\n", TypeError, "random_state", "float"),
    (SPIRAL + "[data.params]\nn_per_class = 1\n", ValueError, "n_per_class", ">= 2"),
    (SPIRAL + '[data.params]\nn_per_class = "230"\n', TypeError, "n_per_class", "'230'"),
    (SPIRAL + "[data.params]\nn_per_class = false\n", TypeError, "n_per_class", "bool"),
    (SPIRAL + "[data.params]\nturns = nan\n", ValueError, "turns", "finite"),
    (SPIRAL + "[data.params]\nturns = inf\n", ValueError, "turns", "finite"),
    (SPIRAL + "[data.params]\nturns = -1.0\n", ValueError, "turns", "> 0"),
    (SPIRAL + '[data.params]\nturns = "one"\n', TypeError, "turns", "'one'"),
    (SPIRAL + "[data.params]\nnoise = -0.1\n", ValueError, "noise", ">= 0"),
    (SPIRAL + '[data.params]\nshape = "circle"\n', ValueError, "shape", "circle"),
    (SPIRAL + "[data.params]\nbogus = 1\n", TypeError, "bogus", "n_per_class"),
    (SPIRAL + "params = 5\n", ValueError, "params", "table"),
    (LFS_GEN + f"n_irrelevant = {TERA}\n", ValueError, "n_irrelevant", "memory"),
    (LFS_GEN + f"[data.params]\nn_circle = {TERA}\n", ValueError, "n_circle", "memory"),
    (LFS_GEN + "[data.params]\nn_plus = 0\n", ValueError, "n_plus", ">= 1"),
    (LFS_GEN + '[data.params]\nn_diamond = "25"\n', TypeError, "n_diamond", "'25'"),
    (LFS_GEN + "[data.params]\nseparation = nan\n", ValueError, "separation", "finite"),
    (TOY + f"[data.params]\nn_samples = {10 * TERA}\n", ValueError, "n_samples", "memory"),
    (TOY + "[data.params]\nn_samples = 3\n", ValueError, "n_samples", ">= 4"),
    (TOY + '[data.params]\nshift = "a"\n', TypeError, "shift", "'a'"),
    (TOY + "[data.params]\nshared_noise = inf\n", ValueError, "shared_noise", "finite"),
    (TOY + f"n_irrelevant = {TERA}\n", ValueError, "n_irrelevant", "memory"),
]


@pytest.mark.parametrize("text, error, field, why", SIZE_CASES,
                         ids=[f"{t.splitlines()[2].split(':')[-1][:-1]}-{t.splitlines()[-1][:40]}" for t, *_ in SIZE_CASES])
def test_a_problem_files_declared_value_is_checked_before_any_draw(problem_dir, text, error, field, why):
    path = declare(problem_dir, text)
    refused(lambda: get_problem("edge").load(), error, path, "[data]", field, why)


@pytest.mark.parametrize("field, value, error", [
    ("n_irrelevant", TERA, ValueError), ("n_irrelevant", -3, ValueError), ("n_irrelevant", "7", TypeError),
    ("n_per_class", TERA, ValueError), ("random_state", -1, ValueError),
])
def test_a_size_given_to_load_is_named_with_where_it_came_from(problem_dir, field, value, error):
    path = declare(problem_dir, SPIRAL)
    refused(lambda: get_problem("edge").load(**{field: value}, given_by="--flag"), error, path, field,
            "from --flag")


@pytest.mark.parametrize("text, fragments", [
    (SPIRAL.replace('"fsopt.datasets.spiral:make_spiral"', "5"), ["generator", "string"]),
    (SPIRAL.replace("fsopt.datasets.spiral:make_spiral", "os:system"), ["generator", "'os:system'", "not a registered"]),
    ('method = "logo"\n[data]\nn_irrelevant = 3\n', ["needs 'generator' or 'dataset'"]),
])
def test_a_problem_files_generator_is_named(problem_dir, text, fragments):
    path = declare(problem_dir, text)
    refused(lambda: get_problem("edge").load(), (ValueError, TypeError), path, *fragments)


# --- problem files: where `dataset` may point ---------------------------------------------------
def dataset_problem(folder, value):
    return declare(folder, f'method = "lfs"\n[data]\ndataset = {json.dumps(value)}\n')


@pytest.mark.parametrize("value", ["../../../../../../etc/passwd", "/etc/passwd", "../outside.csv",
                                   "sub/../../outside.csv", "./sub/../../outside.csv", "link_out.csv",
                                   "linkdir/outside.csv"])
def test_a_data_set_outside_the_problem_folder_is_refused(problem_dir, value):
    outside = problem_dir.parent / "outside.csv"
    outside.write_text("a,label\n1,x\n2,y\n")
    (problem_dir / "sub").mkdir()
    (problem_dir / "link_out.csv").symlink_to(outside)
    (problem_dir / "linkdir").symlink_to(problem_dir.parent)
    path = dataset_problem(problem_dir, value)
    refused(lambda: get_problem("edge").load(), ValueError, path, "dataset", repr(value),
            "never above it")


@pytest.mark.parametrize("value, error", [(5, TypeError), ("", TypeError), (["sonar"], TypeError)])
def test_a_data_set_that_is_not_a_name_is_refused(problem_dir, value, error):
    path = dataset_problem(problem_dir, value)
    refused(lambda: get_problem("edge").load(), error, path, "dataset", "string")


@pytest.mark.parametrize("value", ["nosuch", "nosuch.csv", "sub/nosuch.csv"])
def test_a_data_set_that_does_not_exist_lists_the_known_names(problem_dir, value):
    path = dataset_problem(problem_dir, value)
    refused(lambda: get_problem("edge").load(), ValueError, path, repr(value), "no such data set", "sonar")


def test_a_data_set_with_generator_parameters_is_refused(problem_dir):
    path = declare(problem_dir, 'method = "lfs"\n[data]\ndataset = "sonar"\n[data.params]\nn_per_class = 5\n')
    refused(lambda: get_problem("edge").load(), ValueError, path, "n_per_class", "[data.params] is for a generator")


@pytest.mark.parametrize("value", ["beside.csv", "sub/below.csv", "./beside.csv", "link_in.csv", "sonar", "wdbc"])
def test_a_data_set_beside_below_or_packaged_is_read(problem_dir, value):
    (problem_dir / "sub").mkdir()
    for path in (problem_dir / "beside.csv", problem_dir / "sub" / "below.csv"):
        path.write_text("a,b,label\n1,2,x\n3,4,y\n5,6,x\n")
    (problem_dir / "link_in.csv").symlink_to(problem_dir / "sub" / "below.csv")
    dataset_problem(problem_dir, value)
    X, y = get_problem("edge").load()
    assert X.ndim == 2 and X.shape[0] == len(y) >= 3


def test_a_data_set_in_fsopt_data_is_read(problem_dir, tmp_path, monkeypatch):
    data = tmp_path / "mydata"
    data.mkdir()
    (data / "mine.csv").write_text("a,b,label\n1,2,x\n3,4,y\n")
    monkeypatch.setenv("FSOPT_DATA", str(data))
    for value in ("mine", str(data / "mine.csv")):
        dataset_problem(problem_dir, value)
        assert get_problem("edge").load()[0].shape == (2, 2)


def test_a_data_set_plus_too_many_irrelevant_features_is_refused_before_drawing(problem_dir):
    path = declare(problem_dir, f'method = "lfs"\n[data]\ndataset = "sonar"\nn_irrelevant = {TERA}\n')
    refused(lambda: get_problem("edge").load(), ValueError, path, "n_irrelevant", "memory")


class Planted:
    """Unpickling it creates the file ``marker``: proof that something was unpickled."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


@pytest.mark.parametrize("content", ["empty", "pickle", "garbage"])
def test_a_bad_data_file_beside_a_problem_names_both(problem_dir, tmp_path, content):
    marker = tmp_path / "unpickled"
    data = {"empty": b"", "pickle": pickle.dumps(Planted(marker)), "garbage": bytes(range(256))}[content]
    (problem_dir / "data.csv").write_bytes(data)
    path = dataset_problem(problem_dir, "data.csv")
    refused(lambda: get_problem("edge").load(), ValueError, path, problem_dir / "data.csv")
    assert not marker.exists()


# --- problem files: nesting and parsing -------------------------------------------------------
DEEP = 5000


@pytest.mark.parametrize("text", [
    "x = " + "[" * DEEP + "]" * DEEP,
    "x = " + "{a = " * DEEP + "1" + "}" * DEEP,
    "x." * DEEP + "y = 1",
    "[" + "t." * DEEP + "u]\nv = 1",
    'method = "logo"\n[data]\nz = ' + "[" * 40 + "]" * 40,
    "\x00\xff\xfe binary",
    'method = "logo"\n[data\n',
    "",
    'method = 5',
    'method = "logo"\nname = 5',
    'method = "logo"\ndata = 3',
], ids=["arrays", "inline tables", "dotted keys", "table header", "arrays 40", "binary", "broken",
        "empty", "method not text", "name not text", "data not a table"])
def test_a_problem_file_that_is_too_deep_or_not_a_declaration_names_the_file(problem_dir, text):
    path = problem_dir / "edge.toml"
    path.write_bytes(text.encode("latin-1"))
    refused(problems, ValueError, path, seconds=3.0)


def test_a_problem_file_that_is_a_folder_or_too_large_names_the_file(problem_dir):
    (problem_dir / "folder.toml").mkdir()
    refused(problems, ValueError, problem_dir / "folder.toml", "cannot be read")
    (problem_dir / "folder.toml").rmdir()
    path = problem_dir / "big.toml"
    path.write_text('method = "logo"\n' + "# padding\n" * (limits.MAX_DECLARATION_BYTES // 10 + 1))
    refused(problems, ValueError, path, "larger than", peak_mb=64 + limits.MAX_DECLARATION_BYTES / 2**20)


def test_fsopt_s_own_problem_files_are_within_the_depth_bound():
    assert {"spiral", "nmmkl_toy", "lfs_synthetic"} <= set(problems())


# --- data files -----------------------------------------------------------------------------------
def gz(text):
    return gzip.compress(text.encode())


def random_csv(rows=3000):
    values = np.random.default_rng(0).normal(size=(rows, 2))
    return "a,b,label\n" + "".join(f"{u:.6f},{v:.6f},{int(u > 0)}\n" for u, v in values)


def npz_bytes(tmp_path):
    np.savez(tmp_path / "x.npz", X=np.ones((3, 2)))
    return (tmp_path / "x.npz").read_bytes()


def npy_bytes(tmp_path):
    np.save(tmp_path / "x.npy", np.ones((3, 2)))
    return (tmp_path / "x.npy").read_bytes()


def parquet_bytes(tmp_path):
    import pandas as pd

    pd.DataFrame({"a": [1.0, 2.0], "label": ["x", "y"]}).to_parquet(tmp_path / "x.parquet")
    return (tmp_path / "x.parquet").read_bytes()


FULL_GZ = gz(random_csv())
FILE_CASES = {  # name: (file name, bytes or a function of tmp_path, error, fragments)
    "empty": ("d.csv", b"", ValueError, ["empty"]),
    "blank lines": ("d.csv", b"\n \n\t\n", ValueError, ["empty"]),
    "header only": ("d.csv", b"a,b,label\n", ValueError, ["no data rows", "a, b, label"]),
    "binary garbage": ("d.csv", bytes(range(256)) * 8, ValueError, ["binary"]),
    "NUL bytes in text": ("d.csv", b"a,b,label\n1,\x00,x\n", ValueError, ["binary"]),
    "latin-1 text": ("d.csv", "a,b,label\n1,2,é\n".encode("latin-1"), ValueError, ["not UTF-8", "line 2"]),
    "not gzip": ("d.csv.gz", b"a,b,label\n1,2,x\n", ValueError, ["gzip"]),
    "truncated gzip": ("d.csv.gz", FULL_GZ[: len(FULL_GZ) // 2], ValueError, ["gzip", "ended"]),
    "gzip without its trailer": ("d.csv.gz", FULL_GZ[:-4], ValueError, ["gzip"]),
    "empty gzip": ("d.csv.gz", gz(""), ValueError, ["empty once decompressed"]),
    "gzip of garbage": ("d.csv.gz", gzip.compress(bytes(range(256)) * 4), ValueError, ["binary"]),
    "gzip named csv": ("d.csv", gz("a,b,label\n1,2,x\n"), ValueError, ["gzip-compressed"]),
    "gzip of a pickle": ("d.csv.gz", gzip.compress(pickle.dumps([1, 2])), ValueError, ["pickle"]),
    "npz": ("d.csv", npz_bytes, ValueError, ["zip archive"]),
    "npy": ("d.csv", npy_bytes, ValueError, [".npy"]),
    "parquet": ("d.csv", parquet_bytes, ValueError, ["parquet"]),
    "hdf5 header": ("d.csv", b"\x89HDF\r\n\x1a\n" + bytes(100), ValueError, ["HDF5"]),
    "duplicate feature names": ("d.csv", b"a,a,label\n1,2,x\n3,4,y\n", ValueError, ["duplicate", "'a'"]),
    "duplicate label column": ("d.csv", b"a,label,label\n1,x,x\n3,y,y\n", ValueError, ["duplicate", "'label'"]),
    "duplicates that pandas would rename": ("d.csv", b"a,a.1,a,label\n1,2,3,x\n", ValueError, ["duplicate", "'a'"]),
    "non-numeric cell": ("d.csv", b"a,b,label\n1,2,x\n3,zz,y\n", TypeError, ["column 'b'", "row 1", "'zz'"]),
    "non-numeric cell late": ("d.csv", b"a,b,label\n" + b"1,2,x\n" * 50 + b"oops,2,y\n", TypeError,
                              ["column 'a'", "row 50", "'oops'"]),
    "missing cell": ("d.csv", b"a,b,label\n1,2,x\n3,,y\n", ValueError, ["row 1", "column 'b'"]),
    "NaN text": ("d.csv", b"a,b,label\n1,NaN,x\n3,4,y\n", ValueError, ["row 0", "column 'b'"]),
    "infinite cell": ("d.csv", b"a,b,label\n1,2,x\n-inf,4,y\n", ValueError, ["infinite", "row 1", "column 'a'"]),
    "missing label": ("d.csv", b"a,b,label\n1,2,x\n3,4,\n", ValueError, ["label column 'label'", "row 1"]),
    "no label column": ("d.csv", b"a,b,c\n1,2,3\n", ValueError, ["no 'label' column", "a, b, c"]),
    "row longer than the header": ("d.csv", b"a,b,label\n1,2,x,4,5\n3,4,y\n", ValueError, ["cannot be read as CSV"]),
    "one column": ("d.csv", b"label\nx\ny\n", ValueError, ["feature column"]),
}


@pytest.mark.parametrize("case", list(FILE_CASES))
def test_a_bad_data_file_is_refused_naming_the_file(tmp_path, case):
    name, content, error, fragments = FILE_CASES[case]
    path = tmp_path / name
    path.write_bytes(content(tmp_path) if callable(content) else content)
    refused(lambda: read_csv(path), error, path, *fragments)
    refused(lambda: load_dataset(path), error, path, *fragments)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize("name", ["d.csv", "d.csv.gz"])
def test_a_pickle_named_as_a_data_set_is_never_unpickled(tmp_path, protocol, name):
    marker = tmp_path / "unpickled"
    data = pickle.dumps(Planted(marker), protocol=protocol)
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    refused(lambda: load_dataset(path), (ValueError, TypeError), path)
    assert not marker.exists()


def test_the_loader_holds_no_unpickling_call():
    import fsopt.datasets as datasets

    source = Path(datasets.__file__).read_text()
    for call in ("import pickle", "pickle.load", "read_pickle", "allow_pickle", "np.load(", "read_parquet",
                 "joblib"):
        assert call not in source


@pytest.mark.parametrize("n_columns", [3, 12, 13, 500])
def test_an_unknown_label_column_lists_the_columns_first_and_last(tmp_path, n_columns):
    path = tmp_path / "d.csv"
    names = [f"col{i}" for i in range(n_columns)]
    path.write_text(",".join(names) + "\n" + ",".join("1" * n_columns) + "\n")
    text = refused(lambda: read_csv(path, label="nope"), ValueError, path, "'nope' not found",
                   names[0], names[-1], names[-2])
    assert (f"({n_columns} columns)" in text) == (n_columns > 12)


def test_a_good_file_still_reads(tmp_path):
    path = tmp_path / "d.csv.gz"
    path.write_bytes(FULL_GZ)
    X, y = read_csv(path)
    assert X.shape == (3000, 2) and set(y) == {0, 1}


# --- generator arguments ----------------------------------------------------------------------
GENERATOR_CASES = [
    (make_spiral, dict(n_per_class=TERA), ValueError, "n_per_class"),
    (make_spiral, dict(n_irrelevant=TERA), ValueError, "n_irrelevant"),
    (make_spiral, dict(n_irrelevant=10**8), ValueError, "n_irrelevant"),
    (make_spiral, dict(n_per_class=10**8, n_irrelevant=10**3), ValueError, "n_per_class"),
    (make_spiral, dict(n_irrelevant=-1), ValueError, "n_irrelevant"),
    (make_spiral, dict(n_irrelevant="5"), TypeError, "n_irrelevant"),
    (make_spiral, dict(n_irrelevant=True), TypeError, "n_irrelevant"),
    (make_spiral, dict(n_irrelevant=3.0), TypeError, "n_irrelevant"),
    (make_spiral, dict(n_per_class=None), TypeError, "n_per_class"),
    (make_spiral, dict(n_per_class=np.float64(10)), TypeError, "n_per_class"),
    (make_spiral, dict(turns=np.nan), ValueError, "turns"),
    (make_spiral, dict(noise=np.inf), ValueError, "noise"),
    (make_lfs_synthetic, dict(n_irrelevant=TERA), ValueError, "n_irrelevant"),
    (make_lfs_synthetic, dict(n_plus=TERA), ValueError, "n_plus"),
    (make_lfs_synthetic, dict(n_circle=-2), ValueError, "n_circle"),
    (make_lfs_synthetic, dict(n_diamond=True), TypeError, "n_diamond"),
    (make_lfs_synthetic, dict(n_irrelevant="x"), TypeError, "n_irrelevant"),
    (make_lfs_synthetic, dict(separation="far"), TypeError, "separation"),
    (make_nmmkl_toy, dict(n_samples=TERA), ValueError, "n_samples"),
    (make_nmmkl_toy, dict(n_samples=2.5), TypeError, "n_samples"),
    (make_nmmkl_toy, dict(n_samples=-10), ValueError, "n_samples"),
    (make_nmmkl_toy, dict(own_noise=np.nan), ValueError, "own_noise"),
    (add_irrelevant_features, dict(X=np.ones((460, 2)), n_irrelevant=TERA), ValueError, "n_irrelevant"),
    (add_irrelevant_features, dict(X=np.ones((460, 2)), n_irrelevant=10**8), ValueError, "n_irrelevant"),
    (add_irrelevant_features, dict(X=np.ones((4, 2)), n_irrelevant=-1), ValueError, "n_irrelevant"),
    (add_irrelevant_features, dict(X=np.ones((4, 2)), n_irrelevant="3"), TypeError, "n_irrelevant"),
    (add_irrelevant_features, dict(X=np.ones((4, 2)), n_irrelevant=False), TypeError, "n_irrelevant"),
]


@pytest.mark.parametrize("func, kwargs, error, field", GENERATOR_CASES,
                         ids=[f"{f.__name__}-{'-'.join(k for k in kw if k != 'X')}-{i}"
                              for i, (f, kw, _, _) in enumerate(GENERATOR_CASES)])
def test_a_generator_argument_is_checked_before_any_allocation(func, kwargs, error, field):
    refused(lambda: func(**kwargs), error, field)


def test_a_tera_size_is_refused_in_milliseconds(problem_dir):
    declare(problem_dir, SPIRAL + f"n_irrelevant = {TERA}\n")
    problem = get_problem("edge")
    for call in (problem.load, lambda: make_spiral(230, TERA), lambda: add_irrelevant_features(np.ones((460, 2)), TERA),
                 lambda: problem.check_size(n_irrelevant=TERA)):
        t0 = time.perf_counter()
        with pytest.raises(ValueError, match="memory"):
            call()
        assert time.perf_counter() - t0 < 0.05


def test_numpy_integers_are_integers():
    X, y = make_spiral(np.int64(5), np.int32(3), random_state=np.int64(0))
    assert X.shape == (10, 5)


def test_the_memory_bound_is_the_machines(monkeypatch):
    """Just above the available memory is refused, just below is drawn: the bound is not a constant."""
    monkeypatch.setattr(limits, "available_memory", lambda: 8 * 20 * 6)
    assert make_spiral(10, 4, random_state=0)[0].shape == (20, 6)
    refused(lambda: make_spiral(10, 5), ValueError, "n_irrelevant=5", "960 B")


def test_available_memory_is_a_positive_figure(monkeypatch):
    monkeypatch.undo()
    assert 0 < limits.available_memory() <= limits.os.sysconf("SC_PHYS_PAGES") * limits.os.sysconf("SC_PAGE_SIZE")


# --- CLI flags --------------------------------------------------------------------------------
def cli(capsys, *argv):
    t0 = time.perf_counter()
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    return code, err, time.perf_counter() - t0


@pytest.mark.parametrize("value", [str(TERA), "100000000"])
def test_run_irrelevant_too_large_for_memory_is_one_line(capsys, problem_dir, value):
    path = declare(problem_dir, SPIRAL)
    code, err, seconds = cli(capsys, "run", "logo", "--problem", "edge", "--irrelevant", value)
    assert code == 2 and seconds < 5 and len(err.splitlines()) == 1
    assert str(path) in err and "--irrelevant" in err and "memory" in err


def test_run_irrelevant_on_a_data_file_names_the_flag(capsys, tmp_path):
    (tmp_path / "d.csv").write_text("a,b,label\n1,2,x\n3,4,y\n5,6,x\n")
    code, err, seconds = cli(capsys, "run", "logo", "--data", str(tmp_path / "d.csv"), "--irrelevant", str(TERA))
    assert code == 2 and seconds < 5 and len(err.splitlines()) == 1
    assert "--irrelevant" in err and "memory" in err


@pytest.mark.parametrize("flag, value", [("--irrelevant", "abc"), ("--irrelevant", "-5"), ("--irrelevant", "1.5"),
                                         ("--seed", "-1"), ("--seed", "x")])
def test_run_flags_that_are_not_counts_exit_2_naming_the_flag(capsys, flag, value):
    with pytest.raises(SystemExit) as info:
        main(["run", "logo", "--problem", "spiral", flag, value])
    err = capsys.readouterr().err
    assert info.value.code == 2 and f"argument {flag}" in err.splitlines()[-1] and value in err


@pytest.mark.parametrize("content, fragment", [(b"", "empty"), (pickle.dumps([1]), "pickle"),
                                                (b"a,a,label\n1,2,x\n", "duplicate")])
def test_run_on_a_bad_data_file_is_one_line_naming_it(capsys, tmp_path, content, fragment):
    path = tmp_path / "d.csv"
    path.write_bytes(content)
    code, err, _ = cli(capsys, "run", "logo", "--data", str(path))
    assert code == 2 and len(err.splitlines()) == 1 and str(path) in err and fragment in err


@pytest.mark.parametrize("args, fragment", [(["--repeat", "0"], "repeat"), (["--timeout", "nan"], "timeout"),
                                            (["--timeout", "inf"], "timeout"), (["--jobs", "0"], "n_jobs"),
                                            (["--shift", "-1"], "shift"), (["--retry", "optimal"], "retry"),
                                            (["--repeat", str(TERA)], "repeat"), (["--jobs", str(TERA)], "n_jobs"),
                                            (["--jobs", str(-TERA)], "n_jobs")])
def test_bench_flags_out_of_bounds_exit_2_before_the_folder_exists(capsys, tmp_path, args, fragment):
    out = tmp_path / "out"
    code, err, _ = cli(capsys, "bench", "--quick", "--out", str(out), "--problem", "spiral", *args)
    assert code == 2 and fragment in err and not out.exists()


@pytest.mark.parametrize("flag, value", [("--splits", str(TERA)), ("--splits", "0"), ("--splits", "x"),
                                         ("--null", str(TERA)), ("--null", "-1"), ("--jobs", str(TERA)),
                                         ("--jobs", "-2"), ("--seed", "-1"), ("--seed", str(2**32))])
def test_experiment_counts_out_of_bounds_exit_2_naming_the_flag(capsys, tmp_path, flag, value):
    out = tmp_path / "out"
    t0 = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        main(["experiment", "nmmkl-uci", "--data", "sonar", "--quick", "--out", str(out), flag, value])
    err = capsys.readouterr().err
    assert info.value.code == 2 and f"argument {flag}" in err.splitlines()[-1] and value in err
    assert time.perf_counter() - t0 < 5 and not out.exists()


# --- [bench] tables ----------------------------------------------------------------------------
BENCH_CASES = [
    ("sizes = [50, 1000000000000]", ValueError, ["[bench] sizes", "n_irrelevant", "memory"]),
    ("sizes = [100000000]", ValueError, ["[bench] sizes", "memory"]),
    ("sizes = [10]\nquick_sizes = [1000000000000]", ValueError, ["[bench] quick_sizes", "memory"]),
    ('size = "n_per_class"\nsizes = [1000000000000]', ValueError, ["[bench] sizes", "n_per_class", "memory"]),
    ('size = "bogus"\nsizes = [10]', TypeError, ["'bogus' is not a parameter"]),
    ('sizes = ["50"]', ValueError, ["sizes", "positive integers"]),
    ("sizes = [true]", ValueError, ["sizes", "positive integers"]),
    ("sizes = [-5]", ValueError, ["sizes", "positive integers"]),
    ("sizes = []", ValueError, ["sizes", "positive integers"]),
    ("sizes = 50", ValueError, ["sizes", "positive integers"]),
    ("quick_sizes = [5]", ValueError, ["no 'sizes'"]),
    ("sizes = [5]\ntolerances = [nan]", ValueError, ["tolerances"]),
    ("sizes = [5]\niterations = [0]", ValueError, ["iterations"]),
    ("sizes = [5]\nreference = 3", ValueError, ["reference"]),
]


@pytest.mark.parametrize("table, error, fragments", BENCH_CASES)
def test_a_bench_table_is_checked_for_every_size_before_any_work(problem_dir, table, error, fragments):
    path = declare(problem_dir, SPIRAL + "[bench]\n" + table + "\n")
    refused(lambda: bench._bench_problems(["edge"]), error, path, *fragments)


def test_a_bench_of_a_declared_size_too_large_leaves_no_folder(capsys, problem_dir, tmp_path):
    declare(problem_dir, SPIRAL + f"[bench]\nsizes = [10]\nquick_sizes = [{TERA}]\n")
    out = tmp_path / "out"
    code, err, seconds = cli(capsys, "bench", "--quick", "--out", str(out), "--problem", "edge")
    assert code == 2 and seconds < 10 and "quick_sizes" in err and not out.exists()


# --- bench results logs ------------------------------------------------------------------------
def log_row(status, solver="CLARABEL", repetition=0, reason=""):
    cell = bench.Cell("spiral", "garrote", 20, solver)
    solved = status in st.SUCCESS
    values = dict(objective=1.0, certificate=1e-10, certified=True, claim=status, claim_confirmed=True) if solved else {}
    return bench.check_row(bench._row(cell, status, (repetition, bench.DEFAULT, None), reason=reason, **values))


def write_log(folder, rows):
    folder.mkdir(exist_ok=True)
    path = folder / "results.jsonl"
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    return path


NOT_RUN = f"{bench.NOT_RUN}: the solve before it ended in timeout"
REFUSED_LOGS = {  # rows; the lines named
    "a certified solve twice": ([log_row("optimal"), log_row("optimal")], "lines 1 and 2"),
    "twice with another row between": ([log_row("optimal"), log_row("optimal", "SCS"), log_row("optimal")],
                                       "lines 1 and 3"),
    "a failure after a certified solve": ([log_row("optimal"), log_row("timeout")], "lines 1 and 2"),
    "an inaccurate optimum twice": ([log_row("optimal_inaccurate"), log_row("optimal_inaccurate")], "lines 1 and 2"),
    "a skip that is not a 'not run' twice": ([log_row("skipped", reason="excluded"), log_row("skipped", reason="excluded")],
                                             "lines 1 and 2"),
    "replaced then repeated": ([log_row("timeout"), log_row("optimal"), log_row("optimal")], "lines 2 and 3"),
}


@pytest.mark.parametrize("case", list(REFUSED_LOGS))
def test_a_duplicated_log_row_is_refused_with_its_lines(tmp_path, case):
    rows, lines = REFUSED_LOGS[case]
    path = write_log(tmp_path / "out", rows)
    refused(lambda: bench.read_log(path), ValueError, path, lines, "twice")


@pytest.mark.parametrize("rows", [
    [log_row("timeout"), log_row("optimal")],
    [log_row("error"), log_row("timeout"), log_row("optimal")],
    [log_row("skipped", reason=NOT_RUN), log_row("optimal")],
    [log_row("optimal"), log_row("optimal", repetition=1)],
    [log_row("optimal"), log_row("optimal", solver="SCS")],
], ids=["retried timeout", "retried twice", "not run then run", "two repetitions", "two solvers"])
def test_a_row_a_retry_replaces_is_read_last_one_winning(tmp_path, rows):
    logged = bench.read_log(write_log(tmp_path / "out", rows))
    assert [r["status"] for cell in logged.values() for r in cell.values()][-1] == rows[-1]["status"]


@pytest.mark.parametrize("status", ["timeout", "error"])
def test_a_replaceable_row_repeated_byte_for_byte_is_read_once_with_a_notice(tmp_path, capsys, status):
    path = write_log(tmp_path / "out", [log_row(status, reason="the same"), log_row("optimal", "SCS"),
                                        log_row(status, reason="the same")])
    logged = bench.read_log(path)
    assert sum(len(cell) for cell in logged.values()) == 2
    assert f"{path}: line 3 repeats line 1 exactly" in capsys.readouterr().err


@pytest.mark.parametrize("line", ["[" * 100000 + "]" * 100000, '{"a": ' * 5000 + "1" + "}" * 5000,
                                  "[" * 40 + "]" * 40, "[1, 2]", "null", "\x00\x01garbage"],
                         ids=["arrays", "objects", "arrays 40", "a list", "null", "garbage"])
def test_a_log_line_too_deep_or_not_a_row_names_the_file_and_line(tmp_path, line):
    path = write_log(tmp_path / "out", [log_row("optimal")])
    with open(path, "a") as fh:
        fh.write(line + "\n" + json.dumps(log_row("optimal", "SCS"), default=str) + "\n")
    refused(lambda: bench.read_log(path), ValueError, path, "line 2", seconds=3.0)


@pytest.mark.parametrize("stored", ["[" * 100000 + "]" * 100000, "[1, 2]", '"a string"', "{broken"],
                         ids=["deep", "a list", "a string", "broken"])
def test_a_study_json_too_deep_or_not_an_object_names_the_file(tmp_path, stored):
    out = tmp_path / "out"
    out.mkdir()
    (out / "study.json").write_text(stored)
    with pytest.raises(ValueError, match="study.json is not readable study metadata"):
        with StudyFolder(out, {"study": "x"}, bench.check_row):
            pass


# --- solver profiles ----------------------------------------------------------------------------
PROFILE_CASES = [
    ("SCS", "max_iter = 1000000000000000000", ValueError, "max_iter"),
    ("SCS", "max_iter = 2147483648", ValueError, "max_iter"),
    ("CLARABEL", "max_iter = 0", ValueError, "max_iter"),
    ("SCS", "max_iter = -1", ValueError, "max_iter"),
    ("SCS", 'max_iter = "10"', ValueError, "max_iter"),
    ("SCS", "max_iter = true", ValueError, "max_iter"),
    ("SCS", "max_iter = 10.5", ValueError, "max_iter"),
    ("SCS", "tol = 0.0", ValueError, "tol"),
    ("SCS", "tol = -1e-6", ValueError, "tol"),
    ("SCS", "tol = 1.0", ValueError, "tol"),
    ("SCS", "tol = 5.0", ValueError, "tol"),
    ("SCS", "tol = nan", ValueError, "tol"),
    ("SCS", "tol = inf", ValueError, "tol"),
    ("SCS", 'tol = "abc"', ValueError, "tol"),
    ("SCS", "time_limit_secs = inf", ValueError, "time_limit_secs"),
    ("SCS", "time_limit_secs = -1.0", ValueError, "time_limit_secs"),
    ("SCS", "time_limit_secs = nan", ValueError, "time_limit_secs"),
    ("CLARABEL", "time_limit = inf", ValueError, "time_limit"),
    ("SCS", "alpha = nan", ValueError, "alpha"),
    ("SCS", "acceleration_lookback = 1000000000000", ValueError, "acceleration_lookback"),
    ("HIGHS", "[options.highs_options]\ntime_limit = inf", ValueError, "[options.highs_options] time_limit"),
    ("HIGHS", "[options.highs_options]\nrandom_seed = 10000000000000", ValueError, "random_seed"),
    ("GRADIENT", "max_iter = 1000000000000000000", ValueError, "max_iter"),
    ("GRADIENT", "tol = 2.0", ValueError, "tol"),
]


@pytest.mark.parametrize("backend, options, error, field", PROFILE_CASES)
def test_a_profile_number_out_of_bounds_names_the_file_and_field(tmp_path, backend, options, error, field):
    path = tmp_path / "edge.toml"
    table = options if options.startswith("[") else "[options]\n" + options
    path.write_text(f'backend = "{backend}"\n{table}\n')
    refused(lambda: _read_profiles([path]), (ValueError, TypeError), path, field, seconds=3.0)


@pytest.mark.parametrize("text", ["x = " + "[" * DEEP + "]" * DEEP, 'backend = "SCS"\n' + "o." * DEEP + "p = 1",
                                  "\xff\xfe\x00binary", 'backend = "SCS"\n[options\n'],
                         ids=["arrays", "dotted keys", "binary", "broken"])
def test_a_profile_too_deep_or_not_toml_names_the_file(tmp_path, text):
    path = tmp_path / "edge.toml"
    path.write_bytes(text.encode("latin-1"))
    refused(lambda: _read_profiles([path]), ValueError, path, seconds=3.0)


@pytest.mark.parametrize("options", ["max_iter = 2147483647", "tol = 0.5", "time_limit_secs = 30.0",
                                     "max_iter = 1\ntol = 1e-12"])
def test_a_profile_at_its_bounds_is_read(tmp_path, options):
    path = tmp_path / "edge.toml"
    path.write_text(f'backend = "SCS"\n[options]\n{options}\n')
    assert _read_profiles([path])["edge"].backend == "SCS"


# --- labels -----------------------------------------------------------------------------------------
LABEL_CASES = {
    "int and str": (np.array([1, "a", 1, "a", 1, "a"], dtype=object), TypeError, ["mixes label types", "1", "'a'"]),
    "str and float": (np.array(["a", 2.5, "a", 2.5, "a", 2.5], dtype=object), TypeError, ["mixes label types"]),
    "bytes and str": (np.array([b"a", "a", b"a", "a", b"a", "a"], dtype=object), TypeError, ["mixes label types"]),
    "a late str": (np.array([0, 1] * 20 + ["z"], dtype=object), TypeError, ["row 40", "'z'"]),
    "None": (np.array([1, None, 1, 2, 1, 2], dtype=object), ValueError, ["missing label", "row 1"]),
    "NaN in objects": (np.array(["a", np.nan, "a", "b", "a", "b"], dtype=object), ValueError, ["missing label", "row 1"]),
}


@pytest.mark.parametrize("case", list(LABEL_CASES))
@pytest.mark.parametrize("make", [LOGO, lambda: NMMKL(1), LFS], ids=["LOGO", "NMMKL", "LFS"])
def test_mixed_or_missing_labels_are_named_before_any_work(case, make):
    y, error, fragments = LABEL_CASES[case]
    X = np.random.default_rng(0).normal(size=(len(y), 3))
    refused(lambda: make().fit(X, y), error, "y ", *fragments)


def test_the_label_check_names_a_files_label_column():
    with pytest.raises(TypeError, match="column 'class' mixes label types"):
        check_labels(np.array([1, "a"], dtype=object), what="column 'class'")


def test_labels_of_one_type_pass():
    for y in (np.array(["a", "b", "a"], dtype=object), np.array([1, 2, 1]), [True, False, True], ["a", "b", "a"]):
        assert len(check_labels(y)) == 3
