"""NMMKL's recovery LP (15) reduced by its structure (MKLLP) and the fast default against the
slow path (solver="CLARABEL", lp_solver="HIGHS"): same certified optimum, same support."""
import numpy as np
import pytest

from fsopt.core.exceptions import SolverFailed
from fsopt.datasets import load_dataset, standardize
from fsopt.nmmkl import NMMKL, MKLDual, PrimalRecoveryLP, partition
from fsopt.nmmkl import recovery_reduced
from fsopt.tools.problems import get_problem


def _recovery_lp(X, y, m=5, C=0.1, violation_weight=1e3):
    """LP (15) at a certified solution of (8), partitioned as NMMKL does."""
    dual = MKLDual(X, np.where(y == np.max(y), 1.0, -1.0), m, C)
    alpha = dual.solve("CLARABEL", tol=1e-10).solution["alpha"]
    tau_i, s = dual.scores(alpha)
    part = partition(tau_i, m)
    lp = PrimalRecoveryLP(violation_weight=violation_weight)
    lp.set_state(dual.Z, dual.y, alpha, s, part.A, part.C, m, dual.C, dual.tau)
    return lp, part


def _scale_data(d, seed):
    X, y = get_problem("nmmkl_scale").load(n_irrelevant=d - 3, random_state=seed)
    return standardize(X), y


def _colon_data(d, seed):
    X, y = load_dataset("colon")
    X = np.random.default_rng(seed).permutation(X.T)[:d].T  # a random d of the 2,000 genes
    return standardize(X), y


def test_products_without_the_matrix_equal_the_matrix_ones():
    lp, _ = _recovery_lp(*_scale_data(60, 0))
    rng = np.random.default_rng(1)
    x, u = rng.normal(size=lp.c.size), rng.normal(size=lp.b.size)
    np.testing.assert_allclose(lp.matvec(x), lp.A @ x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lp.rmatvec(u), lp.A.T @ u, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make, d, seed, weight", [(_scale_data, 80, 0, 1e3), (_scale_data, 300, 1, 1e3),
                                                  (_colon_data, 200, 2, 1e3), (_scale_data, 80, 0, 0.05)])
def test_reduced_lp_reaches_the_optimum_of_the_whole_lp(make, d, seed, weight):
    """weight 0.05: the violation ξ⁻ is cheaper than δ (w < 2C), so δ is never used."""
    lp, part = _recovery_lp(*make(d, seed), violation_weight=weight)
    fast, whole = lp.solve("MKLLP"), lp.solve("HIGHS", tol=1e-10)  # tight: HiGHS meets (16) to 4e-8 at 1e-7
    assert fast.solver == "MKLLP" and fast.certified and fast.stage == "solve"
    assert part.B.sum() >= 2  # a tie block: p_B is free, the reduced LP is a real LP
    full_cost = lambda rec: float(lp.c @ rec.solution["x"])  # noqa: E731  (penalty included)
    assert full_cost(fast) == pytest.approx(full_cost(whole), abs=1e-7 * max(1.0, full_cost(whole)))
    assert fast.solution["p"].sum() == pytest.approx(lp.m, abs=1e-9)
    assert np.all(fast.solution["p"][part.A] == 1.0) and np.all(fast.solution["p"][part.C] == 0.0)


def _planted(monkeypatch, change):
    """MKLLP's reduced LP or its answer altered by ``change(cost, A_eq, b_eq, bounds, expand)``."""
    real = PrimalRecoveryLP.reduced_lp
    monkeypatch.setattr(PrimalRecoveryLP, "reduced_lp", lambda self: change(*real(self)))


def test_a_perturbed_dual_fails_the_certificate(monkeypatch):
    lp, _ = _recovery_lp(*_scale_data(80, 0))

    def perturbed_dual(cost, A_eq, b_eq, bounds, expand):
        return cost, A_eq, b_eq, bounds, lambda q, u: expand(q, u + 1e-2 * np.max(np.abs(u)))
    _planted(monkeypatch, perturbed_dual)
    with pytest.raises(SolverFailed, match="MKLLP"):
        lp.solve("MKLLP", refine=False)
    assert lp.solve("MKLLP", fallback=["HIGHS"]).solver == "HIGHS"  # the general LP answers then


def test_a_dropped_constraint_fails_the_certificate(monkeypatch):
    lp, _ = _recovery_lp(*_scale_data(80, 0))

    def without_first_row(cost, A_eq, b_eq, bounds, expand):  # (16) of the first sample dropped
        return cost, A_eq[1:], b_eq[1:], bounds, lambda q, u: expand(q, np.append(0.0, u))
    _planted(monkeypatch, without_first_row)
    with pytest.raises(SolverFailed) as failure:
        lp.solve("MKLLP", refine=False)
    assert failure.value.attempts[-1].certificate["primal_infeasibility"] > 1e-3


def test_mkllp_takes_only_a_subproblem_declaring_the_reduced_form():
    backend = recovery_reduced.ReducedRecoveryLP()
    assert backend.supports(PrimalRecoveryLP()) and not backend.supports(MKLDual(np.eye(2), [1.0, -1.0], 1))


@pytest.mark.parametrize("make, d, m", [(_scale_data, 120, 5), (_scale_data, 1500, 10), (_colon_data, 300, 10),
                                        (_colon_data, 1200, 5)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_default_selects_what_the_slow_path_selects(make, d, m, seed):
    """Against the slow path, not expected features: the QCQP by Clarabel on all d cones and the
    LP (15) by HiGHS on all d + 4N + 1 columns."""
    X, y = make(d, seed)
    fast = NMMKL(m, C=0.1).fit(X, y)
    slow = NMMKL(m, C=0.1, solver="CLARABEL", lp_solver="HIGHS").fit(X, y)
    assert [r.solver for r in fast.records_] == ["MKLFAST" if d >= 1000 else "CLARABEL", "MKLLP"]
    assert all(r.certified for r in fast.records_ + slow.records_)
    np.testing.assert_array_equal(fast.support_, slow.support_)


def test_auto_puts_mklfast_first_from_the_crossover_on():
    from fsopt.nmmkl.estimator import MKLFAST_FROM

    X, y = _scale_data(MKLFAST_FROM, 0)
    assert NMMKL(5, C=0.1).fit(X, y).solvers_[0] == "MKLFAST"
    assert NMMKL(5, C=0.1).fit(X[:, :MKLFAST_FROM - 1], y).solvers_[0] == "CLARABEL"

