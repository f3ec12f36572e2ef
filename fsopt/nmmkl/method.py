"""NMMKL as a one-pass method for the generic driver (Algorithm 1 of Xu et al. 2009).

update: solve the QCQP (8), partition the features by τ_i (eqs 9–12), recover p by the LP (15);
the iterate is the recovered relaxed p.  round: A plus the best of B (Theorem 5).
X is divided by its typical spread (:mod:`fsopt.core.scaling`): τ, C and the scores τ_i are in those
units, and the selection does not depend on the units of X.  Constant features get τ_i = 0 and
are never selected (asking for more features than there are non-constant ones is an error).
The diagnostics check Corollary 2 and the KKT conditions of Theorem 1 in NumPy.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.driver import FixedPointMethod, Step
from ..core.scaling import constant_features, rescale
from ..core.solvers import resolve_solver
from .qcqp import MKLDual
from .recovery import PrimalRecoveryLP
from .rounding import partition, select, theorem6_bound


class NMMKLMethod(FixedPointMethod):
    """One pass of QCQP + LP recovery; ``state`` keeps α, λ, γ, τ_i, the partition and both p."""

    def __init__(self, X, y, m, C=1.0, tau=1.0, solver="CLARABEL", lp_solver="HIGHS", fallback=(),
                 solve_options=None, lp_options=None, tie_tol=1e-6, alpha_tol=1e-6,
                 violation_weight=1e3):
        X, self.scale = rescale(X)  # τ, C in units of the typical spread
        constant = constant_features(X)
        if m > np.count_nonzero(~constant):
            raise ValueError(f"n_features={m} but only {np.count_nonzero(~constant)} features are "
                             f"non-constant (constant: {np.flatnonzero(constant).tolist()[:10]}); "
                             "a constant feature carries no information and is never selected")
        if constant.any():  # K_i = c²11ᵀ adds nothing when αᵀy = 0: τ_i = 0 exactly
            X = X @ sp.diags((~constant).astype(float)) if sp.issparse(X) else np.where(constant, 0.0, X)
        self.qcqp = MKLDual(X, y, m, C, tau)
        self.lp = PrimalRecoveryLP(alpha_tol=alpha_tol, violation_weight=violation_weight)
        self.solver, self.lp_solver, self.fallback = solver, lp_solver, tuple(fallback)
        self.solve_options, self.lp_options = dict(solve_options or {}), dict(lp_options or {})
        for name in (solver, *self.fallback):  # names and options, before any work
            resolve_solver(name, self.qcqp, self.solve_options)
        resolve_solver(lp_solver, self.lp, self.lp_options)
        self.tie_tol = tie_tol
        self.state = {}

    def initial_iterate(self):
        return np.zeros(self.qcqp.Z.shape[1])

    def statistics(self, iterate, active):
        return None  # (8) depends on the data only

    def update(self, stats, iterate, active):
        q = self.qcqp
        rec = q.solve(self.solver, fallback=self.fallback, **self.solve_options)
        alpha = rec.solution["alpha"]
        tau_i, s = q.scores(alpha)
        part = partition(tau_i, q.m, self.tie_tol)
        self.lp.set_state(q.Z, q.y, alpha, s, part.A, part.C, q.m, q.C, q.tau)
        lp_rec = self.lp.solve(self.lp_solver, **self.lp_options)
        self.state = {"alpha": alpha, "lambda": rec.solution["lambda"], "gamma": rec.solution["gamma"],
                      "tau_i": tau_i, "partition": part, "p": lp_rec.solution["p"],
                      "p_cone": rec.solution["p_cone"], "lp": lp_rec.solution}
        return Step(lp_rec.solution["p"], [rec, lp_rec], rec.objective)

    def round(self, iterate, active):
        part = select(self.state["partition"], iterate, self.qcqp.m)
        self.state["bound"] = theorem6_bound(self.qcqp.Z, iterate, np.flatnonzero(part.B), self.qcqp.tau)
        self.state["diagnostics"] = diagnostics(self.qcqp, self.state)
        return part


def diagnostics(qcqp: MKLDual, state) -> dict:
    """Corollary 2 and Theorem 1's KKT conditions at (α, λ, γ, p), as residuals (scaled by max τ_i).

    corollary2_lambda: distance of λ from [τ_{1+k_max}, τ_m]; corollary2_p_A_C: max |p_i − 1| on A
    and |p_i| on C for the LP's p; kkt_stationarity: ‖ξ‖₁ left in (16) by the least-violation LP;
    kkt_complementarity: max of |ν∘α|, |δ∘(C − α)|, |γ∘(e − p)|, |p∘(λ + γ − τ)|;
    p_agreement: max |p_LP − p_cone| (the cone multipliers of (8) are the relaxed p too).
    """
    tau_i, lam, gamma, p, part = state["tau_i"], state["lambda"], state["gamma"], state["p"], state["partition"]
    alpha, lp, C = state["alpha"], state["lp"], qcqp.C
    m = qcqp.m
    ranked = np.sort(tau_i)[::-1]
    k_max = int(part.A.sum() + part.B.sum())
    below = ranked[k_max] if k_max < ranked.size else 0.0
    scale = max(1.0, float(ranked[0]))
    onA = np.abs(p[part.A] - 1.0).max(initial=0.0)
    onC = np.abs(p[part.C]).max(initial=0.0)
    comp = max(np.abs(lp["nu"] * alpha).max(), np.abs(lp["delta"] * (C - alpha)).max(),
               np.abs(gamma * (1.0 - p)).max(), np.abs(p * (lam + gamma - tau_i)).max())
    return {"corollary2_lambda": max(0.0, below - lam, lam - ranked[m - 1]) / scale,
            "corollary2_p_A_C": float(max(onA, onC)),
            "kkt_stationarity": lp["violation"] / scale,
            "kkt_complementarity": float(comp) / scale,
            "p_sum_lp": float(p.sum()), "p_sum_cone": float(state["p_cone"].sum()),
            "p_agreement": float(np.abs(p - state["p_cone"]).max()),
            "n_A": int(part.A.sum()), "n_B": int(part.B.sum()), "n_C": int(part.C.sum())}
