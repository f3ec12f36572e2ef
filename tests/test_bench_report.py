"""The study's summaries against hand computations, and report.html in a real headless browser."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fsopt.tools import bench, bench_stats
from fsopt.tools.bench_report import report_html

INF = np.inf


def test_performance_profile_matches_a_hand_computed_case():
    # instances p1..p3; A: 1, 2, unsolved; B: 2, 1, 4  →  ratios A: 1, 2, ∞;  B: 2, 1, 1
    times = pd.DataFrame({"A": [1.0, 2.0, INF], "B": [2.0, 1.0, 4.0]})
    rho = bench_stats.performance_profile(times, taus=[1.0, 1.5, 2.0, 1000.0])
    assert np.allclose(rho["A"], [1 / 3, 1 / 3, 2 / 3, 2 / 3])
    assert np.allclose(rho["B"], [2 / 3, 2 / 3, 1.0, 1.0])
    # an instance no solver solves counts against every solver (n_p includes it)
    rho = bench_stats.performance_profile(pd.concat([times, pd.DataFrame({"A": [INF], "B": [INF]})]),
                                          taus=[1000.0])
    assert np.allclose(rho.iloc[0], [2 / 4, 3 / 4])


def test_shifted_geometric_mean_matches_a_hand_computed_case():
    # shift 10, limit 100: A = (11·12·110)^(1/3) − 10 = 14520^(1/3) − 10
    assert bench_stats.shifted_geometric_mean([1.0, 2.0, INF], 10.0, 100.0) == pytest.approx(
        14520 ** (1 / 3) - 10, rel=1e-12)
    assert bench_stats.shifted_geometric_mean([2.0, 8.0], 0.0) == pytest.approx(4.0)
    assert bench_stats.shifted_geometric_mean([3.0, 3.0, 3.0], 10.0) == pytest.approx(3.0)


def _frame(rows):
    cells = []
    for kind, size, solver, rep, time, solved in rows:
        status = "optimal" if solved else "rejected_certificate"
        cells.append(bench._row(bench.Cell("p", kind, size, solver), status, (rep, "default", None),
                                time=time, certified=solved, objective=1.0))
    return pd.DataFrame(cells, columns=bench.COLUMNS)


def test_sgm_table_uses_medians_of_repetitions_and_counts_rejected_solves_as_unsolved():
    frame = _frame([("k", 1, "A", 0, 1.0, True), ("k", 1, "A", 1, 3.0, True), ("k", 1, "A", 2, 2.0, True),
                    ("k", 2, "A", 0, 0.5, False),  # claimed optimal, certificate failed
                    ("k", 1, "B", 0, 4.0, True), ("k", 2, "B", 0, 6.0, True)])
    table = bench_stats.sgm_table(frame, time_limit=100.0, shift=10.0).set_index("solver")
    assert table.loc["A", "solved"] == 1 and table.loc["B", "solved"] == 2
    # A: median 2 on instance 1, instance 2 at the 100 s limit
    assert table.loc["A", "sgm_time"] == pytest.approx(np.sqrt(12 * 110) - 10)
    assert table.loc["B", "sgm_time"] == pytest.approx(np.sqrt(14 * 16) - 10)
    assert table.loc["B", "relative"] == 1.0
    text = bench_stats.summary(frame, 100.0)
    assert "| A | 1/2 |" in text and "rejected_certificate" in text and "(1–3)" in text


# --- report.html in headless Chromium -------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian package 'chromium' is not installed (apt-get install chromium)")


def _open(page: Path, screenshot: Path | None = None):
    """(DOM after the scripts ran, console lines) of ``page`` in headless Chromium."""
    profile = page.parent / f".chromium-{page.stem}"
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0"]
    dom = subprocess.run(common + ["--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120)
    if screenshot is not None:
        subprocess.run(common + [f"--screenshot={screenshot}", "--window-size=1400,2400",
                                 "--hide-scrollbars", page.as_uri()],
                       capture_output=True, text=True, timeout=120, check=True)
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    return dom.stdout, console


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    frame = bench.run(out=out, quick=True, problem_names=["spiral"], solvers=["GRADIENT", "ECOS"],
                      progress=False)
    return out, frame


@needs_chromium
def test_report_loads_without_console_errors_and_shows_the_plots(study, tmp_path):
    out, frame = study
    dom, console = _open(out / "report.html", screenshot=out / "report.png")
    assert console == []
    assert 'data-ready="yes"' in dom and 'data-images="4/4"' in dom  # scripts ran, 4 plots decoded
    assert len(re.findall(r"<img alt=\"[a-z_]+\.png\" src=\"data:image/png;base64,", dom)) == 4
    assert f"{len(frame)} of {len(frame)} rows" in dom  # the filter counted every results row
    for name in ("fsopt", "cvxpy", "numpy", "ECOS (ecos)", "cpu", "date (UTC)"):
        assert f"<th>{name}</th>" in dom
    assert (out / "report.png").stat().st_size > 20_000
    artifacts = os.environ.get("FSOPT_ARTIFACTS")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(out / "report.png", Path(artifacts) / "bench_report.png")


@needs_chromium
def test_the_browser_check_catches_a_script_error(study, tmp_path):
    out, frame = study
    figures = {n: (out / n).read_bytes() for n in ("performance_profile.png", "error_vs_time.png",
                                                   "time_vs_size.png", "claim_accuracy.png")}
    page = report_html(frame, figures, time_limit=300.0).replace(
        'getElementById("shown")', 'getElementById("shown").missing.property')  # a planted bug
    (tmp_path / "broken.html").write_text(page)
    dom, console = _open(tmp_path / "broken.html")
    assert any("Uncaught TypeError" in line for line in console) and 'data-ready="yes"' not in dom


def test_study_writes_every_output(study):
    out, frame = study
    for name in ("results.csv", "results.parquet", "claims.parquet", "summary.md", "performance_profile.png",
                 "error_vs_time.png", "time_vs_size.png", "claim_accuracy.png", "report.html"):
        assert (out / name).stat().st_size > 500, name
    assert "Shifted geometric mean" in (out / "summary.md").read_text()
