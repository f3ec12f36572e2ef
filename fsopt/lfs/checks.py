"""LFS claims, checked numerically (``fsopt verify``), each against a value computed another way.

LFS TOPK (8)     ε_max of the backend under study (default TOPK, the closed form) equals the optimum
                 of (8) solved as an LP by SciPy's HiGHS interior point, and the dual value
                 min_u αu + Σ_m (b_m − u)⁺ evaluated at every breakpoint in NumPy.
LFS feasibility  (9) at every β ∈ [0, 1] of a grid: the returned f is feasible in NumPy and has the
                 optimal value of an independent LP (SciPy HiGHS interior point); above β = 1 (by
                 1e-6) both the backend and the reference report infeasibility: ε_max is exactly
                 the threshold, not an ε that makes (9) feasible by construction.
LFS Fig. 10      relaxed solutions of (9) are vertices (≤ 2 fractional entries), so ‖f − f*‖₁ ≤ 2.
LFS weights (10) the weights (10) and the costs (5) against loops over the definition.
LFS rounding     the exact rounding equals the best completion found by enumerating all 2^k of them.

Data: the synthetic set of Fig. 3 (z-scored, with irrelevant features); the cost vectors a, b of
eq. (5) come from the weights (10) of the first pass (uniform) and of a second pass (random sets
of size α), so the LPs have Alg. 1's structure.  Random instances (``--instances``): cluster sizes
n₊, n◇ ∈ [8, 20], n∘ ∈ [15, 40], irrelevant features ∈ [10, 60], α ∈ [1, 6], σ ∈ [0.5, 2].
"""
from __future__ import annotations

import itertools

import numpy as np

from ..datasets import standardize
from ..datasets.lfs_synthetic import make_lfs_synthetic
from ..core.exceptions import SolverFailed
from ..core.solvers import resolve_solver
from ..verify import Margins, check, draws, log_uniform, probe
from . import rounding, weights
from .estimator import LFS
from .lp import EpsilonConstraint, EpsilonMax

FEAS_TOL = 1e-7   # absolute primal tolerance on the unit-mean-scaled data (HiGHS: 1e-7)
VALUE_TOL = 1e-7  # relative agreement of two LP optima
ABOVE_ONE = 1e-6  # (9) at β = 1 + ABOVE_ONE must be infeasible

probe(EpsilonMax.name, lambda: EpsilonMax(3, 1))
probe(EpsilonConstraint.name, lambda: EpsilonConstraint(3, 1))


def _instance(g, quick):
    """(X, y, α, σ) from the ranges of the module docstring (canonical: the former fixed sets)."""
    if g is None:
        sizes, n_irr, alpha, sigma, seed = ((15, 15, 30), 40, 2, 1.0, 5) if quick else ((33, 33, 67), 300, 5, 1.0, 5)
    else:
        sizes = (int(g.integers(8, 21)), int(g.integers(8, 21)), int(g.integers(15, 41)))
        n_irr, alpha = int(g.integers(10, 61)), int(g.integers(1, 7))
        sigma, seed = log_uniform(g, 0.5, 2.0), int(g.integers(2**31))
    X, y = make_lfs_synthetic(*sizes, n_irrelevant=n_irr, random_state=seed)
    return standardize(X), y, alpha, sigma


def _cost_vectors(X, y, sets, sigma=1.0):
    """(a, b) of eq. (5) for every point, scaled to unit mean as in ``method.solve_point``."""
    A, B = weights.local_costs(X, y, weights.neighbour_weights(X, y, sets, sigma))
    return A / A.mean(axis=1, keepdims=True), B / B.mean(axis=1, keepdims=True)


def _passes(X, y, alpha, sigma, seed):
    """Cost vectors of the first pass (no sets) and of a second pass (random sets of size α)."""
    rng = np.random.default_rng(seed)
    second = np.zeros(X.shape, dtype=bool)
    for row in second:
        row[rng.choice(X.shape[1], size=alpha, replace=False)] = True
    return [_cost_vectors(X, y, sets, sigma) for sets in (np.zeros(X.shape, dtype=bool), second)]


def _solvers(solver):
    """(backend for (8), backend for (9)): ``solver`` where it can solve them, else the defaults."""
    if solver is None:
        return "TOPK", "HIGHSPY"
    backend, _ = resolve_solver(solver)
    return (solver if backend.can_solve(EpsilonMax(3, 1)) else "TOPK",
            solver if backend.can_solve(EpsilonConstraint(3, 1)) else "HIGHSPY")


def lp_reference(a, b, alpha, eps=None):
    """(8) (``a`` None: max bᵀf) or (9) by SciPy's HiGHS interior point: (value, f) or (None, None)."""
    from scipy.optimize import linprog

    M = b.size
    rows, rhs = [np.ones(M), -np.ones(M)], [float(alpha), -1.0]
    if a is None:
        cost = -b
    else:
        cost = a
        rows.append(-b)
        rhs.append(-float(eps))
    res = linprog(cost, A_ub=np.array(rows), b_ub=rhs, bounds=(0.0, 1.0), method="highs-ipm")
    if res.status != 0:
        return None, None
    return (-res.fun if a is None else res.fun), res.x


def epsilon_max_dual(b, alpha):
    """min_{u ≥ 0} αu + Σ_m (b_m − u)⁺, the LP dual of (8) (cardinality ≥ 1 inactive for b ≥ 0),
    at its breakpoints u ∈ {0} ∪ {b_m}."""
    u = np.concatenate([[0.0], b])
    return float(np.min(alpha * u + np.maximum(b[None, :] - u[:, None], 0.0).sum(axis=1)))


def box_card_violation(f, alpha):
    s = float(f.sum())
    return max(0.0, -float(f.min()), float(f.max()) - 1.0, 1.0 - s, s - alpha)


@check("LFS TOPK (8)", "epsilon_max of (8) equals the LP optimum (SciPy HiGHS-IPM) and its dual value",
       kinds=(EpsilonMax.name,),
       reference="SciPy HiGHS-IPM LP and the LP dual at its breakpoints")
def topk(quick, rng=None, solver=None):
    eps_solver, _ = _solvers(solver)
    margins, worst_lp, worst_dual, worst_infeas, n = Margins(), 0.0, 0.0, 0.0, 0
    for g in draws(rng, 1, seed=8):
        X, y, alpha, sigma = _instance(None if rng is None else g, quick)
        B = _passes(X, y, alpha, sigma, int(g.integers(2**31)))[1][1]
        ties = g.integers(0, 4, size=(5, X.shape[1])).astype(float)  # many ties, zeros included
        for b in [*B, *ties]:
            em = EpsilonMax(b.size, alpha)
            em.set_data(b=b)
            f = em.solve(eps_solver).solution["f"]
            value = float(b @ f)
            ref, _ = lp_reference(None, b, alpha)
            scale = max(1.0, abs(ref))
            worst_lp = max(worst_lp, abs(value - ref) / scale)
            worst_dual = max(worst_dual, abs(value - epsilon_max_dual(b, alpha)) / scale)
            worst_infeas = max(worst_infeas, box_card_violation(f, alpha))
            n += 1
    margins.at_most("rel_diff_to_lp", worst_lp, VALUE_TOL)
    margins.at_most("rel_diff_to_dual", worst_dual, VALUE_TOL)
    margins.at_most("primal_infeasibility", worst_infeas, FEAS_TOL)
    return margins.outcome({"lps": n, "max_rel_diff_to_lp": worst_lp, "max_rel_diff_to_dual": worst_dual,
                            "max_primal_infeasibility": worst_infeas},
                           f"{eps_solver} on N={X.shape[0]} second-pass b (M={X.shape[1]}, alpha={alpha}) "
                           f"and 5 integer b in {{0..3}} (ties)")


@check("LFS feasibility", "(9) is feasible with the optimal value for every beta in [0, 1] and infeasible "
       "just above 1", kinds=(EpsilonMax.name, EpsilonConstraint.name),
       reference="NumPy feasibility of f; SciPy HiGHS-IPM optimum; infeasible above beta = 1 by both")
def feasibility(quick, rng=None, solver=None):
    """The β sweep of (9) as Alg. 1 runs it (warm-started backend), every point, both passes."""
    eps_solver, lp_solver = _solvers(solver)
    margins = Margins()
    worst = {"primal_infeasibility": 0.0, "rel_value_diff_to_reference": 0.0}
    n_lp = n_ref = above_both = n_points = 0
    betas = np.linspace(0.0, 1.0, 11 if quick else 101)
    ref_betas = {0.0, 0.5, 1.0} if quick else set(np.round(np.linspace(0.0, 1.0, 11), 10))
    for g in draws(rng, 1, seed=9):
        X, y, alpha, sigma = _instance(None if rng is None else g, quick)
        for A, B in _passes(X, y, alpha, sigma, int(g.integers(2**31))):
            for a, b in zip(A, B):
                n_points += 1
                em = EpsilonMax(b.size, alpha)
                em.set_data(b=b)
                eps_max = em.solve(eps_solver).objective
                ec = EpsilonConstraint(b.size, alpha)
                ec.set_data(a, b)
                for beta in [*betas, 1.0 + ABOVE_ONE]:
                    ec.set_epsilon(beta * eps_max)
                    try:
                        f = ec.solve(lp_solver).solution["f"]
                    except SolverFailed:
                        f = None
                    if beta > 1:
                        ref, _ = lp_reference(a, b, alpha, ec.eps)
                        above_both += f is None and ref is None
                        continue
                    n_lp += 1
                    if f is None:
                        margins.require(f"solved at beta={beta:g}", False)
                        continue
                    infeas = max(box_card_violation(f, alpha), ec.eps - float(b @ f))
                    worst["primal_infeasibility"] = max(worst["primal_infeasibility"], infeas)
                    if round(float(beta), 10) in ref_betas:
                        ref, _ = lp_reference(a, b, alpha, ec.eps)
                        gap = np.inf if ref is None else abs(float(a @ f) - ref) / max(1.0, abs(ref))
                        worst["rel_value_diff_to_reference"] = max(worst["rel_value_diff_to_reference"], gap)
                        n_ref += 1
    margins.at_most("primal_infeasibility", worst["primal_infeasibility"], FEAS_TOL)
    margins.at_most("rel_value_diff_to_reference", worst["rel_value_diff_to_reference"], VALUE_TOL)
    margins.require("infeasible just above beta = 1 (backend and reference)", above_both == n_points)
    return margins.outcome({"lps": n_lp, "reference_lps": n_ref, **{f"max_{k}": v for k, v in worst.items()},
                            "infeasible_at_beta_1+1e-6": f"{above_both}/{n_points}"},
                           f"N={X.shape[0]}, M={X.shape[1]}, alpha={alpha}, sigma={sigma:.2g}; {betas.size} "
                           f"betas in [0, 1]; (8) by {eps_solver}, (9) by {lp_solver}; reference SciPy "
                           "HiGHS-IPM; infeasible above 1 = backend and reference both say so")


def fractional_entries(f):
    """Number of entries of f strictly between 0 and 1 (beyond solver round-off)."""
    return int(np.sum((f > rounding.INTEGRAL_TOL) & (f < 1.0 - rounding.INTEGRAL_TOL)))


@check("LFS Fig. 10", "relaxed LP solutions are close to their binary roundings: ||f - f*||_1 <= 2 "
       "(a vertex of (9) has at most 2 fractional entries)", kinds=(EpsilonConstraint.name,),
       reference="fractional entries counted on every (9) of a beta sweep")
def figure10(quick, rng=None, solver=None):
    """§4.5, Fig. 10: the histogram over representative points of ‖f_β − f*‖₁ / M.

    Measured on an LFS fit (α = 5, τ = 2): the normalized ℓ1 distance between each point's LP
    solution of (9) at its chosen β and its binary set f*; the bound follows from the vertex
    property (only the cardinality row and bᵀf ≥ ε besides the bounds, so a basic solution has
    ≤ 2 fractional entries, and rounding keeps the integral ones).  The vertex property itself is
    counted on every (9) of a β sweep.  Slack 0 on the fractional count means a vertex with
    exactly two fractional entries occurred: the bound is attained, as the paper's argument allows.
    """
    _, lp_solver = _solvers(solver)
    X, y, _, sigma = _instance(rng, quick)
    alpha = 5 if rng is None else int(rng.integers(2, 7))
    est = LFS(alpha=alpha, tau=2, sigma=sigma, n_beta=10 if quick else 20, solver=lp_solver,
              eps_solver="TOPK", random_state=0).fit(X, y)
    M = X.shape[1]
    dist = np.abs(est.f_relaxed_ - est.fstar_).sum(axis=1)
    edges = np.array([0.0, 1e-9, 0.5, 1.0, 1.5, 2.0 + 1e-9])
    hist = np.histogram(dist, bins=edges)[0] / dist.size
    A, B = _cost_vectors(X, y, est.fstar_, sigma)
    n_frac = []
    for a, b in zip(A, B):
        ec = EpsilonConstraint(M, alpha)
        ec.set_data(a, b)
        eps_max = float(np.sort(b)[-alpha:].sum())
        for beta in np.arange(1, est.n_beta + 1) / est.n_beta:
            ec.set_epsilon(beta * eps_max)
            n_frac.append(fractional_entries(ec.solve(lp_solver).solution["f"]))
    chosen_frac = max(fractional_entries(f) for f in est.f_relaxed_)
    margins = Margins()
    margins.at_most("l1_distance", float(dist.max()), 2.0 + 1e-9)
    margins.at_most("fractional_entries_in_sweep", max(n_frac), 2)
    margins.at_most("fractional_entries_at_chosen_beta", chosen_frac, 2)
    return margins.outcome({"points": dist.size, "M": M,
                            "hist_l1_bins": "[0, (0,.5], (.5,1], (1,1.5], (1.5,2]]",
                            "hist_fraction": [float(h) for h in hist],
                            "max_l1_over_M": float(dist.max() / M), "mean_l1_over_M": float(dist.mean() / M),
                            "max_fractional_in_sweep": max(n_frac), "sweep_lps": len(n_frac),
                            "max_fractional_at_chosen_beta": chosen_frac},
                           f"synthetic N={X.shape[0]}, M={M}, alpha={alpha}, tau=2, (9) by {lp_solver} "
                           f"(paper: Prostate, alpha=5)")


def weights_by_definition(X, y, sets, sigma):
    """Eq. (10) by loops: w_j⁽ⁱ⁾ = (1/N) Σ_k exp(−(d_ij|k − min_v d_iv|k)/σ), v over j's side of i."""
    N = X.shape[0]
    W = np.zeros((N, N))
    for i in range(N):
        for j in range(N):
            pool = [v for v in range(N) if v != i and (y[v] == y[i]) == (y[j] == y[i])]
            for k in range(N):
                dist = [float(np.sqrt(np.sum(((X[i] - X[v]) * sets[k]) ** 2))) for v in range(N)]
                W[i, j] += np.exp(-(dist[j] - min(dist[v] for v in pool)) / sigma) / N
    return W


@check("LFS weights (10)", "the weights (10) and the cost vectors (5) equal their definitions (loops)",
       reference="loops over the definitions of (10) and (5)")
def weights_eq10(quick, rng=None):
    margins, worst_w, worst_c = Margins(), 0.0, 0.0
    for g in draws(rng, 3, seed=10):
        N, M = int(g.integers(5, 10)), int(g.integers(2, 6))
        X, y = g.standard_normal((N, M)), np.arange(N) % 2
        sets, sigma = g.random((N, M)) < 0.5, log_uniform(g, 0.3, 3.0)
        W = weights.neighbour_weights(X, y, sets, sigma)
        ref = weights_by_definition(X, y, sets, sigma)
        off = ~np.eye(N, dtype=bool)
        worst_w = max(worst_w, float(np.abs(W - ref)[off].max()))
        A, B = weights.local_costs(X, y, ref)
        for i in range(N):
            same = [j for j in range(N) if j != i and y[j] == y[i]]
            other = [j for j in range(N) if y[j] != y[i]]
            a = sum(ref[i, j] * (X[i] - X[j]) ** 2 for j in same)
            b = sum(ref[i, j] * (X[i] - X[j]) ** 2 for j in other)
            worst_c = max(worst_c, float(np.abs(A[i] - a).max()), float(np.abs(B[i] - b).max()))
    margins.at_most("weights_abs_diff", worst_w, 1e-10)
    margins.at_most("costs_abs_diff", worst_c, 1e-10)
    return margins.outcome({"max_weights_abs_diff": worst_w, "max_costs_abs_diff": worst_c},
                           "N in [5, 9], M in [2, 5], random sets, sigma in [0.3, 3]")


@check("LFS rounding", "the exact rounding of a relaxed (9) solution is the cheapest feasible completion "
       "(all 2^k enumerated)",
       reference="itertools.product over all 2^k completions; cost a'f recomputed from the pattern")
def rounding_exact(quick, rng=None):
    margins, worst, misreport, n_none = Margins(), 0.0, 0.0, 0
    for g in draws(rng, 20, seed=11):
        M, alpha = int(g.integers(4, 12)), int(g.integers(1, 5))
        a, b = g.random(M), g.random(M)
        f = (g.random(M) < 0.3).astype(float)
        frac = g.choice(M, size=int(g.integers(1, 4)), replace=False)
        f[frac] = g.uniform(0.05, 0.95, frac.size)
        eps = float(g.uniform(0.2, 0.9)) * float(np.sort(b)[-alpha:].sum())
        best, cost = rounding.round_solution(f, a, b, eps, alpha, 16, g, "exact")
        ones = f >= 1.0
        costs = []
        for bits in itertools.product([False, True], repeat=frac.size):
            cand = ones.copy()
            cand[frac] = bits
            if 1 <= cand.sum() <= alpha and b @ cand >= eps - rounding.FEASIBILITY_RTOL * max(abs(eps), 1.0):
                costs.append(float(a @ cand))
        if not costs:
            n_none += 1
            margins.require("no feasible rounding reported as None", best is None)
            continue
        margins.require("a feasible rounding is found", best is not None)
        if best is None:
            continue
        best = np.asarray(best, dtype=float)
        feasible = (np.all((best == 0) | (best == 1)) and np.all(best[ones] == 1) and 1 <= best.sum() <= alpha
                    and b @ best >= eps - rounding.FEASIBILITY_RTOL * max(abs(eps), 1.0))
        margins.require("the rounding is a feasible completion of f", bool(feasible))
        diff = abs(float(a @ best) - min(costs))  # the cost recomputed from the pattern, not the reported one
        worst, misreport = max(worst, diff), max(misreport, abs(cost - float(a @ best)))
        margins.at_most("cost_minus_enumerated_best", diff, 1e-12)
        margins.at_most("reported_cost_minus_a_f", abs(cost - float(a @ best)), 1e-12)
    return margins.outcome({"max_cost_diff": worst, "max_reported_cost_error": misreport,
                            "instances_without_feasible_rounding": n_none},
                           "M in [4, 11], alpha in [1, 4], 1-3 fractional entries, eps in [0.2, 0.9] eps_max; "
                           "cost = aᵀf of the returned pattern against all 2^k completions")
