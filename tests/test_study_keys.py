"""A study's rows are keyed by everything that determines them (issue 48): editing a parameter,
the data, a solver's profile or a version re-solves exactly the affected rows and says why; a
study grows by a solver or a size without rerunning the rest; another problem set, an old log
without keys or a forged key are refused."""
import json
import re

import numpy as np
import pytest

from fsopt.tools import bench
from fsopt.tools import bench_keys as keys

PROBLEM = """method = "logo"
[data]
generator = "fsopt.datasets.spiral:make_spiral"
random_state = {seed}
[data.params]
n_per_class = 25
[params]
sigma = 2.0
lam = {lam}
[bench]
size = "n_irrelevant"
sizes = {sizes}
tolerances = []
"""
PROFILE = 'backend = "CLARABEL"\n[options]\ntol = {tol}\n'


def _declare(folder, lam=1.0, seed=0, sizes=(2,), tol=1e-8):
    """The problem file "keyed" and the solver profile "my-clarabel" under ``folder``."""
    (folder / "problems").mkdir(exist_ok=True)
    (folder / "solvers").mkdir(exist_ok=True)
    text = PROBLEM.format(lam=lam, seed=seed, sizes=list(sizes))
    (folder / "problems" / "keyed.toml").write_text(text.replace("random_state = None\n", ""))
    (folder / "solvers" / "my-clarabel.toml").write_text(PROFILE.format(tol=tol))
    return folder / "problems" / "keyed.toml"


def _search(monkeypatch, folder):
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(folder / "problems"))
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(folder / "solvers"))


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A finished study (CLARABEL on "keyed" at size 2), solved once for the module."""
    folder = tmp_path_factory.mktemp("base")
    _declare(folder)
    with pytest.MonkeyPatch.context() as monkeypatch:
        _search(monkeypatch, folder)
        run(folder / "out")
    return folder / "out"


@pytest.fixture
def study(base, tmp_path, monkeypatch):
    """A copy of the base study with its own problem file and profile (elsewhere: the file's
    name and place are not in the key); ``declare(**changes)`` rewrites them."""
    path = _declare(tmp_path)
    _search(monkeypatch, tmp_path)
    (tmp_path / "out").mkdir()
    for name in ("results.jsonl", "study.json"):
        (tmp_path / "out" / name).write_bytes((base / name).read_bytes())
    return tmp_path / "out", path, lambda **changes: _declare(tmp_path, **changes)


def run(out, solvers=("CLARABEL",), **kwargs):
    frame = bench.run(out=out, problem_names=["keyed"], solvers=list(solvers), progress=False, repeat=1, **kwargs)
    return frame, frame.attrs["run"]


def log(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def counts(lines):
    """{word: count} of the run's first line ('... 2 reused ..., 0 new, 2 re-solved ...')."""
    return {word: int(n) for n, word in re.findall(r"(\d+) (solves|reused|new|re-solved|retried)", lines[0])}


def check_a_changed_lam_is_re_solved(out, path, declare):
    """The property: after lam 1.0 → 2.0 every row is solved again, the run says why, and the
    study shows the new numbers only; back to lam = 1.0, the first rows match again."""
    first, lines = run(out)
    assert counts(lines)["reused"] == 1
    declare(lam=2.0)
    again, lines = run(out)
    assert counts(lines)["re-solved"] == 1 and counts(lines)["reused"] == 0, lines
    assert lines[1] == f"  re-solved 1: params.lam 1.0 → 2.0 in problem file {path}", lines
    assert len(log(out)) == 2 and set(again["key"]).isdisjoint(first["key"])
    assert not np.allclose(again["objective"], first["objective"])  # a stronger penalty
    declare(lam=1.0)
    back, lines = run(out)
    assert counts(lines)["reused"] == 1 and len(log(out)) == 2
    np.testing.assert_array_equal(back["objective"], first["objective"])


def test_a_changed_parameter_re_solves_its_rows_and_says_why(study):
    out, path, declare = study
    check_a_changed_lam_is_re_solved(out, path, declare)
    summary = (out / "summary.md").read_text()
    top = summary.split("## Shifted geometric mean")[0]  # the command line, then this run's account
    assert top.startswith("Command: `fsopt bench --out ") and "## This run" in top and "1 reused from the log" in top


@pytest.mark.parametrize("planted", ["declaration without params", "no params anywhere"])
def test_a_key_that_drops_the_parameters_fails_the_check(study, monkeypatch, planted):
    out, path, declare = study
    real = keys.declaration
    monkeypatch.setattr(keys, "declaration", lambda p: {k: v for k, v in real(p).items() if k != "params"})
    if planted == "no params anywhere":  # nor the instance's state (lam lives in its penalty)
        monkeypatch.setattr(keys, "state", lambda obj: "planted")
    with pytest.raises(AssertionError):
        check_a_changed_lam_is_re_solved(out, path, declare)


def test_changed_data_re_solve_their_rows(study):
    out, path, declare = study
    declare(seed=1)
    _, lines = run(out)
    assert counts(lines)["re-solved"] == 1
    assert lines[1] == f"  re-solved 1: data.random_state 0 → 1 in problem file {path}; the data changed"


def test_data_not_the_same_at_each_load_are_an_error_not_a_mislabelled_row(study):
    out, _, declare = study
    declare(seed=None)  # the spiral drawn afresh at each load: the worker's is not the planned one
    frame, _ = run(out)
    assert (frame["status"] == "error").all(), frame["status"]
    assert "the data built for the solves differs from the one planned" in frame["reason"].iloc[0]
    assert "give [data] random_state" in frame["reason"].iloc[0]


def test_a_changed_profile_re_solves_only_its_solver(study):
    out, _, declare = study
    _, lines = run(out, ["my-clarabel"])
    assert counts(lines) == {"solves": 2, "reused": 1, "new": 1, "re-solved": 0, "retried": 0}
    declare(tol=1e-9)
    frame, lines = run(out, ["my-clarabel"])
    assert counts(lines) == {"solves": 2, "reused": 1, "new": 0, "re-solved": 1, "retried": 0}
    assert "re-solved 1: the solver: arguments.tol_feas 1e-08 → 1e-09" in lines[1] and "profile.tol" in lines[1]
    assert len(frame) == 2 and json.loads(frame["options"][frame["solver"] == "my-clarabel"].iloc[0])


def test_a_changed_version_re_solves_every_row_and_names_it(study, monkeypatch):
    out, _, _ = study
    real = keys.versions()
    monkeypatch.setattr(keys, "versions", lambda: dict(real, cvxpy="99.0"))
    _, lines = run(out)
    assert counts(lines)["re-solved"] == 1 and "versions: cvxpy" in lines[1] and "→ 99.0" in lines[1]


def test_adding_a_solver_runs_only_its_rows_and_the_outputs_cover_both(study):
    out, _, _ = study
    frame, lines = run(out, ["ECOS"])
    assert counts(lines) == {"solves": 2, "reused": 1, "new": 1, "re-solved": 0, "retried": 0}
    assert len(log(out)) == 2 and set(frame["solver"]) == {"CLARABEL", "ECOS"} and frame["solved"].all()
    assert json.loads((out / "study.json").read_text())["solvers"] == ["CLARABEL", "ECOS"]
    assert "| ECOS |" in (out / "summary.md").read_text() and "| CLARABEL |" in (out / "summary.md").read_text()


def test_adding_a_size_runs_only_that_size(study):
    out, _, declare = study
    declare(sizes=(2, 6))
    frame, lines = run(out)
    assert counts(lines) == {"solves": 2, "reused": 1, "new": 1, "re-solved": 0, "retried": 0}
    assert [r["size"] for r in log(out)] == [2, 6] and sorted(frame["size"]) == [2, 6]


def test_another_problem_set_on_the_same_out_is_refused(study):
    out, _, _ = study
    with pytest.raises(ValueError, match=r"holds another study \(problems: \['keyed'\] there, \['keyed', 'spiral'\] now"):
        bench.run(out=out, problem_names=["keyed", "spiral"], solvers=["CLARABEL"], progress=False)


def test_a_log_without_keys_is_refused_with_what_to_do(study):
    out, _, _ = study
    rows = log(out)
    for row in rows:
        del row["key"], row["provenance"]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"line 1, .*written before rows carried keys .*rerun the study in a new --out"):
        run(out)


def test_a_row_whose_key_is_not_its_provenance_is_refused(study):
    out, _, _ = study
    rows = log(out)
    rows[0]["provenance"] = rows[0]["provenance"].replace('"lam":1.0', '"lam":2.0')
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match=r"line 1, .*is not the digest of the row's provenance"):
        run(out)


def test_the_instance_state_tells_arrays_and_nested_parameters_apart():
    from fsopt.logo.garrote import GarroteLogistic

    Z = np.arange(6.0).reshape(3, 2)
    base = keys.digest(keys.state(GarroteLogistic(lam=1.0, Z=Z)))
    assert keys.digest(keys.state(GarroteLogistic(lam=1.0, Z=Z.copy()))) == base
    assert keys.digest(keys.state(GarroteLogistic(lam=2.0, Z=Z))) != base
    assert keys.digest(keys.state(GarroteLogistic(lam=1.0, Z=Z + 1e-12))) != base


def test_every_status_is_in_the_summary_with_its_count_and_an_example():
    import pandas as pd

    from fsopt.tools.bench_stats import summary

    cell = bench.Cell("keyed", "garrote_logistic", 2, "HIGHS")
    rows = [bench._row(cell, "error", (0, "tol", 1e-2), reason="SolverError: planted at a loose tolerance"),
            bench._row(cell, "error", (0, "tol", 1e-4), reason="SolverError: again"),
            bench._row(cell, "rejected_certificate", (0, "default", None), certificate=3e-4, objective=1.0),
            bench._row(bench.Cell("keyed", "garrote_logistic", 2, "SCS"), "timeout", reason="no result within 1 s")]
    text = summary(pd.DataFrame(rows, columns=bench.COLUMNS), time_limit=1.0)
    assert "| garrote_logistic | HIGHS | error | 2 | SolverError: planted at a loose tolerance |" in text
    assert "| garrote_logistic | HIGHS | rejected_certificate | 1 | certificate residual 0.0003 |" in text
    assert "| garrote_logistic | SCS | timeout | 1 | no result within 1 s |" in text


def test_solvers_are_timed_at_equal_accuracy_and_a_rejected_claim_keeps_its_certificate_parts():
    import pandas as pd

    from fsopt.tools.bench_stats import accuracy_times

    cell = bench.Cell("spiral", "garrote_logistic", 20, "GRADIENT", 1, (("tol", 1e-2), ("max_iter", 2)))
    default, loose, short = bench._solve_cell(cell)
    parts = json.loads(loose["certificate_parts"])
    assert loose["status"] == "rejected_certificate" and parts["residual"] == loose["certificate"] > parts["bound"]
    assert parts["residual"] <= 100 * parts["bound"] and "primal_infeasibility" in parts
    frame = pd.DataFrame([default, loose, short], columns=bench.COLUMNS)
    at = {factor: accuracy_times(frame, factor).iloc[0, 0] for factor in (100.0, 1.0)}
    # low accuracy: the loose solve (faster, within 100 × its bound) counts; default: only the certified one
    assert at[100.0] == loose["time"] < default["time"] and at[1.0] == default["time"]


def test_an_order_within_the_repetitions_spread_is_flagged_and_a_clear_one_is_not():
    import pandas as pd

    from fsopt.tools.bench_stats import within_noise

    table = pd.DataFrame({"solver": ["ECOS", "SCS", "CLARABEL"], "sgm_time": [0.100, 0.103, 0.200]})
    spread = pd.Series({"ECOS": 0.05, "SCS": 0.02, "CLARABEL": 0.01})
    warnings = within_noise(table, spread)
    assert len(warnings) == 1 and "ECOS and SCS differ by 3% while their repetitions spread by 5%" in warnings[0]
    assert within_noise(table, pd.Series({"ECOS": 0.01, "SCS": 0.01})) == []


class _StepBackend:
    """A user's backend: what its constructor took decides its answers."""
    name = "STEP"

    def __init__(self, step):
        self._step = step


class _SlottedPenalty:
    __slots__ = ("lam",)

    def __init__(self, lam):
        self.lam = lam


class _PrivatePenalty:
    def __init__(self, lam, tags=()):
        self._lam, self.tags = lam, set(tags)


def test_a_users_objects_are_keyed_by_all_they_hold():
    """A backend built with other arguments, a penalty's private or slotted parameter, a set's
    contents: each was the same key, the old rows reused (planted: fsopt's rule, public
    attributes only, for a user's class too, makes the first three equal)."""
    def described(obj):
        return keys.digest(keys.state(obj))

    assert described(_StepBackend(0.1)) != described(_StepBackend(0.5))
    assert described(_StepBackend(0.1)) == described(_StepBackend(0.1))
    assert described(_PrivatePenalty(1.0)) != described(_PrivatePenalty(2.0))
    assert described(_SlottedPenalty(1.0)) != described(_SlottedPenalty(2.0))
    assert described(_PrivatePenalty(1.0, {"a"})) != described(_PrivatePenalty(1.0, {"b"}))
    assert described(_PrivatePenalty(1.0, {"a", "b"})) == described(_PrivatePenalty(1.0, ["b", "a"]))


def test_a_users_class_is_keyed_by_its_source(tmp_path, monkeypatch):
    """An edited ``value()`` in the user's module is another key (planted: ``code`` without the
    source digest for an installed or local module gives the same key)."""
    import importlib
    import os

    (tmp_path / "my_penalty_mod.py").write_text("class Mine:\n    def value(self, w):\n        return 1.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("my_penalty_mod")
    before = keys.digest(keys.state(module.Mine()))
    (tmp_path / "my_penalty_mod.py").write_text("class Mine:\n    def value(self, w):\n        return 2.0\n")
    os.utime(tmp_path / "my_penalty_mod.py", ns=(1, 1))  # another mtime, whatever the clock's grain
    assert keys.digest(keys.state(module.Mine())) != before


def test_a_solve_logged_under_a_longer_limit_counts_as_a_timeout_under_a_shorter_one():
    row = {"status": "optimal", "solved": True, "certified": True, "claim": "optimal", "claim_confirmed": True,
           "objective": 40.6, "certificate": 1e-9, "error_to_reference": 0.0, "time": 2.0, "reason": ""}
    assert bench._within(row, 30.0) is row
    shorter = bench._within(row, 1.0)
    assert shorter["status"] == "timeout" and not shorter["solved"] and shorter["time"] == 1.0
    assert "longer --timeout" in shorter["reason"] and row["status"] == "optimal"
