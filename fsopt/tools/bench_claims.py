"""What a solver's word is worth: claim accuracy per solver × subproblem kind × requested tolerance.

A *claim* is a status in which the solver asserts something checkable (:data:`fsopt.core.status.CLAIMS`):
``optimal`` and ``optimal_inaccurate`` (a solution, checked by the subproblem's NumPy
certificate), ``infeasible``, ``unbounded`` (and their ``_inaccurate`` forms) and
``infeasible_or_unbounded`` (checked by a Farkas or primal ray where the subproblem is an LP,
:mod:`fsopt.core.farkas`).  An ``_inaccurate`` status counts as a claim: cvxpy returns its answer
as the solution.  Not claims: ``user_limit``, ``solver_error``, ``timeout``, ``error`` (the solver
said nothing about the problem).  A claim without a check (a "no optimum" claim on a subproblem
that is not an LP) is *unchecked* and left out of the rate.  Only repetition 0 counts: the other
repetitions re-time the same solve (a deterministic solver repeats its answer), they are no new
trials.

The confirmed rate is k / n over the checked claims of a group, with a Wilson score interval
(:func:`claim_rate`).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ..core.status import SUCCESS

CONFIDENCE = 0.95
GROUP = ["solver", "kind", "budget"]
COLUMNS = GROUP + ["requested_tol", "claims", "checked", "confirmed", "rate", "ci_low", "ci_high",
                   "words", "rejected_residual_min", "rejected_residual_median", "rejected_residual_max"]


def claim_rate(confirmed, checked, confidence=CONFIDENCE) -> tuple[float, float, float]:
    """(k / n, low, high): the confirmed rate and its Wilson score interval (NaN when n = 0)."""
    from scipy.stats import binomtest

    if checked == 0:
        return np.nan, np.nan, np.nan
    ci = binomtest(int(confirmed), int(checked)).proportion_ci(confidence, method="wilson")
    return confirmed / checked, float(ci.low), float(ci.high)


def requested_tol(solver, budget, tol) -> float:
    """The tolerance a solve asked for: ``tol`` on the schedule, else the solver's own (its
    profile's ``tol``, or its backend's ``default_tol``; NaN for exact methods or a solver this
    process does not know)."""
    from ..core.solvers import resolve_solver

    if budget == "tol":
        return float(tol)
    try:
        backend, options = resolve_solver(solver)
    except ValueError:
        return np.nan
    value = options.get("tol", backend.default_tol)
    return np.nan if value is None else float(value)


def _budget(row) -> str:
    if row["budget"] == "tol":
        return f"tol={row['tol']:.0e}"
    if row["budget"] == "max_iter":
        return f"max_iter={int(row['max_iter'])}"
    return "default"


def claim_table(frame, confidence=CONFIDENCE) -> pd.DataFrame:
    """One row per solver × kind × budget (``default``, ``tol=…``, ``max_iter=…``) with claims:
    claims made, checked, confirmed, the rate with its interval, the words claimed and the
    certificate residual of the rejected ones (min, median, max; ∞: no ray exists)."""
    claims = frame[(frame["claim"].fillna("") != "") & (frame["repetition"] == 0)].copy()
    if claims.empty:
        return pd.DataFrame(columns=COLUMNS)
    asked = functools.lru_cache(maxsize=None)(requested_tol)  # a solver resolved once, not once a row
    claims["requested_tol"] = [asked(r.solver, r.budget, r.tol if r.budget == "tol" else None)
                               for r in claims.itertuples()]
    claims["budget"] = claims.apply(_budget, axis=1)
    out = []
    for (solver, kind, budget), group in claims.groupby(GROUP, sort=True):
        checked = group[group["claim_confirmed"] | group["certificate"].notna()]
        k = int(group["claim_confirmed"].sum())
        rate, low, high = claim_rate(k, len(checked), confidence)
        rejected = checked.loc[~checked["claim_confirmed"], "certificate"].to_numpy(dtype=float)
        words = group["claim"].value_counts()
        out.append({"solver": solver, "kind": kind, "budget": budget,
                    "requested_tol": group["requested_tol"].iloc[0],
                    "claims": len(group), "checked": len(checked), "confirmed": k, "rate": rate,
                    "ci_low": low, "ci_high": high,
                    "words": ", ".join(f"{w} {n}" for w, n in words.items()),
                    "rejected_residual_min": rejected.min() if len(rejected) else np.nan,
                    "rejected_residual_median": np.median(rejected) if len(rejected) else np.nan,
                    "rejected_residual_max": rejected.max() if len(rejected) else np.nan})
    return pd.DataFrame(out, columns=COLUMNS)


def markdown(table, confidence=CONFIDENCE) -> str:
    """The claim table in Markdown, one block per subproblem kind."""
    lines = [f"## Claim accuracy: how often each solver's word is true (confirmed by the NumPy "
             f"certificate; rate with a {confidence:.0%} Wilson interval)\n"]
    if table.empty:
        return "\n".join(lines + ["No solver made a claim in this study (no optimal / infeasible / "
                                  "unbounded status).\n"])
    for kind, block in table.groupby("kind"):
        lines += [f"\n**{kind}**\n",
                  "| solver | budget | claims | confirmed | rate [CI] | rejected: residual min / median / max |",
                  "|---|---|---|---|---|---|"]
        for r in block.itertuples():
            unchecked = f" ({r.claims - r.checked} unchecked)" if r.claims > r.checked else ""
            rate = "—" if np.isnan(r.rate) else f"{r.rate:.0%} [{r.ci_low:.0%}, {r.ci_high:.0%}]"
            residual = ("" if np.isnan(r.rejected_residual_max) else
                        f"{r.rejected_residual_min:.2g} / {r.rejected_residual_median:.2g} / "
                        f"{r.rejected_residual_max:.2g}")
            lines.append(f"| {r.solver} | {r.budget} | {r.claims} ({r.words}){unchecked} | "
                         f"{r.confirmed}/{r.checked} | {rate} | {residual} |")
    return "\n".join(lines) + "\n"

