"""CGP in and out: exact round trips, opcodes kept, every malformed case refused with a clear message."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle import load_fixture_positions
from racksmith.rules.alphabet import BLANK
from racksmith.formats.cgp import parse_cgp
from racksmith.errors import CGPError, PositionError
from racksmith.core.position import Position
from racksmith.rules.ruleset import Ruleset, get_ruleset

RECORDS = load_fixture_positions("positions.jsonl") + load_fixture_positions("super_positions.jsonl")
EMPTY15 = "/".join(["15"] * 15)


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_fixture_cgp_round_trip_exactly(record):
    pos = Position.from_cgp(record["cgp"], record["ruleset"])
    # MAGPIE writes no ld for its Super positions; racksmith names the ruleset (and reads it back)
    assert pos.cgp() == record["cgp"] + (" ld english_super;" if record["ruleset"] == "super" else "")
    assert Position.from_cgp(pos.cgp()).ruleset.name == get_ruleset(record["ruleset"]).name
    assert Position.from_cgp(pos.cgp(), record["ruleset"]) == pos
    assert pos.rack_string == record["rack"]
    assert pos.ruleset.alphabet.rack_string(pos.racks[1], blanks_last=True) == record["opp_rack"]
    assert pos.bag_count == record["bag_count"]
    assert pos.zero_turns == record["zero_turns"]


def test_board_tiles_and_blanks():
    pos = Position.from_cgp("/".join(["15"] * 7 + ["7qI6"] + ["15"] * 7) + " ABC/DEF 10/-3 2")
    assert pos.tile_at(7, 7) == 17 | BLANK and pos.tile_at(7, 8) == 9
    assert pos.scores == [10, -3] and pos.zero_turns == 2
    assert pos.racks == [(1, 2, 3), (4, 5, 6)]


def test_opcodes_are_kept_including_unknown_ones():
    cgp = f"{EMPTY15} AEINRST/ 0/0 0 lex TWL06; foo bar baz; flag; gid 123;"
    pos = Position.from_cgp(cgp)
    assert pos.opcodes == (("lex", "TWL06"), ("foo", "bar baz"), ("flag", ""), ("gid", "123"))
    assert pos.cgp() == cgp


def test_the_last_move_and_the_timers_are_left_out_once_a_move_is_pushed():
    """``lm`` (the last move) and the timers ``ti``/``tmr``/``to`` describe the position the CGP was
    written at: after a push they would be wrong for Woogles, Macondo or MAGPIE reading it."""
    cgp = ("15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ABCDEFG 0/28 0 lex NWL20; lm 8D.KRONA; "
           "gid xyz; tmr 100/200; ti 5; TO 60;")
    pos = Position.from_cgp(cgp)
    assert pos.cgp() == cgp
    pos.push("-")
    assert pos.cgp().endswith(" ABCDEFG/EEIRSTU 28/0 1 lex NWL20; gid xyz;")
    assert pos.opcodes == Position.from_cgp(cgp).opcodes  # (kept: popping back writes them again)
    pos.pop()
    assert pos.cgp() == cgp


def test_racks_may_be_empty_and_players_may_be_more_than_two():
    pos = Position.from_cgp(f"{EMPTY15} / 0/0 0")
    assert pos.racks == [(), ()] and pos.cgp() == f"{EMPTY15} / 0/0 0"
    three = Position.from_cgp(f"{EMPTY15} AB/CD/E? 1/2/3 0")
    assert len(three.racks) == 3 and three.scores == [1, 2, 3]
    assert three.cgp() == f"{EMPTY15} AB/CD/E? 1/2/3 0"


def test_rack_order_is_normalised_blanks_last():
    pos = Position.from_cgp(f"{EMPTY15} ?ZA*/ 0/0 0")
    assert pos.cgp() == f"{EMPTY15} AZ??/ 0/0 0"


def test_russian_and_erudit_letters():
    ru = "/".join(["15"] * 7 + ["7ЁЖ6"] + ["15"] * 7) + " ЩЪ?/ 0/0 0"
    pos = Position.from_cgp(ru, "russian")
    # the two rulesets share their letters: what racksmith writes names its ruleset, and reads back
    assert pos.cgp() == ru + " ld russian;"
    assert Position.from_cgp(pos.cgp()) == pos
    # Эрудит has no Ё: it reads as Е and is written back as Е
    er = Position.from_cgp(ru.replace("ЩЪ?", "ЩЪ"), "erudit")
    assert er.tile_at(7, 7) == er.ruleset.alphabet.tile("Е")
    assert "ЕЖ" in er.cgp() and er.cgp().endswith(" ld erudit;")
    assert Position.from_cgp(er.cgp()) == er
    # a line naming the other one is written with its own: read as Эрудит, it says so
    assert Position.from_cgp(ru.replace("ЩЪ?", "ЩЪ") + " ld russian; lex ru;", "erudit").cgp().endswith(
        " ЩЪ/ 0/0 0 ld erudit; lex ru;")
    # the lexicon names it already: nothing is added
    assert Position.from_cgp(ru.replace("ЩЪ?", "ЩЪ") + " lex ru-erudit;", "erudit").cgp().endswith(" lex ru-erudit;")


def test_multi_character_letters_are_bracketed():
    rs = Ruleset.from_dict({
        "name": "cl", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0, "blanks": 3,
        "tiles": [["A", 5, 1], ["C", 5, 1], ["CH", 5, 1], ["L", 5, 1], ["LL", 5, 1], ["O", 5, 1]],
    })
    cgp = "5/[CH]O[LL]A1/5/c[l]3/5 [CH]L?/[L]L 0/0 0"  # ('[L]': racksmith wrote two Ls so until 2026-11)
    pos = Position.from_cgp(cgp, rs)
    a = rs.alphabet
    assert [pos.tile_at(1, c) for c in range(4)] == [a.tile("CH"), a.tile("O"), a.tile("LL"), a.tile("A")]
    assert pos.tile_at(3, 0) == a.tile("c") and pos.tile_at(3, 1) == a.tile("l")
    assert pos.racks[1] == (a.tile("L"), a.tile("L"))  # two L tiles, not the LL tile
    assert pos.cgp() == "5/[CH]O[LL]A1/5/cl3/5 [CH]L?/LL 0/0 0 ld cl; bdn cl; bb 0; etl 3;"  # as MAGPIE writes them: two Ls are LL (and the rules English lacks)
    assert Position.from_cgp(pos.cgp(), rs) == pos


@pytest.mark.parametrize(
    "cgp, words",
    [
        ("", "empty CGP"),
        ("   ", "empty CGP"),
        (f"{EMPTY15} AB/", "needs at least 4"),
        ("/".join(["15"] * 14) + " A/ 0/0 0", "CGP board has 14 rows; the english board has 15"),
        ("/".join(["21"] * 21) + " A/ 0/0 0", "use the 'super' ruleset"),
        (EMPTY15.replace("15", "16", 1) + " A/ 0/0 0", "covers 16 squares"),
        (EMPTY15.replace("15", "14", 1) + " A/ 0/0 0", "covers 14 squares"),
        (EMPTY15.replace("15", "15A", 1) + " A/ 0/0 0", "longer than 15 squares"),
        (EMPTY15.replace("15", "14Ж", 1) + " A/ 0/0 0", "is not in the alphabet"),
        (EMPTY15.replace("15", "14?", 1) + " A/ 0/0 0", "a blank on the board is the lowercase letter"),
        (EMPTY15.replace("15", "[QU14", 1) + " A/ 0/0 0", "unclosed '['"),
        (EMPTY15.replace("15", "", 1) + " A/ 0/0 0", "covers 0 squares"),
        (f"{EMPTY15} ABCDEFGH/ 0/0 0", "has 8 tiles; a rack holds at most 7"),
        (f"{EMPTY15} A1/ 0/0 0", "CGP rack 1 'A1'"),
        (f"{EMPTY15} AB/C# 0/0 0", "CGP rack 2 'C#'"),
        (f"{EMPTY15} ABC 0 0", "one rack per player"),
        (f"{EMPTY15} AB/CD 0 0", "one score per rack"),
        (f"{EMPTY15} AB/CD a/b 0", "must be integers"),
        (f"{EMPTY15} AB/CD 0/0 x", "zero-turn count 'x' must be an integer"),
        (f"{EMPTY15} AB/CD 0/0 -1", "must not be negative"),
        (f"{EMPTY15} AB/CD 0/0 0 lex TWL06 ld english", "must end with ';'"),
        (f"{EMPTY15} AB/CD 0/0 0 -lex NWL20", "'-lex' is a MAGPIE command-line option"),
    ],
)
def test_malformed_cgp(cgp, words):
    with pytest.raises(CGPError) as e:
        Position.from_cgp(cgp)
    assert words in str(e.value)


@pytest.mark.parametrize(
    "cgp, words",
    [
        (EMPTY15.replace("15", "QQ13", 1) + " A/ 0/0 0", "2 'Q' tiles on the board and racks, but the english set has only 1"),
        (EMPTY15.replace("15", "abc12", 1) + " / 0/0 0", "3 blank tiles"),
        (EMPTY15.replace("15", "ab13", 1) + " ?/ 0/0 0", "3 blank tiles"),
        (f"{EMPTY15} ZZ/ 0/0 0", "'Z'"),
    ],
)
def test_impossible_positions(cgp, words):
    with pytest.raises(PositionError) as e:
        Position.from_cgp(cgp)
    assert words in str(e.value) and not isinstance(e.value, CGPError)


def test_parse_cgp_gives_plain_values():
    p = parse_cgp(f"{EMPTY15} AB/C 5/6 1 lex X;", get_ruleset("english"))
    assert p.board.shape == (15, 15) and p.board.dtype == np.uint8 and not p.board.any()
    assert p.racks == ((1, 2), (3,)) and p.scores == (5, 6) and p.zero_turns == 1 and p.opcodes == (("lex", "X"),)


@st.composite
def english_positions(draw):
    rs = get_ruleset("english")
    bag = [t for t, n in enumerate(rs.counts) for _ in range(n)]
    order = draw(st.permutations(bag))
    n_board = draw(st.integers(0, 60))
    squares = draw(st.lists(st.integers(0, 224), min_size=n_board, max_size=n_board, unique=True))
    board = np.zeros((15, 15), dtype=np.uint8)
    tiles = list(order)
    for sq in squares:
        t = tiles.pop()
        if t == 0:
            t = draw(st.integers(1, 26)) | BLANK
        board[sq // 15, sq % 15] = t
    r1 = tiles[: draw(st.integers(0, 7))]
    del tiles[: len(r1)]
    r2 = tiles[: draw(st.integers(0, 7))]
    scores = draw(st.lists(st.integers(-100, 900), min_size=2, max_size=2))
    return Position(rs, board, (r1, r2), scores, draw(st.integers(0, 6)))


@settings(max_examples=40, deadline=None)
@given(english_positions())
def test_random_positions_round_trip(pos):
    again = Position.from_cgp(pos.cgp())
    assert again.cgp() == pos.cgp()
    unseen = 100 - int((pos.board != 0).sum()) - sum(len(r) for r in pos.racks)
    assert again.unseen_count == unseen
    # an empty opponent's rack is unknown: it holds a full rack of the unseen tiles while there are
    # enough; an empty rack of the player to move too, while more tiles are unseen than the
    # opponent's unknown rack holds (the game goes on, so he holds tiles), else he went out
    mover = bool(pos.racks[0]) or unseen <= (0 if pos.racks[1] else 7)
    held = [min(7, unseen)] if not mover else []
    held += [min(7, unseen - sum(held))] if not pos.racks[1] else []
    # an opponent's rack shorter than a full one while the bag would hold tiles is known in part:
    # the tiles given and unseen ones up to a full rack
    partial = 0 < len(pos.racks[1]) < 7 and unseen - sum(held) > 0
    if partial:
        held.append(min(7 - len(pos.racks[1]), unseen - sum(held)))
    assert again.racks_known == (mover, bool(pos.racks[1]) and not partial)
    assert again.racks_partial == (False, partial)
    assert again == pos or not mover or partial
    assert again.bag_count == unseen - sum(held)


def test_unknown_opponent_rack_splits_the_unseen_tiles():
    cgp = "15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0"
    pos = Position.from_cgp(cgp)
    assert (pos.unseen_count, pos.rack_sizes, pos.racks_known, pos.bag_count) == (87, (7, 7), (True, False), 80)
    assert pos.cgp() == cgp  # the CGP is kept as it was written
    d = pos.to_dict()
    assert (d["bag_count"], d["unseen_count"], d["racks_known"], d["rack_sizes"]) == (80, 87, [True, False], [7, 7])
    # 11 unseen tiles: 7 on the unknown rack, 4 in the bag (an exchange needs 7 there)
    pos = Position.from_cgp(_cgp_with_unseen("QUIETLY" + "ZOO" + "K"))
    assert pos.unseen_count == 11 and pos.bag_count == 4 and pos.rack_sizes == (7, 7)
    assert pos.inferred_racks()[1] is None  # which 7 of the 11 is not known
    assert pos.validate("-AE").reason == "exchange_not_allowed"
    assert not any(m.is_exchange for m in pos.moves(exchanges=True))  # the generator sees a bag of 4


def test_unknown_opponent_rack_in_an_endgame_is_the_unseen_tiles():
    # 5 unseen tiles and an unknown opponent's rack: the bag is empty, the rack is those 5 tiles
    end = _cgp_with_unseen("QUIET")
    pos = Position.from_cgp(end)
    assert pos.bag_count == 0 and pos.rack_sizes[1] == pos.unseen_count == 5
    assert str(pos.inferred_racks()[1]) == "EIQTU" == str(pos.unseen_tiles())
    assert "bag: 0 tiles" in str(pos)


def test_going_out_against_an_unknown_rack_counts_the_unseen_tiles():
    # rows 1-6 full of tiles, CAT alone at the bottom, S on the rack, 6 tiles unseen: the bag is
    # empty, so S goes out (CATS, SCAT) and the equity adds twice the opponent's rack, the 6 tiles
    from racksmith.core.bag import distribution
    from racksmith import get_ruleset

    rs = get_ruleset("english")
    a = rs.alphabet
    tiles = [t for t in distribution(rs) if t] + [a.tile("e"), a.tile("s")]
    for c in "S" + "CAT" + "QUIZES":
        tiles.remove(a.tile(c))
    rows = ["".join(a.letter(t) for t in tiles[i * 15:(i + 1) * 15]) for i in range(6)]
    cgp = "/".join(rows + ["15"] * 7 + ["6CAT6", "15"]) + " S/ 0/0 0"
    pos = Position.from_cgp(cgp)
    assert (pos.bag_count, pos.unseen_count, str(pos.inferred_racks()[1])) == (0, 6, "EIQSUZ")
    moves = pos.moves(sort="equity")
    given = Position.from_cgp(cgp.replace(" S/ ", " S/EIQSUZ "))
    assert [(str(m), m.equity) for m in moves] == [(str(m), m.equity) for m in given.moves(sort="equity")]
    value = sum(rs.values[a.tile(c)] for c in "EIQSUZ")
    out = [m for m in moves if m.is_place]
    assert out and all(m.equity == m.score + 2 * value for m in out)  # each play goes out


def _cgp_with_unseen(unseen: str) -> str:
    """A position whose rack is AEINRST, whose opponent's rack is unknown and where the tiles
    ``unseen`` are on neither the board nor that rack (the rest of the set is on the board, on
    every other square: no word is checked here)."""
    from racksmith.core.bag import distribution
    from racksmith import get_ruleset

    rs = get_ruleset("english")
    a = rs.alphabet
    tiles = [t for t in distribution(rs) if t]  # no blanks: the board spells them as E and S
    tiles += [a.tile("e"), a.tile("s")]
    for c in "AEINRST" + unseen:
        tiles.remove(a.tile(c))
    board = [[""] * 15 for _ in range(15)]
    k = 0
    for r in range(15):
        for c in range(15):
            if (r + c) % 2 == 0 and k < len(tiles):
                board[r][c] = a.letter(tiles[k])
                k += 1
    assert k == len(tiles)
    rows = []
    for row in board:
        out, run = "", 0
        for sq in row:
            if not sq:
                run += 1
                continue
            if run:
                out += str(run)
                run = 0
            out += sq
        rows.append(out + (str(run) if run else ""))
    return "/".join(rows) + " AEINRST/ 0/0 0"


# --- CGPs other programs write, and names of rules racksmith cannot play ----------------------------------
#: CGPs as Macondo writes them (game/game_test.go): blanks first in a rack, ``lex`` and ``ld``
MACONDO_CGPS = [
    "15/15/15/15/15/15/7DORMINE1/5IBEX6/15/15/15/15/15/15/15 EEHKNOQ/?DEMOOW 26/75 0 lex CSW19;",
    "15/15/12L2/12O1V/12U1O/1L10I1T/KI2G1Q2B2ERE/E2FOGIE1R3AD/MUNI3WEANING1/B2A3E1PO2AH/1VINE2R2R3A/"
    "1I1C3S1OM3U/1THEN9L/1AAS10E/2J11R AEERSTT/YD 127/334 1 lex CSW19; ld english;",
]


@pytest.mark.parametrize("cgp", MACONDO_CGPS)
def test_macondo_cgps_read_and_round_trip(cgp):
    pos = Position.from_cgp(cgp)
    assert pos.ruleset.name == "english" and pos.opcodes[0] == ("lex", "CSW19")
    again = Position.from_cgp(pos.cgp())
    assert again == pos and again.cgp() == pos.cgp()


@pytest.mark.parametrize(
    "opcodes, name",
    [
        ("bdn SuperCrosswordGame;", "super"),  # was: 'the english board has 15 rows'
        ("var classic_super; lex NWL20;", "super"),
        ("ld english_super; bdn SuperCrosswordGame;", "super"),
    ],
)
def test_super_boards_are_named_by_board_or_variant(opcodes, name):
    cgp = "/".join(["21"] * 21) + " AEINRST/ 0/0 0 " + opcodes
    assert Position.from_cgp(cgp).ruleset.name == name


@pytest.mark.parametrize(
    "opcodes, words",
    [
        ("ld french;", "CGP 'ld french' names no ruleset racksmith knows (english, russian, erudit, super)"),
        ("lex FRA20;", "CGP 'lex FRA20' is a French lexicon, and racksmith ships no french tiles"),
        ("lex OSPS49; ld polish;", "CGP 'ld polish' names no ruleset racksmith knows"),
        ("lex RD28;", "is a German lexicon"),
        ("var wordsmog; lex CSW21;", "CGP 'var wordsmog' is a variant racksmith does not play"),
    ],
)
def test_rules_racksmith_cannot_play_are_refused(opcodes, words):
    cgp = f"{EMPTY15} AEINRST/ 0/0 0 {opcodes}"
    with pytest.raises(CGPError) as e:  # these were read as English Scrabble
        Position.from_cgp(cgp)
    assert words in str(e.value)


def test_a_ruleset_given_wins_over_the_names_but_not_over_the_variant():
    assert Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0 ld french; lex FRA20;", "english").ruleset.name == "english"
    with pytest.raises(CGPError, match="var wordsmog"):
        Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0 var wordsmog;", "english")


@pytest.mark.parametrize(
    "opcodes, words",
    [
        ("mcnz 4;", "CGP 'mcnz 4': the english ruleset ends the game after 6 consecutive scoreless turns"),
        ("bb 35;", "CGP 'bb 35': the english ruleset gives 50 points for a bingo"),
        ("mcnz six;", "CGP 'mcnz six' must be a whole number"),
        ("etl 1;", "CGP 'etl 1': the english ruleset allows an exchange while the bag holds at least 7 tiles"),
        ("etl 01;", "(give a ruleset file with exchange_limit = 1)"),
    ],
)
def test_rules_other_than_the_rulesets_are_refused(opcodes, words):
    with pytest.raises(CGPError) as e:
        Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0 {opcodes}")
    assert words in str(e.value)
    ok = Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0 mcnz 6; bb 50; var classic; etl 7;")
    assert ok.opcodes == (("mcnz", "6"), ("bb", "50"), ("var", "classic"), ("etl", "7"))


def test_the_cli_refuses_an_unplayable_cgp_in_one_line(capsys):
    from racksmith.cli.main import main

    assert main(["show", f"{EMPTY15} AEINRST/ 0/0 0 ld french;"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'ld french' names no ruleset racksmith knows" in err


def test_the_last_opcode_may_go_without_its_semicolon():
    """Macondo reads ``lex CSW21`` at the end of the line; so does racksmith now (it was refused)."""
    pos = Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0 lex CSW21")
    assert pos.opcodes == (("lex", "CSW21"),) and pos.cgp().endswith(" 0 lex CSW21;")
    assert Position.from_cgp(f"{EMPTY15} AEINRST/ 0/0 0 gid 7; lex CSW21").opcodes == (("gid", "7"), ("lex", "CSW21"))
    assert Position.from_cgp(f"{EMPTY15}\tAEINRST/\t0/0\t0\tlex\tCSW21;").opcodes == (("lex", "CSW21"),)  # was ('lex\tCSW21', '')


def test_multi_character_letters_written_without_brackets_read_as_magpie_and_macondo_read_them():
    """Unbracketed, CH is C and H where the alphabet has both (MAGPIE, Macondo and wolges read it
    so); a tile whose text reads no other way (CH with no H tile) is that tile."""
    rs = Ruleset.from_dict({
        "name": "cl", "board": ["....."] * 5, "start": "3C", "rack_size": 3, "bingo_bonus": 0, "blanks": 3,
        "tiles": [["A", 5, 1], ["C", 5, 1], ["CH", 5, 1], ["L", 5, 1], ["LL", 5, 1], ["O", 5, 1]],
    })
    a = rs.alphabet
    pos = Position.from_cgp("5/CHO[LL]A1/5/ch4/5 A/ 0/0 0", rs)  # no H: CH is the CH tile
    assert [pos.tile_at(1, c) for c in range(4)] == [a.tile("CH"), a.tile("O"), a.tile("LL"), a.tile("A")]
    assert pos.tile_at(3, 0) == a.tile("ch")
    assert pos.cgp() == "5/[CH]O[LL]A1/5/[ch]4/5 A/ 0/0 0 ld cl; bdn cl; bb 0; etl 3;"
    two = Position.from_cgp("5/CHOLLA/5/5/5 A/ 0/0 0", rs)  # LL: two L tiles (the row is 5 squares wide)
    assert [two.tile_at(1, c) for c in range(5)] == [a.tile("CH"), a.tile("O"), a.tile("L"), a.tile("L"), a.tile("A")]
    assert two.cgp().split()[0] == "5/[CH]OLLA/5/5/5"
    assert Position.from_cgp(two.cgp(), rs) == two
    with pytest.raises(CGPError, match=r"row 4 'Ch4': 'Ch' mixes capitals and small letters: CH \(or \[CH\]\) is the tile"):
        Position.from_cgp("5/5/5/Ch4/5 A/ 0/0 0", rs)


def test_a_position_in_another_ruleset_s_letters_names_them_and_the_ruleset_parameter():
    """The error names the shipped rulesets whose letters read the line, and that naming the
    ruleset settles it (``param``: the web API's ``"param": "ruleset"``)."""
    cyrillic = f"{'/'.join(['15'] * 7)}/5КОШКА5/{'/'.join(['15'] * 7)} АБВЛО/ 12/0 0"
    with pytest.raises(CGPError) as e:
        Position.from_cgp(cyrillic)
    assert e.value.letter and e.value.rulesets == ("russian", "erudit") and e.value.param == "ruleset"
    assert str(e.value).endswith("pass ruleset='russian' or ruleset='erudit'")
    assert "twin" not in str(e.value)  # not a keyboard slip: the whole position is in those letters
    assert Position.from_cgp(cyrillic, "russian").ruleset.name == "russian"


def _parse_opcodes_before(text: str):
    """The opcode parser as it was (quadratic: the rest of the line copied after every ';'): the
    one-pass parser must read every line as it did, errors included."""
    from racksmith.formats.cgp import _clip

    ops = []
    rest = text.strip()
    while rest:
        end = rest.find(";")
        if rest.startswith("-") and rest[1:2].isalpha():
            name = rest.split(None, 1)[0][1:]
            raise CGPError(
                f"CGP opcode {_clip(rest)!r}: '-{_clip(name, 20)}' is a MAGPIE command-line option, not an opcode "
                f"(write '{_clip(name, 20)} VALUE;')"
            )
        if end < 0:
            if len(rest.split()) > 2:
                raise CGPError(f"CGP opcode {_clip(rest)!r} must end with ';'")
            end = len(rest)
        chunk = rest[:end].strip()
        rest = rest[end + 1 :].strip()
        if not chunk:
            continue
        name, _, value = chunk.replace("\t", " ").partition(" ")
        ops.append((name, value.strip()))
    return tuple(ops)


def _opcodes_or_error(parse, text):
    try:
        return parse(text)
    except CGPError as e:
        return ("error", str(e))


OPCODE_LINES = [
    "", " ", ";", ";;", " ; ; ", "lex CSW21", "lex CSW21;", "lex  CSW21 ;", "lex\tCSW21;", "foo bar baz;", "flag;",
    "gid 7; lex CSW21", "a b c", "a b c;", "a;b c d", "-lex X", "x; -lex X;", "x;-lex;y", " -\tx;", "-1 a;", "- x;",
    "lex \u00a0CSW21;", "ld russian; bdn SuperCrosswordGame; var classic_super; lex ru-erudit;", "lm 8D.WORD; ti 10 20;",
    "\u3000lex X;\u3000", "a\nb;", "x y;" * 5, "-", "-;", ";-a", "a; b c d e",
]


@pytest.mark.parametrize("text", OPCODE_LINES)
def test_the_one_pass_opcode_parser_reads_as_before(text):
    from racksmith.formats.cgp import _parse_opcodes

    assert _opcodes_or_error(_parse_opcodes, text) == _opcodes_or_error(_parse_opcodes_before, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab-;1 \t\n\u00a0")), max_size=40))
def test_the_one_pass_opcode_parser_reads_any_line_as_before(text):
    from racksmith.formats.cgp import _parse_opcodes

    assert _opcodes_or_error(_parse_opcodes, text) == _opcodes_or_error(_parse_opcodes_before, text)


def test_many_opcodes_are_read_in_linear_time():
    """A CGP of 142,857 opcodes (1 MB) took 8 s to read (the rest of the line was copied after each
    ';'), twice on the web server: a quick endpoint held for 17 s by one request. Timed in this
    thread's CPU time (a loaded machine stretches the wall time, not this), each size's best of
    three: ten times the opcodes take about ten times as long (a hundred times, quadratic)."""
    import time

    from racksmith.formats.cgp import _parse_opcodes

    def cpu(n: int) -> float:
        line = " bdn x;" * n
        best = float("inf")
        for _ in range(3):
            started = time.thread_time()
            assert len(_parse_opcodes(line)) == n
            best = min(best, time.thread_time() - started)
        return best

    small, large = cpu(14_286), cpu(142_857)
    assert large < 2.0  # 0.07 s here; 8 s before
    assert large < 30 * max(small, 1e-3)  # 10 times here
    tail = "gid 7;" * 100_000 + " a b c"
    with pytest.raises(CGPError, match="'a b c' must end with ';'"):
        _parse_opcodes(tail)


def test_copies_without_the_moves_do_not_carry_the_stale_last_move_and_timers():
    from racksmith import Game, GameView

    cgp = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ABCDEFG 0/28 0 lm 8D.KRONA; gid xyz; ti 300;"
    pos = Position.from_cgp(cgp)
    pos.push("-")
    for p in (pos.copy(stack=False), pos.moves(top=1).position):
        assert p.cgp().endswith(" gid xyz;") and "lm" not in dict(p.opcodes)
    assert pos.copy().opcodes == Position.from_cgp(cgp).opcodes  # (with its moves: popping gives them back)
    game = Game.from_cgp(cgp, seed=1)
    game.play("-")
    assert GameView(game).position.cgp().endswith(" gid xyz;")
