"""Move notation: parsing, writing, round trips (hypothesis), and every malformed form refused."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith.rules.alphabet import BLANK, THROUGH, Alphabet
from racksmith.errors import InvalidMoveError
from racksmith.core.move import EXCHANGE, PASS, PLACE, Move
from racksmith.rules.ruleset import get_ruleset

EN = get_ruleset("english").alphabet
RU = get_ruleset("russian").alphabet
ERUDIT = get_ruleset("erudit").alphabet
MULTI = Alphabet(("A", "C", "CH", "L", "LL", "O", "R", "RR"), name="multi")


def test_parse_across_and_down():
    m = Move.parse("8D QUIRK")
    assert (m.kind, m.row, m.col, m.across) == (PLACE, 7, 3, True)
    assert m.tiles == (17, 21, 9, 18, 11)
    d = Move.parse("D8 QUIRK")
    assert (d.row, d.col, d.across) == (7, 3, False)
    assert d.squares == [(7, 3), (8, 3), (9, 3), (10, 3), (11, 3)]
    assert Move.parse("  h8   quIrk ") == Move.place(7, 7, False, [17 | BLANK, 21 | BLANK, 9, 18 | BLANK, 11 | BLANK])


def test_played_through_forms():
    paren = Move.parse("8D QU(I)RK")
    assert paren.tiles == (17, 21, THROUGH | 9, 18, 11)
    assert paren.notation() == "8D QU(I)RK" and paren.gcg() == "8D QU.RK" and paren.word == "QUIRK"
    dot = Move.parse("8D QU.RK")
    assert dot.tiles == (17, 21, THROUGH, 18, 11)
    assert dot.word == "QU.RK" and dot.gcg() == "8D QU.RK"
    assert Move.parse("8D (QU)IRK").notation() == "8D (QU)IRK"
    assert Move.parse("8D (q)UIRK").tiles[0] == THROUGH | 17 | BLANK


def test_placement_views():
    m = Move.parse("8D QU(I)Rk")
    assert m.placed == [(7, 3, 17), (7, 4, 21), (7, 6, 18), (7, 7, 11 | BLANK)]
    assert m.tiles_played == 4
    assert m.rack_tiles() == [0, 17, 18, 21]
    assert m.is_place and not m.is_exchange and not m.is_pass


@pytest.mark.parametrize(
    "text, tiles",
    [("-ABC", (1, 2, 3)), ("- CBA", (1, 2, 3)), ("exch A?B", (0, 1, 2)), ("exchange ZZ", (26, 26)),
     ("(exch ABC)", (1, 2, 3)), ("-*a", (0, 1))],
)
def test_exchanges(text, tiles):
    m = Move.parse(text)
    assert m.kind == EXCHANGE and m.tiles == tiles
    assert m.tiles_played == len(tiles) and m.rack_tiles() == list(tiles)
    assert Move.parse(m.notation()) == m


@pytest.mark.parametrize("text", ["-", "pass", "PASS", "(pass)", " - "])
def test_passes(text):
    m = Move.parse(text)
    assert m.kind == PASS and m.notation() == "-" and m.tiles_played == 0 and m.rack_tiles() == []


def test_a_row_no_board_has_is_named_by_the_board_of_the_position():
    from racksmith import Position

    with pytest.raises(InvalidMoveError, match=r"bad coordinate 'Z99': this board's rows are 1\.\.15 and its columns A\.\.O$"):
        Position.empty("english", "AEINRST").validate("Z99 FOO")
    with pytest.raises(InvalidMoveError, match=r"this board's rows are 1\.\.21 and its columns A\.\.U$"):
        Move.parse("0A AB", get_ruleset("super"))
    with pytest.raises(InvalidMoveError, match=r"rows are numbered 1\.\.26 \(no board is larger\)"):
        Move.parse("0A AB")  # no ruleset: no board to name


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "bad move"),
        ("8D", "bad move"),
        ("8D QUIRK X", "bad move"),
        ("-0", "gives back 1 to 99 tiles"),
        ("DD QUIRK", "bad coordinate"),
        ("0A AB", "rows are numbered 1..26"),
        ("80D QU(I)RK", "rows are numbered 1..26"),  # (it parsed, then wrote back as words)
        ("8D QU?RK", "write a blank as the lowercase letter"),
        ("8D QU*RK", "write a blank as the lowercase letter"),
        ("8D QU((I))RK", "nested '('"),
        ("8D QU)IRK", "')' without '('"),
        ("8D QU(IRK", "unclosed '('"),
        ("8D ()", "no letters"),
        ("8D [QU", "unclosed '['"),
        ("8D QU1RK", "not in the alphabet"),
        ("-AB1", "bad exchange"),
    ],
)
def test_malformed_notation(text, words):
    with pytest.raises(InvalidMoveError) as e:
        Move.parse(text)
    assert words in str(e.value)


def test_non_text_is_refused():
    with pytest.raises(InvalidMoveError, match="written as text"):
        Move.parse(5)


def test_other_alphabets():
    m = Move.parse("8H КОТ", "russian")
    assert m.tiles == tuple(RU.tile(c) for c in "КОТ") and m.notation() == "8H КОТ"
    assert Move.parse("8H ЁЖ", "erudit").word == "ЕЖ"  # Эрудит writes ё as е
    with pytest.raises(InvalidMoveError):
        Move.parse("8H КОТ")  # English by default
    c = Move.parse("8D CHO[RR]O", MULTI)  # (no H in MULTI: CH reads no other way; RR is two Rs)
    assert c.tiles == (MULTI.tile("CH"), MULTI.tile("O"), MULTI.tile("RR"), MULTI.tile("O"))
    assert c.notation() == "8D [CH]O[RR]O"
    rr = (MULTI.tile("R"), MULTI.tile("R"), MULTI.tile("O"))
    assert Move.parse("8D [R]RO", MULTI).tiles == Move.parse("8D RRO", MULTI).tiles == rr
    assert Move.parse("8D RRO", MULTI).notation() == "8D RRO"


def test_equality_ignores_score_and_repr_pastes_back():
    scored = Move.place(7, 3, True, (17, 21, 9, 18, 11), EN, score=56)
    assert scored == Move.parse("8D QUIRK") and hash(scored) == hash(Move.parse("8D QUIRK"))
    assert repr(scored) == "Move.parse('8D QUIRK', score=56)"
    assert eval(repr(scored), {"Move": Move}) == scored and eval(repr(scored), {"Move": Move}).score == 56
    assert str(scored) == "8D QUIRK"


def test_a_move_off_every_board_prints_its_square_in_words():
    """Move.place(100, 100, ...) raised an IndexError when printed, and a negative square printed
    as 0Z (a column counted from the end), though validation reports both as off_board."""
    from racksmith import Position

    far = Move.place(100, 100, True, (1, 2, 3), score=6)
    assert str(far) == far.notation() == "row 101, column 101 across: ABC"
    assert repr(far) == "Move.place(100, 100, True, (1, 2, 3), score=6)"
    assert eval(repr(far), {"Move": Move}) == far
    before = Move.place(-1, -1, False, (1, 2 | THROUGH, 3))
    assert str(before) == "row 0, column 0 down: A(B)C" and repr(before) == "Move.place(-1, -1, False, (1, 66, 3))"
    assert str(Move.place(7, 30, True, (1,))) == "row 8, column 31 across: A"  # no column past Z
    star = Move.place(7, 7, True, (1, 2 | BLANK), reclaimed=((40, 1, 1),))
    assert str(star) == "8H Ab *row 41, column 2=A"
    for move in (far, before, star):
        with pytest.raises(InvalidMoveError, match="off every board, so a GCG record cannot name its square"):
            move.gcg()
    pos = Position.empty("english", rack="ABC")
    for move in (far, before):
        verdict = pos.validate(move)
        assert verdict.reason == "off_board" and "row" in verdict.message
    assert str(Move.place(7, 7, True, (1, 2))) == "8H AB"  # (on a board: as ever)


@pytest.mark.parametrize("row, col", [(-1, 0), (0, -1), (0, 26), (26, 0), (2**70, 0)])
def test_a_square_off_every_board_has_no_coordinate(row, col):
    from racksmith.rules.coords import column_label, coord_label

    with pytest.raises(InvalidMoveError, match="has no name: it is off every board"):
        coord_label(row, col)
    assert coord_label(25, 25) == "26Z" and coord_label(0, 0, across=False) == "A1"
    if not 0 <= col < 26:
        with pytest.raises(InvalidMoveError, match="has no letter"):  # -1 was 'Z'
            column_label(col)


# --- round trips ------------------------------------------------------------------------------------
def placements(alphabet: Alphabet, max_dim: int = 15):
    n = len(alphabet)
    letter = st.integers(1, n)
    tile = st.one_of(
        st.builds(lambda t, b: t | (BLANK if b else 0), letter, st.booleans()),  # placed
        st.builds(lambda t, b: THROUGH | t | (BLANK if b and t else 0), st.integers(0, n), st.booleans()),  # through
    )
    return st.builds(
        lambda r, c, a, ts: Move.place(r, c, a, ts, alphabet),
        st.integers(0, max_dim - 1), st.integers(0, max_dim - 1), st.booleans(), st.lists(tile, min_size=1, max_size=15),
    )


@settings(max_examples=150, deadline=None)
@given(st.one_of(placements(EN, 26), placements(RU), placements(MULTI)))
def test_notation_round_trip(move):
    again = Move.parse(move.notation(), move.alphabet)
    assert again == move and again.notation() == move.notation()


@settings(max_examples=100, deadline=None)
@given(st.one_of(placements(EN), placements(MULTI)))
def test_gcg_round_trip_forgets_played_through_letters(move):
    again = Move.parse(move.gcg(), move.alphabet)
    assert again.tiles == tuple(THROUGH if t & THROUGH else t for t in move.tiles)
    assert (again.row, again.col, again.across) == (move.row, move.col, move.across)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 26), min_size=1, max_size=7))
def test_exchange_round_trip(tiles):
    m = Move.exchange(tiles, EN)
    assert Move.parse(m.notation()) == m and m.tiles == tuple(sorted(tiles))


@pytest.mark.parametrize("text, typed, latin", [
    ("8Н КОТ", "Н", "H"),  # Cyrillic Н: a Russian keyboard layout
    ("С8 КОТ", "С", "C"),
    ("8а КОТ", "а", "a"),
])
def test_a_cyrillic_column_is_named_as_the_twin_of_its_latin_letter(text, typed, latin):
    with pytest.raises(InvalidMoveError) as e:
        Move.parse(text, "russian")
    assert f"bad coordinate {text.split()[0]!r}: column {typed!r} is the Cyrillic twin of Latin {latin!r}" in str(e.value)
    with pytest.raises(InvalidMoveError, match="write row then column"):
        Move.parse("8Ж КОТ", "russian")  # no twin: how a coordinate is written


def test_a_cyrillic_column_in_a_star_s_square_is_named_too():
    with pytest.raises(InvalidMoveError) as e:
        Move.parse("B10 (С)мОЛЬ *14Н=К", "erudit")
    assert "'*14Н=К' should be '*' and the square of a star" in str(e.value)
    assert "column 'Н' is the Cyrillic twin of Latin 'H'" in str(e.value)
    assert Move.parse("B10 (С)мОЛЬ *14H=К", "erudit").reclaimed == ((13, 7, ERUDIT.tile("К")),)
    with pytest.raises(InvalidMoveError, match=r"letter 'o' is not .*: it is the Latin twin of Cyrillic 'о'"):
        Move.parse("B10 (С)мОЛЬ *14H=o", "erudit")  # the star's letter (Latin o), named as typed
