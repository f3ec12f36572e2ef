"""Native methods for min_w f(w) + g(w) that read only a subproblem's declared parts
(:mod:`fsopt.core.parts`): L-BFGS-B when g is smooth on a box, accelerated proximal gradient for
any g with a prox, and the native backend "PROXGRAD" built on the latter.

Both stop on the proximal KKT residual r(w) = ‖w − prox_g(w − ∇f(w))‖∞ ≤ tol·max(1, max|w|), the
quantity :func:`fsopt.core.parts.composite_certificate` reports.
"""
from __future__ import annotations

import numpy as np

from . import status as st
from .lbfgsb_routine import minimize_on_box
from .parts import PENALTY_NEEDS, SMOOTH_NEEDS, missing_parts, undeclared
from .solvers import NativeBackend

BOX_PENALTY_NEEDS = ("value", "gradient", "box")  # g differentiable on C, and C a box


def kkt_residual(smooth, penalty, w) -> float:
    """max_j ``penalty.violation(w, ∇f(w))_j`` (the certificate's residual)."""
    return float(np.max(penalty.violation(w, smooth.gradient(w)), initial=0.0))


def lbfgsb(smooth, penalty, w0, tol=1e-6, max_iter=15000, memory=20):
    """min f(w) + g(w) over g's box by SciPy's L-BFGS-B routine (g declares ``gradient`` and
    ``box``; :mod:`fsopt.core.lbfgsb_routine`); returns an OptimizeResult."""
    def fun(w):
        f, grad = smooth.value_and_gradient(w) if hasattr(smooth, "value_and_gradient") \
            else (smooth.value(w), smooth.gradient(w))
        return f + penalty.value(w), grad + penalty.gradient(w)

    lower, upper = penalty.box
    return minimize_on_box(fun, np.clip(w0, lower, upper), lower, upper, memory=memory, gtol=tol,
                           ftol=1e-15, max_iter=max_iter)


def proximal_gradient(smooth, penalty, w0, tol=1e-6, max_iter=20000, stall=1000, stop=None):
    """Accelerated proximal gradient (FISTA, Beck & Teboulle 2009) with adaptive restart
    (O'Donoghue & Candès 2015).  The step 1/L backtracks on the curvature along the step,
    (∇f(x) − ∇f(y))ᵀ(x − y) ≤ L‖x − y‖², rather than on objective values, whose differences
    drown in rounding near the optimum; L shrinks by 0.8 before each step.  Returns
    ``(w, status, iterations)``: "optimal" once r(w) ≤ tol·max(1, max|w|), "optimal_inaccurate"
    when r has not improved for ``stall`` iterations, else "iteration_limit"; a caller's ``stop(x)``
    returning True also ends the run, "optimal" (a test of its own, e.g. in other variables)."""
    x = penalty.prox(np.asarray(w0, dtype=float), 0.0)  # step 0: the projection onto C
    y, g_y, t, L = x, smooth.gradient(x), 1.0, 1.0
    best, best_at = np.inf, 0
    for it in range(1, max_iter + 1):
        L *= 0.8
        while True:
            x_new = penalty.prox(y - g_y / L, 1.0 / L)
            d = x_new - y
            g_x = smooth.gradient(x_new)
            if (g_x - g_y) @ d <= L * (d @ d) or L > 1e20:
                break
            L *= 2.0
        residual = float(np.max(penalty.violation(x_new, g_x), initial=0.0))
        if residual <= tol * max(1.0, float(np.max(np.abs(x_new), initial=0.0))) or \
                (stop is not None and stop(x_new)):
            return x_new, st.OPTIMAL, it
        if residual < best:
            best, best_at = residual, it
        elif it - best_at >= stall:
            return x_new, st.OPTIMAL_INACCURATE, it
        if -d @ (x_new - x) > 0:  # the momentum points uphill: restart it
            t = 1.0
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        momentum = (t - 1.0) / t_new
        y = x_new + momentum * (x_new - x)
        g_y = g_x if momentum == 0.0 else smooth.gradient(y)
        x, t = x_new, t_new
    return x, st.USER_LIMIT, max_iter


def polish_from_parts(smooth, penalty, w0, tol=1e-9):
    """The generic native polish: L-BFGS-B when g is smooth on a box, else proximal gradient."""
    if not undeclared("penalty", penalty, BOX_PENALTY_NEEDS) and getattr(penalty, "smooth", True) is not False:
        return np.clip(lbfgsb(smooth, penalty, w0, tol).x, *penalty.box)
    return proximal_gradient(smooth, penalty, w0, tol)[0]


class PartsBackend(NativeBackend):
    """A native backend that takes any subproblem declaring the parts ``needs`` lists
    ({"smooth": names, "penalty": names}) and otherwise names the missing ones; one that needs
    ``penalty.gradient`` also needs the penalty smooth on its feasible set (``penalty.smooth``).
    A loss that is not smooth is refused before (:func:`fsopt.core.parts.parts_refusal`)."""

    needs = {"smooth": SMOOTH_NEEDS, "penalty": PENALTY_NEEDS}

    def supports(self, subproblem):
        return not refusal(self.name, subproblem, self.needs)

    def refusal(self, subproblem):
        return refusal(self.name, subproblem, self.needs)


class ProximalGradient(PartsBackend):
    """Native backend "PROXGRAD": :func:`proximal_gradient` on any subproblem that declares a
    smooth loss (value, gradient, n_features) and a penalty (value, prox), from its
    ``warm_start`` if set."""

    name = "PROXGRAD"
    package = "scipy"
    description = "accelerated proximal gradient on a subproblem's declared smooth + penalty parts"
    default_tol = 1e-6
    tol_meaning = "proximal KKT residual max_j penalty.violation <= tol*max(1, max abs(w)) for status optimal"
    status_map = {status: status for status in (st.OPTIMAL, st.OPTIMAL_INACCURATE, st.USER_LIMIT)}

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, stall=1000):
        J = subproblem.smooth.n_features
        w0 = getattr(subproblem, "warm_start", None)
        w0 = np.zeros(J) if w0 is None or np.shape(w0) != (J,) else w0
        w, status, iterations = proximal_gradient(
            subproblem.smooth, subproblem.penalty, w0, self.default_tol if tol is None else tol,
            20000 if max_iter is None else max_iter, stall)
        if verbose:
            print(f"proximal gradient: {status} after {iterations} iterations")
        return {"w": w}, status, iterations


def refusal(solver, subproblem, needs) -> str:
    """Why ``solver`` cannot take ``subproblem``: the parts it needs that are not declared, or a
    penalty it needs the gradient of that declares itself not smooth."""
    missing = missing_parts(subproblem, **needs)
    if missing:
        wanted = "; ".join(f"{part}.{'/'.join(names)}" for part, names in needs.items())
        return f"{type(subproblem).__name__} declares no {', '.join(missing)}; {solver} needs {wanted}"
    penalty = subproblem.penalty
    if "gradient" in needs.get("penalty", ()) and getattr(penalty, "smooth", True) is False:
        return (f"its penalty {type(penalty).__name__} is not smooth on its feasible set (smooth = False); "
                f"{solver} needs its gradient: use PROXGRAD (it reads the prox) or a conic solver")
    return ""

