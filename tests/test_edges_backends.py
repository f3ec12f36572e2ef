"""A backend's failure is a failed solve (issue 41): whatever a registered or built-in backend
raises, and any malformed output (no tuple, a missing or misshapen entry, a non-numeric or
non-finite value, an unknown status, a garbage iteration count, a ``supports`` that raises), gives
a failed record naming the backend; the fallback chain is tried and its certified answer returned
with a BackendFailureWarning naming the broken backend; without a fallback, SolverFailed names it.
Every method (LOGO, NMMKL's QCQP and LP, LFS's two LPs) is fitted through the estimators."""
import re
import warnings

import numpy as np
import pytest

from fsopt import (LFS, LOGO, NMMKL, BackendFailureWarning, GarroteLogistic, SolverFailed, SolverWarning,
                   Subproblem)
from fsopt.core import status as st
from fsopt.core.solvers import NativeBackend, backends
from fsopt.datasets import standardize
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
from fsopt.datasets.spiral import make_spiral


def _zeros(sub):
    return {name: np.zeros(shape) for name, shape in sub.solution_shapes().items()}


def _replaced(sub, value):
    """The declared solution with its first entry replaced by ``value(shape)``."""
    name, shape = next(iter(sub.solution_shapes().items()))
    return dict(_zeros(sub), **{name: value(shape)})


def _raise(sub):
    raise RuntimeError("planted failure")


# mode -> (what solve() does with the subproblem, what the failed record's message says)
MODES = {
    "raises": (_raise, "solve() raised RuntimeError: planted failure"),
    "returns_none": (lambda sub: None, "solve() returned None, not a tuple"),
    "returns_dict_only": (lambda sub: _zeros(sub), "not a tuple (solution, status, iterations)"),
    "short_tuple": (lambda sub: (_zeros(sub), "optimal"), "not a tuple (solution, status, iterations)"),
    "omits_entry": (lambda sub: ({k: v for k, v in list(_zeros(sub).items())[1:]}, "optimal", 1),
                    "a solution without '"),
    "wrong_shape": (lambda sub: (_replaced(sub, lambda s: np.zeros(tuple(n + 1 for n in s) or (2,))),
                                 "optimal", 1), "of shape"),
    "non_numeric": (lambda sub: (_replaced(sub, lambda s: np.full(s, "x")), "optimal", 1), "of dtype <U1"),
    "complex": (lambda sub: (_replaced(sub, lambda s: np.zeros(s) + 1j), "optimal", 1), "of dtype complex"),
    "nan": (lambda sub: (_replaced(sub, lambda s: np.full(s, np.nan)), "optimal", 1), "non-finite values"),
    "inf": (lambda sub: (_replaced(sub, lambda s: np.full(s, np.inf)), "optimal", 1), "non-finite values"),
    "unknown_status": (lambda sub: (_zeros(sub), "great", 1), "the status 'great', which is not one of"),
    "status_not_text": (lambda sub: (_zeros(sub), 0, 1), "the status 0, which is not one of"),
    # fsopt's own verdicts are not a solver's word (a study took them as the harness's)
    "says_skipped": (lambda sub: (_zeros(sub), "skipped", 1), "the status 'skipped', which is not one of"),
    "says_timeout": (lambda sub: (_zeros(sub), "timeout", 1), "the status 'timeout', which is not one of"),
    "says_rejected": (lambda sub: (_zeros(sub), "rejected_certificate", 1),
                      "the status 'rejected_certificate', which is not one of"),
    "solution_not_dict": (lambda sub: (list(_zeros(sub).values()), "optimal", 1), "not a dict"),
    "iterations_text": (lambda sub: (_zeros(sub), "optimal", "many"), "iteration count 'many'"),
    "iterations_negative": (lambda sub: (_zeros(sub), "optimal", -3), "iteration count -3"),
    "supports_raises": (None, "supports() raised RuntimeError: planted supports failure"),
    "translate_raises": (None, "translate() raised KeyError: 'planted'"),
}


class Broken(NativeBackend):
    """A registered backend with one planted fault (``mode``), for the subproblems ``targets``."""

    default_tol = None  # nothing to re-solve at a tighter tolerance

    def __init__(self, mode, targets):
        self.mode, self.targets = mode, frozenset(targets)
        self.name = f"BROKEN_{mode.upper()}"

    def supports(self, subproblem):
        if self.mode == "supports_raises":
            raise RuntimeError("planted supports failure")
        return subproblem.name in self.targets

    def translate(self, tol=None, max_iter=None, verbose=False, **extra):
        if self.mode == "translate_raises":
            raise KeyError("planted")
        return super().translate(tol=tol, max_iter=max_iter, verbose=verbose, **extra)

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        return MODES[self.mode][0](subproblem)


class Delegates(Broken):
    """The control: the same harness returning a real solver's solution (nothing is wrong)."""

    def __init__(self, real, targets):
        super().__init__("delegates", targets)
        self.real = real

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        return subproblem.solve(self.real).solution, "optimal", 1


# --- the five stages, each fitted through its estimator ---------------------------------------------
def _logo_data():
    return make_spiral(20, 3, random_state=0)


def _nmmkl_data():
    X, y = make_nmmkl_toy(n_samples=60, random_state=0)
    return standardize(X), y


def _lfs_data():
    return make_lfs_synthetic(5, 5, 6, n_irrelevant=2, random_state=0)


LFS_SMALL = dict(alpha=2, tau=1, n_beta=2, n_rounding=20, n_jobs=1, random_state=0)

# stage -> (subproblem name, data, estimator(broken name, fallback), reference estimator, fitted arrays)
STAGES = {
    "logo": ("garrote_logistic", _logo_data,
             lambda name, fb: LOGO(sigma=5.0, lam=1.0, solver=name, fallback=fb),
             lambda: LOGO(sigma=5.0, lam=1.0, solver="LBFGSB"), ("LBFGSB",), ("weights_",)),
    "nmmkl_qcqp": ("nmmkl_qcqp", _nmmkl_data,
                   lambda name, fb: NMMKL(n_features=1, C=0.03, solver=name, fallback=fb),
                   lambda: NMMKL(n_features=1, C=0.03, solver="CLARABEL"), ("CLARABEL",),
                   ("support_", "p_", "alpha_")),
    "nmmkl_lp": ("nmmkl_lp_recovery", _nmmkl_data,
                 lambda name, fb: NMMKL(n_features=1, C=0.03, lp_solver=name, fallback=fb),
                 lambda: NMMKL(n_features=1, C=0.03, lp_solver="CLARABEL"), ("CLARABEL",),
                 ("support_", "p_")),
    "lfs_9": ("lfs_epsilon_constraint", _lfs_data,
              lambda name, fb: LFS(solver=name, fallback=fb, **LFS_SMALL),
              lambda: LFS(solver="HIGHS", **LFS_SMALL), ("HIGHS",), ("fstar_", "f_relaxed_", "radius_")),
    "lfs_8": ("lfs_epsilon_max", _lfs_data,
              lambda name, fb: LFS(eps_solver=name, fallback=fb, **LFS_SMALL),
              lambda: LFS(eps_solver="HIGHS", **LFS_SMALL), ("HIGHS",), ("fstar_", "f_relaxed_", "eps_max_")),
}
_REFERENCES = {}


def reference(stage):
    """The stage's estimator fitted with the fallback solver alone (fitted once)."""
    if stage not in _REFERENCES:
        _, data, _, make_reference, _, _ = STAGES[stage]
        _REFERENCES[stage] = make_reference().fit(*data())
    return _REFERENCES[stage]


@pytest.fixture
def register(backend_registry):
    """Register a backend for this test only."""
    def add(backend):
        return backend_registry.register(backend.name, backend).name
    return add


def fit_recording(estimator, data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(*data())
    return estimator, caught


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stage", STAGES)
def test_broken_backend_falls_back_to_a_certified_answer_and_warns(stage, mode, register):
    target, data, make, _, fallback, fitted = STAGES[stage]
    name = register(Broken(mode, [target]))
    est, caught = fit_recording(make(name, fallback), data)
    ref = reference(stage)
    for attribute in fitted:
        np.testing.assert_allclose(getattr(est, attribute), getattr(ref, attribute), rtol=0, atol=1e-12,
                                   err_msg=f"{attribute} differs from the fallback's own fit")
    assert est.certificate_.answers["fallback"] >= 1
    records = [r for h in est.history_ for r in h.records]
    assert all(r.certified for r in records)
    named = [str(w.message) for w in caught if issubclass(w.category, BackendFailureWarning)]
    assert named and all(name in m and MODES[mode][1] in m for m in named), named


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stage", STAGES)
def test_broken_backend_without_fallback_raises_solver_failed_naming_it(stage, mode, register):
    target, data, make, _, _, _ = STAGES[stage]
    name = register(Broken(mode, [target]))
    with pytest.raises(SolverFailed, match=re.escape(name)) as info:
        make(name, ()).fit(*data())
    assert MODES[mode][1] in str(info.value)
    failed = info.value.attempts
    assert failed and all(a.solver == name and a.backend_failed for a in failed)
    assert info.value.status in (st.SOLVER_ERROR, st.REJECTED_CERTIFICATE)


@pytest.mark.parametrize("stage", STAGES)
def test_the_harness_backend_without_a_fault_answers_itself(stage, register):
    """Control: the same harness, returning a real solver's solution, is certified as its own
    answer without any warning (the failures above are the planted faults, not the harness)."""
    target, data, make, _, fallback, fitted = STAGES[stage]
    name = register(Delegates(fallback[0], [target]))
    est, caught = fit_recording(make(name, ()), data)
    assert not [w for w in caught if issubclass(w.category, (BackendFailureWarning, SolverWarning))]
    assert est.certificate_.answers["fallback"] == 0
    ref = reference(stage)
    for attribute in fitted:
        np.testing.assert_allclose(getattr(est, attribute), getattr(ref, attribute), rtol=0, atol=1e-12)


# --- cvxpy-driven backends ---------------------------------------------------------------------------
class ClarabelWithBadSetting(type(backends()["CLARABEL"])):
    """CLARABEL through cvxpy with a setting of the wrong type: cvxpy raises TypeError (no SolverError)."""

    def translate(self, tol=None, max_iter=None, verbose=False, **extra):
        return dict(super().translate(tol=tol, max_iter=max_iter, verbose=verbose, **extra), max_iter="ten")


# stage -> (its estimator with CLARABEL and a fallback, the same with the fallback only, data, compared)
CVXPY_CASES = {
    "logo": (lambda: LOGO(sigma=5.0, lam=1.0, solver="CLARABEL", fallback=("LBFGSB",)),
             lambda: LOGO(sigma=5.0, lam=1.0, solver="LBFGSB"), _logo_data, "weights_"),
    "nmmkl_qcqp": (lambda: NMMKL(n_features=1, C=0.03, solver="CLARABEL", fallback=("ECOS",)),
                   lambda: NMMKL(n_features=1, C=0.03, solver="ECOS"), _nmmkl_data, "p_"),
    "lfs_9": (lambda: LFS(solver="CLARABEL", fallback=("HIGHS",), **LFS_SMALL),
              lambda: LFS(solver="HIGHS", **LFS_SMALL), _lfs_data, "f_relaxed_"),
}


@pytest.mark.parametrize("stage", CVXPY_CASES)
def test_cvxpy_backend_raising_a_non_solver_error_falls_back(stage, register):
    make, make_reference, data, attribute = CVXPY_CASES[stage]
    register(ClarabelWithBadSetting())
    est, caught = fit_recording(make(), data)
    np.testing.assert_allclose(getattr(est, attribute), getattr(make_reference().fit(*data()), attribute),
                               rtol=0, atol=1e-12)
    named = [str(w.message) for w in caught if issubclass(w.category, BackendFailureWarning)]
    assert named and all("backend CLARABEL: the cvxpy solve raised TypeError" in m for m in named)
    with pytest.raises(SolverFailed, match=r"CLARABEL ended with status 'solver_error' \(backend CLARABEL: "
                                           r"the cvxpy solve raised TypeError"):
        make().set_params(fallback=()).fit(*data())


# --- the subproblem's own contract -------------------------------------------------------------------
Z = np.array([[1.0, -0.5], [0.8, 0.2], [0.3, 0.9]])


def test_fallback_after_a_broken_backend_is_a_pytest_warns_warning(register):
    name = register(Broken("raises", ["garrote_logistic"]))
    with pytest.warns(BackendFailureWarning, match=f"{name}: solver_error .*planted failure.*"
                                                   f"answered by LBFGSB, certified"):
        record = GarroteLogistic(lam=1.0, Z=Z).solve(name, fallback=["LBFGSB"])
    assert record.certified and record.solver == "LBFGSB" and record.answered_by == "fallback"
    failed = record.attempts[0]
    assert (failed.solver, failed.status, failed.solution) == (name, st.SOLVER_ERROR, {})
    assert failed.message == f"backend {name}: solve() raised RuntimeError: planted failure"
    assert not issubclass(BackendFailureWarning, SolverWarning)  # an error filter on those lets it through


def test_solver_failed_names_every_backend_tried_and_what_each_did(register):
    modes = ("raises", "omits_entry", "unknown_status")
    names = [register(Broken(mode, ["garrote_logistic"])) for mode in modes]
    with pytest.raises(SolverFailed) as info:
        GarroteLogistic(lam=1.0, Z=Z).solve(names[0], fallback=names[1:])
    message = str(info.value)
    for name, mode in zip(names, modes):
        assert f"{name}: solver_error (backend {name}: " in message and MODES[mode][1] in message
    assert [a.solver for a in info.value.attempts] == names


def test_unknown_status_is_not_trusted_and_kept_apart(register):
    name = register(Broken("unknown_status", ["garrote_logistic"]))
    with pytest.raises(SolverFailed) as info:
        GarroteLogistic(lam=1.0, Z=Z).solve(name)
    (failed,) = info.value.attempts
    assert failed.status == st.SOLVER_ERROR and failed.solver_status == "'great'"


def test_a_long_error_message_is_cut(register):
    class Verbose(Broken):
        def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
            raise RuntimeError("x" * 5000)
    name = register(Verbose("verbose", ["garrote_logistic"]))
    with pytest.raises(SolverFailed) as info:
        GarroteLogistic(lam=1.0, Z=Z).solve(name)
    assert len(info.value.attempts[0].message) < 300 and info.value.attempts[0].message.endswith("...")


@pytest.mark.parametrize("error", [MemoryError, KeyboardInterrupt, SolverWarning])
def test_what_must_propagate_is_not_turned_into_a_failed_solve(error, register):
    """Out of memory, an interrupt, and a warning the caller's filter made an error reach the caller."""
    class Raises(Broken):
        def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
            raise error("planted")
    name = register(Raises("propagates", ["garrote_logistic"]))
    with pytest.raises(error, match="planted"):
        GarroteLogistic(lam=1.0, Z=Z).solve(name, fallback=["LBFGSB"])


def test_a_non_finite_qcqp_answer_is_never_polished_nor_reaches_the_lp(register, monkeypatch):
    """The NaN "optimal" of the QCQP (8) is rejected at once: neither the polish (whose LP fails
    on NaN) nor the recovery LP (15) sees it."""
    from fsopt.nmmkl import qcqp

    def refuse_nan(subproblem, alpha, *args):
        raise AssertionError("the polish was given a non-finite alpha")
    monkeypatch.setattr(qcqp, "best_p", refuse_nan)
    name = register(Broken("nan", ["nmmkl_qcqp"]))
    with pytest.raises(SolverFailed, match=rf"nmmkl_qcqp.*{name} ended with status 'rejected_certificate'"):
        NMMKL(n_features=1, C=0.03, solver=name).fit(*_nmmkl_data())


def test_mklfast_failing_inside_names_its_inner_solver(register):
    """MKLFAST's restricted QCQP solved by a broken inner backend: MKLFAST's solve fails, naming
    the inner solver's failure; the fallback answers."""
    from fsopt.nmmkl.fast import WorkingSetMKL

    inner = register(Broken("raises", ["nmmkl_qcqp"]))

    class FastOnBrokenInner(WorkingSetMKL):
        name = "MKLFAST_ON_BROKEN"

        def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
            return super().solve(subproblem, tol, max_iter, verbose, inner=inner)
    name = register(FastOnBrokenInner())
    est, caught = fit_recording(NMMKL(n_features=1, C=0.03, solver=name, fallback=("CLARABEL",)), _nmmkl_data)
    np.testing.assert_array_equal(est.support_, reference("nmmkl_qcqp").support_)
    named = [str(w.message) for w in caught if issubclass(w.category, BackendFailureWarning)]
    assert any(f"{name}: solver_error (backend {name}: solve() raised SolverFailed: nmmkl_qcqp" in m
               and f"solver {inner} ended with status 'solver_error'" in m for m in named), named


def test_nmmkl_lp_stage_tries_the_fallbacks_that_solve_lps(register):
    """MKLFAST solves only (8): it is a fallback of the QCQP, skipped at the recovery LP (15)."""
    name = register(Broken("raises", ["nmmkl_lp_recovery"]))
    est, caught = fit_recording(NMMKL(n_features=1, C=0.03, lp_solver=name, fallback=("MKLFAST", "CLARABEL")),
                                _nmmkl_data)
    np.testing.assert_array_equal(est.p_, reference("nmmkl_lp").p_)
    lp = est.history_[0].records[1]
    assert lp.solver == "CLARABEL" and [a.solver for a in lp.attempts] == [name]


class Projection(Subproblem):
    """A subproblem declaring no parts nor solution shapes (the docstring's example)."""

    name, cone = "projection_example", "SOC"

    def __init__(self, a):
        super().__init__()
        self.a = np.asarray(a, dtype=float)

    def _build(self):
        import cvxpy as cp
        x = cp.Variable(self.a.size)
        return cp.Problem(cp.Minimize(cp.sum_squares(x - self.a)), [x >= 0]), {"x": x}

    def objective(self, solution):
        return float(np.sum((solution["x"] - self.a) ** 2))

    def certificate(self, solution):
        x = solution["x"]
        return {"residual": float(np.max(np.abs(np.minimum(x, 2 * (x - self.a)))))}


class MisnamedProjection(NativeBackend):
    """Returns the projection under the wrong name ("y" for "x")."""

    name = "MISNAMED_PROJECTION"

    def supports(self, subproblem):
        return subproblem.name == Projection.name

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        return {"y": np.maximum(subproblem.a, 0.0)}, "optimal", 1


def test_undeclared_subproblem_a_solution_its_certificate_cannot_read_is_a_failed_solve(register):
    name = register(MisnamedProjection())
    sub = Projection([1.0, -2.0])
    assert sub.solution_shapes() is None
    expected = rf"{name}: .*the certificate of its solution raised KeyError"
    with pytest.warns(BackendFailureWarning, match=expected):
        record = sub.solve(name, fallback=["CLARABEL"])
    assert record.certified and record.solver == "CLARABEL"


def test_lfs_fallback_is_validated_before_any_work():
    X, y = _lfs_data()
    with pytest.raises(ValueError, match=r"LFS fallback\[0\]='TOPK': solver 'TOPK' cannot solve lfs_epsilon_c"):
        LFS(fallback=("TOPK",), **LFS_SMALL).fit(X, y)
    with pytest.raises(TypeError, match=r"LFS fallback\[0\]=3: solver must be a string"):
        LFS(fallback=(3,), **LFS_SMALL).fit(X, y)
    with pytest.raises(ValueError, match="fallback"):
        LFS(fallback="HIGHS", **LFS_SMALL).fit(X, y)


def test_the_fits_warning_gives_the_failures_cause_not_a_rejected_claim(register):
    """The fit's SolverWarning (most answers from a fallback) says what the first solver did: a
    failure here, where it used to say "said 'optimal' where the NumPy certificate did not hold"."""
    name = register(Broken("raises", ["garrote_logistic"]))
    with pytest.warns(SolverWarning, match=rf"not {name}'s own: .*\({name}'s first answers: \d+ failed "
                                           r"\(solver_error\)\)$"), \
            pytest.warns(BackendFailureWarning):
        LOGO(sigma=5.0, solver=name, fallback=("LBFGSB",)).fit(*_logo_data())
