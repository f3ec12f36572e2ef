"""The runs behind the README's tables of `fsopt experiment` (paper figure beside measured).

    nice -n 19 python benchmarks/paper_experiments.py [--out experiment-results] [--only lfs-table1]

Each entry is (protocol, data set, outer splits); the split counts are scaled down from the
papers' (LOOCV 62, 10, 30, 10) because the machine's 2 cores are shared; every results.md says so.
Writes OUT/<protocol>-<data>/results.{csv,md} and concatenates the Markdown into OUT/tables.md.
"""
import argparse
from pathlib import Path

from fsopt.tools.experiments import run_experiment

RUNS = [("logo-microarray", "colon", 24), ("logo-uci", "heart", 3), ("logo-uci", "twonorm", 3),
        ("nmmkl-uci", "sonar", 4), ("nmmkl-uci", "wdbc", 2), ("lfs-table1", "sonar", 3)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="experiment-results")
    parser.add_argument("--only", nargs="*", default=None, help="protocol or data set names")
    args = parser.parse_args(argv)
    tables = []
    for protocol, data, splits in RUNS:
        if args.only and protocol not in args.only and data not in args.only:
            continue
        out = Path(args.out) / f"{protocol}-{data}"
        run_experiment(protocol, data, out, n_splits=splits)
        tables.append((out / "results.md").read_text())
    Path(args.out, "tables.md").write_text("\n".join(tables))
    print(f"tables in {args.out}/tables.md")


if __name__ == "__main__":
    main()
