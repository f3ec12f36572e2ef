"""LOGO's safe elimination: the same answer with and without it, and a final check that catches
an eliminated feature the fixed point needs."""
import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from fsopt import LOGO
from fsopt.datasets import load_dataset, standardize
from fsopt.datasets.spiral import make_spiral
from fsopt.logo import GarroteLogistic, LogoFixedPoint


def assert_same_answer(X, y, **params):
    """Fit with and without elimination: same support, weights within the certificate tolerance."""
    with_ = LOGO(prune_below=1e-8, **params).fit(X, y)
    without = LOGO(prune_below=None, **params).fit(X, y)
    assert with_.converged_ and without.converged_
    assert np.array_equal(with_.weights_ > 0, without.weights_ > 0)
    assert np.max(np.abs(with_.weights_ - without.weights_)) <= 1e-3 * without.weights_.max()
    assert np.array_equal(with_.get_support(), without.get_support())
    return with_, without


@pytest.mark.parametrize("turns", [1.0, 1.5, 1.75])
def test_spiral_answer_does_not_depend_on_elimination(turns):
    X, y = make_spiral(230, 2000, turns=turns, random_state=0)
    with_, _ = assert_same_answer(X, y, max_iter=100)
    assert with_.get_support(indices=True).tolist() == [0, 1]
    assert sum(h.n_dropped for h in with_.history_) > 0  # elimination did happen
    assert with_.history_[-1].full_check  # convergence was declared after the full check


def test_colon_answer_does_not_depend_on_elimination(data_dir):
    """A real microarray set (62 x 2000), sigma = 5 as in the paper, on 3 training folds."""
    X, y = load_dataset("colon", data_dir=data_dir)
    for train, _ in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
        assert_same_answer(standardize(X[train]), y[train], sigma=5.0, max_iter=100)


def test_full_check_brings_back_a_needed_feature():
    """Planted fault: the relevant feature 0 marked eliminated at the fixed point; the check over
    all features names it (and only features whose gradient at 0 is negative)."""
    X, y = make_spiral(100, 50, random_state=1)
    est = LOGO(prune_below=None, theta=1e-6).fit(X, y)
    method = LogoFixedPoint(X, y, 2.0, GarroteLogistic(1.0), "LBFGSB")
    active = np.ones(X.shape[1], dtype=bool)
    w = est.weights_
    method.update(method.statistics(w, active), w, active)  # the subproblem at the fixed point
    active[0] = False
    planted = w.copy()
    planted[0] = 0.0
    assert method.kkt_violations(planted, active).tolist() == [0]
    active[:] = w > 0  # every zero-weight feature eliminated: none would enter
    assert method.kkt_violations(w, active).size == 0


def test_history_reports_dropped_and_reentered():
    X, y = make_spiral(230, 500, random_state=0)
    est = LOGO().fit(X, y)
    dropped = sum(h.n_dropped for h in est.history_)
    back = sum(h.n_reentered for h in est.history_)
    assert dropped > 0 and dropped - back == X.shape[1] - est.history_[-1].n_active
    assert all(h.n_reentered >= 0 for h in est.history_)
