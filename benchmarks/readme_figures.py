"""The README's timings, measured: its Set-up commands in a fresh clone and a fresh virtual
environment, then `fsopt bench --quick` and `fsopt verify --quick` in a fresh directory.

    python benchmarks/readme_figures.py            # measure, print the README's paragraph
    python benchmarks/readme_figures.py --write    # ... and put it in README.md

The clone is of the committed HEAD (uncommitted changes are not measured), alone in a new
temporary directory, with a new virtual environment (pip upgraded before the clock starts), as
`.ci/run` does.  The Set-up commands are read from README.md's block marked
``<!-- slow: run by benchmarks/readme_figures.py -->``, so what is timed is what the page
shows.  The paragraph says on what machine (cores, CPU model, load average at the start and the
end), when and at which commit; ``--write`` replaces the paragraph under
``<!-- figures: benchmarks/readme_figures.py -->`` in README.md.  Run it on an idle machine: it
runs the whole test suite once (the second Set-up command).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import date
from pathlib import Path

from fsopt.tools.docs_runner import read_page

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SCRIPT = "benchmarks/readme_figures.py"
MARKER = f"<!-- figures: {SCRIPT} -->"


def duration(seconds) -> str:
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60} s"


def machine() -> tuple[str, float]:
    """('2 cores (CPU model)', 1-minute load average)."""
    names = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
             if line.startswith("model name")] if Path("/proc/cpuinfo").exists() else []
    return f"{os.cpu_count()} cores ({names[0] if names else 'unknown CPU'})", os.getloadavg()[0]


def setup_commands() -> list[str]:
    blocks = [b for b in read_page(README).blocks if b.slow == SCRIPT]
    if len(blocks) != 1:
        raise SystemExit(f"README.md: expected one block marked 'slow: run by {SCRIPT}', found {len(blocks)}")
    return [line for line in blocks[0].body.splitlines() if line.strip()]


def timed(command, cwd, venv):
    """(seconds, output) of ``command`` run by bash in ``cwd`` with ``venv`` activated; exits on failure."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("FSOPT_")}
    t0 = time.perf_counter()
    proc = subprocess.run(["bash", "-c", f". {venv}/bin/activate && {command}"], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{command!r} exited {proc.returncode}:\n{proc.stdout[-4000:]}")
    print(f"{duration(seconds):>12}  {command}", flush=True)
    return seconds, proc.stdout


def measure() -> dict:
    """Every figure of the paragraph, from one run."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True, check=True).stdout.strip()
    cpu, load_start = machine()
    with tempfile.TemporaryDirectory(prefix="fsopt-readme-") as place:
        clone, venv, work = Path(place) / "fsopt", Path(place) / "venv", Path(place) / "work"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", head], check=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                       check=True)
        first, second = setup_commands()
        t_first, out_first = timed(first, clone, venv)
        t_second, out_second = timed(second, clone, venv)
        work.mkdir()
        t_bench, _ = timed("fsopt bench --quick --out bench-quick", work, venv)
        t_verify, _ = timed("fsopt verify --quick", work, venv)
    compiled = re.search(r"of which ([\d.]+) s compiling numba kernels", out_first)
    summary = re.findall(r"(\d+) (passed|skipped|failed|errors?)", out_second.splitlines()[-1])
    suite = re.search(r" in ([\d.]+)s", out_second.splitlines()[-1])
    return {"commit": head, "date": date.today().isoformat(), "cpu": cpu, "load_start": load_start,
            "load_end": machine()[1], "first": t_first, "second": t_second, "bench": t_bench,
            "verify": t_verify, "compile": float(compiled.group(1)) if compiled else None,
            "tests": [(int(n), word) for n, word in summary], "suite": float(suite.group(1)) if suite else None}


def paragraph(m) -> str:
    """The README's paragraph from the measurements ``m``."""
    compiled = (f" (numba's first compilation: {duration(m['compile'])})"
                if m["compile"] is not None else "")
    tests = ", ".join(f"{n} {word}" for n, word in m["tests"])
    total = sum(n for n, _ in m["tests"])
    suite = f"{total} tests: {tests}" + (f", in {duration(m['suite'])}" if m["suite"] is not None else "")
    text = (f"Measured by `{SCRIPT}` on {m['date']} ({m['commit']}; {m['cpu']}, load {m['load_start']:.1f} "
            f"at the start, {m['load_end']:.1f} at the end), fresh clone alone in its directory, fresh "
            f"virtual environment: the first command took {duration(m['first'])}, install included{compiled}; "
            f"the second {duration(m['second'])} ({suite}). In a fresh directory: `fsopt bench --quick` "
            f"{duration(m['bench'])}, `fsopt verify --quick` {duration(m['verify'])}.")
    return textwrap.fill(text, 100, break_long_words=False, break_on_hyphens=False)


def write(text):
    """Replace the paragraph under the figures marker of README.md with ``text``."""
    lines = README.read_text().split("\n")
    start = lines.index(MARKER) + 1
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    README.write_text("\n".join(lines[:start] + text.split("\n") + lines[end:]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the paragraph in README.md")
    args = parser.parse_args(argv)
    if MARKER not in README.read_text().split("\n"):
        raise SystemExit(f"README.md has no line {MARKER!r} to put the paragraph under")
    text = paragraph(measure())
    print("\n" + text)
    if args.write:
        write(text)
        print(f"\nwritten to {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
