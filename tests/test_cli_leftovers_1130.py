"""Leftovers of the command line:

1. a report of several lines on an output that cannot show its letters (PYTHONIOENCODING=ascii,
   LC_ALL=C with PYTHONUTF8=0) and Cyrillic tiles: ``leaves info``, ``leaves value``, ``lexicon
   info`` and ``lexicon check`` printed their first lines, then failed; now all of it or nothing on
   stdout, and the one line that says what to do (as ``moves`` does: tests/test_cli_terminals.py);
2. ``lexicon info -r RULESET`` of a KWG holding only a GADDAG told the counts of the graph
   racksmith builds from it, not those of the file (as it does without -r);
3. a pass in the tables of ``endgame --top`` and ``peg`` (and the ``best`` line): ``(pass)``, as the
   ``line:`` and the web page write it, not ``-``.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from racksmith.cli import common
from racksmith.cli.main import main
from racksmith.lexicon import Lexicon
from racksmith._cache import files_cache
from racksmith.lexicon import load as load_mod
from conftest import run_cli as run

FIXTURES = Path(__file__).parent / "fixtures"
GADDAG_ONLY = FIXTURES / "magpie_gaddag_only.kwg"
UNWRITABLE = "racksmith: the output's encoding (ascii) cannot show CYRILLIC "
REMEDY = ": set PYTHONIOENCODING=utf-8 or use a UTF-8 terminal"


def run_ascii(capsys, monkeypatch, *args) -> "tuple[int, bytes, str]":
    """racksmith with a strict ASCII stdout (a terminal without the letters): the exit code, every
    byte that reached stdout, and stderr."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    monkeypatch.setattr(sys, "stdout", out)
    # a console of its own: Rich keeps the text it failed to write in its buffer, for the next print
    monkeypatch.setattr(common, "out_console", Console(file=common._Results(), emoji=False))
    code = main([str(a) for a in args])
    out.flush()  # (what was written before a failure, still in the wrapper's buffer)
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, raw.getvalue(), err


def unwritable(err: str) -> bool:
    """Is ``err`` the one line of an output that cannot show a letter?"""
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith(UNWRITABLE) and lines[0].endswith(REMEDY)


# --- 1. all of a report, or none of it -------------------------------------------------------------
@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}],
                         ids=["PYTHONIOENCODING", "LC_ALL=C"])
def test_leaves_info_on_an_ascii_stdout_writes_nothing_and_says_why(env):
    """`leaves info russian` wrote its table of sizes (ASCII), then failed on the best leaves."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONIOENCODING", "LC_ALL", "LANG", "LC_CTYPE", "PYTHONUTF8", "RACKSMITH_ASCII")}
    r = subprocess.run([sys.executable, "-m", "racksmith", "leaves", "info", "russian"], capture_output=True,
                       env={**base, **env}, timeout=300)
    err = r.stderr.decode("ascii", "backslashreplace")
    assert (r.returncode, r.stdout) == (1, b""), err
    assert unwritable(err), err


def test_leaves_info_in_utf8_is_the_whole_report(capsys):
    code, out, _ = run(capsys, "leaves", "info", "russian", "--top", "2")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "russian (shipped set): 2,941,697 leaves"
    assert lines[1].split() == ["tiles", "leaves", "mean", "min", "max"] and lines[2].split()[:2] == ["1", "34"]
    assert lines[8].startswith("best:  ??") and lines[9].startswith("worst: ") and lines[10].startswith("trained: ")


@pytest.mark.parametrize("args", [
    ["leaves", "info", "russian", "--top", "2"],
    ["leaves", "value", "russian", "?", "ЁЖ"],  # ('?' alone is ASCII: it was written, then ЁЖ failed)
    ["lexicon", "info", "ru"],  # (the counts, then the embedded list's description failed)
    ["lexicon", "check", "ru", "AB", "ЁЖ"],  # ('AB: not in ru', then ЁЖ failed)
], ids=["leaves info", "leaves value", "lexicon info", "lexicon check"])
def test_a_report_with_letters_the_output_lacks_writes_none_of_it(capsys, monkeypatch, args):
    code, written, err = run_ascii(capsys, monkeypatch, *args)
    assert (code, written) == (1, b""), written
    assert unwritable(err), err


def test_reports_that_the_output_can_show_are_written_whole(capsys, monkeypatch):
    code, written, _ = run_ascii(capsys, monkeypatch, "leaves", "value", "english", "?", "QU", "ZZZ")
    assert code == 0 and [line.split(":")[0] for line in written.decode().splitlines()] == ["?", "QU", "ZZZ"]
    code, written, _ = run_ascii(capsys, monkeypatch, "lexicon", "check", "enable", "CAT", "CATX")
    assert code == 0 and written == b"CAT: valid\nCATX: not in enable\n"
    code, written, _ = run_ascii(capsys, monkeypatch, "leaves", "info", "english", "--top", "1")
    assert code == 0 and written.decode().splitlines()[0] == "english (shipped set): 914,624 leaves"


# --- 2. lexicon info -r of a GADDAG-only KWG: the file's counts ------------------------------------
@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A cache folder of the test's own, and no lexicon kept in memory from another test."""
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(load_mod, "_from_files", files_cache())
    return tmp_path / "cache"


FILE_FACTS = {"words": 6, "nodes": 77, "dawg_nodes": 0, "gaddag": True, "bytes": 308, "gaddag_only": True}


def test_lexicon_info_with_a_ruleset_counts_the_gaddag_only_file(capsys, fresh):
    """With -r english it said 82 nodes (328 bytes), 20 of them in the DAWG: the graph built."""
    code, plain, err = run(capsys, "lexicon", "info", GADDAG_ONLY)
    assert code == 0 and plain.startswith("magpie_gaddag_only: 6 words; 77 nodes (308 bytes), 0 of them in the DAWG")
    for flag in ("-r", "--ruleset"):
        load_mod._from_files.clear()  # (read anew: a lexicon recalled from memory is not noted again)
        code, out, err = run(capsys, "lexicon", "info", GADDAG_ONLY, flag, "english")
        assert (code, out) == (0, plain)
        assert err.count("holds only a GADDAG") == 1  # (the note once, not once for each read)
        code, out, _ = run(capsys, "lexicon", "info", GADDAG_ONLY, flag, "english", "--json")
        assert json.loads(out) == FILE_FACTS


def test_a_russian_gaddag_only_kwg_is_counted_as_the_file_with_its_ruleset(capsys, fresh, tmp_path):
    built = Lexicon.from_words(["КОТ", "ТОК", "КОТЫ", "ЁЖ"], "russian")
    nodes = built.kwg.copy()
    nodes[0] = 0x0040_0000  # (node 0 points to no DAWG: the GADDAG alone)
    path = tmp_path / "ru_gaddag.kwg"
    path.write_bytes(nodes.astype("<u4").tobytes())
    facts = {"words": 4, "nodes": len(nodes), "dawg_nodes": 0, "gaddag": True, "bytes": 4 * len(nodes),
             "gaddag_only": True}
    code, out, _ = run(capsys, "lexicon", "info", path, "--json")
    assert code == 0 and json.loads(out) == facts
    code, out, _ = run(capsys, "lexicon", "info", path, "-r", "russian", "--json")
    assert code == 0 and json.loads(out) == facts


# --- 3. a pass in the tables: (pass) ---------------------------------------------------------------
TINY_BOARD = ["......", ".-...'", "......", "......", "'...\".", "......"]
#: tests/test_endgame.py's "the pass is best": the pass (-4) above every placement, and it ends the game
PASS_BEST = "6/5E/1T1ErA/rATE2/AR4/S5 TSX/AER 15/12 1"
PEG141 = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
          "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> "tuple[Path, Path]":
    """tests/test_endgame.py's tiny ruleset (zero_turn_limit 2) as a file, and its words."""
    from test_endgame import WORDS

    folder = tmp_path_factory.mktemp("tiny")
    rules, words = folder / "tiny.json", folder / "tiny.txt"
    rules.write_text(json.dumps({
        "name": "tiny-pass", "board": TINY_BOARD, "blanks": 2, "rack_size": 3, "bingo_bonus": 5, "start": "4D",
        "tiles": [["A", 4, 1], ["E", 4, 1], ["T", 3, 2], ["S", 2, 1], ["R", 2, 2], ["X", 1, 5]],
        "exchange_limit": 3, "end_rule": "tournament", "zero_turn_limit": 2}), encoding="utf-8")
    words.write_text("".join(w + "\n" for w in WORDS if len(w) <= 6), encoding="utf-8")
    return rules, words


def cells(out: str) -> "list[list[str]]":
    """The cells of a table's rows."""
    return [[c.strip() for c in line.split("│")] for line in out.splitlines() if "│" in line]


def test_endgame_top_table_shows_a_pass_as_in_the_line(capsys, tiny):
    rules, words = tiny
    code, out, err = run(capsys, "endgame", PASS_BEST, "-r", rules, "-l", words, "--top", "3", "-q")
    assert code == 0 and err == ""
    rows = cells(out)
    assert rows[0] == ["1", "(pass)", "-4", "yes", "(pass)"]
    assert rows[1][:3] == ["2", "B2 S(TAR)", "-19"] and rows[1][4].startswith("B2 S(TAR) ")
    assert "-" not in [c for row in rows for c in row]
    assert "\nbest (pass)  value -4 (exact)\nline: (pass)\n" in "\n" + out
    # the JSON keeps the notation
    code, out, _ = run(capsys, "endgame", PASS_BEST, "-r", rules, "-l", words, "--top", "3", "-q", "--json")
    assert json.loads(out)["best"] == "-" and json.loads(out)["top"][0]["move"] == "-"


def test_endgame_depth_lines_show_a_pass_so_too(capsys, tiny):
    rules, words = tiny
    code, _, err = run(capsys, "endgame", PASS_BEST, "-r", rules, "-l", words)
    assert code == 0 and err.splitlines()[-1].endswith("  (pass)")


def test_peg_table_shows_a_pass_so_too(capsys):
    code, out, _ = run(capsys, "peg", PEG141, "--top", "3", "-q")
    rows = cells(out)
    assert code == 0 and [row[1] for row in rows] == ["K1 ETUI", "L1 (Q)UIT", "L11 TE(R)R(Y)", "(pass)"]
    assert rows[3][2] == "0"


@pytest.mark.parametrize("command", [["lexicon", "build", "w.txt", "-o", "w.kwg"], ["leaves", "build", "l.csv", "-o", "l.klv2"]])
def test_an_empty_ruleset_name_is_refused_not_read_as_english(tmp_path, monkeypatch, capsys, command):
    """A script's -r "$R" with R unset built an English file (`ruleset or "english"`)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.txt").write_text("cat\ndog\n")
    (tmp_path / "l.csv").write_text("A,1\n")
    assert main([*command, "-r", ""]) == 1
    assert "unknown ruleset ''" in capsys.readouterr().err and not (tmp_path / command[-1]).exists()
