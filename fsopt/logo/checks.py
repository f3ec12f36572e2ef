"""LOGO's claims, checked numerically (``fsopt verify``), each against an independent value.

LOGO margins (3)-(5)   the expected margins equal a loop over the definition (kernel exp(−d/σ)).
LOGO Thm 1             the gradient path from random v0 reaches the optimum of (7) found by Clarabel.
LOGO Thm 2             on a σ grid: a σ* above which every start reaches one fixed point with
                       contraction number q(σ) < 1, and q → 0 as σ → ∞ (the theorem's statement).
LOGO sigma->inf        at a large *finite* σ (margins still depend on w) the fixed point is reached in
                       one step and equals the solution of (7) on uniform-probability margins computed
                       in NumPy.
LOGO sample complexity n needed to recover the spiral vs J, a log model against power laws.
LOGO acceleration      averaging and Anderson stop at a fixed point of the definitions' map T, Anderson
                       in fewer outer iterations where the plain iteration w ← T(w) needs 30 or more.
LOGO fixed point (3)-(7) the estimator's iterates and fixed point (with elimination; X dense and in a
                       column-chunked store) against a NumPy loop over the definitions with SciPy's
                       L-BFGS-B for (7), the unit scale computed from its definition.
LOGO fit certificate   a default fit (working set, elimination) with a user's margin loss (a squared
                       hinge declared through the public parts) returns the full-J optimum at the
                       margins its last solve was solved at, and its certificate says so: against a
                       loop over the definitions and SciPy's L-BFGS-B over all J features.

Random instances (``--instances``): spiral with n per class, J, σ and λ drawn from the ranges each
check states.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from ..datasets.spiral import make_spiral
from ..core.solvers import resolve_solver
from ..verify import Margins, check, draws, log_uniform, probe, reference_typical_spread
from ..core.parts import MarginLoss, NonnegL1
from ..core.scaling import unit_scale
from .estimator import LOGO, PAPER_PRUNE_BELOW
from .garrote import GarroteLogistic, MarginGarrote

KIND = GarroteLogistic.name
probe(KIND, lambda: GarroteLogistic(lam=1.0))
probe(MarginGarrote.name, lambda: MarginGarrote(SquaredHingeLoss(), NonnegL1(3.0)))  # LOGO fit certificate


def _margins(X, y, w, sigma):
    from . import margins  # looked up at call time: a planted bug patches the module

    return margins.expected_margins(X, y, w, sigma)


def margins_by_definition(X, y, w, sigma):
    """Eqs (3)–(5) by loops: z̄_n = Σ_miss P·|x_n − x_i| − Σ_hit P·|x_n − x_i|, P ∝ exp(−d_w/σ)."""
    N = X.shape[0]
    Z = np.zeros_like(X, dtype=float)
    for n in range(N):
        d = np.array([float(np.sum(w * np.abs(X[n] - X[i]))) for i in range(N)])
        for pool, sign in (([i for i in range(N) if y[i] != y[n]], 1.0),
                           ([i for i in range(N) if i != n and y[i] == y[n]], -1.0)):
            k = np.exp(-(d[pool] - d[pool].min()) / sigma)
            for p, i in zip(k / k.sum(), pool):
                Z[n] += sign * p * np.abs(X[n] - X[i])
    return Z


@check("LOGO margins (3)-(5)", "the expected margins z̄_n equal eqs (3)-(5) evaluated by loops",
       reference="loops over samples and pairs evaluating eqs (3)-(5)")
def margins_eq3(quick, rng=None):
    margins, worst = Margins(), 0.0
    for g in draws(rng, 3, seed=3):
        N, J, classes = int(g.integers(8, 20)), int(g.integers(2, 8)), int(g.integers(2, 4))
        X, y = g.standard_normal((N, J)), np.arange(N) % classes
        w, sigma = g.uniform(0.0, 2.0, J), log_uniform(g, 0.3, 5.0)
        Z = _margins(X, y, w, sigma)
        ref = margins_by_definition(X, y, w, sigma)
        worst = max(worst, float(np.abs(Z - ref).max() / max(1.0, np.abs(ref).max())))
    margins.at_most("rel_abs_diff", worst, 1e-10)
    return margins.outcome({"max_rel_diff": worst}, "N in [8, 19], J in [2, 7], 2-3 classes, w in [0, 2], "
                           "sigma in [0.3, 5]")


def _subject(solver):
    """(solver under study, independent reference) for the garrote subproblem (7)."""
    subject = solver or "GRADIENT"
    backend, _ = resolve_solver(subject)
    return subject, ("GRADIENT" if backend.name == "CLARABEL" else "clarabel-tight")


@check("LOGO Thm 1", "the gradient path from any v0 with no zero entry reaches the conic optimum of (7)",
       kinds=(KIND,),
       reference="Clarabel at tol 1e-10 (the gradient path at 1e-10 when Clarabel is under study)")
def theorem1(quick, rng=None, solver=None):
    """Random starts (|v0_j| ∈ [0.05, 3], random signs) against Clarabel at tolerance 1e-10
    (against the gradient path at 1e-10 when Clarabel itself is under study).  Instances: n per
    class ∈ [30, 120], J ∈ [5, 60], λ ∈ [0.1, 3], σ ∈ [0.5, 8]."""
    subject, reference = _subject(solver)
    margins, gaps, dists = Margins(), [], []
    for g in draws(rng, 1, seed=0):
        if rng is None:
            n, J, lam, sigma, seed = (60, 20, 1.0, 2.0, 0) if quick else (230, 500, 1.0, 2.0, 0)
        else:
            n, J = int(g.integers(30, 121)), int(g.integers(5, 61))
            lam, sigma, seed = log_uniform(g, 0.1, 3.0), log_uniform(g, 0.5, 8.0), int(g.integers(2**31))
        X, y = make_spiral(n, J, random_state=seed)
        sp = GarroteLogistic(lam=lam, Z=_margins(X, y, np.ones(X.shape[1]), sigma))
        ref = sp.solve(reference, **({"tol": 1e-10} if reference == "GRADIENT" else {}))
        scale = max(float(ref.solution["w"].max()), 1e-8)
        for _ in range(3 if quick else 10):
            v0 = g.uniform(0.05, 3.0, X.shape[1]) * g.choice([-1.0, 1.0], X.shape[1])
            if subject.upper() == "GRADIENT":
                rec = sp.solve(subject, tol=1e-8, v0=v0)
            else:
                sp.warm_start = v0 * v0
                rec = sp.solve(subject, tol=1e-8)
            w = rec.solution["w"]
            gaps.append(abs(sp.objective({"w": w}) - ref.objective) / abs(ref.objective))
            dists.append(float(np.max(np.abs(w - ref.solution["w"]))) / scale)
    margins.at_most("rel_objective_gap", max(gaps), 1e-6)
    margins.at_most("weight_diff_over_max", max(dists), 1e-3)
    return margins.outcome({"starts": len(gaps), "max_rel_objective_gap": max(gaps),
                            "max_weight_diff_over_max": max(dists)},
                           f"{subject} vs {reference}; n={n}, J={J}, lam={lam:.3g}, sigma={sigma:.3g}")


def _fixed_point(X, y, sigma, w0, max_iter, solver):
    """The fit from w0; below σ* it need not converge, which the caller reads from converged_."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LOGO(sigma=sigma, w0=w0, theta=1e-6, max_iter=max_iter, prune_below=None,
                    acceleration=None, solver=solver).fit(X, y)  # the paper's plain iteration


def contraction_number(est) -> float:
    """q(σ): the median ratio θ_{t+1}/θ_t of successive changes (Thm 2: ≤ q < 1 once contracting)."""
    th = np.array([h.change for h in est.history_])
    ratios = th[1:] / th[:-1]
    return float(np.median(ratios)) if ratios.size else 0.0


@check("LOGO Thm 2", "there is a sigma* on the grid above which every w0 >= 0 reaches one fixed point with "
       "contraction number q(sigma) < 1, and q(sigma) -> 0 as sigma -> inf", kinds=(KIND,),
       reference="fixed points from different starts w0 and the measured ratios theta_{t+1}/theta_t")
def theorem2(quick, rng=None, solver=None):
    """Theorem 2 claims the existence of σ* such that for every σ > σ* the map T is a contraction
    (q(σ) < 1), so that every start w⁽⁰⁾ ≥ 0 reaches the same fixed point; its proof rests on
    q(σ) → 0 as σ → ∞.  It does not claim that q decreases in σ (measured: q = 0.54, 0.72, 0.41
    at σ = 2, 4, 8 on a random spiral), nor that starts disagree below σ*.  Measured on a σ grid
    ending at SIGMA_LARGE: σ* = the smallest grid σ from which every larger one has one fixed point
    (spread over starts ≤ 1e-3); at least the last three grid values must be above it, each with
    q(σ) < 1 (median ratio θ_{t+1}/θ_t), and q(SIGMA_LARGE) ≤ Q_LIMIT.  Spiral with 1.5 turns;
    instances: n per class ∈ [50, 80], J ∈ [6, 14], seed drawn.  spread = max |w − w_ref| /
    max w_ref over the starts (inf when a start does not converge in the iteration budget)."""
    solver = solver or "LBFGSB"
    g = rng if rng is not None else np.random.default_rng(1)
    n, J, seed = (60, 10, 1) if rng is None else (int(g.integers(50, 81)), int(g.integers(6, 15)),
                                                  int(g.integers(2**31)))
    if rng is None and not quick:
        n, J = 150, 50
    X, y = make_spiral(n, J, turns=1.5, random_state=seed)
    sigmas = ([0.5, 1.0, 2.0, 4.0, 8.0, 16.0] if quick else [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0]) + [SIGMA_LARGE]
    starts = [None] + [g.uniform(0.0, 3.0, X.shape[1]) for _ in range(1 if quick else 4)]
    spread, q = [], []
    for sigma in sigmas:
        fits = [_fixed_point(X, y, sigma, w0, 80 if quick else 200, solver) for w0 in starts]
        W = np.array([f.weights_ for f in fits])
        ok = all(f.converged_ for f in fits)
        spread.append(float(np.max(np.abs(W - W[0])) / W[0].max()) if ok else np.inf)
        q.append(contraction_number(fits[0]))
    unique = [s <= 1e-3 for s in spread]
    star = next((i for i in range(len(sigmas)) if all(unique[i:])), len(sigmas))
    margins = Margins()
    margins.require("one fixed point on the last three grid values at least", star <= len(sigmas) - 3)
    for s in spread[star:]:
        margins.at_most("spread_above_sigma*", s, 1e-3)
    for v in q[star:]:
        margins.at_most("q_above_sigma*", v, 1.0)
    margins.at_most("q_at_large_sigma", q[-1], Q_LIMIT)
    return margins.outcome({"sigma": sigmas, "spread_over_starts": spread, "q": q,
                            "sigma_star": sigmas[star] if star < len(sigmas) else None},
                           f"n={n}, J={J}, turns=1.5; {len(starts)} starts per sigma (w0 = 1 and "
                           f"uniform[0, 3]); {solver} subproblems; sigma in units of X's typical spread")


SIGMA_LARGE = 1e3  # σ far above the spiral's distances (units of X's typical spread): q near its limit 0
Q_LIMIT = 0.05  # ... measured q(1e3) ≈ 1e-3 on the canonical instances


def uniform_margins(X, y):
    """z̄_n with uniform probabilities over hits and misses (σ → ∞), directly in NumPy."""
    diff = np.abs(X[:, None, :] - X[None, :, :])
    same = y[:, None] == y[None, :]
    hit = same & ~np.eye(y.size, dtype=bool)
    return (np.einsum("ni,nij->nj", ~same / (~same).sum(1, keepdims=True), diff)
            - np.einsum("ni,nij->nj", hit / hit.sum(1, keepdims=True), diff))


@check("LOGO sigma->inf", "at a large finite sigma the fixed point is reached in one step: it solves (7) "
       "on uniform-probability margins", kinds=(KIND,),
       reference="(7) on uniform-probability margins computed in NumPy, solved by the gradient path at 1e-10; unit scale from its definition")
def sigma_infinity(quick, rng=None, solver=None):
    """σ = 1e4 × the largest weighted distance at w = 1 (probabilities within ~1e-4 of uniform but
    still dependent on w); reference: (7) on NumPy uniform margins by the gradient path at 1e-10
    (Clarabel at 1e-10 as fallback: alone, it missed its certificate on 1 of 50 instances).
    Instances: n per class ∈ [30, 120], J ∈ [5, 60], λ ∈ [0.3, 3]."""
    solver = solver or "LBFGSB"
    g = rng if rng is not None else np.random.default_rng(2)
    n, J, lam = (60 if quick else 230, 20 if quick else 500, 1.0) if rng is None else \
        (int(g.integers(30, 121)), int(g.integers(5, 61)), log_uniform(g, 0.3, 3.0))
    X, y = make_spiral(n, J, random_state=int(g.integers(2**31)))
    sigma = 1e4 * float(np.abs(X[:, None, :] - X[None, :, :]).sum(axis=2).max())
    est = LOGO(sigma=sigma, lam=lam, theta=1e-6, prune_below=None, solver=solver).fit(X, y)
    scale = reference_typical_spread(X)  # LOGO's σ and weights are in units of X's typical spread
    ref = GarroteLogistic(lam=lam, Z=uniform_margins(X / scale, y)).solve(
        "GRADIENT", tol=1e-10, fallback=("clarabel-tight",)).solution["w"]
    changes = [h.change for h in est.history_]
    diff = float(np.max(np.abs(est.weights_ * scale - ref)) / max(ref.max(), 1e-8))
    margins = Margins()
    margins.at_most("theta_2_over_theta_1", changes[1] / changes[0] if len(changes) > 1 else 0.0, 1e-3)
    margins.at_most("weight_diff_to_uniform_reference", diff, 1e-3)
    return margins.outcome({"sigma": sigma, "theta_t": changes, "iterations": est.n_iter_,
                            "max_weight_diff_over_max": diff},
                           f"n={n}, J={J}, lam={lam:.3g}; {solver} subproblems; reference: gradient path on "
                           "uniform margins")


def _recovered(X, y, solver) -> bool:
    """A converged fit with the two relevant features on top (an unconverged one is no answer)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = LOGO(solver=solver).fit(X, y)
    scores = est.scores_
    return est.converged_ and set(np.argsort(scores)[-2:]) == {0, 1} and scores[2:].max(initial=0.0) < 0.01


def growth_exponents(Js):
    """Log–log slope over [J_min, J_max] of a pure logarithm n = b ln J (the steepest of the log
    models n = a + b ln J with a ≥ 0) and of the slowest power law ruled out, √J."""
    return float(np.log(np.log(Js[-1]) / np.log(Js[0])) / np.log(Js[-1] / Js[0])), 0.5


@check("LOGO sample complexity", "samples needed to recover the spiral grow ~ logarithmically in J, "
       "not as a power law", kinds=(KIND,),
       reference="growth models of n*(J): slope of a logarithm vs sqrt(J) on log-log axes")
def sample_complexity(quick, rng=None, solver=None):
    """n*(J): smallest n per class on a geometric grid (ratio 1.25) at which most seeds put the two
    relevant features on top; searched upward from n*(previous J).  Growth-model comparison on the
    log–log slope k of n*(J): over J = 10 … 1000 (10⁴ in full mode) a logarithm n = a + b ln J
    (a ≥ 0) has slope at most k_log = ln(ln J_max / ln J_min) / ln(J_max / J_min) (0.24; 0.20),
    √J has 0.5; the measured spread of k is one grid step, ln 1.25 / ln(J_max / J_min) (0.048;
    0.032).  The grid of J is wide enough when the two predictions differ by more than twice that
    spread; the check passes when k plus its spread stays below the midpoint of k_log and 0.5.
    Instances: the seeds (data sets) drawn."""
    solver = solver or "LBFGSB"
    base = 0 if rng is None else int(rng.integers(2**31))
    Js = [10, 100, 1000] if quick else [10, 100, 1000, 10000]
    grid = [int(round(24 * 1.25 ** k)) for k in range(12)]  # 24 … 279
    seeds = [base + s for s in range(3 if quick else 5)]
    needed, start = [], 0
    for J in Js:
        found = None
        for i in range(start, len(grid)):
            hits = sum(_recovered(*make_spiral(grid[i], J, random_state=s), solver) for s in seeds)
            if hits > len(seeds) / 2:
                found, start = i, i
                break
        if found is None:
            break
        needed.append(grid[found])
    margins = Margins()
    margins.require("recovered within the grid for every J", len(needed) == len(Js))
    measured = {"J": Js, "n_per_class_needed": needed}
    if len(needed) == len(Js):
        logJ, logn = np.log(Js), np.log(needed)
        k = float(np.polyfit(logJ, logn, 1)[0])
        spread = float(np.log(1.25) / (logJ[-1] - logJ[0]))
        k_log, k_sqrt = growth_exponents(Js)
        margins.at_least("model_separation_over_spread", (k_sqrt - k_log) / spread, 2.0)
        margins.at_most("exponent_plus_spread", k + spread, 0.5 * (k_log + k_sqrt))
        b, a = np.polyfit(logJ, needed, 1)
        measured.update({"loglog_slope": k, "slope_spread": spread, "slope_of_log_model": k_log,
                         "slope_of_sqrt_model": k_sqrt, "log_model_a_b": [float(a), float(b)]})
    return margins.outcome(measured, f"{len(seeds)} seeds from {base}; grid {grid}; {solver} subproblems")


def elimination_agreement(X, y, **params) -> dict:
    """One fit with elimination and one without: do they give the same answer?"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # reported as "converged" below
        with_ = LOGO(prune_below=1e-8, **params).fit(X, y)
        without = LOGO(prune_below=None, **params).fit(X, y)
    w, w_ref = with_.weights_, without.weights_
    return {"converged": bool(with_.converged_ and without.converged_),
            "same_support": bool(np.array_equal(with_.get_support(), without.get_support())),
            "same_nonzeros": bool(np.array_equal(w > 0, w_ref > 0)),
            "weight_diff": float(np.max(np.abs(w - w_ref)) / max(float(w_ref.max()), 1e-300)),
            "dropped": sum(h.n_dropped for h in with_.history_),
            "reentered": sum(h.n_reentered for h in with_.history_),
            "iterations": (with_.n_iter_, without.n_iter_), "support": with_.get_support(indices=True)}


def margins_by_samples(X, y, w, sigma):
    """Eqs (3)–(5) by a loop over samples n (vectorized over the other samples i): z̄_n =
    Σ_miss P·|x_n − x_i| − Σ_hit P·|x_n − x_i|, P ∝ exp(−d_w(n, i)/σ) within each pool."""
    Z = np.zeros(X.shape, dtype=float)
    for n in range(X.shape[0]):
        diff = np.abs(X[n] - X)
        d = diff @ w
        for pool, sign in ((y != y[n], 1.0), ((y == y[n]) & (np.arange(y.size) != n), -1.0)):
            k = np.exp(-(d[pool] - d[pool].min()) / sigma)
            Z[n] += sign * (k / k.sum()) @ diff[pool]
    return Z


def reference_step(Xs, y, w, sigma=2.0, lam=1.0):
    """T(w) from the definitions alone, X already in units of its typical spread:
    argmin_{v ≥ 0} Σ_n log(1 + exp(−vᵀz̄_n(w))) + λ‖v‖₁ (eq. 7) by SciPy's L-BFGS-B on the margins
    of :func:`margins_by_samples`, started at w."""
    from scipy.optimize import minimize

    def garrote(v, Z):
        m = Z @ v
        return np.logaddexp(0.0, -m).sum() + lam * v.sum(), -(Z.T @ expit(-m)) + lam

    Z = margins_by_samples(Xs, y, w, sigma)
    return minimize(garrote, w, args=(Z,), jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * w.size,
                    options={"ftol": 0.0, "gtol": 1e-11, "maxiter": 20000, "maxcor": 30}).x


def reference_iterates(X, y, sigma=2.0, lam=1.0, tol=1e-9, max_iter=100, relative=False):
    """LOGO's iterates from the definitions alone: X in units of its typical spread, w⁽⁰⁾ = 1, then
    w⁽ᵗ⁺¹⁾ = T(w⁽ᵗ⁾) (:func:`reference_step`) until max|Δw| ≤ tol·max(1, max w), or with
    ``relative`` until ‖Δw‖₂ ≤ tol·‖w⁽ᵗ⁺¹⁾‖₂ (the estimator's θ_t).
    Returns (iterates in units of the typical spread, that spread, converged)."""
    scale = reference_typical_spread(X)
    Xs, w = np.asarray(X, dtype=float) / scale, np.ones(X.shape[1])
    iterates = []
    for _ in range(max_iter):
        new = reference_step(Xs, y, w, sigma, lam)
        iterates.append(new)
        done = (np.linalg.norm(new - w) <= tol * np.linalg.norm(new)) if relative else \
            np.max(np.abs(new - w)) <= tol * max(1.0, float(new.max()))
        w = new
        if done:
            return iterates, scale, True
    return iterates, scale, False


def _fixed_point_instance(g, quick):
    """(X, y, label): a 1-turn spiral in units far from 1 (canonical: the instance below; random:
    n per class ∈ [50, 80], J ∈ [130, 300], X × a factor log-uniform in [0.05, 20], seed drawn)."""
    if g is None:
        n, J, factor, seed = (60, 150, 7.3, 1) if quick else (80, 298, 0.13, 1)
    else:
        n, J = int(g.integers(50, 81)), int(g.integers(130, 301))
        factor, seed = log_uniform(g, 0.05, 20.0), int(g.integers(2**31))
    X, y = make_spiral(n, J, random_state=seed)
    return X * factor, y, f"spiral n={n} per class, J={J + 2}, X x {factor:.3g}, seed {seed}"


@check("LOGO fixed point (3)-(7)", "the estimator's iterates and fixed point (dense X with elimination, "
       "and X read in column blocks) are those of eqs (3)-(7) computed from the definitions",
       kinds=(KIND,),
       reference="a NumPy loop over samples for (3)-(5), SciPy L-BFGS-B for (7), the unit scale from its definition")
def fixed_point(quick, rng=None, solver=None):
    """Reference: :func:`reference_iterates` (a loop over samples for (3)–(5), SciPy's L-BFGS-B for
    (7), the unit scale from its definition).  The estimator runs with elimination on (features
    dropped and re-entered: counted), whose every update must still solve the full-J subproblem
    (so its first ``ITERATES`` iterates are compared too; only those when the reference does not
    converge in 100 iterations: σ = 2 below that instance's σ*), on dense X and on the same X read
    in column blocks (:func:`_stored_forms`)."""
    solver = solver or "LBFGSB"
    margins, measured = Margins(), {}
    for g in draws(rng, 1, seed=4):
        X, y, label = _fixed_point_instance(None if rng is None else g, quick)
        iterates, scale, converged = reference_iterates(X, y)
        top = max(float(iterates[-1].max()), 1e-300)
        for form, data in _stored_forms(X):
            seen = []
            params = dict(theta=1e-6, max_iter=100) if converged else dict(theta=0.0, max_iter=ITERATES)
            with warnings.catch_warnings():  # the iterates and the answer are measured below
                warnings.simplefilter("ignore", ConvergenceWarning)
                est = LOGO(solver=solver, working_set=False, acceleration=None,  # full-J (7), plain,
                           prune_below=PAPER_PRUNE_BELOW,  # with elimination (its bound) on any size
                           callback=lambda record, w: seen.append(np.array(w)), **params).fit(data, y)
            steps = max(float(np.max(np.abs(a - b))) for a, b in zip(seen[:ITERATES], iterates[:ITERATES])) / top
            margins.at_most(f"{form}_iterate_diff_over_max", steps, 1e-3)
            measured[f"{form}_iterate_diff_over_max"] = steps
            if converged:
                diff = float(np.max(np.abs(est.weights_ * scale - iterates[-1]))) / top
                margins.at_most(f"{form}_weight_diff_over_max", diff, 1e-3)
                measured[f"{form}_weight_diff_over_max"] = diff
            measured.setdefault("forms", []).append(form)
            if form == "dense":
                measured["dropped_reentered"] = (sum(h.n_dropped for h in est.history_),
                                                 sum(h.n_reentered for h in est.history_))
        measured["reference"] = f"{'converged' if converged else 'not converged'} in {len(iterates)} iterations"
    return margins.outcome(measured, f"{label}; sigma=2, lam=1, {solver} subproblems, theta=1e-6; first "
                                     f"{ITERATES} iterates and the fixed point, relative to max w; reference: "
                                     "NumPy margins + SciPy L-BFGS-B from the definitions")



def _acceleration_instance(g, quick):
    """(X, y, sigma, label): 1.5-turn spirals where the plain iteration contracts slowly (canonical:
    Fermat seed 0 at σ = 1, 84 plain iterations; full adds Archimedean seed 1; random: shape drawn,
    n per class ∈ [50, 80], J ∈ [6, 14], σ log-uniform in [0.7, 2], seed drawn)."""
    if g is None:
        cases = [("fermat", 60, 10, 1.0, 0)] + ([] if quick else [("archimedean", 60, 10, 1.0, 1)])
    else:
        cases = [(str(g.choice(["fermat", "archimedean"])), int(g.integers(50, 81)), int(g.integers(6, 15)),
                  log_uniform(g, 0.7, 2.0), int(g.integers(2**31)))]
    for shape, n, J, sigma, seed in cases:
        X, y = make_spiral(n, J, turns=1.5, shape=shape, random_state=seed)
        yield X, y, sigma, f"{shape} n={n} J={J + 2} sigma={sigma:.3g} seed {seed}"


SLOW = 30  # plain iterations from which the Anderson-accelerated fit must need fewer


@check("LOGO acceleration", "the averaged and the Anderson-accelerated estimators stop at a fixed point of "
       "eqs (3)-(7), and Anderson needs fewer outer iterations where the plain iteration needs 30 or more",
       kinds=(KIND,),
       reference="the map T of eqs (3)-(7) from the definitions (NumPy margins by a loop, SciPy L-BFGS-B "
                 "for (7)): one step from the accelerated answer, and the plain iteration w <- T(w) counted")
def acceleration(quick, rng=None, solver=None):
    """An accelerator changes the path to the fixed point, never the fixed point
    (:mod:`fsopt.core.acceleration`).  Measured on instances where the plain iteration contracts
    slowly: each accelerated fit must converge (θ = 1e-6) and its weights w (in units of X's
    typical spread) must satisfy ‖T(w) − w‖₂ ≤ 1e-4·‖w‖₂ with T computed from the definitions
    (:func:`reference_step`); where the plain iteration of the definitions needs ``SLOW`` or more
    iterations under the estimator's stopping rule (‖Δw‖₂ ≤ θ‖w‖₂; counted as infinite when it
    does not stop in 400), Anderson must need fewer.  Safeguarded Anderson is proven to converge,
    not to be faster: where the plain iteration contracts fast it may take a few more steps
    (measured 13 against 9), so no speed is claimed there."""
    solver = solver or "LBFGSB"
    margins, measured, labels = Margins(), {"iterations": []}, []
    for g in draws(rng, 1, seed=5):
        for X, y, sigma, label in _acceleration_instance(None if rng is None else g, quick):
            plain, scale, converged = reference_iterates(X, y, sigma, tol=1e-6, max_iter=400, relative=True)
            Xs, counts = X / scale, {"plain": len(plain) if converged else np.inf}  # inf: not in 400
            for name in ("averaging", "anderson"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)  # measured below, not warned
                    est = LOGO(sigma=sigma, theta=1e-6, max_iter=400, acceleration=name,
                               prune_below=None, solver=solver).fit(X, y)
                margins.require(f"{name} converges ({label})", est.converged_)
                w = est.weights_ * scale
                residual = float(np.linalg.norm(reference_step(Xs, y, w, sigma) - w)
                                 / max(np.linalg.norm(w), 1e-300))
                margins.at_most(f"{name}_residual_of_T", residual, 1e-4)
                measured[f"max_{name}_residual_of_T"] = max(measured.get(f"max_{name}_residual_of_T", 0.0),
                                                             residual)
                counts[name] = len(est.history_)
            if counts["plain"] >= SLOW:  # no speed is claimed where the plain iteration is fast
                margins.at_most("anderson_over_plain_iterations", counts["anderson"] / counts["plain"], 1.0)
            measured["iterations"].append(counts)
            labels.append(label)
    return margins.outcome(measured, f"{'; '.join(labels)}; turns=1.5, lam=1, {solver} subproblems, "
                                     "theta=1e-6, no elimination; residual relative to ||w||")


ITERATES = 6


def _stored_forms(X):
    """("dense", X) and X read in column blocks: an in-memory HDF5 dataset chunked by 128 columns
    when h5py is installed (the ``outofcore`` extra), else the same X as scipy.sparse CSC."""
    try:
        import h5py
    except ImportError:
        return [("dense", X), ("sparse", sp.csc_array(X))]
    store = h5py.File(f"fsopt-check-{id(X)}", "w", driver="core", backing_store=False)
    return [("dense", X), ("store", store.create_dataset("X", data=X, chunks=(X.shape[0], 128)))]


class SquaredHingeLoss(MarginLoss):
    """ℓ(m) = max(0, 1 − m)², declared as a user would (:class:`~fsopt.core.parts.MarginLoss`)."""

    def margin_value(self, m):
        return np.maximum(0.0, 1.0 - m) ** 2

    def margin_derivative(self, m):
        return -2.0 * np.maximum(0.0, 1.0 - m)

    def cvxpy_margin(self, m):
        import cvxpy as cp

        return cp.sum_squares(cp.pos(1 - m))


def squared_hinge_garrote_solution(Z, lam):
    """argmin_{v ≥ 0} Σ_n max(0, 1 − z̄_nᵀv)² + λ‖v‖₁ over every column of Z, by SciPy's
    L-BFGS-B from the formulas (no fsopt part involved)."""
    from scipy.optimize import minimize

    def objective(v):
        slack = np.maximum(0.0, 1.0 - Z @ v)
        return slack @ slack + lam * v.sum(), -2.0 * (Z.T @ slack) + lam

    return minimize(objective, np.zeros(Z.shape[1]), jac=True, method="L-BFGS-B",
                    bounds=[(0.0, None)] * Z.shape[1],
                    options={"ftol": 0.0, "gtol": 1e-12, "maxiter": 50000, "maxcor": 30}).x


def _certificate_instances(g, quick):
    """(X, y, label): spirals at λ = 3 (canonical: Archimedes' spiral, 50 per class, J = 250; full
    adds Fermat's; random: shape drawn, n per class ∈ [40, 60], J ∈ [150, 300], seed drawn)."""
    if g is None:
        cases = [("archimedean", 50, 248, 0)] + ([] if quick else [("fermat", 50, 248, 1)])
    else:
        cases = [(str(g.choice(["fermat", "archimedean"])), int(g.integers(40, 61)), int(g.integers(148, 299)),
                  int(g.integers(2**31)))]
    for shape, n, J, seed in cases:
        X, y = make_spiral(n, J, shape=shape, random_state=seed)
        yield X, y, f"{shape} n={n} J={J + 2} seed {seed}"


@check("LOGO fit certificate", "a default fit with a user's margin loss returns the full-J optimum of its "
       "last subproblem at the margins that subproblem was solved at, and its certificate says so",
       kinds=(MarginGarrote.name,),
       reference="the margins by a NumPy loop over eqs (3)-(5) at the fit's margins_at_, and the squared-hinge "
                 "garrote over all J features solved there by SciPy L-BFGS-B from its formulas")
def fit_certificate(quick, rng=None, solver=None):
    """The fast path (working set, elimination, checks over all features) must return what a solve
    over all J features returns: a default LOGO fit with a squared-hinge garrote (λ = 3, θ = 1e-4)
    gives weights w = T(x) and the point x its last margins were computed at (``margins_at_``);
    z̄(x) by a loop over the definitions and the full-J solution v there by SciPy must agree with
    w to 1e-3 of max w, and the fit's own certificate must hold."""
    solver = solver or "LBFGSB"
    margins, measured, labels = Margins(), {"diff_over_max": [], "kkt_over_bound": []}, []
    lam = 3.0
    for g in draws(rng, 1, seed=6):
        for X, y, label in _certificate_instances(None if rng is None else g, quick):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # measured below
                est = LOGO(subproblem=MarginGarrote(SquaredHingeLoss(), NonnegL1(lam)), solver=solver,
                           theta=1e-4, max_iter=100, prune_below=PAPER_PRUNE_BELOW).fit(X, y)  # screened
            scale = unit_scale(X)
            Z = margins_by_samples(X / scale, y, est.margins_at_ * scale, 2.0)
            v, w = squared_hinge_garrote_solution(Z, lam), est.weights_ * scale
            diff = float(np.max(np.abs(v - w)) / max(float(v.max()), 1e-300))
            margins.at_most(f"weight_diff_over_max ({label})", diff, 1e-3)
            c = est.certificate_
            margins.at_most(f"fit_kkt_over_bound ({label})", c.kkt_residual / c.kkt_bound, 1.0)
            margins.require(f"converged ({label})", est.converged_)
            measured["diff_over_max"].append(diff)
            measured["kkt_over_bound"].append(c.kkt_residual / c.kkt_bound)
            measured.setdefault("iterations", []).append((est.n_outer_iter_, est.n_iter_))
            labels.append(label)
    return margins.outcome(measured, f"{'; '.join(labels)}; squared-hinge garrote lam={lam:g}, theta=1e-4, "
                                     f"{solver} subproblems; differences relative to max v")
