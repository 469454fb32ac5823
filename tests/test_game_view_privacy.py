"""What a player sees of a game: ``GameView.history`` shows another player's events as the board
shows them (no rack, no tiles drawn, an exchange as its count, no equity, leave or position of his
move), ``GameView.moves`` keeps the view's position; and a failed double challenge is an event
of its own, written to GCG with the ``#unsuccessful-challenge`` note and analysed as such."""
from __future__ import annotations

from collections import Counter

import pytest

from racksmith import BestEquityPlayer, EventKind, Game, GameView, analyze
from racksmith.formats.gcg import parse_gcg
from racksmith.review.replay import FAILED_CHALLENGE_TAG, replay_text
from racksmith.rules.alphabet import THROUGH

PUBLIC = (EventKind.OUT, EventKind.RACK_PENALTY)
EQUITY = BestEquityPlayer()


def rebuilt(e) -> list[int]:
    """The rack after ``e`` as its event would tell it: rack, less what was played, plus what was drawn."""
    rack = Counter(e.rack)
    rack.subtract(Counter(e.move.rack_tiles() if e.move.is_place else e.move.tiles))
    rack.update(e.drawn)
    return sorted(rack.elements())


def check_view(game: Game, view: GameView) -> None:
    viewer = view.player
    seen, real = view.history, game.history
    assert len(seen) == len(real)
    for s, r in zip(seen, real):
        # what the board shows is unchanged
        assert (s.player, s.kind, s.score, s.total, s.tiles, s.bingo, s.failed_challenge) == (
            r.player, r.kind, r.score, r.total, r.tiles, r.bingo, r.failed_challenge)
        if s.player == viewer or s.kind in PUBLIC:
            assert s == r and s.rack == r.rack and s.drawn == r.drawn
            if s.move is not None:
                assert s.move == r.move and s.move.leave == r.move.leave and s.move.equity == r.move.equity
        else:
            assert not s.rack and not s.drawn
            if s.move is not None:
                assert s.move.equity is None and s.move.leave is None and s.move.position is None
                if s.kind == EventKind.EXCHANGE:
                    assert s.move.is_exchange and s.move.tiles == (THROUGH,) * len(r.move.tiles)
                    assert s.move.notation() == f"-{len(r.move.tiles)}"
                else:
                    assert s.move == r.move  # the play (its squares and tiles) is public
        if s.move is not None and s.move.position is not None:  # (another rack: at most the tiles of it seen)
            assert not any(s.move.position.racks_known[1:])
            assert all(len(r) < game.ruleset.rack_size for r in s.move.position.racks[1:])
    # another rack shows only the tiles of it the viewer saw (a play withdrawn after a challenge)
    seen = view.position
    phonies = any(e.kind == EventKind.PHONY for e in game.history)
    for i, rack in enumerate(seen.racks[1:], 1):
        assert not Counter(rack) - Counter(game.racks[(viewer + i) % len(game.nicks)])
        assert phonies or not rack
    moves = view.moves(top=3, sort="equity", exchanges=True)
    assert moves.position.racks_known[1:] == (False,) * (len(game.nicks) - 1)
    assert moves.position.racks[1:] == seen.racks[1:]
    if len(moves):
        assert moves[0].position.racks_known[1:] == (False,) * (len(game.nicks) - 1)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_history_hides_the_other_racks(seed):
    game = Game("english", seed=seed)
    view = GameView(game)
    game.exchange(list(game.rack)[:3])  # an exchange, forced
    for turn in range(40):
        if game.over:
            break
        check_view(game, view)
        last = view.history[-1]
        if last.player != view.player and last.kind in (EventKind.PLAY, EventKind.EXCHANGE):
            assert rebuilt(last) != sorted(game.racks[last.player])  # nothing to rebuild from
        if turn == 3:  # an exchange of the second player too
            game.exchange(list(game.rack)[:2])
        else:
            game.play(EQUITY.choose(view))
    check_view(game, view)
    assert any(e.kind == EventKind.EXCHANGE for e in game.history)


def test_the_audit_repro():
    g = Game("english", seed=3)
    view = GameView(g)
    for _ in range(3):
        g.play(EQUITY.choose(view))
    e = view.history[-1]
    assert rebuilt(e) != sorted(g.racks[0]) and not e.rack and not e.drawn
    assert rebuilt(g.history[-1]) == sorted(g.racks[0])  # the game itself keeps every tile


def test_withdrawn_phony_and_three_players():
    g = Game("english", players=3, seed=4)
    view = GameView(g)
    g.play(EQUITY.choose(view))  # 8D VOICE
    assert str(g.history[-1].move.notation()) == "8D VOICE" and "H" in str(g.rack) and "A" in str(g.rack)
    g.play("9D HA", check_words=False)  # VH: a phony
    assert g.challenge() is True
    check_view(g, view)
    e = view.history[-1]
    assert e.kind == EventKind.PHONY and not e.rack and g.history[-1].rack
    for _ in range(4):
        g.play(EQUITY.choose(view))
        check_view(g, view)


def failed_challenge_game() -> Game:
    g = Game("english", seed=1)
    g.play(EQUITY.choose(GameView(g)))
    assert g.challenge() is False
    return g


def test_failed_double_challenge_is_recorded():
    g = failed_challenge_game()
    e = g.history[-1]
    assert e.kind == EventKind.PASS and e.failed_challenge and e.player == 1
    line = [ln for ln in g.gcg().splitlines() if ln.startswith(">p2:")][0]
    lines = g.gcg().splitlines()
    assert lines[lines.index(line) + 1] == f"#note {FAILED_CHALLENGE_TAG}"
    turn = analyze(replay_text(g.gcg())).turns[1]
    assert turn.failed_challenge and turn.rank is None and turn.equity_lost is None


def test_failed_challenge_round_trip_and_undo():
    g = failed_challenge_game()
    text = g.gcg()
    record = parse_gcg(text)
    assert record.events[1].note == FAILED_CHALLENGE_TAG and record.gcg() == text
    replay = replay_text(text)
    assert [t.failed_challenge for t in replay.turns] == [False, True]
    assert list(replay.scores) == g.scores
    view = GameView(g)
    while not g.over:
        g.play(EQUITY.choose(view))
    assert list(replay_text(g.gcg()).scores) == g.scores
    for _ in range(len(g.history)):
        if len(g.history) == 1:
            break
        g.undo()
    assert [e.kind for e in g.history] == [EventKind.PLAY] and g.to_move == 1
    g.pass_()  # a pass chosen: no note
    assert not g.history[-1].failed_challenge and "#note" not in g.gcg()
    g.undo()
    assert g.challenge() is False and g.history[-1].failed_challenge and g.to_move == 0
    assert not g.check_invariants()
