"""Playing on a position: push/pop/play against the MAGPIE game records (every board and score on the
way there and back), illegal moves and bad draws that change nothing, the end of the game under both
end rules and the zero-turn limit, and random push/pop sequences that restore the start exactly."""
from __future__ import annotations

import pickle
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith import (
    EndReason,
    EventKind,
    IllegalMoveError,
    InvalidMoveError,
    Lexicon,
    Move,
    Position,
    PositionError,
    Ruleset,
    Tiles,
    Game,
    get_ruleset,
    load_lexicon,
    replay_file,
)
from racksmith.core.turns import ending, unseen_counts

GCG_DIR = Path(__file__).parent / "fixtures" / "gcg"
GAMES = sorted(GCG_DIR.glob("*.gcg"))
OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"


@pytest.fixture(scope="module")
def enable() -> Lexicon:
    return load_lexicon("enable", ruleset="english")


def state(pos: Position):
    """Everything a position is, for exact comparisons (the board by value)."""
    return (pos.board.tobytes(), tuple(pos.racks), tuple(pos.scores), pos.zero_turns, len(pos.move_stack))


def draws_of(record_turns) -> list[list[int]]:
    """The tiles each turn drew, from the racks the record shows: the player's next rack less what
    he kept (nothing after his last turn)."""
    out = []
    for i, t in enumerate(record_turns):
        kept = Counter(t.rack)
        kept.subtract(t.move.rack_tiles() if t.move is not None and t.event.kind == EventKind.PLAY else
                      (t.event.move.tiles if t.event.kind == EventKind.EXCHANGE else ()))
        nxt = next((u for u in record_turns[i + 1:] if u.player == t.player), None)
        drawn = Counter(nxt.rack) - kept if nxt is not None else Counter()
        out.append(sorted(drawn.elements()))
    return out


# --- the MAGPIE games, there and back ------------------------------------------------------------------
@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_a_recorded_game_pushed_and_popped_gives_every_board_and_score(path, enable):
    r = replay_file(path)
    assert r.ok and r.over
    turns = r.turns
    first_of = {p: next(t for t in turns if t.player == p) for p in (0, 1)}
    pos = Position("english", None, (first_of[0].rack, first_of[1].rack), lexicon=enable)
    start = state(pos)
    seen = [start]
    for t, draw in zip(turns, draws_of(turns)):
        assert np.array_equal(pos.board, t.board) and pos.zero_turns == t.zero_turns
        assert pos.scores == [t.scores[t.player], t.scores[1 - t.player]]  # the mover first
        assert pos.rack == t.rack and pos.bag_count == t.bag_count
        if t.opponent_rack is not None:
            assert pos.racks[1] == t.opponent_rack
        u = pos.push(t.move if t.event.kind == EventKind.PLAY else t.event.move, draw)
        assert u.score == t.score and list(u.drawn) == draw
        seen.append(state(pos))
    assert np.array_equal(pos.board, r.board)
    assert pos.is_over
    outcome = pos.outcome()
    assert outcome.ending.reason == EndReason.OUT
    final = r.final_scores()
    last = turns[-1].player  # he went out; after his turn he is last in the position's order
    assert outcome.scores[1] == final[r.players[last]] and outcome.scores[0] == final[r.players[1 - last]]
    [adj] = outcome.ending.adjustments
    assert (adj.player, adj.kind, adj.points) == (1, EventKind.OUT, 2 * r.ruleset.rack_value(adj.tiles))
    with pytest.raises(IllegalMoveError) as info:
        pos.push("-")
    assert info.value.reason == "game_over" and state(pos) == seen[-1]
    # and back: every intermediate position, exactly
    while pos.move_stack:
        seen.pop()
        pos.pop()
        assert state(pos) == seen[-1]
    assert state(pos) == start
    with pytest.raises(PositionError, match="nothing to pop"):
        pos.pop()


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_play_gives_the_same_positions_and_leaves_the_original(path, enable):
    r = replay_file(path)
    turns = r.turns
    first_of = {p: next(t for t in turns if t.player == p) for p in (0, 1)}
    pushed = Position("english", None, (first_of[0].rack, first_of[1].rack), lexicon=enable)
    played = pushed.copy()
    for t, draw in zip(turns, draws_of(turns)):
        move = t.move if t.event.kind == EventKind.PLAY else t.event.move
        before = state(played)
        after = played.play(move, draw)
        assert state(played) == before  # unchanged
        pushed.push(move, draw)
        assert after == pushed and state(after) == state(pushed)
        assert after.board is not played.board
        played = after


# --- one move ------------------------------------------------------------------------------------------
def test_push_moves_tiles_scores_and_the_turn():
    pos = Position.from_cgp(OUTGUN)
    u = pos.push("J8 SOIREE", draw="ABCDEF")
    assert (u.score, str(u.rack), str(u.drawn), u.squares) == (16, "EEIIORS", "ABCDEF", (114, 129, 144, 159, 174, 189))
    assert pos.cgp() == "15/15/15/15/15/15/15/3OUTGUNS5/9O5/9I5/9R5/9E5/9E5/15/15 IIJORRR/ABCDEFI 16/16 0"
    assert str(pos.racks[1]) == "ABCDEFI" and isinstance(pos.racks[1], Tiles)
    pos.push("-IIJ", draw="OOO")  # an exchange: draws first, gives back after
    assert str(pos.racks[1]) == "OOOORRR" and pos.zero_turns == 1 and pos.scores == [16, 16]
    pos.push("-")
    assert pos.zero_turns == 2 and pos.rack == pos.ruleset.alphabet.tiles("OOOORRR")
    assert [m.notation() for m in pos.move_stack] == ["J8 SOIREE", "-IIJ", "-"]
    pos.pop()
    pos.pop()
    assert pos.cgp() == "15/15/15/15/15/15/15/3OUTGUNS5/9O5/9I5/9R5/9E5/9E5/15/15 IIJORRR/ABCDEFI 16/16 0"


def test_a_play_without_a_draw_leaves_the_rack_short_and_tiles_in_the_bag():
    pos = Position.from_cgp(OUTGUN)
    bag = pos.bag_count
    pos.push("J8 SOIREE")
    assert str(pos.racks[1]) == "I" and pos.bag_count == bag
    assert not pos.is_over


@pytest.mark.parametrize(
    "move, draw, error",
    [
        ("8A TOUTGUN", None, "occupied"),
        ("J12 SOIREE", None, "off_board"),
        ("J8 QOIREE", None, "not_in_rack"),
        ("J8 SORIEE", None, "invalid_words"),
        ("-Q", None, "not_in_rack"),
        ("J8 SOIREE", "QQ", "the bag cannot supply the draw QQ: it holds 1 Q"),
        ("J8 SOIREE", "ABCDEFG", "a draw of 7 tiles after a move that takes 6"),
        ("J8 SOIREE", [99], "tiles are ints, 0 \\(blank\\) to 26"),
        ("-", "A", "a draw of 1 tiles after a move that takes 0"),
    ],
)
def test_an_illegal_push_or_a_bad_draw_changes_nothing(move, draw, error):
    pos = Position.from_cgp(OUTGUN)
    pos.push("-")
    pos.push("-")
    before = state(pos)
    if error.islower() and " " not in error:
        with pytest.raises(IllegalMoveError) as info:
            pos.push(move, draw)
        assert info.value.reason == error
    else:
        with pytest.raises(PositionError, match=error):
            pos.push(move, draw)
    assert state(pos) == before
    with pytest.raises((IllegalMoveError, PositionError)):
        pos.play(move, draw)
    assert state(pos) == before


def test_a_trusted_push_still_refuses_what_would_corrupt_the_position():
    pos = Position.from_cgp(OUTGUN)
    before = state(pos)
    over = Move.place(7, 3, True, [20, 15, 21, 20, 7, 21, 14], pos.ruleset.alphabet, score=9)  # TOUTGUN on OUTGUN
    with pytest.raises(IllegalMoveError) as info:
        pos.push(over, trusted=True)
    assert info.value.reason in ("occupied", "not_in_rack")
    with pytest.raises(IllegalMoveError) as info:
        pos.push(Move.place(0, 0, True, [17, 9], pos.ruleset.alphabet, score=11), trusted=True)  # QI: no Q
    assert info.value.reason == "not_in_rack"
    assert state(pos) == before


SOIREE = (19, 15, 9, 18, 5, 5)  # J8 SOIREE on OUTGUN, as a generator gives it (down from row 8, column J)


@pytest.mark.parametrize(
    "score, draw, error",
    [
        ("x", None, "must be a whole number of points, got 'x'"),  # was a TypeError with the tiles placed
        (16.5, [1, 2, 3, 4, 5, 6], "must be a whole number of points, got 16.5"),
        (16, [200, 201], "tiles are ints, 0 \\(blank\\) to 26"),  # was a rack 'Ihi' and IndexErrors after
        (16, (200, 201), "tiles are ints, 0 \\(blank\\) to 26"),
        (16, [-1], "tiles are ints"),
        (16, ["A"], "tiles are ints"),
        (16, 5, "tiles are ints"),
    ],
)
def test_a_trusted_push_checks_the_score_and_the_draw_before_changing_anything(score, draw, error):
    pos = Position.from_cgp(OUTGUN)
    before = state(pos)
    with pytest.raises(ValueError, match=error):
        pos.push(Move.place(7, 9, False, SOIREE, score=score), draw, trusted=True)
    assert state(pos) == before and pos.move_stack == [] and not pos.board[7:13, 9].any()
    pos.push(Move.place(7, 9, False, SOIREE, score=np.int64(16)), [1, 2, 3, 4, 5, 6], trusted=True)  # numpy ints are whole numbers
    assert pos.scores == [16, 16] and type(pos.scores[1]) is int and str(pos.racks[1]) == "ABCDEFI"
    pos.unseen_tiles()  # (an IndexError once a draw of non-tiles had been let in)
    pos.pop()
    assert state(pos) == before


def test_a_trusted_draw_is_no_more_than_the_bag_holds():
    start = Position.from_cgp(OUTGUN)
    board = start.board.copy()
    board[:5, :] = np.array([t for t in start.unseen_tiles() if t][:75]).reshape(5, 15)  # 75 more tiles on the board
    pos = Position(start.ruleset, board, start.racks, start.scores)
    assert pos.bag_count == 5
    before = state(pos)
    with pytest.raises(PositionError, match="the bag holds 5 tiles: it cannot supply a draw of 6"):
        pos.push(Move.place(7, 9, False, SOIREE, score=16), [0, 0, 0, 0, 0, 0], trusted=True)
    assert state(pos) == before


def test_a_square_off_the_board_has_no_tile():
    pos = Position.from_cgp(OUTGUN)
    assert pos.tile_at(7, 3) == pos.ruleset.alphabet.tile("O") and pos.tile_at(np.int64(0), 0) == 0
    for row, col, error in [(7, -12, "row 7, column -12 is off the 15x15 board"),  # read 8D, wrapping round
                            (-1, 0, "off the 15x15 board"), (15, 0, "off the 15x15 board"),
                            (2**70, 0, "off the 15x15 board"),  # an IndexError from numpy
                            ("", 0, "whole numbers"), (7.0, 3, "whole numbers"), (None, None, "whole numbers")]:
        with pytest.raises(PositionError, match=error):
            pos.tile_at(row, col)


def test_words_are_checked_unless_asked_not_to(enable):
    pos = Position.from_cgp(OUTGUN, lexicon=enable)
    with pytest.raises(IllegalMoveError) as info:
        pos.push("J8 SORIEE")
    assert info.value.words == ("SORIEE",)
    u = pos.push("J8 SORIEE", check_words=False)
    assert u.move.notation() == "J8 SORIEE" and pos.scores == [16, 16]


# --- the end of the game -------------------------------------------------------------------------------
def tiny(end_rule: str) -> Ruleset:
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


WORDS = ["BAT", "TEA", "AE", "EA", "AT", "TA", "ABA"]


@pytest.mark.parametrize("end_rule, scores, adjustments", [
    ("tournament", [3, 23], [(1, "out", 2)]),
    ("club", [2, 22], [(1, "out", 1), (0, "rack_penalty", -1)]),
])
def test_going_out_ends_the_game_under_either_rule_and_pop_reopens_it(end_rule, scores, adjustments):
    rs = tiny(end_rule)
    a = rs.alphabet
    pos = Position(rs, None, (a.rack("ABT"), a.rack("AET")), lexicon=Lexicon.from_words(WORDS, rs))
    pos.push("4C BAT", draw="EA")
    pos.push("E4 .EA")  # the bag is empty
    assert pos.bag_count == 0 and not pos.is_over and pos.outcome() is None
    before = state(pos)
    u = pos.push("F5 AE")
    assert pos.is_over and u.ending is not None and u.ending.reason == EndReason.OUT
    assert pos.scores == scores
    assert [(x.player, x.kind, x.points) for x in u.ending.adjustments] == adjustments
    assert str(u.ending.adjustments[0].tiles) == "T"
    out = pos.outcome()
    assert out.scores == tuple(scores) and out.winners == (1,) and out.ending == u.ending
    with pytest.raises(IllegalMoveError) as info:
        pos.push("-")
    assert info.value.reason == "game_over"
    pos.pop()
    assert state(pos) == before and not pos.is_over


def test_the_zero_turn_limit_ends_the_game_with_every_rack_subtracted():
    pos = Position.from_cgp(OUTGUN)
    rs = pos.ruleset
    for i in range(rs.zero_turn_limit - 1):
        pos.push("-")
        assert not pos.is_over, i
    u = pos.push("-")
    assert pos.is_over and u.ending.reason == EndReason.ZERO_TURNS
    # the last mover (last in the position's order) first, then the others in turn order
    assert [(x.player, x.points) for x in u.ending.adjustments] == [(1, -rs.rack_value(pos.racks[1])), (0, -rs.rack_value(pos.racks[0]))]
    assert pos.scores == [0 - rs.rack_value(pos.racks[0]), 16 - rs.rack_value(pos.racks[1])]
    pos.pop()
    assert pos.scores == [16, 0] and pos.zero_turns == rs.zero_turn_limit - 1 and not pos.is_over


def test_a_position_made_over_reports_its_ending_without_changing_its_scores():
    done = Position.from_cgp(OUTGUN.replace(" 0/16 0", " 0/16 6"))
    assert done.is_over
    out = done.outcome()
    assert out.ending.reason == EndReason.ZERO_TURNS and out.scores == (0, 16) and out.winners == (1,)
    rs = done.ruleset
    assert ending(rs, done.racks, 1, 6, False) == out.ending


def test_unseen_tiles_are_the_bag_with_every_rack_known():
    pos = Position.from_cgp(OUTGUN)
    assert unseen_counts(pos.ruleset, pos.board, pos.racks).tolist() == pos.bag_counts().tolist()
    assert int(unseen_counts(pos.ruleset, pos.board, [pos.rack]).sum()) == pos.bag_count + 7
    assert str(pos.bag_tiles()).startswith("AAAAAAAAAB") and len(pos.bag_tiles()) == pos.bag_count


# --- random sequences ----------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=30))
def test_random_legal_pushes_then_pops_restore_the_start_exactly(seed, picks):
    import random

    enable = load_lexicon("enable", ruleset="english")
    rng = random.Random(seed)
    rs = get_ruleset("english")
    order = [t for t, n in enumerate(rs.counts) for _ in range(n)]
    rng.shuffle(order)
    pos = Position(rs, None, (order[:7], order[7:14]), lexicon=enable)
    start = state(pos)
    states = [start]
    for pick in picks:
        if pos.is_over:
            break
        moves = pos.moves(exchanges=True)
        move = moves[pick % len(moves)]
        bag = pos.bag_tiles()
        draw = rng.sample(list(bag), min(move.tiles_played, len(bag)))
        pos.push(move, draw)
        assert len(pos.racks[1]) <= rs.rack_size
        assert int(unseen_counts(rs, pos.board, pos.racks).min()) >= 0
        states.append(state(pos))
    while pos.move_stack:
        states.pop()
        pos.pop()
        assert state(pos) == states[-1]
    assert state(pos) == start


# --- tiles that read as letters ------------------------------------------------------------------------
def test_tiles_print_as_letters_and_stay_tuples_of_ints():
    a = get_ruleset("english").alphabet
    rack = a.tiles("AEINST?")
    assert str(rack) == "AEINST?" and repr(rack) == "Tiles('AEINST?')" and rack.letters == "AEINST?"
    assert rack == (0, 1, 5, 9, 14, 19, 20) and tuple(rack) == (0, 1, 5, 9, 14, 19, 20)
    assert hash(rack) == hash((0, 1, 5, 9, 14, 19, 20)) and rack[1] == 1 and len(rack) == 7
    assert isinstance(rack, tuple) and isinstance(rack, Tiles) and type(rack).alphabet is a
    assert pickle.loads(pickle.dumps(rack)) == rack and str(pickle.loads(pickle.dumps(rack))) == "AEINST?"
    ru = get_ruleset("russian").alphabet.tiles("ЁЖ?")
    assert str(ru) == "ЁЖ?"
    pos = Position.from_cgp(OUTGUN)
    best = pos.moves(top=1)[0]
    assert str(best.leave) == "I" and repr(pos.rack) == "Tiles('EEIIORS')"
    assert str(pos.moves().rack) == "EEIIORS"
    assert f"{pos.racks[1]}" == "IIJORRR"


# --- an unknown opponent's rack ------------------------------------------------------------------------
def test_pushes_and_pops_with_an_unknown_opponent_rack():
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"
    pos = Position.from_cgp(cgp)
    assert (pos.bag_count, pos.racks_known) == (80, (True, False))
    pos.push("J8 SOIREE", draw="ABCDEF")
    # the unknown rack is now the one to move; the mover's rack is known; the bag gave 6 tiles
    assert pos.racks_known == (False, True) and pos.bag_count == 74 and str(pos.racks[1]) == "ABCDEFI"
    assert pos.rack_sizes == (7, 7) and not pos.is_over
    assert [str(m) for m in pos.moves()] == ["-"]  # no tiles known: only the pass
    pos.push("-")  # the unknown player passes
    assert pos.racks_known == (True, False) and pos.zero_turns == 1
    pos.pop()
    pos.pop()
    assert pos == Position.from_cgp(cgp) and pos.cgp() == cgp
    # the draw must come from the unseen tiles and fit in the bag
    with pytest.raises(PositionError, match="cannot supply"):
        pos.push("J8 SOIREE", draw="ZZ")
    assert pos.cgp() == cgp


def test_the_unknown_player_plays_from_the_unseen_tiles():
    """A bot on a server sees its opponent's plays, never his rack: his placement is checked
    against the board, the words and the unseen tiles; the bag gives him as many tiles as he played,
    his rack stays unknown; his exchange is '-N'; pop takes each back exactly."""
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"
    pos = Position.from_cgp(cgp)
    pos.push("J8 SOIREE", draw="ABCDEF")
    after_mine = pos.cgp()
    u = pos.push("K10 NEXT")
    assert (u.move.notation(), u.score, u.known) == ("K10 NEXT", 39, False)
    assert pos.racks_known == (True, False) and pos.rack_sizes == (7, 7) and pos.bag_count == 70
    assert pos.scores == [16, 55] and pos.board[9, 10] == pos.ruleset.alphabet.tile("N")
    pos.push("I10 FAD", draw="GHI")  # mine
    u = pos.push("-3")  # his exchange: which tiles is not known
    assert (u.move.notation(), u.known, pos.zero_turns, pos.bag_count) == ("-3", False, 1, 67)
    assert [m.notation() for m in pos.move_stack] == ["J8 SOIREE", "K10 NEXT", "I10 FAD", "-3"]
    pos.pop()
    pos.pop()
    pos.pop()
    assert pos.cgp() == after_mine and pos.racks_known == (False, True)
    # refused, the position unchanged: tiles the unseen ones lack, a draw, a count he cannot hold
    for move, draw, error, says in (
        ("K10 ZZZ", None, IllegalMoveError, "the unseen tiles hold 1 Z of the 3 it plays"),
        ("K10 NEXT", "E", PositionError, "nor what he draws"),
        ("-8", None, IllegalMoveError, "an exchange of 8 tiles from a rack of 7"),
        ("K10 NEXTQ", None, IllegalMoveError, "not in the lexicon"),
    ):
        with pytest.raises(error, match=says):
            pos.push(move, draw)
        assert pos.cgp() == after_mine and pos.racks_known == (False, True) and len(pos.move_stack) == 1
    for hidden in ("-3", Move.parse("-3")):  # a known rack exchanges named tiles
        with pytest.raises(InvalidMoveError, match=r"-3 is an exchange of tiles not named.*name the tiles given back"):
            Position.from_cgp(OUTGUN).push(hidden)
        with pytest.raises(InvalidMoveError, match="tiles not named"):
            Position.from_cgp(OUTGUN).validate(hidden)


def test_a_challenge_bonus_or_time_penalty_is_a_score_change_that_pop_keeps():
    """README: a server's challenge bonus or time penalty is ``pos.scores[i] += n``; pop takes back
    the play's own points only, so the adjustment stays; a phony taken off is pop()."""
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"
    pos = Position.from_cgp(cgp)
    pos.push("J8 SOIREE", draw="ABCDEF")
    pos.push("K10 NEXT")  # his play, rack unknown
    assert pos.scores == [16, 55]
    pos.scores[1] += 5  # his challenge bonus (racks[1]: he has just moved)
    pos.scores[0] -= 10  # my time penalty
    pos.pop()  # his play withdrawn after all: its 39 points go, the adjustments stay
    assert pos.scores == [21, 6] and pos.racks_known == (False, True)
    assert pos.cgp().split()[-2] == "21/6"
    assert Position.from_cgp(pos.cgp()).scores == [21, 6]


def test_an_unknown_rack_follows_a_game_played_with_every_rack_known():
    """The same seeded games seen twice: with both racks known, and as a bot sees them (the
    opponent's rack never given, his draws not told). After every turn both agree on the board,
    the scores, the bag, the scoreless turns and the end; with the bag empty his moves are
    checked against the tiles he certainly holds."""
    from racksmith.core.bag import Bag

    rs = get_ruleset("english")
    for seed in range(6):
        bag = Bag(rs, seed)
        board = np.zeros((rs.rows, rs.cols), np.uint8)
        racks = (rs.alphabet.tiles(bag.draw(7)), rs.alphabet.tiles(bag.draw(7)))
        full = Position(rs, board.copy(), racks, [0, 0], 0)
        seen = Position(rs, board.copy(), (racks[0], ()), [0, 0], 0, racks_known=[True, False])
        turn = 0
        while not full.is_over:
            ml = full.moves(top=1, sort="equity", leaves="english", exchanges=len(bag) >= 7)
            m = ml[0]
            used = len(m.rack_tiles())
            drawn = bag.draw(used)
            if m.kind == "exchange":
                bag.put_back(m.tiles)
            full.push(m, drawn, trusted=True)
            if turn % 2 == 0:
                seen.push(m, drawn)
            else:
                seen.push(f"-{len(m.tiles)}" if m.kind == "exchange" else m.notation())
            turn += 1
            assert seen.board.tobytes() == full.board.tobytes() and seen.scores == full.scores
            assert (seen.bag_count, seen.zero_turns, seen.is_over) == (full.bag_count, full.zero_turns, full.is_over)
        assert seen.outcome().scores == full.outcome().scores
        for _ in range(turn):
            seen.pop()
        assert seen.racks_known == (True, False) and not seen.board.any() and seen.scores == [0, 0]


def test_a_game_from_a_position_draws_the_unknown_rack_first():
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0")
    game = Game.from_position(pos, seed=3)
    assert [len(r) for r in game.racks] == [7, 7] and game.bag_count == 80
    assert game.position.racks_known == (True, True) and game.check_invariants() == []


def test_a_position_pickles_after_generating_moves():
    """The kernel's kept board (set by moves()) is not pickled: it is rebuilt on the next call; a
    lexicon named is loaded again, one given as an object travels along."""
    from racksmith import load_lexicon

    cgp = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
    p = Position.from_cgp(cgp)
    first = [m.notation() for m in p.moves(top=5)]
    p.push(p.moves(top=1)[0])
    q = pickle.loads(pickle.dumps(p))
    assert q.cgp() == p.cgp() and q.move_stack == p.move_stack
    assert [m.notation() for m in q.moves(top=5)] == [m.notation() for m in p.moves(top=5)]
    q.pop()
    assert [m.notation() for m in q.moves(top=5)] == first
    assert len(pickle.dumps(q)) < 100_000  # the named lexicon is not in it
    lex = load_lexicon("enable")
    r = pickle.loads(pickle.dumps(Position.from_cgp(cgp, lexicon=lex)))
    assert [m.notation() for m in r.moves(top=5)] == first and r.lexicon is not lex and "KRONA" in r.lexicon


def test_a_game_ended_with_a_rack_not_known_says_its_scores_are_not_final():
    """Six scoreless turns with the opponent's rack unknown: his rack penalty cannot be counted, and
    the outcome says so instead of presenting the scores as final."""
    p = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 100/116 5")
    p.push("-")
    o = p.outcome()
    assert o.scores == (116, 93) and o.uncounted == (0,) and not o.final  # (his 116 less what he holds, unknown)
    q = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ABCDEFG 100/116 5")
    q.push("-")
    assert q.outcome().uncounted == () and q.outcome().final and q.outcome().scores == (116 - 16, 93)


def test_attributes_set_after_construction_are_checked_as_the_constructor_checks_them():
    """The fuzzer's finds: a new ruleset read the English board as Cyrillic and listed moves; an
    int64 or a list board failed inside the generator; a score "abc" was written into the CGP."""
    from racksmith import get_ruleset

    p = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0")
    cgp = p.cgp()
    with pytest.raises(PositionError, match="ruleset cannot change"):
        p.ruleset = get_ruleset("russian")
    for bad, words in ((np.zeros((14, 15), np.uint8), "shape"), (np.full((15, 15), 200, np.uint8), "not a tile of")):
        with pytest.raises(PositionError, match=words):
            p.board = bad
    assert p.cgp() == cgp and p.ruleset.name == "english"  # nothing lost
    # another board, as an analysis board's editor sets one: checked, converted, the stack cleared
    p.push("-")
    edited = p.board.astype(np.int64)
    edited[0, 0] = p.ruleset.alphabet.tile("Q")
    p.board = edited.tolist()
    assert p.board.dtype == np.uint8 and p.board[0, 0] == p.ruleset.alphabet.tile("Q") and p.move_stack == []
    p.scores[0] = "abc"
    with pytest.raises(PositionError, match=r"scores must be a list of whole numbers, one a rack \(2\)"):
        p.cgp()
    with pytest.raises(PositionError, match="scores must be"):
        p.push("-")
    p.scores[0] = np.int64(5)  # a numpy int is a whole number
    p.cgp()
    assert p.scores[0] == 5 and type(p.scores[0]) is int
    with pytest.raises(PositionError, match="zero_turns"):
        p.zero_turns = None  # (refused when set)
    p.zero_turns = 0
    p.push("-")
    # a pickle of racksmith 0.1 (slots named ruleset and board) still loads
    state = p.__getstate__()
    state["ruleset"], state["board"] = state.pop("_ruleset"), state.pop("_board")
    q = Position.__new__(Position)
    q.__setstate__(state)
    assert q.cgp() == p.cgp()
