"""LOGO's fast path on data of other shapes than spirals (issue 42): it returns what the plain
iteration returns, and its counted work is bounded by the plain iteration's plus its budget; a
fit that ends at max_iter says what it saw and what to try."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier

from fsopt import LOGO, FixedPointDriver, FixedPointMethod, Step
from fsopt.core.driver import Outcome
from fsopt.logo.working_set import FAST_BUDGET
from fsopt.datasets.shapes import (FAMILIES, HELD_OUT, make_checkerboard, make_clusters, make_correlated_copies,
                                   make_interaction, make_minority, make_noisy_linear,
                                   make_shells, make_sine_boundary)
from fsopt.datasets.spiral import make_spiral


def fits(X, y, **params):
    """The fast path (``prune_below=1e-8``: the default's from J = 4,096 features on; most instances
    here are smaller, to keep the suite fast) and the plain iteration (no working set, no
    elimination); outcomes are asserted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        default = LOGO(prune_below=1e-8, **params).fit(X, y)
        plain = LOGO(working_set=False, prune_below=None, **params).fit(X, y)
    return default, plain


def work(est):
    return sum(h.work for h in est.history_)


# each case and why its working set hands over: a crowded check or its budget (the spiral's pays)
CASES = [("interaction", 0, "crowded"), ("minority", 2, "crowded"), ("correlated copies", 2, "budget"),
         ("shells", 0, "crowded"), ("spiral", 0, None)]


def instance(family, seed, J=600):
    """A small instance on the fast path (N²·J ≥ 2.5e7): a family at N = 240, or a 1.5-turn spiral."""
    if family == "spiral":
        return make_spiral(150, J - 2, turns=1.5, random_state=seed)
    X, y = FAMILIES[family](240, 0, random_state=seed)
    return FAMILIES[family](240, J - X.shape[1], random_state=seed)


@pytest.mark.parametrize("family, seed, reason", CASES)
def test_the_default_returns_the_plain_iteration_at_most_its_budget_dearer(family, seed, reason):
    """The default returns what the plain iteration returns: where that converges, the same support
    and weights within 1e-3 of max w (θ = 1e-4), certified; where it stops at max_iter, so does the
    default.  Its counted work (passes over X, check products, columns solved, each iteration's
    own) is at most the plain iteration's plus the working set's allowance (2.5 × fast_budget first
    iterations).  A fit that hands over (at a crowded check or past its budget: on these families
    the working set does not pay) gives the plain iteration's iterates from there, the first one
    reused (no pass, no solve), and its answer bit for bit; ``n_iter_`` counts both runs."""
    X, y = instance(family, seed)
    default, plain = fits(X, y, theta=1e-4, max_iter=60)
    assert default.prune_below_ == 1e-8  # the fast path
    assert default.outcome_ == plain.outcome_
    if plain.outcome_ == "converged":
        assert default.certificate_.holds
        np.testing.assert_array_equal(default.get_support(), plain.get_support())
        assert np.abs(default.weights_ - plain.weights_).max() <= 1e-3 * plain.weights_.max()
    unit = default.history_[0].work  # an iteration over all features
    assert work(default) <= work(plain) + 2.5 * FAST_BUDGET * unit
    handed = [h for h in default.history_ if h.restarted]
    assert [h.restart_reason for h in handed] == ([reason] if reason else [])
    if handed:
        after = default.history_[handed[0].iteration:]
        assert after[0].reused and after[0].work == after[0].data_passes == 0 and not after[0].records
        assert [h.change for h in after] == [h.change for h in plain.history_]
        np.testing.assert_array_equal(default.weights_, plain.weights_)
        assert default.n_iter_ == handed[0].iteration + plain.n_iter_
    else:  # the working set paid
        assert work(default) < 0.5 * work(plain)


def test_without_the_reused_first_iteration_the_hand_over_costs_one_more(monkeypatch):
    """Planted: the plain run computes its first iteration again (no replay): the answer is the
    same, the work one iteration over all features more, so the reuse is what saves it."""
    X, y = instance("correlated copies", 2)
    default, _ = fits(X, y, theta=1e-4, max_iter=60)
    monkeypatch.setattr("fsopt.logo.method.LogoFixedPoint.replay", lambda self, step: False)
    again, _ = fits(X, y, theta=1e-4, max_iter=60)
    np.testing.assert_array_equal(default.weights_, again.weights_)
    assert any(h.reused for h in default.history_) and not any(h.reused for h in again.history_)
    assert work(again) - work(default) == pytest.approx(default.history_[0].work, rel=0.05)


def test_the_plain_run_after_a_hand_over_holds_few_columns_and_a_dropped_gradient_is_caught(monkeypatch):
    """After the hand-over the plain run holds z̄ for the features its last updates weighted (a
    fraction of J) and gives LBFGSB the others' gradients as products: its iterates are the plain
    iteration's bit for bit (above).  Planted: the held margins report a zero gradient for every
    column they do not hold (exact, and as the estimate LBFGSB's working set reads), so no feature
    outside them can enter: the fit's certificate over all J (its own products) fails, and the answer
    leaves the plain iteration's."""
    from fsopt.logo.held_margins import HeldMargins

    X, y = instance("interaction", 0, J=4200)  # held margins from J = 4,096 (_HELD_FROM)
    default, plain = fits(X, y, theta=1e-4, max_iter=60)
    np.testing.assert_array_equal(default.weights_, plain.weights_)
    handed = next(h.iteration for h in default.history_ if h.restarted)
    assert max(h.n_active for h in default.history_[handed + 1:]) < X.shape[1] // 2
    gradient, estimate = HeldMargins.gradient, HeldMargins.gradient_estimate

    def not_held(self, g):
        out = np.ones(g.size, dtype=bool)
        out[self.held] = False
        return out

    def held_only(self, w):
        g = gradient(self, w)
        g[not_held(self, g)] = 0.0
        return g

    def held_only_estimate(self, w):
        g, err = estimate(self, w)
        out = not_held(self, g)
        g[out], err[out] = 0.0, 0.0
        return g, err

    monkeypatch.setattr(HeldMargins, "gradient", held_only)
    monkeypatch.setattr(HeldMargins, "gradient_estimate", held_only_estimate)
    broken, _ = fits(X, y, theta=1e-4, max_iter=60)
    assert not broken.certificate_.holds or broken.outcome_ != "converged"
    assert np.abs(broken.weights_ - plain.weights_).max() > 1e-3 * plain.weights_.max()


def _bookkeeping_after_hand_over(monkeypatch):
    """Fit interaction seed 0 (J = 600: a crowded check hands over, below held margins' J) counting
    the screening's epochs (``_new_epoch``: the derivatives, then gradients and ‖z̄_j‖ of every
    column) that the plain run's updates open; returns (default, plain, that count)."""
    from fsopt.logo.method import LogoFixedPoint

    seen = {"handed": False, "updating": False, "epochs": 0}
    hand_over, update, new_epoch = LogoFixedPoint.hand_over, LogoFixedPoint.update, LogoFixedPoint._new_epoch

    def handing_over(self):
        seen["handed"] = True
        return hand_over(self)

    def updating(self, *args):
        seen["updating"] = True
        try:
            return update(self, *args)
        finally:
            seen["updating"] = False

    def counting(self, A, m):
        seen["epochs"] += seen["handed"] and seen["updating"]
        return new_epoch(self, A, m)

    monkeypatch.setattr(LogoFixedPoint, "hand_over", handing_over)
    monkeypatch.setattr(LogoFixedPoint, "update", updating)
    monkeypatch.setattr(LogoFixedPoint, "_new_epoch", counting)
    default, plain = fits(*instance("interaction", 0), theta=1e-4, max_iter=30)
    monkeypatch.undo()
    assert seen["handed"]
    return default, plain, seen["epochs"]


def test_below_held_margins_the_plain_run_after_a_hand_over_is_the_plain_iterations_own(monkeypatch):
    """Where the plain run after a hand-over cannot hold margins (J below 4,096) and z̄ of every
    column fits in memory, its updates are the plain iteration's own: every column held, no
    screening bookkeeping (5–10 % of an update at J = 2,000), the certificate its last solve's over
    all J, and the answer the plain iteration's bit for bit.  Planted: the bookkeeping left on
    (``screening`` kept through the hand-over): every update of the plain run opens an epoch."""
    from fsopt.logo.method import LogoFixedPoint

    default, plain, epochs = _bookkeeping_after_hand_over(monkeypatch)
    assert epochs == 0
    np.testing.assert_array_equal(default.weights_, plain.weights_)
    assert default.certificate_.holds == plain.certificate_.holds

    def keeping_screening(self):
        self.working_set = False
        return self.holds_some_margins()

    monkeypatch.setattr(LogoFixedPoint, "hand_over", keeping_screening)
    kept, _, epochs = _bookkeeping_after_hand_over(monkeypatch)
    np.testing.assert_array_equal(kept.weights_, plain.weights_)
    assert epochs >= 20  # one per update of the plain run (30 outer iterations, the first reused)


def test_below_300_samples_the_default_skips_the_working_set_and_gives_the_plain_iterations_answer(monkeypatch):
    """Below 300 samples the map has several fixed points more often.  Shells at N = 80 with
    20,000 features: the working set converges by itself to another fixed point than the plain
    iteration's (weights most of max w apart); the default hands over at its first iteration
    ("few samples", the first iteration reused) and gives the plain iteration's weights bit for bit
    in less counted work (held margins).  Planted: the rule off (``WORKING_SET_SAMPLES = 0``), the
    default gives the working set's answer."""
    from fsopt.logo.cli import restart_story

    X, y = make_shells(80, 0, random_state=0)
    X, y = make_shells(80, 20_000 - X.shape[1], random_state=0)
    default = LOGO().fit(X, y)
    plain = LOGO(working_set=False, prune_below=None).fit(X, y)
    working_set = LOGO(prune_below=1e-8).fit(X, y)  # asked for: no rule
    assert default.converged_ and plain.converged_ and working_set.converged_
    assert default.prune_below_ == 1e-8
    assert [(h.iteration, h.restart_reason) for h in default.history_ if h.restarted] == [(1, "few samples")]
    assert default.history_[1].reused and not any(h.working_set for h in default.history_)
    assert "the working set was skipped (fewer than 300 samples" in restart_story(default.history_)
    np.testing.assert_array_equal(default.weights_, plain.weights_)
    assert work(default) < work(plain)
    top = plain.weights_.max()
    assert not any(h.restarted for h in working_set.history_)
    assert np.abs(working_set.weights_ - plain.weights_).max() > 0.5 * top  # another fixed point
    monkeypatch.setattr("fsopt.logo.estimator.WORKING_SET_SAMPLES", 0)
    np.testing.assert_array_equal(LOGO().fit(X, y).weights_, working_set.weights_)


def test_the_working_set_is_skipped_only_below_300_samples_where_the_plain_run_holds_margins():
    """``skips_working_set``: fewer than 300 samples, and a run after a hand-over that holds
    margins (LBFGSB from J = 4,096, X a NumPy array); a conic backend keeps its working set (its
    solves over all J are the cost it saves), and so does a fit with 300 samples or more."""
    import scipy.sparse as sp

    from fsopt.logo import GarroteLogistic, LogoFixedPoint
    from fsopt.logo.estimator import WORKING_SET_SAMPLES, skips_working_set

    def skips(N, J, solver="LBFGSB", kind=np.asarray):
        X, y = make_spiral(N // 2, J - 2, random_state=0)
        return skips_working_set(LogoFixedPoint(kind(X), y, 2.0, GarroteLogistic(), solver))

    assert WORKING_SET_SAMPLES == 300
    assert skips(298, 4096) and not skips(300, 4096) and not skips(298, 4000)
    assert not skips(298, 4096, "CLARABEL") and not skips(298, 4096, kind=sp.csc_matrix)


@pytest.mark.parametrize("kind", ["float32", "sparse", "columns in unlike units"])
def test_after_a_hand_over_the_fit_is_the_plain_iterations_on_x_of_other_kinds(kind):
    """Held margins need a float64 NumPy X for the float32 z̄ (else products) and a NumPy X at all
    (a sparse X's restarted run is the plain iteration itself): bit for bit either way."""
    import scipy.sparse as sp

    X, y = instance("interaction", 0, J=4200)
    if kind == "float32":
        X = X.astype(np.float32)
    elif kind == "sparse":
        X = sp.csc_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    else:
        X = X * np.r_[np.ones(2), np.full(X.shape[1] - 2, 100.0)]
    default, plain = fits(X, y, theta=1e-4, max_iter=30)
    assert any(h.restarted for h in default.history_)
    np.testing.assert_array_equal(default.weights_, plain.weights_)


@pytest.mark.parametrize("family, seed", [("shells", 1), ("minority", 2), ("sine boundary", 1)])
def test_held_margins_give_the_plain_iteration_on_other_shapes_and_seeds(family, seed):
    """Held margins (J ≥ 4,096) against the plain iteration on shapes and seeds no constant was
    chosen on (sine boundary is the held-out family): bit for bit, where the plain iteration
    converges and where it stops at max_iter."""
    make = {**FAMILIES, **HELD_OUT}[family]
    X, y = make(240, 0, random_state=seed)
    X, y = make(240, 4200 - X.shape[1], random_state=seed)
    default, plain = fits(X, y, theta=1e-4, max_iter=30)
    handed = next(i for i, h in enumerate(default.history_) if h.restarted)
    assert min(h.n_active for h in default.history_[handed + 2:]) < X.shape[1]  # z̄ held for some columns
    assert default.outcome_ == plain.outcome_
    np.testing.assert_array_equal(default.weights_, plain.weights_)


def test_a_backend_that_raises_on_held_margins_hands_the_update_to_the_fallbacks(monkeypatch):
    """Planted: every gradient of the held margins raises.  The solve with them fails (named, not
    let out), the update is solved again over the held columns with the fit's fallbacks and the
    features beyond them checked by their products: the fit converges, certified, with the plain
    iteration's support and weights within θ."""
    from fsopt.logo.held_margins import HeldMargins

    def broken(self, w):
        raise RuntimeError("planted: held margins cannot give a gradient")

    X, y = make_sine_boundary(240, 0, random_state=1)
    X, y = make_sine_boundary(240, 4200 - X.shape[1], random_state=1)
    monkeypatch.setattr(HeldMargins, "gradient", broken)
    default, plain = fits(X, y, theta=1e-4, max_iter=30)
    assert any(h.restarted for h in default.history_)
    assert default.outcome_ == plain.outcome_ == "converged" and default.certificate_.holds
    np.testing.assert_array_equal(default.get_support(), plain.get_support())
    assert np.abs(default.weights_ - plain.weights_).max() <= 1e-3 * plain.weights_.max()
    after = default.history_[next(i for i, h in enumerate(default.history_) if h.restarted) + 1:]
    failed = [a for h in after for r in h.records for a in r.attempts]  # each failure named
    assert failed and all(a.solver == "LBFGSB" and not a.certified and "planted" in a.message for a in failed)


class Contraction(FixedPointMethod):
    """x ← q·x + 1 (fixed point 1 / (1 − q)): θ_t shrinks by about q per iteration."""

    def __init__(self, q):
        self.q = q

    def initial_iterate(self):
        return np.zeros(3)

    def statistics(self, iterate, active):
        return None

    def update(self, stats, iterate, active):
        return Step(self.q * iterate + 1.0)


class Flipping(FixedPointMethod):
    """x ← the indicator of the features not in x's support, scaled: a support that flips every
    iteration, θ_t up and down."""

    remedy = "a larger sigma"  # the method's own advice, which the outcome carries

    def initial_iterate(self):
        return np.array([1.0, 0.0, 0.0, 0.0])

    def statistics(self, iterate, active):
        return None

    def update(self, stats, iterate, active):
        new = (iterate == 0).astype(float)
        return Step(new * (1.0 + 0.5 * new.sum() / 4))


def test_a_fit_at_max_iter_names_the_contraction_it_measured_and_what_to_try():
    with pytest.warns(ConvergenceWarning, match="slow linear convergence: theta_t shrinks by a factor 0.89"):
        result = FixedPointDriver(theta=1e-6, max_iter=30).run(Contraction(0.9))
    assert result.outcome == "max_iter" and isinstance(result.outcome, Outcome)
    assert result.outcome.rate == pytest.approx(0.9, abs=0.02)
    assert "acceleration='anderson'" in result.outcome.advice
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        flips = FixedPointDriver(theta=1e-6, max_iter=30, max_period=0).run(Flipping())
    assert "the support oscillates: 4 features" in flips.outcome.seen and "larger sigma" in flips.outcome.advice
    assert "no linear convergence" in flips.outcome.describe()


def test_logo_at_max_iter_says_what_it_saw():
    X, y = make_shells(200, 300, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter: .*contraction"):
        est = LOGO(max_iter=8, prune_below=None, acceleration=None).fit(X, y)
    assert est.outcome_ == "max_iter" and "contraction" in est.outcome_.seen
    assert "acceleration=" in est.outcome_.advice and est.outcome_.rate > 0


@pytest.mark.parametrize("name", [*FAMILIES, *HELD_OUT])
def test_each_family_has_its_geometry_as_parameters_and_is_deterministic(name):
    make = {**FAMILIES, **HELD_OUT}[name]
    X, y = make(120, 30, random_state=3)
    X2, y2 = make(120, 30, random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert set(np.unique(y)) == {-1, 1} and X.shape[0] == 120
    k = X.shape[1] - 30  # the relevant columns come first, standardized
    np.testing.assert_allclose(X[:, :k].std(axis=0), 1.0)
    with pytest.raises(ValueError, match="n_irrelevant"):
        make(120, -1)


def test_the_families_geometry():
    X, y = make_minority(400, 0, minority=0.1, random_state=0)
    assert np.sum(y == 1) == 40
    X, y = make_correlated_copies(300, 0, n_copies=20, correlation=0.9, noise=0.0, random_state=0)
    assert X.shape[1] == 20 and np.corrcoef(X.T)[np.triu_indices(20, 1)].min() > 0.7
    X, y = make_interaction(400, 0, noise=0.0, random_state=0)
    assert all(abs(np.corrcoef(X[:, j], y)[0, 1]) < 0.15 for j in range(2))  # neither alone
    assert np.mean(np.sign(X[:, 0] * X[:, 1]) == y) > 0.9  # both together (X centred after labelling)
    with pytest.raises(ValueError, match="correlation"):
        make_correlated_copies(100, 0, correlation=1.5)
    X, y = make_sine_boundary(400, 0, frequency=2.0, amplitude=0.7, noise=0.0, random_state=0)
    def knn(columns):
        return cross_val_score(KNeighborsClassifier(5), X[:, columns], y, cv=5).mean()

    assert knn([0, 1]) > 0.9 and max(knn([0]), knn([1])) < 0.8  # both features together, not one alone
    with pytest.raises(ValueError, match="frequency"):
        make_sine_boundary(100, 0, frequency=0.0)
    X, y = make_checkerboard(400, 0, n_cells=3, noise=0.0, random_state=0)
    assert knn([0, 1]) > 0.85 and max(knn([0]), knn([1])) < 0.7  # a finer XOR
    with pytest.raises(ValueError, match="n_cells"):
        make_checkerboard(100, 0, n_cells=1)
    X, y = make_clusters(400, 0, n_relevant=5, n_clusters=4, separation=4.0, noise=0.0, random_state=0)
    assert np.sum(y == 1) == 200 and knn(list(range(5))) > 0.9
    with pytest.raises(ValueError, match="separation"):
        make_clusters(100, 0, separation=0.0)


def test_noisy_linear_has_flipped_labels_outliers_and_duplicated_rows():
    from sklearn.linear_model import LogisticRegression

    X, y = make_noisy_linear(200, 50, n_relevant=4, flip=0.1, outliers=0.05, duplicated=0.1, random_state=1)
    assert X.shape == (200, 54)
    assert np.unique(X, axis=0).shape[0] == 180  # 20 rows repeat earlier ones, every column
    radius = np.linalg.norm(X[:, :4], axis=1)
    assert np.sum(radius > 3 * np.median(radius)) >= 5  # the outliers, far out

    def separable(flip):
        X, y = make_noisy_linear(300, 0, n_relevant=4, flip=flip, outliers=0.0, duplicated=0.0, noise=0.0,
                                 random_state=2)
        return LogisticRegression(C=1e6, max_iter=10000).fit(X, y).score(X, y)

    assert separable(0.0) == 1.0 and separable(0.2) < 0.9  # a linear boundary, then flipped labels
    for name in ("flip", "outliers", "duplicated"):
        with pytest.raises(ValueError, match=name):
            make_noisy_linear(100, 0, **{name: 0.5})


@pytest.mark.parametrize("name", [*FAMILIES, *HELD_OUT])
def test_a_problem_file_can_name_each_family_generator(name):
    """Problem files name generators from the registry only; each family, held out or not, is
    there under its full name."""
    from fsopt.core import plugins
    import fsopt.tools.problems  # noqa: F401 - registers fsopt's own generators

    make = {**FAMILIES, **HELD_OUT}[name]
    assert plugins.named(plugins.GENERATORS, f"fsopt.datasets.shapes:{make.__name__}", "test") is make


def test_the_shapes_benchmark_runs_the_families_at_the_geometry_it_is_given(tmp_path, capsys, monkeypatch):
    """``benchmarks/logo_shapes.py --geometry``: each family's generator gets the geometry (three
    interacting features: the instance's relevant columns), the rows name it, and a pair that is not
    key=value is refused before any fit."""
    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))  # it imports its sibling logo_fast_path
    bench = load("logo_shapes")
    made = []
    monkeypatch.setitem(FAMILIES, "interaction", lambda *a, **k: made.append(k) or make_interaction(*a, **k))
    out = tmp_path / "rows.jsonl"
    bench.main(["--J", "300", "--seeds", "1", "--samples", "120", "--families", "interaction", "--real",
                "--geometry", "n_interacting=3", "noise=0.25", "--out", str(out)])
    assert made and all(k["n_interacting"] == 3 and k["noise"] == 0.25 for k in made)
    row = out.read_text().splitlines()
    assert len(row) == 1 and '"instance": "interaction, n_interacting 3, noise 0.25, seed 0"' in row[0]
    capsys.readouterr()
    with pytest.raises(SystemExit, match="key=value"):
        bench.main(["--J", "300", "--families", "interaction", "--real", "--geometry", "n_interacting"])
    with pytest.raises(SystemExit, match="a number for value; got 'noise=high'"):
        bench.main(["--J", "300", "--families", "interaction", "--real", "--geometry", "noise=high"])
    made.clear()
    with pytest.raises(SystemExit, match="--geometry n_interacting: the generator of 'shells' takes none"):
        bench.main(["--J", "300", "--families", "interaction", "shells", "--real", "--geometry", "n_interacting=3"])
    assert not made  # refused before the first family's fit


def test_the_shapes_benchmark_makes_scikit_learns_generators_at_the_j_it_is_given(tmp_path, capsys, monkeypatch):
    """``benchmarks/logo_shapes.py --sklearn``: each of scikit-learn's generators gives N samples,
    J features (its own, standardized, then N(0, 1) columns), two classes, the same instance for the
    same seed and another for another seed; a run writes a row per instance."""
    import argparse

    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))
    bench = load("logo_shapes")
    args = argparse.Namespace(J=[300], sklearn=bench.SKLEARN, seeds=2, first_seed=0, samples=120)
    made = list(bench.sklearn_shapes(args))
    assert [label for *_, label, _ in made][:2] == ["sklearn classification, seed 0", "sklearn classification, seed 1"]
    assert len(made) == 2 * len(bench.SKLEARN)
    for X, y, label, lam in made:
        assert X.shape == (120, 300) and np.isfinite(X).all() and len(np.unique(y)) == 2 and lam == 1.0, label
    again = list(bench.sklearn_shapes(args))
    for (X, y, *_), (X2, y2, *_) in zip(made, again):
        np.testing.assert_array_equal(X, X2)
        np.testing.assert_array_equal(y, y2)
    assert not np.array_equal(made[0][0], made[1][0])  # seeds 0 and 1
    moons = next(X for X, _, label, _ in made if label.startswith("sklearn moons"))
    np.testing.assert_allclose(moons[:, :2].std(axis=0), 1.0)  # its two features standardized
    out = tmp_path / "rows.jsonl"
    bench.main(["--J", "300", "--seeds", "1", "--samples", "120", "--families", "--real", "--sklearn", "moons",
                "--out", str(out)])
    assert '"instance": "sklearn moons, seed 0"' in out.read_text()
    capsys.readouterr()


def test_the_shapes_benchmark_draws_each_familys_geometry_within_its_ranges(monkeypatch):
    """``benchmarks/logo_shapes.py --random-geometry K``: K geometries per family, each keyword drawn
    within its range of ``RANGES`` (integers where the range is), the same draws for the same
    family and first seed, other draws for another family or seed, ``--geometry`` keys fixed over
    them; every family's generator takes its draws, and the label names them."""
    import argparse

    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))
    bench = load("logo_shapes")
    assert set(bench.RANGES) == {*FAMILIES, *HELD_OUT}

    def draws(family, first_seed=0, **fixed):
        return bench.geometries(family, argparse.Namespace(random_geometry=4, first_seed=first_seed, seeds=1,
                                                           geometry=fixed))

    for family, ranges in bench.RANGES.items():
        drawn = draws(family)
        assert [seed for seed, _ in drawn] == [0, 1, 2, 3] and drawn == draws(family)
        for _, params in drawn:
            assert set(params) == set(ranges)
            for key, (low, high) in ranges.items():
                assert low <= params[key] <= high, (family, key)
                assert isinstance(params[key], int) == isinstance(low, int), (family, key)
        assert len({tuple(p.values()) for _, p in drawn}) > 1
        assert draws(family, first_seed=4) != drawn
    assert draws("interaction") != draws("minority")
    assert all(p["noise"] == 0.25 for _, p in draws("shells", noise=0.25))
    args = argparse.Namespace(J=[300], families=list(bench.RANGES), random_geometry=2, first_seed=0, seeds=1,
                              geometry={}, samples=120, noise_law="normal")
    made = list(bench.shapes(args))
    assert len(made) == 2 * len(bench.RANGES)
    for X, y, label, _ in made:
        assert X.shape == (120, 300) and len(np.unique(y)) == 2, label
    assert made[0][2].startswith("interaction, n_interacting ")


def test_the_shapes_benchmark_draws_the_irrelevant_features_from_the_law_it_is_given(tmp_path, capsys, monkeypatch):
    """``--noise-law``: the families' relevant columns and the labels are the N(0, 1) instance's,
    the irrelevant columns drawn from the law (binary: 0 and 1; counts: integers; uniform: within
    ±√3; Student's t: heavier tails than N(0, 1); scaled: column spreads apart by more than 10),
    the same for the same seed; the real sets' own columns kept; each row's label names the law."""
    import argparse

    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))
    bench = load("logo_shapes")
    assert set(bench.NOISE_LAWS) == {"normal", "uniform", "student", "binary", "counts", "scaled"}

    def made(law, seed=0):
        args = argparse.Namespace(J=[400], families=["shells"], random_geometry=0, first_seed=seed, seeds=1,
                                  geometry={}, samples=150, noise_law=law)
        return next(bench.shapes(args))

    X0, y0, label0, _ = made("normal")
    k = 3  # shells' relevant columns
    law_holds = {"uniform": lambda N: np.abs(N).max() <= np.sqrt(3),
                 "student": lambda N: np.abs(N).max() > np.abs(X0[:, k:]).max(),
                 "binary": lambda N: set(np.unique(N)) == {0.0, 1.0},
                 "counts": lambda N: np.array_equal(N, np.round(N)) and N.min() >= 0,
                 "scaled": lambda N: N.std(axis=0).max() > 10 * N.std(axis=0).min()}
    for law, holds in law_holds.items():
        X, y, label, _ = made(law)
        np.testing.assert_array_equal(X[:, :k], X0[:, :k])
        np.testing.assert_array_equal(y, y0)
        assert X.shape == X0.shape and holds(X[:, k:]) and not holds(X0[:, k:]), law
        assert label == f"shells, {law} noise, seed 0"
        np.testing.assert_array_equal(made(law)[0], X)
        assert not np.array_equal(made(law, seed=1)[0][:, k:], X[:, k:])
    assert label0 == "shells, seed 0"
    real = argparse.Namespace(real=["heart", "sonar"], noise=200, real_lam=3.0)
    as_drawn = list(bench.real(argparse.Namespace(**vars(real), noise_law="normal")))
    for (X0, y0, _, _), (X, y, label, _) in zip(as_drawn, bench.real(argparse.Namespace(**vars(real),
                                                                                      noise_law="binary"))):
        own = X0.shape[1] - 200  # heart's 13 columns, sonar's 60
        np.testing.assert_array_equal(X[:, :own], X0[:, :own])
        np.testing.assert_array_equal(y, y0)
        assert X.shape == X0.shape and set(np.unique(X[:, own:])) == {0.0, 1.0}, label
    assert [label for *_, label, _ in bench.real(argparse.Namespace(**vars(real), noise_law="counts"))][2:4] == \
        ["heart + 200 counts features, seed 2", "sonar + 200 counts features, seed 0"]
    out = tmp_path / "rows.jsonl"
    bench.main(["--J", "300", "--families", "--real", "heart", "--noise", "200", "--noise-law", "binary",
                "--out", str(out)])
    rows = out.read_text().splitlines()
    assert len(rows) == 3 and '"instance": "heart + 200 binary features, seed 0"' in rows[0]
    capsys.readouterr()


def test_the_shapes_benchmark_fits_at_the_theta_and_max_iter_it_is_given(tmp_path, capsys, monkeypatch):
    """``--theta`` and ``--max-iter`` reach both fits and are written in each row with the working
    set's allowance (a row is keyed by what made it); the next run without them is back at θ = 0.01
    and max_iter = 50."""
    import json
    import sys

    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))
    bench = load("logo_shapes")
    params = sys.modules["logo_fast_path"].PARAMS
    for key in ("theta", "max_iter"):
        monkeypatch.setitem(params, key, params[key])  # restored after the test
    out = tmp_path / "rows.jsonl"
    common = ["--J", "300", "--random-geometry", "1", "--samples", "120", "--families", "shells", "--real",
              "--out", str(out)]
    bench.main([*common, "--theta", "1e-3", "--max-iter", "3"])
    bench.main(common)
    first, second = (json.loads(line) for line in out.read_text().splitlines())
    assert (first["theta"], first["max_iter"]) == (1e-3, 3) and first["plain"]["outer"] <= 3
    assert first["fast_budget"] == second["fast_budget"] == FAST_BUDGET
    assert first["plain"]["outcome"] == "max_iter"
    assert (second["theta"], second["max_iter"]) == (0.01, 50) and second["plain"]["outer"] > 3
    capsys.readouterr()


def test_the_shapes_benchmark_retimes_a_fit_above_the_bound_and_totals_the_first_pairs(monkeypatch):
    """``--confirm K``: a fit whose default took above 1.25 × the plain iteration's time in its first
    pair is timed K pairs more, the order going on alternating, and the bound is read from the medians
    of all its pairs; the total stays that of the first pairs (re-timing only the fits above the bound
    would lower it); a fit below the bound is timed once; the summary says which fits above it ran the
    plain iteration on both sides (the default's ``prune_below_`` None)."""
    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))
    bench = load("logo_shapes")
    X, y = make_shells(n_samples=60, n_irrelevant=20, random_state=0)
    real_fit = bench.fit
    est = {name: real_fit(X, y, lam=1.0, **kw)[0] for name, kw in (("default", {}), ("plain", bench.PLAIN))}
    order = []

    def scripted(seconds):
        def fit(X, y, lam, **kw):
            name = "plain" if kw else "default"
            order.append(name)
            return est[name], seconds[name][sum(o == name for o in order) - 1]
        return fit

    monkeypatch.setattr(bench, "fit", scripted({"default": [2.0, 1.0, 1.1], "plain": [1.0, 1.0, 1.0]}))
    slow = bench.compare(X, y, "slow", 1.0, repeat=1, confirm=2)
    assert order == ["default", "plain", "plain", "default", "default", "plain"]
    assert slow["default"]["pairs"] == [2.0, 1.0, 1.1] and slow["default"]["retimed"] == 2
    assert slow["default"]["fit_s"] == 1.1 and slow["default"]["first_s"] == 2.0
    order.clear()
    monkeypatch.setattr(bench, "fit", scripted({"default": [1.2], "plain": [1.0]}))
    fast = bench.compare(X, y, "fast", 1.0, repeat=1, confirm=2)
    assert len(order) == 2 and fast["default"]["retimed"] == 0
    lines = bench.summary([slow, fast])
    assert "wall time 1.60 in total" in lines[0]  # (2.0 + 1.2) / (1.0 + 1.0), the first pairs
    assert "above 1.25 on 0 (1 in their first pairs; those re-timed with 2 pairs more" in lines[0]
    order.clear()  # above the bound in all its pairs, where the default resolved to the plain iteration
    monkeypatch.setattr(bench, "fit", scripted({"default": [3.0] * 3, "plain": [1.0] * 3}))
    dear = bench.compare(X, y, "dear", 1.0, repeat=1, confirm=2)
    assert est["default"].prune_below_ is None and dear["default"]["prune_below"] is None
    assert "above 1.25 on 1 (2 in their first pairs; those re-timed with 2 pairs more, the order alternating); 1 " \
           "of them where the default is the plain iteration" in bench.summary([slow, fast, dear])[0]
