"""The runs behind the README's tables of `fsopt experiment` (paper figure beside measured).

    nice -n 19 python benchmarks/paper_experiments.py [--out experiment-results] [--only lfs-table1]

Each entry is (protocol, data set, outer splits); the split counts are scaled down from the
papers' (LOOCV 62, 10, 30, 10) so that each run stays within about ten minutes on the shared 2-core machine; every results.md says so.
Writes OUT/<protocol>-<data>/results.{csv,md} (resumable: a killed run continues where it stopped)
and concatenates the Markdown, each table with its splits and wall-clock run time, into OUT/tables.md.
"""
import argparse
import time
from pathlib import Path

from fsopt.tools.experiments import run_experiment

RUNS = [("nmmkl-uci", "sonar", 3), ("nmmkl-uci", "wdbc", 2), ("nmmkl-uci", "ionosphere", 2),
        ("lfs-table1", "sonar", 2), ("logo-uci", "heart", 2), ("logo-microarray", "colon", 12),
        ("logo-uci", "twonorm", 2)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="experiment-results")
    parser.add_argument("--only", nargs="*", default=None, help="protocol or data set names")
    parser.add_argument("--jobs", type=int, default=1, help="outer splits in parallel")
    args = parser.parse_args(argv)
    tables = []
    for protocol, data, splits in RUNS:
        if args.only and protocol not in args.only and data not in args.only:
            continue
        out = Path(args.out) / f"{protocol}-{data}"
        t0 = time.perf_counter()
        run_experiment(protocol, data, out, n_splits=splits, n_jobs=args.jobs)
        seconds = time.perf_counter() - t0
        tables.append((out / "results.md").read_text()
                      + f"\nRun: {splits} outer splits, {seconds:.0f} s wall clock ({args.jobs} job(s)).\n")
        print(f"{protocol} {data}: {splits} splits, {seconds:.0f} s", flush=True)
    Path(args.out, "tables.md").write_text("\n".join(tables))
    print(f"tables in {args.out}/tables.md")


if __name__ == "__main__":
    main()
