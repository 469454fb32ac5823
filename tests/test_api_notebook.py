"""What a notebook user of the Python API meets: move lists ranked by the key they are sorted by
(slices keeping their ranks), leaves and racks written one way, racks set with letters and checked
at once, ``Tiles`` that answer letters, pictures on the board of the ruleset a move was read for,
a caption that fits its picture, reprs that paste back, and errors that say what to do."""
from __future__ import annotations

import copy
import pickle
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from racksmith import Move, Position, RacksmithError
from racksmith.errors import CGPError, PositionError, UnknownLetterError
from racksmith.formats.render import CAPTION_CHAR_EM, render_svg
from racksmith.lexicon import Leaves, default_leaves, load_leaves
from racksmith.movegen import generate_moves
from racksmith.movegen.movelist import MoveList
from racksmith.rules.alphabet import NO_TILES, Tiles
from racksmith.rules.ruleset import get_ruleset

OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"
SVG = "{http://www.w3.org/2000/svg}"
EN = get_ruleset("english").alphabet


def by_value(keys) -> list[int]:
    """Each key's rank: one more than the number of greater keys."""
    return [1 + sum(1 for other in keys if other > k) for k in keys]


@pytest.fixture(scope="module")
def leaves() -> Leaves:
    return default_leaves("english")


# --- 1. ranks: the list's own key, and slices keep theirs ----------------------------------------------------------
def test_a_list_sorted_by_score_ranks_by_score_though_it_carries_equity(leaves):
    pos = Position.from_cgp(OUTGUN)
    for _ in range(2):  # (the second call is the kernel's fast path)
        moves = pos.moves(sort="score", leaves=leaves)
        assert moves.has_equity and moves.sorted_by == "score"
        assert moves.ranks() == by_value([m.score for m in moves]) == moves.ranks("score")
        assert moves.ranks()[:6] == [1, 2, 2, 2, 5, 5]  # was [1, 2, 3, 4, 5, 5]: ranked by equity
    by_equity = pos.moves(sort="equity", leaves=leaves)
    assert by_equity.sorted_by == "equity" and by_equity.ranks() == by_value([m.equity for m in by_equity])
    assert pos.moves(sort="score").sorted_by == "score"
    # a list generate_moves makes is ranked by the key its records are in order of
    assert generate_moves(pos, sort="score", leaves=leaves).ranks()[:6] == [1, 2, 2, 2, 5, 5]
    # the constructor is told, and refuses equity the records do not carry
    recs = moves.to_numpy()
    assert MoveList(recs, EN, moves.rack, True, sort="score").ranks()[:6] == [1, 2, 2, 2, 5, 5]
    with pytest.raises(RacksmithError, match="sort must be 'score' or 'equity'"):
        MoveList(recs, EN, moves.rack, True, sort="best")
    with pytest.raises(RacksmithError, match="ranked by equity carry it"):
        MoveList(recs, EN, moves.rack, False, sort="equity")


def test_a_slice_keeps_the_ranks_its_moves_have_in_the_list(leaves):
    moves = Position.from_cgp(OUTGUN).moves(sort="score", leaves=leaves, exchanges=True)
    ranks = moves.ranks()
    n = len(moves)
    assert n > 300
    assert moves[300:303].ranks() == ranks[300:303] and moves[300:303].ranks()[0] < 301  # was [1, ...]
    assert moves[300:310][2:5].ranks() == ranks[302:305]  # a slice of a slice
    assert moves[::-1].ranks() == ranks[::-1]  # the pass keeps its rank: not #1
    assert moves[::-1].ranks()[0] > 1 and moves[-1].is_pass
    assert moves[5::7].ranks() == ranks[5::7] and moves[n:].ranks() == [] and moves[:0].ranks() == []
    assert moves[10:20].ranks("equity") == moves.ranks("equity")[10:20]
    # the notebook table's # column is the list's ranks, for a slice too
    html = moves[300:303]._repr_html_()
    assert re.findall(r"<tr><td>(\d+)</td>", html) == [str(r) for r in ranks[300:303]]
    # a slice keeps them through a pickle, and its own sort key
    again = pickle.loads(pickle.dumps(moves[300:303]))
    assert again.ranks() == ranks[300:303] and again.sorted_by == "score"


# --- 2. a leave is written blanks last everywhere -------------------------------------------------------------------
def test_leaves_and_exchanged_tiles_are_written_blanks_last(leaves):
    pos = Position.from_cgp(OUTGUN.replace("EEIIORS", "EEI??OS"))
    moves = pos.moves(sort="equity", leaves=leaves, exchanges=True)
    records = moves.to_records()
    assert all(rec["leave"] == str(m.leave) for rec, m in zip(records, moves))
    with_blanks = [rec["leave"] for rec in records if "?" in rec["leave"]]
    assert with_blanks and all(leave == leave.replace("?", "") + "?" * leave.count("?") for leave in with_blanks)
    assert any(leave != "?" * len(leave) for leave in with_blanks)  # (letters before the blanks: was '??EI')
    exchange = next(rec for rec in records if rec["type"] == "exchange" and "?" in rec["tiles"])
    assert exchange["tiles"].endswith("?") and exchange["tiles"] != exchange["notation"][1:]
    assert sorted(exchange["tiles"]) == sorted(exchange["notation"][1:])  # (the notation: Move.notation's)


# --- 3. racks, scores and zero_turns are checked when set ----------------------------------------------------------
def test_a_rack_set_with_letters_is_read_with_the_position_s_alphabet():
    p = Position.from_cgp(OUTGUN)
    p.racks[0] = "AEINST?"
    assert p.rack == EN.tiles("AEINST?") and str(p.rack) == "AEINST?"
    assert p.to_dict()["racks"] == ["AEINST?", "IIJORRR"]  # was an IndexError
    assert p.validate("8G (G)AINST").legal is not None  # was an AttributeError
    p.racks = ["QI", (5, 5)]
    assert p.cgp().split()[1] == "IQ/EE"
    p.racks[-1] = "zy"  # case ignored, as a rack is read
    assert str(p.racks[1]) == "YZ" and p.moves(3)
    p.racks[0:1] = ["AB"]
    assert str(p.rack) == "AB"


@pytest.mark.parametrize("setting, words", [
    ("p.racks[0] = 'AEINSTXY'", "rack 1 has 8 tiles; a rack holds at most 7"),
    ("p.racks[1] = 'AЁ'", "rack 2 'AЁ': letter 'Ё' is not in the alphabet"),
    ("p.racks[0] = (1, 99)", "rack 1 holds a tile outside the english alphabet"),
    ("p.racks[0] = None", "rack 1 is letters"),
    ("p.racks[0] = b'AB'", "rack 1 is letters"),
    ("p.racks['a'] = 'AB'", "a rack's index must be a whole number"),
    ("p.racks.append('AB')", "a position holds one rack a player"),
    ("p.racks.pop()", "a position holds one rack a player"),
    ("del p.racks[1]", "a position holds one rack a player"),
    ("p.racks[0:2] = ['AB']", "as many racks as it spans"),
    ("p.racks = ['AB']", "racks are one rack a player"),
    ("p.racks = 'AB'", "racks are one rack a player"),
    ("p.scores = 'abc'", "scores are whole numbers, one a rack"),
    ("p.scores = [1]", "scores are whole numbers, one a rack"),
    ("p.scores = [1.5, 2]", "scores are whole numbers, one a rack"),
    ("p.zero_turns = 'a'", "zero_turns .* is a whole number from 0 to 6"),
    ("p.zero_turns = 7", "zero_turns .* is a whole number from 0 to 6"),
])
def test_a_bad_rack_score_or_count_is_refused_when_set(setting, words):
    p = Position.from_cgp(OUTGUN)
    before = p.cgp()
    with pytest.raises(PositionError, match=words):
        exec(setting, {"p": p})
    assert p.cgp() == before  # nothing changed


def test_racks_scores_and_zero_turns_set_well_keep_the_position_whole():
    p = Position.from_cgp(OUTGUN)
    p.scores = (np.int64(3), 4)
    p.zero_turns = np.int32(2)
    assert p.scores == [3, 4] and type(p.scores[0]) is int and p.zero_turns == 2 and type(p.zero_turns) is int
    p.racks[0] = "AEINST?"
    for other in (copy.copy(p), copy.deepcopy(p), p.copy(), pickle.loads(pickle.dumps(p))):
        assert other == p and type(other.racks) is type(p.racks) and other.racks is not p.racks
        other.racks[0] = "QI"  # its own racks, still checked
        assert str(p.rack) == "AEINST?"
        with pytest.raises(PositionError):
            other.racks[0] = "AEINSTXY"
    assert copy.copy(p.racks) == p.racks and pickle.loads(pickle.dumps(p.racks)) == p.racks
    # a pickle of the slots as they were named before (racks, scores and zero_turns without "_") loads
    state = p.__getstate__()
    for name in ("racks", "scores", "zero_turns"):
        state[name] = state.pop(f"_{name}")
    state["racks"] = list(state["racks"])
    q = Position.__new__(Position)
    q.__setstate__(state)
    assert q == p and q.cgp() == p.cgp()
    q.racks[0] = "AB"
    assert str(q.rack) == "AB"
    # pushing and popping keep a racks list that checks what is set
    p.push(p.moves(1)[0])
    assert p.racks[1] != EN.tiles("AEINST?")
    p.pop()
    assert str(p.rack) == "AEINST?"
    with pytest.raises(PositionError):
        p.racks[0] = (1, 99)


def test_tiles_of_letters_say_to_use_the_alphabet():
    with pytest.raises(UnknownLetterError, match=r"Tiles\('EEIIORS'\): .* alphabet.tiles\('EEIIORS'\)"):
        Tiles("EEIIORS")  # was a tuple of characters
    assert Tiles((1, 2)) == (1, 2) and Tiles() == NO_TILES == ()
    assert type(EN.tiles())("QI") == EN.tiles("QI")  # a Tiles of an alphabet reads its letters
    assert str(EN.tiles([5, 0, 1])) == "AE?" and EN.tiles((5, 1)) == (5, 1)  # (made with their order)


# --- 4. Tiles answer letters -----------------------------------------------------------------------------------------
def test_tiles_count_and_hold_letters():
    pos = Position.from_cgp(OUTGUN)
    rack = pos.rack
    assert "S" in rack and "s" in rack and "Q" not in rack and 19 in rack  # 'S' in rack was always False
    assert rack.count("E") == 2 and rack.count("I") == 2 and rack.count("Z") == 0 and rack.count(5) == 2
    assert rack.index("O") == rack.index(15)
    blanks = EN.tiles("A??")
    assert "?" in blanks and blanks.count("*") == 2 and "B" not in blanks
    best = pos.moves(1)[0]
    assert ("E" in best.leave) == (5 in best.leave)
    assert "A" not in NO_TILES and NO_TILES.count("A") == 0
    for bad, words in (("1", "letter '1' is not in the alphabet"), ("AB", "'AB' is not one tile"),
                       ("", "'' is not one tile"), ("Е", "Cyrillic twin of Latin 'E'")):
        with pytest.raises(UnknownLetterError, match=words):
            bad in rack  # noqa: B015
        with pytest.raises(UnknownLetterError, match=words):
            rack.count(bad)
    with pytest.raises(UnknownLetterError, match="no alphabet"):
        "A" in Tiles((1, 2))  # noqa: B015
    assert rack != "EEIIORS" and str(rack) == "EEIIORS"  # == stays a tuple's (documented)


# --- 5. a move parsed for a ruleset is drawn on its board ----------------------------------------------------------------
def test_a_move_parsed_for_super_is_drawn_on_the_super_board():
    m = Move.parse("11K QUIRK", "super")
    assert m._board_for_picture().ruleset.name == "super"  # was english (the same letters)
    root = ET.fromstring(m._repr_svg_())
    assert float(root.get("width")) == 32 + 21 * 32 + 4
    assert Move.parse("20T QI", "super")._repr_svg_() is not None  # off the English board: was no picture
    assert Move.parse("8D QUIRK")._board_for_picture().ruleset.name == "english"


# --- 6. the caption fits its picture ---------------------------------------------------------------------------------------
def test_a_long_caption_is_wrapped_to_the_picture_s_width():
    rows = ["15"] * 15
    rows[1], rows[2] = "11О3", "7е7"  # an О on 2L and a star (е) on 3H
    pos = Position.from_cgp("/".join(rows) + " КРИНКЕ?/ 0/0 0", "erudit")
    for size in (32, 20):
        root = ET.fromstring(render_svg(pos, "L1 К(О)РИчНиК *3H=Е", size=size))
        width = float(root.get("width"))
        caption = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "move")
        lines = [line.text for line in caption]
        font = float(caption.get("font-size"))
        assert len(lines) > 1 and all(float(caption.get("x")) + len(line) * font * CAPTION_CHAR_EM <= width
                                      for line in lines)  # the text ran to 767 px in a 516 px picture
        assert " ".join(lines).startswith("L1 К(О)РИчНиК *3H=Е +")
        assert " ".join(lines).endswith("the star on 3H taken back (Е put in its place)")
        bottom = float(caption.get("y")) + sum(float(line.get("dy") or 0) for line in caption)
        assert bottom < float(root.get("height"))


# --- 7. "shipped" names the ruleset's shipped leaves ----------------------------------------------------------------------
def test_moves_take_shipped_leaves(leaves):
    pos = Position.from_cgp(OUTGUN)
    assert pos.moves(5, sort="equity", leaves="shipped").ranks() == pos.moves(5, sort="equity", leaves=leaves).ranks()
    assert [m.equity for m in pos.moves(5, leaves="shipped")] == [m.equity for m in pos.moves(5, leaves=leaves)]
    assert load_leaves("shipped", "russian") is load_leaves("russian", "russian")  # (the CLI's --leaves shipped too)
    from racksmith import Ruleset

    bare = Ruleset.from_dict({**get_ruleset("english").to_dict(), "name": "plain"})  # a ruleset that ships none
    assert len(load_leaves("shipped", bare)) == 0


# --- 8. a CGP is text ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("given, words", [
    (5, r"a CGP is text \(str\), got int 5"),
    (OUTGUN.encode(), r"got bytes b'15/15.*: decode it first \(data.decode\('utf-8'\)\)"),
    ([OUTGUN], "got list .*: give one line"),
    (Path("game.cgp"), r"read the file first"),
    (None, r"a CGP is text \(str\), got NoneType None"),
])
def test_a_cgp_that_is_not_text_says_what_it_is(given, words):
    with pytest.raises(CGPError, match=words):
        Position.from_cgp(given)  # was "empty CGP"


# --- 9. reprs paste back, inside containers too -------------------------------------------------------------------------
def test_move_reprs_are_python_inside_containers(leaves):
    pos = Position.from_cgp(OUTGUN)
    moves = list(pos.moves(3, sort="equity", leaves=leaves))
    shown = repr(moves)
    assert "#" not in shown
    again = eval(shown, {"Move": Move})  # was a syntax error: "# score=16" commented the rest out
    assert again == moves and [m.score for m in again] == [m.score for m in moves]
    assert [m.equity for m in again] == [m.equity for m in moves]
    assert repr(Move.parse("8D QUIRK", score=np.int64(56))) == "Move.parse('8D QUIRK', score=56)"
    ru = Move.parse("8H КОТ", "russian", score=9)
    assert repr(ru) == "Move.parse('8H КОТ', 'russian', score=9)" and eval(repr(ru), {"Move": Move}) == ru
    assert repr((Move.parse("-"),)) == "(Move.parse('-'),)"


# --- 10. the shipped leaves say which they are -------------------------------------------------------------------------------
def test_shipped_leaves_print_their_name(leaves):
    assert repr(leaves).startswith("<Leaves english (shipped): ")  # was "<Leaves ?: ..."
    assert repr(Leaves.from_pairs([("S", 8.0)])).startswith("<Leaves (in memory): 1 leave, ")
