"""Pictures of positions: the exact text board, Rich text, and well-formed SVG."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from racksmith.core.position import Position
from racksmith.formats.render import render_rich, render_text
from racksmith.rules.ruleset import Ruleset
from racksmith import Move, RacksmithError

TINY = Ruleset.from_dict(
    {
        "name": "tiny",
        "board": ["=.'.-", '."..~', "'...^", "^...=", '-.\'."'],
        "tiles": [["A", 6, 1], ["B", 4, 3], ["C", 4, 2], ["Ω", 1, 9]],
        "blanks": 2,
        "rack_size": 3,
        "bingo_bonus": 20,
        "start": "3C",
    }
)
SVG = "{http://www.w3.org/2000/svg}"


def tiny_position() -> Position:
    board = np.zeros((5, 5), dtype=np.uint8)
    a = TINY.alphabet
    board[2, 1], board[2, 2], board[2, 3] = a.tile("A"), a.tile("b"), a.tile("C")
    return Position(TINY, board, (a.rack("A?Ω"), a.rack("BC")), [12, 7], zero_turns=2)


TINY_TEXT = "\n".join([
    "    A B C D E",
    " 1  = . ' . -",
    ' 2  . " . . ~',
    " 3  ' A b C ^",
    " 4  ^ . . . =",
    ' 5  - . \' . "',
    "",
    "  to move: AΩ?  score 12",
    " opponent: BC   score 7",
    "      bag: 9 tiles   scoreless turns: 2",
    "   legend: = triple word  - double word  \" triple letter  ' double letter",
    "           ~ quadruple word  ^ quadruple letter",
    "           lowercase = blank",  # (no '* start': a tile covers the start square)
])


def test_text_board_exactly():
    assert render_text(tiny_position()) == TINY_TEXT


def test_a_position_prints_as_its_board():
    pos = tiny_position()
    assert str(pos) == TINY_TEXT and f"{pos}" == TINY_TEXT
    assert repr(pos).startswith("Position.from_cgp(") and "AΩ?" in repr(pos)


def test_plain_start_square_is_marked():
    assert "\n 3  ' . * . ^\n" in render_text(Position(TINY))
    assert " 8  = . . ' . . . * . . . ' . . =" in str(Position.empty("erudit"))
    assert " 8  = . . ' . . . - . . . ' . . =" in str(Position.empty("english"))


def test_the_legend_names_the_start_mark_while_the_board_shows_it():
    """Эрудит's centre has no premium, so an empty board marks it '*' and the legend says so; once a
    tile covers it (or a move drawn does) neither does. A premium centre is never marked."""
    empty = Position.empty("erudit", "КОШКА")
    assert "lowercase = blank  * start" in render_text(empty)
    assert "* start" not in render_text(empty, "8D КОШКА") and "* start" not in str(render_rich(empty, "8D КОШКА"))
    played = Position.from_cgp("/".join(["15"] * 7 + ["5КОШКА5"] + ["15"] * 7) + " АБВЛО?/ 12/0 0", "erudit")
    assert "* start" not in render_text(played) and "* start" not in str(render_rich(played))
    assert "* start" not in render_text(Position.empty("russian"))


def test_rich_text_has_the_same_characters_with_colours():
    pos = tiny_position()
    text = render_rich(pos)
    assert text.plain == TINY_TEXT
    styles = {text.plain[s.start:s.end]: str(s.style) for s in text.spans}
    assert styles["A"] == "bold black on wheat1" and styles["b"] == "italic grey35 on wheat1"
    assert styles["="] == "white on red" and styles["~"] == "white on dark_red" and styles["^"] == "white on dark_blue"


def test_svg_is_well_formed_with_tiles_premiums_and_blanks():
    pos = tiny_position()
    svg = pos._repr_svg_()  # what a notebook shows
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    for label in ("A", "B", "C", "D", "E", "1", "5", "3W", "2L", "3L", "4W", "4L", "2W"):
        assert label in texts, label
    assert "Ω" in texts
    assert "bag: 9" in texts
    # the blank b is drawn as a pale B without points; A (1 point) and C (2 points) show theirs
    pale = [t.text for t in root.iter(f"{SVG}text") if t.get("fill") == "#8a7a5a"]
    assert pale == ["B"]  # the blank on the board; the blank on the rack is an empty pale tile
    assert texts.count("1") == 1 + 2  # row label 1, the A on the board and the A on the rack
    assert texts.count("9") == 1  # the Ω tile on the rack
    rects = list(root.iter(f"{SVG}rect"))
    assert len(rects) == 1 + 25 + 3 + 5  # background, squares, board tiles, rack tiles
    fills = {r.get("fill") for r in rects}
    assert {"#d9443a", "#a6d1e6", "#3d8ec9", "#f2b8b5", "#8c1c4a", "#27418f"} <= fills


def test_svg_escapes_letters_that_are_markup():
    """A ruleset without blanks may have letters without case, '<' and '&' among them."""
    rs = Ruleset.from_dict({"name": "marks", "board": ["....."] * 5, "start": "3C", "rack_size": 2,
                            "bingo_bonus": 0, "tiles": [["<", 4, 1], ["&", 4, 2]]})
    a = rs.alphabet
    board = np.zeros((5, 5), dtype=np.uint8)
    board[2, 2] = a.tile("&")
    root = ET.fromstring(Position(rs, board, (a.rack("<&"), a.rack("<")))._repr_svg_())
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "<" in texts and texts.count("&") == 2  # the document parses: the board's & and the rack's


def test_svg_of_every_shipped_board_parses():
    for name in ("english", "russian", "erudit", "super"):
        root = ET.fromstring(Position.empty(name)._repr_svg_())
        rs = Position.empty(name).ruleset
        assert int(float(root.get("width"))) > rs.cols * 32


# --- a move on the picture, and notebooks ------------------------------------------------------------------
OUTGUN = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0"


def test_svg_highlights_a_move_its_premiums_and_the_tiles_it_plays_through():
    from racksmith.formats.render import render_svg

    pos = Position.from_cgp(OUTGUN)
    svg = render_svg(pos, move="J8 SOIREE", size=24)
    root = ET.fromstring(svg)
    assert "3L" in [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "premium"]  # I on 10J
    assert sum(1 for r in root.iter(f"{SVG}rect") if r.get("fill") == "#b8e07a") == 6  # six new tiles
    caption = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "move")
    lines = [caption.text] if caption.text else [line.text for line in caption]  # (a long caption: a tspan a line)
    assert " ".join(lines) == "J8 SOIREE +16: new tiles S 8J, O 9J, I 10J (3L), R 11J, E 12J, E 13J"
    assert root.get("width") == str(24 + 15 * 24 + 4)
    through = render_svg(pos, move="8C T(OUTGUN)")
    assert through.count('class="through"') == 6
    with pytest.raises(RacksmithError, match="size"):
        render_svg(pos, size=0)


def test_rack_blanks_are_drawn_as_blanks_and_ten_point_tiles_fit():
    from racksmith.formats.render import render_svg

    pos = Position.from_cgp("15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 QZ?/ 0/0 0")
    svg = render_svg(pos)
    assert svg.count('class="blank"') == 1 and 'stroke-dasharray' in svg
    root = ET.fromstring(svg)
    ten = [t for t in root.iter(f"{SVG}text") if t.text == "10" and t.get("fill") == "#222"]  # not the row label
    assert len(ten) == 2 and all(float(t.get("font-size")) < 0.25 * 32 for t in ten)  # smaller than a 1-digit value


def test_moves_and_move_lists_show_in_notebooks():
    pos = Position.from_cgp(OUTGUN)
    moves = pos.moves(top=5)
    html = moves._repr_html_()
    assert "<table>" in html and "<svg" in html and "J8 SOIREE" in html and "<th>#</th>" in html
    assert moves[0].position is not None and moves[0]._repr_svg_().startswith("<svg")
    pos.push(moves[0])  # the picture is of the position the moves were made in, not what it became
    assert moves[0]._repr_svg_().count("#b8e07a") == 6
    assert "<svg" in Move.parse("8D QUIRK")._repr_html_()  # a move without a position: an empty board
    assert moves.ranks() == sorted(moves.ranks())
    scores = [m.score for m in moves]
    assert all((scores[i] == scores[i - 1]) == (moves.ranks()[i] == moves.ranks()[i - 1]) for i in range(1, len(scores)))


@pytest.mark.parametrize("render", ["render_svg", "render_text", "render_rich"])
@pytest.mark.parametrize("bad", [None, "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0", 5])
def test_a_picture_is_of_a_position(render, bad):
    from racksmith.formats import render as module

    # was AttributeError ('NoneType' object has no attribute 'ruleset')
    with pytest.raises(RacksmithError, match=rf"{render} draws a Position \(Position.from_cgp makes one from a CGP\), "
                                             rf"got {type(bad).__name__}"):
        getattr(module, render)(bad)
