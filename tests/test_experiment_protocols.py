"""`fsopt experiment` on the papers' data sets: paper figures, preprocessing in the folds, label,
seeds, warnings, parallel splits."""
import gzip

import numpy as np
import pandas as pd
import pytest
from sklearn.impute import SimpleImputer

from fsopt.datasets import load_dataset
from fsopt.tools.cli import main
from fsopt.tools.experiments import PROTOCOLS, lfs_table1, nmmkl_uci, run_experiment
from fsopt.tools.experiments.papers import identify
from fsopt.tools.experiments.splits import random_splits

# The data sets shipped with fsopt and the paper names each protocol must give them.
PAPER_NAMES = {
    "logo-uci": {"twonorm": "twonorm", "waveform": "waveform", "banana": "banana", "diabetis": "diabetis",
                 "thyroid": "thyroid", "heart": "heart", "splice": "splice"},
    "nmmkl-uci": {"sonar": "Sonar", "ionosphere": "Iono", "colon": "Colon", "wdbc": "Wdbc"},
    "lfs-table1": {"sonar": "Sonar", "colon": "Colon", "wdbc": "Breast"},
    "logo-microarray": {},
}


@pytest.mark.parametrize("protocol", sorted(PAPER_NAMES))
def test_every_packaged_data_set_is_recognised_with_its_paper_name(protocol, data_dir):
    table = PROTOCOLS[protocol].PAPER
    for file in ["wdbc"] + sorted(p.name.removesuffix(".csv.gz") for p in data_dir.glob("*.csv.gz")):
        X, y = load_dataset(file if file == "wdbc" else data_dir / f"{file}.csv.gz")
        entry, how = identify(table, X, y, source=file)
        expected = PAPER_NAMES[protocol].get(file)
        assert (entry.name if entry else None) == expected, (protocol, file, how)
        if entry:
            assert "recognised" in how
            assert entry.figures or (protocol, entry.name) == ("nmmkl-uci", "Colon")  # Colon: Fig. 2 only


def test_paper_dataset_names_a_copy_and_unknown_names_are_refused(rng):
    X, y = rng.standard_normal((77, 30)), np.repeat([0, 1], [58, 19])
    entry, how = identify(PROTOCOLS["logo-microarray"].PAPER, X, y, "dlbcl")
    assert entry.name == "DLBCL" and entry.figures["LOGO"] == "2.6 (10)" and "file has 30 features" in how
    with pytest.raises(ValueError, match="not one of this paper's data sets: prostate cancer, breast cancer, DLBCL"):
        identify(PROTOCOLS["logo-microarray"].PAPER, X, y, "colon")
    # a copy of the LFS paper's microarrays by shape: 72 × 7129 is ALLAML, 102 × 5966 Prostate
    assert identify(lfs_table1.PAPER, np.zeros((72, 7129)), y[:72])[0].name == "ALLAML"
    assert identify(lfs_table1.PAPER, np.zeros((102, 5966)), np.arange(102) % 2)[0].name == "Prostate"
    assert identify(PROTOCOLS["logo-microarray"].PAPER, np.zeros((77, 5469)), y)[0].name == "DLBCL"
    # UCI's Arrhythmia copy has 279 attributes (the paper counts 278) and 452 rows (the paper 420)
    assert identify(lfs_table1.PAPER, np.zeros((452, 279)), np.arange(452) % 13)[0].name == "ARR"


def _write(path, X, y, label="label"):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame[label] = y
    with gzip.open(path, "wt") as fh:
        frame.to_csv(fh, index=False)
    return path


def test_a_file_without_label_column_needs_label(tmp_path, data_dir, capsys):
    X, y = load_dataset(data_dir / "sonar.csv.gz")
    path = _write(tmp_path / "nolabel.csv.gz", X, y, label="class")
    out = tmp_path / "out"
    assert main(["experiment", "nmmkl-uci", "--data", str(path), "--quick", "--quiet", "--out", str(out)]) == 2
    assert "no 'label' column; name the label column (--label COLUMN" in capsys.readouterr().err
    assert not (out / "splits.jsonl").exists()
    with pytest.raises(ValueError, match="label column 'nope' not found"):
        run_experiment("nmmkl-uci", path, out, quick=True, progress=False, label="nope")
    frame = run_experiment("nmmkl-uci", path, out, quick=True, n_splits=1, progress=False, label="class")
    assert frame.loc[frame.method == "NMMKL (m = 10)", "paper"].item() == "25.0 ± 2.3 (acc 75.0)"


@pytest.fixture
def imputer_fits(monkeypatch):
    """Rows every SimpleImputer.fit sees."""
    seen = []
    fit = SimpleImputer.fit

    def spy(self, X, y=None):
        seen.append(np.asarray(X, dtype=float).copy())
        return fit(self, X, y)

    monkeypatch.setattr(SimpleImputer, "fit", spy)
    return seen


def _with_missing(data_dir, tmp_path):
    """Sonar with 10 % of the cells of its first 20 columns missing, and column 5 mostly missing."""
    X, y = load_dataset(data_dir / "sonar.csv.gz")
    rng = np.random.default_rng(0)
    X[:, :20][rng.random((X.shape[0], 20)) < 0.1] = np.nan
    X[rng.random(X.shape[0]) < 0.8, 5] = np.nan
    return _write(tmp_path / "sonar-missing.csv.gz", X, y), X, y


def _imputation_inside_training_rows(fits, X, y, n_splits):
    """True when every imputer fit saw only rows of one split's training part (NaN-aware row match)."""
    key = lambda rows: {np.nan_to_num(r, nan=-1.0).tobytes() for r in rows}  # sonar's values are >= 0
    trains = [key(X[tr]) for tr, _ in random_splits(y, n_splits, round(0.8 * len(y)), 0)]
    return bool(fits) and all(any(key(rows) <= t for t in trains) for rows in fits)


def test_imputation_is_fitted_inside_the_training_rows_and_a_whole_file_imputation_fails(
        data_dir, tmp_path, imputer_fits, monkeypatch):
    import fsopt.tools.experiments as experiments

    path, X, y = _with_missing(data_dir, tmp_path)
    with pytest.raises(ValueError, match="missing values in 20 columns.*--impute"):
        run_experiment("nmmkl-uci", path, tmp_path / "refused", quick=True, progress=False)
    frame = run_experiment("nmmkl-uci", path, tmp_path / "ok", quick=True, progress=False, impute="median",
                           drop_missing=0.5)
    kept = np.delete(X, 5, axis=1)  # column 5 is 80 % missing: dropped before imputing
    assert all(rows.shape[1] == kept.shape[1] for rows in imputer_fits)
    assert _imputation_inside_training_rows(imputer_fits, kept, y, 2)
    text = (tmp_path / "ok" / "results.md").read_text()
    assert "imputed with the training part's median" in text and "more than 50% missing" in text
    assert frame.error_mean.max() < 45
    # planted: the whole-file median a researcher had to apply before fsopt imputed → the check fails
    imputer_fits.clear()
    load = experiments.load_data

    def whole_file_imputed(*args, **kwargs):
        X_all, y_all, name = load(*args, **kwargs)
        return SimpleImputer(strategy="median").fit_transform(np.delete(X_all, 5, axis=1)), y_all, name

    monkeypatch.setattr(experiments, "load_data", whole_file_imputed)
    run_experiment("nmmkl-uci", path, tmp_path / "leak", quick=True, progress=False, impute="median")
    assert not _imputation_inside_training_rows(imputer_fits, kept, y, 2)


def test_two_class_version_names_the_class(tmp_path, rng):
    X = rng.standard_normal((120, 6))
    y = np.repeat(["ei", "ie", "n"], 40)
    X[:, 0] += 3 * (y == "ie")
    path = _write(tmp_path / "three.csv.gz", X, y)
    with pytest.raises(ValueError, match="3 classes.*--positive-class"):
        run_experiment("nmmkl-uci", path, tmp_path / "a", quick=True, progress=False)
    with pytest.raises(ValueError, match="positive class 'x' is not a label"):
        run_experiment("nmmkl-uci", path, tmp_path / "b", quick=True, progress=False, positive_class="x")
    frame = run_experiment("nmmkl-uci", path, tmp_path / "c", quick=True, progress=False, positive_class="ie")
    assert "class 'ie' (40 samples) against the rest (80)" in (tmp_path / "c" / "results.md").read_text()
    assert frame.loc[frame.method.str.startswith("NMMKL"), "note"].item().startswith("skipped: m = 10 ≥ d = 6")
    assert frame.loc[frame.method == "Fisher score (m = 10)", "n_splits"].item() == 0
    assert frame.loc[frame.method == "linear SVM, all features", "error_mean"].item() < 10


@pytest.mark.parametrize("protocol", ["lfs-table1", "nmmkl-uci"])  # logo-uci draws as lfs-table1 does
def test_seed_drives_every_random_step(protocol, data_dir, tmp_path, monkeypatch):
    """Outer splits, inner folds, irrelevant features and LFS's rounding all follow --seed."""
    from sklearn.model_selection import StratifiedKFold

    from fsopt import LFS
    from fsopt.tools.experiments import splits

    seen = []
    real_split, real_fit, real_add = StratifiedKFold.split, LFS.fit, splits.add_irrelevant_features

    def spy_split(self, X, y=None, groups=None):
        if self.shuffle:  # unshuffled folds (LogisticRegressionCV's cv=int) draw nothing
            seen.append(("inner folds", self.random_state))
        return real_split(self, X, y, groups)

    def spy_fit(self, X, y):
        seen.append(("LFS rounding", self.random_state))
        return real_fit(self, X, y)

    def spy_add(X, n, random_state=None):
        seen.append(("irrelevant features", random_state))
        return real_add(X, n, random_state=random_state)

    monkeypatch.setattr(StratifiedKFold, "split", spy_split)
    monkeypatch.setattr(LFS, "fit", spy_fit)
    monkeypatch.setattr(splits, "add_irrelevant_features", spy_add)

    def draws(seed, out):
        seen.clear()
        frame = run_experiment(protocol, data_dir / "sonar.csv.gz", tmp_path / out, quick=True, n_splits=1,
                               progress=False, random_state=seed)
        plan = PROTOCOLS[protocol].plan(*load_dataset(data_dir / "sonar.csv.gz"), "sonar", None, quick=True,
                                        n_splits=1, random_state=seed, pre=[])
        return {kind: {s for k, s in seen if k == kind} for kind, _ in seen}, plan.splits[0][0].tolist(), frame

    first, again, other = draws(0, "a"), draws(0, "b"), draws(1, "c")
    assert first[:2] == again[:2]
    pd.testing.assert_frame_equal(first[2].drop(columns="fit_time"), again[2].drop(columns="fit_time"))
    kinds = {"inner folds"} | ({"LFS rounding", "irrelevant features"} if protocol == "lfs-table1" else set())
    assert set(first[0]) == kinds
    for kind in kinds:  # every random step draws from another seed when --seed changes
        assert first[0][kind].isdisjoint(other[0][kind]), kind
    assert first[1] != other[1]  # the outer split too


def test_every_warning_of_every_method_is_counted_and_named(data_dir, tmp_path, monkeypatch):
    # the L1-SVM baseline stopped after 2 iterations: its ConvergenceWarnings must reach the notes
    from sklearn.svm import LinearSVC

    monkeypatch.setattr(nmmkl_uci, "LinearSVC", lambda **kw: LinearSVC(**{**kw, "max_iter": 2}))
    run_experiment("nmmkl-uci", data_dir / "sonar.csv.gz", tmp_path, quick=True, progress=False)
    text = (tmp_path / "results.md").read_text()
    assert "Warnings, L1-SVM: " in text and " ConvergenceWarning in 2 of 2 splits" in text


def test_parallel_splits_give_the_serial_results(data_dir, tmp_path):
    args = dict(quick=True, n_splits=3, progress=False)
    serial = run_experiment("nmmkl-uci", data_dir / "ionosphere.csv.gz", tmp_path / "serial", **args)
    parallel = run_experiment("nmmkl-uci", data_dir / "ionosphere.csv.gz", tmp_path / "par", n_jobs=2, **args)
    cols = ["method", "n_selected", "error_mean", "error_std", "n_splits", "paper"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])
