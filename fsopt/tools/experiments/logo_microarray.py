"""``logo-microarray``: the LOGO paper's microarray protocol (TPAMI 2010 §4.3, Table 4).

Leave-one-out: in each fold LOGO (σ = 5, λ = 1) is fitted on the N − 1 training samples, the genes
are ranked by weight and the top 1…50 go to a 3-NN classifier.  Two LOGO rows: the error at LOGO's
own selection (weight > 0.01 · max; honest) and the minimum over k of the LOOCV error (the paper's
figure; it looks at the held-out samples, so it is optimistic).  Baselines in the same folds.
"""
from __future__ import annotations

import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from tqdm.auto import tqdm

from ... import LOGO
from .rankers import Curves, all_features_error, baseline_rankers
from .results import curve_rows, row
from ...core.selectors import TopK
from .splits import loocv_splits

NAME = "logo-microarray"
TITLE = "LOGO, microarray protocol (LOOCV, top 1…50 genes → 3-NN)"
# Table 4 of the paper (prostate, breast, DLBCL) is on data sets not in shared/data: no figure beside.
PAPER = {}


def run(X, y, dataset, *, quick=False, n_splits=None, random_state=0, progress=True):
    """Rows of results; ``n_splits`` caps the held-out samples (None: all N, the paper's LOOCV)."""
    notes = ["Classifier 3-NN on z-scored genes; the z-scoring, LOGO and every baseline are fitted "
             "inside each LOOCV training fold (N − 1 samples).",
             "'own selection' is LOGO's rule (weight > 0.01·max); baselines take the same k in the same fold.",
             "'best k' rows report the minimum over k = 1…50 of the mean held-out error, as the paper's "
             "Table 4 does: the held-out samples choose k, so these rows are optimistic.",
             "error_std is the standard deviation of the 0/1 held-out errors over the folds.",
             "Deviation: the paper does not say whether genes were standardized; here they are (inside the folds)."]
    if quick:
        genes = np.sort(np.random.default_rng(random_state).choice(X.shape[1], min(60, X.shape[1]), replace=False))
        X = X[:, genes]
        n_splits = n_splits or 10
        notes.append(f"--quick: {X.shape[1]} genes drawn at random (seeded), {n_splits} held-out samples.")
    splits = loocv_splits(len(y), n_splits, random_state)
    if len(splits) < len(y):
        notes.append(f"Scaled down: {len(splits)} of the {len(y)} LOOCV folds (held-out samples drawn, seeded).")
    ks = np.arange(1, min(50, X.shape[1]) + 1)
    logo = LOGO(sigma=5.0, lam=1.0, max_iter=100)
    rankers = {"LOGO": TopK(logo), **baseline_rankers(3 if quick else 5, random_state)}
    knn = KNeighborsClassifier(n_neighbors=3)
    curves, base_err, base_time = Curves(), [], []
    for train, test in tqdm(splits, desc=NAME, disable=not progress):
        curves.add_split(rankers, knn, ks, X[train], y[train], X[test], y[test])
        err, seconds = all_features_error(knn, X[train], y[train], X[test], y[test])
        base_err.append(err)
        base_time.append(seconds)
    own = np.clip(np.array(curves.own["LOGO"]), 1, ks[-1])
    rows = [row(dataset, "LOGO (own selection: weight > 0.01·max)",
                [c[k - 1] for c, k in zip(curves.curves["LOGO"], own)], own, curves.fit_times["LOGO"])]
    rows.append(curve_rows(dataset, "LOGO", curves.curves["LOGO"], ks, own, "= LOGO's own",
                           curves.fit_times["LOGO"], PAPER.get((dataset, "LOGO")))[1])
    for name in rankers:
        if name != "LOGO":
            rows += curve_rows(dataset, name, curves.curves[name], ks, own, "= LOGO's own", curves.fit_times[name])
    rows.append(row(dataset, "3-NN, all features", base_err, X.shape[1], base_time))
    return rows, notes + curves.convergence_notes()
