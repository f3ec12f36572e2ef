"""Planted bugs in NMMKL (``fsopt verify --mutants``), each paired with the checks that must catch it.

They patch the QCQP (8)'s model and extraction (``MKLDual._build`` / ``_extract``, the subproblem's
override points), the partition of Algorithm 1 and the Theorem 6 bound (fsopt.nmmkl.method).
"""
from __future__ import annotations

import math

import cvxpy as cp

from ..verify import blind_certificate, patch, planted_bug
from . import method
from .qcqp import MKLDual


def _extract_then(stack, transform):
    real = MKLDual._extract
    patch(stack, MKLDual, "_extract", lambda self, problem, variables: transform(real(self, problem, variables)))


@planted_bug("QCQP alpha x(1+1e-3)", catches=("NMMKL Cor. 2", "NMMKL Cor. 3"),
             description="α of (8) perturbed by a relative 1e-3")
def alpha_perturbed(stack):
    _extract_then(stack, lambda out: {**out, "alpha": out["alpha"] * (1 + 1e-3)})


@planted_bug("QCQP drops y'alpha = 0", catches=("NMMKL Cor. 3",),
             description="(8) built without the constraint αᵀy = 0 (a dropped constraint)")
def drop_balance(stack):
    real = MKLDual._build

    def build(self):
        problem, variables = real(self)
        return cp.Problem(problem.objective, problem.constraints[1:]), variables

    patch(stack, MKLDual, "_build", build)


@planted_bug("cone multipliers halved", catches=("NMMKL Cor. 2",),
             description="p_cone read as half the cone duals (mis-scaled dual of (8))")
def p_halved(stack):
    _extract_then(stack, lambda out: {**out, "p_cone": 0.5 * out["p_cone"]})


def _bound_through(stack, transform):
    real = method.theorem6_bound

    def wrong(*args, **kwargs):
        bound = real(*args, **kwargs)
        sigma = 1.0 - 1.0 / bound if math.isfinite(bound) else 1.0
        return transform(bound, sigma)

    patch(stack, method, "theorem6_bound", wrong)


@planted_bug("Thm 6 bound sign", catches=("NMMKL Thm 6",),
             description="Theorem 6 bound 1/(1 + σ_max) instead of 1/(1 − σ_max) (wrong sign)")
def bound_sign(stack):
    _bound_through(stack, lambda bound, sigma: 1.0 / (1.0 + sigma))


@planted_bug("Thm 6 bound inflated", catches=("NMMKL Thm 6",),
             description="Theorem 6 bound 1/(1 − σ_max)² (too loose: a bound the ratio never reaches)")
def bound_inflated(stack):
    _bound_through(stack, lambda bound, sigma: bound ** 2)


@planted_bug("ranking reversed", catches=("NMMKL Cor. 2", "NMMKL Thm 5"),
             description="A/B/C partition ranks τ_i ascending (the m smallest are selected)")
def ranking_reversed(stack):
    real = method.partition
    patch(stack, method, "partition", lambda tau_i, m, tie_tol=1e-6: real(tau_i.max() - tau_i, m, tie_tol))


@planted_bug("QCQP alpha x(1+1e-3), certificate blind", catches=("NMMKL Cor. 3",),
             description="α of (8) perturbed by a relative 1e-3 and (8)'s certificate reports zero")
def alpha_perturbed_unseen(stack):
    alpha_perturbed(stack)
    blind_certificate(stack, MKLDual)
