"""The command line in unusual terminals: an output encoding without racksmith's symbols or box
lines (PYTHONIOENCODING=ascii, LC_ALL=C, latin-1 consoles), COLUMNS=0, a terminal narrower than a
table, stdout full or closed, RACKSMITH_ASCII=1."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from racksmith.cli import common
from racksmith.cli import main as cli_main
from racksmith.cli.plaintable import plain_lines
from test_cli_tables import tables

OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
RUSSIAN = "15/15/15/15/15/15/15/6КОТ6/15/15/15/15/15/15/15 ЁЖИКА?Р/ 0/0 0 ld russian;"
BOX = re.compile("[\u2500-\u257f]")


def cli(*args, env=None, **kw) -> subprocess.CompletedProcess:
    """racksmith in a process of its own, with ``env`` added to the environment; bytes out."""
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "RACKSMITH_ASCII", "PYTHONIOENCODING")}
    kw.setdefault("stdout", subprocess.PIPE)
    r = subprocess.run([sys.executable, "-m", "racksmith", *map(str, args)], stderr=subprocess.PIPE,
                       env={**base, **(env or {})}, timeout=120, **kw)
    assert b"Traceback" not in r.stderr, r.stderr.decode(errors="replace")
    return r


ASCII = {"PYTHONIOENCODING": "ascii"}


def table_lines(out: str) -> list[str]:
    """The lines of a table's head and rows (those with a column divider)."""
    return [line for line in out.splitlines() if "|" in line or "\u2502" in line or "\u2503" in line]


# --- 1. an output encoding without racksmith's symbols -------------------------------------------------
class _AsciiFile(io.StringIO):
    @property
    def encoding(self) -> str:
        return "ascii"


def rich_ascii_text(table: Table) -> str:
    """What Rich writes for ``table`` to a file whose encoding is ASCII (the ASCII box), as wide as it needs."""
    probe = Console(file=_AsciiFile(), width=80, emoji=False)
    needed = Measurement.get(probe, probe.options.update_width(1 << 20), table).maximum
    out = _AsciiFile()
    Console(file=out, width=max(80, needed), emoji=False, color_system=None).print(
        table, highlight=False, markup=False, soft_wrap=True)
    return out.getvalue()


@settings(max_examples=200, deadline=None)
@given(tables())
def test_plain_tables_on_an_ascii_output_are_what_rich_writes(table):
    """plain_lines drew the heavy head box whatever the output: `moves -n 150` under
    PYTHONIOENCODING=ascii failed on BOX DRAWINGS HEAVY VERTICAL where Rich draws ASCII."""
    console = Console(file=_AsciiFile(), emoji=False)
    lines = plain_lines(table, console)
    if lines is None:
        return
    assert "".join(line + "\n" for line in lines) == rich_ascii_text(table)


def test_a_long_table_on_an_ascii_output_has_an_ascii_box():
    r = cli("moves", OUTGUN, "-n", "150", env=ASCII)
    out = r.stdout.decode("ascii")
    assert r.returncode == 0
    lines = out.splitlines()
    assert len(lines) == 153 and re.fullmatch(r"-+(\+-+)+", lines[2])
    assert cli("moves", OUTGUN, "-n", "150").stdout.decode().translate({0x2503: "|", 0x2502: "|", 0x2547: "+", 0x2501: "-"}) == out


def test_racksmith_s_symbols_are_written_in_ascii_where_the_output_lacks_them():
    """`score` (1×3=3), `sim` (± s.e.) exited 1 after their work under PYTHONIOENCODING=ascii."""
    r = cli("score", OUTGUN, "-m", "J8 SOIREE", env=ASCII)
    out = r.stdout.decode("ascii")
    assert r.returncode == 0 and "I 1x3=3" in out and " x word " in out
    assert len({len(line) for line in table_lines(out)}) == 1  # (written in ASCII before the layout: aligned)
    r = cli("sim", OUTGUN, "-i", "50", env=ASCII)
    assert r.returncode == 0 and "+/- s.e." in r.stdout.decode("ascii")
    # latin-1 has × and ± (kept); the box is ASCII, as Rich draws it there
    r = cli("score", OUTGUN, "-m", "J8 SOIREE", env={"PYTHONIOENCODING": "latin-1"})
    out = r.stdout.decode("latin-1")
    assert r.returncode == 0 and "I 1×3=3" in out and not BOX.search(out)


def test_the_letters_of_the_game_are_not_transliterated():
    r = cli("moves", RUSSIAN, "-n", "3", env=ASCII)
    assert r.returncode == 1 and r.stdout == b""
    assert r.stderr.decode().startswith("racksmith: the output's encoding (ascii) cannot show CYRILLIC CAPITAL LETTER ")


def test_showable_leaves_letters_and_what_the_encoding_has():
    assert common.showable("± 1×3 ≥2 † … – — ┃━╇│ ЁЖ é", "ascii") == "+/- 1x3 >=2 + ... - - |-+| ЁЖ é"
    assert common.showable("± × ≥ é", "latin-1") == "± × >= é"
    assert common.showable("± × ≥ ┃", "utf-8") == "± × ≥ ┃"


def test_a_styled_cell_keeps_its_styles_around_what_replaces_a_symbol():
    cell = Text("I ")
    cell.append("1×3=3", style="bold")
    shown = common._showable_cell(cell, common._fallback_for("ascii"))
    assert shown.plain == "I 1x3=3"
    assert sorted((s.start, s.end) for s in shown.spans) == [(2, 3), (3, 4), (4, 7)]
    assert all(s.style == "bold" for s in shown.spans)
    assert common._showable_cell(cell, common._fallback_for("utf-8")) is cell


@pytest.mark.parametrize("command, encoding", [(["show"], "ascii"), (["score"], "latin-1"), (["validate"], "ascii"),
                                               ([], "ascii")])
def test_help_prints_on_any_output(command, encoding):
    """`show --help` and others exited 1 under PYTHONIOENCODING=ascii: their help held a Cyrillic example."""
    r = cli(*command, "--help", env={"PYTHONIOENCODING": encoding})
    assert r.returncode == 0 and b"Usage: " in r.stdout


def test_every_help_is_ascii():
    """Each command's help, on an ASCII stdout (typer's help console writes to it, strict)."""
    import click
    from typer.main import get_command
    from typer.testing import CliRunner

    from racksmith.cli.main import app

    def paths(command, prefix=()):
        yield prefix
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from paths(sub, (*prefix, name))

    runner = CliRunner(charset="ascii")
    for path in paths(get_command(app)):
        r = runner.invoke(app, [*path, "--help"])
        assert r.exit_code == 0 and "Usage" in r.stdout, (path, r.exception)


def test_json_on_an_output_that_is_not_utf8_is_ascii_json():
    r = cli("moves", RUSSIAN, "-n", "2", "--json", env=ASCII)
    assert r.returncode == 0
    assert r.stdout.isascii() and json.loads(r.stdout) == json.loads(cli("moves", RUSSIAN, "-n", "2", "--json").stdout)
    assert "Ё" in cli("moves", RUSSIAN, "-n", "2", "--json", env={"PYTHONIOENCODING": "UTF8"}).stdout.decode()


# --- 2. COLUMNS=0 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["show", OUTGUN], ["--help"], ["validate", OUTGUN, "-m", "J8 SOIREE"]])
def test_a_columns_of_0_is_ignored(args):
    """COLUMNS=0: Rich took a width of 0 and printed nothing, exit 0."""
    r = cli(*args, env={"COLUMNS": "0", "LINES": "0"})
    assert r.returncode == 0
    assert r.stdout.decode() == cli(*args).stdout.decode() != ""


def test_importing_the_command_line_leaves_the_environment_alone():
    """A program that imports racksmith.cli keeps its COLUMNS, however odd: only the command
    line's own run drops a bad one."""
    code = "import os, racksmith.cli.common, racksmith.cli.main; print(os.environ.get('COLUMNS'), os.environ.get('LINES'))"
    r = subprocess.run([sys.executable, "-c", code], env={**os.environ, "COLUMNS": "0", "LINES": "abc"},
                       capture_output=True, timeout=60)
    assert r.stdout.decode().split() == ["0", "abc"]


def test_bad_terminal_sizes_are_dropped(monkeypatch):
    for value, kept in (("0", False), ("-3", False), ("abc", False), ("", False), ("72", True)):
        monkeypatch.setenv("COLUMNS", value)
        cli_main._ignore_bad_terminal_size()
        assert (os.environ.get("COLUMNS") == value) is kept


# --- 3. a terminal narrower than a table ----------------------------------------------------------------
def in_terminal(monkeypatch, width: int, *args) -> str:
    from typer.testing import CliRunner

    from racksmith.cli.main import app

    screen = io.StringIO()
    monkeypatch.setattr(common, "out_console", Console(file=screen, force_terminal=True, width=width, emoji=False,
                                                       color_system=None))
    r = CliRunner().invoke(app, list(args))
    assert r.exit_code == 0, r.output
    return screen.getvalue()


def alnum(text: str) -> int:
    return sum(c.isalnum() for c in text)


@pytest.mark.parametrize("args, width, whole", [
    (["score", OUTGUN, "-m", "J8 SOIREE"], 40, True),
    (["sim", OUTGUN, "-i", "50", "--seed", "3"], 60, True),
    (["sim", OUTGUN, "-i", "50", "--seed", "3"], 40, False),
])
def test_a_narrow_terminal_cuts_no_cell_short(monkeypatch, args, width, whole):
    """At 40 columns `score` cut its words short ("OUTG…"), at 60 `sim` its numbers ("+52.…")."""
    wide = in_terminal(monkeypatch, 200, *args)
    narrow = in_terminal(monkeypatch, width, *args)
    assert "…" not in narrow  # (and no letter or digit lost:)
    assert alnum("".join(table_lines(narrow))) == alnum("".join(table_lines(wide)))
    assert all(len(line) <= width for line in narrow.splitlines() if BOX.search(line))
    if whole:  # room for each column's longest word: no number or word is broken
        tokens = set(re.findall(r"[^\s\u2502\u2503]+", narrow))
        assert set(re.findall(r"[+-]?\d+\.\d+|[A-Z()]{4,}", "\n".join(table_lines(wide)))) <= tokens


def test_columns_keep_their_numbers_whole_and_wrap_their_text_at_spaces():
    table = Table(title="t", show_edge=False)
    for name, justify in (("#", "right"), ("move", "left"), ("equity", "right"), ("statistic", "right")):
        table.add_column(name, justify=justify)
    for i in range(3):
        table.add_row(str(i + 1), "D8 (O)ORIE", "+52.125", "17.1")
    assert common._folded(table, Console(file=io.StringIO(), width=200)) is table  # (it fits: as it is)
    wide = Console(file=io.StringIO(), width=200, color_system=None)
    wide.print(table)
    for width, whole in ((32, True), (16, False)):
        console = Console(file=io.StringIO(), force_terminal=True, width=width, color_system=None)
        console.print(common._folded(table, console))
        out = console.file.getvalue()
        assert "…" not in out and alnum(out) == alnum(wide.file.getvalue())
        assert whole == all(w in out.split() for w in ("+52.125", "(O)ORIE", "D8", "17.1"))


def test_a_terminal_or_a_file_as_before_when_the_table_fits(monkeypatch):
    args = ["score", OUTGUN, "-m", "J8 SOIREE"]
    assert in_terminal(monkeypatch, 200, *args).count("\n") == 7


def test_a_real_narrow_terminal():
    """`racksmith score` in a pseudo-terminal of 40 columns (COLUMNS=40)."""
    import pty

    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "racksmith", "score", OUTGUN, "-m", "J8 SOIREE"], stdout=slave,
                             stderr=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "40", "TERM": "xterm"})
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert p.wait(timeout=60) == 0
    finally:
        os.close(master)
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode())
    assert "OUTGUNS" in out and "SOIREE" in out and "1×3=3" in out and "…" not in out
    assert all(len(line) <= 40 for line in out.splitlines() if BOX.search(line))


# --- 4. stdout full or closed ---------------------------------------------------------------------------
def closed_stdout(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "racksmith", *args],
                          stderr=subprocess.PIPE, timeout=60)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_version_on_a_full_disk_is_one_line():
    with open("/dev/full", "w") as full:
        r = cli("--version", stdout=full)
    assert r.returncode == 1 and r.stderr.decode() == "racksmith: No space left on device\n"


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["moves", "--help"]])
def test_version_and_help_on_a_closed_stdout_are_one_line(args):
    r = closed_stdout(*args)
    assert r.returncode == 1 and r.stderr.decode() == "racksmith: cannot write the results: stdout is closed\n"


def test_racksmith_alone_prints_its_help_and_nothing_on_stderr():
    r = cli()
    assert r.returncode == 2 and b"Usage: " in r.stdout and r.stderr == b""


# --- 6. RACKSMITH_ASCII=1 -------------------------------------------------------------------------------
def test_racksmith_ascii_draws_tables_and_symbols_in_ascii_and_keeps_the_letters():
    r = cli("score", OUTGUN, "-m", "J8 SOIREE", env={"RACKSMITH_ASCII": "1"})
    assert r.returncode == 0 and r.stdout.isascii() and b"I 1x3=3" in r.stdout
    assert cli("moves", OUTGUN, "-n", "150", env={"RACKSMITH_ASCII": "1"}).stdout == \
        cli("moves", OUTGUN, "-n", "150", env=ASCII).stdout
    r = cli("moves", RUSSIAN, "-n", "3", env={"RACKSMITH_ASCII": "1"})
    out = r.stdout.decode()
    assert r.returncode == 0 and "ЁЖИ" in out and not BOX.search(out)


@pytest.mark.parametrize("value, forced", [("1", True), ("yes", True), ("0", False), ("", False), (None, False)])
def test_racksmith_ascii_is_off_unset_empty_or_0(monkeypatch, value, forced):
    if value is None:
        monkeypatch.delenv("RACKSMITH_ASCII", raising=False)
    else:
        monkeypatch.setenv("RACKSMITH_ASCII", value)
    assert common.ascii_forced() is forced
    assert (common.out_console.encoding == "ascii") is forced  # (pytest's stdout is UTF-8)
