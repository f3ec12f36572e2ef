"""``IRelief``: the scikit-learn face of the plugin's method."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from fsopt import FixedPointDriver
from fsopt.core.scaling import unit_scale

from .method import IReliefFixedPoint


class IRelief(SelectorMixin, BaseEstimator):
    """Iterative RELIEF (Sun 2007) on fsopt's driver.

    Parameters
    ----------
    sigma : kernel width of exp(−d/σ), in units of X's typical spread (as ``fsopt.LOGO``).
    n_features_to_select : features kept by ``get_support`` (the rounding); None: weight/max > 0.01.
    solver : backend or profile for the update (R); "UNITBALL" solves it in closed form.
    theta, max_iter : stop when ‖w⁽ᵗ⁾ − w⁽ᵗ⁻¹⁾‖₂/‖w⁽ᵗ⁾‖₂ < theta, or after max_iter iterations.

    Examples
    --------
    >>> from fsopt.datasets.spiral import make_spiral
    >>> X, y = make_spiral(100, 8, random_state=0)
    >>> sorted(IRelief(n_features_to_select=2).fit(X, y).selection_.features.tolist())
    [0, 1]
    """

    _parameter_constraints = {
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "n_features_to_select": [Interval(Integral, 1, None, closed="left"), None],
        "solver": [str],
        "theta": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, sigma=2.0, n_features_to_select=None, solver="UNITBALL", theta=0.01, max_iter=50):
        self.sigma = sigma
        self.n_features_to_select = n_features_to_select
        self.solver = solver
        self.theta = theta
        self.max_iter = max_iter

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=float)
        if self.n_features_to_select is not None and self.n_features_to_select > X.shape[1]:
            raise ValueError(f"n_features_to_select={self.n_features_to_select} exceeds the "
                             f"{X.shape[1]} features of X")
        method = IReliefFixedPoint(X, y, self.sigma * unit_scale(X), self.solver,
                                   self.n_features_to_select)
        result = FixedPointDriver(theta=self.theta, max_iter=self.max_iter, desc="I-RELIEF").run(method)
        self.weights_ = result.iterate
        self.selection_ = result.rounding
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "weights_")
        if self.n_features_to_select is None:
            top = self.weights_.max()
            return self.weights_ > 0.01 * top if top > 0 else np.zeros(self.weights_.size, bool)
        mask = np.zeros(self.weights_.size, dtype=bool)
        mask[self.selection_.features] = True
        return mask
