"""The NMMKL benchmark scripts run end to end on small sizes (the full runs are in the report)."""
import importlib.util
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sonar_protocol_two_splits(tmp_path):
    frame = load("nmmkl_sonar").main(["--splits", "2", "--m", "10", "--out", str(tmp_path)])
    assert (tmp_path / "nmmkl_sonar.csv").is_file()
    assert sorted(frame.method.unique()) == ["Fisher", "NMMKL", "SVM-LW"] and len(frame) == 6
    assert all(len(f.split()) == 10 for f in frame.features)
    assert frame[frame.method == "NMMKL"].accuracy.mean() > 0.6  # chance is 0.53


def test_theorem6_check_section_holds():
    checks = load("nmmkl_checks")
    df = checks.theorem6_table(3)  # the section's table on d in {6, 8}
    assert (df.bound < 10).all() and (df.ratio <= df.bound).all()  # finite, informative bounds hold
    assert np.all(df.p_agreement < 1e-3)
