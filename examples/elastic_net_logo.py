"""Extending fsopt: LOGO with an elastic-net garrote, without touching fsopt's core.

    min_{w ≥ 0} Σ_n log(1 + exp(−wᵀz̄_n)) + λ‖w‖₁ + (μ/2)‖w‖₂²

is eq. (7) plus a ridge term.  The subproblem states its parts — LOGO's logistic loss on the
margins and the penalty :class:`fsopt.core.parts.NonnegElasticNet` — and gets from them its cvxpy
model (λ, μ in Parameters), its NumPy certificate, its polish and the native solvers LBFGSB,
PROXGRAD and GRADIENT; ``LOGO(subproblem=...)`` runs it with σ, λ and μ in the estimator's units.

    FSOPT_PROBLEMS_PATH=examples fsopt bench --quick --problem elastic_net_spiral
"""
import numpy as np

from fsopt import LOGO, GarroteLogistic
from fsopt.core.parts import NonnegElasticNet
from fsopt.logo.margins import expected_margins


class ElasticNetGarrote(GarroteLogistic):
    """Eq. (7) of LOGO with an added (μ/2)‖w‖₂² (still an exponential-cone program)."""

    name = "garrote_elastic_net"

    def __init__(self, lam=1.0, mu=0.1, Z=None):
        super().__init__(Z=Z, penalty=NonnegElasticNet(lam, mu))


def fit(X, y, sigma=2.0, lam=1.0, mu=0.1, solver="LBFGSB", **params):
    """LOGO (Alg. 1) with the elastic-net subproblem; returns the fitted estimator."""
    return LOGO(sigma=sigma, solver=solver, subproblem=ElasticNetGarrote(lam, mu), **params).fit(X, y)


def bench_subproblems(problem, X, y):
    """``fsopt bench`` hook: the first outer iteration's elastic-net subproblem."""
    Z = expected_margins(X, y, np.ones(X.shape[1]), problem.params.get("sigma", 2.0))
    return {"garrote_elastic_net": ElasticNetGarrote(problem.params.get("lam", 1.0),
                                                     problem.params.get("mu", 0.1), Z=Z)}


if __name__ == "__main__":
    from fsopt.datasets.spiral import make_spiral

    X, y = make_spiral(230, 20, random_state=0)
    est = fit(X, y)
    print(f"converged: {est.converged_} in {est.n_iter_} iterations; "
          f"selected: {est.get_support(indices=True).tolist()}")
