"""Feature rankers used by every protocol, each a scikit-learn selector with ``scores_``.

``TopK`` wraps any estimator exposing ``scores_`` (LOGO, NMMKL), ``feature_importances_``
(ReliefF) or ``coef_`` (L1 models, linear SVM), or a score function ``f(X, y)``; it keeps the
k largest scores (ties by lower index).  Changing ``k`` after fitting changes the selection
without refitting, which is how one fit gives the whole error-versus-k curve.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted


def make_scaler():
    """The z-scoring step of every pipeline (fitted on training rows only)."""
    return StandardScaler()


def ranking(scores):
    """Feature indices, best first (ties by lower index; NaN last)."""
    scores = np.nan_to_num(np.asarray(scores, dtype=float), nan=-np.inf)
    return np.lexsort((np.arange(scores.size), -scores))


def estimator_scores(estimator):
    """Relevance scores of a fitted estimator: ``feature_importances_``, |coef_| (largest over
    classes) or ``scores_`` (LOGO, NMMKL), in that order (LogisticRegressionCV's ``scores_`` are CV scores)."""
    if hasattr(estimator, "feature_importances_"):
        return np.asarray(estimator.feature_importances_, dtype=float)
    if hasattr(estimator, "coef_"):
        return np.abs(np.atleast_2d(estimator.coef_)).max(axis=0)
    if hasattr(estimator, "scores_"):
        return np.asarray(estimator.scores_, dtype=float)
    raise TypeError(f"{type(estimator).__name__} has no scores_, feature_importances_ or coef_")


class TopK(SelectorMixin, BaseEstimator):
    """Keep the k best features of ``ranker`` (an estimator or a score function ``f(X, y)``)."""

    def __init__(self, ranker, k=10):
        self.ranker = ranker
        self.k = k

    def fit(self, X, y):
        if hasattr(self.ranker, "fit"):
            self.ranker_ = clone(self.ranker).fit(X, y)
            scores = estimator_scores(self.ranker_)
        else:
            scores = self.ranker(X, y)
            scores = scores[0] if isinstance(scores, tuple) else scores
        self.scores_ = np.asarray(scores, dtype=float)
        self.n_features_in_ = self.scores_.size
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "scores_")
        mask = np.zeros(self.scores_.size, dtype=bool)
        mask[ranking(self.scores_)[: min(int(self.k), self.scores_.size)]] = True
        return mask
