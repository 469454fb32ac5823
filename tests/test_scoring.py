"""Scores on every ruleset, computed by hand in the comments, and every placement of MAGPIE's fixtures."""
from __future__ import annotations

from pathlib import Path

import pytest

from oracle import fixture_position, load_fixture_positions, placement_move
from racksmith.errors import IllegalMoveError
from racksmith.core.move import Move
from racksmith.core.position import Position
from racksmith.core.scoring import ScoreBreakdown, score_move
from racksmith.core.turns import place_tiles
from racksmith.core.validation import lean_verdict
from racksmith.lexicon import Lexicon


def board_with(ruleset: str, tiles: dict[str, str]) -> Position:
    """A position with words already on the board: ``{"8D": "QUIRK", "D8": ...}`` (row first = across),
    put there by the rules module (words need not connect)."""
    pos = Position.empty(ruleset)
    for coord, word in tiles.items():
        place_tiles(pos.board, pos.resolve(Move.parse(f"{coord} {word}", pos.ruleset)))
    return Position(pos.ruleset, pos.board, ((), ()))


def score(pos: Position, notation: str) -> int:
    return pos.score(notation).score


# --- English -----------------------------------------------------------------------------------------
def test_opening_on_double_letter_and_centre_double_word():
    pos = Position.empty("english")
    b = pos.score("8D QUIRK")
    # Q on 8D double letter: 20; U I R 1 each; K 5 on the 8H double word: (20+1+1+1+5) * 2
    assert b.score == 56 and b.bingo == 0
    (w,) = b.words
    assert (w.text, w.sum, w.word_multiplier, w.score, w.main) == ("QUIRK", 28, 2, 56, True)
    assert w.squares == ((7, 3), (7, 4), (7, 5), (7, 6), (7, 7))
    assert [(t.letter, t.letter_multiplier, t.points, t.new, t.blank) for t in b.tiles] == [
        ("Q", 2, 20, True, False), ("U", 1, 1, True, False), ("I", 1, 1, True, False),
        ("R", 1, 1, True, False), ("K", 1, 5, True, False),
    ]
    assert score(pos, "H4 QUIRK") == 56  # down, Q on 4H double letter, K on the centre


def test_blank_on_premium_scores_zero():
    pos = Position.empty("english")
    b = pos.score("8D qUIRK")  # the blank q on the double letter: (0+1+1+1+5) * 2
    assert b.score == 16
    assert b.tiles[0].blank and b.tiles[0].points == 0 and b.tiles[0].letter == "Q"
    assert b.words[0].text == "qUIRK" and b.words[0].plain == "QUIRK"
    # the blank on the centre double word still doubles: (0 + 1+1+1 + K 5 on 8L double letter) * 2
    assert score(pos, "8H qUIRK") == 26


def test_bingo_adds_fifty():
    # RETAINS 8H..8N: I on 8L double letter, R on the centre double word: (1+1+1+1+2+1+1)*2 + 50
    b = Position.empty("english").score("8H RETAINS")
    assert (b.score, b.bingo) == (66, 50)
    assert b.to_dict()["bingo"] == 50


def test_two_triple_words_multiply_and_played_through_premiums_do_not_count():
    pos = board_with("english", {"1D": "ET"})
    # 1A ABC(ET)FGH: A on 1A and H on 1H triple words; the E on 1D's double letter was already there
    # A1 B3 C3 E1 T1 F4 G2 H4 = 19, * 9
    b = pos.score("1A ABC(ET)FGH")
    assert b.score == 171
    assert b.words[0].word_multiplier == 9
    old = [t for t in b.tiles if not t.new]
    assert [(t.letter, t.letter_multiplier, t.points) for t in old] == [("E", 1, 1), ("T", 1, 1)]


def test_cross_word_through_a_new_tile_on_a_double_word():
    pos = board_with("english", {"E3": "AT"})
    # 5D OXO: X on 5E (double word) under A T. OXO: (1+8+1)*2 = 20; ATX: (1+1+8)*2 = 20
    b = pos.score("5D OXO")
    assert b.score == 40
    assert [(w.text, w.score, w.main) for w in b.words] == [("OXO", 20, True), ("ATX", 20, False)]


def test_single_tile_scores_both_words_in_either_direction():
    pos = board_with("english", {"1B": "AB", "2A": "C"})
    # X on 1A (triple word): XAB (8+1+3)*3 = 36 and XC (8+3)*3 = 33
    for notation in ("1A X(AB)", "1A XAB", "A1 X(C)", "A1 X", "1A X"):
        b = pos.score(notation)
        assert b.score == 69, notation
        assert b.move.notation() == "1A X(AB)"  # listed across: it has a horizontal neighbour
        assert [w.text for w in b.words] == ["XAB", "XC"]
        assert [w.main for w in b.words] == [True, False]
    # the blank on the triple word: (0+1+3)*3 + (0+3)*3
    assert score(pos, "A1 x") == 21


def test_single_tile_direction_follows_its_neighbours():
    pos = board_with("english", {"8H": "AT"})
    for notation in ("9H O", "H9 O", "H8 (A)O"):  # O under the A: only the word AO, so down
        b = pos.score(notation)
        assert b.move.notation() == "H8 (A)O" and b.score == 2
        assert [w.text for w in b.words] == ["AO"]
    b = pos.score("J8 O")  # O after the T: across
    assert b.move.notation() == "8H (AT)O" and b.score == 3


def test_tiles_list_every_square_once_with_face_values_for_old_tiles():
    pos = board_with("english", {"8H": "AT"})
    # 9G OX: O on 9G double letter (2), X under the A (8): OX 10; AX 1 + 8 = 9
    b = pos.score("9G OX")
    assert b.score == 19
    assert [(w.text, w.sum, w.score) for w in b.words] == [("OX", 10, 10), ("AX", 9, 9)]
    assert [(t.row, t.col, t.letter, t.new, t.letter_multiplier, t.points) for t in b.tiles] == [
        (8, 6, "O", True, 2, 2), (8, 7, "X", True, 1, 8), (7, 7, "A", False, 1, 1),
    ]


def test_blank_already_on_board_scores_zero():
    pos = board_with("english", {"8H": "qI"})
    # 9H AT? use a cross: S on 8J makes qIS: q 0 + I 1 + S 1 on 8J (plain) = 2
    b = pos.score("8J S")
    assert b.move.notation() == "8H (qI)S"
    assert b.score == 2
    assert [(t.letter, t.blank, t.points, t.new) for t in b.tiles] == [
        ("Q", True, 0, False), ("I", False, 1, False), ("S", False, 1, True),
    ]


# --- Russian, Эрудит, Super --------------------------------------------------------------------------
def test_russian_centre_double_word_and_bingo():
    # 8H АБВГДЕЖ: Д on 8L double letter; Russian values А1 Б3 В1 Г3 Д2 Е1 Ж5 = 18, *2 (centre) + 50
    b = Position.empty("russian").score("8H АБВГДЕЖ")
    assert (b.score, b.bingo) == (86, 50)


def test_erudit_plain_centre_and_bonus_fifteen():
    # Эрудит values А1 Б3 В2 Г3 Д2 Е1 Ж5; Д on 8L double letter: 1+3+2+3+4+1+5 = 19, no word premium, +15
    b = Position.empty("erudit").score("8H АБВГДЕЖ")
    assert (b.score, b.bingo) == (34, 15)
    assert b.words[0].word_multiplier == 1
    assert score(Position.empty("erudit"), "8H ЁЖ") == 6  # Ё is written Е in Эрудит: 1 + 5
    assert score(Position.empty("erudit"), "8G аБ") == 3  # blank а, Б on the plain centre


def test_super_quadruple_word_and_quadruple_letter():
    pos = board_with("super", {"1B": "O"})
    # 1A Z(O)O: Z on the 1A quadruple word: (10+1+1)*4
    assert score(pos, "1A Z(O)O") == 48
    pos = board_with("super", {"F4": "AT"})
    # Z on 3F quadruple letter above AT: Z(AT) down: 10*4 + 1 + 1
    b = pos.score("3F Z")
    assert b.move.notation() == "F3 Z(AT)" and b.score == 42


def test_super_opening_bingo():
    # 11E ABCDEFG: C on 11G double letter, G on the 11K centre double word (super values)
    # A1 B3 C6 D2 E1 F4 G2 = 19, *2, +50
    b = Position.empty("super").score("11E ABCDEFG")
    assert (b.score, b.bingo) == (88, 50)


# --- geometry is checked, the lexicon is not --------------------------------------------------------
@pytest.mark.parametrize(
    "notation, reason",
    [
        ("8L QUIRKS", "off_board"),
        ("1A QUIRK", "must_cover_start"),
        ("8H Q", "invalid_words"),
        ("8D QU.RK", "not_contiguous"),
    ],
)
def test_illegal_geometry_is_rejected(notation, reason):
    with pytest.raises(IllegalMoveError) as e:
        Position.empty("english").score(notation)
    assert e.value.reason == reason


def test_no_lexicon_needed_and_exchanges_score_zero():
    pos = Position.empty("english", rack="ABC")
    assert score(pos, "8H ZZZZ") == 2 * (10 + 10 + 10 + 10)
    b = score_move(pos, "-ABC")
    assert isinstance(b, ScoreBreakdown) and b.score == 0 and b.words == () and b.move.notation() == "-ABC"
    assert score_move(pos, "-").score == 0


def test_breakdown_json_shape():
    d = Position.empty("english").score("8D QUIRK").to_dict()
    assert d["score"] == 56 and d["bingo"] == 0 and d["move"] == "8D QUIRK"
    assert d["words"] == [
        {"word": "QUIRK", "squares": [[7, 3], [7, 4], [7, 5], [7, 6], [7, 7]], "sum": 28,
         "word_multiplier": 2, "score": 56, "main": True}
    ]
    assert d["tiles"][0] == {"row": 7, "col": 3, "letter": "Q", "blank": False, "new": True,
                             "letter_multiplier": 2, "points": 20}


# --- every placement of MAGPIE's fixtures -------------------------------------------------------------
RECORDS = load_fixture_positions("positions.jsonl") + load_fixture_positions("super_positions.jsonl")


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_every_fixture_placement_scores_as_magpie(record):
    pos = fixture_position(record)
    wrong = []
    for p in record["placements"]:
        move = placement_move(pos, p)
        b = score_move(pos, move)
        if b.score != p[4] or b.move != move:
            wrong.append((p, b.score, b.move.notation()))
    assert wrong == []
    # sums of words and tiles agree with the total on every placement of one position
    for p in record["placements"][:50]:
        b = score_move(pos, placement_move(pos, p))
        assert sum(w.score for w in b.words) + b.bingo == b.score
        for w in b.words:
            assert w.sum == sum(t.points for t in b.tiles if (t.row, t.col) in w.squares)


# --- the reference scorer and its two speed copies ------------------------------------------------------
@pytest.mark.parametrize("record", RECORDS[::4], ids=[r["id"] for r in RECORDS[::4]])
def test_the_generator_and_the_lean_check_score_every_move_as_the_reference(record):
    """scoring.breakdown is the reference; the kernel's scores and lean_verdict's are copies for speed,
    held equal here on every move the generator lists (blanks, bingos, cross-words and all)."""
    pos = fixture_position(record)
    enable = Lexicon.load(Path(__file__).parent / "fixtures" / "ENABLE15.kwg", "english")
    pos.lexicon = enable
    moves = pos.moves()
    assert len(moves) > 1
    for m in moves:
        if not m.is_place:
            continue
        assert score_move(pos, m).score == m.score, m
        assert lean_verdict(pos, m, enable) == m.score, m
