"""The documentation's slow shell blocks, run as printed (the test suite runs the others):

    python benchmarks/docs_slow.py --list                 # the blocks, their budgets
    python benchmarks/docs_slow.py                        # run every block marked for this script
    python benchmarks/docs_slow.py --only README.md extending.md:191
    python benchmarks/docs_slow.py --with ~/paper-data    # files the pages say you fetch yourself

Each block marked ``<!-- slow: run by benchmarks/docs_slow.py -->`` (or marked with the script
it runs itself: ``python benchmarks/x.py`` under ``slow: run by benchmarks/x.py``) runs in a
fresh temporary directory after its page's file blocks are written, exactly as
tests/test_docs_shell.py runs the others (fsopt.tools.docs_runner): exit codes and quoted outputs
are compared with the page's.  ``--with DIR`` links DIR's files into each block's directory
(reproductions.md's data sets that fsopt does not ship); a block that installs packages is
skipped unless ``--install`` is given.  Prints one line per block (PASS/FAIL, seconds, budget),
then the machine (cores, CPU, load average); exit 0 iff every block passed.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

from fsopt.tools.docs_runner import pages, read_page, run_block

ROOT = Path(__file__).resolve().parents[1]


def machine() -> str:
    """Cores, CPU model and load average, for the lines a timing is read with."""
    model = platform.processor() or "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        model = names[0] if names else model
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores ({model}), load average {load}"


def selected(only):
    """(page, block) of the blocks this script runs, or those ``only`` names (PAGE or PAGE:LINE)."""
    chosen = []
    for path in pages(ROOT):
        page = read_page(path)
        for block in page.blocks:
            if only:
                if any(name in (block.page.name, block.name) for name in only):
                    chosen.append((page, block))
            elif block.run_by_slow_script:
                chosen.append((page, block))
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    parser.add_argument("--only", nargs="+", metavar="PAGE[:LINE]",
                        help="these pages' or blocks' shell blocks (slow or not)")
    parser.add_argument("--install", action="store_true",
                        help="also run the blocks that install packages (into this environment)")
    parser.add_argument("--with", dest="data", type=Path, default=None, metavar="DIR",
                        help="link DIR's files into each block's directory")
    args = parser.parse_args(argv)
    chosen = selected(args.only)
    if args.list:
        for _, block in chosen:
            print(f"{block.name:22} budget {block.budget:6.0f} s  {block.body.splitlines()[0][:70]}")
        return 0
    print(f"{len(chosen)} blocks; {machine()}")
    failed = 0
    for page, block in chosen:
        if block.installs and not args.install:
            print(f"[SKIP] {block.name:22} installs packages into this environment (--install runs it)")
            continue
        with tempfile.TemporaryDirectory(prefix="fsopt-docs-") as work:
            if args.data is not None:
                for file in args.data.iterdir():
                    (Path(work) / file.name).symlink_to(file.resolve())
            run = run_block(block, page.files, work, ROOT)
        failed += not run.passed
        print(f"[{'PASS' if run.passed else 'FAIL'}] {block.name:22} {run.seconds:7.1f} s "
              f"(budget {block.budget:g} s)", flush=True)
        if not run.passed:
            print(run.report(), flush=True)
    print(f"\n{len(chosen) - failed}/{len(chosen)} blocks passed; {machine()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
