"""Public objects as values, second audit: unpickled tiles share their alphabet, moves made from
numpy values are plain, lexicons are never copied, moves of other letters are unequal, a move list
finds a move however it is written, a move's position is its own copy, a replay's boards are
read-only, the Move constructor makes what the factories make, and generate_moves says what it
takes."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from racksmith import Position, load_lexicon, replay_text
from racksmith.core.move import Move, MoveKind
from racksmith.errors import InvalidMoveError, MoveGenError
from racksmith.lexicon import Leaves
from racksmith.movegen import generate_moves
from racksmith.play.game import Game
from racksmith.rules.alphabet import THROUGH, Alphabet
from racksmith.rules.ruleset import get_ruleset

CGP = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"


@pytest.fixture(scope="module")
def pos() -> Position:
    return Position.from_cgp(CGP)


# --- 1. unpickled tiles and moves share the alphabet already made -------------------------------

def test_two_unpickled_racks_are_of_one_tiles_class_and_the_shipped_alphabet(pos):
    blob = pickle.dumps(pos.rack)
    a, b = pickle.loads(blob), pickle.loads(blob)
    english = get_ruleset("english").alphabet
    assert type(a) is type(b) is type(pos.rack)
    assert a.alphabet is b.alphabet is english
    assert a == b == pos.rack and hash(a) == hash(pos.rack) and str(a) == str(pos.rack)


def test_two_unpickled_moves_share_the_alphabet(pos):
    move = pos.moves(top=1)[0]
    blob = pickle.dumps(move)
    m1, m2 = pickle.loads(blob), pickle.loads(blob)
    assert m1.alphabet is m2.alphabet is get_ruleset("english").alphabet
    assert type(m1.leave) is type(m2.leave) is type(move.leave)
    assert m1 == m2 == move and hash(m1) == hash(move)


def test_an_alphabet_of_no_ruleset_unpickles_as_the_one_made():
    mine = Alphabet(("A", "B", "C"), name="abc-test")
    blob = pickle.dumps(mine.tiles((1, 2)))
    a, b = pickle.loads(blob), pickle.loads(blob)
    assert a.alphabet is b.alphabet is mine and type(a) is type(b)
    assert pickle.loads(pickle.dumps(mine)) is mine and copy.copy(mine) is mine and copy.deepcopy(mine) is mine


# --- 2. a placement of numpy tiles (a record's) writes itself -----------------------------------

def test_a_move_placed_from_a_record_of_numpy_values_prints(pos):
    moves = pos.moves()
    r = moves.to_numpy()[0]
    m = Move.place(int(r["row"]), int(r["col"]), bool(r["dir"] == 0), r["tiles"][: r["length"]])
    assert all(type(t) is int for t in m.tiles)
    assert m == moves[0] and hash(m) == hash(moves[0])
    assert repr(m) == "Move.parse('J8 SOIREE')" and str(m) == m.notation() == m.gcg() == "J8 SOIREE"
    assert m.word == "SOIREE"
    ex = Move.exchange(np.array([9, 5], dtype=np.uint8))
    assert ex.tiles == (5, 9) and all(type(t) is int for t in ex.tiles) and ex.notation() == "-EI"


# --- 3. lexicons and leave tables are shared, never copied ---------------------------------------

def test_copying_a_lexicon_or_leaves_gives_the_same_object():
    lex = load_lexicon("enable")
    assert copy.copy(lex) is lex and copy.deepcopy(lex) is lex
    assert copy.deepcopy({"lexicon": lex})["lexicon"] is lex
    leaves = Leaves.empty("english")
    assert copy.copy(leaves) is leaves and copy.deepcopy([leaves])[0] is leaves


# --- 4. moves of other letters are unequal ------------------------------------------------------

def test_moves_of_other_letters_are_unequal(pos):
    en, ru = Move.parse("8H CAT"), Move.parse("8H ВАТ", "russian")
    assert en.tiles == ru.tiles and en != ru and ru != en
    assert Move.parse("8H CAT", "super") == en and hash(Move.parse("8H CAT", "super")) == hash(en)
    moves = pos.moves()
    ru_move = Move(MoveKind.PLACE, 7, 9, False, moves[0].tiles, get_ruleset("russian").alphabet)
    assert moves[0].tiles == ru_move.tiles and ru_move not in moves and moves.count(ru_move) == 0
    with pytest.raises(MoveGenError):
        moves.index(ru_move)


# --- 5. a move list finds a move however Move.parse reads it -------------------------------------

def test_a_move_list_finds_a_move_written_as_move_parse_reads_it(pos):
    moves = pos.moves(exchanges=True)
    best = moves.index("J8 SOIREE")
    for text in ("j8 SOIREE", "J8  SOIREE", " J8 soiree ".upper()):
        assert text in moves and moves.index(text) == best and moves.count(text) == 1
    passed = moves.index(Move.pass_())
    for text in ("-", "pass", "(pass)", "PASS"):
        assert text in moves and moves.index(text) == passed
    exchange = moves.index(Move.parse("-EIO"))
    for text in ("-OIE", "-EIO", "exch EIO", "(exch OIE)", "exchange IEO"):
        assert text in moves and moves.index(text) == exchange
    through = next(m for m in moves if m.is_place and any(t & THROUGH for t in m.tiles))
    at = moves.index(through)
    coordinate = through.gcg().split()[0]
    for text in (through.gcg(), through.notation(), f"{coordinate} {through.word}"):
        assert text in moves and moves.index(text) == at
    assert "J8 SOIREES" not in moves and "-Z" not in moves
    with pytest.raises(InvalidMoveError):
        "hello" in moves  # noqa: B015 - a text that is no move is refused, not "not found"
    with pytest.raises(InvalidMoveError):
        moves.index("8H")


# --- 6. each move's position is its own copy ---------------------------------------------------

def test_changing_one_moves_position_changes_no_other(pos):
    moves = pos.moves()
    before = pos.cgp()
    first = moves[0].position
    first.push(moves[0])
    assert first.cgp() != before
    assert moves[1].position.cgp() == before and moves.position.cgp() == before and moves[0].position.cgp() == before
    assert moves[1]._repr_svg_().startswith("<svg")
    m = moves[1]
    assert m.position is not m.position and m.position.cgp() == before
    assert copy.copy(m) == m and pickle.loads(pickle.dumps(m)).position.cgp() == before


# --- 7. a replay's boards are read-only ----------------------------------------------------------

def test_a_replay_turns_board_is_read_only():
    lex = load_lexicon("enable")
    g = Game("english", seed=1, lexicon=lex)
    for _ in range(5):
        g.play(g.legal_moves()[0])
    rp = replay_text(g.gcg(), lexicon=lex)
    later = rp.position(4).cgp()
    turn = rp.turns[3]
    with pytest.raises(ValueError):
        turn.board[0, 0] = 26
    assert rp.position(4).cgp() == later
    for other in (pickle.loads(pickle.dumps(turn)), copy.deepcopy(turn), copy.copy(turn)):
        assert other == turn and not other.board.flags.writeable
        with pytest.raises(ValueError):
            other.board[0, 0] = 26


# --- 8. the Move constructor makes what the factories make ---------------------------------------

def test_the_constructor_normalizes_as_the_factories_do(pos):
    m = Move(MoveKind.EXCHANGE, tiles=(9, 5))
    assert m == Move.exchange((5, 9)) and m.tiles == (5, 9) and eval(repr(m)) == m
    assert Move(MoveKind.EXCHANGE, tiles=(9, 5, 5)) in pos.moves(exchanges=True)  # (EEI of EEIIORS)
    placed = Move(MoveKind.PLACE, 7, 9, False, [19, 15])
    assert placed.tiles == (19, 15) and hash(placed) == hash(Move.place(7, 9, False, (19, 15)))
    assert Move("pass") == Move.pass_() and Move(MoveKind.PLACE, np.int64(7), np.uint8(9), np.bool_(True), (1,)) \
        == Move.place(7, 9, True, (1,))
    named = Move(MoveKind.PLACE, 7, 7, True, (3, 1, 20), alphabet="english")
    assert named.alphabet is get_ruleset("english").alphabet and repr(named) == "Move.parse('8H CAT')"
    assert Move(MoveKind.PASS, alphabet="russian").alphabet is get_ruleset("russian").alphabet
    for bad in (lambda: Move(MoveKind.PASS, row=3), lambda: Move(MoveKind.EXCHANGE, col=2, tiles=(1,)),
                lambda: Move(MoveKind.PASS, tiles=(1,)), lambda: Move(MoveKind.PLACE, alphabet=5),
                lambda: Move("jump"), lambda: Move(MoveKind.PLACE, 7, 7, "yes", (1,)),
                lambda: Move(MoveKind.EXCHANGE, tiles="EI"), lambda: Move(MoveKind.PLACE, 1.5, 7, True, (1,))):
        with pytest.raises(InvalidMoveError):
            bad()


def test_the_moves_of_a_list_are_the_constructors(pos):
    moves = pos.moves(exchanges=True)
    for m in moves:
        again = Move(m.kind, m.row, m.col, m.across, m.tiles, m.alphabet, reclaimed=m.reclaimed)
        assert again == m and hash(again) == hash(m) and type(m.tiles) is tuple


# --- 9. generate_moves says what it takes ------------------------------------------------------

def test_generate_moves_of_no_position_says_what_it_takes(pos):
    with pytest.raises(MoveGenError, match="position must be a racksmith Position.*got ndarray"):
        generate_moves(pos.board)
    with pytest.raises(MoveGenError, match="got NoneType"):
        generate_moves(None)
