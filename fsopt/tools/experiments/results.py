"""Rows → ``results.csv`` (one row per method, the paper's figure in ``paper``, a skipped method's reason in
``note``) and ``results.md`` (paper figure beside measured)."""
from __future__ import annotations

import numpy as np
import pandas as pd

COLUMNS = ["dataset", "method", "n_selected", "error_mean", "error_std", "n_splits", "fit_time", "paper", "note"]


def row(dataset, method, errors, n_selected, fit_times, paper=None):
    """One result row: errors (%) over the splits, mean n_selected and mean fit time (s) per split."""
    errors = np.asarray(errors, dtype=float)
    return {"dataset": dataset, "method": method, "n_selected": float(np.mean(n_selected)),
            "error_mean": float(errors.mean()),
            "error_std": float(errors.std(ddof=1)) if errors.size > 1 else 0.0,
            "n_splits": int(errors.size), "fit_time": float(np.mean(fit_times)), "paper": paper, "note": None}


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


def write(rows, folder, title, notes):
    """Write ``results.csv`` and ``results.md`` into ``folder`` (a
    :class:`fsopt.tools.study_folder.StudyFolder`: each file replaced atomically, no link
    followed); return the frame."""
    frame = pd.DataFrame(rows, columns=COLUMNS)
    folder.write("results.csv", frame.to_csv(index=False).encode())
    folder.write("results.md", markdown(frame, title, notes).encode())
    return frame


def markdown(frame, title, notes):
    """Markdown table: measured error beside the paper's figure, then the protocol notes."""
    lines = [f"## {title}", "",
             "| data set | method | features | error % (measured) | paper | splits | fit s/split |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in frame.itertuples():
        paper = r.paper if isinstance(r.paper, str) and r.paper else "–"
        if r.n_splits == 0:
            lines.append(f"| {r.dataset} | {r.method} | {r.n_selected:.1f} | {r.note} | {paper} | 0 | – |")
            continue
        lines.append(f"| {r.dataset} | {r.method} | {r.n_selected:.1f} | {r.error_mean:.1f} ± {r.error_std:.1f} "
                     f"| {paper} | {r.n_splits} | {r.fit_time:.2f} |")
    return "\n".join(lines + [""] + [f"- {n}" for n in notes]) + "\n"
