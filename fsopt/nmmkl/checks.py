"""``fsopt verify`` checks of NMMKL's claims (Xu et al. 2009, §2), measured on random problems.

NMMKL Cor. 2   λ ∈ [τ_{1+k_max}, τ_m] and p_i = 1 on A, 0 on C (eqs 10–13) at the solution of (8).
NMMKL Cor. 3   m = d: (8) is the SVM dual (3); same value and α as LIBSVM (no cvxpy there).
NMMKL Thm 5    the m largest τ_i (Algorithm 1) solve (17): LP optimum (HiGHS through SciPy, bounds
               decided from the solver's λ, γ) equals the value of Algorithm 1's p.
NMMKL Thm 6    ω(p_alg)/ω(p̃*) ≤ 1/(1 − σ_max(M^{-1/2}BM^{-1/2})), p̃* by exhaustive search of (4).

The table builders (:func:`corollary3_table`, :func:`theorem6_table`) are shared with
benchmarks/nmmkl_checks.py, which runs them on more and larger problems.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..verify import Outcome, check
from .estimator import NMMKL
from .svm import exhaustive_search, svm_dual

RESIDUAL_TOL = 1e-6      # Corollary 2 residuals (relative to max τ_i) and Thm 5 value agreement
AGREEMENT_TOL = 1e-6     # Corollary 3: relative value difference to LIBSVM (tol 1e-10 both sides)


def random_problem(seed, N, d):
    """X (N×d) standard normal, y = sign of a sparse random linear model plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    w = rng.standard_normal(d) * (rng.random(d) < 0.5)
    y = np.where(X @ w + 0.5 * rng.standard_normal(N) > 0, 1, -1)
    return X, y


def corollary3_table(n, N=80, d=10, seed0=100) -> pd.DataFrame:
    """m = d on n random problems (C ∈ {0.1, 1, 10}, τ ∈ {0.1, 1}): value and α of (8) vs (3)."""
    rows = []
    for k in range(n):
        X, y = random_problem(seed0 + k, N, d)
        C, tau = [0.1, 1.0, 10.0][k % 3], [0.1, 1.0][k % 2]
        est = NMMKL(d, C=C, tau=tau, solver_options={"tol": 1e-10}).fit(X, y)
        omega, alpha = svm_dual(X, y, C, tau)
        value = est.records_[0].objective
        rows.append({"seed": seed0 + k, "C": C, "tau": tau, "value_qcqp": value, "omega_libsvm": omega,
                     "rel_value_diff": abs(value - omega) / abs(omega),
                     "alpha_max_diff_over_C": float(np.abs(est.alpha_ - alpha).max()) / C,
                     "all_selected": bool(est.support_.all())})
    return pd.DataFrame(rows)


def theorem6_table(ds=(8, 10, 12), per_d=6, N=40) -> pd.DataFrame:
    """Theorem 6 (and the diagnostics of Corollary 2 / Theorem 1) against exhaustive search of (4).

    For each d, ``per_d`` problems with m cycling through {2, d/2, d − 2}, C = τ = 1.  Also the
    ratio when ties in B are broken by index only (the recovered p ignored).
    """
    rows = []
    for d in ds:
        for k in range(per_d):
            seed = 1000 * d + k
            X, y = random_problem(seed, N, d)
            m = [2, d // 2, d - 2][k % 3]
            est = NMMKL(m, C=1.0, tau=1.0).fit(X, y)
            best, subset, values = exhaustive_search(X, y, m)
            by_index = np.flatnonzero(est.partition_ == "A").tolist()
            by_index += np.flatnonzero(est.partition_ == "B")[: m - len(by_index)].tolist()
            rows.append({"d": d, "m": m, "seed": seed, "n_B": est.diagnostics_["n_B"],
                         "ratio": values[tuple(np.flatnonzero(est.support_))] / best,
                         "ratio_ties_by_index": values[tuple(sorted(by_index))] / best,
                         "bound": est.bound_, "optimal_found": tuple(np.flatnonzero(est.support_)) == subset,
                         **{k2: v for k2, v in est.diagnostics_.items() if not k2.startswith("n_")}})
    return pd.DataFrame(rows)


def _fits(quick):
    """(X, y, fitted NMMKL) on random problems of several shapes, m from 1 to d − 1."""
    cases = [(0, 40, 8, 1), (1, 60, 10, 3), (2, 50, 12, 6)] + ([] if quick else
             [(3, 80, 15, 7), (4, 100, 20, 19), (5, 120, 30, 10)])
    out = []
    for seed, N, d, m in cases:
        X, y = random_problem(500 + seed, N, d)
        out.append((X, y, NMMKL(m, C=0.5, tau=1.0).fit(X, y)))
    return out


@check("NMMKL Cor. 2", "λ lies in [τ_{1+k_max}, τ_m] and the relaxed p is 1 on A, 0 on C (eqs 10-13)")
def corollary2(quick: bool) -> Outcome:
    worst = dict.fromkeys(("corollary2_lambda", "corollary2_p_A_C", "kkt_complementarity"), 0.0)
    ranked_ok = True
    fits = _fits(quick)
    for _, _, est in fits:
        for key in worst:
            worst[key] = max(worst[key], float(est.diagnostics_[key]))
        A = est.partition_ == "A"
        ranked_ok &= bool(np.all(est.scores_[A][:, None] > est.scores_[~A][None, :]))
    passed = ranked_ok and all(v <= RESIDUAL_TOL for v in worst.values())
    return Outcome(passed, {**{f"max_{k}": v for k, v in worst.items()}, "A_ranks_above_rest": ranked_ok},
                   f"{len(fits)} random problems (CLARABEL + HiGHS), residuals relative to max τ_i, "
                   f"tolerance {RESIDUAL_TOL:g}")


@check("NMMKL Cor. 3", "with m = d, (8) is the SVM dual (3): same value and α as LIBSVM")
def corollary3(quick: bool) -> Outcome:
    df = corollary3_table(3 if quick else 10)
    value, alpha = float(df.rel_value_diff.max()), float(df.alpha_max_diff_over_C.max())
    passed = value <= AGREEMENT_TOL and alpha <= 1e-4 and bool(df.all_selected.all())
    return Outcome(passed, {"max_rel_value_diff": value, "max_alpha_diff_over_C": alpha},
                   f"{len(df)} random problems N=80 d=10, C in {{0.1, 1, 10}}, tau in {{0.1, 1}}; "
                   f"both solvers at tol 1e-10")


def theorem5_gap(est, tol=1e-6):
    """Solve (17) as an LP and compare its optimum with the value of Algorithm 1's selection.

    With α, λ, γ fixed, δ = 0 and ν = 0 are optimal (δ is penalised and uncoupled, ν is free), so
    (17) is min Σ_i p_i τ_i + ταᵀα s.t. eᵀp = m, 0 ≤ p ≤ 1, p_i = 1 where γ_i > 0 and p_i = 0 where
    λ + γ_i > τ_i (complementarity decided at ``tol``·max τ_i from the QCQP's own λ, γ).
    Returns (relative difference of the two values, Algorithm 1's p feasible for those bounds).
    """
    from scipy.optimize import linprog

    tau_i = est.scores_
    scale = max(1.0, float(tau_i.max()))
    one = est.gamma_ > tol * scale
    zero = est.lambda_ + est.gamma_ - tau_i > tol * scale
    bounds = np.column_stack([np.where(one, 1.0, 0.0), np.where(zero, 0.0, 1.0)])
    res = linprog(tau_i, A_eq=np.ones((1, tau_i.size)), b_eq=[est.n_features], bounds=bounds,
                  method="highs")
    if res.status != 0:
        return float("inf"), False
    const = est.tau * float(est.alpha_ @ est.alpha_)
    alg = float(tau_i[est.support_].sum()) + const
    lp = float(res.fun) + const
    p_alg = est.support_.astype(float)
    feasible = bool(np.all(p_alg >= bounds[:, 0]) and np.all(p_alg <= bounds[:, 1]))
    return abs(alg - lp) / max(1.0, abs(lp)), feasible


@check("NMMKL Thm 5", "the m largest τ_i (Algorithm 1) solve (17): same value as the LP optimum")
def theorem5(quick: bool) -> Outcome:
    gaps, feasible = [], True
    fits = _fits(quick)
    for _, _, est in fits:
        gap, ok = theorem5_gap(est)
        gaps.append(gap)
        feasible &= ok
    worst = float(max(gaps))
    return Outcome(worst <= RESIDUAL_TOL and feasible,
                   {"max_rel_value_diff": worst, "p_alg_feasible_for_17": feasible},
                   f"{len(fits)} random problems; (17) by HiGHS (scipy.optimize.linprog)")


@check("NMMKL Thm 6", "ω(p_alg)/ω(p̃*) ≤ 1/(1 − σ_max(M^-1/2 B M^-1/2)), p̃* by exhaustive search")
def theorem6(quick: bool) -> Outcome:
    df = theorem6_table(ds=(8,) if quick else (8, 10, 12), per_d=6,
                        N=30 if quick else 40)
    holds = int(((df.ratio >= 1 - 1e-8) & (df.ratio <= df.bound)).sum())
    return Outcome(holds == len(df),
                   {"bound_holds": f"{holds}/{len(df)}", "max_ratio": float(df.ratio.max()),
                    "min_bound": float(df.bound.min()), "median_bound": float(df.bound.median()),
                    "exact_optimum_found": f"{int(df.optimal_found.sum())}/{len(df)}"},
                   f"d in {sorted(df.d.unique().tolist())}, m in {{2, d/2, d-2}}, C = tau = 1; "
                   f"ω by LIBSVM over all C(d, m) subsets")
