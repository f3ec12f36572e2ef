"""One outer split: preprocessing and selection fitted on the training rows, errors on the test rows.

``pre`` is the list of preprocessing steps (``Preprocessing.steps()``: drop mostly-missing columns,
impute, z-score) that starts every pipeline; ``counted_warnings`` records, per method, every warning
its fit raises, for the notes.
"""
from __future__ import annotations

import time
import warnings
from contextlib import contextmanager

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from ...core.selectors import ranking


def error_percent(estimator, X, y):
    """Misclassification rate in percent."""
    return 100.0 * float(np.mean(estimator.predict(X) != y))


@contextmanager
def counted_warnings(method, sink):
    """Append ``[method, category, message]`` to ``sink`` for every warning raised inside (none
    re-raised), then ``[method, None, None]``: the end of one fit, so fits are counted too."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    sink.extend([method, w.category.__name__, str(w.message)] for w in caught)
    sink.append([method, None, None])


def fit_ranker(ranker, X_train, y_train, pre, prefilter=None):
    """Pipeline [pre → (prefilter) → ranker] fitted on the training rows; returns (pipeline, seconds)."""
    steps = [(name, clone(step)) for name, step in pre]
    if prefilter is not None:
        steps.append(("prefilter", clone(prefilter)))
    steps.append(("select", clone(ranker)))
    t0 = time.perf_counter()
    pipe = Pipeline(steps).fit(X_train, y_train)
    return pipe, time.perf_counter() - t0


def top_k_errors(pipe, classifier, X_train, y_train, X_test, y_test, ks):
    """Test error (%) of ``classifier`` on the top-k ranked features of a fitted ``fit_ranker`` pipe, per k."""
    Z_train, Z_test = pipe[:-1].transform(X_train), pipe[:-1].transform(X_test)
    order = ranking(pipe[-1].scores_)
    return np.array([error_percent(clone(classifier).fit(Z_train[:, order[:k]], y_train),
                                   Z_test[:, order[:k]], y_test) for k in ks])


def n_features_seen(fitted):
    """Number of features the last step of a fitted pipeline (or a grid search's best one) was fitted on."""
    return int(getattr(fitted, "best_estimator_", fitted)[-1].n_features_in_)


def pipeline_error(pre, steps, X_train, y_train, X_test, y_test):
    """(test error %, fit seconds, features the last step saw) of Pipeline([*pre, *steps]) fitted on
    the training rows; the count is after the preprocessing (e.g. mostly-missing columns dropped)."""
    pipe = Pipeline([(name, clone(step)) for name, step in pre] + list(steps))
    t0 = time.perf_counter()
    pipe.fit(X_train, y_train)
    seconds = time.perf_counter() - t0
    return error_percent(pipe, X_test, y_test), seconds, n_features_seen(pipe)
