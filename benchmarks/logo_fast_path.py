"""LOGO's fast path against the plain iteration on data it was not tuned to (issue 25).

    python benchmarks/logo_fast_path.py [--J 2000 8000 20000 100000] [--seeds 3 3 2 1]
                                        [--turns 1 1.5 1.75] [--shape fermat archimedean] [--first-seed 0]
                                        [--real heart ionosphere sonar] [--noise 2000] [--out rows.jsonl]
    python benchmarks/logo_fast_path.py --table rows.jsonl [more.jsonl ...]
    python benchmarks/logo_fast_path.py --default-only [--J ... --seeds ... as above] [--repeat k] [--starts k --jitter 1e-9]

For each instance, two fits at σ = 2, θ = 0.01 (``--theta``), max_iter = 50 (``--max-iter``), acceleration "auto" (``--acceleration``; λ = 1 on the spirals, ``--real-lam``
on the real data sets): the default (working set and
elimination: every instance here is above ``prune_below="auto"``'s N²·J = 2.5e7) and the plain iteration without elimination
(``working_set=False, prune_below=None``).  Reported: each fit's outcome, outer iterations
(all iterations in parentheses), passes over X, fit time and its ratio to one scipy
``cdist(X, X, "cityblock")`` on the same X (J ≥ 20,000), whether the supports agree, the largest
weight difference relative to max w, and the default fit's certificate (the full-J KKT residual
at the margins its last solve was solved at, over its bound).  Where the plain iteration does not
converge, a third fit, the plain iteration with ``acceleration="averaging"`` and five times
``max_iter``, says whether a fixed point exists that the default reached: its outcome and
iterations, and its support and weights against the default's.

``--default-only`` runs the default fit alone (outcome, iterations, passes, support: to compare a
new version with the tables) and times it against one cdist pass on the instances with
J ≥ 20,000 (the cost bound of issue 25), without the plain iteration's slow fits; ``--repeat k``
times k pairs of a cdist pass and a fit in turn and reports the ratio of the medians, with the
pairs' range (the machine's noise moves one pair by ±10 %).  ``--starts k`` fits each instance again
from k starts within ``--jitter`` (1e-9) of the paper's w = 1 (w = 1 + jitter·ε, ε ~ N(0, 1) seeded
0..k−1, in the units the iteration acts on): whether an outcome is the instance's or its rounding's
(the slow spiral of docs/logo-scale.md: which way a map that does not contract goes depends on the
last bits of its first iterates).

``--table`` prints the saved rows of earlier runs as one Markdown table, then what they add up to: fits
where the plain iteration converged and the default did not, supports that differ, weight differences
per θ, and the fit/cdist ratios; rows saved by ``--default-only`` make a second table, one line per
instance with a pair of columns per θ (the table of docs/logo-scale.md at J ≥ 20,000).

Instances: spirals (Fermat's and Archimedes', each number of turns, J total features of which
2 relevant, seeds ``--first-seed`` + 0..k−1 per J), and real data sets shipped with fsopt, standardized, with
``--noise`` N(0, 1) features appended (seeds 0..2).  Rows are printed as they finish (Markdown)
and appended to ``--out`` as JSON lines.
"""
import argparse
import json
import os
import time
import warnings
from collections import Counter

import numpy as np
from sklearn.exceptions import ConvergenceWarning

PARAMS = dict(sigma=2.0, theta=0.01, max_iter=50)
TIMED_FROM = 20000  # J from which a fit is timed against one cdist pass (issue 25's bound)


def fit(X, y, **kwargs):
    from fsopt import LOGO

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # outcomes are reported
        t0 = time.perf_counter()
        est = LOGO(**{**PARAMS, **kwargs}).fit(X, y)
        return est, time.perf_counter() - t0


def compare(X, y, label, cdist_time=None, lam=1.0):
    default, t_default = fit(X, y, lam=lam)
    plain, t_plain = fit(X, y, lam=lam, working_set=False, prune_below=None)
    w, w_ref = default.weights_, plain.weights_
    c = default.certificate_
    reference = None
    if plain.outcome_ != "converged":  # another path to a fixed point the default may have reached
        ref, t_ref = fit(X, y, lam=lam, working_set=False, prune_below=None, acceleration="averaging",
                         max_iter=5 * PARAMS["max_iter"])
        reference = {"acceleration": "averaging", "outcome": ref.outcome_, "iterations": ref.n_iter_,
                     "passes": sum(h.data_passes for h in ref.history_), "fit_s": t_ref,
                     "same_support": bool(np.array_equal(default.get_support(), ref.get_support())),
                     "weight_diff": float(np.max(np.abs(w - ref.weights_)) / max(float(ref.weights_.max()), 1e-300))}
    return {"instance": label, "J": X.shape[1], "lam": lam, "theta": PARAMS["theta"], "max_iter": PARAMS["max_iter"],
            "acceleration": PARAMS.get("acceleration", "auto"),
            "default": {"outcome": default.outcome_, "outer": default.n_outer_iter_, "iterations": default.n_iter_,
                        "passes": sum(h.data_passes for h in default.history_), "fit_s": t_default,
                        "support": default.get_support(indices=True).tolist()[:20]},
            "plain": {"outcome": plain.outcome_, "outer": plain.n_outer_iter_, "iterations": plain.n_iter_,
                      "passes": sum(h.data_passes for h in plain.history_), "fit_s": t_plain,
                      "support": plain.get_support(indices=True).tolist()[:20]},
            "same_support": bool(np.array_equal(default.get_support(), plain.get_support())),
            "weight_diff": float(np.max(np.abs(w - w_ref)) / max(float(w_ref.max()), 1e-300)),
            "reference": reference, "kkt_over_bound": c.kkt_residual / c.kkt_bound, "certified": c.holds,
            "cdist_s": cdist_time, "load": os.getloadavg()[0]}


def cdist_seconds(X):
    from scipy.spatial.distance import cdist

    t0 = time.perf_counter()
    cdist(X, X, "cityblock")
    return time.perf_counter() - t0


def spirals(args):
    from fsopt.datasets.spiral import make_spiral

    for J, k in zip(args.J, args.seeds):
        for shape in args.shape:
            for turns in args.turns:
                for seed in range(args.first_seed, args.first_seed + k):
                    X, y = make_spiral(230, J - 2, turns=turns, random_state=seed, shape=shape)
                    yield X, y, f"{shape} spiral, {turns:g} turns, seed {seed}", 1.0


REAL_SEEDS = 3  # each real set with its noise features drawn at seeds 0..REAL_SEEDS-1


def real_sets(args):
    from fsopt.datasets import add_irrelevant_features, load_dataset, standardize

    for name in args.real:
        X0, y0 = load_dataset(name)
        X0 = standardize(np.asarray(X0, dtype=float))
        for seed in range(REAL_SEEDS):
            X = add_irrelevant_features(X0, args.noise, random_state=seed)
            yield X, y0, f"{name} + {args.noise} N(0,1) features, seed {seed}", args.real_lam


HEADER = ("| instance | J | θ | default: outcome, outer its (all) | passes | fit s (/cdist) | no elimination: "
          "outcome, its | passes | fit s (/cdist) | same support | weight diff / max w | default KKT / bound | "
          "where no elimination did not converge: the plain iteration with averaging, its; same support, weight diff |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def row(r):
    d, p = r["default"], r["plain"]
    ratio = lambda f: "" if r["cdist_s"] is None else f" ({f['fit_s'] / r['cdist_s']:.2f})"
    return (f"| {r['instance']} | {r['J']:,} | {r['theta']:g} | {d['outcome']} {d['outer']} ({d['iterations']}) | "
            f"{d['passes']:.2f} | {d['fit_s']:.1f}{ratio(d)} | {p['outcome']} {p['outer']} | {p['passes']:.2f} | "
            f"{p['fit_s']:.1f}{ratio(p)} | {'yes' if r['same_support'] else 'NO'} | {r['weight_diff']:.1e} | "
            f"{r['kkt_over_bound']:.2g} | {reference_cell(r.get('reference'))} |")


def reference_cell(ref):
    """The last column: the plain iteration with averaging, where the plain iteration did not converge."""
    if ref is None:
        return ""
    return (f"{ref['outcome']} {ref['iterations']}; {'yes' if ref['same_support'] else 'NO'}, "
            f"{ref['weight_diff']:.1e}")


def summary(rows):
    """What the rows add up to, as lines of text."""
    plain_ok = [r for r in rows if r["plain"]["outcome"] == "converged"]
    lines = [f"{len(rows)} fits; the plain iteration converged in {len(plain_ok)}; of those, the default did not "
             f"converge in {sum(r['default']['outcome'] != 'converged' for r in plain_ok)} and chose another support "
             f"in {sum(not r['same_support'] for r in plain_ok)}; the certificate failed in "
             f"{sum(not r['certified'] for r in rows if r['default']['outcome'] == 'converged')} of the "
             f"{sum(r['default']['outcome'] == 'converged' for r in rows)} fits the default called converged."]
    others = [r for r in rows if r["plain"]["outcome"] != "converged" and r.get("reference")]
    if others:
        reached = [r for r in others if r["reference"]["outcome"] == "converged"]
        lines.append(f"Where the plain iteration did not converge ({len(others)} fits with the averaging run), it "
                     f"converged with averaging in {len(reached)} and the default in "
                     f"{sum(r['default']['outcome'] == 'converged' for r in others)}; the default converged to "
                     f"the averaging run's support in "
                     f"{sum(r['default']['outcome'] == 'converged' and r['reference']['same_support'] for r in reached)}"
                     f" of those (weight difference / max w ≤ "
                     f"{max([r['reference']['weight_diff'] for r in reached] or [0]):.1e}).")
    for theta in sorted({r["theta"] for r in plain_ok}):
        diffs = [r["weight_diff"] for r in plain_ok if r["theta"] == theta]
        lines.append(f"θ = {theta:g}: weight difference / max w ≤ 1e-3 in {sum(d <= 1e-3 for d in diffs)} of "
                     f"{len(diffs)} fits, largest {max(diffs):.1e}.")
    for r in rows:
        if r["cdist_s"] is not None:
            lines.append(f"{r['instance']}, J = {r['J']:,}, θ = {r['theta']:g}: default {r['default']['fit_s'] / r['cdist_s']:.2f} "
                         f"cdist passes ({r['default']['outer']} outer iterations), plain "
                         f"{r['plain']['fit_s'] / r['cdist_s']:.2f} ({r['plain']['outer']}); load {r['load']:.1f}.")
    return lines


def time_default(args):
    """``--default-only``: the default fit alone (outcome, iterations, passes, support), and its
    time over one cdist pass on the instances with J ≥ 20,000: with ``--repeat k``, k pairs of a
    cdist pass and a fit in turn, the medians' ratio (and the pairs' range).  Rows go to ``--out``
    as JSON lines as well."""
    print(DEFAULT_HEADER)
    rows = []
    for X, y, label, lam in (*real_sets(args), *spirals(args)):
        timed = X.shape[1] >= TIMED_FROM
        pairs = [(cdist_seconds(X) if timed else None, *fit(X, y, lam=lam)) for _ in range(args.repeat if timed else 1)]
        est = pairs[-1][1]
        starts = [start_summary(fit(X, y, lam=lam, w0=w0)[0]) for w0 in jittered_starts(X, args)]
        rows.append({"instance": label, "J": X.shape[1], "lam": lam, "theta": PARAMS["theta"],
                     "max_iter": PARAMS["max_iter"], "acceleration": PARAMS.get("acceleration", "auto"),
                     "default_only": {"outcome": est.outcome_, "outer": est.n_outer_iter_, "iterations": est.n_iter_,
                                      "passes": sum(h.data_passes for h in est.history_),
                                      "support": est.get_support(indices=True).tolist()[:20],
                                      "pairs": [[c, t] for c, _, t in pairs]},
                     "starts": starts, "jitter": args.jitter, "load": os.getloadavg()[0]})
        print(default_row(rows[-1]), flush=True)
        if starts:
            print(starts_line(rows[-1]), flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(rows[-1]) + "\n")
    print("", *default_summary(rows), sep="\n")


def jittered_starts(X, args):
    """``--starts k`` initial weights w0 (in the units of ``weights_``) whose iterate is
    1 + jitter·ε, ε ~ N(0, 1) with seeds 0..k−1: the paper's start w = 1 moved by ``--jitter``."""
    from fsopt.core.scaling import unit_scale

    scale = unit_scale(X)  # LOGO's iterate is w0 times X's typical spread
    return [(1.0 + args.jitter * np.random.default_rng(k).standard_normal(X.shape[1])) / scale
            for k in range(args.starts)]


def start_summary(est):
    return {"outcome": est.outcome_, "iterations": est.n_iter_, "support": est.get_support(indices=True).tolist()[:20]}


def starts_line(r):
    """How the fits from the jittered starts ended, against the fit from w = 1."""
    starts, own = r["starts"], r["default_only"]
    converged = [s for s in starts if s["outcome"] == "converged"]
    supports = Counter(tuple(s["support"]) for s in converged)
    common = ", ".join(f"{list(support)[:8]} in {n}" for support, n in supports.most_common(3))
    its = [s["iterations"] for s in converged]
    return (f"  from {len(starts)} starts within {r['jitter']:g} of w = 1: converged in {len(converged)}"
            + (f" (iterations {min(its)}–{max(its)}; support {common})" if converged else "")
            + f"; from w = 1: {own['outcome']}, support {own['support'][:8]}")


DEFAULT_HEADER = ("| instance | J | θ | outcome, outer its (all) | passes | support | fit s | cdist s | fit / cdist |\n"
                  "|---|---|---|---|---|---|---|---|---|")


def timing(r):
    """A ``--default-only`` row's medians (fit s, cdist s or None) and the pairs' fit/cdist ratios."""
    pairs = r["default_only"]["pairs"]
    fit_s = float(np.median([t for _, t in pairs]))
    if pairs[0][0] is None:
        return fit_s, None, []
    return fit_s, float(np.median([c for c, _ in pairs])), [t / c for c, t in pairs]


def ratio_cell(r):
    """fit / cdist of the medians, and the pairs' range where there are several."""
    fit_s, cdist_s, each = timing(r)
    if cdist_s is None:
        return "–"
    return f"{fit_s / cdist_s:.2f}" + (f" ({min(each):.2f}–{max(each):.2f})" if len(each) > 1 else "")


def default_row(r):
    d, (fit_s, cdist_s, _) = r["default_only"], timing(r)
    support = d["support"]
    return (f"| {r['instance']} | {r['J']:,} | {r['theta']:g} | {d['outcome']} {d['outer']} ({d['iterations']}) | "
            f"{d['passes']:.2f} | {support[:8]}{' …' if len(support) > 8 else ''} | {fit_s:.2f} | "
            f"{'–' if cdist_s is None else f'{cdist_s:.2f}'} | {ratio_cell(r)} |")


def default_summary(rows):
    """The range of fit / cdist over the timed ``--default-only`` rows, per θ."""
    lines = []
    for theta in dict.fromkeys(r["theta"] for r in rows):
        ratios = [f / c for f, c, _ in map(timing, (r for r in rows if r["theta"] == theta)) if c is not None]
        if ratios:
            lines.append(f"θ = {theta:g}: fit / cdist {min(ratios):.2f}–{max(ratios):.2f} over {len(ratios)} fits "
                         f"(load {max(r['load'] for r in rows if r['theta'] == theta):.1f} at most).")
    return lines


def default_table(rows):
    """``--default-only`` rows side by side per θ (one line per instance), as in docs/logo-scale.md."""
    thetas = list(dict.fromkeys(r["theta"] for r in rows))
    cells = {}
    for r in rows:
        d = r["default_only"]
        cells.setdefault((r["instance"], r["J"]), {})[r["theta"]] = (
            f"{d['outcome']} {d['outer']} ({d['iterations']}) | {ratio_cell(r)}")
    head = "| instance | J | " + " | ".join(f"θ = {t:g}: outcome, outer its (all) | fit / cdist (pairs)"
                                           for t in thetas) + " |"
    lines = [head, "|---|---|" + "---|---|" * len(thetas)]
    for (instance, J), by_theta in cells.items():
        lines.append(f"| {instance} | {J:,} | " + " | ".join(by_theta.get(t, "– | –") for t in thetas) + " |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--J", type=int, nargs="+", default=[2000, 8000, 20000, 100000])
    ap.add_argument("--seeds", type=int, nargs="+", default=[3, 3, 2, 1], help="seeds per J")
    ap.add_argument("--first-seed", type=int, default=0,
                    help="the spirals' first seed (more fits beside an earlier run's)")
    ap.add_argument("--turns", type=float, nargs="+", default=[1.0, 1.5, 1.75])
    ap.add_argument("--shape", nargs="+", default=["fermat", "archimedean"])
    ap.add_argument("--real", nargs="*", default=["heart", "ionosphere", "sonar"])
    ap.add_argument("--noise", type=int, default=2000, help="N(0, 1) features added to a real data set")
    ap.add_argument("--real-lam", type=float, default=3.0,
                    help="lambda on the real data sets (fsopt experiment logo-uci's; spirals: 1)")
    ap.add_argument("--theta", type=float, default=0.01, help="stopping threshold of both fits")
    ap.add_argument("--max-iter", type=int, default=50, help="max_iter of both fits (outer iterations)")
    ap.add_argument("--acceleration", default="auto", choices=["auto", "averaging", "anderson", "none"],
                    help="acceleration of both fits")
    ap.add_argument("--out", default=None, help="append each row as a JSON line to this file")
    ap.add_argument("--table", nargs="+", metavar="JSONL", help="print the rows saved by --out and stop")
    ap.add_argument("--default-only", action="store_true",
                    help="the default fit alone (no plain iteration), timed against one cdist pass at J >= 20,000")
    ap.add_argument("--repeat", type=int, default=1,
                    help="--default-only: pairs of a cdist pass and a fit at J >= 20,000 (medians reported)")
    ap.add_argument("--starts", type=int, default=0,
                    help="--default-only: fits from this many starts within --jitter of w = 1 as well")
    ap.add_argument("--jitter", type=float, default=1e-9, help="the starts' distance from w = 1 (relative)")
    args = ap.parse_args(argv)
    if args.starts and not args.default_only:
        ap.error("--starts goes with --default-only")
    if args.table:
        rows = [json.loads(line) for name in args.table for line in open(name) if line.strip()]
        compared = [r for r in rows if "plain" in r]
        timed = [r for r in rows if "default_only" in r]
        if compared:
            print(HEADER, *map(row, compared), "", *summary(compared), sep="\n")
        if timed:
            print(*([""] if compared else []), *default_table(timed), "", *default_summary(timed), sep="\n")
        return
    PARAMS.update(theta=args.theta, max_iter=args.max_iter,
                  acceleration=None if args.acceleration == "none" else args.acceleration)
    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    LOGO().fit(*make_spiral(30, 20, random_state=0))  # compile the kernels outside the timings
    if args.default_only:
        return time_default(args)
    print(HEADER)
    for X, y, label, lam in (*real_sets(args), *spirals(args)):
        r = compare(X, y, label, cdist_seconds(X) if X.shape[1] >= TIMED_FROM else None, lam)
        print(row(r), flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
