"""LFS beside LFSpy 1.0.4 on LFSpy's own test, one difference at a time (docs/reproductions.md).

    python benchmarks/lfs_lfspy.py --part sample [--seeds 20 0 1 2 3] [--rows 0 1 2]
    python benchmarks/lfs_lfspy.py --part real [--splits 5]
    python benchmarks/lfs_lfspy.py --part lfspy --lfspy-tau 1 --lfspy-nrrp 100

``sample``: LFSpy's test (its ``tests/matlab_Data.mat``: 100 training and 108 test rows, 160
features; LFSpy's defaults α = 19, R = 2000, τ = 2, γ = 0.2, σ = 1), read from the installed LFSpy
package (nothing is downloaded; without LFSpy the part says so and stops).  Each row changes one
choice (``LFS`` options) and fits once per seed; the expected accuracy and predictions are read
from LFSpy's installed ``tests/test_lfs.py``.
``real``: Sonar and WDBC (shipped with fsopt) in the LFS paper's protocol of ``fsopt experiment
lfs-table1`` (stratified random splits of 100 training rows and the paper's test sizes, 100
irrelevant N(0, 1) features per split, z-scored on the training part) at α = 19, R = 2000.
``lfspy``: LFSpy itself (``rr_seed`` = the first seed) beside ``variant="lfspy"`` at the same τ and R
on the sample: the points whose selected sets agree, and both predictions against LFSpy's expected
ones (LFSpy's code needs numpy < 2's ``np.msort`` and ``np.Inf``: this part supplies them).
"""
import argparse
import ast
import importlib.util
import time
from pathlib import Path

import numpy as np
from scipy.io import loadmat
from sklearn.preprocessing import StandardScaler

from fsopt.core.scaling import unit_scale
from fsopt.datasets import load_dataset
from fsopt.lfs import LFS
from fsopt.tools.experiments.lfs_table1 import PAPER
from fsopt.tools.experiments.splits import random_splits, with_irrelevant

# LFSpy's settings; the LPs by HIGHSPY, as measured before BOXLP became LFS's default (its vertex
# among tied optima differs: the last row)
LFSPY_DEFAULTS = dict(alpha=19, n_rounding=2000, solver="HIGHSPY")
# (label, LFS options beyond LFSpy's defaults): one difference from the paper's choices at a time
ROWS = [
    ("fsopt's defaults (α = 5, R = 1000)", dict(alpha=5, n_rounding=1000)),
    ("paper choices, α = 19, R = 1000", dict(n_rounding=1000)),
    ("paper choices, α = 19, R = 2000 (LFSpy's settings)", {}),
    ("… + weight_kernel='gaussian' (LFSpy's eq. 10)", dict(weight_kernel="gaussian")),
    ("… + rounding='common' (LFSpy's draws)", dict(rounding="common")),
    ("… + predict_radius='lfspy'", dict(predict_radius="lfspy")),
    ("… + fallback_vote='own_class'", dict(fallback_vote="own_class")),
    ("variant='lfspy' (the four together)", dict(variant="lfspy")),
    ("variant='lfspy', σ in X's own units (σ = 1/s²)", dict(variant="lfspy", sigma="raw")),
    ("variant='lfspy', σ = 1/s², LPs by an interior-point solver (Clarabel)",
     dict(variant="lfspy", sigma="raw", solver="CLARABEL", eps_solver="CLARABEL")),
    ("variant='lfspy', LPs by LFS's default BOXLP", dict(variant="lfspy", solver="BOXLP")),
]
REAL_ROWS = (2, 3, 4, 5, 6, 7)


def lfspy_files():
    """(matlab_Data.mat, test_lfs.py) of the installed LFSpy, or None."""
    spec = importlib.util.find_spec("LFSpy")
    if spec is None or spec.origin is None:
        return None
    tests = Path(spec.origin).parent / "tests"
    files = tests / "matlab_Data.mat", tests / "test_lfs.py"
    return files if all(f.is_file() for f in files) else None


def expected_outputs(test_file):
    """LFSpy's expected score and predictions on its sample: the first ``expected_score`` and
    ``expected_preds`` assignments of its ``tests/test_lfs.py`` (the 'sample' branch)."""
    found = {}
    for node in ast.walk(ast.parse(Path(test_file).read_text())):
        name = node.targets[0].id if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) else None
        if name in ("expected_score", "expected_preds"):
            found.setdefault(name, ast.literal_eval(node.value))
    return float(found["expected_score"]), np.array(found["expected_preds"])


def lfspy_sample():
    """(X, y, X_test, y_test, expected_score, expected_preds) from the installed LFSpy, or None."""
    files = lfspy_files()
    if files is None:
        return None
    mat = loadmat(files[0])
    score, preds = expected_outputs(files[1])
    return (mat["Train"].T, mat["TrainLables"][0].astype(int), mat["Test"].T,
            mat["TestLables"][0].astype(int), score, preds)


def options(row, X):
    """The row's LFS options; σ = "raw" puts σ = 1 in X's own units (fsopt measures in X / s)."""
    opts = {**LFSPY_DEFAULTS, **row}
    if opts.get("sigma") == "raw":
        opts["sigma"] = 1.0 / unit_scale(X) ** 2
    return opts


def fit_predict(opts, seed, X, y, Xt):
    t0 = time.perf_counter()
    est = LFS(n_jobs=1, random_state=seed, **opts).fit(X, y)
    return est, est.predict(Xt), time.perf_counter() - t0


def sample_table(seeds, rows):
    data = lfspy_sample()
    if data is None:
        print("LFSpy is not installed (pip install LFSpy==1.0.4): its sample is not available.")
        return
    X, y, Xt, yt, score, expected = data
    print(f"LFSpy's sample: {X.shape[0]} training, {Xt.shape[0]} test rows, {X.shape[1]} features; "
          f"LFSpy's expected accuracy {100 * score:.2f} %; seeds {seeds}\n")
    print("| row | accuracy % (mean ± std) | min–max | predictions = LFSpy's expected (mean of "
          f"{yt.size}) | seeds with all equal | test rows in no sphere (fallback vote) | fit s (mean) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        label, row = ROWS[r]
        acc, same, secs, outside = [], [], [], 0
        for seed in seeds:
            est, pred, t = fit_predict(options(row, X), seed, X, y, Xt)
            outside += int(np.sum(~(est.similarity(Xt)[0] > 0).any(axis=1)))
            acc.append(100 * np.mean(pred == yt))
            same.append(int(np.sum(pred == expected)))
            secs.append(t)
        print(f"| {label} | {np.mean(acc):.2f} ± {np.std(acc):.2f} | {min(acc):.2f}–{max(acc):.2f} | "
              f"{np.mean(same):.1f} | {sum(s == yt.size for s in same)} of {len(seeds)} | {outside} | "
              f"{np.mean(secs):.1f} |", flush=True)


def real_sets():
    """Sonar and WDBC as the lfs-table1 protocol names them, with the paper's test sizes."""
    for name, paper in (("sonar", PAPER["Sonar"]), ("wdbc", PAPER["Breast"])):
        X, y = load_dataset(name)
        yield paper.name, X, np.unique(y, return_inverse=True)[1], paper


def real_table(n_splits, rows, seed=0):
    sets = list(real_sets())
    print(f"{n_splits} stratified splits (seed {seed}), 100 training rows, the paper's test sizes, "
          "100 irrelevant N(0,1) features per split, z-scored on the training part; α = 19, R = 2000; "
          "test error %, mean ± std\n")
    print("| row | " + " | ".join(f"{name} (paper {paper.figures['LFS']})" for name, _, _, paper in sets) + " |")
    print("|---|" + "---:|" * len(sets))
    for r in rows:
        label, row = ROWS[r]
        cells = []
        for _, X, y, paper in sets:
            errs = []
            for split, (train, test) in enumerate(random_splits(y, n_splits, paper.train, seed, paper.test)):
                Xs = with_irrelevant(X, 100, seed, split)
                scaler = StandardScaler().fit(Xs[train])
                Xtr, Xte = scaler.transform(Xs[train]), scaler.transform(Xs[test])
                _, pred, _ = fit_predict(options(row, Xtr), split, Xtr, y[train], Xte)
                errs.append(100 * np.mean(pred != y[test]))
            cells.append(f"{np.mean(errs):.2f} ± {np.std(errs):.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def lfspy_beside(seed, tau, nrrp):
    """LFSpy's own fit beside variant='lfspy' at the same settings (σ in X's units)."""
    data = lfspy_sample()
    if data is None:
        print("LFSpy is not installed (pip install LFSpy==1.0.4): its sample is not available.")
        return
    X, y, Xt, yt, _, expected = data
    for name, value in (("msort", lambda a: np.sort(a, axis=0)), ("Inf", np.inf)):
        if not hasattr(np, name):  # removed in numpy 2; LFSpy 1.0.4 still calls them
            setattr(np, name, value)
    from LFSpy import LocalFeatureSelection
    t0 = time.perf_counter()
    ref = LocalFeatureSelection(rr_seed=seed, tau=tau, nrrp=nrrp)
    ref.fit(X, y)  # LFSpy's fit returns None
    t_ref = time.perf_counter() - t0
    ref_pred = ref.predict(Xt)
    opts = options(dict(variant="lfspy", sigma="raw", tau=tau, n_rounding=nrrp), X)
    est, pred, t_lfs = fit_predict(opts, seed, X, y, Xt)
    same_sets = np.all(est.fstar_ == ref.fstar.T.astype(bool), axis=1)
    print(f"LFSpy 1.0.4 (rr_seed={seed}, tau={tau}, nrrp={nrrp}) beside LFS(variant='lfspy', σ = 1/s², "
          f"τ = {tau}, R = {nrrp}, random_state={seed})\n")
    print("| | LFSpy | LFS variant='lfspy' |\n|---|---:|---:|")
    print(f"| accuracy % | {100 * np.mean(ref_pred == yt):.2f} | {100 * np.mean(pred == yt):.2f} |")
    print(f"| predictions = LFSpy's expected (of {yt.size}) | {np.sum(ref_pred == expected)} | "
          f"{np.sum(pred == expected)} |")
    print(f"| predictions = LFSpy's own here | {yt.size} | {np.sum(pred == ref_pred)} |")
    print(f"| points with the same selected set | {y.size} | {np.sum(same_sets)} |")
    print(f"| fit s (one thread) | {t_ref:.1f} | {t_lfs:.1f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["sample", "real", "lfspy"], default="sample")
    parser.add_argument("--seeds", type=int, nargs="+", default=[20, 0, 1, 2, 3])
    parser.add_argument("--rows", type=int, nargs="+", help="indices into ROWS (default: all; real: 2-7)")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--lfspy-tau", type=int, default=2)
    parser.add_argument("--lfspy-nrrp", type=int, default=2000)
    args = parser.parse_args(argv)
    if args.part == "sample":
        sample_table(args.seeds, args.rows or range(len(ROWS)))
    elif args.part == "real":
        real_table(args.splits, args.rows or REAL_ROWS)
    else:
        lfspy_beside(args.seeds[0], args.lfspy_tau, args.lfspy_nrrp)


if __name__ == "__main__":
    main()
