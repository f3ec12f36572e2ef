"""LOGO local statistics against a brute-force evaluation of eqs (3)-(5)."""
import numpy as np
import pytest

import scipy.sparse as sp

import fsopt.logo.margins as margins
from fsopt.logo.margins import (expected_margins, margin_coefficients, neighbor_probabilities,
                                signed_abs_sum, weighted_manhattan, zbar_products,
                                zbar_products_estimate)


def brute_force_margins(X, y, w, sigma):
    N, J = X.shape
    Z = np.zeros((N, J))
    for n in range(N):
        hits = [i for i in range(N) if i != n and y[i] == y[n]]
        misses = [i for i in range(N) if y[i] != y[n]]
        d = lambda i: sum(w[j] * abs(X[n, j] - X[i, j]) for j in range(J))  # noqa: E731
        k_hit = np.array([np.exp(-d(i) / sigma) for i in hits])
        k_miss = np.array([np.exp(-d(i) / sigma) for i in misses])
        for p, i in zip(k_miss / k_miss.sum(), misses):
            Z[n] += p * np.abs(X[n] - X[i])
        for p, i in zip(k_hit / k_hit.sum(), hits):
            Z[n] -= p * np.abs(X[n] - X[i])
    return Z


@pytest.mark.parametrize("n_classes", [2, 3])
def test_margins_match_brute_force(rng, n_classes):
    X = rng.standard_normal((13, 4))
    y = np.arange(13) % n_classes
    w = rng.uniform(0.1, 2.0, 4)
    Z = expected_margins(X, y, w, sigma=1.3)
    np.testing.assert_allclose(Z, brute_force_margins(X, y, w, 1.3), rtol=1e-12, atol=1e-12)


def test_weighted_manhattan_is_the_definition(rng):
    X = rng.standard_normal((7, 5))
    w = rng.uniform(0, 1, 5)
    D = weighted_manhattan(X, w)
    expected = np.abs(X[:, None, :] - X[None, :, :]) @ w
    np.testing.assert_allclose(D, expected, rtol=1e-13)


def test_probabilities_are_stable_for_huge_distances(rng):
    X = rng.standard_normal((8, 3)) * 1e6
    y = np.arange(8) % 2
    P_hit, P_miss = neighbor_probabilities(weighted_manhattan(X, np.ones(3)), y, sigma=1e-3)
    assert np.all(np.isfinite(P_hit)) and np.all(np.isfinite(P_miss))
    np.testing.assert_allclose(P_hit.sum(axis=1), 1.0)
    np.testing.assert_allclose(P_miss.sum(axis=1), 1.0)
    # sigma -> 0 is 1-NN: all mass on the nearest hit
    D = weighted_manhattan(X, np.ones(3))
    same = (y[:, None] == y[None, :]) & ~np.eye(8, dtype=bool)
    nearest = np.where(same, D, np.inf).argmin(axis=1)
    np.testing.assert_allclose(P_hit[np.arange(8), nearest], 1.0)


def test_infinite_sigma_gives_uniform_probabilities(rng):
    X = rng.standard_normal((9, 2))
    y = np.array([0] * 4 + [1] * 5)
    P_hit, P_miss = neighbor_probabilities(weighted_manhattan(X, np.ones(2)), y, sigma=np.inf)
    assert np.allclose(P_hit[0, 1:4], 1 / 3) and np.allclose(P_miss[0, 4:], 1 / 5)
    assert P_hit[0, 0] == 0 and P_hit[0, 5] == 0


@pytest.mark.parametrize("n_classes, sigma", [(2, 2.0), (3, 0.5), (4, 1e-3)])
def test_probabilities_are_each_sets_softmax_in_numpy_bit_for_bit(rng, n_classes, sigma):
    """Hits and misses share one array of exponents and one exp, then are split: each is still the
    softmax NumPy computes on its own set (−inf elsewhere, NumPy's exp and row sums), bit for bit."""
    N = 61
    X, y = rng.standard_normal((N, 5)), rng.integers(0, n_classes, N)
    D = weighted_manhattan(X, rng.uniform(0.1, 1.0, 5))
    same = y[:, None] == y[None, :]
    for P, member in zip(neighbor_probabilities(D, y, sigma), (same & ~np.eye(N, dtype=bool), ~same)):
        low = np.where(member, D, np.inf).min(axis=1, keepdims=True)
        K = np.exp(np.where(member, -((D - low) / sigma), -np.inf))
        assert np.array_equal(P, K / K.sum(axis=1, keepdims=True))


def test_float32_statistics_agree_with_float64(rng):
    X = rng.standard_normal((40, 300))
    y = np.arange(40) % 2
    w = rng.uniform(0, 1, 300)
    Z64 = expected_margins(X, y, w, 2.0)
    Z32 = expected_margins(X.astype(np.float32), y, w, 2.0)
    assert Z32.dtype == np.float32
    np.testing.assert_allclose(Z32, Z64, rtol=0, atol=1e-4 * np.abs(Z64).max())


@pytest.mark.parametrize("N, J", [(13, 4), (46, 700), (5, 3)])
def test_zbar_products_are_the_definition(rng, N, J):
    """z̄ᵀV without z̄ (the check's gradients): against the N × N × J definition, with rows that
    leave tiles of four incomplete, more columns than one block, float32 and sparse X."""
    X = rng.standard_normal((N, J))
    y = np.arange(N) % 2
    A = margin_coefficients(X, y, rng.uniform(0.1, 2.0, J), 1.3)
    V = rng.standard_normal((N, 2))
    Z = np.einsum("ni,nij->nj", A, np.abs(X[:, None, :] - X[None, :, :]))
    expected = Z.T @ V
    scale = np.abs(expected).max()
    np.testing.assert_allclose(zbar_products(A, X, V), expected, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(zbar_products(A, X, V[:, 0]), expected[:, :1], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(zbar_products(A, sp.csc_array(X), V), expected, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(zbar_products(A, X.astype(np.float32), V), expected, rtol=0, atol=1e-5 * scale)


def test_a_span_read_in_place_and_any_split_into_tasks_give_the_same_sums_bit_for_bit(rng, monkeypatch):
    """A check reads X's columns start:stop where they are (no copy) and the kernels split columns
    into tasks by width: each column's sum is the same, bit for bit, as over the copied columns
    in one task (what keeps a fit's iterates unchanged, whatever the number of threads).  A
    store's X is taken first."""
    X = rng.standard_normal((46, 1500))
    y = np.arange(46) % 2
    A = margin_coefficients(X[:, :10], y, np.ones(10), 1.3)
    V = rng.standard_normal((46, 2))
    part = np.ascontiguousarray(X[:, 200:1400])
    with monkeypatch.context() as one_task:  # one thread, one task of every column
        one_task.setattr(margins, "_threads", lambda n_samples, columns: 1)
        one_task.setattr(margins, "_Z_WIDEST", 10**9)
        ref_products, ref_zbar = zbar_products(A, part, V), signed_abs_sum(A, part)
    for threads in (1, margins.kernel_threads()):
        monkeypatch.setattr(margins, "_threads", lambda n_samples, columns, threads=threads: threads)
        np.testing.assert_array_equal(signed_abs_sum(A, part), ref_zbar)
        assert signed_abs_sum(A, part[:, :0]).shape == (46, 0)  # a working set of no column
    for widest in (64, 520, 4096):
        monkeypatch.setattr(margins, "_Z_WIDEST", widest)
        np.testing.assert_array_equal(zbar_products(A, X, V, span=(200, 1400)), ref_products)
        np.testing.assert_array_equal(zbar_products(A, part, V), ref_products)
        np.testing.assert_array_equal(signed_abs_sum(A, part), ref_zbar)
    with pytest.raises(ValueError, match="span"):
        zbar_products(A, sp.csc_array(X), V, span=(0, 5))


def test_one_thread_and_all_threads_give_the_same_statistics_bit_for_bit(rng, monkeypatch):
    """Small kernels run on one thread (``_SERIAL_PAIRS``: a parallel region's wait would be their
    whole cost): distances, probabilities, z̄, its products and their float32 estimate are the same,
    bit for bit, whichever side of the threshold a call falls (what keeps every fit unchanged)."""
    X = rng.standard_normal((37, 700))
    y = np.arange(37) % 3
    w = rng.random(700) * (rng.random(700) < 0.5)
    V = rng.standard_normal((37, 2))

    def statistics():
        A = margin_coefficients(X, y, w, 1.7)
        return (weighted_manhattan(X, w), A, signed_abs_sum(A, X), zbar_products(A, X, V),
                *zbar_products_estimate(A, X.astype(np.float32), V))

    monkeypatch.setattr(margins, "_SERIAL_PAIRS", 10**12)
    assert margins._threads(37, 700) == 1
    serial = statistics()
    monkeypatch.setattr(margins, "_SERIAL_PAIRS", 0)
    assert margins._threads(37, 700) == margins.kernel_threads()
    for one, every in zip(serial, statistics()):
        np.testing.assert_array_equal(one, every)


def hard_for_float32(rng, kind):
    """X of a shape where float32 loses most, and A at random weights (3 classes)."""
    N, J = {"few rows": (7, 40), "duplicated rows": (64, 700)}.get(kind, (61, 700))
    X = rng.standard_normal((N, J))
    if kind == "offset":
        X = 1e3 + 1e-3 * X
    elif kind == "cauchy":
        X = rng.standard_cauchy((N, J))
    elif kind == "duplicated rows":
        X[1::2] = X[::2]
    elif kind == "tiny":
        X = 1e-35 * X
    y = np.arange(N) % 3
    return X, margin_coefficients(X, y, rng.uniform(0, 1, J) * (rng.uniform(size=J) < 0.2), 2.0)


@pytest.mark.parametrize("kind", ["normal", "offset", "cauchy", "duplicated rows", "tiny", "few rows"])
def test_the_float32_estimate_of_the_products_is_within_its_bound(rng, kind):
    """zbar_products_estimate: |G − zbar_products| ≤ err on data where float32 loses most (large
    values with small differences, heavy tails, duplicated rows, a scale near float32's smallest
    normal numbers, seven rows: one tile and three left); the bound is tight enough to decide (≤ 1e-3 of the
    largest product on normal data); a span gives the same estimate as the whole.  A planted bug
    — one entry of X32 off by 5 % of its column's spread, as a wrong copy would be — leaves the
    bound wherever it is informative (not on large values with small differences, where float32
    cannot tell them apart and the bound says so)."""
    X, A = hard_for_float32(rng, kind)
    N, J = X.shape
    V = rng.standard_normal((N, 2))
    exact = zbar_products(A, X, V)
    X32 = X.astype(np.float32)
    G, err = zbar_products_estimate(A, X32, V)
    assert np.isfinite(err).all() and (np.abs(G - exact) <= err).all()
    if kind == "normal":
        assert err.max() <= 1e-3 * np.abs(exact).max()
    span_G, span_err = zbar_products_estimate(A, X32, V, span=(J // 3, J - 5))
    np.testing.assert_array_equal(span_G, G[J // 3:J - 5])
    np.testing.assert_array_equal(span_err, err[J // 3:J - 5])
    if kind != "offset":
        wrong = X32.copy()
        wrong[1, 7] += np.float32(0.05 * X[:, 7].std())
        G, err = zbar_products_estimate(A, wrong, V)
        assert (np.abs(G - exact) > err).any()


@pytest.mark.parametrize("kind", ["normal", "offset", "cauchy", "duplicated rows", "tiny", "few rows"])
def test_single_margins_gradients_are_within_their_bound(rng, kind):
    """SingleMargins (z̄ of every column in float32, then matrix–vector products): |G − z̄ᵀV| ≤ err
    on the data shapes above, for any subset of the columns; the bound decides (≤ 1e-2 of the
    largest gradient on normal data).  A planted bug, X32 with one entry off by 5 % of its
    column's spread, leaves the bound where it is informative."""
    X, A = hard_for_float32(rng, kind)
    N, J = X.shape
    V = -rng.uniform(0, 1, (N, 2))  # loss derivatives: in [−1, 0] for the logistic
    exact = zbar_products(A, X, V)
    X32 = X.astype(np.float32)
    features = np.sort(rng.choice(J, J // 2, replace=False))
    G, err = margins.SingleMargins(A, X32, np.abs(X32), np.abs(X).max(axis=0)).gradients(features, V)
    assert np.isfinite(err).all() and (np.abs(G - exact[features]) <= err).all()
    if kind == "normal":
        assert err.max() <= 1e-2 * np.abs(exact).max()
    if kind != "offset":
        wrong = X32.copy()
        wrong[1, 7] += np.float32(0.05 * X[:, 7].std())
        G, err = margins.SingleMargins(A, wrong, np.abs(wrong), np.abs(X).max(axis=0)).gradients(np.arange(J), V)
        assert (np.abs(G - exact) > err).any()


def test_the_float32_estimate_gives_no_information_where_float32_overflows(rng):
    """err = inf where float32 could overflow: a column of X near float32's largest numbers, or
    coefficients beyond them while X is small (the estimate is then inf or NaN: a finite bound
    there would clear a feature on an infinite gradient)."""
    X = rng.standard_normal((20, 30))
    A = margin_coefficients(X, np.arange(20) % 2, np.ones(30), 2.0)
    X32 = X.astype(np.float32)
    X32[:, 4] *= np.float32(1e36)
    G, err = zbar_products_estimate(A, X32, rng.standard_normal((20, 1)))
    assert np.isinf(err[4]).all() and np.isfinite(np.delete(err, 4, axis=0)).all()
    with pytest.raises(TypeError, match="float32"):
        zbar_products_estimate(A, X, rng.standard_normal((20, 1)))
    A = np.zeros((8, 8))
    A[0, 1] = 1e39
    X32 = np.zeros((8, 2), dtype=np.float32)
    X32[0, 0] = 3e-39
    X32[:, 1] = np.arange(8)
    G, err = zbar_products_estimate(A, X32, np.ones((8, 1)))
    assert np.isinf(err).all()


def test_the_task_width_benchmark_prints_a_row_per_shape(capsys, monkeypatch):
    """``benchmarks/zbar_task_width.py`` on small shapes: one row per (N, J, float type), its best
    time no more than its median, each finite."""
    from test_nmmkl_benchmarks import BENCH, load

    monkeypatch.syspath_prepend(str(BENCH))  # it takes best_of from the statistics benchmark
    load("zbar_task_width").main(["--N", "20", "--J", "8", "40", "--repeat", "3", "--dtypes", "float64", "float32"])
    rows = [[c.strip() for c in r.split("|")] for r in capsys.readouterr().out.splitlines()[2:]]  # under the header and its rule
    assert [tuple(r[1:4]) for r in rows] == [("20", "8", "float64"), ("20", "8", "float32"),
                                             ("20", "40", "float64"), ("20", "40", "float32")]
    assert all(0 < float(r[4]) <= float(r[5]) < np.inf for r in rows)


def test_blas_runs_on_one_thread_inside_a_fit_and_its_libraries_are_found_once(monkeypatch):
    """``blas_one_thread`` limits every BLAS to one thread and restores it after; the libraries are
    looked for once per process (each look costs milliseconds: 4 % of a small fit), again only
    after a new module was imported."""
    import threadpoolctl

    from fsopt.core import kernels

    real = threadpoolctl.ThreadpoolController

    def blas_threads():
        return [lib["num_threads"] for lib in real().info() if lib["user_api"] == "blas"]

    before, made = blas_threads(), []
    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", lambda: made.append(1) or real())
    monkeypatch.setattr(kernels, "_BLAS", [])
    for _ in range(3):
        with kernels.blas_one_thread():
            inside = blas_threads()
            assert inside and set(inside) == {1}
    assert len(made) == 1
    assert blas_threads() == before


FIRST_FIT_COMPILES_ALL = """
import warnings, numba
from fsopt import LOGO
from fsopt.core import scaling
from fsopt.datasets.shapes import FAMILIES
from fsopt.datasets.spiral import make_spiral
from fsopt.logo import margins

def signatures():
    return {(module.__name__, name): list(getattr(module, name).signatures) for module in (margins, scaling)
            for name in dir(module) if isinstance(getattr(module, name), numba.core.registry.CPUDispatcher)}

warnings.simplefilter("ignore")
LOGO().fit(*make_spiral(30, 20, random_state=0))  # a warm-up fit
before = signatures()
X, y = FAMILIES["interaction"](80, 4198, random_state=0)
default = LOGO(sigma=2.0, max_iter=20, prune_below=1e-8).fit(X, y)  # the working set (N < 300: "auto" skips it)
LOGO(sigma=2.0, max_iter=20, working_set=False, prune_below=None).fit(X, y)
assert [h.restart_reason for h in default.history_ if h.restarted] == ["crowded"]  # the held run ran
new = {key: [s for s in sigs if s not in before.get(key, [])] for key, sigs in signatures().items()}
print({key: [str(s) for s in sigs] for key, sigs in new.items() if sigs})
"""


def test_a_warm_up_fit_compiles_every_kernel_later_fits_run():
    """After one small fit, a fit at J = 4,200 that checks over thousands of features (float32
    estimates, exact products) and hands over to the held run (float32 z̄), and the plain
    iteration, compile nothing more (``compile_kernels``): on a fresh cache that compiling took
    3-8 s inside the default's first such fits, none inside the plain iteration's."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FIRST_FIT_COMPILES_ALL], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "{}"
