"""LOGO's safe elimination: the same answer with and without it, and a final check that catches
an eliminated feature the fixed point needs."""
import tracemalloc

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

import fsopt.core.blocks
import fsopt.logo.method as method_module
from fsopt import LOGO
from fsopt.datasets import load_dataset, standardize
from fsopt.datasets.spiral import make_spiral
from fsopt.logo import GarroteLogistic, LogoFixedPoint
from fsopt.logo.checks import elimination_agreement


def assert_same_answer(X, y, **params):
    """Fit with and without elimination: same support, weights within the stopping tolerance θ
    (the working set takes another path to the fixed point: two runs stopped by θ_t < θ differ by
    about θ; measured 3.0e-3 on the 1-turn spiral at θ = 0.01)."""
    out = elimination_agreement(X, y, **params)
    assert out["converged"] and out["same_support"], out
    assert out["weight_diff"] <= max(1e-3, params.get("theta", 0.01)), out
    return out


@pytest.mark.parametrize("turns", [1.0, 1.5])
def test_spiral_answer_does_not_depend_on_elimination(turns):
    X, y = make_spiral(230, 2000, turns=turns, random_state=0)
    out = assert_same_answer(X, y, max_iter=100)
    assert out["support"].tolist() == [0, 1] and out["dropped"] > 0  # elimination did happen


def test_tight_spiral_answer_does_not_depend_on_elimination():
    """1.75 turns converges at lam = 2 (not at lam = 1, below): the same fixed point with and
    without elimination, both stopped at theta = 1e-3 (two runs stopped by theta can differ by
    about theta; measured: 4.5e-6 apart, 32 iterations each)."""
    X, y = make_spiral(230, 2000, turns=1.75, random_state=0)
    out = assert_same_answer(X, y, lam=2.0, theta=1e-3, max_iter=100)
    assert out["support"].tolist() == [0, 1] and out["dropped"] > 0  # measured: 17 its vs 44


def test_iterates_do_not_depend_on_elimination_on_an_oscillating_spiral():
    """1.75 turns at sigma = 2 oscillates with and without elimination (measured: theta_t ~ 1.3
    after 40 iterations); every outer iteration still solves the full-J subproblem, so the
    iterates agree while features leave and re-enter."""
    X, y = make_spiral(230, 2000, turns=1.75, random_state=0)
    out = elimination_agreement(X, y, theta=0.0, max_iter=5, working_set=False)
    assert out["same_support"] and out["weight_diff"] <= 1e-3, out
    assert out["dropped"] > 0 and out["reentered"] > 0, out


def test_colon_answer_does_not_depend_on_elimination(data_dir):
    """A real microarray set (62 x 2000), sigma = 5 as in the paper, on 3 training folds."""
    X, y = load_dataset("colon", data_dir=data_dir)
    for train, _ in StratifiedKFold(3, shuffle=True, random_state=0).split(X, y):
        assert_same_answer(standardize(X[train]), y[train], sigma=5.0, max_iter=100)


def test_a_needed_feature_comes_back():
    """Planted fault: the relevant feature 0 eliminated at the fixed point.  The check inside the
    solve brings it back (with the features its absence makes necessary); with that check
    disabled (a bound that 'proves' everything), the check over all features names it."""
    X, y = make_spiral(100, 50, random_state=1)
    w = LOGO(prune_below=None, theta=1e-6).fit(X, y).weights_
    active = w > 0
    active[0] = False
    planted = np.where(active, w, 0.0)

    def step(method):
        method.update(method.statistics(w, np.ones_like(active)), w, np.ones_like(active))
        return method.update(method.statistics(planted, active), planted, active)

    method = LogoFixedPoint(X, y, 2.0, GarroteLogistic(1.0), "LBFGSB", working_set=False)
    out = step(method)
    assert 0 in out.reentered and out.iterate[0] > 0 and not active[out.reentered].any()
    blind = LogoFixedPoint(X, y, 2.0, GarroteLogistic(1.0), "LBFGSB", working_set=False)
    blind._lower_bound = lambda features: np.full(features.size, np.inf)
    out = step(blind)
    assert out.reentered.size == 0 and out.iterate[0] == 0
    back = blind.kkt_violations(out.iterate, active)
    assert 0 in back and not active[back].any()


def test_history_reports_dropped_and_reentered():
    """The counts against the iterates themselves (seen by a callback) on an instance where the
    check over all features brings one back (1.75 turns at lam = 2; measured: 1 of 502, after
    iteration 10): the active count follows the counts; a feature dropped after iteration t is
    below prune_below in iterate t; with the working set only that check brings features back,
    each one 0 in iterates t − 1 and t and positive in iterate t + 1 (it enters the next solve)."""
    X, y = make_spiral(230, 500, turns=1.75, random_state=0)
    iterates = [np.ones(X.shape[1])]
    est = LOGO(lam=2.0, prune_below=1e-8, callback=lambda record, w: iterates.append(np.array(w))).fit(X, y)
    dropped = sum(h.n_dropped for h in est.history_)
    back = sum(h.n_reentered for h in est.history_)
    assert dropped > 0 and back > 0 and dropped - back == X.shape[1] - est.history_[-1].n_active
    assert est.converged_ and est.history_[-1].full_check  # converged after the full check
    n_active = X.shape[1]
    for t, h in enumerate(est.history_, start=1):
        n_active += h.n_reentered - h.n_dropped
        assert h.n_active == n_active, t
        assert h.n_dropped <= np.count_nonzero(iterates[t] < est.prune_below), t
        if h.n_reentered:
            assert h.full_check and t < len(est.history_), t
            entered = (iterates[t - 1] == 0) & (iterates[t] == 0) & (iterates[t + 1] > 0)
            assert h.n_reentered <= np.count_nonzero(entered), (t, h.n_reentered)


@pytest.mark.parametrize("turns", [1.0, 1.5])
def test_bounded_memory_gives_the_same_answer(turns, monkeypatch):
    """z̄ held for at most 60 columns (the statistics then stream, the first iteration ranks the
    columns at w = 0, the checks keep only the best columns): the same fixed point as holding
    every column, and no garrote solve ever sees more columns than the budget allows."""
    X, y = make_spiral(230, 1000, turns=turns, random_state=0)
    ref = LOGO(max_iter=100, prune_below=1e-8).fit(X, y)  # the fast path ("auto" from J = 4,096)
    monkeypatch.setattr(method_module, "_HELD_ELEMENTS", X.shape[0] * 60)
    monkeypatch.setattr(method_module, "_MIN_KEPT", 16)
    widths = []
    set_margins = GarroteLogistic.set_margins
    monkeypatch.setattr(GarroteLogistic, "set_margins",
                        lambda self, Z, columns=None: widths.append(Z.shape[1])
                        or set_margins(self, Z, columns=columns))
    support = []
    est = LOGO(max_iter=100, prune_below=1e-8, callback=lambda it, w: support.append(np.count_nonzero(w))).fit(X, y)
    assert est.converged_ and est.n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(est.get_support(), ref.get_support())
    assert np.abs(est.weights_ - ref.weights_).max() <= 1e-4 * ref.weights_.max()
    assert max(widths) <= 2 * max(support) + 16, (max(widths), max(support))  # at most doubled


def test_store_fit_streams_within_the_budget(tmp_path, monkeypatch):
    """LOGO on an HDF5 store (N = 200, J = 64,000) with z̄ held for at most 100 columns and
    streamed 300 at a time: the NumPy iterates, and peak traced memory a fraction of one N×J
    float64 array (z̄ of every column would be one such array, X read into memory another; what
    remains is a dozen vectors of length J, the working set and a few blocks)."""
    h5py = pytest.importorskip("h5py")
    N, J = 200, 64_000
    X, y = make_spiral(N // 2, J - 2, random_state=1)
    ref = LOGO(theta=0.0, max_iter=2, prune_below=1e-8).fit(X, y).weights_  # with its working set, as the store
    store = h5py.File(tmp_path / "X.h5", "w").create_dataset("X", data=X, chunks=(N, 256))
    monkeypatch.setattr(method_module, "_HELD_ELEMENTS", N * 100)
    monkeypatch.setattr(method_module, "_CHUNK_ELEMENTS", N * 300)
    monkeypatch.setattr(fsopt.core.blocks, "_BLOCK_BYTES", 8 * N * 256)
    tracemalloc.start()
    w = LOGO(theta=0.0, max_iter=2).fit(store, y).weights_
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_allclose(w, ref, rtol=0, atol=1e-3 * ref.max())  # the certificate's tolerance
    assert peak < 0.2 * X.nbytes, f"{peak / X.nbytes:.2f} of N x J x 8 bytes"
