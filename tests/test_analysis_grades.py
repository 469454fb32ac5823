"""The verdicts of ``racksmith analyze``: the endgame solver's value is the verdict of a turn played
with the bag empty (and counts in the summary); a simulation's grade holds over seeds or says it is
uncertain; a record with a running total stated wrong is analysed with a note, one with a play that
does not replay is graded up to it; a play taken back after a challenge is graded as the lost turn
it was; the lines that are not turns are listed; phonies and the lexicon are named; progress on
stderr."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_file, replay_text

GCG_DIR = Path(__file__).parent / "fixtures" / "gcg"
GAME01 = GCG_DIR / "game01_seed1.gcg"


def game01_text(**changes: str) -> str:
    text = GAME01.read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


@pytest.fixture(scope="module")
def game01():
    return analyze(replay_file(GAME01), top=3, endgame_seconds=5)


# --- 1. the endgame solver's verdict ------------------------------------------------------------------------
def test_the_solver_s_loss_is_the_turn_s_and_counts_in_the_summary(game01):
    """Turn 21 (14J DIETE(R)) is the best move by static equity, but the solver says it loses 12
    points of final spread against N12 TREE: the turn's loss is 12 (it was 0), and p1's summary
    counts the 19 points the solver says he lost (turns 21 and 23)."""
    t = game01.turns[20]
    assert (t.turn, t.played, t.rank, t.static_equity_lost) == (21, "14J DIETE(R)", 1, 0.0)
    assert t.graded_by == "endgame" and t.equity_lost == 12 and t.played_best is False
    assert t.endgame.best == "N12 TREE" and t.endgame.exact and t.endgame.grade == "inaccuracy"
    assert [u.turn for u in game01.turns if u.graded_by == "endgame"] == [21, 22, 23, 24]
    p1, p2 = game01.players
    assert (p1.endgame_turns, p1.endgame_lost, p1.endgame_inexact) == (2, 19, 0)
    assert p1.equity_lost == pytest.approx(p1.static_equity_lost + 19)
    assert p1.best_moves == sum(1 for u in game01.turns if u.player == "p1" and u.played_best)
    assert p1.best_moves < sum(1 for u in game01.turns if u.player == "p1" and u.rank == 1)
    d = game01.to_dict()
    assert d["turns"][20]["equity_lost"] == 12 and d["turns"][20]["graded_by"] == "endgame"
    assert d["turns"][20]["static_equity_lost"] == 0 and d["turns"][20]["endgame"]["grade"] == "inaccuracy"
    assert d["players"][0]["endgame_lost"] == 19 and d["players"][0]["grades"]["inaccuracy"] == 2


def test_a_move_the_solver_finds_best_loses_nothing_whatever_its_static_rank():
    """noah_vs_mishu turn 31, 6I T(I): 99th of 111 by static equity (32 lost), the solver's best:
    the turn lost nothing, and the summary does not count the 32. A value the solver's time cut
    short is used, marked not exact."""
    a = analyze(replay_file(GCG_DIR / "macondo" / "noah_vs_mishu.gcg"), None, top=1, endgame_seconds=2)
    t = a.turns[30]
    assert (t.turn, t.played, t.rank, t.moves) == (31, "6I T(I)", 99, 111)
    assert t.static_equity_lost == pytest.approx(32.0)
    assert t.graded_by == "endgame" and t.equity_lost == 0 and t.played_best and t.endgame.lost == 0
    noah = a.players[0]
    assert noah.player == "whatnoloan"
    graded = [u for u in a.turns if u.player == "whatnoloan" and u.graded_by is not None]
    assert noah.equity_lost == pytest.approx(sum(u.equity_lost for u in graded))
    inexact = [u for u in a.turns if u.endgame is not None and not u.endgame.exact]
    assert noah.endgame_inexact + a.players[1].endgame_inexact == len(inexact)


def test_endgame_grade_rule():
    from racksmith.review.analysis import endgame_grade

    assert endgame_grade(0, "win", "win") == "best"
    assert endgame_grade(12, "loss", "loss") == "inaccuracy"
    assert endgame_grade(12, "win", "win") == "inaccuracy"
    assert endgame_grade(2, "tie", "win") == "blunder"
    assert endgame_grade(10, "loss", "win") == "blunder"
    assert endgame_grade(1, "loss", "tie") == "blunder"


def test_the_table_shows_the_solver_s_loss_marked(capsys):
    assert main(["analyze", str(GAME01), "--top", "1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.split("│")[0].strip() == "21")
    assert row.split("│")[7].strip() == "12 E"
    assert "lost 12: inaccuracy (the result the same)" in out
    assert "p1: 12 turns, 9 best, equity lost 20.7 (19 of it points of spread in 2 endgame turns)" in out


# --- 2. simulation grades that hold ------------------------------------------------------------------------
def first_turns(k: int) -> str:
    lines = GAME01.read_text(encoding="utf-8").splitlines()
    moves = [i for i, line in enumerate(lines) if line.startswith(">")]
    return "\n".join(lines[: moves[k - 1] + 1]) + "\n"


def test_a_simulated_grade_holds_over_seeds_or_says_it_is_uncertain():
    """Turn 1, 8D KRONA: graded 'inaccuracy' at seeds 0..3 and 'mistake' at 4 when the move played
    got some 60 play-outs of the 1,000; now every seed grades it 'inaccuracy', settled or marked
    uncertain, from hundreds of play-outs of the move played against the best others (it got some
40 of the 600)."""
    r = replay_text(first_turns(1))
    seen = []
    for seed in range(5):
        t = analyze(r, top=1, sim=dict(iterations=600, seed=seed)).turns[0]
        assert t.playouts >= 300 and t.win_pct_lost_stderr < 0.6 and t.win_pct_stderr < 1
        low, high = t.grade_range
        assert t.grade_sure == (low == high)
        assert "inaccuracy" in (low, high) and t.grade == "inaccuracy", (seed, t)
        seen.append(t.grade)
        d = t.to_dict()
        assert {"playouts", "win_pct_stderr", "win_pct_lost_stderr", "grade_sure", "grade_range", "sim_best"} <= set(d)
    assert set(seen) == {"inaccuracy"}


def test_sure_grades_agree_over_seeds():
    """On the first turns, any two seeds that both settle a turn's grade settle the same one."""
    r = replay_text(first_turns(3))
    by_turn: dict[int, set] = {}
    for seed in (0, 1, 2):
        for t in analyze(r, None, top=1, sim=dict(iterations=200, candidates=5, plies=1, seed=seed)).turns:
            assert t.grade is not None
            if t.grade_sure:
                by_turn.setdefault(t.turn, set()).add(t.grade)
    assert by_turn and all(len(g) == 1 for g in by_turn.values()), by_turn


def test_with_a_simulation_each_player_has_a_roll_up(capsys, tmp_path):
    r = replay_text(first_turns(4))
    a = analyze(r, None, top=1, sim=dict(iterations=100, candidates=3, plies=1, seed=1))
    for p in a.players:
        mine = [t for t in a.turns if t.player == p.player]
        assert p.sim_turns == len(mine) == 2
        assert p.win_pct_lost == pytest.approx(sum(t.win_pct_lost for t in mine))
        d = p.to_dict()
        assert d["mean_win_pct_lost"] == pytest.approx(round(p.win_pct_lost / 2, 3))
        assert sum(d["grades"].values()) == 2 and d["uncertain_grades"] == sum(not t.grade_sure for t in mine)
    path = tmp_path / "four.gcg"
    path.write_text(first_turns(4), encoding="utf-8")
    assert main(["analyze", str(path), "--top", "1", "--sim", "--sim-iterations", "30", "--sim-candidates", "3",
                 "--sim-plies", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("lexicon: enable (the record names ENABLE15); leaves: english (shipped)\n") and "play-outs" in out.splitlines()[1]
    line = next(x for x in out.splitlines() if x.startswith("  p1: win% lost"))
    assert "over 2 simulated turns" in line and "inaccurac" in line and "blunder" in line


# --- 3. records that do not replay -------------------------------------------------------------------------
def test_a_running_total_stated_wrong_is_a_note_and_the_scores_are_the_plays():
    """'+39 145' for '+39 144': the command refused the game; now every turn is graded, with a note,
    and the endgame is solved on the scores the plays make (the same verdicts as the record right)."""
    for text in (game01_text(**{"+39 144\n": "+39 145\n"}),  # one typo (the next total is right again)
                 game01_text(**{"OU. +8 514": "OU. +8 515"})):  # on the last turn (and the bonus after it)
        r = replay_text(text, strict=False)
        assert r.errors and len(r.total_errors()) == len(r.errors)
        a = analyze(r, None, top=1, endgame_seconds=5)
        assert a.does_not_replay_from is None
        assert all(t.graded_by is not None for t in a.turns)
        assert any("running total" in n and "the scores the plays make" in n for n in a.notes)
        right = analyze(replay_file(GAME01), None, top=1, endgame_seconds=5)
        assert [t.endgame for t in a.turns] == [t.endgame for t in right.turns]
    # a total wrong from a line on (each later total of the player one more): the spread is the plays'
    text = GAME01.read_text(encoding="utf-8")
    lines = text.splitlines()
    bumped = []
    for line in lines:
        if line.startswith(">p1:") and int(line.split()[-1]) >= 144:
            head, total = line.rsplit(" ", 1)
            line = f"{head} {int(total) + 1}"
        bumped.append(line)
    r = replay_text("\n".join(bumped) + "\n", strict=False)
    assert len(r.errors) == 1
    assert r.played_scores(21) == replay_file(GAME01).turns[20].scores != r.turns[20].scores
    a = analyze(r, None, top=1, endgame_seconds=5)
    right = analyze(replay_file(GAME01), None, top=1, endgame_seconds=5)
    assert [t.endgame for t in a.turns] == [t.endgame for t in right.turns]
    assert a.turns[20].endgame.spread == 413 - 490


def test_cli_analyses_a_record_whose_total_is_wrong(tmp_path, capsys):
    path = tmp_path / "bad.gcg"
    path.write_text(game01_text(**{"+39 144\n": "+39 145\n"}), encoding="utf-8")
    assert main(["analyze", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert len(d["turns"]) == 24 and d["does_not_replay_from"] is None
    assert any("line 15: p1's running total is 144" in n for n in d["notes"])


def test_turns_after_a_play_that_does_not_replay_are_not_graded(tmp_path, capsys):
    """'L9 FOIST' for 'L8 FOIST' (line 15): the board differs from the game's from there on; the
    turns after it are listed, not graded; the library (and the web, which calls it) and the CLI
    follow the rule."""
    text = game01_text(**{"L8 FOIST +39 144": "L9 FOIST +39 144"})
    a = analyze(replay_text(text, strict=False), None, top=1, endgame_seconds=1)
    assert a.does_not_replay_from == 15
    before = [t for t in a.turns if t.line < 15]
    after = [t for t in a.turns if t.line > 15]
    assert len(before) == 6 and all(t.graded_by == "static" for t in before)
    assert after and all(t.graded_by is None and t.rank is None and t.best == () for t in after)
    assert all(t.note == "not graded: the record does not replay from line 15" for t in after)
    assert any("does not replay from line 15" in n for n in a.notes)
    assert all(p.ranked <= 4 for p in a.players)
    path = tmp_path / "bad.gcg"
    path.write_text(text, encoding="utf-8")
    assert main(["analyze", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    d = json.loads(out)  # the analysis, then the line that says what is wrong
    assert d["does_not_replay_from"] == 15
    assert err.strip() == ("racksmith: bad.gcg: the record does not replay from line 15: L9 FOIST scores 31, the record "
                           "says +39 (and 5 more errors); the turns after it are not graded (the positions after it "
                           "are not the game's); 'racksmith gcg replay' lists the problems")


# --- 4. withdrawn plays and the lines that are not turns ---------------------------------------------------
HAND = """#character-encoding UTF-8
#lexicon enable
#player1 alice Alice
#player2 bob Bob
>alice: AEIOUUV -IOUUV +0 0
>bob: ADEIRST 8D DISRATE +70 70
>alice: AEGHNOT F6 {play} +{score} {score}
>alice: AEGHNOT --  -{score} 0
>bob: IIQUUVW - +0 70
>alice: AEGHNOT F6 HO.TAGE +21 21
>bob: IIQUUVW -IUVW +0 70
>alice: ABNORSU E5 NUB.A +25 46
>alice: ABNORSU (challenge) +5 51
>bob: EIIKQRU 12B QUIR. +28 98
>alice:  (time) -10 41
>bob:  (time) -20 78
"""


@pytest.mark.parametrize("play, score, words", [("HO.TAGE", 21, "its words are all in enable"),
                                                 ("TO.HE", 12, "a phony: not in the lexicon (enable): TOSHE")])
def test_a_play_challenged_off_is_graded_as_the_turn_it_lost(play, score, words):
    """A withdrawn play (valid or not) placed nothing and scored nothing: graded as a pass against
    the best move (it was graded as if it stood, 18th of 1268; a phony one added nothing)."""
    a = analyze(replay_text(HAND.format(play=play, score=score)), top=2, endgame_seconds=None)
    t = a.turns[2]
    assert t.withdrawn and t.played_score == 0 and t.withdrawn_score == score
    assert t.note == f"challenged off: turn lost; {words}"
    pass_turn = a.turns[3]  # bob's pass, graded the same way
    from racksmith import get_ruleset
    from racksmith.lexicon import load_leaves
    from racksmith.review.analysis import kept_rack_value

    for turn in (t, pass_turn):  # a pass is worth the rack it keeps (the sub-leave prior), not -50
        rack = list(get_ruleset("english").alphabet.rack(turn.rack))
        assert turn.played_equity == round(kept_rack_value(load_leaves("english"), rack), 5)
    assert pass_turn.played_equity < 0 < t.played_equity and 1 < t.rank < t.moves
    assert t.graded_by == "static" and t.equity_lost == pytest.approx(t.best[0].equity - t.played_equity)
    alice = a.players[0]
    assert alice.challenged_off == 1 and alice.ranked == 4
    assert alice.equity_lost == pytest.approx(sum(u.equity_lost for u in a.turns if u.player == "alice"))
    d = t.to_dict()
    assert d["score"] == 0 and d["withdrawn_score"] == score and d["withdrawn"]


def test_the_lines_that_are_not_turns_are_listed_as_events(capsys, tmp_path):
    a = analyze(replay_text(HAND.format(play="HO.TAGE", score=21)), top=1, endgame_seconds=None)
    assert [(e.kind, e.player, e.score, e.after_turn) for e in a.events] == [
        ("withdrawn", "alice", -21, 3), ("challenge_bonus", "alice", 5, 7), ("time_penalty", "alice", -10, 8),
        ("time_penalty", "bob", -20, 8)]
    assert "the play of turn 7 was challenged and stood" in a.events[1].text
    assert a.to_dict()["events"][1] == {"line": 13, "player": "alice", "kind": "challenge_bonus",
                                        "action": "(challenge)", "score": 5, "after_turn": 7,
                                        "text": a.events[1].text}
    josh = analyze(replay_file(GCG_DIR / "macondo" / "josh2.gcg"), None, top=1, endgame_seconds=0.2)
    bonuses = [e for e in josh.events if e.kind == "challenge_bonus"]
    assert len(bonuses) == 4 and all(josh.turns[e.after_turn - 1].player == e.player for e in bonuses)
    assert [e.kind for e in josh.events if e.kind != "challenge_bonus"] == ["withdrawn", "going_out"]
    path = tmp_path / "hand.gcg"
    path.write_text(HAND.format(play="HO.TAGE", score=21), encoding="utf-8")
    assert main(["analyze", str(path), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "(time): time penalty" in out and "(challenge): challenge bonus" in out
    assert "F6 HO(S)TAGE (challenged off)" in out


# --- 5. phonies and the lexicon ---------------------------------------------------------------------------
def test_a_phony_names_its_words_and_the_lexicon_assumed(capsys, tmp_path):
    path = GCG_DIR / "macondo" / "noah_vs_mishu.gcg"
    a = analyze(replay_file(path), None, top=1, endgame_seconds=0.2)
    assert a.notes[0] == "the record names no lexicon: words checked with enable" and a.lexicon == "enable"
    assert a.turns[34].note == "a phony: not in the lexicon (enable): RAI" and a.turns[34].rank is None
    opening = tmp_path / "opening.gcg"
    opening.write_text("#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n", encoding="utf-8")
    assert main(["analyze", str(opening), "--top", "1"]) == 0
    assert capsys.readouterr().out.startswith("lexicon: enable (the record names none); leaves: english (shipped)\n")
    assert main(["analyze", str(GAME01), "--top", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["notes"] == ["the record names lexicon ENABLE15; moves were generated from enable"]
    assert (d["lexicon"], d["record_lexicon"]) == ("enable", "ENABLE15")


# --- 8. a down opening is the move played ----------------------------------------------------------------
def test_a_down_opening_is_marked_played_in_the_best_list(capsys, tmp_path):
    text = "#lexicon enable\n#player1 a A\n#player2 b B\n>a: AEKNOQR H4 KRONA +28 28\n"
    (t,) = analyze(replay_text(text), top=3).turns
    assert t.played == "H4 KRONA" and t.rank == 2
    assert [(c.notation, c.played) for c in t.best[:2]] == [("8D KRONE", False), ("8D KRONA", True)]
    path = tmp_path / "down.gcg"
    path.write_text(text, encoding="utf-8")
    assert main(["analyze", str(path), "--top", "2"]) == 0
    assert "8D KRONA *" in capsys.readouterr().out
    assert main(["analyze", str(path), "--json"]) == 0
    assert [c["played"] for c in json.loads(capsys.readouterr().out)["turns"][0]["best"]] == [False, True, False]


# --- 7. progress ------------------------------------------------------------------------------------------
def test_progress_is_reported_turn_by_turn_and_on_stderr(capsys, monkeypatch):
    seen = []
    analyze(replay_file(GAME01), None, top=1, endgame_seconds=2, progress=lambda *a: seen.append(a))
    assert seen[0] == (0, 24, "turn 1 of 24") and seen[-1] == (24, 24, "done")
    assert (20, 24, "turn 21 of 24: solving the endgame") in seen
    from rich.console import Console

    from racksmith.cli import game_cmds

    buffer = io.StringIO()
    monkeypatch.setattr(game_cmds, "err_console", Console(file=buffer, force_terminal=True, width=100))
    assert main(["analyze", str(GAME01), "--json", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["turns"]  # nothing on stdout but the result
    assert "analysing turn" in buffer.getvalue()
