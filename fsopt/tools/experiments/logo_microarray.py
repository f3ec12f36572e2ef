"""``logo-microarray``: the LOGO paper's microarray protocol (TPAMI 2010 §4.3, Tables 1 and 4).

Leave-one-out: in each fold LOGO (the paper's σ = 5, λ = 1) is fitted on the N − 1 training samples, the genes
are ranked by weight and the top 1…50 go to a 3-NN classifier.  Two LOGO rows: the error at LOGO's
own selection (weight > 0.01 · max; honest) and the minimum over k of the LOOCV error (the paper's
figure; it looks at the held-out samples, so it is optimistic).  Baselines in the same folds.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from sklearn.neighbors import KNeighborsClassifier

from ... import LOGO
from .papers import PaperDataset
from .rankers import all_features_error, baseline_rankers, gather, split_curves, warning_notes
from .results import curve_rows, row
from ...core.selectors import TopK
from .splits import loocv_splits, split_seed

NAME = "logo-microarray"
TITLE = "LOGO, microarray protocol (LOOCV, top 1…50 genes → 3-NN)"
# The paper's σ = 5, λ = 1.  With the plain iteration (acceleration=None) LOGO's fixed point
# cycled or stalled in 22 of the 62 Colon LOOCV folds; with LOGO's default acceleration="auto"
# all 62 converge (benchmarks/logo_convergence.py --cases colon; docs/logo-scale.md).
SIGMA, LAM = 5.0, 1.0
# Table 1 (samples × genes) and Table 4 (LOOCV error %, (genes at the minimum)) of the paper, with
# the paper's figures for its two baselines, which fsopt does not run, for the notes.
PAPER = {e.name: e for e in (
    PaperDataset("prostate cancer", 22283, (102,), None, 101, 1,
                 {"LOGO": "16.5 (6)", "I-RELIEF/BS": "25.3 (9)", "KS": "21.5 (13)"}, ("prostate",)),
    PaperDataset("breast cancer", 24481, (97,), None, 96, 1,
                 {"LOGO": "21.7 (4)", "I-RELIEF/BS": "23.7 (28)", "KS": "27.8 (39)"}, ("breast",)),
    PaperDataset("DLBCL", 5469, (77,), (19, 58), 76, 1,
                 {"LOGO": "2.6 (10)", "I-RELIEF/BS": "5.2 (7)", "KS": "7.8 (23)"}, ("lymphoma",)),
)}


def plan(X, y, dataset, paper, *, quick, n_splits, random_state, pre):
    """The LOOCV folds and settings; ``n_splits`` caps the held-out samples (None: all N, the paper's)."""
    notes = ["Classifier 3-NN; the preprocessing (z-scoring, and imputation where asked), LOGO and every "
             "baseline are fitted inside each LOOCV training fold (N − 1 samples).",
             "'own selection' is LOGO's rule (weight > 0.01·max); baselines take the same k in the same fold.",
             "'best k' rows report the minimum over k = 1…50 of the mean held-out error, as the paper's "
             "Table 4 does: the held-out samples choose k, so these rows are optimistic.",
             "error_std is the standard deviation of the 0/1 held-out errors over the folds.",
             "Deviation: the paper does not say whether genes were standardized; here they are (inside the folds).",
             f"LOGO σ = {SIGMA:g}, λ = {LAM:g} (the paper's), acceleration 'auto' (the paper's iteration "
             "until it cycles or stalls, then Anderson; every fit that does not converge is counted below)."]
    if paper:
        notes.append(f"The paper's baselines on {paper.name} (not run here): I-RELIEF/BS "
                     f"{paper.figures['I-RELIEF/BS']}, KS {paper.figures['KS']} (error %, (genes)).")
    if quick:
        n_splits = n_splits or 10
        notes.append(f"--quick: the full protocol's code (all genes) on {n_splits} held-out samples.")
    splits = loocv_splits(len(y), n_splits, random_state)
    if len(splits) < len(y):
        notes.append(f"Scaled down: {len(splits)} of the {len(y)} LOOCV folds (held-out samples drawn, seeded).")
    return SimpleNamespace(dataset=dataset, paper=paper, notes=notes, pre=pre, random_state=random_state,
                           splits=splits, n_folds=3 if quick else 5,
                           ks=np.arange(1, min(50, X.shape[1]) + 1), n_features=X.shape[1])


def run_split(p, X, y, split, units=iter):
    """Fold ``split``: LOGO's and the baselines' held-out error curves, 3-NN on all genes."""
    train, test = p.splits[split]
    rankers = {"LOGO": TopK(LOGO(sigma=SIGMA, lam=LAM, max_iter=100)),
               **baseline_rankers(p.n_folds, split_seed(p.random_state, split))}
    sink = []
    knn = KNeighborsClassifier(n_neighbors=3)
    curves, _ = split_curves(rankers, knn, p.ks, X[train], y[train], X[test], y[test], p.pre, sink, units)
    return {"curves": curves, "warnings": sink,
            "all": all_features_error(knn, p.pre, X[train], y[train], X[test], y[test])}


def summarize(p, records):
    """Rows and notes from the folds' records."""
    curves = {n: gather(records, "curves", n) for n in records[0]["curves"]}
    times = {n: [c["fit_time"] for c in curves[n]] for n in curves}
    own = np.clip([c["own"] for c in curves["LOGO"]], 1, p.ks[-1])
    logo = [c["curve"] for c in curves["LOGO"]]
    rows = [row(p.dataset, "LOGO (own selection: weight > 0.01·max)", [c[k - 1] for c, k in zip(logo, own)],
                own, times["LOGO"]),
            curve_rows(p.dataset, "LOGO", logo, p.ks, own, "= LOGO's own", times["LOGO"],
                       p.paper.figures["LOGO"] if p.paper else None)[1]]
    for name in curves:
        if name != "LOGO":
            rows += curve_rows(p.dataset, name, [c["curve"] for c in curves[name]], p.ks, own, "= LOGO's own",
                               times[name])
    rows.append(row(p.dataset, "3-NN, all features", [r["all"][0] for r in records], [r["all"][2] for r in records],
                    [r["all"][1] for r in records]))
    return rows, warning_notes(records)
