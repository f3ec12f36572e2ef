"""The baselines every protocol runs in its own splits, and the per-split error-versus-k curves."""
from __future__ import annotations

import numpy as np
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegressionCV

from .evaluate import counted_warnings, fit_ranker, pipeline_error, top_k_errors
from .relieff import ReliefF
from ...core.selectors import TopK


def baseline_rankers(inner_folds, random_state):
    """ANOVA F (SelectKBest), L1 logistic regression (C by inner CV, ranked by |w|), ReliefF (k = 10)."""
    l1 = LogisticRegressionCV(Cs=np.logspace(-2, 2, 9), l1_ratios=(1.0,), solver="liblinear", cv=inner_folds,
                              scoring="accuracy", use_legacy_attributes=False, random_state=random_state)
    return {"ANOVA F (SelectKBest)": SelectKBest(f_classif, k="all"),
            "L1 logistic regression": TopK(l1),
            "ReliefF": TopK(ReliefF(n_neighbors=10))}


def own_selection(pipe):
    """Number of features the fitted ranker selects by its own rule (e.g. LOGO: weight > 0.01·max)."""
    inner = getattr(pipe[-1], "ranker_", None)
    return int(inner.get_support().sum()) if hasattr(inner, "get_support") else None


def split_curves(rankers, classifier, ks, X_train, y_train, X_test, y_test, pre, sink, units=iter):
    """Fit every ranker on the training rows; per ranker its test-error curve over ``ks``, fit seconds,
    and own selection size (a JSON-able record), and the fitted pipelines; warnings go to ``sink``."""
    out, pipes = {}, {}
    for name in units(list(rankers)):
        with counted_warnings(name, sink):
            pipe, seconds = fit_ranker(rankers[name], X_train, y_train, pre)
            curve = top_k_errors(pipe, classifier, X_train, y_train, X_test, y_test, ks)
        out[name] = {"curve": curve.tolist(), "fit_time": seconds, "own": own_selection(pipe)}
        pipes[name] = pipe
    return out, pipes


def gather(records, key, name):
    """``[record[key][name]]`` over the splits' records (curves, fit times, own sizes per ranker)."""
    return [r[key][name] for r in records]


def warning_notes(records):
    """The count of warnings and of fits that converged (no ConvergenceWarning), then one note per
    (method, warning category): how many warnings in how many splits, the first message."""
    seen, n_warnings, fits, converged = {}, 0, 0, 0
    for split, record in enumerate(records):
        categories = []
        for method, category, message in record["warnings"]:
            if category is None:  # the end of one fit (counted_warnings)
                fits, converged, categories = fits + 1, converged + ("ConvergenceWarning" not in categories), []
                continue
            n_warnings += 1
            categories.append(category)
            entry = seen.setdefault((method, category), {"count": 0, "splits": set(), "first": message})
            entry["count"] += 1
            entry["splits"].add(split)
    head = (f"{n_warnings} warnings, {converged} of {fits} fits converged (a fit: one method on one split's "
            "training part, its inner CV included; converged: no ConvergenceWarning).")
    return [head] + [f"Warnings, {method}: {e['count']} {category} in {len(e['splits'])} of {len(records)} splits "
                     f"(results used as they stand; first: {' '.join(e['first'].split())[:200]})"
                     for (method, category), e in seen.items()]


def all_features_error(classifier, pre, X_train, y_train, X_test, y_test):
    """(error %, seconds, features used) of the classifier on every feature (preprocessed in the pipeline)."""
    return pipeline_error(pre, [("clf", classifier)], X_train, y_train, X_test, y_test)
