"""Defects an auditor found recording live games (the annotator's audit), in the core.

* With the bag empty the mover's rack left out of the CGP, or known in part, is certain (the unseen
  tiles): ``moves`` lists his plays and ``push`` plays them, and ``validate`` (and the web's
  ``/api/play``, which checks with :func:`check_move`) refused them as ``not_in_rack``.
* ``-N``, an exchange of tiles not named, by a mover whose rack is not known: ``push`` takes it,
  ``validate`` refused it saying his rack was known.
* A game ended on scoreless turns with a rack not known (uncounted), that rack set afterwards:
  ``outcome()`` said final with the rack never counted. The scores of a game over are those of its
  racks counted (a finished game's CGP reads back as final with its scores as they stand), so
  setting the rack counts it: its penalty is subtracted, as a push with it known subtracts it.
"""
from __future__ import annotations

import pickle

import pytest

from racksmith import Game, Position
from racksmith.core.validation import check_move, check_move_lean, lean_verdict
from racksmith.errors import IllegalMoveError, InvalidMoveError

# the bag empty; the mover's rack left out: he holds the unseen tiles, INSTTTW
ENDGAME = ("12SUQ/11A1N1/11N1D1/7J3C1UP/7A3E1EL/5VUGH2S2I/1OBEY2REmOTION/1pODAGRAL2O2T/LEX5V2R2H/O7EF5/U8R5/"
           "I7COMBED1/E4FOY1WEAL1Z/3APERIES1AMIA/2RAINED6G")
LEFT_OUT = f"{ENDGAME} /IIKNT 268/465 0"
TWIST = "D2 TWIST(ED)"


# --- 1. the certain rack of a mover left out, the bag empty -----------------------------------------------
def test_a_certain_movers_plays_validate_as_moves_lists_them_and_push_plays_them():
    pos = Position.from_cgp(LEFT_OUT)
    assert pos.racks_known == (False, True) and pos.bag_count == 0
    assert str(pos.inferred_racks()[0]) == "INSTTTW"
    listed = {m.notation(): m.score for m in pos.moves()}
    assert listed[TWIST] == 22
    verdict = pos.validate(TWIST)
    assert verdict.legal and verdict.score == 22 and verdict.move.notation() == TWIST  # (was not_in_rack)
    assert check_move(pos, TWIST).score == 22  # what /api/play checks with
    assert check_move_lean(pos, TWIST).score == 22 and lean_verdict(pos, pos.resolve(TWIST)) == 22
    assert pos.score(TWIST).score == 22
    assert pos.play(TWIST).move_stack[-1].score == 22
    # every play moves() lists validates, with its score
    for m in pos.moves(top=30):
        v = pos.validate(m)
        assert v.legal and v.score == m.score, m.notation()


def test_a_certain_movers_play_of_tiles_he_does_not_hold_is_refused_naming_his_tiles():
    pos = Position.from_cgp(LEFT_OUT)
    v = pos.validate("D2 WAIST(ED)")
    assert not v.legal and v.reason == "not_in_rack" and "INSTTTW" in v.message
    with pytest.raises(IllegalMoveError, match="not_in_rack|does not hold"):
        pos.play("D2 WAIST(ED)")
    assert lean_verdict(pos, pos.resolve("D2 WAIST(ED)")) == "not_in_rack"


def test_a_movers_rack_known_in_part_with_the_bag_empty_is_certain_too():
    base = Position.from_cgp(LEFT_OUT)
    a = base.ruleset.alphabet
    pos = Position(base.ruleset, base.board, (a.rack("TW"), a.rack("IIKNT")), base.scores, racks_known=(False, True))
    assert pos.racks_partial == (True, False) and pos.rack_sizes == (7, 5) and pos.bag_count == 0
    assert str(pos.inferred_racks()[0]) == "INSTTTW"
    v = pos.validate(TWIST)
    assert v.legal and v.score == 22
    assert pos.play(TWIST).scores == [465, 268 + 22]


def test_a_mover_not_known_with_tiles_in_the_bag_is_still_asked_for_his_rack():
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 /EEIIORS 16/0 0")
    assert pos.racks_known == (False, True) and pos.bag_count > 0
    v = pos.validate("J8 SOIREE")
    assert not v.legal and v.reason == "not_in_rack" and "not known" in v.message
    assert pos.validate("-").legal


def test_the_cli_validates_a_certain_movers_play(capsys):
    from racksmith.cli.main import main

    try:
        code = main(["validate", LEFT_OUT, "--move", TWIST])
    except SystemExit as e:
        code = e.code
    assert code in (0, None)
    assert "legal: D2 TWIST(ED) scores 22" in capsys.readouterr().out


# --- 2. -N by a mover whose rack is not known ---------------------------------------------------------------
HIDDEN = "15/15/15/15/15/15/15/1pODAGRA7/15/15/15/15/15/15/15 /BEELOPY 0/70 0"


@pytest.mark.parametrize("text", ["-4", "exch 4", "- 4"])
def test_a_hidden_exchange_validates_for_a_mover_whose_rack_is_not_known(text):
    pos = Position.from_cgp(HIDDEN)
    assert pos.racks_known == (False, True) and pos.bag_count >= 7
    v = pos.validate(text)
    assert v.legal and v.score == 0 and v.move.notation() == "-4"  # (was: "this player's rack is known")
    played = check_move(pos.copy(), text)  # /api/play's check, then its push of the move checked
    u = pos.push(played)
    assert (u.move.notation(), u.known, pos.zero_turns) == ("-4", False, 1)


def test_a_hidden_exchange_keeps_the_exchange_rules_and_the_reasons_push_gives():
    pos = Position.from_cgp(HIDDEN)
    v = pos.validate("-8")
    assert not v.legal and v.reason == "not_in_rack" and "an exchange of 8 tiles from a rack of 7" in v.message
    with pytest.raises(IllegalMoveError, match="an exchange of 8 tiles from a rack of 7"):
        pos.push("-8")
    # the bag holding fewer than the exchange limit: no exchange, the same reason as push's
    few = Position.from_cgp(f"{ENDGAME} /IIKNT 268/465 0")  # (the bag empty)
    v = few.validate("-2")
    assert not v.legal and v.reason == "exchange_not_allowed"
    with pytest.raises(IllegalMoveError) as e:
        few.push("-2")
    assert e.value.reason == "exchange_not_allowed" and e.value.message == v.message


def test_a_hidden_exchange_by_a_rack_known_in_part_validates():
    pos = Position.from_cgp("15/15/15/15/15/15/15/1pODAGRA7/15/15/15/15/15/15/15 AEIRSTU/DY 0/70 0")
    pos.push("-", draw=None)  # his turn: his rack known in part (DY + 5 not known)
    assert pos.racks_partial[0] and not pos.racks_known[0]
    assert pos.validate("-3").legal


def test_a_known_rack_must_still_name_the_tiles_it_exchanges():
    pos = Position.from_cgp("15/15/15/15/15/15/15/1pODAGRA7/15/15/15/15/15/15/15 AEIRSTU/BEELOPY 0/70 0")
    with pytest.raises(InvalidMoveError, match=r"-4 is an exchange of tiles not named.*name the tiles given back"):
        pos.validate("-4")
    with pytest.raises(InvalidMoveError, match="tiles not named"):
        check_move(pos, "-4")


# --- 3. a rack set after the game ended without counting it -----------------------------------------------
BOARD3 = "13J1/13E1/8GRUBBER/11u1Z1/11G3/7KRYOLITE/11E3/6VAW1URINE/7DEEPS3/15/15/15/15/15/15"


def _known_game() -> Game:
    g = Game.from_position(Position.from_cgp(f"{BOARD3} AINNSTV/AEHNNTT 164/116 5"))
    g.play("-")
    return g


def test_a_rack_set_after_a_scoreless_end_is_counted():
    pos = Position.from_cgp(f"{BOARD3} /AEHNNTT 164/116 5")
    pos.push("-")  # the sixth scoreless turn: the game ends, cat's rack (not known) uncounted
    o = pos.outcome()
    assert pos.scores == [106, 164] and not o.final and o.uncounted == (1,)
    before = pos.cgp()
    pos.racks[1] = "AINNSTV"  # cat shows his rack after the game: 10 points
    o = pos.outcome()
    assert o.final and o.uncounted == () and o.scores == (106, 154)  # (was final with 106/164)
    assert sorted((a.player, a.points) for a in o.ending.adjustments) == [(0, -10), (1, -10)]
    game = _known_game()
    assert o.scores == tuple(game.position.scores) and pos.cgp() == game.position.cgp()
    again = Position.from_cgp(pos.cgp())  # a finished game's CGP reads back final, scores as they stand
    assert again.outcome().final and again.outcome().scores == (106, 154)
    pos.pop()  # takes the end back with the move, the rack counted included
    assert pos.scores == [164, 116] and pos.cgp() != before and not pos.is_over


def test_racks_set_together_after_a_scoreless_end_count_the_hidden_one():
    pos = Position.from_cgp(f"{BOARD3} /AEHNNTT 164/116 5")
    pos.push("-")
    pos.racks = ["AEHNNTT", "AINNSTV"]
    assert pos.outcome().final and pos.scores == [106, 154]


def test_a_finished_games_cgp_with_a_rack_not_known_counts_it_once_set():
    pos = Position.from_cgp(f"{BOARD3} AEHNNTT/ 106/164 6")
    o = pos.outcome()
    assert o.scores == (106, 164) and o.uncounted == (1,) and not o.final
    pos.racks[1] = "AINNSTV"
    o = pos.outcome()
    assert o.final and o.scores == (106, 154)
    pos.racks[1] = "AINNSTV"  # (set again: counted once)
    assert pos.outcome().scores == (106, 154)


@pytest.mark.parametrize("pushed", [True, False])
def test_a_counted_rack_corrected_is_counted_again(pushed):
    """A rack shown after the end, counted, then corrected (a slip: Q typed for V) kept the first
    rack's penalty (148): the corrected rack is counted instead, from the scores before."""
    pos = Position.from_cgp(f"{BOARD3} /AEHNNTT 164/116 5" if pushed else f"{BOARD3} AEHNNTT/ 106/164 6")
    if pushed:
        pos.push("-")
    pos.racks[1] = "AINNSTQ"  # 16 points
    assert pos.scores == [106, 148]
    copied = pickle.loads(pickle.dumps(pos))
    pos.racks[1] = "AINNSTV"  # 10
    o = pos.outcome()
    assert o.final and o.scores == (106, 154) and pos.scores == [106, 154]
    assert sorted((a.player, a.points) for a in o.ending.adjustments) == [(0, -10), (1, -10)]
    pos.racks = ["AEHNNTT", "AINNSTV"]  # (all set again: the same)
    assert pos.scores == [106, 154]
    copied.racks[1] = "AINNSTV"  # (a pickle keeps what was counted)
    assert copied.scores == [106, 154]
    if pushed:
        pos.pop()  # the end taken back, the rack's count with it
        assert pos.scores == [164, 116]


def test_a_known_rack_set_again_after_the_end_changes_nothing():
    g = _known_game()
    pos = g.position.copy()
    pos.racks[0] = "AEHNNTT"
    assert pos.scores == [106, 154] and pos.outcome().final


# --- a puzzle's hand-made position: the mover's rack empty with tiles in the bag ---------------------------
@pytest.mark.parametrize("other", ["", "AEINRST"])  # (a short known opponent's rack reads back in part: cgp())
def test_an_empty_mover_rack_with_tiles_in_the_bag_is_not_known_as_in_a_cgp(other):
    """``Position("english", racks=[[], []])`` took the mover's empty rack for a known empty one
    (only a pass to play), while its CGP (``/ 0/0 0``) reads back with his rack not known: 7 tiles,
    another position. An empty rack with tiles in the bag is not known, as a CGP reads it."""
    from racksmith.rules.ruleset import get_ruleset

    a = get_ruleset("english").alphabet
    q = Position("english", racks=[[], a.rack(other)])
    assert q.racks_known[0] is False and q.rack_sizes[0] == 7
    r = Position.from_cgp(q.cgp())
    assert r == q and r.racks_known == q.racks_known and r.rack_sizes == q.rack_sizes


@pytest.mark.parametrize("other", ["", "ABC", "AEINRST"])
def test_a_known_empty_mover_rack_asked_for_reads_back_from_its_cgp(other):
    """Asked for (``racks_known``), a known empty mover's rack with tiles in the bag is kept, and
    its CGP carries the sizes (``rsz``), so that it reads back as the same position."""
    from racksmith.rules.ruleset import get_ruleset

    a = get_ruleset("english").alphabet
    q = Position("english", racks=[[], a.rack(other)], racks_known=(True, bool(other)))
    assert q.racks_known[0] and q.rack_sizes[0] == 0 and q.bag_count > 0 and "rsz" in q.cgp()
    r = Position.from_cgp(q.cgp())
    assert r == q and r.racks_known == q.racks_known and r.rack_sizes == q.rack_sizes


def test_an_empty_board_rack_with_tiles_in_the_bag_is_not_known_on_the_command_line(capsys, tmp_path):
    """``--board FILE --rack ""`` listed a pass as the only move (a known empty rack); it is not
    known, as the same position's CGP reads it: ``moves`` asks for it, ``score`` needs none."""
    from conftest import run_cli

    board = tmp_path / "b.txt"
    board.write_text("\n".join(["." * 15] * 7 + ["......CAT......"] + ["." * 15] * 7) + "\n")
    code, out, err = run_cli(capsys, "moves", "--board", board, "--rack", "")
    assert code == 1 and out == "" and "the rack of the player to move is not known" in err
    code, out, err = run_cli(capsys, "score", "--board", board, "--rack", "", "--move", "9G ZA")
    assert code == 0, err
    code, out, err = run_cli(capsys, "moves", "--board", board, "--rack", "AEINRST")
    assert code == 0, err


def test_a_known_empty_opponent_rack_with_tiles_in_the_bag_reads_back_from_its_cgp():
    from racksmith.rules.ruleset import get_ruleset

    a = get_ruleset("english").alphabet
    p = Position("english", None, (a.rack("AEINRST"), ()), racks_known=[True, True])
    assert p.rack_sizes == (7, 0) and "rsz 7/0" in p.cgp()
    q = Position.from_cgp(p.cgp())
    assert q == p and q.racks_known == p.racks_known and q.rack_sizes == p.rack_sizes
