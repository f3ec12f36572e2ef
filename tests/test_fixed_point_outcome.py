"""The driver's outcome (issue 19): every run ends converged, cycle(k) or max_iter, with the
fixed-point residual of each iteration; acceleration (averaging, safeguarded Anderson) reaches
the fixed point of maps whose plain iteration cycles, and LOGO's fixed point does not depend on
it (two spiral shapes)."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from fsopt import LOGO
from fsopt.core.acceleration import Anderson, Averaging
from fsopt.logo.working_set import WorkingSet
from fsopt.logo.cli import restart_story
from fsopt.core.driver import FixedPointDriver, FixedPointMethod, Step
from fsopt.datasets.spiral import make_spiral


class Rotation(FixedPointMethod):
    """T(x) = p + R(x − p), R a rotation by 2π/k: the plain iteration is a k-cycle; p the only
    fixed point."""

    def __init__(self, k, p=(1.0, 2.0), x0=(3.0, -1.0)):
        a = 2 * np.pi / k
        self.R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        self.p, self.x0 = np.array(p), np.array(x0)

    def initial_iterate(self):
        return self.x0

    def statistics(self, iterate, active):
        return None

    def update(self, stats, iterate, active):
        return Step(self.p + self.R @ (iterate - self.p))


@pytest.mark.parametrize("k", [2, 3])
def test_a_cycle_is_named_with_its_period(k):
    with pytest.warns(ConvergenceWarning, match=rf"cycle\({k}\)"):
        result = FixedPointDriver(theta=1e-6, max_iter=50).run(Rotation(k))
    assert result.outcome == f"cycle({k})" and not result.converged
    assert len(result.cycle) == k and result.n_iter < 50
    assert all(h.residual > 0.1 for h in result.history)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("acceleration", ["averaging", "anderson", Averaging(0.3), Anderson(memory=2)])
def test_acceleration_reaches_the_fixed_point_of_a_cycling_map(k, acceleration):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = FixedPointDriver(theta=1e-8, max_iter=200, acceleration=acceleration).run(Rotation(k))
    assert result.outcome == "converged"
    np.testing.assert_allclose(result.iterate, [1.0, 2.0], atol=1e-6)


def test_auto_runs_the_plain_iteration_until_it_cycles_then_averages():
    """"auto": the plain iterates while no cycle is seen; from the first cycle, averaging (which
    reaches the rotation's fixed point, where the plain iteration stops at cycle(2))."""
    with pytest.warns(ConvergenceWarning, match=r"cycle\(2\)"):
        plain = FixedPointDriver(theta=1e-8, max_iter=200).run(Rotation(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = FixedPointDriver(theta=1e-8, max_iter=200, acceleration="auto").run(Rotation(2))
    switched = [h.iteration for h in auto.history if h.switched]
    assert auto.outcome == "converged" and switched == [plain.n_iter]
    np.testing.assert_allclose(auto.iterate, [1.0, 2.0], atol=1e-6)
    assert not any(h.accelerated for h in auto.history[:plain.n_iter - 1])
    assert [h.residual for h in auto.history[:plain.n_iter]] == [h.residual for h in plain.history]


def test_max_iter_is_an_outcome_and_a_converging_oscillation_is_no_cycle():
    """T(x) = p − 0.9(x − p) oscillates while it converges: max_iter (not cycle) when cut short."""
    class Shrink(Rotation):
        def update(self, stats, iterate, active):
            return Step(self.p - 0.9 * (iterate - self.p))

    with pytest.warns(ConvergenceWarning, match="max_iter"):
        result = FixedPointDriver(theta=1e-3, max_iter=20).run(Shrink(2))
    assert result.outcome == "max_iter"
    assert FixedPointDriver(theta=1e-3, max_iter=200).run(Shrink(2)).outcome == "converged"


def test_unknown_acceleration_is_a_clear_error():
    with pytest.raises(ValueError, match="acceleration must be"):
        FixedPointDriver(acceleration="nesterov").run(Rotation(2))


@pytest.mark.parametrize("shape, turns", [("fermat", 1.0), ("archimedean", 1.75)])
def test_logo_fixed_point_does_not_depend_on_acceleration(shape, turns):
    X, y = make_spiral(230, 300, turns=turns, random_state=0, shape=shape)
    fits = {acc: LOGO(acceleration=acc, theta=1e-4, max_iter=100).fit(X, y)
            for acc in (None, "averaging", "anderson")}
    ref = fits[None]
    for acc, est in fits.items():
        assert est.outcome_ == "converged", acc
        assert np.isfinite([h.residual for h in est.history_]).all()
        np.testing.assert_array_equal(est.get_support(), ref.get_support())
        assert np.abs(est.weights_ - ref.weights_).max() <= 1e-2 * ref.weights_.max(), acc
    assert ref.get_support(indices=True).tolist() == [0, 1]


class OneFeature(FixedPointMethod):
    """w_0 ← (w_0 + c)/2 with c = 1 + the number of checks so far (the first check changes the
    problem: w_0 moves on to 2), every other weight 0; the first check over all features brings
    back features 1 and 2 (at weight 0 they would leave again at once)."""

    def __init__(self, J=10):
        self.J, self.checks = J, 0

    def initial_iterate(self):
        return np.ones(self.J)

    def statistics(self, iterate, active):
        return None

    def update(self, stats, iterate, active):
        new = np.zeros(self.J)
        new[0] = (iterate[0] + 1.0 + self.checks) / 2
        return Step(new)

    def kkt_violations(self, iterate, active):
        self.checks += 1
        return np.array([1, 2]) if self.checks == 1 else np.array([], dtype=int)


def test_features_a_check_brings_back_stay_until_their_rent_reaches_one_pass():
    result = FixedPointDriver(theta=1e-4, max_iter=100,
                              active_set=WorkingSet(prune_below=1e-8, prune_patience=1)).run(OneFeature())
    h = result.history
    t = next(i for i, r in enumerate(h) if r.n_reentered)  # the first check
    assert h[t].n_reentered == 2 and h[t].n_active == 3
    # kept at weight 0: 2 columns of rent per iteration, released once the rent exceeds J = 10
    assert [r.n_active for r in h[t + 1:t + 7]] == [3, 3, 3, 3, 3, 1]
    assert h[t + 6].n_dropped == 2 and result.outcome == "converged"


def test_auto_switches_to_anderson_when_the_plain_iteration_stalls_without_a_cycle():
    """A rotation by 2π/√7 never repeats (no cycle of period ≤ 4), and θ_t stays constant: no new
    smallest θ_t for ``stall`` iterations, then Anderson reaches the centre."""
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        plain = FixedPointDriver(theta=1e-8, max_iter=60).run(Rotation(np.sqrt(7)))
    assert plain.outcome == "max_iter"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = FixedPointDriver(theta=1e-8, max_iter=60, acceleration="auto", stall=10,
                                slow_window=0).run(Rotation(np.sqrt(7)))
    assert auto.outcome == "converged"
    assert [h.iteration for h in auto.history if h.switched] == [11]
    np.testing.assert_allclose(auto.iterate, [1.0, 2.0], atol=1e-6)


class SlowContraction(FixedPointMethod):
    """x ← c + ρ R(x − c): a rotation by 2π/√7 scaled by ρ = 0.93, a damped oscillation whose θ_t
    falls by 7 % an iteration (never a cycle, always a new smallest θ_t: no stall)."""

    def __init__(self, rho=0.93):
        self.rho, self.centre = rho, np.array([1.0, 2.0])
        a = 2 * np.pi / np.sqrt(7)
        self.R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def initial_iterate(self):
        return np.array([5.0, -3.0])

    def statistics(self, iterate, active):
        return None

    def update(self, stats, iterate, active):
        return Step(self.centre + self.rho * self.R @ (iterate - self.centre))


def test_auto_hands_slow_linear_convergence_to_anderson():
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        plain = FixedPointDriver(theta=1e-8, max_iter=100).run(SlowContraction())
    assert plain.outcome == "max_iter" and plain.history[-1].change > 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = FixedPointDriver(theta=1e-8, max_iter=100, acceleration="auto").run(SlowContraction())
    assert [h.iteration for h in auto.history if h.switched] == [6]  # θ fell by < 3 in 5 iterations
    assert auto.outcome == "converged" and auto.n_iter < 40
    np.testing.assert_allclose(auto.iterate, [1.0, 2.0], atol=1e-6)
    with warnings.catch_warnings():  # slow_window=0: the plain iteration, as before
        warnings.simplefilter("ignore", ConvergenceWarning)
        off = FixedPointDriver(theta=1e-8, max_iter=100, acceleration="auto", slow_window=0).run(SlowContraction())
    assert not any(h.switched for h in off.history)


@pytest.mark.xfail(strict=True, reason="known defect (docs/logo-scale.md, 'Issue 42 at its limits'): "
                   "'auto' reads the plain iteration's rising-then-falling θ_t as slow convergence")
def test_auto_reaches_the_fixed_point_the_plain_iteration_reaches():
    """14 N(0, 1) points in 3 features (a random search of test_robustness.py found them): the
    plain iteration converges in 23 iterations; "auto" switches to Anderson at iteration 8, whose
    safeguard then rejects every other point, and stops at max_iter.  Strict: mending it fails this
    mark, so the note in the docs goes with it."""
    rng = np.random.default_rng(65)
    X, y = rng.standard_normal((14, 3)), rng.permutation(np.arange(14) % 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain = LOGO(acceleration=None).fit(X, y)
        auto = LOGO().fit(X, y)
    assert plain.outcome_ == "converged"
    assert auto.outcome_ == "converged"


class Priced(OneFeature):
    """OneFeature that counts its work (an iteration over all features 1, a working-set iteration
    ``price``) and says how many features its checks find violating (``violating``)."""

    def __init__(self, price, violating, J=20):
        super().__init__(J)
        self.price, self.violating, self.work, self.n_violators = price, violating, 0.0, 0

    def statistics(self, iterate, active):
        self.work += 1.0 if active.all() else self.price
        return None

    def kkt_violations(self, iterate, active):
        self.n_violators = self.violating
        return super().kkt_violations(iterate, active)


@pytest.mark.parametrize("price, violating, budget, crowded", [
    (0.2, 5, "auto", True),    # dear iterations, more violators than J / 20: hand over at that check
    (0.08, 5, "auto", True),   # under a tenth, but even the cheapest costs over a thirty-second: dear
    (0.04, 5, "auto", True),   # ... and so at 0.04
    (0.02, 5, "auto", False),  # cheap iterations: the working set may grow to hold them
    (0.2, 1, "auto", False),   # no more violators than J / 20
    (0.2, 5, None, False),     # no budget: nothing cost-based hands over
])
def test_a_crowded_check_hands_over_only_while_working_set_iterations_are_dear(price, violating, budget, crowded):
    method = Priced(price, violating)
    result = FixedPointDriver(theta=1e-4, max_iter=100, active_set=WorkingSet(
        prune_below=1e-8, prune_patience=1, fast_budget=budget)).run(method)
    restarts = [(h.iteration, h.restart_reason) for h in result.history if h.restarted]
    first_check = next(h.iteration for h in result.history if h.full_check)
    if crowded:
        assert restarts == [(first_check, "crowded")] and not any(h.working_set for h in result.history[first_check:])
    else:  # (the toy's later checks move its fixed point: the budget may end the working set later)
        assert "crowded" not in [reason for _, reason in restarts]


class Wandering(OneFeature):
    """OneFeature, but every check brings back the first two eliminated features, which the updates
    keep at 0 and elimination drops again: a working set that never settles (the first check grows
    it, each later one goes round)."""

    def kkt_violations(self, iterate, active):
        self.checks += 1
        return np.flatnonzero(~active)[:2]


@pytest.mark.parametrize("acceleration", [None, "auto", "averaging", "anderson"])
def test_a_working_set_that_does_not_settle_restarts_as_the_plain_iteration(acceleration):
    """After one check that grows the working set and three that go round, the fit restarts; after
    the restart the iterates are the plain iteration's with the same acceleration, from its first
    step (which no accelerator takes: it has one point)."""
    driver = FixedPointDriver(theta=1e-4, max_iter=100, acceleration=acceleration,
                              active_set=WorkingSet(prune_below=1e-8, prune_patience=1, max_circling_checks=3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = driver.run(Wandering())
    restarts = [h.iteration for h in result.history if h.restarted]
    checks = sum(h.full_check for h in result.history)
    assert len(restarts) == 1 and result.history[restarts[0] - 1].full_check
    assert checks == 4 if acceleration in (None, "auto") else checks >= 4  # (extrapolation may keep the
    after = result.history[restarts[0]:]                                  # first two: a second growth)
    slow = Wandering()
    slow.checks = checks  # the problem as the checks left it
    plain = FixedPointDriver(theta=1e-4, max_iter=100, acceleration=acceleration).run(slow)  # the slow path
    assert [h.change for h in after] == [h.change for h in plain.history]  # the same iterates
    assert [h.accelerated for h in after] == [h.accelerated for h in plain.history]
    assert result.outcome == "converged" and not any(h.working_set for h in after)


class SettlesLate(OneFeature):
    """OneFeature whose first ``failing`` checks each bring back the first two eliminated features
    (elimination drops them again: the first check grows the working set, each later one goes
    round), then none: a working set that converges slowly but settles."""

    failing = 6

    def kkt_violations(self, iterate, active):
        self.checks += 1
        return np.flatnonzero(~active)[:2] if self.checks <= self.failing else np.array([], dtype=int)


class Checks(OneFeature):
    """OneFeature whose checks follow ``pattern``, then bring back none: "g" brings back two
    features no check has brought back (the working set grows), "r" the two the first check
    brought back (they left again: it goes round), "h" one of each (not mostly old: it grows)."""

    def __init__(self, pattern, J=18):  # (kept at weight 0 for J / 2 iterations: gone when w_0 converges)
        super().__init__(J)
        self.pattern = pattern

    def kkt_violations(self, iterate, active):
        self.checks += 1
        if self.checks > len(self.pattern):
            return np.array([], dtype=int)
        kind, grown = self.pattern[self.checks - 1], 2 * sum(map(self.pattern[:self.checks].count, "gh"))
        return {"g": np.array([grown + 1, grown + 2]), "r": np.array([3, 4]), "h": np.array([3, grown + 1])}[kind]


@pytest.mark.parametrize("pattern, restarts", [
    ("grrr", False),  # three in a row go round: under the default four, not restarted
    ("grrrr", True),  # four
    ("g" * 7 + "rrr", False),  # growing is not wandering (ten failed checks: the old rule restarted)
    ("grgrgrgr", True),  # a check that grows neither counts nor resets the count
    ("grrrh", False),  # half of what it brings is new: it grows
])
def test_a_fit_restarts_after_four_checks_that_go_round_and_growth_does_not_count(pattern, restarts):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = FixedPointDriver(theta=1e-4, max_iter=100,
                                  active_set=WorkingSet(prune_below=1e-8, round_iter=30)).run(Checks(pattern))
    assert result.outcome == "converged"
    assert any(h.restarted for h in result.history) == restarts
    if not restarts:
        assert sum(h.full_check and h.n_reentered > 0 for h in result.history) == len(pattern)
    else:  # at the fourth "r", the pattern's last check
        t = next(i for i, h in enumerate(result.history) if h.restarted)
        assert sum(h.full_check and h.n_reentered > 0 for h in result.history[:t + 1]) == len(pattern)


class Counted(Checks):
    """Checks whose checks each grow the working set (no check goes round) and say they found
    ``counts[k]`` violating features (``n_violators``; then none)."""

    def __init__(self, counts):
        super().__init__("g" * len(counts))
        self.counts, self.n_violators = counts, 0

    def kkt_violations(self, iterate, active):
        self.n_violators = self.counts[self.checks] if self.checks < len(self.counts) else 0
        return super().kkt_violations(iterate, active)


@pytest.mark.parametrize("counts, budget, restart_at", [
    ([50, 40, 45, 41, 42, 30, 20], "auto", 5),  # three in a row find no fewer than 40: at the fifth
    ([50, 40, 40, 40, 40, 30, 20], "auto", 5),  # as many is no fewer
    ([50, 40, 45, 41, 30, 35, 31], "auto", None),  # two in a row, then fewer (the slow spiral's way)
    ([50, 40, 45, 38, 41, 39, 37], "auto", None),  # fewer than the fewest, each third check
    ([50, 0, 3, 0, 0, 0, 0], "auto", None),  # a check that finds none makes headway
    ([50, 40, 45, 41, 42, 30, 20], None, None),  # no budget: nothing cost-based hands over
])
def test_a_working_set_hands_over_after_three_checks_without_fewer_violators(counts, budget, restart_at):
    """A check makes headway when it finds fewer violators than any earlier check of the run (or
    none); three in a row that do not hand the fit over to the plain iteration ("no headway").
    Planted: counting against the previous check instead of the fewest fails the first case (45,
    41, 42 never has two in a row that find no fewer than the one before)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = FixedPointDriver(theta=1e-4, max_iter=100, active_set=WorkingSet(
            prune_below=1e-8, round_iter=30, fast_budget=budget)).run(Counted(counts))
    assert result.outcome == "converged"
    checks = [h.iteration for h in result.history if h.full_check and h.n_reentered > 0]
    restarts = [(h.iteration, h.restart_reason) for h in result.history if h.restarted]
    assert restarts == ([] if restart_at is None else [(checks[restart_at - 1], "no headway")])
    if restart_at is not None:  # what `fsopt run` says of it
        assert "found no fewer violators in three checks in a row" in restart_story(result.history)


class PlainDrifts(SettlesLate):
    """SettlesLate whose update over all features adds 1 to w_0: the plain iteration drifts (θ_t
    = 1/(w_0 + 1), no cycle) and stops at max_iter; the working set settles after ``failing``
    checks."""

    def __init__(self, J=30):
        super().__init__(J)

    def update(self, stats, iterate, active):
        if not active.all():
            return super().update(stats, iterate, active)
        new = np.zeros(self.J)
        new[0] = iterate[0] + 1.0
        return Step(new)


def test_a_restart_whose_plain_iteration_stops_at_max_iter_ends_there():
    """After three checks that go round the fit restarts; the plain iteration then has max_iter
    outer iterations, and where it stops the fit stops: max_iter bounds the run that answers, and
    the working set does not take up again (its spend before the hand-over is its allowance)."""
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        result = FixedPointDriver(theta=1e-4, max_iter=100,
                                  active_set=WorkingSet(prune_below=1e-8, max_circling_checks=3)).run(PlainDrifts())
    h = result.history
    restarted = next(i for i, r in enumerate(h) if r.restarted)
    assert result.outcome == "max_iter" and result.n_outer == 100
    assert len(h) == restarted + 1 + 100 and not any(r.working_set for r in h[restarted + 1:])


def test_a_restart_whose_plain_iteration_cycles_ends_with_that_cycle():
    """A cycle is the plain iteration's verdict (acceleration None): the fit reports it."""
    class PlainCycles(SettlesLate):  # over all features, w_0 ↔ 3 − w_0: the 2-cycle 1 ↔ 2
        def __init__(self):
            super().__init__(30)

        def update(self, stats, iterate, active):
            if not active.all():
                return super().update(stats, iterate, active)
            new = np.zeros(self.J)
            new[0] = 3.0 - iterate[0]
            return Step(new)

    with pytest.warns(ConvergenceWarning, match="cycle"):
        result = FixedPointDriver(theta=1e-4, max_iter=100,
                                  active_set=WorkingSet(prune_below=1e-8, max_circling_checks=3)).run(PlainCycles())
    assert result.outcome == "cycle(2)" and any(h.restarted for h in result.history)


class LateFeature(FixedPointMethod):
    """T(x)_0 = (x_0 + 1)/2; T(x)_1 = x_0/10 once x_0 > 0.9 (else 0); every other weight 0.  From
    x_0 = 0.5, feature 1 is eliminated at once, and the check at the working set's fixed point
    (x_0 ≈ 1) finds that it violates there."""

    def __init__(self, J=5):
        self.J, self.points = J, []

    def initial_iterate(self):
        return np.full(self.J, 0.5)

    def statistics(self, iterate, active):
        self.points.append(iterate.copy())
        return None

    def update(self, stats, iterate, active):
        new = np.zeros(self.J)
        new[0] = (iterate[0] + 1.0) / 2
        new[1] = iterate[0] / 10 if active[1] and iterate[0] > 0.9 else 0.0
        return Step(new)

    def kkt_violations(self, iterate, active):
        x = self.points[-1]  # the point whose subproblem is checked
        return np.array([1]) if not active[1] and x[0] > 0.9 else np.array([], dtype=int)


def test_a_check_that_admits_features_at_the_working_sets_fixed_point_completes_that_solve():
    """θ_t < θ on the working set but the check admits a feature: the same point is evaluated
    again with it (T(x) over all features), not the working set's T(x) — which on LOGO turned
    a ping-pong of checks admitting 1–3 features each, ended by a restart, into one more solve
    (Fermat 1.75 turns seed 2, J = 20,000: 17 → 3 cdist passes)."""
    method = LateFeature()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = FixedPointDriver(theta=1e-3, max_iter=100,
                                  active_set=WorkingSet(prune_below=1e-8, prune_patience=1)).run(method)
    t = next(i for i, h in enumerate(result.history) if h.n_reentered)
    assert result.history[t].change < 1e-3 and result.history[t].repeated
    np.testing.assert_array_equal(method.points[t + 1], method.points[t])  # the same x again
    assert result.outcome == "converged" and result.iterate[1] > 0.09
    assert sum(h.repeated for h in result.history) == 1
