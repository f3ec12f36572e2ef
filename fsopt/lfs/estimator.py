"""``fsopt.lfs.LFS``: the scikit-learn face of local feature selection."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import ClassifierTags
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..core.driver import FixedPointDriver
from ..core.kernels import blas_one_thread
from ..core.scaling import check_feature_extents, check_finite, unit_scale
from ..core.validation import densify, transactional_fit, validate_fit, validate_predict
from .method import LFSConfig, LFSFixedPoint, check_backend, resolve_solvers
from .regions import class_similarity, predict_labels
from .weights import WEIGHT_POWERS

DENSE_LIMIT_BYTES = 2**30  # largest dense copy of a sparse X (8·N·M bytes) LFS makes: 1 GiB
# The choices each ``variant`` makes where the option is None (docs/reproductions.md measures each).
VARIANTS = {"paper": {"weight_kernel": "exponential", "rounding": "sample", "predict_radius": "fit",
                      "fallback_vote": "all"},
            "lfspy": {"weight_kernel": "gaussian", "rounding": "common", "predict_radius": "lfspy",
                      "fallback_vote": "own_class"}}


class LFS(ClassifierMixin, BaseEstimator):
    """Local feature selection and its local classifier (Armanfard, Reilly, Komeili, TPAMI 2016).

    Parameters
    ----------
    alpha : int, default=5
        Largest feature-set size α of every representative point, 1 ≤ α ≤ n_features.
    tau : int, default=2
        Outer iterations τ (Alg. 1; weights (10) from the previous sets).
    gamma : float, default=0.2
        Impurity level γ ∈ [0, 1] bounding each hypersphere (§3.2).
    sigma : float, default=1.0
        Width of the weights (10), exp(−(d − d^min)/σ).
    n_beta : int, default=20
        Size of the β grid 1/n_beta, …, 1 of (9).
    n_rounding : int, default=1000
        Randomized-rounding trials R.
    variant : {"paper", "lfspy"}, default="paper"
        Where ``weight_kernel``, ``rounding``, ``predict_radius`` and ``fallback_vote`` are None,
        their choice: "paper" (eq. (10) as printed, independent draws, the fit's radii, every
        coordinate system votes) or "lfspy" (LFSpy 1.0.4's: "gaussian", "common", "lfspy",
        "own_class").  LFSpy's defaults besides are ``alpha=19, n_rounding=2000``;
        docs/reproductions.md measures each choice.
    weight_kernel : {"exponential", "gaussian"} or None, default=None
        The weights (10): exp(−(d − d^min)/σ) (the paper) or exp(−(d − d^min)²/σ) (LFSpy).
    rounding : {"sample", "common", "exact"} or None, default=None
        "sample": R seeded draws, the paper's definition.  "common": LFSpy's draws with its seed
        set, the same uniforms ``np.random.RandomState(random_state).rand(M, R)`` for every point,
        β and pass.  "exact": all roundings of the ≤ 2 fractional entries of a vertex, the R → ∞
        limit.
    predict_radius : {"fit", "lfspy"} or None, default=None
        The hypersphere radii ``predict`` uses: "fit" (the midpoint rule of the β selection) or
        LFSpy's predict-time rule (:func:`fsopt.lfs.regions.sphere_radius`).
    fallback_vote : {"all", "own_class"} or None, default=None
        A query in no sphere: every coordinate system votes for its nearest neighbour's label (§3.2)
        or, as LFSpy, only for its own class when that is the neighbour's
        (:func:`fsopt.lfs.regions.class_similarity`).
    solver : str, default="BOXLP"
        Backend for (9): "BOXLP" (the exact dual method for box LPs with two rows,
        :mod:`fsopt.lfs.box_lp`; the β sweep reuses its earlier solves), "HIGHSPY" (highspy
        directly, the β sweep warm-started by dual simplex), "HIGHS" (HiGHS through cvxpy), any
        LP-capable backend or a profile.  The tests check that BOXLP, HIGHSPY and the cvxpy path
        select the same sets.
    eps_solver : str or None, default="TOPK"
        Backend for (8): "TOPK" (the exact closed form, b ≥ 0 ⇒ 1 on the α largest b_m), None
        (the same as ``solver``), or any LP-capable backend.
    check_solver : str or None, default=None
        If set, every (9) is solved again with this second solver and the largest relative
        objective difference is stored in ``lp_check_``.
    fallback : sequence of str, default=("HIGHSPY",)
        Solvers tried in turn when ``solver`` fails on (9) or ``eps_solver`` on (8); each must
        solve both LPs.
    solver_options : dict or None, default=None
        Common options (tol, max_iter, verbose) plus backend-specific ones.
    n_jobs : int or None, default=None
        Joblib workers over representative points; results do not depend on it.  None with a
        dask backend: every dask worker.
    backend : str or None, default=None
        Joblib backend of the per-point problems: None (joblib's active configuration, so
        ``with joblib.parallel_config(backend="dask"): est.fit(X, y)`` runs on the dask cluster
        of the current ``dask.distributed.Client``), "loky", "threading", "dask" (needs a
        Client) or any registered joblib backend.  Results do not depend on it.
    random_state : int, RandomState, Generator or None, default=None
        Seed of the rounding.
    progress : bool, default=False
        Show progress bars.

    Notes
    -----
    LFS is a two-class method: y must have exactly two classes.  X may be dense or scipy.sparse;
    sparse X is densified (8·N·M bytes), refused with a clear error above 1 GiB
    (``fsopt.lfs.estimator.DENSE_LIMIT_BYTES``).

    Attributes
    ----------
    fstar_ : ndarray of shape (N, M), dtype bool
        The selected feature set of each training sample (representative point).
    f_relaxed_ : ndarray of shape (N, M)
        The LP solution of (9) at each point's chosen β.
    beta_ : ndarray of shape (N,)
        The β chosen for each point.
    eps_max_ : ndarray of shape (N,)
        ε_max of (8) at each point.
    radius_ : ndarray of shape (N,)
        The radius of each point's hypersphere, in the units of X.
    unit_radius_ : ndarray of shape (N,)
        The same radii in units of the typical spread ``scale_`` (what ``predict`` compares).
    scale_ : float
        X's typical spread s (:mod:`fsopt.core.scaling`): fit and predict measure every
        distance in X / s, so no answer depends on the units of X.
    local_score_ : ndarray of shape (N,)
        The β-selection score DR/N_same − FAR/N_other of each point.
    history_ : list of Iteration
        The driver's iterations (τ), with every LP's solve record and certificate.
    lp_check_ : dict
        ``n_lps``, ``max_residual``, ``all_certified`` and ``max_objective_gap`` (None without
        ``check_solver``) over the LPs of the fit.
    choices_ : dict
        ``weight_kernel``, ``rounding``, ``predict_radius``, ``fallback_vote`` as resolved by ``variant``.
    n_rounding_fallbacks_ : int
        Points of the last pass where no rounding of any β was feasible.
    n_iter_ : int
        Outer iterations done (τ).
    classes_ : ndarray of shape (2,)
        The two labels.
    certificate_ : FitCertificate
        Who answered each LP (:mod:`fsopt.core.fit_certificate`).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of X, when X is a DataFrame with string column names.

    Examples
    --------
    >>> from fsopt import LFS
    >>> from fsopt.datasets.lfs_synthetic import make_lfs_synthetic
    >>> X, y = make_lfs_synthetic(10, 10, 20, n_irrelevant=5, random_state=0)
    >>> lfs = LFS(alpha=2, tau=1, n_jobs=1, random_state=0).fit(X, y)
    >>> lfs.fstar_.shape                        # one feature set per training sample
    (40, 7)
    >>> bool(lfs.lp_check_["all_certified"]) and lfs.score(X, y) > 0.8
    True
    """

    _parameter_constraints = {
        "alpha": [Interval(Integral, 1, None, closed="left")],
        "tau": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, 1, closed="both")],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "n_beta": [Interval(Integral, 1, None, closed="left")],
        "n_rounding": [Interval(Integral, 1, None, closed="left")],
        "variant": [StrOptions({"paper", "lfspy"})],
        "weight_kernel": [StrOptions(set(WEIGHT_POWERS)), None],
        "rounding": [StrOptions({"sample", "common", "exact"}), None],
        "predict_radius": [StrOptions({"fit", "lfspy"}), None],
        "fallback_vote": [StrOptions({"all", "own_class"}), None],
        "solver": [str],
        "eps_solver": [str, None],
        "check_solver": [str, None],
        "fallback": [tuple, list],
        "solver_options": [dict, None],
        "n_jobs": [Interval(Integral, 1, None, closed="left"), Interval(Integral, None, -1, closed="right"), None],
        "backend": [str, None],
        "random_state": ["random_state", np.random.Generator],
        "progress": ["boolean"],
    }

    def __init__(self, alpha=5, tau=2, gamma=0.2, sigma=1.0, n_beta=20, n_rounding=1000,
                 variant="paper", weight_kernel=None, rounding=None, predict_radius=None,
                 fallback_vote=None, solver="BOXLP", eps_solver="TOPK", check_solver=None,
                 fallback=("HIGHSPY",), solver_options=None, n_jobs=None, backend=None, random_state=None,
                 progress=False):
        self.alpha = alpha
        self.tau = tau
        self.gamma = gamma
        self.sigma = sigma
        self.n_beta = n_beta
        self.n_rounding = n_rounding
        self.variant = variant
        self.weight_kernel = weight_kernel
        self.rounding = rounding
        self.predict_radius = predict_radius
        self.fallback_vote = fallback_vote
        self.solver = solver
        self.eps_solver = eps_solver
        self.check_solver = check_solver
        self.fallback = fallback
        self.solver_options = solver_options
        self.n_jobs = n_jobs
        self.backend = backend
        self.random_state = random_state
        self.progress = progress

    @transactional_fit
    def fit(self, X, y):
        """Select a feature set for each training sample (Alg. 1: ``tau`` passes of (8)-(10)).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (a DataFrame's column names are kept).
        y : array-like of shape (n_samples,)
            Labels of exactly two classes.

        Returns
        -------
        self : LFS
            The fitted estimator.
        """
        self._validate_params()
        check_backend(self.backend, self.n_jobs)
        X, y = validate_fit(self, X, y, accept_sparse=("csr", "csc"), min_per_class=2)
        X = densify(X, DENSE_LIMIT_BYTES, "LFS")
        M = X.shape[1]
        if self.alpha > M:
            raise ValueError(f"alpha={self.alpha} exceeds the number of features: X has {M} "
                             f"feature(s); need 1 <= alpha <= M")
        check_feature_extents(X, unit_scale(X), getattr(self, "feature_names_in_", None))
        solvers = resolve_solvers(self.solver, self.eps_solver or self.solver, self.check_solver,
                                  self.solver_options, M, self.alpha, self.fallback)  # once per fit
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        choices = {k: getattr(self, k) or v for k, v in VARIANTS[self.variant].items()}
        cfg = LFSConfig(self.alpha, float(self.gamma), float(self.sigma), self.n_beta,
                        self.n_rounding, choices["rounding"], *solvers,
                        weight_kernel=choices["weight_kernel"], radius_rule=choices["predict_radius"])
        method = LFSFixedPoint(X, y_enc, cfg, _seed_sequence(self.random_state), self.n_jobs,
                               self.progress, self.backend)
        driver = FixedPointDriver(theta=0.0, max_iter=self.tau, progress=self.progress, desc="LFS")
        with blas_one_thread():  # small products per point: spinning BLAS threads took the cores (CHANGELOG)
            result = driver.run(method)
        fit = result.rounding  # an LFSResult
        self.fstar_, self.radius_, self.unit_radius_, self.scale_ = (
            fit.fstar, fit.radius, fit.unit_radius, fit.scale)
        self.f_relaxed_, self.beta_, self.eps_max_, self.local_score_ = (
            fit.per_point(a) for a in ("relaxed", "beta", "eps_max", "score"))
        self.n_rounding_fallbacks_ = int(fit.per_point("fallback").sum())
        self.choices_ = choices
        self.history_ = result.history
        self.certificate_ = result.certificate  # who answered each LP
        self.n_iter_ = result.n_iter
        records = [rec for h in result.history for rec in h.records]
        self.lp_check_ = {"n_lps": len(records),
                          "max_residual": max(rec.residual for rec in records),
                          "all_certified": all(rec.certified for rec in records),
                          "max_objective_gap": fit.max_check_gap if self.check_solver else None}
        self.X_fit_, self.y_enc_ = X, y_enc
        return self

    @property
    def selected_sets_(self):
        """Feature indices of each representative point's set."""
        check_is_fitted(self, "fstar_")
        return [np.flatnonzero(s) for s in self.fstar_]

    def similarity(self, X):
        """(S, votes): class similarities (11) and the fallback votes, n_samples × n_classes,
        with every distance taken in units of the training data's typical spread (``scale_``),
        as in fit."""
        check_is_fitted(self, "fstar_")
        X = densify(validate_predict(self, X, accept_sparse=("csr", "csc")), DENSE_LIMIT_BYTES, "LFS")
        with np.errstate(over="ignore"):
            Xq = X / self.scale_  # the same operation as fit's (fsopt.core.scaling.rescale)
        check_finite(Xq, "X divided by the training data's typical spread",
                     f"X is beyond float64 range in the units of the training data (s = {self.scale_:.3g})")
        return class_similarity(Xq, self.X_fit_ / self.scale_, self.y_enc_, self.selected_sets_,
                                self.unit_radius_, np.bincount(self.y_enc_), self.choices_["fallback_vote"])

    def predict(self, X):
        """The class whose local neighbourhoods are most similar to each sample (eq. 11).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples to classify.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted class of each sample.
        """
        check_is_fitted(self, "fstar_")
        return self.classes_[predict_labels(*self.similarity(X))]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=False)  # the method is two-class (§3)
        tags.input_tags.sparse = True  # densified up to DENSE_LIMIT_BYTES
        return tags


def _seed_sequence(random_state):
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(int(random_state.randint(2**31)))
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(2**63)))
    return np.random.SeedSequence(random_state)
