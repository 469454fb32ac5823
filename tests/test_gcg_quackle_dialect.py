"""Quackle's way of writing a record, read as Quackle means it: a rack penalty written ``+-7`` and
the other player's penalty of a game ended by scoreless turns left out, the old withdrawal ``-- +0
59``, a challenge bonus other than 5 folded into the play's score; the replay's status in words;
``gcg show`` listing the lines that are not turns; the advice for a file declared in the wrong
8-bit encoding."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith.errors import GCGError
from racksmith.formats.gcg import decode_gcg, parse_event, read_gcg
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_file, replay_text
from racksmith.rules.ruleset import Ruleset, get_ruleset
from conftest import run_cli as run

FIXTURES = Path(__file__).parent / "fixtures"

HEAD = "#character-encoding UTF-8\n#player1 Jim Jim Fultz\n#player2 Quackle Quackle Championship Player\n"

#: a game ended by six scoreless turns as Quackle saves it: the last passer's penalty written '+-7',
#: Quackle's own (EINTXYZ, 26) left out (Quackle takes it off silently)
PASSED_OUT = HEAD + (
    ">Jim: ADEIQRU 8G QUAD +28 28\n"
    ">Quackle: AEFINTV -AFV +0 0\n"
    ">Jim: EILNORS -  +0 28\n"
    ">Quackle: EINTXYZ -  +0 0\n"
    ">Jim: EILNORS -  +0 28\n"
    ">Quackle: EINTXYZ -  +0 0\n"
    ">Jim: EILNORS -  +0 28\n"
    ">Jim: EILNORS (EILNORS) +-7 21\n"
)

#: a play challenged off, written the old way: the score left +0, the total back where it was
OLD_WITHDRAWAL = HEAD + (
    ">Jim: ADEIQRU 8G QUAD +28 28\n"
    ">Quackle: AEFINTV -AFV +0 0\n"
    ">Jim: EILNORS I8 .ILERONS +60 88\n"
    ">Jim: ABEGHKM (challenge) +5 93\n"
    ">Quackle: EINTXYZ J5 ZIT. +16 16\n"
    ">Quackle: EINTXYZ -- +0 0\n"
    ">Jim: ABEGHKM -  +0 93\n"
    ">Quackle: EINTXYZ 15G ZE.TY +51 51\n"
)

#: a 10-point challenge bonus, which Quackle writes into the play's score (I8 .ILERONS makes 60)
FOLDED = HEAD + (
    ">Jim: ADEIQRU 8G QUAD +28 28\n"
    ">Quackle: AEFINTV -AFV +0 0\n"
    ">Jim: EILNORS I8 .ILERONS +70 98\n"
    ">Quackle: EINTXYZ J5 ZIT. +16 16\n"
    ">Quackle: EINTXYZ -- -16 0\n"
    ">Jim: ABEGHKM -  +0 98\n"
    ">Quackle: EINTXYZ 15G ZE.TY +51 51\n"
)


# --- 1. a game ended by scoreless turns, as Quackle writes it ----------------------------------------
def test_a_rack_penalty_written_plus_minus_is_read_as_negative():
    """It was refused: "score '+-7' is not a number like +28 or -5"."""
    event = parse_event(">Jim: EILNORS (EILNORS) +-7 21", get_ruleset("english"))
    assert event.score == -7 and event.total == 21 and event.kind.value == "rack_penalty"
    for line in (">Jim: (EILNORS) +-7 21", ">Jim: EILNORS (challenge) +-7 21"):  # (Quackle writes neither)
        with pytest.raises(GCGError, match="is not a number"):
            parse_event(line, get_ruleset("english"))


def test_the_penalty_quackle_leaves_out_is_taken_off_with_a_note():
    r = replay_text(PASSED_OUT)
    assert r.errors == [] and r.complete and r.status == "complete" and not r.lacking
    assert r.final_scores() == {"Jim": 21, "Quackle": -26}  # the game's final scores, as Quackle has them
    assert [e.text() for e in r.applied] == [">Quackle: EINTXYZ (EINTXYZ) -26 -26"]
    note = r.notes[-1]
    assert note.startswith("line 11: the record gives Jim's rack penalty only, as Quackle writes") and "-26" in note
    assert tuple(r.position().scores) == (-26, 21)  # (the end position: Quackle's turn, its score first)


def test_the_penalty_left_out_of_a_rack_not_shown_is_lacking_and_said_so(capsys, tmp_path):
    """Quackle's rack not in the record: its penalty is not known, and the status says what is
    lacking (it said "ends with errors" with no error and exit code 0)."""
    text = PASSED_OUT.replace(">Quackle: EINTXYZ -  +0 0\n", ">Quackle: - +0 0\n").replace(
        ">Quackle: AEFINTV -AFV", ">Quackle: -AFV")
    r = replay_text(text)
    assert r.errors == [] and r.over and not r.complete and r.lacking and not r.applied
    assert r.status == "finished, lacking Quackle's rack penalty (see the notes)"
    assert r.to_dict()["status"] == r.status and r.to_dict()["lacking"] == r.lacking
    assert "Quackle writes only the last passer's penalty line" in r.notes[-1]
    path = tmp_path / "q.gcg"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "gcg", "replay", path)
    assert code == 0 and out.startswith("q.gcg: 7 turns, finished, lacking Quackle's rack penalty (see the notes); ")


def test_the_status_words():
    r = replay_text(PASSED_OUT.replace("+-7 21", "+-8 20"), strict=False)  # a wrong penalty: an error at the end
    assert r.over and r.errors and r.status == "ends with errors"
    assert replay_text(FOLDED, strict=False).status == "not finished"
    assert "not finished" in repr(replay_text(FOLDED, strict=False)) and "complete" in repr(replay_text(PASSED_OUT))


# --- 2. the old withdrawal, '-- +0 <total before the play>' ------------------------------------------
def test_an_old_style_withdrawal_is_read_with_a_note():
    """Quackle's own test record (WSC 2001) has '>Pakorn: LWGRAKE -- +0 59': it was two errors, the
    withdrawal's score and the running total."""
    r = replay_text(OLD_WITHDRAWAL)
    assert r.errors == [], r.errors
    assert r.final_scores() == {"Jim": 93, "Quackle": 51}
    assert [t.withdrawn for t in r.turns] == [False, False, False, True, False, False]
    assert any(n.startswith("line 9: '-- +0 0' withdraws J5 ZIT(D) (+16, line 8) the old way") and
               "'>Quackle: EINTXYZ -- -16 0'" in n for n in r.notes), r.notes
    assert r.errors_before(None) == []  # (the positions after it are the game's: the analysis grades them)


def test_a_withdrawal_with_another_wrong_score_is_still_an_error():
    for line, needle in ((">Quackle: EINTXYZ -- +0 16", "'--' should be -16"),  # (+0, the total kept: not withdrawn)
                         (">Quackle: EINTXYZ -- -10 6", "'--' should be -16")):
        r = replay_text(OLD_WITHDRAWAL.replace(">Quackle: EINTXYZ -- +0 0", line), strict=False)
        assert r.errors and needle in r.errors[0].message and r.errors[0].line == 9


def test_the_turns_after_an_old_style_withdrawal_are_graded():
    leaves = load_leaves(FIXTURES / "SYNTH.klv2", ruleset="english")
    a = analyze(replay_text(OLD_WITHDRAWAL), leaves, top=1, lexicon=load_lexicon("enable", ruleset="english"),
                endgame_seconds=None)
    assert a.does_not_replay_from is None
    assert [t.graded_by is not None for t in a.turns][-2:] == [True, True]


# --- 3. a challenge bonus other than 5, written into the play's score ---------------------------------
def test_a_folded_challenge_bonus_is_an_error_that_says_how_to_write_it():
    """Quackle writes a challenge bonus other than 5 into the play's score; a score typed 10 too high
    reads the same way, so it stays an error, whose message names the bonus and its two lines."""
    r = replay_text(FOLDED, strict=False)
    (e,) = [e for e in r.errors if "I8 (A)ILERONS scores 60" in e.message]
    assert e.line == 6 and "the record says +70; if the 10 points are a challenge bonus" in e.message
    assert "'>Jim: EILNORS I8 .ILERONS +60 88' then '>Jim: ABEGHKM (challenge) +10 98'" in e.message
    assert "Quackle" in e.message


@pytest.mark.parametrize("edit, needle", [
    # a bonus of 5 Quackle writes on a line of its own
    (("+70 98", "+65 93"), "if the 5 points are a challenge bonus, write them on a line of their own"),
    # a record that writes a bonus of 10 on a line of its own does not fold one
    ((">Quackle: EINTXYZ 15G ZE.TY +51 51\n", ">Quackle: EINTXYZ 15G ZE.TY +51 51\n>Quackle: AB (challenge) +10 61\n"),
     "as line 11 writes the bonus +10"),
    # the play's bonus on a line of its own already
    ((">Quackle: EINTXYZ J5", ">Jim: ABEGHKM (challenge) +5 103\n>Quackle: EINTXYZ J5"), "the play's bonus is on line 7"),
    ((">Jim: EILNORS I8 .ILERONS +70 98", ">Jim: EILNORS I8 .ILERONS +63 91"), "the record says +63"),  # not 5's
    ((">Jim: EILNORS I8 .ILERONS +70 98", ">Jim: EILNORS I8 .ILERONS +50 78"), "the record says +50"),  # less
    ((">Jim: EILNORS I8 .ILERONS +70 98", ">Jim: EILNORS I8 .ILERONS +120 148"), "the record says +120"),
])
def test_a_score_above_the_play_s_that_is_no_folded_bonus_stays_an_error(edit, needle):
    text = FOLDED.replace(*edit)
    if edit[0] == "+70 98":
        text = text.replace("+0 98", "+0 93")
    r = replay_text(text, strict=False)
    score_errors = [e for e in r.errors if "I8 (A)ILERONS scores 60" in e.message]
    assert len(score_errors) == 1 and needle in score_errors[0].message, r.errors
    assert score_errors[0].line == 6
    if "+63" in needle or "+50" in needle:
        assert "challenge bonus" not in score_errors[0].message


# --- 5. gcg show lists the lines that are not turns ---------------------------------------------------
def test_gcg_show_lists_the_lines_that_are_not_turns(capsys, tmp_path):
    path = tmp_path / "w.gcg"
    path.write_text(OLD_WITHDRAWAL.replace(">Quackle: EINTXYZ -- +0 0", ">Quackle: EINTXYZ -- -16 0"), encoding="utf-8")
    code, out, _ = run(capsys, "gcg", "show", path)
    lines = out.splitlines()
    assert code == 0
    assert lines[3] == "     >Jim: ABEGHKM (challenge) +5 93   (challenge bonus: the play before stood)"
    assert lines[4].startswith("  4. >Quackle: EINTXYZ J5 ")
    assert lines[5] == "     >Quackle: EINTXYZ -- -16 0   (the play before challenged off and taken back)"
    assert lines[6].startswith("  5. >Jim: ABEGHKM -")
    code, out, _ = run(capsys, "gcg", "show", path, "--turn", "5")  # the lines before turn 5 only
    assert out.splitlines()[5].startswith("     >Quackle: EINTXYZ --") and "  5. >" not in out
    quackle = tmp_path / "q.gcg"
    quackle.write_text(PASSED_OUT, encoding="utf-8")
    code, out, _ = run(capsys, "gcg", "show", quackle)
    assert "     >Jim: EILNORS (EILNORS) -7 21   (rack penalty: the tiles left subtracted)" in out
    assert "     >Quackle: EINTXYZ (EINTXYZ) -26 -26   (rack penalty not in the record" in out


# --- 6. a file declared in the wrong 8-bit encoding -----------------------------------------------------
C1_BODY = "#player1 a Zoé L’Œuvre\n#player2 b B\n>a: AEINRST 8D RETAINS +66 66\n"


def test_control_characters_in_a_file_declared_iso_8859_1_say_to_replace_the_line(tmp_path):
    """It said to add '#character-encoding windows-1252' as the first line; doing so gave
    "'#character-encoding ISO-8859-1' must be the first line": a loop."""
    declared = ("#character-encoding ISO-8859-1\n" + C1_BODY).encode("windows-1252")
    path = tmp_path / "c1.gcg"
    path.write_bytes(declared)
    with pytest.raises(GCGError) as info:
        read_gcg(path)
    message = info.value.message
    assert "not the ISO-8859-1 its first line declares: replace that line with '#character-encoding windows-1252'" in message
    assert "add '#character-encoding" not in message and info.value.line == 2
    both = ("#character-encoding windows-1252\n#character-encoding ISO-8859-1\n" + C1_BODY).encode("windows-1252")
    with pytest.raises(GCGError, match="contradicts the first line, '#character-encoding windows-1252'.*remove line 2"):
        decode_gcg(both)
    fixed = ("#character-encoding windows-1252\n" + C1_BODY).encode("windows-1252")
    assert "L’Œuvre" in decode_gcg(fixed)
    assert "add '#character-encoding windows-1252' as its first line" in _error_of(C1_BODY.encode("windows-1252"), tmp_path)
    # declared UTF-8, a control character is one (text converted from a code page misread as ISO-8859-1):
    # declaring a code page instead would misread every other letter
    converted = ("#character-encoding UTF-8\n" + C1_BODY.replace("’", "\x92")).encode("utf-8")
    message = _error_of(converted, tmp_path)
    assert "the file was converted to UTF-8 from an 8-bit code page read as ISO-8859-1" in message
    assert "'#character-encoding windows-1252'" not in message


def _error_of(raw: bytes, tmp_path: Path, ruleset=None) -> str:
    path = tmp_path / "x.gcg"
    path.write_bytes(raw)
    with pytest.raises(GCGError) as info:
        read_gcg(path, ruleset)
    return info.value.message


def test_a_polish_file_declared_iso_8859_1_is_told_its_code_page(tmp_path):
    """Undeclared it was told windows-1250; declared ISO-8859-1, windows-1252."""
    english = get_ruleset("english").to_dict()
    data = {**english, "name": "polish-ish", "aliases": [],
            "tiles": english["tiles"] + [[ch, 1, 5] for ch in "ĄĆĘŁŃÓŚŹŻ"]}
    (tmp_path / "pl.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    polish = Ruleset.load(tmp_path / "pl.json")
    body = "#player1 ala Ala\n#player2 jan Jan\n>ala: ŻÓŁWIEŚ 8G ŻÓŁW +38 38\n>jan: ŚĆŹĘŃAB 9F ŚĆŹ +45 45\n"
    declared = _error_of(("#character-encoding ISO-8859-1\n" + body).encode("windows-1250"), tmp_path, polish)
    assert "the first line declares the encoding ISO-8859-1" in declared
    assert "replace its first line with '#character-encoding windows-1250'" in declared
    undeclared = _error_of(body.encode("windows-1250"), tmp_path, polish)
    assert "add '#character-encoding windows-1250' as its first line" in undeclared
    fixed = tmp_path / "ok.gcg"
    fixed.write_bytes(("#character-encoding windows-1250\n" + body).encode("windows-1250"))
    assert replay_file(fixed, polish, strict=False).turns[0].event.rack == "ŻÓŁWIEŚ"
