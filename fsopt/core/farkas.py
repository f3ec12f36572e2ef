"""NumPy checks of a solver's claim that an LP has no optimal solution.

An LP in inequality form, min cᵀx s.t. Gx ≤ h (equalities as two rows, infinite bounds dropped),
is

- **infeasible** iff a Farkas ray z exists: z ≥ 0, Gᵀz = 0, hᵀz < 0 (for a feasible x,
  0 ≤ zᵀ(h − Gx) = hᵀz < 0 would follow);
- **unbounded** iff it is feasible and a primal ray d exists: Gd ≤ 0, cᵀd < 0.

The ray is found by SciPy's ``linprog`` on the alternative system (with the ray normalized by
hᵀz = −1, resp. cᵀd = −1) and then checked here in NumPy, so a wrong ray never confirms a claim;
on a feasible LP no Farkas ray exists and an "infeasible" claim is refuted (residual ∞).  With
hᵀz = −1, the residual max(‖Gᵀz‖_∞, max(−z)) ≤ tol proves that no x with ‖x‖₁ < 1/tol is
feasible: an exact proof for a box-bounded LP of fewer than 1/tol variables (LFS's (8), (9)).
"""
from __future__ import annotations

import numpy as np

from . import status as st

INFEASIBLE_CLAIMS = frozenset({st.INFEASIBLE, st.INFEASIBLE_INACCURATE})
UNBOUNDED_CLAIMS = frozenset({st.UNBOUNDED, st.UNBOUNDED_INACCURATE})


def inequality_form(cost, rows, row_lower, row_upper, lower, upper):
    """(c, G, h) of min costᵀx s.t. row_lower ≤ rows·x ≤ row_upper, lower ≤ x ≤ upper; G sparse."""
    import scipy.sparse as sparse

    rows = sparse.csr_matrix(np.atleast_2d(rows) if not sparse.issparse(rows) else rows, dtype=float)
    blocks, rhs = [], []
    for matrix, lo, hi in ((rows, row_lower, row_upper), (sparse.identity(rows.shape[1], format="csr"),
                                                          lower, upper)):
        lo = np.broadcast_to(np.asarray(lo, dtype=float), matrix.shape[:1])
        hi = np.broadcast_to(np.asarray(hi, dtype=float), matrix.shape[:1])
        up, down = np.isfinite(hi), np.isfinite(lo)
        blocks += [matrix[up], -matrix[down]]
        rhs += [hi[up], -lo[down]]
    return np.asarray(cost, dtype=float), sparse.vstack(blocks, format="csr"), np.concatenate(rhs)


def farkas_residual(G, h, z) -> float:
    """Residual of a Farkas ray ``z`` scaled to hᵀz = −1 (∞ unless hᵀz < 0)."""
    z = np.asarray(z, dtype=float)
    scale = -float(h @ z)
    if not scale > 0:
        return np.inf
    z = z / scale
    return float(max(np.max(np.abs(G.T @ z), initial=0.0), np.max(-z, initial=0.0)))


def primal_ray_residual(c, G, d) -> float:
    """Residual of a primal ray ``d`` scaled to cᵀd = −1 (∞ unless cᵀd < 0)."""
    d = np.asarray(d, dtype=float)
    scale = -float(c @ d)
    if not scale > 0:
        return np.inf
    return float(np.max(G @ (d / scale), initial=0.0))


def feasibility_residual(G, h, x) -> float:
    """max(Gx − h)⁺ of a point ``x`` (∞ when there is none)."""
    return np.inf if x is None else float(np.max(G @ x - h, initial=0.0))


def _linprog(c, **constraints):
    from scipy.optimize import linprog

    result = linprog(c, method="highs", **constraints)
    return result.x if result.status == 0 else None


def find_farkas_ray(G, h):
    """A candidate Farkas ray: argmin hᵀz s.t. Gᵀz = 0, z ≥ 0, hᵀz ≥ −1 (None if the LP fails)."""
    m = len(h)
    return _linprog(h, A_eq=G.T, b_eq=np.zeros(G.shape[1]), A_ub=-h[None, :], b_ub=[1.0],
                    bounds=[(0, None)] * m)


def find_primal_ray(c, G):
    """A candidate primal ray: argmin cᵀd s.t. Gd ≤ 0, cᵀd ≥ −1 (None if the LP fails)."""
    import scipy.sparse as sparse

    return _linprog(c, A_ub=sparse.vstack([G, -c[None, :]]), b_ub=np.r_[np.zeros(G.shape[0]), 1.0],
                    bounds=[(None, None)] * G.shape[1])


def find_feasible_point(G, h):
    """A candidate point of Gx ≤ h (None if the LP fails)."""
    return _linprog(np.zeros(G.shape[1]), A_ub=G, b_ub=h, bounds=[(None, None)] * G.shape[1])


def check_claim(claim, c, G, h, tol) -> dict:
    """The NumPy check of ``claim`` ("infeasible", "unbounded", their ``_inaccurate`` forms, or
    "infeasible_or_unbounded") on min cᵀx s.t. Gx ≤ h: ``residual`` (of the best ray, ∞ when
    none exists), ``bound`` (``tol``), ``confirmed`` (1.0 or 0.0)."""
    if claim not in st.NO_SOLUTION_CLAIMS:
        raise ValueError(f"claim must be one of {sorted(st.NO_SOLUTION_CLAIMS)}; got {claim!r}")
    infeasible = farkas_residual(G, h, z) if (z := find_farkas_ray(G, h)) is not None else np.inf
    out = {"farkas_residual": infeasible}
    residual = infeasible
    if claim not in INFEASIBLE_CLAIMS:
        ray = primal_ray_residual(c, G, d) if (d := find_primal_ray(c, G)) is not None else np.inf
        out["primal_ray_residual"] = ray
        if claim in UNBOUNDED_CLAIMS:  # a ray proves unboundedness only of a feasible LP
            out["feasibility_residual"] = feasibility_residual(G, h, find_feasible_point(G, h))
            residual = max(ray, out["feasibility_residual"])
        else:  # infeasible_or_unbounded: either proof
            residual = min(ray, infeasible)
    out.update(residual=residual, bound=float(tol), confirmed=float(residual <= tol))
    return out

