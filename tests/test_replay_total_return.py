"""A running total stated wrong once, then right again (a typo of that line), is one error, not two:
the line back on the plays' sum is a note of the replay, and the scores the plays make (the
positions, the played scores, the final scores) stay right after it, whoever slipped and however
often. A total the record's own arithmetic carries on from is still one error. And an error
raised for a GCG file names the file, whatever found it (its bytes, its header, a line of it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.errors import GCGError
from racksmith.formats.gcg import read_gcg
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_file, replay_text

GAME01 = Path(__file__).parent / "fixtures" / "gcg" / "game01_seed1.gcg"
RIGHT = replay_file(GAME01)


def totals(changes: dict[int, int]) -> str:
    """game01 with the running totals of some lines (line number: new total) changed."""
    lines = GAME01.read_text(encoding="utf-8").splitlines()
    for number, total in changes.items():
        head, _ = lines[number - 1].rsplit(" ", 1)
        lines[number - 1] = f"{head} {total}"
    return "\n".join(lines) + "\n"


def carried(line: int, by: int) -> str:
    """game01 with the total of ``line`` off by ``by``, and the player's later totals too (the
    record's own arithmetic going on from the wrong one)."""
    lines = GAME01.read_text(encoding="utf-8").splitlines()
    nick = lines[line - 1].split(":")[0]
    for i in range(line - 1, len(lines)):
        if lines[i].startswith(nick + ":"):
            head, total = lines[i].rsplit(" ", 1)
            lines[i] = f"{head} {int(total) + by}"
    return "\n".join(lines) + "\n"


def turn_after(r, line: int) -> int:
    """The number of the first turn after ``line``."""
    return next(t.number for t in r.turns if t.line > line)


def assert_played_scores_right(r, after: int) -> None:
    """The scores the plays make before every turn are the game's; the positions' scores (the
    recorded totals the replay went on from) are the game's after line ``after``."""
    n = len(r.turns)
    assert [r.played_scores(k) for k in range(1, n + 1)] == [t.scores for t in RIGHT.turns]
    for k in range(turn_after(r, after), n + 2):
        assert r.position(k).scores == RIGHT.position(k).scores, k
    assert r.final_scores() == RIGHT.final_scores() == {"p1": 445, "p2": 516}


def errors_of(r) -> list[tuple[int, str]]:
    return [(e.line, e.message) for e in r.errors]


# --- 1. a total stated wrong, then right again -------------------------------------------------------
def test_one_typo_then_the_plays_sum_again_is_one_error_and_a_note():
    """Line 11 says 66 for 64; line 13's 105 is the plays' sum (64 + 41): it was flagged too, the
    replay having gone on from 66 (107)."""
    r = replay_text(totals({11: 66}), strict=False)
    assert errors_of(r) == [(11, "p1's running total is 64 after this event, the record says 66")]
    assert r.total_errors() == r.errors
    note = "line 13: p1's running total 105 is the plays' sum again (the total at line 11 was stated wrong)"
    assert note in r.notes
    assert [(s.line, s.recorded - s.computed, s.error) for s in r.total_slips] == [(11, 2, True), (13, -2, False)]
    assert r.total_slips[1].message == note
    assert_played_scores_right(r, 13)
    assert r.turns[turn_after(r, 13) - 1].scores == (105, 191 - 74)
    with pytest.raises(GCGError, match="line 11: p1's running total is 64"):  # strict: the first error, as before
        replay_text(totals({11: 66}))


def test_cli_replay_and_analyze_say_it_once(tmp_path, capsys):
    path = tmp_path / "typo.gcg"
    path.write_text(totals({11: 66}), encoding="utf-8")
    assert main(["gcg", "replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert [x for x in out.splitlines() if "running total" in x] == [  # in the order of the lines
        "line 11: p1's running total is 64 after this event, the record says 66",
        "line 13: p1's running total 105 is the plays' sum again (the total at line 11 was stated wrong)",
    ]
    assert err == ("racksmith: typo.gcg is inconsistent: line 11: p1's running total is 64 after this event, the "
                   "record says 66\n")
    assert main(["gcg", "replay", str(path), "--json"]) == 1
    d = json.loads(capsys.readouterr().out)
    assert [e["line"] for e in d["errors"]] == [11] and d["final_scores"] == {"p1": 445, "p2": 516}
    assert main(["analyze", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["does_not_replay_from"] is None and len(d["turns"]) == 24
    assert [n for n in d["notes"] if "running total" in n] == [  # the error's note, then the replay's, by line
        "line 11: p1's running total is 64 after this event, the record says 66: the analysis goes on with the "
        "scores the plays make",
        "line 13: p1's running total 105 is the plays' sum again (the total at line 11 was stated wrong)"]


def test_analyze_grades_every_turn_on_the_plays_scores():
    """Both players slip and come back, interleaved: one note per slip, every turn graded, and the
    endgame solved on the game's scores (the same verdicts as the record right)."""
    text = totals({11: 66, 12: 120, 13: 105, 14: 191, 27: 410})  # p1 11 -> 13, p2 12 -> 14, p1 27 -> 29
    r = replay_text(text, strict=False)
    a = analyze(r, None, top=1, endgame_seconds=2)
    right = analyze(RIGHT, None, top=1, endgame_seconds=2)
    assert a.does_not_replay_from is None and all(t.graded_by is not None for t in a.turns)
    slips = [n.split(":")[0] for n in a.notes if "running total is" in n]
    returns = [n.split(":")[0] for n in a.notes if "plays' sum again" in n]
    assert (slips, returns) == (["line 11", "line 12", "line 27"], ["line 13", "line 14", "line 29"])
    assert [t.endgame for t in a.turns] == [t.endgame for t in right.turns]
    assert a.turns[20].endgame.spread == right.turns[20].endgame.spread


# --- 2. a slip the record carries on from ----------------------------------------------------------
def test_a_carried_slip_is_still_one_error():
    """Line 11 says 66 and p1's later totals go on from it (107, 146...): one error, no note; the
    scores the plays make are the game's, the final scores the record's."""
    r = replay_text(carried(11, 2), strict=False)
    assert errors_of(r) == [(11, "p1's running total is 64 after this event, the record says 66")]
    assert not any("plays' sum again" in n for n in r.notes)
    assert [s.error for s in r.total_slips] == [True]
    n = len(r.turns)
    assert [r.played_scores(k) for k in range(1, n + 1)] == [t.scores for t in RIGHT.turns]
    assert r.final_scores() == {"p1": 447, "p2": 516}


# --- 3. several slips -----------------------------------------------------------------------------
def test_two_slips_of_a_player_then_the_plays_sum_again():
    """Line 11 says 66 (64), line 13 says 110 (105; the replay carried 107): two errors; line 15's
    144 is the plays' sum: a note naming both lines."""
    r = replay_text(totals({11: 66, 13: 110}), strict=False)
    assert errors_of(r) == [(11, "p1's running total is 64 after this event, the record says 66"),
                            (13, "p1's running total is 107 after this event, the record says 110")]
    assert r.total_errors() == r.errors
    assert ("line 15: p1's running total 144 is the plays' sum again (the totals at lines 11 and 13 were stated "
            "wrong)") in r.notes
    assert [(s.line, s.recorded - s.computed, s.error) for s in r.total_slips] == [
        (11, 2, True), (13, 3, True), (15, -5, False)]
    assert_played_scores_right(r, 15)
    # and a new slip after the return is an error of its own, named alone when it comes back
    r = replay_text(totals({11: 66, 13: 110, 19: 231}), strict=False)
    assert [e.line for e in r.errors] == [11, 13, 19]
    assert ("line 21: p1's running total 320 is the plays' sum again (the total at line 19 was stated wrong)"
            in r.notes)
    assert_played_scores_right(r, 21)


def test_slips_of_both_players_interleaved():
    """p1 slips at 11 and is back at 13; p2 slips at 12 and is back at 14; then p2 slips at 16
    and the record carries on from it: three errors, two notes, each player's offset his own."""
    r = replay_text(totals({11: 66, 12: 120, 13: 105, 14: 191}), strict=False)
    assert [e.line for e in r.errors] == [11, 12]
    assert [n for n in r.notes if "plays' sum again" in n] == [
        "line 13: p1's running total 105 is the plays' sum again (the total at line 11 was stated wrong)",
        "line 14: p2's running total 191 is the plays' sum again (the total at line 12 was stated wrong)",
    ]
    assert_played_scores_right(r, 14)
    text = carried(16, -10)
    head = totals({11: 66, 12: 120, 13: 105, 14: 191}).splitlines()[:14]
    r = replay_text("\n".join(head + text.splitlines()[14:]) + "\n", strict=False)
    assert [e.line for e in r.errors] == [11, 12, 16]
    assert len([n for n in r.notes if "plays' sum again" in n]) == 2
    n = len(r.turns)
    assert [r.played_scores(k) for k in range(1, n + 1)] == [t.scores for t in RIGHT.turns]
    assert r.final_scores() == {"p1": 445, "p2": 506}
    # p1's return while p2's slip stands (p2's offset is not p1's), p2's return later
    r = replay_text(totals({11: 66, 12: 120, 13: 105, 14: 194}), strict=False)
    assert [e.line for e in r.errors] == [11, 12]  # line 14 (194 = 120 + 74) carries p2's slip
    assert [n for n in r.notes if "plays' sum again" in n] == [
        "line 13: p1's running total 105 is the plays' sum again (the total at line 11 was stated wrong)",
        "line 16: p2's running total 271 is the plays' sum again (the total at line 12 was stated wrong)",
    ]
    assert r.position(6).scores == [120, 105]  # before line 14, p2 to move: the totals the replay carries
    assert r.played_scores(6) == RIGHT.turns[5].scores == (105, 117)
    assert r.played_scores(7) == RIGHT.turns[6].scores == (105, 191)
    assert_played_scores_right(r, 16)


# --- 4. an error raised for a GCG file names it -----------------------------------------------------------
CONTROL = b"#player1 a Al\x9ae\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n"


def test_an_encoding_problem_found_after_decoding_names_the_file(tmp_path):
    path = tmp_path / "enc2.gcg"
    path.write_bytes(CONTROL)
    for strict in (True, False):
        with pytest.raises(GCGError) as e:
            read_gcg(path, strict=strict)
        assert e.value.line == 1
        assert e.value.message.startswith(f"GCG file {str(path)!r}: U+009A is a control character, not text")
        assert str(e.value).startswith(f"line 1: GCG file {str(path)!r}: U+009A")
    with pytest.raises(GCGError, match=r"^line 1: GCG file '.*enc2\.gcg': U\+009A") as e:
        replay_file(path, strict=False)
    assert e.value.message.count("GCG file") == 1


def test_a_line_error_raised_names_the_file_and_a_collected_one_its_line(tmp_path):
    path = tmp_path / "bad.gcg"
    path.write_text("#player1 a A\n#player2 b B\n>a: AEINRST 8D RETAINS +66 sixty-six\n", encoding="utf-8")
    with pytest.raises(GCGError) as e:
        read_gcg(path)
    assert e.value.line == 3 and e.value.message.startswith(f"GCG file {str(path)!r}: running total")
    game = read_gcg(path, strict=False)
    assert [(x.line, x.message.startswith("running total")) for x in game.errors] == [(3, True)]
    with pytest.raises(GCGError, match=r"^line 3: GCG file '.*bad\.gcg': running total"):
        replay_file(path)
    # a decode error is named once, as before; an argument's error is not the file's
    binary = tmp_path / "bin.gcg"
    binary.write_bytes(b"#player1 a A\x00")
    with pytest.raises(GCGError) as e:
        read_gcg(binary)
    assert e.value.message == f"GCG file {str(binary)!r}: not a GCG record: NUL byte at offset 12 (a binary file?)"
    with pytest.raises(GCGError, match="^visitor must be a GCGVisitor"):
        read_gcg(path, visitor=object())


@pytest.mark.parametrize("command", [["gcg", "replay"], ["analyze"]])
def test_the_cli_names_the_file_in_one_line(tmp_path, capsys, command):
    path = tmp_path / "enc2.gcg"
    path.write_bytes(CONTROL)
    assert main([*command, str(path)]) == 1
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"racksmith: line 1: GCG file {str(path)!r}: U+009A is a control character")
