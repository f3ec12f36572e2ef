"""The documentation: it builds without warnings, and its code runs.

- every ```python block of README.md and docs/*.md runs on its own, in a fresh namespace and an
  empty working directory (a block whose first line is ``# sketch: ...`` stands for user code: it
  is compiled, not run);
- every public docstring of the API has an example, and the examples pass as doctests;
- Sphinx builds the pages, the API reference and the notebooks (executed at build time, so the
  rendered pages carry their outputs) with warnings as errors;
- the built API page shows, for each documented callable, exactly the parameters of its signature.
"""
import doctest
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path


import nbformat
import pytest
from conftest import notebook_output_problems

import fsopt
from fsopt.core import checks, plugins, solvers
from fsopt.core.registry import scoped

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SCRIPTS = {ROOT / "docs" / "extending.md"}  # blocks that run in order as one script (test_extending.py)
BLOCKS = [(page, i, block) for page in PAGES if page not in SCRIPTS
          for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M))]
PUBLIC = [getattr(fsopt, name) for name in fsopt.__all__]


def test_readme_first_screen_leads():
    text = (ROOT / "README.md").read_text()
    first = text.splitlines()[:60]
    assert any(line.startswith("pip install -e . && fsopt run") for line in first)
    assert 'pip install -e ".[test]" && python -m pytest -n 2' in first
    assert any("my_data.csv" in line for line in first), "the own-data example is on the first screen"
    assert len(text.splitlines()) < 200


CHECK_API = {"check", "planted_bug", "patch", "probe", "wrap_backend", "blind_certificate", "Margins",
             "Outcome", "draws"}


def test_the_check_api_has_one_home():
    """Docs and examples import the check API from ``fsopt.verify`` only (it was given three ways)."""
    files = [*PAGES, *(ROOT / "examples").rglob("*.py"), *(ROOT / "examples").rglob("*.md")]
    elsewhere = []
    for file in files:
        for line in file.read_text().splitlines():
            found = re.search(r"from (fsopt(?!\.verify\b)[\w.]*) import (.*)", line)
            if found and CHECK_API & set(re.findall(r"\w+", found.group(2))):
                elsewhere.append(f"{file.relative_to(ROOT)}: {line.strip()}")
            if re.search(r"@fsopt\.(\w+\.)*check\b", line) and "@fsopt.verify.check" not in line:
                elsewhere.append(f"{file.relative_to(ROOT)}: {line.strip()}")
    assert elsewhere == []
    assert CHECK_API <= set(fsopt.verify.__all__) and not CHECK_API & set(fsopt.__all__)


def test_ci_runs_the_readme_setup_commands_in_a_fresh_clone():
    setup = (ROOT / "README.md").read_text().split("## Set-up", 1)[1].split("## ", 1)[0]
    commands = re.search(r"^```bash\n(.*?)^```", setup, re.S | re.M).group(1).splitlines()
    ci = (ROOT / ".ci" / "run").read_text()
    assert len(commands) == 2 and all(f"time ({command})" in ci for command in commands), commands
    steps = [ci.index(s) for s in ("git clone", 'cd "$CLONE"', *(f"time ({c})" for c in commands))]
    assert steps == sorted(steps), "the set-up commands run in the clone, after it is made"


@pytest.fixture
def registries():
    """What documentation code registers (backends, checks, probes, planted bugs, named callables)
    is forgotten after the test: the other tests of this process see fsopt's own registries."""
    with scoped(solvers.BACKEND_REGISTRY, checks.CHECKS, checks.PROBES, checks.BUGS,
                *plugins.REGISTRIES.values()):
        yield


@pytest.mark.parametrize("page,index,block", BLOCKS,
                         ids=[f"{p.relative_to(ROOT)}#{i}" for p, i, _ in BLOCKS])
def test_python_block_runs(page, index, block, tmp_path, monkeypatch, registries):
    monkeypatch.chdir(tmp_path)
    code = compile(block, f"{page.name} python block {index}", "exec")
    if block.startswith("# sketch:"):
        return
    exec(code, {"__name__": f"docs_block_{index}"})  # noqa: S102 - our own documentation


def test_readme_example_selects_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    block = next(b for p, _, b in BLOCKS if p.name == "README.md" and "my_data.csv" in b)
    namespace = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102
    logo = namespace["logo"]
    assert logo.converged_ and set(logo.get_feature_names_out()) <= set(namespace["X"].columns)
    assert 0 < logo.get_support().sum() < namespace["X"].shape[1]


@pytest.mark.parametrize("obj", PUBLIC, ids=lambda o: o.__name__)
def test_public_docstring_has_a_passing_example(obj, registries):
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, obj.__name__) if t.examples]
    assert tests, f"{obj.__name__}: no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:  # what the examples register is forgotten (fixture registries)
        runner.run(test)
    assert runner.failures == 0, f"{obj.__name__}: {runner.failures} failing example(s)"


NEEDS_SPHINX = pytest.mark.skipif(
    importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None,
    reason="sphinx and myst-nb are not installed (pip install -e '.[test]')")


@NEEDS_SPHINX
def test_docs_build_without_warnings_and_each_notebook_reads_clean(tmp_path):
    """One build, each notebook executed once (a fresh kernel, a temporary working directory):
    warnings are errors, and the outputs of every executed notebook read clean
    (``notebook_output_problems``); the notebooks are not executed a second time elsewhere."""
    out = tmp_path / "html"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("MPLBACKEND", None)  # the notebooks' kernels draw inline: figures become outputs
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(tmp_path / "doctrees"), "-c", "docs", ".", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "WARNING" not in proc.stderr and "without encryption" not in proc.stderr, proc.stderr[-4000:]
    page = (out / "notebooks" / "logo_spiral.html").read_text()
    assert "selected: [0 1]" in page, "the notebook page carries its printed output"
    assert "<img" in page, "the notebook page carries its figures"
    api = (out / "docs" / "api.html").read_text()
    for obj in PUBLIC:
        assert obj.__name__ in api
    executed = tmp_path / "jupyter_execute" / "notebooks"  # myst-nb writes them beside the HTML folder
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(p.name for p in executed.glob("*.ipynb")) == [p.name for p in notebooks]
    problems = [f"{p.name}: {problem}" for p in notebooks
                for problem in notebook_output_problems(nbformat.read(executed / p.name, as_version=4))]
    assert not problems, "\n".join(problems)


class Element:
    """An HTML element: its tag, attributes and children (elements and text)."""

    def __init__(self, tag, attrs):
        self.tag, self.attrs, self.children = tag, dict(attrs), []

    def elements(self):
        return [c for c in self.children if isinstance(c, Element)]

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


class PageTree(HTMLParser):
    """A built page as a tree of :class:`Element` (Sphinx closes every element it opens)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}

    def __init__(self, html):
        super().__init__()
        self.root = Element("page", {})
        self.open = [self.root]
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        element = Element(tag, attrs)
        self.open[-1].children.append(element)
        if tag not in self.VOID:
            self.open.append(element)

    def handle_endtag(self, tag):
        while len(self.open) > 1 and self.open.pop().tag != tag:
            pass

    def handle_data(self, data):
        self.open[-1].children.append(data)


def definitions(dl):
    """The (dt, dd) pairs of a <dl>."""
    items = dl.elements()
    return [(dt, dd) for dt, dd in zip(items, items[1:]) if dt.tag == "dt" and dd.tag == "dd"]


def shown_parameters(html):
    """{callable's id (e.g. "fsopt.LOGO.fit"): its "Parameters" field list, as (name, rest) pairs}: an
    entry's name is the bold text that opens it (an entry that opens with anything else is named
    by that), ``rest`` the text after it: " (type) – description" when numpydoc read it as meant."""
    shown = {}

    def visit(element, owner):
        classes = element.attrs.get("class", "").split()
        if element.tag == "dl" and "field-list" in classes:
            for dt, dd in definitions(element):
                if dt.text().strip().rstrip(":") != "Parameters":
                    continue
                entries = [li for ul in dd.elements() if ul.tag == "ul" for li in ul.elements()] or [dd]
                for entry in entries:
                    first = next(e for e in entry.elements() if e.tag == "p")
                    head = first.children[0]
                    if not (isinstance(head, Element) and head.tag == "strong"):
                        shown[owner].append((f"(no name: {str(head)[:30]!r})", ""))
                        continue
                    rest = first.text()[len(head.text()):]
                    shown[owner] += [(n.strip().lstrip("*"), rest) for n in head.text().split(",")]
        elif element.tag == "dl" and "py" in classes:  # an object: its signature, then its body
            callable_ = bool({"class", "exception", "function", "method"} & set(classes))
            for dt, dd in definitions(element):
                if callable_:
                    shown.setdefault(dt.attrs["id"], [])
                visit(dd, dt.attrs["id"] if callable_ else None)
        else:
            for child in element.elements():
                visit(child, owner)

    visit(PageTree(html).root, None)
    return shown


def documented_object(ident):
    obj = importlib.import_module(ident.split(".")[0])
    for name in ident.split(".")[1:]:
        obj = getattr(obj, name)
    return obj


def signature_parameters(obj):
    """The names a caller passes (``self`` left out; none for a class that keeps a builtin's
    constructor, e.g. a Warning subclass)."""
    try:
        params = list(inspect.signature(obj).parameters)
    except ValueError:
        return []
    return params[1:] if not isinstance(obj, type) and params[:1] == ["self"] else params


def named_in_api_md():
    """The ids of the objects docs/api.md's directives name, with the members each lists."""
    text = (ROOT / "docs" / "api.md").read_text()
    names = set()
    for obj, options in re.findall(r"^\.\. auto\w+:: (\S+)\n((?:   :.*\n)*)", text, re.M):
        names.add(obj)
        members = re.search(r":members: (.+)", options)
        if members:
            names.update(f"{obj}.{m.strip()}" for m in members.group(1).split(","))
    return names


@pytest.fixture(scope="module")
def api_page(tmp_path_factory):
    """docs/api.md built alone (no notebook runs: a few seconds); the full build is checked above."""
    out = tmp_path_factory.mktemp("api")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", "root_doc=docs/api",
                           "-D", "include_patterns=docs/api.md", "-d", str(out / "doctrees"), "-c", "docs",
                           ".", str(out / "html")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return (out / "html" / "docs" / "api.html").read_text()


@NEEDS_SPHINX
def test_api_page_shows_exactly_each_signature(api_page):
    """A line of prose inside a Parameters section that numpydoc reads as one more parameter, or a
    parameter left undocumented, fails here (as the estimators' did: 15 extra names for LOGO)."""
    shown = shown_parameters(api_page)
    assert named_in_api_md() - set(shown) == set(), "named in docs/api.md, absent from the page " \
        "(autodoc leaves out a member without a docstring)"
    wrong = {}
    for ident, entries in shown.items():
        names = [name for name, _ in entries]
        expected = signature_parameters(documented_object(ident))
        if names != expected:
            wrong[ident] = {"not in the signature": [n for n in names if n not in expected],
                            "not shown": [n for n in expected if n not in names]}
    assert not wrong, "\n".join(f"{ident}: {problems}" for ident, problems in wrong.items())


@NEEDS_SPHINX
def test_api_page_shows_a_type_then_a_description(api_page):
    """``name : description`` on one line renders the description as the type, in italics, and no
    description (as LOGO's ``sigma : kernel width of ...`` did); a type is short and has no
    sentence punctuation."""
    wrong = []
    for ident, entries in shown_parameters(api_page).items():
        for name, rest in entries:
            shown = re.match(r" \((?P<type>.*?)\) – \S| – \S", rest, re.S)  # "**kwargs – ..." has no type
            kind = shown and shown.group("type")
            if not shown or (kind and (len(kind) > 70 or re.search(r"[:;]|\. ", kind))):
                wrong.append(f"{ident} {name}:{rest[:80]!r}")
    assert wrong == []
