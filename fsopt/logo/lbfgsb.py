"""Native backend "LBFGSB": the garrote subproblem (7) as a bound-constrained smooth problem.

min_{w ≥ 0} Σ_n log(1 + exp(−z̄_nᵀw)) + λ1ᵀw is smooth with simple bounds, so SciPy's L-BFGS-B
solves it directly; it starts from the subproblem's ``warm_start`` (the previous outer
iteration's weights) when one is set.  The record's certificate is the same NumPy KKT residual
as for the conic path.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import Bounds, minimize

from ..solvers import NativeBackend, register_backend


class LBFGSB(NativeBackend):
    name = "LBFGSB"
    package = "scipy"
    description = "L-BFGS-B on garrote_logistic (7), warm-started; same certificate as the conic path"

    def supports(self, subproblem):
        return subproblem.name == "garrote_logistic" and subproblem.beta is None

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, memory=20):
        tol = 1e-6 if tol is None else tol
        J = subproblem.Z.shape[1]
        w0 = subproblem.warm_start if subproblem.warm_start is not None else np.ones(J)
        Z, lam = subproblem.Z, subproblem.lam

        def fun(w):
            m = Z @ w
            loss = np.logaddexp(0.0, -m)
            grad = lam - Z.T @ np.exp(-m - loss)  # exp(-m)/(1+exp(-m)) = σ(−m), stably
            return float(loss.sum() + lam * w.sum()), grad

        res = minimize(fun, np.maximum(w0, 0.0), jac=True, method="L-BFGS-B",
                       bounds=Bounds(0.0, np.inf),
                       options={"maxcor": memory, "gtol": tol, "ftol": 1e-15,
                                "maxiter": 15000 if max_iter is None else max_iter})
        w = res.x
        if verbose:
            print(f"L-BFGS-B: {res.message} after {res.nit} iterations")
        g = fun(w)[1]
        residual = np.max(np.abs(np.minimum(w, g)), initial=0.0)
        if residual <= tol * max(1.0, w.max(initial=0.0)):
            status = "optimal"
        elif res.status in (0, 2):  # converged by ftol or stopped by line-search failure
            status = "optimal_inaccurate"
        else:
            status = "iteration_limit"
        return {"w": w}, status, int(res.nit)


register_backend(LBFGSB())
