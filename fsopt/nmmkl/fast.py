"""Native backend "MKLFAST" for the MKL dual (8): a working set over features (constraint generation).

By (14), (8) is max_α 2αᵀe − ταᵀα − S_m(τ(α)) over {αᵀy = 0, 0 ≤ α ≤ C}, with τ_i(α) = (z_iᵀα)²
(eq. 9) and S_m the sum of the m largest entries.  Only the features ranked near the top enter S_m;
the others have γ_i = 0 and p_i = 0 (Corollary 2).  So (8) restricted to a working set W of
features, a QCQP with |W| cones instead of d, has the same solution as the full (8) as soon as

    max_{i ∉ W} τ_i(α_W) ≤ τ_(m)(α_W)   (the m-th largest over W),                    (*)

because then S_m over all features equals S_m over W at α_W, so the value of (14) at α_W equals the
optimum of the restricted problem, which bounds the full optimum from above; and the restricted
relaxed p (zero outside W) is feasible for the primal (7).  Each round solves the restricted (8)
with an interior point method (Clarabel through :class:`~fsopt.nmmkl.qcqp.MKLDual`, |W| cones),
evaluates τ(α) for all d features in O(Nd), and adds the features violating (*) (at most
``grow`` of the best-ranked ones; default max(2m, 20, N/2): at N = 100, d = 20,000 the final W
holds about 300 features, reached in 7 rounds instead of 14 with steps of 20, and the rounds'
fixed cost, one model build and interior point solve each, dominates).  W starts from the
m + ``grow`` largest τ_i at a balanced feasible α (the class-mean-difference scores) and only
grows, so the loop is finite.

The solution returned is (α_W, λ = τ_(m) over all features, γ_i = (τ_i − λ)⁺, p =
:func:`~fsopt.nmmkl.qcqp.best_p` on W, zero outside): the full problem's certificate (duality gap of (7)–(8) in NumPy,
:meth:`MKLDual.certificate`) is then computed exactly as for the conic path.  The gap is limited by
the accuracy of α (measured ≈ 1e-7 relative at inner tolerance 1e-12), hence one re-solve of the
final restricted problem at 1e-12 when the first certificate exceeds ``gap_tol``.
"""
from __future__ import annotations

import numpy as np

from ..core import status as st
from ..core.exceptions import SolverFailed
from ..core.solvers import NativeBackend, as_resolved
from .qcqp import MKLDual, scale_rows


class WorkingSetMKL(NativeBackend):
    name = "MKLFAST"
    package = "clarabel"
    status_map = {st.OPTIMAL: st.OPTIMAL, st.OPTIMAL_INACCURATE: st.OPTIMAL_INACCURATE}
    description = ("nmmkl_qcqp (8): feature working set (constraint generation on the sum of the m "
                   "largest tau_i), restricted QCQP by Clarabel; same NumPy duality-gap certificate")
    default_tol = 1e-10
    tol_meaning = ("tol of the inner solves of the restricted (8) (option inner, default CLARABEL: duality "
                   "gap and feasibility); the working set stops when (*) holds exactly")

    def supports(self, subproblem):
        return subproblem.name == MKLDual.name

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, grow=None, gap_tol=1e-6,
              inner="CLARABEL"):
        """Working-set rounds at inner tolerance ``tol`` (default ``default_tol``) until (*) holds (or
        ``max_iter`` rounds); then, if the certificate residual exceeds ``gap_tol``, the final
        restricted problem once more at tolerance 1e-12.  Status "optimal" when (*) holds and the
        full certificate residual is ≤ ``gap_tol``.  ``inner``: a name or ResolvedSolver, resolved
        once per call.  A restricted solve ``inner`` cannot certify raises its SolverFailed, which
        becomes this solve's failed record (naming ``inner`` and what it ended with)."""
        tol = self.default_tol if tol is None else tol
        inner = as_resolved(inner, subproblem)
        Z, y, m = subproblem.Z, subproblem.y, subproblem.m
        d = Z.shape[1]
        grow = max(2 * m, 20, Z.shape[0] // 2) if grow is None else int(grow)
        W = _top(_initial_scores(Z, y, subproblem.C), min(d, m + grow))
        rounds = 0
        while True:
            rounds += 1
            alpha, p_W = _solve_restricted(subproblem, W, inner, tol)  # SolverFailed: this solve failed
            tau_i, _ = subproblem.scores(alpha)
            tau_m = np.sort(tau_i[W])[::-1][m - 1]
            outside = np.ones(d, dtype=bool)
            outside[W] = False
            violators = np.flatnonzero(outside & (tau_i > tau_m))
            if verbose:
                print(f"MKLFAST round {rounds}: |W| = {W.size}, {violators.size} violators of (*)")
            if violators.size == 0 or (max_iter is not None and rounds >= max_iter):
                break
            W = np.union1d(W, violators[_top(tau_i[violators], min(violators.size, grow))])
        solution = _full_solution(subproblem, alpha, p_W, W)
        residual = subproblem.certificate(solution)["residual"]
        if residual > gap_tol and violators.size == 0:
            try:
                retry = _full_solution(subproblem, *_solve_restricted(subproblem, W, inner, 1e-12), W)
            except SolverFailed:
                retry = solution
            retry_residual = subproblem.certificate(retry)["residual"]
            if verbose:
                print(f"MKLFAST: certificate {residual:.2e} at tol {tol:g}, {retry_residual:.2e} at 1e-12")
            if retry_residual < residual:
                solution, residual = retry, retry_residual
        ok = violators.size == 0 and residual <= gap_tol
        return solution, st.OPTIMAL if ok else st.OPTIMAL_INACCURATE, rounds


def _solve_restricted(subproblem, W, inner, tol):
    """α and the cone multipliers p of (8) restricted to the features W (certified, see
    :meth:`Subproblem.solve`: a rejected restricted solve is refined or raises)."""
    Z, y = subproblem.Z, subproblem.y
    restricted = MKLDual(scale_rows(y, Z[:, W]), y, subproblem.m, subproblem.C, subproblem.tau)
    rec = restricted.solve(inner, tol=tol)
    return rec.solution["alpha"], rec.solution["p_cone"]


def _full_solution(subproblem, alpha, p_W, W):
    return dict(subproblem.solution_from_alpha(alpha, p_W, W), working_set=W)


def _initial_scores(Z, y, C):
    """τ_i at the balanced feasible α_j = C·min(n₊, n₋)/n_{y_j} (αᵀy = 0): class-mean differences."""
    n_pos, n_neg = float((y > 0).sum()), float((y < 0).sum())
    alpha = C * min(n_pos, n_neg) / np.where(y > 0, n_pos, n_neg)
    s = Z.T @ alpha
    return s * s


def _top(values, k):
    """Indices of the k largest values, sorted by index."""
    if k >= values.size:
        return np.arange(values.size)
    return np.sort(np.argpartition(-values, k - 1)[:k])

