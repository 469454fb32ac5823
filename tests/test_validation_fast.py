"""The lean check (``lean_verdict``, ``check_move_lean``) against the full one (``check_move``): the same
legality, reason and score on every placement of the fixtures and on generated illegal moves; the
batch word lookup (``Lexicon.first_absent``) against ``contains_tiles``."""
from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from oracle import FIXTURES, enable_words, fixture_position, load_fixture_positions, placement_move
from racksmith.rules.alphabet import BLANK, THROUGH
from racksmith.errors import IllegalMoveError, InvalidMoveError, PositionError
from racksmith.lexicon import Lexicon
from racksmith.core.move import Move
from racksmith.core.position import Position
from racksmith.core.validation import MOVE_REASONS, check_move, check_move_lean, lean_verdict

RECORDS = load_fixture_positions("positions.jsonl") + load_fixture_positions("super_positions.jsonl")
QUIRK_CGP = "15/15/15/15/15/15/15/3QUIRK7/15/15/15/15/15/15/15 ADEIRS?/ 56/0 0"
SMALL = {"QUIRK", "QUIRKS", "QUIRKED", "SQUIRK", "KA", "KAS", "AD", "ADS", "RED", "AS", "IS", "DIRE", "DIRES", "QI"}


@pytest.fixture(scope="module")
def enable() -> Lexicon:
    return Lexicon.load(FIXTURES / "ENABLE15.kwg", "english")


def outcome(check, position, move, lexicon):
    """What a check answers, as comparable data: the move with its score, or the whole error."""
    try:
        m = check(position, move, lexicon)
    except IllegalMoveError as e:
        return ("illegal", e.reason, e.message, e.words)
    return ("legal", m, m.score, m.alphabet)


def full_verdict(position, move, lexicon):
    """check_move's decision in lean_verdict's terms: the score, or the reason code."""
    try:
        return check_move(position, move, lexicon).score
    except IllegalMoveError as e:
        return e.reason


# --- every placement of the fixtures -----------------------------------------------------------------
@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_every_fixture_placement_is_decided_by_the_lean_check_with_the_same_score(record, enable):
    pos = fixture_position(record)
    assert pos.ruleset.alphabet.letters == enable.alphabet.letters  # super plays the English letters
    for p in record["placements"]:
        move = placement_move(pos, p)
        assert lean_verdict(pos, move, enable) == p[4], p
        full = check_move(pos, move, enable)
        lean = check_move_lean(pos, move, enable)
        expected = (move, p[4], pos.ruleset.alphabet)
        assert (lean, lean.score, lean.alphabet) == (full, full.score, full.alphabet) == expected


class Without:
    """A word set less one word, answering ``in`` as check_move asks it."""

    def __init__(self, words: set[str], word: str):
        self.words = words
        self.word = word

    def __contains__(self, word: object) -> bool:
        return word != self.word and word in self.words


def test_fixture_placements_with_a_word_set_take_the_string_lookup():
    words = set(enable_words())
    for record in RECORDS[:4]:
        pos = fixture_position(record)
        for p in record["placements"][:: max(1, len(record["placements"]) // 200)]:
            move = placement_move(pos, p)
            assert lean_verdict(pos, move, words) == p[4]
            assert lean_verdict(pos, move, Without(words, p[3].upper())) == "invalid_words"


# --- each reason, decided by the lean check itself ------------------------------------------------
EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 {}/ 0/0 0"
REASON_CASES = [
    (QUIRK_CGP, Move.place(7, 12, True, [1, 4, 4, 18]), "off_board"),
    (QUIRK_CGP, Move.place(13, 14, False, [1, 4, 19]), "off_board"),
    (QUIRK_CGP, Move.place(-1, 3, False, [1, 4]), "off_board"),
    (QUIRK_CGP, Move.place(7, 3, True, [THROUGH | 17, THROUGH | 21, 1]), "occupied"),  # A over the I
    (QUIRK_CGP, Move.place(7, 1, True, [THROUGH | 1, 4]), "not_contiguous"),
    (QUIRK_CGP, Move.place(7, 3, True, [THROUGH | t for t in (17, 21, 9, 18, 11)]), "no_tiles"),
    (EMPTY.format("ADS"), Move.place(0, 0, True, [1, 4, 19]), "must_cover_start"),
    (EMPTY.format("ADS"), Move.place(8, 7, False, [1, 4, 19]), "must_cover_start"),
    (QUIRK_CGP, Move.place(0, 0, True, [1, 4]), "not_connected"),
    (QUIRK_CGP, Move.place(9, 3, True, [1, 4]), "not_connected"),  # two rows below QUIRK
    (QUIRK_CGP, Move.place(7, 7, False, [THROUGH | 11, 1, 26]), "not_in_rack"),  # Z, not a blank z
    (QUIRK_CGP, Move.place(8, 3, True, [1, 1]), "not_in_rack"),  # one A
    (QUIRK_CGP, Move.place(8, 3, True, [1, 4, 5]), "invalid_words"),  # QA, UD, IE
    (QUIRK_CGP, Move.place(7, 3, True, [THROUGH | t for t in (17, 21, 9, 18, 11)] + [4, 5]), "invalid_words"),
    (EMPTY.format("A"), Move.place(7, 7, True, [1]), "invalid_words"),  # a lone tile forms no word
]


@pytest.mark.parametrize("cgp, move, reason", REASON_CASES)
def test_each_reason_is_found_by_the_lean_check(cgp, move, reason):
    pos = Position.from_cgp(cgp)
    assert lean_verdict(pos, move, SMALL) == reason == full_verdict(pos, move, SMALL)
    assert outcome(check_move_lean, pos, move, SMALL) == outcome(check_move, pos, move, SMALL)


#: the reasons of a move that takes stars back (Эрудит): the lean check leaves such moves to
#: check_move (tests/test_reclaim.py)
RECLAIM_REASONS = {"reclamation_not_allowed", "no_star_there", "star_not_replayed"}


def test_the_cases_cover_every_reason_of_a_placement():
    assert {reason for _, _, reason in REASON_CASES} == set(MOVE_REASONS) - {"exchange_not_allowed"} - RECLAIM_REASONS


def test_scores_of_plays_through_and_beside_tiles():
    pos = Position.from_cgp(QUIRK_CGP)
    lex = SMALL | {"QA", "UD", "KA", "KAS"}
    for text in ("8D (QUIRK)S", "H8 (K)aS", "9D AD", "8C S(QUIRK)", "H8 (K)A", "8D (QUIRK)ED"):
        move = pos.resolve(text)
        assert lean_verdict(pos, move, lex) == check_move(pos, move, lex).score, text
    assert lean_verdict(pos, pos.resolve("8D (QUIRK)S"), lex) == 19  # Q10 U1 I1 R1 K5 S1, no premium under S
    assert lean_verdict(pos, pos.resolve("8D (QUIRK)ED"), lex) == 21  # ... E1 D2


# --- what the lean check leaves to check_move ----------------------------------------------------------
NOT_DECIDED = {
    "QUIRK written plainly over the board": Move.place(7, 3, True, [17, 21, 9, 18, 11, 19]),
    "'.' for each board tile": Move.place(7, 3, True, [THROUGH] * 5 + [19]),
    "part plainly, part in parentheses": Move.place(7, 3, True, [THROUGH | 17, 21, 9, 18, 11, 19]),
    "the word goes on before the move": Move.place(7, 8, True, [19]),
    "the word goes on after the move": Move.place(7, 2, True, [19]),
    "a tile beside QUIRK written down": Move.place(7, 8, False, [19]),
    "a tile only under the K written across": Move.place(8, 7, True, [1]),
    "a bool tile": Move.place(8, 3, True, [True, 4]),
    "a tile over 255": Move.place(8, 3, True, [1, 300]),
    "a bare rack blank": Move.place(8, 3, True, [0, 4]),
    "a tile beyond the alphabet": Move.place(8, 3, True, [27, 4]),
    "an exchange": Move.exchange([1, 4]),
    "an exchange of tiles not held": Move.exchange([26]),
    "an empty exchange": Move.exchange([]),
    "a pass": Move.pass_(),
    "another alphabet": Move.place(8, 3, True, [1, 4], alphabet=Position.empty("russian").ruleset.alphabet),
}


@pytest.mark.parametrize("move", NOT_DECIDED.values(), ids=NOT_DECIDED.keys())
def test_moves_not_in_canonical_form_go_to_check_move(move):
    pos = Position.from_cgp(QUIRK_CGP)
    assert lean_verdict(pos, move, SMALL) is None
    try:
        expected = outcome(check_move, pos, move, SMALL)
    except InvalidMoveError as e:
        with pytest.raises(InvalidMoveError, match=re.escape(str(e))):
            check_move_lean(pos, move, SMALL)
        return
    assert outcome(check_move_lean, pos, move, SMALL) == expected


def test_a_float_row_is_refused_by_the_move_itself():
    """(It was a case for check_move: a Move built around Move.place, which refuses one, with a
    float row; the constructor now refuses it too.)"""
    with pytest.raises(InvalidMoveError, match="a placement's row is a whole number"):
        dataclasses.replace(Move.place(8, 3, True, [1, 4]), row=8.0)
    # (numpy tiles, another such case, are plain ints in the move now: checked as those are)
    plain = Move.place(8, 3, True, [np.uint8(1), 4])
    assert plain.tiles == (1, 4) and all(type(t) is int for t in plain.tiles)
    pos = Position.from_cgp(QUIRK_CGP)
    assert lean_verdict(pos, plain, SMALL) == lean_verdict(pos, Move.place(8, 3, True, [1, 4]), SMALL)


def test_the_given_move_comes_back_when_it_is_canonical_and_scored():
    pos = Position.from_cgp(QUIRK_CGP)
    move = pos.resolve("8D (QUIRK)S")
    assert move.alphabet is pos.ruleset.alphabet
    scored = Move.place(move.row, move.col, True, move.tiles, move.alphabet, score=19, equity=3.5)
    assert check_move_lean(pos, scored, SMALL) is scored
    unscored = check_move_lean(pos, move, SMALL)
    assert unscored == move and unscored.score == 19
    lying = Move.place(move.row, move.col, True, move.tiles, move.alphabet, score=25)
    assert check_move_lean(pos, lying, SMALL).score == 19
    bare = Move.place(move.row, move.col, True, move.tiles)  # no alphabet: the ruleset's is set
    assert check_move_lean(pos, bare, SMALL).alphabet is pos.ruleset.alphabet


def test_a_lexicon_of_another_alphabet_is_asked_with_strings():
    pos = Position.from_cgp(QUIRK_CGP)
    move = pos.resolve("8D (QUIRK)S")
    russian = Lexicon.from_words(["КОТ", "КИТ"], "russian")
    assert lean_verdict(pos, move, russian) == "invalid_words" == full_verdict(pos, move, russian)
    latin = Lexicon.from_words(["QUIRKS"], "english")
    assert lean_verdict(pos, move, latin) == 19 == full_verdict(pos, move, latin)


def test_the_positions_lexicon_is_the_default():
    pos = Position.from_cgp(QUIRK_CGP, lexicon={"QUIRKS"})
    assert lean_verdict(pos, pos.resolve("8D (QUIRK)S")) == 19
    assert lean_verdict(pos, pos.resolve("8D (QUIRK)ED")) == "invalid_words"


# --- generated moves, mostly illegal ---------------------------------------------------------------------
POSITIONS = [fixture_position(r) for r in RECORDS] + [
    Position.from_cgp(QUIRK_CGP),
    Position.empty("english", rack="AEIRST?"),
    Position.empty("super", rack="QUIRKS?"),
]
WITH_PLACEMENTS = [r for r in RECORDS if r["placements"]]
TINY = SMALL | {"QI", "AE", "EA", "AI", "IS", "TA", "AT", "ITS", "SAT"}


class Dice:
    """Random choices drawn by hypothesis (``data``) or by a seeded ``random.Random``."""

    def __init__(self, data=None, rng: random.Random | None = None):
        self.data = data
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi)) if self.data is not None else self.rng.randint(lo, hi)

    def pick(self, seq):
        return self.data.draw(st.sampled_from(seq)) if self.data is not None else self.rng.choice(seq)


def random_move(dice: Dice, pos: Position) -> Move:
    """A placement written as a generator would (board tiles as THROUGH | tile) most of the time,
    sometimes off the board, over the wrong letters, through empty squares, or short of the word."""
    rs = pos.ruleset
    n_letters = len(rs.alphabet)
    across = bool(dice.int(0, 1))
    row = dice.int(-1, rs.rows)
    col = dice.int(-1, rs.cols)
    rack = [t for t in pos.rack if t] or [1]
    tiles = []
    for i in range(dice.int(1, 9)):
        r, c = (row, col + i) if across else (row + i, col)
        b = int(pos.board[r, c]) if 0 <= r < rs.rows and 0 <= c < rs.cols else 0
        kind = dice.pick(["canonical"] * 8 + ["rack", "letter", "blank", "through"])
        if kind == "canonical" and b:
            tiles.append(THROUGH | b)
        elif kind in ("canonical", "rack"):
            tiles.append(dice.pick(rack))
        elif kind == "letter":
            tiles.append(dice.int(1, n_letters))
        elif kind == "blank":
            tiles.append(BLANK | dice.int(1, n_letters))
        else:
            tiles.append(THROUGH | dice.int(0, n_letters))
    return Move.place(row, col, across, tiles, rs.alphabet)


def mutated_placement(dice: Dice, record: dict, pos: Position) -> Move:
    """A fixture placement with one thing changed: a letter, a blank, its place, its direction, its length."""
    rs = pos.ruleset
    move = placement_move(pos, dice.pick(record["placements"]))
    tiles = list(move.tiles)
    i = dice.int(0, len(tiles) - 1)
    what = dice.pick(["letter", "blank", "shift", "turn", "drop", "extend"])
    row, col, across = move.row, move.col, move.across
    if what == "letter" and not tiles[i] & THROUGH:
        tiles[i] = (tiles[i] & BLANK) | dice.int(1, len(rs.alphabet))
    elif what == "blank" and not tiles[i] & THROUGH:
        tiles[i] ^= BLANK
    elif what == "shift":
        row += dice.int(-1, 1)
        col += dice.int(-1, 1)
    elif what == "turn":
        across = not across
    elif what == "drop" and len(tiles) > 1:
        del tiles[i]
    elif what == "extend":
        tiles.append(dice.pick([t for t in pos.rack if t] or [1]))
    return Move.place(row, col, across, tiles, rs.alphabet)


def with_rack(pos: Position, rack: str) -> Position | None:
    """The position with another rack to move, None if the tile set does not have those tiles."""
    try:
        return Position(pos.ruleset, pos.board, (pos.ruleset.alphabet.rack(rack), ()))
    except PositionError:
        return None


def compare(pos: Position, move: Move, lex) -> str:
    """Assert that both checks agree; the lean check's decision as a word ('legal', a reason, 'none')."""
    verdict = lean_verdict(pos, move, lex)
    full = outcome(check_move, pos, move, lex)
    if verdict is not None:
        assert verdict == (full[2] if full[0] == "legal" else full[1]), (move, verdict, full)
    assert outcome(check_move_lean, pos, move, lex) == full, move
    return "none" if verdict is None else "legal" if isinstance(verdict, int) else verdict


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.integers(0, len(POSITIONS) - 1), small=st.booleans())
def test_generated_moves_get_the_same_answer(enable, data, which, small):
    pos = POSITIONS[which]
    compare(pos, random_move(Dice(data), pos), TINY if small else enable)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    which=st.integers(0, len(WITH_PLACEMENTS) - 1),
    rack=st.none() | st.text("ABCDEIOSTZ?", max_size=7),
)
@pytest.mark.slow
def test_mutated_fixture_placements_get_the_same_answer(enable, data, which, rack):
    record = WITH_PLACEMENTS[which]
    pos = fixture_position(record)
    if rack is not None:
        pos = with_rack(pos, rack)
        assume(pos is not None)
    compare(pos, mutated_placement(Dice(data), record, pos), enable)


@pytest.mark.slow
def test_seeded_moves_reach_every_decision_of_the_lean_check(enable):
    rng = random.Random(20240601)
    dice = Dice(rng=rng)
    seen: Counter = Counter()
    for _ in range(1500):
        pos = rng.choice(POSITIONS)
        seen[compare(pos, random_move(dice, pos), rng.choice([TINY, enable]))] += 1
        record = rng.choice(WITH_PLACEMENTS)
        pos = fixture_position(record)
        if rng.random() < 0.3:
            pos = with_rack(pos, "".join(rng.choices("ABCDEIOSTZ?", k=rng.randint(0, 7)))) or pos
        seen[compare(pos, mutated_placement(dice, record, pos), enable)] += 1
    wanted = (set(MOVE_REASONS) - {"exchange_not_allowed"} - RECLAIM_REASONS) | {"legal", "none"}
    assert set(seen) == wanted, seen


# --- the batch lookup ---------------------------------------------------------------------------------
WORD_TILES = st.lists(st.integers(0, 0xFE), max_size=6)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.one_of(WORD_TILES, st.sampled_from(["CAT", "DOGS", "QI", "ZZZ", "AA"])), max_size=6),
       terminated=st.booleans())
def test_first_absent_is_the_first_word_contains_tiles_rejects(enable, words, terminated):
    tiles = [list(bytes(enable.alphabet.encode_plain(w))) if isinstance(w, str) else w for w in words]
    data = b"\xff".join(bytes(t) for t in tiles) + (b"\xff" if terminated and tiles else b"")

    def accepted(word):  # first_absent reads the letter part of any byte; contains_tiles refuses non-tiles
        letters = [t & 0x3F for t in word]
        return all(1 <= t <= len(enable.alphabet) for t in letters) and enable.contains_tiles(letters)

    expected = next((i for i, t in enumerate(tiles) if not accepted(t)), -1)
    if not terminated and tiles and not tiles[-1]:
        # an unterminated empty last word is no word at all
        expected = next((i for i, t in enumerate(tiles[:-1]) if not accepted(t)), -1)
    assert enable.first_absent(data) == expected


def test_first_absent_by_hand(enable):
    a = enable.alphabet

    def enc(*ws):
        return b"\xff".join(bytes(a.encode_plain(w)) for w in ws)

    assert enable.first_absent(b"") == -1
    assert enable.first_absent(enc("QUIRKS", "KA", "AD")) == -1
    assert enable.first_absent(enc("QUIRKS", "KA", "AD") + b"\xff") == -1
    assert enable.first_absent(enc("QUIRKS", "KAX", "ADZ")) == 1
    assert enable.first_absent(enc("QUIRK") + b"\xff\xff") == 1  # an empty word is not a word
    assert enable.first_absent(b"\xff") == 0
    assert enable.first_absent(enc("QUIR")) == 0  # a prefix, not a word
    assert enable.first_absent(bytes([11 | BLANK, 1])) == -1  # KA with a blank K: the letter is read
    assert enable.first_absent(bytes([11, 1, 27])) == 0  # 27 is not an English letter
    assert enable.first_absent(bytes([0, 11, 1])) == 0
