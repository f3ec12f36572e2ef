"""benchmarks/logo_fast_path.py end to end on small sizes: the rows ``--default-only`` saves make
the table of docs/logo-scale.md again (the full runs are in that page)."""
import json

import numpy as np
from test_nmmkl_benchmarks import load

from fsopt.datasets.spiral import make_spiral


def test_default_only_rows_give_the_side_by_side_table(tmp_path, capsys, monkeypatch):
    bench = load("logo_fast_path")
    monkeypatch.setattr(bench, "TIMED_FROM", 0)  # time these small fits against cdist too
    out = tmp_path / "rows.jsonl"
    small = ["--default-only", "--J", "300", "--seeds", "1", "--turns", "1", "--shape", "fermat", "--real",
             "--repeat", "2", "--out", str(out)]
    bench.main(small)
    bench.main([*small, "--theta", "1e-4"])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["theta"] for r in rows] == [0.01, 1e-4]
    assert all(len(r["default_only"]["pairs"]) == 2 for r in rows)
    capsys.readouterr()

    bench.main(["--table", str(out)])
    table = capsys.readouterr().out.splitlines()
    assert table[0].count("fit / cdist (pairs)") == 2  # a pair of columns per θ
    line = next(t for t in table if t.startswith("| fermat spiral, 1 turns, seed 0 |"))
    assert sum(t.startswith("| fermat spiral") for t in table) == 1  # one line per instance
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    for k, r in enumerate(rows):  # each θ's cells, from the saved pairs
        d, pairs = r["default_only"], np.array(r["default_only"]["pairs"])
        each = pairs[:, 1] / pairs[:, 0]
        assert cells[2 + 2 * k] == f"{d['outcome']} {d['outer']} ({d['iterations']})"
        assert cells[3 + 2 * k] == (f"{np.median(pairs[:, 1]) / np.median(pairs[:, 0]):.2f} "
                                    f"({each.min():.2f}–{each.max():.2f})")
    assert any(t.startswith("θ = 0.0001: fit / cdist") for t in table)


def test_time_split_accounts_for_every_timed_iteration_and_counts_each_lbfgsb_run(capsys, monkeypatch):
    """benchmarks/logo_time_split.py: its parts partition the fit's timed iterations (the first, the
    working-set ones, those over all features; a replayed one carries no new work), and it counts
    the L-BFGS-B runs of that fit only, the loop restored after it."""
    from test_nmmkl_benchmarks import BENCH

    from fsopt.core import composite, lbfgsb, lbfgsb_routine

    monkeypatch.syspath_prepend(str(BENCH))  # it imports its sibling logo_fast_path
    bench = load("logo_time_split")
    original = lbfgsb_routine.minimize_on_box
    X, y = bench.instance(bench.argparse.Namespace(family="correlated copies", samples=240, seed=2, J=600,
                                                   shape=None, turns=None))
    spiral, _ = bench.instance(bench.argparse.Namespace(family=None, shape="fermat", turns=1.5, seed=0, J=600))
    assert X.shape == (240, 600)
    np.testing.assert_array_equal(spiral, make_spiral(230, 598, turns=1.5, random_state=0, shape="fermat")[0])
    est, _, runs = bench.counted_fit(X, y, prune_below=1e-8)  # the fast path ("auto" from J = 4,096)
    assert composite.minimize_on_box is lbfgsb.minimize_on_box is lbfgsb_routine.minimize_on_box is original
    parts = bench.split(est.history_)
    assert sum(n for _, n, *_ in parts) == sum(1 for h in est.history_ if not h.reused)
    timed = sum(h.statistics_time + h.update_time + h.check_time for h in est.history_ if not h.reused)
    assert np.isclose(sum(s + u + c for _, _, s, u, c in parts), timed)
    assert parts[1][1] > 0 and parts[2][1] > 0  # this instance hands over: both kinds of iteration
    solves = sum(len(h.records) for h in est.history_)
    assert len(runs) >= solves > 0 and all(n > 0 and e > 0 for n, e in runs)
    bench.main(["--family", "correlated copies", "--samples", "240", "--seed", "2", "--J", "600", "--prune-below", "1e-8"])
    out = capsys.readouterr().out
    assert "| working-set iterations |" in out and "L-BFGS-B:" in out and "prune_below=1e-08" in out


def test_jittered_starts_are_the_papers_start_moved_by_the_jitter(capsys):
    """``--starts``: each start's iterate is 1 + jitter·ε in the units LOGO iterates in (X's
    typical spread), so at jitter 0 the fits are the fit from w = 1, on X of any units."""
    from types import SimpleNamespace

    from fsopt.core.scaling import unit_scale

    bench = load("logo_fast_path")
    X, y = make_spiral(60, 40, random_state=0)
    X = 100.0 * X  # the typical spread far from 1: w0 in weights_' units is not the iterate
    moved = bench.jittered_starts(X, SimpleNamespace(starts=2, jitter=1e-3))
    iterate = moved[1] * unit_scale(X)
    assert 1e-5 < np.max(np.abs(iterate - 1.0)) < 1e-2  # moved, by about the jitter
    assert not np.allclose(moved[0], moved[1])  # each start its own ε

    own = bench.fit(X, y)[0]
    for w0 in bench.jittered_starts(X, SimpleNamespace(starts=2, jitter=0.0)):
        again = bench.fit(X, y, w0=w0)[0]
        assert again.n_iter_ == own.n_iter_
        np.testing.assert_allclose(again.weights_, own.weights_, rtol=1e-9, atol=1e-12 * own.weights_.max())

    r = {"jitter": 0.0, "starts": [bench.start_summary(own)] * 2,
         "default_only": {"outcome": own.outcome_, "support": own.get_support(indices=True).tolist()}}
    line = bench.starts_line(r)
    assert line.startswith("  from 2 starts within 0 of w = 1: converged in 2")
    capsys.readouterr()


def test_entrants_benchmark_compares_the_same_fits_and_counts_fewer_exact_columns(capsys, monkeypatch):
    """benchmarks/logo_entrants.py: with and without the held margins' estimate, the same weights
    (the same features enter), fewer columns computed exactly, and the estimate restored after."""
    from test_nmmkl_benchmarks import BENCH

    from fsopt.logo.held_margins import HeldMargins

    monkeypatch.syspath_prepend(str(BENCH))  # it imports its siblings
    bench = load("logo_entrants")
    bench.main(["--families", "interaction", "--J", "4200", "--seed", "0", "--repeat", "1"])
    row = capsys.readouterr().out.splitlines()[-1]
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    with_estimates, without = (int(c.replace(",", "")) for c in cells[6:8])
    assert cells[-1] == "yes" and 0 < with_estimates < without
    assert hasattr(HeldMargins, "gradient_estimate")
