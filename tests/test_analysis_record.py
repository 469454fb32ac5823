"""The game analysis's record of a game: a bingo missed as Macondo's analyzer counts one (the
verdict's best move is a bingo and the move played is none), the bingo chances; a grade range
written "x or y" or "x to y"; the game and the settings in the analysis's JSON."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith.core.position import Position
from racksmith.errors import RacksmithError
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.review.analysis import Analysis, TurnAnalysis, analyze, grade_text
from racksmith.review.replay import replay_file, replay_text
from racksmith.sim.winpct import load_winpct

FIXTURES = Path(__file__).parent / "fixtures"
GAME01 = FIXTURES / "gcg" / "game01_seed1.gcg"
SYNTH = FIXTURES / "SYNTH.klv2"


@pytest.fixture(scope="module")
def leaves():
    return load_leaves(SYNTH, ruleset="english")


@pytest.fixture(scope="module")
def enable():
    return load_lexicon("enable", ruleset="english")


@pytest.fixture(scope="module")
def game01():
    return replay_file(GAME01)


def game01_until(game01, turn: int, rack: str, move: str) -> str:
    """game01's record up to the turn before ``turn``, then ``turn`` played as ``move`` from
    ``rack`` (the record ends there)."""
    lines = GAME01.read_text(encoding="utf-8").splitlines()
    head = [ln for ln in lines if not ln.startswith(">")]
    events = [ln for ln in lines if ln.startswith(">")]
    pos = game01.position(turn)
    mover = Position(pos.ruleset, pos.board.copy(), (pos.ruleset.alphabet.rack(rack), ()), list(pos.scores),
                     pos.zero_turns, racks_known=[True, False])
    score = mover.score(move).score
    nick = game01.players[game01.turns[turn - 1].player]
    return "\n".join(head + events[:turn - 1] + [f">{nick}: {rack} {move} +{score} {pos.scores[0] + score}"]) + "\n"


def last_turn(text: str, leaves, enable, **options) -> tuple[TurnAnalysis, Analysis]:
    result = analyze(replay_text(text), leaves, top=3, lexicon=enable, endgame_seconds=None, **options)
    return result.turns[-1], result


def mover_summary(result: Analysis, t: TurnAnalysis):
    return next(p for p in result.players if p.player == t.player)


# --- 1. a bingo missed: the verdict's best is a bingo, the move played is none --------------------------------
def test_a_bingo_there_is_not_missed_when_a_non_bingo_is_better_by_equity(game01, leaves, enable):
    """game01 turn 14, p2 holding AEELSTZ: O7 S(P)AETZLE (79) is a bingo, but A12 ZE(A)L scores 69
    and keeps EST (82 by equity): a bingo is there (``bingo_available``), the best move is none,
    and playing ZE(A)L, or a worse non-bingo, misses no bingo."""
    for move, rank in (("A12 ZE(A)L", 1), ("A11 ZET(A)S", 3)):
        t, result = last_turn(game01_until(game01, 14, "AEELSTZ", move), leaves, enable)
        assert (t.turn, t.played, t.rank) == (14, move, rank)
        assert t.best[0].notation == "A12 ZE(A)L" and not t.best[0].bingo
        assert t.best[1].notation == "O7 S(P)AETZLE" and t.best[1].bingo
        assert t.bingo_available and t.best_bingo is False and not t.bingo_played
        assert t.bingo_missed is False
        d = t.to_dict()
        assert (d["bingo_available"], d["best_bingo"], d["bingo_missed"]) == (True, False, False)
        p2 = mover_summary(result, t)
        # turns 2, 6 and 8 (bingos played) were chances, turn 14 is none
        assert [u.turn for u in result.turns if u.player == "p2" and u.best_bingo] == [2, 6, 8]
        assert (p2.bingo_chances, p2.bingos_missed) == (3, 0)


def test_a_non_bingo_played_when_the_best_is_a_bingo_is_a_bingo_missed(game01, leaves, enable):
    """game01 turn 8, p2 holding ADIINSV: 14A ADVISIN(G) (80) is the best move; 4K DIVAN (36.8 by
    equity) misses it."""
    t, result = last_turn(game01_until(game01, 8, "ADIINSV", "4K DIVAN"), leaves, enable)
    assert t.played == "4K DIVAN" and t.best[0].notation == "14A ADVISIN(G)" and t.best[0].bingo
    assert t.best_bingo is True and t.played_best is False and not t.bingo_played
    assert t.bingo_missed is True and t.to_dict()["bingo_missed"] is True
    p2 = mover_summary(result, t)
    assert (p2.bingos_played, p2.bingo_chances, p2.bingos_missed) == (2, 3, 1)
    assert [u.turn for u in result.turns if u.player == "p2" and u.best_bingo] == [2, 6, 8]
    d = p2.to_dict()
    assert (d["bingo_chances"], d["bingos_missed"]) == (p2.bingo_chances, 1)


def test_a_bingo_played_that_is_not_the_best_bingo_misses_none(game01, leaves, enable):
    """game01 turn 2, p2 holding CEIRSTU: E5 REC(R)UITS (90) is the best; E1 CRUSTIE(R) (70) is a
    bingo too: worse by 20, but no bingo missed."""
    t, result = last_turn(game01_until(game01, 2, "CEIRSTU", "E1 CRUSTIE(R)"), leaves, enable)
    assert t.best[0].notation == "E5 REC(R)UITS" and t.rank > 1 and t.equity_lost == 20
    assert t.bingo_played and t.best_bingo is True and t.played_best is False
    assert t.bingo_missed is False
    p2 = mover_summary(result, t)
    assert (p2.bingos_played, p2.bingo_chances, p2.bingos_missed) == (1, 1, 0)


def test_a_simulated_turn_s_best_bingo_is_the_simulation_s_best(game01, leaves, enable):
    """With a simulation, the turn's best move is the simulation's (``sim_best``): ZE(A)L, the best
    by static equity, misses a bingo when the simulation finds S(P)AETZLE better, and none when it
    finds ZE(A)L the best (small simulations that disagree by seed)."""
    text = game01_until(game01, 14, "AEELSTZ", "A12 ZE(A)L")
    seen = {}
    for seed in (1, 2):
        t, result = last_turn(text, leaves, enable, sim={"candidates": 3, "iterations": 50, "plies": 2, "seed": seed})
        assert t.grade is not None and t.played_best is True  # (by static equity)
        assert t.best_bingo is (t.sim_best == "O7 S(P)AETZLE")
        assert t.bingo_missed is t.best_bingo  # (the move played is no bingo)
        assert mover_summary(result, t).bingos_missed == t.bingo_missed
        seen[seed] = t.sim_best
    assert seen == {1: "O7 S(P)AETZLE", 2: "A12 ZE(A)L"}


def test_turns_not_graded_have_no_best_bingo_and_endgame_turns_the_solver_s(leaves, enable):
    text = "#player1 a A\n#player2 b B\n>a: 8H KOAN +16 16\n"  # the rack not recorded: not graded
    t, result = last_turn(text, leaves, enable)
    assert t.graded_by is None and t.best_bingo is None and not t.bingo_missed
    assert result.players[0].bingo_chances == 0
    # josh2 turn 26, the bag empty: Paula plays O6 sPEEDO (19); the endgame solver's best is
    # O6 sPONDEE, a bingo that goes out (113)
    solved = analyze(replay_file(FIXTURES / "gcg" / "macondo" / "josh2.gcg"), top=1, endgame_seconds=2)
    t = solved.turns[25]
    assert (t.turn, t.player, t.rack, t.played, t.graded_by) == (26, "Paula", "?DEENOP", "O6 sPEEDO", "endgame")
    assert t.endgame.best == "O6 sPONDEE" and t.played_best is False
    assert t.best_bingo is True and t.bingo_missed is True


# --- 2. a grade range: "x or y", "x to y" ----------------------------------------------------------------
def _graded(grade, grade_range):
    return TurnAnalysis(turn=1, line=1, player="a", rack="AEIOU", played="8H AE", played_score=4,
                        played_equity=4.0, rank=1, moves=10, best=(), equity_lost=0.0, bingo_played=False,
                        bingo_available=False, win_pct=50.0, best_win_pct=52.0, win_pct_lost=2.0, grade=grade,
                        grade_sure=grade_range is None or grade_range[0] == grade_range[1], grade_range=grade_range)


@pytest.mark.parametrize(("grade", "grade_range", "text"), [
    ("mistake", None, "mistake"),
    ("mistake", ("mistake", "mistake"), "mistake"),
    ("best", ("best", "inaccuracy"), "best or inaccuracy"),
    ("mistake", ("inaccuracy", "mistake"), "inaccuracy or mistake"),
    ("mistake", ("mistake", "blunder"), "mistake or blunder"),
    ("inaccuracy", ("best", "mistake"), "best to mistake"),
    ("mistake", ("inaccuracy", "blunder"), "inaccuracy to blunder"),
    ("mistake", ("best", "blunder"), "best to blunder"),
    ("mistake", ("blunder", "best"), "best to blunder"),  # (in the order of the grades, whichever way given)
    (None, None, ""),  # no simulation graded the turn
])
def test_grade_text(grade, grade_range, text):
    assert grade_text(_graded(grade, grade_range)) == text


def test_grade_text_takes_a_turn_and_the_html_table_uses_it():
    with pytest.raises(RacksmithError, match="TurnAnalysis"):
        grade_text({"grade": "best"})
    html = Analysis(turns=[_graded("mistake", ("best", "blunder"))])._repr_html_()
    assert "best to blunder" in html and "best or blunder" not in html


# --- 3. the game and the settings in the JSON ------------------------------------------------------------
def test_the_json_says_which_game_and_how_it_was_analysed(game01, leaves, enable):
    result = analyze(game01, leaves, top=2, lexicon=enable, endgame_seconds=None)
    d = result.to_dict()
    assert d["ruleset"] == game01.ruleset.name == "english"
    assert d["names"] == [{"nick": "p1", "name": "MAGPIE_static_1"}, {"nick": "p2", "name": "MAGPIE_static_2"}]
    assert d["names"] == [{"nick": p.nick, "name": p.name} for p in game01.record.players]
    assert d["final_scores"] == game01.final_scores() == {"p1": 445, "p2": 516}
    assert d["complete"] is game01.complete is True
    assert d["settings"] == {"top": 2, "endgame_seconds": None, "leaves": True, "sim": None}
    # the keys there before are kept, and the players' summaries are still "players"
    before = {"turns", "players", "leaves", "notes", "events", "lexicon", "record_lexicon", "does_not_replay_from"}
    assert before <= set(d)
    assert [p["player"] for p in d["players"]] == ["p1", "p2"]
    json.dumps(d)
    bare = analyze(game01, None, top=1, lexicon=enable).to_dict()["settings"]
    assert bare == {"top": 1, "endgame_seconds": 10.0, "leaves": False, "sim": None}


def test_a_record_not_finished_says_so_and_a_missing_full_name_is_the_nick(leaves, enable):
    text = "#player1 a\n#player2 b Bee Bee\n>a: AEKNOQR 8H KOAN +16 16\n"
    d = analyze(replay_text(text), leaves, top=1, lexicon=enable).to_dict()
    assert d["names"] == [{"nick": "a", "name": "a"}, {"nick": "b", "name": "Bee Bee"}]
    assert d["complete"] is False and d["final_scores"] == {"a": 16, "b": 0}


def test_the_json_of_a_simulation_gives_its_options_as_plain_values(game01, leaves, enable):
    """The settings hold the simulation's options as given, a win% table object as its name,
    without the cancel event or the progress callable: the JSON dumps."""
    import threading

    text = game01_until(game01, 2, "CEIRSTU", "E5 REC(R)UITS")
    table = load_winpct("english")
    sim = {"candidates": 2, "iterations": 20, "plies": 1, "seed": 7, "winpct": table, "infer": True,
           "infer_samples": 50, "cancel": threading.Event(), "progress": lambda *a: None}
    result = analyze(replay_text(text), leaves, top=1, lexicon=enable, endgame_seconds=None, sim=sim)
    d = json.loads(json.dumps(result.to_dict()))
    assert d["settings"] == {"top": 1, "endgame_seconds": None, "leaves": True,
                             "sim": {"candidates": 2, "plies": 1, "iterations": 20, "seed": 7, "winpct": "english",
                                     "infer": True, "infer_samples": 50}}
    assert sim["winpct"] is table and "cancel" in sim  # (the options given are not changed)
    named = analyze(replay_text(text), leaves, top=1, lexicon=enable, endgame_seconds=None,
                    sim={"iterations": 20, "winpct": "english"}).to_dict()["settings"]["sim"]
    assert named == {"iterations": 20, "winpct": "english"}


def test_a_bingo_challenged_off_is_no_bingo_missed():
    """josh2 turn 20: Paula's B2 DE(S)PONEd, challenged off, where the best move is a bingo: she
    found one (Macondo's PlayedIsBingo is the play attempted), so no bingo is missed."""
    from racksmith import analyze, replay_file

    a = analyze(replay_file(Path(__file__).parent / "fixtures" / "gcg" / "macondo" / "josh2.gcg"), endgame_seconds=None)
    t = a.turns[19]
    assert (t.played, t.withdrawn, t.bingo_attempted, t.best_bingo, t.bingo_played) == (
        "B2 DE(S)PONEd", True, True, True, False)
    assert not t.bingo_missed
