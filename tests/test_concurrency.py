"""Every LFS backend (threads, processes, dask) gives the serial result; estimators fitted in
concurrent threads give their serial results (no module-level state is shared unsafely)."""
import numpy as np
import pytest
from joblib import Parallel, delayed

from fsopt import LOGO
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS
from fsopt.nmmkl import NMMKL

SMALL = dict(alpha=2, tau=2, n_beta=4, n_rounding=20, random_state=3)


@pytest.fixture(scope="module")
def data():
    X, y = make_lfs_synthetic(20, 20, 40, n_irrelevant=6, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def serial(data):
    return LFS(n_jobs=1, **SMALL).fit(*data)


def same_fit(a, b):
    assert np.array_equal(a.fstar_, b.fstar_)
    np.testing.assert_array_equal(a.radius_, b.radius_)
    np.testing.assert_array_equal(a.beta_, b.beta_)
    np.testing.assert_array_equal(a.f_relaxed_, b.f_relaxed_)
    assert a.lp_check_["all_certified"] and b.lp_check_["all_certified"]


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_lfs_backend_gives_the_serial_result(data, serial, backend):
    same_fit(serial, LFS(n_jobs=2, backend=backend, **SMALL).fit(*data))


def test_lfs_on_dask_gives_the_serial_result(data, serial):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster):
        same_fit(serial, LFS(n_jobs=2, backend="dask", **SMALL).fit(*data))


def test_estimators_fitted_in_concurrent_threads_match_serial(data):
    Xs, ys = make_spiral(15, 2, random_state=1)
    X, y = data[0][::3], data[1][::3]
    tiny = dict(SMALL, tau=1, n_beta=2)
    jobs = [(LOGO(solver="CLARABEL", max_iter=5), Xs, ys), (LOGO(max_iter=5), Xs, ys),
            (NMMKL(2), Xs, ys), (LFS(n_jobs=1, **tiny), X, y),
            (LFS(n_jobs=1, solver="HIGHS", **tiny), X, y)]
    ref = [est.fit(X, y) for est, X, y in jobs]
    from sklearn.base import clone

    par = Parallel(n_jobs=len(jobs), backend="threading")(
        delayed(clone(est).fit)(X, y) for est, X, y in jobs)
    for a, b in zip(ref, par):
        for attr in ("weights_", "support_", "fstar_"):
            if hasattr(a, attr):
                np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
