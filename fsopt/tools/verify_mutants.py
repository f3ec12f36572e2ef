"""Planted bugs ("mutants") for ``fsopt verify --mutants``: a check proves itself by failing.

Each mutant is a deliberately wrong backend or formula, applied by monkeypatching module attributes
or registering a wrong backend under a real name, inside :func:`applied`, which restores everything
on exit (no file on disk is edited).  :func:`run` runs each mutant against the checks of its own
method and reports which checks catch it (fail under the mutant while passing on clean code).

To stay fast, a mutant is run against its method's checks cheapest first (the checks it names in
``targets`` before the others) and stops at the first check that catches it; then every check that
has caught nothing yet is run against the mutants it has not met, until one catches or none is
left.  A check reported as catching none has therefore met every mutant of its method.
``exhaustive=True`` fills the whole table instead.
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from typing import Callable
from unittest import mock

import numpy as np

from ..core import solvers
from . import verify


@dataclass
class Mutant:
    name: str
    method: str  # the check-name prefix whose checks it is run against: LOGO, NMMKL, LFS
    description: str
    patch: Callable  # patch(stack): enters mock.patch context managers on the ExitStack
    targets: tuple = ()  # checks expected to catch it: tried first (an ordering hint only)


MUTANTS: list[Mutant] = []


def mutant(name, method, description, targets=()):
    def register(func):
        MUTANTS.append(Mutant(name, method, description, func, tuple(targets)))
        return func
    return register


@contextlib.contextmanager
def applied(m: Mutant):
    """The code base with mutant ``m`` planted; everything restored on exit."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.dict(solvers._BACKENDS))  # wrong backends registered inside
        m.patch(stack)
        yield


def _wrap_backend(stack, name, transform, kind=None):
    """Register a backend under ``name`` that runs the real one, then ``transform``s its answer
    (only for subproblems named ``kind``, when given)."""
    real = solvers.backends()[name]

    class Wrong(type(real)):
        def solve(self, subproblem, **options):
            out = real.solve(subproblem, **options)
            return transform(subproblem, *out) if kind in (None, subproblem.name) else out

    solvers.register_backend(Wrong())


def _patch(stack, target, attribute, new):
    stack.enter_context(mock.patch.object(target, attribute, new))


# --- LOGO ------------------------------------------------------------------------------------------
@mutant("gradient path +1e-3", "LOGO", "GRADIENT returns w + 1e-3 (a solution perturbed by 1e-3)",
        targets=("LOGO Thm 1",))
def _gradient_perturbed(stack):
    _wrap_backend(stack, "GRADIENT", lambda sp, sol, status, it: ({"w": sol["w"] + 1e-3}, status, it))


@mutant("LBFGSB stops at 3 iterations", "LOGO", "L-BFGS-B capped at 3 iterations, reported optimal",
        targets=("LOGO sigma->inf",))
def _lbfgsb_early(stack):
    real = solvers.backends()["LBFGSB"]

    class Early(type(real)):
        def solve(self, subproblem, **options):
            sol, _, it = real.solve(subproblem, **{**options, "max_iter": 3})
            return sol, "optimal", it

    solvers.register_backend(Early())


def _probabilities(transform):
    from ..logo import margins

    real = margins.neighbor_probabilities
    return lambda D, y, sigma: transform(real, D, y, sigma)


@mutant("kernel width x4 (LOGO)", "LOGO", "neighbor probabilities with 4σ instead of σ (wrong kernel width)",
        targets=("LOGO margins (3)-(5)",))
def _logo_width(stack):
    from ..logo import margins

    _patch(stack, margins, "neighbor_probabilities", _probabilities(lambda f, D, y, s: f(D, y, 4 * s)))


@mutant("probabilities ignore w", "LOGO", "neighbor probabilities uniform (σ = inf): margins independent of w",
        targets=("LOGO Thm 2",))
def _logo_uniform(stack):
    from ..logo import margins

    _patch(stack, margins, "neighbor_probabilities", _probabilities(lambda f, D, y, s: f(D, y, np.inf)))


@mutant("hits and misses swapped", "LOGO", "nearest-hit and nearest-miss probabilities exchanged",
        targets=("LOGO sample complexity",))
def _logo_swapped(stack):
    from ..logo import margins

    _patch(stack, margins, "neighbor_probabilities", _probabilities(lambda f, D, y, s: f(D, y, s)[::-1]))


# --- NMMKL -----------------------------------------------------------------------------------------
def _extract_then(transform):
    from ..nmmkl.qcqp import MKLDual

    real = MKLDual._extract
    return lambda self, problem, variables: transform(self, real(self, problem, variables))


@mutant("QCQP alpha x(1+1e-3)", "NMMKL", "α of (8) perturbed by a relative 1e-3", targets=("NMMKL Cor. 3",))
def _alpha_perturbed(stack):
    from ..nmmkl.qcqp import MKLDual

    _patch(stack, MKLDual, "_extract", _extract_then(lambda sp, out: {**out, "alpha": out["alpha"] * (1 + 1e-3)}))


@mutant("QCQP drops y'alpha = 0", "NMMKL", "(8) built without the constraint αᵀy = 0 (a dropped constraint)",
        targets=("NMMKL Cor. 3",))
def _drop_balance(stack):
    import cvxpy as cp

    from ..nmmkl.qcqp import MKLDual

    real = MKLDual._build

    def build(self):
        problem, variables = real(self)
        return cp.Problem(problem.objective, problem.constraints[1:]), variables

    _patch(stack, MKLDual, "_build", build)


@mutant("cone multipliers halved", "NMMKL", "p_cone read as half the cone duals (mis-scaled dual of (8))",
        targets=("NMMKL Cor. 2",))
def _p_halved(stack):
    from ..nmmkl.qcqp import MKLDual

    _patch(stack, MKLDual, "_extract", _extract_then(lambda sp, out: {**out, "p_cone": 0.5 * out["p_cone"]}))


@mutant("Thm 6 bound sign", "NMMKL", "Theorem 6 bound 1/(1 + σ_max) instead of 1/(1 − σ_max) (wrong sign)",
        targets=("NMMKL Thm 6",))
def _bound_sign(stack):
    from ..nmmkl import method

    real = method.theorem6_bound

    def wrong(*args, **kwargs):
        bound = real(*args, **kwargs)
        sigma = 1.0 - 1.0 / bound if math.isfinite(bound) else 1.0
        return 1.0 / (1.0 + sigma)

    _patch(stack, method, "theorem6_bound", wrong)


@mutant("ranking reversed", "NMMKL", "A/B/C partition ranks τ_i ascending (the m smallest are selected)",
        targets=("NMMKL Thm 5",))
def _ranking_reversed(stack):
    from ..nmmkl import method

    real = method.partition
    _patch(stack, method, "partition", lambda tau_i, m, tie_tol=1e-6: real(tau_i.max() - tau_i, m, tie_tol))


# --- LFS -------------------------------------------------------------------------------------------
@mutant("(9) stops at a feasible vertex", "LFS", "HIGHSPY returns the (8) maximizer, a feasible but "
        "non-optimal vertex of (9)", targets=("LFS feasibility",))
def _lfs_nonoptimal(stack):
    def vertex(sp, sol, status, it):
        f = np.zeros(sp.b.size)
        f[np.argsort(sp.b)[-sp.alpha:]] = 1.0
        return {**sol, "f": f}, status, it

    _wrap_backend(stack, "HIGHSPY", vertex, kind="lfs_epsilon_constraint")


@mutant("(9) drops b'f >= eps", "LFS", "(9) passed to HiGHS without the row bᵀf ≥ ε (a dropped constraint)",
        targets=("LFS feasibility",))
def _lfs_drop_row(stack):
    from ..lfs.lp import EpsilonConstraint

    real = EpsilonConstraint.lp_data

    def lp_data(self):
        cost, rows, lo, hi = real(self)
        return cost, rows, [lo[0], -np.inf], hi

    _patch(stack, EpsilonConstraint, "lp_data", lp_data)


@mutant("(9) solution +1e-3", "LFS", "HIGHSPY's f of (9) perturbed by 1e-3", targets=("LFS Fig. 10",))
def _lfs_perturbed(stack):
    _wrap_backend(stack, "HIGHSPY", lambda sp, sol, status, it: ({**sol, "f": sol["f"] + 1e-3}, status, it),
                  kind="lfs_epsilon_constraint")


@mutant("TOPK off by one", "LFS", "TOPK keeps the α − 1 largest b (the α-th tie broken out)",
        targets=("LFS TOPK (8)",))
def _topk_off_by_one(stack):
    def drop_smallest(sp, sol, status, it):
        f = sol["f"].copy()
        chosen = np.flatnonzero(f)
        if chosen.size > 1:
            f[chosen[np.argmin(sp.b[chosen])]] = 0.0
        return {"f": f}, status, it

    _wrap_backend(stack, "TOPK", drop_smallest)


@mutant("kernel width x4 (LFS)", "LFS", "weights (10) computed with 4σ (wrong kernel width)",
        targets=("LFS weights (10)",))
def _lfs_width(stack):
    from ..lfs import weights

    real = weights.neighbour_weights
    _patch(stack, weights, "neighbour_weights", lambda X, y, sets, sigma=1.0: real(X, y, sets, 4 * sigma))


@mutant("rounding keeps the costliest", "LFS", "randomized rounding keeps the feasible candidate of largest aᵀf",
        targets=("LFS rounding",))
def _rounding_costliest(stack):
    from ..lfs import rounding

    real = rounding.round_solution

    def costliest(f, a, b, eps, alpha, n_rounding, rng, method="sample"):
        out, _ = real(f, -a, b, eps, alpha, n_rounding, rng, method)
        return out, (np.inf if out is None else float(a @ out))

    _patch(stack, rounding, "round_solution", costliest)


# --- running ---------------------------------------------------------------------------------------
@dataclass
class Table:
    mutants: list
    checks: list
    cells: dict = field(default_factory=dict)  # (mutant, check) -> True caught / False not / None broken
    baseline: dict = field(default_factory=dict)  # check -> clean Result

    def caught(self, m) -> bool:
        return any(self.cells.get((m.name, c.name)) for c in self.checks)

    def catches(self, c) -> bool:
        return any(self.cells.get((m.name, c.name)) for m in self.mutants)

    @property
    def ok(self) -> bool:
        return all(map(self.caught, self.mutants)) and all(map(self.catches, self.checks))

    def format(self) -> str:
        cols = [c.name for c in self.checks]
        width = max(len(m.name) for m in self.mutants) + 2
        lines = ["checks: " + "; ".join(f"{i + 1} = {n}" for i, n in enumerate(cols)),
                 " " * width + " ".join(f"{i + 1:>3}" for i in range(len(cols)))]
        for m in self.mutants:
            row = [{True: "x", False: ".", None: ""}[self.cells.get((m.name, n))] for n in cols]
            lines.append(f"{m.name:<{width}}" + " ".join(f"{r:>3}" for r in row))
        lines.append("x caught (fails under the mutant, passes clean), . run and not caught, blank not run")
        missed = [c.name for c in self.checks if not self.catches(c)]
        lines.append(f"mutants caught: {sum(map(self.caught, self.mutants))} of {len(self.mutants)}; "
                     f"checks that caught none: {len(missed)}" + (f" ({', '.join(missed)})" if missed else ""))
        return "\n".join(lines)


def run(quick=True, exhaustive=False, baseline=None, echo=print) -> Table:
    """The mutants × checks table (see module docstring); ``baseline``: clean Results to reuse
    (computed, like every cell, on the solvers' raw results: see :func:`raw_solves`)."""
    with raw_solves():
        return _run(quick, exhaustive, baseline, echo)


@contextlib.contextmanager
def raw_solves():
    """Checks see each solver's own result: no polish or re-solve of a rejected solve, so that a
    planted bug is caught by a check instead of being repaired by the certificate policy."""
    from ..core.subproblem import Subproblem

    saved, Subproblem.refine_by_default = Subproblem.refine_by_default, False
    try:
        yield
    finally:
        Subproblem.refine_by_default = saved


def _run(quick, exhaustive, baseline, echo) -> Table:
    checks = verify.checks()
    methods = {m.method for m in MUTANTS}
    relevant = [c for c in checks.values() if c.method in methods]
    base = {r.check.name: r for r in (baseline or [])}
    for c in relevant:
        if c.name not in base:
            base[c.name] = verify.run_check(c, quick)
    table = Table(list(MUTANTS), relevant, {}, base)

    def cost(c):
        return base[c.name].seconds

    def trial(m, c):
        if (m.name, c.name) not in table.cells:
            with applied(m):
                res = verify.run_check(c, quick)
            table.cells[(m.name, c.name)] = base[c.name].outcome.passed and not res.outcome.passed
            if echo:
                state = "caught" if table.cells[(m.name, c.name)] else "not caught"
                echo(f"  {m.name} x {c.name}: {state} ({res.seconds:.1f} s; slack {verify._fmt(res.outcome.slack)})")
        return table.cells[(m.name, c.name)]

    for m in MUTANTS:
        own = sorted((c for c in relevant if c.method == m.method), key=lambda c: (c.name not in m.targets, cost(c)))
        for c in own:
            if trial(m, c) and not exhaustive:
                break
    for c in sorted(relevant, key=cost):
        for m in (m for m in MUTANTS if m.method == c.method):
            if table.catches(c) and not exhaustive:
                break
            trial(m, c)
    return table
