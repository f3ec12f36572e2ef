"""HeldMargins: the garrote's loss over all J with z̄ held for some columns only.  LBFGSB's
working set on it solves the problem over the full z̄ bit for bit; its gradient agrees with the full
one; a column is computed once, when the backend first restricts to it."""
import numpy as np
import pytest

from fsopt.core.parts import LogisticMarginLoss, NonnegL1
from fsopt.datasets.shapes import make_shells
from fsopt.logo import GarroteLogistic
from fsopt.logo.held_margins import HeldMargins
from fsopt.core.lbfgsb import most_violating
from fsopt.logo.margins import SingleMargins, margin_coefficients, signed_abs_sum, zbar_products


@pytest.fixture(scope="module")
def problem():
    X, y = make_shells(150, 700, random_state=3)
    w = np.zeros(X.shape[1])
    w[:3] = 1.0
    A = margin_coefficients(X[:, :3], y, w[:3], 2.0)
    return X, A, signed_abs_sum(A, X)


def held_margins(X, A, held, computed, estimated=None):
    """HeldMargins over X's z̄; with a list ``estimated``, estimates from z̄ in float32 too (the
    columns asked exactly are appended to it)."""
    def columns(features):  # in increasing order, as LOGO's method takes them from X
        computed.extend(features.tolist())
        mask = np.zeros(X.shape[1], dtype=bool)
        mask[features] = True
        return signed_abs_sum(A, np.ascontiguousarray(X[:, mask]))

    def gradients(features, m):
        if estimated is not None:
            estimated.extend(features.tolist())
        d = LogisticMarginLoss().margin_derivative(m)
        return zbar_products(A, np.ascontiguousarray(X[:, features]), d)[:, 0]

    single = SingleMargins(A, X.astype(np.float32), np.abs(X.astype(np.float32)), np.abs(X).max(axis=0))

    def estimates(features, m):
        G, err = single.gradients(features, LogisticMarginLoss().margin_derivative(m)[:, None])
        return G[:, 0], err[:, 0]

    return HeldMargins(LogisticMarginLoss(), signed_abs_sum(A, np.ascontiguousarray(X[:, held])), held,
                       X.shape[1], columns, gradients, None if estimated is None else estimates)


@pytest.mark.parametrize("estimating", [False, True])
@pytest.mark.parametrize("lam", [0.3, 1.0])
def test_lbfgsb_on_held_margins_gives_the_full_problems_solution_bit_for_bit(problem, lam, estimating):
    X, A, Z = problem
    full = GarroteLogistic(lam=lam)
    full.set_margins(Z)
    full.warm_start = np.where(np.arange(X.shape[1]) < 5, 0.5, 0.0)
    reference = full.solve("LBFGSB")
    computed = []
    held = GarroteLogistic(lam=lam)
    held.set_margin_source(held_margins(X, A, np.arange(5), computed, [] if estimating else None))
    held.warm_start = full.warm_start
    record = held.solve("LBFGSB")
    np.testing.assert_array_equal(record.solution["w"], reference.solution["w"])
    assert record.certified and len(computed) == len(set(computed))  # each column computed once
    assert set(np.flatnonzero(record.solution["w"])) <= set(range(5)) | set(computed)
    assert len(computed) < X.shape[1] // 2


def test_its_gradient_is_the_full_ones_and_restrict_the_full_columns(problem):
    X, A, Z = problem
    computed = []
    margins = held_margins(X, A, np.array([0, 1, 2, 40]), computed)
    w = np.zeros(X.shape[1])
    w[[0, 2, 40]] = [0.7, 0.2, 0.1]
    full = LogisticMarginLoss().with_margins(Z)
    np.testing.assert_allclose(margins.gradient(w), full.gradient(w), rtol=1e-10, atol=1e-10)
    some = np.array([2, 40, 600, 3, 7])  # held and not, in no order
    entries = margins.gradient_entries(w, some)
    assert sorted(computed) == [3, 7, 600]  # the columns asked exactly are computed and held, ...
    np.testing.assert_array_equal(entries, margins.gradient(w)[some])
    np.testing.assert_allclose(entries, full.gradient(w)[some], rtol=1e-12, atol=1e-12)
    cols = np.array([3, 40, 7, 0])
    np.testing.assert_array_equal(margins.restrict(cols).Z, Z[:, cols])
    assert sorted(computed) == [3, 7, 600]  # ... so taking them in computes nothing again
    assert margins.value(w) == pytest.approx(full.value(w), rel=1e-12)
    assert margins.n_features == X.shape[1]


def test_a_wrong_column_source_is_caught_by_the_comparison_with_the_full_problem(problem):
    """Planted: the source computes each column from the next feature's values.  The subproblem's
    own certificate reads the same wrong columns and accepts the answer; only the comparison with
    the problem over the full z̄ sees it, which is why the fit's tests compare the default with the
    plain iteration, bit for bit (tests/test_logo_shapes.py)."""
    X, A, Z = problem
    full = GarroteLogistic(lam=0.3)
    full.set_margins(Z)
    reference = full.solve("LBFGSB").solution["w"]
    shifted = HeldMargins(LogisticMarginLoss(), Z[:, :5].copy(), np.arange(5), X.shape[1],
                          lambda f: signed_abs_sum(A, np.ascontiguousarray(X[:, (f + 1) % X.shape[1]])),
                          lambda f, m: zbar_products(A, np.ascontiguousarray(X[:, f]),
                                                     LogisticMarginLoss().margin_derivative(m))[:, 0])
    held = GarroteLogistic(lam=0.3)
    held.set_margin_source(shifted)
    record = held.solve("LBFGSB")
    assert record.certified and np.abs(record.solution["w"] - reference).max() > 0.1 * reference.max()


def test_held_margins_only_for_a_subproblem_with_a_margin_loss_to_hold():
    """HeldMargins holds the subproblem's ``loss`` (its ``with_margins``): a subproblem that takes
    a margin source but has no such loss gets the plain update over all J, not an AttributeError
    in the middle of the fit."""
    from fsopt.logo.method import LogoFixedPoint

    X, y = make_shells(60, 4200, random_state=0)
    sub = GarroteLogistic(lam=1.0)
    method = LogoFixedPoint(X, y, 2.0, sub, "LBFGSB", working_set=False)
    assert method.holds_some_margins()
    sub.loss = object()  # a loss of the user's own that holds no margin matrix
    assert not method.holds_some_margins()


class Estimating:
    """A smooth part whose gradient is g, estimated as g + e (|e| ≤ err, err = ``coarse`` on every
    entry but the first ``exact_first``); counts the entries asked exactly."""

    def __init__(self, g, coarse, exact_first, rng):
        self.g, self.asked = g, []
        self.err = np.where(np.arange(g.size) < exact_first, 0.0, coarse)
        self.noise = self.err * rng.uniform(-1, 1, g.size)

    def gradient(self, w):
        return self.g.copy()

    def gradient_estimate(self, w):
        return self.g + self.noise, self.err.copy()

    def gradient_entries(self, w, features):
        self.asked.extend(np.asarray(features).tolist())
        return self.g[features]


class Exact:
    def __init__(self, g):
        self.g = g

    def gradient(self, w):
        return self.g.copy()


@pytest.mark.parametrize("seed", range(6))
def test_entrants_from_estimates_are_the_exact_gradients_and_ask_for_few_exact_entries(seed):
    """LBFGSB's working set takes the grow most violating features outside it (slack = λ + g_j <
    −bound).  From a gradient estimated within ±err it asks exact entries only near the threshold
    or the cut of the grow most violating, and takes the same features in the same order as from
    the exact gradient, ties by index (some slacks repeated on purpose)."""
    rng = np.random.default_rng(seed)
    J = 3000
    g = np.round(rng.normal(-1.0, 0.6, J), 2)  # slacks λ + g with many ties
    w = np.where(rng.random(J) < 0.05, rng.random(J), 0.0)
    penalty = NonnegL1(1.0)
    for grow, bound, coarse in [(100, 1e-6, 0.05), (400, 0.01, 0.3), (5000, 1e-6, 0.05), (100, 1e-6, 0.0)]:
        part = Estimating(g, coarse, J // 10, rng)
        taken = most_violating(part, penalty, w, w == 0, bound, grow)
        expected = most_violating(Exact(g), penalty, w, w == 0, bound, grow)
        np.testing.assert_array_equal(taken, expected)
        slack = 1.0 + g
        failing = np.flatnonzero((w == 0) & (slack < -bound))
        assert taken.size == min(grow, failing.size) and (slack[taken] < -bound).all()
        if grow < failing.size // 4 and coarse <= 0.05:
            assert len(part.asked) < failing.size // 2  # far fewer than the features that fail


def test_a_part_with_an_estimate_but_no_exact_entries_is_read_exactly():
    """An estimate is used only with the exact entries that settle what it cannot decide."""
    class EstimateOnly(Exact):
        def gradient_estimate(self, w):
            raise AssertionError("read without gradient_entries to settle it")

    g = np.random.default_rng(0).normal(-1.0, 0.6, 500)
    w = np.zeros(500)
    expected = most_violating(Exact(g), NonnegL1(1.0), w, w == 0, 1e-6, 100)
    np.testing.assert_array_equal(most_violating(EstimateOnly(g), NonnegL1(1.0), w, w == 0, 1e-6, 100), expected)


@pytest.mark.parametrize("g_bad, err_bad", [(np.inf, np.inf), (np.nan, np.inf), (-np.inf, np.inf)])
def test_an_estimate_that_says_nothing_is_asked_exactly(g_bad, err_bad):
    """An entry estimated as ±inf or NaN (float32 overflow: its error inf) decides nothing: its exact
    entry is asked, and a violator there enters as from the exact gradient."""
    g = np.full(300, 0.5)  # slack 1.5: no violator ...
    g[7] = -3.0  # ... but feature 7
    part = Estimating(g, 0.0, 0, np.random.default_rng(0))
    part.noise[7], part.err[7] = g_bad - g[7], err_bad
    w = np.zeros(300)
    np.testing.assert_array_equal(most_violating(part, NonnegL1(1.0), w, w == 0, 1e-6, 100), [7])
    assert part.asked == [7]
