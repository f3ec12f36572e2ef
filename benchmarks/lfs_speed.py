"""LFS fit time for N = 100, M ∈ {100, 1000, 10000}, α = 5, τ = 2, n_beta = 20, R = 1000
(paper §4.6: about 25 s for N = 100, M = 10,000 on a 12-core desktop, Matlab).

    python benchmarks/lfs_speed.py [--m 100 1000 10000] [--n-jobs 2] [--paths default fast cvxpy]
                                   [--backend loky|dask] [--warm-start] [--data FILE --train 60]

Paths: "default" = LFS() as it stands: (9) by BOXLP (the exact dual method), (8) by TOPK;
"fast" = (9) by HIGHSPY (highspy directly, warm-started β sweep) and (8) by TOPK (closed
form); "cvxpy" = HiGHS through cvxpy for both LPs (one compiled Problem per process, a, b, ε as
Parameters).  Data: the synthetic set of Fig. 3 padded with irrelevant features.
The columns split the time into statistics (weights (10), a, b) and the per-point work
(LPs, rounding, β selection), summed over the τ passes.  ``--backend dask`` runs the per-point
problems on a local dask.distributed cluster (n-jobs workers, one thread each).
``--warm-start`` adds, per M, the 20-β sweep of (9) for one representative point by HIGHSPY
warm-started (one model, only the bound of bᵀf ≥ ε changes) vs cold (a new model per β).
``--data FILE --train N`` (a data set name or a CSV in the shipped format, e.g. ALLAML) instead
times one LFS fit (LFS's defaults: α = 5, n_jobs=None) on N training rows (a stratified split,
seed 0), z-scored: the default and ``solver="HIGHSPY"``, interleaved ``--repeat`` times after an
untimed warm-up fit of each (imports, compiled kernels), with their wall-clock and CPU-time ratios
and whether they select the same sets.
"""
import argparse
import contextlib
import time

import numpy as np

from fsopt.datasets import load_dataset, standardize
from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
from fsopt.lfs import LFS, EpsilonConstraint, epsilon_max_closed_form
from fsopt.lfs.method import beta_grid, unit_mean
from fsopt.lfs.weights import local_costs

PATHS = {"default": {}, "fast": dict(solver="HIGHSPY", eps_solver="TOPK"),
         "cvxpy": dict(solver="HIGHS", eps_solver=None)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--paths", nargs="+", default=["default", "fast", "cvxpy"], choices=list(PATHS))
    parser.add_argument("--backend", default="loky", choices=["loky", "dask"])
    parser.add_argument("--warm-start", action="store_true")
    parser.add_argument("--data", help="time one fit on this data set's training part instead")
    parser.add_argument("--train", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.data:
        real_data_table(args)
        return
    with _cluster(args.backend, args.n_jobs):
        fit_table(args)
    if args.warm_start:
        warm_start_table(args.m)


@contextlib.contextmanager
def _cluster(backend, n_workers):
    if backend != "dask":
        yield
        return
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster):
        yield


def _data(m):
    X, y = make_lfs_synthetic(n_plus=25, n_diamond=25, n_circle=50, n_irrelevant=m - 2, random_state=0)
    return standardize(X), y


def fit_table(args):
    print(f"{'path':6} {'N':>4} {'M':>6} {'fit_s':>7} {'stats_s':>7} {'points_s':>8} {'LPs':>5} "
          f"{'LP_solve_s':>10} {'max_resid':>9}")
    for path in args.paths:
        for m in args.m:
            X, y = _data(m)
            est = LFS(alpha=5, n_jobs=args.n_jobs, backend=args.backend, random_state=0, **PATHS[path])
            t0 = time.perf_counter()
            est.fit(X, y)
            fit = time.perf_counter() - t0
            h = est.history_
            solve = sum(r.solve_time + r.compile_time for it in h for r in it.records)
            print(f"{path:6} {X.shape[0]:>4} {m:>6} {fit:7.2f} {sum(i.statistics_time for i in h):7.2f} "
                  f"{sum(i.update_time for i in h):8.2f} {est.lp_check_['n_lps']:>5} {solve:10.2f} "
                  f"{est.lp_check_['max_residual']:9.1e}", flush=True)
    print("LP_solve_s sums the solvers' own times across workers (it can exceed the wall time).")


def real_data_table(args, alpha=5):
    """One LFS fit on the first ``args.train`` rows of a stratified shuffle of ``args.data``: the
    default and HIGHSPY interleaved, the ratio of their median times, and the selected sets."""
    from sklearn.model_selection import train_test_split

    X, y = load_dataset(args.data)
    train, _ = train_test_split(np.arange(len(y)), train_size=args.train, stratify=y, random_state=0)
    X, y = standardize(X[train]), y[train]
    print(f"{args.data}: {X.shape[0]} x {X.shape[1]}, alpha={alpha}, tau=2, n_beta=20, R=1000, n_jobs=None")
    print(f"{'repeat':>6} {'default_s':>9} {'HIGHSPY_s':>9} {'ratio':>6} {'cpu_ratio':>9} {'same_sets':>9} "
          f"{'LPs':>5} {'max_resid':>9}")
    paths = (("default", {}), ("HIGHSPY", {"solver": "HIGHSPY"}))
    for _, params in paths:  # warm-up: imports and compiled kernels are not timed
        LFS(alpha=2, n_beta=2, n_rounding=10, **params).fit(X[:, :50], y)
    wall, cpu = {"default": [], "HIGHSPY": []}, {"default": [], "HIGHSPY": []}
    for rep in range(args.repeat):
        fits = {}
        for name, params in paths:
            t0, c0 = time.perf_counter(), time.process_time()
            fits[name] = LFS(alpha=alpha, random_state=0, **params).fit(X, y)
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
        same = bool(np.array_equal(fits["default"].fstar_, fits["HIGHSPY"].fstar_))
        print(f"{rep:>6} {wall['default'][-1]:9.2f} {wall['HIGHSPY'][-1]:9.2f} "
              f"{wall['HIGHSPY'][-1] / wall['default'][-1]:6.1f} {cpu['HIGHSPY'][-1] / cpu['default'][-1]:9.1f} "
              f"{str(same):>9} {fits['default'].lp_check_['n_lps']:>5} "
              f"{fits['default'].lp_check_['max_residual']:9.1e}", flush=True)
    med = {k: float(np.median(v)) for k, v in wall.items()}
    print(f"median wall: default {med['default']:.2f} s, HIGHSPY {med['HIGHSPY']:.2f} s, "
          f"ratio {med['HIGHSPY'] / med['default']:.1f}")


def warm_start_table(ms, alpha=5, n_beta=20):
    """One point's β sweep of (9) (first-pass costs): warm-started HIGHSPY vs a cold model per β."""
    print(f"\n{'M':>6} {'warm_ms':>8} {'cold_ms':>8} {'warm_iters':>10} {'cold_iters':>10} {'max_obj_diff':>12}")
    for m in ms:
        X, y = _data(m)
        A, B = local_costs(X, y, np.ones((len(y), len(y))))
        a, b = unit_mean(A[0]), unit_mean(B[0])
        eps_max = epsilon_max_closed_form(b, alpha)
        runs = {}
        for mode in ("warm", "cold"):
            ec = EpsilonConstraint(m, alpha)
            ec.set_data(a, b)
            t0, recs = time.perf_counter(), []
            for beta in beta_grid(n_beta):
                if mode == "cold":
                    ec.set_data(a, b)  # new data version: HIGHSPY builds a fresh model
                ec.set_epsilon(beta * eps_max)
                recs.append(ec.solve("HIGHSPY"))
            runs[mode] = (1e3 * (time.perf_counter() - t0), sum(r.iterations for r in recs),
                          np.array([r.objective for r in recs]))
        diff = float(np.max(np.abs(runs["warm"][2] - runs["cold"][2])))
        print(f"{m:>6} {runs['warm'][0]:8.1f} {runs['cold'][0]:8.1f} {runs['warm'][1]:>10} "
              f"{runs['cold'][1]:>10} {diff:12.1e}", flush=True)


if __name__ == "__main__":
    main()
