"""``nmmkl-uci``: the NMMKL paper's real-data protocol (ICML 2009 §3.2, Table 3, Fig. 2).

30 random 80/20 splits; m = 10, 20 (UCI) or 10, 20, 40, 60 (more than 1000 features, after a Fisher
prefilter to 1000 fitted on the training part, as the paper does for Colon); NMMKL's C and τ chosen
by 5-fold CV accuracy of [z-score → NMMKL → linear SVM] on the training part; a linear SVM on the
m selected features.  Baselines in the same splits with the same m; SVM-LW's and L1-SVM's C by the
same inner CV.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
from sklearn.base import clone
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import SVC, LinearSVC

from ... import NMMKL
from ...nmmkl.baselines import fisher_score
from .evaluate import counted_warnings, error_percent, n_features_seen
from .papers import PaperDataset
from .rankers import warning_notes
from .relieff import ReliefF
from .results import row, skipped_row
from ...core.selectors import TopK
from .splits import inner_cv, random_splits, split_seed

NAME = "nmmkl-uci"
TITLE = "NMMKL, real-data protocol (Table 3: 80/20 splits, m features → linear SVM)"
GRID = {"C": [0.01, 0.1, 1.0], "tau": [0.1, 1.0, 10.0]}
QUICK_GRID = {"C": [0.1, 1.0], "tau": [1.0]}
def _acc(sonar_like):
    """Table 3's accuracy figures, "acc ± std", per method in the paper's column order."""
    return dict(zip(("NMMKL", "SVM-LW", "L0-appr", "Fisher score", "R2W2", "FSV", "L1-SVM"), sonar_like))


# Table 2 (dim, num) and Table 3 (accuracy % ± std at m = 10, 20) of the paper; the sets of Fig. 2
# (Bci, Digit1, Usps, Coil, Colon, Lym) have no figures in the text.
PAPER = {e.name: e for e in (
    PaperDataset("Sonar", 60, (208,), (97, 111), figures={
        10: _acc(["75.0 ± 2.3", "71.4 ± 4.6", "69.8 ± 5.9", "69.3 ± 5.9", "64.3 ± 7.1", "71.4 ± 5.1", "70.0 ± 6.0"]),
        20: _acc(["75.0 ± 5.8", "72.1 ± 5.8", "74.1 ± 4.8", "72.4 ± 3.4", "70.7 ± 4.6", "73.1 ± 4.2", "72.1 ± 4.4"])}),
    PaperDataset("Iono", 34, (351,), (126, 225), aliases=("ionosphere",), figures={
        10: _acc(["86.1 ± 3.7", "85.3 ± 5.2", "85.6 ± 5.0", "84.3 ± 5.0", "86.0 ± 4.3", "82.4 ± 5.6", "86.6 ± 4.0"]),
        20: _acc(["87.3 ± 4.1", "86.4 ± 4.7", "85.7 ± 4.7", "85.1 ± 3.8", "85.1 ± 4.8", "86.7 ± 3.4", "86.6 ± 3.8"])}),
    PaperDataset("Wdbc", 30, (569,), (212, 357), aliases=("breast", "breast cancer wisconsin"), figures={
        10: _acc(["97.0 ± 1.0", "95.1 ± 0.8", "96.0 ± 0.8", "94.6 ± 1.7", "93.5 ± 1.2", "94.2 ± 1.0", "96.3 ± 0.4"]),
        20: _acc(["97.4 ± 0.6", "97.4 ± 0.5", "97.2 ± 1.0", "97.4 ± 0.6", "94.6 ± 1.0", "96.5 ± 1.0", "97.0 ± 0.5"])}),
    PaperDataset("Wpbc", 33, (198, 194), None, flags={"impute": "median"}, why=(
        "Wpbc has 4 missing values (lymph node status) and the paper does not say how it handled them: "
        "they are imputed with the training part's median, inside the folds."), figures={
        10: _acc(["79.5 ± 4.8", "78.3 ± 4.7", "79.8 ± 6.0", "78.2 ± 5.2", "78.0 ± 5.1", "78.0 ± 5.1", "79.0 ± 6.4"]),
        20: _acc(["81.2 ± 5.0", "80.7 ± 5.2", "80.4 ± 4.7", "80.1 ± 4.7", "79.3 ± 3.9", "78.6 ± 4.6", "78.0 ± 6.7"])}),
    PaperDataset("Bci", 117, (400,)),
    PaperDataset("Digit1", 241, (1500,)),
    PaperDataset("Usps", 241, (1500,)),
    PaperDataset("Coil", 241, (1500,)),
    PaperDataset("Colon", 2000, (62,), (22, 40)),
    PaperDataset("Lym", 4026, (96,), aliases=("lymphoma",)),
)}
NOT_RUN = ("L0-appr", "R2W2", "FSV")  # the paper's other columns: in the notes


def paper_error(paper, m, method):
    """The paper's accuracy figure as an error: "100 − acc ± std (acc)"."""
    fig = paper.figures.get(m, {}).get(method) if paper else None
    if fig is None:
        return None
    acc, std = (float(v) for v in fig.split("±"))
    return f"{100 - acc:.1f} ± {std:.1f} (acc {acc:.1f})"


def methods(m, grid, n_folds, random_state, prefilter):
    """name -> (pipeline tail after the preprocessing, inner-CV grid or None)."""
    svm = SVC(kernel="linear", C=1.0)
    head = [("prefilter", TopK(fisher_score, prefilter))] if prefilter else []
    c_grid = {"select__ranker__C": grid["C"]}
    return {
        "NMMKL": (head + [("select", NMMKL(n_features=m)), ("clf", svm)],
                  {"select__C": grid["C"], "select__tau": grid["tau"]}),
        "SVM-LW": (head + [("select", TopK(SVC(kernel="linear"), m)), ("clf", svm)], c_grid),
        "L1-SVM": (head + [("select", TopK(LinearSVC(penalty="l1", dual=False, max_iter=5000), m)), ("clf", svm)],
                   c_grid),
        "Fisher score": (head + [("select", TopK(fisher_score, m)), ("clf", svm)], None),
        "ANOVA F (SelectKBest)": (head + [("select", SelectKBest(f_classif, k=m)), ("clf", svm)], None),
        "ReliefF": (head + [("select", TopK(ReliefF(n_neighbors=10), m)), ("clf", svm)], None),
    }


def fit_method(pre, steps, grid, n_folds, random_state, X, y):
    """Pipeline([*pre, *steps]) fitted on (X, y); hyper-parameters by inner CV when ``grid`` is given."""
    pipe = Pipeline([(name, clone(step)) for name, step in pre] + list(steps))
    if grid:
        # A candidate whose solve fails (SolverFailed) scores NaN and is skipped, with scikit-learn's warning.
        pipe = GridSearchCV(pipe, grid, cv=inner_cv(n_folds, random_state), error_score=np.nan)
    return pipe.fit(X, y)


def plan(X, y, dataset, paper, *, quick, n_splits, random_state, pre):
    """The splits and settings; ``n_splits`` defaults to the paper's 30 (2 with ``quick``)."""
    classes = np.unique(y).size
    if classes != 2:
        raise ValueError(f"nmmkl-uci: NMMKL is binary; y has {classes} class{'es' if classes != 1 else ''}" +
                         (" (--positive-class CLASS makes the one-against-the-rest version)" if classes > 2
                          else ": a selection needs two"))
    n_splits = n_splits or (2 if quick else 30)
    prefilter = 1000 if X.shape[1] > 1000 else None
    ms = [10] if quick else [10, 20] if prefilter is None else [10, 20, 40, 60]
    grid, n_folds = (QUICK_GRID, 3) if quick else (GRID, 5)
    notes = [f"{n_splits} stratified random 80/20 splits; m = {ms}; preprocessing (and the Fisher prefilter "
             f"to 1000 features when there are more) fitted on the training part of each split.",
             f"NMMKL's C × τ over {grid['C']} × {grid['tau']} by {n_folds}-fold inner CV accuracy of "
             f"[z-score → NMMKL → linear SVM]; SVM-LW's and L1-SVM's C over {grid['C']} the same way.",
             "Classifier: linear SVM, C = 1, on the m selected features (the paper does not state its C).",
             "The paper reports accuracy; its figures are shown as error = 100 − accuracy (std unchanged).",
             "Deviation: the paper's grid for C and τ is not stated; ANOVA F and ReliefF are not in the paper."]
    if paper and paper.figures:
        notes.append(f"The paper's other columns on {paper.name} (not run here), accuracy %: " + "; ".join(
            f"m = {m}: " + ", ".join(f"{k} {paper.figures[m][k]}" for k in NOT_RUN) for m in paper.figures))
    elif paper:
        notes.append(f"The paper shows {paper.name} in its Fig. 2 only: no figure in the text to print beside.")
    if quick:
        notes.append(f"--quick: the full protocol's code with {n_splits} splits, m = 10, grid C ∈ {{0.1, 1}}, "
                     "τ = 1, 3-fold inner CV.")
    elif n_splits < 30:
        notes.append(f"Scaled down: {n_splits} splits instead of the paper's 30 (shared CPU).")
    return SimpleNamespace(dataset=dataset, paper=paper, notes=notes, pre=pre, random_state=random_state,
                           splits=random_splits(y, n_splits, round(0.8 * len(y)), random_state),
                           ms=[m for m in ms if m < X.shape[1]], skipped=[m for m in ms if m >= X.shape[1]],
                           grid=grid, n_folds=n_folds, prefilter=prefilter, n_features=X.shape[1])


def run_split(p, X, y, split, units=iter):
    """Split ``split``: every method at every m, and the linear SVM on all features: (error %, seconds)."""
    train, test = p.splits[split]
    seed = split_seed(p.random_state, split)
    sink, results = [], {}
    jobs = [(m, name, steps, g) for m in p.ms
            for name, (steps, g) in methods(m, p.grid, p.n_folds, seed, p.prefilter).items()]
    jobs.append((p.n_features, "all", [("clf", SVC(kernel="linear", C=1.0))], None))
    for m, name, steps, g in units(jobs):
        with counted_warnings(name, sink):
            t0 = time.perf_counter()
            fitted = fit_method(p.pre, steps, g, p.n_folds, seed, X[train], y[train])
            seconds = time.perf_counter() - t0
            results[f"{name}|{m}"] = [error_percent(fitted, X[test], y[test]), seconds, n_features_seen(fitted)]
    return {"results": results, "warnings": sink}


def summarize(p, records):
    """Rows and notes from the splits' records; a method that could not run gets a row with the reason."""
    rows = []
    for key in records[0]["results"]:
        name, m = key.rsplit("|", 1)
        errors, times, n_seen = zip(*(r["results"][key] for r in records))
        label = "linear SVM, all features" if name == "all" else f"{name} (m = {m})"
        rows.append(row(p.dataset, label, errors, n_seen, times, None if name == "all" else
                        paper_error(p.paper, int(m), name)))
    for m in p.skipped:
        for name in methods(m, p.grid, p.n_folds, 0, p.prefilter):
            rows.append(skipped_row(p.dataset, f"{name} (m = {m})", m,
                                    f"m = {m} ≥ d = {p.n_features} features: nothing to select",
                                    paper_error(p.paper, m, name)))
    return rows, warning_notes(records)
