"""The pictures of a position (text, Rich, SVG) show a rack not given whose tiles are certain (the
bag empty) as those tiles, and a rack not known holding no tile as empty; and a CGP's numbers
(scores, the zero-turn count, runs of empty squares, rule opcodes) are read in ASCII digits only."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from racksmith import Position
from racksmith.cli.main import main
from racksmith.errors import CGPError
from racksmith.formats.render import render_rich, render_svg, render_text

# the bag empty, the mover (I) about to go out with K5 (L)I; the opponent's rack is the Q
OUT = ("3D1PHON2OR1A/1GLUEY3MISE1D/2INTENTLY2FIZ/3T3R6E/7O2LOUIs/7U7/7P7/3BAWTIES5/1AFIRE1N1OM4/"
       "AX2AR1G1JOGS2/REVOKED2AWEE2/SLED2E4NA2/H1T3V4UT2/I1O2BACCARa3/N4I9")
# the bag empty, the unseen tiles AABDEIKLMU
CLOSE = ("10FAQIR/9VAW1D1/2N10I1/2OXEN1U5OH/2N1YaRNING2TA/2PLEB1R6D/2A4U1LOOIES/CUIFS1GLOOMY2T/2D1H2I7/"
         "4I1GEEZ5/4V2R7/TEPEE10/1TERRANE7/TATES2SOJA4/10WIlCO")
EMPTY15 = "/".join(["15"] * 15)


def svg_texts(svg: str) -> list[str]:
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


def finished() -> Position:
    """A finished game read from its CGP: the mover holds the Q, the opponent went out (his rack
    empty: no tile is unseen, so it is known)."""
    p = Position.from_cgp(f"{OUT} I/ 359/486 0")
    p.push("K5 (L)I")
    q = Position.from_cgp(p.cgp())
    assert q.racks_known == (True, True) and q.rack_sizes == (1, 0) and q.is_over
    return q


# --- 1. a rack not known that holds nothing ---------------------------------------------------------

def test_the_player_who_went_out_shows_an_empty_rack():
    q = finished()
    text = render_text(q)
    assert " opponent: -        score 381" in text  # (it printed "opponent: (0 unknown)")
    assert "unknown" not in text
    assert "unknown" not in render_rich(q).plain
    assert not any("not known" in t for t in svg_texts(render_svg(q)))  # (it said "rack not known (0 tiles)")


def test_show_of_a_finished_game(capsys):
    assert main(["show", finished().cgp()]) == 0
    out = capsys.readouterr().out
    assert "opponent: -" in out and "(0 unknown)" not in out


# --- 2. a rack not given whose tiles are certain -----------------------------------------------------

CERTAIN = "ADEKMU (the unseen tiles: the bag is empty)"


def test_a_certain_rack_left_out_shows_its_tiles():
    p = Position.from_cgp(f"{CLOSE} /ABIL 345/378 0")
    assert p.racks_known == (False, True) and str(p.inferred_racks()[0]) == "ADEKMU"
    text = render_text(p)
    assert f"  to move: {CERTAIN}  score 345" in text  # (it printed "to move: (6 unknown)")
    assert " opponent: ABIL     score 378" in text
    assert "unknown" not in text
    assert f"to move: {CERTAIN}" in render_rich(p).plain
    texts = svg_texts(render_svg(p))
    assert "the unseen tiles: the bag is empty" in texts and not any("not known" in t for t in texts)
    for letter in "ADEKMU":  # the tiles drawn on the rack
        assert letter in texts


def test_show_of_a_certain_rack_left_out(capsys):
    assert main(["show", f"{CLOSE} /ABIL 345/378 0"]) == 0
    out = capsys.readouterr().out
    assert f"to move: {CERTAIN}" in out and "(6 unknown)" not in out


def test_a_certain_rack_known_in_part_says_which_tiles_are_known():
    b = Position.from_cgp(f"{CLOSE} ADKMU/ 300/300 0")
    a = b.ruleset.alphabet
    p = Position(b.ruleset, b.board, (a.rack("ADKMU"), a.rack("EL")), [300, 300], racks_known=(True, False))
    assert p.racks_partial == (False, True) and p.bag_count == 0
    line = "opponent: ABEIL (EL known, the rest the unseen tiles: the bag is empty)"
    assert line in render_text(p) and line in render_rich(p).plain  # (it printed "EL + 3 unknown")
    svg = render_svg(p)
    assert "EL known, the rest the unseen tiles: the bag is empty" in svg_texts(svg)
    # (a note longer than the room beside the rack is squeezed into it)
    note = next(t for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "rack-note")
    assert float(note.get("x")) + float(note.get("textLength")) <= float(ET.fromstring(svg).get("width"))


def test_racks_not_certain_still_say_how_many_tiles_are_unknown():
    """With the bag holding tiles, or two racks sharing the unseen tiles, no rack is certain."""
    mid = Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0")
    assert "opponent: (7 unknown)" in render_text(mid)
    assert "rack not known (7 tiles)" in svg_texts(render_svg(mid))
    b = Position.from_cgp(f"{CLOSE} ADKMU/ 300/300 0")
    a = b.ruleset.alphabet
    both = Position(b.ruleset, b.board, (a.rack("ADKMU"), a.rack("")), [300, 300], racks_known=(False, False))
    assert both.inferred_racks() == [None, None]
    text = render_text(both)
    assert "to move: ADKMU + 2 unknown" in text and "opponent: (3 unknown)" in text


# --- 3. a CGP's numbers are ASCII digits ------------------------------------------------------------

@pytest.mark.parametrize("scores", ["1_0/16", "\u0663/0", "\uff11\uff16/0", "+1/0", "10/ 3", "1.0/0", "0/-"])
def test_scores_other_than_ascii_digits_are_refused(scores):
    """(int() read '1_0' as 10, Arabic-Indic '٣' as 3, full-width '１６' as 16, '+1' as 1)"""
    with pytest.raises(CGPError, match=r"CGP scores .* must be integers separated by '/': score \d"):
        Position.from_cgp(f"{EMPTY15} AB/CD {scores} 0")


@pytest.mark.parametrize("count", ["1_0", "\u0663", "\uff11", "+1", "0x1"])
def test_a_zero_turn_count_other_than_ascii_digits_is_refused(count):
    with pytest.raises(CGPError, match="CGP zero-turn count .* must be an integer: .* in ASCII digits"):
        Position.from_cgp(f"{EMPTY15} AB/CD 0/0 {count}")


def test_negative_scores_and_plain_counts_are_read():
    p = Position.from_cgp(f"{EMPTY15} AB/CD -17/-0 06")
    assert list(p.scores) == [-17, 0] and p.zero_turns == 6
    with pytest.raises(CGPError, match="must not be negative"):
        Position.from_cgp(f"{EMPTY15} AB/CD 0/0 -1")
    with pytest.raises(CGPError, match="the count is at most 6"):
        Position.from_cgp(f"{EMPTY15} AB/CD 0/0 {'0' * 5000}7")
    with pytest.raises(CGPError, match="the count is at most 6"):
        Position.from_cgp(f"{EMPTY15} AB/CD 0/0 {'9' * 5000}")
    with pytest.raises(CGPError, match="score 1 has 5000 digits"):
        Position.from_cgp(f"{EMPTY15} AB/CD {'9' * 5000}/0 0")


def test_board_runs_and_rule_opcodes_in_other_digits_are_refused():
    """(the board read '٣' as three empty squares, 'bb ٥٠' as a bingo bonus of 50)"""
    with pytest.raises(CGPError, match=r"CGP board row 1 .*: a run of empty squares is written in ASCII digits"):
        Position.from_cgp(EMPTY15.replace("15", "\u0663D11", 1) + " AB/CD 0/0 0")
    assert Position.from_cgp(EMPTY15.replace("15", "3D11", 1) + " AB/CD 0/0 0").board[0, 3]
    with pytest.raises(CGPError, match="'bb .*' must be a whole number"):
        Position.from_cgp(f"{EMPTY15} AB/CD 0/0 0 bb \u0665\u0660;")
    assert Position.from_cgp(f"{EMPTY15} AB/CD 0/0 0 bb 50;").zero_turns == 0
