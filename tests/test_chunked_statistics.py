"""LOGO statistics and fits on X read one column block at a time (fsopt.core.blocks): dask on a
dask.distributed cluster, zarr and HDF5 stores, scipy.sparse — against the in-memory NumPy path."""
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import fsopt.core.blocks
from fsopt import LOGO
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.margins import expected_margins, weighted_manhattan

da = pytest.importorskip("dask.array")


def _stores(X, tmp_path):
    """X as every blockwise input, each cut into several column blocks of uneven width."""
    zarr = pytest.importorskip("zarr")
    h5py = pytest.importorskip("h5py")
    z = zarr.open_array(str(tmp_path / "X.zarr"), mode="w", shape=X.shape, chunks=(X.shape[0], 37),
                        dtype=X.dtype)
    z[:] = X
    h5 = h5py.File(tmp_path / "X.h5", "w").create_dataset("X", data=X, chunks=(X.shape[0], 41))
    return {"dask": da.from_array(X, chunks=(X.shape[0], 53)), "zarr": z, "hdf5": h5,
            "csc": sp.csc_array(X), "csr": sp.csr_matrix(X)}


def test_blockwise_statistics_equal_numpy(rng, tmp_path, monkeypatch):
    monkeypatch.setattr(fsopt.core.blocks, "_BLOCK_BYTES", 8 * 30 * 29)  # sparse: blocks of 29 columns
    X = rng.standard_normal((30, 250))
    X[rng.random(X.shape) < 0.7] = 0.0  # sparse-looking
    y = np.arange(30) % 3
    w = rng.uniform(0, 1, 250)
    w[::4] = 0.0  # zero-weight columns are left out of the distances
    D, Z = weighted_manhattan(X, w), expected_margins(X, y, w, 1.5)
    for name, Xb in _stores(X, tmp_path).items():
        np.testing.assert_allclose(weighted_manhattan(Xb, w), D, rtol=1e-13, err_msg=name)
        Zb = expected_margins(Xb, y, w, 1.5)
        assert Zb.dtype == np.float64 and isinstance(Zb, np.ndarray)
        np.testing.assert_allclose(Zb, Z, rtol=1e-12, atol=1e-13 * np.abs(Z).max(), err_msg=name)


def test_float32_store_stays_float32(rng, tmp_path):
    X = rng.standard_normal((20, 90)).astype(np.float32)
    y = np.arange(20) % 2
    Z = expected_margins(X, y, np.ones(90), 2.0)
    for name, Xb in _stores(X, tmp_path).items():
        Zb = expected_margins(Xb, y, np.ones(90), 2.0)
        assert Zb.dtype == np.float32, name
        np.testing.assert_allclose(Zb, Z, rtol=0, atol=1e-5 * np.abs(Z).max(), err_msg=name)


def test_sparse_statistics_never_densify_X(monkeypatch):
    """Peak memory of the statistics on sparse X: z̄ (N×J, the output) plus a few 0.5 MiB blocks,
    not a second N×J array (densifying X would add N·J·8 bytes)."""
    monkeypatch.setattr(fsopt.core.blocks, "_BLOCK_BYTES", 2**19)
    N, J = 60, 40_000
    X = sp.random_array((N, J), density=0.01, format="csc", random_state=0)
    y = np.arange(N) % 2
    w = np.ones(J)
    expected_margins(X[:, :100], y, w[:100], 2.0)  # compile outside the measurement
    tracemalloc.start()
    Z = expected_margins(X, y, w, 2.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak - Z.nbytes < 0.25 * N * J * 8, f"{(peak - Z.nbytes) / 2**20:.1f} MiB beyond z̄"
    np.testing.assert_allclose(Z, expected_margins(X.toarray(), y, w, 2.0), rtol=1e-12, atol=1e-12)


def test_sparse_fit_selects_as_dense():
    """LOGO on CSC and CSR input: the same weights and selection as on the dense array (with
    elimination, whose statistics read sparse X one column block at a time)."""
    X, y = make_spiral(60, 300, random_state=0)
    X[:, 2:][np.random.default_rng(0).random((120, 300)) < 0.9] = 0.0  # sparse irrelevant features
    dense = LOGO(solver="LBFGSB", prune_below=1e-8).fit(X, y)
    assert dense.converged_ and set(np.argsort(dense.scores_)[-2:]) == {0, 1}
    for Xs in (sp.csc_array(X), sp.csr_matrix(X)):
        est = LOGO(solver="LBFGSB", prune_below=1e-8).fit(Xs, y)
        np.testing.assert_array_equal(est.get_support(), dense.get_support())
        np.testing.assert_allclose(est.weights_, dense.weights_, rtol=1e-9, atol=1e-12)
        assert est.n_iter_ == dense.n_iter_


def test_store_fits_equal_numpy(tmp_path):
    """LOGO on zarr and HDF5 stores (out of core) gives the NumPy weights, bit for bit."""
    X, y = make_spiral(60, 1500, random_state=1)
    ref = LOGO(solver="LBFGSB").fit(X, y).weights_
    stores = _stores(X, tmp_path)
    for name in ("zarr", "hdf5"):
        w = LOGO(solver="LBFGSB").fit(stores[name], y).weights_
        np.testing.assert_array_equal(w, ref, err_msg=name)  # same sums in the same order


def test_dask_cluster_fit_equals_numpy_at_J_20000():
    """Issue 11: a column-chunked dask array on a LocalCluster gives the NumPy weights to 1e-10
    relative at J = 20,000 on the spiral, the statistics running as tasks on the workers."""
    from dask.distributed import Client, LocalCluster, get_task_stream

    X, y = make_spiral(230, 20_000 - 2, random_state=0)
    ref = LOGO(solver="LBFGSB").fit(X, y)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        workers = set(cluster.scheduler_info["workers"])
        chunks = client.scatter([X[:, j:j + 2500] for j in range(0, X.shape[1], 2500)])
        Xd = da.concatenate([da.from_delayed(c, (X.shape[0], 2500), X.dtype) for c in chunks], axis=1)
        with get_task_stream(client) as stream:
            est = LOGO(solver="LBFGSB").fit(Xd, y)
    ran = [t["worker"] for t in stream.data if "signed_abs_sum" in t["key"]]
    assert len(ran) >= 8 and set(ran) == workers  # one task per chunk, on both workers
    np.testing.assert_allclose(est.weights_, ref.weights_, rtol=1e-10, atol=1e-10 * ref.weights_.max())
    assert est.n_iter_ == ref.n_iter_
    assert set(np.argsort(est.scores_)[-2:]) == {0, 1}


@pytest.mark.parametrize("kind", ["zarr", "dask", "csr"])
def test_non_finite_entry_is_named(rng, tmp_path, kind):
    X = rng.standard_normal((12, 100))
    X[7, 61] = np.nan
    y = np.arange(12) % 2
    with pytest.raises(ValueError, match="row 7, column 61"):
        LOGO(solver="LBFGSB").fit(_stores(X, tmp_path)[kind], y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_take_columns_of_an_array_is_c_ordered_and_exact(rng, dtype):
    """The kernels read rows of X: a column subset is C-ordered (X[:, mask] is F-ordered, and
    each check copied it twice), same values and dtype."""
    from fsopt.core.blocks import take_columns

    X = rng.standard_normal((7, 40)).astype(dtype)
    mask = rng.random(40) < 0.6
    sub = take_columns(X, mask)
    assert sub.flags["C_CONTIGUOUS"] and sub.dtype == dtype
    np.testing.assert_array_equal(sub, X[:, mask])


def test_working_set_columns_are_read_from_X_only_when_features_enter(rng, tmp_path, monkeypatch):
    """A working set's statistics take its columns from the last copy while it only loses
    features (each subset read from X scans all of it): every kind of X gives X[:, active] exactly,
    and X is read once per growth, not once per iteration."""
    from fsopt.core.blocks import column_blocks
    from fsopt.logo import method as logo_method
    from fsopt.logo.garrote import GarroteLogistic

    X = rng.standard_normal((20, 90))
    y = np.arange(20) % 2
    reads = []
    real = logo_method.take_columns
    monkeypatch.setattr(logo_method, "take_columns",
                        lambda A, mask: (reads.append(A.shape[1]), real(A, mask))[1])
    masks = [rng.random(90) < 0.7]
    for step in range(8):  # shrink, shrink, grow, shrink, equal, ... (a working set's walk)
        grow = step in (2, 5)
        m = masks[-1] | (rng.random(90) < 0.2) if grow else masks[-1] & (rng.random(90) < 0.85)
        masks.append(masks[-1].copy() if step == 4 else m)
    for name, Xb in {"numpy": X, **_stores(X, tmp_path)}.items():
        method = logo_method.LogoFixedPoint(Xb, y, 2.0, GarroteLogistic(1.0), "LBFGSB")
        reads.clear()
        for active in masks:
            held = method._held_columns(active)
            dense = np.hstack([b for _, _, b in column_blocks(held)])
            np.testing.assert_array_equal(dense, X[:, active], err_msg=name)
        assert reads.count(90) == 3, (name, reads)  # the first working set and the two growths


def test_blockwise_zbar_products_equal_numpy(rng, tmp_path):
    """The check's gradients (z̄ᵀV without z̄) on every blockwise X equal those on the array."""
    from fsopt.logo.margins import margin_coefficients, zbar_products

    X = rng.standard_normal((22, 150))
    y = np.arange(22) % 2
    A = margin_coefficients(X, y, rng.uniform(0.1, 1.0, 150), 2.0)
    V = rng.standard_normal((22, 2))
    ref = zbar_products(A, X, V)
    for name, Xb in _stores(X, tmp_path).items():
        np.testing.assert_allclose(zbar_products(A, Xb, V), ref, rtol=1e-12, atol=1e-12, err_msg=name)
