"""Units no outlier can move (issue 19): X is divided by a robust typical spread, so one row far
out (every column at 10³ or 10⁶) neither empties LOGO's selection nor breaks NMMKL or LFS, and
one cell at 10³ is no overflow for LFS.  Two spiral shapes."""
import numpy as np
import pytest

from fsopt import LOGO
from fsopt.core.scaling import typical_spread
from fsopt.datasets.spiral import make_spiral
from fsopt.lfs import LFS
from fsopt.nmmkl import NMMKL

SHAPES = ["fermat", "archimedean"]


def with_outlier(X, value, row=3):
    X = X.copy()
    X[row, :] = value
    return X


def two_on_top(scores):
    return set(np.argsort(scores)[-2:].tolist()) == {0, 1}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("value", [1e3, 1e6])
def test_one_outlier_row_keeps_the_spiral_on_top(shape, value):
    X, y = make_spiral(30, 8, random_state=0, shape=shape)
    Xo = with_outlier(X, value)
    logo = LOGO().fit(Xo, y)
    assert two_on_top(logo.scores_) and logo.get_support().tolist() == [True, True] + [False] * 8
    assert np.flatnonzero(NMMKL(2).fit(Xo, y).support_).tolist() == [0, 1]
    Xs, ys = make_spiral(30, 4, random_state=0, shape=shape)
    lfs = LFS(alpha=2, n_beta=4, n_rounding=50, random_state=0).fit(with_outlier(Xs, value), ys)
    assert two_on_top(lfs.fstar_.sum(axis=0))  # the features most often in the local sets


@pytest.mark.parametrize("shape", SHAPES)
def test_one_row_barely_moves_the_typical_spread(shape):
    X, _ = make_spiral(30, 8, random_state=0, shape=shape)
    s = typical_spread(X)
    for value in (1e3, 1e6, 1e100):
        assert typical_spread(with_outlier(X, value)) == pytest.approx(s, rel=0.1)


def test_binary_columns_fall_back_to_the_standard_deviation():
    """Columns zero in most rows have equal quartiles: their spread is the standard deviation."""
    X = np.zeros((40, 3))
    X[:5] = 1.0
    assert typical_spread(X) == pytest.approx(X[:, 0].std())


def test_lfs_takes_one_cell_at_1e3():
    """The weights (10) at j = i (never used) were exp(d^min/σ): overflow at one cell of 10³,
    reported as 'X is too large for the squared distances'."""
    X, y = make_spiral(30, 8, random_state=0)
    X[3, 5] = 1e3
    lfs = LFS(tau=2, n_beta=2, n_rounding=5, random_state=0).fit(X, y)  # pass 2 has sets
    assert np.isfinite(lfs.radius_).all()


@pytest.mark.parametrize("n_rows", [1, 2, 3, 4, 5, 10, 11, 60, 461])
def test_compiled_column_spreads_are_numpys_percentiles(n_rows):
    """The compiled spreads (quartiles by selection) against np.percentile's linear method and
    np.std, column by column: normal, constant, binary, integer-valued, one outlier, tiny and
    huge columns, every quartile position N allows; C, Fortran and strided X alike."""
    from fsopt.core.scaling import _dense_spreads

    rng = np.random.default_rng(n_rows)
    X = rng.standard_normal((n_rows, 12)) * 10.0 ** rng.integers(-200, 200, size=12)
    X[:, 1] = 7.0  # constant: no spread
    X[:, 2] = rng.random(n_rows) < 0.2  # binary: quartiles coincide, the standard deviation
    X[:, 3] = np.round(3 * X[:, 3] / np.abs(X[:, 3]).max())
    X[0, 4] = 1e300
    varying = X[:, np.ptp(X, axis=0) > 0]
    top = np.abs(varying).max(axis=0)
    q1, q3 = np.percentile(varying / top, [25, 75], axis=0)
    expected = np.where(q3 > q1, (q3 - q1) / 1.3489795003921634, (varying / top).std(axis=0)) * top
    np.testing.assert_allclose(_dense_spreads(X), expected, rtol=1e-13, atol=0)
    wide = np.hstack([X, X[:, ::-1]])  # any memory layout, read in place: the same numbers
    for layout in (np.asfortranarray(wide), wide[:, ::2], wide[::-1]):
        np.testing.assert_array_equal(_dense_spreads(layout), _dense_spreads(np.ascontiguousarray(layout)))
    single = np.clip(wide, -1e30, 1e30).astype(np.float32)  # float32 read as float64, value by value
    np.testing.assert_array_equal(_dense_spreads(single), _dense_spreads(single.astype(np.float64)))


def test_the_typical_spread_of_float32_x_makes_no_float64_copy():
    import tracemalloc

    X = np.random.default_rng(0).standard_normal((200, 5000)).astype(np.float32)
    expected = typical_spread(X.astype(np.float64))
    typical_spread(np.ascontiguousarray(X[:, :16]))  # compile the float32 kernel outside the trace
    tracemalloc.start()
    spread = typical_spread(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert spread == expected and peak < X.nbytes / 4


def test_the_typical_spread_benchmark_prints_a_row_per_kind(capsys):
    """``benchmarks/typical_spread.py`` on a small X: one row per kind of data, each spread finite."""
    from test_nmmkl_benchmarks import load

    load("typical_spread").main(["--shape", "40x50", "--repeat", "1"])
    rows = capsys.readouterr().out.splitlines()[2:]  # under the header and its rule
    assert [r.split("|")[1].strip() for r in rows] == ["normal", "binary", "counts"]
    assert all(np.isfinite(float(r.split("|")[3])) for r in rows)
