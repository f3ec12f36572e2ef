"""The field's summaries of a solver study: performance profiles and shifted geometric means.

- Performance profile (Dolan & Moré 2002, Math. Program. 91:201–213): with t_{p,s} the time of
  solver s on instance p (∞ if not solved) and r_{p,s} = t_{p,s} / min_s t_{p,s}, the profile is
  ρ_s(τ) = |{p : r_{p,s} ≤ τ}| / n_p, the fraction of instances s solves within a factor τ of
  the fastest.
- Shifted geometric mean (the convention of the long-running public benchmarks of optimization
  software): SGM_s = exp(mean_p log(t_{p,s} + shift)) − shift, with an unsolved instance counted
  at the time limit, reported with the solved count.

An instance is one (problem, subproblem kind, size); t_{p,s} is the median ``time`` (compile +
solve) of the default-budget repetitions, and the instance counts as solved only when every
repetition's NumPy certificate holds.  Solvers are compared per subproblem kind, among those that
ran on it (a skipped solver is listed with its reason, not profiled).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..core.status import ERROR, SKIPPED, SUCCESS, TIMEOUT
from .bench_claims import claim_table
from .bench_claims import markdown as claims_markdown

INSTANCE = ["problem", "kind", "size"]
TAUS = np.logspace(0, 3, 301)  # τ ∈ [1, 10³]
STEPS_PER_DECADE = 100


def ratios(times) -> np.ndarray:
    """r_{p,s} = t_{p,s} / min_s t_{p,s} (∞ where s did not solve p) of ``times`` (instances ×
    solvers)."""
    t = np.asarray(times, dtype=float)
    best = np.min(t, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.isfinite(t), t / best, np.inf)


def profile_taus(times) -> np.ndarray:
    """τ from 1 to the decade above the largest finite ratio of ``times`` (at least 10³), with
    every ratio itself among them: the profile's axis covers every solved instance."""
    r = ratios(times)
    finite = r[np.isfinite(r)]
    top = max(3.0, float(np.ceil(np.log10(finite.max())))) if finite.size else 3.0
    grid = np.logspace(0, top, int(top * STEPS_PER_DECADE) + 1)
    return np.unique(np.concatenate([grid, finite]))


def instance_times(frame) -> pd.DataFrame:
    """Instances × solvers: median time of the default solves, ∞ where not every repetition
    solved (certified); solvers that did not run on an instance's kind are absent (NaN)."""
    rows = frame[(frame["budget"] == "default") & (frame["status"] != SKIPPED)]
    if rows.empty:
        return pd.DataFrame()
    grouped = rows.groupby(INSTANCE + ["solver"])
    times = grouped["time"].median().where(grouped["solved"].all(), np.inf)
    return times.unstack("solver")


def performance_profile(times, taus=TAUS) -> pd.DataFrame:
    """ρ_s(τ) for each column s of ``times`` (instances × solvers, ∞ = not solved), τ in ``taus``."""
    rho = (ratios(times)[None, :, :] <= np.asarray(taus)[:, None, None]).mean(axis=1)
    return pd.DataFrame(rho, index=pd.Index(taus, name="tau"), columns=list(times.columns))


def shifted_geometric_mean(times, shift=10.0, time_limit=None) -> float:
    """exp(mean log(t + shift)) − shift; unsolved (∞) instances count at ``time_limit``."""
    t = np.asarray(times, dtype=float)
    if time_limit is not None:
        t = np.where(np.isfinite(t), np.minimum(t, time_limit), time_limit)
    return float(np.exp(np.mean(np.log(t + shift))) - shift)


def sgm_table(frame, time_limit, shift=10.0, times=None) -> pd.DataFrame:
    """Per kind and solver: solved count, instances, SGM of time, and SGM over the kind's best
    (``times``: instances × solvers, by default :func:`instance_times`); ``sgm_median_shift``:
    the SGM with the shift set to the median of the kind's finite times, which a 10 s shift
    flattens into a plain mean when solves take under a second."""
    times = instance_times(frame) if times is None else times
    out = []
    if times.empty:
        return pd.DataFrame(columns=["kind", "solver", "solved", "instances", "sgm_time", "relative",
                                     "median_shift", "sgm_median_shift"])
    for kind, block in times.groupby(level="kind"):
        block = block.dropna(axis=1, how="all")
        finite = block.to_numpy()[np.isfinite(block.to_numpy())]
        small = float(np.median(finite)) if finite.size else shift
        for solver in block.columns:
            t = block[solver].to_numpy()
            out.append({"kind": kind, "solver": solver, "solved": int(np.isfinite(t).sum()),
                        "instances": len(t), "sgm_time": shifted_geometric_mean(t, shift, time_limit),
                        "median_shift": small, "sgm_median_shift": shifted_geometric_mean(t, small, time_limit)})
    table = pd.DataFrame(out)
    table["relative"] = table["sgm_time"] / table.groupby("kind")["sgm_time"].transform("min")
    return table.sort_values(["kind", "sgm_time"]).reset_index(drop=True)


# accuracy classes: the certificate residual within this factor of the subproblem's own bound
# (certificate_tol × certificate_scale; "default" = certified), as qpbenchmark's low/default/high
ACCURACY = {"low": 100.0, "default": 1.0, "high": 0.01}


def certificate_bound(frame) -> pd.Series:
    """Each row's certificate bound (from ``certificate_parts``; NaN where there is none)."""
    return frame["certificate_parts"].map(lambda text: float(json.loads(text).get("bound", np.nan))
                                          if isinstance(text, str) and text else np.nan)


def accuracy_times(frame, factor) -> pd.DataFrame:
    """Instances × solvers: the fastest of a solver's solves (its default, median over the
    repetitions, or a point of its schedule) whose claim is a solution and whose certificate
    residual is within ``factor`` × its bound (every repetition); ∞ when none reaches it."""
    ran = frame[frame["status"] != SKIPPED]
    if ran.empty:
        return pd.DataFrame()
    reached = ran["claim"].isin(SUCCESS) & (ran["certificate"] <= factor * certificate_bound(ran))
    grouped = ran.assign(reached=reached).groupby(INSTANCE + ["solver", "budget", "tol", "max_iter"], dropna=False)
    times = grouped["time"].median().where(grouped["reached"].all(), np.inf)
    return times.groupby(level=INSTANCE + ["solver"]).min().unstack("solver")


def accuracy_table(frame, time_limit, shift=10.0) -> pd.DataFrame:
    """:func:`sgm_table` per accuracy class (:data:`ACCURACY`): solvers ranked at equal accuracy."""
    tables = [sgm_table(frame, time_limit, shift, accuracy_times(frame, factor)).assign(accuracy=name, factor=factor)
              for name, factor in ACCURACY.items()]
    return pd.concat(tables, ignore_index=True)


def accuracy_markdown(table, shift) -> str:
    lines = ["\n## At equal accuracy: time to a certificate residual within each class's bound\n",
             "Each solver's fastest solve (its defaults or a point of its schedule) whose claimed solution's "
             "certificate residual is within the class's factor × the subproblem's certificate bound "
             "(default: certified); not reached: counted at the limit.\n"]
    for (kind, name), block in table.groupby(["kind", "accuracy"], sort=False):
        lines += [f"\n**{kind}, {name} accuracy (residual ≤ {block['factor'].iloc[0]:g} × bound)**\n",
                  f"| solver | reached | SGM time (s), shift {shift:g} s | relative | SGM, shift "
                  f"{block['median_shift'].iloc[0]:.3g} s (median time) |", "|---|---|---|---|---|"]
        lines += [f"| {r.solver} | {r.solved}/{r.instances} | {r.sgm_time:.4g} | {r.relative:.2f} | "
                  f"{r.sgm_median_shift:.4g} |" for r in block.itertuples()]
    return "\n".join(lines) + "\n"


def timing_table(frame) -> pd.DataFrame:
    """Per kind × solver over the instances: the median wall time of the untimed warm-up solve
    (a pair's first), the median timed default solve, their ratio, and the spread of the
    repetitions, (max − min) / median of an instance's default solves (median over instances)."""
    rows = frame[(frame["budget"] == "default") & frame["time"].notna()
                 & ~frame["status"].isin([SKIPPED, TIMEOUT, ERROR])]
    if rows.empty:
        return pd.DataFrame(columns=["kind", "solver", "instances", "repetitions", "warmup_time", "time",
                                     "first_over_timed", "spread"])
    per = rows.groupby(INSTANCE + ["solver"]).agg(
        warmup=("warmup_time", "first"), median=("time", "median"), low=("time", "min"),
        high=("time", "max"), repetitions=("time", "size"))
    per["spread"] = ((per["high"] - per["low"]) / per["median"]).where(per["repetitions"] > 1)
    table = per.groupby(["kind", "solver"]).agg(
        instances=("median", "size"), repetitions=("repetitions", "max"), warmup_time=("warmup", "median"),
        time=("median", "median"), spread=("spread", "median")).reset_index()
    table.insert(6, "first_over_timed", table["warmup_time"] / table["time"])
    return table


def timing_markdown(table) -> str:
    lines = ["\n## Timings: each pair's first solve (untimed warm-up, kept out of every time "
             "above) against the timed ones\n",
             "| kind | solver | first solve s | timed solve s | first / timed | spread of repetitions |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r.kind} | {r.solver} | {r.warmup_time:.3g} | {r.time:.3g} | {r.first_over_timed:.1f} | "
              + ("—" if np.isnan(r.spread) else f"{r.spread:.0%} ({r.repetitions} repetitions)") + " |"
              for r in table.itertuples()]
    return ("\n".join(lines) + "\n\nfirst solve: wall time of a whole solve call (build, compile, solve, "
            "certificate); timed solve: compile + solve time of the default solves (median); spread: median "
            "over instances of (max − min) / median of the repetitions.\n")


def within_noise(table, spread) -> list:
    """Warnings for neighbours in a kind's ranking (``table``, sorted by SGM) whose SGMs differ by
    less than the median spread of their repetitions ((max − min) / median, ``spread`` by
    solver): their order is within the noise of the measurement."""
    found = []
    ranked = table[np.isfinite(table["sgm_time"])].reset_index(drop=True)
    for faster, slower in zip(ranked.itertuples(), ranked.iloc[1:].itertuples()):
        gap = slower.sgm_time / faster.sgm_time - 1.0 if faster.sgm_time > 0 else np.inf
        noise = np.nanmax([spread.get(faster.solver, np.nan), spread.get(slower.solver, np.nan), -np.inf])
        if gap < noise:
            found.append(f"\n⚠ {faster.solver} and {slower.solver} differ by {gap:.0%} while their repetitions "
                         f"spread by {noise:.0%} (median (max − min) / median): their order is within the noise; "
                         f"give more --repeat or compare over runs.")
    return found


def status_table(frame) -> pd.DataFrame:
    """Per kind × solver × status, over every row (every budget and repetition, skipped pairs
    too): how many, and an example reason (an unsolved row without one: its certificate
    residual), so that no failure is hidden by the rankings."""
    if frame.empty:
        return pd.DataFrame(columns=["kind", "solver", "status", "rows", "example"])
    residual = frame["certificate"].map(lambda v: f"certificate residual {v:.2g}" if np.isfinite(v) else "")
    reason = frame["reason"].fillna("").astype(str)
    reasons = frame.assign(reason=reason.where(reason != "", residual.where(~frame["solved"], "")))
    return (reasons.groupby(["kind", "solver", "status"])
            .agg(rows=("status", "size"), example=("reason", lambda r: next((x for x in r if x), "")))
            .reset_index())


def status_markdown(table) -> str:
    lines = ["\n## Every status: rows per solver (all budgets and repetitions), with an example reason\n",
             "| kind | solver | status | rows | example |", "|---|---|---|---|---|"]
    lines += [f"| {r.kind} | {r.solver} | {r.status} | {r.rows} | {r.example[:160]} |" for r in table.itertuples()]
    return "\n".join(lines) + "\n"


def summary(frame, time_limit, shift=10.0) -> str:
    """Markdown: what this run reused and ran, the SGM table per kind, every status with counts, the claim accuracy (:mod:`fsopt.tools.bench_claims`),
    median time (spread over repetitions, error to the reference, status when not solved) per
    instance × solver, the first solve against the timed ones, then the skipped pairs' reasons."""
    lines = this_run(frame.attrs) + [
        f"## Shifted geometric mean of time (s): shift {shift:g} s, unsolved counted at the "
        f"{time_limit:g} s limit; solved = NumPy certificate within its tolerance\n"]
    if not frame["solved"].any():
        lines.append("**Nothing was solved in this study** (see the statuses below; raise --timeout "
                     "and rerun with --retry timeout).\n")
    spread = timing_table(frame).set_index(["kind", "solver"])["spread"]
    for kind, table in sgm_table(frame, time_limit, shift).groupby("kind"):
        lines += [f"\n**{kind}**\n", "| solver | solved | SGM time (s) | relative |", "|---|---|---|---|"]
        lines += [f"| {r.solver} | {r.solved}/{r.instances} | {r.sgm_time:.4g} | {r.relative:.2f} |"
                  for r in table.itertuples()]
        lines += within_noise(table, spread.get(kind, pd.Series(dtype=float)))
    table = accuracy_table(frame, time_limit, shift)
    if not table.empty:
        lines.append(accuracy_markdown(table.sort_values(["kind", "factor", "sgm_time"], ascending=[True, False, True]), shift))
    lines.append(status_markdown(status_table(frame)))
    lines.append("\n" + claims_markdown(claim_table(frame)))
    lines.append("\n## Per instance: median time s (min–max over repetitions) [error to reference]\n")
    default = frame[(frame["budget"] == "default") & (frame["status"] != SKIPPED)]
    for (problem, kind), group in default.groupby(["problem", "kind"]):
        solvers = sorted(group["solver"].unique())
        lines += [f"\n**{problem} / {kind}**\n", "| size | " + " | ".join(solvers) + " |",
                  "|---" * (len(solvers) + 1) + "|"]
        for size, rows in group.groupby("size"):
            lines.append(f"| {size} | " + " | ".join(_cell(rows[rows["solver"] == s]) for s in solvers) + " |")
    lines.append(timing_markdown(timing_table(frame)))
    skipped = frame[frame["status"] == SKIPPED].drop_duplicates(["kind", "solver", "reason"])
    if len(skipped):
        lines.append("\n## Skipped\n")
        lines += [f"- {r.kind} / {r.solver}: {r.reason}" for r in skipped.itertuples()]
    return "\n".join(lines) + "\n"


def partial_line(done, total) -> str:
    return f"partial: {done} of {total} solves"


def this_run(attrs) -> list:
    """The top of summary.md from a study's ``frame.attrs`` (:func:`fsopt.tools.bench.run`): a
    partial study's marker, the command line, what the run reused and solved, its wall time and
    the harness's share of it (:func:`harness_lines`)."""
    lines = []
    if attrs.get("partial"):
        lines += [f"**{partial_line(*attrs['partial'])}** (the run was stopped: rerun the command to "
                  f"complete the study; the solves logged are reused)\n"]
    if attrs.get("command"):
        lines += [f"Command: `{attrs['command']}`\n"]
    found = [f"- {line.strip()}" for line in attrs.get("run") or []] + harness_lines(attrs.get("harness"))
    return lines + (["## This run\n", *found, ""] if found else [])


def harness_lines(harness) -> list:
    """What a run's wall time went to: the solves run and their rate; with local workers, the
    share of the workers' time (workers × wall) in the timed solve calls, in the untimed warm-ups
    and, the rest, in the harness (planning, starting workers, building instances, logging,
    writing the outputs up to summary.md)."""
    if not harness or not harness.get("wall"):
        return []
    wall, n = harness["wall"], harness["solves"]
    plan, solve = harness.get("planning", 0.0), harness.get("solving", 0.0)
    lines = [f"- {n} solves run in {wall:.1f} s wall ({n / wall:.1f} solves/s): planning {plan:.1f} s (imports, "
             f"the grid, the instances' digests), solving {solve:.1f} s, writing the tables and plots "
             f"{wall - plan - solve:.1f} s"]
    if harness.get("workers"):
        capacity = wall * harness["workers"]
        calls, warmups = harness["calls"], harness["warmups"]
        rest = capacity - calls - warmups
        lines.append(f"- harness overhead: {rest:.1f} s, {rest / capacity:.0%} of the workers' time "
                     f"({harness['workers']} worker process(es) × {wall:.1f} s wall); timed solve calls "
                     f"{calls:.1f} s ({calls / capacity:.0%}; compile + solve as the rows measure it: "
                     f"{harness['measured']:.1f} s), untimed warm-up solves {warmups:.1f} s ({warmups / capacity:.0%})")
    return lines


def _cell(rows) -> str:
    if rows.empty:
        return ""
    t = rows["time"]
    text = f"{t.median():.3g}"
    if len(rows) > 1:
        text += f" ({t.min():.3g}–{t.max():.3g})"
    err = rows["error_to_reference"].median()
    if np.isfinite(err):
        text += f" [{err:.1e}]"
    bad = sorted(set(rows.loc[~rows["solved"], "status"]))
    return text + (f" **{', '.join(bad)}**" if bad else "")
