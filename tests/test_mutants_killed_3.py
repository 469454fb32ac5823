"""Rules that a third mutation audit found untested: each test states a documented rule and checks
it on a small, fixed position or input; its docstring names the wrong code it catches."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from racksmith import Position, Ruleset, get_ruleset
from racksmith.core.move import Move, MoveKind
from racksmith.errors import InvalidMoveError
from racksmith.formats.cgp import format_cgp
from racksmith.search.player import EndgamePlayer
from racksmith.sim.player import SimPlayer

ENGLISH = get_ruleset("english")
EMPTY = "/".join(["15"] * 15)
# (as in test_endgame.py: the bag empty, depths 1-2 in a fraction of a second)
BLIGHTER = ("BLIGHTER6J/2O11A/2D9LAG/2I1U2LIANOID1/R1CANOEIST2DO1/A3M8Z1/COMPERED5ET/Q3W1FEW5O/"
            "U6B6Y/E1ERRANT5HO/T2YUGAS5EN/SEVEN8I1/13F1/13E1/11KART AILNOU?/IIPSVX? 396/326 0")
# (as in test_annotator_core.py: the mover's rack not known, five scoreless turns)
BOARD3 = "13J1/13E1/8GRUBBER/11u1Z1/11G3/7KRYOLITE/11E3/6VAW1URINE/7DEEPS3/15/15/15/15/15/15"


def with_scores(cgp: str, ours: int, theirs: int) -> str:
    """``cgp`` with the scores ``ours``/``theirs``."""
    fields = cgp.split(" ")
    fields[2] = f"{ours}/{theirs}"
    return " ".join(fields)


def view(pos: Position, bag: int) -> SimpleNamespace:
    """What a player is shown of ``pos`` with ``bag`` tiles in the bag (a player's GameView)."""
    return SimpleNamespace(bag_count=bag, position=pos, lexicon=pos.lexicon, ruleset=pos.ruleset, moves=pos.moves,
                           history=[], player=0)


# --- 1. the players' last result and refusal -------------------------------------------------------------
def test_the_endgame_player_s_last_is_none_after_a_refused_position():
    """A refused position gets static equity and :attr:`last` None (as the docstring says, and as
    the sim player's refusals do): ``last`` held the previous turn's EndgameResult."""
    player = EndgamePlayer(seconds=None, plies=2)
    player.choose(view(Position.from_cgp(BLIGHTER), 0))
    assert player.last is not None and player.declined is None
    refused = Position.from_cgp(with_scores(BLIGHTER, 20_000_000, 0))
    move = player.choose(view(refused, 0))
    assert player.last is None and "the scores differ by 20000000 points" in player.declined
    assert move == player.static.choose(view(refused, 0))


def test_the_endgame_player_clears_declined_when_it_solves():
    """A refusal's note goes at the next position solved (mutant: ``self.declined = None`` deleted)."""
    player = EndgamePlayer(seconds=None, plies=2)
    player.choose(view(Position.from_cgp(with_scores(BLIGHTER, 20_000_000, 0)), 0))
    assert player.declined is not None and player.last is None
    player.choose(view(Position.from_cgp(BLIGHTER), 0))
    assert player.declined is None and player.last is not None and player.last.depth == 2


def test_the_sim_player_s_last_and_declined_follow_each_turn():
    """A simulated turn, a refused one (scores past the play-outs' 32-bit range), then an endgame:
    ``last`` is None after the refusal (mutant: ``self.last = None`` deleted in the PositionRefused
    branch), and ``declined`` None again once the endgame is solved (mutant: ``self.declined =
    None`` deleted on the endgame path)."""
    from racksmith.search.endgame import EndgameResult
    from racksmith.sim.simulate import SimResult

    player = SimPlayer(candidates=2, plies=1, iterations=4, stop=None, leaves=None, endgame_plies=2)
    start = f"{EMPTY} AEINRST/ 0/0 0"
    player.choose(view(Position.from_cgp(start), 86))
    assert isinstance(player.last, SimResult) and player.declined is None
    player.choose(view(Position.from_cgp(with_scores(start, 300_000_000, 0)), 86))
    assert player.last is None and "cannot simulate this position" in player.declined
    player.choose(view(Position.from_cgp(BLIGHTER), 0))
    assert isinstance(player.last, EndgameResult) and player.declined is None


# --- 2. a rack counted at the end, taken back with pop ------------------------------------------------------
def test_pop_forgets_the_rack_counted_in_the_ending_it_takes_back():
    """A pass ends the game (six scoreless turns), the rack set counts; popped and passed again, the
    rack set then is the one counted, alone (mutant: ``self._revealed = ()`` deleted in ``pop``:
    the first rack's count stayed, 170 for 154)."""
    pos = Position.from_cgp(f"{BOARD3} /AEHNNTT 164/116 5")
    pos.push("-")
    pos.racks[1] = "AINNSTQ"
    pos.pop()
    assert pos.scores == [164, 116]
    pos.push("-")
    pos.racks[1] = "AINNSTV"
    assert pos.scores == [106, 154] and pos.outcome().final


# --- 3. moves made in code -------------------------------------------------------------------------------------
def test_moves_that_differ_only_in_the_stars_they_take_back_differ():
    """(mutant: ``or self.reclaimed != o.reclaimed`` dropped from ``__eq__``)"""
    taking = Move.parse("8D ДОм *12H=А", "erudit")
    plain = Move.parse("8D ДОм", "erudit")
    assert taking.reclaimed and not plain.reclaimed
    assert taking != plain


def test_an_exchange_given_a_direction_is_refused():
    """An exchange has no direction: across=False is refused as a square is (mutant: ``across``
    dropped from the check)."""
    with pytest.raises(InvalidMoveError, match="an exchange has no square, direction or stars taken back"):
        Move(MoveKind.EXCHANGE, 0, 0, False, (1, 2))
    with pytest.raises(InvalidMoveError, match="a pass has no square, direction"):
        Move(MoveKind.PASS, 0, 0, False)


def test_stars_taken_back_given_as_lists_are_made_tuples():
    """A move is hashable and equal to the same move with its stars written as tuples: from
    ``Move.place`` (mutant: ``_quick`` taking any ``reclaimed``) and from the constructor (mutant:
    ``_normalize_place`` keeping the inner lists)."""
    alphabet = get_ruleset("erudit").alphabet
    as_tuples = Move.place(7, 3, True, (1, 2), alphabet, reclaimed=((11, 7, 1),))
    for move in (Move.place(7, 3, True, (1, 2), alphabet, reclaimed=[[11, 7, 1]]),
                 Move(MoveKind.PLACE, 7, 3, True, (1, 2), "erudit", reclaimed=[[11, 7, 1]])):
        assert move.reclaimed == ((11, 7, 1),) and type(move.reclaimed[0]) is tuple
        assert hash(move) == hash(as_tuples) and move == as_tuples


def test_a_move_s_position_must_be_a_position():
    """(mutant: ``_check_position`` skipped in the constructor)"""
    with pytest.raises(InvalidMoveError):
        Move(MoveKind.PASS, position="junk")


def test_a_move_s_position_is_a_copy():
    """Changing the position a move gives leaves the one it was made with as it was (mutant: no copy
    in ``_position``)."""
    pos = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0")
    move = Move(MoveKind.PASS, position=pos)
    move.position.push("8D RETAINS")
    assert pos.scores == [0, 0] and pos.board.sum() == 0
    assert move.position.scores == [0, 0]


# --- 4. CGP: the racks' sizes written last ---------------------------------------------------------------------
def test_a_ruleset_file_s_cgp_writes_rsz_after_the_rules_it_names(tmp_path):
    """A ruleset file's rules (``bb 40``) are added to the opcodes after ``rsz``: the sizes are still
    written last, as a line read back has them, and the line writes back the same (mutant: the
    reordering dropped). Of several ``rsz``, the last is the one written (mutant: ``[-1:]`` as
    ``[:1]``)."""
    path = tmp_path / "bb40.json"
    path.write_text(json.dumps({**ENGLISH.to_dict(), "aliases": [], "name": "bb40", "bingo_bonus": 40}))
    rs = get_ruleset(str(path))
    first = Position.from_cgp(f"{EMPTY} /AEINRST 0/0 0 rsz 0/7;", ruleset=rs).cgp()
    assert first.endswith(" /AEINRST 0/0 0 bb 40; rsz 0/7;")
    assert Position.from_cgp(first, ruleset=rs).cgp() == first
    board = Position.from_cgp(f"{EMPTY} AEINRST/ 0/0 0").board
    line = format_cgp(board, ((), rs.alphabet.rack("AEINRST")), (0, 0), 0,
                      (("rsz", "7/7"), ("lex", "CSW21"), ("rsz", "0/7")), rs)
    assert line.endswith(" lex CSW21; bb 40; rsz 0/7;") and line.count("rsz") == 1


# --- 5. a tile of several letters typed without brackets -----------------------------------------------------
def test_the_hint_for_letters_typed_without_brackets_says_is_or_are():
    """One tile named: "CH ... is separate tiles ... for the tile"; two: "CH, LL ... are separate
    tiles ... for the tiles" (mutants: either plural fixed)."""
    tiles = [["A", 9, 1], ["C", 2, 3], ["CH", 1, 5], ["H", 2, 4], ["I", 9, 1], ["L", 4, 1], ["LL", 1, 8],
             ["O", 8, 1], ["S", 4, 1]]
    rs = Ruleset.from_dict({"name": "chll_test", "board": ENGLISH.layout(), "start": "8H", "rack_size": 7,
                            "bingo_bonus": 50, "blanks": 0, "vowels": "AIO", "tiles": tiles})
    pos = Position.from_cgp(f"{EMPTY} A[CH]I[LL]OS/ 0/0 0", rs)
    one = pos.validate("8H CHIS")
    assert one.reason == "not_in_rack"
    assert "(CH without brackets is separate tiles (C and H): write [CH] for the tile)" in one.message
    for move in ("8H CHILLA", "-CHLL"):
        two = pos.validate(move)
        assert two.reason == "not_in_rack"
        assert ("(CH, LL without brackets are separate tiles (C and H, L and L): write [CH], [LL] for the tiles)"
                in two.message)
