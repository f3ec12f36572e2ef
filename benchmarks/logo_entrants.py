"""LBFGSB's entrants from estimates against entrants from exact gradients, in LOGO's held run.

    python benchmarks/logo_entrants.py [--families checkerboard shells] [--J 8000 20000] [--seed 4]
                                       [--samples 300] [--repeat 5]

In the plain run after a hand-over, LBFGSB's working set reads the gradients of the columns it does
not hold from z̄ in float32 with an error bound.  With ``gradient_estimate`` (the default) it asks
exact entries only where the bound cannot decide which features enter
(:func:`fsopt.core.lbfgsb.most_violating`); without it (the held margins' ``gradient_estimate``
hidden, as before that function) every feature the bound cannot show to be no violator is computed
exactly.  For each instance (a family of :mod:`fsopt.datasets.shapes`, as ``logo_shapes.py`` makes
it), ``--repeat`` pairs of default fits in one process, the order alternating, after an untimed
warm-up: wall time (medians and the pairs' range), the columns whose gradients were computed exactly
(as products, or as the z̄ columns the held margins compute and hold for the entries LBFGSB asks),
the seconds that took, and whether the two fits' weights agree bit for bit (they must: the same
features enter).
"""
import argparse
import time
from contextlib import contextmanager

import numpy as np
from logo_fast_path import fit
from logo_time_split import instance


@contextmanager
def exact_entrants():
    """LOGO's held margins without ``gradient_estimate``: LBFGSB reads their exact gradient."""
    from fsopt.logo.held_margins import HeldMargins

    estimate = HeldMargins.gradient_estimate
    del HeldMargins.gradient_estimate
    try:
        yield
    finally:
        HeldMargins.gradient_estimate = estimate


def counted(X, y):
    """One default fit: (estimator, seconds, columns computed exactly, seconds that took): the exact
    products, and the columns not held yet whose entries LBFGSB asked (computed and held then)."""
    from fsopt.logo.held_margins import HeldMargins
    from fsopt.logo.method import LogoFixedPoint

    tally = [0, 0.0]
    products, entries = LogoFixedPoint._exact_products, HeldMargins.gradient_entries

    def counting_products(self, cols, S):
        t0 = time.perf_counter()
        try:
            return products(self, cols, S)
        finally:
            tally[0] += cols.size
            tally[1] += time.perf_counter() - t0

    def counting_entries(self, w, features):
        tally[0] += np.unique(np.asarray(features)[self._position[features] < 0]).size
        t0 = time.perf_counter()
        try:
            return entries(self, w, features)
        finally:
            tally[1] += time.perf_counter() - t0

    LogoFixedPoint._exact_products, HeldMargins.gradient_entries = counting_products, counting_entries
    try:
        est, seconds = fit(X, y)
    finally:
        LogoFixedPoint._exact_products, HeldMargins.gradient_entries = products, entries
    return est, seconds, *tally


def compare(X, y, repeat):
    runs = {"estimates": [], "exact": []}
    for k in range(repeat):
        for way in (("estimates", "exact") if k % 2 == 0 else ("exact", "estimates")):
            if way == "exact":
                with exact_entrants():
                    runs[way].append(counted(X, y))
            else:
                runs[way].append(counted(X, y))
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", nargs="+", default=["checkerboard", "shells"])
    ap.add_argument("--J", type=int, nargs="+", default=[8000, 20000])
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    LOGO().fit(*make_spiral(30, 20, random_state=0))  # compile the kernels outside the timings
    print("| instance | J | outcome | fit s, estimates | fit s, exact | estimates / exact (pairs) | exact columns, "
          "estimates | exact | their s, estimates | exact | same weights |\n|---|---|---|---|---|---|---|---|---|---|---|")
    for family in args.families:
        for J in args.J:
            X, y = instance(argparse.Namespace(family=family, J=J, seed=args.seed, samples=args.samples))
            runs = compare(X, y, args.repeat)
            a, b = (np.array([r[1:] for r in runs[way]]) for way in ("estimates", "exact"))
            same = all(np.array_equal(p[0].weights_, q[0].weights_) for p, q in zip(runs["estimates"], runs["exact"]))
            pairs, (fit_a, _, products_a), (fit_b, _, products_b) = a[:, 0] / b[:, 0], np.median(a, 0), np.median(b, 0)
            cells = [f"{family}, seed {args.seed}", f"{J:,}", runs["estimates"][0][0].outcome_, f"{fit_a:.2f}",
                     f"{fit_b:.2f}", f"{fit_a / fit_b:.2f} ({pairs.min():.2f}–{pairs.max():.2f})", f"{int(a[0, 1]):,}",
                     f"{int(b[0, 1]):,}", f"{products_a:.2f}", f"{products_b:.2f}", "yes" if same else "NO"]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
