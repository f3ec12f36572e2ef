"""LFS subproblems (8), (9), their native backends and the rounding stage."""

import itertools

import numpy as np
import pytest

from fsopt.lfs import EpsilonConstraint, EpsilonMax, epsilon_max_closed_form
from fsopt.lfs.checks import lp_reference
from fsopt.lfs.rounding import candidate_patterns, round_solution

M, ALPHA = 300, 5


@pytest.fixture(scope="module")
def costs():
    rng = np.random.default_rng(3)
    return rng.gamma(2.0, size=M), rng.gamma(2.0, size=M)


@pytest.mark.parametrize("solver", ["HIGHS", "CLARABEL", "HIGHSPY", "TOPK"])
def test_epsilon_max_attains_closed_form(costs, solver):
    _, b = costs
    sub = EpsilonMax(M, ALPHA)
    sub.set_data(b=b)
    rec = sub.solve(solver)
    assert rec.certified
    assert rec.objective == pytest.approx(lp_reference(None, b, ALPHA)[0], rel=1e-8)  # SciPy HiGHS-IPM
    assert rec.certificate["primal_infeasibility"] <= 1e-8


def test_epsilon_max_certificate_rejects_suboptimal(costs):
    _, b = costs
    sub = EpsilonMax(M, ALPHA)
    sub.set_data(b=b)
    f = np.zeros(M)
    f[np.argsort(b)[:ALPHA]] = 1.0  # feasible but worst
    assert sub.certificate({"f": f})["residual"] > 1.0


def test_epsilon_constraint_sweep_agrees_across_solvers(costs):
    """(9) over the β grid: HIGHSPY (warm-started), HiGHS via cvxpy and Clarabel agree; every
    solution is feasible, certified by its duality gap, and a simplex vertex has ≤ 2 fractional
    entries."""
    a, b = costs
    eps_max = epsilon_max_closed_form(b, ALPHA)
    subs = {s: EpsilonConstraint(M, ALPHA) for s in ("HIGHSPY", "HIGHS", "CLARABEL")}
    for sub in subs.values():
        sub.set_data(a, b)
    for beta in np.linspace(0.05, 1.0, 20):
        objs = {}
        for solver, sub in subs.items():
            sub.set_epsilon(beta * eps_max)
            rec = sub.solve(solver)
            assert rec.certified, (solver, beta, rec.certificate)
            f = rec.solution["f"]
            assert b @ f >= beta * eps_max - 1e-7 and 1 - 1e-7 <= f.sum() <= ALPHA + 1e-7
            objs[solver] = rec.objective
            if solver != "CLARABEL":
                assert np.sum((f > 1e-9) & (f < 1 - 1e-9)) <= 2
        assert objs["HIGHSPY"] == pytest.approx(objs["HIGHS"], rel=1e-8, abs=1e-10)
        assert objs["CLARABEL"] == pytest.approx(objs["HIGHS"], rel=1e-5, abs=1e-7)


def test_epsilon_constraint_certificate_rejects_suboptimal(costs):
    a, b = costs
    sub = EpsilonConstraint(M, ALPHA)
    sub.set_data(a, b)
    sub.set_epsilon(0.5 * epsilon_max_closed_form(b, ALPHA))
    rec = sub.solve("HIGHSPY")
    worse = rec.solution["f"].copy()
    worse[np.argmax(a)] = 1.0  # feasible if the set had room, and strictly costlier
    worse = worse * min(1.0, ALPHA / worse.sum())
    cert = sub.certificate({**rec.solution, "f": worse})
    assert cert["residual"] > 1e-3


def test_beta_sweep_does_not_recompile(costs):
    a, b = costs
    sub = EpsilonConstraint(M, ALPHA)
    sub.set_data(a, b)
    sub.set_epsilon(1.0)
    sub.solve("HIGHS")
    problem = sub.problem
    sub.set_data(b, a)  # another representative point: same Problem, new Parameter values
    sub.set_epsilon(2.0)
    rec = sub.solve("HIGHS")
    assert sub.problem is problem and rec.certified


def test_exact_rounding_is_the_limit_of_sampling(costs):
    """Exact enumeration's best candidate never loses to sampling, and equals the sampled best
    whenever the samples contain it (R = 1000 draws of ≤ 2 entries with p ≥ 0.05)."""
    a, b = costs
    sub = EpsilonConstraint(M, ALPHA)
    sub.set_data(a, b)
    eps_max = epsilon_max_closed_form(b, ALPHA)
    rng = np.random.default_rng(0)
    n_frac = 0
    for beta in np.linspace(0.05, 1.0, 20):
        sub.set_epsilon(beta * eps_max)
        f = sub.solve("HIGHSPY").solution["f"]
        ex, ex_cost = round_solution(f, a, b, sub.eps, ALPHA, 1000, rng, "exact")
        sa, sa_cost = round_solution(f, a, b, sub.eps, ALPHA, 1000, rng, "sample")
        frac = (f > 1e-9) & (f < 1 - 1e-9)
        n_frac += frac.sum()
        assert ex_cost <= sa_cost + 1e-12
        if frac.sum() == 0 or min(f[frac].min(), 1 - f[frac].max()) > 0.05:
            np.testing.assert_array_equal(ex, sa)
        if ex is not None:
            assert ex.sum() <= ALPHA and ex.sum() >= 1 and b @ ex >= sub.eps * (1 - 1e-9)
    assert n_frac > 0  # the sweep did exercise fractional vertices


def test_rounding_brute_force_small():
    """On a tiny LP the exact rounding equals the best feasible completion of its support, found by
    enumerating the 4 completions with itertools (not with the rounding module)."""
    rng = np.random.default_rng(1)
    a, b = rng.random(6), rng.random(6)
    f = np.array([1.0, 0.3, 0.0, 0.7, 0.0, 1.0])
    eps = float(b[[0, 5]].sum()) + 0.5 * float(min(b[1], b[3]))  # some completions feasible, not all
    best, cost = round_solution(f, a, b, eps, 3, 1000, rng, "exact")
    brute = {}
    for bits in itertools.product([False, True], repeat=2):
        g = np.array([1, bits[0], 0, bits[1], 0, 1], dtype=bool)
        if 1 <= g.sum() <= 3 and b @ g >= eps:
            brute[bits] = a @ g
    assert 0 < len(brute) < 4
    assert cost == pytest.approx(min(brute.values()))
    assert tuple(best[[1, 3]]) == min(brute, key=brute.get)


def test_unknown_solver_lists_installed():
    with pytest.raises(ValueError, match="HIGHSPY"):
        EpsilonConstraint(5, 2).solve("NOSUCH")
    with pytest.raises(ValueError, match="cannot solve"):
        EpsilonConstraint(5, 2).solve("TOPK")


@pytest.mark.parametrize("k", [1, 2, 5, 12])
def test_sampled_patterns_are_the_distinct_draws(k):
    p = np.random.default_rng(k).random(k)
    got = candidate_patterns(p, 500, np.random.default_rng(1))
    draws = np.random.default_rng(1).random((500, k)) < p
    np.testing.assert_array_equal(got, np.unique(draws, axis=0))


def test_native_lp_backends_take_any_subproblem_that_declares_their_form():
    """HIGHSPY and TOPK read declared forms (lp_data, top_k_data), not the LFS names: a user's
    budgeted selection LP gets both, and their answers agree with SciPy's HiGHS."""
    from scipy.optimize import linprog

    from fsopt import Subproblem
    from fsopt.core.solvers import LP, backends

    class BudgetedPick(Subproblem):
        """max vᵀx over 0 ≤ x ≤ 1, 1 ≤ 1ᵀx ≤ k (v ≥ 0)."""
        name, cone = "budgeted_pick", LP  # no data_version: HIGHSPY builds a new model per solve

        def __init__(self, v, k):
            super().__init__()
            self.v, self.k = np.asarray(v, dtype=float), k

        def lp_data(self):
            return -self.v, np.ones((1, self.v.size)), [1.0], [float(self.k)]

        def top_k_data(self):
            return self.v, self.k

        def objective(self, solution):
            return float(self.v @ solution["x"])

        def certificate(self, solution):
            best = -linprog(-self.v, A_ub=np.ones((1, self.v.size)), b_ub=[self.k], A_eq=None,
                            bounds=[(0, 1)] * self.v.size, method="highs").fun
            return {"residual": abs(best - self.objective(solution))}

    problem = BudgetedPick(np.random.default_rng(0).random(12), 4)
    for name in ("HIGHSPY", "TOPK"):
        assert backends()[name].supports(problem), name
        record = problem.solve(name)
        assert record.certificate["residual"] < 1e-9, (name, record.certificate)
        assert set(np.flatnonzero(record.solution["x"] > 0.5)) == set(np.argsort(problem.v)[-4:])
    assert not backends()["TOPK"].supports(EpsilonConstraint(5, 2))  # declares lp_data only
