"""LOGO's fixed point with and without acceleration (issue 19): outcomes, iterations, and the same
fixed point wherever both converge.

    python benchmarks/logo_convergence.py [--data DATA_DIR] [--cases colon uci duplicated spirals]
                                          [--max-iter 100] [--irrelevant 200] [--lam 1]
    python benchmarks/logo_convergence.py --cases fast-path --irrelevant 5000 [--lam 3]
    python benchmarks/logo_convergence.py --cases fixed-points --irrelevant 5000 [--lam 3]

- colon: leave-one-out, all 62 folds, genes z-scored on the training part, σ = 5, λ = 1.
- uci: heart, ionosphere, sonar in the logo-uci protocol (stratified random splits of the paper's
  training size, else min(120, N/2); ``--irrelevant`` N(0, 1) features per split; z-scored on
  the training part; σ = 2, λ = 1), 10 splits.
- duplicated: every row twice (np.r_[X, X]) against X: spirals (Fermat 1 turn, Archimedes 1.75
  turns, 300 irrelevant), the first Colon fold, the first heart split; the selections must be
  equal (default acceleration).
- spirals: Fermat 1, 1.5, 1.75 turns and Archimedes 1.75 turns, 2,000 irrelevant, σ = 2, λ = 1.
Each fit: acceleration None, "auto" (the default), "averaging", "anderson" (default theta = 0.01,
max_iter 100).  ``--lam`` sets λ of the uci, spirals and fast-path cases (Colon: 1).
- fast-path: the uci splits fitted twice, the default and the paper's iteration
  (``prune_below=None``): where the latter converges, whether the default took the fast path,
  converged, gave the same support, how far its weights are, and the passes over X of both.
- fixed-points: the uci splits, the paper's iteration against three other paths to a fixed point
  of the same map: the default (the fast path where N²·J ≥ 2.5e7), and the iteration over all J
  features with "averaging" and with "anderson" from the start.  Where a path converges to
  another answer than the paper's iteration (another support, or weights more than 0.05 × max w
  apart), the paper's map is solved again *from that answer* (``w0=weights_``, all J features,
  safeguarded Anderson, θ = 1e-6, max_iter 300): if that converges within 0.01 × max w of it, the
  answer is within 1 % of another fixed point of the paper's map (Theorem 2 promises one fixed
  point only for σ above some σ*).  Anderson, because near some fixed points w ← T(w) itself
  oscillates away (T(w) − w grows by about 2× a step from the paper's own answer on ionosphere's
  split 5 at λ = 1, into a 2-cycle).
"""
import argparse
import warnings

import numpy as np

ACCELERATIONS = (None, "auto", "averaging", "anderson")


def fit(X, y, acceleration, sigma, max_iter, lam=1.0, **params):
    from fsopt import LOGO

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the outcome is reported
        return LOGO(sigma=sigma, lam=lam, max_iter=max_iter, acceleration=acceleration, **params).fit(X, y)


def fast_path_rows(problems, lam, max_iter):
    """The default against the paper's iteration (``prune_below=None``) on each problem: one
    Markdown row of counts over the problems where the paper's iteration converges."""
    fits = [(fit(X, y, "auto", 2.0, max_iter, lam), fit(X, y, "auto", 2.0, max_iter, lam, prune_below=None))
            for X, y in problems]
    both = [(d, p) for d, p in fits if p.converged_]
    diffs = [float(np.abs(d.weights_ - p.weights_).max() / p.weights_.max()) for d, p in both]
    same = [d.converged_ and np.array_equal(d.get_support(), p.get_support()) for d, p in both]
    passes = [sum(h.data_passes for h in e.history_) for pair in both for e in pair]
    return (f"{len(both)}/{len(fits)} | {sum(d.prune_below_ is not None for d, _ in both)} | "
            f"{sum(d.converged_ for d, _ in both)} | {sum(same)} | "
            f"{sum(x > 0.05 for x in diffs)} ({max(diffs, default=0):.2g}) | "
            f"{sum(passes[0::2]):.0f} / {sum(passes[1::2]):.0f}")


PATHS = {"default": ("auto", {}), "averaging": ("averaging", dict(prune_below=None)),
         "anderson": ("anderson", dict(prune_below=None))}  # name: (acceleration, other parameters)


def fixed_point_rows(problems, lam, max_iter):
    """Per path of :data:`PATHS`: converged to the paper's answer / to another fixed point of the
    paper's map (the map solved again from it with Anderson stays within 1 %) / to another point
    / not converged, over the problems where the paper's iteration converges."""
    counts = {name: [0, 0, 0, 0] for name in PATHS}
    n = 0
    for X, y in problems:
        paper = fit(X, y, "auto", 2.0, max_iter, lam, prune_below=None)
        if not paper.converged_:
            continue
        n += 1
        top = paper.weights_.max()
        for name, (acceleration, params) in PATHS.items():
            other = fit(X, y, acceleration, 2.0, max_iter, lam, **params)
            if not other.converged_:
                counts[name][3] += 1
            elif np.array_equal(other.get_support(), paper.get_support()) and \
                    np.abs(other.weights_ - paper.weights_).max() <= 0.05 * top:
                counts[name][0] += 1
            else:
                again = fit(X, y, "anderson", 2.0, 300, lam, prune_below=None, theta=1e-6, w0=other.weights_)
                stays = again.converged_ and \
                    np.abs(again.weights_ - other.weights_).max() <= 0.01 * other.weights_.max()
                counts[name][1 if stays else 2] += 1
    return n, counts


def compare(problems, sigma, max_iter, lam=1.0):
    """{acceleration: [fit per problem]} and the agreement with the plain iteration."""
    fits = {acc: [fit(X, y, acc, sigma, max_iter, lam) for X, y in problems] for acc in ACCELERATIONS}
    rows = []
    for acc, ests in fits.items():
        outcomes = [e.outcome_ for e in ests]
        conv = [e.converged_ for e in ests]
        its = [e.n_iter_ for e in ests if e.converged_]
        both = [(e, r) for e, r in zip(ests, fits[None]) if e.converged_ and r.converged_]
        same = sum(np.array_equal(e.get_support(), r.get_support()) for e, r in both)
        diff = max((np.abs(e.weights_ - r.weights_).max() / r.weights_.max() for e, r in both),
                   default=float("nan"))
        residuals = [f"{e.history_[-1].residual:.3g}" for e in ests if not e.converged_]
        others = sorted({o for o in outcomes if o != "converged"})
        rows.append(f"{acc or 'none'} | {sum(conv)}/{len(ests)} | "
                    f"{np.median(its) if its else float('nan'):g} / {max(its, default=0)} | "
                    f"{', '.join(f'{o}: {outcomes.count(o)}' for o in others) or '-'} | "
                    f"{' '.join(residuals) or '-'} | {same}/{len(both)} | {diff:.1e}")
    return fits, rows


def table(title, rows):
    print(f"\n**{title}**\n")
    print("| acceleration | converged | its median / max (converged) | other outcomes | last residual "
          "of the others | same support as none (both converged) | max weight diff / max w |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r} |", flush=True)


def main():
    from fsopt.datasets import load_dataset, standardize
    from fsopt.datasets.spiral import make_spiral
    from fsopt.tools.experiments.splits import random_splits, with_irrelevant

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, metavar="DATA_DIR",
                    help="directory of the data sets (default: $FSOPT_DATA, then the data shipped with fsopt)")
    ap.add_argument("--cases", nargs="+", default=["duplicated", "spirals", "uci", "colon"])
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--irrelevant", type=int, default=200)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--lam", type=float, default=1.0, help="λ of the uci, spirals and fast-path cases")
    args = ap.parse_args()

    def uci(name, n_splits):
        X, y = load_dataset(name, data_dir=args.data)
        size = {"heart": 58}.get(name, min(120, len(y) // 2))
        out = []
        for s, (train, _) in enumerate(random_splits(y, n_splits, size, 0)):
            Xs = with_irrelevant(X, args.irrelevant, 0, s)
            out.append((standardize(Xs[train]), y[train]))
        return out

    def colon_folds(n=None):
        X, y = load_dataset("colon", data_dir=args.data)
        idx = range(len(y)) if n is None else range(n)
        return [(standardize(X[np.arange(len(y)) != i]), y[np.arange(len(y)) != i]) for i in idx]

    if "duplicated" in args.cases:
        cases = {"Fermat spiral": (make_spiral(230, 300, random_state=0), 2.0),
                 "Archimedean spiral, 1.75 turns": (make_spiral(230, 300, turns=1.75, shape="archimedean",
                                                                random_state=0), 2.0),
                 "colon fold 0": (colon_folds(1)[0], 5.0), "heart split 0": (uci("heart", 1)[0], 2.0)}
        print("\n**Duplicated rows: np.r_[X, X] against X (default acceleration)**\n")
        print("| data | X: outcome, its, support size | np.r_[X, X]: outcome, its, support size | "
              "same selection | same weights |")
        print("|---|---|---|---|---|")
        for name, ((X, y), sigma) in cases.items():
            a = fit(X, y, "auto", sigma, args.max_iter)
            b = fit(np.r_[X, X], np.r_[y, y], "auto", sigma, args.max_iter)
            print(f"| {name} | {a.outcome_}, {a.n_iter_}, {a.get_support().sum()} | {b.outcome_}, "
                  f"{b.n_iter_}, {b.get_support().sum()} | "
                  f"{np.array_equal(a.get_support(), b.get_support())} | "
                  f"{np.array_equal(a.weights_, b.weights_)} |", flush=True)
    if "spirals" in args.cases:
        for shape, turns in (("fermat", 1.0), ("fermat", 1.5), ("fermat", 1.75), ("archimedean", 1.75)):
            table(f"{shape} spiral, {turns:g} turns, 2,000 irrelevant",
                  compare([make_spiral(230, 2000, turns=turns, random_state=0, shape=shape)], 2.0,
                          args.max_iter, args.lam)[1])
    if "uci" in args.cases:
        for name in ("heart", "ionosphere", "sonar"):
            table(f"{name}, logo-uci protocol, {args.splits} splits, {args.irrelevant} irrelevant",
                  compare(uci(name, args.splits), 2.0, args.max_iter, args.lam)[1])
    if "fast-path" in args.cases:
        print(f"\n**The default against the paper's iteration (prune_below=None), logo-uci protocol, "
              f"{args.splits} splits, {args.irrelevant} irrelevant, λ = {args.lam:g}**\n")
        print("| data | the paper's iteration converged | default on the fast path | default converged | "
              "same support | weights > 0.05 × max w apart (largest) | passes: default / paper's |")
        print("|---|---|---|---|---|---|---|")
        for name in ("heart", "ionosphere", "sonar"):
            print(f"| {name} | {fast_path_rows(uci(name, args.splits), args.lam, args.max_iter)} |", flush=True)
    if "fixed-points" in args.cases:
        print(f"\n**Other paths to a fixed point of the paper's map, logo-uci protocol, {args.splits} splits, "
              f"{args.irrelevant} irrelevant, λ = {args.lam:g}**: of the splits where the paper's iteration "
              f"converges, each path's answer is the paper's / another fixed point of the paper's map / "
              f"another point / not converged\n")
        print("| data | the paper's iteration converged | " + " | ".join(PATHS) + " |")
        print("|---|---|" + "---|" * len(PATHS))
        for name in ("heart", "ionosphere", "sonar"):
            n, counts = fixed_point_rows(uci(name, args.splits), args.lam, args.max_iter)
            print(f"| {name} | {n}/{args.splits} | " + " | ".join("/".join(map(str, counts[p])) for p in PATHS)
                  + " |", flush=True)
    if "colon" in args.cases:
        table("Colon leave-one-out, 62 folds, σ = 5, λ = 1", compare(colon_folds(), 5.0, args.max_iter)[1])


if __name__ == "__main__":
    main()
