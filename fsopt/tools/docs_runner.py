"""The pages as tests: every fenced shell block of README.md and docs/*.md runs as printed, in a
fresh directory, and what it quotes is what the command prints.

The conventions a page follows (docs/writing-docs.md):

- A fenced block whose first line is ``# file: NAME`` is a file the reader saves as NAME; a
  page's file blocks are written into the directory of each of its shell blocks first.
- A ```` ```console ```` block holds ``$ COMMAND`` lines, each followed by the lines it prints
  (none: not compared).  ``...`` inside a line stands for any text, a line of only ``...`` for
  any number of lines; blank lines and runs of spaces do not count.  A ```` ```bash ````,
  ```` ```sh ```` or ```` ```shell ```` block is one script (``bash -e -o pipefail``).
- ``<!-- KEY: VALUE -->`` lines just above the fence declare: ``exit: N`` (every command of
  the block exits N; default 0), ``budget: 30 s`` (the block's time on an idle machine; default
  10 s), ``setup: COMMAND`` (run first, silently: what the page made earlier, e.g. with its
  Python example) and ``slow: run by SCRIPT`` (left out of the test suite; SCRIPT runs it).
- A block that installs packages (``pip install``) is marked slow: the suite leaves its
  environment as it is.
- A block that names a path of the repository (``benchmarks/...``, ``examples/...``) runs
  where such a page's reader stands: at the root of a clone (a fresh directory holding links to
  the repository's top-level entries).

Only the standard library is used: the test suite and ``benchmarks/docs_slow.py`` import it.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SHELL_LANGUAGES = ("console", "bash", "sh", "shell")
MARKERS = ("exit", "budget", "setup", "slow")
DEFAULT_BUDGET = 10.0  # seconds, on an idle machine
SLOW_BUDGET = 3600.0  # a slow block that declares none
HANG_FACTOR = 4.0  # a block is stopped after this many times its budget (times the load per core)
SLOW_SCRIPT = "benchmarks/docs_slow.py"
ELLIPSIS = "..."
INSTALLS = re.compile(r"\b(pip|pip3|conda|apt-get|apt)\s+install\b")
REPOSITORY_PATH = re.compile(r"(?<![\w./-])(benchmarks|examples|notebooks|problems|solvers|tests|\.ci)/")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`{]*)")
_MARKER = re.compile(r"^<!--\s*([\w-]+):\s*(.*?)\s*-->\s*$")
_FILE = re.compile(r"^# file: (\S+)\s*$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True)
class Command:
    """One ``$`` line of a console block (continuation lines joined) and the lines printed under it."""

    text: str
    expected: tuple = ()


@dataclass
class ShellBlock:
    """A fenced shell block: where it is, its language and text, and its markers."""

    page: Path
    line: int  # of the opening fence, from 1
    language: str
    body: str
    markers: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.page.name}:{self.line}"

    @property
    def slow(self):
        """The script that runs this block instead of the test suite (None: the suite runs it)."""
        value = self.markers.get("slow")
        return None if value is None else value.removeprefix("run by ").strip()

    @property
    def installs(self) -> bool:
        """Whether the block installs packages (it changes the environment it runs in)."""
        return bool(INSTALLS.search(self.body))

    @property
    def run_by_slow_script(self) -> bool:
        """Whether benchmarks/docs_slow.py runs this block: marked for it, or a block that runs the
        script its marker names (``python benchmarks/x.py`` marked ``slow: run by benchmarks/x.py``)."""
        return self.slow is not None and (self.slow == SLOW_SCRIPT or self.slow in self.body)

    @property
    def budget(self) -> float:
        value = self.markers.get("budget")
        return (SLOW_BUDGET if self.slow else DEFAULT_BUDGET) if value is None else parse_seconds(value)

    @property
    def exit_code(self) -> int:
        return int(self.markers.get("exit", 0))

    @property
    def in_repository(self) -> bool:
        return bool(REPOSITORY_PATH.search(self.body + self.markers.get("setup", "")))

    def commands(self) -> list[Command]:
        """The commands: each ``$`` line of a console block, or the whole script of the others."""
        if self.language != "console":
            return [Command(self.body)]
        return console_commands(self.body, self.name)


@dataclass
class Page:
    path: Path
    files: dict  # {name: text} of its file blocks
    blocks: list  # its ShellBlocks


def parse_seconds(text) -> float:
    """``"30 s"``, ``"30"``, ``"2 min"`` -> seconds."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|min)?\s*", str(text))
    if not found:
        raise ValueError(f"budget {text!r}: expected seconds, e.g. '30 s' or '2 min'")
    return float(found.group(1)) * (60.0 if found.group(2) == "min" else 1.0)


def console_commands(body, where="console block") -> list[Command]:
    """The ``$ COMMAND`` lines of a console block, each with the output lines printed under it;
    a command line ending in a backslash continues on the next line (a leading ``> `` dropped)."""
    commands, text, expected, continued = [], None, [], False
    for line in body.splitlines():
        if continued:
            text += "\n" + line.removeprefix("> ")
        elif line.startswith("$ "):
            if text is not None:
                commands.append(Command(text, tuple(expected)))
            text, expected = line[2:], []
        elif text is None:
            if line.strip():
                raise ValueError(f"{where}: a console block starts with a '$ ' command line, not {line!r}")
            continue
        else:
            expected.append(line)
        continued = line.endswith("\\")
    if text is None:
        raise ValueError(f"{where}: a console block without a '$ ' command line")
    commands.append(Command(text, tuple(expected)))
    return commands


def read_page(path) -> Page:
    """A page's file blocks and shell blocks; a ValueError names a malformed marker or file block."""
    path = Path(path)
    lines = path.read_text().splitlines()
    files, blocks, i = {}, [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, marks = len(fence.group(1)), fence.group(2)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == marks), len(lines))
        body, language = [line[indent:] for line in lines[i + 1:end]], fence.group(3).lower()
        where = f"{path.name}:{i + 1}"
        named = _FILE.match(body[0]) if body else None
        if named:
            _add_file(files, named.group(1), "\n".join(body[1:]) + "\n", where)
        markers = _markers(lines, i, where)
        if language in SHELL_LANGUAGES:
            blocks.append(ShellBlock(path, i + 1, language, "\n".join(body) + "\n", markers))
            blocks[-1].commands()  # a malformed console block fails here, with its place
            if blocks[-1].installs and blocks[-1].slow is None:
                raise ValueError(f"{where}: the block installs packages, which the test suite must not do "
                                 f"to its environment: mark it <!-- slow: run by {SLOW_SCRIPT} -->")
        elif markers:
            raise ValueError(f"{where}: markers {sorted(markers)} above a {language or 'plain'} block: they "
                             f"apply to shell blocks ({', '.join(SHELL_LANGUAGES)}); a python block runs in "
                             f"tests/test_docs.py (show a slow one as a file block and `python FILE` in a "
                             f"shell block)")
        i = end + 1
    return Page(path, files, blocks)


def _add_file(files, name, text, where):
    if Path(name).is_absolute() or ".." in Path(name).parts:
        raise ValueError(f"{where}: file block {name!r}: a relative path inside the directory")
    if name in files and files[name] != text:
        raise ValueError(f"{where}: a second file block {name!r} with other content")
    files[name] = text


def _markers(lines, fence, where) -> dict:
    """The ``<!-- KEY: VALUE -->`` lines just above line ``fence``."""
    found, j = {}, fence - 1
    while j >= 0 and _MARKER.match(lines[j].strip()):
        key, value = _MARKER.match(lines[j].strip()).groups()
        if key not in MARKERS:
            raise ValueError(f"{where}: unknown marker {key!r} (known: {', '.join(MARKERS)})")
        if key in found:
            raise ValueError(f"{where}: marker {key!r} given twice")
        found[key] = value
        j -= 1
    if "slow" in found and not found["slow"].startswith("run by "):
        raise ValueError(f"{where}: write the slow marker as '<!-- slow: run by SCRIPT -->'")
    if "budget" in found:
        parse_seconds(found["budget"])
    if not re.fullmatch(r"-?\d+", found.get("exit", "0")):
        raise ValueError(f"{where}: exit {found['exit']!r} is not an exit code")
    return found


def pages(root) -> list[Path]:
    """README.md and docs/*.md of the repository at ``root``."""
    root = Path(root)
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def normalized(text) -> list[str]:
    """The printed lines as compared: escape codes and carriage-return overwrites dropped, runs of
    white space made one space, blank lines left out."""
    lines = (_ANSI.sub("", line).split("\r")[-1] for line in text.splitlines())
    return [" ".join(line.split()) for line in lines if line.strip()]


def output_matches(expected, printed) -> bool:
    """Whether ``printed`` is what the ``expected`` lines say (``...``: any text; a line of only
    ``...``: any lines)."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == ELLIPSIS else
                      r"[^\n]*?".join(map(re.escape, line.split(ELLIPSIS))) + r"\n"
                      for line in normalized("\n".join(expected)))
    return re.fullmatch(pattern, "".join(line + "\n" for line in normalized(printed))) is not None


def first_missing(expected, printed):
    """The first expected line (not ``...``) that no printed line matches, or None."""
    got = normalized(printed)
    for line in normalized("\n".join(expected)):
        if line == ELLIPSIS:
            continue
        one = re.compile(r".*?".join(map(re.escape, line.split(ELLIPSIS))))
        if not any(one.fullmatch(g) for g in got):
            return line
    return None


@dataclass
class BlockRun:
    """What running a block gave: its problems (none: it passed), its time and its transcript."""

    block: ShellBlock
    problems: list
    seconds: float
    transcript: str

    @property
    def passed(self) -> bool:
        return not self.problems

    def report(self) -> str:
        head = f"{self.block.name} ({self.seconds:.1f} s):\n  " + "\n  ".join(self.problems)
        return head + "\n--- what it printed (last 4000 characters) ---\n" + self.transcript[-4000:]


def time_limit(budget, factor=HANG_FACTOR) -> float:
    """Seconds after which a block is stopped: ``factor`` times its budget, times the load per
    core when the machine is busier than its cores (a hang is caught, a loaded machine is not)."""
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        load = 1.0
    return budget * factor * max(1.0, load)


def prepare(block, files, workdir, root):
    """The block's fresh directory: the page's file blocks, and links to the repository's
    top-level entries when the block names a path of the repository."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if block.in_repository:
        for entry in Path(root).iterdir():
            if entry.name not in (".git", "__pycache__") and not (workdir / entry.name).exists():
                (workdir / entry.name).symlink_to(entry)
    for name, text in files.items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def environment(root) -> dict:
    """The shell's environment: this repository's fsopt first on the path, no FSOPT_* setting
    of the caller, figures drawn off screen."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FSOPT_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(root), os.environ.get("PYTHONPATH")] if p)
    env["MPLBACKEND"] = "Agg"
    return env


def run_shell(script, workdir, env, seconds, options=()):
    """(exit code or None when stopped at ``seconds``, stdout and stderr as printed)."""
    proc = subprocess.Popen(["bash", *options, "-c", script], cwd=workdir, env=env, text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=max(seconds, 0.1))
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the command and whatever it started
        out, _ = proc.communicate()
        return None, out


def run_block(block, files, workdir, root, factor=HANG_FACTOR) -> BlockRun:
    """Run ``block`` as printed in ``workdir`` (fresh) after the page's ``files`` are written; each
    command's exit code and quoted output are compared with the page's."""
    prepare(block, files, workdir, root)
    env, limit = environment(root), time_limit(block.budget, factor)
    problems, transcript, t0 = [], [], time.perf_counter()
    steps = [(block.markers["setup"], None, 0, True)] if "setup" in block.markers else []
    options = () if block.language == "console" else ("-e", "-o", "pipefail")
    steps += [(c.text, c.expected, block.exit_code, False) for c in block.commands()]
    for script, expected, code, setup in steps:
        left = limit - (time.perf_counter() - t0)
        got, out = run_shell(script, workdir, env, left, () if setup else options)
        transcript.append(f"$ {script.strip()}\n{out}")
        what = f"setup {script!r}" if setup else f"{script.strip()!r}"
        if got is None:
            problems.append(f"{what}: stopped after {limit:.0f} s ({factor:g} x the block's budget of "
                            f"{block.budget:g} s, scaled by the load per core); declare a larger "
                            f"budget or mark it slow")
            break
        if got != code:
            problems.append(f"{what}: exit code {got}, the page says {code}")
        if expected and not output_matches(expected, out):
            missing = first_missing(expected, out)
            problems.append(f"{what}: the output differs from the page's"
                            + (f"; no printed line matches {missing!r}" if missing else
                               " (every quoted line is printed, but not in this order)"))
        if problems:
            break
    return BlockRun(block, problems, time.perf_counter() - t0, "".join(transcript))
