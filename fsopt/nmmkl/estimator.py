"""``fsopt.nmmkl.NMMKL``: the scikit-learn face of non-monotonic feature selection (Algorithm 1)."""
from __future__ import annotations

import contextlib
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import ClassifierTags
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ..core.driver import FixedPointDriver
from ..core.kernels import blas_one_thread
from ..core.scaling import check_feature_extents, unit_scale
from ..core.solvers import COMMON_OPTIONS, builtin_chain, resolve_solver, solver_chain
from ..core.validation import transactional_fit, validate_fit
from .method import NMMKLMethod
from .qcqp import MKLDual
from .recovery import PrimalRecoveryLP

# From this many features on, solver="auto" tries the working-set MKLFAST before Clarabel on (8):
# the crossover of benchmarks/nmmkl_scale.py --crossover (docs/performance.md, NMMKL).
MKLFAST_FROM = 1000


class NMMKL(SelectorMixin, BaseEstimator):
    """Select exactly ``n_features`` features by the MKL relaxation of (4) and Algorithm 1.

    Parameters
    ----------
    n_features : int, default=10
        m, the number of features to select (1 ≤ m ≤ d).
    C : float, default=1.0
        Box constraint of the SVM dual (3), > 0.
    tau : float, default=1.0
        τ ≥ 0, the ridge τI added to the kernel in (3).
    solver : str, default="auto"
        Backend or profile for the QCQP (8).  "auto": fsopt's own solvers able to solve (8)
        (:data:`fsopt.core.solvers.ESCALATION_ORDER`: CLARABEL, ECOS, MKLFAST), the fastest
        first for the size of X: the working-set MKLFAST from
        :data:`fsopt.nmmkl.estimator.MKLFAST_FROM` (1,000) features on (docs/performance.md,
        NMMKL), Clarabel below; an answer that fails its certificate is refined, then handed to
        the next, so the fit raises ``SolverFailed`` only when none is certified (``solvers_``
        lists them, ``certificate_`` says who answered).  A named solver (CLARABEL, ECOS, SCS,
        MOSEK, MKLFAST) is used strictly: its refinement, then only ``fallback``.
    lp_solver : str, default="auto"
        Backend or profile for the recovery LP (15).  "auto": MKLLP (the LP reduced by its
        structure to the tie block B, :mod:`fsopt.nmmkl.recovery_reduced`), then the general LP
        solvers (HIGHS, CLARABEL, ECOS) on the whole LP, each until one is certified.
    fallback : sequence of str, default=()
        Solvers tried in turn when ``solver`` fails on (8) (after those of "auto"); those of them
        that solve LPs are also tried when ``lp_solver`` fails on the recovery LP (15).
    solver_options : dict or None, default=None
        Options of ``solver``: the common ``tol``, ``max_iter``, ``verbose`` and backend ones
        (with ``solver="auto"``, each solver gets those it accepts).
    lp_options : dict or None, default=None
        Options of ``lp_solver``, as ``solver_options``.
    tie_tol : float, default=1e-6
        τ_i within tie_tol·max τ_i of the m-th largest form the tie block B (eq. 11).
    alpha_tol : float, default=1e-6
        α_j > alpha_tol·C counts as α_j > 0 (and α_j < (1 − alpha_tol)·C as α_j < C) in (15).
    violation_weight : float, default=1e3
        Weight (times max(1, C)) of the violation of (16) in the least-violation LP.

    Notes
    -----
    X may be dense or scipy.sparse (CSR/CSC: the linear kernels are formed from sparse columns,
    never densifying N×d); y must have exactly two classes.

    Attributes
    ----------
    support_ : ndarray of shape (d,), dtype bool
        The selected features (A plus the best of B).
    scores_ : ndarray of shape (d,)
        τ_i = (x_iᵀ(α∘y))², eq. (9).
    p_ : ndarray of shape (d,)
        The relaxed primal p recovered by the LP (15).
    p_cone_ : ndarray of shape (d,)
        The cone multipliers of (8).
    alpha_ : ndarray of shape (n_samples,)
        α of the solution of (8).
    lambda_ : float
        λ of the solution of (8).
    gamma_ : float
        γ of the solution of (8).
    partition_ : ndarray of shape (d,)
        "A", "B" or "C" per feature (eqs 10–12).
    bound_ : float
        Theorem 6's bound on ω(p_alg)/ω(p̃*) (inf when it gives none).
    diagnostics_ : dict
        Corollary 2 / KKT residuals and the LP-vs-cone agreement of p.
    history_ : list of Iteration
        One :class:`fsopt.core.driver.Iteration`; its ``records`` are the two SolveRecords.
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is coded +1.
    certificate_ : FitCertificate
        Who answered each solve (:mod:`fsopt.core.fit_certificate`).
    solvers_ : list of str
        The solvers tried in turn on (8) (``solver``, "auto" resolved, then ``fallback``).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of X, when X is a DataFrame with string column names.

    Examples
    --------
    >>> from fsopt import NMMKL
    >>> from fsopt.datasets import standardize
    >>> from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
    >>> X, y = make_nmmkl_toy(n_samples=500, random_state=0)   # features X, Y, Z
    >>> X = standardize(X)
    >>> NMMKL(n_features=1, C=0.03, tau=1.0).fit(X, y).get_support(indices=True)   # {Z}
    array([2])
    >>> NMMKL(n_features=2, C=0.03, tau=1.0).fit(X, y).get_support(indices=True)   # {X, Y}
    array([0, 1])
    """

    _parameter_constraints = {
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "tau": [Interval(Real, 0, None, closed="left")],
        "solver": [str],
        "lp_solver": [str],
        "fallback": [tuple, list],
        "solver_options": [dict, None],
        "lp_options": [dict, None],
        "tie_tol": [Interval(Real, 0, 1, closed="left")],
        "alpha_tol": [Interval(Real, 0, 1, closed="left")],
        "violation_weight": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, n_features=10, C=1.0, tau=1.0, solver="auto", lp_solver="auto",
                 fallback=(), solver_options=None, lp_options=None, tie_tol=1e-6, alpha_tol=1e-6,
                 violation_weight=1e3):
        self.n_features = n_features
        self.C = C
        self.tau = tau
        self.solver = solver
        self.lp_solver = lp_solver
        self.fallback = fallback
        self.solver_options = solver_options
        self.lp_options = lp_options
        self.tie_tol = tie_tol
        self.alpha_tol = alpha_tol
        self.violation_weight = violation_weight

    @transactional_fit
    def fit(self, X, y):
        """Solve the QCQP (8), recover p by the LP (15) and select ``n_features`` features.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples (a DataFrame's column names are kept).
        y : array-like of shape (n_samples,)
            Labels of exactly two classes.

        Returns
        -------
        self : NMMKL
            The fitted estimator.
        """
        self._validate_params()
        X, y = validate_fit(self, X, y, accept_sparse=("csr", "csc"))
        d = X.shape[1]
        if self.n_features > d:
            raise ValueError(f"n_features={self.n_features} exceeds the number of features: "
                             f"X has {d} feature(s)")
        scale = unit_scale(X)
        check_feature_extents(X, scale, getattr(self, "feature_names_in_", None), centered=False)
        self.classes_ = np.unique(y)
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        chain, (lp_solver, *lp_fallback) = self._solver_chain(d)  # resolved here, once, before any work
        solver, *fallback = chain
        method = NMMKLMethod(X, y_pm, self.n_features, self.C, self.tau, solver, lp_solver,
                             fallback, None, None, self.tie_tol, self.alpha_tol,
                             self.violation_weight, lp_fallback=lp_fallback, scale=scale)
        with blas_one_thread():  # N × |W| products: a second BLAS thread only spins (core.kernels)
            result = FixedPointDriver(theta=0.0, max_iter=1, desc="NMMKL").run(method)
        fit = result.rounding  # an NMMKLResult
        qcqp = fit.solution
        self.support_ = fit.support
        self.partition_ = fit.partition.labels()
        self.scores_ = qcqp.tau_i
        self.p_, self.p_cone_ = fit.p, qcqp.p_cone
        self.alpha_, self.lambda_, self.gamma_ = qcqp.alpha, qcqp.lam, qcqp.gamma
        self.bound_ = fit.bound
        self.diagnostics_ = fit.diagnostics
        self.history_ = result.history
        self.certificate_ = result.certificate  # who answered each solve
        self.solvers_ = [resolved.name for resolved in (solver, *fallback)]
        return self

    def _solver_chain(self, n_features):
        """The solvers of (8), tried in turn (``solver``, "auto" resolved for ``n_features``
        features, then ``fallback``; NMMKLMethod checks them against the (8) of the data), and
        those of (15): ``lp_solver`` ("auto": MKLLP, then the general LP solvers) then ``fallback``
        (NMMKLMethod keeps its LP solvers)."""
        probe = MKLDual(np.eye(2), [1.0, -1.0], 1)  # who can solve (8) depends on its form only
        named = solver_chain(self.fallback[0], self.fallback[1:], None, self.solver_options) \
            if self.fallback else []
        with _named("the QCQP (8)", solver=self.solver, solver_options=self.solver_options):
            qcqp = solver_chain(self.solver, (), probe if self.solver == "auto" else None, self.solver_options)
        if self.solver == "auto" and n_features >= MKLFAST_FROM:
            qcqp.sort(key=lambda resolved: resolved.backend.name != "MKLFAST")  # stable: the rest keep their order
        lp_probe = PrimalRecoveryLP()
        common = {k: v for k, v in (self.lp_options or {}).items() if k in COMMON_OPTIONS}
        with _named("the LP (15)", lp_solver=self.lp_solver, lp_options=self.lp_options):
            lp = [resolve_solver("MKLLP", lp_probe, common)] + builtin_chain(lp_probe, self.lp_options) \
                if self.lp_solver == "auto" else [resolve_solver(self.lp_solver, lp_probe, self.lp_options)]
        return qcqp + named, lp + named

    @property
    def records_(self):
        """The SolveRecords of the fit: the QCQP (8) then the LP (15)."""
        check_is_fitted(self, "history_")
        return [r for it in self.history_ for r in it.records]

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=False)  # a two-class method
        tags.input_tags.sparse = True
        return tags


@contextlib.contextmanager
def _named(problem, **parameters):
    """A ValueError or TypeError in resolving the solvers of ``problem``, raised again with the
    estimator's parameters that made them (``solver_options`` and ``lp_options`` share messages)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        given = ", ".join(f"{name}={value!r}" for name, value in parameters.items())
        raise type(exc)(f"NMMKL, solvers of {problem} ({given}): {exc}") from None
