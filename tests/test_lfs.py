"""LFS end to end: the paper's qualitative results on small data, determinism, the local
classifier's definitions checked against brute force, and input errors."""
import numpy as np
import pytest

from fsopt.datasets import standardize
from fsopt.datasets.lfs_synthetic import expected_sets, make_lfs_synthetic
from fsopt.lfs import LFS
from fsopt.lfs.regions import class_similarity, predict_labels, sphere_radius
from fsopt.lfs.weights import local_costs, neighbour_weights

FAST = dict(solver="HIGHSPY", eps_solver="TOPK")


@pytest.fixture(scope="module")
def synthetic():
    X, y, c = make_lfs_synthetic(n_irrelevant=30, random_state=0, return_clusters=True)
    Xt, yt, _ = make_lfs_synthetic(60, 60, 120, n_irrelevant=30, random_state=1, return_clusters=True)
    X, Xt = standardize(X, Xt)
    return X, y, c, Xt, yt


@pytest.fixture(scope="module")
def fitted(synthetic):
    X, y, *_ = synthetic
    return LFS(alpha=2, tau=2, random_state=0, **FAST).fit(X, y)


def test_synthetic_expected_features_and_error(synthetic, fitted):
    """Paper Fig. 4 / §4.2: most points select exactly their expected relevant features
    (x1 for "+", x2 for "◇", both for "o"), and the local classifier generalizes."""
    X, y, c, Xt, yt = synthetic
    hit = (fitted.fstar_[:, :2] == expected_sets(c)).all(axis=1)
    assert hit.mean() >= 0.75
    assert all(hit[c == k].mean() >= 0.6 for k in range(3))
    assert 1 - fitted.score(Xt, yt) <= 0.10
    assert fitted.lp_check_["all_certified"]
    assert fitted.fstar_.shape == X.shape and fitted.fstar_.dtype == bool
    assert np.all(fitted.fstar_.sum(axis=1) >= 1) and np.all(fitted.fstar_.sum(axis=1) <= 2)


def test_second_pass_uses_weights(synthetic):
    """τ = 2 changes the sets (the weights of eq. 10 are no longer uniform)."""
    X, y, c, *_ = synthetic
    one = LFS(alpha=2, tau=1, random_state=0, **FAST).fit(X, y)
    two = LFS(alpha=2, tau=2, random_state=0, **FAST).fit(X, y)
    assert (one.fstar_ != two.fstar_).any()
    assert len(two.history_) == 2


def test_relaxed_solution_is_close_to_binary(fitted):
    """§4.5 / Fig. 10: ‖f_β − f*‖₁ / M is small (a vertex has at most two fractional entries)."""
    dist = np.abs(fitted.f_relaxed_ - fitted.fstar_).sum(axis=1) / fitted.fstar_.shape[1]
    assert dist.max() <= 2.0 / fitted.fstar_.shape[1] + 1e-9


def test_deterministic_for_any_n_jobs(synthetic):
    X, y, *_ = synthetic
    X, y = X[::2, :12], y[::2]
    a = LFS(alpha=2, tau=2, random_state=7, n_jobs=1, **FAST).fit(X, y)
    b = LFS(alpha=2, tau=2, random_state=7, n_jobs=2, **FAST).fit(X, y)
    np.testing.assert_array_equal(a.fstar_, b.fstar_)
    np.testing.assert_array_equal(a.beta_, b.beta_)
    np.testing.assert_array_equal(a.radius_, b.radius_)


def test_dask_cluster_matches_serial(synthetic):
    """The per-point problems on a local dask.distributed cluster (backend="dask", and an active
    joblib.parallel_config) give exactly the n_jobs=1 result."""
    from dask.distributed import Client, LocalCluster, get_task_stream
    from joblib import parallel_config

    X, y, *_ = synthetic
    X, y = X[::2, :12], y[::2]
    serial = LFS(alpha=2, random_state=5, n_jobs=1).fit(X, y)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        workers = set(cluster.scheduler_info["workers"])
        with get_task_stream(client) as explicit:
            dask = LFS(alpha=2, random_state=5, backend="dask").fit(X, y)
        with parallel_config(backend="dask"), get_task_stream(client) as active:
            ambient = LFS(alpha=2, random_state=5).fit(X, y)
    for stream in (explicit, active):  # the per-point chunks ran on the cluster's workers
        ran = [t["worker"] for t in stream.data if "_solve_chunk" in t["key"]]
        assert ran and set(ran) <= workers
    for est in (dask, ambient):
        np.testing.assert_array_equal(est.fstar_, serial.fstar_)
        np.testing.assert_array_equal(est.f_relaxed_, serial.f_relaxed_)
        np.testing.assert_array_equal(est.beta_, serial.beta_)
        np.testing.assert_array_equal(est.radius_, serial.radius_)


def test_cvxpy_path_matches_direct_highs_and_second_solver(synthetic):
    """The cvxpy HiGHS path for (8) and (9), with every (9) re-solved by Clarabel, gives the same
    sets as the default direct highspy backend and the closed form of (8)."""
    X, y, *_ = synthetic
    X, y = X[::3, :10], y[::3]
    ref = LFS(alpha=2, n_beta=8, random_state=3).fit(X, y)
    cv = LFS(alpha=2, n_beta=8, random_state=3, solver="HIGHS", eps_solver=None,
             check_solver="CLARABEL").fit(X, y)
    np.testing.assert_array_equal(ref.fstar_, cv.fstar_)
    np.testing.assert_allclose(ref.eps_max_, cv.eps_max_, rtol=1e-9)
    assert cv.lp_check_["max_objective_gap"] < 1e-5
    assert cv.lp_check_["all_certified"]


def test_exact_rounding_matches_sampled(synthetic):
    X, y, *_ = synthetic
    X, y = X[::2, :12], y[::2]
    s = LFS(alpha=2, random_state=0, rounding="sample", **FAST).fit(X, y)
    e = LFS(alpha=2, random_state=0, rounding="exact", **FAST).fit(X, y)
    assert (s.fstar_ == e.fstar_).all(axis=1).mean() >= 0.9


def test_weights_eq10_brute_force():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((7, 4)), np.array([0, 0, 0, 1, 1, 1, 1])
    sets = rng.random((7, 4)) < 0.5
    W = neighbour_weights(X, y, sets, sigma=0.7)
    for i in range(7):
        for j in range(7):
            if i == j:
                continue
            total = 0.0
            for k in range(7):
                d = lambda v: np.linalg.norm((X[i] - X[v]) * sets[k])  # noqa: E731
                pool = [v for v in range(7) if v != i and (y[v] == y[i]) == (y[j] == y[i])]
                total += np.exp(-(d(j) - min(d(v) for v in pool)) / 0.7)
            assert W[i, j] == pytest.approx(total / 7)
    assert np.allclose(neighbour_weights(X, y, np.zeros_like(sets), 1.0), 1.0)
    A, B = local_costs(X, y, W)
    i = 4
    assert A[i] == pytest.approx(sum(W[i, j] * (X[i] - X[j]) ** 2 for j in (5, 6, 3)))
    assert B[i] == pytest.approx(sum(W[i, j] * (X[i] - X[j]) ** 2 for j in (0, 1, 2)))


def test_sphere_radius_is_largest_with_impurity_at_most_gamma():
    rng = np.random.default_rng(2)
    for _ in range(20):
        dist = np.concatenate([[0.0], rng.random(30)])
        same = np.concatenate([[True], rng.random(30) < 0.5])
        n_same, n_other = same.sum(), (~same).sum()
        r = sphere_radius(dist, same, 0.3, n_same, n_other)

        def impurity(rad):
            inside = dist <= rad
            return ((inside & ~same).sum() / n_other) / max((inside & same).sum() - 1, 1e-300) * (n_same - 1)

        assert impurity(r) <= 0.3 or (dist <= r).sum() == 1
        bigger = np.sort(dist[dist > r])
        if bigger.size:
            assert impurity(bigger[0]) > 0.3


def test_fallback_vote_for_query_outside_every_sphere():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    y = np.array([0, 0, 1, 1])
    sets = [np.array([0]), np.array([0]), np.array([1]), np.array([1])]
    radius = np.full(4, 0.2)
    S, votes = class_similarity(np.array([[4.0, 4.2], [0.05, 9.0]]), X, y, sets, radius, np.bincount(y))
    assert not S[0].any()  # outside every sphere
    assert predict_labels(S, votes)[0] == 1  # every coordinate system's nearest neighbour is class 1
    assert S[1, 0] > 0 and predict_labels(S, votes)[1] == 0  # inside spheres 0, 1 via x1


@pytest.mark.parametrize("params, match", [
    (dict(alpha=0), "alpha"), (dict(alpha=50), "exceeds the number of features"),
    (dict(gamma=1.5), "gamma"), (dict(gamma=-0.1), "gamma"), (dict(solver="NOSUCH"), "unknown solver"),
    (dict(eps_solver="CLARABEL", solver="TOPK"), "cannot solve"),
])
def test_bad_parameters(params, match):
    X, y = make_lfs_synthetic(5, 5, 10, n_irrelevant=3, random_state=0)
    with pytest.raises(ValueError, match=match):
        LFS(**params).fit(X, y)


@pytest.mark.parametrize("mutate, match", [
    (lambda X, y: (X, np.ones_like(y)), "at least 2 classes"),
    (lambda X, y: (X, np.r_[np.zeros(y.size - 1, int), 1]), "class 1 has 1 sample"),
    (lambda X, y: (X, y + 0.5 * np.arange(y.size)), "Unknown label type: continuous"),
    (lambda X, y: (X, np.arange(y.size) % 3), "Only binary classification is supported.*3 classes"),
    (lambda X, y: (X + 1j, y), "Complex data not supported"),
    (lambda X, y: (X, None), "requires y to be passed"),
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), y), "NaN"),
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X), y), "infinity"),
])
def test_bad_data(mutate, match):
    X, y = make_lfs_synthetic(5, 5, 10, n_irrelevant=3, random_state=0)
    with pytest.raises(ValueError, match=match):
        LFS(alpha=2).fit(*mutate(X, y))


def test_predict_errors(fitted):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        LFS().predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X has 5 features, but LFS is expecting 32 features"):
        fitted.predict(np.zeros((2, 5)))


def test_cli_runs_declared_problem(capsys):
    from fsopt.tools.cli import main

    rc = main(["run", "lfs", "--problem", "lfs_synthetic", "--irrelevant", "5", "--quiet",
               "--solver", "HIGHSPY", "--verbose"])
    out = capsys.readouterr().out
    assert rc == 0 and "test error" in out and "all certified: True" in out


def test_three_classes_are_refused_before_any_work(synthetic, monkeypatch):
    """The method is two-class (a same-class / other-class split per point): y with three classes
    gets scikit-learn's binary-only error, and no LP is set up."""
    import fsopt.lfs.estimator as estimator_module

    X, _, c, *_ = synthetic
    monkeypatch.setattr(estimator_module, "LFSFixedPoint", None)  # any use would raise TypeError
    with pytest.raises(ValueError, match="Only binary classification is supported.*3 classes"):
        LFS(alpha=2, random_state=0, **FAST).fit(X, c)
