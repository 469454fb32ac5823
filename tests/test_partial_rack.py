"""A rack known in part, as the CGP spec writes it ("if one of the players' racks is only partially
known, specify as many tiles as are known") and Macondo writes an opponent's after his phony was
withdrawn (``AEERSTT/YD``): an opponent's rack shorter than a full one while the bag holds tiles is
those tiles and unseen ones up to a full rack, not his whole rack."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from racksmith import Position
from racksmith.errors import IllegalMoveError, InferenceError, PositionError
from racksmith.lexicon import load_leaves
from racksmith.sim.simulate import simulate

BOARD = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15"
PARTIAL = f"{BOARD} EEIIORS/DY 0/16 0"
LEFT_OUT = f"{BOARD} EEIIORS/ 0/16 0"
# a game's end (tests/test_cgp_unknown_rack.py): the bag just empty, 11 tiles unseen, AOTU and DEEILRT
ENDGAME = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
           "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/YE5Y6S")
# the same board without its last row (YE, Y, S): 15 tiles unseen, one in the bag when both racks are full
PEG = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
       "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/15")


def test_a_short_opponents_rack_mid_game_is_known_in_part():
    pos = Position.from_cgp(PARTIAL)
    assert pos.racks_known == (True, False) and pos.racks_partial == (False, True)
    assert str(pos.racks[1]) == "DY" and pos.rack_sizes == (7, 7)
    assert (pos.unseen_count, pos.bag_count) == (100 - 6 - 7 - 2, 100 - 6 - 7 - 7)
    assert pos.inferred_racks()[1] is None and not pos.is_over
    d = pos.to_dict()
    assert (d["racks"], d["racks_known"], d["racks_partial"], d["rack_sizes"], d["bag_count"]) == (
        ["EEIIORS", "DY"], [True, False], [False, True], [7, 7], 80)
    assert (d["unseen"]["D"], d["unseen"]["Y"]) == (3, 1)  # (a D and a Y are seen: on his rack)


def test_the_meanings_kept_a_rack_left_out_and_a_short_rack_with_the_bag_empty():
    left_out = Position.from_cgp(LEFT_OUT)
    assert left_out.racks_partial == (False, False) and left_out.rack_sizes == (7, 7) and left_out.bag_count == 80
    # the bag empty: a short rack is the whole rack
    end = Position.from_cgp(f"{ENDGAME} AOTU/DEEILRT 413/490 0")
    assert end.racks_known == (True, True) and end.racks_partial == (False, False) and end.bag_count == 0
    # the player to move's short rack stays his whole rack, as before (and as Macondo takes it)
    mover = Position.from_cgp(f"{BOARD} DY/EEIIORS 0/16 0")
    assert mover.racks_known == (True, True) and mover.rack_sizes == (2, 7) and mover.bag_count == 85


def test_the_cgp_round_trips_and_the_constructor_makes_the_same_position():
    pos = Position.from_cgp(PARTIAL)
    assert pos.cgp() == PARTIAL and Position.from_cgp(pos.cgp()) == pos
    assert pos != Position.from_cgp(f"{BOARD} EEIIORS/ 0/16 0")
    a = pos.ruleset.alphabet
    made = Position(pos.ruleset, pos.board, (a.rack("EEIIORS"), a.rack("DY")), [0, 16], racks_known=[True, False])
    assert made == pos and made.cgp() == PARTIAL
    again = pickle.loads(pickle.dumps(pos))
    assert again == pos and again.racks_partial == (False, True) and pos.copy().racks_partial == (False, True)
    with pytest.raises(PositionError, match=r"a full rack, but racks_known says it is not known.*fewer than 7"):
        Position(pos.ruleset, pos.board, (a.rack("EEIIORS"), a.rack("ADEHNTY")), [0, 16], racks_known=[True, False])


def test_a_partial_rack_whose_other_tiles_are_certain_is_the_whole_rack():
    """The bag empty: the rack known in part holds its known tiles and every unseen one; the
    endgame solver takes it so."""
    pos = Position.from_cgp(f"{ENDGAME} DEEILRT/AO 413/490 0")  # with AO whole, TU would be in the bag
    assert pos.racks_partial == (False, True) and pos.rack_sizes == (7, 4) and pos.bag_count == 0
    assert str(pos.inferred_racks()[1]) == "AOTU"
    assert pos.cgp() == f"{ENDGAME} DEEILRT/AO 413/490 0" and Position.from_cgp(pos.cgp()) == pos
    whole = Position.from_cgp(f"{ENDGAME} DEEILRT/AOTU 413/490 0")
    assert pos.solve_endgame().value == whole.solve_endgame().value


def test_show_says_which_tiles_are_known(capsys):
    """Needs the formats/render.py change proposed with this fix (the text of a rack known in part)."""
    from racksmith.cli.main import main

    assert main(["show", PARTIAL]) == 0
    out = capsys.readouterr().out
    assert "opponent: DY + 5 unknown" in out and "bag: 80 tiles" in out
    assert main(["show", LEFT_OUT]) == 0
    assert "opponent: (7 unknown)" in capsys.readouterr().out


def test_a_game_from_a_partial_rack_fills_the_rest_from_the_bag():
    """Needs the play/game.py change proposed with this fix (Game.from_position keeps the tiles known)."""
    from racksmith import Game

    game = Game.from_cgp(PARTIAL, seed=1)
    assert game.check_invariants() == [] and len(game.bag) == 80
    rack = str(game.racks[1])
    assert len(rack) == 7 and "D" in rack and "Y" in rack


def _playouts(pos, seed=5):
    """The play-out kernel as simulate() builds it for ``pos`` (its opponent's tiles from the
    same helper), to trace the racks the play-outs deal."""
    from racksmith.movegen._movegen import BoardState
    from racksmith.movegen.generate import _tables
    from racksmith.sim._sim import Playouts
    from racksmith.sim.simulate import _opponent_tiles

    lv = load_leaves("english")
    tables, _ = _tables(pos.ruleset, pos.lexicon, lv)
    board = BoardState(tables.rules)
    board.set(pos.board)
    ml = pos.moves(top=2, sort="equity", leaves=lv, exchanges=True)
    opponent, unseen, inferred, source, note = _opponent_tiles(pos, None)
    wp = np.full((93, 601), 0.5)
    k = Playouts(tables.rules, tables.leave_table, board, bytes(pos.racks[0]), opponent, unseen, pos.rack_sizes[1],
                 tuple(pos.scores), 0, (7, 6, 1), np.ascontiguousarray(ml.to_numpy().copy()), np.zeros(len(ml)), wp,
                 2, seed, inferred)
    return k, source, note


def test_every_rack_the_play_outs_deal_him_holds_the_tiles_known():
    pos = Position.from_cgp(f"{BOARD} EEIIORS/Q 0/16 0")
    k, source, note = _playouts(pos)
    assert source == "partial" and "Q, kept in every play-out, and 6 tiles drawn" in note
    q = pos.ruleset.alphabet.tile("Q")
    unseen = np.bincount(np.frombuffer(bytes(pos.unseen_tiles()), np.uint8), minlength=64)
    others = set()
    for it in range(300):
        _, _, _, _, opp, bag, _ = k.trace(0, it)
        assert len(opp) == 7 and opp.count(q) == 1  # the known Q every time (and no other: there is one)
        dealt = np.bincount(np.frombuffer(opp + bag, np.uint8), minlength=64)
        dealt[q] -= 1
        assert (dealt == unseen).all()  # the rest of his rack and the bag: the unseen tiles, each once
        others.add(bytes(sorted(opp)))
    assert len(others) > 250  # the other six drawn at random
    # with his rack left out, a Q is dealt him only as chance has it
    k, source, _ = _playouts(Position.from_cgp(f"{BOARD} EEIIORS/ 0/16 0"))
    assert source == "unseen" and sum(q in k.trace(0, it)[4] for it in range(300)) < 60


def test_the_simulation_keeps_the_known_tiles_and_says_so():
    r = simulate(Position.from_cgp(PARTIAL), candidates=2, iterations=40, seed=1)
    assert r.opponent_rack == "partial" and r.to_dict()["opponent_rack"] == "partial"
    assert r.note == "the opponent's rack is known in part: DY, kept in every play-out, and 5 tiles drawn from the unseen ones"
    assert simulate(Position.from_cgp(LEFT_OUT), candidates=2, iterations=40, seed=1).opponent_rack == "unseen"


def test_an_inference_is_not_used_for_a_partial_rack_and_infer_refuses_one():
    from racksmith.sim.infer import infer_leaves

    left_out = Position.from_cgp(LEFT_OUT)
    inference = infer_leaves(left_out, "8D OUTGUN", samples=200, exact_up_to=200)
    pos = Position.from_cgp(PARTIAL)
    r = simulate(pos, candidates=2, iterations=40, seed=1, opponent_racks=inference)
    assert r.opponent_rack == "partial"
    assert r.note.endswith("; the inference from 8D OUTGUN is not used (it does not take the tiles known into account)")
    with pytest.raises(InferenceError, match=r"known in part in this position \(DY\): inference is for a rack not "
                                             r"known at all.*simulate without it"):
        infer_leaves(pos, "8D OUTGUN", samples=200)


def _peg_position() -> Position:
    pos = Position.from_cgp(f"{PEG} DEEILRT/AO 413/490 0")
    assert pos.racks_partial == (False, True) and pos.rack_sizes == (7, 7) and pos.bag_count == 1
    return pos


PEG141 = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
          "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3")  # fixtures peg_s141_t19: V and O unseen, one in the bag


def test_the_pre_endgame_of_a_partial_rack_is_its_cases_together():
    """His rack known in part (EEEIRT of 7, V and O unseen, one in the bag): each play's outcome
    for each bag tile is that of the position where his rack is known whole with the other tile
    (as Macondo's peg -opprack takes a partial rack); it was refused."""
    plays = ["L1 (Q)UIT", "K1 ETUI"]

    def outcomes(opp: str) -> dict:
        pos = Position.from_cgp(f"{PEG141} EEIIRTU/{opp} 304/425 0")
        res = pos.solve_peg(None, solve_all=True, moves=plays)
        return {p.move.notation(): (p.exact, dict(p.outcomes), p.mean_spread) for p in res.plays}

    part = outcomes("EEEIRT")
    with_v, with_o = outcomes("EEEIRTV"), outcomes("EEEIORT")  # (the bag then holds O, V)
    for play in plays:
        assert part[play][0] and part[play][1] == {**with_v[play][1], **with_o[play][1]}
        assert part[play][1].keys() == {"O", "V"}
        assert part[play][2] == (with_v[play][2] + with_o[play][2]) / 2
    # the bag holds a tile: an endgame is refused as before
    with pytest.raises(PositionError, match="the bag holds 1 tile: an endgame needs it empty"):
        _peg_position().solve_endgame()


def test_push_and_pop_keep_what_is_known_of_his_rack():
    pos = Position.from_cgp(PARTIAL)
    pos.push("J8 SOIREE", draw="ABCDEF")
    after_mine = pos.cgp()
    assert pos.racks_known == (False, True) and pos.racks_partial == (True, False) and str(pos.racks[0]) == "DY"
    assert after_mine.split()[1] == "/ABCDEFI"  # the mover's known part cannot be written: his rack is left out
    assert [m.notation() for m in pos.moves()] == ["-"]  # his rack not all known: only the pass, as unknown
    u = pos.push("I12 HYTE")  # the Y of his known tiles, H, T and E of the unseen ones
    assert (u.known, str(u.rack)) == (False, "DY")
    assert pos.racks_partial == (False, True) and str(pos.racks[1]) == "D" and pos.rack_sizes == (7, 7)
    pos.pop()
    assert pos.cgp() == after_mine and str(pos.racks[0]) == "DY" and pos.racks_partial == (True, False)
    u = pos.push("-1")  # an exchange of one tile not known: either of D and Y may have gone back
    assert pos.racks_known == (True, False) and pos.racks_partial == (False, False) and str(pos.racks[1]) == ""
    pos.pop()
    assert str(pos.racks[0]) == "DY" and pos.racks_partial == (True, False)
    pos.push("-")  # a pass keeps them
    assert str(pos.racks[1]) == "DY" and pos.racks_partial == (False, True)
    pos.pop()
    pos.pop()
    assert pos == Position.from_cgp(PARTIAL) and pos.cgp() == PARTIAL


def test_a_partial_movers_play_must_fit_his_rack_with_the_tiles_known():
    pos = Position.from_cgp(f"{BOARD} EEIIORS/DDY 0/16 0")
    pos.push("J8 SOIREE", draw="ABCEFG")
    with pytest.raises(IllegalMoveError, match=r"his known tiles DDY and the unseen ones hold 1 Z of the 2 it plays"):
        pos.push("K10 ZZ")
    # five tiles not among D, D, Y: a rack of 7 holding DDY cannot hold them too
    with pytest.raises(IllegalMoveError, match=r"a rack of 7 holding DDY cannot hold the tiles it plays \(ABEHT\) too"):
        pos.push("9K BATHE")
    assert str(pos.racks[0]) == "DDY" and pos.racks_partial == (True, False) and len(pos.move_stack) == 1


def test_a_rack_set_by_the_caller_is_known_whole():
    """(``pos.racks[0] = ...`` on a rack the CGP left out kept it "not known": its tiles then read
    as a rack known in part, the moves were the pass alone and cgp() dropped the rack)"""
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 /IIJORRR 0/16 0")
    pos.racks[0] = "EEIIORS"
    assert pos.racks_known == (True, True) and pos.cgp().split()[1] == "EEIIORS/IIJORRR"
    assert [m.notation() for m in pos.moves(top=2)] == ["J8 SOIREE", "J5 EROSE"]
    part = Position.from_cgp(PARTIAL)
    part.racks[1] = "AEINRST"  # his whole rack, where the CGP knew DY
    assert part.racks_known == (True, True) and part.racks_partial == (False, False) and part.bag_count == 80
    sim = part.simulate(candidates=2, iterations=10, seed=1)
    assert sim.opponent_rack == "known"
    both = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 / 0/16 0")
    both.racks[0:2] = ["EEIIORS", "IIJORRR"]
    assert both.racks_known == (True, True)
    whole = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 / 0/16 0")
    whole.racks = ["EEIIORS", "IIJORRR"]
    assert whole.racks_known == (True, True) and whole == both
    copied = whole.copy()
    copied.racks[0] = "AAAAAAA"  # (a copy's racks are its own)
    assert str(whole.racks[0]) == "EEIIORS"
