"""A one-word ``ld`` (CGP) or ``#tile-distribution`` (GCG) is read whole, as a ruleset's name is one
word: a ruleset file named ``english-2``, ``my-english`` or ``house-super`` writes its name, and
that position read without the file is refused naming the value (it was played as English or
Super, the name matched by its parts); a file named ``эрудит-2`` reads back as written (it picked up
``bb 50;``). The names other programs write, and names of several words, read as before. A
``bdn`` is read whole too; one that names no board racksmith knows is still ignored (other
programs' board names must not make a position unreadable; racksmith writes ``ld`` beside it)."""
from __future__ import annotations

import pytest

from racksmith import Position, Ruleset
from racksmith.cli.main import main
from racksmith.errors import CGPError, GCGError
from racksmith.formats.gcg import parse_gcg

from test_cgp_ruleset_files import EMPTY15, EMPTY21, other_board, other_values

RACK = "AEIKQRS/ 0/0 0"


@pytest.mark.parametrize("name, make", [("english-2", other_values), ("my-english", other_values),
                                        ("house-super", other_values), ("SuperPlain", other_board),
                                        ("эрудит-2", other_board), ("russian.v2", other_values)])
def test_a_ruleset_file_s_name_is_refused_without_the_file_and_reads_back_with_it(tmp_path, capsys, name, make):
    rs = Ruleset.load(make(tmp_path, name))
    cgp = Position.from_cgp(f"{EMPTY15} {RACK}", rs).cgp()
    named = rs.name  # (names are kept lower case)
    assert f" ld {named};" in cgp
    with pytest.raises(CGPError) as e:
        Position.from_cgp(cgp)
    message = str(e.value)
    assert message.startswith(f"CGP 'ld {named}' names no ruleset racksmith knows") and e.value.param == "ruleset"
    assert message.endswith(": pass the ruleset to use") and "file" not in message.partition("knows")[2]
    assert Position.from_cgp(cgp, rs).cgp() == cgp  # ('эрудит-2' picked up 'bb 50;')
    assert main(["show", cgp]) == 1
    assert "(with --ruleset: a ruleset's name or a .toml/.json ruleset file)" in capsys.readouterr().err
    with pytest.raises(GCGError, match=f"'#tile-distribution {named}' names no ruleset racksmith knows") as g:
        parse_gcg(f"#tile-distribution {named}\n#player1 a A\n")
    assert g.value.param == "ruleset"
    assert parse_gcg(f"#tile-distribution {named}\n#player1 a A\n", rulesets=(rs,)).ruleset is rs


@pytest.mark.parametrize("opcodes, name", [
    ("ld english;", "english"), ("ld English;", "english"), ("ld russian;", "russian"), ("ld Russian-Scrabble;", "russian"),
    ("ld erudit;", "erudit"), ("ld эрудит;", "erudit"), ("ld скрэббл;", "russian"),
    ("ld english (NASPA);", "english"),  # several words: read by the names they hold
    ("bdn CrosswordGame; ld english;", "english"), ("bdn english; ld english;", "english"),
    ("bdn x; ld english;", "english"), ("bdn x;", "english"), ("bdn house-super;", "english"),  # unknown boards: ignored
    ("lex NWL20;", "english"), ("lex ru;", "russian"),
])
def test_the_names_read_before_still_read(opcodes, name):
    cyrillic = name in ("russian", "erudit")
    cgp = f"{EMPTY15} {'АБ' if cyrillic else 'AB'}/ 0/0 0 {opcodes}"
    assert Position.from_cgp(cgp).ruleset.name == name


@pytest.mark.parametrize("opcodes", ["ld english_super;", "ld super;", "ld SuperScrabble;", "bdn SuperCrosswordGame;",
                                     "bdn super;", "bdn english_super;", "bdn Super Crossword Game;",
                                     "var classic_super;", "bdn SuperCrosswordGame; ld english_super;"])
def test_the_names_of_super_still_read(opcodes):
    assert Position.from_cgp(f"{EMPTY21} AB/ 0/0 0 {opcodes}").ruleset.name == "super"


def test_gcg_names_from_other_programs_still_read():
    assert parse_gcg("#tile-distribution Russian-Scrabble\n").ruleset.name == "russian"
    assert parse_gcg("#note LetterDistribution: English\n").ruleset.name == "english"
    assert parse_gcg("#note LetterDistribution: english_super\n").ruleset.name == "super"
    assert parse_gcg("#note BoardLayout: SuperCrosswordGame\n").ruleset.name == "super"
    assert parse_gcg("#board-layout my-super-board\n").ruleset.name == "english"  # (one word: no board racksmith knows)


def test_a_shipped_ruleset_s_name_as_bdn_names_its_board():
    """'bdn erudit' named no board (only names with 'super' in them did): it is Эрудит's board, which
    no ruleset plays the Russian tiles on."""
    with pytest.raises(CGPError, match="'bdn erudit' and 'ld russian' name the 15x15 board of erudit"):
        Position.from_cgp(f"{EMPTY15} АБ/ 0/0 0 bdn erudit; ld russian;")
    assert Position.from_cgp(f"{EMPTY15} АБ/ 0/0 0 bdn erudit; ld erudit;").ruleset.name == "erudit"
