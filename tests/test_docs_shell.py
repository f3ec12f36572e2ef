"""Every fenced shell block of README.md and docs/*.md runs as printed in a fresh directory, after
its page's file blocks are written, and prints what the page quotes (docs/writing-docs.md); one
test per block.  Blocks marked ``<!-- slow: run by SCRIPT -->`` are left to SCRIPT."""
import importlib.util
import re
from pathlib import Path

import pytest

from fsopt.tools.docs_runner import (SLOW_SCRIPT, console_commands, output_matches, pages, read_page,
                                     run_block)

ROOT = Path(__file__).resolve().parents[1]
SUITE_BUDGET = 60.0  # seconds on an idle machine: the sum of the budgets of the blocks run here


def _read_all():
    found, errors = {}, []
    for path in pages(ROOT):
        try:
            found[path] = read_page(path)
        except ValueError as exc:
            errors.append(f"{path.relative_to(ROOT)}: {exc}")
    return found, errors


PAGES, PARSE_ERRORS = _read_all()
BLOCKS = [block for page in PAGES.values() for block in page.blocks]
SUITE = [block for block in BLOCKS if block.slow is None]


def test_every_page_parses():
    assert PARSE_ERRORS == []


@pytest.mark.parametrize("block", SUITE, ids=[block.name for block in SUITE])
def test_shell_block_runs_as_printed(block, tmp_path):
    run = run_block(block, PAGES[block.page].files, tmp_path, ROOT)
    assert run.passed, run.report()


def test_the_suite_runs_only_what_fits_its_budget():
    """The blocks run here declare at most SUITE_BUDGET seconds in all; the rest are marked slow."""
    total = sum(block.budget for block in SUITE)
    assert total <= SUITE_BUDGET, {block.name: block.budget for block in SUITE}


def test_each_slow_block_names_a_script_that_runs_it():
    for block in BLOCKS:
        if block.slow is not None:
            script = ROOT / block.slow
            assert script.is_file(), f"{block.name}: {block.slow} does not exist"
            assert block.run_by_slow_script or block.page.name in script.read_text(), \
                f"{block.name}: {block.slow} neither is {SLOW_SCRIPT}, nor is run by the block, nor reads " \
                f"{block.page.name}"


FIGURE = re.compile(r"\d(?:[\d.,]*\d)?\s?(?:s|ms|min|minutes|seconds|MB|GB)\b")
FIGURE_SCRIPT = re.compile(r"benchmarks/\w+\.py|\.ci/run|fsopt verify|fsopt bench|fsopt experiment")


def test_each_readme_figure_names_its_script():
    """A time or size the README quotes stands in a paragraph that names what measured it."""
    text = (ROOT / "README.md").read_text()
    prose = re.sub(r"^```.*?^```|<!--.*?-->", "", text, flags=re.S | re.M)
    unnamed = [p.strip()[:120] for p in re.split(r"\n\s*\n|\n(?=- )", prose)
               if FIGURE.search(p) and not FIGURE_SCRIPT.search(p)]
    assert unnamed == []


PAGE = """\
A file block, then what a command prints:

```python
# file: greet.py
import sys
print("hello", sys.argv[1])
print("took 0.42 s")
```

<!-- budget: 20 s -->
```console
$ python greet.py world
hello world
took ... s
$ python -c "print(7)"
7
```

<!-- exit: 3 -->
```bash
python -c "raise SystemExit(3)"
```
"""


def _run(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text)
    parsed = read_page(page)
    return [run_block(block, parsed.files, tmp_path / f"run{i}", ROOT) for i, block in enumerate(parsed.blocks)]


def test_a_page_as_printed_passes(tmp_path):
    runs = _run(tmp_path, PAGE)
    assert [r.passed for r in runs] == [True, True], [r.report() for r in runs]
    assert (tmp_path / "run0" / "greet.py").is_file()


@pytest.mark.parametrize("edit", [("hello world", "hello World"), ("\n7\n", "\n8\n"),
                                  ("exit: 3", "exit: 2"), ("took ... s", "took ... ms")])
def test_a_planted_edit_to_a_quoted_output_fails(tmp_path, edit):
    runs = _run(tmp_path, PAGE.replace(*edit))
    assert not all(r.passed for r in runs)


def test_a_planted_edit_to_a_quoted_fsopt_message_fails(tmp_path):
    """README's Troubleshooting quotes fsopt's messages in a block: one word changed fails it."""
    block = next(b for b in BLOCKS if b.page.name == "README.md" and "no such file" in b.body)
    planted = block.body.replace("no such file", "file not found")
    assert planted != block.body
    page = tmp_path / "page.md"
    page.write_text("\n".join(f"<!-- {k}: {v} -->" for k, v in block.markers.items())
                    + f"\n```console\n{planted}```\n")
    run = run_block(read_page(page).blocks[0], PAGES[block.page].files, tmp_path / "run", ROOT)
    assert not run.passed and "file not found" in run.problems[0]


def test_output_comparison():
    assert output_matches(["a ... c", "...", "z"], "a b c\nx\ny\n\nz\n")
    assert output_matches(["a   b"], "  a b  \n")
    assert not output_matches(["a", "z"], "a\nx\nz\n")  # no elision: every line is quoted
    assert not output_matches(["a ... c"], "a b\nc\n")  # an inline ... stays on its line


@pytest.mark.parametrize("text,message", [
    ("<!-- exits: 1 -->\n```bash\ntrue\n```\n", "unknown marker 'exits'"),
    ("<!-- slow: benchmarks/x.py -->\n```bash\ntrue\n```\n", "run by SCRIPT"),
    ("<!-- budget: fast -->\n```bash\ntrue\n```\n", "budget 'fast'"),
    ("```console\nfsopt solvers\n```\n", "starts with a '$ ' command line"),
    ("```bash\npip install -e .\n```\n", "installs packages"),
    ("<!-- exit: 1 -->\n```python\npass\n```\n", "they apply to shell blocks"),
])
def test_a_malformed_page_is_refused(tmp_path, text, message):
    page = tmp_path / "page.md"
    page.write_text(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        read_page(page)


def test_a_block_inside_a_list_item_runs_too(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("- a step:\n\n  <!-- exit: 1 -->\n  ```console\n  $ python -c 'print(1); exit(1)'\n  1\n  ```\n")
    [block] = read_page(page).blocks
    assert block.exit_code == 1 and block.commands()[0].expected == ("1",)
    assert run_block(block, {}, tmp_path / "run", ROOT).passed


def test_console_continuation_lines():
    commands = console_commands("$ echo a \\\n>   b\na b\n$ true\n")
    assert [c.text for c in commands] == ["echo a \\\n  b", "true"]
    assert commands[0].expected == ("a b",)


def test_the_figures_script_rewrites_only_its_paragraph(tmp_path, monkeypatch):
    """benchmarks/readme_figures.py --write: the paragraph it writes names it, replaces the old one
    only, and keeps the README short (measurements made up here; the script measures them)."""
    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "benchmarks" / "readme_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text())
    monkeypatch.setattr(figures, "README", readme)
    measured = {"commit": "0123abc", "date": "2026-11-27", "cpu": "2 cores (Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz)",
                "load_start": 0.05, "load_end": 0.4, "first": 35.2, "second": 508.0, "bench": 91.0, "verify": 75.0,
                "compile": 11.3, "tests": [(1851, "passed"), (3, "skipped")], "suite": 492.1}
    figures.write(figures.paragraph(measured))
    before, after = (ROOT / "README.md").read_text(), readme.read_text()
    assert "8 min 28 s (1854 tests: 1851 passed, 3 skipped, in 8 min 12 s)" in after
    assert before.split(figures.MARKER)[0] == after.split(figures.MARKER)[0]
    assert before.split("<!-- slow: run by benchmarks/readme_figures.py")[1] == \
        after.split("<!-- slow: run by benchmarks/readme_figures.py")[1]
    assert len(after.splitlines()) < 200 and FIGURE_SCRIPT.search(after.split(figures.MARKER)[1].split("\n\n")[0])
    assert [(b.body, b.markers) for b in read_page(readme).blocks] == \
        [(b.body, b.markers) for b in PAGES[ROOT / "README.md"].blocks]
