"""LFS as a fixed-point method for the generic driver (Alg. 1 of Armanfard et al. 2016).

iterate     the N×M binary sets f*⁽ⁱ⁾ (all zero at the start: uniform weights)
statistics  weights (10) from the previous sets, then a⁽ⁱ⁾, b⁽ⁱ⁾ (5)
update      for every representative point, in parallel: ε_max by (8), (9) over the β grid,
            randomized rounding of each relaxed solution, and the β whose binary candidate has
            the best local leave-one-out performance (§3.2) — lines 4–12 of Alg. 1
round       the driver's final stage, a pure function of the final sets and the last pass's
            per-point results (``Step.detail``): an :class:`LFSResult` with the hypersphere
            radius of each final set (impurity γ), in X's own features (radii in both units)
The driver runs τ passes (theta = 0).  Rounding happens inside every pass because the next
pass's weights need binary sets; see ``rounding.py``.
X is divided by its typical spread (:mod:`fsopt.core.scaling`; σ is in those units, radii are mapped
back), and constant features (a = b = 0: free in (9), informative nowhere) are left out of the
LPs and never selected.
"""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, replace

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs, parallel_config
from ..core.progress import Progress

from ..core.driver import FixedPointMethod, Step
from ..core.scaling import check_finite, constant_features, rescale
from ..core.solvers import ResolvedSolver, resolve_solver
from .lp import EpsilonConstraint, EpsilonMax
from .regions import local_performance, sphere_radii
from .rounding import CommonUniforms, round_solution
from .weights import local_costs, neighbour_weights


def beta_grid(n_beta):
    """β = 1/n_beta, 2/n_beta, …, 1 for (9) (the grid of the authors' code)."""
    return np.arange(1, n_beta + 1) / n_beta


@dataclass(frozen=True)
class LFSConfig:
    """Everything a worker needs besides the data; the solvers resolved once per fit
    (:func:`resolve_solvers`), each carrying its ``solver_options``; ``fallback`` and
    ``eps_fallback``: the solvers tried in turn when ``solver`` fails on (9), ``eps_solver`` on (8);
    ``weight_kernel`` and ``radius_rule``: the variants of (10) and of the final radii (``LFS``)."""

    alpha: int
    gamma: float
    sigma: float
    n_beta: int
    n_rounding: int
    rounding: str
    solver: ResolvedSolver
    eps_solver: ResolvedSolver
    check_solver: ResolvedSolver | None = None
    fallback: tuple = ()
    eps_fallback: tuple = ()
    weight_kernel: str = "exponential"
    radius_rule: str = "fit"

    @property
    def betas(self):
        return beta_grid(self.n_beta)


@dataclass
class PointResult:
    """What the β sweep of one representative point produced."""

    index: int
    selected: np.ndarray  # indices of f*⁽ⁱ⁾
    relaxed: np.ndarray  # the LP solution of (9) at the chosen β
    beta: float
    eps_max: float
    score: float
    records: list
    check_gap: float = np.nan  # largest |(9) objective − second solver's| / max(1, |objective|)
    fallback: bool = False  # no rounding of any β was feasible


# (M, α) -> (EpsilonMax, EpsilonConstraint): one cvxpy build (and one HiGHS handle) per worker.
# Thread-local: the subproblems hold mutable data and a solver handle, so threads (joblib's
# "threading", dask workers with processes=False) each get their own; processes have their own.
_LOCAL = threading.local()


def _subproblems(n_features, alpha):
    key = (n_features, alpha)
    cache = getattr(_LOCAL, "cache", None)
    if cache is None or key not in cache:
        _LOCAL.cache = cache = {key: (EpsilonMax(n_features, alpha), EpsilonConstraint(n_features, alpha))}
    return cache[key]


def _strip(record):
    record.solution = {}  # keep certificate and timings; the N·n_beta vectors are not kept
    return record


def unit_mean(v):
    """v scaled to unit mean ((8), (9) and the rounding are invariant to this scaling)."""
    m = v.mean()
    return v / m if m > 0 else v


def solve_point(i, a, b, X, y_enc, class_counts, cfg: LFSConfig, rng) -> PointResult:
    """Lines 6–11 of Alg. 1 for representative point i."""
    a, b = unit_mean(a), unit_mean(b)  # (8), (9) and the rounding are invariant to this scaling
    check_finite(np.concatenate([a, b]), f"the LP costs a, b (5) of point {i}",
                 "X is too large for the squared distances; rescale X")
    em, ec = _subproblems(X.shape[1], cfg.alpha)
    em.set_data(b=b)
    rec8 = em.solve(cfg.eps_solver, fallback=cfg.eps_fallback)
    eps_max = rec8.objective
    ec.set_data(a, b)
    records, candidates, gaps = [_strip(rec8)], [], []
    for beta in cfg.betas:
        ec.set_epsilon(beta * eps_max)
        rec = ec.solve(cfg.solver, fallback=cfg.fallback)
        if cfg.check_solver:
            other = ec.solve(cfg.check_solver)
            gaps.append(abs(rec.objective - other.objective) / max(1.0, abs(rec.objective)))
        f = rec.solution["f"]
        binary, _ = round_solution(f, a, b, ec.eps, cfg.alpha, cfg.n_rounding, rng, cfg.rounding)
        candidates.append((beta, f, binary))
        records.append(_strip(rec))
    scored = {}
    best = None
    for beta, f, binary in candidates:
        if binary is None:
            continue
        key = tuple(np.flatnonzero(binary))
        if key not in scored:
            scored[key] = local_performance(X[:, list(key)], y_enc, i, cfg.gamma, class_counts)
        if best is None or scored[key][0] > best[0]:
            best = (scored[key][0], beta, f, key)
    fallback = best is None
    if fallback:  # no β has a feasible rounding (rare): the largest entries of the smallest β's f
        beta, f, _ = candidates[0]
        size = min(cfg.alpha, max(1, int(np.sum(f >= 0.5))))
        key = tuple(np.sort(np.argsort(-f, kind="stable")[:size]))
        best = (local_performance(X[:, list(key)], y_enc, i, cfg.gamma, class_counts)[0], beta, f, key)
    score, beta, f, key = best
    return PointResult(i, np.array(key, dtype=int), f, float(beta), eps_max, float(score), records,
                       max(gaps) if gaps else np.nan, fallback)


def resolve_solvers(solver, eps_solver, check_solver, solver_options, n_features, alpha, fallback=()):
    """``(solver, eps_solver, check_solver, fallback, eps_fallback)`` resolved once, before any
    work, for (9), (8), (9) again (``check_solver`` may be None), and each of ``fallback`` for (9)
    and for (8): ``solver_options`` go to all alike, so each must accept them."""
    roles = [("solver", solver, EpsilonConstraint), ("eps_solver", eps_solver, EpsilonMax),
             ("check_solver", check_solver, EpsilonConstraint)]
    roles += [(f"fallback[{i}]", name, kind) for kind in (EpsilonConstraint, EpsilonMax)
              for i, name in enumerate(fallback)]
    resolved, by_name = [], {}  # each name looked up once, then only checked against the other LP
    for role, name, kind in roles:
        try:
            if name is None:
                resolved.append(None)
                continue
            if name not in by_name:
                by_name[name] = resolve_solver(name, kind(n_features, alpha), solver_options)
            resolved.append(by_name[name].for_subproblem(kind(n_features, alpha)))
        except (ValueError, TypeError) as exc:
            kind = TypeError if isinstance(exc, TypeError) else ValueError
            raise kind(f"LFS {role}={name!r}: {exc} (solver_options are passed to solver, eps_solver, "
                       f"check_solver and fallback alike)") from None
    n = len(fallback)
    return (*resolved[:3], tuple(resolved[3:3 + n]), tuple(resolved[3 + n:]))


def check_backend(backend, n_jobs):
    """ValueError naming ``backend`` when joblib cannot run the per-point problems on it (an unknown
    name, dask without a Client), before any work."""
    try:
        with parallel_config(backend=backend) if backend else contextlib.nullcontext():
            effective_n_jobs(n_jobs)
    except ValueError as exc:
        raise ValueError(f"LFS: backend={backend!r} cannot run the per-point problems: {exc}") from None


def legacy_seed(seed: np.random.SeedSequence):
    """A ``np.random.RandomState`` seed from the fit's seed: the integer itself where it is one
    below 2³² (``random_state=20`` draws LFSpy's ``rr_seed=20`` uniforms), else four words of it."""
    entropy = seed.entropy
    return entropy if isinstance(entropy, int) and entropy < 2**32 else seed.generate_state(4)


def _solve_chunk(indices, A, B, X, y_enc, class_counts, cfg, seeds, common=None):
    return [solve_point(i, a, b, X, y_enc, class_counts, cfg, common or np.random.default_rng(s))
            for i, a, b, s in zip(indices, A, B, seeds)]


@dataclass(frozen=True)
class LFSResult:
    """LFS's result through the driver (``DriverResult.rounding``), in X's own features: the
    final sets f*⁽ⁱ⁾ (N × M, bool), the hypersphere radius of each in units of X's typical spread
    ``scale`` (``radius``: in X's units), and the last pass's per-point results (``selected`` and
    ``relaxed`` indexed by X's features)."""

    fstar: np.ndarray
    unit_radius: np.ndarray
    scale: float
    points: tuple

    @property
    def radius(self) -> np.ndarray:
        return self.unit_radius * self.scale

    def per_point(self, attribute) -> np.ndarray:
        """``attribute`` of every point's :class:`PointResult`, stacked: ``relaxed`` (N × M, the
        LP solution of (9) at the chosen β), ``beta``, ``eps_max``, ``score``, ``fallback``, ..."""
        return np.array([getattr(r, attribute) for r in self.points])

    @property
    def max_check_gap(self) -> float:
        """Largest relative objective gap to ``check_solver`` (NaN without one)."""
        gaps = self.per_point("check_gap")
        return float(np.nanmax(gaps)) if np.any(np.isfinite(gaps)) else np.nan


class LFSFixedPoint(FixedPointMethod[LFSResult]):
    """The pieces of Alg. 1 for :class:`fsopt.core.driver.FixedPointDriver`."""

    def __init__(self, X, y_enc, cfg: LFSConfig, seed: np.random.SeedSequence, n_jobs=None,
                 progress=False, backend=None):
        X, self.scale = rescale(X)
        self.n_total = X.shape[1]
        self.keep = np.flatnonzero(~constant_features(X))  # the features the LPs see
        self.X, self.y_enc, self.cfg = np.ascontiguousarray(X[:, self.keep]), y_enc, cfg
        self.class_counts = np.bincount(y_enc)
        self.seed, self.n_jobs, self.progress, self.backend = seed, n_jobs, progress, backend
        self.passes = 0
        self.common = CommonUniforms(legacy_seed(seed), self.n_total, cfg.n_rounding, self.keep) \
            if cfg.rounding == "common" else None

    def initial_iterate(self):
        return np.zeros(self.X.shape)

    def statistics(self, iterate, active):
        W = neighbour_weights(self.X, self.y_enc, iterate > 0.5, self.cfg.sigma, self.cfg.weight_kernel)
        return local_costs(self.X, self.y_enc, W)

    def update(self, stats, iterate, active):
        """One pass over the representative points; the step's detail is their
        :class:`PointResult` tuple (indices among the non-constant features)."""
        A, B = stats
        N = self.X.shape[0]
        self.passes += 1
        # one seed per (pass, point): identical results for any n_jobs and chunking
        seeds = [np.random.SeedSequence(self.seed.entropy, spawn_key=(self.passes, i)) for i in range(N)]
        # backend None: joblib's active configuration (e.g. a parallel_config(backend="dask"))
        with parallel_config(backend=self.backend) if self.backend else contextlib.nullcontext():
            workers = effective_n_jobs(self.n_jobs)
            chunks = np.array_split(np.arange(N), min(N, 4 * workers if workers > 1 else 10))
            jobs = (delayed(_solve_chunk)(idx, A[idx], B[idx], self.X, self.y_enc, self.class_counts,
                                          self.cfg, [seeds[i] for i in idx], self.common) for idx in chunks)
            results = []
            bar = Progress(N, f"LFS pass {self.passes}", unit="points", enabled=self.progress, brief=True)
            for chunk in Parallel(n_jobs=workers, return_as="generator")(jobs):
                results.extend(chunk)
                bar.update(len(chunk))
            bar.close()
        points = tuple(sorted(results, key=lambda r: r.index))
        new = np.zeros_like(iterate)
        for r in points:
            new[r.index, r.selected] = 1.0
        records = [rec for r in points for rec in r.records]
        return Step(new, records, float(np.mean([r.score for r in points])), detail=points)

    def distance(self, new, old):
        """Number of (point, feature) memberships that changed."""
        return float(np.abs(new - old).sum())

    def round(self, iterate, active, detail) -> LFSResult:
        """Final stage: the boolean sets and their hypersphere radii (γ), and the last pass's
        points (``detail``), in X's own features (constant features never selected).
        Pure: ``detail`` is mapped into new PointResults, never rewritten."""
        sets = iterate > 0.5
        radius = sphere_radii(self.X, self.y_enc, sets, self.cfg.gamma, self.class_counts, self.cfg.radius_rule)
        full = np.zeros((sets.shape[0], self.n_total), dtype=bool)
        full[:, self.keep] = sets
        return LFSResult(full, radius, self.scale, tuple(self._in_x_features(r) for r in detail))

    def _in_x_features(self, point: PointResult) -> PointResult:
        relaxed = np.zeros(self.n_total)
        relaxed[self.keep] = point.relaxed
        return replace(point, relaxed=relaxed, selected=self.keep[point.selected])
