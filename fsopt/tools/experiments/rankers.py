"""The baselines every protocol runs in its own splits, and the per-split error-versus-k curves."""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegressionCV

from .evaluate import fit_ranker, pipeline_error, top_k_errors
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


class Curves:
    """Per-ranker collection over the splits: error curves, fit times, own-selection sizes, scores,
    and the fits that ended with a ConvergenceWarning (counted and reported, not raised)."""

    def __init__(self):
        self.curves, self.fit_times, self.own, self.scores, self.unconverged = {}, {}, {}, {}, {}

    def add_split(self, rankers, classifier, ks, X_train, y_train, X_test, y_test, prefilter=None):
        """Fit every ranker on the training rows and record its test-error curve over ``ks``."""
        for name, ranker in rankers.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                pipe, seconds = fit_ranker(ranker, X_train, y_train, prefilter)
            for w in caught:
                if issubclass(w.category, ConvergenceWarning):
                    self.unconverged.setdefault(name, []).append(str(w.message))
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            self.curves.setdefault(name, []).append(
                top_k_errors(pipe, classifier, X_train, y_train, X_test, y_test, ks))
            self.fit_times.setdefault(name, []).append(seconds)
            self.own.setdefault(name, []).append(own_selection(pipe))
            self.scores.setdefault(name, []).append(pipe[-1].scores_)


    def convergence_notes(self):
        """One note per ranker whose fit did not converge in some split (its result is used)."""
        n_splits = {name: len(times) for name, times in self.fit_times.items()}
        return [f"{name}: {len(msgs)} of {n_splits[name]} fits ended without converging (used as they "
                f"stand; first: {msgs[0]})" for name, msgs in self.unconverged.items()]


def all_features_error(classifier, X_train, y_train, X_test, y_test):
    """(error %, seconds) of the classifier on every feature (z-scored in the pipeline)."""
    return pipeline_error([("clf", classifier)], X_train, y_train, X_test, y_test)
