"""benchmarks/logo_fast_path.py end to end on small sizes: the rows ``--default-only`` saves make
the table of docs/logo-scale.md again (the full runs are in that page)."""
import json

import numpy as np
from test_nmmkl_benchmarks import load


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
