"""Native backend "LBFGSB": the garrote subproblem (7) as a bound-constrained smooth problem.

min_{w ≥ 0} Σ_n log(1 + exp(−z̄_nᵀw)) + λ1ᵀw is smooth with simple bounds, so SciPy's L-BFGS-B
solves it directly, from the subproblem's ``warm_start`` (the previous outer iteration's
weights) when one is set.  For many features it works on a *working set*: L-BFGS-B on a few
columns, then one full gradient to find the features that violate KKT (∂_j < 0 at w_j = 0),
which join the set, until none does — the result is optimal for the full problem, and the
record's certificate is the same NumPy KKT residual as for the conic path.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, minimize

from ..core import status as st
from ..core.solvers import NativeBackend, register_backend

_WORKING_SET_FROM = 2000  # features; below this the full problem is solved directly


def _fun(Z, lam):
    def fun(w):
        m = Z @ w
        loss = np.logaddexp(0.0, -m)
        grad = lam - Z.T @ np.exp(-m - loss)  # exp(-m)/(1+exp(-m)) = σ(−m), stably
        return float(loss.sum() + lam * w.sum()), grad
    return fun


def polish_garrote(Z, lam, w0, tol=1e-9, max_iter=15000):
    """L-BFGS-B on (7) from ``w0`` (a rejected solve's weights): the garrote's native polish."""
    return np.maximum(_lbfgsb(Z, lam, np.maximum(w0, 0.0), tol, max_iter, 20).x, 0.0)


def _lbfgsb(Z, lam, w0, tol, max_iter, memory):
    return minimize(_fun(Z, lam), w0, jac=True, method="L-BFGS-B", bounds=Bounds(0.0, np.inf),
                    options={"maxcor": memory, "gtol": tol, "ftol": 1e-15, "maxiter": max_iter})


class LBFGSB(NativeBackend):
    name = "LBFGSB"
    package = "scipy"
    description = "L-BFGS-B on garrote_logistic (7) over a KKT-checked working set, warm-started"
    default_tol = 1e-6
    tol_meaning = ("KKT residual max_j abs(min(w_j, d_j)) <= tol*max(1, max w) for status optimal and the "
                   "working set; also L-BFGS-B's gtol (largest projected-gradient entry)")

    def supports(self, subproblem):
        return subproblem.name == "garrote_logistic" and subproblem.beta is None

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, memory=20, working_set=None):
        tol = self.default_tol if tol is None else tol
        max_iter = 15000 if max_iter is None else max_iter
        Z, lam = subproblem.Z, subproblem.lam
        J = Z.shape[1]
        warm = subproblem.warm_start
        w = np.zeros(J) if warm is None else np.maximum(np.asarray(warm, dtype=float), 0.0)
        full = _fun(Z, lam)
        use_set = J >= _WORKING_SET_FROM if working_set is None else working_set
        if not use_set:
            res = _lbfgsb(Z, lam, w if warm is not None else np.ones(J), tol, max_iter, memory)
            w, iterations, rounds = res.x, int(res.nit), 1
            g = full(w)[1]
        else:
            if np.count_nonzero(w) > J // 4:  # a dense start (w⁽⁰⁾ = 1): grow the set from w = 0
                w = np.zeros(J)
            g = full(w)[1]
            in_set = w > 0
            iterations = rounds = 0
            while True:
                bound = tol * max(1.0, w.max(initial=0.0))
                violators = np.flatnonzero(~in_set & (g < -bound))
                if rounds and violators.size == 0:
                    break
                grow = max(100, int(in_set.sum()))  # at least double the set each round
                in_set[violators[np.argsort(g[violators])[:grow]]] = True
                cols = np.flatnonzero(in_set)
                res = _lbfgsb(np.ascontiguousarray(Z[:, cols]), lam, w[cols], tol, max_iter, memory)
                w = np.zeros(J)
                w[cols] = res.x
                g = full(w)[1]
                iterations += int(res.nit)
                rounds += 1
        if verbose:
            print(f"L-BFGS-B: {iterations} iterations in {rounds} working-set round(s)")
        residual = np.max(np.abs(np.minimum(w, g)), initial=0.0)
        if residual <= tol * max(1.0, w.max(initial=0.0)):
            status = st.OPTIMAL
        elif iterations < max_iter * rounds:  # stopped by ftol or a line-search failure
            status = st.OPTIMAL_INACCURATE
        else:
            status = st.USER_LIMIT
        return {"w": w}, status, iterations


register_backend(LBFGSB())
