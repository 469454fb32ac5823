"""Property tests on short random games: invariants after every action, undo back to the start,
records that replay to the same scores."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith.play.game import Game
from racksmith.lexicon import load_lexicon
from racksmith.review.replay import replay_text

ENABLE = None


def enable():
    global ENABLE
    if ENABLE is None:
        ENABLE = load_lexicon("enable", ruleset="english")
    return ENABLE


def snapshot(game: Game):
    return (game.cgp(), tuple(game.racks), tuple(game.scores), tuple(game.bag.order()), tuple(game.history), game.over)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=40))
def test_random_games_keep_their_invariants(seed, picks):
    g = Game("english", enable(), seed=seed)
    start = snapshot(g)
    states = [start]
    for pick in picks:
        if g.over:
            break
        moves = g.legal_moves(exchanges=True)
        action = pick % 10
        if action == 0 and g.history and g.history[-1].kind == "play" and g.history[-1].player != g.to_move:
            g.challenge(bonus=pick % 2 * 5)
        elif action == 1 and len(g.history) > 0:
            g.undo()
            states.pop()
            assert snapshot(g) == states[-1]
            continue
        else:
            g.play(moves[pick % len(moves)])
        states.append(snapshot(g))
        assert g.check_invariants() == []
    r = replay_text(g.gcg())
    assert r.ok, r.errors
    assert r.final_scores() == dict(zip(g.nicks, g.scores))
    assert r.over == g.over
    while g._actions:
        g.undo()
    assert snapshot(g) == start
