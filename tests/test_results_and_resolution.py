"""One result type through the driver (no side channels, pure rounding), one solver resolution
per fit, options under one name and one meaning of ``tol`` per backend."""
import collections
import re
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import fsopt.core.solvers as solvers
from fsopt import LFS, LOGO, NMMKL
from fsopt.core.driver import FixedPointDriver
from fsopt.datasets import add_irrelevant_features
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import EpsilonConstraint, LFSConfig, LFSFixedPoint, epsilon_max_closed_form, resolve_solvers
from fsopt.logo import GarroteLogistic
from fsopt.nmmkl import MKLDual, NMMKLMethod

DOCS = Path(__file__).resolve().parents[1] / "docs" / "solvers.md"


def _lfs_data():
    """Small LFS data with a constant column in the middle: the LPs see M − 1 features, so a
    rounding that maps indices back to X's features twice would shift them."""
    X, y = make_lfs_synthetic(8, 8, 16, n_irrelevant=4, random_state=0)
    return np.insert(X, 2, 3.0, axis=1), y


def _wide_toy():
    """The NMMKL toy with 120 irrelevant features: MKLFAST needs several working-set rounds."""
    X, y = make_nmmkl_toy(n_samples=120, random_state=1)
    return add_irrelevant_features(X, 120, random_state=1), y


def _garrote(seed):
    """The garrote subproblem (7) at random margins z̄ (40 samples, 6 features)."""
    return GarroteLogistic(lam=1.0, Z=np.random.default_rng(seed).normal(0.3, 1.0, (40, 6)))


def _same(a, b):
    """Deep equality of results: dataclasses, tuples, dicts, arrays and numbers."""
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, z) for x, z in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f")


def _one_pass(method):
    iterate = method.initial_iterate()
    active = np.ones(iterate.shape[-1], dtype=bool)
    return method.update(method.statistics(iterate, active), iterate, active), active


def test_lfs_rounding_is_pure_and_in_x_features():
    X, y = _lfs_data()
    M, alpha = X.shape[1], 2
    cfg = LFSConfig(alpha, 0.2, 1.0, 4, 50, "sample", *resolve_solvers("HIGHSPY", "TOPK", None, None, M, alpha))
    method = LFSFixedPoint(X, y, cfg, np.random.SeedSequence(0), n_jobs=1)
    step, active = _one_pass(method)
    before = [(p.selected.copy(), p.relaxed.copy()) for p in step.detail]
    first = method.round(step.iterate, active, step.detail)
    second = method.round(step.iterate, active, step.detail)
    assert _same(first, second)  # calling the rounding twice gives the same answer
    assert all(np.array_equal(p.selected, s) and np.array_equal(p.relaxed, r)
               for p, (s, r) in zip(step.detail, before))  # its input is left as it was
    for row, point in zip(first.fstar, first.points):  # every set in X's features, column 2 never
        assert np.array_equal(np.flatnonzero(row), np.sort(point.selected)) and not row[2]
        assert point.relaxed.shape == (M,) and point.relaxed[2] == 0.0


def test_nmmkl_rounding_is_pure():
    X, y = make_nmmkl_toy(n_samples=120, random_state=0)
    method = NMMKLMethod(X, np.where(y == np.unique(y)[1], 1.0, -1.0), 2)
    step, active = _one_pass(method)
    first = method.round(step.iterate, active, step.detail)
    second = method.round(step.iterate, active, step.detail)
    assert _same(first, second) and first.support.sum() == 2
    assert step.detail.partition.support is None  # the pass's partition is not rewritten


class _ForgetfulDriver(FixedPointDriver):
    """Runs the method, then empties it: an estimator that reads the method after the run
    (a side channel) fails; one that reads only the driver's result does not."""

    def run(self, method):
        result = super().run(method)
        vars(method).clear()
        return result


FITTED = {"NMMKL": ["support_", "partition_", "scores_", "p_", "p_cone_", "alpha_", "lambda_", "gamma_",
                    "bound_", "diagnostics_"],
          "LFS": ["fstar_", "radius_", "f_relaxed_", "beta_", "eps_max_", "local_score_",
                  "n_rounding_fallbacks_", "lp_check_"],
          "LOGO": ["weights_", "n_iter_", "converged_"]}


@pytest.mark.parametrize("make", [
    lambda: (NMMKL(2), make_nmmkl_toy(n_samples=120, random_state=0)),
    lambda: (LFS(alpha=2, tau=2, n_beta=4, n_rounding=50, random_state=0, n_jobs=1), _lfs_data()),
    lambda: (LOGO(max_iter=3, theta=0.0), make_spiral(n_per_class=40, n_irrelevant=6, random_state=0)),
], ids=["NMMKL", "LFS", "LOGO"])
def test_estimators_read_only_the_driver_result(make, monkeypatch):
    est, (X, y) = make()
    module = sys.modules[type(est).__module__]
    reference = est.fit(X, y)
    expected = {a: getattr(reference, a) for a in FITTED[type(est).__name__]}
    monkeypatch.setattr(module, "FixedPointDriver", _ForgetfulDriver)
    fitted = make()[0].fit(X, y)
    for attr, value in expected.items():
        assert _same(getattr(fitted, attr), value), attr


@pytest.fixture
def lookups(monkeypatch):
    """Counts name lookups (``resolve_solver`` calls) by name, wherever fsopt imported it."""
    calls = collections.Counter()
    real = solvers.resolve_solver

    def counting(name, *args, **kwargs):
        calls[name] += 1
        return real(name, *args, **kwargs)

    for module in list(sys.modules.values()):
        if (module.__name__ or "").startswith("fsopt") and getattr(module, "resolve_solver", None) is real:
            monkeypatch.setattr(module, "resolve_solver", counting)
    return calls


@pytest.mark.parametrize("make, names", [
    (lambda: (LOGO(solver="LBFGSB", fallback=("CLARABEL",), check_against="GRADIENT", max_iter=3,
                   theta=0.0), make_spiral(n_per_class=30, n_irrelevant=4, random_state=1)),
     {"LBFGSB", "CLARABEL", "GRADIENT"}),
    (lambda: (NMMKL(2, solver="CLARABEL", fallback=("ECOS",), lp_solver="HIGHS"),
              make_nmmkl_toy(n_samples=120, random_state=1)), {"CLARABEL", "ECOS", "HIGHS"}),
    (lambda: (NMMKL(2, solver="MKLFAST", lp_solver="HIGHS"), _wide_toy()),
     {"MKLFAST", "CLARABEL", "HIGHS"}),  # CLARABEL: MKLFAST's inner solver, for every round
    (lambda: (LFS(alpha=2, tau=2, n_beta=3, n_rounding=20, solver="HIGHSPY", eps_solver="TOPK",
                  check_solver="HIGHS", random_state=0, n_jobs=1), _lfs_data()),
     {"HIGHSPY", "TOPK", "HIGHS"}),
], ids=["LOGO", "NMMKL", "NMMKL-MKLFAST", "LFS"])
def test_one_resolution_per_named_solver_per_fit(make, names, lookups):
    est, (X, y) = make()
    est.fit(X, y)
    n_solves = sum(len(it.records) for it in est.history_)
    assert n_solves >= 2  # more solves than lookups: solves do not look names up
    assert dict(lookups) == dict.fromkeys(names, 1)


def test_solve_takes_a_resolved_solver_without_lookup(lookups):
    sp = _garrote(seed=2)
    clarabel = solvers.resolve_solver("CLARABEL", sp, {"max_iter": 200})
    lookups.clear()
    record = sp.solve(clarabel, tol=1e-9)  # options given at the solve override the resolved ones
    assert record.certified and record.solver == "CLARABEL" and not lookups
    assert record.options["tol_gap_abs"] == 1e-9 and record.options["max_iter"] == 200
    assert sp.solve("CLARABEL").certified and lookups["CLARABEL"] == 1  # names still work
    with pytest.raises(ValueError, match="cannot solve"):
        sp.solve(solvers.resolve_solver("HIGHS"))


def test_solver_options_reach_the_backend_under_one_name():
    X, y = make_nmmkl_toy(n_samples=120, random_state=0)
    est = NMMKL(2, solver_options={"tol": 1e-9}, lp_options={"tol": 1e-8}).fit(X, y)
    qcqp, lp = est.records_
    assert qcqp.options["tol_gap_rel"] == 1e-9 and lp.solver == "MKLLP" and lp.options["tol"] == 1e-8
    lp = NMMKL(2, lp_solver="HIGHS", lp_options={"tol": 1e-8}).fit(X, y).records_[1]
    assert lp.options["primal_feasibility_tolerance"] == 1e-8


def _documented_tol():
    """{backend: (default tol, meaning)} from the table in docs/solvers.md."""
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|$", DOCS.read_text(), re.M)
    return {name: (default.strip(), meaning.strip()) for name, default, meaning in rows}


def test_tol_has_one_documented_meaning_per_backend():
    documented = _documented_tol()
    builtin = {n: b for n, b in solvers.backends().items() if type(b).__module__.startswith("fsopt.")}
    assert set(documented) == set(builtin)
    for name, backend in builtin.items():
        assert backend.tol_meaning, name
        assert documented[name] == (f"{backend.default_tol:g}" if backend.default_tol else "exact",
                                    backend.tol_meaning), name


def _mkl_dual():
    X, y = make_nmmkl_toy(n_samples=120, random_state=0)
    return MKLDual(X, np.where(y == np.unique(y)[1], 1.0, -1.0), 2)


def _epsilon_constraint():
    """LP (9) of LFS with random costs a, b ≥ 0 and ε at half of ε_max."""
    rng = np.random.default_rng(4)
    lp = EpsilonConstraint(12, 3)
    lp.set_data(rng.uniform(0, 1, 12), rng.uniform(0, 1, 12))
    lp.set_epsilon(0.5 * epsilon_max_closed_form(lp.b, 3))
    return lp


@pytest.mark.parametrize("name, make, key", [
    ("HIGHS", _epsilon_constraint, "f"), ("HIGHSPY", _epsilon_constraint, "f"),
    ("CLARABEL", _mkl_dual, "alpha"), ("ECOS", _mkl_dual, "alpha"), ("SCS", _mkl_dual, "alpha"),
    ("MKLFAST", _mkl_dual, "alpha"), ("GRADIENT", lambda: _garrote(3), "w"), ("LBFGSB", lambda: _garrote(3), "w"),
])
def test_default_tol_is_the_tol_in_effect(name, make, key):
    """A solve without ``tol`` is the same solve as one at ``tol = default_tol`` (fresh
    subproblems: no warm start from the first solve)."""
    default = solvers.backends()[name].default_tol
    a, b = make().solve(name), make().solve(name, tol=default)  # a refinement tightens either alike
    assert a.iterations == b.iterations and np.array_equal(a.solution[key], b.solution[key])
