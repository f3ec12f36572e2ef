"""Native backend "LBFGSB": L-BFGS-B on a subproblem whose penalty is smooth on a box.

It takes any subproblem that declares (:mod:`fsopt.core.parts`) a smooth loss ``smooth`` (value,
gradient, n_features) and a penalty ``penalty`` that is differentiable on its feasible set and
whose feasible set is a box (value, gradient, box) — LOGO's (7): Σ_n log(1 + exp(−z̄_nᵀw)) + λ1ᵀw
on w ≥ 0, or the elastic net λ1ᵀw + (μ/2)‖w‖² — so SciPy's L-BFGS-B solves it directly, from the
subproblem's ``warm_start`` (the previous outer iteration's weights) when one is set.  For many
features, when both parts declare ``restrict`` and the penalty ``zero_slack``, it works on a
*working set*: L-BFGS-B on a few coordinates, then one full gradient to find the coordinates whose
optimality condition at 0 fails (zero_slack < 0), which join the set, until none does — the
result is optimal for the full problem, and the record's certificate is the same NumPy KKT
residual as for the conic path.

When a run stops where the certificate would reject its answer (L-BFGS-B's own tests, the
relative reduction of f and the line search, read objective values, whose differences drown in
rounding before the gradient is small when the coordinates' curvatures differ by orders of
magnitude: features of X in unlike units give margin columns of unlike size), it goes on from
there, first in rescaled variables, then by proximal gradient, until the KKT residual itself meets
the tolerance (:func:`minimize_certified`).  A run whose answer the certificate accepts is
returned as before, bit for bit.
"""
from __future__ import annotations

import numpy as np

from . import status as st
from .composite import BOX_PENALTY_NEEDS, PartsBackend, kkt_residual, lbfgsb, proximal_gradient, refusal
from .lbfgsb_routine import minimize_on_box
from .parts import SMOOTH_NEEDS, MarginLoss, missing_parts, undeclared

# features; below this the full problem is solved directly (measured: docs/logo-scale.md,
# "Where the timings of the code live").
_WORKING_SET_FROM = 500
WORKING_SET_NEEDS = {"smooth": ("restrict",), "penalty": ("restrict", "zero_slack")}


class LBFGSB(PartsBackend):
    name = "LBFGSB"
    package = "scipy"
    description = ("L-BFGS-B on smooth + a penalty smooth on a box (LOGO's (7), elastic net), over a "
                   "KKT-checked working set, warm-started")
    default_tol = 1e-6
    working_set_from = _WORKING_SET_FROM  # from this many features it reads the smooth part only
    # through gradient (over all of them, for the KKT test) and restrict (the working set's columns)
    needs = {"smooth": SMOOTH_NEEDS, "penalty": BOX_PENALTY_NEEDS}
    status_map = {status: status for status in (st.OPTIMAL, st.OPTIMAL_INACCURATE, st.USER_LIMIT)}
    tol_meaning = ("proximal KKT residual max_j penalty.violation (for (7): abs(min(w_j, d_j))) <= "
                   "tol*max(1, max w) for status optimal, zero_slack < -tol*max(1, max w) for the working "
                   "set; also L-BFGS-B's gtol (largest projected-gradient entry)")

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, memory=20, working_set=None):
        tol = self.default_tol if tol is None else tol
        max_iter = 15000 if max_iter is None else max_iter
        smooth, penalty = subproblem.smooth, subproblem.penalty
        J = smooth.n_features
        warm = subproblem.warm_start
        w = np.zeros(J) if warm is None else np.maximum(np.asarray(warm, dtype=float), 0.0)
        use_set = J >= _WORKING_SET_FROM if working_set is None else working_set
        if use_set and missing_parts(subproblem, **WORKING_SET_NEEDS):
            if working_set:
                raise ValueError(refusal("LBFGSB's working_set", subproblem, WORKING_SET_NEEDS))
            use_set = False
        if not use_set:
            w, iterations = minimize_certified(smooth, penalty, w if warm is not None else np.ones(J), tol,
                                               max_iter, memory, subproblem.certificate_tol)
            rounds = 1
        else:
            if np.count_nonzero(w) > J // 4:  # a dense start (w⁽⁰⁾ = 1): grow the set from w = 0
                w = np.zeros(J)
            g = smooth.gradient(w)
            in_set = w > 0
            iterations = rounds = 0
            while True:
                bound = tol * max(1.0, w.max(initial=0.0))
                slack = penalty.zero_slack(w, g)
                violators = np.flatnonzero(~in_set & (slack < -bound))
                if rounds and violators.size == 0:
                    break
                grow = max(100, int(in_set.sum()))  # at least double the set each round
                in_set[violators[np.argsort(slack[violators])[:grow]]] = True
                cols = np.flatnonzero(in_set)
                w_set, nit = minimize_certified(smooth.restrict(cols), penalty.restrict(cols), w[cols], tol,
                                                max_iter, memory, subproblem.certificate_tol)
                w = np.zeros(J)
                w[cols] = w_set
                g = smooth.gradient(w)
                iterations += nit
                rounds += 1
        if verbose:
            print(f"L-BFGS-B: {iterations} iterations in {rounds} working-set round(s)")
        if kkt_residual(smooth, penalty, w) <= tol * max(1.0, w.max(initial=0.0)):
            status = st.OPTIMAL
        elif iterations < max_iter * rounds:  # stopped by ftol or a line-search failure
            status = st.OPTIMAL_INACCURATE
        else:
            status = st.USER_LIMIT
        return {"w": w}, status, iterations


def minimize_certified(smooth, penalty, w0, tol, max_iter, memory, certificate_tol):
    """L-BFGS-B from ``w0``; if it stops with the KKT residual r(w) above certificate_tol·max(1, max w)
    (the subproblem's certificate would reject it), then until r(w) ≤ tol·max(1, max w): (a) once
    more from there in the variables u = w / D (:func:`curvature_scale`), stopped by r, and (b)
    accelerated proximal gradient from the better point (when the penalty declares ``prox``): its
    steps and its stopping rule read gradients only, never differences of objective values, which
    drown in rounding first.  ``max_iter`` bounds the iterations of all three together.  Returns
    ``(w, iterations)``."""
    res = lbfgsb(smooth, penalty, w0, tol, max_iter, memory)
    w, iterations = res.x, int(res.nit)

    def certified(w, rtol=tol):
        return kkt_residual(smooth, penalty, w) <= rtol * max(1.0, float(np.max(w, initial=0.0)))

    if certified(w, max(tol, certificate_tol)) or iterations >= max_iter:
        return w, iterations
    D = curvature_scale(smooth)
    if D is not None:
        def fun(u):
            f, grad = smooth.value_and_gradient(D * u) if hasattr(smooth, "value_and_gradient") \
                else (smooth.value(D * u), smooth.gradient(D * u))
            return f + penalty.value(D * u), D * (grad + penalty.gradient(D * u))

        lower, upper = penalty.box
        again = minimize_on_box(fun, w / D, np.divide(lower, D), np.divide(upper, D), memory=memory,
                                gtol=0.0, ftol=1e-15, max_iter=max_iter - iterations,
                                stop=lambda u: certified(D * u))
        rescaled = np.clip(D * again.x, lower, upper)
        iterations += int(again.nit)
        if kkt_residual(smooth, penalty, rescaled) < kkt_residual(smooth, penalty, w):
            w = rescaled
    if certified(w) or iterations >= max_iter or undeclared("penalty", penalty, ("prox",)):
        return w, iterations
    polished, _, steps = proximal_gradient(smooth, penalty, w, tol, max_iter - iterations)
    if kkt_residual(smooth, penalty, polished) < kkt_residual(smooth, penalty, w):
        w = polished
    return w, iterations + steps


def curvature_scale(smooth):
    """D of the rescaled variables w = D·u, or None: for a loss on margins f(w) = Σ_n ℓ(z̄_nᵀw),
    D_j = c / ‖z̄_j‖ (c the geometric mean of the nonzero column norms; 1 for a zero column), so
    every column of the rescaled margins Z·diag(D) has the same norm and the curvatures
    ∂²f/∂u_j² = Σ_n ℓ''·(D_j z̄_nj)² compare; None for any other loss, or when the columns'
    norms already agree within a factor 10 (rescaling would change little)."""
    if not isinstance(smooth, MarginLoss) or smooth.Z is None or smooth.Z.size == 0:
        return None
    norms = np.linalg.norm(smooth.Z, axis=0)
    nonzero = norms[norms > 0]
    if nonzero.size == 0 or nonzero.max() <= 10 * nonzero.min():
        return None
    typical = np.exp(np.mean(np.log(nonzero)))
    return np.where(norms > 0, typical / np.where(norms > 0, norms, 1.0), 1.0)
