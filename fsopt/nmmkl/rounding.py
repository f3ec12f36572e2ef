"""Rounding of NMMKL (Algorithm 1, Theorem 5) and the guarantee of Theorem 6.

Features ranked by τ_i (eq. 9) split into A (above the tie block of the m-th score), B (scores equal
to τ_{i_m} within ``tie_tol``·max τ) and C (below), eqs (10)–(12).  Theorem 5: any m features with
the largest τ_i solve (17), so the choice inside B is free; we take A plus the members of B with the
largest recovered relaxed p, then the lowest index.  Theorem 6 bounds ω(p_alg)/ω(p̃*).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .qcqp import columns


@dataclass
class Partition:
    """The A/B/C sets of eqs (10)–(12) as boolean masks, and the selected support."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    support: np.ndarray | None = None

    def labels(self) -> np.ndarray:
        """One letter per feature: "A", "B" or "C"."""
        return np.where(self.A, "A", np.where(self.B, "B", "C"))


def partition(tau_i, m, tie_tol=1e-6) -> Partition:
    """Eqs (10)–(12): A = ranks above the tie block of τ_{i_m}, B = the block, C = below."""
    tau_i = np.asarray(tau_i, dtype=float)
    tau_m = np.sort(tau_i)[::-1][m - 1]
    tol = tie_tol * max(float(tau_i.max()), np.finfo(float).tiny)
    B = np.abs(tau_i - tau_m) <= tol
    return Partition(A=(tau_i > tau_m) & ~B, B=B, C=(tau_i < tau_m) & ~B)


def select(part: Partition, p, m) -> Partition:
    """Algorithm 1 with Theorem 5's freedom: A plus the m − |A| members of B with largest p, then
    index.  Returns a new Partition with ``support`` set (``part`` is not changed)."""
    block = np.flatnonzero(part.B)
    order = block[np.lexsort((block, -np.asarray(p)[block]))]
    support = part.A.copy()
    support[order[: m - int(part.A.sum())]] = True
    return replace(part, support=support)


def theorem6_bound(Z, p, block, tau):
    """1 / (1 − σ_max(M^{-1/2} B M^{-1/2})), M = Σ p_i z_i z_iᵀ + τI, B = Σ_{j∈block} p_j z_j z_jᵀ.

    Z = diag(y)X (so K_i∘yyᵀ = z_i z_iᵀ).  σ_max is the largest eigenvalue of the |B|×|B| matrix
    P_B^{1/2} Z_Bᵀ M⁻¹ Z_B P_B^{1/2}, with M⁻¹ by the Woodbury identity (no N×N inverse).
    Returns inf when σ_max ≥ 1 or τ = 0 (M may be singular): no guarantee then.
    """
    p = np.clip(np.asarray(p, dtype=float), 0.0, None)
    ZB = columns(Z, block) * np.sqrt(p[block])[None, :]
    if tau <= 0:
        return float("inf")
    used = np.flatnonzero(p > 0)  # p_i = 0 adds nothing to M: only A ∪ B (dense N×|A ∪ B|)
    U = columns(Z, used) * np.sqrt(p[used])[None, :]
    inner = tau * np.eye(U.shape[1]) + U.T @ U
    Minv_ZB = (ZB - U @ np.linalg.solve(inner, U.T @ ZB)) / tau
    S = ZB.T @ Minv_ZB
    sigma = float(np.linalg.eigvalsh(0.5 * (S + S.T)).max()) if S.size else 0.0
    return float("inf") if sigma >= 1.0 else 1.0 / (1.0 - sigma)
