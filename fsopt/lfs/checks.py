"""LFS claims, checked numerically (``fsopt verify``): feasibility of (9) on [0, 1] and Fig. 10.

Data: the synthetic set of Fig. 3 (z-scored, with irrelevant features); the cost vectors a, b of
eq. (5) come from the weights (10) of the first pass (uniform) and of a second pass (the sets an
LFS fit selected), so the LPs are the ones Alg. 1 actually solves.
"""
from __future__ import annotations

import numpy as np

from ..datasets import standardize
from ..datasets.lfs_synthetic import make_lfs_synthetic
from ..exceptions import SolverFailed
from ..verify import Outcome, check
from .estimator import LFS
from .lp import EpsilonConstraint, EpsilonMax, epsilon_max_closed_form
from .method import beta_grid
from .rounding import INTEGRAL_TOL
from .weights import local_costs, neighbour_weights

FEAS_TOL = 1e-7  # absolute primal tolerance on the unit-mean-scaled data (HiGHS: 1e-7)


def _data(quick):
    X, y = make_lfs_synthetic(15, 15, 30, n_irrelevant=40, random_state=5) if quick else \
        make_lfs_synthetic(33, 33, 67, n_irrelevant=300, random_state=5)
    return standardize(X), y


def _cost_vectors(X, y, sets):
    """(a, b) of eq. (5) for every point, scaled to unit mean as in ``method.solve_point``."""
    A, B = local_costs(X, y, neighbour_weights(X, y, sets))
    return A / A.mean(axis=1, keepdims=True), B / B.mean(axis=1, keepdims=True)


def _beta_sweep(a, b, alpha, betas, solver="HIGHSPY"):
    """Solve (9) for every β (warm-started); yields (β, ε, record or the SolverFailed)."""
    ec = EpsilonConstraint(a.size, alpha)
    ec.set_data(a, b)
    eps_max = epsilon_max_closed_form(b, alpha)
    for beta in betas:
        ec.set_epsilon(beta * eps_max)
        try:
            yield beta, ec.eps, ec.solve(solver)
        except SolverFailed as exc:
            yield beta, ec.eps, exc


@check("LFS feasibility", "the epsilon-constraint LP (9) is feasible for every beta in [0, 1] (and not above 1)")
def feasibility(quick: bool) -> Outcome:
    """Feasible by construction: the maximizer of (8) satisfies bᵀf = ε_max ≥ β ε_max.

    Measured on every point of the synthetic set, first- and second-pass costs, β on a grid of
    step 0.01 (0.0025 in full mode) including 0 and 1: HiGHS reports optimal, the returned f is
    feasible in NumPy and certified by its duality gap, and the constructive witness (1 on the
    α largest b, from (8)) is feasible at β = 1.  Contrast: at β = 1.01 HiGHS must report
    infeasible, which the closed form of (8) confirms (max bᵀf = ε_max < 1.01 ε_max).
    """
    X, y = _data(quick)
    alpha = 2 if quick else 5
    betas = np.linspace(0.0, 1.0, 101 if quick else 401)
    first = np.zeros(X.shape, dtype=bool)
    second = LFS(alpha=alpha, tau=1, n_beta=10, solver="HIGHSPY", eps_solver="TOPK",
                 random_state=0).fit(X, y).fstar_
    n_lp = n_optimal = n_certified = 0
    worst_infeas = worst_gap = worst_witness = 0.0
    above_infeasible = 0
    for sets in (first, second):
        A, B = _cost_vectors(X, y, sets)
        for a, b in zip(A, B):
            for beta, eps, rec in _beta_sweep(a, b, alpha, [*betas, 1.01]):
                ok = not isinstance(rec, SolverFailed)
                if beta > 1:
                    above_infeasible += (not ok and "infeasible" in str(rec).lower()
                                         and epsilon_max_closed_form(b, alpha) < eps)
                    continue
                n_lp += 1
                n_optimal += ok
                if ok:
                    n_certified += rec.certified
                    worst_infeas = max(worst_infeas, rec.certificate["primal_infeasibility"])
                    worst_gap = max(worst_gap, abs(rec.certificate["duality_gap"]))
            em = EpsilonMax(b.size, alpha)
            em.set_data(b=b)
            witness = em.solve("TOPK").solution["f"]
            ec = EpsilonConstraint(b.size, alpha)
            ec.set_data(a, b)
            ec.set_epsilon(epsilon_max_closed_form(b, alpha))
            worst_witness = max(worst_witness, ec.certificate({"f": witness, "lam": 0.0, "nu": 0.0})
                                ["primal_infeasibility"])
    n_points = 2 * X.shape[0]
    passed = (n_optimal == n_certified == n_lp and worst_infeas <= FEAS_TOL
              and worst_witness <= FEAS_TOL and above_infeasible == n_points)
    return Outcome(passed, {"lps": n_lp, "optimal": n_optimal, "certified": n_certified,
                            "max_primal_infeasibility": worst_infeas, "max_duality_gap": worst_gap,
                            "witness_infeasibility_at_beta_1": worst_witness,
                            "infeasible_at_beta_1.01": f"{above_infeasible}/{n_points}"},
                   f"N={X.shape[0]}, M={X.shape[1]}, alpha={alpha}, {betas.size} betas in [0, 1], "
                   "first- and second-pass costs (eq. 5, weights eq. 10), HiGHS dual simplex")


def fractional_entries(f):
    """Number of entries of f strictly between 0 and 1 (beyond solver round-off)."""
    return int(np.sum((f > INTEGRAL_TOL) & (f < 1.0 - INTEGRAL_TOL)))


@check("LFS Fig. 10", "relaxed LP solutions are close to their binary roundings: ||f - f*||_1 <= 2 "
       "(a vertex of (9) has at most 2 fractional entries)")
def figure10(quick: bool) -> Outcome:
    """§4.5, Fig. 10: the histogram over representative points of ‖f_β − f*‖₁ / M.

    Measured on an LFS fit (α = 5, τ = 2): the normalized ℓ1 distance between each point's LP
    solution of (9) at its chosen β and its binary set f*, as a histogram; the bound follows from
    the vertex property (only the cardinality row and bᵀf ≥ ε besides the bounds, so a basic
    solution has ≤ 2 fractional entries, and rounding keeps the integral ones).  The vertex
    property itself is counted on every (9) of a full β sweep (HiGHS simplex, 20 betas).
    """
    X, y = _data(quick)
    alpha = 5
    est = LFS(alpha=alpha, tau=2, solver="HIGHSPY", eps_solver="TOPK", random_state=0).fit(X, y)
    M = X.shape[1]
    dist = np.abs(est.f_relaxed_ - est.fstar_).sum(axis=1)
    edges = np.array([0.0, 1e-9, 0.5, 1.0, 1.5, 2.0 + 1e-9])
    hist = np.histogram(dist, bins=edges)[0] / dist.size
    A, B = _cost_vectors(X, y, est.fstar_)
    n_frac = [fractional_entries(rec.solution["f"])
              for a, b in zip(A, B) for _, _, rec in _beta_sweep(a, b, alpha, beta_grid(est.n_beta))]
    chosen_frac = max(fractional_entries(f) for f in est.f_relaxed_)
    passed = dist.max() <= 2.0 + 1e-9 and max(n_frac) <= 2 and chosen_frac <= 2
    return Outcome(passed, {"points": dist.size, "M": M,
                            "hist_l1_bins": "[0, (0,.5], (.5,1], (1,1.5], (1.5,2]]",
                            "hist_fraction": [float(h) for h in hist],
                            "max_l1_over_M": float(dist.max() / M), "mean_l1_over_M": float(dist.mean() / M),
                            "max_fractional_in_sweep": max(n_frac), "sweep_lps": len(n_frac),
                            "max_fractional_at_chosen_beta": chosen_frac},
                   f"synthetic N={X.shape[0]}, M={M}, alpha={alpha}, tau=2 (paper: Prostate, alpha=5)")
