"""SciPy's L-BFGS-B routine driven directly gives minimize(method="L-BFGS-B")'s iterates bit for bit."""
import numpy as np
import pytest
from scipy.optimize import Bounds, minimize

import fsopt.core.lbfgsb_routine as routine
from fsopt.core.parts import LogisticMarginLoss, NonnegL1


def logistic_l1(rng, N=80, J=40):
    loss, penalty = LogisticMarginLoss(rng.standard_normal((N, J)) * 0.3), NonnegL1(0.5)

    def fun(w):
        f, g = loss.value_and_gradient(w)
        return f + penalty.value(w), g + penalty.gradient(w)
    return fun, J


def shifted_quadratic(rng, J=30):
    """½‖M(x − c)‖² + a smooth bump, whose minimum leaves some coordinates on each bound."""
    M, c = rng.standard_normal((J + 5, J)), rng.standard_normal(J) * 3

    def fun(x):
        r = M @ (x - c)
        return 0.5 * r @ r + np.sum(np.cos(x)), M.T @ r - np.sin(x)
    return fun, J


@pytest.mark.skipif(routine.DIRECT is None, reason="this SciPy runs minimize itself (not a checked version)")
@pytest.mark.parametrize("case", ["nonnegative", "box", "upper only", "free", "stopped by max_iter"])
def test_the_direct_loop_gives_minimizes_iterates_bit_for_bit(rng, case):
    fun, J = (shifted_quadratic if case in ("box", "upper only", "free") else logistic_l1)(rng)
    lower, upper = {"box": (-1.0, np.full(J, 2.0)), "upper only": (-np.inf, 1.5),
                    "free": (-np.inf, np.inf)}.get(case, (0.0, np.inf))
    max_iter = 4 if case == "stopped by max_iter" else 15000
    x0 = rng.uniform(-3, 3, J)
    ours = routine.minimize_on_box(fun, x0, lower, upper, memory=20, gtol=1e-8, ftol=1e-15,
                                   max_iter=max_iter)
    scipys = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=Bounds(lower, upper),
                      options={"maxcor": 20, "gtol": 1e-8, "ftol": 1e-15, "maxiter": max_iter})
    np.testing.assert_array_equal(ours.x, scipys.x)
    assert (ours.nit, ours.nfev, ours.fun, ours.success) == (scipys.nit, scipys.nfev, scipys.fun, scipys.success)
    if case == "stopped by max_iter":
        assert ours.nit == 4 and not ours.success
    else:
        assert ours.nit > 3 and ours.success


def test_another_scipy_runs_minimize_with_the_same_result(rng, monkeypatch):
    fun, J = logistic_l1(rng)
    x0 = rng.uniform(0, 1, J)
    direct = routine.minimize_on_box(fun, x0, 0.0, np.inf, memory=20, gtol=1e-8, ftol=1e-15)
    monkeypatch.setattr(routine, "DIRECT", None)
    fallback = routine.minimize_on_box(fun, x0, 0.0, np.inf, memory=20, gtol=1e-8, ftol=1e-15)
    np.testing.assert_array_equal(direct.x, fallback.x)
    assert direct.nit == fallback.nit
