"""GCG records as other programs write them (Woogles.io, Macondo, Quackle, Elise, hand editing)
read and replayed; what racksmith writes read by their readers; what it cannot play refused with
a message naming it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.core.turns import EventKind
from racksmith.errors import GCGError
from racksmith.formats.gcg import decode_gcg, parse_gcg, read_gcg
from racksmith.review.replay import replay_file, replay_text

REAL = Path(__file__).parent / "fixtures" / "gcg" / "macondo"

RUSSIAN = """\
#character-encoding windows-1251
#tile-distribution russian
#player1 аня Аня Иванова
#player2 борис Борис
>аня: АБВГДЕЖ 8H ДЕВА +10 10
>борис: КОТЁНОК 9G КОТ +13 13
"""


# --- encodings ------------------------------------------------------------------------------------
def test_declared_encodings_are_read_in_that_encoding(tmp_path):
    ru = tmp_path / "ru.gcg"
    ru.write_bytes(RUSSIAN.encode("cp1251"))  # was read as Latin-1: 'letter À is not in the alphabet'
    r = replay_file(ru)
    assert r.ok and r.ruleset.name == "russian" and r.final_scores() == {"аня": 10, "борис": 13}
    assert r.record.players[0].name == "Аня Иванова"
    koi = tmp_path / "koi.gcg"
    koi.write_bytes(RUSSIAN.replace("windows-1251", "KOI8-R").encode("koi8-r"))
    assert replay_file(koi).ok
    latin = tmp_path / "latin.gcg"
    latin.write_bytes("#character-encoding ISO-8859-1\n#player1 jörg Jörg\n".encode("latin-1"))
    assert read_gcg(latin).players[0].nick == "jörg"
    assert read_gcg(ru).gcg().startswith("#character-encoding UTF-8\n")  # written back as UTF-8


@pytest.mark.parametrize(
    "raw, line, words",
    [
        ("#character-encoding UTF-8\n#player1 c\xe9sar C\xe9sar\n".encode("latin-1"), 2,
         "the first line declares the encoding UTF-8, but byte 0xe9 is not UTF-8 text"),
        (b"#character-encoding EBCDIC-XYZ\n#player1 a A\n", 1, "unknown character encoding 'EBCDIC-XYZ'"),
        (b"#character-encoding base64\n#player1 a A\n", 1, "unknown character encoding 'base64'"),
        (b"#player1 a A\n#character-encoding windows-1251\n", 2,
         "'#character-encoding windows-1251' must be the first line of the file (it was read as UTF-8)"),
        (b"\xef\xbb\xbf#character-encoding KOI8-R\n", 1, "byte-order mark but its first line declares KOI8-R"),
    ],
)
def test_encodings_that_do_not_fit_are_refused_naming_the_line(raw, line, words):
    with pytest.raises(GCGError) as info:
        decode_gcg(raw)
    assert info.value.line == line and words in info.value.message


def test_an_encoding_line_further_down_that_agrees_is_accepted():
    assert decode_gcg(b"#player1 a A\n#character-encoding UTF-8\n") == "#player1 a A\n#character-encoding UTF-8\n"
    assert decode_gcg(b"\xef\xbb\xbf#character-encoding utf8\n#player1 a A\n").startswith("#character-encoding utf8")


def test_a_file_that_does_not_fit_its_declared_encoding_exits_1(capsys):
    assert main(["gcg", "replay", str(REAL / "name_weird_encoding_with_header.gcg")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "name_weird_encoding_with_header.gcg" in err and "declares the encoding ISO8859-6" in err


# --- lines as hand editors and other programs write them ------------------------------------------
def test_tabs_separate_pragma_words_too():
    text = "#player1\tdoug\tDoug Smith\n#player2\temely\tEmely\n#lexicon\tCSW21\n>doug:\tDINNVWY\t8D\tWINDY\t+32\t32\n"
    game = parse_gcg(text)  # was: '#player1\tdoug...' an unknown pragma, and one player only
    assert [(p.nick, p.name) for p in game.players] == [("doug", "Doug Smith"), ("emely", "Emely")]
    assert game.lexicon_name == "CSW21"
    assert replay_text(text).ok


def test_hashtags_and_indented_lines_stay_on_their_note():
    text = (REAL / "josh2.gcg").read_text("utf-8")
    game = parse_gcg(text)
    assert game.events[3].note == "K5 MID(LI)ST #knowledgemedium"
    mine = "#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n#note I saw\n#knowledgesad\nand then\n>b: - +0 0\n"
    g = parse_gcg(mine)  # '#knowledgesad' was a pragma, and 'and then' an unreadable line
    assert g.events[0].note == "I saw\n#knowledgesad\nand then" and not g.errors
    assert g.pragma("knowledgesad") is None


def test_notes_racksmith_writes_read_back_exactly():
    game = parse_gcg("#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n>b: - +0 0\n")
    game.events[0] = game.events[0].__class__(**{**_fields(game.events[0]), "note": "first\n#rack1 ABC\n>b: ZZZ 8A ZZ +1 1\nlast"})
    text = game.gcg()
    assert "\n #rack1 ABC\n >b: ZZZ 8A ZZ +1 1\n" in text
    again = parse_gcg(text)  # the indented lines were read as a pragma and an event
    assert again.events[0].note == game.events[0].note and len(again.events) == 2 and again.pragma("rack1") is None
    assert again.gcg() == text


def _fields(event) -> dict:
    return {name: getattr(event, name) for name in event.__dataclass_fields__}


def test_quackle_unknown_rack_on_a_challenge_line():
    text = RUSSIAN.split("\n", 1)[1] + ">борис: UNKNOWN (challenge) +5 18\n"
    r = replay_text(text)
    assert r.ok and r.final_scores()["борис"] == 18
    assert r.record.events[-1].rack == "UNKNOWN"
    assert ">борис: UNKNOWN (challenge) +5 18" in r.record.gcg()


# --- what racksmith writes, as the other programs read it -------------------------------------------
#: MAGPIE's event and player regular expressions (src/impl/gcg.c), POSIX classes written as Python's
MAGPIE = [re.compile(p) for p in (
    r"#player([1-2])\s+(\S+)\s+(.+)",
    r">(\S+):\s+(\S+)\s+([^\W_]+)\s+(\S+)\s+[+](\d+)\s+(-?\d+)",  # a play
    r">(\S+):\s+(\S+)\s+--\s+-(\d+)\s+(-?\d+)",  # a phony withdrawn
    r">(\S+):\s+(\S+)\s+-\s+\+0\s+(-?\d+)",  # a pass
    r">(\S+):\s+(\S*)\s+\(challenge\)\s+(\+\d+)\s+(-?\d+)",
    r">(\S+):\s+(\S+)\s+-(\S+)\s+\+0\s+(-?\d+)",  # an exchange
    r">(\S+):\s+\((\S+)\)\s+(\+\d+)\s+(-?\d+)",  # going out
    r">(\S+):\s+(\S*)\s+\(time\)\s+(-\d+)\s+(-?\d+)",
    r">(\S+):\s+(\S+)\s+\((\S+)\)\s+(-\d+)\s+(-?\d+)",  # the rack's value taken off
)]

EVERY_KIND = """\
#player1 doug
#player2 emely
>doug: AEJNOSV 8D JAVE +34 34
>emely: DEIILTZ E5 TIZ +24 24
>emely: DEIILTZ -- -24 0
>doug: ANOSSTU -ANOU +0 34
>emely: DEIILTZ -7 +0 0
>doug: ?SSTTUW - +0 34
>emely: ADEILRT 9F DIAL +10 10
>doug: (challenge) +5 39
>doug:  (time) -10 29
>emely: AEILPRT (AEILPRT) -9 1
>doug:  (OPEG) +14 43
"""


def test_every_line_racksmith_writes_matches_magpies_reader():
    text = parse_gcg(EVERY_KIND).gcg()
    lines = [ln for ln in text.splitlines() if ln.startswith((">", "#player"))]
    assert len(lines) == 13
    for ln in lines:
        assert any(p.match(ln) for p in MAGPIE), ln
    assert "#player1 doug doug\n#player2 emely emely\n" in text  # '#player1 doug' matched none: no full name
    assert ">doug:  (challenge) +5 39\n>doug:  (time) -10 29\n" in text  # one space after ':' matched none


def test_a_pragma_after_the_events_stays_after_them():
    text = (REAL / "incomplete4.gcg").read_text("utf-8")
    written = parse_gcg(text).gcg()
    assert written.endswith(">Player_1: AENNRSV O5 VANNERS +91 117\n#rack2 AEEIILZ\n")  # was moved into the header
    assert replay_text(written).cgp() == replay_text(text).cgp()


# --- names of rules racksmith cannot play ---------------------------------------------------------
@pytest.mark.parametrize(
    "header, line, words",
    [
        ("#game-type wordsmog", 1, "'#game-type wordsmog' is a variant racksmith does not play"),
        ("#game-type wordsmog_super", 1, "is a variant racksmith does not play"),
        ("#title t\n#lexicon FRA20", 2, "'#lexicon FRA20' is a French lexicon, and racksmith ships no french tiles"),
        ("#lexicon OSPS49", 1, "is a Polish lexicon"),
        ("#tile-distribution german\n#lexicon RD28", 1, "'#tile-distribution german' names no ruleset racksmith knows"),
    ],
)
def test_rules_racksmith_cannot_play_are_refused(header, line, words):
    with pytest.raises(GCGError) as info:  # they were read as English Scrabble
        parse_gcg(header + "\n#player1 a A\n>a: AEKNOQR 8D KRONA +28 28\n", strict=False)
    assert info.value.line == line and words in info.value.message


def test_names_that_say_the_ruleset():
    assert parse_gcg("#game-type classic_super\n").ruleset.name == "super"
    assert parse_gcg("#game-type classic\n#lexicon NWL23\n").ruleset.name == "english"
    assert parse_gcg("#lexicon ru\n").ruleset.name == "russian"
    assert parse_gcg("#lexicon FRA20\n#tile-distribution english\n").ruleset.name == "english"  # the distribution says
    assert parse_gcg("#lexicon FRA20\n", "english").ruleset.name == "english"  # a ruleset given wins
    with pytest.raises(GCGError, match="wordsmog"):
        parse_gcg("#game-type wordsmog\n", "english")  # but not over the variant


def test_the_cli_refuses_a_wordsmog_record_in_one_line(tmp_path, capsys):
    game = tmp_path / "smog.gcg"
    game.write_text("#game-type wordsmog\n#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n", "utf-8")
    for command in (["gcg", "replay"], ["gcg", "cgp"], ["analyze"]):
        assert main([*command, str(game)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "line 1: '#game-type wordsmog' is a variant racksmith does not play" in err
