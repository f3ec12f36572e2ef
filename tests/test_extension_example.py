"""The documented extensions (examples/elastic_net_logo.py, examples/group_garrote_logo.py) work
with the unchanged framework."""
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from fsopt.tools import bench
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.margins import expected_margins

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))
import elastic_net_logo as elastic  # noqa: E402  (examples/ is on the path from here on)
import group_garrote_logo as group  # noqa: E402


def test_subproblem_matches_an_independent_solver():
    X, y = make_spiral(50, 6, random_state=0)
    sp = elastic.ElasticNetGarrote(lam=1.0, mu=0.5, Z=expected_margins(X, y, np.ones(8), 2.0))
    record = sp.solve("CLARABEL")
    ref = minimize(lambda w: sp.objective({"w": w}), np.ones(8), jac=sp.gradient, method="L-BFGS-B",
                   bounds=[(0, None)] * 8, options={"ftol": 1e-15, "gtol": 1e-11})
    assert record.certified and abs(record.objective - ref.fun) <= 1e-6 * ref.fun
    assert sp.certificate({"w": ref.x * 1.2 + 0.05})["residual"] > 1e-3  # the certificate can fail


def test_estimator_runs_the_extension_and_finds_the_spiral():
    X, y = make_spiral(230, 20, random_state=0)
    est = elastic.fit(X, y, mu=0.1)
    assert est.converged_ and set(np.argsort(est.weights_)[-2:]) == {0, 1}
    assert est.scores_[2:].max() < 0.01
    assert all(r.certified for h in est.history_ for r in h.records)


def test_bench_runs_the_extension(tmp_path, monkeypatch):
    monkeypatch.setenv("FSOPT_PROBLEMS_PATH", str(EXAMPLES))
    frame = bench.run(out=tmp_path, quick=True, problem_names=["elastic_net_spiral"],
                      solvers=["CLARABEL", "ECOS"], progress=False, allow_hook_files=True)
    frame = frame[frame["budget"] == "default"]  # the study's point (not the tolerance schedule)
    assert set(frame["kind"]) == {"garrote_elastic_net"} and len(frame) == 6
    assert frame["solved"].all()
    assert frame["error_to_reference"].max() < 1e-6


def test_group_garrote_selects_the_spiral_groups_with_elimination_on():
    """Each spiral coordinate with its noisy copy forms a group: LOGO with the group garrote keeps
    exactly those two groups (both members of each), on two sizes of the problem, with elimination
    on (features dropped through the group penalty's zero_slack) at the fixed point that the run
    without elimination reaches."""
    for n_per_class, pairs in ((150, 10), (100, 40)):
        X, y, groups = group.paired_spiral(n_per_class, pairs, random_state=1)
        est, plain = group.fit(X, y, groups), group.fit(X, y, groups, prune_below=None)
        assert est.converged_ and est.get_support(indices=True).tolist() == [0, 1, 2, 3]
        assert sum(h.n_dropped for h in est.history_) > 0
        assert np.abs(est.weights_ - plain.weights_).max() <= 1e-2 * plain.weights_.max()
        assert all(r.certified and r.solver == "PROXGRAD" for h in est.history_ for r in h.records)
