"""Resolution of written moves to canonical ones, and every reason a move is illegal, in order."""
from __future__ import annotations

import pytest

from oracle import enable_words, fixture_position, load_fixture_positions, placement_move
from racksmith.rules.alphabet import THROUGH
from racksmith.errors import IllegalMoveError, InvalidMoveError
from racksmith.core.move import Move
from racksmith.core.position import Position
from racksmith.core.validation import MOVE_REASONS, Verdict, check_move, resolve_move, validate

# QUIRK on 8D..8H (row 7, columns 3..7)
QUIRK_CGP = "15/15/15/15/15/15/15/3QUIRK7/15/15/15/15/15/15/15 ADEIRS?/ 56/0 0"
LEX = {"QUIRK", "QUIRKS", "QUIRKED", "SQUIRK", "KA", "KAS", "AD", "ADS", "RED", "AS", "IS", "DIRE", "DIRES"}


@pytest.fixture
def quirk() -> Position:
    return Position.from_cgp(QUIRK_CGP)


def reason(pos: Position, notation, lexicon=LEX) -> str | None:
    return validate(pos, notation, lexicon).reason


def test_reason_codes_in_checking_order():
    assert MOVE_REASONS == (
        "reclamation_not_allowed", "no_star_there", "off_board", "occupied", "not_contiguous", "no_tiles",
        "star_not_replayed", "must_cover_start", "not_connected", "not_in_rack", "invalid_words",
        "exchange_not_allowed",
    )


# --- resolution -------------------------------------------------------------------------------------
@pytest.mark.parametrize("written", ["8D QUIRKS", "8D (QUIRK)S", "8D .....S", "8D QU(I)R.S", "8I S", "8D quirkS"])
def test_played_through_letters_any_way_they_are_written(quirk, written):
    m = quirk.resolve(written)
    assert m.notation() == "8D (QUIRK)S"
    assert m.tiles[:5] == tuple(THROUGH | t for t in quirk.board[7, 3:8].tolist())
    assert quirk.validate(written, LEX).score == quirk.score("8D (QUIRK)S").score == 19


def test_resolution_extends_before_and_after(quirk):
    assert quirk.resolve("8C S").notation() == "8C S(QUIRK)"
    assert quirk.resolve("8C S(QUIRK)").notation() == "8C S(QUIRK)"
    assert quirk.resolve("8I ED").notation() == "8D (QUIRK)ED"


def test_single_tile_is_canonical_across_if_it_has_a_horizontal_neighbour(quirk):
    assert quirk.resolve("H9 A").notation() == "H8 (K)A"  # under K, nothing beside it: down
    assert quirk.resolve("9H A").notation() == "H8 (K)A"
    assert quirk.resolve("I8 S").notation() == "8D (QUIRK)S"  # written down, but beside the K
    two = quirk.resolve("9H AD")  # two tiles keep the direction they are written in
    assert two.notation() == "9H AD" and two.across


def test_blank_on_the_board_can_be_played_through_by_its_letter():
    pos = Position.from_cgp("15/15/15/15/15/15/15/7qI6/15/15/15/15/15/15/15 S/ 0/0 0")
    for written in ("8H QIS", "8H qIS", "8H (Q)(I)S", "8J S"):
        m = pos.resolve(written)
        assert m.notation() == "8H (qI)S" and m.word == "qIS"
    assert pos.validate("8J S", {"QIS"}).score == 2


def test_exchanges_and_passes_resolve_to_themselves(quirk):
    assert quirk.resolve("-AD").notation() == "-AD"
    assert quirk.resolve("-").is_pass


# --- each reason ------------------------------------------------------------------------------------
def test_off_board(quirk):
    v = validate(quirk, "8L ADDRESS", LEX)
    assert v.reason == "off_board" and "8P" in v.message
    assert reason(quirk, "O14 ADS") == "off_board"  # down from row 14: the S would be on row 16


def test_occupied(quirk):
    v = validate(quirk, "8D QUACK", LEX)
    assert v.reason == "occupied" and "8F" in v.message
    assert reason(quirk, "8D QU(A)RK") == "occupied"


def test_not_contiguous():
    pos = Position.empty("english", rack="ABD")
    assert reason(pos, "8G AB.D") == "not_contiguous"
    assert reason(pos, "8G (A)BD") == "not_contiguous"


def test_no_tiles(quirk):
    for written in ("8D QUIRK", "8D (QUIRK)", "8D .....", "8E UI"):
        assert reason(quirk, written) == "no_tiles"


def test_must_cover_start():
    pos = Position.empty("english", rack="ADS")
    v = validate(pos, "1A ADS", LEX)
    assert v.reason == "must_cover_start" and "8H" in v.message
    assert reason(Position.empty("super", rack="ADS"), "8H ADS") == "must_cover_start"  # super: 11K


def test_not_connected(quirk):
    assert reason(quirk, "1A AD") == "not_connected"
    assert reason(quirk, "10D AD") == "not_connected"  # two rows below QUIRK


def test_not_in_rack(quirk):
    v = validate(quirk, "H8 (K)AZ", LEX | {"KAZ"})
    assert v.reason == "not_in_rack" and "Z" in v.message
    no_blank = Position.from_cgp("15/15/15/15/15/15/15/3QUIRK7/15/15/15/15/15/15/15 ADEIRS/ 56/0 0")
    v = validate(no_blank, "H8 (K)a", LEX)
    assert v.reason == "not_in_rack" and "?" in v.message
    assert reason(quirk, "H8 (K)aS") is None  # the blank stands for A
    assert reason(quirk, "9D AA") == "not_in_rack"  # one A only


def test_invalid_words_lists_main_and_cross_words(quirk):
    # ADE under QUI makes QA, UD and IE: all of them are reported, main word first
    v = validate(quirk, "9D ADE", {"ADE"})
    assert v.reason == "invalid_words"
    assert v.words == ("QA", "UD", "IE")
    v = validate(quirk, "9D aDE", set())
    assert v.words == ("ADE", "QA", "UD", "IE")  # blanks spelt as their letter, uppercase
    with pytest.raises(IllegalMoveError) as e:
        check_move(quirk, "9D ADE", {"ADE"})
    assert (e.value.reason, e.value.words) == ("invalid_words", ("QA", "UD", "IE"))


def test_single_tile_alone_on_an_empty_board_forms_no_word():
    v = validate(Position.empty("english", rack="A"), "8H A", {"A", "AA"})
    assert v.reason == "invalid_words" and v.words == ("A",)
    assert "2 letters" in v.message


def test_exchanges():
    peg = next(r for r in load_fixture_positions() if r["id"] == "peg_s141_t19")
    pos = fixture_position(peg)  # bag 1
    v = validate(pos, "-E", set())
    assert v.reason == "exchange_not_allowed" and "1 tile" in v.message
    assert reason(pos, "-Z", set()) == "exchange_not_allowed"  # no exchange with 1 tile in the bag, whatever the rack
    open_pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ABCDEFG/ 0/0 0")
    v = validate(open_pos, "-ABG", set())
    assert v.legal and v.score == 0 and v.move.notation() == "-ABG"
    assert reason(open_pos, "-AA", set()) == "not_in_rack"
    assert reason(open_pos, Move.exchange([]), set()) == "no_tiles"
    assert validate(open_pos, "-", set()).legal


def test_reasons_are_reported_in_order(quirk):
    # off the board and not on the rack: off_board wins
    assert reason(quirk, "8K ZZZZZZ") == "off_board"
    # a wrong letter on 8D and a '.' over an empty 8B: occupied comes first
    assert reason(quirk, "8B .XA") == "occupied"
    # not connected and not on the rack: not_connected first
    assert reason(quirk, "1A ZZ") == "not_connected"
    # not on the rack and not a word: not_in_rack first
    assert reason(quirk, "H8 (K)ZZ") == "not_in_rack"


# --- verdicts ---------------------------------------------------------------------------------------
def test_verdict_values_and_json(quirk):
    v = quirk.validate("8D (QUIRK)S", LEX)
    assert v and v.legal and v.score == 19 and v.move.notation() == "8D (QUIRK)S" and v.move.score == 19
    assert v.to_dict() == {"legal": True, "score": 19}
    bad = quirk.validate("1A AD", LEX)
    assert not bad
    assert bad.to_dict() == {"legal": False, "reason": "not_connected", "message": bad.message, "words": []}
    assert isinstance(bad, Verdict) and bad.message


def test_the_positions_own_lexicon_is_the_default():
    pos = Position.from_cgp(QUIRK_CGP, lexicon={"QUIRKS"})
    assert pos.validate("8D (QUIRK)S").legal
    assert pos.validate("8D (QUIRK)ED").words == ("QUIRKED",)


def test_moves_of_another_alphabet_or_bad_tiles_are_refused(quirk):
    with pytest.raises(InvalidMoveError):
        resolve_move(Position.empty("russian"), Move.parse("8H AB"))
    with pytest.raises(InvalidMoveError):
        resolve_move(quirk, Move.place(7, 8, True, [0]))  # a bare rack blank is not a board tile
    with pytest.raises(InvalidMoveError):
        resolve_move(quirk, Move.place(7, 8, True, [27]))
    with pytest.raises(InvalidMoveError):
        resolve_move(quirk, Move.place(7, 8, True, [1.5]))
    with pytest.raises(InvalidMoveError):
        resolve_move(quirk, Move.exchange(["A"]))
    with pytest.raises(InvalidMoveError):
        quirk.validate("8D QU?RK", LEX)
    with pytest.raises(InvalidMoveError):
        quirk.validate(42, LEX)


def test_russian_moves_from_text():
    pos = Position.empty("russian", rack="КОТ")
    assert pos.validate("8H КОТ", {"КОТ"}).score == 2 * (2 + 1 + 1)
    assert pos.validate("8H ТОК", {"КОТ"}).words == ("ТОК",)


# --- every MAGPIE placement is legal, in the canonical form -----------------------------------------
RECORDS = load_fixture_positions("positions.jsonl") + load_fixture_positions("super_positions.jsonl")


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_fixture_placements_are_legal(record):
    words = set(enable_words())
    pos = fixture_position(record)
    step = max(1, len(record["placements"]) // 500)
    for p in record["placements"][::step]:
        move = placement_move(pos, p)
        v = validate(pos, move, words)
        assert v.legal and v.score == p[4] and v.move == move, (p, v)
