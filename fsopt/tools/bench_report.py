"""The outputs of a solver study: tables, plots and one self-contained ``report.html``.

:func:`write` puts in the study's folder ``results.csv``, ``results.parquet``, ``summary.md``
(:func:`fsopt.tools.bench_stats.summary`), ``claims.parquet`` (:func:`fsopt.tools.bench_claims.claim_table`),
``performance_profile.png``, ``error_vs_time.png``, ``time_vs_size.png``, ``claim_accuracy.png`` and
``report.html`` (the plots as base64 PNG, the tables, the environment,
the full results filterable in plain JavaScript; no file or network access when opened).
"""
from __future__ import annotations

import base64
import datetime
import html
import importlib.metadata
import io
import os
import platform
import time
from pathlib import Path

import numpy as np

from .bench_claims import CONFIDENCE, claim_table
from .bench_stats import (accuracy_table, harness_lines, instance_times, partial_line, performance_profile,
                          profile_taus, ratios, sgm_table, status_table, summary, timing_table)
from ..core.status import SKIPPED

PLOTS = {"performance_profile.png": "Performance profiles (Dolan & Moré 2002)",
         "error_vs_time.png": "Objective error to the reference along each solver's schedule",
         "time_vs_size.png": "Median time of certified solves against size",
         "claim_accuracy.png": "Claim accuracy: confirmed-claim rate against requested tolerance"}


def write(frame, folder, time_limit, shift=10.0):
    """Write every output of the study ``frame`` into ``folder`` (a
    :class:`fsopt.tools.study_folder.StudyFolder`: each file replaced atomically, no link
    followed), also when nothing was solved (the report then says so)."""
    csv = io.StringIO()
    frame.to_csv(csv, index=False)
    folder.write("results.csv", csv.getvalue().encode())
    parquet = io.BytesIO()
    frame.to_parquet(parquet, index=False)
    folder.write("results.parquet", parquet.getvalue())
    parquet = io.BytesIO()
    claim_table(frame).to_parquet(parquet, index=False)
    folder.write("claims.parquet", parquet.getvalue())
    figures = {"performance_profile.png": _png(plot_profiles(frame)), "error_vs_time.png": _png(plot_curves(frame)),
               "time_vs_size.png": _png(plot_sizes(frame)), "claim_accuracy.png": _png(plot_claims(claim_table(frame)))}
    for name, png in figures.items():
        folder.write(name, png)
    harness = frame.attrs.get("harness")
    if harness and "started" in harness:  # the run's wall time, up to its summary
        harness["wall"] = time.perf_counter() - harness["started"]
    folder.write("summary.md", summary(frame, time_limit, shift).encode())
    folder.write("report.html", report_html(frame, figures, time_limit, shift).encode())


def write_partial(folder, done, total, command):
    """summary.md and report.html of a study whose solves are not all logged: "partial: done of
    total solves", the command that completes it (written before the first solve of a run, and
    replaced by :func:`write` when the study completes or is interrupted)."""
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    note = (f"The study is running, or its run stopped before every solve was logged (marked at "
            f"{started}). Rerun the command to complete it: the solves logged in results.jsonl are "
            f"reused. The tables and plots are written when it completes.")
    folder.write("summary.md", f"**{partial_line(done, total)}**\n\n{note}\n\nCommand: `{command}`\n".encode())
    folder.write("report.html", (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>fsopt bench "
                                 f"report (partial)</title><style>{_STYLE}</style></head><body>"
                                 f"{_partial_html((done, total))}<h1>fsopt bench: solver comparison study</h1>"
                                 f"<p>{html.escape(note)}</p><p>Command: <code>{html.escape(command)}</code></p>"
                                 f"</body></html>").encode())


def _partial_html(partial) -> str:
    return f"<p id='partial'><strong>{html.escape(partial_line(*partial))}</strong></p>" if partial else ""


def _figure(n):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ncols = max(1, min(3, n))
    nrows = max(1, -(-n // ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.5 * ncols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    if n == 0:
        fig.text(0.5, 0.5, "no certified solve: nothing to plot", ha="center", va="center")
    return fig, list(axes.flat[:n])


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def _legend_beside(ax):
    """The legend right of the axes, where it covers no line (the lines of a profile end at
    ρ = 1 on the right, those of a study anywhere)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def _log_ticks(ax, which):
    """Labelled decades on a log axis, and 1-2-5 steps when the data span less than two decades
    (else a narrow panel shows one label or none); minor ticks unlabelled (no crowding)."""
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator, NullFormatter

    axis, (low, high) = (ax.xaxis, ax.get_xlim()) if which == "x" else (ax.yaxis, ax.get_ylim())
    decades = np.floor(np.log10(high)) - np.ceil(np.log10(low)) + 1  # powers of 10 in view
    axis.set_major_locator(LogLocator(subs=(1.0,) if decades >= 2 else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(LogFormatterSciNotation(minor_thresholds=(np.inf, np.inf)))  # each tick
    axis.set_minor_formatter(NullFormatter())


def _colours(frame):
    import matplotlib.pyplot as plt

    return {s: plt.cm.tab20(i % 20) for i, s in enumerate(sorted(frame["solver"].unique()))}


def plot_profiles(frame):
    """ρ_s(τ) on a log axis from 1 to the decade above the kind's largest solved ratio (at least
    10³: :func:`fsopt.tools.bench_stats.profile_taus`), one panel per subproblem kind; returns
    the Figure."""
    times = instance_times(frame)
    kinds = sorted(times.index.get_level_values("kind").unique()) if len(times) else []
    fig, axes = _figure(len(kinds))
    colour = _colours(frame)
    for ax, kind in zip(axes, kinds):
        block = times.xs(kind, level="kind").dropna(axis=1, how="all")
        taus = profile_taus(block)
        rho = performance_profile(block, taus)
        for solver in rho.columns:
            ax.step(rho.index, rho[solver], where="post", color=colour[solver], label=solver)
        finite = ratios(block)[np.isfinite(ratios(block))]
        ax.set(xscale="log", xlim=(1, taus[-1]), ylim=(-0.02, 1.02), ylabel="ρ_s(τ): fraction solved within τ",
               xlabel=f"τ (time / fastest time); largest solved ratio {finite.max():.4g}" if finite.size else "τ",
               title=f"{kind} ({len(block)} instances)")
        _legend_beside(ax)
    fig.tight_layout()
    return fig


def plot_curves(frame):
    """Error to the reference against time along each solver's schedule (repetition 0, largest
    size of each problem/kind); filled markers are certified solves, hollow ones are not.
    Returns the Figure."""
    ran = frame[(frame["status"] != SKIPPED) & (frame["repetition"] == 0)
                & np.isfinite(frame["error_to_reference"]) & np.isfinite(frame["time"])]
    groups = [(key, g[g["size"] == g["size"].max()]) for key, g in ran.groupby(["problem", "kind"])]
    fig, axes = _figure(len(groups))
    colour = _colours(frame)
    for ax, ((problem, kind), g) in zip(axes, groups):
        for solver, gs in g.groupby("solver"):
            pts = gs[np.isfinite(gs["error_to_reference"]) & np.isfinite(gs["time"])]
            curve = pts[pts["budget"] != "default"].sort_values(["tol", "max_iter"], ascending=[False, True])
            err = curve["error_to_reference"].clip(lower=1e-16)
            ax.plot(curve["time"], err, "-", color=colour[solver], label=solver if len(curve) else None, lw=1)
            for certified, face in ((True, colour[solver]), (False, "none")):
                sel = curve["certified"] == certified
                ax.scatter(curve.loc[sel, "time"], err[sel], s=18, facecolors=face, edgecolors=colour[solver])
            default = pts[pts["budget"] == "default"]
            ax.scatter(default["time"], default["error_to_reference"].clip(lower=1e-16), marker="*",
                       s=70, color=colour[solver], label=None if len(curve) else solver)
        ax.set(xscale="log", yscale="log", xlabel="time (s)", ylabel="|f − f_ref| / max(1, |f_ref|)",
               title=f"{problem}: {kind}, size {int(g['size'].max()) if len(g) else '?'}")
        _log_ticks(ax, "x")
        _log_ticks(ax, "y")
        _legend_beside(ax)
    if groups:
        fig.suptitle("lines: each solver along its tolerance / iteration schedule;  ● filled: certified "
                     "solve;  ○ hollow: certificate failed;  ★ the solver's default settings;  an error of 0 "
                     "is drawn at 1e-16", fontsize=9)
    fig.tight_layout()
    return fig


def plot_sizes(frame):
    """Median time of certified default solves against size, one panel per problem/kind; the
    sizes of the study are the x ticks.  Returns the Figure."""
    from matplotlib.ticker import NullLocator

    ok = frame[(frame["budget"] == "default") & frame["solved"]]
    groups = list(ok.groupby(["problem", "kind"]))
    fig, axes = _figure(len(groups))
    colour = _colours(frame)
    for ax, ((problem, kind), g) in zip(axes, groups):
        for solver, gs in g.groupby("solver"):
            med = gs.groupby("size")["time"].median()
            ax.loglog(med.index, med.to_numpy(), "o-", color=colour[solver], label=solver)
        ax.set(title=f"{problem}: {kind}", xlabel="size", ylabel="time (s)")
        sizes = np.unique(g["size"])
        ax.set_xticks(sizes, [f"{s:g}" for s in sizes])
        ax.xaxis.set_minor_locator(NullLocator())
        if sizes.size == 1:  # one size: a log axis around it
            ax.set_xlim(sizes[0] / 2, sizes[0] * 2)
        _log_ticks(ax, "y")
        _legend_beside(ax)
    fig.tight_layout()
    return fig


def plot_claims(table):
    """Confirmed-claim rate against requested tolerance with its Wilson interval, one panel per
    kind: o– along a solver's tolerance schedule, ★ its default solves (at its default tol);
    each solver's points are shifted a little along x so that the intervals stay apart."""
    points = table[np.isfinite(table["requested_tol"].astype(float))]
    kinds = sorted(points["kind"].unique())
    fig, axes = _figure(len(kinds))
    colour = _colours(points)
    for ax, kind in zip(axes, kinds):
        block = points[points["kind"] == kind]
        solvers = sorted(block["solver"].unique())
        for i, (solver, g) in enumerate(block.groupby("solver")):
            g = g.assign(requested_tol=g["requested_tol"] * 10 ** (0.25 * (i - (len(solvers) - 1) / 2)
                                                                   / max(1, len(solvers) - 1)))
            for part, style in ((g[g["budget"].str.startswith("tol=")].sort_values("requested_tol"), "o-"),
                                (g[g["budget"] == "default"], "*")):
                if len(part):
                    err = np.vstack([part["rate"] - part["ci_low"], part["ci_high"] - part["rate"]])
                    ax.errorbar(part["requested_tol"], part["rate"], yerr=err, fmt=style, capsize=3,
                                color=colour[solver], ms=10 if style == "*" else 4, lw=1,
                                label=solver if style == "o-" or len(g) == len(part) else None)
        ax.set(xscale="log", ylim=(-0.05, 1.05), xlabel="requested tolerance",
               ylabel="confirmed / checked claims", title=kind)
        _legend_beside(ax)
    if kinds:
        fig.suptitle(f"o– along the tolerance schedule;  ★ the solver's defaults;  bars: "
                     f"{CONFIDENCE:.0%} Wilson intervals over instances", fontsize=9)
    fig.tight_layout()
    return fig


def environment() -> dict:
    """Versions of fsopt, cvxpy, numpy and each solver's package; CPU; date (UTC)."""
    from ..core.solvers import backends

    env = {"date (UTC)": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
           "python": platform.python_version(), "platform": platform.platform(),
           "cpu": _cpu_name(), "cores": str(os.cpu_count())}
    packages = {"fsopt": "fsopt", "cvxpy": "cvxpy", "numpy": "numpy", "scipy": "scipy"}
    for name, backend in sorted(backends().items()):
        if backend.package:
            packages[f"{name} ({backend.package})"] = backend.package
    dists = importlib.metadata.packages_distributions()
    for label, module in packages.items():
        env[label] = _version(dists.get(module, [module])[0])
    return env


def _version(dist) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


_STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px}
table{border-collapse:collapse;font-size:13px;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#eee;position:sticky;top:0}img{max-width:100%;border:1px solid #ddd}
tr.unsolved td{color:#a00}#filter{width:30em;padding:4px}"""

_SCRIPT = """
(function () {
  var input = document.getElementById("filter");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#results tbody tr"));
  var count = document.getElementById("shown");
  function apply() {
    var terms = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row) {
      var text = row.textContent.toLowerCase();
      var keep = terms.every(function (t) { return text.indexOf(t) >= 0; });
      row.style.display = keep ? "" : "none";
      if (keep) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " rows";
  }
  input.addEventListener("input", apply);
  apply();
  document.body.setAttribute("data-ready", "yes");
  window.addEventListener("load", function () {
    var images = Array.prototype.slice.call(document.images);
    var loaded = images.filter(function (im) { return im.complete && im.naturalWidth > 0; });
    document.body.setAttribute("data-images", loaded.length + "/" + images.length);
  });
})();
"""

_RESULT_COLUMNS = ["problem", "kind", "size", "solver", "repetition", "budget", "tol", "max_iter",
                   "status", "solved", "claim", "claim_confirmed", "time", "objective",
                   "error_to_reference", "certificate", "iterations", "warmup_time", "peak_memory",
                   "reason"]


def report_html(frame, figures, time_limit, shift=10.0) -> str:
    """One self-contained page: SGM, claim-accuracy and timing tables, plots, environment, the
    filterable results."""
    esc = html.escape
    table, claims, timings = sgm_table(frame, time_limit, shift), claim_table(frame), timing_table(frame)
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>fsopt bench report"
             f"</title><style>{_STYLE}</style></head><body>",
             _partial_html(frame.attrs.get("partial")), "<h1>fsopt bench: solver comparison study</h1>",
             f"<p id='command'>Command: <code>{esc(frame.attrs['command'])}</code></p>" if frame.attrs.get("command") else "",
             f"<p>{len(frame)} rows: {int((frame['status'] != SKIPPED).sum())} solves, "
             f"{int(frame['solved'].sum())} certified, {_skipped_pairs(frame)}. Time = compile + solve; solved = status optimal or optimal_inaccurate "
             f"with the NumPy certificate within its tolerance.</p>",
             _nothing_solved(frame),
             "".join(f"<p class='run'>{esc(line.strip().lstrip('- '))}</p>"
                     for line in list(frame.attrs.get("run") or []) + harness_lines(frame.attrs.get("harness"))),
             f"<h2>Shifted geometric mean of time (shift {shift:g} s, unsolved at the "
             f"{time_limit:g} s limit)</h2>",
             table.to_html(index=False, float_format=lambda v: f"{v:.4g}", border=0),
             "<h2>At equal accuracy: time to a certificate residual within factor × its bound</h2>"
             "<p>low: 100 ×, default: 1 × (certified), high: 0.01 × the subproblem's certificate bound; "
             "each solver's fastest solve that reaches it; sgm_median_shift: shift = the median time.</p>",
             accuracy_table(frame, time_limit, shift).to_html(index=False, float_format=lambda v: f"{v:.4g}",
                                                              border=0, table_id="accuracy"),
             "<h2>Every status: rows per solver (all budgets and repetitions)</h2>",
             status_table(frame).to_html(index=False, border=0, table_id="statuses"),
             f"<h2>Claim accuracy: how often each solver's word is true</h2><p>A claim is a status "
             f"optimal, optimal_inaccurate, infeasible, unbounded (or their _inaccurate forms); it is "
             f"confirmed when the NumPy certificate (a solution's, or a Farkas / primal ray's) holds. "
             f"rate = confirmed / checked claims, with its {CONFIDENCE:.0%} Wilson interval; the "
             f"residuals are the certificates of the rejected claims (∞: no ray exists).</p>",
             claims.to_html(index=False, float_format=lambda v: f"{v:.3g}", border=0, table_id="claims"),
             "<h2>Timings: each pair's first solve against the timed ones</h2><p>Each (solver, "
             "instance) pair's first solve, in a worker process that imported fsopt and cvxpy once, is an "
             "untimed warm-up (the solver package's first use, numba kernels, cvxpy's first "
             "canonicalization of the instance): its wall time is reported here and kept "
             "out of every time above. spread = (max − min) / median of an instance's repetitions "
             "(median over instances).</p>",
             timings.to_html(index=False, float_format=lambda v: f"{v:.3g}", border=0, table_id="timings")]
    for name, title in PLOTS.items():
        data = base64.b64encode(figures[name]).decode("ascii")
        parts.append(f"<h2>{esc(title)}</h2><img alt='{esc(name)}' src='data:image/png;base64,{data}'>")
    env = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in environment().items())
    parts.append(f"<h2>Environment</h2><table id='environment'>{env}</table>")
    rows = []
    for record in frame[_RESULT_COLUMNS].itertuples(index=False):
        cls = "" if record.solved or record.status == SKIPPED else " class='unsolved'"
        rows.append(f"<tr{cls}>" + "".join(f"<td>{esc(_fmt(v))}</td>" for v in record) + "</tr>")
    head = "".join(f"<th>{esc(c)}</th>" for c in _RESULT_COLUMNS)
    parts += ["<h2>Results</h2><p><input id='filter' placeholder='filter: words that every shown row "
              "contains, e.g. spiral CLARABEL default'> <span id='shown'></span></p>",
              f"<table id='results'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>",
              f"<script>{_SCRIPT}</script></body></html>"]
    return "\n".join(parts)


def _skipped_pairs(frame) -> str:
    """"n skipped (kind, solver) pairs (m rows)": the count the command line prints, and the rows."""
    skipped = frame[frame["status"] == SKIPPED]
    return (f"{len(skipped.drop_duplicates(['kind', 'solver']))} skipped (subproblem kind, solver) pairs "
            f"({len(skipped)} rows, one per size)")


def _nothing_solved(frame) -> str:
    """A warning paragraph when no solve was certified (e.g. every solve timed out)."""
    if frame["solved"].any():
        return ""
    counts = frame.loc[frame["status"] != SKIPPED, "status"].value_counts()
    what = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no solve ran"
    return (f"<p id='nothing-solved'><strong>Nothing was solved in this study</strong> ({what}); "
            f"the tables and plots are empty. Raise --timeout and rerun with --retry timeout to "
            f"run the timed-out solves again.</p>")


def _fmt(value) -> str:
    if isinstance(value, float):
        return "" if np.isnan(value) else f"{value:.4g}"
    return "" if value is None else str(value)
