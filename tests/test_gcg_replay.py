"""Replaying GCG records: the MAGPIE games exactly, every kind of inconsistency found at its line,
positions at any turn, and the ``racksmith gcg`` commands."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.errors import GCGError
from racksmith.review.replay import replay_file, replay_text

GCG_DIR = Path(__file__).parent / "fixtures" / "gcg"
GAME01 = GCG_DIR / "game01_seed1.gcg"
GAME07 = GCG_DIR / "game07_seed379.gcg"


def _edit(path: Path, old: str, new: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize("path, scores, turns", [(GAME01, {"p1": 445, "p2": 516}, 24), (GAME07, {"p1": 346, "p2": 408}, 26)])
def test_magpie_games_replay_exactly(path, scores, turns):
    r = replay_file(path)
    assert r.ok and r.over
    assert r.final_scores() == scores
    assert len(r.turns) == turns
    assert r.board.sum() > 0
    # every recorded score is the score racksmith computes
    assert all(t.score == t.event.score for t in r.turns)


def test_a_record_whose_turns_fail_is_not_complete():
    """Every turn after the first fails when the first is unreadable; the record still ends with
    the game's last lines (``over``), but it is not a finished game (``complete``)."""
    r = replay_text(_edit(GAME01, "8D KRONA +28 28", "8D KRONX +28 28"), strict=False)
    assert r.over and r.errors and not r.complete and r.to_dict()["complete"] is False
    good = replay_file(GAME01)
    assert good.complete and good.to_dict()["complete"] is True


def test_bingos_and_exchanges_are_recognised():
    r = replay_file(GAME01)
    assert [t.number for t in r.turns if t.bingo] == [2, 6, 8, 13, 20]
    r7 = replay_file(GAME07)
    assert [t.event.kind for t in r7.turns[:2]] == ["exchange", "exchange"]
    assert [t.number for t in r7.turns if t.bingo] == [8, 15]


def test_position_before_a_turn():
    r = replay_file(GAME01)
    empty = "/".join(["15"] * 15)
    assert r.cgp(1) == f"{empty} AEKNOQR/CEIRSTU 0/0 0 lex ENABLE15;"
    assert r.cgp(2) == "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 CEIRSTU/BEIOQUV 0/28 0 lex ENABLE15;"
    pos = r.position(24)  # the last turn: bag empty, so the opponent's rack is every unseen tile
    assert pos.rack_string == "OU" and pos.racks[1] == tuple(r.ruleset.alphabet.rack("R"))
    assert pos.scores == [506, 445]
    end = r.position()  # p2 went out: p1, to move, holds the R the record's last line names
    assert end.scores == [445, 516] and end.racks[0] == tuple(r.ruleset.alphabet.rack("R")) and end.racks[1] == ()
    assert end.is_over and end.cgp().endswith(" R/ 445/516 0 lex ENABLE15;")
    six = replay_text("#player1 a A\n#player2 b B\n>a: AEJNOSV - +0 0\n>b: DEIILTZ - +0 0\n>a: AEJNOSV - +0 0\n"
                      ">b: DEIILTZ - +0 0\n>a: AEJNOSV - +0 0\n>b: DEIILTZ - +0 0\n"
                      ">a: AEJNOSV (AEJNOSV) -17 -17\n>b: DEIILTZ (DEIILTZ) -17 -17\n")
    assert six.cgp().endswith(" AEJNOSV/DEIILTZ -17/-17 6") and six.position().is_over
    with pytest.raises(GCGError, match="turn 26 does not exist"):
        r.position(26)


@pytest.mark.parametrize(
    "old, new, line, needle",
    [
        ("+36 64", "+37 65", 11, "BO(S)QUE scores 36, the record says +37"),
        ("+28 28", "+28 29", 9, "running total is 28 after this event, the record says 29"),
        ("AEKNOQR 8D KRONA", "AEKNOQS 8D KRONA", 9, "not_in_rack"),
        (">p1: AEKNOQR 8D KRONA", ">p1: AEKNOQR 8A KRONA", 9, "must_cover_start"),
        (">p2: ?DDFGGY H12 .DGY", ">p2: ?DDFGGY H12 XDGY", 12, "occupied"),
        (">p1: BEIOQUV 12C BO.QUE +36 64", ">p1: BEIOQUV 12A BO +4 32", 11, "not_connected"),
        (">p2: (R) +2 516", ">p2: (R) +4 518", 33, "going out adds 2"),
        (">p2: (R) +2 516", ">p2: (E) +2 516", 33, "leftover is R"),
        (">p1: LR 6D L.. +10 445", ">p1: LRS 6D L.. +10 445", 31, "has 3 tiles"),
        (">p1: BEIOQUV", ">p1: BDIOQUV", 11, "lacks E, kept from"),
    ],
)
def test_inconsistencies_are_found_at_their_line(old, new, line, needle):
    text = _edit(GAME01, old, new)
    with pytest.raises(GCGError) as info:
        replay_text(text)
    assert info.value.line == line
    assert needle in info.value.message
    collected = replay_text(text, strict=False)
    assert not collected.ok
    assert collected.errors[0].line == line


def test_a_slip_is_reported_where_it_is():
    # a wrong score: the score and the running total of that line are reported, and the replay
    # goes on from the recorded total without reporting every later line
    text = _edit(GAME01, "+36 64", "+37 64")
    r = replay_text(text, strict=False)
    assert [e.line for e in r.errors] == [11, 11]
    assert r.final_scores() == {"p1": 445, "p2": 516}


def test_exchange_needs_a_full_bag():
    text = _edit(GAME01, ">p2: OU M12 OU. +8 514\n>p2: (R) +2 516", ">p2: OU -OU +0 506")
    r = replay_text(text, strict=False)
    assert any(e.line == 32 and "exchange with 0 tiles in the bag" in e.message for e in r.errors)


def test_turns_after_the_end_are_errors():
    text = GAME01.read_text(encoding="utf-8") + ">p1: R - +0 445\n"
    with pytest.raises(GCGError, match=r"a turn after the end of the game \(line 32\)") as info:
        replay_text(text)
    assert info.value.line == 34


def test_a_turn_after_the_end_is_reported_and_not_played():
    """Collected mode: the game's end (scores, board, turns, end position) stays as the record's
    last legal turn left it; the event is one error, not a cascade of rack and total errors."""
    end = replay_file(GAME01)
    text = GAME01.read_text(encoding="utf-8") + ">p1: AEKNOQR 8D KRONA +28 28\n"
    r = replay_text(text, strict=False)
    assert [(e.line, e.message) for e in r.errors] == [
        (34, "a turn after the end of the game (line 32); it is not played")]
    assert r.final_scores() == end.final_scores() == {"p1": 445, "p2": 516}
    assert len(r.turns) == len(end.turns) and r.over
    assert (r.board == end.board).all()
    assert r.position().cgp() == end.position().cgp()


HANDMADE = """\
#character-encoding UTF-8
#player1 ann Ann
#player2 bob Bob
>ann: AEJNOSV 8E JAVE +28 28
>bob: DEIILTZ 9D ZIT +23 23
>bob: DEIILTZ -- -23 0
>ann: ANOSSTU -ANOU +0 28
>bob: DEIILTZ 9D ZIT +23 23
>bob: DEIILTZ (challenge) +5 28
>ann:  (time) -10 18
"""


def test_withdrawn_phony_challenge_bonus_and_time_penalty():
    r = replay_text(HANDMADE)
    assert r.ok, r.errors
    assert r.final_scores() == {"ann": 18, "bob": 28}
    assert [t.withdrawn for t in r.turns] == [False, True, False, False]
    # the withdrawn tiles left the board: the same play fits again two turns later
    assert r.turns[3].move.notation() == "9D ZIT"
    assert r.turns[3].board.sum() == r.turns[1].board.sum()


def test_withdrawal_must_follow_a_play():
    text = HANDMADE.replace(">bob: DEIILTZ -- -23 0", ">ann: AEJNOSV -- -23 0")
    with pytest.raises(GCGError, match="last event is not a play") as info:
        replay_text(text)
    assert info.value.line == 6


def test_a_challenge_bonus_must_follow_the_player_s_own_play_once():
    """The bonus of a challenged play that stands goes to its player, once: not to the other
    player, not after an exchange, not twice, not before any play."""
    cases = (
        (HANDMADE.replace(">bob: DEIILTZ (challenge) +5 28", ">ann: ANOSSTU (challenge) +5 33\n>bob:  (time) -0 23"), 9,
         "ann's last event is not a play that stands"),
        (HANDMADE.replace(">ann:  (time) -10 18", ">bob: DEIILTZ (challenge) +5 33"), 10, "a second challenge bonus"),
        ("#player1 ann Ann\n#player2 bob Bob\n>ann: AACGSUY (challenge) +5 5\n", 3, "not a play that stands"),
        (HANDMADE.replace(">bob: DEIILTZ 9D ZIT +23 23\n>bob: DEIILTZ (challenge) +5 28",
                          ">bob: DEIILTZ 9D ZIT +23 23\n>ann: ANOSSTU -ANOU +0 28\n>ann: ANOSSTU (challenge) +5 33"),
         10, "not a play that stands"),
    )
    for text, line, message in cases:
        with pytest.raises(GCGError, match=message) as info:
            replay_text(text)
        assert info.value.line == line, text


def test_six_scoreless_turns_penalties():
    text = (
        "#player1 a A\n#player2 b B\n"
        ">a: AEJNOSV - +0 0\n>b: DEIILTZ - +0 0\n>a: AEJNOSV - +0 0\n"
        ">b: DEIILTZ - +0 0\n>a: AEJNOSV - +0 0\n>b: DEIILTZ - +0 0\n"
        ">a: AEJNOSV (AEJNOSV) -17 -17\n>b: DEIILTZ (DEIILTZ) -17 -17\n"
    )
    r = replay_text(text)
    assert r.ok and r.over and r.final_scores() == {"a": -17, "b": -17}
    bad = text.replace("(DEIILTZ) -17 -17", "(DEIILTZ) -15 -15")
    with pytest.raises(GCGError, match="the penalty is -17") as info:
        replay_text(bad)
    assert info.value.line == 10


def test_the_zero_turn_limit_ends_a_replayed_game():
    # issue 14: eight passes replayed without an error and the game was not over; it ends after six
    passes = "".join(f">{'ab'[i % 2]}: {('AEJNOSV', 'DEIILTZ')[i % 2]} - +0 0\n" for i in range(8))
    text = "#player1 a A\n#player2 b B\n" + passes
    with pytest.raises(GCGError, match=r"a turn after the end of the game \(line 8\)") as info:
        replay_text(text)
    assert info.value.line == 9
    r = replay_text(text, strict=False)
    assert r.over and [e.line for e in r.errors] == [9, 10]
    six = replay_text("#player1 a A\n#player2 b B\n" + "".join(passes.splitlines(keepends=True)[:6]))
    assert six.ok and six.over and len(six.turns) == 6 and six.turns[-1].zero_turns == 5
    five = replay_text("#player1 a A\n#player2 b B\n" + "".join(passes.splitlines(keepends=True)[:5]))
    assert five.ok and not five.over


def test_a_play_that_goes_out_ends_a_replayed_game_until_it_is_withdrawn():
    text = GAME01.read_text(encoding="utf-8")
    cut = text.index(">p2: (R) +2 516")
    with pytest.raises(GCGError, match=r"a turn after the end of the game \(line 32\)"):
        replay_text(text[:cut] + ">p1: R - +0 445\n")
    withdrawn = text[:cut] + ">p2: OU -- -8 506\n>p1: R - +0 445\n"
    r = replay_text(withdrawn)  # the out-play taken back: the game goes on
    assert r.ok and not r.over and r.turns[-2].withdrawn


def test_check_words_lists_phonies_that_stood_without_failing():
    r = replay_text(HANDMADE, check_words=True, lexicon="enable")
    assert r.ok
    # JAVE stood; JI (with ZIT) was withdrawn once, then stood
    assert r.phonies == [(4, ("JAVE",)), (8, ("JI",))]
    assert replay_text(HANDMADE).phonies == []


# --- the command line --------------------------------------------------------------------------
def test_cli_replay_json(capsys):
    assert main(["gcg", "replay", str(GAME07), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"] == ["p1", "p2"]
    assert out["final_scores"] == {"p1": 346, "p2": 408}
    assert out["turns"] == 26 and out["errors"] == []


def test_cli_replay_inconsistent_exits_1_naming_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.gcg"
    bad.write_text(_edit(GAME01, "+36 64", "+37 65"), encoding="utf-8")
    assert main(["gcg", "replay", str(bad), "--json"]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["errors"][0]["line"] == 11
    assert "line 11" in captured.err


def test_cli_replay_lists_phonies_when_a_lexicon_is_given(tmp_path, capsys):
    game = tmp_path / "handmade.gcg"
    game.write_text(HANDMADE, encoding="utf-8")
    assert main(["gcg", "replay", str(game), "--lexicon", "enable", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["phonies"] == [{"line": 4, "words": ["JAVE"]}, {"line": 8, "words": ["JI"]}]
    assert out["final_scores"] == {"ann": 18, "bob": 28} and out["errors"] == []
    assert main(["gcg", "replay", str(game)]) == 0
    assert "not in the lexicon" not in capsys.readouterr().err


def test_cli_cgp_and_show(capsys):
    assert main(["gcg", "cgp", str(GAME01), "--turn", "2"]) == 0
    assert capsys.readouterr().out.strip() == "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 CEIRSTU/BEIOQUV 0/28 0 lex ENABLE15;"
    assert main(["gcg", "show", str(GAME01), "--turn", "3", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["turn"] == 3 and shown["cgp"].startswith("15/15/15/15/4R10")
    assert main(["gcg", "show", str(GAME01)]) == 0
    assert "KRONA" in capsys.readouterr().out
    assert main(["gcg", "cgp", str(GAME01), "--turn", "99"]) == 1
    assert "turn 99 does not exist" in capsys.readouterr().err


def test_partial_racks_of_annotated_games_are_accepted():
    # human annotators often record only the tiles an opponent played
    text = _edit(GAME01, ">p2: CEIRSTU E5", ">p2: CEIRSTU E5").replace(">p1: BEIOQUV 12C", ">p1: BOQUE 12C", 1)
    r = replay_text(text)
    assert r.ok and r.final_scores() == {"p1": 445, "p2": 516}
    assert r.turns[2].rack_complete is False and r.turns[1].rack_complete is True
    assert r.turns[0].opponent_rack is not None and r.turns[1].opponent_rack is None


def test_other_writers_dialects_replay():
    """No encoding line, extra spaces, played-through letters in parentheses or plainly, lowercase
    coordinates, unsigned scores."""
    text = GAME07.read_text(encoding="utf-8").replace("#character-encoding UTF-8\n", "")
    text = text.replace(">p1: ADEOTV C2 OVATE +28 346", ">p1:  ADEOTV  c2  OVATE  28  346")
    text = text.replace(">p2: AEFIIOU D8 FO.IA +24 137", ">p2: AEFIIOU D8 FO(L)IA +24 137")
    text = text.replace(">p1: AAENPRT E9 P.NATA +26 150", ">p1: AAENPRT E9 PINATA +26 150")
    text = text.replace(">p1: DKRRTTV -DKRTTV +0 284", ">p1: DKRRTTV  -DKRTTV  +0  284")
    r = replay_text(text)
    assert r.ok, r.errors
    assert r.final_scores() == {"p1": 346, "p2": 408}


def test_a_replay_and_its_turns_compare_by_value_after_pickling():
    import pickle

    r = replay_file(GAME01)
    copy = pickle.loads(pickle.dumps(r))
    assert copy == r and copy.turns[3] == r.turns[3] and hash(copy.turns[3]) == hash(r.turns[3])
    assert r.turns[3] != r.turns[4]
    copy.scores = [r.scores[0] + 1, r.scores[1]]
    assert copy != r


def _club_game():
    """A club-rule game on a 5x5 board where the loser draws the bag's last tiles at his last turn
    (he kept B, drew AA, and holds AAB at the end: more than he kept)."""
    from racksmith import Game, Lexicon, Ruleset

    rs = Ruleset.from_dict({"name": "club5b", "board": ["....."] * 5, "start": "3C", "rack_size": 3,
                            "bingo_bonus": 0, "end_rule": "club", "tiles": [["A", 7, 1], ["B", 1, 3]]})
    g = Game(rs, lexicon=Lexicon.from_words(["AA", "AAA", "AAAA", "AAAAA"], rs), seed=0)
    g.play("3B AA")
    g.play("3A A(AA)AA")
    return rs, g


def test_a_club_game_whose_loser_drew_at_his_last_turn_reads_back():
    """The loser's penalty subtracts what he kept plus what he drew; the record racksmith writes of
    it replays (it used to fail: "p1 kept B but subtracts (AAB)")."""
    rs, g = _club_game()
    assert g.over and g.scores == [-3, 10]
    text = g.gcg()
    assert ">p1: AAB (AAB) -5 -3" in text
    r = replay_text(text, rs)
    assert r.over and r.final_scores() == {"p1": -3, "p2": 10}
    assert r.position().cgp() == g.position.cgp()


def test_a_club_penalty_without_the_tiles_kept_is_refused():
    rs, g = _club_game()
    text = g.gcg().replace(">p2: (AAB) +5 10", ">p2: (AA) +2 7").replace(">p1: AAB (AAB) -5 -3", ">p1: AA (AA) -2 0")
    with pytest.raises(GCGError, match=r"leftover is AAB, the record says \(AA\)"):
        replay_text(text, rs)


# --- the game's end: rack penalties, repeated and missing adjustments, turn order ------------------
DOUG_V_EMELY = GCG_DIR / "macondo" / "doug_v_emely.gcg"
SIX_ZERO = (
    "#player1 a Alice\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n"
    ">b: BCDEFGH - +0 0\n>a: OOUUVWW - +0 66\n>b: BCDEFGH - +0 0\n>a: OOUUVWW - +0 66\n>b: BCDEFGH - +0 0\n"
    ">a: OOUUVWW - +0 66\n>b: BCDEFGH (BCDEFGH) -19 -19\n>a: OOUUVWW (OOUUVWW) -16 50\n"
)


def test_a_six_zero_penalty_is_the_rack_held_with_tiles_in_the_bag():
    good = replay_text(SIX_ZERO)
    assert good.complete and good.final_scores() == {"a": 50, "b": -19}
    for last, needle in ((">a: AEEIOUX (AEEIOUX) -14 52", "a holds OOUUVWW"),
                         (">a: OOUUVWW (OOUUVW) -12 54", "a holds OOUUVWW"),
                         (">a: (OOUUVW) -12 54", "a holds OOUUVWW")):
        r = replay_text(SIX_ZERO.replace(">a: OOUUVWW (OOUUVWW) -16 50", last), strict=False)
        assert {e.line for e in r.errors} == {11} and needle in r.errors[-1].message and not r.complete, last


def refused_at(text: str, message: str, line: int):
    """A record the strict replay refuses at ``line`` with ``message``: its lenient replay."""
    with pytest.raises(GCGError, match=message) as info:
        replay_text(text)
    assert info.value.line == line
    return replay_text(text, strict=False)


def test_a_rack_penalty_before_the_game_ended_is_refused():
    text = ("#player1 a Alice\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n>b: BCDEFGH - +0 0\n"
            ">a: OOUUVWW - +0 66\n>b: BCDEFGH (BCDEFGH) -19 -19\n>a: OOUUVWW (OOUUVWW) -16 50\n")
    r = refused_at(text, "applies only when the game has ended", 6)
    assert not r.complete and not r.over and r.final_scores() == {"a": 66, "b": 0}


def test_a_repeated_end_of_game_line_is_counted_once():
    rs, g = _club_game()
    cases = (
        (DOUG_V_EMELY.read_text(encoding="utf-8") + ">emely:  (OPEG) +14 359\n", None, 31, 30,
         {"doug": 451, "emely": 345}),
        (SIX_ZERO + ">a: OOUUVWW (OOUUVWW) -16 34\n", None, 12, 11, {"a": 50, "b": -19}),
        (g.gcg() + ">p1: AAB (AAB) -5 -8\n", rs, 9, 8, {"p1": -3, "p2": 10}),
    )
    for text, ruleset, line, first, scores in cases:
        with pytest.raises(GCGError, match=f"already counted at line {first}") as info:
            replay_text(text, ruleset)
        assert info.value.line == line
        r = replay_text(text, ruleset, strict=False)
        assert len(r.errors) == 1 and r.final_scores() == scores and not r.complete


def test_a_record_lacking_its_end_adjustment_is_not_complete():
    lines = DOUG_V_EMELY.read_text(encoding="utf-8").splitlines(keepends=True)
    r = replay_text("".join(lines[:-1]))
    assert r.ok and r.over and not r.complete and r.to_dict()["complete"] is False
    assert r.lacking and "emely's going-out bonus" in r.notes[-1] and "(EGOP) +14 345" in r.notes[-1]
    six = replay_text(SIX_ZERO.replace(">a: OOUUVWW (OOUUVWW) -16 50\n", ""))
    assert six.ok and six.over and not six.complete and "a's rack penalty" in six.notes[-1]
    rs, g = _club_game()
    club = replay_text(g.gcg().replace(">p1: AAB (AAB) -5 -3\n", ""), rs)
    assert not club.complete and "p1's rack penalty" in club.notes[-1]
    for path in (GAME01, GAME07, *sorted((GCG_DIR / "macondo").glob("*.gcg"))):
        try:
            r = replay_file(path, strict=False)
        except GCGError:  # (files refused as a whole: their encoding, their letters)
            continue
        assert not r.lacking, (path, r.notes)


def test_a_rack_penalty_after_going_out_under_the_tournament_rule_is_refused():
    text = DOUG_V_EMELY.read_text(encoding="utf-8") + ">doug: EGOP (EGOP) -7 444\n"
    assert refused_at(text, "tournament rule", 31).final_scores() == {"doug": 451, "emely": 345}


def test_the_same_player_cannot_move_twice_in_a_row():
    text = ("#player1 a Alice\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n>b: BCDEFGH - +0 0\n"
            ">b: BCDEFGH - +0 0\n>a: OOUUVWW - +0 66\n")
    r = refused_at(text, "not b's turn: a is to move", 5)
    assert [e.line for e in r.errors] == [5] and len(r.turns) == 3 and r.zero_turns == 2


def test_errors_are_listed_in_line_order():
    text = _edit(GAME01, "+36 64", "+37 65").replace(">p2: (R) +2 516", ">p2: (R) +2")
    r = replay_text(text, strict=False)
    lines = [e.line for e in r.errors]
    assert lines == sorted(lines) and lines[0] == 11 and len(lines) >= 2


# --- racks the record does not show whole, refused lines' totals, penalties after an exchange -----------
LIVE = (  # as a live feed writes it: the opponent's racks show only the tiles he played (CRAE), or one (?)
    "#character-encoding UTF-8\n#player1 me Me\n#player2 opp Opp\n"
    ">me: AEINRST 8B ANESTRI +66 66\n"
    ">opp: CRAE C5 CRA.E +9 9\n"
    ">me: EELORTU 9C .ELOUT +18 84\n"
    ">opp: ? -3 +0 9\n"
)


def test_a_rack_recorded_in_part_is_not_known_in_the_position():
    """The position before a turn whose rack the record shows in part does not take those tiles
    for the rack: the mover's rack is not known, so he holds 7 tiles and the bag 79 (not 82)."""
    r = replay_text(LIVE)
    assert r.ok and r.turns[1].rack_complete is False and r.turns[1].rack == r.ruleset.alphabet.tiles("ACER")
    pos = r.position(2)
    assert pos.racks_known == (False, True) and pos.racks[0] == ()
    assert pos.rack_string == "" and pos.racks[1] == r.ruleset.alphabet.tiles("EELORTU")  # his next rack
    assert pos.rack_sizes == (7, 7) and pos.bag_count == 79 == r.turns[1].bag_count
    assert [m.notation() for m in pos.moves()] == ["-"]  # a rack not known: no move but the pass
    with pytest.raises(Exception, match="rack of the player to move is not known"):
        pos.best_play(0.1)
    hidden = r.position(2, opponent_rack=False)
    assert hidden.racks_known == (False, False) and hidden.bag_count == 79
    # a rack not recorded at all, or one tile of it, is not known either
    bare = replay_text(LIVE.replace(">opp: CRAE C5", ">opp: C5"))
    assert bare.position(2).racks_known == (False, True) and bare.position(2).bag_count == 79
    four = r.position(4)
    assert four.racks_known == (False, False) and four.rack_sizes == (7, 7) and four.bag_count == 70
    # every turn of the fixtures: the position's bag is the replay's
    for path in (GAME01, GAME07, *sorted((GCG_DIR / "macondo").glob("*.gcg"))):
        try:
            game = replay_file(path)
        except GCGError:  # (files refused as a whole: their encoding, their letters)
            continue
        for t in game.turns:
            p = game.position(t.number)
            assert p.bag_count == t.bag_count and p.racks_known[0] == t.rack_complete, (path, t.number)
            if t.rack_complete:
                assert p.racks[0] == t.rack




def test_a_rack_recorded_in_part_is_not_in_the_cgp(tmp_path, capsys):
    """``racksmith gcg cgp`` writes no rack for a mover whose rack the record shows in part (a
    CGP's empty rack), and the opponent's rack the record reveals."""
    game = tmp_path / "live.gcg"
    game.write_text(LIVE, encoding="utf-8")
    assert main(["gcg", "cgp", str(game), "--turn", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.split()[1] == "/EELORTU"
    assert err == ("note: live.gcg does not show the whole rack of the player to move here: the CGP leaves it "
                   "empty, to be filled in before it is analysed\n")
    assert main(["gcg", "cgp", str(game), "--turn", "3"]) == 0
    out, err = capsys.readouterr()
    assert out.split()[1] == "EELORTU/" and err == ""


def test_a_rack_recorded_in_part_with_the_bag_empty_is_what_the_unseen_tiles_leave():
    """With the bag empty, the opponent's rack recorded whole at his next turn leaves the mover's
    rack certain (every other unseen tile), however little of it the record shows: the replay
    knows it (``rack_inferred``), so its position does."""
    r = replay_text(_edit(GAME01, ">p2: AOTU J9 TA.", ">p2: AT J9 TA."))
    a = r.ruleset.alphabet
    assert r.ok and r.turns[21].bag_count == 0
    assert r.turns[21].rack_complete is True and r.turns[21].rack_inferred and r.turns[21].rack == a.tiles("AOTU")
    pos = r.position(22)
    assert pos.racks_known == (True, True) and pos.racks == [a.tiles("AOTU"), a.tiles("LR")]
    assert pos.rack_sizes == (4, 2) and pos.bag_count == 0
    assert pos.inferred_racks()[0] == a.tiles("AOTU")


def test_the_end_of_an_unfinished_record_without_its_racks_knows_no_rack():
    """After the last event, a mover without ``#rack1`` holds a rack not known (not an empty one):
    7 tiles, and the bag 70."""
    r = replay_text(LIVE)
    end = r.position()
    assert not r.over and end.racks_known == (False, False) and end.racks == [(), ()]
    assert end.rack_sizes == (7, 7) and end.bag_count == 70
    assert r.position(opponent_rack=False).racks_known == (False, False)
    given = replay_text(LIVE + "#rack1 DEILNOR\n").position()
    assert given.racks_known == (True, False) and given.rack_string == "DEILNOR" and given.bag_count == 70


def test_a_refused_lines_total_is_checked_against_the_records_own_sum():
    """A line that is not played keeps its one error; a running total that is not the record's own
    sum (the player's previous total plus the line's score) adds a note."""
    end = GAME01.read_text(encoding="utf-8")
    wrong = replay_text(end + ">p1: AEKNOQR 8D KRONA +28 28\n", strict=False)
    assert [e.line for e in wrong.errors] == [34]
    assert wrong.notes == ["line 34: p1's running total 28 is not the record's own sum: his previous total 445 +28 "
                           "makes 473 (the line is not played: its score is not counted)"]
    assert replay_text(end + ">p1: AEKNOQR 8D KRONA +28 473\n", strict=False).notes == []
    # a line out of turn, and an adjustment not counted
    twice = ("#player1 a Alice\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n>b: BCDEFGH - +0 0\n"
             ">b: BCDEFGH 9C BE +8 10\n>a: OOUUVWW - +0 66\n")
    r = replay_text(twice, strict=False)
    assert [e.line for e in r.errors] == [5] and r.final_scores() == {"a": 66, "b": 0}
    assert len(r.notes) == 1 and "line 5: b's running total 10 is not the record's own sum" in r.notes[0]
    assert "previous total 0 +8 makes 8" in r.notes[0]
    assert replay_text(twice.replace("+8 10", "+8 8"), strict=False).notes == []
    early = ("#player1 a Alice\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n>b: BCDEFGH - +0 0\n"
             ">a: OOUUVWW - +0 66\n>b: BCDEFGH (BCDEFGH) -19 -20\n")
    r = replay_text(early, strict=False)
    assert [e.line for e in r.errors] == [6] and "previous total 0 -19 makes -19" in r.notes[0]
    with pytest.raises(GCGError, match="not b's turn"):  # strict: the line's error, as before
        replay_text(twice)


SIX_EXCHANGES = (  # six scoreless turns: a's last turn an exchange (he kept NRST and drew 3 tiles not shown)
    "#player1 a Alice\n#player2 b Bob\n"
    ">a: AEINRST -AEI +0 0\n>b: BCDFGHJ -BCD +0 0\n>a: - +0 0\n>b: - +0 0\n>a: - +0 0\n>b: FGHJ -FGH +0 0\n"
)


def test_a_penalty_after_an_exchange_holds_tiles_the_set_has_left():
    """After an exchange the rack held is the tiles kept and those drawn, which the record does not
    show: the penalty must hold the kept tiles, and the rest must be tiles the set has left."""
    good = replay_text(SIX_EXCHANGES + ">a: NRSTOOO (NRSTOOO) -7 -7\n>b: JKLMNOP (JKLMNOP) -22 -22\n")
    assert good.complete and good.final_scores() == {"a": -7, "b": -22}
    assert good.position().racks_known == (True, True)
    three_z = SIX_EXCHANGES + ">a: NRSTZZZ (NRSTZZZ) -34 -34\n>b: JKLMNOP (JKLMNOP) -22 -22\n"
    r = refused_at(three_z, r"a subtracts \(NRSTZZZ\), which holds ZZ, more than the set has left", 9)
    assert [e.line for e in r.errors] == [9] and 0 not in r.end_racks
    assert "he holds what he kept and tiles drawn from those" in r.errors[0].message
    # b showed part of his rack only: no tiles kept known, still no more J's than the set has
    seven_j = SIX_EXCHANGES + ">a: NRSTOOO (NRSTOOO) -7 -7\n>b: JJJJJJJ (JJJJJJJ) -56 -56\n"
    r = refused_at(seven_j, r"which holds JJJJJJ, more than the set has left after the tiles on the board and the "
                            r"other racks known", 10)
    assert [e.line for e in r.errors] == [10]
    still = SIX_EXCHANGES + ">a: NRSTOOO (NRSTOOO) -7 -7\n>b: OJKLMNP (OJKLMNP) -22 -22\n"
    assert replay_text(still).complete  # (O: the set has eight, a holds three)
