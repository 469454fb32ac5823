"""Records of other programs read as those programs read them:

- Woogles' records of May 2021 to September 2022 (Macondo's writer then) name their rules only in
  header notes, ``#note Variant: wordsmog``, ``#note BoardLayout: SuperCrosswordGame``, ``#note
  LetterDistribution: english_super``: read as ``#game-type``, ``#board-layout`` and
  ``#tile-distribution`` are, and kept as notes;
- Quackle's time penalty ``(time) +-10``, which Macondo reads as -10;
- a record in an 8-bit encoding other than Russian's (Polish in windows-1250 or ISO-8859-2, a
  Western one in windows-1252) without a ``#character-encoding`` line: one error naming the
  encoding, never dozens of misread letters, and never read in it silently.
"""
from __future__ import annotations

import base64
import json

import pytest

from racksmith import Ruleset, get_ruleset
from racksmith.cli.main import main
from racksmith.errors import GCGError
from racksmith.formats.gcg import parse_event, parse_gcg, read_gcg
from racksmith.review.replay import replay, replay_file
from racksmith.web.api import Analyzer

# --- Woogles' header notes ------------------------------------------------------------------------
SUPER = """\
#character-encoding UTF-8
#description Created with Macondo
#id io.woogles SUPERabc123
#lexicon NWL20
#note Variant: classic_super
#note BoardLayout: SuperCrosswordGame
#note LetterDistribution: english_super
#player1 p1 p1
#player2 p2 p2
>p1: DELOQRS 11G DORSEL +18 18
>p2: ?AGORSS M7 ORGASmS +71 71
"""

WORDSMOG = """\
#character-encoding UTF-8
#description Created with Macondo
#id io.woogles WSmog123
#lexicon CSW21
#note Variant: wordsmog
#note BoardLayout: CrosswordGame
#note LetterDistribution: english
#player1 a a
#player2 b b
>a: AEHOSTU 8D HOUES +24 24
"""


def only(text: str, *keep: str) -> str:
    """``SUPER`` with only the header notes whose keys are ``keep``."""
    return "".join(ln for ln in text.splitlines(keepends=True)
                   if not ln.startswith("#note ") or ln[6:].split(":")[0] in keep)


@pytest.mark.parametrize("board, tiles", [
    ("#note BoardLayout: SuperCrosswordGame", "#note LetterDistribution: english"),
    ("#board-layout SuperCrosswordGame", "#tile-distribution english"),
    ("#board-layout CrosswordGame", "#tile-distribution english_super"),
])
def test_a_board_and_tiles_no_ruleset_plays_together_are_refused(board, tiles):
    """(as a CGP's 'bdn SuperCrosswordGame; ld english;' is: the record was read as Super Scrabble,
    200 tiles, whatever its distribution said)"""
    text = SUPER.replace("#note Variant: classic_super\n", "").replace(
        "#note BoardLayout: SuperCrosswordGame", board).replace("#note LetterDistribution: english_super", tiles)
    with pytest.raises(GCGError, match="racksmith has no ruleset that plays those tiles on that board") as e:
        parse_gcg(text)
    assert e.value.line == 5 and board.split(":")[0] in str(e.value)


def test_a_woogles_super_record_is_read_as_super_scrabble():
    game = parse_gcg(SUPER)  # was: read as 15x15 English, "11G DORSEL must cover the start square" and 9 more
    assert game.ruleset.name == "super"
    r = replay(game, strict=False)
    assert r.errors == [] and r.scores == [18, 71]
    # each note alone says it, as the pragma it stands for
    assert parse_gcg(only(SUPER, "Variant")).ruleset.name == "super"
    assert parse_gcg(only(SUPER, "BoardLayout")).ruleset.name == "super"
    assert parse_gcg(only(SUPER, "LetterDistribution")).ruleset.name == "super"
    assert parse_gcg(only(SUPER)).ruleset.name == "english"


def test_the_notes_stay_notes_and_are_written_back(tmp_path):
    game = parse_gcg(SUPER)
    assert [v for n, v, _ in game.pragmas if n == "note"] == [
        "Variant: classic_super", "BoardLayout: SuperCrosswordGame", "LetterDistribution: english_super"]
    text = game.gcg()
    assert ("#note Variant: classic_super\n#note BoardLayout: SuperCrosswordGame\n"
            "#note LetterDistribution: english_super\n") in text
    assert parse_gcg(text).ruleset.name == "super"
    path = tmp_path / "super.gcg"
    path.write_text(SUPER, encoding="utf-8")
    assert main(["gcg", "replay", str(path)]) == 0


def test_a_woogles_wordsmog_record_is_refused_as_game_type_wordsmog_is():
    for strict in (True, False):
        with pytest.raises(GCGError) as e:
            parse_gcg(WORDSMOG, strict=strict)  # was: analysed as a classic game
        assert e.value.line == 5
        assert e.value.message == ("'#note Variant: wordsmog' is a variant racksmith does not play (any anagram of a "
                                   "word may be played there): it plays the classic game only")
    with pytest.raises(GCGError, match="'#note Variant: wordsmog' is a variant"):
        parse_gcg(WORDSMOG, "english")  # a ruleset given: still refused, as '#game-type wordsmog'
    pragma = WORDSMOG.replace("#note Variant: wordsmog", "#game-type wordsmog")
    with pytest.raises(GCGError, match="'#game-type wordsmog' is a variant"):
        parse_gcg(pragma)
    with pytest.raises(GCGError, match="is a variant racksmith does not play"):
        Analyzer("english").gcg({"text": WORDSMOG, "analyze": False})


def test_a_distribution_note_racksmith_lacks_is_refused_as_the_pragma_is():
    text = only(SUPER).replace("#lexicon NWL20\n", "#lexicon NWL20\n#note LetterDistribution: klingon\n")
    with pytest.raises(GCGError) as e:
        parse_gcg(text)
    assert e.value.line == 5
    assert e.value.message.startswith("'#note LetterDistribution: klingon' names no ruleset racksmith knows")
    assert e.value.param == "ruleset"
    assert parse_gcg(text, "english").ruleset.name == "english"  # a ruleset given settles it, as for the pragma


@pytest.mark.parametrize("note", [
    "#note variant: wordsmog",  # Macondo's keys are as it writes them
    "#note Variant wordsmog",
    "#note the Variant: wordsmog was chosen",
])
def test_other_notes_say_nothing(note):
    game = parse_gcg(WORDSMOG.replace("#note Variant: wordsmog", note))
    assert game.ruleset.name == "english" and (note[6:] in [v for n, v, _ in game.pragmas if n == "note"])


def test_only_the_header_s_notes_and_not_a_note_s_text():
    after = WORDSMOG.replace("#note Variant: wordsmog\n", "") + "#note Variant: wordsmog\n"
    game = parse_gcg(after)  # a note on a move: the move's, as Macondo read it
    assert game.ruleset.name == "english" and game.events[0].note == "Variant: wordsmog"
    # a note's own line that reads like one (written so by racksmith) is the note's text
    inside = WORDSMOG.replace("#note Variant: wordsmog\n", "#note what Woogles wrote:\n #note Variant: wordsmog\n")
    game = parse_gcg(inside)
    assert game.ruleset.name == "english"
    assert "what Woogles wrote:\n#note Variant: wordsmog" in [v for n, v, _ in game.pragmas if n == "note"]
    assert parse_gcg(game.gcg()).ruleset.name == "english"


# --- Quackle's '(time) +-10' ---------------------------------------------------------------------
TIMED = """\
#player1 doug doug
#player2 emely emely
>doug: AEJNOSV 8H JAVE +28 28
>emely: DEIILTZ - +0 0
>doug: ANOSSTU (time) +-10 18
"""


def test_a_time_penalty_with_a_plus_before_the_minus_is_read():
    game = parse_gcg(TIMED)  # was: "score '+-10' is not a number"
    assert game.events[-1].score == -10 and game.events[-1].total == 18
    r = replay(game)
    assert r.errors == [] and r.scores == [18, 0]
    assert ">doug: ANOSSTU (time) -10 18\n" in game.gcg()
    assert parse_event(">doug:  (time) +-10 -10", get_ruleset("english")).score == -10


@pytest.mark.parametrize("line", [
    ">doug: ANOSSTU (challenge) +-5 29",  # Macondo reads '+-' on a time penalty only
    ">doug: ANOSSTU 8D JAVE +-5 29",
    ">doug: (ANOSSTU) +-5 29",
])
def test_plus_minus_elsewhere_is_still_refused(line):
    with pytest.raises(GCGError, match="is not a number"):
        parse_event(line, get_ruleset("english"))


# --- an 8-bit record of another language than Russian ------------------------------------------------
def custom_ruleset(tmp_path, name: str, letters: str) -> Ruleset:
    """English with more letters, as a user's ruleset file."""
    english = get_ruleset("english").to_dict()
    data = {**english, "name": name, "aliases": [], "tiles": english["tiles"] + [[ch, 1, 5] for ch in letters]}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return Ruleset.load(path)


POLISH_LETTERS = "ĄĆĘŁŃÓŚŹŻ"
POLISH = """\
#player1 ala Ala
#player2 jan Jan
>ala: ŻÓŁWIEĄ 8G ŻÓŁW +38 38
>jan: ŚĆŹĘŃAB 9F ŚĆŹ +45 45
"""


def write(tmp_path, text: str, encoding: str, name: str = "g.gcg"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.parametrize("encoding, codec", [("windows-1250", "cp1250"), ("ISO-8859-2", "iso8859-2")])
def test_a_polish_record_in_an_8_bit_encoding_is_one_error_naming_it(tmp_path, encoding, codec):
    polish = custom_ruleset(tmp_path, "polish-ish", POLISH_LETTERS)
    path = write(tmp_path, POLISH, codec)
    for strict in (True, False):
        with pytest.raises(GCGError) as e:
            read_gcg(path, polish, strict=strict)  # was: an error per misread letter (56 on a whole game)
        assert e.value.line == 3
        message = e.value.message
        assert message.startswith(f"GCG file {str(path)!r}: the file is not UTF-8 and has no '#character-encoding' "
                                  "first line, so it was read as ISO-8859-1 (the GCG default), and its characters ")
        assert f"read as {encoding} they are letters of polish-ish, so the file looks like {encoding}: " in message
        assert f"add '#character-encoding {encoding}' as its first line, or save it as UTF-8" in message
    # the ruleset a record names (a user's file, as the CLI's --ruleset adds it to those known)
    named = write(tmp_path, "#tile-distribution polish-ish\n" + POLISH, codec, "named.gcg")
    with pytest.raises(GCGError, match=f"looks like {encoding}: add"):
        read_gcg(named, rulesets=(polish,))
    # as the message says: the declaration added, the record replays
    fixed = write(tmp_path, f"#character-encoding {encoding}\n" + POLISH, codec, "fixed.gcg")
    assert replay(read_gcg(fixed, polish)).errors == []


def test_the_cli_says_it_in_one_line(tmp_path, capsys):
    custom_ruleset(tmp_path, "polish-ish", POLISH_LETTERS)
    path = write(tmp_path, POLISH, "cp1250")
    assert main(["gcg", "replay", str(path), "--ruleset", str(tmp_path / "polish-ish.json")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 3: " in err
    assert "add '#character-encoding windows-1250' as its first line" in err


def test_the_game_tab_s_file_is_one_error_too(tmp_path):
    custom_ruleset(tmp_path, "polish-ish", POLISH_LETTERS)
    analyzer = Analyzer(tmp_path / "polish-ish.json")
    data = base64.b64encode(POLISH.encode("iso8859-2")).decode()
    with pytest.raises(GCGError, match="the file looks like ISO-8859-2: add '#character-encoding ISO-8859-2'"):
        analyzer.gcg({"data": data, "analyze": False})
    fixed = base64.b64encode(("#character-encoding ISO-8859-2\n" + POLISH).encode("iso8859-2")).decode()
    answer = analyzer.gcg({"data": fixed, "analyze": False})
    assert answer["errors"] == [] and answer["final_scores"] == [38, 45]


def test_polish_without_the_letters_the_two_encodings_differ_in_names_windows_1250(tmp_path):
    polish = custom_ruleset(tmp_path, "polish-ish", POLISH_LETTERS)
    common = "#player1 ala Ala\n#player2 jan Jan\n>ala: ŻÓŁWIEC 8G ŻÓŁW +38 38\n"
    for codec in ("cp1250", "iso8859-2"):  # the same bytes in both
        with pytest.raises(GCGError, match="the file looks like windows-1250: add"):
            read_gcg(write(tmp_path, common, codec), polish)


def test_a_windows_1252_record_is_told_from_iso_8859_1(tmp_path):
    """windows-1252 is ISO-8859-1 with letters where ISO-8859-1 has control characters (Œ, Š, Ž)."""
    oe = custom_ruleset(tmp_path, "oe-ish", "ŒÉ")
    text = "#player1 ann Ann\n#player2 bob Bob\n>ann: ŒUVREÉ 8G ŒUVRE +10 10\n"
    with pytest.raises(GCGError) as e:
        read_gcg(write(tmp_path, text, "cp1252"), oe)
    assert "characters U+008C are not in the alphabet of oe-ish" in e.value.message  # (É is read right)
    assert "add '#character-encoding windows-1252' as its first line" in e.value.message
    assert read_gcg(write(tmp_path, "#character-encoding windows-1252\n" + text, "cp1252", "w.gcg"), oe).events[0].rack \
        == "ŒUVREÉ"


def test_letters_that_read_as_another_ruleset_s_are_not_hinted(tmp_path):
    """An ISO-8859-1 record in the wrong ruleset: its letters are said, no encoding is hinted (in
    windows-1250 the bytes of Ä, Ö, Ü are the same letters)."""
    german = custom_ruleset(tmp_path, "german-ish", "ÄÖÜ")
    text = "#player1 jörg Jörg\n#player2 ute Ute\n>jörg: ÄENRSTÜ 8D ÄRST +10 10\n"
    path = write(tmp_path, text, "latin-1")
    assert read_gcg(path, german).events[0].rack == "ÄENRSTÜ"
    game = read_gcg(path, "english", strict=False, rulesets=(german,))
    assert game.errors and all("encoding" not in e.message for e in game.errors)
    with pytest.raises(GCGError) as e:
        read_gcg(path, rulesets=(german,))
    assert "pass the ruleset to use (german-ish)" in e.value.message and "encoding" not in e.value.message


def test_a_utf8_polish_record_reads(tmp_path):
    polish = custom_ruleset(tmp_path, "polish-ish", POLISH_LETTERS)
    assert replay_file(write(tmp_path, POLISH, "utf-8"), polish).ok


def test_a_windows_1252_name_or_note_is_one_error_not_mangled(tmp_path):
    """A French record (tiles A-Z) in windows-1252 without its encoding line: its tiles fit, so
    nothing was said, and the name 'Zoé L’Œuvre' read as 'Zoé L\\x92\\x8cuvre'."""
    path = tmp_path / "fr.gcg"
    body = "#player1 a Zoé L’Œuvre\n#player2 b B\n#note Partie du club – “finale”\n>a: AEINRST 8D RETAINS +66 66\n"
    path.write_bytes(body.encode("windows-1252"))
    with pytest.raises(GCGError, match=r"line 1: GCG file '.*fr\.gcg': U\+0092 is a control character.*"
                                       r"#character-encoding windows-1252"):
        read_gcg(path)
    path.write_bytes(("#character-encoding windows-1252\n" + body).encode("windows-1252"))
    assert read_gcg(path).players[0].name == "Zoé L’Œuvre"
    path.write_bytes(body.replace("’", "'").replace("–", "-").replace("“", '"').replace("”", '"')
                     .replace("Œ", "Oe").encode("latin-1"))  # (ISO-8859-1 proper: read as it always was)
    assert read_gcg(path).players[0].name == "Zoé L'Oeuvre"
