"""Where one LOGO fit's time goes: its first iteration, its working-set iterations, its checks over
all features and its iterations over all features after a hand-over, from ``history_``'s timers;
and L-BFGS-B's evaluations (calls, evaluations per call, coordinates).

    python benchmarks/logo_time_split.py [--shape fermat] [--turns 1.75] [--seed 1] [--J 20000]
    python benchmarks/logo_time_split.py --family clusters [--samples 300] [--seed 0] [--J 2000]
        [--prune-below 1e-8]

The default fit (σ = 2, λ = 1, θ = 0.01, max_iter = 50; ``--prune-below 1e-8`` the fast path below
J = 4,096, where the default is the plain iteration) of one spiral (``make_spiral(230, J − 2)``,
as ``logo_fast_path.py`` makes them) or one family of :mod:`fsopt.datasets.shapes`, after an untimed
warm-up fit.  The evaluations are counted by wrapping the L-BFGS-B loop
(``fsopt.core.lbfgsb_routine.minimize_on_box``) for this fit only.
"""
import argparse
import time
from collections import Counter

import numpy as np
from logo_fast_path import PARAMS, fit, spirals


def instance(args):
    """The fit's X, y: as ``logo_shapes.py`` makes a family's instance, or ``logo_fast_path.py`` a spiral."""
    if args.family:
        from logo_shapes import shapes

        X, y, *_ = next(shapes(argparse.Namespace(J=[args.J], families=[args.family], samples=args.samples,
                                                  first_seed=args.seed, seeds=1, geometry={}, random_geometry=0,
                                                  noise_law="normal")))
        return X, y
    X, y, *_ = next(spirals(argparse.Namespace(J=[args.J], seeds=[1], shape=[args.shape], turns=[args.turns],
                                               first_seed=args.seed)))
    return X, y


def counted_fit(X, y, **params):
    """The default fit (with LOGO's ``params``), each L-BFGS-B run's coordinates and evaluations recorded."""
    from fsopt.core import composite, lbfgsb, lbfgsb_routine

    runs, original = [], lbfgsb_routine.minimize_on_box

    def counting(fun, x0, *args, **kwargs):
        result = original(fun, x0, *args, **kwargs)
        runs.append((np.size(x0), result.nfev))
        return result

    composite.minimize_on_box = lbfgsb.minimize_on_box = counting
    try:
        est, seconds = fit(X, y, **params)
    finally:
        composite.minimize_on_box = lbfgsb.minimize_on_box = original
    return est, seconds, runs


def split(history):
    """Seconds per part of the fit: (part, iterations, statistics, updates, checks)."""
    def part(name, rows):
        return (name, len(rows), sum(h.statistics_time for h in rows), sum(h.update_time for h in rows),
                sum(h.check_time for h in rows))

    first, rest = history[:1], history[1:]
    return [part("first iteration", first),
            part("working-set iterations", [h for h in rest if h.working_set]),
            part("iterations over all features", [h for h in rest if not h.working_set and not h.reused])]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default=None, help="a family of fsopt.datasets.shapes instead of a spiral")
    ap.add_argument("--samples", type=int, default=300, help="N of the family")
    ap.add_argument("--shape", default="fermat")
    ap.add_argument("--turns", type=float, default=1.75)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--J", type=int, default=20000)
    ap.add_argument("--prune-below", type=lambda text: text if text == "auto" else float(text), default="auto",
                    help="LOGO's prune_below ('auto' or a threshold such as 1e-8)")
    args = ap.parse_args(argv)

    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    LOGO().fit(*make_spiral(30, 20, random_state=0))  # compile the kernels outside the timings
    X, y = instance(args)
    est, seconds, runs = counted_fit(X, y, prune_below=args.prune_below)
    print(f"{X.shape[0]} x {X.shape[1]}, {PARAMS}, prune_below={args.prune_below}: {est.outcome_}, {est.n_iter_} iterations, "
          f"{seconds:.2f} s, {sum(h.full_check for h in est.history_)} checks over all features")
    print("| part | iterations | statistics s | updates s | checks s | share of the fit |\n|---|---|---|---|---|---|")
    for name, n, stats, updates, checks in split(est.history_):
        print(f"| {name} | {n} | {stats:.3f} | {updates:.3f} | {checks:.3f} | "
              f"{(stats + updates + checks) / seconds:.0%} |")
    sizes = np.array([n for n, _ in runs])
    evaluations = np.array([e for _, e in runs])
    print(f"L-BFGS-B: {evaluations.sum()} evaluations in {len(runs)} runs "
          f"({evaluations.mean():.0f} per run), on {sizes.min()}-{sizes.max()} coordinates "
          f"(median {np.median(sizes):.0f})")
    by_size = Counter()
    for n, e in runs:
        by_size["< 100" if n < 100 else "100-499" if n < 500 else "500-999" if n < 1000 else ">= 1000"] += e
    print("evaluations by coordinates: " + ", ".join(f"{k}: {v}" for k, v in by_size.items()))


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t0:.0f} s)")
