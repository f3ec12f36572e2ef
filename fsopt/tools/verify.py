"""``fsopt verify``: run the registered checks (:mod:`fsopt.core.checks`) and report each one's
worst slack, and how the solves it asked for fared.

``--instances K`` reports, per check, the worst slack over K random instances.  ``--solver NAME``
runs the checks whose kinds NAME can solve, with NAME, and judges NAME's own answers: its solves
run without the certificate policy's refinement (no polish, no tighter re-solve), each certificate
of NAME that is rejected fails the check that asked for it, and the line says how many of NAME's
solves were certified, rejected and refined; ``--refine`` restores the policy and names the answers
it repaired.  ``--mutants`` runs the planted bugs (:mod:`fsopt.tools.verify_mutants`).  Checks and
planted bugs also come from ``--checks PATH`` and ``FSOPT_CHECKS_PATH`` (a .py file or a folder;
several separated by ``os.pathsep``).
"""
from __future__ import annotations

import argparse
import contextlib
import inspect
import math
import os
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..core import status as st
from ..core.checks import Check, PlantedBug, load_path, observe_solves, planted_bugs, probes, registered_checks
from ..core.limits import integer_argument
from ..core.plugins import load_checks, method_module, method_packages
from ..core.solvers import resolve_solver
from ..core.subproblem import Subproblem
from ..verify import Outcome
from .bench_claims import CONFIDENCE, claim_rate
from .user_modules import add_import_argument

CHECKS_PATH = "FSOPT_CHECKS_PATH"
CERTIFIED, REJECTED, REFINED, FAILED = "certified", "rejected", "refined", "failed"
CLAIMS, CONFIRMED = "claims", "confirmed"  # a solver's own answers that claim something checkable


@dataclass
class Result:
    check: Check
    outcome: Outcome
    seconds: float
    instances: int = 1
    worst_instance: int | None = None
    solver: str | None = None
    solves: dict = field(default_factory=dict)  # {solver: Counter(certified/rejected/refined/failed)}
    repaired: list = field(default_factory=list)  # "subproblem (stage)" of answers the policy repaired


def load(paths=()):
    """Import every method's ``checks`` and ``bugs`` modules (fsopt's own and the ``fsopt.methods``
    plugins'), the ``fsopt.checks`` entry points, then ``paths`` and ``FSOPT_CHECKS_PATH``."""
    for method in method_packages():
        method_module(method, "checks")
        method_module(method, "bugs")
    load_checks()
    env = [p for p in os.environ.get(CHECKS_PATH, "").split(os.pathsep) if p]
    for path in [*env, *paths]:
        load_path(path)


def checks(paths=()) -> dict[str, Check]:
    """Every registered check (see :func:`load`)."""
    load(paths)
    return registered_checks()


def bugs(paths=()) -> dict[str, PlantedBug]:
    """Every registered planted bug (see :func:`load`)."""
    load(paths)
    return planted_bugs()


def select(names=None, solver=None, paths=()) -> dict[str, Check]:
    """The checks whose name contains one of ``names`` and, with ``solver``, whose kinds it solves."""
    known = checks(paths)
    if names:
        unknown = [n for n in names if not any(n.lower() in k.lower() for k in known)]
        if unknown:
            raise ValueError(f"no check matches {unknown}; known: {', '.join(known)}")
        known = {k: c for k, c in known.items() if any(n.lower() in k.lower() for n in names)}
    if solver is not None:
        backend, _ = resolve_solver(solver)
        for chk in known.values():
            unprobed = [kind for kind in chk.kinds if kind not in probes()]
            if unprobed:
                raise ValueError(f"check {chk.name!r} names the subproblem kind {unprobed[0]!r}, and no "
                                 f"probe({unprobed[0]!r}, factory) registered a small instance of it: "
                                 f"--solver {solver} asks can_solve on that instance to choose the checks "
                                 f"it runs; call probe in the module that defines the check")
        known = {k: c for k, c in known.items() if any(backend.can_solve(probes()[kind]()) for kind in c.kinds)}
        if not known:
            kinds = sorted(kind for kind, make in probes().items() if backend.can_solve(make()))
            raise ValueError(f"no check exercises a subproblem solver {solver!r} can solve "
                             f"(it solves: {', '.join(kinds) or 'none of ' + ', '.join(sorted(probes()))})")
    return known


@contextlib.contextmanager
def raw_solves(on=True):
    """Checks see each solver's own answer: no polish or re-solve of a rejected solve (the
    certificate policy's refinement off), so that a wrong answer fails instead of being repaired."""
    saved = Subproblem.refine_by_default
    Subproblem.refine_by_default = saved and not on
    try:
        yield
    finally:
        Subproblem.refine_by_default = saved


def run_check(chk: Check, quick=False, instances=None, solver=None, seed=0, refine=None) -> Result:
    """One check: its canonical instances, or ``instances`` random ones (worst slack kept).

    ``refine``: the certificate policy's refinement (None: off under ``solver``, on otherwise).
    Under ``solver``, a rejected certificate of that solver fails the check."""
    refine = solver is None if refine is None else refine
    t0 = time.perf_counter()
    with observe_solves() as records, raw_solves(not refine):
        if instances is None:
            outcome, worst, n = _guarded(chk, quick, None, solver), None, 1
        else:
            accepts_rng = "rng" in inspect.signature(chk.func).parameters
            n = int(instances) if accepts_rng else 1
            outcomes = [_guarded(chk, quick, np.random.default_rng([seed, k]) if accepts_rng else None, solver)
                        for k in range(n)]
            worst = min(range(n), key=lambda k: _order(outcomes[k]))
            outcome = outcomes[worst]
            outcome.passed = all(o.passed for o in outcomes)
    solves, repaired = count_solves(records)
    res = Result(chk, outcome, time.perf_counter() - t0, n, worst, solver, solves, repaired)
    rejected = solves_of(res, solver).get(REJECTED, 0) if solver else 0
    if rejected:
        outcome.passed = False
        outcome.detail = (f"{rejected} certificate(s) of {solver} rejected (no refinement: the answers "
                          f"are {solver}'s own)" + (f"; {outcome.detail}" if outcome.detail else ""))
    return res


def count_solves(records) -> tuple[dict, list]:
    """Per solver: solves certified as returned, rejected (a certificate that failed and was not
    repaired), refined (rejected, then repaired by the policy's polish or re-solve), failed (the
    solver reported no solution); and its claims (:data:`fsopt.core.status.CLAIMS`, the solver's
    own answers, stage "solve") and how many of them the NumPy certificates confirmed.  Also the
    repaired answers, as "subproblem (stage)"."""
    counts, repaired = {}, []
    for final in records:
        by_solver = {}
        for rec in [*final.attempts, final]:
            by_solver.setdefault(rec.solver, []).append(rec)
        for name, recs in by_solver.items():
            certified = [r for r in recs if r.certified]
            if certified and certified[0].stage == "solve":
                kind = CERTIFIED
            elif certified:
                kind = REFINED
                repaired.append(f"{final.input.describe() if final.input else final.subproblem} "
                                f"by {certified[0].stage}")
            elif any(r.status == st.REJECTED_CERTIFICATE for r in recs):
                kind = REJECTED
            else:
                kind = FAILED
            counts.setdefault(name, Counter())[kind] += 1
            for rec in recs:
                if rec.stage == "solve" and (rec.solver_status or rec.status) in st.CLAIMS:
                    counts[name][CLAIMS] += 1
                    counts[name][CONFIRMED] += bool(rec.certified or rec.certificate.get("confirmed"))
    return counts, repaired


def solves_of(res: Result, solver) -> Counter:
    """The counts of ``solver``'s solves (by the name given or its backend's)."""
    names = {str(solver).lower()}
    with contextlib.suppress(ValueError):
        names.add(resolve_solver(solver).backend.name.lower())
    total = Counter()
    for name, counts in res.solves.items():
        if str(name).lower() in names:
            total += counts
    return total


def _order(o: Outcome):
    return (o.passed, -math.inf if math.isnan(o.slack) else o.slack)


def _guarded(chk, quick, rng, solver) -> Outcome:
    """The check's outcome; an exception inside the check is a failure (slack −inf), not a crash.

    Checks run single-threaded (BLAS and numba): their instances are small, and on a busy machine
    thread start-up dominated (measured: one LOGO statistics call on 80×8 took 0.15 s with the
    default threads under load, under 1 ms with one thread).
    """
    try:
        with warnings.catch_warnings(), _one_thread():
            warnings.simplefilter("ignore")  # a check measures; warnings would repeat its numbers
            # ... but a fit that stopped at max_iter is no fixed point: the check fails (raised)
            # unless it catches the warning itself and reports convergence among its numbers
            warnings.simplefilter("error", ConvergenceWarning)
            return chk.call(quick, rng, solver)
    except Exception as exc:  # noqa: BLE001 - a planted bug may break anything the check calls
        return Outcome(False, {}, f"raised {type(exc).__name__}: {str(exc)[:300]}", -math.inf, "raised",
                       raised=type(exc).__name__)


@contextlib.contextmanager
def _one_thread():
    import numba
    from threadpoolctl import threadpool_limits

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        numba.set_num_threads(before)


def run(quick=False, names=None, echo=print, instances=None, solver=None, seed=0, refine=None,
        paths=()) -> list[Result]:
    results = []
    for chk in select(names, solver, paths).values():
        res = run_check(chk, quick, instances, solver, seed, refine)
        results.append(res)
        if echo:
            echo(format_result(res))
    return results


def format_result(res: Result) -> str:
    o = res.outcome
    numbers = ", ".join(f"{k}={_fmt(v)}" for k, v in o.measured.items())
    where = f" over {res.instances} instances (worst: #{res.worst_instance})" if res.instances > 1 else ""
    with_solver = f" [solver {res.solver}]" if res.solver else ""
    line = (f"[{'PASS' if o.passed else 'FAIL'}] {res.check.name}{with_solver}: {res.check.claim} "
            f"({res.seconds:.1f} s)\n       worst slack {format_slack(o.slack)}{where}"
            + (f" on {o.binding}" if o.binding else ""))
    if res.solver:
        line += f"\n       {res.solver}'s solves: {format_counts(solves_of(res, res.solver))}"
        if res.repaired:
            line += f"\n       repaired by the certificate policy (--refine): {_listing(res.repaired)}"
    return line + (f"\n       {numbers}" if numbers else "") + (f"\n       {o.detail}" if o.detail else "")


def format_counts(counts) -> str:
    return ", ".join(f"{counts.get(k, 0)} {k}" for k in (CERTIFIED, REJECTED, REFINED)) + \
        (f", {counts[FAILED]} failed" if counts.get(FAILED) else "")


def summary(results, instances=None, solver=None) -> str:
    """The closing lines: checks passed, worst slack per check, solves per solver."""
    failed = [r.check.name for r in results if not r.outcome.passed]
    per_solver = {}
    for r in results:
        for name, counts in r.solves.items():
            per_solver[name] = per_solver.get(name, Counter()) + counts
    lines = [f"\n{len(results) - len(failed)}/{len(results)} checks passed"
             + (f" over {instances} random instances each" if instances else "")
             + (f" with solver {solver}" if solver else "")
             + (f"; FAILED: {', '.join(failed)}" if failed else ""),
             "worst slack per check: " + "; ".join(f"{r.check.name} {format_slack(r.outcome.slack)}" for r in results),
             "solves per solver: " + "; ".join(f"{name} {format_counts(c)}" for name, c in sorted(per_solver.items()))]
    if solver:
        lines.append(format_claims(solver, sum((solves_of(r, solver) for r in results), Counter())))
    return "\n".join(lines)


def format_claims(solver, counts) -> str:
    """How many of ``solver``'s claims the checks' certificates confirmed, with the rate's interval."""
    n, k = counts.get(CLAIMS, 0), counts.get(CONFIRMED, 0)
    if not n:
        return f"{solver}'s claims: none (no optimal / infeasible / unbounded answer of its own)"
    rate, low, high = claim_rate(k, n)
    return (f"{solver}'s claims: {k} of {n} confirmed by the NumPy certificates ({rate:.0%}, "
            f"{CONFIDENCE:.0%} Wilson interval [{low:.0%}, {high:.0%}])")


def add_arguments(v):
    """The options of ``fsopt verify``."""
    v.add_argument("--quick", action="store_true", help="small instances")
    v.add_argument("--instances", type=_positive_int, default=None, metavar="K",
                   help="run each check on K random seeded instances; report the worst slack")
    v.add_argument("--seed", type=integer_argument(0, 2**32 - 1), default=0, help="seed of the random instances")
    v.add_argument("--solver", default=None, metavar="NAME",
                   help="run the checks whose subproblem NAME can solve, with NAME (backend or profile), "
                        "without refinement: a rejected certificate of NAME fails the check")
    v.add_argument("--refine", action="store_true",
                   help="with --solver: let the certificate policy polish / re-solve rejected answers "
                        "(and say which it repaired)")
    v.add_argument("--checks", action="append", default=[], metavar="PATH",
                   help="a .py file or folder whose @check / @planted_bug functions join (repeatable; "
                        f"also ${CHECKS_PATH})")
    v.add_argument("--mutants", nargs="*", default=None, metavar="NAME",
                   help="plant the known bugs (or those whose name contains a NAME) and print which "
                        "checks catch them and how (exit 0: all caught by a check's measurement)")
    v.add_argument("--all-cells", action="store_true",
                   help="with --mutants: run every planted bug against every check")
    v.add_argument("--report", default=None, metavar="FILE.md",
                   help="with --mutants: write per check its claim, reference, worst slack and the bugs it caught")
    add_import_argument(v)
    v.add_argument("names", nargs="*", help="only checks whose name contains one of these")


def command(args) -> int:
    """``fsopt verify`` without ``--mutants``: exit 0 when every check passes."""
    results = run(quick=args.quick, names=args.names, instances=args.instances, solver=args.solver,
                  seed=args.seed, refine=True if args.refine else None, paths=args.checks)
    print(summary(results, args.instances, args.solver))
    return 0 if all(r.outcome.passed for r in results) else 1


def _listing(items, most=5):
    counts = Counter(items)
    shown = [f"{k} ×{n}" if n > 1 else k for k, n in list(counts.items())[:most]]
    return "; ".join(shown) + (f"; … {len(counts) - most} more" if len(counts) > most else "")


def format_slack(slack) -> str:
    """The worst slack, or what its absence means (a check without a numeric condition)."""
    if isinstance(slack, float) and math.isnan(slack):
        return "none (this check's conditions are pass/fail, without a numeric margin)"
    return _fmt(slack)


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value
