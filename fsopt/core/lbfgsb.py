"""Native backend "LBFGSB": L-BFGS-B on a subproblem whose penalty is smooth on a box.

It takes any subproblem that declares (:mod:`fsopt.core.parts`) a smooth loss ``smooth`` (value,
gradient, n_features) and a penalty ``penalty`` that is differentiable on its feasible set and
whose feasible set is a box (value, gradient, box) — LOGO's (7): Σ_n log(1 + exp(−z̄_nᵀw)) + λ1ᵀw
on w ≥ 0, or the elastic net λ1ᵀw + (μ/2)‖w‖² — so SciPy's L-BFGS-B solves it directly, from the
subproblem's ``warm_start`` (the previous outer iteration's weights) when one is set.  For many
features, when both parts declare ``restrict`` and the penalty ``zero_slack``, it works on a
*working set*: L-BFGS-B on a few coordinates, then one full gradient (or an estimate with an error
bound, exact entries asked only where it cannot decide: :func:`most_violating`) to find the
coordinates whose optimality condition at 0 fails (zero_slack < 0), which join the set, until none does — the
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
            in_set = w > 0
            iterations = rounds = 0
            while True:
                bound = tol * max(1.0, w.max(initial=0.0))
                grow = max(100, int(in_set.sum()))  # at least double the set each round
                entrants = most_violating(smooth, penalty, w, ~in_set, bound, grow)
                if rounds and entrants.size == 0:
                    break
                in_set[entrants] = True
                cols = np.flatnonzero(in_set)
                w_set, nit = minimize_certified(smooth.restrict(cols), penalty.restrict(cols), w[cols], tol,
                                                max_iter, memory, subproblem.certificate_tol)
                w = np.zeros(J)
                w[cols] = w_set
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


def most_violating(smooth, penalty, w, outside, bound, grow):
    """The features ``outside`` the working set whose optimality condition at 0 fails at w
    (``zero_slack`` < −bound), the ``grow`` most violating of them (equal slacks by index).

    A smooth part may declare ``gradient_estimate(w) -> (g, err)`` with |∇f(w) − g| ≤ err
    elementwise, and ``gradient_entries(w, features)``, exact entries of ∇f(w): then exact entries
    are asked only where the estimate cannot decide whether a feature fails, or whether it is among
    the ``grow`` most violating (LOGO's held margins: most of the features that fail fail surely, and
    only the most violating enter).  The answer is the exact gradient's (the penalty separable, its
    zero_slack monotone in each g_j, as the garrote's g_j + λ)."""
    if hasattr(smooth, "gradient_estimate") and hasattr(smooth, "gradient_entries") and \
            getattr(penalty, "separable", True):
        g, err = smooth.gradient_estimate(w)
        with np.errstate(invalid="ignore"):  # inf − inf: NaN, read below as no information
            ends = penalty.zero_slack(w, g - err), penalty.zero_slack(w, g + err)
        low, high = np.minimum(*ends), np.maximum(*ends)
        undecided = np.isnan(low) | np.isnan(high)  # an estimate that says nothing (inf − inf, NaN)
        low, high = np.where(undecided, -np.inf, low), np.where(undecided, np.inf, high)
    else:
        g = smooth.gradient(w)
        low = high = penalty.zero_slack(w, g)
    maybe = np.flatnonzero(outside & (low < -bound))  # in increasing order, as the exact violators
    sure = maybe[high[maybe] < -bound]
    if sure.size >= grow:  # grow features fail with a slack ≤ cut: none above it enters
        cut = np.partition(high[sure], grow - 1)[grow - 1]
        maybe = maybe[low[maybe] <= cut]
    slack = low[maybe]
    unsure = low[maybe] < high[maybe]
    if unsure.any():
        exact = g.copy()
        exact[maybe[unsure]] = smooth.gradient_entries(w, maybe[unsure])
        slack = penalty.zero_slack(w, exact)[maybe]
    failing = slack < -bound
    return maybe[failing][np.argsort(slack[failing], kind="stable")[:grow]]


def minimize_certified(smooth, penalty, w0, tol, max_iter, memory, certificate_tol):
    """L-BFGS-B from ``w0``; if it stops with the KKT residual r(w) above certificate_tol·max(1, max w)
    (the subproblem's certificate would reject it), then until r(w) ≤ tol·max(1, max w), each from the
    best point so far: (a) once more in the variables u = w / D (:func:`curvature_scale`), stopped by
    r; (b) accelerated projected gradient in u, stopped by r; (c) accelerated proximal gradient in w
    (when the penalty declares ``prox``).  (b) and (c) read gradients only, never differences of
    objective values, which drown in rounding first; in u, where the coordinates' curvatures compare,
    (b) takes tens of steps where (c) can stall.  ``max_iter`` bounds the iterations of all of them
    together.  Returns ``(w, iterations)``."""
    res = lbfgsb(smooth, penalty, w0, tol, max_iter, memory)
    w, iterations = res.x, int(res.nit)

    def certified(w, rtol=tol):
        return kkt_residual(smooth, penalty, w) <= rtol * max(1.0, float(np.max(w, initial=0.0)))

    def better(candidate):
        return candidate if kkt_residual(smooth, penalty, candidate) < kkt_residual(smooth, penalty, w) else w

    if certified(w, max(tol, certificate_tol)) or iterations >= max_iter:
        return w, iterations
    D = curvature_scale(smooth)
    if D is not None:
        rescaled = RescaledObjective(smooth, penalty, D)
        box = Box(*(np.divide(bound, D) for bound in penalty.box))
        again = minimize_on_box(rescaled.value_and_gradient, w / D, box.lower, box.upper, memory=memory,
                                gtol=0.0, ftol=1e-15, max_iter=max_iter - iterations,
                                stop=lambda u: certified(D * u))
        iterations += int(again.nit)
        w = better(np.clip(D * again.x, *penalty.box))
        if not certified(w) and iterations < max_iter:
            u, _, steps = proximal_gradient(rescaled, box, w / D, 0.0, max_iter - iterations,
                                            stop=lambda u: certified(D * u))
            iterations += steps
            w = better(np.clip(D * u, *penalty.box))
    if certified(w) or iterations >= max_iter or undeclared("penalty", penalty, ("prox",)):
        return w, iterations
    polished, _, steps = proximal_gradient(smooth, penalty, w, tol, max_iter - iterations)
    return better(polished), iterations + steps


class RescaledObjective:
    """f(D·u) + g(D·u), g smooth on its box, as the smooth part of a problem in the variables u of
    :func:`curvature_scale`: its value and its gradient D·(∇f + ∇g)(D·u)."""

    def __init__(self, smooth, penalty, D):
        self.smooth, self.penalty, self.D = smooth, penalty, D

    def value_and_gradient(self, u):
        w = self.D * u
        f, grad = self.smooth.value_and_gradient(w) if hasattr(self.smooth, "value_and_gradient") \
            else (self.smooth.value(w), self.smooth.gradient(w))
        return f + self.penalty.value(w), self.D * (grad + self.penalty.gradient(w))

    def gradient(self, u):
        w = self.D * u
        return self.D * (self.smooth.gradient(w) + self.penalty.gradient(w))


class Box:
    """The indicator of the box [lower, upper] as a penalty for
    :func:`~fsopt.core.composite.proximal_gradient`: prox the projection, violation the
    projected-gradient residual |u − clip(u − ∇, lower, upper)|."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def prox(self, v, step):
        return np.clip(v, self.lower, self.upper)

    def violation(self, u, gradient):
        return np.abs(u - np.clip(u - gradient, self.lower, self.upper))


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
