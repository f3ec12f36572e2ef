"""The framework pieces: solver registry, profiles, driver, data loader, problem declarations."""
import gzip

import numpy as np
import pytest

from fsopt.logo.working_set import WorkingSet
from fsopt import FixedPointDriver, FixedPointMethod, Step
from fsopt.datasets import add_irrelevant_features, load_dataset, read_csv
from fsopt.tools.problems import get_problem, problems
from fsopt.core.solvers import backends, installed_backends, profiles, resolve_solver


def test_default_backends_installed_with_capabilities():
    names = installed_backends()
    for name in ["CLARABEL", "ECOS", "SCS", "HIGHS", "GRADIENT"]:
        assert name in names
    reg = backends()
    assert "EXP" in reg["CLARABEL"].cones and reg["HIGHS"].cones == {"LP"}


@pytest.mark.parametrize("name, key", [("CLARABEL", "tol_gap_rel"), ("ECOS", "reltol"),
                                       ("SCS", "eps_rel"), ("HIGHS", "primal_feasibility_tolerance")])
def test_common_options_translate(name, key):
    opts = backends()[name].translate(tol=1e-7, max_iter=50)
    assert opts[key] == 1e-7 and 50 in opts.values()


def test_profiles_resolve_to_backend_and_options():
    backend, opts = resolve_solver("scs-tight")
    assert backend.name == "SCS" and opts["tol"] == 1e-9
    assert {"clarabel-tight", "scs-tight"} <= set(profiles())


def test_user_profile_directory(tmp_path, monkeypatch):
    (tmp_path / "mine.toml").write_text('backend = "CLARABEL"\n[options]\nmax_iter = 7\n')
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    assert resolve_solver("mine").solver_options == {"max_iter": 7}


def test_profile_with_unknown_backend_is_reported(tmp_path, monkeypatch):
    (tmp_path / "bad.toml").write_text('backend = "NOSUCH"\n')
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    with pytest.raises(ValueError, match="unknown backend 'NOSUCH'"):
        resolve_solver("bad")


class Contraction(FixedPointMethod):
    """x <- A x + b with ||A|| < 1: a method with a known fixed point (I - A)^-1 b."""

    def __init__(self, A, b):
        self.A, self.b = A, b

    def initial_iterate(self):
        return np.ones_like(self.b)

    def statistics(self, iterate, active):
        return self.A @ iterate

    def update(self, stats, iterate, active):
        return Step(stats + self.b, objective=float(np.sum(stats)))

    def round(self, iterate, active, detail):
        return np.flatnonzero(iterate > 0.5)


def test_driver_reaches_the_fixed_point_and_rounds(rng):
    A = rng.uniform(-1, 1, (5, 5))
    A *= 0.5 / np.linalg.norm(A, 2)
    b = rng.uniform(0, 1, 5)
    result = FixedPointDriver(theta=1e-10, max_iter=200).run(Contraction(A, b))
    x_star = np.linalg.solve(np.eye(5) - A, b)
    assert result.converged and np.allclose(result.iterate, x_star, atol=1e-9)
    assert np.array_equal(result.rounding, np.flatnonzero(x_star > 0.5))
    changes = [h.change for h in result.history]
    assert all(c2 <= 0.5 * c1 + 1e-15 for c1, c2 in zip(changes, changes[1:]))  # contraction


def test_driver_prunes_small_entries(rng):
    A = np.diag([0.5, 0.5, 0.01])
    b = np.array([1.0, 1.0, 0.0])
    result = FixedPointDriver(theta=1e-12, max_iter=100, active_set=WorkingSet(prune_below=1e-3)).run(Contraction(A, b))
    assert result.active.tolist() == [True, True, False] and result.iterate[2] == 0.0


def test_loader_reads_packaged_data_by_name_path_and_directory(data_dir):
    X, y = load_dataset("sonar", data_dir=data_dir)
    assert X.shape == (208, 60) and set(np.unique(y)) == {"M", "R"}
    X2, _ = load_dataset(data_dir / "sonar.csv.gz")
    assert np.array_equal(X, X2)
    Xw, yw = load_dataset("wdbc")
    assert Xw.shape == (569, 30) and len(set(yw)) == 2


def test_loader_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="'nope' not found.*known"):
        load_dataset("nope", data_dir=tmp_path)
    bad = tmp_path / "bad.csv.gz"
    with gzip.open(bad, "wt") as fh:
        fh.write("x0,x1,label\n1,abc,0\n2,3,1\n")
    with pytest.raises(TypeError, match="column 'x1' is not numeric"):
        read_csv(bad)
    missing = tmp_path / "missing.csv"
    missing.write_text("x0,x1,label\n1,,0\n2,3,1\n")
    with pytest.raises(ValueError, match="missing value at row 0, column 'x1'"):
        read_csv(missing)


def test_irrelevant_features_are_seeded():
    X = np.zeros((4, 2))
    a = add_irrelevant_features(X, 3, random_state=7)
    assert a.shape == (4, 5) and np.array_equal(a, add_irrelevant_features(X, 3, random_state=7))


def test_problem_declarations_load(data_dir):
    spiral = get_problem("spiral", "logo")
    X, y = spiral.load(n_irrelevant=7)
    assert X.shape == (460, 9)
    assert all(p.method for p in problems().values())
    with pytest.raises(ValueError, match="unknown problem 'nope'"):
        get_problem("nope")


def test_the_driver_holds_no_method_policy():
    """Issue 44: the driver runs the generic loop; which features are held out, and when, is the
    method's policy (LOGO's in fsopt/logo/working_set.py), passed as ``active_set``.  Without one
    every feature stays active whatever the iterate, even for a method that could check them."""
    import inspect
    import re

    import fsopt.core.driver as driver

    words = re.findall(r"logo|nmmkl|lfs|prune|budget|sigma", inspect.getsource(driver), flags=re.I)
    assert words == []
    A, b = np.diag([0.5, 0.5, 0.5]), np.array([1.0, 0.0, 0.0])
    result = FixedPointDriver(theta=1e-12, max_iter=100).run(Contraction(A, b))
    assert result.active.all() and all(h.n_dropped == 0 and h.n_active == 3 for h in result.history)
