"""The game state machine: bag, turns, both end-of-game rules, six scoreless turns, challenges,
undo, nothing half-applied, and GCG written by a game replaying in racksmith."""
from __future__ import annotations

import dataclasses
import random

import pytest

from racksmith import EventKind, Game, Position
from racksmith.core.bag import Bag, distribution, game_rng
from racksmith.errors import IllegalMoveError, InvalidMoveError, PositionError, RacksmithError
from racksmith.lexicon import Lexicon
from racksmith.review.replay import replay_text
from racksmith.rules.ruleset import Ruleset, get_ruleset

ENGLISH = get_ruleset("english")


def tiny(end_rule: str = "tournament") -> Ruleset:
    """7x7, racks of 3, eight tiles: both racks drawn, two tiles left in the bag."""
    return Ruleset.from_dict(
        {
            "name": "tiny",
            "board": ["......."] * 7,
            "tiles": [["A", 3, 1], ["B", 1, 3], ["E", 2, 1], ["T", 2, 1]],
            "rack_size": 3,
            "bingo_bonus": 10,
            "start": "4D",
            "exchange_limit": 3,
            "end_rule": end_rule,
        }
    )


TINY_WORDS = ["BAT", "TEA", "AE", "EA", "AT", "TA", "ABA"]


def tiny_game(end_rule: str = "tournament", order: str = "BATEATEA") -> Game:
    rs = tiny(end_rule)
    return Game(rs, Lexicon.from_words(TINY_WORDS, rs), bag_order=rs.alphabet.encode(order))


def state(game: Game):
    """Everything observable about a game, for exact before/after comparisons."""
    return (
        game.cgp(),
        tuple(game.racks),
        tuple(game.scores),
        tuple(game.bag.order()),
        tuple(game.history),
        game.to_move,
        game.zero_turns,
        game.over,
    )


# --- the bag ------------------------------------------------------------------------------------
def test_bag_is_reproducible_and_complete():
    a = Bag(ENGLISH, game_rng(7, 3))
    b = Bag(ENGLISH, game_rng(7, 3))
    c = Bag(ENGLISH, game_rng(7, 4))
    assert a.order() == b.order() != c.order()
    assert sorted(a.order()) == distribution(ENGLISH)
    assert len(a) == 100 and sum(a.counts()) == 100 and a.counts()[0] == 2
    order = a.order()
    first = order[:7]
    # the first seven of the order are the tiles drawn (the list from the end of the bag: reversed),
    # and the order after them is the rest of it
    assert a.draw(7) == first[::-1] and a.order() == order[7:]
    assert a.draw(0) == [] and len(a) == 93
    assert Bag(ENGLISH, order=distribution(ENGLISH)).draw(3) == [0, 0, 1][::-1]


def test_bag_put_back_and_unshift():
    bag = Bag(ENGLISH, 1)
    drawn = bag.draw(5)
    before = bag.order()
    bag.unshift(drawn)
    assert bag.draw(5) == drawn and bag.order() == before
    bag.put_back(drawn)
    assert sorted(bag.order()) == sorted(before + drawn)
    assert bag.draw(200) and len(bag) == 0 and bag.draw(3) == []


def test_bag_order_must_be_the_whole_set():
    with pytest.raises(PositionError, match="exactly the 100 tiles"):
        Bag(ENGLISH, order=[1, 2, 3])


# --- turns and the end of the game --------------------------------------------------------------
def test_tournament_rule_going_out():
    g = tiny_game()
    a = g.ruleset.alphabet
    assert [a.rack_string(r) for r in g.racks] == ["ABT", "AET"]
    e1 = g.play("4C BAT")
    assert (e1.score, e1.bingo, a.rack_string(g.racks[0]), len(g.bag)) == (15, True, "AE", 0)
    assert g.play("E4 .EA").score == 3
    g.play("F5 AE")
    assert g.over
    assert [(e.kind, e.score, e.total) for e in g.history[-2:]] == [("play", 6, 21), ("out", 2, 23)]
    assert g.scores == [23, 3] and g.winners == [0]
    assert not g.check_invariants()
    with pytest.raises(IllegalMoveError) as info:
        g.pass_()
    assert info.value.reason == "game_over"


def test_club_rule_going_out():
    g = tiny_game("club")
    for m in ("4C BAT", "E4 .EA", "F5 AE"):
        g.play(m)
    assert [(e.player, e.kind, e.score) for e in g.history[-2:]] == [(0, "out", 1), (1, "rack_penalty", -1)]
    assert g.scores == [22, 2]
    assert not g.check_invariants()


def test_six_scoreless_turns_end_the_game():
    g = Game("english", lexicon=set(), seed=3)
    racks = list(g.racks)
    for _ in range(5):
        g.pass_()
        assert not g.over
    g.pass_()
    assert g.over
    rs = g.ruleset
    penalties = [(e.player, e.kind, e.score, e.tiles) for e in g.history[6:]]
    assert penalties == [
        (1, "rack_penalty", -rs.rack_value(racks[1]), racks[1]),
        (0, "rack_penalty", -rs.rack_value(racks[0]), racks[0]),
    ]
    assert g.scores == [-rs.rack_value(racks[0]), -rs.rack_value(racks[1])]


def test_exchange_draws_first_and_needs_a_full_bag():
    g = Game("english", lexicon=set(), seed=11)
    rack = g.rack
    e = g.exchange(list(rack[:3]))
    assert e.kind == "exchange" and len(e.drawn) == 3 and e.score == 0
    assert len(g.bag) == 86 and len(g.racks[0]) == 7
    assert not g.check_invariants()
    small = tiny_game()
    with pytest.raises(IllegalMoveError) as info:
        small.exchange("A")
    assert info.value.reason == "exchange_not_allowed"


def test_illegal_actions_change_nothing():
    g = tiny_game()
    before = state(g)
    for move, reason in [
        ("4A BAT", "must_cover_start"),
        ("4C TEA", "not_in_rack"),
        ("4C AB", "invalid_words"),
        ("-Z", "not_in_rack"),
    ]:
        with pytest.raises((IllegalMoveError, RacksmithError)) as info:
            g.play(move)
        if isinstance(info.value, IllegalMoveError):
            assert info.value.reason == reason
        assert state(g) == before
    g.play("4C BAT")
    mid = state(g)
    with pytest.raises(IllegalMoveError) as info:
        g.play("3A TA")
    assert info.value.reason == "not_connected"
    assert state(g) == mid


def test_players_and_sizes_are_checked():
    with pytest.raises(RacksmithError, match="at least 2 players"):
        Game("english", players=1)
    with pytest.raises(RacksmithError, match="distinct"):
        Game("english", players=["a", "a"])
    with pytest.raises(RacksmithError, match="need 9 tiles"):
        Game(tiny(), players=3)
    four = Game("english", lexicon=set(), players=["a", "b", "c", "d"], seed=1)
    assert len(four.bag) == 72 and four.live_position.racks[0] == four.racks[0]
    four.pass_()
    assert four.live_position.racks[0] == four.racks[1] and four.live_position.racks[3] == four.racks[0]


# --- challenges, time, undo ---------------------------------------------------------------------
def test_withdrawn_phony_restores_rack_bag_and_board():
    g = tiny_game(order="BATEATEA")
    g.play("4C BAT")
    before = state(g)
    g.play("4F A", check_words=False)  # BATA: a phony
    assert g.challenge() is True
    kinds = [(e.kind, e.score) for e in g.history]
    assert kinds == [("play", 15), ("play", 6), ("phony", -6)]  # 4F A makes BATA
    assert g.racks == list(before[1]) and g.bag.order() == list(before[3])
    assert g.cgp() != before[0]  # the player to move is the challenger, as before
    assert g.to_move == 0 and g.zero_turns == 1 and g.scores == [15, 0]
    g.undo()  # takes back the challenge: the phony is on the board again
    assert [e.kind for e in g.history] == ["play", "play"] and g.scores == [15, 6]
    g.undo()
    assert state(g) == before


def test_challenged_play_that_stands():
    g = tiny_game()
    g.play("4C BAT")
    assert g.challenge(bonus=5) is False
    assert [(e.kind, e.player, e.score) for e in g.history] == [("play", 0, 15), ("challenge", 0, 5)]
    assert g.scores == [20, 0] and g.to_move == 1
    g.undo()
    assert g.challenge() is False  # double challenge: the challenger loses his turn
    assert [(e.kind, e.player) for e in g.history] == [("play", 0), ("pass", 1)]
    assert g.to_move == 0
    with pytest.raises(IllegalMoveError) as info:
        g.challenge()
    assert info.value.reason == "no_play_to_challenge"


def test_challenging_the_play_that_went_out_reopens_the_game():
    g = tiny_game()
    g.play("4C BAT")
    g.play("E4 .EA")
    g.play("F5 AE", check_words=False)
    assert g.over
    g.undo()
    g.play("F5 AE")
    ended = state(g)
    # a valid out-play with a challenge bonus: the bonus comes before the end-of-game event
    assert g.challenge(bonus=5) is False
    assert [(e.kind, e.score) for e in g.history[-3:]] == [("play", 6), ("challenge", 5), ("out", 2)]
    assert g.scores == [28, 3] and g.over
    g.undo()
    assert state(g) == ended
    rs = g.ruleset
    lex = Lexicon.from_words(["BAT", "TEA"], rs)  # without AE/EA the out-play is a phony
    g2 = Game(rs, lex, bag_order=rs.alphabet.encode("BATEATEA"))
    g2.play("4C BAT")
    g2.play("E4 .EA")
    g2.play("F5 AE", check_words=False)
    assert g2.over
    assert g2.challenge() is True
    assert not g2.over and g2.to_move == 1 and g2.scores == [15, 3]
    assert g2.rack == tuple(rs.alphabet.rack("T"))


def test_time_penalty():
    g = tiny_game()
    g.play("4C BAT")
    e = g.time_penalty(1, 10)
    assert (e.kind, e.score, e.total) == ("time", -10, -10)
    with pytest.raises(RacksmithError):
        g.time_penalty(1, 0)
    with pytest.raises(RacksmithError):
        g.time_penalty(5, 3)
    g.undo()
    assert g.scores == [15, 0]


def test_points_a_gcg_record_cannot_hold_are_refused_and_the_record_replays():
    """A time penalty of 10**12 or a bonus of 10**9 was taken, and the game then wrote a record its
    own reader refused ("at most 9 digits")."""
    g = tiny_game()
    g.play("4C BAT")
    before = state(g)
    for points in (10**12, 10**9, 0, -3, 2.5, True, "5"):
        with pytest.raises(RacksmithError, match="time penalty is a positive whole number"):
            g.time_penalty(0, points)
    for bonus in (10**9, -5, 1.5, True, "x"):  # 'x' once popped the play, then failed adding it
        with pytest.raises(RacksmithError, match="a challenge bonus is 0"):
            g.challenge(bonus=bonus)
        assert state(g) == before
    with pytest.raises(RacksmithError, match="would take p1's score past 999,999,999"):
        g.challenge(bonus=999_999_999)
    assert state(g) == before
    assert g.challenge(bonus=999_999_984) is False  # the most a record holds
    g.time_penalty(1, 999_999_999)
    with pytest.raises(RacksmithError, match="would take p2's score below -999,999,999"):
        g.time_penalty(1, 1)
    assert g.scores == [999_999_999, -999_999_999]
    r = replay_text(g.gcg(), g.ruleset)
    assert r.ok and r.final_scores() == dict(zip(g.nicks, g.scores))


def test_a_record_with_points_past_nine_digits_is_refused_not_written():
    g = Game("english", lexicon=set(), seed=2)
    g.pass_()
    g.history[-1] = dataclasses.replace(g.history[-1], score=10**10, total=10**10)  # (as a huge play would score)
    with pytest.raises(RacksmithError, match="a GCG record holds scores of at most 999,999,999 points"):
        g.gcg()


def test_a_huge_number_of_players_is_refused_before_anything_is_made():
    """Game(players=2**70) built 2**70 nicks: a MemoryError (a process killed for memory)."""
    with pytest.raises(RacksmithError, match="the english set has 100 \\(at most 14 players\\)"):
        Game("english", players=2**70)
    with pytest.raises(RacksmithError, match="the english set has 100 \\(at most 14 players\\)"):
        Game("english", players=15)
    assert len(Game("english", lexicon=set(), players=14).racks) == 14
    with pytest.raises(RacksmithError, match="at least 2 players, got -3"):
        Game("english", players=-3)
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
    with pytest.raises(RacksmithError, match="1180591620717411303424 players for a position of 2 racks"):
        Game.from_cgp(cgp, players=2**70)
    many = Position("english", None, [ENGLISH.alphabet.rack("A")] + [()] * 14)  # 15 racks, 14 of them unknown
    with pytest.raises(RacksmithError, match="a game of english has at most 14 players"):
        Game.from_position(many)


def test_play_trusted_takes_a_move_not_text():
    g = Game("english", lexicon=set(), seed=2)
    before = state(g)
    for move in ("8H ZZZ", None, 5):
        with pytest.raises(InvalidMoveError, match="play_trusted takes a Move"):
            g.play_trusted(move)
        assert state(g) == before


def test_undo_everything_returns_to_the_start():
    g = Game("english", lexicon=set(), seed=5)
    start = state(g)
    rng = random.Random(0)
    for _ in range(12):
        if g.over:
            break
        if len(g.bag) >= 7 and rng.random() < 0.6:
            g.exchange(rng.sample(g.rack, rng.randint(1, 7)))
        else:
            g.pass_()
    while g.history:
        g.undo()
    assert state(g) == start
    with pytest.raises(RacksmithError, match="nothing to undo"):
        g.undo()


def test_undo_then_redo_the_same_exchange_draws_the_same_tiles():
    g = Game("english", lexicon=set(), seed=9)
    tiles = list(g.rack[:4])
    first = g.exchange(tiles)
    after = state(g)
    g.undo()
    again = g.exchange(tiles)
    assert again.drawn == first.drawn and state(g) == after


# --- records ------------------------------------------------------------------------------------
def test_game_gcg_replays_in_racksmith():
    g = tiny_game()
    g.play("4C BAT")
    g.play("E4 .EA", check_words=False)
    g.challenge(bonus=5)
    g.play("F5 AE")
    text = g.gcg([("description", "a test")])
    assert text.splitlines()[:5] == [
        "#character-encoding UTF-8",
        "#description a test",
        "#tile-distribution tiny",
        "#player1 p1 p1",
        "#player2 p2 p2",
    ]
    assert ">p1: ABT 4C BAT +15 15" in text and ">p2: T (challenge) +5 8" in text and ">p1: (T) +2 23" in text
    r = replay_text(text, tiny())
    assert r.ok, r.errors
    assert r.final_scores() == {"p1": 23, "p2": 8}


def test_withdrawn_phony_gcg_replays():
    g = tiny_game()
    g.play("4C BAT")
    g.play("4F A", check_words=False)
    g.challenge()
    text = g.gcg()
    assert ">p2: AET 4C ...A +6 6\n>p2: AET -- -6 0\n" in text
    r = replay_text(text, tiny())
    assert r.ok and r.final_scores() == {"p1": 15, "p2": 0}


# --- games from a position ------------------------------------------------------------------------------
MIDGAME = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"


def test_a_game_from_a_cgp_plays_to_the_end_with_tiles_conserved():
    from racksmith import BestScorePlayer, GameView, load_lexicon

    g = Game.from_cgp(MIDGAME, lexicon=load_lexicon("enable"), seed=7)
    rs = g.ruleset
    assert [str(r) for r in g.racks] == ["EEIIORS", "IIJORRR"] and g.scores == [0, 16]
    assert len(g.bag) == rs.total_tiles - 6 - 14 and not g.check_invariants()
    player, view = BestScorePlayer(), GameView(g)
    while not g.over:
        g.play(player.choose(view))
        assert not g.check_invariants()
        held = len(g.bag) + sum(map(len, g.racks)) + int((g.board != 0).sum())
        assert held == rs.total_tiles
    assert g.history[-1].kind in (EventKind.OUT, EventKind.RACK_PENALTY)
    assert g.live_position.outcome().scores == tuple(g.scores[(g.to_move + i) % 2] for i in range(2))
    assert set(g.winners) <= {0, 1} and max(g.scores) == g.scores[g.winners[0]]
    with pytest.raises(RacksmithError, match="cannot describe the game"):
        g.gcg()  # a record replays from the empty board
    while g.history:
        g.undo()
    assert g.cgp() == MIDGAME and len(g.bag) == 80


def test_a_player_s_view_hides_the_other_racks_and_is_his_own_copy():
    """``GameView.position``: the board, scores and his rack as the game has them, every other
    rack hidden (its tiles among the unseen), on each ruleset and with three players; changing it
    leaves the game as it was."""
    from racksmith import BestEquityPlayer, GameView

    for ruleset, players in (("english", 2), ("english", 3), ("erudit", 2)):
        g = Game(ruleset, seed=11, players=players)
        player, view = BestEquityPlayer(), GameView(g)
        for _ in range(6):
            live, seen = g.live_position, view.position
            assert seen.racks_known == (True,) + (False,) * (players - 1)
            assert seen.racks[0] == live.racks[0] == view.rack and all(len(r) == 0 for r in seen.racks[1:])
            assert (seen.board == live.board).all() and list(seen.scores) == list(live.scores)
            assert sorted(seen.unseen_tiles()) == sorted(g.bag.order() + [t for r in live.racks[1:] for t in r])
            assert [m.notation() for m in seen.moves()] == [m.notation() for m in live.moves()]
            before = g.cgp()
            m = seen.moves(top=1)[0]
            seen.push(m, trusted=True)
            assert g.cgp() == before and live.racks[0] == view.rack  # the game untouched
            g.play(player.choose(view))


def test_a_game_from_a_position_draws_an_unknown_rack_and_keeps_the_seed():
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 2")
    a = Game.from_position(pos, seed=3, players=["ann", "bob"])
    b = Game.from_position(pos, seed=3)
    c = Game.from_position(pos, seed=4)
    assert len(a.racks[1]) == 7 and a.racks == b.racks and a.bag.order() == b.bag.order() != c.bag.order()
    assert a.nicks == ("ann", "bob") and a.zero_turns == 2 and a.scores == [0, 16]
    assert pos.racks[1] == () and pos.cgp().endswith("EEIIORS/ 0/16 2")  # the position is not changed
    with pytest.raises(RacksmithError, match="3 players for a position of 2 racks"):
        Game.from_position(pos, players=3)


def test_a_game_from_the_empty_board_writes_a_record_that_replays():
    g = Game.from_cgp("7/7/7/7/7/7/7 ABT/AET 0/0 0", tiny(), Lexicon.from_words(TINY_WORDS, tiny()), seed=1)
    for m in ("4C BAT", "E4 .EA", "F5 AE"):
        g.play(m)
    r = replay_text(g.gcg(), tiny())
    assert r.ok and r.over and r.final_scores() == dict(zip(g.nicks, g.scores))


def test_game_state_is_read_through_properties():
    g = tiny_game()
    pos = g.position
    assert isinstance(pos, Position) and pos == g.live_position and pos is not g.live_position
    g.play("4C BAT")
    assert g.position.move_stack[-1].notation() == "4C BAT" and pos.move_stack == []
    back = g.position
    back.pop()
    assert back.cgp() == pos.cgp()  # the copy takes back the game's moves without touching the game
    assert g.winners == [0] and g.over is False and str(g.rack) == "AET"
    e = g.history[0]
    assert repr(e.rack) == "Tiles('ABT')" and str(e.drawn) == "AE" and e.kind == "play" and e.kind is EventKind.PLAY


def test_a_copy_of_a_game_is_independent():
    """copy.copy, Game.copy and copy.deepcopy: turns played or undone on the copy leave the game as
    it was (copy.copy shared the board, bag and history, so the original got the copy's turn with
    the wrong player to move); the copy plays on exactly as the game would."""
    import copy

    from racksmith import BestEquityPlayer, GameView

    player = BestEquityPlayer()
    game = Game("english", seed=7)
    game.play(player.choose(GameView(game)))
    before = (game.position.cgp(), list(game.scores), game.to_move, len(game.history), len(game.bag))
    for make in (copy.copy, copy.deepcopy, Game.copy):
        other = make(game)
        assert other.ruleset is game.ruleset
        for _ in range(3):
            other.play(player.choose(GameView(other)))
        other.undo()
        assert (game.position.cgp(), list(game.scores), game.to_move, len(game.history), len(game.bag)) == before
    ref, other = copy.deepcopy(game), game.copy()
    for g in (ref, other):
        while not g.over:
            g.play(player.choose(GameView(g)))
    assert other.scores == ref.scores and [e.move for e in other.history] == [e.move for e in ref.history]
