"""Native backend "PNEWTON": Bertsekas' projected Newton method for LOGO's garrote problem (7).

    min_{w ≥ 0} f(w) = Σ_n log(1 + exp(−z̄_nᵀw)) + λ1ᵀw                                   (7)

with ∇f = λ1 − Z̄ᵀσ(−Z̄w) and ∇²f = Z̄ᵀ diag(σ(1 − σ)) Z̄.  Each iteration splits the coordinates
into a binding set B = {j : w_j ≤ ε, ∂_j > 0} (ε = min(ε₀, ‖w − P(w − ∇f)‖), Bertsekas 1982,
SIAM J. Control Optim. 20:221–246) and the free rest F; it takes a Newton step on F and a
gradient step on B, projects onto w ≥ 0 and backtracks (Armijo along the projection arc).  It
stops on the same KKT residual max_j |min(w_j, ∂_j)| ≤ tol·max(1, max w) as fsopt's other
garrote backends; fsopt then certifies the point in NumPy like any other solve.  A J×J Hessian
per iteration: for a few thousand features at most.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.special import expit

from fsopt import LogisticMarginLoss, NativeBackend, NonnegL1


class ProjectedNewton(NativeBackend):
    name = "PNEWTON"
    package = "scipy"
    description = "projected Newton (Bertsekas 1982) on garrote_logistic (7); plugin fsopt-pnewton"

    def supports(self, subproblem):
        """Any subproblem whose parts are LOGO's logistic loss on margins and the plain ℓ1 penalty
        on w ≥ 0 — by its parts, not its name (an elastic-net or group garrote is refused)."""
        return isinstance(getattr(subproblem, "smooth", None), LogisticMarginLoss) \
            and type(getattr(subproblem, "penalty", None)) is NonnegL1

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, eps0=1e-3, armijo=1e-4):
        w, status, iterations = projected_newton(subproblem.smooth.Z, subproblem.penalty.lam,
                                                 1e-6 if tol is None else tol,
                                                 100 if max_iter is None else max_iter, eps0, armijo)
        if verbose:
            print(f"projected Newton: {status} after {iterations} iterations")
        return {"w": w}, status, iterations


def projected_newton(Z, lam, tol, max_iter, eps0=1e-3, armijo=1e-4):
    """Minimize (7) over w ≥ 0 from w = 1; returns ``(w, status, iterations)``."""
    w = np.ones(Z.shape[1])

    def f_grad(w):
        m = Z @ w
        s = expit(-m)
        return float(np.logaddexp(0.0, -m).sum() + lam * w.sum()), lam - Z.T @ s, s

    f, g, s = f_grad(w)
    for it in range(max_iter):
        if np.max(np.abs(np.minimum(w, g))) <= tol * max(1.0, w.max()):
            return w, "optimal", it
        eps = min(eps0, np.linalg.norm(w - np.maximum(w - g, 0.0)))
        bound = (w <= eps) & (g > 0)
        free = ~bound
        d = -g.copy()
        Zf = Z[:, free]
        H = Zf.T @ (Zf * (s * (1.0 - s))[:, None])
        H[np.diag_indices_from(H)] += 1e-12 * max(1.0, np.trace(H))
        try:
            d[free] = -cho_solve(cho_factor(H), g[free])
        except LinAlgError:
            pass  # keep the gradient step on F
        alpha = 1.0
        while True:
            w_new = np.maximum(w + alpha * d, 0.0)
            f_new, g_new, s_new = f_grad(w_new)
            if f_new <= f + armijo * (g @ (w_new - w)) or alpha < 1e-12:
                break
            alpha *= 0.5
        w, f, g, s = w_new, f_new, g_new, s_new
    return w, "user_limit", max_iter
