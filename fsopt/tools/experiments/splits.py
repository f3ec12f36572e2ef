"""Seeded outer splits shared by the protocols, and the per-split irrelevant features."""
from __future__ import annotations

import numpy as np
from sklearn.model_selection import LeaveOneOut, StratifiedKFold, StratifiedShuffleSplit

from ...datasets import add_irrelevant_features


def random_splits(y, n_splits, train_size, random_state, test_size=None):
    """``n_splits`` stratified random train/test partitions with ``train_size`` training rows and
    ``test_size`` test rows (None: all the others)."""
    if not 2 <= train_size <= len(y) - 2:
        raise ValueError(f"train_size must leave rows for training and testing; got {train_size} of {len(y)}")
    sss = StratifiedShuffleSplit(n_splits, train_size=int(train_size), random_state=random_state,
                                 test_size=None if test_size is None else int(test_size))
    return list(sss.split(np.zeros((len(y), 1)), y))


def loocv_splits(n_samples, n_held_out=None, random_state=0):
    """Leave-one-out; ``n_held_out`` tests only a seeded subset of the samples (each still trained on N − 1)."""
    splits = list(LeaveOneOut().split(np.zeros((n_samples, 1))))
    if n_held_out is None or n_held_out >= n_samples:
        return splits
    pick = np.random.default_rng(random_state).choice(n_samples, size=n_held_out, replace=False)
    return [splits[i] for i in np.sort(pick)]


def inner_cv(n_folds, random_state):
    """The inner cross-validation that tunes hyper-parameters on a training part."""
    return StratifiedKFold(n_folds, shuffle=True, random_state=random_state)


def split_seed(random_state, split):
    """Seed of split ``split``'s random draws (irrelevant features), independent across splits."""
    return int(np.random.SeedSequence([int(random_state), int(split)]).generate_state(1)[0])


def with_irrelevant(X, n_irrelevant, random_state, split):
    """X plus ``n_irrelevant`` N(0, 1) columns drawn for this split (label-independent: no leakage)."""
    return add_irrelevant_features(X, n_irrelevant, random_state=split_seed(random_state, split)) \
        if n_irrelevant else X
