"""``fsopt.LOGO``: the scikit-learn face of LOGO."""
from __future__ import annotations

import copy
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..core.blocks import check_blockwise, distinct_rows, is_blockwise, take_rows
from ..core.driver import FixedPointDriver
from ..core.exceptions import warn
from ..core.kernels import blas_one_thread
from ..core.scaling import check_feature_extents, rescale, unit_scale
from ..core.solvers import resolve_solver, solver_chain
from ..core.subproblem import Subproblem
from ..core.validation import check_data, check_labels, transactional_fit, validate_fit
from .garrote import GarroteLogistic
from .method import _HELD_FROM, LogoFixedPoint, screening_refusal, zbar_fits
from .working_set import WorkingSet

PAPER_PRUNE_BELOW = 1e-8  # the paper's elimination threshold
# prune_below="auto" eliminates (working set, checks) from N²·J = 2.5e7 pair-feature terms per pass
# of z̄ on (about 1 ms on two cores): below it the plain iteration costs milliseconds a pass, and
# only it follows the paper's path to its fixed point where the map has several (docs/logo-scale.md:
# on the logo-uci protocol at lam = 1, N²·J ≤ 3.7e6, the fast path reached another one on 6 of 27
# splits and saved no passes; Colon, 7.4e6, 5 of 62 differ; the benchmark grid, N²·J ≥ 8.9e7, none)
FAST_PATH_FROM = 2.5e7
# ... and from J = 4,096 features on, where the plain run after a hand-over holds margins (_HELD_FROM)
# and so costs less than the plain iteration: below it a working set that does not settle is spent
# on top of the plain iteration's cost (at J = 2,000 the proxies' default / plain was 0.96-1.04 in
# total, and each fit above 1.25 x in them before this rule was at J = 2,000-3,060: docs/logo-scale.md,
# "The fast path from 4,096 features")
FAST_PATH_FEATURES = _HELD_FROM
W0_LARGEST = 1e150  # w0 times X's typical spread: distances Σ_j w_j |x_nj − x_ij| stay far from overflow
# ... and from N = 300 samples on: with fewer, the map often has several fixed points (spurious
# features among thousands fit few samples), and a working set that converges by itself reaches
# another than the plain iteration's in many fits (N = 80, 150, 200: 5 of 12, 2 of 21, 3 of 6 of
# those where both converged; N = 300 with N(0, 1) noise: none but at the threshold's edge, with
# binary or counts noise 1 of 18 at J = 20,000: docs/logo-scale.md); "auto" then hands over at
# once, to the plain run after a hand-over (the plain iteration's iterates, bit for bit, at
# 0.58-0.78 x its time at N = 80-250: docs/logo-scale.md, "Fewer than 300 samples")
WORKING_SET_SAMPLES = 300


def fast_path_pays(shape, backend) -> bool:
    """Whether "auto" takes the fast path on an N × J X with this backend: N²·J ≥ ``FAST_PATH_FROM``,
    and J ≥ ``FAST_PATH_FEATURES`` where the backend solves over all J cheaply (it declares
    ``working_set_from``: a working set of its own; the statistics are then the plain iteration's
    cost).  Another backend's solve over all J is the cost the fast path saves at any J: with
    solver="CLARABEL" on a spiral, N = 200, J = 2,000, the fast path took 8.1 s, the plain 26.9 s."""
    N, J = shape
    return N ** 2 * J >= FAST_PATH_FROM and \
        (J >= FAST_PATH_FEATURES or getattr(backend, "working_set_from", None) is None)


def skips_working_set(method) -> bool:
    """Whether "auto" hands a fit over to the plain run at its first iteration (restart reason
    "few samples"): fewer than ``WORKING_SET_SAMPLES`` samples, where that run holds margins
    (:meth:`~fsopt.logo.method.LogoFixedPoint.holds_some_margins`: LBFGSB from J = 4,096, X in
    memory) and so costs less than the plain iteration.  Elsewhere the working set stays: with
    another backend it is the cheap path at any J, and a streamed X keeps its streaming."""
    return method.X.shape[0] < WORKING_SET_SAMPLES and method.holds_some_margins(working_set=False)


PROBED = ("when LOGO chose its solvers, before the fit: a fresh copy of the subproblem, before "
          "set_margins gave it the margins z̄ (no data yet)")  # capability messages say so


class LOGO(SelectorMixin, BaseEstimator):
    """Local-learning-based feature selection (Sun, Todorovic, Goodison, TPAMI 2010).

    Parameters
    ----------
    sigma : float, default=2.0
        Kernel width of k(d) = exp(−d/σ) (paper: 2; ``inf`` gives uniform probabilities), in
        units of X's typical spread.
    lam : float, default=1.0
        ℓ1 weight λ > 0 of form (7) (0 is refused: (7) then has no minimizer on separable
        margins).  Ignored when ``beta`` is given.
    beta : float or None, default=None
        If set, solve form (8) with ‖w‖₁ ≤ β instead (PROXGRAD or a conic solver).
    solver : str, default="auto"
        "auto": fsopt's own solvers able to solve the subproblem, cheapest first
        (:data:`fsopt.core.solvers.ESCALATION_ORDER`): for (7) "LBFGSB", then "PROXGRAD",
        "CLARABEL", "ECOS", "GRADIENT"; for ``beta`` (8) "PROXGRAD", "CLARABEL", "ECOS".  A solve whose answer fails its certificate is refined, then handed to the next
        of them, so the fit raises ``SolverFailed`` only when none is certified; ``solvers_``
        lists them and ``certificate_`` says who answered.  Or one solver, strictly (its
        refinement, then only ``fallback``): "LBFGSB" (native L-BFGS-B over a KKT-checked
        working set, certified like every solve), "gradient" (eqs 9–10, the reference), a
        cvxpy backend (CLARABEL, ECOS, SCS, MOSEK) or a profile from ``solvers/``.
    fallback : sequence of str, default=()
        Solvers tried in turn when ``solver`` fails (after those of "auto"); each attempt is
        kept in the history.
    check_against : str or None, default=None
        A second solver (e.g. "gradient") every subproblem is also solved with.  The relative
        objective gap and weight difference are stored in each record's certificate (keys
        ``<solver>_objective_gap``, ``<solver>_weight_diff``); a disagreement beyond 1e-6
        (objective) or 1e-3 (weights, relative to max(1, max w)) raises ``SolverFailed``.
    theta : float, default=0.01
        Stop when θ_t = ‖w⁽ᵗ⁾ − w⁽ᵗ⁻¹⁾‖₂ / max(‖w⁽ᵗ⁾‖₂, 1e-300) < θ (paper: 0.01 on raw
        weights; relative here, so weights of any scale stop alike).  Reaching ``max_iter``
        first raises ``sklearn.exceptions.ConvergenceWarning``.
    max_iter : int, default=50
        At most this many outer iterations.
    prune_below : float, None or "auto", default="auto"
        Elimination threshold (paper: 1e-8).  A weight below it at an outer iteration leaves
        the working set: the fixed point iterates on the others,
        in rounds each closed by an exact check of every eliminated feature (one pass of z̄
        over them) when the working set converges, cycles, stalls, converges slowly or has run
        10 iterations; the most violating features come back and the iteration goes on.  Four
        checks that go round (most of what they bring back an earlier check had brought back)
        restart the fit as the plain iteration (``history_[t].restarted``), and so do three
        checks in a row that find no fewer violators than the fewest an earlier one found
        (restart reason "no headway"), a working set that spends more than its budget (4 first
        iterations' counted work, up to 10 with growth; ``history_[t].work``, restart reason
        "budget"), or a check that finds more
        violators than a twentieth of the features while working-set iterations are dear (this
        one at least a tenth of the first one's work, or the cheapest a thirty-second, as at J up
        to about 10,000; restart reason "crowded").  That run has the plain iteration's iterates and
        its ``max_iter``, each update over all J, at less than its cost: statistics over the
        features the last updates weighted, every other feature decided by its exact gradient.
        The subproblem must declare ``smooth.margin_derivative`` and ``penalty.zero_slack``
        (refused otherwise, before any work).  ``None`` disables elimination: the paper's
        iteration over all J features.  "auto": 1e-8 when N²·J (the pairs of samples times the
        features, the work of one pass of z̄) is at least 2.5e7 and, for a backend that solves over all
        J cheaply (LBFGSB's own working set: ``working_set_from``), J at least 4,096; else None: the
        fast path where it saves time, the paper's path where a pass costs about a millisecond or
        where J is too small for the run after a hand-over to be cheaper than the plain iteration
        (so a working set that does not settle would cost its spend on top of it; where the map has
        several fixed points, only the paper's path is sure to reach the paper's; the fast path
        can reach another certified one: docs/logo-scale.md).  Below 300 samples, where the map
        has several fixed points more often, "auto" hands the fit over at its first iteration
        (restart reason "few samples") when that run is cheaper than the plain iteration (LBFGSB,
        J ≥ 4,096): the plain iteration's iterates, bit for bit.  ``prune_below_`` holds the value
        used.  ``history_[t].data_passes`` holds the passes over X of each iteration.
    prune_patience : int, default="deprecated"
        Deprecated in 0.1.1, removed in 0.2 (no caller set it): a feature is eliminated after
        one outer iteration below ``prune_below``.  Setting it still works until then, with a
        FutureWarning.
    threshold : float, default=0.01
        ``get_support`` keeps the features whose weight / max weight exceeds this (paper: 0.01).
    w0 : array-like of shape (n_features,) or None, default=None
        Initial weights in the units of ``weights_`` (None: all ones in units of X's typical
        spread, the paper's start), nonnegative, not all zero.  ``w0=fit.weights_`` starts at a
        fit's answer: a fixed point is then reached in one iteration.
    solver_options : dict or None, default=None
        Common options ``tol``, ``max_iter``, ``verbose`` plus backend-specific ones (with
        ``solver="auto"``, each solver gets those it accepts).
    callback : callable or None, default=None
        Called as ``callback(iteration, w)`` after each outer iteration; returning True stops.
    progress : bool, default=False
        Show a progress bar.
    subproblem : Subproblem, callable or None, default=None
        A user's LOGO subproblem instead of the garrote (7)/(8) that ``lam``/``beta`` make: a
        :class:`fsopt.Subproblem` with ``set_margins(Z, columns=None)`` (e.g.
        ``GarroteLogistic(penalty=NonnegElasticNet(1.0, 0.1))`` or a subclass), given as an
        instance (copied at each fit, never modified) or a factory called with no argument.
        ``lam`` and ``beta`` are then unused (the subproblem carries its parameters), and its
        parameters are in the units of the built-in path: its margins are those of X divided
        by X's typical spread, like σ.  Native solvers take it when it declares the parts they
        need (docs/parts.md); a solver that cannot take it is refused before any work, naming
        the missing part.
    acceleration : {"auto", "averaging", "anderson"} or None, default="auto"
        Acceleration of the fixed point.  "auto": the paper's w ← T(w), its iterates
        unchanged, until the driver detects a cycle or a stall (no new smallest θ_t in 10
        iterations), then safeguarded Anderson (``history_[t].switched`` marks where).  None:
        w ← T(w) only; a cycle ends the fit with outcome "cycle(k)".  "averaging":
        w ← ½w + ½T(w) throughout.  "anderson": safeguarded type-I Anderson throughout.  See
        docs/logo-scale.md.
    working_set : bool, default=True
        True: the fixed point iterates over the features not eliminated, as described under
        ``prune_below``.  False: every outer iteration solves the subproblem over all J
        features, eliminated ones kept out by a bound on their KKT condition (the iterates are
        those without elimination, to the solver's tolerance; costlier when features re-enter
        often).

    Notes
    -----
    Identical rows with the same label are one sample: each copy would otherwise be the other's
    nearest hit at distance 0 for every w, and count again in the loss of (7), so X with every
    row given twice selects as X does (rows are told apart by their first 128 columns, and only
    rows that agree there are compared in full, one column block at a time).

    X may be a NumPy array, scipy.sparse, or a dask / zarr / h5py array read one column block
    at a time.  z̄ is held for at most 1 GiB of columns; beyond that the statistics and the KKT
    checks stream, so memory does not grow with J beyond a few vectors.

    Attributes
    ----------
    weights_ : ndarray of shape (n_features,)
        Learned weights, in the units of X's features; 0 for eliminated features.
    scores_ : ndarray of shape (n_features,)
        ``weights_`` divided by their largest (the paper's ranking; ``get_support`` compares
        it with ``threshold``).
    history_ : list of Iteration
        One :class:`fsopt.core.driver.Iteration` per outer iteration: θ_t, objective, solve
        records, the residual ‖T(w) − w‖/‖T(w)‖, and the features eliminated / re-entered after
        it (``n_dropped``, ``n_reentered``).
    n_iter_ : int
        Iterations done (one row of ``history_`` each).
    n_outer_iter_ : int
        Outer iterations done, as ``max_iter`` counts them: iterations over all features, and
        working-set rounds; after a restart, those of the run that gave the answer.
    converged_ : bool
        Whether θ_t < theta was reached with the final check over all features passed (no
        eliminated feature would enter).
    outcome_ : str
        "converged", "cycle(k)" (the solves repeat with period k), "max_iter" or "stopped" (the
        callback).
    certificate_ : FitCertificate
        What "converged" rests on (:mod:`fsopt.core.fit_certificate`): the fixed-point residual,
        the last subproblem's KKT conditions over all features, and who answered each solve.
    margins_at_ : ndarray of shape (n_features,)
        The weights the last margins were computed at: ``weights_`` is the solve
        ``T(margins_at_)``.
    prune_below_ : float or None
        The elimination threshold this fit used (``prune_below``, "auto" resolved).
    solvers_ : list of str
        The solvers this fit would try on each subproblem, in turn (``solver``, "auto"
        resolved, then ``fallback``).
    n_duplicate_rows_ : int
        Rows merged into an identical row with the same label (0: none).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features,)
        Column names of X, when X is a DataFrame with string column names.

    Examples
    --------
    >>> from fsopt import LOGO
    >>> from fsopt.datasets.spiral import make_spiral
    >>> X, y = make_spiral(n_per_class=60, n_irrelevant=20, random_state=0)
    >>> logo = LOGO(sigma=2.0, lam=1.0).fit(X, y)
    >>> logo.get_support(indices=True)
    array([0, 1])
    >>> logo.converged_
    True
    """

    _parameter_constraints = {
        "sigma": [Interval(Real, 0, None, closed="right")],
        "lam": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="neither"), None],
        "solver": [str],
        "fallback": [tuple, list],
        "check_against": [str, None],
        "theta": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "prune_below": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"}), None],
        "prune_patience": [Interval(Integral, 1, None, closed="left"), StrOptions({"deprecated"})],
        "threshold": [Interval(Real, 0, 1, closed="left")],
        "w0": ["array-like", None],
        "solver_options": [dict, None],
        "callback": [callable, None],
        "progress": ["boolean"],
        "subproblem": [Subproblem, callable, None],
        "acceleration": [StrOptions({"auto", "averaging", "anderson"}), None],
        "working_set": ["boolean"],
    }

    def __init__(self, sigma=2.0, lam=1.0, beta=None, solver="auto", fallback=(),
                 check_against=None, theta=0.01, max_iter=50, prune_below="auto", prune_patience="deprecated",
                 threshold=0.01, w0=None, solver_options=None, callback=None, progress=False,
                 subproblem=None, acceleration="auto", working_set=True):
        self.sigma = sigma
        self.lam = lam
        self.beta = beta
        self.solver = solver
        self.fallback = fallback
        self.check_against = check_against
        self.theta = theta
        self.max_iter = max_iter
        self.prune_below = prune_below
        self.prune_patience = prune_patience
        self.threshold = threshold
        self.w0 = w0
        self.solver_options = solver_options
        self.callback = callback
        self.progress = progress
        self.subproblem = subproblem
        self.acceleration = acceleration
        self.working_set = working_set

    @transactional_fit
    def fit(self, X, y):
        """Run LOGO's fixed point (Alg. 1) on (X, y) and store the weights.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples: a NumPy array, a DataFrame (its column names are kept),
            scipy.sparse CSR/CSC, or a dask / zarr / h5py array.
        y : array-like of shape (n_samples,)
            Class labels; every class needs at least two samples.

        Returns
        -------
        self : LOGO
            The fitted estimator.
        """
        self._validate_params()
        if self.prune_patience != "deprecated":
            warn("LOGO's prune_patience is deprecated in 0.1.1 and is removed in 0.2; a feature is "
                 "eliminated after one outer iteration below prune_below", FutureWarning)
        if self.lam == 0 and self.beta is None and self.subproblem is None:
            raise ValueError("LOGO: lam=0 leaves the garrote (7) without its penalty, and where the margins "
                             "separate the classes it has no minimizer (the loss falls along a ray): give "
                             "lam > 0, or a budget beta")
        X, y = self._prepare(X, y)
        subproblem = self._make_subproblem()
        solver, *fallback = solver_chain(self.solver, self.fallback, subproblem, self.solver_options,
                                         probed=PROBED)  # once per fit, before any work
        prune_below = self.prune_below
        if prune_below == "auto":  # the fast path where it saves time; the paper's path where it is cheap
            prune_below = PAPER_PRUNE_BELOW if fast_path_pays(X.shape, solver.backend) else None
        self.prune_below_ = prune_below
        screening = prune_below is not None or not zbar_fits(X)
        refusal = screening_refusal(subproblem) if screening else ""
        if refusal:
            if prune_below is None:  # too many margins to hold: they must be streamed
                raise ValueError(f"{refusal}; X's {X.shape[0]} x {X.shape[1]} margins exceed the memory LOGO "
                                 f"holds them in, so they are streamed, which needs those parts: declare them")
            raise ValueError(f"{refusal}. Declare them, or fit without elimination (prune_below=None): every "
                             f"outer iteration then solves over all {X.shape[1]} features")
        check_against = None if self.check_against is None else \
            resolve_solver(self.check_against, subproblem, self.solver_options, probed=PROBED)
        x_scale = unit_scale(X)  # σ in units of X's typical spread (fsopt.core.scaling) ...
        check_feature_extents(X, x_scale, getattr(self, "feature_names_in_", None))  # before any work
        stat_scale = x_scale  # ... applied inside the statistics: X is not copied, unless
        if not 1e-100 < x_scale < 1e100 and not is_blockwise(X):  # sums of |x_n − x_i| could overflow
            X, stat_scale = rescale(X)[0], 1.0
        w0 = self._check_w0(X.shape[1], x_scale)  # the iterate acts on X / x_scale
        method = LogoFixedPoint(X, y, self.sigma, subproblem, solver, fallback, w0=w0,
                                check_against=check_against, x_scale=stat_scale,
                                working_set=self.working_set, screening=screening)
        patience = 1 if self.prune_patience == "deprecated" else self.prune_patience
        skip = self.prune_below == "auto" and self.working_set and skips_working_set(method)
        active_set = None if prune_below is None else \
            WorkingSet(prune_below, patience, hand_over_first="few samples" if skip else "")
        driver = FixedPointDriver(theta=self.theta, max_iter=self.max_iter, active_set=active_set,
                                  callback=self.callback, progress=self.progress, desc="LOGO",
                                  acceleration=self.acceleration)
        with blas_one_thread():
            result = driver.run(method)
        if not np.any(result.iterate > 0):
            warn(f"LOGO: every weight is zero ({subproblem.describe()}: a penalty too large, or a budget too "
                 f"small, for these margins?); no feature is selected", UserWarning)
        self.weights_ = result.iterate / x_scale  # weights of the features in X's own units
        self.history_ = result.history
        self.n_iter_ = result.n_iter
        self.n_outer_iter_ = result.n_outer
        self.converged_ = result.converged
        self.outcome_ = result.outcome
        self.certificate_ = result.certificate
        self.margins_at_ = result.evaluated / x_scale  # weights_ = T(margins_at_)
        self.solvers_ = [resolved.name for resolved in (solver, *fallback)]
        return self

    def _make_subproblem(self):
        """The subproblem of this fit: the garrote from lam/beta, or a fresh copy of the user's."""
        if self.subproblem is None:
            return GarroteLogistic(lam=self.lam, beta=self.beta)
        made = copy.deepcopy(self.subproblem) if isinstance(self.subproblem, Subproblem) \
            else self.subproblem()
        if not isinstance(made, Subproblem):
            raise TypeError(f"subproblem must be a fsopt Subproblem or a factory returning one; "
                            f"the factory returned {type(made).__name__}")
        if not callable(getattr(made, "set_margins", None)):
            raise TypeError(f"subproblem {type(made).__name__} has no set_margins(Z, columns=None): "
                            f"LOGO gives its subproblem the expected margins z̄")
        return made

    def _prepare(self, X, y):
        """(X, y) checked, identical rows merged (``n_duplicate_rows_``); X is not copied unless
        rows are merged."""
        if is_blockwise(X) and not sp.issparse(X):  # dask, zarr, h5py: checked block by block
            check_blockwise(X)
            y = check_data(np.zeros((X.shape[0], 1)), y, min_per_class=2)[1]
            self.n_features_in_ = X.shape[1]
            vars(self).pop("feature_names_in_", None)  # an array has none: an earlier fit's must go
        else:  # dense or CSR/CSC (the statistics read sparse X one column block at a time)
            X, y = validate_fit(self, X, y, accept_sparse=("csr", "csc"), min_per_class=2)
        keep = distinct_rows(X, y)  # a row's copy would be its own nearest hit at distance 0
        self.n_duplicate_rows_ = X.shape[0] - keep.size
        if self.n_duplicate_rows_:
            X, y = take_rows(X, keep), y[keep]
            try:
                check_labels(y, min_per_class=2)
            except ValueError as exc:
                unit_scale(X)  # all columns constant (every row alike): that error names the cause
                raise ValueError(f"after merging {self.n_duplicate_rows_} identical rows (same features "
                                 f"and label): {exc}") from None
        return X, y

    def _check_w0(self, n_features, x_scale):
        """w0 in the units the iterate acts in (X / x_scale), checked."""
        if self.w0 is None:
            return None
        try:
            w0 = np.asarray(self.w0, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"w0 must be an array of numbers, one per feature; {exc}") from None
        if w0.shape != (n_features,):
            raise ValueError(f"w0 must have one entry per feature ({n_features}); got shape {w0.shape}")
        if not np.all(np.isfinite(w0)) or np.any(w0 < 0) or not np.any(w0 > 0):
            raise ValueError("w0 must be finite, nonnegative and not all zero")
        scaled = w0 * x_scale
        if not np.max(scaled) <= W0_LARGEST:
            raise ValueError(f"w0's largest entry ({np.max(w0):.3g}) times X's typical spread ({x_scale:.3g}) is "
                             f"above {W0_LARGEST:.0e}: the distances it weights would overflow. The first "
                             f"iteration reads w0 only through exp(-distance / sigma): scale w0 down")
        return scaled

    @property
    def scores_(self):
        """Weights normalized to max 1 (the paper's ranking)."""
        check_is_fitted(self, "weights_")
        top = self.weights_.max()
        return self.weights_ / top if top > 0 else self.weights_.copy()

    def _get_support_mask(self):
        return self.scores_ > self.threshold

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True  # CSR/CSC passed to the statistics as given
        return tags
