"""Rows → ``results.csv`` (one row per method, the paper's figure in ``paper``, a skipped method's reason in
``note``, the error on permuted labels in ``chance``) and ``results.md`` (paper figure beside measured)."""
from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["dataset", "method", "n_selected", "error_mean", "error_std", "n_splits", "fit_time", "paper", "note",
           "chance", "chance_std"]
MAJORITY = "majority class of the training part (no features)"


def row(dataset, method, errors, n_selected, fit_times, paper=None):
    """One result row: errors (%) over the splits, mean n_selected and mean fit time (s) per split."""
    errors = np.asarray(errors, dtype=float)
    return {"dataset": dataset, "method": method, "n_selected": float(np.mean(n_selected)),
            "error_mean": float(errors.mean()),
            "error_std": float(errors.std(ddof=1)) if errors.size > 1 else 0.0,
            "n_splits": int(errors.size), "fit_time": float(np.mean(fit_times)), "paper": paper, "note": None}


def majority_row(dataset, y, splits):
    """The floor: every test row given the most frequent class of its split's training rows."""
    y = np.asarray(y).astype(str)
    errors = []
    for train, test in splits:
        classes, counts = np.unique(y[train], return_counts=True)
        errors.append(100.0 * float(np.mean(y[test] != classes[np.argmax(counts)])))
    return row(dataset, MAJORITY, errors, 0, np.zeros(len(errors)))


def add_chance(rows, null_rows):
    """Fill ``chance`` (mean over the label permutations of each method's mean error) and ``chance_std``
    (their standard deviation) from ``null_rows``, one list of rows per permutation, row for row."""
    for i, r in enumerate(rows):
        means = [nr[i]["error_mean"] for nr in null_rows]
        if any(nr[i]["method"].split(" (")[0] != r["method"].split(" (")[0] for nr in null_rows):
            raise ValueError(f"permuted-label rows do not line up with the rows at {r['method']!r}")
        r["chance"] = float(np.mean(means))
        r["chance_std"] = float(np.std(means, ddof=1)) if len(means) > 1 else np.nan
    return rows


def withhold_paper(rows, reason):
    """Blank the paper's figures (not comparable with this run), saying why in each such row's note."""
    for r in rows:
        if r["paper"] is not None:
            r["paper"], r["note"] = None, r["note"] or f"paper figure not shown: {reason}"
    return rows


def skipped_row(dataset, method, n_selected, reason, paper=None):
    """The row of a method the protocol could not run here, with the reason."""
    return {"dataset": dataset, "method": method, "n_selected": float(n_selected), "error_mean": np.nan,
            "error_std": np.nan, "n_splits": 0, "fit_time": np.nan, "paper": paper, "note": f"skipped: {reason}"}


def curve_rows(dataset, label, curves, ks, k_ref, ref_label, fit_times, paper_best=None, paper_ref=None):
    """Two rows for a ranker: at the reference k of each split, and at the best k (test-optimistic).

    ``curves`` is (n_splits, len(ks)) test errors; ``k_ref`` the reference k of each split, which
    ``ref_label`` names.  The best-k row takes the k minimizing the mean error over splits, as the
    papers do: it looks at the test rows, so it is optimistic and labelled so.
    """
    curves, ks = np.asarray(curves, dtype=float), np.asarray(ks)
    at_ref = [c[np.searchsorted(ks, k)] for c, k in zip(curves, k_ref)]
    best = int(np.argmin(curves.mean(axis=0)))
    return [row(dataset, f"{label} (k {ref_label})", at_ref, k_ref, fit_times, paper_ref),
            row(dataset, f"{label} (best k ≤ {ks[-1]}, optimistic: min over k of the test error)",
                curves[:, best], ks[best], fit_times, paper_best)]


def write(rows, folder, title, notes, caption=()):
    """Write ``results.csv`` and ``results.md`` into ``folder`` (a
    :class:`fsopt.tools.study_folder.StudyFolder`: each file replaced atomically, no link
    followed); return the frame.  ``caption`` lines are printed with the table itself."""
    frame = pd.DataFrame(rows, columns=COLUMNS)
    folder.write("results.csv", frame.to_csv(index=False).encode())
    folder.write("results.md", markdown(frame, title, notes, caption).encode())
    return frame


def markdown(frame, title, notes, caption=()):
    """Markdown table: measured error beside the paper's figure (and the permuted-label error when
    measured), the caption lines under it, then the protocol notes."""
    null = frame.chance.notna().any()
    lines = [f"## {title}", "",
             "| data set | method | features | error % (measured) | paper | " + ("permuted labels | " if null else "")
             + "splits | fit s/split |",
             "|---|---|---:|---:|---:|" + ("---:|" if null else "") + "---:|---:|"]
    for r in frame.itertuples():
        paper = r.paper if isinstance(r.paper, str) and r.paper else "–"
        chance = ("– | " if not np.isfinite(r.chance) else f"{r.chance:.1f} | " if not np.isfinite(r.chance_std)
                  else f"{r.chance:.1f} ± {r.chance_std:.1f} | ") if null else ""
        if r.n_splits == 0:
            lines.append(f"| {r.dataset} | {r.method} | {r.n_selected:.1f} | {r.note} | {paper} | {chance}0 | – |")
            continue
        lines.append(f"| {r.dataset} | {r.method} | {r.n_selected:.1f} | {r.error_mean:.1f} ± {r.error_std:.1f} "
                     f"| {paper} | {chance}{r.n_splits} | {r.fit_time:.2f} |")
    caption = [""] + [f"*{c}*" for c in caption] if caption else []
    return "\n".join(lines + caption + [""] + [f"- {n}" for n in notes]) + "\n"
