"""The README's Python examples run as written, and its commands match .ci/run."""
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if not (ROOT / "README.md").is_file():  # the tests run from a copy, against an installed racksmith
    pytest.skip("README.md is not beside the tests", allow_module_level=True)
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path, monkeypatch, capsys):
    # fixture paths in the README are relative to the repository root; files it writes go to tmp
    code = BLOCKS[index].replace('"tests/fixtures/', f'"{ROOT}/tests/fixtures/')
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"README.md block {index + 1}", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    # a comment "# => text  (remark)" after a print is what that print shows
    printed = out.splitlines()
    checked = 0
    for line in code.splitlines():
        m = re.match(r"\s*print\(.*\)\s+# => (.+?)(\s{2}\(.*\))?$", line)
        if m:
            assert m.group(1) in printed, f"README says {line.strip()!r} but the block printed:\n{out}"
            checked += 1
    assert checked == code.count("# =>")


TUTORIALS = sorted((ROOT / "docs" / "tutorials").glob("*.md"))
TUTORIAL_BLOCKS = [(p.name, i, b) for p in TUTORIALS
                   for i, b in enumerate(re.findall(r"```python\n(.*?)```", p.read_text(encoding="utf-8"), flags=re.S))]


def test_every_tutorial_has_python():
    assert {name for name, _, _ in TUTORIAL_BLOCKS} == {p.name for p in TUTORIALS} and len(TUTORIALS) == 6


@pytest.mark.slow
@pytest.mark.parametrize("name, index, code", TUTORIAL_BLOCKS, ids=[f"{n}-{i}" for n, i, _ in TUTORIAL_BLOCKS])
def test_tutorial_python_runs(name, index, code, tmp_path, monkeypatch):
    code = code.replace('"tests/fixtures/', f'"{ROOT}/tests/fixtures/')
    # the files a tutorial's earlier steps made (own-language.md: its ruleset file, a word list and
    # a leave file trained on 8 games), in the folder its Python runs in
    made = ROOT / "tests" / "fixtures" / "tutorials" / name.removesuffix(".md")
    for f in made.glob("*") if made.is_dir() else ():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{name} block {index + 1}", "exec"), {"__name__": "__tutorial__"})


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    test_cmd = next(c.strip() for c in commands if "pytest" in c)
    assert test_cmd in (ROOT / ".ci" / "run").read_text()
