"""Planted bugs in LOGO (``fsopt verify --mutants``), each paired with the checks that must catch it.

Each patches a documented function (the neighbour probabilities of eqs (3)–(5), the column-block
reader, the unit scale, elimination's bound and final check) or registers a wrong backend under a
real name; :meth:`fsopt.core.checks.PlantedBug.planted` restores everything.
"""
from __future__ import annotations

import functools

import numpy as np
from scipy.special import expit

from ..core import acceleration, blocks, solvers
from ..verify import blind_certificate, patch, planted_bug, wrap_backend
from . import estimator, margins
from .garrote import GarroteLogistic
from .method import LogoFixedPoint

FIXED_POINT = "LOGO fixed point (3)-(7)"
FIT_CERTIFICATE = "LOGO fit certificate"
ACCELERATION = "LOGO acceleration"


@planted_bug("gradient path +1e-3", catches=("LOGO Thm 1",),
             description="GRADIENT returns w + 1e-3 (a solution perturbed by 1e-3)")
def gradient_perturbed(stack):
    wrap_backend(stack, "GRADIENT", lambda sp, sol, status, it: ({"w": sol["w"] + 1e-3}, status, it))


@planted_bug("gradient path +1e-3, certificate blind", catches=("LOGO Thm 1",),
             description="GRADIENT returns w + 1e-3 and the garrote's NumPy certificate reports a zero "
                         "residual: only a reference outside the code under test sees the error")
def gradient_perturbed_unseen(stack):
    gradient_perturbed(stack)
    blind_certificate(stack, GarroteLogistic)


@planted_bug("LBFGSB stops at 3 iterations", catches=("LOGO sigma->inf",),
             description="L-BFGS-B capped at 3 iterations, reported optimal")
def lbfgsb_early(stack):
    real = solvers.backends()["LBFGSB"]

    class Early(type(real)):
        @functools.wraps(type(real).solve)
        def solve(self, subproblem, **options):
            sol, _, it = real.solve(subproblem, **{**options, "max_iter": 3})
            return sol, "optimal", it

    solvers.register_backend(Early())


def _probabilities(stack, transform):
    real = margins.neighbor_probabilities
    patch(stack, margins, "neighbor_probabilities", lambda D, y, sigma: transform(real, D, y, sigma))


@planted_bug("kernel width x4 (LOGO)", catches=("LOGO margins (3)-(5)", FIXED_POINT),
             description="neighbor probabilities with 4σ instead of σ (wrong kernel width)")
def logo_width(stack):
    _probabilities(stack, lambda f, D, y, s: f(D, y, 4 * s))


@planted_bug("probabilities ignore w", catches=("LOGO margins (3)-(5)", FIXED_POINT),
             description="neighbor probabilities uniform (σ = inf): margins independent of w")
def logo_uniform(stack):
    _probabilities(stack, lambda f, D, y, s: f(D, y, np.inf))


@planted_bug("hits and misses swapped", catches=("LOGO margins (3)-(5)", "LOGO sigma->inf",
                                                 "LOGO sample complexity"),
             description="nearest-hit and nearest-miss probabilities exchanged")
def logo_swapped(stack):
    _probabilities(stack, lambda f, D, y, s: f(D, y, s)[::-1])


@planted_bug("statistics frozen at w0", catches=("LOGO Thm 2", FIXED_POINT),
             description="the fixed point's statistics always use the start w⁽⁰⁾: the map T is "
                         "constant, its 'fixed point' T(w⁽⁰⁾) depends on the start")
def statistics_frozen(stack):
    real = LogoFixedPoint.statistics
    patch(stack, LogoFixedPoint, "statistics",
          lambda self, iterate, active: real(self, self.initial_iterate(), active))


# --- elimination (fsopt.logo.method) ---------------------------------------------------------------
@planted_bug("elimination bound always holds", catches=(FIXED_POINT,),
             description="the lower bound on an eliminated feature's KKT value is +inf: a feature "
                         "that must enter stays out of every solve (the final check still runs)")
def bound_always_holds(stack):
    patch(stack, LogoFixedPoint, "_lower_bound", lambda self, out: np.full(out.size, np.inf))


@planted_bug("elimination without final check", catches=(FIXED_POINT,),
             description="the bound always holds and the check over all eliminated features at the "
                         "fixed point finds nothing: a needed feature stays eliminated")
def final_check_skipped(stack):
    bound_always_holds(stack)
    patch(stack, LogoFixedPoint, "kkt_violations", lambda self, iterate, active: np.zeros(0, dtype=int))


@planted_bug("screening with another loss's gradient", catches=(FIT_CERTIFICATE,),
             description="elimination and the working set read the logistic derivative −σ(−m) whatever "
                         "margin loss the subproblem declares (the fit's certificate computes its own)")
def screening_logistic(stack):
    patch(stack, LogoFixedPoint, "_screening_derivative", lambda self, m: -expit(-m))


# --- column-block reading (fsopt.core.blocks) ------------------------------------------------------
def _blocks(stack, reread):
    """``column_blocks`` (as fsopt.core.blocks and LOGO's margins call it) with each block replaced
    by ``reread(X, j0, j1, block, previous block)``."""
    real = blocks.column_blocks

    def wrong(X, width=None):
        previous = None
        for j0, j1, block in real(X, width):
            out = reread(X, j0, j1, block, previous)
            previous = block
            yield j0, j1, out

    patch(stack, blocks, "column_blocks", wrong)
    patch(stack, margins, "column_blocks", wrong)


@planted_bug("block boundary off by one", catches=(FIXED_POINT,),
             description="every column block after the first starts one column early (its first "
                         "column is the previous block's last; the block's own last column is lost)")
def block_off_by_one(stack):
    def shifted(X, j0, j1, block, previous):
        if previous is None:
            return block
        return np.ascontiguousarray(np.hstack([previous[:, -1:], block[:, :-1]]))

    _blocks(stack, shifted)


@planted_bug("column block read twice", catches=(FIXED_POINT,),
             description="the second column block holds the first block's columns again")
def block_twice(stack):
    def twice(X, j0, j1, block, previous):
        if previous is None or j0 != previous.shape[1]:
            return block
        return np.ascontiguousarray(previous[:, :block.shape[1]])

    _blocks(stack, twice)


# --- units (fsopt.core.scaling, as the estimator uses it) -------------------------------------------
@planted_bug("unit scale ignored", catches=(FIXED_POINT, "LOGO sigma->inf"),
             description="the estimator takes X's typical spread as 1: σ in raw units and the weights "
                         "not mapped back to X's units")
def unit_scale_ignored(stack):
    patch(stack, estimator, "unit_scale", lambda X: 1.0)


@planted_bug("averaging steps away from T(x)", catches=(ACCELERATION,),
             description="the averaging accelerator proposes x + α(x − T(x)) instead of x + α(T(x) − x) "
                         "(also Anderson's fallback step)")
def averaging_backwards(stack):
    patch(stack, acceleration.Averaging, "propose", lambda self, x, fx: (1 + self.alpha) * x - self.alpha * fx)


@planted_bug("Anderson step sign flipped", catches=(ACCELERATION,),
             description="Anderson's type-I point T(x) + (S − Y)γ instead of T(x) − (S − Y)γ")
def anderson_sign(stack):
    real = acceleration.Anderson.step
    patch(stack, acceleration.Anderson, "step", staticmethod(lambda fx, g, S, Y: 2 * fx - real(fx, g, S, Y)))
