"""LOGO from a chunked on-disk array (issue 11 "Past one machine"): the spiral streamed to an HDF5
(or zarr) file column block by column block, then fitted from the file in a fresh process.

    python benchmarks/logo_out_of_core.py --J 1000000 --path /work/tmp/spiral.h5 [--format zarr]
    python benchmarks/logo_out_of_core.py --J 10000000 --path ... --distances-only

Prints the write time, one JSON row per outer iteration as the fit goes (elapsed time, θ_t,
nonzero and active features, statistics / update / final-check seconds, dropped / re-entered,
top three features, peak RSS so far), then for the fit: time, outer iterations, time in the
statistics, peak RSS of the fitting process (X is never loaded: only a block of X, the N×N
matrices and z̄ of at most 1 GiB of columns are in memory), and whether the two relevant
features come out on top.
``--distances-only`` times one streamed pass of the weighted distances over all J columns
instead of a fit (the part of the statistics whose memory does not grow with J).
The file is deleted at the end unless ``--keep``.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

import numpy as np

N_PER_CLASS = 230


def write_spiral(path, J, fmt, width, dtype):
    """Columns 0, 1: the spiral of make_spiral; columns 2.. N(0, 1), block k drawn from seed (0, k).
    Never holds more than one (N, width) block."""
    from fsopt.datasets.spiral import make_spiral

    X2, y = make_spiral(N_PER_CLASS, 0, random_state=0)
    N, width = X2.shape[0], min(width, J)
    if fmt == "zarr":
        import zarr
        X = zarr.create_array(store=path, shape=(N, J), chunks=(N, width), dtype=dtype,
                              compressors=None, overwrite=True)
    else:
        import h5py
        X = h5py.File(path, "w").create_dataset("X", shape=(N, J), chunks=(N, width), dtype=dtype)
    for k, j0 in enumerate(range(0, J, width)):
        j1 = min(J, j0 + width)
        block = np.random.default_rng((0, k)).standard_normal((N, j1 - j0), dtype=np.float32)
        if k == 0:
            block[:, :2] = X2
        X[:, j0:j1] = block.astype(dtype, copy=False)
    if fmt != "zarr":
        X.file.close()
    return y


def open_store(path, fmt):
    if fmt == "zarr":
        import zarr
        return zarr.open_array(path, mode="r")
    import h5py
    return h5py.File(path, "r")["X"]


def fit_from_disk(path, fmt, solver):
    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    y = make_spiral(N_PER_CLASS, 0, random_state=0)[1]
    X = open_store(path, fmt)
    LOGO(solver=solver).fit(np.asarray(X[:, :50]), y)  # compile the kernels outside the timing
    t0 = time.perf_counter()
    history = []

    def log(it, w):  # one row per outer iteration, as the run goes (stderr)
        history.append({"it": it.iteration, "t_s": round(time.perf_counter() - t0, 1),
                         "change": it.change, "nonzero": int(np.count_nonzero(w)), "active": it.n_active,
                         "statistics_s": round(it.statistics_time, 1), "update_s": round(it.update_time, 1),
                         "check_s": round(it.check_time, 1), "dropped": it.n_dropped,
                         "reentered": it.n_reentered, "top": [int(j) for j in np.argsort(w)[-3:][::-1]],
                         "peak_GiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)})
        print(json.dumps(history[-1]), file=sys.stderr, flush=True)

    est = LOGO(sigma=2.0, lam=1.0, solver=solver, callback=log).fit(X, y)
    s = est.scores_
    return {"fit_s": time.perf_counter() - t0, "iterations": est.n_iter_, "history": history,
            "converged": bool(est.converged_),
            "statistics_s": sum(h.statistics_time for h in est.history_),
            "first_statistics_s": est.history_[0].statistics_time,
            "relevant_on_top": bool(set(np.argsort(s)[-2:]) == {0, 1} and s[2:].max() < 0.01),
            "top": [int(j) for j in np.argsort(s)[-3:][::-1]],
            "peak_GiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def distances_from_disk(path, fmt):
    from fsopt.logo.margins import weighted_manhattan

    X = open_store(path, fmt)
    weighted_manhattan(np.asarray(X[:, :50]), np.ones(50))  # compile
    t0 = time.perf_counter()
    weighted_manhattan(X, np.ones(X.shape[1]))
    return {"distances_s": time.perf_counter() - t0,
            "peak_GiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--J", type=int, default=1_000_000)
    ap.add_argument("--path", required=True)
    ap.add_argument("--format", choices=["hdf5", "zarr"], default="hdf5")
    ap.add_argument("--width", type=int, default=2**15, help="columns per on-disk chunk")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--solver", default="LBFGSB")
    ap.add_argument("--distances-only", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the data file")
    ap.add_argument("--reuse", action="store_true", help="fit an existing file (no write)")
    ap.add_argument("--child", choices=["fit", "distances"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        f = fit_from_disk(args.path, args.format, args.solver) if args.child == "fit" \
            else distances_from_disk(args.path, args.format)
        print(json.dumps(f))
        return
    try:
        if not args.reuse:
            t0 = time.perf_counter()
            write_spiral(args.path, args.J, args.format, args.width, args.dtype)
            gib = args.J * 2 * N_PER_CLASS * np.dtype(args.dtype).itemsize / 2**30
            print(f"wrote J={args.J:,} ({gib:.1f} GiB {args.dtype}, {args.format}, chunks of "
                  f"{args.width} columns) in {time.perf_counter() - t0:.0f} s", flush=True)
        child = "distances" if args.distances_only else "fit"
        out = subprocess.run([sys.executable, __file__, "--child", child, "--path", args.path,
                              "--format", args.format, "--solver", args.solver],
                             stdout=subprocess.PIPE, text=True)  # the child's per-iteration rows pass through
        if out.returncode:
            sys.exit(f"the {child} process failed (exit {out.returncode}); its error is above")
        print(json.dumps({"J": args.J, **json.loads(out.stdout.strip().splitlines()[-1])}))
    finally:
        if not args.keep and os.path.exists(args.path):
            shutil.rmtree(args.path) if os.path.isdir(args.path) else os.remove(args.path)


if __name__ == "__main__":
    main()
