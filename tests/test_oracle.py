"""The oracle against hand-derived move lists, a square-driven brute force, and MAGPIE's fixtures."""
from __future__ import annotations

import random
from itertools import combinations, permutations, product

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracle import (
    WordIndex,
    enable_index,
    fixture_position,
    load_fixture_positions,
    oracle_placements,
)
from racksmith.rules.alphabet import BLANK, THROUGH
from racksmith.errors import PositionError
from racksmith.core.move import Move
from racksmith.core.position import Position
from racksmith.rules.ruleset import Ruleset
from racksmith.rules.symmetry import opening_across_only
from racksmith.core.validation import validate

# 5x5, every premium kind, start 3C on a double word; rack of 3 so that playing 3 tiles is a bingo
TINY = Ruleset.from_dict(
    {
        "name": "tiny",
        "board": ["=.'.-", '."..~', "'.-.^", "^...=", '-.\'."'],
        "tiles": [["A", 6, 1], ["B", 4, 3], ["C", 4, 2], ["D", 3, 5]],
        "blanks": 2,
        "rack_size": 3,
        "bingo_bonus": 20,
        "start": "3C",
    }
)


def tiny(board_rows=None, rack=""):
    board = np.zeros((5, 5), dtype=np.uint8)
    for r, row in enumerate(board_rows or []):
        for c, ch in enumerate(row):
            if ch != ".":
                board[r, c] = TINY.alphabet.tile(ch)
    return Position(TINY, board, (TINY.alphabet.rack(rack), ()))


def naive_placements(position, lexicon):
    """Square-driven brute force: every run of empty squares on a line, every ordering of rack tiles,
    every letter for each blank, judged by racksmith's validation and scoring (not the oracle's)."""
    rs = position.ruleset
    board = position.board
    rack = position.rack
    n = len(rs.alphabet)
    found = set()
    # (on an empty board the down plays mirror the across plays when the board is its own transpose:
    # racksmith's rule here, the oracle's own there, so that comparing the two checks both)
    for across in (True,) if position.is_empty and opening_across_only(rs) else (True, False):
        for line in range(rs.rows if across else rs.cols):
            squares = [(line, k) if across else (k, line) for k in range(rs.cols if across else rs.rows)]
            empties = [i for i, (r, c) in enumerate(squares) if not board[r, c]]
            for k in range(1, len(rack) + 1):
                for chosen in combinations(empties, k):
                    lo, hi = chosen[0], chosen[-1]
                    if any(not board[squares[i]] and i not in chosen for i in range(lo, hi + 1)):
                        continue
                    for perm in set(permutations(rack, k)):
                        choices = [range(1, n + 1) if t == 0 else (t,) for t in perm]
                        for letters in product(*choices):
                            tiles = []
                            j = 0
                            for i in range(lo, hi + 1):
                                b = int(board[squares[i]])
                                if b:
                                    tiles.append(THROUGH | b)
                                else:
                                    tiles.append(letters[j] | (BLANK if perm[j] == 0 else 0))
                                    j += 1
                            r0, c0 = squares[lo]
                            v = validate(position, Move.place(r0, c0, across, tiles, rs.alphabet), lexicon)
                            if v.legal:
                                m = v.move
                                found.add((m.row, m.col, "H" if m.across else "V", m.word, m.score))
    return found


# --- hand-derived move lists ------------------------------------------------------------------------
def test_empty_board_by_hand():
    # row 3 is DL . DW . QL, column C is DL . DW . DL: plays covering 3C; 3 tiles are a bingo (+20).
    # The board is not its own transpose (1A-5A is TW . DL QL DW, 1A-1E TW . DL . DW), so the down
    # plays are moves of their own
    assert not opening_across_only(TINY)
    pos = tiny(rack="ABD")
    got = oracle_placements(pos, {"AB", "BA", "DAB", "BAD", "ADD"})
    assert set(got) == {
        (2, 1, "H", "AB", 8), (2, 2, "H", "AB", 8), (2, 1, "H", "BA", 8), (2, 2, "H", "BA", 8),
        (2, 0, "H", "DAB", 48),  # (5*2 + 1 + 3) * 2 + 20
        (2, 1, "H", "DAB", 38),  # (5 + 1 + 3) * 2 + 20
        (2, 2, "H", "DAB", 56),  # (5 + 1 + 3*4) * 2 + 20
        (2, 0, "H", "BAD", 44),  # (3*2 + 1 + 5) * 2 + 20
        (2, 1, "H", "BAD", 38),
        (2, 2, "H", "BAD", 68),  # (3 + 1 + 5*4) * 2 + 20
        (1, 2, "V", "AB", 8), (2, 2, "V", "AB", 8), (1, 2, "V", "BA", 8), (2, 2, "V", "BA", 8),
        (0, 2, "V", "DAB", 48),  # (5*2 + 1 + 3) * 2 + 20
        (1, 2, "V", "DAB", 38),  # (5 + 1 + 3) * 2 + 20
        (2, 2, "V", "DAB", 44),  # (5 + 1 + 3*2) * 2 + 20
        (0, 2, "V", "BAD", 44),  # (3*2 + 1 + 5) * 2 + 20
        (1, 2, "V", "BAD", 38),
        (2, 2, "V", "BAD", 48),  # (3 + 1 + 5*2) * 2 + 20
    }
    assert len(got) == 20
    assert [m[4] for m in got] == sorted((m[4] for m in got), reverse=True)


def test_single_tiles_by_hand():
    board = [".....", ".....", ".AB..", ".....", "....."]
    lex = {"AB", "DAB", "ABD", "AD", "BD"}
    assert set(oracle_placements(tiny(board, "D"), lex)) == {
        (2, 0, "H", "DAB", 14),  # D on a double letter: 10 + 1 + 3
        (2, 1, "H", "ABD", 9),
        (2, 1, "V", "AD", 6),  # no horizontal neighbour: listed down
        (2, 2, "V", "BD", 8),
    }
    assert set(oracle_placements(tiny(board, "?"), lex)) == {
        (2, 0, "H", "dAB", 4),
        (2, 1, "H", "ABd", 4),
        (2, 1, "V", "Ad", 1),
        (2, 1, "V", "Ab", 1),  # the blank can be any letter: AB down is a word too
        (2, 2, "V", "Bd", 3),
        (1, 2, "V", "aB", 3),
    }


def test_single_tile_with_both_neighbours_is_listed_across_once():
    board = [".....", "..B..", ".A...", ".....", "....."]
    got = oracle_placements(tiny(board, "D"), {"AD", "BD"})
    assert sorted(got) == sorted([
        (2, 1, "H", "AD", 28),  # AD (1+5)*2 + BD (3+5)*2 on the 3C double word
        (2, 1, "V", "AD", 6),
        (1, 2, "H", "BD", 8),
    ])


def test_blank_choices_are_distinct_moves():
    # rack A? on the empty board: AB can be played as AB? no: the B must be the blank; AA as Aa and aA
    got = set(oracle_placements(tiny(rack="A?"), {"AA", "AB"}))
    assert got == {
        (2, 1, "H", "Aa", 2), (2, 1, "H", "aA", 2), (2, 2, "H", "Aa", 2), (2, 2, "H", "aA", 2),
        (2, 1, "H", "Ab", 2), (2, 2, "H", "Ab", 2),
        # and down through 3C (the board is not its own transpose)
        (1, 2, "V", "Aa", 2), (1, 2, "V", "aA", 2), (2, 2, "V", "Aa", 2), (2, 2, "V", "aA", 2),
        (1, 2, "V", "Ab", 2), (2, 2, "V", "Ab", 2),
    }


# --- the oracle against the square-driven brute force ------------------------------------------------
def test_naive_agrees_on_hand_positions():
    cases = [
        (tiny(rack="ABD"), {"AB", "BA", "DAB", "BAD", "ADD"}),
        (tiny([".....", ".....", ".AB..", ".....", "....."], "D?"), {"AB", "DAB", "ABD", "AD", "BD", "DD", "ABDD"}),
        (tiny(["A....", "B.C..", "C.D..", ".....", "..ABC"], "AB?"), {"AB", "BA", "AC", "CAB", "ABC", "BAD", "DAD", "CD", "ACD"}),
    ]
    for pos, lex in cases:
        assert set(oracle_placements(pos, lex)) == naive_placements(pos, lex)


LETTERS = "ABCD"
WORDS = st.lists(st.text(alphabet=LETTERS, min_size=3, max_size=5), max_size=15)


@st.composite
def tiny_positions(draw):
    cells = draw(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.sampled_from("ABCDabcd")), max_size=9))
    board = np.zeros((5, 5), dtype=np.uint8)
    for r, c, ch in cells:
        board[r, c] = TINY.alphabet.tile(ch)
    rack = draw(st.text(alphabet="ABCD?", min_size=1, max_size=3))
    try:
        pos = Position(TINY, board, (TINY.alphabet.rack(rack), ()))
    except PositionError:
        assume(False)
    two = draw(st.sets(st.sampled_from([a + b for a in LETTERS for b in LETTERS]), min_size=4, max_size=12))
    return pos, set(two) | set(draw(WORDS))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(tiny_positions())
def test_oracle_matches_brute_force_on_random_tiny_boards(case):
    pos, lex = case
    assert set(oracle_placements(pos, lex)) == naive_placements(pos, lex)


def seeded_positions(count: int, seed: int = 7):
    """Positions with fuller racks (3 tiles, blanks often) than hypothesis tends to keep."""
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        board = np.zeros((5, 5), dtype=np.uint8)
        for _ in range(rnd.randint(0, 8)):
            board[rnd.randrange(5), rnd.randrange(5)] = TINY.alphabet.tile(rnd.choice("ABCDabcd"))
        rack = "".join(rnd.choice("AABCD??") for _ in range(3))
        two = {a + b for a in LETTERS for b in LETTERS if rnd.random() < 0.5}
        longer = {"".join(rnd.choice(LETTERS) for _ in range(rnd.randint(3, 5))) for _ in range(15)}
        try:
            out.append((Position(TINY, board, (TINY.alphabet.rack(rack), ())), two | longer))
        except PositionError:
            continue
    return out


@pytest.mark.parametrize("case", seeded_positions(80), ids=lambda c: c[0].cgp().split()[0] + " " + c[0].rack_string)
def test_oracle_matches_brute_force_on_seeded_boards(case):
    pos, lex = case
    expected = naive_placements(pos, lex)
    assert set(oracle_placements(pos, lex)) == expected


def test_word_index_skips_foreign_and_short_words():
    idx = WordIndex(["ab", "A", "ABX", "dab", "", "  cab  "], TINY.alphabet)
    assert {w for ws in idx.by_len.values() for w in ws} == idx.words
    assert sorted(len(w) for w in idx.words) == [2, 3, 3]


# --- the oracle against MAGPIE ------------------------------------------------------------------------
FIXTURE_RECORDS = load_fixture_positions("positions.jsonl") + load_fixture_positions("super_positions.jsonl")


@pytest.mark.parametrize("record", FIXTURE_RECORDS, ids=[r["id"] for r in FIXTURE_RECORDS])
def test_oracle_equals_magpie_placements(record):
    pos = fixture_position(record)
    got = oracle_placements(pos, enable_index(pos.ruleset.alphabet))
    assert len(got) == record["n_placements"]
    assert got == [tuple(p) for p in record["placements"]]  # same moves, scores and order
