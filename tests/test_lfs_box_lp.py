"""BOXLP, the exact dual method for box LPs with at most two rows (fsopt.lfs.box_lp): optimal
values against SciPy's HiGHS on random and degenerate instances, the vertex it returns, the
β sweep's reuse of earlier solves, the certificate catching a wrong answer, and LFS fits that
select the same sets as with HIGHSPY."""
import numpy as np
import pytest
from scipy.optimize import linprog

from fsopt.core import status as st
from fsopt.core.exceptions import SolverFailed
from fsopt.core.solvers import LP, ResolvedSolver, backends
from fsopt.core.subproblem import Subproblem
from fsopt.datasets import load_dataset, standardize
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.lfs import LFS, EpsilonConstraint, EpsilonMax, epsilon_max_closed_form
from fsopt.lfs.backends import BoxDual
from fsopt.lfs.box_lp import Infeasible, TwoRowDual, cardinality_row, solve_one_row, undominated

VALUE_RTOL = 1e-9


def highs_value(cost, rows, lo, hi):
    """(status, optimal value) of min costᵀx, 0 ≤ x ≤ 1, lo ≤ rows·x ≤ hi by SciPy's HiGHS."""
    A, b = [], []
    for row, low, high in zip(rows, lo, hi):
        if np.isfinite(high):
            A.append(row)
            b.append(high)
        if np.isfinite(low):
            A.append(-row)
            b.append(-low)
    res = linprog(cost, A_ub=np.array(A) if A else None, b_ub=np.array(b) if b else None,
                  bounds=(0, 1), method="highs")
    return res.status, res.fun


def fractional(x):
    return int(np.sum((x > 1e-12) & (x < 1 - 1e-12)))


def lfs_instance(rng, M, kind):
    """(a, b, α) of (9): random, ties in a, all-equal b, or few distinct values in both."""
    a, b = rng.random(M), 0.5 * rng.random(M) + rng.random(M)
    if kind == "ties_a":
        a = np.round(a * 3) / 3
    elif kind == "equal_b":
        b = np.ones(M)
    elif kind == "few_values":
        a, b = np.round(a * 2), np.round(b * 2)
    return a, b, int(rng.integers(1, M + 1)) if M < 40 else int(rng.integers(1, 31))


@pytest.mark.parametrize("kind", ["random", "ties_a", "equal_b", "few_values"])
def test_epsilon_constraint_matches_highs_over_the_beta_sweep(kind):
    """(9) on 30 instances per kind (M = 1 … 40, and M = 300 … 900 where the undominated items
    are used), the whole β sweep (β = 1 binds at ε_max, β = 1.05 is infeasible): the value of
    SciPy's HiGHS to 1e-9, the certificate holds, at most two fractional entries."""
    rng = np.random.default_rng(["random", "ties_a", "equal_b", "few_values"].index(kind))
    for trial in range(30):
        M = 1 if trial == 0 else int(rng.integers(300, 900)) if trial % 5 == 0 else int(rng.integers(2, 40))
        a, b, alpha = lfs_instance(rng, M, kind)
        ec = EpsilonConstraint(M, alpha)
        ec.set_data(a, b)
        eps_max = epsilon_max_closed_form(b, alpha)
        for beta in [0.05, 0.3, 0.55, 0.8, 0.95, 1.0, 1.05]:
            ec.set_epsilon(beta * eps_max)
            status, value = highs_value(*ec.lp_data())
            if beta > 1 and eps_max > 0:
                assert status == 2
                with pytest.raises(SolverFailed) as failed:
                    ec.solve("BOXLP")
                assert failed.value.attempts[-1].status == st.INFEASIBLE  # the claim, confirmed
                continue
            rec = ec.solve("BOXLP")
            assert rec.certified and rec.solver == "BOXLP"
            assert rec.objective == pytest.approx(value, rel=VALUE_RTOL, abs=VALUE_RTOL)
            assert fractional(rec.solution["f"]) <= 2


def test_general_two_row_box_lps_match_highs():
    """Rows of any sign, one- or two-sided bounds, integer data with many ties: the same
    feasibility verdict and optimal value as HiGHS, a feasible vertex, a zero duality gap."""
    rng = np.random.default_rng(7)
    for trial in range(600):
        M = int(rng.integers(1, 50))
        c, p, q = rng.normal(size=(3, M))
        if trial % 3 == 0:
            c, p, q = np.round(c), np.round(p), np.round(q)
        (lo1, hi1), (lo2, hi2) = np.sort(rng.normal(size=2) * 2), np.sort(rng.normal(size=2) * 2)
        lo1 = -np.inf if trial % 4 == 1 else lo1
        hi2 = np.inf if trial % 4 == 2 else hi2
        status, value = highs_value(c, [p, q], [lo1, lo2], [hi1, hi2])
        if status == 2:
            with pytest.raises(Infeasible):
                TwoRowDual(c, p, lo1, hi1, q).solve(lo2, hi2)
            continue
        x, y1, y2, converged = TwoRowDual(c, p, lo1, hi1, q).solve(lo2, hi2)
        assert converged and c @ x == pytest.approx(value, rel=VALUE_RTOL, abs=VALUE_RTOL)
        assert fractional(x) <= 2 and x.min() >= 0 and x.max() <= 1
        assert lo1 - 1e-9 <= p @ x <= hi1 + 1e-9 and lo2 - 1e-9 <= q @ x <= hi2 + 1e-9

        def sigma(y, low, high):
            return y * low if y > 0 else y * high if y < 0 else 0.0

        dual = sigma(y1, lo1, hi1) + sigma(y2, lo2, hi2) + np.minimum(c - y1 * p - y2 * q, 0).sum()
        assert c @ x - dual == pytest.approx(0.0, abs=1e-9 * max(1.0, abs(value)))


def test_one_row_and_cardinality_row_agree():
    """The O(n) cardinality solver and the sorting one give the same value and multiplier, on
    integer and half-integer bounds and tied costs; and (8) by BOXLP is its closed form."""
    rng = np.random.default_rng(3)
    for trial in range(800):
        n = int(rng.integers(1, 30))
        c = np.round(rng.normal(size=n) * 2) / 2 if trial % 2 else rng.normal(size=n)
        lo = max(0.0, float(rng.integers(0, n + 1)) - (0.5 if trial % 5 == 0 else 0.0))
        hi = max(lo, float(rng.integers(0, n + 3)) - (0.5 if trial % 7 == 0 else 0.0))
        x1, y1 = solve_one_row(c, np.ones(n), lo, hi)
        x2, y2 = cardinality_row(c, lo, hi)
        assert c @ x1 == pytest.approx(c @ x2, abs=1e-12) and y1 == y2
        assert highs_value(c, [np.ones(n)], [lo], [hi])[1] == pytest.approx(c @ x1, abs=1e-9)
    em = EpsilonMax(50, 7)
    em.set_data(b=np.round(rng.random(50) * 4))  # ties at the α-th value
    rec = em.solve("BOXLP")
    assert rec.certified and rec.objective == pytest.approx(epsilon_max_closed_form(em.b, 7), rel=1e-12)


def test_undominated_keeps_every_item_fewer_than_k_others_dominate():
    """Brute force on tied data: an item left out has at least k dominators."""
    rng = np.random.default_rng(5)
    for k in (1, 3, 8):
        c, q = np.round(rng.random((2, 700)) * 20)
        kept = set(undominated(c, q, k).tolist())
        weak = (c[:, None] <= c[None, :]) & (q[:, None] >= q[None, :])  # [j, m]: j dominates m
        ident = (c[:, None] == c[None, :]) & (q[:, None] == q[None, :])
        order = np.arange(c.size)
        dominators = (weak & ~ident).sum(axis=0) + (ident & (order[:, None] < order[None, :])).sum(axis=0)
        assert all(dominators[m] >= k for m in set(range(c.size)) - kept)
        assert len(kept) < c.size // 2  # and it leaves many out


def test_beta_sweep_in_any_order_gives_the_fresh_answers():
    """The lines kept from earlier solves (one model per data version) give, in shuffled order,
    the same values as a new model per β."""
    rng = np.random.default_rng(11)
    a, b, alpha = lfs_instance(rng, 600, "random")
    eps_max = epsilon_max_closed_form(b, alpha)
    kept = EpsilonConstraint(600, alpha)
    kept.set_data(a, b)
    for beta in rng.permutation(np.arange(1, 21) / 20):
        fresh = EpsilonConstraint(600, alpha)
        fresh.set_data(a, b)
        fresh.set_epsilon(beta * eps_max)
        kept.set_epsilon(beta * eps_max)
        assert kept.solve("BOXLP").objective == pytest.approx(fresh.solve("BOXLP").objective, rel=1e-12)
    assert kept._box_dual[0].evaluations < 20 * 3  # the sweep reused its lines


class _Planted(BoxDual):
    """BOXLP with a planted bug: ``change(subproblem, solution)`` alters its answer."""

    def __init__(self, change):
        self.change = change

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        solution, status, steps = super().solve(subproblem)
        return self.change(subproblem, solution), status, steps


def _wrong_breakpoint(subproblem, solution):
    """The vertex of the neighbouring piece of the dual: the previous line's set (bᵀf < ε)."""
    model = subproblem._box_dual[0]
    low = max((ln for ln in model._sides[1.0]["lines"] if ln[2] < subproblem.eps), key=lambda ln: ln[0])
    f = np.zeros(subproblem.n_features)
    f[model._sides[1.0]["items"]] = low[3]
    return {**solution, "f": f}


@pytest.mark.parametrize("change", [
    lambda sp, sol: {**sol, "f": sol["f"] + np.eye(sol["f"].size)[int(np.argmax(sol["f"]))] * -1e-3},
    lambda sp, sol: {**sol, "lam": sol["lam"] * 1.01},
    _wrong_breakpoint,
], ids=["perturbed_f", "wrong_multiplier", "wrong_breakpoint"])
def test_the_certificate_rejects_a_wrong_answer(change):
    """Each planted bug in BOXLP's answer to (9) fails the NumPy certificate (no fallback)."""
    a, b, alpha = lfs_instance(np.random.default_rng(2), 400, "random")
    ec = EpsilonConstraint(400, alpha)
    ec.set_data(a, b)
    ec.set_epsilon(0.6 * epsilon_max_closed_form(b, alpha))
    assert ec.solve("BOXLP").certified
    with pytest.raises(SolverFailed) as failed:
        ec.solve(ResolvedSolver("BOXLP_PLANTED", _Planted(change)))
    assert failed.value.attempts[0].status == st.REJECTED_CERTIFICATE


def test_boxlp_declares_what_it_solves():
    """Any subproblem declaring lp_data and at most two rows; not three rows, not undeclared."""
    box = backends()["BOXLP"]

    class TwoPicks(Subproblem):
        name, cone, lp_rows = "two_picks", LP, 2

        def lp_data(self):
            return np.array([3.0, -1.0, 2.0]), np.array([[1.0, 1.0, 1.0], [0.0, 2.0, 1.0]]), [2.0, 1.5], [2.0, 3.0]

        def objective(self, solution):
            return float(self.lp_data()[0] @ solution["x"])

        def certificate(self, solution):
            return {"residual": 0.0}

    class ThreeRows(TwoPicks):
        lp_rows = 3

    assert box.can_solve(TwoPicks()) and box.can_solve(EpsilonConstraint(3, 1))
    assert not box.can_solve(ThreeRows()) and not box.can_solve(Subproblem.__new__(Subproblem))
    x = box.solve(TwoPicks())[0]["x"]
    assert x @ np.array([3.0, -1.0, 2.0]) == pytest.approx(highs_value(*TwoPicks().lp_data())[1])


@pytest.mark.parametrize("data", ["synthetic", "colon"])
def test_lfs_default_selects_the_sets_of_highspy(data):
    """The default (BOXLP for (9), HIGHSPY the fallback) and solver="HIGHSPY" select the same
    sets, every LP certified by BOXLP itself."""
    if data == "synthetic":
        X, y = make_lfs_synthetic(15, 15, 30, n_irrelevant=40, random_state=0)
        params = dict(alpha=2)
    else:
        X, y = load_dataset("colon")
        X, y = standardize(X[:50]), y[:50]
        params = dict(alpha=5, n_beta=10, n_rounding=200)
    default = LFS(n_jobs=1, random_state=0, **params).fit(X, y)
    highs = LFS(solver="HIGHSPY", n_jobs=1, random_state=0, **params).fit(X, y)
    assert np.array_equal(default.fstar_, highs.fstar_)
    assert default.lp_check_["all_certified"]
    answered = {rec.solver for it in default.history_ for rec in it.records}
    assert answered == {"BOXLP", "TOPK"}
