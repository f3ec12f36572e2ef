"""Kernel efficiency of LOGO's statistics pass (issue 11): achieved operations per second against
this machine's measured peak for the same loop, float64 and float32, in one run.

    python benchmarks/fma_peak.py [--N 460] [--J 20000] [--blocks 32 64 128 256]

Three figures per float type, all on both cores (numba prange):
- FMA peak: independent fused multiply-adds in registers (the arithmetic ceiling);
- loop peak: the abs-diff-accumulate loop of the statistics, z_n += a·|x_n − x_i|,
  z_i += a'·|x_n − x_i|, on data that stays in L1 (the ceiling for this loop's loads/stores);
- the statistics pass: ``signed_abs_sum`` (z̄, eq. 3) and ``weighted_manhattan`` at N × J, for
  each column block width, as pair-elements per second and as a fraction of the loop peak.
One pair-element of z̄ is 5 flop (a subtraction, two FMAs); of the distances 3 flop.
"""
import argparse
import time

import numba
import numpy as np

import fsopt.margins as margins

REPEAT_FMA = 200_000


@numba.njit(parallel=True, fastmath=True, cache=True)
def _fma_peak(a, b, acc, repeat):
    """acc[t, :] = acc * a + b, 64 independent lanes per thread: latency hidden, FMA-bound."""
    for t in numba.prange(acc.shape[0]):
        row = acc[t]
        for _ in range(repeat):
            for k in range(row.shape[0]):
                row[k] = row[k] * a + b
    return acc


@numba.njit(parallel=True, cache=True)
def _loop_peak(A, X, Z, repeat):
    """The inner loops of margins._signed_abs_sum on a (rows × width) block that stays in L1."""
    rows, width = X.shape[1], X.shape[2]
    for t in numba.prange(X.shape[0]):
        for _ in range(repeat):
            for n in range(rows):
                xn, zn = X[t, n], Z[t, n]
                for i in range(n + 1, rows):
                    a_ni, a_in = A[n, i], A[i, n]
                    xi, zi = X[t, i], Z[t, i]
                    for j in range(width):
                        d = abs(xn[j] - xi[j])
                        zn[j] += a_ni * d
                        zi[j] += a_in * d
    return Z


def best_of(f, repeat=3):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        out.append(time.perf_counter() - t0)
    return min(out)


def fma_peak(dtype, threads):
    acc = np.ones((threads, 64), dtype=dtype)
    a, b = dtype(0.999999), dtype(1e-7)
    _fma_peak(a, b, acc.copy(), 10)
    t = best_of(lambda: _fma_peak(a, b, acc.copy(), REPEAT_FMA))
    return 2 * threads * 64 * REPEAT_FMA / t  # flop/s


def loop_peak(dtype, threads, rows=8, width=128, repeat=20_000):
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (rows, rows)).astype(dtype)
    X = rng.standard_normal((threads, rows, width)).astype(dtype)
    _loop_peak(A, X, np.zeros_like(X), 1)
    t = best_of(lambda: _loop_peak(A, X, np.zeros_like(X), repeat))
    return threads * repeat * rows * (rows - 1) / 2 * width / t  # pair-elements/s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=460)
    ap.add_argument("--J", type=int, default=20_000)
    ap.add_argument("--blocks", type=int, nargs="+", default=[margins._BLOCK])
    args = ap.parse_args()
    threads = numba.get_num_threads()
    rng = np.random.default_rng(0)
    X64 = rng.standard_normal((args.N, args.J))
    A64 = rng.uniform(-1, 1, (args.N, args.N)) / args.N
    w = np.ones(args.J)
    pairs = args.N * (args.N - 1) / 2 * args.J
    print(f"{threads} threads; N = {args.N}, J = {args.J:,}")
    print("| float | FMA peak (Gflop/s) | loop peak (G pair-el/s) | block | z̄ pass (G pair-el/s) "
          "| z̄ / loop peak | z̄ Gflop/s / FMA peak | distances (G pair-el/s) |")
    print("|---|---|---|---|---|---|---|---|")
    default_block = margins._BLOCK
    for dtype in (np.float64, np.float32):
        X, A = X64.astype(dtype), A64.astype(dtype)
        peak_flops, peak_loop = fma_peak(dtype, threads), loop_peak(dtype, threads)
        for block in args.blocks:
            margins._BLOCK = block
            margins.signed_abs_sum(A, X[:, :256])
            margins.weighted_manhattan(X[:, :256], w[:256])
            t_z = best_of(lambda: margins.signed_abs_sum(A, X))
            t_d = best_of(lambda: margins.weighted_manhattan(X, w))
            rate = pairs / t_z
            print(f"| {np.dtype(dtype).name} | {peak_flops / 1e9:.1f} | {peak_loop / 1e9:.2f} | "
                  f"{block} | {rate / 1e9:.2f} | {rate / peak_loop:.2f} | "
                  f"{5 * rate / peak_flops:.2f} | {pairs / t_d / 1e9:.2f} |", flush=True)
    margins._BLOCK = default_block


if __name__ == "__main__":
    main()
