"""Kernel efficiency of LOGO's statistics pass (issue 11): achieved operations per second against
this machine's measured peak for the same loop, float64 and float32, in one run.

    python benchmarks/fma_peak.py [--N 460] [--J 20000] [--blocks 64 128 256 512]

All figures are per core (one numba thread) and per CPU second (time.process_time), so that the
load other users put on a shared machine does not scale them:
- FMA peak: the best multiply-add rate of one core, from multiply-add chains in L1 and from a
  single-threaded BLAS matrix product (the machine's arithmetic peak);
- loop peak: the z̄ kernel's own inner loop (``margins._tile``: 4 × 4 row pairs, each
  |x_n − x_i| used for z_n += a·d and z_i += a'·d) on 8 rows that stay in L1 (the ceiling for
  this loop's loads and stores);
- the statistics pass: ``signed_abs_sum`` (z̄, eq. 3) and ``weighted_manhattan`` at N × J, for
  each z̄ column block width, as pair-elements and flop per second, and as fractions of the two
  peaks.
One pair-element of z̄ is 5 flop (a subtraction, two multiply-adds); of the distances 3 flop.
"""
import argparse
import time

import numba
import numpy as np

import fsopt.logo.margins as margins
from fsopt.logo.margins import _tile

REPEAT_FMA = 2_000_000


@numba.njit(fastmath=True, cache=True)
def _fma_peak(a, b, acc, repeat):
    """acc = acc * a + b on independent lanes (vectorized; enough of them to hide the latency)."""
    for _ in range(repeat):
        for k in range(acc.shape[0]):
            acc[k] = acc[k] * a + b
    return acc


@numba.njit(cache=True)
def _loop_peak(A, X, Z, repeat):
    """The inner loop of margins._signed_abs_sum — one 4 × 4 tile of row pairs — on 8 rows that
    stay in L1."""
    for _ in range(repeat):
        _tile(A, X, Z, 0, 4, 0, X.shape[1])
    return Z


def best_of(f, repeat=3):
    """Least CPU time of ``repeat`` calls (process_time: other users' load does not count)."""
    out = []
    for _ in range(repeat):
        t0 = time.process_time()
        f()
        out.append(time.process_time() - t0)
    return min(out)


def fma_peak(dtype):
    """The best multiply-add rate measured on one core: numba chains of acc = acc·a + b, or a
    single-threaded BLAS matrix product (2n³ flop, almost all of them fused multiply-adds; on
    this machine the faster of the two by 2.5–6×)."""
    from threadpoolctl import threadpool_limits

    a, b = dtype(0.999999), dtype(1e-7)
    best = 0.0
    for lanes in (16, 32, 64, 128):
        acc = np.ones(lanes, dtype=dtype)
        _fma_peak(a, b, acc, 10)
        t = best_of(lambda: _fma_peak(a, b, acc, REPEAT_FMA // lanes * 32))
        best = max(best, 2 * lanes * (REPEAT_FMA // lanes * 32) / t)
    M = np.random.default_rng(0).standard_normal((2048, 2048)).astype(dtype)
    with threadpool_limits(1):
        M @ M
        best = max(best, 2 * 2048**3 / best_of(lambda: M @ M))
    return best  # flop/s


def loop_peak(dtype, width=128, repeat=100_000):
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (8, 8)).astype(dtype)
    X = rng.standard_normal((8, width)).astype(dtype)
    _loop_peak(A, X, np.zeros_like(X), 1)
    t = best_of(lambda: _loop_peak(A, X, np.zeros_like(X), repeat))
    return repeat * 16 * width / t  # pair-elements/s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=460)
    ap.add_argument("--J", type=int, default=20_000)
    ap.add_argument("--blocks", type=int, nargs="+", default=[512, margins._Z_WIDEST, 2560],
                    help="widest column task of the z̄ kernel (margins._Z_WIDEST) to compare")
    args = ap.parse_args()
    numba.set_num_threads(1)
    rng = np.random.default_rng(0)
    X64 = rng.standard_normal((args.N, args.J))
    A64 = rng.uniform(-1, 1, (args.N, args.N)) / args.N
    w = np.ones(args.J)
    pairs = args.N * (args.N - 1) / 2 * args.J
    print(f"one core, per CPU second; N = {args.N}, J = {args.J:,}")
    print("| float | FMA peak (Gflop/s) | loop peak (G pair-el/s) | z̄ widest task | z̄ pass (G pair-el/s) "
          "| z̄ pass (Gflop/s) | z̄ / FMA peak | z̄ / loop peak | distances (G pair-el/s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    default_block = margins._Z_WIDEST
    for dtype in (np.float64, np.float32):
        X, A = X64.astype(dtype), A64.astype(dtype)
        peak_flops, peak_loop = fma_peak(dtype), loop_peak(dtype)
        margins.weighted_manhattan(X[:, :256], w[:256])
        t_d = best_of(lambda: margins.weighted_manhattan(X, w))
        for margins._Z_WIDEST in args.blocks:
            margins.signed_abs_sum(A, X[:, :256])
            t_z = best_of(lambda: margins.signed_abs_sum(A, X))
            rate = pairs / t_z
            print(f"| {np.dtype(dtype).name} | {peak_flops / 1e9:.1f} | {peak_loop / 1e9:.2f} | "
                  f"{margins._Z_WIDEST} | {rate / 1e9:.2f} | {5 * rate / 1e9:.1f} | "
                  f"{5 * rate / peak_flops:.2f} | {rate / peak_loop:.2f} | "
                  f"{pairs / t_d / 1e9:.2f} |", flush=True)
    margins._Z_WIDEST = default_block


if __name__ == "__main__":
    main()
