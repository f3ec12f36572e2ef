"""Planted bugs in LFS (``fsopt verify --mutants``), each paired with the checks that must catch it.

They wrap the HIGHSPY and TOPK backends, patch (9)'s LP data (``EpsilonConstraint.lp_data``), the
weights (10) and the rounding (fsopt.lfs.weights, fsopt.lfs.rounding).
"""
from __future__ import annotations

import numpy as np

from ..verify import blind_certificate, patch, planted_bug, wrap_backend
from . import rounding, weights
from .lp import EpsilonConstraint, EpsilonMax

KIND = EpsilonConstraint.name


@planted_bug("(9) stops at a feasible vertex", catches=("LFS feasibility",),
             description="HIGHSPY returns the (8) maximizer, a feasible but non-optimal vertex of (9)")
def nonoptimal_vertex(stack):
    def vertex(sp, sol, status, it):
        f = np.zeros(sp.b.size)
        f[np.argsort(sp.b)[-sp.alpha:]] = 1.0
        return {**sol, "f": f}, status, it

    wrap_backend(stack, "HIGHSPY", vertex, kind=KIND)


@planted_bug("(9) drops b'f >= eps", catches=("LFS feasibility",),
             description="(9) passed to HiGHS without the row bᵀf ≥ ε (a dropped constraint)")
def drop_row(stack):
    real = EpsilonConstraint.lp_data

    def lp_data(self):
        cost, rows, lo, hi = real(self)
        return cost, rows, [lo[0], -np.inf], hi

    patch(stack, EpsilonConstraint, "lp_data", lp_data)


@planted_bug("(9) solution +1e-3", catches=("LFS feasibility", "LFS Fig. 10"),
             description="HIGHSPY's f of (9) perturbed by 1e-3")
def solution_perturbed(stack):
    wrap_backend(stack, "HIGHSPY", lambda sp, sol, status, it: ({**sol, "f": sol["f"] + 1e-3}, status, it),
                 kind=KIND)


@planted_bug("TOPK off by one", catches=("LFS TOPK (8)", "LFS feasibility"),
             description="TOPK keeps the α − 1 largest b (the α-th tie broken out)")
def topk_off_by_one(stack):
    def drop_smallest(sp, sol, status, it):
        f = sol["f"].copy()
        chosen = np.flatnonzero(f)
        if chosen.size > 1:
            f[chosen[np.argmin(sp.b[chosen])]] = 0.0
        return {"f": f}, status, it

    wrap_backend(stack, "TOPK", drop_smallest)


@planted_bug("kernel width x4 (LFS)", catches=("LFS weights (10)",),
             description="weights (10) computed with 4σ (wrong kernel width)")
def lfs_width(stack):
    real = weights.neighbour_weights
    patch(stack, weights, "neighbour_weights", lambda X, y, sets, sigma=1.0: real(X, y, sets, 4 * sigma))


@planted_bug("rounding keeps the costliest", catches=("LFS rounding",),
             description="randomized rounding keeps the feasible candidate of largest aᵀf")
def rounding_costliest(stack):
    real = rounding.round_solution

    def costliest(f, a, b, eps, alpha, n_rounding, rng, method="sample"):
        out, _ = real(f, -a, b, eps, alpha, n_rounding, rng, method)
        return out, (np.inf if out is None else float(a @ out))

    patch(stack, rounding, "round_solution", costliest)


@planted_bug("rounding reports the cheapest cost", catches=("LFS rounding",),
             description="the rounding keeps the costliest feasible pattern but reports the cheapest "
                         "one's cost (a check that reads the reported cost passes)")
def rounding_cost_misreported(stack):
    real = rounding.round_solution

    def misreported(f, a, b, eps, alpha, n_rounding, rng, method="sample"):
        _, cost = real(f, a, b, eps, alpha, n_rounding, rng, method)
        out, _ = real(f, -a, b, eps, alpha, n_rounding, rng, method)
        return out, cost

    patch(stack, rounding, "round_solution", misreported)


# --- the same faults behind a blind certificate: only a check's own reference sees them ----------
@planted_bug("(9) at a feasible vertex, certificate blind", catches=("LFS feasibility",),
             description="HIGHSPY returns the (8) maximizer for (9) and (9)'s certificate reports zero")
def nonoptimal_vertex_unseen(stack):
    nonoptimal_vertex(stack)
    blind_certificate(stack, EpsilonConstraint)


@planted_bug("(9) solution +1e-3, certificate blind", catches=("LFS Fig. 10", "LFS feasibility"),
             description="HIGHSPY's f of (9) perturbed by 1e-3 and (9)'s certificate reports zero")
def solution_perturbed_unseen(stack):
    solution_perturbed(stack)
    blind_certificate(stack, EpsilonConstraint)


@planted_bug("TOPK off by one, certificate blind", catches=("LFS TOPK (8)",),
             description="TOPK keeps the α − 1 largest b and (8)'s certificate reports zero")
def topk_off_by_one_unseen(stack):
    topk_off_by_one(stack)
    blind_certificate(stack, EpsilonMax)
