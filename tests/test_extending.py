"""docs/extending.md, run as its first user would: its ``# file: NAME`` blocks saved as files, its
other python blocks run in order as one script, in a fresh directory, with the example plugin
package installed; and it touches no underscore name of fsopt.  Its shell commands run in
tests/test_docs_shell.py."""
import re
import subprocess
import sys
from pathlib import Path

from conftest import install_example

PAGE = Path(__file__).resolve().parents[1] / "docs" / "extending.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(), re.S | re.M)


def test_the_tutorial_uses_only_public_names():
    code = "\n".join(BLOCKS)
    private = sorted(set(re.findall(r"(?<![\w.])_[A-Za-z]\w*|\._[A-Za-z]\w*", code)))
    assert private == [], f"the tutorial names private names: {private}"
    assert len(BLOCKS) >= 6 and sum(b.startswith("# file: ") for b in BLOCKS) == 3


def test_the_tutorial_runs(tmp_path_factory):
    env = install_example("fsopt_irelief", tmp_path_factory.mktemp("irelief"))
    work = tmp_path_factory.mktemp("tutorial")
    script = []
    for block in BLOCKS:
        first, _, rest = block.partition("\n")
        if first.startswith("# file: "):
            (work / first.removeprefix("# file: ").strip()).write_text(rest)
        else:
            script.append(block)
    (work / "tutorial.py").write_text("\n".join(script))
    out = subprocess.run([sys.executable, "tutorial.py"], cwd=work, env=env, capture_output=True,
                         text=True, timeout=1500)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "I-RELIEF selects [0, 1]" in out.stdout
    assert out.stdout.count("berhu LOGO:") == 1, "the script runs once (no worker process imports it again)"
