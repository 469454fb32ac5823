"""Two leftovers of the command line.

A word list or leave CSV spelled in another shipped ruleset's letters (Cyrillic), given with no
--ruleset, is refused naming the ruleset to give, read from stdin ('-', a pipe, read once) as from
a file: the hint was lost when the text came down a pipe, which cannot be read again.

A Ctrl-C while the ``racksmith`` command is still importing its modules ends it with exit code 130
and no traceback, as it does once a command runs. The interrupt is raised by an import hook (a
``sys.meta_path`` finder that a ``sitecustomize`` on PYTHONPATH installs), when the module named by
``RACKSMITH_TEST_INTERRUPT_AT`` is imported, rather than by timing a real signal."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

RUSSIAN_WORDS = "аба\nабажур\nабажурчик\nабзац\nабонемент\nкот\nмоло\nзерно\nлиса\nрыба\n"
#: leaves of Russian's tiles
RUSSIAN_LEAVES = "?,14.809395\n??,31.857618\n??А,36.47454\nА,1.5\nБВ,-2.25\nЁ,0.5\n"


def _racksmith(*args: str, stdin: "str | None" = None, cwd=None, env=None) -> subprocess.CompletedProcess:
    """``python -m racksmith ARGS``, ``stdin`` given down a pipe (one that cannot be read twice)."""
    return subprocess.run([sys.executable, "-m", "racksmith", *args], input=stdin, capture_output=True, text=True,
                          encoding="utf-8", cwd=cwd, env={**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})},
                          timeout=300)


def _same_but_source(from_file: subprocess.CompletedProcess, from_stdin: subprocess.CompletedProcess,
                     name: str) -> None:
    assert from_file.returncode == from_stdin.returncode == 1
    assert from_stdin.stderr == from_file.stderr.replace(repr(name), "stdin")
    assert "Traceback" not in from_stdin.stderr and from_stdin.stderr.count("\n") == 1


def test_lexicon_build_names_the_ruleset_of_a_cyrillic_word_list_from_a_file_and_from_stdin(tmp_path):
    (tmp_path / "ru.txt").write_text(RUSSIAN_WORDS, encoding="utf-8")
    from_file = _racksmith("lexicon", "build", "ru.txt", "-o", "f.kwg", cwd=tmp_path)
    from_stdin = _racksmith("lexicon", "build", "-", "-o", "s.kwg", stdin=RUSSIAN_WORDS, cwd=tmp_path)
    assert "the words are spelled in the letters of russian or erudit: give --ruleset russian or --ruleset " \
           "erudit" in from_file.stderr
    _same_but_source(from_file, from_stdin, "ru.txt")
    assert not (tmp_path / "f.kwg").exists() and not (tmp_path / "s.kwg").exists()


def test_lexicon_build_with_a_ruleset_given_names_no_other():
    """A ruleset given is the user's choice: the refusal says the list does not fit it, no more."""
    p = _racksmith("lexicon", "build", "-", "-o", "x.kwg", "-r", "english", stdin=RUSSIAN_WORDS)
    assert p.returncode == 1 and "outside the alphabet of english" in p.stderr
    assert "spelled in the letters of" not in p.stderr


def test_lexicon_build_from_stdin_with_the_ruleset_named(tmp_path):
    p = _racksmith("lexicon", "build", "-", "-o", "ru.kwg", "-r", "russian", stdin=RUSSIAN_WORDS, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "ru.kwg: 10 words" in p.stdout


def test_leaves_build_names_the_ruleset_of_a_cyrillic_csv_from_a_file_and_from_stdin(tmp_path):
    (tmp_path / "ru.csv").write_text(RUSSIAN_LEAVES, encoding="utf-8")
    from_file = _racksmith("leaves", "build", "ru.csv", "-o", "f.klv2", cwd=tmp_path)
    from_stdin = _racksmith("leaves", "build", "-", "-o", "s.klv2", stdin=RUSSIAN_LEAVES, cwd=tmp_path)
    assert "the leaves are spelled in the letters of russian" in from_file.stderr
    assert "give --ruleset russian" in from_file.stderr
    _same_but_source(from_file, from_stdin, "ru.csv")
    assert not (tmp_path / "f.klv2").exists() and not (tmp_path / "s.klv2").exists()


# --- Ctrl-C at start-up --------------------------------------------------------------------------

SITECUSTOMIZE = '''
import os, sys

_AT = os.environ.get("RACKSMITH_TEST_INTERRUPT_AT")


class _InterruptAt:
    """Raise KeyboardInterrupt, once, when module _AT is about to be imported (as a Ctrl-C then would)."""

    def find_spec(self, name, path=None, target=None):
        if name == _AT:
            sys.meta_path.remove(self)
            raise KeyboardInterrupt
        return None


if _AT:
    sys.meta_path.insert(0, _InterruptAt())
'''

#: what pip writes for ``racksmith = "racksmith.cli.main:run"`` (pyproject.toml's console script)
CONSOLE_SCRIPT = '''
import re
import sys
from racksmith.cli.main import run
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(run())
'''


@pytest.fixture
def interrupting(tmp_path):
    """Run the racksmith command (``script``: its console script; else ``python -m racksmith``)
    with a KeyboardInterrupt raised when module ``at`` is imported."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(textwrap.dedent(SITECUSTOMIZE))
    script = tmp_path / "bin" / "racksmith"
    script.parent.mkdir()
    script.write_text(CONSOLE_SCRIPT)

    def run(at: str, *args: str, console_script: bool = True) -> subprocess.CompletedProcess:
        path = os.pathsep.join(p for p in (str(hooks), os.environ.get("PYTHONPATH", "")) if p)
        command = [sys.executable, str(script)] if console_script else [sys.executable, "-m", "racksmith"]
        return subprocess.run([*command, *args], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              env={**os.environ, "PYTHONPATH": path, "RACKSMITH_TEST_INTERRUPT_AT": at})

    return run


def _quietly_130(p: subprocess.CompletedProcess) -> None:
    assert p.returncode == 130, (p.returncode, p.stderr[-600:])
    assert "Traceback" not in p.stderr and p.stderr.count("\n") <= 1 and len(p.stderr) < 100, p.stderr
    assert p.stdout == ""


def test_the_hook_raises_where_it_is_told(interrupting):
    """(The test's own check: with no such module imported, the command runs as ever.)"""
    p = interrupting("no.such.module", "lexicon", "check", "enable", "CAT")
    assert p.returncode == 0 and p.stdout == "CAT: valid\n"


@pytest.mark.parametrize("console_script", [True, False], ids=["console-script", "python-m"])
def test_ctrl_c_while_importing_the_command_line_exits_130_quietly(interrupting, console_script):
    _quietly_130(interrupting("racksmith.cli.main", "lexicon", "check", "enable", "CAT", console_script=console_script))


@pytest.mark.parametrize("at", [
    "click", "typer", "rich.console", "racksmith.cli.common", "racksmith.cli.lexicon_cmds",  # building the app
    "rich.progress", "racksmith.lexicon.sidecar",  # imported by the command as it runs
])
def test_ctrl_c_while_importing_at_command_time_exits_130_quietly(interrupting, tmp_path, at):
    (tmp_path / "en.txt").write_text("cat\ndog\n")
    _quietly_130(interrupting(at, "lexicon", "build", "en.txt", "-o", "en.kwg"))


def test_ctrl_c_while_importing_a_lazy_package_name_exits_130_quietly(interrupting):
    """A name of racksmith.training, imported at its first use (racksmith._lazy)."""
    _quietly_130(interrupting("racksmith.training.train", "leaves", "train", "-r", "english", "-n", "1", "-g", "1",
                              "-o", "t.klv2"))


@pytest.mark.parametrize("at", ["numpy", "racksmith.search"])
def test_ctrl_c_while_importing_the_racksmith_package_exits_130_quietly(interrupting, at):
    """The package's own imports (numpy, the searches: most of the start-up's time) come before
    racksmith.cli is imported."""
    _quietly_130(interrupting(at, "lexicon", "check", "enable", "CAT"))


def test_a_program_that_imports_racksmith_keeps_its_excepthook():
    code = "import sys, racksmith.cli.main; print(sys.excepthook is sys.__excepthook__)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout == "True\n", p.stderr


def test_a_program_of_its_own_named_racksmith_keeps_its_hook_and_exit_handlers(tmp_path):
    """Any program whose argv[0] was 'racksmith' was taken for the command: its Ctrl-C exited 130
    without its traceback and without its exit handlers (the hook left by os._exit)."""
    mine = tmp_path / "bin" / "racksmith"
    mine.parent.mkdir()
    mine.write_text("import atexit, sys\natexit.register(lambda: print('atexit ran'))\nimport racksmith\n"
                    "print(sys.excepthook is sys.__excepthook__)\nraise KeyboardInterrupt\n")
    p = subprocess.run([sys.executable, str(mine)], capture_output=True, text=True, timeout=300)
    assert p.stdout == "True\natexit ran\n" and "Traceback" in p.stderr and p.returncode != 130


def test_the_command_interrupted_at_start_up_runs_the_exit_handlers(interrupting, tmp_path):
    """(Handlers registered before the interrupt: the exit goes through them, as any exit does.)"""
    hooks = tmp_path / "hooks" / "sitecustomize.py"
    hooks.write_text(hooks.read_text() + "\nimport atexit\natexit.register(lambda: print('atexit ran'))\n")
    p = interrupting("racksmith.cli.main", "lexicon", "check", "enable", "CAT")
    assert p.returncode == 130 and p.stdout == "atexit ran\n" and "Traceback" not in p.stderr
