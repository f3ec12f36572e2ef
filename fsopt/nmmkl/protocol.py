"""The evaluation protocol of §3: C and τ by 5-fold CV (preprocessing inside the folds), a linear SVM."""
from __future__ import annotations

import numpy as np

DEFAULT_GRID = {"C": [0.01, 0.03, 0.1, 0.3, 1.0], "tau": [1.0]}


def selected_accuracy(mask, X_train, y_train, X_test, y_test, C=1.0):
    """Test accuracy of a linear SVM (box C) trained on the columns ``mask``."""
    from sklearn.svm import SVC

    svm = SVC(kernel="linear", C=C).fit(X_train[:, mask], y_train)
    return float((svm.predict(X_test[:, mask]) == y_test).mean())


def tune(estimator, X, y, grid=None, folds=5, random_state=0, prefilter=None, scale=False):
    """Pick the estimator's C and τ by ``folds``-fold CV accuracy of [z-score → (Fisher prefilter)
    → estimator → linear SVM].

    With ``scale=True`` the z-scoring, and with ``prefilter`` the Fisher prefilter (the
    ``prefilter`` largest Fisher scores, §3.2), are pipeline steps, so each CV fold fits them on its
    own training rows: pass X unscaled then (``fsopt run nmmkl --cv`` does).  ``grid`` maps
    "C" / "tau" to candidate lists (default :data:`DEFAULT_GRID`).  Returns the estimator with the
    best values set (unfitted) and the chosen values.
    """
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.pipeline import Pipeline
    from sklearn.svm import SVC

    from ..core.selectors import TopK, make_scaler
    from .baselines import fisher_score

    grid = {k: list(v) for k, v in (grid or DEFAULT_GRID).items() if k in ("C", "tau")}
    steps = [("scale", make_scaler())] if scale else []
    if prefilter is not None and prefilter < X.shape[1]:
        steps.append(("prefilter", TopK(fisher_score, prefilter)))
    pipe = Pipeline(steps + [("select", clone(estimator)), ("svm", SVC(kernel="linear"))])
    search = GridSearchCV(pipe, {f"select__{k}": v for k, v in grid.items()},
                          cv=StratifiedKFold(folds, shuffle=True, random_state=random_state),
                          error_score="raise")
    search.fit(X, y)
    best = {k.split("__", 1)[1]: v for k, v in search.best_params_.items()}
    return clone(estimator).set_params(**best), best


def fraction(values, target):
    """Share of ``values`` equal to ``target`` (e.g. selected sets over repeated draws)."""
    return float(np.mean([tuple(v) == tuple(target) for v in values]))
