"""The papers' preprocessing as pipeline steps fitted on the training rows of a split.

``Preprocessing(impute=, drop_missing=)`` gives the steps every protocol puts before its selector:
drop the columns mostly missing in the training rows, impute the remaining missing cells with a
statistic of the training rows, z-score with the training mean and deviation.  ``one_vs_rest``
makes the two-class version of a multiclass label (a function of the label alone: no fitting).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.impute import SimpleImputer
from sklearn.utils.validation import check_is_fitted, validate_data

from ...core.selectors import make_scaler

IMPUTE_STRATEGIES = ("median", "mean", "most_frequent")


class DropMostlyMissing(TransformerMixin, BaseEstimator):
    """Keep the columns whose missing fraction in the fitted rows is at most ``max_missing``."""

    def __init__(self, max_missing=0.5):
        self.max_missing = max_missing

    def fit(self, X, y=None):
        X = validate_data(self, X, ensure_all_finite="allow-nan")
        if not 0 <= self.max_missing < 1:
            raise ValueError(f"max_missing must be in [0, 1); got {self.max_missing}")
        self.missing_fraction_ = np.isnan(X).mean(axis=0)
        self.support_ = self.missing_fraction_ <= self.max_missing
        return self

    def transform(self, X):
        check_is_fitted(self, "support_")
        X = validate_data(self, X, ensure_all_finite="allow-nan", reset=False)
        return X[:, self.support_]


@dataclass(frozen=True)
class Preprocessing:
    """The protocol's preprocessing options; ``steps()`` are fresh pipeline steps, ``notes()`` say them."""

    impute: str | None = None
    drop_missing: float | None = None

    def __post_init__(self):
        if self.impute is not None and self.impute not in IMPUTE_STRATEGIES:
            raise ValueError(f"impute must be one of {', '.join(IMPUTE_STRATEGIES)}; got {self.impute!r}")
        if self.drop_missing is not None and not 0 <= self.drop_missing < 1:
            raise ValueError(f"drop_missing must be a fraction in [0, 1); got {self.drop_missing}")

    def check(self, X, source):
        """ValueError naming ``source`` when X has missing cells that no step handles (before any fit)."""
        n_missing = int(np.isnan(X).sum())
        if n_missing and self.impute is None:
            cols = np.flatnonzero(np.isnan(X).any(axis=0))
            row = int(np.flatnonzero(np.isnan(X[:, cols[0]]))[0])
            raise ValueError(f"{source}: {n_missing} missing value{'s' if n_missing > 1 else ''} in {cols.size} "
                             f"column{'s' if cols.size > 1 else ''} (first: row {row}, column {cols[0]}, both "
                             f"counted from 0); pass --impute median|mean|most_frequent (fitted on each training "
                             f"part), optionally with --drop-missing FRACTION")

    def steps(self):
        """[drop mostly-missing columns] → [impute] → z-score, all fitted on the rows given to fit."""
        steps = []
        if self.drop_missing is not None:
            steps.append(("drop_missing", DropMostlyMissing(self.drop_missing)))
        if self.impute is not None:
            steps.append(("impute", SimpleImputer(strategy=self.impute, keep_empty_features=True)))
        return steps + [("scale", make_scaler())]

    def notes(self):
        notes = []
        if self.drop_missing is not None:
            notes.append(f"Preprocessing: columns with more than {self.drop_missing:.0%} missing values in the "
                         "training part are dropped (decided per split on the training rows).")
        if self.impute is not None:
            notes.append(f"Preprocessing: missing values imputed with the training part's {self.impute} "
                         "(fitted per split, and per inner fold; test rows never enter it).")
        return notes


def one_vs_rest(y, positive):
    """Two-class version of ``y``: ``positive`` (matched as given or as text) against every other class."""
    y = np.asarray(y)
    text = np.array([str(v) for v in y])
    if str(positive) not in set(text):
        raise ValueError(f"positive class {positive!r} is not a label of the data; labels: "
                         f"{', '.join(sorted(set(text))[:20])}")
    return np.where(text == str(positive), str(positive), "rest")
