"""Identical rows (same features and label) are one LOGO sample: np.r_[X, X] selects as X does."""
import numpy as np
import pytest
import scipy.sparse as sp

from fsopt import LOGO
from fsopt.core.blocks import distinct_rows
from fsopt.datasets.spiral import make_spiral


@pytest.mark.parametrize("shape, turns", [("fermat", 1.0), ("archimedean", 1.5)])
def test_every_row_twice_gives_the_same_fit(shape, turns):
    X, y = make_spiral(40, 30, turns=turns, shape=shape, random_state=3)
    ref = LOGO().fit(X, y)
    twice = LOGO().fit(np.r_[X, X], np.r_[y, y])
    assert twice.n_duplicate_rows_ == X.shape[0] and ref.n_duplicate_rows_ == 0
    np.testing.assert_array_equal(twice.weights_, ref.weights_)
    assert twice.outcome_ == ref.outcome_ and set(ref.get_support(indices=True)) == {0, 1}


def test_rows_repeated_unevenly_and_shuffled_give_the_distinct_rows_fit():
    X, y = make_spiral(40, 30, turns=1.0, shape="archimedean", random_state=5)
    rng = np.random.default_rng(0)
    reps = rng.integers(1, 4, X.shape[0])  # each row 1 to 3 times
    order = rng.permutation(reps.sum())
    Xr, yr = np.repeat(X, reps, axis=0)[order], np.repeat(y, reps)[order]
    first = np.sort(np.unique(np.repeat(np.arange(X.shape[0]), reps)[order], return_index=True)[1])
    assert np.array_equal(distinct_rows(Xr, yr), first)
    est = LOGO().fit(Xr, yr)
    assert est.n_duplicate_rows_ == reps.sum() - X.shape[0]
    np.testing.assert_allclose(est.weights_, LOGO().fit(X, y).weights_, rtol=1e-6, atol=1e-9)


def test_a_copy_with_another_label_is_another_sample():
    X, y = make_spiral(40, 5, random_state=1)
    Xd, yd = np.r_[X, X[:1]], np.r_[y, y[y != y[0]][:1]]
    assert distinct_rows(Xd, yd).size == X.shape[0] + 1
    assert LOGO().fit(Xd, yd).n_duplicate_rows_ == 0


def test_sparse_and_column_blocks_find_the_same_rows():
    X, y = make_spiral(30, 300, random_state=2)  # J > 128: several column blocks
    X[:, 5:] *= np.random.default_rng(0).random((X.shape[0], X.shape[1] - 5)) < 0.2
    X2, y2 = np.r_[X, X[::3]], np.r_[y, y[::3]]
    expected = np.arange(X.shape[0])
    for form in (X2, np.asfortranarray(X2), sp.csr_array(X2), sp.csc_array(X2)):
        assert np.array_equal(distinct_rows(form, y2), expected)
    dense, sparse = LOGO().fit(X2, y2), LOGO().fit(sp.csr_array(X2), y2)
    np.testing.assert_allclose(sparse.weights_, dense.weights_, rtol=1e-9, atol=1e-12)


def test_an_h5py_store_with_duplicated_rows_is_read_in_blocks(tmp_path):
    h5py = pytest.importorskip("h5py")
    X, y = make_spiral(60, 300, random_state=4)
    X2, y2 = np.r_[X, X], np.r_[y, y]
    with h5py.File(tmp_path / "X.h5", "w") as fh:
        store = fh.create_dataset("X", data=X2, chunks=(X2.shape[0], 128))
        est = LOGO().fit(store, y2)
    assert est.n_duplicate_rows_ == X.shape[0]
    np.testing.assert_allclose(est.weights_, LOGO().fit(X, y).weights_, rtol=1e-9, atol=1e-12)


def test_a_class_left_with_one_distinct_row_is_named():
    X, y = make_spiral(20, 3, random_state=0)
    X = np.r_[X, X[:1], X[:1]]
    y = np.r_[np.zeros(X.shape[0] - 2, dtype=int) + 1, [0, 0]]
    with pytest.raises(ValueError, match=r"after merging 1 identical rows.*class 0 has 1 sample"):
        LOGO().fit(X, y)
