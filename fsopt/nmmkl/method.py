"""NMMKL as a one-pass method for the generic driver (Algorithm 1 of Xu et al. 2009).

update: solve the QCQP (8), partition the features by τ_i (eqs 9–12), recover p by the LP (15);
the iterate is the recovered relaxed p, the step's detail an :class:`NMMKLPass`.  round: A plus
the best of B (Theorem 5), returned with the pass as an :class:`NMMKLResult`.
X is divided by its typical spread (:mod:`fsopt.core.scaling`): τ, C and the scores τ_i are in those
units, and the selection does not depend on the units of X.  Constant features get τ_i = 0 and
are never selected (asking for more features than there are non-constant ones is an error).
The diagnostics check Corollary 2 and the KKT conditions of Theorem 1 in NumPy.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..core.driver import FixedPointMethod, Step
from ..core.scaling import constant_features, rescale
from ..core.solvers import as_resolved
from .qcqp import MKLDual
from .recovery import PrimalRecoveryLP
from .rounding import Partition, partition, select, theorem6_bound


@dataclass(frozen=True)
class NMMKLPass:
    """What one pass computed (``Step.detail``): the solution of (8) (α, λ, γ and the cone
    multipliers ``p_cone``), the scores τ_i (9), the A/B/C partition (10)–(12), and the solution
    of the recovery LP (15) (``lp``: p, ν, δ, the violation of (16), ...)."""

    alpha: np.ndarray
    lam: float
    gamma: np.ndarray
    p_cone: np.ndarray
    tau_i: np.ndarray
    partition: Partition
    lp: dict


@dataclass(frozen=True)
class NMMKLResult:
    """NMMKL's result through the driver (``DriverResult.rounding``): the pass, the rounded
    selection (``partition.support``: A plus the best of B, Theorem 5), the relaxed p of (15),
    Theorem 6's bound and the diagnostics (Corollary 2, Theorem 1's KKT residuals)."""

    solution: NMMKLPass
    partition: Partition
    p: np.ndarray
    bound: float
    diagnostics: dict

    @property
    def support(self) -> np.ndarray:
        return self.partition.support


class NMMKLMethod(FixedPointMethod[NMMKLResult]):
    """One pass of QCQP + LP recovery; the result is an :class:`NMMKLResult`.

    ``solver`` (and each of ``fallback``) and ``lp_solver`` are names or
    :class:`~fsopt.core.solvers.ResolvedSolver` objects; names are resolved here, once, with
    ``solver_options`` and ``lp_options`` (added to those of a ResolvedSolver).  The solvers of
    ``fallback`` are tried in turn when ``solver`` fails on the QCQP (8), and those of
    ``lp_fallback`` (default: ``fallback``) that solve LPs when ``lp_solver`` fails on the LP (15)
    (with ``solver_options``; an estimator passes its own LP chain there).  ``scale``: X's
    :func:`~fsopt.core.scaling.unit_scale` when the caller has it (None: computed here).  Each
    stage uses only certified answers: a NaN or failed solve of (8) never reaches (15).
    """

    def __init__(self, X, y, m, C=1.0, tau=1.0, solver="CLARABEL", lp_solver="HIGHS", fallback=(),
                 solver_options=None, lp_options=None, tie_tol=1e-6, alpha_tol=1e-6,
                 violation_weight=1e3, lp_fallback=None, scale=None):
        X, self.scale = rescale(X, scale)  # τ, C in units of the typical spread (``scale``: given)
        constant = constant_features(X)
        if m > np.count_nonzero(~constant):
            raise ValueError(f"n_features={m} but only {np.count_nonzero(~constant)} features are "
                             f"non-constant (constant: {np.flatnonzero(constant).tolist()[:10]}); "
                             "a constant feature carries no information and is never selected")
        if constant.any():  # K_i = c²11ᵀ adds nothing when αᵀy = 0: τ_i = 0 exactly
            X = X @ sp.diags((~constant).astype(float)) if sp.issparse(X) else np.where(constant, 0.0, X)
        self.qcqp = MKLDual(X, y, m, C, tau)
        self.lp = PrimalRecoveryLP(alpha_tol=alpha_tol, violation_weight=violation_weight)
        self.solver, *self.fallback = [as_resolved(name, self.qcqp, solver_options)  # before any work
                                       for name in (solver, *fallback)]
        self.lp_solver = as_resolved(lp_solver, self.lp, lp_options)
        lp_fallback = self.fallback if lp_fallback is None else [
            as_resolved(name, None, solver_options) for name in lp_fallback]
        self.lp_fallback = [solver for solver in lp_fallback if _solves(solver, self.lp)]
        self.tie_tol = tie_tol

    def initial_iterate(self):
        return np.zeros(self.qcqp.Z.shape[1])

    def statistics(self, iterate, active):
        return None  # (8) depends on the data only

    def update(self, stats, iterate, active):
        q = self.qcqp
        rec = q.solve(self.solver, fallback=self.fallback)
        alpha = rec.solution["alpha"]
        tau_i, s = q.scores(alpha)
        part = partition(tau_i, q.m, self.tie_tol)
        self.lp.set_state(q.Z, q.y, alpha, s, part.A, part.C, q.m, q.C, q.tau)
        lp_rec = self.lp.solve(self.lp_solver, fallback=self.lp_fallback)
        detail = NMMKLPass(alpha, rec.solution["lambda"], rec.solution["gamma"], rec.solution["p_cone"],
                           tau_i, part, lp_rec.solution)
        return Step(lp_rec.solution["p"], [rec, lp_rec], rec.objective, detail=detail)

    def round(self, iterate, active, detail: NMMKLPass) -> NMMKLResult:
        """Algorithm 1's rounding of the relaxed p (``iterate``), Theorem 6's bound, diagnostics."""
        part = select(detail.partition, iterate, self.qcqp.m)
        bound = theorem6_bound(self.qcqp.Z, iterate, np.flatnonzero(part.B), self.qcqp.tau)
        return NMMKLResult(detail, part, iterate.copy(), bound, diagnostics(self.qcqp, detail))


def _solves(solver, subproblem) -> bool:
    """Whether the resolved ``solver`` can solve ``subproblem`` (a fallback of (8) at (15))."""
    try:
        solver.for_subproblem(subproblem)
    except ValueError:
        return False
    return True


def diagnostics(qcqp: MKLDual, solution: NMMKLPass) -> dict:
    """Corollary 2 and Theorem 1's KKT conditions at (α, λ, γ, p), as residuals (scaled by max τ_i).

    corollary2_lambda: distance of λ from [τ_{1+k_max}, τ_m]; corollary2_p_A_C: max |p_i − 1| on A
    and |p_i| on C for the LP's p; kkt_stationarity: ‖ξ‖₁ left in (16) by the least-violation LP;
    kkt_complementarity: max of |ν∘α|, |δ∘(C − α)|, |γ∘(e − p)|, |p∘(λ + γ − τ)|;
    p_agreement: max |p_LP − p_cone| (the cone multipliers of (8) are the relaxed p too).
    """
    tau_i, lam, gamma, part = solution.tau_i, solution.lam, solution.gamma, solution.partition
    alpha, lp, C = solution.alpha, solution.lp, qcqp.C
    p = lp["p"]
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
            "p_sum_lp": float(p.sum()), "p_sum_cone": float(solution.p_cone.sum()),
            "p_agreement": float(np.abs(p - solution.p_cone).max()),
            "n_A": int(part.A.sum()), "n_B": int(part.B.sum()), "n_C": int(part.C.sum())}
