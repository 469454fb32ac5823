"""Fixes from a tournament-software audit: a GCG note's indented line, a pass or exchange that takes
a star back (Эрудит), a draw shorter than the rack needs, the order of an exchange's refusals, and a
CGP zero-turn count above the ruleset's limit."""
from __future__ import annotations

import numpy as np
import pytest

from racksmith import CGPError, IllegalMoveError, InvalidMoveError, Move, Position, PositionError
from racksmith.formats.gcg import format_gcg, parse_gcg

OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"
EMPTY15 = "/".join(["15"] * 15)


# --- 1. a note's indented continuation line ------------------------------------------------------
NOTED = ("#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n"
         "#note multi-line\n  indented continuation\n\tTabbed\n#hashtag\nplain\n>b: - +0 0\n")


def test_an_indented_note_line_keeps_its_indentation_on_a_round_trip():
    game = parse_gcg(NOTED)
    # the first white-space character marks the continuation; what follows it is the note's
    assert game.events[0].note == "multi-line\n indented continuation\nTabbed\n#hashtag\nplain"
    text = format_gcg(game)
    assert "#note multi-line\n  indented continuation\nTabbed\n #hashtag\nplain\n>b:" in text
    again = parse_gcg(text)
    assert again.events[0].note == game.events[0].note and not again.errors
    assert format_gcg(again) == text


def test_a_note_set_in_python_with_indented_lines_reads_back_exactly():
    game = parse_gcg("#player1 a A\n#player2 b B\n>a: AEKNOQR 8D KRONA +28 28\n>b: - +0 0\n")
    note = "plan:\n  1. KRONA\n    (or KORAN)\n\n>not an event\n #not a pragma\nend"
    game.events[0] = game.events[0].__class__(**{**{f: getattr(game.events[0], f)
                                                      for f in game.events[0].__dataclass_fields__}, "note": note})
    text = format_gcg(game)
    again = parse_gcg(text)
    assert again.events[0].note == note and len(again.events) == 2 and not again.errors
    assert format_gcg(again) == text


# --- 2. Эрудит: only a placement takes a star back -----------------------------------------------
@pytest.mark.parametrize("text", ["- *8F", "-ОТ *8F", "pass *8F", "exch ОТ *8F", "- *8F=А", "(exch ОТ) *8F"])
def test_a_pass_or_exchange_that_takes_a_star_back_is_told_only_a_placement_does(text):
    says = "a pass or an exchange cannot take a star back: only a placement does"
    with pytest.raises(InvalidMoveError, match=says):
        Move.parse(text, "erudit")
    pos = Position.empty("erudit", rack="АБВГДОТ")
    with pytest.raises(InvalidMoveError, match=says):
        pos.validate(text)


def test_exchanges_of_stars_and_placements_that_take_stars_back_still_parse():
    assert Move.parse("- *", "erudit").is_exchange  # '*' alone is a blank given back
    assert Move.parse("-ОТ", "erudit").is_exchange and Move.parse("-", "erudit").is_pass
    assert Move.parse("8D ДОм *12H=А", "erudit").reclaimed
    with pytest.raises(InvalidMoveError, match="bad coordinate 'ZZ'"):
        Move.parse("ZZ ДОм *12H", "erudit")


# --- 3. a draw refills the rack while the bag has tiles --------------------------------------------
def bag_of(n: int, cgp: str = OUTGUN) -> Position:
    """The position of ``cgp`` with tiles moved from the bag to the top rows, ``n`` left in the bag."""
    start = Position.from_cgp(cgp)
    board = start.board.copy()
    tiles = [t for t in start.unseen_tiles() if t][: start.bag_count - n]
    flat = board[:6, :].reshape(-1)
    flat[: len(tiles)] = tiles
    board[:6, :] = flat.reshape(6, 15)
    pos = Position(start.ruleset, board, start.racks, start.scores, racks_known=start.racks_known)
    assert pos.bag_count == n
    return pos


@pytest.mark.parametrize("draw", ["ABC", "", [1, 2, 3]])
def test_a_draw_shorter_than_the_tiles_played_is_refused_while_the_bag_has_tiles(draw):
    pos = Position.from_cgp(OUTGUN)
    with pytest.raises(PositionError, match="a draw of .* after a move that takes 6 from the rack: with 80 tiles "
                                            "in the bag the player draws 6"):
        pos.push("J8 SOIREE", draw=draw)
    assert pos.cgp() == OUTGUN and pos.move_stack == []
    with pytest.raises(PositionError, match="the player draws 6"):
        pos.push(Move.place(7, 9, False, pos.resolve("J8 SOIREE").tiles, score=16), draw=[1, 2], trusted=True)
    assert pos.cgp() == OUTGUN
    with pytest.raises(PositionError, match="after an exchange that gives back 3 from the rack: .* draws 3"):
        pos.push("-IIE", draw="AB")
    pos.push("J8 SOIREE", draw="ABCDEF")  # the full draw
    assert str(pos.racks[1]) == "ABCDEFI"
    pos.push("-IIJ", draw="OOO")
    assert str(pos.racks[1]) == "OOOORRR"  # IIJORRR gave back IIJ, drew OOO
    Position.from_cgp(OUTGUN).push("J8 SOIREE")  # draw=None still draws nothing


def test_with_few_tiles_in_the_bag_the_draw_is_what_the_bag_holds():
    pos = bag_of(4)
    with pytest.raises(PositionError, match="with 4 tiles in the bag the player draws 4"):
        pos.push("J8 SOIREE", draw=[int(t) for t in pos.bag_tiles()][:3])
    pos.push("J8 SOIREE", draw=[int(t) for t in pos.bag_tiles()])
    assert pos.bag_count == 0 and len(pos.racks[1]) == 5


# --- 4. an exchange with too few tiles in the bag for any exchange ---------------------------------
def test_no_exchange_at_all_is_said_before_the_tiles_not_on_the_rack():
    few = bag_of(3)
    for move in ("-XXX", "-E", "-EEI"):
        verdict = few.validate(move)
        assert verdict.reason == "exchange_not_allowed", (move, verdict)
        assert "the bag holds 3 tiles; exchanging needs at least 7" in verdict.message
        with pytest.raises(IllegalMoveError, match="exchange_not_allowed|exchanging needs at least 7"):
            few.push(move)
    # with enough tiles for an exchange (8 here), tiles not on the rack are what is wrong
    eight = bag_of(8)
    assert eight.validate("-XXX").reason == "not_in_rack" and eight.validate("-EEI").legal
    # an unknown rack's exchange '-N' too: no exchange at all comes before the count
    unknown = bag_of(3, "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 /EEIIORS 16/0 0")
    with pytest.raises(IllegalMoveError, match="the bag holds 3 tiles") as e:
        unknown.push("-8")
    assert e.value.reason == "exchange_not_allowed"


# --- 5. a zero-turn count above the ruleset's limit ------------------------------------------------
@pytest.mark.parametrize("count", [7, 99])
def test_a_cgp_zero_turn_count_above_the_limit_is_refused(count):
    with pytest.raises(CGPError, match=f"CGP zero-turn count '{count}': the english ruleset ends the game after 6 "
                                       "consecutive scoreless turns, so the count is at most 6"):
        Position.from_cgp(f"{EMPTY15} AEINRST/EEIIORS 0/0 {count}")
    pos = Position.from_cgp(f"{EMPTY15} AEINRST/EEIIORS 0/0 0")
    with pytest.raises(PositionError, match=f"zero_turns {count}: .* the count is at most 6"):
        Position(pos.ruleset, pos.board, pos.racks, pos.scores, count)


def test_a_zero_turn_count_at_the_limit_is_a_game_over():
    over = Position.from_cgp(f"{EMPTY15} AEINRST/EEIIORS 0/0 6")
    assert over.is_over and over.zero_turns == 6
    assert Position.from_cgp(f"{EMPTY15} AEINRST/EEIIORS 0/0 5").zero_turns == 5
    assert np.array_equal(over.board, np.zeros((15, 15), dtype=np.uint8))
