"""LOGO's default against the plain iteration on data of several shapes (issue 42).

    python benchmarks/logo_shapes.py [--J 2000 8000 20000] [--seeds 3] [--families interaction minority ...]
                                     [--real heart ionosphere sonar] [--noise 2000] [--repeat 1] [--confirm 0] [--one-core]
                                     [--fast-budget 4] [--geometry n_interacting=3 noise=0.2] [--random-geometry K]
                                     [--sklearn classification moons ...] [--noise-law student]
                                     [--out rows.jsonl]
    python benchmarks/logo_shapes.py --table rows.jsonl [more.jsonl ...]

For each instance two fits, σ = 2, λ = 1 (``--real-lam`` on the real sets), θ = 0.01 (``--theta``),
max_iter = 50 (``--max-iter``), acceleration "auto": the default (working set and elimination, every
instance here is above ``prune_below="auto"``'s N²·J = 2.5e7) and the plain iteration
(``working_set=False, prune_below=None``), one after the other in one process; each row records
θ, max_iter and the working set's allowance it was fitted at; ``--repeat k`` times k pairs, the
order alternating from pair to pair, and reports the medians; ``--confirm k`` times k pairs more of
each fit whose default took above 1.25 × the plain iteration's time (the bound of issue 42) and
judges the bound on the medians of all its pairs, the total staying that of the first pairs.  Recorded per fit: wall time, the counted work
(``history_[t].work``: passes over X, a check's products at ½, columns solved, and each
iteration's own cost, in pass equivalents), passes over X, solves, iterations (outer and all),
outcome, the support, and for the default where and why it handed over to the plain iteration
(``restart_reason``: "budget" or "went round").  J ≥ 20,000: one scipy ``cdist(X, X,
"cityblock")`` too, the yardstick of docs/logo-scale.md.

Instances: the families of :mod:`fsopt.datasets.shapes` at N = ``--samples`` (300), J total
features of which the family's relevant ones, seeds 0..k−1; and the real data sets shipped with
fsopt, standardized, with ``--noise`` N(0, 1) features appended (seeds 0..2), as
``benchmarks/logo_fast_path.py --real`` builds them.  ``--geometry key=value ...`` passes the
families' generators other geometry than their defaults (every family listed must take each key):
the shapes at parameters no constant of the fast path was chosen on; ``--sklearn`` adds
scikit-learn's generators (:func:`sklearn_shapes`); ``--noise-law`` draws the irrelevant
features of the families and the real sets from another law than N(0, 1) (:data:`NOISE_LAWS`:
uniform, Student's t with 3 degrees of freedom, binary, Poisson counts, or N(0, 1) columns in
scales a factor 100 apart).  Rows are printed as they finish (Markdown)
and appended to ``--out`` as JSON lines; ``--table`` prints saved rows and what they add up to.
"""
import argparse
import json
from collections import Counter
import os
import time
import zlib

import numpy as np

from logo_fast_path import PARAMS, REAL_SEEDS, cdist_seconds, fit, real_sets

PLAIN = dict(working_set=False, prune_below=None)
BOUND = 1.25  # issue 42: the default at most this many times the plain iteration's wall time, each fit


def shapes(args):
    from fsopt.datasets.shapes import FAMILIES, HELD_OUT

    for J in args.J:
        for family in args.families:
            make = {**FAMILIES, **HELD_OUT}[family]
            for seed, params in geometries(family, args):
                shape = "".join(f", {key} {value:g}" for key, value in params.items())
                X, y = make(args.samples, 0, random_state=seed, **params)  # its relevant columns alone
                relevant = X.shape[1]
                X, y = make(args.samples, J - relevant, random_state=seed, **params)
                yield redrawn(X, relevant, args.noise_law, seed), y, f"{family}{shape}{law(args)}, seed {seed}", 1.0


def real(args):
    """The real sets with ``--noise`` irrelevant features (logo_fast_path's), drawn from ``--noise-law``."""
    for k, (X, y, label, lam) in enumerate(real_sets(args)):  # each set at seeds 0..REAL_SEEDS-1 in turn
        if args.noise_law != "normal":
            X = redrawn(X, X.shape[1] - args.noise, args.noise_law, k % REAL_SEEDS)
            label = label.replace("N(0,1) features", f"{args.noise_law} features")
        yield X, y, label, lam


# the irrelevant features' law (--noise-law): each draws a (rows, columns) array from a generator;
# the families and the real sets draw N(0, 1), which no user's data need follow
NOISE_LAWS = {
    "normal": None,
    "uniform": lambda rng, shape: rng.uniform(-np.sqrt(3), np.sqrt(3), shape),  # unit variance, bounded
    "student": lambda rng, shape: rng.standard_t(3, shape),  # heavy tails: a few far values a column
    "binary": lambda rng, shape: (rng.random(shape) < 0.1).astype(float),  # a tenth 1: distances tie
    "counts": lambda rng, shape: rng.poisson(2.0, shape).astype(float),  # small integers, many ties
    "scaled": lambda rng, shape: rng.standard_normal(shape) * 10.0 ** rng.uniform(-1, 1, shape[1]),  # unscaled
}


def redrawn(X, relevant, name, seed):
    """X with its columns after the first ``relevant`` drawn again from ``NOISE_LAWS[name]`` (seeded
    by the law's name and ``seed``); X itself where the law is "normal" (the generators' own)."""
    if NOISE_LAWS[name] is None:
        return X
    rng = np.random.default_rng([zlib.crc32(name.encode()), seed])
    return np.hstack([X[:, :relevant], NOISE_LAWS[name](rng, (X.shape[0], X.shape[1] - relevant))])


def law(args):
    return "" if args.noise_law == "normal" else f", {args.noise_law} noise"


# each family's geometry drawn by --random-geometry: (low, high), integers where both are
RANGES = {
    "interaction": {"n_interacting": (2, 4), "balance": (0.2, 0.5), "noise": (0.0, 0.4)},
    "minority": {"n_relevant": (2, 8), "minority": (0.05, 0.3), "curvature": (0.0, 2.0), "noise": (0.0, 0.4)},
    "correlated copies": {"n_copies": (2, 40), "correlation": (0.5, 0.99), "balance": (0.2, 0.5),
                          "noise": (0.0, 0.4)},
    "shells": {"n_relevant": (2, 5), "n_shells": (2, 4), "noise": (0.0, 0.3)},
    "sine boundary": {"frequency": (0.5, 4.0), "amplitude": (0.2, 1.5), "balance": (0.2, 0.5), "noise": (0.0, 0.4)},
    "checkerboard": {"n_cells": (2, 4), "noise": (0.0, 0.2)},
    "clusters": {"n_relevant": (2, 10), "n_clusters": (2, 6), "separation": (0.5, 3.0), "noise": (0.0, 0.4)},
    "noisy linear": {"n_relevant": (2, 20), "flip": (0.0, 0.2), "outliers": (0.0, 0.05), "duplicated": (0.0, 0.1),
                     "noise": (0.0, 0.4)},
}


def geometries(family, args):
    """(seed, generator keywords) of each instance of ``family``: ``--geometry`` for seeds
    ``--first-seed`` + 0..k−1, or with ``--random-geometry K`` K geometries drawn uniformly from
    :data:`RANGES` (the draw seeded by the family's name and its index; the data by the index
    after ``--first-seed``), at parameters no constant of the fast path was chosen on."""
    if not args.random_geometry:
        return [(seed, args.geometry) for seed in range(args.first_seed, args.first_seed + args.seeds)]
    out = []
    for k in range(args.random_geometry):
        rng = np.random.default_rng([zlib.crc32(family.encode()), args.first_seed + k])
        params = {key: int(rng.integers(low, high + 1)) if isinstance(low, int) and isinstance(high, int)
                  else round(float(rng.uniform(low, high)), 3) for key, (low, high) in RANGES[family].items()}
        out.append((args.first_seed + k, {**params, **args.geometry}))
    return out


def sklearn_shapes(args):
    """scikit-learn's generators, which no constant here was chosen on: ``make_classification``
    (its informative features, redundant combinations and N(0, 1) noise, features in its own
    order), and ``make_gaussian_quantiles``, ``make_moons``, ``make_circles`` and
    ``make_hastie_10_2`` standardized with N(0, 1) columns appended up to J."""
    from sklearn import datasets

    def padded(X, y, J, seed):
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        noise = np.random.default_rng(1000 + seed).standard_normal((X.shape[0], J - X.shape[1]))
        return np.hstack([X, noise]), y

    N = args.samples
    make = {
        "classification": lambda J, s: datasets.make_classification(
            N, J, n_informative=5, n_redundant=2, n_clusters_per_class=2, class_sep=1.0, flip_y=0.01, random_state=s),
        "classification, imbalanced": lambda J, s: datasets.make_classification(
            N, J, n_informative=3, n_redundant=0, n_clusters_per_class=1, class_sep=2.0, weights=[0.8, 0.2],
            random_state=s),
        "gaussian quantiles": lambda J, s: padded(*datasets.make_gaussian_quantiles(
            n_samples=N, n_features=3, n_classes=2, random_state=s), J, s),
        "moons": lambda J, s: padded(*datasets.make_moons(N, noise=0.2, random_state=s), J, s),
        "circles": lambda J, s: padded(*datasets.make_circles(N, noise=0.1, factor=0.5, random_state=s), J, s),
        "hastie": lambda J, s: padded(*datasets.make_hastie_10_2(N, random_state=s), J, s),
    }
    for J in args.J:
        for name in args.sklearn:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                yield (*make[name](J, seed), f"sklearn {name}, seed {seed}", 1.0)


SKLEARN = ["classification", "classification, imbalanced", "gaussian quantiles", "moons", "circles", "hastie"]


def geometry(pairs):
    """``--geometry``'s key=value pairs as generator keywords (numbers: int where integral)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        try:
            number = float(value) if sep and key else None
        except ValueError:
            number = None
        if number is None:
            raise SystemExit(f"--geometry takes key=value pairs with a number for value; got {pair!r}")
        out[key] = int(number) if number.is_integer() and "." not in value else number
    return out


def summary_of(est, seconds):
    """One fit's record: time, counted costs, iterations, outcome, support."""
    history = est.history_
    restarts = [h for h in history if h.restarted]
    return {"fit_s": seconds, "work": sum(h.work for h in history), "passes": sum(h.data_passes for h in history),
            "solves": sum(len(h.records) for h in history), "outer": est.n_outer_iter_, "iterations": est.n_iter_,
            "outcome": str(est.outcome_), "diagnosis": getattr(est.outcome_, "describe", lambda: "")(),
            "support": est.get_support(indices=True).tolist(), "prune_below": est.prune_below_,
            "handover": [[h.iteration, h.restart_reason] for h in restarts], "why": where_the_work_went(history)}


def where_the_work_went(history):
    """The default's work split: working-set iterations (count, work, seconds; the work of those
    that ran a check over all features) against iterations over all features (count, work,
    seconds)."""
    ws = [h for h in history if h.working_set]
    full = [h for h in history if not h.working_set and not h.reused]
    def seconds(rows):
        return sum(h.statistics_time + h.update_time + h.check_time for h in rows)

    return {"ws_its": len(ws), "ws_work": sum(h.work for h in ws), "checks": sum(h.full_check for h in history),
            "check_its_work": sum(h.work for h in history if h.full_check), "ws_s": seconds(ws),
            "full_its": len(full), "full_work": sum(h.work for h in full), "full_s": seconds(full),
            "full_stats_s": sum(h.statistics_time for h in full), "full_update_s": sum(h.update_time for h in full)}


def compare(X, y, label, lam, repeat, confirm=0):
    """Default and plain, ``repeat`` pairs in one process (the order alternating), medians of the
    times; where their ratio is above ``BOUND``, ``confirm`` pairs more (the order going on
    alternating) and the medians over all pairs (``first_s``: the medians of the first ``repeat``)."""
    times = {"default": [], "plain": []}
    fits = {}

    def pairs(start, stop):
        for k in range(start, stop):
            for name in (("default", "plain") if k % 2 == 0 else ("plain", "default")):
                est, seconds = fit(X, y, lam=lam, **(PLAIN if name == "plain" else {}))
                fits[name], times[name] = est, times[name] + [seconds]

    pairs(0, repeat)
    first = {n: float(np.median(times[n])) for n in times}
    if first["default"] > BOUND * first["plain"]:
        pairs(repeat, repeat + confirm)
    d, p = (summary_of(fits[n], float(np.median(times[n]))) for n in ("default", "plain"))
    d["pairs"], p["pairs"] = times["default"], times["plain"]
    d["first_s"], p["first_s"] = first["default"], first["plain"]
    d["retimed"] = len(times["default"]) - repeat
    w, w_ref = fits["default"].weights_, fits["plain"].weights_
    from fsopt.logo import working_set

    return {"instance": label, "J": X.shape[1], "N": X.shape[0], "lam": lam, "theta": PARAMS["theta"],
            "max_iter": PARAMS["max_iter"], "fast_budget": working_set.FAST_BUDGET, "default": d, "plain": p,
            "same_support": d["support"] == p["support"],
            "weight_diff": float(np.max(np.abs(w - w_ref)) / max(float(w_ref.max()), 1e-300)),
            "cdist_s": cdist_seconds(X) if X.shape[1] >= 20000 else None, "load": os.getloadavg()[0],
            "cpus": len(os.sched_getaffinity(0))}


HEADER = ("| instance | J | default: outcome, outer its (all) | handover | work | passes | solves | fit s | "
          "plain: outcome, its | work | passes | solves | fit s | time default / plain | work default / plain | "
          "same support | weight diff / max w | load |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def row(r):
    d, p = r["default"], r["plain"]
    handover = ", ".join(f"{reason} at {t}" for t, reason in d["handover"]) or "–"
    cdist = "" if r["cdist_s"] is None else f" ({d['fit_s'] / r['cdist_s']:.2f} cdist)"
    return (f"| {r['instance']} | {r['J']:,} | {d['outcome']} {d['outer']} ({d['iterations']}) | {handover} | "
            f"{d['work']:.1f} | {d['passes']:.1f} | {d['solves']} | {d['fit_s']:.2f}{cdist} | {p['outcome']} "
            f"{p['outer']} | {p['work']:.1f} | {p['passes']:.1f} | {p['solves']} | {p['fit_s']:.2f} | "
            f"{d['fit_s'] / p['fit_s']:.2f} | {d['work'] / p['work']:.2f} | {'yes' if r['same_support'] else 'NO'} | "
            f"{r['weight_diff']:.1e} | {r['load']:.1f} |")


def summary(rows):
    """What the rows add up to: time and work ratios, worst and in total; supports where plain converged."""
    t = np.array([[r["default"]["fit_s"], r["plain"]["fit_s"]] for r in rows])
    # the total from the first pairs of every fit (re-timing only the fits above the bound would
    # lower it); the per-fit bound from all the pairs of a fit
    first = np.array([[r[n].get("first_s", r[n]["fit_s"]) for n in ("default", "plain")] for r in rows])
    w = np.array([[r["default"]["work"], r["plain"]["work"]] for r in rows])
    converged = [r for r in rows if r["plain"]["outcome"] == "converged"]
    worst = max(rows, key=lambda r: r["default"]["fit_s"] / r["plain"]["fit_s"])
    above = int(np.sum(t[:, 0] > BOUND * t[:, 1]))
    retimed = [r["default"]["retimed"] for r in rows if r["default"].get("retimed")]
    confirmed = f" ({int(np.sum(first[:, 0] > BOUND * first[:, 1]))} in their first pairs; those re-timed with " \
                f"{max(retimed)} pairs more, the order alternating)" if retimed else ""
    plain_both = sum(r["default"]["fit_s"] > BOUND * r["plain"]["fit_s"] and
                     r["default"].get("prune_below", "unrecorded") is None for r in rows)
    confirmed += f"; {plain_both} of them where the default is the plain iteration (prune_below_ None)" \
        if plain_both else ""
    return [f"{len(rows)} fits: default / plain wall time {first[:, 0].sum() / first[:, 1].sum():.2f} in total, per fit "
            f"{(t[:, 0] / t[:, 1]).min():.2f}–{(t[:, 0] / t[:, 1]).max():.2f} (worst: {worst['instance']}, "
            f"J = {worst['J']:,}); above {BOUND} on {above}{confirmed}.",
            f"Counted work, default / plain: {w[:, 0].sum() / w[:, 1].sum():.2f} in total, per fit "
            f"{(w[:, 0] / w[:, 1]).min():.2f}–{(w[:, 0] / w[:, 1]).max():.2f}.",
            f"The plain iteration converged in {len(converged)}; of those the default converged in "
            f"{sum(r['default']['outcome'] == 'converged' for r in converged)} with the same support in "
            f"{sum(r['same_support'] for r in converged)} (weight difference / max w ≤ "
            f"{max([r['weight_diff'] for r in converged] or [0]):.1e}).",
            f"The default handed over in {sum(bool(r['default']['handover']) for r in rows)} "
            f"({', '.join(f'{reason}: {n}' for reason, n in handed_over_why(rows))}); "
            f"load average {min(r['load'] for r in rows):.1f}–{max(r['load'] for r in rows):.1f}.",
            *why(rows)]


def handed_over_why(rows):
    """(restart reason, fits that handed over for it), most frequent first."""
    return Counter(h[1] for r in rows for h in r["default"]["handover"]).most_common()


def why(rows):
    """Where the default's work went, against the plain iteration's (rows saved before the split
    was recorded are left out)."""
    split = [r for r in rows if "ws_s" in r["default"].get("why", {})]
    if not split:
        return []
    s = {k: sum(r["default"]["why"][k] for r in split) for k in split[0]["default"]["why"]}
    plain_its = sum(r["plain"]["iterations"] for r in split)
    return [f"Default's work over {len(split)} fits: {s['ws_work']:.0f} in {s['ws_its']} working-set iterations "
            f"({s['ws_work'] / max(s['ws_its'], 1):.2f} per iteration; {s['checks']} checks over all features, "
            f"{s['check_its_work']:.0f} in the iterations that ran one), {s['full_work']:.0f} in {s['full_its']} "
            f"iterations over all features ({s['full_work'] / max(s['full_its'], 1):.2f} each); the plain "
            f"iteration: {sum(r['plain']['work'] for r in split):.0f} in {plain_its} iterations.",
            f"Seconds per unit of work: {s['ws_s'] / max(s['ws_work'], 1e-300):.3f} in working-set iterations, "
            f"{s['full_s'] / max(s['full_work'], 1e-300):.3f} in those over all features (equal if the count "
            f"prices a working-set iteration right); over all features the statistics took "
            f"{s['full_stats_s'] / max(s['full_s'], 1e-300):.0%} of the time, the solves "
            f"{s['full_update_s'] / max(s['full_s'], 1e-300):.0%}."]


def refuse_unknown_geometry(families, given):
    """SystemExit, before any fit, for a ``--geometry`` key a listed family's generator does not take."""
    import inspect

    from fsopt.datasets.shapes import FAMILIES, HELD_OUT

    for family in families:
        takes = inspect.signature({**FAMILIES, **HELD_OUT}[family]).parameters
        if any(p.kind is p.VAR_KEYWORD for p in takes.values()):
            continue  # (a wrapper that passes its keywords on: its generator says)
        unknown = sorted(set(given) - set(takes))
        if unknown:
            raise SystemExit(f"--geometry {unknown[0]}: the generator of {family!r} takes none "
                             f"(it takes {', '.join(k for k in takes if k not in ('n_samples', 'n_irrelevant', 'random_state'))})")


def main(argv=None):
    from fsopt.datasets.shapes import FAMILIES, HELD_OUT

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--J", type=int, nargs="+", default=[2000, 8000, 20000])
    ap.add_argument("--seeds", type=int, default=3, help="seeds per family and J")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--families", nargs="*", default=list(FAMILIES), choices=[*FAMILIES, *HELD_OUT],
                    help="the held-out families (sine boundary, checkerboard, clusters, noisy linear) were "
                         "never used to choose a constant")
    ap.add_argument("--sklearn", nargs="*", default=[], choices=SKLEARN,
                    help="scikit-learn's generators (sklearn_shapes), never used to choose a constant")
    ap.add_argument("--samples", type=int, default=300, help="N of the generated families")
    ap.add_argument("--geometry", nargs="*", default=[], metavar="KEY=VALUE",
                    help="the families' geometry, passed to their generators (e.g. n_interacting=3 noise=0.2)")
    ap.add_argument("--random-geometry", type=int, default=0, metavar="K",
                    help="K geometries per family drawn from RANGES (one seed each) instead of --seeds")
    ap.add_argument("--real", nargs="*", default=["heart", "ionosphere", "sonar"])
    ap.add_argument("--noise", type=int, default=2000, help="N(0, 1) features added to a real data set")
    ap.add_argument("--noise-law", default="normal", choices=list(NOISE_LAWS),
                    help="how the irrelevant features of the families and the real sets are drawn (NOISE_LAWS); "
                         "scikit-learn's generators keep their own")
    ap.add_argument("--real-lam", type=float, default=3.0, help="lambda on the real sets (logo-uci's)")
    ap.add_argument("--repeat", type=int, default=1, help="pairs of fits per instance (medians reported)")
    ap.add_argument("--confirm", type=int, default=0, metavar="K",
                    help=f"K pairs more where the default took over {BOUND} x the plain iteration's time (the "
                         f"bound then read from the medians of all pairs; the total from the first pairs)")
    ap.add_argument("--theta", type=float, default=0.01, help="stopping threshold of both fits")
    ap.add_argument("--max-iter", type=int, default=50, help="max_iter of both fits (outer iterations)")
    ap.add_argument("--out", default=None, help="append each row as a JSON line to this file")
    ap.add_argument("--table", nargs="+", metavar="JSONL", help="print the rows saved by --out and stop")
    ap.add_argument("--fast-budget", type=float, default=None, metavar="B",
                    help="what-if: the working set's allowance in first iterations (FAST_BUDGET, default 4)")
    ap.add_argument("--one-core", type=int, nargs="?", const=0, default=None, metavar="K",
                    help="run on the K-th CPU alone (the kernels then use one thread): on a machine shared with "
                         "other busy processes a two-thread kernel waits for both threads at every parallel region")
    args = ap.parse_args(argv)
    args.geometry = geometry(args.geometry)
    refuse_unknown_geometry(args.families, args.geometry)
    if args.one_core is not None:
        os.sched_setaffinity(0, [sorted(os.sched_getaffinity(0))[args.one_core]])
    if args.table:
        rows = [json.loads(line) for name in args.table for line in open(name) if line.strip()]
        print(HEADER, *map(row, rows), "", *summary(rows), sep="\n")
        return
    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral
    from fsopt.logo import working_set

    if args.fast_budget is not None:
        working_set.FAST_BUDGET = args.fast_budget
    PARAMS.update(theta=args.theta, max_iter=args.max_iter)

    t0 = time.perf_counter()
    LOGO().fit(*make_spiral(30, 20, random_state=0))  # compile the kernels outside the timings
    print(HEADER)
    rows = []
    for X, y, label, lam in (*real(args), *shapes(args), *sklearn_shapes(args)):
        rows.append(compare(X, y, label, lam, args.repeat, args.confirm))
        print(row(rows[-1]), flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(rows[-1]) + "\n")
    print("", *summary(rows), f"({time.perf_counter() - t0:.0f} s)", sep="\n")


if __name__ == "__main__":
    main()
