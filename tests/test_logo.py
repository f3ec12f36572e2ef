"""LOGO end to end: the paper's spiral result, solver agreement, fixed-point properties."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier

from fsopt import LOGO, GarroteLogistic, SolverFailed
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.margins import expected_margins


@pytest.mark.parametrize("n_irrelevant", [50, 500, 5000])
def test_spiral_relevant_features_on_top(n_irrelevant):
    """Fig. 3: with sigma=2, lam=1 the two relevant features carry the two largest weights and
    every other weight is below 1% of the largest."""
    X, y = make_spiral(230, n_irrelevant, random_state=0)
    est = LOGO(sigma=2.0, lam=1.0).fit(X, y)
    scores = est.scores_
    assert set(np.argsort(scores)[-2:]) == {0, 1}
    assert scores[2:].max() < 0.01
    assert est.converged_ and est.get_support(indices=True).tolist() == [0, 1]
    assert all(r.certified for h in est.history_ for r in h.records)


@pytest.fixture(scope="module")
def small_spiral():
    return make_spiral(100, 10, random_state=1)


def test_solvers_agree_on_final_weights(small_spiral):
    X, y = small_spiral
    fits = {s: LOGO(solver=s, theta=1e-4).fit(X, y) for s in ["gradient-tight", "CLARABEL", "scs-tight"]}
    ref = fits["gradient-tight"].weights_
    for name, est in fits.items():
        assert est.converged_, name
        assert np.max(np.abs(est.weights_ - ref)) / ref.max() <= 1e-3, name


def test_every_subproblem_objective_agrees_across_solvers(small_spiral):
    """Re-solve each outer iteration's subproblem (same z-bar) with Clarabel and SCS."""
    X, y = small_spiral
    iterates = [np.ones(X.shape[1])]
    LOGO(solver="gradient-tight", prune_below=None,
         callback=lambda it, w: iterates.append(w.copy())).fit(X, y)
    assert len(iterates) > 3
    for w in iterates[:-1]:
        sp = GarroteLogistic(lam=1.0, Z=expected_margins(X, y, w, 2.0))
        records = [sp.solve(s) for s in ["gradient-tight", "CLARABEL", "scs-tight"]]
        f = np.array([r.objective for r in records])
        assert np.ptp(f) <= 1e-6 * abs(f[0]), f
        assert all(r.certified for r in records), [r.certificate for r in records]


def test_different_initial_weights_reach_one_fixed_point_for_large_sigma(small_spiral, rng):
    """Theorem 2: above some sigma*, the fixed point does not depend on w0."""
    X, y = small_spiral
    finals = []
    for _ in range(4):
        w0 = rng.uniform(0.0, 3.0, X.shape[1])
        finals.append(LOGO(sigma=8.0, theta=1e-6, max_iter=200, w0=w0, prune_below=None).fit(X, y).weights_)
    spread = np.max(np.abs(np.array(finals) - finals[0]))
    assert spread <= 1e-3 * finals[0].max()


def test_w0_is_in_the_units_of_weights_so_a_fit_restarts_at_its_answer(small_spiral):
    """``w0=fit.weights_`` starts at the fit's fixed point, whatever X's scale: one iteration, the
    same weights.  (Read in units of X's typical spread, as before, the start of X × 5 was a fifth
    of the fixed point and the refit iterated again.)"""
    X, y = small_spiral
    X = 5.0 * X
    first = LOGO(theta=1e-6, max_iter=200, prune_below=None).fit(X, y)
    again = LOGO(theta=1e-4, w0=first.weights_, prune_below=None).fit(X, y)
    assert first.converged_ and again.converged_ and again.n_iter_ == 1
    assert np.max(np.abs(again.weights_ - first.weights_)) <= 1e-5 * first.weights_.max()


def test_infinite_sigma_converges_in_one_step(small_spiral):
    X, y = small_spiral
    est = LOGO(sigma=np.inf, theta=1e-8, prune_below=None).fit(X, y)
    assert est.n_iter_ == 2 and est.history_[1].change < 1e-8  # second pass only confirms


def test_history_records_solver_phases(small_spiral):
    X, y = small_spiral
    est = LOGO().fit(X, y)
    h = est.history_[0]
    assert h.records[0].solver == "LBFGSB" and h.records[0].certified
    assert h.statistics_time > 0 and 2 <= h.n_active <= X.shape[1]  # active after pruning
    assert est.n_iter_ == len(est.history_)


def test_callback_can_stop_the_run(small_spiral):
    X, y = small_spiral
    est = LOGO(callback=lambda it, w: it.iteration >= 2).fit(X, y)
    assert est.n_iter_ == 2 and not est.converged_


def test_multiclass_margin_selects_the_informative_feature(rng):
    n = 90
    y = np.repeat([0, 1, 2], n // 3)
    X = rng.standard_normal((n, 6))
    X[:, 3] += 3.0 * y  # only feature 3 separates the three classes
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    scores = LOGO().fit(X, y).scores_
    assert scores[3] == 1.0 and np.delete(scores, 3).max() < 1 / 3, scores  # no pruning: 0.253


def test_scikit_learn_pipeline():
    X, y = make_spiral(230, 10, random_state=0)
    pipe = make_pipeline(LOGO(), KNeighborsClassifier(3)).fit(X, y)
    assert pipe[0].transform(X).shape == (X.shape[0], 2)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    with_selection = cross_val_score(pipe, X, y, cv=cv).mean()
    without = cross_val_score(KNeighborsClassifier(3), X, y, cv=cv).mean()
    assert with_selection > 0.9 and with_selection > without + 0.1
    assert clone(LOGO(sigma=3.0)).get_params()["sigma"] == 3.0


GOOD_X = np.random.default_rng(0).standard_normal((12, 3))
GOOD_Y = np.array([0, 1] * 6)


@pytest.mark.parametrize("X, y, params, error, match", [
    (np.where(np.eye(12, 3) == 1, np.nan, GOOD_X), GOOD_Y, {}, ValueError, "NaN or infinity at row 0"),
    (np.where(np.eye(12, 3) == 1, np.inf, GOOD_X), GOOD_Y, {}, ValueError, "NaN or infinity"),
    (GOOD_X, np.zeros(12), {}, ValueError, "1 class"),
    (GOOD_X, np.array([0] * 11 + [1]), {}, ValueError, "class 1 has 1 sample"),
    (GOOD_X, GOOD_Y[:10], {}, ValueError, r"inconsistent numbers of samples: \[12, 10\]"),
    (np.array([["a", "b"], ["c", "d"]] * 6), GOOD_Y, {}, TypeError, "numeric.*row 0, column 0"),
    (GOOD_X, GOOD_Y, {"sigma": 0.0}, ValueError, "'sigma' parameter"),
    (GOOD_X, GOOD_Y, {"sigma": -1.0}, ValueError, "'sigma' parameter"),
    (GOOD_X, GOOD_Y, {"lam": -0.5}, ValueError, "'lam' parameter"),
    (GOOD_X, GOOD_Y, {"solver": "NOPE"}, ValueError, "unknown solver 'NOPE'; installed: .*CLARABEL"),
    (GOOD_X, GOOD_Y, {"solver": "MOSEK"}, ValueError, "MOSEK.*not available.*installed: .*CLARABEL"),
    (GOOD_X, GOOD_Y, {"solver": "HIGHS"}, ValueError, "cannot solve garrote_logistic.*CLARABEL"),
    (GOOD_X, GOOD_Y, {"w0": [1.0, -1.0, 1.0]}, ValueError, "w0 must be"),
    (GOOD_X + 1j, GOOD_Y, {}, ValueError, "Complex data not supported"),
    (GOOD_X, None, {}, ValueError, "requires y to be passed"),
    (GOOD_X, GOOD_Y + 0.25 * np.arange(12), {}, ValueError, "Unknown label type: continuous"),
    (np.array([[{"a": 1}] * 3] * 12, dtype=object), GOOD_Y, {}, TypeError, "numeric.*row 0, column 0"),
])
def test_bad_input_is_rejected_before_any_work(X, y, params, error, match):
    est = LOGO(**params)
    with pytest.raises(error, match=match):
        est.fit(X, y)
    assert not hasattr(est, "weights_")


def test_native_lbfgsb_fit_matches_the_gradient_reference(small_spiral):
    X, y = small_spiral
    ref = LOGO(solver="gradient-tight", theta=1e-4).fit(X, y).weights_
    fast = LOGO(solver="LBFGSB", theta=1e-4).fit(X, y).weights_
    assert np.max(np.abs(fast - ref)) / ref.max() <= 1e-3


def test_too_large_lambda_prunes_everything_and_says_so(small_spiral):
    X, y = small_spiral
    with pytest.warns(UserWarning, match="every weight is zero"):
        est = LOGO(lam=1e4).fit(X, y)
    assert est.converged_ and not est.get_support().any() and np.all(est.weights_ == 0)


def test_theta_is_relative_to_the_size_of_w(small_spiral):
    """theta_t = ||w_t - w_{t-1}|| / ||w_t||: the same run at any scale of the weights."""
    X, y = small_spiral
    iterates = [np.ones(X.shape[1])]
    est = LOGO(theta=1e-6, max_iter=200, prune_below=None,
               callback=lambda it, w: iterates.append(w.copy())).fit(X, y)
    expected = [np.linalg.norm(b - a) / np.linalg.norm(b) for a, b in zip(iterates, iterates[1:])]
    assert np.allclose([h.change for h in est.history_], expected, rtol=1e-12)
    assert est.converged_ and est.history_[-1].change < 1e-6  # a tight theta is reachable


def test_max_iter_reached_raises_convergence_warning(small_spiral):
    X, y = small_spiral
    with pytest.warns(ConvergenceWarning, match=r"LOGO: .*max_iter=2 .*theta_t = .*theta = 1e-06"):
        est = LOGO(theta=1e-6, max_iter=2, prune_below=1e-8).fit(X, y)
    assert est.n_outer_iter_ == 2 and not est.converged_ and est.outcome_ == "max_iter"
    # max_iter counts outer iterations: the first (over all J) and one working-set round, which
    # the check over all features (or round_iter = 10 iterations) closes
    h = est.history_
    assert not h[0].working_set and all(r.working_set for r in h[1:]) and 2 <= len(h) <= 11
    assert est.certificate_.failed == ["fixed point"]
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):  # without elimination: 2 iterations
        assert LOGO(theta=1e-6, max_iter=2, prune_below=None).fit(X, y).n_iter_ == 2


def test_check_against_gradient_records_agreement(small_spiral):
    X, y = small_spiral
    est = LOGO(check_against="gradient").fit(X, y)
    records = [r for h in est.history_ for r in h.records]
    assert all(r.solver == "LBFGSB" for r in records)
    assert max(r.certificate["gradient_objective_gap"] for r in records) <= 1e-6
    assert max(r.certificate["gradient_weight_diff"] for r in records) <= 1e-3


def test_check_against_a_sloppy_reference_fails(small_spiral, tmp_path, monkeypatch):
    """Planted disagreement: a gradient path stopped at KKT residual 0.1 is not the optimum (the
    certificate tolerance is loosened here so that it is accepted and the cross-check is what fails)."""
    (tmp_path / "gradient-sloppy.toml").write_text('backend = "GRADIENT"\n[options]\ntol = 0.1\n')
    monkeypatch.setenv("FSOPT_SOLVERS_PATH", str(tmp_path))
    monkeypatch.setattr(GarroteLogistic, "certificate_tol", 1.0)
    X, y = small_spiral
    with pytest.raises(SolverFailed, match="disagrees with gradient-sloppy: relative objective gap"):
        LOGO(check_against="gradient-sloppy").fit(X, y)
