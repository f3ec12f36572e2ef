"""Extending fsopt: LOGO with an elastic-net garrote, without touching fsopt's core.

    min_{w ≥ 0} Σ_n log(1 + exp(−wᵀz̄_n)) + λ‖w‖₁ + (μ/2)‖w‖₂²

is eq. (7) plus a ridge term.  Subclassing :class:`fsopt.GarroteLogistic` gives the new cvxpy
model (``_build``) and the new smooth part (``gradient``, ``objective``); the NumPy KKT
certificate, the solver registry, the fixed-point driver and ``fsopt bench`` work unchanged.

    FSOPT_PROBLEMS_PATH=examples fsopt bench --quick --problem elastic_net_spiral
"""
import cvxpy as cp
import numpy as np

from fsopt import FixedPointDriver, GarroteLogistic
from fsopt.logo import LogoFixedPoint
from fsopt.logo.margins import expected_margins


class ElasticNetGarrote(GarroteLogistic):
    """Eq. (7) of LOGO with an added (μ/2)‖w‖₂² (still an exponential-cone program)."""

    name = "garrote_elastic_net"

    def __init__(self, lam=1.0, mu=0.1, Z=None):
        super().__init__(lam=lam, Z=Z)
        self.mu = float(mu)

    def describe(self):
        return f"{self.name} (lam={self.lam:g}, mu={self.mu:g})"

    def _build(self):
        problem, variables = super()._build()
        w = variables["w"]
        ridge = cp.Parameter(nonneg=True, name="mu", value=self.mu)
        self._mu_param = ridge
        return cp.Problem(cp.Minimize(problem.objective.expr + 0.5 * ridge * cp.sum_squares(w))), variables

    def _set_parameters(self):
        super()._set_parameters()
        self._mu_param.value = self.mu

    def gradient(self, w):
        return super().gradient(w) + self.mu * w

    def objective(self, solution):
        w = solution["w"]
        return super().objective(solution) + 0.5 * self.mu * float(w @ w)


def fit(X, y, sigma=2.0, lam=1.0, mu=0.1, solver="CLARABEL", theta=0.01, max_iter=50):
    """LOGO's fixed point (Alg. 1) with the elastic-net subproblem; returns the DriverResult."""
    method = LogoFixedPoint(X, y, sigma, ElasticNetGarrote(lam, mu), solver)
    return FixedPointDriver(theta=theta, max_iter=max_iter, prune_below=1e-8).run(method)


def bench_subproblems(problem, X, y):
    """``fsopt bench`` hook: the first outer iteration's elastic-net subproblem."""
    Z = expected_margins(X, y, np.ones(X.shape[1]), problem.params.get("sigma", 2.0))
    return {"garrote_elastic_net": ElasticNetGarrote(problem.params.get("lam", 1.0),
                                                     problem.params.get("mu", 0.1), Z=Z)}
