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
        (b"#character-encoding undefined\n#player1 a A\n", 1, "unknown character encoding 'undefined'"),
        (b"#character-encoding UTF-16\n#player1 a A\n", 1, "a GCG file cannot be written in UTF-16"),
        (b"#character-encoding cp037\n#player1 a A\n", 1, "a GCG file cannot be written in cp037"),
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
    assert decode_gcg(b"\xef\xbb\xbf#character-encoding utf-8-sig\n").startswith("#character-encoding utf-8-sig")


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


def test_line_ends_a_bom_and_trailing_spaces():
    lines = ["#character-encoding UTF-8  ", "#player1 doug Doug   ", "#player2 emely Emely\t", ">doug: DINNVWY 8D WINDY +32 32   "]
    for end in ("\r\n", "\r", "\n"):
        raw = b"\xef\xbb\xbf" + end.join(lines).encode("utf-8") + end.encode() * 2
        r = replay_text(decode_gcg(raw))
        assert r.ok and r.final_scores() == {"doug": 32, "emely": 0}
        assert [(p.nick, p.name) for p in r.record.players] == [("doug", "Doug"), ("emely", "Emely")]


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
        ("#game-type classic\n#variant wordsmog", 2, "'#variant wordsmog' is a variant racksmith does not play"),
        ("#variant clabbers", 1, "'#variant clabbers' is a variant racksmith does not play"),
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
        assert err.count("\n") == 1 and f"line 1: GCG file {str(game)!r}: '#game-type wordsmog' is a variant " \
            "racksmith does not play" in err


# --- records other programs wrote -----------------------------------------------------------------
@pytest.mark.parametrize(
    "name, scores, turns, over",
    [
        ("doug_v_emely.gcg", {"doug": 451, "emely": 345}, 26, True),
        ("doug_v_emely_double_challenge.gcg", {"doug": 451, "emely": 345}, 26, True),
        ("josh2.gcg", {"jvc": 397, "Paula": 291}, 28, True),
        ("some_isc_game.gcg", {"arcadio": 364, "úrsula": 409}, 22, True),
        ("utf8_dos.gcg", {"angwantibo": 375, "Michal_Josko": 488}, 23, True),
        ("name_iso8859-1.gcg", {"césar": 32, "hércules": 16}, 2, False),
        ("noah_vs_mishu.gcg", {"whatnoloan": 377, "mishu7": 388}, 35, True),
        ("woogles_issue_476.gcg", {"whatnoloan": 422, "BestBot": 443}, 30, True),
        ("incomplete4.gcg", {"Player_1": 117, "Player_2": 56}, 5, False),
    ],
)
def test_records_of_other_programs_replay(name, scores, turns, over):
    r = replay_file(REAL / name)
    assert r.ok, r.errors
    assert r.final_scores() == scores
    assert (len(r.turns), r.over) == (turns, over)
    game = r.record
    assert read_gcg(REAL / name).gcg() == game.gcg()  # and what racksmith writes of it reads back the same
    assert parse_gcg(game.gcg()).gcg() == game.gcg()


def test_woogles_and_macondo_headers():
    game = read_gcg(REAL / "woogles_issue_476.gcg")
    assert game.pragma("id") == "io.woogles kYmDwcfkbY"
    assert (game.lexicon_name, game.pragma("game-type"), game.ruleset.name) == ("NWL23", "classic", "english")
    assert [(p.nick, p.name) for p in game.players] == [("whatnoloan", "Noah Walton"), ("BestBot", "BestBot")]
    isc = read_gcg(REAL / "some_isc_game.gcg")
    assert [(p.nick, p.name) for p in isc.players] == [("arcadio", "José Arcadio Buendía"), ("úrsula", "Úrsula Iguarán Buendía")]
    assert isc.pragma("description") == "Created with Macondo"


def test_the_pass_that_accepts_a_play_going_out_is_no_turn():
    """Woogles records the opponent's pass accepting the last play under the double-challenge rule,
    before the going-out bonus: once "a turn after the end of the game"."""
    r = replay_file(REAL / "doug_v_emely_double_challenge.gcg")
    assert r.ok and r.over and len(r.turns) == 26
    assert r.turns[-1].event.line == 29  # the play that went out; the pass on line 30 is no turn
    text = (REAL / "doug_v_emely_double_challenge.gcg").read_text("utf-8")
    scored = text.replace(">doug: EGOP - +0 451", ">doug: EGOP - +3 454")
    assert "a pass scores 0" in str(replay_text(scored, strict=False).errors[0])
    alone = text[: text.index(">emely:  (OPEG)")]  # a pass after the play that went out, and no bonus after it
    assert "a turn after the end of the game (line 29)" in str(replay_text(alone, strict=False).errors[0])


def test_elise_writes_played_through_tiles_as_letters_with_partial_racks():
    """``6J MALTHA`` with the M and the A on the board, ``A1 COMFIT`` with an uppercase M over a blank
    m, racks of only the tiles played: once an impossible position ('3 M tiles')."""
    r = replay_file(REAL / "incomplete_elise.gcg")
    assert len(r.turns) == 20 and r.final_scores() == {"Player_1": 336, "Player_2": 298}
    assert r.notes == [  # the record's last rack is impossible (Macondo's tests say so too): not used
        "line 26: '#rack2 AAAELQS' holds A, more than the set has left after the tiles on the board and the other "
        "racks: not used (the end position leaves that rack unknown)"
    ]
    assert r.end_racks == {0: r.ruleset.alphabet.tiles("AEEIILZ")}
    comfit = r.turns[10]
    assert (comfit.event.line, comfit.move.notation(), comfit.score) == (15, "A1 CO(m)FIT", 42)
    wrong = (REAL / "incomplete_elise.gcg").read_text("utf-8").replace("A1 COMFIT", "A1 COXFIT")
    assert "occupied" in str(replay_text(wrong, strict=False).errors[0])  # a letter over a filled square is still checked


def test_the_racks_at_the_end_of_an_unfinished_game():
    """Quackle writes the rack of the player to move after the last event (``#rack2 AEEIILZ``)."""
    r = replay_file(REAL / "incomplete4.gcg")
    assert r.end_racks == {1: r.ruleset.alphabet.tiles("AEEIILZ")}
    assert r.cgp() == "15/15/15/15/14V/14A/14N/6GUM5N/7PEW4E/9EF3R/9BEVELS/15/15/15/15 AEEIILZ/ 56/117 0"
    text = (REAL / "incomplete4.gcg").read_text("utf-8")
    for rack, words in [("AEEIILZQ", "has 8 tiles"), ("ZZ", "holds Z"), ("AE1", "'#rack2 AE1'")]:
        r = replay_text(text.replace("#rack2 AEEIILZ", f"#rack2 {rack}"))
        assert r.ok and r.notes[0].startswith("line 9: ") and words in r.notes[0]
        assert r.end_racks == {}
    assert "the game has 2 players" in replay_text(text + "#rack3 AB\n").notes[0]


def test_the_end_position_keeps_the_count_of_scoreless_turns():
    text = "#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n>b: - +0 0\n>a: EQR - +0 28\n>b: - +0 0\n"
    r = replay_text(text)
    assert r.zero_turns == 3 and r.cgp().endswith(" 28/0 3")  # was 0


def test_a_polish_record_that_names_no_ruleset_is_refused_by_its_letters(capsys):
    for strict in (True, False):
        with pytest.raises(GCGError) as e:
            replay_file(REAL / "polish_endgame.gcg", strict=strict)
        assert e.value.line == 6  # the first line with a letter English lacks
        assert ("the record names no ruleset (no #lexicon or #tile-distribution), and its letters Ć, Ę, Ń, Ł, Ś, Ź, "
                "Ą, Ż and 1 more are not English nor in any ruleset racksmith has") in str(e.value)
    assert main(["gcg", "replay", str(REAL / "polish_endgame.gcg")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("pass a ruleset file whose alphabet has them (with --ruleset: a ruleset's name or "
                                      "a .toml/.json ruleset file)") in err


def test_a_cyrillic_record_that_names_no_ruleset_names_the_rulesets_that_fit():
    headless = RUSSIAN.replace("#tile-distribution russian\n", "")
    with pytest.raises(GCGError, match=r"its letters А, Б, В, Г, Д, Е, Ж, К and 4 more are not English: pass the ruleset to use "
                                       r"\(russian or erudit\)") as e:
        parse_gcg(headless)
    assert e.value.line == 4
    assert replay_text(headless, "russian").ok  # as the message says
    # only the events' letters count: a nick, a name or a note in another script is not a reason
    assert parse_gcg("#player1 аня Аня\n#player2 b B\n#note ДЕВА\n>аня: AEKNOQR 8D KRONA +28 28\n").ruleset.name == "english"


def test_the_cli_prints_the_end_position_with_the_racks_the_record_gives(capsys):
    assert main(["gcg", "cgp", str(REAL / "incomplete4.gcg")]) == 0
    assert capsys.readouterr().out.split()[1] == "AEEIILZ/"


def test_event_kinds_of_a_real_record():
    game = read_gcg(REAL / "doug_v_emely.gcg")
    kinds = [e.kind for e in game.events]
    assert kinds.count(EventKind.PHONY) == 1 and kinds[-1] == EventKind.OUT


def test_python_dash_m_racksmith_runs_the_command_line():
    import subprocess
    import sys

    # the racksmith this interpreter imports (installed, or the source tree on PYTHONPATH), not the
    # source tree as such: a clean clone's src has no compiled kernels
    done = subprocess.run([sys.executable, "-m", "racksmith", "gcg", "replay", str(REAL / "josh2.gcg")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "28 turns, complete" in done.stdout  # was: 'No module named racksmith.__main__'
