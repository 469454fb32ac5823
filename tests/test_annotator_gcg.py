"""GCG records as an annotator writes them: the rack a ``(challenge)`` line shows (the one after
the play and its draw, as MAGPIE and Macondo write and read it), a rack line that lacks tiles its
own line plays, and an opponent's endgame turn whose rack the record shows in part but which is
certain (the bag empty, the other rack known)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from conftest import run_cli as run
from racksmith import BestEquityPlayer, Game, GameView
from racksmith.core.turns import EventKind
from racksmith.errors import GCGError
from racksmith.formats.gcg import parse_gcg
from racksmith.review.analysis import analyze
from racksmith.review.replay import replay_text

HEAD = "#player1 ann Ann\n#player2 bob Bob\n"


# --- 1. the rack of a (challenge) line -------------------------------------------------------------
def _challenged_game() -> Game:
    """KRYO(L)ITE challenged under the 5-point rule: it stands, ann +5 (the auditor's game)."""
    g = Game("english", seed=3, players=["ann", "cat"])
    g.exchange("JPR")
    for m in ["8G VAW", "9H DEEP", "L3 BuGLERS", "8K U(R)INE", "3I GRU(B)BER", "6H KRYO(L)ITE"]:
        g.play(m)
    assert g.challenge(5) is False
    return g


def _line(text: str, part: str) -> str:
    return next(s for s in text.splitlines() if part in s)


def test_challenge_line_shows_the_rack_after_the_play_and_draw():
    g = _challenged_game()
    text = g.gcg()
    assert _line(text, "KRYO") == ">ann: EIKORTY 6H KRYO.ITE +75 111"  # the rack before the play, on its line
    after = str(g.racks[0])  # ann's rack now: what she kept and drew
    assert after != "EIKORTY"
    assert _line(text, "(challenge)") == f">ann: {after} (challenge) +5 116"
    # the rack her next turn shows is the same one (MAGPIE takes the bonus line's rack as hers from there)
    g.play(g.legal_moves()[0])  # cat
    g.play(g.legal_moves()[0])  # ann
    later = g.gcg().splitlines()
    assert later[-1].startswith(f">ann: {after} ")


def test_both_forms_of_the_challenge_line_replay():
    """A record written before (the rack of the play on the bonus line) still replays, to the same
    end, as the one written now."""
    text = _challenged_game().gcg()
    old = text.replace(_line(text, "(challenge)"), ">ann: EIKORTY (challenge) +5 116")
    new, before = replay_text(text), replay_text(old)
    assert new.ok and before.ok
    assert new.final_scores() == before.final_scores() == {"ann": 116, "cat": 124}
    assert (new.board == before.board).all()


def test_challenge_of_a_play_that_goes_out_leaves_the_rack_field_empty():
    """The play emptied the rack: the bonus line has no rack (MAGPIE and Macondo read an empty
    one there), and the record replays complete."""
    g = Game("english", players=["ann", "cat"], seed=5)
    bot, view = BestEquityPlayer(), GameView(g)
    while not g.over:
        g.play(bot.choose(view))
    assert g.history[-1].kind == EventKind.OUT
    play = next(e for e in reversed(g.history) if e.kind == EventKind.PLAY)
    g.undo()
    g.play_trusted(play.move)
    g.challenge(5)
    text = g.gcg()
    nick = g.nicks[play.player]
    bonus = _line(text, "(challenge)")
    assert bonus.startswith(f">{nick}:  (challenge) +5 ")
    r = replay_text(text)
    assert r.complete and r.scores == g.scores


# --- 2. a rack line that lacks tiles its line plays ------------------------------------------------
@pytest.mark.parametrize("rack, missing", [("AEINRT", "S"), ("AEIN", "RST"), ("RT", "AEINS")])
def test_a_rack_shown_in_part_must_hold_the_tiles_its_line_plays(rack, missing):
    text = HEAD + f">ann: {rack} 8D RETAINS +66 66\n"
    with pytest.raises(GCGError) as e:
        replay_text(text)
    assert e.value.line == 3
    assert f"rack {rack} lacks {missing}, which 8D RETAINS plays" in e.value.message
    r = replay_text(text, strict=False)  # collected: the play stands, the rack line is set aside
    assert [x.line for x in r.errors] == [3] and r.rack_errors() == r.errors
    assert r.scores == [66, 0] and not r.turns[0].rack_complete and r.turns[0].rack_slip


def test_a_blank_played_needs_a_question_mark_on_a_rack_shown_in_part():
    with pytest.raises(GCGError, match=r"rack AEINRT lacks \?, which 8D RETAINs plays"):
        replay_text(HEAD + ">ann: AEINRT 8D RETAINs +64 64\n")
    assert replay_text(HEAD + ">ann: ?AEINRT 8D RETAINs +64 64\n").ok  # the tiles played, exactly


@pytest.mark.parametrize("rack", ["AEINRST", "", "?AEINRT"])
def test_partial_racks_that_hold_the_tiles_played_replay(rack):
    play = "8D RETAINs +64 64" if "?" in rack else "8D RETAINS +66 66"
    r = replay_text(HEAD + (f">ann: {rack} {play}\n" if rack else f">ann: {play}\n"))
    assert r.ok and r.scores[1] == 0


def test_a_rack_shown_in_part_is_checked_mid_game_and_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "slip.gcg"
    path.write_text(HEAD + ">ann: AEINRT 8D RETAINS +66 66\n", encoding="utf-8")
    code, out, err = run(capsys, "gcg", "replay", path)
    assert code == 1
    assert "line 3: rack AEINRT lacks S" in out + err


def test_an_exchange_shown_in_part_must_hold_the_tiles_given_back():
    text = HEAD + ">ann: AB -ABC +0 0\n"
    with pytest.raises(GCGError, match="does not hold C"):
        replay_text(text)
    assert replay_text(HEAD + ">ann: ABC -ABC +0 0\n").ok


# --- 3. an endgame rack shown in part, certain all the same ----------------------------------------
def _annotated(g: Game, nick: str) -> str:
    """``g``'s record with ``nick``'s racks written as an annotator writes an opponent's: the tiles
    each play uses, nothing for an exchange or a pass."""
    record = g.record()
    a = record.ruleset.alphabet
    record.events = [
        replace(e, rack=a.rack_string(e.move.rack_tiles()) if e.kind == EventKind.PLAY else "")
        if e.nick == nick and e.kind in (EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS) else e
        for e in record.events
    ]
    return record.gcg()


def _racks_held(g: Game, player: int) -> list:
    """The racks ``player`` held at his turns, in order."""
    return [e.rack for e in g.history if e.player == player and e.kind in (EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS)]


@pytest.fixture(scope="module")
def annotated():
    """A game played out by two bots, the second player's racks written as an annotator's."""
    g = Game("english", players=["ann", "bob"], seed=12)
    bot, view = BestEquityPlayer(), GameView(g)
    while not g.over:
        g.play(bot.choose(view))
    return g, replay_text(_annotated(g, "bob"))


def test_with_the_bag_empty_an_opponents_rack_shown_in_part_is_certain(annotated):
    g, r = annotated
    assert r.ok
    bob = [t for t in r.turns if t.player == 1]
    empty = [t for t in bob if t.bag_count == 0]
    assert empty and any(t.bag_count for t in bob)
    game_racks = _racks_held(g, 1)
    for t in empty:
        assert t.rack_complete
        assert t.rack == game_racks[bob.index(t)]  # the rack he held
        pos = r.position(t.number)
        assert pos.racks_known == (True, True) and pos.racks[0] == t.rack
    assert any(t.rack_inferred for t in empty)
    for t in bob:  # tiles in the bag: his rack is not known (but for a bingo's: all of it shown)
        assert t.rack_inferred == (t.bag_count == 0 and len(t.event.rack) < len(t.rack))
        if t.bag_count:
            assert t.rack_complete == (len(t.rack) == 7)


def test_a_rack_not_shown_is_certain_from_the_last_lines_of_the_game():
    """Scoreless turns end the game with the bag empty: each of bob's passes (no rack shown) is
    certain — from ann's next turn, or, after his last, from ann's rack penalty."""
    g = Game("english", players=["ann", "bob"], seed=12)
    bot, view = BestEquityPlayer(), GameView(g)
    while g.bag_count:
        g.play(bot.choose(view))
    while not g.over:
        g.pass_()
    r = replay_text(_annotated(g, "bob"))
    assert r.complete
    bob = [t for t in r.turns if t.player == 1]
    held = _racks_held(g, 1)
    last = bob[-1]
    assert last.event.kind == EventKind.PASS and not last.event.rack
    assert not any(t.player == 0 for t in r.turns[last.number:])  # (ann has no turn after it)
    for t, rack in zip(bob, held):
        if t.bag_count == 0:
            assert t.rack_complete and t.rack == rack
            assert r.position(t.number).racks_known == (True, True)
    assert last.rack_inferred


def test_analyze_grades_the_certain_rack(annotated):
    _, r = annotated
    result = analyze(r, None, top=1, endgame_seconds=None)
    graded = 0
    for ta, t in zip(result.turns, r.turns):
        if t.player != 1:
            continue
        if t.bag_count and len(t.event.rack) < 7:
            assert ta.rank is None and ta.note.startswith("rack partly recorded")
        else:
            assert ta.rank is not None and ta.moves > 1
            if len(t.event.rack) < len(t.rack):
                rack = r.ruleset.alphabet.rack_string(t.rack)
                assert f"rack {rack} is certain (the bag is empty and the opponent's rack known" in ta.note
                graded += 1
    assert graded


def test_gcg_cgp_does_not_ask_for_a_certain_rack(annotated, tmp_path, capsys):
    _, r = annotated
    turn = next(t for t in r.turns if t.player == 1 and t.bag_count == 0)
    path = tmp_path / "annotated.gcg"
    path.write_text(r.record.gcg(), encoding="utf-8")
    code, out, err = run(capsys, "gcg", "cgp", "--turn", turn.number, path)
    assert code == 0
    assert "to be filled in" not in err
    assert f" {turn.rack}/" in out


def test_a_certain_rack_that_contradicts_the_record_is_left_unknown(annotated):
    """The rack shown holds a tile that the opponent's known rack holds: the two cannot both be
    right, and nothing is inferred (the turn stays ungraded rather than graded with a guess)."""
    _, r = annotated
    t = next(t for t in r.turns if t.rack_inferred and len(t.event.rack) < len(t.rack))
    other = next(tile for tile in r.position(t.number).racks[1] if tile not in t.rack)
    a = r.ruleset.alphabet
    record = parse_gcg(r.record.gcg())
    at = next(i for i, e in enumerate(record.events) if e.line == t.line)
    record.events[at] = replace(record.events[at], rack=a.rack_string([*a.rack(t.event.rack), other]))
    again = replay_text(record.gcg())
    assert again.ok
    turn = again.turns[t.number - 1]
    assert not turn.rack_complete and not turn.rack_inferred
