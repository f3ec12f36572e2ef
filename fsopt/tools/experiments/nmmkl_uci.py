"""``nmmkl-uci``: the NMMKL paper's real-data protocol (ICML 2009 §3.2, Table 3, Fig. 2).

30 random 80/20 splits; m = 10, 20 (UCI) or 10, 20, 40, 60 (more than 1000 features, after a Fisher
prefilter to 1000 fitted on the training part, as the paper does for Colon); NMMKL's C and τ chosen
by 5-fold CV accuracy of [z-score → NMMKL → linear SVM] on the training part; a linear SVM on the
m selected features.  Baselines in the same splits with the same m; SVM-LW's and L1-SVM's C by the
same inner CV.
"""
from __future__ import annotations

import time

import numpy as np
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC, LinearSVC
from tqdm.auto import tqdm

from ... import NMMKL
from ...nmmkl.baselines import fisher_score
from .evaluate import error_percent
from .relieff import ReliefF
from .results import row
from ...core.selectors import TopK, make_scaler
from .splits import inner_cv, random_splits

NAME = "nmmkl-uci"
TITLE = "NMMKL, real-data protocol (Table 3: 80/20 splits, m features → linear SVM)"
GRID = {"C": [0.01, 0.1, 1.0], "tau": [0.1, 1.0, 10.0]}
QUICK_GRID = {"C": [0.1, 1.0], "tau": [1.0]}
# Table 3, accuracy % ± std: (data set, m) -> {method: figure}.
PAPER_ACCURACY = {
    ("sonar", 10): {"NMMKL": "75.0 ± 2.3", "SVM-LW": "71.4 ± 4.6", "Fisher score": "69.3 ± 5.9",
                    "L1-SVM": "70.0 ± 6.0"},
    ("sonar", 20): {"NMMKL": "75.0 ± 5.8", "SVM-LW": "72.1 ± 5.8", "Fisher score": "72.4 ± 3.4",
                    "L1-SVM": "72.1 ± 4.4"},
    ("ionosphere", 10): {"NMMKL": "86.1 ± 3.7", "SVM-LW": "85.3 ± 5.2", "Fisher score": "84.3 ± 5.0",
                         "L1-SVM": "86.6 ± 4.0"},
    ("ionosphere", 20): {"NMMKL": "87.3 ± 4.1", "SVM-LW": "86.4 ± 4.7", "Fisher score": "85.1 ± 3.8",
                         "L1-SVM": "86.6 ± 3.8"},
    ("wdbc", 10): {"NMMKL": "97.0 ± 1.0", "SVM-LW": "95.1 ± 0.8", "Fisher score": "94.6 ± 1.7",
                   "L1-SVM": "96.3 ± 0.4"},
    ("wdbc", 20): {"NMMKL": "97.4 ± 0.6", "SVM-LW": "97.4 ± 0.5", "Fisher score": "97.4 ± 0.6",
                   "L1-SVM": "97.0 ± 0.5"}}


def paper_error(dataset, m, method):
    """The paper's accuracy figure as an error: "100 − acc ± std (acc)"."""
    fig = PAPER_ACCURACY.get((dataset, m), {}).get(method)
    if fig is None:
        return None
    acc, std = (float(v) for v in fig.split("±"))
    return f"{100 - acc:.1f} ± {std:.1f} (acc {acc:.1f})"


def methods(m, grid, n_folds, random_state, prefilter):
    """name -> (pipeline tail after z-scoring, inner-CV grid or None)."""
    svm = SVC(kernel="linear", C=1.0)
    pre = [("prefilter", TopK(fisher_score, prefilter))] if prefilter else []
    c_grid = {"select__ranker__C": grid["C"]}
    return {
        "NMMKL": (pre + [("select", NMMKL(n_features=m)), ("clf", svm)],
                  {"select__C": grid["C"], "select__tau": grid["tau"]}),
        "SVM-LW": (pre + [("select", TopK(SVC(kernel="linear"), m)), ("clf", svm)], c_grid),
        "L1-SVM": (pre + [("select", TopK(LinearSVC(penalty="l1", dual=False, max_iter=5000), m)), ("clf", svm)],
                   c_grid),
        "Fisher score": (pre + [("select", TopK(fisher_score, m)), ("clf", svm)], None),
        "ANOVA F (SelectKBest)": (pre + [("select", SelectKBest(f_classif, k=m)), ("clf", svm)], None),
        "ReliefF": (pre + [("select", TopK(ReliefF(n_neighbors=10), m)), ("clf", svm)], None),
    }


def fit_method(steps, grid, n_folds, random_state, X, y):
    """Pipeline([z-score, *steps]) fitted on (X, y); hyper-parameters by inner CV when ``grid`` is given."""
    pipe = Pipeline([("scale", make_scaler()), *steps])
    if grid:
        # A candidate whose solve fails (SolverFailed) scores NaN and is skipped, with scikit-learn's warning.
        pipe = GridSearchCV(pipe, grid, cv=inner_cv(n_folds, random_state), error_score=np.nan)
    return pipe.fit(X, y)


def run(X, y, dataset, *, quick=False, n_splits=None, random_state=0, progress=True):
    """Rows of results; ``n_splits`` defaults to the paper's 30 (2 with ``quick``)."""
    if np.unique(y).size != 2:
        raise ValueError(f"nmmkl-uci: NMMKL is binary; y has {np.unique(y).size} classes")
    n_splits = n_splits or (2 if quick else 30)
    prefilter = 1000 if X.shape[1] > 1000 else None
    ms = [m for m in ([5] if quick else [10, 20] if prefilter is None else [10, 20, 40, 60]) if m < X.shape[1]]
    grid, n_folds = (QUICK_GRID, 3) if quick else (GRID, 5)
    notes = [f"{n_splits} stratified random 80/20 splits; m = {ms}; z-scoring (and the Fisher prefilter "
             f"to 1000 features when there are more) fitted on the training part of each split.",
             f"NMMKL's C × τ over {grid['C']} × {grid['tau']} by {n_folds}-fold inner CV accuracy of "
             f"[z-score → NMMKL → linear SVM]; SVM-LW's and L1-SVM's C over {grid['C']} the same way.",
             "Classifier: linear SVM, C = 1, on the m selected features (the paper does not state its C).",
             "The paper reports accuracy; its figures are shown as error = 100 − accuracy (std unchanged).",
             "Deviation: the paper's grid for C and τ is not stated; ANOVA F and ReliefF are not in the paper."]
    if quick:
        notes.append(f"--quick: {n_splits} splits, m = 5, grid C ∈ {{0.1, 1}}, τ = 1, 3-fold inner CV.")
    elif n_splits < 30:
        notes.append(f"Scaled down: {n_splits} splits instead of the paper's 30 (shared CPU).")
    splits = random_splits(y, n_splits, round(0.8 * len(y)), random_state)
    errors, times = {}, {}
    for split, (train, test) in enumerate(tqdm(splits, desc=NAME, disable=not progress)):
        seed = random_state + split
        for m in ms:
            for name, (steps, g) in methods(m, grid, n_folds, seed, prefilter).items():
                t0 = time.perf_counter()
                fitted = fit_method(steps, g, n_folds, seed, X[train], y[train])
                times.setdefault((m, name), []).append(time.perf_counter() - t0)
                errors.setdefault((m, name), []).append(error_percent(fitted, X[test], y[test]))
        t0 = time.perf_counter()
        pipe = fit_method([("clf", SVC(kernel="linear", C=1.0))], None, n_folds, seed, X[train], y[train])
        times.setdefault((X.shape[1], "all"), []).append(time.perf_counter() - t0)
        errors.setdefault((X.shape[1], "all"), []).append(error_percent(pipe, X[test], y[test]))
    rows = [row(dataset, f"{name} (m = {m})", errors[(m, name)], m, times[(m, name)],
                paper_error(dataset, m, name)) for (m, name) in errors if name != "all"]
    rows.append(row(dataset, "linear SVM, all features", errors[(X.shape[1], "all")], X.shape[1],
                    times[(X.shape[1], "all")]))
    return rows, notes
