"""`fsopt experiment`: each protocol's --quick run, no leakage, the baselines' own pieces."""
import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import StandardScaler

from fsopt.datasets import load_dataset
from fsopt.tools.cli import main
from fsopt.tools.experiments import run_experiment
from fsopt.tools.experiments.relieff import ReliefF
from fsopt.tools.experiments.results import COLUMNS, MAJORITY
from fsopt.core.selectors import TopK, ranking
from fsopt.tools.experiments.splits import random_splits


def test_relieff_hand_computed_case():
    # Two classes on a line (feature 0 separates them), feature 1 alternates with the class rank.
    # Ranges 4 and 1; with k = 1 every sample's hit differs by (0.25, 1) and its miss by (0.75, 0):
    # W = mean(−hit + miss) = (0.5, −1).
    X = np.array([[0, 0], [1, 1], [3, 0], [4, 1]], dtype=float)
    y = np.array([0, 0, 1, 1])
    np.testing.assert_allclose(ReliefF(n_neighbors=1).fit(X, y).feature_importances_, [0.5, -1.0])


def test_relieff_agrees_with_skrebate(rng):
    skrebate = pytest.importorskip("skrebate")
    X = rng.standard_normal((40, 6))
    y = (X[:, 0] + 0.5 * rng.standard_normal(40) > 0).astype(int)
    ours = ReliefF(n_neighbors=5).fit(X, y).feature_importances_
    theirs = skrebate.ReliefF(n_neighbors=5, n_features_to_select=2).fit(X, y).feature_importances_
    np.testing.assert_allclose(ours, theirs, atol=1e-12)
    assert ranking(ours)[0] == 0


def test_topk_keeps_the_k_best_and_k_can_change_after_fit(rng):
    X = rng.standard_normal((30, 5))
    y = (X[:, 3] > 0).astype(int)
    sel = TopK(lambda X, y: np.array([1.0, 3.0, 2.0, 3.0, 0.0]), k=2).fit(X, y)
    assert sel.get_support(indices=True).tolist() == [1, 3]  # tie 3.0/3.0 kept, by lower index
    sel.set_params(k=3)
    assert sel.get_support(indices=True).tolist() == [1, 2, 3]


def _rows(path):
    frame = pd.read_csv(path / "results.csv")
    assert list(frame.columns) == COLUMNS
    assert (path / "results.md").read_text().count("\n| ") == len(frame) + 1  # header + one line per row
    return frame.set_index("method")


@pytest.fixture
def scaler_fits(monkeypatch):
    """Rows every StandardScaler.fit sees (the z-scoring step of every pipeline)."""
    seen = []
    fit = StandardScaler.fit

    def spy(self, X, y=None, sample_weight=None):
        seen.append(np.asarray(X).copy())
        return fit(self, X, y, sample_weight)

    monkeypatch.setattr(StandardScaler, "fit", spy)
    return seen


def test_nmmkl_uci_quick_fits_the_scaler_on_training_rows_only(data_dir, tmp_path, scaler_fits):
    from fsopt.datasets import load_dataset

    assert main(["experiment", "nmmkl-uci", "--data", str(data_dir / "sonar.csv.gz"), "--quick",
                 "--quiet", "--out", str(tmp_path)]) == 0
    X, y = load_dataset(data_dir / "sonar.csv.gz")
    train_sets = [{r.tobytes() for r in X[tr]} for tr, _ in random_splits(y, 2, round(0.8 * len(y)), 0)]
    assert scaler_fits and all(len(rows) < len(y) for rows in scaler_fits)
    for rows in scaler_fits:  # outer fits and inner-CV fits alike: inside one split's training part
        assert any({r.tobytes() for r in rows} <= train for train in train_sets)
    frame = _rows(tmp_path)
    assert len(frame) == 7 + 1 and set(frame.n_splits) == {2}
    assert frame.loc["NMMKL (m = 10)", "n_selected"] == 10
    majority = frame.loc[MAJORITY, "error_mean"]  # 46.6 % on Sonar's 97/111
    assert frame.loc["NMMKL (m = 10)", "error_mean"] < 40 < majority < 50
    assert pd.isna(frame.loc["NMMKL (m = 10)", "paper"])  # recognised as the paper's Sonar, but --quick
    again = run_experiment("nmmkl-uci", data_dir / "sonar.csv.gz", tmp_path / "again", quick=True, progress=False)
    np.testing.assert_array_equal(again.error_mean.to_numpy(), frame.error_mean.to_numpy())  # seeded


def test_logo_microarray_quick_colon_beats_chance(data_dir, tmp_path):
    run_experiment("logo-microarray", data_dir / "colon.csv.gz", tmp_path, quick=True, progress=False)
    frame = _rows(tmp_path)
    assert len(frame) == 1 + 1 + 3 * 2 + 1 + 1 and set(frame.n_splits) == {10}
    assert "0 warnings, 40 of 40 fits converged" in (tmp_path / "results.md").read_text()  # 10 folds × 4 methods
    own = frame.loc["LOGO (own selection: weight > 0.01·max)"]
    assert 1 <= own.n_selected <= 50
    assert own.error_mean < 100 * 22 / 62  # chance: always "Tumor" errs on 35.5 %
    best = frame[frame.index.str.startswith("LOGO (best k")].iloc[0]
    _, y = load_dataset("colon", data_dir=data_dir)
    chance = 100 * (1 - np.unique(y, return_counts=True)[1].max() / len(y))  # always the majority class
    assert 1 <= best.n_selected <= 50 and best.error_mean < chance, (best.error_mean, chance)


def test_logo_uci_quick_irrelevant_features_hurt_the_svm(data_dir, tmp_path):
    run_experiment("logo-uci", data_dir / "heart.csv.gz", tmp_path, quick=True, progress=False)
    frame = _rows(tmp_path)
    assert len(frame) == 2 + 3 * 2 + 2 + 1
    assert frame.loc["RBF SVM, all features", "n_selected"] == 13 + 200
    assert (frame.loc["RBF SVM, original features only (reference)", "error_mean"]
            < frame.loc["RBF SVM, all features", "error_mean"])
    text = (tmp_path / "results.md").read_text()
    assert "recognised as the paper's heart" in text


def test_lfs_table1_quick_reports_cv_and_optimistic_alpha(data_dir, tmp_path):
    run_experiment("lfs-table1", data_dir / "sonar.csv.gz", tmp_path, quick=True, progress=False)
    frame = _rows(tmp_path)
    assert len(frame) == 2 + 3 * 2 + 1 + 1
    cv = frame.loc["LFS (α by inner CV)"]
    assert cv.n_selected in (2, 5, 3.5) and cv.error_mean < 40  # chance is 46.6 %
    assert frame.index.str.contains("min over α, optimistic").sum() == 1
    assert "22.87 (3.92)" not in (tmp_path / "results.md").read_text()  # quick: no paper figure


def test_bad_input_is_refused_before_heavy_work(tmp_path, rng):
    with pytest.raises(ValueError, match="unknown experiment"):
        run_experiment("nope", "wdbc", tmp_path)
    X, y = rng.standard_normal((30, 4)), np.repeat([0, 1, 2], 10)
    from fsopt.tools.experiments import lfs_table1, nmmkl_uci

    for protocol in (nmmkl_uci, lfs_table1):
        with pytest.raises(ValueError, match="binary.*--positive-class"):
            protocol.plan(X, y, "three-class", None, quick=True, n_splits=None, random_state=0, pre=[])


def test_nmmkl_tune_scales_inside_the_cv_folds(scaler_fits):
    # `fsopt run nmmkl --cv` used to z-score the whole data set before its CV: the scaler saw all rows.
    from fsopt import NMMKL
    from fsopt.datasets.nmmkl_toy import make_nmmkl_toy
    from fsopt.nmmkl.protocol import tune

    X, y = make_nmmkl_toy(n_samples=90, random_state=0)
    tune(NMMKL(2), X, y, {"C": [0.1], "tau": [1.0]}, folds=3, scale=True, prefilter=2)
    assert [len(rows) for rows in scaler_fits] == [60, 60, 60, 90]  # 3 folds, then the refit on all rows
