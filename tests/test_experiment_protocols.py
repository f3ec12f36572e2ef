"""`fsopt experiment` on the papers' data sets: paper figures, preprocessing in the folds, label,
seeds, warnings, parallel splits."""
import gzip
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.impute import SimpleImputer

from fsopt.datasets import load_dataset
from fsopt.tools.cli import main
from fsopt.tools.experiments import PROTOCOLS, lfs_table1, nmmkl_uci, run_experiment
from fsopt.tools.experiments.papers import identify, resolve_flags
from fsopt.tools.experiments.results import MAJORITY, majority_row
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


def test_paper_dataset_refuses_a_file_that_is_not_that_data_set(rng):
    # before: DNA passed as ALLAML ran with ALLAML's split and figures, the mismatch a parenthesis in the notes
    y = np.repeat([0, 1], [58, 19])
    entry, how = identify(PROTOCOLS["logo-microarray"].PAPER, np.zeros((77, 5469)), y, "dlbcl")
    assert entry.name == "DLBCL" and entry.figures["LOGO"] == "2.6 (10)" and "--paper-dataset" in how
    with pytest.raises(ValueError, match=r"'dlbcl': f is 77 × 30, classes 19/58, not the paper's DLBCL "
                                         r"\(77 × 5469, classes 19/58\)"):
        identify(PROTOCOLS["logo-microarray"].PAPER, rng.standard_normal((77, 30)), y, "dlbcl", "f")
    dna_y = np.repeat([1, 2, 3], [767, 765, 1654])
    with pytest.raises(ValueError, match=r"dna is 3186 × 180, classes 765/767/1654, not the paper's ALLAML "
                                         r"\(72 × 7129, classes 25/47\)"):
        identify(lfs_table1.PAPER, np.zeros((3186, 180)), dna_y, "ALLAML", "dna")
    allaml_y = np.repeat([1, 2], [47, 25])
    with pytest.raises(ValueError, match=r"not the paper's Leukemia \(72 × 7070\)"):
        identify(lfs_table1.PAPER, np.zeros((72, 7129)), allaml_y, "Leukemia", "ALLAML")
    with pytest.raises(ValueError, match="not one of this paper's data sets: prostate cancer, breast cancer, DLBCL"):
        identify(PROTOCOLS["logo-microarray"].PAPER, np.zeros((77, 5469)), y, "colon")
    # recognised by shape and class counts: 72 × 7129 with 25/47 is ALLAML, with other counts nothing
    assert identify(lfs_table1.PAPER, np.zeros((72, 7129)), allaml_y)[0].name == "ALLAML"
    assert identify(lfs_table1.PAPER, np.zeros((72, 7129)), y[:72])[0] is None
    assert identify(lfs_table1.PAPER, np.zeros((102, 5966)), np.repeat([0, 1], [50, 52]))[0].name == "Prostate"
    assert identify(lfs_table1.PAPER, np.zeros((3186, 180)), dna_y)[0].name == "DNA"
    # UCI's Arrhythmia copy has 279 attributes (the paper counts 278) and 452 rows (the paper 420)
    assert identify(lfs_table1.PAPER, np.zeros((452, 279)), np.arange(452) % 13)[0].name == "ARR"


def test_a_refused_run_names_both_and_leaves_no_out(tmp_path, rng, capsys):
    X, y = rng.standard_normal((77, 30)), np.repeat(["a", "b"], [58, 19])
    path = _write(tmp_path / "small.csv.gz", X, y)
    out = tmp_path / "out"
    assert main(["experiment", "logo-microarray", "--data", str(path), "--paper-dataset", "DLBCL", "--quick",
                 "--out", str(out)]) == 2
    assert "small is 77 × 30, classes 19/58, not the paper's DLBCL (77 × 5469" in capsys.readouterr().err
    assert not out.exists()  # before: an empty --out was left behind


def test_list_shows_each_paper_data_set_with_its_flags_and_why(capsys):
    assert main(["experiment", "--list"]) == 0
    text = capsys.readouterr().out
    for protocol in PROTOCOLS:
        assert f"{protocol}: " in text
    assert "ARR              420 or 452 × 278 or 279  [--positive-class 1 --drop-missing 0.5 --impute median]" in text
    assert "DNA              3186 × 180, classes 765/767/1654  [--positive-class 3]" in text
    assert "43.68 %" in text and "49.70 %" in text  # the paper's figures that justify the classes
    assert "Wpbc" in text and "[--impute median]" in text
    assert main(["experiment", "logo-uci"]) == 2  # neither --data nor --list


def test_recommended_flags_apply_and_a_deviation_is_stated():
    arr = lfs_table1.PAPER["ARR"]
    given = {"positive_class": None, "impute": None, "drop_missing": None}
    flags, notes, comparable = resolve_flags(arr, given)
    assert flags == {"positive_class": "1", "impute": "median", "drop_missing": 0.5} and comparable
    assert notes[0].startswith("The paper's ARR: --positive-class 1, --drop-missing 0.5, --impute median applied")
    flags, notes, comparable = resolve_flags(arr, {**given, "impute": "mean"})
    assert flags["impute"] == "mean" and comparable
    assert "Deviation: --impute mean where the paper's ARR takes median." in notes
    flags, notes, comparable = resolve_flags(lfs_table1.PAPER["DNA"], {**given, "positive_class": 1})
    assert flags["positive_class"] == 1 and not comparable  # class 1 against the rest: not the paper's task
    assert resolve_flags(None, given) == (given, [], True)


def test_paper_flags_run_the_paper_version_and_a_deviation_is_stated(tmp_path, rng, monkeypatch):
    # a Wpbc-shaped file, 198 × 33 with 4 missing cells: refused without --impute, unless it is the paper's Wpbc
    X = rng.standard_normal((198, 33))
    X[[3, 50, 90, 150], 32] = np.nan
    y = np.repeat(["N", "R"], [151, 47])
    X[:, 0] += 5 * (y == "R")
    path = _write(tmp_path / "wpbc.csv.gz", X, y)
    with pytest.raises(ValueError, match="4 missing values"):
        run_experiment("nmmkl-uci", _write(tmp_path / "other.csv.gz", X[:, 1:], y), tmp_path / "x", quick=True,
                       progress=False)
    run_experiment("nmmkl-uci", path, tmp_path / "a", n_splits=1, quick=True, progress=False, paper_dataset="Wpbc")
    text = (tmp_path / "a" / "results.md").read_text()
    assert "- The paper's Wpbc: --impute median applied (recommended; Wpbc has 4 missing values" in text
    assert "## NMMKL, real-data protocol (Table 3: 80/20 splits, m features → linear SVM): wpbc (198 × 33), " \
           "the paper's Wpbc" in text
    # another positive class than the paper's is another task: its figures are not shown (the quick
    # run blanks them too, so run the full protocol's code on one split with the quick grid's cost)
    wpbc = nmmkl_uci.PAPER["Wpbc"]
    monkeypatch.setitem(nmmkl_uci.PAPER, "Wpbc", replace(wpbc, flags={**wpbc.flags, "positive_class": "R"}))
    monkeypatch.setattr(nmmkl_uci, "GRID", nmmkl_uci.QUICK_GRID)
    frame = run_experiment("nmmkl-uci", path, tmp_path / "b", n_splits=1, progress=False, impute="mean",
                           positive_class="N")
    text = (tmp_path / "b" / "results.md").read_text()
    assert "*Deviation: --impute mean where the paper's Wpbc takes median.*" in text  # under the table
    assert "*Deviation: --positive-class N where the paper's Wpbc takes R.*" in text
    assert "*Paper column blank: another positive class than the paper's is another task.*" in text
    assert frame.paper.isna().all() and "20.5 ± 4.8" not in text
    assert set(frame.dataset) == {"wpbc"}
    assert frame.loc[frame.method == "linear SVM, all features", "error_mean"].item() < 10  # majority: 22.5


def test_quick_runs_show_no_paper_figure_and_full_runs_do(data_dir, tmp_path):
    quick = run_experiment("logo-uci", data_dir / "heart.csv.gz", tmp_path / "q", quick=True, n_splits=1,
                           progress=False)
    text = (tmp_path / "q" / "results.md").read_text()
    assert quick.paper.isna().all() and "19.0 (5.2)" not in text and "0.3/1000" not in text
    assert "*Paper column blank: --quick runs fewer splits" in text
    assert (quick.loc[quick.method == "RBF SVM, all features", "note"].item()
            == "paper figure not shown: --quick is not the paper's protocol")
    full = run_experiment("logo-uci", data_dir / "heart.csv.gz", tmp_path / "f", n_splits=1, progress=False)
    text = (tmp_path / "f" / "results.md").read_text()
    assert full.loc[full.method == "RBF SVM, all features", "paper"].item() == "45.6 (3.4)"
    assert full.loc[full.method == "RBF SVM, all features", "n_selected"].item() == 13 + 5000
    assert "Paper column blank" not in text and "19.0 (5.2)" in text
    assert "0 warnings, 4 of 4 fits converged" in text  # LOGO and 3 baselines, all converged


def test_majority_row_takes_the_training_majority():
    y = np.array(list("aaab" "bbba"))
    row = majority_row("toy", y, [(np.arange(4), np.arange(4, 8)), (np.arange(4, 8), np.arange(4))])
    # split 1: 'a' (train majority) errs on 3 of 4 test rows; split 2: 'b' errs on 3 of 4; the test
    # rows' own majority would err on 1 of 4
    assert row["method"] == MAJORITY and row["error_mean"] == 75.0 and row["n_selected"] == 0


def test_permuted_labels_score_at_chance_beside_the_real_ones(data_dir, tmp_path):
    frame = run_experiment("logo-uci", data_dir / "heart.csv.gz", tmp_path, quick=True, n_splits=2,
                           progress=False, n_null=2).set_index("method")
    svm = frame.loc["RBF SVM, original features only (reference)"]
    majority = frame.loc[MAJORITY]
    assert svm.error_mean < 25 and abs(svm.chance - 50) < 10  # heart: 44 % majority-class error
    assert majority.chance == majority.error_mean  # permuting keeps the class counts
    assert frame.chance.notna().all() and (frame.chance_std >= 0).all()
    text = (tmp_path / "results.md").read_text()
    assert "| permuted labels |" in text and "on 2 permutations of the labels" in text
    assert len(pd.read_csv(tmp_path / "results.csv")) == len(frame)
    assert sum(1 for _ in open(tmp_path / "splits.jsonl")) == 2 * 3  # real + 2 permutations, 2 splits each


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
    assert "no 'label' column; name the class column with --label NAME" in capsys.readouterr().err
    assert not (out / "splits.jsonl").exists()
    with pytest.raises(ValueError, match="label column 'nope' not found"):
        run_experiment("nmmkl-uci", path, out, quick=True, progress=False, label="nope")
    frame = run_experiment("nmmkl-uci", path, out, quick=True, n_splits=1, progress=False, label="class")
    assert "recognised as the paper's Sonar" in (out / "results.md").read_text()


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
    assert frame[frame.method != MAJORITY].error_mean.max() < 45 < frame[frame.method == MAJORITY].error_mean.item()
    assert frame.loc[frame.method == "linear SVM, all features", "n_selected"].item() == 59  # column 5 dropped
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
    assert "12 of 14 fits converged" in text  # 7 fits a split (6 selectors at m = 10 and the SVM); L1-SVM's failed


def test_parallel_splits_give_the_serial_results(data_dir, tmp_path):
    args = dict(quick=True, n_splits=3, progress=False)
    serial = run_experiment("nmmkl-uci", data_dir / "ionosphere.csv.gz", tmp_path / "serial", **args)
    parallel = run_experiment("nmmkl-uci", data_dir / "ionosphere.csv.gz", tmp_path / "par", n_jobs=2, **args)
    cols = ["method", "n_selected", "error_mean", "error_std", "n_splits", "paper"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])
